/*
 * mem.h — the allocation helpers several modules share: a string copy.
 *
 * It allocates through malloc itself rather than through strdup, so that the fault
 * tests (tests/test_faults.c), which wrap malloc, calloc and realloc at link time, can
 * fail every allocation it makes.
 */
#ifndef TOYTRANS_MEM_H
#define TOYTRANS_MEM_H

#include <stddef.h>

/* A copy of the NUL-terminated s, owned by the caller (free), or NULL when memory ran
 * out. */
char *mem_dup_str(const char *s);

#endif
