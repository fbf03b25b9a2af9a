/*
 * test_json.c — the JSON writer (exact text, escaping of every byte, U+FFFD for invalid
 * UTF-8, bit-exact floats, misuse and I/O errors) and the jsoncheck validator that the
 * writer's tests rely on (tables of texts it must reject and accept).
 *
 * Random inputs come from rng.h with fixed seeds, so a failure reproduces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/json.h"
#include "jsoncheck.h"
#include "base/rng.h"
#include "base/status.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------------- */

/* A growing memory buffer the writer writes to through a FILE*. */
typedef struct {
    FILE *f;
    char *buf;  /* owned; NUL-terminated once mem_done has run */
    size_t len; /* bytes written */
} Mem;

static void mem_open(Mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
}

static void mem_done(Mem *m)
{
    assert_int_equal(fclose(m->f), 0);
    m->f = NULL;
}

static void mem_free(Mem *m)
{
    free(m->buf);
    m->buf = NULL;
}

/* Fails the test, showing the message and the text, unless text is valid JSON. */
static void check_valid(const char *text, size_t len)
{
    char err[200];
    if (jsoncheck_validate(text, len, err, sizeof err) != 0) {
        print_error("invalid JSON (%s) in: %.300s\n", err, text);
        fail();
    }
}

/* Writes n bytes of s as one top-level JSON string into m (closed, valid JSON). */
static void write_string(Mem *m, const char *s, size_t n)
{
    JsonWriter w;
    mem_open(m);
    json_init(&w, m->f);
    json_string_n(&w, s, n);
    assert_int_equal(json_finish(&w), TT_OK);
    mem_done(m);
    assert_int_equal(strlen(m->buf), m->len); /* never a raw NUL byte */
    check_valid(m->buf, m->len);
}

/* Fails unless got[0..ngot) equals want[0..nwant), printing both escaped. */
static void assert_bytes_equal(const char *got, size_t ngot, const char *want, size_t nwant)
{
    if (ngot == nwant && memcmp(got, want, ngot) == 0)
        return;
    print_error("bytes differ:\n  got ");
    for (size_t i = 0; i < ngot; i++)
        print_error("%02X ", (unsigned char)got[i]);
    print_error("\n want ");
    for (size_t i = 0; i < nwant; i++)
        print_error("%02X ", (unsigned char)want[i]);
    print_error("\n");
    fail();
}

/* The reference for invalid UTF-8, found by brute force with jsoncheck's own decoder:
 * the maximal subpart at p is the longest prefix (at most 3 bytes) that some
 * continuation bytes would complete to a well-formed sequence; 1 if there is none. */
static size_t ref_maximal_subpart(const unsigned char *p, size_t n)
{
    for (size_t k = n < 3 ? n : 3; k >= 2; k--)
        for (size_t total = k + 1; total <= 4; total++) {
            unsigned char seq[4];
            memcpy(seq, p, k);
            memset(seq + k, 0x80, total - k);
            uint32_t cp;
            if (jsoncheck_utf8_len(seq, total, &cp) == total)
                return k;
        }
    return 1;
}

/* in[0..n) with each maximal subpart of invalid UTF-8 replaced by U+FFFD; returns the
 * length written to out (room for 3n bytes). */
static size_t ref_replace(const unsigned char *in, size_t n, char *out)
{
    size_t used = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = jsoncheck_utf8_len(in + i, n - i, &cp);
        if (k > 0) {
            memcpy(out + used, in + i, k);
            used += k;
            i += k;
        } else {
            static const unsigned char FFFD[3] = {0xEF, 0xBF, 0xBD}; /* U+FFFD in UTF-8 */
            memcpy(out + used, FFFD, sizeof FFFD);
            used += sizeof FFFD;
            i += ref_maximal_subpart(in + i, n - i);
        }
    }
    return used;
}

/* ---- the writer ------------------------------------------------------------------- */

