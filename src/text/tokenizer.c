/*
 * tokenizer.c — validation, NFC (and case folding), splitting, joining.
 *
 * utf8proc does the Unicode work: utf8proc_iterate decodes and rejects every invalid
 * sequence, utf8proc_map normalises, utf8proc_category classifies. The bytes of an
 * invalid sequence are looked at only to name what is wrong with them.
 *
 * utf8proc_map is called with STABLE | COMPOSE (| CASEFOLD) and never with CHARBOUND:
 * Debian's utf8proc 2.8.0 reads out of bounds when CHARBOUND is combined with COMPOSE or
 * DECOMPOSE.
 */
#include "text/tokenizer.h"

#include "base/status.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static void tok_error(TokError *err, size_t offset, const char *what, const unsigned char *p,
                      size_t avail)
{
    if (!err)
        return;
    err->offset = offset;
    char bytes[32] = "";
    size_t show = avail < 4 ? avail : 4, used = 0;
    for (size_t i = 0; i < show && used + 6 < sizeof bytes; i++)
        used += (size_t)snprintf(bytes + used, sizeof bytes - used, "%s0x%02X", i ? " " : "",
                                 p[i]);
    snprintf(err->message, sizeof err->message, "invalid UTF-8 at byte %zu: %s (%s)", offset,
             what, bytes);
}

static int is_continuation(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* Names what is wrong with the invalid sequence at p (avail bytes left). */
static const char *tok_classify(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    if (is_continuation(c))
        return "continuation byte without a lead byte";
    if (c == 0xC0 || c == 0xC1)
        return "overlong encoding";
    if (c >= 0xF5)
        return "byte that never occurs in UTF-8";
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    for (size_t i = 1; i < need; i++)
        if (i >= avail || !is_continuation(p[i]))
            return "truncated sequence";
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xF0 && p[1] < 0x90))
        return "overlong encoding";
    if (c == 0xED && p[1] >= 0xA0)
        return "UTF-16 surrogate";
    if (c == 0xF4 && p[1] >= 0x90)
        return "code point above U+10FFFF";
    return "invalid sequence";
}

int tokenizer_validate(const char *text, size_t len, TokError *err)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        if (s[i] == 0) {
            if (err) {
                err->offset = i;
                snprintf(err->message, sizeof err->message, "NUL byte at byte %zu", i);
            }
            return TT_EINPUT;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n < 1) {
            tok_error(err, i, tok_classify(s + i, len - i), s + i, len - i);
            return TT_EINPUT;
        }
        i += (size_t)n;
    }
    return TT_OK;
}

void tokenlist_free(TokenList *list)
{
    if (!list)
        return;
    free(list->tok);
    free(list->text);
    memset(list, 0, sizeof *list);
}

/* Character classes for splitting. */
typedef enum { CH_SPACE, CH_PUNCT, CH_JOINER, CH_WORD } CharClass;

/* Whether cp is punctuation: categories Pc, Pd, Ps, Pe, Pi, Pf, Po. */
static int is_punct(utf8proc_int32_t cp)
{
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
        return 1;
    default:
        return 0;
    }
}

static CharClass char_class(utf8proc_int32_t cp)
{
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_CC:
        return CH_SPACE;
    default:
        break;
    }
    if (!is_punct(cp))
        return CH_WORD;
    /* ' ’ - ‐ ‑ may join two word characters into one word. */
    if (cp == 0x27 || cp == 0x2019 || cp == 0x2D || cp == 0x2010 || cp == 0x2011)
        return CH_JOINER;
    return CH_PUNCT;
}

/* ---------------------------------------------------------------------------------------
 * Contractions (English)
 */

/* The contractions the English side expands, written with ' (which also matches ’), and
 * their two-word expansions. The first word of each expansion is the contraction's first
 * letters, which lets the case-kept tokenization keep the typed case of that word. */
static const struct {
    const char *contraction; /* lower case ASCII, with ' */
    const char *first;       /* a prefix of contraction */
    const char *second;
} CONTRACTIONS[] = {
    {"don't", "do", "not"},      {"doesn't", "does", "not"}, {"isn't", "is", "not"},
    {"aren't", "are", "not"},    {"i'm", "i", "am"},         {"you're", "you", "are"},
    {"he's", "he", "is"},        {"she's", "she", "is"},     {"it's", "it", "is"},
    {"we're", "we", "are"},      {"they're", "they", "are"},
};

