/* The position-id cumsum family on the host: which points it claims, every golden scope parsed and its
 * CPU reference hashed like torch's outputs (the capture checksums), hand-computed references, the
 * padded batch's properties, plans without a GPU, the verdict rule and the malformed-input messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../repros/cumsum/kernels_impl.h"
#include "../repros/cumsum/reference.h"
#include "../repros/cumsum/run.h"
#include "../repros/cumsum/run_impl.h"
#include "../repros/cumsum/scope_impl.h"
#include "target/gen.h"
#include "helpers.h"
#include "base/json.h"
#include "corpus/occurrences.h"
#include "target/target_layout.h"

#define GOLDEN "golden/occurrences/cumsum.json"
#define ROUTING_POINT "cumsum-bbbc239b67b8"

extern const ea_repro_family ea_family_cumsum;

static cJSON *golden(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(GOLDEN, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

static const cJSON *point_at(const cJSON *doc, const char *id, int *index)
{
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        if (!strcmp(cJSON_GetObjectItem(p, "point")->valuestring, id))
            return *index = i, p;
        i++;
    }
    cr_assert_fail("no golden point %s", id);
    return NULL;
}

static void has(const char *text, const char *part)
{
    cr_assert(strstr(text, part) != NULL, "expected \"%s\" in: %s", part, text);
}

Test(cumsum, claims_every_position_id_point_but_not_the_routing_one)
{
    cJSON *doc = golden();
    const cJSON *p;
    int claimed = 0, kinds[4] = {0};
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        const char *id = cJSON_GetObjectItem(p, "point")->valuestring;
        int mine = ea_family_cumsum.claims(p);
        cr_assert_eq(mine, strcmp(id, ROUTING_POINT) != 0, "%s claimed %d", id, mine);
        claimed += mine;
        if (mine) {
            const char *alias = test_alias_of("cumsum", id);
            cr_assert(alias && strcmp(alias, id), "%s has no alias of its own", id);
            cr_assert_str_eq(test_point_id("cumsum", alias), id);
            const cJSON *g;
            cJSON_ArrayForEach(g, cJSON_GetObjectItem(p, "scopes")) kinds[cs_kind_of(g)]++;
        }
    }
    cr_assert_eq(claimed, 11);
    cr_assert_eq(kinds[CS_MASK], 6);
    cr_assert_eq(kinds[CS_PACKED], 8, "four points, an infer and a train group each");
    cr_assert_eq(kinds[CS_CONST], 1);
    cJSON_Delete(doc);
}

Test(cumsum, scope_resolution_leaves_the_routing_point_out)
{
    cJSON *docs[EA_AUDIT_OPS];
    const char *files[EA_AUDIT_OPS];
    char paths[EA_AUDIT_OPS][128];
    ea_error err;
    ea_scope_ref refs[256];
    int n;
    test_golden_docs(docs, files, paths);
    cr_assert_eq(ea_repro_resolve(docs, files, "all", refs, 256, &n, &err), 0, "%s", err.msg);
    int mine = 0;
    for (int i = 0; i < n; i++)
        if (refs[i].family == &ea_family_cumsum) {
            mine++;
            cr_assert_str_neq(cJSON_GetObjectItem(refs[i].point, "point")->valuestring, ROUTING_POINT);
        }
    cr_assert_eq(mine, 11);
    cr_assert_eq(ea_repro_resolve(docs, files, "roberta-infer", refs, 64, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(refs[0].family, &ea_family_cumsum);
    /* the routing point is no cumsum scope: naming it finds the routing family's point only */
    cr_assert_eq(ea_repro_resolve(docs, files, ROUTING_POINT, refs, 64, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(refs[0].family->claims(refs[0].point), 1);
    cr_assert_str_eq(refs[0].family->name, "routing_cumsum");
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        cJSON_Delete(docs[i]);
}

/* Every claimed group: parsed, its capture found and its outputs checked, the reference on the capture's
 * inputs hashing to torch's checksums. */
Test(cumsum, reference_matches_every_capture_checksum)
{
    cJSON *doc = golden();
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir("golden/targets/H200-torch2.11.0+cu130", &caps, &err), 0, "%s", err.msg);
    const cJSON *p;
    int index = 0, checked = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        for (int g = 0; ea_family_cumsum.claims(p) && g < cJSON_GetArraySize(cJSON_GetObjectItem(p, "scopes")); g++) {
            cs_scope s;
            cr_assert_eq(cs_scope_parse(p, GOLDEN, index, g, &s, &err), 0, "%s", err.msg);
            const ea_capture *c = ea_capture_of_point(&caps, p, g, NULL);
            cr_assert_not_null(c, "no capture for %s", s.scope_id);
            cr_assert_eq(cs_outputs_check(&s, c, &err), 0, "%s", err.msg);
            int64_t *ids;
            void *out[CS_MAX_OUTPUTS];
            cr_assert_eq(cs_inputs_make(&s, c, &ids, &err), 0, "%s", err.msg);
            for (int i = 0; i < s.noutputs; i++)
                out[i] = malloc((size_t)cs_output_bytes(&s, i));
            cs_reference(&s, ids, out);
            for (int i = 0; i < s.noutputs; i++) {
                cr_assert_eq(ea_checksum(&s.outputs[i], out[i]), c->outputs[i].checksum, "%s output %d", s.scope_id, i);
                free(out[i]);
            }
            free(ids);
            checked++;
        }
        index++;
    }
    cr_assert_eq(checked, 15);
    ea_captures_free(&caps);
    cJSON_Delete(doc);
}

