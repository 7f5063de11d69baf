/* suite_report.c: the summary a person reads at the end of a suite run, from Criterion's own statistics.
 * After Criterion's synthesis line (at exit): one line per occurrence check ("classification 279/279",
 * "correctness 0/279 (skipped: no CUDA device)"), one line per skip reason with its count, every failure with
 * its messages, and last "suite: P passed, F failed, S skipped". On a GPU machine a line before the failures says
 * how long timed sections held the device and who held it longest ($EA_DEVICE_LOCK_LOG, device_lock_log.h). $EA_SUITE_SUMMARY, when set, names a file that
 * receives the same text (ci/suite prints it under the build's own lines). Tests a --filter left out are not
 * counted. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "gpu/device_lock_log_impl.h"
#include "occurrence_cache.h"

static char *summary;
static size_t summary_len;

static const char *const checks[] = {"classification", "correctness", "timing"};

typedef struct {
    char key[128];      /* the reason up to its first ':' */
    char example[512];  /* the first reason seen of that key */
    int count;
} reason;

#define MAX_REASONS 64

/* The suite make test runs as a check of its own ($EA_SUITE_BROWSER_CHECK, set by ci/suite: that check's log),
 * once per change of what it reads: chromium's three page loads are 8 CPU s of the 2-core machine's ~100, every
 * run. */
#define BROWSER_SUITE "report_browser"
static char checked_why[512];

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    const char *log = getenv("EA_SUITE_BROWSER_CHECK");
    if (!log || !*log)
        return;
    snprintf(checked_why, sizeof checked_why, "run by make test's browser check once per change of what it reads: %.400s",
             log);
    FOREACH_SET(struct criterion_suite_set *s, set->suites) {
        if (strcmp(s->suite.name, BROWSER_SUITE) || !s->tests)
            continue;
        FOREACH_SET(struct criterion_test *t, s->tests)
            t->data->disabled = true;
    }
}

static const char *disabled_why(const struct criterion_test *t)
{
    return checked_why[0] && !strcmp(t->category, BROWSER_SUITE) ? checked_why : occ_skip_reason(t);
}

static int not_selected(const struct criterion_test_stats *t)
{
    return t->test_status == CR_STATUS_SKIPPED && !t->message && !disabled_why(t->test)[0];
}

static const char *skip_text(const struct criterion_test_stats *t)
{
    return t->message ? t->message : disabled_why(t->test);
}

static void count_reason(reason *r, int *n, const char *why)
{
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(why, ":"), why);
    for (int i = 0; i < *n; i++)
        if (!strcmp(r[i].key, key)) {
            r[i].count++;
            return;
        }
    if (*n == MAX_REASONS)
        return;
    snprintf(r[*n].key, sizeof r[*n].key, "%s", key);
    snprintf(r[*n].example, sizeof r[*n].example, "%s", why);
    r[(*n)++].count = 1;
}

/* "classification 279/279", "correctness 0/279 (skipped: no CUDA device)", " (3 failed)". */
static void check_line(FILE *f, const struct criterion_suite_stats *s)
{
    size_t run = 0, passed = 0, failed = 0, skipped = 0;
    const char *why = NULL;
    for (const struct criterion_test_stats *t = s->tests; t; t = t->next) {
        if (not_selected(t))
            continue;
        run++;
        if (t->test_status == CR_STATUS_SKIPPED) {
            skipped++;
            why = why ? why : skip_text(t);
        } else if (t->test_status == CR_STATUS_FAILED || t->crashed || t->timed_out) {
            failed++;
        } else {
            passed++;
        }
    }
    if (!run)
        return;
    fprintf(f, "%s %zu/%zu", s->suite->name, passed, run);
    if (failed)
        fprintf(f, " (%zu failed)", failed);
    int key = why ? (int)strcspn(why, ":") : 0;
    if (skipped == run)
        fprintf(f, " (skipped: %.*s)", key, why);
    else if (skipped)
        fprintf(f, " (%zu skipped: %.*s)", skipped, key, why);
    fputc('\n', f);
}

static void failure(FILE *f, const struct criterion_test_stats *t)
{
    fprintf(f, "FAILED %s::%s", t->test->category, t->test->name);
    if (t->crashed)
        fprintf(f, ": crashed (signal %d)", t->signal);
    else if (t->timed_out)
        fprintf(f, ": timed out");
    fputc('\n', f);
    for (const struct criterion_assert_stats *a = t->asserts; a; a = a->next)
        if (!a->passed)
            fprintf(f, "  %s:%u: %s\n", a->file ? a->file : "?", a->line, a->message ? a->message : "(no message)");
}

/* "device: 412 timed sections held it 231.0 s of 298.4 s (...); longest: a 140.2 s, b 38.1 s, c 20.3 s". */
static void device_line(FILE *f)
{
    const char *file = getenv(EA_LOCK_LOG_ENV);
    ea_lock_use u;
    ea_error err;
    if (!file || !*file || access(file, F_OK) != 0)
        return;
    if (ea_lock_log_read(file, &u, &err)) {
        fprintf(f, "device: %s\n", err.msg);
        return;
    }
    fprintf(f, "device: %d timed sections held it %.1f s of %.1f s (%d shared holds; %.0f s waited in all)", u.sections,
            u.held_s, u.span_s, u.shares, u.waited_s);
    for (int i = 0; i < u.top_n; i++)
        fprintf(f, "%s %.60s %.1f s", i ? "," : "; longest:", u.top[i].who, u.top[i].held_s);
    if (u.bad)
        fprintf(f, "; %d malformed line(s) skipped, the first line %d of %s", u.bad, u.first_bad, file);
    fprintf(f, "\n");
}

static void print_summary(void)
{
    fwrite(summary, 1, summary_len, stdout);
    fflush(stdout);
    const char *file = getenv("EA_SUITE_SUMMARY");
    ea_error err;
    if (file && *file && ea_write_file_atomic(file, summary, summary_len, &err))
        fprintf(stderr, "suite summary: %s\n", err.msg);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    reason reasons[MAX_REASONS];
    int nreasons = 0;
    size_t passed = 0, failed = 0, skipped = 0;
    FILE *f = open_memstream(&summary, &summary_len);
    for (int c = 0; c < 3; c++)
        for (const struct criterion_suite_stats *s = stats->suites; s; s = s->next)
            if (!strcmp(s->suite->name, checks[c]))
                check_line(f, s);
    for (const struct criterion_suite_stats *s = stats->suites; s; s = s->next)
        for (const struct criterion_test_stats *t = s->tests; t; t = t->next) {
            if (not_selected(t))
                continue;
            if (t->test_status == CR_STATUS_SKIPPED) {
                skipped++;
                count_reason(reasons, &nreasons, skip_text(t));
            } else if (t->test_status == CR_STATUS_FAILED || t->crashed || t->timed_out) {
                failed++;
            } else {
                passed++;
            }
        }
    for (int i = 0; i < nreasons; i++)
        fprintf(f, "skipped %d: %.110s%s\n", reasons[i].count, reasons[i].example,
                strlen(reasons[i].example) > 110 ? "..." : "");
    device_line(f);
    for (const struct criterion_suite_stats *s = stats->suites; s; s = s->next)
        for (const struct criterion_test_stats *t = s->tests; t; t = t->next)
            if (!not_selected(t) && t->test_status != CR_STATUS_SKIPPED &&
                (t->test_status == CR_STATUS_FAILED || t->crashed || t->timed_out))
                failure(f, t);
    fprintf(f, "suite: %zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    fclose(f);
    atexit(print_summary); /* after Criterion's synthesis, which it prints after this hook */
}
