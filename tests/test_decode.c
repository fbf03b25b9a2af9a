/*
 * test_decode.c — the search. Greedy, with and without a forced prefix, chooses PyTorch's
 * tokens with its log-probabilities on the two tiny models of torch_refs.h; the options,
 * the limits and bad arguments are checked; and the beam search keeps its rules
 * (docs/model.md, "Decoding"): it never outputs an empty translation, it keeps `beam`
 * hypotheses live when some finish, and on the shipped model it never chooses a
 * translation that scores worse than greedy's, so it does not lose exact matches that
 * greedy gets.
 *
 * The rule tests use a tiny random model built in memory whose generator bias makes one
 * token far more probable than the others; the shipped-model tests run on
 * models/en-de.db over every sentence of data/test.tsv.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "base/status.h"
#include "model/model.h"
#include "translate/decode.h"
#include "testutil.h"
#include "torch_refs.h"
#include "translate/translator.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "models/en-de.db"
#define TEST_SET "data/test.tsv"
#define TINY_MAX_LEN 24

/* ---------------------------------------------------------------------------------------
 * A tiny model whose favourite token is known
 */

/* A random model (max_len 24) whose generator prefers token `favourite` by 100 nats. */
static void build_tiny(Model *m, int favourite)
{
    static const char *const SRC[] = {"<pad>", "<unk>", "<s>", "</s>", "the", "dog"};
    static const char *const TGT[] = {"<pad>", "<unk>", "<s>", "</s>", "Der", "Hund", "."};
    ModelConfig c;
    config_defaults(&c);
    c.d_model = 8;
    c.n_heads = 2;
    c.n_encoder_layers = 1;
    c.n_decoder_layers = 1;
    c.d_ff = 16;
    c.max_len = TINY_MAX_LEN;
    Vocab src, tgt;
    char err[200];
    assert_int_equal(vocab_from_tokens(&src, SRC, NULL, 6, err, sizeof err), TT_OK);
    assert_int_equal(vocab_from_tokens(&tgt, TGT, NULL, 7, err, sizeof err), TT_OK);
    assert_int_equal(model_init(m, &c, &src, &tgt, err, sizeof err), TT_OK);
    Rng rng;
    rng_seed(&rng, 11);
    model_randomize(m, &rng);
    testutil_tensor(m, "generator.bias")[favourite] = 100.0f;
}

/* A model that would end every output at once: greedy says </s> at step 0 (unchanged),
 * while beam search, of any width above 1, first outputs a word. */
static void test_decode_beam_never_empty(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, VOCAB_EOS);
    Search dec;
    Translation t;
    assert_int_equal(decode_init(&dec, &m, 4), TT_OK);
    assert_int_equal(translation_init(&t, &m, 0), TT_OK);
    const int src[] = {4, 5, VOCAB_EOS};
    DecodeOptions o = decode_options_default();
    assert_int_equal(decode_run(&dec, &t, src, 3, &o), TT_OK);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.ids[0], VOCAB_EOS);
    for (int beam = 2; beam <= 4; beam++) {
        o.beam = beam;
        o.n_best = beam;
        assert_int_equal(decode_run(&dec, &t, src, 3, &o), TT_OK);
        /* A word, then the </s> the model wants. */
        assert_int_equal(t.n, 2);
        assert_int_not_equal(t.ids[0], VOCAB_EOS);
        assert_int_equal(t.ids[1], VOCAB_EOS);
        /* Every hypothesis of the list has a word, and the list is full: finished ones
         * left the beam and their slots were refilled, so `beam` of them finished. */
        assert_int_equal(decode_n_best(&dec), beam);
        double prev = 0.0;
        for (int k = 0; k < beam; k++) {
            const int *ids;
            int n;
            double sum, score;
            decode_hypothesis(&dec, k, &ids, &n, &sum, &score);
            assert_true(n >= 2);
            assert_int_not_equal(ids[0], VOCAB_EOS);
            assert_true(k == 0 || score <= prev);
            prev = score;
        }
    }
    translation_free(&t);
    decode_free(&dec);
    model_free(&m);
}

/* decode_score_batch: a target's score is the sum of the log-probabilities a recorded
 * decode_run gives the same tokens as its prefix (each a float, added in double), and
 * it is the same bits whether the sentence is scored alone or among others of other
 * lengths, in any order. */
