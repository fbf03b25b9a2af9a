/*
 * test_history.c — the training history tables (history.h) and the loss plot (plot.h).
 *
 * History: rows written into a copy of tests/fixtures/tiny.db (a valid model made by
 * PyTorch, see tests/fixtures/gen_transformer_ref.py) come back bit for bit and leave the
 * model loadable; a model without the tables reads as an empty history; rows the
 * contract forbids are refused on the way in, and — planted with the sqlite3 C API in
 * tables without constraints, as another program could — on the way out.
 *
 * Plot: the SVG is checked as a document (an XML declaration, one <svg> root, balanced
 * tags, only the five predefined entities, no '<' inside attribute values) and for its
 * content (the number of points of each series, coordinates inside the picture, an
 * escaped title).
 *
 * Each history test works in a fresh directory from mkdtemp() that teardown removes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/status.h"
#include "model/history.h"
#include "model/model.h"
#include "model/store.h"
#include "show/plot.h"
#include "testutil.h"
#include "xmlcheck.h"

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRLEN 512
#define FIXTURE "tests/fixtures/tiny.db"

/* ---------------------------------------------------------------------------------------
 * The test directory: a copy of tiny.db in it
 */

typedef struct {
    char dir[64];   /* from mkdtemp, removed by teardown */
    char path[128]; /* dir/model.db: a copy of the fixture */
} Fixture;

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static int fixture_setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_history.XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/model.db", f->dir);
    *state = f;
    return copy_file(FIXTURE, f->path);
}

