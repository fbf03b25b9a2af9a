/*
 * cli_trace.c — `toytrans trace`: self-attention, stage by stage.
 *
 * For people who learn by predicting a shape and then checking it: the command prints
 * every tensor of one forward pass with its name, shape and values (X, the weights,
 * queries, keys, values, scores, weights, context), and then recomputes one token's
 * context vector on its own to show that row i of the batched output is exactly that.
 * The weights are drawn as PyTorch draws them, so a reader who runs the walk-through in
 * PyTorch with the same seed sees the same numbers.
 *
 * With --model (or a TEXT), the same stages for one head of a trained model on a real
 * sentence (headtrace.h): the model's inputs to that head, its weights, and at the end
 * the numbers held to the model's own forward pass as well as to one token alone.
 */
#include "base/rng.h"
#include "base/status.h"
#include "cli/cli.h"
#include "cli/cli_decode.h"
#include "model/model.h"
#include "show/headtrace.h"
#include "show/matprint.h"
#include "show/matrix.h"
#include "show/selfattn.h"
#include "translate/translator.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_TOLERANCE 1e-6f /* the single-token check passes within this */
/* A trained model's head is held to its forward pass within these: the projections are
 * summed here in double and there in float by other kernels (relative difference), and
 * the weights follow from them. */
#define TRACE_MODEL_PROJ_TOLERANCE 1e-4f
#define TRACE_MODEL_WEIGHT_TOLERANCE 1e-5f
#define TRACE_COLUMNS 8 /* --columns default: columns shown of a d_model-wide matrix */

/* The walk-through's input: 3-dimensional embeddings of "Your journey starts with one
 * step". */
static const float DEFAULT_X[6 * 3] = {
    0.43f, 0.15f, 0.89f, /* Your    */
    0.55f, 0.87f, 0.66f, /* journey */
    0.57f, 0.85f, 0.64f, /* starts  */
    0.22f, 0.58f, 0.33f, /* with    */
    0.77f, 0.25f, 0.10f, /* one     */
    0.05f, 0.80f, 0.55f, /* step    */
};
static const char *const DEFAULT_WORDS[6] = {"Your", "journey", "starts", "with", "one", "step"};

/* The walk-through's seeds: 123 for the v1 example, 789 for v2. */
#define DEFAULT_SEED_V1 123u
#define DEFAULT_SEED_V2 789u

typedef struct {
    const char *input;  /* --input FILE, or NULL for the default embeddings */
    SelfAttnVariant variant;
    long d_out;         /* --d-out, or -1 when not given */
    int qkv_bias;       /* --qkv-bias */
    uint64_t seed;
    int seed_given;
    long token;         /* 1-based */
    int token_given;
    long precision;
    /* A trained model's head (model mode: --model, a TEXT, or one of these given). */
    int model_mode;
    const char *model_path;   /* --model, else cli_model_path's default */
    const char *text;         /* the sentence */
    long layer, head;         /* --layer, --head: 0-based */
    HeadTraceKind kind;       /* --attention */
    long columns;             /* --columns: 0 shows every column */
    int toy_option;           /* an option of the book's example was given (--variant ..) */
} TraceOptions;

