/*
 * transformer.c — the inference encoder and the cached decoder step.
 *
 * Pre-LayerNorm blocks, as torch.nn.Transformer(norm_first=True):
 *   encoder layer:  x += SelfAttn(LN1(x));            x += FFN(LN2(x))
 *   decoder layer:  x += CausalSelfAttn(LN1(x));      x += CrossAttn(LN2(x), memory);
 *                   x += FFN(LN3(x))
 *   memory = encoder.norm(x_enc);  logits = decoder.norm(x_dec)·Wgenᵀ + bgen
 * See docs/model.md for the whole computation.
 */
#include "transformer.h"

#include "kernel.h"
#include "layers.h"
#include "status.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *alloc_floats(size_t n)
{
    return malloc(sizeof(float) * (n ? n : 1));
}

/* ---------------------------------------------------------------------------------------
 * Encoder
 */

void encoder_free(Encoder *e)
{
    if (!e)
        return;
    net_acts_free(&e->acts);
    free(e->cross_v);
    free(e->cross_k);
    free(e->attn);
    memset(e, 0, sizeof *e);
}

int encoder_init(Encoder *e, const Model *m)
{
    memset(e, 0, sizeof *e);
    e->model = m;
    return TT_OK;
}

/* Replaces e's buffers by ones for n positions; on failure e is left as it was. */
static int encoder_reserve(Encoder *e, int n)
{
    const Model *m = e->model;
    const ModelConfig *c = &m->config;
    if (n <= e->cap)
        return TT_OK;
    const size_t N = (size_t)n, D = (size_t)c->d_model;
    Encoder g = {.model = m, .cap = n};
    g.attn = alloc_floats((size_t)c->n_encoder_layers * c->n_heads * N * N);
    g.cross_k = alloc_floats((size_t)c->n_decoder_layers * N * D);
    g.cross_v = alloc_floats((size_t)c->n_decoder_layers * N * D);
    int rc = net_acts_init(&g.acts, m, 1, n, 0, 0);
    if (rc != TT_OK || !g.attn || !g.cross_k || !g.cross_v) {
        encoder_free(&g);
        return rc != TT_OK ? rc : TT_ENOMEM;
    }
    g.memory = g.acts.memory;
    encoder_free(e);
    *e = g;
    return TT_OK;
}

