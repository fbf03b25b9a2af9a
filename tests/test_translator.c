/*
 * test_translator.c — one sentence through the Translator: <unk> copied from the source
 * as typed, the prefix kept as written, </s> not a word, every way a sentence or an
 * option is refused, and what the translator reports as doubtful: unknown words, names,
 * coverage.
 *
 * The model is a tiny random one built in memory; the generator bias of one token is
 * raised far above the others, so the decoder's choice is known without a trained model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/pool.h"
#include "base/rng.h"
#include "base/status.h"
#include "eval/evalset.h"
#include "model/model.h"
#include "text/grammar.h"
#include "translate/readback.h"
#include "testutil.h"
#include "translate/translator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN 8

/* A random model (max_len 8) whose generator always prefers token `favourite`. */
static void build_model(Model *m, int favourite)
{
    static const char *const SRC[] = {"<pad>", "<unk>", "<s>", "</s>", "the", "dog", "is", "big"};
    static const char *const TGT[] = {"<pad>", "<unk>", "<s>", "</s>", "Der", "Hund", "ist",
                                      "gro\xc3\x9f", "."};
    ModelConfig c;
    config_defaults(&c);
    c.d_model = 8;
    c.n_heads = 2;
    c.n_encoder_layers = 1;
    c.n_decoder_layers = 1;
    c.d_ff = 16;
    c.max_len = MAX_LEN;
    Vocab src, tgt;
    char err[200];
    assert_int_equal(vocab_from_tokens(&src, SRC, NULL, 8, err, sizeof err), TT_OK);
    assert_int_equal(vocab_from_tokens(&tgt, TGT, NULL, 9, err, sizeof err), TT_OK);
    assert_int_equal(model_init(m, &c, &src, &tgt, err, sizeof err), TT_OK);
    Rng rng;
    rng_seed(&rng, 7);
    model_randomize(m, &rng);
    testutil_tensor(m, "generator.bias")[favourite] = 100.0f;
}

/* Sets every weight of the tensor called name to x. */
static void set_tensor(Model *m, const char *name, float x)
{
    for (int i = 0; i < m->n_specs; i++)
        if (strcmp(m->specs[i].name, name) == 0) {
            const ParamSpec *p = &m->specs[i];
            const size_t n = (size_t)p->rows * (size_t)(p->cols ? p->cols : 1);
            for (size_t k = 0; k < n; k++)
                m->params[p->offset + k] = x;
            return;
        }
    fail_msg("no tensor %s", name);
}

/* Loads a model file, or fails the test with the loader's message. */
static void load_ok(Model *m, const char *path)
{
    char err[512];
    if (model_load_file(m, path, err, sizeof err) != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
}

static void init_ok(Translator *tr, const Model *m, const TranslatorOptions *o)
{
    char err[200];
    int rc = translator_init(tr, m, o, err, sizeof err);
    if (rc != TT_OK)
        print_error("translator_init: %s\n", err);
    assert_int_equal(rc, TT_OK);
}

static void run_ok(Translator *tr, const char *text, TranslatorResult *r)
{
    char err[200];
    int rc = translator_run(tr, text, strlen(text), r, err, sizeof err);
    if (rc != TT_OK)
        print_error("translator_run('%s'): %s\n", text, err);
    assert_int_equal(rc, TT_OK);
}

/* A generated <unk> shows the source word attended to most, with its case as typed,
 * and is marked as copied. */
static void test_translator_unk_copies_the_source_word_as_typed(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_UNK);
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "Zorblax sees Berlin", &r);
    assert_int_equal(r.src->n, 3);
    assert_string_equal(r.src->tok[0], "zorblax"); /* the encoder reads it case-folded */
    assert_int_equal(r.t->n, MAX_LEN);              /* never </s>: the limit stops it */
    assert_int_equal(r.n_text, MAX_LEN);
    char want[256] = "";
    for (int i = 0; i < r.t->n; i++) {
        assert_int_equal(r.t->ids[i], VOCAB_UNK);
        assert_string_equal(r.tokens[i], "<unk>");
        assert_true(r.copied[i]);
        const char *w = r.words[i];
        assert_true(strcmp(w, "Zorblax") == 0 || strcmp(w, "sees") == 0 ||
                    strcmp(w, "Berlin") == 0);
        strcat(strcat(want, i ? " " : ""), w);
    }
    assert_string_equal(r.text, want);
    translator_free(&tr);
    model_free(&m);
}

/* keep_unk shows <unk> itself. */
/* <pad> and <s> are never output words: a model that prefers
 * them above all gets its next best words instead, greedy and in a beam. */
static void test_translator_never_outputs_pad_or_bos(void **state)
{
    (void)state;
    for (int beam = 1; beam <= 3; beam += 2)
        for (int fav = VOCAB_PAD; fav <= VOCAB_BOS; fav += VOCAB_BOS - VOCAB_PAD) {
            Model m;
            build_model(&m, fav);
            Translator tr;
            const TranslatorOptions o = {.decode = {.beam = beam}, .keep_unk = 1};
            init_ok(&tr, &m, &o);
            TranslatorResult r;
            run_ok(&tr, "the dog", &r);
            assert_true(r.t->n > 0);
            for (int i = 0; i < r.t->n; i++) {
                assert_int_not_equal(r.t->ids[i], VOCAB_PAD);
                assert_int_not_equal(r.t->ids[i], VOCAB_BOS);
            }
            assert_null(strstr(r.text, "<pad>"));
            assert_null(strstr(r.text, "<s>"));
            translator_free(&tr);
            model_free(&m);
        }
}