/* Nested objects and arrays come out with commas and colons in the right places, exactly. */
static void test_json_nested_exact_text(void **state)
{
    (void)state;
    static const float ATTN[2] = {0.25f, 1.0f};
    Mem m;
    JsonWriter w;
    mem_open(&m);
    json_init(&w, m.f);
    json_begin_object(&w);
    json_key(&w, "source");
    json_string(&w, "Hello \"world\"");
    json_key(&w, "tokens");
    json_begin_array(&w);
    json_string(&w, "a");
    json_string(&w, "b");
    json_end_array(&w);
    json_key(&w, "steps");
    json_begin_array(&w);
    json_begin_object(&w);
    json_key(&w, "id");
    json_int(&w, 7);
    json_key(&w, "logprob");
    json_float(&w, -0.5);
    json_key(&w, "forced");
    json_bool(&w, 0);
    json_key(&w, "cross_attention");
    json_begin_array(&w);
    json_begin_array(&w);
    json_float_array(&w, ATTN, 2);
    json_float_array(&w, NULL, 0);
    json_end_array(&w);
    json_end_array(&w);
    json_key(&w, "none");
    json_null(&w);
    json_end_object(&w);
    json_begin_object(&w);
    json_end_object(&w);
    json_end_array(&w);
    json_key(&w, "empty");
    json_begin_array(&w);
    json_end_array(&w);
    json_end_object(&w);
    assert_int_equal(json_finish(&w), TT_OK);
    mem_done(&m);
    assert_string_equal(m.buf, "{\"source\":\"Hello \\\"world\\\"\",\"tokens\":[\"a\",\"b\"],"
                               "\"steps\":[{\"id\":7,\"logprob\":-0.5,\"forced\":false,"
                               "\"cross_attention\":[[[0.25,1],[]]],\"none\":null},{}],"
                               "\"empty\":[]}");
    check_valid(m.buf, m.len);
    mem_free(&m);
}

/* Integers, booleans and null, including the extremes of long long. */
static void test_json_ints_bools_null(void **state)
{
    (void)state;
    Mem m;
    JsonWriter w;
    mem_open(&m);
    json_init(&w, m.f);
    json_begin_array(&w);
    json_int(&w, 0);
    json_int(&w, -1);
    json_int(&w, LLONG_MIN);
    json_int(&w, LLONG_MAX);
    json_bool(&w, 1);
    json_bool(&w, 42);
    json_bool(&w, 0);
    json_null(&w);
    json_end_array(&w);
    assert_int_equal(json_finish(&w), TT_OK);
    mem_done(&m);
    assert_string_equal(m.buf, "[0,-1,-9223372036854775808,9223372036854775807,true,true,"
                               "false,null]");
    check_valid(m.buf, m.len);
    mem_free(&m);
}

/* Each of the 256 one-byte strings becomes valid JSON with the expected escape:
 * short escapes, \u00XX for other controls, '"' and '\' escaped, DEL as it is, and
 * U+FFFD for every byte >= 0x80 (none is valid UTF-8 alone). */
static void test_json_every_byte_valid(void **state)
{
    (void)state;
    for (int b = 0; b < 256; b++) {
        char in = (char)b, want[16];
        switch (b) {
        case '\b': strcpy(want, "\"\\b\""); break;
        case '\f': strcpy(want, "\"\\f\""); break;
        case '\n': strcpy(want, "\"\\n\""); break;
        case '\r': strcpy(want, "\"\\r\""); break;
        case '\t': strcpy(want, "\"\\t\""); break;
        case '"': strcpy(want, "\"\\\"\""); break;
        case '\\': strcpy(want, "\"\\\\\""); break;
        default:
            if (b < 0x20)
                snprintf(want, sizeof want, "\"\\u%04X\"", b);
            else if (b < 0x80)
                snprintf(want, sizeof want, "\"%c\"", b);
            else
                strcpy(want, "\"\xEF\xBF\xBD\"");
        }
        Mem m;
        write_string(&m, &in, 1);
        assert_string_equal(m.buf, want);
        mem_free(&m);
    }
    /* Two spelled out, so the table above is not the only witness. */
    Mem m;
    write_string(&m, "\0\x1f\x7f", 3);
    assert_string_equal(m.buf, "\"\\u0000\\u001F\x7f\"");
    mem_free(&m);
}

/* U+2028 and U+2029 are escaped (JavaScript line terminators); other non-ASCII, even
 * the C1 control U+0085, is not. */
static void test_json_line_separators_escaped(void **state)
{
    (void)state;
    Mem m;
    static const char IN[] = "a\xE2\x80\xA8" "b\xE2\x80\xA9" "c\xC2\x85";
    write_string(&m, IN, sizeof IN - 1);
    assert_string_equal(m.buf, "\"a\\u2028b\\u2029c\xC2\x85\"");
    mem_free(&m);
}

