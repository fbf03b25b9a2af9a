/*
 * kernel.c — the numerical kernels, register-blocked and vectorised.
 *
 * Every matrix product here is one loop nest, the tile: a block of up to TILE_ROWS rows
 * by TILE_COLS columns of the output is held in vector registers while the shared
 * dimension streams past, each step adding one broadcast element of the left operand
 * times one contiguous row segment of the right operand. The tile never goes back to
 * memory inside the K loop, so the loop is bound by the multiply-add units rather than by
 * loads and stores. The three products the model needs map onto the tile as follows:
 *
 *   a · b        right operand rows are b's rows: used as they are;
 *   a · bᵀ       a Linear layer (weight stored [out, in]): each block of TILE_COLS weight
 *                rows is first copied transposed into a small panel on the stack;
 *   dyᵀ · x      the weight gradient: the "left operand" is dy read down its columns,
 *                which the tile allows by taking a row and a column stride.
 *
 * Vectors are GCC/Clang vector extensions of TILE_COLS floats, so the same source
 * compiles to whatever the target has. On x86-64 with GCC or Clang, each kernel is built
 * three times (target_clones: AVX-512, AVX2+FMA, and baseline SSE2) and the dynamic
 * loader picks the best one the CPU supports when the program starts — one binary for
 * every x86-64 machine. kernel.c is compiled with -ffp-contract=fast (see the Makefile),
 * so a multiply followed by an add becomes one fused multiply-add where the CPU has one.
 *
 * Determinism: sums accumulate in a fixed order that does not depend on the data or on
 * threads, so the same inputs give bit-identical outputs on every run on one machine.
 * Across machines, results may differ in the last bits (fused or separate multiply-add);
 * every test compares with a tolerance, never bit for bit across builds. The path a
 * product takes depends on its shape (rows, K a multiple of 16), so one row computed
 * alone and the same row within a larger product may differ in the last bits too.
 */
#include "base/kernel.h"

#include "base/clones.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

const char *kernel_variant(void)
{
#ifdef KERNEL_HAS_CLONES
    /* The loader's choice: the same test of the whole feature level it makes. */
    __builtin_cpu_init();
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    if (__builtin_cpu_supports("x86-64-v4"))
        return "x86-64-v4 (AVX-512)";
    if (__builtin_cpu_supports("x86-64-v3"))
        return "x86-64-v3 (AVX2, FMA)";
#else
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd"))
        return "x86-64-v4 (AVX-512)";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("movbe"))
        return "x86-64-v3 (AVX2, FMA)";
#endif
    return "x86-64 (SSE2)";
#else
    return "portable";
#endif
}

/* A tile is TILE_ROWS vectors of TILE_COLS floats: six independent chains of
 * multiply-adds, enough to keep two fused multiply-add units busy through most of their
 * latency, and with AVX2 (two registers per vector) still 12 of the 16 registers. */
#define TILE_ROWS 6
#define TILE_COLS 16
/* Shared-dimension chunk of a packed a · bᵀ panel: 256 × 16 floats = 16 KiB of stack. */
#define PANEL_K 256
/* kernel_matmul_nt packs a panel only for this many rows of a or more (measured with
 * `make bench`: below it, the copy costs more than the dot products' lane sums). */
#define NT_PANEL_MIN_ROWS 32
/* Floats in kernel_matmul_nt's panel: 32 KiB of stack, PANEL_K rows of the narrow tile's
 * 16 columns or 128 rows of the widest tile's 64, which keeps it in the L1 cache (twice
 * that measured no faster). Where the widest tile runs, every product of 32 rows or
 * more uses it: with the panel packed through registers, the wider panel pays at every
 * size (at 32 rows × 128 × 128, 155 against 126 GFLOP/s for the narrow tile). */
#define NT_PANEL_FLOATS 8192

typedef float vfloat __attribute__((vector_size(TILE_COLS * sizeof(float))));
/* Half a vector: eight floats (a remainder of columns, a dot product's partial sums). */
typedef float vfloat8 __attribute__((vector_size(8 * sizeof(float))));

/* Unaligned vector load and store; the memcpy compiles to a single move instruction. */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(vfloat))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(vfloat))

/* A tile's operands. Element (r, k) of the left operand is a[r*a_rs + k*a_cs]; row k of
 * the right operand is b + k*ldb, with TILE_COLS readable floats (the caller pads
 * narrower blocks); the output rows are c + r*ldc, of which cols are written. */
typedef struct {
    float *c;
    int ldc;
    const float *a;
    int a_rs, a_cs;
    const float *b;
    int ldb;
} Tile;

/* The TILE_ROWS × TILE_COLS tile: c = (accumulate ? c : init) + Σ_k a(r,k) · b(k,·).
 * init is a row of TILE_COLS values (a bias) or NULL for zero. Written for a constant
 * row count so that each instance keeps its accumulators in registers. */
static inline __attribute__((always_inline)) void tile_run(const Tile *t, int rows, int cols,
                                                            int K, int accumulate,
                                                            const float *init)
{
    vfloat acc[TILE_ROWS];
    for (int r = 0; r < rows; r++) {
        if (cols == TILE_COLS && (accumulate || init)) {
            VLOAD(acc[r], accumulate ? t->c + (size_t)r * t->ldc : init);
        } else if (!accumulate && !init) {
            acc[r] = (vfloat){0};
        } else {
            float buf[TILE_COLS] = {0};
            if (accumulate)
                memcpy(buf, t->c + (size_t)r * t->ldc, sizeof(float) * (size_t)cols);
            else if (init)
                memcpy(buf, init, sizeof(float) * (size_t)cols);
            VLOAD(acc[r], buf);
        }
    }
    const float *a = t->a, *b = t->b;
    for (int k = 0; k < K; k++) {
        vfloat bk;
        VLOAD(bk, b);
        for (int r = 0; r < rows; r++)
            acc[r] += a[(size_t)r * t->a_rs] * bk;
        a += t->a_cs;
        b += t->ldb;
    }
    for (int r = 0; r < rows; r++) {
        if (cols == TILE_COLS) {
            VSTORE(t->c + (size_t)r * t->ldc, acc[r]);
        } else {
            float buf[TILE_COLS];
            VSTORE(buf, acc[r]);
            memcpy(t->c + (size_t)r * t->ldc, buf, sizeof(float) * (size_t)cols);
        }
    }
}

