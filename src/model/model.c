/*
 * model.c — the parameter table, the block, and moving both to and from a model file.
 *
 * The architecture is walked in exactly one place, model_layout. Each parameter it meets
 * is appended to the spec table (name, shape, storage, initialisation) and, when views
 * are wanted, the matching pointer of ModelWeights is set to its place in the block.
 * Loading, saving, initialising and mapping all follow that one walk, so they cannot
 * disagree about names, shapes or order.
 *
 * A file is begun in one place too, model_create, whatever tool makes it, with the keys
 * of one provenance table (which info shows); and its header, the configuration and
 * vocabularies, is read in one place, model_header_read.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "model/model.h"

#include "base/kernel.h"
#include "base/status.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Asks the system to back [p, p + bytes) with memory now, in one call, rather than page
 * by page as the first writes fault (a thousand faults for a million parameters, each
 * dear on a virtual machine). Only a hint: where it is not supported nothing changes. */
static void populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    /* The whole pages inside the block: madvise takes a page-aligned start. */
    const size_t page = 4096, skip = (page - (size_t)((uintptr_t)p % page)) % page;
    if (bytes > skip + page)
        (void)madvise((char *)p + skip, (bytes - skip) / page * page, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

typedef struct {
    ParamSpec *specs;    /* NULL: count only */
    int n;
    size_t total;        /* floats so far */
    ModelWeights *w;     /* NULL: no views */
    const float *block;
} Layout;

static void add(Layout *lo, const char *name, int rows, int cols, ParamStorage storage,
                ParamInit init, const float **slot)
{
    if (lo->specs) {
        ParamSpec *p = &lo->specs[lo->n];
        size_t len = strlen(name);
        assert(len < sizeof p->name); /* the longest name has about 45 characters */
        memcpy(p->name, name, len + 1);
        p->rows = rows;
        p->cols = cols;
        p->offset = lo->total;
        p->storage = storage;
        p->init = init;
    }
    if (lo->w && slot)
        *slot = lo->block + lo->total;
    lo->n++;
    lo->total += (size_t)rows * (size_t)(cols ? cols : 1);
}

/* dst = a "." b; names are short and fixed, so a name that does not fit is a bug. */
static void join(char *dst, size_t size, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    assert(la + 1 + lb < size);
    if (la + 1 + lb >= size) {
        dst[0] = '\0';
        return;
    }
    memcpy(dst, a, la);
    dst[la] = '.';
    memcpy(dst + la + 1, b, lb + 1);
}

/* Adds "prefix.suffix". */
static void addf(Layout *lo, const char *prefix, const char *suffix, int rows, int cols,
                 ParamInit init, const float **slot)
{
    char name[MODEL_NAME_MAX];
    join(name, sizeof name, prefix, suffix);
    add(lo, name, rows, cols, PARAM_TENSOR, init, slot);
}

#define SLOT(ptr, field) ((ptr) ? &(ptr)->field : NULL)

static void add_mha(Layout *lo, const char *prefix, const ModelConfig *c, MhaWeights *mw)
{
    const int D = c->d_model;
    if (mw) {
        memset(mw, 0, sizeof *mw);
        mw->d_model = D;
        mw->n_heads = c->n_heads;
    }
    addf(lo, prefix, "W_query.weight", D, D, INIT_XAVIER, SLOT(mw, w_query));
    if (c->qkv_bias)
        addf(lo, prefix, "W_query.bias", D, 0, INIT_ZERO, SLOT(mw, b_query));
    addf(lo, prefix, "W_key.weight", D, D, INIT_XAVIER, SLOT(mw, w_key));
    if (c->qkv_bias)
        addf(lo, prefix, "W_key.bias", D, 0, INIT_ZERO, SLOT(mw, b_key));
    addf(lo, prefix, "W_value.weight", D, D, INIT_XAVIER, SLOT(mw, w_value));
    if (c->qkv_bias)
        addf(lo, prefix, "W_value.bias", D, 0, INIT_ZERO, SLOT(mw, b_value));
    addf(lo, prefix, "out_proj.weight", D, D, INIT_XAVIER, SLOT(mw, w_out));
    addf(lo, prefix, "out_proj.bias", D, 0, INIT_ZERO, SLOT(mw, b_out));
}

static void add_norm(Layout *lo, const char *prefix, const float **w, const float **b, int D)
{
    addf(lo, prefix, "weight", D, 0, INIT_ONE, w);
    addf(lo, prefix, "bias", D, 0, INIT_ZERO, b);
}

static void add_ffn(Layout *lo, const char *prefix, int D, int F, const float **w1,
                    const float **b1, const float **w2, const float **b2)
{
    char name[MODEL_NAME_MAX];
    join(name, sizeof name, prefix, "linear1");
    addf(lo, name, "weight", F, D, INIT_XAVIER, w1);
    addf(lo, name, "bias", F, 0, INIT_ZERO, b1);
    join(name, sizeof name, prefix, "linear2");
    addf(lo, name, "weight", D, F, INIT_XAVIER, w2);
    addf(lo, name, "bias", D, 0, INIT_ZERO, b2);
}

/* The one walk over the architecture. */
static void model_layout(Layout *lo, const ModelConfig *c, int V_src, int V_tgt)
{
    const int D = c->d_model, F = c->d_ff;
    ModelWeights *w = lo->w;
    add(lo, "embedding.src", V_src, D, PARAM_EMBED_SRC, INIT_XAVIER, SLOT(w, emb_src));
    add(lo, "embedding.tgt", V_tgt, D, PARAM_EMBED_TGT, INIT_XAVIER, SLOT(w, emb_tgt));
    char p[MODEL_NAME_MAX], q[MODEL_NAME_MAX];
    for (int l = 0; l < c->n_encoder_layers; l++) {
        EncoderLayer *e = w ? &w->enc[l] : NULL;
        snprintf(p, sizeof p, "encoder.layers.%d", l);
        join(q, sizeof q, p, "self_attn");
        add_mha(lo, q, c, SLOT(e, self_attn));
        add_ffn(lo, p, D, F, SLOT(e, lin1_w), SLOT(e, lin1_b), SLOT(e, lin2_w), SLOT(e, lin2_b));
        join(q, sizeof q, p, "norm1");
        add_norm(lo, q, SLOT(e, norm1_w), SLOT(e, norm1_b), D);
        join(q, sizeof q, p, "norm2");
        add_norm(lo, q, SLOT(e, norm2_w), SLOT(e, norm2_b), D);
    }
    add_norm(lo, "encoder.norm", SLOT(w, enc_norm_w), SLOT(w, enc_norm_b), D);
    for (int l = 0; l < c->n_decoder_layers; l++) {
        DecoderLayer *d = w ? &w->dec[l] : NULL;
        snprintf(p, sizeof p, "decoder.layers.%d", l);
        join(q, sizeof q, p, "self_attn");
        add_mha(lo, q, c, SLOT(d, self_attn));
        join(q, sizeof q, p, "cross_attn");
        add_mha(lo, q, c, SLOT(d, cross_attn));
        add_ffn(lo, p, D, F, SLOT(d, lin1_w), SLOT(d, lin1_b), SLOT(d, lin2_w), SLOT(d, lin2_b));
        join(q, sizeof q, p, "norm1");
        add_norm(lo, q, SLOT(d, norm1_w), SLOT(d, norm1_b), D);
        join(q, sizeof q, p, "norm2");
        add_norm(lo, q, SLOT(d, norm2_w), SLOT(d, norm2_b), D);
        join(q, sizeof q, p, "norm3");
        add_norm(lo, q, SLOT(d, norm3_w), SLOT(d, norm3_b), D);
    }
    add_norm(lo, "decoder.norm", SLOT(w, dec_norm_w), SLOT(w, dec_norm_b), D);
    add(lo, "generator.weight", V_tgt, D, PARAM_TENSOR, INIT_XAVIER, SLOT(w, gen_w));
    add(lo, "generator.bias", V_tgt, 0, PARAM_TENSOR, INIT_ZERO, SLOT(w, gen_b));
}

int model_param_specs(const ModelConfig *c, int V_src, int V_tgt, ParamSpec **specs, int *n,
                      size_t *total)
{
    *specs = NULL;
    Layout count = {0};
    model_layout(&count, c, V_src, V_tgt);
    ParamSpec *s = calloc((size_t)count.n, sizeof *s);
    if (!s)
        return TT_ENOMEM;
    Layout fill = {.specs = s};
    model_layout(&fill, c, V_src, V_tgt);
    *specs = s;
    *n = fill.n;
    *total = fill.total;
    return TT_OK;
}

void model_map(ModelWeights *w, const ModelConfig *c, const ParamSpec *specs, int n_specs,
               const float *block)
{
    /* The vocabulary sizes are the embeddings' rows, the first two specs. */
    (void)n_specs;
    Layout lo = {.w = w, .block = block};
    memset(w, 0, sizeof *w);
    model_layout(&lo, c, specs[0].rows, specs[1].rows);
}

void model_free(Model *m)
{
    if (!m)
        return;
    free(m->pe);
    free(m->params);
    free(m->specs);
    vocab_free(&m->tgt_vocab);
    vocab_free(&m->src_vocab);
    memset(m, 0, sizeof *m);
}

int model_init(Model *m, const ModelConfig *c, Vocab *src, Vocab *tgt, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    int rc = config_check(c, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (!src || !tgt || src->size < VOCAB_N_SPECIAL || tgt->size < VOCAB_N_SPECIAL) {
        snprintf(err, errlen, "a model needs both vocabularies");
        return TT_EINVAL;
    }
    m->config = *c;
    if ((rc = model_param_specs(c, src->size, tgt->size, &m->specs, &m->n_specs,
                                &m->n_params)) != TT_OK)
        goto fail;
    if ((long long)m->n_params > CONFIG_MAX_PARAMS) {
        snprintf(err, errlen, "the configuration needs %zu parameters, more than the %lld "
                              "(1 GiB of floats) a model may have",
                 m->n_params, CONFIG_MAX_PARAMS);
        rc = TT_EINVAL;
        goto fail;
    }
    /* Every tensor must fit one blob of the file (the generator grows with the target
     * vocabulary): refused before the parameters are allocated, not when saving. */
    for (int i = 0; i < m->n_specs; i++) {
        const ParamSpec *p = &m->specs[i];
        const long long n = (long long)p->rows * (p->cols ? p->cols : 1);
        if (p->storage == PARAM_TENSOR && n > CONFIG_MAX_TENSOR_FLOATS) {
            snprintf(err, errlen, "tensor %s would hold %lld floats, more than the %d "
                                  "(256 MiB) one tensor of a model file may hold",
                     p->name, n, CONFIG_MAX_TENSOR_FLOATS);
            rc = TT_EINVAL;
            goto fail;
        }
    }
    rc = TT_ENOMEM;
    const int D = c->d_model;
    m->params = calloc(m->n_params, sizeof(float));
    if (m->params)
        populate(m->params, sizeof(float) * (size_t)m->n_params);
    m->pe = malloc(sizeof(float) * (size_t)c->max_len * (size_t)D);
    if (!m->params || !m->pe)
        goto fail;
    /* PE[pos, 2i] = sin(pos / 10000^(2i/D)), PE[pos, 2i+1] = cos(same), in double. */
    for (int pos = 0; pos < c->max_len; pos++)
        for (int i = 0; i < D; i++) {
            double angle = pos / pow(10000.0, (double)(i - i % 2) / D);
            m->pe[(size_t)pos * D + i] = (float)(i % 2 ? cos(angle) : sin(angle));
        }
    model_map(&m->w, c, m->specs, m->n_specs, m->params);
    m->src_vocab = *src;
    m->tgt_vocab = *tgt;
    memset(src, 0, sizeof *src);
    memset(tgt, 0, sizeof *tgt);
    return TT_OK;
fail:
    free(m->pe);
    free(m->params);
    free(m->specs);
    memset(m, 0, sizeof *m);
    return rc;
}

void model_randomize(Model *m, Rng *rng)
{
    for (int i = 0; i < m->n_specs; i++) {
        const ParamSpec *p = &m->specs[i];
        float *x = m->params + p->offset;
        size_t n = (size_t)p->rows * (size_t)(p->cols ? p->cols : 1);
        switch (p->init) {
        case INIT_XAVIER: {
            const float bound = (float)sqrt(6.0 / (double)(p->rows + p->cols));
            rng_fill_uniform(rng, x, n, -bound, bound);
            break;
        }
        case INIT_ZERO:
            memset(x, 0, n * sizeof(float));
            break;
        case INIT_ONE:
            for (size_t k = 0; k < n; k++)
                x[k] = 1.0f;
            break;
        }
    }
}

/* A block this small is allocated even when the file cannot hold it, so that the loader
 * names the first missing tensor, as it does for a file of vocabularies only. */
#define MODEL_UNCHECKED_BYTES (16.0 * 1024 * 1024)

/* Refuses a header (checked by config_read) that needs more parameters than the file
 * can hold (4 bytes each, stored as they are), before the block is allocated: a small
 * damaged file must not make the loader ask for gigabytes. */
static int check_fits(Store *s, const ModelHeader *h, char *err, size_t errlen)
{
    long long bytes = 0;
    const size_t total = h->n_params;
    int rc = store_size(s, &bytes, err, errlen);
    const double need = (double)total * sizeof(float);
    if (rc == TT_OK && (long long)total > CONFIG_MAX_PARAMS) {
        snprintf(err, errlen, "%s: the configuration needs %zu parameters, more than the "
                              "%lld (1 GiB of floats) a model may have",
                 store_path(s), total, CONFIG_MAX_PARAMS);
        rc = TT_EMODEL;
    }
    if (rc == TT_OK && need > MODEL_UNCHECKED_BYTES && need > (double)bytes) {
        snprintf(err, errlen, "%s: the configuration needs %zu parameters (%.0f bytes), more "
                              "than the whole file holds (%lld bytes)",
                 store_path(s), total, need, bytes);
        rc = TT_EMODEL;
    }
    return rc;
}

void model_header_free(ModelHeader *h)
{
    if (!h)
        return;
    free(h->specs);
    vocab_free(&h->tgt);
    vocab_free(&h->src);
    memset(h, 0, sizeof *h);
}

int model_header_read(ModelHeader *h, Store *s, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    int rc = config_read(s, &h->config, err, errlen);
    if (rc == TT_OK)
        rc = store_vocab_read(s, "src", &h->src, err, errlen);
    if (rc == TT_OK)
        rc = store_vocab_read(s, "tgt", &h->tgt, err, errlen);
    if (rc == TT_OK &&
        (rc = model_param_specs(&h->config, h->src.size, h->tgt.size, &h->specs, &h->n_specs,
                                &h->n_params)) != TT_OK)
        snprintf(err, errlen, "%s", status_message(rc));
    if (rc != TT_OK)
        model_header_free(h);
    return rc;
}

int model_header_open(Store **out, ModelHeader *h, const char *path, char *err,
                      size_t errlen)
{
    memset(h, 0, sizeof *h);
    int rc = store_open(out, path, STORE_READ, err, errlen);
    if (rc == TT_OK)
        rc = model_header_read(h, *out, err, errlen);
    if (rc != TT_OK) {
        store_close(*out, NULL, 0);
        *out = NULL;
    }
    return rc;
}

/* The checksum meta records under key (MODEL_LEXICON_KEY, MODEL_PHRASEBOOK_KEY), or 0:
 * absent, or not 16 hex digits. Informational, so a missing or odd value only means no
 * grammar check (no phrases in it). */
static uint64_t read_checksum_key(Store *s, const char *key)
{
    char buf[32];
    if (store_meta_get(s, key, buf, sizeof buf, NULL, 0) != TT_OK ||
        strlen(buf) != 16 || strspn(buf, "0123456789abcdef") != 16)
        return 0;
    return (uint64_t)strtoull(buf, NULL, 16);
}

/* Loads the weights of a model whose header h was read from s; h's vocabularies move
 * into m. With checksum, verifies the content checksum last. */
static int load_weights(Model *m, ModelHeader *h, Store *s, int checksum, char *err,
                        size_t errlen)
{
    int rc = check_fits(s, h, err, errlen);
    if (rc == TT_OK)
        rc = model_init(m, &h->config, &h->src, &h->tgt, err, errlen);
    for (int i = 0; rc == TT_OK && i < m->n_specs; i++) {
        const ParamSpec *p = &m->specs[i];
        float *dst = m->params + p->offset;
        if (p->storage == PARAM_TENSOR) {
            int dims[2] = {p->rows, p->cols};
            rc = store_tensor_read(s, p->name, dims, p->cols ? 2 : 1, dst, err, errlen);
        } else {
            rc = store_embedding_read(s, p->storage == PARAM_EMBED_SRC ? "src" : "tgt", dst,
                                      p->rows, p->cols, err, errlen);
        }
    }
    /* Last, so that a file broken in a way the checks above name gets that message. */
    if (rc == TT_OK && checksum)
        rc = store_verify_checksum(s, err, errlen);
    if (rc == TT_OK) {
        m->lexicon_fnv1a64 = read_checksum_key(s, MODEL_LEXICON_KEY);
        m->phrasebook_fnv1a64 = read_checksum_key(s, MODEL_PHRASEBOOK_KEY);
    }
    if (rc != TT_OK)
        model_free(m);
    return rc;
}

int model_load(Model *m, Store *s, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    ModelHeader h;
    int rc = model_header_read(&h, s, err, errlen);
    if (rc == TT_OK)
        rc = load_weights(m, &h, s, 1, err, errlen);
    model_header_free(&h); /* its vocabularies zeroed if model_init took them */
    return rc;
}

int model_load_file(Model *m, const char *path, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    Store *s = NULL;
    ModelHeader h;
    int rc = model_header_open(&s, &h, path, err, errlen);
    if (rc == TT_OK)
        rc = load_weights(m, &h, s, 1, err, errlen);
    model_header_free(&h);
    store_close(s, NULL, 0);
    return rc;
}

int model_load_file_unchecked(Model *m, ModelChecks *checks, const char *path, char *err,
                              size_t errlen)
{
    memset(m, 0, sizeof *m);
    checks->s = NULL;
    Store *s = NULL;
    ModelHeader h;
    memset(&h, 0, sizeof h);
    int rc = store_open_unchecked(&s, path, err, errlen);
    if (rc == TT_OK)
        rc = model_header_read(&h, s, err, errlen);
    if (rc == TT_OK)
        rc = load_weights(m, &h, s, 0, err, errlen);
    model_header_free(&h);
    if (rc == TT_OK) {
        checks->s = s;
        return TT_OK;
    }
    /* A file integrity_check refuses gets its message, as model_load_file runs it before
     * reading the header (store_open_unchecked did the same for what it checks itself). */
    if (s)
        rc = store_integrity_first(s, rc, err, errlen);
    store_close(s, NULL, 0);
    return rc;
}

int model_load_checks(ModelChecks *checks, char *err, size_t errlen)
{
    Store *s = checks->s;
    checks->s = NULL;
    if (!s)
        return TT_EINVAL;
    int rc = store_check_integrity(s, err, errlen);
    if (rc == TT_OK)
        rc = store_verify_checksum(s, err, errlen);
    store_close(s, NULL, 0);
    return rc;
}

int model_save(const Model *m, Store *s, char *err, size_t errlen)
{
    int rc = config_write(s, &m->config, err, errlen);
    /* What the weights were trained on stays with them: a saved copy keeps its grammar
     * check. */
    if (rc == TT_OK && m->lexicon_fnv1a64) {
        char buf[32];
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)m->lexicon_fnv1a64);
        rc = store_meta_set(s, MODEL_LEXICON_KEY, buf, err, errlen);
    }
    if (rc == TT_OK && m->phrasebook_fnv1a64) {
        char buf[32];
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)m->phrasebook_fnv1a64);
        rc = store_meta_set(s, MODEL_PHRASEBOOK_KEY, buf, err, errlen);
    }
    if (rc == TT_OK)
        rc = store_vocab_write(s, "src", &m->src_vocab, err, errlen);
    if (rc == TT_OK)
        rc = store_vocab_write(s, "tgt", &m->tgt_vocab, err, errlen);
    for (int i = 0; rc == TT_OK && i < m->n_specs; i++) {
        const ParamSpec *p = &m->specs[i];
        const float *x = m->params + p->offset;
        if (p->storage == PARAM_TENSOR) {
            int dims[2] = {p->rows, p->cols};
            rc = store_tensor_write(s, p->name, dims, p->cols ? 2 : 1, x, err, errlen);
        } else {
            rc = store_embedding_write(s, p->storage == PARAM_EMBED_SRC ? "src" : "tgt", x,
                                       p->rows, p->cols, err, errlen);
        }
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * A new model file and its provenance
 */

#define PROV(field) offsetof(ModelProvenance, field)

/* The provenance keys model_create writes for every new file, whichever tool makes it,
 * in info's order. The training run's record follows them there: its keys are train's
 * (train_provenance_keys). */
static const ProvKey PROVENANCE[] = {
    {"created_by", "created by", PROV_TEXT, PROV(created_by)},
    {"vocab_corpus", "vocabulary corpus", PROV_TEXT, PROV(vocab_corpus)},
    {"vocab_corpus_pairs", "  pairs", PROV_UINT, PROV(vocab_corpus_pairs)},
    {"vocab_corpus_fnv1a64", "  fnv1a64", PROV_HEX64, PROV(vocab_corpus_fnv1a64)},
    {"vocab_min_count", "  min count", PROV_UINT, PROV(vocab_min_count)},
    {"init_seed", "init seed", PROV_UINT, PROV(init_seed)},
};

const ProvKey *model_provenance_keys(int *n)
{
    *n = (int)(sizeof PROVENANCE / sizeof PROVENANCE[0]);
    return PROVENANCE;
}

/* Writes the provenance rows that have a field, inside the caller's transaction. */
static int write_provenance(Store *s, const ModelProvenance *p, char *err, size_t errlen)
{
    int rc = TT_OK;
    for (size_t i = 0; rc == TT_OK && i < sizeof PROVENANCE / sizeof PROVENANCE[0]; i++) {
        const ProvKey *k = &PROVENANCE[i];
        const char *field = (const char *)p + k->offset;
        char buf[32];
        const char *value = buf;
        switch (k->format) {
        case PROV_UINT:
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)*(const uint64_t *)field);
            break;
        case PROV_HEX64:
            snprintf(buf, sizeof buf, "%016llx", (unsigned long long)*(const uint64_t *)field);
            break;
        default: /* text: the created fields are text or whole numbers */
            assert(k->format == PROV_TEXT);
            value = *(const char *const *)field;
            if (!value)
                value = "";
        }
        rc = store_meta_set(s, k->key, value, err, errlen);
    }
    return rc;
}

