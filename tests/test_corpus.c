/*
 * test_corpus.c — unit tests for corpus.h: the grammar of docs/corpus.md, its sampler,
 * and the writer of train.tsv, valid.tsv and test.tsv.
 *
 * The group setup writes one corpus with the default seed and sizes (exactly what
 * `make corpus` writes) into a mkdtemp directory and reads it back, and enumerates the
 * grammar into a set of 64-bit core hashes: every core of the this-is, predicate and
 * question types, and every TRANSITIVE_STRIDE-th transitive core (all 51.7 million would
 * take minutes). The file tests then read those lines; the error tests make their own
 * directories. The German of the pinned pairs was written by hand from docs/corpus.md
 * and then matched to the indices that corpus_core_at gives them.
 */
#include "corpus.h"
#include "rng.h"
#include "status.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#define ERR_LEN 512
#define PATH_LEN 1024
#define N_SAMPLED (CORPUS_DEFAULT_TRAIN + CORPUS_DEFAULT_VALID + CORPUS_DEFAULT_TEST)
#define TRANSITIVE_STRIDE 251 /* enumerate transitive cores 0, 251, 502, … */
#define ENUM_SLOTS ((size_t)1 << 20) /* hash slots: over twice the 461,569 cores enumerated */

enum { SPLIT_TRAIN, SPLIT_VALID, SPLIT_TEST, N_SPLITS };
static const char *const SPLIT_FILES[N_SPLITS] = {"train.tsv", "valid.tsv", "test.tsv"};
static const int SPLIT_SIZES[N_SPLITS] = {CORPUS_DEFAULT_TRAIN, CORPUS_DEFAULT_VALID,
                                          CORPUS_DEFAULT_TEST};

/* ---------------------------------------------------------------------------------------
 * Helpers: files, directories, a set of 64-bit hashes
 */

typedef struct {
    char *text;       /* the whole file, each '\n' replaced by NUL; owned */
    size_t len;       /* bytes in the file */
    char **lines;     /* n pointers into text; owned */
    size_t n;         /* lines, a last one without '\n' included */
    int has_nul;      /* the file holds a NUL byte */
    int ends_newline; /* the file is empty or ends with '\n' */
} FileLines;

/* Reads path whole; returns a NUL-terminated malloc'd buffer (caller frees) or NULL. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void file_lines_free(FileLines *fl)
{
    free(fl->lines);
    free(fl->text);
    memset(fl, 0, sizeof *fl);
}

/* Loads path as lines; returns 0, or -1 if it cannot be read. */
static int file_lines_load(FileLines *fl, const char *path)
{
    memset(fl, 0, sizeof *fl);
    fl->text = read_all(path, &fl->len);
    if (!fl->text)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < fl->len; i++)
        n += fl->text[i] == '\n';
    fl->has_nul = memchr(fl->text, '\0', fl->len) != NULL;
    fl->ends_newline = fl->len == 0 || fl->text[fl->len - 1] == '\n';
    if (!fl->ends_newline)
        n++;
    fl->lines = malloc((n + 1) * sizeof *fl->lines);
    if (!fl->lines) {
        file_lines_free(fl);
        return -1;
    }
    char *p = fl->text, *end = fl->text + fl->len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        fl->lines[fl->n++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return 0;
}

/* out = dir/name; fails the test if it does not fit in PATH_LEN bytes. */
static void join_path(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, PATH_LEN, "%s/%s", dir, name);
    assert_true(n > 0 && n < PATH_LEN);
}

/* Makes a fresh directory under $TMPDIR (or /tmp) into dir[PATH_LEN]. */
static void make_temp_dir(char *dir)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, PATH_LEN, "%s/toytrans-corpus.XXXXXX", base && base[0] ? base : "/tmp");
    assert_non_null(mkdtemp(dir));
}

/* Removes path and, if it is a directory, everything under it. */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700); /* a read-only test directory must be emptied too */
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char sub[PATH_LEN];
                join_path(sub, path, e->d_name);
                remove_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* The number of entries in dir other than . and .., or -1 if it cannot be read. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The core of an English sentence: lower-cased, final '.' or '?' dropped, into out. */
static void core_of(char *out, size_t cap, const char *en, size_t len)
{
    if (len > 0 && (en[len - 1] == '.' || en[len - 1] == '?'))
        len--;
    assert_true(len < cap);
    for (size_t i = 0; i < len; i++)
        out[i] = (en[i] >= 'A' && en[i] <= 'Z') ? (char)(en[i] - 'A' + 'a') : en[i];
    out[len] = '\0';
}

