/*
 * test_faults.c — the resource-fault matrix: what toytrans does when memory runs
 * out, when the disk fills during a checkpoint, and when a model file is damaged.
 *
 * Allocation failure, SQLite's way. The binary is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (Makefile), so every call that
 * libtoytrans.a and this file make to those functions goes through the __wrap_ functions
 * below, which count allocations and fail on demand; SQLite's own allocations go through
 * the same counter by SQLITE_CONFIG_MALLOC. Each operation is first run once to count
 * its allocations; then for every k it runs again with the k-th allocation failing,
 * once ("only the k-th") and persistently ("the k-th and every one after"), until a run
 * completes without reaching k. Every run must end in a clean status, leave no leak
 * (make asan, make valgrind) and, when it reports success, have the right result.
 *
 * Not covered by the injection (it cannot be wrapped at link time): allocations made
 * inside shared libraries on their own behalf — utf8proc_map's buffer in the tokenizer
 * (libutf8proc calls malloc through its own PLT), glibc's fopen/getline/open_memstream/
 * qsort buffers and pthread_create's stack. libtoytrans.a references no strdup/strndup
 * (nm -u), so those are not wrapped.
 *
 * TOYTRANS_FAULT_STRIDE=n (default 1) thins every sweep for slow runners such as
 * valgrind (make valgrind sets it): every n-th k of the allocation sweeps, budgets n·4 KiB
 * apart in the disk-full sweeps, and about 1/n of the corrupt copies (the header fields
 * that must always be refused are still tried bit by bit).
 *
 * Disk full: an SQLite VFS shim over the default one, with a budget of bytes by which
 * files may grow; a write past it fails with SQLITE_FULL, which is what the unix VFS
 * returns for ENOSPC. Chosen over setrlimit(RLIMIT_FSIZE) in a forked child because it
 * needs no child process (a child under valgrind or LeakSanitizer reports the parent's
 * live memory as leaks when it exits, and cmocka's assertions do not cross processes),
 * it models one shared disk rather than a per-file size cap, and it is deterministic.
 *
 * Corrupt files: mutated copies of a small model file (every header bit, random bytes
 * in b-tree pages and in tensor blobs, truncations) must be refused with TT_EMODEL and
 * a message, or load as exactly the original model: the content checksum catches every
 * changed value, so a copy that loads had its flip in bytes nothing reads.
 *
 * Files live in a fresh directory under /dev/shm (TMPDIR or /tmp when that is not
 * there): thousands of small SQLite commits would otherwise wait for fsync.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "base/status.h"
#include "model/config.h"
#include "model/model.h"
#include "model/store.h"
#include "text/tokenizer.h"
#include "train/train.h"
#include "translate/translator.h"
#include "testutil.h"
#include "text/vocab.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRLEN 512

/* ---------------------------------------------------------------------------------------
 * Allocation faults
 */

/* The injector's state. Armed only around single-threaded operations. */
typedef struct {
    int armed;      /* 0: allocations pass through uncounted */
    long count;     /* allocations seen since arming */
    long fail_at;   /* 1-based index of the allocation to fail; 0: none */
    int persistent; /* 1: fail fail_at and every allocation after it */
    long injected;  /* failures returned since arming */
} Faults;

static Faults g_faults;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* Counts one allocation; 1 if it is to fail. */
static int fault_now(void)
{
    if (!g_faults.armed)
        return 0;
    long k = ++g_faults.count;
    if (g_faults.fail_at > 0 &&
        (k == g_faults.fail_at || (g_faults.persistent && k > g_faults.fail_at))) {
        g_faults.injected++;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t size)
{
    return fault_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fault_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return fault_now() ? NULL : __real_realloc(p, size);
}

static void faults_arm(long fail_at, int persistent)
{
    g_faults = (Faults){.armed = 1, .fail_at = fail_at, .persistent = persistent};
}

static void faults_disarm(void)
{
    g_faults.armed = 0;
}

/* SQLite's allocator: the system one with the size in a 16-byte header (xSize needs it,
 * and 16 keeps malloc's alignment), failing on the same counter. */
#define SQ_HEAD 16

static void *sq_malloc(int n)
{
    if (fault_now())
        return NULL;
    unsigned char *p = __real_malloc((size_t)n + SQ_HEAD);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    return p + SQ_HEAD;
}

static void sq_free(void *p)
{
    if (p)
        free((unsigned char *)p - SQ_HEAD);
}

static int sq_size(void *p)
{
    int n = 0;
    if (p)
        memcpy(&n, (unsigned char *)p - SQ_HEAD, sizeof n);
    return n;
}

static void *sq_realloc(void *p, int n)
{
    if (fault_now())
        return NULL;
    unsigned char *q = __real_realloc(p ? (unsigned char *)p - SQ_HEAD : NULL,
                                      (size_t)n + SQ_HEAD);
    if (!q)
        return NULL;
    memcpy(q, &n, sizeof n);
    return q + SQ_HEAD;
}

static int sq_roundup(int n)
{
    return (n + 7) & ~7;
}

static int sq_init(void *app)
{
    (void)app;
    return SQLITE_OK;
}

static void sq_shutdown(void *app)
{
    (void)app;
}

static const sqlite3_mem_methods SQ_METHODS = {sq_malloc, sq_free,   sq_realloc, sq_size,
                                               sq_roundup, sq_init, sq_shutdown, NULL};

/* ---------------------------------------------------------------------------------------
 * The disk-full VFS
 */

/* An open file of the shim: the real VFS's file follows it in the same allocation. */
typedef struct {
    sqlite3_file base;
    sqlite3_file *real;
} FullFile;

static sqlite3_vfs *g_real_vfs;   /* the default VFS, "unix" */
static sqlite3_vfs g_full_vfs;    /* a copy of it with xOpen and xDelete replaced */
static sqlite3_int64 g_disk_free; /* bytes files may still grow by; < 0: no limit */
static sqlite3_int64 g_disk_used; /* growth so far, with or without a limit */
static long g_disk_full_hits;     /* writes refused */

#define REAL(f) (((FullFile *)(f))->real)

static int full_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}

static int full_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xRead(REAL(f), buf, amt, off);
}

