/*
 * cli.c — option-value parsing and messages shared by the subcommands.
 *
 * Numbers go through strtol/strtoull with an end pointer and a range check: "12abc",
 * "", " 5" and out-of-range values are refused with a message that names the option.
 */
#include "cli/cli.h"
#include "cli/cli_decode.h"

#include "base/linein.h"
#include "base/outfile.h"
#include "base/status.h"
#include "base/suggest.h"
#include "model/config.h"
#include "model/store.h"
#include "show/heatmap.h"
#include "text/tokenizer.h"

#include <ctype.h>
#include <poll.h>
#include <pthread.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

const char *cli_installed_model(void)
{
    static char path[4096]; /* documented in cli.h: filled once */
    static int done;
    if (done)
        return path;
    done = 1;
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return path;
    exe[n] = '\0';
    /* PREFIX/bin/toytrans: drop the file name and the bin directory. */
    for (int k = 0; k < 2; k++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return path;
        *slash = '\0';
    }
    if ((size_t)snprintf(path, sizeof path, "%s/" CLI_INSTALLED_MODEL_REL, exe) >= sizeof path)
        path[0] = '\0';
    return path;
}

const char *cli_model_path(const char *given)
{
    if (given)
        return given;
    const char *env = getenv("TOYTRANS_MODEL");
    if (env && *env)
        return env;
    const char *installed = cli_installed_model();
    return *installed && access(installed, F_OK) == 0 ? installed : CLI_BUILT_MODEL;
}

/* The file in path's directory whose name is nearest to path's (suggest.h says how
 * near), into buf as the path to write instead; 0 when none is near enough. Ties go to
 * the name first in byte order, so that the answer does not depend on readdir. */
static int nearest_file(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[4096];
    const int dir_len = slash ? (int)(slash - path) : 0;
    if (dir_len >= (int)sizeof dir)
        return 0;
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", dir_len == 0 ? 1 : dir_len, dir_len == 0 ? "/" : path);
    else
        snprintf(dir, sizeof dir, ".");
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    const int len = (int)strlen(base);
    int best = SUGGEST_MAX_DISTANCE + 1;
    char best_name[SUGGEST_MAX_LEN + 1] = "";
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        const int dist = suggest_distance(base, e->d_name);
        const size_t name_len = strlen(e->d_name);
        if (dist < 1 || 2 * dist >= len || dist > best || name_len > SUGGEST_MAX_LEN ||
            (dist == best && strcmp(e->d_name, best_name) >= 0))
            continue;
        best = dist;
        memcpy(best_name, e->d_name, name_len + 1);
    }
    closedir(d);
    if (!best_name[0])
        return 0;
    return snprintf(buf, size, "%.*s%s", (int)(base - path), path, best_name) < (int)size;
}

void cli_model_hint(const char *cmd, const char *path, int rc)
{
    if (rc != TT_EMODEL || access(path, F_OK) == 0)
        return;
    char near[4200];
    const int has_near = nearest_file(path, near, sizeof near);
    const char *env = getenv("TOYTRANS_MODEL");
    const char *installed = cli_installed_model();
    /* cli_model_path hands back the environment's own string, so its address tells
     * where the path came from; --model's is an argv string, never the same. */
    if (env && path == env) {
        fprintf(stderr, "toytrans %s: %s is the value of TOYTRANS_MODEL%s%s%s: set it to a model "
                        "file, or unset it for the default ('toytrans help model')\n",
                cmd, path, has_near ? " (did you mean " : "", has_near ? near : "",
                has_near ? "?)" : "");
        return;
    }
    if (strcmp(path, CLI_BUILT_MODEL) != 0 && strcmp(path, installed) != 0) {
        if (has_near)
            fprintf(stderr, "toytrans %s: did you mean --model %s?\n", cmd, near);
        return;
    }
    fprintf(stderr, "toytrans %s: no model at %s ('make install' puts one there) nor at "
                    CLI_BUILT_MODEL " ('make model' trains it); pass --model M or set "
                    "TOYTRANS_MODEL\n", cmd, *installed ? installed
                                                    : "PREFIX/" CLI_INSTALLED_MODEL_REL);
}

void cli_print_model_search(FILE *out)
{
    const char *env = getenv("TOYTRANS_MODEL");
    const char *installed = cli_installed_model();
    fputs("A command that reads a model opens the first of:\n"
          "  1. --model M, when given\n", out);
    fprintf(out, "  2. $TOYTRANS_MODEL, when set and not empty%s%s%s\n",
            env && *env ? " (now: " : " (now unset)", env && *env ? env : "",
            env && *env ? ")" : "");
    fprintf(out, "  3. %s, installed with this binary%s\n",
            *installed ? installed : "PREFIX/" CLI_INSTALLED_MODEL_REL,
            *installed && access(installed, F_OK) == 0 ? " (found)" : " (not there)");
    fprintf(out, "  4. %s, of the source tree it was built in%s\n",
            CLI_BUILT_MODEL, access(CLI_BUILT_MODEL, F_OK) == 0 ? " (found)" : " (not there)");
    fprintf(out, "Without --model, this toytrans opens %s.\n", cli_model_path(NULL));
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *word = argv[optind - 1];
    if (c == ':')
        return cli_usage_error(cmd, "%s needs a value", word);
    /* A long option is the last word read. getopt_long sets optopt for one that exists
     * but was given a value it does not take (to the option's code, not a letter). */
    if (strncmp(word, "--", 2) == 0) {
        if (optopt && strchr(word, '='))
            return cli_usage_error(cmd, "option '%.*s' takes no value",
                                   (int)strcspn(word, "="), word);
        return cli_usage_error(cmd, "unknown option '%s'", word);
    }
    if (optopt)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", word);
}

