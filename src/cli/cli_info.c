/*
 * cli_info.c — `toytrans info`: what a model file holds, on one screen.
 *
 * Everything is read first — configuration, vocabularies, the weights (loaded once, so
 * that "the weights load" is a checked statement, not a guess), provenance meta and the
 * training history — and printed afterwards, section by section, in aligned columns.
 * A part that cannot be read does not hide the others: what could be read is printed,
 * the problem goes to stderr, and the exit status says the model is unusable.
 *
 * Text from the file (paths, the training command) is untrusted: control characters
 * and invalid UTF-8 are shown as '?' so that a model cannot drive the terminal.
 */
#include "base/status.h"
#include "cli/cli.h"
#include "model/config.h"
#include "model/history.h"
#include "model/model.h"
#include "model/store.h"
#include "text/vocab.h"
#include "train/train.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utf8proc.h>

#define LABEL_WIDTH 20 /* the column where values start, after two spaces of indent */
#define INFO_MAX_EPOCH_ROWS 40 /* longer epoch tables show the first and last 20 */

/* What info found in the file. */
typedef struct {
    const char *path;
    long long file_bytes, wal_bytes; /* wal_bytes: -1 without a WAL file */
    ModelConfig config;
    int v_src, v_tgt;                /* vocabulary sizes */
    const ParamSpec *specs;          /* n_specs, the header's */
    int n_specs;
    size_t n_params;
    int weights_rc;                  /* model_load's result */
    char weights_err[512];
    TrainLogRow *steps;              /* n_steps, owned */
    int n_steps;
    ValidLogRow *epochs;             /* n_epochs, owned */
    int n_epochs;
    int history_rc;
    char history_err[512];
} ModelInfo;

static void info_usage(FILE *out)
{
    fputs("Usage: toytrans info [--model M]\n"
          "\n"
          "Describes a model file: its configuration (every hyper-parameter), its size\n"
          "(parameters by part, vocabularies, bytes on disk), whether its weights load,\n"
          "where it came from (corpus, checksums, seeds, the training command, threads,\n"
          "training time) and its training history (steps, losses, and one line per\n"
          "epoch with the validation loss and exact-match rate).\n"
          "\n"
          "Options:\n"
          "  --model M    the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "               model, else the source tree's; 'toytrans help model')\n"
          "  -h, --help   show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 model file unusable (missing, damaged,\n"
          "weights or training history malformed: what could be read is still shown),\n"
          "5 I/O error.\n",
          out);
}

/* ---------------------------------------------------------------------------------------
 * Formatting
 */

/* Prints s with control characters and invalid UTF-8 as '?'. */
static void put_safe(const char *s)
{
    const size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (n < 1 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
            putchar('?');
            i += n < 1 ? 1 : (size_t)n;
            continue;
        }
        fwrite(s + i, 1, (size_t)n, stdout);
        i += (size_t)n;
    }
}

/* "  label               " — the start of a line of a section. */
static void label(const char *name)
{
    printf("  %-*s", LABEL_WIDTH, name);
}

/* 1234567 as "1,234,567". */
static const char *grouped(char *buf, size_t size, long long v)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v);
    size_t o = 0;
    if (v < 0 && o + 1 < size)
        buf[o++] = '-';
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A duration: "0.84 s", "18.4 s", "12 min 05 s", "3 h 02 min". */
static const char *duration(char *buf, size_t size, double seconds)
{
    if (seconds < 10)
        snprintf(buf, size, "%.2f s", seconds);
    else if (seconds < 60)
        snprintf(buf, size, "%.1f s", seconds);
    else if (seconds < 3600)
        snprintf(buf, size, "%d min %02d s", (int)(seconds / 60), (int)fmod(seconds, 60));
    else
        snprintf(buf, size, "%lld h %02d min", (long long)(seconds / 3600),
                 (int)fmod(seconds / 60, 60));
    return buf;
}

/* A byte count in the unit that reads best: "482.3 KiB". */
static const char *bytes_human(char *buf, size_t size, double bytes)
{
    static const char *const UNITS[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4)
        bytes /= 1024, u++;
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", bytes, UNITS[u]);
    return buf;
}

