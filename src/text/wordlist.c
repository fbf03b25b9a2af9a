/*
 * wordlist.c — the lookup in the compiled list of common English words.
 *
 * The entries themselves are generated from data/common-words.txt by the Makefile
 * (wordlist_count and wordlist_word live in that generated file, so this one stays the
 * same when the list changes). A word is first spelled as the list spells it — ’ as '
 * — into a buffer on the stack, then found by bisection: 16 comparisons for 64,000
 * words, no allocation.
 */
#include "text/wordlist.h"

#include <string.h>

/* Whether word is an entry: bisection over the list's bytewise order. */
static int wordlist_contains(const char *word)
{
    size_t lo = 0, hi = wordlist_count(); /* the entry, if any, is in [lo, hi) */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(word, wordlist_word(mid));
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

int wordlist_is_common(const char *folded_word)
{
    if (!folded_word)
        return 0;
    /* The word with ’ (E2 80 99) as ', which is never longer. */
    char word[WORDLIST_MAX_BYTES];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)folded_word; *p; n++) {
        if (n + 1 >= sizeof word)
            return 0; /* longer than every entry */
        if (p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0x99) {
            word[n] = '\'';
            p += 3;
        } else {
            word[n] = (char)*p++;
        }
    }
    word[n] = '\0';
    if (n == 0)
        return 0;
    if (wordlist_contains(word))
        return 1;
    /* A possessive: the list keeps "dog", not "dog's". */
    if (n > 2 && word[n - 2] == '\'' && word[n - 1] == 's') {
        word[n - 2] = '\0';
        return wordlist_contains(word);
    }
    return 0;
}
