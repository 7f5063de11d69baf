/* The cold policy's host half (timer.h ea_timer_reduce_cold, path.h ea_path_cold_json) on synthetic
 * CUPTI records: no GPU needed. Times in ns; a flush lasts 30 us, like 120 MiB written on an H200. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "measure/path.h"
#include "gpu/timer.h"

#define FLUSH EA_COLD_FLUSH_KERNEL

typedef struct {
    ea_kernel_record r[64];
    ea_kernel_list list;
    uint64_t t; /* the clock: where the next record starts */
} trace;

static void add(trace *tr, const char *name, ea_record_kind kind, uint64_t gap_ns, uint64_t dur_ns)
{
    ea_kernel_record *r = &tr->r[tr->list.count++];
    cr_assert_leq(tr->list.count, 64);
    memset(r, 0, sizeof *r);
    r->name = (char *)name;
    r->kind = kind;
    r->start_ns = tr->t + gap_ns;
    r->end_ns = r->start_ns + dur_ns;
    tr->t = r->end_ns;
}

/* One cold call: the flush, then a kernel, a copy and a kernel; `lose` (1-based) leaves that one out.
 * Its span: 1 us gap + 2 us + 0.5 us gap + 3 us + 0.5 us gap + (1 + extra) us = 8 us + extra. */
static void call(trace *tr, int lose, uint64_t extra_ns)
{
    add(tr, FLUSH, EA_RECORD_KERNEL, 5000, 30000);
    if (lose != 1)
        add(tr, "scan_kernel", EA_RECORD_KERNEL, 1000, 2000);
    else
        tr->t += 3000;
    if (lose != 2)
        add(tr, "Memcpy DtoD", EA_RECORD_COPY, 500, 3000);
    else
        tr->t += 3500;
    add(tr, "tail_kernel", EA_RECORD_KERNEL, 500, 1000 + extra_ns);
}

static void setup(trace *tr, int calls)
{
    memset(tr, 0, sizeof *tr);
    tr->list.kernels = tr->r;
    for (int i = 0; i < calls; i++)
        call(tr, 0, (uint64_t)i * 100);
}

Test(timer_cold, spans_of_the_last_calls_without_the_flush)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 6); /* three of a warm-up replay, then the three sampled */
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 3, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.ops_per_call, 3);
    cr_assert_eq(t.calls_per_replay, 3);
    cr_assert_eq(t.replays, 1);
    cr_assert_eq(t.per_call_us.count, 3);
    /* calls 3, 4, 5: 8 us + 0.3, 0.4, 0.5 us; the 30 us flushes and the 5 us before them left out */
    cr_assert_float_eq(t.samples_us[0], 8.3, 1e-9);
    cr_assert_float_eq(t.samples_us[2], 8.5, 1e-9);
    cr_assert_float_eq(t.per_call_us.median, 8.4, 1e-9);
    cr_assert_float_eq(t.per_call_us.iqr, 0.1, 1e-9);
    cr_assert_float_eq(t.resolution_us, 0.1, 1e-9, "the samples step by 0.1 us: %g", t.resolution_us);
    ea_timing_free(&t);
}

/* Stamps round to whole ns: samples one step apart read 31 or 32 ns apart on the H200, and two of them
 * 1 ns apart. The step is the distance between distinct values, not the 1 ns of rounding between
 * near-equal ones. */
Test(timer_cold, the_clock_step_ignores_rounding_of_a_ns)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 4);
    uint64_t span0 = tr.r[3].end_ns - tr.r[0].end_ns;
    const uint64_t add[] = {1, 32, 33}; /* calls 1-3: the first call's span + 1, 32 and 33 ns */
    for (int c = 1; c < 4; c++)
        tr.r[4 * c + 3].end_ns = tr.r[4 * c].end_ns + span0 + add[c - 1];
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 4, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(t.resolution_us, 0.032, 1e-9, "from the first value of each cluster: %g", t.resolution_us);
    ea_timing_free(&t);
}

/* The clock step is the median distance between neighbouring distinct samples, whatever their order:
 * a lone wider gap (sparse samples) does not set it; records far apart in one replay say nothing of it;
 * samples that all agree show none (0). */
Test(timer_cold, the_clock_step_is_the_median_distance_between_samples)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 4);
    uint64_t span0 = tr.r[3].end_ns - tr.r[0].end_ns;
    const uint64_t add[] = {32, 564, 64}; /* calls 1-3 */
    for (int c = 1; c < 4; c++)
        tr.r[4 * c + 3].end_ns = tr.r[4 * c].end_ns + span0 + add[c - 1];
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 4, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(t.resolution_us, 0.032, 1e-9, "gaps 32, 32 and 500 ns: %g", t.resolution_us);
    cJSON *p = ea_path_time_json(&t);
    cr_assert_float_eq(cJSON_GetObjectItem(p, "resolution_us")->valuedouble, 0.032, 1e-9);
    cJSON_Delete(p);
    ea_timing_free(&t);
    setup(&tr, 2);
    tr.r[7].end_ns = tr.r[3].end_ns - tr.r[0].end_ns + tr.r[4].end_ns; /* both calls the same span */
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 2, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.resolution_us, 0, "no step seen: %g", t.resolution_us);
    p = ea_path_time_json(&t);
    cr_assert_null(cJSON_GetObjectItem(p, "resolution_us"), "written only when seen");
    cJSON_Delete(p);
    ea_timing_free(&t);
}

