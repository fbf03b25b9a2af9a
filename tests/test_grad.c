/*
 * test_grad.c — every backward pass against central differences of its forward pass.
 *
 * Method. For a layer y = f(inputs, parameters) and a fixed random r of y's shape, the
 * scalar L = Σ r ⊙ y (summed in double) has ∂L/∂x = the layer's backward pass with
 * dout = r, and every output element takes part. Each entry x of every input and every
 * parameter is compared with
 *     n = (L(x⁺) − L(x⁻)) / (x⁺ − x⁻),   x± = (float)(x ± h·max(1, |x|)),
 * the denominator taken from the floats actually stored, so the rounding of x ± h does not
 * count as error. Backward passes accumulate, so their gradient buffers start from random
 * values and the analytic gradient is (after − before); entries the forward pass ignores
 * (padding columns of strided views, rows of unused ids) must come out exactly 0.
 *
 * Tolerances. The forward passes are float32: L carries a rounding error δ of a few
 * float ulps of its terms (≈ 1e-6 here), which the difference divides by 2h, while the
 * truncation error of a central difference grows as h²·|L'''|/6. Nonlinear layers use
 * h = 1e-2, where δ/2h ≈ 5e-5 and truncation stays below 1e-3 relative, and an entry
 * passes when
 *     |a − n| ≤ atol + rtol · max(|a|, |n|),   rtol 1e-2, atol 1e-3;
 * the worst entry seen uses 6% of that (LayerNorm's dx). Where L is linear in the entry
 * (a weight of a Linear layer, LayerNorm's w and b, the values of attention, embeddings)
 * there is no truncation error, so h = 1e-1 shrinks δ/2h and the limit is rtol 1e-4,
 * atol 1e-5 (worst seen: 5%). The whole model has a larger δ; see its test.
 * Every check prints its worst entry: the tensor, the index and both numbers.
 *
 * ReLU has a kink at 0, where a central difference is not a derivative: the layer and
 * whole-model tests move biases to clear the kinks (model_clear_kinks) and still skip,
 * and count, an entry whose step flips a ReLU.
 *
 * What is checked is what training runs: net.c's layers and the kernels under them, and
 * backprop.c's whole model (translation's cached decoder steps are the same net.c
 * decoder, held to the whole-batch pass by tests/test_transformer.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/status.h"
#include "model/model.h"
#include "nn/attention.h"
#include "nn/layers.h"
#include "nn/net.h"
#include "testutil.h"
#include "train/backprop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * The finite-difference checker
 */

/* The scalar objective L of a check, evaluated at the current values of its inputs. */
typedef double (*Objective)(void *ctx);

typedef struct {
    double h;    /* relative step: x ± h·max(1, |x|) */
    double rtol; /* an entry passes when |a − n| <= atol + rtol·max(|a|, |n|) */
    double atol;
} FdConfig;

/* The nonlinear layers: see the file comment. */
static const FdConfig FD_NONLINEAR = {1e-2, 1e-2, 1e-3};
/* Linear in the perturbed entry: the difference is exact but for float32 rounding. */
static const FdConfig FD_LINEAR = {1e-1, 1e-4, 1e-5};

/* The worst entry of one tensor's check. */
typedef struct {
    const char *what;
    size_t n;           /* entries compared */
    double worst;       /* max |a − n| / (atol + rtol·max(|a|, |n|)); > 1 fails */
    size_t at;          /* index of that entry */
    double a_at, n_at;  /* its analytic and numeric values */
    double max_abs;     /* max |a − n| */
    double max_rel;     /* max |a − n| / max(|a|, |n|) over entries larger than atol */
} FdReport;

static FdReport fd_report(const char *what)
{
    FdReport r = {what, 0, 0.0, 0, 0.0, 0.0, 0.0, 0.0};
    return r;
}

/* The central difference of f by x[i]; x[i] is restored bit for bit. */
static double fd_derivative(Objective f, void *ctx, float *x, size_t i, double h)
{
    const float x0 = x[i];
    const double step = h * fmax(1.0, fabs((double)x0));
    const float xp = (float)((double)x0 + step), xm = (float)((double)x0 - step);
    x[i] = xp;
    const double fp = f(ctx);
    x[i] = xm;
    const double fm = f(ctx);
    x[i] = x0;
    return (fp - fm) / ((double)xp - (double)xm);
}

static void fd_note(FdReport *r, const FdConfig *c, size_t i, double a, double n)
{
    const double diff = fabs(a - n), big = fmax(fabs(a), fabs(n));
    double score = diff / (c->atol + c->rtol * big);
    if (isnan(score))
        score = INFINITY;
    r->n++;
    if (diff > r->max_abs || isnan(diff))
        r->max_abs = isnan(diff) ? INFINITY : diff;
    if (big > c->atol && diff / big > r->max_rel)
        r->max_rel = diff / big;
    if (score > r->worst || r->n == 1) {
        r->worst = score;
        r->at = i;
        r->a_at = a;
        r->n_at = n;
    }
}

/* Prints the report's line and returns 1 when every entry passed. */
static int fd_finish(const FdReport *r, const FdConfig *c)
{
    const int ok = r->worst <= 1.0;
    char line[320];
    snprintf(line, sizeof line,
             "%-44s %4zu entries, max |a-n| %.2e, max rel %.2e; worst [%zu] analytic %+.6e "
             "numeric %+.6e (%.2f of rtol %.0e atol %.0e)\n",
             r->what, r->n, r->max_abs, r->max_rel, r->at, r->a_at, r->n_at, r->worst, c->rtol,
             c->atol);
    if (ok)
        print_message("%s", line);
    else
        print_error("FAIL %s", line);
    return ok;
}

/* Checks every entry of x (n floats) against the gradient after − before that the
 * backward pass added. Returns 1 when all pass. */
static int fd_check(const char *what, const FdConfig *c, Objective f, void *ctx, float *x,
                    const float *after, const float *before, size_t n)
{
    FdReport r = fd_report(what);
    for (size_t i = 0; i < n; i++) {
        const double a = (double)after[i] - (double)before[i];
        fd_note(&r, c, i, a, fd_derivative(f, ctx, x, i, c->h));
    }
    return fd_finish(&r, c);
}

/* ---------------------------------------------------------------------------------------
 * Helpers
 */

static float *rand_array(Rng *rng, size_t n, float lo, float hi)
{
    float *x = malloc(sizeof(float) * (n ? n : 1));
    assert_non_null(x);
    rng_fill_uniform(rng, x, n, lo, hi);
    return x;
}

static float *copy_array(const float *x, size_t n)
{
    float *y = malloc(sizeof(float) * (n ? n : 1));
    assert_non_null(y);
    memcpy(y, x, sizeof(float) * n);
    return y;
}

/* Σ r ⊙ y over a (rows, cols) block of two strided matrices, in double. */
static double weighted_sum(const float *r, int ld_r, const float *y, int ld_y, int rows, int cols)
{
    double s = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            s += (double)r[(size_t)i * ld_r + j] * (double)y[(size_t)i * ld_y + j];
    return s;
}

/* ---------------------------------------------------------------------------------------
 * kernel_matmul_nt
 */

typedef struct {
    float *x, *w, *b, *r, *out;
    int M, K, N;
} MatmulCase;

static double matmul_objective(void *p)
{
    MatmulCase *c = p;
    kernel_matmul_nt(c->out, c->x, c->w, c->b, c->M, c->K, c->N);
    return weighted_sum(c->r, c->N, c->out, c->N, c->M, c->N);
}

/* The backward pass of y = x·wᵀ + b as net.c's Linear layers take it: dx += dy·w, dw in
 * blocks of output features += dyᵀ·x, db += Σ dy. */