static void trace_usage(FILE *out)
{
    fputs("Usage: toytrans trace [OPTIONS]\n"
          "\n"
          "Walks through one self-attention forward pass and prints every stage with its\n"
          "name, shape and values: X, queries, keys, values, scores, weights, context.\n"
          "Then it computes one token's context vector on its own and compares it with\n"
          "that token's row of the batched output.\n"
          "\n"
          "Options:\n"
          "  --variant NAME   simple  no trainable weights: scores = X·Xᵀ, no scaling\n"
          "                   v1      W_query, W_key, W_value as d_in × d_out matrices\n"
          "                   v2      three Linear layers, weight d_out × d_in (default: v1)\n"
          "  --input FILE     read X from FILE: one row per line, values separated by\n"
          "                   spaces, an optional leading label per row, '#' comments\n"
          "                   (default: the 6 × 3 embeddings of\n"
          "                   \"Your journey starts with one step\")\n"
          "  --d-out N        width of queries, keys and values (default 2; simple: d_in)\n"
          "  --qkv-bias       give v2's Linear layers a bias (off by default)\n"
          "  --seed N         weights as after torch.manual_seed(N)\n"
          "                   (default 123 for v1, 789 for v2, as in the walk-through)\n"
          "  --token I        the token to check on its own, 1-based (default 2)\n"
          "  --precision N    digits after the decimal point, 0 to 9 (default 4)\n"
          "  -h, --help       show this help\n"
          "\n"
          "Usage: toytrans trace [--model M] [--attention KIND] [--layer L] [--head H] TEXT\n"
          "\n"
          "One head of a trained model on the sentence TEXT, through the same stages: X\n"
          "(what the head reads: the layer's LayerNorm output, for cross-attention's keys\n"
          "and values the encoder's output), the head's rows of W_query, W_key and\n"
          "W_value, queries, keys, values, scores, the scaled softmax and the context;\n"
          "then every stage is held to the model's own forward pass, and --token's row to\n"
          "that token computed alone. The decoder's input is <s> and the model's greedy\n"
          "translation without its last token (shifted right, as in training), so a\n"
          "decoder attention's row <s> is the step that chose the first word, the next row\n"
          "the second, each with the weights translate --json prints for that step.\n"
          "\n"
          "  --model M        the model file (default: $TOYTRANS_MODEL, else the installed\n"
          "                   model, else the source tree's; 'toytrans help model')\n"
          "  --attention KIND\n"
          "                   enc-self (default), dec-self (causal) or cross\n"
          "  --layer L        the layer of that stack, from 0 (default 0)\n"
          "  --head H         the head, from 0 (default 0)\n"
          "  --columns N      columns shown of a matrix as wide as the model or a head\n"
          "                   (default 8; 0: all)\n"
          "  --token I, --precision N  as above\n"
          "\n"
          "Exit status: 0 when the checks agree (the single-token check within 1e-6; a\n"
          "model's head within 1e-4 of its forward pass's projections, relative, and 1e-5\n"
          "of its weights), 1 when one does not, 2 for a bad command line, 3 for an\n"
          "unusable model, 4 for a malformed --input file or a TEXT that cannot be\n"
          "translated, 5 when a file cannot be read. See 'toytrans help exit-codes'.\n",
          out);
}

/* Parses argv into opts. Returns 0 to go on, or the exit code to end with (-1 for a
 * --help that was printed: exit 0). */
