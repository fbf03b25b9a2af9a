/*
 * net.h — the encoder-decoder as layers over a batch of sentences: each layer's forward
 * and backward pass side by side, as llm.c lays out gpt2_forward and gpt2_backward.
 *
 * The folder nn/ holds the network: one head of attention, the layers, this encoder-
 * decoder over a batch, and translation's side of it (transformer.h: the encoder once,
 * the decoder a step at a time). It stands on model/ and base/. docs/design.md lists the
 * folders and their modules.
 *
 * Letters: B sentences, S source and T target positions of the batch (its longest
 * sentence; shorter ones are padded), D d_model, H heads, Dh = D / H, F d_ff, V target
 * vocabulary, L layers. Rows: position t of sentence b is row b·T + t (b·S + t on the
 * source side) of every (B·T, ·) tensor, so every Linear layer is one product over the
 * whole batch.
 *
 * Padding: the lengths are the masks. Sentence b has src_len[b] source and tgt_len[b]
 * target rows; attention of its queries sees only its own keys (its real ones, and for the
 * decoder's self-attention only those up to the query), padding query rows get a zero
 * context, the embedding of a padding row is zero, and the loss and its gradient skip
 * padding rows. A padding row's gradient is therefore exactly zero all the way down, and
 * a batch's gradient is the sum of its sentences' gradients (tests/test_backprop.c).
 *
 * Threads: every layer splits its work into tasks fixed by the batch's shape (blocks of
 * rows, blocks of a weight gradient's rows, one sentence and head of attention), run on a
 * Pool (pool.h). A task sums in its own fixed order — a weight gradient's row sums over
 * all the batch's rows in order — so the results do not depend on the thread count.
 *
 * Activations: every tensor a layer keeps for its backward pass, and the backward
 * scratch, are views into one block allocated from one table (net_acts_layout, through
 * base/layout.h, as translation's encoder and decoder cache allocate theirs), like the
 * parameters (model.h).
 */
#ifndef TOYTRANS_NET_H
#define TOYTRANS_NET_H

#include "base/pool.h"
#include "base/rng.h"
#include "model/model.h"

/* The shape of one batch. */
typedef struct {
    int B;              /* sentences, 1..capacity */
    int S;              /* source positions: max src_len, 1..capacity */
    int T;              /* target positions: max tgt_len, 1..capacity */
    const int *src_len; /* (B) source positions of each sentence, </s> included, 1..S */
    const int *tgt_len; /* (B) decoder positions of each sentence, <s> included, 1..T */
} NetBatch;

/* What a layer needs besides its weights and activations. */
typedef struct {
    int D, H, F, V;     /* d_model, heads, d_ff, target vocabulary */
    float eps;          /* LayerNorm epsilon */
    Pool *pool;         /* NULL: every task on the calling thread */
    float dropout;      /* probability of zeroing an activation; 0: no dropout */
    Rng *rng;           /* (B) each sentence's dropout generator, used when dropout > 0 */
    int row_stable;     /* 1: every product computes each row from that row alone
                           (kernel_matmul_nt_rows), so a sentence's numbers do not depend on
                           the sentences or the threads it shares a batch with
                           (translation); 0: the kernel chooses by shape (training) */
    const float *params;   /* with row_stable: the model's parameter block, and */
    const float *params_packed; /* model_params_packed's copy of it, or NULL: a Linear
                                   weight inside params is read packed at its offset here
                                   (kernel_matmul_packed, the same bits without copying
                                   it into panels on every call) */
    size_t n_params;
} NetCtx;

