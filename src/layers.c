/*
 * layers.c — LayerNorm, feed-forward, embeddings.
 *
 * LayerNorm accumulates its mean and variance in double: the rows are short and the
 * extra precision keeps results within a few ulp of PyTorch's.
 */
#include "layers.h"

#include "clones.h"
#include "kernel.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* One row of layer normalisation: the statistics in double, the output as
 * layernorm_forward has always computed it; mean and rstd, when wanted, as floats. */
static inline __attribute__((always_inline)) void layernorm_row(float *oi, float *mean,
                                                                 float *rstd, const float *xi,
                                                                 const float *w, const float *b,
                                                                 int D, float eps)
{
    double mu = 0.0, var = 0.0;
    for (int k = 0; k < D; k++)
        mu += xi[k];
    mu /= D;
    for (int k = 0; k < D; k++) {
        const double d = xi[k] - mu;
        var += d * d;
    }
    var /= D;
    const double r = 1.0 / sqrt(var + (double)eps);
    for (int k = 0; k < D; k++)
        oi[k] = (float)((xi[k] - mu) * r) * w[k] + b[k];
    if (mean) {
        *mean = (float)mu;
        *rstd = (float)r;
    }
}

KERNEL_CLONES
void layernorm_forward(float *out, const float *x, const float *w, const float *b, int N, int D,
                       float eps)
{
    assert(N > 0 && D > 0);
    for (int i = 0; i < N; i++)
        layernorm_row(out + (size_t)i * D, NULL, NULL, x + (size_t)i * D, w, b, D, eps);
}

/* The statistics once per row (this computed them, then layernorm_forward again). */
KERNEL_CLONES
void layernorm_forward_cache(float *out, float *mean, float *rstd, const float *x, const float *w,
                             const float *b, int N, int D, float eps)
{
    for (int i = 0; i < N; i++)
        layernorm_row(out + (size_t)i * D, mean + i, rstd + i, x + (size_t)i * D, w, b, D, eps);
}

/* With x̂ = (x − μ)·r and g = dout·w:
 *   dx = r · (g − mean(g) − x̂ · mean(g · x̂)). */
KERNEL_CLONES
void layernorm_backward_dx(float *dx, const float *dout, const float *x, const float *w,
                           const float *mean, const float *rstd, int N, int D)
{
    for (int i = 0; i < N; i++) {
        const float *xi = x + (size_t)i * D, *gi = dout + (size_t)i * D;
        float *dxi = dx + (size_t)i * D;
        const float mu = mean[i], r = rstd[i];
        double sum_g = 0.0, sum_gx = 0.0;
        for (int k = 0; k < D; k++) {
            const float xhat = (xi[k] - mu) * r;
            const float g = gi[k] * w[k];
            sum_g += g;
            sum_gx += (double)g * xhat;
        }
        const float mg = (float)(sum_g / D), mgx = (float)(sum_gx / D);
        for (int k = 0; k < D; k++) {
            const float xhat = (xi[k] - mu) * r;
            dxi[k] += r * (gi[k] * w[k] - mg - xhat * mgx);
        }
    }
}

KERNEL_CLONES
void layernorm_backward_params(float *dw, float *db, const float *dout, const float *x,
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

void layernorm_backward(float *dx, float *dw, float *db, const float *dout, const float *x,
                        const float *w, const float *mean, const float *rstd, int N, int D)
{
    layernorm_backward_params(dw, db, dout, x, mean, rstd, N, D, 0, D);
    layernorm_backward_dx(dx, dout, x, w, mean, rstd, N, D);
}

void ffn_forward(float *out, float *hidden, const float *x, const float *w1, const float *b1,
                 const float *w2, const float *b2, int N, int D, int F)
{
    kernel_matmul_nt(hidden, x, w1, b1, N, D, F);
    kernel_relu(hidden, (size_t)N * F);
    kernel_matmul_nt(out, hidden, w2, b2, N, F, D);
}

void ffn_backward(float *dx, float *dw1, float *db1, float *dw2, float *db2, float *dhidden,
                  const float *dout, const float *x, const float *hidden, const float *w1,
                  const float *w2, int N, int D, int F)
{
    memset(dhidden, 0, sizeof(float) * (size_t)N * F);
    kernel_matmul_nt_backward(dhidden, dw2, db2, dout, hidden, w2, N, F, D);
    /* relu: the gradient passes where the output was positive. */
    kernel_relu_backward(dhidden, hidden, (size_t)N * F);
    kernel_matmul_nt_backward(dx, dw1, db1, dhidden, x, w1, N, D, F);
}

void embed_forward(float *out, const float *table, const float *pe, const int *ids, int N,
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

void embed_backward(float *dtable, const float *dout, const int *ids, int N, int D)
{
    const float scale = sqrtf((float)D);
    for (int i = 0; i < N; i++) {
        float *d = dtable + (size_t)ids[i] * D;
        const float *g = dout + (size_t)i * D;
        for (int k = 0; k < D; k++)
            d[k] += g[k] * scale;
    }
}

void residual_add(float *x, const float *y, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += y[i];
}
