/* cmd_gate.c: extern-audit gate: a baselines document against another (--against) or against a fresh
 * measurement (--run, through run.h), path by path with the drift rule (gate.h); the points of NOISY,
 * SLOWER and FASTER paths are measured again up to --retries times before the verdict stands (gate_run.h). --plan compares what the document records
 * besides its times (plans, the fidelity its times give) with today's, no GPU. Writes the report (--json), the markdown table (--markdown) and
 * the proposed baselines (--propose). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "gpu/device.h"
#include "gpu/device_lock.h"
#include "gate/gate.h"
#include "gate/gate_run.h"
#include "base/json.h"
#include "measure/run.h"
#include "gate/shard.h"
#include "target/target.h"
#include "target/target_layout.h"

#define DEFAULT_RETRIES 2

const char ea_usage_gate[] =
    "usage: extern-audit gate [--baseline FILE] (--against FILE | --run [--cold] | --plan) [--scope NAME] [--json]\n"
    "                         [--propose FILE] [--markdown FILE] [--junit FILE] [--save FILE] [--margin X] [--retries N]\n"
    "                         [--golden DIR] [--target NAME] [--shard I/N] [--quiet]\n"
    "       extern-audit gate --shard-plan LIST [--baseline FILE] [--scope NAME] [--golden DIR] [--target NAME] [--json]\n"
    "       extern-audit gate merge [--baseline FILE] [--json] [--markdown FILE] [--junit FILE] [--propose FILE]\n"
    "                               [--save FILE] REPORT...\n"
    "  --baseline FILE  the stored baselines document (default: the target's, DIR/targets/NAME/" EA_BASELINES_NAME ")\n"
    "  --against FILE   compare with another baselines document (no GPU needed)\n"
    "  --run            measure now (extern-audit run --mode both) and compare; needs a CUDA device; a path\n"
    "                   is timed cold only when its stored result has \"time_cold\" or the stored document\n"
    "                   lacks the path (new: --propose adds it with both times)\n"
    "  --cold           --run: time every path cold too, so --propose adds the cold times the stored\n"
    "                   document lacks (ADDED); what recording cold baselines through the gate takes\n"
    "  --plan           compare each stored result's plan (its \"config\" and \"scope_ids\") with what today's\n"
    "                   code plans for the point (run --plan; no GPU needed, ATen's grids sized for the stored\n"
    "                   document's sm_count), CONFIG where they differ, and its fidelity with what its own times\n"
    "                   give against the target's " EA_TORCH_OPS_NAME " and captures, FIDELITY where they differ;\n"
    "                   --propose takes both (no time moves); ADDED: a configuration planned for a measured\n"
    "                   point that no stored result measures (gate --run --propose measures it)\n"
    "  --scope NAME     only these points (as run --scope; default all)\n"
    "  --json           print the report as JSON (docs/reference/schema.md, extern-audit/gate) instead of the table\n"
    "  (a FILE of -: standard output, instead of the table)\n"
    "  --propose FILE   write the stored document with only the moved paths, classes, plans and new results\n"
    "                   replaced by the new ones (an unchanged path keeps its bytes; the fidelity follows\n"
    "                   the current path's warm times when all of them moved; a result without its\n"
    "                   point's \"point_wall_s\" takes the new one, a recorded one stays; a result a time\n"
    "                   is taken into gets the verdict its family's rule gives from its times)\n"
    "  --markdown FILE  write the table a CI job posts\n"
    "  --junit FILE     write the report as JUnit XML: a testcase per entry, failed unless SAME or the\n"
    "                   measured floor's (below)\n"
    "  --save FILE      --run: write the fresh measurement's baselines document\n"
    "  --margin X       default relative margin (0 < X < 1; default 0.05); a path's own \"margin\" wins\n"
    "  --retries N      --run: measure the points of NOISY, SLOWER or FASTER paths again up to N times (default 2;\n"
    "                   while unsettled; a point's last measurement stands: a move is reported only when every\n"
    "                   measurement of its point showed one)\n"
    "  --golden DIR     golden folder the points come from (default golden)\n"
    "  --target NAME    DIR/targets/NAME: the stored baselines and, with --run or --plan, the captures and\n"
    "                   " EA_TORCH_OPS_NAME " read\n"
    "                   (default: $EXTERN_AUDIT_TARGET, else the target of this GPU's model, else with no GPU\n"
    "                   the only one); with --run a target of another GPU model is refused\n"
    "  --quiet          no progress lines on stderr\n"
    "  --shard I/N      --run or --against: judge only shard I of N of the points (1 <= I <= N <= 64), balanced by\n"
    "                   the stored results' \"point_wall_s\" (else estimated from their timing; longest first onto\n"
    "                   the least loaded shard); the report's \"shard\" names its share; --run needs --save\n"
    "  --shard-plan LIST  no gate: the predicted seconds of each shard for each count of LIST (\"1,2,4,8\") from\n"
    "                   the stored per-point times, the largest shard being the gate's wall time\n"
    "merge: join the reports (--json) of gate --shard I/N, I = 1..N, into one report (printed), and write its\n"
    "  markdown, the proposal and (--run shards) the fresh documents joined; refused: an overlap, a missing\n"
    "  shard, mixed shard counts, targets, baselines, plans or rules (each named)\n"
    "statuses: SAME, SLOWER (a regression), FASTER (a stale golden), NOISY (too spread to decide), MISSING,\n"
    "ADDED, CLASS (class changed), CONFIG (the plan measured is not the stored one), FIDELITY (--plan: the\n"
    "recorded fidelity is not what the times give), FAILED (a check failed), INVALID (a time the rule cannot read)\n"
    "the measured floor (path floor_copy, mode floor: the yardstick, not what the gate guards): its SLOWER,\n"
    "FASTER, NOISY, ADDED and MISSING entries are listed, measured again and proposed as any path's, not failed\n"
    "exit status: 0 every entry SAME or the measured floor's, 2 bad usage, bad input, an INVALID entry,\n"
    "another GPU model or no CUDA device, else 1\n";

typedef struct {
    const char *baseline, *against, *scope, *propose, *markdown, *junit, *save, *golden, *target, *shard_plan;
    int run, cold, plan, json, quiet, retries, quiet_table, shard, shards; /* shard I of shards, 0 of 0: unsharded */
    double margin;
    char command[1024], baseline_file[4200];
} gate_options;

