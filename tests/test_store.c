/*
 * test_store.c — the SQLite model file: a round trip that must be bit-identical, and
 * every way a file can break the contract refused with its own code and message.
 *
 * Each test works in a fresh directory from mkdtemp() that teardown empties and removes.
 * A small but complete model (config, both vocabularies, both embedding tables, 1-D and
 * 2-D tensors, one of them large enough to need overflow pages) is built through the
 * store API; the damage cases then break that file with the sqlite3 C API or by
 * truncating it, and check store_open(STORE_READ) or the first read that meets the
 * damage fails with the right code, a distinctive message and the file's path — and
 * that the failed read left the file byte-for-byte as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "model/config.h"
#include "model/store.h"
#include "testutil.h"
#include "text/vocab.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRLEN 512

/* ---------------------------------------------------------------------------------------
 * The test directory
 */

/* Asserts the directory holds exactly the names given (NULL-terminated list): no
 * .tmp, -wal, -shm or -journal left beside the model. */
static void assert_dir_holds(const char *dir, const char *const *names)
{
    size_t want = 0;
    while (names[want])
        want++;
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int known = 0;
        for (size_t i = 0; i < want; i++)
            known |= strcmp(e->d_name, names[i]) == 0;
        if (!known) {
            print_error("unexpected file left in %s: %s\n", dir, e->d_name);
            closedir(d);
            fail();
        }
        seen++;
    }
    closedir(d);
    assert_int_equal(seen, want);
}

static int path_exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* The whole file in a malloc'd buffer (the caller frees), or NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            unsigned char *b = realloc(buf, cap);
            assert_non_null(b);
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    fclose(fp);
    *len = n;
    return buf;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* Fails the test with the store's message when rc is not TT_OK. */
