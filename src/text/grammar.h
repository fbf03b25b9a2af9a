/*
 * grammar.h — the English side of the corpus grammar (docs/corpus.md): its word tables,
 * its closed word classes, and a recogniser and parser of its sentences.
 *
 * What it is. docs/corpus.md specifies the language of the training corpus; src/corpus/corpus.c
 * generates it. This module re-derives the English of that specification on its own: a
 * copy of the lexicon's words (tables written from data/lexicon.tsv, with their German
 * forms, so that a checker can build the German too), the closed classes (pronouns,
 * determiners, be, do, not, very, and, with, in) and a recursive-descent parser that
 * turns a token sentence into its clauses and noun phrases, or says where and why it
 * leaves the grammar.
 *
 * Why independent of the generator. It shares no code and no table with src/corpus/corpus.c
 * and does not read data/lexicon.tsv: tests/test_grammar.c checks every line of the
 * generated corpus with it, and a checker built on the generator's own tables would
 * accept the generator's mistakes. The tables are a second copy that a test holds to
 * data/lexicon.tsv entry for entry (test_grammar_lexicon_matches_tables), and
 * grammar_lexicon_fnv1a64 is the checksum of the lexicon file they were written from.
 *
 * What the translator uses it for. A model knows the sentences it was trained on; on
 * English outside the corpus grammar ("Where is the cat?", "This is a not very old
 * car.") it still answers, but with no ground to stand on. grammar_check tells the
 * translator whether a sentence is one of the grammar's and, when not, which words leave
 * it and why ("not inside a noun phrase"), so that it can warn the user.
 *
 * Token space. The recogniser reads the tokens of src/text/tokenizer.h's TOK_SRC: case-folded,
 * NFC, contractions expanded ("Don't" → "do" "not"), every punctuation mark a token of
 * its own. So it is lenient on exactly the variants the tokenizer normalises — case,
 * "don't" against "do not", ’ against ', spacing — since the model sees those as the
 * same tokens. The capitalisation and spelling rules of the corpus as written (names
 * capitalised, "I", "n't" before a subject) are checked by tests/test_grammar.c on top.
 * It accepts what the corpus has: commas only before an "and" that joins two clauses,
 * at most one final ".", "?" or "!" as the sentence's mood allows (statements "." or
 * none, questions "?" or none, commands ".", "!" or none), at most 30 words.
 *
 * Out of scope, as in the tests: the lexicon's selection restrictions (which adjective
 * describes which noun, which subject and object a verb takes, what can be in what).
 * They are the generator's plausibility choices and a wrong one still has one correct
 * German; "the door is young" is parsed. The sex of a predicate noun is in scope, since
 * it decides the German: "Anna is a teacher" is "Anna ist eine Lehrerin" (the noun's
 * female form, GrammarNp.female), "Anna is a boy" is refused, and so is "I am a teacher"
 * (the grammar cannot tell whether "I" is a man or a woman): the corpus never has them.
 *
 * Every function is reentrant: the tables are constant and all state lives in the
 * caller's structs, so threads may call them at once.
 */
#ifndef TOYTRANS_GRAMMAR_H
#define TOYTRANS_GRAMMAR_H

#include <stdint.h>

/* ---------------------------------------------------------------------------------------
 * Word tables: the words of data/lexicon.tsv, English in token space (lower case; names
 * as the lexicon writes them, matched without regard to case) beside their German.
 * ------------------------------------------------------------------------------------- */

enum {
    GRAMMAR_N_NOUNS = 301,
    GRAMMAR_N_ADJECTIVES = 94,
    GRAMMAR_N_VERBS = 87,
    GRAMMAR_N_NAMES = 32,
    GRAMMAR_N_PRONOUNS = 7,
    GRAMMAR_MAX_WORDS = 30,   /* words of an English sentence as written (docs/corpus.md) */
    GRAMMAR_MAX_CLAUSES = 3,  /* clauses of one statement */
    GRAMMAR_REASON_LEN = 160, /* bytes of GrammarVerdict.reason, NUL included */
};

/* Grammatical persons, in the order of the spec's conjugation tables. */
typedef enum {
    GRAMMAR_1SG, GRAMMAR_2SG, GRAMMAR_3SG, GRAMMAR_1PL, GRAMMAR_3PL, GRAMMAR_PERSONS
} GrammarPerson;

/* The German noun's grammatical gender. */
typedef enum { GRAMMAR_MASC, GRAMMAR_FEM, GRAMMAR_NEUT } GrammarGender;

/* The natural gender of a person word (the lexicon's SEX): a noun predicate of a person
 * with a sex needs a subject of the same sex ("the teacher" is der Lehrer, a man). */
typedef enum { GRAMMAR_SEX_NONE, GRAMMAR_SEX_M, GRAMMAR_SEX_F } GrammarSex;

