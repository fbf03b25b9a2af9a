/*
 * translator.c — a sentence through tokenizer, decoder and detokenizer.
 *
 * The buffers a sentence needs grow, before it is decoded, to its source length and
 * output limit, and are kept for the next sentence; the tokenizer's lists and the
 * detokenizer's text are kept in the Translator until the next sentence replaces them,
 * which is what lets the result be views.
 */
#include "translate/translator.h"

#include "base/json.h"
#include "base/status.h"
#include "text/grammar.h"
#include "text/wordlist.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* What the threads of translator_decode_ahead_scored and translator_ahead_start share. */
typedef struct AheadJob {
    Translator *tr;
    TranslatorAhead *set; /* the entries: tr->ahead, or tr->coming */
    int n_order;   /* entries to decode, in tr->order */
    const int *const *target; /* the targets to score once a batch is decoded, or NULL */
    const int *n_target;
    double *sum;
    atomic_int taken; /* batches handed out so far */
} AheadJob;

/* Copies msg into err when there is room for anything. */
/* Waits for the threads of a decode translator_ahead_start began, if they still run; the
 * block stays to be joined (flight 2). */
static void ahead_wait(Translator *tr)
{
    if (tr->flight == 1) {
        pool_wait(tr->pool);
        tr->flight = 2;
    }
}

/* Waits for a decode translator_ahead_start began and drops it: what changes the
 * decoding (the prefix, the batch) must not change under the threads. */
static void ahead_drop(Translator *tr)
{
    ahead_wait(tr);
    tr->flight = 0;
}

/* Frees a set of n_ahead_cap entries (each zeroed or made). */
static void ahead_set_free(TranslatorAhead *set, int n)
{
    for (int i = 0; set && i < n; i++) {
        free(set[i].ids);
        translation_free(&set[i].t);
    }
    free(set);
}

/* A set of n_ahead_cap entries, each with room for a source; NULL without memory. */
static TranslatorAhead *ahead_set_new(const Translator *tr)
{
    TranslatorAhead *set = calloc((size_t)tr->n_ahead_cap, sizeof *set);
    for (int i = 0; set && i < tr->n_ahead_cap; i++) {
        set[i].ids = malloc(sizeof(int) * (size_t)tr->model->config.max_len);
        if (!set[i].ids || translation_init(&set[i].t, tr->model, tr->t.alt_k) != TT_OK) {
            ahead_set_free(set, tr->n_ahead_cap);
            return NULL;
        }
    }
    return set;
}

static void ahead_free(Translator *tr)
{
    ahead_drop(tr);
    ahead_set_free(tr->ahead, tr->n_ahead_cap);
    ahead_set_free(tr->coming, tr->n_ahead_cap);
    tr->coming = NULL;
    tr->n_coming = 0;
    free(tr->job);
    tr->job = NULL;
    free(tr->order);
    free(tr->batch_ids);
    free(tr->batch_S);
    free(tr->batch_t);
    free(tr->batch_tgt);
    free(tr->batch_n_tgt);
    free(tr->batch_sum);
    for (int i = 0; tr->more && i < tr->threads - 1; i++)
        decode_free(&tr->more[i]);
    free(tr->more);
    tr->more = NULL;
    tr->threads = 1;
    tr->ahead = NULL;
    tr->order = NULL;
    tr->batch_ids = NULL;
    tr->batch_S = NULL;
    tr->batch_t = NULL;
    tr->batch_tgt = NULL;
    tr->batch_n_tgt = NULL;
    tr->batch_sum = NULL;
    tr->n_ahead_cap = tr->n_ahead = tr->next_ahead = 0;
    tr->cur = &tr->t;
}

void translator_free(Translator *tr)
{
    if (!tr)
        return;
    ahead_free(tr);
    free(tr->label_ptrs);
    free(tr->label_text);
    free(tr->case_text);
    free(tr->text);
    tokenlist_free(&tr->surface);
    tokenlist_free(&tr->src);
    free(tr->uncovered);
    free(tr->coverage);
    free(tr->rolled);
    free(tr->roll_row);
    free(tr->roll_tmp);
    free(tr->roll);
    free(tr->kind);
    free(tr->copied);
    free(tr->words);
    free(tr->tokens);
    free(tr->src_ids);
    free(tr->prefix_ids);
    tokenlist_free(&tr->prefix);
    translation_free(&tr->t);
    decode_free(&tr->dec);
    memset(tr, 0, sizeof *tr);
}

/* Tokenizes the prefix with the target rules and looks its tokens up. */
static int init_prefix(Translator *tr, const char *prefix, char *err, size_t errlen)
{
    TokError te;
    int rc = tokenize(&tr->prefix, prefix, strlen(prefix),
                      config_lang_rules(tr->model->config.tgt_lang), &te);
    if (rc == TT_EINPUT) {
        if (err && errlen > 0)
            snprintf(err, errlen, "prefix: %s", te.message);
        return rc;
    }
    if (rc != TT_OK) {
        tt_errf(err, errlen, "%s", status_message(rc));
        return rc;
    }
    const int limit = tr->decode.max_len ? tr->decode.max_len : tr->model->config.max_len;
    if (tr->prefix.n >= limit) {
        /* The decoder must have room for at least one generated token. */
        if (err && errlen > 0)
            snprintf(err, errlen, "prefix has %d tokens; the output limit is %d",
                     tr->prefix.n, limit);
        return TT_EINPUT;
    }
    tr->prefix_ids = malloc(sizeof(int) * (size_t)(tr->prefix.n ? tr->prefix.n : 1));
    if (!tr->prefix_ids) {
        tt_errf(err, errlen, "%s", status_message(TT_ENOMEM));
        return TT_ENOMEM;
    }
    for (int i = 0; i < tr->prefix.n; i++)
        tr->prefix_ids[i] = vocab_lookup(&tr->model->tgt_vocab, tr->prefix.tok[i]);
    tr->decode.prefix = tr->prefix_ids;
    tr->decode.n_prefix = tr->prefix.n;
    return TT_OK;
}

