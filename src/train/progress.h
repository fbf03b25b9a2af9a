/*
 * progress.h — what a training run reports as it goes, to its caller's callback: the
 * step, the loss, the speed, an epoch's validation, a note for a person, the last report.
 */
#ifndef TOYTRANS_TRAIN_PROGRESS_H
#define TOYTRANS_TRAIN_PROGRESS_H

#include "model/history.h"

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

#endif
