/*
 * net.c — the batched layers: Linear products split into fixed tasks, attention per
 * sentence and head, LayerNorm by rows and by columns, the loss by sentences.
 *
 * Every parallel loop here has tasks fixed by the batch's shape; see net.h and pool.h for
 * why that makes the results independent of the thread count.
 */
#include "nn/net.h"

#include "base/kernel.h"
#include "base/layout.h"
#include "base/status.h"
#include "model/config.h"
#include "nn/attention.h"
#include "nn/layers.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* Rows per task of a Linear layer's forward pass and of its dx, and rows of a weight
 * gradient per task: multiples of the kernel tile's 6 rows (kernel.c), so that no task
 * ends in a short tile, and enough rows to pay for the packed panel of a·bᵀ; small
 * enough that a batch of 32 short sentences still makes several tasks to share. 32 and
 * 16 (a short tile each) made a training step 10 % slower. */
#define ROWS_PER_TASK 48
#define DW_ROWS_PER_TASK 24

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

/* ---------------------------------------------------------------------------------------
 * The activation table
 */

int net_acts_layout(NetActs *a, const Model *m, int B, int S, int T, int dropout,
                    NetActSpec *specs, int max)
{
    const ModelConfig *c = &m->config;
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff, H = (size_t)c->n_heads;
    const size_t V = (size_t)m->tgt_vocab.size;
    const size_t BS = (size_t)B * S, BT = (size_t)B * T, R = (size_t)(S > T ? S : T);
    const size_t BR = (size_t)B * R, drop = dropout ? 1 : 0;
    int n = 0;
#define ADD(slot_, rows_, cols_, ...)                                                       \
    do {                                                                                    \
        if (specs && n < max) {                                                             \
            snprintf(specs[n].name, sizeof specs[n].name, __VA_ARGS__);                     \
            specs[n].rows = (rows_);                                                        \
            specs[n].cols = (cols_);                                                        \
            specs[n].slot = &(slot_);                                                       \
        }                                                                                   \
        n++;                                                                                \
    } while (0)
    ADD(a->src_drop, drop * BS, D, "source.dropout");
    for (int l = 0; l < c->n_encoder_layers; l++) {
        EncLayerActs *e = &a->enc[l];
        ADD(e->x, BS, D, "encoder.%d.x", l);
        ADD(e->h1, BS, D, "encoder.%d.h1", l);
        ADD(e->st1, 2, BS, "encoder.%d.st1", l);
        ADD(e->q, BS, D, "encoder.%d.q", l);
        ADD(e->k, BS, D, "encoder.%d.k", l);
        ADD(e->v, BS, D, "encoder.%d.v", l);
        ADD(e->att, (size_t)B * H, (size_t)S * S, "encoder.%d.att", l);
        ADD(e->ctx, BS, D, "encoder.%d.ctx", l);
        ADD(e->mid, BS, D, "encoder.%d.mid", l);
        ADD(e->h2, BS, D, "encoder.%d.h2", l);
        ADD(e->st2, 2, BS, "encoder.%d.st2", l);
        ADD(e->ff, BS, F, "encoder.%d.ff", l);
        ADD(e->drop1, drop * BS, D, "encoder.%d.drop1", l);
        ADD(e->drop2, drop * BS, D, "encoder.%d.drop2", l);
    }
    ADD(a->enc_top, BS, D, "encoder.top");
    ADD(a->memory, BS, D, "encoder.norm");
    ADD(a->mem_st, 2, BS, "encoder.norm.st");
    if (T == 0)
        return n; /* the encoder's forward pass alone */
    ADD(a->tgt_drop, drop * BT, D, "target.dropout");
    for (int l = 0; l < c->n_decoder_layers; l++) {
        DecLayerActs *d = &a->dec[l];
        ADD(d->x, BT, D, "decoder.%d.x", l);
        ADD(d->h1, BT, D, "decoder.%d.h1", l);
        ADD(d->st1, 2, BT, "decoder.%d.st1", l);
        ADD(d->q, BT, D, "decoder.%d.q", l);
        ADD(d->k, BT, D, "decoder.%d.k", l);
        ADD(d->v, BT, D, "decoder.%d.v", l);
        ADD(d->att, (size_t)B * H, (size_t)T * T, "decoder.%d.att", l);
        ADD(d->ctx, BT, D, "decoder.%d.ctx", l);
        ADD(d->mid1, BT, D, "decoder.%d.mid1", l);
        ADD(d->h2, BT, D, "decoder.%d.h2", l);
        ADD(d->st2, 2, BT, "decoder.%d.st2", l);
        ADD(d->cq, BT, D, "decoder.%d.cq", l);
        ADD(d->ck, BS, D, "decoder.%d.ck", l);
        ADD(d->cv, BS, D, "decoder.%d.cv", l);
        ADD(d->catt, (size_t)B * H, (size_t)T * S, "decoder.%d.catt", l);
        ADD(d->cctx, BT, D, "decoder.%d.cctx", l);
        ADD(d->mid2, BT, D, "decoder.%d.mid2", l);
        ADD(d->h3, BT, D, "decoder.%d.h3", l);
        ADD(d->st3, 2, BT, "decoder.%d.st3", l);
        ADD(d->ff, BT, F, "decoder.%d.ff", l);
        ADD(d->drop1, drop * BT, D, "decoder.%d.drop1", l);
        ADD(d->drop2, drop * BT, D, "decoder.%d.drop2", l);
        ADD(d->drop3, drop * BT, D, "decoder.%d.drop3", l);
    }
    ADD(a->dec_top, BT, D, "decoder.top");
    ADD(a->final_h, BT, D, "decoder.norm");
    ADD(a->final_st, 2, BT, "decoder.norm.st");
    ADD(a->logits, BT, V, "generator.logits");
    ADD(a->d_enc, BS, D, "grad.encoder");
    ADD(a->d_dec, BT, D, "grad.decoder");
    ADD(a->d_mem, BS, D, "grad.memory");
    ADD(a->s.dh, BR, D, "scratch.dh");
    ADD(a->s.dy, BR, D, "scratch.dy");
    ADD(a->s.dq, BR, D, "scratch.dq");
    ADD(a->s.dk, BR, D, "scratch.dk");
    ADD(a->s.dv, BR, D, "scratch.dv");
    ADD(a->s.dctx, BR, D, "scratch.dctx");
    ADD(a->s.dff, BR, F, "scratch.dff");
    ADD(a->s.dscores, (size_t)B * H, R * R, "scratch.dscores");
#undef ADD
    return n;
}

