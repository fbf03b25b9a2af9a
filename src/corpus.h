/*
 * corpus.h — the deterministic English→German corpus that docs/corpus.md specifies.
 *
 * The grammar is four sentence types over a fixed lexicon. Each type has a finite set of
 * *cores* (the English sentence without its final punctuation, with the German that
 * translates it); corpus_core_count() says exactly how many, and corpus_core_at() names
 * every one of them by an index, so a test can enumerate the language. corpus_sample()
 * draws one pair of a type from the project's MT19937 generator, and corpus_write()
 * draws a whole corpus with distinct cores into train.tsv, valid.tsv and test.tsv.
 *
 * English text is ASCII; German text is UTF-8 in NFC (ä ö ü ß precomposed). Nothing here
 * allocates per sentence: a CorpusPair holds its text in fixed buffers.
 */
#ifndef TOYTRANS_CORPUS_H
#define TOYTRANS_CORPUS_H

#include "rng.h"

#include <stddef.h>
#include <stdint.h>

#define CORPUS_DEFAULT_SEED 1729u    /* `toytrans corpus` without --seed */
#define CORPUS_DEFAULT_TRAIN 32000   /* pairs in train.tsv, seed pair included */
#define CORPUS_DEFAULT_VALID 1000    /* pairs in valid.tsv */
#define CORPUS_DEFAULT_TEST 1000     /* pairs in test.tsv */
#define CORPUS_MAX_PAIRS 1000000     /* n_train + n_valid + n_test at most */
#define CORPUS_TEXT_MAX 160          /* bytes of one side with its NUL; the longest needs 75 */

/* The pair train.tsv always holds, exactly as written (no final punctuation). */
#define CORPUS_SEED_EN "This is an example"
#define CORPUS_SEED_DE "Das ist ein Beispiel"

typedef enum {
    CORPUS_THIS_IS,    /* This is [not] NP / These are [not] NP → Das ist / Das sind … */
    CORPUS_PREDICATE,  /* SUBJ be [not] [very] ADJ [and ADJ2] */
    CORPUS_TRANSITIVE, /* SUBJ VERB OBJ, or SUBJ do/does not VERB OBJ */
    CORPUS_QUESTION,   /* Is this NP? / Are these Ns? / Is/Are/Am SUBJ [very] ADJ? */
    CORPUS_N_TYPES
} CorpusType;

typedef struct {
    CorpusType type;
    int punctuated;           /* 1: both sides end in '.' (statements) or '?' (questions);
                                 0: neither side has final punctuation */
    char en[CORPUS_TEXT_MAX]; /* English, ASCII, NUL-terminated, first word capitalised */
    char de[CORPUS_TEXT_MAX]; /* German, UTF-8 NFC, NUL-terminated, first word capitalised */
} CorpusPair;

typedef struct {
    long pairs[CORPUS_N_TYPES]; /* pairs written per type; the seed pair is a THIS_IS */
    long draws;                 /* sentences drawn, the rejected duplicates included */
} CorpusStats;

/* A short static name for type ("this-is", "predicate", "transitive", "question"), or
 * "?" for a value outside the enum. */
const char *corpus_type_name(CorpusType type);

/* The exact number of distinct cores of type (0 for a value outside the enum). Cores of
 * different types never coincide, so the grammar's size is the sum over the types. */
uint64_t corpus_core_count(CorpusType type);

/* Fills *out with core number index of type, without final punctuation. Every index in
 * [0, corpus_core_count(type)) names a different core. Returns TT_OK, or TT_EINVAL for a
 * type outside the enum or an index out of range (then *out is untouched). */
int corpus_core_at(CorpusPair *out, CorpusType type, uint64_t index);

/* Draws one pair of type from rng: its core (always one of corpus_core_at's) and, with
 * probability 1/2, its final punctuation on both sides. type must be a valid CorpusType. */
void corpus_sample(CorpusPair *out, CorpusType type, Rng *rng);

/* Writes dir/train.tsv, dir/valid.tsv and dir/test.tsv: n_train, n_valid and n_test lines
 * "English<TAB>German<LF>" drawn from MT19937 seeded with seed. The cores are distinct
 * across all three files (compared lower-cased); the first line of train.tsv is the seed
 * pair CORPUS_SEED_EN<TAB>CORPUS_SEED_DE; every other line is a drawn pair, in the order
 * drawn. The same arguments always give byte-identical files.
 *
 * dir is created if it does not exist (its parent must). Each file is written under a
 * temporary name (NAME.tmp) in dir and renamed into place only after all three were
 * written and closed, so a failed run leaves the earlier files as they were and no
 * partial or temporary file. (Only a rename failing between two others — the directory
 * vanishing — could leave complete new and old files side by side.) Needs
 * 1 <= n_train, 0 <= n_valid, n_test, and a total of at most CORPUS_MAX_PAIRS.
 *
 * Returns TT_OK, TT_EINVAL (sizes out of range, a path too long), TT_ENOMEM or TT_EIO;
 * on failure err (if not NULL, always NUL-terminated) names the file and the reason. If
 * stats is not NULL it receives the counts of the run (zero on failure). */
int corpus_write(const char *dir, uint64_t seed, int n_train, int n_valid, int n_test,
                 CorpusStats *stats, char *err, size_t errlen);

#endif
