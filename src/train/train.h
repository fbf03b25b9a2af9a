/*
 * train.h — a whole training run: data, batches, schedule, threads, validation,
 * checkpoints and resumption.
 *
 * The folder train/ teaches the model: one batch's passes (backprop.h), AdamW (optim.h)
 * and this run, split inside the folder into its data (data.h), settings, checkpoints
 * and loop (run.h). It stands on translate/ (validation decodes), nn/, model/, text/ and
 * base/. docs/design.md lists the folders and their modules.
 *
 * Determinism: for the same corpus, options and seed, a run computes the same bits with
 * any thread count, on any machine with IEEE float32, the same build of the kernels and
 * the same libm (exp/log/sqrt/pow), and a run interrupted and resumed computes exactly
 * what an uninterrupted run does: the data order is a function of (seed, epoch), and the
 * checkpoint holds the weights, the AdamW moments, the step and the position in the
 * epoch. A batch is computed as two halves side by side, a thread each (any further
 * threads share each half's layers in tasks fixed by its shape, net.h).
 *
 * Checkpoints: every checkpoint is one SQLite transaction in WAL mode holding the weights,
 * the optimiser state (tensors optim.m and optim.v), the position (meta train_step,
 * train_epoch, train_batch) and the history rows since the previous checkpoint. A process
 * killed at any moment leaves the previous checkpoint readable.
 *
 * Settings: the values that define a run (TrainSetting: epochs, batch size, learning rate,
 * warm-up, label smoothing, dropout, name augmentation, weight decay, AdamW's betas and
 * epsilon, clipping, seed) are recorded in meta (train_*) when the file is created. A
 * resumed run reads them back: one not given (TrainOptions.given) is the file's, one
 * given must equal the file's, except the epochs, which may extend the run. So a resume
 * with no settings at all continues exactly the run that was stopped. A file written
 * before a key was recorded ran with the value of the option (given or default), except
 * AdamW's, which ran with 0.9, 0.98 and 1e-9.
 *
 * A resumed run records itself in its first checkpoint: meta train_resumes gains a line
 * "UTC-TIME  epochs E, threads T  COMMAND" with the epochs and threads it runs with, and
 * the settings in effect (a longer --epochs, --threads, a key the file lacked) are
 * written. Threads change no result, only the time: a resume not given them takes the
 * run's.
 */
#ifndef TOYTRANS_TRAIN_H
#define TOYTRANS_TRAIN_H

#include "model/config.h"
#include "model/history.h"
#include "model/model.h"
#include "train/train_settings.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define TRAIN_MAX_THREADS 64
#define TRAIN_DEFAULT_BATCH 32
#define TRAIN_MAX_BATCH 100000

/* The settings that define a run, each a field of TrainOptions and a meta key: one row
 * each in train_settings.h (TRAIN_EPOCHS, TRAIN_BATCH, TRAIN_LR, ...). */
typedef enum {
#define TRAIN_SETTING_ENUM(NAME, ...) TRAIN_##NAME,
    TRAIN_SETTINGS(TRAIN_SETTING_ENUM)
#undef TRAIN_SETTING_ENUM
    TRAIN_N_SETTINGS
} TrainSetting;

/* The bit of TrainOptions.given for a setting. */
#define TRAIN_GIVEN(setting) (1u << (setting))

