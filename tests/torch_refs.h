/*
 * torch_refs.h — the two tiny models PyTorch built and what it computed with them
 * (fixtures/transformer_ref.h, written by tests/fixtures/gen_transformer_ref.py), as one
 * table for the tests of the network (test_transformer.c) and of the search
 * (test_decode.c).
 */
#ifndef TOYTRANS_TESTS_TORCH_REFS_H
#define TOYTRANS_TESTS_TORCH_REFS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "fixtures/transformer_ref.h"
#include "model/model.h"

typedef struct {
    const int *src;
    int S;
    const int *prefix;
    int n_prefix;
    const int *ids;
    const float *logprobs;
    int n;
} DecodeCase;

typedef struct {
    const char *path;
    int qkv_bias;
    const int *src_ids, *tgt_ids;
    int S, T;
    const float *enc_out, *logits, *enc_w, *self_w, *cross_w;
    DecodeCase cases[4];
    int n_cases;
} Reference;

#define CASE(P, NAME)                                                                      \
    {P##_##NAME##_SRC, P##_##NAME##_SRC_LEN, NULL, 0, P##_##NAME##_IDS, P##_##NAME##_LOGPROBS, \
     P##_##NAME##_LEN}
#define FORCED(P)                                                                          \
    {P##_FORCED_SRC, P##_FORCED_SRC_LEN, P##_FORCED_PREFIX, P##_FORCED_PREFIX_LEN,          \
     P##_FORCED_IDS, P##_FORCED_LOGPROBS, P##_FORCED_LEN}

static const Reference REFS[2] = {
    {"tests/fixtures/tiny.db", 0, REF_TINY_SRC_IDS, REF_TINY_TGT_IDS, REF_TINY_S, REF_TINY_T,
     REF_TINY_ENC_OUT, REF_TINY_LOGITS, REF_TINY_ENC_SELF_W, REF_TINY_DEC_SELF_W,
     REF_TINY_DEC_CROSS_W,
     {CASE(REF_TINY, GREEDY_A), CASE(REF_TINY, GREEDY_B), FORCED(REF_TINY)}, 3},
    {"tests/fixtures/tiny_bias.db", 1, REF_TINYB_SRC_IDS, REF_TINYB_TGT_IDS, REF_TINYB_S,
     REF_TINYB_T, REF_TINYB_ENC_OUT, REF_TINYB_LOGITS, REF_TINYB_ENC_SELF_W,
     REF_TINYB_DEC_SELF_W, REF_TINYB_DEC_CROSS_W,
     {CASE(REF_TINYB, GREEDY_A), CASE(REF_TINYB, GREEDY_B), CASE(REF_TINYB, GREEDY_EOS),
      FORCED(REF_TINYB)}, 4},
};

static inline void load(Model *m, const Reference *r)
{
    char err[512];
    int rc = model_load_file(m, r->path, err, sizeof err);
    if (rc != TT_OK) {
        print_error("%s\n", err);
        fail();
    }
    assert_int_equal(m->config.qkv_bias, r->qkv_bias);
}

#endif
