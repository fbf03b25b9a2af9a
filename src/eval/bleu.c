/*
 * bleu.c — sacreBLEU's default BLEU: the 13a tokenizer, clipped n-gram counts, 'exp'
 * smoothing, closest reference length.
 *
 * The tokenizer runs each of sacreBLEU's regular expressions as its own pass over a
 * byte buffer, because every pass sees what the previous one inserted. Working on bytes
 * gives the same result as Python working on code points: every pattern is a class of
 * ASCII characters next to [^0-9], and in valid UTF-8 an ASCII byte is always a whole
 * character, while the bytes of any other character are all outside 0-9 and ".,", so a
 * match can neither start nor end in the middle of a character differently from Python.
 *
 * Counting: every n-gram of the hypothesis and of each reference becomes a record
 * (where its tokens are, which segment it came from); sorting the records by tokens
 * then segment puts equal n-grams side by side, and one scan gives each n-gram's count
 * in the hypothesis and its largest count in any single reference.
 */
#include "eval/bleu.h"

#include "base/mem.h"
#include "base/status.h"
#include "text/tokenizer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Where one segment's tokens are in Bleu.tok. */
struct BleuSeg {
    size_t first; /* index of its first token */
    size_t len;   /* its token count */
};

struct BleuGram {
    const char *const *tok; /* the n-gram's first token; n tokens follow */
    int n;                  /* order, 1..BLEU_MAX_ORDER */
    int seg;                /* 0 the hypothesis, k >= 1 reference k */
};

/* GROW(ptr, cap, need): grows ptr in place or returns TT_ENOMEM from the caller. */
#define GROW(ptr, cap, need)                                                               \
    do {                                                                                   \
        void *grown_ = mem_grow((ptr), &(cap), (need), sizeof *(ptr));                     \
        if (!grown_)                                                                       \
            return TT_ENOMEM;                                                              \
        (ptr) = grown_;                                                                    \
    } while (0)

/* ---------------------------------------------------------------------------------------
 * The 13a tokenizer
 */

/* Python's str.isspace(), which str.split() and str.rstrip() use. */
int bleu_is_space(int32_t cp)
{
    const utf8proc_property_t *p = utf8proc_get_property(cp);
    return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

/* The length of the whitespace character at s (n bytes left), or 0 if it is not one.
 * The text has been validated. */
static size_t space_at(const char *s, size_t n)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp);
    return k > 0 && bleu_is_space(cp) ? (size_t)k : 0;
}

/* The length of a code point's encoding from its first byte (valid UTF-8). */
static size_t char_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Python's s.replace(from, to) in place, for a replacement no longer than what it
 * replaces: matches are found left to right and never overlap. */
static size_t replace_all(char *s, size_t len, const char *from, const char *to)
{
    const size_t nf = strlen(from), nt = strlen(to);
    size_t r = 0, w = 0;
    while (r < len) {
        if (len - r >= nf && memcmp(s + r, from, nf) == 0) {
            memcpy(s + w, to, nt);
            w += nt;
            r += nf;
        } else {
            s[w++] = s[r++];
        }
    }
    return w;
}

/* [\{-\~\[-\` -\&\(-\+\:-\@\/]: the ASCII symbols that always stand alone. Not among
 * them: ' , - . and the letters and digits. */
