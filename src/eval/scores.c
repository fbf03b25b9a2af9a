/*
 * scores.c — BLEU and chrF side by side: one call adds a sentence to both, and the
 * printing follows sacreBLEU's command line.
 */
#include "eval/scores.h"

#include "base/status.h"

#include <stdio.h>
#include <string.h>

void scores_init(Scores *s)
{
    bleu_init(&s->bleu);
    chrf_init(&s->chrf);
}

void scores_free(Scores *s)
{
    if (!s)
        return;
    chrf_free(&s->chrf);
    bleu_free(&s->bleu);
}

int scores_add(Scores *s, const char *hyp, const char *const *refs, int n_refs)
{
    /* Both or neither: BLEU's totals are put back when chrF refuses the sentence. */
    const Bleu before = s->bleu;
    int rc = bleu_add(&s->bleu, hyp, refs, n_refs);
    if (rc != TT_OK)
        return rc;
    rc = chrf_add(&s->chrf, hyp, refs, n_refs);
    if (rc != TT_OK) {
        s->bleu.stats = before.stats;
        s->bleu.sentences = before.sentences;
        s->bleu.refs_min = before.refs_min;
        s->bleu.refs_max = before.refs_max;
    }
    return rc;
}

void scores_write_text(FILE *out, const Scores *s, const char *version)
{
    char sig[CHRF_LINE_SIZE], line[BLEU_LINE_SIZE + CHRF_LINE_SIZE];
    BleuScore b;
    bleu_compute(&b, &s->bleu.stats);
    bleu_signature(sig, sizeof sig, &s->bleu, version);
    bleu_format_signed(line, sizeof line, &b, sig);
    fprintf(out, "%s\n", line);
    chrf_signature(sig, sizeof sig, &s->chrf, version);
    chrf_format(line, sizeof line, &s->chrf, sig);
    fprintf(out, "%s\n", line);
}

void scores_write_json(JsonWriter *w, const Scores *s, const char *version)
{
    char sig[CHRF_LINE_SIZE], line[BLEU_LINE_SIZE];
    BleuScore b;
    bleu_compute(&b, &s->bleu.stats);
    bleu_signature(sig, sizeof sig, &s->bleu, version);
    bleu_format(line, sizeof line, &b);
    json_key(w, "bleu");
    json_begin_object(w);
    json_key(w, "name");
    json_string(w, "BLEU");
    json_key(w, "score");
    json_float(w, b.score);
    json_key(w, "signature");
    json_string(w, sig);
    json_key(w, "verbose_score");
    /* bleu_format's line after "BLEU = 45.07 ": the precisions and the lengths. */
    const char *rest = strchr(line + strlen("BLEU = "), ' ');
    json_string(w, rest ? rest + 1 : "");
    json_end_object(w);

    chrf_signature(sig, sizeof sig, &s->chrf, version);
    json_key(w, "chrf");
    json_begin_object(w);
    json_key(w, "name");
    snprintf(line, sizeof line, "chrF%d", s->chrf.beta);
    json_string(w, line);
    json_key(w, "score");
    json_float(w, chrf_compute(&s->chrf, &s->chrf.stats));
    json_key(w, "signature");
    json_string(w, sig);
    json_end_object(w);
}
