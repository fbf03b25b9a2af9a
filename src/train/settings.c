/*
 * settings.c — the settings that define a training run: train_settings.h's table as
 * the defaults, the parsing of a value (the command line's and a file's alike), the meta
 * a run writes, what a resume keeps, and the provenance rows info shows.
 */
#include "train/settings.h"

#include "base/status.h"
#include "model/store.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * The settings that define a run (train.h), each a TrainOptions field and a meta key
 */

typedef enum { SET_INT, SET_FLOAT, SET_U64 } SettingType;
typedef enum { RULE_KEEP, RULE_MAY_CHANGE, RULE_REQUIRED } ResumeRule; /* train_settings.h */

typedef struct {
    const char *key;    /* meta key */
    const char *option; /* the command-line option */
    const char *label;  /* info's label */
    const char *range;  /* a float's range in words if "from LO to HI" would mislead */
    size_t offset;      /* of the field in TrainOptions */
    double def;         /* the default */
    double lo, hi;      /* the closed range of a value, as the field's type (SET_U64: any) */
    double unrecorded;  /* what a file from before the key was recorded ran with; NAN:
                           the option's value, given or default */
    SettingType type;   /* the field's: int, float or uint64_t */
    ResumeRule rule;    /* what a resume does with it */
} RunSetting;

