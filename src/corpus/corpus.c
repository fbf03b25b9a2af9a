/*
 * corpus.c — the grammar of docs/corpus.md over the lexicon of data/lexicon.tsv:
 * loading the lexicon, sampling sentences by construction, and the corpus writer.
 *
 * A sentence is first a Sentence: one to three Clauses and a mood (statement, question,
 * imperative), each Clause a small struct of choices — subject, verb, object, negation,
 * predicate, adjunct — made by the samplers below. Two renderers turn it into words,
 * en_sentence() and de_sentence(); German agreement lives in the tables DE_DET and
 * DE_ENDING, indexed by determiner, case and "slot" (masculine, feminine, neuter or
 * plural), and in the pronoun table. The samplers know nothing of German, the renderers
 * choose nothing.
 *
 * Selection restrictions (which adjective describes which noun, which subjects and
 * objects a verb takes, what can be in what) are the lexicon's tags: the code asks only
 * "does this noun phrase have one of these tags".
 */
#include "corpus/corpus.h"

#include "base/fnv.h"
#include "base/status.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------
 * The lexicon
 */

#define LEX_MAX_NOUNS 512
#define LEX_MAX_ADJS 128 /* a multiple of 64: AdjSet's words */
#define LEX_MAX_VERBS 128
#define LEX_MAX_NAMES 256
#define LEX_MAX_TAGS 64
#define LEX_MAX_FIELDS 14

enum { SLOT_M, SLOT_F, SLOT_N, SLOT_PL, N_SLOTS };
enum { SEX_NONE, SEX_M, SEX_F };
/* Persons, the index of every conjugation table: ich, du, er/sie/es, wir, sie. */
enum { P_1SG, P_2SG, P_3SG, P_1PL, P_3PL, N_PERSONS };
enum { CLS_PERSON, CLS_ANIMAL, CLS_THING, N_CLASSES };

typedef uint64_t Tags; /* one bit per tag name of the lexicon */

/* A set of adjectives, bit i for lex->adjs[i]. */
typedef struct {
    uint64_t w[LEX_MAX_ADJS / 64];
} AdjSet;

static void adjset_add(AdjSet *s, int i)
{
    s->w[i / 64] |= UINT64_C(1) << (i % 64);
}

static int adjset_has(const AdjSet *s, int i)
{
    return (s->w[i / 64] >> (i % 64)) & 1;
}

static void adjset_union(AdjSet *s, const AdjSet *t)
{
    for (int k = 0; k < LEX_MAX_ADJS / 64; k++)
        s->w[k] |= t->w[k];
}

typedef struct {
    const char *en_sg, *en_pl;          /* en_pl NULL: a mass noun */
    const char *de_sg, *de_pl, *de_dpl; /* NULL exactly when en_pl is */
    const char *de_obl;                 /* accusative and dative singular: de_sg, or the
                                           weak masculine's form (Junge → Jungen) */
    const char *fem_sg, *fem_pl;        /* a person noun's female form (Lehrerin,
                                           Lehrerinnen), or NULL; fem_pl NULL when de_pl is */
    int gender;                         /* SLOT_M, SLOT_F or SLOT_N */
    int sex;                            /* SEX_*; SEX_M when fem_sg is set */
    int cls;                            /* CLS_* */
    Tags tags, in, place;               /* place 0: cannot follow "in" */
} LexNoun;

typedef struct {
    const char *en, *de; /* de: the predicate form (müde, teuer) */
    const char *stem;    /* what the endings go on: de, or müd, teur, dunkl */
    Tags tags;           /* describes nouns with one of these */
    AdjSet opposites;    /* never coordinated with these */
} LexAdj;

typedef struct {
    const char *en, *en3;
    const char *de[N_PERSONS];
    const char *imp; /* NULL: no imperative */
    const char *animal_sg, *animal_pl; /* 3rd person of an animal subject (frisst,
                                          fressen), or NULL: de[P_3SG], de[P_3PL] */
    Tags subj, obj;
} LexVerb;

typedef struct {
    const char *name;
    int sex; /* SEX_M or SEX_F */
} LexName;

struct Lexicon {
    char *text; /* the file, split in place; every string points here; owned */
    LexNoun nouns[LEX_MAX_NOUNS];
    LexAdj adjs[LEX_MAX_ADJS];
    LexVerb verbs[LEX_MAX_VERBS];
    LexName names[LEX_MAX_NAMES];
    int n_nouns, n_adjs, n_verbs, n_names;
    const char *tag_names[LEX_MAX_TAGS];
    int n_tags;
    Tags person_tags, person_in; /* what a person pronoun or a name is ("class person") */
    Tags it_tags, it_in;         /* what "it", "them" and "this" are ("class it") */
    Tags cls_tag[N_CLASSES];     /* the bits of the tags person, animal, thing */
    Tags nopossessive;           /* the bit of the tag nopossessive */
    Tags felt;                   /* the bit of the tag temp: hot, cold, warm, cool */
};

/* The bit of tag name (added if new); 0 when the table is full. */
static Tags lex_tag(Lexicon *lex, const char *name)
{
    for (int i = 0; i < lex->n_tags; i++)
        if (strcmp(lex->tag_names[i], name) == 0)
            return (Tags)1 << i;
    if (lex->n_tags == LEX_MAX_TAGS)
        return 0;
    lex->tag_names[lex->n_tags] = name;
    return (Tags)1 << lex->n_tags++;
}

/* Parses a comma-separated tag list in place ("any": every tag; "-": none). Returns 0 on
 * success, -1 when the tag table overflows or an item is empty. */
static int lex_tags(Lexicon *lex, char *list, Tags *out)
{
    *out = 0;
    if (strcmp(list, "-") == 0)
        return 0;
    if (strcmp(list, "any") == 0) {
        *out = ~(Tags)0;
        return 0;
    }
    for (char *item = list;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (*item == '\0')
            return -1;
        Tags bit = lex_tag(lex, item);
        if (!bit)
            return -1;
        *out |= bit;
        if (!comma)
            return 0;
        item = comma + 1;
    }
}

/* A word of the lexicon: non-empty, no space, no comma, ASCII letters on the English
 * side (the German side may be any UTF-8 but space). */
static int lex_word_ok(const char *w, int english)
{
    if (*w == '\0' || strcmp(w, "-") == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)w; *p; p++) {
        if (*p <= ' ' || *p == ',')
            return 0;
        if (english && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return 0;
    }
    return 1;
}

static int lex_sex(const char *s)
{
    return strcmp(s, "m") == 0 ? SEX_M : strcmp(s, "f") == 0 ? SEX_F
                                     : strcmp(s, "-") == 0 ? SEX_NONE : -1;
}

/* One entry, its fields f[0..nf). Returns NULL, or what is wrong with it. */
static const char *lex_entry(Lexicon *lex, char **f, int nf)
{
    if (strcmp(f[0], "noun") == 0) {
        if (nf != 11 && nf != 14)
            return "a noun has 11 fields, or 14 with the oblique and female forms";
        if (lex->n_nouns == LEX_MAX_NOUNS)
            return "too many nouns";
        LexNoun *n = &lex->nouns[lex->n_nouns];
        const int mass = strcmp(f[2], "-") == 0;
        n->en_sg = f[1];
        n->en_pl = mass ? NULL : f[2];
        n->de_sg = f[3];
        n->de_pl = mass ? NULL : f[4];
        n->de_dpl = mass ? NULL : f[5];
        if (!lex_word_ok(n->en_sg, 1) || !lex_word_ok(n->de_sg, 0) ||
            (!mass && (!lex_word_ok(n->en_pl, 1) || !lex_word_ok(n->de_pl, 0) ||
                       !lex_word_ok(n->de_dpl, 0))) ||
            (mass && (strcmp(f[4], "-") != 0 || strcmp(f[5], "-") != 0)))
            return "bad word forms (a mass noun has '-' in all three plural fields)";
        n->gender = strcmp(f[6], "m") == 0 ? SLOT_M : strcmp(f[6], "f") == 0 ? SLOT_F
                                            : strcmp(f[6], "n") == 0 ? SLOT_N : -1;
        if (n->gender < 0)
            return "gender must be m, f or n";
        if ((n->sex = lex_sex(f[7])) < 0)
            return "sex must be m, f or -";
        n->de_obl = n->de_sg;
        n->fem_sg = n->fem_pl = NULL;
        if (nf == 14) {
            if (strcmp(f[11], "-") != 0)
                n->de_obl = f[11];
            if (strcmp(f[12], "-") != 0)
                n->fem_sg = f[12];
            if (strcmp(f[13], "-") != 0)
                n->fem_pl = f[13];
            if (!lex_word_ok(n->de_obl, 0) || (n->fem_sg && !lex_word_ok(n->fem_sg, 0)) ||
                (n->fem_pl && !lex_word_ok(n->fem_pl, 0)))
                return "bad oblique or female form";
            if (n->de_obl != n->de_sg && n->gender != SLOT_M)
                return "only a masculine noun has an oblique singular of its own (weak "
                       "declension)";
            if (n->fem_sg && n->sex != SEX_M)
                return "a female form belongs to a noun whose sex is m";
            if (!n->fem_sg != !n->fem_pl && !(mass && n->fem_sg && !n->fem_pl))
                return "a female form has a singular and, unless a mass noun, a plural";
        }
        if (lex_tags(lex, f[8], &n->tags) || lex_tags(lex, f[9], &n->in) ||
            lex_tags(lex, f[10], &n->place))
            return "bad tag list (or more than 64 tags)";
        n->cls = -1;
        for (int c = 0; c < N_CLASSES; c++)
            if (n->tags & lex->cls_tag[c])
                n->cls = n->cls == -1 ? c : -2;
        if (n->cls < 0)
            return "a noun has exactly one of the tags person, animal, thing";
        lex->n_nouns++;
    } else if (strcmp(f[0], "adj") == 0) {
        if (nf != 5 && nf != 6)
            return "an adjective has 5 fields, or 6 with the stem of its declined forms";
        if (lex->n_adjs == LEX_MAX_ADJS)
            return "too many adjectives";
        LexAdj *a = &lex->adjs[lex->n_adjs];
        a->en = f[1];
        a->de = f[2];
        a->stem = nf == 6 ? f[5] : a->de;
        if (!lex_word_ok(a->en, 1) || !lex_word_ok(a->de, 0) || !lex_word_ok(a->stem, 0))
            return "bad word forms";
        if (lex_tags(lex, f[3], &a->tags))
            return "bad tag list";
        /* Opposites are names, resolved once every adjective is read: keep the text. */
        memset(&a->opposites, 0, sizeof a->opposites);
        lex->n_adjs++;
    } else if (strcmp(f[0], "verb") == 0) {
        if (nf != 11 && nf != 13)
            return "a verb has 11 fields, or 13 with the forms of an animal subject";
        if (lex->n_verbs == LEX_MAX_VERBS)
            return "too many verbs";
        LexVerb *v = &lex->verbs[lex->n_verbs];
        v->en = f[1];
        v->en3 = f[2];
        for (int p = 0; p < N_PERSONS; p++)
            v->de[p] = f[3 + p];
        v->imp = strcmp(f[8], "-") == 0 ? NULL : f[8];
        int ok = lex_word_ok(v->en, 1) && lex_word_ok(v->en3, 1) &&
                 (!v->imp || lex_word_ok(v->imp, 0));
        for (int p = 0; p < N_PERSONS; p++)
            ok = ok && lex_word_ok(v->de[p], 0);
        v->animal_sg = nf == 13 ? f[11] : NULL;
        v->animal_pl = nf == 13 ? f[12] : NULL;
        ok = ok && (!v->animal_sg || (lex_word_ok(v->animal_sg, 0) && lex_word_ok(v->animal_pl, 0)));
        if (!ok)
            return "bad word forms";
        if (lex_tags(lex, f[9], &v->subj) || lex_tags(lex, f[10], &v->obj))
            return "bad tag list";
        lex->n_verbs++;
    } else if (strcmp(f[0], "name") == 0) {
        if (nf != 3)
            return "a name has 3 fields";
        if (lex->n_names == LEX_MAX_NAMES)
            return "too many names";
        LexName *n = &lex->names[lex->n_names];
        n->name = f[1];
        n->sex = lex_sex(f[2]);
        if (!lex_word_ok(n->name, 1) || n->name[0] < 'A' || n->name[0] > 'Z')
            return "a name is ASCII letters, capitalised";
        if (n->sex != SEX_M && n->sex != SEX_F)
            return "a name's sex is m or f";
        lex->n_names++;
    } else if (strcmp(f[0], "class") == 0) {
        if (nf != 4)
            return "a class has 4 fields";
        Tags tags, in;
        if (lex_tags(lex, f[2], &tags) || lex_tags(lex, f[3], &in))
            return "bad tag list";
        if (strcmp(f[1], "person") == 0) {
            lex->person_tags = tags;
            lex->person_in = in;
        } else if (strcmp(f[1], "it") == 0) {
            lex->it_tags = tags;
            lex->it_in = in;
        } else {
            return "a class is 'person' or 'it'";
        }
    } else {
        return "unknown kind of entry (noun, adj, verb, name, class)";
    }
    return NULL;
}

