/*
 * grammar.c — the English side of the corpus grammar: word tables and a recursive-descent
 * parser of docs/corpus.md's English, over TOK_SRC tokens (grammar.h says why it is kept
 * apart from the generator, src/corpus.c).
 *
 * A sentence is read in two steps. The lexer looks every token up once (which noun,
 * adjective, verb or name it is), folds each comma into the word before it and takes the
 * final punctuation mark off; it refuses words the grammar does not have, marks it does
 * not have, a possessive 's and over-long sentences. The parser then follows the spec:
 * the mood from the first word (be → question, do → question or negated command, a verb
 * → command, else a statement of up to three clauses joined by "and"), then subjects,
 * verbs, objects, predicates and adjuncts, checking agreement, a/an, this/these, mass
 * and count nouns, the sex of predicate nouns, what "and" may join, and where "not",
 * "no", "very" and commas may stand.
 *
 * "and" after an object may join a second noun phrase or start the next clause; the
 * parser takes one choice per reading (grammar_parse's reading bits), and grammar_check
 * tries the readings in turn. A failed reading records where it stopped; of several, the
 * one that read farthest is the most useful to report (it got past everything the
 * others stumbled on).
 */
#include "grammar.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "status.h"
#include "tokenizer.h"

/* ---------------------------------------------------------------------------------------
 * Word tables, typed from data/lexicon.tsv (test_grammar_lexicon_matches_tables holds
 * them to it).
 * ------------------------------------------------------------------------------------- */

/* FNV-1a 64 of data/lexicon.tsv as the tables were typed from it. */
#define LEXICON_FNV1A64 UINT64_C(0xb758f9487cc0aaa5)

const GrammarNoun GRAMMAR_NOUNS[] = {
    {"example", "examples", "Beispiel", "Beispiele", "Beispielen",
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"house", "houses", "Haus", "Häuser", "Häusern", GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"dog", "dogs", "Hund", "Hunde", "Hunden", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"cat", "cats", "Katze", "Katzen", "Katzen", GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0},
    {"book", "books", "Buch", "Bücher", "Büchern", GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"man", "men", "Mann", "Männer", "Männern", GRAMMAR_MASC, GRAMMAR_SEX_M, 1},
    {"woman", "women", "Frau", "Frauen", "Frauen", GRAMMAR_FEM, GRAMMAR_SEX_F, 1},
    {"child", "children", "Kind", "Kinder", "Kindern", GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"girl", "girls", "Mädchen", "Mädchen", "Mädchen", GRAMMAR_NEUT, GRAMMAR_SEX_F, 0},
    {"car", "cars", "Auto", "Autos", "Autos", GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"apple", "apples", "Apfel", "Äpfel", "Äpfeln", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"table", "tables", "Tisch", "Tische", "Tischen", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"teacher", "teachers", "Lehrer", "Lehrer", "Lehrern", GRAMMAR_MASC, GRAMMAR_SEX_M, 0},
    {"city", "cities", "Stadt", "Städte", "Städten", GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0},
    {"tree", "trees", "Baum", "Bäume", "Bäumen", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"letter", "letters", "Brief", "Briefe", "Briefen", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"garden", "gardens", "Garten", "Gärten", "Gärten", GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0},
    {"school", "schools", "Schule", "Schulen", "Schulen", GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0},
    {"bread", NULL, "Brot", NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0},
    {"friend", "friends", "Freund", "Freunde", "Freunden", GRAMMAR_MASC, GRAMMAR_SEX_M, 0},
    {"street", "streets", "Straße", "Straßen", "Straßen", GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0},
    {"door", "doors", "Tür", "Türen", "Türen", GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0},
};
_Static_assert(sizeof GRAMMAR_NOUNS / sizeof GRAMMAR_NOUNS[0] == GRAMMAR_N_NOUNS,
               "GRAMMAR_N_NOUNS");

const GrammarAdjective GRAMMAR_ADJECTIVES[] = {
    {"big", "groß", {"small", NULL}},  {"small", "klein", {"big", NULL}},
    {"old", "alt", {"new", "young"}},  {"new", "neu", {"old", NULL}},
    {"good", "gut", {NULL, NULL}},     {"red", "rot", {NULL, NULL}},
    {"beautiful", "schön", {NULL, NULL}}, {"young", "jung", {"old", NULL}},
};
_Static_assert(sizeof GRAMMAR_ADJECTIVES / sizeof GRAMMAR_ADJECTIVES[0] ==
               GRAMMAR_N_ADJECTIVES, "GRAMMAR_N_ADJECTIVES");

const GrammarVerb GRAMMAR_VERBS[] = {
    {"see", "sees", {"sehe", "siehst", "sieht", "sehen", "sehen"}, "sieh"},
    {"have", "has", {"habe", "hast", "hat", "haben", "haben"}, NULL},
    {"read", "reads", {"lese", "liest", "liest", "lesen", "lesen"}, "lies"},
    {"write", "writes", {"schreibe", "schreibst", "schreibt", "schreiben", "schreiben"},
     "schreib"},
    {"buy", "buys", {"kaufe", "kaufst", "kauft", "kaufen", "kaufen"}, "kauf"},
    {"eat", "eats", {"esse", "isst", "isst", "essen", "essen"}, "iss"},
    {"find", "finds", {"finde", "findest", "findet", "finden", "finden"}, "finde"},
    {"need", "needs", {"brauche", "brauchst", "braucht", "brauchen", "brauchen"}, NULL},
    {"love", "loves", {"liebe", "liebst", "liebt", "lieben", "lieben"}, NULL},
};
_Static_assert(sizeof GRAMMAR_VERBS / sizeof GRAMMAR_VERBS[0] == GRAMMAR_N_VERBS,
               "GRAMMAR_N_VERBS");

const GrammarName GRAMMAR_NAMES[] = {
    {"Anna", GRAMMAR_SEX_F}, {"Bob", GRAMMAR_SEX_M}, {"Maria", GRAMMAR_SEX_F},
    {"Peter", GRAMMAR_SEX_M}, {"Lisa", GRAMMAR_SEX_F}, {"Tom", GRAMMAR_SEX_M},
    {"Emma", GRAMMAR_SEX_F}, {"Paul", GRAMMAR_SEX_M}, {"Laura", GRAMMAR_SEX_F},
    {"Max", GRAMMAR_SEX_M}, {"Sarah", GRAMMAR_SEX_F}, {"David", GRAMMAR_SEX_M},
    {"Julia", GRAMMAR_SEX_F}, {"Daniel", GRAMMAR_SEX_M}, {"Sophie", GRAMMAR_SEX_F},
    {"Thomas", GRAMMAR_SEX_M}, {"Lena", GRAMMAR_SEX_F}, {"Michael", GRAMMAR_SEX_M},
    {"Clara", GRAMMAR_SEX_F}, {"Felix", GRAMMAR_SEX_M}, {"Nina", GRAMMAR_SEX_F},
    {"Jonas", GRAMMAR_SEX_M}, {"Eva", GRAMMAR_SEX_F}, {"Lukas", GRAMMAR_SEX_M},
    {"Mia", GRAMMAR_SEX_F}, {"Leon", GRAMMAR_SEX_M}, {"Hannah", GRAMMAR_SEX_F},
    {"Ben", GRAMMAR_SEX_M}, {"Lea", GRAMMAR_SEX_F}, {"Jan", GRAMMAR_SEX_M},
    {"Sara", GRAMMAR_SEX_F}, {"Simon", GRAMMAR_SEX_M},
};
_Static_assert(sizeof GRAMMAR_NAMES / sizeof GRAMMAR_NAMES[0] == GRAMMAR_N_NAMES,
               "GRAMMAR_N_NAMES");

