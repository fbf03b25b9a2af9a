/*
 * config.h — a model's hyper-parameters, as the meta table of the model file holds them.
 *
 * The meta keys and their ranges are part of the model-file contract
 * (docs/model-format.md). config_read checks every one, so that a model whose numbers
 * lie is refused before anything is allocated from them.
 */
#ifndef TOYTRANS_CONFIG_H
#define TOYTRANS_CONFIG_H

#include "model/store.h"
#include "text/tokenizer.h"

#define CONFIG_MAX_D_MODEL 4096
#define CONFIG_MAX_LAYERS 64
#define CONFIG_MAX_D_FF 65536
#define CONFIG_MAX_LEN 4096
/* The most floats one weight tensor may hold: what a model file can store in one blob
 * (STORE_MAX_BLOB, 256 MiB). d_ff · d_model must stay within it. */
#define CONFIG_MAX_TENSOR_FLOATS (STORE_MAX_BLOB / 4)
/* The most parameters a model may have (1 GiB of floats; training holds four times as
 * much: weights, gradients and AdamW's two moments). Every field in range and every
 * tensor within a blob can still add up to more, e.g. d_model 4096, d_ff 16384 and 64
 * layers each side: such a configuration is refused before anything is allocated. */
#define CONFIG_MAX_PARAMS (1LL << 28)
/* The most floats of attention weights the longest sentence may need (1 GiB): n_heads ·
 * max_len² per encoder layer, twice that per decoder layer (self and cross, kept for
 * display) and once more for the layer being computed. The buffers grow to each
 * sentence; this bounds what the longest one can take. A configuration over it is
 * refused before anything is allocated. */
#define CONFIG_MAX_ATTENTION_FLOATS (1LL << 28)

typedef struct {
    int d_model;          /* D, 1..CONFIG_MAX_D_MODEL, a multiple of n_heads */
    int n_heads;          /* H, 1..D */
    int n_encoder_layers; /* 1..CONFIG_MAX_LAYERS */
    int n_decoder_layers; /* 1..CONFIG_MAX_LAYERS */
    int d_ff;             /* feed-forward width, 1..CONFIG_MAX_D_FF, and
                             d_ff · d_model <= CONFIG_MAX_TENSOR_FLOATS */
    int max_len;          /* longest sequence in tokens, </s> included, 2..CONFIG_MAX_LEN */
    int qkv_bias;         /* 0 or 1: the attention projections have biases */
    double layer_norm_eps; /* > 0 and < 1 */
    char src_lang[16];    /* "en", or "de" for a German→English model */
    char tgt_lang[16];    /* "de", or "en" */
} ModelConfig;

/* The two directions toytrans trains, named as --direction names them. A corpus file is
 * always English TAB German (docs/corpus.md); a "de-en" model reads it reversed. */
#define CONFIG_DIRECTION_HELP "en-de (English→German) or de-en (German→English)"

/* Sets c's src_lang and tgt_lang from a direction, "en-de" or "de-en". Returns TT_OK, or
 * TT_EINVAL for any other text (c unchanged). */
int config_set_direction(ModelConfig *c, const char *direction);

/* Whether c translates German to English: its source is the second column of a corpus
 * file, its target the first (TsvReader.reverse). */
int config_is_reverse(const ModelConfig *c);

/* The tokenizer rules of a side in language lang: English's (TOK_SRC: folded, the
 * contractions expanded) for "en", the cased rules (TOK_TGT) for any other language. */
TokLang config_lang_rules(const char *lang);

/* ---------------------------------------------------------------------------------------
 * The hyper-parameter table
 *
 * Every meta key of the configuration is one row: its field of ModelConfig, its type,
 * default and range, and how `toytrans info` shows it. The rows drive config_defaults,
 * config_check, config_write, config_read and config_info_line, so a new hyper-parameter
 * is one row (and a field).
 */