Test(cumsum, mask_reference_by_hand)
{
    cs_scope s = {.kind = CS_MASK, .rows = 2, .cols = 4, .pad = 1, .past = 0, .offset = 1, .mask_out = 1, .noutputs = 2};
    s.outputs[0] = (ea_tensor){.dtype = EA_B8, .ndim = 2, .sizes = {2, 4}, .strides = {4, 1}};
    s.outputs[1] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {2, 4}, .strides = {4, 1}};
    int64_t ids[8] = {5, 1, 7, 1, 1, 1, 3, 4}, pos[8];
    uint8_t mask[8];
    void *out[2] = {mask, pos};
    cs_reference(&s, ids, out);
    const int64_t want[8] = {2, 1, 3, 1, 1, 1, 2, 3};
    const uint8_t want_mask[8] = {1, 0, 1, 0, 0, 0, 1, 1};
    cr_assert_arr_eq(pos, want, sizeof want);
    cr_assert_arr_eq(mask, want_mask, sizeof want_mask);
    s.past = 10; /* (cumsum + past) * mask: a pad position stays at the offset */
    cs_reference(&s, ids, out);
    const int64_t past[8] = {12, 1, 13, 1, 1, 1, 12, 13};
    cr_assert_arr_eq(pos, past, sizeof past);
}

Test(cumsum, packed_and_const_references_by_hand)
{
    cs_scope s = {.kind = CS_PACKED, .rows = 2, .cols = 4, .start = 0, .step = 1, .first_full = 1, .first_value = -1,
                  .noutputs = 2};
    s.outputs[0] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {1, 4}, .strides = {4, 1}};
    s.outputs[1] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {2, 4}, .strides = {4, 1}};
    int64_t pos[4], cum[8];
    void *out[2] = {pos, cum};
    cs_reference(&s, NULL, out);
    const int64_t iota[4] = {0, 1, 2, 3}, zeros[8] = {0};
    cr_assert_arr_eq(pos, iota, sizeof iota);
    cr_assert_arr_eq(cum, zeros, sizeof zeros, "GPT-2's full(-1) before position 0: every difference is 1");
    s.first_value = 5; /* a first difference of -5 starts a new sequence at 0 */
    cs_reference(&s, NULL, out);
    const int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cr_assert_arr_eq(cum, ones, sizeof ones);
    s.first_full = 0, s.first_value = 1, s.start = 7; /* positions[0] - 1 before position 0 */
    cs_reference(&s, NULL, out);
    const int64_t seven[4] = {7, 8, 9, 10};
    cr_assert_arr_eq(pos, seven, sizeof seven);
    cr_assert_arr_eq(cum, zeros, sizeof zeros);

    cs_scope k = {.kind = CS_CONST, .rows = 2, .cols = 3, .fill = 1, .sub = 1, .add = 2, .noutputs = 1};
    k.outputs[0] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {2, 3}, .strides = {3, 1}};
    int64_t o[6];
    void *ko[1] = {o};
    cs_reference(&k, NULL, ko);
    const int64_t opt[6] = {2, 3, 4, 2, 3, 4};
    cr_assert_arr_eq(o, opt, sizeof opt);
}

Test(cumsum, compare_counts_poison_and_mismatches)
{
    cs_scope s = {.kind = CS_CONST, .rows = 1, .cols = 4, .noutputs = 1};
    s.outputs[0] = (ea_tensor){.dtype = EA_I64, .ndim = 2, .sizes = {1, 4}, .strides = {4, 1}};
    const int64_t want[4] = {2, 3, 4, 5}, got[4] = {2, -1, 7, 5};
    ea_check c;
    cs_compare(&s, 0, got, want, &c);
    cr_assert_eq(c.unwritten, 1);
    cr_assert_eq(c.mismatched, 1);
    cr_assert_float_eq(c.max_abs, 3.0, 1e-12);
    cs_compare(&s, 0, want, want, &c);
    cr_assert_eq(c.unwritten + c.mismatched, 0);
    cr_assert_float_eq(c.rel_l2, 0.0, 1e-12);
}

/* The padded batch on every golden mask scope: row 0 full, every length in [1, cols], the mask exactly
 * the prefix, the tail all pad, some rows padded, and the same batch every time. */
