/*
 * trainer.c — forward with caches, backward, AdamW.
 *
 * The backward pass mirrors the forward pass block by block, in reverse. Each residual
 * block x_out = x_in + f(norm(x_in)) turns into: dx stays on the residual path, and
 * norm_backward(f_backward(dx)) is added to it — so one buffer dx carries the gradient of
 * the residual stream from the loss down to the embeddings.
 */
#include "trainer.h"

#include "kernel.h"
#include "layers.h"
#include "rng.h"
#include "status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *falloc(size_t n)
{
    return calloc(n ? n : 1, sizeof(float));
}

void sentence_state_free(SentenceState *st)
{
    if (!st)
        return;
    const Model *m = st->m;
    if (m) {
        for (int l = 0; st->enc_acts && l < m->config.n_encoder_layers; l++)
            mha_acts_free(&st->enc_acts[l]);
        for (int l = 0; st->self_acts && l < m->config.n_decoder_layers; l++)
            mha_acts_free(&st->self_acts[l]);
        for (int l = 0; st->cross_acts && l < m->config.n_decoder_layers; l++)
            mha_acts_free(&st->cross_acts[l]);
    }
    mha_scratch_free(&st->scratch);
    void *bufs[] = {st->src, st->dec_in, st->dec_out, st->enc_x, st->enc_mid, st->enc_h1,
                    st->enc_h2, st->enc_s1, st->enc_s2, st->enc_ff, st->enc_acts, st->memory,
                    st->mem_stats, st->dec_x, st->dec_mid1, st->dec_mid2, st->dec_h1, st->dec_h2,
                    st->dec_h3, st->dec_s1, st->dec_s2, st->dec_s3, st->dec_ff, st->self_acts,
                    st->cross_acts, st->final_h, st->final_stats, st->logits, st->dx, st->dh,
                    st->dmem, st->dff, st->y, st->masks};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    memset(st, 0, sizeof *st);
}

int sentence_state_init(SentenceState *st, const Model *m)
{
    memset(st, 0, sizeof *st);
    st->m = m;
    const ModelConfig *c = &m->config;
    const size_t N = (size_t)c->max_len, D = (size_t)c->d_model, F = (size_t)c->d_ff;
    const size_t LE = (size_t)c->n_encoder_layers, LD = (size_t)c->n_decoder_layers;
    st->src = malloc(sizeof(int) * N);
    st->dec_in = malloc(sizeof(int) * N);
    st->dec_out = malloc(sizeof(int) * N);
    st->enc_x = falloc((LE + 1) * N * D);
    st->enc_mid = falloc(LE * N * D);
    st->enc_h1 = falloc(LE * N * D);
    st->enc_h2 = falloc(LE * N * D);
    st->enc_s1 = falloc(LE * 2 * N);
    st->enc_s2 = falloc(LE * 2 * N);
    st->enc_ff = falloc(LE * N * F);
    st->enc_acts = calloc(LE, sizeof(MhaActs));
    st->memory = falloc(N * D);
    st->mem_stats = falloc(2 * N);
    st->dec_x = falloc((LD + 1) * N * D);
    st->dec_mid1 = falloc(LD * N * D);
    st->dec_mid2 = falloc(LD * N * D);
    st->dec_h1 = falloc(LD * N * D);
    st->dec_h2 = falloc(LD * N * D);
    st->dec_h3 = falloc(LD * N * D);
    st->dec_s1 = falloc(LD * 2 * N);
    st->dec_s2 = falloc(LD * 2 * N);
    st->dec_s3 = falloc(LD * 2 * N);
    st->dec_ff = falloc(LD * N * F);
    st->self_acts = calloc(LD, sizeof(MhaActs));
    st->cross_acts = calloc(LD, sizeof(MhaActs));
    st->final_h = falloc(N * D);
    st->final_stats = falloc(2 * N);
    st->logits = falloc(N * (size_t)m->tgt_vocab.size);
    st->dx = falloc(N * D);
    st->dh = falloc(N * D);
    st->dmem = falloc(N * D);
    st->dff = falloc(N * F);
    st->y = falloc(N * D);
    st->masks = falloc((2 + 2 * LE + 3 * LD) * N * D);
    int ok = st->masks && st->src && st->dec_in && st->dec_out && st->enc_x && st->enc_mid && st->enc_h1 &&
             st->enc_h2 && st->enc_s1 && st->enc_s2 && st->enc_ff && st->enc_acts && st->memory &&
             st->mem_stats && st->dec_x && st->dec_mid1 && st->dec_mid2 && st->dec_h1 &&
             st->dec_h2 && st->dec_h3 && st->dec_s1 && st->dec_s2 && st->dec_s3 && st->dec_ff &&
             st->self_acts && st->cross_acts && st->final_h && st->final_stats && st->logits &&
             st->dx && st->dh && st->dmem && st->dff && st->y;
    int rc = ok ? TT_OK : TT_ENOMEM;
    for (size_t l = 0; rc == TT_OK && l < LE; l++)
        rc = mha_acts_init(&st->enc_acts[l], c->max_len, c->max_len, c->d_model, c->n_heads);
    for (size_t l = 0; rc == TT_OK && l < LD; l++) {
        rc = mha_acts_init(&st->self_acts[l], c->max_len, c->max_len, c->d_model, c->n_heads);
        if (rc == TT_OK)
            rc = mha_acts_init(&st->cross_acts[l], c->max_len, c->max_len, c->d_model, c->n_heads);
    }
    if (rc == TT_OK)
        rc = mha_scratch_init(&st->scratch, c->max_len, c->max_len, c->d_model);
    if (rc != TT_OK)
        sentence_state_free(st);
    return rc;
}

