/*
 * model.h — the encoder-decoder's parameters: one block, one table, views into both.
 *
 * The folder model/ holds the model file: the SQLite store, the configuration table,
 * this parameter block and its views, the training history a file records. It stands on
 * text/ and base/. docs/design.md lists the folders and their modules.
 *
 * Every parameter lives in one float allocation. A single walk over the architecture
 * (model_layout in model.c) names each tensor, gives its shape and its place in the
 * block; that table drives loading, saving, initialisation and tests, and later the
 * gradients and the optimiser, which share the layout.
 *
 * Letters: D d_model, H heads, F d_ff, L layers, V vocabulary, S source positions,
 * T target positions.
 *
 * The exact computation is written out in docs/model.md.
 */
#ifndef TOYTRANS_MODEL_H
#define TOYTRANS_MODEL_H

#include "base/rng.h"
#include "model/config.h"
#include "model/store.h"
#include "text/vocab.h"

#include <stddef.h>
#include <stdint.h>

#define MODEL_NAME_MAX 64

/* Where a parameter lives in a model file. */
typedef enum {
    PARAM_TENSOR = 0,     /* a row of the tensor table, by name */
    PARAM_EMBED_SRC = 1,  /* the embedding table, lang 'src' */
    PARAM_EMBED_TGT = 2,  /* the embedding table, lang 'tgt' */
} ParamStorage;

/* The weights of one multi-head attention layer, as views into a parameter block the
 * caller owns. Linear layers store weight [out, in] and compute y = x · Wᵀ + b. */
typedef struct {
    int d_model;            /* D, >= 1 */
    int n_heads;            /* H, >= 1, divides D */
    const float *w_query;   /* (D, D) */
    const float *w_key;     /* (D, D) */
    const float *w_value;   /* (D, D) */
    const float *b_query;   /* (D) or NULL: the qkv_bias option */
    const float *b_key;     /* (D) or NULL */
    const float *b_value;   /* (D) or NULL */
    const float *w_out;     /* (D, D) output projection */
    const float *b_out;     /* (D) or NULL */
} MhaWeights;

/* What init draws for a parameter. */
typedef enum {
    INIT_XAVIER = 0, /* U(±√(6 / (rows + cols))) */
    INIT_ZERO = 1,
    INIT_ONE = 2,
} ParamInit;

typedef struct {
    char name[MODEL_NAME_MAX]; /* e.g. "encoder.layers.0.linear1.weight" */
    int rows;                  /* >= 1 */
    int cols;                  /* >= 1 for a matrix, 0 for a vector of rows values */
    size_t offset;             /* into the block, in floats */
    ParamStorage storage;
    ParamInit init;
} ParamSpec;

typedef struct {
    MhaWeights self_attn;
    const float *norm1_w, *norm1_b; /* (D) */
    const float *norm2_w, *norm2_b; /* (D) */
    const float *lin1_w;            /* (F, D) */
    const float *lin1_b;            /* (F) */
    const float *lin2_w;            /* (D, F) */
    const float *lin2_b;            /* (D) */
} EncoderLayer;

typedef struct {
    MhaWeights self_attn;           /* causal */
    MhaWeights cross_attn;          /* queries from the decoder, keys/values from memory */
    const float *norm1_w, *norm1_b; /* (D) before self-attention */
    const float *norm2_w, *norm2_b; /* (D) before cross-attention */
    const float *norm3_w, *norm3_b; /* (D) before the feed-forward block */
    const float *lin1_w;            /* (F, D) */
    const float *lin1_b;            /* (F) */
    const float *lin2_w;            /* (D, F) */
    const float *lin2_b;            /* (D) */
} DecoderLayer;

/* Views into a parameter block. */
typedef struct {
    const float *emb_src;     /* (V_src, D) */
    const float *emb_tgt;     /* (V_tgt, D) */
    EncoderLayer enc[CONFIG_MAX_LAYERS];
    DecoderLayer dec[CONFIG_MAX_LAYERS];
    const float *enc_norm_w, *enc_norm_b; /* (D) */
    const float *dec_norm_w, *dec_norm_b; /* (D) */
    const float *gen_w;       /* (V_tgt, D) */
    const float *gen_b;       /* (V_tgt) */
} ModelWeights;

/* The meta key of the lexicon the training corpus was generated from (train --lexicon):
 * 16 hex digits of its FNV-1a 64. */
#define MODEL_LEXICON_KEY "train_lexicon_fnv1a64"

