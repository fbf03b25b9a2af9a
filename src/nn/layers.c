/*
 * layers.c — LayerNorm, feed-forward, embeddings.
 *
 * LayerNorm accumulates its mean and variance in double: the rows are short and the
 * extra precision keeps results within a few ulp of PyTorch's.
 */
#include "nn/layers.h"

#include "base/clones.h"
#include "base/kernel.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* Rows of layer normalisation, `rows` at once (1 or NORM_ROWS): the statistics in double,
 * the output as layers_norm_forward has always computed it; mean and rstd, when wanted, as
 * floats. A row's sums are chains of dependent additions, each waiting for the one
 * before; NORM_ROWS rows side by side let the chains overlap. Each row's sum is taken
 * in the same order as alone, so the bits do not depend on how rows are grouped. */
enum { NORM_ROWS = 8 };

/* The output of `rows` rows from their mean mu and summed squared deviations var, in
 * double; mean and rstd, when wanted, as floats. */
static inline __attribute__((always_inline)) void norm_rows_out(float *out, float *mean,
                                                                 float *rstd, const float *x,
                                                                 const float *w,
                                                                 const float *b, int D,
                                                                 float eps, const double *mu,
                                                                 const double *var, int rows)
{
    for (int i = 0; i < rows; i++) {
        const double r = 1.0 / sqrt(var[i] / D + (double)eps);
        const float *xi = x + (size_t)i * D;
        float *oi = out + (size_t)i * D;
        for (int k = 0; k < D; k++)
            oi[k] = (float)((xi[k] - mu[i]) * r) * w[k] + b[k];
        if (mean)
            mean[i] = (float)mu[i];
        if (rstd)
            rstd[i] = (float)r;
    }
}

static inline __attribute__((always_inline)) void layernorm_rows(float *out, float *mean,
                                                                  float *rstd, const float *x,
                                                                  const float *w,
                                                                  const float *b, int D,
                                                                  float eps, int rows)
{
    double mu[NORM_ROWS] = {0}, var[NORM_ROWS] = {0};
    for (int k = 0; k < D; k++)
        for (int i = 0; i < rows; i++)
            mu[i] += x[(size_t)i * D + k];
    for (int i = 0; i < rows; i++)
        mu[i] /= D;
    for (int k = 0; k < D; k++)
        for (int i = 0; i < rows; i++) {
            const double d = x[(size_t)i * D + k] - mu[i];
            var[i] += d * d;
        }
    norm_rows_out(out, mean, rstd, x, w, b, D, eps, mu, var, rows);
}

/* Rows' statistics eight to a vector of doubles, lane i for row i, G vectors (8 or 16
 * rows) side by side: the same sums in the same order as layernorm_rows, without building
 * each vector from eight scalar loads. Eight floats of each row are loaded and transposed,
 * so that a vector holds one column (k) of eight rows; pass one keeps the columns as
 * doubles in cols for pass two. Each lane's sum is a chain of D dependent additions; G
 * chains side by side overlap their latency. Used where D is at most NORM_COLS_MAX. */
enum { NORM_COLS_MAX = 256, NORM_GROUPS = 2 };
typedef float vf8 __attribute__((vector_size(8 * sizeof(float))));
typedef double vd8 __attribute__((vector_size(8 * sizeof(double))));

