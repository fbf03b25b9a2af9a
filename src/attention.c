/*
 * attention.c — one head over strided views, and multi-head attention built from it.
 *
 * Multi-head attention never copies a head out of the projected Q, K, V: a head is a
 * column slice, addressed through an AttnView whose leading dimension is D. The same
 * attention_head_forward serves the teaching variants (selfattn.c), encoder and decoder
 * self-attention (causal or not) and cross-attention.
 */
#include "attention.h"

#include "clones.h"
#include "kernel.h"
#include "status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int attn_view_ok(AttnView view, int width)
{
    return view.data != NULL && view.ld >= width;
}

/* out[c] += Σ_i w[i·ws] · rows[i][c] for c < n, i < m (rows ld apart), the terms added in
 * order of i, each product rounded before it is added (this file is compiled without
 * fused multiply-add). With skip_zero, terms of weight exactly 0 are left out, which
 * changes no sum of finite values. Sixteen columns at a time are kept in a register
 * while the rows pass; written with a running sum in memory, each addition waited for
 * the store of the one before. */
typedef float vf16 __attribute__((vector_size(16 * sizeof(float))));

static inline __attribute__((always_inline)) void add_weighted_rows(float *out, const float *w,
                                                                     int ws, const float *rows,
                                                                     int ld, int m, int n,
                                                                     int skip_zero)
{
    int c = 0;
    for (; c + 16 <= n; c += 16) {
        vf16 acc;
        memcpy(&acc, out + c, sizeof acc);
        for (int i = 0; i < m; i++) {
            const float wi = w[(size_t)i * ws];
            if (skip_zero && wi == 0.0f)
                continue;
            vf16 x;
            memcpy(&x, rows + (size_t)i * ld + c, sizeof x);
            acc += wi * x;
        }
        memcpy(out + c, &acc, sizeof acc);
    }
    for (; c < n; c++) {
        float acc = out[c];
        for (int i = 0; i < m; i++) {
            const float wi = w[(size_t)i * ws];
            if (!(skip_zero && wi == 0.0f))
                acc += wi * rows[(size_t)i * ld + c];
        }
        out[c] = acc;
    }
}

KERNEL_CLONES
int attention_head_forward(float *ctx, int ld_ctx, float *weights, float *scores,
                           AttnView q, AttnView k, AttnView v, const AttnShape *s)
{
    if (!s || !ctx || !weights)
        return TT_EINVAL;
    if (s->Tq < 1 || s->Tk < 1 || s->dk < 1 || s->dv < 1 || ld_ctx < s->dv)
        return TT_EINVAL;
    if (!attn_view_ok(q, s->dk) || !attn_view_ok(k, s->dk) || !attn_view_ok(v, s->dv))
        return TT_EINVAL;
    if (!isfinite(s->scale))
        return TT_EINVAL;
    /* Causal: every query row needs at least one visible key, so position 0 must exist. */
    if (s->causal && (s->q_pos < 0 || s->q_pos >= s->Tk))
        return TT_EINVAL;

    const int Tq = s->Tq, Tk = s->Tk;
    for (int r = 0; r < Tq; r++) {
        const float *qr = q.data + (size_t)r * q.ld;
        float *wr = weights + (size_t)r * Tk;
        /* Keys past the query's own position are masked; -inf becomes exactly 0 in
         * softmax. Positions past Tk do not exist, so the visible range is clamped. */
        int visible = Tk;
        if (s->causal && s->q_pos + r + 1 < Tk)
            visible = s->q_pos + r + 1;
        kernel_dots(wr, qr, k.data, k.ld, Tk, s->dk);
        for (int j = 0; j < Tk; j++) {
            const float dot = wr[j];
            if (scores)
                scores[(size_t)r * Tk + j] = dot;
            wr[j] = j < visible ? dot * s->scale : -INFINITY;
        }
    }
    kernel_softmax_rows(weights, Tq, Tk);

    for (int r = 0; r < Tq; r++) {
        const float *wr = weights + (size_t)r * Tk;
        float *cr = ctx + (size_t)r * ld_ctx;
        memset(cr, 0, sizeof(float) * (size_t)s->dv);
        add_weighted_rows(cr, wr, 1, v.data, v.ld, Tk, s->dv, 0);
    }
    return TT_OK;
}

