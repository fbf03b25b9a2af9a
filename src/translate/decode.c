/*
 * decode.c — greedy decoding, beam search, and the recorded pass.
 *
 * Beam search only decides which tokens to output. The output is then replayed through
 * the cached decoder with every token forced, once, and that pass records the
 * log-probabilities, the attention weights and the alternatives. Greedy decoding is that
 * same pass choosing the arg-max as it goes, which is why --beam 1 and greedy agree to
 * the bit.
 */
#include "translate/decode.h"

#include "base/kernel.h"
#include "base/status.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The log of the softmax's denominator, log Σ exp(logits[v]) (V), as the maximum plus
 * the log of the terms shifted by it; *argmax gets the first index of the maximum. */
static double log_normaliser(const float *logits, int V, int *argmax)
{
    float max = logits[0];
    int best = 0;
    for (int v = 1; v < V; v++)
        if (logits[v] > max) {
            max = logits[v];
            best = v;
        }
    *argmax = best;
    const double sum = kernel_exp_sum_f64(logits, max, V);
    /* cppcheck-suppress invalidFunctionArg ; sum >= 1: the maximum's term is exp(0) */
    return (double)max + log(sum);
}

void decode_log_softmax(double *out, const float *logits, int V)
{
    int argmax;
    const double lse = log_normaliser(logits, V, &argmax);
    for (int v = 0; v < V; v++)
        out[v] = (double)logits[v] - lse;
}

/* Refuses a step's non-finite logit: weights that are finite but huge (3e38) overflow to
 * Inf and NaN inside the forward pass, and an arg-max over NaN would pick <pad> with a
 * NaN log-probability. */
static int logits_check(const float *logits, int V)
{
    int finite = 1;
    for (int v = 0; v < V; v++)
        finite &= isfinite(logits[v]) != 0;
    return finite ? TT_OK : TT_EMODEL;
}

/* decode_log_softmax of a step's logits, refusing a non-finite one (logits_check). */
static int log_softmax_checked(double *out, const float *logits, int V)
{
    if (logits_check(logits, V) != TT_OK)
        return TT_EMODEL;
    decode_log_softmax(out, logits, V);
    return TT_OK;
}

/* Whether the search may choose id: with words_only, never <pad> or <s>, which are only
 * ever inputs. */
static int may_choose(const Search *d, int id)
{
    return !d->words_only || (id != VOCAB_PAD && id != VOCAB_BOS);
}

/* Fills ids with the k best entries of x (V values), best first, ties to the lower id;
 * ids already marked in taken are passed over. taken (V) is scratch: the marks this
 * call makes are cleared again. */
static void top_k(int *ids, int k, const double *x, int V, unsigned char *taken)
{
    for (int j = 0; j < k; j++) {
        int best = -1;
        for (int v = 0; v < V; v++)
            if (!taken[v] && (best < 0 || x[v] > x[best]))
                best = v;
        ids[j] = best;
        taken[best] = 1;
    }
    for (int j = 0; j < k; j++)
        taken[ids[j]] = 0;
}

/* ---------------------------------------------------------------------------------------
 * Set-up
 */

void translation_free(Translation *t)
{
    if (!t)
        return;
    free(t->alt_prob);
    free(t->alt_ids);
    free(t->enc);
    free(t->self);
    free(t->cross);
    free(t->logprob);
    free(t->ids);
    memset(t, 0, sizeof *t);
}

int translation_init(Translation *t, const Model *m, int alt_k)
{
    memset(t, 0, sizeof *t);
    if (alt_k < 0 || alt_k > DECODE_MAX_ALTERNATIVES)
        return TT_EINVAL;
    t->L = m->config.n_decoder_layers;
    t->Le = m->config.n_encoder_layers;
    t->H = m->config.n_heads;
    t->alt_k = alt_k > m->tgt_vocab.size ? m->tgt_vocab.size : alt_k;
    return TT_OK;
}

int translation_reserve(Translation *t, const Model *m, int n)
{
    t->S = t->n = t->n_forced = 0;
    if (n < 1 || n > m->config.max_len)
        return TT_EINVAL;
    if (n <= t->cap)
        return TT_OK;
    const size_t N = (size_t)n, LH = (size_t)t->L * (size_t)t->H;
    const size_t K = (size_t)(t->alt_k ? t->alt_k : 1);
    Translation g = {.L = t->L, .Le = t->Le, .H = t->H, .cap = n, .alt_k = t->alt_k};
    g.enc = malloc(sizeof(float) * (size_t)(t->Le ? t->Le : 1) * t->H * N * N);
    g.ids = malloc(sizeof(int) * N);
    g.logprob = malloc(sizeof(float) * N);
    /* Not zeroed: a record's readers see only what its steps wrote (S and i + 1 values
     * a row), and zeroing the room a sentence leaves unused touched most of the memory
     * translating a file in batches took (batch 32: 8,852 page faults, was 11,013). */
    g.cross = malloc(sizeof(float) * N * LH * N);
    g.self = malloc(sizeof(float) * N * LH * N);
    g.alt_ids = malloc(sizeof(int) * N * K);
    g.alt_prob = malloc(sizeof(float) * N * K);
    if (!g.ids || !g.logprob || !g.cross || !g.self || !g.enc || !g.alt_ids || !g.alt_prob) {
        translation_free(&g);
        return TT_ENOMEM;
    }
    translation_free(t);
    *t = g;
    return TT_OK;
}

