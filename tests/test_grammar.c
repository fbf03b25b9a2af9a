/*
 * test_grammar.c — an independent grammar checker for the English→German corpus.
 *
 * docs/corpus.md specifies a small grammar and src/corpus.c generates sentences from it.
 * This file re-derives the grammar from the specification alone (it never looks at the
 * generator) and checks every pair the generator writes to data/{train,valid,test}.tsv:
 *
 *   1. each side is tokenised and every word is looked up in this file's own lexicon,
 *      which also checks capitals (first word, German nouns, lower-case pronouns);
 *   2. each side is parsed by its own recursive-descent parser into one
 *      language-neutral Sentence (type, subject, verb, negation, noun phrase,
 *      adjectives, punctuation); the German parser checks article, adjective ending
 *      and verb agreement (gender, number, case, person), kein/nicht and the place of
 *      "nicht"; the English parser checks a/an, plural forms, is/are/am, do/does and
 *      the 3rd-person -s;
 *   3. each Sentence is checked against the specification's restrictions: which
 *      determiners each sentence type takes, which subjects and objects each verb takes,
 *      two different adjectives, "not" with one adjective only;
 *   4. the two Sentences must be equal, so the German says what the English says.
 *
 * Two hand-written tables prove the checker has teeth: correct pairs for every
 * sentence type and determiner, which it must accept, and wrong pairs, which it must
 * reject for the stated reason. Because the spec makes the translation unique, every
 * one-word change of a correct pair (another form from the lexicon, a flipped capital,
 * a deleted, swapped or inserted word, other punctuation) must be rejected too; that
 * test tries about 90,000 variants. Every German word form in this file was written
 * from the tables of docs/corpus.md.
 *
 * The data test is run from the repository root (`make test`) and reads the data files
 * there; `make corpus` writes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <utf8proc.h>

/* ---------------------------------------------------------------------------------------
 * Lexicon: one table per word class, English and German side by side as in the spec.
 * ------------------------------------------------------------------------------------- */

/* Grammatical persons, in the order of the spec's conjugation tables. */
typedef enum { P_1SG, P_2SG, P_3SG, P_1PL, P_3PL, PERSONS } Person;
#define PBIT(p) (1u << (p))
#define PERSONS_BASE (PBIT(P_1SG) | PBIT(P_2SG) | PBIT(P_1PL) | PBIT(P_3PL))

/* The column of the article and ending tables: a singular noun's gender, or plural. */
typedef enum { S_MASC, S_FEM, S_NEUT, S_PLURAL, SLOTS } Slot;

typedef enum { CASE_NOM, CASE_ACC, CASES } Case;

typedef enum { CLASS_THING, CLASS_ANIMAL, CLASS_PERSON } NounClass;

/* Objects of the verbs whose objects are restricted (read/write, eat, buy). */
enum { USE_READ = 1, USE_EAT = 2, USE_BUY = 4 };

typedef struct {
    const char *en_sg, *en_pl; /* English; en_pl NULL for a singular-only noun */
    const char *de_sg, *de_pl; /* German, nominative = accusative; de_pl NULL likewise */
    Slot gender;               /* S_MASC, S_FEM or S_NEUT */
    NounClass cls;             /* subjects of transitive verbs are persons or animals */
    unsigned uses;             /* USE_* bits: the restricted verbs that take it */
} Noun;

static const Noun NOUNS[] = {
    {"example", "examples", "Beispiel", "Beispiele", S_NEUT, CLASS_THING, 0},
    {"house", "houses", "Haus", "Häuser", S_NEUT, CLASS_THING, USE_BUY},
    {"dog", "dogs", "Hund", "Hunde", S_MASC, CLASS_ANIMAL, USE_BUY},
    {"cat", "cats", "Katze", "Katzen", S_FEM, CLASS_ANIMAL, USE_BUY},
    {"book", "books", "Buch", "Bücher", S_NEUT, CLASS_THING, USE_READ | USE_BUY},
    {"man", "men", "Mann", "Männer", S_MASC, CLASS_PERSON, 0},
    {"woman", "women", "Frau", "Frauen", S_FEM, CLASS_PERSON, 0},
    {"child", "children", "Kind", "Kinder", S_NEUT, CLASS_PERSON, 0},
    {"girl", "girls", "Mädchen", "Mädchen", S_NEUT, CLASS_PERSON, 0},
    {"car", "cars", "Auto", "Autos", S_NEUT, CLASS_THING, USE_BUY},
    {"apple", "apples", "Apfel", "Äpfel", S_MASC, CLASS_THING, USE_EAT | USE_BUY},
    {"table", "tables", "Tisch", "Tische", S_MASC, CLASS_THING, USE_BUY},
    {"teacher", "teachers", "Lehrer", "Lehrer", S_MASC, CLASS_PERSON, 0},
    {"city", "cities", "Stadt", "Städte", S_FEM, CLASS_THING, 0},
    {"tree", "trees", "Baum", "Bäume", S_MASC, CLASS_THING, USE_BUY},
    {"letter", "letters", "Brief", "Briefe", S_MASC, CLASS_THING, USE_READ | USE_BUY},
    {"garden", "gardens", "Garten", "Gärten", S_MASC, CLASS_THING, USE_BUY},
    {"school", "schools", "Schule", "Schulen", S_FEM, CLASS_THING, 0},
    {"bread", NULL, "Brot", NULL, S_NEUT, CLASS_THING, USE_EAT | USE_BUY},
    {"friend", "friends", "Freund", "Freunde", S_MASC, CLASS_PERSON, 0},
    {"street", "streets", "Straße", "Straßen", S_FEM, CLASS_THING, 0},
    {"door", "doors", "Tür", "Türen", S_FEM, CLASS_THING, USE_BUY},
};
#define N_NOUNS ((int)(sizeof NOUNS / sizeof NOUNS[0]))

typedef struct {
    const char *en, *de; /* the German is the undeclined (predicate) form */
} Adjective;

static const Adjective ADJECTIVES[] = {
    {"big", "groß"}, {"small", "klein"}, {"old", "alt"},        {"new", "neu"},
    {"good", "gut"}, {"red", "rot"},     {"beautiful", "schön"}, {"young", "jung"},
};
#define N_ADJECTIVES ((int)(sizeof ADJECTIVES / sizeof ADJECTIVES[0]))

typedef struct {
    const char *en, *de;
    Person person;
} Pronoun;

static const Pronoun PRONOUNS[] = {
    {"I", "ich", P_1SG},  {"you", "du", P_2SG}, {"he", "er", P_3SG},   {"she", "sie", P_3SG},
    {"it", "es", P_3SG}, {"we", "wir", P_1PL}, {"they", "sie", P_3PL},
};
#define N_PRONOUNS ((int)(sizeof PRONOUNS / sizeof PRONOUNS[0]))
enum { PRON_IT = 4 };

typedef struct {
    const char *en_base, *en_3sg;
    const char *de[PERSONS]; /* ich, du, er/sie/es, wir, sie */
    unsigned needs;          /* 0: any object; else the USE_* bit its object must have */
    int person_subject;      /* 1: the subject is a person or a pronoun other than "it" */
} Verb;

static const Verb VERBS[] = {
    {"see", "sees", {"sehe", "siehst", "sieht", "sehen", "sehen"}, 0, 0},
    {"have", "has", {"habe", "hast", "hat", "haben", "haben"}, 0, 0},
    {"read", "reads", {"lese", "liest", "liest", "lesen", "lesen"}, USE_READ, 1},
    {"write", "writes", {"schreibe", "schreibst", "schreibt", "schreiben", "schreiben"},
     USE_READ, 1},
    {"buy", "buys", {"kaufe", "kaufst", "kauft", "kaufen", "kaufen"}, USE_BUY, 0},
    {"eat", "eats", {"esse", "isst", "isst", "essen", "essen"}, USE_EAT, 0},
    {"find", "finds", {"finde", "findest", "findet", "finden", "finden"}, 0, 0},
    {"need", "needs", {"brauche", "brauchst", "braucht", "brauchen", "brauchen"}, 0, 0},
    {"love", "loves", {"liebe", "liebst", "liebt", "lieben", "lieben"}, 0, 0},
};
#define N_VERBS ((int)(sizeof VERBS / sizeof VERBS[0]))

static const char *const EN_BE[PERSONS] = {"am", "are", "is", "are", "are"};
static const char *const DE_BE[PERSONS] = {"bin", "bist", "ist", "sind", "sind"};

/* Determiners as the English names them; German kein is DET_A or DET_NONE + negation. */
typedef enum { DET_NONE, DET_THE, DET_THIS, DET_A, DET_MY, DET_YOUR, DETS } Det;
#define DBIT(d) (1u << (d))

/* German determiner classes: each inflected form belongs to exactly one. */
typedef enum { DE_NONE, DE_DEF, DE_DIES, DE_EIN, DE_KEIN, DE_MEIN, DE_DEIN, DE_CLASSES } DeDet;

/* Article forms [class][case][slot]; NULL where the combination does not exist. */
static const char *const DE_ARTICLE[DE_CLASSES][CASES][SLOTS] = {
    [DE_NONE] = {{NULL, NULL, NULL, ""}, {NULL, NULL, NULL, ""}},
    [DE_DEF] = {{"der", "die", "das", "die"}, {"den", "die", "das", "die"}},
    [DE_DIES] = {{"dieser", "diese", "dieses", "diese"}, {"diesen", "diese", "dieses", "diese"}},
    [DE_EIN] = {{"ein", "eine", "ein", NULL}, {"einen", "eine", "ein", NULL}},
    [DE_KEIN] = {{"kein", "keine", "kein", "keine"}, {"keinen", "keine", "kein", "keine"}},
    [DE_MEIN] = {{"mein", "meine", "mein", "meine"}, {"meinen", "meine", "mein", "meine"}},
    [DE_DEIN] = {{"dein", "deine", "dein", "deine"}, {"deinen", "deine", "dein", "deine"}},
};

typedef enum { DECL_WEAK, DECL_MIXED, DECL_STRONG } Decl;

/* Declension after each class: der/dieser weak; ein/kein/mein/dein mixed (whose plural
 * -en equals the weak plural); no determiner strong (plural only). */
static const Decl DE_DECL[DE_CLASSES] = {
    [DE_NONE] = DECL_STRONG, [DE_DEF] = DECL_WEAK,  [DE_DIES] = DECL_WEAK,
    [DE_EIN] = DECL_MIXED,   [DE_KEIN] = DECL_MIXED, [DE_MEIN] = DECL_MIXED,
    [DE_DEIN] = DECL_MIXED,
};

/* Adjective endings [declension][case][slot]; NULL where no noun phrase exists. */
static const char *const DE_ENDING[3][CASES][SLOTS] = {
    [DECL_WEAK] = {{"e", "e", "e", "en"}, {"en", "e", "e", "en"}},
    [DECL_MIXED] = {{"er", "e", "es", "en"}, {"en", "e", "es", "en"}},
    [DECL_STRONG] = {{NULL, NULL, NULL, "e"}, {NULL, NULL, NULL, "e"}},
};

