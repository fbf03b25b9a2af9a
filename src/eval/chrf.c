/*
 * chrf.c — sacreBLEU's chrF: character n-gram precision and recall, combined as an
 * F-score that weighs recall β times as much as precision.
 *
 * Counting: an n-gram of at most 6 code points (each below 2^21) packs exactly into two
 * 64-bit words, so the n-grams of one order are sorted as integer pairs and one merge of
 * the two sorted lists gives every clipped match. Nothing is hashed, so nothing can
 * collide; the scratch buffers grow to the longest sentence and are reused.
 */
#include "eval/chrf.h"

#include "base/mem.h"
#include "base/status.h"
#include "eval/bleu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Code points 0..3 of the n-gram in lo, 4..5 in hi, each in 21 bits; unused slots 0
 * (all n-grams compared share one order, so a 0 slot is never ambiguous). */
struct ChrfKey {
    uint64_t hi, lo;
};

static int key_cmp(const void *pa, const void *pb)
{
    const ChrfKey *a = pa, *b = pb;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->lo < b->lo ? -1 : (a->lo > b->lo);
}

void chrf_init(Chrf *c)
{
    memset(c, 0, sizeof *c);
    c->beta = CHRF_BETA;
}

void chrf_free(Chrf *c)
{
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        free(c->cps[k]);
        free(c->keys[k]);
    }
    memset(c, 0, sizeof *c);
}

/* The code points of text, whitespace left out, into c->cps[side]; *n their count.
 * TT_EINPUT for invalid UTF-8. */
static int code_points(Chrf *c, int side, const char *text, size_t *n)
{
    const size_t len = strlen(text);
    void *p =
        mem_grow(c->cps[side], &c->cps_cap[side], len ? len : 1, sizeof *c->cps[side]);
    if (!p)
        return TT_ENOMEM;
    c->cps[side] = p;
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        const utf8proc_ssize_t step = utf8proc_iterate((const utf8proc_uint8_t *)text + i,
                                                       (utf8proc_ssize_t)(len - i), &cp);
        if (step <= 0)
            return TT_EINPUT;
        i += (size_t)step;
        if (!bleu_is_space(cp))
            c->cps[side][k++] = cp;
    }
    *n = k;
    return TT_OK;
}

/* The sorted n-grams of order n of side's m code points into c->keys[side]; returns
 * their count (0 when m < n). */
static size_t ngrams(Chrf *c, int side, size_t m, int n)
{
    const int32_t *cp = c->cps[side];
    ChrfKey *keys = c->keys[side];
    const size_t count = m >= (size_t)n ? m - (size_t)n + 1 : 0;
    for (size_t i = 0; i < count; i++) {
        ChrfKey k = {0, 0};
        for (int j = 0; j < n; j++) {
            const uint64_t v = (uint64_t)cp[i + (size_t)j] & 0x1FFFFF;
            if (j < 3)
                k.lo |= v << (21 * j);
            else
                k.hi |= v << (21 * (j - 3));
        }
        keys[i] = k;
    }
    qsort(keys, count, sizeof *keys, key_cmp);
    return count;
}

/* The statistics of the hypothesis (side 0, nh code points) against one reference
 * (side 1, nr code points). */
static void segment_stats(Chrf *c, size_t nh, size_t nr, ChrfStats *s)
{
    for (int n = 1; n <= CHRF_CHAR_ORDER; n++) {
        const size_t th = ngrams(c, 0, nh, n), tr = ngrams(c, 1, nr, n);
        const ChrfKey *h = c->keys[0], *r = c->keys[1];
        int64_t match = 0;
        size_t i = 0, j = 0;
        while (i < th && j < tr) {
            const int cmp = key_cmp(&h[i], &r[j]);
            if (cmp < 0) {
                i++;
            } else if (cmp > 0) {
                j++;
            } else {
                size_t ri = i, rj = j;
                while (ri < th && key_cmp(&h[ri], &h[i]) == 0)
                    ri++;
                while (rj < tr && key_cmp(&r[rj], &r[j]) == 0)
                    rj++;
                match += (int64_t)(ri - i < rj - j ? ri - i : rj - j);
                i = ri;
                j = rj;
            }
        }
        /* sacreBLEU counts no hypothesis n-grams of an order the reference lacks. */
        s->hyp[n - 1] = tr ? (int64_t)th : 0;
        s->ref[n - 1] = (int64_t)tr;
        s->match[n - 1] = match;
    }
}