void net_acts_free(NetActs *a)
{
    if (!a)
        return;
    free(a->loss);
    free(a->lse);
    free(a->block_mem);
    memset(a, 0, sizeof *a);
}

int net_acts_init(NetActs *a, const Model *m, int B, int S, int T, int dropout)
{
    memset(a, 0, sizeof *a);
    const ModelConfig *c = &m->config;
    if (B < 1 || S < 0 || T < 0 || (S == 0 && T == 0) || S > c->max_len || T > c->max_len ||
        (long long)B * S * (T > S ? T : S) > CONFIG_MAX_ATTENTION_FLOATS / c->n_heads)
        return TT_EINVAL;
    const int n = net_acts_layout(a, m, B, S, T, dropout, NULL, 0);
    NetActSpec *specs = malloc(sizeof *specs * (size_t)n);
    LayoutRow *rows = malloc(sizeof *rows * (size_t)n);
    if (!specs || !rows) {
        free(rows);
        free(specs);
        return TT_ENOMEM;
    }
    net_acts_layout(a, m, B, S, T, dropout, specs, n);
    for (int i = 0; i < n; i++)
        rows[i] = (LayoutRow){.f = specs[i].slot, .count = specs[i].rows * specs[i].cols};
    /* One block (base/layout.h): every slot starts on a cache line of its own, so that
     * tasks writing neighbouring columns of one row (the heads of a sentence) never share
     * a line across slots or within one: a head's columns are D/H floats, a multiple of
     * a line for the shapes that matter (and merely slower otherwise). Zeroed: padding
     * rows that no layer writes hold zeros, not stale bits; by calloc, since zeroing the
     * block by hand was a tenth of translating 600 lines. */
    int rc = layout_alloc(&a->block_mem, rows, n);
    free(rows);
    free(specs);
    a->lse = malloc(sizeof(double) * (size_t)B * (T ? T : 1));
    a->loss = malloc(sizeof(double) * (size_t)B);
    if (rc == TT_OK && (!a->lse || !a->loss))
        rc = TT_ENOMEM;
    if (rc != TT_OK) {
        net_acts_free(a);
        return rc;
    }
    a->B = B;
    a->S = S;
    a->T = T;
    a->n_enc = S ? c->n_encoder_layers : 0;
    a->n_dec = T ? c->n_decoder_layers : 0;
    a->dropout = dropout ? 1 : 0;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Linear layers: y = x · Wᵀ + b over all rows of the batch
 */

/* How a backward pass delivers the gradient by its input: added to what the buffer
 * holds, written over it, or written and then passed back through the ReLU whose output
 * the input was (zero where the input is not positive) in the same task. */
enum { DX_ADD, DX_SET, DX_SET_RELU };

/* How a sublayer ends, x_out = res + sublayer(x) and, when norm_out is set, the next
 * sublayer's LayerNorm of x_out: with dropout off, the sublayer's last Linear layer does
 * this to each block of rows as soon as its product is done (residual_tail otherwise).
 * The same operations as separate loops, so the same bits, without two more loops and
 * their passes over the rows. */
struct Residual {
    const float *res;         /* (M, N) */
    float *norm_out, *norm_st; /* (M, N) and mean, rstd (2·M); NULL: no norm */
    const float *norm_w, *norm_b;
    float eps;
};

typedef struct {
    float *out;         /* forward: (M, N); backward: dx (M, K) or NULL */
    float *dw, *db;     /* backward: (N, K), (N) or NULL */
    const float *x;     /* (M, K) */
    const float *w;     /* (N, K) */
    const float *b;     /* forward: (N) or NULL */
    const float *dy;    /* backward: (M, N) */
    int M, K, N;
    int relu;           /* forward: ReLU after the product */
    int dx_mode;        /* backward: DX_ADD, DX_SET or DX_SET_RELU */
    const Residual *after; /* forward: what follows the product, or NULL */
    int row_stable;     /* forward: NetCtx.row_stable */
    const float *wp;    /* forward, row_stable: w packed (kernel_pack_weight), or NULL */
} LinearJob;

/* Task t of n over M rows starts at row_block_start(M, n, t): M split evenly, each
 * boundary rounded down to whole tiles of the kernel (6 rows). With the last task taking
 * what was left over (78, 78, 78, 56), the thread that took it waited for the other. */
static int row_block_start(int M, int n, int t)
{
    return t >= n ? M : (int)((long)M * t / n) / 6 * 6;
}

/* Tasks of a Linear layer's forward pass over M rows: M / ROWS_PER_TASK, at most four,
 * at least one; one when there is one thread. A task copies the whole weight into the
 * kernel's panels, which pays only over enough rows (kernel.c); four keep two threads
 * evenly busy. Every task has at least 42 rows, so each takes the kernel's panel path
 * (32 rows or more) unless M itself is smaller, as one task of M rows does: the bits do
 * not depend on the split. */
static int forward_tasks(int M, const Pool *pool)
{
    const int n = M / ROWS_PER_TASK;
    return pool_threads(pool) == 1 || n < 1 ? 1 : n > 4 ? 4 : n;
}

/* Row block `task` of n of j's forward pass. */
static void linear_forward_block(const LinearJob *j, int n, int task)
{
    const int i0 = row_block_start(j->M, n, task), m = row_block_start(j->M, n, task + 1) - i0;
    float *out = j->out + (size_t)i0 * j->N;
    if (j->wp)
        kernel_matmul_packed(out, j->x + (size_t)i0 * j->K, j->wp, j->b, m, j->K, j->N);
    else if (j->row_stable)
        kernel_matmul_nt_rows(out, j->x + (size_t)i0 * j->K, j->w, j->b, m, j->K, j->N);
    else
        kernel_matmul_nt(out, j->x + (size_t)i0 * j->K, j->w, j->b, m, j->K, j->N);
    if (j->relu)
        kernel_relu(out, (size_t)m * j->N);
    const Residual *r = j->after;
    if (!r)
        return;
    const size_t o = (size_t)i0 * j->N;
    layers_residual_add(out, r->res + o, m * j->N);
    if (r->norm_out)
        layers_norm_forward_cache(r->norm_out + o, r->norm_st + i0, r->norm_st + j->M + i0, out,
                                  r->norm_w, r->norm_b, m, j->N, r->eps);
}

/* One to three Linear layers over inputs of the same M rows (an attention block's
 * projections), in one loop: one barrier instead of three, and more tasks to share.
 * Task t is row block t / n of layer t % n, so a thread's range holds the same rows of
 * every layer. */
typedef struct {
    LinearJob job[3];
    int n;
    int row_blocks;     /* blocks of the rows per layer (forward_tasks) */
} LinearGroup;

static void linear_group_task(void *ctx, int task)
{
    const LinearGroup *g = ctx;
    linear_forward_block(&g->job[task % g->n], g->row_blocks, task / g->n);
}

static void linear_forward_group(LinearGroup *g, const NetCtx *c)
{
    g->row_blocks = forward_tasks(g->job[0].M, c->pool);
    for (int i = 0; i < g->n; i++) {
        LinearJob *j = &g->job[i];
        j->row_stable = c->row_stable;
        /* Compared as addresses: w need not point into the block. */
        const uintptr_t w = (uintptr_t)j->w, p = (uintptr_t)c->params;
        if (c->row_stable && c->params_packed && w >= p && w < p + sizeof(float) * c->n_params)
            j->wp = c->params_packed + (w - p) / sizeof(float);
    }
    pool_run(c->pool, g->n * g->row_blocks, linear_group_task, g);
}

/* out (M, N) = x (M, K) · wᵀ + b, then ReLU when relu is 1. */
static void linear_forward(float *out, const float *x, const float *w, const float *b, int M,
                           int K, int N, int relu, const Residual *after, const NetCtx *c)
{
    LinearGroup g = {.job = {{.out = out, .x = x, .w = w, .b = b, .M = M, .K = K, .N = N,
                              .relu = relu, .after = after}},
                     .n = 1};
    linear_forward_group(&g, c);
}

void net_linear_forward(float *out, const float *x, const float *w, const float *b, int M,
                        int K, int N, const NetCtx *c)
{
    linear_forward(out, x, w, b, M, K, N, 0, NULL, c);
}

/* A backward loop has two kinds of task: n_rows over blocks of rows (the input gradient)
 * and the rest over blocks of a parameter gradient's rows. They are interleaved evenly,
 * in order within each kind, so that any contiguous range of tasks — what a thread of the
 * pool takes first — holds its share of both: with the row tasks first, one thread took
 * the input gradient and the other the weight gradient, whose costs differ. Returns the
 * kind (1: rows) and the index within it. */
static int split_task(int task, int n_rows, int n_total, int *index)
{
    const long before = (long)task * n_rows / n_total;     /* row tasks before this one */
    const long through = (long)(task + 1) * n_rows / n_total;
    if (through > before) {
        *index = (int)before;
        return 1;
    }
    *index = task - (int)before;
    return 0;
}

/* dx rows of block idx: (+)= dy · w. Written, the rows need no zeroing beforehand (by
 * the caller's thread, which would then pass them to this one's cache); the sums are the
 * same. */
static void linear_dx_block(const LinearJob *j, int idx)
{
    const int n = ceil_div(j->M, ROWS_PER_TASK);
    const int i0 = row_block_start(j->M, n, idx), m = row_block_start(j->M, n, idx + 1) - i0;
    float *dx = j->out + (size_t)i0 * j->K;
    const float *dy = j->dy + (size_t)i0 * j->N;
    if (j->dx_mode == DX_ADD)
        kernel_matmul_acc(dx, dy, j->w, m, j->N, j->K);
    else
        kernel_matmul(dx, dy, j->w, m, j->N, j->K);
    if (j->dx_mode == DX_SET_RELU)
        kernel_relu_backward(dx, j->x + (size_t)i0 * j->K, (size_t)m * j->K);
}

/* dw rows of block idx: += dyᵀ · x over every row of the batch, in order; db likewise. */
static void linear_dw_block(const LinearJob *j, int idx)
{
    const int n0 = idx * DW_ROWS_PER_TASK;
    const int nn = j->N - n0 < DW_ROWS_PER_TASK ? j->N - n0 : DW_ROWS_PER_TASK;
    kernel_matmul_tn_acc(j->dw + (size_t)n0 * j->K, j->dy + n0, j->N, j->x, j->M, nn, j->K);
    if (j->db) {
        /* Summed here and added once, since the neighbouring task's part of db may share
         * its cache line; each sum runs over the rows in order, whatever the threads. */
        float acc[DW_ROWS_PER_TASK] = {0};
        kernel_colsum_acc(acc, j->dy + n0, j->N, j->M, nn);
        for (int n = 0; n < nn; n++)
            j->db[n0 + n] += acc[n];
    }
}

/* The backward passes of one to three Linear layers (an attention block's projections)
 * in one loop, as linear_forward_group: the weight gradients' blocks of every layer, and
 * row blocks of the input gradients, where one task takes the same rows of every layer
 * that writes them, in the layers' order — for self-attention the query's part written,
 * then the key's and the value's added, exactly the sums of three loops in a row. */
typedef struct {
    LinearJob job[3];
    int n;
    int first_of_set[3]; /* jobs first..first+count-1 write the same input gradient rows */
    int count_of_set[3];
    int n_sets;
    int row_tasks, dw_tasks, n_tasks;
} LinearBackGroup;

static void linear_back_group_task(void *ctx, int task)
{
    const LinearBackGroup *g = ctx;
    int idx;
    if (split_task(task, g->row_tasks, g->n_tasks, &idx)) {
        for (int s = 0; s < g->n_sets; s++) {
            const LinearJob *j0 = &g->job[g->first_of_set[s]];
            const int blocks = ceil_div(j0->M, ROWS_PER_TASK);
            if (idx < blocks) {
                for (int k = 0; k < g->count_of_set[s]; k++)
                    linear_dx_block(&g->job[g->first_of_set[s] + k], idx);
                return;
            }
            idx -= blocks;
        }
        return;
    }
    const int per_job = g->dw_tasks / g->n;
    linear_dw_block(&g->job[idx / per_job], idx % per_job);
}

/* Runs g: the jobs' out (NULL: no input gradient wanted), dx_mode, dw, db, dy, x, w, M,
 * K, N set; jobs writing the same input gradient adjacent, in order. All jobs have the
 * same N. */
static void linear_backward_group(LinearBackGroup *g, const NetCtx *c)
{
    g->n_sets = 0;
    g->row_tasks = 0;
    for (int k = 0; k < g->n; k++) {
        if (!g->job[k].out)
            continue;
        if (k > 0 && g->job[k].out == g->job[k - 1].out) {
            g->count_of_set[g->n_sets - 1]++;
            continue;
        }
        g->first_of_set[g->n_sets] = k;
        g->count_of_set[g->n_sets] = 1;
        g->n_sets++;
        g->row_tasks += ceil_div(g->job[k].M, ROWS_PER_TASK);
    }
    g->dw_tasks = g->n * ceil_div(g->job[0].N, DW_ROWS_PER_TASK);
    g->n_tasks = g->row_tasks + g->dw_tasks;
    pool_run(c->pool, g->n_tasks, linear_back_group_task, g);
}

/* The backward pass of linear_forward (without ReLU): dx (M, K) += dy · w, or = with
 * DX_SET (dx NULL: not wanted); dw (N, K) += dyᵀ · x; db (N) += Σ dy. */
static void linear_backward(float *dx, int dx_mode, float *dw, float *db, const float *dy,
                            const float *x, const float *w, int M, int K, int N,
                            const NetCtx *c)
{
    LinearBackGroup g = {.job = {{.out = dx, .dx_mode = dx_mode, .dw = dw, .db = db,
                                  .dy = dy, .x = x, .w = w, .M = M, .K = K, .N = N}},
                         .n = 1};
    linear_backward_group(&g, c);
}

/* ---------------------------------------------------------------------------------------
 * Element-wise steps, by sentence
 */

typedef struct {
    float *out;
    const float *a, *b;
    float *mask;
    const int *len;
    int T, D;
    const NetCtx *c;
} RowJob;

/* out = a + b over sentence task's rows (padding rows too: they stay finite). */
static void add_task(void *ctx, int task)
{
    const RowJob *j = ctx;
    const size_t n = (size_t)j->T * j->D, o = (size_t)task * n;
    for (size_t i = 0; i < n; i++)
        j->out[o + i] = j->a[o + i] + j->b[o + i];
}

static void add_rows(float *out, const float *a, const float *b, int B, int T, const NetCtx *c)
{
    RowJob j = {.out = out, .a = a, .b = b, .T = T, .D = c->D, .c = c};
    pool_run(c->pool, B, add_task, &j);
}

/* Draws sentence task's dropout mask from its own generator (real rows, in order: the
 * same draws whatever the batch) and applies it; padding rows get mask 0. */
static void dropout_task(void *ctx, int task)
{
    const RowJob *j = ctx;
    const float p = j->c->dropout, keep = 1.0f / (1.0f - p);
    Rng *rng = &j->c->rng[task];
    const size_t o = (size_t)task * j->T * j->D, real = (size_t)j->len[task] * j->D;
    for (size_t i = 0; i < (size_t)j->T * j->D; i++) {
        const float m = i < real && rng_uniform(rng, 0.0f, 1.0f) >= p ? keep : 0.0f;
        j->mask[o + i] = m;
        j->out[o + i] *= m;
    }
}

/* y (B·T, D) *= a fresh mask, when dropout is on. */
static int dropout_on(const float *mask, const NetCtx *c)
{
    return c->dropout > 0.0f && mask;
}

static void dropout_forward(float *y, float *mask, const int *len, int B, int T,
                            const NetCtx *c)
{
    if (!dropout_on(mask, c))
        return;
    RowJob j = {.out = y, .mask = mask, .len = len, .T = T, .D = c->D, .c = c};
    pool_run(c->pool, B, dropout_task, &j);
}

static void mul_task(void *ctx, int task)
{
    const RowJob *j = ctx;
    const size_t n = (size_t)j->T * j->D, o = (size_t)task * n;
    for (size_t i = 0; i < n; i++)
        j->out[o + i] = j->a[o + i] * j->b[o + i];
}

/* The gradient through a dropout: out = d ⊙ mask, or d itself without dropout. */
static const float *dropout_backward(float *out, const float *d, const float *mask, int B,
                                     int T, const NetCtx *c)
{
    if (c->dropout <= 0.0f || !mask)
        return d;
    RowJob j = {.out = out, .a = d, .b = mask, .T = T, .D = c->D, .c = c};
    pool_run(c->pool, B, mul_task, &j);
    return out;
}

/* ---------------------------------------------------------------------------------------
 * Embeddings
 */

typedef struct {
    float *out;
    const float *table, *pe, *dout, *mask;
    float *dtable;
    const int *ids, *len;
    int T, D;
} EmbedJob;

static void embed_task(void *ctx, int task)
{
    const EmbedJob *j = ctx;
    const size_t o = (size_t)task * j->T;
    const int n = j->len[task];
    layers_embed_forward(j->out + o * j->D, j->table, j->pe, j->ids + o, n, 0, j->D);
    memset(j->out + (o + (size_t)n) * j->D, 0, sizeof(float) * (size_t)(j->T - n) * j->D);
}

void net_embed_forward(float *out, float *mask, const float *table, const float *pe,
                       const int *ids, const int *len, int B, int T, const NetCtx *c)
{
    EmbedJob j = {.out = out, .table = table, .pe = pe, .ids = ids, .len = len, .T = T,
                  .D = c->D};
    pool_run(c->pool, B, embed_task, &j);
    dropout_forward(out, mask, len, B, T, c);
}

void net_embed_backward(float *dtable, const float *dout, const float *mask, const int *ids,
                        const int *len, int B, int T, const NetCtx *c)
{
    /* Rows of the table are shared by sentences: one pass in row order, on this thread
     * (B·T·D additions). */
    const float scale = sqrtf((float)c->D);
    const int D = c->D;
    const int use_mask = c->dropout > 0.0f && mask;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < len[b]; t++) {
            const size_t r = (size_t)b * T + t;
            float *d = dtable + (size_t)ids[r] * D;
            const float *g = dout + r * D;
            if (use_mask) {
                const float *mk = mask + r * D;
                for (int k = 0; k < D; k++)
                    d[k] += g[k] * mk[k] * scale;
            } else {
                for (int k = 0; k < D; k++)
                    d[k] += g[k] * scale;
            }
        }
}

