/*
 * phrasebook.c — reading a phrasebook file (phrasebook.h) line by line.
 *
 * The file is read whole and split in place, as the lexicon is: every Phrase points into
 * the one text buffer the Phrasebook owns. Each line is checked completely before the
 * next; a bad line adds its message to a Report and the loop goes on, so one message
 * names every bad line. Only a file without a bad line becomes a phrasebook.
 */
#include "corpus/phrasebook.h"

#include "base/fnv.h"
#include "base/status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

struct Phrasebook {
    char *text;     /* the file, split in place; every string points here; owned */
    Phrase *phrase; /* n entries; owned */
    int n;          /* 1..PHRASEBOOK_MAX_PHRASES */
};

/* ---------------------------------------------------------------------------------------
 * The report of bad lines
 */

typedef struct {
    char *err;     /* the caller's buffer, or NULL */
    size_t errlen; /* its size in bytes */
    size_t used;   /* bytes written, NUL excluded */
    int bad;       /* bad lines so far */
} Report;

static void report_add(Report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Appends one message line (a '\n' before it unless it is the first). */
static void report_add(Report *r, const char *fmt, ...)
{
    if (!r->err || r->errlen == 0 || r->used + 1 >= r->errlen)
        return;
    if (r->used > 0)
        r->err[r->used++] = '\n';
    r->err[r->used] = '\0';
    va_list ap;
    va_start(ap, fmt);
    r->used += tt_verrf(r->err + r->used, r->errlen - r->used, fmt, ap);
    va_end(ap);
}

/* Records bad line `line` starting at offset `at`; only the first PHRASEBOOK_MAX_REPORTED
 * are written out. */
static void report_line(Report *r, const char *path, int line, size_t at, const char *why)
{
    if (r->bad++ < PHRASEBOOK_MAX_REPORTED)
        report_add(r, "%s:%d: byte %zu: %s", path, line, at, why);
}

/* ---------------------------------------------------------------------------------------
 * One line
 */

/* The offset of the first invalid UTF-8 sequence in s[0..n), or n when it is valid. */
static size_t utf8_bad_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        const utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                                    (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0)
            return i;
        i += (size_t)k;
    }
    return n;
}

/* What is wrong with side s (English when english) as a sequence of words, and where
 * (*at, an offset into s); NULL when nothing. */
static const char *side_why(const char *s, int english, size_t *at)
{
    const size_t n = strlen(s);
    *at = 0;
    if (n == 0)
        return english ? "the English is empty (a phrase has 3 fields: phrase, English, "
                         "German)"
                       : "the German is empty (a phrase has 3 fields: phrase, English, "
                         "German)";
    if (n > PHRASEBOOK_TEXT_MAX)
        return english ? "the English is longer than 160 bytes"
                       : "the German is longer than 160 bytes";
    *at = n - 1;
    if (strchr(".!?", s[n - 1]))
        return english ? "the English ends in a punctuation mark (the construction adds "
                         "the final mark)"
                       : "the German ends in a punctuation mark (the construction adds "
                         "the final mark)";
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        *at = i;
        if (c == ' ' && (i == 0 || i + 1 == n || s[i + 1] == ' '))
            return "a space at the start or the end, or two spaces in a row";
        if (english && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ' ' ||
                         c == ',' || c == '\''))
            return "the English has a character other than ASCII letters, spaces, commas "
                   "and apostrophes";
        if (!english && (c < ' ' || c == 0x7f))
            return "the German has a control character";
    }
    *at = 0;
    if (english && !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return "the English does not start with a letter";
    return NULL;
}

/* 1 when s (valid UTF-8) is in NFC, 0 when not, -1 when out of memory. */
static int is_nfc(const char *s)
{
    utf8proc_uint8_t *nfc = utf8proc_NFC((const utf8proc_uint8_t *)s);
    if (!nfc)
        return -1;
    const int same = strcmp((const char *)nfc, s) == 0;
    free(nfc);
    return same;
}

static int count_words(const char *s)
{
    int n = 0, in = 0;
    for (; *s; s++) {
        if (*s == ' ')
            in = 0;
        else if (!in && *s != ',')
            in = 1, n++;
    }
    return n;
}

/* Checks one line, p[0..len) at file offset base, NUL-terminated in place, and on success
 * fills *ph with pointers into it. Returns TT_OK, TT_EINPUT (reported) or TT_ENOMEM. */
