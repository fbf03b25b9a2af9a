/*
 * check.h — regression checks on fixed sentences.
 *
 * A check file holds one case per line: source TAB expected translation [TAB prefix].
 * Blank lines and lines starting with '#' are skipped. Every case is translated (greedy,
 * with the prefix forced when given) and must give exactly the expected translation. With
 * a golden file — JSON Lines as `translate --json` writes them, one per case in order —
 * every step's log-probability and attention weights must also agree within a tolerance,
 * so a change that moves numbers but not words is caught.
 */
#ifndef TOYTRANS_CHECK_H
#define TOYTRANS_CHECK_H

#include "base/pool.h"
#include "model/model.h"

#include <stdio.h>

#define CHECK_DEFAULT_TOLERANCE 1e-4

typedef struct {
    long passed;    /* cases that gave the expected words (and numbers) */
    long failed;    /* cases that did not, malformed lines included */
    long malformed; /* lines that are not "source TAB expected [TAB prefix]" */
} CheckSummary;

/* Runs the cases of path against m, printing a PASS or FAIL line for each (and for a
 * failure: expected, got, the first differing word or the number that moved) to out.
 * golden: NULL, or the golden file to compare with (update == 0) or to rewrite from this
 * run (update != 0, atomically). Returns TT_OK when the run completed (whatever it found:
 * see *sum), or TT_EIO / TT_ENOMEM / TT_EINPUT (a golden file that does not match the
 * cases) with err saying why. batch > 1 decodes the cases without a prefix ahead, batch
 * at a time, on pool's threads (NULL: the calling thread), which changes no result (a
 * case with a prefix has a translator of its own). */
int check_run(const Model *m, const char *path, const char *golden, int update, double tol,
              int batch, Pool *pool, FILE *out, CheckSummary *sum, char *err, size_t errlen);

#endif
