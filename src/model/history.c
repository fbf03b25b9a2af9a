/*
 * history.c — the train_log and valid_log tables of a model file (see history.h).
 *
 * Both tables are described once, column by column, with each column's type and range.
 * That one description drives the CREATE, the INSERT and its checks, the SELECT and the
 * checks of every value read back, so a writer can never produce a row that its reader
 * refuses. Both tables share one shape of order rule: the first column is the key and
 * strictly increases, the second never decreases (train_log: step, then epoch;
 * valid_log: epoch, then step).
 */
#include "model/history.h"

#include "base/status.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One column: an integer (int64_t in the row struct) or a real (double). */
typedef struct {
    const char *name;
    int is_int;       /* 1: INTEGER, int64_t; 0: REAL, double */
    double min, max;  /* the accepted range, inclusive (an int64 fits exactly up to 2^53) */
    size_t offset;    /* of the field in the row struct */
} Column;

typedef struct {
    const char *name;     /* the table */
    const char *create;   /* CREATE TABLE IF NOT EXISTS, the contract's text */
    const char *select;   /* every column in Column order, ordered by the key */
    const char *insert;   /* ?1.. in Column order */
    const Column *cols;   /* cols[0] is the key */
    int n_cols;
    size_t row_size;
} Table;

#define BIG 9007199254740992.0 /* 2^53: every integer up to it is exact in a double */

static const Column TRAIN_COLS[] = {
    {"step", 1, 1, BIG, offsetof(TrainLogRow, step)},
    {"epoch", 1, 1, BIG, offsetof(TrainLogRow, epoch)},
    {"loss", 0, 0, HUGE_VAL, offsetof(TrainLogRow, loss)},
    {"lr", 0, 0, HUGE_VAL, offsetof(TrainLogRow, lr)},
    {"tokens", 1, 0, BIG, offsetof(TrainLogRow, tokens)},
    {"seconds", 0, 0, HUGE_VAL, offsetof(TrainLogRow, seconds)},
};

static const Column VALID_COLS[] = {
    {"epoch", 1, 1, BIG, offsetof(ValidLogRow, epoch)},
    {"step", 1, 0, BIG, offsetof(ValidLogRow, step)},
    {"loss", 0, 0, HUGE_VAL, offsetof(ValidLogRow, loss)},
    {"exact_match", 0, 0, 1, offsetof(ValidLogRow, exact_match)},
    {"seconds", 0, 0, HUGE_VAL, offsetof(ValidLogRow, seconds)},
};

static const Table TRAIN_LOG = {
    "train_log",
    "CREATE TABLE IF NOT EXISTS train_log(step INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, "
    "loss REAL NOT NULL, lr REAL NOT NULL, tokens INTEGER NOT NULL, seconds REAL NOT NULL);",
    "SELECT step, epoch, loss, lr, tokens, seconds FROM train_log ORDER BY step",
    "INSERT INTO train_log(step, epoch, loss, lr, tokens, seconds) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    TRAIN_COLS, 6, sizeof(TrainLogRow),
};

static const Table VALID_LOG = {
    "valid_log",
    "CREATE TABLE IF NOT EXISTS valid_log(epoch INTEGER PRIMARY KEY, step INTEGER NOT NULL, "
    "loss REAL NOT NULL, exact_match REAL NOT NULL, seconds REAL NOT NULL);",
    "SELECT epoch, step, loss, exact_match, seconds FROM valid_log ORDER BY epoch",
    "INSERT INTO valid_log(epoch, step, loss, exact_match, seconds) VALUES(?1, ?2, ?3, ?4, ?5)",
    VALID_COLS, 5, sizeof(ValidLogRow),
};