static int trace_parse(TraceOptions *opts, int argc, char **argv)
{
    enum { OPT_VARIANT = 256, OPT_INPUT, OPT_D_OUT, OPT_QKV_BIAS, OPT_SEED, OPT_TOKEN,
           OPT_PRECISION, OPT_MODEL, OPT_ATTENTION, OPT_LAYER, OPT_HEAD, OPT_COLUMNS };
    static const struct option LONG_OPTS[] = {
        {"variant", required_argument, NULL, OPT_VARIANT},
        {"input", required_argument, NULL, OPT_INPUT},
        {"d-out", required_argument, NULL, OPT_D_OUT},
        {"qkv-bias", no_argument, NULL, OPT_QKV_BIAS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"token", required_argument, NULL, OPT_TOKEN},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"model", required_argument, NULL, OPT_MODEL},
        {"attention", required_argument, NULL, OPT_ATTENTION},
        {"layer", required_argument, NULL, OPT_LAYER},
        {"head", required_argument, NULL, OPT_HEAD},
        {"columns", required_argument, NULL, OPT_COLUMNS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *opts = (TraceOptions){.variant = SELFATTN_V1, .d_out = -1, .token = 2, .precision = 4,
                           .kind = HEADTRACE_ENC_SELF, .columns = TRACE_COLUMNS};
    optind = 1;
    opterr = 0;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        switch (c) {
        case OPT_VARIANT: {
            int v = selfattn_variant_parse(optarg);
            if (v < 0)
                return cli_usage_error("trace", "--variant: '%s' is not one of simple, v1, v2",
                                       optarg);
            opts->variant = (SelfAttnVariant)v;
            opts->toy_option = 1;
            break;
        }
        case OPT_INPUT:
            opts->input = optarg;
            opts->toy_option = 1;
            break;
        case OPT_D_OUT:
            if ((rc = cli_parse_long("trace", "--d-out", optarg, 1, MATRIX_MAX_DIM, &opts->d_out)))
                return rc;
            opts->toy_option = 1;
            break;
        case OPT_QKV_BIAS:
            opts->qkv_bias = 1;
            opts->toy_option = 1;
            break;
        case OPT_SEED:
            if ((rc = cli_parse_u64("trace", "--seed", optarg, &opts->seed)))
                return rc;
            opts->seed_given = 1;
            opts->toy_option = 1;
            break;
        case OPT_TOKEN:
            if ((rc = cli_parse_long("trace", "--token", optarg, 1, MATRIX_MAX_DIM, &opts->token)))
                return rc;
            opts->token_given = 1;
            break;
        case OPT_MODEL:
            opts->model_path = optarg;
            opts->model_mode = 1;
            break;
        case OPT_ATTENTION: {
            const int k = headtrace_kind_parse(optarg);
            if (k < 0)
                return cli_usage_error("trace", "--attention: '%s' is not one of enc-self, "
                                       "dec-self, cross", optarg);
            opts->kind = (HeadTraceKind)k;
            opts->model_mode = 1;
            break;
        }
        case OPT_LAYER:
            if ((rc = cli_parse_long("trace", "--layer", optarg, 0, CONFIG_MAX_LAYERS - 1,
                                     &opts->layer)))
                return rc;
            opts->model_mode = 1;
            break;
        case OPT_HEAD:
            if ((rc = cli_parse_long("trace", "--head", optarg, 0, CONFIG_MAX_D_MODEL - 1,
                                     &opts->head)))
                return rc;
            opts->model_mode = 1;
            break;
        case OPT_COLUMNS:
            if ((rc = cli_parse_long("trace", "--columns", optarg, 0, CONFIG_MAX_D_MODEL,
                                     &opts->columns)))
                return rc;
            break;
        case OPT_PRECISION:
            if ((rc = cli_parse_long("trace", "--precision", optarg, 0, 9, &opts->precision)))
                return rc;
            break;
        case 'h':
            trace_usage(stdout);
            return -1;
        default:
            return cli_bad_option_in("trace", c, argv, LONG_OPTS);
        }
    }
    if (optind < argc) {
        opts->model_mode = 1;
        opts->text = argv[optind];
        if (optind + 1 < argc)
            return cli_usage_error("trace", "unexpected argument '%s' (one TEXT is traced)",
                                   argv[optind + 1]);
    }
    if (opts->model_mode) {
        if (opts->toy_option)
            return cli_usage_error("trace", "--variant, --input, --d-out, --seed and "
                                   "--qkv-bias are the book's example's; a model's head "
                                   "(--model, --attention, --layer, --head, TEXT) has its own");
        if (!opts->text)
            return cli_usage_error("trace", "a model's head needs one TEXT to trace, e.g. "
                                   "toytrans trace --model M \"This is an example\"");
        opts->model_path = cli_model_path(opts->model_path);
        return 0;
    }
    if (opts->qkv_bias && opts->variant != SELFATTN_V2)
        return cli_usage_error("trace", "--qkv-bias applies to --variant v2 only");
    if (opts->d_out > 0 && opts->variant == SELFATTN_SIMPLE)
        return cli_usage_error("trace", "--d-out does not apply to --variant simple "
                                        "(its queries are X itself, d_out = d_in)");
    if (!opts->seed_given)
        opts->seed = opts->variant == SELFATTN_V2 ? DEFAULT_SEED_V2 : DEFAULT_SEED_V1;
    return 0;
}

/* Loads X into m from opts->input or the default. Returns an exit code (0 ok). */
static int trace_load_input(Matrix *m, const TraceOptions *opts)
{
    if (!opts->input) {
        int rc = matrix_init(m, DEFAULT_X, 6, 3, DEFAULT_WORDS);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
            return status_exit_code(rc);
        }
        return 0;
    }
    FILE *f = fopen(opts->input, "rb");
    if (!f) {
        fprintf(stderr, "toytrans trace: cannot open '%s': %s\n", opts->input, strerror(errno));
        return TT_EXIT_IO;
    }
    char err[512];
    int rc = matrix_read_text(m, f, opts->input, err, sizeof err);
    fclose(f);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans trace: %s\n", err[0] ? err : status_message(rc));
        return status_exit_code(rc);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Printing
 */

typedef struct {
    FILE *out;
    int precision;
    const char *const *tokens; /* T labels */
    int T;
} Printer;

static void print_rule(Printer *p, const char *title)
{
    fprintf(p->out, "\n%s\n", title);
}

static void print_tokens_matrix(Printer *p, const char *name, const float *m, int cols,
                                const char *const *col_labels)
{
    MatPrintOptions o = {.precision = p->precision, .row_labels = p->tokens,
                         .col_labels = col_labels, .indent = "  "};
    matprint(p->out, name, m, p->T, cols, &o);
}

static void print_plain_matrix(Printer *p, const char *name, const float *m, int rows, int cols)
{
    MatPrintOptions o = {.precision = p->precision, .indent = "  "};
    matprint(p->out, name, m, rows, cols, &o);
}

