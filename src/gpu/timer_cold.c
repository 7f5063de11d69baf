/* The host half of the cold policy (timer.h): CUPTI's records of a cold timing into per-call samples.
 * Pure: tested with synthetic records on machines without a GPU. */
#include "gpu/timer.h"

#include <stdlib.h>
#include <string.h>

static int is_flush(const ea_kernel_record *r, const char *flush_name)
{
    return r->kind == EA_RECORD_KERNEL && !strcmp(r->name, flush_name);
}

/* The index of the first flush at or after i, or n. */
static size_t next_flush(const ea_kernel_list *l, size_t i, const char *flush_name)
{
    while (i < l->count && !is_flush(&l->kernels[i], flush_name))
        i++;
    return i;
}

static size_t count_named(const ea_kernel_list *l, size_t from, size_t to, const char *name)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        n += !strcmp(l->kernels[i].name, name);
    return n;
}

static int named_fail(ea_error *err, size_t call, size_t n, size_t n_ref, const char *how, const char *name,
                      size_t in_call, size_t in_ref)
{
    return ea_fail(err,
                   "timer: cold: call %zu has %zu operations, the first call %zu: it %s \"%s\" (%zu in it, %zu in "
                   "the first call); CUPTI lost a record or the work is not the same every call",
                   call, n, n_ref, how, name, in_call, in_ref);
}

/* Call `call` (records [from, to) after its flush) has another count of operations than the first
 * call's [ref, ref_end): -1 naming an operation it lacks or has extra, so the message says what
 * CUPTI did not see. Counts that differ mean some name is counted more often on one side. */
static int differs(const ea_kernel_list *l, size_t call, size_t from, size_t to, size_t ref, size_t ref_end,
                   ea_error *err)
{
    for (size_t i = ref; i < ref_end; i++) {
        const char *name = l->kernels[i].name;
        size_t in_ref = count_named(l, ref, ref_end, name), in_call = count_named(l, from, to, name);
        if (in_call < in_ref)
            return named_fail(err, call, to - from, ref_end - ref, "lacks", name, in_call, in_ref);
    }
    /* Nothing lacking: the call has more, so one of its names is counted more often than in the first. */
    size_t i = from, in_call, in_ref;
    for (;; i++) {
        in_call = count_named(l, from, to, l->kernels[i].name), in_ref = count_named(l, ref, ref_end, l->kernels[i].name);
        if (in_call > in_ref || i + 1 == to)
            break;
    }
    return named_fail(err, call, to - from, ref_end - ref, "has an extra", l->kernels[i].name, in_call, in_ref);
}

/* Two samples closer than this are one value: the stamps round to whole ns, so spans of one clock
 * step read 31 or 32 ns on the H200 (the smallest stamp distances its runs showed). */
#define SAME_VALUE_NS 4.0

/* The device clock's step in us, from the samples sorted ascending: the median distance between neighbouring distinct sample values,
 * values within SAME_VALUE_NS of the first of a group counting as one value. A sample is the distance
 * of two stamps, so samples differ by whole steps (about 32 ns on the H200, a few percent of a 2 us
 * scope; the median, not the smallest, of those distances, since rounding makes one step read 31 or 32
 * ns). Neighbours more than one step apart occur where samples are sparse; the median keeps them out
 * while most neighbours are one step apart. Samples that all agree show no step: 0, which widens no
 * tolerance. */
static double clock_step_us(const double *v, int r)
{
    double *gap = malloc((size_t)r * sizeof *gap), step = 0, first;
    size_t n = 0;
    if (gap) {
        first = v[0];
        for (int i = 1; i < r; i++)
            if (v[i] - first > SAME_VALUE_NS / 1000.0)
                gap[n++] = v[i] - first, first = v[i];
        ea_sort_doubles(gap, n);
        step = n ? gap[n / 2] : 0;
    }
    free(gap);
    return step;
}

