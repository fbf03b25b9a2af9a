/*
 * store.c — reading and writing the SQLite model file (see store.h and
 * docs/model-format.md).
 *
 * Every statement follows prepare_v2 → bind → step → finalize with each result code
 * checked; a failure becomes one message that names the file and what was being read.
 * Floats are stored little-endian whatever the host's byte order.
 *
 * One writer per model: a writer holds flock(2) on the file it writes (an existing model,
 * or the new file under its temporary name, whose inode the rename carries to the
 * path) from open to close, and a store that would write or replace a locked file is
 * refused at once. flock, not fcntl: SQLite's own locks are fcntl locks of this process,
 * which another descriptor's fcntl lock would merge with and which any close of the file
 * would drop; flock locks are apart from them.
 */
#define _DEFAULT_SOURCE /* flock(2) */
#include "model/store.h"

#include "base/fnv.h"
#include "base/mem.h"
#include "base/status.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct Store {
    sqlite3 *db;
    StoreMode mode;
    char *path;      /* as given, owned */
    char *tmp_path;  /* the file being built (CREATE, REPLACE), else NULL; owned */
    int lock_fd;     /* a writer: the file it writes, flock'd exclusively; else -1 */
    int replaced_fd; /* REPLACE: the file at path until the new one replaces it,
                        flock'd so that no writer is replaced under its feet; else -1 */
    int committed;   /* a new model: 1 once a transaction committed, 0 after a failure */
    int in_txn;      /* 1 between store_begin and store_commit/rollback, and for a reader
                        from its first read to store_close (one snapshot) */
    int wal;         /* 1 once store_open switched an existing file to WAL: store_close
                        switches it back */
    size_t image_size; /* bytes of the image given to store_open_image; 0 for a file */
    int integrity_later; /* a reader whose integrity_check the caller runs later
                            (store_open_unchecked) */
};

static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE vocab(lang TEXT NOT NULL CHECK(lang IN ('src','tgt')),"
    " id INTEGER NOT NULL, token TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY(lang,id), UNIQUE(lang,token));"
    "CREATE TABLE embedding(lang TEXT NOT NULL, id INTEGER NOT NULL,"
    " vector BLOB NOT NULL, PRIMARY KEY(lang,id));"
    "CREATE TABLE tensor(name TEXT PRIMARY KEY, shape TEXT NOT NULL, data BLOB NOT NULL);";

static const char *const TABLES[] = {"meta", "vocab", "embedding", "tensor"};

/* ---------------------------------------------------------------------------------------
 * Messages
 */

/* Turns an SQLite failure into a result code and a message naming the file. */
static int sql_fail(const Store *s, int sqlrc, const char *what, char *err, size_t errlen)
{
    const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(sqlrc);
    const char *path = s ? s->path : "model";
    switch (sqlrc & 0xff) {
    case SQLITE_NOTADB:
        (void)what; /* the statement that found out means nothing to the reader */
        tt_errf(err, errlen, "%s: not a toytrans model (not an SQLite database)", path);
        return TT_EMODEL;
    case SQLITE_CORRUPT:
        tt_errf(err, errlen, "%s: the database is damaged (%s: %s)", path, what, msg);
        return TT_EMODEL;
    case SQLITE_NOMEM:
        tt_errf(err, errlen, "%s: out of memory (%s)", path, what);
        return TT_ENOMEM;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        tt_errf(err, errlen, "%s: locked by another process for more than %d ms (%s)", path,
                STORE_BUSY_TIMEOUT_MS, what);
        return TT_EIO;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        tt_errf(err, errlen, "%s: %s (%s)", path, msg, what);
        return TT_EIO;
    default:
        tt_errf(err, errlen, "%s: %s (%s)", path, msg, what);
        return TT_EMODEL;
    }
}

/* ---------------------------------------------------------------------------------------
 * Little-endian floats
 */

static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Converts n floats between host order and little-endian, in place. */
static void swap_to_le(float *x, size_t n)
{
    if (host_is_little_endian())
        return;
    for (size_t i = 0; i < n; i++) {
        unsigned char b[4], r[4];
        memcpy(b, &x[i], 4);
        r[0] = b[3], r[1] = b[2], r[2] = b[1], r[3] = b[0];
        memcpy(&x[i], r, 4);
    }
}

/* ---------------------------------------------------------------------------------------
 * Small statement helpers
 */

/* Runs sql, which returns no rows. */
static int exec(Store *s, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? TT_OK : sql_fail(s, rc, what, err, errlen);
}

/* Runs a journal_mode pragma on an existing file. The change needs the write lock; a
 * writer in another process fails it at once (SQLite does not call the busy handler for
 * it), a reader makes SQLite wait the whole busy timeout per try. So the busy handler is
 * off while this loop retries, for STORE_BUSY_TIMEOUT_MS in all. */
static int exec_journal_mode(Store *s, const char *sql, const char *what, char *err,
                             size_t errlen)
{
    sqlite3_busy_timeout(s->db, 0);
    int rc, waited = 0;
    while ((rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL)) != SQLITE_OK &&
           (rc & 0xff) == SQLITE_BUSY && waited < STORE_BUSY_TIMEOUT_MS) {
        sqlite3_sleep(20);
        waited += 20;
    }
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    return rc == SQLITE_OK ? TT_OK : sql_fail(s, rc, what, err, errlen);
}

/* Runs a query whose first row's first column is an integer, into *out. */
static int query_int(Store *s, const char *sql, long long *out, char *err, size_t errlen)
{
    *out = 0; /* defined on every path, failures included */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int result;
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        result = TT_OK;
    } else {
        result = sql_fail(s, rc == SQLITE_DONE ? SQLITE_ERROR : rc, sql, err, errlen);
    }
    sqlite3_finalize(st);
    return result;
}

/* ---------------------------------------------------------------------------------------
 * Opening and closing
 */

/* Removes a database file and its WAL companions. */
static void remove_db_files(const char *path)
{
    char buf[4200];
    remove(path);
    snprintf(buf, sizeof buf, "%s-wal", path);
    remove(buf);
    snprintf(buf, sizeof buf, "%s-shm", path);
    remove(buf);
    snprintf(buf, sizeof buf, "%s-journal", path);
    remove(buf);
}

/* Locks the connection down: the file is input, not code. */
static int harden(Store *s, char *err, size_t errlen)
{
    int rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
    if (rc != SQLITE_OK)
        return sql_fail(s, rc, "configuring SQLite's defensive mode", err, errlen);
    sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, STORE_MAX_BLOB);
    sqlite3_limit(s->db, SQLITE_LIMIT_SQL_LENGTH, 100000);
    sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(s->db, 1);
    return TT_OK;
}

/* The columns of the four tables as SCHEMA creates them, as PRAGMA table_xinfo reports
 * them: a file whose tables differ (a generated column, another type, a column more or
 * less, a key elsewhere) is not the documented format. A generated column is refused
 * above all: its values are computed at each read, so a small file could make a reader
 * hold gigabytes (a zeroblob the size of a tensor). */
typedef struct {
    const char *table;
    const char *name; /* the column, in order; NULL ends a table's list */
    const char *type; /* declared type, compared without regard to case */
    const char *dflt; /* the default's SQL text, or NULL for none */
    int notnull;      /* 0 or 1 */
    int pk;           /* position in the primary key from 1, 0 outside it */
} SchemaColumn;

