/*
 * data.c — a training run's data (data.h): corpora read into token ids, names taught to
 * pass through, batches grouped by length.
 */
#include "train/data.h"

#include "base/fnv.h"
#include "base/mem.h"
#include "base/rng.h"
#include "base/status.h"
#include "text/tokenizer.h"
#include "text/tsv.h"
#include "text/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Data
 */

void train_pairs_free(Pairs *p)
{
    if (p->ref)
        for (int i = 0; i < p->n; i++)
            free(p->ref[i]);
    free(p->ref);
    free(p->tgt_len);
    free(p->src_len);
    free(p->off);
    free(p->ids);
    memset(p, 0, sizeof *p);
}

/* Grows the per-pair arrays to cap entries. */
static int pairs_reserve(Pairs *p, size_t cap, int keep_text)
{
    size_t *off = realloc(p->off, sizeof(size_t) * cap);
    if (off)
        p->off = off;
    int *sl = realloc(p->src_len, sizeof(int) * cap);
    if (sl)
        p->src_len = sl;
    int *tl = realloc(p->tgt_len, sizeof(int) * cap);
    if (tl)
        p->tgt_len = tl;
    char **ref = keep_text ? realloc(p->ref, sizeof(char *) * cap) : p->ref;
    if (ref)
        p->ref = ref;
    return off && sl && tl && (!keep_text || ref) ? TT_OK : TT_ENOMEM;
}

/* Hands the one-line message note to the caller's progress callback (if any), in a
 * report that carries nothing else: the library prints nothing itself. */
void train_note(TrainProgressFn progress, void *ctx, const char *note)
{
    if (!progress)
        return;
    const TrainProgress p = {.note = note};
    progress(ctx, &p);
}

/* Reads a corpus into ids with the model's vocabularies. With skip_bad, a malformed line
 * is left out and named in a note to progress. */
