/*
 * test_headtrace.c — one head of a model, stage by stage (headtrace.h), on the test
 * fixtures tests/fixtures/tiny.db (no query/key/value biases) and tiny_bias.db (with them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "model/model.h"
#include "show/headtrace.h"

#include <math.h>
#include <string.h>

/* A sentence pair within both fixtures' vocabularies (13 source, 15 target ids). */
static const int SRC[] = {4, 7, 5, 9};
static const int TGT[] = {6, 4, 11};
enum { N_SRC = 4, N_TGT = 3 };

static const char *const MODELS[] = {"tests/fixtures/tiny.db", "tests/fixtures/tiny_bias.db"};

static void load(Model *m, const char *path)
{
    char err[256];
    const int rc = model_load_file(m, path, err, sizeof err);
    if (rc != TT_OK)
        print_error("%s: %s\n", path, err);
    assert_int_equal(rc, TT_OK);
}

/* The kinds' names parse back to the kinds; anything else is -1. */
static void test_headtrace_kind_names_round_trip(void **state)
{
    (void)state;
    for (int k = HEADTRACE_ENC_SELF; k <= HEADTRACE_CROSS; k++)
        assert_int_equal(headtrace_kind_parse(headtrace_kind_name((HeadTraceKind)k)), k);
    assert_int_equal(headtrace_kind_parse("self"), -1);
}

/* Every head of every layer of every kind, in both fixtures: the shapes are the
 * sentence's, each row of weights sums to 1 (masked entries exactly 0), the stages
 * equal the forward pass's own numbers, and every row computed alone equals its row of
 * the batch. */
static void test_headtrace_matches_forward_pass_and_token_alone(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof MODELS / sizeof MODELS[0]; f++) {
        Model m;
        load(&m, MODELS[f]);
        const ModelConfig *c = &m.config;
        for (int kind = HEADTRACE_ENC_SELF; kind <= HEADTRACE_CROSS; kind++) {
            const int L = kind == HEADTRACE_ENC_SELF ? c->n_encoder_layers : c->n_decoder_layers;
            for (int l = 0; l < L; l++)
                for (int hd = 0; hd < c->n_heads; hd++) {
                    HeadTrace h;
                    assert_int_equal(headtrace_run(&h, &m, (HeadTraceKind)kind, l, hd, SRC, N_SRC,
                                                   TGT, N_TGT),
                                     TT_OK);
                    assert_int_equal(h.Tq, kind == HEADTRACE_ENC_SELF ? N_SRC + 1 : N_TGT + 1);
                    assert_int_equal(h.Tk, kind == HEADTRACE_DEC_SELF ? N_TGT + 1 : N_SRC + 1);
                    assert_int_equal(h.Dh, c->d_model / c->n_heads);
                    assert_int_equal(h.b_q != NULL, c->qkv_bias != 0);
                    float proj, wdiff;
                    headtrace_compare(&h, &proj, &wdiff);
                    if (proj > 1e-5f || wdiff > 1e-6f) {
                        print_error("%s %s layer %d head %d: projections %g, weights %g\n",
                                    MODELS[f], headtrace_kind_name((HeadTraceKind)kind), l, hd,
                                    (double)proj, (double)wdiff);
                        fail();
                    }
                    float w[16], ctx[16];
                    assert_true(h.Tk <= 16 && h.Dh <= 16);
                    for (int i = 0; i < h.Tq; i++) {
                        double sum = 0.0;
                        for (int j = 0; j < h.Tk; j++) {
                            const float v = h.weights[(size_t)i * h.Tk + j];
                            if (h.causal && j > i)
                                assert_true(v == 0.0f);
                            sum += v;
                        }
                        assert_float_equal(sum, 1.0, 1e-5);
                        assert_int_equal(headtrace_token(&h, i, w, ctx), TT_OK);
                        for (int j = 0; j < h.Tk; j++)
                            assert_float_equal(w[j], h.weights[(size_t)i * h.Tk + j], 1e-6);
                        for (int d = 0; d < h.Dh; d++)
                            assert_float_equal(ctx[d], h.ctx[(size_t)i * h.Dh + d], 1e-6);
                    }
                    assert_int_equal(headtrace_token(&h, h.Tq, w, ctx), TT_EINVAL);
                    headtrace_free(&h);
                }
        }
        model_free(&m);
    }
}

/* A layer, a head or a sentence the model does not have is refused, and nothing is
 * left owned. */
static void test_headtrace_rejects_what_the_model_lacks(void **state)
{
    (void)state;
    Model m;
    load(&m, MODELS[0]);
    HeadTrace h;
    assert_int_equal(headtrace_run(&h, &m, HEADTRACE_ENC_SELF, m.config.n_encoder_layers, 0,
                                   SRC, N_SRC, TGT, N_TGT),
                     TT_EINVAL);
    assert_null(h.block);
    assert_int_equal(headtrace_run(&h, &m, HEADTRACE_CROSS, 0, m.config.n_heads, SRC, N_SRC,
                                   TGT, N_TGT),
                     TT_EINVAL);
    const int bad[] = {4, 999};
    assert_int_equal(headtrace_run(&h, &m, HEADTRACE_ENC_SELF, 0, 0, bad, 2, TGT, N_TGT),
                     TT_EINVAL);
    int many[64] = {0};
    for (int i = 0; i < 64; i++)
        many[i] = 4;
    assert_int_equal(headtrace_run(&h, &m, HEADTRACE_ENC_SELF, 0, 0, many, m.config.max_len,
                                   TGT, N_TGT),
                     TT_EINVAL);
    headtrace_free(&h);
    headtrace_free(NULL);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headtrace_kind_names_round_trip),
        cmocka_unit_test(test_headtrace_matches_forward_pass_and_token_alone),
        cmocka_unit_test(test_headtrace_rejects_what_the_model_lacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
