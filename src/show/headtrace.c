/*
 * headtrace.c — one head of a trained model, stage by stage (see headtrace.h).
 *
 * The forward pass is backprop_forward over a batch of one pair, without dropout: the
 * very layers training and the encoder run, with every activation kept. Nothing here
 * changes the model or the pass; the stages are recomputed beside it from its inputs,
 * and compared with it.
 */
#include "show/headtrace.h"

#include "base/status.h"
#include "nn/attention.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const KIND_NAMES[3] = {"enc-self", "dec-self", "cross"};

const char *headtrace_kind_name(HeadTraceKind kind)
{
    return kind >= HEADTRACE_ENC_SELF && kind <= HEADTRACE_CROSS ? KIND_NAMES[kind] : "?";
}

int headtrace_kind_parse(const char *s)
{
    for (int k = 0; k < 3; k++)
        if (strcmp(s, KIND_NAMES[k]) == 0)
            return k;
    return -1;
}

void headtrace_free(HeadTrace *h)
{
    if (!h)
        return;
    free(h->block);
    backprop_free(&h->bp);
    memset(h, 0, sizeof *h);
}

/* out (rows, Dh) = x (rows, D) · wᵀ + b, w (Dh, D), b (Dh) or NULL; summed in double, so
 * that the trace is a reference the forward pass's float kernels are held to. */
static void project(float *out, const float *x, const float *w, const float *b, int rows,
                    int D, int Dh)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < Dh; c++) {
            double s = b ? b[c] : 0.0;
            for (int j = 0; j < D; j++)
                s += (double)x[(size_t)r * D + j] * w[(size_t)c * D + j];
            out[(size_t)r * Dh + c] = (float)s;
        }
}

int headtrace_run(HeadTrace *h, const Model *m, HeadTraceKind kind, int layer, int head,
                  const int *src, int n_src, const int *tgt, int n_tgt)
{
    memset(h, 0, sizeof *h);
    const ModelConfig *c = &m->config;
    const int layers = kind == HEADTRACE_ENC_SELF ? c->n_encoder_layers : c->n_decoder_layers;
    if (kind < HEADTRACE_ENC_SELF || kind > HEADTRACE_CROSS || layer < 0 || layer >= layers ||
        head < 0 || head >= c->n_heads || n_src < 0 || n_tgt < 0 || n_src + 1 > c->max_len ||
        n_tgt + 1 > c->max_len)
        return TT_EINVAL;
    int rc = backprop_init(&h->bp, m, 1, n_src + 1, n_tgt + 1, 0.0f, NULL);
    if (rc != TT_OK)
        return rc;
    const TrainPair pair = {.src = src, .n_src = n_src, .tgt = tgt, .n_tgt = n_tgt};
    if ((rc = backprop_set_batch(&h->bp, &pair, 1)) != TT_OK) {
        backprop_free(&h->bp);
        return rc;
    }
    backprop_forward(&h->bp, 0);

    const NetActs *a = &h->bp.acts;
    const int S = n_src + 1, T = n_tgt + 1, D = c->d_model, H = c->n_heads, Dh = D / H;
    const MhaWeights *w;
    h->kind = kind;
    h->layer = layer;
    h->head = head;
    h->D = D;
    h->Dh = Dh;
    h->scale = 1.0f / sqrtf((float)Dh);
    h->causal = kind == HEADTRACE_DEC_SELF;
    /* The inputs and the forward pass's own numbers for this head; with one sentence in
     * the batch, its rows are the tensors' first rows and its weights the first of each
     * head's packed blocks. */
    if (kind == HEADTRACE_ENC_SELF) {
        const EncLayerActs *e = &a->enc[layer];
        w = &m->w.enc[layer].self_attn;
        h->Tq = h->Tk = S;
        h->x = h->x_kv = e->h1;
        h->model_q = e->q;
        h->model_k = e->k;
        h->model_v = e->v;
        h->model_weights = e->att + (size_t)head * S * S;
    } else if (kind == HEADTRACE_DEC_SELF) {
        const DecLayerActs *d = &a->dec[layer];
        w = &m->w.dec[layer].self_attn;
        h->Tq = h->Tk = T;
        h->x = h->x_kv = d->h1;
        h->model_q = d->q;
        h->model_k = d->k;
        h->model_v = d->v;
        h->model_weights = d->att + (size_t)head * T * T;
    } else {
        const DecLayerActs *d = &a->dec[layer];
        w = &m->w.dec[layer].cross_attn;
        h->Tq = T;
        h->Tk = S;
        h->x = d->h2;
        h->x_kv = a->memory;
        h->model_q = d->cq;
        h->model_k = d->ck;
        h->model_v = d->cv;
        h->model_weights = d->catt + (size_t)head * T * S;
    }
    const size_t off = (size_t)head * Dh;
    h->model_q += off;
    h->model_k += off;
    h->model_v += off;
    h->w_q = w->w_query + off * D;
    h->w_k = w->w_key + off * D;
    h->w_v = w->w_value + off * D;
    h->b_q = w->b_query ? w->b_query + off : NULL;
    h->b_k = w->b_key ? w->b_key + off : NULL;
    h->b_v = w->b_value ? w->b_value + off : NULL;

    const int Tq = h->Tq, Tk = h->Tk;
    const size_t n = (size_t)Tq * Dh * 2 + (size_t)Tk * Dh * 2 + (size_t)Tq * Tk * 2;
    if (!(h->block = malloc(n * sizeof *h->block))) {
        headtrace_free(h);
        return TT_ENOMEM;
    }
    h->q = h->block;
    h->k = h->q + (size_t)Tq * Dh;
    h->v = h->k + (size_t)Tk * Dh;
    h->scores = h->v + (size_t)Tk * Dh;
    h->weights = h->scores + (size_t)Tq * Tk;
    h->ctx = h->weights + (size_t)Tq * Tk;

    project(h->q, h->x, h->w_q, h->b_q, Tq, D, Dh);
    project(h->k, h->x_kv, h->w_k, h->b_k, Tk, D, Dh);
    project(h->v, h->x_kv, h->w_v, h->b_v, Tk, D, Dh);
    const AttnShape shape = {.Tq = Tq, .Tk = Tk, .dk = Dh, .dv = Dh, .scale = h->scale,
                             .causal = h->causal};
    rc = attention_head_forward(h->ctx, Dh, h->weights, h->scores, (AttnView){h->q, Dh},
                                (AttnView){h->k, Dh}, (AttnView){h->v, Dh}, &shape);
    assert(rc == TT_OK); /* the shapes above are valid by construction */
    (void)rc;
    return TT_OK;
}

