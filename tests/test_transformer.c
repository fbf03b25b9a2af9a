/*
 * test_transformer.c — the encoder-decoder against PyTorch's nn.Transformer.
 *
 * tests/fixtures/gen_transformer_ref.py built two tiny models with PyTorch, wrote them as
 * model files with Python's sqlite3 (so this also shows that a file written by someone
 * else, following docs/model-format.md, loads), and recorded the encoder output, logits,
 * every attention weight and greedy decodes in transformer_ref.h. Agreement: 1e-4 for
 * logits and log-probabilities (float32 sums in another order through eight layers of
 * attention and LayerNorm), 1e-5 for attention weights and the encoder output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "fixtures/transformer_ref.h"
#include "model/model.h"
#include "translate/decode.h"
#include "testutil.h"
#include "nn/transformer.h"
#include "train/backprop.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const int *src;
    int S;
    const int *prefix;
    int n_prefix;
    const int *ids;
    const float *logprobs;
    int n;
} DecodeCase;

typedef struct {
    const char *path;
    int qkv_bias;
    const int *src_ids, *tgt_ids;
    int S, T;
    const float *enc_out, *logits, *enc_w, *self_w, *cross_w;
    DecodeCase cases[4];
    int n_cases;
} Reference;

#define CASE(P, NAME)                                                                      \
    {P##_##NAME##_SRC, P##_##NAME##_SRC_LEN, NULL, 0, P##_##NAME##_IDS, P##_##NAME##_LOGPROBS, \
     P##_##NAME##_LEN}
#define FORCED(P)                                                                          \
    {P##_FORCED_SRC, P##_FORCED_SRC_LEN, P##_FORCED_PREFIX, P##_FORCED_PREFIX_LEN,          \
     P##_FORCED_IDS, P##_FORCED_LOGPROBS, P##_FORCED_LEN}

static const Reference REFS[2] = {
    {"tests/fixtures/tiny.db", 0, REF_TINY_SRC_IDS, REF_TINY_TGT_IDS, REF_TINY_S, REF_TINY_T,
     REF_TINY_ENC_OUT, REF_TINY_LOGITS, REF_TINY_ENC_SELF_W, REF_TINY_DEC_SELF_W,
     REF_TINY_DEC_CROSS_W,
     {CASE(REF_TINY, GREEDY_A), CASE(REF_TINY, GREEDY_B), FORCED(REF_TINY)}, 3},
    {"tests/fixtures/tiny_bias.db", 1, REF_TINYB_SRC_IDS, REF_TINYB_TGT_IDS, REF_TINYB_S,
     REF_TINYB_T, REF_TINYB_ENC_OUT, REF_TINYB_LOGITS, REF_TINYB_ENC_SELF_W,
     REF_TINYB_DEC_SELF_W, REF_TINYB_DEC_CROSS_W,
     {CASE(REF_TINYB, GREEDY_A), CASE(REF_TINYB, GREEDY_B), CASE(REF_TINYB, GREEDY_EOS),
      FORCED(REF_TINYB)}, 4},
};

static void load(Model *m, const Reference *r)
{
    char err[512];
    int rc = model_load_file(m, r->path, err, sizeof err);
    if (rc != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(m->config.qkv_bias, r->qkv_bias);
}

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
static void batched_forward(Backprop *tr, const Model *m, const Reference *r)
{
    assert_int_equal(r->src_ids[r->S - 1], VOCAB_EOS);
    assert_int_equal(r->tgt_ids[0], VOCAB_BOS);
    assert_int_equal(backprop_init(tr, m, 1, r->S, r->T, 0.0f, NULL), TT_OK);
    const TrainPair pair = {r->src_ids, r->S - 1, r->tgt_ids + 1, r->T - 1, 0};
    assert_int_equal(backprop_set_batch(tr, &pair, 1), TT_OK);
    backprop_forward(tr, 0);
}

/* The forward pass training uses gives PyTorch's encoder output, logits and every
 * attention weight. */
