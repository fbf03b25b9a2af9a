/*
 * backprop.h — one training batch through the model: the forward pass, the loss and the
 * backward pass as three calls, each a short list of net.h's layer calls (the optimiser
 * that uses the gradient is optim.h; the run around both is train.h).
 *
 * A batch is a set of sentence pairs laid out as (B·T) rows with their lengths as the
 * padding masks (net.h); its gradient is exactly the sum of its sentences' gradients, up
 * to the order of float additions. Gradients are of the summed token loss; the training
 * loop divides by the batch's target tokens, so the loss reported and optimised is the
 * mean cross-entropy per target token.
 */
#ifndef TOYTRANS_BACKPROP_H
#define TOYTRANS_BACKPROP_H

#include "base/pool.h"
#include "base/rng.h"
#include "model/model.h"
#include "nn/net.h"

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
    float dropout;      /* 0..<1: the probability used by backprop_forward(…, 1) */
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
} Backprop;

/* Sets up t for batches of up to max_batch pairs of up to max_src − 1 source and
 * max_tgt − 1 target tokens. dropout in 0..<1 (> 0 allocates the masks). pool (borrowed,
 * may be NULL) runs the layers' tasks. Returns TT_OK, TT_EINVAL or TT_ENOMEM; on failure
 * t owns nothing. backprop_free accepts a zeroed or freed t. */
int backprop_init(Backprop *t, const Model *m, int max_batch, int max_src, int max_tgt,
                 float dropout, Pool *pool);
void backprop_free(Backprop *t);

/* Lays out B pairs as the current batch. Returns TT_EINVAL (nothing changed) when B is
 * not 1..max_batch, a pair does not fit max_src or max_tgt, or an id is out of its
 * vocabulary. */
int backprop_set_batch(Backprop *t, const TrainPair *pairs, int B);

/* The forward pass of the current batch up to the logits; with_dropout 1 applies
 * dropout (when t->dropout > 0), with masks drawn afresh from each pair's seed. */
void backprop_forward(Backprop *t, int with_dropout);

/* The loss of the last forward pass: *sum = Σ over the batch's predicted tokens of the
 * cross-entropy with label smoothing ls (target (1−ls)·onehot + ls/V, as PyTorch's
 * label_smoothing); t->acts.loss[b] holds sentence b's part. */
void backprop_loss(Backprop *t, float ls, double *sum);

/* Adds the gradient of the last backprop_loss's sum into grads (a block of the parameter
 * layout). Overwrites the logits. */
void backprop_backward(Backprop *t, float *grads, float ls);

/* The model FLOPs of one pair's training step, forward and backward: S source positions
 * (</s> included) and T decoder positions (<s> included). Each multiply-add of a matrix
 * product counts 2; the backward pass counts twice the forward (a product's two
 * gradients); attention counts its full score and context products, causal or not;
 * embeddings, norms, softmax and the optimiser are not counted. The usual measure of
 * work done (model FLOPs), to set against the machine's peak. */
double backprop_pair_flops(const ModelConfig *c, int tgt_vocab, int S, int T);

#endif
