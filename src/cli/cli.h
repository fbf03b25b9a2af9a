/*
 * cli.h — what every `toytrans` subcommand shares: its entry-point signature and the
 * checked parsing of option values.
 *
 * The folder cli/ is the command line: a file per command, this header for what they all
 * share and cli_decode.h for what the translating ones share. Nothing outside cli/
 * includes it. docs/design.md lists the folders and their modules.
 *
 * Conventions for every command: `--help` prints usage to stdout and exits 0; a bad
 * command line prints one line naming the problem plus a hint to stderr and exits
 * TT_EXIT_USAGE (2). Commands return an exit code; only main() calls exit.
 */
#ifndef TOYTRANS_CLI_H
#define TOYTRANS_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define TOYTRANS_VERSION "0.1.0"

/* A subcommand: argv[0] is the command's name ("trace"); returns the exit code. */
typedef int (*CliCommandFn)(int argc, char **argv);

/* Parses arg, the value of option opt, as a whole decimal number in [min, max] into *out.
 * On failure prints "toytrans CMD: OPT: ..." to stderr and returns TT_EXIT_USAGE;
 * returns 0 on success. */
int cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max,
                   long *out);

/* As cli_parse_long for a decimal number in [min, max] (NaN is refused). */
int cli_parse_double(const char *cmd, const char *opt, const char *arg, double min,
                     double max, double *out);

/* As cli_parse_long for an unsigned 64-bit value (a seed). */
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out);

/* Where the default model is looked for after --model and $TOYTRANS_MODEL: beside the
 * installed binary (PREFIX/bin/toytrans finds PREFIX/share/toytrans/en-de.db, so an
 * installation can be moved, or staged with DESTDIR), then in the source tree the
 * binary was built in (the Makefile passes its directory). */
#ifndef TOYTRANS_SRCDIR
#define TOYTRANS_SRCDIR "."
#endif
#define CLI_INSTALLED_MODEL_REL "share/toytrans/en-de.db" /* under PREFIX */
#define CLI_BUILT_MODEL TOYTRANS_SRCDIR "/models/en-de.db"

/* PREFIX/share/toytrans/en-de.db for the running binary PREFIX/bin/toytrans (whether it
 * exists or not), or "" when /proc/self/exe cannot be read. Kept in a buffer of cli.c
 * filled on the first call: the one piece of process-wide state of the front end. */
const char *cli_installed_model(void);

/* The model a command uses: given (its --model), else $TOYTRANS_MODEL when set and not
 * empty, else cli_installed_model() when it exists, else CLI_BUILT_MODEL (whether it
 * exists or not: the message about a missing model then names it). */
const char *cli_model_path(const char *given);

/* After the model at path (cli_model_path's answer, the very pointer) failed to load
 * with rc: when the file is missing, prints to stderr what to do, by where the path came
 * from: from --model, a file of that directory with a near name ("did you mean --model
 * models/en-de.db?"); from $TOYTRANS_MODEL, that it did (and a near name); the default,
 * where toytrans looked and how to get a model. */
void cli_model_hint(const char *cmd, const char *path, int rc);

/* Prints the default model's search order, each path marked as found or not
 * (`toytrans help model`). */
void cli_print_model_search(FILE *out);

/* Reports the getopt_long failure just met — c is ':' (an option without its value) or
 * '?' (an unknown option) — for command cmd, and returns TT_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* As cli_bad_option, and for an unknown long option the nearest names in opts (a
 * getopt_long table ending in a zeroed entry; NULL: none) are offered as git offers a
 * command: "unknown option '--beem'; did you mean '--beam'?" (suggest.h says how near).
 * For an unknown one-letter option, the long options of opts that start with its letter
 * are offered, shortest first: "unknown option '-m'; did you mean '--model', ...?". */
struct option;
int cli_bad_option_in(const char *cmd, int c, char **argv, const struct option *opts);

/* Prints "toytrans CMD: MESSAGE" and "Try 'toytrans CMD --help'." to stderr; returns
 * TT_EXIT_USAGE so that callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Called once per input text: text is len bytes (not NUL-terminated in general), line_no
 * is the 1-based line of standard input, or the 1-based argument index. Returns an exit
 * code (0 for success). */
typedef int (*CliInputFn)(const char *text, size_t len, long line_no, void *ctx);

/* Feeds fn every argument argv[0..argc), or, when there are none, every line of standard
 * input (newline and a CR before it removed; a last line without newline included; on a
 * terminal, after telling stderr that it reads and that Ctrl-D ends), flushing stdout
 * after each. A line is read only up to the line limit: a longer one reaches fn as its
 * first TOKENIZER_MAX_BYTES + 5 bytes (more than any text may have, so fn refuses it)
 * and its rest is skipped without being held in memory. A failing text never stops the
 * others. Returns 0, or the
 * first non-zero exit code fn returned (TT_EXIT_IO if standard input failed). */
int cli_for_each_input(int argc, char **argv, CliInputFn fn, void *ctx);

/* Called with a block of texts before fn sees each of them: texts[i] (lens[i] bytes),
 * valid until fn has seen the block's last. */
typedef void (*CliBlockFn)(const char *const *texts, const size_t *lens, int n, void *ctx);

/* cli_for_each_input, a block of up to block texts at a time: the arguments, or the lines
 * of standard input as it reads them, are collected (up to block of them, or to the end
 * of the input), given to before, then to fn one by one in order, with stdout flushed
 * after each. On a terminal (and for block 1) every line is its own block, so a typed line
 * answers at once; from a pipe, a block also goes as soon as no further line is waiting,
 * so a program that writes a line and waits is answered. Returns what cli_for_each_input returns, or TT_EXIT_IO when the block
 * cannot be held in memory. */