/* Masks, in this order: source embedding, target embedding, per encoder layer (attention,
 * feed-forward), per decoder layer (self-attention, cross-attention, feed-forward). */
static float *mask_at(const SentenceState *st, int index)
{
    const size_t ND = (size_t)st->m->config.max_len * st->m->config.d_model;
    return st->masks + (size_t)index * ND;
}

#define MASK_EMB_SRC 0
#define MASK_EMB_TGT 1
#define MASK_ENC(st, l, k) (2 + 2 * (l) + (k))
#define MASK_DEC(st, l, k) (2 + 2 * (st)->m->config.n_encoder_layers + 3 * (l) + (k))

/* y *= mask, drawing the mask (0 with probability p, else 1/(1−p)). */
static void dropout_forward(SentenceState *st, float *y, int index, int n, Rng *rng)
{
    if (st->dropout <= 0.0f)
        return;
    float *mask = mask_at(st, index);
    const float keep = 1.0f / (1.0f - st->dropout);
    for (int i = 0; i < n; i++) {
        mask[i] = rng_uniform(rng, 0.0f, 1.0f) < st->dropout ? 0.0f : keep;
        y[i] *= mask[i];
    }
}

/* The gradient through a dropout: dy ⊙ mask (into st->y), or dy itself without dropout. */
static const float *dropout_backward(SentenceState *st, const float *dy, int index, int n)
{
    if (st->dropout <= 0.0f)
        return dy;
    const float *mask = mask_at(st, index);
    for (int i = 0; i < n; i++)
        st->y[i] = dy[i] * mask[i];
    return st->y;
}

/* Gradient views: the grads block has the parameter layout, so mapping it gives pointers
 * to each weight's gradient. The block is writable; ModelWeights holds const pointers
 * because it is mostly used for weights. */
#define G(p) ((float *)(p))

static MhaGrads mha_grads(const MhaWeights *gw)
{
    return (MhaGrads){G(gw->w_query), G(gw->w_key), G(gw->w_value), G(gw->b_query),
                      G(gw->b_key),   G(gw->b_value), G(gw->w_out), G(gw->b_out)};
}

