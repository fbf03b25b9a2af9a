/*
 * run.h — a training run's state and the functions that share it, inside train/ (train.h
 * is the library's interface): the loop (train.c) and the file and its checkpoints
 * (checkpoint.c). The data is data.h's, the settings settings.h's.
 */
#ifndef TOYTRANS_TRAIN_RUN_H
#define TOYTRANS_TRAIN_RUN_H

#include "base/pool.h"
#include "model/history.h"
#include "model/model.h"
#include "model/store.h"
#include "train/backprop.h"
#include "train/data.h"
#include "train/optim.h"
#include "train/progress.h"
#include "train/settings.h"

#include <signal.h>
#include <stddef.h>
#include <time.h>

/* A batch is computed as TRAIN_PARTS parts side by side, each a batch of its own on one
 * thread (or its own share of threads), with its own activations and gradient block; the
 * blocks are added in part order afterwards. A step then waits for the other thread once
 * (at the end of the parts), not at the end of each of the layers' 80 loops; with the
 * parts fixed in number, the sums do not depend on the thread count. */
#define TRAIN_PARTS 2
_Static_assert(TRAIN_PARTS >= 1 && TRAIN_PARTS <= 2,
               "optim_grads_scale joins at most two blocks");

typedef struct Run {
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
    Backprop bp[TRAIN_PARTS]; /* each part's passes, sized for the longest pair of either
                                * corpus */
    TrainPair *pairs;  /* (batch) the current batch's pairs */
    float *grads[TRAIN_PARTS]; /* (n_params) each part's gradient; [0] the batch's after
                                 * optim_grads_scale */
    double *partial;   /* (optim_chunks(n_params)) optim_grads_scale's scratch */
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
    /* This process's part of the run, for the progress reports. */
    long steps_run;    /* optimiser steps */
    double tokens_run; /* target tokens */
    double flops_run;  /* model FLOPs (backprop_pair_flops) */
    double last_loss;  /* the last step's mean loss per token */
    double last_secs;  /* seconds of this process at the last step's end */
} Run;

/* Seconds since this process's part of the run began (r->t0). */
static inline double run_seconds(const Run *r)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) * 1e-9;
}

/* ---------------------------------------------------------------------------------------
 * The file (checkpoint.c)
 */

/* A new run's model in memory: vocabularies counted from the corpus, weights drawn from
 * the seed. */
int train_run_start_new(Run *r, volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Creates a new run's file, complete (a checkpoint at step 0) or not at all, once every
 * input has been read and checked; r->store is then its writer. */
int train_run_new_file(Run *r, char *err, size_t errlen);

/* Opens a resumed run's file as its writer and reads its model, position and settings
 * (r->opt takes the recorded ones; train_settings_resume). */
int train_run_start_resume(Run *r, char *err, size_t errlen);

/* The resumed position lies inside an epoch of the corpus just read (TT_EMODEL if not). */
int train_run_check_position(const Run *r, char *err, size_t errlen);

/* Says in a note to progress when a resumed run's corpus is not the one it started with. */
void train_run_note_other_corpus(const Run *r, TrainProgressFn progress, void *ctx);

/* A resumed run's AdamW moments into r->m1 and r->m2: a file saved for release has none
 * (TT_EINVAL), a negative second moment is refused (TT_EMODEL). */
int train_run_read_moments(Run *r, char *err, size_t errlen);

/* One SQLite transaction: the weights, the moments (none in a release's last one), the
 * position, the time, the history since the last checkpoint. A NaN or Inf anywhere is
 * TT_EDIVERGED and nothing is written: the last good checkpoint stays. */
int train_run_checkpoint(Run *r, char *err, size_t errlen);

#endif