static int is_13a_symbol(unsigned char c)
{
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
           (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_period_comma(unsigned char c)
{
    return c == '.' || c == ',';
}

/* One pass of a two-character substitution "\1 \2 " (or " \1 \2" when lead is set):
 * out receives at most 2 * len bytes. */
static size_t sub_pair(char *out, const char *s, size_t len, int (*first)(unsigned char),
                       int (*second)(unsigned char), int lead)
{
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        const unsigned char a = (unsigned char)s[i];
        if (i + 1 < len && first(a) && second((unsigned char)s[i + 1])) {
            if (lead)
                out[w++] = ' ';
            out[w++] = s[i];
            out[w++] = ' ';
            out[w++] = s[i + 1];
            if (!lead)
                out[w++] = ' ';
            i += 2;
        } else {
            out[w++] = s[i++];
        }
    }
    return w;
}

static int not_digit(unsigned char c)
{
    return !is_digit(c);
}

static int is_dash(unsigned char c)
{
    return c == '-';
}

/* Runs steps 1-3 of the tokenizer on len bytes of validated text; the result, still to
 * be split on whitespace, is b->work[1] with length *out_len. */
static int tokenize_passes(Bleu *b, const char *text, size_t len, size_t *out_len)
{
    /* The symbol pass at most triples the text, each later pass at most doubles it. */
    const size_t need = 3 * (len + 2) * 2 * 2 * 2;
    GROW(b->work[0], b->work_cap[0], need);
    GROW(b->work[1], b->work_cap[1], need);
    char *a = b->work[0], *c = b->work[1];

    /* 1. rstrip(): keep up to the end of the last character that is not whitespace. */
    size_t end = 0;
    for (size_t i = 0; i < len;) {
        size_t k = space_at(text + i, len - i);
        i += k ? k : char_len((unsigned char)text[i]);
        if (!k)
            end = i;
    }
    memcpy(a, text, end);
    size_t n = end;

    /* 2. The language-independent replacements, one pass each, in sacreBLEU's order. */
    static const char *const REPLACE[][2] = {
        {"<skipped>", ""}, {"-\n", ""},   {"\n", " "},   {"&quot;", "\""},
        {"&amp;", "&"},    {"&lt;", "<"}, {"&gt;", ">"},
    };
    for (size_t k = 0; k < sizeof REPLACE / sizeof REPLACE[0]; k++)
        n = replace_all(a, n, REPLACE[k][0], REPLACE[k][1]);

    /* 3. " " + text + " ", then the four substitutions. */
    c[0] = ' ';
    memcpy(c + 1, a, n);
    c[n + 1] = ' ';
    n += 2;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_13a_symbol((unsigned char)c[i])) {
            a[w++] = ' ';
            a[w++] = c[i];
            a[w++] = ' ';
        } else {
            a[w++] = c[i];
        }
    }
    n = sub_pair(c, a, w, not_digit, is_period_comma, 0);
    n = sub_pair(a, c, n, is_period_comma, not_digit, 1);
    n = sub_pair(c, a, n, is_digit, is_dash, 0);
    *out_len = n;
    return TT_OK;
}

/* Appends the 13a tokens of text (NUL-terminated) to b->toks, one NUL after each, and
 * their offsets to b->tok_off; *count receives how many. */