/* Whether word (NUL-terminated) spells pattern: ASCII letters in either case, and ' as
 * ' or ’ (U+2019). */
static int spells(const char *word, const char *pattern)
{
    const unsigned char *w = (const unsigned char *)word;
    for (const char *p = pattern; *p; p++) {
        if (*p == '\'') {
            if (w[0] == '\'')
                w += 1;
            else if (w[0] == 0xE2 && w[1] == 0x80 && w[2] == 0x99)
                w += 3;
            else
                return 0;
        } else {
            const unsigned char c = *w >= 'A' && *w <= 'Z' ? (unsigned char)(*w + 32) : *w;
            if (c != (unsigned char)*p)
                return 0;
            w++;
        }
    }
    return *w == '\0';
}

/* The table entry word spells, or -1. */
static int contraction_find(const char *word)
{
    for (int i = 0; i < (int)(sizeof CONTRACTIONS / sizeof CONTRACTIONS[0]); i++)
        if (spells(word, CONTRACTIONS[i].contraction))
            return i;
    return -1;
}

static int tokenlist_push(TokenList *list, const char *token)
{
    if (list->n == list->cap) {
        int cap = list->cap ? list->cap * 2 : 16;
        const char **p = realloc(list->tok, sizeof(char *) * (size_t)cap);
        if (!p)
            return TT_ENOMEM;
        list->tok = p;
        list->cap = cap;
    }
    list->tok[list->n++] = token;
    return TT_OK;
}

/* Ends the word that starts at start and runs to *w: terminates it and pushes it, or,
 * for an English contraction, rewrites it in place as its two words and pushes both. */
static int push_word(TokenList *list, char *start, char **w, int english)
{
    *(*w)++ = '\0';
    const int k = english ? contraction_find(start) : -1;
    if (k < 0)
        return tokenlist_push(list, start);
    /* The first word is the word's own first bytes (typed case kept); the second follows
     * it. The rewrite only grows the word by one byte (see tokenize's buffer bound). */
    const size_t n1 = strlen(CONTRACTIONS[k].first), n2 = strlen(CONTRACTIONS[k].second);
    start[n1] = '\0';
    char *second = start + n1 + 1;
    memcpy(second, CONTRACTIONS[k].second, n2 + 1);
    *w = second + n2 + 1;
    int rc = tokenlist_push(list, start);
    return rc == TT_OK ? tokenlist_push(list, second) : rc;
}

/* Refuses more than TOKENIZER_MAX_MARKS non-starters (combining class > 0) in a row.
 * NFC puts each run of them in canonical order by an insertion sort, so one long run
 * costs time quadratic in its length; bounded runs keep normalisation linear. text is
 * valid UTF-8 (tokenizer_validate). */
static int check_mark_runs(const char *text, size_t len, TokError *err)
{
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)text;
    size_t run = 0, run_start = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
        assert(n > 0);
        if (utf8proc_get_property(cp)->combining_class == 0) {
            run = 0;
        } else {
            if (run++ == 0)
                run_start = i;
            if (run > TOKENIZER_MAX_MARKS) {
                if (err) {
                    err->offset = i;
                    snprintf(err->message, sizeof err->message,
                             "more than %d combining marks in a row from byte %zu",
                             TOKENIZER_MAX_MARKS, run_start);
                }
                return TT_EINPUT;
            }
        }
        i += (size_t)n;
    }
    return TT_OK;
}