/* The embeddings of a file without other weights, drawn as model_randomize draws its
 * first two tensors (embedding.src, then embedding.tgt). */
static int write_embeddings(Store *s, const ModelConfig *c, const Vocab *src, const Vocab *tgt,
                            uint64_t seed, char *err, size_t errlen)
{
    const int D = c->d_model;
    const int sizes[2] = {src->size, tgt->size};
    assert(D > 0 && sizes[0] > 0 && sizes[1] > 0); /* a validated config; specials in both */
    float *emb = malloc(sizeof(float) * (size_t)(sizes[0] > sizes[1] ? sizes[0] : sizes[1]) *
                        (size_t)D);
    if (!emb) {
        snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
        return TT_ENOMEM;
    }
    Rng rng;
    rng_seed(&rng, seed);
    static const char *const LANGS[2] = {"src", "tgt"};
    int rc = TT_OK;
    for (int side = 0; side < 2 && rc == TT_OK; side++) {
        /* Xavier/Glorot uniform: U(±√(6 / (V + D))). */
        const float bound = (float)sqrt(6.0 / (double)(sizes[side] + D));
        rng_fill_uniform(&rng, emb, (size_t)sizes[side] * D, -bound, bound);
        rc = store_embedding_write(s, LANGS[side], emb, sizes[side], D, err, errlen);
    }
    free(emb);
    return rc;
}

