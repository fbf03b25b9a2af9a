/*
 * train.c — the training run: data, batches, schedule, validation, checkpoints and resumption
 * around backprop.c's forward and backward passes and optim.c's AdamW step.
 *
 * Threads: a batch is computed as TRAIN_PARTS parts side by side, each a (B·T)-row batch
 * (net.h) with its own passes and gradient block on a thread of its own; further threads
 * share each part's layers in tasks fixed by its shape (pool.h). Every sum is taken in an
 * order that the threads do not change, so a run gives the same bits for any thread
 * count.
 *
 * Settings: RUN_SETTINGS, expanded from train_settings.h's table, gives the settings that
 * define a run their defaults, the command line's parsing (train_setting_parse), the new
 * file's meta and a resume's rule (train.h).
 */
#include "train/train.h"

#include "base/fnv.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/rng.h"
#include "base/status.h"
#include "model/model.h"
#include "model/store.h"
#include "text/tokenizer.h"
#include "text/tsv.h"
#include "text/vocab.h"
#include "train/backprop.h"
#include "train/optim.h"
#include "translate/decode.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------
 * Data
 */

typedef struct {
    int n;              /* pairs */
    int *ids;           /* all token ids, pair by pair: source then target */
    size_t *off;        /* (n) where pair i starts in ids */
    int *src_len;       /* (n) */
    int *tgt_len;       /* (n) */
    char **ref;         /* (n) the target text as written, for exact match; NULL if unused */
    long skipped_long;  /* pairs longer than max_len, left out */
    uint64_t checksum;  /* tsv_pair_fnv1a64 over the pairs read: the corpus's checksum as
                           vocab_count_corpus computes it */
} Pairs;

static void pairs_free(Pairs *p)
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
static void report_note(TrainProgressFn progress, void *ctx, const char *note)
{
    if (!progress)
        return;
    const TrainProgress p = {.note = note};
    progress(ctx, &p);
}

/* Reads a corpus into ids with the model's vocabularies. With skip_bad, a malformed line
 * is left out and named in a note to progress. */
static int pairs_load(Pairs *p, const char *path, const Model *m, int keep_text, int skip_bad,
                      volatile sig_atomic_t *stop, TrainProgressFn progress, void *ctx,
                      char *err, size_t errlen)
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
            report_note(progress, ctx, note);
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
            report_note(progress, ctx, note);
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
        pairs_free(p);
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

static int pairs_augment_names(Pairs *p, const Model *m, float fraction, uint64_t seed)
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

typedef struct {
    int n_batches;
    int *start;   /* (n_batches + 1) into order */
    int *order;   /* (pairs) pair indices sorted by length */
    int *perm;    /* (n_batches) this epoch's batch order */
} Batches;

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

static void batches_free(Batches *b)
{
    free(b->perm);
    free(b->order);
    free(b->start);
    memset(b, 0, sizeof *b);
}