/* An unknown one-letter option -X: the long options that start with X, shortest first
 * (at most three), for someone used to -m meaning --model elsewhere. */
static int bad_short_option(const char *cmd, int c, char **argv, const struct option *opts)
{
    enum { MAX_SHOWN = 3 };
    const char *shown[MAX_SHOWN];
    int k = 0;
    for (int i = 0; opts[i].name; i++) {
        if (opts[i].name[0] != optopt || opts[i].name[1] == '\0')
            continue;
        /* Insertion by length: the short names are the likely ones. */
        int at = k < MAX_SHOWN ? k : MAX_SHOWN;
        while (at > 0 && strlen(opts[i].name) < strlen(shown[at - 1]))
            at--;
        if (at == MAX_SHOWN)
            continue;
        for (int j = (k < MAX_SHOWN ? k : MAX_SHOWN - 1); j > at; j--)
            shown[j] = shown[j - 1];
        shown[at] = opts[i].name;
        if (k < MAX_SHOWN)
            k++;
    }
    if (k == 0)
        return cli_bad_option(cmd, c, argv);
    char list[256];
    size_t used = 0;
    for (int i = 0; i < k && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s'--%s'",
                                 i == 0 ? "" : i == k - 1 ? " or " : ", ", shown[i]);
    return cli_usage_error(cmd, "unknown option '-%c'; did you mean %s?", optopt, list);
}

int cli_bad_option_in(const char *cmd, int c, char **argv, const struct option *opts)
{
    const char *word = argv[optind - 1];
    if (c != ':' && opts && optopt > 0 && optopt < 128 && isalpha(optopt) &&
        strncmp(word, "--", 2) != 0)
        return bad_short_option(cmd, c, argv, opts);
    if (c == ':' || optopt || !opts || strncmp(word, "--", 2) != 0)
        return cli_bad_option(cmd, c, argv);
    /* The name typed, without "--" and any "=VALUE". */
    char name[SUGGEST_MAX_LEN + 1];
    const size_t len = strcspn(word + 2, "=");
    if (len > SUGGEST_MAX_LEN)
        return cli_bad_option(cmd, c, argv);
    memcpy(name, word + 2, len);
    name[len] = '\0';
    enum { MAX_OPTS = 64, MAX_SHOWN = 3 };
    const char *names[MAX_OPTS];
    int n = 0;
    for (; n < MAX_OPTS && opts[n].name; n++)
        names[n] = opts[n].name;
    int near[MAX_SHOWN];
    const int k = suggest_nearest(name, names, n, near, MAX_SHOWN);
    if (k == 0)
        return cli_bad_option(cmd, c, argv);
    char list[256];
    size_t used = 0;
    for (int i = 0; i < k && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s'--%s'",
                                 i == 0 ? "" : i == k - 1 ? " or " : ", ", names[near[i]]);
    return cli_usage_error(cmd, "unknown option '%s'; did you mean %s?", word, list);
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
        *out = TRANSLATION_HEAD_MEAN;
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
          "    2  usage: a bad command line (unknown option, missing or malformed value),\n"
          "       or a new model file that already exists (--force replaces it)\n"
          "    3  model file unusable (missing, damaged, wrong format, or computing\n"
          "       NaN or Inf for a sentence)\n"
          "    4  invalid input text or input file (the message names file, line, byte),\n"
          "       a line over 65536 bytes or with over 30 combining marks in a row\n"
          "    5  I/O error, disk full, out of memory, a file locked by another process\n"
          "       for longer than the 5 s busy timeout, a model another run is writing,\n"
          "       or a closed pipe on standard output (no message then)\n"
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
    /* Someone who typed the command without a text would otherwise face a silent wait. */
    if (isatty(STDIN_FILENO))
        fputs("toytrans: reading sentences from standard input; Ctrl-D ends\n", stderr);
    /* A line is read up to the limit and no further: fn gets the first bytes of a longer
     * one, which it refuses as too long, and the rest is skipped in constant memory. */
    LineIn in;
    linein_init(&in, stdin, TOKENIZER_MAX_BYTES + 4, NULL);
    int output_failed = 0, rc;
    while ((rc = linein_read(&in)) == TT_OK || rc == LINEIN_LONG) {
        char *line = in.line;
        size_t n = in.line_no == 1 ? tokenizer_strip_bom(line, in.len) : in.len;
        if (rc == TT_OK && n > 0 && line[n - 1] == '\n')
            n--;
        if (rc == TT_OK && n > 0 && line[n - 1] == '\r')
            n--;
        int code = fn(line, n, in.line_no, ctx);
        if (code != 0 && first == 0)
            first = code;
        /* Nobody reads the output any more (a closed pipe, a full disk): the rest of the
         * input would be translated for nothing. main reports the write error. */
        if (fflush(stdout) != 0 || ferror(stdout)) {
            if (first == 0)
                first = TT_EXIT_IO;
            output_failed = 1;
            break;
        }
    }
    if (!output_failed && rc != LINEIN_END) {
        fprintf(stderr, "toytrans: error reading standard input after line %ld: %s\n",
                in.line_no, rc == TT_EIO && errno ? strerror(errno) : status_message(rc));
        if (first == 0)
            first = TT_EXIT_IO;
    }
    linein_free(&in);
    return first;
}

