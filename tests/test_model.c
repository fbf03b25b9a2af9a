/*
 * test_model.c — creating a model file (model_create) and reading its header
 * (model_header_open): the keys a new file holds are exactly the configuration's, the
 * format's and the provenance table's; what is written loads back; an embeddings-only
 * file holds the embeddings a whole model drawn from the same seed would hold.
 *
 * Each test works in a fresh directory from mkdtemp() that teardown removes.
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
#include "testutil.h"
#include "text/vocab.h"
#include "train/train.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ERRLEN 512

/* A small configuration and two small vocabularies. */
static void small_model_parts(ModelConfig *c, Vocab *src, Vocab *tgt)
{
    config_defaults(c);
    c->d_model = 8;
    c->n_heads = 2;
    c->n_encoder_layers = 1;
    c->n_decoder_layers = 1;
    c->d_ff = 16;
    c->max_len = 10;
    static const char *const SRC[] = {"<pad>", "<unk>", "<s>", "</s>", "i", "love", "you"};
    static const char *const TGT[] = {"<pad>", "<unk>", "<s>", "</s>", "ich", "liebe", "dich",
                                      "."};
    static const int64_t COUNTS[8] = {0, 0, 0, 0, 3, 2, 1, 1};
    char err[ERRLEN] = "";
    assert_tt_ok(vocab_from_tokens(src, SRC, COUNTS, 7, err, sizeof err), err);
    assert_tt_ok(vocab_from_tokens(tgt, TGT, COUNTS, 8, err, sizeof err), err);
}

static const ModelProvenance PROV = {
    .created_by = "toytrans test",
    .vocab_corpus = "corpus.tsv",
    .vocab_corpus_pairs = 123,
    .vocab_corpus_fnv1a64 = 0x0123456789abcdefULL,
    .vocab_min_count = 2,
    .init_seed = 7,
};

/* Creates path from contents with PROV, committed and closed. */
static void create_file(const char *path, const ModelContents *contents)
{
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(model_create(&s, path, STORE_CREATE, contents, &PROV, err, sizeof err), err);
    assert_non_null(s);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    assert_tt_ok(store_close(s, err, sizeof err), err);
}

/* meta value of key in the file at path, into buf; 0 if absent. */
static int meta_value(const char *path, const char *key, char *buf, size_t size)
{
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, path, STORE_READ, err, sizeof err), err);
    const int found = store_meta_get(s, key, buf, size, NULL, 0) == TT_OK;
    store_close(s, NULL, 0);
    return found;
}

/* Whether key is the format's, a configuration row's, or a provenance row with a field. */
static int key_expected(const char *key)
{
    if (strcmp(key, "format") == 0 || strcmp(key, "format_version") == 0 ||
        strcmp(key, STORE_CHECKSUM_KEY) == 0)
        return 1;
    int n;
    const ConfigParam *cfg = config_params(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(cfg[i].key, key) == 0)
            return 1;
    const ProvKey *prov = model_provenance_keys(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(prov[i].key, key) == 0)
            return prov[i].offset != MODEL_PROV_NOT_CREATED;
    return 0;
}

/* The number of keys key_expected accepts. */
static int expected_key_count(void)
{
    int n, count = 3, n_cfg;
    config_params(&n_cfg);
    const ProvKey *prov = model_provenance_keys(&n);
    for (int i = 0; i < n; i++)
        count += prov[i].offset != MODEL_PROV_NOT_CREATED;
    return count + n_cfg;
}

/* A new file's meta holds exactly the format's keys, the configuration table's and the
 * provenance rows that have a field — for a whole model and for embeddings only. */
static void test_model_create_writes_exactly_the_table_keys(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    const ModelContents only = {.config = &c, .src = &src, .tgt = &tgt};
    create_file(f->path, &only);
    char err[ERRLEN] = "";
    for (int pass = 0; pass < 2; pass++) {
        Store *s = NULL;
        assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(store_db(s), "SELECT key FROM meta", -1, &st, NULL),
                         SQLITE_OK);
        int seen = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *key = (const char *)sqlite3_column_text(st, 0);
            if (!key_expected(key)) {
                print_error("meta key %s is in no table\n", key);
                fail();
            }
            seen++;
        }
        sqlite3_finalize(st);
        store_close(s, NULL, 0);
        assert_int_equal(seen, expected_key_count());
        if (pass == 0) { /* again for a whole model */
            Model m;
            assert_tt_ok(model_init(&m, &c, &src, &tgt, err, sizeof err), err);
            assert_int_equal(unlink(f->path), 0);
            const ModelContents whole = {.weights = &m};
            create_file(f->path, &whole);
            model_free(&m);
        }
    }
    vocab_free(&tgt);
    vocab_free(&src);
}

