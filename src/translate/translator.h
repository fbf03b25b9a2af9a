/*
 * translator.h — one English sentence in, one German sentence out: everything between
 * the text a person typed and the text they read back.
 *
 * The folder translate/ turns text into text: the search (decode.h), this translator
 * around it and the read-back through the reverse model. It stands on nn/, model/, text/
 * and base/. docs/design.md lists the folders and their modules.
 *
 * A Translator owns what every sentence shares: the search's buffers, the Translation
 * record, the forced prefix and the per-sentence scratch, all sized for the model's
 * max_len when it is initialised. translator_run then takes one sentence through these
 * steps:
 *   1. tokenize with the source rules (NFC, case-folded) and map each token to its id,
 *      unknown words to <unk>; append </s>;
 *   2. decode (greedy or beam search), with the prefix forced if there is one;
 *   3. choose the text of every output token: the prefix as the user wrote it, a
 *      vocabulary token, or for <unk> the source word that the last decoder layer's
 *      cross-attention weighted most at that step, spelled as typed (case kept), so names
 *      pass through (unless keep_unk);
 *   4. join the words with the detokenizer; </s> is not a word;
 *   5. say what the translation may have got wrong (docs/honesty.md):
 *      - unknown words: source tokens not in the source vocabulary. One counts as a
 *        name — the model was trained to copy those through <unk> — when it is written
 *        capitalised (first letter upper or title case, the rest empty or not all upper
 *        case: "Anna", not "NASA"), its folded form (without a final 's or ’s) is not a
 *        common English word (wordlist_is_common: "Where", "Thanks", "Dog's" and also
 *        "Rose" are), and it is either not the sentence's first word (the first token
 *        that is not punctuation) or the translation copied it (a generated <unk>
 *        attended to it most). Every other unknown word is reported as unknown.
 *      - coverage: for each source token (</s> included), the sum over the output
 *        tokens that make the text (the prefix included, a final </s> not) of the last
 *        decoder layer's cross-attention to it, heads averaged. A content word — a known
 *        word or a name, not punctuation and not in the function-word table of
 *        translator.c (the, a, and, is, do, not, ...) — whose coverage is below
 *        coverage_min is reported as not translated.
 *      - the grammar: when the model records (meta train_lexicon_fnv1a64) that its corpus
 *        was made from the lexicon grammar.h was written for, and the source is English,
 *        the source tokens are checked against the corpus grammar (names as names); one
 *        that is not a sentence of it is TR_GRAMMAR_OUT, with a note saying where and
 *        why: 'at "not very old" ("not" inside a noun phrase)'.
 * The result is a set of views into the Translator, so a caller can print the text, the
 * scores, the alternatives or the full attention record without copying anything.
 *
 * Allocation per sentence is only what the tokenizer and detokenizer must do (the token
 * lists and the joined string); decoding allocates nothing.
 */
#ifndef TOYTRANS_TRANSLATOR_H
#define TOYTRANS_TRANSLATOR_H

#include "model/model.h"
#include "text/tokenizer.h"
#include "translate/decode.h"

#include <stddef.h>

/* The default coverage_min: the highest threshold that flags no correct translation
 * of the test set (docs/honesty.md has the measurements). */
#define TRANSLATOR_COVERAGE_MIN 0.2f
/* A content word below coverage_min is still taken as translated when the attention
 * reached it through the encoder, its rolled-out coverage, is at least this
 * (docs/honesty.md: a do-question's verb is read at "do"). */
#define TRANSLATOR_ROLLOUT_MIN 0.4f
/* Bytes of a grammar note, NUL included: 'at "SPAN" (REASON)'. */
#define GRAMMAR_NOTE_LEN 336

/* Whether the source is a sentence of the grammar the model's corpus was made from. */
typedef enum {
    TR_GRAMMAR_UNCHECKED = 0, /* no check: the model records no corpus of this grammar,
                                 or TranslatorOptions.grammar_check is off */
    TR_GRAMMAR_IN = 1,        /* a sentence of the grammar */
    TR_GRAMMAR_OUT = 2,       /* not: grammar_note says where it leaves it */
} TranslatorGrammar;

/* What a source token is to the model. */
typedef enum {
    TR_WORD_KNOWN = 0,   /* in the source vocabulary */
    TR_WORD_NAME = 1,    /* not in it, but a name the translator copies (rule above) */
    TR_WORD_UNKNOWN = 2, /* not in it, and not a name */
} TranslatorWordKind;

/* How to translate. A zeroed struct is not valid (decode.beam must be at least 1):
 * start from translator_options_default. */