int cli_batch_try(Translator *tr, int batch, int threads, Pool **pool)
{
    *pool = NULL;
    int rc = threads > 1 ? pool_open(pool, threads) : TT_OK;
    if (rc == TT_OK)
        rc = translator_set_batch(tr, batch, *pool);
    if (rc != TT_OK) {
        pool_close(*pool);
        *pool = NULL;
    }
    return rc;
}

int cli_batch_report(const char *cmd, int batch, int threads, int rc)
{
    fprintf(stderr, "toytrans %s: --batch %d --threads %d: %s\n", cmd, batch, threads,
            status_message(rc));
    return status_exit_code(rc);
}

int cli_batch_open(const char *cmd, Translator *tr, int batch, int threads, Pool **pool)
{
    const int rc = cli_batch_try(tr, batch, threads, pool);
    return rc == TT_OK ? 0 : cli_batch_report(cmd, batch, threads, rc);
}

/* A block of texts being collected: copies of standard input's lines, or the arguments. */
typedef struct {
    int n, cap;
    char **text;       /* (cap) owned copies, or NULL for arguments */
    const char **view; /* (cap) what before and fn see */
    size_t *len;
    long *no;
} Block;

/* Gives each text of the block to fn, then empties the block; the first non-zero code of
 * the run goes to *first, unless it holds one already. An output that fails, or h->stop,
 * sets *failed and ends the block. */
static void block_lines(Block *b, const CliBlockHooks *h, CliInputFn fn, void *ctx, int *first,
                        int *failed)
{
    for (int i = 0; i < b->n; i++) {
        int code = fn(b->view[i], b->len[i], b->no[i], ctx);
        if (code != 0 && *first == 0)
            *first = code;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            *failed = 1;
            if (*first == 0)
                *first = TT_EXIT_IO;
            break;
        }
        if (h->stop && h->stop(ctx)) {
            *failed = 1;
            break;
        }
    }
    for (int i = 0; b->text && i < b->n; i++) {
        free(b->text[i]);
        b->text[i] = NULL;
    }
    b->n = 0;
}

/* Gives the block to h->before and then each text to fn. */
static void block_flush(Block *b, const CliBlockHooks *h, CliInputFn fn, void *ctx,
                        int *first, int *failed)
{
    if (b->n > 0)
        h->before(b->view, b->len, b->n, ctx);
    block_lines(b, h, fn, ctx, first, failed);
}

static int block_alloc(Block *b, int cap)
{
    *b = (Block){.cap = cap};
    b->text = calloc((size_t)cap, sizeof *b->text);
    b->view = malloc(sizeof *b->view * (size_t)cap);
    b->len = malloc(sizeof *b->len * (size_t)cap);
    b->no = malloc(sizeof *b->no * (size_t)cap);
    return b->text && b->view && b->len && b->no ? TT_OK : TT_ENOMEM;
}

static void block_free(Block *b)
{
    for (int i = 0; b->text && i < b->n; i++)
        free(b->text[i]);
    free(b->no);
    free(b->len);
    free(b->view);
    free(b->text);
}

/* Adds the line in holds (rc: linein_read's TT_OK or LINEIN_LONG) to b as a copy, without
 * its line end (nor a byte-order mark on line 1). Returns 0, or TT_EXIT_IO without memory
 * for the copy (said on stderr). */
static int block_add(Block *b, const LineIn *in, int rc)
{
    size_t n = in->line_no == 1 ? tokenizer_strip_bom(in->line, in->len) : in->len;
    if (rc == TT_OK && n > 0 && in->line[n - 1] == '\n')
        n--;
    if (rc == TT_OK && n > 0 && in->line[n - 1] == '\r')
        n--;
    char *copy = malloc(n ? n : 1);
    if (!copy) {
        fprintf(stderr, "toytrans: standard input line %ld: %s\n", in->line_no,
                status_message(TT_ENOMEM));
        return TT_EXIT_IO;
    }
    memcpy(copy, in->line, n);
    b->text[b->n] = copy;
    b->view[b->n] = copy;
    b->len[b->n] = n;
    b->no[b->n] = in->line_no;
    b->n++;
    return 0;
}

/* Whether a read of fd would not wait: data, the end, or an error are there. */
static int input_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    do
        n = poll(&p, 1, 0);
    while (n < 0 && errno == EINTR);
    return n != 0;
}

