/* extern-audit replay: every captured partition that is Triton-only, run from C on the H200-class
 * device at hand; the canonical replay gate of a target's captures (golden/targets/<target>/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/baseline.h"
#include "target/capture.h"
#include "cli/cli.h"
#include "cli/cmds.h"
#include "gpu/device.h"
#include "base/json.h"
#include "gate/keep_from.h"
#include "target/replay.h"
#include "target/replay_file.h"
#include "target/target.h"
#include "target/target_layout.h"

const char ea_usage_replay[] =
    "usage: extern-audit replay [--golden DIR] [--target NAME] [--scope SCOPE_ID] [--json] [--record FILE]\n"
    "                           [--keep-from FILE]\n"
    "  --golden DIR     golden folder holding targets/ (default golden)\n"
    "  --target NAME    replay DIR/targets/NAME/captures (default: $EXTERN_AUDIT_TARGET, else the target of\n"
    "                   this GPU's model; a target of another GPU model is refused)\n"
    "  --scope ID       only this capture (its folder name); several separated by commas\n"
    "  --json           print JSON instead of the table\n"
    "  --record FILE    also write the JSON to FILE (atomically; the target's: DIR/targets/NAME/" EA_REPLAY_NAME ";\n"
    "                   -: standard output, instead of the table)\n"
    "  --keep-from FILE a " EA_REPLAY_NAME " (the base target's): --json and --record give FILE's rows with the\n"
    "                   replayed captures' rows replaced, every other row kept byte for byte; refused unless\n"
    "                   that leaves one row per capture of the target (ci/golden-stage replays only what a\n"
    "                   lowering recaptured)\n"
    "Replays each capture's \"default\" run when every step is a Triton launch: generated inputs,\n"
    "captured cubins, grids and arguments; outputs must match the capture's checksums (or, where the capture\n"
    "holds eager's reference samples, a partition with tl.atomic_add, lie within 1e-2 relative L2 of them:\n"
    "\"" EA_REPLAY_OK_TOLERANT "\") and the per-call\n"
    "time must lie within " EA_CAPTURE_TOLERANCE_TEXT " of torch's compiled time from the capture. Needs a CUDA "
    "device.\n"
    "exit 1 when an output differs or a time is outside " EA_CAPTURE_TOLERANCE_TEXT "; 2 for bad input or no device\n";

/* Does the name of the list at a, len bytes, equal name? */
static int is_name(const char *a, size_t len, void *name)
{
    return strlen(name) == len && !strncmp(a, name, len);
}

/* Is name one of the comma-separated list's? */
static int listed(const char *list, const char *name)
{
    return ea_cli_each_name(list, is_name, (void *)name);
}

typedef struct {
    const char *list; /* for messages */
    const ea_captures *caps;
    ea_error *err;
} name_check;

/* One name of the list names a capture, else -1 (err). */
static int names_a_capture(const char *a, size_t len, void *arg)
{
    const name_check *c = arg;
    if (!len)
        return ea_fail(c->err, "--scope %s: expected capture names separated by single commas, got an empty name",
                       c->list);
    for (int i = 0; i < c->caps->n; i++)
        if (is_name(a, len, (void *)c->caps->items[i].scope))
            return 0;
    return ea_fail(c->err, "--scope %s: no capture named %.*s in %s/captures", c->list, (int)len, a, c->caps->dir);
}

/* Each name of --scope's comma list names a capture: one that names none would leave its stored row in place
 * under --keep-from, unnoticed. */
static int every_name_matches(const char *list, const ea_captures *caps, ea_error *err)
{
    name_check c = {list, caps, err};
    return ea_cli_each_name(list, names_a_capture, &c);
}

/* --keep-from's merger: one row per capture of caps, the target's, held or inherited. */
static cJSON *merge_rows(const char *file, const cJSON *base, const cJSON *fresh, const void *caps, ea_error *err)
{
    return ea_replay_keep_from(file, base, fresh, caps, err);
}

static cJSON *row_json(const ea_capture *c, const ea_replay_result *r, const char *verdict)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scope", c->scope);
    cJSON_AddStringToObject(o, "verdict", verdict);
    if (!r)
        return o;
    cJSON_AddNumberToObject(o, "outputs", r->outputs);
    cJSON_AddNumberToObject(o, "outputs_matching", r->outputs_matching);
    if (r->outputs_tolerant)
        cJSON_AddNumberToObject(o, "outputs_within_tolerance", r->outputs_tolerant);
    if (r->first_mismatch[0])
        cJSON_AddStringToObject(o, "mismatch", r->first_mismatch);
    if (r->timing.samples_us) {
        cJSON *t = cJSON_AddObjectToObject(o, "replay_us");
        cJSON_AddNumberToObject(t, "median", r->timing.per_call_us.median);
        cJSON_AddNumberToObject(t, "q1", r->timing.per_call_us.q1);
        cJSON_AddNumberToObject(t, "q3", r->timing.per_call_us.q3);
        cJSON_AddNumberToObject(t, "samples", (double)r->timing.per_call_us.count);
        cJSON_AddStringToObject(t, "policy", r->timing.policy);
        cJSON_AddNumberToObject(o, "torch_compiled_us", r->torch_compiled_us);
        cJSON_AddNumberToObject(o, "ratio", r->timing.per_call_us.median / r->torch_compiled_us);
    }
    cJSON_AddBoolToObject(o, "kernels_match", r->kernels_match);
    cJSON *k = cJSON_AddArrayToObject(o, "kernels");
    for (size_t i = 0; i < r->kernels.count; i++)
        cJSON_AddItemToArray(k, cJSON_CreateString(r->kernels.kernels[i].name));
    if (r->cupti_error[0])
        cJSON_AddStringToObject(o, "kernels_unavailable", r->cupti_error);
    return o;
}

