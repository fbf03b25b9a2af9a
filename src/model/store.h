/*
 * store.h — the model file: one SQLite database, format_version 1.
 *
 * The contract is written out in docs/model-format.md; in short:
 *   PRAGMA application_id = 1954116722 ("tytr"), PRAGMA user_version = 1
 *   meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
 *   vocab(lang, id, token, count)          lang 'src' | 'tgt', ids 0..V-1
 *   embedding(lang, id, vector BLOB)       one row per vocabulary entry, d_model float32 LE
 *   tensor(name TEXT PRIMARY KEY, shape TEXT, data BLOB)   float32 LE, row-major
 *
 * A model file is untrusted input: whoever wrote it, it must load only if it follows the
 * contract, and be refused with a message that says what is wrong otherwise. Reading
 * opens the file read-only (but for rolling back the journal a killed writer left, the
 * one time a reader writes) without following symbolic links, in SQLite's defensive mode
 * with triggers, views and untrusted schema functions off, bounds blob sizes, and runs
 * PRAGMA integrity_check before trusting anything.
 *
 * Writing happens in transactions (store_begin/store_commit), so a crash never leaves
 * half a model, in WAL journal mode. A new file is built under a temporary name beside
 * the target, unique to the process (PATH.PID.tmp), and renamed into place by
 * store_close (or store_publish) only after everything committed.
 *
 * One writer at a time: a WRITE store, and a CREATE or REPLACE store's new file, hold an
 * exclusive lock (flock) from open to close; opening another WRITE store on that file, or
 * a REPLACE store over it, fails at once with TT_EIO and a message naming the file.
 * Readers are not locked out.
 *
 * Errors: every function returns TT_OK or a negative code (TT_EMODEL for a file that
 * breaks the contract, TT_EIO for a file that cannot be read or written, TT_ENOMEM,
 * TT_EINVAL for a caller's mistake) and writes a message naming the file and the table,
 * row or tensor into err (errlen bytes, always NUL-terminated; err may be NULL).
 */
#ifndef TOYTRANS_STORE_H
#define TOYTRANS_STORE_H

#include "text/vocab.h"

#include <stddef.h>

#define STORE_APPLICATION_ID 1954116722 /* 0x74797472, "tytr" */
#define STORE_FORMAT_VERSION 1
#define STORE_FORMAT_NAME "toytrans-model"
#define STORE_MAX_BLOB (256 * 1024 * 1024) /* bytes one blob may hold */
#define STORE_BUSY_TIMEOUT_MS 5000        /* wait this long for another writer */
#define STORE_CHECKSUM_KEY "content_fnv1a64" /* meta key of the content checksum */

typedef struct Store Store;

typedef enum {
    STORE_READ = 0,   /* an existing model, read-only: inference */
    STORE_WRITE = 1,  /* an existing model, read-write: checkpoints */
    STORE_CREATE = 2, /* a new model: refuses to replace an existing file */
    STORE_REPLACE = 3 /* a new model that replaces any existing file on close */
} StoreMode;

/* Opens path. A READ store reads one snapshot of the file, from its first read to
 * store_close, in a read transaction: a file in rollback-journal mode cannot be written by
 * others meanwhile (they wait up to STORE_BUSY_TIMEOUT_MS), so close a reader soon.
 * READ and WRITE validate the file (SQLite, application_id, user_version,
 * integrity_check, tables, meta format); CREATE and REPLACE start an empty model with the
 * schema and format meta under a temporary name; CREATE fails with TT_EEXIST when path
 * exists (here, or when store_close would move the new file into place). *out is owned
 * by the caller (close with store_close) and NULL on failure. */
int store_open(Store **out, const char *path, StoreMode mode, char *err, size_t errlen);

/* Opens path as STORE_READ does, but without PRAGMA integrity_check, which reads the whole
 * file: the caller runs store_check_integrity on the store before it trusts or shows
 * anything read from it (model_load_file_unchecked). Where a later check of the opening
 * refuses the file, integrity_check does run, and a file it refuses gets its message (as
 * store_open would give). */
int store_open_unchecked(Store **out, const char *path, char *err, size_t errlen);

/* PRAGMA integrity_check, as store_open runs it: TT_OK (err untouched), TT_EMODEL with a
 * message naming what SQLite found damaged, or an SQLite failure's code. */
int store_check_integrity(Store *s, char *err, size_t errlen);

/* For a reader whose integrity_check was put off (store_open_unchecked) and whose later
 * reading failed with rc: store_check_integrity's status and message where it refuses
 * the file, which store_open would have said first; else rc, err as it was. */
int store_integrity_first(Store *s, int rc, char *err, size_t errlen);

/* Opens size bytes of data, the bytes of a model file, as STORE_READ opens a file: an
 * in-memory copy (data stays the caller's), read-only, with the same defences and the
 * same validation. name stands for the path in messages and store_path. For tests and
 * fuzzing, which have bytes rather than a file. *out as for store_open. */
int store_open_image(Store **out, const void *data, size_t size, const char *name, char *err,
                     size_t errlen);

/* Closes s; for a new model, moves the file into place if the last transaction
 * committed and removes it otherwise. Returns TT_OK or TT_EIO (err says why). NULL is
 * accepted. */