int translator_set_prefix(Translator *tr, const char *prefix, char *err, size_t errlen)
{
    ahead_drop(tr);
    free(tr->prefix_ids);
    tr->prefix_ids = NULL;
    tokenlist_free(&tr->prefix);
    tr->decode.prefix = NULL;
    tr->decode.n_prefix = 0;
    /* What was decoded ahead was decoded with the old prefix. */
    tr->n_ahead = tr->next_ahead = 0;
    tr->n_hyp = 0;
    const int rc = prefix ? init_prefix(tr, prefix, err, errlen) : TT_OK;
    if (rc != TT_OK)
        tokenlist_free(&tr->prefix);
    return rc;
}

TranslatorOptions translator_options_default(void)
{
    return (TranslatorOptions){.decode = decode_options_default()};
}

int translator_init(Translator *tr, const Model *m, const TranslatorOptions *o, char *err,
                    size_t errlen)
{
    memset(tr, 0, sizeof *tr);
    const int max_len = m->config.max_len;
    const DecodeOptions *d = &o->decode;
    if (decode_options_check(d, DECODE_MAX_BEAM, 0) != TT_OK || d->prefix || d->n_prefix ||
        o->alternatives < 0 || o->alternatives > DECODE_MAX_ALTERNATIVES ||
        !(o->coverage_min >= 0.0f)) {
        if (err && errlen > 0)
            snprintf(err, errlen, "translator options out of range (beam %d, max_len %d, "
                                  "n_best %d, alternatives %d)", d->beam, d->max_len,
                     d->n_best, o->alternatives);
        return TT_EINVAL;
    }
    tr->model = m;
    tr->batch = 1;
    tr->grammar_check = !o->no_grammar_check &&
                        config_lang_rules(m->config.src_lang) == TOK_SRC &&
                        m->lexicon_fnv1a64 == grammar_lexicon_fnv1a64();
    tr->grammar_with = m->phrasebook_fnv1a64 == grammar_phrasebook_fnv1a64()
                           ? GRAMMAR_WITH_PHRASEBOOK
                           : 0;
    tr->decode = *d;
    tr->decode.max_len = d->max_len < max_len ? d->max_len : max_len;
    tr->keep_unk = o->keep_unk != 0;
    tr->crop = o->crop != 0;
    tr->coverage_min = o->coverage_min;
    tr->rollout_always = o->rollout != 0;

    int rc = decode_init(&tr->dec, m, d->beam);
    tr->dec.words_only = 1; /* <pad> and <s> are never output words */
    if (rc == TT_OK)
        rc = translation_init(&tr->t, m, o->alternatives);
    if (rc != TT_OK)
        tt_errf(err, errlen, "%s", status_message(rc));
    if (rc == TT_OK && o->prefix)
        rc = init_prefix(tr, o->prefix, err, errlen);
    if (rc != TT_OK)
        translator_free(tr);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * One sentence
 */

/* Grows the per-sentence buffers to n entries; on failure they stay as they were. */
static int translator_reserve(Translator *tr, int n)
{
    if (n <= tr->cap)
        return TT_OK;
    const size_t N = (size_t)n;
    Translator g = {0};
    g.src_ids = malloc(sizeof(int) * N);
    g.tokens = malloc(sizeof(char *) * N);
    g.words = malloc(sizeof(char *) * N);
    g.copied = malloc(N);
    g.kind = malloc(sizeof(int) * N);
    g.coverage = malloc(sizeof(float) * N);
    g.roll = malloc(sizeof(double) * N);
    g.roll_tmp = malloc(sizeof(double) * N);
    g.roll_row = malloc(sizeof(float) * N);
    g.rolled = malloc(sizeof(float) * N);
    g.uncovered = malloc(N);
    g.label_ptrs = malloc(sizeof(char *) * 2 * N);
    const int ok = g.src_ids && g.tokens && g.words && g.copied && g.kind && g.coverage && g.roll &&
                   g.roll_tmp && g.roll_row && g.rolled && g.uncovered && g.label_ptrs;
    /* Swap: on success tr gets the new buffers and g the old ones, freed below. */
    if (ok) {
#define SWAP(field)                                                                        \
    do {                                                                                   \
        void *tmp_ = (void *)tr->field;                                                    \
        tr->field = g.field;                                                               \
        g.field = tmp_;                                                                    \
    } while (0)
        SWAP(src_ids);
        SWAP(tokens);
        SWAP(words);
        SWAP(copied);
        SWAP(kind);
        SWAP(coverage);
        SWAP(roll);
        SWAP(roll_tmp);
        SWAP(roll_row);
        SWAP(rolled);
        SWAP(uncovered);
        SWAP(label_ptrs);
#undef SWAP
        tr->cap = n;
    }
    free(g.label_ptrs);
    free(g.uncovered);
    free(g.rolled);
    free(g.roll_row);
    free(g.roll_tmp);
    free(g.roll);
    free(g.coverage);
    free(g.kind);
    free(g.copied);
    free(g.words);
    free(g.tokens);
    free(g.src_ids);
    return ok ? TT_OK : TT_ENOMEM;
}

/* The token the decoder saw at output position i. */
static const char *output_token(const Translator *tr, int i)
{
    const Translation *t = tr->cur;
    if (i < t->n_forced)
        return tr->prefix.tok[i];
    return tr->model->tgt_vocab.tokens[t->ids[i]];
}

/* The word shown for output position i: for a generated <unk>, the source word the
 * decoder attended to most, as typed, and *copied set; else the token, *copied 0. */
static const char *output_word(const Translator *tr, const TokenList *surface, int i,
                               unsigned char *copied)
{
    const Translation *t = tr->cur;
    *copied = 0;
    if (i >= t->n_forced && t->ids[i] == VOCAB_UNK && !tr->keep_unk && surface->n > 0) {
        int j = translation_most_attended(t, tr->model, i);
        if (j < surface->n) {
            *copied = 1;
            return surface->tok[j];
        }
    }
    return output_token(tr, i);
}

/* The number of output tokens that make the text: </s> is not a word. */
static int text_tokens(const Translation *t)
{
    return t->n > 0 && t->ids[t->n - 1] == VOCAB_EOS && t->n > t->n_forced ? t->n - 1 : t->n;
}

/* ---------------------------------------------------------------------------------------
 * What the translation may have got wrong
 */

/* Source words whose coverage is not checked, because a correct German translation need
 * not attend to them: articles (their gender and case travel with the noun), the
 * auxiliaries of questions and negation that German does not have (do, does), the
 * copula, "not" (it may become part of "kein"), conjunctions and the most common
 * prepositions. Folded spellings. docs/honesty.md explains how the list was chosen. */
static const char *const FUNCTION_WORDS[] = {
    "the", "a", "an", "and", "or", "but", "is", "are", "am", "was", "were", "be", "been",
    "do", "does", "did", "not", "no", "to", "of", "in", "on", "at", "with", "for", "by",
};

/* The same for a German source (a German→English model): articles, the forms of
 * "sein", "nicht" and "kein" (English "not", "no" and "do" carry them), conjunctions and
 * the common prepositions with their contractions. */
static const char *const FUNCTION_WORDS_DE[] = {
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
    "eines", "kein", "keine", "keinen", "keinem", "keiner", "keines", "und", "oder", "aber",
    "ist", "sind", "bin", "bist", "seid", "war", "waren", "sein", "nicht", "zu", "von",
    "in", "im", "an", "am", "auf", "mit", "für", "bei", "Das", "Die", "Der", "Ein", "Eine",
    "Kein", "Keine",
};

static int in_list(const char *token, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(token, list[i]) == 0)
            return 1;
    return 0;
}