static void test_decode_score_batch(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, 5); /* the favourite plays no part: every token is forced */
    testutil_tensor(&m, "generator.bias")[5] = 0.5f;
    Search dec;
    Translation t;
    assert_int_equal(decode_init(&dec, &m, 1), TT_OK);
    assert_int_equal(decode_set_batch(&dec, 3, NULL), TT_OK);
    assert_int_equal(translation_init(&t, &m, 0), TT_OK);
    const int s0[] = {4, 5, VOCAB_EOS}, s1[] = {5, VOCAB_EOS}, s2[] = {4, 4, 5, 5, VOCAB_EOS};
    const int g0[] = {4, 5, 6, VOCAB_EOS}, g1[] = {VOCAB_EOS}, g2[] = {5, 4, 4, 6, 6, VOCAB_EOS};
    const int *src[] = {s0, s1, s2}, *tgt[] = {g0, g1, g2};
    const int S[] = {3, 2, 5}, n_tgt[] = {4, 1, 6};
    double alone[3];
    for (int i = 0; i < 3; i++) {
        /* The reference: the target as a forced prefix of a recorded greedy decode. */
        DecodeOptions o = decode_options_default();
        o.prefix = tgt[i];
        o.n_prefix = n_tgt[i];
        o.max_len = n_tgt[i] + 1;
        assert_int_equal(decode_run(&dec, &t, src[i], S[i], &o), TT_OK);
        double want = 0.0;
        for (int k = 0; k < n_tgt[i]; k++)
            want += (double)t.logprob[k];
        assert_true(want < 0.0);
        assert_int_equal(decode_score_batch(&dec, &src[i], &S[i], 1, &tgt[i], &n_tgt[i],
                                            &alone[i]),
                         TT_OK);
        assert_memory_equal(&alone[i], &want, sizeof want);
    }
    double together[3];
    assert_int_equal(decode_score_batch(&dec, src, S, 3, tgt, n_tgt, together), TT_OK);
    assert_memory_equal(together, alone, sizeof alone);
    const int *rsrc[] = {s2, s0, s1}, *rtgt[] = {g2, g0, g1};
    const int rS[] = {5, 3, 2}, rn[] = {6, 4, 1};
    double reversed[3];
    assert_int_equal(decode_score_batch(&dec, rsrc, rS, 3, rtgt, rn, reversed), TT_OK);
    assert_memory_equal(&reversed[0], &alone[2], sizeof(double));
    assert_memory_equal(&reversed[1], &alone[0], sizeof(double));
    assert_memory_equal(&reversed[2], &alone[1], sizeof(double));
    /* Out of range: more sentences than the batch, an empty target, a bad id. */
    const int *four_src[] = {s0, s1, s2, s0}, *four_tgt[] = {g0, g1, g2, g0};
    const int four_S[] = {3, 2, 5, 3}, four_n[] = {4, 1, 6, 4};
    double four[4];
    assert_int_equal(decode_score_batch(&dec, four_src, four_S, 4, four_tgt, four_n, four),
                     TT_EINVAL);
    const int zero = 0, bad[] = {99};
    const int *badp = bad;
    assert_int_equal(decode_score_batch(&dec, src, S, 1, tgt, &zero, four), TT_EINVAL);
    assert_int_equal(decode_score_batch(&dec, src, S, 1, &badp, &n_tgt[1], four), TT_EINVAL);
    /* A NULL target is not scored, and the others keep their bits. */
    const int *some[] = {g0, NULL, g2};
    double partly[3];
    assert_int_equal(decode_score_batch(&dec, src, S, 3, some, n_tgt, partly), TT_OK);
    assert_memory_equal(&partly[0], &alone[0], sizeof(double));
    assert_true(isnan(partly[1]));
    assert_memory_equal(&partly[2], &alone[2], sizeof(double));
    translation_free(&t);
    decode_free(&dec);
    model_free(&m);
}

/* decode_score_encoded: after a greedy decode_batch, the targets scored on its encoder
 * pass have decode_score_batch's bits; nothing encoded yet is refused. */
