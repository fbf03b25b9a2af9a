/*
 * selfattn.c — the teaching variants of self-attention and their PyTorch-identical
 * initialisation.
 *
 * Each variant only decides how X becomes queries, keys and values and what scale the
 * scores get; the attention itself is attention_head_forward.
 */
#include "show/selfattn.h"

#include "base/kernel.h"
#include "base/status.h"
#include "nn/attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int selfattn_init(SelfAttention *sa, SelfAttnVariant variant, int d_in, int d_out,
                  int qkv_bias)
{
    if (!sa)
        return TT_EINVAL;
    memset(sa, 0, sizeof *sa);
    if (d_in < 1 || d_out < 1 || (qkv_bias != 0 && qkv_bias != 1))
        return TT_EINVAL;
    if (variant != SELFATTN_SIMPLE && variant != SELFATTN_V1 && variant != SELFATTN_V2)
        return TT_EINVAL;
    if (variant == SELFATTN_SIMPLE && d_out != d_in)
        return TT_EINVAL;
    if (variant != SELFATTN_V2 && qkv_bias)
        return TT_EINVAL;
    sa->variant = variant;
    sa->d_in = d_in;
    sa->d_out = d_out;
    sa->qkv_bias = qkv_bias;
    if (variant == SELFATTN_SIMPLE)
        return TT_OK;

    const size_t wsize = (size_t)d_in * d_out, bsize = qkv_bias ? (size_t)d_out : 0;
    sa->block = calloc(3 * (wsize + bsize), sizeof(float));
    if (!sa->block)
        return TT_ENOMEM;
    /* Layout: W_query, W_key, W_value, then the biases if any. */
    sa->w_query = sa->block;
    sa->w_key = sa->w_query + wsize;
    sa->w_value = sa->w_key + wsize;
    if (qkv_bias) {
        sa->b_query = sa->w_value + wsize;
        sa->b_key = sa->b_query + bsize;
        sa->b_value = sa->b_key + bsize;
    }
    return TT_OK;
}

void selfattn_free(SelfAttention *sa)
{
    if (!sa)
        return;
    free(sa->block);
    memset(sa, 0, sizeof *sa);
}

/* The bound PyTorch's nn.Linear uses for its weight: kaiming_uniform_(a=√5) computes
 * gain = √(2/(1+a²)), std = gain/√fan_in, bound = √3·std in double precision, and
 * uniform_ then rounds the bound to float. Mirroring the double arithmetic keeps the
 * last bit identical. */
static float torch_linear_weight_bound(int fan_in)
{
    const double a = sqrt(5.0);
    const double gain = sqrt(2.0 / (1.0 + a * a));
    const double std = gain / sqrt((double)fan_in);
    return (float)(sqrt(3.0) * std);
}

void selfattn_randomize(SelfAttention *sa, Rng *rng)
{
    const size_t wsize = (size_t)sa->d_in * sa->d_out;
    float *weights[3] = {sa->w_query, sa->w_key, sa->w_value};
    float *biases[3] = {sa->b_query, sa->b_key, sa->b_value};
    switch (sa->variant) {
    case SELFATTN_SIMPLE:
        break;
    case SELFATTN_V1:
        for (int m = 0; m < 3; m++)
            rng_fill_uniform(rng, weights[m], wsize, 0.0f, 1.0f);
        break;
    case SELFATTN_V2: {
        const float wb = torch_linear_weight_bound(sa->d_in);
        const float bb = (float)(1.0 / sqrt((double)sa->d_in));
        for (int m = 0; m < 3; m++) {
            rng_fill_uniform(rng, weights[m], wsize, -wb, wb);
            if (biases[m])
                rng_fill_uniform(rng, biases[m], (size_t)sa->d_out, -bb, bb);
        }
        break;
    }
    }
}

int selfattn_copy_v1_to_v2(SelfAttention *v2, const SelfAttention *v1)
{
    if (!v2 || !v1 || v1->variant != SELFATTN_V1 || v2->variant != SELFATTN_V2 ||
        v2->qkv_bias || v1->d_in != v2->d_in || v1->d_out != v2->d_out)
        return TT_EINVAL;
    const float *src[3] = {v1->w_query, v1->w_key, v1->w_value};
    float *dst[3] = {v2->w_query, v2->w_key, v2->w_value};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < v1->d_in; i++)
            for (int o = 0; o < v1->d_out; o++)
                dst[m][(size_t)o * v1->d_in + i] = src[m][(size_t)i * v1->d_out + o];
    return TT_OK;
}

/* out (T, d_out) = the projection of x (T, d_in) through matrix w and bias b, as the
 * variant defines it. SIMPLE copies x. */
