/* checker.c: cat_check remembering the outputs it last judged (contract in cat.h). A point's oracle
 * layouts usually write the same bytes, and timing leaves them as they were: comparing bytes costs a
 * memcmp where judging them costs a walk over every element with its fp64 reference. */
#include "cat.h"

#include <stdlib.h>
#include <string.h>

void cat_checker_init(cat_checker *k, const cat_scope *s, const cat_inputs *in, const size_t bytes[CAT_NOUTS])
{
    memset(k, 0, sizeof *k);
    k->s = s, k->in = in;
    memcpy(k->bytes, bytes, sizeof k->bytes);
}

static int same_as_seen(const cat_checker *k, void *const outs[CAT_NOUTS])
{
    if (!k->valid)
        return 0;
    for (int o = 0; o < CAT_NOUTS; o++)
        if (!outs[o] != !k->seen[o] || (outs[o] && memcmp(outs[o], k->seen[o], k->bytes[o])))
            return 0;
    return 1;
}

int cat_checker_check(cat_checker *k, void *const outs[CAT_NOUTS], cat_check_result *r)
{
    if (same_as_seen(k, outs)) {
        *r = k->res;
        return 1;
    }
    cat_check(k->s, k->in, outs, r);
    k->valid = 1;
    for (int o = 0; o < CAT_NOUTS; o++) {
        if (!outs[o])
            continue;
        if (!k->seen[o])
            k->seen[o] = malloc(k->bytes[o]);
        if (!k->seen[o]) /* no room to remember: the next check walks again */
            k->valid = 0;
        else
            memcpy(k->seen[o], outs[o], k->bytes[o]);
    }
    k->res = *r;
    return 0;
}

void cat_checker_free(cat_checker *k)
{
    for (int o = 0; o < CAT_NOUTS; o++)
        free(k->seen[o]);
    memset(k, 0, sizeof *k);
}
