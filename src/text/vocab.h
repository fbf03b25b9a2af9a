/*
 * vocab.h — a vocabulary: token strings ↔ ids, for one language side.
 *
 * Ids are dense, 0..size-1, and the first four are reserved:
 *   0 <pad>   padding in batches, never predicted
 *   1 <unk>   any token not in the vocabulary
 *   2 <s>     start of the decoder input
 *   3 </s>    end of a sentence
 * vocab_build assigns the rest by descending count, ties in byte order (strcmp), so the
 * same corpus always gives byte-identical ids.
 */
#ifndef TOYTRANS_VOCAB_H
#define TOYTRANS_VOCAB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    VOCAB_PAD = 0,
    VOCAB_UNK = 1,
    VOCAB_BOS = 2,
    VOCAB_EOS = 3,
    VOCAB_N_SPECIAL = 4,
};

#define VOCAB_MAX_SIZE 1000000 /* ids a vocabulary may hold */

typedef struct {
    int size;          /* V, >= VOCAB_N_SPECIAL once built */
    char **tokens;     /* V NUL-terminated UTF-8 strings in id order, owned */
    int64_t *counts;   /* V training counts (0 for the specials), owned */
    int *slots;        /* hash index: id + 1 per slot, 0 = empty, owned */
    size_t n_slots;    /* a power of two, > 2·V */
} Vocab;

/* The names of the reserved ids, "<pad>" "<unk>" "<s>" "</s>". */
extern const char *const VOCAB_SPECIAL[VOCAB_N_SPECIAL];

/* Counts tokens for vocab_build. */
typedef struct {
    char **tokens;   /* n distinct tokens, owned */
    int64_t *counts; /* n counts */
    int n, cap;
    int *slots;      /* hash index: entry + 1 per slot, 0 = empty */
    size_t n_slots;
} VocabCounter;

/* Counter lifecycle; free accepts a zeroed or freed counter. add returns TT_OK or
 * TT_ENOMEM, or TT_EINPUT for a new token past VOCAB_MAX_SIZE distinct ones. */
void vocab_counter_init(VocabCounter *c);
int vocab_counter_add(VocabCounter *c, const char *token);
void vocab_counter_free(VocabCounter *c);

/* Builds v from the counts: the specials, then every token counted at least min_count
 * times (a counted token spelled like a special is skipped), by descending count, ties
 * in byte order. Returns TT_OK, TT_EINVAL or TT_ENOMEM; on failure v owns nothing. */
int vocab_build(Vocab *v, const VocabCounter *c, int64_t min_count);

/* Builds v from tokens already in id order (as a model file stores them): tokens[i] has
 * id i. The first four must be the specials, no token may repeat, and every token must be
 * one the tokenizer could make (tokenizer_check_token: UTF-8, NFC, no whitespace or
 * control character). Returns TT_OK, TT_EINPUT (with err naming the id, the token with
 * its unprintable bytes as \xNN, and the fault) or TT_ENOMEM; on failure v owns nothing. */
int vocab_from_tokens(Vocab *v, const char *const *tokens, const int64_t *counts, int size,
                      char *err, size_t errlen);

void vocab_free(Vocab *v);

/* The id of token, or VOCAB_UNK. */
int vocab_lookup(const Vocab *v, const char *token);

/* What vocab_count_corpus read. */
typedef struct {
    long pairs;        /* pairs counted */
    long bad_lines;    /* malformed lines skipped (only with skip_bad) */
    uint64_t checksum; /* FNV-1a 64 over the pairs counted, as "src TAB tgt LF" */
} CorpusCount;

/* Counts the tokens of both sides of a parallel corpus file (English TAB German lines;
 * see tsv.h), the source side with the source tokenizer rules, the target side with the
 * target rules. With reverse (a German→English model) the source is the second column,
 * tokenized with the German (cased) rules, and the target the first, with the English
 * ones. A malformed line stops the count with TT_EINPUT and err naming its file,
 * line and byte; with skip_bad it is reported to report (if not NULL) and skipped.
 * stop (NULL: none) is polled while reading: once set, the count ends with TT_EINTR.
 * Returns TT_OK, TT_EINPUT, TT_EINTR, TT_EIO or TT_ENOMEM (err says why). */
int vocab_count_corpus(const char *path, int skip_bad, int reverse, VocabCounter *src,
                       VocabCounter *tgt, CorpusCount *out, FILE *report,
                       const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Writes "id<TAB>token<TAB>count" lines (with a header line) to path, atomically: a
 * temporary file renamed into place. Returns TT_OK or TT_EIO (err says why). */
int vocab_write_tsv(const Vocab *v, const char *path, char *err, size_t errlen);

#endif