/* Each provenance field is written in its row's format. */
static void test_model_create_writes_provenance_formats(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    const ModelContents only = {.config = &c, .src = &src, .tgt = &tgt};
    create_file(f->path, &only);
    static const char *const WANT[][2] = {
        {"created_by", "toytrans test"},
        {"vocab_corpus", "corpus.tsv"},
        {"vocab_corpus_pairs", "123"},
        {"vocab_corpus_fnv1a64", "0123456789abcdef"},
        {"vocab_min_count", "2"},
        {"init_seed", "7"},
    };
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        char v[64];
        assert_true(meta_value(f->path, WANT[i][0], v, sizeof v));
        assert_string_equal(v, WANT[i][1]);
    }
    vocab_free(&tgt);
    vocab_free(&src);
}

/* A whole model written by model_create loads back bit for bit. */
static void test_model_create_whole_model_loads_back(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    char err[ERRLEN] = "";
    Model m, back;
    assert_tt_ok(model_init(&m, &c, &src, &tgt, err, sizeof err), err);
    Rng rng;
    rng_seed(&rng, PROV.init_seed);
    model_randomize(&m, &rng);
    const ModelContents whole = {.weights = &m};
    create_file(f->path, &whole);
    assert_tt_ok(model_load_file(&back, f->path, err, sizeof err), err);
    assert_int_equal(back.n_params, m.n_params);
    assert_memory_equal(back.params, m.params, m.n_params * sizeof(float));
    assert_memory_equal(&back.config, &m.config, sizeof m.config);
    model_free(&back);
    model_free(&m);
}

/* The lexicon and phrasebook checksums travel with the weights: a model saved with them
 * loads them back; one saved without (every file older than the phrasebook) loads 0,
 * which enables no phrase in the grammar check. */
static void test_model_checksums_load_back_or_zero(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    char err[ERRLEN] = "";
    Model m, back;
    assert_tt_ok(model_init(&m, &c, &src, &tgt, err, sizeof err), err);
    const ModelContents whole = {.weights = &m};
    create_file(f->path, &whole);
    assert_tt_ok(model_load_file(&back, f->path, err, sizeof err), err);
    assert_true(back.lexicon_fnv1a64 == 0 && back.phrasebook_fnv1a64 == 0);
    assert_false(meta_value(f->path, MODEL_PHRASEBOOK_KEY, (char[64]){0}, 64));
    model_free(&back);
    remove(f->path);
    m.lexicon_fnv1a64 = UINT64_C(0xb758f9487cc0aaa5);
    m.phrasebook_fnv1a64 = UINT64_C(0x60fb2f3b45ad9e2f);
    create_file(f->path, &whole);
    char v[64];
    assert_true(meta_value(f->path, MODEL_PHRASEBOOK_KEY, v, sizeof v));
    assert_string_equal(v, "60fb2f3b45ad9e2f");
    assert_tt_ok(model_load_file(&back, f->path, err, sizeof err), err);
    assert_true(back.lexicon_fnv1a64 == m.lexicon_fnv1a64);
    assert_true(back.phrasebook_fnv1a64 == m.phrasebook_fnv1a64);
    model_free(&back);
    model_free(&m);
}

/* An embeddings-only file holds the embeddings a whole model drawn from the same seed
 * holds, so vocab, init and train agree on them. */
static void test_model_create_embeddings_as_model_randomize_draws_them(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    const ModelContents only = {.config = &c, .src = &src, .tgt = &tgt};
    create_file(f->path, &only);
    char err[ERRLEN] = "";
    Model m;
    const int vs = src.size, vt = tgt.size;
    assert_tt_ok(model_init(&m, &c, &src, &tgt, err, sizeof err), err);
    Rng rng;
    rng_seed(&rng, PROV.init_seed);
    model_randomize(&m, &rng);
    Store *s = NULL;
    assert_tt_ok(store_open(&s, f->path, STORE_READ, err, sizeof err), err);
    float *e = malloc(sizeof(float) * (size_t)vt * (size_t)c.d_model);
    assert_non_null(e);
    assert_tt_ok(store_embedding_read(s, "src", e, vs, c.d_model, err, sizeof err), err);
    assert_memory_equal(e, m.w.emb_src, sizeof(float) * (size_t)vs * (size_t)c.d_model);
    assert_tt_ok(store_embedding_read(s, "tgt", e, vt, c.d_model, err, sizeof err), err);
    assert_memory_equal(e, m.w.emb_tgt, sizeof(float) * (size_t)vt * (size_t)c.d_model);
    free(e);
    store_close(s, NULL, 0);
    model_free(&m);
}

