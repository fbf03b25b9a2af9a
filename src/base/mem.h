/*
 * mem.h — the allocation helpers several modules share: a string copy and an amortised
 * growing array.
 *
 * Both allocate through malloc and realloc themselves rather than through strdup or a
 * library's own allocator, so that the fault tests (tests/test_faults.c), which wrap
 * malloc, calloc and realloc at link time, can fail every allocation they make.
 */
#ifndef TOYTRANS_MEM_H
#define TOYTRANS_MEM_H

#include <stddef.h>

/* A copy of the NUL-terminated s, owned by the caller (free), or NULL when memory ran
 * out. */
char *mem_dup_str(const char *s);

/* p, an array with room for *cap elements of elem >= 1 bytes (NULL with *cap 0 before
 * the first call), grown to room for at least need elements: p itself when it has room,
 * else a block of twice the room until need fits (64 elements at first), with *cap
 * updated; doubling keeps n appends O(n). Returns NULL when memory ran out or the size
 * would overflow: p is then unchanged, still valid and still the caller's to free, like
 * realloc's argument. */
void *mem_grow(void *p, size_t *cap, size_t need, size_t elem);

#endif
