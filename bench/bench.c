/*
 * bench.c — toytrans's side of `make bench`: times the library in one process and
 * writes the figures as one JSON object (bench/report.py turns them into the table).
 *
 *   toytrans-bench --model M --sentences TSV --toytrans BIN [--reps R]
 *                  [--train TSV] [--train-steps S] [--json OUT]
 *
 * Every figure is the median of R repetitions. What is measured, and how:
 *   translate   greedy (1 and 2 threads) and beam 4 over the source column of TSV, one
 *               sentence at a time through translator_run — tokenizing, encoding,
 *               decoding and detokenizing, as `toytrans translate` does. With 2 threads,
 *               each thread translates every other sentence with its own Translator on
 *               the shared, read-only Model.
 *   load        model_load_file to the first decoded word of the first sentence.
 *   rss         peak resident memory of `BIN translate` over the whole TSV (wait4).
 *   train       target tokens per second of train_run on --train, over S steps after a
 *               warm-up, with the configuration of --model (the one PyTorch trains in
 *               bench/torch_ref.py) and the shipped model's training settings (Makefile
 *               MODEL_SETTINGS): batch 32 with 1 and 2 threads, batch 128 with 2.
 *   matmul      GFLOP/s of kernel_matmul_nt on the shapes of the model's layers (one row,
 *               a sentence, a training task), beside the
 *               machine's fp32 peak and OpenBLAS's cblas_sgemm on the same shapes when
 *               libopenblas.so.0 can be loaded (dlopen: the benchmark needs no BLAS at
 *               build time, and toytrans itself never uses one).
 */
/* wait4 and its rusage: BSD/GNU, not POSIX. */
#define _DEFAULT_SOURCE

#include "base/json.h"
#include "base/kernel.h"
#include "base/rng.h"
#include "base/status.h"
#include "eval/evalset.h"
#include "model/model.h"
#include "train/backprop.h"
#include "train/train.h"
#include "translate/readback.h"
#include "translate/translator.h"

#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 101

typedef struct {
    const char *model, *sentences, *toytrans, *train, *json;
    int reps, train_steps;
    const char *reverse; /* --reverse: the read-back's model, or NULL */
} BenchOptions;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- translation ---- */

typedef struct {
    const Model *model;
    const Model *reverse;    /* read each translation back through it, or NULL */
    const EvalSet *set;
    int beam, first, stride; /* translates sentences first, first + stride, ... */
    int batch;               /* sentences decoded at once (translator_decode_ahead) */
    long words;              /* output words, a check that the work was done */
    double flops;            /* model FLOPs of the translations, forward (as training's) */
    int rc;
    char err[512];
} TranslateJob;

static void *translate_job(void *arg)
{
    TranslateJob *j = arg;
    Translator tr;
    ReadBack rb = {0};
    TranslatorOptions o = {.decode = {.beam = j->beam}};
    j->words = 0;
    j->flops = 0.0;
    j->rc = translator_init(&tr, j->model, &o, j->err, sizeof j->err);
    if (j->rc == TT_OK && j->reverse)
        j->rc = readback_init(&rb, j->reverse, READBACK_MARGIN, j->err, sizeof j->err);
    if (j->rc == TT_OK && j->batch > 1)
        j->rc = translator_set_batch(&tr, j->batch, NULL);
    const size_t block = (size_t)translator_ahead_capacity(&tr);
    const char *texts[TRANSLATOR_AHEAD_BLOCK * 64];
    size_t lens[TRANSLATOR_AHEAD_BLOCK * 64];
    size_t done = 0; /* this thread's sentences so far */
    for (size_t i = (size_t)j->first; j->rc == TT_OK && i < j->set->n; i += (size_t)j->stride) {
        if (block > 0 && done++ % block == 0) {
            int n = 0;
            for (size_t k = i; k < j->set->n && (size_t)n < block; k += (size_t)j->stride) {
                texts[n] = j->set->src[k];
                lens[n++] = strlen(j->set->src[k]);
            }
            (void)translator_decode_ahead(&tr, texts, lens, n);
        }
        TranslatorResult r;
        j->rc = translator_run(&tr, j->set->src[i], strlen(j->set->src[i]), &r, j->err,
                               sizeof j->err);
        if (j->rc == TT_OK && j->reverse)
            j->rc = readback_run(&rb, j->set->src[i], strlen(j->set->src[i]), r.text,
                                 &r.read_back, j->err, sizeof j->err);
        if (j->rc == TT_OK) {
            j->words += r.n_text;
            /* A translation's forward pass, S source and n output positions: a third of
             * what backprop_pair_flops counts for a training step (forward + backward). */
            j->flops += backprop_pair_flops(&j->model->config, j->model->tgt_vocab.size,
                                            r.t->S, r.t->n) / 3;
        }
    }
    readback_free(&rb);
    translator_free(&tr);
    return NULL;
}