static int read_line(Phrase *ph, char *p, size_t len, size_t base, int line, const char *path,
                     Report *r)
{
    const char *cr = memchr(p, '\r', len);
    if (cr) {
        report_line(r, path, line, base + (size_t)(cr - p),
                    "carriage return (the file must have LF line ends)");
        return TT_EINPUT;
    }
    const size_t bad = utf8_bad_at(p, len);
    if (bad < len) {
        report_line(r, path, line, base + bad, "invalid UTF-8");
        return TT_EINPUT;
    }
    char *f[3];
    int nf = 0;
    for (char *q = p;;) {
        if (nf < 3)
            f[nf] = q;
        nf++;
        char *tab = strchr(q, '\t');
        if (!tab)
            break;
        *tab = '\0';
        q = tab + 1;
    }
    if (strcmp(f[0], "phrase") != 0) {
        report_line(r, path, line, base, "unknown kind of entry (a line is 'phrase', a '#' "
                                         "comment or blank)");
        return TT_EINPUT;
    }
    if (nf != 3) {
        char why[96];
        snprintf(why, sizeof why, "a phrase has 3 fields (phrase, English, German), this "
                                  "line has %d", nf);
        report_line(r, path, line, base, why);
        return TT_EINPUT;
    }
    for (int side = 1; side <= 2; side++) {
        size_t at;
        const char *why = side_why(f[side], side == 1, &at);
        if (why) {
            report_line(r, path, line, base + (size_t)(f[side] - p) + at, why);
            return TT_EINPUT;
        }
    }
    if (count_words(f[1]) > PHRASEBOOK_MAX_WORDS) {
        report_line(r, path, line, base + (size_t)(f[1] - p), "the English has more than 12 "
                                                              "words");
        return TT_EINPUT;
    }
    const int nfc = is_nfc(f[2]);
    if (nfc < 0)
        return TT_ENOMEM;
    if (!nfc) {
        report_line(r, path, line, base + (size_t)(f[2] - p), "the German is not in NFC "
                                                              "(compose ä, ö, ü)");
        return TT_EINPUT;
    }
    *ph = (Phrase){.en = f[1], .de = f[2], .question = phrasebook_is_question(f[1]),
                   .line = line};
    return TT_OK;
}

size_t phrasebook_core(char *out, size_t n, const char *en)
{
    static const char *const LONG[][2] = {
        {"don't", "do not"},   {"doesn't", "does not"}, {"isn't", "is not"},
        {"aren't", "are not"}, {"i'm", "i am"},         {"you're", "you are"},
        {"he's", "he is"},     {"she's", "she is"},     {"it's", "it is"},
        {"we're", "we are"},   {"they're", "they are"},
    };
    size_t len = 0;
    if (n == 0)
        return 0;
    const char *p = en;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char word[64];
        size_t k = 0;
        while (*p && *p != ' ') {
            char ch = *p++;
            if (ch >= 'A' && ch <= 'Z')
                ch = (char)(ch - 'A' + 'a');
            if (ch == ',' || ch == '.' || ch == '?' || ch == '!')
                continue;
            if (k + 1 < sizeof word)
                word[k++] = ch;
        }
        word[k] = '\0';
        if (k == 0)
            continue;
        const char *w = word;
        for (size_t i = 0; i < sizeof LONG / sizeof LONG[0]; i++)
            if (strcmp(word, LONG[i][0]) == 0)
                w = LONG[i][1];
        const size_t wl = strlen(w);
        if (len > 0 && len + 1 < n)
            out[len++] = ' ';
        for (size_t i = 0; i < wl && len + 1 < n; i++)
            out[len++] = w[i];
    }
    out[len] = '\0';
    return len;
}

/* The FNV-1a 64 of the core of en (phrasebook_core); the core itself into core[0..n). */
static uint64_t core_key(char *core, size_t n, const char *en)
{
    const size_t len = phrasebook_core(core, n, en);
    return fnv1a64_add(FNV1A64_OFFSET, core, len);
}

/* Reports phrase k when an earlier phrase has its core; key[0..k] are the cores' keys. */
static void check_duplicate(const Phrasebook *b, const uint64_t *key, int k, const char *path,
                            size_t at, Report *r)
{
    char a[2 * PHRASEBOOK_TEXT_MAX + 2], c[2 * PHRASEBOOK_TEXT_MAX + 2];
    for (int i = 0; i < k; i++) {
        if (key[i] != key[k])
            continue;
        core_key(a, sizeof a, b->phrase[k].en);
        core_key(c, sizeof c, b->phrase[i].en);
        if (strcmp(a, c) != 0)
            continue;
        char why[2 * PHRASEBOOK_TEXT_MAX];
        snprintf(why, sizeof why, "the English \"%s\" is line %d's again (compared "
                                  "lower-cased, contractions expanded)",
                 b->phrase[k].en, b->phrase[i].line);
        report_line(r, path, b->phrase[k].line, at, why);
        return;
    }
}

/* ---------------------------------------------------------------------------------------
 * The file
 */