/* A graph may run a memset as a kernel: the same count under another name is the same call. */
Test(timer_cold, renamed_operation_of_the_same_count_is_accepted)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 3);
    tr.r[6].name = "memset32_aligned1D";
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 2, &t, &err), 0, "%s", err.msg);
    ea_timing_free(&t);
}

static void refused(trace *tr, int r, const char *want)
{
    ea_timing t = {0};
    ea_error err = {{0}};
    cr_assert_eq(ea_timer_reduce_cold(&tr->list, FLUSH, r, &t, &err), -1, "expected: %s", want);
    cr_assert_not_null(strstr(err.msg, want), "expected \"%s\" in: %s", want, err.msg);
    cr_assert_null(t.samples_us, "nothing kept after a refusal");
}

Test(timer_cold, a_missing_or_extra_record_is_named)
{
    trace tr;
    setup(&tr, 2);
    call(&tr, 2, 0);
    call(&tr, 0, 0);
    refused(&tr, 2, "call 2 has 2 operations, the first call 3: it lacks \"Memcpy DtoD\" (0 in it, 1 in the first");
    setup(&tr, 2);
    call(&tr, 1, 0);
    refused(&tr, 2, "it lacks \"scan_kernel\"");
    setup(&tr, 3);
    add(&tr, "scan_kernel", EA_RECORD_KERNEL, 100, 100);
    refused(&tr, 2, "call 2 has 4 operations, the first call 3: it has an extra \"scan_kernel\" (2 in it, 1 in the");
}

Test(timer_cold, unusable_records_are_refused)
{
    trace tr;
    setup(&tr, 3);
    tr.list.dropped = 4;
    refused(&tr, 2, "CUPTI dropped 4 records");
    setup(&tr, 0);
    add(&tr, "scan_kernel", EA_RECORD_KERNEL, 0, 10);
    refused(&tr, 1, "record 0 (\"scan_kernel\") precedes the first flush (\"ea_l2_flush\"): no flush recorded");
    call(&tr, 0, 0);
    refused(&tr, 1, "the records do not start with a cold call");
    setup(&tr, 3);
    refused(&tr, 4, "expected at least the 4 calls sampled, CUPTI recorded 3");
    refused(&tr, 0, "expected at least one call to sample, got 0");
    setup(&tr, 0);
    add(&tr, FLUSH, EA_RECORD_KERNEL, 0, 10);
    call(&tr, 0, 0);
    refused(&tr, 1, "CUPTI saw no kernel, copy or memset of the first call");
    setup(&tr, 2);
    tr.r[5].start_ns = tr.r[4].start_ns - 100; /* the second call's first kernel runs beside its flush */
    refused(&tr, 1, "call 1's \"scan_kernel\" starts before its flush started");
}

/* The H200's CUPTI stamped a graph's next operation up to 1.25 us before the flush's recorded end: stamp
 * lag, not overlap; the sample then runs from the call's first start to its last end. */
Test(timer_cold, flush_end_stamped_after_the_call_began_is_accepted)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 2);
    const uint64_t flush_end = tr.r[4].end_ns, last_end = tr.r[7].end_ns;
    tr.r[5].start_ns = flush_end - 1249;
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 1, &t, &err), 0, "%s", err.msg);
    cr_assert_float_eq(t.samples_us[0], (double)(last_end - (flush_end - 1249)) / 1000.0, 1e-9);
    ea_timing_free(&t);
}

/* A copy named like the flush is not a flush: only a kernel of that name opens a call. */
Test(timer_cold, only_the_flush_kernel_opens_a_call)
{
    trace tr;
    ea_timing t = {0};
    ea_error err = {{0}};
    setup(&tr, 3);
    tr.r[2].name = FLUSH; /* the first call's copy */
    cr_assert_eq(ea_timer_reduce_cold(&tr.list, FLUSH, 2, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.ops_per_call, 3);
    ea_timing_free(&t);
}

/* Without CUPTI a path says why it has no cold time; never a number. */
Test(timer_cold, path_without_cold_samples_carries_the_note)
{
    ea_timing cold = {.cache = EA_CACHE_COLD};
    snprintf(cold.note, sizeof cold.note, "no cold time: CUPTI not found (set EXTERN_AUDIT_CUPTI)");
    cJSON *p = cJSON_CreateObject();
    ea_path_cold_json(p, &cold);
    cr_assert_null(cJSON_GetObjectItem(p, "time_cold"));
    cr_assert_str_eq(cJSON_GetObjectItem(p, "time_cold_note")->valuestring, cold.note);
    cJSON_Delete(p);
    double s[] = {3.0, 4.0, 5.0};
    cold.samples_us = s;
    cold.per_call_us.median = 4.0;
    p = cJSON_CreateObject();
    ea_path_cold_json(p, &cold);
    cr_assert_null(cJSON_GetObjectItem(p, "time_cold_note"));
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "time_cold"), "median_us")->valuedouble, 4.0, 1e-12);
    cJSON_Delete(p);
}