/* ---------------------------------------------------------------------------------------
 * LayerNorm
 */

typedef struct {
    float *out, *st, *dx, *dw, *db;
    const float *x, *w, *b, *dout, *cst;
    int n, D;
    float eps;
    int row_tasks;      /* backward: tasks of dx (split_task); the rest dw, db's */
    int n_tasks;        /* backward: all tasks */
} NormJob;

static void norm_forward_task(void *ctx, int task)
{
    const NormJob *j = ctx;
    const int i0 = task * ROWS_PER_TASK;
    const int m = j->n - i0 < ROWS_PER_TASK ? j->n - i0 : ROWS_PER_TASK;
    const size_t o = (size_t)i0 * j->D;
    layers_norm_forward_cache(j->out + o, j->st + i0, j->st + j->n + i0, j->x + o, j->w, j->b, m,
                              j->D, j->eps);
}

void net_norm_forward(float *out, float *st, const float *x, const float *w, const float *b,
                      int n, const NetCtx *c)
{
    NormJob j = {.out = out, .st = st, .x = x, .w = w, .b = b, .n = n, .D = c->D,
                 .eps = c->eps};
    pool_run(c->pool, ceil_div(n, ROWS_PER_TASK), norm_forward_task, &j);
}

static void norm_backward_task(void *ctx, int task)
{
    const NormJob *j = ctx;
    int idx;
    if (split_task(task, j->row_tasks, j->n_tasks, &idx)) {
        const int i0 = idx * ROWS_PER_TASK;
        const int m = j->n - i0 < ROWS_PER_TASK ? j->n - i0 : ROWS_PER_TASK;
        const size_t o = (size_t)i0 * j->D;
        layers_norm_backward_dx(j->dx + o, j->dout + o, j->x + o, j->w, j->cst + i0,
                                j->cst + j->n + i0, m, j->D);
        return;
    }
    const int k0 = idx * DW_ROWS_PER_TASK;
    const int k1 = j->D - k0 < DW_ROWS_PER_TASK ? j->D : k0 + DW_ROWS_PER_TASK;
    layers_norm_backward_params(j->dw, j->db, j->dout, j->x, j->cst, j->cst + j->n, j->n, j->D,
                                k0, k1);
}

