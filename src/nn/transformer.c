/*
 * transformer.c — translation's encoder batch and the decoder's cached steps, both
 * through net.c's one encoder and one decoder.
 *
 * Pre-LayerNorm blocks, as torch.nn.Transformer(norm_first=True):
 *   encoder layer:  x += SelfAttn(LN1(x));            x += FFN(LN2(x))
 *   decoder layer:  x += CausalSelfAttn(LN1(x));      x += CrossAttn(LN2(x), memory);
 *                   x += FFN(LN3(x))
 *   memory = encoder.norm(x_enc);  logits = decoder.norm(x_dec)·Wgenᵀ + bgen
 * See docs/model.md for the whole computation.
 */
#include "nn/transformer.h"

#include "base/layout.h"
#include "base/status.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Translation's context for the layers: no dropout, row-stable products. */
static NetCtx translation_ctx(const Model *m, const float *params_packed, Pool *pool)
{
    const ModelConfig *c = &m->config;
    return (NetCtx){.D = c->d_model, .H = c->n_heads, .F = c->d_ff, .V = m->tgt_vocab.size,
                    .eps = (float)c->layer_norm_eps, .pool = pool, .dropout = 0.0f,
                    .rng = NULL, .row_stable = 1, .params = m->params,
                    .params_packed = params_packed, .n_params = m->n_params};
}

/* ---------------------------------------------------------------------------------------
 * Encoder
 */

void transformer_encoder_free(Encoder *e)
{
    if (!e)
        return;
    net_acts_free(&e->acts);
    free(e->mem);
    memset(e, 0, sizeof *e);
}

int transformer_encoder_init(Encoder *e, const Model *m)
{
    memset(e, 0, sizeof *e);
    e->model = m;
    return TT_OK;
}

/* Positions buffers are first made for, whatever the first sentence needs: more than a
 * sentence of the corpus ever takes. */
#define FIRST_LEN 64

/* The length buffers are made for when need exceeds have: FIRST_LEN the first time, then
 * twice have, at least need, at most limit (the model's max_len). A fresh block costs
 * pages only where a pass writes; growing from the first sentence's length up the lengths
 * a sorted block asks for in turn wrote the shorter lengths' pages again in every larger
 * block (a third of the page faults of translating data/test.tsv in batches of 32). A
 * model of max_len 4096 still gets buffers for its sentences, not for 4096. */
static int grown_len(int need, int have, int limit)
{
    if (need <= have)
        return have;
    int len = have > 0 ? 2 * have : FIRST_LEN;
    if (len < need)
        len = need;
    return len < limit ? len : limit;
}

/* Grows e's buffers to hold B sentences of S positions: the layers' activations for a
 * chunk of them, and when that is fewer than B, the memory and attention weights of the
 * whole batch; on failure e is as it was. */
static int encoder_reserve(Encoder *e, int B, int S)
{
    const Model *m = e->model;
    const ModelConfig *c = &m->config;
    if (B <= e->cap_B && S <= e->cap_S)
        return TT_OK;
    if (B < e->cap_B)
        B = e->cap_B;
    S = grown_len(S, e->cap_S, c->max_len);
    const size_t L = (size_t)c->n_decoder_layers, BS = (size_t)B * S, D = (size_t)c->d_model;
    const size_t Le = (size_t)c->n_encoder_layers, H = (size_t)c->n_heads;
    const int per_chunk = ENCODER_CHUNK_POSITIONS / S;
    Encoder g = {.model = m, .cap_B = B, .cap_S = S, .params_packed = e->params_packed,
                 .chunk = per_chunk < 1 ? 1 : per_chunk < B ? per_chunk : B};
    const int chunked = g.chunk < B;
    /* The whole batch's attention weights per layer, bounded as NetActs bounds its. */
    if (chunked && (long long)B * S * S > CONFIG_MAX_ATTENTION_FLOATS / (long long)H)
        return TT_EINVAL;
    /* The buffers, one table: whole and scratch only for a batch taken in chunks. */
    LayoutRow bufs[4 + 2 * CONFIG_MAX_LAYERS] = {
        {.i = &g.len, .count = (size_t)B},
        {.i = &g.pad_ids, .count = BS},
        {.f = &g.whole, .count = chunked ? BS * D + Le * BS * H * (size_t)S : 0},
        {.f = &g.scratch, .count = chunked ? (size_t)g.chunk * S * D : 0},
    };
    int n = 4;
    for (size_t l = 0; l < L; l++) {
        bufs[n++] = (LayoutRow){.f = &g.cross_k[l], .count = BS * D};
        bufs[n++] = (LayoutRow){.f = &g.cross_v[l], .count = BS * D};
    }
    int rc = layout_alloc(&g.mem, bufs, n);
    if (rc == TT_OK)
        rc = net_acts_init(&g.acts, m, g.chunk, S, 0, 0);
    if (rc != TT_OK) {
        transformer_encoder_free(&g);
        return rc;
    }
    transformer_encoder_free(e);
    *e = g;
    return TT_OK;
}

