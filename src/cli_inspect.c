/*
 * cli_inspect.c — `toytrans inspect`: translate one sentence and show, word by word,
 * where the decoder looked.
 *
 * Every weight drawn is read from the Translation (cross- and self-attention of each
 * decoder step) or from the encoder (its self-attention), i.e. the numbers the forward
 * pass used and translate --json prints; only the mean over heads is computed here.
 */
#include "cli.h"
#include "heatmap.h"
#include "inspect_render.h"
#include "model.h"
#include "status.h"
#include "translator.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INSPECT_LAST (-1) /* --layer default: the last layer */
#define INSPECT_ALL (-2)  /* --layer all */

typedef struct {
    const char *model_path;
    const char *prefix_text;
    long layer;      /* INSPECT_LAST, INSPECT_ALL or 0..layers-1 (checked against the model) */
    long head;       /* HEATMAP_HEAD_MEAN or 0..H-1 (checked against the model) */
    int self, encoder;
    const char *svg_path;  /* --svg FILE, or NULL */
    const char *html_path; /* --html FILE, or NULL */
    int force;             /* --force: replace a database or a link at those paths */
} InspectOptions;

typedef struct {
    const InspectOptions *o;
    const Model *m;
    Translator tr;
    int cap;              /* rows and columns the buffers below hold (N), 0..max_len */
    float *rows;          /* (N, N) the selected weights of one heatmap */
    const char **labels;  /* (N + 1) column labels */
    int color;            /* ANSI colours: stdout is a terminal and NO_COLOR is unset */
} InspectRun;

static void inspect_usage(FILE *out)
{
    fputs("Usage: toytrans inspect [OPTIONS] TEXT...\n"
          "\n"
          "Translates each TEXT (greedy) and shows, for every German word, its probability\n"
          "and where the decoder looked: a heatmap of its cross-attention over the source\n"
          "tokens (</s> included), one row per word, with the three most attended source\n"
          "tokens and their weights. Shades: ' ' < 0.2 <= '░' < 0.4 <= '▒' < 0.6 <= '▓'\n"
          "< 0.8 <= '█'; on a terminal (unless NO_COLOR is set) also a grey background.\n"
          "The weights are those of the forward pass, as translate --json prints them.\n"
          "\n"
          "Options:\n"
          "  --model M        the model file (default: $TOYTRANS_MODEL, else " CLI_DEFAULT_MODEL ")\n"
          "  --prefix TEXT    force the start of the translation (shown as 'forced')\n"
          "  --layer L|all    the layer to show, from 0 (default: the last); 'all': each\n"
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
          "  -h, --help       show this help\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 4 a text could not be\n"
          "translated (invalid UTF-8, too long), 5 output failed.\n",
          out);
}

