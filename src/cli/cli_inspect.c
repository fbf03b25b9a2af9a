/*
 * cli_inspect.c — `toytrans inspect`: translate one sentence and show, word by word,
 * where the decoder looked.
 *
 * Every weight drawn is read from the Translation (cross- and self-attention of each
 * decoder step) or from the encoder (its self-attention), i.e. the numbers the forward
 * pass used and translate --json prints; only the mean over heads is computed here.
 */
#include "base/json.h"
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_decode.h"
#include "model/model.h"
#include "model/store.h"
#include "show/heatmap.h"
#include "show/inspect_render.h"
#include "show/matprint.h"
#include "translate/translator.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define INSPECT_LAST (-1) /* --layer default: the last layer */
#define INSPECT_ALL (-2)  /* --layer all */

typedef struct {
    const char *model_path;
    TranslatorOptions to; /* --prefix (cli_decode.h's decoding flags); greedy */
    long layer;      /* INSPECT_LAST, INSPECT_ALL or 0..layers-1 (checked against the model) */
    long head;       /* TRANSLATION_HEAD_MEAN or 0..H-1 (checked against the model) */
    int self, encoder;
    const char *svg_path;  /* --svg FILE, or NULL */
    const char *html_path; /* --html FILE, or NULL */
    int force;             /* --force: replace a database or a link at those paths */
    int color;             /* --color: INSPECT_COLOR_AUTO, _ALWAYS or _NEVER */
    int json;              /* --json: one JSON object per sentence instead of the report */
    long width;            /* --width: columns a report line may take, 0 no limit, -1 the
                              default ($COLUMNS, else the terminal's, else no limit) */
    long batch, threads;   /* --batch, --threads */
} InspectOptions;

enum { INSPECT_COLOR_AUTO, INSPECT_COLOR_ALWAYS, INSPECT_COLOR_NEVER };

typedef struct {
    const InspectOptions *o;
    const Model *m;
    Translator tr;
    int cap;              /* rows and columns the buffers below hold (N), 0..max_len */
    float *rows;          /* (N, N) the selected weights of one heatmap */
    const char **labels;  /* (N + 1) column labels */
    int color;            /* ANSI colours (--color; auto: a terminal and NO_COLOR unset) */
    int light;            /* the terminal's background is light ($COLORFGBG) */
    int from_stdin;       /* the texts are lines of standard input, not arguments */
    int width;            /* columns a line of the report may take, 0: no limit */
    double smoothing;     /* the label smoothing the model was trained with, 0: unknown */
    int legend_shown;     /* the shades' legend has been printed (once per run) */
    int intro_shown;      /* the sentence on what cross-attention is (once per run) */
} InspectRun;

static void inspect_usage(FILE *out)
{
    fputs("Usage: toytrans inspect [OPTIONS] [TEXT...]\n"
          "\n"
          "Translates each TEXT, or each line of standard input when there is none\n"
          "(greedy), and shows, for every German word, its probability\n"
          "and where the decoder looked: a heatmap of its cross-attention over the source\n"
          "tokens (</s> included), one row per word, with the three most attended source\n"
          "tokens and their weights. Shades: ' ' < 0.2 <= '░' < 0.4 <= '▒' < 0.6 <= '▓'\n"
          "< 0.8 <= '█'; with colour also a grey background that runs from the\n"
          "terminal's background (weight 0) to its text colour (weight 1): dark or light\n"
          "as $COLORFGBG says (dark when unset). A word that occurs more than once is\n"
          "labelled with its occurrence: the#1, the#2; a source token not in the\n"
          "vocabulary is marked '?'. The weights are those of the forward pass, as\n"
          "translate --json prints them. A heatmap wider than the terminal is split into\n"
          "blocks of source tokens (--width).\n"
          "\n"
          "Options:\n"
          "  --model M        the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                   model, else the source tree's; 'toytrans help model')\n",
          out);
    /* The decoding flag's help comes from cli.c, as every command shows it. */
    cli_decode_help(out, CLI_DECODE_PREFIX, 19);
    fputs("  --layer L|all    the layer to show, from 0 (default: the last); 'all': each\n"
          "  --head H|mean    the head to show, from 0, or the heads' mean (default: mean)\n"
          "  --self           also the decoder's self-attention over <s> and the words\n"
          "                   produced so far\n"
          "  --encoder        also the encoder's self-attention between source tokens\n"
          "  --svg FILE       also write the cross-attention heatmap (the chosen layer, the\n"
          "                   last with --layer all; the chosen head) as an SVG picture\n"
          "  --html FILE      also write an interactive page (one self-contained file):\n"
          "                   every layer and head, cross-, self- and encoder attention\n"
          "                   (--svg and --html take exactly one TEXT; '-' writes the\n"
          "                   file to standard output instead of the text report)\n"
          "  --force          replace an SQLite database or a symbolic link at those\n"
          "                   paths (never the model itself)\n"
          "  --color WHEN     auto (default: on a terminal unless NO_COLOR is set),\n"
          "                   always or never\n"
          "  --width N        fit the report into N columns, 0 for no limit (default:\n"
          "                   $COLUMNS, else the terminal's width, else no limit)\n"
          "  --json           instead of the report, one JSON object per TEXT: the words\n"
          "                   with their probabilities, and for each layer shown the\n"
          "                   weights of the chosen head (or the heads' mean) and each\n"
          "                   word's three most attended source tokens\n",
          out);
    fprintf(out,
            "  --batch N        decode N texts at once (default %d; the same report\n"
            "                   whatever N)\n",
            TRANSLATOR_DEFAULT_BATCH);
    fputs("  --threads N      threads for decoding (default 1; the same report)\n"
          "  -h, --help       show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 a text could not be\n"
          "translated (invalid UTF-8, too long), 5 output failed.\n",
          out);
}

