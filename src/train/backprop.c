/*
 * backprop.c — a batch's forward pass, loss and backward pass over net.h's layers.
 *
 * The backward pass mirrors the forward pass layer by layer, in reverse. Each residual
 * block x_out = x_in + f(norm(x_in)) turns into: d stays on the residual path, and
 * norm_backward(f_backward(d)) is added to it — so one buffer per stack (d_dec, d_enc)
 * carries the gradient of the residual stream from the loss down to the embeddings.
 */
#include "train/backprop.h"

#include "base/kernel.h"
#include "base/status.h"
#include "text/vocab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void backprop_free(Backprop *t)
{
    if (!t)
        return;
    free(t->rng);
    free(t->seeds);
    free(t->tgt_len);
    free(t->src_len);
    free(t->dec_out);
    free(t->dec_in);
    free(t->src_ids);
    net_acts_free(&t->acts);
    memset(t, 0, sizeof *t);
}

int backprop_init(Backprop *t, const Model *m, int max_batch, int max_src, int max_tgt,
                 float dropout, Pool *pool)
{
    memset(t, 0, sizeof *t);
    const ModelConfig *c = &m->config;
    if (max_batch < 1 || max_src < 1 || max_tgt < 1 || max_src > c->max_len ||
        max_tgt > c->max_len || !(dropout >= 0.0f && dropout < 1.0f))
        return TT_EINVAL;
    int rc = net_acts_init(&t->acts, m, max_batch, max_src, max_tgt, dropout > 0.0f);
    if (rc != TT_OK)
        return rc;
    const size_t B = (size_t)max_batch;
    t->src_ids = calloc(B * (size_t)max_src, sizeof(int));
    t->dec_in = calloc(B * (size_t)max_tgt, sizeof(int));
    t->dec_out = calloc(B * (size_t)max_tgt, sizeof(int));
    t->src_len = calloc(B, sizeof(int));
    t->tgt_len = calloc(B, sizeof(int));
    t->seeds = calloc(B, sizeof(uint64_t));
    t->rng = calloc(B, sizeof(Rng));
    if (!t->src_ids || !t->dec_in || !t->dec_out || !t->src_len || !t->tgt_len || !t->seeds ||
        !t->rng) {
        backprop_free(t);
        return TT_ENOMEM;
    }
    t->m = m;
    t->max_batch = max_batch;
    t->max_src = max_src;
    t->max_tgt = max_tgt;
    t->dropout = dropout;
    t->ctx = (NetCtx){.D = c->d_model, .H = c->n_heads, .F = c->d_ff, .V = m->tgt_vocab.size,
                      .eps = (float)c->layer_norm_eps, .pool = pool, .rng = t->rng};
    return TT_OK;
}

double backprop_pair_flops(const ModelConfig *c, int tgt_vocab, int S, int T)
{
    const double D = c->d_model, F = c->d_ff, V = tgt_vocab, s = S, t = T;
    const double enc = 2 * s * (4 * D * D + 2 * D * F) + 4 * s * s * D;
    const double dec = 2 * t * (4 * D * D) + 4 * t * t * D        /* self-attention */
                       + 2 * t * (2 * D * D) + 2 * s * (2 * D * D) /* cross: q, out; k, v */
                       + 4 * t * s * D + 2 * t * (2 * D * F);      /* cross scores; FFN */
    const double forward = c->n_encoder_layers * enc + c->n_decoder_layers * dec + 2 * t * D * V;
    return 3 * forward;
}

int backprop_set_batch(Backprop *t, const TrainPair *pairs, int B)
{
    const Model *m = t->m;
    if (B < 1 || B > t->max_batch || !pairs)
        return TT_EINVAL;
    int S = 1, T = 1;
    for (int b = 0; b < B; b++) {
        const TrainPair *p = &pairs[b];
        if (p->n_src < 0 || p->n_tgt < 0 || p->n_src + 1 > t->max_src ||
            p->n_tgt + 1 > t->max_tgt || (p->n_src && !p->src) || (p->n_tgt && !p->tgt))
            return TT_EINVAL;
        for (int i = 0; i < p->n_src; i++)
            if (p->src[i] < 0 || p->src[i] >= m->src_vocab.size)
                return TT_EINVAL;
        for (int i = 0; i < p->n_tgt; i++)
            if (p->tgt[i] < 0 || p->tgt[i] >= m->tgt_vocab.size)
                return TT_EINVAL;
        S = p->n_src + 1 > S ? p->n_src + 1 : S;
        T = p->n_tgt + 1 > T ? p->n_tgt + 1 : T;
    }
    /* Padding ids are <pad>; no layer reads them (the lengths mask them out). */
    for (int b = 0; b < B; b++) {
        const TrainPair *p = &pairs[b];
        int *src = t->src_ids + (size_t)b * S;
        int *in = t->dec_in + (size_t)b * T, *out = t->dec_out + (size_t)b * T;
        for (int i = 0; i < S; i++)
            src[i] = i < p->n_src ? p->src[i] : i == p->n_src ? VOCAB_EOS : VOCAB_PAD;
        for (int i = 0; i < T; i++) {
            in[i] = i == 0 ? VOCAB_BOS : i <= p->n_tgt ? p->tgt[i - 1] : VOCAB_PAD;
            out[i] = i < p->n_tgt ? p->tgt[i] : i == p->n_tgt ? VOCAB_EOS : VOCAB_PAD;
        }
        t->src_len[b] = p->n_src + 1;
        t->tgt_len[b] = p->n_tgt + 1;
        t->seeds[b] = p->dropout_seed;
    }
    t->nb = (NetBatch){.B = B, .S = S, .T = T, .src_len = t->src_len, .tgt_len = t->tgt_len};
    return TT_OK;
}