static void test_transformer_batched_forward_matches_torch(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Backprop tr;
        load(&m, r);
        batched_forward(&tr, &m, r);
        const int D = m.config.d_model, V = m.tgt_vocab.size, H = m.config.n_heads;
        const int S = r->S, T = r->T;
        assert_close_array("encoder output", tr.acts.memory, r->enc_out, (size_t)S * D, 1e-5);
        assert_close_array("logits", tr.acts.logits, r->logits, (size_t)T * V, 1e-4);
        for (int l = 0; l < m.config.n_encoder_layers; l++)
            assert_close_array("encoder self-attention", tr.acts.enc[l].att,
                               r->enc_w + (size_t)l * H * S * S, (size_t)H * S * S, 1e-5);
        for (int l = 0; l < m.config.n_decoder_layers; l++) {
            assert_close_array("decoder self-attention", tr.acts.dec[l].att,
                               r->self_w + (size_t)l * H * T * T, (size_t)H * T * T, 1e-5);
            assert_close_array("cross-attention", tr.acts.dec[l].catt,
                               r->cross_w + (size_t)l * H * T * S, (size_t)H * T * S, 1e-5);
        }
        backprop_free(&tr);
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
        Backprop tr;
        Encoder e;
        DecoderState d;
        load(&m, r);
        batched_forward(&tr, &m, r);
        assert_int_equal(transformer_encoder_init(&e, &m), TT_OK);
        assert_int_equal(transformer_state_init(&d, &m), TT_OK);
        assert_int_equal(transformer_encode(&e, r->src_ids, r->S), TT_OK);
        const int D = m.config.d_model, V = m.tgt_vocab.size, H = m.config.n_heads;
        const int L = m.config.n_decoder_layers, T = r->T, S = r->S;
        assert_close_array("encoder memory", e.memory, tr.acts.memory, (size_t)S * D, 1e-5);
        assert_int_equal(transformer_state_reserve(&d, 1, 1, T, S), TT_OK);
        const int slot = 0, sent = 0;
        for (int t = 0; t < T; t++) {
            assert_int_equal(transformer_step(&d, &e, &r->tgt_ids[t], &slot, &sent, 1, t, NULL),
                             TT_OK);
            assert_close_array("cached logits", transformer_state_logits(&d, 0),
                               tr.acts.logits + (size_t)t * V, (size_t)V, 1e-5);
            for (int l = 0; l < L; l++)
                for (int h = 0; h < H; h++) {
                    assert_close_array("cached self weights", transformer_state_self(&d, l, 0, h),
                                       tr.acts.dec[l].att + ((size_t)h * T + t) * T,
                                       (size_t)t + 1, 1e-5);
                    assert_close_array("cached cross weights", transformer_state_cross(&d, l, 0, h),
                                       tr.acts.dec[l].catt + ((size_t)h * T + t) * S, (size_t)S,
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
        backprop_free(&tr);
        model_free(&m);
    }
}

/* Greedy decoding, with and without a forced prefix, chooses PyTorch's tokens with its
 * log-probabilities, and stops where the rules say (max_len or </s>). */
static void test_transformer_greedy_matches_torch(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Search dec;
        Translation t;
        load(&m, r);
        assert_int_equal(decode_init(&dec, &m, 1), TT_OK);
        assert_int_equal(translation_init(&t, &m, 3), TT_OK);
        for (int c = 0; c < r->n_cases; c++) {
            const DecodeCase *dc = &r->cases[c];
            const DecodeOptions o = {.beam = 1, .max_len = m.config.max_len,
                                     .prefix = dc->prefix, .n_prefix = dc->n_prefix};
            assert_int_equal(decode_run(&dec, &t, dc->src, dc->S, &o), TT_OK);
            assert_int_equal(t.n, dc->n);
            assert_int_equal(t.n_forced, dc->n_prefix);
            assert_memory_equal(t.ids, dc->ids, sizeof(int) * (size_t)dc->n);
            assert_close_array("log-probabilities", t.logprob, dc->logprobs, (size_t)dc->n, 1e-4);
            /* The best alternative of a free step is the chosen token. */
            for (int i = dc->n_prefix; i < t.n; i++)
                assert_int_equal(t.alt_ids[i * t.alt_k], t.ids[i]);
        }
        translation_free(&t);
        decode_free(&dec);
        model_free(&m);
    }
}

/* Beam 1 is greedy to the bit, also when an n-best list is asked for (greedy's output
 * is then its only entry); a wider beam returns a finished, non-empty output whose
 * recorded log-probabilities are those of its tokens. */
static void test_transformer_beam(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Search dec;
        Translation greedy, beam1, beam4;
        load(&m, r);
        assert_int_equal(decode_init(&dec, &m, 4), TT_OK);
        assert_int_equal(translation_init(&greedy, &m, 0), TT_OK);
        assert_int_equal(translation_init(&beam1, &m, 0), TT_OK);
        assert_int_equal(translation_init(&beam4, &m, 0), TT_OK);
        const int N = m.config.max_len;
        for (int c = 0; c < r->n_cases; c++) {
            const DecodeCase *dc = &r->cases[c];
            DecodeOptions o = {.beam = 1, .max_len = N, .prefix = dc->prefix,
                               .n_prefix = dc->n_prefix};
            assert_int_equal(decode_run(&dec, &greedy, dc->src, dc->S, &o), TT_OK);
            assert_int_equal(decode_n_best(&dec), 0);
            /* An n-best list of beam 1 does not change the bits. */
            o.n_best = 1;
            assert_int_equal(decode_run(&dec, &beam1, dc->src, dc->S, &o), TT_OK);
            assert_int_equal(decode_n_best(&dec), 1);
            const int *hyp;
            int n_hyp;
            double hyp_sum, hyp_score;
            decode_hypothesis(&dec, 0, &hyp, &n_hyp, &hyp_sum, &hyp_score);
            assert_int_equal(n_hyp, greedy.n);
            assert_memory_equal(hyp, greedy.ids, sizeof(int) * (size_t)greedy.n);
            assert_float_equal(hyp_score, hyp_sum / n_hyp, 1e-12);
            assert_int_equal(beam1.n, greedy.n);
            assert_memory_equal(beam1.ids, greedy.ids, sizeof(int) * (size_t)greedy.n);
            assert_memory_equal(beam1.logprob, greedy.logprob, sizeof(float) * (size_t)greedy.n);
            for (int i = 0; i < greedy.n; i++)
                for (int l = 0; l < greedy.L; l++)
                    for (int h = 0; h < greedy.H; h++)
                        assert_memory_equal(translation_cross(&beam1, i, l, h),
                                            translation_cross(&greedy, i, l, h),
                                            sizeof(float) * (size_t)greedy.S);

            o.beam = 4;
            o.n_best = 0;
            assert_int_equal(decode_run(&dec, &beam4, dc->src, dc->S, &o), TT_OK);
            assert_true(beam4.n >= 1 && beam4.n <= N);
            assert_memory_equal(beam4.ids, dc->ids, sizeof(int) * (size_t)dc->n_prefix);
            assert_true(beam4.ids[beam4.n - 1] == VOCAB_EOS || beam4.n == N);
            /* Never empty: without a prefix a word comes before </s>. */
            if (dc->n_prefix == 0) {
                assert_true(beam4.n >= 2);
                assert_int_not_equal(beam4.ids[0], VOCAB_EOS);
            }
            /* Greedy may say </s> at once (reference 1 does, at -1.098); beam search may
             * not, so it is compared with greedy only where greedy's output has a word.
             * On these cases its normalised score is then at least greedy's. */
            if (greedy.n == dc->n_prefix + 1 && greedy.ids[dc->n_prefix] == VOCAB_EOS)
                continue;
            double sg = 0, sb = 0;
            for (int i = 0; i < greedy.n; i++)
                sg += greedy.logprob[i];
            for (int i = 0; i < beam4.n; i++)
                sb += beam4.logprob[i];
            assert_true(sb / beam4.n >= sg / greedy.n - 1e-4);
        }
        translation_free(&beam4);
        translation_free(&beam1);
        translation_free(&greedy);
        decode_free(&dec);
        model_free(&m);
    }
}