/* Finite but huge weights (generator.weight = 3e38) make the logits NaN or infinite:
 * the sentence fails with TT_EMODEL and a message saying so, greedy and in a beam,
 * instead of <pad> 32 times with a NaN log-probability. */
static void test_translator_non_finite_logits_fail_the_sentence(void **state)
{
    (void)state;
    for (int beam = 1; beam <= 3; beam += 2) {
        Model m;
        build_model(&m, 4);
        set_tensor(&m, "generator.weight", 3e38f);
        Translator tr;
        const TranslatorOptions o = {.decode = {.beam = beam}};
        init_ok(&tr, &m, &o);
        TranslatorResult r;
        char err[200] = "";
        assert_int_equal(translator_run(&tr, "the dog", 7, &r, err, sizeof err), TT_EMODEL);
        assert_non_null(strstr(err, "NaN or infinite logit"));
        translator_free(&tr);
        model_free(&m);
    }
}

static void test_translator_keep_unk_shows_unk(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_UNK);
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 2, .max_len = 3}, .keep_unk = 1};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "Zorblax sees Berlin", &r);
    assert_int_equal(r.t->n, 3); /* max_len lowers the limit */
    assert_string_equal(r.words[0], "<unk>");
    assert_false(r.copied[0]); /* nothing was copied */
    assert_string_equal(r.text, "<unk> <unk> <unk>");
    translator_free(&tr);
    model_free(&m);
}

/* </s> is not a word: a model that ends at once translates to "". */
static void test_translator_eos_is_not_a_word(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS);
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "the dog is big", &r);
    assert_int_equal(r.t->n, 1);
    assert_int_equal(r.n_text, 0);
    assert_string_equal(r.tokens[0], "</s>");
    assert_string_equal(r.text, "");
    /* An empty sentence is not decoded at all. */
    run_ok(&tr, "", &r);
    assert_int_equal(r.t->n, 0);
    assert_int_equal(r.src->n, 0);
    assert_string_equal(r.text, "");
    translator_free(&tr);
    model_free(&m);
}

/* The prefix is emitted as the user wrote it, even words the vocabulary lacks. */
static void test_translator_prefix_kept_as_written(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS);
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}, .prefix = "Der Xyzzy"};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "the dog is big", &r);
    assert_int_equal(r.t->n_forced, 2);
    assert_int_equal(r.t->ids[1], VOCAB_UNK);
    assert_string_equal(r.tokens[1], "Xyzzy");
    assert_string_equal(r.words[1], "Xyzzy");
    assert_string_equal(r.text, "Der Xyzzy");
    translator_free(&tr);
    model_free(&m);
}

/* A bad prefix or options out of range are refused at init, and leave nothing owned. */
static void test_translator_init_refuses_bad_options(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS);
    Translator tr;
    char err[200];
    const TranslatorOptions long_prefix = {.decode = {.beam = 1, .max_len = 3},
                                                  .prefix = "a b c"};
    assert_int_equal(translator_init(&tr, &m, &long_prefix, err, sizeof err), TT_EINPUT);
    assert_string_equal(err, "prefix has 3 tokens; the output limit is 3");
    translator_free(&tr);
    const TranslatorOptions bad_utf8 = {.decode = {.beam = 1}, .prefix = "Der \xff"};
    assert_int_equal(translator_init(&tr, &m, &bad_utf8, err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "prefix: invalid UTF-8 at byte 4"));
    const TranslatorOptions bad[] = {
        {.decode = {.beam = 0}},
        {.decode = {.beam = DECODE_MAX_BEAM + 1}},
        {.decode = {.beam = 1, .max_len = 1}},
        {.decode = {.beam = 1, .max_len = -1}},
        {.decode = {.beam = 2, .n_best = 3}},
        {.decode = {.beam = 1, .n_prefix = 1}}, /* the translator forces the prefix text */
        {.decode = {.beam = 1}, .alternatives = DECODE_MAX_ALTERNATIVES + 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(translator_init(&tr, &m, &bad[i], err, sizeof err), TT_EINVAL);
        assert_null(tr.words);
    }
    translator_free(&tr);
    translator_free(NULL);
    model_free(&m);
}

/* A sentence is refused for invalid UTF-8 (the byte named) and for too many tokens;
 * the next sentence is translated as usual. */
static void test_translator_run_refuses_bad_sentences(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS);
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    char err[200];
    assert_int_equal(translator_run(&tr, "ab \xc0\xaf", 5, &r, err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "invalid UTF-8 at byte 3"));
    assert_null(r.text);
    const char *eight = "the dog is big the dog is big";
    assert_int_equal(translator_run(&tr, eight, strlen(eight), &r, err, sizeof err), TT_EINPUT);
    assert_string_equal(err, "8 tokens; this model takes at most 7 (max_len 8 with </s>)");
    run_ok(&tr, "the dog is big the dog is", &r); /* 7 tokens + </s> fit */
    assert_int_equal(r.src->n, 7);
    translator_free(&tr);
    model_free(&m);
}