typedef struct {
    DecodeOptions decode; /* beam, n_best and the output limit, as decode.h describes;
                           a max_len above the model's max_len means its max_len. Its
                           prefix ids must be NULL and n_prefix 0: the translator forces
                           the prefix text below */
    const char *prefix; /* NUL-terminated start of the output (target tokenizer rules),
                           or NULL; copied by translator_init */
    int alternatives;   /* 0..DECODE_MAX_ALTERNATIVES most probable tokens kept per step */
    int keep_unk;       /* nonzero: show <unk> instead of copying a source word */
    float coverage_min; /* a content word attended less than this is reported as not
                           translated; 0 reports none (TRANSLATOR_COVERAGE_MIN is the
                           measured default, docs/honesty.md) */
    int no_grammar_check; /* nonzero: never check the source against the corpus grammar
                           (by default it is checked when the model records the lexicon
                           this toytrans's grammar was written for: step 5) */
    int crop;           /* nonzero: a source with more tokens than the model takes is cut
                           to its first max_len - 1 tokens (Marian's --max-length-crop),
                           reported in TranslatorResult.cropped, instead of refused */
    int rollout;        /* nonzero: compute TranslatorResult.rollout for every sentence
                           (JSON shows it); else only for a sentence with a word below
                           coverage_min, the only ones the coverage report reads it for */
} TranslatorOptions;

/* decode_options_default's decoding (greedy, no prefix, the default limit), no
 * alternatives, <unk> replaced, no coverage report (coverage_min 0), no cropping. */
TranslatorOptions translator_options_default(void);

/* What reading a translation back through a model of the other direction found
 * (readback.h fills it; the translator itself leaves it zeroed, done 0, why NULL). */
typedef struct {
    int done;            /* 1: checked; 0: not (why says why when a read-back was tried) */
    const char *why;     /* when not done: the reason, static text, or NULL (no read-back) */
    const char *text;    /* the reverse model's reading of the translation; a view into the
                            ReadBack that made it, valid until its next run */
    double best;         /* that reading's summed log-probability, </s> included */
    double input;        /* the input's, forced through the reverse model, </s> included */
    double margin;       /* best - input, in nats */
    int disagrees;       /* 1: margin above the read-back's threshold */
} TranslatorReadBack;

/* One sentence's translation: views into the Translator, valid until its next
 * translator_run, translator_ahead_start or translator_free. Nothing in it is owned by
 * the caller. */
typedef struct {
    const Model *model;        /* the model that translated */
    const char *text;          /* the detokenized translation, NUL-terminated ("" for an
                                  empty sentence) */
    const Translation *t;      /* ids, log-probabilities, attention, alternatives; t->n is 0
                                  for an empty sentence */
    const TokenList *src;      /* the source tokens (case-folded), </s> not included */
    const TokenList *surface;  /* the source tokens as typed (case kept); src itself when
                                  the two tokenizations disagree in number */
    const char *const *tokens; /* (t->n) each output token as the decoder saw it: a prefix
                                  token as written, else the vocabulary token */
    const char *const *words;  /* (t->n) each output token as shown: tokens, with <unk>
                                  replaced by a source word unless keep_unk */
    const unsigned char *copied; /* (t->n) nonzero: words[i] is that source word, copied
                                  for a generated <unk>, not a word the model chose */
    int n_text;                /* the first n_text words make the text: t->n, less a final
                                  generated </s> */
    const int *kind;           /* (src->n) each source token's TranslatorWordKind */
    const float *coverage;     /* (t->S) each source token's coverage, </s> last */
    const float *rollout;      /* (t->S) the same carried back through the encoder's
                                  self-attention (attention rollout), </s> last; NULL
                                  when not computed (TranslatorOptions.rollout unset and
                                  no word below coverage_min) */
    const unsigned char *uncovered; /* (src->n) nonzero: a content word whose coverage is
                                  below coverage_min */
    const char *const *src_labels; /* (t->S) each source token, </s> last, as a display
                                  names it: a token that occurs more than once carries
                                  its occurrence, "the#1", "the#2" (inspect's columns) */
    const char *const *labels; /* (t->n) words, likewise ("der#1" ... "der#2") */
    int n_unknown;             /* source tokens of kind TR_WORD_UNKNOWN */
    int n_names;               /* source tokens of kind TR_WORD_NAME */
    int n_uncovered;           /* nonzero entries of uncovered */
    int cropped;               /* source tokens cut off the end (TranslatorOptions.crop),
                                  0 when the whole source was translated */
    int grammar;               /* TR_GRAMMAR_UNCHECKED, TR_GRAMMAR_IN or TR_GRAMMAR_OUT */
    const char *grammar_note;  /* TR_GRAMMAR_OUT: where and why the source leaves the
                                  grammar, 'at "not very old" (not inside a noun
                                  phrase)'; NULL otherwise */
    float min_prob;            /* the lowest probability of a generated token (</s>
                                  included, the prefix not); 1 when none was generated */
    TranslatorReadBack read_back; /* zeroed by the translator; readback_run fills it */
} TranslatorResult;

/* A text decoded ahead of translator_run (translator_decode_ahead). */
typedef struct {
    const char *text;     /* the caller's text and length, which translator_run matches */
    size_t len;
    int decoded;          /* 1: t holds its decoding; 0: translator_run decodes it itself */
    int S;                /* its source positions, </s> included */
    int *ids;             /* (max_len) its source ids */
    Translation t;        /* its record */
} TranslatorAhead;

typedef struct {
    const Model *model;   /* not owned; must outlive the Translator */
    DecodeOptions decode; /* TranslatorOptions.decode with max_len capped at the model's
                             (0 still means DECODE_LIMIT) and the prefix's ids below */
    int cap;              /* entries the per-sentence buffers below hold (N), 0..max_len */
    int keep_unk;
    int crop;             /* TranslatorOptions.crop */
    int grammar_check;    /* 1: check each source against the corpus grammar (grammar.h) */
    unsigned grammar_with; /* what else the model learned: GRAMMAR_WITH_PHRASEBOOK when
                              its file records the phrasebook grammar.c knows, else 0 */
    char grammar_note[GRAMMAR_NOTE_LEN]; /* TranslatorResult.grammar_note's text */
    int n_hyp;            /* hypotheses the last sentence kept: translator_n_best */
    int cropped;          /* the last sentence's TranslatorResult.cropped */
    float coverage_min;   /* >= 0 */
    Search dec;
    long decoded;         /* sentences given to dec and its sharers so far: the weights are
                             packed (decode_pack) once there is a second */
    Translation t;        /* the record of a sentence decoded here, not ahead */
    const Translation *cur; /* the last sentence's record: &t or its entry of ahead (or of
                               coming, after a join: the set the next start refills);
                               NULL before the first */
    TokenList prefix;     /* the prefix's tokens as the user wrote them (target rules) */
    int *prefix_ids;      /* (max(prefix.n, 1)) their ids, unknown words as <unk> */
    int *src_ids;         /* (N) the source ids of the current sentence, </s> last */
    const char **tokens;  /* (N) TranslatorResult.tokens */
    const char **words;   /* (N) TranslatorResult.words */
    unsigned char *copied; /* (N) TranslatorResult.copied */
    int *kind;            /* (N) TranslatorResult.kind */
    float *coverage;      /* (N) TranslatorResult.coverage */
    float *rolled;        /* (N) TranslatorResult.rollout */
    int rollout_always;   /* TranslatorOptions.rollout */
    int rolled_valid;     /* 1: rolled holds the last sentence's rollout */
    double *roll, *roll_tmp; /* (N) scratch: the rollout's vector, layer by layer */
    float *roll_row;      /* (N) scratch: one row of a layer's heads' mean */
    unsigned char *uncovered; /* (N) TranslatorResult.uncovered */
    TokenList src;        /* the current sentence, source rules; owned */
    TokenList surface;    /* the current sentence, target rules (case kept); owned */
    char *text;           /* the current translation; owned */
    char *label_text;     /* the current labels' characters; owned */
    char *case_text;      /* an English target's words as shown (truecase); owned */
    const char **label_ptrs; /* (N + N) TranslatorResult.src_labels, then .labels */
    int batch;            /* sentences decoded at once by translator_decode_ahead, >= 1 */
    int n_ahead_cap;      /* entries of ahead: TRANSLATOR_AHEAD_BLOCK · batch */
    TranslatorAhead *ahead; /* (n_ahead_cap) owned */
    int n_ahead, next_ahead; /* entries decoded by the last translator_decode_ahead, and
                                the next one translator_run may take */
    TranslatorAhead *coming; /* (n_ahead_cap) the block translator_ahead_start decodes,
                                which translator_ahead_join makes ahead; NULL until the
                                first start; owned */
    int n_coming;         /* its entries */
    int flight;           /* 0: nothing started; 1: the threads decode coming; 2: they
                             finished (translator_run needed a search), not yet joined */
    struct AheadJob *job; /* what the threads of a decode share; owned */
    int *order;           /* (n_ahead_cap) scratch: entries sorted by source length */
    const int **batch_ids; /* (threads · batch) scratch: each thread's batch's sources, */
    int *batch_S;          /* lengths, */
    Translation **batch_t; /* records, */
    const int **batch_tgt; /* and for translator_decode_ahead_scored targets, */
    int *batch_n_tgt;      /* their lengths */
    double *batch_sum;     /* and sums */
    Pool *pool;           /* translator_set_batch's, or NULL; not owned */
    int threads;          /* its threads: each decodes whole batches with its own search */
    Search *more;        /* (threads − 1) the other threads' searches; owned */
} Translator;

