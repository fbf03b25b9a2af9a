/*
 * matrix.c — owned matrices and the text reader behind `trace --input`.
 *
 * The reader grows its buffers by doubling and never trusts the input's size: it stops
 * at MATRIX_MAX_DIM rows or columns with an error instead of allocating without bound.
 */
#include "show/matrix.h"

#include "base/linein.h"
#include "base/mem.h"
#include "base/status.h"
#include "text/tokenizer.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *matrix_default_label(int row)
{
    char buf[24];
    snprintf(buf, sizeof buf, "x%d", row + 1);
    return mem_dup_str(buf);
}

void matrix_free(Matrix *m)
{
    if (!m)
        return;
    if (m->labels)
        for (int r = 0; r < m->rows; r++)
            free(m->labels[r]);
    free(m->labels);
    free(m->data);
    memset(m, 0, sizeof *m);
}

int matrix_init(Matrix *m, const float *data, int rows, int cols, const char *const *labels)
{
    if (!m)
        return TT_EINVAL;
    memset(m, 0, sizeof *m);
    if (!data || rows < 1 || cols < 1 || rows > MATRIX_MAX_DIM || cols > MATRIX_MAX_DIM)
        return TT_EINVAL;
    m->data = malloc(sizeof(float) * (size_t)rows * cols);
    m->labels = calloc((size_t)rows, sizeof(char *));
    if (!m->data || !m->labels)
        goto nomem;
    m->rows = rows; /* from here on matrix_free releases the labels made so far */
    m->cols = cols;
    memcpy(m->data, data, sizeof(float) * (size_t)rows * cols);
    for (int r = 0; r < rows; r++) {
        m->labels[r] = labels && labels[r] ? mem_dup_str(labels[r]) : matrix_default_label(r);
        if (!m->labels[r])
            goto nomem;
    }
    return TT_OK;
nomem:
    matrix_free(m);
    return TT_ENOMEM;
}

/* ---------------------------------------------------------------------------------------
 * The text reader
 */

/* Everything the reader accumulates; released in one place. */
typedef struct {
    float *data;
    size_t data_cap; /* floats allocated */
    char **labels;
    size_t label_cap; /* label slots allocated */
    int rows, cols;   /* cols = 0 until the first row fixes it */
    char *err;
    size_t errlen;
    const char *name;
} Reader;

static void reader_error(Reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tt_verrf(rd->err, rd->errlen, fmt, ap);
    va_end(ap);
}

/* Grows rd->data to hold at least n floats. */
static int reader_reserve(Reader *rd, size_t n)
{
    if (n <= rd->data_cap)
        return TT_OK;
    size_t cap = rd->data_cap ? rd->data_cap : 64;
    while (cap < n)
        cap *= 2;
    float *p = realloc(rd->data, sizeof(float) * cap);
    if (!p)
        return TT_ENOMEM;
    rd->data = p;
    rd->data_cap = cap;
    return TT_OK;
}

