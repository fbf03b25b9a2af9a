/*
 * decode.h — the search: turning an encoded sentence into target tokens, one word at a
 * time, greedy or with a beam, through the decoder's cached steps (transformer.h). Its
 * state is a Search; "decoder" means the network only.
 *
 * The decoding rules are part of the format: another implementation must choose the same
 * words.
 *   - Greedy picks the highest logit at every step; ties go to the lowest id. With
 *     words_only (as the translator decodes), <pad> and <s> are never chosen: they are
 *     only ever inputs (<unk> is chosen, and the translator shows a source word for it).
 *     Without it every id counts, as PyTorch's arg-max does (tests/test_decode.c).
 *   - A forced prefix is always emitted in full: its tokens are fed to the decoder as
 *     given (and scored), and generation continues after them.
 *   - Generation stops after </s>, or when the output — prefix and </s> included —
 *     reaches the length limit (DecodeOptions.max_len, by default DECODE_LIMIT(S, prefix)
 *     capped at the model's max_len; decode_limit says which).
 *   - Beam 1 is greedy (an n-best list then holds greedy's output alone). Beam search
 *     (beam B >= 2) keeps B live hypotheses, all of the same length n, each with its
 *     summed log-probability s. At every step each live hypothesis offers its B + 1 most
 *     probable next tokens (ties: lower id); the offers are sorted by s + log p (ties:
 *     earlier hypothesis, then lower id) and taken best first until B offers that are
 *     not </s> have been taken: an offer of </s> on the way finishes its hypothesis, which
 *     leaves the beam (its slot goes to the next offer); the B others are the next live
 *     hypotheses, or finish as they are when they reach the length limit. (B + 1 offers
 *     each are enough: B of them are not </s>.)
 *   - No empty output: when nothing precedes it (no forced prefix), </s> is not offered
 *     at the first generated step (log-probabilities are not renormalised). After a
 *     non-empty prefix </s> may come at once: the output is the prefix.
 *   - A finished hypothesis of L tokens (prefix and </s> included) ranks by its score
 *     s / L; of equal scores the one finished first ranks higher. The B best finished
 *     ones are kept; the best is the output, and they are the n-best list
 *     (decode_n_best, decode_hypothesis).
 *   - The search stops when no hypothesis is live, or when K have finished (K = n_best,
 *     or 1 without an n-best list) and the K-th best score f satisfies f >= s_max / limit,
 *     s_max the largest s of the live hypotheses. Why that bound is safe: a live
 *     hypothesis (s <= 0, since every log-probability is <= 0; length n < limit) can only
 *     become outputs of s' = s + (further log-probabilities) <= s and L' tokens, n < L' <=
 *     limit, so s' / L' <= s / L' <= s / limit (s <= 0, and L' <= limit). The same holds
 *     in floating point: adding a value <= 0 never rounds up, and correctly rounded
 *     division is monotone. Every later hypothesis descends from a live one, so none
 *     can score above f, and one that ties f ranks after it. So the best output (and the
 *     K best) are the ones a search run on to the limit would give; K only decides how
 *     long the rest of the list is searched for, never the best output.
 * Whatever chose the tokens, the result is recorded by one teacher-forced pass through
 * the cached decoder, so the log-probabilities and attention weights it holds are exactly
 * the ones that pass computed.
 *
 * Batches: decode_batch decodes several sentences at once. They are encoded together;
 * greedy decoding (and the recorded pass) steps every sentence that has not finished as
 * one row of each product, and a finished one drops out; beam search steps the live
 * hypotheses of all the sentences still searching (up to DECODE_BEAM_ROWS at a time) as
 * the rows of one product, and a sentence whose search is done drops out. Every product
 * is row-stable (transformer.h), so a sentence's tokens, log-probabilities and attention
 * weights are the same bits whatever its batch and the threads.
 */
#ifndef TOYTRANS_DECODE_H
#define TOYTRANS_DECODE_H

#include "nn/transformer.h"

#define DECODE_MAX_BEAM 64
#define DECODE_MAX_ALTERNATIVES 32
#define DECODE_MAX_BATCH 4096
/* The most hypotheses one step of beam search runs: decode_batch searches the sentences
 * of a batch together in groups of DECODE_BEAM_ROWS / beam (>= 1: DECODE_MAX_BEAM is
 * less). */
#define DECODE_BEAM_ROWS 256

/* The default output limit for S source positions (</s> included) after a forced
 * prefix of P tokens, before the model's max_len caps it: a translation is rarely more
 * than twice as long as its source, and a model that never says </s> then stops after a
 * few dozen steps instead of running to a max_len that may be 4096. */