static void linear_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                            const float *w, int M, int K, int N, int block)
{
    kernel_matmul_acc(dx, dy, w, M, N, K);
    for (int n0 = 0; n0 < N; n0 += block) {
        const int nn = N - n0 < block ? N - n0 : block;
        kernel_matmul_tn_acc(dw + (size_t)n0 * K, dy + n0, N, x, M, nn, K);
    }
    kernel_colsum_acc(db, dy, N, M, N);
}

/* The Linear layer's backward pass adds dx, dw, db of y = x·wᵀ + b (kernel_matmul_nt);
 * dw computed in blocks of output features is the same to the bit as in one. */
static void test_grad_matmul_nt(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 11);
    const int M = 3, K = 5, N = 4;
    MatmulCase c = {rand_array(&rng, (size_t)M * K, -1, 1), rand_array(&rng, (size_t)N * K, -1, 1),
                    rand_array(&rng, (size_t)N, -1, 1), rand_array(&rng, (size_t)M * N, -1, 1),
                    rand_array(&rng, (size_t)M * N, 0, 0), M, K, N};
    float *dx0 = rand_array(&rng, (size_t)M * K, -1, 1), *dx = copy_array(dx0, (size_t)M * K);
    float *dw0 = rand_array(&rng, (size_t)N * K, -1, 1), *dw = copy_array(dw0, (size_t)N * K);
    float *db0 = rand_array(&rng, (size_t)N, -1, 1), *db = copy_array(db0, (size_t)N);
    linear_backward(dx, dw, db, c.r, c.x, c.w, M, K, N, N);

    int ok = 1;
    ok &= fd_check("matmul_nt dx", &FD_LINEAR, matmul_objective, &c, c.x, dx, dx0, (size_t)M * K);
    ok &= fd_check("matmul_nt dw", &FD_LINEAR, matmul_objective, &c, c.w, dw, dw0, (size_t)N * K);
    ok &= fd_check("matmul_nt db", &FD_LINEAR, matmul_objective, &c, c.b, db, db0, (size_t)N);

    /* dw in blocks of 3 and 1 output features, as threads split it: the same bits. */
    float *dx_b = copy_array(dx0, (size_t)M * K), *dw_b = copy_array(dw0, (size_t)N * K);
    float *db_b = copy_array(db0, (size_t)N);
    linear_backward(dx_b, dw_b, db_b, c.r, c.x, c.w, M, K, N, 3);
    assert_memory_equal(dw_b, dw, sizeof(float) * (size_t)N * K);

    free(db_b), free(dw_b), free(dx_b);
    free(db), free(db0), free(dw), free(dw0), free(dx), free(dx0);
    free(c.out), free(c.r), free(c.b), free(c.w), free(c.x);
    assert_true(ok);
}

/* ---------------------------------------------------------------------------------------
 * LayerNorm
 */

typedef struct {
    float *x, *w, *b, *r, *out;
    int N, D;
    float eps;
} NormCase;

static double norm_objective(void *p)
{
    NormCase *c = p;
    layers_norm_forward(c->out, c->x, c->w, c->b, c->N, c->D, c->eps);
    return weighted_sum(c->r, c->D, c->out, c->D, c->N, c->D);
}

/* layers_norm_backward_dx and layers_norm_backward_params add dx, dw, db of LayerNorm, from
 * layers_norm_forward_cache's stats; the parameters' columns in two ranges, as threads split
 * them. */
static void test_grad_layernorm(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 12);
    const int N = 4, D = 16;
    NormCase c = {rand_array(&rng, (size_t)N * D, -1, 1), rand_array(&rng, (size_t)D, 0.5f, 1.5f),
                  rand_array(&rng, (size_t)D, -0.5f, 0.5f), rand_array(&rng, (size_t)N * D, -1, 1),
                  rand_array(&rng, (size_t)N * D, 0, 0), N, D, 1e-5f};
    /* Rows of different means and spreads, as a residual stream has. */
    for (int i = 0; i < N; i++)
        for (int k = 0; k < D; k++)
            c.x[i * D + k] = c.x[i * D + k] * (0.5f + (float)i) + 0.3f * (float)(i - 1);
    float mean[4], rstd[4];
    float *out = rand_array(&rng, (size_t)N * D, 0, 0);
    layers_norm_forward_cache(out, mean, rstd, c.x, c.w, c.b, N, D, c.eps);
    float *dx0 = rand_array(&rng, (size_t)N * D, -1, 1), *dx = copy_array(dx0, (size_t)N * D);
    float *dw0 = rand_array(&rng, (size_t)D, -1, 1), *dw = copy_array(dw0, (size_t)D);
    float *db0 = rand_array(&rng, (size_t)D, -1, 1), *db = copy_array(db0, (size_t)D);
    layers_norm_backward_dx(dx, c.r, c.x, c.w, mean, rstd, N, D);
    layers_norm_backward_params(dw, db, c.r, c.x, mean, rstd, N, D, 0, 5);
    layers_norm_backward_params(dw, db, c.r, c.x, mean, rstd, N, D, 5, D);

    int ok = 1;
    ok &= fd_check("layernorm dx", &FD_NONLINEAR, norm_objective, &c, c.x, dx, dx0, (size_t)N * D);
    ok &= fd_check("layernorm dw", &FD_LINEAR, norm_objective, &c, c.w, dw, dw0, (size_t)D);
    ok &= fd_check("layernorm db", &FD_LINEAR, norm_objective, &c, c.b, db, db0, (size_t)D);

    free(db), free(db0), free(dw), free(dw0), free(dx), free(dx0), free(out);
    free(c.out), free(c.r), free(c.b), free(c.w), free(c.x);
    assert_true(ok);
}

/* LayerNorm's forward pass, one row at a time, as docs/model.md states it: the mean and
 * the variance summed in double in order, then each output in float. */
static void layernorm_reference(float *out, float *mean, float *rstd, const float *x,
                                const float *w, const float *b, int N, int D, float eps)
{
    for (int i = 0; i < N; i++) {
        const float *xi = x + (size_t)i * D;
        double mu = 0.0, var = 0.0;
        for (int k = 0; k < D; k++)
            mu += xi[k];
        mu /= D;
        for (int k = 0; k < D; k++) {
            const double d = xi[k] - mu;
            var += d * d;
        }
        const double r = 1.0 / sqrt(var / D + (double)eps);
        for (int k = 0; k < D; k++)
            out[(size_t)i * D + k] = (float)((xi[k] - mu) * r) * w[k] + b[k];
        mean[i] = (float)mu;
        rstd[i] = (float)r;
    }
}

/* layers_norm_forward_cache takes rows eight and sixteen at a time (layers.c): every row's
 * bits are the one-row reference's, whatever the rows around it, for widths that are and
 * are not multiples of eight and one past the width the grouped rows take. */
static void test_layernorm_rows_bits(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 29);
    const int Ns[] = {1, 7, 8, 9, 16, 17, 24, 37}, Ds[] = {128, 100, 3, 257};
    for (size_t di = 0; di < sizeof Ds / sizeof Ds[0]; di++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
            const int N = Ns[ni], D = Ds[di];
            float *x = rand_array(&rng, (size_t)N * D, -2, 2);
            float *w = rand_array(&rng, (size_t)D, 0.5f, 1.5f);
            float *b = rand_array(&rng, (size_t)D, -0.5f, 0.5f);
            for (int i = 0; i < N; i++) /* rows of different means and spreads */
                for (int k = 0; k < D; k++)
                    x[(size_t)i * D + k] = x[(size_t)i * D + k] * (0.25f + 0.5f * (float)i) +
                                           0.7f * (float)(i % 5 - 2);
            float *out = rand_array(&rng, (size_t)N * D, 0, 0);
            float *ref = rand_array(&rng, (size_t)N * D, 0, 0);
            float mean[37], rstd[37], rmean[37], rrstd[37];
            layers_norm_forward_cache(out, mean, rstd, x, w, b, N, D, 1e-5f);
            layernorm_reference(ref, rmean, rrstd, x, w, b, N, D, 1e-5f);
            if (memcmp(out, ref, sizeof(float) * (size_t)N * D) != 0 ||
                memcmp(mean, rmean, sizeof(float) * (size_t)N) != 0 ||
                memcmp(rstd, rrstd, sizeof(float) * (size_t)N) != 0)
                fail_msg("layernorm rows %d × %d: not the one-row reference's bits", N, D);
            layers_norm_forward(out, x, w, b, N, D, 1e-5f);
            if (memcmp(out, ref, sizeof(float) * (size_t)N * D) != 0)
                fail_msg("layers_norm_forward %d × %d: not the reference's bits", N, D);
            free(ref), free(out), free(b), free(w), free(x);
        }
}