int headtrace_token(const HeadTrace *h, int i, float *weights, float *ctx)
{
    if (i < 0 || i >= h->Tq)
        return TT_EINVAL;
    /* Causal: the query at position i sees keys 0..i; the rest stays 0, as in the batch. */
    const int Tk = h->causal ? i + 1 : h->Tk;
    for (int j = Tk; j < h->Tk; j++)
        weights[j] = 0.0f;
    const AttnShape shape = {.Tq = 1, .Tk = Tk, .dk = h->Dh, .dv = h->Dh, .scale = h->scale};
    return attention_head_forward(ctx, h->Dh, weights, NULL,
                                  (AttnView){h->q + (size_t)i * h->Dh, h->Dh},
                                  (AttnView){h->k, h->Dh}, (AttnView){h->v, h->Dh}, &shape);
}

/* The largest |a - b| / max(1, |b|) over rows × Dh, b with leading dimension ld. */
static float max_rel_diff(const float *a, const float *b, int rows, int Dh, int ld)
{
    float m = 0.0f;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < Dh; c++) {
            const float want = b[(size_t)r * ld + c];
            const float d = fabsf(a[(size_t)r * Dh + c] - want) / fmaxf(1.0f, fabsf(want));
            if (d > m || isnan(d))
                m = d;
        }
    return m;
}

void headtrace_compare(const HeadTrace *h, float *proj_diff, float *weight_diff)
{
    float p = max_rel_diff(h->q, h->model_q, h->Tq, h->Dh, h->D);
    const float pk = max_rel_diff(h->k, h->model_k, h->Tk, h->Dh, h->D);
    const float pv = max_rel_diff(h->v, h->model_v, h->Tk, h->Dh, h->D);
    p = pk > p || isnan(pk) ? pk : p;
    p = pv > p || isnan(pv) ? pv : p;
    float w = 0.0f;
    for (size_t i = 0; i < (size_t)h->Tq * h->Tk; i++) {
        const float d = fabsf(h->weights[i] - h->model_weights[i]);
        if (d > w || isnan(d))
            w = d;
    }
    *proj_diff = p;
    *weight_diff = w;
}