/* A call's sample starts where it could begin: its flush's recorded end, or its first operation's start
 * when CUPTI stamped that earlier. On the H200 CUPTI stamped a graph's next operation up to 1.25 us
 * before the 2x-L2 flush's recorded end (the end stamp lags the flush's last writes), so a flush end
 * that follows the call's start is stamp lag, not work: counting from it would shorten the sample. An
 * operation that starts before the flush itself started ran beside it: refused. */

int ea_timer_reduce_cold(const ea_kernel_list *list, const char *flush_name, int r, ea_timing *out, ea_error *err)
{
    size_t calls = 0, ref = 0, ref_end = 0, first = next_flush(list, 0, flush_name);
    double *samples;

    if (r < 1)
        return ea_fail(err, "timer: cold: expected at least one call to sample, got %d", r);
    if (list->dropped)
        return ea_fail(err, "timer: cold: CUPTI dropped %zu records: the calls' spans cannot be read", list->dropped);
    if (first != 0)
        return ea_fail(err, "timer: cold: record 0 (\"%s\") precedes the first flush (\"%s\"): %s",
                       list->kernels[0].name, flush_name,
                       first == list->count ? "no flush recorded" : "the records do not start with a cold call");
    samples = malloc((size_t)r * sizeof *samples);
    if (!samples)
        return ea_fail(err, "timer: out of memory for %d samples", r);
    /* Two passes over the calls: count them, then keep the spans of the last r. */
    for (int pass = 0; pass < 2; pass++) {
        size_t call = 0;
        for (size_t f = first; f < list->count; call++) {
            const ea_kernel_record *flush = &list->kernels[f];
            size_t end = next_flush(list, f + 1, flush_name);
            if (call == 0) {
                ref = f + 1, ref_end = end;
                if (ref == ref_end) {
                    free(samples);
                    return ea_fail(err, "timer: cold: CUPTI saw no kernel, copy or memset of the first call");
                }
            } else if (pass == 0 && end - (f + 1) != ref_end - ref) {
                /* Only counts: a graph may run a memset as a kernel, under another name, same span. */
                free(samples);
                return differs(list, call, f + 1, end, ref, ref_end, err);
            }
            if (pass == 1 && call + (size_t)r >= calls) {
                uint64_t last = 0, begin = flush->end_ns;
                for (size_t i = f + 1; i < end; i++) {
                    if (list->kernels[i].start_ns < flush->start_ns) {
                        free(samples);
                        return ea_fail(err, "timer: cold: call %zu's \"%s\" starts before its flush started: the work "
                                            "left the timer's stream or runs beside the flush",
                                       call, list->kernels[i].name);
                    }
                    if (list->kernels[i].start_ns < begin)
                        begin = list->kernels[i].start_ns;
                    if (list->kernels[i].end_ns > last)
                        last = list->kernels[i].end_ns;
                }
                samples[call + (size_t)r - calls] = (double)(last - begin) / 1000.0;
            }
            f = end;
        }
        calls = call;
        if (pass == 0 && calls < (size_t)r) {
            free(samples);
            return ea_fail(err, "timer: cold: expected at least the %d calls sampled, CUPTI recorded %zu", r, calls);
        }
    }
    free(out->samples_us);
    out->samples_us = samples;
    out->ops_per_call = (int)(ref_end - ref);
    out->calls_per_replay = r;
    out->replays = 1;
    /* one sorted copy for both the clock step and the quartiles; samples_us keeps the calls' order */
    double *sorted = malloc((size_t)r * sizeof *sorted);
    if (!sorted)
        return ea_fail(err, "timer: out of memory for %d sorted samples", r);
    memcpy(sorted, samples, (size_t)r * sizeof *sorted);
    ea_sort_doubles(sorted, (size_t)r);
    out->resolution_us = clock_step_us(sorted, r);
    ea_stats_sorted(sorted, (size_t)r, &out->per_call_us);
    free(sorted);
    return 0;
}
