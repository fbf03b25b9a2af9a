/*
 * test_mem.c — the shared allocation helpers: string copies and growing arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* A copy is equal to its source, in memory of its own, the empty string included. */
static void test_mem_dup_str_copies_into_new_memory(void **state)
{
    (void)state;
    static const char *const CASES[] = {"", "a", "Grüße, Welt"};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char *d = mem_dup_str(CASES[i]);
        assert_non_null(d);
        assert_ptr_not_equal(d, CASES[i]);
        assert_string_equal(d, CASES[i]);
        free(d);
    }
}

/* Growing keeps the contents, leaves room for at least need, doubles so that appends
 * reallocate only logarithmically often, and returns the same block while it has room. */
static void test_mem_grow_keeps_contents_and_doubles(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    int grown = 0;
    for (int i = 0; i < 10000; i++) {
        const size_t old_cap = cap;
        int *g = mem_grow(a, &cap, (size_t)i + 1, sizeof *g);
        assert_non_null(g);
        assert_true(cap >= (size_t)i + 1);
        grown += cap != old_cap;
        a = g;
        a[i] = i;
    }
    for (int i = 0; i < 10000; i++)
        assert_int_equal(a[i], i);
    assert_int_equal(grown, 9); /* 64, 128, ..., 16384 */
    const size_t before = cap;
    assert_ptr_equal(mem_grow(a, &cap, 1, sizeof *a), a);
    assert_int_equal(cap, before);
    free(a);
}

/* A size that cannot be allocated fails with NULL and leaves the block and its room. */
static void test_mem_grow_refuses_overflow(void **state)
{
    (void)state;
    size_t cap = 0;
    double *a = mem_grow(NULL, &cap, 4, sizeof *a);
    assert_non_null(a);
    const size_t before = cap;
    assert_null(mem_grow(a, &cap, SIZE_MAX / 2, sizeof *a));
    assert_int_equal(cap, before);
    a[before - 1] = 1.0; /* still valid */
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_dup_str_copies_into_new_memory),
        cmocka_unit_test(test_mem_grow_keeps_contents_and_doubles),
        cmocka_unit_test(test_mem_grow_refuses_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
