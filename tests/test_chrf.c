/*
 * test_chrf.c — corpus chrF as sacreBLEU 2.x computes it: its published test values.
 *
 * Every expected score below is a published number, not one this code produced:
 *   - sacreBLEU's test/test_chrf.py (github.com/mjpost/sacrebleu): test_cases (corpus
 *     chrF, β = 3, eps_smoothing), test_cases_effective_order (β = 3, the default
 *     effective-order averaging) and test_sentence_level_chrf (the default β = 2 with
 *     eps_smoothing), each checked there to within 1e-4;
 *   - the default chrF2 (β = 2, effective order) on two examples of the chrF metric card
 *     of Hugging Face datasets (metrics/chrf/README.md), which prints sacreBLEU's own
 *     corpus_score: 61.576379378113785 and 84.64214891738334.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "eval/chrf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* sacreBLEU's tolerance in test_chrf.py. */
#define CHRF_EPS 1e-4

typedef struct {
    const char *hyp[2]; /* one or two sentences; NULL ends */
    const char *ref[2];
    double want;
} ChrfCase;

/* Scores each case's corpus with beta and smoothing; fails with the largest difference. */
static void check_cases(const ChrfCase *cases, size_t n, int beta, int eps_smoothing)
{
    double worst = 0.0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        Chrf c;
        chrf_init(&c);
        c.beta = beta;
        c.eps_smoothing = eps_smoothing;
        for (int k = 0; k < 2 && cases[i].hyp[k]; k++)
            assert_int_equal(chrf_add(&c, cases[i].hyp[k], &cases[i].ref[k], 1), TT_OK);
        const double got = chrf_compute(&c, &c.stats);
        if (fabs(got - cases[i].want) > worst) {
            worst = fabs(got - cases[i].want);
            worst_i = i;
        }
        chrf_free(&c);
    }
    if (worst > CHRF_EPS)
        fail_msg("case %zu: largest difference %g (want %.6f)", worst_i, worst,
                 cases[worst_i].want);
}

/* test_chrf.py's test_cases: β = 3 with eps_smoothing, empty and single-character
 * sentences, whitespace that does not count, German with umlauts. */