static void test_decode_score_encoded(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, 5);
    Search dec;
    Translation t[3] = {0};
    assert_int_equal(decode_init(&dec, &m, 1), TT_OK);
    assert_int_equal(decode_set_batch(&dec, 3, NULL), TT_OK);
    const int s0[] = {4, 5, VOCAB_EOS}, s1[] = {5, VOCAB_EOS}, s2[] = {4, 4, 5, 5, VOCAB_EOS};
    const int g0[] = {4, 5, 6, VOCAB_EOS}, g1[] = {VOCAB_EOS}, g2[] = {5, 4, 4, 6, 6, VOCAB_EOS};
    const int *src[] = {s0, s1, s2}, *tgt[] = {g0, g1, g2};
    const int S[] = {3, 2, 5}, n_tgt[] = {4, 1, 6};
    double want[3], got[3];
    assert_int_equal(decode_score_encoded(&dec, tgt, n_tgt, got), TT_EINVAL);
    assert_int_equal(decode_score_batch(&dec, src, S, 3, tgt, n_tgt, want), TT_OK);
    Translation *out[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(translation_init(&t[i], &m, 0), TT_OK);
        out[i] = &t[i];
    }
    const DecodeOptions o = decode_options_default();
    assert_int_equal(decode_batch(&dec, out, src, S, 3, &o), TT_OK);
    assert_int_equal(decode_score_encoded(&dec, tgt, n_tgt, got), TT_OK);
    assert_memory_equal(got, want, sizeof want);
    /* Again on the same pass, one left out. */
    const int *some[] = {NULL, g1, g2};
    assert_int_equal(decode_score_encoded(&dec, some, n_tgt, got), TT_OK);
    assert_true(isnan(got[0]));
    assert_memory_equal(&got[1], &want[1], 2 * sizeof(double));
    for (int i = 0; i < 3; i++)
        translation_free(&t[i]);
    decode_free(&dec);
    model_free(&m);
}

/* Sentences searched together by beam search get the bits each gets alone: tokens,
 * log-probabilities, attention weights, with and without a prefix, for widths whose
 * groups (DECODE_BEAM_ROWS / beam sentences) hold the whole batch or split it. The model
 * is random, so the hypotheses differ and finish at different steps; then, with one
 * token favoured, every search runs to its own sentence's limit (its source length's).
 * The batch's products read the packed weights, the one at a time's the stored ones. */
static void test_decode_beam_batch_equals_alone(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, 5);
    float *favour = testutil_tensor(&m, "generator.bias") + 5;
    enum { N_SENT = 9 };
    static const int SRC[N_SENT][TINY_MAX_LEN] = {
        {4, VOCAB_EOS},          {5, 4, 5, VOCAB_EOS},       {4, 4, 5, 5, 4, VOCAB_EOS},
        {5, VOCAB_EOS},          {4, 5, VOCAB_EOS},          {5, 5, 5, 4, 4, 4, VOCAB_EOS},
        {VOCAB_EOS},             {4, 5, 4, 5, VOCAB_EOS},    {5, 4, VOCAB_EOS}};
    static const int S[N_SENT] = {2, 4, 6, 2, 3, 7, 1, 5, 3};
    const int *src[N_SENT];
    Translation t[N_SENT], alone;
    Translation *out[N_SENT];
    for (int i = 0; i < N_SENT; i++) {
        src[i] = SRC[i];
        out[i] = &t[i];
        assert_int_equal(translation_init(&t[i], &m, 3), TT_OK);
    }
    assert_int_equal(translation_init(&alone, &m, 3), TT_OK);
    const int prefix[] = {5};
    static const int BEAMS[] = {2, 3, DECODE_MAX_BEAM};
    for (int favoured = 0; favoured <= 1; favoured++) {
        *favour = favoured ? 100.0f : 0.0f;
        int differ = 0;
        for (size_t w = 0; w < sizeof BEAMS / sizeof BEAMS[0]; w++)
            for (int with_prefix = 0; with_prefix <= 1; with_prefix++) {
                Search batch, one;
                assert_int_equal(decode_init(&batch, &m, BEAMS[w]), TT_OK);
                assert_int_equal(decode_init(&one, &m, BEAMS[w]), TT_OK);
                assert_int_equal(decode_set_batch(&batch, N_SENT, NULL), TT_OK);
                /* The batch reads the weights packed, the one at a time as stored. */
                assert_int_equal(decode_pack(&batch), TT_OK);
                assert_non_null(batch.params_packed);
                assert_null(one.params_packed);
                batch.words_only = one.words_only = 1;
                DecodeOptions o = decode_options_default();
                o.beam = BEAMS[w];
                o.prefix = with_prefix ? prefix : NULL;
                o.n_prefix = with_prefix;
                assert_int_equal(decode_batch(&batch, out, src, S, N_SENT, &o), TT_OK);
                for (int i = 0; i < N_SENT; i++) {
                    assert_int_equal(decode_run(&one, &alone, src[i], S[i], &o), TT_OK);
                    assert_int_equal(t[i].n, alone.n);
                    assert_memory_equal(t[i].ids, alone.ids, sizeof(int) * (size_t)alone.n);
                    assert_memory_equal(t[i].logprob, alone.logprob,
                                        sizeof(float) * (size_t)alone.n);
                    for (int k = 0; k < alone.n; k++)
                        for (int h = 0; h < alone.H; h++) {
                            assert_memory_equal(translation_cross(&t[i], k, 0, h),
                                                translation_cross(&alone, k, 0, h),
                                                sizeof(float) * (size_t)S[i]);
                            assert_memory_equal(translation_self(&t[i], k, 0, h),
                                                translation_self(&alone, k, 0, h),
                                                sizeof(float) * (size_t)(k + 1));
                        }
                    differ += i > 0 && !translation_is(&t[i], t[0].ids, t[0].n);
                }
                decode_free(&one);
                decode_free(&batch);
            }
        /* The sentences did not all get one translation: the comparison saw
         * different searches side by side. */
        assert_true(differ > 0);
    }
    for (int i = 0; i < N_SENT; i++)
        translation_free(&t[i]);
    translation_free(&alone);
    model_free(&m);
}