static int reader_add_label(Reader *rd, char *label)
{
    if ((size_t)rd->rows >= rd->label_cap) {
        size_t cap = rd->label_cap ? rd->label_cap * 2 : 16;
        char **p = realloc(rd->labels, sizeof(char *) * cap);
        if (!p) {
            free(label);
            return TT_ENOMEM;
        }
        rd->labels = p;
        rd->label_cap = cap;
    }
    rd->labels[rd->rows] = label;
    return TT_OK;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Parses one line (without its newline) into a new row. line_no is 1-based; offset is
 * the byte offset of the line's start in the file. */
static int reader_parse_line(Reader *rd, char *line, size_t len, long line_no, long offset)
{
    char *p = line, *end = line + len;
    while (p < end && is_blank(*p))
        p++;
    if (p == end || *p == '#')
        return TT_OK; /* blank line or comment */
    if (rd->rows >= MATRIX_MAX_DIM) {
        reader_error(rd, "%s:%ld: more than %d rows", rd->name, line_no, MATRIX_MAX_DIM);
        return TT_EINPUT;
    }
    char *label = NULL;
    int n = 0;
    size_t base = (size_t)rd->rows * (size_t)(rd->cols ? rd->cols : 0);
    while (p < end) {
        char *field = p;
        while (p < end && !is_blank(*p))
            p++;
        *p = '\0'; /* the line buffer is ours; p < end or p == end (the terminator) */
        long col = (long)(field - line) + 1, byte = offset + (long)(field - line);
        if (n == 0 && !label && (isalpha((unsigned char)*field) || *field == '_' ||
                                 (unsigned char)*field >= 0x80)) {
            /* A label, unless it is a number spelled with letters (inf, nan). */
            char *tail;
            errno = 0;
            (void)strtod(field, &tail);
            if (*tail != '\0') {
                label = mem_dup_str(field);
                if (!label)
                    return TT_ENOMEM;
                goto next;
            }
        }
        {
            char *tail;
            errno = 0;
            double v = strtod(field, &tail);
            if (tail == field || *tail != '\0') {
                reader_error(rd, "%s:%ld:%ld (byte %ld): '%s' is not a number", rd->name,
                             line_no, col, byte, field);
                free(label);
                return TT_EINPUT;
            }
            /* Overflow is an error; underflow (ERANGE with a tiny v) rounds towards zero
             * like any other float conversion. */
            if (!isfinite(v) || fabs(v) > FLT_MAX) {
                reader_error(rd, "%s:%ld:%ld (byte %ld): '%s' is not a finite float",
                             rd->name, line_no, col, byte, field);
                free(label);
                return TT_EINPUT;
            }
            if (n >= MATRIX_MAX_DIM) {
                reader_error(rd, "%s:%ld: more than %d values in a row", rd->name, line_no,
                             MATRIX_MAX_DIM);
                free(label);
                return TT_EINPUT;
            }
            int rc = reader_reserve(rd, base + (size_t)n + 1);
            if (rc != TT_OK) {
                free(label);
                return rc;
            }
            rd->data[base + (size_t)n] = (float)v;
            n++;
        }
    next:
        p++;
        while (p < end && is_blank(*p))
            p++;
    }
    if (n == 0) {
        reader_error(rd, "%s:%ld: a label but no values", rd->name, line_no);
        free(label);
        return TT_EINPUT;
    }
    if (rd->cols == 0) {
        rd->cols = n;
    } else if (n != rd->cols) {
        reader_error(rd, "%s:%ld: %d values, but the rows above have %d", rd->name, line_no,
                     n, rd->cols);
        free(label);
        return TT_EINPUT;
    }
    if (!label) {
        label = matrix_default_label(rd->rows);
        if (!label)
            return TT_ENOMEM;
    }
    int rc = reader_add_label(rd, label);
    if (rc != TT_OK)
        return rc;
    rd->rows++;
    return TT_OK;
}

int matrix_read_text(Matrix *m, FILE *f, const char *name, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!m)
        return TT_EINVAL;
    memset(m, 0, sizeof *m);
    if (!f)
        return TT_EINVAL;
    Reader rd = {.err = err, .errlen = errlen, .name = name ? name : "input"};
    LineIn in;
    linein_init(&in, f, MATRIX_MAX_LINE, NULL);
    long line_no = 0, offset = 0;
    int rc = TT_OK, lr;
    while ((lr = linein_read(&in)) == TT_OK) {
        char *line = in.line;
        ssize_t len = (ssize_t)in.len;
        line_no = in.line_no;
        if (line_no == 1) { /* a byte-order mark: skipped, and counted in offsets */
            const size_t kept = tokenizer_strip_bom(line, (size_t)len);
            offset += len - (ssize_t)kept;
            len = (ssize_t)kept;
        }
        if (memchr(line, '\0', (size_t)len)) {
            long at = offset + (long)((char *)memchr(line, '\0', (size_t)len) - line);
            reader_error(&rd, "%s:%ld (byte %ld): NUL byte in a text matrix", rd.name, line_no,
                         at);
            rc = TT_EINPUT;
            goto done;
        }
        rc = reader_parse_line(&rd, line, (size_t)len, line_no, offset);
        if (rc != TT_OK)
            goto done;
        offset += (long)len;
    }
    if (lr == LINEIN_LONG) {
        reader_error(&rd, "%s:%ld (byte %ld): more than the %ld bytes a line may have",
                     rd.name, in.line_no, offset, (long)MATRIX_MAX_LINE);
        rc = TT_EINPUT;
        goto done;
    }
    if (lr != LINEIN_END) {
        reader_error(&rd, "%s: read error after line %ld: %s", rd.name, line_no,
                     lr == TT_EIO && errno ? strerror(errno) : status_message(lr));
        rc = lr;
        goto done;
    }
    if (rd.rows == 0) {
        reader_error(&rd, "%s: no rows (the file holds no numbers)", rd.name);
        rc = TT_EINPUT;
        goto done;
    }
    /* Hand the buffers over to m. */
    m->rows = rd.rows;
    m->cols = rd.cols;
    m->data = rd.data;
    m->labels = rd.labels;
    rd.data = NULL;
    rd.labels = NULL;
    rd.rows = 0;
done:
    if (rc == TT_ENOMEM)
        reader_error(&rd, "%s: out of memory", rd.name);
    for (int r = 0; r < rd.rows; r++)
        free(rd.labels[r]);
    free(rd.labels);
    free(rd.data);
    linein_free(&in);
    return rc;
}
