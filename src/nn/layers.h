/*
 * layers.h — the small layers of the encoder-decoder: LayerNorm and the embedding with
 * positional encoding, for one sequence of rows, which net.c runs; the backward passes
 * training runs are net.c's, but for LayerNorm's two halves, which net.c splits among
 * threads (tests/test_grad.c holds them to central differences).
 *
 * Rows are positions: N rows of width D (or F). Outputs never alias inputs unless a
 * function says so.
 */
#ifndef TOYTRANS_LAYERS_H
#define TOYTRANS_LAYERS_H

/* LayerNorm over each row: out = (x − mean) / √(var + eps) · w + b, with the biased
 * variance, as torch.nn.LayerNorm.
 * out (N, D), x (N, D), w (D), b (D). */
void layers_norm_forward(float *out, const float *x, const float *w, const float *b, int N, int D,
                         float eps);

/* LayerNorm keeping what its backward pass needs: mean (N) and rstd (N) = 1/√(var+eps). */
void layers_norm_forward_cache(float *out, float *mean, float *rstd, const float *x, const float *w,
                               const float *b, int N, int D, float eps);

/* Backward of LayerNorm, accumulating, in two halves that threads split by rows and by
 * columns: layers_norm_backward_dx: dx (N, D) += …; layers_norm_backward_params:
 * dw += Σ dout·x̂, db += Σ dout (D), summed over the rows in order, for the columns
 * k0..k1-1 only.
 * dout (N, D), x (N, D), w (D), mean (N), rstd (N). */
void layers_norm_backward_dx(float *dx, const float *dout, const float *x, const float *w,
                             const float *mean, const float *rstd, int N, int D);
void layers_norm_backward_params(float *dw, float *db, const float *dout, const float *x,
                                 const float *mean, const float *rstd, int N, int D, int k0,
                                 int k1);

/* Token embeddings scaled by √D plus sinusoidal positions:
 * out[i] = table[ids[i]] · √D + pe[pos0 + i].
 * out (N, D), table (V, D), pe (max_len, D); ids must be in 0..V-1. */
void layers_embed_forward(float *out, const float *table, const float *pe, const int *ids, int N,
                          int pos0, int D);

/* x += y, n values. */
void layers_residual_add(float *x, const float *y, int n);

#endif