static int batches_make(Batches *b, const Pairs *p, int batch)
{
    memset(b, 0, sizeof *b);
    b->order = malloc(sizeof(int) * (size_t)p->n);
    b->n_batches = (p->n + batch - 1) / batch;
    b->start = malloc(sizeof(int) * (size_t)(b->n_batches + 1));
    b->perm = malloc(sizeof(int) * (size_t)b->n_batches);
    if (!b->order || !b->start || !b->perm) {
        batches_free(b);
        return TT_ENOMEM;
    }
    /* qsort has no context argument in C11: the keys carry what the order needs. */
    LengthKey *keys = malloc(sizeof *keys * (size_t)(p->n ? p->n : 1));
    if (!keys) {
        batches_free(b);
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
static void batches_shuffle(Batches *b, uint64_t seed, int epoch)
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

/* ---------------------------------------------------------------------------------------
 * The run
 */

/* A batch is computed as TRAIN_PARTS parts side by side, each a batch of its own on one
 * thread (or its own share of threads), with its own activations and gradient block; the
 * blocks are added in part order afterwards. A step then waits for the other thread once
 * (at the end of the parts), not at the end of each of the layers' 80 loops; with the
 * parts fixed in number, the sums do not depend on the thread count. */
#define TRAIN_PARTS 2
_Static_assert(TRAIN_PARTS >= 1 && TRAIN_PARTS <= 2, "grads_scale joins at most two blocks");

typedef struct Run Run;

struct Run {
    TrainOptions opt;  /* the options in effect: the caller's, with a resumed run's
                          settings from its file */
    const TrainOptions *o; /* &opt */
    char corpus_path[4096], valid_path[4096]; /* a resume's recorded corpora, when the
                                                 caller gave none */
    Model m;
    Pairs train, valid;
    Batches batches;
    Pool *pool;        /* up to TRAIN_PARTS threads: one per part, and the optimiser's loops */
    Pool *part_pool[TRAIN_PARTS]; /* the other threads, shared among the parts' layers */
    Backprop tr[TRAIN_PARTS]; /* each part's passes, sized for the longest pair of either
                                * corpus */
    TrainPair *pairs;  /* (batch) the current batch's pairs */
    float *grads[TRAIN_PARTS]; /* (n_params) each part's gradient; [0] the batch's after
                                 * grads_scale */
    double *partial;   /* (optim_chunks(n_params)) grads_scale's scratch */
    float *m1, *m2;    /* AdamW moments */
    TrainLogRow *log;  /* rows since the last checkpoint */
    int n_log, log_cap;
    ValidLogRow vlog;
    int have_vlog;
    int batch;         /* sentences per batch: o->batch */
    AdamConfig adam;   /* o's betas, epsilon and weight decay */
    long step;
    int epoch;         /* epochs completed */
    int batch_pos;     /* batches done in the current epoch */
    double seconds0;   /* training seconds before this process */
    long corpus_pairs;        /* a new run: the pairs read from the training corpus */
    int record_resume; /* a resumed run not yet recorded in meta (its first checkpoint) */
    struct timespec t0;
    Store *store;
};

/* ---------------------------------------------------------------------------------------
 * The settings that define a run (train.h), each a TrainOptions field and a meta key
 */

typedef enum { SET_INT, SET_FLOAT, SET_U64 } SettingType;
typedef enum { RULE_KEEP, RULE_MAY_CHANGE, RULE_REQUIRED } ResumeRule; /* train_settings.h */

typedef struct {
    const char *key;    /* meta key */
    const char *option; /* the command-line option */
    const char *label;  /* info's label */
    const char *range;  /* a float's range in words if "from LO to HI" would mislead */
    size_t offset;      /* of the field in TrainOptions */
    double def;         /* the default */
    double lo, hi;      /* the closed range of a value, as the field's type (SET_U64: any) */
    double unrecorded;  /* what a file from before the key was recorded ran with; NAN:
                           the option's value, given or default */
    SettingType type;   /* the field's: int, float or uint64_t */
    ResumeRule rule;    /* what a resume does with it */
} RunSetting;

#define RUN_SETTING_ROW(NAME, field, TYPE, def_, lo_, hi_, range_, option_, key_, label_,    \
                        rule_, unrecorded_)                                                  \
    [TRAIN_##NAME] = {.key = (key_), .option = (option_), .label = (label_),                 \
                      .range = (range_), .offset = offsetof(TrainOptions, field),            \
                      .def = (def_), .lo = (lo_), .hi = (hi_), .unrecorded = (unrecorded_),  \
                      .type = SET_##TYPE, .rule = RULE_##rule_},

static const RunSetting RUN_SETTINGS[TRAIN_N_SETTINGS] = {TRAIN_SETTINGS(RUN_SETTING_ROW)};

/* The training run's record in meta, as info shows it after model.c's rows. Each
 * setting as its type reads: integers as written, floats as numbers. */
#define PROV_FORMAT_INT PROV_TEXT
#define PROV_FORMAT_U64 PROV_TEXT
#define PROV_FORMAT_FLOAT PROV_NUMBER
#define TRAINING MODEL_PROV_NOT_CREATED
#define PROV_SETTING_ROW(NAME, field, TYPE, def, lo, hi, range, option, key, label, rule,      \
                         unrecorded)                                                           \
    {(key), (label), PROV_FORMAT_##TYPE, TRAINING},

static const ProvKey PROVENANCE[] = {
    {"train_engine", "trained by", PROV_TEXT, TRAINING}, /* written by other trainers */
    {"train_world_size", "world size", PROV_TEXT, TRAINING},
    {"train_command", "training command", PROV_TEXT, TRAINING},
    {"train_corpus", "training corpus", PROV_TEXT, TRAINING},
    {"train_corpus_fnv1a64", "  fnv1a64", PROV_HEX64, TRAINING},
    {"train_valid", "validation corpus", PROV_TEXT, TRAINING},
    {"train_lexicon", "lexicon", PROV_TEXT, TRAINING},
    {MODEL_LEXICON_KEY, "  fnv1a64", PROV_HEX64, TRAINING},
    {"train_phrasebook", "phrasebook", PROV_TEXT, TRAINING},
    {MODEL_PHRASEBOOK_KEY, "  fnv1a64", PROV_HEX64, TRAINING},
    TRAIN_SETTINGS(PROV_SETTING_ROW) /* train_epochs .. train_seed */
    {"train_threads", "threads", PROV_TEXT, TRAINING},
    {"train_resumes", "resumed", PROV_LINES, TRAINING},
    {"train_seconds", "training time", PROV_DURATION, TRAINING},
    {"train_step", "steps done", PROV_TEXT, TRAINING},
    {"train_epoch", "epochs done", PROV_TEXT, TRAINING},
};

const ProvKey *train_provenance_keys(int *n)
{
    *n = (int)(sizeof PROVENANCE / sizeof PROVENANCE[0]);
    return PROVENANCE;
}

const char *train_setting_option(TrainSetting s)
{
    assert(s >= 0 && s < TRAIN_N_SETTINGS);
    return RUN_SETTINGS[s].option;
}

const char *train_setting_key(TrainSetting s)
{
    assert(s >= 0 && s < TRAIN_N_SETTINGS);
    return RUN_SETTINGS[s].key;
}

static void *setting_field(TrainOptions *o, TrainSetting s)
{
    return (char *)o + RUN_SETTINGS[s].offset;
}

static const void *setting_cfield(const TrainOptions *o, TrainSetting s)
{
    return (const char *)o + RUN_SETTINGS[s].offset;
}

int train_setting_parse(TrainOptions *o, TrainSetting s, const char *text, char *err,
                        size_t errlen)
{
    assert(o && s >= 0 && s < TRAIN_N_SETTINGS && text);
    const RunSetting *d = &RUN_SETTINGS[s];
    char *end;
    errno = 0;
    /* strto* skip leading blanks, and strtoull wraps "-1": a value is written plainly. */
    const int plain = text[0] != '\0' && !isspace((unsigned char)text[0]);
    switch (d->type) {
    case SET_INT: {
        const long v = strtol(text, &end, 10);
        if (!plain || *end != '\0') {
            snprintf(err, errlen, "'%s' is not a whole number", text);
            return TT_EINVAL;
        }
        if (errno == ERANGE || v < (long)d->lo || v > (long)d->hi) {
            snprintf(err, errlen, "%s is out of range (%ld to %ld)", text, (long)d->lo,
                     (long)d->hi);
            return TT_EINVAL;
        }
        *(int *)setting_field(o, s) = (int)v;
        return TT_OK;
    }
    case SET_FLOAT: {
        /* Checked as the float that is used: 0.9999999999 is below 1 but rounds to it. */
        const float v = (float)strtod(text, &end);
        if (!plain || *end != '\0' || !(v >= (float)d->lo && v <= (float)d->hi)) {
            char range[64];
            if (d->range)
                snprintf(range, sizeof range, "%s", d->range);
            else
                snprintf(range, sizeof range, "from %g to %g", d->lo, d->hi);
            snprintf(err, errlen, "'%s' is not a number %s", text, range);
            return TT_EINVAL;
        }
        *(float *)setting_field(o, s) = v;
        return TT_OK;
    }
    case SET_U64: {
        unsigned long long v = 0;
        int digits = isdigit((unsigned char)text[0]);
        if (digits) {
            v = strtoull(text, &end, 10);
            digits = *end == '\0';
        }
        if (!digits) {
            snprintf(err, errlen, "'%s' is not a non-negative whole number", text);
            return TT_EINVAL;
        }
        if (errno == ERANGE || v > UINT64_MAX) {
            snprintf(err, errlen, "%s is out of range (0 to %llu)", text,
                     (unsigned long long)UINT64_MAX);
            return TT_EINVAL;
        }
        *(uint64_t *)setting_field(o, s) = (uint64_t)v;
        return TT_OK;
    }
    }
    return TT_EINVAL;
}

void train_options_defaults(TrainOptions *o)
{
    memset(o, 0, sizeof *o);
    config_defaults(&o->config);
    for (int i = 0; i < TRAIN_N_SETTINGS; i++) {
        const RunSetting *d = &RUN_SETTINGS[i];
        void *f = setting_field(o, (TrainSetting)i);
        switch (d->type) {
        case SET_INT: *(int *)f = (int)d->def; break;
        case SET_FLOAT: *(float *)f = (float)d->def; break;
        case SET_U64: *(uint64_t *)f = (uint64_t)d->def; break;
        }
    }
    o->min_count = 1;
    o->threads = 0;
    o->checkpoint_every = 500;
    o->validate_exact = 1;
}

/* o's value of setting s as text: exact for meta (a float to 9 digits reads back the
 * same float), or short for a person (%g). */
static void setting_text(const TrainOptions *o, TrainSetting s, int exact, char *buf,
                         size_t size)
{
    const void *f = setting_cfield(o, s);
    switch (RUN_SETTINGS[s].type) {
    case SET_INT: snprintf(buf, size, "%d", *(const int *)f); break;
    case SET_FLOAT: snprintf(buf, size, exact ? "%.9g" : "%g", (double)*(const float *)f); break;
    case SET_U64: snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)f); break;
    }
}

