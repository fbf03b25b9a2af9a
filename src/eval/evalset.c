/*
 * evalset.c — reading a test set and its reference files into memory.
 *
 * Everything is read and checked first, so that a mismatched reference file is refused
 * before minutes of translation, not after. A test set is small (thousands of lines),
 * so holding it whole costs nothing worth saving.
 */
#include "eval/evalset.h"

#include "base/linein.h"
#include "base/status.h"
#include "text/tokenizer.h"
#include "text/tsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void evalset_free(EvalSet *s)
{
    if (!s)
        return;
    if (s->ref_lines) {
        const size_t total = (size_t)s->ref_files * (size_t)s->lines;
        for (size_t i = 0; i < total; i++)
            free(s->ref_lines[i]);
    }
    free(s->ref_lines);
    free(s->refs);
    for (size_t i = 0; s->tgt && i < s->n; i++) {
        free(s->tgt[i]);
        free(s->src[i]);
    }
    for (long i = 0; s->hyp && i < s->lines; i++)
        free(s->hyp[i]);
    free(s->hyp);
    for (size_t i = 0; i < s->n_labels; i++)
        free(s->labels[i]);
    free(s->labels);
    free(s->label_of);
    free(s->line_no);
    free(s->tgt);
    free(s->src);
    memset(s, 0, sizeof *s);
}

static char *dup_n(const char *text, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, text, len);
        p[len] = '\0';
    }
    return p;
}

/* Sets *index to label's place in s->labels, adding it (copied) if it is new. A test
 * set has a handful of constructions, so a linear search is enough. */
static int find_label(EvalSet *s, const char *label, int *index)
{
    for (size_t i = 0; i < s->n_labels; i++)
        if (strcmp(s->labels[i], label) == 0) {
            *index = (int)i;
            return TT_OK;
        }
    char **labels = realloc(s->labels, (s->n_labels + 1) * sizeof *labels);
    if (!labels)
        return TT_ENOMEM;
    s->labels = labels;
    if (!(labels[s->n_labels] = dup_n(label, strlen(label))))
        return TT_ENOMEM;
    *index = (int)s->n_labels++;
    return TT_OK;
}

/* Appends a pair (copied). */
static int add_pair(EvalSet *s, const TsvPair *pair)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 256;
        char **src = realloc(s->src, cap * sizeof *src);
        if (!src)
            return TT_ENOMEM;
        s->src = src;
        char **tgt = realloc(s->tgt, cap * sizeof *tgt);
        if (!tgt)
            return TT_ENOMEM;
        s->tgt = tgt;
        long *line_no = realloc(s->line_no, cap * sizeof *line_no);
        if (!line_no)
            return TT_ENOMEM;
        s->line_no = line_no;
        int *label_of = realloc(s->label_of, cap * sizeof *label_of);
        if (!label_of)
            return TT_ENOMEM;
        s->label_of = label_of;
        s->cap = cap;
    }
    int label = -1;
    if (pair->label) {
        int rc = find_label(s, pair->label, &label);
        if (rc != TT_OK)
            return rc;
    }
    char *src = dup_n(pair->src, pair->src_len), *tgt = dup_n(pair->tgt, pair->tgt_len);
    if (!src || !tgt) {
        free(tgt);
        free(src);
        return TT_ENOMEM;
    }
    s->src[s->n] = src;
    s->tgt[s->n] = tgt;
    s->line_no[s->n] = pair->line_no;
    s->label_of[s->n] = label;
    s->n++;
    return TT_OK;
}