/* Capitalised: an upper-case first letter and a rest that is not all upper case. */
static void test_translator_capitalised_table(void **state)
{
    (void)state;
    static const struct {
        const char *token;
        int want;
    } CASES[] = {
        {"Anna", 1},      {"anna", 0},  {"NASA", 0}, {"X", 1},  {"\xc3\x89va", 1} /* Éva */,
        {"McDonald", 1},  {"Bob2", 1},  {"AB2", 1},  {"", 0},   {"1abc", 0},
        {"\xc3\x84RGER", 0} /* ÄRGER */,
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        if (translator_is_capitalised(CASES[i].token) != CASES[i].want)
            print_error("'%s': want %d\n", CASES[i].token, CASES[i].want);
        assert_int_equal(translator_is_capitalised(CASES[i].token), CASES[i].want);
    }
}

/* Function words and punctuation are not checked for coverage; folded spellings only. */
static void test_translator_function_words(void **state)
{
    (void)state;
    assert_true(translator_is_function_word("the"));
    assert_true(translator_is_function_word("does"));
    assert_true(translator_is_function_word(","));
    assert_true(translator_is_function_word("\xe2\x80\x9e")); /* „ */
    assert_false(translator_is_function_word("dog"));
    assert_false(translator_is_function_word("theme"));
    assert_false(translator_is_function_word("The"));
}

/* An unknown word is a name when capitalised and not first; a first word only when the
 * translation copied it; everything else unknown is reported as unknown. */
static void test_translator_unknown_words_and_names(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS); /* copies nothing */
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "Zorblax , the dog sees Berlin NASA", &r); /* the comma is unknown too */
    static const int WANT[] = {TR_WORD_UNKNOWN, TR_WORD_UNKNOWN, TR_WORD_KNOWN, TR_WORD_KNOWN,
                               TR_WORD_UNKNOWN, TR_WORD_NAME,    TR_WORD_UNKNOWN};
    assert_int_equal(r.src->n, 7);
    for (int j = 0; j < r.src->n; j++)
        assert_int_equal(r.kind[j], WANT[j]);
    assert_int_equal(r.n_unknown, 4);
    assert_int_equal(r.n_names, 1);
    /* The first word is the first that is not punctuation. */
    run_ok(&tr, "\" Zorblax", &r);
    assert_int_equal(r.kind[1], TR_WORD_UNKNOWN);
    translator_free(&tr);
    model_free(&m);

    /* A model that writes only <unk> copies source words: a capitalised first word that
     * it copied is a name, one it did not copy is not. */
    build_model(&m, VOCAB_UNK);
    init_ok(&tr, &m, &o);
    run_ok(&tr, "Zorblax Quux", &r);
    int copied = 0;
    for (int i = 0; i < r.t->n; i++)
        copied += strcmp(r.words[i], "Zorblax") == 0;
    assert_int_equal(r.kind[0], copied ? TR_WORD_NAME : TR_WORD_UNKNOWN);
    assert_int_equal(r.kind[1], TR_WORD_NAME);
    translator_free(&tr);
    model_free(&m);
}

/* A capitalised common English word (src/text/wordlist.h) is unknown, not a name, wherever
 * it stands and whether or not the translation copied it; so is a possessive of one. */
static void test_translator_common_words_are_not_names(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_EOS); /* copies nothing */
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "the dog is Where Berlin Thanks's Dog\xe2\x80\x99s", &r);
    static const int WANT[] = {TR_WORD_KNOWN,   TR_WORD_KNOWN, TR_WORD_KNOWN,
                               TR_WORD_UNKNOWN, TR_WORD_NAME,  TR_WORD_UNKNOWN,
                               TR_WORD_UNKNOWN};
    assert_int_equal(r.src->n, 7);
    for (int j = 0; j < r.src->n; j++)
        assert_int_equal(r.kind[j], WANT[j]);
    assert_int_equal(r.n_unknown, 3);
    assert_int_equal(r.n_names, 1);
    translator_free(&tr);
    model_free(&m);

    /* Copied or not, a common first word is unknown; a name after it is still a name. */
    build_model(&m, VOCAB_UNK);
    init_ok(&tr, &m, &o);
    run_ok(&tr, "Thanks Quux", &r);
    assert_int_equal(r.kind[0], TR_WORD_UNKNOWN);
    assert_int_equal(r.kind[1], TR_WORD_NAME);
    translator_free(&tr);
    model_free(&m);
}

/* Coverage sums each source token's attention over the words of the text: the tokens'
 * coverages add up to the number of words (each row of attention sums to 1), and are 0
 * when nothing is written. Content words below coverage_min are reported. */