static int setting_equal(const TrainOptions *a, const TrainOptions *b, TrainSetting s)
{
    const void *x = setting_cfield(a, s), *y = setting_cfield(b, s);
    switch (RUN_SETTINGS[s].type) {
    case SET_INT: return *(const int *)x == *(const int *)y;
    case SET_FLOAT: return *(const float *)x == *(const float *)y;
    case SET_U64: return *(const uint64_t *)x == *(const uint64_t *)y;
    }
    return 0;
}

/* Whether every setting of o lies in its range (a caller other than the CLI may pass
 * anything). */
static int settings_valid(const TrainOptions *o)
{
    for (int s = 0; s < TRAIN_N_SETTINGS; s++) {
        char text[64], why[128];
        TrainOptions copy = *o;
        setting_text(o, (TrainSetting)s, 1, text, sizeof text);
        if (train_setting_parse(&copy, (TrainSetting)s, text, why, sizeof why) != TT_OK)
            return 0;
    }
    return 1;
}

/* Writes every setting of o into meta, inside the caller's transaction. */
static int write_settings(Store *store, const TrainOptions *o, char *err, size_t errlen)
{
    int rc = TT_OK;
    for (int s = 0; rc == TT_OK && s < TRAIN_N_SETTINGS; s++) {
        char text[64];
        setting_text(o, (TrainSetting)s, 1, text, sizeof text);
        rc = store_meta_set(store, RUN_SETTINGS[s].key, text, err, errlen);
    }
    return rc;
}

/* The most bytes train_resumes keeps: the oldest lines go first. */
#define TRAIN_RESUMES_MAX 8192

/* In the transaction of a resumed run's first checkpoint: appends "UTC-TIME  epochs E,
 * threads T  COMMAND" to meta train_resumes, and records the settings now in effect (a longer --epochs, the
 * threads, and any key a file from before it was recorded gains here). */
static int record_resume(Run *r, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    char *old = malloc(TRAIN_RESUMES_MAX), *all = malloc(2 * TRAIN_RESUMES_MAX);
    if (!old || !all) {
        free(all);
        free(old);
        snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
        return TT_ENOMEM;
    }
    if (store_meta_get(r->store, "train_resumes", old, TRAIN_RESUMES_MAX, NULL, 0) != TT_OK)
        old[0] = '\0'; /* the first resume (or a value too long to keep) */
    char when[32] = "?";
    const time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *command = o->command && *o->command ? o->command : "(command not given)";
    int n = snprintf(all, 2 * TRAIN_RESUMES_MAX, "%s%s%s  epochs %d, threads %d  %.1000s", old,
                     old[0] ? "\n" : "", when, o->epochs, o->threads, command);
    /* Keep the newest lines within the bound. */
    const char *keep = all;
    while (n > 0 && strlen(keep) >= TRAIN_RESUMES_MAX) {
        const char *nl = strchr(keep, '\n');
        if (!nl)
            break;
        keep = nl + 1;
    }
    int rc = store_meta_set(r->store, "train_resumes", keep, err, errlen);
    if (rc == TT_OK)
        rc = write_settings(r->store, o, err, errlen);
    char buf[32];
    snprintf(buf, sizeof buf, "%d", o->threads);
    if (rc == TT_OK)
        rc = store_meta_set(r->store, "train_threads", buf, err, errlen);
    free(all);
    free(old);
    return rc;
}

/* The pairs p[idx[0..n-1]] (idx NULL: p[first..first+n-1]) as a batch, with each pair's
 * dropout seed. */
static void fill_pairs(TrainPair *out, const Pairs *p, const int *idx, int first, int n,
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

/* Part k of a batch of n pairs: pairs [part_start(n, k), part_start(n, k + 1)). Batches
 * are sorted by length, so equal counts are about equal work. */
static int part_start(int n, int k)
{
    return (int)((long)n * k / TRAIN_PARTS);
}

typedef struct {
    Run *r;
    int n;           /* pairs in the batch */
    int backward;    /* 1: dropout, the gradient; 0: the loss alone (validation) */
    double loss[TRAIN_PARTS];
    int rc[TRAIN_PARTS];
} PartJob;

static void part_task(void *ctx, int k)
{
    PartJob *j = ctx;
    Run *r = j->r;
    const int i0 = part_start(j->n, k), n = part_start(j->n, k + 1) - i0;
    j->loss[k] = 0.0;
    j->rc[k] = TT_OK;
    if (n == 0)
        return;
    Backprop *t = &r->tr[k];
    j->rc[k] = backprop_set_batch(t, r->pairs + i0, n);
    if (j->rc[k] != TT_OK)
        return;
    const float ls = j->backward ? r->o->label_smoothing : 0.0f;
    backprop_forward(t, j->backward);
    backprop_loss(t, ls, &j->loss[k]);
    if (j->backward)
        backprop_backward(t, r->grads[k], ls);
}

/* The pairs r->pairs[0..n-1], in TRAIN_PARTS parts side by side: their summed loss into
 * *loss and, with backward, each part's gradient added into its block. */
static int run_parts(Run *r, int n, int backward, double *loss)
{
    PartJob j = {.r = r, .n = n, .backward = backward};
    pool_run(r->pool, TRAIN_PARTS, part_task, &j);
    *loss = 0.0;
    for (int k = 0; k < TRAIN_PARTS; k++) {
        if (j.rc[k] != TT_OK)
            return j.rc[k];
        *loss += j.loss[k];
    }
    return TT_OK;
}

/* Computes the current batch (the pairs r->pairs[0..n-1]): the gradient of its summed
 * loss into the parts' blocks r->grads (zeroed first: grads_scale leaves every block but
 * the first zero), its loss into *loss and its target tokens into *tokens. */
static int run_batch(Run *r, int n, double *loss, long *tokens)
{
    grads_zero(r->grads[0], r->m.n_params, r->pool);
    int rc = run_parts(r, n, 1, loss);
    if (rc != TT_OK)
        return rc;
    long tok = 0;
    for (int i = 0; i < n; i++)
        tok += r->pairs[i].n_tgt + 1;
    *tokens = tok;
    return TT_OK;
}

static double now_seconds(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ---------------------------------------------------------------------------------------
 * Checkpoints
 */

static int meta_set_long(Store *s, const char *key, long v, char *err, size_t errlen)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    return store_meta_set(s, key, buf, err, errlen);
}

/* The index of the first NaN or Inf of x (n values), or -1. */
static long first_non_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return (long)i;
    return -1;
}

