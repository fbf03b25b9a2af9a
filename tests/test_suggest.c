/*
 * test_suggest.c — "did you mean": edit distances and which candidates are offered.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/suggest.h"

#include <string.h>

/* Each edit costs 1, a swap of neighbours included; the distance is symmetric. */
static void test_suggest_distance_counts_each_edit_once(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int want;
    } CASES[] = {
        {"", "", 0},           {"eval", "eval", 0},         {"evl", "eval", 1},
        {"evaal", "eval", 1},  {"evak", "eval", 1},         {"tranlsate", "translate", 1},
        {"--beem", "--beam", 1}, {"--hypout", "--hyp-out", 1}, {"abc", "", 3},
        {"ca", "abc", 3},      {"kitten", "sitting", 3},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        assert_int_equal(suggest_distance(CASES[i].a, CASES[i].b), CASES[i].want);
        assert_int_equal(suggest_distance(CASES[i].b, CASES[i].a), CASES[i].want);
    }
    char longer[SUGGEST_MAX_LEN + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(suggest_distance(longer, "a"), SUGGEST_MAX_LEN + 1);
}

/* The nearest candidates are offered, all of them when tied, and only when near. */
static void test_suggest_nearest_offers_only_close_words(void **state)
{
    (void)state;
    const char *const cmds[] = {"trace", "translate", "eval", "check", NULL, "info", "init"};
    const int n = sizeof cmds / sizeof cmds[0];
    int out[4];
    assert_int_equal(suggest_nearest("tranlsate", cmds, n, out, 4), 1);
    assert_string_equal(cmds[out[0]], "translate");
    assert_int_equal(suggest_nearest("evl", cmds, n, out, 4), 1);
    assert_string_equal(cmds[out[0]], "eval");
    /* "inft" is 1 from both "info" and "init": both, in the order given. */
    assert_int_equal(suggest_nearest("inft", cmds, n, out, 4), 2);
    assert_string_equal(cmds[out[0]], "info");
    assert_string_equal(cmds[out[1]], "init");
    assert_int_equal(suggest_nearest("inft", cmds, n, out, 1), 1);
    /* Too far, or a word too short for its distance to mean a typo. */
    assert_int_equal(suggest_nearest("frobnicate", cmds, n, out, 4), 0);
    assert_int_equal(suggest_nearest("x", cmds, n, out, 4), 0);
    assert_int_equal(suggest_nearest("ev", cmds, n, out, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suggest_distance_counts_each_edit_once),
        cmocka_unit_test(test_suggest_nearest_offers_only_close_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
