/*
 * chrf.h — corpus chrF, computed as sacreBLEU 2.x does (its CHRF metric).
 *
 * The default is sacreBLEU's: chrF2, character n-grams of orders 1 to 6, β = 2, no
 * word n-grams, mixed case, whitespace left out, "effective order" averaging
 * (eps_smoothing off). Its line, as the sacreBLEU command line prints it, is
 *
 *     chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:toytrans-0.1.0 = 61.58
 *
 * with the implementation's name and version where sacreBLEU writes its version number.
 *
 * The computation (sacreBLEU metrics/chrf.py and helpers.py):
 *   1. every whitespace character (Python's str.split() whitespace, bleu.h) is removed;
 *   2. for each order n = 1..6 the character n-grams (code points) of the hypothesis and
 *      of a reference are counted; per order three numbers are kept: the hypothesis
 *      n-grams (0 when the reference has none of that order), the reference n-grams, and
 *      the matches (each n-gram's count clipped to the other side's count);
 *   3. with several references, the sentence keeps the statistics of the reference
 *      whose sentence-level score (below) is highest (the first on ties); references
 *      that are exactly empty are dropped, as for BLEU;
 *   4. the statistics are summed over the corpus, and the score is, with P_n and R_n the
 *      precision and recall of order n and f = β²:
 *        - effective order (default): averages of P_n and R_n over the orders where both
 *          sides have n-grams; score = 100 · (1 + f)·P·R / (f·P + R), 0 when P + R = 0;
 *        - eps_smoothing: the mean over all 6 orders of (1 + f)·P_n·R_n / (f·P_n + R_n),
 *          with P_n or R_n = 1e-16 when the order has no n-grams on that side, and
 *          1e-16 for an order whose denominator is 0; times 100.
 */
#ifndef TOYTRANS_CHRF_H
#define TOYTRANS_CHRF_H

#include <stddef.h>
#include <stdint.h>

#define CHRF_CHAR_ORDER 6
#define CHRF_BETA 2
#define CHRF_LINE_SIZE 256 /* enough for any chrf_format line and its NUL */

/* The sufficient statistics of order n at [n-1]: sentence statistics add up. */
typedef struct {
    int64_t hyp[CHRF_CHAR_ORDER];   /* hypothesis n-grams, >= match */
    int64_t ref[CHRF_CHAR_ORDER];   /* reference n-grams, >= match */
    int64_t match[CHRF_CHAR_ORDER]; /* clipped matches, >= 0 */
} ChrfStats;

/* One n-gram as a sortable key (defined in chrf.c). */
typedef struct ChrfKey ChrfKey;

/* A corpus being scored. */
typedef struct {
    int beta;            /* β >= 1; CHRF_BETA by default */
    int eps_smoothing;   /* nonzero: the eps_smoothing average (see above) */
    ChrfStats stats;     /* the sum over the sentences added */
    int64_t sentences;   /* sentences added */
    int refs_min;        /* fewest non-empty references a sentence had (0 before any) */
    int refs_max;        /* most non-empty references a sentence had */
    int32_t *cps[2];     /* scratch: the hypothesis's and a reference's code points; owned */
    size_t cps_cap[2];
    ChrfKey *keys[2];    /* scratch: their n-grams of one order; owned */
    size_t keys_cap[2];
} Chrf;

/* Starts an empty corpus with sacreBLEU's defaults (β = 2, effective order). Free with
 * chrf_free, which accepts a zeroed or freed Chrf. */
void chrf_init(Chrf *c);
void chrf_free(Chrf *c);

/* Adds one sentence: the hypothesis and its n_refs references (NUL-terminated UTF-8).
 * Returns TT_OK; TT_EINVAL (n_refs < 1, a NULL string); TT_EINPUT (invalid UTF-8, or every
 * reference empty); TT_ENOMEM. On failure the statistics are unchanged. */
int chrf_add(Chrf *c, const char *hyp, const char *const *refs, int n_refs);

/* The score, 0..100, of statistics s with c's β and averaging. */
double chrf_compute(const Chrf *c, const ChrfStats *s);

/* sacreBLEU's signature of c's settings into buf (size bytes):
 * "nrefs:N|case:mixed|eff:yes|nc:6|nw:0|space:no|version:VERSION", N being "var" when the
 * sentences had different numbers of non-empty references, eff "no" with eps_smoothing.
 * Returns the length as snprintf does. */
int chrf_signature(char *buf, size_t size, const Chrf *c, const char *version);

/* "chrF2 = 61.58", or with a signature sig (not NULL) "chrF2|SIG = 61.58", as sacreBLEU
 * prints it; the score of c's statistics. Returns the length as snprintf does. */
int chrf_format(char *buf, size_t size, const Chrf *c, const char *sig);

#endif