static const SchemaColumn COLUMNS[] = {
    {"meta", "key", "TEXT", NULL, 0, 1},
    {"meta", "value", "TEXT", NULL, 1, 0},
    {"meta", NULL, NULL, NULL, 0, 0},
    {"vocab", "lang", "TEXT", NULL, 1, 1},
    {"vocab", "id", "INTEGER", NULL, 1, 2},
    {"vocab", "token", "TEXT", NULL, 1, 0},
    {"vocab", "count", "INTEGER", "0", 1, 0},
    {"vocab", NULL, NULL, NULL, 0, 0},
    {"embedding", "lang", "TEXT", NULL, 1, 1},
    {"embedding", "id", "INTEGER", NULL, 1, 2},
    {"embedding", "vector", "BLOB", NULL, 1, 0},
    {"embedding", NULL, NULL, NULL, 0, 0},
    {"tensor", "name", "TEXT", NULL, 0, 1},
    {"tensor", "shape", "TEXT", NULL, 1, 0},
    {"tensor", "data", "BLOB", NULL, 1, 0},
    {"tensor", NULL, NULL, NULL, 0, 0},
};

/* Whether two texts are equal, both NULL included, ignoring ASCII case. */
static int same_text(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    while (*a && *b) {
        char x = *a++, y = *b++;
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* Compares one table's columns (PRAGMA table_xinfo) with want, which ends at a NULL name,
 * and refuses a virtual table. */
static int check_columns(Store *s, const SchemaColumn *want, char *err, size_t errlen)
{
    char sql[160];
    long long v;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                              "name = '%s' AND sql LIKE 'CREATE VIRTUAL%%'", want->table);
    int rc = query_int(s, sql, &v, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (v != 0) {
        tt_errf(err, errlen, "%s: table '%s' is a virtual table, not the documented table",
                s->path, want->table);
        return TT_EMODEL;
    }
    snprintf(sql, sizeof sql, "PRAGMA table_xinfo('%s')", want->table);
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    int i = 0;
    while (rc == TT_OK && sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *type = (const char *)sqlite3_column_text(st, 2);
        const char *dflt = (const char *)sqlite3_column_text(st, 4);
        const int hidden = sqlite3_column_int(st, 6);
        const SchemaColumn *c = &want[i];
        if (hidden != 0) {
            tt_errf(err, errlen, "%s: table '%s' column '%s' is a generated or hidden column; "
                                 "the format stores every value", s->path, want->table,
                    name ? name : "");
            rc = TT_EMODEL;
        } else if (!c->name) {
            tt_errf(err, errlen, "%s: table '%s' has a column '%s' the format does not have",
                    s->path, want->table, name ? name : "");
            rc = TT_EMODEL;
        } else if (!same_text(name, c->name) || !same_text(type, c->type) ||
                   sqlite3_column_int(st, 3) != c->notnull || !same_text(dflt, c->dflt) ||
                   sqlite3_column_int(st, 5) != c->pk) {
            tt_errf(err, errlen, "%s: table '%s' column %d is '%s %s', not the documented "
                                 "'%s %s' (with its constraints)", s->path, c->table, i + 1,
                    name ? name : "", type ? type : "", c->name, c->type);
            rc = TT_EMODEL;
        }
        i++;
        sqlrc = SQLITE_OK;
    }
    if (rc == TT_OK && sqlrc != SQLITE_DONE)
        rc = sql_fail(s, sqlrc, "reading the table's columns", err, errlen);
    sqlite3_finalize(st);
    if (rc == TT_OK && want[i].name) {
        tt_errf(err, errlen, "%s: table '%s' lacks the column '%s'", s->path, want->table,
                want[i].name);
        rc = TT_EMODEL;
    }
    return rc;
}

/* Every one of the four tables with exactly the documented columns. */
static int check_schema(Store *s, char *err, size_t errlen)
{
    int rc = TT_OK;
    const size_t n = sizeof COLUMNS / sizeof COLUMNS[0];
    for (size_t i = 0; rc == TT_OK && i < n; i++)
        if (i == 0 || !COLUMNS[i - 1].name)
            rc = check_columns(s, &COLUMNS[i], err, errlen);
    return rc;
}

int store_check_integrity(Store *s, char *err, size_t errlen)
{
    /* integrity_check, not quick_check: quick_check does not compare the indexes with
     * their tables, and a damaged rowid in the embedding or tensor key index sends a
     * lookup to another row of the same size, which would load as a wrong model. */
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL);
    if (sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *res = (const char *)sqlite3_column_text(st, 0);
        if (!res || strcmp(res, "ok") != 0) {
            tt_errf(err, errlen, "%s: the database is damaged (integrity_check: %s)", s->path,
                    res ? res : "no answer");
            sqlite3_finalize(st);
            return TT_EMODEL;
        }
        sqlrc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (sqlrc != SQLITE_OK)
        return sql_fail(s, sqlrc, "PRAGMA integrity_check", err, errlen);
    return TT_OK;
}

int store_integrity_first(Store *s, int rc, char *err, size_t errlen)
{
    const int irc = store_check_integrity(s, err, errlen); /* err untouched when it passes */
    return irc != TT_OK ? irc : rc;
}

static int validate_contents(Store *s, char *err, size_t errlen);

/* Checks an existing file against the contract, cheapest and most telling checks first. */
static int validate(Store *s, char *err, size_t errlen)
{
    long long v;
    /* SQLite opens random bytes and empty files without complaint; this is the first
     * read of the header. */
    int rc = query_int(s, "PRAGMA application_id", &v, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (v != STORE_APPLICATION_ID) {
        tt_errf(err, errlen, "%s: an SQLite database but not a toytrans model (application_id "
                             "%lld, expected %d)", s->path, v, STORE_APPLICATION_ID);
        return TT_EMODEL;
    }
    if ((rc = query_int(s, "PRAGMA user_version", &v, err, errlen)) != TT_OK)
        return rc;
    if (v != STORE_FORMAT_VERSION) {
        tt_errf(err, errlen, "%s: format_version %lld %s (this toytrans reads version %d)",
                s->path, v, v > STORE_FORMAT_VERSION ? "is newer than this toytrans" : "is unknown",
                STORE_FORMAT_VERSION);
        return TT_EMODEL;
    }

    if (!s->integrity_later && (rc = store_check_integrity(s, err, errlen)) != TT_OK)
        return rc;
    if ((rc = validate_contents(s, err, errlen)) != TT_OK && s->integrity_later)
        rc = store_integrity_first(s, rc, err, errlen);
    return rc;
}

/* validate's checks after integrity_check: the file's size, tables, schema and format. */
static int validate_contents(Store *s, char *err, size_t errlen)
{
    long long v;
    int rc;

    /* SQLite reads missing bytes at the end of a file as zeros, and integrity_check does not
     * notice a cut inside the last page: compare the file's size with the pages it
     * claims. (Pages may still sit in a WAL file beside it; then the WAL holds them.) */
    long long pages, page_size;
    if ((rc = query_int(s, "PRAGMA page_count", &pages, err, errlen)) != TT_OK ||
        (rc = query_int(s, "PRAGMA page_size", &page_size, err, errlen)) != TT_OK)
        return rc;
    long long size = -1; /* unknown: no check */
    if (s->image_size > 0) {
        size = (long long)s->image_size; /* an image has no WAL beside it */
    } else {
        struct stat sb, wal;
        char wal_path[4200];
        snprintf(wal_path, sizeof wal_path, "%s-wal", s->path);
        int has_wal = stat(wal_path, &wal) == 0 && wal.st_size > 0;
        if (stat(s->path, &sb) == 0 && !has_wal)
            size = (long long)sb.st_size;
    }
    if (size >= 0 && size < pages * page_size) {
        tt_errf(err, errlen, "%s: the database is damaged (truncated: %lld bytes, the header "
                             "promises %lld pages of %lld)", s->path, size, pages, page_size);
        return TT_EMODEL;
    }

    for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND "
                                  "name='%s'", TABLES[i]);
        if ((rc = query_int(s, sql, &v, err, errlen)) != TT_OK)
            return rc;
        if (v != 1) {
            tt_errf(err, errlen, "%s: table '%s' is missing", s->path, TABLES[i]);
            return TT_EMODEL;
        }
    }
    if ((rc = check_schema(s, err, errlen)) != TT_OK)
        return rc;
    char buf[64];
    if ((rc = store_meta_get(s, "format", buf, sizeof buf, err, errlen)) != TT_OK)
        return rc;
    if (strcmp(buf, STORE_FORMAT_NAME) != 0) {
        tt_errf(err, errlen, "%s: meta format is '%s', expected '%s'", s->path, buf,
                STORE_FORMAT_NAME);
        return TT_EMODEL;
    }
    long fv;
    if ((rc = store_meta_get_long(s, "format_version", 0, 1000000, &fv, err, errlen)) != TT_OK)
        return rc;
    if (fv != STORE_FORMAT_VERSION) {
        tt_errf(err, errlen, "%s: meta format_version is %ld but user_version is %d", s->path,
                fv, STORE_FORMAT_VERSION);
        return TT_EMODEL;
    }
    return TT_OK;
}

/* Creates the schema and format meta of a new model, in one transaction. */
static int create_schema(Store *s, char *err, size_t errlen)
{
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             STORE_APPLICATION_ID, STORE_FORMAT_VERSION);
    int rc = exec(s, "PRAGMA journal_mode = WAL", "setting WAL journal mode", err, errlen);
    if (rc == TT_OK)
        rc = store_begin(s, err, errlen);
    if (rc == TT_OK)
        rc = exec(s, pragmas, "writing the file header", err, errlen);
    if (rc == TT_OK)
        rc = exec(s, SCHEMA, "creating the tables", err, errlen);
    if (rc == TT_OK)
        rc = store_meta_set(s, "format", STORE_FORMAT_NAME, err, errlen);
    if (rc == TT_OK)
        rc = store_meta_set(s, "format_version", "1", err, errlen);
    if (rc == TT_OK)
        rc = store_commit(s, err, errlen);
    if (rc != TT_OK)
        store_rollback(s);
    return rc;
}