#define RUN_SETTING_ROW(NAME, field, TYPE, def_, lo_, hi_, range_, option_, key_, label_,    \
                        rule_, unrecorded_)                                                  \
    [TRAIN_##NAME] = {.key = (key_), .option = (option_), .label = (label_),                 \
                      .range = (range_), .offset = offsetof(TrainOptions, field),            \
                      .def = (def_), .lo = (lo_), .hi = (hi_), .unrecorded = (unrecorded_),  \
                      .type = SET_##TYPE, .rule = RULE_##rule_},

static const RunSetting RUN_SETTINGS[TRAIN_N_SETTINGS] = {TRAIN_SETTINGS(RUN_SETTING_ROW)};

/* The training run's record in meta, as info shows it after model.c's rows. Each
 * setting as its type reads: integers as written, floats as numbers. */
#define PROV_FORMAT_INT PROV_TEXT
#define PROV_FORMAT_U64 PROV_TEXT
#define PROV_FORMAT_FLOAT PROV_NUMBER
#define TRAINING MODEL_PROV_NOT_CREATED
#define PROV_SETTING_ROW(NAME, field, TYPE, def, lo, hi, range, option, key, label, rule,      \
                         unrecorded)                                                           \
    {(key), (label), PROV_FORMAT_##TYPE, TRAINING},

static const ProvKey PROVENANCE[] = {
    {"train_engine", "trained by", PROV_TEXT, TRAINING}, /* written by other trainers */
    {"train_world_size", "world size", PROV_TEXT, TRAINING},
    {"train_command", "training command", PROV_TEXT, TRAINING},
    {"train_corpus", "training corpus", PROV_TEXT, TRAINING},
    {"train_corpus_fnv1a64", "  fnv1a64", PROV_HEX64, TRAINING},
    {"train_valid", "validation corpus", PROV_TEXT, TRAINING},
    {"train_lexicon", "lexicon", PROV_TEXT, TRAINING},
    {MODEL_LEXICON_KEY, "  fnv1a64", PROV_HEX64, TRAINING},
    {"train_phrasebook", "phrasebook", PROV_TEXT, TRAINING},
    {MODEL_PHRASEBOOK_KEY, "  fnv1a64", PROV_HEX64, TRAINING},
    TRAIN_SETTINGS(PROV_SETTING_ROW) /* train_epochs .. train_seed */
    {"train_threads", "threads", PROV_TEXT, TRAINING},
    {"train_resumes", "resumed", PROV_LINES, TRAINING},
    {"train_seconds", "training time", PROV_DURATION, TRAINING},
    {"train_step", "steps done", PROV_TEXT, TRAINING},
    {"train_epoch", "epochs done", PROV_TEXT, TRAINING},
};

const ProvKey *train_provenance_keys(int *n)
{
    *n = (int)(sizeof PROVENANCE / sizeof PROVENANCE[0]);
    return PROVENANCE;
}

const char *train_setting_option(TrainSetting s)
{
    assert(s >= 0 && s < TRAIN_N_SETTINGS);
    return RUN_SETTINGS[s].option;
}

const char *train_setting_key(TrainSetting s)
{
    assert(s >= 0 && s < TRAIN_N_SETTINGS);
    return RUN_SETTINGS[s].key;
}

static void *setting_field(TrainOptions *o, TrainSetting s)
{
    return (char *)o + RUN_SETTINGS[s].offset;
}

static const void *setting_cfield(const TrainOptions *o, TrainSetting s)
{
    return (const char *)o + RUN_SETTINGS[s].offset;
}

int train_setting_parse(TrainOptions *o, TrainSetting s, const char *text, char *err,
                        size_t errlen)
{
    assert(o && s >= 0 && s < TRAIN_N_SETTINGS && text);
    const RunSetting *d = &RUN_SETTINGS[s];
    char *end;
    errno = 0;
    /* strto* skip leading blanks, and strtoull wraps "-1": a value is written plainly. */
    const int plain = text[0] != '\0' && !isspace((unsigned char)text[0]);
    switch (d->type) {
    case SET_INT: {
        const long v = strtol(text, &end, 10);
        if (!plain || *end != '\0') {
            snprintf(err, errlen, "'%s' is not a whole number", text);
            return TT_EINVAL;
        }
        if (errno == ERANGE || v < (long)d->lo || v > (long)d->hi) {
            snprintf(err, errlen, "%s is out of range (%ld to %ld)", text, (long)d->lo,
                     (long)d->hi);
            return TT_EINVAL;
        }
        *(int *)setting_field(o, s) = (int)v;
        return TT_OK;
    }
    case SET_FLOAT: {
        /* Checked as the float that is used: 0.9999999999 is below 1 but rounds to it. */
        const float v = (float)strtod(text, &end);
        if (!plain || *end != '\0' || !(v >= (float)d->lo && v <= (float)d->hi)) {
            char range[64];
            if (d->range)
                snprintf(range, sizeof range, "%s", d->range);
            else
                snprintf(range, sizeof range, "from %g to %g", d->lo, d->hi);
            snprintf(err, errlen, "'%s' is not a number %s", text, range);
            return TT_EINVAL;
        }
        *(float *)setting_field(o, s) = v;
        return TT_OK;
    }
    case SET_U64: {
        unsigned long long v = 0;
        int digits = isdigit((unsigned char)text[0]);
        if (digits) {
            v = strtoull(text, &end, 10);
            digits = *end == '\0';
        }
        if (!digits) {
            snprintf(err, errlen, "'%s' is not a non-negative whole number", text);
            return TT_EINVAL;
        }
        if (errno == ERANGE || v > UINT64_MAX) {
            snprintf(err, errlen, "%s is out of range (0 to %llu)", text,
                     (unsigned long long)UINT64_MAX);
            return TT_EINVAL;
        }
        *(uint64_t *)setting_field(o, s) = (uint64_t)v;
        return TT_OK;
    }
    }
    return TT_EINVAL;
}

void train_options_defaults(TrainOptions *o)
{
    memset(o, 0, sizeof *o);
    config_defaults(&o->config);
    for (int i = 0; i < TRAIN_N_SETTINGS; i++) {
        const RunSetting *d = &RUN_SETTINGS[i];
        void *f = setting_field(o, (TrainSetting)i);
        switch (d->type) {
        case SET_INT: *(int *)f = (int)d->def; break;
        case SET_FLOAT: *(float *)f = (float)d->def; break;
        case SET_U64: *(uint64_t *)f = (uint64_t)d->def; break;
        }
    }
    o->min_count = 1;
    o->threads = 0;
    o->checkpoint_every = 500;
    o->validate_exact = 1;
}

/* o's value of setting s as text: exact for meta (a float to 9 digits reads back the
 * same float), or short for a person (%g). */
static void setting_text(const TrainOptions *o, TrainSetting s, int exact, char *buf,
                         size_t size)
{
    const void *f = setting_cfield(o, s);
    switch (RUN_SETTINGS[s].type) {
    case SET_INT: snprintf(buf, size, "%d", *(const int *)f); break;
    case SET_FLOAT: snprintf(buf, size, exact ? "%.9g" : "%g", (double)*(const float *)f); break;
    case SET_U64: snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)f); break;
    }
}

