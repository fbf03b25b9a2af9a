/*
 * test_matrix.c — unit tests for matrix.h: matrix_init/matrix_free and the text reader
 * behind `toytrans trace --input`.
 *
 * Input reaches the reader through fmemopen, so every case is an in-memory string with
 * an explicit length (NUL bytes included). Error cases are one table: the exact status
 * code, and the places the message must name (file, line, column and byte offset where
 * the reader reports them). After every failure the Matrix must own nothing.
 */
#include "base/status.h"
#include "show/matrix.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_LEN 256
#define NAME "in.txt" /* what error messages call the in-memory file */

/* ---------------------------------------------------------------------------------------
 * Helpers
 */

/* Opens len bytes of text as a read-only stream. The bytes are copied into *buf, which
 * the caller frees after fclose. An empty text uses tmpfile(), since POSIX lets
 * fmemopen refuse a zero size. */
static FILE *open_text(const char *text, size_t len, char **buf)
{
    *buf = NULL;
    if (len == 0)
        return tmpfile();
    *buf = malloc(len);
    assert_non_null(*buf);
    memcpy(*buf, text, len);
    return fmemopen(*buf, len, "r");
}

/* Reads len bytes of text into m under NAME; returns the reader's status. */
static int read_text_n(Matrix *m, const char *text, size_t len, char *err, size_t errlen)
{
    char *buf;
    FILE *f = open_text(text, len, &buf);
    assert_non_null(f);
    int rc = matrix_read_text(m, f, NAME, err, errlen);
    fclose(f);
    free(buf);
    return rc;
}

/* As read_text_n for a NUL-terminated text. */
static int read_text(Matrix *m, const char *text, char *err, size_t errlen)
{
    return read_text_n(m, text, strlen(text), err, errlen);
}

/* Fills m with non-zero garbage so that a test sees whether the reader reset it. */
static void poison(Matrix *m)
{
    static float dummy;
    static char *dummy_labels[1];
    m->rows = 99;
    m->cols = 99;
    m->data = &dummy;
    m->labels = dummy_labels;
}

/* Asserts that m owns nothing: the state the header promises after a failure. */
static void assert_matrix_zeroed(const Matrix *m)
{
    assert_null(m->data);
    assert_null(m->labels);
    assert_int_equal(m->rows, 0);
    assert_int_equal(m->cols, 0);
}

/* Asserts m is rows × cols with the given values (exactly, as the reader rounds each
 * decimal once to float) and labels. */
static void assert_matrix(const Matrix *m, int rows, int cols, const float *want,
                          const char *const *labels)
{
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    assert_non_null(m->data);
    assert_non_null(m->labels);
    assert_close_array("values", m->data, want, (size_t)rows * (size_t)cols, 0.0);
    for (int r = 0; r < rows; r++) {
        assert_non_null(m->labels[r]);
        assert_string_equal(m->labels[r], labels[r]);
    }
}

/* Reads text, which must succeed, and checks the result against the expectation. */
static void check_read_ok(const char *text, size_t len, int rows, int cols, const float *want,
                          const char *const *labels)
{
    Matrix m;
    char err[ERR_LEN];
    poison(&m);
    strcpy(err, "not cleared");
    int rc = read_text_n(&m, text, len, err, sizeof err);
    if (rc != TT_OK)
        print_error("reader failed with %d: %s\n", rc, err);
    assert_int_equal(rc, TT_OK);
    assert_string_equal(err, ""); /* err is cleared on success */
    assert_matrix(&m, rows, cols, want, labels);
    matrix_free(&m);
    assert_matrix_zeroed(&m);
}

/* One malformed input: its status and the substrings its message must contain. */
typedef struct {
    const char *what;   /* the property, for the failure report */
    const char *text;   /* the input */
    size_t len;         /* its length in bytes (0 with a NULL text: the empty file) */
    int rc;             /* the expected status */
    const char *place;  /* e.g. "in.txt:2:3 (byte 8)": file, line, column, byte */
    const char *detail; /* a second substring (the field, the reason), or NULL */
} BadInput;

