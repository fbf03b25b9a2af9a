/*
 * test_linein.c — bounded line reading from a FILE and from a descriptor: the same lines,
 * long lines stopped at the bound and their rest skipped, a last line without a newline,
 * the end; and, from a descriptor, whether a line already read is waiting
 * (linein_buffered), which the commands use to answer a pipe without waiting for more.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/linein.h"
#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the lines of TEXT read as with a bound of 4 bytes: each result and line. */
static const char TEXT[] = "one\nabcdefgh\nxy\r\n\nlast";
static const struct {
    int rc;
    const char *line;
} EXPECT[] = {
    {TT_OK, "one\n"},  {LINEIN_LONG, "abcde"}, {TT_OK, "xy\r\n"},
    {TT_OK, "\n"},     {TT_OK, "last"},        {LINEIN_END, NULL},
};

static void expect_lines(LineIn *in)
{
    for (size_t i = 0; i < sizeof EXPECT / sizeof EXPECT[0]; i++) {
        const int rc = linein_read(in);
        assert_int_equal(rc, EXPECT[i].rc);
        if (EXPECT[i].line) {
            assert_int_equal(in->len, strlen(EXPECT[i].line));
            assert_memory_equal(in->line, EXPECT[i].line, in->len);
            assert_int_equal(in->line_no, (long)i + 1);
        }
    }
}

static void test_linein_file_lines(void **state)
{
    (void)state;
    FILE *f = fmemopen((void *)TEXT, sizeof TEXT - 1, "r");
    assert_non_null(f);
    LineIn in;
    linein_init(&in, f, 4, NULL);
    expect_lines(&in);
    assert_false(linein_buffered(&in));
    linein_free(&in);
    fclose(f);
}

/* The same lines through a pipe, read with read(2). */
static void test_linein_fd_lines(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], TEXT, sizeof TEXT - 1), (ssize_t)(sizeof TEXT - 1));
    close(p[1]);
    LineIn in;
    linein_init_fd(&in, p[0], 4, NULL);
    expect_lines(&in);
    linein_free(&in);
    close(p[0]);
}

/* Two lines written at once are both read by the first read(2): after the first line the
 * second is waiting in the LineIn, after the second nothing is, though the pipe is open. */
static void test_linein_fd_buffered(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "a\nbb\n", 5), 5);
    LineIn in;
    linein_init_fd(&in, p[0], 100, NULL);
    assert_false(linein_buffered(&in));
    assert_int_equal(linein_read(&in), TT_OK);
    assert_string_equal(in.line, "a\n");
    assert_true(linein_buffered(&in));
    assert_int_equal(linein_read(&in), TT_OK);
    assert_string_equal(in.line, "bb\n");
    assert_false(linein_buffered(&in));
    assert_int_equal(write(p[1], "c\n", 2), 2);
    close(p[1]);
    assert_int_equal(linein_read(&in), TT_OK);
    assert_string_equal(in.line, "c\n");
    assert_int_equal(linein_read(&in), LINEIN_END);
    linein_free(&in);
    close(p[0]);
}

/* A descriptor that cannot be read is an I/O error, not the end. */
static void test_linein_fd_error(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    LineIn in;
    linein_init_fd(&in, p[1], 100, NULL); /* the write end */
    assert_int_equal(linein_read(&in), TT_EIO);
    linein_free(&in);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linein_file_lines),
        cmocka_unit_test(test_linein_fd_lines),
        cmocka_unit_test(test_linein_fd_buffered),
        cmocka_unit_test(test_linein_fd_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