static void test_chrf_sacrebleu_eps_smoothing_cases(void **state)
{
    (void)state;
    static const ChrfCase CASES[] = {
        {{"abcdefg"}, {"hijklmnop"}, 0.0},
        {{"a"}, {"b"}, 0.0},
        {{""}, {"b"}, 0.0},
        {{""}, {"ref"}, 0.0},
        {{""}, {"reference"}, 0.0},
        {{"aa"}, {"ab"}, 8.3333},
        {{"a", "b"}, {"a", "c"}, 8.3333},
        {{"a"}, {"a"}, 16.6667},
        {{"a b c"}, {"a b c"}, 50.0},
        {{"a b c"}, {"abc"}, 50.0},
        {{" risk assessment must be made of those who are qualified and expertise in the "
          "sector - these are the scientists ."},
         {"risk assessment has to be undertaken by those who are qualified and expert in "
          "that area - that is the scientists ."},
         63.361730},
        {{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
         {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
         64.1302698},
        {{"Niemand hat die Absicht, eine Mauer zu errichten"},
         {"Niemand hat die Absicht, eine Mauer zu errichten"},
         100.0},
    };
    check_cases(CASES, sizeof CASES / sizeof CASES[0], 3, 1);
}

/* test_chrf.py's test_cases_effective_order: β = 3, the default averaging. */
static void test_chrf_sacrebleu_effective_order_cases(void **state)
{
    (void)state;
    static const ChrfCase CASES[] = {
        {{"a"}, {"a"}, 100.0},          {{""}, {"reference"}, 0.0},
        {{"a b c"}, {"a b c"}, 100.0},  {{"a b c"}, {"abc"}, 100.0},
        {{""}, {"c"}, 0.0},             {{"a", "b"}, {"a", "c"}, 50.0},
        {{"aa"}, {"ab"}, 25.0},
    };
    check_cases(CASES, sizeof CASES / sizeof CASES[0], 3, 0);
}

/* test_chrf.py's test_sentence_level_chrf: β = 2 with eps_smoothing, Czech sentences. */
static void test_chrf_sacrebleu_sentence_level_czech(void **state)
{
    (void)state;
    static const ChrfCase CASES[] = {
        {{"Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře."},
         {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."},
         39.14078509},
        {{"Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři."},
         {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."},
         31.22557079},
        {{"Lapali po dechu, jejich životy skončily dřív, než skutečně začaly."},
         {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, "
          "připomněli."},
         57.15704367},
    };
    check_cases(CASES, sizeof CASES / sizeof CASES[0], 2, 1);
}

/* The default chrF2 (β = 2, effective order), as the Hugging Face metric card prints
 * sacreBLEU's corpus_score, and its line with the signature. */
static void test_chrf_default_chrf2_published_examples(void **state)
{
    (void)state;
    static const ChrfCase CASES[] = {
        {{"The relationship between Obama and Netanyahu is not exactly friendly."},
         {"The ties between Obama and Netanyahu are not particularly friendly."},
         61.576379378113785},
        {{"The relationship between cats and dogs is not exactly friendly.",
          "a good bookshop is just a genteel black hole that knows how to read."},
         {"The relationship between dogs and cats is not exactly friendly.",
          "A good bookshop is just a genteel Black Hole that knows how to read."},
         84.64214891738334},
    };
    check_cases(CASES, sizeof CASES / sizeof CASES[0], CHRF_BETA, 0);

    Chrf c;
    chrf_init(&c);
    assert_int_equal(chrf_add(&c, CASES[0].hyp[0], CASES[0].ref, 1), TT_OK);
    char sig[CHRF_LINE_SIZE], line[CHRF_LINE_SIZE];
    chrf_signature(sig, sizeof sig, &c, "toytrans-0.1.0");
    assert_string_equal(sig, "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:toytrans-0.1.0");
    chrf_format(line, sizeof line, &c, sig);
    assert_string_equal(line, "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|"
                              "version:toytrans-0.1.0 = 61.58");
    chrf_format(line, sizeof line, &c, NULL);
    assert_string_equal(line, "chrF2 = 61.58");
    chrf_free(&c);
}

/* With several references a sentence takes the best one's statistics; an empty reference
 * is none, and a sentence left with none is refused without changing the corpus. */
static void test_chrf_best_reference_and_empty_references(void **state)
{
    (void)state;
    Chrf c;
    chrf_init(&c);
    const char *refs[] = {"", "völlig anders", "Das ist ein Beispiel"};
    assert_int_equal(chrf_add(&c, "Das ist ein Beispiel", refs, 3), TT_OK);
    assert_float_equal(chrf_compute(&c, &c.stats), 100.0, 1e-9);
    const char *none[] = {"", ""};
    assert_int_equal(chrf_add(&c, "x", none, 2), TT_EINPUT);
    assert_int_equal(c.sentences, 1);
    const char *one[] = {"Das ist ein Beispiel"};
    assert_int_equal(chrf_add(&c, "Das ist ein Beispiel", one, 1), TT_OK);
    char sig[CHRF_LINE_SIZE];
    chrf_signature(sig, sizeof sig, &c, "v");
    assert_non_null(strstr(sig, "nrefs:var|"));
    assert_int_equal(chrf_add(&c, "\xff", one, 1), TT_EINPUT);
    assert_int_equal(chrf_add(&c, NULL, one, 1), TT_EINVAL);
    assert_int_equal(chrf_add(&c, "a", one, 0), TT_EINVAL);
    assert_int_equal(c.sentences, 2);
    chrf_free(&c);
    chrf_free(&c); /* a freed Chrf may be freed again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chrf_sacrebleu_eps_smoothing_cases),
        cmocka_unit_test(test_chrf_sacrebleu_effective_order_cases),
        cmocka_unit_test(test_chrf_sacrebleu_sentence_level_czech),
        cmocka_unit_test(test_chrf_default_chrf2_published_examples),
        cmocka_unit_test(test_chrf_best_reference_and_empty_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
