/*
 * fuzz_translate.c — one input line through translator_run (translator.h).
 *
 * The model is tests/fuzz/tiny.db (tests/fuzz/make_seeds.sh makes it: d_model 8, 2 heads,
 * 1 + 1 layers, max_len 12, random weights), or the file $TOYTRANS_FUZZ_MODEL names; it
 * is loaded once, with the translators, by LLVMFuzzerInitialize. Its small vocabulary
 * makes most words unknown, so the copying of source words for <unk> gets exercised, and
 * its short max_len makes long inputs hit the length limit.
 *
 * Each input is translated by three translators that live across inputs (as in
 * `toytrans translate` reading lines): greedy; beam 2 with 3 alternatives per step;
 * beam 2 with a forced prefix and <unk> kept. Each run must give TT_OK or TT_EINPUT with
 * a message, nothing else; a result must be consistent (token counts within the limit,
 * the prefix forced, every word and the text valid UTF-8) and its JSON record writable.
 */
#include "fuzz.h"

#include "base/status.h"
#include "model/model.h"
#include "text/tokenizer.h"
#include "translate/translator.h"

#include <string.h>

#define N_TRANSLATORS 3

static Model model;
static Translator translators[N_TRANSLATORS];
static FILE *devnull;

static void cleanup(void)
{
    for (int i = 0; i < N_TRANSLATORS; i++)
        translator_free(&translators[i]);
    model_free(&model);
    if (devnull)
        fclose(devnull);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("TOYTRANS_FUZZ_MODEL");
    if (!path || !*path)
        path = "tests/fuzz/tiny.db";
    char err[512];
    if (model_load_file(&model, path, err, sizeof err) != TT_OK) {
        fprintf(stderr, "fuzz_translate: %s (run from the repository root, or set "
                        "TOYTRANS_FUZZ_MODEL)\n", err);
        abort();
    }
    const TranslatorOptions options[N_TRANSLATORS] = {
        {.decode = {.beam = 1}},
        {.decode = {.beam = 2}, .alternatives = 3},
        {.decode = {.beam = 2}, .keep_unk = 1, .prefix = "Das ist"},
    };
    for (int i = 0; i < N_TRANSLATORS; i++)
        if (translator_init(&translators[i], &model, &options[i], err, sizeof err) != TT_OK) {
            fprintf(stderr, "fuzz_translate: translator %d: %s\n", i, err);
            abort();
        }
    devnull = fopen("/dev/null", "w");
    FUZZ_ASSERT(devnull);
    atexit(cleanup);
    return 0;
}

static void check_result(const Translator *tr, const TranslatorResult *r, const char *line,
                         size_t len)
{
    const Translation *t = r->t;
    FUZZ_ASSERT(r->model == &model && t && r->text && r->src && r->surface);
    FUZZ_ASSERT(r->src->n + 1 <= model.config.max_len);
    /* The output limit: the one asked for, else DECODE_LIMIT of the sentence; never
     * more than max_len. */
    const int limit = decode_limit(&model, &tr->decode, r->src->n + 1);
    FUZZ_ASSERT(t->n >= 0 && t->n <= limit && t->n <= model.config.max_len);
    FUZZ_ASSERT(r->n_text >= 0 && r->n_text <= t->n);
    FUZZ_ASSERT(r->src->n == 0 ? t->n == 0 && r->text[0] == '\0'
                               : t->S == r->src->n + 1 && t->n > t->n_forced);
    if (t->n > 0)
        FUZZ_ASSERT(t->n_forced == tr->prefix.n);
    FUZZ_ASSERT(r->surface->n == r->src->n);
    for (int i = 0; i < t->n; i++) {
        FUZZ_ASSERT(t->ids[i] >= 0 && t->ids[i] < model.tgt_vocab.size);
        FUZZ_ASSERT(r->tokens[i] && r->words[i] && r->words[i][0] != '\0');
        FUZZ_ASSERT(tokenizer_validate(r->words[i], strlen(r->words[i]), NULL) == TT_OK);
    }
    for (int i = 0; i < t->n_forced && i < t->n; i++)
        FUZZ_ASSERT(strcmp(r->tokens[i], tr->prefix.tok[i]) == 0);
    FUZZ_ASSERT(tokenizer_validate(r->text, strlen(r->text), NULL) == TT_OK);
    FUZZ_ASSERT(translator_write_json(devnull, r, line, len) == TT_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *line = (const char *)data;
    for (int i = 0; i < N_TRANSLATORS; i++) {
        TranslatorResult r;
        char err[256] = "";
        int rc = translator_run(&translators[i], line, size, &r, err, sizeof err);
        FUZZ_ASSERT(rc == TT_OK || rc == TT_EINPUT);
        if (rc == TT_OK) {
            check_result(&translators[i], &r, line, size);
        } else {
            FUZZ_ASSERT(err[0] != '\0');
            FUZZ_ASSERT(!r.text && !r.t);
        }
    }
    return 0;
}