static int tokenize_append(Bleu *b, const char *text, size_t *count)
{
    const size_t len = strlen(text);
    if (tokenizer_validate(text, len, NULL) != TT_OK)
        return TT_EINPUT;
    size_t n;
    int rc = tokenize_passes(b, text, len, &n);
    if (rc != TT_OK)
        return rc;
    const char *s = b->work[1];
    /* Tokens and their NULs never take more room than the text they come from. */
    GROW(b->toks, b->toks_cap, b->toks_len + n + 1);
    *count = 0;
    size_t i = 0;
    while (i < n) {
        size_t k = space_at(s + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        GROW(b->tok_off, b->tok_off_cap, b->tok_n + 1);
        b->tok_off[b->tok_n++] = b->toks_len;
        while (i < n && !space_at(s + i, n - i)) {
            size_t cl = char_len((unsigned char)s[i]);
            memcpy(b->toks + b->toks_len, s + i, cl);
            b->toks_len += cl;
            i += cl;
        }
        b->toks[b->toks_len++] = '\0';
        (*count)++;
    }
    return TT_OK;
}

int bleu_tokenize_13a(char **out, const char *text, size_t len)
{
    *out = NULL;
    if (!text && len > 0)
        return TT_EINVAL;
    if (!text)
        text = "";
    if (tokenizer_validate(text, len, NULL) != TT_OK)
        return TT_EINPUT;
    Bleu b;
    bleu_init(&b);
    size_t n;
    int rc = tokenize_passes(&b, text, len, &n);
    char *joined = rc == TT_OK ? malloc(n + 1) : NULL;
    if (rc == TT_OK && !joined)
        rc = TT_ENOMEM;
    if (rc == TT_OK) {
        /* ' '.join(line.split()) */
        const char *s = b.work[1];
        size_t w = 0;
        for (size_t i = 0; i < n;) {
            size_t k = space_at(s + i, n - i);
            if (k) {
                i += k;
                continue;
            }
            if (w > 0)
                joined[w++] = ' ';
            while (i < n && !space_at(s + i, n - i)) {
                const size_t cl = char_len((unsigned char)s[i]);
                memcpy(joined + w, s + i, cl);
                w += cl;
                i += cl;
            }
        }
        joined[w] = '\0';
        *out = joined;
    }
    bleu_free(&b);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Counting
 */

void bleu_init(Bleu *b)
{
    memset(b, 0, sizeof *b);
}

void bleu_free(Bleu *b)
{
    if (!b)
        return;
    free(b->grams);
    free(b->segs);
    free(b->tok);
    free(b->tok_off);
    free(b->toks);
    free(b->work[1]);
    free(b->work[0]);
    memset(b, 0, sizeof *b);
}

/* Orders records by their tokens, then by segment. */
static int gram_cmp(const void *pa, const void *pb)
{
    const BleuGram *a = pa, *b = pb;
    for (int k = 0; k < a->n; k++) {
        int c = strcmp(a->tok[k], b->tok[k]);
        if (c)
            return c;
    }
    return (a->seg > b->seg) - (a->seg < b->seg);
}

static int same_gram(const BleuGram *a, const BleuGram *b)
{
    for (int k = 0; k < a->n; k++)
        if (strcmp(a->tok[k], b->tok[k]) != 0)
            return 0;
    return 1;
}

/* sacreBLEU's _get_closest_ref_len: the reference length nearest hyp_len, ties to the
 * shorter. */
static int64_t closest_ref_len(int64_t hyp_len, const BleuSeg *refs, int n)
{
    int64_t best_diff = -1, best = -1;
    for (int k = 0; k < n; k++) {
        const int64_t len = (int64_t)refs[k].len;
        const int64_t diff = hyp_len > len ? hyp_len - len : len - hyp_len;
        if (best_diff < 0 || diff < best_diff) {
            best_diff = diff;
            best = len;
        } else if (diff == best_diff && len < best) {
            best = len;
        }
    }
    return best;
}

/* Counts order n over the segments: hypothesis n-grams into *total, clipped matches
 * into *correct. */
static int count_order(Bleu *b, int n, int segs, int64_t *correct, int64_t *total)
{
    size_t m = 0;
    for (int s = 0; s < segs; s++)
        if (b->segs[s].len >= (size_t)n)
            m += b->segs[s].len - (size_t)n + 1;
    GROW(b->grams, b->grams_cap, m ? m : 1);
    m = 0;
    for (int s = 0; s < segs; s++)
        for (size_t i = 0; i + (size_t)n <= b->segs[s].len; i++)
            b->grams[m++] = (BleuGram){.tok = b->tok + b->segs[s].first + i, .n = n, .seg = s};
    qsort(b->grams, m, sizeof *b->grams, gram_cmp);

    *correct = *total = 0;
    for (size_t i = 0; i < m;) {
        int64_t hyp = 0, best_ref = 0;
        size_t j = i;
        while (j < m && same_gram(&b->grams[i], &b->grams[j])) {
            /* One run per segment, the hypothesis's first. */
            const int seg = b->grams[j].seg;
            int64_t run = 0;
            while (j < m && b->grams[j].seg == seg && same_gram(&b->grams[i], &b->grams[j])) {
                run++;
                j++;
            }
            if (seg == 0)
                hyp = run;
            else if (run > best_ref)
                best_ref = run;
        }
        *total += hyp;
        *correct += hyp < best_ref ? hyp : best_ref;
        i = j;
    }
    return TT_OK;
}

int bleu_add(Bleu *b, const char *hyp, const char *const *refs, int n_refs)
{
    if (!hyp || !refs || n_refs < 1)
        return TT_EINVAL;
    for (int k = 0; k < n_refs; k++)
        if (!refs[k])
            return TT_EINVAL;
    GROW(b->segs, b->seg_cap, (size_t)n_refs + 1);

    b->toks_len = 0;
    b->tok_n = 0;
    int segs = 0, rc;
    b->segs[0].first = 0;
    if ((rc = tokenize_append(b, hyp, &b->segs[0].len)) != TT_OK)
        return rc;
    segs++;
    for (int k = 0; k < n_refs; k++) {
        /* sacreBLEU drops empty references: the sentence has fewer of them. */
        if (refs[k][0] == '\0')
            continue;
        b->segs[segs].first = b->tok_n;
        if ((rc = tokenize_append(b, refs[k], &b->segs[segs].len)) != TT_OK)
            return rc;
        segs++;
    }
    if (segs == 1)
        return TT_EINPUT;
    GROW(b->tok, b->tok_cap, b->tok_n ? b->tok_n : 1);
    for (size_t i = 0; i < b->tok_n; i++)
        b->tok[i] = b->toks + b->tok_off[i];

    BleuStats s = {0};
    s.hyp_len = (int64_t)b->segs[0].len;
    s.ref_len = closest_ref_len(s.hyp_len, b->segs + 1, segs - 1);
    for (int n = 1; n <= BLEU_MAX_ORDER; n++)
        if ((rc = count_order(b, n, segs, &s.correct[n - 1], &s.total[n - 1])) != TT_OK)
            return rc;

    b->stats.hyp_len += s.hyp_len;
    b->stats.ref_len += s.ref_len;
    for (int n = 0; n < BLEU_MAX_ORDER; n++) {
        b->stats.correct[n] += s.correct[n];
        b->stats.total[n] += s.total[n];
    }
    if (b->sentences == 0 || segs - 1 < b->refs_min)
        b->refs_min = segs - 1;
    if (segs - 1 > b->refs_max)
        b->refs_max = segs - 1;
    b->sentences++;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The score
 */

void bleu_compute(BleuScore *out, const BleuStats *s)
{
    memset(out, 0, sizeof *out);
    out->stats = *s;
    const double c = (double)s->hyp_len, r = (double)s->ref_len;
    if (s->hyp_len < s->ref_len)
        out->bp = s->hyp_len > 0 ? exp(1.0 - r / c) : 0.0;
    else
        out->bp = 1.0;
    out->ratio = s->ref_len ? c / r : 0.0;

    int any = 0;
    for (int n = 0; n < BLEU_MAX_ORDER; n++)
        any |= s->correct[n] != 0;
    if (!any)
        return; /* sacreBLEU's early stop: score 0, every precision shown as 0 */

    /* The same operations in the same order as sacreBLEU, so the doubles agree. */
    double smooth = 1.0;
    for (int n = 0; n < BLEU_MAX_ORDER; n++) {
        if (s->total[n] == 0)
            break;
        if (s->correct[n] == 0) {
            smooth *= 2.0;
            out->precision[n] = 100.0 / (smooth * (double)s->total[n]);
        } else {
            out->precision[n] = 100.0 * (double)s->correct[n] / (double)s->total[n];
        }
    }
    double sum = 0.0;
    for (int n = 0; n < BLEU_MAX_ORDER; n++)
        sum += out->precision[n] == 0.0 ? -9999999999.0 : log(out->precision[n]);
    out->score = out->bp * exp(sum / BLEU_MAX_ORDER);
}

int bleu_corpus(BleuScore *out, const char *const *hyps, size_t n,
                const char *const *const *ref_sets, int n_sets)
{
    memset(out, 0, sizeof *out);
    if ((!hyps && n > 0) || !ref_sets || n_sets < 1)
        return TT_EINVAL;
    const char **refs = malloc(sizeof *refs * (size_t)n_sets);
    if (!refs)
        return TT_ENOMEM;
    Bleu b;
    bleu_init(&b);
    int rc = TT_OK;
    for (size_t i = 0; rc == TT_OK && i < n; i++) {
        for (int k = 0; k < n_sets; k++)
            refs[k] = ref_sets[k] ? ref_sets[k][i] : NULL;
        rc = bleu_add(&b, hyps[i], refs, n_sets);
    }
    if (rc == TT_OK)
        bleu_compute(out, &b.stats);
    bleu_free(&b);
    free(refs);
    return rc;
}

int bleu_signature(char *buf, size_t size, const Bleu *b, const char *version)
{
    char nrefs[16];
    if (b->refs_min != b->refs_max)
        snprintf(nrefs, sizeof nrefs, "var");
    else
        snprintf(nrefs, sizeof nrefs, "%d", b->refs_max);
    return snprintf(buf, size, "nrefs:%s|case:mixed|eff:no|tok:13a|smooth:exp|version:%s",
                    nrefs, version);
}

int bleu_format(char *buf, size_t size, const BleuScore *s)
{
    return bleu_format_signed(buf, size, s, NULL);
}

int bleu_format_signed(char *buf, size_t size, const BleuScore *s, const char *sig)
{
    return snprintf(buf, size,
                    "BLEU%s%s = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %" PRId64
                    " ref_len = %" PRId64 ")",
                    sig ? "|" : "", sig ? sig : "", s->score, s->precision[0], s->precision[1], s->precision[2],
                    s->precision[3], s->bp, s->ratio, s->stats.hyp_len, s->stats.ref_len);
}
