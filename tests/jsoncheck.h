/*
 * jsoncheck.h — a strict JSON validator (RFC 8259) for the tests, independent of the
 * writer it checks.
 *
 * jsoncheck_validate accepts exactly one JSON value with optional whitespace (space,
 * tab, LF, CR) around it and nothing else. It is strict where RFC 8259 leaves room:
 * strings must be UTF-8 without overlong forms, surrogates (U+D800..U+DFFF) or code
 * points above U+10FFFF; a \u escape of a surrogate must be a high one directly followed
 * by a low one; containers nest at most JSONCHECK_MAX_DEPTH deep. The UTF-8 check here
 * is written out by hand on purpose — it decodes and then range-checks, where the
 * writer asks utf8proc — so the two do not share a mistake.
 *
 * Also: jsoncheck_decode_string turns one string literal back into bytes, and
 * jsoncheck_get copies the raw text of one top-level member of an object.
 *
 * Everything is static inline so each test includes the header and nothing else.
 */
#ifndef TOYTRANS_JSONCHECK_H
#define TOYTRANS_JSONCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JSONCHECK_MAX_DEPTH 64

/* The state of one check. */
typedef struct {
    const unsigned char *s; /* the text, len bytes, no terminator needed */
    size_t len;
    size_t pos;             /* the next byte to read, 0..len */
    int depth;              /* open objects and arrays, 0..JSONCHECK_MAX_DEPTH */
    char *err;              /* message buffer, or NULL */
    size_t errlen;          /* its size in bytes */
} JsonCheck;

/* Writes "byte N: expected X, found Y" and returns -1. */
static inline int jsoncheck_fail(JsonCheck *c, const char *expected)
{
    if (!c->err || c->errlen == 0)
        return -1;
    if (c->pos >= c->len) {
        snprintf(c->err, c->errlen, "byte %zu: expected %s, found the end of the text", c->pos,
                 expected);
    } else {
        unsigned char b = c->s[c->pos];
        if (b > 0x20 && b < 0x7F)
            snprintf(c->err, c->errlen, "byte %zu: expected %s, found '%c'", c->pos, expected,
                     b);
        else
            snprintf(c->err, c->errlen, "byte %zu: expected %s, found byte 0x%02X", c->pos,
                     expected, b);
    }
    return -1;
}

static inline int jsoncheck_peek(const JsonCheck *c)
{
    return c->pos < c->len ? c->s[c->pos] : -1;
}

static inline int jsoncheck_is_digit(int b)
{
    return b >= '0' && b <= '9';
}

static inline void jsoncheck_skip_ws(JsonCheck *c)
{
    while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
                               c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
        c->pos++;
}

/* The length of the well-formed UTF-8 sequence at s (n > 0 bytes left), or 0. Decodes
 * first, then rejects overlong forms, surrogates and values above U+10FFFF. */
