/*
 * selfattn.h — the three single-head self-attention variants of the classic walk-through.
 *
 *   SELFATTN_SIMPLE  no trainable weights: queries = keys = values = X,
 *                    scores = X·Xᵀ, weights = softmax(scores) (no scaling), context = weights·X.
 *   SELFATTN_V1      W_query, W_key, W_value are (d_in, d_out) matrices: Q = X·W_query, …;
 *                    weights = softmax(Q·Kᵀ / √d_k), d_k = d_out (the keys' last dimension).
 *   SELFATTN_V2      three Linear layers, weight (d_out, d_in), optional bias (qkv_bias,
 *                    off by default): Q = X·W_queryᵀ + b_query, …; scaled as v1.
 *
 * All three run through attention_head_forward, so what `toytrans trace` shows is what
 * the encoder and decoder compute.
 */
#ifndef TOYTRANS_SELFATTN_H
#define TOYTRANS_SELFATTN_H

#include "base/rng.h"

typedef enum {
    SELFATTN_SIMPLE = 0,
    SELFATTN_V1 = 1,
    SELFATTN_V2 = 2,
} SelfAttnVariant;

typedef struct {
    SelfAttnVariant variant;
    int d_in;       /* width of an input row, >= 1 */
    int d_out;      /* width of queries, keys, values; equals d_in for SIMPLE */
    int qkv_bias;   /* 1: V2 has biases; always 0 for SIMPLE and V1 */
    float *w_query; /* V1: (d_in, d_out); V2: (d_out, d_in); NULL for SIMPLE */
    float *w_key;   /* as w_query */
    float *w_value; /* as w_query */
    float *b_query; /* (d_out) when qkv_bias, else NULL */
    float *b_key;   /* as b_query */
    float *b_value; /* as b_query */
    float *block;   /* the one allocation every pointer above views into (owned) */
} SelfAttention;

/* Sets up sa with zeroed weights. For SIMPLE, d_out must equal d_in; qkv_bias is only
 * accepted for V2. Returns TT_OK, TT_EINVAL or TT_ENOMEM; on failure sa owns nothing.
 * Free with selfattn_free (safe on a zeroed or freed sa). */
int selfattn_init(SelfAttention *sa, SelfAttnVariant variant, int d_in, int d_out,
                  int qkv_bias);
void selfattn_free(SelfAttention *sa);

/* Draws the weights as PyTorch does after torch.manual_seed (the rng is seeded by the
 * caller): V1 fills W_query, W_key, W_value in that order with torch.rand(d_in, d_out);
 * V2 builds three nn.Linear(d_in, d_out, bias=qkv_bias) in that order, each drawing its
 * weight from U(−1/√d_in, 1/√d_in) and then its bias likewise. SIMPLE draws nothing. */
void selfattn_randomize(SelfAttention *sa, Rng *rng);

/* Copies v1's matrices into v2, transposed (v2 weight = v1 matrixᵀ), so both compute the
 * same function. v2 must be a V2 without bias of the same dimensions. */
int selfattn_copy_v1_to_v2(SelfAttention *v2, const SelfAttention *v1);

/* Every stage of one forward pass over T tokens, owned by the struct. */
typedef struct {
    int T;          /* tokens */
    int d_out;      /* width of queries, keys, values, context */
    float *queries; /* (T, d_out) */
    float *keys;    /* (T, d_out) */
    float *values;  /* (T, d_out) */
    float *scores;  /* (T, T) unscaled Q·Kᵀ */
    float *weights; /* (T, T) softmax of the scaled scores, rows sum to 1 */
    float *context; /* (T, d_out) */
    float scale;    /* what multiplied the scores: 1/√d_k, or 1 for SIMPLE */
    float *block;   /* the one allocation every pointer above views into (owned) */
} SelfAttnStages;

/* Runs sa over x (T, d_in) and keeps every stage in st, which it allocates.
 * Returns TT_OK, TT_EINVAL (T < 1, NULL pointers) or TT_ENOMEM; on failure st owns
 * nothing. Free with selfattn_stages_free (safe on a zeroed or freed st). */
int selfattn_forward(SelfAttnStages *st, const SelfAttention *sa, const float *x, int T);
void selfattn_stages_free(SelfAttnStages *st);

/* The context vector of token i (0-based) computed alone: its own query against the keys
 * and values of all T tokens, without forming the other rows' queries or scores.
 *   context (d_out); weights (T) or NULL; x (T, d_in).
 * Returns TT_OK, TT_EINVAL (i out of range, T < 1) or TT_ENOMEM. */
int selfattn_forward_token(float *context, float *weights, const SelfAttention *sa,
                           const float *x, int T, int i);

/* "simple", "v1" or "v2"; and the reverse (returns -1 for an unknown name). */
const char *selfattn_variant_name(SelfAttnVariant variant);
int selfattn_variant_parse(const char *name);

#endif
