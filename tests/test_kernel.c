/*
 * test_kernel.c — the numerical kernels against straightforward double-precision loops.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *random_matrix(Rng *rng, int rows, int cols)
{
    float *m = malloc(sizeof(float) * (size_t)rows * cols);
    assert_non_null(m);
    rng_fill_uniform(rng, m, (size_t)rows * cols, -1.0f, 1.0f);
    return m;
}

/* kernel_matmul equals a double-precision triple loop on odd, non-square shapes, among
 * them widths with 32-column blocks (the wide tile, on AVX-512) and a narrow rest. */
static void test_kernel_matmul_matches_naive(void **state)
{
    (void)state;
    static const int SHAPES[][3] = {{1, 1, 1}, {3, 5, 7}, {6, 3, 2}, {17, 33, 9}, {64, 64, 256},
                                    {10, 300, 20}, {13, 300, 70}, {7, 40, 32}};
    Rng rng;
    rng_seed(&rng, 1);
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        int M = SHAPES[s][0], K = SHAPES[s][1], N = SHAPES[s][2];
        float *a = random_matrix(&rng, M, K), *b = random_matrix(&rng, K, N);
        float *got = malloc(sizeof(float) * (size_t)M * N), *want = malloc(sizeof(float) * (size_t)M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int k = 0; k < K; k++)
                    acc += (double)a[i * K + k] * b[k * N + j];
                want[i * N + j] = (float)acc;
            }
        kernel_matmul(got, a, b, M, K, N);
        assert_close_array("matmul", got, want, (size_t)M * N, 1e-5 * K);
        free(a), free(b), free(got), free(want);
    }
}

/* kernel_matmul_nt is a Linear layer: a · bᵀ + bias, and bias NULL means none. */
static void test_kernel_matmul_nt_is_linear_layer(void **state)
{
    (void)state;
    const int M = 5, K = 7, N = 3;
    Rng rng;
    rng_seed(&rng, 2);
    float *a = random_matrix(&rng, M, K), *w = random_matrix(&rng, N, K), *bias = random_matrix(&rng, 1, N);
    float got[15], got_nobias[15], want[15], want_nobias[15];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)a[i * K + k] * w[j * K + k];
            want_nobias[i * N + j] = (float)acc;
            want[i * N + j] = (float)(acc + bias[j]);
        }
    kernel_matmul_nt(got, a, w, bias, M, K, N);
    kernel_matmul_nt(got_nobias, a, w, NULL, M, K, N);
    assert_close_array("linear", got, want, 15, 1e-6);
    assert_close_array("linear without bias", got_nobias, want_nobias, 15, 1e-6);
    free(a), free(w), free(bias);
}

/* Every path of kernel_matmul_nt against a double-precision loop: one row and pairs of
 * rows as dot products (K a multiple of 16, N a multiple of 8 or not), the transposed
 * panel (32 rows or more, or K not a multiple of 16), the wide panels (32 rows or more
 * with 64- and 32-column blocks, on AVX-512), K longer than one panel (256 rows of the
 * narrow panel, 128 of the 64-column one) or not a multiple of the 16 × 16 blocks the
 * panel is transposed in, and widths that leave a narrow last block. */
static void test_kernel_matmul_nt_all_paths(void **state)
{
    (void)state;
    static const int SHAPES[][3] = {{1, 64, 64},  {1, 64, 176}, {2, 16, 8},  {3, 32, 24},
                                    {10, 64, 176}, {10, 256, 64}, {5, 16, 5}, {9, 48, 13},
                                    {33, 64, 17}, {40, 300, 20}, {7, 7, 3},  {1, 512, 3},
                                    {64, 520, 40}, {80, 300, 50}, {73, 64, 96}, {100, 16, 33},
                                    {78, 128, 307}, {40, 300, 200}, {32, 17, 96}, {56, 1, 64}};
    Rng rng;
    rng_seed(&rng, 4);
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        const int M = SHAPES[s][0], K = SHAPES[s][1], N = SHAPES[s][2];
        float *a = random_matrix(&rng, M, K), *w = random_matrix(&rng, N, K);
        float *bias = random_matrix(&rng, 1, N);
        float *got = malloc(sizeof(float) * (size_t)M * N), *want = malloc(sizeof(float) * (size_t)M * N);
        assert_non_null(got);
        assert_non_null(want);
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = with_bias ? bias[j] : 0.0;
                    for (int k = 0; k < K; k++)
                        acc += (double)a[(size_t)i * K + k] * w[(size_t)j * K + k];
                    want[(size_t)i * N + j] = (float)acc;
                }
            kernel_matmul_nt(got, a, w, with_bias ? bias : NULL, M, K, N);
            assert_close_array("matmul_nt", got, want, (size_t)M * N, 1e-5 * K);
        }
        free(a), free(w), free(bias), free(got), free(want);
    }
}