void net_norm_backward(float *dx, float *dw, float *db, const float *dout, const float *x,
                       const float *st, const float *w, int n, const NetCtx *c)
{
    NormJob j = {.dx = dx, .dw = dw, .db = db, .dout = dout, .x = x, .cst = st, .w = w, .n = n,
                 .D = c->D, .row_tasks = ceil_div(n, ROWS_PER_TASK)};
    j.n_tasks = j.row_tasks + ceil_div(c->D, DW_ROWS_PER_TASK);
    pool_run(c->pool, j.n_tasks, norm_backward_task, &j);
}

/* ---------------------------------------------------------------------------------------
 * Multi-head attention over the batch: one task per sentence and head
 */

typedef struct {
    float *ctx, *att;            /* forward outputs */
    float *dq, *dk, *dv, *dscores; /* backward outputs */
    const float *q, *k, *v, *dctx, *catt;
    const int *lq, *lk;          /* (B) real query and key rows */
    const int *kv_block;         /* (B) each sentence's block of k and v, or NULL: b */
    int Tq, Tk;                  /* padded */
    int D, H, causal;
} AttnJob;

static AttnShape attn_shape(const AttnJob *j, int b)
{
    const int Dh = j->D / j->H;
    return (AttnShape){.Tq = j->lq[b], .Tk = j->lk[b], .dk = Dh, .dv = Dh,
                       .scale = 1.0f / sqrtf((float)Dh), .causal = j->causal, .q_pos = 0};
}