/* Tiles of `rows` rows while they fit; returns the first row left. Called with constant
 * row counts, so that each call's tile is compiled for its size. */
static inline __attribute__((always_inline)) int tile_rows(Tile *t, int i, int M, int rows,
                                                           int cols, int K, int accumulate,
                                                           const float *init)
{
    for (; i + rows <= M; i += rows) {
        tile_run(t, rows, cols, K, accumulate, init);
        t->c += (size_t)rows * t->ldc;
        t->a += (size_t)rows * t->a_rs;
    }
    return i;
}

/* All rows of one column block: full tiles of TILE_ROWS, then what is left in tiles of
 * 4, 2 and 1 rows (a sentence of 10 tokens is 6 + 4 rows, not 6 + 1 + 1 + 1 + 1). */
static inline __attribute__((always_inline)) void tile_column(Tile t, int M, int cols, int K,
                                                               int accumulate, const float *init)
{
    int i = tile_rows(&t, 0, M, TILE_ROWS, cols, K, accumulate, init);
    i = tile_rows(&t, i, M, 4, cols, K, accumulate, init);
    i = tile_rows(&t, i, M, 2, cols, K, accumulate, init);
    tile_rows(&t, i, M, 1, cols, K, accumulate, init);
}

/* The wide tile: `rows` rows (at most WIDE_ROWS) by nv vectors (nv · TILE_COLS columns,
 * all written; nv at most WIDE_VECS). Worth it where a vector is one register and there
 * are 32 of them (AVX-512): two fused multiply-add units of four cycles' latency want
 * eight independent chains, which the narrow tile's six cannot give. At 6 × 4 it holds
 * 24 accumulators (with the four loaded vectors of b and a broadcast, 29 registers) and
 * needs 10 loads per 24 multiply-adds, against 8 per 12 at 6 × 2: 208 against 183
 * GFLOP/s for kernel_matmul at 48 × 128 × 128. 12 × 2 measured the same as 6 × 4 and
 * 8 × 3 slower (a 48-column block also leaves more columns to the narrow tile).
 * Each output element sums the same products in the same order as in the narrow tile,
 * so the two give the same bits. */
#define WIDE_ROWS 6
#define WIDE_VECS 4
static inline __attribute__((always_inline)) void tile_run_wide(const Tile *t, int rows, int nv,
                                                                 int K, int accumulate,
                                                                 const float *init)
{
    vfloat acc[WIDE_ROWS][WIDE_VECS];
    for (int r = 0; r < rows; r++)
        for (int h = 0; h < nv; h++) {
            if (accumulate)
                VLOAD(acc[r][h], t->c + (size_t)r * t->ldc + h * TILE_COLS);
            else if (init)
                VLOAD(acc[r][h], init + h * TILE_COLS);
            else
                acc[r][h] = (vfloat){0};
        }
    const float *a = t->a, *b = t->b;
    for (int k = 0; k < K; k++) {
        vfloat bv[WIDE_VECS];
        for (int h = 0; h < nv; h++)
            VLOAD(bv[h], b + h * TILE_COLS);
        for (int r = 0; r < rows; r++) {
            const float ar = a[(size_t)r * t->a_rs];
            for (int h = 0; h < nv; h++)
                acc[r][h] += ar * bv[h];
        }
        a += t->a_cs;
        b += t->ldb;
    }
    for (int r = 0; r < rows; r++)
        for (int h = 0; h < nv; h++)
            VSTORE(t->c + (size_t)r * t->ldc + h * TILE_COLS, acc[r][h]);
}

static inline __attribute__((always_inline)) int tile_rows_wide(Tile *t, int i, int M,
                                                                int rows, int nv, int K,
                                                                int accumulate,
                                                                const float *init)
{
    for (; i + rows <= M; i += rows) {
        tile_run_wide(t, rows, nv, K, accumulate, init);
        t->c += (size_t)rows * t->ldc;
        t->a += (size_t)rows * t->a_rs;
    }
    return i;
}

static inline __attribute__((always_inline)) void tile_column_wide(Tile t, int M, int nv, int K,
                                                                    int accumulate,
                                                                    const float *init)
{
    int i = tile_rows_wide(&t, 0, M, WIDE_ROWS, nv, K, accumulate, init);
    i = tile_rows_wide(&t, i, M, 4, nv, K, accumulate, init);
    i = tile_rows_wide(&t, i, M, 2, nv, K, accumulate, init);
    tile_rows_wide(&t, i, M, 1, nv, K, accumulate, init);
}

_Static_assert(WIDE_VECS == 4, "the wide tile's widths are WIDE_VECS and 2 vectors");

/* tile_column_wide for nv = WIDE_VECS or 2 vectors, each a constant in its own call: the
 * inlined tile keeps its accumulators in registers only when nv is known at compile time. */
static inline __attribute__((always_inline)) void tile_column_nv(Tile t, int M, int nv, int K,
                                                                  int accumulate,
                                                                  const float *init)
{
    if (nv == WIDE_VECS)
        tile_column_wide(t, M, WIDE_VECS, K, accumulate, init);
    else
        tile_column_wide(t, M, 2, K, accumulate, init);
}

/* Whether this build and CPU use the wide tile: only the clones, where the CPU has
 * AVX-512 (its clone is the one running then). Elsewhere a vector is two or four
 * registers and twelve of them would spill. */