int tokenize(TokenList *out, const char *text, size_t len, TokLang lang, TokError *err)
{
    if (!out)
        return TT_EINVAL;
    memset(out, 0, sizeof *out);
    if (!text && len > 0)
        return TT_EINVAL;
    /* Checked before anything reads the text, so that a line's cost is bounded. */
    if (len > TOKENIZER_MAX_BYTES) {
        if (err) {
            err->offset = TOKENIZER_MAX_BYTES;
            /* No count: a line reader stops at the bound, so the whole length of a
             * line (of /dev/zero, say) is not known; every reader words it so. */
            snprintf(err->message, sizeof err->message,
                     "more than the %d bytes a line may have", TOKENIZER_MAX_BYTES);
        }
        return TT_EINPUT;
    }
    int rc = tokenizer_validate(text, len, err);
    if (rc == TT_OK)
        rc = check_mark_runs(text, len, err);
    if (rc != TT_OK)
        return rc;
    if (len == 0)
        return TT_OK;

    utf8proc_uint8_t *norm = NULL;
    utf8proc_option_t opts = UTF8PROC_STABLE | UTF8PROC_COMPOSE;
    if (lang == TOK_SRC)
        opts |= UTF8PROC_CASEFOLD;
    const int english = lang == TOK_SRC || lang == TOK_SRC_CASED;
    utf8proc_ssize_t nlen = utf8proc_map((const utf8proc_uint8_t *)text, (utf8proc_ssize_t)len,
                                         &norm, opts);
    if (nlen < 0) {
        /* Validation passed, so this is memory or an internal limit. */
        if (err) {
            err->offset = 0;
            snprintf(err->message, sizeof err->message, "cannot normalise the text: %s",
                     utf8proc_errmsg(nlen));
        }
        return nlen == UTF8PROC_ERROR_NOMEM ? TT_ENOMEM : TT_EINPUT;
    }

    /* Each token is copied followed by a NUL; at worst every character is a token, so
     * twice the normalised length is enough. An expanded contraction takes one byte more
     * than the word and its NUL ("don't" 6, "do not" 7), and every contraction has at
     * least 3 bytes, so it stays within twice its length too. */
    out->text = malloc(2 * (size_t)nlen + 1);
    if (!out->text) {
        rc = TT_ENOMEM;
        goto fail;
    }
    char *w = out->text;
    char *start = NULL; /* start in w of the word being built, or NULL */
    utf8proc_ssize_t i = 0;
    while (i < nlen) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(norm + i, nlen - i, &cp);
        /* NFC output of valid input is valid. */
        if (n < 1) {
            rc = TT_EINPUT;
            goto fail;
        }
        CharClass cls = char_class(cp);
        if (cls == CH_JOINER && start) {
            /* Joins only when the next character is word material. */
            utf8proc_int32_t next;
            if (i + n < nlen && utf8proc_iterate(norm + i + n, nlen - i - n, &next) > 0 &&
                char_class(next) == CH_WORD)
                cls = CH_WORD;
        }
        if (cls == CH_JOINER)
            cls = CH_PUNCT;
        if (cls != CH_WORD && start) {
            if ((rc = push_word(out, start, &w, english)) != TT_OK)
                goto fail;
            start = NULL;
        }
        if (cls == CH_WORD) {
            if (!start)
                start = w;
            memcpy(w, norm + i, (size_t)n);
            w += n;
        } else if (cls == CH_PUNCT) {
            const char *p = w;
            memcpy(w, norm + i, (size_t)n);
            w += n;
            *w++ = '\0';
            if ((rc = tokenlist_push(out, p)) != TT_OK)
                goto fail;
        }
        i += n;
    }
    if (start && (rc = push_word(out, start, &w, english)) != TT_OK)
        goto fail;
    free(norm);
    return TT_OK;
fail:
    free(norm);
    tokenlist_free(out);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Detokenizer
 */

/* German typography decides, not the Unicode category: „Hallo“ opens with U+201E (Ps)
 * and closes with U+201C, which Unicode calls an *initial* quote (Pi); »so« opens with »
 * (Pf) and closes with « (Pi). */
static const char *const CLOSING[] = {".", ",", ";", ":", "!", "?", "\xe2\x80\xa6" /* … */,
                                      ")", "]", "}", "\xe2\x80\x9c" /* “ */,
                                      "\xe2\x80\x98" /* ‘ */, "\xc2\xab" /* « */};
static const char *const OPENING[] = {"(", "[", "{", "\xe2\x80\x9e" /* „ */,
                                      "\xe2\x80\x9a" /* ‚ */, "\xc2\xbb" /* » */};

static int in_set(const char *tok, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tok, set[i]) == 0)
            return 1;
    return 0;
}

static int attaches_left(const char *tok)
{
    return in_set(tok, CLOSING, sizeof CLOSING / sizeof CLOSING[0]);
}