static void print_weights(Printer *p, const SelfAttention *sa, uint64_t seed)
{
    const int di = sa->d_in, dout = sa->d_out;
    const float *w[3] = {sa->w_query, sa->w_key, sa->w_value};
    const float *b[3] = {sa->b_query, sa->b_key, sa->b_value};
    static const char *const NAMES[3] = {"W_query", "W_key", "W_value"};
    char name[64];
    if (sa->variant == SELFATTN_V1) {
        fprintf(p->out, "\nTrainable weights: torch.manual_seed(%llu), then torch.rand(%d, %d) "
                        "for each of W_query, W_key, W_value\n",
                (unsigned long long)seed, di, dout);
        for (int m = 0; m < 3; m++)
            print_plain_matrix(p, NAMES[m], w[m], di, dout);
        return;
    }
    fprintf(p->out, "\nTrainable weights: torch.manual_seed(%llu), then three "
                    "nn.Linear(%d, %d, bias=%s); weight [d_out × d_in], U(±1/√%d)\n",
            (unsigned long long)seed, di, dout, sa->qkv_bias ? "True" : "False", di);
    for (int m = 0; m < 3; m++) {
        snprintf(name, sizeof name, "%s.weight", NAMES[m]);
        print_plain_matrix(p, name, w[m], dout, di);
        if (b[m]) {
            snprintf(name, sizeof name, "%s.bias", NAMES[m]);
            print_plain_matrix(p, name, b[m], 1, dout);
        }
    }
}

/* The largest |a[i] - b[i]| over n values. */
static float max_abs_diff(const float *a, const float *b, int n)
{
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (d > m || isnan(d))
            m = d;
    }
    return m;
}

/* Prints every stage. */
static void print_stages(Printer *p, const SelfAttention *sa, const Matrix *x,
                         const SelfAttnStages *st)
{
    const int T = x->rows, di = x->cols, d = sa->d_out;
    const int simple = sa->variant == SELFATTN_SIMPLE, v2 = sa->variant == SELFATTN_V2;
    char line[256];

    print_rule(p, "Stage 1/5 · inputs: one row per token");
    print_tokens_matrix(p, "X", x->data, di, NULL);

    if (simple) {
        print_rule(p, "Stage 2/5 · no trainable weights: queries = keys = values = X");
        fprintf(p->out, "  [%d × %d] each\n", T, d);
    } else {
        snprintf(line, sizeof line,
                 "Stage 2/5 · projections: queries = X · W_query%s, keys and values alike",
                 v2 ? (sa->qkv_bias ? "ᵀ + b_query" : "ᵀ") : "");
        print_rule(p, line);
        fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]\n", T, di, di, d, T, d);
    }
    print_tokens_matrix(p, "queries", st->queries, d, NULL);
    print_tokens_matrix(p, "keys", st->keys, d, NULL);
    print_tokens_matrix(p, "values", st->values, d, NULL);

    print_rule(p, "Stage 3/5 · attention scores: scores = queries · keysᵀ (row i: how well "
                  "query i matches each key)");
    fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]\n", T, d, d, T, T, T);
    print_tokens_matrix(p, "scores", st->scores, T, p->tokens);

    /* How far each row's sum is from 1: shown, not assumed. */
    float worst = 0.0f;
    for (int r = 0; r < T; r++) {
        double sum = 0.0;
        for (int c = 0; c < T; c++)
            sum += st->weights[(size_t)r * T + c];
        if (fabs(sum - 1.0) > worst)
            worst = (float)fabs(sum - 1.0);
    }
    if (simple)
        print_rule(p, "Stage 4/5 · attention weights: softmax(scores) per row (no scaling "
                      "without trainable weights)");
    else {
        snprintf(line, sizeof line,
                 "Stage 4/5 · attention weights: softmax(scores / √d_k) per row, d_k = %d "
                 "(keys' last dimension), so scores × %.4f",
                 d, (double)st->scale);
        print_rule(p, line);
    }
    fprintf(p->out, "  [%d × %d], every row sums to 1 (largest deviation %.1e)\n", T, T,
            (double)worst);
    print_tokens_matrix(p, "weights", st->weights, T, p->tokens);

    print_rule(p, "Stage 5/5 · context vectors: context = weights · values (row i: the "
                  "values mixed by query i's weights)");
    fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]\n", T, T, T, d, T, d);
    print_tokens_matrix(p, "context", st->context, d, NULL);
}

/* Recomputes token i alone and compares; returns TT_EXIT_OK or TT_EXIT_FAILED (or the
 * exit code of an error). */