/* FNV-1a of the core of en (never 0). */
static uint64_t core_hash(const char *en)
{
    char core[CORPUS_TEXT_MAX];
    core_of(core, sizeof core, en, strlen(en));
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *p = core; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
    return h ? h : 1;
}

typedef struct {
    uint64_t *keys; /* (mask + 1) slots, 0 = empty; owned */
    size_t mask;
    size_t n;       /* keys stored */
} HashSet;

static int hashset_init(HashSet *s, size_t cap_pow2)
{
    s->keys = calloc(cap_pow2, sizeof *s->keys);
    s->mask = cap_pow2 - 1;
    s->n = 0;
    return s->keys ? 0 : -1;
}

static void hashset_free(HashSet *s)
{
    free(s->keys);
    s->keys = NULL;
}

/* Finds key's slot: where it is, or the empty slot where it would go. */
static size_t hashset_slot(const HashSet *s, uint64_t key)
{
    size_t i = (size_t)(key * UINT64_C(0x9e3779b97f4a7c15) >> 20) & s->mask;
    while (s->keys[i] != 0 && s->keys[i] != key)
        i = (i + 1) & s->mask;
    return i;
}

/* Adds key; returns 1 if it was new, 0 if present. The table never fills (sized 2×). */
static int hashset_add(HashSet *s, uint64_t key)
{
    size_t i = hashset_slot(s, key);
    if (s->keys[i] == key)
        return 0;
    s->keys[i] = key;
    s->n++;
    return 1;
}

static int hashset_has(const HashSet *s, uint64_t key)
{
    return s->keys[hashset_slot(s, key)] == key;
}

/* Which type an English sentence is, from its words alone (the grammar makes it clear). */
static CorpusType classify(const char *en)
{
    if (strncmp(en, "This is ", 8) == 0 || strncmp(en, "These are ", 10) == 0)
        return CORPUS_THIS_IS;
    if (strncmp(en, "Is ", 3) == 0 || strncmp(en, "Are ", 4) == 0 || strncmp(en, "Am ", 3) == 0)
        return CORPUS_QUESTION;
    if (strstr(en, " is ") || strstr(en, " are ") || strstr(en, " am "))
        return CORPUS_PREDICATE;
    return CORPUS_TRANSITIVE;
}

/* ---------------------------------------------------------------------------------------
 * Group fixture
 */

typedef struct {
    char dir[PATH_LEN];          /* the corpus written with the defaults */
    CorpusStats stats;           /* what corpus_write reported for it */
    FileLines split[N_SPLITS];   /* its files, as lines */
    HashSet cores;               /* hashes of the enumerated cores */
    size_t n_enumerated;         /* indices enumerated, all types together */
} Fixture;

static int fixture_free(Fixture *fx)
{
    for (int s = 0; s < N_SPLITS; s++)
        file_lines_free(&fx->split[s]);
    hashset_free(&fx->cores);
    if (fx->dir[0])
        remove_tree(fx->dir);
    free(fx);
    return 0;
}

static int group_setup(void **state)
{
    Fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    const char *base = getenv("TMPDIR");
    snprintf(fx->dir, sizeof fx->dir, "%s/toytrans-corpus.XXXXXX",
             base && base[0] ? base : "/tmp");
    char err[ERR_LEN];
    if (!mkdtemp(fx->dir)) {
        fx->dir[0] = '\0';
        goto fail;
    }
    if (corpus_write(fx->dir, CORPUS_DEFAULT_SEED, CORPUS_DEFAULT_TRAIN, CORPUS_DEFAULT_VALID,
                     CORPUS_DEFAULT_TEST, &fx->stats, err, sizeof err) != TT_OK) {
        fprintf(stderr, "group setup: corpus_write: %s\n", err);
        goto fail;
    }
    for (int s = 0; s < N_SPLITS; s++) {
        char path[PATH_LEN];
        join_path(path, fx->dir, SPLIT_FILES[s]);
        if (file_lines_load(&fx->split[s], path) != 0)
            goto fail;
    }
    if (hashset_init(&fx->cores, ENUM_SLOTS) != 0)
        goto fail;
    for (int t = 0; t < CORPUS_N_TYPES; t++) {
        const uint64_t step = t == CORPUS_TRANSITIVE ? TRANSITIVE_STRIDE : 1;
        CorpusPair p;
        for (uint64_t i = 0; i < corpus_core_count((CorpusType)t); i += step) {
            if (corpus_core_at(&p, (CorpusType)t, i) != TT_OK)
                goto fail;
            hashset_add(&fx->cores, core_hash(p.en));
            fx->n_enumerated++;
        }
    }
    *state = fx;
    return 0;
fail:
    fixture_free(fx);
    return -1;
}

