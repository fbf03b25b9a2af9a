/*
 * matprint.c — aligned tables for `toytrans trace`.
 *
 * Alignment must count what a terminal shows, not bytes: UTF-8 labels are walked with
 * utf8proc_iterate and measured with utf8proc_charwidth.
 */
#include "show/matprint.h"

#include "base/status.h"

#include <math.h>
#include <string.h>
#include <utf8proc.h>

/* Decodes the code point at s (n bytes left) into *cp; returns its length in bytes,
 * 1 with *cp = -1 for an invalid sequence. */
static int matprint_next(const char *s, size_t n, utf8proc_int32_t *cp)
{
    utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, cp);
    if (len < 1) {
        *cp = -1;
        return 1;
    }
    return (int)len;
}

int matprint_text_width(const char *s)
{
    int w = 0;
    size_t n = strlen(s);
    while (n > 0) {
        utf8proc_int32_t cp;
        int len = matprint_next(s, n, &cp);
        w += cp < 0 ? 1 : utf8proc_charwidth(cp);
        s += len;
        n -= (size_t)len;
    }
    return w;
}

void matprint_cell(FILE *out, const char *s, int width, int right)
{
    int w = matprint_text_width(s);
    if (w <= width) {
        if (right)
            fprintf(out, "%*s%s", width - w, "", s);
        else
            fprintf(out, "%s%*s", s, width - w, "");
        return;
    }
    /* Too wide: keep whole characters up to width - 1 columns, then "…". */
    int used = 0;
    size_t n = strlen(s);
    const char *p = s;
    while (n > 0) {
        utf8proc_int32_t cp;
        int len = matprint_next(p, n, &cp);
        int cw = cp < 0 ? 1 : utf8proc_charwidth(cp);
        if (used + cw > width - 1)
            break;
        fwrite(p, 1, (size_t)len, out);
        used += cw;
        p += len;
        n -= (size_t)len;
    }
    fputs("…", out);
    used += 1;
    if (used < width)
        fprintf(out, "%*s", width - used, "");
}

/* Formats v with prec decimals into buf. A value that rounds to zero prints without a
 * sign: "-0.0000" reads as a sign error to a learner. Returns the length. */
static int matprint_format(char *buf, size_t size, float v, int prec)
{
    int len = snprintf(buf, size, "%.*f", prec, (double)v);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == (size_t)(len - 1)) {
        memmove(buf, buf + 1, (size_t)len);
        len--;
    }
    return len;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int matprint(FILE *out, const char *name, const float *m, int rows, int cols,
             const MatPrintOptions *opts)
{
    if (!out || !m || rows < 1 || cols < 1)
        return TT_EINVAL;
    const int prec = opts ? opts->precision : 4;
    if (prec < 0 || prec > 9)
        return TT_EINVAL;
    const char *indent = opts && opts->indent ? opts->indent : "";
    const char *const *rl = opts ? opts->row_labels : NULL;
    const char *const *cl = opts ? opts->col_labels : NULL;

    /* Widths: the widest formatted value, the widest (capped) column label. */
    char buf[64];
    int cell = 1;
    for (size_t i = 0; i < (size_t)rows * cols; i++) {
        int len = matprint_format(buf, sizeof buf, m[i], prec);
        if (len > cell)
            cell = len;
    }
    for (int c = 0; c < cols; c++) {
        int w;
        if (cl)
            w = min_int(matprint_text_width(cl[c]), MATPRINT_LABEL_MAX);
        else
            w = snprintf(buf, sizeof buf, "%d", c + 1);
        if (w > cell)
            cell = w;
    }
    int label = 1;
    for (int r = 0; r < rows; r++) {
        int w;
        if (rl)
            w = min_int(matprint_text_width(rl[r]), MATPRINT_LABEL_MAX);
        else
            w = snprintf(buf, sizeof buf, "%d", r + 1);
        if (w > label)
            label = w;
    }

    if (name)
        fprintf(out, "%s%s [%d × %d]\n", indent, name, rows, cols);
    fprintf(out, "%s  %*s", indent, label, "");
    for (int c = 0; c < cols; c++) {
        fputs("  ", out);
        if (cl) {
            matprint_cell(out, cl[c], cell, 1);
        } else {
            snprintf(buf, sizeof buf, "%d", c + 1);
            matprint_cell(out, buf, cell, 1);
        }
    }
    fputc('\n', out);
    for (int r = 0; r < rows; r++) {
        fprintf(out, "%s  ", indent);
        if (rl) {
            matprint_cell(out, rl[r], label, 0);
        } else {
            snprintf(buf, sizeof buf, "%d", r + 1);
            matprint_cell(out, buf, label, 0);
        }
        for (int c = 0; c < cols; c++) {
            matprint_format(buf, sizeof buf, m[(size_t)r * cols + c], prec);
            fprintf(out, "  %*s", cell, buf);
        }
        fputc('\n', out);
    }
    return ferror(out) ? TT_EIO : TT_OK;
}