/* One pass over every sentence with `threads` threads; returns seconds, or -1. */
static double translate_pass(const Model *m, const Model *reverse, const EvalSet *set, int beam,
                             int threads, int batch, double *flops)
{
    TranslateJob jobs[2];
    pthread_t tid[2];
    assert(threads >= 1 && threads <= 2);
    const double t0 = now();
    for (int k = 0; k < threads; k++) {
        jobs[k] = (TranslateJob){m, reverse, set, beam, k, threads, batch, 0, 0.0, TT_OK, ""};
        if (k > 0 && pthread_create(&tid[k], NULL, translate_job, &jobs[k]) != 0) {
            fprintf(stderr, "toytrans-bench: cannot start a thread\n");
            return -1;
        }
    }
    translate_job(&jobs[0]);
    for (int k = 1; k < threads; k++)
        pthread_join(tid[k], NULL);
    const double secs = now() - t0;
    *flops = 0.0;
    for (int k = 0; k < threads; k++)
        *flops += jobs[k].flops;
    for (int k = 0; k < threads; k++)
        if (jobs[k].rc != TT_OK) {
            fprintf(stderr, "toytrans-bench: translate: %s\n", jobs[k].err);
            return -1;
        }
    return secs;
}

static int bench_translate(JsonWriter *w, const Model *m, const Model *reverse,
                           const EvalSet *set, const char *key, int beam, int threads,
                           int batch, int reps)
{
    double t[MAX_REPS], flops = 0.0;
    if (translate_pass(m, reverse, set, beam, threads, batch, &flops) < 0) /* warm-up */
        return 1;
    for (int r = 0; r < reps; r++)
        if ((t[r] = translate_pass(m, reverse, set, beam, threads, batch, &flops)) < 0)
            return 1;
    const double secs = median(t, reps);
    json_key(w, key);
    json_begin_object(w);
    json_key(w, "sentences");
    json_int(w, (long long)set->n);
    json_key(w, "threads");
    json_int(w, threads);
    json_key(w, "beam");
    json_int(w, beam);
    json_key(w, "batch");
    json_int(w, batch);
    json_key(w, "sentences_per_s");
    json_float(w, (double)set->n / secs);
    json_key(w, "ms_per_sentence");
    json_float(w, 1e3 * secs / (double)set->n);
    json_key(w, "model_gflops");
    json_float(w, flops / secs * 1e-9);
    json_end_object(w);
    fprintf(stderr, "  translate beam %d, batch %d, %d thread(s)%s: %.0f sentences/s\n", beam,
            batch, threads, reverse ? ", read back" : "", (double)set->n / secs);
    return 0;
}

/* Open the file, load everything, translate the first sentence up to its first word. */
static int bench_load(JsonWriter *w, const char *path, const EvalSet *set, int reps)
{
    double t[MAX_REPS];
    char err[512];
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        Model m;
        int rc = model_load_file(&m, path, err, sizeof err);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans-bench: %s\n", err);
            return 1;
        }
        Translator tr;
        TranslatorOptions o = {.decode = {.beam = 1, .max_len = 2}}; /* one word, then </s> */
        rc = translator_init(&tr, &m, &o, err, sizeof err);
        TranslatorResult res;
        if (rc == TT_OK)
            rc = translator_run(&tr, set->src[0], strlen(set->src[0]), &res, err, sizeof err);
        t[r] = now() - t0;
        if (rc == TT_OK && res.t->n < 1)
            rc = TT_EINVAL, snprintf(err, sizeof err, "no word decoded");
        translator_free(&tr);
        model_free(&m);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans-bench: load: %s\n", err);
            return 1;
        }
    }
    const double ms = 1e3 * median(t, reps);
    json_key(w, "load_to_first_word_ms");
    json_float(w, ms);
    fprintf(stderr, "  load to first word: %.2f ms\n", ms);
    return 0;
}