/* ---------------------------------------------------------------------------------------
 * Embeddings
 */

typedef struct {
    float *table, *pe, *r, *out;
    const int *ids, *len;
    int B, T;
    NetCtx ctx;
} EmbedCase;

static double embed_objective(void *p)
{
    EmbedCase *c = p;
    net_embed_forward(c->out, NULL, c->table, c->pe, c->ids, c->len, c->B, c->T, &c->ctx);
    return weighted_sum(c->r, c->ctx.D, c->out, c->ctx.D, c->B * c->T, c->ctx.D);
}

/* net_embed_backward adds √D·dout to the rows of the ids used (twice for a repeated id,
 * in either sentence of a padded batch), and nothing to the other rows: not the unused
 * ids, not the ids under the padding. */
static void test_grad_embed(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 14);
    enum { V = 7, D = 4, B = 2, T = 3, MAXLEN = 8 };
    /* Sentence 1 has two positions; its third row is padding, over id 5. */
    static const int IDS[B * T] = {3, 1, 3, 6, 0, 5}, LEN[B] = {3, 2};
    EmbedCase c = {rand_array(&rng, (size_t)V * D, -1, 1),
                   rand_array(&rng, (size_t)MAXLEN * D, -1, 1),
                   rand_array(&rng, (size_t)B * T * D, -1, 1),
                   rand_array(&rng, (size_t)B * T * D, 0, 0),
                   IDS, LEN, B, T, {.D = D}};
    float *dt0 = rand_array(&rng, (size_t)V * D, -1, 1), *dt = copy_array(dt0, (size_t)V * D);
    net_embed_backward(dt, c.r, NULL, IDS, LEN, B, T, &c.ctx);

    int ok = fd_check("embed dtable", &FD_LINEAR, embed_objective, &c, c.table, dt, dt0,
                      (size_t)V * D);
    /* Ids 2, 4 and 5 are not used by a real position: their rows are untouched to the bit. */
    static const int UNUSED[] = {2, 4, 5};
    for (size_t u = 0; u < sizeof UNUSED / sizeof UNUSED[0]; u++)
        assert_memory_equal(dt + UNUSED[u] * D, dt0 + UNUSED[u] * D, sizeof(float) * D);

    free(dt), free(dt0);
    free(c.out), free(c.r), free(c.pe), free(c.table);
    assert_true(ok);
}

/* ---------------------------------------------------------------------------------------
 * One attention head, over strided views
 */

typedef struct {
    AttnShape shape;
    int ld_q, ld_k, ld_v, ld_ctx, ld_r;
    float *q, *k, *v, *ctx, *weights, *r;
} HeadCase;

static double head_objective(void *p)
{
    HeadCase *c = p;
    AttnView q = {c->q, c->ld_q}, k = {c->k, c->ld_k}, v = {c->v, c->ld_v};
    int rc = attention_head_forward(c->ctx, c->ld_ctx, c->weights, NULL, q, k, v, &c->shape);
    assert_int_equal(rc, TT_OK);
    return weighted_sum(c->r, c->ld_r, c->ctx, c->ld_ctx, c->shape.Tq, c->shape.dv);
}

/* attention_head_backward adds dq, dk, dv: self-attention with and without the causal
 * mask, a causal block of queries at q_pos > 0, and cross-attention with Tq ≠ Tk. Every
 * view is strided; padding columns get nothing, and the padding of dctx is never read. */
static void test_grad_attention_head(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int Tq, Tk, dk, dv, causal, q_pos;
    } CASES[] = {
        {"self", 4, 4, 5, 3, 0, 0},
        {"self causal", 5, 5, 4, 4, 1, 0},
        {"causal, queries at 3..5", 3, 6, 4, 3, 1, 3},
        {"cross", 3, 5, 4, 6, 0, 0},
    };
    Rng rng;
    rng_seed(&rng, 15);
    int ok = 1;
    for (size_t t = 0; t < sizeof CASES / sizeof CASES[0]; t++) {
        const int Tq = CASES[t].Tq, Tk = CASES[t].Tk, dk = CASES[t].dk, dv = CASES[t].dv;
        HeadCase c;
        c.shape = (AttnShape){.Tq = Tq, .Tk = Tk, .dk = dk, .dv = dv,
                              .scale = 1.0f / sqrtf((float)dk), .causal = CASES[t].causal,
                              .q_pos = CASES[t].q_pos};
        c.ld_q = dk + 2, c.ld_k = dk + 1, c.ld_v = dv + 3, c.ld_ctx = dv + 2, c.ld_r = dv + 1;
        const size_t nq = (size_t)Tq * c.ld_q, nk = (size_t)Tk * c.ld_k, nv = (size_t)Tk * c.ld_v;
        /* Spread ±2 so the softmax rows are far from uniform. */
        c.q = rand_array(&rng, nq, -2, 2);
        c.k = rand_array(&rng, nk, -2, 2);
        c.v = rand_array(&rng, nv, -1, 1);
        c.ctx = rand_array(&rng, (size_t)Tq * c.ld_ctx, 0, 0);
        c.weights = rand_array(&rng, (size_t)Tq * Tk, 0, 0);
        c.r = rand_array(&rng, (size_t)Tq * c.ld_r, -1, 1);
        for (int i = 0; i < Tq; i++)
            c.r[(size_t)i * c.ld_r + dv] = NAN; /* dctx padding: must not be read */
        head_objective(&c);

        /* The gradients use their own strides, unlike the inputs'. */
        const int ld_dq = dk + 3, ld_dk = dk + 2, ld_dv = dv + 1;
        float *dq0 = rand_array(&rng, (size_t)Tq * ld_dq, -1, 1);
        float *dk0 = rand_array(&rng, (size_t)Tk * ld_dk, -1, 1);
        float *dv0 = rand_array(&rng, (size_t)Tk * ld_dv, -1, 1);
        float *dq = copy_array(dq0, (size_t)Tq * ld_dq), *dkk = copy_array(dk0, (size_t)Tk * ld_dk);
        float *dvv = copy_array(dv0, (size_t)Tk * ld_dv);
        float *dscores = rand_array(&rng, (size_t)Tq * Tk, -1, 1);
        AttnView q = {c.q, c.ld_q}, k = {c.k, c.ld_k}, v = {c.v, c.ld_v}, g = {c.r, c.ld_r};
        attention_head_backward(dq, ld_dq, dkk, ld_dk, dvv, ld_dv, dscores, g, c.weights, q, k, v,
                                &c.shape);

        /* Repack the gradients to the inputs' strides (padding: zero gradient). */
        float *gq = calloc(nq, sizeof(float)), *gk = calloc(nk, sizeof(float));
        float *gv = calloc(nv, sizeof(float)), *zq = calloc(nq, sizeof(float));
        float *zk = calloc(nk, sizeof(float)), *zv = calloc(nv, sizeof(float));
        assert_true(gq && gk && gv && zq && zk && zv);
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < ld_dq; j++) {
                float d = dq[i * ld_dq + j] - dq0[i * ld_dq + j];
                if (j < dk)
                    gq[i * c.ld_q + j] = d;
                else
                    assert_true(d == 0.0f);
            }
        for (int i = 0; i < Tk; i++) {
            for (int j = 0; j < ld_dk; j++) {
                float d = dkk[i * ld_dk + j] - dk0[i * ld_dk + j];
                if (j < dk)
                    gk[i * c.ld_k + j] = d;
                else
                    assert_true(d == 0.0f);
            }
            for (int j = 0; j < ld_dv; j++) {
                float d = dvv[i * ld_dv + j] - dv0[i * ld_dv + j];
                if (j < dv)
                    gv[i * c.ld_v + j] = d;
                else
                    assert_true(d == 0.0f);
            }
        }
        /* The repacked difference was rounded to float once: the checks allow for it, being
         * far above float's 6e-8 relative rounding. */
        char name[3][96];
        snprintf(name[0], sizeof name[0], "attention head dq (%s)", CASES[t].name);
        snprintf(name[1], sizeof name[1], "attention head dk (%s)", CASES[t].name);
        snprintf(name[2], sizeof name[2], "attention head dv (%s)", CASES[t].name);
        ok &= fd_check(name[0], &FD_NONLINEAR, head_objective, &c, c.q, gq, zq, nq);
        ok &= fd_check(name[1], &FD_NONLINEAR, head_objective, &c, c.k, gk, zk, nk);
        ok &= fd_check(name[2], &FD_LINEAR, head_objective, &c, c.v, gv, zv, nv);

        free(zv), free(zk), free(zq), free(gv), free(gk), free(gq);
        free(dscores), free(dvv), free(dkk), free(dq), free(dv0), free(dk0), free(dq0);
        free(c.r), free(c.weights), free(c.ctx), free(c.v), free(c.k), free(c.q);
    }
    assert_true(ok);
}

