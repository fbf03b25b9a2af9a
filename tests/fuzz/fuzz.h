/*
 * fuzz.h — what every harness under tests/fuzz/ shares.
 *
 * A harness is one file that defines the two entry points below. The same file is built
 * twice (Makefile, "Fuzzing"):
 *   - with clang and -fsanitize=fuzzer,address,undefined into build/fuzz/, where
 *     libFuzzer provides main and calls LLVMFuzzerInitialize once, then
 *     LLVMFuzzerTestOneInput for every input it makes (`make fuzz`);
 *   - with the flavour's compiler and flags into $(B)/fuzz/, linked with replay.c, whose
 *     main does the same for every file of the committed corpus (`make test`, and so
 *     `make asan` and `make valgrind`).
 *
 * A harness checks properties that must hold for every input and calls FUZZ_ASSERT on
 * each: a broken one prints what failed and aborts, which both drivers report as a
 * crash. Everything a harness keeps between inputs is freed by a handler it registers
 * with atexit, so that valgrind's leak check stays clean.
 */
#ifndef TOYTRANS_FUZZ_H
#define TOYTRANS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Called once before the first input; returns 0. argc and argv are the driver's. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Runs one input: size bytes at data (no terminator). Returns 0; a broken property
 * aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the file, line and condition when cond is false. */
#define FUZZ_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif
