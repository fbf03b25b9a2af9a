/*
 * mem.c — the shared allocation helpers (mem.h).
 */
#include "base/mem.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *mem_dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void *mem_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    assert(elem > 0);
    if (p && need <= *cap)
        return p;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n = n <= SIZE_MAX / 2 ? n * 2 : need;
    if (n > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}