int corpus_lexicon_load(Lexicon **out, const char *path, char *err, size_t errlen)
{
    Lexicon *lex = NULL;
    FILE *f = NULL;
    char **opp = NULL; /* the opposites field of each adjective, by index */
    int rc = TT_OK;
    *out = NULL;

    f = fopen(path, "rb");
    if (!f) {
        tt_errf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return TT_EIO;
    }
    lex = calloc(1, sizeof *lex);
    opp = calloc(LEX_MAX_ADJS, sizeof *opp);
    if (!lex || !opp) {
        rc = TT_ENOMEM;
        tt_errf(err, errlen, "out of memory reading '%s'", path);
        goto done;
    }
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *t = realloc(lex->text, cap);
            if (!t) {
                rc = TT_ENOMEM;
                tt_errf(err, errlen, "out of memory reading '%s'", path);
                goto done;
            }
            lex->text = t;
        }
        size_t got = fread(lex->text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = TT_EIO;
        tt_errf(err, errlen, "error reading '%s': %s", path, strerror(errno));
        goto done;
    }
    lex->text[len] = '\0';
    if (memchr(lex->text, '\0', len)) {
        rc = TT_EINPUT;
        tt_errf(err, errlen, "%s: contains a NUL byte", path);
        goto done;
    }
    lex->cls_tag[CLS_PERSON] = lex_tag(lex, "person");
    lex->cls_tag[CLS_ANIMAL] = lex_tag(lex, "animal");
    lex->cls_tag[CLS_THING] = lex_tag(lex, "thing");
    lex->nopossessive = lex_tag(lex, "nopossessive");
    lex->felt = lex_tag(lex, "temp");

    int line = 0;
    for (char *p = lex->text; *p;) {
        char *eol = strchr(p, '\n');
        line++;
        if (eol)
            *eol = '\0';
        char *next = eol ? eol + 1 : p + strlen(p);
        if (*p != '\0' && *p != '#') {
            char *fields[LEX_MAX_FIELDS];
            int nf = 0;
            const char *why = NULL;
            if (strchr(p, '\r'))
                why = "carriage return (the file must have LF line ends)";
            for (char *q = p; !why;) {
                if (nf == LEX_MAX_FIELDS) {
                    why = "too many fields";
                    break;
                }
                fields[nf++] = q;
                char *tab = strchr(q, '\t');
                if (!tab)
                    break;
                *tab = '\0';
                q = tab + 1;
            }
            if (!why && strcmp(fields[0], "adj") == 0 && nf >= 5 && lex->n_adjs < LEX_MAX_ADJS)
                opp[lex->n_adjs] = fields[4];
            if (!why)
                why = lex_entry(lex, fields, nf);
            if (why) {
                rc = TT_EINPUT;
                tt_errf(err, errlen, "%s:%d: %s", path, line, why);
                goto done;
            }
        }
        p = next;
    }
    for (int i = 0; i < lex->n_adjs; i++) {
        if (!opp[i] || strcmp(opp[i], "-") == 0)
            continue;
        for (char *item = opp[i];;) {
            char *comma = strchr(item, ',');
            if (comma)
                *comma = '\0';
            int k = 0;
            while (k < lex->n_adjs && strcmp(lex->adjs[k].en, item) != 0)
                k++;
            if (k == lex->n_adjs) {
                rc = TT_EINPUT;
                tt_errf(err, errlen, "%s: adjective '%s': opposite '%s' is not an adjective "
                                     "of the lexicon", path, lex->adjs[i].en, item);
                goto done;
            }
            adjset_add(&lex->adjs[i].opposites, k);
            adjset_add(&lex->adjs[k].opposites, i);
            if (!comma)
                break;
            item = comma + 1;
        }
    }
    if (lex->n_nouns < 2 || lex->n_adjs < 2 || lex->n_verbs < 1 || lex->n_names < 2 ||
        !lex->person_tags || !lex->it_tags) {
        rc = TT_EINPUT;
        tt_errf(err, errlen, "%s: needs at least 2 nouns, 2 adjectives, 1 verb, 2 names "
                             "and the classes 'person' and 'it'", path);
        goto done;
    }
    *out = lex;
    lex = NULL;
done:
    free(opp);
    corpus_lexicon_free(lex);
    if (f)
        fclose(f);
    return rc;
}

void corpus_lexicon_free(Lexicon *lex)
{
    if (!lex)
        return;
    free(lex->text);
    free(lex);
}

/* ---------------------------------------------------------------------------------------
 * The closed classes: pronouns, determiners, declension (docs/corpus.md)
 */

enum { PR_I, PR_YOU, PR_HE, PR_SHE, PR_IT, PR_WE, PR_THEY, N_PRONS };

typedef struct {
    const char *en_subj, *en_obj;
    const char *nom, *acc, *dat; /* dat NULL: never after "with" */
    int person;                  /* P_* */
    int is_person, is_thing;     /* stands for persons, for animals and things ("they": both) */
    int sex;                     /* SEX_* */
} Pronoun;

static const Pronoun PRONS[N_PRONS] = {
    [PR_I] = {"I", "me", "ich", "mich", "mir", P_1SG, 1, 0, SEX_NONE},
    [PR_YOU] = {"you", "you", "du", "dich", "dir", P_2SG, 1, 0, SEX_NONE},
    [PR_HE] = {"he", "him", "er", "ihn", "ihm", P_3SG, 1, 0, SEX_M},
    [PR_SHE] = {"she", "her", "sie", "sie", "ihr", P_3SG, 1, 0, SEX_F},
    [PR_IT] = {"it", "it", "es", "es", NULL, P_3SG, 0, 1, SEX_NONE},
    [PR_WE] = {"we", "us", "wir", "uns", "uns", P_1PL, 1, 0, SEX_NONE},
    [PR_THEY] = {"they", "them", "sie", "sie", "ihnen", P_3PL, 1, 1, SEX_NONE},
};

static const char *const BE_EN[N_PERSONS] = {"am", "are", "is", "are", "are"};
static const char *const BE_DE[N_PERSONS] = {"bin", "bist", "ist", "sind", "sind"};

typedef enum {
    D_THE, D_THIS, D_A, D_NO, D_MY, D_YOUR, D_HIS, D_HER, D_OUR, D_THEIR, D_NONE, N_DETS
} Det;
#define DBIT(d) (UINT32_C(1) << (d))
#define DETS_POSS_BASIC (DBIT(D_MY) | DBIT(D_YOUR))
#define DETS_POSS_MORE (DBIT(D_HIS) | DBIT(D_HER) | DBIT(D_OUR) | DBIT(D_THEIR))
#define DETS_BASIC (DBIT(D_THE) | DBIT(D_THIS) | DBIT(D_A) | DETS_POSS_BASIC | DBIT(D_NONE))
#define DETS_ALL_BUT_NO (DETS_BASIC | DETS_POSS_MORE)

enum { CASE_NOM, CASE_ACC, CASE_DAT, N_CASES };
enum { DECL_WEAK, DECL_MIXED, DECL_STRONG, N_DECLS };
enum { ART_DER, ART_DIESER, ART_EIN, ART_KEIN, ART_MEIN, ART_DEIN, ART_SEIN, ART_IHR,
       ART_UNSER, ART_NONE, N_ARTS };

/* English determiners: singular and plural form (NULL: not in that number; "a" becomes
 * "an" before a vowel letter). */
static const char *const DET_EN[N_DETS][2] = {
    [D_THE] = {"the", "the"},   [D_THIS] = {"this", "these"}, [D_A] = {"a", NULL},
    [D_NO] = {"no", "no"},      [D_MY] = {"my", "my"},        [D_YOUR] = {"your", "your"},
    [D_HIS] = {"his", "his"},   [D_HER] = {"her", "her"},     [D_OUR] = {"our", "our"},
    [D_THEIR] = {"their", "their"}, [D_NONE] = {"", ""},
};

static const int DET_ART[N_DETS] = {
    [D_THE] = ART_DER,  [D_THIS] = ART_DIESER, [D_A] = ART_EIN,   [D_NO] = ART_KEIN,
    [D_MY] = ART_MEIN,  [D_YOUR] = ART_DEIN,   [D_HIS] = ART_SEIN, [D_HER] = ART_IHR,
    [D_OUR] = ART_UNSER, [D_THEIR] = ART_IHR,  [D_NONE] = ART_NONE,
};

/* German article forms by article, case and slot; NULL where none exists. The
 * possessives and kein share one pattern, written out by possessive_forms(). */
static const char *const DE_ART_FIXED[3][N_CASES][N_SLOTS] = {
    [ART_DER] = {{"der", "die", "das", "die"}, {"den", "die", "das", "die"},
                 {"dem", "der", "dem", "den"}},
    [ART_DIESER] = {{"dieser", "diese", "dieses", "diese"}, {"diesen", "diese", "dieses", "diese"},
                    {"diesem", "dieser", "diesem", "diesen"}},
    [ART_EIN] = {{"ein", "eine", "ein", NULL}, {"einen", "eine", "ein", NULL},
                 {"einem", "einer", "einem", NULL}},
};
static const char *const POSS_STEM[N_ARTS] = {
    [ART_KEIN] = "kein", [ART_MEIN] = "mein", [ART_DEIN] = "dein", [ART_SEIN] = "sein",
    [ART_IHR] = "ihr",   [ART_UNSER] = "unser",
};
/* The endings of kein/mein/…: stem + this. */
static const char *const POSS_ENDING[N_CASES][N_SLOTS] = {
    {"", "e", "", "e"}, {"en", "e", "", "e"}, {"em", "er", "em", "en"},
};

static const int ART_DECL[N_ARTS] = {
    [ART_DER] = DECL_WEAK,   [ART_DIESER] = DECL_WEAK, [ART_EIN] = DECL_MIXED,
    [ART_KEIN] = DECL_MIXED, [ART_MEIN] = DECL_MIXED,  [ART_DEIN] = DECL_MIXED,
    [ART_SEIN] = DECL_MIXED, [ART_IHR] = DECL_MIXED,   [ART_UNSER] = DECL_MIXED,
    [ART_NONE] = DECL_STRONG,
};

/* Attributive adjective endings by declension, case and slot. */
static const char *const DE_ENDING[N_DECLS][N_CASES][N_SLOTS] = {
    [DECL_WEAK] = {{"e", "e", "e", "en"}, {"en", "e", "e", "en"}, {"en", "en", "en", "en"}},
    [DECL_MIXED] = {{"er", "e", "es", "en"}, {"en", "e", "es", "en"}, {"en", "en", "en", "en"}},
    [DECL_STRONG] = {{"er", "e", "es", "e"}, {"en", "e", "es", "e"}, {"em", "er", "em", "en"}},
};

/* ---------------------------------------------------------------------------------------
 * Sentences as choices
 */

typedef enum { NP_NOUN, NP_PRON, NP_NAME, NP_DAS } NpKind;

typedef struct {
    NpKind kind;
    Det det;    /* NP_NOUN */
    int noun;   /* NP_NOUN: index into lex->nouns */
    int plural; /* NP_NOUN: 0 or 1 */
    int adj;    /* NP_NOUN: -1 or an index into lex->adjs */
    int very;   /* NP_NOUN: "very" before adj */
    int fem;    /* NP_NOUN: the noun's female form (a predicate of a woman: Lehrerin) */
    int pron;   /* NP_PRON: PR_* */
    int name;   /* NP_NAME: index into lex->names */
} Np;

