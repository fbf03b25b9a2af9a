/*
 * trainer.h — one training batch through the model: the forward pass, the loss and the
 * backward pass as three calls, each a short list of net.h's layer calls; and AdamW.
 *
 * A batch is a set of sentence pairs laid out as (B·T) rows with their lengths as the
 * padding masks (net.h); its gradient is exactly the sum of its sentences' gradients, up
 * to the order of float additions. Gradients are of the summed token loss; the training
 * loop divides by the batch's target tokens, so the loss reported and optimised is the
 * mean cross-entropy per target token.
 */
#ifndef TOYTRANS_TRAINER_H
#define TOYTRANS_TRAINER_H

#include "model.h"
#include "net.h"
#include "pool.h"
#include "rng.h"

#include <stdint.h>

/* One sentence pair of a batch. */
typedef struct {
    const int *src;        /* n_src source ids, </s> not included */
    int n_src;             /* >= 0 */
    const int *tgt;        /* n_tgt target ids, neither <s> nor </s> */
    int n_tgt;             /* >= 0 */
    uint64_t dropout_seed; /* seeds this pair's dropout masks (ignored without dropout) */
} TrainPair;

/* Everything a batch's passes touch, allocated once for the largest batch. */
typedef struct {
    const Model *m;
    int max_batch;      /* sentences per batch, >= 1 */
    int max_src;        /* source positions per sentence, </s> included, 1..max_len */
    int max_tgt;        /* decoder positions per sentence, <s> included, 1..max_len */
    float dropout;      /* 0..<1: the probability used by trainer_forward(…, 1) */
    NetActs acts;
    NetBatch nb;        /* the current batch's shape; its lengths point into src_len, tgt_len */
    NetCtx ctx;
    int *src_ids;       /* (max_batch · max_src) the batch's source ids, row b·S + t */
    int *dec_in;        /* (max_batch · max_tgt) <s> + target ids, row b·T + t */
    int *dec_out;       /* (max_batch · max_tgt) target ids + </s>: the labels */
    int *src_len;       /* (max_batch) */
    int *tgt_len;       /* (max_batch) */
    uint64_t *seeds;    /* (max_batch) dropout seeds of the current batch */
    Rng *rng;           /* (max_batch) the sentences' dropout generators */
} Trainer;

/* Sets up t for batches of up to max_batch pairs of up to max_src − 1 source and
 * max_tgt − 1 target tokens. dropout in 0..<1 (> 0 allocates the masks). pool (borrowed,
 * may be NULL) runs the layers' tasks. Returns TT_OK, TT_EINVAL or TT_ENOMEM; on failure
 * t owns nothing. trainer_free accepts a zeroed or freed t. */
int trainer_init(Trainer *t, const Model *m, int max_batch, int max_src, int max_tgt,
                 float dropout, Pool *pool);
void trainer_free(Trainer *t);

/* Lays out B pairs as the current batch. Returns TT_EINVAL (nothing changed) when B is
 * not 1..max_batch, a pair does not fit max_src or max_tgt, or an id is out of its
 * vocabulary. */
int trainer_set_batch(Trainer *t, const TrainPair *pairs, int B);

/* The forward pass of the current batch up to the logits; with_dropout 1 applies
 * dropout (when t->dropout > 0), with masks drawn afresh from each pair's seed. */
void trainer_forward(Trainer *t, int with_dropout);

/* The loss of the last forward pass: *sum = Σ over the batch's predicted tokens of the
 * cross-entropy with label smoothing ls (target (1−ls)·onehot + ls/V, as PyTorch's
 * label_smoothing); t->acts.loss[b] holds sentence b's part. */
void trainer_loss(Trainer *t, float ls, double *sum);

/* Adds the gradient of the last trainer_loss's sum into grads (a block of the parameter
 * layout). Overwrites the logits. */
void trainer_backward(Trainer *t, float *grads, float ls);

/* The whole-block steps of the optimiser run on the pool over chunks of TRAINER_CHUNK
 * floats fixed by the block's size; a sum over the block adds the chunks' sums in chunk
 * order, so the bits do not depend on the thread count. */
#define TRAINER_CHUNK 16384

/* The model FLOPs of one pair's training step, forward and backward: S source positions
 * (</s> included) and T decoder positions (<s> included). Each multiply-add of a matrix
 * product counts 2; the backward pass counts twice the forward (a product's two
 * gradients); attention counts its full score and context products, causal or not;
 * embeddings, norms, softmax and the optimiser are not counted. The usual measure of
 * work done (model FLOPs), to set against the machine's peak. */
double trainer_pair_flops(const ModelConfig *c, int tgt_vocab, int S, int T);

/* Chunks of a block of n floats: the size of grads_scale's partial sums. */
int trainer_chunks(size_t n);

/* g = 0 over n floats, in chunks shared by the pool's threads (each then holds in its
 * cache a share of what the weight gradients' tasks write next). pool may be NULL. */
void grads_zero(float *g, size_t n, Pool *pool);

/* g *= scale over n floats, and returns Σ g² (after scaling) in double. partial holds
 * trainer_chunks(n) doubles of scratch. pool may be NULL. */
double grads_scale(float *g, size_t n, float scale, double *partial, Pool *pool);

/* AdamW (decoupled weight decay, applied to matrices only: spec cols > 0) with the
 * gradients grads·gscale (gradient clipping's factor, or 1). step counts from 1. m and v
 * have the layout of params. pool may be NULL. */
typedef struct {
    float beta1, beta2, eps, weight_decay;
} AdamConfig;

void adamw_update(float *params, const float *grads, float gscale, float *m, float *v,
                  const ParamSpec *specs, int n_specs, const AdamConfig *c, float lr, long step,
                  Pool *pool);

#endif
