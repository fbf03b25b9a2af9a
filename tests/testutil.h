/*
 * testutil.h — helpers shared by the cmocka tests.
 *
 * assert_close_array fails the test when any element differs by more than tol, and
 * always says where the largest difference was, so a numerical failure reads as
 * "queries: largest |diff| 3.1e-03 at [7] (got 0.1234, want 0.1265)".
 */
#ifndef TOYTRANS_TESTUTIL_H
#define TOYTRANS_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"

/* Eight pairs of the corpus's language, source TAB target: a training run small enough
 * for a unit test (test_faults, test_train). */
#define TESTUTIL_CORPUS8                                                                   \
    "the dog is big\tDer Hund ist gro\xc3\x9f .\n"                                           \
    "the man is old\tDer Mann ist alt .\n"                                                  \
    "the old man sees the dog\tDer alte Mann sieht den Hund .\n"                            \
    "the dog sees the man\tDer Hund sieht den Mann .\n"                                     \
    "a dog is big\tEin Hund ist gro\xc3\x9f .\n"                                             \
    "a man sees a dog\tEin Mann sieht einen Hund .\n"                                       \
    "the big dog is old\tDer gro\xc3\x9f"                                                    \
    "e Hund ist alt .\n"                                                                     \
    "the man is big\tDer Mann ist gro\xc3\x9f .\n"

/* The largest |got[i] - want[i]| over n values; *where receives its index. NaN counts as
 * an infinite difference. */
static inline double testutil_max_diff(const float *got, const float *want, size_t n,
                                       size_t *where)
{
    double worst = 0.0;
    *where = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (isnan(d))
            d = INFINITY;
        if (d > worst) {
            worst = d;
            *where = i;
        }
    }
    return worst;
}

#define assert_close_array(name, got, want, n, tol)                                        \
    do {                                                                                   \
        size_t at_;                                                                        \
        double d_ = testutil_max_diff((got), (want), (n), &at_);                           \
        if (!(d_ <= (tol))) {                                                              \
            print_error("%s: largest |diff| %.3e at [%zu] (got %.7f, want %.7f), limit "  \
                        "%.1e\n",                                                          \
                        (name), d_, at_, (double)(got)[at_], (double)(want)[at_],          \
                        (double)(tol));                                                    \
            fail();                                                                        \
        }                                                                                  \
    } while (0)

/* Removes the scratch directory dir of a test fixture and what it holds: files, links
 * and empty subdirectories (one level). Returns 0 when dir is gone. */
static inline int testutil_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4200];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0)
                rmdir(p);
        }
        closedir(d);
    }
    return rmdir(dir);
}

/* A test's scratch directory, as a cmocka fixture: testutil_dir_setup makes dir with
 * mkdtemp under /tmp and names path dir/model.db, where the test builds its model;
 * testutil_dir_teardown removes the directory and what it holds. */
typedef struct {
    char dir[64];
    char path[128];
} TestDir;

static inline int testutil_dir_setup(void **state)
{
    TestDir *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/toytrans-test.XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/model.db", f->dir);
    *state = f;
    return 0;
}

static inline int testutil_dir_teardown(void **state)
{
    TestDir *f = *state;
    int rc = testutil_remove_dir(f->dir);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* The weights of m's tensor called name ("generator.bias"), where a test sets some; fails
 * the test when m has no such tensor. */
static inline float *testutil_tensor(Model *m, const char *name)
{
    for (int i = 0; i < m->n_specs; i++)
        if (strcmp(m->specs[i].name, name) == 0)
            return m->params + m->specs[i].offset;
    print_error("no tensor %s\n", name);
    fail();
    return NULL; /* not reached */
}

/* Fails the test unless rc is TT_OK, printing rc and the message err the call wrote. */
#define assert_tt_ok(rc, err)                                                              \
    do {                                                                                   \
        int rc_ = (rc);                                                                    \
        if (rc_ != TT_OK) {                                                                \
            print_error("%s:%d: rc %d: %s\n", __FILE__, __LINE__, rc_, (err));             \
            fail();                                                                        \
        }                                                                                  \
    } while (0)

#endif
