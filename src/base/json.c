/*
 * json.c — the streaming JSON writer.
 *
 * Every value goes through value_begin, which checks that a value may stand here and
 * writes the comma it needs; containers push and pop one level of is_object/has_items.
 * A check that fails goes through misuse(), which records TT_EINVAL and asserts; once
 * error is set every call returns before writing, so the output stays a prefix of a
 * valid document.
 *
 * utf8proc_iterate decodes strings. It says only that a sequence is invalid, not how
 * far it reaches, so replacement_span looks at the bytes to find the maximal subpart
 * (Unicode Table 3-7) that one U+FFFD replaces.
 */
#include "base/json.h"

#include "base/status.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

void json_init(JsonWriter *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->assert_on_misuse = 1;
}

/* Records the first misuse; returns 0 so checks read `if (!ok) return misuse(...)`. */
static int misuse(JsonWriter *w, const char *what)
{
    if (w->error == TT_OK) {
        w->error = TT_EINVAL;
        w->misuse = what;
    }
    if (w->assert_on_misuse)
        assert(!"JsonWriter misuse; w->misuse names it");
    return 0;
}

/* Low-level output; a short write makes the writer stop with TT_EIO. */
static void put_bytes(JsonWriter *w, const char *s, size_t n)
{
    if (w->error == TT_OK && n > 0 && fwrite(s, 1, n, w->out) != n)
        w->error = TT_EIO;
}

static void put_char(JsonWriter *w, char c)
{
    if (w->error == TT_OK && fputc((unsigned char)c, w->out) == EOF)
        w->error = TT_EIO;
}

/* Checks that a value may be written now and writes the comma before it. Returns 1 when
 * the caller should write the value, 0 after an error. */
static int value_begin(JsonWriter *w)
{
    if (w->error != TT_OK)
        return 0;
    if (w->depth == 0) {
        if (w->done)
            return misuse(w, "a second top-level value");
        return 1;
    }
    int level = w->depth - 1;
    if (w->is_object[level]) {
        if (!w->after_key)
            return misuse(w, "a value in an object without a key");
        w->after_key = 0;
        return 1;
    }
    if (w->has_items[level])
        put_char(w, ',');
    w->has_items[level] = 1;
    return w->error == TT_OK;
}

/* After a scalar or a closed container: a value at the top level completes the document. */
static void value_end(JsonWriter *w)
{
    if (w->depth == 0)
        w->done = 1;
}

/* How many bytes at p (n > 0 left), which utf8proc_iterate rejected, one U+FFFD stands
 * for: the lead byte and the continuation bytes that still fit some well-formed
 * sequence (Unicode Table 3-7). A byte that cannot start a sequence stands alone. */
static size_t replacement_span(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* the range allowed for the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        need = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        need = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        need = 4;
    else
        return 1;
    if (c == 0xE0)
        lo = 0xA0; /* below is overlong */
    else if (c == 0xED)
        hi = 0x9F; /* above is a surrogate */
    else if (c == 0xF0)
        lo = 0x90; /* below is overlong */
    else if (c == 0xF4)
        hi = 0x8F; /* above is beyond U+10FFFF */
    size_t k = 1;
    if (k < n && k < need && p[k] >= lo && p[k] <= hi)
        k++;
    else
        return 1;
    while (k < n && k < need && p[k] >= 0x80 && p[k] <= 0xBF)
        k++;
    return k;
}

/* The escape for an ASCII byte that needs one, or NULL. esc must hold 7 bytes. */
static const char *ascii_escape(unsigned char c, char esc[7])
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        if (c >= 0x20)
            return NULL;
        snprintf(esc, 7, "\\u%04X", c);
        return esc;
    }
}

/* Writes n bytes of s as a quoted JSON string. Runs of bytes that need no change are
 * written with one fwrite each. */