static int fixture_teardown(void **state)
{
    Fixture *f = *state;
    int rc = testutil_remove_dir(f->dir);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------
 * Helpers
 */

/* A plausible run: the loss falls from about 5 with some noise, epochs of per_epoch
 * steps, a warm-up then a decaying learning rate. */
static void make_history(TrainLogRow *steps, int n_steps, ValidLogRow *epochs, int n_epochs,
                         int per_epoch)
{
    for (int i = 0; i < n_steps; i++) {
        const double t = (double)i / n_steps;
        steps[i] = (TrainLogRow){
            .step = i + 1,
            .epoch = i / per_epoch + 1,
            .loss = 5.0 * exp(-4.5 * t) * (1.0 + 0.25 * sin(i * 2.3)) + 0.01,
            .lr = 1e-3 * fmin(1.0, (i + 1) / 10.0) / sqrt(1.0 + i / 10.0),
            .tokens = 300 + (i * 37) % 50,
            .seconds = 0.125 * (i + 1),
        };
    }
    for (int e = 0; e < n_epochs; e++)
        epochs[e] = (ValidLogRow){
            .epoch = e + 1,
            .step = (int64_t)(e + 1) * per_epoch,
            .loss = 4.0 * exp(-1.1 * e) + 0.1,
            .exact_match = 0.2 * e < 1 ? 0.2 * e : 1.0,
            .seconds = 0.125 * (e + 1) * per_epoch + 0.5,
        };
}

/* Writes rows into the model at path, in one transaction. */
static int write_history(const char *path, const TrainLogRow *steps, int n_steps,
                         const ValidLogRow *epochs, int n_epochs, char *err)
{
    Store *s = NULL;
    int rc = store_open(&s, path, STORE_WRITE, err, ERRLEN);
    if (rc == TT_OK)
        rc = store_begin(s, err, ERRLEN);
    if (rc == TT_OK)
        rc = history_create_tables(s, err, ERRLEN);
    for (int i = 0; rc == TT_OK && i < n_steps; i++)
        rc = history_append_step(s, &steps[i], err, ERRLEN);
    for (int i = 0; rc == TT_OK && i < n_epochs; i++)
        rc = history_append_epoch(s, &epochs[i], err, ERRLEN);
    if (rc == TT_OK)
        rc = store_commit(s, err, ERRLEN);
    int close_rc = store_close(s, NULL, 0);
    return rc == TT_OK ? close_rc : rc;
}

/* Runs SQL on the file with the plain sqlite3 API, as another program would. */
static void plant(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        print_error("planting '%s': %s\n", sql, msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(db);
        fail();
    }
    sqlite3_close(db);
}

/* history_read on the file at path, read-only. */
static int read_history(const char *path, TrainLogRow **steps, int *n_steps,
                        ValidLogRow **epochs, int *n_epochs, char *err)
{
    Store *s = NULL;
    int rc = store_open(&s, path, STORE_READ, err, ERRLEN);
    if (rc == TT_OK)
        rc = history_read(s, steps, n_steps, epochs, n_epochs, err, ERRLEN);
    store_close(s, NULL, 0);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * History
 */

/* Rows written come back bit for bit, in order, and the model still loads. */
static void test_history_round_trip(void **state)
{
    Fixture *f = *state;
    enum { N = 250, E = 5 };
    TrainLogRow steps[N];
    ValidLogRow epochs[E];
    make_history(steps, N, epochs, E, N / E);
    char err[ERRLEN] = "";
    int rc = write_history(f->path, steps, N, epochs, E, err);
    if (rc != TT_OK)
        print_error("%s\n", err);
    assert_int_equal(rc, TT_OK);

    TrainLogRow *got_steps = NULL;
    ValidLogRow *got_epochs = NULL;
    int n_steps = -1, n_epochs = -1;
    rc = read_history(f->path, &got_steps, &n_steps, &got_epochs, &n_epochs, err);
    if (rc != TT_OK)
        print_error("%s\n", err);
    assert_int_equal(rc, TT_OK);
    assert_int_equal(n_steps, N);
    assert_int_equal(n_epochs, E);
    assert_memory_equal(got_steps, steps, sizeof steps);
    assert_memory_equal(got_epochs, epochs, sizeof epochs);
    free(got_steps);
    free(got_epochs);

    Model m;
    rc = model_load_file(&m, f->path, err, sizeof err);
    if (rc != TT_OK)
        print_error("%s\n", err);
    assert_int_equal(rc, TT_OK);
    model_free(&m);
}

/* A model that was never trained has no tables: an empty history, not an error. */
static void test_history_absent_tables_read_as_empty(void **state)
{
    (void)state;
    TrainLogRow *steps = (TrainLogRow *)&steps; /* not NULL, so the test sees it reset */
    ValidLogRow *epochs = (ValidLogRow *)&epochs;
    int n_steps = -1, n_epochs = -1;
    char err[ERRLEN] = "";
    assert_int_equal(read_history(FIXTURE, &steps, &n_steps, &epochs, &n_epochs, err), TT_OK);
    assert_null(steps);
    assert_null(epochs);
    assert_int_equal(n_steps, 0);
    assert_int_equal(n_epochs, 0);
}

/* Tables that exist but hold no rows read as an empty history too; creating them twice
 * is harmless. */
static void test_history_empty_tables_read_as_empty(void **state)
{
    Fixture *f = *state;
    char err[ERRLEN] = "";
    assert_int_equal(write_history(f->path, NULL, 0, NULL, 0, err), TT_OK);
    assert_int_equal(write_history(f->path, NULL, 0, NULL, 0, err), TT_OK);
    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = -1, n_epochs = -1;
    assert_int_equal(read_history(f->path, &steps, &n_steps, &epochs, &n_epochs, err), TT_OK);
    assert_null(steps);
    assert_int_equal(n_steps, 0);
    assert_int_equal(n_epochs, 0);
}

/* history_read inside the caller's write transaction sees the caller's rows and leaves
 * the transaction open. */
static void test_history_read_inside_a_transaction(void **state)
{
    Fixture *f = *state;
    TrainLogRow step = {1, 1, 4.5, 1e-4, 120, 0.5};
    char err[ERRLEN] = "";
    Store *s = NULL;
    assert_int_equal(store_open(&s, f->path, STORE_WRITE, err, sizeof err), TT_OK);
    assert_int_equal(store_begin(s, err, sizeof err), TT_OK);
    assert_int_equal(history_create_tables(s, err, sizeof err), TT_OK);
    assert_int_equal(history_append_step(s, &step, err, sizeof err), TT_OK);
    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = 0, n_epochs = 0;
    assert_int_equal(history_read(s, &steps, &n_steps, &epochs, &n_epochs, err, sizeof err),
                     TT_OK);
    assert_int_equal(n_steps, 1);
    assert_memory_equal(&steps[0], &step, sizeof step);
    free(steps);
    assert_int_equal(store_commit(s, err, sizeof err), TT_OK);
    assert_int_equal(store_close(s, err, sizeof err), TT_OK);
}

/* A row the reader would refuse is never written: TT_EINVAL with the column named, and
 * the rows before it in the transaction are unaffected. */
static void test_history_append_refuses_bad_rows(void **state)
{
    Fixture *f = *state;
    const TrainLogRow good = {1, 1, 4.5, 1e-4, 120, 0.5};
    static const struct {
        const char *why;
        TrainLogRow row;
        const char *message;
    } BAD_STEPS[] = {
        {"step 0", {0, 1, 4.5, 1e-4, 120, 0.5}, "step is 0"},
        {"epoch 0", {2, 0, 4.5, 1e-4, 120, 0.5}, "epoch is 0"},
        {"negative loss", {2, 1, -0.5, 1e-4, 120, 0.5}, "loss is -0.5"},
        {"NaN loss", {2, 1, NAN, 1e-4, 120, 0.5}, "loss is NaN"},
        {"infinite loss", {2, 1, INFINITY, 1e-4, 120, 0.5}, "loss is inf"},
        {"negative lr", {2, 1, 4.5, -1e-4, 120, 0.5}, "lr is"},
        {"negative tokens", {2, 1, 4.5, 1e-4, -1, 0.5}, "tokens is -1"},
        {"infinite seconds", {2, 1, 4.5, 1e-4, 120, INFINITY}, "seconds is"},
        {"a step logged twice", {1, 1, 4.0, 1e-4, 120, 0.6}, "step 1 is already logged"},
    };
    static const struct {
        const char *why;
        ValidLogRow row;
        const char *message;
    } BAD_EPOCHS[] = {
        {"exact match above 1", {1, 10, 2.0, 1.5, 3.0}, "exact_match is 1.5"},
        {"NaN validation loss", {1, 10, NAN, 0.5, 3.0}, "loss is NaN"},
        {"epoch 0", {0, 10, 2.0, 0.5, 3.0}, "epoch is 0"},
    };
    char err[ERRLEN];
    Store *s = NULL;
    assert_int_equal(store_open(&s, f->path, STORE_WRITE, err, sizeof err), TT_OK);
    assert_int_equal(store_begin(s, err, sizeof err), TT_OK);
    assert_int_equal(history_create_tables(s, err, sizeof err), TT_OK);
    assert_int_equal(history_append_step(s, &good, err, sizeof err), TT_OK);
    for (size_t i = 0; i < sizeof BAD_STEPS / sizeof BAD_STEPS[0]; i++) {
        err[0] = '\0';
        int rc = history_append_step(s, &BAD_STEPS[i].row, err, sizeof err);
        if (rc != TT_EINVAL || !strstr(err, BAD_STEPS[i].message) || !strstr(err, "train_log")) {
            print_error("%s: rc %d, message '%s', expected '%s'\n", BAD_STEPS[i].why, rc, err,
                        BAD_STEPS[i].message);
            fail();
        }
    }
    for (size_t i = 0; i < sizeof BAD_EPOCHS / sizeof BAD_EPOCHS[0]; i++) {
        err[0] = '\0';
        int rc = history_append_epoch(s, &BAD_EPOCHS[i].row, err, sizeof err);
        if (rc != TT_EINVAL || !strstr(err, BAD_EPOCHS[i].message) || !strstr(err, "valid_log")) {
            print_error("%s: rc %d, message '%s', expected '%s'\n", BAD_EPOCHS[i].why, rc, err,
                        BAD_EPOCHS[i].message);
            fail();
        }
    }
    assert_int_equal(store_commit(s, err, sizeof err), TT_OK);
    assert_int_equal(store_close(s, err, sizeof err), TT_OK);

    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = 0, n_epochs = 0;
    assert_int_equal(read_history(f->path, &steps, &n_steps, &epochs, &n_epochs, err), TT_OK);
    assert_int_equal(n_steps, 1);
    assert_int_equal(n_epochs, 0);
    assert_memory_equal(&steps[0], &good, sizeof good);
    free(steps);
}

/* Tables as a careless program could write them: no types, no constraints. */
#define LAX_TABLES                                                                          \
    "DROP TABLE IF EXISTS train_log; DROP TABLE IF EXISTS valid_log;"                      \
    "CREATE TABLE train_log(step, epoch, loss, lr, tokens, seconds);"                      \
    "CREATE TABLE valid_log(epoch, step, loss, exact_match, seconds);"                     \
    "INSERT INTO train_log VALUES(1, 1, 5.0, 0.001, 100, 0.5), (2, 1, 4.0, 0.001, 100, 1.0);" \
    "INSERT INTO valid_log VALUES(1, 2, 3.5, 0.0, 1.5);"

/* Every malformed value or order in a file is refused by the reader with TT_EMODEL, a
 * message naming the file, table, row and column, and nothing handed out. */
static void test_history_read_rejects_malformed_rows(void **state)
{
    Fixture *f = *state;
    static const struct {
        const char *sql;
        const char *message;
    } CASES[] = {
        {"SELECT 1", NULL}, /* the lax tables themselves are fine */
        {"UPDATE train_log SET loss = NULL WHERE step = 2", "train_log row 2: loss is NULL"},
        {"UPDATE train_log SET loss = 'low' WHERE step = 2", "loss is text"},
        {"UPDATE train_log SET loss = x'00' WHERE step = 2", "loss is a blob"},
        {"UPDATE train_log SET loss = 9e999 WHERE step = 2", "loss is inf"},
        {"UPDATE train_log SET loss = -1 WHERE step = 2", "loss is -1"},
        {"UPDATE train_log SET step = 2.5 WHERE step = 2", "step is a real"},
        {"UPDATE train_log SET step = 0 WHERE step = 1", "step is 0"},
        {"UPDATE train_log SET step = 1 WHERE step = 2", "step 1 does not follow 1"},
        {"UPDATE train_log SET epoch = 0 WHERE step = 2", "epoch is 0"},
        {"UPDATE train_log SET epoch = 3 WHERE step = 1", "epoch 1 is less than 3"},
        {"UPDATE train_log SET tokens = NULL WHERE step = 1", "train_log row 1: tokens is NULL"},
        {"UPDATE train_log SET lr = -9e999 WHERE step = 1", "lr is -inf"},
        {"UPDATE valid_log SET exact_match = 1.01", "valid_log row 1: exact_match is 1.01"},
        {"UPDATE valid_log SET seconds = NULL", "seconds is NULL"},
        {"INSERT INTO valid_log VALUES(1, 3, 3.0, 0.1, 2.0)", "epoch 1 does not follow 1"},
        {"INSERT INTO valid_log VALUES(2, 1, 3.0, 0.1, 2.0)", "step 1 is less than 2"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        plant(f->path, LAX_TABLES);
        plant(f->path, CASES[i].sql);
        TrainLogRow *steps = (TrainLogRow *)&steps;
        ValidLogRow *epochs = (ValidLogRow *)&epochs;
        int n_steps = -1, n_epochs = -1;
        char err[ERRLEN] = "";
        int rc = read_history(f->path, &steps, &n_steps, &epochs, &n_epochs, err);
        if (!CASES[i].message) {
            assert_int_equal(rc, TT_OK);
            assert_int_equal(n_steps, 2);
            assert_int_equal(n_epochs, 1);
            free(steps);
            free(epochs);
            continue;
        }
        if (rc != TT_EMODEL || !strstr(err, CASES[i].message) || !strstr(err, f->path)) {
            print_error("'%s': rc %d, message '%s', expected '%s'\n", CASES[i].sql, rc, err,
                        CASES[i].message);
            fail();
        }
        assert_null(steps);
        assert_null(epochs);
        assert_int_equal(n_steps, 0);
        assert_int_equal(n_epochs, 0);
    }
}

/* A table with the wrong columns is a malformed file, not a crash. */
static void test_history_read_rejects_wrong_columns(void **state)
{
    Fixture *f = *state;
    plant(f->path, "CREATE TABLE train_log(step INTEGER PRIMARY KEY, loss REAL)");
    TrainLogRow *steps = NULL;
    ValidLogRow *epochs = NULL;
    int n_steps = 0, n_epochs = 0;
    char err[ERRLEN] = "";
    assert_int_equal(read_history(f->path, &steps, &n_steps, &epochs, &n_epochs, err),
                     TT_EMODEL);
    assert_non_null(strstr(err, "epoch"));
    assert_null(steps);
}

/* ---------------------------------------------------------------------------------------
 * Plot: a small XML checker
 */

/* Renders into a malloc'd string (*len bytes); returns plot_loss_svg's result. */
static int render(char **svg, size_t *len, const TrainLogRow *steps, int n_steps,
                  const ValidLogRow *epochs, int n_epochs, const char *title, int w, int h)
{
    *svg = NULL;
    FILE *out = open_memstream(svg, len);
    assert_non_null(out);
    int rc = plot_loss_svg(out, steps, n_steps, epochs, n_epochs, title, w, h);
    assert_int_equal(fclose(out), 0);
    return rc;
}

/* The points of the polyline with the given id: -1 if there is none. Every point must
 * be "x,y" inside the w × h picture. */
static int count_points(const char *svg, const char *id, int w, int h)
{
    char key[64];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *p = strstr(svg, key);
    if (!p)
        return -1;
    p = strstr(p, "points=\"");
    assert_non_null(p);
    p += strlen("points=\"");
    const char *end = strchr(p, '"');
    assert_non_null(end);
    int n = 0;
    while (p < end) {
        char *after;
        double x = strtod(p, &after);
        assert_true(after > p && *after == ',');
        p = after + 1;
        double y = strtod(p, &after);
        assert_true(after > p);
        if (!(x >= 0 && x <= w && y >= 0 && y <= h)) {
            print_error("%s point %d (%g, %g) is outside the %d × %d picture\n", id, n, x, y, w,
                        h);
            fail();
        }
        n++;
        p = after;
        while (p < end && (*p == ' ' || *p == '\n'))
            p++;
    }
    return n;
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub))
        n++;
    return n;
}

static void assert_well_formed(const char *svg)
{
    char why[160];
    if (!xml_well_formed(svg, why, sizeof why)) {
        print_error("not well formed: %s\n", why);
        fail();
    }
}

/* ---------------------------------------------------------------------------------------
 * Plot
 */

/* A short run: well-formed SVG 1.1, one point per step in both training series, one per
 * epoch in the validation series, a marker per epoch, a boundary line between epochs. */
static void test_plot_short_run_is_well_formed(void **state)
{
    (void)state;
    enum { N = 120, E = 4, W = 800, H = 500 };
    TrainLogRow steps[N];
    ValidLogRow epochs[E];
    make_history(steps, N, epochs, E, N / E);
    char *svg;
    size_t len;
    assert_int_equal(render(&svg, &len, steps, N, epochs, E, "tiny.db\nd_model 16", W, H), TT_OK);
    assert_int_equal(strlen(svg), len);
    assert_well_formed(svg);
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
    assert_int_equal(count_points(svg, "train-loss", W, H), N);
    assert_int_equal(count_points(svg, "train-smooth", W, H), N); /* h = 120 / 100 = 1 */
    assert_int_equal(count_points(svg, "valid-loss", W, H), E);
    assert_int_equal(count_substr(svg, "<circle"), E + 1); /* markers, legend swatch */
    /* The epoch lines: one group, E - 1 lines in it. */
    assert_int_equal(count_substr(svg, "stroke-dasharray"), 1);
    const char *group = strstr(svg, "stroke-dasharray");
    const char *group_end = strstr(group, "</g>");
    int lines = 0;
    for (const char *p = strstr(group, "<line"); p && p < group_end; p = strstr(p + 1, "<line"))
        lines++;
    assert_int_equal(lines, E - 1);
    assert_non_null(strstr(svg, "log scale"));
    assert_non_null(strstr(svg, ">epoch 2<"));
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "inf"));
    assert_null(strstr(svg, "<script"));
    assert_null(strstr(svg, "href"));
    free(svg);
}

