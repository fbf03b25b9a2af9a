/*
 * readback.h — checking a translation by reading it back through a model of the other
 * direction.
 *
 * A translation that dropped a "not" or put a known word where an unknown one stood
 * still looks fluent, and a forward model is most sure of itself exactly there. A
 * German→English model reads the German back; if the German says what the English said,
 * the English input is (nearly) the reverse model's own best reading of it. The check
 * compares *scores*, not strings, since German is ambiguous where English is not (ihr =
 * her/their, sie = she/they/them: "I see her books" → "Ich sehe ihre Bücher" reads back as
 * "I see their books", and that is no error):
 *
 *   best  = the summed log-probability of the reverse model's greedy reading of the
 *           German, </s> included;
 *   input = the summed log-probability of the English input, in the reverse model's
 *           target tokens (folded, contractions expanded: the same normalisation the
 *           forward model's source side uses, so "lisa reads…", "NOT" and ’ read alike),
 *           forced through the reverse model as a prefix, followed by its </s>;
 *   margin = best − input (≥ 0 up to search error: greedy may miss the best reading).
 *
 * The translation disagrees with its input when the margin exceeds the threshold,
 * READBACK_MARGIN nats by default (docs/honesty.md has the measurement that chose it).
 * It works for any pair of models whose languages are each other's reverse, whoever
 * trained them.
 */
#ifndef TOYTRANS_READBACK_H
#define TOYTRANS_READBACK_H

#include "base/pool.h"
#include "model/model.h"
#include "translate/translator.h"

#include <stddef.h>

/* The default threshold, in nats (docs/honesty.md, "Read-back"). */
#define READBACK_MARGIN 6.0
#define READBACK_MARGIN_TEXT "6.0" /* the same, for help texts */

/* A pair handed to readback_ahead_add, read back with the others of its block. */
typedef struct {
    char *source, *translation; /* copies, owned */
    size_t len, tlen;
    int *target;        /* (max_len) the input's ids, then </s>; owned */
    int n_target;       /* 0: the input cannot be scored (readback_run says why) */
    double input;       /* its score, or NAN: readback_run scores it alone */
} ReadBackAhead;

typedef struct {
    const Model *model; /* the reverse model; not owned, must outlive the ReadBack */
    double margin_max;  /* a margin above this disagrees, >= 0 */
    Translator tr;      /* the reverse model's greedy translator */
    int *ids;           /* (max_len) the forced prefix: the input's ids, then </s> */
    TokenList input;    /* the input in the reverse model's target tokens */
    int n_ahead_cap;    /* pairs a block holds: the translator's ahead capacity, or 0 */
    int n_ahead, next_ahead; /* pairs added, and the first readback_run has not taken */
    ReadBackAhead *ahead;    /* (n_ahead_cap) owned */
    const char **texts;      /* (n_ahead_cap) scratch: the translations, */
    size_t *lens;            /* their lengths, */
    const int **targets;     /* the targets, */
    int *n_targets;          /* their lengths */
    double *sums;            /* and scores */
} ReadBack;

/* What the read-back of one translation found: translator.h's TranslatorReadBack, the
 * record a TranslatorResult carries (done, why, text, best, input, margin, disagrees). */
typedef TranslatorReadBack ReadBackResult;

/* Whether reverse reads back what forward writes: reverse's source language is forward's
 * target language and the other way round. */
int readback_fits(const Model *forward, const Model *reverse);

/* Sets rb up to read back through reverse (which must stay alive and unchanged). Returns
 * TT_OK, TT_EINVAL (margin_max < 0 or not finite) or TT_ENOMEM, err saying what; on
 * failure rb owns nothing. readback_free accepts a zeroed or failed ReadBack. */
int readback_init(ReadBack *rb, const Model *reverse, double margin_max, char *err,
                  size_t errlen);
void readback_free(ReadBack *rb);

/* Lets a block of pairs be read back in batches of batch, shared among pool's threads (NULL:
 * the calling thread; not owned, must outlive rb's use), as translator_set_batch. Batch 1
 * without threads keeps one pair at a time. Returns TT_OK, TT_EINVAL or TT_ENOMEM. */
int readback_set_batch(ReadBack *rb, int batch, Pool *pool);

/* A block: readback_ahead_clear empties it; readback_ahead_add copies a pair (source, len
 * bytes; translation NUL-terminated) into it, up to the batch's capacity (TT_EINVAL when
 * full, TT_ENOMEM); readback_ahead_decode reads them all back at once (the reverse model's
 * readings, then the inputs' scores, in batches). The readback_run calls that follow, for
 * the same pairs in the same order (some may be left out), take each one's work; the
 * result is the same, bit for bit, as readback_run alone gives. */
void readback_ahead_clear(ReadBack *rb);
int readback_ahead_add(ReadBack *rb, const char *source, size_t len, const char *translation);
void readback_ahead_decode(ReadBack *rb);

/* Reads translation (NUL-terminated, the forward model's output) back and scores source
 * (len bytes, the forward model's input) against the reading. A pair that cannot be
 * checked — an empty translation or input, an input or reading too long for the reverse
 * model's max_len — gives out->done 0 and TT_OK. Returns TT_OK, TT_EMODEL (the reverse
 * model computes a NaN) or TT_ENOMEM, with err saying why; out is then zeroed. */
int readback_run(ReadBack *rb, const char *source, size_t len, const char *translation,
                 ReadBackResult *out, char *err, size_t errlen);

#endif