int cli_for_each_block(int argc, char **argv, int block, CliBlockFn before, CliInputFn fn,
                       void *ctx);

/* What a block of texts gets besides fn. start and join may be NULL. */
typedef struct {
    CliBlockFn before; /* the block, before fn sees any of its texts */
    /* Begins a block's work in the background and returns 1, or returns 0 when it cannot
     * (before then does the work at the block's turn); join ends the work begun. */
    int (*start)(const char *const *texts, const size_t *lens, int n, void *ctx);
    void (*join)(void *ctx);
    /* Nonzero once the run is over (translate: the model file failed its checks): fn
     * sees no further text, and no further line is read. May be NULL. */
    int (*stop)(void *ctx);
} CliBlockHooks;

/* cli_for_each_block with h's hooks: from a regular file with h->start, block k+1 is read
 * and started before fn sees block k's texts (its work overlaps with theirs) and joined
 * after them; otherwise as cli_for_each_block, with h->before. */
int cli_for_each_block_hooks(int argc, char **argv, int block, const CliBlockHooks *h,
                             CliInputFn fn, void *ctx);

/* --head H|mean, shared by translate and inspect: "mean" is TRANSLATION_HEAD_MEAN, else a
 * whole number checked like cli_parse_long. Returns 0 or TT_EXIT_USAGE. */
int cli_parse_head(const char *cmd, const char *arg, long *out);

/* Checks a decoder --layer (or -1 for none given) and --head against the model's
 * configuration; returns 0 or TT_EXIT_USAGE with a message naming the valid range. */
int cli_check_layer_head(const char *cmd, long layer, long head, int n_decoder_layers,
                         int n_heads);

/* A file a command names on its command line: the option that gave it and the path. */
typedef struct {
    const char *opt;  /* "--model", "--train": how messages name it */
    const char *path; /* NULL when the option was not given (skipped by the checks) */
} CliPath;

/* What a command writes at an output path. */
typedef enum {
    CLI_OUT_TEXT = 0, /* a text file (SVG, HTML): '-' is standard output; a FIFO or a
                         character device is written through, never replaced */
    CLI_OUT_MODEL = 1, /* a model database: only a regular file (existing or new) */
    CLI_OUT_NEW_MODEL = 2 /* a model database made anew (init, vocab): as CLI_OUT_MODEL,
                             and an existing one is replaced only with force */
} CliOutKind;

/* Checks, before the command reads or writes anything, that writing out loses nothing
 * (the rules of README.md, "Files a command writes"):
 *   - out is not the same file (device and inode, not name) as any inputs[i].path that
 *     exists (a NULL path is skipped; "-" is standard input, whatever file it is);
 *   - a symbolic link at out is replaced only with force; one that leads to a FIFO or a
 *     character device is written through;
 *   - an existing SQLite database is replaced by a text file only with force;
 *   - a model goes to a regular file or a new name, never to '-', a FIFO, a device or a
 *     directory;
 *   - a model that a writer (a training run) holds locked (store_check_writer) is never
 *     replaced, whatever force says: TT_EXIT_IO;
 *   - a new file's directory exists and may be written (else TT_EXIT_IO, before any
 *     work whose result could then not be saved);
 *   - a CLI_OUT_NEW_MODEL that exists is replaced only with force (refused now, not
 *     after the corpus is counted; model_create refuses one that appears meanwhile).
 * Prints "toytrans CMD: …" naming both files and returns TT_EXIT_USAGE on a refusal,
 * TT_EXIT_IO for a locked model or a directory that cannot take the file, else 0. */
int cli_check_output(const char *cmd, CliPath out, CliOutKind kind, const CliPath *inputs,
                     int n_inputs, int force);

/* 1 when paths a and b name one file: both exist and are the same device and inode
 * (through links and hard links alike), or neither exists yet and both are the same
 * name in the same directory (by device and inode). '-' and NULL name no file. */
int cli_same_file(const char *a, const char *b);

/* Checks that no two of a command's n outputs (NULL paths skipped) are one file
 * (cli_same_file): "--svg x1 and --html ./x1 are the same file". Prints the refusal and
 * returns TT_EXIT_USAGE, else 0. */
int cli_check_distinct_outputs(const char *cmd, const CliPath *outs, int n);

/* Writes a text file's bytes with write(f, ctx) (returning TT_OK or a TT_E* code):
 *   - path "-": to standard output, flushed;
 *   - an existing FIFO or character device (or a link to one): written through, in place;
 *   - otherwise into a temporary file beside path whose name is unique to this process
 *     (created exclusively, never through a planted link), flushed, synced, and renamed
 *     over path only when every byte is written, so a reader never sees half a file.
 * Call cli_check_output first. Reports failures as "toytrans CMD: …" on stderr; returns
 * an exit code. */
typedef int (*CliWriteFn)(FILE *f, const void *ctx);
int cli_write_file(const char *cmd, const char *path, CliWriteFn write, const void *ctx);

/* The subcommands. */
int cli_trace(int argc, char **argv);
int cli_corpus(int argc, char **argv);
int cli_tokenize(int argc, char **argv);
int cli_vocab(int argc, char **argv);
int cli_init(int argc, char **argv);
int cli_translate(int argc, char **argv);
int cli_eval(int argc, char **argv);
int cli_bleu(int argc, char **argv);
int cli_train(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_plot(int argc, char **argv);
int cli_inspect(int argc, char **argv);

/* Prints the exit-code table (`toytrans help exit-codes`) to stdout. */
void cli_print_exit_codes(void);

#endif