static void attn_forward_task(void *ctx, int task)
{
    const AttnJob *j = ctx;
    const int b = task / j->H, h = task % j->H, D = j->D, Dh = D / j->H;
    const int kb = j->kv_block ? j->kv_block[b] : b;
    const size_t col = (size_t)h * Dh;
    const size_t qo = (size_t)b * j->Tq * D + col, ko = (size_t)kb * j->Tk * D + col;
    const AttnShape shape = attn_shape(j, b);
    AttnView qv = {j->q + qo, D}, kv = {j->k + ko, D}, vv = {j->v + ko, D};
    float *w = j->att + (size_t)task * j->Tq * j->Tk;
    /* The shapes were checked when the batch was built: this cannot fail. */
    (void)attention_head_forward(j->ctx + qo, D, w, NULL, qv, kv, vv, &shape);
    for (int r = shape.Tq; r < j->Tq; r++)
        memset(j->ctx + qo + (size_t)r * D, 0, sizeof(float) * (size_t)Dh);
}

static void attn_backward_task(void *ctx, int task)
{
    const AttnJob *j = ctx;
    const int b = task / j->H, h = task % j->H, D = j->D, Dh = D / j->H;
    const size_t col = (size_t)h * Dh;
    const size_t qo = (size_t)b * j->Tq * D + col, ko = (size_t)b * j->Tk * D + col;
    const AttnShape shape = attn_shape(j, b);
    AttnView qv = {j->q + qo, D}, kv = {j->k + ko, D}, vv = {j->v + ko, D};
    AttnView gv = {j->dctx + qo, D};
    const size_t wo = (size_t)task * j->Tq * j->Tk;
    /* This sentence's and head's block of dq, dk and dv, padding rows included: zeroed
     * here, by the thread that fills it. */
    for (int r = 0; r < j->Tq; r++)
        memset(j->dq + qo + (size_t)r * D, 0, sizeof(float) * (size_t)Dh);
    for (int r = 0; r < j->Tk; r++) {
        memset(j->dk + ko + (size_t)r * D, 0, sizeof(float) * (size_t)Dh);
        memset(j->dv + ko + (size_t)r * D, 0, sizeof(float) * (size_t)Dh);
    }
    attention_head_backward(j->dq + qo, D, j->dk + ko, D, j->dv + ko, D, j->dscores + wo, gv,
                            j->catt + wo, qv, kv, vv, &shape);
}

/* r when the sublayer's last Linear layer can end the sublayer (dropout off), else NULL:
 * the mask comes before the residual, and it is drawn sentence by sentence, not in the
 * Linear layer's blocks of rows. */
static const Residual *residual_in_linear(const Residual *r, const float *mask,
                                          const NetCtx *c)
{
    return dropout_on(mask, c) ? NULL : r;
}

/* The end of a sublayer with output y when its last Linear layer could not do it:
 * y = r->res + dropout(y), then the norm. Nothing when dropout is off. */
static void residual_tail(float *y, float *mask, const Residual *r, const int *len, int B,
                          int T, const NetCtx *c)
{
    if (!dropout_on(mask, c))
        return;
    dropout_forward(y, mask, len, B, T, c);
    add_rows(y, r->res, y, B, T, c);
    if (r->norm_out)
        net_norm_forward(r->norm_out, r->norm_st, y, r->norm_w, r->norm_b, B * T, c);
}

/* NET_KV_APPEND: each row's new key and value (k_new, v_new row b) into row lk[b] − 1 of
 * its block of the cache. */