static int checkpoint(Run *r, char *err, size_t errlen)
{
    Store *s = r->store;
    const int dims[1] = {(int)r->m.n_params};
    /* A checkpoint that holds a NaN or an Inf would not load: the last good one stays. */
    const struct { const char *what; const float *x; } state[] = {
        {"the weights", r->m.params}, {"optim.m", r->m1}, {"optim.v", r->m2}};
    for (size_t k = 0; k < sizeof state / sizeof state[0]; k++) {
        const long at = first_non_finite(state[k].x, r->m.n_params);
        if (at >= 0) {
            snprintf(err, errlen, "step %ld: a non-finite value (%s) in %s at index %ld; not "
                                  "saved, the last checkpoint (step %ld) is kept", r->step,
                     isnan(state[k].x[at]) ? "NaN" : "Inf", state[k].what, at,
                     r->step - (long)r->n_log);
            return TT_EDIVERGED;
        }
    }
    /* The run's last checkpoint, with --release: the weights without the moments. */
    const int release = r->o->release && r->epoch >= r->o->epochs;
    int rc = store_begin(s, err, errlen);
    if (rc == TT_OK)
        rc = model_save(&r->m, s, err, errlen);
    if (rc == TT_OK && release)
        rc = store_exec(s, "DELETE FROM tensor WHERE name IN ('optim.m', 'optim.v')", err,
                        errlen);
    if (rc == TT_OK && !release)
        rc = store_tensor_write(s, "optim.m", dims, 1, r->m1, err, errlen);
    if (rc == TT_OK && !release)
        rc = store_tensor_write(s, "optim.v", dims, 1, r->m2, err, errlen);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_step", r->step, err, errlen);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_epoch", r->epoch, err, errlen);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_batch", r->batch_pos, err, errlen);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", r->seconds0 + now_seconds(&r->t0));
    if (rc == TT_OK)
        rc = store_meta_set(s, "train_seconds", buf, err, errlen);
    if (rc == TT_OK && r->record_resume)
        rc = record_resume(r, err, errlen);
    if (rc == TT_OK)
        rc = history_create_tables(s, err, errlen);
    for (int i = 0; rc == TT_OK && i < r->n_log; i++)
        rc = history_append_step(s, &r->log[i], err, errlen);
    if (rc == TT_OK && r->have_vlog)
        rc = history_append_epoch(s, &r->vlog, err, errlen);
    if (rc == TT_OK)
        rc = store_commit(s, err, errlen);
    else
        store_rollback(s);
    if (rc == TT_OK) {
        r->n_log = 0;
        r->have_vlog = 0;
        r->record_resume = 0;
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Validation
 */

static int validate(Run *r, ValidLogRow *row, char *err, size_t errlen)
{
    const Model *m = &r->m;
    double loss = 0.0;
    long tokens = 0, exact = 0;
    Decoder dec = {0};
    Translation t = {0};
    int rc = TT_OK;
    if (r->o->validate_exact) {
        rc = decoder_init(&dec, m, 1);
        if (rc == TT_OK)
            rc = decoder_pack(&dec);
        if (rc == TT_OK)
            rc = translation_init(&t, m, 0);
    }
    /* The loss: batches of the run's size in file order, without dropout (validation
     * measures the model itself). */
    for (int i0 = 0; rc == TT_OK && i0 < r->valid.n; i0 += r->batch) {
        const int n = r->valid.n - i0 < r->batch ? r->valid.n - i0 : r->batch;
        fill_pairs(r->pairs, &r->valid, NULL, i0, n, 0, 0);
        double l = 0.0;
        rc = run_parts(r, n, 0, &l);
        if (rc != TT_OK)
            break;
        loss += l;
        for (int i = 0; i < n; i++)
            tokens += r->pairs[i].n_tgt + 1;
    }
    int *src = malloc(sizeof(int) * (size_t)m->config.max_len);
    if (!src && rc == TT_OK)
        rc = TT_ENOMEM;
    for (int i = 0; rc == TT_OK && r->o->validate_exact && i < r->valid.n; i++) {
        const int *ids = r->valid.ids + r->valid.off[i];
        const int ns = r->valid.src_len[i];
        memcpy(src, ids, sizeof(int) * (size_t)ns);
        src[ns] = VOCAB_EOS;
        const DecodeOptions greedy = {.beam = 1, .max_len = m->config.max_len};
        rc = decode_run(&dec, &t, src, ns + 1, &greedy);
        const char *words[CONFIG_MAX_LEN];
        int n = t.n && t.ids[t.n - 1] == VOCAB_EOS ? t.n - 1 : t.n;
        for (int k = 0; k < n; k++)
            words[k] = m->tgt_vocab.tokens[t.ids[k]];
        char *text = NULL;
        int same = 0;
        if (rc == TT_OK && (rc = detokenize(&text, words, n)) == TT_OK &&
            (rc = tokenizer_text_equal(text, r->valid.ref[i],
                                       config_lang_rules(m->config.tgt_lang), &same)) == TT_OK)
            exact += same;
        free(text);
    }
    free(src);
    translation_free(&t);
    decoder_free(&dec);
    if (rc != TT_OK) {
        snprintf(err, errlen, "validation: %s", status_message(rc));
        return rc;
    }
    row->epoch = r->epoch;
    row->step = r->step;
    row->loss = tokens ? loss / (double)tokens : 0.0;
    row->exact_match = r->valid.n ? (double)exact / r->valid.n : 0.0;
    row->seconds = r->seconds0 + now_seconds(&r->t0);
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Setting up: a new model or a resumed one
 */

/* The model of a new run, in memory: vocabularies from the corpus, random weights. */
static int start_new(Run *r, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    VocabCounter cs, ct;
    vocab_counter_init(&cs);
    vocab_counter_init(&ct);
    Vocab vs = {0}, vt = {0};
    CorpusCount count;
    int rc = vocab_count_corpus(o->train_path, o->skip_bad_lines,
                                config_is_reverse(&o->config), &cs, &ct, &count, NULL, stop,
                                err, errlen);
    if (rc == TT_OK)
        rc = vocab_build(&vs, &cs, o->min_count);
    if (rc == TT_OK)
        rc = vocab_build(&vt, &ct, o->min_count);
    if (rc == TT_OK)
        rc = model_init(&r->m, &o->config, &vs, &vt, err, errlen);
    vocab_free(&vt);
    vocab_free(&vs);
    vocab_counter_free(&ct);
    vocab_counter_free(&cs);
    if (rc != TT_OK)
        return rc;
    Rng rng;
    rng_seed(&rng, o->seed);
    model_randomize(&r->m, &rng);
    r->corpus_pairs = count.pairs;
    return TT_OK;
}


/* The FNV-1a 64 of a whole file's bytes, into *out. TT_OK, or TT_EIO with err naming it. */
static int file_fnv1a64(const char *opt, const char *path, uint64_t *out, char *err,
                        size_t errlen)
{
    *out = FNV1A64_OFFSET;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
        return TT_EIO;
    }
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        *out = fnv1a64_add(*out, chunk, n);
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s %s: read error", opt, path);
        return TT_EIO;
    }
    return TT_OK;
}