typedef struct {
    const char *train_path;   /* corpus: source TAB target; NULL for a resume: the run's
                                 (meta train_corpus), and then valid_path NULL the run's
                                 too (train_valid) */
    const char *valid_path;   /* validation corpus, or NULL */
    const char *lexicon_path; /* the lexicon the corpus was generated from, or NULL: its
                                 FNV-1a 64 is recorded (train_lexicon_fnv1a64), which lets
                                 the translator check the grammar (translator.h) */
    const char *phrasebook_path; /* the phrasebook the corpus was generated with, or NULL:
                                    its FNV-1a 64 is recorded (MODEL_PHRASEBOOK_KEY) */
    const char *out_path;     /* the model file */
    const char *command;      /* the command line, for provenance */
    const char *created_by;   /* the tool and its version, for provenance ("toytrans 0.1.0
                                 train"); NULL: "toytrans train" */
    ModelConfig config;       /* for a new model */
    long min_count;           /* vocabulary threshold for a new model */
    int epochs;               /* total epochs (a resumed run continues up to this) */
    int batch;                /* sentences per batch, 1..TRAIN_MAX_BATCH */
    float lr;                 /* peak learning rate */
    int warmup;               /* linear warm-up steps; then cosine decay to lr/10 */
    float label_smoothing;    /* 0..1 */
    float dropout;            /* 0..<1, see backprop.h */
    float name_augment;       /* 0..1: fraction of pairs with names added with <unk> (data.c) */
    float weight_decay;       /* AdamW */
    float adam_beta1;         /* AdamW's first-moment decay, 0..<1 (default 0.9) */
    float adam_beta2;         /* AdamW's second-moment decay, 0..<1 (default 0.98) */
    float adam_eps;           /* AdamW's denominator term, > 0 (default 1e-9) */
    float clip;               /* gradient-norm clipping threshold; 0 for none */
    uint64_t seed;
    int threads;              /* 1..TRAIN_MAX_THREADS; 0 (the default): a new run's 1, a
                                 resumed run's recorded train_threads (else 1) */
    unsigned given;           /* TRAIN_GIVEN(s) for each setting s the user gave: a resumed
                                 run takes the others from its file (see above) */
    int resume;               /* continue the run stored in out_path */
    int force;                /* replace out_path for a new run */
    int skip_bad_lines;       /* malformed corpus lines: skip each with a note to the
                                 progress callback (else stop) */
    long stop_after;          /* stop (with a checkpoint) after this many steps; 0: no */
    int checkpoint_every;     /* steps between checkpoints (and at every epoch's end); 0:
                                 only at epochs' ends and when stopping */
    int release;              /* the last checkpoint of a completed run drops the AdamW
                                 moments (optim.m, optim.v): the file then holds what
                                 translation needs and can no longer be resumed */
    int validate_exact;       /* decode the validation set greedily for exact match */
} TrainOptions;

void train_options_defaults(TrainOptions *o);

/* Parses text as the value of setting s into o's field (o->given is the caller's). Its
 * range is checked as the type the value is used as: 0.9999999999 is not a beta, since
 * as a float it is 1. TT_OK, or TT_EINVAL with o unchanged and err saying what is wrong
 * ("'abc' is not a number from 0 to 0.9"); a command line and a file's meta share it. */
int train_setting_parse(TrainOptions *o, TrainSetting s, const char *text, char *err,
                        size_t errlen);

/* The provenance keys a training run records in meta (train_command, the corpus and its
 * checksum, every setting, the time and steps done), and those other trainers write
 * (train_engine, train_world_size), in the order info shows them after
 * model_provenance_keys'. *n receives the length; static storage, not to be freed. */
const ProvKey *train_provenance_keys(int *n);

/* Setting s's command-line option ("--lr") and meta key ("train_lr"). */
const char *train_setting_option(TrainSetting s);
const char *train_setting_key(TrainSetting s);

/* What the run reports as it goes, to its caller's callback. */
typedef struct {
    int epoch, epochs;        /* 1-based current epoch, total */
    long step, steps_total;   /* optimiser steps done, planned */
    long batch, batches;      /* position within the epoch */
    double loss;              /* last step's mean loss per token */
    double tokens_per_second; /* target tokens, over the run so far */
    double seconds;           /* wall clock of this run */
    double eta_seconds;       /* remaining, at the current speed */
    const ValidLogRow *valid; /* set at the end of an epoch, else NULL */
    const char *note;         /* a one-line message for a person (a malformed corpus line
                                 skipped, …), or NULL; a report with a note carries nothing
                                 else (every other field 0 or NULL). The library prints
                                 nothing itself: notes reach the user only through this */
    int final;                /* 1 on the run's last report, after its last checkpoint:
                                 step < steps_total then means it stopped early */
    double flops_per_second;  /* model FLOPs (backprop_pair_flops), over the run so far */
} TrainProgress;

typedef void (*TrainProgressFn)(void *ctx, const TrainProgress *p);

/* Runs training. stop is polled before and after every step (signal handlers set it):
 * the step in flight finishes, a checkpoint commits, and the run returns TT_EINTR. It
 * is polled while the corpora are read too: then the read stops at once and the run
 * returns TT_EINTR with err saying so, nothing written (a resumed file as it was). A
 * resumed run keeps the settings it was started with: a given setting other than the
 * file's (the epochs aside) is TT_EINVAL naming both, and a recorded setting, or a saved
 * position (train_step, train_epoch, train_batch), out of range, or a position beyond
 * this corpus's batches, is TT_EMODEL naming the key and its value. A NaN or Inf in
 * the loss or the gradients stops the run before the optimiser step with TT_EDIVERGED;
 * nothing of that step is committed. Other failures: TT_EINPUT (corpus), TT_EMODEL,
 * TT_EIO, TT_ENOMEM, TT_EINVAL — err says what. */
int train_run(const TrainOptions *o, TrainProgressFn progress, void *ctx,
              volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