typedef enum { CL_TRANS, CL_PRED_ADJ, CL_PRED_NOUN, CL_PRED_LOC, CL_THIS_NP, CL_THIS_ADJ } ClauseKind;
typedef enum { ADJUNCT_NONE, ADJUNCT_WITH, ADJUNCT_IN } Adjunct;

typedef struct {
    int adj, very, neg;
} PredAdj;

typedef struct {
    ClauseKind kind;
    Np subj[2];
    int n_subj;       /* 1, or 2 coordinated (not for CL_THIS_*) */
    int verb[2];
    int n_verbs;      /* CL_TRANS: 1, or 2 sharing the object */
    Np obj[2];
    int n_obj;        /* CL_TRANS: 1 or 2 */
    int neg;          /* "not" */
    PredAdj padj[2];
    int n_padj;       /* CL_PRED_ADJ, CL_THIS_ADJ: 1 or 2 */
    Np pred;          /* CL_PRED_NOUN, CL_THIS_NP: the noun phrase; CL_PRED_LOC: the place */
    Adjunct adjunct;  /* CL_TRANS, affirmative only */
    Np adjunct_np;
} Clause;

typedef enum { MOOD_STATEMENT, MOOD_QUESTION, MOOD_IMPERATIVE } Mood;

typedef struct {
    Clause c[3];
    int n;           /* clauses, 1..3; more than one only in statements */
    Mood mood;
    int comma[2];    /* English comma before the "and" after clause i */
    int contract;    /* English contractions where possible */
    char punct;      /* '.', '?', '!' or 0 */
} Sentence;

/* ---------------------------------------------------------------------------------------
 * Drawing
 */

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

static int pct(Rng *rng, unsigned p)
{
    return draw_below(rng, 100) < p;
}

/* One of the set bits of m (m != 0), uniformly. */
static int draw_bit(Rng *rng, uint32_t m)
{
    int n = 0;
    for (uint32_t x = m; x; x &= x - 1)
        n++;
    assert(n > 0);
    uint32_t k = draw_below(rng, (uint32_t)n);
    for (int b = 0; b < 32; b++)
        if ((m & DBIT(b)) && k-- == 0)
            return b;
    assert(!"draw_bit: no bit");
    return 0;
}

/* What pronoun p can stand for. */
static Tags pron_tags(const Lexicon *lex, int p)
{
    return (PRONS[p].is_person ? lex->person_tags : 0) | (PRONS[p].is_thing ? lex->it_tags : 0);
}

/* The tags of what a noun phrase stands for, and where it can be. */
static Tags np_tags(const Lexicon *lex, const Np *np)
{
    switch (np->kind) {
    case NP_NOUN: return lex->nouns[np->noun].tags;
    case NP_NAME: return lex->person_tags;
    case NP_DAS: return lex->it_tags;
    case NP_PRON: return pron_tags(lex, np->pron);
    }
    return 0;
}

static Tags np_in(const Lexicon *lex, const Np *np)
{
    switch (np->kind) {
    case NP_NOUN: return lex->nouns[np->noun].in;
    case NP_NAME: return lex->person_in;
    case NP_DAS: return lex->it_in;
    case NP_PRON:
        return (PRONS[np->pron].is_person ? lex->person_in : 0) |
               (PRONS[np->pron].is_thing ? lex->it_in : 0);
    }
    return 0;
}

static int np_sex(const Lexicon *lex, const Np *np)
{
    switch (np->kind) {
    case NP_NOUN: return lex->nouns[np->noun].sex;
    case NP_NAME: return lex->names[np->name].sex;
    case NP_PRON: return PRONS[np->pron].sex;
    case NP_DAS: return SEX_NONE;
    }
    return SEX_NONE;
}

static int np_class(const Lexicon *lex, const Np *np)
{
    if (np->kind == NP_NOUN)
        return lex->nouns[np->noun].cls;
    if (np->kind == NP_NAME ||
        (np->kind == NP_PRON && PRONS[np->pron].is_person && !PRONS[np->pron].is_thing))
        return CLS_PERSON;
    return -1; /* it, they, this: an animal or a thing (they: or persons) */
}

static int np_plural(const Np *np)
{
    return (np->kind == NP_NOUN && np->plural) || (np->kind == NP_PRON &&
                                                   PRONS[np->pron].person >= P_1PL);
}

static int has_det(const Np *np, Det d)
{
    return np->kind == NP_NOUN && np->det == d;
}

static int np_same(const Np *a, const Np *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case NP_NOUN: return a->noun == b->noun;
    case NP_NAME: return a->name == b->name;
    case NP_PRON: return a->pron == b->pron;
    case NP_DAS: return a->plural == b->plural;
    }
    return 0;
}

/* What a noun-phrase slot allows. */
typedef struct {
    Tags want;       /* the phrase has one of these tags */
    Tags in;         /* non-zero: the phrase is a place whose PLACE is one of these */
    uint32_t dets;   /* DBIT(D_*) allowed with nouns */
    unsigned p_pron; /* % a pronoun (person pronouns, or "it"/"they"/"them" for things) */
    unsigned p_name; /* % a name */
    unsigned p_das;  /* % "this" as object (das) */
    unsigned p_plural;
    unsigned p_adj;  /* % an attributive adjective */
    int role;        /* CASE_NOM subject, CASE_ACC object, CASE_DAT after with/in */
} Slot;

/* Draws a noun phrase for slot s; returns 0 when none fits (then *np is unspecified). */
static int draw_np(Np *np, const Lexicon *lex, const Slot *s, Rng *rng)
{
    memset(np, 0, sizeof *np);
    np->adj = -1;
    if (!s->in && s->p_das && s->role == CASE_ACC && (lex->it_tags & s->want) &&
        pct(rng, s->p_das)) {
        np->kind = NP_DAS;
        np->plural = pct(rng, 35); /* "these" → "diese" */
        return 1;
    }
    if (!s->in && s->p_pron && pct(rng, s->p_pron)) {
        uint32_t ok = 0;
        for (int p = 0; p < N_PRONS; p++) {
            if (!(pron_tags(lex, p) & s->want))
                continue;
            if (s->role == CASE_DAT && !PRONS[p].dat)
                continue;
            ok |= DBIT(p);
        }
        if (ok) {
            np->kind = NP_PRON;
            np->pron = draw_bit(rng, ok);
            return 1;
        }
    }
    if (!s->in && s->p_name && (lex->person_tags & s->want) && pct(rng, s->p_name)) {
        np->kind = NP_NAME;
        np->name = (int)draw_below(rng, (uint32_t)lex->n_names);
        return 1;
    }
    int cand[LEX_MAX_NOUNS], n = 0;
    for (int k = 0; k < lex->n_nouns; k++) {
        const LexNoun *nn = &lex->nouns[k];
        if (!(nn->tags & s->want))
            continue;
        if (s->in && !(nn->place & s->in))
            continue;
        cand[n++] = k;
    }
    if (n == 0)
        return 0;
    np->kind = NP_NOUN;
    np->noun = cand[draw_below(rng, (uint32_t)n)];
    const LexNoun *nn = &lex->nouns[np->noun];
    const int mass = nn->en_pl == NULL;
    np->plural = !mass && pct(rng, s->p_plural);
    uint32_t dets = s->dets;
    if (nn->tags & lex->nopossessive)
        dets &= ~(DETS_POSS_BASIC | DETS_POSS_MORE);
    if (np->plural || mass)
        dets &= ~DBIT(D_A);
    if (!np->plural && !mass)
        dets &= ~DBIT(D_NONE);
    if (!dets)
        return 0;
    np->det = (Det)draw_bit(rng, dets);
    if (pct(rng, s->p_adj)) {
        int ok[LEX_MAX_ADJS], n_ok = 0; /* ascending, as draw_bit would take them */
        for (int a = 0; a < lex->n_adjs; a++)
            if (lex->adjs[a].tags & nn->tags)
                ok[n_ok++] = a;
        if (n_ok) {
            np->adj = ok[draw_below(rng, (uint32_t)n_ok)];
            np->very = pct(rng, 30);
        }
    }
    return 1;
}

/* An adjective describing every one of the n phrases, not in avoid; -1 if none. */
static int draw_adj_for(const Lexicon *lex, const Np *nps, int n, const AdjSet *avoid,
                        Rng *rng)
{
    int ok[LEX_MAX_ADJS], n_ok = 0;
    for (int a = 0; a < lex->n_adjs; a++) {
        int fits = !adjset_has(avoid, a);
        for (int i = 0; i < n && fits; i++)
            fits = (lex->adjs[a].tags & np_tags(lex, &nps[i])) != 0;
        if (fits)
            ok[n_ok++] = a;
    }
    return n_ok ? ok[draw_below(rng, (uint32_t)n_ok)] : -1;
}

/* Features of one construction's clauses, as percentages. */
typedef struct {
    uint32_t dets;       /* determiners of noun phrases */
    unsigned p_pron_subj, p_pron_obj, p_das, p_name;
    unsigned p_coord_subj, p_coord_obj, p_coord_verb;
    unsigned p_neg, p_adjunct, p_plural, p_adj;
    unsigned w_kind[6];  /* weights of CL_TRANS … CL_THIS_ADJ */
    int n_padj;          /* 0: one or two at random; else exactly */
} Features;

static Slot slot_of(const Features *f, Tags want, int role)
{
    Slot s = {want, 0, f->dets, 0, f->p_name, 0, f->p_plural, f->p_adj, role};
    s.p_pron = role == CASE_NOM ? f->p_pron_subj : f->p_pron_obj;
    s.p_das = role == CASE_ACC ? f->p_das : 0;
    return s;
}

static int subject_person(const Clause *c)
{
    if (c->n_subj == 2)
        return P_3PL;
    const Np *s = &c->subj[0];
    if (s->kind == NP_PRON)
        return PRONS[s->pron].person;
    return np_plural(s) ? P_3PL : P_3SG;
}

/* Draws the subject(s) of a clause: phrases with one of want's tags. */
static int draw_subjects(Clause *c, const Lexicon *lex, const Features *f, Tags want, int coord,
                         Rng *rng)
{
    Slot s = slot_of(f, want, CASE_NOM);
    c->n_subj = 1;
    if (coord) {
        /* Two phrases, neither a pronoun (German "du und ich" takes other persons) nor
         * with "no" ("her friend and no man"). */
        s.p_pron = 0;
        s.dets &= ~DBIT(D_NO);
        if (!draw_np(&c->subj[0], lex, &s, rng) || !draw_np(&c->subj[1], lex, &s, rng) ||
            np_same(&c->subj[0], &c->subj[1]) ||
            np_class(lex, &c->subj[0]) != np_class(lex, &c->subj[1]))
            return 0;
        c->n_subj = 2;
        return 1;
    }
    return draw_np(&c->subj[0], lex, &s, rng);
}

static int any_subject_is(const Clause *c, const Np *np)
{
    for (int i = 0; i < c->n_subj; i++)
        if (np_same(&c->subj[i], np))
            return 1;
    /* "I ... with me", "we ... us": the same person as pronouns of one person. */
    if (np->kind == NP_PRON && c->n_subj == 1 && c->subj[0].kind == NP_PRON)
        return PRONS[np->pron].person == PRONS[c->subj[0].pron].person &&
               PRONS[np->pron].person != P_3SG && PRONS[np->pron].person != P_3PL;
    return 0;
}