/* Valid UTF-8 is echoed byte for byte: umlauts, ß, an emoji, U+FFFF and U+10FFFF. */
static void test_json_utf8_echoed_byte_for_byte(void **state)
{
    (void)state;
    static const char *const TEXTS[] = {
        "\xC3\xA4 \xC3\xB6 \xC3\xBC \xC3\x9F",  /* ä ö ü ß */
        ("Stra\xC3\x9F" "e \xF0\x9F\x98\x80"),  /* Straße 😀 */
        "\xEF\xBF\xBF\xF4\x8F\xBF\xBF",         /* U+FFFF U+10FFFF */
        "\xEF\xBF\xBD",                         /* U+FFFD itself */
    };
    for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++) {
        size_t n = strlen(TEXTS[i]);
        Mem m;
        write_string(&m, TEXTS[i], n);
        assert_int_equal(m.len, n + 2);
        assert_memory_equal(m.buf + 1, TEXTS[i], n);
        mem_free(&m);
    }
}

/* Each maximal subpart of an invalid sequence becomes one U+FFFD, as Python's
 * bytes.decode("utf-8", "replace") does (the expected column was made with it). */
static void test_json_invalid_utf8_becomes_replacement(void **state)
{
    (void)state;
#define R "\xEF\xBF\xBD"
    static const struct {
        const char *in, *want;
    } CASES[] = {
        {"\x80", "\"" R "\""},                             /* stray continuation */
        {"\xC3", "\"" R "\""},                             /* truncated at the end */
        {"\xE2\x82", "\"" R "\""},                         /* truncated 3-byte */
        {"\xE2\x82x", "\"" R "x\""},                       /* interrupted 3-byte */
        {"\xF0\x9F\x98", "\"" R "\""},                     /* truncated 4-byte */
        {"\xC0\xAF", "\"" R R "\""},                       /* overlong '/' */
        {"\xE0\x80\x80", "\"" R R R "\""},                 /* overlong NUL */
        {"\xED\xA0\x80", "\"" R R R "\""},                 /* surrogate U+D800 */
        {"\xF4\x90\x80\x80", "\"" R R R R "\""},           /* above U+10FFFF */
        {"\xF5", "\"" R "\""},                             /* never in UTF-8 */
        {"\xFF\xFE", "\"" R R "\""},                       /* a UTF-16 BOM */
        {"a\xE2(\xA1" "b", "\"a" R "(" R "b\""},           /* broken in the middle */
        {"\xF0\x9F\x98\xC3\xA4", "\"" R "\xC3\xA4\""},     /* truncated, then ä */
        {"\xE2\x80\"", "\"" R "\\\"\""},                   /* truncated before a quote */
    };
#undef R
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Mem m;
        write_string(&m, CASES[i].in, strlen(CASES[i].in));
        assert_string_equal(m.buf, CASES[i].want);
        mem_free(&m);
    }
}

/* 2000 random byte strings all give valid JSON whose decoded text is the input with
 * each invalid maximal subpart replaced by U+FFFD — checked against a brute-force
 * reference. Half are raw bytes biased towards the troublesome ones (almost all
 * invalid); half are valid snippets with an odd random byte among them. */
static void test_json_random_bytes_always_valid(void **state)
{
    (void)state;
    static const unsigned char TRICKY[] = {0x00, 0x09, 0x0A, 0x1F, '"', '\\', '/', 0x7F,
                                           0x80, 0xA8, 0xBF, 0xC0, 0xC3, 0xA4, 0xE0, 0xE2,
                                           0xED, 0xA0, 0xF0, 0x9F, 0xF4, 0x90, 0xF5, 0xFF};
    static const char *const SNIPPETS[] = {"a", " ", "\"", "\\", "\n", "\x01", "\x7F",
                                           "\xC3\xA4", "\xE2\x82\xAC", "\xE2\x80\xA8",
                                           "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"};
    Rng rng;
    rng_seed(&rng, 20250101);
    int n_valid = 0, n_invalid = 0;
    for (int t = 0; t < 2000; t++) {
        unsigned char in[64];
        size_t n = 0, target = rng_next_u32(&rng) % 65;
        int raw = t % 2 == 0;
        while (n < target) {
            uint32_t r = rng_next_u32(&rng);
            if (raw || r % 16 == 0) {
                in[n++] = (r & 2) ? (unsigned char)(r >> 8) : TRICKY[(r >> 8) % sizeof TRICKY];
                continue;
            }
            const char *snip = SNIPPETS[(r >> 8) % (sizeof SNIPPETS / sizeof SNIPPETS[0])];
            size_t k = strlen(snip);
            if (n + k > target)
                break;
            memcpy(in + n, snip, k);
            n += k;
        }
        char want[3 * 64], got[3 * 64];
        size_t nwant = ref_replace(in, n, want), ngot;
        if (nwant == n && memcmp(want, in, n) == 0)
            n_valid++;
        else
            n_invalid++;
        Mem m;
        write_string(&m, (const char *)in, n);
        assert_int_equal(jsoncheck_decode_string(m.buf, m.len, got, sizeof got, &ngot), 0);
        assert_bytes_equal(got, ngot, want, nwant);
        mem_free(&m);
    }
    /* Both kinds must have been tried often enough to mean something. */
    assert_true(n_valid >= 200);
    assert_true(n_invalid >= 1000);
}

