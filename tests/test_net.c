/*
 * test_net.c — the network's multi-head attention block (nn/net.c's net_mha_forward, the
 * one training and the encoder run): self-attention, the causal mask, cross-attention and
 * padded batches agree with PyTorch's nn.MultiheadAttention (tests/fixtures/
 * attention_ref.h, made by gen_attention_ref.py beside it), and one head of width D is
 * plain single-head attention. The layers' gradients are test_grad.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "base/status.h"
#include "fixtures/attention_ref.h"
#include "nn/attention.h"
#include "nn/net.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { D = 8, H = 2, DH = D / H, TA = 5, TB = 3 };

static MhaWeights ref_weights(void)
{
    return (MhaWeights){
        .d_model = D, .n_heads = H,
        .w_query = REF_MHA_WQ, .w_key = REF_MHA_WK, .w_value = REF_MHA_WV,
        .b_query = REF_MHA_BQ, .b_key = REF_MHA_BK, .b_value = REF_MHA_BV,
        .w_out = REF_MHA_WO, .b_out = REF_MHA_BO,
    };
}

/* The multi-head tests below run net_mha_forward (net.h): the very block that training,
 * validation and translation's encoder run in every layer, over a batch of B sentences
 * of Tq query and Tk key rows (padding included), on the calling thread. */
typedef struct {
    NetMha m;
    NetCtx c;
    float *out;         /* (B·Tq, D) */
    int lq1, lk1;       /* one sentence's lengths, which m points at */
} MhaRun;

/* n floats, every one NaN: whatever the block leaves unwritten shows in the results. */
static float *nan_array(size_t n)
{
    float *x = malloc(n * sizeof(float));
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
    return x;
}

/* Allocates run's activations and output for w, B sentences of lq[b] ≤ Tq query and
 * lk[b] ≤ Tk key rows. */
static void mha_run_init(MhaRun *run, const MhaWeights *w, int B, int Tq, int Tk,
                         const int *lq, const int *lk, int causal)
{
    const size_t dm = (size_t)w->d_model;
    run->m = (NetMha){.w = w, .lq = lq, .lk = lk, .Tq = Tq, .Tk = Tk, .causal = causal};
    run->m.q = nan_array((size_t)B * Tq * dm);
    run->m.k = nan_array((size_t)B * Tk * dm);
    run->m.v = nan_array((size_t)B * Tk * dm);
    run->m.att = nan_array((size_t)B * w->n_heads * Tq * Tk);
    run->m.ctx = nan_array((size_t)B * Tq * dm);
    run->out = nan_array((size_t)B * Tq * dm);
    run->c = (NetCtx){.D = w->d_model, .H = w->n_heads, .eps = 1e-5f};
}

static void mha_run_free(MhaRun *run)
{
    free(run->out);
    free(run->m.ctx);
    free(run->m.att);
    free(run->m.v);
    free(run->m.k);
    free(run->m.q);
}

/* One sentence: out = MHA(xq (Tq, D), xkv (Tk, D)); run keeps the weights. */
static void mha_run_one(MhaRun *run, const MhaWeights *w, const float *xq, int Tq,
                        const float *xkv, int Tk, int causal)
{
    run->lq1 = Tq, run->lk1 = Tk;
    mha_run_init(run, w, 1, Tq, Tk, &run->lq1, &run->lk1, causal);
    net_mha_forward(run->out, &run->m, xq, xkv, 1, NULL, &run->c);
}

/* Multi-head self-attention equals nn.MultiheadAttention: output and each head's weights. */
static void test_net_mha_self_matches_torch(void **state)
{
    (void)state;
    MhaWeights w = ref_weights();
    MhaRun run;
    mha_run_one(&run, &w, REF_MHA_XA, TA, REF_MHA_XA, TA, 0);
    assert_close_array("self out", run.out, REF_MHA_SELF_OUT, TA * D, 1e-5);
    assert_close_array("self weights", run.m.att, REF_MHA_SELF_WEIGHTS, H * TA * TA, 1e-6);
    mha_run_free(&run);
}

/* The causal mask (decoder self-attention) equals PyTorch's with a -inf upper triangle,
 * and puts exactly zero weight on every future position. */
static void test_net_mha_causal_matches_torch(void **state)
{
    (void)state;
    MhaWeights w = ref_weights();
    MhaRun run;
    mha_run_one(&run, &w, REF_MHA_XA, TA, REF_MHA_XA, TA, 1);
    assert_close_array("causal out", run.out, REF_MHA_CAUSAL_OUT, TA * D, 1e-5);
    assert_close_array("causal weights", run.m.att, REF_MHA_CAUSAL_WEIGHTS, H * TA * TA, 1e-6);
    for (int h = 0; h < H; h++)
        for (int r = 0; r < TA; r++) {
            double sum = 0;
            for (int j = 0; j < TA; j++) {
                float x = run.m.att[(h * TA + r) * TA + j];
                if (j > r)
                    assert_true(x == 0.0f);
                sum += x;
            }
            assert_float_equal(sum, 1.0, 1e-6);
        }
    mha_run_free(&run);
}

/* Cross-attention (3 queries from one sequence, 5 keys and values from another) equals
 * PyTorch's, shapes [Tq, D] out and [H, Tq, Tk] weights. */
