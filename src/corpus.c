/*
 * corpus.c — the grammar of docs/corpus.md: enumeration, sampling and the corpus writer.
 *
 * A sentence is first a Clause: a small struct of choices (subject, verb, object,
 * negation, adjectives) that determines one core and nothing else. Two producers fill a
 * Clause — clause_at() decodes an index in [0, corpus_core_count(type)) as a mixed-radix
 * number, clause_sample() draws each choice from the generator with the weights below —
 * and one function, clause_render(), turns a Clause into English and German. So the
 * sampler cannot produce a sentence the enumeration does not count, and German agreement
 * lives in one place: the tables DE_ARTICLE and DE_ENDING, indexed by determiner, case
 * and "slot" (masculine, feminine, neuter or plural).
 *
 * Where docs/corpus.md says a noun phrase has an "optional adjective" (the subjects of
 * predicates and questions, "Is this NP?", "Are these Ns?") the phrase has at most one
 * plain adjective; where it says "NP" or "any noun phrase" (This is, the subjects and
 * objects of transitive sentences) it follows the full rule
 * `determiner [[very] adjective] noun`.
 */
#include "corpus.h"

#include "status.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BIT(n) (UINT32_C(1) << (n))

/* ---------------------------------------------------------------------------------------
 * Lexicon (docs/corpus.md, "Lexicon")
 */

enum {
    N_EXAMPLE, N_HOUSE, N_DOG, N_CAT, N_BOOK, N_MAN, N_WOMAN, N_CHILD, N_GIRL, N_CAR,
    N_APPLE, N_TABLE, N_TEACHER, N_CITY, N_TREE, N_LETTER, N_GARDEN, N_SCHOOL, N_BREAD,
    N_FRIEND, N_STREET, N_DOOR, N_NOUNS
};

/* A noun's "slot" picks the article and the adjective ending: its gender in the singular,
 * SLOT_PL in the plural. */
enum { SLOT_M, SLOT_F, SLOT_N, SLOT_PL, N_SLOTS };

typedef struct {
    const char *en_sg, *en_pl; /* en_pl NULL: singular only */
    const char *de_sg, *de_pl; /* de_pl NULL exactly when en_pl is */
    int gender;                /* SLOT_M, SLOT_F or SLOT_N */
} Noun;

static const Noun NOUNS[N_NOUNS] = {
    [N_EXAMPLE] = {"example", "examples", "Beispiel", "Beispiele", SLOT_N},
    [N_HOUSE] = {"house", "houses", "Haus", "Häuser", SLOT_N},
    [N_DOG] = {"dog", "dogs", "Hund", "Hunde", SLOT_M},
    [N_CAT] = {"cat", "cats", "Katze", "Katzen", SLOT_F},
    [N_BOOK] = {"book", "books", "Buch", "Bücher", SLOT_N},
    [N_MAN] = {"man", "men", "Mann", "Männer", SLOT_M},
    [N_WOMAN] = {"woman", "women", "Frau", "Frauen", SLOT_F},
    [N_CHILD] = {"child", "children", "Kind", "Kinder", SLOT_N},
    [N_GIRL] = {"girl", "girls", "Mädchen", "Mädchen", SLOT_N},
    [N_CAR] = {"car", "cars", "Auto", "Autos", SLOT_N},
    [N_APPLE] = {"apple", "apples", "Apfel", "Äpfel", SLOT_M},
    [N_TABLE] = {"table", "tables", "Tisch", "Tische", SLOT_M},
    [N_TEACHER] = {"teacher", "teachers", "Lehrer", "Lehrer", SLOT_M},
    [N_CITY] = {"city", "cities", "Stadt", "Städte", SLOT_F},
    [N_TREE] = {"tree", "trees", "Baum", "Bäume", SLOT_M},
    [N_LETTER] = {"letter", "letters", "Brief", "Briefe", SLOT_M},
    [N_GARDEN] = {"garden", "gardens", "Garten", "Gärten", SLOT_M},
    [N_SCHOOL] = {"school", "schools", "Schule", "Schulen", SLOT_F},
    [N_BREAD] = {"bread", NULL, "Brot", NULL, SLOT_N},
    [N_FRIEND] = {"friend", "friends", "Freund", "Freunde", SLOT_M},
    [N_STREET] = {"street", "streets", "Straße", "Straßen", SLOT_F},
    [N_DOOR] = {"door", "doors", "Tür", "Türen", SLOT_F},
};

/* Noun classes as bit masks over the N_* indices. */
#define NOUNS_ALL (BIT(N_NOUNS) - 1u)
#define NOUNS_PERSON (BIT(N_MAN) | BIT(N_WOMAN) | BIT(N_CHILD) | BIT(N_GIRL) | \
                      BIT(N_TEACHER) | BIT(N_FRIEND))
#define NOUNS_ANIMAL (BIT(N_DOG) | BIT(N_CAT))
#define NOUNS_THING (NOUNS_ALL & ~(NOUNS_PERSON | NOUNS_ANIMAL))

enum { N_ADJS = 8 };

typedef struct {
    const char *en, *de; /* de is the undeclined stem, which is also the predicate form */
} Adjective;

static const Adjective ADJS[N_ADJS] = {
    {"big", "groß"}, {"small", "klein"}, {"old", "alt"},         {"new", "neu"},
    {"good", "gut"}, {"red", "rot"},     {"beautiful", "schön"}, {"young", "jung"},
};

/* Persons, the index of every conjugation table: ich, du, er/sie/es, wir, sie. */
enum { P_1SG, P_2SG, P_3SG, P_1PL, P_3PL, N_PERSONS };