/* Returns 0 to go on, -1 after --help, or an exit code. */
static int inspect_parse(InspectOptions *o, int argc, char **argv)
{
    enum { O_MODEL = 256, O_PREFIX, O_LAYER, O_HEAD, O_SELF, O_ENCODER, O_SVG, O_HTML,
           O_FORCE };
    static const struct option LONG_OPTS[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"prefix", required_argument, NULL, O_PREFIX},
        {"layer", required_argument, NULL, O_LAYER},
        {"head", required_argument, NULL, O_HEAD},
        {"self", no_argument, NULL, O_SELF},
        {"encoder", no_argument, NULL, O_ENCODER},
        {"svg", required_argument, NULL, O_SVG},
        {"html", required_argument, NULL, O_HTML},
        {"force", no_argument, NULL, O_FORCE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->layer = INSPECT_LAST;
    o->head = HEATMAP_HEAD_MEAN;
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case O_MODEL:
            o->model_path = optarg;
            break;
        case O_PREFIX:
            o->prefix_text = optarg;
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
        case 'h':
            inspect_usage(stdout);
            return -1;
        default:
            return cli_bad_option("inspect", c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error("inspect", "expected a TEXT to translate");
    if ((o->svg_path || o->html_path) && argc - optind != 1)
        return cli_usage_error("inspect", "--svg and --html draw one sentence: give exactly "
                               "one TEXT");
    o->model_path = cli_model_path(o->model_path);
    if (o->svg_path && o->html_path && strcmp(o->svg_path, o->html_path) == 0)
        return cli_usage_error("inspect", "--svg and --html name the same file '%s'",
                               o->svg_path);
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

/* ---------------------------------------------------------------------------------------
 * One sentence
 */

/* "decoder layer 1 (0..1), mean of 4 heads" into buf. */
static void inspect_title(char *buf, size_t n, const char *stack, int layer, int layers,
                          long head, int heads)
{
    if (head == HEATMAP_HEAD_MEAN)
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

/* The decoder heatmaps of one kind, for the chosen layers. */
static int inspect_decoder(InspectRun *run, const TranslatorResult *r, HeatmapKind kind)
{
    const ModelConfig *c = &run->m->config;
    const Translation *t = r->t;
    const int L = c->n_decoder_layers, H = c->n_heads, N = run->cap;
    int cols;
    if (kind == HEATMAP_CROSS) {
        for (int j = 0; j < r->src->n; j++)
            run->labels[j] = r->src->tok[j];
        run->labels[r->src->n] = VOCAB_SPECIAL[VOCAB_EOS];
        cols = t->S;
    } else {
        run->labels[0] = VOCAB_SPECIAL[VOCAB_BOS];
        for (int i = 0; i + 1 < t->n; i++)
            run->labels[i + 1] = r->words[i];
        cols = t->n;
    }
    const HeatmapOptions ho = {
        .row_labels = r->words,
        .col_labels = run->labels,
        .causal = kind == HEATMAP_SELF,
        .color = run->color,
        .top_k = 3,
        .indent = "  ",
    };
    int first, last;
    inspect_layers(run->o, L, &first, &last);
    for (int l = first; l <= last; l++) {
        char title[128];
        inspect_title(title, sizeof title, "decoder", l, L, run->o->head, H);
        printf("\n%s (%s)\n", kind == HEATMAP_CROSS ? "cross-attention: each word over the "
                              "source tokens" : "self-attention: each word over <s> and the "
                              "words before it", title);
        for (int i = 0; i < t->n; i++)
            heatmap_select(run->rows + (size_t)i * N, t, kind, i, l, (int)run->o->head);
        int rc = heatmap_print(stdout, run->rows, t->n, cols, N, &ho);
        if (rc != TT_OK)
            return rc;
    }
    return TT_OK;
}

/* The encoder's self-attention heatmaps, for the chosen layers. */
static int inspect_encoder(InspectRun *run, const TranslatorResult *r)
{
    const ModelConfig *c = &run->m->config;
    const int L = c->n_encoder_layers, H = c->n_heads, S = r->t->S, N = run->cap;
    const float *attn = translator_encoder_attention(&run->tr); /* (L, H, S, S) */
    for (int j = 0; j < r->src->n; j++)
        run->labels[j] = r->src->tok[j];
    run->labels[r->src->n] = VOCAB_SPECIAL[VOCAB_EOS];
    const HeatmapOptions ho = {
        .row_labels = run->labels,
        .col_labels = run->labels,
        .color = run->color,
        .top_k = 3,
        .indent = "  ",
    };
    int first, last;
    inspect_layers(run->o, L, &first, &last);
    for (int l = first; l <= last; l++) {
        char title[128];
        inspect_title(title, sizeof title, "encoder", l, L, run->o->head, H);
        printf("\nencoder self-attention: each source token over the others (%s)\n", title);
        for (int q = 0; q < S; q++) {
            float *row = run->rows + (size_t)q * N;
            for (int k = 0; k < S; k++) {
                const float *w = attn + (((size_t)l * H) * S + q) * S + k; /* head 0 */
                if (run->o->head != HEATMAP_HEAD_MEAN) {
                    row[k] = w[(size_t)run->o->head * S * S];
                    continue;
                }
                double s = 0.0;
                for (int h = 0; h < H; h++)
                    s += w[(size_t)h * S * S];
                row[k] = (float)(s / H);
            }
        }
        int rc = heatmap_print(stdout, run->rows, S, S, N, &ho);
        if (rc != TT_OK)
            return rc;
    }
    return TT_OK;
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

static int inspect_text(const char *text, size_t len, long no, void *ctx)
{
    InspectRun *run = ctx;
    TranslatorResult r;
    char err[256];
    int rc = translator_run(&run->tr, text, len, &r, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans inspect: argument %ld: %s\n", no, err);
        return status_exit_code(rc);
    }
    if (inspect_file_to_stdout(run->o))
        return inspect_files(run, &r, text, len);
    const Translation *t = r.t;
    if (no > 1)
        putchar('\n');
    printf("source:");
    int unknown = 0;
    for (int j = 0; j < r.src->n; j++) {
        const int mark = r.kind[j] != TR_WORD_KNOWN;
        printf(" %s%s", r.src->tok[j], mark ? INSPECT_UNKNOWN_MARK : "");
        unknown += mark;
    }
    printf("%s\n", r.src->n ? " </s>" : "");
    if (unknown)
        printf("        " INSPECT_UNKNOWN_MARK " " INSPECT_UNKNOWN_LEGEND "\n");
    printf("translation: %s\n", r.text);
    if (t->n == 0)
        return run->o->svg_path || run->o->html_path ? inspect_files(run, &r, text, len)
                                                     : TT_EXIT_OK;
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
    printf("\n  step  word%*s  probability\n", HEATMAP_LABEL_MAX - 4, "");
    for (int i = 0; i < t->n; i++) {
        printf("  %4d  %-*s  %.3f%s\n", i, HEATMAP_LABEL_MAX, r.words[i],
               exp((double)t->logprob[i]), i < t->n_forced ? "  forced" : "");
    }
    rc = inspect_decoder(run, &r, HEATMAP_CROSS);
    if (rc == TT_OK && run->o->self)
        rc = inspect_decoder(run, &r, HEATMAP_SELF);
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
        return status_exit_code(rc);
    }
    const char *no_color = getenv("NO_COLOR");
    InspectRun run = {
        .o = &o,
        .m = &m,
        .color = isatty(STDOUT_FILENO) && !(no_color && no_color[0]),
    };
    if ((code = inspect_check_model(&o, &m.config)) != 0)
        goto done;
    const TranslatorOptions to = {.beam = 1, .prefix = o.prefix_text};
    rc = translator_init(&run.tr, &m, &to, err, sizeof err);
    if (rc == TT_EINPUT) {
        code = cli_usage_error("inspect", "--%s", err);
        goto done;
    } else if (rc != TT_OK) {
        fprintf(stderr, "toytrans inspect: %s\n", err);
        code = status_exit_code(rc);
        goto done;
    }
    code = cli_for_each_input(argc - optind, argv + optind, inspect_text, &run);

done:
    translator_free(&run.tr);
    free(run.labels);
    free(run.rows);
    model_free(&m);
    return code;
}