/* 500 random strings of valid code points (controls, quotes, U+2028, BMP, astral)
 * decode back to exactly the input, and the JSON text holds no raw control byte. */
static void test_json_random_text_round_trips(void **state)
{
    (void)state;
    static const uint32_t TRICKY[] = {0x00, 0x0A, 0x1F, '"', '\\', 0x7F, 0x85, 0x2028,
                                      0x2029, 0xFEFF, 0xFFFD, 0xFFFF, 0x10FFFF};
    Rng rng;
    rng_seed(&rng, 7);
    for (int t = 0; t < 500; t++) {
        unsigned char in[4 * 32];
        size_t n = 0, count = rng_next_u32(&rng) % 33;
        for (size_t i = 0; i < count; i++) {
            uint32_t r = rng_next_u32(&rng), cp;
            switch (r % 4) {
            case 0: cp = TRICKY[(r >> 2) % (sizeof TRICKY / sizeof TRICKY[0])]; break;
            case 1: cp = (r >> 2) % 0x100; break;
            case 2: cp = (r >> 2) % 0x10000; break;
            default: cp = (r >> 2) % 0x110000; break;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp -= 0x800; /* surrogates are not scalar values */
            n += jsoncheck_utf8_put(in + n, cp);
        }
        Mem m;
        write_string(&m, (const char *)in, n);
        char got[4 * 32];
        size_t ngot;
        assert_int_equal(jsoncheck_decode_string(m.buf, m.len, got, sizeof got, &ngot), 0);
        assert_bytes_equal(got, ngot, (const char *)in, n);
        for (size_t i = 0; i < m.len; i++)
            assert_true((unsigned char)m.buf[i] >= 0x20);
        assert_null(strstr(m.buf, "\xE2\x80\xA8"));
        assert_null(strstr(m.buf, "\xE2\x80\xA9"));
        mem_free(&m);
    }
}

/* Reads the text back with strtof and compares bits; the whole text must be used. */
static void assert_float_reads_back(const char *text, size_t len, float x)
{
    char *end;
    float y = strtof(text, &end);
    uint32_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    if ((size_t)(end - text) != len || bx != by) {
        print_error("float %.9g (0x%08X) written as \"%.*s\" reads back as 0x%08X\n",
                    (double)x, (unsigned)bx, (int)len, text, (unsigned)by);
        fail();
    }
}

/* Floats read back bit-exactly with strtof: zeros of both signs, denormals, the range
 * limits, and 100000 random bit patterns. */
static void test_json_float_round_trips(void **state)
{
    (void)state;
    const float VALUES[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1.0f / 3.0f, 1e-30f, 3.4e38f,
                            -3.4e38f, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_MIN / 2, FLT_TRUE_MIN,
                            -FLT_TRUE_MIN, nextafterf(FLT_MIN, 0.0f), 16777216.0f,
                            123456.789f, -2.5e-7f, 1e10f, 65504.0f};
    for (size_t i = 0; i < sizeof VALUES / sizeof VALUES[0]; i++) {
        Mem m;
        JsonWriter w;
        mem_open(&m);
        json_init(&w, m.f);
        json_float(&w, VALUES[i]);
        assert_int_equal(json_finish(&w), TT_OK);
        mem_done(&m);
        check_valid(m.buf, m.len);
        assert_float_reads_back(m.buf, m.len, VALUES[i]);
        mem_free(&m);
    }
    /* Random bit patterns, 5000 to an array through json_float_array. */
    Rng rng;
    rng_seed(&rng, 42);
    static float x[5000];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 5000; i++) {
            uint32_t bits;
            do {
                bits = rng_next_u32(&rng);
                memcpy(&x[i], &bits, sizeof x[i]);
            } while (!isfinite(x[i]));
        }
        Mem m;
        JsonWriter w;
        mem_open(&m);
        json_init(&w, m.f);
        json_float_array(&w, x, 5000);
        assert_int_equal(json_finish(&w), TT_OK);
        mem_done(&m);
        check_valid(m.buf, m.len);
        const char *p = m.buf + 1;
        for (int i = 0; i < 5000; i++) {
            size_t len = strcspn(p, ",]");
            assert_float_reads_back(p, len, x[i]);
            p += len + 1;
        }
        assert_int_equal((size_t)(p - m.buf), m.len);
        mem_free(&m);
    }
}

