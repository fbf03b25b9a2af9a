/*
 * heatmap.c — terminal heatmaps of attention weights (see heatmap.h).
 *
 * Widths come from matprint, which measures UTF-8 in terminal columns; the shade blocks
 * ('░' and friends) are one column each, so a cell of width w is w blocks.
 */
#include "show/heatmap.h"

#include "base/status.h"
#include "show/matprint.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const HEATMAP_SHADES[5] = {" ", "░", "▒", "▓", "█"};

int heatmap_shade(float w)
{
    if (!(w > 0.0f)) /* NaN too */
        return 0;
    if (w >= 1.0f)
        return 4;
    int s = (int)floorf(w * 5.0f);
    return s > 4 ? 4 : s;
}

const char *heatmap_shade_char(float w)
{
    return HEATMAP_SHADES[heatmap_shade(w)];
}

int heatmap_color(float w, int light)
{
    int step = 0; /* 0..23 along the ramp from the background's end */
    if (w >= 1.0f)
        step = 23;
    else if (w > 0.0f)
        step = (int)lroundf(w * 23.0f);
    return light ? 255 - step : 232 + step;
}

int heatmap_background_light(const char *colorfgbg)
{
    if (!colorfgbg)
        return 0;
    const char *last = strrchr(colorfgbg, ';');
    last = last ? last + 1 : colorfgbg;
    char *end;
    const long bg = strtol(last, &end, 10);
    if (end == last || *end != '\0')
        return 0;
    return bg == 7 || (bg >= 9 && bg <= 15);
}

int heatmap_top(const float *row, int n, int k, int *idx)
{
    if (k > n)
        k = n;
    if (k <= 0)
        return 0;
    /* Insertion into a short sorted list: k is tiny and n is a sentence. Strict '>' keeps
     * the lower index first among equal weights. */
    int m = 0;
    for (int j = 0; j < n; j++) {
        int pos = m;
        while (pos > 0 && row[j] > row[idx[pos - 1]])
            pos--;
        if (pos >= k)
            continue;
        for (int q = (m < k ? m : k - 1); q > pos; q--)
            idx[q] = idx[q - 1];
        idx[pos] = j;
        if (m < k)
            m++;
    }
    return m;
}

int heatmap_column_width(const char *label)
{
    int w = matprint_text_width(label);
    if (w > HEATMAP_LABEL_MAX)
        w = HEATMAP_LABEL_MAX;
    return w < HEATMAP_CELL_MIN ? HEATMAP_CELL_MIN : w;
}

/* One cell: width shade blocks for weight v, on a grey background if color (the ramp
 * for a light background if light). */
static void heatmap_cell(FILE *out, float v, int width, int color, int light)
{
    const char *s = heatmap_shade_char(v);
    if (color)
        fprintf(out, "\x1b[48;5;%dm", heatmap_color(v, light));
    for (int i = 0; i < width; i++)
        fputs(s, out);
    if (color)
        fputs("\x1b[0m", out);
}

/* The "word 0.50, word 0.25" list of row's top_k keys (n of them) into buf. */
static void heatmap_top_text(char *buf, size_t size, const float *row, int n,
                             const HeatmapOptions *o)
{
    int idx[HEATMAP_TOP_MAX];
    const int k = heatmap_top(row, n, o->top_k, idx);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s %.2f", i ? ", " : "",
                                 o->col_labels[idx[i]], (double)row[idx[i]]);
}

/* A row's label, padded to label_w columns (numbers from 1 when there are no labels). */
static void heatmap_row_label(FILE *out, const HeatmapOptions *o, int r, int label_w)
{
    if (o->row_labels) {
        matprint_cell(out, o->row_labels[r], label_w, 0);
    } else {
        char num[32];
        snprintf(num, sizeof num, "%d", r + 1);
        matprint_cell(out, num, label_w, 1);
    }
}

/* The header and the rows of columns c0..c1-1; with top, each row's top list after it. */
static void heatmap_block(FILE *out, const float *w, int rows, int cols, int c0, int c1,
                          int stride, const HeatmapOptions *o, int label_w, int top)
{
    const char *indent = o->indent ? o->indent : "";
    fprintf(out, "%s%*s", indent, label_w, "");
    for (int c = c0; c < c1; c++) {
        fputc(' ', out);
        matprint_cell(out, o->col_labels[c], heatmap_column_width(o->col_labels[c]), 0);
    }
    fputc('\n', out);
    char list[HEATMAP_TOP_MAX * (4 * HEATMAP_LABEL_MAX + 16)];
    for (int r = 0; r < rows; r++) {
        const float *row = w + (size_t)r * stride;
        const int n = o->causal ? (r + 1 < cols ? r + 1 : cols) : cols;
        fputs(indent, out);
        heatmap_row_label(out, o, r, label_w);
        for (int c = c0; c < c1; c++) {
            const int cw = heatmap_column_width(o->col_labels[c]);
            fputc(' ', out);
            if (c < n)
                heatmap_cell(out, row[c], cw, o->color, o->light);
            else
                fprintf(out, "%*s", cw, "");
        }
        if (top && o->top_k > 0) {
            heatmap_top_text(list, sizeof list, row, n, o);
            fprintf(out, "  %s", list);
        }
        fputc('\n', out);
    }
}