int translation_is(const Translation *t, const int *ids, int n)
{
    return t->n == n && (n == 0 || memcmp(t->ids, ids, sizeof(int) * (size_t)n) == 0);
}

double translation_logprob_sum(const Translation *t)
{
    double sum = 0.0;
    for (int i = 0; i < t->n; i++)
        sum += (double)t->logprob[i];
    return sum;
}

/* The one place that knows the record's layout: step i, layer l, head h's row of
 * cross-attention weights, S keys, the steps' rows one after the other; and of
 * self-attention weights, i + 1 keys, step i's rows after the i(i+1)/2 rows' worth of
 * the steps before it. A sentence's rows are consecutive floats, however much room the
 * record has. */
static float *record_cross(const Translation *t, int i, int l, int h)
{
    assert(i >= 0 && i < t->cap && l >= 0 && l < t->L && h >= 0 && h < t->H);
    return t->cross + (((size_t)i * t->L + l) * t->H + h) * (size_t)t->S;
}

static float *record_self(const Translation *t, int i, int l, int h)
{
    assert(i >= 0 && i < t->cap && l >= 0 && l < t->L && h >= 0 && h < t->H);
    const size_t LH = (size_t)t->L * (size_t)t->H, before = (size_t)i * (size_t)(i + 1) / 2;
    return t->self + LH * before + ((size_t)l * t->H + h) * (size_t)(i + 1);
}

const float *translation_cross(const Translation *t, int i, int l, int h)
{
    return record_cross(t, i, l, h);
}

const float *translation_self(const Translation *t, int i, int l, int h)
{
    return record_self(t, i, l, h);
}

float translation_weight(const Translation *t, TranslationAttention kind, int step, int j,
                         int layer, int head)
{
    assert(step >= 0 && step < t->n && layer >= 0 && layer < t->L);
    assert(head == TRANSLATION_HEAD_MEAN || (head >= 0 && head < t->H));
    assert(j >= 0 && j < (kind == TRANSLATION_CROSS ? t->S : step + 1));
    const float *(*row)(const Translation *, int, int, int) =
        kind == TRANSLATION_CROSS ? translation_cross : translation_self;
    if (head != TRANSLATION_HEAD_MEAN)
        return row(t, step, layer, head)[j];
    double s = 0.0;
    for (int h = 0; h < t->H; h++)
        s += row(t, step, layer, h)[j];
    return (float)(s / t->H);
}

/* What the recorded pass does for one sentence. */
typedef struct RecordJob {
    Translation *out;
    const int *forced;   /* the tokens forced first: the prefix, or all of a beam's output */
    int n_forced;
    int n_prefix;        /* the first n_prefix of them are the prefix */
    int limit;
} RecordJob;

/* One sentence's beam search in a batch. Its hypotheses live in slots [2*B*r, 2*B*r +
 * 2*B) of the decoder state and of d->hyp_* (two generations of B: the live one from cur,
 * the next one gathered from nxt), its finished ones in entries [fin, fin + B) of
 * d->fin_*; r is its place in the group. */
typedef struct BeamRun {
    int sent;    /* the sentence in the encoder batch */
    int cur, nxt; /* the first slot of the live generation and of the next */
    int alive;   /* live hypotheses, in slots [cur, cur + alive) */
    int fin;     /* its first entry in d->fin_* */
    int n_fin;   /* finished hypotheses kept, 0..B */
    int limit;   /* its output limit */
    int done;    /* 1 once the search may stop */
    long seq;    /* finished hypotheses so far, kept or not: their order */
} BeamRun;

/* Frees the beam arrays (beam_reserve's) and forgets them. */
static void beam_free(Search *d)
{
    free(d->runs);
    free(d->fin_rank);
    free(d->fin_seq);
    free(d->fin_sum);
    free(d->fin_score);
    free(d->fin_len);
    free(d->fin_ids);
    free(d->hyp_score);
    free(d->hyp_len);
    free(d->hyp_ids);
    d->runs = NULL;
    d->fin_rank = d->fin_len = d->fin_ids = d->hyp_len = d->hyp_ids = NULL;
    d->fin_seq = NULL;
    d->fin_sum = d->fin_score = d->hyp_score = NULL;
    d->hyps = 0;
    d->cap = 0;
}