/* JSON has no NaN or infinity: they are written as null, from doubles and floats. */
static void test_json_nonfinite_written_as_null(void **state)
{
    (void)state;
    const float f[3] = {NAN, -INFINITY, 2.0f};
    Mem m;
    JsonWriter w;
    mem_open(&m);
    json_init(&w, m.f);
    json_begin_array(&w);
    json_float(&w, NAN);
    json_float(&w, INFINITY);
    json_float(&w, -INFINITY);
    json_float(&w, 1.5);
    json_float_array(&w, f, 3);
    json_end_array(&w);
    assert_int_equal(json_finish(&w), TT_OK);
    mem_done(&m);
    assert_string_equal(m.buf, "[null,null,null,1.5,[null,null,2]]");
    check_valid(m.buf, m.len);
    mem_free(&m);
}

/* One JSON value per line: newlines inside strings are escaped, so a reader can split
 * on '\n', and each line's members read back. */
static void test_json_lines_one_value_per_line(void **state)
{
    (void)state;
    static const char *const SOURCES[] = {"two\nlines", "\xFF bad", ""};
    Mem m;
    mem_open(&m);
    for (int i = 0; i < 3; i++) {
        JsonWriter w;
        json_init(&w, m.f);
        json_begin_object(&w);
        json_key(&w, "source");
        json_string(&w, SOURCES[i]);
        json_key(&w, "line");
        json_int(&w, i + 1);
        json_end_object(&w);
        assert_int_equal(json_finish(&w), TT_OK);
        fputc('\n', m.f);
    }
    mem_done(&m);
    static const char *const WANT[] = {"\"two\\nlines\"", "\"\xEF\xBF\xBD bad\"", "\"\""};
    char *line = m.buf;
    for (int i = 0; i < 3; i++) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        check_valid(line, (size_t)(nl - line));
        char value[64], want_line[16];
        assert_int_equal(jsoncheck_get(line, (size_t)(nl - line), "source", value, sizeof value),
                         0);
        assert_string_equal(value, WANT[i]);
        assert_int_equal(jsoncheck_get(line, (size_t)(nl - line), "line", value, sizeof value), 0);
        snprintf(want_line, sizeof want_line, "%d", i + 1);
        assert_string_equal(value, want_line);
        line = nl + 1;
    }
    assert_string_equal(line, "");
    mem_free(&m);
}

/* Misuse scenarios, each run on a writer whose misuse check does not assert. */
static void misuse_end_array_in_object(JsonWriter *w)
{
    json_begin_object(w);
    json_end_array(w);
}

static void misuse_two_values_without_key(JsonWriter *w)
{
    json_begin_object(w);
    json_key(w, "a");
    json_int(w, 1);
    json_int(w, 2);
}

static void misuse_depth_overflow(JsonWriter *w)
{
    for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
        json_begin_array(w);
}

static void misuse_key_in_array(JsonWriter *w)
{
    json_begin_array(w);
    json_key(w, "x");
}

static void misuse_key_at_top_level(JsonWriter *w)
{
    json_key(w, "x");
}

static void misuse_two_top_level_values(JsonWriter *w)
{
    json_int(w, 1);
    json_int(w, 2);
}

static void misuse_end_object_after_key(JsonWriter *w)
{
    json_begin_object(w);
    json_key(w, "a");
    json_end_object(w);
}

static void misuse_two_keys(JsonWriter *w)
{
    json_begin_object(w);
    json_key(w, "a");
    json_key(w, "b");
}