/* A write that makes the file longer takes the difference from the budget. */
static int full_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 off)
{
    sqlite3_int64 size = 0;
    int rc = REAL(f)->pMethods->xFileSize(REAL(f), &size);
    if (rc != SQLITE_OK)
        return rc;
    const sqlite3_int64 grow = off + amt - size;
    if (grow > 0) {
        if (g_disk_free >= 0 && grow > g_disk_free) {
            g_disk_full_hits++;
            return SQLITE_FULL;
        }
        if (g_disk_free >= 0)
            g_disk_free -= grow;
        g_disk_used += grow;
    }
    return REAL(f)->pMethods->xWrite(REAL(f), buf, amt, off);
}

static int full_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    sqlite3_int64 before = 0;
    REAL(f)->pMethods->xFileSize(REAL(f), &before);
    int rc = REAL(f)->pMethods->xTruncate(REAL(f), size);
    if (rc == SQLITE_OK && before > size && g_disk_free >= 0)
        g_disk_free += before - size;
    return rc;
}

static int full_sync(sqlite3_file *f, int flags)
{
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int full_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int full_lock(sqlite3_file *f, int level)
{
    return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int full_unlock(sqlite3_file *f, int level)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int full_check_reserved(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int full_file_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int full_sector_size(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int full_device_characteristics(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int full_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), page, size, extend, out);
}

static int full_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void full_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int full_shm_unmap(sqlite3_file *f, int delete_flag)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int full_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **out)
{
    return REAL(f)->pMethods->xFetch(REAL(f), off, amt, out);
}

static int full_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods FULL_IO = {
    3,
    full_close,
    full_read,
    full_write,
    full_truncate,
    full_sync,
    full_file_size,
    full_lock,
    full_unlock,
    full_check_reserved,
    full_file_control,
    full_sector_size,
    full_device_characteristics,
    full_shm_map,
    full_shm_lock,
    full_shm_barrier,
    full_shm_unmap,
    full_fetch,
    full_unfetch,
};

static int full_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
                     int *out_flags)
{
    (void)vfs;
    FullFile *p = (FullFile *)f;
    p->real = (sqlite3_file *)(p + 1);
    int rc = g_real_vfs->xOpen(g_real_vfs, name, p->real, flags, out_flags);
    p->base.pMethods = p->real->pMethods ? &FULL_IO : NULL;
    return rc;
}

/* A deleted file gives its bytes back. */
static int full_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    struct stat sb;
    sqlite3_int64 size = stat(name, &sb) == 0 ? (sqlite3_int64)sb.st_size : 0;
    int rc = g_real_vfs->xDelete(g_real_vfs, name, sync_dir);
    if (rc == SQLITE_OK && g_disk_free >= 0)
        g_disk_free += size;
    return rc;
}

/* Makes the shim the default VFS with budget bytes free (< 0: unlimited, counting). */
static void disk_limit(sqlite3_int64 budget)
{
    g_disk_free = budget;
    g_disk_used = 0;
    g_disk_full_hits = 0;
    assert_int_equal(sqlite3_vfs_register(&g_full_vfs, 1), SQLITE_OK);
}

/* Back to the real default VFS. */
static void disk_unlimit(void)
{
    sqlite3_vfs_unregister(&g_full_vfs);
    sqlite3_vfs_register(g_real_vfs, 1);
    g_disk_free = -1;
}

/* ---------------------------------------------------------------------------------------
 * Files and models
 */

typedef struct {
    char dir[256];       /* from mkdtemp, removed by teardown */
    char model[300];     /* dir/model.db: the small model every test starts from */
    unsigned char *bytes; /* its contents */
    size_t size;
    Model m;             /* the same model, in memory */
} Fixture;

static void path_in(char *dst, size_t size, const Fixture *f, const char *name)
{
    snprintf(dst, size, "%s/%s", f->dir, name);
}

static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *size = (size_t)n;
    return buf;
}

/* Removes path and the journal files SQLite may have left beside it. */
static void remove_db(const char *path)
{
    static const char *const SUFFIX[] = {"", "-wal", "-shm", "-journal"};
    char p[400];
    for (size_t i = 0; i < sizeof SUFFIX / sizeof SUFFIX[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, SUFFIX[i]);
        unlink(p);
    }
}

/* Replaces whatever is at path (and its journals) with size bytes. */
static void write_whole(const char *path, const unsigned char *bytes, size_t size)
{
    remove_db(path);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, size, fp), size);
    assert_int_equal(fclose(fp), 0);
}

/* A random model (d_model 16, one layer each side, d_ff 64: the feed-forward weights
 * need overflow pages) with a fixed vocabulary. */
static void build_model(Model *m, uint32_t seed)
{
    static const char *const SRC[] = {"<pad>", "<unk>", "<s>", "</s>", "the", "dog",
                                      "is",    "big",   "old", "man",  "sees", "a"};
    static const char *const TGT[] = {"<pad>", "<unk>", "<s>",  "</s>", "Der", "Hund",
                                      "ist",   "gro\xc3\x9f", "alte", "Mann", "sieht", "."};
    ModelConfig c;
    config_defaults(&c);
    c.d_model = 16;
    c.n_heads = 2;
    c.n_encoder_layers = 1;
    c.n_decoder_layers = 1;
    c.d_ff = 64;
    c.max_len = 12;
    Vocab src, tgt;
    char err[ERRLEN];
    assert_int_equal(vocab_from_tokens(&src, SRC, NULL, 12, err, sizeof err), TT_OK);
    assert_int_equal(vocab_from_tokens(&tgt, TGT, NULL, 12, err, sizeof err), TT_OK);
    assert_int_equal(model_init(m, &c, &src, &tgt, err, sizeof err), TT_OK);
    Rng rng;
    rng_seed(&rng, seed);
    model_randomize(m, &rng);
}

static void save_model(const Model *m, const char *path)
{
    char err[ERRLEN];
    Store *s = NULL;
    int rc = store_open(&s, path, STORE_REPLACE, err, sizeof err);
    if (rc == TT_OK)
        rc = store_begin(s, err, sizeof err);
    if (rc == TT_OK)
        rc = model_save(m, s, err, sizeof err);
    if (rc == TT_OK)
        rc = store_commit(s, err, sizeof err);
    int crc = store_close(s, err, sizeof err);
    if (rc != TT_OK || crc != TT_OK)
        print_error("saving %s: %s\n", path, err);
    assert_int_equal(rc, TT_OK);
    assert_int_equal(crc, TT_OK);
}

