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

#include <stdint.h>

#define TOYTRANS_VERSION "0.1.0"

/* A subcommand: argv[0] is the command's name ("trace"); returns the exit code. */
typedef int (*CliCommandFn)(int argc, char **argv);

/* Parses arg, the value of option opt, as a whole decimal number in [min, max] into *out.
 * On failure prints "toytrans CMD: OPT: ..." to stderr and returns TT_EXIT_USAGE;
 * returns 0 on success. */
int cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max,
                   long *out);

/* As cli_parse_long for an unsigned 64-bit value (a seed). */
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out);

/* Prints "toytrans CMD: MESSAGE" and "Try 'toytrans CMD --help'." to stderr; returns
 * TT_EXIT_USAGE so that callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The subcommands. */
int cli_trace(int argc, char **argv);

/* Prints the exit-code table (`toytrans help exit-codes`) to stdout. */
void cli_print_exit_codes(void);

#endif