int encoder_forward(Encoder *e, const int *ids, int S)
{
    const Model *m = e->model;
    const ModelConfig *c = &m->config;
    const int D = c->d_model, H = c->n_heads;
    if (!ids || S < 1 || S > c->max_len)
        return TT_EINVAL;
    for (int i = 0; i < S; i++)
        if (ids[i] < 0 || ids[i] >= m->src_vocab.size)
            return TT_EINVAL;
    e->S = 0;
    int rc = encoder_reserve(e, S);
    if (rc != TT_OK)
        return rc;
    e->S = S;
    /* One sentence through the layers training runs (net.h), on the calling thread. */
    const NetBatch nb = {.B = 1, .S = S, .T = 0, .src_len = &e->S, .tgt_len = NULL};
    const NetCtx ctx = {.D = D, .H = H, .F = c->d_ff, .V = m->tgt_vocab.size,
                        .eps = (float)c->layer_norm_eps, .pool = NULL, .dropout = 0.0f,
                        .rng = NULL};
    net_encoder_forward(&e->acts, m, ids, &nb, &ctx);
    for (int l = 0; l < c->n_encoder_layers; l++)
        memcpy(e->attn + (size_t)l * H * S * S, e->acts.enc[l].att,
               sizeof(float) * (size_t)H * S * S);
    /* Every decoder step of every hypothesis attends to the same projected memory:
     * project it once per sentence. */
    const size_t N = (size_t)e->cap;
    for (int l = 0; l < c->n_decoder_layers; l++) {
        const MhaWeights *cw = &m->w.dec[l].cross_attn;
        kernel_matmul_nt(e->cross_k + l * N * D, e->memory, cw->w_key, cw->b_key, S, D, D);
        kernel_matmul_nt(e->cross_v + l * N * D, e->memory, cw->w_value, cw->b_value, S, D, D);
    }
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Decoder: one cached step
 */

int decoder_cache_init(DecoderCache *c, const Model *m)
{
    (void)m;
    memset(c, 0, sizeof *c);
    return TT_OK;
}

void decoder_cache_free(DecoderCache *c)
{
    if (!c)
        return;
    free(c->self_v);
    free(c->self_k);
    memset(c, 0, sizeof *c);
}

int decoder_cache_reserve(DecoderCache *c, const Model *m, int n)
{
    c->t = 0;
    if (n < 1 || n > m->config.max_len)
        return TT_EINVAL;
    if (n <= c->cap)
        return TT_OK;
    const size_t size = (size_t)m->config.n_decoder_layers * (size_t)n * m->config.d_model;
    float *k = alloc_floats(size), *v = alloc_floats(size);
    if (!k || !v) {
        free(v);
        free(k);
        return TT_ENOMEM;
    }
    decoder_cache_free(c);
    *c = (DecoderCache){.cap = n, .t = 0, .self_k = k, .self_v = v};
    return TT_OK;
}

void decoder_cache_copy(DecoderCache *dst, const DecoderCache *src, const Model *m)
{
    const size_t NS = (size_t)src->cap, ND = (size_t)dst->cap, D = (size_t)m->config.d_model;
    assert(dst->cap >= src->t);
    for (int l = 0; l < m->config.n_decoder_layers; l++) {
        memcpy(dst->self_k + l * ND * D, src->self_k + l * NS * D, sizeof(float) * src->t * D);
        memcpy(dst->self_v + l * ND * D, src->self_v + l * NS * D, sizeof(float) * src->t * D);
    }
    dst->t = src->t;
}

void decoder_step_free(DecoderStep *d)
{
    if (!d)
        return;
    free(d->cross_w);
    free(d->self_w);
    free(d->logits);
    free(d->ff);
    free(d->ctx);
    free(d->q);
    free(d->y);
    free(d->h);
    free(d->x);
    memset(d, 0, sizeof *d);
}

int decoder_step_init(DecoderStep *d, const Model *m)
{
    memset(d, 0, sizeof *d);
    const ModelConfig *c = &m->config;
    const size_t D = (size_t)c->d_model;
    d->model = m;
    d->x = alloc_floats(D);
    d->h = alloc_floats(D);
    d->y = alloc_floats(D);
    d->q = alloc_floats(D);
    d->ctx = alloc_floats(D);
    d->ff = alloc_floats((size_t)c->d_ff);
    d->logits = alloc_floats((size_t)m->tgt_vocab.size);
    if (!d->x || !d->h || !d->y || !d->q || !d->ctx || !d->ff || !d->logits) {
        decoder_step_free(d);
        return TT_ENOMEM;
    }
    return TT_OK;
}

int decoder_step_reserve(DecoderStep *d, int n)
{
    const ModelConfig *c = &d->model->config;
    if (n < 1 || n > c->max_len)
        return TT_EINVAL;
    if (n <= d->cap)
        return TT_OK;
    const size_t size = (size_t)c->n_decoder_layers * c->n_heads * (size_t)n;
    float *self_w = calloc(size, sizeof(float)), *cross_w = calloc(size, sizeof(float));
    if (!self_w || !cross_w) {
        free(cross_w);
        free(self_w);
        return TT_ENOMEM;
    }
    free(d->cross_w);
    free(d->self_w);
    d->self_w = self_w;
    d->cross_w = cross_w;
    d->cap = n;
    return TT_OK;
}

/* One query row against Tk keys/values (each (Tk, D) with heads side by side), all heads,
 * weights of head h to w + h*stride; then the output projection into out. */
static void step_attention(float *out, float *ctx, float *w, int stride, const float *q,
                           const float *k, const float *v, int Tk, const MhaWeights *mw)
{
    const int D = mw->d_model, H = mw->n_heads, Dh = D / H;
    AttnShape shape = {.Tq = 1, .Tk = Tk, .dk = Dh, .dv = Dh, .scale = 1.0f / sqrtf((float)Dh)};
    for (int h = 0; h < H; h++) {
        const size_t col = (size_t)h * Dh;
        AttnView qh = {q + col, D}, kh = {k + col, D}, vh = {v + col, D};
        /* Arguments were validated when the model was built; this cannot fail. */
        (void)attention_head_forward(ctx + col, D, w + (size_t)h * stride, NULL, qh, kh, vh,
                                     &shape);
    }
    kernel_matmul_nt(out, ctx, mw->w_out, mw->b_out, 1, D, D);
}

int decoder_step(DecoderStep *d, DecoderCache *cache, const Encoder *e, int token)
{
    const Model *m = d->model;
    const ModelConfig *c = &m->config;
    const int D = c->d_model, H = c->n_heads;
    const size_t NC = (size_t)cache->cap, NE = (size_t)e->cap, N = (size_t)d->cap;
    const float eps = (float)c->layer_norm_eps;
    const int t = cache->t;
    if (t >= cache->cap || t + 1 > d->cap || e->S < 1 || e->S > d->cap || token < 0 ||
        token >= m->tgt_vocab.size)
        return TT_EINVAL;

    embed_forward(d->x, m->w.emb_tgt, m->pe, &token, 1, t, D);
    for (int l = 0; l < c->n_decoder_layers; l++) {
        const DecoderLayer *L = &m->w.dec[l];
        float *K = cache->self_k + (size_t)l * NC * D, *V = cache->self_v + (size_t)l * NC * D;
        /* Causal self-attention: the new position's key and value join the cache, and
         * its query sees positions 0..t, which is exactly the causal mask. */
        layernorm_forward(d->h, d->x, L->norm1_w, L->norm1_b, 1, D, eps);
        const MhaWeights *sw = &L->self_attn;
        kernel_matmul_nt(d->q, d->h, sw->w_query, sw->b_query, 1, D, D);
        kernel_matmul_nt(K + (size_t)t * D, d->h, sw->w_key, sw->b_key, 1, D, D);
        kernel_matmul_nt(V + (size_t)t * D, d->h, sw->w_value, sw->b_value, 1, D, D);
        step_attention(d->y, d->ctx, d->self_w + (size_t)l * H * N, (int)N, d->q, K, V, t + 1,
                       sw);
        residual_add(d->x, d->y, D);

        layernorm_forward(d->h, d->x, L->norm2_w, L->norm2_b, 1, D, eps);
        const MhaWeights *cw = &L->cross_attn;
        kernel_matmul_nt(d->q, d->h, cw->w_query, cw->b_query, 1, D, D);
        step_attention(d->y, d->ctx, d->cross_w + (size_t)l * H * N, (int)N, d->q,
                       e->cross_k + (size_t)l * NE * D, e->cross_v + (size_t)l * NE * D, e->S,
                       cw);
        residual_add(d->x, d->y, D);

        layernorm_forward(d->h, d->x, L->norm3_w, L->norm3_b, 1, D, eps);
        ffn_forward(d->y, d->ff, d->h, L->lin1_w, L->lin1_b, L->lin2_w, L->lin2_b, 1, D, c->d_ff);
        residual_add(d->x, d->y, D);
    }
    layernorm_forward(d->h, d->x, m->w.dec_norm_w, m->w.dec_norm_b, 1, D, eps);
    kernel_matmul_nt(d->logits, d->h, m->w.gen_w, m->w.gen_b, 1, D, m->tgt_vocab.size);
    cache->t = t + 1;
    return TT_OK;
}
