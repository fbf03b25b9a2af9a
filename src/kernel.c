/*
 * kernel.c — plain, cache-friendly reference kernels.
 *
 * The loop orders are chosen so that the innermost loop walks contiguous memory:
 * i-k-j for a·b (b's rows are streamed), and a dot product over K for a·bᵀ (both
 * operands' rows are contiguous). Sums accumulate in float in a fixed order, so the
 * same inputs give bit-identical outputs on every run.
 */
#include "kernel.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

void kernel_matmul(float *out, const float *a, const float *b, int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    for (int i = 0; i < M; i++) {
        float *o = out + (size_t)i * N;
        memset(o, 0, sizeof(float) * (size_t)N);
        const float *ai = a + (size_t)i * K;
        for (int k = 0; k < K; k++) {
            const float aik = ai[k];
            const float *bk = b + (size_t)k * N;
            for (int j = 0; j < N; j++)
                o[j] += aik * bk[j];
        }
    }
}

/* Eight partial sums, added in a fixed order at the end: the compiler keeps them in one
 * vector register (a single running sum could not be vectorised without reassociating
 * float additions, which -std=c11 rightly forbids), and the result is the same bits on
 * every machine and at every vector width. */
float kernel_dot(const float *a, const float *b, int n)
{
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += a[i + l] * b[i + l];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void kernel_matmul_nt(float *out, const float *a, const float *b, const float *bias,
                      int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    for (int i = 0; i < M; i++) {
        const float *ai = a + (size_t)i * K;
        float *o = out + (size_t)i * N;
        for (int j = 0; j < N; j++) {
            float s = kernel_dot(ai, b + (size_t)j * K, K);
            o[j] = bias ? s + bias[j] : s;
        }
    }
}

void kernel_softmax_rows(float *x, int rows, int cols)
{
    assert(x && rows > 0 && cols > 0);
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * cols;
        float max = -INFINITY;
        int nan = 0;
        for (int c = 0; c < cols; c++) {
            if (row[c] > max)
                max = row[c];
            nan |= isnan(row[c]);
        }
        if (nan || !isfinite(max)) {
            /* Scores that overflowed (a diverged training step) or a fully masked row
             * (which attention never asks for): propagate NaN so the caller's finiteness
             * check sees it, rather than inventing a distribution. */
            for (int c = 0; c < cols; c++)
                row[c] = NAN;
            continue;
        }
        float sum = 0.0f;
        for (int c = 0; c < cols; c++) {
            /* exp(-inf) is exactly 0, so masked entries drop out by themselves. */
            row[c] = expf(row[c] - max);
            sum += row[c];
        }
        /* sum >= 1: the maximum contributes exp(0) = 1. Divide rather than multiply by
         * 1/sum, which would round twice. */
        for (int c = 0; c < cols; c++)
            row[c] /= sum;
    }
}

void kernel_matmul_nt_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                               const float *w, int M, int K, int N)
{
    assert(dw && dy && x && w && M > 0 && K > 0 && N > 0);
    for (int i = 0; i < M; i++) {
        const float *dyi = dy + (size_t)i * N, *xi = x + (size_t)i * K;
        float *dxi = dx ? dx + (size_t)i * K : NULL;
        for (int j = 0; j < N; j++) {
            const float g = dyi[j];
            if (g == 0.0f)
                continue;
            const float *wj = w + (size_t)j * K;
            float *dwj = dw + (size_t)j * K;
            if (dxi)
                for (int k = 0; k < K; k++)
                    dxi[k] += g * wj[k];
            for (int k = 0; k < K; k++)
                dwj[k] += g * xi[k];
        }
        if (db)
            for (int j = 0; j < N; j++)
                db[j] += dyi[j];
    }
}