/* ---------------------------------------------------------------------------------------
 * Multi-head attention
 */

enum { MHA_WQ, MHA_WK, MHA_WV, MHA_WO, MHA_BQ, MHA_BK, MHA_BV, MHA_BO, MHA_N_TENSORS };
static const char *const MHA_NAMES[MHA_N_TENSORS] = {
    "w_query", "w_key", "w_value", "w_out", "b_query", "b_key", "b_value", "b_out",
};

/* net.c's attention block, the one every encoder and decoder layer runs, for B
 * sentences of Tq query and Tk key rows, lq[b] and lk[b] of them real. */
typedef struct {
    MhaWeights w;
    NetMha m;
    NetCtx ctx;
    float *xq, *xkv, *r, *out;
    int B;
} MhaCase;

static double mha_objective(void *p)
{
    MhaCase *c = p;
    net_mha_forward(c->out, &c->m, c->xq, c->xkv, c->B, NULL, &c->ctx);
    const int D = c->w.d_model;
    return weighted_sum(c->r, D, c->out, D, c->B * c->m.Tq, D);
}

/* Offsets of the eight tensors in one block: four (D, D) matrices, then four (D) biases. */
static size_t mha_offset(int t, int D)
{
    return t < MHA_BQ ? (size_t)t * D * D : (size_t)4 * D * D + (size_t)(t - MHA_BQ) * D;
}

/* Checks net_mha_backward for B sentences, xq of Tq rows and xkv of Tk rows each (self:
 * the same buffer, and the same buffer for dxq and dxkv), lq[b] and lk[b] of them real.
 * dxq is written, so its "before" is 0 (the buffer starts random all the same); dxkv
 * and the weight gradients are added to. Rows of padding get exactly nothing. Returns 1
 * when every tensor passes. */
static int check_mha(Rng *rng, const char *label, int self, int B, int Tq, int Tk,
                     const int *lq, const int *lk, int causal)
{
    const int D = 8, H = 2, R = Tq > Tk ? Tq : Tk;
    const size_t nblock = (size_t)4 * D * D + (size_t)4 * D;
    const size_t nq = (size_t)B * Tq * D, nk = (size_t)B * Tk * D;
    float *p = rand_array(rng, nblock, -0.5f, 0.5f);
    float *g0 = rand_array(rng, nblock, -1, 1), *g = copy_array(g0, nblock);
    MhaCase c;
    memset(&c, 0, sizeof c);
    c.w = (MhaWeights){D, H, p + mha_offset(MHA_WQ, D), p + mha_offset(MHA_WK, D),
                       p + mha_offset(MHA_WV, D), p + mha_offset(MHA_BQ, D),
                       p + mha_offset(MHA_BK, D), p + mha_offset(MHA_BV, D),
                       p + mha_offset(MHA_WO, D), p + mha_offset(MHA_BO, D)};
    MhaWeights mg = {D, H, g + mha_offset(MHA_WQ, D), g + mha_offset(MHA_WK, D),
                     g + mha_offset(MHA_WV, D), g + mha_offset(MHA_BQ, D),
                     g + mha_offset(MHA_BK, D), g + mha_offset(MHA_BV, D),
                     g + mha_offset(MHA_WO, D), g + mha_offset(MHA_BO, D)};
    c.B = B;
    c.ctx = (NetCtx){.D = D, .H = H, .eps = 1e-5f};
    c.m = (NetMha){.w = &c.w, .g = &mg, .lq = lq, .lk = lk, .Tq = Tq, .Tk = Tk,
                   .causal = causal};
    c.m.q = rand_array(rng, nq, 0, 0);
    c.m.k = rand_array(rng, nk, 0, 0);
    c.m.v = rand_array(rng, nk, 0, 0);
    c.m.att = rand_array(rng, (size_t)B * H * Tq * Tk, 0, 0);
    c.m.ctx = rand_array(rng, nq, 0, 0);
    NetScratch s = {.dq = rand_array(rng, (size_t)B * R * D, 0, 0),
                    .dk = rand_array(rng, (size_t)B * R * D, 0, 0),
                    .dv = rand_array(rng, (size_t)B * R * D, 0, 0),
                    .dctx = rand_array(rng, (size_t)B * R * D, 0, 0),
                    .dscores = rand_array(rng, (size_t)B * H * Tq * Tk, 0, 0)};
    /* Inputs of ±2 through weights of ±0.5 give scores of a few units: peaked softmax. */
    c.xq = rand_array(rng, nq, -2, 2);
    c.xkv = self ? c.xq : rand_array(rng, nk, -2, 2);
    c.r = rand_array(rng, nq, -1, 1);
    c.out = rand_array(rng, nq, 0, 0);
    mha_objective(&c);

    float *zero = rand_array(rng, nq, 0, 0), *dxq = rand_array(rng, nq, -1, 1);
    float *dxkv0 = self ? zero : rand_array(rng, nk, -1, 1);
    float *dxkv = self ? dxq : copy_array(dxkv0, nk);
    net_mha_backward(dxq, dxkv, &s, c.r, &c.m, c.xq, c.xkv, B, &c.ctx);

    /* Padding rows: exactly nothing, not merely small. */
    for (int b = 0; b < B; b++) {
        for (int t = lq[b]; t < Tq; t++)
            for (int k = 0; k < D; k++)
                assert_true(dxq[((size_t)b * Tq + t) * D + k] == 0.0f);
        for (int t = lk[b]; t < Tk; t++)
            for (int k = 0; k < D; k++) {
                const size_t i = ((size_t)b * Tk + t) * D + k;
                assert_true(dxkv[i] == dxkv0[i]);
            }
    }
    int ok = 1;
    char name[96];
    for (int t = 0; t < MHA_N_TENSORS; t++) {
        const size_t off = mha_offset(t, D), n = t < MHA_BQ ? (size_t)D * D : (size_t)D;
        snprintf(name, sizeof name, "mha %s (%s)", MHA_NAMES[t], label);
        /* b_out and b_value enter linearly (softmax rows sum to 1). */
        const FdConfig *cfg = t == MHA_BO || t == MHA_BV ? &FD_LINEAR : &FD_NONLINEAR;
        ok &= fd_check(name, cfg, mha_objective, &c, p + off, g + off, g0 + off, n);
    }
    snprintf(name, sizeof name, "mha dxq%s (%s)", self ? " = dxkv" : "", label);
    ok &= fd_check(name, &FD_NONLINEAR, mha_objective, &c, c.xq, dxq, zero, nq);
    if (!self) {
        snprintf(name, sizeof name, "mha dxkv (%s)", label);
        ok &= fd_check(name, &FD_NONLINEAR, mha_objective, &c, c.xkv, dxkv, dxkv0, nk);
        free(dxkv), free(dxkv0), free(c.xkv);
    }
    free(dxq), free(zero), free(c.out), free(c.r), free(c.xq);
    free(s.dscores), free(s.dctx), free(s.dv), free(s.dk), free(s.dq);
    free(c.m.ctx), free(c.m.att), free(c.m.v), free(c.m.k), free(c.m.q);
    free(g), free(g0), free(p);
    return ok;
}