Test(cumsum, padded_batch_properties)
{
    cJSON *doc = golden();
    ea_captures caps;
    ea_error err;
    cr_assert_eq(ea_captures_load_dir("golden/targets/H200-torch2.11.0+cu130", &caps, &err), 0, "%s", err.msg);
    const cJSON *p;
    int index = 0, scopes = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        cs_scope s;
        if (!ea_family_cumsum.claims(p) || cs_kind_of(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "scopes"), 0)) != CS_MASK) {
            index++;
            continue;
        }
        cr_assert_eq(cs_scope_parse(p, GOLDEN, index++, 0, &s, &err), 0, "%s", err.msg);
        const ea_capture *c = ea_capture_of_point(&caps, p, 0, NULL);
        int64_t *ids, *again, len[64], len2[64], padded = 0;
        cr_assert_eq(cs_inputs_make(&s, c, &ids, &err), 0, "%s", err.msg);
        cr_assert_eq(cs_inputs_make(&s, c, &again, &err), 0, "%s", err.msg);
        cr_assert_leq(s.rows, 64);
        cs_pad_tails(&s, CS_PAD_SEED, ids, len);
        cs_pad_tails(&s, CS_PAD_SEED, again, len2);
        cr_assert_arr_eq(ids, again, (size_t)(s.rows * s.cols * 8), "deterministic");
        cr_assert_arr_eq(len, len2, (size_t)s.rows * 8);
        cr_assert_eq(len[0], s.cols, "row 0 is the batch's longest sequence");
        for (int64_t r = 0; r < s.rows; r++) {
            cr_assert(len[r] >= 1 && len[r] <= s.cols);
            padded += len[r] < s.cols;
            for (int64_t j = 0; j < s.cols; j++)
                cr_assert_eq(ids[r * s.cols + j] == s.pad, j >= len[r], "%s row %ld col %ld", s.scope_id, (long)r,
                             (long)j);
        }
        cr_assert_geq(padded, s.rows / 2, "%s: %ld of %ld rows padded", s.scope_id, (long)padded, (long)s.rows);
        free(ids);
        free(again);
        scopes++;
    }
    cr_assert_eq(scopes, 6);
    ea_captures_free(&caps);
    cJSON_Delete(doc);
}

Test(cumsum, plans_without_a_gpu)
{
    cJSON *doc = golden();
    const cJSON *p;
    int index = 0, results = 0;
    ea_error err;
    ea_run_opts o = {.faithful = 1, .sm_count = 132};
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "points")) {
        if (ea_family_cumsum.claims(p)) {
            cJSON *arr = test_family_points(&ea_family_cumsum, p, GOLDEN, index, &o, 0, &err), *r;
            cr_assert_not_null(arr, "%s", err.msg);
            cr_assert_eq(cJSON_GetArraySize(arr), cJSON_GetArraySize(cJSON_GetObjectItem(p, "scopes")));
            cJSON_ArrayForEach(r, arr) {
                const cJSON *cfg = cJSON_GetObjectItem(r, "config");
                cr_assert_str_eq(cJSON_GetObjectItem(r, "family")->valuestring, "cumsum");
                cr_assert_str_eq(cJSON_GetObjectItem(cfg, "current_source")->valuestring, "inductor");
                cr_assert(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble > 0);
                cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(cfg, "notes")) >= 1);
                cr_assert(cJSON_GetArraySize(cJSON_GetObjectItem(cfg, "current")) >= 1);
                cr_assert_not_null(cJSON_GetObjectItem(cJSON_GetObjectItem(cfg, "oracle"), "kernel"));
                results++;
            }
            cJSON_Delete(arr);
        }
        index++;
    }
    cr_assert_eq(results, 15);
    cJSON_Delete(doc);
}

Test(cumsum, plan_floor_bytes_and_cli)
{
    cli_run r = test_cli("run", "--scope", "longformer-train", "--plan", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_eq(cJSON_GetArraySize(j), 1);
    const cJSON *cfg = cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "config");
    /* ids read (8 x 1024 i64) + mask written (b8) + positions written (i64) */
    cr_assert_float_eq(cJSON_GetObjectItem(cfg, "floor_bytes")->valuedouble, 8 * 1024 * (8 + 1 + 8), 0.5);
    cr_assert_float_eq(cJSON_GetObjectItem(cfg, "floor_written_bytes")->valuedouble, 8 * 1024 * (1 + 8), 0.5);
    const cJSON *orc = cJSON_GetObjectItem(cfg, "oracle"), *v;
    cr_assert_str_eq(cJSON_GetObjectItem(orc, "kernel")->valuestring, "cs_mask_kernel<pairs>");
    /* every variant of a 1024-column row: one CTA of 16, 8 or 4 warps, or 4, 8 or 16 CTAs per row */
    const char *const names[] = {"row", "row", "row", "split-4w", "split-2w", "split-1w"};
    const int want[][4] = {{1, 16, 1, 512}, {2, 8, 1, 256}, {4, 4, 1, 128}, {1, 4, 4, 128}, {1, 2, 8, 64}, {1, 1, 16, 32}};
    int n = 0;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(orc, "variants")) {
        cr_assert_lt(n, 6);
        cr_assert_str_eq(cJSON_GetObjectItem(v, "variant")->valuestring, names[n]);
        cr_assert_eq(cJSON_GetObjectItem(v, "unroll")->valueint, want[n][0], "pairs a lane: its 16-byte chunks");
        cr_assert_eq(cJSON_GetObjectItem(v, "warps")->valueint, want[n][1]);
        cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "grid"), 0)->valueint, 8);
        cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "grid"), 1)->valueint, want[n][2]);
        cr_assert_eq(cJSON_GetObjectItem(v, "block")->valueint, want[n][3]);
        n++;
    }
    cr_assert_eq(n, 6);
    has(r.out, "triton_per_fused_add_convert_element_type_cumsum_mul_ne_0");
    cJSON_Delete(j);
    cli_run_free(&r);
    r = test_cli("run", "--scope", "gptj", "--plan", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    cr_assert_eq(cJSON_GetArraySize(j), 2, "GPT-J's infer and train groups");
    /* no inputs: positions i64[1, 128] and the cumsum i64[1, 128] written */
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "config"), "floor_bytes")
                           ->valuedouble, 2 * 128 * 8, 0.5);
    cJSON_Delete(j);
    cli_run_free(&r);
}

