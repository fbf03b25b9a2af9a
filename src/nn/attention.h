/*
 * attention.h — scaled dot-product attention, one head. The multi-head layer is net.c's
 * net_mha_forward/net_mha_backward (over a batch, what training and translation run, the
 * decoder's cached steps included), built from attention_head_forward; its weights are
 * model.h's MhaWeights.
 *
 * The computation, exactly as the classic walk-through teaches it:
 *     scores  = Q · Kᵀ                         (Tq, Tk)
 *     weights = softmax(scale · scores) per row (scale = 1/√d_k, d_k = keys' last dim)
 *     context = weights · V                     (Tq, dv)
 * Self-attention takes Q, K and V from one sequence; cross-attention takes Q from one
 * sequence and K, V from another. A causal mask (decoder self-attention) lets the query
 * at position p see only keys 0..p: the masked weights are exactly zero.
 *
 * Letters: Tq query positions, Tk key/value positions, D model width, H heads,
 * Dh = D / H the width of one head.
 *
 * Every call hands back the attention weights it used, so that the commands that show
 * attention show the very numbers of the forward pass.
 */
#ifndef TOYTRANS_ATTENTION_H
#define TOYTRANS_ATTENTION_H

/* A strided row-major view: row r of the matrix starts at data + r * ld. Heads are
 * column slices of a (T, D) matrix, so a head's view has ld = D. */
typedef struct {
    const float *data;
    int ld;
} AttnView;

/* The geometry of one attention call. */
typedef struct {
    int Tq;      /* query rows, >= 1 */
    int Tk;      /* key/value rows, >= 1 */
    int dk;      /* query/key width, >= 1 */
    int dv;      /* value width, >= 1 */
    float scale; /* multiplies the scores before softmax: 1/√dk, or 1 for none */
    int causal;  /* 1: query row r (at position q_pos + r) sees keys 0..q_pos + r only */
    int q_pos;   /* position of query row 0 when causal; ignored otherwise */
} AttnShape;

/* One head. ctx row r = Σ_j weights[r][j] · v row j.
 *   ctx     (Tq, dv) with leading dimension ld_ctx
 *   weights (Tq, Tk) contiguous: the softmax output, masked entries exactly 0
 *   scores  (Tq, Tk) contiguous, the unscaled Q·Kᵀ before masking, or NULL
 *   q (Tq, dk), k (Tk, dk), v (Tk, dv) as views
 * Returns TT_EINVAL (and writes nothing) when a dimension is not positive, a pointer is
 * NULL, a leading dimension is narrower than its row, or the causal mask would leave a
 * query row with no key. */
int attention_head_forward(float *ctx, int ld_ctx, float *weights, float *scores,
                           AttnView q, AttnView k, AttnView v, const AttnShape *shape);

/* Backward of attention_head_forward, accumulating dq, dk, dv (writable views with the
 * given leading dimensions). weights (Tq, Tk) are the forward pass's; dscores (Tq, Tk)
 * is scratch. With P the weights and G = dctx:
 *   dV += Pᵀ·G;   dP = G·Vᵀ;   dS = P ⊙ (dP − rowsum(P ⊙ dP));
 *   dQ += scale · dS·K;   dK += scale · dSᵀ·Q.
 * Masked positions have P = 0 and so receive nothing. */
void attention_head_backward(float *dq, int ld_dq, float *dk, int ld_dk, float *dv, int ld_dv,
                             float *dscores, AttnView dctx, const float *weights, AttnView q,
                             AttnView k, AttnView v, const AttnShape *shape);

#endif