enum { PRON_I, PRON_YOU, PRON_HE, PRON_SHE, PRON_IT, PRON_WE, PRON_THEY, N_PRONOUNS };
#define PRONOUNS_ALL (BIT(N_PRONOUNS) - 1u)

typedef struct {
    const char *en, *de; /* de lower case; clause_render capitalises a first word */
    int person;          /* P_* */
} Pronoun;

static const Pronoun PRONOUNS[N_PRONOUNS] = {
    [PRON_I] = {"I", "ich", P_1SG},    [PRON_YOU] = {"you", "du", P_2SG},
    [PRON_HE] = {"he", "er", P_3SG},   [PRON_SHE] = {"she", "sie", P_3SG},
    [PRON_IT] = {"it", "es", P_3SG},   [PRON_WE] = {"we", "wir", P_1PL},
    [PRON_THEY] = {"they", "sie", P_3PL},
};

static const char *const BE_EN[N_PERSONS] = {"am", "are", "is", "are", "are"};
static const char *const BE_DE[N_PERSONS] = {"bin", "bist", "ist", "sind", "sind"};

enum { V_SEE, V_HAVE, V_READ, V_WRITE, V_BUY, V_EAT, V_FIND, V_NEED, V_LOVE, N_VERBS };

typedef struct {
    const char *en, *en_3sg;
    const char *de[N_PERSONS];
    uint32_t objects; /* the nouns it takes as object (BIT(N_*) mask) */
    int literate;     /* 1: the subject is a person or a pronoun other than "it" */
} Verb;

static const Verb VERBS[N_VERBS] = {
    [V_SEE] = {"see", "sees", {"sehe", "siehst", "sieht", "sehen", "sehen"}, NOUNS_ALL, 0},
    [V_HAVE] = {"have", "has", {"habe", "hast", "hat", "haben", "haben"}, NOUNS_ALL, 0},
    [V_READ] = {"read", "reads", {"lese", "liest", "liest", "lesen", "lesen"},
                BIT(N_BOOK) | BIT(N_LETTER), 1},
    [V_WRITE] = {"write", "writes", {"schreibe", "schreibst", "schreibt", "schreiben",
                                     "schreiben"},
                 BIT(N_BOOK) | BIT(N_LETTER), 1},
    [V_BUY] = {"buy", "buys", {"kaufe", "kaufst", "kauft", "kaufen", "kaufen"},
               (NOUNS_THING & ~(BIT(N_CITY) | BIT(N_STREET) | BIT(N_SCHOOL) |
                                BIT(N_EXAMPLE))) | NOUNS_ANIMAL,
               0},
    [V_EAT] = {"eat", "eats", {"esse", "isst", "isst", "essen", "essen"},
               BIT(N_APPLE) | BIT(N_BREAD), 0},
    [V_FIND] = {"find", "finds", {"finde", "findest", "findet", "finden", "finden"},
                NOUNS_ALL, 0},
    [V_NEED] = {"need", "needs", {"brauche", "brauchst", "braucht", "brauchen", "brauchen"},
                NOUNS_ALL, 0},
    [V_LOVE] = {"love", "loves", {"liebe", "liebst", "liebt", "lieben", "lieben"},
                NOUNS_ALL, 0},
};

/* ---------------------------------------------------------------------------------------
 * Determiners and declension ("Noun phrases")
 */

/* DET_KEIN is never chosen: it is how the German renders a negated a/an or bare plural. */
typedef enum { DET_THE, DET_THIS, DET_A, DET_MY, DET_YOUR, DET_NONE, DET_KEIN, N_DETS } Det;

enum { CASE_NOM, CASE_ACC, N_CASES };
enum { DECL_WEAK, DECL_MIXED, DECL_STRONG, N_DECLS };

/* German article by determiner, case and slot; NULL where the combination does not
 * exist (ein has no plural; a bare noun phrase is always plural). */
static const char *const DE_ARTICLE[N_DETS][N_CASES][N_SLOTS] = {
    [DET_THE] = {{"der", "die", "das", "die"}, {"den", "die", "das", "die"}},
    [DET_THIS] = {{"dieser", "diese", "dieses", "diese"}, {"diesen", "diese", "dieses", "diese"}},
    [DET_A] = {{"ein", "eine", "ein", NULL}, {"einen", "eine", "ein", NULL}},
    [DET_MY] = {{"mein", "meine", "mein", "meine"}, {"meinen", "meine", "mein", "meine"}},
    [DET_YOUR] = {{"dein", "deine", "dein", "deine"}, {"deinen", "deine", "dein", "deine"}},
    [DET_NONE] = {{NULL, NULL, NULL, ""}, {NULL, NULL, NULL, ""}},
    [DET_KEIN] = {{"kein", "keine", "kein", "keine"}, {"keinen", "keine", "kein", "keine"}},
};

static const int DET_DECL[N_DETS] = {
    [DET_THE] = DECL_WEAK,   [DET_THIS] = DECL_WEAK,   [DET_A] = DECL_MIXED,
    [DET_MY] = DECL_MIXED,   [DET_YOUR] = DECL_MIXED,  [DET_NONE] = DECL_STRONG,
    [DET_KEIN] = DECL_MIXED,
};

/* Attributive adjective endings by declension, case and slot. Mixed declension has weak
 * endings in the plural; strong declension only occurs in the plural here. */
static const char *const DE_ENDING[N_DECLS][N_CASES][N_SLOTS] = {
    [DECL_WEAK] = {{"e", "e", "e", "en"}, {"en", "e", "e", "en"}},
    [DECL_MIXED] = {{"er", "e", "es", "en"}, {"en", "e", "es", "en"}},
    [DECL_STRONG] = {{NULL, NULL, NULL, "e"}, {NULL, NULL, NULL, "e"}},
};