/* The mask oracle's variants cover every column of a row exactly once and skip the shapes another
 * variant already has: a segment is warps x 64 x pairs columns, split segments cover the row. */
Test(cumsum, mask_variants)
{
    const int64_t widths[] = {1, 2, 63, 64, 65, 127, 128, 129, 500, 512, 1024, 2047, 2048, 2049, 5000, 4194240};
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
        const int64_t cols = widths[i];
        cs_mask_shape got[CS_MASK_VARIANTS];
        int n = 0, rows_whole = 0;
        for (int v = 0; v < CS_MASK_VARIANTS; v++) {
            cs_mask_shape sh;
            if (!cs_mask_variant(v, cols, &sh))
                continue;
            const int64_t seg = (int64_t)sh.warps * 64 * sh.pairs;
            cr_assert(sh.pairs == 1 || sh.pairs == 2 || sh.pairs == 4, "cols %ld", (long)cols);
            cr_assert(sh.warps >= 1 && sh.warps <= CS_MASK_MAX_WARPS, "cols %ld: %d warps", (long)cols, sh.warps);
            cr_assert(seg * sh.split >= cols && seg * (sh.split - 1) < cols, "cols %ld: %d segments of %ld",
                      (long)cols, sh.split, (long)seg);
            cr_assert_str_eq(sh.name, v < 3 ? "row" : v == 3 ? "split-4w" : v == 4 ? "split-2w" : "split-1w");
            cr_assert(v < 3 || sh.warps == 8 >> (v - 2), "cols %ld variant %d: %d warps", (long)cols, v, sh.warps);
            cr_assert_eq(sh.split == 1, v < 3, "cols %ld variant %d: a row variant has one segment, a split more",
                         (long)cols, v);
            for (int k = 0; k < n; k++)
                cr_assert(got[k].pairs != sh.pairs || got[k].warps != sh.warps || got[k].split != sh.split,
                          "cols %ld: variant %d repeats a shape", (long)cols, v);
            rows_whole += sh.split == 1;
            got[n++] = sh;
        }
        cr_assert_geq(n, 1, "cols %ld: no variant applies", (long)cols);
        cr_assert_eq(rows_whole > 0, cols <= 4 * 64 * CS_MASK_MAX_WARPS, "cols %ld: one CTA a row up to 4 x 64 x 32",
                     (long)cols);
    }
    cs_mask_shape sh;
    cr_assert_eq(cs_mask_variant(0, 128, &sh), 1);
    cr_assert_eq(sh.warps, 2, "M2M100's 128 columns: a row of 2 warps, as Inductor's 64 threads");
    cr_assert_eq(cs_mask_variant(2, 128, &sh), 0, "4 pairs a lane would leave half of one warp idle");
    cr_assert_eq(cs_mask_variant(4, 128, &sh), 0, "segments of 128 columns do not split a row of 128");
    cr_assert_eq(cs_mask_variant(5, 128, &sh), 1);
    cr_assert_eq(sh.split, 2);
    cr_assert_eq(cs_mask_variant(0, 2049, &sh), 0, "over 32 warps");
    cr_assert_eq(cs_mask_variant(5, 4194241, &sh), 0, "over 65535 segments");
    cr_assert_eq(cs_mask_variant(-1, 128, &sh), 0);
    cr_assert_eq(cs_mask_variant(CS_MASK_VARIANTS, 128, &sh), 0);
    cr_assert_eq(cs_mask_variant(0, 0, &sh), 0);
}

/* Which launches take the width-compiled mask kernel: the row variants that tile a compiled width exactly
 * (every golden mask point: M2M100 128, Roberta 512, Longformer 1024), never a split one or another width. */
Test(cumsum, the_mask_oracle_runs_a_width_compiled_kernel_on_every_row_variant_of_the_golden_widths)
{
    const int64_t compiled[] = {128, 256, 512, 1024, 2048}, other[] = {64, 127, 130, 500, 1000, 2049, 4096};
    for (size_t i = 0; i < sizeof compiled / sizeof *compiled; i++) {
        int rows = 0;
        for (int v = 0; v < CS_MASK_VARIANTS; v++) {
            cs_mask_shape sh;
            if (!cs_mask_variant(v, compiled[i], &sh))
                continue;
            cr_assert_eq(cs_mask_fixed(&sh, compiled[i]), sh.split == 1, "cols %ld variant %d (%s)", (long)compiled[i],
                         v, sh.name);
            rows += sh.split == 1;
        }
        cr_assert_geq(rows, 1, "cols %ld", (long)compiled[i]);
    }
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        for (int v = 0; v < CS_MASK_VARIANTS; v++) {
            cs_mask_shape sh;
            if (cs_mask_variant(v, other[i], &sh))
                cr_assert_not(cs_mask_fixed(&sh, other[i]), "cols %ld variant %d", (long)other[i], v);
        }
    /* a shape that covers more than the row (a row variant of another width) is not the compiled one */
    cs_mask_shape wide = {"row", 1, 4, 1};
    cr_assert_not(cs_mask_fixed(&wide, 128));
}