/* A batch larger than the encoder's chunk (ENCODER_CHUNK_POSITIONS / 24 = 42 sentences
 * for the tiny model) runs in chunks, cut where the length changes: sorted by length (runs
 * of one length, one longer than a chunk) and unsorted (a chunk a sentence). Each
 * sentence's record, the encoder's attention weights included, has the bits it gets
 * alone. The model is the tiny one without its favourite, so that outputs and
 * log-probabilities differ from sentence to sentence and depend on the memory's values;
 * the sources differ too (the bits of i). */
static void test_decode_chunked_batch_equals_alone(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, 5);
    testutil_tensor(&m, "generator.bias")[5] = 0.0f;
    enum { N_SENT = 100 };
    int ids[N_SENT][TINY_MAX_LEN], S[2][N_SENT];
    const int *src[2][N_SENT];
    Translation t[N_SENT], alone;
    Translation *out[N_SENT];
    for (int i = 0; i < N_SENT; i++) {
        S[0][i] = i < 5 ? 3 : i < 50 ? 8 : i < 53 ? 9 : i < 90 ? 10 : 12; /* sorted */
        S[1][i] = 1 + (i * 7) % 11;                                       /* unsorted */
        for (int j = 0; j < TINY_MAX_LEN; j++)
            ids[i][j] = 4 + ((i >> (j % 7)) & 1);
        src[0][i] = src[1][i] = ids[i];
        out[i] = &t[i];
        assert_int_equal(translation_init(&t[i], &m, 0), TT_OK);
    }
    assert_int_equal(translation_init(&alone, &m, 0), TT_OK);
    Search batch, one;
    assert_int_equal(decode_init(&batch, &m, 1), TT_OK);
    assert_int_equal(decode_init(&one, &m, 1), TT_OK);
    assert_int_equal(decode_set_batch(&batch, N_SENT, NULL), TT_OK);
    const DecodeOptions o = decode_options_default();
    const int H = m.config.n_heads, Le = m.config.n_encoder_layers;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < N_SENT; i++)
            ids[i][S[k][i] - 1] = VOCAB_EOS;
        assert_int_equal(decode_batch(&batch, out, src[k], S[k], N_SENT, &o), TT_OK);
        assert_int_equal(batch.enc.chunk, 42); /* the batch did run in chunks */
        int differ = 0;
        for (int i = 0; i < N_SENT; i++) {
            differ += i > 0 && !translation_is(&t[i], t[0].ids, t[0].n);
            assert_int_equal(decode_run(&one, &alone, src[k][i], S[k][i], &o), TT_OK);
            assert_int_equal(t[i].S, S[k][i]);
            assert_int_equal(t[i].n, alone.n);
            assert_memory_equal(t[i].ids, alone.ids, sizeof(int) * (size_t)alone.n);
            assert_memory_equal(t[i].logprob, alone.logprob, sizeof(float) * (size_t)alone.n);
            assert_memory_equal(t[i].enc, alone.enc,
                                sizeof(float) * (size_t)Le * H * S[k][i] * S[k][i]);
            for (int step = 0; step < alone.n; step++)
                for (int h = 0; h < H; h++)
                    assert_memory_equal(translation_cross(&t[i], step, 0, h),
                                        translation_cross(&alone, step, 0, h),
                                        sizeof(float) * (size_t)S[k][i]);
        }
        assert_true(differ > 0);
        for (int i = 0; i < N_SENT; i++)
            ids[i][S[k][i] - 1] = 4 + ((i >> ((S[k][i] - 1) % 7)) & 1);
    }
    decode_free(&one);
    decode_free(&batch);
    for (int i = 0; i < N_SENT; i++)
        translation_free(&t[i]);
    translation_free(&alone);
    model_free(&m);
}