int train_pairs_load(Pairs *p, const char *path, const Model *m, int keep_text,
                     int skip_bad, volatile sig_atomic_t *stop, TrainProgressFn progress,
                     void *ctx, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->checksum = FNV1A64_OFFSET;
    TsvReader r;
    int rc = tsv_open(&r, path, err, errlen);
    if (rc != TT_OK)
        return rc;
    r.reverse = config_is_reverse(&m->config);
    r.stop = stop; /* Ctrl-C while a long corpus is read ends the read at once */
    const TokLang src_rules = config_lang_rules(m->config.src_lang);
    const TokLang tgt_rules = config_lang_rules(m->config.tgt_lang);
    size_t ids_cap = 0, n_ids = 0, pair_cap = 0;
    TsvPair tp;
    char line_err[512], note[768];
    while ((rc = tsv_next(&r, &tp, line_err, sizeof line_err)) != TSV_END) {
        if (rc == TT_EINPUT && skip_bad) {
            snprintf(note, sizeof note, "%s (skipped)", line_err);
            train_note(progress, ctx, note);
            continue;
        }
        if (rc != TT_OK) {
            snprintf(err, errlen, "%s", line_err);
            break;
        }
        p->checksum = tsv_pair_fnv1a64(p->checksum, &tp);
        TokenList s, t;
        TokError te;
        const char *bad_side = "source";
        rc = tokenize(&s, tp.src, tp.src_len, src_rules, &te);
        if (rc == TT_OK) {
            bad_side = "target";
            if ((rc = tokenize(&t, tp.tgt, tp.tgt_len, tgt_rules, &te)) != TT_OK)
                tokenlist_free(&s);
        }
        if (rc == TT_EINPUT && skip_bad) {
            snprintf(note, sizeof note, "%s:%ld: the %s side: %s (skipped)", r.name,
                     tp.line_no, bad_side, te.message);
            train_note(progress, ctx, note);
            continue; /* the loop's next read sets rc again */
        }
        if (rc == TT_EINPUT)
            snprintf(err, errlen, "%s:%ld: the %s side: %s", r.name, tp.line_no, bad_side,
                     te.message);
        else if (rc != TT_OK)
            snprintf(err, errlen, "%s:%ld: %s", r.name, tp.line_no, status_message(rc));
        if (rc != TT_OK)
            break;
        if (s.n + 1 > m->config.max_len || t.n + 1 > m->config.max_len) {
            p->skipped_long++;
        } else {
            int *ids = mem_grow(p->ids, &ids_cap, n_ids + (size_t)(s.n + t.n), sizeof *ids);
            if (ids)
                p->ids = ids;
            else
                rc = TT_ENOMEM;
            if (rc == TT_OK && (size_t)p->n == pair_cap)
                rc = pairs_reserve(p, pair_cap = pair_cap ? pair_cap * 2 : 1024, keep_text);
            if (rc == TT_OK) {
                p->off[p->n] = n_ids;
                p->src_len[p->n] = s.n;
                p->tgt_len[p->n] = t.n;
                for (int i = 0; i < s.n; i++)
                    p->ids[n_ids++] = vocab_lookup(&m->src_vocab, s.tok[i]);
                for (int i = 0; i < t.n; i++)
                    p->ids[n_ids++] = vocab_lookup(&m->tgt_vocab, t.tok[i]);
                if (keep_text) {
                    p->ref[p->n] = malloc(tp.tgt_len + 1);
                    if (!p->ref[p->n])
                        rc = TT_ENOMEM;
                    else
                        memcpy(p->ref[p->n], tp.tgt, tp.tgt_len + 1);
                }
                p->n++;
            }
        }
        tokenlist_free(&t);
        tokenlist_free(&s);
        if (rc != TT_OK) {
            snprintf(err, errlen, "%s: %s", path, status_message(rc));
            break;
        }
    }
    tsv_close(&r);
    if (rc == TSV_END)
        rc = TT_OK;
    if (rc != TT_OK)
        train_pairs_free(p);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Names: teaching the model to pass an unknown word through
 *
 * The lexicon's names are in the vocabularies, but a name the corpus
 * never had (Zoe, Greta) is <unk> in the source, and a model that never saw <unk> would
 * translate it as some known word. A name is written the same in both languages and
 * passes through every sentence unchanged, so a source token is taken for a name when,
 * capitalised, it is also a target token and stands in the target of every pair whose
 * source has it ("anna" / "Anna"; also "hotel" / "Hotel", which passes through the same
 * way). A word that is only spelt like another word of the other language is not:
 * "see" / "See" (the lake) and "hat" / "Hat" (has) part company in most pairs. Copies
 * of a fraction of the pairs with names are added in which every name is <unk> on both
 * sides. The model then learns to put <unk> where an unknown name stands, in any
 * position, and the translator shows the source word it attended to there: names pass
 * through.
 */

/* 1 when token id t is among ids[0..n). */
static int ids_have(const int *ids, int n, int t)
{
    for (int k = 0; k < n; k++)
        if (ids[k] == t)
            return 1;
    return 0;
}

/* For each source id, the target id of the same word capitalised ("anna" → "Anna"), or
 * -1; for a German→English model, whose English side is folded, the other way round
 * ("Anna" → "anna"). A source id keeps its target id only when that target token is in
 * every pair of p whose source has the id. Returns TT_OK or TT_ENOMEM; *out is owned by
 * the caller. */
static int name_map(int **out, const Model *m, const Pairs *p)
{
    const Vocab *sv = &m->src_vocab, *tv = &m->tgt_vocab;
    const int reverse = config_is_reverse(&m->config);
    const char from_lo = reverse ? 'A' : 'a', from_hi = reverse ? 'Z' : 'z';
    int *map = malloc(sizeof *map * (size_t)sv->size);
    if (!map)
        return TT_ENOMEM;
    for (int i = 0; i < sv->size; i++) {
        map[i] = -1;
        const char *w = sv->tokens[i];
        char cap[64];
        const size_t n = strlen(w);
        if (i < VOCAB_N_SPECIAL || n == 0 || n >= sizeof cap || w[0] < from_lo ||
            w[0] > from_hi)
            continue;
        memcpy(cap, w, n + 1);
        cap[0] = (char)(cap[0] - from_lo + (reverse ? 'a' : 'A'));
        const int t = vocab_lookup(tv, cap);
        if (t >= VOCAB_N_SPECIAL)
            map[i] = t;
    }
    for (int i = 0; i < p->n; i++) {
        const int *src = p->ids + p->off[i], *tgt = src + p->src_len[i];
        for (int j = 0; j < p->src_len[i]; j++)
            if (map[src[j]] >= 0 && !ids_have(tgt, p->tgt_len[i], map[src[j]]))
                map[src[j]] = -1;
    }
    *out = map;
    return TT_OK;
}

int train_pairs_augment_names(Pairs *p, const Model *m, float fraction, uint64_t seed)
{
    if (fraction <= 0.0f)
        return TT_OK;
    int *map = NULL;
    int rc = name_map(&map, m, p);
    if (rc != TT_OK)
        return rc;
    const int n0 = p->n;
    size_t n_ids = p->n ? p->off[p->n - 1] + (size_t)(p->src_len[p->n - 1] + p->tgt_len[p->n - 1]) : 0;
    size_t ids_cap = n_ids, pair_cap = (size_t)p->n;
    Rng rng;
    rng_seed(&rng, (uint32_t)(seed * 2246822519u) ^ 0x6e616d65u); /* "name" */
    for (int i = 0; i < n0 && rc == TT_OK; i++) {
        const int ns = p->src_len[i], nt = p->tgt_len[i];
        int names = 0;
        for (int j = 0; j < ns; j++)
            names += map[p->ids[p->off[i] + (size_t)j]] >= 0;
        /* One draw per candidate pair, so the choice depends on the seed only. */
        if (names == 0 || rng_uniform(&rng, 0.0f, 1.0f) >= fraction)
            continue;
        int *ids = mem_grow(p->ids, &ids_cap, n_ids + (size_t)(ns + nt), sizeof *ids);
        if (ids)
            p->ids = ids;
        else
            rc = TT_ENOMEM;
        if (rc == TT_OK && (size_t)p->n == pair_cap)
            rc = pairs_reserve(p, pair_cap = pair_cap * 2 + 16, 0);
        if (rc != TT_OK)
            break;
        int *copy = p->ids + n_ids;
        memcpy(copy, p->ids + p->off[i], sizeof(int) * (size_t)(ns + nt));
        for (int j = 0; j < ns; j++) {
            const int t = map[copy[j]];
            if (t < 0)
                continue;
            copy[j] = VOCAB_UNK;
            for (int k = 0; k < nt; k++)
                if (copy[ns + k] == t)
                    copy[ns + k] = VOCAB_UNK;
        }
        p->off[p->n] = n_ids;
        p->src_len[p->n] = ns;
        p->tgt_len[p->n] = nt;
        p->n++;
        n_ids += (size_t)(ns + nt);
    }
    free(map);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Batches grouped by length
 */

/* A pair's sort key: by target length, then source length, then index (a total order,
 * so qsort's result does not depend on its algorithm). */
typedef struct {
    int tgt_len, src_len, index;
} LengthKey;

static int by_length(const void *a, const void *b)
{
    const LengthKey *x = a, *y = b;
    if (x->tgt_len != y->tgt_len)
        return x->tgt_len - y->tgt_len;
    if (x->src_len != y->src_len)
        return x->src_len - y->src_len;
    return x->index - y->index;
}

void train_batches_free(Batches *b)
{
    free(b->perm);
    free(b->order);
    free(b->start);
    memset(b, 0, sizeof *b);
}

int train_batches_make(Batches *b, const Pairs *p, int batch)
{
    memset(b, 0, sizeof *b);
    b->order = malloc(sizeof(int) * (size_t)p->n);
    b->n_batches = (p->n + batch - 1) / batch;
    b->start = malloc(sizeof(int) * (size_t)(b->n_batches + 1));
    b->perm = malloc(sizeof(int) * (size_t)b->n_batches);
    if (!b->order || !b->start || !b->perm) {
        train_batches_free(b);
        return TT_ENOMEM;
    }
    /* qsort has no context argument in C11: the keys carry what the order needs. */
    LengthKey *keys = malloc(sizeof *keys * (size_t)(p->n ? p->n : 1));
    if (!keys) {
        train_batches_free(b);
        return TT_ENOMEM;
    }
    for (int i = 0; i < p->n; i++)
        keys[i] = (LengthKey){p->tgt_len[i], p->src_len[i], i};
    qsort(keys, (size_t)p->n, sizeof *keys, by_length);
    for (int i = 0; i < p->n; i++)
        b->order[i] = keys[i].index;
    free(keys);
    for (int k = 0; k <= b->n_batches; k++)
        b->start[k] = k * batch < p->n ? k * batch : p->n;
    return TT_OK;
}

/* The batch order of an epoch: a Fisher-Yates shuffle seeded by (seed, epoch). */
void train_batches_shuffle(Batches *b, uint64_t seed, int epoch)
{
    Rng rng;
    rng_seed(&rng, (uint32_t)(seed * 2654435761u) ^ (uint32_t)(epoch * 40503u + 1u));
    for (int k = 0; k < b->n_batches; k++)
        b->perm[k] = k;
    for (int k = b->n_batches - 1; k > 0; k--) {
        int j = (int)(rng_next_u32(&rng) % (uint32_t)(k + 1));
        int t = b->perm[k];
        b->perm[k] = b->perm[j];
        b->perm[j] = t;
    }
}

/* The pairs p[idx[0..n-1]] (idx NULL: p[first..first+n-1]) as a batch, with each pair's
 * dropout seed. */
void train_pairs_fill(TrainPair *out, const Pairs *p, const int *idx, int first, int n,
                      uint64_t seed, long step)
{
    for (int i = 0; i < n; i++) {
        const int k = idx ? idx[i] : first + i;
        const int *ids = p->ids + p->off[k];
        /* Each sentence's dropout masks depend on (seed, step, pair) only: the same
         * whatever the batch's other sentences or the thread count, and after a resume. */
        out[i] = (TrainPair){ids, p->src_len[k], ids + p->src_len[k], p->tgt_len[k],
                             (seed * 0x9E3779B97F4A7C15u) ^ ((uint64_t)(step + 1) << 20) ^
                                 (uint64_t)k};
    }
}
