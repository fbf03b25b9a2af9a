/*
 * scores.h — the corpus scores toytrans reports for a set of translations: BLEU (bleu.h)
 * and chrF2 (chrf.h), both as sacreBLEU 2.x computes them with its defaults, and how
 * they are printed.
 *
 * Text: the lines sacreBLEU's command line prints with `-f text`, the signature after
 * the metric's name, with "toytrans-VERSION" where sacreBLEU writes its version:
 *
 *     BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:toytrans-0.1.0 = 45.07 70.6/42.9/36.4/37.5 (BP = 1.000 ratio = 1.000 hyp_len = 17 ref_len = 17)
 *     chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:toytrans-0.1.0 = 61.58
 *
 * JSON: sacreBLEU's JSON keys per metric, "name", "score", "signature" and (BLEU)
 * "verbose_score", under the keys "bleu" and "chrf" of the caller's object.
 */
#ifndef TOYTRANS_SCORES_H
#define TOYTRANS_SCORES_H

#include "base/json.h"
#include "eval/bleu.h"
#include "eval/chrf.h"

#include <stdio.h>

typedef struct {
    Bleu bleu;
    Chrf chrf;
} Scores;

/* Starts an empty corpus; free with scores_free (a zeroed or freed Scores is fine). */
void scores_init(Scores *s);
void scores_free(Scores *s);

/* Adds one sentence to both scores: what bleu_add and chrf_add return (on failure
 * neither score has it). */
int scores_add(Scores *s, const char *hyp, const char *const *refs, int n_refs);

/* Writes the BLEU and chrF lines, each ending in '\n'; version names the implementation
 * ("toytrans-0.1.0"). */
void scores_write_text(FILE *out, const Scores *s, const char *version);

/* Writes the keys "bleu" and "chrf" and their objects into w's open object. */
void scores_write_json(JsonWriter *w, const Scores *s, const char *version);

#endif