/* path with its directory resolved (realpath), its last component as given: what
 * SQLite is handed. SQLITE_OPEN_NOFOLLOW refuses a symbolic link anywhere in the name,
 * while a model is refused only when the file itself is a link (docs/model-format.md):
 * a linked directory on the way is fine. Owned by the caller; NULL when out of memory.
 * A directory that cannot be resolved is left as given (the open then reports it). */
static char *path_for_sqlite(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char *dir = slash ? mem_dup_str(path) : mem_dup_str(".");
    if (!dir)
        return NULL;
    if (slash)
        dir[slash == path ? 1 : (size_t)(slash - path)] = '\0';
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real)
        return mem_dup_str(path);
    const size_t n = strlen(real), need = n + 1 + strlen(name) + 1;
    char *out = malloc(need);
    if (out)
        snprintf(out, need, "%s%s%s", real, n > 0 && real[n - 1] == '/' ? "" : "/", name);
    free(real);
    return out;
}

/* sqlite3_open_v2 on path_for_sqlite(path), with SQLITE_OPEN_NOFOLLOW added: the file
 * itself is never opened through a link. */
static int sqlite_open_nofollow(const char *path, sqlite3 **db, int flags)
{
    char *real = path_for_sqlite(path);
    if (!real) {
        *db = NULL;
        return SQLITE_NOMEM;
    }
    const int sqlrc = sqlite3_open_v2(real, db, flags | SQLITE_OPEN_NOFOLLOW, NULL);
    free(real);
    return sqlrc;
}

/* A writer killed inside a rollback-journal transaction (switching the journal mode at
 * the start or end of a run) leaves a hot journal, which a read-only connection cannot
 * roll back (SQLITE_READONLY_ROLLBACK). Rolls it back through a short read-write
 * connection, as any writer's first read would: the last committed state comes back and
 * nothing else is written. */
static int rollback_hot_journal(Store *s, char *err, size_t errlen)
{
    Store rw = {.mode = STORE_WRITE, .path = s->path};
    int sqlrc = sqlite_open_nofollow(s->path, &rw.db, SQLITE_OPEN_READWRITE);
    int rc = sqlrc == SQLITE_OK ? harden(&rw, err, errlen) : TT_OK;
    if (sqlrc == SQLITE_OK && rc == TT_OK)
        sqlrc = sqlite3_exec(rw.db, "PRAGMA application_id", NULL, NULL, NULL);
    if (sqlrc != SQLITE_OK && rc == TT_OK)
        rc = sql_fail(&rw, sqlrc, "rolling back the journal a killed writer left", err, errlen);
    sqlite3_close(rw.db);
    return rc;
}

/* A reader sees one state of the file from its first read to store_close: everything
 * it reads runs in one read transaction (ended by store_close). Without it, a training
 * run committing a checkpoint between two of the reader's statements would hand it
 * vocabularies, tensors and a checksum of two different checkpoints. */
static int validate_snapshot(Store *s, char *err, size_t errlen)
{
    if (s->mode == STORE_READ) {
        int rc = exec(s, "BEGIN", "starting a read transaction", err, errlen);
        if (rc != TT_OK)
            return rc;
        s->in_txn = 1;
    }
    return validate(s, err, errlen);
}

/* Takes the writer's lock on the file at path, which must still be the file fd was
 * opened on (a file renamed over path meanwhile belongs to another writer). TT_OK, or
 * TT_EIO with a message when another process writes it. */
static int lock_writer(int fd, const char *path, char *err, size_t errlen)
{
    struct stat held, now;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &held) != 0 ||
        stat(path, &now) != 0 || held.st_dev != now.st_dev || held.st_ino != now.st_ino) {
        tt_errf(err, errlen, "%s: being written by another process (a training run?); not "
                             "opened for writing, whatever --force says", path);
        return TT_EIO;
    }
    return TT_OK;
}

/* Opens path (a regular file, not through a link) for the writer's lock and takes it;
 * *fd is -1 when there is no such file (nothing to lock). */