/* What a noun stands for: the lexicon's class tag (person, animal, thing). It decides the
 * German twice: an animal "frisst" where a person "isst" (grammar_verb_animal), and a
 * person or an animal is not "kalt" but "mir ist kalt" (grammar_adjective_is_felt). */
typedef enum { GRAMMAR_THING, GRAMMAR_PERSON, GRAMMAR_ANIMAL } GrammarClass;

typedef struct {
    const char *en_sg, *en_pl;          /* English; en_pl NULL for a mass noun */
    const char *de_sg, *de_pl, *de_dpl; /* German singular, plural, dative plural (NULL
                                           for a mass noun) */
    const char *de_obl;                 /* a weak masculine noun's accusative and dative
                                           singular (Junge → Jungen); NULL: de_sg */
    const char *fem_sg, *fem_pl;        /* a person noun's female form, the predicate of a
                                           woman (Lehrerin, Lehrerinnen); NULL: none */
    GrammarGender gender;
    GrammarSex sex;                     /* the lexicon's SEX: man m, teacher m, girl f, ... */
    int nopossessive;                   /* 1: never after my/your/his/... (lexicon tag) */
    GrammarClass cls;
} GrammarNoun;

enum { GRAMMAR_MAX_OPPOSITES = 3 }; /* the most OPPOSITES an adjective of the lexicon has */

typedef struct {
    const char *en, *de; /* the German is the undeclined (predicate) form */
    const char *stem;    /* what the endings go on where it is not de (müde → müd: die
                            müden Kinder); NULL: de */
    const char *opp[GRAMMAR_MAX_OPPOSITES]; /* adjectives never coordinated with this one,
                                               or NULL */
} GrammarAdjective;

typedef struct {
    const char *en, *en_3sg;
    const char *de[GRAMMAR_PERSONS]; /* ich, du, er/sie/es, wir, sie */
    const char *imperative;          /* to du; NULL when the verb has none */
} GrammarVerb;

typedef struct {
    const char *name; /* as the lexicon writes it: "Anna" */
    GrammarSex sex;   /* never GRAMMAR_SEX_NONE */
} GrammarName;

typedef struct {
    const char *subj, *obj, *with; /* English; with NULL where there is none ("it") */
    const char *nom, *acc, *dat;   /* German; dat NULL likewise */
    GrammarPerson person;
    GrammarSex sex;                /* he m, she f; the others none (docs/corpus.md) */
} GrammarPronoun;

extern const GrammarNoun GRAMMAR_NOUNS[GRAMMAR_N_NOUNS];
extern const GrammarAdjective GRAMMAR_ADJECTIVES[GRAMMAR_N_ADJECTIVES];
extern const GrammarVerb GRAMMAR_VERBS[GRAMMAR_N_VERBS];
extern const GrammarName GRAMMAR_NAMES[GRAMMAR_N_NAMES];        /* Anna f, Bob m, ... */
extern const GrammarPronoun GRAMMAR_PRONOUNS[GRAMMAR_N_PRONOUNS]; /* i, you, he, ... */
extern const char *const GRAMMAR_BE[GRAMMAR_PERSONS];           /* am, are, is, are, are */

/* The German 3rd person singular (plural: 1) of verb when every subject is an animal
 * or "it" ("Die Katze frisst", "Es frisst"), where it differs from a person's (isst);
 * NULL when the verb has no such forms (the lexicon's ANIMAL-ER, ANIMAL-SIE). */
const char *grammar_verb_animal(int verb, int plural);

/* 1 when adjective adj is how a person or an animal feels (hot, cold, warm, cool: the
 * lexicon's tag temp): German says it with the dative, "mir ist kalt", not "ich bin
 * kalt" (which is about a cold heart), so the grammar has it as the predicate of things
 * only ("The soup is cold", "It is cold", "They are cold"). */
int grammar_adjective_is_felt(int adj);

/* Determiners as the English names them (a covers an, this covers these). */
typedef enum {
    GRAMMAR_DET_NONE, GRAMMAR_DET_THE, GRAMMAR_DET_THIS, GRAMMAR_DET_A, GRAMMAR_DET_NO,
    GRAMMAR_DET_MY, GRAMMAR_DET_YOUR, GRAMMAR_DET_HIS, GRAMMAR_DET_HER, GRAMMAR_DET_OUR,
    GRAMMAR_DET_THEIR, GRAMMAR_DETS
} GrammarDet;

extern const char *const GRAMMAR_DET_EN[GRAMMAR_DETS]; /* "", "the", "this", "a", ... */

/* The index of a word in its table, or -1. token is in token space (lower case); names
 * are matched without regard to ASCII case. *plural / *third (not NULL) say which form:
 * the noun's plural, the verb's 3rd person singular. A binary search each (O(log n)):
 * the translator looks up every token of every sentence it checks. */