void decode_free(Search *d)
{
    if (!d)
        return;
    free(d->taken);
    free(d->cand);
    beam_free(d);
    free(d->jobs);
    free(d->sum);
    free(d->live);
    free(d->sent);
    free(d->slot);
    free(d->tok);
    free(d->lp);
    transformer_state_free(&d->state);
    transformer_encoder_free(&d->enc);
    free(d->params_packed);
    memset(d, 0, sizeof *d);
}

/* The per-row arrays for rows rows, the jobs kept (a caller may fill them before a
 * reservation); on failure d keeps its own. */
static int rows_reserve(Search *d, int rows)
{
    if (rows <= d->rows)
        return TT_OK;
    const size_t R = (size_t)rows, V = (size_t)d->model->tgt_vocab.size;
    double *lp = malloc(sizeof(double) * R * V), *sum = malloc(sizeof(double) * R);
    int *tok = malloc(sizeof(int) * R), *slot = malloc(sizeof(int) * R);
    int *sent = malloc(sizeof(int) * R), *live = malloc(sizeof(int) * R);
    RecordJob *jobs = malloc(sizeof(RecordJob) * R);
    if (!lp || !sum || !tok || !slot || !sent || !live || !jobs) {
        free(jobs);
        free(live);
        free(sent);
        free(slot);
        free(tok);
        free(sum);
        free(lp);
        return TT_ENOMEM;
    }
    if (d->rows > 0)
        memcpy(jobs, d->jobs, sizeof(RecordJob) * (size_t)d->rows);
    free(d->jobs);
    free(d->live);
    free(d->sent);
    free(d->slot);
    free(d->tok);
    free(d->sum);
    free(d->lp);
    d->jobs = jobs;
    d->lp = lp;
    d->sum = sum;
    d->tok = tok;
    d->slot = slot;
    d->sent = sent;
    d->live = live;
    d->rows = rows;
    return TT_OK;
}

static int decode_init_with(Search *d, const Model *m, int beam, const Search *owner)
{
    memset(d, 0, sizeof *d);
    if (beam < 1 || beam > DECODE_MAX_BEAM)
        return TT_EINVAL;
    d->model = m;
    d->beam = beam;
    d->batch = 1;
    const size_t B = (size_t)beam, V = (size_t)m->tgt_vocab.size;
    int rc = transformer_encoder_init(&d->enc, m);
    if (rc == TT_OK)
        rc = transformer_state_init(&d->state, m);
    d->owner = owner;
    if (rc == TT_OK)
        rc = rows_reserve(d, 2 * beam);
    if (rc == TT_OK) {
        d->cand = malloc(sizeof(BeamCandidate) * B * (B + 1));
        d->taken = calloc(V, 1);
        if (!d->cand || !d->taken)
            rc = TT_ENOMEM;
    }
    if (rc != TT_OK)
        decode_free(d);
    return rc;
}

int decode_init(Search *d, const Model *m, int beam)
{
    return decode_init_with(d, m, beam, NULL);
}

int decode_init_sharing(Search *d, const Search *from)
{
    return decode_init_with(d, from->model, from->beam, from);
}

int decode_pack(Search *d)
{
    if (d->owner || d->params_packed)
        return TT_OK;
    d->params_packed = model_params_packed(d->model);
    return d->params_packed ? TT_OK : TT_ENOMEM;
}

/* Points the encoder and the step at the packed weights decode_pack made, d's own or its
 * owner's (NULL before: the weights as stored). At the start of every call that runs
 * the network, so that a search sharing another's sees the copy made since its init. */
static void use_packed(Search *d)
{
    d->enc.params_packed = d->state.params_packed =
        d->owner ? d->owner->params_packed : d->params_packed;
}

int decode_set_batch(Search *d, int batch, Pool *pool)
{
    if (batch < 1 || batch > DECODE_MAX_BATCH)
        return TT_EINVAL;
    int rc = rows_reserve(d, batch);
    if (rc != TT_OK)
        return rc;
    d->batch = batch;
    d->pool = pool;
    return TT_OK;
}

/* The beam arrays for `sents` sentences of width B (1..d->beam) and hypotheses of up to
 * N tokens; on failure d keeps its own. */