/* The layers' outputs chain through the activations: layer l writes layer l + 1's input,
 * the last one the top of its stack. */
void backprop_forward(Backprop *t, int with_dropout)
{
    const Model *m = t->m;
    const NetBatch *nb = &t->nb;
    NetActs *a = &t->acts;
    NetCtx *c = &t->ctx;
    const int B = nb->B;
    c->dropout = with_dropout ? t->dropout : 0.0f;
    if (c->dropout > 0.0f)
        for (int b = 0; b < B; b++)
            rng_seed(&t->rng[b], t->seeds[b]);

    net_encoder_forward(a, m, t->src_ids, nb, c);

    net_decoder_forward(a, m, t->dec_in, nb, NULL, c);
}

void backprop_loss(Backprop *t, float ls, double *sum)
{
    NetActs *a = &t->acts;
    net_xent_forward(a->loss, a->lse, a->logits, t->dec_out, &t->nb, ls, &t->ctx);
    double s = 0.0;
    for (int b = 0; b < t->nb.B; b++)
        s += a->loss[b];
    *sum = s;
}

/* Gradient views: the grads block has the parameter layout, so mapping it gives pointers
 * to each weight's gradient (ModelWeights holds const pointers because it is mostly used
 * for weights; the layers write through them). */
#define G(p) ((float *)(p))

void backprop_backward(Backprop *t, float *grads, float ls)
{
    const Model *m = t->m;
    const ModelWeights *w = &m->w;
    const NetBatch *nb = &t->nb;
    NetActs *a = &t->acts;
    const NetCtx *c = &t->ctx;
    const int B = nb->B, S = nb->S, T = nb->T, D = c->D;
    ModelWeights gw;
    model_map(&gw, &m->config, m->specs, m->n_specs, grads);

    net_xent_backward(a->logits, a->logits, a->lse, t->dec_out, nb, ls, c);
    memset(a->s.dh, 0, sizeof(float) * (size_t)B * T * D);
    net_generator_backward(a->s.dh, G(gw.gen_w), G(gw.gen_b), a->logits, a->final_h, w->gen_w,
                           B * T, c);
    memset(a->d_dec, 0, sizeof(float) * (size_t)B * T * D);
    net_norm_backward(a->d_dec, G(gw.dec_norm_w), G(gw.dec_norm_b), a->s.dh, a->dec_top,
                      a->final_st, w->dec_norm_w, B * T, c);
    memset(a->d_mem, 0, sizeof(float) * (size_t)B * S * D);
    for (int l = a->n_dec - 1; l >= 0; l--)
        net_decoder_layer_backward(a->d_dec, a->d_mem, &a->s, &gw.dec[l], &a->dec[l], a->memory,
                                   &w->dec[l], nb, c);
    net_embed_backward(G(gw.emb_tgt), a->d_dec, a->tgt_drop, t->dec_in, nb->tgt_len, B, T, c);

    memset(a->d_enc, 0, sizeof(float) * (size_t)B * S * D);
    net_norm_backward(a->d_enc, G(gw.enc_norm_w), G(gw.enc_norm_b), a->d_mem, a->enc_top,
                      a->mem_st, w->enc_norm_w, B * S, c);
    for (int l = a->n_enc - 1; l >= 0; l--)
        net_encoder_layer_backward(a->d_enc, &a->s, &gw.enc[l], &a->enc[l], &w->enc[l], nb, c);
    net_embed_backward(G(gw.emb_src), a->d_enc, a->src_drop, t->src_ids, nb->src_len, B, S, c);
}
