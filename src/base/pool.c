/*
 * pool.c — worker threads that share the tasks of a loop.
 *
 * A loop is published with a new generation number. Its tasks are cut into one contiguous
 * range per thread, each with an atomic cursor; a thread takes the tasks of its own range
 * first, then helps with the others' (taking from their cursors), and counts itself
 * finished when every range is empty. The caller takes part as thread 0, then waits until
 * every worker has finished this generation, so no worker still reads the loop's context
 * when pool_run returns.
 *
 * Own ranges first keeps data on one core: the loops of a training step split the same
 * rows the same way, so the rows a thread wrote in one loop are the rows it reads in the
 * next. Taking tasks from one shared counter instead gave each thread a random half of
 * them every time, and a two-thread step spent a fifth of its time moving cache lines
 * between the cores. Helping keeps the threads busy when the ranges cost unequal time.
 *
 * Waiting spins first, then sleeps. Training runs a hundred loops a step, a few tens of
 * microseconds apart; a sleeping thread costs a system call and a wake-up in the
 * kernel (on a virtual machine, a wake-up of a virtual CPU) per loop, which took a
 * third of the time of a two-thread step. So a worker watches the generation for a while
 * before it sleeps, and the caller watches the finished count. Sleeping is the same
 * handshake on both sides: the sleeper announces itself (sleepers) and checks the
 * condition again under the mutex before it waits; the waker changes the condition,
 * then takes the mutex to signal only when someone announced a sleep. With every one of
 * these atomics sequentially consistent, either the sleeper sees the change or the waker
 * sees the sleeper, so no wake-up is lost.
 */
#include "base/pool.h"

#include "base/status.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Polls of a spinning wait before it sleeps: about 50 µs on current x86-64 cores. */
#define POOL_SPINS 4000

/* What a worker is started with: its pool, and its number (1..n_workers). */
typedef struct {
    Pool *p;
    int k;
} Worker;

/* A thread's tasks of the current loop: next .. end − 1, on a cache line of its own. */
typedef struct {
    _Alignas(64) atomic_int next;
    int end;
} Range;

struct Pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* a new loop, or stop */
    pthread_cond_t done;       /* every worker finished the loop */
    pthread_t threads[POOL_MAX_THREADS];
    int n_workers;             /* started workers, 0..POOL_MAX_THREADS − 1 */
    atomic_long generation;    /* loops published so far */
    atomic_int stop;           /* 1: workers return */
    atomic_int finished;       /* workers done with the current generation */
    atomic_int sleepers;       /* workers about to sleep on wake */
    atomic_int caller_sleeps;  /* 1: the caller is about to sleep on done */
    Worker workers[POOL_MAX_THREADS - 1];
    PoolTask fn;               /* the current loop, written before generation moves */
    void *ctx;
    int n_tasks;
    int started;               /* 1: pool_start published a loop that pool_wait ends */
    Range range[POOL_MAX_THREADS]; /* thread k's tasks */
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Thread k's part of the current loop: its own range, then whatever is left of the
 * others'. */
static void take_tasks(Pool *p, int k, PoolTask fn, void *ctx)
{
    const int n = p->n_workers + 1;
    for (int i = 0; i < n; i++) {
        Range *r = &p->range[(k + i) % n];
        for (;;) {
            const int t = atomic_fetch_add(&r->next, 1);
            if (t >= r->end)
                break;
            fn(ctx, t);
        }
    }
}

/* A worker's wait for a generation after seen, or for stop. */
static void wait_for_loop(Pool *p, long seen)
{
    for (int i = 0; i < POOL_SPINS; i++) {
        if (atomic_load(&p->generation) != seen || atomic_load(&p->stop))
            return;
        cpu_relax();
    }
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->wake, &p->lock);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->lock);
}

static void *worker_main(void *arg)
{
    const Worker *w = arg;
    Pool *p = w->p;
    const int k = w->k;
    long seen = 0;
    for (;;) {
        wait_for_loop(p, seen);
        if (atomic_load(&p->stop))
            break;
        seen = atomic_load(&p->generation);
        take_tasks(p, k, p->fn, p->ctx);
        if (atomic_fetch_add(&p->finished, 1) + 1 == p->n_workers &&
            atomic_load(&p->caller_sleeps)) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

int pool_open(Pool **out, int threads)
{
    *out = NULL;
    if (threads < 1 || threads > POOL_MAX_THREADS)
        return TT_EINVAL;
    /* Aligned for the ranges' cache lines; the size is a multiple of the alignment. */
    Pool *p = aligned_alloc(_Alignof(Pool), sizeof *p);
    if (!p)
        return TT_ENOMEM;
    memset(p, 0, sizeof *p);
    for (int k = 0; k < POOL_MAX_THREADS; k++)
        atomic_init(&p->range[k].next, 0);
    atomic_init(&p->generation, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->finished, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->caller_sleeps, 0);
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
        p->workers[k] = (Worker){p, k + 1};
        if (pthread_create(&p->threads[p->n_workers], NULL, worker_main, &p->workers[k]) != 0)
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
    atomic_store(&p->stop, 1);
    pthread_mutex_lock(&p->lock);
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

void pool_start(Pool *p, int n_tasks, PoolTask fn, void *ctx)
{
    if (n_tasks <= 0)
        return;
    if (!p || p->n_workers == 0) {
        for (int t = 0; t < n_tasks; t++)
            fn(ctx, t);
        return;
    }
    assert(!p->started);
    /* Every worker finished the last loop, so none reads these until generation moves. */
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    const int n = p->n_workers + 1;
    for (int k = 0; k < n; k++) {
        p->range[k].end = (int)((long)n_tasks * (k + 1) / n);
        atomic_store(&p->range[k].next, (int)((long)n_tasks * k / n));
    }
    atomic_store(&p->finished, 0);
    atomic_fetch_add(&p->generation, 1);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    p->started = 1;
}

void pool_wait(Pool *p)
{
    if (!p || !p->started)
        return;
    p->started = 0;
    take_tasks(p, 0, p->fn, p->ctx);
    for (int i = 0; i < POOL_SPINS; i++) {
        if (atomic_load(&p->finished) == p->n_workers)
            return;
        cpu_relax();
    }
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->caller_sleeps, 1);
    while (atomic_load(&p->finished) < p->n_workers)
        pthread_cond_wait(&p->done, &p->lock);
    atomic_store(&p->caller_sleeps, 0);
    pthread_mutex_unlock(&p->lock);
}

void pool_run(Pool *p, int n_tasks, PoolTask fn, void *ctx)
{
    /* One task: no one to share with, no wake-up to pay (pool_start runs the tasks itself
     * without workers). */
    if (n_tasks == 1) {
        fn(ctx, 0);
        return;
    }
    pool_start(p, n_tasks, fn, ctx);
    pool_wait(p);
}