/* ---------------------------------------------------------------------------------------
 * Reading
 */

/* Reads what can be read from a file whose header h was read from s: the sizes, the
 * weights and the history. Failures are kept in mi and reported by the caller. */
static void info_read(ModelInfo *mi, const ModelHeader *h, Store *s)
{
    struct stat sb;
    mi->file_bytes = stat(mi->path, &sb) == 0 ? (long long)sb.st_size : -1;
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", mi->path);
    mi->wal_bytes = stat(wal, &sb) == 0 ? (long long)sb.st_size : -1;

    mi->config = h->config;
    mi->v_src = h->src.size;
    mi->v_tgt = h->tgt.size;
    mi->specs = h->specs;
    mi->n_specs = h->n_specs;
    mi->n_params = h->n_params;

    Model m;
    mi->weights_rc = model_load(&m, s, mi->weights_err, sizeof mi->weights_err);
    if (mi->weights_rc == TT_OK)
        model_free(&m);
    mi->history_rc = history_read(s, &mi->steps, &mi->n_steps, &mi->epochs, &mi->n_epochs,
                                  mi->history_err, sizeof mi->history_err);
}

/* The longest meta value info shows. */
#define META_MAX 16384

/* Copies meta key into buf; 0 if it is absent (or not readable text). */
static int meta_opt(Store *s, const char *key, char *buf, size_t size)
{
    return store_meta_get(s, key, buf, size, NULL, 0) == TT_OK;
}

static int meta_has(Store *s, const char *key)
{
    char buf[META_MAX];
    return meta_opt(s, key, buf, sizeof buf);
}

/* ---------------------------------------------------------------------------------------
 * Printing
 */

/* A line per hyper-parameter, as config.h's table says. */
static void print_config(const ModelConfig *c)
{
    puts("Configuration");
    int n;
    config_params(&n);
    for (int i = 0; i < n; i++) {
        const char *name;
        char value[128];
        if (!config_info_line(c, i, &name, value, sizeof value))
            continue;
        label(name);
        put_safe(value);
        putchar('\n');
    }
}

/* Parameters by part of the network, from the spec table's names. */
static void print_size(const ModelInfo *mi)
{
    static const struct { const char *prefix, *name; } PARTS[] = {
        {"embedding.", "embeddings"},
        {"encoder.", "encoder"},
        {"decoder.", "decoder"},
        {"generator.", "generator"},
    };
    enum { N_PARTS = sizeof PARTS / sizeof PARTS[0] };
    long long count[N_PARTS] = {0};
    for (int i = 0; i < mi->n_specs; i++) {
        const ParamSpec *p = &mi->specs[i];
        for (int k = 0; k < N_PARTS; k++)
            if (strncmp(p->name, PARTS[k].prefix, strlen(PARTS[k].prefix)) == 0)
                count[k] += (long long)p->rows * (p->cols ? p->cols : 1);
    }
    const ModelConfig *c = &mi->config;
    char a[32], b[32], detail[128];
    puts("Size");
    label("parameters");
    const int total_width = (int)strlen(grouped(a, sizeof a, (long long)mi->n_params));
    printf("%s (%s of float32)\n", a, bytes_human(b, sizeof b, 4.0 * (double)mi->n_params));
    for (int k = 0; k < N_PARTS; k++) {
        switch (k) {
        case 0:
            snprintf(detail, sizeof detail, "%d × %d source + %d × %d target", mi->v_src,
                     c->d_model, mi->v_tgt, c->d_model);
            break;
        case 1:
            snprintf(detail, sizeof detail, "%d layer%s", c->n_encoder_layers,
                     c->n_encoder_layers == 1 ? "" : "s");
            break;
        case 2:
            snprintf(detail, sizeof detail, "%d layer%s, with cross-attention",
                     c->n_decoder_layers, c->n_decoder_layers == 1 ? "" : "s");
            break;
        default:
            snprintf(detail, sizeof detail, "%d × %d + %d bias, to target logits", mi->v_tgt,
                     c->d_model, mi->v_tgt);
        }
        /* Right-aligned under the total, so the parts read as a sum. */
        printf("    %-*s%*s  %s\n", LABEL_WIDTH - 2, PARTS[k].name, total_width,
               grouped(a, sizeof a, count[k]), detail);
    }
    label("vocabulary");
    printf("%s source (", grouped(a, sizeof a, mi->v_src));
    put_safe(c->src_lang);
    printf("), %s target (", grouped(b, sizeof b, mi->v_tgt));
    put_safe(c->tgt_lang);
    printf(") tokens, %d of each reserved\n", VOCAB_N_SPECIAL);
    label("file");
    if (mi->file_bytes >= 0)
        printf("%s bytes (%s)", grouped(a, sizeof a, mi->file_bytes),
               bytes_human(b, sizeof b, (double)mi->file_bytes));
    else
        fputs("size unknown", stdout);
    if (mi->wal_bytes > 0)
        printf(", + %s bytes in its -wal file (a write in progress?)",
               grouped(a, sizeof a, mi->wal_bytes));
    putchar('\n');
    label("weights");
    puts(mi->weights_rc == TT_OK ? "load: every tensor present, of its shape, finite"
                                 : "DO NOT LOAD (see the message at the end)");
}

