/*
 * test_rng.c — the generator against MT19937's published outputs and PyTorch's draws.
 *
 * MT19937 reference: Matsumoto & Nishimura's mt19937ar.c seeded with init_genrand(5489)
 * starts 3499211612, 581869302, 3890346734, 3586334585, 545404204; and the 10000th
 * output of that sequence is 4123659995 (the value C++11 requires of std::mt19937).
 * PyTorch reference: tests/fixtures/attention_ref.h (see gen_attention_ref.py).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "fixtures/attention_ref.h"
#include "testutil.h"

/* The first outputs after init_genrand(5489) are the published ones. */
static void test_rng_mt19937_reference_sequence(void **state)
{
    (void)state;
    static const uint32_t WANT[5] = {3499211612u, 581869302u, 3890346734u, 3586334585u,
                                     545404204u};
    Rng rng;
    rng_seed(&rng, 5489);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rng_next_u32(&rng), WANT[i]);
}

/* The 10000th output matches, so the twist is right across many state refills. */
static void test_rng_mt19937_ten_thousandth(void **state)
{
    (void)state;
    Rng rng;
    rng_seed(&rng, 5489);
    uint32_t v = 0;
    for (int i = 0; i < 10000; i++)
        v = rng_next_u32(&rng);
    assert_int_equal(v, 4123659995u);
}

/* torch.manual_seed(123); torch.rand(20) — bit for bit. */
static void test_rng_matches_torch_rand(void **state)
{
    (void)state;
    Rng rng;
    float got[20];
    rng_seed(&rng, 123);
    rng_fill_uniform(&rng, got, 20, 0.0f, 1.0f);
    assert_close_array("torch.rand seed 123", got, REF_RAND_SEED123, 20, 0.0);
}

/* A seed above 2^32 seeds with its low 32 bits, as torch.manual_seed does. */
static void test_rng_large_seed_uses_low_bits(void **state)
{
    (void)state;
    Rng rng;
    float got[8];
    rng_seed(&rng, (UINT64_C(1) << 40) + 7);
    rng_fill_uniform(&rng, got, 8, 0.0f, 1.0f);
    assert_close_array("torch.rand seed 2^40+7", got, REF_RAND_SEED_BIG, 8, 0.0);
}

/* uniform_(a, b) rounds exactly as PyTorch's float arithmetic does, over 1000 draws. */
static void test_rng_matches_torch_uniform_range(void **state)
{
    (void)state;
    Rng rng;
    float got[1000];
    rng_seed(&rng, 42);
    rng_fill_uniform(&rng, got, 1000, -0.37f, 0.81f);
    assert_close_array("uniform_(-0.37, 0.81) seed 42", got, REF_UNIFORM_SEED42, 1000, 0.0);
    for (int i = 0; i < 1000; i++)
        assert_true(got[i] >= -0.37f && got[i] < 0.81f);
}

/* The same seed gives the same sequence; the state is all in the struct. */
static void test_rng_deterministic_per_state(void **state)
{
    (void)state;
    Rng a, b;
    rng_seed(&a, 99);
    rng_seed(&b, 99);
    for (int i = 0; i < 1500; i++)
        assert_int_equal(rng_next_u32(&a), rng_next_u32(&b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_mt19937_reference_sequence),
        cmocka_unit_test(test_rng_mt19937_ten_thousandth),
        cmocka_unit_test(test_rng_matches_torch_rand),
        cmocka_unit_test(test_rng_large_seed_uses_low_bits),
        cmocka_unit_test(test_rng_matches_torch_uniform_range),
        cmocka_unit_test(test_rng_deterministic_per_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
