/*
 * test_vocab.c — vocabulary ids: the reserved four, descending counts, ties in byte
 * order, min_count, lookups, and the checks on a stored token list.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "text/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void count_all(VocabCounter *c, const char *const *tokens, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_int_equal(vocab_counter_add(c, tokens[i]), TT_OK);
}

/* Ids: the four specials, then by descending count, ties in byte order. */
static void test_vocab_ids_by_count_then_bytes(void **state)
{
    (void)state;
    static const char *const TOKS[] = {"b", "a", "c", "a", "b", "a", "Z", "\xc3\xa4", "d"};
    VocabCounter c;
    vocab_counter_init(&c);
    count_all(&c, TOKS, sizeof TOKS / sizeof TOKS[0]);
    Vocab v;
    assert_int_equal(vocab_build(&v, &c, 1), TT_OK);
    static const char *const WANT[] = {"<pad>", "<unk>", "<s>", "</s>", "a", "b",
                                       "Z", "c", "d", "\xc3\xa4"};
    assert_int_equal(v.size, 10);
    for (int i = 0; i < v.size; i++) {
        assert_string_equal(v.tokens[i], WANT[i]);
        assert_int_equal(vocab_lookup(&v, WANT[i]), i);
    }
    assert_int_equal(v.counts[4], 3);
    assert_int_equal(v.counts[5], 2);
    assert_int_equal(v.counts[0], 0);
    vocab_free(&v);
    vocab_counter_free(&c);
}

/* The same multiset of tokens in any order gives the identical vocabulary. */
static void test_vocab_deterministic_in_any_order(void **state)
{
    (void)state;
    char buf[2][400][8];
    VocabCounter c[2];
    Vocab v[2];
    for (int k = 0; k < 2; k++) {
        vocab_counter_init(&c[k]);
        for (int i = 0; i < 400; i++) {
            int j = k == 0 ? i : 399 - i; /* reversed order the second time */
            snprintf(buf[k][i], sizeof buf[k][i], "w%d", (j * 7) % 53);
            assert_int_equal(vocab_counter_add(&c[k], buf[k][i]), TT_OK);
        }
        assert_int_equal(vocab_build(&v[k], &c[k], 1), TT_OK);
    }
    assert_int_equal(v[0].size, v[1].size);
    for (int i = 0; i < v[0].size; i++) {
        assert_string_equal(v[0].tokens[i], v[1].tokens[i]);
        assert_int_equal(v[0].counts[i], v[1].counts[i]);
    }
    for (int k = 0; k < 2; k++) {
        vocab_free(&v[k]);
        vocab_counter_free(&c[k]);
    }
}

/* min_count drops rare tokens (they become <unk>); tokens spelled like specials are
 * never given a second id. */
static void test_vocab_min_count_and_specials(void **state)
{
    (void)state;
    static const char *const TOKS[] = {"x", "x", "y", "<unk>", "<s>", "<s>", "z", "z", "z"};
    VocabCounter c;
    vocab_counter_init(&c);
    count_all(&c, TOKS, sizeof TOKS / sizeof TOKS[0]);
    Vocab v;
    assert_int_equal(vocab_build(&v, &c, 2), TT_OK);
    assert_int_equal(v.size, 6);
    assert_string_equal(v.tokens[4], "z");
    assert_string_equal(v.tokens[5], "x");
    assert_int_equal(vocab_lookup(&v, "y"), VOCAB_UNK);
    assert_int_equal(vocab_lookup(&v, "<s>"), VOCAB_BOS);
    assert_int_equal(vocab_lookup(&v, "</s>"), VOCAB_EOS);
    assert_int_equal(vocab_lookup(&v, "<pad>"), VOCAB_PAD);
    assert_int_equal(vocab_lookup(&v, "never seen"), VOCAB_UNK);
    vocab_free(&v);
    assert_int_equal(vocab_build(&v, &c, 0), TT_EINVAL);
    vocab_counter_free(&c);
}

/* Many distinct tokens: the hash index grows and every token keeps its own id. */
static void test_vocab_many_tokens(void **state)
{
    (void)state;
    VocabCounter c;
    vocab_counter_init(&c);
    char tok[16];
    for (int i = 0; i < 20000; i++) {
        snprintf(tok, sizeof tok, "t%05d", i);
        assert_int_equal(vocab_counter_add(&c, tok), TT_OK);
    }
    Vocab v;
    assert_int_equal(vocab_build(&v, &c, 1), TT_OK);
    assert_int_equal(v.size, 20000 + VOCAB_N_SPECIAL);
    for (int i = 0; i < 20000; i++) {
        snprintf(tok, sizeof tok, "t%05d", i);
        /* all counts tie at 1, so byte order decides */
        assert_int_equal(vocab_lookup(&v, tok), VOCAB_N_SPECIAL + i);
    }
    vocab_free(&v);
    vocab_counter_free(&c);
}

/* A stored token list must start with the specials and hold no token twice. */
static void test_vocab_from_tokens_checks(void **state)
{
    (void)state;
    const char *good[] = {"<pad>", "<unk>", "<s>", "</s>", "Das", "ist"};
    const char *swapped[] = {"<unk>", "<pad>", "<s>", "</s>", "Das"};
    const char *dup[] = {"<pad>", "<unk>", "<s>", "</s>", "Das", "ist", "Das"};
    const char *empty[] = {"<pad>", "<unk>", "<s>", "</s>", ""};
    Vocab v;
    char err[200];
    assert_int_equal(vocab_from_tokens(&v, good, NULL, 6, err, sizeof err), TT_OK);
    assert_int_equal(vocab_lookup(&v, "ist"), 5);
    vocab_free(&v);
    assert_int_equal(vocab_from_tokens(&v, swapped, NULL, 5, err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "id 0 must be <pad>"));
    assert_int_equal(vocab_from_tokens(&v, dup, NULL, 7, err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "'Das' appears twice"));
    assert_int_equal(vocab_from_tokens(&v, empty, NULL, 5, err, sizeof err), TT_EINPUT);
    assert_non_null(strstr(err, "empty token"));
    assert_int_equal(vocab_from_tokens(&v, good, NULL, 3, err, sizeof err), TT_EINPUT);
    assert_null(v.tokens);
    vocab_free(&v);
}