#define BAD(what, lit, rc, place, detail) {what, lit, sizeof(lit) - 1, rc, place, detail}

/* Reads one malformed input and checks the status, the message and the zeroed Matrix. */
static void check_bad_input(const BadInput *c)
{
    Matrix m;
    char err[ERR_LEN];
    poison(&m);
    memset(err, 'z', sizeof err);
    int rc = read_text_n(&m, c->text ? c->text : "", c->len, err, sizeof err);
    assert_non_null(memchr(err, '\0', sizeof err)); /* always NUL-terminated */
    if (rc != c->rc || !strstr(err, c->place) || (c->detail && !strstr(err, c->detail)))
        print_error("case '%s': got rc %d, message \"%s\"; want rc %d naming \"%s\"%s%s\n",
                    c->what, rc, err, c->rc, c->place, c->detail ? " and " : "",
                    c->detail ? c->detail : "");
    assert_int_equal(rc, c->rc);
    assert_non_null(strstr(err, c->place));
    if (c->detail)
        assert_non_null(strstr(err, c->detail));
    assert_matrix_zeroed(&m);
    matrix_free(&m); /* harmless on the zeroed result */
}

static void check_bad_inputs(const BadInput *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_bad_input(&cases[i]);
}

/* Builds "<prefix>" followed by n copies of "1 " and a newline; the caller frees. */
static char *make_wide_row(const char *prefix, int n, size_t *len)
{
    size_t plen = strlen(prefix);
    *len = plen + 2 * (size_t)n + 1;
    char *s = malloc(*len + 1);
    assert_non_null(s);
    memcpy(s, prefix, plen);
    for (int i = 0; i < n; i++)
        memcpy(s + plen + 2 * (size_t)i, "1 ", 2);
    s[*len - 1] = '\n';
    s[*len] = '\0';
    return s;
}

/* ---------------------------------------------------------------------------------------
 * Reading well-formed text
 */

/* A plain 2 × 3 matrix is read exactly, and unlabelled rows are called x1, x2. */
static void test_matrix_reads_plain_rows(void **state)
{
    (void)state;
    static const char text[] = "1 2.5 -3\n0.125 0 1e-3\n";
    static const float want[] = {1.0f, 2.5f, -3.0f, 0.125f, 0.0f, 1e-3f};
    static const char *const labels[] = {"x1", "x2"};
    check_read_ok(text, sizeof text - 1, 2, 3, want, labels);
}

/* A leading word is the row's label, UTF-8 included; it is not a value. */
static void test_matrix_reads_labelled_rows(void **state)
{
    (void)state;
    static const char text[] = "Das 0.1 0.2\n"
                               "Mädchen -0.3 4\n"
                               "_pad 5 6\n";
    static const float want[] = {0.1f, 0.2f, -0.3f, 4.0f, 5.0f, 6.0f};
    static const char *const labels[] = {"Das", "Mädchen", "_pad"};
    check_read_ok(text, sizeof text - 1, 3, 2, want, labels);
}

/* A word that merely begins like a number spelled with letters (inf, nan) is a label. */
static void test_matrix_reads_labels_that_start_like_inf_or_nan(void **state)
{
    (void)state;
    static const char text[] = "info 1 2\nNancy 3 4\n";
    static const float want[] = {1, 2, 3, 4};
    static const char *const labels[] = {"info", "Nancy"};
    check_read_ok(text, sizeof text - 1, 2, 2, want, labels);
}

/* Labelled and unlabelled rows may mix; an unlabelled row is named by its row number. */
static void test_matrix_names_unlabelled_rows_by_position(void **state)
{
    (void)state;
    static const char text[] = "a 1 2\n3 4\nc 5 6\n";
    static const float want[] = {1, 2, 3, 4, 5, 6};
    static const char *const labels[] = {"a", "x2", "c"};
    check_read_ok(text, sizeof text - 1, 3, 2, want, labels);
}