/* Markup characters in the title are escaped, invalid UTF-8 and controls become '?',
 * and the newline splits title from subtitle. */
static void test_plot_escapes_the_title(void **state)
{
    (void)state;
    TrainLogRow steps[3];
    ValidLogRow epochs[1];
    make_history(steps, 3, epochs, 1, 3);
    char *svg;
    size_t len;
    assert_int_equal(render(&svg, &len, steps, 3, epochs, 1,
                            "a <b> & \"c\" 'd'\nsub\xff\x01title \xc3\xa4", 640, 400), TT_OK);
    assert_well_formed(svg);
    assert_non_null(strstr(svg, "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</text>"));
    assert_non_null(strstr(svg, "<title>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</title>"));
    assert_non_null(strstr(svg, ">sub??title \xc3\xa4</text>"));
    assert_null(strstr(svg, "<b>"));
    free(svg);
}

/* A subtitle wider than the picture is broken into lines between its " · " parts, each
 * line at most (width - 40) / 7 characters (7 pixels a character of the 12-pixel font,
 * an upper bound for DejaVu Sans and Helvetica), and the plot area moves down to make
 * room: the shipped model's subtitle of 164 characters once ran off a 900-pixel canvas. */
static void test_plot_wraps_a_long_subtitle(void **state)
{
    (void)state;
    TrainLogRow steps[3];
    ValidLogRow epochs[1];
    make_history(steps, 3, epochs, 1, 3);
    const char *title = "Training loss of en-de.db\nd_model 128 \xc2\xb7 4 heads \xc2\xb7 2+2 "
                        "layers \xc2\xb7 d_ff 512 \xc2\xb7 1.0M parameters \xc2\xb7 34181 steps "
                        "\xc2\xb7 training loss with label smoothing 0.02, validation without "
                        "\xc2\xb7 best validation loss 0.020 (epoch 7)";
    enum { W = 900, H = 540 };
    char *svg;
    size_t len;
    assert_int_equal(render(&svg, &len, steps, 3, epochs, 1, title, W, H), TT_OK);
    assert_well_formed(svg);
    int lines = 0;
    for (const char *p = strstr(svg, "fill=\"#666666\">"); p; p = strstr(p + 1, "fill=\"#666666\">")) {
        const char *text = strchr(p, '>') + 1, *end = strstr(text, "</text>");
        assert_non_null(end);
        int chars = 0;
        for (const char *c = text; c < end; c++)
            chars += (*c & 0xC0) != 0x80;
        if (chars > (W - 40) / 7)
            print_error("subtitle line of %d characters: %.*s\n", chars, (int)(end - text), text);
        assert_true(chars <= (W - 40) / 7);
        assert_true(strncmp(text, "\xc2\xb7", 2) != 0); /* no line starts with the separator */
        lines++;
    }
    assert_int_equal(lines, 2);
    assert_non_null(strstr(svg, "d_model 128 \xc2\xb7 4 heads"));
    assert_non_null(strstr(svg, "best validation loss 0.020 (epoch 7)</text>"));
    free(svg);
}

