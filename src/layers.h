/*
 * layers.h — the small layers of the encoder-decoder: LayerNorm, the feed-forward block,
 * and the embedding with positional encoding.
 *
 * Rows are positions: N rows of width D (or F). Outputs never alias inputs unless a
 * function says so.
 */
#ifndef TOYTRANS_LAYERS_H
#define TOYTRANS_LAYERS_H

/* LayerNorm over each row: out = (x − mean) / √(var + eps) · w + b, with the biased
 * variance, as torch.nn.LayerNorm.
 * out (N, D), x (N, D), w (D), b (D). */
void layernorm_forward(float *out, const float *x, const float *w, const float *b, int N, int D,
                       float eps);

/* LayerNorm keeping what its backward pass needs: mean (N) and rstd (N) = 1/√(var+eps). */
void layernorm_forward_cache(float *out, float *mean, float *rstd, const float *x, const float *w,
                             const float *b, int N, int D, float eps);

/* Backward of LayerNorm, accumulating: dx += …, dw += Σ dout·x̂, db += Σ dout.
 * dx (N, D), dw (D), db (D), dout (N, D), x (N, D), w (D), mean (N), rstd (N). */
void layernorm_backward(float *dx, float *dw, float *db, const float *dout, const float *x,
                        const float *w, const float *mean, const float *rstd, int N, int D);

/* The two halves of layernorm_backward, for callers that split rows and columns among
 * threads: dx over rows, and dw, db summed over rows in order for each column.
 * layernorm_backward_dx: dx (N, D) += …;  layernorm_backward_params: dw, db (D) += …
 * for the columns k0..k1-1 only. */
void layernorm_backward_dx(float *dx, const float *dout, const float *x, const float *w,
                           const float *mean, const float *rstd, int N, int D);
void layernorm_backward_params(float *dw, float *db, const float *dout, const float *x,
                               const float *mean, const float *rstd, int N, int D, int k0,
                               int k1);

/* The position-wise feed-forward block: out = relu(x·W1ᵀ + b1)·W2ᵀ + b2.
 * out (N, D), hidden (N, F) scratch that keeps relu's output, x (N, D),
 * w1 (F, D), b1 (F), w2 (D, F), b2 (D). */
void ffn_forward(float *out, float *hidden, const float *x, const float *w1, const float *b1,
                 const float *w2, const float *b2, int N, int D, int F);

/* Backward of ffn_forward, accumulating into dx, dw1, db1, dw2, db2.
 * dhidden (N, F) is scratch; hidden (N, F) is relu's output kept by the forward pass. */
void ffn_backward(float *dx, float *dw1, float *db1, float *dw2, float *db2, float *dhidden,
                  const float *dout, const float *x, const float *hidden, const float *w1,
                  const float *w2, int N, int D, int F);

/* Token embeddings scaled by √D plus sinusoidal positions:
 * out[i] = table[ids[i]] · √D + pe[pos0 + i].
 * out (N, D), table (V, D), pe (max_len, D); ids must be in 0..V-1. */
void embed_forward(float *out, const float *table, const float *pe, const int *ids, int N,
                   int pos0, int D);

/* Backward of embed_forward: dtable[ids[i]] += dout[i] · √D (positions have no
 * parameters). dtable (V, D), dout (N, D). */
void embed_backward(float *dtable, const float *dout, const int *ids, int N, int D);

/* x += y, n values. */
void residual_add(float *x, const float *y, int n);

#endif
