/* timer_warm_cold.c: one path timed warm, then cold (timer.h), over timer.cu's graph timer and
 * timer_plan.c's host steps, so neither of those calls back into the other. */
#include "gpu/timer.h"

#include <string.h>

int ea_time_warm_cold(ea_enqueue_fn enqueue, void *ctx, const ea_timer_config *cfg, ea_timing *warm, ea_timing *cold,
                      ea_error *err)
{
    ea_timer_config c = {0};
    if (cfg)
        c = *cfg;
    c.cache = EA_CACHE_WARM;
    memset(cold, 0, sizeof *cold);
    if (ea_time_graph(enqueue, ctx, &c, warm, err))
        return -1;
    c.cache = EA_CACHE_COLD;
    /* Cold samples are CUPTI's timestamps: when it cannot record, no cold number exists (cold->note). */
    if (ea_time_graph(enqueue, ctx, &c, cold, err) == 0 || cold->note[0])
        return 0;
    ea_timing_free(warm);
    return -1;
}
