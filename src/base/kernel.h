/*
 * kernel.h — the numerical kernels everything else calls.
 *
 * All matrices are row-major float arrays. Letters used in the shape comments:
 *   M rows of the left operand / output, K the shared (inner) dimension, N output columns.
 * The kernels trust their caller: dimensions are positive and buffers are large enough
 * (checked with assert). Functions that take input from outside validate it before
 * they get here. Outputs never alias inputs.
 */
#ifndef TOYTRANS_KERNEL_H
#define TOYTRANS_KERNEL_H

#include <stddef.h>

/* out = a · b.
 * out (M, N), a (M, K), b (K, N). */
void kernel_matmul(float *out, const float *a, const float *b, int M, int K, int N);

/* out = a · bᵀ + bias: a Linear layer whose weight b is stored [out_features, in_features].
 * out (M, N), a (M, K), b (N, K), bias (N) or NULL for none. */
void kernel_matmul_nt(float *out, const float *a, const float *b, const float *bias,
                      int M, int K, int N);

/* kernel_matmul_nt computed so that each row of out depends on its row of a alone, in an
 * order fixed by K and N: a row gets the same bits whatever M is, and whatever rows share
 * the call. Translation's products (a sentence's numbers never depend on its batch);
 * kernel_matmul_nt may choose by M and is faster for a few rows. */
void kernel_matmul_nt_rows(float *out, const float *a, const float *b, const float *bias,
                           int M, int K, int N);

/* A Linear layer's weight b (N, K) rearranged for kernel_matmul_packed into packed (K·N
 * floats): the columns of bᵀ (K, N) in blocks of 64 while 64 are left, then one of 32 if
 * 32 are left, then blocks of 16, then the rest; each block (K, w) row-major, the block
 * of columns j .. j+w-1 at packed + j·K. The tiles then read each row of a block from
 * consecutive cache lines (bᵀ's rows, N floats apart, fell into a few sets of the L1 cache
 * and were evicted before their reuse). This file is the layout's only reader and writer. */
void kernel_pack_weight(float *packed, const float *b, int N, int K);

/* out = a · bᵀ + bias with the weight packed by kernel_pack_weight, bias (N) or NULL. The
 * same bits as kernel_matmul_nt_rows(out, a, b, bias, …) — row-stable, each element its
 * bias plus its K products in order — without copying the weight into panels on every
 * call: translation packs its weights once. */
void kernel_matmul_packed(float *out, const float *a, const float *packed, const float *bias,
                          int M, int K, int N);

/* out += a · b, accumulating.
 * out (M, N), a (M, K), b (K, N). */
void kernel_matmul_acc(float *out, const float *a, const float *b, int M, int K, int N);

/* out += aᵀ · b, accumulating, where a is a column block of a wider matrix: a Linear
 * layer's weight gradient dyᵀ · x for the N output features a starts at.
 * out (N, K), a (M, N) with rows lda >= N apart, b (M, K). Element (j, k) of out sums its
 * M products in row order, whatever block it is computed in. */
void kernel_matmul_tn_acc(float *out, const float *a, int lda, const float *b, int M, int N,
                          int K);

/* sums (n) += the column sums of a (M, n) with rows lda apart, each column summed in row
 * order (a bias's gradient: the same sums as a loop over the rows). */
void kernel_colsum_acc(float *sums, const float *a, int lda, int M, int n);

/* The dot product of two vectors of length n. */
float kernel_dot(const float *a, const float *b, int n);

/* Softmax of each row in place, numerically stable: the row maximum is subtracted before
 * exponentiating, so scores of ±1e4 stay finite. Entries equal to -INFINITY (masked)
 * become exactly 0. A row with a NaN, +Inf, or no finite entry at all becomes all NaN,
 * so that a diverged computation shows as NaN downstream.
 * x (rows, cols). */
void kernel_softmax_rows(float *x, int rows, int cols);

/* The sum of exp(x[i] - shift) over the n values of x, all in double, for a shift at
 * least as large as every x[i] (so each term is at most 1): the normaliser of decoding's
 * log-softmax (decode.c). Each term is within one unit in the last place of libm's exp
 * (test_kernel compares them over the whole range, two million arguments), and the terms
 * are added in a fixed order that depends only on n, so the same x gives the same sum,
 * bit for bit, on one machine. */
double kernel_exp_sum_f64(const float *x, double shift, int n);

/* ReLU in place: x = max(x, 0), NaN kept. x (n). */
void kernel_relu(float *x, size_t n);

/* ReLU's backward pass: dx = 0 where the forward output y was not positive. dx, y (n). */
void kernel_relu_backward(float *dx, const float *y, size_t n);

/* g = (g + h) · scale over n floats, then h = 0 (h NULL: g *= scale); returns Σ g²
 * (after scaling) in double, summed as eight interleaved partial sums (element i into
 * sum i mod 8) added in order at the end: an order fixed by n alone, and eight
 * independent chains instead of one. */
double kernel_scale_sumsq(float *g, float *h, size_t n, float scale);

/* One AdamW step for n parameters, in float (as PyTorch computes it), with the gradient
 * g·gscale (gscale 1 leaves it as it is; gradient clipping passes its factor here
 * rather than scaling the gradients in a pass of their own):
 *   m = b1·m + (1-b1)·g      v = b2·v + (1-b2)·g²
 *   x -= lr · (m·ic1) / (sqrt(v·ic2) + eps) + lr · decay · x
 * where ic1, ic2 are the inverse bias corrections 1/(1-b1^t), 1/(1-b2^t). */
void kernel_adamw(float *x, const float *g, float gscale, float *m, float *v, size_t n, float b1,
                  float b2, float ic1, float ic2, float eps, float lr, float decay);

/* The largest of x[0..n−1], n ≥ 1; NaNs are passed over, as a loop of `>` tests would. */
float kernel_max(const float *x, int n);

/* Σ x[0..n−1], in sixteen float partial sums (element i into sum i mod 16) added in
 * double in order at the end. */
double kernel_sum(const float *x, int n);

/* Σ exp(x[i] − shift) over n floats, each x[i] − shift ≤ 0 (shift at least the largest
 * x; a NaN gives NaN), and e[i] = that exponential when e is not NULL. The difference is
 * taken in double and rounded to float; the exponential is computed in float to within
 * about an ulp, and summed as kernel_sum sums. For the loss's softmax (net.c). */
double kernel_exp_sum(float *e, const float *x, double shift, int n);

/* out[j] = a · (row j of b) for j < n (rows ldb apart, K long), each summed exactly as
 * kernel_dot sums it (the same bits), eight rows at a time. For attention's scores: one
 * query against every key. */
void kernel_dots(float *out, const float *a, const float *b, int ldb, int n, int K);

/* Which build of the kernels this CPU runs: "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2, FMA)",
 * "x86-64 (SSE2)" or "portable" — for benchmarks and bug reports. */
const char *kernel_variant(void);

#endif