int store_close(Store *s, char *err, size_t errlen);

/* TT_OK when no writer holds path (or there is no file there), else TT_EIO with a
 * message naming it: for a caller that would write path after long work, to refuse at
 * once. Call it before this process opens path with SQLite. */
int store_check_writer(const char *path, char *err, size_t errlen);

/* Moves a new model (CREATE, REPLACE) whose contents committed into place, as
 * store_close does, and goes on as a WRITE store of that file without letting another
 * writer in between: the writer's lock (see store_open) is held throughout. On failure
 * s is still to be closed with store_close. */
int store_publish(Store *s, char *err, size_t errlen);

/* The path given to store_open. */
const char *store_path(const Store *s);

/* The database's size in bytes, page_count × page_size: all the file holds, so a bound
 * on what its contents can be. */
int store_size(Store *s, long long *bytes, char *err, size_t errlen);

/* The content checksum (docs/model-format.md, "Checksum"): FNV-1a 64 over the rows of
 * meta (but its own key), vocab, embedding and tensor in key order. store_commit writes
 * it into meta in every transaction it commits. store_verify_checksum recomputes it and
 * compares: TT_OK when they agree or the file has none (a writer need not write it),
 * TT_EMODEL when they differ (err says so), or an SQLite failure's code. */
int store_verify_checksum(Store *s, char *err, size_t errlen);

/* Transactions: everything written between begin and commit lands together or not at
 * all, the content checksum included. rollback undoes an open transaction (a no-op
 * without one). */
int store_begin(Store *s, char *err, size_t errlen);
int store_commit(Store *s, char *err, size_t errlen);
void store_rollback(Store *s);

/* meta: set replaces; get copies the value into buf (size bytes) and fails with
 * TT_EMODEL when the key is missing or the value does not fit. The typed getters also
 * check the value is a whole number in [min, max] or a finite real. */
int store_meta_set(Store *s, const char *key, const char *value, char *err, size_t errlen);
int store_meta_get(Store *s, const char *key, char *buf, size_t size, char *err, size_t errlen);
int store_meta_get_long(Store *s, const char *key, long min, long max, long *out, char *err,
                        size_t errlen);
int store_meta_get_double(Store *s, const char *key, double *out, char *err, size_t errlen);

/* *out = 1 if meta has key, else 0: for keys that older files lack. TT_OK, or a code and
 * a message naming the file. */
int store_meta_exists(Store *s, const char *key, int *out, char *err, size_t errlen);

/* The vocabulary of one side, "src" or "tgt". read checks ids are exactly 0..V-1 and the
 * first four are the specials. */
int store_vocab_write(Store *s, const char *lang, const Vocab *v, char *err, size_t errlen);
int store_vocab_read(Store *s, const char *lang, Vocab *out, char *err, size_t errlen);

/* The embedding table of one side: table (V, D) row-major. read fills a caller-owned
 * (V, D) table, checking one row per id 0..V-1, D floats per blob, all finite. */
int store_embedding_write(Store *s, const char *lang, const float *table, int V, int D,
                          char *err, size_t errlen);
int store_embedding_read(Store *s, const char *lang, float *table, int V, int D, char *err,
                         size_t errlen);

/* A named tensor of ndim (1 or 2) dimensions dims. write refuses (TT_EINVAL, err names
 * the tensor and index) data holding a NaN or an Inf, as embedding_write does. read
 * checks the stored shape equals dims, the blob holds exactly that many floats and all
 * are finite, then fills dst. */
int store_tensor_write(Store *s, const char *name, const int *dims, int ndim,
                       const float *data, char *err, size_t errlen);
int store_tensor_read(Store *s, const char *name, const int *dims, int ndim, float *dst,
                      char *err, size_t errlen);

/* Rebuilds the file without its free pages (SQLite's VACUUM), outside a transaction. The
 * one attached database VACUUM needs is allowed for its duration only. TT_OK, or a code
 * and a message naming the file. */
int store_vacuum(Store *s, char *err, size_t errlen);

/* *out = 1 if the file holds a tensor called name, else 0. TT_OK, or a code and a
 * message naming the file. */
int store_tensor_exists(Store *s, const char *name, int *out, char *err, size_t errlen);

/* Generic access, for modules that keep tables of their own in the model file (the
 * training history, history.c). They follow this file's rules: statements prepared on
 * store_db, every SQLite result code checked and turned into a toytrans code and message
 * by store_sql_error, writes inside the caller's store_begin/store_commit. */

struct sqlite3;

/* The connection of s, owned by s (valid until store_close). */
struct sqlite3 *store_db(Store *s);

/* Runs sql (one or more statements that return no rows). TT_OK, or a code and a message
 * naming the file and the statement. */
int store_exec(Store *s, const char *sql, char *err, size_t errlen);

/* Turns the SQLite result code sqlrc, met while doing what ("reading train_log"), into
 * TT_EMODEL, TT_EIO or TT_ENOMEM, with a message naming the file in err. */
int store_sql_error(Store *s, int sqlrc, const char *what, char *err, size_t errlen);

#endif
