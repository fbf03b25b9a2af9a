/*
 * decode.c — greedy decoding, beam search, and the recorded pass.
 *
 * Beam search only decides which tokens to output. The output is then replayed through
 * the cached decoder with every token forced, once, and that pass records the
 * log-probabilities, the attention weights and the alternatives. Greedy decoding is that
 * same pass choosing the arg-max as it goes, which is why --beam 1 and greedy agree to
 * the bit.
 */
#include "decode.h"

#include "status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void decode_log_softmax(double *out, const float *logits, int V)
{
    double max = logits[0];
    for (int v = 1; v < V; v++)
        if (logits[v] > max)
            max = logits[v];
    double sum = 0.0;
    for (int v = 0; v < V; v++)
        sum += exp((double)logits[v] - max);
    /* cppcheck-suppress invalidFunctionArg ; sum >= 1: the maximum's term is exp(0) */
    const double lse = max + log(sum);
    for (int v = 0; v < V; v++)
        out[v] = (double)logits[v] - lse;
}

/* decode_log_softmax of a step's logits, refusing a non-finite one: weights that are
 * finite but huge (3e38) overflow to Inf and NaN inside the forward pass, and an
 * arg-max over NaN would pick <pad> with a NaN log-probability. */
static int log_softmax_checked(double *out, const float *logits, int V)
{
    for (int v = 0; v < V; v++)
        if (!isfinite(logits[v]))
            return TT_EMODEL;
    decode_log_softmax(out, logits, V);
    return TT_OK;
}

/* Whether a decoder may choose id: with words_only, never <pad> or <s>, which are only
 * ever inputs. */
static int may_choose(const Decoder *d, int id)
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
    free(t->self);
    free(t->cross);
    free(t->logprob);
    free(t->ids);
    memset(t, 0, sizeof *t);
}

int translation_init(Translation *t, const Model *m, int alt_k)
{
    memset(t, 0, sizeof *t);
    const ModelConfig *c = &m->config;
    const size_t N = (size_t)c->max_len, LH = (size_t)c->n_decoder_layers * c->n_heads;
    if (alt_k < 0 || alt_k > DECODE_MAX_ALTERNATIVES)
        return TT_EINVAL;
    if (alt_k > m->tgt_vocab.size)
        alt_k = m->tgt_vocab.size;
    t->alt_k = alt_k;
    t->ids = malloc(sizeof(int) * N);
    t->logprob = malloc(sizeof(float) * N);
    t->cross = calloc(N * LH * N, sizeof(float));
    t->self = calloc(N * LH * N, sizeof(float));
    t->alt_ids = malloc(sizeof(int) * N * (size_t)(alt_k ? alt_k : 1));
    t->alt_prob = malloc(sizeof(float) * N * (size_t)(alt_k ? alt_k : 1));
    if (!t->ids || !t->logprob || !t->cross || !t->self || !t->alt_ids || !t->alt_prob) {
        translation_free(t);
        return TT_ENOMEM;
    }
    return TT_OK;
}

void decoder_free(Decoder *d)
{
    if (!d)
        return;
    free(d->taken);
    free(d->cand);
    free(d->fin_score);
    free(d->fin_len);
    free(d->fin_ids);
    free(d->hyp_score);
    free(d->hyp_len);
    free(d->hyp_ids);
    free(d->lp);
    for (int i = 0; i < 2 * DECODE_MAX_BEAM; i++)
        decoder_cache_free(&d->caches[i]);
    decoder_step_free(&d->step);
    encoder_free(&d->enc);
    memset(d, 0, sizeof *d);
}

