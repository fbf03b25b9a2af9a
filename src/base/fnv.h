/*
 * fnv.h — FNV-1a, 64 bits: the one hash of toytrans's checksums and hash tables.
 *
 * The model file's content checksum (docs/model-format.md), the corpus checksum kept in
 * its provenance, the corpus generator's sentence cores and the vocabulary's hash table
 * all use it, so the constants are written once, here.
 */
#ifndef TOYTRANS_FNV_H
#define TOYTRANS_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_OFFSET UINT64_C(0xcbf29ce484222325) /* the hash of nothing */
#define FNV1A64_PRIME UINT64_C(0x100000001b3)

/* h extended by the n bytes at p. Eight bytes a round, in order: the same hash, with the
 * loop's own count, compare and branch once per eight bytes instead of once per byte (a
 * model file's checksum is 5.5 MB of them at every load). */
static inline uint64_t fnv1a64_add(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const unsigned char *r = b + i;
        h = (h ^ r[0]) * FNV1A64_PRIME;
        h = (h ^ r[1]) * FNV1A64_PRIME;
        h = (h ^ r[2]) * FNV1A64_PRIME;
        h = (h ^ r[3]) * FNV1A64_PRIME;
        h = (h ^ r[4]) * FNV1A64_PRIME;
        h = (h ^ r[5]) * FNV1A64_PRIME;
        h = (h ^ r[6]) * FNV1A64_PRIME;
        h = (h ^ r[7]) * FNV1A64_PRIME;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * FNV1A64_PRIME;
    return h;
}

#endif
