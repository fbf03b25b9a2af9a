/*
 * test_train.c — whole training runs (train.c): the same weights with any thread count,
 * and a resume that continues exactly the run it stopped, with the settings recorded in
 * the file.
 *
 * The passes of one batch are tested in test_backprop.c, the gradients against finite
 * differences in test_grad.c; here small models train for a few steps on a nine-pair
 * corpus and the weights are compared bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "model/model.h"
#include "model/store.h"
#include "testutil.h"
#include "train/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* test_faults' eight pairs and a ninth, so that a batch of four leaves a last batch of one. */
static const char CORPUS[] = TESTUTIL_CORPUS8 "a big man sees the old dog\tEin gro\xc3\x9f"
                                              "er Mann sieht den alten Hund .\n";

/* A run's paths in a temporary directory. */
typedef struct {
    char dir[64];
    char corpus[128];
} Paths;

static Paths paths_setup(void)
{
    Paths p = {{0}, {0}};
    snprintf(p.dir, sizeof p.dir, "/tmp/toytrans-test-train-XXXXXX");
    assert_non_null(mkdtemp(p.dir));
    snprintf(p.corpus, sizeof p.corpus, "%s/corpus.tsv", p.dir);
    FILE *f = fopen(p.corpus, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(CORPUS, 1, sizeof CORPUS - 1, f), sizeof CORPUS - 1);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* A small model's options, every setting of the run away from its default, so that a
 * resume that fell back to a default would change the result. */
static void small_run(TrainOptions *o, const Paths *p, const char *out)
{
    train_options_defaults(o);
    o->train_path = p->corpus;
    o->valid_path = p->corpus;
    o->out_path = out;
    o->config.d_model = 16;
    o->config.n_heads = 2;
    o->config.n_encoder_layers = 2;
    o->config.n_decoder_layers = 2;
    o->config.d_ff = 32;
    o->config.max_len = 12;
    o->epochs = 3;
    o->batch = 4;
    o->lr = 0.003f;
    o->warmup = 2;
    o->label_smoothing = 0.05f;
    o->dropout = 0.1f;
    o->name_augment = 0;
    o->weight_decay = 0.02f;
    o->adam_beta1 = 0.8f;
    o->adam_beta2 = 0.99f;
    o->adam_eps = 1e-8f;
    o->clip = 0.5f;
    o->seed = UINT64_C(18446744073709551557); /* above 2^53: no double holds it */
    o->force = 1;
}

/* o as a resume of its file, with the settings of given given. */
static TrainOptions resumed(const TrainOptions *o, unsigned given)
{
    TrainOptions r = *o;
    r.resume = 1;
    r.force = 0;
    r.given = given;
    return r;
}

static int run(const TrainOptions *o, char *err, size_t errlen)
{
    int rc = train_run(o, NULL, NULL, NULL, err, errlen);
    if (rc != TT_OK)
        print_error("train_run: %s\n", err);
    return rc;
}

static void load(Model *m, const char *path)
{
    char err[512];
    assert_tt_ok(model_load_file(m, path, err, sizeof err), err);
}

static int same_weights(const Model *a, const Model *b)
{
    return a->n_params == b->n_params &&
           memcmp(a->params, b->params, sizeof(float) * a->n_params) == 0;
}

/* What a file holds, for "unchanged": its content checksum (meta, vocabularies,
 * embeddings, tensors; store.h) and its history's step count. */
static void content_of(const char *path, char *buf, size_t size)
{
    Store *s = NULL;
    char err[512], sum[64];
    long step;
    assert_tt_ok(store_open(&s, path, STORE_READ, err, sizeof err), err);
    assert_tt_ok(store_meta_get(s, STORE_CHECKSUM_KEY, sum, sizeof sum, err, sizeof err), err);
    assert_tt_ok(store_meta_get_long(s, "train_step", 0, 1000, &step, err, sizeof err), err);
    store_close(s, NULL, 0);
    snprintf(buf, size, "%s step %ld", sum, step);
}

/* meta's value of key in the file at path, into buf. */
static void meta_value(const char *path, const char *key, char *buf, size_t size)
{
    Store *s = NULL;
    char err[512];
    assert_tt_ok(store_open(&s, path, STORE_READ, err, sizeof err), err);
    assert_tt_ok(store_meta_get(s, key, buf, size, err, sizeof err), err);
    store_close(s, NULL, 0);
}

/* The file at path made the n bytes of good, then changed by sql in one transaction. */
static void rewrite(const char *path, const unsigned char *good, size_t n, const char *sql)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(good, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    Store *s = NULL;
    char err[512];
    assert_tt_ok(store_open(&s, path, STORE_WRITE, err, sizeof err), err);
    assert_tt_ok(store_begin(s, err, sizeof err), err);
    assert_tt_ok(store_exec(s, sql, err, sizeof err), err);
    assert_tt_ok(store_commit(s, err, sizeof err), err);
    store_close(s, NULL, 0);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    unsigned char *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* Training with 1, 2, 3 and 8 threads gives bit-identical weights. */
static void test_train_threads_bit_identical(void **state)
{
    (void)state;
    const Paths p = paths_setup();
    char out[160], err[512];
    snprintf(out, sizeof out, "%s/model.db", p.dir);
    TrainOptions o;
    small_run(&o, &p, out);
    Model ref, got;
    o.threads = 1;
    assert_int_equal(run(&o, err, sizeof err), TT_OK);
    load(&ref, out);
    static const int THREADS[] = {2, 3, 8};
    for (int k = 0; k < 3; k++) {
        o.threads = THREADS[k];
        assert_int_equal(run(&o, err, sizeof err), TT_OK);
        load(&got, out);
        const int same = same_weights(&got, &ref);
        if (!same)
            print_error("%d threads: the weights differ from 1 thread's\n", THREADS[k]);
        model_free(&got);
        assert_true(same);
    }
    model_free(&ref);
    assert_int_equal(testutil_remove_dir(p.dir), 0);
}

/* Name augmentation copies the pairs whose source has a name, a word written alike in
 * both languages that passes into the target of every pair: with fraction 1 and batches
 * of one pair, one epoch takes a step per pair and per copy. "see" is spelt like "See"
 * (the lake), but "I see Anna" has no "See": it is not a name, so 2 of the 4 pairs (those
 * with Anna) are copied, not 3. */
static void test_train_names_pass_through_every_pair(void **state)
{
    (void)state;
    const Paths p = paths_setup();
    static const char PAIRS[] = "I see the lake\tIch sehe den See\n"
                                "I see Anna\tIch sehe Anna\n"
                                "Anna sees the lake\tAnna sieht den See\n"
                                "The lake is big\tDer See ist groß\n";
    char corpus[160], out[160], err[512], step[32];
    snprintf(corpus, sizeof corpus, "%s/names.tsv", p.dir);
    snprintf(out, sizeof out, "%s/model.db", p.dir);
    FILE *f = fopen(corpus, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(PAIRS, 1, sizeof PAIRS - 1, f), sizeof PAIRS - 1);
    assert_int_equal(fclose(f), 0);
    TrainOptions o;
    small_run(&o, &p, out);
    o.train_path = corpus;
    o.valid_path = NULL;
    o.epochs = 1;
    o.batch = 1;
    o.name_augment = 1.0f;
    assert_int_equal(run(&o, err, sizeof err), TT_OK);
    meta_value(out, "train_step", step, sizeof step);
    assert_string_equal(step, "6");
    assert_int_equal(testutil_remove_dir(p.dir), 0);
}

/* A run stopped after 5 steps and resumed with no setting given (a caller that only says
 * where the file is) ends with exactly the weights of the uninterrupted run: every
 * setting comes from the file, the seed above 2^53 included. */
static void test_train_resume_takes_the_files_settings(void **state)
{
    (void)state;
    const Paths p = paths_setup();
    char whole[160], part[160], err[512];
    snprintf(whole, sizeof whole, "%s/whole.db", p.dir);
    snprintf(part, sizeof part, "%s/part.db", p.dir);
    TrainOptions o;
    small_run(&o, &p, whole);
    assert_int_equal(run(&o, err, sizeof err), TT_OK);
    small_run(&o, &p, part);
    o.stop_after = 5;
    assert_int_equal(run(&o, err, sizeof err), TT_OK);

    TrainOptions r;
    train_options_defaults(&r);
    r.train_path = p.corpus;
    r.valid_path = p.corpus;
    r.out_path = part;
    r.resume = 1;
    assert_int_equal(r.given, 0u);
    assert_int_equal(run(&r, err, sizeof err), TT_OK);
    Model a, b;
    load(&a, whole);
    load(&b, part);
    const int same = same_weights(&a, &b);
    model_free(&b);
    model_free(&a);
    assert_true(same);

    char seed[32];
    meta_value(part, "train_seed", seed, sizeof seed);
    assert_string_equal(seed, "18446744073709551557");
    assert_int_equal(testutil_remove_dir(p.dir), 0);
}

/* A resumed run given a setting other than the file's is refused before it writes
 * anything, with a message naming the option, the key and both values; the same value
 * is accepted, and so is another --epochs, which extends the run. */
static void test_train_resume_refuses_another_setting(void **state)
{
    (void)state;
    const Paths p = paths_setup();
    char out[160], err[512];
    snprintf(out, sizeof out, "%s/model.db", p.dir);
    TrainOptions o;
    small_run(&o, &p, out);
    o.stop_after = 3;
    assert_int_equal(run(&o, err, sizeof err), TT_OK);
    char before[128], after[128];
    content_of(out, before, sizeof before);

    static const struct {
        TrainSetting setting;
        const char *value;
        const char *message;
    } BAD[] = {
        {TRAIN_LR, "0.001", "--lr 0.001 differs from the peak learning rate the run was "
                            "started with (meta train_lr = 0.003)"},
        {TRAIN_BATCH, "8", "--batch 8 differs from the batch size the run was started "
                           "with (meta train_batch_size = 4)"},
        {TRAIN_ADAM_BETA2, "0.98", "--adam-beta2 0.98 differs from the AdamW beta2 the run "
                                   "was started with (meta train_adam_beta2 = 0.99)"},
        {TRAIN_SEED, "1", "--seed 1 differs from the training seed the run was started "
                          "with (meta train_seed = 18446744073709551557)"},
        {TRAIN_DROPOUT, "0", "--dropout 0 differs from the dropout the run was started "
                             "with (meta train_dropout = 0.1)"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        TrainOptions r = resumed(&o, 0);
        r.stop_after = 1;
        assert_int_equal(train_setting_parse(&r, BAD[i].setting, BAD[i].value, err, sizeof err),
                         TT_OK);
        r.given = TRAIN_GIVEN(BAD[i].setting);
        assert_int_equal(train_run(&r, NULL, NULL, NULL, err, sizeof err), TT_EINVAL);
        if (!strstr(err, BAD[i].message))
            print_error("got: %s\nwant: %s\n", err, BAD[i].message);
        assert_non_null(strstr(err, BAD[i].message));
        content_of(out, after, sizeof after);
        assert_string_equal(after, before);
    }

    /* Every setting given again with the file's value, and a longer run. */
    TrainOptions r = resumed(&o, ~0u);
    r.stop_after = 1;
    r.epochs = 5;
    assert_int_equal(run(&r, err, sizeof err), TT_OK);
    char epochs[16];
    meta_value(out, "train_epochs", epochs, sizeof epochs);
    assert_string_equal(epochs, "5");
    assert_int_equal(testutil_remove_dir(p.dir), 0);
}

/* A recorded setting out of its range, or missing where it must be there, makes the file
 * unusable for a resume (TT_EMODEL naming the key); a missing AdamW key is the value such
 * a file ran with, and the resume records it. */
static void test_train_resume_checks_recorded_settings(void **state)
{
    (void)state;
    const Paths p = paths_setup();
    char out[160], err[512];
    snprintf(out, sizeof out, "%s/model.db", p.dir);
    TrainOptions o;
    small_run(&o, &p, out);
    o.adam_beta1 = 0.9f; /* what a file without the key ran with */
    o.stop_after = 2;
    assert_int_equal(run(&o, err, sizeof err), TT_OK);
    size_t n0;
    unsigned char *good = read_file(out, &n0);

    static const struct {
        const char *sql;
        const char *message;
    } BAD[] = {
        {"UPDATE meta SET value = '1' WHERE key = 'train_adam_beta2'",
         "meta 'train_adam_beta2': '1' is not a number from 0 to below 1"},
        {"UPDATE meta SET value = 'abc' WHERE key = 'train_lr'",
         "meta 'train_lr': 'abc' is not a number from 1e-09 to 1e+09"},
        {"UPDATE meta SET value = '0' WHERE key = 'train_batch_size'",
         "meta 'train_batch_size': 0 is out of range (1 to 100000)"},
        {"UPDATE meta SET value = '-1' WHERE key = 'train_seed'",
         "meta 'train_seed': '-1' is not a non-negative whole number"},
        {"DELETE FROM meta WHERE key = 'train_batch_size'",
         "meta 'train_batch_size' is missing"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        rewrite(out, good, n0, BAD[i].sql);
        const TrainOptions r = resumed(&o, 0);
        assert_int_equal(train_run(&r, NULL, NULL, NULL, err, sizeof err), TT_EMODEL);
        if (!strstr(err, BAD[i].message))
            print_error("got: %s\nwant: %s\n", err, BAD[i].message);
        assert_non_null(strstr(err, BAD[i].message));
    }

    /* No train_adam_beta1: the resume runs with 0.9, records it, and refuses another. */
    rewrite(out, good, n0, "DELETE FROM meta WHERE key = 'train_adam_beta1'");
    free(good);
    TrainOptions r = resumed(&o, TRAIN_GIVEN(TRAIN_ADAM_BETA1));
    r.adam_beta1 = 0.5f;
    assert_int_equal(train_run(&r, NULL, NULL, NULL, err, sizeof err), TT_EINVAL);
    assert_non_null(strstr(err, "(meta train_adam_beta1 = 0.9)"));
    r.given = 0;
    r.stop_after = 1;
    assert_int_equal(run(&r, err, sizeof err), TT_OK);
    char beta1[32];
    meta_value(out, "train_adam_beta1", beta1, sizeof beta1);
    assert_string_equal(beta1, "0.899999976");
    assert_int_equal(testutil_remove_dir(p.dir), 0);
}

/* train_setting_parse: each type's syntax and range, checked as the value is used (a
 * float), with o untouched on an error. */
static void test_train_setting_parse(void **state)
{
    (void)state;
    static const struct {
        TrainSetting setting;
        const char *text;
        const char *error; /* NULL: accepted */
    } CASES[] = {
        {TRAIN_EPOCHS, "7", NULL},
        {TRAIN_EPOCHS, "0", "0 is out of range (1 to 100000)"},
        {TRAIN_EPOCHS, "7x", "'7x' is not a whole number"},
        {TRAIN_EPOCHS, " 7", "' 7' is not a whole number"},
        {TRAIN_EPOCHS, "", "'' is not a whole number"},
        {TRAIN_WARMUP, "0", NULL},
        {TRAIN_WARMUP, "99999999999999999999", "99999999999999999999 is out of range"},
        {TRAIN_LR, "0.002", NULL},
        {TRAIN_LR, "1e-9", NULL}, /* the range's end, as a float */
        {TRAIN_LR, "0", "'0' is not a number from 1e-09 to 1e+09"},
        {TRAIN_LR, "nan", "'nan' is not a number from 1e-09 to 1e+09"},
        {TRAIN_LR, "inf", "'inf' is not a number"},
        {TRAIN_DROPOUT, "0.95", "'0.95' is not a number from 0 to 0.9"},
        {TRAIN_ADAM_BETA2, "0.999", NULL},
        {TRAIN_ADAM_BETA2, "0.9999999999", "'0.9999999999' is not a number from 0 to below 1"},
        {TRAIN_ADAM_EPS, "1e-45", NULL},
        {TRAIN_ADAM_EPS, "1e-60", "'1e-60' is not a number above 0"},
        {TRAIN_ADAM_EPS, "1e39", "'1e39' is not a number above 0"},
        {TRAIN_SEED, "18446744073709551615", NULL},
        {TRAIN_SEED, "18446744073709551616", "18446744073709551616 is out of range"},
        {TRAIN_SEED, "-1", "'-1' is not a non-negative whole number"},
        {TRAIN_SEED, "+1", "'+1' is not a non-negative whole number"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        TrainOptions o, before;
        train_options_defaults(&o);
        before = o;
        char err[160] = "";
        const int rc = train_setting_parse(&o, CASES[i].setting, CASES[i].text, err, sizeof err);
        if (CASES[i].error) {
            if (rc != TT_EINVAL || !strstr(err, CASES[i].error))
                print_error("%s '%s': rc %d, '%s'\n", train_setting_option(CASES[i].setting),
                            CASES[i].text, rc, err);
            assert_int_equal(rc, TT_EINVAL);
            assert_non_null(strstr(err, CASES[i].error));
            assert_memory_equal(&o, &before, sizeof o);
        } else {
            if (rc != TT_OK)
                print_error("%s '%s': %s\n", train_setting_option(CASES[i].setting),
                            CASES[i].text, err);
            assert_int_equal(rc, TT_OK);
        }
    }
    TrainOptions o;
    train_options_defaults(&o);
    char err[160];
    assert_int_equal(train_setting_parse(&o, TRAIN_SEED, "18446744073709551615", err, sizeof err),
                     TT_OK);
    assert_true(o.seed == UINT64_MAX);
    assert_int_equal(train_setting_parse(&o, TRAIN_LR, "0.25", err, sizeof err), TT_OK);
    assert_true(o.lr == 0.25f);
    assert_int_equal(train_setting_parse(&o, TRAIN_BATCH, "12", err, sizeof err), TT_OK);
    assert_int_equal(o.batch, 12);
    assert_string_equal(train_setting_key(TRAIN_NAME_AUGMENT), "train_name_augment");
    assert_string_equal(train_setting_option(TRAIN_NAME_AUGMENT), "--name-augment");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_setting_parse),
        cmocka_unit_test(test_train_threads_bit_identical),
        cmocka_unit_test(test_train_names_pass_through_every_pair),
        cmocka_unit_test(test_train_resume_takes_the_files_settings),
        cmocka_unit_test(test_train_resume_refuses_another_setting),
        cmocka_unit_test(test_train_resume_checks_recorded_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