static void selfattn_project(float *out, const SelfAttention *sa, const float *w,
                             const float *b, const float *x, int T)
{
    switch (sa->variant) {
    case SELFATTN_SIMPLE:
        memcpy(out, x, sizeof(float) * (size_t)T * sa->d_in);
        break;
    case SELFATTN_V1:
        kernel_matmul(out, x, w, T, sa->d_in, sa->d_out);
        break;
    case SELFATTN_V2:
        kernel_matmul_nt(out, x, w, b, T, sa->d_in, sa->d_out);
        break;
    }
}

static float selfattn_scale(const SelfAttention *sa)
{
    /* The simplified walk-through normalises the raw dot products; the trainable
     * variants divide by √d_k to keep softmax out of its flat, saturated regions. */
    return sa->variant == SELFATTN_SIMPLE ? 1.0f : 1.0f / sqrtf((float)sa->d_out);
}

static int selfattn_valid(const SelfAttention *sa)
{
    return sa && sa->d_in >= 1 && sa->d_out >= 1 &&
           (sa->variant == SELFATTN_SIMPLE || (sa->w_query && sa->w_key && sa->w_value));
}

int selfattn_forward(SelfAttnStages *st, const SelfAttention *sa, const float *x, int T)
{
    if (!st)
        return TT_EINVAL;
    memset(st, 0, sizeof *st);
    if (!selfattn_valid(sa) || !x || T < 1)
        return TT_EINVAL;
    const size_t td = (size_t)T * sa->d_out, tt = (size_t)T * T;
    st->block = malloc(sizeof(float) * (4 * td + 2 * tt));
    if (!st->block)
        return TT_ENOMEM;
    st->T = T;
    st->d_out = sa->d_out;
    st->queries = st->block;
    st->keys = st->queries + td;
    st->values = st->keys + td;
    st->context = st->values + td;
    st->scores = st->context + td;
    st->weights = st->scores + tt;
    st->scale = selfattn_scale(sa);

    selfattn_project(st->queries, sa, sa->w_query, sa->b_query, x, T);
    selfattn_project(st->keys, sa, sa->w_key, sa->b_key, x, T);
    selfattn_project(st->values, sa, sa->w_value, sa->b_value, x, T);

    const int d = sa->d_out;
    AttnShape shape = {.Tq = T, .Tk = T, .dk = d, .dv = d, .scale = st->scale};
    AttnView q = {st->queries, d}, k = {st->keys, d}, v = {st->values, d};
    int rc = attention_head_forward(st->context, d, st->weights, st->scores, q, k, v, &shape);
    if (rc != TT_OK)
        selfattn_stages_free(st);
    return rc;
}

void selfattn_stages_free(SelfAttnStages *st)
{
    if (!st)
        return;
    free(st->block);
    memset(st, 0, sizeof *st);
}

int selfattn_forward_token(float *context, float *weights, const SelfAttention *sa,
                           const float *x, int T, int i)
{
    if (!context || !selfattn_valid(sa) || !x || T < 1 || i < 0 || i >= T)
        return TT_EINVAL;
    const int d = sa->d_out;
    /* query (d), keys (T, d), values (T, d), and the weights if the caller wants none. */
    float *buf = malloc(sizeof(float) * ((size_t)d * (1 + 2 * (size_t)T) + (size_t)T));
    if (!buf)
        return TT_ENOMEM;
    float *query = buf, *keys = query + d, *values = keys + (size_t)T * d;
    float *w = weights ? weights : values + (size_t)T * d;

    selfattn_project(query, sa, sa->w_query, sa->b_query, x + (size_t)i * sa->d_in, 1);
    selfattn_project(keys, sa, sa->w_key, sa->b_key, x, T);
    selfattn_project(values, sa, sa->w_value, sa->b_value, x, T);

    AttnShape shape = {.Tq = 1, .Tk = T, .dk = d, .dv = d, .scale = selfattn_scale(sa)};
    AttnView q = {query, d}, k = {keys, d}, v = {values, d};
    int rc = attention_head_forward(context, d, w, NULL, q, k, v, &shape);
    free(buf);
    return rc;
}

const char *selfattn_variant_name(SelfAttnVariant variant)
{
    switch (variant) {
    case SELFATTN_SIMPLE:
        return "simple";
    case SELFATTN_V1:
        return "v1";
    case SELFATTN_V2:
        return "v2";
    }
    return "unknown";
}

int selfattn_variant_parse(const char *name)
{
    if (!name)
        return -1;
    for (int v = SELFATTN_SIMPLE; v <= SELFATTN_V2; v++)
        if (strcmp(name, selfattn_variant_name((SelfAttnVariant)v)) == 0)
            return v;
    return -1;
}
