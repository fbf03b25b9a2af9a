/*
 * test_backprop.c — a batch's passes: a padded batch computes the sum of its sentences,
 * and the results do not depend on the thread count.
 *
 * The gradients themselves are checked against finite differences in test_grad.c; here
 * the batch of several sentences of different lengths is compared with the same
 * sentences computed one at a time. Whole training runs are test_train.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/pool.h"
#include "base/status.h"
#include "model/model.h"
#include "model/store.h"
#include "testutil.h"
#include "train/backprop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Five pairs of different lengths over tiny.db's vocabularies (13 source, 15 target ids,
 * 4 reserved): every sentence of a batch of them is padded but the longest. */
static const int SRC0[] = {4, 7, 5, 7, 9, 12, 4}, TGT0[] = {6, 4, 11, 6, 13, 5};
static const int SRC1[] = {8, 5}, TGT1[] = {7, 9, 10};
static const int SRC2[] = {10}, TGT2[] = {14};
static const int SRC3[] = {6, 6, 11, 4}, TGT3[] = {12, 8, 4, 4, 9, 13, 7, 5};
static const int TGT4[] = {11, 12};
enum { N_PAIRS = 5 };

static void pairs_of(TrainPair *p)
{
    p[0] = (TrainPair){SRC0, 7, TGT0, 6, 101};
    p[1] = (TrainPair){SRC1, 2, TGT1, 3, 102};
    p[2] = (TrainPair){SRC2, 1, TGT2, 1, 103};
    p[3] = (TrainPair){SRC3, 4, TGT3, 8, 104};
    p[4] = (TrainPair){NULL, 0, TGT4, 2, 105}; /* an empty source: </s> alone */
}

static void load_tiny(Model *m)
{
    char err[512];
    int rc = model_load_file(m, "tests/fixtures/tiny_bias.db", err, sizeof err);
    if (rc != TT_OK)
        print_error("%s\n", err);
    assert_int_equal(rc, TT_OK);
}

/* The loss and gradient of pairs[0..n-1] as one batch, through a pool of threads (0: no
 * pool), into *loss and grads (zeroed first). */
static void batch_gradient(const Model *m, const TrainPair *pairs, int n, int threads,
                           float dropout, double *loss, float *grads)
{
    Pool *pool = NULL;
    if (threads > 0)
        assert_int_equal(pool_open(&pool, threads), TT_OK);
    Backprop bp;
    assert_int_equal(backprop_init(&bp, m, n, m->config.max_len, m->config.max_len, dropout,
                                  pool),
                     TT_OK);
    assert_int_equal(backprop_set_batch(&bp, pairs, n), TT_OK);
    memset(grads, 0, sizeof(float) * m->n_params);
    backprop_forward(&bp, 1);
    backprop_loss(&bp, 0.1f, loss);
    backprop_backward(&bp, grads, 0.1f);
    backprop_free(&bp);
    pool_close(pool);
}

/* Five sentences of different lengths as one padded batch give the sum of their losses
 * and of their gradients computed one by one (to float rounding), with and without
 * dropout (each sentence's masks come from its own seed). */
static void test_backprop_batch_is_sum_of_sentences(void **state)
{
    (void)state;
    Model m;
    load_tiny(&m);
    TrainPair pairs[N_PAIRS];
    pairs_of(pairs);
    const size_t n = m.n_params;
    float *batch = malloc(sizeof(float) * n), *one = malloc(sizeof(float) * n);
    float *sum = calloc(n, sizeof(float));
    assert_true(batch && one && sum);
    static const float DROPOUT[] = {0.0f, 0.2f};
    for (int k = 0; k < 2; k++) {
        double batch_loss = 0.0, sum_loss = 0.0;
        batch_gradient(&m, pairs, N_PAIRS, 0, DROPOUT[k], &batch_loss, batch);
        memset(sum, 0, sizeof(float) * n);
        for (int i = 0; i < N_PAIRS; i++) {
            double l = 0.0;
            batch_gradient(&m, &pairs[i], 1, 0, DROPOUT[k], &l, one);
            sum_loss += l;
            for (size_t j = 0; j < n; j++)
                sum[j] += one[j];
        }
        print_message("dropout %.1f: batch loss %.9f, sum of sentences %.9f\n",
                      (double)DROPOUT[k], batch_loss, sum_loss);
        /* The logits are float: a product over more rows may round its last bits
         * otherwise (kernel.c), a relative 1e-7 of each of about 20 terms. */
        assert_true(fabs(batch_loss - sum_loss) <= 1e-6 * fabs(sum_loss));
        /* Gradients up to about 10: a few float ulp of different summation orders. */
        assert_close_array("batch gradient vs the sum of sentences", batch, sum, n, 2e-5);
    }
    free(sum), free(one), free(batch);
    model_free(&m);
}

/* The same batch through 1, 2, 3 and 8 threads: the loss and every gradient entry are
 * bit-identical (every sum is taken in an order fixed by the batch, not the threads). */
static void test_backprop_threads_bit_identical(void **state)
{
    (void)state;
    Model m;
    load_tiny(&m);
    TrainPair pairs[N_PAIRS];
    pairs_of(pairs);
    const size_t n = m.n_params;
    float *ref = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n);
    assert_true(ref && got);
    double ref_loss = 0.0;
    batch_gradient(&m, pairs, N_PAIRS, 0, 0.1f, &ref_loss, ref);
    static const int THREADS[] = {1, 2, 3, 8};
    for (int k = 0; k < 4; k++) {
        double loss = 0.0;
        batch_gradient(&m, pairs, N_PAIRS, THREADS[k], 0.1f, &loss, got);
        assert_true(loss == ref_loss);
        for (size_t i = 0; i < n; i++) {
            uint32_t a, b; /* the bits, so that -0 and 0 differ too */
            memcpy(&a, &got[i], sizeof a);
            memcpy(&b, &ref[i], sizeof b);
            if (a != b) {
                print_error("%d threads: gradient [%zu] is %.9g, not %.9g\n", THREADS[k], i,
                            (double)got[i], (double)ref[i]);
                fail();
            }
        }
    }
    free(got), free(ref);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backprop_batch_is_sum_of_sentences),
        cmocka_unit_test(test_backprop_threads_bit_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