static inline int use_wide_tile(void)
{
#ifdef KERNEL_HAS_CLONES
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* Rows of b narrower than a tile are copied into a zero-padded strip, so the tile can
 * always load TILE_COLS floats. strip holds K × TILE_COLS floats. */
static const float *padded_rows(float *strip, const float *b, int ldb, int K, int cols)
{
    for (int k = 0; k < K; k++) {
        memset(strip + (size_t)k * TILE_COLS, 0, sizeof(float) * TILE_COLS);
        memcpy(strip + (size_t)k * TILE_COLS, b + (size_t)k * ldb, sizeof(float) * (size_t)cols);
    }
    return strip;
}

/* c (M, N) (+)= a · b, with a(i,k) at a[i*a_rs + k*a_cs] and b (K, N) row-major; when
 * not accumulating, each element starts from zero. */
static inline __attribute__((always_inline)) void gemm_nn(float *c, const float *a, int a_rs,
                                                          int a_cs, const float *b, int M,
                                                          int K, int N, int accumulate)
{
    float strip[PANEL_K * TILE_COLS];
    int j0 = 0;
    if (use_wide_tile())
        for (int nv = WIDE_VECS; nv >= 2; nv /= 2)
            for (; j0 + nv * TILE_COLS <= N; j0 += nv * TILE_COLS)
                for (int k0 = 0; k0 < K; k0 += PANEL_K) {
                    const int kc = K - k0 < PANEL_K ? K - k0 : PANEL_K;
                    Tile t = {c + j0, N, a + (size_t)k0 * a_cs, a_rs, a_cs, b + (size_t)k0 * N + j0, N};
                    tile_column_nv(t, M, nv, kc, accumulate || k0 > 0, NULL);
                }
    for (int j = j0; j < N; j += TILE_COLS) {
        const int cols = N - j < TILE_COLS ? N - j : TILE_COLS;
        for (int k0 = 0; k0 < K; k0 += PANEL_K) {
            const int kc = K - k0 < PANEL_K ? K - k0 : PANEL_K;
            const float *bj = b + (size_t)k0 * N + j;
            int ldb = N;
            if (cols < TILE_COLS) {
                bj = padded_rows(strip, bj, N, kc, cols);
                ldb = TILE_COLS;
            }
            Tile t = {c + j, N, a + (size_t)k0 * a_cs, a_rs, a_cs, bj, ldb};
            tile_column(t, M, cols, kc, accumulate || k0 > 0, NULL);
        }
    }
}

KERNEL_CLONES
void kernel_matmul(float *out, const float *a, const float *b, int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    gemm_nn(out, a, K, 1, b, M, K, N, 0);
}

/* The packed weight's column blocks (kernel.h): the widths the tiles take, widest first. */
static int packed_block_cols(int left)
{
    return left >= WIDE_VECS * TILE_COLS ? WIDE_VECS * TILE_COLS
           : left >= 2 * TILE_COLS       ? 2 * TILE_COLS
           : left >= TILE_COLS           ? TILE_COLS
                                         : left;
}

/* Rows of a packed block kernel_pack_weight fills at a time. */
#define PACK_ROWS 16

void kernel_pack_weight(float *packed, const float *b, int N, int K)
{
    assert(packed && b && N > 0 && K > 0);
    for (int j = 0; j < N;) {
        const int w = packed_block_cols(N - j);
        float *blk = packed + (size_t)j * K;
        /* PACK_ROWS rows of the block at a time (at most 4 KiB, in the L1 cache while they
         * fill), each from a short run of every weight row in it: down one run the reads
         * go along b's row, the writes w floats apart. Whole blocks a column at a time
         * missed the cache on every write once a block outgrew it (K 512: 1.6 ns a float
         * against 0.35). */
        for (int k0 = 0; k0 < K; k0 += PACK_ROWS) {
            const int k1 = K - k0 < PACK_ROWS ? K : k0 + PACK_ROWS;
            for (int c = 0; c < w; c++) {
                const float *row = b + (size_t)(j + c) * K;
                for (int k = k0; k < k1; k++)
                    blk[(size_t)k * w + c] = row[k];
            }
        }
        j += w;
    }
}

/* Rows of the shared dimension a packed block is taken in: 128 rows of the widest block
 * are 32 KiB, which stay in a 48 KiB L1 cache while every row tile of a passes over them. */
#define PACKED_K 128
_Static_assert(PACKED_K <= PANEL_K, "the remainder's strip holds PANEL_K rows");

/* One row of c over two neighbouring blocks of the widest kind at once, b0 and b1 (kc
 * rows of 64 floats each), c = (accumulate ? c : init) + Σ_k a(k) · b(k,·): the wide
 * tile's one-row case has four chains of multiply-adds, too few to hide their latency,
 * and this one eight. Each element sums the same products in the same order. */
static inline __attribute__((always_inline)) void tile_row_pair(float *c, const float *a,
                                                                 const float *b0,
                                                                 const float *b1, int K,
                                                                 int accumulate,
                                                                 const float *init)
{
    enum { W = WIDE_VECS * TILE_COLS };
    vfloat acc[2][WIDE_VECS];
    for (int p = 0; p < 2; p++)
        for (int h = 0; h < WIDE_VECS; h++) {
            if (accumulate)
                VLOAD(acc[p][h], c + p * W + h * TILE_COLS);
            else if (init)
                VLOAD(acc[p][h], init + p * W + h * TILE_COLS);
            else
                acc[p][h] = (vfloat){0};
        }
    for (int k = 0; k < K; k++) {
        const float ak = a[k];
        for (int h = 0; h < WIDE_VECS; h++) {
            vfloat v0, v1;
            VLOAD(v0, b0 + (size_t)k * W + h * TILE_COLS);
            VLOAD(v1, b1 + (size_t)k * W + h * TILE_COLS);
            acc[0][h] += ak * v0;
            acc[1][h] += ak * v1;
        }
    }
    for (int p = 0; p < 2; p++)
        for (int h = 0; h < WIDE_VECS; h++)
            VSTORE(c + p * W + h * TILE_COLS, acc[p][h]);
}

KERNEL_CLONES
void kernel_matmul_packed(float *out, const float *a, const float *packed, const float *bias,
                          int M, int K, int N)
{
    assert(out && a && packed && M > 0 && K > 0 && N > 0);
    float strip[PANEL_K * TILE_COLS];
    const int wide = use_wide_tile();
    /* With the wide tile and M odd, the last row of each pair of widest blocks goes
     * through tile_row_pair; the other rows and blocks as below. */
    const int W = WIDE_VECS * TILE_COLS, paired = wide && M % 2 ? N / (2 * W) * 2 * W : 0;
    if (paired) {
        const float *last = a + (size_t)(M - 1) * K;
        float *c = out + (size_t)(M - 1) * N;
        for (int j = 0; j < paired; j += 2 * W)
            for (int k0 = 0; k0 < K; k0 += PACKED_K) {
                const int kc = K - k0 < PACKED_K ? K - k0 : PACKED_K;
                const float *b0 = packed + (size_t)j * K + (size_t)k0 * W;
                tile_row_pair(c + j, last + k0, b0, b0 + (size_t)W * K, kc, k0 > 0,
                              bias ? bias + j : NULL);
            }
    }
    for (int j = 0; j < N;) {
        const int w = packed_block_cols(N - j);
        const float *blk = packed + (size_t)j * K, *init = bias ? bias + j : NULL;
        const int rows = j < paired ? M - 1 : M;
        if (rows == 0) {
            j += w;
            continue;
        }
        for (int k0 = 0; k0 < K; k0 += PACKED_K) {
            const int kc = K - k0 < PACKED_K ? K - k0 : PACKED_K, acc = k0 > 0;
            const float *bk = blk + (size_t)k0 * w;
            if (wide && w >= 2 * TILE_COLS) {
                Tile t = {out + j, N, a + k0, K, 1, bk, w};
                tile_column_nv(t, rows, w / TILE_COLS, kc, acc, init);
            } else if (w >= TILE_COLS) {
                for (int h = 0; h < w; h += TILE_COLS) {
                    Tile t = {out + j + h, N, a + k0, K, 1, bk + h, w};
                    tile_column(t, rows, TILE_COLS, kc, acc, init ? init + h : NULL);
                }
            } else {
                Tile t = {out + j, N, a + k0, K, 1, padded_rows(strip, bk, w, kc, w), TILE_COLS};
                tile_column(t, rows, w, kc, acc, init);
            }
        }
        j += w;
    }
}

KERNEL_CLONES
void kernel_matmul_acc(float *out, const float *a, const float *b, int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    gemm_nn(out, a, K, 1, b, M, K, N, 1);
}

/* The left operand read down its columns: element (j, i) of aᵀ is a[i*lda + j]. */
KERNEL_CLONES
void kernel_matmul_tn_acc(float *out, const float *a, int lda, const float *b, int M, int N,
                          int K)
{
    assert(out && a && b && M > 0 && N > 0 && K > 0 && lda >= N);
    gemm_nn(out, a, 1, lda, b, N, M, K, 1);
}

KERNEL_CLONES
void kernel_colsum_acc(float *sums, const float *a, int lda, int M, int n)
{
    assert((sums && a) || M == 0 || n == 0);
    /* Sixteen columns at a time, the running sums in a register: in memory, where the
     * compiler must assume sums may alias a, each row's addition waited for the store of
     * the one before. The same additions in the same order. */
    int k = 0;
    for (; k + TILE_COLS <= n; k += TILE_COLS) {
        vfloat acc;
        VLOAD(acc, sums + k);
        for (int i = 0; i < M; i++) {
            vfloat v;
            VLOAD(v, a + (size_t)i * lda + k);
            acc += v;
        }
        VSTORE(sums + k, acc);
    }
    for (; k + 8 <= n; k += 8) {
        vfloat8 acc;
        memcpy(&acc, sums + k, sizeof acc);
        for (int i = 0; i < M; i++) {
            vfloat8 v;
            memcpy(&v, a + (size_t)i * lda + k, sizeof v);
            acc += v;
        }
        memcpy(sums + k, &acc, sizeof acc);
    }
    for (; k < n; k++) {
        float acc = sums[k];
        for (int i = 0; i < M; i++)
            acc += a[(size_t)i * lda + k];
        sums[k] = acc;
    }
}

/* Eight partial sums, added in a fixed order at the end: the compiler keeps them in one
 * vector register (a single running sum could not be vectorised without reassociating
 * float additions, which the compiler rightly does not do on its own). */
KERNEL_CLONES
float kernel_dot(const float *a, const float *b, int n)
{
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += a[i + l] * b[i + l];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Sixteen vectors in, one out: lane j of *sums is the sum of v[j]'s lanes. Four
 * rounds, each adding the two halves of every vector and packing two vectors' halves
 * into one, so 16 sums take 15 additions (a lane-by-lane sum would take 240). */
#define SHUF(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
static inline __attribute__((always_inline)) void lane_sums16(vfloat *sums, const vfloat *v)
{
    vfloat h8[8], h4[4], h2[2];
    for (int p = 0; p < 8; p++)
        h8[p] = SHUF(v[2 * p], v[2 * p + 1], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
                SHUF(v[2 * p], v[2 * p + 1], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    for (int p = 0; p < 4; p++)
        h4[p] = SHUF(h8[2 * p], h8[2 * p + 1], 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
                SHUF(h8[2 * p], h8[2 * p + 1], 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    for (int p = 0; p < 2; p++)
        h2[p] = SHUF(h4[2 * p], h4[2 * p + 1], 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29) +
                SHUF(h4[2 * p], h4[2 * p + 1], 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
    *sums = SHUF(h2[0], h2[1], 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30) +
           SHUF(h2[0], h2[1], 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

/* rows × (TILE_COLS / rows) dot products of length K (a multiple of TILE_COLS) at once:
 * rows of a at a, lda apart, against consecutive rows of b, each pair with its own vector
 * of partial sums, then lane_sums16: lane r·cols + c of *sums is row r of a times row c of
 * b. Two rows of a share each load of b, which is what bounds this loop. */
static inline __attribute__((always_inline)) void dots16(vfloat *sums, const float *a, int lda,
                                                         const float *b, int K, int rows)
{
    const int cols = TILE_COLS / rows;
    vfloat acc[TILE_COLS] = {0};
    for (int k = 0; k < K; k += TILE_COLS) {
        vfloat av[2];
        for (int r = 0; r < rows; r++)
            VLOAD(av[r], a + (size_t)r * lda + k);
        for (int c = 0; c < cols; c++) {
            vfloat bv;
            VLOAD(bv, b + (size_t)c * K + k);
            for (int r = 0; r < rows; r++)
                acc[r * cols + c] += av[r] * bv;
        }
    }
    lane_sums16(sums, acc);
}

/* One row of a against `cols` (at most TILE_COLS) consecutive rows of b: out[c] =
 * a · b_c + bias[c]. Rows of b beyond cols are not read. */
static inline __attribute__((always_inline)) void dots_block(float *out, const float *a,
                                                             const float *b, const float *bias,
                                                             int K, int cols)
{
    float buf[TILE_COLS] = {0};
    if (bias)
        memcpy(buf, bias, sizeof(float) * (size_t)cols);
    vfloat sums, bv0;
    VLOAD(bv0, buf);
    if (cols == TILE_COLS) {
        dots16(&sums, a, 0, b, K, 1);
    } else {
        vfloat acc[TILE_COLS] = {0};
        for (int k = 0; k < K; k += TILE_COLS) {
            vfloat av;
            VLOAD(av, a + k);
            for (int c = 0; c < cols; c++) {
                vfloat bv;
                VLOAD(bv, b + (size_t)c * K + k);
                acc[c] += av * bv;
            }
        }
        lane_sums16(&sums, acc);
    }
    sums += bv0;
    VSTORE(buf, sums);
    memcpy(out, buf, sizeof(float) * (size_t)cols);
}

/* a · bᵀ + bias as dot products (needs K a multiple of TILE_COLS): pairs of rows of a
 * against TILE_COLS / 2 rows of b at a time when N allows, single rows for the rest.
 * The block of b is the outer loop, so it stays in the L1 cache while every row of a
 * passes (all of b would not fit: 64 KiB for the feed-forward layers). */
static inline __attribute__((always_inline)) void matmul_nt_dots(float *out, const float *a,
                                                                 const float *b,
                                                                 const float *bias, int M,
                                                                 int K, int N)
{
    enum { HALF = TILE_COLS / 2 };
    const int paired = N % HALF == 0 ? M - M % 2 : 0;
    for (int j = 0; paired && j < N; j += HALF) {
        const float *bj = b + (size_t)j * K;
        for (int i = 0; i < paired; i += 2) {
            vfloat sums;
            dots16(&sums, a + (size_t)i * K, K, bj, K, 2);
            float buf[TILE_COLS];
            VSTORE(buf, sums);
            float *o = out + (size_t)i * N + j;
            for (int c = 0; c < HALF; c++) {
                const float bc = bias ? bias[j + c] : 0.0f;
                o[c] = buf[c] + bc;
                o[N + c] = buf[HALF + c] + bc;
            }
        }
    }
    for (int j = 0; paired < M && j < N; j += TILE_COLS) {
        const int cols = N - j < TILE_COLS ? N - j : TILE_COLS;
        for (int i = paired; i < M; i++)
            dots_block(out + (size_t)i * N + j, a + (size_t)i * K, b + (size_t)j * K,
                       bias ? bias + j : NULL, K, cols);
    }
}

/* A 16 × 16 block transposed in registers: four rounds, each interleaving row p with row
 * p + 8 into rows 2p and 2p + 1. An element's row and column index, read as one 8-bit
 * number, rotate left by one bit each round, so after four they have swapped. 64
 * shuffles instead of 256 single-float stores. */
static inline __attribute__((always_inline)) void transpose16(vfloat *v)
{
    for (int round = 0; round < 4; round++) {
        vfloat x[16];
        for (int p = 0; p < 8; p++) {
            x[2 * p] = SHUF(v[p], v[p + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
            x[2 * p + 1] = SHUF(v[p], v[p + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                15, 31);
        }
        for (int p = 0; p < 16; p++)
            v[p] = x[p];
    }
}

/* Rows j..j+cols-1 of b (each K long), from column k0 for kc, copied transposed into a
 * panel `width` floats wide (kc rows), the columns past cols zero. Whole 16 × 16 blocks
 * go through registers (transpose16); the rest element by element, row by row of b. */
static inline __attribute__((always_inline)) void pack_panel(float *panel, int width,
                                                              const float *b, int K, int j,
                                                              int cols, int k0, int kc)
{
    for (int j1 = 0; j1 < width; j1 += TILE_COLS) {
        int k = 0;
        if (cols - j1 >= TILE_COLS)
            for (; k + TILE_COLS <= kc; k += TILE_COLS) {
                vfloat v[TILE_COLS];
                for (int r = 0; r < TILE_COLS; r++)
                    VLOAD(v[r], b + (size_t)(j + j1 + r) * K + k0 + k);
                transpose16(v);
                for (int r = 0; r < TILE_COLS; r++)
                    VSTORE(panel + (size_t)(k + r) * width + j1, v[r]);
            }
        for (int jj = j1; jj < j1 + TILE_COLS; jj++) {
            const float *bj = b + (size_t)(j + jj) * K + k0;
            for (int kk = k; kk < kc; kk++)
                panel[(size_t)kk * width + jj] = jj < cols ? bj[kk] : 0.0f;
        }
    }
}

/* a · bᵀ + bias as tiles: blocks of b's rows (output columns) are copied transposed into a
 * panel of at most NT_PANEL_FLOATS, then every row of a runs against the panel as a tile.
 * The copy costs N·K moves per call against M·N·K multiply-adds, and the tile needs no
 * lane sums. Each output element is its bias plus its K products added in order, one
 * multiply-add chain whatever tile its row falls in (6, 4, 2 or 1 rows; wide or narrow):
 * a row's bits do not depend on M. */
static inline __attribute__((always_inline)) void matmul_nt_panel(float *out, const float *a,
                                                                  const float *b,
                                                                  const float *bias, int M,
                                                                  int K, int N)
{
    float panel[NT_PANEL_FLOATS];
    int j0 = 0;
    if (use_wide_tile())
        for (int nv = WIDE_VECS; nv >= 2; nv /= 2)
            for (; j0 + nv * TILE_COLS <= N; j0 += nv * TILE_COLS) {
                const int width = nv * TILE_COLS;
                const int pk = NT_PANEL_FLOATS / width;
                float init[WIDE_VECS * TILE_COLS] = {0};
                if (bias)
                    memcpy(init, bias + j0, sizeof(float) * (size_t)width);
                for (int k0 = 0; k0 < K; k0 += pk) {
                    const int kc = K - k0 < pk ? K - k0 : pk;
                    pack_panel(panel, width, b, K, j0, width, k0, kc);
                    Tile t = {out + j0, N, a + k0, K, 1, panel, width};
                    tile_column_nv(t, M, nv, kc, k0 > 0, init);
                }
            }
    for (int j = j0; j < N; j += TILE_COLS) {
        const int cols = N - j < TILE_COLS ? N - j : TILE_COLS;
        float init[TILE_COLS] = {0};
        if (bias)
            memcpy(init, bias + j, sizeof(float) * (size_t)cols);
        for (int k0 = 0; k0 < K; k0 += PANEL_K) {
            const int kc = K - k0 < PANEL_K ? K - k0 : PANEL_K;
            pack_panel(panel, TILE_COLS, b, K, j, cols, k0, kc);
            Tile t = {out + j, N, a + k0, K, 1, panel, TILE_COLS};
            tile_column(t, M, cols, kc, k0 > 0, init);
        }
    }
}

/* a · bᵀ + bias. With a few rows, dot products (matmul_nt_dots); with more, the tiles. */
KERNEL_CLONES
void kernel_matmul_nt(float *out, const float *a, const float *b, const float *bias,
                      int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    if (M < NT_PANEL_MIN_ROWS && K % TILE_COLS == 0) {
        matmul_nt_dots(out, a, b, bias, M, K, N);
        return;
    }
    matmul_nt_panel(out, a, b, bias, M, K, N);
}

KERNEL_CLONES
void kernel_matmul_nt_rows(float *out, const float *a, const float *b, const float *bias,
                           int M, int K, int N)
{
    assert(out && a && b && M > 0 && K > 0 && N > 0);
    matmul_nt_panel(out, a, b, bias, M, K, N);
}

void kernel_softmax_rows(float *x, int rows, int cols)
{
    assert(x && rows > 0 && cols > 0);
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * cols;
        float max = -INFINITY;
        int nan = 0;
        for (int c = 0; c < cols; c++) {
            if (row[c] > max)
                max = row[c];
            nan |= isnan(row[c]);
        }
        if (nan || !isfinite(max)) {
            /* Scores that overflowed (a diverged training step) or a fully masked row
             * (which attention never asks for): propagate NaN so the caller's finiteness
             * check sees it, rather than inventing a distribution. */
            for (int c = 0; c < cols; c++)
                row[c] = NAN;
            continue;
        }
        float sum = 0.0f;
        for (int c = 0; c < cols; c++) {
            /* exp(-inf) is exactly 0, so masked entries drop out by themselves. */
            row[c] = expf(row[c] - max);
            sum += row[c];
        }
        /* sum >= 1: the maximum contributes exp(0) = 1. Divide rather than multiply by
         * 1/sum, which would round twice. */
        for (int c = 0; c < cols; c++)
            row[c] /= sum;
    }
}

/* Written as selects, not branches: half the signs are negative and unpredictable, and
 * the select vectorises. */
KERNEL_CLONES
void kernel_relu(float *x, size_t n)
{
    assert(x || n == 0);
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] < 0.0f ? 0.0f : x[i];
}

KERNEL_CLONES
void kernel_relu_backward(float *dx, const float *y, size_t n)
{
    assert((dx && y) || n == 0);
    for (size_t i = 0; i < n; i++)
        dx[i] = y[i] <= 0.0f ? 0.0f : dx[i];
}

/* kernel_scale_sumsq for add 0 (h unused) or 1 (h zeroed as it is read), a constant in each call so that the
 * compiler vectorises each version (a test of h inside the loop kept it scalar). */
static inline __attribute__((always_inline)) double scale_sumsq(float *g, float *h,
                                                                size_t n, float scale,
                                                                int add)
{
    double s[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) {
            g[i + l] = (add ? g[i + l] + h[i + l] : g[i + l]) * scale;
            s[l] += (double)g[i + l] * g[i + l];
            if (add)
                h[i + l] = 0.0f;
        }
    for (int l = 0; i < n; i++, l++) {
        g[i] = (add ? g[i] + h[i] : g[i]) * scale;
        s[l] += (double)g[i] * g[i];
        if (add)
            h[i] = 0.0f;
    }
    double sum = 0.0;
    for (int l = 0; l < 8; l++)
        sum += s[l];
    return sum;
}

KERNEL_CLONES
double kernel_scale_sumsq(float *g, float *h, size_t n, float scale)
{
    assert(g || n == 0);
    return h ? scale_sumsq(g, h, n, scale, 1) : scale_sumsq(g, NULL, n, scale, 0);
}

KERNEL_CLONES
void kernel_adamw(float *x, const float *g, float gscale, float *m, float *v, size_t n, float b1,
                  float b2, float ic1, float ic2, float eps, float lr, float decay)
{
    assert((x && g && m && v) || n == 0);
    for (size_t i = 0; i < n; i++) {
        /* Rounded here as it was when clipping scaled the gradients in place. */
        const float gi = g[i] * gscale;
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        x[i] -= lr * (m[i] * ic1 / (sqrtf(v[i] * ic2) + eps)) + lr * decay * x[i];
    }
}

/* ---------------------------------------------------------------------------------------
 * The loss's exponentials
 *
 * The cross-entropy takes two exponentials per logit and step (the log-sum-exp, then the
 * probabilities of its gradient): 180 thousand a step of 32 sentences, which glibc's
 * scalar exp took 5 % of a training step to compute. Here sixteen at a time, in float,
 * by the textbook reduction: x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series
 * to r⁷/7! (truncation error below 2⁻²⁷, under float's half-ulp), then 2ⁿ put into the
 * exponent bits. Sums are kept per lane and added in double at the end, in lane order.
 */

typedef int32_t vint __attribute__((vector_size(TILE_COLS * sizeof(int32_t))));
typedef double vdouble8 __attribute__((vector_size(8 * sizeof(double))));

/* *v = exp(*v − shift) lane by lane, for *v ≤ shift; NaN stays NaN. The difference is
 * taken in double and rounded once. Arguments below −87 (where e^x nears the smallest
 * normal float) give e^−87, 1.6e−38, which no sum of ones notices. (Written through a
 * pointer: a vector return value would depend on the clone's ABI.) */
static inline __attribute__((always_inline)) void exp_shifted16(vfloat *v, double shift)
{
    const vfloat8 lo = __builtin_shufflevector(*v, *v, 0, 1, 2, 3, 4, 5, 6, 7);
    const vfloat8 hi = __builtin_shufflevector(*v, *v, 8, 9, 10, 11, 12, 13, 14, 15);
    const vfloat8 dlo = __builtin_convertvector(__builtin_convertvector(lo, vdouble8) - shift, vfloat8);
    const vfloat8 dhi = __builtin_convertvector(__builtin_convertvector(hi, vdouble8) - shift, vfloat8);
    vfloat x = __builtin_shufflevector(dlo, dhi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                       14, 15);
    /* A scalar operand of a vector operation stands for a vector of copies of it. */
    const vfloat zero = {0}, low = zero - 87.0f;
    const vint small = x < low; /* false for NaN */
    x = (vfloat)((small & (vint)low) | (~small & (vint)x));
    /* n = round(x / ln 2): adding 1.5 · 2²³ rounds to an integer in the low mantissa bits. */
    const vfloat magic = zero + 12582912.0f;
    const vfloat t = x * 1.44269504f + magic;
    const vfloat n = t - magic;
    /* r = x − n·ln 2, with ln 2 in two parts so that n·ln2_hi is exact. */
    vfloat r = x - n * 0.693145752f;
    r = r - n * 1.42860677e-6f;
    vfloat p = zero + 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    /* 2ⁿ: n + 127 in the exponent field (n ≥ −126 after the clamp). */
    const vint scale = ((vint)t - (vint)magic + 127) << 23;
    *v = p * (vfloat)scale;
}

/* By pointer: a 64-byte vector passed by value changes the ABI where AVX-512 is off, and
 * clang's -Wpsabi says so even of an inlined call. */
static inline __attribute__((always_inline)) double lane_total(const vfloat *acc)
{
    double s = 0.0;
    for (int l = 0; l < TILE_COLS; l++)
        s += (*acc)[l];
    return s;
}

KERNEL_CLONES
double kernel_exp_sum(float *e, const float *x, double shift, int n)
{
    assert(x && n >= 0);
    vfloat acc = {0};
    int i = 0;
    for (; i + TILE_COLS <= n; i += TILE_COLS) {
        vfloat v;
        VLOAD(v, x + i);
        exp_shifted16(&v, shift);
        if (e)
            VSTORE(e + i, v);
        acc += v;
    }
    if (i < n) {
        float buf[TILE_COLS] = {0};
        memcpy(buf, x + i, sizeof(float) * (size_t)(n - i));
        vfloat v;
        VLOAD(v, buf);
        exp_shifted16(&v, shift);
        VSTORE(buf, v);
        if (e)
            memcpy(e + i, buf, sizeof(float) * (size_t)(n - i));
        for (int l = 0; l < n - i; l++)
            acc[l] += buf[l];
    }
    return lane_total(&acc);
}

KERNEL_CLONES
float kernel_max(const float *x, int n)
{
    assert(x && n > 0);
    float m[TILE_COLS];
    for (int l = 0; l < TILE_COLS; l++)
        m[l] = x[0];
    int i = 0;
    for (; i + TILE_COLS <= n; i += TILE_COLS)
        for (int l = 0; l < TILE_COLS; l++)
            m[l] = x[i + l] > m[l] ? x[i + l] : m[l];
    for (int l = 0; i < n; i++, l++)
        m[l] = x[i] > m[l] ? x[i] : m[l];
    float max = m[0];
    for (int l = 1; l < TILE_COLS; l++)
        max = m[l] > max ? m[l] : max;
    return max;
}

KERNEL_CLONES
double kernel_sum(const float *x, int n)
{
    assert(x || n == 0);
    vfloat acc = {0};
    int i = 0;
    for (; i + TILE_COLS <= n; i += TILE_COLS) {
        vfloat v;
        VLOAD(v, x + i);
        acc += v;
    }
    for (int l = 0; i < n; i++, l++)
        acc[l] += x[i];
    return lane_total(&acc);
}

/* ---------------------------------------------------------------------------------------
 * Dot products of one vector with many
 */

/* Eight dot products, each eight partial sums (lane l of acc[j] holds element l, l+8,
 * … of row j's products) added as kernel_dot adds them — ((s0 + s4) + (s1 + s5)) +
 * ((s2 + s6) + (s3 + s7)) — but for eight rows at once, by shuffles: each round pairs the
 * same partial sums kernel_dot pairs, and packs two rows' halves into one vector. */
static inline __attribute__((always_inline)) void dot_trees8(float *out, const vfloat8 *acc)
{
    vfloat8 b[4], c[2];
    for (int p = 0; p < 4; p++)
        b[p] = __builtin_shufflevector(acc[2 * p], acc[2 * p + 1], 0, 1, 2, 3, 8, 9, 10, 11) +
               __builtin_shufflevector(acc[2 * p], acc[2 * p + 1], 4, 5, 6, 7, 12, 13, 14, 15);
    for (int p = 0; p < 2; p++)
        c[p] = __builtin_shufflevector(b[2 * p], b[2 * p + 1], 0, 2, 4, 6, 8, 10, 12, 14) +
               __builtin_shufflevector(b[2 * p], b[2 * p + 1], 1, 3, 5, 7, 9, 11, 13, 15);
    const vfloat8 s = __builtin_shufflevector(c[0], c[1], 0, 2, 4, 6, 8, 10, 12, 14) +
                      __builtin_shufflevector(c[0], c[1], 1, 3, 5, 7, 9, 11, 13, 15);
    memcpy(out, &s, sizeof s);
}

KERNEL_CLONES
void kernel_dots(float *out, const float *a, const float *b, int ldb, int n, int K)
{
    assert(out && a && b && n >= 0 && K >= 0 && (n <= 1 || ldb >= K));
    const int K8 = K / 8 * 8;
    for (int j0 = 0; j0 < n; j0 += 8) {
        const int rows = n - j0 < 8 ? n - j0 : 8;
        vfloat8 acc[8] = {{0}};
        for (int j = 0; j < rows; j++) {
            const float *bj = b + (size_t)(j0 + j) * ldb;
            for (int i = 0; i < K8; i += 8) {
                vfloat8 av, bv;
                memcpy(&av, a + i, sizeof av);
                memcpy(&bv, bj + i, sizeof bv);
                acc[j] += av * bv;
            }
        }
        float s[8];
        dot_trees8(s, acc);
        for (int j = 0; j < rows; j++) {
            const float *bj = b + (size_t)(j0 + j) * ldb;
            for (int i = K8; i < K; i++)
                s[j] += a[i] * bj[i];
            out[j0 + j] = s[j];
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * The exponential of a log-softmax's normaliser
 *
 * exp(d) for d <= 0 as a table and a short polynomial, which vectorise where libm's
 * exp is a call per value: d = (k/64)·ln 2 + r with k an integer and |r| <= ln 2 / 128,
 * so exp(d) = 2^(k div 64) · 2^((k mod 64)/64) · exp(r). The second factor comes from
 * the table, the first goes straight into the exponent bits, and exp(r) - 1 is its
 * Taylor series to r⁵ (the next term is below 4e-17, a third of a unit in the last
 * place). Below EXP_SUM_FAST_MIN, close to where the result becomes subnormal and
 * exponent bits cannot carry the scale, the few values take libm's exp.
 */

/* 2^(j/64) for j = 0..63, rounded to the nearest double. Computed independently of this
 * file with Python's decimal module at 50 digits:
 *   from decimal import Decimal, getcontext; getcontext().prec = 50
 *   [float((Decimal(j) / 64 * Decimal(2).ln()).exp()).hex() for j in range(64)] */
static const double EXP2_64THS[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
};

/* Below this the table's path is not taken: a little further down, at -708.396...
 * (2^-1022), exp(d) becomes subnormal, where exponent bits cannot carry the scale. */
#define EXP_SUM_FAST_MIN (-708.0)

typedef double vdouble8 __attribute__((vector_size(8 * sizeof(double))));
typedef int64_t vint64x8 __attribute__((vector_size(8 * sizeof(int64_t))));
typedef uint64_t vuint64x8 __attribute__((vector_size(8 * sizeof(uint64_t))));

/* exp(d) for eight values EXP_SUM_FAST_MIN <= d <= 0, as the section above explains. */
static inline __attribute__((always_inline)) void exp_nonpositive(vdouble8 *out,
                                                                  const vdouble8 *in)
{
    const vdouble8 d = *in;
    const double inv_ln2_64 = 0x1.71547652b82fep+6; /* 64 / ln 2 */
    /* ln 2 / 64 in two parts: hi has 28 significant bits, so k · hi is exact for every
     * |k| < 2^25; lo is the rest (from the same decimal computation). */
    const double ln2_64_hi = 0x1.62e42fep-7, ln2_64_lo = 0x1.f473de6af278fp-36;
    /* Adding 1.5 · 2^52 rounds to an integer k held in the low bits of the sum: the
     * sum's bits less the shift's are k as a two's complement. */
    const double round_shift = 0x1.8p52;
    const int64_t round_shift_bits = 0x4338000000000000LL;
    const vdouble8 z = d * inv_ln2_64 + round_shift;
    const vdouble8 k = z - round_shift;
    const vint64x8 ki = (vint64x8)((vuint64x8)z - (uint64_t)round_shift_bits);
    const vdouble8 r = (d - k * ln2_64_hi) - k * ln2_64_lo;
    const vdouble8 p =
        r + r * r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0))));
    /* The low 6 bits of k pick the table entry; the rest, added to the exponent field,
     * scale it (in unsigned arithmetic, which wraps as the two's complement needs). */
    const vdouble8 t = {EXP2_64THS[ki[0] & 63], EXP2_64THS[ki[1] & 63],
                        EXP2_64THS[ki[2] & 63], EXP2_64THS[ki[3] & 63],
                        EXP2_64THS[ki[4] & 63], EXP2_64THS[ki[5] & 63],
                        EXP2_64THS[ki[6] & 63], EXP2_64THS[ki[7] & 63]};
    const vdouble8 scale = (vdouble8)((vuint64x8)t + (((vuint64x8)ki >> 6) << 52));
    *out = scale + scale * p;
}

/* Adds to *acc the exponentials of x[0..8) - shift. */
static inline __attribute__((always_inline)) void exp_sum8(vdouble8 *acc, const float *x,
                                                           double shift)
{
    vfloat8 xf;
    memcpy(&xf, x, sizeof xf);
    const vdouble8 d = __builtin_convertvector(xf, vdouble8) - shift;
    vdouble8 e;
    exp_nonpositive(&e, &d);
    /* The rare value far below the maximum (a weight of less than 1e-307) is redone. */
    const vint64x8 low = d < EXP_SUM_FAST_MIN;
    int any = 0;
    for (int l = 0; l < 8; l++)
        any |= (int)low[l];
    for (int l = 0; any && l < 8; l++)
        if (low[l])
            e[l] = exp(d[l]);
    *acc += e;
}

KERNEL_CLONES
double kernel_exp_sum_f64(const float *x, double shift, int n)
{
    assert(x && n >= 0);
    /* Eight running sums, lane l taking the values at l mod 8, then added pairwise; the
     * last few values are padded with ones whose exponential is exactly 0. */
    vdouble8 acc = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        exp_sum8(&acc, x + i, shift);
    if (i < n) {
        float rest[8];
        for (int l = 0; l < 8; l++)
            rest[l] = i + l < n ? x[i + l] : -INFINITY;
        exp_sum8(&acc, rest, shift);
    }
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}