/* Reads lines into b until it is full or the input ends (*rc: linein_read's last code,
 * which is TT_OK or LINEIN_LONG while there may be more). Without memory for a copy:
 * TT_EXIT_IO into *first and TT_ENOMEM into *rc, which ends the reading. */
static void block_read(Block *b, LineIn *in, int *rc, int *first)
{
    while (b->n < b->cap && (*rc == TT_OK || *rc == LINEIN_LONG)) {
        if ((*rc = linein_read(in)) != TT_OK && *rc != LINEIN_LONG)
            return;
        if (block_add(b, in, *rc) != 0) {
            *first = *first ? *first : TT_EXIT_IO;
            *rc = TT_ENOMEM;
        }
    }
}

/* A regular file's lines, a block read ahead: block k+1 is read and started (h->start)
 * before fn sees block k's texts, and joined after them; a block start declines gets
 * h->before at its turn. A file never waits, so reading ahead holds nothing back.
 * Returns linein_read's last code. */
static int file_blocks(LineIn *in, Block *b, Block *next_block, const CliBlockHooks *h,
                       CliInputFn fn, void *ctx, int *first, int *failed)
{
    Block next = *next_block;
    int rc = TT_OK;
    block_read(b, in, &rc, first);
    if (b->n > 0)
        h->before(b->view, b->len, b->n, ctx);
    while (b->n > 0 && !*failed) {
        block_read(&next, in, &rc, first);
        const int started = next.n > 0 && h->start(next.view, next.len, next.n, ctx);
        block_lines(b, h, fn, ctx, first, failed);
        if (started)
            h->join(ctx);
        else if (next.n > 0 && !*failed)
            h->before(next.view, next.len, next.n, ctx);
        const Block t = *b;
        *b = next;
        next = t;
    }
    *next_block = next;
    return rc;
}

int cli_for_each_block(int argc, char **argv, int block, CliBlockFn before, CliInputFn fn,
                       void *ctx)
{
    const CliBlockHooks h = {.before = before};
    return cli_for_each_block_hooks(argc, argv, block, &h, fn, ctx);
}

int cli_for_each_block_hooks(int argc, char **argv, int block, const CliBlockHooks *h,
                             CliInputFn fn, void *ctx)
{
    if (block <= 1 || (argc == 0 && isatty(STDIN_FILENO)))
        return cli_for_each_input(argc, argv, fn, ctx);
    Block b;
    int first = 0, failed = 0;
    if (block_alloc(&b, block) != TT_OK) {
        fprintf(stderr, "toytrans: %s\n", status_message(TT_ENOMEM));
        first = TT_EXIT_IO;
        goto done;
    }
    if (argc > 0) {
        for (int i = 0; i < argc && !failed; i++) {
            b.view[b.n] = argv[i];
            b.len[b.n] = strlen(argv[i]);
            b.no[b.n] = i + 1;
            if (++b.n == block || i + 1 == argc)
                block_flush(&b, h, fn, ctx, &first, &failed);
        }
        goto done;
    }
    /* Read with read(2), past stdio's buffer, so that a line already read is seen. */
    LineIn in;
    const int fd = fileno(stdin);
    struct stat st;
    const int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    linein_init_fd(&in, fd, TOKENIZER_MAX_BYTES + 4, NULL);
    int rc = TT_OK;
    Block next = {0};
    /* Without room for a second block, the blocks go one after another. */
    if (regular && h->start && block_alloc(&next, block) == TT_OK) {
        rc = file_blocks(&in, &b, &next, h, fn, ctx, &first, &failed);
    } else {
        for (;;) {
            /* Lines that came down a pipe or socket answer before the next is waited for:
             * with nothing more read or to read just now, the block goes as it is (a
             * program that writes a line and waits for its translation would otherwise
             * wait for a whole block). A file always has its next line. */
            if (b.n > 0 && !regular && !linein_buffered(&in) && !input_ready(fd))
                block_flush(&b, h, fn, ctx, &first, &failed);
            if (failed || ((rc = linein_read(&in)) != TT_OK && rc != LINEIN_LONG))
                break;
            if (block_add(&b, &in, rc) != 0) {
                if (first == 0)
                    first = TT_EXIT_IO;
                break;
            }
            if (b.n == block)
                block_flush(&b, h, fn, ctx, &first, &failed);
        }
        if (!failed && b.n > 0)
            block_flush(&b, h, fn, ctx, &first, &failed);
    }
    if (!failed && first != TT_EXIT_IO && rc != LINEIN_END) {
        fprintf(stderr, "toytrans: error reading standard input after line %ld: %s\n",
                in.line_no, rc == TT_EIO && errno ? strerror(errno) : status_message(rc));
        if (first == 0)
            first = TT_EXIT_IO;
    }
    linein_free(&in);
    block_free(&next);
done:
    block_free(&b);
    return first;
}

/* 1 when path is a regular file that starts with SQLite's header string. */
static int is_sqlite_file(const char *path)
{
    static const char MAGIC[16] = "SQLite format 3"; /* and its NUL */
    char head[16];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    const int is = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                   read(fd, head, sizeof head) == (ssize_t)sizeof head &&
                   memcmp(head, MAGIC, sizeof head) == 0;
    close(fd);
    return is;
}