/* translator_decode_ahead takes up to this many batches of texts at once, sorted by
 * source length before they are cut into batches (less padding). A batch no larger than
 * the encoder's chunk (transformer.h) is padded to its longest sentence; larger ones are
 * cut into chunks of one length, which sorting makes long. On data/test.tsv in batches of
 * 16 the padding is 30 % more
 * source positions than the sentences have in blocks of 4 batches, 16 % in blocks of 8,
 * 9 % in blocks of 16. Measured, the whole file at batch 16 (farm-bench medians of 10):
 * 8 against 4, 0.496 against 0.514 s and 30 against 27 MiB; 16 no faster than 8. At
 * batch 64, with chunks cut where the length changes, blocks of 2, 4 and 8 batches took
 * the same time (farm-bench, 15 runs: within 1 %) at 33, 38 and 46 MiB. */
#define TRANSLATOR_AHEAD_BLOCK 8
/* The commands' default --batch (measured: bench/results.md, the files table). With the
 * encoder taking a batch in chunks (ENCODER_CHUNK_POSITIONS), a larger batch mostly
 * widens the decoder's products: data/test.tsv on one thread, CPU time (perf stat, 8
 * runs) 505 ms at 32, 422 at 64, 416 at 128, at 41, 47 and 80 MiB peak; 64 for the
 * memory. */
#define TRANSLATOR_DEFAULT_BATCH 64

/* Sets up tr for model m (which must stay alive and unchanged while tr is used).
 * Returns TT_OK; TT_EINVAL for options out of range; TT_EINPUT when the prefix is not
 * valid UTF-8 or has as many tokens as the output limit or more (err begins with
 * "prefix", e.g. "prefix has 3 tokens; the output limit is 3"); TT_ENOMEM. err (errlen
 * bytes, may be NULL if errlen is 0) always says what failed. On failure tr owns nothing;
 * translator_free accepts it, and a zeroed Translator. */
int translator_init(Translator *tr, const Model *m, const TranslatorOptions *o, char *err,
                    size_t errlen);

/* Replaces tr's prefix with prefix (NUL-terminated; NULL: none), as translator_init with
 * that option would set it, without a new search and its copy of the weights; what was
 * decoded ahead is dropped (it was decoded with the old prefix). Returns TT_OK, or
 * translator_init's TT_EINPUT or TT_ENOMEM with err saying why; then tr has no prefix. */
int translator_set_prefix(Translator *tr, const char *prefix, char *err, size_t errlen);

/* Whether token (NUL-terminated UTF-8) is written capitalised: its first character is
 * upper or title case and the rest is empty or not all upper case letters. */
int translator_is_capitalised(const char *token);

/* Whether the folded source token is a function word (translator.c's table) or
 * punctuation: a word whose coverage is not checked. */
int translator_is_function_word(const char *token);
void translator_free(Translator *tr);

/* Translates len bytes of text (no terminator needed), filling *out with views into tr.
 * Returns TT_OK; TT_EINPUT when the text is not valid UTF-8 (err names the byte offset:
 * "invalid UTF-8 at byte 3: ...") or has too many tokens for the model (err gives the
 * count and the limit) unless the translator crops; TT_ENOMEM. On failure *out is zeroed and err says why. */
int translator_run(Translator *tr, const char *text, size_t len, TranslatorResult *out,
                   char *err, size_t errlen);

/* Lets translator_decode_ahead decode batch sentences at once (1..DECODE_MAX_BATCH), its
 * batches shared among pool's threads, each with a search of its own (NULL: the calling
 * thread; not owned, must outlive tr's use). With an n-best list wanted nothing is decoded
 * ahead (translator_ahead_capacity 0): each sentence is its own search. Returns TT_OK,
 * TT_EINVAL (batch out of range, or above 1 with an n-best list) or TT_ENOMEM. */
int translator_set_batch(Translator *tr, int batch, Pool *pool);

/* The most texts one translator_decode_ahead takes: TRANSLATOR_AHEAD_BLOCK · batch ·
 * threads. */
int translator_ahead_capacity(const Translator *tr);