/* Peak RSS of the real command, translating the whole TSV's source column. */
static int bench_rss(JsonWriter *w, const char *toytrans, const char *model, const EvalSet *set)
{
    char src[] = "/tmp/toytrans-bench-XXXXXX";
    int fd = mkstemp(src);
    if (fd < 0) {
        perror("toytrans-bench: mkstemp");
        return 1;
    }
    FILE *f = fdopen(fd, "w");
    for (size_t i = 0; f && i < set->n; i++)
        fprintf(f, "%s\n", set->src[i]);
    if (!f || fclose(f) != 0) {
        perror("toytrans-bench: writing the sentences");
        unlink(src);
        return 1;
    }
    const double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(src, O_RDONLY), out = open("/dev/null", O_WRONLY);
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0)
            _exit(127);
        execl(toytrans, toytrans, "translate", "--model", model, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    const pid_t got = pid > 0 ? wait4(pid, &status, 0, &ru) : -1;
    const double secs = now() - t0;
    unlink(src);
    if (pid < 0 || got != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "toytrans-bench: %s translate failed (status %d)\n", toytrans, status);
        return 1;
    }
    json_key(w, "translate_command");
    json_begin_object(w);
    json_key(w, "peak_rss_kib");
    json_int(w, ru.ru_maxrss);
    json_key(w, "seconds");
    json_float(w, secs);
    json_end_object(w);
    fprintf(stderr, "  translate command: peak RSS %ld KiB, %.2f s\n", ru.ru_maxrss, secs);
    return 0;
}

/* ---- training ---- */

typedef struct {
    long warmup_steps;
    double t_warm, tok_warm, fl_warm; /* seconds, tokens and model FLOPs when the warm-up ended */
    double t_end, tok_end, fl_end;
} TrainClock;

static void train_tick(void *ctx, const TrainProgress *p)
{
    TrainClock *c = ctx;
    /* Only the per-step reports carry the run's clock; the final one has none. */
    if (p->valid || p->note || p->final)
        return;
    const double tokens = p->tokens_per_second * p->seconds;
    const double flops = p->flops_per_second * p->seconds;
    if (p->step == c->warmup_steps)
        c->t_warm = p->seconds, c->tok_warm = tokens, c->fl_warm = flops;
    c->t_end = p->seconds, c->tok_end = tokens, c->fl_end = flops;
}

/* The scratch model and whatever SQLite may have left beside it. */
static void remove_model(const char *path)
{
    static const char *const SUFFIXES[] = {"", "-wal", "-shm", "-journal", ".tmp"};
    char p[256];
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, SUFFIXES[i]);
        unlink(p);
    }
}

/* The training configuration: the model file's, so that toytrans and PyTorch train the
 * same network. */
static int bench_config(ModelConfig *c, int *tgt_vocab, const char *model)
{
    Model m;
    char err[512];
    if (model_load_file(&m, model, err, sizeof err) != TT_OK) {
        fprintf(stderr, "toytrans-bench: %s\n", err);
        return 1;
    }
    *c = m.config;
    *tgt_vocab = m.tgt_vocab.size;
    model_free(&m);
    return 0;
}

