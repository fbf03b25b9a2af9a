/*
 * test_bleu.c — corpus BLEU as sacreBLEU computes it by default: its published examples,
 * the 13a tokenizer on tricky text, smoothing, clipping, lengths, empty sentences.
 *
 * The two README examples are sacreBLEU's own published output. Every other expected
 * line and tokenization was printed by tests/fixtures/gen_bleu_ref.py, which runs
 * sacreBLEU's regular expressions and formulas in Python 3 (see that file).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "eval/bleu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scores hyps against n_sets reference sets and checks the formatted line. */
static void check_line(const char *const *hyps, size_t n, const char *const *const *sets,
                       int n_sets, const char *want)
{
    BleuScore s;
    assert_int_equal(bleu_corpus(&s, hyps, n, sets, n_sets), TT_OK);
    char line[BLEU_LINE_SIZE];
    int len = bleu_format(line, sizeof line, &s);
    assert_true(len > 0 && (size_t)len < sizeof line);
    assert_string_equal(line, want);
}

static const char *const README_HYPS[] = {
    "The dog bit the man.",
    "It wasn't surprising.",
    "The man had just bitten him.",
};
static const char *const README_REFS1[] = {
    "The dog bit the man.",
    "It was not unexpected.",
    "The man bit him first.",
};
static const char *const README_REFS2[] = {
    "The dog had bit the man.",
    "No one was surprised.",
    "The man had bitten the dog.",
};

/* sacreBLEU's README, one reference set: its printed line, digit for digit. */
static void test_bleu_sacrebleu_readme_one_reference(void **state)
{
    (void)state;
    const char *const *sets[] = {README_REFS1};
    check_line(README_HYPS, 3, sets, 1,
               "BLEU = 45.07 70.6/42.9/36.4/37.5 (BP = 1.000 ratio = 1.000 hyp_len = 17 "
               "ref_len = 17)");
}

/* sacreBLEU's README, two reference sets: clipping by the best reference, and the
 * closest reference length (18 here) setting the brevity penalty. */
static void test_bleu_sacrebleu_readme_two_references(void **state)
{
    (void)state;
    const char *const *sets[] = {README_REFS1, README_REFS2};
    check_line(README_HYPS, 3, sets, 2,
               "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 "
               "ref_len = 18)");
}

/* The 13a tokenizer: symbols split off, periods and commas split unless inside a
 * number, dashes split after a digit, entities unescaped, Python's whitespace. */
static void test_bleu_13a_tokenizer_tricky_strings(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } CASES[] = {
        {"Hello, world.", "Hello , world ."},
        {"It costs $1,000.50, or 3.5 million - not 4.",
         "It costs $ 1,000.50 , or 3.5 million - not 4 ."},
        {"Pages 10-20 and 1999-2001; well-known self-made",
         "Pages 10 - 20 and 1999 - 2001 ; well-known self-made"},
        {"A \"quoted\" word and &quot;escaped&quot; &amp; &lt;tag&gt; &amp;quot;",
         "A \" quoted \" word and \" escaped \" & < tag > & quot ;"},
        {"End with dots... and commas,,", "End with dots . . . and commas , ,"},
        {".5 and 5. and a.b and 1.a and a,1", ". 5 and 5 . and a . b and 1 . a and a , 1"},
        {"Don't stop: (a) [b] {c} <d> @e #f 50% x/y a_b ~z `q` ^",
         "Don't stop : ( a ) [ b ] { c } < d > @ e # f 50 % x / y a _ b ~ z ` q ` ^"},
        {"skip<skipped>ped line-\nbreak\nnext", "skipped linebreak next"},
        {"Stra\xc3\x9f" "e, M\xc3\xa4" "dchen. \xc3\x84rger.\xc3\x9c" "bel",
         "Stra\xc3\x9f" "e , M\xc3\xa4" "dchen . \xc3\x84rger . \xc3\x9c" "bel"},
        /* NBSP, EM SPACE and IDEOGRAPHIC SPACE split; ZERO WIDTH SPACE and BOM do not. */
        {"nbsp\xc2\xa0" "and\xe2\x80\x83" "em\xe3\x80\x80" "ideographic\xe2\x80\x8b"
         "zero-width\xef\xbb\xbf" "bom",
         "nbsp and em ideographic\xe2\x80\x8bzero-width\xef\xbb\xbf" "bom"},
        {"  trailing spaces and tab\t\n", "trailing spaces and tab"},
        {"x -5 and 5-x and a-5 and 3--4", "x -5 and 5 - x and a-5 and 3 - -4"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char *out;
        assert_int_equal(bleu_tokenize_13a(&out, CASES[i].in, strlen(CASES[i].in)), TT_OK);
        if (strcmp(out, CASES[i].want) != 0)
            print_error("case %zu: '%s'\n   got '%s'\n  want '%s'\n", i, CASES[i].in, out,
                        CASES[i].want);
        assert_string_equal(out, CASES[i].want);
        free(out);
    }
}

/* Every character Python's str.split() splits on (bidirectional class WS, B, S or
 * category Zs) separates tokens. */