int grammar_find_noun(const char *token, int *plural);
int grammar_find_adjective(const char *token);
int grammar_find_verb(const char *token, int *third);
int grammar_find_name(const char *token);

/* 1 when token (lower case) is a word of the grammar: a form of the tables, a pronoun, a
 * determiner or another closed-class word; else 0. Punctuation is not a word. */
int grammar_is_word(const char *token);

/* FNV-1a 64 (src/base/fnv.h) of the data/lexicon.tsv file whose words the tables hold: a
 * model whose meta records this checksum was trained on a corpus of this grammar. */
uint64_t grammar_lexicon_fnv1a64(void);

/* ---------------------------------------------------------------------------------------
 * The phrasebook: fixed expressions (docs/corpus.md, "Phrases"), a table typed from
 * data/phrasebook.tsv (test_grammar_phrasebook_matches_table holds it to the file).
 * A model learned them only when its corpus was written with that phrasebook: its meta
 * records the file's checksum (train --phrasebook, MODEL_PHRASEBOOK_KEY), and only then
 * does grammar_check_with take GRAMMAR_WITH_PHRASEBOOK.
 * ------------------------------------------------------------------------------------- */

enum { GRAMMAR_N_PHRASES = 55 };

typedef struct {
    const char *en; /* in token space: lower case, contractions expanded, a comma a token
                       of its own ("i am fine , thanks") */
    const char *de; /* as the phrasebook writes it, without the final mark */
    int question;   /* 1: the phrase asks ("?" or no mark); 0: ".", "!" or no mark */
} GrammarPhrase;

extern const GrammarPhrase GRAMMAR_PHRASES[GRAMMAR_N_PHRASES]; /* hello, hi, ... */

/* FNV-1a 64 of the phrasebook file whose phrases GRAMMAR_PHRASES holds. */
uint64_t grammar_phrasebook_fnv1a64(void);

/* The index of the phrase whose tokens are tokens[0..n) exactly (no final mark), or -1. */
int grammar_find_phrase(const char *const *tokens, int n);

/* 1 when tokens[0..n) are a phrase alone, with no final mark or one its mood takes ("?" for
 * a phrase that asks, "." or "!" for the others): what grammar_check_with accepts as a
 * phrase. 0 otherwise, and for tokens NULL or n <= 0. */
int grammar_is_phrase(const char *const *tokens, int n);

/* ---------------------------------------------------------------------------------------
 * Checking a sentence.
 * ------------------------------------------------------------------------------------- */

typedef struct {
    int in_grammar; /* 1: a sentence of the corpus grammar (docs/corpus.md) */
    int from, to;   /* when not: the tokens [from, to) where it leaves the grammar,
                       from < to <= n (from = to = 0 only for n = 0) */
    int reached;    /* when not: how many tokens the reading read before it failed,
                       0..n; grammar_check reports the reading that read farthest */
    char reason[GRAMMAR_REASON_LEN]; /* when not: why, a short phrase for a learner,
                                        e.g. "\"not\" inside a noun phrase"; "" when in */
} GrammarVerdict;

/* tokens: n tokens as the translator's source tokenizer makes them (tokenizer.h TOK_SRC:
 * NFC, case-folded, contractions expanded, every punctuation mark a token of its own,
 * commas included; </s> not included).
 * is_name: NULL, or n flags: nonzero where the token is an unknown word the translator
 * takes as a name (a capitalised word that is not in the vocabulary and not a common
 * English word, e.g. "zoe"): it may stand wherever a name of the lexicon may. A flagged
 * token that ends in a possessive 's ("anna's") is refused as such.
 * Where an "and" can be read two ways, every reading is tried; when none parses, out
 * holds the failure of the reading that read farthest (the first such reading).
 * Returns TT_OK (status.h) and fills *out; TT_EINVAL for n < 0, out NULL, or tokens (or
 * one of them) NULL while n > 0. An empty sentence (n = 0) is not in the grammar. */
int grammar_check(const char *const *tokens, const unsigned char *is_name, int n,
                  GrammarVerdict *out);

/* What a model learned besides the grammar of the lexicon, for grammar_check_with. */
enum {
    GRAMMAR_WITH_PHRASEBOOK = 1, /* the phrases of GRAMMAR_PHRASES: the model's meta
                                    records grammar_phrasebook_fnv1a64() */
};

/* grammar_check over a larger language: with = 0 is grammar_check exactly; with
 * GRAMMAR_WITH_PHRASEBOOK a phrase of GRAMMAR_PHRASES is in too, alone, with no mark or
 * one its mood takes ("?" on a question, "." or "!" otherwise). A sentence that is
 * neither is reported as grammar_check reports it, unless it follows a phrase farther
 * than the grammar's reading went ("good mornin", "thank you very much please"): then
 * [from, to) is the first word where it leaves the nearest phrase (or the mark), and the
 * reason names that phrase. Returns as grammar_check. */