/* Returns 0 to go on, -1 after --help, or an exit code. */
static int inspect_parse(InspectOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_LAYER, O_HEAD, O_SELF, O_ENCODER, O_SVG, O_HTML,
           O_FORCE, O_COLOR, O_JSON, O_WIDTH, O_BATCH, O_THREADS };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        CLI_DECODE_OPTION_PREFIX,
        {"layer", required_argument, NULL, O_LAYER},
        {"head", required_argument, NULL, O_HEAD},
        {"self", no_argument, NULL, O_SELF},
        {"encoder", no_argument, NULL, O_ENCODER},
        {"svg", required_argument, NULL, O_SVG},
        {"html", required_argument, NULL, O_HTML},
        {"force", no_argument, NULL, O_FORCE},
        {"color", required_argument, NULL, O_COLOR},
        {"json", no_argument, NULL, O_JSON},
        {"width", required_argument, NULL, O_WIDTH},
        {"batch", required_argument, NULL, O_BATCH},
        {"threads", required_argument, NULL, O_THREADS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_decode_begin(&o->to);
    o->layer = INSPECT_LAST;
    o->batch = TRANSLATOR_DEFAULT_BATCH;
    o->threads = 1;
    o->head = TRANSLATION_HEAD_MEAN;
    o->width = -1;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            o->model_path = optarg;
            break;
        case CLI_DECODE_PREFIX:
            if ((rc = cli_decode_flag("inspect", c, optarg, &o->to)))
                return rc;
            break;
        case O_LAYER:
            if (strcmp(optarg, "all") == 0)
                o->layer = INSPECT_ALL;
            else if ((rc = cli_parse_long("inspect", "--layer", optarg, 0, CONFIG_MAX_LAYERS - 1,
                                          &o->layer)))
                return rc;
            break;
        case O_HEAD:
            if ((rc = cli_parse_head("inspect", optarg, &o->head)))
                return rc;
            break;
        case O_SELF:
            o->self = 1;
            break;
        case O_ENCODER:
            o->encoder = 1;
            break;
        case O_SVG:
            o->svg_path = optarg;
            break;
        case O_HTML:
            o->html_path = optarg;
            break;
        case O_FORCE:
            o->force = 1;
            break;
        case O_COLOR:
            if (strcmp(optarg, "auto") == 0)
                o->color = INSPECT_COLOR_AUTO;
            else if (strcmp(optarg, "always") == 0)
                o->color = INSPECT_COLOR_ALWAYS;
            else if (strcmp(optarg, "never") == 0)
                o->color = INSPECT_COLOR_NEVER;
            else
                return cli_usage_error("inspect", "--color: '%s' is not auto, always or never",
                                       optarg);
            break;
        case O_JSON:
            o->json = 1;
            break;
        case O_WIDTH:
            if ((rc = cli_parse_long("inspect", "--width", optarg, 0, 100000, &o->width)))
                return rc;
            break;
        case O_BATCH:
            if ((rc = cli_parse_long("inspect", "--batch", optarg, 1, DECODE_MAX_BATCH,
                                     &o->batch)))
                return rc;
            break;
        case O_THREADS:
            if ((rc = cli_parse_long("inspect", "--threads", optarg, 1, POOL_MAX_THREADS,
                                     &o->threads)))
                return rc;
            break;
        case 'h':
            inspect_usage(stdout);
            return -1;
        default:
            return cli_bad_option_in("inspect", c, argv, LONG_OPTS);
        }
    }
    if ((rc = cli_decode_end("inspect", &o->to)))
        return rc;
    if ((o->svg_path || o->html_path) && argc - optind != 1)
        return cli_usage_error("inspect", "--svg and --html draw one sentence: give exactly "
                               "one TEXT");
    if (o->json && ((o->svg_path && strcmp(o->svg_path, "-") == 0) ||
                    (o->html_path && strcmp(o->html_path, "-") == 0)))
        return cli_usage_error("inspect", "--json and a file written to standard output "
                               "('-') cannot share it");
    o->model_path = cli_model_path(o->model_path);
    if (o->svg_path && o->html_path && strcmp(o->svg_path, "-") == 0 &&
        strcmp(o->html_path, "-") == 0)
        return cli_usage_error("inspect", "--svg and --html cannot both be standard output "
                               "('-')");
    /* One file by device and inode, or by directory and name when not there yet. */
    const CliPath outs[2] = {{"--svg", o->svg_path}, {"--html", o->html_path}};
    if ((rc = cli_check_distinct_outputs("inspect", outs, 2)))
        return rc;
    const CliPath inputs[1] = {{"--model", o->model_path}};
    if ((rc = cli_check_output("inspect", (CliPath){"--svg", o->svg_path}, CLI_OUT_TEXT,
                               inputs, 1, o->force)) ||
        (rc = cli_check_output("inspect", (CliPath){"--html", o->html_path}, CLI_OUT_TEXT,
                               inputs, 1, o->force)))
        return rc;
    return 0;
}

