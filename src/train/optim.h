/*
 * optim.h — the optimiser's steps over the whole parameter block: zeroing the gradient,
 * its scaling and norm, and AdamW.
 */
#ifndef TOYTRANS_OPTIM_H
#define TOYTRANS_OPTIM_H

#include "base/pool.h"
#include "model/model.h"

#include <stddef.h>

/* The whole-block steps of the optimiser run on the pool over chunks of OPTIM_CHUNK
 * floats fixed by the block's size; a sum over the block adds the chunks' sums in chunk
 * order, so the bits do not depend on the thread count. */
#define OPTIM_CHUNK 16384

/* Chunks of a block of n floats: the size of optim_grads_scale's partial sums. */
int optim_chunks(size_t n);

/* g = 0 over n floats, in chunks shared by the pool's threads (each then holds in its
 * cache a share of what the weight gradients' tasks write next). pool may be NULL. */
void optim_grads_zero(float *g, size_t n, Pool *pool);

/* g = (g + h) · scale over n floats, then h = 0 (h NULL: g *= scale), and returns Σ g²
 * (after scaling) in double: a second gradient block (another part of the batch's)
 * joins the first in the same pass. partial holds optim_chunks(n) doubles of scratch.
 * pool may be NULL. */
double optim_grads_scale(float *g, float *h, size_t n, float scale, double *partial, Pool *pool);

/* AdamW (decoupled weight decay, applied to matrices only: spec cols > 0) with the
 * gradients grads·gscale (gradient clipping's factor, or 1). step counts from 1. m and v
 * have the layout of params. pool may be NULL. */
typedef struct {
    float beta1, beta2, eps, weight_decay;
} AdamConfig;

void optim_adamw_update(float *params, const float *grads, float gscale, float *m, float *v,
                        const ParamSpec *specs, int n_specs, const AdamConfig *c, float lr,
                        long step, Pool *pool);

#endif