int grammar_check_with(const char *const *tokens, const unsigned char *is_name, int n,
                       unsigned with, GrammarVerdict *out);

/* ---------------------------------------------------------------------------------------
 * The parse, for checkers that go on from it (tests/test_grammar.c builds the German).
 * ------------------------------------------------------------------------------------- */

typedef enum { GRAMMAR_NP_NOUN, GRAMMAR_NP_PRONOUN, GRAMMAR_NP_NAME, GRAMMAR_NP_THIS }
    GrammarNpKind;

#define GRAMMAR_NAME_OTHER (-1) /* GrammarNp.index of a name the caller flagged */

typedef struct {
    GrammarNpKind kind;
    GrammarDet det; /* GRAMMAR_NP_NOUN: its determiner */
    int very;       /* 1: "very" before the adjective */
    int adj;        /* adjective index, or -1 */
    int noun;       /* noun index (GRAMMAR_NP_NOUN) */
    int plural;     /* 1: plural (nouns, "these", we/they) */
    int female;     /* 1: a predicate noun of a woman in its female form (She is my
                       teacher → meine Lehrerin); the noun has fem_sg */
    int index;      /* pronoun index, or name index (GRAMMAR_NAME_OTHER for a flagged
                       name) */
} GrammarNp;

typedef struct {
    GrammarNp np[2];
    int n; /* 1, or 2 when coordinated with "and" */
} GrammarNpList;

typedef enum {
    GRAMMAR_CL_TRANSITIVE, /* SUBJ VERB [and VERB] OBJ [adjunct] */
    GRAMMAR_CL_ADJ,        /* SUBJ be [not] [very] ADJ [and [not] [very] ADJ] */
    GRAMMAR_CL_NOUN,       /* SUBJ be [not] NP */
    GRAMMAR_CL_LOCATION,   /* SUBJ be [not] in NP */
} GrammarClauseType;

typedef enum {
    GRAMMAR_STATEMENT, GRAMMAR_BE_QUESTION, GRAMMAR_DO_QUESTION, GRAMMAR_IMPERATIVE
} GrammarMood;

typedef enum { GRAMMAR_ADJUNCT_NONE, GRAMMAR_ADJUNCT_WITH, GRAMMAR_ADJUNCT_IN } GrammarAdjunct;

typedef struct {
    GrammarClauseType type;
    GrammarNpList subj;       /* unused in imperatives; kind GRAMMAR_NP_THIS for "This
                                 is" / "These are" */
    GrammarPerson person;     /* the subject's person */
    int verb[2];              /* GRAMMAR_CL_TRANSITIVE: the verbs */
    int nverbs;               /* GRAMMAR_CL_TRANSITIVE: 1 or 2 */
    GrammarNpList obj;        /* the object; the predicate noun phrase; the place */
    int neg;                  /* 1: the clause is negated with "not" */
    GrammarAdjunct adjunct;   /* the "with" or "in" phrase after the object */
    GrammarNpList adjunct_np;
    int nadj;                 /* GRAMMAR_CL_ADJ: predicate adjectives, 1 or 2 */
    int adj[2], adj_very[2], adj_not[2]; /* each: its index, "very", "not" */
} GrammarClause;

typedef struct {
    GrammarMood mood;
    GrammarClause cl[GRAMMAR_MAX_CLAUSES];
    int ncl;    /* 1..GRAMMAR_MAX_CLAUSES; more than 1 only in statements */
    char punct; /* the final '.', '?', '!' or 0 */
} GrammarSentence;

/* Flags of a token for grammar_parse, or'ed. */
enum {
    GRAMMAR_TOKEN_NAME = 1,        /* a name, as grammar_check's is_name */
    GRAMMAR_TOKEN_WRITTEN_NOT = 2, /* a "not" written out, not as "n't": the corpus
                                      writes "not" before a subject only as "n't" */
};

/* Parses tokens (as grammar_check's) under one reading: at the k-th "and" that could join
 * either two noun phrases or the next clause, bit k of reading (k < 31) takes the other
 * choice than the first one tried. flags: NULL or n GRAMMAR_TOKEN_* sets. *choices (not
 * NULL) is set to the choice points the parse met, so readings 0 .. 2^choices - 1 are
 * all of them. On a parse, out->in_grammar is 1 and *s holds it; otherwise *s is
 * unspecified. Returns TT_OK, or TT_EINVAL as grammar_check. */
int grammar_parse(const char *const *tokens, const unsigned char *flags, int n,
                  unsigned reading, GrammarSentence *s, int *choices, GrammarVerdict *out);

#endif