static int group_teardown(void **state)
{
    return fixture_free(*state);
}

/* ---------------------------------------------------------------------------------------
 * The grammar
 */

/* The number of cores per type is exactly what docs/corpus.md's rules multiply out to. */
static void test_corpus_core_counts_exact(void **state)
{
    (void)state;
    /* this-is: 2 (not) × [4 dets × 22 nouns + 4 dets × 21 plurals] × 17 adjective choices
     * (none, 8, very + 8). predicate: (7 pronouns + 4 dets × 43 noun forms × 9 adjective
     * choices) × 144 predicates (2 not × 2 very × 8 + 2 very × 8 × 7 pairs). question:
     * (4 × 22 + 21 bare plurals) × 9 + 1555 subjects × 16 (very × 8). transitive: the sum
     * over the verbs of 2 × subjects × objects, e.g. read: 2 × (6 + 9 × 6 × 17) × 2 × 170. */
    assert_int_equal(corpus_core_count(CORPUS_THIS_IS), 5848);
    assert_int_equal(corpus_core_count(CORPUS_PREDICATE), 223920);
    assert_int_equal(corpus_core_count(CORPUS_TRANSITIVE), 51690710);
    assert_int_equal(corpus_core_count(CORPUS_QUESTION), 25861);
    assert_int_equal(corpus_core_count(CORPUS_N_TYPES), 0);

    CorpusPair p;
    for (int t = 0; t < CORPUS_N_TYPES; t++) {
        const uint64_t n = corpus_core_count((CorpusType)t);
        assert_int_equal(corpus_core_at(&p, (CorpusType)t, n - 1), TT_OK);
        assert_int_equal(corpus_core_at(&p, (CorpusType)t, n), TT_EINVAL);
    }
    assert_int_equal(corpus_core_at(&p, CORPUS_N_TYPES, 0), TT_EINVAL);
}

typedef struct {
    CorpusType type;
    uint64_t index;
    const char *en, *de;
} Pinned;

