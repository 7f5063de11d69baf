/* plan.c: the configuration block of a position-id scope (run.h), host only: what runs and why. */
#include <inttypes.h>
#include <stdio.h>

#include "base/json.h"
#include "kernels.h"
#include "reference.h"
#include "run.h"
#include "target/target_layout.h"

static void literals(cJSON *o, const cs_scope *s)
{
    cJSON *l = cJSON_AddObjectToObject(o, "literals");
    char text[160];
    if (s->kind == CS_MASK) {
        cJSON_AddNumberToObject(l, "pad", (double)s->pad);
        cJSON_AddNumberToObject(l, "past", (double)s->past);
        cJSON_AddNumberToObject(l, "offset", (double)s->offset);
        cJSON_AddBoolToObject(l, "mask_output", s->mask_out);
    } else if (s->kind == CS_PACKED) {
        cJSON_AddNumberToObject(l, "start", (double)s->start);
        cJSON_AddNumberToObject(l, "step", (double)s->step);
        if (s->first_full)
            snprintf(text, sizeof text, "full(%" PRId64 ")", s->first_value);
        else
            snprintf(text, sizeof text, "positions[0] - %" PRId64, s->first_value);
        cJSON_AddStringToObject(l, "first", text);
    } else {
        cJSON_AddNumberToObject(l, "fill", s->fill);
        cJSON_AddNumberToObject(l, "sub", s->sub);
        cJSON_AddNumberToObject(l, "add", (double)s->add);
    }
}

static void mask_shape_json(cJSON *o, const cs_mask_shape *sh, int64_t rows, int launch)
{
    const int64_t grid[2] = {rows, sh->split};
    cJSON_AddStringToObject(o, "variant", sh->name);
    cJSON_AddNumberToObject(o, "unroll", sh->pairs);
    if (!launch)
        return;
    cJSON_AddNumberToObject(o, "warps", sh->warps);
    cJSON_AddItemToObject(o, "grid", ej_int_array(grid, 2));
    cJSON_AddNumberToObject(o, "block", sh->warps * 32);
}

static void const_shape_json(cJSON *o, const cs_const_shape *sh, int64_t rows, int64_t cols, int launch)
{
    int64_t grid[2];
    cJSON_AddStringToObject(o, "variant", sh->name);
    cJSON_AddNumberToObject(o, "unroll", sh->unroll);
    if (!launch)
        return;
    cs_const_grid(sh, rows, cols, grid);
    cJSON_AddItemToObject(o, "grid", ej_int_array(grid, 2));
    cJSON_AddNumberToObject(o, "block", sh->threads);
}

static void packed_shape_json(cJSON *o, const cs_packed_shape *sh, int64_t rows, int launch)
{
    cJSON_AddStringToObject(o, "variant", sh->name);
    cJSON_AddNumberToObject(o, "unroll", sh->items);
    if (!launch)
        return;
    cJSON_AddNumberToObject(o, "grid", (double)rows);
    cJSON_AddNumberToObject(o, "block", sh->threads);
}

/* " (name: count units a thread, threads threads a CTA)": the packed and const variants' launch, for logs. */
static void per_thread_text(const char *name, int count, const char *unit, int threads, char *text, size_t n)
{
    snprintf(text, n, " (%s: %d %s%s a thread, %d threads a CTA)", name, count, unit, count > 1 ? "s" : "", threads);
}

void cs_packed_shape_text(const cs_packed_shape *sh, char *text, size_t n)
{
    per_thread_text(sh->name, sh->items, "item", sh->threads, text, n);
}

void cs_const_shape_text(const cs_const_shape *sh, char *text, size_t n)
{
    per_thread_text(sh->name, sh->unroll, "element", sh->threads, text, n);
}

void cs_mask_shape_text(const cs_mask_shape *sh, char *text, size_t n)
{
    snprintf(text, n, " (%s: %d pair%s, %d warp%s, %d segment%s)", sh->name, sh->pairs, sh->pairs > 1 ? "s" : "",
             sh->warps, sh->warps > 1 ? "s" : "", sh->split, sh->split > 1 ? "s" : "");
}

int cs_oracle_variants(cs_kind k)
{
    return k == CS_MASK     ? CS_MASK_VARIANTS
           : k == CS_CONST  ? CS_CONST_VARIANTS
           : k == CS_PACKED ? CS_PACKED_VARIANTS
                            : 0;
}

