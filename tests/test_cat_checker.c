/* cat_checker: a point's outputs judged once per distinct bytes. The same bytes again get cat_check's
 * result without a walk; other bytes (one element poisoned) are walked and judged as cat_check judges
 * them; going back to the first bytes walks again (only the last judged outputs are remembered). */
#include <criterion/criterion.h>
#include <string.h>

#include "cat_small.h"

static void same_result(const cat_check_result *a, const cat_check_result *b, const char *what)
{
    cr_assert_eq(memcmp(a, b, sizeof *a), 0, "%s: the checker's result differs from cat_check's", what);
}

static void checker_case(int train, int pooled)
{
    small m;
    small_make(&m, train, pooled, 4);
    small_expect(&m);
    void *outs[CAT_NOUTS];
    small_outs(&m, outs);
    const int64_t total = m.s.n * m.s.c * (pooled ? 1 : m.s.hw);
    size_t bytes[CAT_NOUTS] = {0};
    bytes[CAT_O_Y] = (size_t)total * 2;
    if (train)
        bytes[CAT_O_CAT] = (size_t)(m.s.n * m.s.c * m.s.hw) * 2, bytes[CAT_O_MEAN] = bytes[CAT_O_RSTD] =
            bytes[CAT_O_RV] = (size_t)m.s.c * 4;
    cat_checker k;
    cat_checker_init(&k, &m.s, &m.in, bytes);
    cat_check_result want, got, bad;
    cat_check(&m.s, &m.in, outs, &want);
    cr_assert_eq(want.mismatched + want.unwritten, 0, "the expected outputs pass");
    cr_assert_eq(cat_checker_check(&k, outs, &got), 0, "first outputs: walked");
    same_result(&got, &want, "first");
    memset(&got, 0, sizeof got);
    cr_assert_eq(cat_checker_check(&k, outs, &got), 1, "same bytes: remembered");
    same_result(&got, &want, "same bytes");
    unsigned char keep[2];
    memcpy(keep, (unsigned char *)m.y + 6, 2);
    memset((unsigned char *)m.y + 6, 0xFF, 2); /* element 3 of y poisoned */
    cat_check(&m.s, &m.in, outs, &bad);
    cr_assert_eq(bad.unwritten, 1);
    cr_assert_eq(cat_checker_check(&k, outs, &got), 0, "one element changed: walked");
    same_result(&got, &bad, "poisoned");
    memcpy((unsigned char *)m.y + 6, keep, 2);
    cr_assert_eq(cat_checker_check(&k, outs, &got), 0, "back to the first bytes: walked again");
    same_result(&got, &want, "restored");
    cat_checker_free(&k);
    small_free(&m);
}

Test(cat_checker, infer_outputs_judged_once_per_bytes)
{
    checker_case(0, 0);
}

Test(cat_checker, train_pooled_outputs_judged_once_per_bytes)
{
    checker_case(1, 1);
}
