/*
 * test_transformer.c — the encoder-decoder against PyTorch's nn.Transformer.
 *
 * tests/fixtures/gen_transformer_ref.py built two tiny models with PyTorch, wrote them as
 * model files with Python's sqlite3 (so this also shows that a file written by someone
 * else, following docs/model-format.md, loads), and recorded the encoder output, logits,
 * every attention weight and greedy decodes in transformer_ref.h (torch_refs.h holds them
 * as one table; the decodes are test_decode.c's). Agreement: 1e-4 for
 * logits and log-probabilities (float32 sums in another order through eight layers of
 * attention and LayerNorm), 1e-5 for attention weights and the encoder output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "model/model.h"
#include "nn/transformer.h"
#include "testutil.h"
#include "torch_refs.h"
#include "train/backprop.h"

#include <stdlib.h>
#include <string.h>

/* The encoder output and its self-attention weights equal PyTorch's. */
static void test_transformer_encoder_matches_torch(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Encoder e;
        load(&m, r);
        assert_int_equal(transformer_encoder_init(&e, &m), TT_OK);
        assert_int_equal(transformer_encode(&e, r->src_ids, r->S), TT_OK);
        const int D = m.config.d_model, LH = m.config.n_encoder_layers * m.config.n_heads;
        assert_close_array("encoder output", e.memory, r->enc_out, (size_t)r->S * D, 1e-5);
        for (int lh = 0; lh < LH; lh++)
            assert_close_array("encoder self-attention",
                               transformer_encoder_attention(&e, 0, lh / m.config.n_heads,
                                                             lh % m.config.n_heads),
                               r->enc_w + (size_t)lh * r->S * r->S, (size_t)r->S * r->S, 1e-5);
        transformer_encoder_free(&e);
        model_free(&m);
    }
}

/* The reference pair as a batch of one through the training forward pass (net.c):
 * src_ids ends in </s> and tgt_ids starts with <s>, which the trainer adds itself. */
static void batched_forward(Backprop *bp, const Model *m, const Reference *r)
{
    assert_int_equal(r->src_ids[r->S - 1], VOCAB_EOS);
    assert_int_equal(r->tgt_ids[0], VOCAB_BOS);
    assert_int_equal(backprop_init(bp, m, 1, r->S, r->T, 0.0f, NULL), TT_OK);
    const TrainPair pair = {r->src_ids, r->S - 1, r->tgt_ids + 1, r->T - 1, 0};
    assert_int_equal(backprop_set_batch(bp, &pair, 1), TT_OK);
    backprop_forward(bp, 0);
}

/* The forward pass training uses gives PyTorch's encoder output, logits and every
 * attention weight. */
static void test_transformer_batched_forward_matches_torch(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Backprop bp;
        load(&m, r);
        batched_forward(&bp, &m, r);
        const int D = m.config.d_model, V = m.tgt_vocab.size, H = m.config.n_heads;
        const int S = r->S, T = r->T;
        assert_close_array("encoder output", bp.acts.memory, r->enc_out, (size_t)S * D, 1e-5);
        assert_close_array("logits", bp.acts.logits, r->logits, (size_t)T * V, 1e-4);
        for (int l = 0; l < m.config.n_encoder_layers; l++)
            assert_close_array("encoder self-attention", bp.acts.enc[l].att,
                               r->enc_w + (size_t)l * H * S * S, (size_t)H * S * S, 1e-5);
        for (int l = 0; l < m.config.n_decoder_layers; l++) {
            assert_close_array("decoder self-attention", bp.acts.dec[l].att,
                               r->self_w + (size_t)l * H * T * T, (size_t)H * T * T, 1e-5);
            assert_close_array("cross-attention", bp.acts.dec[l].catt,
                               r->cross_w + (size_t)l * H * T * S, (size_t)H * T * S, 1e-5);
        }
        backprop_free(&bp);
        model_free(&m);
    }
}

/* The cached decoder, one step at a time (net_decoder_forward with a cache, T = 1),
 * gives the whole-batch pass's logits and attention weights at every position (1e-5),
 * from the inference encoder's memory, which equals the batched encoder's. */
static void test_transformer_cache_equals_batched_forward(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Backprop bp;
        Encoder e;
        DecoderState d;
        load(&m, r);
        batched_forward(&bp, &m, r);
        assert_int_equal(transformer_encoder_init(&e, &m), TT_OK);
        assert_int_equal(transformer_state_init(&d, &m), TT_OK);
        assert_int_equal(transformer_encode(&e, r->src_ids, r->S), TT_OK);
        const int D = m.config.d_model, V = m.tgt_vocab.size, H = m.config.n_heads;
        const int L = m.config.n_decoder_layers, T = r->T, S = r->S;
        assert_close_array("encoder memory", e.memory, bp.acts.memory, (size_t)S * D, 1e-5);
        assert_int_equal(transformer_state_reserve(&d, 1, 1, T, S), TT_OK);
        const int slot = 0, sent = 0;
        for (int t = 0; t < T; t++) {
            assert_int_equal(transformer_step(&d, &e, &r->tgt_ids[t], &slot, &sent, 1, t, NULL),
                             TT_OK);
            assert_close_array("cached logits", transformer_state_logits(&d, 0),
                               bp.acts.logits + (size_t)t * V, (size_t)V, 1e-5);
            for (int l = 0; l < L; l++)
                for (int h = 0; h < H; h++) {
                    assert_close_array("cached self weights", transformer_state_self(&d, l, 0, h),
                                       bp.acts.dec[l].att + ((size_t)h * T + t) * T,
                                       (size_t)t + 1, 1e-5);
                    assert_close_array("cached cross weights", transformer_state_cross(&d, l, 0, h),
                                       bp.acts.dec[l].catt + ((size_t)h * T + t) * S, (size_t)S,
                                       1e-5);
                }
        }
        /* A step past the room made is refused. */
        assert_true(d.cap >= T);
        assert_int_equal(transformer_step(&d, &e, &r->tgt_ids[0], &slot, &sent, 1, d.cap,
                                          NULL),
                         TT_EINVAL);
        transformer_state_free(&d);
        transformer_encoder_free(&e);
        backprop_free(&bp);
        model_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transformer_encoder_matches_torch),
        cmocka_unit_test(test_transformer_batched_forward_matches_torch),
        cmocka_unit_test(test_transformer_cache_equals_batched_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