/* Hand-translated pairs, with the examples of docs/corpus.md among them. */
static const Pinned PINNED[] = {
    {CORPUS_THIS_IS, 34, "This is an example", "Das ist ein Beispiel"},
    {CORPUS_THIS_IS, 585, "This is not an old dog", "Das ist kein alter Hund"},
    {CORPUS_THIS_IS, 782, "These are dogs", "Das sind Hunde"},
    {CORPUS_THIS_IS, 785, "These are not big dogs", "Das sind keine großen Hunde"},
    {CORPUS_THIS_IS, 1157, "This is not my book", "Das ist nicht mein Buch"},
    {CORPUS_THIS_IS, 1266, "These are my new books", "Das sind meine neuen Bücher"},
    {CORPUS_THIS_IS, 2057, "These are not the young children", "Das sind nicht die jungen Kinder"},
    {CORPUS_THIS_IS, 2495, "This is not a red car", "Das ist kein rotes Auto"},
    {CORPUS_THIS_IS, 2776, "This is a very old apple", "Das ist ein sehr alter Apfel"},
    {CORPUS_THIS_IS, 4998, "This is your bread", "Das ist dein Brot"},
    {CORPUS_THIS_IS, 5318, "This is the beautiful street", "Das ist die schöne Straße"},
    {CORPUS_PREDICATE, 18, "I am not old", "Ich bin nicht alt"},
    {CORPUS_PREDICATE, 224, "You are beautiful and young", "Du bist schön und jung"},
    {CORPUS_PREDICATE, 693, "It is very good and small", "Es ist sehr gut und klein"},
    {CORPUS_PREDICATE, 26966, "The dogs are big and young", "Die Hunde sind groß und jung"},
    {CORPUS_PREDICATE, 36316, "Your small cat is not very good",
     "Deine kleine Katze ist nicht sehr gut"},
    {CORPUS_PREDICATE, 53288, "The old man is very big", "Der alte Mann ist sehr groß"},
    {CORPUS_PREDICATE, 71011, "My women are not new", "Meine Frauen sind nicht neu"},
    {CORPUS_PREDICATE, 90433, "These girls are small", "Diese Mädchen sind klein"},
    {CORPUS_PREDICATE, 168197, "This garden is red", "Dieser Garten ist rot"},
    {CORPUS_TRANSITIVE, 749, "I do not see a dog", "Ich sehe keinen Hund"},
    {CORPUS_TRANSITIVE, 4762, "I see the big tree", "Ich sehe den großen Baum"},
    {CORPUS_TRANSITIVE, 17252011, "My friend does not have a big house",
     "Mein Freund hat kein großes Haus"},
    {CORPUS_TRANSITIVE, 17999261, "She does not read the book", "Sie liest das Buch nicht"},
    {CORPUS_TRANSITIVE, 18629518, "They write my letters", "Sie schreiben meine Briefe"},
    {CORPUS_TRANSITIVE, 18655188, "An old man writes a letter",
     "Ein alter Mann schreibt einen Brief"},
    {CORPUS_TRANSITIVE, 22273820, "The girl buys a red car", "Das Mädchen kauft ein rotes Auto"},
    {CORPUS_TRANSITIVE, 23404379, "Your teachers do not buy big apples",
     "Deine Lehrer kaufen keine großen Äpfel"},
    {CORPUS_TRANSITIVE, 24067648, "You eat an apple", "Du isst einen Apfel"},
    {CORPUS_TRANSITIVE, 24313468, "This woman eats an apple", "Diese Frau isst einen Apfel"},
    {CORPUS_TRANSITIVE, 24730240, "It finds the bread", "Es findet das Brot"},
    {CORPUS_TRANSITIVE, 26237025, "A very young cat does not find an old door",
     "Eine sehr junge Katze findet keine alte Tür"},
    {CORPUS_TRANSITIVE, 33711315, "He does not need your new car",
     "Er braucht dein neues Auto nicht"},
    {CORPUS_TRANSITIVE, 33733747, "We do not need apples", "Wir brauchen keine Äpfel"},
    {CORPUS_TRANSITIVE, 47842987, "The children do not love these very old cities",
     "Die Kinder lieben diese sehr alten Städte nicht"},
    {CORPUS_QUESTION, 9, "Is this an example", "Ist das ein Beispiel"},
    {CORPUS_QUESTION, 201, "Is this my old book", "Ist das mein altes Buch"},
    {CORPUS_QUESTION, 447, "Are these red cars", "Sind das rote Autos"},
    {CORPUS_QUESTION, 486, "Are these apples", "Sind das Äpfel"},
    {CORPUS_QUESTION, 983, "Am I old", "Bin ich alt"},
    {CORPUS_QUESTION, 1004, "Are you young", "Bist du jung"},
    {CORPUS_QUESTION, 1029, "Is she big", "Ist sie groß"},
    {CORPUS_QUESTION, 1056, "Is it very new", "Ist es sehr neu"},
    {CORPUS_QUESTION, 1078, "Are they small", "Sind sie klein"},
    {CORPUS_QUESTION, 3397, "Is the dog big", "Ist der Hund groß"},
    {CORPUS_QUESTION, 3973, "Are the dogs big", "Sind die Hunde groß"},
    {CORPUS_QUESTION, 19683, "Is this garden very beautiful", "Ist dieser Garten sehr schön"},
    {CORPUS_QUESTION, 25718, "Are your doors small", "Sind deine Türen klein"},
};

/* Every pinned index gives exactly the hand-translated pair, without punctuation. */
static void test_corpus_pinned_pairs_match_hand_translation(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof PINNED / sizeof PINNED[0]; k++) {
        const Pinned *w = &PINNED[k];
        CorpusPair p;
        assert_int_equal(corpus_core_at(&p, w->type, w->index), TT_OK);
        assert_int_equal(p.type, w->type);
        assert_int_equal(p.punctuated, 0);
        assert_string_equal(p.en, w->en);
        assert_string_equal(p.de, w->de);
    }
}

/* No two enumerated indices, over all types together, give the same core, and there are
 * at least ten times more of them than a default corpus samples. */
static void test_corpus_grammar_tenfold_distinct_cores(void **state)
{
    const Fixture *fx = *state;
    assert_int_equal(fx->cores.n, fx->n_enumerated);
    assert_true(fx->cores.n >= (size_t)10 * N_SAMPLED);
    uint64_t total = 0;
    for (int t = 0; t < CORPUS_N_TYPES; t++)
        total += corpus_core_count((CorpusType)t);
    assert_true(total >= (uint64_t)10 * N_SAMPLED);
}

/* Checks one pair: no TAB/CR/LF, capitalised, ASCII English, NFC German, the final
 * punctuation that its type and punctuated flag call for, "an" only before a vowel. */
