/*
 * transformer.h — translation's side of the encoder-decoder: a batch of source sentences
 * encoded, and the decoder's cached steps over rows that read them.
 *
 * There is one encoder and one decoder, net.h's net_encoder_forward and
 * net_decoder_forward, which training runs over whole batches. Translation runs the
 * decoder one position at a time with a key/value cache (NetDecCache), so step t attends
 * over t + 1 cached keys instead of re-running the whole prefix: T = 1 and B = the live
 * rows (sentences, or a beam's hypotheses). tests/test_transformer.c holds the cached
 * steps to the whole-batch pass at every position.
 *
 * Translation's products run with NetCtx.row_stable: a sentence's tokens,
 * log-probabilities and attention weights are the same bits whatever sentences share its
 * batch and however many threads run it.
 *
 * Buffers are sized to what is decoded, never to the model's max_len up front: a model
 * may allow 4096 positions. Both structs grow by their *_forward / *_reserve calls, so
 * nothing allocates inside the step loop.
 */
#ifndef TOYTRANS_TRANSFORMER_H
#define TOYTRANS_TRANSFORMER_H

#include "base/pool.h"
#include "model/model.h"
#include "nn/attention.h"
#include "nn/net.h"

/* A batch of encoded source sentences, shared by every row decoded from them. */
typedef struct {
    const Model *model;
    int cap_B, cap_S; /* sentences and positions the buffers hold */
    int B;           /* sentences of the current batch, 0..cap_B (0: none) */
    int S;           /* positions of its longest sentence, </s> included */
    int *len;        /* (cap_B) each sentence's positions, 1..S */
    const float *memory; /* (B·S, D) encoder output after encoder.norm: sentence i's
                        len[i] rows at i·S (the rest hold nothing defined) */
    const float *att[CONFIG_MAX_LAYERS];
                     /* (B, H, S, S) encoder layer l's self-attention weights, as
                        EncLayerActs.att lays them out: (len[i], len[i]) at (i·H + h)·S·S */
    float *cross_k[CONFIG_MAX_LAYERS], *cross_v[CONFIG_MAX_LAYERS];
                     /* (B·S, D) the memory projected by decoder layer l's cross-attention
                        W_key and W_value, once per sentence: len[i] rows at i·S */
    int *pad_ids;    /* (cap_B·cap_S) a chunk's ids, each padded to the chunk's longest */
    NetActs acts;    /* the encoder's layers for a chunk of the batch (net.h): at most
                        ENCODER_CHUNK_POSITIONS / cap_S sentences, at least one */
    int chunk;       /* sentences acts holds */
    float *whole;    /* (cap_B·cap_S·D + L·cap_B·H·cap_S²) memory and att of a batch
                        taken in several chunks; when chunk < cap_B, else NULL */
    float *scratch;  /* (chunk·cap_S·D) a chunk's memory projected, before its rows move
                        to cross_k or cross_v, or NULL with whole */
    void *mem;       /* the one allocation of len, pad_ids, cross_k, cross_v, whole and
                        scratch (base/layout.h; owned) */
    const float *params_packed; /* the model's weights packed (model_params_packed), or
                              NULL; not owned */
} Encoder;

/* An encoder with no buffers yet: transformer_encode sizes them. */
int transformer_encoder_init(Encoder *e, const Model *m);
void transformer_encoder_free(Encoder *e);

/* Positions of capacity the encoder's layer activations take at once: a chunk is
 * ENCODER_CHUNK_POSITIONS / cap_S sentences, at least one (25 for the shipped model,
 * whose buffers hold its max_len of 40). A batch of more sentences runs through the layers
 * a chunk at a time, a chunk being at most that many sentences of one length (cut where
 * the length changes, so it pads nothing): a chunk's activations stay in the cache from
 * one product to the next (which a batch of 64 sentences' do not). The batches come
 * sorted by length (the translator sorts a block before cutting it into batches), so
 * chunks are long: on data/test.tsv in batches of 64, 134 chunks and 0.1 % more positions
 * than the sentences have (a batch of at most a chunk, padded to its longest, makes the
 * rest), against 22 % padded to the batch's longest and 5.9 % in chunks of 25 that are
 * not cut. An unsorted batch still gives every sentence its bits, but in more, smaller
 * chunks (one a sentence at worst). Each sentence's numbers are the same either way (row-stable
 * products, and attention within a sentence). The batch's outputs keep its own layout,
 * rows i·S.. for sentence i; a chunk's rows past a sentence's length are left as they
 * were there, and nothing reads them. 512 and 2048 measured no faster. */