int translator_is_function_word(const char *token)
{
    return tokenizer_is_punctuation(token) ||
           in_list(token, FUNCTION_WORDS, sizeof FUNCTION_WORDS / sizeof FUNCTION_WORDS[0]);
}

/* Whether source token of model m is a function word: translator_is_function_word for an
 * English source, the German table for a German one. */
static int source_function_word(const Model *m, const char *token)
{
    if (config_lang_rules(m->config.src_lang) == TOK_SRC)
        return translator_is_function_word(token);
    return tokenizer_is_punctuation(token) ||
           in_list(token, FUNCTION_WORDS_DE, sizeof FUNCTION_WORDS_DE / sizeof FUNCTION_WORDS_DE[0]);
}

int translator_is_capitalised(const char *token)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)token;
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, -1, &cp);
    if (n < 1)
        return 0;
    const utf8proc_category_t first = utf8proc_category(cp);
    if (first != UTF8PROC_CATEGORY_LU && first != UTF8PROC_CATEGORY_LT)
        return 0;
    int rest = 0, rest_upper = 0;
    for (p += n; *p; p += n) {
        if ((n = utf8proc_iterate(p, -1, &cp)) < 1)
            return 0;
        rest++;
        rest_upper += utf8proc_category(cp) == UTF8PROC_CATEGORY_LU;
    }
    return rest == 0 || rest_upper < rest;
}

/* Whether a generated <unk> of the last translation took its word from source token j. */
static int copied(const Translator *tr, int j)
{
    const Translation *t = tr->cur;
    for (int i = t->n_forced; i < t->n; i++)
        if (t->ids[i] == VOCAB_UNK && translation_most_attended(t, tr->model, i) == j)
            return 1;
    return 0;
}

/* Attention rollout through the encoder (Abnar and Zuidema, "Quantifying Attention Flow
 * in Transformers", 2020): each layer's output at position i is its input at i (the
 * residual) plus what its attention gathered, so the share of source token j in encoder
 * output i is R = Â_L ⋯ Â_1 with Â_l = ½(Ā_l + I), Ā_l the heads' mean of layer l's
 * self-attention (rows: queries). The decoder reads a do-question's verb at "do", where
 * the encoder gathered it from the verb: the cross-attention alone would say "see" was
 * never looked at.
 *
 * Only coverageᵀ·R is wanted (tr->rolled: what each source token received through the
 * encoder), so R is never formed: the row vector v = coverageᵀ is carried through the
 * layers from the top, v ← v·Â_l, in O(L·H·S²) time and O(S) memory. (Forming R costs
 * O(L·S³): 4,000 source tokens took minutes.) */
static void rollout(Translator *tr, int S)
{
    const ModelConfig *c = &tr->model->config;
    const int H = c->n_heads;
    const float *attn = translator_encoder_attention(tr); /* (L_enc, H, S, S) */
    double *v = tr->roll, *next = tr->roll_tmp;           /* (S) each */
    for (int j = 0; j < S; j++)
        v[j] = (double)tr->coverage[j];
    for (int l = c->n_encoder_layers - 1; attn && l >= 0; l--) {
        const float *a = attn + (size_t)l * (size_t)H * (size_t)S * (size_t)S;
        /* next = v·Â_l = ½ v + ½ Σ_i v[i] Ā_l[i][·] */
        for (int k = 0; k < S; k++)
            next[k] = 0.5 * v[k];
        for (int i = 0; i < S; i++) {
            float *mean = tr->roll_row; /* (S) row i of Ā_l */
            for (int k = 0; k < S; k++) {
                double m = 0.0;
                for (int h = 0; h < H; h++)
                    m += (double)a[((size_t)h * (size_t)S + (size_t)i) * (size_t)S + (size_t)k];
                mean[k] = (float)(m / H);
            }
            const double w = 0.5 * v[i];
            for (int k = 0; k < S; k++)
                next[k] += w * (double)mean[k];
        }
        double *swap = v;
        v = next;
        next = swap;
    }
    for (int j = 0; j < S; j++)
        tr->rolled[j] = (float)v[j];
}

/* 1 when the source is one of the phrasebook's phrases, as the grammar check takes them,
 * and the model learned them: a fixed expression is translated whole ("Thank you very
 * much" → "Vielen Dank"), not word by word, so its words' coverage says nothing. */
static int learned_phrase(const Translator *tr)
{
    return (tr->grammar_with & GRAMMAR_WITH_PHRASEBOOK) &&
           grammar_is_phrase(tr->src.tok, tr->src.n);
}