static void test_translator_coverage(void **state)
{
    (void)state;
    Model m;
    build_model(&m, VOCAB_UNK); /* never </s>: MAX_LEN words */
    Translator tr;
    TranslatorOptions o = {.decode = {.beam = 1}, .coverage_min = 1000.0f};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "the dog is big .", &r);
    assert_int_equal(r.t->S, 6);
    double sum = 0.0;
    for (int j = 0; j < r.t->S; j++) {
        assert_true(r.coverage[j] >= 0.0f);
        sum += r.coverage[j];
    }
    assert_float_equal(sum, (double)r.n_text, 1e-4);
    assert_int_equal(r.n_text, MAX_LEN);
    /* The rollout moves attention between source tokens and keeps its total: every row
     * of R sums to 1. */
    double rolled = 0.0;
    for (int j = 0; j < r.t->S; j++) {
        assert_true(r.rollout[j] >= 0.0f);
        rolled += r.rollout[j];
    }
    assert_float_equal(rolled, (double)r.n_text, 1e-3);
    /* Every content word is below 1000 (dog and big, not the, is or the period), and is
     * reported when its rollout coverage is below TRANSLATOR_ROLLOUT_MIN too. */
    static const unsigned char CONTENT[] = {0, 1, 0, 1, 0};
    int n = 0;
    for (int j = 0; j < r.src->n; j++) {
        const int want = CONTENT[j] && r.rollout[j] < TRANSLATOR_ROLLOUT_MIN;
        assert_int_equal(r.uncovered[j], want);
        n += want;
    }
    assert_int_equal(r.n_uncovered, n);
    translator_free(&tr);
    o.coverage_min = 0.0f; /* reports none */
    init_ok(&tr, &m, &o);
    run_ok(&tr, "the dog is big .", &r);
    assert_int_equal(r.n_uncovered, 0);
    translator_free(&tr);
    model_free(&m);

    build_model(&m, VOCAB_EOS); /* no words at all */
    o.coverage_min = 0.5f;
    init_ok(&tr, &m, &o);
    run_ok(&tr, "the dog", &r);
    assert_int_equal(r.n_text, 0);
    for (int j = 0; j < r.t->S; j++)
        assert_float_equal(r.coverage[j], 0.0f, 0.0f);
    assert_int_equal(r.n_uncovered, 1); /* dog: nothing was written for it */
    translator_free(&tr);
    model_free(&m);
}

/* The n-best list: best first by score per token; hypothesis 0 is exactly what
 * translator_run returned (text and recorded log-probabilities); each log-probability is
 * the sum of its recorded steps; greedy decoding keeps a list only when asked. */
static void test_translator_n_best_first_is_the_beam_output(void **state)
{
    (void)state;
    Model m;
    build_model(&m, 4);
    set_tensor(&m, "generator.bias", 0.0f); /* no favourite: the hypotheses compete */
    Translator tr;
    const TranslatorOptions o = {.decode = {.beam = 4, .n_best = 1}};
    init_ok(&tr, &m, &o);
    TranslatorResult r;
    run_ok(&tr, "the dog is big", &r);
    char best[256];
    snprintf(best, sizeof best, "%s", r.text);
    const int n = r.t->n;
    float best_lp[MAX_LEN];
    memcpy(best_lp, r.t->logprob, sizeof(float) * (size_t)n);
    const int k = translator_n_best(&tr);
    assert_true(k >= 2 && k <= 4);
    double prev = INFINITY;
    char err[200];
    for (int i = 0; i < k; i++) {
        TranslatorResult h;
        double lp, sc;
        assert_int_equal(translator_hypothesis(&tr, i, &h, &lp, &sc, err, sizeof err), TT_OK);
        double sum = 0.0;
        for (int j = 0; j < h.t->n; j++)
            sum += (double)h.t->logprob[j];
        assert_float_equal(lp, sum, 1e-4);
        assert_float_equal(sc, lp / h.t->n, 1e-12);
        assert_true(sc <= prev);
        prev = sc;
        if (i == 0) {
            assert_string_equal(h.text, best);
            assert_int_equal(h.t->n, n);
            assert_memory_equal(h.t->logprob, best_lp, sizeof(float) * (size_t)n);
        }
    }
    TranslatorResult h;
    double lp, sc;
    assert_int_equal(translator_hypothesis(&tr, k, &h, &lp, &sc, err, sizeof err), TT_EINVAL);
    assert_int_equal(translator_hypothesis(&tr, -1, &h, &lp, &sc, err, sizeof err), TT_EINVAL);
    run_ok(&tr, "", &r); /* an empty sentence keeps no list */
    assert_int_equal(translator_n_best(&tr), 0);
    translator_free(&tr);

    const TranslatorOptions greedy = {.decode = {.beam = 1}};
    init_ok(&tr, &m, &greedy);
    run_ok(&tr, "the dog is big", &r);
    snprintf(best, sizeof best, "%s", r.text);
    assert_int_equal(translator_n_best(&tr), 0);
    translator_free(&tr);
    const TranslatorOptions greedy_list = {.decode = {.beam = 1, .n_best = 1}};
    init_ok(&tr, &m, &greedy_list);
    run_ok(&tr, "the dog is big", &r);
    assert_int_equal(translator_n_best(&tr), 1);
    assert_int_equal(translator_hypothesis(&tr, 0, &h, &lp, &sc, err, sizeof err), TT_OK);
    assert_string_equal(h.text, best);
    translator_free(&tr);
    model_free(&m);
}

/* One sentence's record, copied: its tokens and every float it holds, bit for bit. */
typedef struct {
    char *text;
    int n, S;
    float *logprob, *cross, *self, *enc;
    size_t n_att, n_enc;
} Kept;