/* One encoder layer's activations: x += SelfAttn(LN1(x)); x += FFN(LN2(x)). */
typedef struct {
    float *x;           /* (B·S, D) the layer's input, the residual stream */
    float *h1, *st1;    /* (B·S, D) LN1 output; (2, B·S) its mean and 1/std */
    float *q, *k, *v;   /* (B·S, D) projections, heads side by side */
    float *att;         /* (B, H, S, S) weights: sentence b head h at (b·H+h)·S·S, packed
                           as (src_len[b], src_len[b]) */
    float *ctx;         /* (B·S, D) heads' contexts, before the output projection */
    float *mid;         /* (B·S, D) the stream after the attention block */
    float *h2, *st2;    /* (B·S, D) LN2 output; (2, B·S) */
    float *ff;          /* (B·S, F) ReLU output */
    float *drop1, *drop2; /* (B·S, D) dropout masks of the two blocks, or NULL */
} EncLayerActs;

/* One decoder layer's activations: x += CausalSelfAttn(LN1(x));
 * x += CrossAttn(LN2(x), memory); x += FFN(LN3(x)). */
typedef struct {
    float *x;           /* (B·T, D) */
    float *h1, *st1;    /* (B·T, D); (2, B·T) */
    float *q, *k, *v;   /* (B·T, D) */
    float *att;         /* (B, H, T, T), packed (tgt_len[b], tgt_len[b]), causal */
    float *ctx;         /* (B·T, D) */
    float *mid1;        /* (B·T, D) after self-attention */
    float *h2, *st2;    /* (B·T, D); (2, B·T) */
    float *cq;          /* (B·T, D) cross-attention queries */
    float *ck, *cv;     /* (B·S, D) memory projected to keys and values */
    float *catt;        /* (B, H, T, S), packed (tgt_len[b], src_len[b]) */
    float *cctx;        /* (B·T, D) */
    float *mid2;        /* (B·T, D) after cross-attention */
    float *h3, *st3;    /* (B·T, D); (2, B·T) */
    float *ff;          /* (B·T, F) */
    float *drop1, *drop2, *drop3; /* (B·T, D) dropout masks, or NULL */
} DecLayerActs;

/* The backward pass's scratch; R = max(S, T). */
typedef struct {
    float *dh;          /* (B·R, D) gradient by a block's normalised input */
    float *dy;          /* (B·R, D) gradient by a block's output, after dropout */
    float *dq, *dk, *dv, *dctx; /* (B·R, D) */
    float *dff;         /* (B·R, F) */
    float *dscores;     /* (B, H, R, R) */
} NetScratch;

/* Everything one batch's forward and backward passes keep. */
typedef struct {
    int B, S, T;        /* capacity */
    int n_enc, n_dec;   /* layers */
    int dropout;        /* 1: the dropout masks are allocated */
    float *src_drop;    /* (B·S, D) source embedding dropout mask, or NULL */
    float *tgt_drop;    /* (B·T, D) or NULL */
    EncLayerActs enc[CONFIG_MAX_LAYERS];
    float *enc_top;     /* (B·S, D) the last encoder layer's output */
    float *memory, *mem_st; /* (B·S, D) encoder.norm output; (2, B·S) */
    DecLayerActs dec[CONFIG_MAX_LAYERS];
    float *dec_top;     /* (B·T, D) the last decoder layer's output */
    float *final_h, *final_st; /* (B·T, D) decoder.norm output; (2, B·T) */
    float *logits;      /* (B·T, V); the backward pass turns it into the loss's gradient */
    float *d_enc;       /* (B·S, D) gradient by the encoder's residual stream */
    float *d_dec;       /* (B·T, D) gradient by the decoder's residual stream */
    float *d_mem;       /* (B·S, D) gradient by the memory */
    NetScratch s;
    double *lse;        /* (B·T) log-sum-exp of each logits row, kept by the loss */
    double *loss;       /* (B) each sentence's summed loss */
    void *block_mem;    /* the one allocation of the float tensors above, each at a
                           cache line (base/layout.h; owned) */
} NetActs;

/* One row of the activation table: a tensor's name, its shape and where its view goes. */
typedef struct {
    char name[48];      /* e.g. "decoder.1.catt" */
    size_t rows, cols;  /* rows >= 0 (0 when absent), cols >= 1 */
    float **slot;       /* the NetActs field that views it */
} NetActSpec;