/* Fills kind, coverage and uncovered for the sentence just decoded. */
static void assess(Translator *tr, const TokenList *surface, int n_text, TranslatorResult *out)
{
    const Translation *t = tr->cur;
    const ModelConfig *c = &tr->model->config;
    const int L = c->n_decoder_layers;
    int first = 0; /* the first word: the first token that is not punctuation */
    while (first < tr->src.n && tokenizer_is_punctuation(tr->src.tok[first]))
        first++;
    /* The attention each encoder output position received from the words written. */
    for (int j = 0; j < t->S; j++) {
        double sum = 0.0;
        for (int i = 0; i < n_text; i++)
            sum += (double)translation_weight(t, TRANSLATION_CROSS, i, j, L - 1,
                                              TRANSLATION_HEAD_MEAN);
        tr->coverage[j] = (float)sum;
    }
    /* The rollout, carried back to the source tokens, is read only for a word below
     * coverage_min, or shown when asked for (TranslatorOptions.rollout). */
    int need = tr->rollout_always;
    for (int j = 0; j < tr->src.n && !need; j++)
        need = tr->coverage[j] < tr->coverage_min;
    if (need)
        rollout(tr, t->S);
    tr->rolled_valid = need;
    const int english_source = config_lang_rules(tr->model->config.src_lang) == TOK_SRC;
    const int phrase = learned_phrase(tr);
    for (int j = 0; j < tr->src.n; j++) {
        int kind = TR_WORD_KNOWN;
        /* A name: capitalised, not a common English word ("Where", "Thanks" are
         * capitalised for standing first), and not first unless copied. Only in an
         * English source: German capitalises every noun, so there a capital says
         * nothing, and an unknown word is always reported. */
        if (tr->src_ids[j] == VOCAB_UNK)
            kind = english_source && translator_is_capitalised(surface->tok[j]) &&
                           !wordlist_is_common(tr->src.tok[j]) && (j != first || copied(tr, j))
                       ? TR_WORD_NAME
                       : TR_WORD_UNKNOWN;
        tr->kind[j] = kind;
        tr->uncovered[j] = !phrase && kind != TR_WORD_UNKNOWN &&
                           tr->coverage[j] < tr->coverage_min &&
                           tr->rolled[j] < TRANSLATOR_ROLLOUT_MIN &&
                           !source_function_word(tr->model, tr->src.tok[j]);
        out->n_unknown += kind == TR_WORD_UNKNOWN;
        out->n_names += kind == TR_WORD_NAME;
        out->n_uncovered += tr->uncovered[j];
    }
}

/* The label of words[i] among words[0..n): the word itself, with "#k" when it occurs
 * more than once and this is its k-th occurrence. Written as snprintf writes into dst
 * (size bytes, may be 0); returns the label's length. */
static size_t word_label(char *dst, size_t size, const char *const *words, int n, int i)
{
    int count = 0, k = 0;
    for (int j = 0; j < n; j++)
        /* The first bytes first: most words differ there, and a call costs more. */
        if (words[j][0] == words[i][0] && strcmp(words[j], words[i]) == 0) {
            count++;
            k += j <= i;
        }
    const int len = count > 1 ? snprintf(dst, size, "%s#%d", words[i], k)
                              : snprintf(dst, size, "%s", words[i]);
    return len > 0 ? (size_t)len : 0;
}

/* Fills the result's label lists, tr->label_ptrs: the source tokens and </s>, then the
 * words; their characters in one buffer, tr->label_text. */
static int label_result(Translator *tr, TranslatorResult *out)
{
    const int S = out->t->S, n = out->t->n;
    const char **names = tr->label_ptrs; /* the source names, replaced by their labels */
    for (int j = 0; j < S; j++)
        names[j] = j < out->src->n ? out->src->tok[j] : VOCAB_SPECIAL[VOCAB_EOS];
    size_t total = 0;
    for (int j = 0; j < S; j++)
        total += word_label(NULL, 0, names, S, j) + 1;
    for (int i = 0; i < n; i++)
        total += word_label(NULL, 0, out->words, n, i) + 1;
    char *buf = malloc(total ? total : 1);
    if (!buf)
        return TT_ENOMEM;
    /* Every source label is written while all the names are still there; then the
     * names are replaced by the labels. */
    size_t at = 0;
    for (int j = 0; j < S; j++)
        at += word_label(buf + at, total - at, names, S, j) + 1;
    at = 0;
    for (int j = 0; j < S; j++) {
        const char *label = buf + at;
        at += strlen(label) + 1;
        names[j] = label;
    }
    const char **labels = tr->label_ptrs + S;
    for (int i = 0; i < n; i++) {
        labels[i] = buf + at;
        at += word_label(buf + at, total - at, out->words, n, i) + 1;
    }
    free(tr->label_text);
    tr->label_text = buf;
    out->src_labels = tr->label_ptrs;
    out->labels = labels;
    return TT_OK;
}

static int finish_result(Translator *tr, TranslatorResult *out, char *err, size_t errlen);
static TranslatorAhead *ahead_take(Translator *tr, const char *text, size_t len);

/* ids (n + 1): the source ids of the first n tokens of src, unknown words as <unk>, then
 * </s>; returns n + 1, the source positions. */
static int source_ids(int *ids, const Model *m, const TokenList *src, int n)
{
    for (int i = 0; i < n; i++)
        ids[i] = vocab_lookup(&m->src_vocab, src->tok[i]);
    ids[n] = VOCAB_EOS;
    return n + 1;
}

/* Of n source tokens, how many are cut off the end: what exceeds the model's max_len
 * (</s> included). */
static int source_cropped(const Model *m, int n)
{
    const int max_src = m->config.max_len - 1;
    return n > max_src ? n - max_src : 0;
}

/* The message for decode_run's failure rc. */
static void set_decode_error(char *err, size_t errlen, int rc)
{
    tt_errf(err, errlen, "%s",
            rc == TT_EMODEL ? "the model computes a NaN or infinite logit for this sentence "
                              "(weights too large for float arithmetic): model file unusable"
                            : status_message(rc));
}

/* Counts n more sentences about to be decoded and packs the weights once there is a
 * second: copying 4 MiB costs more than it saves on one sentence (a command translating
 * one line answers about 2 ms sooner), and the products give the same bits either way.
 * Returns TT_OK or TT_ENOMEM (the sentences are then not counted). */
static int count_decoded(Translator *tr, int n)
{
    const int rc = tr->decoded + n > 1 ? decode_pack(&tr->dec) : TT_OK;
    if (rc == TT_OK)
        tr->decoded += n;
    return rc;
}

