/*
 * pool.h — a fixed set of worker threads that run the tasks of one parallel loop.
 *
 * The caller splits a computation into tasks whose number and boundaries depend only on
 * the problem's shape, never on the thread count; a task writes its own part of the
 * output and sums in its own fixed order. Which thread runs a task then changes nothing,
 * so a result is bit-identical whether one thread runs every task or eight share them.
 * That is how training is deterministic for any --threads (docs/training.md).
 *
 * The workers are started once (pool_open) and sleep between loops, so a loop costs a
 * wake-up, not a thread creation. A worker that cannot be started leaves its share to
 * the others: the result is the same, only slower.
 */
#ifndef TOYTRANS_POOL_H
#define TOYTRANS_POOL_H

#define POOL_MAX_THREADS 64

typedef struct Pool Pool;

/* One task of a loop: task is 0..n_tasks-1; ctx is the caller's. */
typedef void (*PoolTask)(void *ctx, int task);

/* Starts threads − 1 workers (the caller is the other thread) into *out, which the caller
 * frees with pool_close. threads is 1..POOL_MAX_THREADS. Returns TT_OK, TT_EINVAL or
 * TT_ENOMEM (*out NULL). Workers that the system refuses are left out (pool_threads
 * tells how many run). */
int pool_open(Pool **out, int threads);

/* Stops and joins the workers and frees p; pool_close(NULL) does nothing. */
void pool_close(Pool *p);

/* Threads that take part in a loop, the caller included: 1 for a NULL pool. */
int pool_threads(const Pool *p);

/* Runs fn(ctx, 0) … fn(ctx, n_tasks − 1), each once, on the pool's threads, and returns
 * when every one has finished. A NULL pool runs them in order on the calling thread.
 * Not reentrant: a task must not call pool_run. */
void pool_run(Pool *p, int n_tasks, PoolTask fn, void *ctx);

/* pool_run in two halves, so that the caller can do other work while the workers run a
 * loop: pool_start hands the tasks to the workers and returns at once (they take every
 * task while the caller is away, its own share too); pool_wait has the caller take what
 * is left and returns when every task has finished. Between the two the caller must not
 * call pool_run or pool_start, nor touch what the tasks write. Without workers (a NULL
 * pool, or one thread) pool_start runs the tasks itself before it returns. */
void pool_start(Pool *p, int n_tasks, PoolTask fn, void *ctx);
void pool_wait(Pool *p);

#endif