const GrammarPronoun GRAMMAR_PRONOUNS[] = {
    {"i", "me", "me", "ich", "mich", "mir", GRAMMAR_1SG, GRAMMAR_SEX_NONE},
    {"you", "you", "you", "du", "dich", "dir", GRAMMAR_2SG, GRAMMAR_SEX_NONE},
    {"he", "him", "him", "er", "ihn", "ihm", GRAMMAR_3SG, GRAMMAR_SEX_M},
    {"she", "her", "her", "sie", "sie", "ihr", GRAMMAR_3SG, GRAMMAR_SEX_F},
    {"it", "it", NULL, "es", "es", NULL, GRAMMAR_3SG, GRAMMAR_SEX_NONE},
    {"we", "us", "us", "wir", "uns", "uns", GRAMMAR_1PL, GRAMMAR_SEX_NONE},
    {"they", "them", "them", "sie", "sie", "ihnen", GRAMMAR_3PL, GRAMMAR_SEX_NONE},
};
_Static_assert(sizeof GRAMMAR_PRONOUNS / sizeof GRAMMAR_PRONOUNS[0] == GRAMMAR_N_PRONOUNS,
               "GRAMMAR_N_PRONOUNS");

const char *const GRAMMAR_BE[GRAMMAR_PERSONS] = {"am", "are", "is", "are", "are"};
static const char *const DO_FORMS[GRAMMAR_PERSONS] = {"do", "do", "does", "do", "do"};

const char *const GRAMMAR_DET_EN[GRAMMAR_DETS] = {"", "the", "this", "a", "no", "my",
                                                  "your", "his", "her", "our", "their"};

/* The closed-class words that are not pronouns or determiners. */
static const char *const FUNCTION_WORDS[] = {"these", "an", "very", "and", "not", "do",
                                             "does", "am", "is", "are", "with", "in"};

static const char *const PERSON_NAMES[GRAMMAR_PERSONS] = {
    "1st person singular", "2nd person singular", "3rd person singular",
    "1st person plural", "3rd person plural"};

uint64_t grammar_lexicon_fnv1a64(void)
{
    return LEXICON_FNV1A64;
}

/* The first bytes compared here first: most words of a table differ there, and every
 * word of every finished translation is looked up in the tables (strcmp calls took 2–3 %
 * of translating data/test.tsv). */
static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && a[0] == b[0] && strcmp(a, b) == 0;
}

int grammar_find_noun(const char *token, int *plural)
{
    for (int i = 0; i < GRAMMAR_N_NOUNS; i++) {
        if (streq(token, GRAMMAR_NOUNS[i].en_sg) || streq(token, GRAMMAR_NOUNS[i].en_pl)) {
            *plural = !streq(token, GRAMMAR_NOUNS[i].en_sg);
            return i;
        }
    }
    return -1;
}

int grammar_find_adjective(const char *token)
{
    for (int i = 0; i < GRAMMAR_N_ADJECTIVES; i++)
        if (streq(token, GRAMMAR_ADJECTIVES[i].en))
            return i;
    return -1;
}

int grammar_find_verb(const char *token, int *third)
{
    for (int i = 0; i < GRAMMAR_N_VERBS; i++) {
        if (streq(token, GRAMMAR_VERBS[i].en) || streq(token, GRAMMAR_VERBS[i].en_3sg)) {
            *third = streq(token, GRAMMAR_VERBS[i].en_3sg);
            return i;
        }
    }
    return -1;
}

int grammar_find_name(const char *token)
{
    for (int i = 0; i < GRAMMAR_N_NAMES; i++)
        if (token != NULL && tolower((unsigned char)token[0]) ==
                                 tolower((unsigned char)GRAMMAR_NAMES[i].name[0]) &&
            strcasecmp(token, GRAMMAR_NAMES[i].name) == 0)
            return i;
    return -1;
}

/* 1 when w is a pronoun form, a determiner or another closed-class word. */
static int is_closed_word(const char *w)
{
    for (int i = 0; i < GRAMMAR_N_PRONOUNS; i++)
        if (streq(w, GRAMMAR_PRONOUNS[i].subj) || streq(w, GRAMMAR_PRONOUNS[i].obj))
            return 1;
    for (int d = GRAMMAR_DET_THE; d < GRAMMAR_DETS; d++)
        if (streq(w, GRAMMAR_DET_EN[d]))
            return 1;
    for (size_t i = 0; i < sizeof FUNCTION_WORDS / sizeof FUNCTION_WORDS[0]; i++)
        if (streq(w, FUNCTION_WORDS[i]))
            return 1;
    return 0;
}

int grammar_is_word(const char *token)
{
    int unused;
    return token != NULL &&
           (is_closed_word(token) || grammar_find_noun(token, &unused) >= 0 ||
            grammar_find_adjective(token) >= 0 || grammar_find_verb(token, &unused) >= 0 ||
            grammar_find_name(token) >= 0);
}

/* ---------------------------------------------------------------------------------------
 * The lexer: every word looked up once, commas and the final mark taken off.
 * ------------------------------------------------------------------------------------- */

/* Word tokens one sentence may have: 30 written words, each of which may be a contraction
 * the tokenizer expanded into two. Beyond that, a sentence is too long anyway. */
enum { MAX_TOKS = 2 * GRAMMAR_MAX_WORDS };

typedef struct {
    const char *w;   /* the token */
    int src;         /* its index in the caller's tokens */
    int comma;       /* the index of a comma token right after it, or -1 */
    int written_not; /* GRAMMAR_TOKEN_WRITTEN_NOT */
    int is_name;     /* 1: a name (of the lexicon, or flagged) */
    int name;        /* the name's index, or GRAMMAR_NAME_OTHER */
    int noun, plural; /* noun index or -1; 1 for its plural form */
    int adj;          /* adjective index or -1 */
    int verb, third;  /* verb index or -1; 1 for the 3rd person singular form */
} Tok;

typedef struct {
    Tok tok[MAX_TOKS];
    int n;         /* word tokens */
    int ntokens;   /* the caller's tokens, commas and the final mark included */
    char punct;    /* the final '.', '?', '!' or 0 */
    int punct_src; /* its index in the caller's tokens, or -1 */
} Lexed;

/* The token past the last word: no word at all. */
static const Tok END_TOK = {"", -1, -1, 0, 0, GRAMMAR_NAME_OTHER, -1, 0, -1, -1, 0};

/* Fills v as a failure over the caller's tokens [from, to); is -1. */
static int verdict_fail(GrammarVerdict *v, int from, int to, int reached, const char *fmt,
                        ...)
{
    v->in_grammar = 0;
    v->from = from;
    v->to = to > from ? to : from + 1;
    v->reached = reached;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    return -1;
}

/* 1 when token ends in a possessive 's (' or ’) after at least one letter; *stem_len is
 * the length before it. */
static int has_possessive_s(const char *token, size_t *stem_len)
{
    size_t n = strlen(token);
    if (n >= 3 && strcmp(token + n - 2, "'s") == 0) {
        *stem_len = n - 2;
        return 1;
    }
    if (n >= 5 && strcmp(token + n - 4, "\xE2\x80\x99s") == 0) {
        *stem_len = n - 4;
        return 1;
    }
    return 0;
}