/* The const oracle converts through i32 only where every value fits: OPT's row (fill 1, sub 1, 2048 columns)
 * does; a sub past 2^30, a NaN, a negative fill do not. */
Test(cumsum, the_const_oracle_converts_through_i32_only_where_every_value_fits)
{
    cr_assert(cs_const_i32(2048, 1, 1));
    cr_assert(cs_const_i32(16777215, 1, 0));
    cr_assert_not(cs_const_i32(2048, 1, 1073741824.0));
    cr_assert_not(cs_const_i32(2048, 1, -1073741000.0));
    cr_assert_not(cs_const_i32(2048, 1, 0.0 / 0.0));
    cr_assert_not(cs_const_i32(2048, -1, 0));
}

/* Every shape has the column variant; the flat ones only while a 32-bit index covers the output, the paired ones
 * only on rows of even width (a pair never straddles two), the compiled widths only at their width. */
Test(cumsum, const_variants_apply_where_their_indices_and_pairs_fit)
{
    cs_const_shape sh;
    int64_t grid[2];
    for (int v = 0; v < CS_CONST_VARIANTS; v++)
        cr_assert_eq(cs_const_variant(v, 4, 2048, &sh), 1, "variant %d on OPT's 4 x 2048", v);
    cr_assert_eq(cs_const_variant(0, 4, 2048, &sh), 1);
    cs_const_grid(&sh, 4, 2048, grid);
    cr_assert(grid[0] == 8 && grid[1] == 4, "col: a thread per column, rows down: [%ld, %ld]", (long)grid[0],
              (long)grid[1]);
    cr_assert_eq(cs_const_variant(1, 4, 2048, &sh), 1);
    cs_const_grid(&sh, 4, 2048, grid);
    cr_assert(grid[0] == 64 && grid[1] == 1 && sh.threads == 128, "flat: Inductor's 64 x 128: [%ld, %ld] x %d",
              (long)grid[0], (long)grid[1], sh.threads);
    cr_assert_eq(cs_const_variant(3, 4, 2048, &sh), 1);
    cs_const_grid(&sh, 4, 2048, grid);
    cr_assert_eq(grid[0], 32, "flat-pair: two elements a thread");
    cr_assert_eq(cs_const_variant(3, 3, 257, &sh), 0, "an odd row has no pairs");
    cr_assert_eq(cs_const_variant(4, 4, 2048, &sh), 1);
    cr_assert(sh.fixed && sh.unroll == 1, "flat-w: OPT's width compiled in");
    cs_const_grid(&sh, 4, 2048, grid);
    cr_assert_eq(grid[0] * sh.threads, 4 * 2048, "the grid covers the output exactly");
    cr_assert_eq(cs_const_variant(4, 4, 4096, &sh), 0, "4096 is not a width compiled in");
    cr_assert_eq(cs_const_variant(4, 4, 300, &sh), 0, "300 is no power of two");
    cr_assert_eq(cs_const_variant(4, 1, 64, &sh), 0, "64 is below the widths compiled in");
    cr_assert_eq(cs_const_variant(5, 3, 128, &sh), 0, "384 elements: no whole CTAs of 256");
    cr_assert_eq(cs_const_variant(5, 2, 128, &sh), 1);
    cr_assert_eq(cs_const_variant(1, 3, 257, &sh), 1);
    cr_assert_eq(cs_const_variant(1, 1048576, 2048, &sh), 0, "2^31 elements: past a 32-bit index");
    cr_assert_eq(cs_const_variant(0, 1048576, 2048, &sh), 1, "the column variant indexes rows in 64 bits");
    cs_const_grid(&sh, 1048576, 2048, grid);
    cr_assert_eq(grid[1], CS_CONST_MAX_ROWS);
    const int64_t most = (INT32_MAX - 1024) / 2048; /* rows a flat index covers at width 2048 */
    cr_assert_eq(cs_const_variant(1, most, 2048, &sh), 1);
    cr_assert_eq(cs_const_variant(1, most + 1, 2048, &sh), 0, "one row past 2^31 - 1025 elements");
    cr_assert_eq(cs_const_variant(0, 1, INT32_MAX - CS_CONST_THREADS, &sh), 1);
    cr_assert_eq(cs_const_variant(0, 1, INT32_MAX - CS_CONST_THREADS + 1, &sh), 0,
                 "the last CTA's column index would pass 2^31 - 1");
    cr_assert_eq(cs_const_variant(CS_CONST_VARIANTS, 4, 2048, &sh), 0);
    cr_assert_eq(cs_const_variant(-1, 4, 2048, &sh), 0);
    cr_assert_eq(cs_const_variant(0, 0, 2048, &sh), 0);
    cr_assert_eq(cs_const_variant(0, 4, 0, &sh), 0);
}

/* A paired store needs a 16-byte aligned output: refused before any launch, so no GPU is needed to see it. */
Test(cumsum, a_paired_const_variant_refuses_a_misaligned_output)
{
    cs_const_shape sh;
    for (int v = 3; v <= 5; v += 2) {
        cr_assert_eq(cs_const_variant(v, 4, 2048, &sh), 1);
        cr_assert_eq(sh.unroll, 2);
        cr_assert_eq(cs_oracle_const(&sh, 4, 2048, 1, 1, 2, (int64_t *)8, NULL), cudaErrorMisalignedAddress, "%s",
                     sh.name);
    }
}

