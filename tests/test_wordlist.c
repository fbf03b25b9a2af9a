/*
 * test_wordlist.c — the compiled list of common English words (data/common-words.txt):
 * its order and spelling, which the bisection relies on, and the lookup — first and
 * last entries, absent words, possessives, ’ for ', non-ASCII words.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "text/wordlist.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* The list is strictly increasing in bytewise order, so no duplicates, and every entry
 * is shorter than WORDLIST_MAX_BYTES, not empty, and not a possessive. */
static void test_wordlist_sorted_short_no_possessives(void **state)
{
    (void)state;
    const size_t n = wordlist_count();
    assert_true(n > 50000);
    for (size_t i = 0; i < n; i++) {
        const char *w = wordlist_word(i);
        assert_non_null(w);
        const size_t len = strlen(w);
        if (len == 0 || len >= WORDLIST_MAX_BYTES || (len > 2 && strcmp(w + len - 2, "'s") == 0))
            print_error("entry %zu '%s': empty, too long or a possessive\n", i, w);
        assert_true(len > 0 && len < WORDLIST_MAX_BYTES);
        assert_false(len > 2 && strcmp(w + len - 2, "'s") == 0);
        if (i > 0 && strcmp(wordlist_word(i - 1), w) >= 0)
            print_error("entries %zu and %zu out of order: '%s', '%s'\n", i - 1, i,
                        wordlist_word(i - 1), w);
        if (i > 0)
            assert_true(strcmp(wordlist_word(i - 1), w) < 0);
    }
    assert_null(wordlist_word(n));
    assert_null(wordlist_word((size_t)-1));
}

/* Every entry is spelled as the source tokenizer writes a token: NFC and case-folded,
 * so that a token compares equal to its entry byte for byte. */
static void test_wordlist_entries_are_folded_nfc(void **state)
{
    (void)state;
    for (size_t i = 0; i < wordlist_count(); i++) {
        const char *w = wordlist_word(i);
        utf8proc_uint8_t *folded = NULL;
        const utf8proc_ssize_t len = utf8proc_map((const utf8proc_uint8_t *)w, 0, &folded,
                                                  UTF8PROC_NULLTERM | UTF8PROC_STABLE |
                                                      UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD);
        if (len < 0 || strcmp((const char *)folded, w) != 0)
            print_error("entry %zu '%s' is not NFC and case-folded\n", i, w);
        assert_true(len >= 0);
        assert_string_equal((const char *)folded, w);
        free(folded);
    }
}

/* Every entry is found, the first and the last included; the list begins with "a". */
static void test_wordlist_finds_every_entry(void **state)
{
    (void)state;
    const size_t n = wordlist_count();
    assert_string_equal(wordlist_word(0), "a");
    assert_true(wordlist_is_common(wordlist_word(0)));
    assert_true(wordlist_is_common(wordlist_word(n - 1)));
    for (size_t i = 0; i < n; i++) {
        if (!wordlist_is_common(wordlist_word(i)))
            print_error("entry %zu '%s' not found\n", i, wordlist_word(i));
        assert_true(wordlist_is_common(wordlist_word(i)));
    }
}

/* The words a sentence begins with are common; names that are no English word are not,
 * and a name that is also a lower-case word (rose, jack) is common. */
static void test_wordlist_common_words_and_names(void **state)
{
    (void)state;
    static const char *const COMMON[] = {"thanks", "where", "two",  "could", "what",
                                         "hello",  "this",  "girls", "rose", "jack"};
    static const char *const NOT[] = {"anna", "zoe", "mcdonald", "greta", "zorblax", "nasa"};
    for (size_t i = 0; i < sizeof COMMON / sizeof COMMON[0]; i++) {
        if (!wordlist_is_common(COMMON[i]))
            print_error("'%s' should be common\n", COMMON[i]);
        assert_true(wordlist_is_common(COMMON[i]));
    }
    for (size_t i = 0; i < sizeof NOT / sizeof NOT[0]; i++) {
        if (wordlist_is_common(NOT[i]))
            print_error("'%s' should not be common\n", NOT[i]);
        assert_false(wordlist_is_common(NOT[i]));
    }
}

/* Absent: NULL, "", words before the first and after the last entry, the case as typed
 * (the lookup takes folded words), a prefix or an extension of an entry, and a word
 * longer than any entry. */
static void test_wordlist_absent_words(void **state)
{
    (void)state;
    assert_false(wordlist_is_common(NULL));
    assert_false(wordlist_is_common(""));
    assert_false(wordlist_is_common("'"));
    assert_false(wordlist_is_common("0"));
    assert_false(wordlist_is_common("\xef\xbf\xbd")); /* U+FFFD, after every entry */
    assert_false(wordlist_is_common("Where"));
    assert_false(wordlist_is_common("aardvar"));
    assert_false(wordlist_is_common("aardvarkss"));
    char long_word[2 * WORDLIST_MAX_BYTES];
    memset(long_word, 'a', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    assert_false(wordlist_is_common(long_word));
    long_word[WORDLIST_MAX_BYTES - 1] = '\0'; /* the longest a lookup reads */
    assert_false(wordlist_is_common(long_word));
    assert_false(wordlist_is_common("\xe2")); /* a cut ’: read up to the NUL, no further */
    assert_false(wordlist_is_common("\xe2\x80"));
}

/* A possessive of a common word is common, with ' or ’; of an uncommon word, or "'s"
 * alone, it is not. An inner ’ is read as ' ("o’clock", "can’t"). */
static void test_wordlist_possessives_and_apostrophes(void **state)
{
    (void)state;
    assert_true(wordlist_is_common("dog's"));
    assert_true(wordlist_is_common("dog\xe2\x80\x99s"));
    assert_true(wordlist_is_common("thanks's"));
    assert_false(wordlist_is_common("zoe's"));
    assert_false(wordlist_is_common("zoe\xe2\x80\x99s"));
    assert_false(wordlist_is_common("'s"));
    assert_false(wordlist_is_common("\xe2\x80\x99s"));
    assert_false(wordlist_is_common("dog'"));
    assert_true(wordlist_is_common("o'clock"));
    assert_true(wordlist_is_common("o\xe2\x80\x99" "clock"));
    assert_true(wordlist_is_common("can\xe2\x80\x99t"));
    assert_true(wordlist_is_common("o'clock's"));
}

/* Non-ASCII entries are found in NFC; a word that is not in the list is not, whatever
 * its letters; the list's proper names ("Élysée") are not entries. */
static void test_wordlist_non_ascii(void **state)
{
    (void)state;
    assert_true(wordlist_is_common("caf\xc3\xa9"));            /* café */
    assert_true(wordlist_is_common("\xc3\xa9tude"));           /* étude */
    assert_true(wordlist_is_common("\xc3\xa9tude's"));         /* étude's */
    assert_false(wordlist_is_common("cafe\xcc\x81"));          /* café, decomposed */
    assert_false(wordlist_is_common("\xc3\xa9lys\xc3\xa9" "e")); /* élysée */
    assert_false(wordlist_is_common("m\xc3\xa4" "dchen"));     /* mädchen */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wordlist_sorted_short_no_possessives),
        cmocka_unit_test(test_wordlist_entries_are_folded_nfc),
        cmocka_unit_test(test_wordlist_finds_every_entry),
        cmocka_unit_test(test_wordlist_common_words_and_names),
        cmocka_unit_test(test_wordlist_absent_words),
        cmocka_unit_test(test_wordlist_possessives_and_apostrophes),
        cmocka_unit_test(test_wordlist_non_ascii),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