static int draw_trans(Clause *c, const Lexicon *lex, const Features *f, Mood mood, Rng *rng)
{
    c->kind = CL_TRANS;
    int v = (int)draw_below(rng, (uint32_t)lex->n_verbs);
    if (mood == MOOD_IMPERATIVE && !lex->verbs[v].imp)
        return 0;
    c->verb[0] = v;
    c->n_verbs = 1;
    Tags subj = lex->verbs[v].subj, obj = lex->verbs[v].obj;
    if (mood == MOOD_STATEMENT && pct(rng, f->p_coord_verb)) {
        int w = (int)draw_below(rng, (uint32_t)lex->n_verbs);
        if (w == v)
            return 0;
        c->verb[1] = w;
        c->n_verbs = 2;
        subj &= lex->verbs[w].subj;
        obj &= lex->verbs[w].obj;
        if (!subj || !obj)
            return 0;
    }
    if (mood == MOOD_IMPERATIVE) {
        c->n_subj = 1;
        c->subj[0] = (Np){.kind = NP_PRON, .det = D_THE, .adj = -1, .pron = PR_YOU};
        if (!(lex->person_tags & subj))
            return 0;
    } else if (!draw_subjects(c, lex, f, subj, pct(rng, f->p_coord_subj), rng)) {
        return 0;
    }
    /* A subject must fit the verb(s) as a whole (a pronoun's class may be wider). */
    for (int i = 0; i < c->n_subj; i++)
        if (!(np_tags(lex, &c->subj[i]) & subj))
            return 0;
    c->neg = c->n_verbs == 1 && pct(rng, f->p_neg);
    for (int i = 0; i < c->n_subj; i++)
        if (c->neg && has_det(&c->subj[i], D_NO))
            return 0;
    Slot so = slot_of(f, obj, CASE_ACC);
    int subj_no = 0; /* one "no" per clause: not "No woman writes no letter" */
    for (int i = 0; i < c->n_subj; i++)
        subj_no |= has_det(&c->subj[i], D_NO);
    if (c->neg || subj_no)
        so.dets &= ~DBIT(D_NO);
    c->n_obj = 1;
    if (!c->neg && pct(rng, f->p_coord_obj)) {
        so.p_pron = 0;
        so.p_das = 0;
        so.dets &= ~DBIT(D_NO);
        c->n_obj = 2;
    }
    for (int i = 0; i < c->n_obj; i++) {
        if (!draw_np(&c->obj[i], lex, &so, rng) || !(np_tags(lex, &c->obj[i]) & obj))
            return 0;
        if (any_subject_is(c, &c->obj[i]))
            return 0;
    }
    if (c->n_obj == 2 && (np_same(&c->obj[0], &c->obj[1]) ||
                          np_class(lex, &c->obj[0]) != np_class(lex, &c->obj[1])))
        return 0;
    c->adjunct = ADJUNCT_NONE;
    if (!c->neg && mood == MOOD_STATEMENT && pct(rng, f->p_adjunct)) {
        if (pct(rng, 50)) {
            /* with + a person or an animal */
            Slot sa = slot_of(f, lex->cls_tag[CLS_PERSON] | lex->cls_tag[CLS_ANIMAL], CASE_DAT);
            sa.dets &= ~DBIT(D_NO);
            sa.p_pron = 25;
            if (!draw_np(&c->adjunct_np, lex, &sa, rng) || any_subject_is(c, &c->adjunct_np))
                return 0;
            for (int i = 0; i < c->n_obj; i++)
                if (np_same(&c->obj[i], &c->adjunct_np))
                    return 0;
            c->adjunct = ADJUNCT_WITH;
        } else {
            Tags in = ~(Tags)0;
            for (int i = 0; i < c->n_subj; i++)
                in &= np_in(lex, &c->subj[i]);
            if (!in)
                return 0;
            Slot sa = slot_of(f, ~(Tags)0, CASE_DAT);
            sa.in = in;
            sa.dets &= ~(DBIT(D_NO) | DBIT(D_NONE));
            sa.p_plural = 15;
            if (!draw_np(&c->adjunct_np, lex, &sa, rng))
                return 0;
            c->adjunct = ADJUNCT_IN;
        }
    }
    return 1;
}

static int draw_pred_adj(Clause *c, const Lexicon *lex, const Features *f, int n_padj, Rng *rng)
{
    c->kind = CL_PRED_ADJ;
    if (!draw_subjects(c, lex, f, ~(Tags)0, pct(rng, f->p_coord_subj), rng))
        return 0;
    c->n_padj = n_padj;
    AdjSet avoid = {{0}}; /* not "the good dog is good" */
    for (int i = 0; i < c->n_subj; i++)
        if (c->subj[i].kind == NP_NOUN && c->subj[i].adj >= 0) {
            adjset_add(&avoid, c->subj[i].adj);
            adjset_union(&avoid, &lex->adjs[c->subj[i].adj].opposites);
        }
    for (int i = 0; i < n_padj; i++) {
        PredAdj *p = &c->padj[i];
        p->adj = draw_adj_for(lex, c->subj, c->n_subj, &avoid, rng);
        if (p->adj < 0)
            return 0;
        adjset_add(&avoid, p->adj);
        adjset_union(&avoid, &lex->adjs[p->adj].opposites);
        p->very = pct(rng, 30);
        p->neg = pct(rng, n_padj == 1 ? f->p_neg : f->p_neg / 2 + 10);
    }
    /* "no" subjects only in affirmative clauses. */
    for (int i = 0; i < c->n_subj; i++)
        for (int k = 0; k < n_padj; k++)
            if (c->subj[i].kind == NP_NOUN && c->subj[i].det == D_NO && c->padj[k].neg)
                return 0;
    /* hot, cold, warm, cool of "it" or "they" alone: beside another adjective it may be
     * said of a living one ("It is hot and thirsty"), which German says with the dative
     * (mir ist heiß), not with sein. */
    if (n_padj == 2 && ((lex->adjs[c->padj[0].adj].tags | lex->adjs[c->padj[1].adj].tags) &
                        lex->felt))
        for (int i = 0; i < c->n_subj; i++)
            if (c->subj[i].kind == NP_PRON &&
                (c->subj[i].pron == PR_IT || c->subj[i].pron == PR_THEY))
                return 0;
    return 1;
}

static int draw_pred_noun(Clause *c, const Lexicon *lex, const Features *f, Rng *rng)
{
    c->kind = CL_PRED_NOUN;
    Features g = *f;
    g.dets &= ~DBIT(D_NO);
    if (!draw_subjects(c, lex, &g, ~(Tags)0, 0, rng))
        return 0;
    const Np *s = &c->subj[0];
    if (s->kind == NP_NOUN && s->det == D_NONE)
        return 0; /* "Dogs are cats" */
    c->neg = pct(rng, f->p_neg);
    Slot sp = slot_of(&g, ~(Tags)0, CASE_NOM);
    sp.dets &= ~DBIT(D_THIS);
    sp.p_pron = sp.p_name = 0;
    sp.p_plural = np_plural(s) ? 100 : 0;
    if (!draw_np(&c->pred, lex, &sp, rng) || np_plural(&c->pred) != np_plural(s))
        return 0;
    const LexNoun *pn = &lex->nouns[c->pred.noun];
    const int cls = np_class(lex, s);
    if (cls >= 0 ? pn->cls != cls : pn->cls == CLS_PERSON)
        return 0;
    if (pn->cls == CLS_PERSON && pn->sex != SEX_NONE && pn->sex != np_sex(lex, s)) {
        /* She is my teacher → Sie ist meine Lehrerin: a woman takes the female form. */
        if (!(pn->fem_sg && np_sex(lex, s) == SEX_F))
            return 0;
        c->pred.fem = 1;
    }
    if (s->kind == NP_NOUN && s->noun == c->pred.noun) {
        /* "The dog is my dog", never "A cat is the cat" */
        if (!(DBIT(c->pred.det) & (DETS_POSS_BASIC | DETS_POSS_MORE)) ||
            !(DBIT(s->det) & (DBIT(D_THE) | DBIT(D_THIS))))
            return 0;
    } else if (s->kind == NP_NOUN && pn->cls != CLS_PERSON &&
               !(c->neg && s->det == D_A && c->pred.det == D_A)) {
        return 0; /* not "The book is my house", but "A dog is not a cat" */
    }
    return 1;
}

static int draw_pred_loc(Clause *c, const Lexicon *lex, const Features *f, Rng *rng)
{
    c->kind = CL_PRED_LOC;
    Features g = *f;
    g.dets &= ~DBIT(D_NO);
    if (!draw_subjects(c, lex, &g, ~(Tags)0, pct(rng, f->p_coord_subj), rng))
        return 0;
    Tags in = ~(Tags)0;
    for (int i = 0; i < c->n_subj; i++)
        in &= np_in(lex, &c->subj[i]);
    if (!in)
        return 0;
    c->neg = pct(rng, f->p_neg);
    Slot sp = slot_of(&g, ~(Tags)0, CASE_DAT);
    sp.in = in;
    sp.dets &= ~DBIT(D_NONE);
    sp.p_plural = 15;
    if (!draw_np(&c->pred, lex, &sp, rng))
        return 0;
    for (int i = 0; i < c->n_subj; i++)
        if (np_same(&c->subj[i], &c->pred))
            return 0;
    return 1;
}

static int draw_this(Clause *c, const Lexicon *lex, const Features *f, int adj, Rng *rng)
{
    c->n_subj = 0;
    c->neg = pct(rng, f->p_neg);
    if (adj) {
        c->kind = CL_THIS_ADJ;
        c->n_padj = 1;
        /* "This is beautiful", "this is red": what describes things ("this is young"
         * would say it of a person). */
        int ok[LEX_MAX_ADJS], n_ok = 0; /* ascending, as draw_bit would take them */
        for (int a = 0; a < lex->n_adjs; a++)
            for (int k = 0; k < lex->n_nouns; k++)
                if (lex->nouns[k].cls == CLS_THING && (lex->adjs[a].tags & lex->nouns[k].tags)) {
                    ok[n_ok++] = a;
                    break;
                }
        c->padj[0].adj = n_ok ? ok[draw_below(rng, (uint32_t)n_ok)] : -1;
        c->padj[0].very = pct(rng, 35);
        c->padj[0].neg = c->neg;
        return c->padj[0].adj >= 0;
    }
    c->kind = CL_THIS_NP;
    Slot sp = slot_of(f, ~(Tags)0, CASE_NOM);
    sp.dets &= ~(DBIT(D_THIS) | DBIT(D_NO));
    sp.p_pron = sp.p_name = 0;
    return draw_np(&c->pred, lex, &sp, rng);
}