/* The table for m at capacity (B, S, T), dropout masks included when dropout is 1:
 * writes up to max rows into specs (NULL to count only) and returns how many there are.
 * T = 0 is the encoder's forward pass alone (translation's encoder, transformer_encode):
 * its layers, enc_top and memory, and nothing of the decoder or the backward pass.
 * S = 0 is the decoder alone, for its cached steps (net_decoder_forward with a
 * NetDecCache): nothing of the encoder, and no memory projections. */
int net_acts_layout(NetActs *a, const Model *m, int B, int S, int T, int dropout,
                    NetActSpec *specs, int max);

/* Allocates a's block for capacity (B, S, T) from the table (T 0: the encoder's forward
 * pass only; S 0: the decoder's cached steps only, T >= 1). Returns TT_OK, TT_EINVAL
 * (a dimension out of range, or more than CONFIG_MAX_ATTENTION_FLOATS per tensor) or
 * TT_ENOMEM; on failure a owns nothing. net_acts_free accepts a zeroed or freed a. */
int net_acts_init(NetActs *a, const Model *m, int B, int S, int T, int dropout);
void net_acts_free(NetActs *a);

/* The encoder, as training and translation run it: embeddings, every layer, the final
 * norm, into a->memory (B·S, D); src_ids (B·S) padded like the rows. */
void net_encoder_forward(NetActs *a, const Model *m, const int *src_ids, const NetBatch *nb,
                         const NetCtx *c);

/* Translation's decoder state for one step of net_decoder_forward: every position's keys
 * and values so far, the memory projected once per sentence, and where this step's rows
 * find theirs. Every buffer is the caller's. Row b of the step (a sentence, or a
 * hypothesis of one) reads cache slot slot[b] and sentence sent[b]'s memory; all rows
 * are at the same position t. L = n_decoder_layers. */
typedef struct {
    int t;              /* the step's position: the keys cached before it, 0..cap-1 */
    int cap;            /* positions a slot of self_k and self_v holds */
    int S;              /* rows per sentence of cross_k and cross_v */
    float *self_k[CONFIG_MAX_LAYERS], *self_v[CONFIG_MAX_LAYERS];
                        /* (slots, cap, D): slot r position p at (r·cap + p)·D; the step
                           writes position t of each of its rows' slots */
    const float *cross_k[CONFIG_MAX_LAYERS], *cross_v[CONFIG_MAX_LAYERS];
                        /* (sentences, S, D): sentence i's memory projected by layer l's
                           cross-attention W_key, W_value, rows i·S .. */
    const int *slot;    /* (B) each row's slot */
    const int *sent;    /* (B) each row's sentence */
    const int *self_len; /* (B) t + 1 for every row: the keys its query sees */
    const int *cross_len; /* (B) its sentence's source positions, 1..S */
    float *self_att[CONFIG_MAX_LAYERS];  /* (B, H, cap) out: row b head h at (b·H + h)·cap,
                                            t + 1 values written */
    float *cross_att[CONFIG_MAX_LAYERS]; /* (B, H, S) out: at (b·H + h)·S, cross_len[b]
                                            values written */
} NetDecCache;

/* The decoder, as training and translation run it: target embeddings, every layer, the
 * final norm and the generator, into a->logits. Without a cache (training), tgt_ids
 * (B·T) padded like the rows, against a->memory. With one, a step of translation: T = 1,
 * tgt_len all 1, tgt_ids (B) the token at position cache->t of each row, the keys and
 * values appended to the cache, logits (B, V), attention weights in cache->self_att and
 * cross_att; a (net_acts_init with S = 0) holds the step's activations. */
void net_decoder_forward(NetActs *a, const Model *m, const int *tgt_ids, const NetBatch *nb,
                         const NetDecCache *cache, const NetCtx *c);