/* The meta key of the phrasebook the training corpus was generated with (train
 * --phrasebook): 16 hex digits of its FNV-1a 64. Absent in older files and in models
 * trained without phrases. */
#define MODEL_PHRASEBOOK_KEY "train_phrasebook_fnv1a64"

typedef struct {
    ModelConfig config;
    uint64_t lexicon_fnv1a64; /* meta MODEL_LEXICON_KEY; 0 when absent or not 16 hex
                                 digits (informational: it only enables the grammar
                                 check, translator.h) */
    uint64_t phrasebook_fnv1a64; /* meta MODEL_PHRASEBOOK_KEY; 0 when absent or not 16
                                    hex digits: the model learned no phrasebook (the
                                    grammar check then takes no phrase, grammar.h) */
    Vocab src_vocab;     /* owned */
    Vocab tgt_vocab;     /* owned */
    ParamSpec *specs;    /* n_specs entries, owned */
    int n_specs;
    float *params;       /* n_params floats, owned: the one parameter block */
    size_t n_params;
    ModelWeights w;      /* views into params */
    float *pe;           /* (max_len, D) positional encodings, owned; not a parameter */
} Model;

/* Builds the table for a configuration and vocabulary sizes: *specs (owned by the caller,
 * free()) and *n. *total receives the block size in floats. */
int model_param_specs(const ModelConfig *c, int V_src, int V_tgt, ParamSpec **specs, int *n,
                      size_t *total);

/* Sets up m for config c with a zeroed block and the given vocabularies, whose ownership
 * moves to m (*src and *tgt are zeroed). Returns TT_OK, TT_EINVAL (err says what) or
 * TT_ENOMEM; on failure m owns nothing and *src, *tgt are untouched. */
int model_init(Model *m, const ModelConfig *c, Vocab *src, Vocab *tgt, char *err, size_t errlen);
void model_free(Model *m);

/* A block the size of m's parameter block holding every matrix of the table packed at its
 * own offset (kernel_pack_weight, the matrix as a Linear layer's (rows, cols) weight); the
 * vectors' places are left unwritten (never read: biases and norms are read from m's
 * block). What kernel_matmul_packed takes for translation's Linear layers
 * (NetCtx.params_packed). Returns
 * the copy (owned by the caller, free()) or NULL when out of memory. */
float *model_params_packed(const Model *m);

/* Fills the block as the spec table says: Xavier-uniform matrices and embeddings,
 * zero biases, LayerNorm weights 1 — drawn in table order from rng. */
void model_randomize(Model *m, Rng *rng);

/* What a model file says before its weights: the configuration, the vocabularies and the
 * parameter table they give. */
typedef struct {
    ModelConfig config;
    Vocab src, tgt;    /* owned */
    ParamSpec *specs;  /* n_specs entries, owned */
    int n_specs;
    size_t n_params;   /* the block the table describes, in floats */
} ModelHeader;

/* Reads and checks the configuration (config_read) and both vocabularies of s, then
 * builds the parameter table. TT_OK, or TT_EMODEL (err names the key, side or id),
 * TT_EIO or TT_ENOMEM; on failure h owns nothing. Free with model_header_free. */
int model_header_read(ModelHeader *h, Store *s, char *err, size_t errlen);

/* Opens path read-only and reads its header: what `info`, `plot` and model_load_file
 * start with. *out is the open store (owned by the caller, store_close), for reading
 * the rest; on failure *out is NULL, the file is closed and h owns nothing. */
int model_header_open(Store **out, ModelHeader *h, const char *path, char *err,
                      size_t errlen);

/* Frees what h owns; a zeroed or freed h is accepted. */
void model_header_free(ModelHeader *h);

/* Loads a whole model from an open store: config, vocabularies, embeddings, tensors,
 * every one checked. TT_EMODEL with err naming the problem. */
int model_load(Model *m, Store *s, char *err, size_t errlen);

/* Opens path read-only and loads it (the common case). */
int model_load_file(Model *m, const char *path, char *err, size_t errlen);

/* model_load_file in two parts, for a caller with other work to do while the two checks
 * that read the whole file (PRAGMA integrity_check and the content checksum) run:
 * model_load_file_unchecked loads the model from one snapshot of the file with every
 * other check, and keeps the snapshot open in *checks; model_load_checks runs the two on
 * it (from any one thread) and closes it. Until that returns TT_OK, nothing of the model
 * may be shown or trusted; on its failure the caller frees m. Every refusal has
 * model_load_file's status and message: where the load itself fails, it runs
 * integrity_check first as model_load_file does, and a file that fails it gets that
 * message. On failure of either part, checks holds nothing. */