static void keep(Kept *k, const TranslatorResult *r)
{
    const Translation *t = r->t;
    k->text = strdup(r->text);
    k->n = t->n;
    k->S = t->S;
    /* Compact: S weights a step and head (cross), n (self, zero-padded past i + 1). */
    const int w = t->S > t->n ? t->S : t->n;
    k->n_att = (size_t)t->n * t->L * t->H * (size_t)(w ? w : 1);
    k->n_enc = (size_t)t->Le * t->H * t->S * t->S;
    k->logprob = malloc(sizeof(float) * (size_t)(t->n ? t->n : 1));
    k->cross = calloc(k->n_att ? k->n_att : 1, sizeof(float));
    k->self = calloc(k->n_att ? k->n_att : 1, sizeof(float));
    k->enc = malloc(sizeof(float) * (k->n_enc ? k->n_enc : 1));
    assert_non_null(k->text), assert_non_null(k->logprob), assert_non_null(k->cross);
    assert_non_null(k->self), assert_non_null(k->enc);
    memcpy(k->logprob, t->logprob, sizeof(float) * (size_t)t->n);
    memcpy(k->enc, t->enc, sizeof(float) * k->n_enc);
    /* The weights a step holds, through the record's accessors (the stride may differ). */
    size_t at = 0;
    for (int i = 0; i < t->n; i++)
        for (int l = 0; l < t->L; l++)
            for (int h = 0; h < t->H; h++) {
                memcpy(k->cross + at, translation_cross(t, i, l, h), sizeof(float) * (size_t)t->S);
                memcpy(k->self + at, translation_self(t, i, l, h), sizeof(float) * (size_t)(i + 1));
                at += (size_t)w;
            }
    assert_true(at <= k->n_att);
}

static void kept_free(Kept *k)
{
    free(k->text), free(k->logprob), free(k->cross), free(k->self), free(k->enc);
}

/* The grammar check takes the phrasebook's phrases as in the grammar only for a model
 * whose file records the phrasebook the recogniser knows (train --phrasebook), as the
 * shipped model does; for the same model recording none (0, every model trained before
 * the phrasebook), a phrase stays outside. */
static void test_translator_grammar_takes_phrases_the_model_learned(void **state)
{
    (void)state;
    Model m;
    load_ok(&m, "models/en-de.db");
    static const char *const PHRASES[] = {"Good morning!", "Hello", "How are you?"};
    assert_true(m.phrasebook_fnv1a64 == grammar_phrasebook_fnv1a64());
    for (int learned = 0; learned <= 1; learned++) {
        m.phrasebook_fnv1a64 = learned ? grammar_phrasebook_fnv1a64() : 0;
        const TranslatorOptions o = translator_options_default();
        Translator tr;
        init_ok(&tr, &m, &o);
        for (size_t i = 0; i < sizeof PHRASES / sizeof PHRASES[0]; i++) {
            TranslatorResult r;
            run_ok(&tr, PHRASES[i], &r);
            assert_int_equal(r.grammar, learned ? TR_GRAMMAR_IN : TR_GRAMMAR_OUT);
        }
        /* A phrase with a word changed is outside either way. */
        TranslatorResult r;
        run_ok(&tr, "Good apple!", &r);
        assert_int_equal(r.grammar, TR_GRAMMAR_OUT);
        translator_free(&tr);
    }
    model_free(&m);
}

/* A phrase of the phrasebook, for a model whose file records the phrasebook (it learned
 * the phrases), is translated whole: none of its words is reported as not translated, in
 * any form a user types (every phrase with ".", "!" or "?" as its mood takes, and
 * without). The same model with the record cleared reports some at a coverage threshold
 * that flags any word the decoder did not take in fully (so the rule is what silences it,
 * whatever the model's attention). */
static void test_translator_learned_phrases_not_word_by_word(void **state)
{
    (void)state;
    Model m;
    load_ok(&m, "models/en-de.db");
    int flagged[2] = {0, 0}; /* phrase forms with a word not translated: cleared, learned */
    for (int learned = 0; learned <= 1; learned++) {
        m.phrasebook_fnv1a64 = learned ? grammar_phrasebook_fnv1a64() : 0;
        TranslatorOptions o = translator_options_default();
        o.coverage_min = 1.0f;
        Translator tr;
        init_ok(&tr, &m, &o);
        for (int i = 0; i < GRAMMAR_N_PHRASES; i++) {
            static const char *const MARKS[] = {"", ".", "!", "?"};
            for (size_t k = 0; k < sizeof MARKS / sizeof MARKS[0]; k++) {
                if ((k == 3) != GRAMMAR_PHRASES[i].question && k != 0)
                    continue;
                char text[160];
                snprintf(text, sizeof text, "%s%s", GRAMMAR_PHRASES[i].en, MARKS[k]);
                TranslatorResult r;
                run_ok(&tr, text, &r);
                flagged[learned] += r.n_uncovered > 0;
            }
        }
        translator_free(&tr);
    }
    assert_int_equal(flagged[1], 0);
    assert_true(flagged[0] > 0);
    model_free(&m);
}

/* A comma before "and", which the German cannot carry, costs the input nothing in the
 * read-back: the English with and without it score alike against the same German (and
 * one of them alone, scored at once, as in a block), while a comma the German has ("Ja,
 * bitte") is scored. */