/* ---------------------------------------------------------------------------------------
 * Clauses: the choices that make one core
 */

typedef struct {
    Det det;    /* never DET_KEIN */
    int noun;   /* N_* */
    int plural; /* 0 or 1; 1 needs a noun with a plural */
    int adj;    /* -1 for none, else an index into ADJS */
    int very;   /* 1: "very" before the adjective (only when adj >= 0) */
} NounPhrase;

typedef struct {
    int pron;      /* PRON_*, or -1 when the subject is np */
    NounPhrase np; /* used when pron < 0 */
} Subject;

/* The questions: "Is this NP?" / "Are these Ns?", or "Is/Are/Am SUBJ [very] ADJ?". */
enum { Q_THIS, Q_BE, N_QFORMS };

typedef struct {
    CorpusType type;
    int qform;     /* QUESTION: Q_* */
    Subject subj;  /* PREDICATE, TRANSITIVE, QUESTION Q_BE */
    NounPhrase np; /* THIS_IS and Q_THIS: the phrase; TRANSITIVE: the object */
    int verb;      /* TRANSITIVE: V_* */
    int negated;   /* THIS_IS, PREDICATE (single adjective), TRANSITIVE: 0 or 1 */
    int very;      /* PREDICATE, Q_BE: "very" before the predicate adjective */
    int adj;       /* PREDICATE, Q_BE: the predicate adjective */
    int adj2;      /* PREDICATE: -1, or a second adjective != adj (then negated is 0) */
} Clause;

/* The noun phrases a slot of a sentence type allows. */
typedef struct {
    uint32_t dets_sg; /* BIT(DET_*) allowed in the singular */
    uint32_t dets_pl; /* BIT(DET_*) allowed in the plural */
    uint32_t nouns;   /* BIT(N_*) */
    int very;         /* 1: [[very] adjective]; 0: an optional plain adjective */
} NpSet;

typedef struct {
    uint32_t prons; /* BIT(PRON_*) allowed as subject */
    NpSet np;       /* or a noun phrase from this set */
} SubjectSet;

#define DETS_THIS_IS_SG (BIT(DET_A) | BIT(DET_THE) | BIT(DET_MY) | BIT(DET_YOUR))
#define DETS_THIS_IS_PL (BIT(DET_NONE) | BIT(DET_THE) | BIT(DET_MY) | BIT(DET_YOUR))
#define DETS_DEFINITE (BIT(DET_THE) | BIT(DET_THIS) | BIT(DET_MY) | BIT(DET_YOUR))

/* This is [not] NP / These are [not] NP. */
static const NpSet THIS_IS_NPS = {DETS_THIS_IS_SG, DETS_THIS_IS_PL, NOUNS_ALL, 1};
/* Subjects of predicates and of "Is/Are SUBJ ADJ?". */
static const SubjectSet BE_SUBJECTS = {PRONOUNS_ALL, {DETS_DEFINITE, DETS_DEFINITE, NOUNS_ALL, 0}};
/* Is this NP? (a/an, the, my, your) / Are these Ns? (bare plural). */
static const NpSet Q_THIS_NPS = {DETS_THIS_IS_SG, BIT(DET_NONE), NOUNS_ALL, 0};

/* Predicate adjectives: [not] [very] ADJ (2·2·8), then [very] ADJ and ADJ2 (2·8·7). */
enum { PRED_SINGLE = 2 * 2 * N_ADJS, PRED_COUNT = PRED_SINGLE + 2 * N_ADJS * (N_ADJS - 1) };

static void transitive_subjects(SubjectSet *s, int verb)
{
    const int literate = VERBS[verb].literate;
    s->prons = literate ? PRONOUNS_ALL & ~BIT(PRON_IT) : PRONOUNS_ALL;
    s->np = (NpSet){DETS_DEFINITE | BIT(DET_A), DETS_DEFINITE,
                    literate ? NOUNS_PERSON : NOUNS_PERSON | NOUNS_ANIMAL, 1};
}

static void transitive_objects(NpSet *s, int verb)
{
    *s = (NpSet){DETS_DEFINITE | BIT(DET_A), DETS_DEFINITE | BIT(DET_NONE),
                 VERBS[verb].objects, 1};
}

/* ---------------------------------------------------------------------------------------
 * Enumeration: index → Clause
 */

