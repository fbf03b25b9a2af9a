/*
 * heatmap.h — attention weights as a terminal heatmap, and the choice of which weights
 * to show.
 *
 * The folder show/ shows: aligned tables, these heatmaps, inspect's SVG and HTML, the
 * loss curves, and the teaching side of `trace` (the self-attention variants, matrices
 * read from text, a head of the real model traced). It stands on train/, translate/,
 * nn/, model/, text/ and base/. docs/design.md lists the folders and their modules.
 *
 *                 this  is   an   example  </s>
 *     Das         ████                          this 0.93, is 0.03, </s> 0.02
 *     Beispiel                    ████          example 0.81, an 0.07, </s> 0.05
 *
 * One row per query (a decoded word), one column per key (a source token). Each cell is
 * filled with one of five Unicode shade blocks chosen by the weight (heatmap_shade), and,
 * when colour is asked for, an ANSI 256-colour grey background that follows the weight
 * more finely. Column and row labels are measured in terminal columns (matprint's
 * utf8proc widths) and cut with "…" when longer than HEATMAP_LABEL_MAX.
 *
 * The module never computes attention: it draws and ranks the numbers it is given, so
 * what it shows is exactly what the forward pass used.
 */
#ifndef TOYTRANS_HEATMAP_H
#define TOYTRANS_HEATMAP_H

#include "translate/decode.h"

#include <stdio.h>

#define HEATMAP_LABEL_MAX 10 /* terminal columns a column or row label may take */
#define HEATMAP_CELL_MIN 3   /* the narrowest column, so a shade reads as a block */
#define HEATMAP_TOP_MAX 8    /* the most top entries a row may list */

/* The shade level of weight w: 0 ' ' below 0.2, 1 '░' below 0.4, 2 '▒' below 0.6,
 * 3 '▓' below 0.8, 4 '█' from 0.8 (NaN and negative weights are 0, above 1 is 4). */
int heatmap_shade(float w);

/* The shade character for weight w (a static UTF-8 string). */
const char *heatmap_shade_char(float w);

/* The ANSI 256-colour index for weight w on the grey ramp: weight 0 looks like the
 * terminal's background and weight 1 like its text, so the ramp reads the same way on
 * both: on a dark background (light 0) 232 (w <= 0) .. 255 (w >= 1), on a light one
 * (light nonzero) 255 .. 232. */
int heatmap_color(float w, int light);

/* Whether $COLORFGBG (as rxvt, Konsole and others set it: "fg;bg" or "fg;default;bg")
 * says the background is light: its last field is 7 or 9..15. NULL or anything else
 * is a dark background, the common default. */
int heatmap_background_light(const char *colorfgbg);

/* Writes the indices of the k largest of row[0..n) into idx (k entries), largest
 * first, ties to the lower index; returns min(k, n). */
int heatmap_top(const float *row, int n, int k, int *idx);

typedef struct {
    const char *const *row_labels; /* (rows) or NULL to number rows from 1 */
    const char *const *col_labels; /* (cols) required: the key tokens */
    int causal;      /* nonzero: row r has only r + 1 columns, the rest is left blank */
    int color;       /* nonzero: ANSI background colours as well as shade blocks */
    int light;       /* with color: the terminal's background is light (heatmap_color) */
    int top_k;       /* 0..HEATMAP_TOP_MAX: after each row, the top_k keys and weights */
    const char *indent; /* printed before every line, or NULL */
    int width;       /* terminal columns a line may take, 0: no limit (below) */
} HeatmapOptions;

/* The width in terminal columns of column c's cells: its label's width, capped at
 * HEATMAP_LABEL_MAX, and at least HEATMAP_CELL_MIN. */
int heatmap_column_width(const char *label);

/* Prints the heatmap of w (rows, cols), row r at w + r*stride, to out: a header line of
 * column labels, then one line per row, each with its top_k list after it. When that is
 * wider than o->width (nonzero), the columns are split into blocks that fit, each headed
 * "columns A-B of N:" with the row labels repeated, and the top lists follow under
 * "most attended:", a line per row. Returns TT_OK, TT_EINVAL (bad dimensions, stride
 * < cols, no column labels, top_k out of range, a negative width) or TT_EIO (out
 * reported an error). */
int heatmap_print(FILE *out, const float *w, int rows, int cols, int stride,
                  const HeatmapOptions *o);

/* Prints a line, after indent (or NULL), that says which weights each shade stands for,
 * as heatmap_shade chooses them; broken into lines of at most width columns (0: one
 * line). */
void heatmap_print_legend(FILE *out, const char *indent, int width);

/* Copies into out the weights step `step` used in decoder layer `layer`, head `head`
 * (0..H-1), or the heads' mean (TRANSLATION_HEAD_MEAN, averaged in double): t->S values for
 * TRANSLATION_CROSS, step + 1 for TRANSLATION_SELF. */
void heatmap_select(float *out, const Translation *t, TranslationAttention kind, int step,
                    int layer, int head);

#endif