#define ENCODER_CHUNK_POSITIONS 1024

/* Encodes n sentences (1..): sentence i is ids[i] (len[i] ids, </s> included, each in
 * 0..V_src-1, 1 <= len[i] <= max_len), first growing the buffers. pool may be NULL.
 * Returns TT_OK, TT_EINVAL or TT_ENOMEM (the encoder then holds no batch, B 0). */
int transformer_encode_batch(Encoder *e, const int *const *ids, const int *len, int n,
                             Pool *pool);

/* transformer_encode_batch of the one sentence ids (S of them), on the calling thread. */
int transformer_encode(Encoder *e, const int *ids, int S);

/* Sentence i's self-attention weights in encoder layer l, head h: (len[i], len[i]),
 * query rows then key columns, packed. */
const float *transformer_encoder_attention(const Encoder *e, int i, int l, int h);

/* The decoder's state for cached steps: the keys and values of every slot's positions so
 * far, the step's activations, and its attention weights. A row of a step (one sentence
 * or hypothesis) reads and extends one slot. */
typedef struct {
    const Model *model;
    int rows;        /* rows a step can take */
    int slots;       /* slots of the cache */
    int cap;         /* positions per slot */
    int S;           /* source positions the cross-attention weights hold per row */
    float *k, *v;    /* (L_dec, slots, cap, D) */
    float *self_att; /* (L_dec, rows, H, cap) */
    float *cross_att; /* (L_dec, rows, H, S) */
    int *self_len, *cross_len; /* (rows) scratch for NetDecCache */
    int *step_len;   /* (rows) ones: each row's one position */
    void *mem;       /* the one allocation of k to step_len (base/layout.h; owned) */
    int S_step;      /* the last step's source positions: its cross weights' row length */
    NetActs acts;    /* the step's activations: rows × 1 position, the decoder alone */
    const float *params_packed; /* as Encoder's */
} DecoderState;

int transformer_state_init(DecoderState *d, const Model *m);
void transformer_state_free(DecoderState *d);

/* Makes room for steps of up to rows rows over slots slots of cap positions each, and
 * sources of S positions (each 1..; cap and S at most max_len). Grows only, a length to
 * 64 positions or max_len the first time (transformer.c); the cache's contents are kept
 * only when nothing had to grow. Returns TT_OK, TT_EINVAL or TT_ENOMEM (d is then as it
 * was). */
int transformer_state_reserve(DecoderState *d, int rows, int slots, int cap, int S);

/* One step of B rows (1..rows): row b feeds tokens[b] (in 0..V_tgt-1) at position t
 * (0..cap-1) of slot slot[b], against sentence sent[b] of e, whose keys and values at
 * positions 0..t-1 the slot must already hold. Leaves the logits and attention weights
 * below. pool may be NULL. Returns TT_OK or TT_EINVAL (out of range: nothing done). */
int transformer_step(DecoderState *d, const Encoder *e, const int *tokens, const int *slot,
                     const int *sent, int B, int t, Pool *pool);

/* Row b's logits (V_tgt) after the last step. */
const float *transformer_state_logits(const DecoderState *d, int b);
/* Row b's attention weights in layer l, head h after the last step: over positions
 * 0..t (self, t + 1 values) and over its sentence's source (cross, len values). */
const float *transformer_state_self(const DecoderState *d, int l, int b, int h);
const float *transformer_state_cross(const DecoderState *d, int l, int b, int h);

/* Copies slot src's first n positions, every layer, to slot dst (beam search reorders
 * hypotheses by gathering their slots). */
void transformer_state_copy_slot(DecoderState *d, int dst, int src, int n);

#endif