/* 1 when --svg or --html is '-': that file is standard output, so no text report. */
static int inspect_file_to_stdout(const InspectOptions *o)
{
    return (o->svg_path && strcmp(o->svg_path, "-") == 0) ||
           (o->html_path && strcmp(o->html_path, "-") == 0);
}

/* The options the model can serve: a layer every shown stack has, a head it has. */
static int inspect_check_model(const InspectOptions *o, const ModelConfig *c)
{
    /* The decoder's layer first, then the encoder's, then the head (-1: not checked). */
    int rc = cli_check_layer_head("inspect", o->layer, -1, c->n_decoder_layers, c->n_heads);
    if (rc == 0 && o->encoder && o->layer >= c->n_encoder_layers)
        rc = cli_usage_error("inspect", "--layer: %ld is out of range: the encoder has %d "
                             "layers (0..%d)", o->layer, c->n_encoder_layers,
                             c->n_encoder_layers - 1);
    if (rc == 0)
        rc = cli_check_layer_head("inspect", -1, o->head, c->n_decoder_layers, c->n_heads);
    return rc;
}

/* The report's width: --width, else $COLUMNS (a whole number from 1), else the width of
 * the terminal standard output is, else 0 (no limit: a file or a pipe keeps long lines). */
static int inspect_width(const InspectOptions *o)
{
    if (o->width >= 0)
        return (int)o->width;
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        char *end;
        errno = 0;
        const long v = strtol(env, &end, 10);
        if (*end == '\0' && errno == 0 && v > 0 && v <= 100000)
            return (int)v;
    }
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

/* The label smoothing path was trained with (meta train_label_smoothing), or 0 when the
 * file does not say: informational, so any failure is just "unknown". */
static double inspect_smoothing(const char *path)
{
    Store *s = NULL;
    double v = 0.0;
    if (store_open(&s, path, STORE_READ, NULL, 0) != TT_OK ||
        store_meta_get_double(s, "train_label_smoothing", &v, NULL, 0) != TT_OK ||
        !(v > 0.0 && v < 1.0))
        v = 0.0;
    store_close(s, NULL, 0);
    return v;
}

/* Words printed one after another, broken before a word that would pass width (0: never),
 * each new line indented by hang columns. */
typedef struct {
    int width; /* 0: no limit */
    int hang;  /* columns of indentation of every line but the first */
    int col;   /* columns used on the current line */
    int fresh; /* nothing printed on the current line yet (but its indentation) */
} Wrap;

