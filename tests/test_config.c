/*
 * test_config.c — the hyper-parameter table: every row round-trips through meta, every
 * range is enforced with the key named, and the writer writes exactly the table's keys.
 *
 * Each test works in a fresh directory from mkdtemp() that teardown removes; the model
 * file there holds nothing but the format meta and a configuration.
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

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 512

/* A new store at path holding c (committed, still open for more). */
static Store *store_with(const char *path, const ModelConfig *c)
{
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_tt_ok(store_open(&s, path, STORE_CREATE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(config_write(s, c, err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    return s;
}

/* Sets meta key to value in a transaction of its own. */
static void meta_put(Store *s, const char *key, const char *value)
{
    char err[ERRLEN] = "";
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(store_meta_set(s, key, value, err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
}

/* The defaults are the documented ones, and they pass the checks. */
static void test_config_defaults_are_documented_and_valid(void **state)
{
    (void)state;
    ModelConfig c;
    config_defaults(&c);
    assert_int_equal(c.d_model, 64);
    assert_int_equal(c.n_heads, 4);
    assert_int_equal(c.n_encoder_layers, 2);
    assert_int_equal(c.n_decoder_layers, 2);
    assert_int_equal(c.d_ff, 256);
    assert_int_equal(c.max_len, 32);
    assert_int_equal(c.qkv_bias, 0);
    assert_float_equal(c.layer_norm_eps, 1e-5, 0);
    assert_string_equal(c.src_lang, "en");
    assert_string_equal(c.tgt_lang, "de");
    char err[ERRLEN] = "";
    assert_tt_ok(config_check(&c, err, sizeof err), err);
}

/* config_write writes exactly the table's keys (beside the format's own two). */
static void test_config_write_writes_exactly_the_table_keys(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    config_defaults(&c);
    Store *s = store_with(f->path, &c);
    int n;
    const ConfigParam *rows = config_params(&n);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(store_db(s),
                                         "SELECT key FROM meta WHERE key NOT IN ('format', "
                                         "'format_version', 'content_fnv1a64') ORDER BY key",
                                         -1, &st, NULL),
                     SQLITE_OK);
    int seen = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        int found = 0;
        for (int i = 0; i < n; i++)
            found += strcmp(rows[i].key, key) == 0;
        if (found != 1)
            print_error("meta key %s is in the table %d times\n", key, found);
        assert_int_equal(found, 1);
        seen++;
    }
    sqlite3_finalize(st);
    assert_int_equal(seen, n);
    store_close(s, NULL, 0);
}

/* Every row with a field comes back from meta as it was written, at a value other than
 * its default. */
static void test_config_every_row_round_trips_through_meta(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    config_defaults(&c);
    /* A valid configuration with every field off its default. */
    c.d_model = 48;
    c.n_heads = 6;
    c.n_encoder_layers = 3;
    c.n_decoder_layers = 1;
    c.d_ff = 100;
    c.max_len = 17;
    c.qkv_bias = 1;
    c.layer_norm_eps = 0.1 + 1e-17; /* needs all 17 digits */
    snprintf(c.src_lang, sizeof c.src_lang, "fr");
    snprintf(c.tgt_lang, sizeof c.tgt_lang, "it");
    ModelConfig d;
    config_defaults(&d);
    int n;
    const ConfigParam *rows = config_params(&n);
    for (int i = 0; i < n; i++)
        if (rows[i].type != CONFIG_FIXED &&
            memcmp((char *)&c + rows[i].offset, (char *)&d + rows[i].offset,
                   rows[i].type == CONFIG_INT    ? sizeof(int)
                   : rows[i].type == CONFIG_REAL ? sizeof(double)
                                                 : rows[i].size) == 0) {
            print_error("the test leaves %s at its default\n", rows[i].key);
            fail();
        }
    Store *s = store_with(f->path, &c);
    ModelConfig back;
    char err[ERRLEN] = "";
    assert_tt_ok(config_read(s, &back, err, sizeof err), err);
    assert_memory_equal(&back, &c, sizeof c);
    store_close(s, NULL, 0);
}

/* config_check refuses a value just outside each row's range, naming the key. */
static void test_config_check_names_the_key_out_of_range(void **state)
{
    (void)state;
    int n;
    const ConfigParam *rows = config_params(&n);
    for (int i = 0; i < n; i++) {
        const ConfigParam *p = &rows[i];
        if (p->type != CONFIG_INT && p->type != CONFIG_REAL)
            continue;
        for (int side = 0; side < 2; side++) {
            ModelConfig c;
            config_defaults(&c);
            if (p->type == CONFIG_INT)
                *(int *)((char *)&c + p->offset) = (int)(side ? p->max + 1 : p->min - 1);
            else { /* an open interval: its ends are outside */
                const double v = side ? p->max : p->min;
                memcpy((char *)&c + p->offset, &v, sizeof v);
            }
            char err[ERRLEN] = "";
            assert_int_equal(config_check(&c, err, sizeof err), TT_EINVAL);
            char want[128];
            snprintf(want, sizeof want, "%s%s is out of range", p->key, p->rule);
            assert_string_equal(err, want);
        }
    }
}

/* n_heads must divide d_model: 5 heads of 64 are refused with the rule said. */
static void test_config_check_heads_must_divide_d_model(void **state)
{
    (void)state;
    ModelConfig c;
    config_defaults(&c);
    c.n_heads = 5;
    char err[ERRLEN] = "";
    assert_int_equal(config_check(&c, err, sizeof err), TT_EINVAL);
    assert_string_equal(err, "n_heads (must divide d_model) is out of range");
}

/* A file whose meta holds a value outside a row's range is refused, the key named. */
static void test_config_read_refuses_out_of_range_meta(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    config_defaults(&c);
    Store *s = store_with(f->path, &c);
    int n;
    const ConfigParam *rows = config_params(&n);
    for (int i = 0; i < n; i++) {
        const ConfigParam *p = &rows[i];
        if (p->type != CONFIG_INT && p->type != CONFIG_REAL)
            continue;
        char bad[32], good[32];
        if (p->type == CONFIG_INT) {
            snprintf(bad, sizeof bad, "%.0f", p->max + 1);
            snprintf(good, sizeof good, "%d", *(const int *)((const char *)&c + p->offset));
        } else {
            double v;
            memcpy(&v, (const char *)&c + p->offset, sizeof v);
            snprintf(bad, sizeof bad, "%.17g", p->max);
            snprintf(good, sizeof good, "%.17g", v);
        }
        meta_put(s, p->key, bad);
        ModelConfig back;
        char err[ERRLEN] = "";
        assert_int_equal(config_read(s, &back, err, sizeof err), TT_EMODEL);
        if (!strstr(err, p->key)) {
            print_error("%s = %s: the message does not name the key: %s\n", p->key, bad, err);
            fail();
        }
        meta_put(s, p->key, good);
    }
    store_close(s, NULL, 0);
}

/* A fixed key holding another value is refused with the one supported. */
static void test_config_read_refuses_another_fixed_value(void **state)
{
    TestDir *f = *state;
    ModelConfig c;
    config_defaults(&c);
    Store *s = store_with(f->path, &c);
    meta_put(s, "activation", "gelu");
    ModelConfig back;
    char err[ERRLEN] = "";
    assert_int_equal(config_read(s, &back, err, sizeof err), TT_EMODEL);
    assert_non_null(strstr(err, "meta activation is 'gelu'; this toytrans supports only 'relu'"));
    store_close(s, NULL, 0);
}

/* info's lines, label and text, for the defaults: one per row but the target language,
 * which shares the source's. */
static void test_config_info_lines_of_the_defaults(void **state)
{
    (void)state;
    static const char *const WANT[][2] = {
        {"d_model", "64"},
        {"n_heads", "4 (16 dimensions per head)"},
        {"n_encoder_layers", "2"},
        {"n_decoder_layers", "2"},
        {"d_ff", "256"},
        {"max_len", "32 tokens, </s> included"},
        {"qkv_bias", "0 (no query, key, value biases)"},
        {"activation", "relu"},
        {"norm", "pre (LayerNorm before each sublayer)"},
        {"layer_norm_eps", "1e-05"},
        {"languages", "en → de"},
    };
    ModelConfig c;
    config_defaults(&c);
    int n, k = 0;
    config_params(&n);
    for (int i = 0; i < n; i++) {
        const char *label;
        char text[128];
        if (!config_info_line(&c, i, &label, text, sizeof text))
            continue;
        assert_true(k < (int)(sizeof WANT / sizeof WANT[0]));
        assert_string_equal(label, WANT[k][0]);
        assert_string_equal(text, WANT[k][1]);
        k++;
    }
    assert_int_equal(k, (int)(sizeof WANT / sizeof WANT[0]));
    c.qkv_bias = 1;
    const char *label;
    char text[128];
    for (int i = 0; i < n; i++)
        if (config_info_line(&c, i, &label, text, sizeof text) && strcmp(label, "qkv_bias") == 0)
            assert_string_equal(text, "1 (query, key and value have biases)");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, testutil_dir_setup, testutil_dir_teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults_are_documented_and_valid),
        T(test_config_write_writes_exactly_the_table_keys),
        T(test_config_every_row_round_trips_through_meta),
        cmocka_unit_test(test_config_check_names_the_key_out_of_range),
        cmocka_unit_test(test_config_check_heads_must_divide_d_model),
        T(test_config_read_refuses_out_of_range_meta),
        T(test_config_read_refuses_another_fixed_value),
        cmocka_unit_test(test_config_info_lines_of_the_defaults),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