/* The directory part of path ("." for a bare name) into buf, and its last component;
 * NULL when path ends in '/' or does not fit. */
static const char *split_path(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name)
        return NULL;
    const size_t dir = slash ? (size_t)(slash - path) + (slash == path) : 0;
    if (dir + 2 > size)
        return NULL;
    if (slash)
        memcpy(buf, path, dir);
    else
        buf[0] = '.';
    buf[slash ? dir : 1] = '\0';
    return name;
}

int cli_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    const int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) /* one exists, the other not: two places, or one link left dangling */
        return 0;
    /* Neither exists yet: the same name in the same directory. */
    char da[4096], db[4096];
    const char *na = split_path(a, da, sizeof da), *nb = split_path(b, db, sizeof db);
    return na && nb && strcmp(na, nb) == 0 && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_check_distinct_outputs(const char *cmd, const CliPath *outs, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (outs[i].path && outs[j].path && cli_same_file(outs[i].path, outs[j].path))
                return cli_usage_error(cmd, "%s %s and %s %s are the same file: one would "
                                       "replace the other; nothing written", outs[i].opt,
                                       outs[i].path, outs[j].opt, outs[j].path);
    return 0;
}

int cli_check_output(const char *cmd, CliPath out, CliOutKind kind, const CliPath *inputs,
                     int n_inputs, int force)
{
    if (!out.path)
        return 0;
    if (strcmp(out.path, "-") == 0) {
        if (kind != CLI_OUT_TEXT)
            return cli_usage_error(cmd, "%s -: a model database cannot be written to standard "
                                   "output; name a file", out.opt);
        return 0;
    }
    struct stat st, lst;
    const int exists = stat(out.path, &st) == 0;
    const int is_link = lstat(out.path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (exists) {
        for (int i = 0; i < n_inputs; i++) {
            struct stat in;
            /* '-' is standard input: whatever file the shell opened there. */
            if (!inputs[i].path || (strcmp(inputs[i].path, "-") == 0
                                        ? fstat(STDIN_FILENO, &in) != 0
                                        : stat(inputs[i].path, &in) != 0))
                continue;
            /* A terminal or /dev/null read and written at once loses nothing. */
            if (in.st_dev == st.st_dev && in.st_ino == st.st_ino && !S_ISCHR(st.st_mode))
                return cli_usage_error(cmd, "%s %s is the same file as %s %s: writing it would "
                                       "destroy what is read; nothing written", out.opt,
                                       out.path, inputs[i].opt, inputs[i].path);
        }
        if (S_ISDIR(st.st_mode))
            return cli_usage_error(cmd, "%s %s is a directory; name a file", out.opt, out.path);
        if (!S_ISREG(st.st_mode)) {
            if (kind != CLI_OUT_TEXT)
                return cli_usage_error(cmd, "%s %s is not a regular file (a FIFO or a device): "
                                       "a model database is written only to a regular file",
                                       out.opt, out.path);
            return 0; /* written through, never replaced */
        }
    }
    if (!exists && !is_link) {
        /* A new file: its directory must take it, or the command would do all its work
         * and fail only at the end. */
        char dir[4096];
        const char *slash = strrchr(out.path, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            snprintf(dir, sizeof dir, "%.*s", slash == out.path ? 1 : (int)(slash - out.path),
                     out.path);
        if (access(dir, W_OK | X_OK) != 0) {
            fprintf(stderr, "toytrans %s: %s %s: cannot be written there: %s: %s\n", cmd,
                    out.opt, out.path, dir, strerror(errno));
            return TT_EXIT_IO;
        }
    }
    if (is_link && !force)
        return cli_usage_error(cmd, "%s %s is a symbolic link; not replaced (--force replaces "
                               "the link with the new file)", out.opt, out.path);
    if (exists && kind == CLI_OUT_TEXT && !force && is_sqlite_file(out.path))
        return cli_usage_error(cmd, "%s %s is an SQLite database (a model?); not replaced "
                               "(--force replaces it)", out.opt, out.path);
    /* A model a training run is writing is its writer's until the run ends: not replaced
     * by anything, whatever --force says. */
    char err[512];
    if (exists && !is_link && store_check_writer(out.path, err, sizeof err) != TT_OK) {
        fprintf(stderr, "toytrans %s: %s %s\n", cmd, out.opt, err);
        return TT_EXIT_IO;
    }
    if (exists && kind == CLI_OUT_NEW_MODEL && !force) {
        fprintf(stderr, "toytrans %s: %s: already exists; not replaced (--force replaces it)\n",
                cmd, out.path);
        return TT_EXIT_USAGE;
    }
    return 0;
}

int cli_write_file(const char *cmd, const char *path, CliWriteFn write, const void *ctx)
{
    const int to_stdout = strcmp(path, "-") == 0;
    struct stat st;
    /* A FIFO or a device (/dev/null, a terminal) is written through: replacing it with a
     * regular file would lose what it is. */
    const int through = !to_stdout && stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
                        !S_ISDIR(st.st_mode);
    OutFile of = {0};
    FILE *f = NULL;
    int rc = TT_OK;
    if (to_stdout) {
        f = stdout;
    } else if (through) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0 && !(f = fdopen(fd, "w")))
            close(fd);
        rc = f ? TT_OK : TT_EIO;
    } else if ((rc = outfile_open(&of, path, NULL, 0)) == TT_OK) {
        f = of.f;
    }
    const char *where = to_stdout ? "standard output" : path, *failed = NULL;
    int saved = 0;
    if (!f) {
        saved = errno;
        failed = through ? "cannot open" : "cannot create a temporary file beside it";
    } else {
        rc = write(f, ctx);
        if (rc == TT_EIO)
            saved = errno;
        if (of.f) {
            /* A new file: committed (flushed, synced, renamed into place) only whole. */
            if (rc != TT_OK) {
                outfile_abort(&of);
            } else if ((rc = outfile_commit(&of, NULL, 0)) != TT_OK) {
                saved = errno;
                failed = "cannot write or move the new file into place";
            }
        } else {
            if (rc == TT_OK && fflush(f) != 0) {
                saved = errno;
                rc = TT_EIO;
            }
            if (!to_stdout && fclose(f) != 0 && rc == TT_OK) {
                saved = errno;
                rc = TT_EIO;
            }
        }
    }
    if (rc == TT_EIO && !(to_stdout && saved == EPIPE)) /* a closed pipe ends quietly */
        fprintf(stderr, "toytrans %s: %s: %s: %s\n", cmd, where, failed ? failed : "cannot write",
                saved ? strerror(saved) : "write error");
    else if (rc != TT_OK && rc != TT_EIO)
        fprintf(stderr, "toytrans %s: %s: %s\n", cmd, where, status_message(rc));
    return status_exit_code(rc);
}