int translator_run(Translator *tr, const char *text, size_t len, TranslatorResult *out,
                   char *err, size_t errlen)
{
    const Model *m = tr->model;
    memset(out, 0, sizeof *out);
    /* The previous sentence's views end here. */
    free(tr->text);
    tr->text = NULL;
    tokenlist_free(&tr->surface);
    tokenlist_free(&tr->src);
    tr->n_hyp = 0;
    /* Taken first, so that a text refused below or empty still moves past its entry. */
    const TranslatorAhead *a = ahead_take(tr, text, len);

    TokError te;
    const TokLang src_rules = config_lang_rules(m->config.src_lang);
    int rc = tokenize(&tr->src, text, len, src_rules, &te);
    if (rc != TT_OK) {
        tt_errf(err, errlen, "%s", rc == TT_EINPUT ? te.message : status_message(rc));
        return rc;
    }
    /* Tokens past what the model takes: refused, or with crop cut off (below, once the
     * surface tokens have been matched with these). */
    const int cropped = source_cropped(m, tr->src.n);
    if (cropped && !tr->crop) {
        if (err && errlen > 0)
            snprintf(err, errlen, "%d tokens; this model takes at most %d (max_len %d with "
                                  "</s>)", tr->src.n, m->config.max_len - 1, m->config.max_len);
        rc = TT_EINPUT;
        goto fail;
    }
    /* The case-kept spelling of each source token, for copying unknown words (names).
     * Case folding can change how a text splits; then the folded tokens stand in. Out
     * of memory fails the sentence: it must not change the words shown. */
    rc = tokenize(&tr->surface, text, len, src_rules == TOK_SRC ? TOK_SRC_CASED : src_rules,
                  NULL);
    if (rc == TT_ENOMEM) {
        tt_errf(err, errlen, "%s", status_message(rc));
        goto fail;
    }
    if (rc != TT_OK || tr->surface.n != tr->src.n)
        tokenlist_free(&tr->surface);
    if (cropped) {
        tr->src.n -= cropped;
        if (tr->surface.n)
            tr->surface.n -= cropped;
    }

    /* The buffers hold the source and the output limit (decode_run's own). */
    const int S = tr->src.n + 1, limit = decode_limit(m, &tr->decode, S);
    rc = translator_reserve(tr, S > limit ? S : limit);
    if (rc != TT_OK) {
        tt_errf(err, errlen, "%s", status_message(rc));
        goto fail;
    }

    Translation *t = &tr->t;
    tr->cur = t;
    if (tr->src.n == 0) {
        t->n = 0;
        t->S = 0;
        t->n_forced = 0;
    } else {
        source_ids(tr->src_ids, m, &tr->src, tr->src.n);
        if (a && a->S == S && memcmp(a->ids, tr->src_ids, sizeof(int) * (size_t)S) == 0) {
            /* Decoded ahead, in a batch: its record is the result's, and stays in place
             * for a run of the same text after translator_ahead_rewind. */
            tr->cur = &a->t;
        } else {
            /* The threads of a decode in the background may be using this search. */
            ahead_wait(tr);
            rc = count_decoded(tr, 1);
            if (rc == TT_OK)
                rc = decode_run(&tr->dec, t, tr->src_ids, S, &tr->decode);
            if (rc != TT_OK) {
                set_decode_error(err, errlen, rc);
                goto fail;
            }
            tr->n_hyp = decode_n_best(&tr->dec);
        }
    }
    tr->cropped = cropped;
    rc = finish_result(tr, out, err, errlen);
    if (rc != TT_OK)
        goto fail;
    return TT_OK;

fail:
    tokenlist_free(&tr->surface);
    tokenlist_free(&tr->src);
    return rc;
}

int translator_set_batch(Translator *tr, int batch, Pool *pool)
{
    if (batch < 1 || batch > DECODE_MAX_BATCH || (batch > 1 && tr->decode.n_best))
        return TT_EINVAL;
    ahead_drop(tr);
    int rc = decode_set_batch(&tr->dec, batch, NULL);
    if (rc != TT_OK)
        return rc;
    ahead_free(tr);
    tr->batch = batch;
    tr->pool = pool;
    const int threads = pool_threads(pool);
    /* An n-best list is the search's own hypotheses, which a record decoded ahead does
     * not keep: those sentences are decoded one at a time, by translator_run. */
    if ((batch == 1 && threads == 1) || tr->decode.n_best)
        return TT_OK;
    const int n = TRANSLATOR_AHEAD_BLOCK * batch * threads;
    const size_t per = (size_t)batch * threads;
    tr->order = malloc(sizeof(int) * (size_t)n);
    tr->batch_ids = malloc(sizeof(int *) * per);
    tr->batch_S = malloc(sizeof(int) * per);
    tr->batch_t = malloc(sizeof(Translation *) * per);
    tr->batch_tgt = malloc(sizeof(int *) * per);
    tr->batch_n_tgt = malloc(sizeof(int) * per);
    tr->batch_sum = malloc(sizeof(double) * per);
    tr->more = calloc((size_t)threads, sizeof *tr->more);
    tr->job = malloc(sizeof *tr->job);
    if (!tr->order || !tr->batch_ids || !tr->batch_S || !tr->batch_t ||
        !tr->batch_tgt || !tr->batch_n_tgt || !tr->batch_sum || !tr->more || !tr->job) {
        ahead_free(tr);
        return TT_ENOMEM;
    }
    tr->n_ahead_cap = n;
    tr->threads = threads; /* ahead_free frees every search of more: a zeroed one too */
    for (int i = 0; i < threads - 1; i++) {
        rc = decode_init_sharing(&tr->more[i], &tr->dec);
        if (rc == TT_OK)
            rc = decode_set_batch(&tr->more[i], batch, NULL);
        tr->more[i].words_only = tr->dec.words_only;
        if (rc != TT_OK) {
            ahead_free(tr);
            return rc;
        }
    }
    if (!(tr->ahead = ahead_set_new(tr))) {
        ahead_free(tr);
        return TT_ENOMEM;
    }
    return TT_OK;
}

int translator_ahead_capacity(const Translator *tr)
{
    return tr->n_ahead_cap;
}


/* Thread task's share: the next batch of the sorted entries not yet taken, the longest
 * first, until none is left, with its own search and scratch (taken one at a time, the
 * threads finish together: with every thread's batches fixed in advance, one of two
 * threads was left alone with the last batches). Which search takes a batch depends on
 * timing, unlike pool.h's tasks; a sentence's numbers depend on no search's state (its
 * buffers' sizes and the encoder's chunks included). A batch that fails is left to
 * translator_run, its targets scored NAN. */