#define DECODE_LIMIT(S, P) ((P) + 2 * (S) + 10)

/* How to decode a sentence: every setting the search takes, in one place. Passed by
 * const pointer; decode_options_default gives greedy decoding, no prefix, the default
 * limit. The translator and the command line (--beam, --max-len, --n-best) fill the
 * same struct. */
typedef struct {
    int beam;          /* 1..DECODE_MAX_BEAM, at most the Search's beam; 1 is greedy */
    int max_len;       /* output limit in tokens, prefix and </s> included: 0 means
                          DECODE_LIMIT(S, n_prefix) capped at the model's max_len, else
                          2..the model's max_len (decode_limit) */
    int n_best;        /* 0, or the length of the n-best list wanted, 1..beam: nonzero
                          keeps the finished hypotheses (decode_n_best holds up to beam
                          of them, at least n_best when the search can finish that many;
                          the caller shows the first n_best) and searches until the
                          n_best best cannot change; beam 1 lists greedy's output */
    const int *prefix; /* (n_prefix) target ids forced at the start of the output, or
                          NULL when n_prefix is 0; not owned */
    int n_prefix;      /* 0..limit-1: at least one token is always generated */
} DecodeOptions;

/* Greedy, no prefix, the default limit, no n-best list. */
DecodeOptions decode_options_default(void);

/* The one check of a DecodeOptions: TT_OK when beam is 1..beam_max, max_len is 0 or
 * 2..len_max (len_max 0: no bound above), n_best is 0..beam, n_prefix is not negative and
 * prefix is given when n_prefix is; else TT_EINVAL. decode_batch asks it with its
 * Search's beam and the model's max_len, translator_init with DECODE_MAX_BEAM and no
 * bound (it caps the limit at the model's), the command line after its flags. */
int decode_options_check(const DecodeOptions *o, int beam_max, int len_max);

/* The output limit o gives a sentence of S source positions (</s> included) for model
 * m: o->max_len when nonzero, else DECODE_LIMIT(S, o->n_prefix) capped at max_len. */
int decode_limit(const Model *m, const DecodeOptions *o, int S);

/* The record of one translation. Its buffers grow to the longest sentence decoded so
 * far (translation_reserve, which decode_run calls) and are reused. The attention
 * weights are read through translation_cross and translation_self, which own the
 * layout. */
typedef struct {
    int L, H;         /* the model's decoder layers and heads */
    int cap;          /* steps and keys the buffers hold, 0..max_len; N below */
    int S;            /* source positions, </s> included */
    int n;            /* output tokens: prefix + generated, </s> included when produced */
    int n_forced;     /* the first n_forced tokens are the prefix */
    int *ids;         /* (N) output token ids */
    float *logprob;   /* (N) natural log-probability of each output token */
    float *cross;     /* (N, L, H, S) in room for (N, L, H, N): step i, layer l, head h
                         at ((i*L + l)*H + h)*S, packed for this S */
    float *self;      /* step i, layer l, head h's i + 1 weights at L*H*i*(i+1)/2 +
                         (l*H + h)*(i + 1), in room for (N, L, H, N) */
    int Le;           /* the model's encoder layers */
    float *enc;       /* (Le, H, S, S) the encoder's self-attention of the source, packed
                         for this S: layer l head h at ((l*H + h)*S)*S, query rows then
                         keys */
    int alt_k;        /* alternatives kept per step, 0..DECODE_MAX_ALTERNATIVES */
    int *alt_ids;     /* (N, alt_k) the most probable ids at each step, best first */
    float *alt_prob;  /* (N, alt_k) their probabilities */
} Translation;

/* A beam candidate: hypothesis hyp extended by token id. */
typedef struct {
    double score;
    int hyp, id;
} BeamCandidate;

/* Everything decoding needs for one model, beam width and batch. Buffers sized by length
 * grow before a batch to what it can need (its sources and output limits) and are
 * reused; nothing is allocated while it is decoded. */
