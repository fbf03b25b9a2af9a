/*
 * config.c — hyper-parameters to and from the meta table.
 *
 * One table (PARAMS) describes every key: its field, type, default, range and info line.
 * Defaults, checks, writing, reading and info's lines are loops over it; what the table
 * cannot say (the limits on products of fields) follows it in config_check.
 */
#include "model/config.h"

#include "base/status.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define FIELD(f) offsetof(ModelConfig, f)
#define TEXT_SIZE(f) sizeof(((ModelConfig *)0)->f)
#define NONE CONFIG_NO_FIELD

/* key, type, field, text size, default, min, max, text, divides, rule, show, label,
 * note, note_off, flag, help, help_end. */
static const ConfigParam PARAMS[] = {
    {"d_model", CONFIG_INT, FIELD(d_model), 0, 64, 1, CONFIG_MAX_D_MODEL, NULL, NONE, "",
     CONFIG_SHOW_VALUE, NULL, NULL, NULL,
     "--d-model", "model width", ""},
    {"n_heads", CONFIG_INT, FIELD(n_heads), 0, 4, 1, CONFIG_MAX_D_MODEL, NULL, FIELD(d_model),
     " (must divide d_model)", CONFIG_SHOW_HEADS, NULL, NULL, NULL,
     "--heads", "attention heads, dividing d-model", ""},
    {"n_encoder_layers", CONFIG_INT, FIELD(n_encoder_layers), 0, 2, 1, CONFIG_MAX_LAYERS, NULL,
     NONE, "", CONFIG_SHOW_VALUE, NULL, NULL, NULL,
     "--enc-layers", "encoder layers", ""},
    {"n_decoder_layers", CONFIG_INT, FIELD(n_decoder_layers), 0, 2, 1, CONFIG_MAX_LAYERS, NULL,
     NONE, "", CONFIG_SHOW_VALUE, NULL, NULL, NULL,
     "--dec-layers", "decoder layers", ""},
    {"d_ff", CONFIG_INT, FIELD(d_ff), 0, 256, 1, CONFIG_MAX_D_FF, NULL, NONE, "",
     CONFIG_SHOW_VALUE, NULL, NULL, NULL,
     "--d-ff", "feed-forward width",
     "; d-ff × d-model at most\n67108864 (one 256 MiB tensor)"},
    {"max_len", CONFIG_INT, FIELD(max_len), 0, 32, 2, CONFIG_MAX_LEN, NULL, NONE, "",
     CONFIG_SHOW_VALUE, NULL, "tokens, </s> included", NULL,
     "--max-len", "longest sequence in tokens, </s> included", ""},
    {"qkv_bias", CONFIG_INT, FIELD(qkv_bias), 0, 0, 0, 1, NULL, NONE, "", CONFIG_SHOW_FLAG,
     NULL, "query, key and value have biases", "no query, key, value biases",
     "--qkv-bias", "give the query, key and value projections biases", ""},
    {"activation", CONFIG_FIXED, NONE, 0, 0, 0, 0, "relu", NONE, "", CONFIG_SHOW_VALUE, NULL,
     NULL, NULL,
     NULL, NULL, NULL},
    {"norm", CONFIG_FIXED, NONE, 0, 0, 0, 0, "pre", NONE, "", CONFIG_SHOW_VALUE, NULL,
     "(LayerNorm before each sublayer)", NULL,
     NULL, NULL, NULL},
    {"layer_norm_eps", CONFIG_REAL, FIELD(layer_norm_eps), 0, 1e-5, 0, 1, NULL, NONE, "",
     CONFIG_SHOW_VALUE, NULL, NULL, NULL,
     NULL, NULL, NULL},
    {"src_lang", CONFIG_TEXT, FIELD(src_lang), TEXT_SIZE(src_lang), 0, 0, 0, "en", NONE, "",
     CONFIG_SHOW_PAIR, "languages", NULL, NULL,
     NULL, NULL, NULL},
    {"tgt_lang", CONFIG_TEXT, FIELD(tgt_lang), TEXT_SIZE(tgt_lang), 0, 0, 0, "de", NONE, "",
     CONFIG_SHOW_NONE, NULL, NULL, NULL,
     NULL, NULL, NULL},
};
enum { N_PARAMS = (int)(sizeof PARAMS / sizeof PARAMS[0]) };

