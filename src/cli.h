/*
 * cli.h — what every `toytrans` subcommand shares: its entry-point signature and the
 * checked parsing of option values.
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

/* The model file every command opens by default. */
#define CLI_DEFAULT_MODEL "models/en-de.db"

/* The model a command uses: given (its --model), else $TOYTRANS_MODEL when set and not
 * empty, else CLI_DEFAULT_MODEL. */
const char *cli_model_path(const char *given);

/* Reports the getopt_long failure just met — c is ':' (an option without its value) or
 * '?' (an unknown option) — for command cmd, and returns TT_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

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
 * input (newline and a CR before it removed; a last line without newline included),
 * flushing stdout after each. A failing text never stops the others. Returns 0, or the
 * first non-zero exit code fn returned (TT_EXIT_IO if standard input failed). */
int cli_for_each_input(int argc, char **argv, CliInputFn fn, void *ctx);

/* --head H|mean, shared by translate and inspect: "mean" is HEATMAP_HEAD_MEAN, else a
 * whole number checked like cli_parse_long. Returns 0 or TT_EXIT_USAGE. */
int cli_parse_head(const char *cmd, const char *arg, long *out);

/* Checks a decoder --layer (or -1 for none given) and --head against the model's
 * configuration; returns 0 or TT_EXIT_USAGE with a message naming the valid range. */
int cli_check_layer_head(const char *cmd, long layer, long head, int n_decoder_layers,
                         int n_heads);

/* Writes a file's bytes with write(f, ctx) (returning TT_OK or a TT_E* code) into
 * path.tmp — opened without following a planted symbolic link — flushes and syncs it,
 * and renames it over path only when every byte is written, so a reader never sees half
 * a file. Reports failures as "toytrans CMD: …" on stderr; returns an exit code. */
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
int cli_train(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_plot(int argc, char **argv);
int cli_inspect(int argc, char **argv);

/* Prints the exit-code table (`toytrans help exit-codes`) to stdout. */
void cli_print_exit_codes(void);

#endif