static int beam_reserve(Search *d, int sents, int B, int N)
{
    const size_t hyps = 2 * (size_t)B * (size_t)sents;
    if (hyps <= d->hyps && N <= d->cap)
        return TT_OK;
    const size_t H = hyps > d->hyps ? hyps : d->hyps, F = H / 2;
    const size_t C = (size_t)(N > d->cap ? N : d->cap);
    Search g = {0};
    g.hyp_ids = malloc(sizeof(int) * H * C);
    g.hyp_len = malloc(sizeof(int) * H);
    g.hyp_score = malloc(sizeof(double) * H);
    g.fin_ids = malloc(sizeof(int) * F * C);
    g.fin_len = malloc(sizeof(int) * F);
    g.fin_score = malloc(sizeof(double) * F);
    g.fin_sum = malloc(sizeof(double) * F);
    g.fin_seq = malloc(sizeof(long) * F);
    g.fin_rank = malloc(sizeof(int) * F);
    g.runs = malloc(sizeof(BeamRun) * F); /* a sentence has at least one entry */
    if (!g.hyp_ids || !g.hyp_len || !g.hyp_score || !g.fin_ids || !g.fin_len ||
        !g.fin_score || !g.fin_sum || !g.fin_seq || !g.fin_rank || !g.runs) {
        beam_free(&g);
        return TT_ENOMEM;
    }
    beam_free(d);
    d->hyp_ids = g.hyp_ids;
    d->hyp_len = g.hyp_len;
    d->hyp_score = g.hyp_score;
    d->fin_ids = g.fin_ids;
    d->fin_len = g.fin_len;
    d->fin_score = g.fin_score;
    d->fin_sum = g.fin_sum;
    d->fin_seq = g.fin_seq;
    d->fin_rank = g.fin_rank;
    d->runs = g.runs;
    d->hyps = H;
    d->cap = (int)C;
    return TT_OK;
}

/* Room for n sentences of up to S source positions and outputs of up to n_out tokens,
 * decoded with beam width B (1..d->beam) in groups of `group` sentences. */
static int decode_reserve_batch(Search *d, int n, int B, int group, int S, int n_out)
{
    const int hyps = B * group, rows = n > hyps ? n : hyps;
    const int slots = n > 2 * hyps ? n : 2 * hyps;
    const int need = S > n_out ? S : n_out;
    int rc = rows_reserve(d, slots);
    if (rc == TT_OK)
        rc = transformer_state_reserve(&d->state, rows, slots, need, S);
    if (rc == TT_OK)
        rc = beam_reserve(d, group, B, need);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * The recorded pass
 */

/* Step i's row b of the decoder state into out: the token chosen, its log-probability
 * lp_chosen, the attention weights and the alternatives; lp (V) is scratch for the
 * alternatives, which need the whole log-softmax: the logits less lse, their
 * log_normaliser. */
static void record_step(Search *d, Translation *out, int b, int i, int chosen,
                        double lp_chosen, const float *logits, double lse, double *lp)
{
    const int L = out->L, H = out->H;
    out->ids[i] = chosen;
    out->logprob[i] = (float)lp_chosen;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            memcpy(record_cross(out, i, l, h), transformer_state_cross(&d->state, l, b, h),
                   sizeof(float) * (size_t)out->S);
            memcpy(record_self(out, i, l, h), transformer_state_self(&d->state, l, b, h),
                   sizeof(float) * (size_t)(i + 1));
        }
    if (out->alt_k) {
        const int V = d->model->tgt_vocab.size;
        for (int v = 0; v < V; v++)
            lp[v] = (double)logits[v] - lse;
        int *alt = out->alt_ids + (size_t)i * out->alt_k;
        top_k(alt, out->alt_k, lp, V, d->taken);
        for (int j = 0; j < out->alt_k; j++)
            out->alt_prob[(size_t)i * out->alt_k + j] = (float)exp(lp[alt[j]]);
    }
}

/* Sentence i of the encoder batch: its source and its encoder attention into out. */
static void record_source(const Search *d, Translation *out, int i)
{
    const int S = d->enc.len[i], H = out->H;
    out->S = S;
    for (int l = 0; l < out->Le; l++)
        for (int h = 0; h < H; h++)
            memcpy(out->enc + ((size_t)l * H + h) * S * S,
                   transformer_encoder_attention(&d->enc, i, l, h), sizeof(float) * (size_t)S * S);
}

/* Runs the cached decoder for the n sentences of the encoder batch at once: each over
 * its forced tokens and, if greedy, on by arg-max until </s> or its limit, recording
 * every step into its out; d->sum[i] gets the sum of sentence i's log-probabilities in
 * double. A job without an out (forced tokens only) is scored, not recorded: its sum
 * adds each log-probability rounded to float, as a record holds it. A sentence that has
 * finished drops out of the next step's rows; a row's slot is its sentence's index, so
 * d->live gives both. */