static int print_token_check(Printer *p, const SelfAttention *sa, const Matrix *x,
                             const SelfAttnStages *st, int i)
{
    const int T = x->rows, d = sa->d_out;
    float *alone = malloc(sizeof(float) * ((size_t)d + (size_t)T));
    if (!alone) {
        fprintf(stderr, "toytrans trace: %s\n", status_message(TT_ENOMEM));
        return TT_EXIT_IO;
    }
    float *alone_w = alone + d;
    int rc = selfattn_forward_token(alone, alone_w, sa, x->data, T, i);
    if (rc != TT_OK) {
        free(alone);
        fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
        return status_exit_code(rc);
    }
    const float *row = st->context + (size_t)i * d;
    const float diff = max_abs_diff(alone, row, d);
    const int agree = diff <= TRACE_TOLERANCE;

    char title[256];
    snprintf(title, sizeof title, "Check · token %d (\"%s\") on its own: its query against "
                                  "every key, without the other rows", i + 1, x->labels[i]);
    print_rule(p, title);
    if (sa->variant == SELFATTN_SIMPLE)
        fprintf(p->out, "  query_%d = x_%d; weights_%d = softmax(query_%d · Xᵀ); "
                        "context_%d = weights_%d · X\n", i + 1, i + 1, i + 1, i + 1, i + 1, i + 1);
    else
        fprintf(p->out, "  query_%d = x_%d · W_query%s; weights_%d = softmax(query_%d · keysᵀ "
                        "/ √%d); context_%d = weights_%d · values\n",
                i + 1, i + 1, sa->variant == SELFATTN_V2 ? "ᵀ" : "", i + 1, i + 1, d, i + 1,
                i + 1);
    MatPrintOptions wo = {.precision = p->precision, .row_labels = (const char *const *)&x->labels[i],
                          .col_labels = p->tokens, .indent = "  "};
    char name[128];
    snprintf(name, sizeof name, "weights_%d alone", i + 1);
    matprint(p->out, name, alone_w, 1, T, &wo);

    /* Both vectors in one table, so their digits line up. */
    float both[2 * MATRIX_MAX_DIM];
    memcpy(both, alone, sizeof(float) * (size_t)d);
    memcpy(both + d, row, sizeof(float) * (size_t)d);
    const char *labels[2] = {"alone", "batched"};
    MatPrintOptions co = {.precision = p->precision, .row_labels = labels, .indent = "  "};
    snprintf(name, sizeof name, "context_%d alone, and row %d of the batched context", i + 1,
             i + 1);
    matprint(p->out, name, both, 2, d, &co);
    fprintf(p->out, "  largest |difference| %.3g (limit %.0e): %s\n", (double)diff,
            (double)TRACE_TOLERANCE,
            agree ? "they agree — row i of the batched output is token i's own context"
                  : "they DISAGREE");
    free(alone);
    return agree ? TT_EXIT_OK : TT_EXIT_FAILED;
}

/* ---------------------------------------------------------------------------------------
 * One head of a trained model
 */

/* Prints the first `show` columns (all when show is 0 or cols <= show) of m (rows, cols;
 * row r at m + r*ld), its name saying which columns are shown. */
static int print_some_columns(Printer *p, const char *name, const float *m, int rows,
                              int cols, int ld, const char *const *row_labels, int show)
{
    const int k = show > 0 && show < cols ? show : cols;
    float *part = malloc(sizeof(float) * (size_t)rows * (size_t)k);
    if (!part)
        return TT_ENOMEM;
    for (int r = 0; r < rows; r++)
        memcpy(part + (size_t)r * k, m + (size_t)r * ld, sizeof(float) * (size_t)k);
    char title[160];
    if (k < cols)
        snprintf(title, sizeof title, "%s: columns 1-%d of %d (--columns)", name, k, cols);
    else
        snprintf(title, sizeof title, "%s", name);
    MatPrintOptions o = {.precision = p->precision, .row_labels = row_labels, .indent = "  "};
    /* matprint names its own shape; a cut matrix's title gives the whole shape. */
    int rc = matprint(p->out, title, part, rows, k, &o);
    free(part);
    return rc;
}

