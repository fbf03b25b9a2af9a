/*
 * suggest.h — "did you mean": the candidates nearest to a misspelled word.
 *
 * As git does for a mistyped command (help.c), a word is compared with every candidate
 * by edit distance, and the nearest are offered when they are near enough to be a typo
 * rather than another word. The distance here is the optimal string alignment distance
 * over bytes: insertions, deletions, substitutions and swaps of two neighbouring bytes,
 * each costing 1 ("tranlsate" is 1 from "translate", "--beem" 1 from "--beam"). A
 * candidate is near enough when its distance is at most SUGGEST_MAX_DISTANCE and less
 * than half the word's length, so a short word does not match everything.
 */
#ifndef TOYTRANS_SUGGEST_H
#define TOYTRANS_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX_DISTANCE 2 /* the largest distance offered as a suggestion */
#define SUGGEST_MAX_LEN 64     /* words or candidates longer than this are never near */

/* The optimal string alignment distance between NUL-terminated a and b (bytes), or
 * SUGGEST_MAX_LEN + 1 when either is longer than SUGGEST_MAX_LEN. */
int suggest_distance(const char *a, const char *b);

/* The candidates cands[0..n) nearest to word, when near enough (see above): their
 * indices, in the order given, into out (at most cap). Returns how many were written,
 * 0 when none is near enough. NULL candidates are skipped. */
int suggest_nearest(const char *word, const char *const *cands, int n, int *out, int cap);

#endif