static void ahead_task(void *ctx, int task)
{
    AheadJob *job = ctx;
    Translator *tr = job->tr;
    Search *dec = task == 0 ? &tr->dec : &tr->more[task - 1];
    const int B = tr->batch;
    const size_t at = (size_t)task * B;
    const int **ids = tr->batch_ids + at, **tgt = tr->batch_tgt + at;
    int *S = tr->batch_S + at, *n_tgt = tr->batch_n_tgt + at;
    Translation **t = tr->batch_t + at;
    double *sum = tr->batch_sum + at;
    const int n_batches = (job->n_order + B - 1) / B;
    for (;;) {
        const int b = atomic_fetch_add(&job->taken, 1);
        if (b >= n_batches)
            break;
        const int k = (n_batches - 1 - b) * B;
        const int nb = job->n_order - k < B ? job->n_order - k : B;
        const int *order = tr->order + k;
        for (int j = 0; j < nb; j++) {
            TranslatorAhead *a = &job->set[order[j]];
            ids[j] = a->ids;
            S[j] = a->S;
            t[j] = &a->t;
            if (job->target) {
                tgt[j] = job->target[order[j]];
                n_tgt[j] = job->n_target[order[j]];
            }
        }
        if (decode_batch(dec, t, ids, S, nb, &tr->decode) != TT_OK)
            continue;
        for (int j = 0; j < nb; j++)
            job->set[order[j]].decoded = 1;
        if (job->target) {
            /* A target the decoder chose itself needs no forced pass: its score is the
             * record's sum, the same bits (each log-probability rounded to float and added
             * in order, decode.h). The others are scored on the encoder's pass, which
             * still holds the batch. */
            for (int j = 0; j < nb; j++)
                if (tgt[j] && translation_is(t[j], tgt[j], n_tgt[j])) {
                    job->sum[order[j]] = translation_logprob_sum(t[j]);
                    tgt[j] = NULL;
                }
            const int ok = decode_score_encoded(dec, tgt, n_tgt, sum) == TT_OK;
            for (int j = 0; j < nb; j++)
                if (tgt[j])
                    job->sum[order[j]] = ok ? sum[j] : NAN;
        }
    }
}

/* Sorts entries by source length, shortest first (ties in input order). */
static void sort_by_length(int *order, const TranslatorAhead *a, int n)
{
    for (int i = 1; i < n; i++) {
        const int x = order[i];
        int j = i;
        while (j > 0 && a[order[j - 1]].S > a[x].S) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
}

int translator_decode_ahead(Translator *tr, const char *const *texts, const size_t *lens,
                            int n)
{
    return translator_decode_ahead_scored(tr, texts, lens, n, NULL, NULL, NULL);
}

/* Fills set with texts[0..n) as translator_run would tokenize and crop them, sorts the
 * ones to decode into tr->order and sets up tr->job for ahead_task. */
static int ahead_prepare(Translator *tr, TranslatorAhead *set, const char *const *texts,
                         const size_t *lens, int n, const int *const *target,
                         const int *n_target, double *sum)
{
    const Model *m = tr->model;
    const TokLang src_rules = config_lang_rules(m->config.src_lang);
    int n_order = 0;
    for (int i = 0; target && i < n; i++)
        sum[i] = NAN;
    for (int i = 0; i < n; i++) {
        TranslatorAhead *a = &set[i];
        a->text = texts[i];
        a->len = lens[i];
        a->decoded = 0;
        /* As translator_run tokenizes and crops; what it would refuse is left to it. */
        TokenList src = {0};
        if (tokenize(&src, texts[i], lens[i], src_rules, NULL) != TT_OK) {
            tokenlist_free(&src);
            continue;
        }
        const int cropped = source_cropped(m, src.n);
        if (src.n > 0 && (!cropped || tr->crop)) {
            a->S = source_ids(a->ids, m, &src, src.n - cropped);
            tr->order[n_order++] = i;
        }
        tokenlist_free(&src);
    }
    sort_by_length(tr->order, set, n_order);
    const int rc = count_decoded(tr, n_order);
    if (rc != TT_OK)
        return rc;
    AheadJob *job = tr->job;
    job->tr = tr;
    job->set = set;
    job->n_order = n_order;
    job->target = target;
    job->n_target = n_target;
    job->sum = sum;
    atomic_init(&job->taken, 0);
    return TT_OK;
}

int translator_decode_ahead_scored(Translator *tr, const char *const *texts,
                                   const size_t *lens, int n, const int *const *target,
                                   const int *n_target, double *sum)
{
    if (tr->flight)
        return TT_EINVAL;
    tr->n_ahead = tr->next_ahead = 0;
    if (n < 0 || n > tr->n_ahead_cap)
        return TT_EINVAL;
    const int rc = ahead_prepare(tr, tr->ahead, texts, lens, n, target, n_target, sum);
    if (rc != TT_OK)
        return rc;
    pool_run(tr->pool, tr->threads, ahead_task, tr->job);
    tr->n_ahead = n;
    return TT_OK;
}

int translator_ahead_start(Translator *tr, const char *const *texts, const size_t *lens,
                           int n)
{
    /* No capacity: one thread at batch 1, or an n-best list (translator_set_batch). */
    if (n < 0 || n > tr->n_ahead_cap || tr->n_ahead_cap < 1 || tr->flight)
        return TT_EINVAL;
    if (!tr->coming && !(tr->coming = ahead_set_new(tr)))
        return TT_ENOMEM;
    const int rc = ahead_prepare(tr, tr->coming, texts, lens, n, NULL, NULL, NULL);
    if (rc != TT_OK)
        return rc;
    tr->n_coming = n;
    tr->flight = 1;
    pool_start(tr->pool, tr->threads, ahead_task, tr->job);
    return TT_OK;
}

void translator_ahead_join(Translator *tr)
{
    ahead_wait(tr);
    if (tr->flight) {
        TranslatorAhead *set = tr->ahead;
        tr->ahead = tr->coming;
        tr->coming = set;
        tr->n_ahead = tr->n_coming;
        tr->next_ahead = 0;
    }
    tr->flight = 0;
}

/* The entry decoded ahead for this text, if it is the next one. */
static TranslatorAhead *ahead_take(Translator *tr, const char *text, size_t len)
{
    if (tr->next_ahead >= tr->n_ahead)
        return NULL;
    TranslatorAhead *a = &tr->ahead[tr->next_ahead];
    if (a->len != len || (a->text != text && memcmp(a->text, text, len) != 0))
        return NULL;
    tr->next_ahead++;
    return a->decoded ? a : NULL;
}

void translator_ahead_rewind(Translator *tr)
{
    tr->next_ahead = 0;
}

int translator_n_best(const Translator *tr)
{
    return tr->n_hyp;
}

int translator_hypothesis(Translator *tr, int k, TranslatorResult *out, double *logprob,
                          double *score, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (k < 0 || k >= tr->n_hyp) {
        tt_errf(err, errlen, "%s", status_message(TT_EINVAL));
        return TT_EINVAL;
    }
    const int *ids;
    int n;
    decode_hypothesis(&tr->dec, k, &ids, &n, logprob, score);
    free(tr->text); /* the previous result's views end here */
    tr->text = NULL;
    tr->cur = &tr->t;
    int rc = decode_record_hypothesis(&tr->dec, &tr->t, k);
    if (rc != TT_OK) {
        set_decode_error(err, errlen, rc);
        return rc;
    }
    return finish_result(tr, out, err, errlen);
}

/* Checks the source against the corpus grammar (grammar.h), names as the kinds say, and
 * fills out->grammar and its note. Returns TT_OK or TT_ENOMEM. */
static int check_grammar(Translator *tr, const TokenList *surface, TranslatorResult *out)
{
    const int n = tr->src.n;
    unsigned char *is_name = malloc((size_t)n);
    if (!is_name)
        return TT_ENOMEM;
    for (int j = 0; j < n; j++)
        is_name[j] = tr->kind[j] == TR_WORD_NAME;
    GrammarVerdict v;
    const int rc = grammar_check_with(tr->src.tok, is_name, n, tr->grammar_with, &v);
    free(is_name);
    if (rc != TT_OK)
        return rc;
    out->grammar = v.in_grammar ? TR_GRAMMAR_IN : TR_GRAMMAR_OUT;
    if (v.in_grammar)
        return TT_OK;
    /* The span as typed, its words joined by spaces; cut (with "...") if it is long. */
    char span[160];
    size_t used = 0;
    for (int j = v.from; j < v.to && j < surface->n && used < sizeof span; j++)
        used += (size_t)snprintf(span + used, sizeof span - used, "%s%s", j > v.from ? " " : "",
                                 surface->tok[j]);
    if (used >= sizeof span)
        memcpy(span + sizeof span - 4, "...", 4);
    snprintf(tr->grammar_note, sizeof tr->grammar_note, "at \"%s\" (%s)", span, v.reason);
    out->grammar_note = tr->grammar_note;
    return TT_OK;
}

/* The spelling of a generated word w of an English target, whose vocabulary is folded:
 * into dst (size bytes), the word as a sentence shows it. "i" is "I"; a word equal to the
 * folded form of a capitalised source word takes its spelling (names: "anna" for
 * "Anna"); the first word of the text is capitalised. folded[j] is source word j's
 * folded form when it is capitalised, else NULL. Returns the bytes written. */
static size_t cased_word(char *dst, size_t size, const char *w, int first,
                         const TokenList *surface, char *const *folded)
{
    if (strcmp(w, "i") == 0)
        return (size_t)snprintf(dst, size, "I");
    for (int j = 0; j < surface->n; j++)
        if (folded[j] && strcmp(folded[j], w) == 0)
            return (size_t)snprintf(dst, size, "%s", surface->tok[j]);
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)w, -1, &cp);
    if (!first || n < 1)
        return (size_t)snprintf(dst, size, "%s", w);
    utf8proc_uint8_t up[4];
    const utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_toupper(cp), up);
    return (size_t)snprintf(dst, size, "%.*s%s", (int)m, (const char *)up, w + n);
}