/* The stages of h, labelled by rows (Tq) and keys (Tk). */
static int print_head_stages(Printer *p, const HeadTrace *h, const char *const *rows,
                             const char *const *keys, int show)
{
    const int Tq = h->Tq, Tk = h->Tk, D = h->D, Dh = h->Dh;
    const int cross = h->kind == HEADTRACE_CROSS;
    const char *block = h->kind == HEADTRACE_ENC_SELF ? "encoder" : "decoder";
    char line[320];
    int rc;

    snprintf(line, sizeof line, "Stage 1/5 · inputs: X = %s.layers.%d.norm%d(x), the %s "
             "row by row as this layer's attention reads it", block, h->layer,
             cross ? 2 : 1, h->kind == HEADTRACE_ENC_SELF ? "source" : "decoder input");
    print_rule(p, line);
    if ((rc = print_some_columns(p, "X", h->x, Tq, D, D, rows, show)))
        return rc;
    if (cross) {
        fprintf(p->out, "  keys and values read the encoder's output (memory, after "
                        "encoder.norm), one row per source token\n");
        if ((rc = print_some_columns(p, "memory", h->x_kv, Tk, D, D, keys, show)))
            return rc;
    }

    snprintf(line, sizeof line, "Stage 2/5 · projections of head %d: rows %d-%d of W_query, "
             "W_key, W_value (each [%d × %d]), queries = X · W_qᵀ%s", h->head, h->head * Dh,
             (h->head + 1) * Dh - 1, D, D, h->b_q ? " + b_q" : "");
    print_rule(p, line);
    fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]; keys and values alike from %s\n",
            Tq, D, D, Dh, Tq, Dh, cross ? "memory" : "X");
    const char *wn[3] = {"W_q (head's rows)", "W_k (head's rows)", "W_v (head's rows)"};
    const float *w[3] = {h->w_q, h->w_k, h->w_v};
    for (int i = 0; i < 3; i++) {
        const int shown_rows = show > 0 && show < Dh ? show : Dh;
        char name[96];
        if (shown_rows < Dh)
            snprintf(name, sizeof name, "%s, rows 1-%d of %d", wn[i], shown_rows, Dh);
        else
            snprintf(name, sizeof name, "%s", wn[i]);
        if ((rc = print_some_columns(p, name, w[i], shown_rows, D, D, NULL, show)))
            return rc;
    }
    if ((rc = print_some_columns(p, "queries", h->q, Tq, Dh, Dh, rows, show)) ||
        (rc = print_some_columns(p, "keys", h->k, Tk, Dh, Dh, keys, show)) ||
        (rc = print_some_columns(p, "values", h->v, Tk, Dh, Dh, keys, show)))
        return rc;

    print_rule(p, "Stage 3/5 · attention scores: scores = queries · keysᵀ (row i: how well "
                  "query i matches each key)");
    fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]\n", Tq, Dh, Dh, Tk, Tq, Tk);
    MatPrintOptions so = {.precision = p->precision, .row_labels = rows, .col_labels = keys,
                          .indent = "  "};
    if ((rc = matprint(p->out, "scores", h->scores, Tq, Tk, &so)))
        return rc;

    snprintf(line, sizeof line, "Stage 4/5 · attention weights: softmax(scores / √d_k) per "
             "row, d_k = %d (the head's width), so scores × %.4f%s", Dh, (double)h->scale,
             h->causal ? "; a position sees only itself and the ones before it (the causal "
                         "mask: later keys get weight 0)" : "");
    print_rule(p, line);
    if ((rc = matprint(p->out, "weights", h->weights, Tq, Tk, &so)))
        return rc;

    print_rule(p, "Stage 5/5 · context vectors: context = weights · values (row i: the "
                  "values mixed by query i's weights; the heads' contexts side by side then go "
                  "through W_out)");
    fprintf(p->out, "  [%d × %d] · [%d × %d] → [%d × %d]\n", Tq, Tk, Tk, Dh, Tq, Dh);
    return print_some_columns(p, "context", h->ctx, Tq, Dh, Dh, rows, show);
}

/* The checks: against the forward pass, and query row i alone. Returns TT_EXIT_OK,
 * TT_EXIT_FAILED or an error's exit code. */
