/* run_impl.h: test-only entry point of the cumsum family's run.c.
 * cs_verdict: the verdict id for two medians (us); NULL when either is not a positive number. */
#ifndef CS_RUN_IMPL_H
#define CS_RUN_IMPL_H


const char *cs_verdict(double current_us, double oracle_us);

#endif