static int bit_count(uint32_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* The position of the k-th set bit of m (k from 0). */
static int bit_nth(uint32_t m, uint64_t k)
{
    for (int b = 0; b < 32; b++)
        if ((m & BIT(b)) && k-- == 0)
            return b;
    assert(!"bit_nth: k beyond the mask");
    return -1;
}

/* Adjective choices: none, one of N_ADJS, and with very also "very" + one of N_ADJS. */
static uint64_t np_adj_choices(const NpSet *s)
{
    return s->very ? 1 + 2 * N_ADJS : 1 + N_ADJS;
}

static uint64_t np_count(const NpSet *s)
{
    const uint64_t n_sg = (uint64_t)bit_count(s->dets_sg);
    const uint64_t n_pl = (uint64_t)bit_count(s->dets_pl);
    uint64_t forms = 0; /* (noun, number, determiner) triples */
    for (int k = 0; k < N_NOUNS; k++)
        if (s->nouns & BIT(k))
            forms += n_sg + (NOUNS[k].en_pl ? n_pl : 0);
    return forms * np_adj_choices(s);
}

static void np_at(NounPhrase *np, const NpSet *s, uint64_t i)
{
    const uint64_t a = i % np_adj_choices(s);
    i /= np_adj_choices(s);
    np->adj = a == 0 ? -1 : (int)((a - 1) % N_ADJS);
    np->very = a > N_ADJS;
    const uint64_t n_sg = (uint64_t)bit_count(s->dets_sg);
    for (int k = 0; k < N_NOUNS; k++) {
        if (!(s->nouns & BIT(k)))
            continue;
        const uint64_t n_pl = NOUNS[k].en_pl ? (uint64_t)bit_count(s->dets_pl) : 0;
        np->noun = k;
        if (i < n_sg) {
            np->plural = 0;
            np->det = (Det)bit_nth(s->dets_sg, i);
            return;
        }
        i -= n_sg;
        if (i < n_pl) {
            np->plural = 1;
            np->det = (Det)bit_nth(s->dets_pl, i);
            return;
        }
        i -= n_pl;
    }
    assert(!"np_at: index beyond np_count");
}

static uint64_t subject_count(const SubjectSet *s)
{
    return (uint64_t)bit_count(s->prons) + np_count(&s->np);
}

static void subject_at(Subject *subj, const SubjectSet *s, uint64_t i)
{
    const uint64_t n_pron = (uint64_t)bit_count(s->prons);
    if (i < n_pron) {
        subj->pron = bit_nth(s->prons, i);
        return;
    }
    subj->pron = -1;
    np_at(&subj->np, &s->np, i - n_pron);
}

/* Decodes p in [0, PRED_COUNT) into negated, very, adj, adj2. */
static void predicate_at(Clause *c, uint64_t p)
{
    if (p < PRED_SINGLE) {
        c->adj = (int)(p % N_ADJS);
        c->very = (int)(p / N_ADJS % 2);
        c->negated = (int)(p / (2 * N_ADJS));
        c->adj2 = -1;
        return;
    }
    p -= PRED_SINGLE;
    const int other = (int)(p % (N_ADJS - 1)); /* adj2 among the adjectives but adj */
    c->adj = (int)(p / (N_ADJS - 1) % N_ADJS);
    c->very = (int)(p / ((N_ADJS - 1) * N_ADJS));
    c->adj2 = other < c->adj ? other : other + 1;
    c->negated = 0;
}

static uint64_t transitive_verb_count(int verb)
{
    SubjectSet subjects;
    NpSet objects;
    transitive_subjects(&subjects, verb);
    transitive_objects(&objects, verb);
    return 2 * subject_count(&subjects) * np_count(&objects); /* ×2: negated or not */
}

uint64_t corpus_core_count(CorpusType type)
{
    switch (type) {
    case CORPUS_THIS_IS:
        return 2 * np_count(&THIS_IS_NPS);
    case CORPUS_PREDICATE:
        return subject_count(&BE_SUBJECTS) * PRED_COUNT;
    case CORPUS_TRANSITIVE: {
        uint64_t n = 0;
        for (int v = 0; v < N_VERBS; v++)
            n += transitive_verb_count(v);
        return n;
    }
    case CORPUS_QUESTION:
        return np_count(&Q_THIS_NPS) + subject_count(&BE_SUBJECTS) * 2 * N_ADJS;
    default:
        return 0;
    }
}

/* Fills c with core i of type. Returns 0, or -1 if i >= corpus_core_count(type). */
static int clause_at(Clause *c, CorpusType type, uint64_t i)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->adj2 = -1;
    if (type != CORPUS_TRANSITIVE && i >= corpus_core_count(type))
        return -1; /* the transitive count is the loop below */
    switch (type) {
    case CORPUS_THIS_IS:
        c->negated = (int)(i % 2);
        np_at(&c->np, &THIS_IS_NPS, i / 2);
        return 0;
    case CORPUS_PREDICATE:
        predicate_at(c, i % PRED_COUNT);
        subject_at(&c->subj, &BE_SUBJECTS, i / PRED_COUNT);
        return 0;
    case CORPUS_TRANSITIVE:
        for (int v = 0; v < N_VERBS; v++) {
            const uint64_t n = transitive_verb_count(v);
            if (i >= n) {
                i -= n;
                continue;
            }
            SubjectSet subjects;
            NpSet objects;
            transitive_subjects(&subjects, v);
            transitive_objects(&objects, v);
            const uint64_t n_objects = np_count(&objects);
            c->verb = v;
            c->negated = (int)(i % 2);
            i /= 2;
            np_at(&c->np, &objects, i % n_objects);
            subject_at(&c->subj, &subjects, i / n_objects);
            return 0;
        }
        return -1;
    case CORPUS_QUESTION:
        if (i < np_count(&Q_THIS_NPS)) {
            c->qform = Q_THIS;
            np_at(&c->np, &Q_THIS_NPS, i);
            return 0;
        }
        i -= np_count(&Q_THIS_NPS);
        c->qform = Q_BE;
        c->adj = (int)(i % N_ADJS);
        c->very = (int)(i / N_ADJS % 2);
        subject_at(&c->subj, &BE_SUBJECTS, i / (2 * N_ADJS));
        return 0;
    default:
        return -1;
    }
}

/* ---------------------------------------------------------------------------------------
 * Sampling: Rng → Clause
 *
 * Each choice is drawn on its own, with weights that keep the short, frequent forms
 * (no adjective, a pronoun subject, affirmative) common enough to learn from while the
 * long forms supply most of the distinct sentences. Change a weight and every corpus
 * changes: the order and number of draws is part of the format.
 */

