/*
 * cli_trace.c — `toytrans trace`: self-attention, stage by stage.
 *
 * For people who learn by predicting a shape and then checking it: the command prints
 * every tensor of one forward pass with its name, shape and values (X, the weights,
 * queries, keys, values, scores, weights, context), and then recomputes one token's
 * context vector on its own to show that row i of the batched output is exactly that.
 * The weights are drawn as PyTorch draws them, so a reader who runs the walk-through in
 * PyTorch with the same seed sees the same numbers.
 */
#include "cli.h"
#include "matprint.h"
#include "matrix.h"
#include "rng.h"
#include "selfattn.h"
#include "status.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_TOLERANCE 1e-6f /* the single-token check passes within this */

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
    long precision;
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
          "Exit status: 0 when the single-token check agrees within 1e-6, 1 when it does\n"
          "not, 2 for a bad command line, 4 for a malformed --input file, 5 when a file\n"
          "cannot be read. See 'toytrans help exit-codes'.\n",
          out);
}

/* Parses argv into opts. Returns 0 to go on, or the exit code to end with (-1 for a
 * --help that was printed: exit 0). */
static int trace_parse(TraceOptions *opts, int argc, char **argv)
{
    enum { OPT_VARIANT = 256, OPT_INPUT, OPT_D_OUT, OPT_QKV_BIAS, OPT_SEED, OPT_TOKEN,
           OPT_PRECISION };
    static const struct option LONG_OPTS[] = {
        {"variant", required_argument, NULL, OPT_VARIANT},
        {"input", required_argument, NULL, OPT_INPUT},
        {"d-out", required_argument, NULL, OPT_D_OUT},
        {"qkv-bias", no_argument, NULL, OPT_QKV_BIAS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"token", required_argument, NULL, OPT_TOKEN},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *opts = (TraceOptions){.variant = SELFATTN_V1, .d_out = -1, .token = 2, .precision = 4};
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
            break;
        }
        case OPT_INPUT:
            opts->input = optarg;
            break;
        case OPT_D_OUT:
            if ((rc = cli_parse_long("trace", "--d-out", optarg, 1, MATRIX_MAX_DIM, &opts->d_out)))
                return rc;
            break;
        case OPT_QKV_BIAS:
            opts->qkv_bias = 1;
            break;
        case OPT_SEED:
            if ((rc = cli_parse_u64("trace", "--seed", optarg, &opts->seed)))
                return rc;
            opts->seed_given = 1;
            break;
        case OPT_TOKEN:
            if ((rc = cli_parse_long("trace", "--token", optarg, 1, MATRIX_MAX_DIM, &opts->token)))
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
    if (optind < argc)
        return cli_usage_error("trace", "unexpected argument '%s'", argv[optind]);
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

int cli_trace(int argc, char **argv)
{
    TraceOptions opts;
    int code = trace_parse(&opts, argc, argv);
    if (code != 0)
        return code < 0 ? TT_EXIT_OK : code;

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