/* A chunk of a batch: sentences i0..i0+k-1, its rows Sc apart, the batch's S apart. */
typedef struct {
    int i0, k, Sc, S, D;
    const int *len; /* (the batch's) each sentence's positions */
} ChunkRows;

/* Each sentence's len rows of D floats from a chunk's layout (src) to the batch's (dst). */
static void chunk_rows_to_batch(float *dst, const float *src, const ChunkRows *cr)
{
    for (int j = 0; j < cr->k; j++)
        memcpy(dst + (size_t)(cr->i0 + j) * cr->S * cr->D, src + (size_t)j * cr->Sc * cr->D,
               sizeof(float) * (size_t)cr->len[cr->i0 + j] * cr->D);
}

/* The chunk's memory (in e->acts) projected by w, b into dst, the batch's layout: straight
 * there when the chunk's rows are the batch's (Sc = S), else through e->scratch. */
static void project_memory(Encoder *e, const ChunkRows *cr, float *dst, const float *w,
                           const float *b, const NetCtx *ctx)
{
    const int direct = cr->Sc == cr->S, D = cr->D;
    net_linear_forward(direct ? dst + (size_t)cr->i0 * cr->S * D : e->scratch, e->acts.memory,
                       w, b, cr->k * cr->Sc, D, D, ctx);
    if (!direct)
        chunk_rows_to_batch(dst, e->scratch, cr);
}

/* Where the chunk that starts at sentence i0 of n ends: after at most `most` sentences,
 * and before the first of another length. Sentences sorted by length then pad almost
 * nothing: data/test.tsv in batches of 64 ran 15,074 positions for its 14,231 (5.9 %
 * padding) in chunks of 25, and 14,251 in chunks cut where the length changes (134
 * chunks instead of 85; 2.6 % less time for the whole file on one thread). */
static int chunk_end(const int *len, int i0, int n, int most)
{
    int end = i0 + 1;
    while (end < n && end - i0 < most && len[end] == len[i0])
        end++;
    return end;
}