static void check_pair_form(const CorpusPair *p)
{
    const size_t ne = strlen(p->en), nd = strlen(p->de);
    assert_true(ne > 0 && ne + 1 < CORPUS_TEXT_MAX && nd > 0 && nd + 1 < CORPUS_TEXT_MAX);
    assert_null(strpbrk(p->en, "\t\r\n"));
    assert_null(strpbrk(p->de, "\t\r\n"));
    assert_true(p->en[0] >= 'A' && p->en[0] <= 'Z');
    assert_true(p->de[0] >= 'A' && p->de[0] <= 'Z');
    for (size_t i = 0; i < ne; i++)
        assert_true((unsigned char)p->en[i] < 0x80);
    const char want = p->punctuated ? (p->type == CORPUS_QUESTION ? '?' : '.') : 0;
    const char last_en = p->en[ne - 1], last_de = p->de[nd - 1];
    if (want) {
        assert_int_equal(last_en, want);
        assert_int_equal(last_de, want);
    } else {
        assert_true(last_en != '.' && last_en != '?');
        assert_true(last_de != '.' && last_de != '?');
    }
    utf8proc_uint8_t *nfc = utf8proc_NFC((const utf8proc_uint8_t *)p->de);
    assert_non_null(nfc); /* NULL: not valid UTF-8 */
    assert_string_equal((const char *)nfc, p->de);
    free(nfc);
    /* "a" before a consonant, "an" before a vowel letter: each word against the next. */
    for (const char *w = p->en, *sp; (sp = strchr(w, ' ')) != NULL; w = sp + 1) {
        const size_t len = (size_t)(sp - w);
        const int vowel = strchr("aeiou", sp[1]) != NULL;
        if (len == 1 && (w[0] == 'a' || w[0] == 'A') && vowel)
            fail_msg("'a' before a vowel: %s", p->en);
        if (len == 2 && (w[0] == 'a' || w[0] == 'A') && w[1] == 'n' && !vowel)
            fail_msg("'an' before a consonant: %s", p->en);
    }
}

/* Enumerated cores of every type are well formed, with an English core that identifies
 * its type. */
static void test_corpus_enumerated_cores_well_formed(void **state)
{
    (void)state;
    for (int t = 0; t < CORPUS_N_TYPES; t++) {
        const uint64_t n = corpus_core_count((CorpusType)t);
        const uint64_t step = n / 4000 + 1; /* about 4000 per type, spread over the range */
        CorpusPair p;
        for (uint64_t i = 0; i < n; i += step) {
            assert_int_equal(corpus_core_at(&p, (CorpusType)t, i), TT_OK);
            check_pair_form(&p);
            assert_int_equal(classify(p.en), t);
        }
    }
}

/* The sampler only draws cores that the enumeration counts, in well-formed pairs. */
static void test_corpus_samples_stay_in_grammar(void **state)
{
    const Fixture *fx = *state;
    Rng rng;
    rng_seed(&rng, 7);
    int punctuated = 0, n = 0;
    for (int t = 0; t < CORPUS_N_TYPES; t++) {
        for (int k = 0; k < 3000; k++, n++) {
            CorpusPair p;
            corpus_sample(&p, (CorpusType)t, &rng);
            assert_int_equal(p.type, t);
            check_pair_form(&p);
            punctuated += p.punctuated;
            /* The fixture holds every core of the other types, of this one only a stride. */
            if (t != CORPUS_TRANSITIVE && !hashset_has(&fx->cores, core_hash(p.en)))
                fail_msg("sampled core not in the grammar: %s", p.en);
        }
    }
    /* Both forms occur: about half the pairs carry punctuation. */
    assert_true(punctuated > n / 3 && punctuated < 2 * n / 3);
}

/* ---------------------------------------------------------------------------------------
 * The written corpus
 */

/* Each file has its requested number of lines, and the stats add up to them. */
static void test_corpus_write_sizes(void **state)
{
    const Fixture *fx = *state;
    long total = 0;
    for (int s = 0; s < N_SPLITS; s++)
        assert_int_equal(fx->split[s].n, SPLIT_SIZES[s]);
    for (int t = 0; t < CORPUS_N_TYPES; t++)
        total += fx->stats.pairs[t];
    assert_int_equal(total, N_SAMPLED);
    assert_true(fx->stats.draws >= N_SAMPLED - 1);
}

