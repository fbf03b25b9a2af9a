/* Lint only: `make lint` force-includes this into every tests/*.c file for clang-tidy; no
 * build ever sees it.
 *
 * cmocka 1.1.5's assertions are plain function calls to the static analyzer, which
 * therefore follows a test past a failed assert_non_null(p) and reports the null
 * dereference that cmocka's longjmp out of the test rules out at run time. Here each
 * assertion the tests use becomes "condition, or a call that does not return", which is
 * what it means; the runtime meaning of the tests is untouched. */
#ifndef TOYTRANS_LINT_CMOCKA_ANALYZER_H
#define TOYTRANS_LINT_CMOCKA_ANALYZER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#ifdef __clang_analyzer__
/* Declared, never defined: the analyzer needs to know only that the first does not return.
 * The second stands for cmocka's byte comparison, which memcmp would not: memcmp draws
 * bugprone-suspicious-memory-comparison on float arrays, where cmocka means the bytes. */
void lint_cmocka_failed(void) __attribute__((noreturn));
int lint_cmocka_same_bytes(const void *a, const void *b, size_t n);
#define LINT_CMOCKA_CHECK(c) ((c) ? (void)0 : lint_cmocka_failed())
#define LINT_CMOCKA_INT(x) cast_to_largest_integral_type(x)

#undef fail
#define fail() lint_cmocka_failed()
#undef skip
#define skip() lint_cmocka_failed()
#undef assert_true
#define assert_true(c) LINT_CMOCKA_CHECK(c)
#undef assert_false
#define assert_false(c) LINT_CMOCKA_CHECK(!(c))
#undef assert_non_null
#define assert_non_null(p) LINT_CMOCKA_CHECK((p) != NULL)
#undef assert_null
#define assert_null(p) LINT_CMOCKA_CHECK((p) == NULL)
#undef assert_int_equal
#define assert_int_equal(a, b) LINT_CMOCKA_CHECK(LINT_CMOCKA_INT(a) == LINT_CMOCKA_INT(b))
#undef assert_int_not_equal
#define assert_int_not_equal(a, b) LINT_CMOCKA_CHECK(LINT_CMOCKA_INT(a) != LINT_CMOCKA_INT(b))
#undef assert_ptr_equal
#define assert_ptr_equal(a, b) LINT_CMOCKA_CHECK((const void *)(a) == (const void *)(b))
#undef assert_ptr_not_equal
#define assert_ptr_not_equal(a, b) LINT_CMOCKA_CHECK((const void *)(a) != (const void *)(b))
#undef assert_string_equal
#define assert_string_equal(a, b) LINT_CMOCKA_CHECK(strcmp((a), (b)) == 0)
#undef assert_string_not_equal
#define assert_string_not_equal(a, b) LINT_CMOCKA_CHECK(strcmp((a), (b)) != 0)
#undef assert_memory_equal
#define assert_memory_equal(a, b, n) LINT_CMOCKA_CHECK(lint_cmocka_same_bytes((a), (b), (n)))
#undef assert_memory_not_equal
#define assert_memory_not_equal(a, b, n) LINT_CMOCKA_CHECK(!lint_cmocka_same_bytes((a), (b), (n)))
#endif

#endif
