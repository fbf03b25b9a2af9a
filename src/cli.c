/*
 * cli.c — option-value parsing and messages shared by the subcommands.
 *
 * Numbers go through strtol/strtoull with an end pointer and a range check: "12abc",
 * "", " 5" and out-of-range values are refused with a message that names the option.
 */
#include "cli.h"

#include "config.h"
#include "heatmap.h"
#include "status.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <fcntl.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "toytrans %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'toytrans %s --help'.\n", cmd);
    return TT_EXIT_USAGE;
}

const char *cli_model_path(const char *given)
{
    if (given)
        return given;
    const char *env = getenv("TOYTRANS_MODEL");
    return env && *env ? env : CLI_DEFAULT_MODEL;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    if (c == ':')
        return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
    /* optopt names a bad short option; a bad long one is the last word read. */
    if (optopt)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max,
                   long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || isspace((unsigned char)arg[0]))
        return cli_usage_error(cmd, "%s: '%s' is not a whole number", opt, arg);
    if (errno == ERANGE || v < min || v > max)
        return cli_usage_error(cmd, "%s: %s is out of range (%ld to %ld)", opt, arg, min, max);
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *arg, double min,
                     double max, double *out)
{
    char *end;
    const double v = strtod(arg, &end);
    if (end == arg || *end != '\0' || isspace((unsigned char)arg[0]) || !(v >= min && v <= max))
        return cli_usage_error(cmd, "%s: '%s' is not a number from %g to %g", opt, arg, min,
                               max);
    *out = v;
    return 0;
}

int cli_parse_head(const char *cmd, const char *arg, long *out)
{
    if (strcmp(arg, "mean") == 0) {
        *out = HEATMAP_HEAD_MEAN;
        return 0;
    }
    return cli_parse_long(cmd, "--head", arg, 0, CONFIG_MAX_D_MODEL - 1, out);
}

int cli_check_layer_head(const char *cmd, long layer, long head, int n_decoder_layers,
                         int n_heads)
{
    if (layer >= n_decoder_layers)
        return cli_usage_error(cmd, "--layer: %ld is out of range: the decoder has %d layers "
                               "(0..%d)", layer, n_decoder_layers, n_decoder_layers - 1);
    if (head >= n_heads)
        return cli_usage_error(cmd, "--head: %ld is out of range: the model has %d heads "
                               "(0..%d)", head, n_heads, n_heads - 1);
    return 0;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    /* strtoull accepts "-1" and wraps it; a seed must be written as a plain number. */
    if (!isdigit((unsigned char)arg[0]))
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative whole number", opt, arg);
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end != '\0')
        return cli_usage_error(cmd, "%s: '%s' is not a non-negative whole number", opt, arg);
    if (errno == ERANGE || v > UINT64_MAX)
        return cli_usage_error(cmd, "%s: %s is out of range (0 to %llu)", opt, arg,
                               (unsigned long long)UINT64_MAX);
    *out = (uint64_t)v;
    return 0;
}

void cli_print_exit_codes(void)
{
    fputs("Exit codes of every toytrans command:\n"
          "    0  success\n"
          "    1  a check or comparison failed (e.g. trace's single-token check)\n"
          "    2  usage: a bad command line (unknown option, missing or malformed value)\n"
          "    3  model file unusable (missing, damaged, wrong format)\n"
          "    4  invalid input text or input file (the message names file, line, byte)\n"
          "    5  I/O error, disk full, out of memory, or a file locked by another process\n"
          "       for longer than the 5 s busy timeout\n"
          "    6  training diverged (NaN or Inf); the last good checkpoint is kept\n"
          "  130  interrupted (Ctrl-C) after a clean save\n",
          stdout);
}

int cli_for_each_input(int argc, char **argv, CliInputFn fn, void *ctx)
{
    int first = 0;
    if (argc > 0) {
        for (int i = 0; i < argc; i++) {
            int code = fn(argv[i], strlen(argv[i]), i + 1, ctx);
            if (code != 0 && first == 0)
                first = code;
            fflush(stdout);
        }
        return first;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long line_no = 0;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        line_no++;
        size_t n = (size_t)len;
        if (n > 0 && line[n - 1] == '\n')
            n--;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        int code = fn(line, n, line_no, ctx);
        if (code != 0 && first == 0)
            first = code;
        fflush(stdout);
    }
    if (ferror(stdin)) {
        fprintf(stderr, "toytrans: error reading standard input after line %ld: %s\n", line_no,
                strerror(errno));
        if (first == 0)
            first = TT_EXIT_IO;
    }
    free(line);
    return first;
}

int cli_write_file(const char *cmd, const char *path, CliWriteFn write, const void *ctx)
{
    const size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (!tmp) {
        fprintf(stderr, "toytrans %s: %s\n", cmd, status_message(TT_ENOMEM));
        return TT_EXIT_IO;
    }
    snprintf(tmp, n, "%s.tmp", path);
    /* O_NOFOLLOW: a symbolic link planted at the temporary name is not written through. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    const char *where = path, *failed = NULL;
    int rc, saved = 0;
    if (!f) {
        saved = errno;
        if (fd >= 0)
            close(fd);
        where = tmp;
        failed = "cannot create";
        rc = TT_EIO;
    } else {
        rc = write(f, ctx);
        if (rc == TT_EIO)
            saved = errno;
        if (rc == TT_OK && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
            saved = errno;
            rc = TT_EIO;
        }
        if (fclose(f) != 0 && rc == TT_OK) {
            saved = errno;
            rc = TT_EIO;
        }
        if (rc == TT_OK && rename(tmp, path) != 0) {
            saved = errno;
            failed = "cannot move the new file into place";
            rc = TT_EIO;
        }
        if (rc != TT_OK)
            remove(tmp);
    }
    if (rc == TT_EIO)
        fprintf(stderr, "toytrans %s: %s: %s: %s\n", cmd, where, failed ? failed : "cannot write",
                saved ? strerror(saved) : "write error");
    else if (rc != TT_OK)
        fprintf(stderr, "toytrans %s: %s: %s\n", cmd, path, status_message(rc));
    free(tmp);
    return status_exit_code(rc);
}