static const char *const DE_ENDINGS[] = {"", "e", "en", "er", "es"};

static const char *const SLOT_NAMES[SLOTS] = {"masculine singular", "feminine singular",
                                              "neuter singular", "plural"};
static const char *const CASE_NAMES[CASES] = {"nominative", "accusative"};
static const char *const PERSON_NAMES[PERSONS] = {
    "1st person singular", "2nd person singular", "3rd person singular", "1st person plural",
    "3rd person plural"};

/* ---------------------------------------------------------------------------------------
 * The language-neutral parse of one sentence.
 * ------------------------------------------------------------------------------------- */

typedef enum {
    ST_THIS,          /* This is NP / These are NP          — docs type 1 */
    ST_PREDICATE,     /* SUBJ be [not] [very] ADJ [and ADJ] — docs type 2 */
    ST_TRANSITIVE,    /* SUBJ VERB OBJ, do/does not          — docs type 3 */
    ST_QUESTION_THIS, /* Is this NP? / Are these NPs?        — docs type 4 */
    ST_QUESTION_ADJ,  /* Is/Are/Am SUBJ [very] ADJ?          — docs type 4 */
    ST_COUNT
} SentType;

static const char *const ST_NAMES[ST_COUNT] = {"this-is", "predicate", "transitive",
                                               "question-this", "question-adjective"};
static const int ST_DOC_TYPE[ST_COUNT] = {1, 2, 3, 4, 4};
enum { DOC_TYPES = 4 };
static const char *const DOC_TYPE_NAMES[DOC_TYPES + 1] = {"", "1 (This is)", "2 (Predicate)",
                                                          "3 (Transitive)", "4 (Questions)"};

typedef struct {
    Det det;    /* as in English; German kein is DET_A (singular) or DET_NONE (plural) */
    int plural; /* 0 or 1 */
    int very;   /* 1 when "very"/"sehr" precedes the adjective */
    int adj;    /* index into ADJECTIVES, or -1 */
    int noun;   /* index into NOUNS, or -1 when there is no noun phrase */
} Np;

typedef struct {
    SentType type;
    char punct; /* '.', '?' or 0 */
    int pron;   /* subject pronoun: index into PRONOUNS, or -1 when the subject is subj */
    Np subj;    /* subject noun phrase (ST_PREDICATE, ST_TRANSITIVE, ST_QUESTION_ADJ) */
    int verb;   /* index into VERBS for ST_TRANSITIVE, -1 for "be" */
    int neg;    /* 1 when negated (not, nicht, kein) */
    Np np;      /* object (ST_TRANSITIVE) or predicate noun (ST_THIS, ST_QUESTION_THIS) */
    int very;   /* "very" before the predicate adjective */
    int adj;    /* predicate adjective, or -1 */
    int adj2;   /* second predicate adjective after "and", or -1 */
} Sentence;

static void np_clear(Np *np)
{
    np->det = DET_NONE;
    np->plural = 0;
    np->very = 0;
    np->adj = -1;
    np->noun = -1;
}

static void sentence_clear(Sentence *s, char punct)
{
    s->type = ST_COUNT;
    s->punct = punct;
    s->pron = -1;
    np_clear(&s->subj);
    s->verb = -1;
    s->neg = 0;
    np_clear(&s->np);
    s->very = 0;
    s->adj = -1;
    s->adj2 = -1;
}

/* ---------------------------------------------------------------------------------------
 * Reasons: every check that fails writes one sentence into a caller's buffer.
 * ------------------------------------------------------------------------------------- */

enum { WHY_LEN = 400, REASON_LEN = WHY_LEN + 64 };

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void why_format(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, WHY_LEN, fmt, ap);
    va_end(ap);
}

/* Formats the reason into why (WHY_LEN bytes) and is -1, every parser's failure return. A
 * macro so that the static analyzer, which does not follow variadic calls, sees the -1. */
#define why_set(...) (why_format(__VA_ARGS__), -1)

/* ---------------------------------------------------------------------------------------
 * Tokens and words.
 * ------------------------------------------------------------------------------------- */

enum { MAX_TOKENS = 24, MAX_WORD = 40 };

typedef enum {
    W_DET,  /* idx: Det (English) or DeDet (German); numbers; is_an */
    W_VERY, /* very, sehr */
    W_AND,  /* and, und */
    W_NOT,  /* not, nicht */
    W_ADJ,  /* idx: ADJECTIVES; ending (German) */
    W_NOUN, /* idx: NOUNS; numbers */
    W_PRON, /* persons; idx: PRONOUNS (English only; German sie is two pronouns) */
    W_VERB, /* idx: VERBS; persons */
    W_BE,   /* persons */
    W_DO    /* persons (English do/does) */
} WordKind;

typedef struct {
    WordKind kind;
    int idx;            /* table index, see WordKind */
    unsigned persons;   /* PBIT(p) for each person the form fits */
    unsigned numbers;   /* bit 0 singular, bit 1 plural */
    int is_an;          /* English "an" */
    const char *ending; /* German adjective: the ending, pointing into the token */
} Word;

typedef struct {
    int n;                            /* words, the final punctuation not counted; >= 1 */
    char punct;                       /* '.', '?' or 0 */
    char raw[MAX_TOKENS][MAX_WORD];   /* as written */
    char canon[MAX_TOKENS][MAX_WORD]; /* with a sentence-initial capital undone */
    Word w[MAX_TOKENS];               /* canon looked up */
} Tokens;

/* Splits s on single spaces and detaches one final '.' or '?'. */
static int tokenize(const char *s, Tokens *t, char *why)
{
    size_t len = strlen(s);
    t->n = 0;
    t->punct = 0;
    if (len > 0 && (s[len - 1] == '.' || s[len - 1] == '?'))
        t->punct = s[--len];
    size_t i = 0;
    for (;;) {
        size_t j = i;
        while (j < len && s[j] != ' ')
            j++;
        if (j == i)
            return why_set(why, "empty word at byte %zu (a leading, trailing or double space, "
                                "or no words)", i);
        if (t->n == MAX_TOKENS)
            return why_set(why, "more than %d words", MAX_TOKENS);
        if (j - i >= MAX_WORD)
            return why_set(why, "word at byte %zu is longer than %d bytes", i, MAX_WORD - 1);
        memcpy(t->raw[t->n], s + i, j - i);
        t->raw[t->n][j - i] = '\0';
        t->n++;
        if (j == len)
            return 0;
        i = j + 1;
    }
}

/* Copies word into out (MAX_WORD bytes) with its first letter upper- or lower-cased. */
static int first_letter_case(const char *word, int upper, char *out)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)word, -1, &cp);
    if (n <= 0)
        return -1;
    utf8proc_uint8_t enc[4];
    utf8proc_ssize_t m = utf8proc_encode_char(upper ? utf8proc_toupper(cp) : utf8proc_tolower(cp),
                                              enc);
    size_t rest = strlen(word + n);
    if (m <= 0 || (size_t)m + rest + 1 > MAX_WORD)
        return -1;
    memcpy(out, enc, (size_t)m);
    memcpy(out + m, word + n, rest + 1);
    return 0;
}

/* 1 when the first character of word is a capital letter. */
static int starts_upper(const char *word)
{
    utf8proc_int32_t cp;
    if (utf8proc_iterate((const utf8proc_uint8_t *)word, -1, &cp) <= 0)
        return 0;
    return utf8proc_tolower(cp) != cp;
}

static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Looks up one English word (canonical spelling); 1 when known. */
static int en_lookup(const char *s, Word *w)
{
    static const struct {
        const char *s;
        Det det;
        unsigned numbers;
        int is_an;
    } DETERMINERS[] = {
        {"the", DET_THE, 3, 0}, {"this", DET_THIS, 1, 0}, {"these", DET_THIS, 2, 0},
        {"a", DET_A, 1, 0},     {"an", DET_A, 1, 1},      {"my", DET_MY, 3, 0},
        {"your", DET_YOUR, 3, 0},
    };
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < sizeof DETERMINERS / sizeof DETERMINERS[0]; i++)
        if (streq(s, DETERMINERS[i].s)) {
            w->kind = W_DET;
            w->idx = (int)DETERMINERS[i].det;
            w->numbers = DETERMINERS[i].numbers;
            w->is_an = DETERMINERS[i].is_an;
            return 1;
        }
    if (streq(s, "very") || streq(s, "and") || streq(s, "not")) {
        w->kind = s[0] == 'v' ? W_VERY : s[0] == 'a' ? W_AND : W_NOT;
        return 1;
    }
    if (streq(s, "do") || streq(s, "does")) {
        w->kind = W_DO;
        w->persons = streq(s, "do") ? PERSONS_BASE : PBIT(P_3SG);
        return 1;
    }
    for (int p = 0; p < PERSONS; p++)
        if (streq(s, EN_BE[p])) {
            w->kind = W_BE;
            w->persons |= PBIT(p);
        }
    if (w->persons)
        return 1;
    for (int i = 0; i < N_PRONOUNS; i++)
        if (streq(s, PRONOUNS[i].en)) {
            w->kind = W_PRON;
            w->idx = i;
            w->persons = PBIT(PRONOUNS[i].person);
            return 1;
        }
    for (int i = 0; i < N_VERBS; i++)
        if (streq(s, VERBS[i].en_base) || streq(s, VERBS[i].en_3sg)) {
            w->kind = W_VERB;
            w->idx = i;
            w->persons = streq(s, VERBS[i].en_base) ? PERSONS_BASE : PBIT(P_3SG);
            return 1;
        }
    for (int i = 0; i < N_ADJECTIVES; i++)
        if (streq(s, ADJECTIVES[i].en)) {
            w->kind = W_ADJ;
            w->idx = i;
            return 1;
        }
    for (int i = 0; i < N_NOUNS; i++)
        if (streq(s, NOUNS[i].en_sg) || streq(s, NOUNS[i].en_pl)) {
            w->kind = W_NOUN;
            w->idx = i;
            w->numbers = streq(s, NOUNS[i].en_sg) ? 1u : 2u;
            return 1;
        }
    return 0;
}