/* Reads path whole into a NUL-terminated buffer (*out, caller frees). */
static int read_file(char **out, size_t *len, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return TT_EIO;
    }
    int rc = TT_OK;
    char *text = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *t = realloc(text, cap);
            if (!t) {
                rc = TT_ENOMEM;
                snprintf(err, errlen, "out of memory reading '%s'", path);
                goto done;
            }
            text = t;
        }
        const size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = TT_EIO;
        snprintf(err, errlen, "error reading '%s': %s", path, strerror(errno));
        goto done;
    }
    text[n] = '\0';
    *out = text;
    *len = n;
    text = NULL;
done:
    free(text);
    fclose(f);
    return rc;
}

int phrasebook_load(Phrasebook **out, const char *path, char *err, size_t errlen)
{
    char scratch[1];
    if (!err || errlen == 0) {
        err = scratch;
        errlen = sizeof scratch;
    }
    err[0] = '\0';
    *out = NULL;
    uint64_t *key = NULL; /* the core keys of b->phrase, for duplicates */
    Phrasebook *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory reading '%s'", path);
        return TT_ENOMEM;
    }
    size_t len = 0;
    int rc = read_file(&b->text, &len, path, err, errlen);
    if (rc != TT_OK)
        goto done;
    /* A byte-order mark is skipped, as in every input file (README). */
    size_t start = len >= 3 && memcmp(b->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    int lines = 0;
    for (size_t i = start; i < len; i++)
        lines += b->text[i] == '\n';
    b->phrase = calloc((size_t)lines + 1, sizeof *b->phrase);
    key = calloc((size_t)lines + 1, sizeof *key);
    if (!b->phrase || !key) {
        rc = TT_ENOMEM;
        snprintf(err, errlen, "out of memory reading '%s'", path);
        goto done;
    }
    Report r = {err, errlen, 0, 0};
    int line = 0;
    for (size_t pos = start; pos < len;) {
        char *p = b->text + pos;
        char *eol = memchr(p, '\n', len - pos);
        const size_t n = eol ? (size_t)(eol - p) : len - pos;
        line++;
        p[n] = '\0';
        const char *nul = memchr(p, '\0', n);
        if (nul) {
            report_line(&r, path, line, pos + (size_t)(nul - p), "a NUL byte");
        } else if (n > 0 && p[0] != '#') {
            if (b->n == PHRASEBOOK_MAX_PHRASES) {
                report_line(&r, path, line, pos, "more than 4096 phrases");
            } else {
                const int lrc = read_line(&b->phrase[b->n], p, n, pos, line, path, &r);
                if (lrc == TT_ENOMEM) {
                    rc = TT_ENOMEM;
                    snprintf(err, errlen, "out of memory reading '%s'", path);
                    goto done;
                }
                if (lrc == TT_OK) {
                    char core[2 * PHRASEBOOK_TEXT_MAX + 2];
                    key[b->n] = core_key(core, sizeof core, b->phrase[b->n].en);
                    check_duplicate(b, key, b->n, path, pos + (size_t)(b->phrase[b->n].en - p),
                                    &r);
                    b->n++;
                }
            }
        }
        pos += n + 1;
    }
    if (r.bad > PHRASEBOOK_MAX_REPORTED)
        report_add(&r, "%s: %d more bad lines", path, r.bad - PHRASEBOOK_MAX_REPORTED);
    if (r.bad == 0 && b->n == 0) {
        snprintf(err, errlen, "%s: no phrase (a line is 'phrase<TAB>English<TAB>German')",
                 path);
        r.bad = 1;
    }
    if (r.bad > 0) {
        rc = TT_EINPUT;
        goto done;
    }
    *out = b;
    b = NULL;
done:
    free(key);
    phrasebook_free(b);
    return rc;
}

void phrasebook_free(Phrasebook *book)
{
    if (!book)
        return;
    free(book->phrase);
    free(book->text);
    free(book);
}

int phrasebook_count(const Phrasebook *book)
{
    return book->n;
}

const Phrase *phrasebook_phrase(const Phrasebook *book, int i)
{
    return i >= 0 && i < book->n ? &book->phrase[i] : NULL;
}

int phrasebook_is_question(const char *en)
{
    static const char *const ASKING[] = {
        "how", "what", "where", "when", "who", "whom", "whose", "why", "which",
        "am", "are", "is", "do", "does", "did", "can", "could", "will", "would",
        "shall", "should", "may", "and",
    };
    char first[16];
    size_t k = 0;
    while (en[k] && en[k] != ' ' && en[k] != ',' && k + 1 < sizeof first) {
        const char c = en[k];
        first[k++] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    if (en[k] && en[k] != ' ' && en[k] != ',')
        return 0; /* longer than any asking word */
    first[k] = '\0';
    for (size_t i = 0; i < sizeof ASKING / sizeof ASKING[0]; i++)
        if (strcmp(first, ASKING[i]) == 0)
            return 1;
    return 0;
}