/* ---------------------------------------------------------------------------------------
 * The decoding flags (cli_decode.h): one table of their ranges and help, one parser.
 */

#include <assert.h>

/* Each flag once: its code, the option as the help shows it, its range (for the whole
 * numbers) and its help, lines joined by '\n', each at most 58 columns so that they fit
 * beside every command's option column. */
static const struct {
    int code;
    const char *name;  /* "--beam" */
    const char *usage; /* "--beam N" */
    long min, max;     /* the value's range; unused for --prefix */
    const char *help;
} DECODE_FLAGS[] = {
    {CLI_DECODE_PREFIX, "--prefix", "--prefix TEXT", 0, 0,
     "force the start of the translation (\"Das ist ein\"): fed\n"
     "to the decoder as given, scored, and continued"},
    {CLI_DECODE_BEAM, "--beam", "--beam N", 1, DECODE_MAX_BEAM,
     "beam search with N hypotheses (default 1: greedy)"},
    {CLI_DECODE_MAX_LEN, "--max-len", "--max-len N", 2, CONFIG_MAX_LEN,
     "stop at N output tokens, </s> and any prefix included\n"
     "(default: prefix + 2 × source tokens + 10, </s>\n"
     "counted; never more than the model's max_len)"},
    {CLI_DECODE_N_BEST, "--n-best", "--n-best N", 1, DECODE_MAX_BEAM,
     "the N best translations of the beam (default --beam N), one\n"
     "line each, best first, in Marian's n-best format:\n"
     "  INDEX ||| TRANSLATION ||| F0= LOGPROB ||| SCORE\n"
     "INDEX the input's number from 0, LOGPROB the sum of the\n"
     "tokens' log-probabilities (</s> included), SCORE that sum\n"
     "per token, which ranks them; with --alignment the\n"
     "alignment comes after the translation, as in Marian.\n"
     "An empty line, or one that cannot be translated (an\n"
     "error, --strict), gets one empty translation,\n"
     "\"INDEX |||  ||| F0= 0 ||| 0\", so the indices stay whole"},
};
#define N_DECODE_FLAGS (sizeof DECODE_FLAGS / sizeof DECODE_FLAGS[0])

static size_t decode_flag_index(int code)
{
    size_t i = 0;
    while (i < N_DECODE_FLAGS && DECODE_FLAGS[i].code != code)
        i++;
    assert(i < N_DECODE_FLAGS); /* only the codes of cli_decode.h reach here */
    return i;
}

void cli_decode_begin(TranslatorOptions *o)
{
    *o = translator_options_default();
    o->decode.beam = 0; /* not given yet: cli_decode_end decides */
}

int cli_decode_flag(const char *cmd, int code, const char *arg, TranslatorOptions *o)
{
    const size_t i = decode_flag_index(code);
    if (code == CLI_DECODE_PREFIX) {
        o->prefix = arg; /* checked by translator_init: cli_translator_init reports it */
        return 0;
    }
    long v = 0; /* set by cli_parse_long when it returns 0 */
    const int rc = cli_parse_long(cmd, DECODE_FLAGS[i].name, arg, DECODE_FLAGS[i].min,
                                  DECODE_FLAGS[i].max, &v);
    if (rc)
        return rc;
    if (code == CLI_DECODE_BEAM)
        o->decode.beam = (int)v;
    else if (code == CLI_DECODE_MAX_LEN)
        o->decode.max_len = (int)v;
    else
        o->decode.n_best = (int)v;
    return 0;
}