static int read_tsv(EvalSet *s, const char *path, int skip_bad, FILE *report, char *err,
                    size_t errlen)
{
    TsvReader r;
    int rc = tsv_open(&r, path, err, errlen);
    if (rc != TT_OK)
        return rc;
    r.labels = 1;
    r.comments = 1;
    TsvPair pair;
    for (;;) {
        rc = tsv_next(&r, &pair, err, errlen);
        if (rc == TSV_END) {
            rc = TT_OK;
            break;
        }
        if (rc == TT_EINPUT && skip_bad) {
            if (report)
                fprintf(report, "%s\n", err);
            s->bad_lines++;
            continue;
        }
        if (rc == TT_OK)
            rc = add_pair(s, &pair);
        if (rc != TT_OK)
            break;
    }
    s->lines = r.line_no;
    if (rc == TT_ENOMEM)
        snprintf(err, errlen, "%s", status_message(rc));
    tsv_close(&r);
    return rc;
}

/* Reads the lines of path ("-": standard input), each checked to be UTF-8, into *lines:
 * with limit >= 0 into the limit slots it has (later lines only counted), with limit < 0
 * into an array grown as needed (*cap its slots; cap not NULL then). *count is the number
 * of lines. */
static int read_lines(const char *path, char ***lines, size_t *cap, long limit, long *count,
                      char *err, size_t errlen)
{
    const int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return TT_EIO;
    }
    LineIn in;
    linein_init(&in, f, TSV_MAX_LINE, NULL);
    long no = 0;
    int rc = TT_OK, lr;
    while (rc == TT_OK && (lr = linein_read(&in)) != LINEIN_END) {
        no = in.line_no;
        if (lr == LINEIN_LONG) {
            snprintf(err, errlen, "%s:%ld: more than the %d bytes a line may have (byte %ld)",
                     path, no, TOKENIZER_MAX_BYTES, in.start);
            rc = TT_EINPUT;
            break;
        }
        if (lr != TT_OK) {
            snprintf(err, errlen, "%s: read error after line %ld: %s", path, no,
                     lr == TT_EIO && errno ? strerror(errno) : status_message(lr));
            rc = lr;
            break;
        }
        char *line = in.line;
        const size_t len = in.len;
        long start = in.start;
        size_t n = len;
        if (no == 1) { /* a byte-order mark: skipped, and counted in offsets */
            n = tokenizer_strip_bom(line, n);
            start += (long)(len - n);
        }
        if (n > 0 && line[n - 1] == '\n')
            n--;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        TokError te;
        /* The line limit every reader keeps: scoring a line costs memory in proportion
         * to it (its tokens' n-grams, chrF's character n-grams). */
        if (n > TOKENIZER_MAX_BYTES) {
            snprintf(err, errlen, "%s:%ld: more than the %d bytes a line may have (byte %ld)",
                     path, no, TOKENIZER_MAX_BYTES, start);
            rc = TT_EINPUT;
            break;
        }
        if (tokenizer_validate(line, n, &te) != TT_OK) {
            snprintf(err, errlen, "%s:%ld: %s (byte %ld of the file)", path, no, te.message,
                     start + (long)te.offset);
            rc = TT_EINPUT;
            break;
        }
        if (limit < 0 && cap && (size_t)no > *cap) {
            const size_t grown = *cap ? 2 * *cap : 256;
            char **more = realloc(*lines, grown * sizeof *more);
            if (!more) {
                rc = TT_ENOMEM;
                break;
            }
            memset(more + *cap, 0, (grown - *cap) * sizeof *more);
            *lines = more;
            *cap = grown;
        }
        if ((limit < 0 || no <= limit) && !((*lines)[no - 1] = dup_n(line, n)))
            rc = TT_ENOMEM;
        /* More lines than there are slots: keep counting, to say how many. */
    }
    if (rc == TT_ENOMEM)
        snprintf(err, errlen, "%s", status_message(rc));
    /* Grown: never more than the slots, which are NULL where nothing was stored. */
    *count = limit < 0 && cap && (size_t)no > *cap ? (long)*cap : no;
    linein_free(&in);
    if (!from_stdin)
        fclose(f);
    return rc;
}

/* Reads reference file k into its row of s->ref_lines, checking that it has one line
 * for each of the s->lines lines of what_path (the file it belongs to). */
