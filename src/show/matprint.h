/*
 * matprint.h — printing a named matrix as an aligned, labelled table.
 *
 *   weights [6 × 6]
 *              Your  journey   starts     with      one     step
 *     Your   0.1921   0.2019   0.1975   0.1582   0.1330   0.1173
 *
 * Column widths are set by the widest value; labels are measured in terminal columns
 * (utf8proc's character widths, so "Mädchen" is 7 columns wide) and cut with "…" when
 * longer than MATPRINT_LABEL_MAX.
 */
#ifndef TOYTRANS_MATPRINT_H
#define TOYTRANS_MATPRINT_H

#include <stdio.h>

#define MATPRINT_LABEL_MAX 12 /* terminal columns a row or column label may take */

typedef struct {
    int precision;                  /* digits after the decimal point, 0..9 */
    const char *const *row_labels;  /* rows labels, or NULL to number rows from 1 */
    const char *const *col_labels;  /* cols labels, or NULL to number columns from 1 */
    const char *indent;             /* printed before every line, or NULL */
} MatPrintOptions;

/* Prints "name [rows × cols]" and the table to out. m is (rows, cols) row-major.
 * Returns TT_OK, TT_EINVAL (bad dimensions or precision) or TT_EIO (out reported an
 * error). */
int matprint(FILE *out, const char *name, const float *m, int rows, int cols,
             const MatPrintOptions *opts);

/* The number of terminal columns the UTF-8 string s takes (invalid bytes count 1). */
int matprint_text_width(const char *s);

/* Prints s padded with spaces to width columns, right-aligned if right, cut with "…" when
 * wider than width. */
void matprint_cell(FILE *out, const char *s, int width, int right);

#endif
