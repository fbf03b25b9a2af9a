/*
 * test_attention.c — one head of scaled dot-product attention (nn/attention.c): a causal
 * query alone equals its row, huge scores stay finite, bad arguments are refused. The
 * multi-head block built from it is test_net.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "base/status.h"
#include "nn/attention.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A causal query computed alone at position p (q_pos = p, as incremental decoding will)
 * equals row p of the full causal computation. */
static void test_attention_causal_single_query_equals_row(void **state)
{
    (void)state;
    enum { T = 7, DK = 4, DV = 3 };
    float q[T * DK], k[T * DK], v[T * DV];
    Rng rng;
    rng_seed(&rng, 5);
    rng_fill_uniform(&rng, q, T * DK, -2, 2);
    rng_fill_uniform(&rng, k, T * DK, -2, 2);
    rng_fill_uniform(&rng, v, T * DV, -2, 2);
    float ctx[T * DV], w[T * T], scores[T * T];
    AttnShape s = {.Tq = T, .Tk = T, .dk = DK, .dv = DV, .scale = 0.5f, .causal = 1};
    assert_int_equal(attention_head_forward(ctx, DV, w, scores, (AttnView){q, DK},
                                            (AttnView){k, DK}, (AttnView){v, DV}, &s),
                     TT_OK);
    for (int p = 0; p < T; p++) {
        float c1[DV], w1[T];
        /* Keys beyond p exist in memory but must not be seen. */
        AttnShape one = {.Tq = 1, .Tk = T, .dk = DK, .dv = DV, .scale = 0.5f, .causal = 1,
                         .q_pos = p};
        assert_int_equal(attention_head_forward(c1, DV, w1, NULL, (AttnView){q + p * DK, DK},
                                                (AttnView){k, DK}, (AttnView){v, DV}, &one),
                         TT_OK);
        assert_close_array("causal row alone", c1, ctx + p * DV, DV, 1e-6);
        assert_close_array("causal weights alone", w1, w + p * T, T, 1e-6);
    }
    /* The unscaled scores are kept for every pair, masked or not. */
    assert_float_equal(scores[0 * T + 6], q[0] * k[6 * DK] + q[1] * k[6 * DK + 1] +
                                              q[2] * k[6 * DK + 2] + q[3] * k[6 * DK + 3],
                       1e-5);
}

/* Huge scores (±1e4 after scaling) give finite weights that still sum to 1. */
static void test_attention_huge_scores_stay_finite(void **state)
{
    (void)state;
    float q[2] = {100.0f, -100.0f}, k[3 * 2] = {100.0f, 0.0f, -100.0f, 0.0f, 0.0f, 100.0f};
    float v[3] = {1.0f, 2.0f, 3.0f}, ctx[2], w[2 * 3];
    /* Two queries of width 1 taken as rows of a strided view: q0 = 100, q1 = -100. */
    AttnShape s = {.Tq = 2, .Tk = 3, .dk = 1, .dv = 1, .scale = 1.0f};
    assert_int_equal(attention_head_forward(ctx, 1, w, NULL, (AttnView){q, 1},
                                            (AttnView){k, 2}, (AttnView){v, 1}, &s),
                     TT_OK);
    for (int i = 0; i < 6; i++)
        assert_true(isfinite(w[i]));
    /* scores: q0·k = [1e4, -1e4, 0] → all weight on key 0; q1 → all on key 1. */
    assert_float_equal(w[0], 1.0, 1e-7);
    assert_float_equal(w[4], 1.0, 1e-7);
    assert_float_equal(ctx[0], 1.0, 1e-6);
    assert_float_equal(ctx[1], 2.0, 1e-6);
}

/* Zero dimensions, NULL pointers, narrow strides and impossible causal positions are
 * refused with TT_EINVAL, never a crash. (net_mha_forward's shapes are the caller's
 * invariants, which it asserts.) */
static void test_attention_bad_arguments(void **state)
{
    (void)state;
    float buf[64] = {0}, w[16];
    AttnView view = {buf, 4};
    AttnShape ok = {.Tq = 2, .Tk = 2, .dk = 4, .dv = 4, .scale = 1.0f};
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &ok), TT_OK);

    AttnShape s = ok;
    s.Tq = 0;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.Tk = 0;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.dk = 0;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.dv = -1;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.scale = NAN;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.causal = 1, s.q_pos = 2;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    s = ok, s.causal = 1, s.q_pos = -1;
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, &s), TT_EINVAL);
    AttnView narrow = {buf, 3};
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, narrow, view, view, &ok), TT_EINVAL);
    AttnView null_view = {NULL, 4};
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, null_view, view, &ok), TT_EINVAL);
    assert_int_equal(attention_head_forward(buf, 3, w, NULL, view, view, view, &ok), TT_EINVAL);
    assert_int_equal(attention_head_forward(NULL, 4, w, NULL, view, view, view, &ok), TT_EINVAL);
    assert_int_equal(attention_head_forward(buf, 4, NULL, NULL, view, view, view, &ok), TT_EINVAL);
    assert_int_equal(attention_head_forward(buf, 4, w, NULL, view, view, view, NULL), TT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_causal_single_query_equals_row),
        cmocka_unit_test(test_attention_huge_scores_stay_finite),
        cmocka_unit_test(test_attention_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
