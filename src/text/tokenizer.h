/*
 * tokenizer.h — text to tokens and back, through utf8proc.
 *
 * The folder text/ holds the words: this tokenizer, the reading of parallel corpora
 * (tsv), the vocabularies, the common English words and the grammar recogniser that says
 * whether a sentence is one the model was taught. It stands on base/ only.
 * docs/design.md lists the folders and their modules.
 *
 * The rules, in the order they apply:
 *   1. Validation. The input must be UTF-8 without NUL bytes. Overlong forms (including
 *      the bytes 0xC0 and 0xC1), UTF-16 surrogates (U+D800..U+DFFF), code points above
 *      U+10FFFF (and the bytes 0xF5..0xFF), stray continuation bytes and truncated
 *      sequences are errors that name the byte offset; nothing is silently replaced.
 *      Work is bounded before anything is normalised: a text longer than
 *      TOKENIZER_MAX_BYTES bytes, or with more than TOKENIZER_MAX_MARKS combining marks
 *      (non-starters) in a row, is refused, so tokenizing takes time linear in the input
 *      (NFC's canonical reordering is quadratic in the length of a run of marks; 30 is
 *      Unicode's stream-safe limit, UAX #15).
 *   2. Normalisation to NFC, so "Mädchen" typed with a combining diaeresis is the same
 *      token as the precomposed one. The source (English) side is also case-folded
 *      ("This" and "this" are one token); the target (German) side keeps its case.
 *   3. Splitting. Unicode whitespace (categories Zs, Zl, Zp) and control characters
 *      (Cc: tab, newline, carriage return, …) separate tokens. Every punctuation
 *      character (categories Pc, Pd, Ps, Pe, Pi, Pf, Po) is a token of its own, except
 *      an apostrophe (' ’) or a hyphen (- ‐ ‑) between two word characters, which stays
 *      inside the word: "don't", "well-known". Everything else is word material.
 *
 * The detokenizer joins German output for reading: tokens are separated by one space,
 * except none before closing punctuation (. , ; : ! ? … ) ] } and the German closing
 * quotes “ ‘ «) and none after opening brackets and quotes (( [ { „ ‚ »):
 * "Das ist ein Beispiel ." becomes "Das ist ein Beispiel.".
 */
#ifndef TOYTRANS_TOKENIZER_H
#define TOYTRANS_TOKENIZER_H

#include <stddef.h>

#define TOKENIZER_MAX_BYTES 65536 /* the longest text (a line) tokenize accepts */
#define TOKENIZER_MAX_MARKS 30     /* combining marks in a row tokenize accepts */

typedef enum {
    TOK_SRC = 0,        /* English: NFC, case-folded, contractions expanded */
    TOK_TGT = 1,        /* German: NFC, case kept */
    TOK_SRC_CASED = 2,  /* English as typed: TOK_SRC without case folding, so token i is
                           (unless folding changed the splitting) token
                           i of TOK_SRC as the user wrote it (an expansion's first
                           word keeps the typed case: "Don't" → "Do" "not") */
} TokLang;

/* The tokens of one text. */
typedef struct {
    int n;              /* number of tokens, >= 0 */
    const char **tok;   /* n NUL-terminated NFC UTF-8 strings, pointing into text */
    char *text;         /* storage for all tokens, owned */
    int cap;            /* slots allocated in tok */
} TokenList;

/* Where and why a text was refused. */
typedef struct {
    size_t offset;     /* byte offset of the offending byte in the input */
    char message[128]; /* e.g. "invalid UTF-8 at byte 3: overlong encoding (0xC0 0xAF)" */
} TokError;

/* Tokenizes len bytes of text (no terminator needed). Returns TT_OK; TT_EINPUT for
 * more than TOKENIZER_MAX_BYTES bytes, invalid UTF-8, a NUL byte or a run of more than
 * TOKENIZER_MAX_MARKS combining marks (err says where and what, if err is not NULL);
 * TT_ENOMEM. On failure out holds no tokens and owns nothing. Free with
 * tokenlist_free, which accepts a zeroed or freed list. */
int tokenize(TokenList *out, const char *text, size_t len, TokLang lang, TokError *err);
void tokenlist_free(TokenList *list);

/* Checks that len bytes of text are UTF-8 without NUL bytes. Returns TT_OK, or
 * TT_EINPUT with err filled (if not NULL). */
int tokenizer_validate(const char *text, size_t len, TokError *err);

/* Joins n tokens into a newly allocated NUL-terminated string, *out, owned by the caller
 * (free()). Returns TT_OK, TT_EINVAL (n < 0, NULL tokens) or TT_ENOMEM (*out NULL). */
int detokenize(char **out, const char *const *tokens, int n);

/* Checks that len bytes are a token the tokenizer could have made: not empty, UTF-8
 * without NUL bytes, in NFC, and without a character that separates tokens (rule 3:
 * whitespace Zs/Zl/Zp or a control character Cc, such as tab, newline or ESC), which
 * would break the line structure of anything printed. Returns TT_OK, or TT_EINPUT with
 * why (if not NULL, whylen bytes) saying what is wrong and at which byte; TT_ENOMEM. */
int tokenizer_check_token(const char *token, size_t len, char *why, size_t whylen);

/* Removes a UTF-8 byte-order mark (EF BB BF) from the start of the len bytes at text, in
 * place, and returns the length left: len - 3 with a mark, else len. Readers call it on
 * the first line of a file, so that an editor's mark is not glued to the first word. */
size_t tokenizer_strip_bom(char *text, size_t len);

/* Whether a translation hyp equals its reference ref (both NUL-terminated UTF-8) for exact
 * match in a target language tokenized by rules: byte for byte under the cased rules
 * (German: a translation is exact only when every letter and space is), and token for
 * token under the English rules, which fold case and expand contractions, and with its
 * commas left out, as a corpus sentence's core is (docs/corpus.md): "I don't see Anna,"
 * equals "i do not see anna" (what a German→English model writes). *same
 * is 1 or 0. Returns TT_OK, TT_EINPUT (either text not tokenizable) or TT_ENOMEM. */
int tokenizer_text_equal(const char *hyp, const char *ref, TokLang rules, int *same);

/* Whether token (NUL-terminated UTF-8) is punctuation: the tokenizer makes every
 * punctuation character a token of its own, so its first character decides. 0 for NULL,
 * an empty or an invalid token. */
int tokenizer_is_punctuation(const char *token);

#endif