typedef struct Search {
    const Model *model;
    int beam;            /* the widest beam this search serves, 1..DECODE_MAX_BEAM */
    int batch;           /* the most sentences decode_batch takes at once, >= 1 */
    int rows;            /* entries of the per-row arrays: at least batch, 2*beam and a
                            beam group's slots, 2 * beam per sentence */
    int cap;             /* positions the hypothesis buffers hold, 0..max_len; N below */
    int words_only;      /* 1: never choose <pad> or <s>; 0 after decode_init */
    Pool *pool;          /* threads for the products and attention, or NULL; not owned */
    float *params_packed; /* the model's weights packed (decode_pack), owned; NULL before,
                             and in a search that reads another's */
    const struct Search *owner; /* decode_init_sharing's from, whose packed weights the
                                    products read, or NULL */
    Encoder enc;
    DecoderState state;
    double *lp;          /* (rows, V_tgt) log-probabilities of each row's next token */
    int *tok, *slot, *sent; /* (rows) a step's inputs: token, cache slot, sentence */
    int *live;           /* (rows) the sentence of each live row of the recorded pass */
    double *sum;         /* (rows) each sentence's summed log-probability */
    /* Beam search's arrays, for the sentences of a group (decode_batch): a sentence r of
     * width B has the hypotheses [2*B*r, 2*B*r + 2*B) and the finished ones [B*r,
     * B*r + B). They grow with the group, the width and N, and are reused. */
    size_t hyps;         /* hypotheses the arrays hold; half as many finished ones */
    int *hyp_ids;        /* (hyps, N) tokens of each hypothesis */
    int *hyp_len;        /* (hyps) */
    double *hyp_score;   /* (hyps) summed log-probability */
    int *fin_ids;        /* (hyps / 2, N) finished hypotheses */
    int *fin_len;        /* (hyps / 2) */
    double *fin_score;   /* (hyps / 2) length-normalised score */
    double *fin_sum;     /* (hyps / 2) summed log-probability of each finished one */
    long *fin_seq;       /* (hyps / 2) when each finished, within its sentence: 0 first */
    int *fin_rank;       /* (hyps / 2) each sentence's finished ones best first: indices
                            into fin_* */
    struct BeamRun *runs; /* (hyps / 2) each sentence's search */
    int n_fin;           /* finished hypotheses kept by the last search, 0..beam; 0 after
                            a greedy decode without n_best */
    int last_n_prefix, last_limit; /* the last sentence's prefix length and limit */
    BeamCandidate *cand; /* (beam * (beam + 1)) */
    unsigned char *taken; /* (V_tgt) marks for the top-k selection */
    struct RecordJob *jobs; /* (batch) what the recorded pass does per sentence */
} Search;

/* A search of beam width beam (1..DECODE_MAX_BEAM) for batches of one sentence, on the
 * calling thread. */
int decode_init(Search *d, const Model *m, int beam);
/* A search like decode_init(d, from->model, from->beam) that reads from's packed
 * weights instead of making its own copy (one copy per model, whatever the threads),
 * from the time decode_pack(from) made them: from must outlive d. */
int decode_init_sharing(Search *d, const Search *from);
void decode_free(Search *d);

/* Packs the model's weights for the products (model_params_packed), once: a copy of the
 * matrices (4 MiB for the shipped model) that products of many rows read faster. Until
 * then the products read the weights as stored, with the same bits, so a search that
 * translates one sentence never pays for the copy. Returns TT_OK, or TT_ENOMEM (d then
 * goes on without it: the same numbers, slower). Not while d or a search sharing it
 * decodes. */
int decode_pack(Search *d);

/* Lets decode_batch take up to batch sentences (1..DECODE_MAX_BATCH) at once, with the products and
 * attention of a step run on pool (NULL: the calling thread; not owned, must outlive
 * d's use). Returns TT_OK, TT_EINVAL or TT_ENOMEM (d is then as it was). */
int decode_set_batch(Search *d, int batch, Pool *pool);

/* Whether t's output is ids[0..n), </s> included where it was produced. */
int translation_is(const Translation *t, const int *ids, int n);
/* The sum of t's log-probabilities, each a float, added in order in double: what
 * decode_score_batch gives the same tokens against the same source, bit for bit. */
double translation_logprob_sum(const Translation *t);

/* A record with no room yet (cap 0): translation_reserve or decode_run makes it. */
int translation_init(Translation *t, const Model *m, int alt_k);
void translation_free(Translation *t);
/* Makes room for n steps of n keys (1..max_len), discarding the record. Returns TT_OK,
 * TT_EINVAL or TT_ENOMEM (the record is then as it was, emptied). */
int translation_reserve(Translation *t, const Model *m, int n);

/* Step i's attention weights in decoder layer l, head h (0 <= i < t->n, 0 <= l < t->L,
 * 0 <= h < t->H): over the source (t->S values) and over <s> and the outputs before it
 * (i + 1 values). */
const float *translation_cross(const Translation *t, int i, int l, int h);
const float *translation_self(const Translation *t, int i, int l, int h);