/* Each variant's block is compiled into its kernel: a shape with a block or unroll no kernel is compiled for
 * would index with the wrong block, so it is refused before any launch (no GPU needed to see it). */
Test(cumsum, a_const_shape_no_kernel_is_compiled_for_is_refused)
{
    const cs_const_shape odd[] = {{"flat-96", 96, 1, 1, 0}, {"flat-64-pair", 64, 2, 1, 0}, {"col-128", 128, 1, 0, 0},
                                  {"flat-4", 128, 4, 1, 1}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        cr_assert_eq(cs_oracle_const(&odd[i], 4, 2048, 1, 1, 2, (int64_t *)16, NULL), cudaErrorInvalidValue, "%s",
                     odd[i].name);
}

/* The packed oracle's variants: the fewest items covering the row, no CTA whose half would do, a transposing one
 * only where the row fits its shared memory; "t128" covers every row up to 2048 columns. */
Test(cumsum, packed_variants)
{
    const struct {
        int64_t cols;
        int applies[CS_PACKED_VARIANTS], items[CS_PACKED_VARIANTS];
    } rows[] = {
        {1, {1, 1, 0, 0, 0, 0, 0, 0}, {1, 1}},
        {128, {1, 1, 0, 0, 0, 0, 0, 0}, {1, 1}},
        {129, {1, 1, 1, 1, 0, 0, 0, 0}, {2, 2, 1, 1}},
        {1024, {1, 1, 1, 1, 1, 1, 1, 1}, {8, 8, 4, 4, 2, 2, 1, 1}},      /* GPT-2's rows */
        {2048, {1, 1, 1, 1, 1, 1, 1, 1}, {16, 16, 8, 8, 4, 4, 2, 2}},
        {2049, {0, 0, 1, 1, 1, 1, 1, 1}, {0, 0, 16, 16, 8, 8, 4, 4}},
        {4097, {0, 0, 0, 0, 1, 0, 1, 0}, {0, 0, 0, 0, 16, 0, 8, 0}},    /* past a transposing CTA's shared memory */
        {CS_PACKED_MAX_COLS, {0, 0, 0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0, 16, 0}},
        {CS_PACKED_MAX_COLS + 1, {0}, {0}},
        {0, {0}, {0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        for (int v = 0; v < CS_PACKED_VARIANTS; v++) {
            cs_packed_shape sh;
            int got = cs_packed_variant(v, rows[i].cols, &sh);
            cr_assert_eq(got, rows[i].applies[v], "cols %ld variant %d", (long)rows[i].cols, v);
            if (!got)
                continue;
            cr_assert_eq(sh.items, rows[i].items[v], "cols %ld variant %d: items", (long)rows[i].cols, v);
            cr_assert_eq(sh.threads, 128 << (v / 2));
            cr_assert_eq(sh.transpose, v % 2);
            cr_assert_eq(!!strstr(sh.name, "-transpose"), v % 2, "%s", sh.name);
        }
    cs_packed_shape sh;
    cr_assert_eq(cs_packed_variant(-1, 128, &sh), 0);
    cr_assert_eq(cs_packed_variant(CS_PACKED_VARIANTS, 128, &sh), 0);
}

/* A packed shape no kernel is compiled for (a block, items or a transposing row in shared memory) or one that
 * does not cover the row is refused before any launch. */
Test(cumsum, a_packed_shape_no_kernel_is_compiled_for_is_refused)
{
    const cs_packed_shape odd[] = {{"t96", 96, 1, 0}, {"t128-3", 128, 3, 0}, {"t1024-transpose", 1024, 16, 1},
                                   {"t128-short", 128, 1, 0}};
    const int64_t cols[] = {96, 384, 16384, 129};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        cr_assert_eq(cs_oracle_packed(&odd[i], 1, cols[i], 0, -1, 1, (int64_t *)16, (int64_t *)16, NULL),
                     cudaErrorInvalidValue, "%s", odd[i].name);
}

Test(cumsum, verdict_rule)
{
    cr_assert_str_eq(cs_verdict(1.0, 1.0), "no_material_headroom");
    cr_assert_str_eq(cs_verdict(1.09, 1.0), "no_material_headroom");
    cr_assert_str_eq(cs_verdict(0.8, 1.0), "no_material_headroom", "a slower oracle is no headroom");
    cr_assert_str_eq(cs_verdict(2.5, 1.0), "headroom");
    cr_assert_null(cs_verdict(1.0, 0.0));
    cr_assert_null(cs_verdict(0.0 / 0.0, 1.0));
}

/* ---- malformed inputs: each message names the file, the JSON path and what was expected ---- */

static cJSON *node_of(cJSON *point, int k)
{
    return cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(point, "scopes"), 0), "scope"),
                            "nodes"),
        k);
}

static void parse_fails(cJSON *point, int index, const char *part1, const char *part2)
{
    cs_scope s;
    ea_error err;
    cr_assert_eq(cs_scope_parse(point, GOLDEN, index, 0, &s, &err), -1);
    has(err.msg, GOLDEN);
    has(err.msg, part1);
    has(err.msg, part2);
}

