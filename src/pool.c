/*
 * pool.c — worker threads that share the tasks of a loop.
 *
 * A loop is published under the mutex with a new generation number; workers wake, take
 * task indices from an atomic counter until it passes n_tasks, and report when they are
 * out of tasks. The caller takes tasks too, then waits until every worker has reported
 * for this generation, so no worker still reads the loop's context when pool_run returns.
 */
#include "pool.h"

#include "status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct Pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* a new loop, or stop */
    pthread_cond_t done;       /* a worker finished its part of the loop */
    pthread_t threads[POOL_MAX_THREADS];
    int n_workers;             /* started workers, 0..POOL_MAX_THREADS − 1 */
    long generation;           /* loops published so far */
    int stop;                  /* 1: workers return */
    int finished;              /* workers done with the current generation */
    PoolTask fn;               /* the current loop */
    void *ctx;
    int n_tasks;
    atomic_int next;           /* the next task index to hand out */
};

/* Takes tasks of the current loop until none is left. */
static void take_tasks(Pool *p, PoolTask fn, void *ctx, int n_tasks)
{
    for (;;) {
        const int t = atomic_fetch_add(&p->next, 1);
        if (t >= n_tasks)
            return;
        fn(ctx, t);
    }
}

static void *worker_main(void *arg)
{
    Pool *p = arg;
    long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        PoolTask fn = p->fn;
        void *ctx = p->ctx;
        const int n = p->n_tasks;
        pthread_mutex_unlock(&p->lock);
        take_tasks(p, fn, ctx, n);
        pthread_mutex_lock(&p->lock);
        p->finished++;
        pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int pool_open(Pool **out, int threads)
{
    *out = NULL;
    if (threads < 1 || threads > POOL_MAX_THREADS)
        return TT_EINVAL;
    Pool *p = calloc(1, sizeof *p);
    if (!p)
        return TT_ENOMEM;
    atomic_init(&p->next, 0);
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return TT_ENOMEM;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return TT_ENOMEM;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return TT_ENOMEM;
    }
    for (int k = 0; k < threads - 1; k++) {
        if (pthread_create(&p->threads[p->n_workers], NULL, worker_main, p) != 0)
            break; /* fewer threads, same results */
        p->n_workers++;
    }
    *out = p;
    return TT_OK;
}

void pool_close(Pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int k = 0; k < p->n_workers; k++)
        pthread_join(p->threads[k], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int pool_threads(const Pool *p)
{
    return p ? p->n_workers + 1 : 1;
}

void pool_run(Pool *p, int n_tasks, PoolTask fn, void *ctx)
{
    if (n_tasks <= 0)
        return;
    /* One task, or no workers: no one to share with. */
    if (!p || p->n_workers == 0 || n_tasks == 1) {
        for (int t = 0; t < n_tasks; t++)
            fn(ctx, t);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    p->finished = 0;
    atomic_store(&p->next, 0);
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    take_tasks(p, fn, ctx, n_tasks);
    pthread_mutex_lock(&p->lock);
    while (p->finished < p->n_workers)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
