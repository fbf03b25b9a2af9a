/*
 * test_pool.c — the thread pool runs every task of a loop exactly once, on any number of
 * threads, whether its workers are spinning or asleep when the loop is published, and
 * shares out a range whose owner is slow; a loop started in the background finishes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/pool.h"
#include "base/status.h"

#define MAX_TASKS 1000

typedef struct {
    atomic_int runs[MAX_TASKS];
    pthread_t who[MAX_TASKS];
    int slow_below;            /* tasks below this sleep a millisecond */
} Count;

static void count_task(void *ctx, int task)
{
    Count *c = ctx;
    atomic_fetch_add(&c->runs[task], 1);
    c->who[task] = pthread_self();
    if (task < c->slow_below) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static void expect_each_once(Count *c, int n_tasks)
{
    for (int t = 0; t < MAX_TASKS; t++)
        assert_int_equal(atomic_load(&c->runs[t]), t < n_tasks ? 1 : 0);
}

/* Every task count from 0 to 70 and a large one, on 1, 2, 3 and 8 threads, loop after
 * loop on the same pool. */
static void test_pool_runs_every_task_once(void **state)
{
    (void)state;
    static const int THREADS[] = {1, 2, 3, 8};
    static Count c;
    for (size_t i = 0; i < sizeof THREADS / sizeof THREADS[0]; i++) {
        Pool *p = NULL;
        assert_int_equal(pool_open(&p, THREADS[i]), TT_OK);
        for (int n = 0; n <= 71; n++) {
            const int n_tasks = n == 71 ? MAX_TASKS : n;
            memset(&c, 0, sizeof c);
            pool_run(p, n_tasks, count_task, &c);
            expect_each_once(&c, n_tasks);
        }
        pool_close(p);
    }
}

/* A loop published after the workers have gone to sleep (far longer than they spin)
 * still runs, with every worker taking part. */
static void test_pool_wakes_sleeping_workers(void **state)
{
    (void)state;
    static Count c;
    Pool *p = NULL;
    assert_int_equal(pool_open(&p, 3), TT_OK);
    for (int round = 0; round < 3; round++) {
        struct timespec rest = {0, 50 * 1000000};
        nanosleep(&rest, NULL);
        memset(&c, 0, sizeof c);
        c.slow_below = 30; /* long enough that each thread gets some */
        pool_run(p, 30, count_task, &c);
        expect_each_once(&c, 30);
    }
    pool_close(p);
}

/* When thread 0's own range is slow, the others take tasks from it: with 2 threads and
 * the first half of 40 tasks slow, some slow task runs on another thread than the
 * caller's. */
static void test_pool_helps_with_a_slow_range(void **state)
{
    (void)state;
    static Count c;
    Pool *p = NULL;
    assert_int_equal(pool_open(&p, 2), TT_OK);
    memset(&c, 0, sizeof c);
    c.slow_below = 20;
    pool_run(p, 40, count_task, &c);
    expect_each_once(&c, 40);
    const pthread_t me = pthread_self();
    int helped = 0;
    for (int t = 0; t < 20; t++)
        helped += !pthread_equal(c.who[t], me);
    assert_true(helped > 0);
    pool_close(p);
}

/* pool_start hands a loop to the workers and returns while they run it: with the caller
 * away, the workers take every task, the caller's share too; pool_wait then
 * returns with each run once. A loop started and waited for at once runs every task too,
 * and without workers pool_start runs them itself. */
static void test_pool_start_and_wait(void **state)
{
    (void)state;
    static Count c;
    Pool *p = NULL;
    assert_int_equal(pool_open(&p, 2), TT_OK);
    for (int round = 0; round < 3; round++) {
        memset(&c, 0, sizeof c);
        pool_start(p, 8, count_task, &c);
        /* Away until the workers have run every task (at most 5 s). */
        for (int ms = 0; round < 2 && ms < 5000; ms++) {
            int done = 0;
            for (int t = 0; t < 8; t++)
                done += atomic_load(&c.runs[t]);
            if (done == 8)
                break;
            struct timespec away = {0, 1000000};
            nanosleep(&away, NULL);
        }
        pool_wait(p);
        expect_each_once(&c, 8);
        if (round < 2)
            for (int t = 0; t < 8; t++)
                assert_false(pthread_equal(c.who[t], pthread_self()));
    }
    pool_wait(p); /* nothing started: returns */
    pool_close(p);
    memset(&c, 0, sizeof c);
    pool_start(NULL, 5, count_task, &c);
    expect_each_once(&c, 5);
    pool_wait(NULL);
}

/* Thread counts outside 1..POOL_MAX_THREADS are refused; a NULL pool runs in order. */
static void test_pool_edges(void **state)
{
    (void)state;
    Pool *p = (Pool *)1;
    assert_int_equal(pool_open(&p, 0), TT_EINVAL);
    assert_null(p);
    assert_int_equal(pool_open(&p, POOL_MAX_THREADS + 1), TT_EINVAL);
    assert_int_equal(pool_threads(NULL), 1);
    static Count c;
    memset(&c, 0, sizeof c);
    pool_run(NULL, 5, count_task, &c);
    expect_each_once(&c, 5);
    pool_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_runs_every_task_once),
        cmocka_unit_test(test_pool_wakes_sleeping_workers),
        cmocka_unit_test(test_pool_helps_with_a_slow_range),
        cmocka_unit_test(test_pool_start_and_wait),
        cmocka_unit_test(test_pool_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