static int open_locked(int *fd, const char *path, char *err, size_t errlen)
{
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return TT_OK; /* missing, or a link that will be replaced, not written through */
    int rc = lock_writer(*fd, path, err, errlen);
    if (rc != TT_OK) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

/* Before a REPLACE store renames its new file over the path: holds the lock of the file
 * that is there now (another run may have put one there since store_open). */
static int lock_replaced(Store *s, char *err, size_t errlen)
{
    struct stat held, now;
    if (s->replaced_fd >= 0 &&
        (fstat(s->replaced_fd, &held) != 0 || stat(s->path, &now) != 0 ||
         held.st_dev != now.st_dev || held.st_ino != now.st_ino)) {
        close(s->replaced_fd);
        s->replaced_fd = -1;
    }
    return s->replaced_fd >= 0 ? TT_OK : open_locked(&s->replaced_fd, s->path, err, errlen);
}

int store_check_writer(const char *path, char *err, size_t errlen)
{
    int fd;
    int rc = open_locked(&fd, path, err, errlen);
    if (fd >= 0)
        close(fd); /* no SQLite connection of this process has the file open yet */
    return rc;
}

/* Removes the temporary files (PATH.PID.tmp and their journals) that runs killed before
 * they finished left beside path. Each is locked by its writer while the writer lives, so
 * a file whose lock this process can take has no writer left; a file another process
 * holds is left alone. Best effort: nothing here can fail the run. */
static void remove_stale_temps(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, base_len = strlen(base);
    char dir[4096];
    if (dir_len + 2 > sizeof dir)
        return;
    memcpy(dir, slash ? path : "./", slash ? dir_len : 2);
    dir[slash ? dir_len : 2] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        /* BASE.<digits>.tmp exactly */
        const char *name = e->d_name;
        if (strncmp(name, base, base_len) != 0 || name[base_len] != '.')
            continue;
        const char *p = name + base_len + 1, *digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits || strcmp(p, ".tmp") != 0)
            continue;
        char stale[4200];
        if ((size_t)snprintf(stale, sizeof stale, "%s%s", dir, name) >= sizeof stale)
            continue;
        int fd = open(stale, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* A file changed in the last minute may be a writer's between its create and
         * its lock: left for a later run. */
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_mtime < time(NULL) - 60 &&
            flock(fd, LOCK_EX | LOCK_NB) == 0)
            remove_db_files(stale);
        close(fd);
    }
    closedir(d);
}

/* Creates the new file of a CREATE or REPLACE store: s->tmp_path, beside s->path and
 * named for this process (PATH.PID.tmp), so that two runs never share it; locked. A file
 * of that name was left by a dead process with this process's id: it is removed, as are
 * the ones other dead runs left (remove_stale_temps). */
static int create_temp(Store *s, char *err, size_t errlen)
{
    const size_t n = strlen(s->path) + 32;
    if (!(s->tmp_path = malloc(n)))
        return TT_ENOMEM;
    snprintf(s->tmp_path, n, "%s.%ld.tmp", s->path, (long)getpid());
    remove_db_files(s->tmp_path);
    remove_stale_temps(s->path);
    s->lock_fd = open(s->tmp_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (s->lock_fd < 0) {
        tt_errf(err, errlen, "%s: cannot create %s: %s", s->path, s->tmp_path, strerror(errno));
        return TT_EIO;
    }
    return lock_writer(s->lock_fd, s->tmp_path, err, errlen);
}

/* Whether the file at path is in WAL mode: bytes 18 and 19 of its header are 2. */
static int file_is_wal(const char *path)
{
    unsigned char h[20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    return n == sizeof h && h[18] == 2 && h[19] == 2;
}

/* Whether path's -wal companion exists and holds anything. */
static int wal_file_has_frames(const char *path)
{
    char wal[4096];
    struct stat sb;
    if ((size_t)snprintf(wal, sizeof wal, "%s-wal", path) >= sizeof wal)
        return 1; /* cannot tell: assume it does */
    return stat(wal, &sb) == 0 && sb.st_size > 0;
}

/* path as an SQLite URI ("file:" and the path, with %, ? and # and anything outside
 * printable ASCII percent-encoded) followed by query; NULL when out of memory. */
static char *file_uri(const char *path, const char *query)
{
    const size_t n = strlen(path);
    char *uri = malloc(strlen("file://") + 3 * n + strlen(query) + 2);
    if (!uri)
        return NULL;
    char *o = uri + sprintf(uri, "file:%s", path[0] == '/' ? "//" : "");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        o += *c == '%' || *c == '?' || *c == '#' || *c <= ' ' || *c >= 0x7f
                 ? sprintf(o, "%%%02X", *c)
                 : sprintf(o, "%c", *c);
    sprintf(o, "?%s", query);
    return uri;
}

/* A WAL-mode model on a read-only file system cannot be opened as it is: SQLite must
 * create the -shm file beside it. If nothing is waiting in a -wal file, the database
 * file alone is the whole model and nobody can change it, so it is opened as immutable.
 * Otherwise the message says what is needed. Returns TT_OK with s->db open, or the
 * code of the original failure with err rewritten. */
static int open_wal_read_only(Store *s, const char *path, int rc, char *err, size_t errlen)
{
    struct statvfs fs;
    const int ro_fs = statvfs(path, &fs) == 0 && (fs.f_flag & ST_RDONLY);
    if (!ro_fs || wal_file_has_frames(path)) {
        tt_errf(err, errlen, "%s: in WAL mode, and SQLite cannot create its -shm file beside "
                             "it (%s); make the directory writable, or convert the model "
                             "once where it is writable: sqlite3 MODEL 'PRAGMA journal_mode "
                             "= DELETE'", path,
                ro_fs ? "a read-only file system, with a -wal file not yet checkpointed"
                      : "the directory is not writable");
        return rc;
    }
    char *real = path_for_sqlite(path);
    char *uri = real ? file_uri(real, "immutable=1") : NULL;
    free(real);
    if (!uri)
        return TT_ENOMEM;
    sqlite3_close(s->db);
    s->db = NULL;
    int sqlrc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                                                 SQLITE_OPEN_NOFOLLOW, NULL);
    free(uri);
    if (sqlrc != SQLITE_OK)
        return sql_fail(s, sqlrc, "opening as immutable", err, errlen);
    if (err && errlen)
        err[0] = '\0';
    if ((rc = harden(s, err, errlen)) != TT_OK)
        return rc;
    return validate_snapshot(s, err, errlen);
}

/* Opens the SQLite connection of s on open_path as s->mode says: a new model's schema,
 * or an existing file validated (and switched to WAL for a writer). */
static int connect_db(Store *s, const char *open_path, char *err, size_t errlen)
{
    int rc;
    const StoreMode mode = s->mode;
    const int creating = mode == STORE_CREATE || mode == STORE_REPLACE;
    int flags = mode == STORE_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (creating)
        flags |= SQLITE_OPEN_CREATE;
    int sqlrc = sqlite_open_nofollow(open_path, &s->db, flags);
    if (sqlrc != SQLITE_OK)
        return sql_fail(s, sqlrc, "opening", err, errlen);
    if ((rc = harden(s, err, errlen)) != TT_OK)
        return rc;
    rc = creating ? create_schema(s, err, errlen) : validate_snapshot(s, err, errlen);
    if (rc != TT_OK && mode == STORE_READ &&
        sqlite3_extended_errcode(s->db) == SQLITE_READONLY_ROLLBACK) {
        store_rollback(s);
        if ((rc = rollback_hot_journal(s, err, errlen)) == TT_OK)
            rc = validate_snapshot(s, err, errlen);
    }
    if (rc != TT_OK && mode == STORE_READ && s->db &&
        sqlite3_errcode(s->db) == SQLITE_CANTOPEN && file_is_wal(open_path))
        rc = open_wal_read_only(s, open_path, rc, err, errlen);
    if (rc != TT_OK)
        return rc;
    /* A new model appears at its path only once the caller commits its contents. */
    s->committed = 0;
    if (mode == STORE_WRITE &&
        (rc = exec_journal_mode(s, "PRAGMA journal_mode = WAL", "setting WAL journal mode", err,
                                errlen)) == TT_OK)
        s->wal = 1;
    return rc;
}

/* store_open, with integrity_later for the store (a reader's). */
static int open_store(Store **out, const char *path, StoreMode mode, int integrity_later,
                      char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return TT_EINVAL;
    *out = NULL;
    if (!path || !*path || mode < STORE_READ || mode > STORE_REPLACE) {
        tt_errf(err, errlen, "no model path given");
        return TT_EINVAL;
    }
    const int creating = mode == STORE_CREATE || mode == STORE_REPLACE;
    struct stat sb;
    if (!creating) {
        if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
            tt_errf(err, errlen, "%s: is a symbolic link; open the model file itself", path);
            return TT_EMODEL;
        }
        if (stat(path, &sb) != 0) {
            tt_errf(err, errlen, "%s: %s", path, errno == ENOENT ? "no such model file"
                                                                 : strerror(errno));
            return errno == ENOENT ? TT_EMODEL : TT_EIO;
        }
        if (!S_ISREG(sb.st_mode)) {
            tt_errf(err, errlen, "%s: not a regular file", path);
            return TT_EMODEL;
        }
        if (sb.st_size == 0) {
            tt_errf(err, errlen, "%s: empty file (0 bytes), not a model", path);
            return TT_EMODEL;
        }
    } else if (mode == STORE_CREATE && stat(path, &sb) == 0) {
        tt_errf(err, errlen, "%s: already exists; not replaced", path);
        return TT_EEXIST;
    }

    Store *s = calloc(1, sizeof *s);
    if (!s)
        return TT_ENOMEM;
    s->mode = mode;
    s->lock_fd = s->replaced_fd = -1;
    s->integrity_later = integrity_later;
    int rc = TT_ENOMEM;
    if (!(s->path = mem_dup_str(path)))
        goto fail;
    const char *open_path = path;
    if (mode == STORE_WRITE && (rc = open_locked(&s->lock_fd, path, err, errlen)) != TT_OK)
        goto fail;
    if (mode == STORE_REPLACE && (rc = open_locked(&s->replaced_fd, path, err, errlen)) != TT_OK)
        goto fail;
    if (creating) {
        if ((rc = create_temp(s, err, errlen)) != TT_OK)
            goto fail;
        open_path = s->tmp_path;
    }
    if ((rc = connect_db(s, open_path, err, errlen)) != TT_OK)
        goto fail;
    *out = s;
    return TT_OK;
fail:
    s->committed = 0;
    store_close(s, NULL, 0);
    return rc;
}