static int print_head_checks(Printer *p, const HeadTrace *h, const char *const *rows,
                             const char *const *keys, int i, int show)
{
    float proj, wdiff;
    headtrace_compare(h, &proj, &wdiff);
    const int model_ok = proj <= TRACE_MODEL_PROJ_TOLERANCE &&
                         wdiff <= TRACE_MODEL_WEIGHT_TOLERANCE;
    print_rule(p, "Check · the model's own forward pass (the layers translation and training "
                  "run) computed this head too");
    fprintf(p->out, "  queries, keys, values: largest relative |difference| %.3g (limit %.0e)\n"
                    "  weights: largest |difference| %.3g (limit %.0e): %s\n",
            (double)proj, (double)TRACE_MODEL_PROJ_TOLERANCE, (double)wdiff,
            (double)TRACE_MODEL_WEIGHT_TOLERANCE,
            model_ok ? "they agree — these are the model's numbers"
                     : "they DISAGREE");

    const int Tk = h->Tk, Dh = h->Dh;
    /* weights alone (Tk), context alone (Dh), and both contexts side by side (2 Dh). */
    float *alone = malloc(sizeof(float) * ((size_t)Tk + (size_t)Dh * 3));
    if (!alone) {
        fprintf(stderr, "toytrans trace: %s\n", status_message(TT_ENOMEM));
        return TT_EXIT_IO;
    }
    float *ctx = alone + Tk, *both = ctx + Dh;
    int rc = headtrace_token(h, i, alone, ctx);
    if (rc != TT_OK) {
        free(alone);
        fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
        return status_exit_code(rc);
    }
    const float diff = fmaxf(max_abs_diff(alone, h->weights + (size_t)i * Tk, Tk),
                             max_abs_diff(ctx, h->ctx + (size_t)i * Dh, Dh));
    const int agree = diff <= TRACE_TOLERANCE;
    char title[256];
    snprintf(title, sizeof title, "Check · row %d (\"%s\") on its own: its query against "
                                  "%s, without the other rows", i + 1, rows[i],
             h->causal ? "the keys up to it" : "every key");
    print_rule(p, title);
    MatPrintOptions wo = {.precision = p->precision, .row_labels = &rows[i],
                          .col_labels = keys, .indent = "  "};
    char name[128];
    snprintf(name, sizeof name, "weights_%d alone", i + 1);
    matprint(p->out, name, alone, 1, Tk, &wo);
    /* Both context vectors in one table, so their digits line up. */
    const int k = show > 0 && show < Dh ? show : Dh;
    for (int c = 0; c < k; c++) {
        both[c] = ctx[c];
        both[k + c] = h->ctx[(size_t)i * Dh + c];
    }
    const char *labels[2] = {"alone", "batched"};
    MatPrintOptions co = {.precision = p->precision, .row_labels = labels, .indent = "  "};
    snprintf(name, sizeof name, "context_%d alone, and row %d of the batched context%s", i + 1,
             i + 1, k < Dh ? " (first columns)" : "");
    matprint(p->out, name, both, 2, k, &co);
    fprintf(p->out, "  largest |difference| %.3g (limit %.0e): %s\n", (double)diff,
            (double)TRACE_TOLERANCE,
            agree ? "they agree — row i of the batched output is token i's own context"
                  : "they DISAGREE");
    free(alone);
    return agree && model_ok ? TT_EXIT_OK : TT_EXIT_FAILED;
}

/* Prints "WHAT: w1 w2 ..." on one line. */
static void print_words(const char *what, const char *const *w, int n)
{
    printf("  %s:", what);
    for (int i = 0; i < n; i++)
        printf(" %s", w[i]);
    putchar('\n');
}