static int decode_record(Search *d, const RecordJob *jobs, int n, int greedy)
{
    const int V = d->model->tgt_vocab.size;
    int live = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].out) {
            record_source(d, jobs[i].out, i);
            jobs[i].out->n = 0;
            jobs[i].out->n_forced = jobs[i].n_prefix;
        }
        d->sum[i] = 0.0;
        if (greedy || jobs[i].n_forced > 0) {
            d->live[live] = i;
            d->tok[live] = VOCAB_BOS;
            live++;
        }
    }
    for (int t = 0; live > 0; t++) {
        int rc = transformer_step(&d->state, &d->enc, d->tok, d->live, d->live, live, t,
                                  d->pool);
        if (rc != TT_OK)
            return rc;
        int next = 0;
        for (int b = 0; b < live; b++) {
            const int s = d->live[b];
            const RecordJob *j = &jobs[s];
            const float *logits = transformer_state_logits(&d->state, b);
            if ((rc = logits_check(logits, V)) != TT_OK)
                return rc;
            int chosen;
            const double lse = log_normaliser(logits, V, &chosen);
            if (t < j->n_forced) {
                chosen = j->forced[t];
            } else if (!may_choose(d, chosen)) {
                /* The first maximum is one a word-only search may not choose: the first
                 * maximum of the rest. */
                chosen = -1;
                for (int v = 0; v < V; v++)
                    if (may_choose(d, v) && (chosen < 0 || logits[v] > logits[chosen]))
                        chosen = v;
            }
            const double lp = (double)logits[chosen] - lse;
            if (j->out) {
                record_step(d, j->out, b, t, chosen, lp, logits, lse, d->lp + (size_t)b * V);
                d->sum[s] += lp;
                j->out->n++; /* t + 1: a job is live from step 0 until it is done */
            } else {
                d->sum[s] += (double)(float)lp;
            }
            const int done = (chosen == VOCAB_EOS && t >= j->n_prefix) || t + 1 >= j->limit ||
                             (!greedy && t + 1 >= j->n_forced);
            if (!done) {
                d->live[next] = s;
                d->tok[next] = chosen;
                next++;
            }
        }
        live = next;
    }
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Beam search
 */

static int cand_cmp(const void *pa, const void *pb)
{
    const BeamCandidate *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->hyp != b->hyp)
        return a->hyp < b->hyp ? -1 : 1;
    return a->id < b->id ? -1 : (a->id > b->id);
}

/* Keeps a finished hypothesis of run r, ids[0..len) with summed log-probability sum, if
 * it is among the B best finished so far by length-normalised score: while fewer than B
 * have finished it takes a free entry, else it replaces the worst kept one if it scores
 * strictly better (so of equal scores the one finished first stays). */
static void finished_keep(Search *d, BeamRun *r, int B, const int *ids, int len, double sum)
{
    const double score = sum / len;
    const long seq = r->seq++;
    int f;
    if (r->n_fin == B) {
        f = r->fin;
        for (int g = r->fin + 1; g < r->fin + B; g++)
            if (d->fin_score[g] < d->fin_score[f] ||
                (d->fin_score[g] == d->fin_score[f] && d->fin_seq[g] > d->fin_seq[f]))
                f = g;
        if (!(score > d->fin_score[f]))
            return;
    } else {
        f = r->fin + r->n_fin++;
    }
    memcpy(d->fin_ids + (size_t)f * d->cap, ids, sizeof(int) * (size_t)len);
    d->fin_len[f] = len;
    d->fin_sum[f] = sum;
    d->fin_score[f] = score;
    d->fin_seq[f] = seq;
}

/* Sorts run r's finished hypotheses into d->fin_rank[r->fin...]: best score first, of
 * equal scores the one finished first. */
static void finished_rank(Search *d, const BeamRun *r)
{
    int *rank = d->fin_rank + r->fin;
    for (int f = r->fin; f < r->fin + r->n_fin; f++) {
        int j = f - r->fin;
        while (j > 0 && (d->fin_score[rank[j - 1]] < d->fin_score[f] ||
                         (d->fin_score[rank[j - 1]] == d->fin_score[f] &&
                          d->fin_seq[rank[j - 1]] > d->fin_seq[f]))) {
            rank[j] = rank[j - 1];
            j--;
        }
        rank[j] = f;
    }
}

/* Whether run r's search may stop: at least `need` hypotheses have finished, and no live
 * one can still score above the need-th best of them. A live hypothesis has the summed
 * log-probability s <= 0 and the length n < limit (all live ones have the same n); see
 * decode.h for why s / limit bounds the score of everything it can still become. */
static int search_done(Search *d, const BeamRun *r, int need)
{
    if (r->alive == 0)
        return 1;
    if (r->n_fin < need)
        return 0;
    double s = d->hyp_score[r->cur];
    for (int a = 1; a < r->alive; a++)
        if (d->hyp_score[r->cur + a] > s)
            s = d->hyp_score[r->cur + a];
    finished_rank(d, r);
    return d->fin_score[d->fin_rank[r->fin + need - 1]] >= s / r->limit;
}

/* Steps the n rows set up in d->tok, d->slot and d->sent at position t, all at once, and
 * leaves each row's next-token log-probabilities in d->lp at the row of its slot. */
static int beam_step(Search *d, int n, int t)
{
    const int V = d->model->tgt_vocab.size;
    int rc = transformer_step(&d->state, &d->enc, d->tok, d->slot, d->sent, n, t, d->pool);
    for (int a = 0; rc == TT_OK && a < n; a++)
        rc = log_softmax_checked(d->lp + (size_t)d->slot[a] * V,
                                 transformer_state_logits(&d->state, a), V);
    return rc;
}