/* A column's value in a row struct, as a double (integers below 2^53 exactly). */
static double field_get(const void *row, const Column *c)
{
    const unsigned char *p = (const unsigned char *)row + c->offset;
    if (c->is_int) {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Describes the range of c for a message: "a whole number >= 1", "a finite number from 0
 * to 1". */
static void describe_range(const Column *c, char *buf, size_t size)
{
    if (c->max == HUGE_VAL || c->max == BIG)
        snprintf(buf, size, "a %s >= %g", c->is_int ? "whole number" : "finite number", c->min);
    else
        snprintf(buf, size, "a %s from %g to %g", c->is_int ? "whole number" : "finite number",
                 c->min, c->max);
}

/* TT_OK if v is in c's range (and finite), else a description of the fault in why. */
static int value_check(const Column *c, double v, char *why, size_t size)
{
    if (isfinite(v) && v >= c->min && v <= c->max)
        return TT_OK;
    char range[64];
    describe_range(c, range, sizeof range);
    if (isnan(v))
        snprintf(why, size, "%s is NaN, expected %s", c->name, range);
    else
        snprintf(why, size, "%s is %.17g, expected %s", c->name, v, range);
    return TT_EINVAL;
}

/* ---------------------------------------------------------------------------------------
 * Writing
 */

int history_create_tables(Store *s, char *err, size_t errlen)
{
    int rc = store_exec(s, TRAIN_LOG.create, err, errlen);
    if (rc == TT_OK)
        rc = store_exec(s, VALID_LOG.create, err, errlen);
    return rc;
}

/* Checks row against t's ranges, then inserts it. */
static int append_row(Store *s, const Table *t, const void *row, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!s || !row)
        return TT_EINVAL;
    char why[160];
    for (int i = 0; i < t->n_cols; i++)
        if (value_check(&t->cols[i], field_get(row, &t->cols[i]), why, sizeof why) != TT_OK) {
            tt_errf(err, errlen, "%s: %s: refusing a row whose %s", store_path(s), t->name, why);
            return TT_EINVAL;
        }
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(db, t->insert, -1, &st, NULL);
    for (int i = 0; i < t->n_cols && sqlrc == SQLITE_OK; i++) {
        const Column *c = &t->cols[i];
        const unsigned char *p = (const unsigned char *)row + c->offset;
        if (c->is_int) {
            int64_t v;
            memcpy(&v, p, sizeof v);
            sqlrc = sqlite3_bind_int64(st, i + 1, (sqlite3_int64)v);
        } else {
            double v;
            memcpy(&v, p, sizeof v);
            sqlrc = sqlite3_bind_double(st, i + 1, v);
        }
    }
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (sqlrc == SQLITE_DONE)
        return TT_OK;
    if ((sqlrc & 0xff) == SQLITE_CONSTRAINT) {
        /* The key is the only constraint a checked row can break. */
        tt_errf(err, errlen, "%s: %s: %s %.0f is already logged", store_path(s), t->name,
                t->cols[0].name, field_get(row, &t->cols[0]));
        return TT_EINVAL;
    }
    char what[64];
    snprintf(what, sizeof what, "writing %s", t->name);
    return store_sql_error(s, sqlrc, what, err, errlen);
}

int history_append_step(Store *s, const TrainLogRow *row, char *err, size_t errlen)
{
    return append_row(s, &TRAIN_LOG, row, err, errlen);
}

int history_append_epoch(Store *s, const ValidLogRow *row, char *err, size_t errlen)
{
    return append_row(s, &VALID_LOG, row, err, errlen);
}

/* ---------------------------------------------------------------------------------------
 * Reading
 */

/* Runs a query whose one row's first column is an integer, into *out. */
static int query_count(Store *s, const char *sql, const char *bind, int64_t *out, char *err,
                       size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL);
    if (sqlrc == SQLITE_OK && bind)
        sqlrc = sqlite3_bind_text(st, 1, bind, -1, SQLITE_STATIC);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st);
    int rc = TT_OK;
    if (sqlrc == SQLITE_ROW)
        *out = (int64_t)sqlite3_column_int64(st, 0);
    else
        rc = store_sql_error(s, sqlrc == SQLITE_DONE ? SQLITE_ERROR : sqlrc, sql, err, errlen);
    sqlite3_finalize(st);
    return rc;
}

/* Reads column i of the current row into row, checking its type and range. */
static int read_value(Store *s, const Table *t, sqlite3_stmt *st, int i, int n, void *row,
                      char *err, size_t errlen)
{
    const Column *c = &t->cols[i];
    unsigned char *p = (unsigned char *)row + c->offset;
    const int type = sqlite3_column_type(st, i);
    const int ok_type = type == SQLITE_INTEGER || (!c->is_int && type == SQLITE_FLOAT);
    if (!ok_type) {
        static const char *const NAMES[] = {"?", "an integer", "a real", "text", "a blob", "NULL"};
        tt_errf(err, errlen, "%s: %s row %d: %s is %s, expected %s", store_path(s), t->name, n,
                c->name, NAMES[type >= 1 && type <= 5 ? type : 0],
                c->is_int ? "an integer" : "a number");
        return TT_EMODEL;
    }
    double v;
    if (c->is_int) {
        int64_t x = (int64_t)sqlite3_column_int64(st, i);
        memcpy(p, &x, sizeof x);
        v = (double)x;
    } else {
        v = sqlite3_column_double(st, i);
        memcpy(p, &v, sizeof v);
    }
    char why[160];
    if (value_check(c, v, why, sizeof why) != TT_OK) {
        tt_errf(err, errlen, "%s: %s row %d: %s", store_path(s), t->name, n, why);
        return TT_EMODEL;
    }
    return TT_OK;
}

/* Reads every row of t into *rows (*n of them; NULL and 0 when the table is absent or
 * empty), checking values and order. */