static void wrap_word(Wrap *w, const char *word)
{
    const int ww = matprint_text_width(word);
    if (!w->fresh && w->width > 0 && w->col + 1 + ww > w->width) {
        printf("\n%*s", w->hang, "");
        w->col = w->hang;
        w->fresh = 1;
    }
    if (!w->fresh) {
        putchar(' ');
        w->col++;
    }
    fputs(word, stdout);
    w->col += ww;
    w->fresh = 0;
}

/* Prints text (words separated by single blanks) wrapped by w, then a newline. */
static void wrap_text(Wrap *w, const char *text)
{
    char word[1024];
    while (*text) {
        const size_t n = strcspn(text, " ");
        if (n > 0) {
            snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1),
                     text);
            wrap_word(w, word);
        }
        text += n;
        while (*text == ' ')
            text++;
    }
    putchar('\n');
    w->col = 0;
    w->fresh = 1;
}

/* ---------------------------------------------------------------------------------------
 * One sentence
 */

/* "decoder layer 1 (0..1), mean of 4 heads" into buf. */
static void inspect_title(char *buf, size_t n, const char *stack, int layer, int layers,
                          long head, int heads)
{
    if (head == TRANSLATION_HEAD_MEAN)
        snprintf(buf, n, "%s layer %d (0..%d), mean of %d heads", stack, layer, layers - 1,
                 heads);
    else
        snprintf(buf, n, "%s layer %d (0..%d), head %ld (0..%d)", stack, layer, layers - 1,
                 head, heads - 1);
}

/* The layers to show, first and last, of a stack of `layers`. */
static void inspect_layers(const InspectOptions *o, int layers, int *first, int *last)
{
    if (o->layer == INSPECT_ALL) {
        *first = 0;
        *last = layers - 1;
    } else {
        *first = *last = o->layer == INSPECT_LAST ? layers - 1 : (int)o->layer;
    }
}

/* The source tokens' labels for a heatmap's columns into labels[0..S), a token not in
 * the vocabulary marked as on the source: line. Returns the buffer they point into
 * (owned by the caller, free()), or NULL when out of memory. */
static char *marked_labels(const TranslatorResult *r, const char **labels)
{
    const int S = r->t->S;
    size_t total = 1;
    for (int j = 0; j < S; j++)
        total += strlen(r->src_labels[j]) + sizeof INSPECT_UNKNOWN_MARK;
    char *buf = malloc(total), *p = buf;
    if (!buf)
        return NULL;
    for (int j = 0; j < S; j++) {
        const int mark = j < r->src->n && r->kind[j] != TR_WORD_KNOWN;
        labels[j] = p;
        p += sprintf(p, "%s%s", r->src_labels[j], mark ? INSPECT_UNKNOWN_MARK : "") + 1;
    }
    return buf;
}

/* The decoded words' labels into labels[0..T), a word copied from the source for a
 * generated <unk> marked INSPECT_COPIED_MARK; *copied counts them. Returns the buffer
 * they point into (owned by the caller, free()), or NULL when out of memory. */
static char *marked_words(const TranslatorResult *r, const char **labels, int *copied)
{
    const int T = r->t->n;
    size_t total = 1;
    for (int i = 0; i < T; i++)
        total += strlen(r->labels[i]) + sizeof INSPECT_COPIED_MARK;
    char *buf = malloc(total), *p = buf;
    if (!buf)
        return NULL;
    *copied = 0;
    for (int i = 0; i < T; i++) {
        labels[i] = p;
        p += sprintf(p, "%s%s", r->labels[i], r->copied[i] ? INSPECT_COPIED_MARK : "") + 1;
        *copied += r->copied[i] != 0;
    }
    return buf;
}

/* A heatmap's title, wrapped to the report's width, after a blank line. */
static void inspect_heading(const InspectRun *run, const char *what, const char *title)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s (%s)", what, title);
    Wrap w = {.width = run->width, .hang = 2, .fresh = 1};
    putchar('\n');
    wrap_text(&w, buf);
}

/* The shades' legend, under the first heatmap of the run. */
static void inspect_legend(InspectRun *run)
{
    if (run->legend_shown)
        return;
    run->legend_shown = 1;
    heatmap_print_legend(stdout, "  ", run->width);
}

