/*
 * transformer.h — the encoder-decoder's forward passes.
 *
 * The encoder reads the whole source at once. The decoder runs one position at a time
 * with a key/value cache, so step t attends over t + 1 cached keys instead of re-running
 * the whole prefix; decoder_forward_full computes all positions at once with a causal
 * mask and must agree with the cached path (a test holds them to 1e-5).
 *
 * Every attention call keeps its weights, so translate --json and inspect can show
 * exactly the numbers the forward pass used.
 *
 * Nothing here allocates after *_init: the buffers are sized for the model's max_len.
 */
#ifndef TOYTRANS_TRANSFORMER_H
#define TOYTRANS_TRANSFORMER_H

#include "attention.h"
#include "model.h"

/* The encoded source sentence, shared by every hypothesis decoded from it. */
typedef struct {
    const Model *model;
    int S;           /* source positions of the current sentence, 1..max_len */
    float *memory;   /* (max_len, D) encoder output, after encoder.norm */
    float *attn;     /* (L_enc, H, S, S) self-attention weights, packed for the current S */
    float *cross_k;  /* (L_dec, max_len, D) memory projected by each decoder layer's W_key */
    float *cross_v;  /* (L_dec, max_len, D) likewise by W_value */
    float *x;        /* (max_len, D) scratch: the residual stream */
    float *h;        /* (max_len, D) scratch: normalised input of a block */
    float *y;        /* (max_len, D) scratch: a block's output */
    float *ff;       /* (max_len, F) scratch: feed-forward hidden layer */
    MhaActs acts;    /* max_len × max_len */
} Encoder;

int encoder_init(Encoder *e, const Model *m);
void encoder_free(Encoder *e);

/* Encodes ids (S of them, </s> included, each in 0..V_src-1, 1 <= S <= max_len).
 * Returns TT_OK or TT_EINVAL. */
int encoder_forward(Encoder *e, const int *ids, int S);

/* One hypothesis's decoder state: the keys and values of every position so far. */
typedef struct {
    int t;          /* positions in the cache, 0..max_len */
    float *self_k;  /* (L_dec, max_len, D) */
    float *self_v;  /* (L_dec, max_len, D) */
} DecoderCache;

int decoder_cache_init(DecoderCache *c, const Model *m);
void decoder_cache_free(DecoderCache *c);
/* Copies src's first src->t positions into dst (beam search reorders hypotheses). */
void decoder_cache_copy(DecoderCache *dst, const DecoderCache *src, const Model *m);

/* Scratch and outputs of one decoder step. */
typedef struct {
    const Model *model;
    float *x, *h, *y, *q, *ctx; /* (D) */
    float *ff;                  /* (F) */
    float *logits;              /* (V_tgt) for the next token */
    float *self_w;   /* (L_dec, H, max_len): layer l head h at (l*H + h)*max_len, t+1 used */
    float *cross_w;  /* (L_dec, H, max_len): layer l head h at (l*H + h)*max_len, S used */
} DecoderStep;

int decoder_step_init(DecoderStep *d, const Model *m);
void decoder_step_free(DecoderStep *d);

/* Feeds token (the one at position cache->t: <s> first) through the decoder, appends its
 * keys and values to the cache and leaves the next token's logits and this step's
 * attention weights in d. Returns TT_OK, or TT_EINVAL when the cache is full or the
 * token is out of range. */
int decoder_step(DecoderStep *d, DecoderCache *cache, const Encoder *e, int token);

/* The uncached reference: all T positions of ids (T <= max_len) at once, causal.
 *   logits (T, V_tgt); self_w (L_dec, H, T, T) or NULL; cross_w (L_dec, H, T, S) or NULL.
 * Allocates its own scratch. Returns TT_OK, TT_EINVAL or TT_ENOMEM. */
int decoder_forward_full(float *logits, float *self_w, float *cross_w, const Encoder *e,
                         const int *ids, int T);

#endif