static const unsigned TYPE_WEIGHTS[CORPUS_N_TYPES] = {
    [CORPUS_THIS_IS] = 20, [CORPUS_PREDICATE] = 25, [CORPUS_TRANSITIVE] = 30,
    [CORPUS_QUESTION] = 25,
};
static const unsigned ADJ_WEIGHTS_VERY[3] = {45, 40, 15}; /* none, ADJ, very ADJ */
static const unsigned ADJ_WEIGHTS_PLAIN[2] = {50, 50};    /* none, ADJ */
#define PCT_PLURAL 45          /* a noun phrase is plural, where both are allowed */
#define PCT_NEGATED 30         /* a sentence that may be negated is */
#define PCT_VERY 25            /* "very" before a predicate adjective */
#define PCT_TWO_ADJS 25        /* a predicate is "ADJ and ADJ2" */
#define PCT_PRON_PREDICATE 35  /* the subject of a predicate is a pronoun */
#define PCT_PRON_TRANSITIVE 40 /* the subject of a transitive sentence is a pronoun */
#define PCT_PRON_QUESTION 20   /* the subject of "Is/Are SUBJ ADJ?" is a pronoun */
#define PCT_Q_THIS 30          /* a question is "Is this NP?" / "Are these Ns?" */
#define PCT_PUNCTUATED 50      /* a pair ends in '.' or '?' */

/* Uniform in [0, n), n >= 1, without modulo bias. */
static uint32_t draw_below(Rng *rng, uint32_t n)
{
    assert(n > 0);
    /* Rejecting the lowest 2^32 mod n draws leaves a multiple of n equally likely values. */
    const uint32_t reject = (UINT32_C(0) - n) % n;
    uint32_t x;
    do
        x = rng_next_u32(rng);
    while (x < reject);
    return x % n;
}

static int draw_percent(Rng *rng, unsigned pct)
{
    return draw_below(rng, 100) < pct;
}

/* An index in [0, n) drawn with probability w[i] / sum(w). */
static int draw_weighted(Rng *rng, const unsigned *w, int n)
{
    uint32_t total = 0;
    for (int i = 0; i < n; i++)
        total += w[i];
    uint32_t x = draw_below(rng, total);
    for (int i = 0; i < n; i++) {
        if (x < w[i])
            return i;
        x -= w[i];
    }
    assert(!"draw_weighted: fell off the end");
    return n - 1;
}

/* One of the set bits of m (m != 0), uniformly. */
static int draw_bit(Rng *rng, uint32_t m)
{
    return bit_nth(m, draw_below(rng, (uint32_t)bit_count(m)));
}

static void np_sample(NounPhrase *np, const NpSet *s, Rng *rng)
{
    np->noun = draw_bit(rng, s->nouns);
    const int can_sg = s->dets_sg != 0;
    const int can_pl = s->dets_pl != 0 && NOUNS[np->noun].en_pl != NULL;
    assert(can_sg || can_pl);
    np->plural = can_sg && can_pl ? draw_percent(rng, PCT_PLURAL) : can_pl;
    np->det = (Det)draw_bit(rng, np->plural ? s->dets_pl : s->dets_sg);
    const int a = s->very ? draw_weighted(rng, ADJ_WEIGHTS_VERY, 3)
                          : draw_weighted(rng, ADJ_WEIGHTS_PLAIN, 2);
    np->adj = a == 0 ? -1 : (int)draw_below(rng, N_ADJS);
    np->very = a == 2;
}

static void subject_sample(Subject *subj, const SubjectSet *s, unsigned pct_pron, Rng *rng)
{
    if (draw_percent(rng, pct_pron)) {
        subj->pron = draw_bit(rng, s->prons);
        return;
    }
    subj->pron = -1;
    np_sample(&subj->np, &s->np, rng);
}

static void clause_sample(Clause *c, CorpusType type, Rng *rng)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->adj2 = -1;
    switch (type) {
    case CORPUS_THIS_IS:
        c->negated = draw_percent(rng, PCT_NEGATED);
        np_sample(&c->np, &THIS_IS_NPS, rng);
        return;
    case CORPUS_PREDICATE:
        subject_sample(&c->subj, &BE_SUBJECTS, PCT_PRON_PREDICATE, rng);
        c->very = draw_percent(rng, PCT_VERY);
        c->adj = (int)draw_below(rng, N_ADJS);
        if (draw_percent(rng, PCT_TWO_ADJS)) {
            const int other = (int)draw_below(rng, N_ADJS - 1);
            c->adj2 = other < c->adj ? other : other + 1;
        } else {
            c->negated = draw_percent(rng, PCT_NEGATED);
        }
        return;
    case CORPUS_TRANSITIVE: {
        SubjectSet subjects;
        NpSet objects;
        c->verb = (int)draw_below(rng, N_VERBS);
        transitive_subjects(&subjects, c->verb);
        transitive_objects(&objects, c->verb);
        subject_sample(&c->subj, &subjects, PCT_PRON_TRANSITIVE, rng);
        np_sample(&c->np, &objects, rng);
        c->negated = draw_percent(rng, PCT_NEGATED);
        return;
    }
    case CORPUS_QUESTION:
        if (draw_percent(rng, PCT_Q_THIS)) {
            c->qform = Q_THIS;
            np_sample(&c->np, &Q_THIS_NPS, rng);
            return;
        }
        c->qform = Q_BE;
        subject_sample(&c->subj, &BE_SUBJECTS, PCT_PRON_QUESTION, rng);
        c->very = draw_percent(rng, PCT_VERY);
        c->adj = (int)draw_below(rng, N_ADJS);
        return;
    default:
        assert(!"clause_sample: not a corpus type");
    }
}

/* ---------------------------------------------------------------------------------------
 * Rendering: Clause → English and German
 */

typedef struct {
    char *s;    /* CORPUS_TEXT_MAX bytes, NUL-terminated */
    size_t len; /* strlen(s) */
} Text;

/* Appends a and b joined (b may be ""), after a space unless t is empty. */
static void text_add2(Text *t, const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b), sep = t->len > 0;
    assert(t->len + sep + na + nb < CORPUS_TEXT_MAX);
    if (sep)
        t->s[t->len++] = ' ';
    memcpy(t->s + t->len, a, na);
    memcpy(t->s + t->len + na, b, nb);
    t->len += na + nb;
    t->s[t->len] = '\0';
}