/* After a forced prefix the output is not empty, so </s> may follow it at once. */
static void test_decode_beam_eos_after_prefix(void **state)
{
    (void)state;
    Model m;
    build_tiny(&m, VOCAB_EOS);
    Search dec;
    Translation t;
    assert_int_equal(decode_init(&dec, &m, 3), TT_OK);
    assert_int_equal(translation_init(&t, &m, 0), TT_OK);
    const int src[] = {4, 5, VOCAB_EOS}, prefix[] = {4};
    const DecodeOptions o = {.beam = 3, .prefix = prefix, .n_prefix = 1};
    assert_int_equal(decode_run(&dec, &t, src, 3, &o), TT_OK);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.ids[0], 4);
    assert_int_equal(t.ids[1], VOCAB_EOS);
    translation_free(&t);
    decode_free(&dec);
    model_free(&m);
}

/* ---------------------------------------------------------------------------------------
 * The shipped model over the test set
 */

static void load_shipped(Model *m)
{
    char err[512];
    if (model_load_file(m, MODEL, err, sizeof err) != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
}

static void init_ok(Translator *tr, const Model *m, int beam, int n_best)
{
    TranslatorOptions o = translator_options_default();
    o.decode.beam = beam;
    o.decode.n_best = n_best;
    char err[200];
    const int rc = translator_init(tr, m, &o, err, sizeof err);
    if (rc != TT_OK)
        print_error("translator_init: %s\n", err);
    assert_int_equal(rc, TT_OK);
}

static void run_ok(Translator *tr, const char *text, TranslatorResult *r)
{
    char err[200];
    const int rc = translator_run(tr, text, strlen(text), r, err, sizeof err);
    if (rc != TT_OK)
        print_error("translator_run '%s': %s\n", text, err);
    assert_int_equal(rc, TT_OK);
}

/* The ranking score of a recorded translation: its log-probabilities' sum per token. */
static double normalised_score(const Translation *t)
{
    double sum = 0.0;
    for (int i = 0; i < t->n; i++)
        sum += t->logprob[i];
    return sum / t->n;
}

/* Every stride-th sentence of the test set is used: 1 (all of them) unless
 * TOYTRANS_DECODE_STRIDE says more; `make valgrind` sets it, since valgrind runs the
 * decoder about 50 times slower. */
static long test_stride(void)
{
    const char *env = getenv("TOYTRANS_DECODE_STRIDE");
    if (env == NULL || *env == '\0')
        return 1;
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > 1000000)
        fail_msg("TOYTRANS_DECODE_STRIDE=\"%s\": want an integer from 1 to 1000000", env);
    return v;
}

/* The test set's sources and references, one pair per line (every test_stride()-th
 * line): owned by the caller, freed with free_pairs. */
typedef struct {
    char **src, **ref;
    int n;
} Pairs;