int chrf_add(Chrf *c, const char *hyp, const char *const *refs, int n_refs)
{
    if (!hyp || !refs || n_refs < 1)
        return TT_EINVAL;
    for (int k = 0; k < n_refs; k++)
        if (!refs[k])
            return TT_EINVAL;
    size_t nh;
    int rc = code_points(c, 0, hyp, &nh);
    if (rc != TT_OK)
        return rc;
    ChrfStats best = {{0}, {0}, {0}};
    double best_f = -1.0;
    int used = 0;
    for (int k = 0; k < n_refs; k++) {
        if (refs[k][0] == '\0')
            continue; /* an empty reference is no reference */
        size_t nr;
        if ((rc = code_points(c, 1, refs[k], &nr)) != TT_OK)
            return rc;
        const size_t need = (nh > nr ? nh : nr) + 1;
        for (int side = 0; side < 2; side++) {
            void *p =
                mem_grow(c->keys[side], &c->keys_cap[side], need, sizeof *c->keys[side]);
            if (!p)
                return TT_ENOMEM;
            c->keys[side] = p;
        }
        ChrfStats s;
        segment_stats(c, nh, nr, &s);
        const double f = chrf_compute(c, &s);
        if (f > best_f) {
            best_f = f;
            best = s;
        }
        used++;
    }
    if (used == 0)
        return TT_EINPUT;
    for (int n = 0; n < CHRF_CHAR_ORDER; n++) {
        c->stats.hyp[n] += best.hyp[n];
        c->stats.ref[n] += best.ref[n];
        c->stats.match[n] += best.match[n];
    }
    if (c->sentences == 0 || used < c->refs_min)
        c->refs_min = used;
    if (used > c->refs_max)
        c->refs_max = used;
    c->sentences++;
    return TT_OK;
}

double chrf_compute(const Chrf *c, const ChrfStats *s)
{
    /* The same operations in the same order as sacreBLEU, so that the doubles agree. */
    const double eps = 1e-16, f = (double)c->beta * (double)c->beta;
    double sum = 0.0, avg_p = 0.0, avg_r = 0.0;
    int effective = 0;
    for (int n = 0; n < CHRF_CHAR_ORDER; n++) {
        const double p = s->hyp[n] > 0 ? (double)s->match[n] / (double)s->hyp[n] : eps;
        const double r = s->ref[n] > 0 ? (double)s->match[n] / (double)s->ref[n] : eps;
        const double denom = f * p + r;
        sum += denom > 0 ? (1 + f) * p * r / denom : eps;
        if (s->hyp[n] > 0 && s->ref[n] > 0) {
            avg_p += p;
            avg_r += r;
            effective++;
        }
    }
    if (c->eps_smoothing)
        return 100 * sum / CHRF_CHAR_ORDER;
    if (effective == 0)
        return 0.0;
    avg_p /= effective;
    avg_r /= effective;
    if (avg_p + avg_r == 0.0)
        return 0.0;
    return 100 * ((1 + f) * avg_p * avg_r / ((f * avg_p) + avg_r));
}

int chrf_signature(char *buf, size_t size, const Chrf *c, const char *version)
{
    char nrefs[16];
    if (c->refs_min != c->refs_max)
        snprintf(nrefs, sizeof nrefs, "var");
    else
        snprintf(nrefs, sizeof nrefs, "%d", c->refs_max);
    return snprintf(buf, size, "nrefs:%s|case:mixed|eff:%s|nc:%d|nw:0|space:no|version:%s",
                    nrefs, c->eps_smoothing ? "no" : "yes", CHRF_CHAR_ORDER, version);
}

int chrf_format(char *buf, size_t size, const Chrf *c, const char *sig)
{
    return snprintf(buf, size, "chrF%d%s%s = %.2f", c->beta, sig ? "|" : "", sig ? sig : "",
                    chrf_compute(c, &c->stats));
}
