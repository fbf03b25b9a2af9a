/*
 * trainer.h — learning the encoder-decoder: the forward pass that keeps what backward
 * needs, the backward pass, AdamW, and batches.
 *
 * Sentences are computed at their own lengths. A padded batch with padding masks computes
 * exactly the same sums (a masked position contributes nothing), so a batch here is a set
 * of sentences of similar length whose gradients are added; nothing is spent on padding.
 *
 * Gradients are of the summed token loss; a batch divides by its number of target tokens,
 * so the loss reported and optimised is the mean cross-entropy per target token.
 */
#ifndef TOYTRANS_TRAINER_H
#define TOYTRANS_TRAINER_H

#include "attention.h"
#include "model.h"

#include <stdint.h>

/* Everything one sentence pair's forward and backward passes touch; one per thread. */
typedef struct {
    const Model *m;
    int S, T;             /* source positions (</s> included), decoder positions (<s> included) */
    int *src;             /* (max_len) source ids */
    int *dec_in;          /* (max_len) <s> + target ids */
    int *dec_out;         /* (max_len) target ids + </s>: the labels */
    /* encoder, layer l of L_enc: */
    float *enc_x;         /* (L_enc + 1, N, D) residual stream entering layer l; [L_enc]: last */
    float *enc_mid;       /* (L_enc, N, D) after the attention block */
    float *enc_h1, *enc_h2;       /* (L_enc, N, D) norm1, norm2 outputs */
    float *enc_s1, *enc_s2;       /* (L_enc, 2, N) their mean and rstd */
    float *enc_ff;        /* (L_enc, N, F) relu outputs */
    MhaActs *enc_acts;    /* (L_enc) */
    float *memory;        /* (N, D) encoder.norm output */
    float *mem_stats;     /* (2, N) */
    /* decoder, layer l of L_dec: */
    float *dec_x;         /* (L_dec + 1, N, D) */
    float *dec_mid1, *dec_mid2;   /* (L_dec, N, D) after self-, after cross-attention */
    float *dec_h1, *dec_h2, *dec_h3; /* (L_dec, N, D) */
    float *dec_s1, *dec_s2, *dec_s3; /* (L_dec, 2, N) */
    float *dec_ff;        /* (L_dec, N, F) */
    MhaActs *self_acts;   /* (L_dec) */
    MhaActs *cross_acts;  /* (L_dec) */
    float *final_h;       /* (N, D) decoder.norm output */
    float *final_stats;   /* (2, N) */
    float *logits;        /* (N, V_tgt), then the gradient of the loss by the logits */
    /* backward scratch */
    float *dx;            /* (N, D) */
    float *dh;            /* (N, D) */
    float *dmem;          /* (N, D) */
    float *dff;           /* (N, F) */
    float *y;             /* (N, D) forward scratch; in backward, a masked gradient */
    MhaScratch scratch;
    /* Dropout, set by the caller before sentence_loss (0 switches it off): */
    float dropout;        /* probability of zeroing an activation, 0..<1 */
    uint64_t dropout_seed; /* seeds this sentence's masks, so runs are reproducible */
    float *masks;         /* (2 + 2·L_enc + 3·L_dec, N, D): 0 or 1/(1−p) per activation */
} SentenceState;

int sentence_state_init(SentenceState *st, const Model *m);
void sentence_state_free(SentenceState *st);

/* Dropout, as in the original Transformer: on the embeddings (after the positional
 * encoding) and on the output of every attention and feed-forward block before it is
 * added to the residual stream; kept activations are scaled by 1/(1−p). */

/* Runs one pair through the model: src (n_src ids, </s> not included) and tgt (n_tgt ids,
 * neither <s> nor </s>). Returns the summed cross-entropy over the n_tgt + 1 predicted
 * tokens (label smoothing ε: the target distribution is (1−ε)·onehot + ε/V, as PyTorch's
 * label_smoothing), or a negative value for arguments that do not fit max_len. With
 * grads not NULL (a block of the parameter layout), adds the gradient of that sum. */
double sentence_loss(SentenceState *st, float *grads, const int *src, int n_src,
                     const int *tgt, int n_tgt, float label_smoothing);

/* AdamW (decoupled weight decay, applied to matrices only: spec cols > 0). step counts
 * from 1. m and v have the layout of params. */
typedef struct {
    float beta1, beta2, eps, weight_decay;
} AdamConfig;

void adamw_update(float *params, const float *grads, float *m, float *v, const ParamSpec *specs,
                  int n_specs, const AdamConfig *c, float lr, long step);

#endif