static int parse(int argc, char **argv, gate_options *o, int *help)
{
    ea_cli_options c;
    int rc = ea_cli_parse("gate", "--baseline --against --scope --propose --markdown --save --golden --target "
                                  "--margin --retries --run --cold --plan --json --quiet --shard --shard-plan --junit", argc,
                       argv, &c, help);
    if (rc || *help)
        return rc;
    *o = (gate_options){.baseline = c.baseline, .against = c.against, .scope = c.scope, .propose = c.propose,
                        .markdown = c.markdown, .save = c.save, .golden = c.golden, .target = c.target,
                        .run = c.run, .cold = c.cold, .plan = c.plan, .json = c.json, .quiet = c.quiet,
                        .retries = DEFAULT_RETRIES, .shard_plan = c.shard_plan, .junit = c.junit};
    const char *margin = c.margin, *retries = c.retries;
    char *end;
    if (margin && (o->margin = strtod(margin, &end), *end || end == margin || !(o->margin > 0 && o->margin < 1)))
        return ea_cli_usage_error("gate", "--margin expects a number in (0, 1), got '%s'", margin);
    if (retries && (o->retries = (int)strtol(retries, &end, 10), *end || end == retries || o->retries < 0 || o->retries > 10))
        return ea_cli_usage_error("gate", "--retries expects an integer 0..10, got '%s'", retries);
    ea_error err;
    if (c.shard && ea_shard_parse(c.shard, &o->shard, &o->shards, &err))
        return ea_cli_usage_error("gate", "%s", err.msg);
    if (o->shard_plan && (o->against || o->run || o->plan || o->shard))
        return ea_cli_usage_error("gate", "%s", "--shard-plan LIST judges nothing: not with --against, --run, --plan or --shard");
    if (!o->shard_plan && !!o->against + o->run + o->plan != 1)
        return ea_cli_usage_error("gate", "%s", "give exactly one of --against FILE, --run and --plan");
    if (o->shard && !o->run && !o->against)
        return ea_cli_usage_error("gate", "%s", "--shard needs --run or --against");
    if (o->shard && o->run && !o->save) /* gate merge joins the shards' fresh documents */
        return ea_cli_usage_error("gate", "%s", "--shard with --run needs --save FILE (gate merge reads it)");
    if (o->save && !o->run)
        return ea_cli_usage_error("gate", "%s", "--save needs --run");
    if (o->cold && !o->run)
        return ea_cli_usage_error("gate", "%s", "--cold needs --run");
    int dash;
    if ((rc = ea_cli_stdout_once("gate", o->json, (const char *const[]){o->markdown, o->junit, o->propose, o->save}, 4,
                                 &dash)))
        return rc;
    o->quiet_table = dash; /* "-": stdout carries that output alone */
    if (o->plan && (c.margin || c.retries)) /* a plan has no time to judge */
        return ea_cli_usage_error("gate", "%s", "--margin and --retries judge times: not with --plan");
    size_t k = (size_t)snprintf(o->command, sizeof o->command, "extern-audit run %s (gate",
                                o->plan ? "--plan" : "--mode both");
    for (int i = 0; i < argc && k < sizeof o->command; i++)
        k += (size_t)snprintf(o->command + k, sizeof o->command - k, " %s", argv[i]);
    if (k < sizeof o->command)
        snprintf(o->command + k, sizeof o->command - k, ")");
    return 0;
}