/* A long run is reduced to at most two points per pixel column of the plot area, and
 * a spike survives the reduction. */
static void test_plot_reduces_a_long_run(void **state)
{
    (void)state;
    enum { N = 20000, E = 10, W = 600, H = 400 };
    TrainLogRow *steps = malloc(sizeof *steps * N);
    ValidLogRow epochs[E];
    assert_non_null(steps);
    make_history(steps, N, epochs, E, N / E);
    steps[12345].loss = 50.0;
    char *svg;
    size_t len;
    assert_int_equal(render(&svg, &len, steps, N, epochs, E, NULL, W, H), TT_OK);
    assert_well_formed(svg);
    const int columns = W - 78 - 24; /* the plot area's width, as plot.c lays it out */
    const int raw = count_points(svg, "train-loss", W, H);
    const int smooth = count_points(svg, "train-smooth", W, H);
    if (raw < columns || raw > 2 * columns || smooth < columns - 1 || smooth > columns + 1) {
        print_error("%d raw and %d smoothed points for %d columns\n", raw, smooth, columns);
        fail();
    }
    assert_int_equal(count_points(svg, "valid-loss", W, H), E);
    /* The spike is the highest point: the smallest y of the raw series. */
    const char *p = strstr(strstr(svg, "id=\"train-loss\""), "points=\"") + 8;
    double top = 1e9;
    while (*p != '"') {
        char *after;
        strtod(p, &after);
        double y = strtod(after + 1, &after);
        top = fmin(top, y);
        p = after;
        while (*p == ' ' || *p == '\n')
            p++;
    }
    assert_true(top < 0.5 * H); /* 50 is far above the rest, near the top */
    assert_non_null(strstr(svg, "<title>Training loss</title>"));
    free(svg);
    free(steps);
}