/* Why token i, which is no word of the grammar, is refused. */
static int lex_refuse(const char *const *tokens, int i, int flagged, int words_before, int n,
                      GrammarVerdict *v)
{
    const char *w = tokens[i];
    size_t stem_len;
    if (has_possessive_s(w, &stem_len)) {
        char stem[64];
        int unused;
        snprintf(stem, sizeof stem, "%.*s", (int)stem_len, w);
        if (flagged || grammar_find_name(stem) >= 0 || grammar_find_noun(stem, &unused) >= 0)
            return verdict_fail(v, i, i + 1, i, "the grammar has no possessive 's (it says "
                                "his, her, their …)");
    }
    if (tokenizer_is_punctuation(w)) {
        if (strchr(".?!", w[0]) != NULL && w[1] == '\0') {
            if (!words_before)
                return verdict_fail(v, i, i + 1, i, "no words before \"%s\"", w);
            int j = i + 1;
            while (j < n && tokens[j][0] != '\0' && strchr(".?!", tokens[j][0]) != NULL &&
                   tokens[j][1] == '\0')
                j++;
            if (j == n)
                return verdict_fail(v, i + 1, n, i, "one punctuation mark at the end, not "
                                    "several");
            return verdict_fail(v, i, i + 1, i, "\"%s\" only at the end: one sentence at a "
                                "time", w);
        }
        return verdict_fail(v, i, i + 1, i, "a punctuation mark the grammar does not have");
    }
    return verdict_fail(v, i, i + 1, i, "a word the grammar does not have");
}

/* The words an English spelling of the tokens needs at least: a contraction the tokenizer
 * expanded ("do not" ← "don't") may have been one word. */
static int contractible(const char *a, const char *b)
{
    static const char *const PAIRS[][2] = {
        {"do", "not"}, {"does", "not"}, {"is", "not"}, {"are", "not"}, {"i", "am"},
        {"you", "are"}, {"he", "is"}, {"she", "is"}, {"it", "is"}, {"we", "are"},
        {"they", "are"}};
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
        if (streq(a, PAIRS[i][0]) && streq(b, PAIRS[i][1]))
            return 1;
    return 0;
}

/* Looks every token up; 0, or -1 with v filled. flags: GRAMMAR_TOKEN_* sets, or with
 * names_only nonzero-is-a-name flags (grammar_check's is_name); NULL for none. */
