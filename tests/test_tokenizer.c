/*
 * test_tokenizer.c — tokenizer and detokenizer tables, every invalid UTF-8 class, and the
 * detokenizer's round trip over the whole corpus.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "text/tokenizer.h"
#include "text/tsv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tokenizes text (len bytes) and compares with the space-joined expectation. */
static void expect_tokens_n(const char *text, size_t len, TokLang lang, const char *want)
{
    TokenList l;
    TokError e;
    int rc = tokenize(&l, text, len, lang, &e);
    if (rc != TT_OK) {
        print_error("tokenize(\"%s\") failed: %s\n", text, e.message);
        fail();
    }
    char got[1024] = "";
    for (int i = 0; i < l.n; i++) {
        if (i)
            strcat(got, " ");
        strcat(got, l.tok[i]);
    }
    if (strcmp(got, want) != 0) {
        print_error("tokenize(\"%s\"): got [%s], want [%s]\n", text, got, want);
        tokenlist_free(&l);
        fail();
    }
    tokenlist_free(&l);
}

static void expect_tokens(const char *text, TokLang lang, const char *want)
{
    expect_tokens_n(text, strlen(text), lang, want);
}

/* English: case-folded, punctuation split off, apostrophes and hyphens inside words kept. */
static void test_tokenizer_english_table(void **state)
{
    (void)state;
    static const char *const CASES[][2] = {
        {"This is an example", "this is an example"},
        {"This is an example.", "this is an example ."},
        {"this is an example", "this is an example"},
        {"THIS  IS\tAN   EXAMPLE", "this is an example"},
        {"Won't stop, well-known (test)!", "won't stop , well-known ( test ) !"},
        {"'quoted' words", "' quoted ' words"},
        {"end- -start", "end - - start"},
        {"rock 'n' roll", "rock ' n ' roll"},
        {"Is it big?", "is it big ?"},
        {"wait...", "wait . . ."},
        {"a\xc2\xa0" "b", "a b"},              /* U+00A0 no-break space (Zs) */
        {"a\xe3\x80\x80" "b", "a b"},          /* U+3000 ideographic space */
        {"a\xe2\x80\xa8" "b", "a b"},          /* U+2028 line separator (Zl) */
        {"dog\xe2\x80\x99s", "dog\xe2\x80\x99s"}, /* ’ inside a word */
        {"\xc3\x84RGER", "\xc3\xa4rger"},        /* ÄRGER folds to ärger */
        {"", ""},
        {"   \t ", ""},
        {"?!.", "? ! ."},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        expect_tokens(CASES[i][0], TOK_SRC, CASES[i][1]);
}

/* English contractions become their expansions, whatever the case and apostrophe, and
 * only as whole words. */
static void test_tokenizer_contractions_expand(void **state)
{
    (void)state;
    static const char *const CASES[][2] = {
        {"I don't see the dog", "i do not see the dog"},
        {"DON'T", "do not"},
        {"Don\xe2\x80\x99t", "do not"},                 /* ’ U+2019 */
        {"it doesn't.", "it does not ."},                   /* punctuation after it */
        {"isn't? aren't!", "is not ? are not !"},
        {"I'm here", "i am here"},
        {"you're he's she's it's", "you are he is she is it is"},
        {"We\xe2\x80\x99re, they're", "we are , they are"},
        {"(don't)", "( do not )"},
        {"don'tx xdon't don' 'don't", "don'tx xdon't don ' ' do not"}, /* not whole words */
        {"do n't", "do n't"},
        {"don''t", "don ' ' t"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        expect_tokens(CASES[i][0], TOK_SRC, CASES[i][1]);
}

/* "I don't see the dog" and "I do not see the dog" give identical token lists. */
static void test_tokenizer_contraction_same_as_expansion(void **state)
{
    (void)state;
    TokenList a, b;
    assert_int_equal(tokenize(&a, "I don't see the dog", 19, TOK_SRC, NULL), TT_OK);
    assert_int_equal(tokenize(&b, "I do not see the dog", 20, TOK_SRC, NULL), TT_OK);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++)
        assert_string_equal(a.tok[i], b.tok[i]);
    tokenlist_free(&b);
    tokenlist_free(&a);
}

/* The case-kept English tokenization splits as the folded one and keeps the typed case
 * of an expansion's first word; German is never expanded. */
static void test_tokenizer_contractions_by_side(void **state)
{
    (void)state;
    expect_tokens("Anna DOESN'T see Bob", TOK_SRC_CASED, "Anna DOES not see Bob");
    expect_tokens("I'm", TOK_SRC_CASED, "I am");
    expect_tokens("They\xe2\x80\x99re", TOK_SRC_CASED, "They are");
    expect_tokens("don't", TOK_TGT, "don't");
    /* Many contractions in a row fill the token buffer to its bound. */
    expect_tokens("i'm i'm i'm", TOK_SRC, "i am i am i am");
    expect_tokens("i'm", TOK_SRC, "i am");
}

/* German keeps its case and its umlauts and ß; NFD input becomes the NFC token. */
static void test_tokenizer_german_table(void **state)
{
    (void)state;
    expect_tokens("Das M\xc3\xa4" "dchen \xc3\xb6" "ffnet die T\xc3\xbcr.", TOK_TGT,
                  "Das M\xc3\xa4" "dchen \xc3\xb6" "ffnet die T\xc3\xbcr .");
    expect_tokens("Die Stra\xc3\x9f" "e ist gro\xc3\x9f.", TOK_TGT,
                  "Die Stra\xc3\x9f" "e ist gro\xc3\x9f .");
    expect_tokens("Ist das ein Beispiel?", TOK_TGT, "Ist das ein Beispiel ?");
    /* "Ma" + U+0308 COMBINING DIAERESIS + "dchen": the same bytes as precomposed ä. */
    expect_tokens("Ma\xcc\x88" "dchen", TOK_TGT, "M\xc3\xa4" "dchen");
    expect_tokens("Ma\xcc\x88" "dchen", TOK_SRC, "m\xc3\xa4" "dchen");
    /* „Hallo“: German quotes are punctuation tokens. */
    expect_tokens("\xe2\x80\x9eHallo\xe2\x80\x9c", TOK_TGT, "\xe2\x80\x9e Hallo \xe2\x80\x9c");
}

/* Source case-folding makes "This" and "this" one token; the target side keeps them apart. */
static void test_tokenizer_case_folding_by_side(void **state)
{
    (void)state;
    expect_tokens("Das", TOK_TGT, "Das");
    expect_tokens("Das", TOK_SRC, "das");
    expect_tokens("This", TOK_SRC, "this");
}

/* Every class of invalid UTF-8 is refused with its byte offset and a name for the fault. */
static void test_tokenizer_invalid_utf8_classes(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        size_t offset;
        const char *what;
    } CASES[] = {
        {"ab\xc0\xaf", 4, 2, "overlong"},               /* 2-byte overlong '/' */
        {"\xc1\xbf", 2, 0, "overlong"},                 /* 0xC1 lead */
        {"x\xe0\x80\xaf", 4, 1, "overlong"},            /* 3-byte overlong */
        {"\xf0\x80\x80\xaf", 4, 0, "overlong"},         /* 4-byte overlong */
        {"ok \xed\xa0\x80", 6, 3, "surrogate"},         /* U+D800 */
        {"\xed\xbf\xbf", 3, 0, "surrogate"},            /* U+DFFF */
        {"\xf4\x90\x80\x80", 4, 0, "above U+10FFFF"},   /* U+110000 */
        {"a\xf5\x80\x80\x80", 5, 1, "never occurs"},    /* 0xF5 */
        {"\xff", 1, 0, "never occurs"},                 /* 0xFF */
        {"\xfe", 1, 0, "never occurs"},                 /* 0xFE */
        {"a\x80" "b", 3, 1, "continuation"},            /* stray continuation byte */
        {"abc\xe2\x82", 5, 3, "truncated"},             /* € cut at the end */
        {"\xc3" "A", 2, 0, "truncated"},                /* lead byte then ASCII */
        {"\xf0\x9f\x98", 3, 0, "truncated"},            /* 4-byte sequence cut */
        {"ab\0cd", 5, 2, "NUL"},                        /* NUL inside the text */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        TokenList l = {.n = 99};
        TokError e;
        int rc = tokenize(&l, CASES[i].bytes, CASES[i].len, TOK_TGT, &e);
        if (rc != TT_EINPUT || e.offset != CASES[i].offset || !strstr(e.message, CASES[i].what)) {
            print_error("case %zu: rc %d offset %zu message '%s'; want TT_EINPUT at %zu with "
                        "'%s'\n", i, rc, e.offset, rc == TT_EINPUT ? e.message : "",
                        CASES[i].offset, CASES[i].what);
            fail();
        }
        assert_int_equal(l.n, 0);
        assert_null(l.tok);
        /* The same verdict from the validator alone. */
        assert_int_equal(tokenizer_validate(CASES[i].bytes, CASES[i].len, NULL), TT_EINPUT);
    }
}

/* Valid multi-byte text of every length passes validation. */
static void test_tokenizer_valid_utf8_passes(void **state)
{
    (void)state;
    const char *s = "a\xc3\xa4\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"; /* a ä € 😀 U+10FFFF */
    assert_int_equal(tokenizer_validate(s, strlen(s), NULL), TT_OK);
    TokError e;
    assert_int_equal(tokenizer_validate("", 0, &e), TT_OK);
}

/* A very long line of many words tokenizes completely. */
static void test_tokenizer_long_input(void **state)
{
    (void)state;
    const int words = 10000;
    char *text = malloc((size_t)words * 5 + 1);
    assert_non_null(text);
    for (int i = 0; i < words; i++)
        memcpy(text + i * 5, i % 2 ? "Haus " : "das, ", 5);
    text[words * 5] = '\0';
    TokenList l;
    assert_int_equal(tokenize(&l, text, strlen(text), TOK_TGT, NULL), TT_OK);
    assert_int_equal(l.n, words + words / 2); /* each "das," is two tokens */
    assert_string_equal(l.tok[0], "das");
    assert_string_equal(l.tok[1], ",");
    assert_string_equal(l.tok[2], "Haus");
    tokenlist_free(&l);
    tokenlist_free(&l); /* twice is safe */
    free(text);
}

static void expect_detok(const char *spaced, const char *want)
{
    TokenList l;
    assert_int_equal(tokenize(&l, spaced, strlen(spaced), TOK_TGT, NULL), TT_OK);
    char *got = NULL;
    assert_int_equal(detokenize(&got, l.tok, l.n), TT_OK);
    const int same = strcmp(got, want) == 0;
    if (!same)
        print_error("detokenize(%s): got [%s], want [%s]\n", spaced, got, want);
    free(got);
    tokenlist_free(&l);
    if (!same)
        fail();
}

/* German output reads naturally: no space before closing punctuation or after opening. */
static void test_tokenizer_detokenize_table(void **state)
{
    (void)state;
    expect_detok("Das ist ein Beispiel .", "Das ist ein Beispiel.");
    expect_detok("Ist das ein Beispiel ?", "Ist das ein Beispiel?");
    expect_detok("Ja , gut !", "Ja, gut!");
    expect_detok("er ( nicht ) sie", "er (nicht) sie");
    expect_detok("\xe2\x80\x9e Hallo \xe2\x80\x9c sagt er", "\xe2\x80\x9eHallo\xe2\x80\x9c sagt er");
    expect_detok("a - b", "a - b");
    expect_detok("", "");
    char *s = (char *)"x";
    assert_int_equal(detokenize(&s, NULL, 0), TT_OK);
    assert_string_equal(s, "");
    free(s);
    assert_int_equal(detokenize(&s, NULL, 2), TT_EINVAL);
    assert_null(s);
}

/* Every German sentence of the corpus survives tokenize → detokenize unchanged. */
static void test_tokenizer_round_trip_corpus(void **state)
{
    (void)state;
    static const char *const FILES[] = {"data/train.tsv", "data/valid.tsv", "data/test.tsv"};
    long checked = 0;
    for (size_t f = 0; f < 3; f++) {
        TsvReader r;
        char err[512];
        if (tsv_open(&r, FILES[f], err, sizeof err) != TT_OK) {
            print_error("%s (run 'make corpus' to write the corpus)\n", err);
            fail();
        }
        r.labels = 1; /* a test file may name each sentence's construction */
        TsvPair p;
        int rc;
        while ((rc = tsv_next(&r, &p, err, sizeof err)) == TT_OK) {
            TokenList l;
            char *back = NULL;
            assert_int_equal(tokenize(&l, p.tgt, p.tgt_len, TOK_TGT, NULL), TT_OK);
            assert_int_equal(detokenize(&back, l.tok, l.n), TT_OK);
            if (strcmp(back, p.tgt) != 0) {
                print_error("%s:%ld: [%s] came back as [%s]\n", FILES[f], p.line_no, p.tgt, back);
                fail();
            }
            free(back);
            tokenlist_free(&l);
            checked++;
        }
        if (rc != TSV_END) {
            print_error("%s\n", err);
            fail();
        }
        tsv_close(&r);
    }
    assert_true(checked >= 32000);
}

/* A token is punctuation when its first character is (Unicode P* categories). */
static void test_tokenizer_is_punctuation(void **state)
{
    (void)state;
    assert_true(tokenizer_is_punctuation("."));
    assert_true(tokenizer_is_punctuation(","));
    assert_true(tokenizer_is_punctuation("\xE2\x80\x9E")); /* „ */
    assert_true(tokenizer_is_punctuation("!"));
    assert_false(tokenizer_is_punctuation("dog"));
    assert_false(tokenizer_is_punctuation("\xC3\xA4")); /* ä */
    assert_false(tokenizer_is_punctuation(""));
    assert_false(tokenizer_is_punctuation(NULL));
    assert_false(tokenizer_is_punctuation("\xFF"));
}

/* The work per text is bounded before normalising: TOKENIZER_MAX_BYTES
 * bytes pass and one more is refused; TOKENIZER_MAX_MARKS combining marks in a row pass
 * and one more is refused, naming where the run starts. */
static void test_tokenizer_bounds_before_normalising(void **state)
{
    (void)state;
    char *text = malloc(TOKENIZER_MAX_BYTES + 1);
    assert_non_null(text);
    memset(text, 'a', TOKENIZER_MAX_BYTES + 1);
    TokenList list;
    TokError te;
    assert_int_equal(tokenize(&list, text, TOKENIZER_MAX_BYTES, TOK_TGT, &te), TT_OK);
    assert_int_equal(list.n, 1);
    tokenlist_free(&list);
    assert_int_equal(tokenize(&list, text, TOKENIZER_MAX_BYTES + 1, TOK_TGT, &te), TT_EINPUT);
    assert_string_equal(te.message, "more than the 65536 bytes a line may have");
    /* "ab" then marks: U+0301 (2 bytes each) from byte 2. */
    size_t n = 2;
    text[0] = 'a', text[1] = 'b';
    for (int k = 0; k < TOKENIZER_MAX_MARKS; k++, n += 2) {
        text[n] = '\xcc';
        text[n + 1] = '\x81';
    }
    assert_int_equal(tokenize(&list, text, n, TOK_TGT, &te), TT_OK);
    tokenlist_free(&list);
    text[n] = '\xcc';
    text[n + 1] = '\x96';
    assert_int_equal(tokenize(&list, text, n + 2, TOK_SRC, &te), TT_EINPUT);
    assert_string_equal(te.message, "more than 30 combining marks in a row from byte 2");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokenizer_is_punctuation),
        cmocka_unit_test(test_tokenizer_english_table),
        cmocka_unit_test(test_tokenizer_contractions_expand),
        cmocka_unit_test(test_tokenizer_contraction_same_as_expansion),
        cmocka_unit_test(test_tokenizer_contractions_by_side),
        cmocka_unit_test(test_tokenizer_german_table),
        cmocka_unit_test(test_tokenizer_case_folding_by_side),
        cmocka_unit_test(test_tokenizer_invalid_utf8_classes),
        cmocka_unit_test(test_tokenizer_valid_utf8_passes),
        cmocka_unit_test(test_tokenizer_long_input),
        cmocka_unit_test(test_tokenizer_detokenize_table),
        cmocka_unit_test(test_tokenizer_round_trip_corpus),
        cmocka_unit_test(test_tokenizer_bounds_before_normalising),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
