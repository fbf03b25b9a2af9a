/*
 * tsv.c — the line reader behind `vocab`, training and evaluation.
 */
#include "text/tsv.h"

#include "base/fnv.h"
#include "base/status.h"
#include "text/tokenizer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int tsv_open(TsvReader *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (strcmp(path, "-") == 0) {
        r->f = stdin;
        r->name = "<stdin>";
    } else if (!(r->f = fopen(path, "rb"))) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return TT_EIO;
    } else {
        r->owns_file = 1;
        r->name = path;
    }
    linein_init(&r->in, r->f, TSV_MAX_LINE, NULL);
    return TT_OK;
}

void tsv_close(TsvReader *r)
{
    if (!r)
        return;
    if (r->owns_file && r->f)
        fclose(r->f);
    linein_free(&r->in);
    memset(r, 0, sizeof *r);
}

int tsv_is_comment(const char *line, size_t len)
{
    return len > 0 && line[0] == '#';
}

static int is_blank_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

int tsv_next(TsvReader *r, TsvPair *pair, char *err, size_t errlen)
{
    for (;;) {
        r->in.stop = r->stop;
        int rc = linein_read(&r->in);
        if (rc == LINEIN_END)
            return TSV_END;
        if (rc == TT_EINTR) {
            snprintf(err, errlen, "%s: reading stopped after line %ld (interrupted)", r->name,
                     r->in.line_no);
            return rc;
        }
        if (rc == TT_EIO || rc == TT_ENOMEM) {
            snprintf(err, errlen, "%s: read error after line %ld: %s", r->name, r->in.line_no,
                     rc == TT_EIO && errno ? strerror(errno) : status_message(rc));
            return rc;
        }
        r->line_no = r->in.line_no;
        r->offset = r->in.start;
        if (rc == LINEIN_LONG) {
            snprintf(err, errlen, "%s:%ld: more than the %d bytes a line may have (byte %ld)",
                     r->name, r->line_no, TOKENIZER_MAX_BYTES, r->offset);
            return TT_EINPUT;
        }
        char *line = r->in.line;
        const size_t len = r->in.len;
        size_t n = len;
        if (r->line_no == 1) { /* a byte-order mark: skipped, and counted in offsets */
            n = tokenizer_strip_bom(line, n);
            r->offset += (long)(len - n);
        }
        if (n > 0 && line[n - 1] == '\n')
            n--;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        line[n] = '\0';
        if (is_blank_text(line, n) || (r->comments && tsv_is_comment(line, n)))
            continue;

        TokError te;
        if (tokenizer_validate(line, n, &te) != TT_OK) {
            snprintf(err, errlen, "%s:%ld: %s (byte %ld of the file)", r->name, r->line_no,
                     te.message, r->offset + (long)te.offset);
            return TT_EINPUT;
        }
        char *tab = memchr(line, '\t', n);
        if (!tab) {
            snprintf(err, errlen, "%s:%ld: no TAB between source and target (byte %ld)",
                     r->name, r->line_no, r->offset);
            return TT_EINPUT;
        }
        char *second = memchr(tab + 1, '\t', n - (size_t)(tab + 1 - line));
        char *third = second && r->labels
                          ? memchr(second + 1, '\t', n - (size_t)(second + 1 - line))
                          : NULL;
        if (second && (!r->labels || third)) {
            char *extra = r->labels ? third : second;
            snprintf(err, errlen, "%s:%ld: more than %s TAB%s (byte %ld)", r->name, r->line_no,
                     r->labels ? "two" : "one", r->labels ? "s" : "",
                     r->offset + (long)(extra - line));
            return TT_EINPUT;
        }
        pair->label = NULL;
        pair->label_len = 0;
        if (second) {
            pair->label = second + 1;
            pair->label_len = n - (size_t)(second + 1 - line);
            const long at = r->offset + (long)(second + 1 - line);
            if (pair->label_len == 0) {
                snprintf(err, errlen, "%s:%ld: empty construction label in the third column "
                                      "(byte %ld)", r->name, r->line_no, at);
                return TT_EINPUT;
            }
            for (size_t i = 0; i < pair->label_len; i++) {
                const char c = pair->label[i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                    snprintf(err, errlen, "%s:%ld: construction label in the third column may "
                                          "only hold a-z, 0-9 and '-' (byte %ld)",
                             r->name, r->line_no, at + (long)i);
                    return TT_EINPUT;
                }
            }
            *second = '\0';
            n = (size_t)(second - line);
        }
        *tab = '\0';
        pair->src = line;
        pair->src_len = (size_t)(tab - line);
        pair->tgt = tab + 1;
        pair->tgt_len = n - pair->src_len - 1;
        pair->line_no = r->line_no;
        if (is_blank_text(pair->src, pair->src_len) || is_blank_text(pair->tgt, pair->tgt_len)) {
            snprintf(err, errlen, "%s:%ld: empty %s side (byte %ld)", r->name, r->line_no,
                     is_blank_text(pair->src, pair->src_len) ? "source" : "target",
                     r->offset + (is_blank_text(pair->src, pair->src_len) ? 0L : (long)(tab - line) + 1));
            return TT_EINPUT;
        }
        pair->reversed = r->reverse != 0;
        if (pair->reversed) {
            const char *first = pair->src;
            const size_t first_len = pair->src_len;
            pair->src = pair->tgt;
            pair->src_len = pair->tgt_len;
            pair->tgt = first;
            pair->tgt_len = first_len;
        }
        return TT_OK;
    }
}

uint64_t tsv_pair_fnv1a64(uint64_t h, const TsvPair *pair)
{
    const char *first = pair->reversed ? pair->tgt : pair->src;
    const char *second = pair->reversed ? pair->src : pair->tgt;
    h = fnv1a64_add(h, first, pair->reversed ? pair->tgt_len : pair->src_len);
    h = fnv1a64_add(h, "\t", 1);
    h = fnv1a64_add(h, second, pair->reversed ? pair->src_len : pair->tgt_len);
    return fnv1a64_add(h, "\n", 1);
}