/* A column of a product has the same bits whichever tile computes it: the 64-, 32- and
 * 16-column tiles sum the same products in the same order. The product is taken twice,
 * the second time with the columns rotated by 48, so that every column moves to a tile
 * of another width (on AVX-512; elsewhere all tiles are 16 wide). */
static void test_kernel_matmul_tiles_agree_bit_for_bit(void **state)
{
    (void)state;
    enum { M = 40, K = 70, N = 112, SHIFT = 48 };
    Rng rng;
    rng_seed(&rng, 9);
    float *a = random_matrix(&rng, M, K), *w = random_matrix(&rng, N, K), *bias = random_matrix(&rng, 1, N);
    float *w_rot = malloc(sizeof(float) * N * K), *bias_rot = malloc(sizeof(float) * N);
    float *b = malloc(sizeof(float) * K * N), *b_rot = malloc(sizeof(float) * K * N);
    float *got = malloc(sizeof(float) * M * N), *got_rot = malloc(sizeof(float) * M * N);
    assert_non_null(w_rot), assert_non_null(bias_rot), assert_non_null(b), assert_non_null(b_rot);
    assert_non_null(got), assert_non_null(got_rot);
    /* Column j of the rotated product is column (j + SHIFT) mod N of the first. */
    for (int j = 0; j < N; j++) {
        const int from = (j + SHIFT) % N;
        memcpy(w_rot + (size_t)j * K, w + (size_t)from * K, sizeof(float) * K);
        bias_rot[j] = bias[from];
        for (int k = 0; k < K; k++) {
            b[k * N + j] = w[(size_t)j * K + k];
            b_rot[k * N + j] = w_rot[(size_t)j * K + k];
        }
    }
    kernel_matmul_nt(got, a, w, bias, M, K, N);
    kernel_matmul_nt(got_rot, a, w_rot, bias_rot, M, K, N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            assert_memory_equal(&got_rot[i * N + j], &got[i * N + (j + SHIFT) % N], sizeof(float));
    kernel_matmul(got, a, b, M, K, N);
    kernel_matmul(got_rot, a, b_rot, M, K, N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            assert_memory_equal(&got_rot[i * N + j], &got[i * N + (j + SHIFT) % N], sizeof(float));
    free(a), free(w), free(bias), free(w_rot), free(bias_rot), free(b), free(b_rot), free(got),
        free(got_rot);
}

/* Translation's products are row-stable: a row of kernel_matmul_nt_rows, and of
 * kernel_matmul_packed with the weight packed, has the same bits whatever M is (the row
 * computed alone, and within 2 to 70 rows, at every offset of the tiles), and the two
 * agree bit for bit, for widths that make every kind of packed block (64, 32, 16 and
 * fewer columns) and a shared dimension longer than a packed block's 128 rows.
 * kernel_matmul_nt, which chooses its path by M, need not. */
static void test_kernel_matmul_rows_are_row_stable(void **state)
{
    (void)state;
    static const int SHAPES[][2] = {{128, 128}, {128, 512}, {512, 128}, {128, 75}, {48, 13},
                                    {128, 307}, {200, 115}};
    Rng rng;
    rng_seed(&rng, 11);
    enum { MAX_M = 70 };
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        const int K = SHAPES[s][0], N = SHAPES[s][1];
        float *a = random_matrix(&rng, MAX_M, K), *w = random_matrix(&rng, N, K);
        float *bias = random_matrix(&rng, 1, N), *wp = malloc(sizeof(float) * (size_t)K * N);
        float *alone = malloc(sizeof(float) * (size_t)MAX_M * N);
        float *got = malloc(sizeof(float) * (size_t)MAX_M * N);
        assert_non_null(wp), assert_non_null(alone), assert_non_null(got);
        kernel_pack_weight(wp, w, N, K);
        for (int i = 0; i < MAX_M; i++)
            kernel_matmul_nt_rows(alone + (size_t)i * N, a + (size_t)i * K, w, bias, 1, K, N);
        for (int M = 2; M <= MAX_M; M += 17) {
            for (int first = 0; first + M <= MAX_M; first += 23) {
                kernel_matmul_nt_rows(got, a + (size_t)first * K, w, bias, M, K, N);
                assert_memory_equal(got, alone + (size_t)first * N, sizeof(float) * (size_t)M * N);
                kernel_matmul_packed(got, a + (size_t)first * K, wp, bias, M, K, N);
                assert_memory_equal(got, alone + (size_t)first * N, sizeof(float) * (size_t)M * N);
            }
        }
        free(a), free(w), free(bias), free(wp), free(alone), free(got);
    }
}

/* A Linear layer's backward pass as training computes it (net.c) accumulates
 * dx += dy·w (kernel_matmul_acc), dw += dyᵀ·x (kernel_matmul_tn_acc) and db += Σ dy
 * (kernel_colsum_acc) on top of what the buffers hold, for shapes with and without full
 * 16-wide blocks. */
static void test_kernel_linear_backward_matches_naive(void **state)
{
    (void)state;
    static const int SHAPES[][3] = {{1, 64, 64}, {10, 64, 256}, {10, 256, 64}, {7, 5, 3},
                                    {13, 33, 17}, {3, 300, 20}, {80, 64, 96}, {9, 300, 70}};
    Rng rng;
    rng_seed(&rng, 5);
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        const int M = SHAPES[s][0], K = SHAPES[s][1], N = SHAPES[s][2];
        float *x = random_matrix(&rng, M, K), *w = random_matrix(&rng, N, K);
        float *dy = random_matrix(&rng, M, N);
        float *dx = random_matrix(&rng, M, K), *dw = random_matrix(&rng, N, K);
        float *db = random_matrix(&rng, 1, N);
        double *wdx = malloc(sizeof(double) * (size_t)M * K), *wdw = malloc(sizeof(double) * (size_t)N * K);
        double *wdb = malloc(sizeof(double) * (size_t)N);
        assert_non_null(wdx);
        assert_non_null(wdw);
        assert_non_null(wdb);
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++) {
                double acc = dx[(size_t)i * K + k];
                for (int j = 0; j < N; j++)
                    acc += (double)dy[(size_t)i * N + j] * w[(size_t)j * K + k];
                wdx[(size_t)i * K + k] = acc;
            }
        for (int j = 0; j < N; j++) {
            double accb = db[j];
            for (int i = 0; i < M; i++)
                accb += dy[(size_t)i * N + j];
            wdb[j] = accb;
            for (int k = 0; k < K; k++) {
                double acc = dw[(size_t)j * K + k];
                for (int i = 0; i < M; i++)
                    acc += (double)dy[(size_t)i * N + j] * x[(size_t)i * K + k];
                wdw[(size_t)j * K + k] = acc;
            }
        }
        kernel_matmul_acc(dx, dy, w, M, N, K);
        kernel_matmul_tn_acc(dw, dy, N, x, M, N, K);
        kernel_colsum_acc(db, dy, N, M, N);
        for (size_t i = 0; i < (size_t)M * K; i++)
            assert_true(fabs(dx[i] - wdx[i]) <= 1e-5 * N + 1e-6);
        for (size_t i = 0; i < (size_t)N * K; i++)
            assert_true(fabs(dw[i] - wdw[i]) <= 1e-5 * M + 1e-6);
        for (int j = 0; j < N; j++)
            assert_true(fabs(db[j] - wdb[j]) <= 1e-5 * M + 1e-6);
        free(x), free(w), free(dy), free(dx), free(dw), free(db), free(wdx), free(wdw), free(wdb);
    }
}

