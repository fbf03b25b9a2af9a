/*
 * checkpoint.c — a training run's file: the new run's model and file, a checkpoint (one
 * SQLite transaction holding the weights, AdamW's moments, the position and the history
 * since the last one), and a resumed run's state read back and checked.
 */
#include "train/run.h"

#include "base/fnv.h"
#include "base/rng.h"
#include "base/status.h"
#include "model/history.h"
#include "model/store.h"
#include "text/vocab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The most bytes train_resumes keeps: the oldest lines go first. */
#define TRAIN_RESUMES_MAX 8192

/* In the transaction of a resumed run's first checkpoint: appends "UTC-TIME  epochs E,
 * threads T  COMMAND" to meta train_resumes, and records the settings now in effect (a
 * longer --epochs, the threads, and any key a file from before it was recorded gains
 * here). */
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
        rc = train_settings_write(r->store, o, err, errlen);
    char buf[32];
    snprintf(buf, sizeof buf, "%d", o->threads);
    if (rc == TT_OK)
        rc = store_meta_set(r->store, "train_threads", buf, err, errlen);
    free(all);
    free(old);
    return rc;
}

int train_run_checkpoint(Run *r, char *err, size_t errlen)
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
    snprintf(buf, sizeof buf, "%.3f", r->seconds0 + run_seconds(r));
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
 * Setting up: a new model or a resumed one
 */

/* The model of a new run, in memory: vocabularies from the corpus, random weights. */
int train_run_start_new(Run *r, volatile sig_atomic_t *stop, char *err, size_t errlen)
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
int train_run_new_file(Run *r, char *err, size_t errlen)
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
        rc = train_settings_write(s, o, err, errlen);
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

/* Reads the position and the settings of a resumed run. Every position key is
 * range-checked by store_meta_get_long, whose message names the key and its value; the
 * batch position is checked against the epoch's batches once the corpus is read
 * (train_run). */
int train_run_start_resume(Run *r, char *err, size_t errlen)
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
        rc = train_settings_resume(&r->opt, r->store, err, errlen);
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
int train_run_check_position(const Run *r, char *err, size_t errlen)
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
void train_run_note_other_corpus(const Run *r, TrainProgressFn progress, void *ctx)
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
    train_note(progress, ctx, note);
}

/* A resumed run's AdamW moments (optim.m, optim.v) into r->m1 and r->m2. */
int train_run_read_moments(Run *r, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    const size_t n = r->m.n_params;
    const int dims[1] = {(int)n};
    int have = 0;
    int rc = store_tensor_exists(r->store, "optim.m", &have, err, errlen);
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
    return rc;
}