static int read_refs(EvalSet *s, int k, const char *path, const char *what_path, char *err,
                     size_t errlen)
{
    char **row = s->ref_lines + (size_t)k * (size_t)s->lines;
    long no = 0;
    int rc = read_lines(path, &row, NULL, s->lines, &no, err, errlen);
    if (rc == TT_OK && no != s->lines) {
        snprintf(err, errlen, "%s has %ld line%s but %s has %ld: a reference file needs one "
                              "line for each line of %s",
                 path, no, no == 1 ? "" : "s", what_path, s->lines, what_path);
        rc = TT_EINPUT;
    }
    return rc;
}

int evalset_load(EvalSet *s, const char *tsv_path, const char *const *ref_paths,
                 int n_ref_files, int skip_bad, FILE *report, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (n_ref_files < 0 || (n_ref_files > 0 && !ref_paths))
        return TT_EINVAL;
    s->n_refs = 1 + n_ref_files;
    s->ref_files = n_ref_files;
    int rc = read_tsv(s, tsv_path, skip_bad, report, err, errlen);
    if (rc == TT_OK && n_ref_files > 0) {
        s->ref_lines = calloc((size_t)n_ref_files * (size_t)(s->lines ? s->lines : 1),
                              sizeof *s->ref_lines);
        if (!s->ref_lines) {
            snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
            rc = TT_ENOMEM;
        }
    }
    for (int k = 0; rc == TT_OK && k < n_ref_files; k++)
        rc = read_refs(s, k, ref_paths[k], tsv_path, err, errlen);
    if (rc == TT_OK) {
        s->refs = malloc(sizeof *s->refs * (s->n ? s->n : 1) * (size_t)s->n_refs);
        if (!s->refs) {
            snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
            rc = TT_ENOMEM;
        }
    }
    if (rc != TT_OK) {
        evalset_free(s);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++) {
        const char **refs = s->refs + i * (size_t)s->n_refs;
        refs[0] = s->tgt[i];
        for (int k = 0; k < n_ref_files; k++)
            refs[1 + k] = s->ref_lines[(size_t)k * (size_t)s->lines + (size_t)(s->line_no[i] - 1)];
    }
    return TT_OK;
}

int evalset_load_hyp(EvalSet *s, const char *hyp_path, const char *const *ref_paths,
                     int n_ref_files, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (n_ref_files < 1 || !ref_paths)
        return TT_EINVAL;
    s->n_refs = n_ref_files;
    s->ref_files = n_ref_files;
    size_t cap = 0;
    int rc = read_lines(hyp_path, &s->hyp, &cap, -1, &s->lines, err, errlen);
    if (rc == TT_OK) {
        s->n = (size_t)s->lines;
        const size_t rows = s->n ? s->n : 1;
        s->ref_lines = calloc((size_t)n_ref_files * rows, sizeof *s->ref_lines);
        s->refs = malloc(sizeof *s->refs * rows * (size_t)n_ref_files);
        s->line_no = malloc(sizeof *s->line_no * rows);
        if (!s->ref_lines || !s->refs || !s->line_no) {
            snprintf(err, errlen, "%s", status_message(TT_ENOMEM));
            rc = TT_ENOMEM;
        }
    }
    for (int k = 0; rc == TT_OK && k < n_ref_files; k++)
        rc = read_refs(s, k, ref_paths[k], hyp_path, err, errlen);
    if (rc != TT_OK) {
        evalset_free(s);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++) {
        s->line_no[i] = (long)i + 1;
        for (int k = 0; k < n_ref_files; k++)
            s->refs[i * (size_t)n_ref_files + (size_t)k] = s->ref_lines[(size_t)k * s->n + i];
    }
    return TT_OK;
}

void evalset_reverse(EvalSet *s)
{
    for (size_t i = 0; i < s->n; i++) {
        char *first = s->src[i];
        s->src[i] = s->tgt[i];
        s->tgt[i] = first;
        if (s->refs)
            s->refs[i * (size_t)s->n_refs] = s->tgt[i];
    }
}
