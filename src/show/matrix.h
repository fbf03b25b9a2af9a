/*
 * matrix.h — a small owned matrix, and reading one from text.
 *
 * The text format (for `toytrans trace --input FILE`):
 *   - one row per line; values separated by spaces or tabs; every row the same width;
 *   - a row may begin with a label (a word that starts with a letter or '_', such as the
 *     token the row embeds); rows without one are called x1, x2, …;
 *   - blank lines and lines whose first non-blank character is '#' are skipped;
 *   - values are decimal or scientific floats that fit a float and are finite.
 * Errors name the file, the line, the column and the byte offset of the offending field.
 */
#ifndef TOYTRANS_MATRIX_H
#define TOYTRANS_MATRIX_H

#include <stddef.h>
#include <stdio.h>

#define MATRIX_MAX_DIM 4096 /* rows and columns a text matrix may have */
#define MATRIX_MAX_LINE (1L << 20) /* bytes a line of a text matrix may have: read no further */

typedef struct {
    int rows;      /* >= 1 once filled */
    int cols;      /* >= 1 once filled */
    float *data;   /* (rows, cols), owned */
    char **labels; /* rows strings, owned, each NUL-terminated UTF-8; never NULL entries */
} Matrix;

/* Copies rows × cols values and, if labels is not NULL, rows labels into m (labels NULL
 * gives x1, x2, …). Returns TT_OK, TT_EINVAL or TT_ENOMEM; on failure m owns nothing.
 * Free with matrix_free, safe on a zeroed or freed m. */
int matrix_init(Matrix *m, const float *data, int rows, int cols, const char *const *labels);
void matrix_free(Matrix *m);

/* Reads the text format above from f; name is what error messages call the source.
 * On failure returns TT_EINPUT (malformed text), TT_EIO (read error) or TT_ENOMEM, fills
 * err (if not NULL, always NUL-terminated) with a message such as
 *   "in.txt:3:9 (byte 41): 'x.5' is not a number"
 * and leaves m owning nothing. */
int matrix_read_text(Matrix *m, FILE *f, const char *name, char *err, size_t errlen);

#endif