static void misuse_end_with_nothing_open(JsonWriter *w)
{
    json_end_object(w);
}

static void misuse_null_string(JsonWriter *w)
{
    json_begin_array(w);
    json_string(w, NULL);
}

static void misuse_negative_float_count(JsonWriter *w)
{
    json_float_array(w, NULL, -1);
}

/* Misuse sets TT_EINVAL, names itself, and stops all output: what was written stays
 * exactly the text before the misuse, however the caller goes on. */
static void test_json_misuse_returns_einval(void **state)
{
    (void)state;
    static const struct {
        void (*run)(JsonWriter *w);
        const char *want; /* the output, complete */
    } CASES[] = {
        {misuse_end_array_in_object, "{"},
        {misuse_two_values_without_key, "{\"a\":1"},
        {misuse_depth_overflow, "[[[[[[[[[[[[[[[["},
        {misuse_key_in_array, "["},
        {misuse_key_at_top_level, ""},
        {misuse_two_top_level_values, "1"},
        {misuse_end_object_after_key, "{\"a\":"},
        {misuse_two_keys, "{\"a\":"},
        {misuse_end_with_nothing_open, ""},
        {misuse_null_string, "["},
        {misuse_negative_float_count, ""},
    };
    assert_int_equal(JSON_MAX_DEPTH, 16); /* the depth case spells out 16 brackets */
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        Mem m;
        JsonWriter w;
        mem_open(&m);
        json_init(&w, m.f);
        w.assert_on_misuse = 0;
        CASES[i].run(&w);
        assert_int_equal(w.error, TT_EINVAL);
        assert_non_null(w.misuse);
        /* Carrying on writes nothing more. */
        json_key(&w, "later");
        json_int(&w, 3);
        json_end_array(&w);
        json_end_object(&w);
        assert_int_equal(json_finish(&w), TT_EINVAL);
        mem_done(&m);
        assert_string_equal(m.buf, CASES[i].want);
        mem_free(&m);
    }
}

/* json_finish refuses a document with open containers or no value at all; that is not
 * an assert case, so it is checked with the default writer. */
static void test_json_finish_rejects_incomplete(void **state)
{
    (void)state;
    Mem m;
    JsonWriter w;
    mem_open(&m);
    json_init(&w, m.f);
    assert_int_equal(json_finish(&w), TT_EINVAL); /* nothing written */
    json_begin_array(&w);
    json_begin_object(&w);
    json_key(&w, "k");
    assert_int_equal(json_finish(&w), TT_EINVAL); /* a key without its value */
    json_int(&w, 1);
    assert_int_equal(json_finish(&w), TT_EINVAL); /* an object still open */
    json_end_object(&w);
    assert_int_equal(json_finish(&w), TT_EINVAL); /* an array still open */
    json_end_array(&w);
    assert_int_equal(json_finish(&w), TT_OK);
    assert_null(w.misuse);
    mem_done(&m);
    assert_string_equal(m.buf, "[{\"k\":1}]");
    mem_free(&m);
}

/* Writing to a full disk (/dev/full) gives TT_EIO, unbuffered at once and buffered once
 * the buffer spills; after the failure the writer writes nothing more. */
static void test_json_dev_full_is_eio(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
    JsonWriter w;
    json_init(&w, f);
    json_begin_array(&w);
    assert_int_equal(w.error, TT_EIO);
    json_int(&w, 1);
    json_end_array(&w);
    assert_int_equal(json_finish(&w), TT_EIO);
    fclose(f); /* fails too: nothing left to flush, or EIO; either way it is closed */

    f = fopen("/dev/full", "w");
    assert_non_null(f);
    static char big[1 << 16];
    memset(big, 'x', sizeof big);
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "big");
    json_string_n(&w, big, sizeof big);
    json_end_object(&w);
    assert_int_equal(json_finish(&w), TT_EIO);
    fclose(f);
}

/* ---- jsoncheck --------------------------------------------------------------------- */

typedef struct {
    const char *text;
    size_t len;
} Text;
#define T(s) {(s), sizeof(s) - 1}