/* Creates the file of a new run: called once every input has been read and checked, so
 * that a bad input never costs the file --force would replace. The file appears
 * complete or not at all; later checkpoints update it in place. */
static int new_file(Run *r, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    Store *s = NULL;
    const ModelContents contents = {.weights = &r->m};
    const ModelProvenance prov = {
        .created_by = o->created_by ? o->created_by : "toytrans train",
        .vocab_corpus = o->train_path,
        .vocab_corpus_pairs = (uint64_t)r->corpus_pairs,
        .vocab_corpus_fnv1a64 = r->train.checksum, /* count.checksum: the same pairs */
        .vocab_min_count = (uint64_t)o->min_count,
        .init_seed = o->seed,
    };
    int rc = model_create(&s, o->out_path, o->force ? STORE_REPLACE : STORE_CREATE, &contents,
                          &prov, err, errlen);
    if (rc != TT_OK)
        return rc;
    char buf[64];
    snprintf(buf, sizeof buf, "%d", o->threads);
    const struct { const char *key, *value; } meta[] = {
        {"train_command", o->command ? o->command : ""},
        {"train_corpus", o->train_path},
        {"train_valid", o->valid_path ? o->valid_path : ""},
        {"train_threads", buf},
    };
    for (size_t i = 0; rc == TT_OK && i < sizeof meta / sizeof meta[0]; i++)
        rc = store_meta_set(s, meta[i].key, meta[i].value, err, errlen);
    if (rc == TT_OK)
        rc = write_settings(s, o, err, errlen);
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)r->train.checksum);
    if (rc == TT_OK)
        rc = store_meta_set(s, "train_corpus_fnv1a64", buf, err, errlen);
    if (rc == TT_OK && o->lexicon_path) {
        uint64_t h;
        rc = file_fnv1a64("--lexicon", o->lexicon_path, &h, err, errlen);
        if (rc == TT_OK)
            rc = store_meta_set(s, "train_lexicon", o->lexicon_path, err, errlen);
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
        if (rc == TT_OK)
            rc = store_meta_set(s, MODEL_LEXICON_KEY, buf, err, errlen);
    }
    /* The phrasebook likewise: a model records the phrases it learned (model.h). */
    if (rc == TT_OK && o->phrasebook_path) {
        uint64_t h;
        rc = file_fnv1a64("--phrasebook", o->phrasebook_path, &h, err, errlen);
        if (rc == TT_OK)
            rc = store_meta_set(s, "train_phrasebook", o->phrasebook_path, err, errlen);
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
        if (rc == TT_OK)
            rc = store_meta_set(s, MODEL_PHRASEBOOK_KEY, buf, err, errlen);
    }
    /* The file is a checkpoint from the moment it appears (step 0, zero AdamW moments):
     * a run killed before its first checkpoint commits can still be resumed. */
    const int dims[1] = {(int)r->m.n_params};
    float *zeros = rc == TT_OK ? calloc(r->m.n_params, sizeof(float)) : NULL;
    if (rc == TT_OK && !zeros) {
        snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
        rc = TT_ENOMEM;
    }
    if (rc == TT_OK)
        rc = store_tensor_write(s, "optim.m", dims, 1, zeros, err, errlen);
    if (rc == TT_OK)
        rc = store_tensor_write(s, "optim.v", dims, 1, zeros, err, errlen);
    free(zeros);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_step", 0, err, errlen);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_epoch", 0, err, errlen);
    if (rc == TT_OK)
        rc = meta_set_long(s, "train_batch", 0, err, errlen);
    if (rc == TT_OK)
        rc = store_commit(s, err, errlen);
    /* Into place and on as its writer, holding the writer's lock throughout: no other
     * run can replace or resume the file between its creation and this run's end. */
    if (rc == TT_OK)
        rc = store_publish(s, err, errlen);
    if (rc == TT_OK)
        r->store = s;
    else
        store_close(s, NULL, 0);
    return rc;
}

/* A resumed run's settings (train.h): each recorded one replaces r->opt's, and a given
 * one must equal it, the epochs aside. The batch size above all: a position counted in
 * batches of one size means nothing in batches of another, and would lie beyond the
 * epoch's end; AdamW's moments were computed with the recorded betas and epsilon. */