int store_open(Store **out, const char *path, StoreMode mode, char *err, size_t errlen)
{
    return open_store(out, path, mode, 0, err, errlen);
}

int store_open_unchecked(Store **out, const char *path, char *err, size_t errlen)
{
    return open_store(out, path, STORE_READ, 1, err, errlen);
}

int store_open_image(Store **out, const void *data, size_t size, const char *name, char *err,
                     size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return TT_EINVAL;
    *out = NULL;
    if (!name || !*name || (!data && size > 0)) {
        tt_errf(err, errlen, "no model image given");
        return TT_EINVAL;
    }
    if (size == 0) {
        tt_errf(err, errlen, "%s: empty image (0 bytes), not a model", name);
        return TT_EMODEL;
    }
    Store *s = calloc(1, sizeof *s);
    if (!s)
        return TT_ENOMEM;
    s->mode = STORE_READ;
    s->lock_fd = s->replaced_fd = -1;
    s->image_size = size;
    int rc = TT_ENOMEM;
    if (!(s->path = mem_dup_str(name)))
        goto fail;
    int sqlrc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE, NULL);
    if (sqlrc != SQLITE_OK) {
        rc = sql_fail(s, sqlrc, "opening", err, errlen);
        goto fail;
    }
    /* Hardened before the bytes arrive, as a file is before its first read. */
    if ((rc = harden(s, err, errlen)) != TT_OK)
        goto fail;
    unsigned char *copy = sqlite3_malloc64(size);
    if (!copy)
        goto fail; /* rc is TT_ENOMEM */
    memcpy(copy, data, size);
    /* An in-memory database cannot be in WAL mode: read a WAL-mode header (bytes 18 and
     * 19 are 2) as rollback mode, as a file whose -wal companion is empty reads. */
    for (size_t k = 18; k < 20 && k < size; k++)
        if (copy[k] == 2)
            copy[k] = 1;
    /* SQLite owns the copy from here, and frees it even when this call fails. */
    sqlrc = sqlite3_deserialize(s->db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
                                SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (sqlrc != SQLITE_OK) {
        rc = sql_fail(s, sqlrc, "reading the image", err, errlen);
        goto fail;
    }
    if ((rc = validate(s, err, errlen)) != TT_OK)
        goto fail;
    *out = s;
    return TT_OK;
fail:
    store_close(s, NULL, 0);
    return rc;
}

const char *store_path(const Store *s)
{
    return s ? s->path : NULL;
}

/* Ends the connection of s: an open transaction rolled back, the WAL folded into the
 * file, and a new model that committed moved into place (its temporary files removed
 * either way). The writer's lock stays held. Returns TT_OK or TT_EIO (err says why). */
static int disconnect(Store *s, char *err, size_t errlen)
{
    int rc = TT_OK;
    if (s->in_txn)
        store_rollback(s);
    if (s->db && (s->tmp_path ? s->committed : s->wal)) {
        /* Fold the WAL into the file, so the model is one self-contained file that a
         * reader can open even where it cannot create the -shm file beside it; an
         * existing file too when its last transaction failed (it was opened in WAL). */
        rc = exec_journal_mode(s, "PRAGMA journal_mode = DELETE", "finishing the file", err,
                               errlen);
    }
    if (s->db && sqlite3_close(s->db) != SQLITE_OK && rc == TT_OK) {
        tt_errf(err, errlen, "%s: cannot close: %s", s->path, sqlite3_errmsg(s->db));
        rc = TT_EIO;
    }
    s->db = NULL;
    s->wal = 0;
    if (s->tmp_path) {
        if (rc == TT_OK && s->committed && s->mode == STORE_REPLACE)
            rc = lock_replaced(s, err, errlen);
        if (rc == TT_OK && s->committed) {
            /* Where no file was there to lock (a new file, or a replace that found none),
             * link(2) puts the new one in place only if nothing has appeared since: two
             * runs started together on one path must not both rename, the second over
             * the first's file while the first still writes it. */
            const int no_replace = s->mode == STORE_CREATE || s->replaced_fd < 0;
            int moved = no_replace ? link(s->tmp_path, s->path) == 0 &&
                                         remove(s->tmp_path) == 0
                                   : rename(s->tmp_path, s->path) == 0;
            if (!moved && errno == EEXIST && s->mode == STORE_CREATE) {
                tt_errf(err, errlen, "%s: already exists (it appeared while the new model "
                                     "was written); not replaced", s->path);
                rc = TT_EEXIST;
            } else if (!moved && errno == EEXIST) {
                tt_errf(err, errlen, "%s: being written by another process (it appeared "
                                     "while the new model was written); not replaced",
                        s->path);
                rc = TT_EIO;
            } else if (!moved) {
                tt_errf(err, errlen, "%s: cannot move the new model into place: %s", s->path,
                        strerror(errno));
                rc = TT_EIO;
            }
        }
        remove_db_files(s->tmp_path);
        free(s->tmp_path);
        s->tmp_path = NULL;
    }
    /* The file that was replaced is no longer at the path: its lock has done its job. */
    if (s->replaced_fd >= 0)
        close(s->replaced_fd);
    s->replaced_fd = -1;
    return rc;
}

int store_close(Store *s, char *err, size_t errlen)
{
    if (!s)
        return TT_OK;
    int rc = disconnect(s, err, errlen);
    /* Only now, with SQLite's descriptors closed: the lock outlives every write. */
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    free(s->path);
    free(s);
    return rc;
}