static void test_translator_read_back_skips_commas_german_lacks(void **state)
{
    (void)state;
    Model rev;
    load_ok(&rev, "models/de-en.db");
    char err[512];
    ReadBack rb;
    assert_int_equal(readback_init(&rb, &rev, READBACK_MARGIN, err, sizeof err), TT_OK);
    static const char DE[] = "Der Lehrer liest einen Brief und die Kinder schreiben ein "
                             "Buch und wir essen Brot im Garten.";
    static const char *const EN[2] = {
        "The teacher reads a letter, and the children write a book, and we eat bread in "
        "the garden.",
        "The teacher reads a letter and the children write a book and we eat bread in the "
        "garden."};
    ReadBackResult r[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(readback_run(&rb, EN[i], strlen(EN[i]), DE, &r[i], err, sizeof err),
                         TT_OK);
        assert_true(r[i].done);
    }
    assert_true(r[0].input == r[1].input);
    /* The German has its comma: the English's is scored, so dropping it changes the score. */
    ReadBackResult with, without;
    assert_int_equal(readback_run(&rb, "Yes, please", 11, "Ja, bitte", &with, err, sizeof err),
                     TT_OK);
    assert_int_equal(readback_run(&rb, "Yes please", 10, "Ja, bitte", &without, err,
                                  sizeof err), TT_OK);
    assert_true(with.done && without.done && with.input != without.input);
    readback_free(&rb);
    model_free(&rev);
}

/* A prefix set on a running translator decodes as a translator made with that prefix:
 * the same words and log-probabilities, then none again, for the shipped model; a bad
 * prefix is refused as translator_init refuses it and leaves the translator without
 * one. (check's cases share one translator this way.) */
static void test_translator_set_prefix_as_init(void **state)
{
    (void)state;
    Model m;
    char err[512];
    load_ok(&m, "models/en-de.db");
    static const char *const SRC = "This is an example", *const PREFIX = "Das ist ein";
    TranslatorOptions o = translator_options_default();
    Translator plain, fixed, set;
    init_ok(&plain, &m, &o);
    init_ok(&set, &m, &o);
    o.prefix = PREFIX;
    init_ok(&fixed, &m, &o);
    TranslatorResult a, b;
    run_ok(&fixed, SRC, &a);
    assert_int_equal(a.t->n_forced, 3);
    assert_int_equal(translator_set_prefix(&set, PREFIX, err, sizeof err), TT_OK);
    run_ok(&set, SRC, &b);
    assert_string_equal(a.text, b.text);
    assert_int_equal(a.t->n, b.t->n);
    assert_int_equal(b.t->n_forced, 3);
    assert_memory_equal(a.t->logprob, b.t->logprob, sizeof(float) * (size_t)a.t->n);
    run_ok(&plain, SRC, &a);
    assert_int_equal(translator_set_prefix(&set, NULL, err, sizeof err), TT_OK);
    run_ok(&set, SRC, &b);
    assert_string_equal(a.text, b.text);
    assert_int_equal(b.t->n_forced, 0);
    assert_memory_equal(a.t->logprob, b.t->logprob, sizeof(float) * (size_t)a.t->n);
    assert_int_equal(translator_set_prefix(&set, "Das \xff", err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "prefix: invalid UTF-8 at byte 4"));
    run_ok(&set, SRC, &b);
    assert_int_equal(b.t->n_forced, 0);
    assert_string_equal(a.text, b.text);
    translator_free(&plain);
    translator_free(&fixed);
    translator_free(&set);
    model_free(&m);
}

/* Kept results agree, bit for bit. */
static void assert_kept_equal(const Kept *a, const Kept *b)
{
    assert_string_equal(a->text, b->text);
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->S, b->S);
    assert_memory_equal(a->logprob, b->logprob, sizeof(float) * (size_t)a->n);
    assert_int_equal(a->n_att, b->n_att);
    assert_int_equal(a->n_enc, b->n_enc);
    assert_memory_equal(a->cross, b->cross, sizeof(float) * a->n_att);
    assert_memory_equal(a->self, b->self, sizeof(float) * a->n_att);
    assert_memory_equal(a->enc, b->enc, sizeof(float) * a->n_enc);
}

/* The first n sources of set and their lengths. */
static void texts_of(const char **texts, size_t *lens, const EvalSet *set, int n)
{
    for (int i = 0; i < n; i++) {
        texts[i] = set->src[i];
        lens[i] = strlen(set->src[i]);
    }
}

/* The shipped model on data/test.tsv's first sentences: decoded ahead in batches of 7
 * on a pool of 3 threads, every sentence's text, log-probabilities, decoder attention and
 * encoder attention are the same bits as one sentence at a time — greedy and beam 3.
 * The one-at-a-time translator decodes its first sentence with the weights as stored
 * (it packs them at its second), the batches with them packed: the two products agree
 * too. (Under ThreadSanitizer, `make tsan`, this is also the translation threads' race
 * test.) */
static void test_translator_batches_and_threads_change_no_bit(void **state)
{
    (void)state;
    enum { N = 24 };
    Model m;
    char err[512];
    load_ok(&m, "models/en-de.db");
    EvalSet set;
    assert_int_equal(evalset_load(&set, "data/test.tsv", NULL, 0, 0, NULL, err, sizeof err),
                     TT_OK);
    assert_true(set.n >= N);
    Pool *pool;
    assert_int_equal(pool_open(&pool, 3), TT_OK);
    for (int beam = 1; beam <= 3; beam += 2) {
        TranslatorOptions o = translator_options_default();
        o.decode.beam = beam;
        Translator one, many;
        init_ok(&one, &m, &o);
        init_ok(&many, &m, &o);
        assert_int_equal(translator_set_batch(&many, 7, pool), TT_OK);
        assert_true(translator_ahead_capacity(&many) >= N);
        const char *texts[N];
        size_t lens[N];
        texts_of(texts, lens, &set, N);
        assert_int_equal(translator_decode_ahead(&many, texts, lens, N), TT_OK);
        assert_non_null(many.dec.params_packed);
        for (int i = 0; i < N; i++) {
            TranslatorResult a, b;
            Kept ka, kb;
            run_ok(&one, texts[i], &a);
            if (i == 0)
                assert_null(one.dec.params_packed);
            else
                assert_non_null(one.dec.params_packed);
            keep(&ka, &a);
            assert_int_equal(translator_run(&many, texts[i], lens[i], &b, err, sizeof err),
                             TT_OK);
            keep(&kb, &b);
            assert_kept_equal(&ka, &kb);
            kept_free(&ka);
            kept_free(&kb);
        }
        translator_free(&many);
        translator_free(&one);
    }
    pool_close(pool);
    evalset_free(&set);
    model_free(&m);
}