static int bench_train(JsonWriter *w, const char *corpus, const ModelConfig *config,
                       int threads, int batch, int steps, int reps)
{
    double tps[MAX_REPS], gfl[MAX_REPS], fpt = 0;
    char out[] = "/tmp/toytrans-bench-model-XXXXXX";
    int fd = mkstemp(out);
    if (fd < 0) {
        perror("toytrans-bench: mkstemp");
        return 1;
    }
    close(fd);
    for (int r = 0; r < reps; r++) {
        TrainOptions o;
        train_options_defaults(&o);
        /* The shipped model's settings (Makefile MODEL_SETTINGS). */
        o.train_path = corpus;
        o.out_path = out;
        o.command = "toytrans-bench";
        o.config = *config;
        o.epochs = 7, o.batch = batch, o.lr = 0.001f, o.warmup = 1000;
        o.label_smoothing = 0.02f, o.seed = 1, o.threads = threads;
        o.force = 1, o.stop_after = steps + 5, o.checkpoint_every = 0, o.validate_exact = 0;
        TrainClock c = {5, 0, 0, 0, 0, 0, 0};
        char err[512];
        int rc = train_run(&o, train_tick, &c, NULL, err, sizeof err);
        if (rc != TT_OK) {
            fprintf(stderr, "toytrans-bench: train: %s\n", err);
            remove_model(out);
            return 1;
        }
        tps[r] = (c.tok_end - c.tok_warm) / (c.t_end - c.t_warm);
        gfl[r] = (c.fl_end - c.fl_warm) / (c.t_end - c.t_warm) * 1e-9;
        fpt = (c.fl_end - c.fl_warm) / (c.tok_end - c.tok_warm);
    }
    remove_model(out);
    const double v = median(tps, reps), g = median(gfl, reps);
    char key[48];
    snprintf(key, sizeof key, "train_batch_%d_threads_%d", batch, threads);
    json_key(w, key);
    json_begin_object(w);
    json_key(w, "steps");
    json_int(w, steps);
    json_key(w, "batch");
    json_int(w, batch);
    json_key(w, "tokens_per_s");
    json_float(w, v);
    json_key(w, "model_gflops");
    json_float(w, g);
    json_key(w, "model_flops_per_token");
    json_float(w, fpt);
    json_end_object(w);
    fprintf(stderr, "  train, batch %d, %d thread(s): %.0f target tokens/s, %.1f model GFLOP/s\n",
            batch, threads, v, g);
    return 0;
}

/* ---- matrix multiply ---- */

typedef void (*SgemmFn)(int order, int ta, int tb, int M, int N, int K, float alpha,
                        const float *A, int lda, const float *B, int ldb, float beta, float *C,
                        int ldc);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef struct {
    void *lib;
    SgemmFn sgemm;
    void (*set_threads)(int);
    char *(*config)(void);
} Blas;

static void blas_open(Blas *b)
{
    memset(b, 0, sizeof *b);
    b->lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!b->lib)
        return;
    *(void **)&b->sgemm = dlsym(b->lib, "cblas_sgemm");
    *(void **)&b->set_threads = dlsym(b->lib, "openblas_set_num_threads");
    *(void **)&b->config = dlsym(b->lib, "openblas_get_config");
    if (!b->sgemm) {
        dlclose(b->lib);
        b->lib = NULL;
    }
}

/* Seconds per call of f over `calls` calls, median of reps. */
typedef struct {
    const float *a, *b, *bias;
    float *c;
    int M, K, N;
    const Blas *blas;
} MatmulCase;

static void run_ours(const MatmulCase *c)
{
    kernel_matmul_nt(c->c, c->a, c->b, c->bias, c->M, c->K, c->N);
}

static void run_blas(const MatmulCase *c)
{
    /* C = A · Bᵀ, B stored [N, K] like a Linear weight; the bias is left out (OpenBLAS
     * has no fused bias; it costs M·N additions, under 1 % of the work here). */
    c->blas->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, c->M, c->N, c->K, 1.0f, c->a,
                   c->K, c->b, c->K, 0.0f, c->c, c->N);
}

static double gflops(void (*f)(const MatmulCase *), const MatmulCase *c, int reps)
{
    const double flop = 2.0 * c->M * c->K * c->N;
    /* Enough calls for about 20 ms per repetition. */
    long calls = (long)(4e8 / flop) + 1;
    double t[MAX_REPS];
    for (long i = 0; i < calls / 10 + 1; i++)
        f(c);
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        for (long i = 0; i < calls; i++)
            f(c);
        t[r] = (now() - t0) / (double)calls;
    }
    return flop / median(t, reps) * 1e-9;
}

/* The core clock, measured: a chain of dependent integer additions retires one per
 * cycle on every x86-64 core of the last fifteen years. */
static double measure_clock_ghz(void)
{
    double best = 0;
    for (int r = 0; r < 5; r++) {
        volatile unsigned long sink;
        unsigned long x = 0;
        const long n = 200000000;
        const double t0 = now();
        for (long i = 0; i < n; i++)
            __asm__ volatile("add $1, %0" : "+r"(x));
        const double secs = now() - t0;
        sink = x;
        (void)sink;
        const double ghz = (double)n / secs * 1e-9;
        if (ghz > best)
            best = ghz;
    }
    return best;
}

/* The fp32 throughput the core actually delivers: twelve independent chains of vector
 * multiply-adds (enough to cover the latency of two units), built for each vector width
 * like the kernels, so the loader runs the widest the CPU has. Returns GFLOP/s. */
