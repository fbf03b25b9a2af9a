/*
 * attention.c — one head over strided views, of which multi-head attention (net.c,
 * transformer.c) is built.
 *
 * Multi-head attention never copies a head out of the projected Q, K, V: a head is a
 * column slice, addressed through an AttnView whose leading dimension is D. The same
 * attention_head_forward serves the teaching variants (selfattn.c), encoder and decoder
 * self-attention (causal or not) and cross-attention.
 */
#include "nn/attention.h"

#include "base/clones.h"
#include "base/kernel.h"
#include "base/status.h"

#include <math.h>
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
