/*
 * fuzz_tokenizer.c — arbitrary bytes through the tokenizer (tokenizer.h).
 *
 * For every input:
 *   - tokenizer_validate and tokenize (both languages) agree: tokenize succeeds exactly
 *     when validation does, and a refusal names the same byte offset, inside the input,
 *     with a message;
 *   - every token is non-empty, valid UTF-8 without a separator (Unicode space or control
 *     character) in it;
 *   - detokenize accepts the tokens and returns valid UTF-8 of the expected length;
 *   - tokenizing the detokenized text the same way gives back the same tokens: on the
 *     German side, what the translator prints reads back as what it produced; on the
 *     English sides, an expanded contraction never expands or joins again;
 *   - the English side with and without case folding (TOK_SRC, TOK_SRC_CASED) both hold
 *     the properties above.
 */
#include "fuzz.h"

#include "base/status.h"
#include "text/tokenizer.h"

#include <string.h>
#include <utf8proc.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Whether tok holds a character that tokenize treats as a separator. */
static int has_separator(const char *tok)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)tok;
    utf8proc_ssize_t len = (utf8proc_ssize_t)strlen(tok), i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(p + i, len - i, &cp);
        FUZZ_ASSERT(n > 0);
        switch (utf8proc_category(cp)) {
        case UTF8PROC_CATEGORY_ZS:
        case UTF8PROC_CATEGORY_ZL:
        case UTF8PROC_CATEGORY_ZP:
        case UTF8PROC_CATEGORY_CC:
            return 1;
        default:
            break;
        }
        i += n;
    }
    return 0;
}

/* Checks one successful tokenization of lang. */
static void check_tokens(const TokenList *list, TokLang lang)
{
    FUZZ_ASSERT(list->n >= 0 && list->n <= list->cap);
    FUZZ_ASSERT(list->n == 0 || (list->tok && list->text));
    size_t expect = 1;
    for (int i = 0; i < list->n; i++) {
        const char *tok = list->tok[i];
        FUZZ_ASSERT(tok && tok[0] != '\0');
        FUZZ_ASSERT(tokenizer_validate(tok, strlen(tok), NULL) == TT_OK);
        FUZZ_ASSERT(!has_separator(tok));
        expect += strlen(tok) + 1;
    }

    char *joined = NULL;
    int rc = detokenize(&joined, list->tok, list->n);
    if (rc == TT_ENOMEM)
        return;
    FUZZ_ASSERT(rc == TT_OK && joined);
    const size_t len = strlen(joined);
    FUZZ_ASSERT(len < expect);
    FUZZ_ASSERT(tokenizer_validate(joined, len, NULL) == TT_OK);

    {
        TokenList again;
        rc = tokenize(&again, joined, len, lang, NULL);
        FUZZ_ASSERT(rc == TT_OK || rc == TT_ENOMEM);
        if (rc == TT_OK) {
            FUZZ_ASSERT(again.n == list->n);
            for (int i = 0; i < list->n; i++)
                FUZZ_ASSERT(strcmp(again.tok[i], list->tok[i]) == 0);
        }
        tokenlist_free(&again);
    }
    free(joined);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    TokError verr;
    memset(&verr, 0, sizeof verr);
    const int vrc = tokenizer_validate(text, size, &verr);
    FUZZ_ASSERT(vrc == TT_OK || vrc == TT_EINPUT);
    if (vrc == TT_EINPUT) {
        FUZZ_ASSERT(verr.offset < size);
        FUZZ_ASSERT(verr.message[0] != '\0');
        FUZZ_ASSERT(memchr(verr.message, '\0', sizeof verr.message) != NULL);
    }
    FUZZ_ASSERT(tokenizer_validate(text, size, NULL) == vrc);

    const TokLang langs[] = {TOK_SRC, TOK_TGT, TOK_SRC_CASED};
    for (size_t k = 0; k < sizeof langs / sizeof langs[0]; k++) {
        TokenList list;
        TokError terr;
        memset(&terr, 0, sizeof terr);
        int rc = tokenize(&list, text, size, langs[k], &terr);
        if (rc == TT_ENOMEM) {
            FUZZ_ASSERT(list.n == 0 && !list.tok && !list.text);
            continue;
        }
        FUZZ_ASSERT(rc == TT_OK || rc == TT_EINPUT);
        FUZZ_ASSERT((rc == TT_OK) == (vrc == TT_OK));
        if (rc == TT_OK) {
            check_tokens(&list, langs[k]);
        } else {
            FUZZ_ASSERT(list.n == 0 && !list.tok && !list.text);
            FUZZ_ASSERT(terr.offset == verr.offset);
            FUZZ_ASSERT(strcmp(terr.message, verr.message) == 0);
        }
        tokenlist_free(&list);
    }
    return 0;
}