/* ReLU keeps NaN (a diverged value must stay visible) and its backward pass zeroes the
 * gradient exactly where the output was not positive. AdamW's kernel against the formula
 * in double. */
static void test_kernel_relu_and_adamw(void **state)
{
    (void)state;
    float x[5] = {-1.0f, 0.0f, 2.5f, NAN, -0.0f};
    kernel_relu(x, 5);
    assert_true(x[0] == 0.0f && x[1] == 0.0f && x[2] == 2.5f && isnan(x[3]) && x[4] == 0.0f);
    float y[4] = {-1.0f, 0.0f, 3.0f, 1e-30f}, dx[4] = {1, 2, 3, 4};
    kernel_relu_backward(dx, y, 4);
    assert_true(dx[0] == 0.0f && dx[1] == 0.0f && dx[2] == 3.0f && dx[3] == 4.0f);

    enum { N = 37 };
    Rng rng;
    rng_seed(&rng, 6);
    float p[N], g[N], m[N], v[N];
    rng_fill_uniform(&rng, p, N, -1, 1);
    rng_fill_uniform(&rng, g, N, -1, 1);
    rng_fill_uniform(&rng, m, N, -0.1f, 0.1f);
    rng_fill_uniform(&rng, v, N, 0.0f, 0.01f);
    double want[N];
    const double b1 = 0.9, b2 = 0.98, eps = 1e-9, lr = 1e-3, decay = 0.01, t = 3;
    const double ic1 = 1 / (1 - pow(b1, t)), ic2 = 1 / (1 - pow(b2, t));
    for (int i = 0; i < N; i++) {
        const double mm = b1 * m[i] + (1 - b1) * g[i], vv = b2 * v[i] + (1 - b2) * (double)g[i] * g[i];
        want[i] = p[i] - lr * (mm * ic1 / (sqrt(vv * ic2) + eps)) - lr * decay * p[i];
    }
    kernel_adamw(p, g, 1.0f, m, v, N, (float)b1, (float)b2, (float)ic1, (float)ic2, (float)eps,
                 (float)lr, (float)decay);
    for (int i = 0; i < N; i++)
        assert_float_equal(p[i], want[i], 1e-6);
}