static void put_string(JsonWriter *w, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0; /* p[run..i) is pending, to be copied as it is */
    put_char(w, '"');
    while (i < n && w->error == TT_OK) {
        char esc[7];
        const char *rep = NULL; /* what replaces p[i..i+len), if anything */
        size_t len = 1;
        if (p[i] < 0x80) {
            rep = ascii_escape(p[i], esc);
        } else {
            utf8proc_int32_t cp;
            utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &cp);
            if (k < 1) {
                rep = "\xEF\xBF\xBD"; /* U+FFFD */
                len = replacement_span(p + i, n - i);
            } else {
                len = (size_t)k;
                /* Valid JSON, but line terminators in JavaScript source before ES2019. */
                if (cp == 0x2028)
                    rep = "\\u2028";
                else if (cp == 0x2029)
                    rep = "\\u2029";
            }
        }
        if (rep) {
            put_bytes(w, s + run, i - run);
            put_bytes(w, rep, strlen(rep));
            run = i + len;
        }
        i += len;
    }
    put_bytes(w, s + run, i - run);
    put_char(w, '"');
}

void json_begin_object(JsonWriter *w)
{
    if (w->error == TT_OK && w->depth >= JSON_MAX_DEPTH) {
        misuse(w, "nesting deeper than JSON_MAX_DEPTH");
        return;
    }
    if (!value_begin(w))
        return;
    w->is_object[w->depth] = 1;
    w->has_items[w->depth] = 0;
    w->depth++;
    put_char(w, '{');
}

void json_begin_array(JsonWriter *w)
{
    if (w->error == TT_OK && w->depth >= JSON_MAX_DEPTH) {
        misuse(w, "nesting deeper than JSON_MAX_DEPTH");
        return;
    }
    if (!value_begin(w))
        return;
    w->is_object[w->depth] = 0;
    w->has_items[w->depth] = 0;
    w->depth++;
    put_char(w, '[');
}

void json_end_object(JsonWriter *w)
{
    if (w->error != TT_OK)
        return;
    if (w->depth == 0 || !w->is_object[w->depth - 1]) {
        misuse(w, "json_end_object without an open object");
        return;
    }
    if (w->after_key) {
        misuse(w, "json_end_object after a key without its value");
        return;
    }
    w->depth--;
    put_char(w, '}');
    value_end(w);
}

void json_end_array(JsonWriter *w)
{
    if (w->error != TT_OK)
        return;
    if (w->depth == 0 || w->is_object[w->depth - 1]) {
        misuse(w, "json_end_array without an open array");
        return;
    }
    w->depth--;
    put_char(w, ']');
    value_end(w);
}

void json_key(JsonWriter *w, const char *key)
{
    if (w->error != TT_OK)
        return;
    if (w->depth == 0 || !w->is_object[w->depth - 1]) {
        misuse(w, "a key outside an object");
        return;
    }
    if (w->after_key) {
        misuse(w, "two keys without a value between them");
        return;
    }
    if (!key) {
        misuse(w, "a NULL key");
        return;
    }
    int level = w->depth - 1;
    if (w->has_items[level])
        put_char(w, ',');
    w->has_items[level] = 1;
    put_string(w, key, strlen(key));
    put_char(w, ':');
    w->after_key = 1;
}

void json_string_n(JsonWriter *w, const char *s, size_t n)
{
    if (w->error == TT_OK && !s) {
        misuse(w, "a NULL string");
        return;
    }
    if (!value_begin(w))
        return;
    put_string(w, s, n);
    value_end(w);
}

void json_string(JsonWriter *w, const char *s)
{
    json_string_n(w, s, s ? strlen(s) : 0);
}

void json_int(JsonWriter *w, long long v)
{
    if (!value_begin(w))
        return;
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%lld", v);
    put_bytes(w, buf, (size_t)len);
    value_end(w);
}

void json_float(JsonWriter *w, double v)
{
    if (!value_begin(w))
        return;
    if (!isfinite(v)) {
        put_bytes(w, "null", 4);
    } else {
        char buf[32];
        int len = snprintf(buf, sizeof buf, "%.9g", v);
        /* A locale set by some future setlocale() call could make the point a comma. */
        for (int i = 0; i < len; i++)
            if (buf[i] == ',')
                buf[i] = '.';
        put_bytes(w, buf, (size_t)len);
    }
    value_end(w);
}

void json_bool(JsonWriter *w, int v)
{
    if (!value_begin(w))
        return;
    if (v)
        put_bytes(w, "true", 4);
    else
        put_bytes(w, "false", 5);
    value_end(w);
}