/* Which attention of a Translation to read. */
typedef enum {
    TRANSLATION_CROSS, /* decoder → source tokens: S values per step */
    TRANSLATION_SELF,  /* decoder → <s> and earlier outputs: step + 1 values */
} TranslationAttention;

#define TRANSLATION_HEAD_MEAN (-1) /* translation_weight: the mean over the heads */

/* The weight step `step` gave key j (0..S-1 for TRANSLATION_CROSS, 0..step for
 * TRANSLATION_SELF) in decoder layer `layer` (0..t->L-1), head `head` (0..t->H-1) or the
 * heads' mean (TRANSLATION_HEAD_MEAN, summed in double). */
float translation_weight(const Translation *t, TranslationAttention kind, int step, int j,
                         int layer, int head);

/* Decodes source ids (S, </s> included) as o says: greedy for beam 1, else beam
 * search. Grows d's and out's buffers to max(S, limit) positions
 * first. Returns TT_OK, TT_EINVAL (o out of range or beyond the beam given to
 * decode_init, source too long, ids out of range, prefix >= limit), TT_ENOMEM, or
 * TT_EMODEL when the model computes a logit that is NaN or infinite (finite weights too
 * large for float arithmetic): nothing it would output could be trusted. Beam 1 is
 * greedy to the bit, with or without o->n_best, which tests check. */
int decode_run(Search *d, Translation *out, const int *src, int S, const DecodeOptions *o);

/* Decodes n sentences (1..d->batch) as o says, sentence i from src[i] (S[i] ids, </s>
 * included) into out[i], each exactly as decode_run would (the same bits). o->prefix
 * applies to every sentence; o->n_best must be 0 unless n is 1 (the n-best list is one
 * sentence's). Returns what decode_run returns; on failure no out[i] can be trusted. */
int decode_batch(Search *d, Translation *const *out, const int *const *src, const int *S,
                 int n, const DecodeOptions *o);

/* The n-best list of the sentence last decoded (decode_run with beam > 1 or n_best): how
 * many finished hypotheses were kept, at most the beam (1 for beam 1: greedy's output);
 * 0 after greedy decoding without n_best. They are ranked best first by their
 * length-normalised score (ties: the one finished first), so hypothesis 0 is the one
 * decoded into the Translation. */
/* Scores given outputs instead of choosing them: sentence i's target[i] (n_target[i] ids,
 * 1..the model's max_len, </s> included if it should count; NULL: not scored, sum[i]
 * NAN) forced through the decoder
 * from <s>, for n sentences at once (1..the search's batch); sum[i] gets the sum of its
 * tokens' log-probabilities, each rounded to float before it is added in double (as
 * Translation.logprob holds them, so a sum equals one over a recorded decode_run of the
 * same tokens), bit for bit the same whatever n and the other sentences. Nothing is
 * recorded. Returns TT_OK, TT_EINVAL (a length or id out of range), TT_ENOMEM, or
 * TT_EMODEL (a NaN or infinite logit); sum is then unspecified. */
int decode_score_batch(Search *d, const int *const *src, const int *S, int n,
                       const int *const *target, const int *n_target, double *sum);
/* The same for the sentences the last decode_batch encoded, in its order (n of them): the
 * encoder's pass is not run again, and the sums are decode_score_batch's, bit for bit.
 * Returns as decode_score_batch, or TT_EINVAL when nothing has been encoded. */
int decode_score_encoded(Search *d, const int *const *target, const int *n_target,
                         double *sum);

int decode_n_best(const Search *d);

/* Hypothesis k (0 <= k < decode_n_best(d)) of that list: *ids its tokens (prefix and a
 * final </s> included; owned by d, valid until its next decode), *n their count,
 * *logprob the sum of their log-probabilities, *score that sum / *n, which ranks them. */
void decode_hypothesis(const Search *d, int k, const int **ids, int *n, double *logprob,
                       double *score);

/* Records hypothesis k into out with the same teacher-forced pass that recorded the best
 * one (so out holds its log-probabilities and attention), for the sentence last
 * decoded. Returns TT_OK, TT_EINVAL (k out of range), TT_EMODEL. */
int decode_record_hypothesis(Search *d, Translation *out, int k);

/* The natural log-softmax of logits (V) into out (V), in double. */
void decode_log_softmax(double *out, const float *logits, int V);

/* The source position (0..S-2, never </s>) that step i attended to most in the last
 * decoder layer, heads averaged. */
int translation_most_attended(const Translation *t, const Model *m, int step);

#endif