/* net_mha_backward adds every weight and bias gradient and writes dx of causal
 * self-attention, where dxq and dxkv are one buffer. */
static void test_grad_mha_self_causal(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 16);
    static const int len[1] = {5};
    assert_true(check_mha(&rng, "self, causal", 1, 1, 5, 5, len, len, 1));
}

/* net_mha_backward adds every weight and bias gradient, writes dxq and adds dxkv of
 * cross-attention with Tq ≠ Tk. */
static void test_grad_mha_cross(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 17);
    static const int lq[1] = {3}, lk[1] = {5};
    assert_true(check_mha(&rng, "cross", 0, 1, 3, 5, lq, lk, 0));
}

/* The same in a padded batch: causal self-attention of sentences of 4 and 2 of 4 rows,
 * and cross-attention of 3 and 1 queries of 3 on 2 and 5 keys of 5, as training has them
 * (tests/test_backprop.c shows a batch's gradient is its sentences' sum). */
static void test_grad_mha_padded_batch(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 18);
    static const int self_len[2] = {4, 2}, lq[2] = {3, 1}, lk[2] = {2, 5};
    assert_true(check_mha(&rng, "self, causal, padded", 1, 2, 4, 4, self_len, self_len, 1));
    assert_true(check_mha(&rng, "cross, padded", 0, 2, 3, 5, lq, lk, 0));
}

/* ---------------------------------------------------------------------------------------
 * The batched layers (net.h) over a padded batch of three sentences
 */

/* Source and target lengths of the batch: each sentence padded somewhere. */
static const int LAYER_SRC_LEN[] = {5, 2, 4};
static const int LAYER_TGT_LEN[] = {3, 6, 1};
enum { LAYER_B = 3, LAYER_S = 5, LAYER_T = 6 };

typedef struct {
    Model m;
    NetActs acts;
    NetCtx ctx;
    NetBatch nb;
    int dec;            /* 0: encoder layer 0; 1: decoder layer 0; 2: the head */
    int rows;           /* B·S or B·T */
    const int *len;     /* the lengths of the checked side */
    int stride;         /* S or T */
    float *in;          /* (rows, D) the layer's input */
    float *memory;      /* (B·S, D) the decoder's memory */
    float *out;         /* (rows, D), or (rows, V) logits for the head */
    float *r;           /* (rows, D) weights of L; 0 in padding rows */
    int *labels;        /* (B·T) for the head */
    float *relu_base;   /* ReLU outputs of the unperturbed pass */
    int flipped;
    long tried;         /* entries compared or skipped */
} LayerCase;

static const float *layer_relu(const LayerCase *c)
{
    return c->dec == 0 ? c->acts.enc[0].ff : c->acts.dec[0].ff;
}

static double layer_objective(void *p)
{
    LayerCase *c = p;
    const int D = c->ctx.D;
    const ModelWeights *w = &c->m.w;
    if (c->dec == 2) {
        /* decoder.norm → generator → loss: L is the loss itself. */
        double loss[LAYER_B];
        net_norm_forward(c->acts.final_h, c->acts.final_st, c->in, w->dec_norm_w,
                         w->dec_norm_b, c->rows, &c->ctx);
        net_generator_forward(c->out, c->acts.final_h, w->gen_w, w->gen_b, c->rows, &c->ctx);
        net_xent_forward(loss, c->acts.lse, c->out, c->labels, &c->nb, 0.1f, &c->ctx);
        return loss[0] + loss[1] + loss[2];
    }
    if (c->dec) {
        memcpy(c->acts.dec[0].x, c->in, sizeof(float) * (size_t)c->rows * D);
        net_decoder_layer_forward(c->out, &c->acts.dec[0], c->memory, &w->dec[0], &c->nb, NULL, 0,
                                  &c->ctx);
    } else {
        memcpy(c->acts.enc[0].x, c->in, sizeof(float) * (size_t)c->rows * D);
        net_encoder_layer_forward(c->out, &c->acts.enc[0], &w->enc[0], &c->nb, &c->ctx);
    }
    /* A flip in a padding row changes nothing the loss sees. */
    const float *ff = layer_relu(c);
    const size_t F = (size_t)c->ctx.F;
    for (int b = 0; b < LAYER_B; b++)
        for (size_t i = (size_t)b * c->stride * F; i < ((size_t)b * c->stride + c->len[b]) * F; i++)
            if ((ff[i] > 0.0f) != (c->relu_base[i] > 0.0f))
                c->flipped = 1;
    return weighted_sum(c->r, D, c->out, D, c->rows, D);
}

static void layer_case_open(LayerCase *c, int dec, Rng *rng)
{
    char err[512];
    memset(c, 0, sizeof *c);
    assert_int_equal(model_load_file(&c->m, "tests/fixtures/tiny_bias.db", err, sizeof err),
                     TT_OK);
    /* Random weights of a larger scale than the fixture's, so that every path matters. */
    rng_fill_uniform(rng, c->m.params, c->m.n_params, -0.5f, 0.5f);
    assert_int_equal(net_acts_init(&c->acts, &c->m, LAYER_B, LAYER_S, LAYER_T, 0), TT_OK);
    const ModelConfig *cfg = &c->m.config;
    c->ctx = (NetCtx){.D = cfg->d_model, .H = cfg->n_heads, .F = cfg->d_ff,
                      .V = c->m.tgt_vocab.size, .eps = (float)cfg->layer_norm_eps};
    c->nb = (NetBatch){LAYER_B, LAYER_S, LAYER_T, LAYER_SRC_LEN, LAYER_TGT_LEN};
    c->dec = dec;
    c->len = dec ? LAYER_TGT_LEN : LAYER_SRC_LEN;
    c->stride = dec ? LAYER_T : LAYER_S;
    c->rows = LAYER_B * c->stride;
    const int D = cfg->d_model;
    c->in = rand_array(rng, (size_t)c->rows * D, -1.0f, 1.0f);
    c->memory = rand_array(rng, (size_t)LAYER_B * LAYER_S * D, -1.0f, 1.0f);
    c->out = malloc(sizeof(float) * (size_t)c->rows * (D > c->ctx.V ? D : c->ctx.V));
    c->r = rand_array(rng, (size_t)c->rows * D, -1.0f, 1.0f);
    c->labels = malloc(sizeof(int) * LAYER_B * LAYER_T);
    /* Zeroed: the first passes (layer_clear_kinks) compare against it before the
     * unperturbed pass fills it; each entry's check resets the flag anyway. */
    c->relu_base = calloc((size_t)c->rows * c->ctx.F, sizeof(float));
    assert_true(c->out && c->labels && c->relu_base);
    for (int i = 0; i < LAYER_B * LAYER_T; i++)
        c->labels[i] = (int)(rng_next_u32(rng) % (uint32_t)c->ctx.V);
    /* Padding rows: the loss weights them 0, as the loss's gradient is 0 there. */
    for (int b = 0; b < LAYER_B; b++)
        for (int t = c->len[b]; t < c->stride; t++)
            memset(c->r + ((size_t)b * c->stride + t) * D, 0, sizeof(float) * (size_t)D);
}