int decoder_init(Decoder *d, const Model *m, int beam)
{
    memset(d, 0, sizeof *d);
    if (beam < 1 || beam > DECODE_MAX_BEAM)
        return TT_EINVAL;
    d->model = m;
    d->beam = beam;
    const size_t B = (size_t)beam, N = (size_t)m->config.max_len, V = (size_t)m->tgt_vocab.size;
    int rc = encoder_init(&d->enc, m);
    if (rc == TT_OK)
        rc = decoder_step_init(&d->step, m);
    for (size_t i = 0; rc == TT_OK && i < 2 * B; i++)
        rc = decoder_cache_init(&d->caches[i], m);
    if (rc == TT_OK) {
        d->lp = malloc(sizeof(double) * 2 * B * V);
        d->hyp_ids = malloc(sizeof(int) * 2 * B * N);
        d->hyp_len = malloc(sizeof(int) * 2 * B);
        d->hyp_score = malloc(sizeof(double) * 2 * B);
        d->fin_ids = malloc(sizeof(int) * B * N);
        d->fin_len = malloc(sizeof(int) * B);
        d->fin_score = malloc(sizeof(double) * B);
        d->cand = malloc(sizeof(BeamCandidate) * B * B);
        d->taken = calloc(V, 1);
        if (!d->lp || !d->hyp_ids || !d->hyp_len || !d->hyp_score || !d->fin_ids ||
            !d->fin_len || !d->fin_score || !d->cand || !d->taken)
            rc = TT_ENOMEM;
    }
    if (rc != TT_OK)
        decoder_free(d);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * The recorded pass
 */

/* Runs the cached decoder over forced[0..n_forced) and, if greedy, on by arg-max until
 * </s> or the limit, recording every step into out. */
static int decode_record(Decoder *d, Translation *out, const int *forced, int n_forced,
                         int n_prefix, int greedy, int limit)
{
    const Model *m = d->model;
    const ModelConfig *c = &m->config;
    const int V = m->tgt_vocab.size, N = c->max_len;
    const size_t LH = (size_t)c->n_decoder_layers * c->n_heads;
    DecoderCache *cache = &d->caches[0];
    double *lp = d->lp;
    cache->t = 0;
    out->S = d->enc.S;
    out->n = 0;
    out->n_forced = n_prefix;
    int token = VOCAB_BOS;
    while (out->n < limit) {
        int rc = decoder_step(&d->step, cache, &d->enc, token);
        if (rc != TT_OK)
            return rc;
        const int i = out->n;
        if (i >= n_forced && !greedy)
            break;
        if ((rc = log_softmax_checked(lp, d->step.logits, V)) != TT_OK)
            return rc;
        int chosen;
        if (i < n_forced) {
            chosen = forced[i];
        } else {
            chosen = -1;
            for (int v = 0; v < V; v++)
                if (may_choose(d, v) && (chosen < 0 || d->step.logits[v] > d->step.logits[chosen]))
                    chosen = v;
        }
        out->ids[i] = chosen;
        out->logprob[i] = (float)lp[chosen];
        memcpy(out->cross + (size_t)i * LH * N, d->step.cross_w, sizeof(float) * LH * N);
        memcpy(out->self + (size_t)i * LH * N, d->step.self_w, sizeof(float) * LH * N);
        if (out->alt_k) {
            int *alt = out->alt_ids + (size_t)i * out->alt_k;
            top_k(alt, out->alt_k, lp, V, d->taken);
            for (int j = 0; j < out->alt_k; j++)
                out->alt_prob[(size_t)i * out->alt_k + j] = (float)exp(lp[alt[j]]);
        }
        out->n++;
        if (chosen == VOCAB_EOS && i >= n_prefix)
            break;
        token = chosen;
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

/* Finds the output tokens by beam search into d->fin_*; returns the index of the best
 * finished hypothesis, or a negative code. */
static int beam_search(Decoder *d, const int *prefix, int n_prefix, int B, int limit)
{
    const Model *m = d->model;
    const int V = m->tgt_vocab.size, N = m->config.max_len;
    int cur = 0, nxt = B; /* the generations live in slots [cur, cur+B) and [nxt, nxt+B) */
    int alive = 1, n_fin = 0;

    /* One hypothesis through <s> and the forced prefix. */
    DecoderCache *c0 = &d->caches[cur];
    c0->t = 0;
    d->hyp_len[cur] = 0;
    d->hyp_score[cur] = 0.0;
    int rc = decoder_step(&d->step, c0, &d->enc, VOCAB_BOS);
    for (int i = 0; rc == TT_OK && i < n_prefix; i++) {
        if ((rc = log_softmax_checked(d->lp + (size_t)cur * V, d->step.logits, V)) != TT_OK)
            return rc;
        d->hyp_score[cur] += d->lp[(size_t)cur * V + prefix[i]];
        d->hyp_ids[(size_t)cur * N + d->hyp_len[cur]++] = prefix[i];
        if (d->hyp_len[cur] < limit)
            rc = decoder_step(&d->step, c0, &d->enc, prefix[i]);
    }
    if (rc != TT_OK)
        return rc;
    if (d->hyp_len[cur] >= limit) {
        memcpy(d->fin_ids, d->hyp_ids + (size_t)cur * N, sizeof(int) * (size_t)limit);
        d->fin_len[0] = limit;
        d->fin_score[0] = d->hyp_score[cur] / limit;
        return 0;
    }
    if ((rc = log_softmax_checked(d->lp + (size_t)cur * V, d->step.logits, V)) != TT_OK)
        return rc;

    int top[DECODE_MAX_BEAM];
    while (alive > 0 && n_fin < B) {
        int n_cand = 0;
        for (int a = 0; a < alive; a++) {
            const int h = cur + a;
            const double *lp = d->lp + (size_t)h * V;
            const int n_choices = d->words_only ? V - 2 : V;
            const int k = B < n_choices ? B : n_choices;
            if (d->words_only)
                d->taken[VOCAB_PAD] = d->taken[VOCAB_BOS] = 1;
            top_k(top, k, lp, V, d->taken);
            d->taken[VOCAB_PAD] = d->taken[VOCAB_BOS] = 0;
            for (int j = 0; j < k; j++)
                d->cand[n_cand++] = (BeamCandidate){d->hyp_score[h] + lp[top[j]], a, top[j]};
        }
        qsort(d->cand, (size_t)n_cand, sizeof *d->cand, cand_cmp);
        int next_alive = 0;
        for (int j = 0; j < n_cand && j < B && n_fin < B; j++) {
            const BeamCandidate *cd = &d->cand[j];
            const int from = cur + cd->hyp, len = d->hyp_len[from] + 1;
            int *ids = cd->id == VOCAB_EOS || len >= limit ? d->fin_ids + (size_t)n_fin * N
                                                           : d->hyp_ids + (size_t)(nxt + next_alive) * N;
            memcpy(ids, d->hyp_ids + (size_t)from * N, sizeof(int) * (size_t)(len - 1));
            ids[len - 1] = cd->id;
            if (cd->id == VOCAB_EOS || len >= limit) {
                d->fin_len[n_fin] = len;
                d->fin_score[n_fin] = cd->score / len;
                n_fin++;
                continue;
            }
            const int to = nxt + next_alive;
            d->hyp_len[to] = len;
            d->hyp_score[to] = cd->score;
            decoder_cache_copy(&d->caches[to], &d->caches[from], m);
            rc = decoder_step(&d->step, &d->caches[to], &d->enc, cd->id);
            if (rc != TT_OK)
                return rc;
            if ((rc = log_softmax_checked(d->lp + (size_t)to * V, d->step.logits, V)) != TT_OK)
                return rc;
            next_alive++;
        }
        alive = next_alive;
        int tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    int best = 0;
    for (int f = 1; f < n_fin; f++)
        if (d->fin_score[f] > d->fin_score[best])
            best = f;
    return best;
}

static int decode_run(Decoder *d, Translation *out, const int *src, int S, const int *prefix,
                      int n_prefix, int beam, int limit, int always_search)
{
    const Model *m = d->model;
    const int N = m->config.max_len;
    if (limit < 2 || limit > N || beam < 1 || beam > d->beam || n_prefix < 0 ||
        n_prefix >= limit || (n_prefix > 0 && !prefix))
        return TT_EINVAL;
    for (int i = 0; i < n_prefix; i++)
        if (prefix[i] < 0 || prefix[i] >= m->tgt_vocab.size)
            return TT_EINVAL;
    int rc = encoder_forward(&d->enc, src, S);
    if (rc != TT_OK)
        return rc;
    if (beam == 1 && !always_search)
        return decode_record(d, out, prefix, n_prefix, n_prefix, 1, limit);
    int best = beam_search(d, prefix, n_prefix, beam, limit);
    if (best < 0)
        return best;
    /* The hypotheses' slots are reused by the recorded pass: copy the winner first. */
    int *ids = out->ids;
    memcpy(ids, d->fin_ids + (size_t)best * N, sizeof(int) * (size_t)d->fin_len[best]);
    return decode_record(d, out, ids, d->fin_len[best], n_prefix, 0, limit);
}

int decode_sentence(Decoder *d, Translation *out, const int *src, int S, const int *prefix,
                    int n_prefix, int beam, int limit)
{
    return decode_run(d, out, src, S, prefix, n_prefix, beam, limit, 0);
}

int decode_sentence_search(Decoder *d, Translation *out, const int *src, int S,
                           const int *prefix, int n_prefix, int beam, int limit)
{
    return decode_run(d, out, src, S, prefix, n_prefix, beam, limit, 1);
}

int translation_most_attended(const Translation *t, const Model *m, int step)
{
    const ModelConfig *c = &m->config;
    const int L = c->n_decoder_layers, H = c->n_heads, N = c->max_len;
    const float *base = t->cross + (((size_t)step * L + (L - 1)) * H) * N;
    int best = 0;
    double best_w = -1.0;
    /* Position S-1 is </s>: not a word to copy. */
    const int words = t->S > 1 ? t->S - 1 : 1;
    for (int j = 0; j < words; j++) {
        double w = 0.0;
        for (int h = 0; h < H; h++)
            w += base[(size_t)h * N + j];
        if (w > best_w) {
            best_w = w;
            best = j;
        }
    }
    return best;
}