/* Every softmax row is a distribution: non-negative and summing to 1. */
static void test_kernel_softmax_rows_sum_to_one(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 3);
    const int R = 20, C = 31;
    float *x = random_matrix(&rng, R, C);
    for (int i = 0; i < R * C; i++)
        x[i] *= 30.0f;
    kernel_softmax_rows(x, R, C);
    for (int r = 0; r < R; r++) {
        double sum = 0;
        for (int c = 0; c < C; c++) {
            assert_true(x[r * C + c] >= 0.0f);
            sum += x[r * C + c];
        }
        assert_float_equal(sum, 1.0, 1e-6);
    }
    free(x);
}

/* Scores of ±1e4 would overflow a naive exp; the stable softmax stays finite and exact. */
static void test_kernel_softmax_stable_for_huge_scores(void **state)
{
    (void)state;
    float x[2][4] = {{1e4f, 1e4f, -1e4f, 1e4f - 1.0f}, {-1e4f, -1e4f, -1e4f, -1e4f}};
    kernel_softmax_rows(&x[0][0], 2, 4);
    const double e = exp(-1.0), z = 2.0 + e;
    const float want[2][4] = {{(float)(1 / z), (float)(1 / z), 0.0f, (float)(e / z)},
                              {0.25f, 0.25f, 0.25f, 0.25f}};
    for (int i = 0; i < 8; i++)
        assert_true(isfinite((&x[0][0])[i]));
    assert_close_array("softmax(±1e4)", &x[0][0], &want[0][0], 8, 1e-6);
}

/* A -inf entry (a mask) gets a weight of exactly zero. */
static void test_kernel_softmax_masked_entries_are_zero(void **state)
{
    (void)state;
    float x[4] = {0.5f, -INFINITY, 2.0f, -INFINITY};
    kernel_softmax_rows(x, 1, 4);
    assert_true(x[1] == 0.0f);
    assert_true(x[3] == 0.0f);
    assert_float_equal(x[0] + x[2], 1.0, 1e-7);
}

/* Softmax shifts: adding a constant to a row changes nothing. */
static void test_kernel_softmax_shift_invariant(void **state)
{
    (void)state;
    float a[5] = {0.1f, -2.0f, 3.0f, 0.5f, 1.0f}, b[5];
    for (int i = 0; i < 5; i++)
        b[i] = a[i] + 1000.0f;
    kernel_softmax_rows(a, 1, 5);
    kernel_softmax_rows(b, 1, 5);
    assert_close_array("softmax(x + 1000)", b, a, 5, 1e-6);
}

/* kernel_scale_sumsq scales in place and returns the sum of squares: against a sum in
 * long double of the same scaled floats, for lengths around the eight lanes. */