static double clear_shift(const double *pre, int n, double margin);

/* Moves each linear1 bias of the checked layer so that the ReLU inputs of every real row
 * stay 0.05 from 0 (see model_clear_kinks). */
static void layer_clear_kinks(LayerCase *c)
{
    if (c->dec == 2)
        return;
    layer_objective(c);
    const int D = c->ctx.D, F = c->ctx.F;
    const float *h = c->dec ? c->acts.dec[0].h3 : c->acts.enc[0].h2;
    const float *w1 = c->dec ? c->m.w.dec[0].lin1_w : c->m.w.enc[0].lin1_w;
    float *b1 = (float *)(c->dec ? c->m.w.dec[0].lin1_b : c->m.w.enc[0].lin1_b);
    double pre[LAYER_B * LAYER_T];
    for (int f = 0; f < F; f++) {
        int n = 0;
        for (int b = 0; b < LAYER_B; b++)
            for (int t = 0; t < c->len[b]; t++, n++) {
                const float *hr = h + ((size_t)b * c->stride + t) * D;
                pre[n] = b1[f];
                for (int k = 0; k < D; k++)
                    pre[n] += (double)hr[k] * w1[(size_t)f * D + k];
            }
        b1[f] = (float)(b1[f] + clear_shift(pre, n, 0.05));
    }
}

static void layer_case_close(LayerCase *c)
{
    free(c->relu_base);
    free(c->labels);
    free(c->r);
    free(c->out);
    free(c->memory);
    free(c->in);
    net_acts_free(&c->acts);
    model_free(&c->m);
}

/* Compares every entry of x (n floats) with the analytic gradient after − before (before
 * NULL: after alone), skipping entries whose step flips a ReLU; pad (n / D rows, or NULL)
 * marks rows whose gradient must be exactly 0. Returns 1 when all pass. */
static int layer_check(LayerCase *c, const char *what, const FdConfig *cfg, float *x,
                       const float *after, const float *before, size_t n,
                       const unsigned char *pad, int *skipped)
{
    FdReport r = fd_report(what);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        const double a = (double)after[i] - (before ? (double)before[i] : 0.0);
        if (pad && pad[i / (size_t)c->ctx.D]) {
            if (a != 0.0) {
                print_error("%s [%zu], a padding row: gradient %g, not 0\n", what, i, a);
                ok = 0;
            }
            continue;
        }
        c->flipped = 0;
        c->tried++;
        const double num = fd_derivative(layer_objective, c, x, i, cfg->h);
        if (c->flipped) {
            (*skipped)++;
            continue;
        }
        fd_note(&r, cfg, i, a, num);
    }
    return fd_finish(&r, cfg) && ok;
}

/* The padding rows of the checked side, one flag a row. */
static void layer_pad_rows(const LayerCase *c, unsigned char *pad)
{
    for (int b = 0; b < LAYER_B; b++)
        for (int t = 0; t < c->stride; t++)
            pad[b * c->stride + t] = t >= c->len[b];
}

/* Checks one layer's backward pass: the gradient by its input (exactly 0 in padding rows),
 * by the memory for the decoder, and by every weight of the layer. */
static int check_layer(int dec, uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    LayerCase c;
    layer_case_open(&c, dec, &rng);
    const int D = c.ctx.D;
    const size_t in_n = (size_t)c.rows * D, mem_n = (size_t)LAYER_B * LAYER_S * D;
    Model *m = &c.m;
    float *grads = rand_array(&rng, m->n_params, -1.0f, 1.0f);
    float *before = copy_array(grads, m->n_params);
    float *dmem = rand_array(&rng, mem_n, -1.0f, 1.0f);
    float *dmem_before = copy_array(dmem, mem_n);
    float *d = malloc(sizeof(float) * in_n);
    assert_non_null(d);
    ModelWeights gw;
    model_map(&gw, &m->config, m->specs, m->n_specs, grads);

    layer_clear_kinks(&c);
    layer_objective(&c);
    if (dec != 2)
        memcpy(c.relu_base, layer_relu(&c), sizeof(float) * (size_t)c.rows * c.ctx.F);
    if (dec == 2) {
        net_xent_backward(c.out, c.out, c.acts.lse, c.labels, &c.nb, 0.1f, &c.ctx);
        float *dh = calloc(in_n, sizeof(float));
        assert_non_null(dh);
        memset(d, 0, sizeof(float) * in_n);
        net_generator_backward(dh, (float *)gw.gen_w, (float *)gw.gen_b, c.out, c.acts.final_h,
                               m->w.gen_w, c.rows, &c.ctx);
        net_norm_backward(d, (float *)gw.dec_norm_w, (float *)gw.dec_norm_b, dh, c.in,
                          c.acts.final_st, m->w.dec_norm_w, c.rows, &c.ctx);
        free(dh);
    } else if (dec) {
        memcpy(d, c.r, sizeof(float) * in_n);
        net_decoder_layer_backward(d, dmem, &c.acts.s, &gw.dec[0], &c.acts.dec[0], c.memory,
                                   &m->w.dec[0], &c.nb, &c.ctx);
    } else {
        memcpy(d, c.r, sizeof(float) * in_n);
        net_encoder_layer_backward(d, &c.acts.s, &gw.enc[0], &c.acts.enc[0], &m->w.enc[0], &c.nb,
                                   &c.ctx);
    }

    unsigned char pad[LAYER_B * LAYER_T];
    layer_pad_rows(&c, pad);
    int ok = 1, skipped = 0;
    ok &= layer_check(&c, dec == 2 ? "head: dx" : dec ? "decoder layer: dx" : "encoder layer: dx",
                      &FD_NONLINEAR, c.in, d, NULL, in_n, pad, &skipped);
    if (dec == 1) {
        /* The memory's padding rows are keys no query sees. */
        unsigned char mpad[LAYER_B * LAYER_S];
        for (int b = 0; b < LAYER_B; b++)
            for (int t = 0; t < LAYER_S; t++)
                mpad[b * LAYER_S + t] = t >= LAYER_SRC_LEN[b];
        float *dm = malloc(sizeof(float) * mem_n);
        assert_non_null(dm);
        for (size_t i = 0; i < mem_n; i++)
            dm[i] = dmem[i] - dmem_before[i];
        ok &= layer_check(&c, "decoder layer: dmemory", &FD_NONLINEAR, c.memory, dm, NULL,
                          mem_n, mpad, &skipped);
        free(dm);
    }
    const char *prefix = dec == 2 ? "" : dec ? "decoder.layers.0." : "encoder.layers.0.";
    for (int s = 0; s < m->n_specs; s++) {
        const ParamSpec *p = &m->specs[s];
        const int head = strncmp(p->name, "decoder.norm", 12) == 0 ||
                         strncmp(p->name, "generator", 9) == 0;
        if (dec == 2 ? !head : strncmp(p->name, prefix, strlen(prefix)) != 0)
            continue;
        const size_t n = (size_t)p->rows * (p->cols ? p->cols : 1);
        ok &= layer_check(&c, p->name, &FD_NONLINEAR, m->params + p->offset,
                          grads + p->offset, before + p->offset, n, NULL, &skipped);
    }
    /* With weights of ±0.5 a step of 1e-2 carries a few ReLU inputs across 0; those
     * entries measure the kink, not the derivative. At most 5 % may be skipped. */
    print_message("%d of %ld entries skipped (a ReLU flipped)\n", skipped, c.tried);
    assert_true((long)skipped * 20 <= c.tried);
    free(d);
    free(dmem_before);
    free(dmem);
    free(before);
    free(grads);
    layer_case_close(&c);
    return ok;
}