/* Comment lines ('#' as first non-blank) and blank lines are skipped, anywhere. */
static void test_matrix_skips_comments_and_blank_lines(void **state)
{
    (void)state;
    static const char text[] = "# embeddings, 3-dimensional\n"
                               "\n"
                               "1 2 3\n"
                               "   # an indented comment 7 8 9\n"
                               " \t \n"
                               "4 5 6\n"
                               "\n"
                               "# trailing comment\n";
    static const float want[] = {1, 2, 3, 4, 5, 6};
    static const char *const labels[] = {"x1", "x2"};
    check_read_ok(text, sizeof text - 1, 2, 3, want, labels);
}

/* CRLF line ends are read like LF: the '\r' is not part of the last value or a label. */
static void test_matrix_reads_crlf_line_ends(void **state)
{
    (void)state;
    static const char text[] = "# comment\r\n\r\nword 1 2\r\n3 4\r\n";
    static const float want[] = {1, 2, 3, 4};
    static const char *const labels[] = {"word", "x2"};
    check_read_ok(text, sizeof text - 1, 2, 2, want, labels);
}

/* The last line counts even without a final newline. */
static void test_matrix_reads_last_line_without_newline(void **state)
{
    (void)state;
    static const char text[] = "1 2\n3 4";
    static const float want[] = {1, 2, 3, 4};
    static const char *const labels[] = {"x1", "x2"};
    check_read_ok(text, sizeof text - 1, 2, 2, want, labels);
}

/* Tabs separate values like spaces, in any mixture and number. */
static void test_matrix_reads_tab_separated_values(void **state)
{
    (void)state;
    static const char text[] = "a\t1\t2\n\tb \t 3\t\t4 \t\n";
    static const float want[] = {1, 2, 3, 4};
    static const char *const labels[] = {"a", "b"};
    check_read_ok(text, sizeof text - 1, 2, 2, want, labels);
}

/* Scientific notation (either case of e, signed exponents) reads as the float it names. */
static void test_matrix_reads_scientific_notation(void **state)
{
    (void)state;
    static const char text[] = "1e-3 -2.5E+2 3e0\n+6.02e23 1E-7 -0.5e1\n";
    static const float want[] = {1e-3f, -250.0f, 3.0f, 6.02e23f, 1e-7f, -5.0f};
    static const char *const labels[] = {"x1", "x2"};
    check_read_ok(text, sizeof text - 1, 2, 3, want, labels);
}

/* Values up to FLT_MAX in magnitude fit a float and are read, not refused. */
static void test_matrix_reads_values_up_to_flt_max(void **state)
{
    (void)state;
    static const char text[] = "3.4028e38 -3.4028e38\n";
    static const float want[] = {3.4028e38f, -3.4028e38f};
    static const char *const labels[] = {"x1"};
    check_read_ok(text, sizeof text - 1, 1, 2, want, labels);
}

/* Exactly MATRIX_MAX_DIM values in a row are allowed. */
static void test_matrix_reads_row_of_max_width(void **state)
{
    (void)state;
    size_t len;
    char *text = make_wide_row("", MATRIX_MAX_DIM, &len);
    Matrix m;
    char err[ERR_LEN];
    assert_int_equal(read_text_n(&m, text, len, err, sizeof err), TT_OK);
    assert_int_equal(m.rows, 1);
    assert_int_equal(m.cols, MATRIX_MAX_DIM);
    assert_float_equal(m.data[MATRIX_MAX_DIM - 1], 1.0, 0.0);
    matrix_free(&m);
    free(text);
}

/* err may be NULL: the reader still reads, and still fails cleanly. */
static void test_matrix_read_accepts_null_err(void **state)
{
    (void)state;
    Matrix m;
    assert_int_equal(read_text(&m, "1 2\n", NULL, 0), TT_OK);
    assert_int_equal(m.cols, 2);
    matrix_free(&m);
    poison(&m);
    assert_int_equal(read_text(&m, "1 x\n", NULL, 0), TT_EINPUT);
    assert_matrix_zeroed(&m);
}