static void test_kernel_scale_sumsq(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 11);
    static const size_t LENS[] = {0, 1, 7, 8, 9, 17, 1000, 16384};
    for (size_t k = 0; k < sizeof LENS / sizeof LENS[0]; k++) {
        const size_t n = LENS[k];
        float *g = malloc(sizeof(float) * (n ? n : 1)), *want = malloc(sizeof(float) * (n ? n : 1));
        assert_non_null(g);
        assert_non_null(want);
        rng_fill_uniform(&rng, g, n, -3, 3);
        long double ref = 0;
        for (size_t i = 0; i < n; i++) {
            want[i] = g[i] * 0.37f;
            ref += (long double)want[i] * want[i];
        }
        const double got = kernel_scale_sumsq(g, NULL, n, 0.37f);
        for (size_t i = 0; i < n; i++)
            assert_true(g[i] == want[i]);
        assert_true(fabs(got - (double)ref) <= 1e-12 * (double)ref + 1e-300);
        free(want);
        free(g);
    }
}

/* With a second block h: g = (g + h) · scale, h zeroed, the sum of squares of the new g. */
static void test_kernel_scale_sumsq_adds_second_block(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 14);
    enum { N = 37 };
    float g[N], h[N], want[N];
    rng_fill_uniform(&rng, g, N, -3, 3);
    rng_fill_uniform(&rng, h, N, -3, 3);
    double ref = 0;
    for (int i = 0; i < N; i++) {
        want[i] = (g[i] + h[i]) * 0.25f;
        ref += (double)want[i] * want[i];
    }
    const double got = kernel_scale_sumsq(g, h, N, 0.25f);
    assert_memory_equal(g, want, sizeof g);
    for (int i = 0; i < N; i++)
        assert_true(h[i] == 0.0f);
    assert_true(fabs(got - ref) <= 1e-12 * ref);
}

/* kernel_adamw's gscale gives, bit for bit, the step on gradients scaled beforehand (as
 * clipping did in a pass of its own). */
static void test_kernel_adamw_gscale_is_prescaling(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 12);
    enum { N = 77 };
    float p1[N], p2[N], g[N], gs[N], m1[N], m2[N], v1[N], v2[N];
    rng_fill_uniform(&rng, p1, N, -1, 1);
    rng_fill_uniform(&rng, g, N, -1, 1);
    rng_fill_uniform(&rng, m1, N, -0.1f, 0.1f);
    rng_fill_uniform(&rng, v1, N, 0.0f, 0.01f);
    memcpy(p2, p1, sizeof p1);
    memcpy(m2, m1, sizeof m1);
    memcpy(v2, v1, sizeof v1);
    const float scale = 0.3183f;
    for (int i = 0; i < N; i++)
        gs[i] = g[i] * scale;
    kernel_adamw(p1, gs, 1.0f, m1, v1, N, 0.9f, 0.98f, 1.1f, 1.2f, 1e-9f, 1e-3f, 0.01f);
    kernel_adamw(p2, g, scale, m2, v2, N, 0.9f, 0.98f, 1.1f, 1.2f, 1e-9f, 1e-3f, 0.01f);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(m1, m2, sizeof m1);
    assert_memory_equal(v1, v2, sizeof v1);
}

/* kernel_colsum_acc adds each column's sum, taken in row order, to what sums holds: the
 * same bits as the plain loop, for widths below, at and above one vector. */
static void test_kernel_colsum_acc(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 13);
    static const int WIDTHS[] = {1, 5, 16, 24, 37};
    enum { M = 29, LDA = 40 };
    float *a = random_matrix(&rng, M, LDA);
    for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
        const int n = WIDTHS[w];
        float got[40], want[40];
        for (int k = 0; k < n; k++)
            got[k] = want[k] = (float)k * 0.25f;
        for (int i = 0; i < M; i++)
            for (int k = 0; k < n; k++)
                want[k] += a[i * LDA + 3 + k];
        kernel_colsum_acc(got, a + 3, LDA, M, n);
        assert_memory_equal(got, want, sizeof(float) * (size_t)n);
    }
    free(a);
}

/* kernel_exp_sum against double-precision exp: every exponential within 4 float ulps
 * (relative 4.8e−7) over the range the loss meets, plus what rounding its argument to
 * float costs (|x| · 2⁻²⁴, relative), the sum within the same, at lengths
 * around the vector width (the tail path), with e the input itself (as the loss's
 * backward pass calls it) and without e. */
