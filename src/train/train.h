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

#include "train/progress.h"
#include "train/settings.h"

#include <signal.h>
#include <stddef.h>

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
