/*
 * heatmap.c — terminal heatmaps of attention weights (see heatmap.h).
 *
 * Widths come from matprint, which measures UTF-8 in terminal columns; the shade blocks
 * ('░' and friends) are one column each, so a cell of width w is w blocks.
 */
#include "heatmap.h"

#include "matprint.h"
#include "status.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

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

int heatmap_color(float w)
{
    if (!(w > 0.0f))
        return 232;
    if (w >= 1.0f)
        return 255;
    return 232 + (int)lroundf(w * 23.0f);
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

/* One cell: width shade blocks for weight v, on a grey background if color. */
static void heatmap_cell(FILE *out, float v, int width, int color)
{
    const char *s = heatmap_shade_char(v);
    if (color)
        fprintf(out, "\x1b[48;5;%dm", heatmap_color(v));
    for (int i = 0; i < width; i++)
        fputs(s, out);
    if (color)
        fputs("\x1b[0m", out);
}

int heatmap_print(FILE *out, const float *w, int rows, int cols, int stride,
                  const HeatmapOptions *o)
{
    if (rows < 0 || cols < 1 || stride < cols || !o || !o->col_labels || o->top_k < 0 ||
        o->top_k > HEATMAP_TOP_MAX)
        return TT_EINVAL;
    const char *indent = o->indent ? o->indent : "";
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

    fprintf(out, "%s%*s", indent, label_w, "");
    for (int c = 0; c < cols; c++) {
        fputc(' ', out);
        matprint_cell(out, o->col_labels[c], heatmap_column_width(o->col_labels[c]), 0);
    }
    fputc('\n', out);

    for (int r = 0; r < rows; r++) {
        const float *row = w + (size_t)r * stride;
        const int n = o->causal ? (r + 1 < cols ? r + 1 : cols) : cols;
        fputs(indent, out);
        if (o->row_labels) {
            matprint_cell(out, o->row_labels[r], label_w, 0);
        } else {
            snprintf(num, sizeof num, "%d", r + 1);
            matprint_cell(out, num, label_w, 1);
        }
        for (int c = 0; c < cols; c++) {
            const int cw = heatmap_column_width(o->col_labels[c]);
            fputc(' ', out);
            if (c < n)
                heatmap_cell(out, row[c], cw, o->color);
            else
                fprintf(out, "%*s", cw, "");
        }
        if (o->top_k > 0) {
            int idx[HEATMAP_TOP_MAX];
            const int k = heatmap_top(row, n, o->top_k, idx);
            fputs("  ", out);
            for (int i = 0; i < k; i++)
                fprintf(out, "%s%s %.2f", i ? ", " : "", o->col_labels[idx[i]],
                        (double)row[idx[i]]);
        }
        fputc('\n', out);
    }
    return ferror(out) ? TT_EIO : TT_OK;
}

float heatmap_weight(const Translation *t, HeatmapKind kind, int step, int j, int layer,
                     int head)
{
    assert(step >= 0 && step < t->n && layer >= 0 && layer < t->L);
    assert(head == HEATMAP_HEAD_MEAN || (head >= 0 && head < t->H));
    assert(j >= 0 && j < (kind == HEATMAP_CROSS ? t->S : step + 1));
    const float *(*row)(const Translation *, int, int, int) =
        kind == HEATMAP_CROSS ? translation_cross : translation_self;
    if (head != HEATMAP_HEAD_MEAN)
        return row(t, step, layer, head)[j];
    double s = 0.0;
    for (int h = 0; h < t->H; h++)
        s += row(t, step, layer, h)[j];
    return (float)(s / t->H);
}

void heatmap_select(float *out, const Translation *t, HeatmapKind kind, int step, int layer,
                    int head)
{
    const int width = kind == HEATMAP_CROSS ? t->S : step + 1;
    for (int j = 0; j < width; j++)
        out[j] = heatmap_weight(t, kind, step, j, layer, head);
}
