/*
 * history.h — the training history a model file keeps: one row per logged optimiser
 * step, one row per epoch's validation.
 *
 * Two optional tables of the model file (docs/model-format.md, "Training history"):
 *
 *   train_log(step INTEGER PRIMARY KEY, epoch, loss, lr, tokens, seconds)
 *   valid_log(epoch INTEGER PRIMARY KEY, step, loss, exact_match, seconds)
 *
 * Training writes them in the same transactions as its checkpoints, so the history and
 * the weights of a file always agree. A model that was never trained has neither table,
 * which reads as an empty history; `toytrans info` and `toytrans plot` show it.
 *
 * The file is untrusted input, so history_read checks every value it hands out (types,
 * finiteness, ranges, order) and the appenders refuse to write a row the reader would
 * refuse.
 *
 * Errors: TT_OK or a negative code of status.h, with a message naming the file, the table
 * and the row in err (errlen bytes, always NUL-terminated; err may be NULL).
 */
#ifndef TOYTRANS_HISTORY_H
#define TOYTRANS_HISTORY_H

#include "model/store.h"

#include <stddef.h>
#include <stdint.h>

#define HISTORY_MAX_ROWS 50000000 /* rows one table may hold before a reader refuses it */

/* One logged optimiser step. */
typedef struct {
    int64_t step;   /* >= 1; strictly increasing from row to row */
    int64_t epoch;  /* >= 1; never decreasing from row to row */
    double loss;    /* mean cross-entropy per target token of the step's batch; finite, >= 0 */
    double lr;      /* the learning rate used; finite, >= 0 */
    int64_t tokens; /* target tokens in the batch, >= 0 */
    double seconds; /* wall-clock training time since the run began, cumulative across
                       resumes; finite, >= 0 */
} TrainLogRow;

/* One epoch's validation. */
typedef struct {
    int64_t epoch;      /* >= 1; strictly increasing from row to row */
    int64_t step;       /* the last optimiser step of the epoch, >= 0 */
    double loss;        /* mean validation cross-entropy per target token; finite, >= 0 */
    double exact_match; /* fraction of validation sentences translated exactly, 0..1 */
    double seconds;     /* as TrainLogRow.seconds */
} ValidLogRow;

/* Creates both tables if they do not exist (CREATE TABLE IF NOT EXISTS), inside the
 * caller's transaction. s must be open for writing. */
int history_create_tables(Store *s, char *err, size_t errlen);

/* Appends one row, inside the caller's transaction, after history_create_tables. A row
 * that breaks the ranges above, or whose step (epoch) is already logged, is refused:
 * TT_EINVAL, or the store's code for a file that cannot be written. Order between calls
 * is not checked here; history_read checks it. */
int history_append_step(Store *s, const TrainLogRow *row, char *err, size_t errlen);
int history_append_epoch(Store *s, const ValidLogRow *row, char *err, size_t errlen);

/* Reads both tables in one read transaction (unless the caller has one open): *steps
 * receives *n_steps rows in step order, *epochs *n_epochs rows in epoch order; both
 * arrays are owned by the caller (free()) and NULL when there are no rows. A table that
 * does not exist reads as zero rows. A value of the wrong type (NULL, text, blob), a
 * non-finite or out-of-range number, a step or epoch out of order: TT_EMODEL naming the
 * table and row. On any failure both arrays are NULL and both counts 0. */
int history_read(Store *s, TrainLogRow **steps, int *n_steps, ValidLogRow **epochs,
                 int *n_epochs, char *err, size_t errlen);

#endif