int transformer_encode_batch(Encoder *e, const int *const *ids, const int *len, int n,
                             Pool *pool)
{
    const Model *m = e->model;
    const ModelConfig *c = &m->config;
    const int D = c->d_model, H = c->n_heads, Le = c->n_encoder_layers;
    e->B = 0;
    if (!ids || !len || n < 1)
        return TT_EINVAL;
    int S = 0;
    for (int i = 0; i < n; i++) {
        if (!ids[i] || len[i] < 1 || len[i] > c->max_len)
            return TT_EINVAL;
        for (int j = 0; j < len[i]; j++)
            if (ids[i][j] < 0 || ids[i][j] >= m->src_vocab.size)
                return TT_EINVAL;
        if (len[i] > S)
            S = len[i];
    }
    int rc = encoder_reserve(e, n, S);
    if (rc != TT_OK)
        return rc;
    memcpy(e->len, len, sizeof(int) * (size_t)n);
    const NetCtx ctx = translation_ctx(m, e->params_packed, pool);
    /* In several chunks, each chunk's memory and weights are kept in whole. */
    const int chunked = n > e->chunk;
    float *memory = chunked ? e->whole : NULL;
    float *att = chunked ? e->whole + (size_t)e->cap_B * e->cap_S * D : NULL;
    const size_t att_layer = (size_t)e->cap_B * H * e->cap_S * e->cap_S;
    for (int i0 = 0, k = 0; i0 < n; i0 += k) {
        k = chunked ? chunk_end(len, i0, n, e->chunk) - i0 : n;
        int Sc = 0;
        for (int j = 0; j < k; j++)
            Sc = len[i0 + j] > Sc ? len[i0 + j] : Sc;
        for (int j = 0; j < k; j++) {
            int *row = e->pad_ids + (size_t)j * Sc;
            memcpy(row, ids[i0 + j], sizeof(int) * (size_t)len[i0 + j]);
            for (int p = len[i0 + j]; p < Sc; p++)
                row[p] = VOCAB_PAD;
        }
        const NetBatch nb = {.B = k, .S = Sc, .T = 0, .src_len = len + i0, .tgt_len = NULL};
        net_encoder_forward(&e->acts, m, e->pad_ids, &nb, &ctx);
        /* Every step of every row attends to the same projected memory: project it once,
         * straight into place when the chunk's rows are the batch's. */
        const ChunkRows cr = {.i0 = i0, .k = k, .Sc = Sc, .S = S, .D = D, .len = len};
        for (int l = 0; l < c->n_decoder_layers; l++) {
            const MhaWeights *cw = &m->w.dec[l].cross_attn;
            project_memory(e, &cr, e->cross_k[l], cw->w_key, cw->b_key, &ctx);
            project_memory(e, &cr, e->cross_v[l], cw->w_value, cw->b_value, &ctx);
        }
        if (!chunked)
            continue;
        chunk_rows_to_batch(memory, e->acts.memory, &cr);
        for (int j = 0; j < k; j++)
            for (int l = 0; l < Le; l++)
                for (int h = 0; h < H; h++)
                    memcpy(att + l * att_layer + ((size_t)(i0 + j) * H + h) * S * S,
                           e->acts.enc[l].att + ((size_t)j * H + h) * Sc * Sc,
                           sizeof(float) * (size_t)len[i0 + j] * len[i0 + j]);
    }
    e->memory = chunked ? memory : e->acts.memory;
    for (int l = 0; l < Le; l++)
        e->att[l] = chunked ? att + l * att_layer : e->acts.enc[l].att;
    e->B = n;
    e->S = S;
    return TT_OK;
}

int transformer_encode(Encoder *e, const int *ids, int S)
{
    return transformer_encode_batch(e, &ids, &S, 1, NULL);
}

const float *transformer_encoder_attention(const Encoder *e, int i, int l, int h)
{
    assert(i >= 0 && i < e->B && l >= 0 && l < e->model->config.n_encoder_layers);
    const int H = e->model->config.n_heads, S = e->S;
    return e->att[l] + ((size_t)i * H + h) * S * S;
}

/* ---------------------------------------------------------------------------------------
 * Decoder: cached steps
 */

int transformer_state_init(DecoderState *d, const Model *m)
{
    memset(d, 0, sizeof *d);
    d->model = m;
    return TT_OK;
}

void transformer_state_free(DecoderState *d)
{
    if (!d)
        return;
    net_acts_free(&d->acts);
    free(d->mem);
    memset(d, 0, sizeof *d);
}

int transformer_state_reserve(DecoderState *d, int rows, int slots, int cap, int S)
{
    const Model *m = d->model;
    const ModelConfig *c = &m->config;
    if (rows < 1 || slots < 1 || cap < 1 || S < 1 || cap > c->max_len || S > c->max_len)
        return TT_EINVAL;
    if (rows <= d->rows && slots <= d->slots && cap <= d->cap && S <= d->S)
        return TT_OK;
    if (rows < d->rows)
        rows = d->rows;
    if (slots < d->slots)
        slots = d->slots;
    cap = grown_len(cap, d->cap, c->max_len);
    S = grown_len(S, d->S, c->max_len);
    const size_t L = (size_t)c->n_decoder_layers, D = (size_t)c->d_model, H = (size_t)c->n_heads;
    DecoderState g = {.model = m, .rows = rows, .slots = slots, .cap = cap, .S = S,
                      .params_packed = d->params_packed};
    const size_t kv = L * (size_t)slots * cap * D, R = (size_t)rows;
    const LayoutRow bufs[] = {
        {.f = &g.k, .count = kv},
        {.f = &g.v, .count = kv},
        {.f = &g.self_att, .count = L * R * H * (size_t)cap},
        {.f = &g.cross_att, .count = L * R * H * (size_t)S},
        {.i = &g.self_len, .count = R},
        {.i = &g.cross_len, .count = R},
        {.i = &g.step_len, .count = R},
    };
    int rc = layout_alloc(&g.mem, bufs, (int)(sizeof bufs / sizeof bufs[0]));
    if (rc == TT_OK)
        rc = net_acts_init(&g.acts, m, rows, 0, 1, 0);
    if (rc != TT_OK) {
        transformer_state_free(&g);
        return rc;
    }
    for (int b = 0; b < rows; b++)
        g.step_len[b] = 1;
    transformer_state_free(d);
    *d = g;
    return TT_OK;
}