static void text_add(Text *t, const char *w)
{
    text_add2(t, w, "");
}

static int starts_with_vowel(const char *w)
{
    return w[0] != '\0' && strchr("aeiou", w[0]) != NULL;
}

static const char *noun_en(const NounPhrase *np)
{
    return np->plural ? NOUNS[np->noun].en_pl : NOUNS[np->noun].en_sg;
}

static void np_render_en(Text *t, const NounPhrase *np)
{
    /* "an" goes by the next word's first letter: an apple, an old dog, a very old dog. */
    const char *next = np->very ? "very" : np->adj >= 0 ? ADJS[np->adj].en : noun_en(np);
    switch (np->det) {
    case DET_THE: text_add(t, "the"); break;
    case DET_THIS: text_add(t, np->plural ? "these" : "this"); break;
    case DET_A: text_add(t, starts_with_vowel(next) ? "an" : "a"); break;
    case DET_MY: text_add(t, "my"); break;
    case DET_YOUR: text_add(t, "your"); break;
    case DET_NONE: break;
    default: assert(!"np_render_en: not an English determiner");
    }
    if (np->very)
        text_add(t, "very");
    if (np->adj >= 0)
        text_add(t, ADJS[np->adj].en);
    text_add(t, noun_en(np));
}

/* Does negating np turn its determiner into kein (a/an, bare plural) rather than add
 * "nicht" (the, this/these, my, your)? */
static int np_negates_to_kein(const NounPhrase *np)
{
    return np->det == DET_A || np->det == DET_NONE;
}

/* The German noun phrase in case cas; kein replaces a/an or the bare plural by kein. */
static void np_render_de(Text *t, const NounPhrase *np, int cas, int kein)
{
    assert(!kein || np_negates_to_kein(np));
    assert(np->plural == 0 || NOUNS[np->noun].de_pl != NULL);
    const Det det = kein ? DET_KEIN : np->det;
    const int slot = np->plural ? SLOT_PL : NOUNS[np->noun].gender;
    const char *article = DE_ARTICLE[det][cas][slot];
    assert(article != NULL);
    if (article[0])
        text_add(t, article);
    if (np->very)
        text_add(t, "sehr");
    if (np->adj >= 0) {
        const char *ending = DE_ENDING[DET_DECL[det]][cas][slot];
        assert(ending != NULL);
        text_add2(t, ADJS[np->adj].de, ending);
    }
    text_add(t, np->plural ? NOUNS[np->noun].de_pl : NOUNS[np->noun].de_sg);
}

static int subject_person(const Subject *s)
{
    if (s->pron >= 0)
        return PRONOUNS[s->pron].person;
    return s->np.plural ? P_3PL : P_3SG;
}

static void subject_render(Text *en, Text *de, const Subject *s)
{
    if (s->pron >= 0) {
        text_add(en, PRONOUNS[s->pron].en);
        text_add(de, PRONOUNS[s->pron].de);
        return;
    }
    np_render_en(en, &s->np);
    np_render_de(de, &s->np, CASE_NOM, 0);
}

/* The predicate "[not] [very] ADJ [and ADJ2]" of PREDICATE and Q_BE. */
static void predicate_render(Text *en, Text *de, const Clause *c)
{
    if (c->negated) {
        text_add(en, "not");
        text_add(de, "nicht");
    }
    if (c->very) {
        text_add(en, "very");
        text_add(de, "sehr");
    }
    text_add(en, ADJS[c->adj].en);
    text_add(de, ADJS[c->adj].de);
    if (c->adj2 >= 0) {
        text_add(en, "and");
        text_add(de, "und");
        text_add(en, ADJS[c->adj2].en);
        text_add(de, ADJS[c->adj2].de);
    }
}

static void transitive_render(Text *en, Text *de, const Clause *c)
{
    const Verb *v = &VERBS[c->verb];
    const int person = subject_person(&c->subj);
    /* The grammar's restrictions, which clause_at and clause_sample both honour. */
    assert(v->objects & BIT(c->np.noun));
    assert(!v->literate || (c->subj.pron >= 0 ? c->subj.pron != PRON_IT
                                              : (NOUNS_PERSON & BIT(c->subj.np.noun)) != 0));
    assert(c->subj.pron >= 0 || c->subj.np.det != DET_NONE);

    subject_render(en, de, &c->subj);
    if (c->negated) {
        text_add(en, person == P_3SG ? "does" : "do");
        text_add(en, "not");
        text_add(en, v->en);
    } else {
        text_add(en, person == P_3SG ? v->en_3sg : v->en);
    }
    np_render_en(en, &c->np);

    text_add(de, v->de[person]);
    const int kein = c->negated && np_negates_to_kein(&c->np);
    np_render_de(de, &c->np, CASE_ACC, kein);
    if (c->negated && !kein)
        text_add(de, "nicht"); /* Sie liest das Buch nicht. */
}