static int attaches_right(const char *tok)
{
    return in_set(tok, OPENING, sizeof OPENING / sizeof OPENING[0]);
}

int detokenize(char **out, const char *const *tokens, int n)
{
    if (!out)
        return TT_EINVAL;
    *out = NULL;
    if (n < 0 || (n > 0 && !tokens))
        return TT_EINVAL;
    size_t size = 1;
    for (int i = 0; i < n; i++) {
        if (!tokens[i])
            return TT_EINVAL;
        size += strlen(tokens[i]) + 1;
    }
    char *s = malloc(size), *w = s;
    if (!s)
        return TT_ENOMEM;
    for (int i = 0; i < n; i++) {
        if (i > 0 && !attaches_left(tokens[i]) && !attaches_right(tokens[i - 1]))
            *w++ = ' ';
        size_t len = strlen(tokens[i]);
        memcpy(w, tokens[i], len);
        w += len;
    }
    *w = '\0';
    *out = s;
    return TT_OK;
}

int tokenizer_check_token(const char *token, size_t len, char *why, size_t whylen)
{
    char dummy[1];
    if (!why) {
        why = dummy;
        whylen = sizeof dummy;
    }
    TokError te;
    if (len == 0) {
        snprintf(why, whylen, "is empty");
        return TT_EINPUT;
    }
    if (tokenizer_validate(token, len, &te) != TT_OK) {
        snprintf(why, whylen, "is not valid UTF-8: %s", te.message);
        return TT_EINPUT;
    }
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)token;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
        assert(n > 0); /* validated above */
        if (char_class(cp) == CH_SPACE) {
            snprintf(why, whylen, "contains U+%04X (%s) at byte %zu", (unsigned)cp,
                     utf8proc_category(cp) == UTF8PROC_CATEGORY_CC ? "a control character"
                                                                   : "whitespace",
                     i);
            return TT_EINPUT;
        }
        i += (size_t)n;
    }
    utf8proc_uint8_t *norm = NULL;
    utf8proc_ssize_t nlen = utf8proc_map(s, (utf8proc_ssize_t)len, &norm,
                                         UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (nlen < 0) {
        snprintf(why, whylen, "cannot be normalised: %s", utf8proc_errmsg(nlen));
        return nlen == UTF8PROC_ERROR_NOMEM ? TT_ENOMEM : TT_EINPUT;
    }
    const int nfc = (size_t)nlen == len && memcmp(norm, s, len) == 0;
    free(norm);
    if (!nfc) {
        snprintf(why, whylen, "is not in NFC (Unicode normalisation form C)");
        return TT_EINPUT;
    }
    return TT_OK;
}

size_t tokenizer_strip_bom(char *text, size_t len)
{
    if (len < 3 || memcmp(text, "\xEF\xBB\xBF", 3) != 0)
        return len;
    memmove(text, text + 3, len - 3);
    return len - 3;
}

int tokenizer_is_punctuation(const char *token)
{
    utf8proc_int32_t cp;
    if (!token || utf8proc_iterate((const utf8proc_uint8_t *)token, -1, &cp) < 1)
        return 0;
    return is_punct(cp);
}

int tokenizer_text_equal(const char *hyp, const char *ref, TokLang rules, int *same)
{
    *same = 0;
    if (rules != TOK_SRC) {
        *same = strcmp(hyp, ref) == 0;
        return TT_OK;
    }
    TokenList a = {0}, b = {0};
    int rc = tokenize(&a, hyp, strlen(hyp), rules, NULL);
    if (rc == TT_OK)
        rc = tokenize(&b, ref, strlen(ref), rules, NULL);
    /* Commas aside: the corpus writes the optional one before the "and" of two clauses
     * or leaves it out, and German gives no hint which (docs/corpus.md: a sentence's
     * core has no commas). */
    for (int i = 0, j = 0; rc == TT_OK;) {
        while (i < a.n && strcmp(a.tok[i], ",") == 0)
            i++;
        while (j < b.n && strcmp(b.tok[j], ",") == 0)
            j++;
        if (i == a.n || j == b.n) {
            *same = i == a.n && j == b.n;
            break;
        }
        if (strcmp(a.tok[i++], b.tok[j++]) != 0)
            break;
    }
    tokenlist_free(&b);
    tokenlist_free(&a);
    return rc;
}