/* Draws one clause of the kinds f weighs. */
static int draw_clause(Clause *c, const Lexicon *lex, const Features *f, Mood mood, Rng *rng)
{
    memset(c, 0, sizeof *c);
    unsigned total = 0;
    for (int k = 0; k < 6; k++)
        total += f->w_kind[k];
    assert(total > 0);
    unsigned x = draw_below(rng, total);
    int kind = 0;
    while (x >= f->w_kind[kind])
        x -= f->w_kind[kind++];
    switch ((ClauseKind)kind) {
    case CL_TRANS: return draw_trans(c, lex, f, mood, rng);
    case CL_PRED_ADJ:
        return draw_pred_adj(c, lex, f, f->n_padj ? f->n_padj : 1 + pct(rng, 30), rng);
    case CL_PRED_NOUN: return draw_pred_noun(c, lex, f, rng);
    case CL_PRED_LOC: return draw_pred_loc(c, lex, f, rng);
    case CL_THIS_NP: return draw_this(c, lex, f, 0, rng);
    case CL_THIS_ADJ: return draw_this(c, lex, f, 1, rng);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Words
 */

#define WORDS_MAX 96
#define ARENA_MAX 1024

typedef struct {
    const char *w[WORDS_MAX];
    int n;
    char arena[ARENA_MAX]; /* words made here (declined adjectives, contractions) */
    size_t used;
} Words;

static void words_add(Words *ws, const char *w)
{
    assert(ws->n < WORDS_MAX);
    ws->w[ws->n++] = w;
}

/* Adds the concatenation a + b, made in the arena. */
static void words_add2(Words *ws, const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    assert(ws->used + na + nb + 1 <= ARENA_MAX);
    char *w = ws->arena + ws->used;
    snprintf(w, na + nb + 1, "%s%s", a, b);
    ws->used += na + nb + 1;
    words_add(ws, w);
}

/* ---------------------------------------------------------------------------------------
 * English
 */

static int starts_with_vowel(const char *w)
{
    return w[0] != '\0' && strchr("aeiouAEIOU", w[0]) != NULL;
}

static void en_np(Words *ws, const Lexicon *lex, const Np *np, int role)
{
    switch (np->kind) {
    case NP_PRON:
        words_add(ws, role == CASE_NOM ? PRONS[np->pron].en_subj : PRONS[np->pron].en_obj);
        return;
    case NP_NAME: words_add(ws, lex->names[np->name].name); return;
    case NP_DAS: words_add(ws, np->plural ? "these" : "this"); return;
    case NP_NOUN: break;
    }
    const LexNoun *n = &lex->nouns[np->noun];
    const char *noun = np->plural ? n->en_pl : n->en_sg;
    const char *det = DET_EN[np->det][np->plural];
    assert(det);
    if (np->det == D_A) {
        const char *next = np->very ? "very" : np->adj >= 0 ? lex->adjs[np->adj].en : noun;
        det = starts_with_vowel(next) ? "an" : "a";
    }
    if (*det)
        words_add(ws, det);
    if (np->adj >= 0) {
        if (np->very)
            words_add(ws, "very");
        words_add(ws, lex->adjs[np->adj].en);
    }
    words_add(ws, noun);
}

static void en_subjects(Words *ws, const Lexicon *lex, const Clause *c)
{
    for (int i = 0; i < c->n_subj; i++) {
        if (i)
            words_add(ws, "and");
        en_np(ws, lex, &c->subj[i], CASE_NOM);
    }
}

/* The predicate after "be" (and after "not", which the caller has placed). */
static void en_be_rest(Words *ws, const Lexicon *lex, const Clause *c)
{
    switch (c->kind) {
    case CL_PRED_ADJ:
    case CL_THIS_ADJ: {
        /* The first adjective's "not" is the clause's: the caller wrote it. */
        for (int i = 0; i < c->n_padj; i++) {
            const PredAdj *p = &c->padj[i];
            if (i) {
                words_add(ws, "and");
                if (p->neg)
                    words_add(ws, "not");
            }
            if (p->very)
                words_add(ws, "very");
            words_add(ws, lex->adjs[p->adj].en);
        }
        break;
    }
    case CL_PRED_NOUN:
    case CL_THIS_NP: en_np(ws, lex, &c->pred, CASE_NOM); break;
    case CL_PRED_LOC:
        words_add(ws, "in");
        en_np(ws, lex, &c->pred, CASE_DAT);
        break;
    case CL_TRANS: assert(!"en_be_rest: a transitive clause"); break;
    }
}

/* Is "not" in the clause's first position (after the verb)? */
static int be_negated(const Clause *c)
{
    if (c->kind == CL_PRED_ADJ || c->kind == CL_THIS_ADJ)
        return c->padj[0].neg;
    return c->neg;
}

static void en_objects(Words *ws, const Lexicon *lex, const Clause *c)
{
    for (int i = 0; i < c->n_obj; i++) {
        if (i)
            words_add(ws, "and");
        en_np(ws, lex, &c->obj[i], CASE_ACC);
    }
    if (c->adjunct != ADJUNCT_NONE) {
        words_add(ws, c->adjunct == ADJUNCT_WITH ? "with" : "in");
        en_np(ws, lex, &c->adjunct_np, CASE_DAT);
    }
}

static const char *const CONTRACTED[][3] = {
    {"do", "not", "don't"},     {"does", "not", "doesn't"}, {"is", "not", "isn't"},
    {"are", "not", "aren't"},   {"I", "am", "I'm"},         {"you", "are", "you're"},
    {"he", "is", "he's"},       {"she", "is", "she's"},     {"it", "is", "it's"},
    {"we", "are", "we're"},     {"they", "are", "they're"},
};
#define N_CONTRACTED (sizeof CONTRACTED / sizeof CONTRACTED[0])

/* The contraction of w followed by next, or NULL. */
static const char *contraction_of(const char *w, const char *next)
{
    for (size_t k = 0; k < N_CONTRACTED; k++)
        if (strcmp(w, CONTRACTED[k][0]) == 0 && strcmp(next, CONTRACTED[k][1]) == 0)
            return CONTRACTED[k][2];
    return NULL;
}

static void en_clause(Words *ws, const Lexicon *lex, const Clause *c, Mood mood, int contract)
{
    const int person = c->kind == CL_THIS_NP || c->kind == CL_THIS_ADJ
                           ? (c->kind == CL_THIS_NP && c->pred.plural ? P_3PL : P_3SG)
                           : subject_person(c);
    if (c->kind == CL_TRANS) {
        const LexVerb *v = &lex->verbs[c->verb[0]];
        const char *do_ = person == P_3SG ? "does" : "do";
        if (mood == MOOD_IMPERATIVE) {
            if (c->neg) {
                if (contract) {
                    words_add(ws, "don't");
                } else {
                    words_add(ws, "do");
                    words_add(ws, "not");
                }
            }
            words_add(ws, v->en);
        } else if (mood == MOOD_QUESTION) {
            if (c->neg && contract) {
                words_add2(ws, do_, "n't");
                en_subjects(ws, lex, c);
            } else {
                words_add(ws, do_);
                en_subjects(ws, lex, c);
                if (c->neg)
                    words_add(ws, "not");
            }
            words_add(ws, v->en);
        } else {
            en_subjects(ws, lex, c);
            if (c->neg) {
                words_add(ws, do_);
                words_add(ws, "not");
                words_add(ws, v->en);
            } else {
                for (int i = 0; i < c->n_verbs; i++) {
                    const LexVerb *vi = &lex->verbs[c->verb[i]];
                    if (i)
                        words_add(ws, "and");
                    words_add(ws, person == P_3SG ? vi->en3 : vi->en);
                }
            }
        }
        en_objects(ws, lex, c);
        return;
    }
    const int this_ = c->kind == CL_THIS_NP || c->kind == CL_THIS_ADJ;
    const char *be = BE_EN[person];
    const int neg = be_negated(c);
    if (mood == MOOD_QUESTION) {
        if (neg && contract && person != P_1SG) {
            words_add2(ws, be, "n't");
            if (this_)
                words_add(ws, person == P_3PL ? "these" : "this");
            else
                en_subjects(ws, lex, c);
        } else {
            words_add(ws, be);
            if (this_)
                words_add(ws, person == P_3PL ? "these" : "this");
            else
                en_subjects(ws, lex, c);
            if (neg)
                words_add(ws, "not");
        }
    } else {
        if (this_)
            words_add(ws, person == P_3PL ? "these" : "this");
        else
            en_subjects(ws, lex, c);
        words_add(ws, be);
        if (neg)
            words_add(ws, "not");
    }
    en_be_rest(ws, lex, c);
}

/* Applies the contractions of the statement forms in place: "I am" → "I'm", "do not" →
 * "don't". The first of two candidates wins ("I am not" → "I'm not"). */
static void en_contract(Words *ws)
{
    int out = 0;
    for (int i = 0; i < ws->n; i++) {
        const char *c = i + 1 < ws->n ? contraction_of(ws->w[i], ws->w[i + 1]) : NULL;
        /* "Do you not" is not "Don't you"; only a subject or a verb before. */
        if (c) {
            ws->w[out++] = c;
            i++;
        } else {
            ws->w[out++] = ws->w[i];
        }
    }
    ws->n = out;
}

/* ---------------------------------------------------------------------------------------
 * German
 */

static int np_slot(const Lexicon *lex, const Np *np)
{
    return np->plural ? SLOT_PL : np->fem ? SLOT_F : lex->nouns[np->noun].gender;
}

/* Writes the German of np in case cas; kein: the determiner a/an or none becomes kein. */
static void de_np(Words *ws, const Lexicon *lex, const Np *np, int cas, int kein, int in)
{
    switch (np->kind) {
    case NP_PRON: {
        const Pronoun *p = &PRONS[np->pron];
        words_add(ws, cas == CASE_NOM ? p->nom : cas == CASE_ACC ? p->acc : p->dat);
        return;
    }
    case NP_NAME: words_add(ws, lex->names[np->name].name); return;
    case NP_DAS: words_add(ws, np->plural ? "diese" : "das"); return;
    case NP_NOUN: break;
    }
    const LexNoun *n = &lex->nouns[np->noun];
    const int slot = np_slot(lex, np);
    int art = DET_ART[np->det];
    if (kein && (np->det == D_A || np->det == D_NONE))
        art = ART_KEIN;
    const char *form = NULL;
    if (art == ART_DER || art == ART_DIESER || art == ART_EIN) {
        form = DE_ART_FIXED[art][cas][slot];
        assert(form);
    }
    if (in) {
        /* in + dem is written im: im Garten, but in der Stadt, in diesem Haus. */
        if (art == ART_DER && cas == CASE_DAT && (slot == SLOT_M || slot == SLOT_N)) {
            words_add(ws, "im");
            form = NULL;
        } else {
            words_add(ws, "in");
        }
    }
    if (form)
        words_add(ws, form);
    else if (POSS_STEM[art])
        words_add2(ws, POSS_STEM[art], POSS_ENDING[cas][slot]);
    if (np->adj >= 0) {
        if (np->very)
            words_add(ws, "sehr");
        words_add2(ws, lex->adjs[np->adj].stem, DE_ENDING[ART_DECL[art]][cas][slot]);
    }
    if (np->fem)
        words_add(ws, np->plural ? n->fem_pl : n->fem_sg); /* Lehrerinnen: dative alike */
    else if (np->plural)
        words_add(ws, cas == CASE_DAT ? n->de_dpl : n->de_pl);
    else
        words_add(ws, cas == CASE_NOM ? n->de_sg : n->de_obl);
}

static void de_subjects(Words *ws, const Lexicon *lex, const Clause *c)
{
    for (int i = 0; i < c->n_subj; i++) {
        if (i)
            words_add(ws, "und");
        de_np(ws, lex, &c->subj[i], CASE_NOM, 0, 0);
    }
}

/* Does negating this object fold into kein? */
static int np_takes_kein(const Np *np)
{
    return np->kind == NP_NOUN && (np->det == D_A || np->det == D_NONE);
}

static void de_be_rest(Words *ws, const Lexicon *lex, const Clause *c)
{
    switch (c->kind) {
    case CL_PRED_ADJ:
    case CL_THIS_ADJ:
        for (int i = 0; i < c->n_padj; i++) {
            const PredAdj *p = &c->padj[i];
            if (i)
                words_add(ws, "und");
            if (p->neg)
                words_add(ws, "nicht");
            if (p->very)
                words_add(ws, "sehr");
            words_add(ws, lex->adjs[p->adj].de);
        }
        break;
    case CL_PRED_NOUN:
    case CL_THIS_NP: {
        const int kein = c->neg && np_takes_kein(&c->pred);
        if (c->neg && !kein)
            words_add(ws, "nicht");
        de_np(ws, lex, &c->pred, CASE_NOM, kein, 0);
        break;
    }
    case CL_PRED_LOC:
        if (c->neg)
            words_add(ws, "nicht");
        de_np(ws, lex, &c->pred, CASE_DAT, 0, 1);
        break;
    case CL_TRANS: assert(!"de_be_rest: a transitive clause"); break;
    }
}

/* Whether every subject of c is an animal or "it": a verb with forms of its own for an
 * animal takes them ("Die Katze frisst", "Es frisst"); "they" is a person's. */
static int subjects_are_animals(const Lexicon *lex, const Clause *c)
{
    for (int i = 0; i < c->n_subj; i++) {
        const Np *s = &c->subj[i];
        if (!(s->kind == NP_NOUN && lex->nouns[s->noun].cls == CLS_ANIMAL) &&
            !(s->kind == NP_PRON && s->pron == PR_IT))
            return 0;
    }
    return 1;
}

/* The German of verb v in c's person. */
static const char *de_verb(const Lexicon *lex, const Clause *c, int v, int person)
{
    const LexVerb *lv = &lex->verbs[v];
    if (lv->animal_sg && (person == P_3SG || person == P_3PL) && subjects_are_animals(lex, c))
        return person == P_3SG ? lv->animal_sg : lv->animal_pl;
    return lv->de[person];
}

static void de_clause(Words *ws, const Lexicon *lex, const Clause *c, Mood mood)
{
    if (c->kind == CL_TRANS) {
        const int person = subject_person(c);
        const LexVerb *v = &lex->verbs[c->verb[0]];
        if (mood == MOOD_IMPERATIVE) {
            words_add(ws, v->imp);
        } else if (mood == MOOD_QUESTION) {
            words_add(ws, de_verb(lex, c, c->verb[0], person));
            de_subjects(ws, lex, c);
        } else {
            de_subjects(ws, lex, c);
            for (int i = 0; i < c->n_verbs; i++) {
                if (i)
                    words_add(ws, "und");
                words_add(ws, de_verb(lex, c, c->verb[i], person));
            }
        }
        const int kein = c->neg && np_takes_kein(&c->obj[0]);
        for (int i = 0; i < c->n_obj; i++) {
            if (i)
                words_add(ws, "und");
            de_np(ws, lex, &c->obj[i], CASE_ACC, kein, 0);
        }
        if (c->neg && !kein)
            words_add(ws, "nicht");
        if (c->adjunct == ADJUNCT_WITH) {
            words_add(ws, "mit");
            de_np(ws, lex, &c->adjunct_np, CASE_DAT, 0, 0);
        } else if (c->adjunct == ADJUNCT_IN) {
            de_np(ws, lex, &c->adjunct_np, CASE_DAT, 0, 1);
        }
        return;
    }
    const int this_ = c->kind == CL_THIS_NP || c->kind == CL_THIS_ADJ;
    const int person = this_ ? (c->kind == CL_THIS_NP && c->pred.plural ? P_3PL : P_3SG)
                             : subject_person(c);
    if (mood == MOOD_QUESTION) {
        words_add(ws, BE_DE[person]);
        if (this_)
            words_add(ws, "das");
        else
            de_subjects(ws, lex, c);
    } else {
        if (this_)
            words_add(ws, "das");
        else
            de_subjects(ws, lex, c);
        words_add(ws, BE_DE[person]);
    }
    de_be_rest(ws, lex, c);
}

/* ---------------------------------------------------------------------------------------
 * Rendering a sentence
 */

/* Upper-cases the first letter of s in place: ASCII, and ä ö ü (UTF-8 C3 A4/B6/BC). */
static void capitalise(char *s)
{
    unsigned char *u = (unsigned char *)s;
    if (u[0] >= 'a' && u[0] <= 'z')
        u[0] = (unsigned char)(u[0] - 'a' + 'A');
    else if (u[0] == 0xC3 && (u[1] == 0xA4 || u[1] == 0xB6 || u[1] == 0xBC))
        u[1] = (unsigned char)(u[1] - 0x20);
}

static void words_join(char *out, const Words *ws, char punct)
{
    size_t len = 0;
    for (int i = 0; i < ws->n; i++) {
        const size_t n = strlen(ws->w[i]);
        const int space = i > 0 && strcmp(ws->w[i], ",") != 0;
        assert(len + space + n + 2 < CORPUS_TEXT_MAX);
        if (space)
            out[len++] = ' ';
        memcpy(out + len, ws->w[i], n);
        len += n;
    }
    if (punct)
        out[len++] = punct;
    out[len] = '\0';
    capitalise(out);
}

static int words_count(const Words *ws)
{
    int n = 0;
    for (int i = 0; i < ws->n; i++)
        n += strcmp(ws->w[i], ",") != 0;
    return n;
}

/* Renders s into out; returns 0 when the English is too long. */
static int render(CorpusPair *out, const Lexicon *lex, const Sentence *s)
{
    Words en, de;
    en.n = de.n = 0;
    en.used = de.used = 0;
    for (int i = 0; i < s->n; i++) {
        if (i) {
            if (s->comma[i - 1])
                words_add(&en, ",");
            words_add(&en, "and");
            words_add(&de, "und");
        }
        en_clause(&en, lex, &s->c[i], s->mood, s->contract);
        de_clause(&de, lex, &s->c[i], s->mood);
    }
    if (words_count(&en) > CORPUS_MAX_WORDS)
        return 0;
    if (s->contract && s->mood != MOOD_IMPERATIVE)
        en_contract(&en);
    out->punct = s->punct;
    words_join(out->en, &en, s->punct);
    words_join(out->de, &de, s->punct);
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * Constructions
 */

/* The default features: every kind of clause, basic determiners. */
static Features features_base(void)
{
    Features f;
    memset(&f, 0, sizeof f);
    f.dets = DETS_BASIC;
    f.p_pron_subj = 35;
    f.p_plural = 35;
    f.p_adj = 40;
    f.p_neg = 30;
    return f;
}

/* Does any noun phrase of the sentence satisfy pred? */
static int sentence_any_np(const Sentence *s, int (*pred)(const Np *))
{
    for (int i = 0; i < s->n; i++) {
        const Clause *c = &s->c[i];
        for (int k = 0; k < c->n_subj; k++)
            if (pred(&c->subj[k]))
                return 1;
        if (c->kind == CL_TRANS) {
            for (int k = 0; k < c->n_obj; k++)
                if (pred(&c->obj[k]))
                    return 1;
            if (c->adjunct != ADJUNCT_NONE && pred(&c->adjunct_np))
                return 1;
        } else if (c->kind != CL_PRED_ADJ && c->kind != CL_THIS_ADJ && pred(&c->pred)) {
            return 1;
        }
    }
    return 0;
}

static int np_is_poss_more(const Np *np)
{
    return np->kind == NP_NOUN && (DBIT(np->det) & DETS_POSS_MORE);
}
static int np_is_no(const Np *np) { return has_det(np, D_NO); }
static int np_is_bare(const Np *np) { return has_det(np, D_NONE); }
static int np_is_name(const Np *np) { return np->kind == NP_NAME; }

/* Draws the clauses and mood of construction type; returns 0 to draw again. */
static int draw_sentence(Sentence *s, const Lexicon *lex, CorpusType type, Rng *rng)
{
    Features f = features_base();
    memset(s, 0, sizeof *s);
    s->n = 1;
    s->mood = MOOD_STATEMENT;
    unsigned w_all[6] = {50, 20, 10, 10, 6, 4};
    memcpy(f.w_kind, w_all, sizeof w_all);
    switch (type) {
    case CORPUS_THIS_IS:
        f.w_kind[CL_TRANS] = f.w_kind[CL_PRED_ADJ] = f.w_kind[CL_PRED_NOUN] = 0;
        f.w_kind[CL_PRED_LOC] = 0;
        f.w_kind[CL_THIS_NP] = 75;
        f.w_kind[CL_THIS_ADJ] = 25;
        f.p_neg = 35;
        break;
    case CORPUS_PREDICATE:
    case CORPUS_COORD_ADJ:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_PRED_ADJ] = 1;
        f.n_padj = type == CORPUS_PREDICATE ? 1 : 2;
        f.dets |= DBIT(D_A);
        f.p_pron_subj = 35;
        break;
    case CORPUS_NOUN_PREDICATE:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_PRED_NOUN] = 1;
        f.p_neg = 40;
        f.p_name = 10;
        break;
    case CORPUS_TRANSITIVE:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 1;
        f.p_pron_subj = 40;
        f.p_neg = 35;
        break;
    case CORPUS_OBJ_PRONOUN:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 1;
        f.p_pron_obj = 85;
        f.p_das = 15;
        f.p_pron_subj = 50;
        f.p_name = 10;
        f.p_neg = 30;
        break;
    case CORPUS_POSSESSIVE:
        f.dets = DETS_ALL_BUT_NO;
        f.w_kind[CL_THIS_NP] = f.w_kind[CL_THIS_ADJ] = 0;
        f.p_pron_subj = 25;
        break;
    case CORPUS_NO:
        f.dets = DETS_BASIC | DBIT(D_NO);
        f.w_kind[CL_PRED_NOUN] = f.w_kind[CL_PRED_LOC] = 0;
        f.w_kind[CL_THIS_NP] = f.w_kind[CL_THIS_ADJ] = 0;
        f.p_neg = 0;
        break;
    case CORPUS_BARE_PLURAL:
        f.dets = DBIT(D_NONE) | DBIT(D_THE) | DBIT(D_A) | DETS_POSS_BASIC;
        f.w_kind[CL_PRED_NOUN] = f.w_kind[CL_PRED_LOC] = 0;
        f.w_kind[CL_THIS_NP] = f.w_kind[CL_THIS_ADJ] = 0;
        f.p_plural = 70;
        f.p_pron_subj = 20;
        break;
    case CORPUS_NAMES:
        f.w_kind[CL_THIS_NP] = f.w_kind[CL_THIS_ADJ] = 0;
        f.p_name = 55;
        f.p_pron_subj = 15;
        f.p_coord_subj = 15;
        f.p_coord_obj = 10;
        f.p_adjunct = 20;
        break;
    case CORPUS_COORD_NP:
        f.w_kind[CL_PRED_NOUN] = 0;
        f.w_kind[CL_THIS_NP] = f.w_kind[CL_THIS_ADJ] = 0;
        f.p_coord_subj = 55;
        f.p_coord_obj = 60;
        f.p_name = 10;
        f.p_neg = 20;
        break;
    case CORPUS_COORD_VERB:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 1;
        f.p_coord_verb = 100;
        f.p_pron_subj = 45;
        f.p_pron_obj = 10;
        break;
    case CORPUS_COORD_CLAUSE:
        /* No coordinated noun phrases inside coordinated clauses: "I need his letters
         * and your table and her tables are big" could join the tables either way. */
        f.dets = DETS_ALL_BUT_NO | DBIT(D_NO);
        f.p_pron_subj = 40;
        f.p_pron_obj = 20;
        f.p_name = 12;
        f.p_coord_verb = 5;
        f.p_adjunct = 12;
        f.p_adj = 30;
        s->n = 2 + pct(rng, 35);
        break;
    case CORPUS_DATIVE:
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 65;
        f.w_kind[CL_PRED_LOC] = 35;
        f.dets = DETS_ALL_BUT_NO;
        f.p_adjunct = 100;
        f.p_neg = 15;
        f.p_name = 8;
        break;
    case CORPUS_BE_QUESTION:
        s->mood = MOOD_QUESTION;
        f.w_kind[CL_TRANS] = 0;
        f.w_kind[CL_PRED_ADJ] = 50;
        f.w_kind[CL_PRED_NOUN] = 15;
        f.w_kind[CL_PRED_LOC] = 15;
        f.w_kind[CL_THIS_NP] = 20;
        f.w_kind[CL_THIS_ADJ] = 0;
        f.p_pron_subj = 30;
        f.p_name = 8;
        f.p_neg = 30;
        break;
    case CORPUS_DO_QUESTION:
        s->mood = MOOD_QUESTION;
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 1;
        f.p_pron_subj = 60;
        f.p_pron_obj = 20;
        f.p_name = 8;
        f.p_neg = 35;
        f.dets = DETS_ALL_BUT_NO;
        break;
    case CORPUS_IMPERATIVE:
        s->mood = MOOD_IMPERATIVE;
        memset(f.w_kind, 0, sizeof f.w_kind);
        f.w_kind[CL_TRANS] = 1;
        f.p_pron_obj = 20;
        f.p_das = 10;
        f.p_name = 8;
        f.p_neg = 40;
        f.dets = DETS_ALL_BUT_NO;
        break;
    case CORPUS_CONTRACTION: {
        s->contract = 1;
        const unsigned r = draw_below(rng, 100);
        f.p_neg = 70;
        f.p_pron_subj = 60;
        f.dets = DETS_ALL_BUT_NO;
        if (r < 15) {
            s->mood = MOOD_QUESTION;
            f.w_kind[CL_TRANS] = 50;
        } else if (r < 25) {
            s->mood = MOOD_IMPERATIVE;
            memset(f.w_kind, 0, sizeof f.w_kind);
            f.w_kind[CL_TRANS] = 1;
        } else if (r < 35) {
            s->n = 2;
        }
        break;
    }
    case CORPUS_PHRASE: /* not drawn from the grammar (CORPUS_N_GRAMMAR too) */
    case CORPUS_N_TYPES: assert(!"draw_sentence: not a construction"); return 0;
    }
    for (int i = 0; i < s->n; i++)
        if (!draw_clause(&s->c[i], lex, &f, s->mood, rng))
            return 0;
    for (int i = 0; i + 1 < s->n; i++)
        s->comma[i] = pct(rng, 25);
    /* Each construction shows what it is named for. */
    const Clause *c = &s->c[0];
    switch (type) {
    case CORPUS_OBJ_PRONOUN:
        if (c->obj[0].kind != NP_PRON && c->obj[0].kind != NP_DAS)
            return 0;
        break;
    case CORPUS_POSSESSIVE:
        if (!sentence_any_np(s, np_is_poss_more))
            return 0;
        break;
    case CORPUS_NO:
        if (!sentence_any_np(s, np_is_no))
            return 0;
        break;
    case CORPUS_BARE_PLURAL:
        if (!sentence_any_np(s, np_is_bare))
            return 0;
        break;
    case CORPUS_NAMES:
        if (!sentence_any_np(s, np_is_name))
            return 0;
        break;
    case CORPUS_COORD_NP:
        if (c->n_subj != 2 && !(c->kind == CL_TRANS && c->n_obj == 2))
            return 0;
        break;
    case CORPUS_DATIVE:
        if (c->kind == CL_TRANS && c->adjunct == ADJUNCT_NONE)
            return 0;
        break;
    default: break;
    }
    switch (s->mood) {
    case MOOD_STATEMENT: s->punct = pct(rng, 50) ? '.' : 0; break;
    case MOOD_QUESTION: s->punct = pct(rng, 50) ? '?' : 0; break;
    case MOOD_IMPERATIVE: {
        const unsigned r = draw_below(rng, 4);
        s->punct = r == 0 ? '.' : r == 1 ? '!' : 0;
        break;
    }
    }
    return 1;
}

static int has_contraction(const char *en)
{
    return strchr(en, '\'') != NULL;
}

void corpus_sample(CorpusPair *out, const Lexicon *lex, CorpusType type, Rng *rng)
{
    assert(type >= 0 && type < CORPUS_N_GRAMMAR);
    for (;;) {
        Sentence s;
        if (!draw_sentence(&s, lex, type, rng))
            continue;
        if (!render(out, lex, &s))
            continue;
        if (type == CORPUS_CONTRACTION && !has_contraction(out->en))
            continue;
        out->type = type;
        return;
    }
}

static const char *const TYPE_NAMES[CORPUS_N_TYPES] = {
    [CORPUS_THIS_IS] = "this-is",
    [CORPUS_PREDICATE] = "predicate",
    [CORPUS_COORD_ADJ] = "coord-adj",
    [CORPUS_NOUN_PREDICATE] = "noun-predicate",
    [CORPUS_TRANSITIVE] = "transitive",
    [CORPUS_OBJ_PRONOUN] = "obj-pronoun",
    [CORPUS_POSSESSIVE] = "possessive",
    [CORPUS_NO] = "no",
    [CORPUS_BARE_PLURAL] = "bare-plural",
    [CORPUS_NAMES] = "names",
    [CORPUS_COORD_NP] = "coord-np",
    [CORPUS_COORD_VERB] = "coord-verb",
    [CORPUS_COORD_CLAUSE] = "coord-clause",
    [CORPUS_DATIVE] = "dative",
    [CORPUS_BE_QUESTION] = "be-question",
    [CORPUS_DO_QUESTION] = "do-question",
    [CORPUS_IMPERATIVE] = "imperative",
    [CORPUS_CONTRACTION] = "contraction",
    [CORPUS_PHRASE] = "phrase",
};

const char *corpus_type_name(CorpusType type)
{
    return type >= 0 && type < CORPUS_N_TYPES ? TYPE_NAMES[type] : "?";
}

/* Weights of the constructions in train.tsv: the long and the word-order-changing ones
 * more often. A do-question weighs most after coord-clause: its German puts the verb
 * first, in the subject's person, before the subject is written, and with 87 verbs in 5
 * persons a lower weight left rare pairs with some 20 examples ("Liebt ich ...?"). Bare
 * plurals come next: their first word is an adjective with the strong ending ("Braune
 * Münzen"), which models trained at weights 5 to 8 got wrong more often than anything
 * else (95-97 % of the test file's bare plurals exact).
 * A phrase (with a phrasebook only) weighs 16 of 137. A fixed expression is learned only
 * from itself, and at weights 3 and 8 a few phrases of one word ("Goodbye", "Sorry") were
 * not learned at all; a phrase is short, so this costs little training time. These are
 * the weights of the draw: the balancing below keeps more of the sentences that hold
 * rare forms, so the file's shares differ (toytrans corpus prints them: phrases 7 %,
 * some 250 lines a phrase, do-questions 19 %). */
static const unsigned TRAIN_WEIGHTS[CORPUS_N_TYPES] = {
    [CORPUS_THIS_IS] = 4,      [CORPUS_PREDICATE] = 4,    [CORPUS_COORD_ADJ] = 5,
    [CORPUS_NOUN_PREDICATE] = 5, [CORPUS_TRANSITIVE] = 6, [CORPUS_OBJ_PRONOUN] = 5,
    [CORPUS_POSSESSIVE] = 5,   [CORPUS_NO] = 5,           [CORPUS_BARE_PLURAL] = 12,
    [CORPUS_NAMES] = 6,        [CORPUS_COORD_NP] = 6,     [CORPUS_COORD_VERB] = 4,
    [CORPUS_COORD_CLAUSE] = 14, [CORPUS_DATIVE] = 8,      [CORPUS_BE_QUESTION] = 6,
    [CORPUS_DO_QUESTION] = 16, [CORPUS_IMPERATIVE] = 5,   [CORPUS_CONTRACTION] = 5,
    [CORPUS_PHRASE] = 16,
};

/* ---------------------------------------------------------------------------------------
 * Phrases: a phrasebook's fixed expressions in the forms a user types
 */

/* The English phrase en with its contractions written out ("I'm sorry" → "I am sorry",
 * "Don't" → "Do not"), into out[0..n); returns 1 when it differs from en. */
static int phrase_expand(char *out, size_t n, const char *en)
{
    size_t len = 0;
    int changed = 0;
    for (const char *p = en; *p;) {
        const char *end = p;
        while (*end && *end != ' ' && *end != ',')
            end++;
        const size_t wl = (size_t)(end - p);
        const char *w = p;
        size_t wn = wl;
        char buf[32];
        for (size_t k = 0; k < N_CONTRACTED; k++) {
            const char *c = CONTRACTED[k][2];
            if (strlen(c) != wl)
                continue;
            size_t i = 0;
            while (i < wl && (p[i] | 0x20) == (c[i] | 0x20))
                i++;
            if (i < wl)
                continue;
            snprintf(buf, sizeof buf, "%s %s", CONTRACTED[k][0], CONTRACTED[k][1]);
            if (p[0] >= 'A' && p[0] <= 'Z')
                capitalise(buf);
            w = buf;
            wn = strlen(buf);
            changed = 1;
            break;
        }
        const size_t rest = *end == ',' ? 1 : 0; /* the comma stays with its word */
        assert(len + wn + rest + 1 < n);
        memcpy(out + len, w, wn);
        len += wn;
        if (rest)
            out[len++] = ',';
        p = end + rest;
        while (*p == ' ')
            out[len++] = *p++;
    }
    out[len] = '\0';
    return changed;
}

/* Every form of every phrase, phrase by phrase, and which file each goes to. Phrase i has
 * forms [first[i], first[i + 1]): the English as written, then (if it has a contraction)
 * written out, each without a mark and with each mark its mood takes ("." and "!", or
 * "?"). Every form goes to train.tsv, in turn (a phrase's draws take its forms one after
 * the other), since a user types every one of them and a fixed expression is learned
 * only from itself; of its k forms, form i % k is also test.tsv's and form (i + 1) % k
 * valid.tsv's when k >= 3, so the marks rotate over the phrases. */
typedef struct {
    CorpusPair *form; /* first[n] forms; owned */
    int *first;       /* n + 1 offsets into form; owned */
    int *drawn;       /* n: how often train.tsv drew each phrase so far; owned */
    int n;            /* phrases */
} PhraseForms;

enum { MAX_FORMS_PER_PHRASE = 6 }; /* 2 spellings × 3 marks */

/* out = text and its mark (0: none), first letter capitalised as the corpus writes it.
 * PHRASEBOOK_TEXT_MAX keeps a side, written out and marked, within CORPUS_TEXT_MAX. */
static void phrase_side(char out[CORPUS_TEXT_MAX], const char *text, char mark)
{
    const size_t n = strlen(text);
    assert(n + 2 <= CORPUS_TEXT_MAX);
    memcpy(out, text, n);
    out[n] = mark;
    out[n + (mark != 0)] = '\0';
    capitalise(out);
}

static void phrase_forms_free(PhraseForms *pf)
{
    free(pf->drawn);
    free(pf->first);
    free(pf->form);
    memset(pf, 0, sizeof *pf);
}

static int phrase_forms_init(PhraseForms *pf, const Phrasebook *book)
{
    memset(pf, 0, sizeof *pf);
    const int n = phrasebook_count(book);
    pf->form = calloc((size_t)n * MAX_FORMS_PER_PHRASE, sizeof *pf->form);
    pf->first = calloc((size_t)n + 1, sizeof *pf->first);
    pf->drawn = calloc((size_t)n, sizeof *pf->drawn);
    if (!pf->form || !pf->first || !pf->drawn) {
        phrase_forms_free(pf);
        return TT_ENOMEM;
    }
    pf->n = n;
    int k = 0;
    for (int i = 0; i < n; i++) {
        const Phrase *ph = phrasebook_phrase(book, i);
        char spelling[2][CORPUS_TEXT_MAX];
        snprintf(spelling[0], sizeof spelling[0], "%s", ph->en);
        const int n_spell = 1 + phrase_expand(spelling[1], sizeof spelling[1], ph->en);
        static const char MARKS[2][3] = {{0, '.', '!'}, {0, '?', 0}};
        const int n_marks = ph->question ? 2 : 3;
        pf->first[i] = k;
        for (int sp = 0; sp < n_spell; sp++) {
            for (int m = 0; m < n_marks; m++) {
                CorpusPair *f = &pf->form[k++];
                const char mark = MARKS[ph->question][m];
                f->type = CORPUS_PHRASE;
                f->punct = mark;
                phrase_side(f->en, spelling[sp], mark);
                phrase_side(f->de, ph->de, mark);
            }
        }
    }
    pf->first[n] = k;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The writer
 */

enum { SPLIT_TRAIN, SPLIT_VALID, SPLIT_TEST, N_SPLITS };
static const char *const SPLIT_FILES[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};

/* The index into pf->form of phrase i's form in split s (SPLIT_TEST or SPLIT_VALID), or
 * -1 when there is none (PhraseForms says which). */
static int phrase_form_in(const PhraseForms *pf, int i, int s)
{
    const int k = pf->first[i + 1] - pf->first[i];
    if (s == SPLIT_TEST)
        return pf->first[i] + i % k;
    return k >= 3 ? pf->first[i] + (i + 1) % k : -1;
}

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

/* Inserts key (never 0); returns 1 if it was new, 0 if already present. */
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

/* FNV-1a of the core of en; never 0. */
static uint64_t core_key(const char *en)
{
    char core[CORPUS_TEXT_MAX * 2];
    phrasebook_core(core, sizeof core, en);
    const uint64_t h = fnv1a64_add(FNV1A64_OFFSET, core, strlen(core));
    return h ? h : 1;
}

static int write_pair(FILE *f, const CorpusPair *p, int with_type, const char *name,
                      char *err, size_t errlen)
{
    int rc = with_type ? fprintf(f, "%s\t%s\t%s\n", p->en, p->de, corpus_type_name(p->type))
                       : fprintf(f, "%s\t%s\n", p->en, p->de);
    if (rc < 0) {
        tt_errf(err, errlen, "error writing '%s': %s", name, strerror(errno));
        return TT_EIO;
    }
    return TT_OK;
}

/* The next phrase line of split (SPLIT_*) into *out: in the test and validation files
 * the next phrase that has a form there (*next counts them off), in the training file a
 * phrase drawn from rng and its next form in turn. Returns 0 when the test or
 * validation file has every phrase already. */
static int next_phrase(CorpusPair *out, PhraseForms *pf, int split, int *next, Rng *rng)
{
    int at = -1;
    if (split == SPLIT_TRAIN) {
        const int i = (int)draw_below(rng, (uint32_t)pf->n);
        const int k = pf->first[i + 1] - pf->first[i];
        at = pf->first[i] + pf->drawn[i]++ % k;
    } else {
        while (*next < pf->n && (at = phrase_form_in(pf, *next, split)) < 0)
            ++*next;
        if (at < 0)
            return 0;
        ++*next;
    }
    assert(at >= 0);
    *out = pf->form[at];
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * Balancing the training file's word forms
 *
 * Drawn by construction and word alone, the training file holds the frequent forms
 * thousands of times and the rare ones hardly at all: with 301 nouns, each noun's dative
 * plural ("mit den Hamstern") came up some 10 times in 180,000 pairs and the female plural
 * of a person noun ("Die Frauen sind Lehrerinnen") once or never, too few for a model to
 * learn. So the training draw keeps every sentence with a German form seen fewer than
 * FORM_COVERED times so far, and of the others only FORM_KEEP_PERCENT: sentences that
 * teach nothing new give way to ones that do. The test and validation files are drawn
 * before, without it, so they measure the grammar's own distribution.
 */

enum {
    FORM_COVERED = 100,     /* a German form this often in train.tsv is learned enough */
    FORM_KEEP_PERCENT = 10, /* of the sentences with covered forms only, kept */
    FORM_SLOTS = 16384,     /* power of two, more than twice the corpus's German forms */
    FORM_LEN = 48,          /* bytes of a form, NUL included */
};

typedef struct {
    char (*form)[FORM_LEN]; /* FORM_SLOTS forms, "" for an empty slot; owned */
    int *count;             /* FORM_SLOTS counts; owned */
} FormCounts;

static int formcounts_init(FormCounts *fc)
{
    fc->form = calloc(FORM_SLOTS, sizeof *fc->form);
    fc->count = calloc(FORM_SLOTS, sizeof *fc->count);
    return fc->form && fc->count ? TT_OK : TT_ENOMEM;
}

static void formcounts_free(FormCounts *fc)
{
    free(fc->form);
    free(fc->count);
    fc->form = NULL;
    fc->count = NULL;
}

/* The slot of the form w[0..n) (n < FORM_LEN): where it is, or the empty slot it goes to. */
static size_t form_slot(const FormCounts *fc, const char *w, size_t n)
{
    size_t i = (size_t)fnv1a64_add(FNV1A64_OFFSET, w, n) & (FORM_SLOTS - 1);
    while (fc->form[i][0] != '\0' && (strncmp(fc->form[i], w, n) != 0 || fc->form[i][n]))
        i = (i + 1) & (FORM_SLOTS - 1);
    return i;
}

/* Goes over the words of the German de (split at spaces, without commas and the final
 * mark), counting each once more when add is 1, only reading when it is 0. Returns the
 * fewest times one of them is counted (INT_MAX for no word). */
static int formcounts_visit(FormCounts *fc, const char *de, int add)
{
    int least = INT_MAX;
    for (const char *p = de; *p;) {
        while (*p == ' ')
            p++;
        const char *end = p;
        while (*end && *end != ' ' && *end != ',' && *end != '.' && *end != '?' && *end != '!')
            end++;
        const size_t n = (size_t)(end - p);
        if (n > 0 && n < FORM_LEN) {
            const size_t i = form_slot(fc, p, n);
            if (add && fc->form[i][0] == '\0')
                memcpy(fc->form[i], p, n); /* the rest of the slot is zero */
            fc->count[i] += add;
            if (fc->count[i] < least)
                least = fc->count[i];
        }
        p = end;
        while (*p && *p != ' ')
            p++;
    }
    return least;
}

/* 1 when the balancing passes over the German de: all its forms are covered (fc not NULL)
 * and the draw from rng does not keep it. */
static int nothing_new(FormCounts *fc, const char *de, Rng *rng)
{
    return fc && formcounts_visit(fc, de, 0) >= FORM_COVERED &&
           draw_below(rng, 100) >= FORM_KEEP_PERCENT;
}

/* Draws n pairs into f, the file of split (SPLIT_*): in the test and validation files
 * the constructions take turns in enum order, in the training file they are drawn by
 * TRAIN_WEIGHTS; the phrase construction only when pf is not NULL (it holds the
 * phrasebook's forms), and in the cycles only while phrases remain. The test file's
 * lines name their construction. */
static int draw_split(FILE *f, const char *name, int split, int n, const Lexicon *lex,
                      PhraseForms *pf, CoreSet *seen, FormCounts *fc, Rng *rng,
                      CorpusStats *stats, char *err, size_t errlen)
{
    const int n_types = pf ? CORPUS_N_TYPES : CORPUS_N_GRAMMAR;
    unsigned total = 0;
    for (int t = 0; t < n_types; t++)
        total += TRAIN_WEIGHTS[t];
    long misses = 0;
    int turn = 0;  /* the cycle's position: it moves on when its construction wrote */
    int ahead = 0; /* the next phrase the test or validation file may take */
    for (int i = 0; i < n;) {
        CorpusType type;
        if (split != SPLIT_TRAIN) {
            type = (CorpusType)(turn % n_types);
        } else {
            unsigned x = draw_below(rng, total);
            int t = 0;
            while (x >= TRAIN_WEIGHTS[t])
                x -= TRAIN_WEIGHTS[t++];
            type = (CorpusType)t;
        }
        CorpusPair pair;
        if (type == CORPUS_PHRASE) {
            if (!next_phrase(&pair, pf, split, &ahead, rng)) {
                turn++; /* every phrase is placed: the turn passes */
                continue;
            }
            if (nothing_new(fc, pair.de, rng))
                continue;
        } else {
            corpus_sample(&pair, lex, type, rng);
            stats->draws++;
            if (nothing_new(fc, pair.de, rng))
                continue;
            if (!coreset_insert(seen, core_key(pair.en))) {
                if (++misses > CORPUS_MAX_MISSES) {
                    tt_errf(err, errlen, "the grammar ran out of new sentences after %ld "
                                         "draws", stats->draws);
                    return TT_EINVAL;
                }
                continue;
            }
            misses = 0;
        }
        int rc = write_pair(f, &pair, split == SPLIT_TEST, name, err, errlen);
        if (rc != TT_OK)
            return rc;
        if (fc)
            formcounts_visit(fc, pair.de, 1);
        stats->pairs[type]++;
        turn++;
        i++;
    }
    return TT_OK;
}

int corpus_write(const char *dir, const Lexicon *lex, const Phrasebook *book, uint64_t seed,
                 int n_train, int n_valid, int n_test, CorpusStats *stats, char *err,
                 size_t errlen)
{
    char path[N_SPLITS][CORPUS_PATH_MAX], tmp[N_SPLITS][CORPUS_PATH_MAX];
    FILE *files[N_SPLITS] = {NULL, NULL, NULL};
    int created[N_SPLITS] = {0, 0, 0}; /* tmp[s] exists and must go on failure */
    CoreSet seen = {NULL, 0};
    FormCounts fc = {NULL, NULL};
    PhraseForms forms = {NULL, NULL, NULL, 0};
    PhraseForms *pf = NULL; /* &forms with a phrasebook */
    CorpusStats local;
    Rng rng;
    int rc = TT_OK;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (err && errlen)
        err[0] = '\0';
    if (!dir || !lex || n_train < 1 || n_valid < 0 || n_test < 0 ||
        (long)n_train + n_valid + n_test > CORPUS_MAX_PAIRS) {
        tt_errf(err, errlen, "corpus sizes out of range: train %d (at least 1), valid %d, "
                             "test %d, at most %d in all", n_train, n_valid, n_test,
                CORPUS_MAX_PAIRS);
        return TT_EINVAL;
    }
    for (int s = 0; s < N_SPLITS; s++) {
        int a = snprintf(path[s], sizeof path[s], "%s/%s", dir, SPLIT_FILES[s]);
        /* Named for this process, so two runs writing one directory never share one. */
        int b = snprintf(tmp[s], sizeof tmp[s], "%s/%s.%ld.tmp", dir, SPLIT_FILES[s],
                         (long)getpid());
        if (a < 0 || b < 0 || (size_t)b >= sizeof tmp[s]) {
            tt_errf(err, errlen, "output directory path too long: '%.64s...'", dir);
            return TT_EINVAL;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        tt_errf(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
        return TT_EIO;
    }
    if (book) {
        if ((rc = phrase_forms_init(&forms, book)) != TT_OK) {
            tt_errf(err, errlen, "out of memory for the forms of %d phrases",
                    phrasebook_count(book));
            goto done;
        }
        pf = &forms;
    }
    if ((rc = coreset_init(&seen, (size_t)n_train + n_valid + n_test + forms.n)) != TT_OK) {
        tt_errf(err, errlen, "out of memory for the set of %d sentences",
                n_train + n_valid + n_test);
        goto done;
    }
    if ((rc = formcounts_init(&fc)) != TT_OK) {
        tt_errf(err, errlen, "out of memory for the counts of the German forms");
        goto done;
    }
    for (int s = 0; s < N_SPLITS; s++) {
        /* Not following a link planted at the temporary name; one left by a dead process
         * with this process's id is replaced. */
        remove(tmp[s]);
        int fd = open(tmp[s], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            created[s] = 1;
            if (!(files[s] = fdopen(fd, "w")))
                close(fd);
        }
        if (!files[s]) {
            tt_errf(err, errlen, "cannot create '%s': %s", tmp[s], strerror(errno));
            rc = TT_EIO;
            goto done;
        }
    }

    /* The seed pair comes first, and its core is taken before any draw, so no split can
     * hold "This is an example" in another form. */
    const CorpusPair seed_pair = {CORPUS_THIS_IS, 0, CORPUS_SEED_EN, CORPUS_SEED_DE};
    coreset_insert(&seen, core_key(seed_pair.en));
    if ((rc = write_pair(files[SPLIT_TRAIN], &seed_pair, 0, tmp[SPLIT_TRAIN], err,
                         errlen)) != TT_OK)
        goto done;
    stats->pairs[CORPUS_THIS_IS]++;
    /* So are the phrases': no sentence of the grammar takes a phrase's core (its German
     * would compete with the phrasebook's), and its forms are exempt from distinctness. */
    for (int i = 0; i < forms.n; i++) {
        if (!coreset_insert(&seen, core_key(forms.form[forms.first[i]].en))) {
            tt_errf(err, errlen, "phrase \"%s\" (line %d of the phrasebook) is the seed "
                                 "pair \"%s\"", phrasebook_phrase(book, i)->en,
                    phrasebook_phrase(book, i)->line, CORPUS_SEED_EN);
            rc = TT_EINVAL;
            goto done;
        }
    }

    rng_seed(&rng, seed);
    if ((rc = draw_split(files[SPLIT_TEST], tmp[SPLIT_TEST], SPLIT_TEST, n_test, lex, pf,
                         &seen, NULL, &rng, stats, err, errlen)) != TT_OK ||
        (rc = draw_split(files[SPLIT_VALID], tmp[SPLIT_VALID], SPLIT_VALID, n_valid, lex, pf,
                         &seen, NULL, &rng, stats, err, errlen)) != TT_OK ||
        (rc = draw_split(files[SPLIT_TRAIN], tmp[SPLIT_TRAIN], SPLIT_TRAIN, n_train - 1, lex,
                         pf, &seen, &fc, &rng, stats, err, errlen)) != TT_OK)
        goto done;

    for (int s = 0; s < N_SPLITS; s++) {
        /* fclose flushes: a full disk shows up here if not before. */
        errno = 0;
        int bad = ferror(files[s]) | fclose(files[s]);
        files[s] = NULL;
        if (bad) {
            tt_errf(err, errlen, "error writing '%s': %s", tmp[s],
                    errno ? strerror(errno) : "write error");
            rc = TT_EIO;
            goto done;
        }
    }
    for (int s = 0; s < N_SPLITS; s++) {
        if (rename(tmp[s], path[s]) != 0) {
            tt_errf(err, errlen, "cannot rename '%s' to '%s': %s", tmp[s], path[s],
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
    formcounts_free(&fc);
    phrase_forms_free(&forms);
    if (rc != TT_OK)
        memset(stats, 0, sizeof *stats);
    return rc;
}