/* Fails the test unless err contains want. */
#define assert_msg_has(err, want)                                                          \
    do {                                                                                   \
        if (!strstr((err), (want))) {                                                      \
            print_error("%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,        \
                        (err), (want));                                                    \
            fail();                                                                        \
        }                                                                                  \
    } while (0)

/* ---------------------------------------------------------------------------------------
 * The reference model
 */

#define N_TENSORS 5

/* Every tensor the reference model holds. */
static const struct {
    const char *name;
    int ndim;
    int dims[2];
} TENSORS[N_TENSORS] = {
    {"encoder.0.attn.wq", 2, {8, 8}},
    {"encoder.0.attn.bq", 1, {8}},
    {"decoder.0.ffn.w1", 2, {32, 8}},
    {"final.bias", 1, {5}},
    {"test.large", 2, {40, 40}}, /* 6400 bytes: spans overflow pages */
};

static const char *const TGT_TOKENS[] = {"<pad>", "<unk>", "<s>",   "</s>",
                                         "die",   "Katze", "saß",   "auf",
                                         "der",   "Matte", "Straße", "über"};
static const int64_t TGT_COUNTS[] = {0, 0, 0, 0, 9, 3, 2, 2, 7, 1, 1, 4};
#define TGT_V ((int)(sizeof TGT_TOKENS / sizeof TGT_TOKENS[0]))

static const char SRC_TEXT[] = "the cat sat on the mat the dog sat on the street";

static void small_config(ModelConfig *c)
{
    config_defaults(c);
    c->d_model = 8;
    c->n_heads = 2;
    c->n_encoder_layers = 1;
    c->n_decoder_layers = 3;
    c->d_ff = 32;
    c->max_len = 20;
    c->qkv_bias = 1;
    c->layer_norm_eps = 1e-6;
}

/* n floats from seed: mostly uniform in (-2, 2), with the awkward bit patterns a round
 * trip must keep — negative zero, a subnormal, the largest and smallest normals. */
static void fill_values(float *x, size_t n, uint32_t seed)
{
    static const float SPECIAL[] = {-0.0f, 1e-40f, FLT_MAX, -FLT_MIN, 1.0f / 3.0f};
    uint32_t r = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        r = r * 1664525u + 1013904223u;
        x[i] = ((float)(r >> 8) / 16777216.0f - 0.5f) * 4.0f;
        if (i % 7 == 3)
            x[i] = SPECIAL[(i / 7 + seed) % 5];
    }
}

static size_t tensor_size(int t)
{
    return TENSORS[t].ndim == 1 ? (size_t)TENSORS[t].dims[0]
                                : (size_t)TENSORS[t].dims[0] * (size_t)TENSORS[t].dims[1];
}

static void build_src_vocab(Vocab *v)
{
    VocabCounter c;
    vocab_counter_init(&c);
    char text[sizeof SRC_TEXT];
    memcpy(text, SRC_TEXT, sizeof text);
    for (char *w = strtok(text, " "); w; w = strtok(NULL, " "))
        assert_int_equal(vocab_counter_add(&c, w), TT_OK);
    assert_int_equal(vocab_build(v, &c, 1), TT_OK);
    vocab_counter_free(&c);
}

static void build_tgt_vocab(Vocab *v)
{
    char err[ERRLEN] = "";
    assert_tt_ok(vocab_from_tokens(v, TGT_TOKENS, TGT_COUNTS, TGT_V, err, sizeof err), err);
}

/* Writes the reference model (with config c) to path in mode CREATE or REPLACE. */
static void build_model_with(const char *path, StoreMode mode, const ModelConfig *c)
{
    char err[ERRLEN] = "";
    Store *s = NULL;
    Vocab src, tgt;
    build_src_vocab(&src);
    build_tgt_vocab(&tgt);
    const int D = c->d_model;
    float *emb_src = malloc(sizeof(float) * (size_t)src.size * (size_t)D);
    float *emb_tgt = malloc(sizeof(float) * (size_t)tgt.size * (size_t)D);
    float *data = malloc(sizeof(float) * 40 * 40);
    assert_non_null(emb_src);
    assert_non_null(emb_tgt);
    assert_non_null(data);
    fill_values(emb_src, (size_t)src.size * (size_t)D, 101);
    fill_values(emb_tgt, (size_t)tgt.size * (size_t)D, 202);

    assert_tt_ok(store_open(&s, path, mode, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(config_write(s, c, err, sizeof err), err);
    assert_tt_ok(store_vocab_write(s, "src", &src, err, sizeof err), err);
    assert_tt_ok(store_vocab_write(s, "tgt", &tgt, err, sizeof err), err);
    assert_tt_ok(store_embedding_write(s, "src", emb_src, src.size, D, err, sizeof err), err);
    assert_tt_ok(store_embedding_write(s, "tgt", emb_tgt, tgt.size, D, err, sizeof err), err);
    for (int t = 0; t < N_TENSORS; t++) {
        fill_values(data, tensor_size(t), 300 + (uint32_t)t);
        assert_tt_ok(store_tensor_write(s, TENSORS[t].name, TENSORS[t].dims, TENSORS[t].ndim,
                                        data, err, sizeof err),
                     err);
    }
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    free(data);
    free(emb_tgt);
    free(emb_src);
    vocab_free(&tgt);
    vocab_free(&src);
}

static void build_model(const char *path)
{
    ModelConfig c;
    small_config(&c);
    build_model_with(path, STORE_CREATE, &c);
}

/* Everything a model file holds, as read back. */
typedef struct {
    ModelConfig cfg;
    Vocab src, tgt;
    float *emb_src;             /* (V_src, D) */
    float *emb_tgt;             /* (V_tgt, D) */
    float *tensors[N_TENSORS]; /* each TENSORS[t].dims */
} Loaded;

static void loaded_free(Loaded *m)
{
    for (int t = N_TENSORS - 1; t >= 0; t--)
        free(m->tensors[t]);
    free(m->emb_tgt);
    free(m->emb_src);
    vocab_free(&m->tgt);
    vocab_free(&m->src);
    memset(m, 0, sizeof *m);
}

/* Opens path read-only and reads everything in load order; on failure *stage names the
 * step that failed. The caller frees m with loaded_free whatever the result. */
static int load_model(const char *path, Loaded *m, const char **stage, char *err,
                      size_t errlen)
{
    memset(m, 0, sizeof *m);
    Store *s = (Store *)&s; /* poisoned: store_open must set it */
    *stage = "open";
    int rc = store_open(&s, path, STORE_READ, err, errlen);
    if (rc != TT_OK) {
        assert_null(s);
        return rc;
    }
    assert_non_null(s);
    *stage = "config";
    rc = config_read(s, &m->cfg, err, errlen);
    if (rc == TT_OK) {
        *stage = "vocab src";
        rc = store_vocab_read(s, "src", &m->src, err, errlen);
    }
    if (rc == TT_OK) {
        *stage = "vocab tgt";
        rc = store_vocab_read(s, "tgt", &m->tgt, err, errlen);
    }
    const size_t D = (size_t)m->cfg.d_model;
    if (rc == TT_OK) {
        *stage = "embedding src";
        m->emb_src = malloc(sizeof(float) * (size_t)m->src.size * D);
        assert_non_null(m->emb_src);
        rc = store_embedding_read(s, "src", m->emb_src, m->src.size, (int)D, err, errlen);
    }
    if (rc == TT_OK) {
        *stage = "embedding tgt";
        m->emb_tgt = malloc(sizeof(float) * (size_t)m->tgt.size * D);
        assert_non_null(m->emb_tgt);
        rc = store_embedding_read(s, "tgt", m->emb_tgt, m->tgt.size, (int)D, err, errlen);
    }
    for (int t = 0; t < N_TENSORS && rc == TT_OK; t++) {
        *stage = "tensor";
        m->tensors[t] = malloc(sizeof(float) * tensor_size(t));
        assert_non_null(m->tensors[t]);
        rc = store_tensor_read(s, TENSORS[t].name, TENSORS[t].dims, TENSORS[t].ndim,
                               m->tensors[t], err, errlen);
    }
    char cerr[ERRLEN] = "";
    int crc = store_close(s, cerr, sizeof cerr);
    if (rc == TT_OK && crc != TT_OK) {
        *stage = "close";
        snprintf(err, errlen, "%s", cerr);
        rc = crc;
    }
    return rc;
}

/* Asserts m is exactly the reference model built with config c, bit for bit. */
static void assert_loaded_matches(const Loaded *m, const ModelConfig *c)
{
    assert_int_equal(m->cfg.d_model, c->d_model);
    assert_int_equal(m->cfg.n_heads, c->n_heads);
    assert_int_equal(m->cfg.n_encoder_layers, c->n_encoder_layers);
    assert_int_equal(m->cfg.n_decoder_layers, c->n_decoder_layers);
    assert_int_equal(m->cfg.d_ff, c->d_ff);
    assert_int_equal(m->cfg.max_len, c->max_len);
    assert_int_equal(m->cfg.qkv_bias, c->qkv_bias);
    assert_memory_equal(&m->cfg.layer_norm_eps, &c->layer_norm_eps, sizeof(double));
    assert_string_equal(m->cfg.src_lang, c->src_lang);
    assert_string_equal(m->cfg.tgt_lang, c->tgt_lang);

    Vocab src, tgt;
    build_src_vocab(&src);
    build_tgt_vocab(&tgt);
    const Vocab *want[2] = {&src, &tgt}, *got[2] = {&m->src, &m->tgt};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(got[k]->size, want[k]->size);
        for (int i = 0; i < want[k]->size; i++) {
            assert_string_equal(got[k]->tokens[i], want[k]->tokens[i]);
            assert_int_equal(got[k]->counts[i], want[k]->counts[i]);
            assert_int_equal(vocab_lookup(got[k], want[k]->tokens[i]), i);
        }
    }

    const size_t D = (size_t)c->d_model;
    size_t n = (size_t)src.size * D;
    float *ref = malloc(sizeof(float) * 40 * 40 + sizeof(float) * (size_t)tgt.size * D);
    assert_non_null(ref);
    fill_values(ref, n, 101);
    assert_memory_equal(m->emb_src, ref, n * sizeof(float));
    n = (size_t)tgt.size * D;
    fill_values(ref, n, 202);
    assert_memory_equal(m->emb_tgt, ref, n * sizeof(float));
    for (int t = 0; t < N_TENSORS; t++) {
        fill_values(ref, tensor_size(t), 300 + (uint32_t)t);
        assert_memory_equal(m->tensors[t], ref, tensor_size(t) * sizeof(float));
    }
    free(ref);
    vocab_free(&tgt);
    vocab_free(&src);
}

/* ---------------------------------------------------------------------------------------
 * Editing a model behind the store's back
 */

/* Runs sql on the file with a plain read-write connection. */
static void sql_on_file(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        print_error("sql_on_file(%s): %s\n", sql, db ? sqlite3_errmsg(db) : "no memory");
        sqlite3_close(db);
        fail();
    }
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Reads one integer from the file (a PRAGMA or a query). */
static long long query_file_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    return v;
}

/* Sets float number index of the blob in column col of the row of table matching where
 * to value, stored little-endian as the format requires. */
static void patch_float(const char *path, const char *table, const char *col,
                        const char *where, size_t index, float value)
{
    char sql[256];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s", col, table, where);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    assert_true((index + 1) * 4 <= n);
    unsigned char *blob = malloc(n);
    assert_non_null(blob);
    memcpy(blob, sqlite3_column_blob(st, 0), n);
    sqlite3_finalize(st);
    uint32_t bits;
    memcpy(&bits, &value, 4);
    for (int b = 0; b < 4; b++)
        blob[index * 4 + (size_t)b] = (unsigned char)(bits >> (8 * b));
    snprintf(sql, sizeof sql, "UPDATE %s SET %s = ?1 WHERE %s", table, col, where);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_bind_blob(st, 1, blob, (int)n, SQLITE_TRANSIENT), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    assert_int_equal(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    free(blob);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static long file_size(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (long)sb.st_size;
}

/* The page size from the file header (big-endian at offset 16; 1 means 65536). */
static long page_size_of(const char *path)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    assert_non_null(b);
    assert_true(n >= 100);
    long ps = (long)b[16] << 8 | b[17];
    free(b);
    return ps == 1 ? 65536 : ps;
}

/* ---------------------------------------------------------------------------------------
 * Round trip
 */

/* A written model reads back bit-identical from one file with the toytrans header. */
static void test_store_round_trip_bit_identical(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    small_config(&c);
    build_model_with(f->path, STORE_CREATE, &c);
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);

    assert_int_equal(query_file_int(f->path, "PRAGMA application_id"), 1954116722);
    assert_int_equal(query_file_int(f->path, "PRAGMA application_id"), STORE_APPLICATION_ID);
    assert_int_equal(query_file_int(f->path, "PRAGMA user_version"), 1);
    /* The WAL was folded back in: the file needs no companion to be read. */
    assert_int_equal(query_file_int(f->path, "SELECT count(*) FROM pragma_journal_mode "
                                             "WHERE journal_mode = 'delete'"),
                     1);

    Loaded m;
    const char *stage;
    char err[ERRLEN] = "";
    int rc = load_model(f->path, &m, &stage, err, sizeof err);
    if (rc != TT_OK)
        print_error("load failed at %s: %s\n", stage, err);
    assert_int_equal(rc, TT_OK);
    assert_loaded_matches(&m, &c);
    loaded_free(&m);
    /* Reading leaves nothing behind either. */
    assert_dir_holds(f->dir, ONLY_MODEL);
}

/* The content checksum: every commit writes it (16 hex digits); a value changed behind
 * its back is refused with a message that says so; a file without one, as another
 * writer may make, is accepted; and a write through the store puts it right again. */
static void test_store_checksum_catches_changed_content(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    assert_int_equal(query_file_int(f->path, "SELECT count(*) FROM meta WHERE key = '"
                                             STORE_CHECKSUM_KEY "' AND length(value) = 16 "
                                             "AND value NOT GLOB '*[^0-9a-f]*'"),
                     1);
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    assert_tt_ok(store_verify_checksum(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);

    patch_float(f->path, "embedding", "vector", "lang = 'tgt' AND id = 7", 5, 0.5f);
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    assert_int_equal(store_verify_checksum(s, err, sizeof err), TT_EMODEL);
    assert_non_null(strstr(err, "does not match its checksum"));
    assert_non_null(strstr(err, f->path));
    assert_tt_ok(store_close(s, err, sizeof err), err);

    /* A changed meta value counts too; the checksum's own row does not. */
    sql_on_file(f->path, "DELETE FROM meta WHERE key = '" STORE_CHECKSUM_KEY "'");
    assert_tt_ok(store_open(&s, f->path, STORE_WRITE, err, sizeof err), err);
    assert_tt_ok(store_verify_checksum(s, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(store_meta_set(s, "note", "written through the store", err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    sql_on_file(f->path, "UPDATE meta SET value = 'changed by hand' WHERE key = 'note'");
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    assert_int_equal(store_verify_checksum(s, err, sizeof err), TT_EMODEL);
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* A reader sees one state of the file from open to close: a writer committing between
 * its statements (a training run's checkpoint, in WAL mode) does not reach it, so the
 * checksum it verifies belongs to the content it read. */
static void test_store_reader_sees_one_snapshot(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    sql_on_file(f->path, "PRAGMA journal_mode = WAL");
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    /* Another process's commit, which leaves the checksum stale. */
    sql_on_file(f->path, "UPDATE meta SET value = 'changed' WHERE key = 'format_version'");
    char buf[64];
    assert_tt_ok(store_meta_get(s, "format_version", buf, sizeof buf, err, sizeof err), err);
    assert_string_equal(buf, "1");
    assert_tt_ok(store_verify_checksum(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    /* A reader opened now sees the commit, and the format check refuses it. */
    assert_int_equal(store_open(&s, f->path, STORE_READ, err, sizeof err), TT_EMODEL);
}

/* store_path returns the path given to store_open (not the temporary file's). */
static void test_store_path_is_the_given_path(void **state)
{
    TestDir *f = *state;
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    assert_string_equal(store_path(s), f->path);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    assert_null(store_path(NULL));
}

/* layer_norm_eps is a double; any double written must read back as the same double. */
static void test_store_config_eps_round_trips_exactly(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    small_config(&c);
    c.layer_norm_eps = 1e-5 / 3.0; /* needs 17 significant digits */
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(config_write(s, &c, err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);

    ModelConfig got;
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    assert_tt_ok(config_read(s, &got, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    if (got.layer_norm_eps != c.layer_norm_eps) { /* a finite double: equal is bit-identical */
        print_error("layer_norm_eps wrote %.17g, read back %.17g\n", c.layer_norm_eps,
                    got.layer_norm_eps);
        fail();
    }
}

/* STORE_CREATE refuses an existing path (TT_EEXIST, a usage matter) and leaves that file
 * byte-for-byte untouched. */
static void test_store_create_refuses_existing_file(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    size_t n0, n1;
    unsigned char *before = slurp(f->path, &n0);
    assert_non_null(before);

    char err[ERRLEN] = "";
    Store *s = (Store *)&s;
    assert_int_equal(store_open(&s, f->path, STORE_CREATE, err, sizeof err), TT_EEXIST);
    assert_null(s);
    assert_msg_has(err, f->path);
    assert_msg_has(err, "already exists");

    unsigned char *after = slurp(f->path, &n1);
    assert_non_null(after);
    assert_int_equal(n1, n0);
    assert_memory_equal(after, before, n0);
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);
    free(after);
    free(before);
}

/* STORE_REPLACE puts a new model in place of an existing one, atomically on close. */
static void test_store_replace_replaces_existing_file(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    ModelConfig c;
    small_config(&c);
    c.d_model = 12;
    c.n_heads = 3;
    c.max_len = 7;
    c.qkv_bias = 0;
    build_model_with(f->path, STORE_REPLACE, &c);
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);

    Loaded m;
    const char *stage;
    char err[ERRLEN] = "";
    int rc = load_model(f->path, &m, &stage, err, sizeof err);
    if (rc != TT_OK)
        print_error("load failed at %s: %s\n", stage, err);
    assert_int_equal(rc, TT_OK);
    assert_loaded_matches(&m, &c);
    loaded_free(&m);
}

/* A tensor or an embedding holding a NaN or an Inf is refused, naming it, and never
 * written: a model that could not load again is never committed. */
static void test_store_write_refuses_non_finite(void **state)
{
    TestDir *f = *state;
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    const float bad[4][3] = {{1.0f, 2.0f, NAN}, {INFINITY, 0.0f, 0.0f},
                             {0.0f, -INFINITY, 0.0f}, {0.0f, 0.0f, 0.0f}};
    const int dims[1] = {3};
    for (int k = 0; k < 3; k++) {
        err[0] = '\0';
        assert_int_equal(store_tensor_write(s, "w", dims, 1, bad[k], err, sizeof err), TT_EINVAL);
        assert_non_null(strstr(err, "tensor 'w' has a non-finite value"));
    }
    assert_int_equal(store_embedding_write(s, "src", &bad[0][0], 4, 3, err, sizeof err),
                     TT_EINVAL);
    assert_non_null(strstr(err, "embedding 'src' id 0 has a non-finite value (NaN)"));
    assert_tt_ok(store_tensor_write(s, "w", dims, 1, bad[3], err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* A CREATE whose transaction never committed leaves no file, nor a temporary one. */
static void test_store_create_without_commit_leaves_no_file(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    small_config(&c);
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(config_write(s, &c, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
    if (path_exists(f->path)) {
        print_error("%s exists after a CREATE whose transaction never committed\n", f->path);
        fail();
    }
    const char *const NOTHING[] = {NULL};
    assert_dir_holds(f->dir, NOTHING);
}

/* A failed REPLACE (never committed) leaves the existing model untouched. */
static void test_store_replace_without_commit_keeps_old_file(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    size_t n0, n1;
    unsigned char *before = slurp(f->path, &n0);
    assert_non_null(before);

    ModelConfig c;
    small_config(&c);
    c.d_model = 16;
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_REPLACE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(config_write(s, &c, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);

    unsigned char *after = slurp(f->path, &n1);
    assert_non_null(after);
    if (n1 != n0 || memcmp(after, before, n0) != 0) {
        print_error("%s was replaced by a REPLACE whose transaction never committed\n",
                    f->path);
        free(after);
        free(before);
        fail();
    }
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);
    free(after);
    free(before);
}

/* ---------------------------------------------------------------------------------------
 * Broken files
 */

enum {
    TRUNC_NONE = 0,
    TRUNC_HALF_PAGE = -1,  /* half of the first page */
    TRUNC_ONE_PAGE = -2,   /* exactly the first page */
    TRUNC_THREE_PAGES = -3, /* a page boundary further in */
    TRUNC_HALF_FILE = -4,
    TRUNC_LAST_PAGE = -5,  /* the last page cut in half */
};

typedef struct {
    const char *what;                 /* the damage, as a failure names it */
    const char *sql;                  /* run on the model file, or NULL */
    long truncate_to;                 /* bytes (> 0), a TRUNC_ code, or TRUNC_NONE */
    void (*damage)(const char *path); /* anything else, or NULL */
    const char *stage;                /* where load_model must fail */
    int rc;                           /* with this code */
    const char *msg;                  /* and a message holding this (and the path) */
} DamageCase;

static void damage_remove(const char *path)
{
    assert_int_equal(remove(path), 0);
}

static void damage_empty(const char *path)
{
    write_bytes(path, "", 0);
}

static void damage_random_bytes(const char *path)
{
    unsigned char buf[8192];
    uint32_t r = 7;
    for (size_t i = 0; i < sizeof buf; i++) {
        r = r * 1664525u + 1013904223u;
        buf[i] = (unsigned char)(r >> 24);
    }
    write_bytes(path, buf, sizeof buf);
}

static void damage_directory(const char *path)
{
    assert_int_equal(remove(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
}

static void damage_nan_in_tensor(const char *path)
{
    patch_float(path, "tensor", "data", "name = 'encoder.0.attn.bq'", 6, NAN);
}

static void damage_inf_in_embedding(const char *path)
{
    patch_float(path, "embedding", "vector", "lang = 'tgt' AND id = 7", 5, INFINITY);
}

static const DamageCase DAMAGE[] = {
    {"missing file", NULL, TRUNC_NONE, damage_remove, "open", TT_EMODEL, "no such model file"},
    {"empty file", NULL, TRUNC_NONE, damage_empty, "open", TT_EMODEL, "empty file"},
    {"random bytes", NULL, TRUNC_NONE, damage_random_bytes, "open", TT_EMODEL,
     "not an SQLite database"},
    {"a directory", NULL, TRUNC_NONE, damage_directory, "open", TT_EMODEL,
     "not a regular file"},
    {"truncated to 100 bytes", NULL, 100, NULL, "open", TT_EMODEL, "damaged"},
    {"truncated to half a page", NULL, TRUNC_HALF_PAGE, NULL, "open", TT_EMODEL, "damaged"},
    {"truncated to one page", NULL, TRUNC_ONE_PAGE, NULL, "open", TT_EMODEL, "damaged"},
    {"truncated to three pages", NULL, TRUNC_THREE_PAGES, NULL, "open", TT_EMODEL, "damaged"},
    {"truncated to half the file", NULL, TRUNC_HALF_FILE, NULL, "open", TT_EMODEL, "damaged"},
    {"last page cut in half", NULL, TRUNC_LAST_PAGE, NULL, "open", TT_EMODEL, "damaged"},
    {"wrong application_id", "PRAGMA application_id = 42", TRUNC_NONE, NULL, "open", TT_EMODEL,
     "not a toytrans model (application_id 42"},
    {"newer user_version", "PRAGMA user_version = 2", TRUNC_NONE, NULL, "open", TT_EMODEL,
     "format_version 2 is newer"},
    {"meta format wrong", "UPDATE meta SET value = 'other-model' WHERE key = 'format'",
     TRUNC_NONE, NULL, "open", TT_EMODEL, "meta format is 'other-model'"},
    {"meta format_version missing", "DELETE FROM meta WHERE key = 'format_version'",
     TRUNC_NONE, NULL, "open", TT_EMODEL, "meta 'format_version' is missing"},
    {"table tensor dropped", "DROP TABLE tensor", TRUNC_NONE, NULL, "open", TT_EMODEL,
     "table 'tensor' is missing"},
    {"tensor replaced by a view",
     "ALTER TABLE tensor RENAME TO tensor_data;"
     "CREATE VIEW tensor AS SELECT name, shape, data FROM tensor_data",
     TRUNC_NONE, NULL, "open", TT_EMODEL, "table 'tensor'"},
    {"a generated column in meta",
     "ALTER TABLE meta ADD COLUMN junk BLOB GENERATED ALWAYS AS (zeroblob(1000000)) VIRTUAL",
     TRUNC_NONE, NULL, "open", TT_EMODEL,
     "table 'meta' column 'junk' is a generated or hidden column"},
    {"tensor with a column more",
     "ALTER TABLE tensor ADD COLUMN note TEXT", TRUNC_NONE, NULL, "open", TT_EMODEL,
     "table 'tensor' has a column 'note' the format does not have"},
    {"vocab count stored as text", "UPDATE vocab SET count = 'abc' WHERE lang = 'tgt' AND id = 5",
     TRUNC_NONE, NULL, "vocab tgt", TT_EMODEL, "vocab 'tgt' id 5: the count is not an integer"},
    {"config n_heads does not divide d_model",
     "UPDATE meta SET value = '3' WHERE key = 'n_heads'", TRUNC_NONE, NULL, "config",
     TT_EMODEL, "n_heads"},
    {"config max_len 0", "UPDATE meta SET value = '0' WHERE key = 'max_len'", TRUNC_NONE, NULL,
     "config", TT_EMODEL, "'max_len' = '0'"},
    {"config activation gelu", "UPDATE meta SET value = 'gelu' WHERE key = 'activation'",
     TRUNC_NONE, NULL, "config", TT_EMODEL, "activation is 'gelu'"},
    {"config d_model missing", "DELETE FROM meta WHERE key = 'd_model'", TRUNC_NONE, NULL,
     "config", TT_EMODEL, "meta 'd_model' is missing"},
    {"vocab ids with a gap", "DELETE FROM vocab WHERE lang = 'src' AND id = 4", TRUNC_NONE,
     NULL, "vocab src", TT_EMODEL, "id 4 is missing"},
    {"vocab specials wrong", "UPDATE vocab SET token = '<bos>' WHERE lang = 'tgt' AND id = 2",
     TRUNC_NONE, NULL, "vocab tgt", TT_EMODEL, "id 2 must be <s>, found '<bos>'"},
    {"embedding row missing", "DELETE FROM embedding WHERE lang = 'src' AND id = 5",
     TRUNC_NONE, NULL, "embedding src", TT_EMODEL, "embedding 'src' has 10 rows but the "
                                                   "vocabulary has 11"},
    {"Inf in an embedding", NULL, TRUNC_NONE, damage_inf_in_embedding, "embedding tgt",
     TT_EMODEL, "embedding 'tgt' id 7 has a non-finite value (Inf) at index 5"},
    {"tensor blob shorter than its shape",
     "UPDATE tensor SET data = substr(data, 1, 20) WHERE name = 'decoder.0.ffn.w1'",
     TRUNC_NONE, NULL, "tensor", TT_EMODEL,
     "tensor 'decoder.0.ffn.w1' holds 20 bytes, expected 1024"},
    {"tensor data stored as text",
     "UPDATE tensor SET data = substr(hex(data), 1, length(data)) WHERE name = 'final.bias'",
     TRUNC_NONE, NULL, "tensor", TT_EMODEL, "blob"},
    {"tensor stored shape differs",
     "UPDATE tensor SET shape = '8,32' WHERE name = 'decoder.0.ffn.w1'", TRUNC_NONE, NULL,
     "tensor", TT_EMODEL, "tensor 'decoder.0.ffn.w1' has shape '8,32' but the model needs "
                          "'32,8'"},
    {"tensor missing", "DELETE FROM tensor WHERE name = 'final.bias'", TRUNC_NONE, NULL,
     "tensor", TT_EMODEL, "tensor 'final.bias' is missing"},
    {"NaN in a tensor", NULL, TRUNC_NONE, damage_nan_in_tensor, "tensor", TT_EMODEL,
     "tensor 'encoder.0.attn.bq' has a non-finite value (NaN) at index 6"},
};

static void apply_truncation(const char *path, long how)
{
    long size = file_size(path), page = page_size_of(path), to = how;
    switch (how) {
    case TRUNC_HALF_PAGE: to = page / 2; break;
    case TRUNC_ONE_PAGE: to = page; break;
    case TRUNC_THREE_PAGES: to = 3 * page; break;
    case TRUNC_HALF_FILE: to = size / 2; break;
    case TRUNC_LAST_PAGE: to = size - page / 2; break;
    default: break;
    }
    assert_true(to > 0 && to < size);
    assert_int_equal(truncate(path, (off_t)to), 0);
}

/* Each broken file fails where it is broken, with its code, message and path, unchanged. */
static void test_store_rejects_broken_files(void **state)
{
    TestDir *f = *state;
    int failures = 0;
    for (size_t k = 0; k < sizeof DAMAGE / sizeof DAMAGE[0]; k++) {
        const DamageCase *dc = &DAMAGE[k];
        remove(f->path);
        rmdir(f->path);
        build_model(f->path);
        assert_true(file_size(f->path) >= 6 * page_size_of(f->path));
        if (dc->sql)
            sql_on_file(f->path, dc->sql);
        if (dc->truncate_to != TRUNC_NONE)
            apply_truncation(f->path, dc->truncate_to);
        if (dc->damage)
            dc->damage(f->path);

        size_t n0 = 0, n1 = 0;
        unsigned char *before = slurp(f->path, &n0);
        Loaded m;
        const char *stage = "none";
        char err[ERRLEN] = "";
        int rc = load_model(f->path, &m, &stage, err, sizeof err);
        loaded_free(&m);
        unsigned char *after = slurp(f->path, &n1);

        int ok = rc == dc->rc && strcmp(stage, dc->stage) == 0 && strstr(err, dc->msg) &&
                 strstr(err, f->path);
        if (!ok) {
            print_error("%s: got rc %d at '%s' with \"%s\"; want rc %d at '%s' with \"%s\" "
                        "and the path\n",
                        dc->what, rc, stage, err, dc->rc, dc->stage, dc->msg);
            failures++;
        }
        if ((before == NULL) != (after == NULL) || n0 != n1 ||
            (before && memcmp(before, after, n0) != 0)) {
            print_error("%s: reading changed the file\n", dc->what);
            failures++;
        }
        const char *const ONLY_MODEL[] = {"model.db", NULL};
        const char *const NOTHING[] = {NULL};
        assert_dir_holds(f->dir, dc->damage == damage_remove ? NOTHING : ONLY_MODEL);
        free(after);
        free(before);
    }
    assert_int_equal(failures, 0);
}

/* A planted trigger never runs: the load works or refuses cleanly, the file unchanged. */
static void test_store_planted_trigger_never_runs(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    sql_on_file(f->path,
                "CREATE TABLE pwned(x);"
                "CREATE TRIGGER evil_meta AFTER INSERT ON meta BEGIN "
                "  DELETE FROM tensor; INSERT INTO pwned VALUES(1); END;"
                "CREATE TRIGGER evil_vocab BEFORE UPDATE ON vocab BEGIN "
                "  DELETE FROM tensor; INSERT INTO pwned VALUES(2); END;"
                "CREATE TRIGGER evil_tensor AFTER DELETE ON tensor BEGIN "
                "  INSERT INTO pwned VALUES(3); END;");
    size_t n0, n1;
    unsigned char *before = slurp(f->path, &n0);
    assert_non_null(before);

    Loaded m;
    const char *stage;
    char err[ERRLEN] = "";
    int rc = load_model(f->path, &m, &stage, err, sizeof err);
    if (rc == TT_OK) {
        ModelConfig c;
        small_config(&c);
        assert_loaded_matches(&m, &c);
    } else {
        assert_int_equal(rc, TT_EMODEL);
        assert_string_equal(stage, "open");
        assert_msg_has(err, f->path);
    }
    loaded_free(&m);

    unsigned char *after = slurp(f->path, &n1);
    assert_non_null(after);
    assert_int_equal(n1, n0);
    assert_memory_equal(after, before, n0);
    assert_int_equal(query_file_int(f->path, "SELECT count(*) FROM pwned"), 0);
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);
    free(after);
    free(before);
}

/* A symbolic link to a valid model is not followed, and the message says it is a link. */
static void test_store_refuses_symlink(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    char link_path[160];
    snprintf(link_path, sizeof link_path, "%s/link.db", f->dir);
    assert_int_equal(symlink(f->path, link_path), 0);

    char err[ERRLEN] = "";
    Store *s = (Store *)&s;
    int rc = store_open(&s, link_path, STORE_READ, err, sizeof err);
    assert_null(s);
    if (rc == TT_OK)
        fail_msg("a symbolic link was followed");
    if (rc != TT_EMODEL || !strstr(err, link_path) || !strstr(err, "symbolic link")) {
        print_error("symlink: got rc %d with \"%s\"; want rc %d with the path and "
                    "\"symbolic link\"\n", rc, err, TT_EMODEL);
        fail();
    }
}

/* A read-only file (mode 0444) opens for STORE_READ and reads back whole. */
static void test_store_reads_read_only_file(void **state)
{
    TestDir *f = *state;
    build_model(f->path);
    assert_int_equal(chmod(f->path, 0444), 0);
    Loaded m;
    const char *stage;
    char err[ERRLEN] = "";
    int rc = load_model(f->path, &m, &stage, err, sizeof err);
    if (rc != TT_OK)
        print_error("load failed at %s: %s\n", stage, err);
    assert_int_equal(rc, TT_OK);
    ModelConfig c;
    small_config(&c);
    assert_loaded_matches(&m, &c);
    loaded_free(&m);
    const char *const ONLY_MODEL[] = {"model.db", NULL};
    assert_dir_holds(f->dir, ONLY_MODEL);
}

/* ---------------------------------------------------------------------------------------
 * Typed meta getters
 */

/* store_meta_get_long takes whole numbers in [min, max]; others fail naming the key. */
static void test_store_meta_get_long_checks_values(void **state)
{
    TestDir *f = *state;
    static const struct {
        const char *key, *value;
        long min, max;
        int ok;
        long want;
    } CASES[] = {
        {"n_ok", "42", 0, 100, 1, 42},
        {"n_negative", "-5", -10, 10, 1, -5},
        {"n_at_min", "1", 1, 100, 1, 1},
        {"n_at_max", "100", 1, 100, 1, 100},
        {"n_word", "abc", 0, 100, 0, 0},
        {"n_trailing", "12x", 0, 100, 0, 0},
        {"n_empty", "", 0, 100, 0, 0},
        {"n_real", "1.5", 0, 100, 0, 0},
        {"n_huge", "99999999999999999999999", 0, 100, 0, 0},
        {"n_below", "0", 1, 100, 0, 0},
        {"n_above", "101", 1, 100, 0, 0},
    };
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        assert_tt_ok(store_meta_set(s, CASES[i].key, CASES[i].value, err, sizeof err), err);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        long v = -777;
        err[0] = '\0';
        int rc = store_meta_get_long(s, CASES[i].key, CASES[i].min, CASES[i].max, &v, err,
                                     sizeof err);
        if (CASES[i].ok) {
            assert_tt_ok(rc, err);
            assert_int_equal(v, CASES[i].want);
        } else {
            char quoted[64];
            snprintf(quoted, sizeof quoted, "'%s'", CASES[i].key);
            if (rc != TT_EMODEL)
                print_error("meta %s = '%s': rc %d (%s)\n", CASES[i].key, CASES[i].value, rc,
                            err);
            assert_int_equal(rc, TT_EMODEL);
            assert_msg_has(err, quoted);
            assert_msg_has(err, f->path);
        }
    }
    long v;
    assert_int_equal(store_meta_get_long(s, "no_such_key", 0, 1, &v, err, sizeof err),
                     TT_EMODEL);
    assert_msg_has(err, "meta 'no_such_key' is missing");
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* store_meta_get_double takes finite reals; anything else fails naming the key. */
static void test_store_meta_get_double_checks_values(void **state)
{
    TestDir *f = *state;
    static const struct {
        const char *key, *value;
        int ok;
        double want;
    } CASES[] = {
        {"x_ok", "2.5e-3", 1, 2.5e-3},
        {"x_negative", "-0.5", 1, -0.5},
        {"x_integer", "7", 1, 7.0},
        {"x_word", "abc", 0, 0},
        {"x_trailing", "1.5x", 0, 0},
        {"x_empty", "", 0, 0},
        {"x_nan", "nan", 0, 0},
        {"x_inf", "inf", 0, 0},
        {"x_minus_inf", "-inf", 0, 0},
        {"x_overflow", "1e999", 0, 0},
    };
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        assert_tt_ok(store_meta_set(s, CASES[i].key, CASES[i].value, err, sizeof err), err);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        double v = -777.0;
        err[0] = '\0';
        int rc = store_meta_get_double(s, CASES[i].key, &v, err, sizeof err);
        if (CASES[i].ok) {
            assert_tt_ok(rc, err);
            assert_true(v == CASES[i].want);
        } else {
            char quoted[64];
            snprintf(quoted, sizeof quoted, "'%s'", CASES[i].key);
            if (rc != TT_EMODEL)
                print_error("meta %s = '%s': rc %d (%s)\n", CASES[i].key, CASES[i].value, rc,
                            err);
            assert_int_equal(rc, TT_EMODEL);
            assert_msg_has(err, quoted);
            assert_msg_has(err, f->path);
        }
    }
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* store_meta_exists tells a present key, even an empty value, from a missing one. */
static void test_store_meta_exists_tells_missing_keys(void **state)
{
    TestDir *f = *state;
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_CREATE, err, sizeof err), err);
    assert_tt_ok(store_meta_set(s, "x_set", "1", err, sizeof err), err);
    assert_tt_ok(store_meta_set(s, "x_empty", "", err, sizeof err), err);
    static const struct {
        const char *key;
        int want;
    } CASES[] = {{"x_set", 1}, {"x_empty", 1}, {"x_missing", 0}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        int have = -1;
        assert_tt_ok(store_meta_exists(s, CASES[i].key, &have, err, sizeof err), err);
        assert_int_equal(have, CASES[i].want);
    }
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* ---------------------------------------------------------------------------------------
 * Argument errors
 */

/* A NULL path or out-parameter or a bad mode is TT_EINVAL; store_close(NULL) is fine. */
static void test_store_argument_errors(void **state)
{
    TestDir *f = *state;
    char err[ERRLEN] = "";
    Store *s = (Store *)&s;
    assert_int_equal(store_open(&s, NULL, STORE_READ, err, sizeof err), TT_EINVAL);
    assert_null(s);
    assert_true(err[0] != '\0');
    s = (Store *)&s;
    assert_int_equal(store_open(&s, "", STORE_READ, err, sizeof err), TT_EINVAL);
    assert_null(s);
    s = (Store *)&s;
    assert_int_equal(store_open(&s, NULL, STORE_CREATE, NULL, 0), TT_EINVAL);
    assert_null(s);
    assert_int_equal(store_open(NULL, f->path, STORE_CREATE, err, sizeof err), TT_EINVAL);
    s = (Store *)&s;
    assert_int_equal(store_open(&s, f->path, (StoreMode)7, err, sizeof err), TT_EINVAL);
    assert_null(s);
    const char *const NOTHING[] = {NULL};
    assert_dir_holds(f->dir, NOTHING);
    assert_int_equal(store_close(NULL, err, sizeof err), TT_OK);
    assert_int_equal(store_close(NULL, NULL, 0), TT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, testutil_dir_setup, testutil_dir_teardown)
        T(test_store_round_trip_bit_identical),
        T(test_store_checksum_catches_changed_content),
        T(test_store_reader_sees_one_snapshot),
        T(test_store_path_is_the_given_path),
        T(test_store_config_eps_round_trips_exactly),
        T(test_store_create_refuses_existing_file),
        T(test_store_replace_replaces_existing_file),
        T(test_store_write_refuses_non_finite),
        T(test_store_create_without_commit_leaves_no_file),
        T(test_store_replace_without_commit_keeps_old_file),
        T(test_store_rejects_broken_files),
        T(test_store_planted_trigger_never_runs),
        T(test_store_refuses_symlink),
        T(test_store_reads_read_only_file),
        T(test_store_meta_get_long_checks_values),
        T(test_store_meta_get_double_checks_values),
        T(test_store_meta_exists_tells_missing_keys),
        T(test_store_argument_errors),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