static int trace_model(const TraceOptions *o)
{
    Model m;
    char err[512] = "";
    int rc = model_load_file(&m, o->model_path, err, sizeof err);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans trace: %s\n", err[0] ? err : status_message(rc));
        cli_model_hint("trace", o->model_path, rc);
        return status_exit_code(rc);
    }
    const ModelConfig *c = &m.config;
    Translator tr = {0};
    HeadTrace h = {0};
    const char **dec_labels = NULL;
    int code = 0;
    const int layers = o->kind == HEADTRACE_ENC_SELF ? c->n_encoder_layers : c->n_decoder_layers;
    if (o->layer >= layers) {
        code = cli_usage_error("trace", "--layer: %ld is out of range: the %s has %d layers "
                               "(0..%d)", o->layer, o->kind == HEADTRACE_ENC_SELF ? "encoder"
                               : "decoder", layers, layers - 1);
        goto done;
    }
    if (o->head >= c->n_heads) {
        code = cli_usage_error("trace", "--head: %ld is out of range: the model has %d heads "
                               "(0..%d)", o->head, c->n_heads, c->n_heads - 1);
        goto done;
    }
    TranslatorOptions to;
    cli_decode_begin(&to);
    if ((code = cli_decode_end("trace", &to)) != 0 ||
        (code = cli_translator_init("trace", &tr, &m, &to)) != 0)
        goto done;
    TranslatorResult r;
    rc = translator_run(&tr, o->text, strlen(o->text), &r, err, sizeof err);
    if (rc == TT_OK && (r.t->n == 0 || r.t->S < 2)) {
        snprintf(err, sizeof err, "the TEXT is empty: no attention to trace");
        rc = TT_EINPUT;
    }
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans trace: %s\n", err[0] ? err : status_message(rc));
        code = status_exit_code(rc);
        goto done;
    }
    const Translation *t = r.t;
    /* The decoder's input: <s>, then the translation but its last token. */
    const int T = t->n;
    if (!(dec_labels = malloc(sizeof *dec_labels * (size_t)T))) {
        rc = TT_ENOMEM;
        fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
        code = status_exit_code(rc);
        goto done;
    }
    dec_labels[0] = VOCAB_SPECIAL[VOCAB_BOS];
    for (int i = 1; i < T; i++)
        dec_labels[i] = r.labels[i - 1];
    rc = headtrace_run(&h, &m, o->kind, (int)o->layer, (int)o->head, tr.src_ids, t->S - 1,
                       t->ids, T - 1);
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
        code = status_exit_code(rc);
        goto done;
    }
    const char *const *rows = o->kind == HEADTRACE_ENC_SELF ? r.src_labels : dec_labels;
    const char *const *keys = o->kind == HEADTRACE_DEC_SELF ? dec_labels : r.src_labels;
    const int token = o->token_given ? (int)o->token : (h.Tq >= 2 ? 2 : 1);
    if (token > h.Tq) {
        code = cli_usage_error("trace", "--token %d: the %s has only %d rows", token,
                               headtrace_kind_name(o->kind), h.Tq);
        goto done;
    }

    printf("toytrans trace · one head of a trained model, stage by stage\n");
    printf("  model %s: d_model %d, %d heads of %d, %d encoder and %d decoder layers\n",
           o->model_path, c->d_model, c->n_heads, h.Dh, c->n_encoder_layers,
           c->n_decoder_layers);
    printf("  attention: %s, %s layer %ld (0..%d), head %ld (0..%d)\n",
           headtrace_kind_name(o->kind), o->kind == HEADTRACE_ENC_SELF ? "encoder" : "decoder",
           o->layer, layers - 1, o->head, c->n_heads - 1);
    print_words("source tokens", r.src_labels, t->S);
    print_words("translation (greedy)", r.labels, T);
    if (o->kind != HEADTRACE_ENC_SELF) {
        print_words("decoder input", dec_labels, T);
        printf("  (the translation shifted right, as in training: the row of <s> is the step "
               "that chose the first word, and so on; translate --json's steps in order)\n");
    }
    Printer p = {.out = stdout, .precision = (int)o->precision, .tokens = rows, .T = h.Tq};
    if ((rc = print_head_stages(&p, &h, rows, keys, (int)o->columns)) != TT_OK) {
        code = status_exit_code(rc);
        goto done;
    }
    code = print_head_checks(&p, &h, rows, keys, token - 1, (int)o->columns);

done:
    headtrace_free(&h);
    free(dec_labels);
    translator_free(&tr);
    model_free(&m);
    return code;
}

int cli_trace(int argc, char **argv)
{
    TraceOptions opts;
    int code = trace_parse(&opts, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;
    if (opts.model_mode)
        return trace_model(&opts);

    Matrix x = {0};
    SelfAttention sa = {0};
    SelfAttnStages st = {0};
    if ((code = trace_load_input(&x, &opts)) != 0)
        goto done;
    const int d_in = x.cols;
    const int d_out = opts.variant == SELFATTN_SIMPLE ? d_in : (opts.d_out > 0 ? (int)opts.d_out : 2);
    if (opts.token > x.rows) {
        code = cli_usage_error("trace", "--token %ld: the input has only %d tokens", opts.token,
                               x.rows);
        goto done;
    }
    int rc = selfattn_init(&sa, opts.variant, d_in, d_out, opts.qkv_bias);
    if (rc == TT_OK) {
        Rng rng;
        rng_seed(&rng, opts.seed);
        selfattn_randomize(&sa, &rng);
        rc = selfattn_forward(&st, &sa, x.data, x.rows);
    }
    if (rc != TT_OK) {
        fprintf(stderr, "toytrans trace: %s\n", status_message(rc));
        code = status_exit_code(rc);
        goto done;
    }

    Printer p = {.out = stdout, .precision = (int)opts.precision,
                 .tokens = (const char *const *)x.labels, .T = x.rows};
    printf("toytrans trace · self-attention %s, stage by stage\n",
           selfattn_variant_name(opts.variant));
    printf("  %d tokens, d_in = %d, d_out = %d", x.rows, d_in, d_out);
    if (opts.variant != SELFATTN_SIMPLE)
        printf(", seed %llu", (unsigned long long)opts.seed);
    printf(", input: %s\n", opts.input ? opts.input : "\"Your journey starts with one step\"");
    if (opts.variant != SELFATTN_SIMPLE)
        print_weights(&p, &sa, opts.seed);
    print_stages(&p, &sa, &x, &st);
    code = print_token_check(&p, &sa, &x, &st, (int)opts.token - 1);

done:
    selfattn_stages_free(&st);
    selfattn_free(&sa);
    matrix_free(&x);
    return code;
}