/* Gives the generated words of an English target their case (cased_word), in one buffer
 * tr->case_text that tr->words then points into. The prefix stays as the user wrote it.
 * The capitalised source words are folded once for the sentence, not once a word. */
static int truecase(Translator *tr, const TokenList *surface, int n_text)
{
    const Translation *t = tr->cur;
    char **folded = calloc(surface->n ? (size_t)surface->n : 1, sizeof *folded);
    if (!folded)
        return TT_ENOMEM;
    for (int j = 0; j < surface->n; j++) {
        utf8proc_uint8_t *f = NULL;
        if (translator_is_capitalised(surface->tok[j]) &&
            utf8proc_map((const utf8proc_uint8_t *)surface->tok[j], 0, &f,
                         UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE |
                             UTF8PROC_CASEFOLD) >= 0)
            folded[j] = (char *)f;
    }
    size_t total = 1;
    for (int i = t->n_forced; i < n_text; i++)
        total += cased_word(NULL, 0, tr->words[i], i == 0, surface, folded) + 1;
    char *buf = malloc(total);
    if (buf) {
        size_t at = 0;
        for (int i = t->n_forced; i < n_text; i++) {
            const size_t n = cased_word(buf + at, total - at, tr->words[i], i == 0, surface,
                                        folded);
            tr->words[i] = buf + at;
            at += n + 1;
        }
        free(tr->case_text);
        tr->case_text = buf;
    }
    for (int j = 0; j < surface->n; j++)
        free(folded[j]);
    free(folded);
    return buf ? TT_OK : TT_ENOMEM;
}

