/* bench_cat_host: what the cat family's run costs on the CPU, per step, over every point of
 * golden/occurrences/cat.json, with no GPU: the host work cat_measure (repros/cat/run.c) does around the
 * device calls, with the emulated y (and the exact cat) standing in for the outputs a GPU would copy back.
 * usage: bench-cat-host [--per-path] [--check-only] [--points N]
 *   default     as the run does it now: inputs generated once and handed to the replay, each oracle
 *               layout's outputs judged through the point's cat_checker (a walk only for new bytes)
 *   --per-path  as it did before: the replay generates the inputs again and every check walks (cat_check)
 *   --check-only one check per path (run --check-only), else two (after the first call, after timing)
 * Prints one line per point and the totals in CPU seconds (CLOCK_PROCESS_CPUTIME_ID; single-threaded) on
 * stdout; exit 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../repros/cat/cat.h"
#include "target/gen.h"
#include "base/json.h"
#include "target/target.h"

enum { T_INPUTS, T_EMULATE, T_CHECKS, T_SUMS, T_N };
static const char *const step_names[T_N] = {"inputs", "emulate", "checks", "checksums"};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the 2-core machines it runs on are shared */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The capture's outputs as a passing run leaves them: y emulated, the cat its inputs side by side. */
static int stand_in_outputs(const cat_scope *s, const ea_capture *cap, const cat_inputs *in, void *outs[CAT_NOUTS],
                            size_t bytes[CAT_NOUTS], cat_check_result *emu)
{
    for (int r = 0; r < CAT_NOUTS; r++) {
        bytes[r] = s->out[r] >= 0 ? (size_t)cat_output_bytes(cap, s->out[r]) : 0;
        outs[r] = s->out[r] >= 0 ? calloc(1, bytes[r]) : NULL;
        if (s->out[r] >= 0 && !outs[r])
            return -1;
    }
    cat_emulate_current(s, in, emu, outs[CAT_O_Y]);
    const int es = ea_dtype_size(s->dt);
    for (int64_t n = 0; outs[CAT_O_CAT] && n < s->n; n++)
        for (int i = 0; i < s->k; i++)
            memcpy((char *)outs[CAT_O_CAT] + (n * s->c + s->c_off[i]) * s->hw * es,
                   (const char *)in->data[s->in_x[i]] + n * s->ch[i] * s->hw * es, (size_t)(s->ch[i] * s->hw * es));
    return 0;
}

/* ea_gen_fill of every capture input once more: what the replay did before it took the family's inputs. */
static int regenerate(const ea_capture *cap, ea_error *err)
{
    int rc = 0;
    for (int i = 0; i < cap->ninputs && !rc; i++) {
        void *x = malloc((size_t)ea_storage_bytes(&cap->inputs[i].t) + 1);
        rc = !x || ea_gen_fill(cap->inputs[i].values.json, &cap->inputs[i].t, x, cap->file, err);
        free(x);
    }
    return rc;
}

static volatile uint64_t sink; /* the checksums land here, so none is optimised away */

static uint64_t checksums(const cat_scope *s, const ea_capture *cap, void *const outs[CAT_NOUTS])
{
    uint64_t x = 0;
    for (int r = 0; r < CAT_NOUTS; r++)
        if (outs[r])
            x ^= ea_checksum(&cap->outputs[s->out[r]].t, outs[r]);
    return x;
}

