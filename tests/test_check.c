/*
 * test_check.c — regression checks: the shipped model passes its cases and its golden
 * file; a copy of it with one weight changed fails the golden comparison although the
 * words stay the same; wrong expectations and malformed lines are reported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "eval/check.h"
#include "model/model.h"
#include "model/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODEL "models/en-de.db"
#define CASES "data/regression.tsv"
#define GOLDEN "tests/golden/en-de.jsonl"

static void load(Model *m, const char *path)
{
    char err[512];
    if (model_load_file(m, path, err, sizeof err) != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
}

/* Runs check_run into a memory buffer; returns the printed text (caller frees). */
static char *run(const Model *m, const char *cases, const char *golden, CheckSummary *sum)
{
    char *text = NULL, err[512] = "";
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    int rc = check_run(m, cases, golden, 0, CHECK_DEFAULT_TOLERANCE, 1, NULL, out, sum, err,
                       sizeof err);
    fclose(out);
    if (rc != TT_OK) {
        print_error("check_run: %s\n", err);
        fail();
    }
    return text;
}

/* The shipped model passes every regression case, words and numbers. */
static void test_check_shipped_model_passes(void **state)
{
    (void)state;
    Model m;
    CheckSummary sum;
    load(&m, MODEL);
    char *text = run(&m, CASES, GOLDEN, &sum);
    if (sum.failed) {
        print_error("%s\n", text);
        fail();
    }
    assert_true(sum.passed >= 60);
    free(text);
    model_free(&m);
}

/* A copy of the model with one weight changed still gives the same words, but the
 * golden comparison fails and names the number that moved. */
static void test_check_one_weight_changed_fails_golden(void **state)
{
    (void)state;
    Model m;
    char dir[] = "/tmp/toytrans-check-XXXXXX", path[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/copy.db", dir);
    load(&m, MODEL);
    /* One entry of the last decoder layer's cross-attention query projection. */
    int found = 0;
    for (int i = 0; i < m.n_specs; i++)
        if (strcmp(m.specs[i].name, "decoder.layers.1.cross_attn.W_query.weight") == 0) {
            m.params[m.specs[i].offset + 5] += 0.05f;
            found = 1;
        }
    assert_true(found);
    Store *s = NULL;
    assert_int_equal(store_open(&s, path, STORE_CREATE, err, sizeof err), TT_OK);
    assert_int_equal(store_begin(s, err, sizeof err), TT_OK);
    assert_int_equal(model_save(&m, s, err, sizeof err), TT_OK);
    assert_int_equal(store_commit(s, err, sizeof err), TT_OK);
    assert_int_equal(store_close(s, err, sizeof err), TT_OK);
    model_free(&m);

    Model copy;
    CheckSummary words, numbers;
    load(&copy, path);
    char *text = run(&copy, CASES, NULL, &words);
    assert_int_equal(words.failed, 0); /* the words did not move */
    free(text);
    text = run(&copy, CASES, GOLDEN, &numbers);
    assert_true(numbers.failed > 0);
    assert_non_null(strstr(text, "numbers moved"));
    assert_non_null(strstr(text, "cross_attention"));
    free(text);
    model_free(&copy);
    remove(path);
    rmdir(dir);
}

/* A wrong expectation fails with expected, got and the first differing word; malformed
 * lines are named by number and counted. */
static void test_check_reports_failures_and_bad_lines(void **state)
{
    (void)state;
    char dir[] = "/tmp/toytrans-check-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cases.tsv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("# a comment\n"
          "This is an example\tDas ist ein Beispiel\n"
          "This is an example\tDas ist eine Beispiel\n"
          "no tab on this line\n"
          "\n"
          "bad \xff bytes\tX\n",
          f);
    fclose(f);
    Model m;
    CheckSummary sum;
    load(&m, MODEL);
    char *text = run(&m, path, NULL, &sum);
    assert_int_equal(sum.passed, 1);
    assert_int_equal(sum.failed, 3);
    assert_int_equal(sum.malformed, 2);
    assert_non_null(strstr(text, "first difference at word 3: 'ein' where 'eine' was expected"));
    assert_non_null(strstr(text, "cases.tsv:4: malformed"));
    assert_non_null(strstr(text, "cases.tsv:6: malformed: invalid UTF-8 at byte 4"));
    free(text);
    model_free(&m);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_shipped_model_passes),
        cmocka_unit_test(test_check_one_weight_changed_fails_golden),
        cmocka_unit_test(test_check_reports_failures_and_bad_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