/* ---- the layers: outputs, then caches, then inputs and weights, then the batch ---- */

/* out[b·T + t] = table[ids[b·T + t]] · √D + pe[t] for t < len[b]; padding rows 0; then
 * dropout with mask (when c->dropout > 0). out (B·T, D), ids (B·T), pe (T, D). */
void net_embed_forward(float *out, float *mask, const float *table, const float *pe,
                       const int *ids, const int *len, int B, int T, const NetCtx *c);
/* dtable[ids[r]] += mask ⊙ dout[r] · √D over real rows r. dtable (V, D). */
void net_embed_backward(float *dtable, const float *dout, const float *mask, const int *ids,
                        const int *len, int B, int T, const NetCtx *c);

/* A Linear layer over M rows: out (M, N) = x (M, K) · wᵀ + b, on c's pool. With
 * c->row_stable its products are row-stable, from c->params_packed when w lies in c->params. */
void net_linear_forward(float *out, const float *x, const float *w, const float *b, int M,
                        int K, int N, const NetCtx *c);

/* LayerNorm of all n rows: out, mean/rstd in st (2, n). */
void net_norm_forward(float *out, float *st, const float *x, const float *w, const float *b,
                      int n, const NetCtx *c);
/* dx (n, D) += …; dw, db (D) += …, each column summed over the rows in order. */
void net_norm_backward(float *dx, float *dw, float *db, const float *dout, const float *x,
                       const float *st, const float *w, int n, const NetCtx *c);

/* ---- multi-head attention over the batch: what every encoder and decoder layer runs ---- */

/* How a block ends when a layer fuses its residual sum (and the next LayerNorm) into the
 * block's last Linear layer: private to net.c; callers outside it pass NULL. */
typedef struct Residual Residual;

/* One multi-head attention block over a batch: its weights and gradient views, and the
 * activations the forward pass keeps for the backward pass, all the caller's. Sentence b
 * has rows b·Tq .. b·Tq + lq[b] − 1 of the queries and b·Tk .. b·Tk + lk[b] − 1 of the
 * keys and values; the rest of its Tq and Tk rows are padding. */
typedef struct {
    const MhaWeights *w; /* d_model D, n_heads H as in the NetCtx; biases may be NULL */
    const MhaWeights *g; /* backward: gradients laid out like w (a NULL bias where w's is
                            NULL), added to; forward: unused */
    float *q;           /* (B·Tq, D) projected queries, heads side by side */
    float *k, *v;       /* (B·Tk, D) projected keys and values */
    float *att;         /* (B, H, Tq, Tk) weights: sentence b head h at (b·H+h)·Tq·Tk,
                           packed as (lq[b], lk[b]) */
    float *ctx;         /* (B·Tq, D) heads' contexts before the output projection; 0 in
                           padding rows */
    const int *lq, *lk; /* (B) each sentence's real query rows 1..Tq and key rows 1..Tk */
    int Tq, Tk;         /* rows per sentence, padding included */
    int causal;         /* 1: query t sees keys 0..t only (decoder self-attention;
                           lq[b] <= lk[b]) */
    const int *kv_block; /* (B) or NULL: sentence b's keys and values are block
                           kv_block[b] of k and v (rows kv_block[b]·Tk ..), so that a
                           beam's hypotheses share their sentence's memory; NULL: block b */
    int kv_cached;      /* 0: k and v are projected from xkv. NET_KV_GIVEN: k and v hold
                           them already (the memory, projected once per sentence) and xkv
                           is unused. NET_KV_APPEND: one step of cached self-attention
                           (Tq 1): xkv's row b is projected into k_new and v_new, copied to
                           row lk[b] − 1 of its block of k and v, and the query reads the
                           block's first lk[b] rows — exactly the causal mask */
    float *k_new, *v_new; /* NET_KV_APPEND: (B, D) this step's keys and values */
} NetMha;