int store_publish(Store *s, char *err, size_t errlen)
{
    if (!s || !s->tmp_path || !s->committed || s->in_txn) {
        tt_errf(err, errlen, "%s: nothing committed to publish", s ? s->path : "model");
        return TT_EINVAL;
    }
    int rc = disconnect(s, err, errlen);
    if (rc != TT_OK)
        return rc;
    /* The lock's inode is now the file at the path: the writer never lets go of it. */
    s->mode = STORE_WRITE;
    s->committed = 0;
    return connect_db(s, s->path, err, errlen);
}

int store_size(Store *s, long long *bytes, char *err, size_t errlen)
{
    long long pages, page_size;
    int rc = query_int(s, "PRAGMA page_count", &pages, err, errlen);
    if (rc == TT_OK)
        rc = query_int(s, "PRAGMA page_size", &page_size, err, errlen);
    *bytes = rc == TT_OK ? pages * page_size : 0;
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Transactions
 */

int store_begin(Store *s, char *err, size_t errlen)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "starting a transaction", err, errlen);
    if (rc == TT_OK)
        s->in_txn = 1;
    return rc;
}

/* FNV-1a 64 over the content, as docs/model-format.md defines it: each row of each query
 * in order, each value's bytes (text as stored, integers in decimal, blobs raw) followed
 * by one zero byte. */
static int content_checksum(Store *s, uint64_t *out, char *err, size_t errlen)
{
    static const char *const QUERIES[] = {
        "SELECT key, value FROM meta WHERE key <> '" STORE_CHECKSUM_KEY "' ORDER BY key",
        "SELECT lang, id, token, count FROM vocab ORDER BY lang, id",
        "SELECT lang, id, vector FROM embedding ORDER BY lang, id",
        "SELECT name, shape, data FROM tensor ORDER BY name",
    };
    uint64_t h = FNV1A64_OFFSET;
    int rc = TT_OK;
    for (size_t q = 0; rc == TT_OK && q < sizeof QUERIES / sizeof QUERIES[0]; q++) {
        sqlite3_stmt *st = NULL;
        int sqlrc = sqlite3_prepare_v2(s->db, QUERIES[q], -1, &st, NULL);
        while (sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                /* A blob's bytes; anything else as UTF-8 text (a number as SQLite prints
                 * it), whatever the database's own text encoding; NULL as nothing. */
                const unsigned char *p = sqlite3_column_type(st, c) == SQLITE_BLOB
                                             ? sqlite3_column_blob(st, c)
                                             : sqlite3_column_text(st, c);
                const int n = sqlite3_column_bytes(st, c);
                if (p && n > 0)
                    h = fnv1a64_add(h, p, (size_t)n);
                h *= FNV1A64_PRIME; /* the zero byte after each value */
            }
            sqlrc = SQLITE_OK;
        }
        if (sqlrc != SQLITE_DONE)
            rc = sql_fail(s, sqlrc, "computing the content checksum", err, errlen);
        sqlite3_finalize(st);
    }
    *out = h;
    return rc;
}

int store_verify_checksum(Store *s, char *err, size_t errlen)
{
    char stored[32];
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = '" STORE_CHECKSUM_KEY "'",
                                   -1, &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st);
    int rc = TT_OK, present = 0;
    if (sqlrc == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        present = 1;
        snprintf(stored, sizeof stored, "%s", v ? v : "");
    } else if (sqlrc != SQLITE_DONE) {
        rc = sql_fail(s, sqlrc, "reading the content checksum", err, errlen);
    }
    sqlite3_finalize(st);
    if (rc != TT_OK || !present)
        return rc;
    uint64_t h;
    if ((rc = content_checksum(s, &h, err, errlen)) != TT_OK)
        return rc;
    char computed[32];
    snprintf(computed, sizeof computed, "%016llx", (unsigned long long)h);
    if (strcmp(stored, computed) != 0) {
        tt_errf(err, errlen, "%s: the content does not match its checksum (meta %s is '%s', "
                             "the content gives %s): the file was damaged, or changed by a tool "
                             "that did not update or delete that key", s->path,
                STORE_CHECKSUM_KEY, stored, computed);
        rc = TT_EMODEL;
    }
    return rc;
}

int store_commit(Store *s, char *err, size_t errlen)
{
    uint64_t h;
    char hex[32];
    int rc = content_checksum(s, &h, err, errlen);
    if (rc == TT_OK) {
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
        rc = store_meta_set(s, STORE_CHECKSUM_KEY, hex, err, errlen);
    }
    if (rc != TT_OK) {
        store_rollback(s);
        return rc;
    }
    rc = exec(s, "COMMIT", "committing", err, errlen);
    if (rc == TT_OK) {
        s->in_txn = 0;
        s->committed = 1;
    } else {
        store_rollback(s);
    }
    return rc;
}

void store_rollback(Store *s)
{
    if (s && s->db && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    if (s) {
        s->in_txn = 0;
        s->committed = 0;
    }
}

/* ---------------------------------------------------------------------------------------
 * meta
 */

int store_meta_set(Store *s, const char *key, const char *value, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_fail(s, rc, "writing meta", err, errlen);
    return TT_OK;
}

int store_meta_get(Store *s, const char *key, char *buf, size_t size, char *err, size_t errlen)
{
    if (size > 0)
        buf[0] = '\0'; /* an empty string on every failure */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int result = TT_OK;
    if (rc == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        int n = sqlite3_column_bytes(st, 0);
        if (!v || (size_t)n >= size) {
            tt_errf(err, errlen, "%s: meta '%s' is %s", s->path, key,
                    v ? "too long" : "not text");
            result = TT_EMODEL;
        } else {
            memcpy(buf, v, (size_t)n + 1);
        }
    } else if (rc == SQLITE_DONE) {
        tt_errf(err, errlen, "%s: meta '%s' is missing", s->path, key);
        result = TT_EMODEL;
    } else {
        result = sql_fail(s, rc, "reading meta", err, errlen);
    }
    sqlite3_finalize(st);
    return result;
}

int store_meta_get_long(Store *s, const char *key, long min, long max, long *out, char *err,
                        size_t errlen)
{
    char buf[64], *end;
    int rc = store_meta_get(s, key, buf, sizeof buf, err, errlen);
    if (rc != TT_OK)
        return rc;
    errno = 0;
    long v = strtol(buf, &end, 10);
    /* strtol would also take " 7" and "+7": the contract's numbers are plain digits. */
    int plain = buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9');
    if (!plain || end == buf || *end != '\0' || errno == ERANGE || v < min || v > max) {
        tt_errf(err, errlen, "%s: meta '%s' = '%s' is not a whole number from %ld to %ld",
                s->path, key, buf, min, max);
        return TT_EMODEL;
    }
    *out = v;
    return TT_OK;
}

int store_meta_get_double(Store *s, const char *key, double *out, char *err, size_t errlen)
{
    char buf[64], *end;
    int rc = store_meta_get(s, key, buf, sizeof buf, err, errlen);
    if (rc != TT_OK)
        return rc;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(v)) {
        tt_errf(err, errlen, "%s: meta '%s' = '%s' is not a finite number", s->path, key, buf);
        return TT_EMODEL;
    }
    *out = v;
    return TT_OK;
}