/* The target a run measures against or a plan reads captures from (with --run another GPU model's is
 * refused) and, without --baseline, whose baselines.json is the stored side; comparing two given files needs
 * none. */
static int target_of(gate_options *o, ea_target *t, ea_error *err)
{
    if (o->baseline && o->against)
        return 0;
    if (ea_target_resolve(o->golden, o->target, o->run, t, err))
        return -1;
    if (!o->baseline && ea_tf_path(t->dir, EA_TF_BASELINES, o->baseline_file, sizeof o->baseline_file))
        return ea_fail(err, "%s: expected a path under %zu bytes", t->dir, sizeof o->baseline_file);
    o->baseline = o->baseline ? o->baseline : o->baseline_file;
    return 0;
}

static int load_baselines(const char *file, ej_doc *doc, ea_error *err)
{
    if (ej_load(file, doc, err))
        return -1;
    return ea_baseline_validate(file, doc->root, err);
}

/* --run: measure, compare, and measure the unsettled points again up to o->retries times (gate_run.h). */
static int run_and_compare(const gate_options *o, const ej_doc *stored, ea_run_points *pts,
                           cJSON **fresh, cJSON **report, ea_error *err)
{
    ea_device_info dev;
    char model[64];
    const char *want = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(stored->root, "gpu"), "model"));
    if (!ea_device_probe(&dev))
        return ea_fail(err, "no CUDA device: %s", dev.reason);
    ea_gpu_model(dev.name, model, sizeof model);
    if (strcmp(model, want)) /* before the long measurement */
        return ea_fail(err, "%s $.gpu.model is \"%s\" and this GPU is a %s (%s): refused, times compare only on one "
                       "GPU model (golden/targets/<model>-torch<version>/" EA_BASELINES_NAME ")", o->baseline, want, model, dev.name);
    /* cold only where the stored document has cold numbers to compare with (nothing else would judge
     * them), unless --cold asks for every cold time, to be proposed */
    ea_run_opts ro = {.faithful = 1, .fabricated = 1, .log = o->quiet ? NULL : stderr,
                      .cold_from = o->cold ? NULL : stored->root};
    ea_drift_rule rule = ea_drift_default_rule(o->margin);
    return ea_gate_run(o->baseline, stored->root, pts, &ro, &rule, o->retries, o->command, fresh, report, err);
}

typedef struct {
    const ea_run_points *pts;
    const ea_torch_ops *ops;
} derivation;

/* The fidelity a stored result's own times give against today's torch timings and captures. */
static cJSON *derive_fidelity(const cJSON *stored_result, void *arg)
{
    const derivation *d = arg;
    for (int i = 0; i < d->pts->n; i++)
        if (!strcmp(d->pts->refs[i].family->name, ej_text(stored_result, "family")) &&
            !strcmp(ej_text(d->pts->refs[i].point, "point"), ej_text(stored_result, "point")))
            return ea_result_fidelity(stored_result, d->pts->refs[i].point, &d->pts->ctx.caps, d->ops);
    return NULL;
}

/* --plan: today's plans of the stored document's points, compared with the plans it records, and the
 * fidelity its times give against the target's torch timings and captures with the one it records. */
