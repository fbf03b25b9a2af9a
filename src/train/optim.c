/*
 * optim.c — the optimiser's steps over the whole parameter block, on the pool in chunks
 * fixed by the block's size (optim.h).
 */
#include "train/optim.h"

#include "base/kernel.h"

#include <math.h>
#include <string.h>

int optim_chunks(size_t n)
{
    return (int)((n + OPTIM_CHUNK - 1) / OPTIM_CHUNK);
}

/* Chunk task of a block of n floats: its first float and one past its last. */
static size_t chunk_start(int task)
{
    return (size_t)task * OPTIM_CHUNK;
}

static size_t chunk_end(int task, size_t n)
{
    const size_t i0 = chunk_start(task);
    return n - i0 < OPTIM_CHUNK ? n : i0 + OPTIM_CHUNK;
}

typedef struct {
    float *g, *h;
    size_t n;
    float scale;
    double *partial;
} ScaleJob;

static void scale_task(void *ctx, int task)
{
    const ScaleJob *j = ctx;
    const size_t i0 = chunk_start(task), i1 = chunk_end(task, j->n);
    j->partial[task] = kernel_scale_sumsq(j->g + i0, j->h ? j->h + i0 : NULL, i1 - i0, j->scale);
}

static void zero_task(void *ctx, int task)
{
    const ScaleJob *j = ctx;
    const size_t i0 = chunk_start(task), i1 = chunk_end(task, j->n);
    memset(j->g + i0, 0, sizeof(float) * (i1 - i0));
}

void optim_grads_zero(float *g, size_t n, Pool *pool)
{
    ScaleJob j = {g, NULL, n, 0.0f, NULL};
    pool_run(pool, optim_chunks(n), zero_task, &j);
}

double optim_grads_scale(float *g, float *h, size_t n, float scale, double *partial, Pool *pool)
{
    ScaleJob j = {g, h, n, scale, partial};
    const int chunks = optim_chunks(n);
    pool_run(pool, chunks, scale_task, &j);
    double s = 0.0;
    for (int k = 0; k < chunks; k++)
        s += partial[k];
    return s;
}

typedef struct {
    float *params, *m, *v;
    const float *grads;
    const ParamSpec *specs;
    int n_specs;
    size_t n;
    const AdamConfig *c;
    float gscale, lr, ic1, ic2;
} AdamJob;

/* The chunk's floats, tensor by tensor (the weight decay is a tensor's). */
static void adamw_task(void *ctx, int task)
{
    const AdamJob *j = ctx;
    const size_t c0 = chunk_start(task), c1 = chunk_end(task, j->n);
    for (int s = 0; s < j->n_specs; s++) {
        const ParamSpec *p = &j->specs[s];
        const size_t n = (size_t)p->rows * (size_t)(p->cols ? p->cols : 1);
        const size_t a = p->offset > c0 ? p->offset : c0;
        const size_t b = p->offset + n < c1 ? p->offset + n : c1;
        if (a >= b)
            continue;
        const float decay = p->cols > 0 ? j->c->weight_decay : 0.0f;
        kernel_adamw(j->params + a, j->grads + a, j->gscale, j->m + a, j->v + a, b - a,
                     j->c->beta1, j->c->beta2, j->ic1, j->ic2, j->c->eps, j->lr, decay);
    }
}

void optim_adamw_update(float *params, const float *grads, float gscale, float *m, float *v,
                        const ParamSpec *specs, int n_specs, const AdamConfig *c, float lr,
                        long step, Pool *pool)
{
    /* The bias corrections in double, once per step; the update itself in float, as
     * PyTorch's AdamW computes it (kernel_adamw). Each float's update reads only its
     * own state, so the chunks may run in any order. */
    const float ic1 = (float)(1.0 / (1.0 - pow(c->beta1, (double)step)));
    const float ic2 = (float)(1.0 / (1.0 - pow(c->beta2, (double)step)));
    size_t n = 0;
    for (int s = 0; s < n_specs; s++) {
        const size_t end = specs[s].offset +
                           (size_t)specs[s].rows * (size_t)(specs[s].cols ? specs[s].cols : 1);
        n = end > n ? end : n;
    }
    AdamJob j = {params, m, v, grads, specs, n_specs, n, c, gscale, lr, ic1, ic2};
    pool_run(pool, optim_chunks(n), adamw_task, &j);
}