/* The decoder heatmaps of one kind, for the chosen layers. */
static int inspect_decoder(InspectRun *run, const TranslatorResult *r,
                           TranslationAttention kind)
{
    const ModelConfig *c = &run->m->config;
    const Translation *t = r->t;
    const int L = c->n_decoder_layers, H = c->n_heads, N = run->cap;
    int cols, copied = 0;
    const char **rows = malloc(sizeof *rows * (size_t)t->n);
    char *words = rows ? marked_words(r, rows, &copied) : NULL;
    char *marked = NULL;
    if (!words || (kind == TRANSLATION_CROSS && !(marked = marked_labels(r, run->labels)))) {
        free(words);
        free(rows);
        return TT_ENOMEM;
    }
    if (kind == TRANSLATION_CROSS) {
        cols = t->S;
    } else {
        run->labels[0] = VOCAB_SPECIAL[VOCAB_BOS];
        for (int i = 0; i + 1 < t->n; i++)
            run->labels[i + 1] = rows[i];
        cols = t->n;
    }
    const HeatmapOptions ho = {
        .row_labels = rows,
        .col_labels = run->labels,
        .causal = kind == TRANSLATION_SELF,
        .color = run->color,
        .light = run->light,
        .top_k = 3,
        .indent = "  ",
        .width = run->width,
    };
    int first, last, rc = TT_OK;
    inspect_layers(run->o, L, &first, &last);
    for (int l = first; l <= last && rc == TT_OK; l++) {
        char title[128];
        inspect_title(title, sizeof title, "decoder", l, L, run->o->head, H);
        inspect_heading(run, kind == TRANSLATION_CROSS ? "cross-attention: each word over the "
                             "source tokens" : "self-attention: each word over <s> and the "
                             "words before it", title);
        for (int i = 0; i < t->n; i++)
            heatmap_select(run->rows + (size_t)i * N, t, kind, i, l, (int)run->o->head);
        rc = heatmap_print(stdout, run->rows, t->n, cols, N, &ho);
        if (rc == TT_OK && copied)
            printf("  " INSPECT_COPIED_MARK " " INSPECT_COPIED_LEGEND "\n");
        if (rc == TT_OK)
            inspect_legend(run);
    }
    free(marked);
    free(words);
    free(rows);
    return rc;
}

/* Row q of the encoder's self-attention in layer l (S source positions): the chosen
 * head, or the heads' mean (summed in double). */
static void encoder_row(const InspectRun *run, int l, int q, int S, float *out)
{
    const int H = run->m->config.n_heads;
    const float *attn = translator_encoder_attention(&run->tr); /* (L, H, S, S) */
    for (int k = 0; k < S; k++) {
        const float *w = attn + (((size_t)l * H) * S + q) * S + k; /* head 0 */
        if (run->o->head != TRANSLATION_HEAD_MEAN) {
            out[k] = w[(size_t)run->o->head * S * S];
            continue;
        }
        double sum = 0.0;
        for (int h = 0; h < H; h++)
            sum += w[(size_t)h * S * S];
        out[k] = (float)(sum / H);
    }
}