typedef enum {
    CONFIG_INT = 0,   /* an int field, written "%d"; range [min, max] inclusive */
    CONFIG_REAL = 1,  /* a double field, written "%.17g" (round-trips); range (min, max)
                         exclusive, and finite */
    CONFIG_TEXT = 2,  /* a char array field of size bytes, written as it is */
    CONFIG_FIXED = 3, /* no field: meta holds text, the one value this toytrans supports */
} ConfigType;

/* How info shows a row: the value, then for some kinds a few words. */
typedef enum {
    CONFIG_SHOW_VALUE = 0, /* "64"; with note: "32 tokens, </s> included" */
    CONFIG_SHOW_HEADS = 1, /* "4 (16 dimensions per head)": the value and d_model / it */
    CONFIG_SHOW_FLAG = 2,  /* "1 (note)" when set, "0 (note_off)" when not */
    CONFIG_SHOW_PAIR = 3,  /* "en → de": this value, an arrow and the next row's value,
                              under label */
    CONFIG_SHOW_NONE = 4,  /* no line of its own (shown by the row before it) */
} ConfigShow;

#define CONFIG_NO_FIELD ((size_t)-1)

typedef struct {
    const char *key;      /* the meta key, also the name in messages */
    ConfigType type;
    size_t offset;        /* of the field in ModelConfig; CONFIG_NO_FIELD for FIXED */
    size_t size;          /* TEXT: the field's bytes, the terminating NUL included */
    double def;           /* INT, REAL: the default */
    double min, max;      /* INT, REAL: the range (see ConfigType) */
    const char *text;     /* TEXT: the default; FIXED: the one value */
    size_t divides;       /* INT: the field (offset) this one must divide, or
                             CONFIG_NO_FIELD */
    const char *rule;     /* the range's extra rule, added to the key when it is broken:
                             " (must divide d_model)", or "" */
    ConfigShow show;
    const char *label;    /* info's label; NULL: the key */
    const char *note;     /* info: the words after the value (SHOW_VALUE, SHOW_FLAG) */
    const char *note_off; /* info: SHOW_FLAG's words for 0 */
    const char *flag;     /* the option of init, train and vocab ("--d-model"), or NULL;
                             an INT of range 0..1 is a switch that sets 1, without a value */
    const char *help;     /* the option's --help text; "(default N)" follows it */
    const char *help_end; /* what follows the default ("; ..."), or ""; each '\n' starts
                             a line of its own under the text */
} ConfigParam;

/* The table, in the order info shows it; *n receives its length. Static storage. */
const ConfigParam *config_params(int *n);

/* The defaults: d_model 64, 4 heads, 2 + 2 layers, d_ff 256, max_len 32, no qkv bias,
 * eps 1e-5, en → de. */
void config_defaults(ModelConfig *c);

/* The attention weights one sentence needs, in floats:
 * n_heads · max_len² · (n_encoder_layers + 2 · n_decoder_layers + 1). */
long long config_attention_floats(const ModelConfig *c);

/* TT_OK if every field is in range, d_ff · d_model <= CONFIG_MAX_TENSOR_FLOATS and
 * config_attention_floats <= CONFIG_MAX_ATTENTION_FLOATS; else TT_EINVAL with err
 * naming the field or the product. */
int config_check(const ModelConfig *c, char *err, size_t errlen);

/* Writes every key (with activation=relu and norm=pre) into meta; inside the caller's
 * transaction. */
int config_write(Store *s, const ModelConfig *c, char *err, size_t errlen);

/* Reads and checks every key; TT_EMODEL with a message naming the key on any problem.
 * The keys with a field are read first, in table order, then the fixed ones; the ranges
 * and rules of config_check last. */
int config_read(Store *s, ModelConfig *c, char *err, size_t errlen);

/* Info's line for row i of the table: its label into *label, the text after the label
 * into buf (size bytes; from the file, so untrusted: the caller escapes it). Returns 0,
 * with nothing written, for a row without a line of its own (CONFIG_SHOW_NONE). */
int config_info_line(const ModelConfig *c, int i, const char **label, char *buf, size_t size);

#endif