static void kv_append(const NetMha *m, int B, int D)
{
    for (int b = 0; b < B; b++) {
        const int kb = m->kv_block ? m->kv_block[b] : b;
        const size_t at = ((size_t)kb * m->Tk + (size_t)(m->lk[b] - 1)) * D;
        memcpy(m->k + at, m->k_new + (size_t)b * D, sizeof(float) * (size_t)D);
        memcpy(m->v + at, m->v_new + (size_t)b * D, sizeof(float) * (size_t)D);
    }
}

void net_mha_forward(float *out, const NetMha *m, const float *xq, const float *xkv, int B,
                     const Residual *after, const NetCtx *c)
{
    const MhaWeights *w = m->w;
    const int D = c->D, Mq = B * m->Tq, Mk = B * m->Tk;
    assert(w->d_model == D && w->n_heads == c->H && D % c->H == 0);
    assert(m->kv_cached != NET_KV_APPEND || (m->Tq == 1 && m->k_new && m->v_new));
    for (int b = 0; b < B; b++)
        assert(m->lq[b] >= 1 && m->lq[b] <= m->Tq && m->lk[b] >= 1 && m->lk[b] <= m->Tk &&
               (!m->causal || m->lq[b] <= m->lk[b]));
    const LinearJob jq = {.out = m->q, .x = xq, .w = w->w_query, .b = w->b_query, .M = Mq,
                          .K = D, .N = D};
    if (m->kv_cached == NET_KV_GIVEN) {
        linear_forward(m->q, xq, w->w_query, w->b_query, Mq, D, D, 0, NULL, c);
    } else if (m->kv_cached == NET_KV_APPEND) {
        LinearGroup g = {.job = {jq,
                                 {.out = m->k_new, .x = xkv, .w = w->w_key, .b = w->b_key,
                                  .M = Mq, .K = D, .N = D},
                                 {.out = m->v_new, .x = xkv, .w = w->w_value,
                                  .b = w->b_value, .M = Mq, .K = D, .N = D}},
                         .n = 3};
        linear_forward_group(&g, c);
        kv_append(m, B, D);
    } else {
        const LinearJob jk = {.out = m->k, .x = xkv, .w = w->w_key, .b = w->b_key, .M = Mk,
                              .K = D, .N = D};
        const LinearJob jv = {.out = m->v, .x = xkv, .w = w->w_value, .b = w->b_value,
                              .M = Mk, .K = D, .N = D};
        if (Mq == Mk) {
            LinearGroup g = {.job = {jq, jk, jv}, .n = 3};
            linear_forward_group(&g, c);
        } else {
            linear_forward(m->q, xq, w->w_query, w->b_query, Mq, D, D, 0, NULL, c);
            LinearGroup g = {.job = {jk, jv}, .n = 2};
            linear_forward_group(&g, c);
        }
    }
    AttnJob j = {.ctx = m->ctx, .att = m->att, .q = m->q, .k = m->k, .v = m->v, .lq = m->lq,
                 .lk = m->lk, .kv_block = m->kv_block, .Tq = m->Tq, .Tk = m->Tk, .D = D,
                 .H = c->H, .causal = m->causal};
    pool_run(c->pool, B * c->H, attn_forward_task, &j);
    linear_forward(out, m->ctx, w->w_out, w->b_out, Mq, D, D, 0, after, c);
}

void net_mha_backward(float *dxq, float *dxkv, NetScratch *s, const float *dout,
                      const NetMha *m, const float *xq, const float *xkv, int B,
                      const NetCtx *c)
{
    const MhaWeights *w = m->w, *g = m->g;
    const int D = c->D, Mq = B * m->Tq, Mk = B * m->Tk;
    linear_backward(s->dctx, DX_SET, (float *)g->w_out, (float *)g->b_out, dout, m->ctx,
                    w->w_out, Mq, D, D, c);
    AttnJob j = {.dq = s->dq, .dk = s->dk, .dv = s->dv, .dscores = s->dscores, .q = m->q,
                 .k = m->k, .v = m->v, .dctx = s->dctx, .catt = m->att, .lq = m->lq,
                 .lk = m->lk, .Tq = m->Tq, .Tk = m->Tk, .D = D, .H = c->H,
                 .causal = m->causal};
    pool_run(c->pool, B * c->H, attn_backward_task, &j);
    LinearBackGroup lg = {
        .job = {{.out = dxq, .dx_mode = DX_SET, .dw = (float *)g->w_query, .db = (float *)g->b_query,
                 .dy = s->dq, .x = xq, .w = w->w_query, .M = Mq, .K = D, .N = D},
                {.out = dxkv, .dx_mode = DX_ADD, .dw = (float *)g->w_key, .db = (float *)g->b_key,
                 .dy = s->dk, .x = xkv, .w = w->w_key, .M = Mk, .K = D, .N = D},
                {.out = dxkv, .dx_mode = DX_ADD, .dw = (float *)g->w_value, .db = (float *)g->b_value,
                 .dy = s->dv, .x = xkv, .w = w->w_value, .M = Mk, .K = D, .N = D}},
        .n = 3};
    linear_backward_group(&lg, c);
}

/* ---------------------------------------------------------------------------------------
 * Feed-forward block
 */

/* out = relu(h · W1ᵀ + b1) · W2ᵀ + b2; ff keeps the ReLU output. */
static void ffn_block_forward(float *out, float *ff, const float *h, const float *w1,
                              const float *b1, const float *w2, const float *b2, int M,
                              const Residual *after, const NetCtx *c)
{
    linear_forward(ff, h, w1, b1, M, c->D, c->F, 1, NULL, c);
    linear_forward(out, ff, w2, b2, M, c->F, c->D, 0, after, c);
}

/* dh = the gradient by h (written); the weight gradients of both Linear layers. */
static void ffn_block_backward(float *dh, NetScratch *s, const float *dout, const float *h,
                               const float *ff, const float *w1, const float *w2, float *dw1,
                               float *db1, float *dw2, float *db2, int M, const NetCtx *c)
{
    linear_backward(s->dff, DX_SET_RELU, dw2, db2, dout, ff, w2, M, c->F, c->D, c);
    linear_backward(dh, DX_SET, dw1, db1, s->dff, h, w1, M, c->D, c->F, c);
}

/* ---------------------------------------------------------------------------------------
 * Encoder and decoder layers
 */