/* The result of the sentence tr->cur holds: words, text and what deserves doubt. */
static int finish_result(Translator *tr, TranslatorResult *out, char *err, size_t errlen)
{
    const Translation *t = tr->cur;
    const TokenList *surface = tr->surface.n ? &tr->surface : &tr->src;
    for (int i = 0; i < t->n; i++) {
        tr->tokens[i] = output_token(tr, i);
        tr->words[i] = output_word(tr, surface, i, &tr->copied[i]);
    }
    const int n_text = text_tokens(t);
    if (config_lang_rules(tr->model->config.tgt_lang) == TOK_SRC) {
        const int rc = truecase(tr, surface, n_text);
        if (rc != TT_OK) {
            tt_errf(err, errlen, "%s", status_message(rc));
            return rc;
        }
    }
    if (n_text > 0) {
        const int rc = detokenize(&tr->text, tr->words, n_text);
        if (rc != TT_OK) {
            tt_errf(err, errlen, "%s", status_message(rc));
            return rc;
        }
    }
    out->model = tr->model;
    out->text = tr->text ? tr->text : "";
    out->t = t;
    out->src = &tr->src;
    out->surface = surface;
    out->tokens = tr->tokens;
    out->words = tr->words;
    out->copied = tr->copied;
    out->n_text = n_text;
    assess(tr, surface, n_text, out);
    out->kind = tr->kind;
    if (tr->grammar_check && tr->src.n > 0) {
        const int rc = check_grammar(tr, surface, out);
        if (rc != TT_OK) {
            tt_errf(err, errlen, "%s", status_message(rc));
            return rc;
        }
    }
    out->coverage = tr->coverage;
    out->rollout = tr->rolled_valid ? tr->rolled : NULL;
    out->uncovered = tr->uncovered;
    out->cropped = tr->cropped;
    out->min_prob = 1.0f;
    for (int i = t->n_forced; i < t->n; i++)
        if (expf(t->logprob[i]) < out->min_prob)
            out->min_prob = expf(t->logprob[i]);
    const int rc = label_result(tr, out);
    if (rc != TT_OK) {
        tt_errf(err, errlen, "%s", status_message(rc));
        memset(out, 0, sizeof *out);
        return rc;
    }
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * JSON
 */

int translator_write_json(FILE *out, const TranslatorResult *r, const char *line, size_t len)
{
    const Translation *t = r->t;
    const Model *m = r->model;
    const ModelConfig *c = &m->config;
    const int L = c->n_decoder_layers, H = c->n_heads;
    JsonWriter w;
    json_init(&w, out);
    json_begin_object(&w);
    json_key(&w, "source");
    json_string_n(&w, line, len);
    json_key(&w, "source_tokens");
    json_begin_array(&w);
    for (int i = 0; i < r->src->n; i++)
        json_string(&w, r->src->tok[i]);
    if (r->src->n)
        json_string(&w, VOCAB_SPECIAL[VOCAB_EOS]);
    json_end_array(&w);
    json_key(&w, "translation");
    json_string(&w, r->text);
    json_key(&w, "tokens");
    json_begin_array(&w);
    for (int i = 0; i < t->n; i++)
        json_string(&w, r->tokens[i]);
    json_end_array(&w);
    static const struct {
        const char *key;
        int kind; /* a TranslatorWordKind, or -1 for the uncovered words */
    } WORD_LISTS[] = {
        {"unknown_words", TR_WORD_UNKNOWN}, {"names", TR_WORD_NAME}, {"not_translated", -1}};
    for (size_t k = 0; k < sizeof WORD_LISTS / sizeof WORD_LISTS[0]; k++) {
        json_key(&w, WORD_LISTS[k].key);
        json_begin_array(&w);
        for (int j = 0; j < r->src->n; j++)
            if (WORD_LISTS[k].kind < 0 ? r->uncovered[j] != 0 : r->kind[j] == WORD_LISTS[k].kind)
                json_string(&w, r->surface->tok[j]);
        json_end_array(&w);
    }
    json_key(&w, "in_grammar");
    if (r->grammar == TR_GRAMMAR_UNCHECKED)
        json_null(&w);
    else
        json_bool(&w, r->grammar == TR_GRAMMAR_IN);
    json_key(&w, "grammar_note");
    if (r->grammar_note)
        json_string(&w, r->grammar_note);
    else
        json_null(&w);
    json_key(&w, "min_prob");
    json_float(&w, r->min_prob);
    if (r->read_back.why || r->read_back.done) {
        const TranslatorReadBack *b = &r->read_back;
        json_key(&w, "read_back");
        json_begin_object(&w);
        json_key(&w, "checked");
        json_bool(&w, b->done);
        if (b->done) {
            json_key(&w, "text");
            json_string(&w, b->text);
            json_key(&w, "logprob");
            json_float(&w, (float)b->best);
            json_key(&w, "input_logprob");
            json_float(&w, (float)b->input);
            json_key(&w, "margin");
            json_float(&w, (float)b->margin);
            json_key(&w, "agrees");
            json_bool(&w, !b->disagrees);
        } else {
            json_key(&w, "why");
            json_string(&w, b->why);
        }
        json_end_object(&w);
    }
    json_key(&w, "coverage");
    json_float_array(&w, r->coverage, t->S);
    json_key(&w, "coverage_rollout");
    if (r->rollout)
        json_float_array(&w, r->rollout, t->S);
    else
        json_null(&w); /* not computed: TranslatorOptions.rollout was not set */
    json_key(&w, "steps");
    json_begin_array(&w);
    for (int i = 0; i < t->n; i++) {
        json_begin_object(&w);
        json_key(&w, "token");
        json_string(&w, r->words[i]);
        json_key(&w, "id");
        json_int(&w, t->ids[i]);
        json_key(&w, "logprob");
        json_float(&w, t->logprob[i]);
        json_key(&w, "forced");
        json_bool(&w, i < t->n_forced);
        json_key(&w, "copied");
        json_bool(&w, r->copied[i]);
        static const char *const KINDS[2] = {"cross_attention", "self_attention"};
        for (int kind = 0; kind < 2; kind++) {
            const int width = kind == 0 ? t->S : i + 1;
            json_key(&w, KINDS[kind]);
            json_begin_array(&w);
            for (int l = 0; l < L; l++) {
                json_begin_array(&w);
                for (int h = 0; h < H; h++)
                    json_float_array(&w, kind == 0 ? translation_cross(t, i, l, h)
                                                   : translation_self(t, i, l, h),
                                     width);
                json_end_array(&w);
            }
            json_end_array(&w);
        }
        if (t->alt_k) {
            json_key(&w, "alternatives");
            json_begin_array(&w);
            for (int j = 0; j < t->alt_k; j++) {
                const int id = t->alt_ids[(size_t)i * t->alt_k + j];
                json_begin_object(&w);
                json_key(&w, "token");
                json_string(&w, m->tgt_vocab.tokens[id]);
                json_key(&w, "id");
                json_int(&w, id);
                json_key(&w, "prob");
                json_float(&w, t->alt_prob[(size_t)i * t->alt_k + j]);
                json_end_object(&w);
            }
            json_end_array(&w);
        }
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    int rc = json_finish(&w);
    if (fputc('\n', out) == EOF && rc == TT_OK)
        rc = TT_EIO;
    return rc;
}

const float *translator_encoder_attention(const Translator *tr)
{
    return tr->cur && tr->cur->S > 0 ? tr->cur->enc : NULL;
}
