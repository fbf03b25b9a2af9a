/*
 * layers.c — LayerNorm, feed-forward, embeddings.
 *
 * LayerNorm accumulates its mean and variance in double: the rows are short and the
 * extra precision keeps results within a few ulp of PyTorch's.
 */
#include "layers.h"

#include "kernel.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

void layernorm_forward(float *out, const float *x, const float *w, const float *b, int N, int D,
                       float eps)
{
    assert(N > 0 && D > 0);
    for (int i = 0; i < N; i++) {
        const float *xi = x + (size_t)i * D;
        float *oi = out + (size_t)i * D;
        double mean = 0.0, var = 0.0;
        for (int k = 0; k < D; k++)
            mean += xi[k];
        mean /= D;
        for (int k = 0; k < D; k++) {
            double d = xi[k] - mean;
            var += d * d;
        }
        var /= D;
        const double rstd = 1.0 / sqrt(var + (double)eps);
        for (int k = 0; k < D; k++)
            oi[k] = (float)((xi[k] - mean) * rstd) * w[k] + b[k];
    }
}

void ffn_forward(float *out, float *hidden, const float *x, const float *w1, const float *b1,
                 const float *w2, const float *b2, int N, int D, int F)
{
    kernel_matmul_nt(hidden, x, w1, b1, N, D, F);
    for (size_t i = 0; i < (size_t)N * F; i++)
        if (hidden[i] < 0.0f)
            hidden[i] = 0.0f;
    kernel_matmul_nt(out, hidden, w2, b2, N, F, D);
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

void residual_add(float *x, const float *y, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += y[i];
}