static int lex(const char *const *tokens, const unsigned char *flags, int names_only, int n,
               Lexed *lx, GrammarVerdict *v)
{
    lx->n = 0;
    lx->ntokens = n;
    lx->punct = 0;
    lx->punct_src = -1;
    int words = 0; /* written words at least (contractions joined) */
    for (int i = 0; i < n; i++) {
        const char *w = tokens[i];
        int flag = flags == NULL ? 0 : !names_only ? flags[i]
                                       : flags[i] != 0 ? GRAMMAR_TOKEN_NAME : 0;
        if (streq(w, ",")) {
            Tok *prev = lx->n > 0 ? &lx->tok[lx->n - 1] : NULL;
            if (prev == NULL || prev->comma >= 0 || (i + 1 < n && streq(tokens[i + 1], ",")))
                return verdict_fail(v, i, i + 1, i, "a comma only before the \"and\" that "
                                    "joins two clauses");
            prev->comma = i;
            continue;
        }
        if (i == n - 1 && lx->n > 0 && (streq(w, ".") || streq(w, "?") || streq(w, "!"))) {
            lx->punct = w[0];
            lx->punct_src = i;
            continue;
        }
        int is_punct = tokenizer_is_punctuation(w);
        int flagged = (flag & GRAMMAR_TOKEN_NAME) != 0 && !is_punct;
        size_t stem_len;
        if (!flagged || has_possessive_s(w, &stem_len))
            if (!grammar_is_word(w))
                return lex_refuse(tokens, i, flagged, lx->n > 0, n, v);
        int pairs_up = lx->n > 0 && contractible(lx->tok[lx->n - 1].w, w) &&
                       (lx->n < 2 || !contractible(lx->tok[lx->n - 2].w, lx->tok[lx->n - 1].w));
        /* A word that pairs up with the one before (greedily, left to right) adds none. */
        if (!pairs_up)
            words++;
        if (words > GRAMMAR_MAX_WORDS || lx->n == MAX_TOKS)
            return verdict_fail(v, i, n, i, "longer than the grammar's sentences (at most "
                                "%d words)", GRAMMAR_MAX_WORDS);
        Tok *t = &lx->tok[lx->n++];
        *t = END_TOK;
        t->w = w;
        t->src = i;
        t->written_not = (flag & GRAMMAR_TOKEN_WRITTEN_NOT) != 0;
        if (flagged) {
            t->is_name = 1;
            continue;
        }
        t->name = grammar_find_name(w);
        t->is_name = t->name >= 0;
        if (t->is_name)
            continue;
        t->noun = grammar_find_noun(w, &t->plural);
        t->adj = grammar_find_adjective(w);
        t->verb = grammar_find_verb(w, &t->third);
    }
    if (n == 0) {
        verdict_fail(v, 0, 1, 0, "an empty sentence");
        v->to = 0; /* no token to point at */
        return -1;
    }
    assert(lx->n > 0); /* a mark before any word is refused above */
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The parser.
 * ------------------------------------------------------------------------------------- */

typedef enum { ROLE_SUBJ, ROLE_OBJ, ROLE_WITH, ROLE_PRED, ROLE_IN } Role;

typedef struct {
    const Lexed *lx;
    int p;              /* the cursor: index into lx->tok */
    GrammarSentence *s;
    unsigned flip;      /* bit d: take the other reading at coordination choice d */
    int choices;        /* coordination choices met so far */
    int coord_from;     /* the first pair of noun phrases joined by "and" in this reading: */
    int coord_to;       /* its word tokens [coord_from, coord_to); coord_from -1 if none */
    int subj_from;      /* the word tokens [subj_from, subj_to) of the subject last read */
    int subj_to;
    int failed;         /* 1: fail holds a failure */
    int fail_reached;   /* fail's cursor, in lx->tok */
    GrammarVerdict fail; /* the failure that read farthest (the first of equals) */
} Parser;

static const Tok *tok_at(const Parser *ps, int off)
{
    int i = ps->p + off;
    return i >= 0 && i < ps->lx->n ? &ps->lx->tok[i] : &END_TOK;
}

static const char *en_at(const Parser *ps, int off)
{
    return tok_at(ps, off)->w;
}

static int en_is(const Parser *ps, const char *w)
{
    return streq(en_at(ps, 0), w);
}

static int en_is_at(const Parser *ps, int off, const char *w)
{
    return streq(en_at(ps, off), w);
}

static int is_be(const char *w)
{
    return streq(w, "am") || streq(w, "is") || streq(w, "are");
}

/* The caller's index of word token i; past the words, the final mark, and past that
 * the caller's n. */
static int src_of(const Lexed *lx, int i)
{
    if (i < lx->n)
        return lx->tok[i].src;
    return i == lx->n && lx->punct_src >= 0 ? lx->punct_src : lx->ntokens;
}

/* Records a failure over the caller's tokens [from, to), having read up to word token
 * reached, unless an earlier failure read as far; is -1. */
static int fail_record(Parser *ps, int reached, int from, int to, const char *fmt, va_list ap)
{
    if (ps->failed && ps->fail_reached >= reached)
        return -1;
    ps->failed = 1;
    ps->fail_reached = reached;
    ps->fail.in_grammar = 0;
    ps->fail.from = from;
    ps->fail.to = to > from ? to : from + 1;
    ps->fail.reached = src_of(ps->lx, reached);
    vsnprintf(ps->fail.reason, sizeof ps->fail.reason, fmt, ap);
    return -1;
}

/* A failure over the word tokens [from, to) at the cursor (a failure at the end: the
 * final mark, or the last word); is -1. */
static int fail_words(Parser *ps, int from, int to, const char *fmt, ...)
{
    const Lexed *lx = ps->lx;
    int a, b;
    if (from >= lx->n) {
        a = lx->punct_src >= 0 ? lx->punct_src : lx->tok[lx->n - 1].src;
        b = a + 1;
    } else {
        a = lx->tok[from].src;
        b = to > from ? src_of(lx, to - 1) + 1 : a + 1;
    }
    va_list ap;
    va_start(ap, fmt);
    fail_record(ps, ps->p, a, b, fmt, ap);
    va_end(ap);
    return -1;
}

/* A failure of a reading that read all its words (a comma or the final mark out of
 * place), over the caller's tokens [from, from + 1); is -1. */
static int fail_after_words(Parser *ps, int from, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_record(ps, ps->lx->n + 1, from, from + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* "expected WHAT here" at the cursor, or "at the end". */
static int fail_want(Parser *ps, const char *what)
{
    if (ps->p >= ps->lx->n)
        return fail_words(ps, ps->p, ps->p + 1, "expected %s at the end", what);
    return fail_words(ps, ps->p, ps->p + 1, "expected %s here", what);
}

/* 1 when the word at the cursor + off is a verb form (a lexical verb, be or do). */
static int en_is_verbish(const Parser *ps, int off)
{
    const char *w = en_at(ps, off);
    return tok_at(ps, off)->verb >= 0 || is_be(w) || streq(w, "do") || streq(w, "does");
}

/* 1 when the word at the cursor + off can start `[very] adjective noun` / a noun. */
static int en_starts_nominal(const Parser *ps, int off)
{
    const Tok *t = tok_at(ps, off);
    return streq(t->w, "very") || t->adj >= 0 || t->noun >= 0;
}

static int is_vowel_letter(char c)
{
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

/* The determiner w is, or -1; *plural_only is 1 for "these". */
static int find_det(const char *w, int *plural_only)
{
    *plural_only = streq(w, "these");
    if (*plural_only)
        return GRAMMAR_DET_THIS;
    if (streq(w, "an"))
        return GRAMMAR_DET_A;
    for (int d = GRAMMAR_DET_THE; d < GRAMMAR_DETS; d++)
        if (streq(w, GRAMMAR_DET_EN[d]))
            return d;
    return -1;
}

/* Why no noun is at the cursor of a noun phrase that began at start (a determiner,
 * "very" or an adjective read when the cursor is past start). */
static int np_missing(Parser *ps, Role role, const GrammarNp *np, int start)
{
    const Tok *t = tok_at(ps, 0);
    int plural_only;
    if (streq(t->w, "not") && ps->p > start) {
        int end = ps->p + 1;
        while (end < ps->lx->n && (streq(ps->lx->tok[end].w, "very") || ps->lx->tok[end].adj >= 0))
            end++;
        return fail_words(ps, ps->p, end, "\"not\" inside a noun phrase");
    }
    if (t->adj >= 0 && np->adj >= 0)
        return fail_words(ps, ps->p, ps->p + 1, "two adjectives before a noun");
    if (find_det(t->w, &plural_only) >= 0 && ps->p > start)
        return fail_words(ps, ps->p, ps->p + 1, "two determiners before a noun");
    if ((streq(t->w, "in") || streq(t->w, "with")) && role == ROLE_SUBJ && ps->p == start)
        return fail_words(ps, ps->p, ps->p + 1, "the grammar puts \"%s …\" after the verb "
                          "and its object, not first", t->w);
    return fail_want(ps, ps->p > start ? "a noun" : "a noun phrase");
}

/* Parses one noun phrase in role: `determiner [[very] adjective] noun`, a pronoun, a
 * name or object "this"; checks a/an, this/these, mass and count nouns. */
static int en_np(Parser *ps, Role role, GrammarNp *np)
{
    memset(np, 0, sizeof *np);
    np->adj = -1;
    const Tok *t = tok_at(ps, 0);
    if (t->is_name) {
        np->kind = GRAMMAR_NP_NAME;
        np->index = t->name;
        ps->p++;
        return 0;
    }
    for (int i = 0; i < GRAMMAR_N_PRONOUNS; i++) {
        const GrammarPronoun *pr = &GRAMMAR_PRONOUNS[i];
        const char *form = role == ROLE_SUBJ   ? pr->subj
                           : role == ROLE_OBJ  ? pr->obj
                           : role == ROLE_WITH ? pr->with
                                               : NULL;
        /* "her" before a noun is the possessive. */
        if (streq(t->w, form) && !(streq(t->w, "her") && en_starts_nominal(ps, 1))) {
            np->kind = GRAMMAR_NP_PRONOUN;
            np->index = i;
            np->plural = pr->person >= GRAMMAR_1PL;
            ps->p++;
            return 0;
        }
    }
    if (role == ROLE_OBJ && (streq(t->w, "this") || streq(t->w, "these")) &&
        !en_starts_nominal(ps, 1)) {
        np->kind = GRAMMAR_NP_THIS;
        np->plural = streq(t->w, "these");
        ps->p++;
        return 0;
    }
    int plural_only = 0, d = find_det(t->w, &plural_only);
    int start = ps->p, det_at = ps->p;
    np->kind = GRAMMAR_NP_NOUN;
    np->det = d < 0 ? GRAMMAR_DET_NONE : (GrammarDet)d;
    if (d >= 0)
        ps->p++;
    if (en_is(ps, "very")) {
        np->very = 1;
        ps->p++;
        if (tok_at(ps, 0)->adj < 0) {
            if (en_is(ps, "very"))
                return fail_words(ps, ps->p, ps->p + 1, "\"very\" twice");
            return fail_words(ps, ps->p - 1, ps->p, "\"very\" only before an adjective");
        }
    }
    np->adj = tok_at(ps, 0)->adj;
    int adj_at = ps->p;
    if (np->adj >= 0)
        ps->p++;
    np->noun = tok_at(ps, 0)->noun;
    np->plural = tok_at(ps, 0)->plural;
    if (np->noun < 0)
        return np_missing(ps, role, np, start);
    const GrammarNoun *n = &GRAMMAR_NOUNS[np->noun];
    const Lexed *lx = ps->lx;
    if (np->det == GRAMMAR_DET_A) {
        int first = np->very ? adj_at - 1 : np->adj >= 0 ? adj_at : ps->p;
        int an = is_vowel_letter(lx->tok[first].w[0]);
        if (streq(lx->tok[det_at].w, an ? "a" : "an")) {
            ps->p = det_at;
            return fail_words(ps, det_at, det_at + 1, "\"%s\" before \"%s\": want \"%s\"",
                              an ? "a" : "an", lx->tok[first].w, an ? "an" : "a");
        }
        if (np->plural || n->en_pl == NULL)
            return fail_words(ps, det_at, ps->p + 1, "no \"a\" before a %s",
                              np->plural ? "plural" : "mass noun");
    }
    if (np->det == GRAMMAR_DET_THIS && np->plural != plural_only)
        return fail_words(ps, det_at, ps->p + 1, "\"%s\" with a %s noun",
                          plural_only ? "these" : "this", np->plural ? "plural" : "singular");
    if (np->det == GRAMMAR_DET_NONE && !np->plural && n->en_pl != NULL)
        return fail_words(ps, start, ps->p + 1, "a singular count noun needs a determiner "
                          "(a, the, my …)");
    if (np->det >= GRAMMAR_DET_MY && n->nopossessive)
        return fail_words(ps, det_at, ps->p + 1, "no possessive before \"%s\" in this grammar",
                          n->en_sg);
    ps->p++;
    return 0;
}

/* 1 when a and b are the same noun, name or pronoun ("the dog and my dogs"). Names the
 * caller flagged are not compared: their tokens are not at hand, and any two may differ. */
static int np_same(const GrammarNp *a, const GrammarNp *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case GRAMMAR_NP_NOUN: return a->noun == b->noun;
    case GRAMMAR_NP_NAME: return a->index == b->index && a->index != GRAMMAR_NAME_OTHER;
    case GRAMMAR_NP_PRONOUN: return a->index == b->index;
    case GRAMMAR_NP_THIS: return 1;
    }
    return 0;
}

/* The two noun phrases l holds, joined by "and" at word tokens [start, ps->p) in role,
 * as the corpus coordinates: nouns and names only (the German of "Tom and I" takes the
 * 1st person plural, of "du und ich" other persons again), neither with "no", not the
 * same word twice, and neither after "with" nor as a predicate, where the corpus has one
 * phrase. Records the first such pair of the reading for en_sentence; 0, or -1. */
static int np_pair_check(Parser *ps, Role role, const GrammarNpList *l, int start)
{
    static const char *const ROLE_NAMES[] = {"a subject", "an object"};
    if (ps->coord_from < 0) {
        ps->coord_from = start;
        ps->coord_to = ps->p;
    }
    if (role == ROLE_WITH)
        return fail_words(ps, start, ps->p, "one person or animal after \"with\"");
    if (role == ROLE_IN)
        return fail_words(ps, start, ps->p, "one place after \"in\"");
    if (role == ROLE_PRED)
        return fail_words(ps, start, ps->p, "one noun phrase as the predicate");
    assert(role == ROLE_SUBJ || role == ROLE_OBJ);
    for (int i = 0; i < 2; i++) {
        const GrammarNp *np = &l->np[i];
        if (np->kind == GRAMMAR_NP_PRONOUN || np->kind == GRAMMAR_NP_THIS)
            return fail_words(ps, start, ps->p, "a pronoun joined with \"and\": the grammar "
                              "coordinates nouns and names only");
        if (np->kind == GRAMMAR_NP_NOUN && np->det == GRAMMAR_DET_NO)
            return fail_words(ps, start, ps->p, "\"no\" in %s joined with \"and\"",
                              ROLE_NAMES[role]);
    }
    if (np_same(&l->np[0], &l->np[1]))
        return fail_words(ps, start, ps->p, "the same %s twice in %s",
                          l->np[0].kind == GRAMMAR_NP_NAME ? "name" : "noun", ROLE_NAMES[role]);
    return 0;
}

/* Parses a noun phrase or two joined by "and". A subject takes "and NP" always; after a
 * verb "and NP" is a choice: coordination, or the start of the next clause. The first
 * reading tried is coordination unless a verb follows; ps->flip turns choices over, so
 * that every reading can be tried. */
static int en_np_list(Parser *ps, Role role, GrammarNpList *l)
{
    int start = ps->p;
    l->n = 1;
    if (en_np(ps, role, &l->np[0]) != 0)
        return -1;
    if (!en_is(ps, "and") || tok_at(ps, -1)->comma >= 0)
        return 0;
    int save = ps->p;
    ps->p++;
    GrammarNp second;
    int take = 0;
    if (en_np(ps, role, &second) == 0) {
        take = role == ROLE_SUBJ || !en_is_verbish(ps, 0);
        if (role != ROLE_SUBJ && ps->choices < 31 && ((ps->flip >> ps->choices++) & 1u))
            take = !take;
    }
    if (take) {
        l->np[1] = second;
        l->n = 2;
        return np_pair_check(ps, role, l, start);
    }
    ps->p = save;
    return 0;
}

/* The person of a subject: coordinated and plural subjects are 3rd plural. */
static GrammarPerson subject_person(const GrammarNpList *l)
{
    if (l->n == 2)
        return GRAMMAR_3PL;
    const GrammarNp *np = &l->np[0];
    if (np->kind == GRAMMAR_NP_PRONOUN)
        return GRAMMAR_PRONOUNS[np->index].person;
    return np->plural ? GRAMMAR_3PL : GRAMMAR_3SG;
}

/* Parses the subject of a clause into c->subj, noting where it stands. */
static int en_subject(Parser *ps, GrammarClause *c)
{
    ps->subj_from = ps->p;
    int rc = en_np_list(ps, ROLE_SUBJ, &c->subj);
    ps->subj_to = ps->p;
    return rc;
}

/* 1 when a noun phrase of l has the determiner "no". */
static int list_has_no(const GrammarNpList *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->np[i].kind == GRAMMAR_NP_NOUN && l->np[i].det == GRAMMAR_DET_NO)
            return 1;
    return 0;
}

/* Checks that the word at the cursor is forms[person]; advances. */
static int en_agree(Parser *ps, const char *const forms[GRAMMAR_PERSONS], GrammarPerson person,
                    const char *what)
{
    if (!en_is(ps, forms[person]))
        return fail_words(ps, ps->p, ps->p + 1, "%s does not agree with the %s subject: want "
                          "\"%s\"", what, PERSON_NAMES[person], forms[person]);
    ps->p++;
    return 0;
}

/* "not" at the cursor: sets *neg, refusing a second one. */
static int en_not(Parser *ps, int *neg)
{
    if (!en_is(ps, "not"))
        return 0;
    if (*neg)
        return fail_words(ps, ps->p, ps->p + 1, "a second \"not\"");
    *neg = 1;
    ps->p++;
    return 0;
}

/* The predicate adjectives: [very] ADJ [and [not] [very] ADJ2]. */
static int en_adj_predicate(Parser *ps, GrammarClause *c)
{
    c->type = GRAMMAR_CL_ADJ;
    c->adj_not[0] = c->neg;
    for (;;) {
        int i = c->nadj;
        if (i > 0 && en_not(ps, &c->adj_not[i]) != 0)
            return -1;
        if (en_is(ps, "very")) {
            c->adj_very[i] = 1;
            ps->p++;
        }
        c->adj[i] = tok_at(ps, 0)->adj;
        if (c->adj[i] < 0) {
            if (c->adj_very[i] && en_is(ps, "very"))
                return fail_words(ps, ps->p, ps->p + 1, "\"very\" twice");
            return fail_want(ps, "an adjective");
        }
        if (i > 0) {
            const GrammarAdjective *a = &GRAMMAR_ADJECTIVES[c->adj[0]];
            const char *second = GRAMMAR_ADJECTIVES[c->adj[1]].en;
            if (c->adj[1] == c->adj[0] || streq(second, a->opp[0]) || streq(second, a->opp[1]))
                return fail_words(ps, ps->p, ps->p + 1, "the second adjective repeats or "
                                  "opposes \"%s\"", a->en);
        }
        ps->p++;
        c->nadj++;
        if (c->adj_not[i] && list_has_no(&c->subj))
            return fail_words(ps, ps->subj_from, ps->subj_to, "\"no\" only in clauses "
                              "without \"not\"");
        if (c->nadj == 2 || !en_is(ps, "and") || tok_at(ps, -1)->comma >= 0)
            return 0;
        /* "and [not] [very] ADJ" not followed by a noun goes on the predicate. */
        int k = 1 + en_is_at(ps, 1, "not");
        k += en_is_at(ps, k, "very");
        if (tok_at(ps, k)->adj < 0 || tok_at(ps, k + 1)->noun >= 0)
            return 0;
        ps->p++;
    }
}

/* The sex of what a noun phrase stands for: the noun's, the name's, the pronoun's;
 * none for a name the caller flagged (the grammar does not know it) and for "this". */
static GrammarSex np_sex(const GrammarNp *np)
{
    switch (np->kind) {
    case GRAMMAR_NP_NOUN: return GRAMMAR_NOUNS[np->noun].sex;
    case GRAMMAR_NP_NAME:
        return np->index == GRAMMAR_NAME_OTHER ? GRAMMAR_SEX_NONE
                                               : GRAMMAR_NAMES[np->index].sex;
    case GRAMMAR_NP_PRONOUN: return GRAMMAR_PRONOUNS[np->index].sex;
    case GRAMMAR_NP_THIS: return GRAMMAR_SEX_NONE;
    }
    return GRAMMAR_SEX_NONE;
}

/* The word of a noun phrase at word token at, for a learner: the noun as written, the
 * name as the lexicon writes it, "I". */
static const char *np_word(const Parser *ps, const GrammarNp *np, int at)
{
    switch (np->kind) {
    case GRAMMAR_NP_NOUN:
        return np->plural ? GRAMMAR_NOUNS[np->noun].en_pl : GRAMMAR_NOUNS[np->noun].en_sg;
    case GRAMMAR_NP_NAME:
        return np->index == GRAMMAR_NAME_OTHER ? ps->lx->tok[at].w
                                               : GRAMMAR_NAMES[np->index].name;
    case GRAMMAR_NP_PRONOUN: return np->index == 0 ? "I" : GRAMMAR_PRONOUNS[np->index].subj;
    case GRAMMAR_NP_THIS: return np->plural ? "these" : "this";
    }
    return "";
}

/* A noun predicate of a person, read at word tokens [at, ps->p): one subject, and a
 * predicate noun with a sex only of a subject known to have it ("Anna is a teacher" would
 * be "Anna ist ein Lehrer"; "I" and "you" may be either). */
static int noun_predicate_check(Parser *ps, const GrammarClause *c, int at)
{
    if (c->subj.n == 2)
        return fail_words(ps, ps->subj_from, ps->subj_to, "a noun predicate takes one "
                          "subject, not two joined by \"and\"");
    const GrammarNp *subj = &c->subj.np[0], *pred = &c->obj.np[0];
    GrammarSex want = np_sex(pred), have = np_sex(subj);
    if (want == GRAMMAR_SEX_NONE || have == want)
        return 0;
    const char *word = np_word(ps, subj, ps->subj_from), *noun = np_word(ps, pred, at);
    const char *whose = want == GRAMMAR_SEX_M ? "man's" : "woman's";
    const char *is = subj->plural ? "are" : "is";
    if (have == GRAMMAR_SEX_NONE)
        return fail_words(ps, at, ps->p, "the predicate noun \"%s\" is a %s word; the grammar "
                          "does not know whether \"%s\" %s %s", noun, whose, word, is,
                          want == GRAMMAR_SEX_M ? "male" : "female");
    return fail_words(ps, at, ps->p, "the predicate noun \"%s\" is a %s word; \"%s\" %s %s",
                      noun, whose, word, is, have == GRAMMAR_SEX_M ? "male" : "female");
}

/* After "be" (and its subject): [not] ADJ-predicate | [not] NP | [not] in NP. */
static int en_be_rest(Parser *ps, GrammarClause *c, int this_subject)
{
    if (en_not(ps, &c->neg) != 0)
        return -1;
    int plural = c->subj.n == 2 || c->subj.np[0].plural;
    if (en_is(ps, "in") && !this_subject) {
        ps->p++;
        c->type = GRAMMAR_CL_LOCATION;
        c->obj.n = 1;
        return en_np(ps, ROLE_IN, &c->obj.np[0]);
    }
    /* [very] ADJ not followed by a noun is the predicate adjective; "big dogs" a noun. */
    int k = en_is(ps, "very");
    if (tok_at(ps, k)->adj >= 0 && tok_at(ps, k + 1)->noun < 0)
        return en_adj_predicate(ps, c);
    if (k && en_is_at(ps, 1, "very"))
        return fail_words(ps, ps->p + 1, ps->p + 2, "\"very\" twice");
    c->type = GRAMMAR_CL_NOUN;
    int at = ps->p;
    if (en_np_list(ps, ROLE_PRED, &c->obj) != 0)
        return -1;
    if (c->obj.np[0].plural != plural)
        return fail_words(ps, at, ps->p, "the predicate noun must be %s like the subject",
                          plural ? "plural" : "singular");
    return this_subject ? 0 : noun_predicate_check(ps, c, at);
}

/* Verb [and verb] OBJECT [adjunct]. person: the subject's, or -1 in an imperative;
 * base: 1 after do-support and in imperatives (the verb takes no -s). */
static int en_transitive(Parser *ps, GrammarClause *c, int person, int base)
{
    c->type = GRAMMAR_CL_TRANSITIVE;
    for (;;) {
        const Tok *t = tok_at(ps, 0);
        int v = t->verb;
        if (v < 0)
            return fail_want(ps, "a verb");
        int want_third = person == GRAMMAR_3SG && !base;
        if (t->third != want_third)
            return fail_words(ps, ps->p, ps->p + 1, "verb does not agree with the %s: want "
                              "\"%s\"", person < 0 ? "imperative" : base ? "do-support"
                              : PERSON_NAMES[person], want_third ? GRAMMAR_VERBS[v].en_3sg
                              : GRAMMAR_VERBS[v].en);
        if (person < 0 && GRAMMAR_VERBS[v].imperative == NULL)
            return fail_words(ps, ps->p, ps->p + 1, "\"%s\" has no imperative in this grammar",
                              GRAMMAR_VERBS[v].en);
        if (c->nverbs == 1 && v == c->verb[0])
            return fail_words(ps, ps->p, ps->p + 1, "the same verb twice");
        c->verb[c->nverbs++] = v;
        ps->p++;
        if (c->nverbs == 2 || !en_is(ps, "and") || c->neg ||
            ps->s->mood == GRAMMAR_DO_QUESTION)
            break;
        if (tok_at(ps, 1)->verb < 0)
            break;
        ps->p++;
    }
    int at = ps->p;
    if (en_np_list(ps, ROLE_OBJ, &c->obj) != 0)
        return -1;
    if (c->neg && list_has_no(&c->obj))
        return fail_words(ps, at, ps->p, "\"no\" only in clauses without \"not\"");
    if (c->neg && list_has_no(&c->subj))
        return fail_words(ps, ps->subj_from, ps->subj_to, "\"no\" only in clauses without "
                          "\"not\"");
    if (list_has_no(&c->subj) && list_has_no(&c->obj))
        return fail_words(ps, at, ps->p, "\"no\" once per clause");
    if (c->neg && c->obj.n == 2)
        return fail_words(ps, at, ps->p, "a negated clause has one object");
    if (en_is(ps, "with") || en_is(ps, "in")) {
        if (c->neg)
            return fail_words(ps, ps->p, ps->p + 1, "a negated clause takes no \"with\" or "
                              "\"in\" phrase");
        c->adjunct = en_is(ps, "with") ? GRAMMAR_ADJUNCT_WITH : GRAMMAR_ADJUNCT_IN;
        ps->p++;
        if (en_np_list(ps, c->adjunct == GRAMMAR_ADJUNCT_WITH ? ROLE_WITH : ROLE_IN,
                       &c->adjunct_np) != 0)
            return -1;
    }
    return 0;
}

/* One clause in statement order. */
static int en_clause(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int this_sg = en_is(ps, "this"), these = en_is(ps, "these");
    if ((this_sg || these) && is_be(en_at(ps, 1))) {
        c->subj.n = 1;
        c->subj.np[0].kind = GRAMMAR_NP_THIS;
        c->subj.np[0].plural = these;
        c->person = these ? GRAMMAR_3PL : GRAMMAR_3SG;
        ps->p++;
        if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
            return -1;
        return en_be_rest(ps, c, 1);
    }
    if (en_subject(ps, c) != 0)
        return -1;
    c->person = subject_person(&c->subj);
    if (is_be(en_at(ps, 0))) {
        if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
            return -1;
        return en_be_rest(ps, c, 0);
    }
    if (en_is(ps, "do") || en_is(ps, "does")) {
        if (en_agree(ps, DO_FORMS, c->person, "\"do\"") != 0)
            return -1;
        if (!en_is(ps, "not"))
            return fail_words(ps, ps->p, ps->p + 1, "expected \"not\" after \"%s\"",
                              en_at(ps, -1));
        ps->p++;
        c->neg = 1;
    }
    return en_transitive(ps, c, (int)c->person, c->neg);
}

/* "not" right after the be or do that opens a question: the corpus writes it only as
 * "n't" (Isn't the dog big?); the tokens say so only when the caller flagged it. */
static int en_question_not(Parser *ps, GrammarClause *c)
{
    if (!en_is(ps, "not"))
        return 0;
    if (tok_at(ps, 0)->written_not)
        return fail_words(ps, ps->p, ps->p + 1, "\"not\" before the subject only as \"n't\"");
    c->neg = 1;
    ps->p++;
    return 0;
}

/* The rest of a be-question after its subject: agreement with the "be" at be_at, then
 * the predicate. */
static int be_question_rest(Parser *ps, GrammarClause *c, int be_at, int this_subject)
{
    int after = ps->p;
    ps->p = be_at;
    if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
        return -1;
    ps->p = after;
    return en_be_rest(ps, c, this_subject);
}

/* Is/Are/Am [n't] SUBJ [not] PREDICATE */
static int en_be_question(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int be_at = ps->p++;
    if (en_question_not(ps, c) != 0)
        return -1;
    if ((en_is(ps, "this") || en_is(ps, "these")) && en_starts_nominal(ps, 1)) {
        /* "Are these old dogs?" has "these" as subject; "Is this old dog big?" a noun
         * phrase: try the noun phrase first, then "this"/"these" alone. */
        int save = ps->p;
        GrammarClause tc = *c;
        if (en_subject(ps, &tc) == 0) {
            tc.person = subject_person(&tc.subj);
            if (be_question_rest(ps, &tc, be_at, 0) == 0) {
                *c = tc;
                return 0;
            }
        }
        ps->p = save;
    }
    int this_subject = 0;
    if (en_is(ps, "this") || en_is(ps, "these")) {
        this_subject = 1;
        c->subj.n = 1;
        c->subj.np[0].kind = GRAMMAR_NP_THIS;
        c->subj.np[0].plural = en_is(ps, "these");
        ps->p++;
    } else if (en_subject(ps, c) != 0) {
        return -1;
    }
    c->person = subject_person(&c->subj);
    return be_question_rest(ps, c, be_at, this_subject);
}

/* Do/Does [n't] SUBJ [not] VERB OBJ [adjunct] */
static int en_do_question(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int do_at = ps->p++;
    if (en_question_not(ps, c) != 0)
        return -1;
    if (en_subject(ps, c) != 0)
        return -1;
    c->person = subject_person(&c->subj);
    int after = ps->p;
    ps->p = do_at;
    if (en_agree(ps, DO_FORMS, c->person, "\"do\"") != 0)
        return -1;
    ps->p = after;
    if (en_not(ps, &c->neg) != 0)
        return -1;
    return en_transitive(ps, c, (int)c->person, 1);
}

/* The sentence: its mood from the first word, its clauses, then where commas and the
 * final mark stand. */
static int en_sentence(Parser *ps)
{
    const Lexed *lx = ps->lx;
    GrammarSentence *s = ps->s;
    s->punct = lx->punct;
    int comma_ok[MAX_TOKS] = {0};
    const char *first = en_at(ps, 0);
    if (is_be(first)) {
        s->mood = GRAMMAR_BE_QUESTION;
        if (en_be_question(ps, &s->cl[0]) != 0)
            return -1;
        s->ncl = 1;
    } else if ((streq(first, "do") || streq(first, "does")) &&
               !(en_is_at(ps, 1, "not") && tok_at(ps, 2)->verb >= 0)) {
        s->mood = GRAMMAR_DO_QUESTION;
        if (en_do_question(ps, &s->cl[0]) != 0)
            return -1;
        s->ncl = 1;
    } else if (streq(first, "do") || tok_at(ps, 0)->verb >= 0) {
        s->mood = GRAMMAR_IMPERATIVE;
        GrammarClause *c = &s->cl[0];
        memset(c, 0, sizeof *c);
        if (streq(first, "do")) {
            ps->p += 2;
            c->neg = 1;
        }
        if (en_transitive(ps, c, -1, 1) != 0)
            return -1;
        s->ncl = 1;
    } else {
        s->mood = GRAMMAR_STATEMENT;
        for (;;) {
            if (en_clause(ps, &s->cl[s->ncl]) != 0)
                return -1;
            s->ncl++;
            if (!en_is(ps, "and") || s->ncl == GRAMMAR_MAX_CLAUSES)
                break;
            comma_ok[ps->p - 1] = 1;
            ps->p++;
        }
    }
    if (ps->p < lx->n) {
        if (en_is(ps, "and") && s->ncl == GRAMMAR_MAX_CLAUSES)
            return fail_words(ps, ps->p, lx->n, "at most %d clauses joined by \"and\"",
                              GRAMMAR_MAX_CLAUSES);
        return fail_words(ps, ps->p, lx->n, "the sentence should have ended before this");
    }
    /* Clauses joined by "and" hold no pair of noun phrases joined by "and", so that every
     * "and" joins one way only (docs/corpus.md, Sentences). */
    if (s->ncl > 1 && ps->coord_from >= 0)
        return fail_words(ps, ps->coord_from, ps->coord_to, "\"and\" joins two noun phrases "
                          "only in a sentence of one clause");
    for (int i = 0; i < lx->n; i++)
        if (lx->tok[i].comma >= 0 && !comma_ok[i])
            return fail_after_words(ps, lx->tok[i].comma, "a comma only before the \"and\" "
                                    "that joins two clauses");
    static const char *const PUNCTS[] = {".", "?", "?", ".!"};
    if (s->punct != 0 && strchr(PUNCTS[s->mood], s->punct) == NULL)
        return fail_after_words(ps, lx->punct_src, "a %s does not end in \"%c\"",
                          s->mood == GRAMMAR_STATEMENT    ? "statement"
                          : s->mood == GRAMMAR_IMPERATIVE ? "command"
                                                          : "question",
                          s->punct);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The API.
 * ------------------------------------------------------------------------------------- */

static int check_args(const char *const *tokens, int n, const GrammarVerdict *out)
{
    if (n < 0 || out == NULL || (n > 0 && tokens == NULL))
        return TT_EINVAL;
    for (int i = 0; i < n; i++)
        if (tokens[i] == NULL)
            return TT_EINVAL;
    return TT_OK;
}

/* One reading of lexed tokens; 0 with *s the parse, or -1 with *out the failure. */
static int parse_lexed(const Lexed *lx, unsigned reading, GrammarSentence *s, int *choices,
                       GrammarVerdict *out)
{
    memset(s, 0, sizeof *s);
    Parser ps = {.lx = lx, .s = s, .flip = reading, .coord_from = -1};
    int rc = en_sentence(&ps);
    *choices = ps.choices;
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        out->in_grammar = 1;
        return 0;
    }
    assert(ps.failed);
    *out = ps.fail;
    return -1;
}

int grammar_parse(const char *const *tokens, const unsigned char *flags, int n,
                  unsigned reading, GrammarSentence *s, int *choices, GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK || s == NULL || choices == NULL)
        return rc != TT_OK ? rc : TT_EINVAL;
    Lexed lx;
    *choices = 0;
    if (lex(tokens, flags, 0, n, &lx, out) != 0)
        return TT_OK;
    parse_lexed(&lx, reading, s, choices, out);
    return TT_OK;
}

/* Readings grammar_check tries at most: 2^8, far more than the corpus's sentences have
 * (three clauses, so at most a few "and"s after an object). */
enum { MAX_READINGS = 256 };

int grammar_check(const char *const *tokens, const unsigned char *is_name, int n,
                  GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK)
        return rc;
    Lexed lx;
    GrammarSentence s;
    if (lex(tokens, is_name, 1, n, &lx, out) != 0)
        return TT_OK;
    GrammarVerdict best = {.reached = -1}, v;
    int choices = 0;
    for (unsigned r = 0; r < MAX_READINGS && (r == 0 || r < (1u << choices)); r++) {
        int more;
        if (parse_lexed(&lx, r, &s, &more, &v) == 0) {
            *out = v;
            return TT_OK;
        }
        if (more > choices)
            choices = more;
        if (v.reached > best.reached)
            best = v;
    }
    *out = best;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The phrasebook, typed from data/phrasebook-next.tsv (test_grammar_phrasebook_matches_
 * table holds it to the file, token for token).
 * ------------------------------------------------------------------------------------- */

/* FNV-1a 64 of data/phrasebook-next.tsv as the table was typed from it. */
#define PHRASEBOOK_FNV1A64 UINT64_C(0x60fb2f3b45ad9e2f)

const GrammarPhrase GRAMMAR_PHRASES[GRAMMAR_N_PHRASES] = {
    {"hello", "Hallo", 0},
    {"hi", "Hi", 0},
    {"good morning", "Guten Morgen", 0},
    {"good afternoon", "Guten Tag", 0},
    {"good evening", "Guten Abend", 0},
    {"good night", "Gute Nacht", 0},
    {"goodbye", "Auf Wiedersehen", 0},
    {"bye", "Tschüss", 0},
    {"see you later", "Bis später", 0},
    {"see you tomorrow", "Bis morgen", 0},
    {"see you soon", "Bis bald", 0},
    {"have a nice day", "Schönen Tag noch", 0},
    {"welcome", "Willkommen", 0},
    {"thanks", "Danke", 0},
    {"thank you", "Danke schön", 0},
    {"thank you very much", "Vielen Dank", 0},
    {"you are welcome", "Gern geschehen", 0},
    {"please", "Bitte", 0},
    {"yes", "Ja", 0},
    {"no", "Nein", 0},
    {"yes , please", "Ja, bitte", 0},
    {"no , thank you", "Nein, danke", 0},
    {"excuse me", "Entschuldigung", 0},
    {"sorry", "Tut mir leid", 0},
    {"i am sorry", "Es tut mir leid", 0},
    {"no problem", "Kein Problem", 0},
    {"how are you", "Wie geht es dir", 1},
    {"i am fine", "Mir geht es gut", 0},
    {"i am fine , thanks", "Mir geht es gut, danke", 0},
    {"and you", "Und dir", 1},
    {"not bad", "Nicht schlecht", 0},
    {"what is your name", "Wie heißt du", 1},
    {"nice to meet you", "Freut mich", 0},
    {"where are you from", "Woher kommst du", 1},
    {"i do not understand", "Ich verstehe das nicht", 0},
    {"i do not know", "Ich weiß es nicht", 0},
    {"can you help me", "Kannst du mir helfen", 1},
    {"do you speak english", "Sprichst du Englisch", 1},
    {"i speak a little german", "Ich spreche ein bisschen Deutsch", 0},
    {"of course", "Natürlich", 0},
    {"me too", "Ich auch", 0},
    {"good luck", "Viel Glück", 0},
    {"have fun", "Viel Spaß", 0},
    {"congratulations", "Herzlichen Glückwunsch", 0},
    {"happy birthday", "Alles Gute zum Geburtstag", 0},
    {"merry christmas", "Frohe Weihnachten", 0},
    {"happy new year", "Frohes neues Jahr", 0},
    {"enjoy your meal", "Guten Appetit", 0},
    {"cheers", "Prost", 0},
    {"take care", "Pass auf dich auf", 0},
    {"sleep well", "Schlaf gut", 0},
    {"get well soon", "Gute Besserung", 0},
};

uint64_t grammar_phrasebook_fnv1a64(void)
{
    return PHRASEBOOK_FNV1A64;
}

/* How many of tokens[0..n) match phrase p word for word from the start; *whole is set to
 * 1 when they are all of it. */
static int phrase_prefix(const GrammarPhrase *p, const char *const *tokens, int n, int *whole)
{
    const char *w = p->en;
    int k = 0;
    while (k < n) {
        const size_t len = strcspn(w, " ");
        if (len == 0 || strlen(tokens[k]) != len || strncmp(tokens[k], w, len) != 0)
            break;
        k++;
        w += len;
        if (*w == ' ')
            w++;
    }
    *whole = k == n && *w == '\0';
    return k;
}

int grammar_find_phrase(const char *const *tokens, int n)
{
    if (n <= 0 || tokens == NULL)
        return -1;
    for (int i = 0; i < GRAMMAR_N_PHRASES; i++) {
        int whole;
        phrase_prefix(&GRAMMAR_PHRASES[i], tokens, n, &whole);
        if (whole)
            return i;
    }
    return -1;
}

/* The phrasebook's verdict on tokens[0..n): 1 when a phrase with a mark its mood takes
 * (out filled, in the grammar); else 0, with *near the tokens the nearest phrase matches
 * and out filled with where the sentence leaves it (when *near > 0). */
static int phrase_verdict(const char *const *tokens, int n, GrammarVerdict *out, int *near)
{
    const char *last = n > 0 ? tokens[n - 1] : "";
    const int marked = streq(last, ".") || streq(last, "?") || streq(last, "!");
    const int m = n - marked; /* the words */
    int best = -1, best_len = 0;
    *near = 0;
    for (int i = 0; i < GRAMMAR_N_PHRASES; i++) {
        int whole;
        const int k = phrase_prefix(&GRAMMAR_PHRASES[i], tokens, m, &whole);
        if (whole) {
            const int ok = !marked || (GRAMMAR_PHRASES[i].question ? last[0] == '?'
                                                                   : last[0] != '?');
            if (ok) {
                memset(out, 0, sizeof *out);
                out->in_grammar = 1;
                return 1;
            }
            *near = n;
            verdict_fail(out, m, n, m, GRAMMAR_PHRASES[i].question
                         ? "\"%s\" asks: \"?\" or no mark, not \"%s\""
                         : "\"%s\" does not ask: \".\", \"!\" or no mark, not \"%s\"",
                         GRAMMAR_PHRASES[i].en, last);
            return 0;
        }
        if (k > best_len) {
            best = i;
            best_len = k;
        }
    }
    if (best < 0)
        return 0;
    *near = best_len;
    if (best_len < m)
        verdict_fail(out, best_len, best_len + 1, best_len, "not the phrase \"%s\"",
                     GRAMMAR_PHRASES[best].en);
    else /* all the words, but the phrase goes on */
        verdict_fail(out, m - 1, m, m, "the phrase \"%s\" cut short",
                     GRAMMAR_PHRASES[best].en);
    return 0;
}

int grammar_check_with(const char *const *tokens, const unsigned char *is_name, int n,
                       unsigned with, GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK || !(with & GRAMMAR_WITH_PHRASEBOOK))
        return rc != TT_OK ? rc : grammar_check(tokens, is_name, n, out);
    GrammarVerdict phrase;
    int near;
    if (phrase_verdict(tokens, n, &phrase, &near)) {
        *out = phrase;
        return TT_OK;
    }
    rc = grammar_check(tokens, is_name, n, out);
    /* Outside both: report the one the sentence followed farther. */
    if (rc == TT_OK && !out->in_grammar && near > 0 && near >= out->reached)
        *out = phrase;
    return rc;
}