/* When the model says <unk>, the most attended source word is the last decoder layer's
 * cross-attention averaged over heads, </s> excluded. */
static void test_transformer_unk_most_attended(void **state)
{
    (void)state;
    Model m;
    Search dec;
    Translation t;
    load(&m, &REFS[0]);
    /* Make <unk> win every step: a large generator bias. */
    testutil_tensor(&m, "generator.bias")[VOCAB_UNK] = 100.0f;
    assert_int_equal(decode_init(&dec, &m, 1), TT_OK);
    assert_int_equal(translation_init(&t, &m, 0), TT_OK);
    const DecodeCase *dc = &REFS[0].cases[0];
    const DecodeOptions o = {.beam = 1, .max_len = m.config.max_len};
    assert_int_equal(decode_run(&dec, &t, dc->src, dc->S, &o), TT_OK);
    const int L = m.config.n_decoder_layers, H = m.config.n_heads;
    for (int i = 0; i < t.n; i++) {
        assert_int_equal(t.ids[i], VOCAB_UNK);
        int best = 0;
        double best_w = -1;
        for (int j = 0; j < t.S - 1; j++) {
            double w = 0;
            for (int h = 0; h < H; h++)
                w += translation_cross(&t, i, L - 1, h)[j];
            if (w > best_w)
                best_w = w, best = j;
        }
        assert_int_equal(translation_most_attended(&t, &m, i), best);
        assert_true(best < t.S - 1);
    }
    translation_free(&t);
    decode_free(&dec);
    model_free(&m);
}