/* The encoder's self-attention heatmaps, for the chosen layers. */
static int inspect_encoder(InspectRun *run, const TranslatorResult *r)
{
    const ModelConfig *c = &run->m->config;
    const int L = c->n_encoder_layers, H = c->n_heads, S = r->t->S, N = run->cap;
    char *marked = marked_labels(r, run->labels);
    if (!marked)
        return TT_ENOMEM;
    const HeatmapOptions ho = {
        .row_labels = run->labels,
        .col_labels = run->labels,
        .color = run->color,
        .light = run->light,
        .top_k = 3,
        .indent = "  ",
        .width = run->width,
    };
    int first, last, rc = TT_OK;
    inspect_layers(run->o, L, &first, &last);
    for (int l = first; l <= last && rc == TT_OK; l++) {
        char title[128];
        inspect_title(title, sizeof title, "encoder", l, L, run->o->head, H);
        inspect_heading(run, "encoder self-attention: each source token over the others",
                        title);
        for (int q = 0; q < S; q++)
            encoder_row(run, l, q, S, run->rows + (size_t)q * N);
        rc = heatmap_print(stdout, run->rows, S, S, N, &ho);
    }
    free(marked);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Files
 */

/* What one file holds: the sentence and the choices that draw it. */
typedef struct {
    const InspectRun *run;
    const TranslatorResult *r;
    const char *text;
    size_t len;
    int html; /* 1: the page, 0: the SVG */
} InspectFile;

static int inspect_render(FILE *f, const InspectFile *w)
{
    if (w->html)
        return inspect_write_html(f, w->r, translator_encoder_attention(&w->run->tr), w->text,
                                  w->len);
    int first, last;
    inspect_layers(w->run->o, w->run->m->config.n_decoder_layers, &first, &last);
    return inspect_write_svg(f, w->r, w->text, w->len, last, (int)w->run->o->head);
}

static int inspect_render_cb(FILE *f, const void *ctx)
{
    return inspect_render(f, ctx);
}

/* The --svg and --html files of one sentence. */
static int inspect_files(const InspectRun *run, const TranslatorResult *r, const char *text,
                         size_t len)
{
    if (r->t->n == 0 || r->t->S == 0) {
        fprintf(stderr, "toytrans inspect: the TEXT is empty: no attention to draw\n");
        return TT_EXIT_INPUT;
    }
    InspectFile w = {.run = run, .r = r, .text = text, .len = len};
    int code = TT_EXIT_OK;
    if (run->o->svg_path)
        code = cli_write_file("inspect", run->o->svg_path, inspect_render_cb, &w);
    w.html = 1;
    if (code == TT_EXIT_OK && run->o->html_path)
        code = cli_write_file("inspect", run->o->html_path, inspect_render_cb, &w);
    return code;
}

/* One attention of the chosen layers as JSON: for each layer, its number, the weights
 * of each row (the chosen head or the heads' mean) and each row's three most attended
 * keys. rows and cols give the shape; fill(run, r, layer, q, out) writes row q. */
typedef void (*InspectRowFn)(const InspectRun *run, const TranslatorResult *r, int layer,
                             int q, float *out);

static void json_rows(JsonWriter *w, InspectRun *run, const TranslatorResult *r, int layers,
                      int rows, int causal, const char *const *keys, InspectRowFn fill)
{
    int first, last;
    inspect_layers(run->o, layers, &first, &last);
    json_begin_array(w);
    for (int l = first; l <= last; l++) {
        json_begin_object(w);
        json_key(w, "layer");
        json_int(w, l);
        json_key(w, "weights");
        json_begin_array(w);
        for (int q = 0; q < rows; q++) {
            float *row = run->rows + (size_t)q * (size_t)run->cap;
            fill(run, r, l, q, row);
            json_float_array(w, row, causal ? q + 1 : r->t->S);
        }
        json_end_array(w);
        json_key(w, "top");
        json_begin_array(w);
        for (int q = 0; q < rows; q++) {
            const float *row = run->rows + (size_t)q * (size_t)run->cap;
            int idx[3];
            const int k = heatmap_top(row, causal ? q + 1 : r->t->S, 3, idx);
            json_begin_array(w);
            for (int j = 0; j < k; j++) {
                json_begin_object(w);
                json_key(w, "token");
                json_string(w, causal ? (idx[j] == 0 ? VOCAB_SPECIAL[VOCAB_BOS]
                                                     : r->labels[idx[j] - 1])
                                      : keys[idx[j]]);
                json_key(w, "weight");
                json_float(w, row[idx[j]]);
                json_end_object(w);
            }
            json_end_array(w);
        }
        json_end_array(w);
        json_end_object(w);
    }
    json_end_array(w);
}

static void fill_cross(const InspectRun *run, const TranslatorResult *r, int l, int q, float *out)
{
    heatmap_select(out, r->t, TRANSLATION_CROSS, q, l, (int)run->o->head);
}

static void fill_self(const InspectRun *run, const TranslatorResult *r, int l, int q, float *out)
{
    heatmap_select(out, r->t, TRANSLATION_SELF, q, l, (int)run->o->head);
}

static void fill_encoder(const InspectRun *run, const TranslatorResult *r, int l, int q,
                         float *out)
{
    encoder_row(run, l, q, r->t->S, out);
}

/* What the report shows, as one JSON object on one line. */
static int inspect_json(InspectRun *run, const TranslatorResult *r, const char *text,
                        size_t len)
{
    const Translation *t = r->t;
    const ModelConfig *c = &run->m->config;
    JsonWriter w;
    json_init(&w, stdout);
    json_begin_object(&w);
    json_key(&w, "source");
    json_string_n(&w, text, len);
    json_key(&w, "source_tokens");
    json_begin_array(&w);
    for (int j = 0; j < t->S; j++)
        json_string(&w, r->src_labels[j]);
    json_end_array(&w);
    json_key(&w, "unknown");
    json_begin_array(&w);
    for (int j = 0; j < r->src->n; j++)
        json_bool(&w, r->kind[j] != TR_WORD_KNOWN);
    json_end_array(&w);
    json_key(&w, "translation");
    json_string(&w, r->text);
    json_key(&w, "words");
    json_begin_array(&w);
    for (int i = 0; i < t->n; i++) {
        json_begin_object(&w);
        json_key(&w, "word");
        json_string(&w, r->words[i]);
        json_key(&w, "label");
        json_string(&w, r->labels[i]);
        json_key(&w, "probability");
        json_float(&w, exp((double)t->logprob[i]));
        json_key(&w, "forced");
        json_bool(&w, i < t->n_forced);
        json_key(&w, "copied");
        json_bool(&w, r->copied[i]);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "head");
    if (run->o->head == TRANSLATION_HEAD_MEAN)
        json_string(&w, "mean");
    else
        json_int(&w, run->o->head);
    if (t->n > 0) {
        json_key(&w, "cross_attention");
        json_rows(&w, run, r, c->n_decoder_layers, t->n, 0, r->src_labels, fill_cross);
        if (run->o->self) {
            json_key(&w, "self_attention");
            json_rows(&w, run, r, c->n_decoder_layers, t->n, 1, NULL, fill_self);
        }
    }
    if (run->o->encoder && t->S > 0) {
        json_key(&w, "encoder_attention");
        json_rows(&w, run, r, c->n_encoder_layers, t->S, 0, r->src_labels, fill_encoder);
    }
    json_end_object(&w);
    int rc = json_finish(&w);
    if (fputc('\n', stdout) == EOF && rc == TT_OK)
        rc = TT_EIO;
    return rc;
}

/* Why the probabilities stop near 1 - smoothing: said once under the table, when a word
 * reaches that ceiling and the model file records its label smoothing. */
static void inspect_ceiling(const InspectRun *run, const Translation *t)
{
    const double eps = run->smoothing, ceiling = 1.0 - eps;
    int at = 0;
    for (int i = 0; i < t->n; i++)
        at |= exp((double)t->logprob[i]) >= ceiling - 0.01;
    if (eps <= 0.0 || !at)
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%.3f is as sure as this model gets, not 1: it was trained with "
                              "label smoothing %g, which leaves %g%% of the probability to the "
                              "other words.", ceiling, eps, 100.0 * eps);
    Wrap w = {.width = run->width, .hang = 2, .fresh = 1};
    fputs("  ", stdout);
    w.col = 2;
    wrap_text(&w, buf);
}

