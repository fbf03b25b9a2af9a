/*
 * settings.h — what a training run is asked to do: TrainOptions, the settings that define
 * a run (train_settings.h's table, one TrainSetting each), their defaults and parsing, and
 * the provenance rows a run records. train.h includes it for the library's callers.
 */
#ifndef TOYTRANS_TRAIN_SETTINGS_API_H
#define TOYTRANS_TRAIN_SETTINGS_API_H

#include "model/config.h"
#include "model/model.h"
#include "model/store.h"
#include "train/train_settings.h"

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

/* ---------------------------------------------------------------------------------------
 * Inside train/: what the run does with the settings
 */

/* 1 when every setting of o lies in its range (a caller other than the CLI may pass
 * anything), else 0. */
int train_settings_valid(const TrainOptions *o);

/* Writes every setting of o into meta, inside the caller's transaction. */
int train_settings_write(Store *store, const TrainOptions *o, char *err, size_t errlen);

/* A resumed run's settings from store's meta into o, by each setting's rule (train.h):
 * a given value that differs from a recorded one it must keep is TT_EINVAL, a recorded
 * one that is no value of its setting TT_EMODEL, err saying which. */
int train_settings_resume(TrainOptions *o, Store *store, char *err, size_t errlen);

#endif