static int resume_settings(Run *r, char *err, size_t errlen)
{
    TrainOptions *o = &r->opt;
    int rc = TT_OK;
    for (int i = 0; rc == TT_OK && i < TRAIN_N_SETTINGS; i++) {
        const TrainSetting s = (TrainSetting)i;
        const RunSetting *d = &RUN_SETTINGS[s];
        char text[64], why[160];
        int have = 0;
        rc = store_meta_exists(r->store, d->key, &have, err, errlen);
        if (rc != TT_OK)
            break;
        if (have) {
            rc = store_meta_get(r->store, d->key, text, sizeof text, err, errlen);
            if (rc != TT_OK)
                break;
        } else if (d->rule == RULE_REQUIRED) {
            snprintf(err, errlen, "%s: meta '%s' is missing: not a training checkpoint",
                     o->out_path, d->key);
            rc = TT_EMODEL;
            break;
        } else if (!isnan(d->unrecorded)) {
            snprintf(text, sizeof text, "%.9g", d->unrecorded);
        } else {
            continue; /* the option's value, given or default, recorded at the checkpoint */
        }
        TrainOptions file = *o;
        if (train_setting_parse(&file, s, text, why, sizeof why) != TT_OK) {
            snprintf(err, errlen, "%s: meta '%s': %s", o->out_path, d->key, why);
            rc = TT_EMODEL;
            break;
        }
        if ((o->given & TRAIN_GIVEN(s)) && !setting_equal(o, &file, s)) {
            if (d->rule == RULE_MAY_CHANGE)
                continue;
            char given[64], recorded[64];
            setting_text(o, s, 0, given, sizeof given);
            setting_text(&file, s, 0, recorded, sizeof recorded);
            snprintf(err, errlen, "%s: %s %s differs from the %s the run was started with "
                                  "(meta %s = %s); a resumed run keeps it: leave %s out, or "
                                  "train a new model",
                     o->out_path, d->option, given, RUN_SETTINGS[s].label, d->key, recorded,
                     d->option);
            rc = TT_EINVAL;
            break;
        }
        *o = file; /* a copy of o but for setting s, now the file's */
    }
    return rc;
}

/* Reads the position and the settings of a resumed run. Every position key is
 * range-checked by store_meta_get_long, whose message names the key and its value; the
 * batch position is checked against the epoch's batches once the corpus is read
 * (train_run). */
static int start_resume(Run *r, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    int rc = store_open(&r->store, o->out_path, STORE_WRITE, err, errlen);
    if (rc == TT_OK)
        rc = model_load(&r->m, r->store, err, errlen);
    long v;
    if (rc == TT_OK)
        rc = store_meta_get_long(r->store, "train_step", 0, 1L << 40, &r->step, err, errlen);
    if (rc == TT_OK && (rc = store_meta_get_long(r->store, "train_epoch", 0, 1000000, &v, err,
                                                 errlen)) == TT_OK)
        r->epoch = (int)v;
    if (rc == TT_OK && (rc = store_meta_get_long(r->store, "train_batch", 0, 1L << 30, &v, err,
                                                 errlen)) == TT_OK)
        r->batch_pos = (int)v;
    if (rc == TT_OK)
        rc = resume_settings(r, err, errlen);
    /* Not given, the threads the run last ran with: they change the time, not the result. */
    if (rc == TT_OK && r->opt.threads == 0 &&
        store_meta_get_long(r->store, "train_threads", 1, TRAIN_MAX_THREADS, &v, NULL, 0) == TT_OK)
        r->opt.threads = (int)v;
    /* Given no corpus, the run's corpora (meta train_corpus, train_valid). */
    if (rc == TT_OK && !o->train_path) {
        if (store_meta_get(r->store, "train_corpus", r->corpus_path, sizeof r->corpus_path, NULL,
                           0) != TT_OK ||
            !r->corpus_path[0]) {
            snprintf(err, errlen, "%s: no training corpus given, and none recorded (meta "
                                  "train_corpus): give --train", o->out_path);
            rc = TT_EINVAL;
        } else {
            r->opt.train_path = r->corpus_path;
            if (!o->valid_path &&
                store_meta_get(r->store, "train_valid", r->valid_path, sizeof r->valid_path,
                               NULL, 0) == TT_OK &&
                r->valid_path[0])
                r->opt.valid_path = r->valid_path;
        }
    }
    double secs = 0;
    if (rc == TT_OK && store_meta_get_double(r->store, "train_seconds", &secs, NULL, 0) == TT_OK)
        r->seconds0 = secs;
    r->record_resume = 1;
    return rc;
}

/* The saved position must lie inside an epoch of the corpus just read: a batch position
 * at or past its last batch (another corpus, or a damaged file) would never reach a step. */
static int check_resume_position(const Run *r, char *err, size_t errlen)
{
    if (r->batch_pos < r->batches.n_batches)
        return TT_OK;
    snprintf(err, errlen, "%s: meta 'train_batch' = '%d' lies beyond the %d batches of an epoch "
                          "of %s at batch size %d: not the corpus this run was started on, "
                          "or a damaged checkpoint",
             r->o->out_path, r->batch_pos, r->batches.n_batches, r->o->train_path, r->batch);
    return TT_EMODEL;
}

/* A resumed run's corpus other than the one it was started with (meta
 * train_corpus_fnv1a64) is allowed, but said: the run goes on, and is no longer the run an
 * uninterrupted one would have been. A file without the key says nothing. */
static void note_other_corpus(const Run *r, TrainProgressFn progress, void *ctx)
{
    char recorded[32], note[1024];
    if (store_meta_get(r->store, "train_corpus_fnv1a64", recorded, sizeof recorded, NULL, 0) !=
        TT_OK)
        return;
    char mine[32];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)r->train.checksum);
    if (strcmp(mine, recorded) == 0)
        return;
    snprintf(note, sizeof note, "note: %.400s is not the corpus the run was started with (its "
                                "FNV-1a 64 is %s, meta train_corpus_fnv1a64 = %.20s): the run "
                                "goes on with it, and differs from an uninterrupted one",
             r->o->train_path, mine, recorded);
    report_note(progress, ctx, note);
}

/* ---------------------------------------------------------------------------------------
 * The loop
 */

static float schedule(const TrainOptions *o, long step, long total)
{
    if (o->warmup > 0 && step <= o->warmup)
        return o->lr * (float)step / (float)o->warmup;
    const double span = total > o->warmup ? (double)(total - o->warmup) : 1.0;
    double progress = (double)(step - o->warmup) / span;
    if (progress > 1.0)
        progress = 1.0;
    return (float)(o->lr * (0.1 + 0.9 * 0.5 * (1.0 + cos(3.14159265358979323846 * progress))));
}