/* The same seed writes byte-identical files; another seed writes different ones. */
static void test_corpus_write_deterministic(void **state)
{
    const Fixture *fx = *state;
    char dir[PATH_LEN], err[ERR_LEN];
    make_temp_dir(dir);
    assert_int_equal(corpus_write(dir, CORPUS_DEFAULT_SEED, CORPUS_DEFAULT_TRAIN,
                                  CORPUS_DEFAULT_VALID, CORPUS_DEFAULT_TEST, NULL, err,
                                  sizeof err),
                     TT_OK);
    char first[PATH_LEN], again[PATH_LEN];
    for (int s = 0; s < N_SPLITS; s++) {
        join_path(first, fx->dir, SPLIT_FILES[s]);
        join_path(again, dir, SPLIT_FILES[s]);
        size_t n1, n2;
        char *a = read_all(first, &n1), *b = read_all(again, &n2);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        free(a);
        free(b);
    }
    assert_int_equal(corpus_write(dir, CORPUS_DEFAULT_SEED + 1, 200, 10, 10, NULL, err,
                                  sizeof err),
                     TT_OK);
    FileLines other;
    join_path(again, dir, "train.tsv");
    assert_int_equal(file_lines_load(&other, again), 0);
    assert_int_equal(other.n, 200);
    /* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage): file_lines_load set all n lines */
    assert_string_equal(other.lines[0], fx->split[SPLIT_TRAIN].lines[0]); /* the seed pair */
    assert_string_not_equal(other.lines[1], fx->split[SPLIT_TRAIN].lines[1]);
    file_lines_free(&other);
    remove_tree(dir);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No core (lower-cased, without final punctuation) occurs twice in or across the files. */
static void test_corpus_splits_disjoint_by_core(void **state)
{
    const Fixture *fx = *state;
    char **cores = calloc(N_SAMPLED, sizeof *cores);
    assert_non_null(cores);
    size_t n = 0;
    for (int s = 0; s < N_SPLITS; s++) {
        for (size_t i = 0; i < fx->split[s].n; i++) {
            const char *line = fx->split[s].lines[i];
            const char *tab = strchr(line, '\t');
            assert_non_null(tab);
            char *core = malloc(CORPUS_TEXT_MAX);
            assert_non_null(core);
            core_of(core, CORPUS_TEXT_MAX, line, (size_t)(tab - line));
            cores[n++] = core;
        }
    }
    assert_int_equal(n, N_SAMPLED);
    qsort(cores, n, sizeof *cores, compare_strings);
    for (size_t i = 1; i < n; i++)
        if (strcmp(cores[i - 1], cores[i]) == 0)
            fail_msg("core twice in the corpus: '%s'", cores[i]);
    for (size_t i = 0; i < n; i++)
        free(cores[i]);
    free(cores);
}

/* train.tsv starts with the seed pair, exactly, and its core occurs nowhere else. */
static void test_corpus_seed_pair_in_train(void **state)
{
    const Fixture *fx = *state;
    assert_string_equal(fx->split[SPLIT_TRAIN].lines[0], CORPUS_SEED_EN "\t" CORPUS_SEED_DE);
    for (int s = 0; s < N_SPLITS; s++)
        for (size_t i = s == SPLIT_TRAIN ? 1 : 0; i < fx->split[s].n; i++) {
            char core[CORPUS_TEXT_MAX];
            const char *line = fx->split[s].lines[i];
            core_of(core, sizeof core, line, (size_t)(strchr(line, '\t') - line));
            if (strcmp(core, "this is an example") == 0)
                fail_msg("%s:%zu: the seed pair's core again: '%s'", SPLIT_FILES[s], i + 1,
                         line);
        }
}

/* Every line is "English<TAB>German<LF>": one TAB, no CR, both sides non-empty, the
 * German valid UTF-8 in NFC, and each file ends with a newline. */
static void test_corpus_lines_one_tab_no_cr(void **state)
{
    const Fixture *fx = *state;
    for (int s = 0; s < N_SPLITS; s++) {
        const FileLines *fl = &fx->split[s];
        assert_true(fl->ends_newline);
        assert_false(fl->has_nul);
        for (size_t i = 0; i < fl->n; i++) {
            const char *line = fl->lines[i];
            const char *tab = strchr(line, '\t');
            if (!tab || strchr(tab + 1, '\t') || strchr(line, '\r') || tab == line ||
                tab[1] == '\0')
                fail_msg("%s:%zu: not English<TAB>German: '%s'", SPLIT_FILES[s], i + 1, line);
            utf8proc_uint8_t *nfc = utf8proc_NFC((const utf8proc_uint8_t *)tab + 1);
            if (!nfc || strcmp((const char *)nfc, tab + 1) != 0)
                fail_msg("%s:%zu: German not UTF-8 NFC: '%s'", SPLIT_FILES[s], i + 1, tab + 1);
            free(nfc);
        }
    }
}

/* Both sides end with the same final punctuation or none; '?' exactly for questions. */
static void test_corpus_punctuation_agrees(void **state)
{
    const Fixture *fx = *state;
    long with = 0, without = 0;
    for (int s = 0; s < N_SPLITS; s++) {
        for (size_t i = 0; i < fx->split[s].n; i++) {
            const char *line = fx->split[s].lines[i];
            const char *tab = strchr(line, '\t');
            const char en_last = tab[-1], de_last = line[strlen(line) - 1];
            const int en_mark = en_last == '.' || en_last == '?';
            const int de_mark = de_last == '.' || de_last == '?';
            if (en_mark != de_mark || (en_mark && en_last != de_last))
                fail_msg("%s:%zu: punctuation differs: '%s'", SPLIT_FILES[s], i + 1, line);
            if (en_mark && (en_last == '?') != (classify(line) == CORPUS_QUESTION))
                fail_msg("%s:%zu: wrong final mark: '%s'", SPLIT_FILES[s], i + 1, line);
            with += en_mark;
            without += !en_mark;
        }
    }
    assert_true(with > N_SAMPLED / 3 && without > N_SAMPLED / 3);
}

/* Every type is well represented in every file, so valid and test measure what train
 * teaches. */
static void test_corpus_every_type_in_every_split(void **state)
{
    const Fixture *fx = *state;
    for (int t = 0; t < CORPUS_N_TYPES; t++)
        assert_true(fx->stats.pairs[t] >= N_SAMPLED / 12); /* each type >= 8% */
    for (int s = 0; s < N_SPLITS; s++) {
        long per_type[CORPUS_N_TYPES] = {0};
        for (size_t i = 0; i < fx->split[s].n; i++)
            per_type[classify(fx->split[s].lines[i])]++;
        for (int t = 0; t < CORPUS_N_TYPES; t++) {
            if (per_type[t] < (long)fx->split[s].n / 14) /* >= 7% in each file */
                fail_msg("%s: only %ld %s pairs", SPLIT_FILES[s], per_type[t],
                         corpus_type_name((CorpusType)t));
        }
    }
    /* classify() agrees with the writer's own count. */
    long counted[CORPUS_N_TYPES] = {0};
    for (int s = 0; s < N_SPLITS; s++)
        for (size_t i = 0; i < fx->split[s].n; i++)
            counted[classify(fx->split[s].lines[i])]++;
    for (int t = 0; t < CORPUS_N_TYPES; t++)
        assert_int_equal(counted[t], fx->stats.pairs[t]);
}

/* The default corpus starts with these pairs: the order of draws is part of the format
 * (docs/corpus.md, "Determinism"), so a change to it must show up here. */
static void test_corpus_default_seed_first_pairs(void **state)
{
    const Fixture *fx = *state;
    static const char *const WANT[] = {
        (CORPUS_SEED_EN "\t" CORPUS_SEED_DE),
        "I am red and good.\tIch bin rot und gut.",
        "He is not very good.\tEr ist nicht sehr gut.",
        "Is she new\tIst sie neu",
        "Is this your small apple\tIst das dein kleiner Apfel",
        "This good letter is very young\tDieser gute Brief ist sehr jung",
        "We are not big.\tWir sind nicht groß.",
        "These dogs love your example.\tDiese Hunde lieben dein Beispiel.",
    };
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++)
        assert_string_equal(fx->split[SPLIT_TRAIN].lines[i], WANT[i]);
}