/* The provenance keys of the tables keys[0..n_keys), in the order a reader asks about
 * them; *shown counts those the file has. */
static void print_provenance_keys(Store *s, const ProvKey *keys, int n_keys, int *shown)
{
    char value[META_MAX];
    for (int i = 0; i < n_keys; i++) {
        if (!meta_opt(s, keys[i].key, value, sizeof value))
            continue;
        label(keys[i].label);
        (*shown)++;
        /* Numbers stored as float32 ("0.00100000005") read better rounded; anything
         * that does not parse is shown as it is. */
        char *end;
        const double v = strtod(value, &end);
        const int number = end != value && *end == '\0' && isfinite(v);
        if (number && keys[i].format == PROV_DURATION && v >= 0) {
            char d[48];
            if (v >= 60)
                printf("%s (%.1f s)\n", duration(d, sizeof d, v), v);
            else
                printf("%s\n", duration(d, sizeof d, v));
        } else if (number && keys[i].format == PROV_NUMBER) {
            printf("%.6g\n", v);
        } else if (keys[i].format == PROV_LINES) {
            for (char *line = value, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                    *next++ = '\0';
                if (line != value)
                    label("");
                put_safe(line);
                putchar('\n');
            }
        } else {
            put_safe(value[0] ? value : "(none)");
            putchar('\n');
        }
    }
}

/* The provenance: the new file's keys (model.h), then the training run's (train.h). */
static void print_provenance(Store *s)
{
    int n_created, n_trained, shown = 0;
    const ProvKey *created = model_provenance_keys(&n_created);
    const ProvKey *trained = train_provenance_keys(&n_trained);
    puts("Provenance");
    print_provenance_keys(s, created, n_created, &shown);
    print_provenance_keys(s, trained, n_trained, &shown);
    if (!shown)
        puts("  (no provenance recorded)");
}