static void test_kernel_exp_sum_matches_exp(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 17);
    static const int LENGTHS[] = {1, 7, 16, 17, 31, 32, 33, 307};
    for (size_t li = 0; li < sizeof LENGTHS / sizeof LENGTHS[0]; li++) {
        const int n = LENGTHS[li];
        float *x = random_matrix(&rng, 1, n), *e = malloc(sizeof(float) * (size_t)n);
        assert_non_null(e);
        for (int i = 0; i < n; i++)
            x[i] *= 40.0f; /* logits of −40 .. 40 */
        const double shift = kernel_max(x, n) + 0.37;
        double want = 0.0;
        for (int i = 0; i < n; i++)
            want += exp((double)x[i] - shift);
        const double got = kernel_exp_sum(e, x, shift, n);
        assert_true(fabs(got - want) <= 1e-6 * want);
        assert_true(fabs(kernel_exp_sum(NULL, x, shift, n) - got) == 0.0);
        for (int i = 0; i < n; i++) {
            const double w = exp((double)x[i] - shift);
            const double arg_rounding = fabs((double)x[i] - shift) * 0x1p-24;
            assert_true(fabs(e[i] - w) <= (4.8e-7 + arg_rounding) * w);
        }
        kernel_exp_sum(x, x, shift, n); /* in place */
        assert_memory_equal(x, e, sizeof(float) * (size_t)n);
        free(x);
        free(e);
    }
    /* Across the reduction's range of n, where 2ⁿ is built in the exponent bits: −87
     * (the clamp) to 0 in small steps. */
    for (int step = 0; step <= 6692; step++) {
        float v = -87.0f + 0.013f * (float)step, out;
        kernel_exp_sum(&out, &v, 0.0, 1);
        assert_true(fabs(out - exp((double)v)) <= 4.8e-7 * exp((double)v));
    }
}

/* A NaN logit makes the sum NaN, so the training step's finiteness check sees it;
 * kernel_max passes over it as a `>` loop would. */
static void test_kernel_exp_sum_propagates_nan(void **state)
{
    (void)state;
    float x[20];
    for (int i = 0; i < 20; i++)
        x[i] = (float)i * -0.5f;
    x[18] = NAN;
    assert_true(kernel_max(x, 20) == 0.0f);
    assert_true(isnan(kernel_exp_sum(NULL, x, 0.0, 20)));
    x[18] = x[19] = -INFINITY; /* a logit of −inf is a term of (almost) nothing */
    assert_true(fabs(kernel_exp_sum(NULL, x, 0.0, 20) - kernel_exp_sum(NULL, x, 0.0, 18)) <
                1e-30);
}

/* Units in the last place between two positive doubles. */
static double ulps_apart(double a, double b)
{
    return fabs(a - b) / (nextafter(fmax(a, b), INFINITY) - fmax(a, b));
}

/* kernel_exp_sum_f64 against libm's exp: one value at a time (the sum of one term and
 * seven exact zeros is the term), each within one ulp over the whole range, in steps
 * that visit every entry of the table many times over, and equal to libm's for most
 * values of every entry (measured: at least 49 % of each, 75 % of all; one table entry
 * an ulp off leaves 10 % of its values equal); exactly 1 at the maximum;
 * libm's own value below the table's range (subnormal results) and 0 below that;
 * then sums at lengths around the vector width (the padded tail) against the
 * lanes' order written out, within an ulp per term. */