/* Inputs the decoder cannot take are refused, never a crash. */
static void test_transformer_bad_arguments(void **state)
{
    (void)state;
    Model m;
    Search dec;
    Translation t;
    load(&m, &REFS[0]);
    assert_int_equal(decode_init(&dec, &m, 2), TT_OK);
    assert_int_equal(translation_init(&t, &m, 0), TT_OK);
    const int N = m.config.max_len;
    int src[64], prefix[64];
    for (int i = 0; i < 64; i++)
        src[i] = prefix[i] = 4;
    src[N] = VOCAB_EOS;
    int bad_ids[2] = {999, VOCAB_EOS};
    /* Each row breaks one rule; the decoder was made for beam 2. */
    const struct {
        const int *src;
        int S;
        DecodeOptions o;
    } bad[] = {
        {src, N + 1, {.beam = 1, .max_len = N}},                       /* source too long */
        {src, 0, {.beam = 1, .max_len = N}},                           /* empty source */
        {bad_ids, 2, {.beam = 1, .max_len = N}},                       /* id out of range */
        {src + N - 2, 3, {.beam = 1, .max_len = N, .prefix = prefix, .n_prefix = N}},
        {src + N - 2, 3, {.beam = 1, .n_prefix = 1}},                  /* prefix NULL */
        {src + N - 2, 3, {.beam = 3, .max_len = N}},                   /* wider than init */
        {src + N - 2, 3, {.beam = 0, .max_len = N}},
        {src + N - 2, 3, {.beam = 1, .max_len = N + 1}},               /* over max_len */
        {src + N - 2, 3, {.beam = 1, .max_len = 1}},
        {src + N - 2, 3, {.beam = 1, .max_len = -1}},
        {src + N - 2, 3, {.beam = 2, .n_best = 3}},                    /* n-best > beam */
        {src + N - 2, 3, {.beam = 1, .n_best = -1}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (decode_run(&dec, &t, bad[i].src, bad[i].S, &bad[i].o) != TT_EINVAL)
            fail_msg("row %zu: accepted", i);
    }
    /* A lower limit stops earlier: the output never exceeds it. */
    const DecodeOptions low = {.beam = 1, .max_len = 3, .prefix = prefix, .n_prefix = 2};
    assert_int_equal(decode_run(&dec, &t, src + N - 2, 3, &low), TT_OK);
    assert_true(t.n <= 3);
    assert_int_equal(t.ids[0], 4);
    assert_int_equal(t.ids[1], 4);
    translation_free(&t);
    decode_free(&dec);
    model_free(&m);
}

/* The default limit is DECODE_LIMIT(S, prefix) capped at the model's max_len; a limit
 * asked for is kept as it is. */
static void test_transformer_decode_limit(void **state)
{
    (void)state;
    Model m = {0};
    m.config.max_len = 30;
    const struct {
        DecodeOptions o;
        int S, want;
    } rows[] = {
        {{.beam = 1}, 5, 2 * 5 + 10},
        {{.beam = 1, .n_prefix = 3}, 5, 3 + 2 * 5 + 10},
        {{.beam = 1}, 11, 30},            /* 32, capped */
        {{.beam = 1, .max_len = 7}, 11, 7},
        {{.beam = 4, .max_len = 30}, 2, 30},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const int got = decode_limit(&m, &rows[i].o, rows[i].S);
        if (got != rows[i].want)
            fail_msg("row %zu: limit %d, expected %d", i, got, rows[i].want);
    }
}

/* decode_run with the default limit (max_len 0) decodes as it does with decode_limit's
 * value given explicitly, token for token and bit for bit. */
static void test_transformer_default_limit_is_decode_limit(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const Reference *r = &REFS[k];
        Model m;
        Search dec;
        Translation a, b;
        load(&m, r);
        assert_int_equal(decode_init(&dec, &m, 2), TT_OK);
        assert_int_equal(translation_init(&a, &m, 0), TT_OK);
        assert_int_equal(translation_init(&b, &m, 0), TT_OK);
        for (int c = 0; c < r->n_cases; c++) {
            const DecodeCase *dc = &r->cases[c];
            for (int beam = 1; beam <= 2; beam++) {
                DecodeOptions o = decode_options_default();
                o.beam = beam;
                o.prefix = dc->prefix;
                o.n_prefix = dc->n_prefix;
                assert_int_equal(decode_run(&dec, &a, dc->src, dc->S, &o), TT_OK);
                const int limit = decode_limit(&m, &o, dc->S);
                DecodeOptions explicit_limit = o;
                explicit_limit.max_len = limit;
                assert_int_equal(decode_run(&dec, &b, dc->src, dc->S, &explicit_limit), TT_OK);
                assert_int_equal(a.n, b.n);
                assert_true(a.n <= limit);
                assert_memory_equal(a.ids, b.ids, sizeof(int) * (size_t)a.n);
                assert_memory_equal(a.logprob, b.logprob, sizeof(float) * (size_t)a.n);
            }
        }
        translation_free(&b);
        translation_free(&a);
        decode_free(&dec);
        model_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transformer_encoder_matches_torch),
        cmocka_unit_test(test_transformer_batched_forward_matches_torch),
        cmocka_unit_test(test_transformer_cache_equals_batched_forward),
        cmocka_unit_test(test_transformer_greedy_matches_torch),
        cmocka_unit_test(test_transformer_beam),
        cmocka_unit_test(test_transformer_unk_most_attended),
        cmocka_unit_test(test_transformer_bad_arguments),
        cmocka_unit_test(test_transformer_decode_limit),
        cmocka_unit_test(test_transformer_default_limit_is_decode_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