static const char *verdict_of(const ea_replay_result *r)
{
    return ea_replay_verdict(r->outputs, r->outputs_matching, r->outputs_tolerant, r->kernels_match,
                             r->cupti_error[0] != 0, r->timing.per_call_us.median / r->torch_compiled_us);
}

static void print_row(const cJSON *row)
{
    const cJSON *t = cJSON_GetObjectItem(row, "replay_us");
    printf("%-42s %-18s", cJSON_GetObjectItem(row, "scope")->valuestring, cJSON_GetObjectItem(row, "verdict")->valuestring);
    if (t)
        printf(" %3d/%-3d %9.2f %8.2f %9.2f %6.2f %3d", cJSON_GetObjectItem(row, "outputs_matching")->valueint,
               cJSON_GetObjectItem(row, "outputs")->valueint, cJSON_GetObjectItem(t, "median")->valuedouble,
               cJSON_GetObjectItem(t, "q3")->valuedouble - cJSON_GetObjectItem(t, "q1")->valuedouble,
               cJSON_GetObjectItem(row, "torch_compiled_us")->valuedouble,
               cJSON_GetObjectItem(row, "ratio")->valuedouble, cJSON_GetArraySize(cJSON_GetObjectItem(row, "kernels")));
    const cJSON *m = cJSON_GetObjectItem(row, "mismatch");
    printf("%s%s\n", m ? "  " : "", m ? m->valuestring : "");
}

int ea_cmd_replay(int argc, char **argv)
{
    ea_cli_options o;
    int help, rc = ea_cli_parse("replay", "--golden --target --scope --json --record --keep-from", argc, argv, &o,
                                &help);
    int record_stdout; /* --record -: stdout carries the rows alone */
    if (!rc && !help)
        rc = ea_cli_stdout_once("replay", o.json, &o.record, 1, &record_stdout);
    if (rc || help)
        return rc ? rc : (fputs(ea_usage_replay, stdout), 0);
    int table = !o.json && !record_stdout;
    ea_error err;
    ea_captures caps;
    ea_target t;
    if (ea_target_resolve(o.golden, o.target, 1, &t, &err) || ea_target_captures_load(t.dir, &caps, &err) != 0)
        return ea_cli_fail(&err);
    if (o.scope && every_name_matches(o.scope, &caps, &err)) {
        ea_captures_free(&caps);
        return ea_cli_fail(&err);
    }
    int selected = 0, replayable = 0;
    /* every plan is checked on the host before any device work, so a CPU machine still validates */
    for (int i = 0; rc == 0 && i < caps.n; i++) {
        const ea_capture *c = &caps.items[i];
        const ea_capture_run *r = ea_capture_run_named(c, "default");
        if (o.scope && !listed(o.scope, c->scope))
            continue;
        selected++;
        replayable += r->replayable;
        if (r->replayable && ea_replay_check(c, r, &err) != 0)
            rc = ea_cli_fail(&err);
    }
    if (rc == 0 && !selected) {
        fprintf(stderr, "extern-audit replay: no capture%s%s in %s/captures\n", o.scope ? " named " : "",
                o.scope ? o.scope : "", t.dir);
        rc = 2;
    }
    ea_device_info dev;
    if (rc == 0 && !ea_device_probe(&dev)) {
        fprintf(stderr, "extern-audit replay: no CUDA device: %s (%d of %d captures replayable, their plans checked on "
                        "the host; the other %d have ATen steps)\n", dev.reason, replayable, selected, selected - replayable);
        rc = 2;
    }
    cJSON *rows = cJSON_CreateArray();
    int differ = 0;
    if (rc == 0 && table)
        printf("%-42s %-18s %7s %9s %8s %9s %6s %3s\n", "scope", "verdict", "outputs", "replay_us", "iqr_us", "torch_us",
               "ratio", "krn");
    for (int i = 0; rc == 0 && i < caps.n; i++) {
        const ea_capture *c = &caps.items[i];
        const ea_capture_run *r = ea_capture_run_named(c, "default");
        if (o.scope && !listed(o.scope, c->scope))
            continue;
        cJSON *row;
        if (!r->replayable) {
            row = row_json(c, NULL, EA_REPLAY_NOT_REPLAYABLE);
        } else {
            ea_replay_result res;
            /* the capture's own K: a graph launch's overhead is spread over K calls, so the two
             * per-call times are comparable only at the same K */
            ea_timer_config tc = {.calls_per_replay = (int)r->calls_per_replay, .replays = (int)r->replays};
            if (ea_replay_run(c, r, &tc, EA_REPLAY_WARM, &res, &err) != 0) {
                ea_replay_result_free(&res);
                rc = ea_cli_fail(&err);
                break;
            }
            const char *v = verdict_of(&res);
            differ |= strcmp(v, "ok") != 0;
            row = row_json(c, &res, v);
            ea_replay_result_free(&res);
        }
        if (table)
            print_row(row);
        cJSON_AddItemToArray(rows, row);
    }
    if (rc == 0 && o.keep_from &&
        ea_keep_from(o.keep_from, ea_replay_file_validate, merge_rows, &caps, &rows, &err))
        rc = ea_cli_fail(&err);
    if (rc == 0 && o.json)
        ea_cli_print_json(rows);
    /* only what the golden reader accepts is recorded */
    if (rc == 0 && o.record && ea_replay_file_validate(o.record, rows, &err))
        rc = ea_cli_fail(&err);
    else if (rc == 0 && record_stdout)
        ea_cli_print_json(rows);
    else if (rc == 0 && o.record && ej_write_atomic(o.record, rows, &err))
        rc = ea_cli_fail(&err);
    cJSON_Delete(rows);
    ea_captures_free(&caps);
    return rc ? rc : differ;
}