/* Lines translator_run refuses or finds empty inside a block decoded ahead do not stop
 * the lines after them from taking their decodings (they were decoded again, one at a
 * time, since the refused line never moved past its entry). */
static void test_translator_ahead_goes_past_refused_lines(void **state)
{
    (void)state;
    Model m;
    char err[512];
    load_ok(&m, "models/en-de.db");
    TranslatorOptions o = translator_options_default();
    Translator tr;
    init_ok(&tr, &m, &o);
    assert_int_equal(translator_set_batch(&tr, 4, NULL), TT_OK);
    const char *texts[] = {"This is an example", "", "the cat \xff sleeps", "The dog sees the cat.",
                           "", "I see the house."};
    enum { N = sizeof texts / sizeof texts[0] };
    size_t lens[N];
    for (int i = 0; i < N; i++)
        lens[i] = strlen(texts[i]);
    assert_int_equal(translator_decode_ahead(&tr, texts, lens, N), TT_OK);
    for (int i = 0; i < N; i++) {
        TranslatorResult r;
        const int rc = translator_run(&tr, texts[i], lens[i], &r, err, sizeof err);
        assert_int_equal(rc, i == 2 ? TT_EINPUT : TT_OK);
        if (lens[i] > 0 && rc == TT_OK)
            assert_true(r.t != &tr.t); /* taken, not decoded again */
    }
    translator_free(&tr);
    model_free(&m);
}

/* A block decoded in the background (translator_ahead_start) while the block before it
 * is run: both blocks' results are the same bits as one sentence at a time, and so is a
 * text of neither block, which translator_run decodes itself — on the decoder a thread
 * of the background decode may hold, so it first waits for them (under `make tsan`, the
 * race test of that wait). A second start before the join is refused. */
static void test_translator_background_block_changes_no_bit(void **state)
{
    (void)state;
    enum { N = 20, HALF = N / 2 };
    Model m;
    char err[512];
    load_ok(&m, "models/en-de.db");
    EvalSet set;
    assert_int_equal(evalset_load(&set, "data/test.tsv", NULL, 0, 0, NULL, err, sizeof err),
                     TT_OK);
    assert_true(set.n >= N + 1);
    Pool *pool;
    assert_int_equal(pool_open(&pool, 2), TT_OK);
    TranslatorOptions o = translator_options_default();
    Translator one, many;
    init_ok(&one, &m, &o);
    init_ok(&many, &m, &o);
    assert_int_equal(translator_set_batch(&many, 3, pool), TT_OK);
    assert_true(translator_ahead_capacity(&many) >= HALF);
    const char *texts[N];
    size_t lens[N];
    texts_of(texts, lens, &set, N);
    const char *outside = set.src[N];
    Kept want[N + 1];
    for (int i = 0; i <= N; i++) {
        TranslatorResult r;
        run_ok(&one, i < N ? texts[i] : outside, &r);
        keep(&want[i], &r);
    }
    assert_int_equal(translator_decode_ahead(&many, texts, lens, HALF), TT_OK);
    assert_int_equal(translator_ahead_start(&many, texts + HALF, lens + HALF, HALF), TT_OK);
    assert_int_equal(translator_ahead_start(&many, texts + HALF, lens + HALF, HALF), TT_EINVAL);
    for (int i = 0; i <= HALF; i++) {
        /* The text of neither block after the first block's third. */
        const int k = i < 3 ? i : i == 3 ? N : i - 1;
        TranslatorResult r;
        Kept got;
        const char *text = k < N ? texts[k] : outside;
        assert_int_equal(translator_run(&many, text, strlen(text), &r, err, sizeof err), TT_OK);
        keep(&got, &r);
        assert_kept_equal(&got, &want[k]);
        kept_free(&got);
        /* Waited for the threads before its own decoding, and only then. */
        assert_int_equal(many.flight, i < 3 ? 1 : 2);
    }
    translator_ahead_join(&many);
    assert_int_equal(many.flight, 0);
    for (int i = HALF; i < N; i++) {
        TranslatorResult r;
        Kept got;
        assert_int_equal(translator_run(&many, texts[i], lens[i], &r, err, sizeof err), TT_OK);
        /* Taken from the background block, not decoded again. */
        assert_true(r.t != &many.t);
        keep(&got, &r);
        assert_kept_equal(&got, &want[i]);
        kept_free(&got);
    }
    /* A start without a join is ended by translator_free. */
    assert_int_equal(translator_ahead_start(&many, texts, lens, HALF), TT_OK);
    for (int i = 0; i <= N; i++)
        kept_free(&want[i]);
    translator_free(&many);
    translator_free(&one);
    pool_close(pool);
    evalset_free(&set);
    model_free(&m);
}

