/*
 * transformer.h — the encoder-decoder's forward passes.
 *
 * The encoder reads the whole source at once. The decoder runs one position at a time
 * with a key/value cache, so step t attends over t + 1 cached keys instead of re-running
 * the whole prefix. It is the one deliberately different path: every other forward pass
 * (training, validation) runs the batched layers of net.h, and tests/test_transformer.c
 * holds the cached step to them at every position (1e-5).
 *
 * Every attention call keeps its weights, so translate --json and inspect can show
 * exactly the numbers the forward pass used.
 *
 * Buffers are sized to the sentence, never to the model's max_len up front: a model may
 * allow 4096 positions, and n_heads · max_len² attention weights per layer would take
 * gigabytes for a two-word sentence. encoder_forward grows the encoder's buffers to the
 * sentence it is given; the decoder's are grown by *_reserve before a sentence is
 * decoded, so nothing allocates inside the step loop.
 */
#ifndef TOYTRANS_TRANSFORMER_H
#define TOYTRANS_TRANSFORMER_H

#include "attention.h"
#include "model.h"
#include "net.h"

/* The encoded source sentence, shared by every hypothesis decoded from it. */
typedef struct {
    const Model *model;
    int cap;         /* positions the buffers hold, 0..max_len; N below */
    int S;           /* source positions of the current sentence, 1..cap */
    const float *memory; /* (N, D) encoder output, after encoder.norm: acts.memory */
    float *attn;     /* (L_enc, H, S, S) self-attention weights, packed for the current S */
    float *cross_k;  /* (L_dec, N, D) memory projected by each decoder layer's W_key */
    float *cross_v;  /* (L_dec, N, D) likewise by W_value */
    NetActs acts;    /* the encoder's layers for one sentence of N positions (net.h), the
                        same forward pass training runs */
} Encoder;

/* An encoder with no buffers yet (cap 0): encoder_forward sizes them. */
int encoder_init(Encoder *e, const Model *m);
void encoder_free(Encoder *e);

/* Encodes ids (S of them, </s> included, each in 0..V_src-1, 1 <= S <= max_len), first
 * growing the buffers to S positions if they are smaller. Returns TT_OK, TT_EINVAL or
 * TT_ENOMEM (the encoder is then as it was, with no sentence). */
int encoder_forward(Encoder *e, const int *ids, int S);

/* One hypothesis's decoder state: the keys and values of every position so far. */
typedef struct {
    int cap;        /* positions the cache holds, 0..max_len; N below */
    int t;          /* positions in the cache, 0..cap */
    float *self_k;  /* (L_dec, N, D) */
    float *self_v;  /* (L_dec, N, D) */
} DecoderCache;

/* An empty cache with no room (cap 0): decoder_cache_reserve makes room. */
int decoder_cache_init(DecoderCache *c, const Model *m);
void decoder_cache_free(DecoderCache *c);
/* Makes room for n positions (1..max_len) and empties the cache (t = 0). Returns TT_OK,
 * TT_EINVAL or TT_ENOMEM (the cache is then as it was, emptied). */
int decoder_cache_reserve(DecoderCache *c, const Model *m, int n);
/* Copies src's first src->t positions into dst, which must have room for them (beam
 * search reorders hypotheses). */
void decoder_cache_copy(DecoderCache *dst, const DecoderCache *src, const Model *m);

/* Scratch and outputs of one decoder step. */
typedef struct {
    const Model *model;
    int cap;                    /* keys the weight records hold, 0..max_len; N below */
    float *x, *h, *y, *q, *ctx; /* (D) */
    float *ff;                  /* (F) */
    float *logits;              /* (V_tgt) for the next token */
    float *self_w;   /* (L_dec, H, N): layer l head h at (l*H + h)*N, t+1 used */
    float *cross_w;  /* (L_dec, H, N): layer l head h at (l*H + h)*N, S used */
} DecoderStep;

/* A step with room for no keys yet (cap 0): decoder_step_reserve makes room. */
int decoder_step_init(DecoderStep *d, const Model *m);
void decoder_step_free(DecoderStep *d);
/* Makes room in the weight records for n keys (1..max_len). Returns TT_OK, TT_EINVAL or
 * TT_ENOMEM (d is then as it was). */
int decoder_step_reserve(DecoderStep *d, int n);

/* Feeds token (the one at position cache->t: <s> first) through the decoder, appends its
 * keys and values to the cache and leaves the next token's logits and this step's
 * attention weights in d. Returns TT_OK, or TT_EINVAL when the cache or d's records are
 * full (the cache holds cache->cap positions, d's records d->cap keys of self- and
 * cross-attention) or the token is out of range. */
int decoder_step(DecoderStep *d, DecoderCache *cache, const Encoder *e, int token);

#endif
