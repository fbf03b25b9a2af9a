/*
 * train.c — the training run: its loop around backprop.c's forward and backward passes
 * and optim.c's AdamW step, with the learning-rate schedule and validation. The data is
 * data.c's, the file and its checkpoints checkpoint.c's, the settings settings.c's.
 *
 * Threads: a batch is computed as TRAIN_PARTS parts side by side, each a (B·T)-row batch
 * (net.h) with its own passes and gradient block on a thread of its own; further threads
 * share each part's layers in tasks fixed by its shape (pool.h). Every sum is taken in an
 * order that the threads do not change, so a run gives the same bits for any thread
 * count.
 */
#include "train/train.h"

#include "base/status.h"
#include "model/config.h"
#include "text/tokenizer.h"
#include "text/vocab.h"
#include "train/run.h"
#include "translate/decode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------
 * A batch in parts
 */

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
    Backprop *t = &r->bp[k];
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
 * loss into the parts' blocks r->grads (zeroed first: optim_grads_scale leaves every block but
 * the first zero), its loss into *loss and its target tokens into *tokens. */
static int run_batch(Run *r, int n, double *loss, long *tokens)
{
    optim_grads_zero(r->grads[0], r->m.n_params, r->pool);
    int rc = run_parts(r, n, 1, loss);
    if (rc != TT_OK)
        return rc;
    long tok = 0;
    for (int i = 0; i < n; i++)
        tok += r->pairs[i].n_tgt + 1;
    *tokens = tok;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Validation
 */

static int validate(Run *r, ValidLogRow *row, char *err, size_t errlen)
{
    const Model *m = &r->m;
    double loss = 0.0;
    long tokens = 0, exact = 0;
    Search dec = {0};
    Translation t = {0};
    int rc = TT_OK;
    if (r->o->validate_exact) {
        rc = decode_init(&dec, m, 1);
        if (rc == TT_OK)
            rc = decode_pack(&dec);
        if (rc == TT_OK)
            rc = translation_init(&t, m, 0);
    }
    /* The loss: batches of the run's size in file order, without dropout (validation
     * measures the model itself). */
    for (int i0 = 0; rc == TT_OK && i0 < r->valid.n; i0 += r->batch) {
        const int n = r->valid.n - i0 < r->batch ? r->valid.n - i0 : r->batch;
        train_pairs_fill(r->pairs, &r->valid, NULL, i0, n, 0, 0);
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
    decode_free(&dec);
    if (rc != TT_OK) {
        snprintf(err, errlen, "validation: %s", status_message(rc));
        return rc;
    }
    row->epoch = r->epoch;
    row->step = r->step;
    row->loss = tokens ? loss / (double)tokens : 0.0;
    row->exact_match = r->valid.n ? (double)exact / r->valid.n : 0.0;
    row->seconds = r->seconds0 + run_seconds(r);
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The run
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
        backprop_free(&r->bp[k]);
        pool_close(r->part_pool[k]);
    }
    pool_close(r->pool);
    free(r->log);
    free(r->m2);
    free(r->m1);
    train_batches_free(&r->batches);
    train_pairs_free(&r->valid);
    train_pairs_free(&r->train);
    model_free(&r->m);
}

/* Sets r up for its first step (or a resumed run's next): the file checked, the model
 * new or resumed, the corpora read, the batches, the moments, each part's passes and
 * gradient block, and a new run's file written. Whatever fails, r holds what was made
 * so far, for run_close. */
static int run_open(Run *r, const TrainOptions *o, TrainProgressFn progress, void *ctx,
                    volatile sig_atomic_t *stop, char *err, size_t errlen)
{
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
    if (rc != TT_OK)
        return rc;
    if (!o->resume && r->opt.threads == 0)
        r->opt.threads = 1;
    rc = o->resume ? train_run_start_resume(r, err, errlen)
                   : train_run_start_new(r, stop, err, errlen);
    if (r->opt.threads == 0)
        r->opt.threads = 1; /* a resume of a file that records none */
    r->batch = o->batch;
    r->adam = (AdamConfig){o->adam_beta1, o->adam_beta2, o->adam_eps, o->weight_decay};
    if (rc == TT_OK)
        rc = train_pairs_load(&r->train, o->train_path, &r->m, 0, o->skip_bad_lines, stop, progress,
                              ctx, err, errlen);
    if (rc == TT_OK &&
        (rc = train_pairs_augment_names(&r->train, &r->m, o->name_augment, o->seed)) != TT_OK)
        snprintf(err, errlen, "%s", status_message(rc));
    if (rc == TT_OK && o->valid_path)
        rc = train_pairs_load(&r->valid, o->valid_path, &r->m, 1, o->skip_bad_lines, stop, progress,
                              ctx, err, errlen);
    if (rc == TT_OK && r->train.n == 0) {
        snprintf(err, errlen, "%s: no pairs fit the model's max_len", o->train_path);
        rc = TT_EINPUT;
    }
    if (rc == TT_OK)
        rc = train_batches_make(&r->batches, &r->train, r->batch);
    if (rc == TT_OK && o->resume)
        rc = train_run_check_position(r, err, errlen);
    if (rc == TT_OK && o->resume)
        train_run_note_other_corpus(r, progress, ctx);
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
    if (rc == TT_OK && o->resume)
        rc = train_run_read_moments(r, err, errlen);
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
                rc = backprop_init(&r->bp[k], &r->m, part_cap, max_src, max_tgt, o->dropout,
                                   r->part_pool[k]);
            /* Zero: a part's block is added into, and optim_grads_scale leaves it zero. */
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
        rc = train_run_new_file(r, err, errlen);
    if (rc == TT_OK && !o->resume)
        rc = train_run_checkpoint(r, err, errlen);
    return rc;
}

/* The steps of the whole run, every epoch's batches. */
static long run_steps_total(const Run *r)
{
    return (long)r->batches.n_batches * r->o->epochs;
}

/* One optimiser step on the epoch's next batch: its gradient, checked finite before
 * anything changes (TT_EDIVERGED, the last checkpoint kept), clipped, AdamW, the history's
 * row and the progress report. */
static int run_step(Run *r, TrainProgressFn progress, void *ctx, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    const size_t n = r->m.n_params;
    float *grads = r->grads[0];
    const int b = r->batches.perm[r->batch_pos];
    const int job_n = r->batches.start[b + 1] - r->batches.start[b];
    train_pairs_fill(r->pairs, &r->train, r->batches.order + r->batches.start[b], 0, job_n, o->seed,
                     r->step);
    double loss = 0;
    long tokens = 0;
    int rc = run_batch(r, job_n, &loss, &tokens);
    if (rc != TT_OK) {
        snprintf(err, errlen, "step %ld: %s", r->step + 1, status_message(rc));
        return rc;
    }
    /* Mean per token; then the norm, checked before anything is changed. */
    const double norm2 = optim_grads_scale(grads, TRAIN_PARTS > 1 ? r->grads[1] : NULL, n,
                                           1.0f / (float)tokens, r->partial, r->pool);
    const double mean_loss = loss / (double)tokens;
    if (!isfinite(mean_loss) || !isfinite(norm2)) {
        snprintf(err, errlen, "step %ld: the %s is %s; stopped before the optimiser "
                              "step, the last checkpoint (step %ld) is kept",
                 r->step + 1, isfinite(mean_loss) ? "gradient norm" : "loss",
                 isnan(isfinite(mean_loss) ? norm2 : mean_loss) ? "NaN" : "infinite",
                 r->step - (long)r->n_log);
        return TT_EDIVERGED;
    }
    const double norm = sqrt(norm2);
    const float gscale = o->clip > 0 && norm > o->clip ? (float)(o->clip / norm) : 1.0f;
    r->step++;
    const float lr = schedule(o, r->step, run_steps_total(r));
    optim_adamw_update(r->m.params, grads, gscale, r->m1, r->m2, r->m.specs, r->m.n_specs, &r->adam,
                       lr, r->step, r->pool);
    r->batch_pos++;
    r->steps_run++;
    r->tokens_run += (double)tokens;
    for (int i = 0; i < job_n; i++)
        r->flops_run += backprop_pair_flops(&r->m.config, r->m.tgt_vocab.size,
                                            r->pairs[i].n_src + 1, r->pairs[i].n_tgt + 1);
    const double secs = run_seconds(r);
    r->log[r->n_log++] = (TrainLogRow){r->step, r->epoch + 1, mean_loss, lr, tokens,
                                       r->seconds0 + secs};
    r->last_loss = mean_loss;
    r->last_secs = secs;
    if (progress) {
        const double tps = r->tokens_run / (secs > 0 ? secs : 1e-9);
        const double per_step = secs / (double)r->steps_run;
        TrainProgress p = {r->epoch + 1, o->epochs, r->step, run_steps_total(r), r->batch_pos,
                           r->batches.n_batches, mean_loss, tps, secs,
                           per_step * (double)(run_steps_total(r) - r->step), NULL, NULL, 0,
                           r->flops_run / (secs > 0 ? secs : 1e-9)};
        progress(ctx, &p);
    }
    return TT_OK;
}

/* The end of an epoch: validation (with --valid), a checkpoint, and the epoch's report. */
static int run_epoch_end(Run *r, TrainProgressFn progress, void *ctx, char *err, size_t errlen)
{
    const TrainOptions *o = r->o;
    int rc = TT_OK;
    r->epoch++;
    r->batch_pos = 0;
    if (o->valid_path) {
        rc = validate(r, &r->vlog, err, errlen);
        r->have_vlog = rc == TT_OK;
    }
    if (rc == TT_OK)
        rc = train_run_checkpoint(r, err, errlen);
    if (rc == TT_OK && progress && o->valid_path) {
        TrainProgress p = {r->epoch, o->epochs, r->step, run_steps_total(r), 0,
                           r->batches.n_batches, r->last_loss, 0, r->last_secs, 0, &r->vlog,
                           NULL, 0, 0};
        progress(ctx, &p);
    }
    return rc;
}

/* The run's end, however it ended (rc): a completed --release run's file gives back the
 * pages the moments took, the last report says where the run stopped, the file is closed
 * and r freed. Returns rc, or the first failure of these. */
static int run_close(Run *r, int rc, TrainProgressFn progress, void *ctx, char *err,
                     size_t errlen)
{
    const TrainOptions *o = r->o;
    if (rc == TT_OK && o->release && r->epoch >= o->epochs)
        rc = store_vacuum(r->store, err, errlen);
    if (rc == TT_OK && progress) {
        /* The last report: where the run ended, after its last checkpoint. */
        TrainProgress p = {.epoch = r->epoch, .epochs = o->epochs, .step = r->step,
                           .steps_total = run_steps_total(r), .final = 1};
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

int train_run(const TrainOptions *o, TrainProgressFn progress, void *ctx,
              volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    if (!o->out_path || (!o->train_path && !o->resume) || o->threads < 0 ||
        o->threads > TRAIN_MAX_THREADS || !train_settings_valid(o)) {
        snprintf(err, errlen, "invalid training options");
        return TT_EINVAL;
    }
    Run *r = calloc(1, sizeof *r);
    if (!r)
        return TT_ENOMEM;
    int rc = run_open(r, o, progress, ctx, stop, err, errlen);
    o = r->o; /* the options in effect */
    int stopped = 0;
    while (rc == TT_OK && !stopped && r->epoch < o->epochs) {
        train_batches_shuffle(&r->batches, o->seed, r->epoch);
        while (rc == TT_OK && !stopped && r->batch_pos < r->batches.n_batches) {
            /* A signal that came before this step (while the data was read, or during an
             * epoch's validation) stops the run here; the last checkpoint holds every
             * step done, so there is nothing more to save. */
            if (stop && *stop) {
                if (r->n_log > 0)
                    rc = train_run_checkpoint(r, err, errlen);
                if (rc == TT_OK)
                    rc = TT_EINTR;
                break;
            }
            rc = run_step(r, progress, ctx, err, errlen);
            if (rc != TT_OK)
                break;
            stopped = (stop && *stop) || (o->stop_after && r->steps_run >= o->stop_after);
            const int epoch_done = r->batch_pos == r->batches.n_batches;
            if (epoch_done)
                rc = run_epoch_end(r, progress, ctx, err, errlen);
            else if (stopped || (o->checkpoint_every > 0 && r->n_log >= o->checkpoint_every))
                rc = train_run_checkpoint(r, err, errlen);
            if (rc == TT_OK && stopped && stop && *stop)
                rc = TT_EINTR;
            if (epoch_done)
                break; /* on to the next epoch, reshuffled */
        }
    }
    return run_close(r, rc, progress, ctx, err, errlen);
}