static void test_kernel_exp_sum_f64_matches_exp(void **state)
{
    (void)state;
    double worst = 0.0;
    int seen[64] = {0}, equal[64] = {0};
    for (int step = 0; step <= 2000000; step++) {
        const float v = -745.0f + 0.0003725f * (float)step;
        if (v > 0.0f)
            break;
        const double got = kernel_exp_sum_f64(&v, 0.0, 1), want = exp((double)v);
        if (want == 0.0) {
            assert_true(got == 0.0);
            continue;
        }
        if ((double)v < -708.0) {
            assert_true(got == want);
            continue;
        }
        worst = fmax(worst, ulps_apart(got, want));
        const int entry = (int)(llround((double)v * 64.0 / log(2.0)) & 63);
        seen[entry]++;
        equal[entry] += got == want;
    }
    assert_true(worst <= 1.0);
    assert_true(worst > 0.0); /* not libm's exp itself */
    for (int j = 0; j < 64; j++)
        assert_true(equal[j] > seen[j] / 3);
    const float zero = 0.0f, max = 3.5f;
    assert_true(kernel_exp_sum_f64(&zero, 0.0, 1) == 1.0);
    assert_true(kernel_exp_sum_f64(&max, 3.5, 1) == 1.0);
    const float tiny = -1000.0f;
    assert_true(kernel_exp_sum_f64(&tiny, 0.0, 1) == 0.0);

    Rng rng;
    rng_seed(&rng, 23);
    static const int LENGTHS[] = {1, 7, 8, 9, 15, 16, 17, 449};
    for (size_t li = 0; li < sizeof LENGTHS / sizeof LENGTHS[0]; li++) {
        const int n = LENGTHS[li];
        float *x = random_matrix(&rng, 1, n);
        for (int i = 0; i < n; i++)
            x[i] *= 40.0f; /* logits of −40 .. 40 */
        const double shift = kernel_max(x, n);
        double lane[8] = {0};
        for (int i = 0; i < n; i++)
            lane[i % 8] += exp((double)x[i] - shift);
        const double want =
            ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        const double got = kernel_exp_sum_f64(x, shift, n);
        assert_true(got >= 1.0);
        assert_true(ulps_apart(got, want) <= (double)n);
        free(x);
    }
}

/* kernel_sum: sixteen float lanes added in double, in lane order; checked against that
 * order written out, and against a double sum within float rounding. */
static void test_kernel_sum_and_max(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 19);
    for (int n = 1; n <= 70; n += 3) {
        float *x = random_matrix(&rng, 1, n);
        float lanes[16] = {0};
        double exact = 0.0;
        float max = x[0];
        for (int i = 0; i < n; i++) {
            lanes[i % 16] += x[i];
            exact += x[i];
            max = x[i] > max ? x[i] : max;
        }
        double want = 0.0;
        for (int l = 0; l < 16; l++)
            want += lanes[l];
        assert_true(kernel_sum(x, n) == want);
        assert_true(fabs(kernel_sum(x, n) - exact) < 1e-5);
        assert_true(kernel_max(x, n) == max);
        free(x);
    }
}

/* kernel_dots gives kernel_dot's bits for every row, at row counts around the eight
 * it takes at once and lengths around the eight partial sums (the dot product's tail). */
static void test_kernel_dots_are_kernel_dot(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 23);
    static const int NS[] = {1, 7, 8, 9, 16, 17, 40};
    static const int KS[] = {1, 7, 8, 13, 32, 64};
    for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++) {
            const int n = NS[ni], K = KS[ki], ld = K + 3;
            float *b = random_matrix(&rng, n, ld), *a = random_matrix(&rng, 1, K);
            float got[40], want[40];
            for (int j = 0; j < n; j++)
                want[j] = kernel_dot(a, b + (size_t)j * ld, K);
            kernel_dots(got, a, b, ld, n, K);
            assert_memory_equal(got, want, sizeof(float) * (size_t)n);
            free(a);
            free(b);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_matmul_matches_naive),
        cmocka_unit_test(test_kernel_matmul_nt_is_linear_layer),
        cmocka_unit_test(test_kernel_matmul_nt_all_paths),
        cmocka_unit_test(test_kernel_linear_backward_matches_naive),
        cmocka_unit_test(test_kernel_matmul_tiles_agree_bit_for_bit),
        cmocka_unit_test(test_kernel_matmul_rows_are_row_stable),
        cmocka_unit_test(test_kernel_relu_and_adamw),
        cmocka_unit_test(test_kernel_scale_sumsq),
        cmocka_unit_test(test_kernel_scale_sumsq_adds_second_block),
        cmocka_unit_test(test_kernel_colsum_acc),
        cmocka_unit_test(test_kernel_exp_sum_matches_exp),
        cmocka_unit_test(test_kernel_exp_sum_propagates_nan),
        cmocka_unit_test(test_kernel_exp_sum_f64_matches_exp),
        cmocka_unit_test(test_kernel_sum_and_max),
        cmocka_unit_test(test_kernel_dots_are_kernel_dot),
        cmocka_unit_test(test_kernel_adamw_gscale_is_prescaling),
        cmocka_unit_test(test_kernel_softmax_rows_sum_to_one),
        cmocka_unit_test(test_kernel_softmax_stable_for_huge_scores),
        cmocka_unit_test(test_kernel_softmax_masked_entries_are_zero),
        cmocka_unit_test(test_kernel_softmax_shift_invariant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
