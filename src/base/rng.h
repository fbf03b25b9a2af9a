/*
 * rng.h — the random generator, bit-compatible with PyTorch's CPU generator.
 *
 * A reader who follows the self-attention walk-through in PyTorch should see the very
 * weights toytrans prints for the same seed. PyTorch's `torch.manual_seed(N)` seeds a
 * 32-bit Mersenne Twister (MT19937, Matsumoto & Nishimura's init_genrand with the low 32
 * bits of N), and `uniform_(a, b)` on a float tensor turns each 32-bit draw x into
 *     u = (x & 0xFFFFFF) · 2⁻²⁴,   value = u · (b − a) + a     (float32, one fused
 *                                                               multiply-add),
 * one draw per element in row-major order. This module reproduces exactly that.
 *
 * The state is explicit: callers own an Rng and pass it in; there is no hidden global.
 */
#ifndef TOYTRANS_RNG_H
#define TOYTRANS_RNG_H

#include <stddef.h>
#include <stdint.h>

#define RNG_STATE_WORDS 624

typedef struct {
    uint32_t mt[RNG_STATE_WORDS]; /* the twister's state */
    int index;                    /* next word of mt to temper, 0..RNG_STATE_WORDS */
} Rng;

/* Seed like torch.manual_seed(seed): only the low 32 bits take part. */
void rng_seed(Rng *rng, uint64_t seed);

/* The next raw 32-bit draw (torch's generator->random()). */
uint32_t rng_next_u32(Rng *rng);

/* One float from U[from, to) exactly as torch's Tensor.uniform_ computes it. */
float rng_uniform(Rng *rng, float from, float to);

/* Fills out[0..n) with rng_uniform draws, in order: torch.rand(...) for (0, 1). */
void rng_fill_uniform(Rng *rng, float *out, size_t n, float from, float to);

#endif
