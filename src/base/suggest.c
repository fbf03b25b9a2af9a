/*
 * suggest.c — edit distances for "did you mean" messages.
 *
 * The words are command and option names, a few dozen bytes at most, so the full
 * dynamic-programming table fits on the stack.
 */
#include "base/suggest.h"

#include <string.h>

int suggest_distance(const char *a, const char *b)
{
    const size_t la = strlen(a), lb = strlen(b);
    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return SUGGEST_MAX_LEN + 1;
    /* d[i][j]: the distance between the first i bytes of a and the first j of b. */
    int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            const int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j] + 1;              /* deletion */
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;              /* insertion */
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;       /* substitution */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;          /* two neighbours swapped */
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

int suggest_nearest(const char *word, const char *const *cands, int n, int *out, int cap)
{
    const int len = (int)strlen(word);
    int best = SUGGEST_MAX_DISTANCE + 1, count = 0;
    for (int k = 0; k < n; k++) {
        if (!cands[k])
            continue;
        const int dist = suggest_distance(word, cands[k]);
        if (dist > SUGGEST_MAX_DISTANCE || 2 * dist >= len || dist > best)
            continue;
        if (dist < best) {
            best = dist;
            count = 0;
        }
        if (count < cap)
            out[count++] = k;
    }
    return count;
}
