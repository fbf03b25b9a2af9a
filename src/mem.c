/*
 * mem.c — the shared allocation helpers (mem.h).
 */
#include "mem.h"

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