/* Run r's next generation from the log-probabilities of its live one: its candidates are
 * taken best first into slots from r->nxt, each gathering its parent's cache (positions
 * 0..pos-1), and the new hypotheses are added to the rows of the next step from row
 * *rows on. */
static void beam_select(Search *d, BeamRun *r, int B, int pos, int *rows)
{
    const int V = d->model->tgt_vocab.size, N = d->cap;
    int top[DECODE_MAX_BEAM + 1];
    /* No empty output: </s> cannot be the first token unless a prefix precedes it. */
    const int no_eos = d->hyp_len[r->cur] == 0;
    const int n_choices = V - (d->words_only ? 2 : 0) - no_eos;
    /* B + 1 offers per hypothesis: at least B of them are not </s>, enough to refill
     * every slot from this hypothesis alone. */
    const int k = B + 1 < n_choices ? B + 1 : n_choices;
    int n_cand = 0;
    for (int a = 0; a < r->alive; a++) {
        const int h = r->cur + a;
        const double *lp = d->lp + (size_t)h * V;
        if (d->words_only)
            d->taken[VOCAB_PAD] = d->taken[VOCAB_BOS] = 1;
        if (no_eos)
            d->taken[VOCAB_EOS] = 1;
        top_k(top, k, lp, V, d->taken);
        d->taken[VOCAB_PAD] = d->taken[VOCAB_BOS] = d->taken[VOCAB_EOS] = 0;
        for (int j = 0; j < k; j++)
            d->cand[n_cand++] = (BeamCandidate){d->hyp_score[h] + lp[top[j]], a, top[j]};
    }
    qsort(d->cand, (size_t)n_cand, sizeof *d->cand, cand_cmp);
    /* Best first until B candidates that do not end in </s> are taken: a </s> on the way
     * finishes its hypothesis, which leaves the beam, and the next candidate takes its
     * slot. At the limit the B taken finish as they are. */
    int next_alive = 0, taken = 0;
    for (int j = 0; j < n_cand && taken < B; j++) {
        const BeamCandidate *cd = &d->cand[j];
        const int from = r->cur + cd->hyp, len = d->hyp_len[from] + 1, to = r->nxt + next_alive;
        int *ids = d->hyp_ids + (size_t)to * N;
        memcpy(ids, d->hyp_ids + (size_t)from * N, sizeof(int) * (size_t)(len - 1));
        ids[len - 1] = cd->id;
        if (cd->id != VOCAB_EOS)
            taken++;
        if (cd->id == VOCAB_EOS || len >= r->limit) {
            finished_keep(d, r, B, ids, len, cd->score);
            continue;
        }
        d->hyp_len[to] = len;
        d->hyp_score[to] = cd->score;
        transformer_state_copy_slot(&d->state, to, from, pos);
        d->tok[*rows] = cd->id;
        d->slot[*rows] = to;
        d->sent[*rows] = r->sent;
        (*rows)++;
        next_alive++;
    }
    r->alive = next_alive;
    const int tmp = r->cur;
    r->cur = r->nxt;
    r->nxt = tmp;
}

/* Finds the output tokens of the g sentences first..first+g-1 of the encoder batch by
 * beam search of width B >= 2, all at once: every step runs the live hypotheses of every
 * sentence still searching as its rows. Each sentence searches until the need best of its
 * finished hypotheses (1..B) cannot change, exactly as it would alone (the products are
 * row-stable and each sentence's choices read only its own rows); its B best finished
 * hypotheses are left in d->fin_* from entry B*r, ranked in d->fin_rank. */
static int beam_search(Search *d, int first, int g, const RecordJob *jobs, const int *prefix,
                       int n_prefix, int B, int need)
{
    assert(B >= 2 && need >= 1 && need <= B && g >= 1);
    const int V = d->model->tgt_vocab.size, N = d->cap;
    BeamRun *runs = d->runs;
    for (int r = 0; r < g; r++) {
        runs[r] = (BeamRun){.sent = first + r, .cur = 2 * B * r, .nxt = 2 * B * r + B,
                            .alive = 1, .fin = B * r, .limit = jobs[first + r].limit};
        d->hyp_len[runs[r].cur] = 0;
        d->hyp_score[runs[r].cur] = 0.0;
    }
    /* One hypothesis a sentence through <s> and the forced prefix (shorter than every
     * limit: decode_batch checks). */
    int rc = TT_OK;
    for (int t = 0; rc == TT_OK && t <= n_prefix; t++) {
        for (int r = 0; r < g; r++) {
            const int h = runs[r].cur;
            if (t > 0) {
                d->hyp_score[h] += d->lp[(size_t)h * V + prefix[t - 1]];
                d->hyp_ids[(size_t)h * N + d->hyp_len[h]++] = prefix[t - 1];
            }
            d->tok[r] = t > 0 ? prefix[t - 1] : VOCAB_BOS;
            d->slot[r] = h;
            d->sent[r] = runs[r].sent;
        }
        rc = beam_step(d, g, t);
    }
    /* Then one generation a step: each sentence still searching chooses its next one
     * from its own rows, and they all step together. Every live hypothesis has the same
     * length, n_prefix + 1 + the steps so far, so the new tokens share their position. */
    for (int pos = n_prefix + 1; rc == TT_OK; pos++) {
        int rows = 0;
        for (int r = 0; r < g; r++) {
            if (runs[r].done || (runs[r].done = search_done(d, &runs[r], need)))
                continue;
            beam_select(d, &runs[r], B, pos, &rows);
        }
        if (rows == 0)
            break;
        rc = beam_step(d, rows, pos);
    }
    for (int r = 0; rc == TT_OK && r < g; r++) {
        finished_rank(d, &runs[r]);
        assert(runs[r].n_fin > 0);
    }
    return rc;
}