static int plan_and_compare(const gate_options *o, const ej_doc *stored, ea_run_points *pts, cJSON **fresh,
                            cJSON **report, ea_error *err)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(stored->root, "gpu");
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(gpu, "sm_count");
    ea_run_opts ro = {.faithful = 1, .fabricated = 1, .log = o->quiet ? NULL : stderr,
                      .sm_count = cJSON_IsNumber(sm) ? sm->valueint : 0};
    ea_torch_ops ops = {0};
    derivation d = {pts, &ops};
    cJSON *plans = cJSON_CreateArray(), *ids = o->scope ? ea_gate_point_ids(pts) : NULL; /* all: a stale point is judged */
    int unsupported, rc = -1;
    if (ro.sm_count <= 0)
        ea_fail(err, "%s $.gpu.sm_count: expected the multiprocessor count its plans were sized for", o->baseline);
    else if (!ea_torch_ops_load_dir(pts->ctx.target_dir, ej_text(gpu, "model"), &ops, err) &&
             !ea_run_plan(&pts->ctx, &ro, pts->refs, pts->n, plans, &unsupported, err) &&
             (*report = ea_gate_compare_plans(o->baseline, stored->root, plans, ids, derive_fidelity, &d, err)))
        rc = 0;
    ea_torch_ops_free(&ops);
    cJSON_Delete(ids);
    if (rc) {
        cJSON_Delete(plans);
        return -1;
    }
    *fresh = cJSON_CreateObject();
    cJSON_AddStringToObject(*fresh, "command", o->command);
    cJSON_AddItemToObject(*fresh, "scopes", plans);
    return 0;
}

/* The points a sharded gate --against splits: --scope's, else every point either document holds (a point on
 * one side only is MISSING or ADDED in its shard). */
static cJSON *against_points(const gate_options *o, const ea_run_points *pts, const cJSON *stored, const cJSON *other)
{
    if (o->scope)
        return ea_gate_point_ids(pts);
    cJSON *ids = cJSON_CreateArray();
    const cJSON *doc[2] = {stored, other}, *r, *id;
    for (int d = 0; d < 2; d++)
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc[d], "scopes")) {
            int seen = 0;
            cJSON_ArrayForEach(id, ids)
                seen |= !strcmp(id->valuestring, ej_text(r, "point"));
            if (!seen)
                cJSON_AddItemToArray(ids, cJSON_CreateString(ej_text(r, "point")));
        }
    return ids;
}

static int in_share(const cJSON *share, const char *point)
{
    const cJSON *id;
    cJSON_ArrayForEach(id, share)
        if (!strcmp(id->valuestring, point))
            return 1;
    return 0;
}

/* Shard o->shard of the plan over all (taken): its point ids (owned by the plan), and pts' refs kept to them
 * (the order they had). */
static const cJSON *take_share(const gate_options *o, const ej_doc *stored, cJSON *all, ea_run_points *pts,
                               cJSON **plan)
{
    *plan = ea_shard_plan(stored->root, all, o->shards);
    cJSON_Delete(all);
    const cJSON *share = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(*plan, "shards"), o->shard - 1), "points");
    int n = 0;
    for (int i = 0; i < pts->n; i++)
        if (in_share(share, ej_text(pts->refs[i].point, "point")))
            pts->refs[n++] = pts->refs[i];
    pts->n = n;
    return share;
}

/* The report's "shard" (docs/reference/schema.md): its share, the plan, and what gate merge checks the shards share. */
static void add_shard(cJSON *report, const gate_options *o, cJSON *plan, const cJSON *stored, const cJSON *other,
                      const ea_target *t)
{
    cJSON *sh = cJSON_AddObjectToObject(report, "shard");
    const cJSON *mine = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "shards"), o->shard - 1);
    char digest[17];
    cJSON_AddNumberToObject(sh, "index", o->shard);
    cJSON_AddNumberToObject(sh, "count", o->shards);
    cJSON_AddItemToObject(sh, "points", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(mine, "points"), 1));
    cJSON_AddNumberToObject(sh, "predicted_s", ej_num(mine, "seconds"));
    if (t->name[0])
        cJSON_AddStringToObject(sh, "target", t->name);
    else
        cJSON_AddNullToObject(sh, "target");
    ea_shard_digest(stored, digest);
    cJSON_AddStringToObject(sh, "stored_digest", digest);
    if (other) {
        ea_shard_digest(other, digest);
        cJSON_AddStringToObject(sh, "new_digest", digest);
    } else {
        cJSON_AddNullToObject(sh, "new_digest");
    }
    cJSON_AddStringToObject(sh, "fresh", o->run ? o->save : o->against);
    cJSON_AddItemToObject(sh, "plan", plan);
}