void net_encoder_forward(NetActs *a, const Model *m, const int *src_ids, const NetBatch *nb,
                         const NetCtx *c)
{
    const ModelWeights *w = &m->w;
    net_embed_forward(a->enc[0].x, a->src_drop, w->emb_src, m->pe, src_ids, nb->src_len, nb->B,
                      nb->S, c);
    for (int l = 0; l < a->n_enc; l++)
        net_encoder_layer_forward(l + 1 < a->n_enc ? a->enc[l + 1].x : a->enc_top, &a->enc[l],
                                  &w->enc[l], nb, c);
    net_norm_forward(a->memory, a->mem_st, a->enc_top, w->enc_norm_w, w->enc_norm_b,
                     nb->B * nb->S, c);
}

void net_encoder_layer_forward(float *out, EncLayerActs *a, const EncoderLayer *w,
                               const NetBatch *nb, const NetCtx *c)
{
    const int B = nb->B, S = nb->S, M = B * S;
    /* The attention block's output goes to ctx's neighbour mid first, then the sum. */
    net_norm_forward(a->h1, a->st1, a->x, w->norm1_w, w->norm1_b, M, c);
    NetMha mb = {.w = &w->self_attn, .q = a->q, .k = a->k, .v = a->v, .att = a->att,
                   .ctx = a->ctx, .lq = nb->src_len, .lk = nb->src_len, .Tq = S, .Tk = S};
    const Residual r1 = {.res = a->x, .norm_out = a->h2, .norm_st = a->st2,
                         .norm_w = w->norm2_w, .norm_b = w->norm2_b, .eps = c->eps};
    net_mha_forward(a->mid, &mb, a->h1, a->h1, B, residual_in_linear(&r1, a->drop1, c), c);
    residual_tail(a->mid, a->drop1, &r1, nb->src_len, B, S, c);
    const Residual r2 = {.res = a->mid};
    ffn_block_forward(out, a->ff, a->h2, w->lin1_w, w->lin1_b, w->lin2_w, w->lin2_b, M,
                      residual_in_linear(&r2, a->drop2, c), c);
    residual_tail(out, a->drop2, &r2, nb->src_len, B, S, c);
}

void net_encoder_layer_backward(float *d, NetScratch *s, const EncoderLayer *g,
                                const EncLayerActs *a, const EncoderLayer *w, const NetBatch *nb,
                                const NetCtx *c)
{
    const int B = nb->B, S = nb->S, M = B * S;
    /* Feed-forward block: d stays on the residual path, the block's gradient joins it. */
    ffn_block_backward(s->dh, s, dropout_backward(s->dy, d, a->drop2, B, S, c), a->h2, a->ff,
                       w->lin1_w, w->lin2_w, (float *)g->lin1_w, (float *)g->lin1_b,
                       (float *)g->lin2_w, (float *)g->lin2_b, M, c);
    net_norm_backward(d, (float *)g->norm2_w, (float *)g->norm2_b, s->dh, a->mid, a->st2,
                      w->norm2_w, M, c);
    /* Attention block. */
    NetMha mb = {.w = &w->self_attn, .g = &g->self_attn, .q = a->q, .k = a->k, .v = a->v,
                   .att = a->att, .ctx = a->ctx, .lq = nb->src_len, .lk = nb->src_len,
                   .Tq = S, .Tk = S};
    net_mha_backward(s->dh, s->dh, s, dropout_backward(s->dy, d, a->drop1, B, S, c), &mb,
                       a->h1, a->h1, B, c);
    net_norm_backward(d, (float *)g->norm1_w, (float *)g->norm1_b, s->dh, a->x, a->st1,
                      w->norm1_w, M, c);
}

void net_decoder_layer_forward(float *out, DecLayerActs *a, const float *memory,
                               const DecoderLayer *w, const NetBatch *nb,
                               const NetDecCache *cache, int l, const NetCtx *c)
{
    const int B = nb->B, T = nb->T, M = B * T;
    net_norm_forward(a->h1, a->st1, a->x, w->norm1_w, w->norm1_b, M, c);
    NetMha sb = {.w = &w->self_attn, .q = a->q, .k = a->k, .v = a->v, .att = a->att,
                   .ctx = a->ctx, .lq = nb->tgt_len, .lk = nb->tgt_len, .Tq = T, .Tk = T,
                   .causal = 1};
    if (cache) {
        /* A step: the new position's key and value join the cache, and its query sees
         * positions 0..t of its own slot. */
        sb.k = cache->self_k[l];
        sb.v = cache->self_v[l];
        sb.k_new = a->k;
        sb.v_new = a->v;
        sb.att = cache->self_att[l];
        sb.lk = cache->self_len;
        sb.Tk = cache->cap;
        sb.kv_block = cache->slot;
        sb.kv_cached = NET_KV_APPEND;
        sb.causal = 0;
    }
    const Residual r1 = {.res = a->x, .norm_out = a->h2, .norm_st = a->st2,
                         .norm_w = w->norm2_w, .norm_b = w->norm2_b, .eps = c->eps};
    net_mha_forward(a->mid1, &sb, a->h1, a->h1, B, residual_in_linear(&r1, a->drop1, c), c);
    residual_tail(a->mid1, a->drop1, &r1, nb->tgt_len, B, T, c);

    NetMha cb = {.w = &w->cross_attn, .q = a->cq, .k = a->ck, .v = a->cv, .att = a->catt,
                   .ctx = a->cctx, .lq = nb->tgt_len, .lk = nb->src_len, .Tq = T,
                   .Tk = nb->S};
    if (cache) {
        /* The memory was projected once for the sentence. */
        cb.k = (float *)cache->cross_k[l];
        cb.v = (float *)cache->cross_v[l];
        cb.att = cache->cross_att[l];
        cb.lk = cache->cross_len;
        cb.Tk = cache->S;
        cb.kv_block = cache->sent;
        cb.kv_cached = NET_KV_GIVEN;
    }
    const Residual r2 = {.res = a->mid1, .norm_out = a->h3, .norm_st = a->st3,
                         .norm_w = w->norm3_w, .norm_b = w->norm3_b, .eps = c->eps};
    net_mha_forward(a->mid2, &cb, a->h2, memory, B, residual_in_linear(&r2, a->drop2, c), c);
    residual_tail(a->mid2, a->drop2, &r2, nb->tgt_len, B, T, c);

    const Residual r3 = {.res = a->mid2};
    ffn_block_forward(out, a->ff, a->h3, w->lin1_w, w->lin1_b, w->lin2_w, w->lin2_b, M,
                      residual_in_linear(&r3, a->drop3, c), c);
    residual_tail(out, a->drop3, &r3, nb->tgt_len, B, T, c);
}