/* A block of texts decoded in batches before inspect_text reports each. */
static void inspect_ahead(const char *const *texts, const size_t *lens, int n, void *ctx)
{
    InspectRun *run = ctx;
    (void)translator_decode_ahead(&run->tr, texts, lens, n);
}

static int inspect_text(const char *text, size_t len, long no, void *ctx)
{
    InspectRun *run = ctx;
    TranslatorResult r;
    char err[256];
    int rc = translator_run(&run->tr, text, len, &r, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans inspect: %s %ld: %s\n", run->from_stdin ? "line" : "argument",
                no, err);
        return status_exit_code(rc);
    }
    if (inspect_file_to_stdout(run->o))
        return inspect_files(run, &r, text, len);
    const Translation *t = r.t;
    /* The heatmaps' buffers grow to this sentence: its rows are the output tokens, its
     * columns the source tokens or the outputs. */
    const int need = t->n > t->S ? t->n : t->S;
    if (need > run->cap) {
        float *rows = calloc((size_t)need * (size_t)need, sizeof *rows);
        const char **labels = calloc((size_t)need + 1, sizeof *labels);
        if (!rows || !labels) {
            free(labels);
            free(rows);
            fprintf(stderr, "toytrans inspect: %s\n", status_message(TT_ENOMEM));
            return status_exit_code(TT_ENOMEM);
        }
        free(run->labels);
        free(run->rows);
        run->rows = rows;
        run->labels = labels;
        run->cap = need;
    }
    if (run->o->json) {
        if ((rc = inspect_json(run, &r, text, len)) != TT_OK)
            return status_exit_code(rc);
        return run->o->svg_path || run->o->html_path ? inspect_files(run, &r, text, len)
                                                     : TT_EXIT_OK;
    }
    if (no > 1)
        putchar('\n');
    Wrap wrap = {.width = run->width, .hang = 0, .fresh = 1};
    if (!run->intro_shown) {
        run->intro_shown = 1;
        wrap_text(&wrap, "Cross-attention is where the decoder looks in the English sentence: "
                         "writing each German word (a row of the heatmap below), it takes in "
                         "the source tokens (its columns) by weights that add up to 1.");
        putchar('\n');
    }
    wrap.hang = 8;
    wrap_word(&wrap, "source:");
    int unknown = 0;
    char word[256];
    for (int j = 0; j < r.src->n; j++) {
        const int mark = r.kind[j] != TR_WORD_KNOWN;
        snprintf(word, sizeof word, "%s%s", r.src->tok[j], mark ? INSPECT_UNKNOWN_MARK : "");
        wrap_word(&wrap, word);
        unknown += mark;
    }
    wrap_text(&wrap, r.src->n ? "</s>" : "");
    if (unknown)
        printf("        " INSPECT_UNKNOWN_MARK " " INSPECT_UNKNOWN_LEGEND "\n");
    wrap.hang = 13;
    wrap_word(&wrap, "translation:");
    wrap_text(&wrap, r.text);
    if (r.grammar == TR_GRAMMAR_OUT) {
        char note[GRAMMAR_NOTE_LEN + 64];
        snprintf(note, sizeof note, "outside the grammar the model learned, %s", r.grammar_note);
        wrap.hang = 2;
        wrap_text(&wrap, note);
    }
    if (t->n == 0)
        return run->o->svg_path || run->o->html_path ? inspect_files(run, &r, text, len)
                                                     : TT_EXIT_OK;
    printf("\n  step  word%*s  probability\n", HEATMAP_LABEL_MAX - 4, "");
    for (int i = 0; i < t->n; i++) {
        /* Padded by terminal columns, not bytes: "Tür" is 4 bytes and 3 columns. */
        const char *mark = r.copied[i] ? INSPECT_COPIED_MARK : "";
        const int pad = HEATMAP_LABEL_MAX - matprint_text_width(r.words[i]) - (int)strlen(mark);
        printf("  %4d  %s%s%*s  %.3f%s\n", i, r.words[i], mark, pad > 0 ? pad : 0, "",
               exp((double)t->logprob[i]),
               i < t->n_forced ? "  forced" : r.copied[i] ? "  copied" : "");
    }
    inspect_ceiling(run, t);
    rc = inspect_decoder(run, &r, TRANSLATION_CROSS);
    if (rc == TT_OK && run->o->self)
        rc = inspect_decoder(run, &r, TRANSLATION_SELF);
    if (rc == TT_OK && run->o->encoder)
        rc = inspect_encoder(run, &r);
    if (rc != TT_OK)
        return status_exit_code(rc);
    return run->o->svg_path || run->o->html_path ? inspect_files(run, &r, text, len)
                                                 : TT_EXIT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The command
 */