/* Only validation rows, a single step, zero losses: each still makes a picture. */
static void test_plot_degenerate_histories(void **state)
{
    (void)state;
    TrainLogRow steps[2];
    ValidLogRow epochs[3];
    make_history(steps, 2, epochs, 3, 1);
    char *svg;
    size_t len;
    assert_int_equal(render(&svg, &len, NULL, 0, epochs, 3, "valid only", 400, 300), TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_points(svg, "train-loss", 400, 300), -1);
    assert_int_equal(count_points(svg, "valid-loss", 400, 300), 3);
    free(svg);

    assert_int_equal(render(&svg, &len, steps, 1, NULL, 0, "one step", 400, 300), TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_points(svg, "train-loss", 400, 300), 1);
    assert_int_equal(count_points(svg, "train-smooth", 400, 300), -1);
    free(svg);

    steps[0].loss = steps[1].loss = 0.0;
    assert_int_equal(render(&svg, &len, steps, 2, NULL, 0, "zero", 400, 300), TT_OK);
    assert_well_formed(svg);
    assert_int_equal(count_points(svg, "train-loss", 400, 300), 2);
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "inf"));
    free(svg);
}

/* No rows, sizes out of range and a NULL stream are the caller's mistakes. */
static void test_plot_rejects_bad_arguments(void **state)
{
    (void)state;
    TrainLogRow steps[2];
    ValidLogRow epochs[1];
    make_history(steps, 2, epochs, 1, 2);
    assert_int_equal(plot_loss_svg(stdout, NULL, 0, NULL, 0, "t", 800, 500), TT_EINVAL);
    assert_int_equal(plot_loss_svg(stdout, steps, 2, epochs, 1, "t", PLOT_MIN_WIDTH - 1, 500),
                     TT_EINVAL);
    assert_int_equal(plot_loss_svg(stdout, steps, 2, epochs, 1, "t", 800, PLOT_MAX_HEIGHT + 1),
                     TT_EINVAL);
    assert_int_equal(plot_loss_svg(NULL, steps, 2, epochs, 1, "t", 800, 500), TT_EINVAL);
}

/* A full disk is reported, not ignored. */
static void test_plot_reports_write_errors(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    setvbuf(full, NULL, _IONBF, 0);
    TrainLogRow steps[10];
    ValidLogRow epochs[1];
    make_history(steps, 10, epochs, 1, 10);
    assert_int_equal(plot_loss_svg(full, steps, 10, epochs, 1, "t", 800, 500), TT_EIO);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_history_round_trip, fixture_setup, fixture_teardown),
        cmocka_unit_test(test_history_absent_tables_read_as_empty),
        cmocka_unit_test_setup_teardown(test_history_empty_tables_read_as_empty, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_history_read_inside_a_transaction, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_history_append_refuses_bad_rows, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_history_read_rejects_malformed_rows, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_history_read_rejects_wrong_columns, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test(test_plot_short_run_is_well_formed),
        cmocka_unit_test(test_plot_escapes_the_title),
        cmocka_unit_test(test_plot_wraps_a_long_subtitle),
        cmocka_unit_test(test_plot_reduces_a_long_run),
        cmocka_unit_test(test_plot_degenerate_histories),
        cmocka_unit_test(test_plot_rejects_bad_arguments),
        cmocka_unit_test(test_plot_reports_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