typedef float vpeak __attribute__((vector_size(64)));
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
static double measure_fma_gflops(void)
{
    enum { CHAINS = 12 };
    const long n = 20000000;
    vpeak acc[CHAINS], x, y;
    for (int l = 0; l < 16; l++)
        x[l] = 0.999999f, y[l] = 1e-7f;
    for (int c = 0; c < CHAINS; c++)
        for (int l = 0; l < 16; l++)
            acc[c][l] = (float)c;
    const double t0 = now();
    for (long i = 0; i < n; i++)
        for (int c = 0; c < CHAINS; c++)
            acc[c] = acc[c] * x + y;
    const double secs = now() - t0;
    float sink = 0;
    for (int c = 0; c < CHAINS; c++)
        for (int l = 0; l < 16; l++)
            sink += acc[c][l];
    if (sink == 12345.0f) /* keeps the loop from being optimised away */
        fputc(' ', stderr);
    return 2.0 * 16 * CHAINS * (double)n / secs * 1e-9;
}

typedef struct {
    const char *use;
    int M, K, N;
} Shape;

/* Rows of one forward task of a Linear layer in a training batch of 32 sentences: about
 * 300 rows (9 target tokens each) in four tasks of whole tiles (src/nn/net.c). */
#define TRAIN_TASK_ROWS 78

static int bench_matmul(JsonWriter *w, const ModelConfig *cfg, int tgt_vocab, int reps)
{
    /* The model's Linear layers: a decoder step has one row; the encoder and the recorded
     * pass run whole sentences, about ten rows (data/test.tsv sentences have about 7
     * words and 8 tokens with </s>); training runs a batch, in tasks of
     * TRAIN_TASK_ROWS rows. */
    const int D = cfg->d_model, F = cfg->d_ff, V = tgt_vocab;
    const Shape SHAPES[] = {
        {"decoder step: q/k/v/out projection", 1, D, D},
        {"decoder step: feed-forward up", 1, D, F},
        {"decoder step: feed-forward down", 1, F, D},
        {"decoder step: output layer", 1, D, V},
        {"sentence (10 tokens): projection", 10, D, D},
        {"sentence: feed-forward up", 10, D, F},
        {"sentence: feed-forward down", 10, F, D},
        {"sentence: output layer", 10, D, V},
        {"training task (batch 32): projection", TRAIN_TASK_ROWS, D, D},
        {"training task: feed-forward up", TRAIN_TASK_ROWS, D, F},
        {"training task: feed-forward down", TRAIN_TASK_ROWS, F, D},
        {"training task: output layer", TRAIN_TASK_ROWS, D, V},
    };
    Blas blas;
    blas_open(&blas);
    if (blas.set_threads)
        blas.set_threads(1);
    const double ghz = measure_clock_ghz();
    /* The fp32 peak per core: two fused multiply-add units, each lanes wide, two
     * operations per lane per cycle. */
    const int lanes = __builtin_cpu_supports("avx512f") ? 16 : __builtin_cpu_supports("avx2") ? 8 : 4;
    const int fma = __builtin_cpu_supports("fma") ? 2 : 1;
    const double peak1 = ghz * 2 /* units */ * lanes * fma;
    json_key(w, "machine");
    json_begin_object(w);
    json_key(w, "clock_ghz");
    json_float(w, ghz);
    json_key(w, "fp32_lanes");
    json_int(w, lanes);
    json_key(w, "fma");
    json_bool(w, fma == 2);
    json_key(w, "peak_gflops_1_core");
    json_float(w, peak1);
    json_key(w, "peak_gflops_2_cores");
    json_float(w, 2 * peak1);
    const double measured = measure_fma_gflops();
    json_key(w, "measured_fma_gflops_1_core");
    json_float(w, measured);
    json_key(w, "kernel_variant");
    json_string(w, kernel_variant());
    json_key(w, "openblas");
    if (blas.config)
        json_string(w, blas.config());
    else
        json_null(w);
    json_end_object(w);
    fprintf(stderr,
            "  clock %.2f GHz, %d lanes, peak %.1f GFLOP/s per core (measured FMA loop %.1f), "
            "kernels: %s\n",
            ghz, lanes, peak1, measured, kernel_variant());

    Rng rng;
    rng_seed(&rng, 7);
    json_key(w, "matmul");
    json_begin_array(w);
    int rc = 0;
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0] && rc == 0; s++) {
        const Shape *sh = &SHAPES[s];
        float *a = malloc(sizeof(float) * (size_t)sh->M * sh->K);
        float *b = malloc(sizeof(float) * (size_t)sh->N * sh->K);
        float *bias = malloc(sizeof(float) * (size_t)sh->N);
        float *c = malloc(sizeof(float) * (size_t)sh->M * sh->N);
        if (!a || !b || !bias || !c) {
            fprintf(stderr, "toytrans-bench: out of memory\n");
            rc = 1;
        } else {
            rng_fill_uniform(&rng, a, (size_t)sh->M * sh->K, -1, 1);
            rng_fill_uniform(&rng, b, (size_t)sh->N * sh->K, -1, 1);
            rng_fill_uniform(&rng, bias, (size_t)sh->N, -1, 1);
            MatmulCase mc = {a, b, bias, c, sh->M, sh->K, sh->N, &blas};
            const double ours = gflops(run_ours, &mc, reps);
            const double theirs = blas.sgemm ? gflops(run_blas, &mc, reps) : 0;
            json_begin_object(w);
            json_key(w, "use");
            json_string(w, sh->use);
            json_key(w, "M");
            json_int(w, sh->M);
            json_key(w, "K");
            json_int(w, sh->K);
            json_key(w, "N");
            json_int(w, sh->N);
            json_key(w, "toytrans_gflops");
            json_float(w, ours);
            json_key(w, "openblas_gflops");
            if (blas.sgemm)
                json_float(w, theirs);
            else
                json_null(w);
            json_end_object(w);
            fprintf(stderr, "  matmul %4d x %3d x %3d: %6.2f GFLOP/s, OpenBLAS %6.2f\n", sh->M,
                    sh->K, sh->N, ours, theirs);
        }
        free(a), free(b), free(bias), free(c);
    }
    json_end_array(w);
    if (blas.lib)
        dlclose(blas.lib);
    return rc;
}