int store_meta_exists(Store *s, const char *key, int *out, char *err, size_t errlen)
{
    *out = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM meta WHERE key = ?1", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int result = TT_OK;
    if (rc == SQLITE_ROW)
        *out = 1;
    else if (rc != SQLITE_DONE)
        result = sql_fail(s, rc, "reading meta", err, errlen);
    sqlite3_finalize(st);
    return result;
}

/* ---------------------------------------------------------------------------------------
 * vocab
 */

static int check_lang(const Store *s, const char *lang, char *err, size_t errlen)
{
    if (lang && (strcmp(lang, "src") == 0 || strcmp(lang, "tgt") == 0))
        return TT_OK;
    tt_errf(err, errlen, "%s: language must be 'src' or 'tgt'", s->path);
    return TT_EINVAL;
}

int store_vocab_write(Store *s, const char *lang, const Vocab *v, char *err, size_t errlen)
{
    int rc = check_lang(s, lang, err, errlen);
    if (rc != TT_OK)
        return rc;
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "DELETE FROM vocab WHERE lang = ?1", -1, &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 1, lang, -1, SQLITE_STATIC);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (sqlrc != SQLITE_DONE)
        return sql_fail(s, sqlrc, "clearing vocab", err, errlen);
    sqlrc = sqlite3_prepare_v2(s->db, "INSERT INTO vocab(lang, id, token, count) "
                                      "VALUES(?1, ?2, ?3, ?4)", -1, &st, NULL);
    if (sqlrc != SQLITE_OK)
        return sql_fail(s, sqlrc, "writing vocab", err, errlen);
    for (int i = 0; i < v->size && sqlrc == SQLITE_OK; i++) {
        sqlite3_reset(st);
        sqlrc = sqlite3_bind_text(st, 1, lang, -1, SQLITE_STATIC);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_bind_int(st, 2, i);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_bind_text(st, 3, v->tokens[i], -1, SQLITE_STATIC);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_bind_int64(st, 4, v->counts[i]);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
    }
    sqlite3_finalize(st);
    return sqlrc == SQLITE_OK ? TT_OK : sql_fail(s, sqlrc, "writing vocab", err, errlen);
}

int store_vocab_read(Store *s, const char *lang, Vocab *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int rc = check_lang(s, lang, err, errlen);
    if (rc != TT_OK)
        return rc;
    long long n;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM vocab WHERE lang = '%s'", lang);
    if ((rc = query_int(s, sql, &n, err, errlen)) != TT_OK)
        return rc;
    if (n < VOCAB_N_SPECIAL || n > VOCAB_MAX_SIZE) {
        tt_errf(err, errlen, "%s: vocab '%s' has %lld entries (needs %d to %d)", s->path, lang,
                n, VOCAB_N_SPECIAL, VOCAB_MAX_SIZE);
        return TT_EMODEL;
    }
    char **tokens = calloc((size_t)n, sizeof(char *));
    int64_t *counts = calloc((size_t)n, sizeof(int64_t));
    sqlite3_stmt *st = NULL;
    if (!tokens || !counts) {
        rc = TT_ENOMEM;
        goto done;
    }
    int sqlrc = sqlite3_prepare_v2(s->db, "SELECT id, token, count FROM vocab WHERE lang = ?1 "
                                          "ORDER BY id", -1, &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 1, lang, -1, SQLITE_STATIC);
    long long i = 0;
    while (sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= n) {
            sqlrc = SQLITE_OK; /* rows appeared under us: cannot happen in one read txn */
            break;
        }
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_int64(st, 0) != i) {
            tt_errf(err, errlen, "%s: vocab '%s' ids must be 0..%lld without gaps; id %lld is "
                                 "missing", s->path, lang, n - 1, i);
            rc = TT_EMODEL;
            goto done;
        }
        const char *t = (const char *)sqlite3_column_text(st, 1);
        if (!t || !(tokens[i] = malloc((size_t)sqlite3_column_bytes(st, 1) + 1))) {
            rc = t ? TT_ENOMEM : TT_EMODEL;
            tt_errf(err, errlen, t ? "%s: out of memory (reading vocab '%s' id %lld)"
                                   : "%s: vocab '%s' id %lld has no token", s->path, lang, i);
            goto done;
        }
        memcpy(tokens[i], t, (size_t)sqlite3_column_bytes(st, 1) + 1);
        if (strlen(tokens[i]) != (size_t)sqlite3_column_bytes(st, 1)) {
            tt_errf(err, errlen, "%s: vocab '%s': id %lld, a token with a NUL byte at byte %zu",
                    s->path, lang, i, strlen(tokens[i]));
            rc = TT_EMODEL;
            goto done;
        }
        if (sqlite3_column_type(st, 2) != SQLITE_INTEGER) {
            tt_errf(err, errlen, "%s: vocab '%s' id %lld: the count is not an integer",
                    s->path, lang, i);
            rc = TT_EMODEL;
            goto done;
        }
        counts[i] = sqlite3_column_int64(st, 2);
        i++;
        sqlrc = SQLITE_OK;
    }
    if (sqlrc != SQLITE_DONE) {
        rc = sql_fail(s, sqlrc, "reading vocab", err, errlen);
        goto done;
    }
    char why[200];
    rc = vocab_from_tokens(out, (const char *const *)tokens, counts, (int)n, why, sizeof why);
    if (rc == TT_EINPUT) {
        tt_errf(err, errlen, "%s: vocab '%s': %s", s->path, lang, why);
        rc = TT_EMODEL;
    }
done:
    sqlite3_finalize(st);
    if (tokens)
        for (long long k = 0; k < n; k++)
            free(tokens[k]);
    free(tokens);
    free(counts);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Blobs of floats
 */

/* Binds n floats as a little-endian blob to parameter idx; scratch holds n floats. */
static int bind_floats(sqlite3_stmt *st, int idx, const float *x, size_t n, float *scratch)
{
    memcpy(scratch, x, n * sizeof(float));
    swap_to_le(scratch, n);
    return sqlite3_bind_blob(st, idx, scratch, (int)(n * sizeof(float)), SQLITE_STATIC);
}

/* Copies a blob column of exactly n floats into dst (host order), checking every value is
 * finite. what names the blob in messages. */
static int read_floats(const Store *s, sqlite3_stmt *st, int col, float *dst, size_t n,
                       const char *what, char *err, size_t errlen)
{
    const void *blob = sqlite3_column_blob(st, col);
    size_t bytes = (size_t)sqlite3_column_bytes(st, col);
    if (sqlite3_column_type(st, col) != SQLITE_BLOB) {
        tt_errf(err, errlen, "%s: %s is not a blob", s->path, what);
        return TT_EMODEL;
    }
    if (bytes != n * sizeof(float)) {
        tt_errf(err, errlen, "%s: %s holds %zu bytes, expected %zu (%zu float32 values)",
                s->path, what, bytes, n * sizeof(float), n);
        return TT_EMODEL;
    }
    memcpy(dst, blob, bytes);
    swap_to_le(dst, n);
    /* Whether any value is Inf or NaN (all exponent bits set), in one pass without a
     * branch per value; which one, only when there is one. */
    uint32_t special = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &dst[i], sizeof u);
        special |= (u & UINT32_C(0x7f800000)) == UINT32_C(0x7f800000);
    }
    for (size_t i = 0; special && i < n; i++)
        if (!isfinite(dst[i])) {
            tt_errf(err, errlen, "%s: %s has a non-finite value (%s) at index %zu", s->path,
                    what, isnan(dst[i]) ? "NaN" : "Inf", i);
            return TT_EMODEL;
        }
    return TT_OK;
}