/* Looks up one German word (canonical spelling: nouns capitalised, the rest lower case). */
static int de_lookup(const char *s, Word *w)
{
    memset(w, 0, sizeof *w);
    for (int i = 0; i < N_NOUNS; i++) {
        unsigned numbers = (streq(s, NOUNS[i].de_sg) ? 1u : 0u) | (streq(s, NOUNS[i].de_pl) ? 2u : 0u);
        if (numbers) {
            w->kind = W_NOUN;
            w->idx = i;
            w->numbers = numbers;
            return 1;
        }
    }
    for (int c = DE_DEF; c < DE_CLASSES; c++)
        for (int k = 0; k < CASES; k++)
            for (int g = 0; g < SLOTS; g++)
                if (streq(s, DE_ARTICLE[c][k][g])) {
                    w->kind = W_DET;
                    w->idx = c;
                    return 1;
                }
    if (streq(s, "sehr") || streq(s, "und") || streq(s, "nicht")) {
        w->kind = s[0] == 's' ? W_VERY : s[0] == 'u' ? W_AND : W_NOT;
        return 1;
    }
    for (int i = 0; i < N_PRONOUNS; i++)
        if (streq(s, PRONOUNS[i].de)) {
            w->kind = W_PRON;
            w->persons |= PBIT(PRONOUNS[i].person);
        }
    if (w->persons)
        return 1;
    for (int p = 0; p < PERSONS; p++)
        if (streq(s, DE_BE[p])) {
            w->kind = W_BE;
            w->persons |= PBIT(p);
        }
    if (w->persons)
        return 1;
    for (int i = 0; i < N_VERBS; i++) {
        for (int p = 0; p < PERSONS; p++)
            if (streq(s, VERBS[i].de[p]))
                w->persons |= PBIT(p);
        if (w->persons) {
            w->kind = W_VERB;
            w->idx = i;
            return 1;
        }
    }
    for (int i = 0; i < N_ADJECTIVES; i++) {
        size_t n = strlen(ADJECTIVES[i].de);
        if (strncmp(s, ADJECTIVES[i].de, n) != 0)
            continue;
        for (size_t e = 0; e < sizeof DE_ENDINGS / sizeof DE_ENDINGS[0]; e++)
            if (streq(s + n, DE_ENDINGS[e])) {
                w->kind = W_ADJ;
                w->idx = i;
                w->ending = DE_ENDINGS[e];
                return 1;
            }
    }
    return 0;
}

/* Looks up every English word; the first is capitalised, the rest lower case but "I". */
static int en_words(Tokens *t, char *why)
{
    for (int i = 0; i < t->n; i++) {
        const char *raw = t->raw[i];
        char *canon = t->canon[i];
        memcpy(canon, raw, MAX_WORD);
        if (streq(raw, "i"))
            return why_set(why, "'i' must be written 'I'");
        if (!streq(raw, "I")) {
            if (i == 0 && !starts_upper(raw))
                return why_set(why, "the first word '%s' must be capitalised", raw);
            if (i > 0 && starts_upper(raw))
                return why_set(why, "'%s' must be lower case here", raw);
            if (i == 0 && first_letter_case(raw, 0, canon) != 0)
                return why_set(why, "'%s' is not valid UTF-8", raw);
        }
        if (!en_lookup(canon, &t->w[i]))
            return why_set(why, "unknown English word '%s'", raw);
    }
    return 0;
}

/* Looks up every German word; nouns are capitalised everywhere, the first word is
 * capitalised, every other word is lower case. */
static int de_words(Tokens *t, char *why)
{
    char other[MAX_WORD];
    for (int i = 0; i < t->n; i++) {
        const char *raw = t->raw[i];
        char *canon = t->canon[i];
        Word *w = &t->w[i];
        memcpy(canon, raw, MAX_WORD);
        if (de_lookup(raw, w) && w->kind == W_NOUN)
            continue;
        if (i == 0) {
            if (!starts_upper(raw))
                return why_set(why, "the first word '%s' must be capitalised", raw);
            if (first_letter_case(raw, 0, canon) != 0 || !de_lookup(canon, w) ||
                w->kind == W_NOUN)
                return why_set(why, "unknown German word '%s'", raw);
            continue;
        }
        if (de_lookup(raw, w))
            continue;
        if (first_letter_case(raw, 1, other) == 0 && de_lookup(other, w) && w->kind == W_NOUN)
            return why_set(why, "the noun '%s' must be capitalised: '%s'", raw, other);
        if (first_letter_case(raw, 0, other) == 0 && de_lookup(other, w) && w->kind != W_NOUN)
            return why_set(why, "'%s' must be lower case here: '%s'", raw, other);
        return why_set(why, "unknown German word '%s'", raw);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Parser state shared by both languages.
 * ------------------------------------------------------------------------------------- */

typedef struct {
    const Tokens *t;
    int pos;   /* next word */
    char *why; /* WHY_LEN bytes */
} Parser;

static const Word *peek(const Parser *p)
{
    return p->pos < p->t->n ? &p->t->w[p->pos] : NULL;
}

static int at(const Parser *p, WordKind kind)
{
    const Word *w = peek(p);
    return w != NULL && w->kind == kind;
}

/* The word at the cursor as written, for messages. */
static const char *cur(const Parser *p)
{
    return p->pos < p->t->n ? p->t->raw[p->pos] : "the end of the sentence";
}

/* Words a..b (inclusive) as written, joined by spaces, into out (WHY_LEN bytes). */
static const char *span(const Tokens *t, int a, int b, char *out)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = a; i <= b && i < t->n; i++) {
        int n = snprintf(out + used, WHY_LEN - used, "%s%s", i > a ? " " : "", t->raw[i]);
        if (n < 0 || (size_t)n >= WHY_LEN - used)
            break;
        used += (size_t)n;
    }
    return out;
}

static int at_end(const Parser *p, const char *after)
{
    if (p->pos == p->t->n)
        return 0;
    return why_set(p->why, "unexpected '%s' after %s", cur(p), after);
}

/* "X" or "X' or 'Y": every form of a conjugation table that fits the persons in mask. */
static const char *forms_for(const char *const forms[PERSONS], unsigned mask, char *out)
{
    size_t used = 0;
    out[0] = '\0';
    for (int p = 0; p < PERSONS; p++) {
        if (!(mask & PBIT(p)))
            continue;
        int dup = 0;
        for (int q = 0; q < p; q++)
            dup |= (mask & PBIT(q)) && streq(forms[q], forms[p]);
        if (dup)
            continue;
        int n = snprintf(out + used, WHY_LEN - used, "%s%s", used ? "' or '" : "", forms[p]);
        if (n < 0 || (size_t)n >= WHY_LEN - used)
            break;
        used += (size_t)n;
    }
    return out;
}

static const char *persons_name(unsigned mask, char *out)
{
    size_t used = 0;
    out[0] = '\0';
    for (int p = 0; p < PERSONS; p++)
        if (mask & PBIT(p)) {
            int n = snprintf(out + used, WHY_LEN - used, "%s%s", used ? " or " : "",
                             PERSON_NAMES[p]);
            if (n < 0 || (size_t)n >= WHY_LEN - used)
                break;
            used += (size_t)n;
        }
    return out;
}

/* The single person in mask (the caller has checked there is exactly one). */
static Person person_of(unsigned mask)
{
    for (int p = 0; p < PERSONS; p++)
        if (mask == PBIT(p))
            return (Person)p;
    return PERSONS;
}

/* A subject as parsed: a pronoun or a noun phrase, and the persons it can be. */
typedef struct {
    int tok;          /* first word */
    int last;         /* last word */
    int is_pron;      /* 1 for a pronoun */
    unsigned persons; /* PBIT(p) for each person the subject can be */
    Np np;            /* when !is_pron */
} Subject;

/* Checks that the verb form at word index v agrees with the subject; the conjugation
 * table of the verb (German or English, be or a lexical verb) is forms. *person_out
 * receives PBIT of the one person both fit (German sie: she or they). */