/* The readable list is "id TAB token TAB count" under a header, written atomically. */
/* A stored token must be one the tokenizer could make: a newline,
 * tab, ESC or space in it, invalid UTF-8 or a form other than NFC is refused, naming the
 * id and the fault, with the token's unprintable bytes escaped. */
static void test_vocab_from_tokens_refuses_tokens_the_tokenizer_cannot_make(void **state)
{
    (void)state;
    static const struct {
        const char *token;
        const char *said; /* expected in the message */
    } BAD[] = {
        {"zwei\nZeilen", "id 4, token 'zwei\\x0AZeilen', contains U+000A (a control character) at byte 4"},
        {"a\tb", "contains U+0009 (a control character) at byte 1"},
        {"\x1b[31mrot", "token '\\x1B[31mrot', contains U+001B (a control character) at byte 0"},
        {"zwei Worte", "contains U+0020 (whitespace) at byte 4"},
        {"\xc2\x85", "contains U+0085 (a control character)"},
        {"bad\xff", "is not valid UTF-8"},
        {"\xc0\xaf", "is not valid UTF-8"},
        {"Ma\xcc\x88" "dchen", "token 'Ma\\xCC\\x88dchen', is not in NFC"},
    };
    char err[256];
    Vocab v;
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
        const char *toks[] = {"<pad>", "<unk>", "<s>", "</s>", BAD[k].token, "gut"};
        assert_int_equal(vocab_from_tokens(&v, toks, NULL, 6, err, sizeof err), TT_EINPUT);
        if (!strstr(err, BAD[k].said))
            fail_msg("token %zu: expected \"%s\" in \"%s\"", k, BAD[k].said, err);
        assert_null(strchr(err, '\n'));
    }
    /* Precomposed (NFC) letters, punctuation and symbols are tokens like any other. */
    const char *good[] = {"<pad>", "<unk>", "<s>", "</s>", "M\xc3\xa4\x64\x63hen", "\xe2\x80\x9e",
                          "don't", "\xe2\x82\xac"};
    assert_int_equal(vocab_from_tokens(&v, good, NULL, 8, err, sizeof err), TT_OK);
    vocab_free(&v);
}

static void test_vocab_write_tsv(void **state)
{
    (void)state;
    const char *toks[] = {"<pad>", "<unk>", "<s>", "</s>", "gro\xc3\x9f"};
    const int64_t counts[] = {0, 0, 0, 0, 42};
    Vocab v;
    assert_int_equal(vocab_from_tokens(&v, toks, counts, 5, NULL, 0), TT_OK);
    char dir[] = "/tmp/toytrans-vocab-XXXXXX", path[64], err[200];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/de.tsv", dir);
    assert_int_equal(vocab_write_tsv(&v, path, err, sizeof err), TT_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char text[256] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_string_equal(text, "id\ttoken\tcount\n0\t<pad>\t0\n1\t<unk>\t0\n2\t<s>\t0\n3\t</s>\t0\n"
                              "4\tgro\xc3\x9f\t42\n");
    /* An unwritable place fails cleanly. */
    snprintf(path, sizeof path, "%s/missing/de.tsv", dir);
    assert_int_equal(vocab_write_tsv(&v, path, err, sizeof err), TT_EIO);
    assert_non_null(strstr(err, "missing/de.tsv"));
    snprintf(path, sizeof path, "%s/de.tsv", dir);
    remove(path);
    rmdir(dir);
    vocab_free(&v);
}

/* The corpus checksum recorded in a model's provenance is FNV-1a 64 over the pairs as
 * "src TAB tgt LF". The expected value was computed independently, in Python:
 *   h = 0xcbf29ce484222325
 *   for b in b"the dog\tder Hund\n": h = ((h ^ b) * 0x100000001b3) % 2**64
 * giving 0x4a49eb029a60e9c5. */
static void test_vocab_corpus_checksum_is_fnv1a(void **state)
{
    (void)state;
    char dir[] = "/tmp/toytrans-vocab-XXXXXX", path[64], err[200];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.tsv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("the dog\tder Hund\n", f);
    fclose(f);
    VocabCounter src, tgt;
    vocab_counter_init(&src);
    vocab_counter_init(&tgt);
    CorpusCount count;
    assert_int_equal(
        vocab_count_corpus(path, 0, 0, &src, &tgt, &count, NULL, NULL, err, sizeof err), TT_OK);
    assert_int_equal(count.pairs, 1);
    assert_true(count.checksum == UINT64_C(0x4a49eb029a60e9c5));
    vocab_counter_free(&tgt);
    vocab_counter_free(&src);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vocab_ids_by_count_then_bytes),
        cmocka_unit_test(test_vocab_deterministic_in_any_order),
        cmocka_unit_test(test_vocab_min_count_and_specials),
        cmocka_unit_test(test_vocab_many_tokens),
        cmocka_unit_test(test_vocab_from_tokens_checks),
        cmocka_unit_test(test_vocab_from_tokens_refuses_tokens_the_tokenizer_cannot_make),
        cmocka_unit_test(test_vocab_write_tsv),
        cmocka_unit_test(test_vocab_corpus_checksum_is_fnv1a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
