/*
 * clones.h — KERNEL_CLONES, the attribute that builds a hot function once per x86-64
 * feature level (AVX-512, AVX2+FMA, baseline SSE2) for the dynamic loader to choose from
 * when the program starts; empty where the compiler cannot (see src/base/kernel.c).
 */
#ifndef TOYTRANS_CLONES_H
#define TOYTRANS_CLONES_H

/* Clang before 15 emits target_clones functions without a symbol under their own name
 * (calls from other files do not link), so it builds the portable kernels. */
#if defined(__clang__) && __clang_major__ < 15 && !defined(TOYTRANS_NO_CLONES)
#define TOYTRANS_NO_CLONES 1
#endif
#if defined(__x86_64__) && defined(__has_attribute) && !defined(TOYTRANS_NO_CLONES)
#if __has_attribute(target_clones)
#define KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define KERNEL_HAS_CLONES 1
#endif
#endif
#ifndef KERNEL_CLONES
#define KERNEL_CLONES
#endif

#endif
