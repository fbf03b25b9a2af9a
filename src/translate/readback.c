/*
 * readback.c — a translation read back through the reverse model (readback.h).
 */
#include "translate/readback.h"

#include "base/status.h"
#include "translate/decode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int readback_fits(const Model *forward, const Model *reverse)
{
    return strcmp(forward->config.src_lang, reverse->config.tgt_lang) == 0 &&
           strcmp(forward->config.tgt_lang, reverse->config.src_lang) == 0;
}

static void ahead_free(ReadBack *rb)
{
    readback_ahead_clear(rb);
    for (int i = 0; i < rb->n_ahead_cap; i++)
        free(rb->ahead[i].target);
    free(rb->ahead);
    free(rb->texts);
    free(rb->lens);
    free(rb->targets);
    free(rb->n_targets);
    free(rb->sums);
    rb->ahead = NULL;
    rb->texts = NULL;
    rb->lens = NULL;
    rb->targets = NULL;
    rb->n_targets = NULL;
    rb->sums = NULL;
    rb->n_ahead_cap = 0;
}

void readback_free(ReadBack *rb)
{
    ahead_free(rb);
    tokenlist_free(&rb->input);
    free(rb->ids);
    translator_free(&rb->tr);
    memset(rb, 0, sizeof *rb);
}

int readback_init(ReadBack *rb, const Model *reverse, double margin_max, char *err,
                  size_t errlen)
{
    memset(rb, 0, sizeof *rb);
    if (!(margin_max >= 0.0) || !isfinite(margin_max)) {
        if (err && errlen)
            snprintf(err, errlen, "read-back margin %g: must be a finite number >= 0",
                     margin_max);
        return TT_EINVAL;
    }
    rb->model = reverse;
    rb->margin_max = margin_max;
    const TranslatorOptions o = translator_options_default();
    int rc = translator_init(&rb->tr, reverse, &o, err, errlen);
    if (rc == TT_OK && !(rb->ids = malloc(sizeof *rb->ids * (size_t)reverse->config.max_len)))
        rc = TT_ENOMEM;
    if (rc != TT_OK) {
        if (rc == TT_ENOMEM && err && errlen)
            snprintf(err, errlen, "%s", status_message(rc));
        readback_free(rb);
    }
    return rc;
}

int readback_set_batch(ReadBack *rb, int batch, Pool *pool)
{
    ahead_free(rb);
    int rc = translator_set_batch(&rb->tr, batch, pool);
    const int n = translator_ahead_capacity(&rb->tr);
    if (rc != TT_OK || n == 0)
        return rc;
    const size_t L = (size_t)rb->model->config.max_len;
    rb->ahead = calloc((size_t)n, sizeof *rb->ahead);
    rb->texts = malloc(sizeof *rb->texts * (size_t)n);
    rb->lens = malloc(sizeof *rb->lens * (size_t)n);
    rb->targets = malloc(sizeof *rb->targets * (size_t)n);
    rb->n_targets = malloc(sizeof *rb->n_targets * (size_t)n);
    rb->sums = malloc(sizeof *rb->sums * (size_t)n);
    if (!rb->ahead || !rb->texts || !rb->lens || !rb->targets || !rb->n_targets || !rb->sums) {
        ahead_free(rb);
        return TT_ENOMEM;
    }
    rb->n_ahead_cap = n; /* ahead_free frees every entry's target, NULL ones too */
    for (int i = 0; i < n; i++)
        if (!(rb->ahead[i].target = malloc(sizeof(int) * L))) {
            ahead_free(rb);
            return TT_ENOMEM;
        }
    return TT_OK;
}

void readback_ahead_clear(ReadBack *rb)
{
    for (int i = 0; i < rb->n_ahead; i++) {
        free(rb->ahead[i].source);
        free(rb->ahead[i].translation);
        rb->ahead[i].source = rb->ahead[i].translation = NULL;
    }
    rb->n_ahead = rb->next_ahead = 0;
}

/* The input (len bytes) in the reverse model's target ids, then </s>, into ids (max_len):
 * returns their count, or 0 with *why saying why it cannot be scored (or TT_ENOMEM set
 * in *rc). When the translation has no comma, neither is the input's scored: the comma
 * English may put before "and" ("The dog is big, and the cat is small") has no German
 * counterpart, so no reading of the German can say whether it was there, and scoring it
 * made right translations look less likely than their reading by 5 to 13 nats. */
static int input_target(ReadBack *rb, const char *source, size_t len,
                        const char *translation, int *ids, const char **why, int *rc)
{
    const Model *m = rb->model;
    *rc = TT_OK;
    tokenlist_free(&rb->input);
    const int trc = tokenize(&rb->input, source, len, config_lang_rules(m->config.tgt_lang),
                             NULL);
    if (trc != TT_OK) {
        *why = "the input is not valid text";
        if (trc != TT_EINPUT)
            *rc = trc;
        return 0;
    }
    const int n = rb->input.n;
    if (n == 0) {
        *why = "the input has no words";
        return 0;
    }
    if (n + 2 > m->config.max_len) {
        *why = "the input is too long for the reverse model";
        return 0;
    }
    const int commas = strchr(translation, ',') != NULL;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (commas || strcmp(rb->input.tok[i], ",") != 0)
            ids[k++] = vocab_lookup(&m->tgt_vocab, rb->input.tok[i]);
    ids[k] = VOCAB_EOS;
    return k + 1;
}