const ConfigParam *config_params(int *n)
{
    *n = N_PARAMS;
    return PARAMS;
}

static int *int_field(ModelConfig *c, size_t offset)
{
    return (int *)((char *)c + offset);
}

static int int_value(const ModelConfig *c, size_t offset)
{
    return *(const int *)((const char *)c + offset);
}

/* Reals are copied rather than cast to, so no double is read through a char pointer. */
static double real_value(const ModelConfig *c, size_t offset)
{
    double v;
    memcpy(&v, (const char *)c + offset, sizeof v);
    return v;
}

static void real_set(ModelConfig *c, size_t offset, double v)
{
    memcpy((char *)c + offset, &v, sizeof v);
}

static const char *text_value(const ModelConfig *c, size_t offset)
{
    return (const char *)c + offset;
}

int config_set_direction(ModelConfig *c, const char *direction)
{
    if (strcmp(direction, "en-de") != 0 && strcmp(direction, "de-en") != 0)
        return TT_EINVAL;
    snprintf(c->src_lang, sizeof c->src_lang, "%.2s", direction);
    snprintf(c->tgt_lang, sizeof c->tgt_lang, "%.2s", direction + 3);
    return TT_OK;
}

int config_is_reverse(const ModelConfig *c)
{
    return strcmp(c->src_lang, "de") == 0 && strcmp(c->tgt_lang, "en") == 0;
}

TokLang config_lang_rules(const char *lang)
{
    return strcmp(lang, "en") == 0 ? TOK_SRC : TOK_TGT;
}

void config_defaults(ModelConfig *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < N_PARAMS; i++) {
        const ConfigParam *p = &PARAMS[i];
        if (p->type == CONFIG_INT)
            *int_field(c, p->offset) = (int)p->def;
        else if (p->type == CONFIG_REAL)
            real_set(c, p->offset, p->def);
        else if (p->type == CONFIG_TEXT)
            snprintf((char *)c + p->offset, p->size, "%s", p->text);
    }
}

/* Whether row p's field of c is in its range and keeps its rule. */
static int in_range(const ModelConfig *c, const ConfigParam *p)
{
    if (p->type == CONFIG_INT) {
        const int v = int_value(c, p->offset);
        if (v < p->min || v > p->max)
            return 0;
        /* v >= 1 divides a positive field only when v <= that field. */
        return p->divides == NONE ||
               (int_value(c, p->divides) > 0 && int_value(c, p->divides) % v == 0);
    }
    if (p->type == CONFIG_REAL) {
        const double v = real_value(c, p->offset);
        return v > p->min && v < p->max;
    }
    return 1;
}

long long config_attention_floats(const ModelConfig *c)
{
    return (long long)c->n_heads * c->max_len * c->max_len *
           (c->n_encoder_layers + 2LL * c->n_decoder_layers + 1);
}