/* --shard-plan LIST: the plan of each count, as the gate of those points would shard them. */
static int shard_plan(const gate_options *o, const ej_doc *stored, const ea_run_points *pts, ea_error *err)
{
    cJSON *out = cJSON_CreateObject(), *preds = NULL, *ids = ea_gate_point_ids(pts);
    const char *a = o->shard_plan;
    int rc = 0;
    cJSON_AddStringToObject(out, "schema", EA_SHARD_PLAN_SCHEMA);
    cJSON_AddNumberToObject(out, "schema_version", EA_SHARD_PLAN_VERSION);
    cJSON_AddStringToObject(out, "stored", o->baseline);
    cJSON_AddNumberToObject(out, "points", pts->n);
    preds = cJSON_AddArrayToObject(out, "predictions");
    while (!rc && *a) {
        char *end;
        long n = strtol(a, &end, 10);
        if (end == a || (*end && *end != ',') || n < 1 || n > EA_SHARD_MAX || (*end == ',' && !end[1])) {
            rc = ea_fail(err, "--shard-plan expects counts 1..%d separated by single commas, got '%s'", EA_SHARD_MAX,
                         o->shard_plan);
            break;
        }
        cJSON *plan = ea_shard_plan(stored->root, ids, (int)n), *sh, *p = cJSON_CreateObject(), *secs;
        double largest = 0;
        if (!cJSON_HasObjectItem(out, "basis")) {
            cJSON_AddStringToObject(out, "basis", ej_text(plan, "basis"));
            cJSON_AddNumberToObject(out, "assumed", ej_num(plan, "assumed"));
        }
        cJSON_AddNumberToObject(p, "count", (double)n);
        secs = cJSON_AddArrayToObject(p, "seconds");
        cJSON_ArrayForEach(sh, cJSON_GetObjectItemCaseSensitive(plan, "shards")) {
            largest = ej_num(sh, "seconds") > largest ? ej_num(sh, "seconds") : largest;
            cJSON_AddItemToArray(secs, cJSON_CreateNumber(ej_num(sh, "seconds")));
        }
        cJSON_AddNumberToObject(p, "largest_s", largest);
        cJSON_AddItemToArray(preds, p);
        cJSON_Delete(plan);
        a = *end ? end + 1 : end;
    }
    if (!rc && o->json) {
        ea_cli_print_json(out);
    } else if (!rc) {
        const cJSON *p, *x;
        printf("gate --shard-plan: %d points, per-point seconds %s from %s%s\n", pts->n,
               !strcmp(ej_text(out, "basis"), "recorded") ? "recorded (point_wall_s)" : "estimated",
               o->baseline,
               !strcmp(ej_text(out, "basis"), "recorded")
                   ? ""
                   : " (no point_wall_s on every result: 0.1 s warm-up + replays x calls x median per time, a lower "
                     "bound: no inputs, checks or K search)");
        if (ej_num(out, "assumed") > 0)
            printf("  %d point(s) with no stored result weigh the median of the others\n", (int)ej_num(out, "assumed"));
        printf("  %6s  %12s  %s\n", "shards", "largest (s)", "each shard (s)");
        cJSON_ArrayForEach(p, preds) {
            printf("  %6d  %12.1f  ", (int)ej_num(p, "count"), ej_num(p, "largest_s"));
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(p, "seconds"))
                printf("%s%.1f", x == cJSON_GetObjectItemCaseSensitive(p, "seconds")->child ? "" : " ", x->valuedouble);
            printf("\n");
        }
        printf("  the gate's wall time is its largest shard's, plus each worker's fixed cost (device probe, copy "
               "bandwidth) that no point records\n");
    }
    cJSON_Delete(ids);
    cJSON_Delete(out);
    return rc;
}