/* ---- main ---- */

/* A whole number in 1..max, all of the text; returns 1 and sets *out, or 0. */
static int parse_count(const char *text, long max, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > max)
        return 0;
    *out = (int)v;
    return 1;
}

static void usage(FILE *f)
{
    fputs("Usage: toytrans-bench --model M --sentences TSV --toytrans BIN [--train TSV]\n"
          "                      [--train-steps S] [--reps R] [--json OUT] [--only PART]\n"
          "                      [--reverse M]\n"
          "\n"
          "Times toytrans's library: translation (greedy with 1 and 2 threads, one sentence\n"
          "at a time and in batches of the commands' default size; beam 4 one at a time\n"
          "and in such batches; and\n"
          "with --reverse greedy read back through the reverse model M, 1 thread),\n"
          "load to first word, the translate command's peak memory, training tokens/s\n"
          "(batch 32 with 1 and 2 threads, batch 128 with 2) and the matrix-multiply kernel\n"
          "beside OpenBLAS. Writes one\n"
          "JSON object (to OUT or standard output); progress goes to standard error.\n"
          "PART is translate, train or matmul (repeatable; default: all).\n"
          "\n"
          "Exit status: 0 ok, 2 bad command line, 3 unusable model, 5 I/O error.\n",
          f);
}