static void read_pairs(Pairs *p)
{
    FILE *f = fopen(TEST_SET, "r");
    assert_non_null(f);
    memset(p, 0, sizeof *p);
    int cap = 0;
    long no = 0;
    const long stride = test_stride();
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (no++ % stride != 0)
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        *tab = '\0';
        char *ref = tab + 1;
        ref[strcspn(ref, "\t")] = '\0';
        if (p->n == cap) {
            cap = cap ? 2 * cap : 256;
            p->src = realloc(p->src, sizeof(char *) * (size_t)cap);
            p->ref = realloc(p->ref, sizeof(char *) * (size_t)cap);
            assert_true(p->src && p->ref);
        }
        p->src[p->n] = strdup(line);
        p->ref[p->n] = strdup(ref);
        assert_true(p->src[p->n] && p->ref[p->n]);
        p->n++;
    }
    fclose(f);
    assert_true(p->n >= 1800 / stride);
}

static void free_pairs(Pairs *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->src[i]);
        free(p->ref[i]);
    }
    free(p->src);
    free(p->ref);
}

/* On every test sentence beam 4's translation scores at least as well as greedy's under
 * the ranking score, and it matches the reference whenever greedy does. */
static void test_decode_beam_never_loses_to_greedy(void **state)
{
    (void)state;
    Model m;
    load_shipped(&m);
    Pairs p;
    read_pairs(&p);
    Translator greedy, beam;
    init_ok(&greedy, &m, 1, 0);
    init_ok(&beam, &m, 4, 0);
    int worse = 0, lost = 0, exact_greedy = 0, exact_beam = 0;
    double worst = 0.0;
    for (int i = 0; i < p.n; i++) {
        TranslatorResult rg, rb;
        run_ok(&greedy, p.src[i], &rg);
        run_ok(&beam, p.src[i], &rb);
        const double sg = normalised_score(rg.t), sb = normalised_score(rb.t);
        /* The recorded log-probabilities are floats: allow their rounding. */
        if (sb < sg - 1e-6) {
            if (worse++ < 5)
                print_error("beam 4 scores %.6f < greedy's %.6f on '%s': '%s' against '%s'\n",
                            sb, sg, p.src[i], rb.text, rg.text);
            if (sg - sb > worst)
                worst = sg - sb;
        }
        const int eg = strcmp(rg.text, p.ref[i]) == 0, eb = strcmp(rb.text, p.ref[i]) == 0;
        exact_greedy += eg;
        exact_beam += eb;
        if (eg && !eb && lost++ < 5)
            print_error("greedy matches '%s', beam 4 says '%s'\n", p.ref[i], rb.text);
    }
    if (worse)
        print_error("%d of %d sentences: beam 4 below greedy, by up to %.6f per token\n",
                    worse, p.n, worst);
    print_message("exact match: greedy %d, beam 4 %d of %d\n", exact_greedy, exact_beam, p.n);
    assert_int_equal(worse, 0);
    assert_int_equal(lost, 0);
    assert_true(exact_beam >= exact_greedy);
    translator_free(&beam);
    translator_free(&greedy);
    free_pairs(&p);
    model_free(&m);
}

/* The sentence whose beam search once ended before its best hypothesis finished (it
 * chose "Meine sehe und ..." at -1.017 per token over greedy's -0.020); cats fressen. */
static void test_decode_beam_example(void **state)
{
    (void)state;
    Model m;
    load_shipped(&m);
    Translator tr;
    init_ok(&tr, &m, 4, 0);
    TranslatorResult r;
    run_ok(&tr, "My cats eat and love the red apple.", &r);
    assert_string_equal(r.text, "Meine Katzen fressen und lieben den roten Apfel.");
    translator_free(&tr);
    model_free(&m);
}

/* --n-best 4 over the test set: four hypotheses per sentence, none of them empty, best
 * first, the first the translation beam 4 alone gives. */