static int setting_equal(const TrainOptions *a, const TrainOptions *b, TrainSetting s)
{
    const void *x = setting_cfield(a, s), *y = setting_cfield(b, s);
    switch (RUN_SETTINGS[s].type) {
    case SET_INT: return *(const int *)x == *(const int *)y;
    case SET_FLOAT: return *(const float *)x == *(const float *)y;
    case SET_U64: return *(const uint64_t *)x == *(const uint64_t *)y;
    }
    return 0;
}

/* Whether every setting of o lies in its range (a caller other than the CLI may pass
 * anything). */
int train_settings_valid(const TrainOptions *o)
{
    for (int s = 0; s < TRAIN_N_SETTINGS; s++) {
        char text[64], why[128];
        TrainOptions copy = *o;
        setting_text(o, (TrainSetting)s, 1, text, sizeof text);
        if (train_setting_parse(&copy, (TrainSetting)s, text, why, sizeof why) != TT_OK)
            return 0;
    }
    return 1;
}

/* Writes every setting of o into meta, inside the caller's transaction. */
int train_settings_write(Store *store, const TrainOptions *o, char *err, size_t errlen)
{
    int rc = TT_OK;
    for (int s = 0; rc == TT_OK && s < TRAIN_N_SETTINGS; s++) {
        char text[64];
        setting_text(o, (TrainSetting)s, 1, text, sizeof text);
        rc = store_meta_set(store, RUN_SETTINGS[s].key, text, err, errlen);
    }
    return rc;
}

/* A resumed run's settings (train.h): each recorded one replaces o's, and a given
 * one must equal it, the epochs aside. The batch size above all: a position counted in
 * batches of one size means nothing in batches of another, and would lie beyond the
 * epoch's end; AdamW's moments were computed with the recorded betas and epsilon. */
int train_settings_resume(TrainOptions *o, Store *store, char *err, size_t errlen)
{
    int rc = TT_OK;
    for (int i = 0; rc == TT_OK && i < TRAIN_N_SETTINGS; i++) {
        const TrainSetting s = (TrainSetting)i;
        const RunSetting *d = &RUN_SETTINGS[s];
        char text[64], why[160];
        int have = 0;
        rc = store_meta_exists(store, d->key, &have, err, errlen);
        if (rc != TT_OK)
            break;
        if (have) {
            rc = store_meta_get(store, d->key, text, sizeof text, err, errlen);
            if (rc != TT_OK)
                break;
        } else if (d->rule == RULE_REQUIRED) {
            snprintf(err, errlen, "%s: meta '%s' is missing: not a training checkpoint",
                     o->out_path, d->key);
            rc = TT_EMODEL;
            break;
        } else if (!isnan(d->unrecorded)) {
            snprintf(text, sizeof text, "%.9g", d->unrecorded);
        } else {
            continue; /* the option's value, given or default, recorded at the checkpoint */
        }
        TrainOptions file = *o;
        if (train_setting_parse(&file, s, text, why, sizeof why) != TT_OK) {
            snprintf(err, errlen, "%s: meta '%s': %s", o->out_path, d->key, why);
            rc = TT_EMODEL;
            break;
        }
        if ((o->given & TRAIN_GIVEN(s)) && !setting_equal(o, &file, s)) {
            if (d->rule == RULE_MAY_CHANGE)
                continue;
            char given[64], recorded[64];
            setting_text(o, s, 0, given, sizeof given);
            setting_text(&file, s, 0, recorded, sizeof recorded);
            snprintf(err, errlen, "%s: %s %s differs from the %s the run was started with "
                                  "(meta %s = %s); a resumed run keeps it: leave %s out, or "
                                  "train a new model",
                     o->out_path, d->option, given, RUN_SETTINGS[s].label, d->key, recorded,
                     d->option);
            rc = TT_EINVAL;
            break;
        }
        *o = file; /* a copy of o but for setting s, now the file's */
    }
    return rc;
}