/* Nothing appears at the path until the caller commits: a store closed without commit
 * leaves no file, and an existing file is refused under STORE_CREATE. */
static void test_model_create_appears_only_when_committed(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    const ModelContents only = {.config = &c, .src = &src, .tgt = &tgt};
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(model_create(&s, f->path, STORE_CREATE, &only, &PROV, err, sizeof err), err);
    store_close(s, NULL, 0);
    struct stat sb;
    assert_int_not_equal(stat(f->path, &sb), 0);
    create_file(f->path, &only);
    assert_int_equal(model_create(&s, f->path, STORE_CREATE, &only, &PROV, err, sizeof err),
                     TT_EEXIST);
    assert_null(s);
    assert_int_equal(model_create(&s, f->path, STORE_READ, &only, &PROV, err, sizeof err),
                     TT_EINVAL);
    assert_null(s);
    vocab_free(&tgt);
    vocab_free(&src);
}

/* model_header_open reads the configuration, the vocabularies and the parameter table,
 * and leaves the store open for the rest. */
static void test_model_header_open_reads_config_vocab_and_specs(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    Vocab src, tgt;
    small_model_parts(&c, &src, &tgt);
    const ModelContents only = {.config = &c, .src = &src, .tgt = &tgt};
    create_file(f->path, &only);
    char err[ERRLEN] = "";
    Store *s = NULL;
    ModelHeader h;
    assert_tt_ok(model_header_open(&s, &h, f->path, err, sizeof err), err);
    assert_non_null(s);
    assert_memory_equal(&h.config, &c, sizeof c);
    assert_int_equal(h.src.size, src.size);
    assert_int_equal(h.tgt.size, tgt.size);
    ParamSpec *specs;
    int n;
    size_t total;
    assert_tt_ok(model_param_specs(&c, src.size, tgt.size, &specs, &n, &total), "specs");
    assert_int_equal(h.n_specs, n);
    assert_int_equal(h.n_params, total);
    free(specs);
    char v[64];
    assert_tt_ok(store_meta_get(s, "created_by", v, sizeof v, err, sizeof err), err);
    model_header_free(&h);
    model_header_free(&h); /* a freed header is accepted */
    store_close(s, NULL, 0);
    vocab_free(&tgt);
    vocab_free(&src);
}

/* A file that is not there: no store, an empty header, the code of a missing model. */
static void test_model_header_open_missing_file(void **state)
{
    TestDir *f = *state;
    char err[ERRLEN] = "";
    Store *s = (Store *)&err; /* anything but NULL */
    ModelHeader h;
    assert_int_not_equal(model_header_open(&s, &h, f->path, err, sizeof err), TT_OK);
    assert_null(s);
    assert_null(h.specs);
    assert_int_equal(h.src.size, 0);
    assert_non_null(strstr(err, f->path));
}

/* Every provenance key, the new file's (model.h) and the training run's (train.h), is
 * listed once and has a label; model_create writes every row of its own table. */
static void test_model_provenance_keys_unique_and_labelled(void **state)
{
    (void)state;
    int n_created, n_trained;
    const ProvKey *created = model_provenance_keys(&n_created);
    const ProvKey *trained = train_provenance_keys(&n_trained);
    assert_true(n_created > 0);
    assert_true(n_trained > 0);
    const ProvKey *all[64];
    int n = 0;
    for (int i = 0; i < n_created; i++) {
        assert_true(created[i].offset != MODEL_PROV_NOT_CREATED);
        all[n++] = &created[i];
    }
    for (int i = 0; i < n_trained; i++) {
        assert_true(trained[i].offset == MODEL_PROV_NOT_CREATED);
        assert_true(n < (int)(sizeof all / sizeof all[0]));
        all[n++] = &trained[i];
    }
    for (int i = 0; i < n; i++) {
        assert_non_null(all[i]->label);
        for (int j = i + 1; j < n; j++)
            assert_string_not_equal(all[i]->key, all[j]->key);
    }
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, testutil_dir_setup, testutil_dir_teardown)
    const struct CMUnitTest tests[] = {
        T(test_model_create_writes_exactly_the_table_keys),
        T(test_model_create_writes_provenance_formats),
        T(test_model_create_whole_model_loads_back),
        T(test_model_checksums_load_back_or_zero),
        T(test_model_create_embeddings_as_model_randomize_draws_them),
        T(test_model_create_appears_only_when_committed),
        T(test_model_header_open_reads_config_vocab_and_specs),
        T(test_model_header_open_missing_file),
        cmocka_unit_test(test_model_provenance_keys_unique_and_labelled),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