DecodeOptions decode_options_default(void)
{
    return (DecodeOptions){.beam = 1};
}

int decode_options_check(const DecodeOptions *o, int beam_max, int len_max)
{
    const int max_len_ok = o->max_len == 0 || (o->max_len >= 2 && (len_max == 0 ||
                                                                     o->max_len <= len_max));
    const int ok = o->beam >= 1 && o->beam <= beam_max && max_len_ok && o->n_best >= 0 &&
                   o->n_best <= o->beam && o->n_prefix >= 0 && (o->n_prefix == 0 || o->prefix);
    return ok ? TT_OK : TT_EINVAL;
}

int decode_limit(const Model *m, const DecodeOptions *o, int S)
{
    if (o->max_len)
        return o->max_len;
    const long bound = DECODE_LIMIT((long)S, (long)o->n_prefix);
    return bound < m->config.max_len ? (int)bound : m->config.max_len;
}

int decode_batch(Search *d, Translation *const *out, const int *const *src, const int *S,
                 int n, const DecodeOptions *o)
{
    const Model *m = d->model;
    const int *prefix = o->prefix, n_prefix = o->n_prefix, beam = o->beam;
    if (n < 1 || n > d->batch || decode_options_check(o, d->beam, m->config.max_len) != TT_OK ||
        (o->n_best && n > 1))
        return TT_EINVAL;
    for (int i = 0; i < n_prefix; i++)
        if (prefix[i] < 0 || prefix[i] >= m->tgt_vocab.size)
            return TT_EINVAL;
    int S_max = 0, need = 0;
    for (int i = 0; i < n; i++) {
        if (S[i] < 1 || S[i] > m->config.max_len)
            return TT_EINVAL;
        const int limit = decode_limit(m, o, S[i]);
        if (n_prefix >= limit)
            return TT_EINVAL;
        d->jobs[i] = (RecordJob){.out = out[i], .forced = prefix, .n_forced = n_prefix,
                                 .n_prefix = n_prefix, .limit = limit};
        S_max = S[i] > S_max ? S[i] : S_max;
        need = S[i] > need ? S[i] : need;
        need = limit > need ? limit : need;
    }
    /* Beam search takes the sentences in groups of at most DECODE_BEAM_ROWS hypotheses. */
    const int group = beam == 1 ? 1 : n < DECODE_BEAM_ROWS / beam ? n : DECODE_BEAM_ROWS / beam;
    use_packed(d);
    int rc = decode_reserve_batch(d, n, beam, group, S_max, need);
    RecordJob *jobs = d->jobs; /* the reservation may have moved them, filled */
    for (int i = 0; rc == TT_OK && i < n; i++)
        rc = translation_reserve(out[i], m, need);
    if (rc == TT_OK)
        rc = transformer_encode_batch(&d->enc, src, S, n, d->pool);
    if (rc != TT_OK)
        return rc;
    d->n_fin = 0;
    d->last_n_prefix = n_prefix;
    d->last_limit = jobs[n - 1].limit;
    if (beam == 1) {
        /* Beam 1 is greedy; an n-best list then holds greedy's output alone. */
        rc = decode_record(d, jobs, n, 1);
        if (rc == TT_OK && o->n_best) {
            BeamRun run = {.n_fin = 0};
            finished_keep(d, &run, 1, out[0]->ids, out[0]->n, d->sum[0]);
            finished_rank(d, &run);
            d->n_fin = run.n_fin;
        }
        return rc;
    }
    for (int first = 0; first < n; first += group) {
        const int g = n - first < group ? n - first : group;
        rc = beam_search(d, first, g, jobs, prefix, n_prefix, beam, o->n_best ? o->n_best : 1);
        if (rc != TT_OK)
            return rc;
        /* The hypotheses' entries are reused by the next group and the recorded pass:
         * keep each winner in its record. */
        for (int r = 0; r < g; r++) {
            const int best = d->fin_rank[beam * r], i = first + r;
            memcpy(out[i]->ids, d->fin_ids + (size_t)best * d->cap,
                   sizeof(int) * (size_t)d->fin_len[best]);
            jobs[i].forced = out[i]->ids;
            jobs[i].n_forced = d->fin_len[best];
        }
    }
    /* The n-best list is the sentence's when there is one (n is then 1). */
    d->n_fin = d->runs[0].n_fin;
    return decode_record(d, jobs, n, 0);
}