int cli_decode_end(const char *cmd, TranslatorOptions *o)
{
    DecodeOptions *d = &o->decode;
    if (d->beam == 0)
        d->beam = d->n_best ? d->n_best : 1;
    if (decode_options_check(d, DECODE_MAX_BEAM, CONFIG_MAX_LEN) == TT_OK)
        return 0;
    /* Each flag's range was checked as it was parsed: what is left is their pairing. */
    assert(d->n_best > d->beam);
    return cli_usage_error(cmd, "--n-best %d needs a beam at least as wide (--beam %d)",
                           d->n_best, d->beam);
}

void cli_decode_help(FILE *out, int code, int column)
{
    const size_t i = decode_flag_index(code);
    const char *line = DECODE_FLAGS[i].help;
    fprintf(out, "  %-*s", column - 2, DECODE_FLAGS[i].usage);
    for (;;) {
        const char *end = strchr(line, '\n');
        const int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(out, "%.*s\n", len, line);
        if (!end)
            break;
        line = end + 1;
        fprintf(out, "%*s", column, "");
    }
}

int cli_translator_init(const char *cmd, Translator *tr, const Model *m,
                        const TranslatorOptions *o)
{
    char err[512];
    const int rc = translator_init(tr, m, o, err, sizeof err);
    return rc == TT_OK ? 0 : cli_translator_report(cmd, rc, err);
}

int cli_translator_report(const char *cmd, int rc, const char *err)
{
    /* Only the prefix can be bad input here; its messages begin with "prefix". */
    if (rc == TT_EINPUT)
        return cli_usage_error(cmd, "--%s", err);
    fprintf(stderr, "toytrans %s: %s\n", cmd, err);
    return status_exit_code(rc);
}

/* ---------------------------------------------------------------------------------------
 * The read-back flags and the reverse model
 */

void cli_read_back_begin(CliReadBackOptions *o)
{
    o->mode = CLI_READ_BACK_AUTO;
    o->path = NULL;
    o->margin = READBACK_MARGIN;
}

int cli_read_back_flag(const char *cmd, int code, const char *arg, CliReadBackOptions *o)
{
    switch (code) {
    case CLI_READ_BACK:
        o->mode = CLI_READ_BACK_ON;
        return 0;
    case CLI_NO_READ_BACK:
        o->mode = CLI_READ_BACK_OFF;
        return 0;
    case CLI_READ_BACK_MODEL:
        o->mode = CLI_READ_BACK_ON;
        o->path = arg;
        return 0;
    default:
        return cli_parse_double(cmd, "--read-back-margin", arg, 0.0, 1e6, &o->margin);
    }
}

void cli_read_back_help(FILE *out, int column)
{
    static const char *const LINES[][2] = {
        {"--read-back", "read each translation back through the reverse model"},
        {"", "(German→English) and warn when the input is much less likely"},
        {"", "than that model's own reading (default: on when the reverse"},
        {"", "model, de-en.db, is beside the model)"},
        {"--no-read-back", "no read-back"},
        {"--read-back-model M", "the reverse model (implies --read-back)"},
        {"--read-back-margin X", "a reading disagrees when the input scores more than X"},
        {"", "nats below it (default " READBACK_MARGIN_TEXT ")"},
    };
    const int w = column - 2;
    for (size_t i = 0; i < sizeof LINES / sizeof LINES[0]; i++) {
        if ((int)strlen(LINES[i][0]) >= w) /* a long flag: its text on the next line */
            fprintf(out, "  %s\n  %-*s%s\n", LINES[i][0], w, "", LINES[i][1]);
        else
            fprintf(out, "  %-*s%s\n", w, LINES[i][0], LINES[i][1]);
    }
}

/* The reverse model beside the model at path: "de-en.db" for an en→de model, in the same
 * directory, into buf (size bytes). */
static void read_back_beside(char *buf, size_t size, const char *path, const ModelConfig *c)
{
    const char *slash = strrchr(path, '/');
    const int dir = slash ? (int)(slash - path + 1) : 0;
    snprintf(buf, size, "%.*s%s-%s.db", dir, path, c->tgt_lang, c->src_lang);
}

/* A reverse model's load on a thread of its own (cli_read_back_load_ahead). */
struct CliReadBackLoad {
    pthread_t thread;
    char path[4096];
    Model m;
    int rc;
    char err[512];
};

static void *load_ahead_main(void *arg)
{
    struct CliReadBackLoad *l = arg;
    l->rc = model_load_file(&l->m, l->path, l->err, sizeof l->err);
    return NULL;
}

/* "TGT-SRC.db" beside a model file named "SRC-TGT.db" (read_back_beside's name, if the
 * file's name tells the languages its config holds) into buf; 0 for another name. */