int model_create(Store **out, const char *path, StoreMode mode, const ModelContents *contents,
                 const ModelProvenance *prov, char *err, size_t errlen)
{
    *out = NULL;
    if (mode != STORE_CREATE && mode != STORE_REPLACE) {
        snprintf(err, errlen, "%s: model_create needs STORE_CREATE or STORE_REPLACE", path);
        return TT_EINVAL;
    }
    Store *s = NULL;
    int rc = store_open(&s, path, mode, err, errlen);
    if (rc == TT_OK)
        rc = store_begin(s, err, errlen);
    if (rc == TT_OK && contents->weights) {
        rc = model_save(contents->weights, s, err, errlen);
    } else if (rc == TT_OK) {
        const ModelContents *c = contents;
        rc = config_write(s, c->config, err, errlen);
        if (rc == TT_OK)
            rc = store_vocab_write(s, "src", c->src, err, errlen);
        if (rc == TT_OK)
            rc = store_vocab_write(s, "tgt", c->tgt, err, errlen);
        if (rc == TT_OK)
            rc = write_embeddings(s, c->config, c->src, c->tgt, prov->init_seed, err, errlen);
    }
    if (rc == TT_OK)
        rc = write_provenance(s, prov, err, errlen);
    if (rc != TT_OK) {
        store_close(s, NULL, 0); /* uncommitted: the new file is removed */
        return rc;
    }
    *out = s;
    return TT_OK;
}

float *model_params_packed(const Model *m)
{
    ParamSpec *specs = NULL;
    int n = 0;
    size_t total = 0;
    if (model_param_specs(&m->config, m->src_vocab.size, m->tgt_vocab.size, &specs, &n,
                          &total) != TT_OK)
        return NULL;
    float *t = malloc(sizeof(float) * (total ? total : 1));
    if (t)
        populate(t, sizeof(float) * total);
    if (t)
        /* Only the matrices, each a Linear layer's (out, in) weight: a vector's floats in
         * the copy are never read (nor the embeddings', packed like the others). */
        for (int i = 0; i < n; i++)
            if (specs[i].cols >= 1)
                kernel_pack_weight(t + specs[i].offset, m->params + specs[i].offset,
                                   specs[i].rows, specs[i].cols);
    free(specs);
    return t;
}
