/*
 * linein.c — bounded line reading (see linein.h).
 *
 * Byte by byte, through getc or from the LineIn's own buffer: a corpus of a few megabytes
 * reads in milliseconds, and the bound and the stop flag are checked where the bytes
 * arrive.
 */
#include "base/linein.h"

#include "base/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes read between two looks at the stop flag inside one line. */
#define LINEIN_POLL 65536

void linein_init(LineIn *in, FILE *f, size_t max, const volatile sig_atomic_t *stop)
{
    memset(in, 0, sizeof *in);
    in->f = f;
    in->fd = -1;
    in->max = max;
    in->stop = stop;
}

void linein_init_fd(LineIn *in, int fd, size_t max, const volatile sig_atomic_t *stop)
{
    linein_init(in, NULL, max, stop);
    in->fd = fd;
}

int linein_buffered(const LineIn *in)
{
    return in->pos < in->end;
}

void linein_free(LineIn *in)
{
    if (!in)
        return;
    free(in->line);
    free(in->buf);
    in->line = in->buf = NULL;
    in->cap = in->len = in->pos = in->end = 0;
}

static int stopped(const LineIn *in)
{
    return in->stop && *in->stop;
}

/* The next byte, or EOF at the end or on an error. A read that a signal interrupted is
 * tried again unless the stop flag is set (then *rc is TT_EINTR). */
static int next_byte(LineIn *in, int *rc)
{
    if (!in->f) {
        while (in->pos == in->end) {
            if (!in->buf && !(in->buf = malloc(LINEIN_BUF))) {
                *rc = TT_ENOMEM;
                return EOF;
            }
            const ssize_t n = read(in->fd, in->buf, LINEIN_BUF);
            if (n == 0)
                return EOF;
            if (n > 0) {
                in->pos = 0;
                in->end = (size_t)n;
            } else if (errno != EINTR) {
                *rc = TT_EIO;
                return EOF;
            } else if (stopped(in)) {
                *rc = TT_EINTR;
                return EOF;
            }
        }
        return (unsigned char)in->buf[in->pos++];
    }
    for (;;) {
        errno = 0;
        const int c = getc_unlocked(in->f);
        if (c != EOF || !ferror(in->f))
            return c;
        if (errno != EINTR) {
            *rc = TT_EIO;
            return EOF;
        }
        if (stopped(in)) {
            *rc = TT_EINTR;
            return EOF;
        }
        clearerr(in->f);
    }
}

/* Skips the rest of a line found too long, up to and with its newline. */
static int skip_rest(LineIn *in)
{
    int rc = TT_OK, c;
    size_t n = 0;
    while ((c = next_byte(in, &rc)) != EOF) {
        in->next++;
        if (c == '\n')
            break;
        if (++n % LINEIN_POLL == 0 && stopped(in))
            return TT_EINTR;
    }
    in->skipping = 0;
    return rc;
}

int linein_read(LineIn *in)
{
    if (stopped(in))
        return TT_EINTR;
    int rc = TT_OK;
    if (in->skipping && (rc = skip_rest(in)) != TT_OK)
        return rc;
    if (!in->line || in->cap < 2) {
        const size_t first = in->max + 2 < 256 ? in->max + 2 : 256;
        char *buf = realloc(in->line, first);
        if (!buf)
            return TT_ENOMEM;
        in->line = buf;
        in->cap = first;
    }
    in->len = 0;
    in->start = in->next;
    int c;
    while ((c = next_byte(in, &rc)) != EOF) {
        if (in->len + 2 > in->cap) { /* room for this byte and the NUL */
            size_t cap = in->cap * 2;
            if (cap > in->max + 2)
                cap = in->max + 2;
            char *buf = realloc(in->line, cap);
            if (!buf)
                return TT_ENOMEM;
            in->line = buf;
            in->cap = cap;
        }
        in->line[in->len++] = (char)c;
        if (c == '\n')
            break;
        if (in->len > in->max) { /* max + 1 bytes and no newline yet */
            in->line[in->len] = '\0';
            in->line_no++;
            in->skipping = 1;
            in->next += (long)in->len;
            return LINEIN_LONG;
        }
        if (in->len % LINEIN_POLL == 0 && stopped(in))
            return TT_EINTR;
    }
    if (rc != TT_OK)
        return rc;
    if (in->len == 0)
        return LINEIN_END;
    in->line[in->len] = '\0';
    in->line_no++;
    in->next += (long)in->len;
    return TT_OK;
}