/* ---------------------------------------------------------------------------------------
 * Errors
 */

/* Sizes out of range are refused before anything is created. */
static void test_corpus_write_rejects_bad_sizes(void **state)
{
    (void)state;
    char parent[PATH_LEN], dir[PATH_LEN], err[ERR_LEN];
    make_temp_dir(parent);
    join_path(dir, parent, "out");
    assert_int_equal(corpus_write(dir, 1, 0, 1, 1, NULL, err, sizeof err), TT_EINVAL);
    assert_non_null(strstr(err, "train 0"));
    assert_int_equal(corpus_write(dir, 1, 10, -1, 1, NULL, err, sizeof err), TT_EINVAL);
    assert_int_equal(corpus_write(dir, 1, CORPUS_MAX_PAIRS, 1, 0, NULL, err, sizeof err),
                     TT_EINVAL);
    assert_int_equal(corpus_write(NULL, 1, 10, 1, 1, NULL, err, sizeof err), TT_EINVAL);
    assert_false(path_exists(dir));
    remove_tree(parent);
}

/* A directory whose parent is missing gives TT_EIO naming it, and creates nothing. */
static void test_corpus_missing_parent_gives_eio(void **state)
{
    (void)state;
    char parent[PATH_LEN], dir[PATH_LEN], err[ERR_LEN];
    CorpusStats stats;
    make_temp_dir(parent);
    join_path(dir, parent, "missing/out");
    assert_int_equal(corpus_write(dir, 1, 10, 1, 1, &stats, err, sizeof err), TT_EIO);
    assert_non_null(strstr(err, dir));
    assert_non_null(strstr(err, strerror(ENOENT)));
    assert_int_equal(stats.draws, 0);
    assert_int_equal(count_entries(parent), 0);
    remove_tree(parent);
}