double sentence_loss(SentenceState *st, float *grads, const int *src, int n_src,
                     const int *tgt, int n_tgt, float label_smoothing)
{
    const Model *m = st->m;
    const ModelConfig *c = &m->config;
    const int D = c->d_model, F = c->d_ff, V = m->tgt_vocab.size;
    const size_t N = (size_t)c->max_len, ND = N * (size_t)D;
    const float eps = (float)c->layer_norm_eps;
    const int S = n_src + 1, T = n_tgt + 1;
    if (n_src < 0 || n_tgt < 0 || S > c->max_len || T > c->max_len)
        return -1.0;
    st->S = S;
    st->T = T;
    memcpy(st->src, src, sizeof(int) * (size_t)n_src);
    st->src[n_src] = VOCAB_EOS;
    st->dec_in[0] = VOCAB_BOS;
    memcpy(st->dec_in + 1, tgt, sizeof(int) * (size_t)n_tgt);
    memcpy(st->dec_out, tgt, sizeof(int) * (size_t)n_tgt);
    st->dec_out[n_tgt] = VOCAB_EOS;
    const ModelWeights *w = &m->w;

    Rng rng;
    rng_seed(&rng, st->dropout_seed);

    /* ---- encoder ---- */
    embed_forward(st->enc_x, w->emb_src, m->pe, st->src, S, 0, D);
    dropout_forward(st, st->enc_x, MASK_EMB_SRC, S * D, &rng);
    for (int l = 0; l < c->n_encoder_layers; l++) {
        const EncoderLayer *L = &w->enc[l];
        float *x = st->enc_x + l * ND, *mid = st->enc_mid + l * ND, *out = x + ND;
        float *h1 = st->enc_h1 + l * ND, *h2 = st->enc_h2 + l * ND;
        float *s1 = st->enc_s1 + l * 2 * N, *s2 = st->enc_s2 + l * 2 * N;
        layernorm_forward_cache(h1, s1, s1 + N, x, L->norm1_w, L->norm1_b, S, D, eps);
        mha_forward(st->y, &st->enc_acts[l], &L->self_attn, h1, S, h1, S, 0);
        dropout_forward(st, st->y, MASK_ENC(st, l, 0), S * D, &rng);
        for (size_t i = 0; i < (size_t)S * D; i++)
            mid[i] = x[i] + st->y[i];
        layernorm_forward_cache(h2, s2, s2 + N, mid, L->norm2_w, L->norm2_b, S, D, eps);
        ffn_forward(st->y, st->enc_ff + l * N * F, h2, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b,
                    S, D, F);
        dropout_forward(st, st->y, MASK_ENC(st, l, 1), S * D, &rng);
        for (size_t i = 0; i < (size_t)S * D; i++)
            out[i] = mid[i] + st->y[i];
    }
    const float *enc_last = st->enc_x + (size_t)c->n_encoder_layers * ND;
    layernorm_forward_cache(st->memory, st->mem_stats, st->mem_stats + N, enc_last, w->enc_norm_w,
                            w->enc_norm_b, S, D, eps);

    /* ---- decoder ---- */
    embed_forward(st->dec_x, w->emb_tgt, m->pe, st->dec_in, T, 0, D);
    dropout_forward(st, st->dec_x, MASK_EMB_TGT, T * D, &rng);
    for (int l = 0; l < c->n_decoder_layers; l++) {
        const DecoderLayer *L = &w->dec[l];
        float *x = st->dec_x + l * ND, *mid1 = st->dec_mid1 + l * ND, *mid2 = st->dec_mid2 + l * ND;
        float *out = x + ND;
        float *h1 = st->dec_h1 + l * ND, *h2 = st->dec_h2 + l * ND, *h3 = st->dec_h3 + l * ND;
        float *s1 = st->dec_s1 + l * 2 * N, *s2 = st->dec_s2 + l * 2 * N, *s3 = st->dec_s3 + l * 2 * N;
        layernorm_forward_cache(h1, s1, s1 + N, x, L->norm1_w, L->norm1_b, T, D, eps);
        mha_forward(st->y, &st->self_acts[l], &L->self_attn, h1, T, h1, T, 1);
        dropout_forward(st, st->y, MASK_DEC(st, l, 0), T * D, &rng);
        for (size_t i = 0; i < (size_t)T * D; i++)
            mid1[i] = x[i] + st->y[i];
        layernorm_forward_cache(h2, s2, s2 + N, mid1, L->norm2_w, L->norm2_b, T, D, eps);
        mha_forward(st->y, &st->cross_acts[l], &L->cross_attn, h2, T, st->memory, S, 0);
        dropout_forward(st, st->y, MASK_DEC(st, l, 1), T * D, &rng);
        for (size_t i = 0; i < (size_t)T * D; i++)
            mid2[i] = mid1[i] + st->y[i];
        layernorm_forward_cache(h3, s3, s3 + N, mid2, L->norm3_w, L->norm3_b, T, D, eps);
        ffn_forward(st->y, st->dec_ff + l * N * F, h3, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b,
                    T, D, F);
        dropout_forward(st, st->y, MASK_DEC(st, l, 2), T * D, &rng);
        for (size_t i = 0; i < (size_t)T * D; i++)
            out[i] = mid2[i] + st->y[i];
    }
    const float *dec_last = st->dec_x + (size_t)c->n_decoder_layers * ND;
    layernorm_forward_cache(st->final_h, st->final_stats, st->final_stats + N, dec_last,
                            w->dec_norm_w, w->dec_norm_b, T, D, eps);
    kernel_matmul_nt(st->logits, st->final_h, w->gen_w, w->gen_b, T, D, V);

    /* ---- loss, and its gradient by the logits in place ---- */
    double loss = 0.0;
    const double ls = label_smoothing, off = ls / V;
    for (int t = 0; t < T; t++) {
        float *z = st->logits + (size_t)t * V;
        double max = z[0];
        for (int v = 1; v < V; v++)
            if (z[v] > max)
                max = z[v];
        double sum = 0.0;
        for (int v = 0; v < V; v++)
            sum += exp((double)z[v] - max);
        /* cppcheck-suppress invalidFunctionArg ; sum >= 1: the maximum's term is exp(0) */
        const double lse = max + log(sum);
        const int y = st->dec_out[t];
        double mean_nll = 0.0;
        for (int v = 0; v < V; v++)
            mean_nll += lse - z[v];
        loss += (1.0 - ls) * (lse - z[y]) + ls * mean_nll / V;
        if (grads)
            for (int v = 0; v < V; v++) {
                const double p = exp((double)z[v] - lse);
                z[v] = (float)(p - off - (v == y ? 1.0 - ls : 0.0));
            }
    }
    if (!grads)
        return loss;

    /* ---- backward ---- */
    ModelWeights gw;
    model_map(&gw, c, m->specs, m->n_specs, grads);
    memset(st->dh, 0, sizeof(float) * (size_t)T * D);
    kernel_matmul_nt_backward(st->dh, G(gw.gen_w), G(gw.gen_b), st->logits, st->final_h, w->gen_w,
                              T, D, V);
    memset(st->dx, 0, sizeof(float) * (size_t)T * D);
    layernorm_backward(st->dx, G(gw.dec_norm_w), G(gw.dec_norm_b), st->dh, dec_last, w->dec_norm_w,
                       st->final_stats, st->final_stats + N, T, D);
    memset(st->dmem, 0, sizeof(float) * (size_t)S * D);
    for (int l = c->n_decoder_layers - 1; l >= 0; l--) {
        const DecoderLayer *L = &w->dec[l];
        const DecoderLayer *GL = &gw.dec[l];
        float *x = st->dec_x + l * ND, *mid1 = st->dec_mid1 + l * ND, *mid2 = st->dec_mid2 + l * ND;
        float *h1 = st->dec_h1 + l * ND, *h2 = st->dec_h2 + l * ND, *h3 = st->dec_h3 + l * ND;
        float *s1 = st->dec_s1 + l * 2 * N, *s2 = st->dec_s2 + l * 2 * N, *s3 = st->dec_s3 + l * 2 * N;
        /* feed-forward block */
        memset(st->dh, 0, sizeof(float) * (size_t)T * D);
        ffn_backward(st->dh, G(GL->lin1_w), G(GL->lin1_b), G(GL->lin2_w), G(GL->lin2_b), st->dff,
                     dropout_backward(st, st->dx, MASK_DEC(st, l, 2), T * D), h3,
                     st->dec_ff + l * N * F, L->lin1_w, L->lin2_w, T, D, F);
        layernorm_backward(st->dx, G(GL->norm3_w), G(GL->norm3_b), st->dh, mid2, L->norm3_w, s3,
                           s3 + N, T, D);
        /* cross-attention block: queries from h2, keys and values from memory */
        memset(st->dh, 0, sizeof(float) * (size_t)T * D);
        MhaGrads cg = mha_grads(&GL->cross_attn);
        mha_backward(st->dh, st->dmem, &cg, &st->scratch,
                     dropout_backward(st, st->dx, MASK_DEC(st, l, 1), T * D), &st->cross_acts[l],
                     &L->cross_attn, h2, T, st->memory, S, 0);
        layernorm_backward(st->dx, G(GL->norm2_w), G(GL->norm2_b), st->dh, mid1, L->norm2_w, s2,
                           s2 + N, T, D);
        /* causal self-attention block */
        memset(st->dh, 0, sizeof(float) * (size_t)T * D);
        MhaGrads sg = mha_grads(&GL->self_attn);
        mha_backward(st->dh, st->dh, &sg, &st->scratch,
                     dropout_backward(st, st->dx, MASK_DEC(st, l, 0), T * D), &st->self_acts[l],
                     &L->self_attn, h1, T, h1, T, 1);
        layernorm_backward(st->dx, G(GL->norm1_w), G(GL->norm1_b), st->dh, x, L->norm1_w, s1,
                           s1 + N, T, D);
    }
    embed_backward(G(gw.emb_tgt), dropout_backward(st, st->dx, MASK_EMB_TGT, T * D), st->dec_in,
                   T, D);

    memset(st->dx, 0, sizeof(float) * (size_t)S * D);
    layernorm_backward(st->dx, G(gw.enc_norm_w), G(gw.enc_norm_b), st->dmem, enc_last,
                       w->enc_norm_w, st->mem_stats, st->mem_stats + N, S, D);
    for (int l = c->n_encoder_layers - 1; l >= 0; l--) {
        const EncoderLayer *L = &w->enc[l];
        const EncoderLayer *GL = &gw.enc[l];
        float *x = st->enc_x + l * ND, *mid = st->enc_mid + l * ND;
        float *h1 = st->enc_h1 + l * ND, *h2 = st->enc_h2 + l * ND;
        float *s1 = st->enc_s1 + l * 2 * N, *s2 = st->enc_s2 + l * 2 * N;
        memset(st->dh, 0, sizeof(float) * (size_t)S * D);
        ffn_backward(st->dh, G(GL->lin1_w), G(GL->lin1_b), G(GL->lin2_w), G(GL->lin2_b), st->dff,
                     dropout_backward(st, st->dx, MASK_ENC(st, l, 1), S * D), h2,
                     st->enc_ff + l * N * F, L->lin1_w, L->lin2_w, S, D, F);
        layernorm_backward(st->dx, G(GL->norm2_w), G(GL->norm2_b), st->dh, mid, L->norm2_w, s2,
                           s2 + N, S, D);
        memset(st->dh, 0, sizeof(float) * (size_t)S * D);
        MhaGrads sg = mha_grads(&GL->self_attn);
        mha_backward(st->dh, st->dh, &sg, &st->scratch,
                     dropout_backward(st, st->dx, MASK_ENC(st, l, 0), S * D), &st->enc_acts[l],
                     &L->self_attn, h1, S, h1, S, 0);
        layernorm_backward(st->dx, G(GL->norm1_w), G(GL->norm1_b), st->dh, x, L->norm1_w, s1,
                           s1 + N, S, D);
    }
    embed_backward(G(gw.emb_src), dropout_backward(st, st->dx, MASK_EMB_SRC, S * D), st->src, S,
                   D);
    return loss;
}

void adamw_update(float *params, const float *grads, float *m, float *v, const ParamSpec *specs,
                  int n_specs, const AdamConfig *c, float lr, long step)
{
    /* The bias corrections in double, once per step; the update itself in float, as
     * PyTorch's AdamW computes it (kernel_adamw). */
    const float ic1 = (float)(1.0 / (1.0 - pow(c->beta1, (double)step)));
    const float ic2 = (float)(1.0 / (1.0 - pow(c->beta2, (double)step)));
    for (int s = 0; s < n_specs; s++) {
        const ParamSpec *p = &specs[s];
        const size_t n = (size_t)p->rows * (size_t)(p->cols ? p->cols : 1);
        const float decay = p->cols > 0 ? c->weight_decay : 0.0f;
        kernel_adamw(params + p->offset, grads + p->offset, m + p->offset, v + p->offset, n,
                     c->beta1, c->beta2, ic1, ic2, c->eps, lr, decay);
    }
}
