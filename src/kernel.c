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

float kernel_dot(const float *a, const float *b, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
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
        for (int c = 0; c < cols; c++)
            if (row[c] > max)
                max = row[c];
        assert(isfinite(max)); /* at least one unmasked, finite entry */
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