static void test_decode_n_best_never_empty(void **state)
{
    (void)state;
    Model m;
    load_shipped(&m);
    Pairs p;
    read_pairs(&p);
    Translator beam, nbest;
    init_ok(&beam, &m, 4, 0);
    init_ok(&nbest, &m, 4, 4);
    int empty = 0;
    for (int i = 0; i < p.n; i++) {
        TranslatorResult rb, r;
        run_ok(&beam, p.src[i], &rb);
        run_ok(&nbest, p.src[i], &r);
        assert_string_equal(r.text, rb.text);
        assert_int_equal(translator_n_best(&nbest), 4);
        double prev = 0.0;
        for (int k = 0; k < 4; k++) {
            double sum, score;
            char err[200];
            assert_int_equal(translator_hypothesis(&nbest, k, &r, &sum, &score, err, sizeof err),
                             TT_OK);
            if (r.n_text == 0 && empty++ < 5)
                print_error("'%s': hypothesis %d is empty\n", p.src[i], k);
            assert_true(k == 0 || score <= prev);
            prev = score;
        }
    }
    assert_int_equal(empty, 0);
    translator_free(&nbest);
    translator_free(&beam);
    free_pairs(&p);
    model_free(&m);
}

/* decode_options_check, the one check of a DecodeOptions: every bound is accepted at its
 * edge and refused one step beyond it. */
static void test_decode_options_check_bounds(void **state)
{
    (void)state;
    const int ids[1] = {5};
    const struct {
        DecodeOptions o;
        int beam_max, len_max, ok;
    } CASES[] = {
        {{.beam = 1}, 4, 32, 1},
        {{.beam = 4}, 4, 32, 1},
        {{.beam = 5}, 4, 32, 0},
        {{.beam = 0}, 4, 32, 0},
        {{.beam = 1, .max_len = 2}, 4, 32, 1},
        {{.beam = 1, .max_len = 32}, 4, 32, 1},
        {{.beam = 1, .max_len = 33}, 4, 32, 0},
        {{.beam = 1, .max_len = 33}, 4, 0, 1}, /* no bound above: the translator caps it */
        {{.beam = 1, .max_len = 1}, 4, 32, 0},
        {{.beam = 1, .max_len = -1}, 4, 0, 0},
        {{.beam = 3, .n_best = 3}, 4, 32, 1},
        {{.beam = 3, .n_best = 4}, 4, 32, 0},
        {{.beam = 1, .n_best = -1}, 4, 32, 0},
        {{.beam = 1, .prefix = ids, .n_prefix = 1}, 4, 32, 1},
        {{.beam = 1, .n_prefix = 1}, 4, 32, 0},
        {{.beam = 1, .prefix = ids, .n_prefix = -1}, 4, 32, 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const int rc = decode_options_check(&CASES[i].o, CASES[i].beam_max, CASES[i].len_max);
        if (rc != (CASES[i].ok ? TT_OK : TT_EINVAL))
            fail_msg("case %zu: got %d", i, rc);
    }
    const DecodeOptions def = decode_options_default();
    assert_int_equal(decode_options_check(&def, 1, 2), TT_OK);
}

/* Greedy decoding, with and without a forced prefix, chooses PyTorch's tokens with its
 * log-probabilities, and stops where the rules say (max_len or </s>). */
static void test_decode_greedy_matches_torch(void **state)
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
static void test_decode_beam_matches_its_scores(void **state)
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
static void test_decode_unk_most_attended(void **state)
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
static void test_decode_bad_arguments(void **state)
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
static void test_decode_limit(void **state)
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
static void test_decode_default_limit_is_decode_limit(void **state)
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
        cmocka_unit_test(test_decode_options_check_bounds),
        cmocka_unit_test(test_decode_greedy_matches_torch),
        cmocka_unit_test(test_decode_beam_matches_its_scores),
        cmocka_unit_test(test_decode_unk_most_attended),
        cmocka_unit_test(test_decode_bad_arguments),
        cmocka_unit_test(test_decode_limit),
        cmocka_unit_test(test_decode_default_limit_is_decode_limit),
        cmocka_unit_test(test_decode_beam_never_empty),
        cmocka_unit_test(test_decode_beam_batch_equals_alone),
        cmocka_unit_test(test_decode_beam_eos_after_prefix),
        cmocka_unit_test(test_decode_chunked_batch_equals_alone),
        cmocka_unit_test(test_decode_score_batch),
        cmocka_unit_test(test_decode_score_encoded),
        cmocka_unit_test(test_decode_beam_example),
        cmocka_unit_test(test_decode_beam_never_loses_to_greedy),
        cmocka_unit_test(test_decode_n_best_never_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