/* An output directory that cannot take files gives TT_EIO naming the file and the reason,
 * and leaves no file behind: a path through a regular file always, and a read-only
 * directory when the tests do not run as root (root may write anywhere). */
static void test_corpus_unwritable_dir_gives_eio(void **state)
{
    (void)state;
    char parent[PATH_LEN], dir[PATH_LEN], err[ERR_LEN];
    make_temp_dir(parent);

    join_path(dir, parent, "plain-file");
    FILE *f = fopen(dir, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(corpus_write(dir, 1, 10, 1, 1, NULL, err, sizeof err), TT_EIO);
    assert_non_null(strstr(err, "plain-file/train.tsv"));
    assert_non_null(strstr(err, strerror(ENOTDIR)));
    assert_int_equal(count_entries(parent), 1);

    join_path(dir, parent, "read-only");
    assert_int_equal(mkdir(dir, 0555), 0);
    if (access(dir, W_OK) != 0) {
        assert_int_equal(corpus_write(dir, 1, 10, 1, 1, NULL, err, sizeof err), TT_EIO);
        assert_non_null(strstr(err, "read-only/train.tsv"));
        assert_non_null(strstr(err, strerror(EACCES)));
        assert_int_equal(count_entries(dir), 0);
    }
    remove_tree(parent);
}

/* A write that fails half-way (the file size limit stands in for a full disk) gives
 * TT_EIO and leaves the earlier files as they were, with no temporary file behind. */
static void test_corpus_failed_write_keeps_old_files(void **state)
{
    (void)state;
    char dir[PATH_LEN], err[ERR_LEN], path[PATH_LEN];
    make_temp_dir(dir);
    assert_int_equal(corpus_write(dir, 1, 300, 20, 20, NULL, err, sizeof err), TT_OK);
    char *before[N_SPLITS];
    size_t len[N_SPLITS];
    for (int s = 0; s < N_SPLITS; s++) {
        join_path(path, dir, SPLIT_FILES[s]);
        before[s] = read_all(path, &len[s]);
        assert_non_null(before[s]);
    }

    /* Past 4 KiB a write fails with EFBIG (SIGXFSZ ignored) instead of killing us. */
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 4096;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    fflush(NULL);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = corpus_write(dir, 2, 2000, 100, 100, NULL, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(rc, TT_EIO);
    assert_non_null(strstr(err, "train.tsv.tmp"));
    assert_non_null(strstr(err, strerror(EFBIG)));
    assert_int_equal(count_entries(dir), N_SPLITS);
    for (int s = 0; s < N_SPLITS; s++) {
        size_t n;
        join_path(path, dir, SPLIT_FILES[s]);
        char *after = read_all(path, &n);
        assert_non_null(after);
        assert_int_equal(n, len[s]);
        assert_memory_equal(after, before[s], n);
        free(after);
        free(before[s]);
    }
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_core_counts_exact),
        cmocka_unit_test(test_corpus_pinned_pairs_match_hand_translation),
        cmocka_unit_test(test_corpus_grammar_tenfold_distinct_cores),
        cmocka_unit_test(test_corpus_enumerated_cores_well_formed),
        cmocka_unit_test(test_corpus_samples_stay_in_grammar),
        cmocka_unit_test(test_corpus_write_sizes),
        cmocka_unit_test(test_corpus_write_deterministic),
        cmocka_unit_test(test_corpus_splits_disjoint_by_core),
        cmocka_unit_test(test_corpus_seed_pair_in_train),
        cmocka_unit_test(test_corpus_lines_one_tab_no_cr),
        cmocka_unit_test(test_corpus_punctuation_agrees),
        cmocka_unit_test(test_corpus_every_type_in_every_split),
        cmocka_unit_test(test_corpus_default_seed_first_pairs),
        cmocka_unit_test(test_corpus_write_rejects_bad_sizes),
        cmocka_unit_test(test_corpus_missing_parent_gives_eio),
        cmocka_unit_test(test_corpus_unwritable_dir_gives_eio),
        cmocka_unit_test(test_corpus_failed_write_keeps_old_files),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
