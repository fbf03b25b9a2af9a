/*
 * data.h — a training run's data, inside train/ (train.h is the library's interface):
 * a corpus read into the model's token ids, copies of the pairs with names in which the
 * names are <unk> (so that unknown names pass through), the batches grouped by length and
 * shuffled per epoch, and a batch's pairs as backprop takes them.
 */
#ifndef TOYTRANS_TRAIN_DATA_H
#define TOYTRANS_TRAIN_DATA_H

#include "model/model.h"
#include "train/backprop.h"
#include "train/progress.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* A corpus in token ids. */
typedef struct {
    int n;              /* pairs */
    int *ids;           /* all token ids, pair by pair: source then target */
    size_t *off;        /* (n) where pair i starts in ids */
    int *src_len;       /* (n) */
    int *tgt_len;       /* (n) */
    char **ref;         /* (n) the target text as written, for exact match; NULL if unused */
    long skipped_long;  /* pairs longer than max_len, left out */
    uint64_t checksum;  /* tsv_pair_fnv1a64 over the pairs read: the corpus's checksum as
                           vocab_count_corpus computes it */
} Pairs;

/* Hands the one-line message note to the caller's progress callback (if any), in a
 * report that carries nothing else: the library prints nothing itself. */
void train_note(TrainProgressFn progress, void *ctx, const char *note);

/* Reads the corpus at path into p with m's vocabularies: pairs longer than max_len are
 * left out and counted, and with keep_text the target as written is kept (for exact
 * match). With skip_bad, a malformed line is left out and named in a note to progress;
 * otherwise it fails the load, err naming file, line and byte. stop is polled. */
int train_pairs_load(Pairs *p, const char *path, const Model *m, int keep_text,
                     int skip_bad, volatile sig_atomic_t *stop, TrainProgressFn progress,
                     void *ctx, char *err, size_t errlen);
void train_pairs_free(Pairs *p); /* a zeroed Pairs is fine */

/* Adds copies of the fraction of p's pairs that have names, every name <unk> on both
 * sides, drawn from seed (data.c says what is taken for a name). TT_OK or TT_ENOMEM. */
int train_pairs_augment_names(Pairs *p, const Model *m, float fraction, uint64_t seed);

/* The pairs p[idx[0..n-1]] (idx NULL: p[first..first+n-1]) as a batch, with each pair's
 * dropout seed from (seed, step, pair). */
void train_pairs_fill(TrainPair *out, const Pairs *p, const int *idx, int first, int n,
                      uint64_t seed, long step);

/* An epoch's batches: the pairs sorted by length, cut into batches, in a shuffled order. */
typedef struct {
    int n_batches;
    int *start;   /* (n_batches + 1) into order */
    int *order;   /* (pairs) pair indices sorted by length */
    int *perm;    /* (n_batches) this epoch's batch order */
} Batches;

int train_batches_make(Batches *b, const Pairs *p, int batch); /* TT_OK or TT_ENOMEM */
void train_batches_shuffle(Batches *b, uint64_t seed, int epoch);
void train_batches_free(Batches *b); /* a zeroed Batches is fine */

#endif