/* jsoncheck rejects each of these texts, and its message names a byte offset. */
static void test_json_check_rejects_invalid(void **state)
{
    (void)state;
    static const Text BAD[] = {
        T(""),                              /* no value */
        T(" \t\r\n"),                       /* only whitespace */
        T("[1,2,]"),                        /* trailing comma in an array */
        T("{\"a\":1,}"),                    /* trailing comma in an object */
        T("{'a':1}"),                       /* single-quoted key */
        T("['a']"),                         /* single-quoted string */
        T("\"a\tb\""),                      /* raw tab in a string */
        T("\"a\nb\""),                      /* raw newline in a string */
        T("\"\x7f\x00\""),                  /* raw NUL in a string */
        T("\"\\uD800\""),                   /* lone high surrogate escape */
        T("\"\\uDC00\""),                   /* lone low surrogate escape */
        T("\"\\uD800\\u0041\""),            /* high surrogate, then not a low one */
        T("\"\\uDBFF\\uDBFF\""),            /* two high surrogates */
        T("\"\\uD800\\\""),                 /* high surrogate, then a short escape */
        T("01"),                            /* leading zero */
        T("-01"),                           /* leading zero after the sign */
        T("NaN"),                           /* bare NaN */
        T("Infinity"),                      /* bare infinity */
        T("-Infinity"),                     /* negative infinity */
        T("+1"),                            /* plus sign */
        T("1."),                            /* no digit after the point */
        T(".5"),                            /* no digit before the point */
        T("1e"),                            /* empty exponent */
        T("1e+"),                           /* signed empty exponent */
        T("1.5e3.2"),                       /* fraction in the exponent */
        T("-"),                             /* sign alone */
        T("0x10"),                          /* hexadecimal */
        T("\"abc"),                         /* unclosed string */
        T("\"\\\""),                        /* the closing quote is escaped */
        T("[1,2"),                          /* unclosed array */
        T("{\"a\":1"),                      /* unclosed object */
        T("1 2"),                           /* two top-level values */
        T("{}{}"),                          /* two top-level objects */
        T("[1]\0"),                         /* a NUL after the value */
        T("\"\xff\""),                      /* invalid UTF-8 byte */
        T("\"\xc0\xaf\""),                  /* overlong encoding */
        T("\"\xed\xa0\x80\""),              /* UTF-8 encoded surrogate */
        T("\"\xf4\x90\x80\x80\""),          /* above U+10FFFF */
        T("\"\xe2\x82\""),                  /* truncated sequence */
        T("\"\x80\""),                      /* stray continuation byte */
        T("\xef\xbb\xbf{}"),                /* byte order mark */
        T("\"\\x41\""),                     /* unknown escape */
        T("\"\\u12G4\""),                   /* bad hex digit */
        T("\"\\u12\""),                     /* short \u escape */
        T("tru"),                           /* truncated literal */
        T("True"),                          /* literal in the wrong case */
        T("nulll"),                         /* literal with a tail */
        T("{\"a\" 1}"),                     /* missing colon */
        T("{1:2}"),                         /* non-string key */
        T("{\"a\":}"),                      /* missing member value */
        T("[1 2]"),                         /* missing comma */
        T("[,1]"),                          /* leading comma */
        T("[\"a\"\"b\"]"),                  /* two strings without a comma */
        T("\v[]"),                          /* vertical tab is not whitespace */
        T("[]\f"),                          /* form feed is not whitespace */
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char err[200] = "";
        if (jsoncheck_validate(BAD[i].text, BAD[i].len, err, sizeof err) != -1) {
            print_error("accepted invalid case %zu: %.*s\n", i, (int)BAD[i].len, BAD[i].text);
            fail();
        }
        assert_non_null(strstr(err, "byte "));
        assert_non_null(strstr(err, "expected "));
    }
}

/* jsoncheck accepts each of these texts. */
static void test_json_check_accepts_valid(void **state)
{
    (void)state;
    static const Text GOOD[] = {
        T("0"),
        T("-0"),
        T("-0.0e-0"),
        T("1E+2"),
        T("123.456e-789"),
        T("1e400"), /* the grammar has no range */
        T("true"),
        T("false"),
        T("null"),
        T("\"\""),
        T("[]"),
        T("{}"),
        T(" \t\r\n[ 1 , 2 ] \n"),
        T("{\"a\":{\"b\":[null,true,{}]},\"c\":-1.5}"),
        T("{\"a\":1,\"a\":2}"), /* duplicate keys are grammatical */
        T("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""),
        T("\"\\u0000\\u00e9\\uD83D\\uDE00\\uDBFF\\uDFFF\""),
        T("\"\xc3\xa4\xf0\x9f\x98\x80\x7f\""),
        T("\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\""), /* U+FFFF and U+10FFFF */
        T("[[[[[[]]]]]]"),
    };
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        char err[200] = "";
        if (jsoncheck_validate(GOOD[i].text, GOOD[i].len, err, sizeof err) != 0) {
            print_error("rejected valid case %zu: %.*s (%s)\n", i, (int)GOOD[i].len,
                        GOOD[i].text, err);
            fail();
        }
    }
}

