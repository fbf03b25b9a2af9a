/*
 * vocab.c — counting, ordering and looking up tokens.
 *
 * Both the counter and the vocabulary use open addressing with linear probing over a
 * power-of-two table kept under half full; lookups are one hash and a few string
 * compares. FNV-1a is the hash: simple, and good enough for short words.
 */
#include "text/vocab.h"

#include "base/fnv.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/status.h"
#include "text/tokenizer.h"
#include "text/tsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const VOCAB_SPECIAL[VOCAB_N_SPECIAL] = {"<pad>", "<unk>", "<s>", "</s>"};

static uint64_t hash_str(const char *s)
{
    return fnv1a64_add(FNV1A64_OFFSET, s, strlen(s));
}

/* Finds the slot of key in slots (entry + 1 values naming strings in names), or the
 * empty slot where it would go. */
static size_t probe(const int *slots, size_t n_slots, char *const *names, const char *key)
{
    size_t mask = n_slots - 1, i = (size_t)hash_str(key) & mask;
    while (slots[i] != 0 && strcmp(names[slots[i] - 1], key) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Rebuilds a slot table of n_slots for n names. */
static int reindex(int **slots, size_t *n_slots, size_t want, char *const *names, int n)
{
    int *s = calloc(want, sizeof(int));
    if (!s)
        return TT_ENOMEM;
    for (int e = 0; e < n; e++)
        s[probe(s, want, names, names[e])] = e + 1;
    free(*slots);
    *slots = s;
    *n_slots = want;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Counting
 */

void vocab_counter_init(VocabCounter *c)
{
    memset(c, 0, sizeof *c);
}

void vocab_counter_free(VocabCounter *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        free(c->tokens[i]);
    free(c->tokens);
    free(c->counts);
    free(c->slots);
    memset(c, 0, sizeof *c);
}

int vocab_counter_add(VocabCounter *c, const char *token)
{
    if (!c || !token)
        return TT_EINVAL;
    if (c->n_slots == 0 || (size_t)(c->n + 1) * 2 > c->n_slots) {
        int rc = reindex(&c->slots, &c->n_slots, c->n_slots ? c->n_slots * 2 : 64, c->tokens,
                         c->n);
        if (rc != TT_OK)
            return rc;
    }
    size_t i = probe(c->slots, c->n_slots, c->tokens, token);
    if (c->slots[i] != 0) {
        c->counts[c->slots[i] - 1]++;
        return TT_OK;
    }
    if (c->n >= VOCAB_MAX_SIZE)
        return TT_EINPUT; /* the text has more distinct tokens than a vocabulary holds */
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 64;
        char **t = realloc(c->tokens, sizeof(char *) * (size_t)cap);
        if (!t)
            return TT_ENOMEM;
        c->tokens = t;
        int64_t *k = realloc(c->counts, sizeof(int64_t) * (size_t)cap);
        if (!k)
            return TT_ENOMEM;
        c->counts = k;
        c->cap = cap;
    }
    char *copy = mem_dup_str(token);
    if (!copy)
        return TT_ENOMEM;
    c->tokens[c->n] = copy;
    c->counts[c->n] = 1;
    c->n++;
    c->slots[i] = c->n;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The vocabulary
 */

void vocab_free(Vocab *v)
{
    if (!v)
        return;
    if (v->tokens)
        for (int i = 0; i < v->size; i++)
            free(v->tokens[i]);
    free(v->tokens);
    free(v->counts);
    free(v->slots);
    memset(v, 0, sizeof *v);
}

static int vocab_alloc(Vocab *v, int size)
{
    memset(v, 0, sizeof *v);
    v->tokens = calloc((size_t)size, sizeof(char *));
    v->counts = calloc((size_t)size, sizeof(int64_t));
    if (!v->tokens || !v->counts) {
        vocab_free(v);
        return TT_ENOMEM;
    }
    v->size = size; /* entries are NULL until filled; vocab_free copes */
    return TT_OK;
}

static int vocab_index(Vocab *v)
{
    size_t want = 64;
    while (want < (size_t)v->size * 2 + 1)
        want *= 2;
    return reindex(&v->slots, &v->n_slots, want, v->tokens, v->size);
}

/* Order for vocab_build: descending count, then byte order. */
typedef struct {
    const char *token;
    int64_t count;
} Entry;

static int entry_cmp(const void *pa, const void *pb)
{
    const Entry *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->token, b->token);
}

static int is_special(const char *t)
{
    for (int i = 0; i < VOCAB_N_SPECIAL; i++)
        if (strcmp(t, VOCAB_SPECIAL[i]) == 0)
            return 1;
    return 0;
}

int vocab_build(Vocab *v, const VocabCounter *c, int64_t min_count)
{
    if (!v)
        return TT_EINVAL;
    memset(v, 0, sizeof *v);
    if (!c || min_count < 1)
        return TT_EINVAL;
    Entry *e = malloc(sizeof(Entry) * (size_t)(c->n ? c->n : 1));
    if (!e)
        return TT_ENOMEM;
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (c->counts[i] >= min_count && !is_special(c->tokens[i]))
            e[n++] = (Entry){c->tokens[i], c->counts[i]};
    qsort(e, (size_t)n, sizeof(Entry), entry_cmp);

    int rc = vocab_alloc(v, VOCAB_N_SPECIAL + n);
    for (int i = 0; rc == TT_OK && i < v->size; i++) {
        const char *t = i < VOCAB_N_SPECIAL ? VOCAB_SPECIAL[i] : e[i - VOCAB_N_SPECIAL].token;
        v->counts[i] = i < VOCAB_N_SPECIAL ? 0 : e[i - VOCAB_N_SPECIAL].count;
        if (!(v->tokens[i] = mem_dup_str(t)))
            rc = TT_ENOMEM;
    }
    free(e);
    if (rc == TT_OK)
        rc = vocab_index(v);
    if (rc != TT_OK)
        vocab_free(v);
    return rc;
}

/* token for a message: printable ASCII as is, every other byte as \xNN, at most 40
 * bytes of it, so that a refused token can neither break the message's line nor its
 * encoding. */
static void token_for_message(char *out, size_t outlen, const char *token)
{
    size_t w = 0;
    for (size_t i = 0; i < 40 && token[i] && w + 5 < outlen; i++) {
        const unsigned char c = (unsigned char)token[i];
        if (c >= 0x20 && c < 0x7F && c != '\\')
            out[w++] = (char)c;
        else
            w += (size_t)snprintf(out + w, outlen - w, "\\x%02X", c);
    }
    out[w] = '\0';
}

int vocab_from_tokens(Vocab *v, const char *const *tokens, const int64_t *counts, int size,
                      char *err, size_t errlen)
{
    char shown[200];
    if (!v)
        return TT_EINVAL;
    memset(v, 0, sizeof *v);
    if (!tokens || size < VOCAB_N_SPECIAL || size > VOCAB_MAX_SIZE) {
        snprintf(err, errlen, "a vocabulary needs %d to %d entries, not %d", VOCAB_N_SPECIAL,
                 VOCAB_MAX_SIZE, size);
        return TT_EINPUT;
    }
    for (int i = 0; i < VOCAB_N_SPECIAL; i++)
        if (!tokens[i] || strcmp(tokens[i], VOCAB_SPECIAL[i]) != 0) {
            if (tokens[i])
                token_for_message(shown, sizeof shown, tokens[i]);
            snprintf(err, errlen, "id %d must be %s, found '%s'", i, VOCAB_SPECIAL[i],
                     tokens[i] ? shown : "(null)");
            return TT_EINPUT;
        }
    int rc = vocab_alloc(v, size);
    for (int i = 0; rc == TT_OK && i < size; i++) {
        char why[120];
        if (!tokens[i] || !tokens[i][0]) {
            snprintf(err, errlen, "id %d has an empty token", i);
            rc = TT_EINPUT;
        } else if ((rc = tokenizer_check_token(tokens[i], strlen(tokens[i]), why, sizeof why)) !=
                   TT_OK) {
            token_for_message(shown, sizeof shown, tokens[i]);
            snprintf(err, errlen, "id %d, token '%s', %s", i, shown, why);
        } else if (!(v->tokens[i] = mem_dup_str(tokens[i]))) {
            rc = TT_ENOMEM;
        } else {
            v->counts[i] = counts ? counts[i] : 0;
        }
    }
    if (rc == TT_OK)
        rc = vocab_index(v);
    /* A repeated token would make two ids for one string. */
    for (int i = 0; rc == TT_OK && i < size; i++)
        if (vocab_lookup(v, v->tokens[i]) != i) {
            token_for_message(shown, sizeof shown, v->tokens[i]);
            snprintf(err, errlen, "token '%s' appears twice (ids %d and %d)", shown,
                     vocab_lookup(v, v->tokens[i]), i);
            rc = TT_EINPUT;
        }
    if (rc != TT_OK)
        vocab_free(v);
    return rc;
}

int vocab_lookup(const Vocab *v, const char *token)
{
    if (!v || !v->slots || !token)
        return VOCAB_UNK;
    size_t i = probe(v->slots, v->n_slots, v->tokens, token);
    return v->slots[i] ? v->slots[i] - 1 : VOCAB_UNK;
}

int vocab_write_tsv(const Vocab *v, const char *path, char *err, size_t errlen)
{
    OutFile o;
    int rc = outfile_open(&o, path, err, errlen);
    if (rc != TT_OK)
        return rc;
    fputs("id\ttoken\tcount\n", o.f);
    for (int i = 0; i < v->size; i++)
        fprintf(o.f, "%d\t%s\t%lld\n", i, v->tokens[i], (long long)v->counts[i]);
    return outfile_commit(&o, err, errlen);
}

/* ---------------------------------------------------------------------------------------
 * Counting a corpus
 */

int vocab_count_corpus(const char *path, int skip_bad, int reverse, VocabCounter *src,
                       VocabCounter *tgt, CorpusCount *out, FILE *report,
                       const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->checksum = FNV1A64_OFFSET;
    TsvReader r;
    int rc = tsv_open(&r, path, err, errlen);
    if (rc != TT_OK)
        return rc;
    r.reverse = reverse;
    r.stop = stop;
    TsvPair p;
    char line_err[512];
    while ((rc = tsv_next(&r, &p, line_err, sizeof line_err)) != TSV_END) {
        if (rc == TT_EINPUT) {
            if (!skip_bad) {
                snprintf(err, errlen, "%s", line_err);
                break;
            }
            if (report)
                fprintf(report, "%s (skipped)\n", line_err);
            out->bad_lines++;
            continue;
        }
        if (rc != TT_OK) {
            snprintf(err, errlen, "%s", line_err);
            break;
        }
        out->checksum = tsv_pair_fnv1a64(out->checksum, &p);
        const struct { const char *text; size_t len; TokLang lang; VocabCounter *c; } side[2] = {
            {p.src, p.src_len, reverse ? TOK_TGT : TOK_SRC, src},
            {p.tgt, p.tgt_len, reverse ? TOK_SRC : TOK_TGT, tgt}};
        TokError te;
        int bad_side = -1, full_side = -1;
        for (int k = 0; k < 2 && rc == TT_OK; k++) {
            TokenList list;
            rc = tokenize(&list, side[k].text, side[k].len, side[k].lang, &te);
            if (rc == TT_EINPUT)
                bad_side = k;
            for (int i = 0; rc == TT_OK && i < list.n; i++)
                rc = vocab_counter_add(side[k].c, list.tok[i]);
            if (rc == TT_EINPUT && bad_side < 0)
                full_side = k;
            tokenlist_free(&list);
        }
        if (rc != TT_OK) {
            if (bad_side >= 0)
                snprintf(err, errlen, "%s:%ld: the %s side: %s", r.name, p.line_no,
                         bad_side ? "target" : "source", te.message);
            else if (full_side >= 0)
                snprintf(err, errlen, "%s:%ld: the %s side reaches %d distinct tokens, the "
                         "most a vocabulary may hold", r.name, p.line_no,
                         full_side ? "target" : "source", VOCAB_MAX_SIZE);
            else
                snprintf(err, errlen, "%s:%ld: %s", r.name, p.line_no, status_message(rc));
            break;
        }
        out->pairs++;
    }
    tsv_close(&r);
    if (rc == TSV_END)
        rc = TT_OK;
    if (rc == TT_OK && out->pairs == 0) {
        snprintf(err, errlen, "%s holds no sentence pairs", path);
        rc = TT_EINPUT;
    }
    return rc;
}