typedef struct {
    Store *s; /* the open snapshot, or NULL */
} ModelChecks;

int model_load_file_unchecked(Model *m, ModelChecks *checks, const char *path, char *err,
                              size_t errlen);
int model_load_checks(ModelChecks *checks, char *err, size_t errlen);

/* Writes config, vocabularies, embeddings and tensors into s, inside the caller's
 * transaction, and the lexicon and phrasebook checksums (MODEL_LEXICON_KEY,
 * MODEL_PHRASEBOOK_KEY) when m has them. */
int model_save(const Model *m, Store *s, char *err, size_t errlen);

/* ---------------------------------------------------------------------------------------
 * A new model file, and the provenance keys of its meta table
 */

/* How a provenance value is written into meta and shown by `toytrans info`. */
typedef enum {
    PROV_TEXT = 0,     /* text as it is; shown with "(none)" for an empty value */
    PROV_UINT = 1,     /* a whole number, uint64_t, written "%llu"; shown as it is */
    PROV_HEX64 = 2,    /* a 64-bit checksum, uint64_t, written as 16 lowercase hex digits */
    PROV_NUMBER = 3,   /* a real number; shown rounded to 6 significant digits */
    PROV_DURATION = 4, /* seconds; shown as a duration */
    PROV_LINES = 5,    /* text of one entry per line; each shown on a line of its own */
} ProvFormat;

/* What model_create records of a new file's origin. Every field is a key of the
 * provenance table (model_provenance_keys). */
typedef struct {
    const char *created_by;        /* the tool and its version: "toytrans 0.1.0 init" */
    const char *vocab_corpus;      /* the corpus the vocabularies were counted from */
    uint64_t vocab_corpus_pairs;   /* the pairs read from it */
    uint64_t vocab_corpus_fnv1a64; /* FNV-1a 64 over those pairs, as `src TAB tgt LF` */
    uint64_t vocab_min_count;      /* tokens seen fewer times are left out, >= 1 */
    uint64_t init_seed;            /* the seed the random weights were drawn from */
} ModelProvenance;

/* One provenance key of meta (docs/model-format.md): informational, never needed to
 * load a model. */
typedef struct {
    const char *key;   /* the meta key */
    const char *label; /* info's label, its indent included: "  fnv1a64" under a corpus */
    ProvFormat format;
    size_t offset;     /* of the ModelProvenance field model_create writes, or
                          MODEL_PROV_NOT_CREATED: a key of a training run's record
                          (train_provenance_keys, train.h), which a training run writes, or
                          another trainer (python/toytrans_torch) */
} ProvKey;

#define MODEL_PROV_NOT_CREATED ((size_t)-1)

/* The provenance keys model_create writes (each with its field), in the order info
 * shows them; *n receives the length. Static storage, not to be freed. A trained file's
 * record follows them: train.h's train_provenance_keys. */
const ProvKey *model_provenance_keys(int *n);

/* What a new file holds besides its provenance. */
typedef struct {
    const Model *weights;         /* every weight (config and vocabularies are its own);
                                     or NULL, for a file of embeddings only: */
    const ModelConfig *config;    /* when weights is NULL: the configuration written */
    const Vocab *src, *tgt;       /* when weights is NULL: the vocabularies; their
                                     embeddings are drawn from the provenance's init_seed,
                                     Xavier-uniform, the source table first, as
                                     model_randomize draws its first two tensors */
} ModelContents;

/* Creates the model file path (mode STORE_CREATE or STORE_REPLACE) and writes, in one
 * transaction it leaves open: the configuration, both vocabularies, the weights (or the
 * embeddings) and every provenance key of the table that has a ModelProvenance field.
 * On success *out is that store, owned by the caller, who may add more in the same
 * transaction and then calls store_commit and store_close (or store_publish): nothing
 * appears at path before that. On failure *out is NULL, nothing is left behind and err
 * says why (TT_EEXIST for an existing path under STORE_CREATE). */
int model_create(Store **out, const char *path, StoreMode mode, const ModelContents *contents,
                 const ModelProvenance *prov, char *err, size_t errlen);

/* Points w at the block for configuration c (used for params, and for any block of the
 * same layout). */
void model_map(ModelWeights *w, const ModelConfig *c, const ParamSpec *specs, int n_specs,
               const float *block);

#endif