static void test_bleu_13a_splits_on_python_whitespace(void **state)
{
    (void)state;
    static const unsigned SPACES[] = {
        0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680,
        0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009,
        0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    };
    char in[512] = "", want[512] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof SPACES / sizeof SPACES[0]; i++) {
        const unsigned c = SPACES[i];
        n += (size_t)snprintf(in + n, sizeof in - n, "w%zu", i);
        if (c < 0x80) {
            in[n++] = (char)c;
        } else if (c < 0x800) {
            in[n++] = (char)(0xC0 | c >> 6);
            in[n++] = (char)(0x80 | (c & 0x3F));
        } else {
            in[n++] = (char)(0xE0 | c >> 12);
            in[n++] = (char)(0x80 | (c >> 6 & 0x3F));
            in[n++] = (char)(0x80 | (c & 0x3F));
        }
        snprintf(want + strlen(want), sizeof want - strlen(want), "w%zu ", i);
    }
    n += (size_t)snprintf(in + n, sizeof in - n, "end");
    strcat(want, "end");
    char *out;
    assert_int_equal(bleu_tokenize_13a(&out, in, n), TT_OK);
    assert_string_equal(out, want);
    free(out);
}

/* The tokenizer refuses what is not UTF-8, and NUL bytes. */
static void test_bleu_13a_rejects_invalid_utf8(void **state)
{
    (void)state;
    char *out = (char *)"untouched";
    assert_int_equal(bleu_tokenize_13a(&out, "ab\xc0\xaf", 4), TT_EINPUT);
    assert_null(out);
    assert_int_equal(bleu_tokenize_13a(&out, "a\0b", 3), TT_EINPUT);
    assert_null(out);
}

/* A corpus scored against itself gets 100, whatever its punctuation. */
static void test_bleu_identical_corpus_is_100(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"Das ist gut.", "Ich bin hier."};
    const char *const *sets[] = {HYPS};
    check_line(HYPS, 2, sets, 1,
               "BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 8 "
               "ref_len = 8)");
    const char *const *readme[] = {README_REFS1, README_REFS2};
    BleuScore s;
    assert_int_equal(bleu_corpus(&s, README_REFS2, 3, readme, 2), TT_OK);
    assert_float_equal(s.score, 100.0, 1e-12);
}

/* No n-gram of any order matches: sacreBLEU stops early with 0 and shows every
 * precision as 0, smoothing or not. */
static void test_bleu_no_overlap_is_zero(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"x y z", "p q"};
    static const char *const REFS[] = {"a b c", "r s"};
    const char *const *sets[] = {REFS};
    check_line(HYPS, 2, sets, 1,
               "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 5 ref_len = 5)");
}

/* 'exp' smoothing: each order without a match gets 100 / (2^k · total), k counting
 * those orders (here 3-grams k = 1: 100/6, 4-grams k = 2: 100/8). */
static void test_bleu_exp_smoothing_doubles_per_order(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"a b c d e"};
    static const char *const REFS[] = {"a b x y z"};
    const char *const *sets[] = {REFS};
    check_line(HYPS, 1, sets, 1,
               "BLEU = 21.36 40.0/25.0/16.7/12.5 (BP = 1.000 ratio = 1.000 hyp_len = 5 "
               "ref_len = 5)");
}

/* A hypothesis too short to have 4-grams: that precision stays 0 and so does BLEU,
 * with the brevity penalty still shown. */
static void test_bleu_no_ngrams_of_an_order_gives_zero(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"a b c"};
    static const char *const REFS[] = {"a b c d e f g h"};
    const char *const *sets[] = {REFS};
    check_line(HYPS, 1, sets, 1,
               "BLEU = 0.00 100.0/100.0/100.0/0.0 (BP = 0.189 ratio = 0.375 hyp_len = 3 "
               "ref_len = 8)");
}

/* Counts are clipped to the most any single reference has, and case matters ("The" is
 * not "the"). */
static void test_bleu_clipping_is_per_reference_and_case_sensitive(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"the the the the the the the"};
    static const char *const R1[] = {"The cat is on the mat."};
    static const char *const R2[] = {"There is a cat on the mat."};
    const char *const *sets[] = {R1, R2};
    check_line(HYPS, 1, sets, 2,
               "BLEU = 6.57 14.3/8.3/5.0/3.1 (BP = 1.000 ratio = 1.000 hyp_len = 7 ref_len = 7)");
}

/* Empty hypotheses count with length 0; a corpus of nothing but one has BP 0. */
static void test_bleu_empty_hypotheses(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"", "the cat sat on the mat"};
    static const char *const REFS[] = {"a reference", "the cat sat on the mat"};
    const char *const *sets[] = {REFS};
    check_line(HYPS, 2, sets, 1,
               "BLEU = 71.65 100.0/100.0/100.0/100.0 (BP = 0.717 ratio = 0.750 hyp_len = 6 "
               "ref_len = 8)");
    static const char *const EMPTY[] = {""};
    static const char *const AB[] = {"a b"};
    const char *const *ab[] = {AB};
    check_line(EMPTY, 1, ab, 1,
               "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 0.000 ratio = 0.000 hyp_len = 0 ref_len = 2)");
}