static int read_table(Store *s, const Table *t, void **rows, int *n, char *err, size_t errlen)
{
    *rows = NULL;
    *n = 0;
    int64_t count = 0;
    /* A view under the table's name is never run (views are off): it is a malformed
     * history, as the writer, which cannot append to it, would find too. */
    int rc = query_count(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND "
                            "name = ?1", t->name, &count, err, errlen);
    if (rc == TT_OK && count > 0) {
        tt_errf(err, errlen, "%s: %s is a view, not a table", store_path(s), t->name);
        return TT_EMODEL;
    }
    if (rc == TT_OK)
        rc = query_count(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                            "name = ?1", t->name, &count, err, errlen);
    if (rc != TT_OK || count == 0)
        return rc;
    /* Prepared first, so that a table without the contract's columns is refused even
     * when it holds no rows. */
    sqlite3_stmt *st = NULL;
    unsigned char *buf = NULL;
    int got = 0;
    int sqlrc = sqlite3_prepare_v2(store_db(s), t->select, -1, &st, NULL);
    if (sqlrc != SQLITE_OK) {
        char what[64];
        snprintf(what, sizeof what, "reading %s", t->name);
        rc = store_sql_error(s, sqlrc, what, err, errlen);
        goto fail;
    }
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", t->name);
    if ((rc = query_count(s, sql, NULL, &count, err, errlen)) != TT_OK)
        goto fail;
    if (count > HISTORY_MAX_ROWS) {
        tt_errf(err, errlen, "%s: %s has %lld rows, more than the %d a reader accepts",
                store_path(s), t->name, (long long)count, HISTORY_MAX_ROWS);
        rc = TT_EMODEL;
        goto fail;
    }
    if (count == 0) {
        sqlite3_finalize(st);
        return TT_OK;
    }
    if (!(buf = calloc((size_t)count, t->row_size))) {
        rc = TT_ENOMEM;
        goto fail;
    }
    while (sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (got == count) {
            sqlrc = SQLITE_DONE; /* rows appeared under us: not inside one read transaction */
            break;
        }
        unsigned char *row = buf + (size_t)got * t->row_size;
        for (int i = 0; i < t->n_cols && rc == TT_OK; i++)
            rc = read_value(s, t, st, i, got + 1, row, err, errlen);
        if (rc != TT_OK)
            goto fail;
        if (got > 0) {
            const unsigned char *prev = row - t->row_size;
            const Column *key = &t->cols[0], *second = &t->cols[1];
            if (field_get(row, key) <= field_get(prev, key)) {
                tt_errf(err, errlen, "%s: %s row %d: %s %.0f does not follow %.0f",
                        store_path(s), t->name, got + 1, key->name, field_get(row, key),
                        field_get(prev, key));
                rc = TT_EMODEL;
                goto fail;
            }
            if (field_get(row, second) < field_get(prev, second)) {
                tt_errf(err, errlen, "%s: %s row %d (%s %.0f): %s %.0f is less than %.0f "
                                     "in the row before", store_path(s), t->name, got + 1,
                        key->name, field_get(row, key), second->name, field_get(row, second),
                        field_get(prev, second));
                rc = TT_EMODEL;
                goto fail;
            }
        }
        got++;
        sqlrc = SQLITE_OK;
    }
    if (sqlrc != SQLITE_DONE) {
        char what[64];
        snprintf(what, sizeof what, "reading %s", t->name);
        rc = store_sql_error(s, sqlrc, what, err, errlen);
        goto fail;
    }
    sqlite3_finalize(st);
    *rows = buf;
    *n = got;
    return TT_OK;
fail:
    sqlite3_finalize(st);
    free(buf);
    return rc;
}

int history_read(Store *s, TrainLogRow **steps, int *n_steps, ValidLogRow **epochs,
                 int *n_epochs, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!steps || !n_steps || !epochs || !n_epochs)
        return TT_EINVAL;
    *steps = NULL;
    *epochs = NULL;
    *n_steps = *n_epochs = 0;
    if (!s)
        return TT_EINVAL;
    /* One read transaction, so that both tables come from the same checkpoint even while
     * a training run commits new rows; a caller's open transaction already is one. */
    const int own_txn = sqlite3_get_autocommit(store_db(s));
    int rc = own_txn ? store_exec(s, "BEGIN", err, errlen) : TT_OK;
    void *train = NULL, *valid = NULL;
    int nt = 0, nv = 0;
    if (rc == TT_OK)
        rc = read_table(s, &TRAIN_LOG, &train, &nt, err, errlen);
    if (rc == TT_OK)
        rc = read_table(s, &VALID_LOG, &valid, &nv, err, errlen);
    if (own_txn && !sqlite3_get_autocommit(store_db(s))) {
        /* Nothing was written; ending a read transaction cannot lose anything. */
        int end = store_exec(s, "COMMIT", rc == TT_OK ? err : NULL, errlen);
        if (end != TT_OK)
            sqlite3_exec(store_db(s), "ROLLBACK", NULL, NULL, NULL);
        if (rc == TT_OK)
            rc = end;
    }
    if (rc != TT_OK) {
        free(train);
        free(valid);
        return rc;
    }
    *steps = train;
    *n_steps = nt;
    *epochs = valid;
    *n_epochs = nv;
    return TT_OK;
}
