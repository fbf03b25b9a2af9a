/*
 * linein.h — reading text line by line with a bound on a line's length.
 *
 * getline holds a whole line in memory before anyone can look at its length: one line
 * of /dev/zero grows until memory runs out. A LineIn stops a line at its bound (max + 1
 * bytes seen without a newline) and says so; the rest of that line is skipped, in
 * constant memory, only when the caller reads on. A stop flag (set by a signal handler)
 * is polled while reading, so Ctrl-C during a long read is noticed at once, and a read
 * the signal interrupted is not taken for an error.
 */
#ifndef TOYTRANS_LINEIN_H
#define TOYTRANS_LINEIN_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

enum {
    LINEIN_END = 1,  /* linein_read: no more lines */
    LINEIN_LONG = 2, /* linein_read: the line has more than max bytes before its newline;
                        line holds its first max + 1 */
};

/* Bytes a LineIn reading a descriptor (linein_init_fd) holds at once. */
#define LINEIN_BUF 65536

typedef struct {
    FILE *f;                           /* read from, or NULL with fd; not owned */
    int fd;                            /* read from with read(2) when f is NULL */
    char *buf;                         /* (LINEIN_BUF) with fd: bytes read, not yet taken;
                                          owned */
    size_t pos, end;                   /* buf[pos..end) are the bytes not yet taken */
    size_t max;                        /* the most bytes a line may have, newline not counted */
    const volatile sig_atomic_t *stop; /* polled while reading; NULL: never */
    char *line;     /* the line read, NUL-terminated, its newline kept (as getline); owned */
    size_t len;     /* bytes in line, the newline included */
    size_t cap;     /* bytes allocated for line */
    long line_no;   /* 1-based number of the line read */
    long start;     /* byte offset of its first byte in the stream */
    long next;      /* byte offset of the next line (after a LINEIN_LONG: not yet known) */
    int skipping;   /* the last line was LINEIN_LONG: its rest is skipped before the next */
} LineIn;

/* Sets in up to read f with lines of at most max bytes (max >= 1), polling stop (NULL:
 * never). Owns nothing yet; free with linein_free. */
void linein_init(LineIn *in, FILE *f, size_t max, const volatile sig_atomic_t *stop);

/* The same for the descriptor fd, read with read(2) into the LineIn's own buffer, so that
 * linein_buffered can tell whether a line is there without waiting (nothing else may
 * read fd meanwhile). */
void linein_init_fd(LineIn *in, int fd, size_t max, const volatile sig_atomic_t *stop);

/* 1 when in (from linein_init_fd) holds bytes it has read and not yet returned. */
int linein_buffered(const LineIn *in);

/* Reads the next line into in->line / in->len. Returns TT_OK, LINEIN_LONG (the first
 * max + 1 bytes are in line; the next call skips the rest), LINEIN_END, TT_EINTR when
 * *stop was set, TT_EIO (errno set) or TT_ENOMEM. Never holds more than max + 2 bytes. */
int linein_read(LineIn *in);

/* Releases the line buffer; in may be read again only after linein_init. Accepts a
 * zeroed in. */
void linein_free(LineIn *in);

#endif