/* Decodes texts[0..n) (n up to translator_ahead_capacity) ahead, sorted by source length,
 * in batches of the batch size; the translator_run calls that follow, given the same
 * texts (the same bytes) in the same order, take each one's decoding instead of
 * decoding it again, and do everything else as usual. A sentence's result is the same,
 * bit for bit, as translator_run alone gives (decode.h: batches are row-stable). Texts
 * that translator_run would refuse (invalid UTF-8, too long) or that are empty are left
 * to it, and so is a batch whose decoding failed (translator_run then reports the error
 * for each sentence). The texts must stay alive and unchanged until translator_run has
 * taken them (after a rewind, again).
 * Returns TT_OK, TT_EINVAL (n out of range, or a translator_ahead_start not yet joined)
 * or TT_ENOMEM (no memory for the packed weights: nothing was decoded ahead, and
 * translator_run reports it). */
int translator_decode_ahead(Translator *tr, const char *const *texts, const size_t *lens,
                            int n);

/* translator_decode_ahead, and then, on each batch's encoder pass, the scores of given
 * targets: target[i] (n_target[i] ids, or NULL to skip text i) forced through the decoder
 * against text i's source; sum[i] gets decode_score_batch's sum, bit for bit the same
 * whatever the batch, or NAN for a text skipped, not decoded, or whose batch failed (the
 * caller scores it alone and reports the error). */
int translator_decode_ahead_scored(Translator *tr, const char *const *texts,
                                   const size_t *lens, int n, const int *const *target,
                                   const int *n_target, double *sum);

/* translator_decode_ahead in the background: the texts are tokenized and sorted here,
 * then the pool's other threads decode them while the caller goes on with the block
 * before (translator_run on its texts, which decoded ahead still take their decodings);
 * translator_ahead_join has the caller take the batches left, waits for the rest, and
 * makes these texts the ones the translator_run calls that follow take. The block ahead
 * of them gets its output while this one decodes (on two threads, translate took 5 %
 * less time on data/test.tsv four times over, 2 % on it once: the first block's decoding
 * and the last one's output do not overlap). Results are the same bits as
 * translator_decode_ahead's. The
 * texts must stay alive and unchanged until translator_run has taken them. Returns
 * TT_OK, TT_EINVAL (n out of range, or a start not yet joined) or TT_ENOMEM (nothing
 * started: the caller may decode the block with translator_decode_ahead instead). */
int translator_ahead_start(Translator *tr, const char *const *texts, const size_t *lens,
                           int n);
/* Ends what translator_ahead_start began (nothing when nothing was started). */
void translator_ahead_join(Translator *tr);

/* Lets the translator_run calls that follow take the texts decoded by the last
 * translator_decode_ahead from the first again: a caller that needs every text's result
 * before it shows any (the read-back of a block) runs them twice, decoding once. */
void translator_ahead_rewind(Translator *tr);

/* How many finished hypotheses the last translator_run kept, best first (beam search
 * keeps up to the beam; greedy decoding none unless decode.n_best); 0 after
 * an empty sentence or a failure. */
int translator_n_best(const Translator *tr);

/* Fills *out for hypothesis k (0 <= k < translator_n_best(tr)) of the last sentence,
 * recorded again through the decoder, so that its text, words, attention and doubt
 * reports are its own; k = 0 gives what translator_run gave. *logprob is the sum of its
 * tokens' log-probabilities (prefix and </s> included), *score that sum per token, which
 * ranks the list. The previous result's views end. Returns TT_OK, TT_EINVAL (k out of
 * range), TT_EMODEL or TT_ENOMEM, with err saying why. */
int translator_hypothesis(Translator *tr, int k, TranslatorResult *out, double *logprob,
                          double *score, char *err, size_t errlen);

/* Writes r as one line of JSON Lines to out: {"source", "source_tokens" (</s> included),
 * "translation", "tokens", "unknown_words" and "names" (source words as typed),
 * "coverage" and "coverage_rollout" (one number per source token, </s> included), "not_translated" (content
 * words as typed), "steps": [{"token", "id", "logprob", "forced", "copied" (the
 * token is a source word shown for a generated <unk>), "cross_attention" [layer][head][source token], "self_attention" [layer][head][step+1],
 * and "alternatives" when kept}]}. line (len bytes) is echoed as "source". Returns TT_OK
 * or TT_EIO. */
int translator_write_json(FILE *out, const TranslatorResult *r, const char *line, size_t len);

/* The encoder's self-attention for the last sentence translated: (L_enc, H, S, S) with
 * S = the result's t->S, query rows then key columns — the weights the forward pass
 * used. Owned by tr; valid until its next translator_run or translator_ahead_start. NULL
 * before the first sentence and after an empty one (t->S is 0). */
const float *translator_encoder_attention(const Translator *tr);

#endif