enum { NET_KV_GIVEN = 1, NET_KV_APPEND = 2 };

/* out (B·Tq, D) = concat_h(head_h) · W_outᵀ + b_out with head h = attention(xq·W_qᵀ+b_q,
 * xkv·W_kᵀ+b_k, xkv·W_vᵀ+b_v) on the h-th column slice of width Dh, scale 1/√Dh, per
 * sentence over its real rows (a padding row's context is 0, so its output is b_out);
 * then what `after` says (NULL: nothing more). Fills m's q, k, v, att and ctx.
 * xq (B·Tq, D); xkv (B·Tk, D), the same pointer as xq for self-attention. */
void net_mha_forward(float *out, const NetMha *m, const float *xq, const float *xkv, int B,
                     const Residual *after, const NetCtx *c);
/* The backward pass of net_mha_forward, whose activations m still holds: dxq (B·Tq, D)
 * written; dxkv (B·Tk, D) added to — for self-attention pass one buffer for both, and the
 * query's part is written, then the key's and the value's added; m->g's gradients added
 * to. dout (B·Tq, D). Uses only s's dq, dk, dv, dctx and dscores, of at least B·max(Tq,
 * Tk) rows and B·H·Tq·Tk floats. */
void net_mha_backward(float *dxq, float *dxkv, NetScratch *s, const float *dout,
                      const NetMha *m, const float *xq, const float *xkv, int B,
                      const NetCtx *c);

/* ---- the layers ---- */

/* out = one encoder layer of a->x (which the caller filled). out (B·S, D). */
void net_encoder_layer_forward(float *out, EncLayerActs *a, const EncoderLayer *w,
                               const NetBatch *nb, const NetCtx *c);
/* d (B·S, D): the gradient by the layer's output in, by its input out. g: the layer's
 * gradient views (written through: the block is the caller's gradient block). */
void net_encoder_layer_backward(float *d, NetScratch *s, const EncoderLayer *g,
                                const EncLayerActs *a, const EncoderLayer *w, const NetBatch *nb,
                                const NetCtx *c);

/* out = one decoder layer of a->x against memory (B·S, D). out (B·T, D). With a cache
 * (memory then unused), a step of layer l as net_decoder_forward describes. */
void net_decoder_layer_forward(float *out, DecLayerActs *a, const float *memory,
                               const DecoderLayer *w, const NetBatch *nb,
                               const NetDecCache *cache, int l, const NetCtx *c);
/* As net_encoder_layer_backward, and dmemory (B·S, D) += the gradient by the memory. */
void net_decoder_layer_backward(float *d, float *dmemory, NetScratch *s, const DecoderLayer *g,
                                const DecLayerActs *a, const float *memory, const DecoderLayer *w,
                                const NetBatch *nb, const NetCtx *c);

/* logits (n, V) = h · Wᵀ + b. */
void net_generator_forward(float *logits, const float *h, const float *w, const float *b,
                           int n, const NetCtx *c);
/* dh (n, D) += dlogits · W; dw, db += … */
void net_generator_backward(float *dh, float *dw, float *db, const float *dlogits,
                            const float *h, const float *w, int n, const NetCtx *c);

/* Cross-entropy with label smoothing ls (target (1−ls)·onehot + ls/V, as PyTorch) of
 * every real row: loss[b] = the sum over sentence b's rows, labels (B·T); keeps each
 * row's log-sum-exp in lse (B·T). */
void net_xent_forward(double *loss, double *lse, const float *logits, const int *labels,
                      const NetBatch *nb, float ls, const NetCtx *c);
/* dlogits = the gradient of Σ_b loss[b] by the logits, 0 in padding rows; dlogits may be
 * logits itself. */
void net_xent_backward(float *dlogits, const float *logits, const double *lse,
                       const int *labels, const NetBatch *nb, float ls, const NetCtx *c);

#endif