/* jsoncheck's message names the offending byte's offset and what was expected there. */
static void test_json_check_message_names_offset(void **state)
{
    (void)state;
    char err[200];
    assert_int_equal(jsoncheck_validate("[1,2,]", 6, err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 5: expected a value"));
    assert_int_equal(jsoncheck_validate("{\"a\" 1}", 7, err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 5: expected ':'"));
    assert_int_equal(jsoncheck_validate("\"ab\\uDC00\"", 10, err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 3: expected a high surrogate"));
    assert_int_equal(jsoncheck_validate("\"a\xff\"", 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 2: expected well-formed UTF-8, found byte 0xFF"));
    assert_int_equal(jsoncheck_validate("[1", 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 2: expected ',' or ']'"));
    assert_non_null(strstr(err, "the end of the text"));
}

/* Nesting up to JSONCHECK_MAX_DEPTH is accepted; one level more is refused. */
static void test_json_check_depth_limit(void **state)
{
    (void)state;
    char text[2 * (JSONCHECK_MAX_DEPTH + 1)];
    for (int depth = JSONCHECK_MAX_DEPTH; depth <= JSONCHECK_MAX_DEPTH + 1; depth++) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        int rc = jsoncheck_validate(text, 2 * (size_t)depth, NULL, 0);
        assert_int_equal(rc, depth <= JSONCHECK_MAX_DEPTH ? 0 : -1);
    }
}

/* jsoncheck_get copies the raw value of a top-level member, keys compared decoded. */
static void test_json_check_get_top_level_member(void **state)
{
    (void)state;
    const char *text = " {\"a\" : [1, {\"b\":2}], \"k\\u00e9y\":\"v\", \"n\":null} ";
    size_t len = strlen(text);
    char out[64];
    assert_int_equal(jsoncheck_get(text, len, "a", out, sizeof out), 0);
    assert_string_equal(out, "[1, {\"b\":2}]");
    assert_int_equal(jsoncheck_get(text, len, "k\xc3\xa9y", out, sizeof out), 0);
    assert_string_equal(out, "\"v\"");
    assert_int_equal(jsoncheck_get(text, len, "n", out, sizeof out), 0);
    assert_string_equal(out, "null");
    assert_int_equal(jsoncheck_get(text, len, "b", out, sizeof out), -1); /* not top level */
    assert_int_equal(jsoncheck_get(text, len, "a", out, 5), -1);          /* does not fit */
    assert_int_equal(jsoncheck_get("[1]", 3, "a", out, sizeof out), -1);
    assert_int_equal(jsoncheck_get("{}", 2, "a", out, sizeof out), -1);
    assert_int_equal(jsoncheck_get("{\"a\":1,}", 8, "a", out, sizeof out), -1); /* invalid */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_nested_exact_text),
        cmocka_unit_test(test_json_ints_bools_null),
        cmocka_unit_test(test_json_every_byte_valid),
        cmocka_unit_test(test_json_line_separators_escaped),
        cmocka_unit_test(test_json_utf8_echoed_byte_for_byte),
        cmocka_unit_test(test_json_invalid_utf8_becomes_replacement),
        cmocka_unit_test(test_json_random_bytes_always_valid),
        cmocka_unit_test(test_json_random_text_round_trips),
        cmocka_unit_test(test_json_float_round_trips),
        cmocka_unit_test(test_json_nonfinite_written_as_null),
        cmocka_unit_test(test_json_lines_one_value_per_line),
        cmocka_unit_test(test_json_misuse_returns_einval),
        cmocka_unit_test(test_json_finish_rejects_incomplete),
        cmocka_unit_test(test_json_dev_full_is_eio),
        cmocka_unit_test(test_json_check_rejects_invalid),
        cmocka_unit_test(test_json_check_accepts_valid),
        cmocka_unit_test(test_json_check_message_names_offset),
        cmocka_unit_test(test_json_check_depth_limit),
        cmocka_unit_test(test_json_check_get_top_level_member),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