static void test_net_mha_cross_matches_torch(void **state)
{
    (void)state;
    MhaWeights w = ref_weights();
    MhaRun run;
    mha_run_one(&run, &w, REF_MHA_XB, TB, REF_MHA_XA, TA, 0);
    assert_close_array("cross out", run.out, REF_MHA_CROSS_OUT, TB * D, 1e-5);
    assert_close_array("cross weights", run.m.att, REF_MHA_CROSS_WEIGHTS, H * TB * TA, 1e-6);
    mha_run_free(&run);
}

/* In a padded batch each sentence still equals PyTorch's, whatever its padding holds:
 * sentence 0 is the cross-attention fixture (3 of 5 query rows real), sentence 1 the
 * self-attention fixture as cross-attention of XA on a copy of XA, and both have a
 * sixth key row of padding; a padding query row's output is b_out. */
static void test_net_mha_padded_batch_matches_torch(void **state)
{
    (void)state;
    enum { B = 2, TQ = TA, TK = TA + 1 };
    static const int lq[B] = {TB, TA}, lk[B] = {TA, TA};
    float xq[B * TQ * D], xkv[B * TK * D];
    for (int i = 0; i < B * TQ * D; i++)
        xq[i] = 1e3f; /* padding: it would swamp any sum it entered */
    for (int i = 0; i < B * TK * D; i++)
        xkv[i] = 1e3f;
    memcpy(xq, REF_MHA_XB, sizeof REF_MHA_XB);
    memcpy(xq + TQ * D, REF_MHA_XA, sizeof REF_MHA_XA);
    memcpy(xkv, REF_MHA_XA, sizeof REF_MHA_XA);
    memcpy(xkv + TK * D, REF_MHA_XA, sizeof REF_MHA_XA);
    MhaWeights w = ref_weights();
    MhaRun run;
    mha_run_init(&run, &w, B, TQ, TK, lq, lk, 0);
    net_mha_forward(run.out, &run.m, xq, xkv, B, NULL, &run.c);
    assert_close_array("batch cross out", run.out, REF_MHA_CROSS_OUT, TB * D, 1e-5);
    for (int r = TB; r < TQ; r++)
        assert_close_array("batch padding out", run.out + r * D, REF_MHA_BO, D, 0.0);
    assert_close_array("batch self out", run.out + TQ * D, REF_MHA_SELF_OUT, TA * D, 1e-5);
    for (int h = 0; h < H; h++) {
        assert_close_array("batch cross weights", run.m.att + h * TQ * TK,
                           REF_MHA_CROSS_WEIGHTS + h * TB * TA, TB * TA, 1e-6);
        assert_close_array("batch self weights", run.m.att + (H + h) * TQ * TK,
                           REF_MHA_SELF_WEIGHTS + h * TA * TA, TA * TA, 1e-6);
    }
    mha_run_free(&run);
}

/* One head of width D and no biases is plain single-head attention with 1/√D scaling. */
static void test_net_mha_one_head_is_single_head(void **state)
{
    (void)state;
    enum { T = 4, DM = 6 };
    float x[T * DM], wq[DM * DM], wk[DM * DM], wv[DM * DM], wo[DM * DM] = {0};
    Rng rng;
    rng_seed(&rng, 11);
    rng_fill_uniform(&rng, x, T * DM, -1, 1);
    rng_fill_uniform(&rng, wq, DM * DM, -1, 1);
    rng_fill_uniform(&rng, wk, DM * DM, -1, 1);
    rng_fill_uniform(&rng, wv, DM * DM, -1, 1);
    for (int i = 0; i < DM; i++)
        wo[i * DM + i] = 1.0f; /* identity output projection */
    MhaWeights w = {.d_model = DM, .n_heads = 1, .w_query = wq, .w_key = wk, .w_value = wv,
                    .w_out = wo};
    MhaRun run;
    mha_run_one(&run, &w, x, T, x, T, 0);
    const float *out = run.out;

    /* The same in double, straight from the definition. */
    double q[T][DM], k[T][DM], v[T][DM];
    for (int t = 0; t < T; t++)
        for (int o = 0; o < DM; o++) {
            q[t][o] = k[t][o] = v[t][o] = 0;
            for (int i = 0; i < DM; i++) {
                q[t][o] += (double)x[t * DM + i] * wq[o * DM + i];
                k[t][o] += (double)x[t * DM + i] * wk[o * DM + i];
                v[t][o] += (double)x[t * DM + i] * wv[o * DM + i];
            }
        }
    float want[T * DM];
    for (int r = 0; r < T; r++) {
        double s[T], max = -INFINITY, sum = 0;
        for (int j = 0; j < T; j++) {
            s[j] = 0;
            for (int c = 0; c < DM; c++)
                s[j] += q[r][c] * k[j][c];
            s[j] /= sqrt((double)DM);
            if (s[j] > max)
                max = s[j];
        }
        for (int j = 0; j < T; j++)
            sum += (s[j] = exp(s[j] - max));
        for (int c = 0; c < DM; c++) {
            double acc = 0;
            for (int j = 0; j < T; j++)
                acc += s[j] / sum * v[j][c];
            want[r * DM + c] = (float)acc;
        }
    }
    assert_close_array("one-head mha", out, want, T * DM, 1e-5);
    mha_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_net_mha_self_matches_torch),
        cmocka_unit_test(test_net_mha_causal_matches_torch),
        cmocka_unit_test(test_net_mha_cross_matches_torch),
        cmocka_unit_test(test_net_mha_padded_batch_matches_torch),
        cmocka_unit_test(test_net_mha_one_head_is_single_head),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
