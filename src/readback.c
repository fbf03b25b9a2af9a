/*
 * readback.c — a translation read back through the reverse model (readback.h).
 */
#include "readback.h"

#include "decode.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int readback_fits(const Model *forward, const Model *reverse)
{
    return strcmp(forward->config.src_lang, reverse->config.tgt_lang) == 0 &&
           strcmp(forward->config.tgt_lang, reverse->config.src_lang) == 0;
}

void readback_free(ReadBack *rb)
{
    tokenlist_free(&rb->input);
    free(rb->ids);
    translation_free(&rb->forced);
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
    if (rc == TT_OK)
        rc = translation_init(&rb->forced, reverse, 0);
    if (rc == TT_OK && !(rb->ids = malloc(sizeof *rb->ids * (size_t)reverse->config.max_len)))
        rc = TT_ENOMEM;
    if (rc != TT_OK) {
        if (rc == TT_ENOMEM && err && errlen)
            snprintf(err, errlen, "%s", status_message(rc));
        readback_free(rb);
    }
    return rc;
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
    const Model *m = rb->model;
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
    double best = 0.0;
    for (int i = 0; i < r.t->n; i++)
        best += (double)r.t->logprob[i];

    /* The input, in the reverse model's target tokens, forced through it. */
    tokenlist_free(&rb->input);
    rc = tokenize(&rb->input, source, len, config_lang_rules(m->config.tgt_lang), NULL);
    if (rc == TT_EINPUT)
        return not_done(out, "the input is not valid text");
    if (rc != TT_OK) {
        snprintf(err, errlen, "%s", status_message(rc));
        return rc;
    }
    const int n = rb->input.n;
    if (n == 0)
        return not_done(out, "the input has no words");
    if (n + 2 > m->config.max_len)
        return not_done(out, "the input is too long for the reverse model");
    for (int i = 0; i < n; i++)
        rb->ids[i] = vocab_lookup(&m->tgt_vocab, rb->input.tok[i]);
    rb->ids[n] = VOCAB_EOS;
    /* The prefix holds the input and its </s>; the limit lets one token follow, which
     * decode_run always generates and nothing reads. */
    DecodeOptions o = decode_options_default();
    o.prefix = rb->ids;
    o.n_prefix = n + 1;
    o.max_len = n + 2;
    rc = decode_run(&rb->tr.dec, &rb->forced, rb->tr.src_ids, r.t->S, &o);
    if (rc != TT_OK) {
        snprintf(err, errlen, "%s",
                 rc == TT_EMODEL ? "the reverse model computes a NaN or infinite logit: "
                                   "model file unusable"
                                 : status_message(rc));
        return rc;
    }
    double input = 0.0;
    for (int i = 0; i <= n; i++)
        input += (double)rb->forced.logprob[i];

    out->done = 1;
    out->text = r.text;
    out->best = best;
    out->input = input;
    out->margin = best - input;
    out->disagrees = out->margin > rb->margin_max;
    return TT_OK;
}