static void print_history(const ModelInfo *mi, int trained)
{
    char a[32], b[32], d[48];
    puts("Training history");
    if (mi->history_rc != TT_OK) {
        puts("  UNREADABLE (see the message at the end)");
        return;
    }
    if (mi->n_steps == 0 && mi->n_epochs == 0) {
        puts(trained ? "  no training history recorded"
                     : "  no training history (an untrained model)");
        return;
    }
    if (mi->n_steps > 0) {
        const TrainLogRow *t = mi->steps;
        const int n = mi->n_steps;
        int lowest = 0, peak_lr = 0;
        long long tokens = 0;
        for (int i = 0; i < n; i++) {
            if (t[i].loss < t[lowest].loss)
                lowest = i;
            if (t[i].lr > t[peak_lr].lr)
                peak_lr = i;
            tokens += t[i].tokens;
        }
        label("steps");
        printf("%s logged, steps %s to ", grouped(a, sizeof a, n),
               grouped(b, sizeof b, (long long)t[0].step));
        printf("%s, epochs %lld to %lld\n", grouped(a, sizeof a, (long long)t[n - 1].step),
               (long long)t[0].epoch, (long long)t[n - 1].epoch);
        label("training loss");
        printf("first %.4f, last %.4f, lowest %.4f at step %s\n", t[0].loss, t[n - 1].loss,
               t[lowest].loss, grouped(a, sizeof a, (long long)t[lowest].step));
        label("learning rate");
        printf("first %.3g, peak %.3g at step %s, last %.3g\n", t[0].lr, t[peak_lr].lr,
               grouped(a, sizeof a, (long long)t[peak_lr].step), t[n - 1].lr);
        label("target tokens");
        printf("%s in the logged steps\n", grouped(a, sizeof a, tokens));
        label("time");
        printf("%s\n", duration(d, sizeof d, t[n - 1].seconds));
    }
    if (mi->n_epochs > 0) {
        putchar('\n');
        printf("  %5s  %10s  %10s  %11s  %13s\n", "epoch", "step", "valid loss", "exact match",
               "time");
        /* A long run shows its first and last epochs; the rest are in valid_log. */
        const int n = mi->n_epochs, cut = n > INFO_MAX_EPOCH_ROWS;
        for (int i = 0; i < n; i++) {
            if (cut && i == INFO_MAX_EPOCH_ROWS / 2) {
                printf("  %5s  (%d epochs not shown)\n", "...", n - 2 * (INFO_MAX_EPOCH_ROWS / 2));
                i = n - INFO_MAX_EPOCH_ROWS / 2;
            }
            const ValidLogRow *e = &mi->epochs[i];
            printf("  %5lld  %10s  %10.4f  %9.1f %%  %13s\n", (long long)e->epoch,
                   grouped(a, sizeof a, (long long)e->step), e->loss, 100.0 * e->exact_match,
                   duration(d, sizeof d, e->seconds));
        }
        int best = 0;
        for (int i = 1; i < mi->n_epochs; i++)
            if (mi->epochs[i].loss < mi->epochs[best].loss)
                best = i;
        printf("  lowest validation loss %.4f in epoch %lld\n", mi->epochs[best].loss,
               (long long)mi->epochs[best].epoch);
    }
}

/* ---------------------------------------------------------------------------------------
 * The command
 */

int cli_info(int argc, char **argv)
{
    enum { O_MODEL = 256 };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            path = optarg;
            break;
        case 'h':
            info_usage(stdout);
            return TT_EXIT_OK;
        default:
            return cli_bad_option_in("info", c, argv, LONG_OPTS);
        }
    }
    if (optind < argc)
        return cli_usage_error("info", "unexpected argument '%s' (the model is --model M)",
                               argv[optind]);
    path = cli_model_path(path);

    char err[512] = "";
    ModelInfo mi = {.path = path};
    Store *s = NULL;
    ModelHeader h;
    int rc = model_header_open(&s, &h, path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans info: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("info", path, rc);
        return status_exit_code(rc);
    }
    info_read(&mi, &h, s);

    printf("Model ");
    put_safe(path);
    puts("\n");
    print_config(&mi.config);
    putchar('\n');
    print_size(&mi);
    putchar('\n');
    print_provenance(s);
    putchar('\n');
    print_history(&mi, meta_has(s, "train_command") || meta_has(s, "train_epochs"));

    int code = TT_EXIT_OK;
    if (mi.weights_rc != TT_OK) {
        fprintf(stderr, "toytrans info: the weights do not load: %s\n",
                mi.weights_err[0] ? mi.weights_err : status_message(mi.weights_rc));
        code = status_exit_code(mi.weights_rc);
    }
    if (mi.history_rc != TT_OK) {
        fprintf(stderr, "toytrans info: the training history is unreadable: %s\n",
                mi.history_err[0] ? mi.history_err : status_message(mi.history_rc));
        if (code == TT_EXIT_OK)
            code = status_exit_code(mi.history_rc);
    }
    free(mi.epochs);
    free(mi.steps);
    model_header_free(&h);
    store_close(s, NULL, 0);
    return code;
}