static inline size_t jsoncheck_utf8_len(const unsigned char *s, size_t n, uint32_t *cp_out)
{
    unsigned char b = s[0];
    size_t need;
    uint32_t cp, min;
    if (b < 0x80) {
        *cp_out = b;
        return 1;
    } else if ((b & 0xE0) == 0xC0) {
        need = 2, cp = b & 0x1Fu, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
        need = 3, cp = b & 0x0Fu, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
        need = 4, cp = b & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte, or 0xF8..0xFF */
    }
    if (n < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    *cp_out = cp;
    return need;
}

/* The value of four hex digits at pos, or -1. */
static inline long jsoncheck_hex4(const JsonCheck *c, size_t pos)
{
    if (c->len < 4 || pos > c->len - 4)
        return -1;
    long v = 0;
    for (size_t i = 0; i < 4; i++) {
        unsigned char h = c->s[pos + i];
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string, at its opening quote. */
static inline int jsoncheck_string(JsonCheck *c)
{
    c->pos++;
    for (;;) {
        int b = jsoncheck_peek(c);
        if (b < 0)
            return jsoncheck_fail(c, "'\"' to close the string");
        if (b == '"') {
            c->pos++;
            return 0;
        }
        if (b < 0x20)
            return jsoncheck_fail(c, "an escape (\\n, \\u001F, ...) for a control character");
        if (b >= 0x80) {
            uint32_t cp;
            size_t k = jsoncheck_utf8_len(c->s + c->pos, c->len - c->pos, &cp);
            if (k == 0)
                return jsoncheck_fail(c, "well-formed UTF-8");
            c->pos += k;
            continue;
        }
        if (b != '\\') {
            c->pos++;
            continue;
        }
        size_t esc = c->pos; /* the backslash, for messages */
        c->pos++;
        b = jsoncheck_peek(c);
        if (b <= 0 || !strchr("\"\\/bfnrtu", b))
            return jsoncheck_fail(c, "one of \" \\ / b f n r t u after a backslash");
        c->pos++;
        if (b != 'u')
            continue;
        long u = jsoncheck_hex4(c, c->pos);
        if (u < 0)
            return jsoncheck_fail(c, "four hex digits after \\u");
        c->pos += 4;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            c->pos = esc;
            return jsoncheck_fail(c, "a high surrogate escape before this low surrogate");
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = c->pos + 6 <= c->len && c->s[c->pos] == '\\' && c->s[c->pos + 1] == 'u'
                          ? jsoncheck_hex4(c, c->pos + 2)
                          : -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return jsoncheck_fail(c, "a low surrogate escape \\uDC00..\\uDFFF after a "
                                         "high surrogate");
            c->pos += 6;
        }
    }
}

/* A number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static inline int jsoncheck_number(JsonCheck *c)
{
    if (jsoncheck_peek(c) == '-')
        c->pos++;
    if (jsoncheck_peek(c) == '0') {
        c->pos++;
        if (jsoncheck_is_digit(jsoncheck_peek(c)))
            return jsoncheck_fail(c, "'.', 'e' or the end of the number after a leading 0");
    } else if (jsoncheck_is_digit(jsoncheck_peek(c))) {
        while (jsoncheck_is_digit(jsoncheck_peek(c)))
            c->pos++;
    } else {
        return jsoncheck_fail(c, "a digit");
    }
    if (jsoncheck_peek(c) == '.') {
        c->pos++;
        if (!jsoncheck_is_digit(jsoncheck_peek(c)))
            return jsoncheck_fail(c, "a digit after the decimal point");
        while (jsoncheck_is_digit(jsoncheck_peek(c)))
            c->pos++;
    }
    if (jsoncheck_peek(c) == 'e' || jsoncheck_peek(c) == 'E') {
        c->pos++;
        if (jsoncheck_peek(c) == '+' || jsoncheck_peek(c) == '-')
            c->pos++;
        if (!jsoncheck_is_digit(jsoncheck_peek(c)))
            return jsoncheck_fail(c, "a digit in the exponent");
        while (jsoncheck_is_digit(jsoncheck_peek(c)))
            c->pos++;
    }
    return 0;
}

static inline int jsoncheck_literal(JsonCheck *c, const char *word)
{
    size_t n = strlen(word);
    if (c->len - c->pos < n || memcmp(c->s + c->pos, word, n) != 0)
        return jsoncheck_fail(c, word[0] == 't'   ? "true"
                                 : word[0] == 'f' ? "false"
                                                  : "null");
    c->pos += n;
    return 0;
}

static inline int jsoncheck_value(JsonCheck *c);

/* An object or array, at its opening bracket. */
static inline int jsoncheck_container(JsonCheck *c, int is_object)
{
    char close = is_object ? '}' : ']';
    if (c->depth >= JSONCHECK_MAX_DEPTH)
        return jsoncheck_fail(c, "nesting no deeper than JSONCHECK_MAX_DEPTH");
    c->depth++;
    c->pos++;
    jsoncheck_skip_ws(c);
    if (jsoncheck_peek(c) == close) {
        c->pos++;
        c->depth--;
        return 0;
    }
    for (;;) {
        if (is_object) {
            jsoncheck_skip_ws(c);
            if (jsoncheck_peek(c) != '"')
                return jsoncheck_fail(c, "a string key");
            if (jsoncheck_string(c) < 0)
                return -1;
            jsoncheck_skip_ws(c);
            if (jsoncheck_peek(c) != ':')
                return jsoncheck_fail(c, "':' after the key");
            c->pos++;
        }
        if (jsoncheck_value(c) < 0)
            return -1;
        jsoncheck_skip_ws(c);
        int b = jsoncheck_peek(c);
        if (b == ',') {
            c->pos++;
            continue;
        }
        if (b == close) {
            c->pos++;
            c->depth--;
            return 0;
        }
        return jsoncheck_fail(c, is_object ? "',' or '}' after a member"
                                           : "',' or ']' after an element");
    }
}

/* One value with the whitespace before it. */
static inline int jsoncheck_value(JsonCheck *c)
{
    jsoncheck_skip_ws(c);
    int b = jsoncheck_peek(c);
    switch (b) {
    case '{':
        return jsoncheck_container(c, 1);
    case '[':
        return jsoncheck_container(c, 0);
    case '"':
        return jsoncheck_string(c);
    case 't':
        return jsoncheck_literal(c, "true");
    case 'f':
        return jsoncheck_literal(c, "false");
    case 'n':
        return jsoncheck_literal(c, "null");
    default:
        if (b == '-' || jsoncheck_is_digit(b))
            return jsoncheck_number(c);
        return jsoncheck_fail(c, "a value (object, array, string, number, true, false, null)");
    }
}

/* Returns 0 when text[0..len) is exactly one JSON value with optional whitespace around
 * it; otherwise -1, and err (errlen bytes, may be NULL) names the byte offset and what
 * was expected there. */
static inline int jsoncheck_validate(const char *text, size_t len, char *err, size_t errlen)
{
    JsonCheck c = {(const unsigned char *)text, text ? len : 0, 0, 0, err, errlen};
    if (err && errlen > 0)
        err[0] = '\0';
    if (jsoncheck_value(&c) < 0)
        return -1;
    jsoncheck_skip_ws(&c);
    if (c.pos != c.len)
        return jsoncheck_fail(&c, "the end of the text after the value");
    return 0;
}

/* Appends the UTF-8 encoding of cp (a scalar value) to out; returns its length. */
static inline size_t jsoncheck_utf8_put(unsigned char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the string literal lit[0..n) (quotes included, nothing around them) into
 * out (cap bytes; no terminator is added) and sets *outlen. Returns 0, or -1 when lit
 * is not exactly one valid string literal or the bytes do not fit. */
static inline int jsoncheck_decode_string(const char *lit, size_t n, char *out, size_t cap,
                                          size_t *outlen)
{
    JsonCheck c = {(const unsigned char *)lit, n, 0, 0, NULL, 0};
    *outlen = 0;
    if (n < 2 || lit[0] != '"' || jsoncheck_string(&c) < 0 || c.pos != n)
        return -1;
    size_t used = 0;
    for (size_t i = 1; i < n - 1;) {
        unsigned char tmp[4];
        size_t k;
        if (c.s[i] != '\\') {
            tmp[0] = c.s[i];
            k = 1;
            i++;
        } else if (c.s[i + 1] != 'u') {
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            tmp[0] = (unsigned char)to[strchr(from, c.s[i + 1]) - from];
            k = 1;
            i += 2;
        } else {
            uint32_t u = (uint32_t)jsoncheck_hex4(&c, i + 2);
            i += 6;
            if (u >= 0xD800 && u <= 0xDBFF) { /* validated: a low surrogate follows */
                uint32_t lo = (uint32_t)jsoncheck_hex4(&c, i + 2);
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            k = jsoncheck_utf8_put(tmp, u);
        }
        if (cap - used < k)
            return -1;
        memcpy(out + used, tmp, k);
        used += k;
    }
    *outlen = used;
    return 0;
}

/* Copies the raw text of the value of top-level member key (compared after decoding
 * the keys) of the object text[0..len) into out (cap bytes, NUL-terminated). Returns 0,
 * or -1 when text is not a valid object, has no such member, or the value does not fit.
 * With duplicate keys the first wins. */
static inline int jsoncheck_get(const char *text, size_t len, const char *key, char *out,
                                size_t cap)
{
    if (jsoncheck_validate(text, len, NULL, 0) < 0)
        return -1;
    JsonCheck c = {(const unsigned char *)text, len, 0, 0, NULL, 0};
    jsoncheck_skip_ws(&c);
    if (jsoncheck_peek(&c) != '{')
        return -1;
    c.pos++;
    c.depth = 1;
    for (;;) {
        jsoncheck_skip_ws(&c);
        if (jsoncheck_peek(&c) != '"')
            return -1; /* '}': the object ended without the key */
        size_t kstart = c.pos;
        jsoncheck_string(&c);
        char name[256];
        size_t nlen;
        int match = jsoncheck_decode_string(text + kstart, c.pos - kstart, name, sizeof name,
                                            &nlen) == 0 &&
                    nlen == strlen(key) && memcmp(name, key, nlen) == 0;
        jsoncheck_skip_ws(&c);
        c.pos++; /* ':' */
        jsoncheck_skip_ws(&c);
        size_t vstart = c.pos;
        jsoncheck_value(&c);
        if (match) {
            size_t vlen = c.pos - vstart;
            if (vlen >= cap)
                return -1;
            memcpy(out, text + vstart, vlen);
            out[vlen] = '\0';
            return 0;
        }
        jsoncheck_skip_ws(&c);
        c.pos++; /* ',' or '}' */
    }
}

#endif