int heatmap_print(FILE *out, const float *w, int rows, int cols, int stride,
                  const HeatmapOptions *o)
{
    if (rows < 0 || cols < 1 || stride < cols || !o || !o->col_labels || o->top_k < 0 ||
        o->top_k > HEATMAP_TOP_MAX || o->width < 0)
        return TT_EINVAL;
    const char *indent = o->indent ? o->indent : "";
    const int indent_w = matprint_text_width(indent);
    char num[32];

    int label_w = 1;
    for (int r = 0; r < rows; r++) {
        int lw;
        if (o->row_labels)
            lw = matprint_text_width(o->row_labels[r]);
        else
            lw = snprintf(num, sizeof num, "%d", r + 1);
        if (lw > label_w)
            label_w = lw;
    }
    if (label_w > HEATMAP_LABEL_MAX)
        label_w = HEATMAP_LABEL_MAX;

    /* The widest line: cells, then the longest top list. */
    int cells_w = 0, top_w = 0;
    for (int c = 0; c < cols; c++)
        cells_w += 1 + heatmap_column_width(o->col_labels[c]);
    char list[HEATMAP_TOP_MAX * (4 * HEATMAP_LABEL_MAX + 16)];
    for (int r = 0; o->top_k > 0 && r < rows; r++) {
        const int n = o->causal ? (r + 1 < cols ? r + 1 : cols) : cols;
        heatmap_top_text(list, sizeof list, w + (size_t)r * stride, n, o);
        const int lw = 2 + matprint_text_width(list);
        if (lw > top_w)
            top_w = lw;
    }
    if (o->width == 0 || indent_w + label_w + cells_w + top_w <= o->width) {
        heatmap_block(out, w, rows, cols, 0, cols, stride, o, label_w, 1);
        return ferror(out) ? TT_EIO : TT_OK;
    }

    /* Too wide: blocks of as many columns as fit (at least one), the row labels repeated,
     * then the top lists on lines of their own. */
    for (int c0 = 0; c0 < cols;) {
        int c1 = c0, used = indent_w + label_w;
        while (c1 < cols &&
               (c1 == c0 || used + 1 + heatmap_column_width(o->col_labels[c1]) <= o->width))
            used += 1 + heatmap_column_width(o->col_labels[c1++]);
        fprintf(out, "%s%scolumns %d-%d of %d:\n", c0 ? "\n" : "", indent, c0 + 1, c1, cols);
        heatmap_block(out, w, rows, cols, c0, c1, stride, o, label_w, 0);
        c0 = c1;
    }
    if (o->top_k > 0) {
        fprintf(out, "\n%smost attended:\n", indent);
        for (int r = 0; r < rows; r++) {
            const int n = o->causal ? (r + 1 < cols ? r + 1 : cols) : cols;
            heatmap_top_text(list, sizeof list, w + (size_t)r * stride, n, o);
            fputs(indent, out);
            heatmap_row_label(out, o, r, label_w);
            fprintf(out, "  %s\n", list);
        }
    }
    return ferror(out) ? TT_EIO : TT_OK;
}

void heatmap_print_legend(FILE *out, const char *indent, int width)
{
    indent = indent ? indent : "";
    const char *items[] = {"shades:", "░ from 0.2,", "▒ from 0.4,", "▓ from 0.6,",
                           "█ from 0.8,", "blank below 0.2"};
    const int indent_w = matprint_text_width(indent);
    int col = indent_w;
    fputs(indent, out);
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++) {
        const int w = matprint_text_width(items[k]);
        if (k > 0 && width > 0 && col + 1 + w > width) {
            fprintf(out, "\n%s%*s", indent, 8, ""); /* under the first shade */
            col = indent_w + 8;
        } else if (k > 0) {
            fputc(' ', out);
            col++;
        }
        fputs(items[k], out);
        col += w;
    }
    fputc('\n', out);
}

void heatmap_select(float *out, const Translation *t, TranslationAttention kind, int step,
                    int layer, int head)
{
    const int width = kind == TRANSLATION_CROSS ? t->S : step + 1;
    for (int j = 0; j < width; j++)
        out[j] = translation_weight(t, kind, step, j, layer, head);
}