static int same_params(const Model *a, const Model *b)
{
    return a->n_params == b->n_params &&
           memcmp(a->params, b->params, a->n_params * sizeof(float)) == 0;
}

/* How many parameters of a and b differ (bitwise); SIZE_MAX if the layouts differ. */
static size_t params_differing(const Model *a, const Model *b)
{
    if (a->n_params != b->n_params)
        return SIZE_MAX;
    size_t n = 0;
    for (size_t i = 0; i < a->n_params; i++) {
        uint32_t x, y;
        memcpy(&x, &a->params[i], sizeof x);
        memcpy(&y, &b->params[i], sizeof y);
        n += x != y;
    }
    return n;
}

/* PRAGMA integrity_check through SQLite itself, read-only: 1 when it answers "ok". */
static int integrity_ok(const char *path)
{
    sqlite3 *db = NULL;
    int ok = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            const char *res = (const char *)sqlite3_column_text(st, 0);
            ok = res && strcmp(res, "ok") == 0;
            if (!ok)
                print_error("%s: integrity_check: %s\n", path, res ? res : "(null)");
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return ok;
}

static int fixture_setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *base = "/dev/shm", *tmpdir = getenv("TMPDIR");
    if (access(base, W_OK) != 0)
        base = tmpdir && *tmpdir ? tmpdir : "/tmp";
    snprintf(f->dir, sizeof f->dir, "%s/test_faults.XXXXXX", base);
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    path_in(f->model, sizeof f->model, f, "model.db");
    build_model(&f->m, 11);
    save_model(&f->m, f->model);
    f->bytes = read_whole(f->model, &f->size);
    if (!f->bytes)
        return -1;
    *state = f;
    return 0;
}