static void run_free(Run *r)
{
    free(r->partial);
    free(r->pairs);
    for (int k = 0; k < TRAIN_PARTS; k++) {
        free(r->grads[k]);
        backprop_free(&r->tr[k]);
        pool_close(r->part_pool[k]);
    }
    pool_close(r->pool);
    free(r->log);
    free(r->m2);
    free(r->m1);
    batches_free(&r->batches);
    pairs_free(&r->valid);
    pairs_free(&r->train);
    model_free(&r->m);
}

int train_run(const TrainOptions *o, TrainProgressFn progress, void *ctx,
              volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    if (!o->out_path || (!o->train_path && !o->resume) || o->threads < 0 ||
        o->threads > TRAIN_MAX_THREADS || !settings_valid(o)) {
        snprintf(err, errlen, "invalid training options");
        return TT_EINVAL;
    }
    Run *r = calloc(1, sizeof *r);
    if (!r)
        return TT_ENOMEM;
    r->opt = *o;
    r->o = o = &r->opt; /* from here on, the options in effect */
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    /* Another run writing the file, or a file a new run may not replace: refused now,
     * not after the data is read. */
    struct stat sb;
    int rc = store_check_writer(o->out_path, err, errlen);
    if (rc == TT_OK && !o->resume && !o->force && lstat(o->out_path, &sb) == 0) {
        snprintf(err, errlen, "%s: already exists; not replaced", o->out_path);
        rc = TT_EEXIST;
    }
    if (rc != TT_OK) {
        free(r);
        return rc;
    }
    if (!o->resume && r->opt.threads == 0)
        r->opt.threads = 1;
    rc = o->resume ? start_resume(r, err, errlen) : start_new(r, stop, err, errlen);
    if (r->opt.threads == 0)
        r->opt.threads = 1; /* a resume of a file that records none */
    r->batch = o->batch;
    r->adam = (AdamConfig){o->adam_beta1, o->adam_beta2, o->adam_eps, o->weight_decay};
    if (rc == TT_OK)
        rc = pairs_load(&r->train, o->train_path, &r->m, 0, o->skip_bad_lines, stop, progress,
                        ctx, err, errlen);
    if (rc == TT_OK && (rc = pairs_augment_names(&r->train, &r->m, o->name_augment, o->seed)) != TT_OK)
        snprintf(err, errlen, "%s", status_message(rc));
    if (rc == TT_OK && o->valid_path)
        rc = pairs_load(&r->valid, o->valid_path, &r->m, 1, o->skip_bad_lines, stop, progress,
                        ctx, err, errlen);
    if (rc == TT_OK && r->train.n == 0) {
        snprintf(err, errlen, "%s: no pairs fit the model's max_len", o->train_path);
        rc = TT_EINPUT;
    }
    if (rc == TT_OK)
        rc = batches_make(&r->batches, &r->train, r->batch);
    if (rc == TT_OK && o->resume)
        rc = check_resume_position(r, err, errlen);
    if (rc == TT_OK && o->resume)
        note_other_corpus(r, progress, ctx);
    const size_t n = r->m.n_params;
    if (rc == TT_OK) {
        r->m1 = calloc(n, sizeof(float));
        r->m2 = calloc(n, sizeof(float));
        /* Rows wait for the next checkpoint: at most checkpoint_every steps, or an epoch's
         * batches when only epochs end in a checkpoint (checkpoint_every 0). */
        r->log_cap = (o->checkpoint_every > 0 ? o->checkpoint_every : 0) + r->batches.n_batches + 1;
        r->log = malloc(sizeof(TrainLogRow) * (size_t)r->log_cap);
        if (!r->m1 || !r->m2 || !r->log)
            rc = TT_ENOMEM;
    }
    if (rc == TT_OK && o->resume) {
        const int dims[1] = {(int)n};
        int have = 0;
        rc = store_tensor_exists(r->store, "optim.m", &have, err, errlen);
        if (rc == TT_OK && !have) {
            snprintf(err, errlen, "%s: no optimiser state (optim.m): the file was saved for "
                                  "release (train --release) and cannot be resumed; train "
                                  "a new model instead", o->out_path);
            rc = TT_EINVAL;
        }
        if (rc == TT_OK)
            rc = store_tensor_read(r->store, "optim.m", dims, 1, r->m1, err, errlen);
        if (rc == TT_OK)
            rc = store_tensor_read(r->store, "optim.v", dims, 1, r->m2, err, errlen);
        /* AdamW's second moment is a running mean of squares: a negative one would make
         * the first step's square root NaN. */
        for (size_t i = 0; rc == TT_OK && i < n; i++)
            if (!(r->m2[i] >= 0.0f)) {
                snprintf(err, errlen, "%s: tensor 'optim.v' has a negative value (%g) at index "
                                      "%zu: not a training checkpoint this toytrans wrote",
                         o->out_path, (double)r->m2[i], i);
                rc = TT_EMODEL;
            }
    }
    /* One batch's passes, sized for the longest pair of either corpus. */
    if (rc == TT_OK) {
        int max_src = 1, max_tgt = 1;
        const Pairs *sets[2] = {&r->train, &r->valid};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < sets[k]->n; i++) {
                max_src = sets[k]->src_len[i] + 1 > max_src ? sets[k]->src_len[i] + 1 : max_src;
                max_tgt = sets[k]->tgt_len[i] + 1 > max_tgt ? sets[k]->tgt_len[i] + 1 : max_tgt;
            }
        /* One thread per part; the rest shared among the parts (3 threads: 2 and 1). */
        rc = pool_open(&r->pool, o->threads < TRAIN_PARTS ? o->threads : TRAIN_PARTS);
        const int part_cap = (r->batch + TRAIN_PARTS - 1) / TRAIN_PARTS;
        for (int k = 0; rc == TT_OK && k < TRAIN_PARTS; k++) {
            const int threads = o->threads / TRAIN_PARTS + (k < o->threads % TRAIN_PARTS);
            if (threads > 1)
                rc = pool_open(&r->part_pool[k], threads);
            if (rc == TT_OK)
                rc = backprop_init(&r->tr[k], &r->m, part_cap, max_src, max_tgt, o->dropout,
                                   r->part_pool[k]);
            /* Zero: a part's block is added into, and grads_scale leaves it zero. */
            r->grads[k] = rc == TT_OK ? calloc(n, sizeof(float)) : NULL;
            if (rc == TT_OK && !r->grads[k])
                rc = TT_ENOMEM;
        }
        r->pairs = rc == TT_OK ? malloc(sizeof *r->pairs * (size_t)r->batch) : NULL;
        r->partial = rc == TT_OK ? malloc(sizeof(double) * (size_t)optim_chunks(n)) : NULL;
        if (rc == TT_OK && (!r->pairs || !r->partial))
            rc = TT_ENOMEM;
        if (rc != TT_OK)
            snprintf(err, errlen, "%s", status_message(rc));
    }
    if (rc == TT_OK && !o->resume)
        rc = new_file(r, err, errlen);
    if (rc == TT_OK && !o->resume)
        rc = checkpoint(r, err, errlen);
    if (rc != TT_OK)
        goto done;

    const long steps_per_epoch = r->batches.n_batches;
    const long steps_total = steps_per_epoch * o->epochs;
    long steps_this_run = 0;
    double tokens_this_run = 0, flops_this_run = 0;
    float *grads = r->grads[0];
    while (rc == TT_OK && r->epoch < o->epochs) {
        batches_shuffle(&r->batches, o->seed, r->epoch);
        while (rc == TT_OK && r->batch_pos < r->batches.n_batches) {
            /* A signal that came before this step (while the data was read, or during an
             * epoch's validation) stops the run here; the last checkpoint holds every
             * step done, so there is nothing more to save. */
            if (stop && *stop) {
                if (r->n_log > 0)
                    rc = checkpoint(r, err, errlen);
                if (rc == TT_OK)
                    rc = TT_EINTR;
                goto done;
            }
            const int b = r->batches.perm[r->batch_pos];
            const int job_n = r->batches.start[b + 1] - r->batches.start[b];
            fill_pairs(r->pairs, &r->train, r->batches.order + r->batches.start[b], 0, job_n,
                       o->seed, r->step);
            double loss = 0;
            long tokens = 0;
            rc = run_batch(r, job_n, &loss, &tokens);
            if (rc != TT_OK) {
                snprintf(err, errlen, "step %ld: %s", r->step + 1, status_message(rc));
                break;
            }
            /* Mean per token; then the norm, checked before anything is changed. */
            const double norm2 = grads_scale(grads, TRAIN_PARTS > 1 ? r->grads[1] : NULL, n,
                                             1.0f / (float)tokens, r->partial, r->pool);
            const double mean_loss = loss / (double)tokens;
            if (!isfinite(mean_loss) || !isfinite(norm2)) {
                snprintf(err, errlen, "step %ld: the %s is %s; stopped before the optimiser "
                                      "step, the last checkpoint (step %ld) is kept",
                         r->step + 1, isfinite(mean_loss) ? "gradient norm" : "loss",
                         isnan(isfinite(mean_loss) ? norm2 : mean_loss) ? "NaN" : "infinite",
                         r->step - (long)r->n_log);
                rc = TT_EDIVERGED;
                break;
            }
            const double norm = sqrt(norm2);
            const float gscale = o->clip > 0 && norm > o->clip ? (float)(o->clip / norm) : 1.0f;
            r->step++;
            const float lr = schedule(o, r->step, steps_total);
            adamw_update(r->m.params, grads, gscale, r->m1, r->m2, r->m.specs, r->m.n_specs,
                         &r->adam, lr, r->step, r->pool);
            r->batch_pos++;
            steps_this_run++;
            tokens_this_run += (double)tokens;
            for (int i = 0; i < job_n; i++)
                flops_this_run += backprop_pair_flops(&r->m.config, r->m.tgt_vocab.size,
                                                     r->pairs[i].n_src + 1, r->pairs[i].n_tgt + 1);
            const double secs = now_seconds(&r->t0);
            r->log[r->n_log++] = (TrainLogRow){r->step, r->epoch + 1, mean_loss, lr, tokens,
                                               r->seconds0 + secs};
            if (progress) {
                const double tps = tokens_this_run / (secs > 0 ? secs : 1e-9);
                const double per_step = secs / (double)steps_this_run;
                TrainProgress p = {r->epoch + 1, o->epochs, r->step, steps_total, r->batch_pos,
                                   r->batches.n_batches, mean_loss, tps, secs,
                                   per_step * (double)(steps_total - r->step), NULL, NULL, 0,
                                   flops_this_run / (secs > 0 ? secs : 1e-9)};
                progress(ctx, &p);
            }
            const int stopping = (stop && *stop) || (o->stop_after && steps_this_run >= o->stop_after);
            if (r->batch_pos == r->batches.n_batches) {
                r->epoch++;
                r->batch_pos = 0;
                if (o->valid_path) {
                    rc = validate(r, &r->vlog, err, errlen);
                    r->have_vlog = rc == TT_OK;
                }
                if (rc == TT_OK)
                    rc = checkpoint(r, err, errlen);
                if (rc == TT_OK && progress && o->valid_path) {
                    TrainProgress p = {r->epoch, o->epochs, r->step, steps_total, 0,
                                       r->batches.n_batches, mean_loss, 0, secs, 0, &r->vlog, NULL,
                                       0, 0};
                    progress(ctx, &p);
                }
                if (rc == TT_OK && !stopping)
                    break; /* on to the next epoch, reshuffled */
            } else if (stopping || (o->checkpoint_every > 0 && r->n_log >= o->checkpoint_every)) {
                rc = checkpoint(r, err, errlen);
            }
            if (rc == TT_OK && stopping) {
                if (stop && *stop)
                    rc = TT_EINTR;
                goto done;
            }
        }
    }
done:
    /* The released file gives back the pages the moments took. */
    if (rc == TT_OK && o->release && r->epoch >= o->epochs)
        rc = store_vacuum(r->store, err, errlen);
    if (rc == TT_OK && progress) {
        /* The last report: where the run ended, after its last checkpoint. */
        TrainProgress p = {.epoch = r->epoch, .epochs = o->epochs, .step = r->step,
                           .steps_total = (long)r->batches.n_batches * o->epochs,
                           .final = 1};
        progress(ctx, &p);
    }
    if (r->store) {
        int crc = store_close(r->store, rc == TT_OK ? err : NULL, errlen);
        if (rc == TT_OK)
            rc = crc;
    }
    run_free(r);
    free(r);
    return rc;
}
