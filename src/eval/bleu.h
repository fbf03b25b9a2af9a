/*
 * bleu.h — corpus BLEU, computed exactly as sacreBLEU 2.x does with its defaults.
 *
 * Those defaults are: the '13a' tokenizer (mteval-v13a, the WMT standard), mixed case,
 * n-grams up to order 4, the 'exp' smoothing, the 'closest' effective reference length,
 * one or more references per sentence. So the line bleu_format writes,
 *
 *     BLEU = 45.07 70.6/42.9/36.4/37.5 (BP = 1.000 ratio = 1.000 hyp_len = 17 ref_len = 17)
 *
 * is the line sacreBLEU prints for print(BLEU().corpus_score(hyps, refs)) on the same
 * text, to the last digit (its command line shows the same numbers, in JSON by default).
 *
 * The 13a tokenizer, step by step (sacreBLEU tokenizer_13a.py and tokenizer_re.py):
 *   1. trailing whitespace is removed (BLEU strips each segment before tokenizing);
 *   2. "<skipped>" and "-\n" are deleted, "\n" becomes a space, and the entities &quot;
 *      &amp; &lt; &gt; become " & < > — each replacement a left-to-right pass of its own
 *      over the whole text, in this order;
 *   3. the text is wrapped in one space on each side, then four substitutions run, each
 *      over the whole text, left to right, matches never overlapping:
 *        ([\{-\~\[-\` -\&\(-\+\:-\@\/])  → " \1 "   ASCII symbols stand alone
 *        ([^0-9])([\.,])                → "\1 \2 " a period or comma after a non-digit
 *        ([\.,])([^0-9])                → " \1 \2" a period or comma before a non-digit
 *        ([0-9])(-)                     → "\1 \2 " a dash after a digit
 *      so "3.5" and "1,000" stay whole while "end." splits; ' and - inside words stay;
 *   4. the tokens are what is left between whitespace, where whitespace is what Python's
 *      str.split() takes as such: Unicode category Zs or bidirectional class WS, B or S
 *      (TAB, LF, VT, FF, CR, U+001C..U+001F, U+0085, NBSP, U+2028, ...).
 * Text is matched code point by code point as Python does; it must be valid UTF-8.
 *
 * The score, from statistics summed over the corpus (c hypothesis tokens, r reference
 * length, m_n clipped n-gram matches, t_n hypothesis n-grams):
 *   - r adds up, per sentence, the reference length closest to the hypothesis length
 *     (ties: the shorter);
 *   - m_n clips each hypothesis n-gram's count to the largest count it has in any one
 *     reference of its sentence;
 *   - p_n = 100 · m_n / t_n; when m_n = 0 ('exp' smoothing), p_n = 100 / (2^k · t_n),
 *     where k counts the orders with no match so far (1 for the first such order);
 *     when t_n = 0 this and all higher p_n stay 0;
 *   - BLEU = BP · exp(Σ log p_n / 4), with log 0 taken as −9999999999 (so the score is
 *     0), and BLEU = 0 with all p_n shown as 0 when no n-gram of any order matched;
 *   - BP = 1 if c ≥ r, exp(1 − r/c) if 0 < c < r, 0 if c = 0 < r.
 * Reference strings that are exactly empty do not count as references (as in sacreBLEU);
 * every sentence needs at least one that is not empty.
 */
#ifndef TOYTRANS_BLEU_H
#define TOYTRANS_BLEU_H

#include <stddef.h>
#include <stdint.h>

#define BLEU_MAX_ORDER 4
#define BLEU_LINE_SIZE 256 /* enough for any bleu_format line and its NUL */

/* The sufficient statistics: sentence statistics add up to the corpus's. */
typedef struct {
    int64_t hyp_len;                 /* c: hypothesis tokens, >= 0 */
    int64_t ref_len;                 /* r: closest reference lengths, >= 0 */
    int64_t correct[BLEU_MAX_ORDER]; /* m_n: clipped n-gram matches, order n at [n-1] */
    int64_t total[BLEU_MAX_ORDER];   /* t_n: hypothesis n-grams, >= correct */
} BleuStats;

