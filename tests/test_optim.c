/*
 * test_optim.c — the optimiser (train/optim.h): AdamW over a parameter block against the
 * update computed here in double, step by step, with the decoupled weight decay on the
 * matrices only and eps outside the square root. The kernel it runs on is
 * test_kernel.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/model.h"
#include "testutil.h"
#include "train/optim.h"

#include <math.h>
#include <string.h>

/* optim_adamw_update follows AdamW in double precision over three steps: moments, bias
 * correction, eps outside the square root, and decoupled weight decay on matrices only. */
static void test_optim_adamw_matches_reference(void **state)
{
    (void)state;
    /* A (2, 3) matrix at offset 0 and a vector of 3 at offset 6. */
    const ParamSpec specs[2] = {
        {.name = "w", .rows = 2, .cols = 3, .offset = 0, .storage = PARAM_TENSOR},
        {.name = "b", .rows = 3, .cols = 0, .offset = 6, .storage = PARAM_TENSOR},
    };
    enum { NP = 9, STEPS = 3 };
    static const float X0[NP] = {0.5f, -1.25f, 2.0f, 0.8f, -0.3f, 1.0f, 0.75f, -0.5f, 0.1f};
    /* Per step: ordinary gradients, a zero gradient (entry 3 of the matrix and entry 7 of
     * the vector, every step), and one of the size of eps (entry 5), where eps decides the
     * step. */
    static const float G[STEPS][NP] = {
        {0.1f, -0.2f, 0.05f, 0.0f, 1.5f, 1e-8f, -0.4f, 0.0f, 0.02f},
        {-0.3f, 0.1f, 0.05f, 0.0f, -2.0f, 3e-8f, 0.1f, 0.0f, -0.02f},
        {0.2f, 0.0f, -0.1f, 0.0f, 0.7f, -1e-8f, 0.3f, 0.0f, 0.5f},
    };
    const AdamConfig cfg = {0.9f, 0.999f, 1e-8f, 0.1f};
    const float lr = 0.01f;

    float x[NP], m[NP] = {0}, v[NP] = {0};
    double rx[NP], rm[NP] = {0}, rv[NP] = {0};
    for (int i = 0; i < NP; i++)
        x[i] = X0[i], rx[i] = X0[i];
    for (long step = 1; step <= STEPS; step++) {
        optim_adamw_update(x, G[step - 1], 1.0f, m, v, specs, 2, &cfg, lr, step, NULL);
        const double b1 = cfg.beta1, b2 = cfg.beta2;
        for (int i = 0; i < NP; i++) {
            const double g = G[step - 1][i];
            const double decay = i < 6 ? (double)cfg.weight_decay : 0.0;
            rm[i] = b1 * rm[i] + (1 - b1) * g;
            rv[i] = b2 * rv[i] + (1 - b2) * g * g;
            const double mhat = rm[i] / (1 - pow(b1, (double)step));
            const double vhat = rv[i] / (1 - pow(b2, (double)step));
            rx[i] = rx[i] * (1 - (double)lr * decay) - lr * mhat / (sqrt(vhat) + cfg.eps);
        }
        float fx[NP], fm[NP], fv[NP];
        for (int i = 0; i < NP; i++)
            fx[i] = (float)rx[i], fm[i] = (float)rm[i], fv[i] = (float)rv[i];
        /* float32 state against double: a few ulp of values below 2. */
        assert_close_array("adamw params", x, fx, NP, 1e-6);
        assert_close_array("adamw first moment", m, fm, NP, 1e-7);
        assert_close_array("adamw second moment", v, fv, NP, 1e-8);
    }
    /* With no gradient only the decay moves an entry: the matrix entry shrinks by
     * (1 − lr·wd) per step, the vector entry does not move at all. */
    assert_float_equal(x[3], X0[3] * pow(1 - lr * 0.1, STEPS), 1e-6);
    assert_true(x[7] == X0[7]);
    /* eps is outside the square root: at step 1 the update of entry 5 is
     * lr·g/(|g| + eps) = lr/2 (plus decay), not lr·g/√(g² + eps) ≈ lr·1e-4. */
    float x1[NP], m1[NP] = {0}, v1[NP] = {0};
    memcpy(x1, X0, sizeof x1);
    optim_adamw_update(x1, G[0], 1.0f, m1, v1, specs, 2, &cfg, lr, 1, NULL);
    const double want5 = X0[5] * (1 - lr * 0.1) - lr * 0.5;
    assert_float_equal(x1[5], want5, 1e-6);
    /* At step 1 bias correction makes m̂ = g and v̂ = g²: an entry with |g| ≫ eps moves by
     * lr against the sign of g (plus the decay, for the matrix). */
    const double want0 = X0[0] * (1 - lr * 0.1) - lr * 1e-1 / (1e-1 + 1e-8);
    assert_float_equal(x1[0], want0, 1e-6);
    const double want6 = X0[6] + lr * 0.4 / (0.4 + 1e-8);
    assert_float_equal(x1[6], want6, 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optim_adamw_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
