/*
 * fuzz_loader.c — arbitrary bytes as a model file (store.h, model.h, history.h).
 *
 * The input is the image of an SQLite database, opened with store_open_image: the same
 * read-only, defensive connection and the same validation as a model file on disk, with
 * no file. Then model_load and history_read run on it as `toytrans translate` and
 * `toytrans info` would.
 *
 * For every input:
 *   - each step returns TT_OK or a documented failure code, and a failure comes with a
 *     message that names the model;
 *   - a model that loads has a configuration config_check accepts, vocabularies of the
 *     sizes its spec table was built for, and only finite parameters;
 *   - a history that reads has steps and epochs strictly increasing.
 */
#include "fuzz.h"

#include "base/status.h"
#include "model/config.h"
#include "model/history.h"
#include "model/model.h"
#include "model/store.h"

#include <math.h>
#include <string.h>

#define NAME "fuzz.db"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* A failure: a known code, and a message that names the model. */
static void check_failure(int rc, const char *err)
{
    FUZZ_ASSERT(rc == TT_EMODEL || rc == TT_EIO || rc == TT_ENOMEM);
    if (rc != TT_ENOMEM)
        FUZZ_ASSERT(strstr(err, NAME) != NULL);
}

static void check_model(const Model *m)
{
    char err[256];
    FUZZ_ASSERT(config_check(&m->config, err, sizeof err) == TT_OK);
    FUZZ_ASSERT(m->src_vocab.size >= VOCAB_N_SPECIAL && m->tgt_vocab.size >= VOCAB_N_SPECIAL);
    FUZZ_ASSERT(m->n_specs > 0 && m->n_params > 0 && m->params && m->pe);
    size_t total = 0;
    for (int i = 0; i < m->n_specs; i++) {
        const ParamSpec *p = &m->specs[i];
        FUZZ_ASSERT(p->offset == total);
        total += (size_t)p->rows * (size_t)(p->cols ? p->cols : 1);
    }
    FUZZ_ASSERT(total == m->n_params);
    for (size_t i = 0; i < m->n_params; i++)
        FUZZ_ASSERT(isfinite(m->params[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Store *s = NULL;
    char err[512] = "";
    int rc = store_open_image(&s, data, size, NAME, err, sizeof err);
    if (rc != TT_OK) {
        FUZZ_ASSERT(!s);
        check_failure(rc, err);
        return 0;
    }
    FUZZ_ASSERT(s && strcmp(store_path(s), NAME) == 0);

    Model m;
    err[0] = '\0';
    rc = model_load(&m, s, err, sizeof err);
    if (rc == TT_OK) {
        check_model(&m);
        model_free(&m);
    } else {
        check_failure(rc, err);
        FUZZ_ASSERT(!m.params && !m.specs);
    }

    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = -1, n_epochs = -1;
    err[0] = '\0';
    rc = history_read(s, &steps, &n_steps, &epochs, &n_epochs, err, sizeof err);
    if (rc == TT_OK) {
        FUZZ_ASSERT(n_steps >= 0 && n_epochs >= 0);
        FUZZ_ASSERT((n_steps == 0) == !steps && (n_epochs == 0) == !epochs);
        for (int i = 1; i < n_steps; i++)
            FUZZ_ASSERT(steps[i].step > steps[i - 1].step &&
                        steps[i].epoch >= steps[i - 1].epoch);
        for (int i = 1; i < n_epochs; i++)
            FUZZ_ASSERT(epochs[i].epoch > epochs[i - 1].epoch);
    } else {
        check_failure(rc, err);
        FUZZ_ASSERT(!steps && !epochs && n_steps == 0 && n_epochs == 0);
    }
    free(steps);
    free(epochs);
    FUZZ_ASSERT(store_close(s, NULL, 0) == TT_OK);
    return 0;
}
