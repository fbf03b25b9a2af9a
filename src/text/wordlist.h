/*
 * wordlist.h — the common English words, which a capitalised unknown word is not taken
 * for a name when it is one of (docs/honesty.md, "Words not in the vocabulary").
 *
 * The words are data/common-words.txt: the lower-case entries of SCOWL's American
 * English list as Debian's wamerican ships it, without possessives, NFC, sorted bytewise
 * (data/SOURCES.md). An installed toytrans has only its binary and its model, so the
 * list is compiled into the library: the Makefile turns the data file into a C source
 * in the build directory (build/FLAVOUR/gen/common_words.c), one sorted array of string
 * literals behind wordlist_count and wordlist_word, and wordlist.c searches it by
 * bisection. Nothing is allocated and nothing changes at run time, so every function
 * here may be called from any thread.
 */
#ifndef TOYTRANS_WORDLIST_H
#define TOYTRANS_WORDLIST_H

#include <stddef.h>

/* Every entry is shorter than this many bytes (tests/test_wordlist.c checks); a word of
 * this length or longer is never common. */
#define WORDLIST_MAX_BYTES 64

/* Whether folded_word (NUL-terminated UTF-8, NFC and case-folded as the source
 * tokenizer writes a token: "where", not "Where") is a common English word: an entry of
 * the list, read with ’ (U+2019) as ' ("o’clock") and, when it is not itself an entry,
 * with a final 's or ’s taken off ("dog's", "dog’s" → "dog"). NULL and "" are not. */
int wordlist_is_common(const char *folded_word);

/* The number of entries. */
size_t wordlist_count(void);

/* Entry i (0 <= i < wordlist_count()), in bytewise (strcmp) order, in static storage;
 * NULL when i is out of range. */
const char *wordlist_word(size_t i);

#endif
