/*
 * json.h — a streaming JSON writer over a FILE*, for `toytrans translate --json`.
 *
 * The writer emits RFC 8259 JSON as the calls arrive, with no allocation and no global
 * state; commas and colons are inserted automatically from a small per-level stack. The
 * output is valid JSON for any bytes it is given:
 *   - Strings. '"' and '\' are escaped; control characters U+0000..U+001F become \b \f
 *     \n \r \t or \u00XX; U+2028 and U+2029 become \u2028 and \u2029, so a line can be
 *     pasted into JavaScript source. DEL (0x7F) is written as it is. Every other valid
 *     UTF-8 sequence is echoed exactly, byte for byte (no \u escapes for non-ASCII).
 *     Invalid UTF-8 (as utf8proc_iterate judges it: stray continuation bytes, truncated
 *     or overlong sequences, surrogates, code points above U+10FFFF) is replaced by
 *     U+FFFD, one per maximal subpart as the Unicode Standard (chapter 3, "U+FFFD
 *     substitution of maximal subparts") recommends — the same output as WHATWG
 *     decoders and Python's bytes.decode("utf-8", "replace").
 *   - Numbers. json_float writes "%.9g", enough significant digits for every float
 *     (binary32) to read back bit-exactly with strtof. JSON has no NaN or infinity, so
 *     those are written as null.
 *
 * Misuse — a value where a key is required, a key outside an object, closing the wrong
 * kind of container, nesting deeper than JSON_MAX_DEPTH, a second top-level value — is
 * a programmer error: it fails an assert, and (with NDEBUG, or with assert_on_misuse
 * cleared) it sets error to TT_EINVAL and the writer writes nothing more, so a misuse
 * never produces broken JSON, only a truncated document that json_finish reports. A
 * failed write sets error to TT_EIO the same way. The caller's duties that the writer
 * does not check: keys within one object are distinct.
 *
 * JSON Lines: json_init, one value, json_finish, then the caller writes '\n'; a writer
 * can be initialised again for the next line.
 */
#ifndef TOYTRANS_JSON_H
#define TOYTRANS_JSON_H

#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16 /* open objects and arrays at once */

typedef struct {
    FILE *out;                               /* the stream written to, not owned */
    int depth;                               /* open containers, 0..JSON_MAX_DEPTH */
    unsigned char is_object[JSON_MAX_DEPTH]; /* per open level: 1 object, 0 array */
    unsigned char has_items[JSON_MAX_DEPTH]; /* per open level: 1 once it holds a member,
                                              * so the next one needs a comma */
    int after_key;        /* 1 between json_key and its value */
    int done;             /* 1 once the top-level value is complete */
    int assert_on_misuse; /* 1 (json_init's default): misuse also fails an assert;
                           * tests set 0 to observe TT_EINVAL instead */
    int error;            /* TT_OK, or the first failure: TT_EINVAL (misuse) or TT_EIO
                           * (a write failed); once set, nothing more is written */
    const char *misuse;   /* static text naming the first misuse, or NULL */
} JsonWriter;

/* Starts a document on out (not owned, left open). Nothing is written yet. */
void json_init(JsonWriter *w, FILE *out);

/* Containers. A begin is a value (in an object it needs a key first); each end must
 * match the innermost open begin. */
void json_begin_object(JsonWriter *w);
void json_end_object(JsonWriter *w);
void json_begin_array(JsonWriter *w);
void json_end_array(JsonWriter *w);

/* The key of the next object member; key is a NUL-terminated string, escaped like a
 * value. */
void json_key(JsonWriter *w, const char *key);

/* Values. s is NUL-terminated for json_string; json_string_n takes n bytes that may
 * hold NUL bytes (written as \u0000) and need no terminator. s must not be NULL. */
void json_string(JsonWriter *w, const char *s);
void json_string_n(JsonWriter *w, const char *s, size_t n);
void json_int(JsonWriter *w, long long v);
void json_float(JsonWriter *w, double v); /* "%.9g"; NaN and ±Inf are written as null */
void json_bool(JsonWriter *w, int v);     /* nonzero is true */
void json_null(JsonWriter *w);

/* An array of n >= 0 floats, each as json_float writes it. x may be NULL when n is 0. */
void json_float_array(JsonWriter *w, const float *x, int n);

/* Ends the document: returns TT_OK when exactly one complete value was written;
 * TT_EIO when a write failed or the stream's error indicator is set (ferror);
 * TT_EINVAL after a misuse, or when containers are still open or nothing was written.
 * It does not flush: data still in the stream's buffer can fail later, so callers check
 * fflush/fclose too. */
int json_finish(JsonWriter *w);

/* Compares two JSON texts token by token: punctuation, strings and literals must be
 * identical, numbers may differ by at most tol (absolute). Meant for comparing what this
 * writer wrote with what it writes now (golden files), not as a general JSON parser.
 * Returns 0 when they agree, 1 when they differ (err, if not NULL, names the last key
 * before the difference and both values), -1 when a text is not JSON this lexer knows. */
int json_compare(const char *a, size_t alen, const char *b, size_t blen, double tol,
                 char *err, size_t errlen);

#endif