/* net_encoder_layer_backward over a padded batch of three: every entry of the input and of
 * the layer's weights against central differences; padding rows get exactly 0. */
static void test_grad_encoder_layer(void **state)
{
    (void)state;
    assert_true(check_layer(0, 31));
}

/* net_decoder_layer_backward likewise, with the memory's gradient (padding keys get 0). */
static void test_grad_decoder_layer(void **state)
{
    (void)state;
    assert_true(check_layer(1, 32));
}

/* net_norm_backward, net_generator_backward and net_xent_backward: the decoder's head
 * from its residual stream to the loss, over the padded batch. */
static void test_grad_head(void **state)
{
    (void)state;
    assert_true(check_layer(2, 33));
}

/* ---------------------------------------------------------------------------------------
 * The whole model: backprop_forward, backprop_loss, backprop_backward
 */

/* A pair whose ids repeat and leave some rows of both embedding tables unused. */
static const int PAIR_SRC[] = {4, 7, 5, 7, 9, 12, 4};
static const int PAIR_TGT[] = {6, 4, 11, 6, 13, 5};
enum { PAIR_NSRC = 7, PAIR_NTGT = 6 };

typedef struct {
    Model m;
    Backprop bp;         /* a batch of the one pair */
    float label_smoothing;
    float *relu_base;   /* ReLU outputs of the unperturbed forward pass, layer by layer */
    size_t n_relu;
    int flipped;        /* set when a ReLU changed side since relu_base */
} ModelCase;

/* Copies (to) or compares with (from) every layer's ReLU outputs of the last forward pass;
 * returns 1 when one is on another side of 0 than in base. */
static int relu_walk(ModelCase *c, float *base, int copy)
{
    const NetActs *a = &c->bp.acts;
    const NetBatch *nb = &c->bp.nb;
    const size_t F = (size_t)c->m.config.d_ff;
    size_t at = 0;
    int flipped = 0;
    for (int l = 0; l < a->n_enc + a->n_dec; l++) {
        const float *ff = l < a->n_enc ? a->enc[l].ff : a->dec[l - a->n_enc].ff;
        const size_t n = (size_t)(l < a->n_enc ? nb->S : nb->T) * F;
        for (size_t i = 0; i < n; i++, at++) {
            if (copy)
                base[at] = ff[i];
            else if ((ff[i] > 0.0f) != (base[at] > 0.0f))
                flipped = 1;
        }
    }
    return flipped;
}

static double model_loss(ModelCase *c)
{
    double loss = 0.0;
    backprop_forward(&c->bp, 1);
    backprop_loss(&c->bp, c->label_smoothing, &loss);
    return loss;
}

static double model_objective(void *p)
{
    ModelCase *c = p;
    const double loss = model_loss(c);
    assert_true(loss >= 0.0);
    if (relu_walk(c, c->relu_base, 0))
        c->flipped = 1;
    return loss;
}

