/*
 * corpus.h — the deterministic English→German corpus that docs/corpus.md specifies.
 *
 * The folder corpus/ holds the generated corpus (here) and the phrasebook it takes its
 * fixed expressions from. It stands on base/ only. docs/design.md lists the folders and
 * their modules.
 *
 * The words come from a lexicon file (data/lexicon.tsv: nouns, adjectives, verbs, names
 * and the tags that restrict which goes with which); the grammar — determiners,
 * pronouns, declension, word order — is this module's. A sentence is drawn as one of
 * CORPUS_N_GRAMMAR *constructions* (coordinated clauses, object pronouns, do-questions,
 * …) by corpus_sample(); corpus_write() draws a whole corpus with distinct sentences into
 * train.tsv, valid.tsv and test.tsv, the test file with each sentence's construction in a
 * third column. Given a phrasebook (phrasebook.h), corpus_write adds one more
 * construction, CORPUS_PHRASE: the phrasebook's fixed expressions in the forms a user
 * types, repeated in train.tsv so that they are learned by heart.
 *
 * English text is ASCII; German text is UTF-8 in NFC (ä ö ü ß precomposed).
 */
#ifndef TOYTRANS_CORPUS_H
#define TOYTRANS_CORPUS_H

#include "base/rng.h"
#include "corpus/phrasebook.h"

#include <stddef.h>
#include <stdint.h>

#define CORPUS_DEFAULT_LEXICON "data/lexicon.tsv" /* `toytrans corpus` without --lexicon */
#define CORPUS_DEFAULT_SEED 1729u    /* `toytrans corpus` without --seed */
#define CORPUS_DEFAULT_TRAIN 180000  /* pairs in train.tsv, seed pair included */
#define CORPUS_DEFAULT_VALID 1000    /* pairs in valid.tsv */
#define CORPUS_DEFAULT_TEST 1855     /* pairs in test.tsv: 100 of each construction of the
                                        grammar, and the 55 phrases */
#define CORPUS_MAX_PAIRS 1000000     /* n_train + n_valid + n_test at most */
#define CORPUS_MAX_WORDS 30          /* English words in one sentence at most */
#define CORPUS_TEXT_MAX 400          /* bytes of one side with its NUL */

/* The pair train.tsv always holds, exactly as written (no final punctuation). */
#define CORPUS_SEED_EN "This is an example"
#define CORPUS_SEED_DE "Das ist ein Beispiel"

/* The constructions of docs/corpus.md, in its table's order. */
typedef enum {
    CORPUS_THIS_IS,
    CORPUS_PREDICATE,
    CORPUS_COORD_ADJ,
    CORPUS_NOUN_PREDICATE,
    CORPUS_TRANSITIVE,
    CORPUS_OBJ_PRONOUN,
    CORPUS_POSSESSIVE,
    CORPUS_NO,
    CORPUS_BARE_PLURAL,
    CORPUS_NAMES,
    CORPUS_COORD_NP,
    CORPUS_COORD_VERB,
    CORPUS_COORD_CLAUSE,
    CORPUS_DATIVE,
    CORPUS_BE_QUESTION,
    CORPUS_DO_QUESTION,
    CORPUS_IMPERATIVE,
    CORPUS_CONTRACTION,
    CORPUS_N_GRAMMAR, /* the constructions above are drawn from the lexicon's grammar */
    CORPUS_PHRASE = CORPUS_N_GRAMMAR, /* a phrasebook's fixed expression (only with one) */
    CORPUS_N_TYPES
} CorpusType;

/* A loaded lexicon; opaque. */
typedef struct Lexicon Lexicon;

typedef struct {
    CorpusType type;
    char punct;               /* the final punctuation of both sides: '.', '?', '!' or 0 */
    char en[CORPUS_TEXT_MAX]; /* English, ASCII, NUL-terminated, first word capitalised */
    char de[CORPUS_TEXT_MAX]; /* German, UTF-8 NFC, NUL-terminated, first word capitalised */
} CorpusPair;

typedef struct {
    long pairs[CORPUS_N_TYPES]; /* pairs written per construction; the seed pair is THIS_IS */
                                /* (pairs[CORPUS_PHRASE]: phrase lines, 0 without a book) */
    long draws;                 /* sentences drawn, the rejected duplicates included */
} CorpusStats;

/* Reads the lexicon file at path (format: the file's header and docs/corpus.md). On
 * success *out owns everything (free with corpus_lexicon_free). Returns TT_OK; TT_EIO when
 * the file cannot be read; TT_EINPUT for a malformed entry — err then names the file, the
 * line and what is wrong; TT_ENOMEM. On failure *out is NULL. */
int corpus_lexicon_load(Lexicon **out, const char *path, char *err, size_t errlen);
void corpus_lexicon_free(Lexicon *lex); /* NULL is fine */

/* A short static name for type ("this-is", "coord-clause", …), or "?" outside the enum. */
const char *corpus_type_name(CorpusType type);

/* Draws one sentence of construction type from rng: 0 <= type < CORPUS_N_GRAMMAR (a
 * phrase is not drawn from the grammar). */
void corpus_sample(CorpusPair *out, const Lexicon *lex, CorpusType type, Rng *rng);

/* Writes dir/train.tsv, dir/valid.tsv and dir/test.tsv: n_train, n_valid and n_test
 * pairs drawn from MT19937 seeded with seed. The test file is drawn first, then the
 * validation file, each cycling through the constructions in enum order; then the
 * training file, whose constructions are drawn with fixed weights and whose sentences
 * are balanced over the German word forms (a sentence with only frequent forms is mostly
 * passed over; docs/corpus.md). Cores are distinct
 * across all three files; the first line of train.tsv is the seed pair. Lines are
 * "English<TAB>German<LF>"; test.tsv lines have a third field, the construction's name.
 * The same arguments always give byte-identical files.
 *
 * book: NULL, or a phrasebook whose phrases are written too (docs/corpus.md, "Phrases"):
 * every form of each phrase (with and without its final marks, contractions written out)
 * is in train.tsv, where the forms take turns and repeat, and one of them also in
 * test.tsv and (for phrases of three forms or more) another in valid.tsv; the phrase
 * construction takes its turn in the cycles while phrases remain, and a weight in the
 * training draw. Phrase lines are the one exception to distinct cores: a phrase's forms
 * share it. No sentence of the grammar has a phrase's core. Without a phrasebook the
 * files are exactly those of the 18 grammar constructions alone.
 *
 * dir is created if it does not exist (its parent must). Each file is written under a
 * temporary name (NAME.tmp) in dir and renamed into place only after all three were
 * written and closed, so a failed run leaves the earlier files as they were. Needs
 * 1 <= n_train, 0 <= n_valid, n_test, and a total of at most CORPUS_MAX_PAIRS.
 *
 * Returns TT_OK, TT_EINVAL (sizes out of range, a path too long, a grammar too small for
 * the sizes, a phrase that is the seed pair), TT_ENOMEM or TT_EIO; on failure err names
 * the file and the reason. If stats is not NULL it receives the counts of the run (zero
 * on failure). */
int corpus_write(const char *dir, const Lexicon *lex, const Phrasebook *book, uint64_t seed,
                 int n_train, int n_valid, int n_test, CorpusStats *stats, char *err,
                 size_t errlen);

#endif