int main(int argc, char **argv)
{
    BenchOptions o = {NULL, NULL, NULL, NULL, NULL, 5, 200, NULL};
    int parts = 0; /* bit 1 translate, 2 train, 4 matmul */
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},   {"sentences", required_argument, NULL, 's'},
        {"toytrans", required_argument, NULL, 't'}, {"train", required_argument, NULL, 'T'},
        {"train-steps", required_argument, NULL, 'S'}, {"reps", required_argument, NULL, 'r'},
        {"json", required_argument, NULL, 'j'},    {"only", required_argument, NULL, 'o'},
        {"reverse", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'm': o.model = optarg; break;
        case 's': o.sentences = optarg; break;
        case 't': o.toytrans = optarg; break;
        case 'T': o.train = optarg; break;
        case 'S':
            if (!parse_count(optarg, 1000000, &o.train_steps)) {
                fprintf(stderr, "toytrans-bench: --train-steps wants 1..1000000, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r':
            if (!parse_count(optarg, MAX_REPS, &o.reps)) {
                fprintf(stderr, "toytrans-bench: --reps wants 1..%d, not '%s'\n", MAX_REPS, optarg);
                return 2;
            }
            break;
        case 'j': o.json = optarg; break;
        case 'R': o.reverse = optarg; break;
        case 'o':
            if (strcmp(optarg, "translate") == 0)
                parts |= 1;
            else if (strcmp(optarg, "train") == 0)
                parts |= 2;
            else if (strcmp(optarg, "matmul") == 0)
                parts |= 4;
            else {
                fprintf(stderr, "toytrans-bench: unknown part '%s'\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!parts)
        parts = 7;
    if (optind < argc || ((parts & 1) && (!o.model || !o.sentences || !o.toytrans)) || ((parts & 2) && (!o.train || !o.model))) {
        usage(stderr);
        return 2;
    }
    FILE *out = o.json ? fopen(o.json, "w") : stdout;
    if (!out) {
        fprintf(stderr, "toytrans-bench: %s: %s\n", o.json, strerror(errno));
        return 5;
    }
    JsonWriter w;
    json_init(&w, out);
    json_begin_object(&w);
    int rc = 0;
    if (parts & 1) {
        char err[512];
        EvalSet set;
        Model m;
        if (evalset_load(&set, o.sentences, NULL, 0, 0, stderr, err, sizeof err) != TT_OK) {
            fprintf(stderr, "toytrans-bench: %s\n", err);
            return 5;
        }
        /* The command's peak memory first, while this process is small: a child's peak
         * counts the pages it had before its exec too (Linux keeps the larger), which are
         * this process's; measured last, it was this process's 130 MiB, not the
         * command's 90. */
        if (bench_rss(&w, o.toytrans, o.model, &set) != 0) {
            evalset_free(&set);
            return 1;
        }
        if (model_load_file(&m, o.model, err, sizeof err) != TT_OK) {
            fprintf(stderr, "toytrans-bench: %s\n", err);
            evalset_free(&set);
            return 3;
        }
        Model rev;
        if (o.reverse && model_load_file(&rev, o.reverse, err, sizeof err) != TT_OK) {
            fprintf(stderr, "toytrans-bench: %s\n", err);
            model_free(&m);
            evalset_free(&set);
            return 3;
        }
        rc = bench_translate(&w, &m, NULL, &set, "greedy_threads_1", 1, 1, 1, o.reps) ||
             bench_translate(&w, &m, NULL, &set, "greedy_threads_2", 1, 2, 1, o.reps) ||
             bench_translate(&w, &m, NULL, &set, "greedy_batched_threads_1", 1, 1,
                             TRANSLATOR_DEFAULT_BATCH, o.reps) ||
             bench_translate(&w, &m, NULL, &set, "greedy_batched_threads_2", 1, 2,
                             TRANSLATOR_DEFAULT_BATCH, o.reps) ||
             bench_translate(&w, &m, NULL, &set, "beam_4", 4, 1, 1, o.reps) ||
             bench_translate(&w, &m, NULL, &set, "beam_4_batched", 4, 1,
                             TRANSLATOR_DEFAULT_BATCH, o.reps) ||
             (o.reverse && bench_translate(&w, &m, &rev, &set, "greedy_read_back_1", 1, 1, 1,
                                           o.reps)) ||
             bench_load(&w, o.model, &set, o.reps);
        if (o.reverse)
            model_free(&rev);
        model_free(&m);
        evalset_free(&set);
    }
    ModelConfig config;
    int tgt_vocab = 0;
    if (!rc && (parts & 6))
        rc = bench_config(&config, &tgt_vocab, o.model);
    if (!rc && (parts & 2))
        rc = bench_train(&w, o.train, &config, 1, 32, o.train_steps, o.reps) ||
             bench_train(&w, o.train, &config, 2, 32, o.train_steps, o.reps) ||
             bench_train(&w, o.train, &config, 2, 128, o.train_steps, o.reps);
    if (!rc && (parts & 4))
        rc = bench_matmul(&w, &config, tgt_vocab, o.reps);
    json_end_object(&w);
    fputc('\n', out);
    if (json_finish(&w) != TT_OK || fflush(out) != 0 || (o.json && fclose(out) != 0)) {
        fprintf(stderr, "toytrans-bench: writing the JSON failed\n");
        return 5;
    }
    return rc ? 1 : 0;
}