void json_null(JsonWriter *w)
{
    if (!value_begin(w))
        return;
    put_bytes(w, "null", 4);
    value_end(w);
}

void json_float_array(JsonWriter *w, const float *x, int n)
{
    if (w->error == TT_OK && (n < 0 || (n > 0 && !x))) {
        misuse(w, "json_float_array with n < 0 or a NULL array");
        return;
    }
    json_begin_array(w);
    for (int i = 0; i < n && w->error == TT_OK; i++)
        json_float(w, x[i]);
    json_end_array(w);
}

int json_finish(JsonWriter *w)
{
    if (w->error == TT_OK && ferror(w->out))
        w->error = TT_EIO;
    if (w->error != TT_OK)
        return w->error;
    if (w->depth != 0 || !w->done)
        return TT_EINVAL; /* open containers, or no value: not a document */
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * Comparing two texts
 */

typedef struct {
    const char *p, *end;
} JsonLex;

/* The next token of l: its start in *tok and length in *len; 0 at the end, -1 on text
 * this lexer does not know. Kinds: punctuation (one byte), a string (quotes included),
 * a number or a literal (a run of [0-9+-.eEa-z]). */
static int json_lex(JsonLex *l, const char **tok, size_t *len)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\n' || *l->p == '\t' || *l->p == '\r'))
        l->p++;
    if (l->p >= l->end)
        return 0;
    const char *s = l->p;
    if (strchr("{}[]:,", *s)) {
        l->p++;
    } else if (*s == '"') {
        l->p++;
        while (l->p < l->end && *l->p != '"')
            l->p += *l->p == '\\' ? 2 : 1;
        if (l->p >= l->end)
            return -1;
        l->p++;
    } else if (strchr("-0123456789tfn", *s)) {
        while (l->p < l->end && strchr("+-.0123456789eEtruefalsn", *l->p))
            l->p++;
    } else {
        return -1;
    }
    *tok = s;
    *len = (size_t)(l->p - s);
    return 1;
}

int json_compare(const char *a, size_t alen, const char *b, size_t blen, double tol,
                 char *err, size_t errlen)
{
    JsonLex la = {a, a + alen}, lb = {b, b + blen};
    char key[64] = "(top)";
    const char *prev = NULL;
    size_t prev_len = 0;
    for (;;) {
        const char *ta = NULL, *tb = NULL;
        size_t na = 0, nb = 0;
        int ra = json_lex(&la, &ta, &na), rb = json_lex(&lb, &tb, &nb);
        if (ra < 0 || rb < 0)
            return -1;
        if (ra == 0 || rb == 0) {
            if (ra == rb)
                return 0;
            if (err)
                snprintf(err, errlen, "one text ends early (after '%s')", key);
            return 1;
        }
        /* A string followed by ':' is a key: remember it for messages. */
        if (na == 1 && *ta == ':' && prev && *prev == '"') {
            size_t k = prev_len - 2 < sizeof key - 1 ? prev_len - 2 : sizeof key - 1;
            memcpy(key, prev + 1, k);
            key[k] = '\0';
        }
        const int numeric = (*ta == '-' || (*ta >= '0' && *ta <= '9')) &&
                            (*tb == '-' || (*tb >= '0' && *tb <= '9'));
        if (numeric) {
            char bufa[64], bufb[64];
            snprintf(bufa, sizeof bufa, "%.*s", (int)(na < 63 ? na : 63), ta);
            snprintf(bufb, sizeof bufb, "%.*s", (int)(nb < 63 ? nb : 63), tb);
            const double x = strtod(bufa, NULL), y = strtod(bufb, NULL);
            if (!(fabs(x - y) <= tol)) {
                if (err)
                    snprintf(err, errlen, "'%s' differs: %s, expected %s (tolerance %g)", key,
                             bufa, bufb, tol);
                return 1;
            }
        } else if (na != nb || memcmp(ta, tb, na) != 0) {
            if (err)
                snprintf(err, errlen, "'%s' differs: %.*s, expected %.*s", key,
                         (int)(na < 40 ? na : 40), ta, (int)(nb < 40 ? nb : 40), tb);
            return 1;
        }
        prev = ta;
        prev_len = na;
    }
}