KERNEL_CLONES
void attention_head_backward(float *dq, int ld_dq, float *dk, int ld_dk, float *dv, int ld_dv,
                             float *dscores, AttnView dctx, const float *weights, AttnView q,
                             AttnView k, AttnView v, const AttnShape *s)
{
    const int Tq = s->Tq, Tk = s->Tk;
    for (int r = 0; r < Tq; r++) {
        const float *g = dctx.data + (size_t)r * dctx.ld;
        const float *p = weights + (size_t)r * Tk;
        float *ds = dscores + (size_t)r * Tk;
        /* dP[r][j] = G[r] · V[j] */
        kernel_dots(ds, g, v.data, v.ld, Tk, s->dv);
        double dot = 0.0;
        for (int j = 0; j < Tk; j++)
            dot += (double)p[j] * ds[j];
        for (int j = 0; j < Tk; j++)
            ds[j] = p[j] * (ds[j] - (float)dot) * s->scale;
        /* dQ[r] += Σ_j dS[r][j] · K[j] */
        add_weighted_rows(dq + (size_t)r * ld_dq, ds, 1, k.data, k.ld, Tk, s->dk, 1);
    }
    /* dK[j] += Σ_r dS[r][j] · Q[r];  dV[j] += Σ_r P[r][j] · G[r]: each a sum over the
     * query rows in order, column j of dS and P read down. */
    for (int j = 0; j < Tk; j++) {
        add_weighted_rows(dk + (size_t)j * ld_dk, dscores + j, Tk, q.data, q.ld, Tq, s->dk, 1);
        add_weighted_rows(dv + (size_t)j * ld_dv, weights + j, Tk, dctx.data, dctx.ld, Tq, s->dv,
                          1);
    }
}

/* ---------------------------------------------------------------------------------------
 * Multi-head attention
 */

int mha_acts_init(MhaActs *acts, int max_tq, int max_tk, int d_model, int n_heads)
{
    if (!acts)
        return TT_EINVAL;
    memset(acts, 0, sizeof *acts);
    if (max_tq < 1 || max_tk < 1 || d_model < 1 || n_heads < 1 || d_model % n_heads != 0)
        return TT_EINVAL;
    acts->max_tq = max_tq;
    acts->max_tk = max_tk;
    acts->d_model = d_model;
    acts->n_heads = n_heads;
    acts->q = malloc(sizeof(float) * (size_t)max_tq * d_model);
    acts->k = malloc(sizeof(float) * (size_t)max_tk * d_model);
    acts->v = malloc(sizeof(float) * (size_t)max_tk * d_model);
    acts->weights = malloc(sizeof(float) * (size_t)n_heads * max_tq * max_tk);
    acts->ctx = malloc(sizeof(float) * (size_t)max_tq * d_model);
    if (!acts->q || !acts->k || !acts->v || !acts->weights || !acts->ctx) {
        mha_acts_free(acts);
        return TT_ENOMEM;
    }
    return TT_OK;
}

void mha_acts_free(MhaActs *acts)
{
    if (!acts)
        return;
    /* Reverse order of allocation. */
    free(acts->ctx);
    free(acts->weights);
    free(acts->v);
    free(acts->k);
    free(acts->q);
    memset(acts, 0, sizeof *acts);
}