/* Removes the scratch directory and everything in it. */
static int fixture_teardown(void **state)
{
    Fixture *f = *state;
    int rc = testutil_remove_dir(f->dir);
    model_free(&f->m);
    free(f->bytes);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------
 * The allocation sweep
 */

/* One operation under test. op runs armed and must not assert; prepare and check run
 * disarmed before and after each attempt. */
typedef struct {
    const char *name;
    void (*prepare)(void *ctx);                      /* may be NULL */
    int (*op)(void *ctx, char *err, size_t errlen);  /* returns a toytrans code */
    void (*check)(void *ctx, int rc);                /* the result, success or not */
    int uses_sqlite;  /* 1: TT_EIO and TT_EMODEL are accepted as SQLite's out-of-memory */
    int needs_message; /* 1: the contract promises a message on every failure */
} FaultCase;

typedef struct {
    long allocations; /* in one undisturbed run */
    long runs;        /* faulty runs, both modes */
    long ok;          /* runs that succeeded although an allocation failed (benign) */
    long enomem, eio, emodel;
    long no_message;  /* failures with an empty err */
} FaultStats;

/* TOYTRANS_FAULT_STRIDE, read once by main: 1 tries everything. */
static long g_stride = 1;

static long fault_stride(void)
{
    const char *s = getenv("TOYTRANS_FAULT_STRIDE");
    char *end;
    long v = s ? strtol(s, &end, 10) : 1;
    return s && *end == '\0' && v >= 1 && v <= 1000 ? v : 1;
}

static void sweep(const FaultCase *fc, void *ctx, FaultStats *st)
{
    char err[ERRLEN];
    memset(st, 0, sizeof *st);
    if (fc->prepare)
        fc->prepare(ctx);
    faults_arm(0, 0);
    int rc = fc->op(ctx, err, sizeof err);
    faults_disarm();
    st->allocations = g_faults.count;
    if (rc != TT_OK)
        print_error("%s: %s\n", fc->name, err);
    assert_int_equal(rc, TT_OK);
    fc->check(ctx, rc);
    for (int persistent = 0; persistent <= 1; persistent++) {
        for (long k = 1;; k += g_stride) {
            if (fc->prepare)
                fc->prepare(ctx);
            err[0] = '\0';
            faults_arm(k, persistent);
            rc = fc->op(ctx, err, sizeof err);
            faults_disarm();
            const long injected = g_faults.injected;
            if (injected == 0) { /* k is past the operation's last allocation */
                if (rc != TT_OK)
                    print_error("%s: no fault injected, yet: %s\n", fc->name, err);
                assert_int_equal(rc, TT_OK);
                fc->check(ctx, rc);
                break;
            }
            st->runs++;
            const int accepted = rc == TT_OK || rc == TT_ENOMEM ||
                                 (fc->uses_sqlite && (rc == TT_EIO || rc == TT_EMODEL));
            if (!accepted)
                print_error("%s: allocation %ld failed (%s): status %d, %s\n", fc->name, k,
                            persistent ? "and all after" : "only", rc, err);
            assert_true(accepted);
            st->ok += rc == TT_OK;
            st->enomem += rc == TT_ENOMEM;
            st->eio += rc == TT_EIO;
            st->emodel += rc == TT_EMODEL;
            if (rc != TT_OK && err[0] == '\0') {
                st->no_message++;
                if (fc->needs_message)
                    print_error("%s: allocation %ld failed (%s): status %d without a message\n",
                                fc->name, k, persistent ? "and all after" : "only", rc);
                assert_false(fc->needs_message);
            }
            fc->check(ctx, rc);
        }
    }
    printf("faults: %-10s %5ld allocations; %5ld faulty runs: ENOMEM %ld, EIO %ld, EMODEL %ld,"
           " OK %ld (benign); %ld without a message\n",
           fc->name, st->allocations, st->runs, st->enomem, st->eio, st->emodel, st->ok,
           st->no_message);
}

/* --- loading --- */

typedef struct {
    const char *path;
    const Model *want;
    Model got;
} LoadCtx;

static int load_op(void *ctx, char *err, size_t errlen)
{
    LoadCtx *c = ctx;
    return model_load_file(&c->got, c->path, err, errlen);
}

static void load_check(void *ctx, int rc)
{
    LoadCtx *c = ctx;
    if (rc == TT_OK)
        assert_true(same_params(&c->got, c->want));
    else
        assert_null(c->got.params); /* a failed load owns nothing */
    model_free(&c->got);
}

/* Every allocation failure while loading a model ends in a clean code, no leak. */
static void test_faults_alloc_load_model(void **state)
{
    Fixture *f = *state;
    LoadCtx c = {.path = f->model, .want = &f->m};
    const FaultCase fc = {"load", NULL, load_op, load_check, 1, 0};
    FaultStats st;
    sweep(&fc, &c, &st);
    assert_true(st.allocations > 0);
    assert_true(st.enomem > 0);
}

/* --- tokenizing --- */

typedef struct {
    const char *text;
    TokLang lang;
    TokenList want;
    TokenList got;
} TokCtx;

static int tok_op(void *ctx, char *err, size_t errlen)
{
    TokCtx *c = ctx;
    TokError te;
    int rc = tokenize(&c->got, c->text, strlen(c->text), c->lang, &te);
    if (rc != TT_OK && rc != TT_ENOMEM)
        snprintf(err, errlen, "%s", te.message);
    return rc;
}

static void tok_check(void *ctx, int rc)
{
    TokCtx *c = ctx;
    if (rc == TT_OK) {
        assert_int_equal(c->got.n, c->want.n);
        for (int i = 0; i < c->want.n; i++)
            assert_string_equal(c->got.tok[i], c->want.tok[i]);
    } else { /* on failure out owns nothing */
        assert_int_equal(c->got.n, 0);
        assert_null(c->got.tok);
        assert_null(c->got.text);
    }
    tokenlist_free(&c->got);
}

/* Every allocation failure while tokenizing (more than 16 tokens, so the token array
 * grows) ends in TT_ENOMEM with nothing owned. */
static void test_faults_alloc_tokenize(void **state)
{
    (void)state;
    static const char TEXT[] = "The old man's well-known dog, \xe2\x80\x9e" "Anna\xe2\x80\x9c, "
                               "sees a red car (again) \xe2\x80\xa6 and M\x61\xcc\x88" "dchen "
                               "writes: don't stop!";
    for (int lang = TOK_SRC; lang <= TOK_TGT; lang++) {
        TokCtx c = {.text = TEXT, .lang = (TokLang)lang};
        assert_int_equal(tokenize(&c.want, TEXT, strlen(TEXT), c.lang, NULL), TT_OK);
        assert_true(c.want.n > 16);
        const FaultCase fc = {lang == TOK_SRC ? "tokenize/src" : "tokenize/tgt", NULL, tok_op,
                              tok_check, 0, 0};
        FaultStats st;
        sweep(&fc, &c, &st);
        assert_int_equal(st.ok, 0);
        tokenlist_free(&c.want);
    }
}

/* --- translating --- */

#define N_SENTENCES 2

typedef struct {
    const Model *m;
    TranslatorOptions o;
    const char *sentences[N_SENTENCES];
    char want[N_SENTENCES][256];
    int mismatch; /* 1 + the sentence whose successful translation differed, or 0 */
    char got[256]; /* what it came out as */
} TransCtx;

static int trans_op(void *ctx, char *err, size_t errlen)
{
    TransCtx *c = ctx;
    Translator tr;
    c->mismatch = 0;
    int rc = translator_init(&tr, c->m, &c->o, err, errlen);
    for (int i = 0; rc == TT_OK && i < N_SENTENCES; i++) {
        TranslatorResult r;
        rc = translator_run(&tr, c->sentences[i], strlen(c->sentences[i]), &r, err, errlen);
        if (rc == TT_OK && strcmp(r.text, c->want[i]) != 0 && !c->mismatch) {
            c->mismatch = i + 1;
            snprintf(c->got, sizeof c->got, "%s", r.text);
        }
    }
    translator_free(&tr);
    return rc;
}

static void trans_check(void *ctx, int rc)
{
    TransCtx *c = ctx;
    if (rc == TT_OK && c->mismatch)
        print_error("translate: sentence %d came out as '%s', not '%s'\n", c->mismatch,
                    c->got, c->want[c->mismatch - 1]);
    assert_int_equal(rc == TT_OK ? c->mismatch : 0, 0);
}

/* Every allocation failure in translator_init and translator_run (beam 2, a prefix,
 * alternatives, two sentences) ends in TT_ENOMEM with a message, and no leak; a run that
 * succeeds translates as an undisturbed one does. The model always generates <unk>, so
 * the text is source words as typed, and losing their spelling would show. */
static void test_faults_alloc_translate(void **state)
{
    (void)state;
    Model m;
    build_model(&m, 11);
    testutil_tensor(&m, "generator.bias")[VOCAB_UNK] = 100.0f;
    TransCtx c = {.m = &m,
                  .o = {.decode = {.beam = 2}, .alternatives = 2, .prefix = "Der"},
                  .sentences = {"The old Zorblax sees the dog", "Anna is big."}};
    /* The expected texts: one undisturbed run. */
    Translator tr;
    char err[ERRLEN];
    assert_int_equal(translator_init(&tr, c.m, &c.o, err, sizeof err), TT_OK);
    for (int i = 0; i < N_SENTENCES; i++) {
        TranslatorResult r;
        assert_int_equal(translator_run(&tr, c.sentences[i], strlen(c.sentences[i]), &r, err,
                                        sizeof err), TT_OK);
        snprintf(c.want[i], sizeof c.want[i], "%s", r.text);
    }
    translator_free(&tr);
    assert_non_null(strstr(c.want[0], "Zorblax"));
    const FaultCase fc = {"translate", NULL, trans_op, trans_check, 0, 1};
    FaultStats st;
    sweep(&fc, &c, &st);
    assert_true(st.enomem > 0);
    assert_int_equal(st.ok, 0);
    model_free(&m);
}

/* --- saving a checkpoint --- */

typedef struct {
    const Fixture *f;
    char path[300];
    Model next;       /* the state being saved */
    float *optim;     /* (n_params) a stand-in for the optimiser state */
} SaveCtx;

static void save_prepare(void *ctx)
{
    SaveCtx *c = ctx;
    write_whole(c->path, c->f->bytes, c->f->size);
}

/* One checkpoint as checkpoint.c writes it: open for writing, one transaction, close. */
static int save_op(void *ctx, char *err, size_t errlen)
{
    SaveCtx *c = ctx;
    Store *s = NULL;
    const int dims[1] = {(int)c->next.n_params};
    int rc = store_open(&s, c->path, STORE_WRITE, err, errlen);
    if (rc == TT_OK)
        rc = store_begin(s, err, errlen);
    if (rc == TT_OK)
        rc = model_save(&c->next, s, err, errlen);
    if (rc == TT_OK)
        rc = store_tensor_write(s, "optim.m", dims, 1, c->optim, err, errlen);
    if (rc == TT_OK)
        rc = store_meta_set(s, "train_step", "2", err, errlen);
    if (rc == TT_OK)
        rc = store_commit(s, err, errlen);
    int crc = store_close(s, rc == TT_OK ? err : NULL, errlen);
    return rc == TT_OK ? crc : rc;
}

/* The file is intact, and holds the old state or the new one (the new one on success:
 * a failure may come after the commit, in store_close). */
static void save_check(void *ctx, int rc)
{
    SaveCtx *c = ctx;
    assert_true(integrity_ok(c->path));
    Model got;
    char err[ERRLEN];
    int lrc = model_load_file(&got, c->path, err, sizeof err);
    if (lrc != TT_OK)
        print_error("after a failed save: %s\n", err);
    assert_int_equal(lrc, TT_OK);
    const int is_new = same_params(&got, &c->next), is_old = same_params(&got, &c->f->m);
    assert_true(is_new || is_old);
    if (rc == TT_OK)
        assert_true(is_new);
    model_free(&got);
}

/* Every allocation failure while saving a checkpoint leaves the file intact, at the
 * previous state or the new one. */
static void test_faults_alloc_save_checkpoint(void **state)
{
    Fixture *f = *state;
    SaveCtx c = {.f = f};
    path_in(c.path, sizeof c.path, f, "save.db");
    build_model(&c.next, 12);
    c.optim = calloc(c.next.n_params, sizeof(float));
    assert_non_null(c.optim);
    const FaultCase fc = {"save", save_prepare, save_op, save_check, 1, 0};
    FaultStats st;
    sweep(&fc, &c, &st);
    assert_true(st.enomem > 0);
    free(c.optim);
    model_free(&c.next);
    remove_db(c.path);
}

/* ---------------------------------------------------------------------------------------
 * Disk full during training
 */

static const char CORPUS[] = TESTUTIL_CORPUS8;

#define BASE_STEP 2   /* the checkpoint the trials resume from */
#define TRIAL_STEPS 5 /* steps each trial trains, with a checkpoint after every one */

typedef struct {
    char corpus[300];
    char path[300];
    TrainOptions o;
    unsigned char *base; /* the model file at step BASE_STEP */
    size_t base_size;
    Model ref[BASE_STEP + TRIAL_STEPS + 1]; /* ref[t]: the model after step t */
    long last_step;      /* the last step a trial reported */
} DiskCtx;

static void on_progress(void *ctx, const TrainProgress *p)
{
    DiskCtx *c = ctx;
    c->last_step = p->step;
}

static void disk_options(DiskCtx *c)
{
    TrainOptions *o = &c->o;
    train_options_defaults(o);
    o->train_path = c->corpus;
    o->valid_path = c->corpus; /* the end of epoch 1 (step 4) also writes valid_log */
    o->out_path = c->path;
    o->config.d_model = 8;
    o->config.n_heads = 2;
    o->config.n_encoder_layers = 1;
    o->config.n_decoder_layers = 1;
    o->config.d_ff = 16;
    o->config.max_len = 12;
    o->epochs = 3;
    o->batch = 2; /* 4 steps an epoch */
    o->warmup = 2;
    o->threads = 1;
    o->checkpoint_every = 1;
    o->name_augment = 0;
}

/* Resumes from the base file for steps more steps (a fresh copy, no limit). */
static int disk_resume(DiskCtx *c, long steps, char *err, size_t errlen)
{
    write_whole(c->path, c->base, c->base_size);
    c->o.resume = 1;
    c->o.force = 0;
    c->o.stop_after = steps;
    c->last_step = BASE_STEP;
    return train_run(&c->o, on_progress, c, NULL, err, errlen);
}

static long model_step(const char *path)
{
    Store *s = NULL;
    char err[ERRLEN];
    long step = -1;
    assert_int_equal(store_open(&s, path, STORE_READ, err, sizeof err), TT_OK);
    assert_int_equal(store_meta_get_long(s, "train_step", 0, 1000, &step, err, sizeof err),
                     TT_OK);
    store_close(s, NULL, 0);
    return step;
}

/* The model at path is whole, loads, translates, and is exactly the run's model after
 * its last committed step; returns that step. */
static long check_checkpoint(DiskCtx *c, const char *path)
{
    assert_true(integrity_ok(path));
    long step = model_step(path);
    assert_true(step >= 0 && step <= BASE_STEP + TRIAL_STEPS);
    Model got;
    char err[ERRLEN];
    int rc = model_load_file(&got, path, err, sizeof err);
    if (rc != TT_OK)
        print_error("%s\n", err);
    assert_int_equal(rc, TT_OK);
    if (step >= BASE_STEP)
        assert_true(same_params(&got, &c->ref[step]));
    Translator tr;
    TranslatorResult r;
    const TranslatorOptions o = {.decode = {.beam = 1}};
    assert_int_equal(translator_init(&tr, &got, &o, err, sizeof err), TT_OK);
    assert_int_equal(translator_run(&tr, "the dog is old", 14, &r, err, sizeof err), TT_OK);
    translator_free(&tr);
    model_free(&got);
    return step;
}

static void disk_setup(DiskCtx *c, const Fixture *f)
{
    char err[ERRLEN];
    path_in(c->corpus, sizeof c->corpus, f, "corpus.tsv");
    path_in(c->path, sizeof c->path, f, "train.db");
    write_whole(c->corpus, (const unsigned char *)CORPUS, sizeof CORPUS - 1);
    disk_options(c);
    remove_db(c->path);
    c->o.force = 1;
    c->o.stop_after = BASE_STEP;
    int rc = train_run(&c->o, NULL, NULL, NULL, err, sizeof err);
    if (rc != TT_OK)
        print_error("train: %s\n", err);
    assert_int_equal(rc, TT_OK);
    c->base = read_whole(c->path, &c->base_size);
    assert_non_null(c->base);
    assert_int_equal(model_step(c->path), BASE_STEP);
    assert_int_equal(model_load_file(&c->ref[BASE_STEP], c->path, err, sizeof err), TT_OK);
    for (long s = 1; s <= TRIAL_STEPS; s++) {
        assert_int_equal(disk_resume(c, s, err, sizeof err), TT_OK);
        assert_int_equal(model_step(c->path), BASE_STEP + s);
        assert_int_equal(model_load_file(&c->ref[BASE_STEP + s], c->path, err, sizeof err),
                         TT_OK);
    }
}

static void disk_teardown(DiskCtx *c)
{
    for (size_t i = 0; i < sizeof c->ref / sizeof c->ref[0]; i++)
        model_free(&c->ref[i]);
    free(c->base);
    remove_db(c->path);
    unlink(c->corpus);
}

/* When the disk fills during a resumed run's checkpoints, train_run returns TT_EIO naming
 * the file, and the file holds the last checkpoint that committed, whole. */
static void test_faults_disk_full_keeps_last_checkpoint(void **state)
{
    Fixture *f = *state;
    DiskCtx c;
    memset(&c, 0, sizeof c);
    disk_setup(&c, f);
    char err[ERRLEN];
    /* How many bytes an undisturbed trial makes its files grow by. */
    disk_limit(-1);
    assert_int_equal(disk_resume(&c, TRIAL_STEPS, err, sizeof err), TT_OK);
    const sqlite3_int64 needed = g_disk_used;
    disk_unlimit();
    long trials = 0, failed = 0, failed_at_first = 0, failed_later = 0, failed_closing = 0;
    long at_step[BASE_STEP + TRIAL_STEPS + 1] = {0};
    for (sqlite3_int64 budget = 0; budget <= needed + 4096; budget += 4096 * g_stride) {
        err[0] = '\0';
        write_whole(c.path, c.base, c.base_size);
        disk_limit(budget);
        int rc = disk_resume(&c, TRIAL_STEPS, err, sizeof err);
        const long hits = g_disk_full_hits;
        disk_unlimit();
        trials++;
        long step = check_checkpoint(&c, c.path);
        at_step[step]++;
        if (rc == TT_OK) {
            assert_int_equal(step, BASE_STEP + TRIAL_STEPS);
            continue;
        }
        failed++;
        if (rc != TT_EIO || !strstr(err, c.path) || hits == 0)
            print_error("budget %lld: status %d, %ld writes refused: %s\n", (long long)budget,
                        rc, hits, err);
        assert_int_equal(rc, TT_EIO);
        assert_non_null(strstr(err, c.path));
        assert_true(hits > 0);
        /* The checkpoint after the last reported step failed, or (that one committed)
         * closing the file did. */
        assert_true(step == c.last_step - 1 || step == c.last_step);
        if (step == c.last_step)
            failed_closing++;
        else if (step == BASE_STEP)
            failed_at_first++;
        else
            failed_later++;
    }
    printf("faults: disk full: %ld budgets (0..%lld bytes by %ld), %ld failed: %ld at the "
           "first checkpoint, %ld at a later one, %ld closing; last step kept:",
           trials, (long long)needed + 4096, 4096 * g_stride, failed, failed_at_first,
           failed_later, failed_closing);
    for (int s = BASE_STEP; s <= BASE_STEP + TRIAL_STEPS; s++)
        printf(" %d:%ld", s, at_step[s]);
    printf("\n");
    assert_true(failed_at_first > 0);
    assert_true(failed_later > 0);
    disk_teardown(&c);
}

/* When the disk fills while a new run replaces an existing model (--force), the old file
 * stays byte for byte until the new one is complete, and no temporary file is left. */
static void test_faults_disk_full_new_run_replaces_atomically(void **state)
{
    Fixture *f = *state;
    DiskCtx c;
    memset(&c, 0, sizeof c);
    path_in(c.corpus, sizeof c.corpus, f, "corpus.tsv");
    path_in(c.path, sizeof c.path, f, "train.db");
    write_whole(c.corpus, (const unsigned char *)CORPUS, sizeof CORPUS - 1);
    disk_options(&c);
    c.o.force = 1;
    c.o.stop_after = 2;
    char err[ERRLEN], tmp[400];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", c.path, (long)getpid()); /* as store.c names it */
    disk_limit(-1);
    write_whole(c.path, f->bytes, f->size);
    assert_int_equal(train_run(&c.o, NULL, NULL, NULL, err, sizeof err), TT_OK);
    const sqlite3_int64 needed = g_disk_used;
    disk_unlimit();
    long trials = 0, kept_old = 0, replaced = 0;
    for (sqlite3_int64 budget = 0; budget <= needed + 4096; budget += 4096 * g_stride) {
        write_whole(c.path, f->bytes, f->size); /* the model being replaced */
        err[0] = '\0';
        disk_limit(budget);
        int rc = train_run(&c.o, NULL, NULL, NULL, err, sizeof err);
        disk_unlimit();
        trials++;
        struct stat sb;
        assert_int_not_equal(stat(tmp, &sb), 0);
        size_t size;
        unsigned char *now = read_whole(c.path, &size);
        assert_non_null(now);
        const int old = size == f->size && memcmp(now, f->bytes, size) == 0;
        free(now);
        if (rc == TT_OK)
            assert_false(old);
        else {
            assert_int_equal(rc, TT_EIO);
            assert_non_null(strstr(err, c.path));
        }
        if (old) {
            kept_old++;
            continue;
        }
        replaced++;
        assert_true(integrity_ok(c.path));
        Model got;
        assert_int_equal(model_load_file(&got, c.path, err, sizeof err), TT_OK);
        model_free(&got);
    }
    printf("faults: disk full, new run: %ld budgets, old file kept %ld, replaced %ld\n",
           trials, kept_old, replaced);
    assert_true(kept_old > 0);
    remove_db(c.path);
    unlink(c.corpus);
}

/* ---------------------------------------------------------------------------------------
 * Corrupt files
 */

typedef struct {
    long tried, refused, accepted, eio;
    size_t most_changed; /* the most parameters an accepted copy changed */
} Tally;

/* model_load_file_unchecked and model_load_checks, one after the other: what
 * translate's threads do, which must come to model_load_file's status and message. */
static int load_in_two_parts(Model *m, const char *path, char *err, size_t errlen)
{
    ModelChecks checks;
    int rc = model_load_file_unchecked(m, &checks, path, err, errlen);
    if (rc != TT_OK) {
        assert_null(checks.s);
        return rc;
    }
    if ((rc = model_load_checks(&checks, err, errlen)) != TT_OK)
        model_free(m);
    assert_null(checks.s);
    return rc;
}

/* Loads size bytes as a model file; 1 if refused. Checks the status and message (the
 * same when the load is split in two), and for an accepted copy counts the parameters
 * that differ from the original. */
static int try_copy(Fixture *f, const char *path, const unsigned char *bytes, size_t size,
                    Tally *t, const char *what)
{
    write_whole(path, bytes, size);
    Model got, split;
    char err[ERRLEN] = "", split_err[ERRLEN] = "";
    int rc = model_load_file(&got, path, err, sizeof err);
    const int split_rc = load_in_two_parts(&split, path, split_err, sizeof split_err);
    remove_db(path);
    if (split_rc != rc || strcmp(split_err, err) != 0)
        print_error("%s: loaded in two parts: status %d (%s), in one: %d (%s)\n", what,
                    split_rc, split_err, rc, err);
    assert_int_equal(split_rc, rc);
    assert_string_equal(split_err, err);
    if (split_rc == TT_OK) {
        assert_int_equal(params_differing(&split, &got), 0);
        model_free(&split);
    }
    t->tried++;
    if (rc != TT_OK && rc != TT_EMODEL)
        print_error("%s: status %d: %s\n", what, rc, err);
    assert_true(rc == TT_OK || rc == TT_EMODEL);
    if (rc != TT_OK) {
        if (err[0] == '\0')
            print_error("%s: refused without a message\n", what);
        assert_true(err[0] != '\0');
        t->refused++;
        return 1;
    }
    t->accepted++;
    size_t changed = params_differing(&got, &f->m);
    if (changed > t->most_changed)
        t->most_changed = changed;
    if (changed > 1)
        print_error("%s: accepted with %zu parameters changed\n", what, changed);
    model_free(&got);
    return 0;
}

static void print_tally(const char *what, const Tally *t)
{
    printf("faults: corrupt %-16s %5ld copies: refused %5ld, accepted %5ld (at most %zu "
           "parameter%s changed)\n",
           what, t->tried, t->refused, t->accepted, t->most_changed,
           t->most_changed == 1 ? "" : "s");
}

/* The pages of the model file, by kind (from SQLite's dbstat table). */
typedef struct {
    int page_size;
    int n_pages;
    int btree[64], n_btree; /* interior and leaf pages of the tables */
    int index[64], n_index; /* pages of the indexes (the primary keys' autoindexes) */
    int blob[64], n_blob;   /* overflow pages of the tensor table: float data */
} PageMap;

static void map_pages(const char *path, PageMap *pm)
{
    memset(pm, 0, sizeof *pm);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT name, pageno, pagetype, "
                                            "(SELECT page_size FROM pragma_page_size), "
                                            "(SELECT page_count FROM pragma_page_count) "
                                            "FROM dbstat ORDER BY pageno", -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 2);
        int page = sqlite3_column_int(st, 1);
        pm->page_size = sqlite3_column_int(st, 3);
        pm->n_pages = sqlite3_column_int(st, 4);
        if (strcmp(type, "overflow") == 0) {
            if (strcmp(name, "tensor") == 0 && pm->n_blob < 64)
                pm->blob[pm->n_blob++] = page;
        } else if (strncmp(name, "sqlite_autoindex_", 17) == 0) {
            if (pm->n_index < 64)
                pm->index[pm->n_index++] = page;
        } else if (pm->n_btree < 64) {
            pm->btree[pm->n_btree++] = page;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Header fields whose every bit is checked on open: a flip there is always refused. */
static int header_field_checked(int offset)
{
    return offset < 16                      /* "SQLite format 3\0" */
           || (offset >= 60 && offset < 64) /* user_version: the format version */
           || (offset >= 68 && offset < 72); /* application_id */
}

/* Every single-bit flip in the 100-byte header, and seeded random changes in table
 * b-tree pages, index pages and tensor blobs, is refused with TT_EMODEL and a message or
 * loads as exactly the original model; flips in the magic string, user_version and
 * application_id are always refused. */
static void test_faults_corrupt_flips_refused_or_harmless(void **state)
{
    Fixture *f = *state;
    char path[300];
    path_in(path, sizeof path, f, "corrupt.db");
    PageMap pm;
    map_pages(f->model, &pm);
    assert_int_equal((size_t)pm.page_size * (size_t)pm.n_pages, f->size);
    assert_true(pm.n_btree > 0 && pm.n_index > 0 && pm.n_blob > 0);
    unsigned char *copy = malloc(f->size);
    assert_non_null(copy);
    char what[96];

    Tally header = {0};
    int accepted_at[100] = {0};
    for (int byte = 0; byte < 100; byte++)
        for (int bit = 0; bit < 8; bit++) {
            if ((byte * 8 + bit) % g_stride != 0 && !header_field_checked(byte))
                continue;
            memcpy(copy, f->bytes, f->size);
            copy[byte] ^= (unsigned char)(1u << bit);
            snprintf(what, sizeof what, "header byte %d bit %d", byte, bit);
            int refused = try_copy(f, path, copy, f->size, &header, what);
            if (header_field_checked(byte) && !refused)
                print_error("%s: accepted\n", what);
            assert_true(refused || !header_field_checked(byte));
            accepted_at[byte] += !refused;
        }

    Rng rng;
    rng_seed(&rng, 20240808);
    const int n_random = (int)(400 / g_stride) + 1;
    Tally btree = {0}, blob = {0};
    for (int i = 0; i < n_random; i++) {
        const int page = pm.btree[rng_next_u32(&rng) % (uint32_t)pm.n_btree];
        const size_t lo = page == 1 ? 100 : 0; /* page 1 starts with the header */
        const size_t at = (size_t)(page - 1) * (size_t)pm.page_size + lo +
                          rng_next_u32(&rng) % (uint32_t)(pm.page_size - (int)lo);
        memcpy(copy, f->bytes, f->size);
        copy[at] ^= (unsigned char)(1 + rng_next_u32(&rng) % 255);
        snprintf(what, sizeof what, "b-tree page %d byte %zu", page, at);
        try_copy(f, path, copy, f->size, &btree, what);
    }
    /* An index entry is a key and a rowid; a damaged rowid sends a lookup to another
     * row, which quick_check does not notice (PRAGMA integrity_check does). One bit, in
     * the used part of the page (nonzero bytes), so that the rowids are often hit. */
    Tally index = {0};
    for (int i = 0; i < n_random; i++) {
        const int page = pm.index[rng_next_u32(&rng) % (uint32_t)pm.n_index];
        size_t at;
        do
            at = (size_t)(page - 1) * (size_t)pm.page_size +
                 rng_next_u32(&rng) % (uint32_t)pm.page_size;
        while (f->bytes[at] == 0);
        memcpy(copy, f->bytes, f->size);
        copy[at] ^= (unsigned char)(1u << (rng_next_u32(&rng) % 8));
        snprintf(what, sizeof what, "index page %d byte %zu", page, at);
        try_copy(f, path, copy, f->size, &index, what);
    }
    for (int i = 0; i < n_random; i++) {
        const int page = pm.blob[rng_next_u32(&rng) % (uint32_t)pm.n_blob];
        /* The first 4 bytes of an overflow page point to the next one. */
        const size_t at = (size_t)(page - 1) * (size_t)pm.page_size + 4 +
                          rng_next_u32(&rng) % (uint32_t)(pm.page_size - 4);
        memcpy(copy, f->bytes, f->size);
        copy[at] ^= (unsigned char)(1 + rng_next_u32(&rng) % 255);
        snprintf(what, sizeof what, "tensor page %d byte %zu", page, at);
        try_copy(f, path, copy, f->size, &blob, what);
    }
    free(copy);

    print_tally("header bits", &header);
    printf("faults: header bytes where some flip was accepted:");
    for (int byte = 0; byte < 100; byte++)
        if (accepted_at[byte])
            printf(" %d(%d)", byte, accepted_at[byte]);
    printf("\n");
    print_tally("table b-tree bytes", &btree);
    print_tally("index bits", &index);
    print_tally("tensor bytes", &blob);
    printf("faults: model file %zu bytes, %d pages of %d: %d table b-tree, %d index, %d tensor "
           "overflow\n", f->size, pm.n_pages, pm.page_size, pm.n_btree, pm.n_index, pm.n_blob);
    /* The content checksum (meta content_fnv1a64) covers every float: a copy that loads
     * must be the original model (the flip hit bytes nothing reads: free space, an
     * ignored header field). */
    assert_true(header.most_changed == 0 && btree.most_changed == 0 &&
                index.most_changed == 0 && blob.most_changed == 0);
    assert_true(blob.refused > 0);
}

/* A model file cut short anywhere — at every page boundary and at seeded random
 * offsets — is refused with TT_EMODEL and a message. */
static void test_faults_corrupt_truncated_refused(void **state)
{
    Fixture *f = *state;
    char path[300], what[64];
    path_in(path, sizeof path, f, "corrupt.db");
    const size_t page = 4096;
    Tally t = {0};
    for (size_t at = 0; at < f->size; at += page) {
        snprintf(what, sizeof what, "truncated at %zu", at);
        assert_true(try_copy(f, path, f->bytes, at, &t, what));
    }
    static const size_t FIXED[] = {1, 16, 99, 100, 101, 4095, 4097};
    for (size_t i = 0; i < sizeof FIXED / sizeof FIXED[0]; i++) {
        snprintf(what, sizeof what, "truncated at %zu", FIXED[i]);
        assert_true(try_copy(f, path, f->bytes, FIXED[i], &t, what));
    }
    Rng rng;
    rng_seed(&rng, 42);
    for (int i = 0; i < 100 / g_stride + 1; i++) {
        const size_t at = 1 + rng_next_u32(&rng) % (uint32_t)(f->size - 1);
        snprintf(what, sizeof what, "truncated at %zu", at);
        assert_true(try_copy(f, path, f->bytes, at, &t, what));
    }
    print_tally("truncations", &t);
}

int main(void)
{
    /* SQLite takes an allocator only before it initialises; nothing has used it yet,
     * and shutting it down first makes sure. */
    sqlite3_shutdown();
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &SQ_METHODS) != SQLITE_OK ||
        sqlite3_initialize() != SQLITE_OK) {
        fprintf(stderr, "test_faults: cannot install the SQLite allocator\n");
        return 1;
    }
    g_real_vfs = sqlite3_vfs_find(NULL);
    g_full_vfs = *g_real_vfs;
    g_full_vfs.zName = "toytrans-disk-full";
    g_full_vfs.szOsFile = (int)sizeof(FullFile) + g_real_vfs->szOsFile;
    g_full_vfs.pNext = NULL;
    g_full_vfs.xOpen = full_open;
    g_full_vfs.xDelete = full_delete;
    g_disk_free = -1;
    g_stride = fault_stride();
    if (g_stride > 1)
        printf("faults: TOYTRANS_FAULT_STRIDE=%ld: one allocation in %ld, about 1/%ld of the "
               "disk budgets and corrupt copies\n", g_stride, g_stride, g_stride);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faults_alloc_load_model),
        cmocka_unit_test(test_faults_alloc_tokenize),
        cmocka_unit_test(test_faults_alloc_translate),
        cmocka_unit_test(test_faults_alloc_save_checkpoint),
        cmocka_unit_test(test_faults_disk_full_keeps_last_checkpoint),
        cmocka_unit_test(test_faults_disk_full_new_run_replaces_atomically),
        cmocka_unit_test(test_faults_corrupt_flips_refused_or_harmless),
        cmocka_unit_test(test_faults_corrupt_truncated_refused),
    };
    int failed = cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
    sqlite3_shutdown();
    return failed;
}