#define SHUF __builtin_shufflevector
/* c[j] = (r[0][j], …, r[7][j]) for the 8 × 8 block r. */
static inline __attribute__((always_inline)) void transpose8(vf8 c[8], const vf8 r[8])
{
    vf8 lo[4], hi[4], q[8];
    for (int p = 0; p < 4; p++) {
        lo[p] = SHUF(r[2 * p], r[2 * p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        hi[p] = SHUF(r[2 * p], r[2 * p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    /* q[0]: columns 0 and 4 of rows 0-3; q[1]: 1 and 5; q[2]: 2 and 6; q[3]: 3 and 7;
     * q[4..7] the same of rows 4-7. */
    for (int h = 0; h < 2; h++) {
        q[4 * h + 0] = SHUF(lo[2 * h], lo[2 * h + 1], 0, 1, 8, 9, 4, 5, 12, 13);
        q[4 * h + 1] = SHUF(lo[2 * h], lo[2 * h + 1], 2, 3, 10, 11, 6, 7, 14, 15);
        q[4 * h + 2] = SHUF(hi[2 * h], hi[2 * h + 1], 0, 1, 8, 9, 4, 5, 12, 13);
        q[4 * h + 3] = SHUF(hi[2 * h], hi[2 * h + 1], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int j = 0; j < 4; j++) {
        c[j] = SHUF(q[j], q[4 + j], 0, 1, 2, 3, 8, 9, 10, 11);
        c[j + 4] = SHUF(q[j], q[4 + j], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}
#undef SHUF

static inline __attribute__((always_inline)) void norm_stats(double *mu, double *var,
                                                             const float *x, int D, int G)
{
    assert(D <= NORM_COLS_MAX && G <= NORM_GROUPS);
    vd8 cols[NORM_GROUPS][NORM_COLS_MAX];
    vd8 sum[NORM_GROUPS] = {{0}}, v[NORM_GROUPS] = {{0}}, m[NORM_GROUPS];
    int k = 0;
    for (; k + 8 <= D; k += 8)
        for (int g = 0; g < G; g++) {
            vf8 r[8], c[8];
            for (int i = 0; i < 8; i++)
                memcpy(&r[i], x + (size_t)(8 * g + i) * D + k, sizeof(vf8));
            transpose8(c, r);
            for (int j = 0; j < 8; j++) {
                cols[g][k + j] = __builtin_convertvector(c[j], vd8);
                sum[g] += cols[g][k + j];
            }
        }
    for (; k < D; k++)
        for (int g = 0; g < G; g++) {
            for (int i = 0; i < 8; i++)
                cols[g][k][i] = x[(size_t)(8 * g + i) * D + k];
            sum[g] += cols[g][k];
        }
    for (int g = 0; g < G; g++)
        m[g] = sum[g] / (double)D;
    for (k = 0; k < D; k++)
        for (int g = 0; g < G; g++) {
            const vd8 d = cols[g][k] - m[g];
            v[g] += d * d;
        }
    for (int g = 0; g < G; g++)
        for (int i = 0; i < 8; i++) {
            mu[8 * g + i] = m[g][i];
            var[8 * g + i] = v[g][i];
        }
}

/* layernorm_rows for 8 · G rows through norm_stats: the same bits. */
static inline __attribute__((always_inline)) void layernorm_rows_vec(float *out, float *mean,
                                                                      float *rstd,
                                                                      const float *x,
                                                                      const float *w,
                                                                      const float *b, int D,
                                                                      float eps, int G)
{
    double mu[8 * NORM_GROUPS], var[8 * NORM_GROUPS];
    norm_stats(mu, var, x, D, G);
    norm_rows_out(out, mean, rstd, x, w, b, D, eps, mu, var, 8 * G);
}

/* All N rows: groups of NORM_ROWS, then one at a time. */
static inline __attribute__((always_inline)) void layernorm_all(float *out, float *mean,
                                                                 float *rstd, const float *x,
                                                                 const float *w, const float *b,
                                                                 int N, int D, float eps)
{
    int i = 0;
    if (D <= NORM_COLS_MAX) {
        _Static_assert(NORM_ROWS == 8 && NORM_GROUPS == 2, "the vector rows: 16, then 8");
        for (; i + 16 <= N; i += 16)
            layernorm_rows_vec(out + (size_t)i * D, mean ? mean + i : NULL,
                               rstd ? rstd + i : NULL, x + (size_t)i * D, w, b, D, eps, 2);
        for (; i + 8 <= N; i += 8)
            layernorm_rows_vec(out + (size_t)i * D, mean ? mean + i : NULL,
                               rstd ? rstd + i : NULL, x + (size_t)i * D, w, b, D, eps, 1);
    }
    for (; i + NORM_ROWS <= N; i += NORM_ROWS)
        layernorm_rows(out + (size_t)i * D, mean ? mean + i : NULL, rstd ? rstd + i : NULL,
                       x + (size_t)i * D, w, b, D, eps, NORM_ROWS);
    for (; i < N; i++)
        layernorm_rows(out + (size_t)i * D, mean ? mean + i : NULL, rstd ? rstd + i : NULL,
                       x + (size_t)i * D, w, b, D, eps, 1);
}

KERNEL_CLONES
void layers_norm_forward(float *out, const float *x, const float *w, const float *b, int N, int D,
                         float eps)
{
    assert(N > 0 && D > 0);
    layernorm_all(out, NULL, NULL, x, w, b, N, D, eps);
}

/* The statistics once per row (this computed them, then layers_norm_forward again). */
KERNEL_CLONES
void layers_norm_forward_cache(float *out, float *mean, float *rstd, const float *x, const float *w,
                               const float *b, int N, int D, float eps)
{
    layernorm_all(out, mean, rstd, x, w, b, N, D, eps);
}

/* With x̂ = (x − μ)·r and g = dout·w:
 *   dx = r · (g − mean(g) − x̂ · mean(g · x̂)). */
/* `rows` rows (1 or NORM_ROWS) of layers_norm_backward_dx, side by side as in
 * layernorm_rows: each row's two sums in the same order as alone. */
static inline __attribute__((always_inline)) void norm_dx_rows(float *dx, const float *dout,
                                                                const float *x, const float *w,
                                                                const float *mean,
                                                                const float *rstd, int D,
                                                                int rows)
{
    double sum_g[NORM_ROWS] = {0}, sum_gx[NORM_ROWS] = {0};
    for (int k = 0; k < D; k++)
        for (int i = 0; i < rows; i++) {
            const float xhat = (x[(size_t)i * D + k] - mean[i]) * rstd[i];
            const float g = dout[(size_t)i * D + k] * w[k];
            sum_g[i] += g;
            sum_gx[i] += (double)g * xhat;
        }
    for (int i = 0; i < rows; i++) {
        const float *xi = x + (size_t)i * D, *gi = dout + (size_t)i * D;
        float *dxi = dx + (size_t)i * D;
        const float mu = mean[i], r = rstd[i];
        const float mg = (float)(sum_g[i] / D), mgx = (float)(sum_gx[i] / D);
        for (int k = 0; k < D; k++) {
            const float xhat = (xi[k] - mu) * r;
            dxi[k] += r * (gi[k] * w[k] - mg - xhat * mgx);
        }
    }
}

/* With x̂ = (x − μ)·r and g = dout·w:
 *   dx = r · (g − mean(g) − x̂ · mean(g · x̂)). */
KERNEL_CLONES
void layers_norm_backward_dx(float *dx, const float *dout, const float *x, const float *w,
                             const float *mean, const float *rstd, int N, int D)
{
    int i = 0;
    for (; i + NORM_ROWS <= N; i += NORM_ROWS)
        norm_dx_rows(dx + (size_t)i * D, dout + (size_t)i * D, x + (size_t)i * D, w, mean + i,
                     rstd + i, D, NORM_ROWS);
    for (; i < N; i++)
        norm_dx_rows(dx + (size_t)i * D, dout + (size_t)i * D, x + (size_t)i * D, w, mean + i,
                     rstd + i, D, 1);
}

KERNEL_CLONES
void layers_norm_backward_params(float *dw, float *db, const float *dout, const float *x,
                                 const float *mean, const float *rstd, int N, int D, int k0,
                                 int k1)
{
    /* Columns a block at a time, summed in locals and added once: a caller's threads
     * take neighbouring column ranges, which may share a cache line of dw and db. */
    enum { BLOCK = 16 };
    for (int b0 = k0; b0 < k1; b0 += BLOCK) {
        const int nb = k1 - b0 < BLOCK ? k1 - b0 : BLOCK;
        float aw[BLOCK] = {0}, ab[BLOCK] = {0};
        for (int i = 0; i < N; i++) {
            const float *xi = x + (size_t)i * D + b0, *gi = dout + (size_t)i * D + b0;
            const float mu = mean[i], r = rstd[i];
            for (int k = 0; k < nb; k++) {
                const float xhat = (xi[k] - mu) * r;
                aw[k] += gi[k] * xhat;
                ab[k] += gi[k];
            }
        }
        for (int k = 0; k < nb; k++) {
            dw[b0 + k] += aw[k];
            db[b0 + k] += ab[k];
        }
    }
}

void layers_embed_forward(float *out, const float *table, const float *pe, const int *ids, int N,
                          int pos0, int D)
{
    const float scale = sqrtf((float)D);
    for (int i = 0; i < N; i++) {
        const float *e = table + (size_t)ids[i] * D;
        const float *p = pe + (size_t)(pos0 + i) * D;
        float *o = out + (size_t)i * D;
        for (int k = 0; k < D; k++)
            o[k] = e[k] * scale + p[k];
    }
}

KERNEL_CLONES
void layers_residual_add(float *x, const float *y, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += y[i];
}