int cli_inspect(int argc, char **argv)
{
    InspectOptions o;
    int code = inspect_parse(&o, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;

    Model m;
    char err[512];
    int rc = model_load_file(&m, o.model_path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans inspect: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("inspect", o.model_path, rc);
        return status_exit_code(rc);
    }
    const char *no_color = getenv("NO_COLOR");
    InspectRun run = {
        .o = &o,
        .m = &m,
        .color = o.color == INSPECT_COLOR_ALWAYS ||
                 (o.color == INSPECT_COLOR_AUTO && isatty(STDOUT_FILENO) &&
                  !(no_color && no_color[0])),
        .light = heatmap_background_light(getenv("COLORFGBG")),
        .from_stdin = optind >= argc,
        .width = inspect_width(&o),
        .smoothing = inspect_smoothing(o.model_path),
    };
    Pool *pool = NULL;
    if ((code = inspect_check_model(&o, &m.config)) != 0)
        goto done;
    if ((code = cli_translator_init("inspect", &run.tr, &m, &o.to)) != 0)
        goto done;
    if ((code = cli_batch_open("inspect", &run.tr, (int)o.batch, (int)o.threads, &pool)) != 0)
        goto done;
    code = cli_for_each_block(argc - optind, argv + optind,
                              translator_ahead_capacity(&run.tr), inspect_ahead, inspect_text,
                              &run);

done:
    translator_free(&run.tr);
    pool_close(pool);
    free(run.labels);
    free(run.rows);
    model_free(&m);
    return code;
}