int ea_gate_cli_texts(const char *cmd, const cJSON *report, const char *markdown, const char *junit, FILE *said,
                      ea_error *err)
{
    const char *file[2] = {markdown, junit}, *what[2] = {"markdown", "JUnit XML"};
    for (int i = 0; i < 2; i++) {
        if (!file[i])
            continue;
        char *text = i ? ea_gate_junit(report) : ea_gate_markdown(report);
        int rc = ea_cli_write_output(cmd, what[i], file[i], text, said, err);
        free(text);
        if (rc)
            return -1;
    }
    return 0;
}

/* The report's files; the lines saying so go to stderr where stdout carries another output (--json, a FILE of -). */
static int write_outputs(const gate_options *o, const ej_doc *stored, const cJSON *fresh, const cJSON *report,
                         ea_error *err)
{
    if (ea_gate_cli_texts("gate", report, o->markdown, o->junit, o->quiet_table || o->json ? stderr : stdout, err))
        return -1;
    if (o->save && ea_baseline_record(o->save, fresh, err))
        return -1;
    if (o->propose) {
        cJSON *doc = ea_gate_propose(stored->root, fresh, report);
        int rc = ea_baseline_record(o->propose, doc, err);
        cJSON_Delete(doc);
        return rc;
    }
    return 0;
}

int ea_cmd_gate(int argc, char **argv)
{
    if (argc > 0 && !strcmp(argv[0], "merge"))
        return ea_cmd_gate_merge(argc - 1, argv + 1);
    gate_options o;
    int help = 0, rc = parse(argc, argv, &o, &help);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_gate, stdout), 0);
    ej_doc stored = {0}, other = {0};
    ea_run_points pts = {0};
    cJSON *ids = NULL, *fresh = NULL, *report = NULL, *plan = NULL;
    ea_error err;
    ea_drift_rule rule = ea_drift_default_rule(o.margin);
    ea_target t = {0};
    if (target_of(&o, &t, &err) || load_baselines(o.baseline, &stored, &err) ||
        ((o.scope || !o.against) &&
         ea_run_points_load(o.golden, o.against ? NULL : t.dir, o.scope ? o.scope : "all", &pts, &err))) {
        rc = 2;
    } else if (o.shard_plan) {
        rc = shard_plan(&o, &stored, &pts, &err) ? 2 : 10;
    } else if (o.run) {
        int all = pts.n;
        if (o.shard)
            take_share(&o, &stored, ea_gate_point_ids(&pts), &pts, &plan);
        if (!pts.n) { /* a run of nothing has no document to save or merge */
            ea_fail(&err, "--shard %d/%d: no point falls to this shard (%d points over %d shards)", o.shard, o.shards,
                    all, o.shards);
            rc = 2;
        } else {
            rc = run_and_compare(&o, &stored, &pts, &fresh, &report, &err) ? 2 : 0;
        }
    } else if (o.plan) {
        rc = plan_and_compare(&o, &stored, &pts, &fresh, &report, &err) ? 2 : 0;
    } else if (load_baselines(o.against, &other, &err)) {
        rc = 2;
    } else {
        if (o.shard)
            ids = cJSON_Duplicate(take_share(&o, &stored, against_points(&o, &pts, stored.root, other.root), &pts, &plan), 1);
        else
            ids = o.scope ? ea_gate_point_ids(&pts) : NULL;
        report = ea_gate_compare(o.baseline, stored.root, o.against, other.root, &rule, ids, &err);
        fresh = other.root;
        rc = report ? 0 : 2;
    }
    if (!rc && o.shard) {
        add_shard(report, &o, plan, stored.root, o.against ? other.root : NULL, &t);
        plan = NULL;
    }
    if (!rc) {
        if (o.json)
            ea_cli_print_json(report);
        else if (!o.quiet_table)
            ea_gate_print(report, stdout);
        rc = write_outputs(&o, &stored, fresh, report, &err) ? 2 : ea_gate_exit(report) + 10;
    }
    if (rc == 2) /* rc + 10: the report's own verdict, INVALID entries included, was printed above */
        fprintf(stderr, "extern-audit gate: %s\n", err.msg);
    rc = rc >= 10 ? rc - 10 : rc;
    if (fresh != other.root)
        cJSON_Delete(fresh);
    cJSON_Delete(report);
    cJSON_Delete(ids);
    cJSON_Delete(plan);
    ej_free(&stored);
    ej_free(&other);
    ea_run_points_free(&pts);
    return rc;
}