int transformer_step(DecoderState *d, const Encoder *e, const int *tokens, const int *slot,
                     const int *sent, int B, int t, Pool *pool)
{
    const Model *m = d->model;
    const ModelConfig *c = &m->config;
    if (B < 1 || B > d->rows || t < 0 || t >= d->cap || e->S > d->S)
        return TT_EINVAL;
    for (int b = 0; b < B; b++) {
        if (tokens[b] < 0 || tokens[b] >= m->tgt_vocab.size || slot[b] < 0 ||
            slot[b] >= d->slots || sent[b] < 0 || sent[b] >= e->B)
            return TT_EINVAL;
        d->self_len[b] = t + 1;
        d->cross_len[b] = e->len[sent[b]];
    }
    const size_t L = (size_t)c->n_decoder_layers, D = (size_t)c->d_model, H = (size_t)c->n_heads;
    NetDecCache cache = {.t = t, .cap = d->cap, .S = e->S, .slot = slot, .sent = sent,
                         .self_len = d->self_len, .cross_len = d->cross_len};
    for (size_t l = 0; l < L; l++) {
        cache.self_k[l] = d->k + l * d->slots * d->cap * D;
        cache.self_v[l] = d->v + l * d->slots * d->cap * D;
        cache.cross_k[l] = e->cross_k[l];
        cache.cross_v[l] = e->cross_v[l];
        cache.self_att[l] = d->self_att + l * d->rows * H * d->cap;
        /* Rows of S weights, the batch's S: transformer_state_cross reads them so. */
        cache.cross_att[l] = d->cross_att + l * d->rows * H * d->S;
    }
    /* Every row has one position (step_len holds ones). */
    const NetBatch nb = {.B = B, .S = e->S, .T = 1, .src_len = NULL, .tgt_len = d->step_len};
    const NetCtx ctx = translation_ctx(m, d->params_packed, pool);
    net_decoder_forward(&d->acts, m, tokens, &nb, &cache, &ctx);
    d->S_step = e->S;
    return TT_OK;
}

const float *transformer_state_logits(const DecoderState *d, int b)
{
    assert(b >= 0 && b < d->rows);
    return d->acts.logits + (size_t)b * d->model->tgt_vocab.size;
}

const float *transformer_state_self(const DecoderState *d, int l, int b, int h)
{
    const size_t H = (size_t)d->model->config.n_heads;
    return d->self_att + (((size_t)l * d->rows + b) * H + h) * d->cap;
}

const float *transformer_state_cross(const DecoderState *d, int l, int b, int h)
{
    const size_t H = (size_t)d->model->config.n_heads;
    return d->cross_att + (size_t)l * d->rows * H * d->S + ((size_t)b * H + h) * d->S_step;
}

void transformer_state_copy_slot(DecoderState *d, int dst, int src, int n)
{
    const ModelConfig *c = &d->model->config;
    const size_t D = (size_t)c->d_model, N = (size_t)d->cap;
    assert(dst >= 0 && dst < d->slots && src >= 0 && src < d->slots && n >= 0 && n <= d->cap);
    if (dst == src || n == 0)
        return;
    for (size_t l = 0; l < (size_t)c->n_decoder_layers; l++) {
        const size_t base = l * d->slots * N * D;
        memcpy(d->k + base + dst * N * D, d->k + base + src * N * D, sizeof(float) * n * D);
        memcpy(d->v + base + dst * N * D, d->v + base + src * N * D, sizeof(float) * n * D);
    }
}