/* A short err buffer gets a truncated but NUL-terminated message. */
static void test_matrix_read_truncates_long_messages(void **state)
{
    (void)state;
    Matrix m;
    char err[16];
    memset(err, 'z', sizeof err);
    assert_int_equal(read_text(&m, "1 2\n3 not-a-number\n", err, 8), TT_EINPUT);
    assert_int_equal(strlen(err), 7);
    assert_string_equal(err, "in.txt:");
    assert_int_equal(err[8], 'z'); /* nothing written past errlen */
    assert_matrix_zeroed(&m);
}

/* ---------------------------------------------------------------------------------------
 * Malformed text: exact status, a message naming the place, a zeroed Matrix
 */

/* A field that is not wholly a number is TT_EINPUT at its line, column and byte. */
static void test_matrix_rejects_non_number_field(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        BAD("trailing letter", "1 2 3\n4 0.5x 6\n", TT_EINPUT, "in.txt:2:3 (byte 8)",
            "'0.5x' is not a number"),
        BAD("first field", "-.5.5 1\n", TT_EINPUT, "in.txt:1:1 (byte 0)", "'-.5.5'"),
        /* A first field that starts with a letter is a label, so 'x.5' errs only later. */
        BAD("letter inside a row", "1 2\n3 x.5\n", TT_EINPUT, "in.txt:2:3 (byte 6)", "'x.5'"),
        BAD("after a label", "tok 1 2\ntok 3 -\n", TT_EINPUT, "in.txt:2:7 (byte 14)", "'-'"),
        /* Columns and bytes count bytes: "Mädchen" is 8 bytes. */
        BAD("after a UTF-8 label", "# c\nMädchen 1,5\n", TT_EINPUT, "in.txt:2:10 (byte 13)",
            "'1,5'"),
        BAD("second word", "one two 3\n", TT_EINPUT, "in.txt:1:5 (byte 4)", "'two'"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* A row whose width differs from the rows above is TT_EINPUT at its line. */
static void test_matrix_rejects_rows_of_different_widths(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        BAD("narrower", "1 2 3\n4 5\n", TT_EINPUT, "in.txt:2:", "2 values"),
        BAD("wider, after a comment", "a 1 2\n# c\nb 3 4 5\n", TT_EINPUT, "in.txt:3:",
            "3 values"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* inf, nan and values beyond a float's range are TT_EINPUT at their place. */
static void test_matrix_rejects_non_finite_values(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        BAD("inf", "1 2\ninf 3\n", TT_EINPUT, "in.txt:2:1 (byte 4)", "'inf' is not a finite"),
        BAD("-inf", "1 -inf\n", TT_EINPUT, "in.txt:1:3 (byte 2)", "'-inf'"),
        BAD("nan", "1 2\n3 nan\n", TT_EINPUT, "in.txt:2:3 (byte 6)", "'nan' is not a finite"),
        BAD("NaN as first field", "NaN 1\n", TT_EINPUT, "in.txt:1:1 (byte 0)", "'NaN'"),
        BAD("1e39 overflows a float", "1 2\n3 1e39\n", TT_EINPUT, "in.txt:2:3 (byte 6)",
            "'1e39' is not a finite"),
        BAD("1e400 overflows a double", "-1e400 2\n", TT_EINPUT, "in.txt:1:1 (byte 0)",
            "'-1e400'"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* A file without any row (empty, or only comments and blanks) is TT_EINPUT. */
static void test_matrix_rejects_file_without_rows(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        {"empty file", NULL, 0, TT_EINPUT, "in.txt:", "no rows"},
        BAD("only comments", "# one\n\n   # two\n\t\n", TT_EINPUT, "in.txt:", "no rows"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* A label with no values after it is TT_EINPUT at its line. */
static void test_matrix_rejects_label_without_values(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        BAD("alone in the file", "word\n", TT_EINPUT, "in.txt:1:", "no values"),
        BAD("after good rows", "a 1 2\n\nb\r\n", TT_EINPUT, "in.txt:3:", "no values"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* A NUL byte is TT_EINPUT at its line and byte, even if it ends a field. */
static void test_matrix_rejects_nul_byte(void **state)
{
    (void)state;
    static const BadInput cases[] = {
        BAD("inside a line", "1 2\n3 \0 4\n", TT_EINPUT, "in.txt:2 (byte 6)", "NUL"),
        BAD("right after a value", "1 2\0\n", TT_EINPUT, "in.txt:1 (byte 3)", "NUL"),
    };
    check_bad_inputs(cases, sizeof cases / sizeof cases[0]);
}

/* More than MATRIX_MAX_DIM values in a row is TT_EINPUT at its line. */
static void test_matrix_rejects_row_wider_than_max_dim(void **state)
{
    (void)state;
    size_t len;
    char *text = make_wide_row("# too wide\n", MATRIX_MAX_DIM + 1, &len);
    const BadInput c = {"wide row", text, len, TT_EINPUT, "in.txt:2:", "values in a row"};
    check_bad_input(&c);
    free(text);
}

/* More than MATRIX_MAX_DIM rows is TT_EINPUT at the first row too many. */
static void test_matrix_rejects_more_rows_than_max_dim(void **state)
{
    (void)state;
    const size_t len = 2 * ((size_t)MATRIX_MAX_DIM + 1);
    char *text = malloc(len + 1);
    assert_non_null(text);
    for (size_t i = 0; i < len; i += 2)
        memcpy(text + i, "1\n", 2);
    text[len] = '\0';
    const BadInput c = {"tall file", text, len, TT_EINPUT, "in.txt:4097:", "rows"};
    check_bad_input(&c);
    free(text);
}

/* A stream that fails to read is TT_EIO, not malformed input; m owns nothing. */
static void test_matrix_reports_read_error_as_eio(void **state)
{
    (void)state;
    /* On Linux a directory opens as a stream whose first read fails with EISDIR. */
    FILE *f = fopen("/", "r");
    if (!f)
        skip();
    Matrix m;
    char err[ERR_LEN];
    poison(&m);
    int rc = matrix_read_text(&m, f, "dir", err, sizeof err);
    fclose(f);
    assert_int_equal(rc, TT_EIO);
    assert_non_null(strstr(err, "dir"));
    assert_matrix_zeroed(&m);
}

/* A NULL stream is the caller's mistake: TT_EINVAL, m zeroed. */
static void test_matrix_read_rejects_null_stream(void **state)
{
    (void)state;
    Matrix m;
    char err[ERR_LEN];
    poison(&m);
    assert_int_equal(matrix_read_text(&m, NULL, NAME, err, sizeof err), TT_EINVAL);
    assert_matrix_zeroed(&m);
    assert_int_equal(matrix_read_text(NULL, stdin, NAME, err, sizeof err), TT_EINVAL);
}

/* ---------------------------------------------------------------------------------------
 * matrix_init and matrix_free
 */

/* matrix_init copies the values, and NULL labels give x1 … xN. */
static void test_matrix_init_copies_values_and_numbers_rows(void **state)
{
    (void)state;
    float data[] = {1, 2, 3, 4, 5, 6};
    static const char *const labels[] = {"x1", "x2", "x3"};
    Matrix m;
    poison(&m);
    assert_int_equal(matrix_init(&m, data, 3, 2, NULL), TT_OK);
    data[0] = 99.0f; /* the matrix holds a copy */
    static const float want[] = {1, 2, 3, 4, 5, 6};
    assert_matrix(&m, 3, 2, want, labels);
    matrix_free(&m);
}

/* Given labels are copied; a NULL entry among them gets its default name. */
static void test_matrix_init_copies_labels(void **state)
{
    (void)state;
    static const float data[] = {1, 2};
    char first[] = "Mädchen";
    const char *labels[] = {first, NULL};
    static const char *const want_labels[] = {"Mädchen", "x2"};
    Matrix m;
    assert_int_equal(matrix_init(&m, data, 2, 1, labels), TT_OK);
    first[0] = 'X';
    assert_matrix(&m, 2, 1, data, want_labels);
    assert_ptr_not_equal(m.labels[0], first);
    matrix_free(&m);
}

/* Zero or negative dimensions, too-large ones and NULL data are TT_EINVAL, m zeroed. */
static void test_matrix_init_rejects_bad_dimensions(void **state)
{
    (void)state;
    static const float data[] = {1, 2, 3};
    static const struct {
        const float *data;
        int rows, cols;
    } cases[] = {
        {data, 0, 3}, {data, 3, 0}, {data, -1, 3}, {data, 1, MATRIX_MAX_DIM + 1},
        {data, MATRIX_MAX_DIM + 1, 1}, {NULL, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Matrix m;
        poison(&m);
        assert_int_equal(matrix_init(&m, cases[i].data, cases[i].rows, cases[i].cols, NULL),
                         TT_EINVAL);
        assert_matrix_zeroed(&m);
        matrix_free(&m);
    }
    assert_int_equal(matrix_init(NULL, data, 1, 3, NULL), TT_EINVAL);
}

/* matrix_free is safe on NULL, on a zeroed Matrix, and twice on the same one. */
static void test_matrix_free_is_idempotent(void **state)
{
    (void)state;
    matrix_free(NULL);
    Matrix zero = {0};
    matrix_free(&zero);
    assert_matrix_zeroed(&zero);

    static const float data[] = {1, 2};
    Matrix m;
    assert_int_equal(matrix_init(&m, data, 1, 2, NULL), TT_OK);
    matrix_free(&m);
    assert_matrix_zeroed(&m);
    matrix_free(&m);
    assert_matrix_zeroed(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_reads_plain_rows),
        cmocka_unit_test(test_matrix_reads_labelled_rows),
        cmocka_unit_test(test_matrix_reads_labels_that_start_like_inf_or_nan),
        cmocka_unit_test(test_matrix_names_unlabelled_rows_by_position),
        cmocka_unit_test(test_matrix_skips_comments_and_blank_lines),
        cmocka_unit_test(test_matrix_reads_crlf_line_ends),
        cmocka_unit_test(test_matrix_reads_last_line_without_newline),
        cmocka_unit_test(test_matrix_reads_tab_separated_values),
        cmocka_unit_test(test_matrix_reads_scientific_notation),
        cmocka_unit_test(test_matrix_reads_values_up_to_flt_max),
        cmocka_unit_test(test_matrix_reads_row_of_max_width),
        cmocka_unit_test(test_matrix_read_accepts_null_err),
        cmocka_unit_test(test_matrix_read_truncates_long_messages),
        cmocka_unit_test(test_matrix_rejects_non_number_field),
        cmocka_unit_test(test_matrix_rejects_rows_of_different_widths),
        cmocka_unit_test(test_matrix_rejects_non_finite_values),
        cmocka_unit_test(test_matrix_rejects_file_without_rows),
        cmocka_unit_test(test_matrix_rejects_label_without_values),
        cmocka_unit_test(test_matrix_rejects_nul_byte),
        cmocka_unit_test(test_matrix_rejects_row_wider_than_max_dim),
        cmocka_unit_test(test_matrix_rejects_more_rows_than_max_dim),
        cmocka_unit_test(test_matrix_reports_read_error_as_eio),
        cmocka_unit_test(test_matrix_read_rejects_null_stream),
        cmocka_unit_test(test_matrix_init_copies_values_and_numbers_rows),
        cmocka_unit_test(test_matrix_init_copies_labels),
        cmocka_unit_test(test_matrix_init_rejects_bad_dimensions),
        cmocka_unit_test(test_matrix_free_is_idempotent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