int mha_forward(float *out, MhaActs *acts, const MhaWeights *w,
                const float *xq, int Tq, const float *xkv, int Tk, int causal)
{
    if (!out || !acts || !w || !xq || !xkv)
        return TT_EINVAL;
    const int D = w->d_model, H = w->n_heads;
    if (D < 1 || H < 1 || D % H != 0 || !w->w_query || !w->w_key || !w->w_value || !w->w_out)
        return TT_EINVAL;
    if (acts->d_model != D || acts->n_heads != H || Tq < 1 || Tk < 1 || Tq > acts->max_tq ||
        Tk > acts->max_tk)
        return TT_EINVAL;
    const int Dh = D / H;

    kernel_matmul_nt(acts->q, xq, w->w_query, w->b_query, Tq, D, D);
    kernel_matmul_nt(acts->k, xkv, w->w_key, w->b_key, Tk, D, D);
    kernel_matmul_nt(acts->v, xkv, w->w_value, w->b_value, Tk, D, D);

    AttnShape shape = {
        .Tq = Tq, .Tk = Tk, .dk = Dh, .dv = Dh,
        .scale = 1.0f / sqrtf((float)Dh), .causal = causal, .q_pos = 0,
    };
    for (int h = 0; h < H; h++) {
        const size_t col = (size_t)h * Dh;
        AttnView qh = {acts->q + col, D}, kh = {acts->k + col, D}, vh = {acts->v + col, D};
        float *wh = acts->weights + (size_t)h * Tq * Tk;
        int rc = attention_head_forward(acts->ctx + col, D, wh, NULL, qh, kh, vh, &shape);
        if (rc != TT_OK)
            return rc;
    }
    kernel_matmul_nt(out, acts->ctx, w->w_out, w->b_out, Tq, D, D);
    return TT_OK;
}

int mha_scratch_init(MhaScratch *s, int max_tq, int max_tk, int d_model)
{
    memset(s, 0, sizeof *s);
    if (max_tq < 1 || max_tk < 1 || d_model < 1)
        return TT_EINVAL;
    s->dq = malloc(sizeof(float) * (size_t)max_tq * d_model);
    s->dk = malloc(sizeof(float) * (size_t)max_tk * d_model);
    s->dv = malloc(sizeof(float) * (size_t)max_tk * d_model);
    s->dctx = malloc(sizeof(float) * (size_t)max_tq * d_model);
    s->dscores = malloc(sizeof(float) * (size_t)max_tq * max_tk);
    if (!s->dq || !s->dk || !s->dv || !s->dctx || !s->dscores) {
        mha_scratch_free(s);
        return TT_ENOMEM;
    }
    return TT_OK;
}

void mha_scratch_free(MhaScratch *s)
{
    if (!s)
        return;
    free(s->dscores);
    free(s->dctx);
    free(s->dv);
    free(s->dk);
    free(s->dq);
    memset(s, 0, sizeof *s);
}

void mha_backward(float *dxq, float *dxkv, const MhaGrads *g, MhaScratch *s, const float *dout,
                  const MhaActs *acts, const MhaWeights *w, const float *xq, int Tq,
                  const float *xkv, int Tk, int causal)
{
    const int D = w->d_model, H = w->n_heads, Dh = D / H;
    /* out = ctx · W_outᵀ + b_out */
    memset(s->dctx, 0, sizeof(float) * (size_t)Tq * D);
    kernel_matmul_nt_backward(s->dctx, g->w_out, g->b_out, dout, acts->ctx, w->w_out, Tq, D, D);

    memset(s->dq, 0, sizeof(float) * (size_t)Tq * D);
    memset(s->dk, 0, sizeof(float) * (size_t)Tk * D);
    memset(s->dv, 0, sizeof(float) * (size_t)Tk * D);
    AttnShape shape = {.Tq = Tq, .Tk = Tk, .dk = Dh, .dv = Dh, .scale = 1.0f / sqrtf((float)Dh),
                       .causal = causal};
    for (int h = 0; h < H; h++) {
        const size_t col = (size_t)h * Dh;
        AttnView qh = {acts->q + col, D}, kh = {acts->k + col, D}, vh = {acts->v + col, D};
        AttnView gh = {s->dctx + col, D};
        attention_head_backward(s->dq + col, D, s->dk + col, D, s->dv + col, D, s->dscores, gh,
                                acts->weights + (size_t)h * Tq * Tk, qh, kh, vh, &shape);
    }
    kernel_matmul_nt_backward(dxq, g->w_query, g->b_query, s->dq, xq, w->w_query, Tq, D, D);
    kernel_matmul_nt_backward(dxkv, g->w_key, g->b_key, s->dk, xkv, w->w_key, Tk, D, D);
    kernel_matmul_nt_backward(dxkv, g->w_value, g->b_value, s->dv, xkv, w->w_value, Tk, D, D);
}