/* An empty reference string is no reference (sacreBLEU drops it); a sentence left with
 * none is an error. */
static void test_bleu_empty_references_are_dropped(void **state)
{
    (void)state;
    static const char *const HYPS[] = {"a b c d e f", "g h"};
    static const char *const R1[] = {"a b c d e f", ""};
    static const char *const R2[] = {"a b c d e f g", "g h i"};
    const char *const *sets[] = {R1, R2};
    check_line(HYPS, 2, sets, 2,
               "BLEU = 88.25 100.0/100.0/100.0/100.0 (BP = 0.882 ratio = 0.889 hyp_len = 8 "
               "ref_len = 9)");
    static const char *const NONE[] = {"", ""};
    const char *const *none[] = {NONE};
    BleuScore s;
    assert_int_equal(bleu_corpus(&s, HYPS, 2, none, 1), TT_EINPUT);
    assert_float_equal(s.score, 0.0, 0.0);
}

/* Adding sentences one at a time gives the statistics of the whole corpus, and a failed
 * sentence leaves them unchanged. */
static void test_bleu_add_accumulates_and_checks_arguments(void **state)
{
    (void)state;
    Bleu b;
    bleu_init(&b);
    for (int i = 0; i < 3; i++) {
        const char *refs[2] = {README_REFS1[i], README_REFS2[i]};
        assert_int_equal(bleu_add(&b, README_HYPS[i], refs, 2), TT_OK);
    }
    const BleuStats before = b.stats;
    const char *bad[1] = {"bad \xff"};
    assert_int_equal(bleu_add(&b, "fine", bad, 1), TT_EINPUT);
    assert_int_equal(bleu_add(&b, "fine", bad, 0), TT_EINVAL);
    const char *null_ref[1] = {NULL};
    assert_int_equal(bleu_add(&b, "fine", null_ref, 1), TT_EINVAL);
    assert_memory_equal(&b.stats, &before, sizeof before);
    assert_int_equal(b.sentences, 3);

    BleuScore s;
    bleu_compute(&s, &b.stats);
    char line[BLEU_LINE_SIZE];
    bleu_format(line, sizeof line, &s);
    assert_string_equal(line, "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 "
                              "hyp_len = 17 ref_len = 18)");
    assert_int_equal(s.stats.correct[0], 14);
    assert_int_equal(s.stats.total[0], 17);
    bleu_free(&b);
    bleu_free(&b); /* a freed Bleu may be freed again */
    bleu_free(NULL);
}

/* The signature as sacreBLEU 2.0.0's README prints it for one reference set
 * ("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0 = 20.8 ..."), and
 * nrefs as the number of non-empty references, "var" when sentences differ. */
static void test_bleu_signature_as_sacrebleu_prints_it(void **state)
{
    (void)state;
    Bleu b;
    bleu_init(&b);
    const char *one[] = {"The dog bit the man."};
    assert_int_equal(bleu_add(&b, "The dog bit the man.", one, 1), TT_OK);
    char sig[128], line[BLEU_LINE_SIZE + 128];
    bleu_signature(sig, sizeof sig, &b, "2.0.0");
    assert_string_equal(sig, "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0");
    BleuScore s;
    bleu_compute(&s, &b.stats);
    bleu_format_signed(line, sizeof line, &s, sig);
    assert_string_equal(line, "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0 "
                              "= 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 "
                              "hyp_len = 6 ref_len = 6)");
    const char *two[] = {"The dog bit the man.", "A dog bit a man."};
    assert_int_equal(bleu_add(&b, "The dog bit the man.", two, 2), TT_OK);
    bleu_signature(sig, sizeof sig, &b, "x");
    assert_string_equal(sig, "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:x");
    bleu_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bleu_sacrebleu_readme_one_reference),
        cmocka_unit_test(test_bleu_sacrebleu_readme_two_references),
        cmocka_unit_test(test_bleu_13a_tokenizer_tricky_strings),
        cmocka_unit_test(test_bleu_13a_splits_on_python_whitespace),
        cmocka_unit_test(test_bleu_13a_rejects_invalid_utf8),
        cmocka_unit_test(test_bleu_identical_corpus_is_100),
        cmocka_unit_test(test_bleu_no_overlap_is_zero),
        cmocka_unit_test(test_bleu_exp_smoothing_doubles_per_order),
        cmocka_unit_test(test_bleu_no_ngrams_of_an_order_gives_zero),
        cmocka_unit_test(test_bleu_clipping_is_per_reference_and_case_sensitive),
        cmocka_unit_test(test_bleu_empty_hypotheses),
        cmocka_unit_test(test_bleu_empty_references_are_dropped),
        cmocka_unit_test(test_bleu_add_accumulates_and_checks_arguments),
        cmocka_unit_test(test_bleu_signature_as_sacrebleu_prints_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