int cs_oracle_variant_json(const cs_scope *s, int v, cJSON *o, int launch)
{
    cs_mask_shape sh;
    cs_const_shape ch;
    cs_packed_shape ph;
    if (s->kind == CS_MASK && cs_mask_variant(v, s->cols, &sh))
        return mask_shape_json(o, &sh, s->rows, launch), 1;
    if (s->kind == CS_CONST && cs_const_variant(v, s->rows, s->cols, &ch))
        return const_shape_json(o, &ch, s->rows, s->cols, launch), 1;
    if (s->kind == CS_PACKED && cs_packed_variant(v, s->cols, &ph))
        return packed_shape_json(o, &ph, s->rows, launch), 1;
    return 0;
}

static cJSON *oracle_json(const cs_scope *s)
{
    static const char *const kernels[CS_CONST + 1] = {[CS_MASK] = "cs_mask_kernel<pairs>",
                                                      [CS_PACKED] = "cs_packed_kernel<threads, items, transpose>",
                                                      [CS_CONST] = "cs_const_kernel<variant>"};
    static const char *const scans[CS_CONST + 1] = {[CS_MASK] = "cumsum_scan_ballot", /* ids: prose.c */
                                                    [CS_PACKED] = "cumsum_scan_block"};
    cJSON *o = cJSON_CreateObject();
    /* the grid depends on the variant the run keeps */
    cJSON_AddStringToObject(o, "kernel", kernels[s->kind]);
    if (scans[s->kind])
        cJSON_AddStringToObject(o, "scan", scans[s->kind]);
    cJSON *vs = cJSON_AddArrayToObject(o, "variants"); /* the run times each, keeps the fastest that passed (ea_path_tune) */
    for (int v = 0; v < cs_oracle_variants(s->kind); v++) {
        cJSON *one = cJSON_CreateObject();
        if (cs_oracle_variant_json(s, v, one, 1))
            cJSON_AddItemToArray(vs, one);
        else
            cJSON_Delete(one);
    }
    return o;
}

/* The kind's note id (prose.c). */
static const char *kind_note(cs_kind k)
{
    return k == CS_MASK ? "cumsum_mask" : k == CS_PACKED ? "cumsum_packed" : "cumsum_const";
}

cJSON *cs_config_json(const cs_scope *s, const ea_capture *c, const ea_capture_run *run)
{
    cJSON *o = cJSON_CreateObject(), *outs, *cur, *notes;
    char text[256];
    cJSON_AddStringToObject(o, "kind", cs_kind_name(s->kind));
    cJSON_AddNumberToObject(o, "rows", (double)s->rows);
    cJSON_AddNumberToObject(o, "cols", (double)s->cols);
    literals(o, s);
    outs = cJSON_AddArrayToObject(o, "outputs");
    for (int i = 0; i < s->noutputs; i++) {
        ea_tensor_format(&s->outputs[i], text, sizeof text);
        cJSON_AddItemToArray(outs, cJSON_CreateString(text));
    }
    /* the token ids: the capture's generator; null: the graph builds its values */
    if (s->kind == CS_MASK)
        cJSON_AddItemToObject(o, "inputs", cJSON_Duplicate(c->inputs[0].values.json, 1));
    else
        cJSON_AddNullToObject(o, "inputs");
    ea_tf_capture(NULL, c->scope, text, sizeof text);
    cJSON_AddStringToObject(o, "capture", text);
    cJSON_AddStringToObject(o, "current_source", "inductor");
    cur = cJSON_AddArrayToObject(o, "current");
    for (int i = 0; i < run->nsteps; i++) {
        const ea_capture_step *st = &run->steps[i];
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "kernel", st->function);
        cJSON_AddItemToObject(l, "grid", ej_int_array(st->grid, 3));
        cJSON_AddItemToObject(l, "block", ej_int_array(st->block, 3));
        cJSON_AddNumberToObject(l, "shared", (double)st->shared);
        cJSON_AddItemToArray(cur, l);
    }
    cJSON_AddItemToObject(o, "oracle", oracle_json(s));
    cJSON_AddNumberToObject(o, "floor_bytes", (double)cs_floor_bytes(s));
    cJSON_AddNumberToObject(o, "floor_written_bytes", (double)cs_floor_written_bytes(s));
    notes = cJSON_AddArrayToObject(o, "notes");
    cJSON_AddItemToArray(notes, cJSON_CreateString(kind_note(s->kind)));
    cJSON_AddItemToArray(notes, cJSON_CreateString("cumsum_current_replayed"));
    return o;
}
