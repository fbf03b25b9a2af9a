/*
 * test_layout.c — buffers from a table in one block (base/layout.h): every buffer starts
 * at a cache line, holds zeros, does not overlap the next, and a count of 0 gives NULL; a
 * total that would overflow is refused with every field NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/layout.h"
#include "base/status.h"

#include <stdlib.h>
#include <string.h>

static void test_layout_aligned_zeroed_apart(void **state)
{
    (void)state;
    float *a = (float *)&a, *c = (float *)&c; /* not NULL: layout_alloc must set them */
    int *b = (int *)&b, *none = (int *)&none;
    const LayoutRow rows[] = {
        {.f = &a, .count = 3},
        {.i = &b, .count = 17},
        {.i = &none, .count = 0},
        {.f = &c, .count = 64},
    };
    void *mem = NULL;
    assert_int_equal(layout_alloc(&mem, rows, 4), TT_OK);
    assert_non_null(mem);
    assert_null(none);
    assert_int_equal((uintptr_t)a % LAYOUT_ALIGN, 0);
    assert_int_equal((uintptr_t)b % LAYOUT_ALIGN, 0);
    assert_int_equal((uintptr_t)c % LAYOUT_ALIGN, 0);
    /* In table order, each past the end of the one before. */
    assert_true((char *)b >= (char *)(a + 3));
    assert_true((char *)c >= (char *)(b + 17));
    for (int k = 0; k < 3; k++)
        assert_true(a[k] == 0.0f);
    for (int k = 0; k < 17; k++)
        assert_int_equal(b[k], 0);
    for (int k = 0; k < 64; k++)
        assert_true(c[k] == 0.0f);
    /* Every byte is the block's: writing them all is clean under the sanitizers. */
    memset(a, 0xff, 3 * sizeof *a);
    memset(b, 0xff, 17 * sizeof *b);
    memset(c, 0xff, 64 * sizeof *c);
    free(mem);
}

static void test_layout_refuses_overflow(void **state)
{
    (void)state;
    float *a = (float *)&a, *b = (float *)&b;
    const LayoutRow rows[] = {
        {.f = &a, .count = 8},
        {.f = &b, .count = SIZE_MAX / 2},
    };
    void *mem = &mem;
    assert_int_equal(layout_alloc(&mem, rows, 2), TT_EINVAL);
    assert_null(mem);
    assert_null(a);
    assert_null(b);
    const LayoutRow two[] = {
        {.f = &a, .count = SIZE_MAX / 8},
        {.f = &b, .count = SIZE_MAX / 8},
    };
    assert_int_equal(layout_alloc(&mem, two, 2), TT_EINVAL);
    assert_null(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_aligned_zeroed_apart),
        cmocka_unit_test(test_layout_refuses_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