int config_check(const ModelConfig *c, char *err, size_t errlen)
{
    for (int i = 0; i < N_PARAMS; i++)
        if (!in_range(c, &PARAMS[i])) {
            snprintf(err, errlen, "%s%s is out of range", PARAMS[i].key, PARAMS[i].rule);
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
    int rc = TT_OK;
    for (int i = 0; rc == TT_OK && i < N_PARAMS; i++) {
        const ConfigParam *p = &PARAMS[i];
        char buf[32];
        const char *value = buf;
        if (p->type == CONFIG_INT)
            snprintf(buf, sizeof buf, "%d", int_value(c, p->offset));
        else if (p->type == CONFIG_REAL) /* %.17g round-trips a double */
            snprintf(buf, sizeof buf, "%.17g", real_value(c, p->offset));
        else if (p->type == CONFIG_TEXT)
            value = text_value(c, p->offset);
        else
            value = p->text;
        rc = store_meta_set(s, p->key, value, err, errlen);
    }
    return rc;
}

/* Reads row p into c: a whole number in range, a finite real or text that fits. */
static int read_field(Store *s, const ConfigParam *p, ModelConfig *c, char *err, size_t errlen)
{
    if (p->type == CONFIG_INT) {
        long v;
        int rc = store_meta_get_long(s, p->key, (long)p->min, (long)p->max, &v, err, errlen);
        if (rc == TT_OK)
            *int_field(c, p->offset) = (int)v;
        return rc;
    }
    if (p->type == CONFIG_REAL) {
        double v;
        int rc = store_meta_get_double(s, p->key, &v, err, errlen);
        if (rc == TT_OK)
            real_set(c, p->offset, v);
        return rc;
    }
    return store_meta_get(s, p->key, (char *)c + p->offset, p->size, err, errlen);
}

/* Reads fixed row p and refuses any value but its one. */
static int read_fixed(Store *s, const ConfigParam *p, char *err, size_t errlen)
{
    char buf[32];
    int rc = store_meta_get(s, p->key, buf, sizeof buf, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (strcmp(buf, p->text) != 0) {
        snprintf(err, errlen, "%s: meta %s is '%s'; this toytrans supports only '%s'",
                 store_path(s), p->key, buf, p->text);
        return TT_EMODEL;
    }
    return TT_OK;
}

int config_read(Store *s, ModelConfig *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int rc = TT_OK;
    for (int i = 0; rc == TT_OK && i < N_PARAMS; i++)
        if (PARAMS[i].type != CONFIG_FIXED)
            rc = read_field(s, &PARAMS[i], c, err, errlen);
    for (int i = 0; rc == TT_OK && i < N_PARAMS; i++)
        if (PARAMS[i].type == CONFIG_FIXED)
            rc = read_fixed(s, &PARAMS[i], err, errlen);
    if (rc != TT_OK)
        return rc;
    char why[128];
    if (config_check(c, why, sizeof why) != TT_OK) {
        snprintf(err, errlen, "%s: meta %s", store_path(s), why);
        return TT_EMODEL;
    }
    return TT_OK;
}

/* The value of row p as text. */
static void value_text(const ModelConfig *c, const ConfigParam *p, char *buf, size_t size)
{
    if (p->type == CONFIG_INT)
        snprintf(buf, size, "%d", int_value(c, p->offset));
    else if (p->type == CONFIG_REAL)
        snprintf(buf, size, "%g", real_value(c, p->offset));
    else
        snprintf(buf, size, "%s", p->type == CONFIG_TEXT ? text_value(c, p->offset) : p->text);
}

int config_info_line(const ModelConfig *c, int i, const char **label, char *buf, size_t size)
{
    const ConfigParam *p = &PARAMS[i];
    if (p->show == CONFIG_SHOW_NONE)
        return 0;
    *label = p->label ? p->label : p->key;
    char v[64], w[64];
    value_text(c, p, v, sizeof v);
    switch (p->show) {
    case CONFIG_SHOW_HEADS: {
        const int heads = int_value(c, p->offset), width = int_value(c, p->divides);
        snprintf(buf, size, "%s (%d dimensions per head)", v, heads > 0 ? width / heads : 0);
        break;
    }
    case CONFIG_SHOW_FLAG:
        snprintf(buf, size, "%s (%s)", v, int_value(c, p->offset) ? p->note : p->note_off);
        break;
    case CONFIG_SHOW_PAIR:
        assert(i + 1 < N_PARAMS);
        value_text(c, &PARAMS[i + 1], w, sizeof w);
        snprintf(buf, size, "%s → %s", v, w);
        break;
    default:
        if (p->note)
            snprintf(buf, size, "%s %s", v, p->note);
        else
            snprintf(buf, size, "%s", v);
    }
    return 1;
}
