/*
 * headtrace.h — one attention head of a trained model, stage by stage, for `toytrans
 * trace --model`.
 *
 * The book's walk-through (selfattn.h) computes self-attention on six 3-dimensional
 * embeddings with weights of its own. This module does the same for one head of a real
 * model, on a real sentence, with the model's weights and the model's inputs:
 *
 *     X (Tq, D), X_kv (Tk, D)       what the head reads: the LayerNorm output before the
 *                                   block (pre-LN), for cross-attention the encoder's
 *                                   output (memory) on the key side
 *     queries = X · W_qᵀ + b_q      (Tq, Dh), W_q the head's Dh rows of W_query (D, D)
 *     keys    = X_kv · W_kᵀ + b_k   (Tk, Dh), values likewise with W_value
 *     scores  = queries · keysᵀ     (Tq, Tk)
 *     weights = softmax(scores / √Dh) per row, later keys masked in decoder self-attention
 *     context = weights · values    (Tq, Dh)
 *
 * Where X comes from: the model's own forward pass (backprop.h, the pass training runs)
 * over the source and a decoder input, its activations kept. The decoder input is the
 * caller's: `trace` gives <s> and the model's greedy translation but its last token (the
 * translation shifted right, as in training), so row i of a decoder attention is the
 * step that chose the translation's word i, and its weights are those translate --json
 * prints for that step. The projections are computed here in plain loops (in double),
 * the scores, weights and context by attention_head_forward (attention.h), and every
 * stage is compared with what the forward pass itself computed for that head (model_*).
 *
 * Letters: S source positions (</s> included), T decoder positions (<s> included),
 * D d_model, H heads, Dh = D / H.
 */
#ifndef TOYTRANS_HEADTRACE_H
#define TOYTRANS_HEADTRACE_H

#include "model/model.h"
#include "train/backprop.h"

/* Which attention of the model. */
typedef enum {
    HEADTRACE_ENC_SELF = 0, /* encoder self-attention: source over source (S, S) */
    HEADTRACE_DEC_SELF = 1, /* decoder self-attention, causal: decoder over decoder (T, T) */
    HEADTRACE_CROSS = 2     /* cross-attention: decoder queries over the source (T, S) */
} HeadTraceKind;

/* "enc-self", "dec-self", "cross" (static text). */
const char *headtrace_kind_name(HeadTraceKind kind);
/* The kind named s (as above), or -1. */
int headtrace_kind_parse(const char *s);

/* One head's stages, and the forward pass they were taken from (owned). */
typedef struct {
    HeadTraceKind kind;
    int layer, head;          /* 0..L-1 of the kind's stack, 0..H-1 */
    int Tq, Tk, D, Dh;        /* query rows, key rows, d_model, head width */
    float scale;              /* 1/√Dh */
    int causal;               /* 1 for HEADTRACE_DEC_SELF */
    const float *x;           /* (Tq, D) the queries' input: a view into bp's activations */
    const float *x_kv;        /* (Tk, D) the keys' and values' input (x itself for self-
                                 attention): a view */
    const float *w_q, *w_k, *w_v; /* (Dh, D) the head's rows of the projections: views into
                                     the model */
    const float *b_q, *b_k, *b_v; /* (Dh) or NULL (a model without qkv biases): views */
    float *q;                 /* (Tq, Dh) computed here */
    float *k, *v;             /* (Tk, Dh) */
    float *scores;            /* (Tq, Tk) unscaled, before the mask */
    float *weights;           /* (Tq, Tk) masked entries 0 */
    float *ctx;               /* (Tq, Dh) */
    const float *model_q, *model_k, *model_v; /* the forward pass's projections, this
                                 head's columns of (rows, D): leading dimension D; views */
    const float *model_weights; /* (Tq, Tk) the forward pass's weights of this head: a view */
    float *block;             /* the one allocation behind q .. ctx (owned) */
    Backprop bp;              /* the forward pass (owned) */
} HeadTrace;

/* Runs the model m (borrowed; must outlive h) forward over one sentence pair — src
 * (n_src ids, </s> not included) and the decoder input <s> + tgt (n_tgt ids) — and
 * computes the stages of layer `layer`, head `head` of `kind`. Returns TT_OK, or
 * TT_EINVAL (a layer or head out of range, ids out of the vocabularies, more positions
 * than the model's max_len; h owns nothing then) or TT_ENOMEM. Free with headtrace_free,
 * which accepts a zeroed or freed h. */
int headtrace_run(HeadTrace *h, const Model *m, HeadTraceKind kind, int layer, int head,
                  const int *src, int n_src, const int *tgt, int n_tgt);
void headtrace_free(HeadTrace *h);

/* Query row i on its own: its weights over the keys (Tk values, those past i masked to 0
 * when causal) into weights, and its context (Dh) into ctx, with attention_head_forward
 * and nothing of the other rows. Returns TT_OK or TT_EINVAL (i out of 0..Tq-1). */
int headtrace_token(const HeadTrace *h, int i, float *weights, float *ctx);

/* The largest difference between the trace's and the forward pass's projections
 * (relative to max(1, |value|)) and weights (absolute). */
void headtrace_compare(const HeadTrace *h, float *proj_diff, float *weight_diff);

#endif
