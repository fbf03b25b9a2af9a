/*
 * layout.h — buffers described by a table and allocated as one block.
 *
 * A struct that owns several buffers whose sizes follow from a few dimensions (the
 * network's activations, the decoder's cache) lists them as rows: the field that views
 * each, and how many floats or ints it holds. layout_alloc makes one zeroed block for all
 * of them, each buffer at a cache line's boundary, and points every field at its part;
 * one free() of the block releases them. Growing is making the block anew at the new
 * size from the same table, so a struct has one description of its buffers, not an
 * allocation, a check and a free per field.
 */
#ifndef TOYTRANS_LAYOUT_H
#define TOYTRANS_LAYOUT_H

#include <stddef.h>

/* Bytes between the starts of two buffers of a block at least: a cache line. */
#define LAYOUT_ALIGN 64

/* One buffer: exactly one of f and i is the field that views it. count 0: no buffer,
 * the field is set to NULL. */
typedef struct {
    float **f;
    int **i;
    size_t count; /* elements */
} LayoutRow;

/* Allocates one zeroed block for rows[0..n) and points each row's field at its part, at
 * a LAYOUT_ALIGN boundary (NULL for a count of 0); *mem receives the allocation, to be
 * released with free(). Zeroed by calloc, not memset: a large block comes as fresh zero
 * pages from the system, touched only where a pass writes. Returns TT_OK, TT_EINVAL when
 * the total does not fit a size_t (nothing allocated), or TT_ENOMEM; on failure *mem and
 * every field are NULL. */
int layout_alloc(void **mem, const LayoutRow *rows, int n);

#endif
