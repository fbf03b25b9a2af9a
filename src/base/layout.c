/*
 * layout.c — buffers described by a table and allocated as one block (layout.h).
 */
#include "base/layout.h"

#include "base/status.h"

#include <stdint.h>
#include <stdlib.h>

/* The bytes of a row, rounded up to LAYOUT_ALIGN; 0 on overflow of a nonzero count. */
static size_t row_bytes(const LayoutRow *r)
{
    const size_t size = r->f ? sizeof(float) : sizeof(int);
    if (r->count > (SIZE_MAX - LAYOUT_ALIGN) / size)
        return 0;
    return (r->count * size + LAYOUT_ALIGN - 1) / LAYOUT_ALIGN * LAYOUT_ALIGN;
}

static void set_slot(const LayoutRow *r, char *at)
{
    if (r->f)
        *r->f = (float *)(void *)at;
    else
        *r->i = (int *)(void *)at;
}

int layout_alloc(void **mem, const LayoutRow *rows, int n)
{
    *mem = NULL;
    size_t total = 0;
    int rc = TT_OK;
    for (int k = 0; k < n; k++) {
        set_slot(&rows[k], NULL);
        const size_t bytes = row_bytes(&rows[k]);
        if ((rows[k].count && !bytes) || bytes > SIZE_MAX - LAYOUT_ALIGN - total)
            rc = TT_EINVAL;
        else
            total += bytes;
    }
    if (rc != TT_OK)
        return rc;
    /* calloc aligns to a fundamental type at least: the gap to the first line is less
     * than LAYOUT_ALIGN. */
    char *block = calloc(1, total + LAYOUT_ALIGN);
    if (!block)
        return TT_ENOMEM;
    const size_t past = (size_t)((uintptr_t)block % LAYOUT_ALIGN);
    char *at = block + (past ? LAYOUT_ALIGN - past : 0);
    for (int k = 0; k < n; k++) {
        if (rows[k].count)
            set_slot(&rows[k], at);
        at += row_bytes(&rows[k]);
    }
    *mem = block;
    return TT_OK;
}