/* The read-back of a block, in batches of 5 on a pool of 2 threads, gives each pair the
 * same reading and the same scores, bit for bit, as readback_run alone; a pair left out
 * of the runs (as --strict leaves a refused line out) does not shift the others.
 * (Under ThreadSanitizer, `make tsan`, the read-back threads' race test.) */
static void test_translator_read_back_in_batches_changes_no_bit(void **state)
{
    (void)state;
    enum { N = 12 };
    Model fwd, rev;
    load_ok(&fwd, "models/en-de.db");
    load_ok(&rev, "models/de-en.db");
    char err[512];
    EvalSet set;
    assert_int_equal(evalset_load(&set, "data/test.tsv", NULL, 0, 0, NULL, err, sizeof err),
                     TT_OK);
    Pool *pool;
    assert_int_equal(pool_open(&pool, 2), TT_OK);
    ReadBack one, many;
    assert_int_equal(readback_init(&one, &rev, READBACK_MARGIN, err, sizeof err), TT_OK);
    assert_int_equal(readback_init(&many, &rev, READBACK_MARGIN, err, sizeof err), TT_OK);
    assert_int_equal(readback_set_batch(&many, 5, pool), TT_OK);
    const TranslatorOptions o = translator_options_default();
    Translator tr;
    init_ok(&tr, &fwd, &o);
    char *hyp[N];
    for (int i = 0; i < N; i++) {
        TranslatorResult r;
        /* Every third German with a word dropped: readings that disagree too. */
        run_ok(&tr, set.src[i], &r);
        hyp[i] = strdup(r.text);
        assert_non_null(hyp[i]);
        if (i % 3 == 0 && strchr(hyp[i], ' '))
            *strrchr(hyp[i], ' ') = '\0';
        assert_int_equal(readback_ahead_add(&many, set.src[i], strlen(set.src[i]), hyp[i]),
                         TT_OK);
    }
    readback_ahead_decode(&many);
    int disagree = 0, same_as_input = 0;
    for (int i = 0; i < N; i++) {
        if (i == 4)
            continue; /* left out */
        ReadBackResult a, b;
        const size_t len = strlen(set.src[i]);
        assert_int_equal(readback_run(&one, set.src[i], len, hyp[i], &a, err, sizeof err),
                         TT_OK);
        char *a_text = strdup(a.done ? a.text : "");
        assert_int_equal(readback_run(&many, set.src[i], len, hyp[i], &b, err, sizeof err),
                         TT_OK);
        assert_int_equal(a.done, b.done);
        assert_true(a.done);
        assert_string_equal(a_text, b.text);
        assert_memory_equal(&a.best, &b.best, sizeof a.best);
        assert_memory_equal(&a.input, &b.input, sizeof a.input);
        assert_int_equal(a.disagrees, b.disagrees);
        disagree += a.disagrees;
        /* The input's score is decode_score_batch's, whether it was forced through or,
         * when the reading is the input itself, taken from the reading. */
        int n = 0;
        while (one.ids[n] != VOCAB_EOS)
            n++;
        n++;
        const int *src = one.tr.src_ids, *ids = one.ids, S = one.tr.cur->S;
        double want;
        assert_int_equal(decode_score_batch(&one.tr.dec, &src, &S, 1, &ids, &n, &want), TT_OK);
        assert_memory_equal(&a.input, &want, sizeof want);
        same_as_input += a.margin == 0.0;
        free(a_text);
    }
    assert_true(disagree > 0 && disagree < N - 1);
    assert_true(same_as_input > 0 && same_as_input < N - 1);
    for (int i = 0; i < N; i++)
        free(hyp[i]);
    translator_free(&tr);
    readback_free(&many);
    readback_free(&one);
    pool_close(pool);
    evalset_free(&set);
    model_free(&rev);
    model_free(&fwd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translator_unk_copies_the_source_word_as_typed),
        cmocka_unit_test(test_translator_keep_unk_shows_unk),
        cmocka_unit_test(test_translator_never_outputs_pad_or_bos),
        cmocka_unit_test(test_translator_non_finite_logits_fail_the_sentence),
        cmocka_unit_test(test_translator_eos_is_not_a_word),
        cmocka_unit_test(test_translator_prefix_kept_as_written),
        cmocka_unit_test(test_translator_set_prefix_as_init),
        cmocka_unit_test(test_translator_init_refuses_bad_options),
        cmocka_unit_test(test_translator_run_refuses_bad_sentences),
        cmocka_unit_test(test_translator_capitalised_table),
        cmocka_unit_test(test_translator_function_words),
        cmocka_unit_test(test_translator_unknown_words_and_names),
        cmocka_unit_test(test_translator_common_words_are_not_names),
        cmocka_unit_test(test_translator_coverage),
        cmocka_unit_test(test_translator_n_best_first_is_the_beam_output),
        cmocka_unit_test(test_translator_batches_and_threads_change_no_bit),
        cmocka_unit_test(test_translator_background_block_changes_no_bit),
        cmocka_unit_test(test_translator_ahead_goes_past_refused_lines),
        cmocka_unit_test(test_translator_grammar_takes_phrases_the_model_learned),
        cmocka_unit_test(test_translator_learned_phrases_not_word_by_word),
        cmocka_unit_test(test_translator_read_back_skips_commas_german_lacks),
        cmocka_unit_test(test_translator_read_back_in_batches_changes_no_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