static void model_case_open(ModelCase *c, const char *path, float label_smoothing,
                            float dropout)
{
    char err[512];
    memset(c, 0, sizeof *c);
    int rc = model_load_file(&c->m, path, err, sizeof err);
    if (rc != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(backprop_init(&c->bp, &c->m, 1, PAIR_NSRC + 1, PAIR_NTGT + 1, dropout,
                                  NULL),
                     TT_OK);
    /* A fixed seed draws the same masks on every call, so with dropout the loss is still
     * one deterministic function of the weights. */
    const TrainPair pair = {PAIR_SRC, PAIR_NSRC, PAIR_TGT, PAIR_NTGT, 12345};
    assert_int_equal(backprop_set_batch(&c->bp, &pair, 1), TT_OK);
    c->label_smoothing = label_smoothing;
    const ModelConfig *cfg = &c->m.config;
    c->n_relu = (size_t)(cfg->n_encoder_layers + cfg->n_decoder_layers) * cfg->max_len *
                cfg->d_ff;
    c->relu_base = malloc(sizeof(float) * c->n_relu);
    assert_non_null(c->relu_base);
}

static void model_case_close(ModelCase *c)
{
    free(c->relu_base);
    backprop_free(&c->bp);
    model_free(&c->m);
}

/* The writable block entries of the tensor called name. */
static float *model_tensor(Model *m, const char *name)
{
    for (int i = 0; i < m->n_specs; i++)
        if (strcmp(m->specs[i].name, name) == 0)
            return m->params + m->specs[i].offset;
    print_error("no tensor %s\n", name);
    fail();
    return NULL;
}

/* The smallest shift s (by |s|) with |pre[i] + s| >= margin for all n values: 0 or an
 * edge of one of the forbidden intervals (−pre[i] − margin, −pre[i] + margin). */
static double clear_shift(const double *pre, int n, double margin)
{
    double best = INFINITY;
    for (int c = -1; c < 2 * n; c++) {
        const double s = c < 0 ? 0.0 : -pre[c / 2] + (c % 2 ? 1.01 : -1.01) * margin;
        int clear = 1;
        for (int i = 0; i < n && clear; i++)
            clear = fabs(pre[i] + s) >= margin;
        if (clear && fabs(s) < fabs(best))
            best = s;
    }
    return best;
}

/* With about 1000 ReLUs per pair, some input lies within 1e-3 of 0 (2.7e-4 in
 * tiny_bias.db), and a step of 1e-2 in almost any earlier parameter carries it across,
 * where a difference quotient measures the kink rather than the derivative. So, layer by
 * layer in the order of the forward pass, each unit's linear1 bias is moved by the least
 * amount that puts all its inputs for this pair at least margin from 0. The model stays a
 * model; its gradient is what is checked. */
static void model_clear_kinks(ModelCase *c, double margin)
{
    Model *m = &c->m;
    const ModelConfig *cfg = &m->config;
    const int D = cfg->d_model, F = cfg->d_ff;
    const int LE = cfg->n_encoder_layers, LD = cfg->n_decoder_layers;
    double pre[64];
    char name[MODEL_NAME_MAX];
    for (int l = 0; l < LE + LD; l++) {
        model_loss(c);
        const int enc = l < LE, layer = enc ? l : l - LE;
        const int rows = enc ? c->bp.nb.S : c->bp.nb.T;
        const float *h = enc ? c->bp.acts.enc[layer].h2 : c->bp.acts.dec[layer].h3;
        snprintf(name, sizeof name, "%s.layers.%d.linear1.weight", enc ? "encoder" : "decoder",
                 layer);
        const float *w1 = model_tensor(m, name);
        snprintf(name, sizeof name, "%s.layers.%d.linear1.bias", enc ? "encoder" : "decoder",
                 layer);
        float *b1 = model_tensor(m, name);
        assert_true(rows > 0 && rows <= (int)(sizeof pre / sizeof pre[0]));
        for (int f = 0; f < F; f++) {
            for (int i = 0; i < rows; i++) {
                pre[i] = b1[f];
                for (int k = 0; k < D; k++)
                    pre[i] += (double)h[(size_t)i * D + k] * w1[(size_t)f * D + k];
            }
            b1[f] = (float)(b1[f] + clear_shift(pre, rows, margin));
        }
    }
}

/* Which rows of an embedding table the pair uses: src ids and </s>, or <s> and tgt ids. */
static void used_rows(unsigned char *used, int V, int tgt)
{
    memset(used, 0, (size_t)V);
    if (tgt) {
        used[VOCAB_BOS] = 1;
        for (int i = 0; i < PAIR_NTGT; i++)
            used[PAIR_TGT[i]] = 1;
    } else {
        used[VOCAB_EOS] = 1;
        for (int i = 0; i < PAIR_NSRC; i++)
            used[PAIR_SRC[i]] = 1;
    }
}

/* How far model_clear_kinks puts every ReLU input from 0. */
static const double RELU_MARGIN = 0.05;

/* Checks the trainer's gradient on a sample of every tensor of one model, printing a
 * line per tensor and a summary. Returns 1 when every tensor passes. */
static int check_model(const char *path, float label_smoothing, float dropout,
                       const FdConfig *cfg, int per_tensor)
{
    ModelCase c;
    model_case_open(&c, path, label_smoothing, dropout);
    model_clear_kinks(&c, RELU_MARGIN);
    Model *m = &c.m;
    float *grads = calloc(m->n_params, sizeof(float));
    assert_non_null(grads);
    const double with = model_loss(&c);
    backprop_backward(&c.bp, grads, label_smoothing);
    assert_true(with > 0.0);
    relu_walk(&c, c.relu_base, 1);
    /* The loss is the same on every forward pass. */
    assert_true(model_objective(&c) == with);

    Rng rng;
    rng_seed(&rng, 18);
    int ok = 1, skipped = 0;
    size_t checked = 0;
    double worst = 0.0, max_abs = 0.0, max_rel = 0.0;
    unsigned char used[256];
    for (int s = 0; s < m->n_specs; s++) {
        const ParamSpec *p = &m->specs[s];
        const int cols = p->cols ? p->cols : 1;
        const size_t n = (size_t)p->rows * cols;
        float *x = m->params + p->offset;
        const float *gx = grads + p->offset;
        const int is_embed = p->storage != PARAM_TENSOR;
        if (is_embed) {
            assert_true(p->rows <= (int)sizeof used);
            used_rows(used, p->rows, p->storage == PARAM_EMBED_TGT);
            /* Rows of unused ids: exactly zero gradient, and the loss ignores them. */
            for (int row = 0; row < p->rows; row++)
                if (!used[row])
                    for (int k = 0; k < cols; k++)
                        if (gx[(size_t)row * cols + k] != 0.0f) {
                            print_error("%s row %d (unused id) has gradient %g at [%d]\n",
                                        p->name, row, (double)gx[(size_t)row * cols + k], k);
                            ok = 0;
                        }
        }
        /* The entries: the largest |gradient|, then random ones (of used rows) until
         * per_tensor more are compared. An entry whose step flips a ReLU is no derivative
         * there: it is counted as skipped and another is drawn. */
        size_t big = 0;
        for (size_t i = 1; i < n; i++)
            if (fabsf(gx[i]) > fabsf(gx[big]))
                big = i;
        char what[MODEL_NAME_MAX + 16];
        snprintf(what, sizeof what, "  %s", p->name);
        FdReport r = fd_report(what);
        for (int draw = 0; r.n < (size_t)per_tensor + 1 && draw < 10 * (per_tensor + 1); draw++) {
            const size_t i = draw == 0 ? big : rng_next_u32(&rng) % n;
            if (is_embed && !used[i / (size_t)cols])
                continue;
            c.flipped = 0;
            const double num = fd_derivative(model_objective, &c, x, i, cfg->h);
            if (c.flipped) {
                skipped++;
                continue;
            }
            fd_note(&r, cfg, i, (double)gx[i], num);
        }
        /* Random draws may repeat an entry; every tensor gets per_tensor comparisons. */
        assert_true(r.n >= (size_t)per_tensor);
        ok &= fd_finish(&r, cfg);
        checked += r.n;
        worst = fmax(worst, r.worst);
        max_abs = fmax(max_abs, r.max_abs);
        max_rel = fmax(max_rel, r.max_rel);
        if (is_embed) {
            /* One unused row perturbed: the loss is the same to the bit. */
            for (int row = 0; row < p->rows; row++)
                if (!used[row]) {
                    const float keep = x[(size_t)row * cols];
                    x[(size_t)row * cols] = keep + 1.0f;
                    const double moved = model_objective(&c);
                    x[(size_t)row * cols] = keep;
                    assert_true(moved == with);
                    break;
                }
        }
    }
    print_message("%s, label smoothing %.1f: %d tensors, %zu entries, max |a-n| %.2e, max rel "
                  "%.2e, worst %.2f of the limit; %d entries skipped (a ReLU flipped)\n",
                  path, (double)label_smoothing, m->n_specs, checked, max_abs, max_rel, worst,
                  skipped);
    free(grads);
    model_case_close(&c);
    return ok;
}

/* The whole model. The loss (≈ 20) leaves eight float32 blocks with a rounding error δ of
 * about 2e-6: at h = 1e-3 the differences scatter by up to 1e-3 (= δ/2h), at h = 1e-2 by
 * a few 1e-4, truncation included. So h = 1e-2 and the layers' limit, rtol 1e-2 and
 * atol 1e-3: the worst entry seen uses 14% of it (largest |a − n| 6.4e-4). */
static const FdConfig FD_MODEL = {1e-2, 1e-2, 1e-3};
enum { MODEL_ENTRIES_PER_TENSOR = 6 };

/* The trainer's gradient of one pair matches finite differences for every tensor of tiny.db and
 * tiny_bias.db, with label smoothing 0 and 0.1; unused embedding rows get exactly 0. */
static void test_grad_backprop(void **state)
{
    (void)state;
    static const char *const PATHS[] = {"tests/fixtures/tiny.db", "tests/fixtures/tiny_bias.db"};
    static const float SMOOTHING[] = {0.0f, 0.1f};
    int ok = 1;
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < 2; l++)
            ok &= check_model(PATHS[k], SMOOTHING[l], 0.0f, &FD_MODEL, MODEL_ENTRIES_PER_TENSOR);
    assert_true(ok);
}

/* With dropout (p = 0.2, masks fixed by the seed) the gradient still matches finite
 * differences for every tensor: the masks scale the same activations both ways. */
static void test_grad_backprop_dropout(void **state)
{
    (void)state;
    assert_true(check_model("tests/fixtures/tiny_bias.db", 0.1f, 0.2f, &FD_MODEL,
                            MODEL_ENTRIES_PER_TENSOR));
}

/* backprop_backward adds its gradient to what the block holds: two calls give twice one. */
static void test_grad_backprop_accumulates(void **state)
{
    (void)state;
    ModelCase c;
    model_case_open(&c, "tests/fixtures/tiny_bias.db", 0.1f, 0.0f);
    const size_t n = c.m.n_params;
    float *once = calloc(n, sizeof(float)), *twice = calloc(n, sizeof(float));
    assert_true(once && twice);
    model_loss(&c);
    backprop_backward(&c.bp, once, 0.1f);
    for (int k = 0; k < 2; k++) {
        model_loss(&c);
        backprop_backward(&c.bp, twice, 0.1f);
    }
    for (size_t i = 0; i < n; i++)
        once[i] *= 2.0f;
    /* Only the order of float additions differs: a few ulp of gradients up to about 5. */
    assert_close_array("twice the gradient", twice, once, n, 1e-5);
    free(twice), free(once);
    model_case_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_matmul_nt),
        cmocka_unit_test(test_grad_layernorm),
        cmocka_unit_test(test_layernorm_rows_bits),
        cmocka_unit_test(test_grad_embed),
        cmocka_unit_test(test_grad_attention_head),
        cmocka_unit_test(test_grad_mha_self_causal),
        cmocka_unit_test(test_grad_mha_cross),
        cmocka_unit_test(test_grad_mha_padded_batch),
        cmocka_unit_test(test_grad_encoder_layer),
        cmocka_unit_test(test_grad_decoder_layer),
        cmocka_unit_test(test_grad_head),
        cmocka_unit_test(test_grad_backprop),
        cmocka_unit_test(test_grad_backprop_dropout),
        cmocka_unit_test(test_grad_backprop_accumulates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
