/*
 * phrasebook.h — the everyday phrasebook: fixed expressions with one German rendering
 * each, the input of the corpus's phrase construction (docs/corpus.md, "Phrases").
 *
 * A phrasebook file (data/phrasebook.tsv) holds lines "phrase<TAB>ENGLISH<TAB>GERMAN"
 * without final punctuation; the corpus generator adds the marks and the other forms a
 * user types. Unlike the lexicon's words, a phrase is not taken apart: "Good morning" is
 * "Guten Morgen" as a whole, and the corpus repeats it so that a model learns it by heart.
 *
 * Loading is all or nothing: a file with a bad line gives no phrasebook, and the message
 * names every bad line (file, line and byte offset), so a mistake never hides the next
 * one and no line is dropped unnoticed.
 */
#ifndef TOYTRANS_PHRASEBOOK_H
#define TOYTRANS_PHRASEBOOK_H

#include <stddef.h>

#define PHRASEBOOK_MAX_PHRASES 4096 /* phrases in one file at most */
#define PHRASEBOOK_TEXT_MAX 160     /* bytes of one side of a phrase at most, NUL excluded */
#define PHRASEBOOK_MAX_WORDS 12     /* English words of a phrase at most */
#define PHRASEBOOK_MAX_REPORTED 20  /* bad lines named one by one; the rest are counted */

typedef struct {
    const char *en; /* English as written: ASCII letters, spaces, commas, apostrophes;
                       no final punctuation; never empty */
    const char *de; /* German: UTF-8 in NFC, no control character, no final punctuation;
                       never empty */
    int question;   /* 1: the English asks (phrasebook_is_question): "?" or no mark;
                       0: ".", "!" or no mark */
    int line;       /* its line in the file, 1-based */
} Phrase;

/* A loaded phrasebook; opaque. */
typedef struct Phrasebook Phrasebook;

/* Reads the phrasebook file at path. On success *out owns everything (free with
 * phrasebook_free). Returns TT_OK; TT_EIO when the file cannot be read; TT_EINPUT when a
 * line is malformed — err then holds one message per bad line, "PATH:LINE: byte OFFSET:
 * what is wrong", separated by '\n', the first PHRASEBOOK_MAX_REPORTED of them and then
 * how many more (OFFSET counts the file's bytes from 0 and points at the fault) — or
 * when the file holds no phrase; TT_ENOMEM. On failure *out is NULL.
 * A line is wrong when it has other than 3 TAB-separated fields, its first field is not
 * "phrase", a side is empty, longer than PHRASEBOOK_TEXT_MAX bytes or ends in a
 * punctuation mark, has a space at either end or two in a row, the English has more than
 * PHRASEBOOK_MAX_WORDS words or a character other than ASCII letters, spaces, commas
 * and apostrophes, or does not start with a letter, the German has a control character
 * or is not NFC, the line has a CR, a NUL or invalid UTF-8, or its English is an earlier
 * line's again (compared by core, phrasebook_core: "I'm sorry" and "i am sorry." are one). */
int phrasebook_load(Phrasebook **out, const char *path, char *err, size_t errlen);
void phrasebook_free(Phrasebook *book); /* NULL is fine */

/* The core of an English sentence, the key of sentence-level distinctness: lower-cased,
 * contractions expanded, commas and the final punctuation left out, words separated by
 * one space. Writes at most n bytes with the NUL (truncating); returns the core's
 * length, the NUL left out. */
size_t phrasebook_core(char *out, size_t n, const char *en);

/* The number of phrases, at least 1 in a loaded book. */
int phrasebook_count(const Phrasebook *book);

/* Phrase i, 0 <= i < phrasebook_count(book), in the file's order; owned by book. */
const Phrase *phrasebook_phrase(const Phrasebook *book, int i);

/* 1 when the English phrase en asks a question: its first word is a question word (how,
 * what, where, when, who, whom, whose, why, which), a form of be, do or a modal (am, are,
 * is, do, does, did, can, could, will, would, shall, should, may), or "and" (an asking
 * back: "And you"); compared without regard to case. Else 0. */
int phrasebook_is_question(const char *en);

#endif
