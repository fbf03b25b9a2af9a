/*
 * check.c — running regression cases and comparing with a golden file.
 */
#include "eval/check.h"

#include "base/json.h"
#include "base/linein.h"
#include "base/outfile.h"
#include "base/status.h"
#include "text/tokenizer.h"
#include "text/tsv.h"
#include "translate/translator.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The lines of a file, read whole. */
typedef struct {
    char **line;
    size_t *len;
    long n, cap;
} Lines;

static void lines_free(Lines *l)
{
    for (long i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    free(l->len);
    memset(l, 0, sizeof *l);
}

/* The longest line of a case file (source, expected and prefix, each at most the line
 * limit) and of a golden file (one JSON object: every step's attention, so it grows with
 * the sentence); longer lines are refused after the bound, not read whole. */
#define CHECK_MAX_CASE_LINE (3 * (TOKENIZER_MAX_BYTES + 1) + 4)
#define CHECK_MAX_GOLDEN_LINE (64L << 20)

/* Reads the lines of path, each at most max bytes, into l. */
static int lines_read(Lines *l, const char *path, size_t max, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return TT_EIO;
    }
    LineIn in;
    linein_init(&in, f, max, NULL);
    int rc;
    while ((rc = linein_read(&in)) == TT_OK) {
        char *buf = in.line;
        size_t n = in.len;
        if (l->n == 0)
            n = tokenizer_strip_bom(buf, n); /* a byte-order mark */
        if (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        if (l->n == l->cap) {
            long c = l->cap ? l->cap * 2 : 64;
            char **nl = realloc(l->line, sizeof(char *) * (size_t)c);
            size_t *nn = nl ? realloc(l->len, sizeof(size_t) * (size_t)c) : NULL;
            if (nl)
                l->line = nl;
            if (!nl || !nn) {
                rc = TT_ENOMEM;
                break;
            }
            l->len = nn;
            l->cap = c;
        }
        if (!(l->line[l->n] = malloc(n + 1))) {
            rc = TT_ENOMEM;
            break;
        }
        memcpy(l->line[l->n], buf, n + 1);
        l->len[l->n++] = n;
    }
    if (rc == LINEIN_LONG) {
        snprintf(err, errlen, "%s:%ld: more than the %zu bytes a line may have", path,
                 in.line_no, max);
        rc = TT_EINPUT;
    } else if (rc == TT_EIO) {
        snprintf(err, errlen, "cannot read %s after line %ld: %s", path, l->n,
                 errno ? strerror(errno) : "unknown error");
    } else if (rc == LINEIN_END) {
        rc = TT_OK;
    }
    linein_free(&in);
    fclose(f);
    if (rc != TT_OK)
        lines_free(l);
    if (rc == TT_ENOMEM)
        snprintf(err, errlen, "%s: %s", path, status_message(rc));
    return rc;
}

/* The 1-based index of the first word where got and want differ, and the two words. */
static int first_difference(const char *got, const char *want, char *gw, char *ww, size_t n)
{
    int word = 1;
    const char *g = got, *w = want;
    for (;;) {
        size_t lg = strcspn(g, " "), lw = strcspn(w, " ");
        if (lg != lw || memcmp(g, w, lg) != 0) {
            snprintf(gw, n, "%.*s", (int)lg, g);
            snprintf(ww, n, "%.*s", (int)lw, w);
            return word;
        }
        if (!g[lg] || !w[lw]) {
            snprintf(gw, n, "%s", g[lg] ? g + lg + 1 : "(end)");
            snprintf(ww, n, "%s", w[lw] ? w + lw + 1 : "(end)");
            return word + 1;
        }
        g += lg + 1;
        w += lw + 1;
        word++;
    }
}

/* Splits a case line in place into 2 or 3 TAB-separated fields. */
static int split_case(char *line, char **fields)
{
    int n = 0;
    fields[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == '\t') {
            if (n == 3)
                return -1;
            *p = '\0';
            fields[n++] = p + 1;
        }
    return n;
}

/* One line of cases, split. */
typedef struct {
    int skip;       /* blank or a comment */
    int valid;      /* valid UTF-8 (te says where not) */
    TokError te;
    char *f[3];     /* source, expected, prefix: views into the line */
    int nf;         /* fields split_case found, or -1 */
} CheckCase;

int check_run(const Model *m, const char *path, const char *golden, int update, double tol,
              int batch, Pool *pool, FILE *out, CheckSummary *sum, char *err, size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    Lines cases, gold = {0};
    int rc = lines_read(&cases, path, CHECK_MAX_CASE_LINE, err, errlen);
    if (rc != TT_OK)
        return rc;
    if (golden && !update && (rc = lines_read(&gold, golden, CHECK_MAX_GOLDEN_LINE, err, errlen)) != TT_OK) {
        lines_free(&cases);
        return rc;
    }
    char *json = NULL;
    size_t json_len = 0;
    FILE *mem = NULL;
    OutFile upd = {0}; /* the new golden file, renamed over the old one only when whole */
    if (golden && update && (rc = outfile_open(&upd, golden, err, errlen)) != TT_OK) {
        lines_free(&cases);
        return rc;
    }
    /* The cases split first (split_case writes NULs into the lines), so that the ones
     * without a prefix can be decoded ahead in batches by one shared translator. */
    CheckCase *cs = calloc((size_t)(cases.n ? cases.n : 1), sizeof *cs);
    Translator plain = {0};
    int have_plain = 0;
    const char **texts = NULL;
    size_t *lens = NULL;
    if (!cs) {
        rc = TT_ENOMEM;
        snprintf(err, errlen, "%s", status_message(rc));
    }
    for (long i = 0; rc == TT_OK && i < cases.n; i++) {
        CheckCase *cc = &cs[i];
        char *line = cases.line[i];
        size_t n = cases.len[i];
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        cc->skip = n == 0 || tsv_is_comment(line, n);
        if (cc->skip)
            continue;
        cc->valid = tokenizer_validate(line, n, &cc->te) == TT_OK; /* before the split */
        cc->nf = split_case(line, cc->f);
    }
    if (rc == TT_OK && batch > 1) {
        TranslatorOptions o = translator_options_default(); /* greedy, no prefix */
        o.rollout = golden != NULL;
        char why[512];
        have_plain = translator_init(&plain, m, &o, why, sizeof why) == TT_OK &&
                     translator_set_batch(&plain, batch, pool) == TT_OK;
        const size_t cap = have_plain ? (size_t)translator_ahead_capacity(&plain) : 0;
        texts = cap ? malloc(sizeof *texts * cap) : NULL;
        lens = cap ? malloc(sizeof *lens * cap) : NULL;
        if (!texts || !lens)
            have_plain = 0; /* then every case alone: the same results */
    }
    /* The cases decoded one at a time (a prefix, or --batch 1) share one translator,
     * its prefix set for each: a translator per case cost each a copy of the weights. */
    Translator own = {0};
    int have_own = 0;
    long next_plain = 0; /* the first case not yet decoded ahead */
    long k = 0; /* cases seen: the index into the golden file */
    for (long i = 0; rc == TT_OK && i < cases.n; i++) {
        CheckCase *cc = &cs[i];
        if (cc->skip)
            continue;
        char **f = cc->f;
        const int nf = cc->nf;
        if (!cc->valid || nf < 2 || !*f[0] || !*f[1]) {
            fprintf(out, "FAIL  %s:%ld: malformed: %s\n", path, i + 1,
                    !cc->valid ? cc->te.message
                    : nf < 2  ? "expected 'source TAB translation [TAB prefix]'"
                              : "an empty field");
            sum->failed++;
            sum->malformed++;
            continue;
        }
        const int use_plain = have_plain && nf == 2;
        if (use_plain && next_plain <= i) {
            /* The next block of prefix-less cases, this one first. */
            int n = 0;
            const int cap = translator_ahead_capacity(&plain);
            for (long j = i; j < cases.n && n < cap; j++) {
                const CheckCase *d = &cs[j];
                if (!d->skip && d->valid && d->nf == 2 && *d->f[0] && *d->f[1]) {
                    texts[n] = d->f[0];
                    lens[n++] = strlen(d->f[0]);
                }
                next_plain = j + 1;
            }
            (void)translator_decode_ahead(&plain, texts, lens, n);
        }
        Translator *tr = use_plain ? &plain : &own;
        TranslatorResult r;
        char why[512];
        int trc = TT_OK;
        if (!use_plain && !have_own) {
            TranslatorOptions o = translator_options_default(); /* greedy, no prefix */
            o.rollout = golden != NULL; /* the golden JSON holds coverage_rollout */
            trc = translator_init(&own, m, &o, why, sizeof why);
            have_own = trc == TT_OK;
        }
        if (trc == TT_OK && !use_plain)
            trc = translator_set_prefix(&own, nf == 3 ? f[2] : NULL, why, sizeof why);
        if (trc == TT_OK)
            trc = translator_run(tr, f[0], strlen(f[0]), &r, why, sizeof why);
        if (trc == TT_ENOMEM) {
            rc = trc;
            snprintf(err, errlen, "%s", status_message(rc));
            break;
        }
        if (trc != TT_OK) {
            fprintf(out, "FAIL  %s:%ld: %s: %s\n", path, i + 1, f[0], why);
            sum->failed++;
            k++;
            continue;
        }
        int ok = strcmp(r.text, f[1]) == 0;
        char moved[1024] = "";
        if (golden) {
            free(json); /* the previous case's text */
            json = NULL;
            mem = open_memstream(&json, &json_len);
            if (!mem || translator_write_json(mem, &r, f[0], strlen(f[0])) != TT_OK ||
                fclose(mem) != 0) {
                mem = NULL;
                rc = TT_ENOMEM;
                snprintf(err, errlen, "%s", status_message(rc));
                break;
            }
            mem = NULL;
            if (upd.f) {
                fwrite(json, 1, json_len, upd.f);
            } else if (k >= gold.n) {
                snprintf(moved, sizeof moved, "no golden line for this case (%s has %ld)",
                         golden, gold.n);
            } else {
                /* json ends with a newline; the golden line was read without one. */
                int c = json_compare(json, json_len - 1, gold.line[k], gold.len[k], tol, why,
                                     sizeof why);
                if (c != 0)
                    snprintf(moved, sizeof moved, "%s line %ld: %s", golden, k + 1,
                             c < 0 ? "not JSON written by toytrans" : why);
            }
        }
        if (ok && !moved[0]) {
            fprintf(out, "PASS  %s:%ld: %s → %s\n", path, i + 1, f[0], r.text);
            sum->passed++;
        } else {
            fprintf(out, "FAIL  %s:%ld: %s\n", path, i + 1, f[0]);
            if (!ok) {
                char gw[128], ww[128];
                int word = first_difference(r.text, f[1], gw, ww, sizeof gw);
                fprintf(out, "      expected: %s\n      got:      %s\n"
                             "      first difference at word %d: '%s' where '%s' was expected\n",
                        f[1], r.text, word, gw, ww);
            }
            if (moved[0])
                fprintf(out, "      numbers moved: %s\n", moved);
            sum->failed++;
        }
        k++;
    }
    translator_free(&own);
    translator_free(&plain);
    free(lens);
    free(texts);
    free(cs);
    if (rc == TT_OK && golden && !update && gold.n > k) {
        fprintf(out, "FAIL  %s has %ld lines for %ld cases\n", golden, gold.n, k);
        sum->failed++;
    }
    free(json);
    if (upd.f) {
        if (rc != TT_OK)
            outfile_abort(&upd);
        else
            rc = outfile_commit(&upd, err, errlen);
    }
    lines_free(&gold);
    lines_free(&cases);
    return rc;
}