/* Scoring jobs for n sentences' targets (a NULL target: no job) into d->jobs; *need gets
 * the longest target, at least need's value. Returns TT_OK or TT_EINVAL. */
static int score_jobs(Search *d, const int *const *target, const int *n_target, int n,
                      int *need)
{
    const Model *m = d->model;
    for (int i = 0; i < n; i++) {
        d->jobs[i] = (RecordJob){0};
        if (!target[i])
            continue;
        if (n_target[i] < 1 || n_target[i] > m->config.max_len)
            return TT_EINVAL;
        for (int k = 0; k < n_target[i]; k++)
            if (target[i][k] < 0 || target[i][k] >= m->tgt_vocab.size)
                return TT_EINVAL;
        d->jobs[i] = (RecordJob){.out = NULL, .forced = target[i], .n_forced = n_target[i],
                                 .n_prefix = n_target[i], .limit = n_target[i]};
        *need = n_target[i] > *need ? n_target[i] : *need;
    }
    return TT_OK;
}

/* The scoring jobs in d->jobs against the sentences the encoder holds. */
static int score_encoded(Search *d, const int *const *target, int n, int need, double *sum)
{
    int rc = decode_reserve_batch(d, n, 1, 1, d->enc.S, need);
    if (rc == TT_OK)
        rc = decode_record(d, d->jobs, n, 0);
    for (int i = 0; rc == TT_OK && i < n; i++)
        sum[i] = target[i] ? d->sum[i] : NAN;
    return rc;
}

int decode_score_batch(Search *d, const int *const *src, const int *S, int n,
                       const int *const *target, const int *n_target, double *sum)
{
    const Model *m = d->model;
    if (n < 1 || n > d->batch)
        return TT_EINVAL;
    int need = 0;
    for (int i = 0; i < n; i++) {
        if (S[i] < 1 || S[i] > m->config.max_len)
            return TT_EINVAL;
        need = S[i] > need ? S[i] : need;
    }
    use_packed(d);
    int rc = score_jobs(d, target, n_target, n, &need);
    if (rc == TT_OK)
        rc = transformer_encode_batch(&d->enc, src, S, n, d->pool);
    return rc == TT_OK ? score_encoded(d, target, n, need, sum) : rc;
}

int decode_score_encoded(Search *d, const int *const *target, const int *n_target,
                         double *sum)
{
    const int n = d->enc.B;
    if (n < 1)
        return TT_EINVAL;
    int need = d->enc.S;
    use_packed(d);
    const int rc = score_jobs(d, target, n_target, n, &need);
    return rc == TT_OK ? score_encoded(d, target, n, need, sum) : rc;
}

int decode_run(Search *d, Translation *out, const int *src, int S, const DecodeOptions *o)
{
    return decode_batch(d, &out, &src, &S, 1, o);
}

int decode_n_best(const Search *d)
{
    return d->n_fin;
}

void decode_hypothesis(const Search *d, int k, const int **ids, int *n, double *logprob,
                       double *score)
{
    assert(k >= 0 && k < d->n_fin);
    const int f = d->fin_rank[k];
    *ids = d->fin_ids + (size_t)f * (size_t)d->cap;
    *n = d->fin_len[f];
    *logprob = d->fin_sum[f];
    *score = d->fin_score[f];
}

int decode_record_hypothesis(Search *d, Translation *out, int k)
{
    if (k < 0 || k >= d->n_fin)
        return TT_EINVAL;
    use_packed(d);
    const int f = d->fin_rank[k];
    /* The recorded pass reuses nothing of the finished list, so each can be recorded
     * in turn; the encoder still holds the sentence. */
    memcpy(out->ids, d->fin_ids + (size_t)f * (size_t)d->cap, sizeof(int) * (size_t)d->fin_len[f]);
    const RecordJob job = {.out = out, .forced = out->ids, .n_forced = d->fin_len[f],
                           .n_prefix = d->last_n_prefix, .limit = d->last_limit};
    return decode_record(d, &job, 1, 0);
}

int translation_most_attended(const Translation *t, const Model *m, int step)
{
    (void)m;
    const int L = t->L, H = t->H;
    int best = 0;
    double best_w = -1.0;
    /* Position S-1 is </s>: not a word to copy. */
    const int words = t->S > 1 ? t->S - 1 : 1;
    for (int j = 0; j < words; j++) {
        double w = 0.0;
        for (int h = 0; h < H; h++)
            w += translation_cross(t, step, L - 1, h)[j];
        if (w > best_w) {
            best_w = w;
            best = j;
        }
    }
    return best;
}