int readback_ahead_add(ReadBack *rb, const char *source, size_t len, const char *translation)
{
    if (rb->n_ahead >= rb->n_ahead_cap)
        return TT_EINVAL;
    ReadBackAhead *a = &rb->ahead[rb->n_ahead];
    a->len = len;
    a->tlen = strlen(translation);
    a->source = malloc(len ? len : 1);
    a->translation = malloc(a->tlen + 1);
    if (!a->source || !a->translation) {
        free(a->source);
        free(a->translation);
        a->source = a->translation = NULL;
        return TT_ENOMEM;
    }
    memcpy(a->source, source, len);
    memcpy(a->translation, translation, a->tlen + 1);
    a->n_target = 0;
    a->input = NAN;
    rb->n_ahead++;
    return TT_OK;
}

void readback_ahead_decode(ReadBack *rb)
{
    const int n = rb->n_ahead;
    for (int i = 0; i < n; i++) {
        ReadBackAhead *a = &rb->ahead[i];
        const char *why = NULL;
        int rc;
        rb->texts[i] = a->translation;
        rb->lens[i] = a->tlen;
        a->n_target = input_target(rb, a->source, a->len, a->translation, a->target, &why,
                                   &rc);
        rb->targets[i] = a->n_target ? a->target : NULL;
        rb->n_targets[i] = a->n_target;
        a->input = NAN;
    }
    /* The readings decoded, and each input scored on its reading's encoder pass; what
     * the translator did not decode is left out (NAN: readback_run does it alone). */
    if (translator_decode_ahead_scored(&rb->tr, rb->texts, rb->lens, n, rb->targets,
                                       rb->n_targets, rb->sums) == TT_OK)
        for (int i = 0; i < n; i++)
            rb->ahead[i].input = rb->sums[i];
}

/* The next pair of the block at or after next_ahead that is this one, if any. */
static const ReadBackAhead *ahead_take(ReadBack *rb, const char *source, size_t len,
                                       const char *translation)
{
    const size_t tlen = strlen(translation);
    for (int i = rb->next_ahead; i < rb->n_ahead; i++) {
        const ReadBackAhead *a = &rb->ahead[i];
        if (a->len == len && a->tlen == tlen && memcmp(a->source, source, len) == 0 &&
            memcmp(a->translation, translation, tlen) == 0) {
            rb->next_ahead = i + 1;
            return a;
        }
    }
    return NULL;
}

/* A pair the read-back cannot judge: out says why, and the run goes on. */
static int not_done(ReadBackResult *out, const char *why)
{
    out->done = 0;
    out->why = why;
    return TT_OK;
}

int readback_run(ReadBack *rb, const char *source, size_t len, const char *translation,
                 ReadBackResult *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const ReadBackAhead *a = ahead_take(rb, source, len, translation);
    if (translation[0] == '\0')
        return not_done(out, "the translation is empty");

    /* The reverse model's own reading of the translation. */
    TranslatorResult r;
    int rc = translator_run(&rb->tr, translation, strlen(translation), &r, err, errlen);
    if (rc == TT_EINPUT)
        return not_done(out, "the translation is too long for the reverse model");
    if (rc != TT_OK)
        return rc;
    if (r.t->n == 0)
        return not_done(out, "the translation has no words");
    const double best = translation_logprob_sum(r.t);

    /* The input, in the reverse model's target tokens, forced through it. */
    const char *why = "the input cannot be scored";
    const int n = input_target(rb, source, len, translation, rb->ids, &why, &rc);
    if (rc != TT_OK) {
        snprintf(err, errlen, "%s", status_message(rc));
        return rc;
    }
    if (n == 0)
        return not_done(out, why);
    double input;
    if (a && !isnan(a->input)) {
        input = a->input; /* scored with its block: the same bits */
    } else if (translation_is(r.t, rb->ids, n)) {
        input = best; /* the reading is the input: forcing it through gives these bits */
    } else {
        const int *src = rb->tr.src_ids, S = r.t->S;
        const int *ids = rb->ids;
        rc = decode_score_batch(&rb->tr.dec, &src, &S, 1, &ids, &n, &input);
        if (rc != TT_OK) {
            snprintf(err, errlen, "%s",
                     rc == TT_EMODEL ? "the reverse model computes a NaN or infinite logit: "
                                       "model file unusable"
                                     : status_message(rc));
            return rc;
        }
    }

    out->done = 1;
    out->text = r.text;
    out->best = best;
    out->input = input;
    out->margin = best - input;
    out->disagrees = out->margin > rb->margin_max;
    return TT_OK;
}