int store_embedding_write(Store *s, const char *lang, const float *table, int V, int D,
                          char *err, size_t errlen)
{
    int rc = check_lang(s, lang, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (!table || V < 1 || D < 1)
        return TT_EINVAL;
    for (size_t i = 0; i < (size_t)V * (size_t)D; i++)
        if (!isfinite(table[i])) {
            tt_errf(err, errlen, "%s: embedding '%s' id %zu has a non-finite value (%s); not "
                                 "written", s->path, lang, i / (size_t)D,
                    isnan(table[i]) ? "NaN" : "Inf");
            return TT_EINVAL;
        }
    float *scratch = malloc(sizeof(float) * (size_t)D);
    if (!scratch)
        return TT_ENOMEM;
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO embedding(lang, id, vector) "
                                          "VALUES(?1, ?2, ?3)", -1, &st, NULL);
    for (int i = 0; i < V && sqlrc == SQLITE_OK; i++) {
        sqlite3_reset(st);
        sqlrc = sqlite3_bind_text(st, 1, lang, -1, SQLITE_STATIC);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_bind_int(st, 2, i);
        if (sqlrc == SQLITE_OK)
            sqlrc = bind_floats(st, 3, table + (size_t)i * D, (size_t)D, scratch);
        if (sqlrc == SQLITE_OK)
            sqlrc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
    }
    sqlite3_finalize(st);
    free(scratch);
    return sqlrc == SQLITE_OK ? TT_OK : sql_fail(s, sqlrc, "writing embedding", err, errlen);
}

int store_embedding_read(Store *s, const char *lang, float *table, int V, int D, char *err,
                         size_t errlen)
{
    int rc = check_lang(s, lang, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (!table || V < 1 || D < 1)
        return TT_EINVAL;
    long long n;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM embedding WHERE lang = '%s'", lang);
    if ((rc = query_int(s, sql, &n, err, errlen)) != TT_OK)
        return rc;
    if (n != V) {
        tt_errf(err, errlen, "%s: embedding '%s' has %lld rows but the vocabulary has %d",
                s->path, lang, n, V);
        return TT_EMODEL;
    }
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "SELECT id, vector FROM embedding WHERE lang = ?1 "
                                          "ORDER BY id", -1, &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 1, lang, -1, SQLITE_STATIC);
    int i = 0;
    while (sqlrc == SQLITE_OK && (sqlrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= V || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_int64(st, 0) != i) {
            tt_errf(err, errlen, "%s: embedding '%s' ids must be 0..%d without gaps; id %d is "
                                 "missing", s->path, lang, V - 1, i);
            rc = TT_EMODEL;
            break;
        }
        char what[64];
        snprintf(what, sizeof what, "embedding '%s' id %d", lang, i);
        if ((rc = read_floats(s, st, 1, table + (size_t)i * D, (size_t)D, what, err, errlen)))
            break;
        i++;
        sqlrc = SQLITE_OK;
    }
    if (rc == TT_OK && sqlrc != SQLITE_DONE)
        rc = sql_fail(s, sqlrc, "reading embedding", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * tensor
 */

/* Writes dims as "rows,cols" or "n". Returns the element count, or 0 if invalid. */
static size_t format_shape(char *buf, size_t size, const int *dims, int ndim)
{
    if (!dims || ndim < 1 || ndim > 2 || dims[0] < 1 || (ndim == 2 && dims[1] < 1))
        return 0;
    if (ndim == 1) {
        snprintf(buf, size, "%d", dims[0]);
        return (size_t)dims[0];
    }
    snprintf(buf, size, "%d,%d", dims[0], dims[1]);
    return (size_t)dims[0] * (size_t)dims[1];
}

int store_tensor_write(Store *s, const char *name, const int *dims, int ndim,
                       const float *data, char *err, size_t errlen)
{
    char shape[48];
    size_t n = format_shape(shape, sizeof shape, dims, ndim);
    if (!name || !data || n == 0 || n * sizeof(float) > STORE_MAX_BLOB) {
        tt_errf(err, errlen, "%s: tensor '%s': invalid shape", s->path, name ? name : "?");
        return TT_EINVAL;
    }
    /* A model with a NaN or an Inf would never load again: it is never written. */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(data[i])) {
            tt_errf(err, errlen, "%s: tensor '%s' has a non-finite value (%s) at index %zu; "
                                 "not written", s->path, name, isnan(data[i]) ? "NaN" : "Inf", i);
            return TT_EINVAL;
        }
    float *scratch = malloc(n * sizeof(float));
    if (!scratch)
        return TT_ENOMEM;
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO tensor(name, shape, data) "
                                          "VALUES(?1, ?2, ?3)", -1, &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 2, shape, -1, SQLITE_STATIC);
    if (sqlrc == SQLITE_OK)
        sqlrc = bind_floats(st, 3, data, n, scratch);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
    sqlite3_finalize(st);
    free(scratch);
    if (sqlrc != SQLITE_OK) {
        char what[300];
        snprintf(what, sizeof what, "writing tensor '%s'", name);
        return sql_fail(s, sqlrc, what, err, errlen);
    }
    return TT_OK;
}

int store_tensor_read(Store *s, const char *name, const int *dims, int ndim, float *dst,
                      char *err, size_t errlen)
{
    char want[48];
    size_t n = format_shape(want, sizeof want, dims, ndim);
    if (!name || !dst || n == 0)
        return TT_EINVAL;
    sqlite3_stmt *st = NULL;
    int sqlrc = sqlite3_prepare_v2(s->db, "SELECT shape, data FROM tensor WHERE name = ?1", -1,
                                   &st, NULL);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlrc == SQLITE_OK)
        sqlrc = sqlite3_step(st);
    int rc;
    if (sqlrc == SQLITE_ROW) {
        const char *shape = (const char *)sqlite3_column_text(st, 0);
        char what[300];
        snprintf(what, sizeof what, "tensor '%s'", name);
        if (!shape || strcmp(shape, want) != 0) {
            tt_errf(err, errlen, "%s: tensor '%s' has shape '%s' but the model needs '%s'",
                    s->path, name, shape ? shape : "", want);
            rc = TT_EMODEL;
        } else {
            rc = read_floats(s, st, 1, dst, n, what, err, errlen);
        }
    } else if (sqlrc == SQLITE_DONE) {
        tt_errf(err, errlen, "%s: tensor '%s' is missing", s->path, name);
        rc = TT_EMODEL;
    } else {
        rc = sql_fail(s, sqlrc, "reading a tensor", err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Generic access for tables outside the core contract (see store.h)
 */

struct sqlite3 *store_db(Store *s)
{
    return s ? s->db : NULL;
}

int store_vacuum(Store *s, char *err, size_t errlen)
{
    const int old = sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 1);
    int rc = store_exec(s, "VACUUM", err, errlen);
    sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, old);
    return rc;
}

int store_tensor_exists(Store *s, const char *name, int *out, char *err, size_t errlen)
{
    *out = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM tensor WHERE name = ?1", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int result = TT_OK;
    if (rc == SQLITE_ROW)
        *out = 1;
    else if (rc != SQLITE_DONE)
        result = sql_fail(s, rc, "reading the tensor table", err, errlen);
    sqlite3_finalize(st);
    return result;
}

int store_exec(Store *s, const char *sql, char *err, size_t errlen)
{
    return exec(s, sql, sql, err, errlen);
}

int store_sql_error(Store *s, int sqlrc, const char *what, char *err, size_t errlen)
{
    return sql_fail(s, sqlrc, what, err, errlen);
}