static int agree(const Parser *p, const Subject *sj, int v, const char *const forms[PERSONS],
                 unsigned *person_out)
{
    const Word *w = &p->t->w[v];
    unsigned both = sj->persons & w->persons;
    if (both == 0 || person_of(both) == PERSONS) {
        char subj[WHY_LEN], want[WHY_LEN], pers[WHY_LEN];
        return why_set(p->why, "the verb '%s' does not agree with the subject '%s' (%s): "
                               "expected '%s'", p->t->raw[v], span(p->t, sj->tok, sj->last, subj),
                       persons_name(sj->persons, pers), forms_for(forms, sj->persons, want));
    }
    *person_out = both;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * German.
 * ------------------------------------------------------------------------------------- */

typedef struct {
    DeDet cls;  /* determiner class, DE_NONE for a bare plural */
    int plural; /* resolved by the article and the noun's form */
    int very, adj, noun;
    int first, last; /* word range, for messages */
} DeNp;

/* The neutral noun phrase of a German one; kein becomes a/an or no determiner. */
static Np de_np_neutral(const DeNp *d)
{
    static const Det TO_DET[DE_CLASSES] = {
        [DE_NONE] = DET_NONE, [DE_DEF] = DET_THE, [DE_DIES] = DET_THIS, [DE_EIN] = DET_A,
        [DE_KEIN] = DET_A,    [DE_MEIN] = DET_MY, [DE_DEIN] = DET_YOUR,
    };
    Np np;
    np.det = d->cls == DE_KEIN && d->plural ? DET_NONE : TO_DET[d->cls];
    np.plural = d->plural;
    np.very = d->very;
    np.adj = d->adj;
    np.noun = d->noun;
    return np;
}

/* Parses `[determiner] [[sehr] adjective] noun` in case k and checks that the article
 * and the adjective ending agree with the noun's gender and number. kein is accepted
 * only when allow_kein. */
static int de_np(Parser *p, Case k, int allow_kein, DeNp *np)
{
    const Tokens *t = p->t;
    char text[WHY_LEN];
    const char *det = "";
    const char *ending = NULL;
    np->first = p->pos;
    np->cls = DE_NONE;
    np->very = 0;
    np->adj = -1;
    if (at(p, W_DET)) {
        np->cls = (DeDet)peek(p)->idx;
        det = t->canon[p->pos];
        p->pos++;
    }
    if (np->cls == DE_KEIN && !allow_kein)
        return why_set(p->why, "'%s' is not allowed here: kein only negates the noun phrase "
                               "of 'Das ist/sind' and objects", t->raw[np->first]);
    if (at(p, W_VERY)) {
        np->very = 1;
        p->pos++;
        if (!at(p, W_ADJ))
            return why_set(p->why, "'sehr' must be followed by an adjective, not '%s'", cur(p));
    }
    if (at(p, W_ADJ)) {
        np->adj = peek(p)->idx;
        ending = peek(p)->ending;
        p->pos++;
    }
    if (!at(p, W_NOUN))
        return why_set(p->why, "expected a noun, found '%s'", cur(p));
    np->noun = peek(p)->idx;
    unsigned numbers = peek(p)->numbers;
    np->last = p->pos;
    p->pos++;

    /* Try each number the noun's form allows; exactly one must fit article and ending. */
    const Noun *noun = &NOUNS[np->noun];
    unsigned fits = 0;
    for (int num = 0; num < 2; num++) {
        if (!(numbers & (1u << num)))
            continue;
        Slot g = num ? S_PLURAL : noun->gender;
        const char *want_det = DE_ARTICLE[np->cls][k][g];
        const char *want_end = DE_ENDING[DE_DECL[np->cls]][k][g];
        if (streq(det, want_det) && (np->adj < 0 || streq(ending, want_end)))
            fits |= 1u << num;
    }
    if (fits == 1 || fits == 2) {
        np->plural = fits == 2;
        return 0;
    }
    span(t, np->first, np->last, text);
    if (fits == 3)
        return why_set(p->why, "'%s' is ambiguous between singular and plural", text);

    /* Explain with the number the article points to (Mädchen, Lehrer are both). */
    int num = numbers == 2 ? 1 : 0;
    if (numbers == 3 && streq(det, DE_ARTICLE[np->cls][k][S_PLURAL]))
        num = 1;
    Slot g = num ? S_PLURAL : noun->gender;
    const char *want_det = DE_ARTICLE[np->cls][k][g];
    const char *noun_raw = t->raw[np->last];
    if (want_det == NULL && np->cls == DE_NONE)
        return why_set(p->why, "the singular noun '%s' needs a determiner", noun_raw);
    if (want_det == NULL)
        return why_set(p->why, "'%s' cannot go with the plural '%s'", t->raw[np->first],
                       noun_raw);
    if (!streq(det, want_det))
        return why_set(p->why, "the article '%s' does not agree with '%s' (%s %s): "
                               "expected '%s'", t->raw[np->first], noun_raw, SLOT_NAMES[g],
                       CASE_NAMES[k], want_det);
    char want_adj[WHY_LEN];
    snprintf(want_adj, sizeof want_adj, "%s%s", ADJECTIVES[np->adj].de,
             DE_ENDING[DE_DECL[np->cls]][k][g]);
    return why_set(p->why, "the adjective in '%s' does not agree (%s %s after %s): "
                           "expected '%s'", text, SLOT_NAMES[g], CASE_NAMES[k],
                   np->cls == DE_NONE ? "no determiner" : det, want_adj);
}

/* Parses a pronoun or a nominative noun phrase as subject. */
static int de_subject(Parser *p, Subject *sj, DeNp *np)
{
    sj->tok = p->pos;
    if (at(p, W_PRON)) {
        sj->is_pron = 1;
        sj->persons = peek(p)->persons;
        sj->last = p->pos;
        p->pos++;
        return 0;
    }
    if (!(at(p, W_DET) || at(p, W_VERY) || at(p, W_ADJ) || at(p, W_NOUN)))
        return why_set(p->why, "expected a subject, found '%s'", cur(p));
    sj->is_pron = 0;
    if (de_np(p, CASE_NOM, 0, np) != 0)
        return -1;
    sj->last = np->last;
    sj->persons = np->plural ? PBIT(P_3PL) : PBIT(P_3SG);
    sj->np = de_np_neutral(np);
    return 0;
}

/* Records the subject in s, with German sie resolved by the verb's person. */
static void de_set_subject(const Parser *p, const Subject *sj, unsigned person, Sentence *s)
{
    if (!sj->is_pron) {
        s->subj = sj->np;
        return;
    }
    for (int i = 0; i < N_PRONOUNS; i++)
        if (streq(p->t->canon[sj->tok], PRONOUNS[i].de) && PBIT(PRONOUNS[i].person) == person)
            s->pron = i;
}

/* Checks kein/nicht for a noun phrase; nicht says whether "nicht" goes with it. */
static int de_negation(const Parser *p, int nicht, const DeNp *np, int *neg)
{
    const char *det = p->t->raw[np->first];
    *neg = nicht || np->cls == DE_KEIN;
    if (!nicht)
        return 0;
    if (np->cls == DE_KEIN)
        return why_set(p->why, "double negation: 'nicht' together with '%s'", det);
    if (np->cls == DE_EIN)
        return why_set(p->why, "'nicht' with '%s': the negation of ein is kein", det);
    if (np->cls == DE_NONE)
        return why_set(p->why, "'nicht' with a bare plural: the negation is keine");
    return 0;
}

/* The predicate after the verb: [nicht] [sehr] ADJ [und ADJ2], adjectives undeclined. */
static int de_predicate(Parser *p, int question, Sentence *s)
{
    if (at(p, W_NOT)) {
        if (question)
            return why_set(p->why, "questions are not negated, found 'nicht'");
        s->neg = 1;
        p->pos++;
    }
    if (at(p, W_VERY)) {
        s->very = 1;
        p->pos++;
    }
    for (int second = 0; second < 2; second++) {
        const Word *w = peek(p);
        if (w == NULL || w->kind != W_ADJ)
            return why_set(p->why, "expected a predicate adjective, found '%s'", cur(p));
        if (w->ending[0] != '\0')
            return why_set(p->why, "the predicate adjective '%s' must not be declined: "
                                   "expected '%s'", cur(p), ADJECTIVES[w->idx].de);
        *(second ? &s->adj2 : &s->adj) = w->idx;
        p->pos++;
        if (second || question || !at(p, W_AND))
            break;
        p->pos++;
        if (at(p, W_VERY))
            return why_set(p->why, "'sehr' only before the first adjective");
    }
    return at_end(p, "the predicate adjective");
}

/* Das ist/sind [nicht] NP */
static int de_parse_this(Parser *p, Sentence *s)
{
    const Tokens *t = p->t;
    const Word *be = &t->w[1];
    char text[WHY_LEN];
    s->type = ST_THIS;
    if (be->persons != PBIT(P_3SG) && !(be->persons & PBIT(P_3PL)))
        return why_set(p->why, "'Das %s' must be 'Das ist' or 'Das sind'", t->raw[1]);
    int plural = be->persons != PBIT(P_3SG);
    p->pos = 2;
    int nicht = at(p, W_NOT);
    p->pos += nicht;
    DeNp np;
    if (de_np(p, CASE_NOM, 1, &np) != 0)
        return -1;
    if (np.plural != plural)
        return why_set(p->why, "'%s' needs a %s noun phrase, found '%s'", t->raw[1],
                       plural ? "plural" : "singular", span(t, np.first, np.last, text));
    if (de_negation(p, nicht, &np, &s->neg) != 0)
        return -1;
    s->np = de_np_neutral(&np);
    return at_end(p, "the noun phrase");
}

/* Ist/Sind das NP? | Ist/Sind/Bin/Bist SUBJ [sehr] ADJ? */
static int de_parse_question(Parser *p, Sentence *s)
{
    const Tokens *t = p->t;
    char text[WHY_LEN];
    if (t->n >= 3 && streq(t->canon[1], "das") && t->w[t->n - 1].kind == W_NOUN) {
        s->type = ST_QUESTION_THIS;
        const Word *be = &t->w[0];
        if (be->persons != PBIT(P_3SG) && !(be->persons & PBIT(P_3PL)))
            return why_set(p->why, "'%s das' must be 'Ist das' or 'Sind das'", t->raw[0]);
        int plural = be->persons != PBIT(P_3SG);
        p->pos = 2;
        DeNp np;
        if (de_np(p, CASE_NOM, 0, &np) != 0)
            return -1;
        if (np.plural != plural)
            return why_set(p->why, "'%s das' needs a %s noun phrase, found '%s'", t->raw[0],
                           plural ? "plural" : "singular", span(t, np.first, np.last, text));
        s->np = de_np_neutral(&np);
        return at_end(p, "the noun phrase");
    }
    s->type = ST_QUESTION_ADJ;
    p->pos = 1;
    Subject sj;
    DeNp np;
    unsigned person;
    if (de_subject(p, &sj, &np) != 0 || agree(p, &sj, 0, DE_BE, &person) != 0)
        return -1;
    de_set_subject(p, &sj, person, s);
    return de_predicate(p, 1, s);
}

/* SUBJ ist ADJ … | SUBJ VERB OBJ [nicht] */
static int de_parse_statement(Parser *p, Sentence *s)
{
    Subject sj;
    DeNp np;
    unsigned person;
    if (de_subject(p, &sj, &np) != 0)
        return -1;
    int v = p->pos;
    if (at(p, W_BE)) {
        s->type = ST_PREDICATE;
        if (agree(p, &sj, v, DE_BE, &person) != 0)
            return -1;
        de_set_subject(p, &sj, person, s);
        p->pos++;
        return de_predicate(p, 0, s);
    }
    if (!at(p, W_VERB))
        return why_set(p->why, "expected a verb after the subject, found '%s'", cur(p));
    s->type = ST_TRANSITIVE;
    s->verb = peek(p)->idx;
    if (agree(p, &sj, v, VERBS[s->verb].de, &person) != 0)
        return -1;
    de_set_subject(p, &sj, person, s);
    p->pos++;
    if (at(p, W_NOT))
        return why_set(p->why, "'nicht' must come at the end of the sentence, after the "
                               "object, not before it");
    DeNp obj;
    if (de_np(p, CASE_ACC, 1, &obj) != 0)
        return -1;
    int nicht = at(p, W_NOT);
    p->pos += nicht;
    if (de_negation(p, nicht, &obj, &s->neg) != 0)
        return -1;
    s->np = de_np_neutral(&obj);
    return at_end(p, nicht ? "the final 'nicht'" : "the object");
}

/* Parses German words into s, checking agreement on the way. */
static int de_parse(const Tokens *t, Sentence *s, char *why)
{
    Parser p = {t, 0, why};
    sentence_clear(s, t->punct);
    if (t->n >= 2 && t->w[0].kind == W_DET && streq(t->canon[0], "das") && t->w[1].kind == W_BE)
        return de_parse_this(&p, s);
    if (t->w[0].kind == W_BE)
        return de_parse_question(&p, s);
    return de_parse_statement(&p, s);
}

/* ---------------------------------------------------------------------------------------
 * English.
 * ------------------------------------------------------------------------------------- */

static int is_vowel_letter(char c)
{
    return c != '\0' && strchr("aeiou", c) != NULL;
}

/* Parses `[determiner] [[very] adjective] noun`, checking a/an and number. */
static int en_np(Parser *p, Np *np, int *last)
{
    const Tokens *t = p->t;
    int first = p->pos;
    unsigned numbers = 2; /* no determiner: plural only */
    np_clear(np);
    if (at(p, W_DET)) {
        np->det = (Det)peek(p)->idx;
        numbers = peek(p)->numbers;
        p->pos++;
    }
    if (at(p, W_VERY)) {
        np->very = 1;
        p->pos++;
        if (!at(p, W_ADJ))
            return why_set(p->why, "'very' must be followed by an adjective, not '%s'", cur(p));
    }
    if (at(p, W_ADJ)) {
        np->adj = peek(p)->idx;
        p->pos++;
    }
    if (!at(p, W_NOUN))
        return why_set(p->why, "expected a noun, found '%s'", cur(p));
    np->noun = peek(p)->idx;
    np->plural = peek(p)->numbers == 2;
    *last = p->pos;
    p->pos++;
    if (np->det == DET_A) {
        const char *next = t->canon[first + 1];
        int an = t->w[first].is_an;
        if (an != is_vowel_letter(next[0]))
            return why_set(p->why, "'%s %s' must be '%s %s'", t->raw[first], t->raw[first + 1],
                           an ? "a" : "an", t->raw[first + 1]);
    }
    if (!(numbers & (np->plural ? 2u : 1u))) {
        if (np->det == DET_NONE)
            return why_set(p->why, "the singular noun '%s' needs a determiner", t->raw[*last]);
        return why_set(p->why, "'%s' cannot go with the %s '%s'", t->raw[first],
                       np->plural ? "plural" : "singular", t->raw[*last]);
    }
    return 0;
}

static int en_subject(Parser *p, Subject *sj)
{
    sj->tok = p->pos;
    if (at(p, W_PRON)) {
        sj->is_pron = 1;
        sj->persons = peek(p)->persons;
        sj->last = p->pos;
        p->pos++;
        return 0;
    }
    if (!(at(p, W_DET) || at(p, W_VERY) || at(p, W_ADJ) || at(p, W_NOUN)))
        return why_set(p->why, "expected a subject, found '%s'", cur(p));
    sj->is_pron = 0;
    if (en_np(p, &sj->np, &sj->last) != 0)
        return -1;
    sj->persons = sj->np.plural ? PBIT(P_3PL) : PBIT(P_3SG);
    return 0;
}

static void en_set_subject(const Parser *p, const Subject *sj, Sentence *s)
{
    if (sj->is_pron)
        s->pron = p->t->w[sj->tok].idx;
    else
        s->subj = sj->np;
}

/* The predicate after "be": [not] [very] ADJ [and ADJ2]. */
static int en_predicate(Parser *p, int question, Sentence *s)
{
    if (at(p, W_NOT)) {
        if (question)
            return why_set(p->why, "questions are not negated, found 'not'");
        s->neg = 1;
        p->pos++;
    }
    if (at(p, W_VERY)) {
        s->very = 1;
        p->pos++;
    }
    for (int second = 0; second < 2; second++) {
        if (!at(p, W_ADJ))
            return why_set(p->why, "expected an adjective, found '%s'", cur(p));
        *(second ? &s->adj2 : &s->adj) = peek(p)->idx;
        p->pos++;
        if (second || question || !at(p, W_AND))
            break;
        p->pos++;
        if (at(p, W_VERY))
            return why_set(p->why, "'very' only before the first adjective");
    }
    return at_end(p, "the adjective");
}

/* This is [not] NP | These are [not] NP */
static int en_parse_this(Parser *p, Sentence *s)
{
    const Tokens *t = p->t;
    int these = t->w[0].numbers == 2;
    s->type = ST_THIS;
    if (!(t->w[1].persons & PBIT(these ? P_3PL : P_3SG)))
        return why_set(p->why, "'%s %s' must be '%s'", t->raw[0], t->raw[1],
                       these ? "These are" : "This is");
    p->pos = 2;
    if (at(p, W_NOT)) {
        s->neg = 1;
        p->pos++;
    }
    int last;
    if (en_np(p, &s->np, &last) != 0)
        return -1;
    if (s->np.plural != these)
        return why_set(p->why, "'%s %s' needs a %s noun phrase", t->raw[0], t->raw[1],
                       these ? "plural" : "singular");
    return at_end(p, "the noun phrase");
}

/* Is this NP? | Are these NPs? | Is/Are/Am SUBJ [very] ADJ? */
static int en_parse_question(Parser *p, Sentence *s)
{
    const Tokens *t = p->t;
    if (t->n >= 3 && t->w[1].kind == W_DET && t->w[1].idx == DET_THIS &&
        t->w[t->n - 1].kind == W_NOUN) {
        int these = t->w[1].numbers == 2;
        s->type = ST_QUESTION_THIS;
        if (!(t->w[0].persons & PBIT(these ? P_3PL : P_3SG)))
            return why_set(p->why, "'%s %s' must be '%s'", t->raw[0], t->raw[1],
                           these ? "Are these" : "Is this");
        p->pos = 2;
        int last;
        if (en_np(p, &s->np, &last) != 0)
            return -1;
        if (s->np.plural != these)
            return why_set(p->why, "'%s %s' needs a %s noun phrase", t->raw[0], t->raw[1],
                           these ? "plural" : "singular");
        return at_end(p, "the noun phrase");
    }
    s->type = ST_QUESTION_ADJ;
    p->pos = 1;
    Subject sj;
    unsigned person;
    if (en_subject(p, &sj) != 0 || agree(p, &sj, 0, EN_BE, &person) != 0)
        return -1;
    en_set_subject(p, &sj, s);
    return en_predicate(p, 1, s);
}

/* SUBJ be … | SUBJ VERB OBJ | SUBJ do/does not VERB OBJ */
static int en_parse_statement(Parser *p, Sentence *s)
{
    const Tokens *t = p->t;
    Subject sj;
    unsigned person;
    if (en_subject(p, &sj) != 0)
        return -1;
    en_set_subject(p, &sj, s);
    int v = p->pos;
    if (at(p, W_BE)) {
        s->type = ST_PREDICATE;
        if (agree(p, &sj, v, EN_BE, &person) != 0)
            return -1;
        p->pos++;
        return en_predicate(p, 0, s);
    }
    s->type = ST_TRANSITIVE;
    if (at(p, W_DO)) {
        static const char *const DO[PERSONS] = {"do", "do", "does", "do", "do"};
        if (agree(p, &sj, v, DO, &person) != 0)
            return -1;
        p->pos++;
        if (!at(p, W_NOT))
            return why_set(p->why, "expected 'not' after '%s', found '%s'", t->raw[v], cur(p));
        p->pos++;
        s->neg = 1;
        if (!at(p, W_VERB))
            return why_set(p->why, "expected a verb after '%s not', found '%s'", t->raw[v],
                           cur(p));
        s->verb = peek(p)->idx;
        if (peek(p)->persons != PERSONS_BASE)
            return why_set(p->why, "after '%s not' the verb takes its base form '%s', not '%s'",
                           t->raw[v], VERBS[s->verb].en_base, cur(p));
    } else if (at(p, W_VERB)) {
        const char *forms[PERSONS];
        s->verb = peek(p)->idx;
        for (int q = 0; q < PERSONS; q++)
            forms[q] = q == P_3SG ? VERBS[s->verb].en_3sg : VERBS[s->verb].en_base;
        if (agree(p, &sj, v, forms, &person) != 0)
            return -1;
    } else {
        return why_set(p->why, "expected a verb after the subject, found '%s'", cur(p));
    }
    p->pos++;
    int last;
    if (en_np(p, &s->np, &last) != 0)
        return -1;
    return at_end(p, "the object");
}

/* Parses English words into s, checking agreement on the way. */
static int en_parse(const Tokens *t, Sentence *s, char *why)
{
    Parser p = {t, 0, why};
    sentence_clear(s, t->punct);
    if (t->n >= 2 && t->w[0].kind == W_DET && t->w[0].idx == DET_THIS && t->w[1].kind == W_BE)
        return en_parse_this(&p, s);
    /* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): en_words set w[0] */
    if (t->w[0].kind == W_BE)
        return en_parse_question(&p, s);
    return en_parse_statement(&p, s);
}

/* ---------------------------------------------------------------------------------------
 * The specification's restrictions, on the neutral Sentence; and the comparison.
 * ------------------------------------------------------------------------------------- */

/* English words for a neutral noun phrase ("an old dog"), for messages. */
static const char *np_render(const Np *np, char *out)
{
    static const char *const DET_WORD[DETS][2] = {
        {"", ""}, {"the", "the"}, {"this", "these"}, {"a", "a"}, {"my", "my"}, {"your", "your"},
    };
    const Noun *n = &NOUNS[np->noun];
    const char *noun = np->plural ? (n->en_pl ? n->en_pl : "?") : n->en_sg;
    const char *adj = np->adj >= 0 ? ADJECTIVES[np->adj].en : "";
    const char *det = DET_WORD[np->det][np->plural];
    const char *next = np->very ? "very" : np->adj >= 0 ? adj : noun;
    if (np->det == DET_A && is_vowel_letter(next[0]))
        det = "an";
    snprintf(out, WHY_LEN, "%s%s%s%s%s%s", det, det[0] ? " " : "", np->very ? "very " : "",
             adj, adj[0] ? " " : "", noun);
    return out;
}

static const char *subject_render(const Sentence *s, char *out)
{
    if (s->pron >= 0) {
        snprintf(out, WHY_LEN, "%s", PRONOUNS[s->pron].en);
        return out;
    }
    return np_render(&s->subj, out);
}

static const char *det_render(Det d)
{
    static const char *const NAMES[DETS] = {"no determiner", "the/der", "this/dieser",
                                            "a/ein", "my/mein", "your/dein"};
    return NAMES[d];
}

/* Which determiners a sentence type allows in a role (a bit per Det). */
static int det_allowed(const Np *np, unsigned allowed, const char *role, char *why)
{
    if (allowed & DBIT(np->det))
        return 0;
    return why_set(why, "%s is not allowed in the %s", det_render(np->det), role);
}

/* Checks the restrictions of docs/corpus.md beyond agreement. */
static int spec_check(const Sentence *s, char *why)
{
    const unsigned SUBJ_DEF = DBIT(DET_THE) | DBIT(DET_THIS) | DBIT(DET_MY) | DBIT(DET_YOUR);
    const unsigned THIS_SG = DBIT(DET_A) | DBIT(DET_THE) | DBIT(DET_MY) | DBIT(DET_YOUR);
    const unsigned THIS_PL = DBIT(DET_NONE) | DBIT(DET_THE) | DBIT(DET_MY) | DBIT(DET_YOUR);
    char a[WHY_LEN], b[WHY_LEN];
    int is_statement = s->type == ST_THIS || s->type == ST_PREDICATE || s->type == ST_TRANSITIVE;
    if (is_statement && s->punct == '?')
        return why_set(why, "a statement must end with '.' or nothing, not '?'");
    if (!is_statement && s->punct == '.')
        return why_set(why, "a question must end with '?' or nothing, not '.'");
    switch (s->type) {
    case ST_THIS:
        return det_allowed(&s->np, s->np.plural ? THIS_PL : THIS_SG, "noun phrase of 'This is'",
                           why);
    case ST_QUESTION_THIS:
        return det_allowed(&s->np, s->np.plural ? THIS_PL : THIS_SG,
                           "noun phrase of 'Is this …?'", why);
    case ST_PREDICATE:
        if (s->pron < 0 && det_allowed(&s->subj, SUBJ_DEF, "subject of a predicate", why))
            return -1;
        if (s->adj2 >= 0 && s->adj2 == s->adj)
            return why_set(why, "the two adjectives must differ ('%s' twice)",
                           ADJECTIVES[s->adj].en);
        if (s->neg && s->adj2 >= 0)
            return why_set(why, "'not' only with a single adjective");
        return 0;
    case ST_QUESTION_ADJ:
        if (s->pron < 0)
            return det_allowed(&s->subj, SUBJ_DEF, "subject of a question", why);
        return 0;
    case ST_TRANSITIVE: {
        const Verb *v = &VERBS[s->verb];
        if (s->pron < 0) {
            if (det_allowed(&s->subj, SUBJ_DEF | DBIT(DET_A), "subject of a transitive verb",
                            why))
                return -1;
            if (NOUNS[s->subj.noun].cls == CLASS_THING)
                return why_set(why, "the subject '%s' is a thing; subjects of verbs are "
                                    "persons or animals", subject_render(s, a));
        }
        if (v->needs && !(NOUNS[s->np.noun].uses & v->needs))
            return why_set(why, "'%s' does not take '%s' as its object", v->en_base,
                           np_render(&s->np, b));
        if (v->person_subject &&
            (s->pron == PRON_IT || (s->pron < 0 && NOUNS[s->subj.noun].cls != CLASS_PERSON)))
            return why_set(why, "'%s' needs a person or a pronoun other than 'it' as subject, "
                                "not '%s'", v->en_base, subject_render(s, a));
        return 0;
    }
    case ST_COUNT:
        break;
    }
    return why_set(why, "no sentence type");
}

static const char *adj_name(int adj)
{
    return adj >= 0 ? ADJECTIVES[adj].en : "-";
}

static int np_equal(const Np *a, const Np *b)
{
    return a->det == b->det && a->plural == b->plural && a->very == b->very &&
           a->adj == b->adj && a->noun == b->noun;
}

static const char *punct_name(char c)
{
    return c == '.' ? "'.'" : c == '?' ? "'?'" : "none";
}

/* Requires the German to mean what the English means. */
static int sentence_compare(const Sentence *en, const Sentence *de, char *why)
{
    char a[WHY_LEN], b[WHY_LEN];
    if (en->type != de->type)
        return why_set(why, "the sentence types differ: English %s, German %s",
                       ST_NAMES[en->type], ST_NAMES[de->type]);
    if (en->punct != de->punct)
        return why_set(why, "the final punctuation differs: English %s, German %s",
                       punct_name(en->punct), punct_name(de->punct));
    if (en->pron != de->pron || (en->pron < 0 && de->pron < 0 &&
                                 en->subj.noun >= 0 && !np_equal(&en->subj, &de->subj)))
        return why_set(why, "the subject differs: English '%s', German means '%s'",
                       subject_render(en, a), subject_render(de, b));
    if (en->verb != de->verb)
        return why_set(why, "the verb differs: English '%s', German means '%s'",
                       VERBS[en->verb].en_base, VERBS[de->verb].en_base);
    if (en->neg != de->neg)
        return why_set(why, "the negation differs: English %s, German %s",
                       en->neg ? "negated" : "not negated", de->neg ? "negated" : "not negated");
    if (en->np.noun >= 0 && !np_equal(&en->np, &de->np))
        return why_set(why, "the %s differs: English '%s', German means '%s'",
                       en->type == ST_TRANSITIVE ? "object" : "noun phrase",
                       np_render(&en->np, a), np_render(&de->np, b));
    if (en->very != de->very || en->adj != de->adj || en->adj2 != de->adj2)
        return why_set(why, "the predicate differs: English '%s%s%s%s', German means "
                            "'%s%s%s%s'", en->very ? "very " : "", adj_name(en->adj),
                       en->adj2 >= 0 ? " and " : "", en->adj2 >= 0 ? adj_name(en->adj2) : "",
                       de->very ? "very " : "", adj_name(de->adj),
                       de->adj2 >= 0 ? " and " : "", de->adj2 >= 0 ? adj_name(de->adj2) : "");
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The checker's entry point.
 * ------------------------------------------------------------------------------------- */

/* 0 when s is valid UTF-8 in NFC; else -1 and why says what is wrong. */
static int check_nfc(const char *s, char *why)
{
    utf8proc_uint8_t *nfc = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, 0, &nfc,
                                      UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (n < 0)
        return why_set(why, "not valid UTF-8: %s", utf8proc_errmsg(n));
    int same = strcmp((const char *)nfc, s) == 0;
    free(nfc);
    return same ? 0 : why_set(why, "not in Unicode NFC");
}

/* 0 when en/de is a grammatical pair of docs/corpus.md and the German translates the
 * English; *se then holds the parse of both. Otherwise -1, and why (REASON_LEN bytes)
 * holds the first reason found, prefixed with the side it was found on. */
static int grammar_check_pair(const char *en, const char *de, Sentence *se, char *why)
{
    Tokens te, td;
    Sentence sd;
    char sub[WHY_LEN];
    if (check_nfc(en, sub) != 0 || tokenize(en, &te, sub) != 0 || en_words(&te, sub) != 0 ||
        en_parse(&te, se, sub) != 0 || spec_check(se, sub) != 0) {
        snprintf(why, REASON_LEN, "English: %s", sub);
        return -1;
    }
    if (check_nfc(de, sub) != 0 || tokenize(de, &td, sub) != 0 || de_words(&td, sub) != 0 ||
        de_parse(&td, &sd, sub) != 0 || spec_check(&sd, sub) != 0) {
        snprintf(why, REASON_LEN, "German: %s", sub);
        return -1;
    }
    if (sentence_compare(se, &sd, sub) != 0) {
        snprintf(why, REASON_LEN, "translation: %s", sub);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Hand-written examples.
 * ------------------------------------------------------------------------------------- */

typedef struct {
    const char *en, *de;
} Pair;

/* Correct pairs: every sentence type, every determiner, with and without punctuation. */
static const Pair GOOD[] = {
    /* 1. This is */
    {"This is an example", "Das ist ein Beispiel"},
    {"This is a red car.", "Das ist ein rotes Auto."},
    {"This is not a red car.", "Das ist kein rotes Auto."},
    {"This is not an apple", "Das ist kein Apfel"},
    {"This is a cat.", "Das ist eine Katze."},
    {"This is an old school.", "Das ist eine alte Schule."},
    {"This is the old man.", "Das ist der alte Mann."},
    {"This is not my book.", "Das ist nicht mein Buch."},
    {"This is your very beautiful garden.", "Das ist dein sehr schöner Garten."},
    {"These are dogs.", "Das sind Hunde."},
    {"These are small apples", "Das sind kleine Äpfel"},
    {"These are not big dogs.", "Das sind keine großen Hunde."},
    {"These are not the teachers.", "Das sind nicht die Lehrer."},
    {"These are my friends.", "Das sind meine Freunde."},
    {"These are your new books", "Das sind deine neuen Bücher"},
    /* 2. Predicate */
    {"The old man is very big.", "Der alte Mann ist sehr groß."},
    {"The dogs are big and young", "Die Hunde sind groß und jung"},
    {"I am not old.", "Ich bin nicht alt."},
    {"You are young", "Du bist jung"},
    {"He is very good and beautiful.", "Er ist sehr gut und schön."},
    {"She is good.", "Sie ist gut."},
    {"It is red.", "Es ist rot."},
    {"We are new.", "Wir sind neu."},
    {"They are not very old.", "Sie sind nicht sehr alt."},
    {"This dog is small.", "Dieser Hund ist klein."},
    {"These cities are beautiful", "Diese Städte sind schön"},
    {"My new car is red.", "Mein neues Auto ist rot."},
    {"Your friends are not young.", "Deine Freunde sind nicht jung."},
    {"This old teacher is good.", "Dieser alte Lehrer ist gut."},
    {"The girls are small.", "Die Mädchen sind klein."},
    {"The street is old and beautiful.", "Die Straße ist alt und schön."},
    /* 3. Transitive */
    {"I see the big tree.", "Ich sehe den großen Baum."},
    {"The girl buys a red car.", "Das Mädchen kauft ein rotes Auto."},
    {"You eat an apple", "Du isst einen Apfel"},
    {"I do not see a dog.", "Ich sehe keinen Hund."},
    {"We do not need apples.", "Wir brauchen keine Äpfel."},
    {"She does not read the book.", "Sie liest das Buch nicht."},
    {"A man writes a letter.", "Ein Mann schreibt einen Brief."},
    {"An old woman sees your garden.", "Eine alte Frau sieht deinen Garten."},
    {"These women love this city.", "Diese Frauen lieben diese Stadt."},
    {"My friend has a very old house", "Mein Freund hat ein sehr altes Haus"},
    {"Your cat finds my red books.", "Deine Katze findet meine roten Bücher."},
    {"They buy big dogs.", "Sie kaufen große Hunde."},
    {"He does not eat the bread", "Er isst das Brot nicht"},
    {"The children do not love this old teacher.",
     "Die Kinder lieben diesen alten Lehrer nicht."},
    {"It does not need a new door.", "Es braucht keine neue Tür."},
    {"The teacher does not find my letters.", "Der Lehrer findet meine Briefe nicht."},
    {"We do not buy a small table.", "Wir kaufen keinen kleinen Tisch."},
    {"This child writes letters.", "Dieses Kind schreibt Briefe."},
    {"The dogs do not have new schools", "Die Hunde haben keine neuen Schulen"},
    {"The cat does not see an old street.", "Die Katze sieht keine alte Straße."},
    {"My teachers need the small girl.", "Meine Lehrer brauchen das kleine Mädchen."},
    {"You do not love your young friends.", "Du liebst deine jungen Freunde nicht."},
    {"A dog eats an apple.", "Ein Hund isst einen Apfel."},
    /* 4. Questions */
    {"Is this an example?", "Ist das ein Beispiel?"},
    {"Is this a good book", "Ist das ein gutes Buch"},
    {"Is this the new street?", "Ist das die neue Straße?"},
    {"Is this my old book?", "Ist das mein altes Buch?"},
    {"Is this your house?", "Ist das dein Haus?"},
    {"Are these dogs?", "Sind das Hunde?"},
    {"Are these young cats?", "Sind das junge Katzen?"},
    {"Is the dog big?", "Ist der Hund groß?"},
    {"Are the dogs big?", "Sind die Hunde groß?"},
    {"Is this book red?", "Ist dieses Buch rot?"},
    {"Are these trees very old", "Sind diese Bäume sehr alt"},
    {"Is your garden beautiful?", "Ist dein Garten schön?"},
    {"Are my friends very old?", "Sind meine Freunde sehr alt?"},
    {"Is the red book big?", "Ist das rote Buch groß?"},
    {"Am I old?", "Bin ich alt?"},
    {"Are you young?", "Bist du jung?"},
    {"Is he good?", "Ist er gut?"},
    {"Is she big?", "Ist sie groß?"},
    {"Is it new", "Ist es neu"},
    {"Are we very small?", "Sind wir sehr klein?"},
    {"Are they small?", "Sind sie klein?"},
};

typedef struct {
    const char *en, *de;
    const char *why; /* a fragment the checker's reason must contain */
} BadPair;

/* Wrong pairs, each with the part of the reason that proves it was caught for the
 * right cause; the comment says what is wrong. */
static const BadPair BAD[] = {
    /* accusative masculine needs den */
    {"I see the dog.", "Ich sehe der Hund.", "expected 'den'"},
    /* neuter nominative after ein needs -es */
    {"This is a red car.", "Das ist ein rote Auto.", "expected 'rotes'"},
    /* singular subject, plural verb */
    {"The dog is big.", "Der Hund sind groß.", "expected 'ist'"},
    /* er takes sieht */
    {"He sees the dog.", "Er sehe den Hund.", "expected 'sieht'"},
    /* Katze is feminine: keine */
    {"I do not see a cat.", "Ich sehe keinen Katze.", "expected 'keine'"},
    /* nicht goes after a definite object */
    {"She does not read the book.", "Sie liest nicht das Buch.", "at the end"},
    /* German noun differs from the English one */
    {"This is a dog.", "Das ist ein Beispiel.", "German means 'an example'"},
    /* English "a" before a vowel */
    {"This is a apple.", "Das ist ein Apfel.", "'a apple' must be 'an apple'"},
    /* English "an" before a consonant */
    {"This is an big apple.", "Das ist ein großer Apfel.", "must be 'a big'"},
    /* accusative masculine after "an apple": einen */
    {"You eat an apple.", "Du isst ein Apfel.", "expected 'einen'"},
    /* plural subject, singular verb */
    {"The dogs are big.", "Die Hunde ist groß.", "expected 'sind'"},
    /* German noun in lower case */
    {"The dog is big.", "Der hund ist groß.", "must be capitalised: 'Hund'"},
    /* question with a full stop */
    {"Is the dog big?", "Ist der Hund groß.", "question must end"},
    /* the pronoun sie is lower case inside a sentence */
    {"Is she big?", "Ist Sie groß?", "lower case here"},
    /* predicate adjectives are not declined */
    {"The dog is big.", "Der Hund ist großer.", "must not be declined"},
    /* not + a is kein */
    {"This is not a dog.", "Das ist nicht ein Hund.", "negation of ein is kein"},
    /* not + bare plural is keine */
    {"These are not dogs.", "Das sind nicht Hunde.", "negation is keine"},
    /* kein and nicht together */
    {"I do not see a dog.", "Ich sehe keinen Hund nicht.", "double negation"},
    /* they are, not she is */
    {"They are big.", "Sie ist groß.", "German means 'she'"},
    /* very lost */
    {"The dog is very big.", "Der Hund ist groß.", "predicate differs"},
    /* wrong adjective */
    {"The dog is big.", "Der Hund ist klein.", "predicate differs"},
    /* strong plural without article: große */
    {"These are big dogs.", "Das sind großen Hunde.", "expected 'große'"},
    /* weak plural after die: großen */
    {"The big dogs are old.", "Die große Hunde sind alt.", "expected 'großen'"},
    /* plural of mein is meine */
    {"These are my books.", "Das sind mein Bücher.", "expected 'meine'"},
    /* masculine nominative after mein: alter */
    {"My old friend is big.", "Mein alte Freund ist groß.", "expected 'alter'"},
    /* das with a masculine noun */
    {"The dog is big.", "Das Hund ist groß.", "expected 'der'"},
    /* read needs a person (or a pronoun other than it) */
    {"The dog reads the book.", "Der Hund liest das Buch.", "needs a person"},
    /* eat takes only apple and bread */
    {"I eat the car.", "Ich esse das Auto.", "does not take"},
    /* buy does not take persons */
    {"I buy the man.", "Ich kaufe den Mann.", "does not take"},
    /* the two adjectives must differ */
    {"The dog is big and big.", "Der Hund ist groß und groß.", "must differ"},
    /* not with two adjectives */
    {"The dog is not big and old.", "Der Hund ist nicht groß und alt.", "single adjective"},
    /* English: does not + base form */
    {"He does not sees the dog.", "Er sieht den Hund nicht.", "base form 'see'"},
    /* English: he does, not he do */
    {"He do not see the dog.", "Er sieht den Hund nicht.", "expected 'does'"},
    /* English: 3rd person -s */
    {"The dog see the cat.", "Der Hund sieht die Katze.", "expected 'sees'"},
    /* English: these are */
    {"These dogs is small.", "Diese Hunde sind klein.", "expected 'are'"},
    /* punctuation present on one side only */
    {"The dog is big.", "Der Hund ist groß", "punctuation differs"},
    /* English first word in lower case */
    {"the dog is big.", "Der Hund ist groß.", "English: the first word"},
    /* German first word in lower case */
    {"The dog is big.", "der Hund ist groß.", "German: the first word"},
    /* German verb in upper case inside the sentence */
    {"I see the dog.", "Ich Sehe den Hund.", "lower case here"},
    /* bare singular noun */
    {"These are dogs.", "Das sind Hund.", "needs a determiner"},
    /* ein with a plural noun */
    {"This is a dog.", "Das ist ein Hunde.", "cannot go with the plural"},
    /* double space */
    {"I see the dog.", "Ich sehe  den Hund.", "double space"},
    /* questions are not negated */
    {"Is this a dog?", "Ist das kein Hund?", "not allowed here"},
    /* "This is" takes a/an, the, my, your — not dieser */
    {"This is the dog.", "Das ist dieser Hund.", "this/dieser is not allowed"},
    /* English "These are" with a singular noun phrase */
    {"These are a dog.", "Das sind Hunde.", "needs a plural"},
    /* singular/plural differ between the sides */
    {"I see the girls.", "Ich sehe das Mädchen.", "German means 'the girl'"},
    /* sie lesen is they, the English says she */
    {"She reads the book.", "Sie lesen das Buch.", "German means 'they'"},
    /* statement with a question mark */
    {"I see the dog.", "Ich sehe den Hund?", "statement must end"},
    /* German word order: object first */
    {"I see the dog.", "Den Hund sehe ich.", "expected 'der'"},
    /* plural German noun that does not exist */
    {"I eat the bread.", "Ich esse die Brote.", "unknown German word 'Brote'"},
    /* keine on a bare plural object: the negation went missing in German */
    {"We do not need apples.", "Wir brauchen Äpfel.", "negation differs"},
    /* nicht before a bare-plural object */
    {"We do not need apples.", "Wir brauchen nicht Äpfel.", "at the end"},
    /* a verb differs */
    {"I see the dog.", "Ich finde den Hund.", "verb differs"},
    /* the determiner differs: my vs your */
    {"This is my book.", "Das ist dein Buch.", "German means 'your book'"},
    /* a thing as subject of a transitive verb */
    {"The car sees the dog.", "Das Auto sieht den Hund.", "is a thing"},
    /* a/an subject is not allowed in predicates */
    {"A dog is big.", "Ein Hund ist groß.", "a/ein is not allowed"},
    /* sehr before the second adjective */
    {"The dog is big and old.", "Der Hund ist groß und sehr alt.", "only before the first"},
    /* "Das bin" */
    {"This is a dog.", "Das bin ein Hund.", "must be 'Das ist' or 'Das sind'"},
    /* question word order lost */
    {"Is the dog big", "Der Hund ist groß", "sentence types differ"},
};

/* Every hand-written correct pair is accepted. */
static void test_grammar_accepts_correct_examples(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        char why[REASON_LEN];
        Sentence s;
        if (grammar_check_pair(GOOD[i].en, GOOD[i].de, &s, why) != 0) {
            print_error("rejected a correct pair: \"%s\" → \"%s\": %s\n", GOOD[i].en, GOOD[i].de,
                        why);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Every hand-written wrong pair is rejected, and for the stated reason. */
static void test_grammar_rejects_wrong_examples(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char why[REASON_LEN];
        Sentence s;
        if (grammar_check_pair(BAD[i].en, BAD[i].de, &s, why) == 0) {
            print_error("accepted a wrong pair: \"%s\" → \"%s\"\n", BAD[i].en, BAD[i].de);
            failures++;
        } else if (strstr(why, BAD[i].why) == NULL) {
            print_error("wrong reason for \"%s\" → \"%s\": got \"%s\", want \"…%s…\"\n",
                        BAD[i].en, BAD[i].de, why, BAD[i].why);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Every word form of one language's lexicon, each once, into forms (max entries). */
static int lexicon_forms(int german, const char **forms, int max)
{
    static const char *const EN_SMALL[] = {"the", "this", "these", "a", "an", "my", "your",
                                           "very", "and", "not", "do", "does", "am", "is", "are"};
    static const char *const DE_SMALL[] = {"sehr", "und", "nicht"};
    static char de_adj[N_ADJECTIVES][sizeof DE_ENDINGS / sizeof DE_ENDINGS[0]][MAX_WORD];
    const char *all[512];
    int n = 0;
    if (german) {
        for (size_t i = 0; i < sizeof DE_SMALL / sizeof DE_SMALL[0]; i++)
            all[n++] = DE_SMALL[i];
        for (int c = DE_DEF; c < DE_CLASSES; c++)
            for (int k = 0; k < CASES; k++)
                for (int g = 0; g < SLOTS; g++)
                    if (DE_ARTICLE[c][k][g] != NULL)
                        all[n++] = DE_ARTICLE[c][k][g];
        for (int p = 0; p < PERSONS; p++)
            all[n++] = DE_BE[p];
        for (int i = 0; i < N_VERBS; i++)
            for (int p = 0; p < PERSONS; p++)
                all[n++] = VERBS[i].de[p];
        for (int i = 0; i < N_PRONOUNS; i++)
            all[n++] = PRONOUNS[i].de;
        for (int i = 0; i < N_ADJECTIVES; i++)
            for (size_t e = 0; e < sizeof DE_ENDINGS / sizeof DE_ENDINGS[0]; e++) {
                snprintf(de_adj[i][e], MAX_WORD, "%s%s", ADJECTIVES[i].de, DE_ENDINGS[e]);
                all[n++] = de_adj[i][e];
            }
    } else {
        for (size_t i = 0; i < sizeof EN_SMALL / sizeof EN_SMALL[0]; i++)
            all[n++] = EN_SMALL[i];
        for (int i = 0; i < N_VERBS; i++) {
            all[n++] = VERBS[i].en_base;
            all[n++] = VERBS[i].en_3sg;
        }
        for (int i = 0; i < N_PRONOUNS; i++)
            all[n++] = PRONOUNS[i].en;
        for (int i = 0; i < N_ADJECTIVES; i++)
            all[n++] = ADJECTIVES[i].en;
    }
    for (int i = 0; i < N_NOUNS; i++) {
        const char *sg = german ? NOUNS[i].de_sg : NOUNS[i].en_sg;
        const char *pl = german ? NOUNS[i].de_pl : NOUNS[i].en_pl;
        all[n++] = sg;
        if (pl != NULL)
            all[n++] = pl;
    }
    assert_true(n <= (int)(sizeof all / sizeof all[0]));
    int m = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < m && !dup; j++)
            dup = streq(forms[j], all[i]);
        if (!dup) {
            assert_true(m < max);
            forms[m++] = all[i];
        }
    }
    return m;
}

/* Joins words[0..n) with spaces and appends punct into out (WHY_LEN bytes). */
static void join_words(char words[][MAX_WORD], int n, char punct, char *out)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, WHY_LEN - used, "%s%s", i ? " " : "", words[i]);
    if (punct)
        snprintf(out + used, WHY_LEN - used, "%c", punct);
}

/* One side of a correct pair being mutated, and the tally of its variants. */
typedef struct {
    const Pair *pair;
    int german;                         /* 1: the German side is mutated */
    Tokens t;                           /* the side's original words */
    char words[MAX_TOKENS + 1][MAX_WORD]; /* the variant being built */
    long tried;                         /* variants checked */
    int accepted;                       /* variants the checker let through (all wrong) */
} Mutation;

static void mutation_reset(Mutation *m)
{
    memcpy(m->words, m->t.raw, sizeof m->t.raw);
}

/* Checks the variant words[0..n) + punct in place of the mutated side. */
static void mutation_try(Mutation *m, int n, char punct)
{
    char text[WHY_LEN], why[REASON_LEN];
    Sentence s;
    const char *side = m->german ? m->pair->de : m->pair->en;
    join_words(m->words, n, punct, text);
    if (strcmp(text, side) == 0)
        return;
    m->tried++;
    const char *en = m->german ? m->pair->en : text;
    const char *de = m->german ? text : m->pair->de;
    if (grammar_check_pair(en, de, &s, why) == 0 && m->accepted++ < 5)
        print_error("accepted a variant: \"%s\" → \"%s\"\n", en, de);
}

/* Tries every one-place change of one side of a correct pair. Since the translation of
 * an English sentence is unique (and vice versa), every variant is wrong. */
static void mutation_run(Mutation *m, const char **forms, int nforms)
{
    static const char *const EN_INS[] = {"not", "very", "and", "the", "a"};
    static const char *const DE_INS[] = {"nicht", "sehr", "und", "die", "kein"};
    static const char PUNCTS[] = {'.', '?', 0};
    char why[WHY_LEN];
    const Tokens *t = &m->t;
    assert_int_equal(tokenize(m->german ? m->pair->de : m->pair->en, &m->t, why), 0);

    /* Substitute every lexicon form (capitalised in first place) for each word. */
    for (int i = 0; i < t->n; i++)
        for (int f = 0; f < nforms; f++) {
            mutation_reset(m);
            snprintf(m->words[i], MAX_WORD, "%s", forms[f]);
            if (i == 0 && !streq(forms[f], "I"))
                assert_int_equal(first_letter_case(forms[f], 1, m->words[0]), 0);
            mutation_try(m, t->n, t->punct);
        }
    /* Flip the case of each word's first letter. */
    for (int i = 0; i < t->n; i++) {
        mutation_reset(m);
        assert_int_equal(first_letter_case(t->raw[i], !starts_upper(t->raw[i]), m->words[i]), 0);
        mutation_try(m, t->n, t->punct);
    }
    /* Delete each word; swap each pair of neighbours. */
    for (int i = 0; i < t->n && t->n > 1; i++) {
        mutation_reset(m);
        memmove(m->words[i], m->words[i + 1], (size_t)(t->n - 1 - i) * MAX_WORD);
        mutation_try(m, t->n - 1, t->punct);
    }
    for (int i = 0; i + 1 < t->n; i++) {
        mutation_reset(m);
        memcpy(m->words[i], t->raw[i + 1], MAX_WORD);
        memcpy(m->words[i + 1], t->raw[i], MAX_WORD);
        mutation_try(m, t->n, t->punct);
    }
    /* Insert a negation, an intensifier, a conjunction or an article after any word. */
    for (int i = 1; i <= t->n && t->n < MAX_TOKENS; i++)
        for (size_t f = 0; f < sizeof EN_INS / sizeof EN_INS[0]; f++) {
            mutation_reset(m);
            memmove(m->words[i + 1], m->words[i], (size_t)(t->n - i) * MAX_WORD);
            snprintf(m->words[i], MAX_WORD, "%s", m->german ? DE_INS[f] : EN_INS[f]);
            mutation_try(m, t->n + 1, t->punct);
        }
    /* Change the final punctuation. */
    for (size_t k = 0; k < sizeof PUNCTS; k++) {
        mutation_reset(m);
        mutation_try(m, t->n, PUNCTS[k]);
    }
}

/* Every one-word change of a correct pair — another word form of the lexicon, a flipped
 * capital, a deleted, swapped or inserted word, other punctuation — on either side is
 * rejected: the checker accepts exactly the one right translation. */
static void test_grammar_rejects_every_one_word_change(void **state)
{
    (void)state;
    const char *en_forms[256], *de_forms[512];
    int n_en = lexicon_forms(0, en_forms, 256);
    int n_de = lexicon_forms(1, de_forms, 512);
    long tried = 0;
    int accepted = 0;
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++)
        for (int german = 0; german < 2; german++) {
            Mutation m;
            m.pair = &GOOD[i];
            m.german = german;
            m.tried = 0;
            m.accepted = 0;
            mutation_run(&m, german ? de_forms : en_forms, german ? n_de : n_en);
            tried += m.tried;
            accepted += m.accepted;
        }
    if (accepted > 0)
        print_error("%d of %ld variants accepted\n", accepted, tried);
    assert_int_equal(accepted, 0);
    assert_true(tried > 10000);
}

/* ---------------------------------------------------------------------------------------
 * The generated corpus.
 * ------------------------------------------------------------------------------------- */

enum { MAX_REPORTED = 20 };

typedef struct {
    long lines;                   /* lines read */
    long failures;                /* lines rejected */
    long per_type[ST_COUNT][2];   /* accepted lines by type, [0] unpunctuated, [1] punctuated */
    long q_adj_pronoun;           /* question-adjective lines with a pronoun subject */
    int has_example;              /* the line "This is an example<TAB>Das ist ein Beispiel" */
} FileStats;

/* Checks one line as read by getline (with its LF); 0 if good, else -1 with why. */
static int check_line(char *line, ssize_t len, Sentence *s, char *why)
{
    if (len == 0 || line[len - 1] != '\n') {
        snprintf(why, REASON_LEN, "the line does not end with LF");
        return -1;
    }
    line[len - 1] = '\0';
    if (strlen(line) != (size_t)len - 1 || strchr(line, '\r') != NULL) {
        snprintf(why, REASON_LEN, "the line contains a NUL or CR byte");
        return -1;
    }
    char *tab = strchr(line, '\t');
    if (tab == NULL || strchr(tab + 1, '\t') != NULL) {
        snprintf(why, REASON_LEN, "the line must hold exactly one TAB");
        return -1;
    }
    *tab = '\0';
    int rc = grammar_check_pair(line, tab + 1, s, why);
    *tab = '\t';
    return rc;
}

/* Checks every line of path, printing the first MAX_REPORTED failures. 0 if the file
 * could be read (whatever its lines hold), -1 if not. */
static int check_file(const char *path, FileStats *st)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        print_error("%s: %s — run `make corpus` to generate the corpus first\n", path,
                    strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    memset(st, 0, sizeof *st);
    while ((len = getline(&line, &cap, f)) != -1) {
        char why[REASON_LEN];
        Sentence s;
        st->lines++;
        if (streq(line, "This is an example\tDas ist ein Beispiel\n"))
            st->has_example = 1;
        if (check_line(line, len, &s, why) != 0) {
            st->failures++;
            if (st->failures <= MAX_REPORTED)
                print_error("%s:%ld: %s\n    pair: %s\n", path, st->lines, why, line);
            continue;
        }
        st->per_type[s.type][s.punct != 0]++;
        st->q_adj_pronoun += s.type == ST_QUESTION_ADJ && s.pron >= 0;
    }
    int rc = ferror(f) ? -1 : 0;
    if (rc != 0)
        print_error("%s: read error after line %ld\n", path, st->lines);
    free(line);
    fclose(f);
    return rc;
}

/* Every line of data/{train,valid,test}.tsv is a grammatical pair whose German
 * translates its English; the files have the sizes of the spec; the training file holds
 * the example pair and every sentence type at least 100 times, with and without its
 * final punctuation. */
static void test_grammar_data_files(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        long pairs;
    } FILES[] = {{"data/train.tsv", 32000}, {"data/valid.tsv", 1000}, {"data/test.tsv", 1000}};
    int bad = 0, unreadable = 0;
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        FileStats st;
        if (check_file(FILES[i].path, &st) != 0) {
            unreadable = 1;
            continue;
        }
        long doc[DOC_TYPES + 1][2] = {{0}};
        for (int t = 0; t < ST_COUNT; t++)
            for (int punct = 0; punct < 2; punct++)
                doc[ST_DOC_TYPE[t]][punct] += st.per_type[t][punct];
        print_message("%s: %ld lines, %ld rejected; this-is %ld, predicate %ld, transitive %ld, "
                      "questions %ld (is-this %ld, adjective %ld of which pronoun %ld)\n",
                      FILES[i].path, st.lines, st.failures, doc[1][0] + doc[1][1],
                      doc[2][0] + doc[2][1], doc[3][0] + doc[3][1], doc[4][0] + doc[4][1],
                      st.per_type[ST_QUESTION_THIS][0] + st.per_type[ST_QUESTION_THIS][1],
                      st.per_type[ST_QUESTION_ADJ][0] + st.per_type[ST_QUESTION_ADJ][1],
                      st.q_adj_pronoun);
        if (st.failures > 0) {
            print_error("%s: %ld of %ld lines rejected\n", FILES[i].path, st.failures, st.lines);
            bad = 1;
        }
        if (st.lines != FILES[i].pairs) {
            print_error("%s: %ld lines, docs/corpus.md says %ld\n", FILES[i].path, st.lines,
                        FILES[i].pairs);
            bad = 1;
        }
        if (i != 0)
            continue;
        if (!st.has_example) {
            print_error("%s: no line \"This is an example<TAB>Das ist ein Beispiel\"\n",
                        FILES[i].path);
            bad = 1;
        }
        for (int t = 1; t <= DOC_TYPES; t++) {
            if (doc[t][0] + doc[t][1] < 100) {
                print_error("%s: sentence type %s occurs %ld times, fewer than 100\n",
                            FILES[i].path, DOC_TYPE_NAMES[t], doc[t][0] + doc[t][1]);
                bad = 1;
            }
            if (doc[t][0] == 0 || doc[t][1] == 0) {
                print_error("%s: sentence type %s never occurs %s its final punctuation\n",
                            FILES[i].path, DOC_TYPE_NAMES[t], doc[t][0] == 0 ? "without" : "with");
                bad = 1;
            }
        }
    }
    if (unreadable)
        fail_msg("data/*.tsv missing or unreadable: run `make corpus` from the repository "
                 "root, then run this test from there");
    if (bad)
        fail_msg("the corpus does not follow docs/corpus.md (see above)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_accepts_correct_examples),
        cmocka_unit_test(test_grammar_rejects_wrong_examples),
        cmocka_unit_test(test_grammar_rejects_every_one_word_change),
        cmocka_unit_test(test_grammar_data_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