Test(cumsum, malformed_mask_scopes)
{
    cJSON *doc = golden();
    int index;
    const cJSON *orig = point_at(doc, "cumsum-3268ee8031ea", &index);
    cJSON *p = cJSON_Duplicate(orig, 1);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(p, 3), "args"), 1, cJSON_CreateNumber(0));
    parse_fails(p, index, "scopes[0].scope.nodes[3]", "expected a cumsum along the last dim");
    cJSON_Delete(p);

    p = cJSON_Duplicate(orig, 1); /* nodes: input, ne, to i32, cumsum, to i32, add past, mul, ... */
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(p, 6), "args"), 1, cJSON_Parse("{\"ref\": 1}"));
    parse_fails(p, index, "scope.nodes[6].args[1].ref", "expected 2 (nodes[2]), got 1");
    cJSON_Delete(p);

    p = cJSON_Duplicate(orig, 1);
    cJSON_ReplaceItemInObject(node_of(p, 2), "args", cJSON_Parse("[{\"ref\": 1}, {\"dtype\": \"i8\"}]"));
    parse_fails(p, index, "nodes[2].args[1].dtype", "expected \"i32\", got \"i8\"");
    cJSON_Delete(p);

    p = cJSON_Duplicate(orig, 1);
    cJSON_DeleteItemFromObject(node_of(p, 1), "args");
    parse_fails(p, index, "scope.nodes[1]", "args");
    cJSON_Delete(p);

    p = cJSON_Duplicate(orig, 1);
    cJSON_ReplaceItemInObject(node_of(p, 1), "op", cJSON_CreateString("aten.eq.Scalar"));
    parse_fails(p, index, "scopes[0].scope.nodes", "expected a position-id scope");
    cJSON_Delete(p);

    p = cJSON_Duplicate(orig, 1);
    cJSON_ReplaceItemInObject(node_of(p, 0), "ann", cJSON_CreateString("i64[s0, 512][512, 1]cuda:0"));
    parse_fails(p, index, "nodes[0].ann", "expected static sizes");
    cJSON_Delete(p);
    cJSON_Delete(doc);
}

Test(cumsum, malformed_packed_and_const_scopes)
{
    cJSON *doc = golden();
    int index;
    cJSON *p = cJSON_Duplicate(point_at(doc, "cumsum-30bb280c097a", &index), 1);
    /* GPT-J: iota, add, unsqueeze, slice, sub, cat, slice, slice, sub(hi, lo), ne, cumsum */
    cJSON *sub = cJSON_GetObjectItem(node_of(p, 8), "args");
    cJSON_ReplaceItemInArray(sub, 0, cJSON_Parse("{\"ref\": 7}"));
    cJSON_ReplaceItemInArray(sub, 1, cJSON_Parse("{\"ref\": 6}"));
    parse_fails(p, index, "nodes[8].args[0].ref", "expected 6 (nodes[6]), got 7");
    cJSON_Delete(p);

    p = cJSON_Duplicate(point_at(doc, "cumsum-30bb280c097a", &index), 1);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(node_of(p, 0), "kwargs"), "step", cJSON_CreateNumber(2));
    parse_fails(p, index, "nodes[0].kwargs.step", "expected 1, got 2");
    cJSON_Delete(p);

    p = cJSON_Duplicate(point_at(doc, "cumsum-fbc1a7b5b165", &index), 1);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(node_of(p, 0), "args"), 1, cJSON_CreateNumber(0.5));
    parse_fails(p, index, "nodes[0].args[1]", "expected a non-negative integer fill");
    cJSON_Delete(p);

    p = cJSON_Duplicate(point_at(doc, "cumsum-fbc1a7b5b165", &index), 1);
    cJSON_ReplaceItemInObject(node_of(p, 2), "op", cJSON_CreateString("aten.mul.Tensor"));
    parse_fails(p, index, "nodes[2].op", "expected \"aten.sub.Tensor\", got \"aten.mul.Tensor\"");
    cJSON_Delete(p);

    p = cJSON_Duplicate(point_at(doc, ROUTING_POINT, &index), 1);
    parse_fails(p, index, "scopes[0].scope.nodes", "got a chain starting with \"aten.topk.default\"");
    cJSON_Delete(p);
    cJSON_Delete(doc);
}