static int read_back_by_name(char *buf, size_t size, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dash = strchr(name, '-');
    const size_t len = strlen(name);
    if (!dash || dash == name || len < 4 || strcmp(name + len - 3, ".db") != 0 ||
        dash + 1 >= name + len - 3 || memchr(dash + 1, '-', (size_t)(name + len - 3 - dash - 1)))
        return 0;
    const int dir = (int)(name - path), src = (int)(dash - name);
    const int tgt = (int)(name + len - 3 - (dash + 1));
    return snprintf(buf, size, "%.*s%.*s-%.*s.db", dir, path, tgt, dash + 1, src, name) <
           (int)size;
}

void cli_read_back_load_ahead(CliReadBack *c, const CliReadBackOptions *o,
                              const char *model_path)
{
    memset(c, 0, sizeof *c);
    char path[4096];
    if (o->mode == CLI_READ_BACK_OFF)
        return;
    if (o->path)
        snprintf(path, sizeof path, "%s", o->path);
    else if (!read_back_by_name(path, sizeof path, model_path))
        return;
    struct stat st;
    struct CliReadBackLoad *l = NULL;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(l = calloc(1, sizeof *l)))
        return;
    snprintf(l->path, sizeof l->path, "%s", path);
    if (pthread_create(&l->thread, NULL, load_ahead_main, l) != 0) {
        free(l);
        return;
    }
    c->ahead = l;
}

/* The load started ahead, finished (owned by the caller), or NULL. */
static struct CliReadBackLoad *load_ahead_join(CliReadBack *c)
{
    struct CliReadBackLoad *l = c->ahead;
    c->ahead = NULL;
    if (l)
        pthread_join(l->thread, NULL);
    return l;
}

static void load_ahead_drop(struct CliReadBackLoad *l)
{
    if (l)
        model_free(&l->m);
    free(l);
}

int cli_read_back_open(const char *cmd, CliReadBack *c, const CliReadBackOptions *o,
                       const Model *m, const char *model_path, int batch, Pool *pool)
{
    struct CliReadBackLoad *ahead = load_ahead_join(c);
    memset(c, 0, sizeof *c);
    char path[4096];
    if (o->path)
        snprintf(path, sizeof path, "%s", o->path);
    else
        read_back_beside(path, sizeof path, model_path, &m->config);
    struct stat st;
    if (o->mode == CLI_READ_BACK_OFF ||
        (o->mode == CLI_READ_BACK_AUTO && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))) {
        load_ahead_drop(ahead);
        return 0;
    }
    char err[512];
    int rc;
    if (ahead && strcmp(ahead->path, path) == 0) {
        /* The same file, loaded by the same call: its result and message. */
        rc = ahead->rc;
        c->reverse = ahead->m;
        memset(&ahead->m, 0, sizeof ahead->m);
        snprintf(err, sizeof err, "%s", ahead->err);
    } else {
        rc = model_load_file(&c->reverse, path, err, sizeof err);
    }
    load_ahead_drop(ahead);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans %s: read-back: %s\n", cmd, err[0] ? err : status_message(rc));
        if (o->mode == CLI_READ_BACK_AUTO)
            fprintf(stderr, "toytrans %s: (the reverse model beside the model; "
                            "--no-read-back goes without it)\n", cmd);
        return status_exit_code(rc);
    }
    if (!readback_fits(m, &c->reverse)) {
        const ModelConfig rev = c->reverse.config;
        model_free(&c->reverse);
        if (o->mode == CLI_READ_BACK_AUTO)
            return 0;
        return cli_usage_error(cmd, "--read-back-model %s translates %s→%s, not back from %s "
                               "to %s", path, rev.src_lang, rev.tgt_lang, m->config.tgt_lang,
                               m->config.src_lang);
    }
    rc = readback_init(&c->rb, &c->reverse, o->margin, err, sizeof err);
    if (rc == TT_OK && (rc = readback_set_batch(&c->rb, batch, pool)) != TT_OK) {
        snprintf(err, sizeof err, "%s", status_message(rc));
        readback_free(&c->rb);
    }
    if (rc != TT_OK) {
        model_free(&c->reverse);
        fprintf(stderr, "toytrans %s: read-back: %s\n", cmd, err);
        return status_exit_code(rc);
    }
    return 0;
}

void cli_decode_ahead(Translator *tr, ReadBack *rb, const char *const *texts,
                      const size_t *lens, int n)
{
    (void)translator_decode_ahead(tr, texts, lens, n);
    if (!rb || !rb->model || !rb->n_ahead_cap)
        return;
    /* The block's translations first (each run takes its decoding; the caller's runs,
     * after the rewind, take it again), then their read-backs, all at once. */
    readback_ahead_clear(rb);
    for (int i = 0; i < n; i++) {
        TranslatorResult r;
        if (translator_run(tr, texts[i], lens[i], &r, NULL, 0) == TT_OK &&
            readback_ahead_add(rb, texts[i], lens[i], r.text) != TT_OK)
            break;
    }
    translator_ahead_rewind(tr);
    readback_ahead_decode(rb);
}

void cli_read_back_close(CliReadBack *c)
{
    load_ahead_drop(load_ahead_join(c));
    if (c->rb.model)
        model_free(&c->reverse);
    readback_free(&c->rb);
}
