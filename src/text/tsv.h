/*
 * tsv.h — reading a parallel corpus: one "source<TAB>target" pair per line.
 *
 * A line is valid when it holds exactly one TAB, both sides are non-blank, and it is
 * UTF-8 without NUL bytes. A reader that accepts labels (TsvReader.labels) also takes a
 * line with a third column, a label naming the sentence's construction: one or more of
 * a-z, 0-9 and '-' ("coord-clause"); an empty or otherwise spelled label is a bad line. A trailing CR (CRLF line ends) is dropped, and so is the
 * newline; a last line without a newline is read like any other. Blank lines are
 * skipped. A bad line is reported (file, line, byte offset in the file) and the reader
 * can go on with the next one, so a caller decides whether one bad line stops the run.
 */
#ifndef TOYTRANS_TSV_H
#define TOYTRANS_TSV_H

#include "base/linein.h"
#include "text/tokenizer.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { TSV_END = 1 }; /* tsv_next: no more lines */

typedef struct {
    FILE *f;          /* owned when opened by path */
    int owns_file;
    int labels;       /* nonzero: a third column is allowed (set it after tsv_open) */
    int comments;     /* nonzero: comment lines (tsv_is_comment) are skipped like blank
                         ones (set it after tsv_open) */
    int reverse;      /* nonzero: the pair's source is the line's second column and its
                         target the first, for a model that translates the corpus the
                         other way (German→English; set it after tsv_open) */
    const volatile sig_atomic_t *stop; /* polled while reading: set (by a signal
                         handler), the read ends with TT_EINTR; NULL: never (set it after
                         tsv_open) */
    const char *name; /* for messages; not owned */
    long line_no;     /* of the line last read, 1-based */
    long offset;      /* byte offset of that line's start in the file */
    LineIn in;        /* the lines, at most TSV_MAX_LINE bytes each; the pair points into
                         in.line */
} TsvReader;

/* The longest line a reader takes: a line of TOKENIZER_MAX_BYTES plus a byte-order mark
 * and a CR. A longer one is a bad line, found after its first TSV_MAX_LINE + 1 bytes:
 * a corpus of one endless line (/dev/zero) costs no more. */
#define TSV_MAX_LINE (TOKENIZER_MAX_BYTES + 4)

typedef struct {
    const char *src; /* NUL-terminated, points into the reader's line */
    size_t src_len;
    const char *tgt; /* NUL-terminated, points into the reader's line */
    size_t tgt_len;
    const char *label; /* the third column (NUL-terminated, in the reader's line), or
                          NULL when the line has none */
    size_t label_len;
    long line_no;    /* 1-based */
    int reversed;    /* 1: src is the line's second column (TsvReader.reverse) */
} TsvPair;

/* Whether a line (len bytes, its newline and CR removed, a first line's byte-order mark
 * too) is a comment: its first byte is '#'. The one rule for every file that allows
 * comments: eval's test file and check's case file. */
int tsv_is_comment(const char *line, size_t len);

/* Opens path for reading ("-" reads standard input). Returns TT_OK or TT_EIO (err says
 * why). Close with tsv_close, which accepts a zeroed or closed reader. */
int tsv_open(TsvReader *r, const char *path, char *err, size_t errlen);
void tsv_close(TsvReader *r);

/* Reads the next pair. Returns TT_OK (pair valid until the next call), TSV_END,
 * TT_EINPUT for a malformed line (err: "file:line: … (byte N)"; the next call goes on
 * after it; a line over TSV_MAX_LINE bytes is one), TT_EINTR when r->stop was set,
 * TT_EIO or TT_ENOMEM. */
int tsv_next(TsvReader *r, TsvPair *pair, char *err, size_t errlen);

/* h extended by pair as a corpus checksum counts it: FNV-1a 64 (fnv.h) over the line
 * as the file holds it, "first TAB second LF" (so a reversed reader counts the same
 * checksum as a forward one). Start from FNV1A64_OFFSET; a model's provenance records the result
 * of its corpus's pairs in order. */
uint64_t tsv_pair_fnv1a64(uint64_t h, const TsvPair *pair);

#endif