void net_decoder_forward(NetActs *a, const Model *m, const int *tgt_ids, const NetBatch *nb,
                         const NetDecCache *cache, const NetCtx *c)
{
    const ModelWeights *w = &m->w;
    const int B = nb->B, T = nb->T;
    assert(!cache || (T == 1 && cache->t >= 0 && cache->t < cache->cap));
    /* A step's one position is position t: its row of the positional table. */
    const float *pe = cache ? m->pe + (size_t)cache->t * c->D : m->pe;
    net_embed_forward(a->dec[0].x, a->tgt_drop, w->emb_tgt, pe, tgt_ids, nb->tgt_len, B, T, c);
    for (int l = 0; l < a->n_dec; l++)
        net_decoder_layer_forward(l + 1 < a->n_dec ? a->dec[l + 1].x : a->dec_top, &a->dec[l],
                                  a->memory, &w->dec[l], nb, cache, l, c);
    net_norm_forward(a->final_h, a->final_st, a->dec_top, w->dec_norm_w, w->dec_norm_b, B * T,
                     c);
    net_generator_forward(a->logits, a->final_h, w->gen_w, w->gen_b, B * T, c);
}

void net_decoder_layer_backward(float *d, float *dmemory, NetScratch *s, const DecoderLayer *g,
                                const DecLayerActs *a, const float *memory, const DecoderLayer *w,
                                const NetBatch *nb, const NetCtx *c)
{
    const int B = nb->B, T = nb->T, M = B * T;
    ffn_block_backward(s->dh, s, dropout_backward(s->dy, d, a->drop3, B, T, c), a->h3, a->ff,
                       w->lin1_w, w->lin2_w, (float *)g->lin1_w, (float *)g->lin1_b,
                       (float *)g->lin2_w, (float *)g->lin2_b, M, c);
    net_norm_backward(d, (float *)g->norm3_w, (float *)g->norm3_b, s->dh, a->mid2, a->st3,
                      w->norm3_w, M, c);

    NetMha cb = {.w = &w->cross_attn, .g = &g->cross_attn, .q = a->cq, .k = a->ck,
                   .v = a->cv, .att = a->catt, .ctx = a->cctx, .lq = nb->tgt_len,
                   .lk = nb->src_len, .Tq = T, .Tk = nb->S};
    net_mha_backward(s->dh, dmemory, s, dropout_backward(s->dy, d, a->drop2, B, T, c), &cb,
                       a->h2, memory, B, c);
    net_norm_backward(d, (float *)g->norm2_w, (float *)g->norm2_b, s->dh, a->mid1, a->st2,
                      w->norm2_w, M, c);

    NetMha sb = {.w = &w->self_attn, .g = &g->self_attn, .q = a->q, .k = a->k, .v = a->v,
                   .att = a->att, .ctx = a->ctx, .lq = nb->tgt_len, .lk = nb->tgt_len,
                   .Tq = T, .Tk = T, .causal = 1};
    net_mha_backward(s->dh, s->dh, s, dropout_backward(s->dy, d, a->drop1, B, T, c), &sb,
                       a->h1, a->h1, B, c);
    net_norm_backward(d, (float *)g->norm1_w, (float *)g->norm1_b, s->dh, a->x, a->st1,
                      w->norm1_w, M, c);
}

/* ---------------------------------------------------------------------------------------
 * Generator and loss
 */

void net_generator_forward(float *logits, const float *h, const float *w, const float *b,
                           int n, const NetCtx *c)
{
    linear_forward(logits, h, w, b, n, c->D, c->V, 0, NULL, c);
}

void net_generator_backward(float *dh, float *dw, float *db, const float *dlogits,
                            const float *h, const float *w, int n, const NetCtx *c)
{
    linear_backward(dh, DX_ADD, dw, db, dlogits, h, w, n, c->D, c->V, c);
}

typedef struct {
    double *loss, *lse;
    const double *clse;
    float *dlogits;
    const float *logits;
    const int *labels, *len;
    int T, V;
    float ls;
} XentJob;

/* Sentence task's rows: each row's log-sum-exp and loss, summed in row order. */
static void xent_forward_task(void *ctx, int task)
{
    const XentJob *j = ctx;
    const int V = j->V;
    const double ls = j->ls;
    double sum_loss = 0.0;
    for (int t = 0; t < j->len[task]; t++) {
        const size_t r = (size_t)task * j->T + t;
        const float *z = j->logits + r * V;
        const double max = kernel_max(z, V);
        /* cppcheck-suppress invalidFunctionArg ; the sum >= 1: the maximum's term is exp(0) */
        const double lse = max + log(kernel_exp_sum(NULL, z, max, V));
        j->lse[r] = lse;
        /* −log p(y), and the mean of −log p(v) over the vocabulary: lse − mean(z). */
        sum_loss += (1.0 - ls) * (lse - z[j->labels[r]]) + ls * (lse - kernel_sum(z, V) / V);
    }
    j->loss[task] = sum_loss;
}

void net_xent_forward(double *loss, double *lse, const float *logits, const int *labels,
                      const NetBatch *nb, float ls, const NetCtx *c)
{
    XentJob j = {.loss = loss, .lse = lse, .logits = logits, .labels = labels,
                 .len = nb->tgt_len, .T = nb->T, .V = c->V, .ls = ls};
    pool_run(c->pool, nb->B, xent_forward_task, &j);
}

static void xent_backward_task(void *ctx, int task)
{
    const XentJob *j = ctx;
    const int V = j->V;
    const float off = (float)(j->ls / V), hit = (float)(1.0 - j->ls);
    for (int t = 0; t < j->T; t++) {
        const size_t r = (size_t)task * j->T + t;
        float *dz = j->dlogits + r * V;
        if (t >= j->len[task]) {
            memset(dz, 0, sizeof(float) * (size_t)V);
            continue;
        }
        /* p = softmax(z), written over z when the two are one buffer (as training has
         * them): each element is read before it is written. */
        kernel_exp_sum(dz, j->logits + r * V, j->clse[r], V);
        for (int v = 0; v < V; v++)
            dz[v] -= off;
        dz[j->labels[r]] -= hit;
    }
}

void net_xent_backward(float *dlogits, const float *logits, const double *lse,
                       const int *labels, const NetBatch *nb, float ls, const NetCtx *c)
{
    XentJob j = {.clse = lse, .dlogits = dlogits, .logits = logits, .labels = labels,
                 .len = nb->tgt_len, .T = nb->T, .V = c->V, .ls = ls};
    pool_run(c->pool, nb->B, xent_backward_task, &j);
}