Test(cumsum, capture_outputs_and_missing_captures)
{
    cJSON *doc = golden();
    ea_captures caps;
    ea_error err;
    int index;
    const cJSON *p = point_at(doc, "cumsum-2c7a27c1f3e3", &index);
    cs_scope s;
    cr_assert_eq(ea_captures_load_dir("golden/targets/H200-torch2.11.0+cu130", &caps, &err), 0, "%s", err.msg);
    cr_assert_eq(cs_scope_parse(p, GOLDEN, index, 0, &s, &err), 0, "%s", err.msg);
    const ea_capture *c = ea_capture_of_point(&caps, p, 0, NULL);
    s.outputs[1].dtype = EA_I32;
    cr_assert_eq(cs_outputs_check(&s, c, &err), -1);
    has(err.msg, "golden/targets/H200-torch2.11.0+cu130/captures/cumsum-2c7a27c1f3e3-8b05912dbbf4/capture.json $.outputs[1]: expected i32[32, 512]");
    s.mask_out = 0, s.noutputs = 1;
    cr_assert_eq(cs_outputs_check(&s, c, &err), -1);
    has(err.msg, "$.outputs: expected 1 outputs");
    s.mask_out = 1, s.noutputs = 2, s.outputs[1].dtype = EA_I64;
    cr_assert_eq(cs_outputs_check(&s, c, &err), 0, "%s", err.msg);
    s.cols = 256; /* the ids no longer the scope's rows x cols */
    cr_assert_eq(cs_outputs_check(&s, c, &err), -1);
    has(err.msg, "capture.json $.inputs[0]: expected the token ids, i64 with 32 x 256 elements, got i64[32, 512]");
    ea_capture none = *c; /* a mask scope's capture without its ids */
    none.ninputs = 0;
    s.cols = 512;
    cr_assert_eq(cs_outputs_check(&s, &none, &err), -1);
    has(err.msg, "capture.json $.inputs: expected one i64 input (the token ids), got 0 inputs");
    cr_assert_eq(cs_scope_parse(p, GOLDEN, index, 1, &s, &err), -1, "the point has one scope group");
    has(err.msg, GOLDEN " $.points[");
    has(err.msg, "].scopes: expected a scope group [1], got 1 groups");
    ea_captures_free(&caps);

    /* a golden folder whose target has no captures: the plan names the point and what it looked for */
    const char *dir = test_tmpdir();
    char *text = cJSON_Print(doc), file[512];
    free(test_write(dir, "occurrences/cumsum.json", text));
    free(test_target(dir, "H200", "2.11.0+cu130", "9.0"));
    snprintf(file, sizeof file, "%s/occurrences/cumsum.json", dir);
    ea_run_opts o = {.faithful = 1, .sm_count = 132};
    cr_assert_null(test_family_points(&ea_family_cumsum, p, file, index, &o, 0, &err));
    has(err.msg, file);
    has(err.msg, "scopes[0]: expected a capture for scope cumsum-2c7a27c1f3e3-8b05912dbbf4 or one of its occurrences: ");
    has(err.msg, "/captures: expected a capture named cumsum-2c7a27c1f3e3-8b05912dbbf4 or one covering ");
    /* a run context without a target: the message says so */
    cr_assert_null(test_family_points(&ea_family_cumsum, p, "cumsum.json", index, &o, 0, &err));
    has(err.msg, "(no target)/captures: expected a capture named cumsum-2c7a27c1f3e3-8b05912dbbf4");
    free(text);
    cJSON_Delete(doc);
}

/* A stored verdict is what the family's rule gives from the stored times, in every committed target: gate --propose
 * takes a moved time and not the verdict beside it, so a verdict left stale by a proposal fails here (three did
 * after a27f397). */
Test(cumsum, every_committed_verdict_is_what_the_stored_times_give)
{
    static const char *const targets[] = {"", "-histc_scatter", "-index_add_bf16_atomic", "-index_add_iota_gather",
                                          "-routing_counting_sort"};
    int judged = 0;
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        char file[256];
        snprintf(file, sizeof file, "golden/targets/" TEST_TARGET "%s/" EA_BASELINES_NAME, targets[t]);
        ej_doc d;
        ea_error err;
        cr_assert_eq(ej_load(file, &d, &err), 0, "%s", err.msg);
        const cJSON *r;
        int i = 0;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(d.root, "scopes"))
        {
            i++;
            if (strcmp(ej_str(r, "family"), "cumsum") || !cJSON_IsTrue(cJSON_GetObjectItem(r, "passed")))
                continue;
            double cur = ea_path_median(ea_path_named(r, "current", "faithful")),
                   orc = ea_path_median(ea_path_named(r, "oracle", "faithful"));
            const char *want = cs_result_verdict(r), *got = ej_str(r, "verdict"); /* gate --propose's rule */
            cr_assert(want && got && !strcmp(got, want),
                      "%s $.scopes[%d].verdict: expected \"%s\" (current %.3f us / oracle %.3f us = %.3f, headroom above "
                      "%.2f), got %s", file, i - 1, want ? want : "(no times)", cur, orc, cur / orc, CS_HEADROOM_RATIO,
                      got ? got : "none");
            judged++;
        }
        ej_free(&d);
    }
    cr_assert_geq(judged, 5 * 15, "every passed cumsum result of the committed targets");
}

/* The variants' launch as the run's log line names it (run.h's examples), singular for one. */
Test(cumsum, variant_texts_for_the_log)
{
    char t[128];
    cs_mask_shape_text(&(cs_mask_shape){"row", 2, 8, 1}, t, sizeof t);
    cr_assert_str_eq(t, " (row: 2 pairs, 8 warps, 1 segment)");
    cs_const_shape_text(&(cs_const_shape){.name = "flat", .threads = 128, .unroll = 1, .flat = 1}, t, sizeof t);
    cr_assert_str_eq(t, " (flat: 1 element a thread, 128 threads a CTA)");
    cs_packed_shape_text(&(cs_packed_shape){"t256", 256, 4, 0}, t, sizeof t);
    cr_assert_str_eq(t, " (t256: 4 items a thread, 256 threads a CTA)");
    cs_packed_shape_text(&(cs_packed_shape){"t1024", 1024, 1, 0}, t, sizeof t);
    cr_assert_str_eq(t, " (t1024: 1 item a thread, 1024 threads a CTA)");
}
