/*
 * test_kernel.c — the numerical kernels against straightforward double-precision loops.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel.h"
#include "rng.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

static float *random_matrix(Rng *rng, int rows, int cols)
{
    float *m = malloc(sizeof(float) * (size_t)rows * cols);
    assert_non_null(m);
    rng_fill_uniform(rng, m, (size_t)rows * cols, -1.0f, 1.0f);
    return m;
}

/* kernel_matmul equals a double-precision triple loop on odd, non-square shapes. */
static void test_kernel_matmul_matches_naive(void **state)
{
    (void)state;
    static const int SHAPES[][3] = {{1, 1, 1}, {3, 5, 7}, {6, 3, 2}, {17, 33, 9}, {64, 64, 256}};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_matmul_matches_naive),
        cmocka_unit_test(test_kernel_matmul_nt_is_linear_layer),
        cmocka_unit_test(test_kernel_softmax_rows_sum_to_one),
        cmocka_unit_test(test_kernel_softmax_stable_for_huge_scores),
        cmocka_unit_test(test_kernel_softmax_masked_entries_are_zero),
        cmocka_unit_test(test_kernel_softmax_shift_invariant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
