/*
 * config.c — hyper-parameters to and from the meta table.
 */
#include "config.h"

#include "status.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

void config_defaults(ModelConfig *c)
{
    memset(c, 0, sizeof *c);
    c->d_model = 64;
    c->n_heads = 4;
    c->n_encoder_layers = 2;
    c->n_decoder_layers = 2;
    c->d_ff = 256;
    c->max_len = 32;
    c->qkv_bias = 0;
    c->layer_norm_eps = 1e-5;
    snprintf(c->src_lang, sizeof c->src_lang, "en");
    snprintf(c->tgt_lang, sizeof c->tgt_lang, "de");
}

long long config_attention_floats(const ModelConfig *c)
{
    return (long long)c->n_heads * c->max_len * c->max_len *
           (c->n_encoder_layers + 2LL * c->n_decoder_layers + 1);
}

int config_check(const ModelConfig *c, char *err, size_t errlen)
{
    const char *bad = NULL;
    if (c->d_model < 1 || c->d_model > CONFIG_MAX_D_MODEL)
        bad = "d_model";
    else if (c->n_heads < 1 || c->n_heads > c->d_model || c->d_model % c->n_heads != 0)
        bad = "n_heads (must divide d_model)";
    else if (c->n_encoder_layers < 1 || c->n_encoder_layers > CONFIG_MAX_LAYERS)
        bad = "n_encoder_layers";
    else if (c->n_decoder_layers < 1 || c->n_decoder_layers > CONFIG_MAX_LAYERS)
        bad = "n_decoder_layers";
    else if (c->d_ff < 1 || c->d_ff > CONFIG_MAX_D_FF)
        bad = "d_ff";
    else if (c->max_len < 2 || c->max_len > CONFIG_MAX_LEN)
        bad = "max_len";
    else if (c->qkv_bias != 0 && c->qkv_bias != 1)
        bad = "qkv_bias";
    else if (!(c->layer_norm_eps > 0.0 && c->layer_norm_eps < 1.0))
        bad = "layer_norm_eps";
    if (bad) {
        snprintf(err, errlen, "%s is out of range", bad);
        return TT_EINVAL;
    }
    /* The feed-forward weights are (d_ff, d_model) tensors, each one blob of the file:
     * refused here, before anything is allocated from these numbers. */
    if ((long long)c->d_ff * c->d_model > CONFIG_MAX_TENSOR_FLOATS) {
        snprintf(err, errlen, "d_ff × d_model = %d × %d = %lld floats, more than the %d "
                              "(256 MiB) one tensor of a model file may hold",
                 c->d_ff, c->d_model, (long long)c->d_ff * c->d_model,
                 CONFIG_MAX_TENSOR_FLOATS);
        return TT_EINVAL;
    }
    if (config_attention_floats(c) > CONFIG_MAX_ATTENTION_FLOATS) {
        snprintf(err, errlen, "the attention weights of one sentence, n_heads × max_len² × "
                              "(n_encoder_layers + 2 × n_decoder_layers + 1) = %d × %d² × %d "
                              "= %lld floats, are more than the %lld (1 GiB) allowed",
                 c->n_heads, c->max_len, c->n_encoder_layers + 2 * c->n_decoder_layers + 1,
                 config_attention_floats(c), CONFIG_MAX_ATTENTION_FLOATS);
        return TT_EINVAL;
    }
    return TT_OK;
}

int config_write(Store *s, const ModelConfig *c, char *err, size_t errlen)
{
    char buf[8][32];
    snprintf(buf[0], sizeof buf[0], "%d", c->d_model);
    snprintf(buf[1], sizeof buf[1], "%d", c->n_heads);
    snprintf(buf[2], sizeof buf[2], "%d", c->n_encoder_layers);
    snprintf(buf[3], sizeof buf[3], "%d", c->n_decoder_layers);
    snprintf(buf[4], sizeof buf[4], "%d", c->d_ff);
    snprintf(buf[5], sizeof buf[5], "%d", c->max_len);
    snprintf(buf[6], sizeof buf[6], "%d", c->qkv_bias);
    snprintf(buf[7], sizeof buf[7], "%.17g", c->layer_norm_eps); /* round-trips a double */
    const char *kv[][2] = {
        {"d_model", buf[0]},          {"n_heads", buf[1]},  {"n_encoder_layers", buf[2]},
        {"n_decoder_layers", buf[3]}, {"d_ff", buf[4]},     {"max_len", buf[5]},
        {"qkv_bias", buf[6]},         {"layer_norm_eps", buf[7]},
        {"activation", "relu"},       {"norm", "pre"},
        {"src_lang", c->src_lang},    {"tgt_lang", c->tgt_lang},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        int rc = store_meta_set(s, kv[i][0], kv[i][1], err, errlen);
        if (rc != TT_OK)
            return rc;
    }
    return TT_OK;
}

int config_read(Store *s, ModelConfig *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    static const struct {
        const char *key;
        size_t offset;
        long min, max;
    } INTS[] = {
        {"d_model", offsetof(ModelConfig, d_model), 1, CONFIG_MAX_D_MODEL},
        {"n_heads", offsetof(ModelConfig, n_heads), 1, CONFIG_MAX_D_MODEL},
        {"n_encoder_layers", offsetof(ModelConfig, n_encoder_layers), 1, CONFIG_MAX_LAYERS},
        {"n_decoder_layers", offsetof(ModelConfig, n_decoder_layers), 1, CONFIG_MAX_LAYERS},
        {"d_ff", offsetof(ModelConfig, d_ff), 1, CONFIG_MAX_D_FF},
        {"max_len", offsetof(ModelConfig, max_len), 2, CONFIG_MAX_LEN},
        {"qkv_bias", offsetof(ModelConfig, qkv_bias), 0, 1},
    };
    for (size_t i = 0; i < sizeof INTS / sizeof INTS[0]; i++) {
        long v;
        int rc = store_meta_get_long(s, INTS[i].key, INTS[i].min, INTS[i].max, &v, err, errlen);
        if (rc != TT_OK)
            return rc;
        *(int *)((char *)c + INTS[i].offset) = (int)v;
    }
    int rc = store_meta_get_double(s, "layer_norm_eps", &c->layer_norm_eps, err, errlen);
    if (rc == TT_OK)
        rc = store_meta_get(s, "src_lang", c->src_lang, sizeof c->src_lang, err, errlen);
    if (rc == TT_OK)
        rc = store_meta_get(s, "tgt_lang", c->tgt_lang, sizeof c->tgt_lang, err, errlen);
    if (rc != TT_OK)
        return rc;
    static const char *const FIXED[][2] = {{"activation", "relu"}, {"norm", "pre"}};
    for (size_t i = 0; i < 2; i++) {
        char buf[32];
        if ((rc = store_meta_get(s, FIXED[i][0], buf, sizeof buf, err, errlen)) != TT_OK)
            return rc;
        if (strcmp(buf, FIXED[i][1]) != 0) {
            snprintf(err, errlen, "%s: meta %s is '%s'; this toytrans supports only '%s'",
                     store_path(s), FIXED[i][0], buf, FIXED[i][1]);
            return TT_EMODEL;
        }
    }
    char why[128];
    if (config_check(c, why, sizeof why) != TT_OK) {
        snprintf(err, errlen, "%s: meta %s", store_path(s), why);
        return TT_EMODEL;
    }
    return TT_OK;
}