typedef struct {
    double score;                     /* 0..100 */
    double precision[BLEU_MAX_ORDER]; /* p_n in percent, smoothed */
    double bp;                        /* brevity penalty, 0..1 */
    double ratio;                     /* c / r; 0 when r = 0 */
    BleuStats stats;
} BleuScore;

/* One sentence's scratch records (defined in bleu.c). */
typedef struct BleuSeg BleuSeg;
typedef struct BleuGram BleuGram;

/* A corpus being scored: statistics so far, and scratch that every sentence reuses. */
typedef struct {
    BleuStats stats;        /* the sum over the sentences added */
    int64_t sentences;      /* sentences added */
    int refs_min;           /* fewest non-empty references a sentence had (0 before any) */
    int refs_max;           /* most non-empty references a sentence had */
    char *work[2];          /* tokenizer passes, ping-pong; owned */
    size_t work_cap[2];
    char *toks;             /* the sentence's tokens, NUL-separated; owned */
    size_t toks_len, toks_cap;
    size_t *tok_off;        /* (tok_n) offsets of the tokens in toks; owned */
    size_t tok_n, tok_off_cap;
    const char **tok;       /* (tok_n) the tokens themselves, hypothesis first; owned array */
    size_t tok_cap;
    BleuSeg *segs;          /* the hypothesis, then each non-empty reference; owned */
    size_t seg_cap;
    BleuGram *grams;        /* owned */
    size_t grams_cap;
} Bleu;

/* Starts an empty corpus. Free with bleu_free, which accepts a zeroed or freed Bleu. */
void bleu_init(Bleu *b);
void bleu_free(Bleu *b);

/* Adds one sentence: the hypothesis and its n_refs references (NUL-terminated UTF-8).
 * Returns TT_OK; TT_EINVAL (n_refs < 1, a NULL string); TT_EINPUT (invalid UTF-8, or every
 * reference empty); TT_ENOMEM. On failure the statistics are unchanged. */
int bleu_add(Bleu *b, const char *hyp, const char *const *refs, int n_refs);

/* The score of the statistics s. */
void bleu_compute(BleuScore *out, const BleuStats *s);

/* Scores a whole corpus as sacreBLEU's corpus_score(hyps, ref_sets) does: n hypotheses
 * and n_sets reference sets of n strings each (ref_sets[k][i] is set k's reference for
 * hypothesis i). Returns what bleu_add returns; *out is zeroed on failure. */
int bleu_corpus(BleuScore *out, const char *const *hyps, size_t n,
                const char *const *const *ref_sets, int n_sets);

/* Writes sacreBLEU's line for s into buf (size bytes, BLEU_LINE_SIZE always suffices).
 * Returns the length of the whole line, as snprintf does. */
int bleu_format(char *buf, size_t size, const BleuScore *s);

/* sacreBLEU's signature of these settings into buf (size bytes), as its command line
 * prints it: "nrefs:N|case:mixed|eff:no|tok:13a|smooth:exp|version:VERSION", N the
 * references per sentence of b's corpus, or "var" when the sentences had different
 * numbers of non-empty ones. sacreBLEU writes its own version number where the caller
 * names the implementation ("toytrans-0.1.0"). Returns the length as snprintf does. */
int bleu_signature(char *buf, size_t size, const Bleu *b, const char *version);

/* sacreBLEU's command-line line: "BLEU|SIG = 45.07 70.6/..." (the rest as bleu_format),
 * or bleu_format's line when sig is NULL. BLEU_LINE_SIZE + the signature's length
 * suffices. Returns the length as snprintf does. */
int bleu_format_signed(char *buf, size_t size, const BleuScore *s, const char *sig);

/* Python's str.isspace() for code point cp: the whitespace that the 13a tokenizer (and
 * chrF) split on. */
int bleu_is_space(int32_t cp);

/* The 13a tokenization of len bytes of text: tokens joined by single spaces, as a newly
 * allocated NUL-terminated string *out, owned by the caller (free()). Returns TT_OK,
 * TT_EINPUT (invalid UTF-8 or a NUL byte; *out NULL) or TT_ENOMEM (*out NULL). */
int bleu_tokenize_13a(char **out, const char *text, size_t len);

#endif
