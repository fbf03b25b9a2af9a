/*
 * test_mem.c — the shared allocation helpers: string copies and growing arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "mem.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_dup_str_copies_into_new_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