static int one_point(const cJSON *pt, const char *file, int index, const ea_captures *caps, int per_path, int checks,
                     double t[T_N], ea_error *err)
{
    cat_scope s;
    const ea_capture *cap;
    cat_inputs in;
    cat_plan v[CAT_MAX_VARIANTS];
    if (cat_scope_parse(pt, file, index, caps, &s, &cap, err)) /* 1: no capture, whose inputs it times */
        return -1;
    int nvar = cat_plan_variants(&s, v, err);
    double t0 = now();
    if (nvar < 0 || cat_inputs_make(&s, cap, &in, err) || (per_path && regenerate(cap, err)))
        return -1;
    double t1 = now();
    void *outs[CAT_NOUTS];
    size_t bytes[CAT_NOUTS];
    cat_check_result emu, r = {0};
    int rc = stand_in_outputs(&s, cap, &in, outs, bytes, &emu) ? ea_fail(err, "%s: out of memory", s.alias) : 0;
    double t2 = now(), sums = 0;
    uint64_t x = 0;
    cat_checker k;
    cat_checker_init(&k, &s, &in, bytes);
    for (int c = 0; rc == 0 && c < checks; c++) { /* the replay's checksums after the first call and after timing */
        double a = now();
        x ^= checksums(&s, cap, outs);
        sums += now() - a;
    }
    for (int u = 0; rc == 0 && u < nvar; u++)
        for (int c = 0; c < checks; c++) {
            int walked = per_path ? (cat_check(&s, &in, outs, &r), 1) : !cat_checker_check(&k, outs, &r);
            if (c == 0 && walked) { /* checksums_json: with the first check, for bytes not seen before */
                double a = now();
                x ^= checksums(&s, cap, outs);
                sums += now() - a;
            }
        }
    double t3 = now();
    t[T_INPUTS] += t1 - t0, t[T_EMULATE] += t2 - t1, t[T_CHECKS] += t3 - t2 - sums, t[T_SUMS] += sums;
    /* what was judged, exactly: equal across modes and builds, or the change altered a check */
    const ea_capture_tensor *yt = &cap->outputs[s.out[CAT_O_Y]];
    printf("%-30s %d layouts: inputs %.3f emulate %.3f checks %.3f checksums %.3f s | emulated rel %a, %lld outside, "
           "y %s torch's; check rel %a max %a, %lld mismatched, %lld unwritten\n", s.alias, nvar, t1 - t0, t2 - t1,
           t3 - t2 - sums, sums, emu.rel_l2, (long long)emu.y_outside,
           ea_checksum(&yt->t, outs[CAT_O_Y]) == yt->checksum ? "equals" : "differs from", r.rel_l2, r.max_abs,
           (long long)r.mismatched, (long long)r.unwritten);
    sink ^= x;
    cat_checker_free(&k);
    for (int o = 0; o < CAT_NOUTS; o++)
        free(outs[o]);
    cat_inputs_free(&in);
    return rc;
}

static const char usage[] =
    "usage: bench-cat-host [--per-path] [--check-only] [--points N]\n"
    "  the cat family's CPU-side work per golden point (inputs, emulation, checks, checksums), in CPU seconds\n"
    "  --per-path    as before the point's paths shared it: inputs generated again, every check a full walk\n"
    "  --check-only  one check per path (run --check-only), else two\n"
    "  --points N    the first N points of golden/occurrences/cat.json (run from the repository root)\n";

int main(int argc, char **argv)
{
    int per_path = 0, checks = 2, limit = 1 << 30;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return fputs(usage, stdout), 0;
        if (!strcmp(argv[i], "--per-path"))
            per_path = 1;
        else if (!strcmp(argv[i], "--check-only"))
            checks = 1;
        else if (!strcmp(argv[i], "--points") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            limit = atoi(argv[++i]);
        else
            return fprintf(stderr, "bench-cat-host: unknown or incomplete option '%s'\n%s", argv[i], usage), 2;
    }
    const char *file = "golden/occurrences/cat.json";
    ej_doc d;
    ea_error err;
    ea_target tg;
    ea_captures caps = {0}; /* the golden target's, as run reads them */
    if (ea_target_find("golden", NULL, &tg, &err) || (tg.name[0] && ea_captures_load_dir(tg.dir, &caps, &err)) ||
        ej_load(file, &d, &err))
        return ea_captures_free(&caps), fprintf(stderr, "bench-cat-host: %s\n", err.msg), 2;
    double t[T_N] = {0}, start = now();
    const cJSON *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(d.root, "points")) {
        if (i >= limit)
            break;
        if (one_point(pt, file, i++, &caps, per_path, checks, t, &err)) {
            ej_free(&d);
            ea_captures_free(&caps);
            return fprintf(stderr, "bench-cat-host: %s\n", err.msg), 2;
        }
    }
    printf("%d points, %s, %d check(s) per path:", i, per_path ? "per path (before)" : "shared per point", checks);
    for (int k = 0; k < T_N; k++)
        printf(" %s %.2f", step_names[k], t[k]);
    printf(" s; total %.2f s\n", now() - start);
    ej_free(&d);
    ea_captures_free(&caps);
    return 0;
}