/* Upper-cases the first letter; every first word (English or German) starts in ASCII. */
static void capitalise(char *s)
{
    assert((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
    if (s[0] >= 'a' && s[0] <= 'z')
        s[0] = (char)(s[0] - 'a' + 'A');
}

static void clause_render(CorpusPair *out, const Clause *c, int punctuated)
{
    Text en = {out->en, 0}, de = {out->de, 0};
    out->en[0] = out->de[0] = '\0';
    out->type = c->type;
    out->punctuated = punctuated;
    switch (c->type) {
    case CORPUS_THIS_IS: {
        text_add(&en, c->np.plural ? "these are" : "this is");
        text_add(&de, c->np.plural ? "das sind" : "das ist");
        if (c->negated)
            text_add(&en, "not");
        np_render_en(&en, &c->np);
        const int kein = c->negated && np_negates_to_kein(&c->np);
        if (c->negated && !kein)
            text_add(&de, "nicht"); /* Das ist nicht mein Buch. */
        np_render_de(&de, &c->np, CASE_NOM, kein);
        break;
    }
    case CORPUS_PREDICATE: {
        const int person = subject_person(&c->subj);
        subject_render(&en, &de, &c->subj);
        text_add(&en, BE_EN[person]);
        text_add(&de, BE_DE[person]);
        predicate_render(&en, &de, c);
        break;
    }
    case CORPUS_TRANSITIVE:
        transitive_render(&en, &de, c);
        break;
    case CORPUS_QUESTION:
        if (c->qform == Q_THIS) {
            text_add(&en, c->np.plural ? "are these" : "is this");
            text_add(&de, c->np.plural ? "sind das" : "ist das");
            np_render_en(&en, &c->np);
            np_render_de(&de, &c->np, CASE_NOM, 0);
        } else {
            const int person = subject_person(&c->subj);
            text_add(&en, BE_EN[person]);
            text_add(&de, BE_DE[person]);
            subject_render(&en, &de, &c->subj);
            predicate_render(&en, &de, c);
        }
        break;
    default:
        assert(!"clause_render: not a corpus type");
    }
    capitalise(out->en);
    capitalise(out->de);
    if (punctuated) {
        const char *mark = c->type == CORPUS_QUESTION ? "?" : ".";
        assert(en.len + 1 < CORPUS_TEXT_MAX && de.len + 1 < CORPUS_TEXT_MAX);
        strcat(out->en, mark);
        strcat(out->de, mark);
    }
}

/* ---------------------------------------------------------------------------------------
 * Public: one pair
 */

const char *corpus_type_name(CorpusType type)
{
    switch (type) {
    case CORPUS_THIS_IS: return "this-is";
    case CORPUS_PREDICATE: return "predicate";
    case CORPUS_TRANSITIVE: return "transitive";
    case CORPUS_QUESTION: return "question";
    default: return "?";
    }
}

int corpus_core_at(CorpusPair *out, CorpusType type, uint64_t index)
{
    Clause c;
    if (clause_at(&c, type, index) != 0)
        return TT_EINVAL;
    clause_render(out, &c, 0);
    return TT_OK;
}

void corpus_sample(CorpusPair *out, CorpusType type, Rng *rng)
{
    assert((unsigned)type < CORPUS_N_TYPES);
    Clause c;
    clause_sample(&c, type, rng);
    clause_render(out, &c, draw_percent(rng, PCT_PUNCTUATED));
}

/* ---------------------------------------------------------------------------------------
 * The writer
 *
 * Distinct cores are kept in an open-addressing set of 64-bit hashes of the lower-cased
 * core. Two equal cores always collide, so no duplicate can slip through; two different
 * cores that share a hash (about 34000²/2⁶⁵ ≈ 3·10⁻¹¹ for the default sizes) would only
 * cost a redraw. The split of each new pair is drawn in proportion to the room left in
 * each file, so the three files are samples of one distribution: the forms that run out
 * of new sentences early (the 112 pronoun questions, say) are spread over all of them.
 */

enum { SPLIT_TRAIN, SPLIT_VALID, SPLIT_TEST, N_SPLITS };
static const char *const SPLIT_FILES[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};
static const CorpusPair SEED_PAIR = {CORPUS_THIS_IS, 0, CORPUS_SEED_EN, CORPUS_SEED_DE};

#define CORPUS_PATH_MAX 4096     /* bytes of a file path with its NUL */
#define CORPUS_MAX_MISSES 100000 /* consecutive duplicate draws before giving up */

typedef struct {
    uint64_t *keys; /* (mask + 1) hashes, 0 = empty; owned */
    size_t mask;    /* capacity - 1, capacity a power of two */
} CoreSet;

static int coreset_init(CoreSet *s, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) /* at most half full, so probes stay short */
        cap *= 2;
    s->keys = calloc(cap, sizeof *s->keys);
    s->mask = cap - 1;
    return s->keys ? TT_OK : TT_ENOMEM;
}

static void coreset_free(CoreSet *s)
{
    free(s->keys);
    s->keys = NULL;
}

/* Inserts key (never 0); returns 1 if it was new, 0 if already present. The caller never
 * inserts more than the n coreset_init was sized for. */
static int coreset_insert(CoreSet *s, uint64_t key)
{
    /* splitmix64's finaliser spreads the FNV bits over the index. */
    uint64_t h = key;
    h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
    h ^= h >> 31;
    for (size_t i = (size_t)h & s->mask;; i = (i + 1) & s->mask) {
        if (s->keys[i] == key)
            return 0;
        if (s->keys[i] == 0) {
            s->keys[i] = key;
            return 1;
        }
    }
}

/* FNV-1a of the lower-cased English core (final '.' or '?' left out); never 0. */
static uint64_t core_key(const CorpusPair *p)
{
    size_t n = strlen(p->en);
    if (p->punctuated)
        n--;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p->en[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (unsigned char)(ch - 'A' + 'a');
        h = (h ^ ch) * UINT64_C(0x100000001b3);
    }
    return h ? h : 1;
}

static void corpus_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void corpus_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int write_pair(FILE *f, const char *en, const char *de, const char *name, char *err,
                      size_t errlen)
{
    if (fprintf(f, "%s\t%s\n", en, de) < 0) {
        corpus_err(err, errlen, "error writing '%s': %s", name, strerror(errno));
        return TT_EIO;
    }
    return TT_OK;
}

/* Draws until every split has its pairs; remaining[s] counts the lines still owed. */
static int corpus_draw_all(FILE *const files[N_SPLITS], const char *const names[N_SPLITS],
                           int remaining[N_SPLITS], CoreSet *seen, Rng *rng,
                           CorpusStats *stats, char *err, size_t errlen)
{
    long left = 0, misses = 0;
    for (int s = 0; s < N_SPLITS; s++)
        left += remaining[s];
    while (left > 0) {
        CorpusPair pair;
        const CorpusType type = (CorpusType)draw_weighted(rng, TYPE_WEIGHTS, CORPUS_N_TYPES);
        corpus_sample(&pair, type, rng);
        stats->draws++;
        if (!coreset_insert(seen, core_key(&pair))) {
            if (++misses > CORPUS_MAX_MISSES) {
                corpus_err(err, errlen, "the grammar ran out of new sentences after %ld "
                                        "draws", stats->draws);
                return TT_EINVAL;
            }
            continue;
        }
        misses = 0;
        long r = (long)draw_below(rng, (uint32_t)left);
        int s = 0;
        while (r >= remaining[s]) {
            r -= remaining[s++];
            assert(s < N_SPLITS); /* r < left, the sum of remaining[] */
        }
        int rc = write_pair(files[s], pair.en, pair.de, names[s], err, errlen);
        if (rc != TT_OK)
            return rc;
        remaining[s]--;
        left--;
        stats->pairs[type]++;
    }
    return TT_OK;
}

int corpus_write(const char *dir, uint64_t seed, int n_train, int n_valid, int n_test,
                 CorpusStats *stats, char *err, size_t errlen)
{
    char path[N_SPLITS][CORPUS_PATH_MAX], tmp[N_SPLITS][CORPUS_PATH_MAX];
    const char *const tmp_names[N_SPLITS] = {tmp[0], tmp[1], tmp[2]};
    FILE *files[N_SPLITS] = {NULL, NULL, NULL};
    int created[N_SPLITS] = {0, 0, 0}; /* tmp[s] exists and must go on failure */
    CoreSet seen = {NULL, 0};
    CorpusStats local;
    Rng rng;
    int remaining[N_SPLITS] = {n_train - 1, n_valid, n_test}; /* lines still owed */
    int rc = TT_OK;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (err && errlen)
        err[0] = '\0';
    if (!dir || n_train < 1 || n_valid < 0 || n_test < 0 ||
        (long)n_train + n_valid + n_test > CORPUS_MAX_PAIRS) {
        corpus_err(err, errlen, "corpus sizes out of range: train %d (at least 1), valid %d, "
                                "test %d, at most %d in all", n_train, n_valid, n_test,
                   CORPUS_MAX_PAIRS);
        return TT_EINVAL;
    }
    for (int s = 0; s < N_SPLITS; s++) {
        int a = snprintf(path[s], sizeof path[s], "%s/%s", dir, SPLIT_FILES[s]);
        int b = snprintf(tmp[s], sizeof tmp[s], "%s/%s.tmp", dir, SPLIT_FILES[s]);
        if (a < 0 || b < 0 || (size_t)b >= sizeof tmp[s]) {
            corpus_err(err, errlen, "output directory path too long: '%.64s...'", dir);
            return TT_EINVAL;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        corpus_err(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
        return TT_EIO;
    }
    if ((rc = coreset_init(&seen, (size_t)n_train + n_valid + n_test)) != TT_OK) {
        corpus_err(err, errlen, "out of memory for the set of %d sentences",
                   n_train + n_valid + n_test);
        goto done;
    }
    for (int s = 0; s < N_SPLITS; s++) {
        files[s] = fopen(tmp[s], "w");
        if (!files[s]) {
            corpus_err(err, errlen, "cannot create '%s': %s", tmp[s], strerror(errno));
            rc = TT_EIO;
            goto done;
        }
        created[s] = 1;
    }

    /* The seed pair comes first, and its core is taken before any draw, so no split can
     * hold "This is an example" in another form. */
    coreset_insert(&seen, core_key(&SEED_PAIR));
    if ((rc = write_pair(files[SPLIT_TRAIN], SEED_PAIR.en, SEED_PAIR.de, tmp[SPLIT_TRAIN],
                         err, errlen)) != TT_OK)
        goto done;
    stats->pairs[CORPUS_THIS_IS]++;

    rng_seed(&rng, seed);
    if ((rc = corpus_draw_all(files, tmp_names, remaining, &seen, &rng, stats, err,
                              errlen)) != TT_OK)
        goto done;

    for (int s = 0; s < N_SPLITS; s++) {
        /* fclose flushes: a full disk shows up here if not before. */
        errno = 0;
        int bad = ferror(files[s]) | fclose(files[s]);
        files[s] = NULL;
        if (bad) {
            corpus_err(err, errlen, "error writing '%s': %s", tmp[s],
                       errno ? strerror(errno) : "write error");
            rc = TT_EIO;
            goto done;
        }
    }
    for (int s = 0; s < N_SPLITS; s++) {
        if (rename(tmp[s], path[s]) != 0) {
            corpus_err(err, errlen, "cannot rename '%s' to '%s': %s", tmp[s], path[s],
                       strerror(errno));
            rc = TT_EIO;
            goto done;
        }
        created[s] = 0;
    }

done:
    for (int s = N_SPLITS - 1; s >= 0; s--) {
        if (files[s])
            fclose(files[s]);
        if (created[s])
            remove(tmp[s]);
    }
    coreset_free(&seen);
    if (rc != TT_OK)
        memset(stats, 0, sizeof *stats);
    return rc;
}
