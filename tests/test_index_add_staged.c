/* The staged slice oracle on the CPU: its planning (span limits, the shared-memory bound, the split
 * over resident blocks) and the kernel's own block code (slice_staged.h, compiled here as C) run
 * block by block, thread by thread, on scaled-down shapes with XLNet's structure and others (rows of
 * 1023, 511, 15, 7, 5 and 3 elements; copied columns at the start, inside, at the end), compared bit
 * for bit with reference.c's oracle emulation and against the fp64 reference. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../repros/index_add/reference.h"
#include "../repros/index_add/reference_impl.h"
#include "../repros/index_add/scope_impl.h"
#include "../repros/index_add/slice_staged.h"
#include "target/gen.h"
#include "target/gen_impl.h"
#include "helpers.h"
#include "index_add_points.h"

static ia_slice make_slice(int64_t rows, int64_t row_out, int64_t row_src, int64_t col0)
{
    ia_slice q = {rows, row_out, row_src, col0, 8, 2, ia_fastdiv_make(row_out), 1, {0, 0, 0}, 0, 0};
    ia_slice_stage_make(&q);
    return q;
}

/* Copied elements before each flat output index, counted element by element: cum[e], e in [0, n]. */
static int64_t *copied_before(const ia_slice *q, int64_t n)
{
    int64_t *cum = malloc(sizeof *cum * (size_t)(n + 1));
    cum[0] = 0;
    for (int64_t e = 0; e < n; e++) {
        int64_t c = e % q->row_out;
        cum[e + 1] = cum[e] + (c >= q->col0 && c < q->col0 + q->row_src);
    }
    return cum;
}

/* The kernel, one block after another: each phase for every thread before the next, as the barriers
 * order them. Shared memory is poisoned before every stage, so a read of anything the span did not
 * stage (or outside the buffer: guard zones) comes out NaN and differs from the emulation. */
static void emulate_staged(const ia_slice *q, const ia_slice_split *l, const uint16_t *x, uint16_t *out, float scale,
                           float fill)
{
    enum { GUARD = 64, SMEM = IA_STAGED_SHARED_ELEMS + 2 * GUARD };
    uint16_t *buf = malloc(SMEM * sizeof *buf), *smem = buf + GUARD;
    uint32_t(*v)[IA_STAGED_VECTORS][4] = calloc(IA_STAGED_THREADS, sizeof *v);
    for (int64_t b = 0; b < l->grid; b++) {
        ia_st_span cur, next;
        int64_t span = b;
        if (span < l->spans) {
            ia_st_span_at(q, l->span_chunks, span, &next);
            for (int t = 0; t < IA_STAGED_THREADS; t++)
                ia_st_load(&next, x, t, v[t]);
        }
        while (span < l->spans) {
            cur = next;
            for (int i = 0; i < SMEM; i++)
                buf[i] = IA_POISON;
            for (int t = 0; t < IA_STAGED_THREADS; t++)
                ia_st_stage(&cur, t, v[t], smem);
            span += l->grid;
            if (span < l->spans) {
                ia_st_span_at(q, l->span_chunks, span, &next);
                for (int t = 0; t < IA_STAGED_THREADS; t++)
                    ia_st_load(&next, x, t, v[t]);
            }
            for (int t = 0; t < IA_STAGED_THREADS; t++)
                ia_st_build(q, &cur, t, smem, out, scale, fill);
        }
    }
    free(buf);
    free(v);
}

/* Finite bf16 values of both signs and several magnitudes, with a few negative zeros. */
static uint16_t *random_source(int64_t n, uint64_t seed)
{
    uint16_t *x = malloc(sizeof *x * (size_t)(n + 16));
    for (int64_t i = 0; i < n; i++) {
        seed = ea_splitmix64(seed);
        x[i] = seed % 97 == 0 ? 0x8000 : ea_f32_to_bf16((float)((int64_t)(seed >> 40) % 4001 - 2000) / 256.0f);
    }
    for (int i = 0; i < 16; i++) /* past the end: a read there would show as NaN */
        x[n + i] = IA_POISON;
    return x;
}

/* The split's promises: spans of at most span_max chunks tiling the output, blocks sharing them evenly. */
static void check_split(const ia_slice *q, int64_t resident, const ia_slice_split *l)
{
    int64_t n = q->rows * q->row_out / 8;
    cr_assert(l->span_chunks >= 1 && l->span_chunks <= q->stage.span_max, "span %lld of max %lld",
              (long long)l->span_chunks, (long long)q->stage.span_max);
    cr_assert(l->spans * l->span_chunks >= n && (l->spans - 1) * l->span_chunks < n, "spans tile the chunks");
    cr_assert(l->grid >= 1 && l->grid <= (resident < 1 ? 1 : resident) && l->grid <= l->spans);
    /* the fewest steps the span limit allows, and every block within one span of the others */
    int64_t steps = (l->spans + l->grid - 1) / l->grid;
    cr_assert_leq((steps - 1) * l->grid * q->stage.span_max, n - 1, "one step fewer could not cover the output");
    cr_assert_gt(l->spans, (steps - 1) * l->grid, "no block idles through a whole step");
}

/* Every span of the split: its chunks, its source range against a count element by element, and the
 * staged vectors inside the buffer and the source. */
static void check_spans(const ia_slice *q, const ia_slice_split *l, const int64_t *cum)
{
    int64_t n = q->rows * q->row_out, covered = 0;
    for (int64_t span = 0; span < l->spans; span++) {
        ia_st_span sp;
        ia_st_span_at(q, l->span_chunks, span, &sp);
        int64_t e1 = sp.e0 + 8 * (int64_t)sp.chunks, s_lo = cum[sp.e0], s_hi = cum[e1];
        cr_assert_eq(sp.e0, covered, "span %lld starts where the previous one ended", (long long)span);
        cr_assert(sp.chunks >= 1 && sp.chunks <= l->span_chunks);
        cr_assert(sp.r0 == sp.e0 / q->row_out && sp.c0 == sp.e0 % q->row_out);
        cr_assert_eq(sp.a_lo, s_lo & ~7, "span %lld: first staged element", (long long)span);
        cr_assert_eq(sp.a_lo + 8 * (int64_t)sp.vecs, (s_hi + 7) / 8 * 8, "span %lld: staged end", (long long)span);
        cr_assert_leq(8 * (int64_t)sp.vecs, ia_slice_staged_elems(q, sp.chunks), "within the planner's bound");
        cr_assert_leq(sp.vecs, IA_STAGED_VECTORS * IA_STAGED_THREADS, "within the shared buffer");
        cr_assert_leq(sp.a_lo + 8 * (int64_t)sp.vecs, q->rows * q->row_src, "inside the source");
        covered = e1;
    }
    cr_assert_eq(covered, n, "the spans cover the output");
}

Test(index_add_staged, golden_xlnet_plan)
{
    cJSON *doc = iap_golden(), *pt;
    ia_scope s;
    ia_plan p;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItem(doc, "points"))
        if (!strcmp(cJSON_GetObjectItem(pt, "point")->valuestring, test_point_id("index_add", "xlnet")))
            break;
    iap_parse_plan(pt, &s, &p);
    const ia_slice *q = &p.slice;
    cr_assert(q->vec == 8 && !q->staged, "planned for 16-byte accesses, unroll 2 by default");
    /* 1981 chunks = 15848 elements: 15 rows and 503 columns, at most 15 * 512 + 503 = 8183 source elements,
     * 8192 with the alignment: the 16 KiB buffer exactly; 1982 chunks could need 8200 */
    cr_assert_eq(q->stage.span_max, 1981);
    cr_assert_eq(ia_slice_staged_elems(q, 1981), IA_STAGED_SHARED_ELEMS);
    cr_assert_gt(ia_slice_staged_elems(q, 1982), IA_STAGED_SHARED_ELEMS);
    cr_assert(q->stage.step_rows == 2 && q->stage.step_cols == 2, "2048 = 2 * 1023 + 2");
    ia_slice_split l;
    ia_slice_stage_split(q, 132 * 5, &l); /* 5 blocks of 48 registers per multiprocessor */
    cr_assert(l.grid == 660 && l.span_chunks == 1954 && l.spans == 8578, "13 spans for 658 blocks, 12 for 2");
    check_split(q, 132 * 5, &l);
    const int64_t residents[] = {1, 7, 132, 132 * 8, 16760832, 100000000};
    for (size_t i = 0; i < sizeof residents / sizeof residents[0]; i++) {
        ia_slice_stage_split(q, residents[i], &l);
        check_split(q, residents[i], &l);
    }
    cJSON_Delete(doc);
}

/* The bound the buffer is sized by: the most copied elements any window of E output elements holds,
 * counted element by element over every start; equal for every start, not only chunk starts. */
Test(index_add_staged, source_bound_is_the_window_maximum)
{
    const int64_t shapes[][3] = {{1023, 512, 0}, {511, 256, 0}, {7, 4, 0}, {15, 4, 5}, {5, 2, 2}, {3, 2, 1},
                                 {1020, 512, 508}, {8, 8, 0}, {9, 0, 3}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        ia_slice q = make_slice(64, shapes[k][0], shapes[k][1], shapes[k][2]);
        int64_t w = q.row_out, span = 3000, *cum = copied_before(&q, 3 * w + span);
        const int64_t elems[] = {1, 2, 7, 8, 9, 16, 64, w - 1, w, w + 1, 2 * w + 3, span};
        for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++) {
            int64_t most = 0, aligned = 0, len = elems[e];
            for (int64_t start = 0; start < 2 * w; start++) {
                int64_t got = cum[start + len] - cum[start];
                most = got > most ? got : most;
                /* a span starts on a chunk: its range widened to 16-byte alignment */
                int64_t lo = cum[start] & ~7, hi = (cum[start + len] + 7) / 8 * 8;
                if (start % 8 == 0 && len % 8 == 0 && hi - lo > aligned)
                    aligned = hi - lo;
            }
            cr_assert_eq(ia_slice_source_bound(&q, len), most, "rows of %lld, %lld copied from %lld, window %lld",
                         (long long)w, (long long)q.row_src, (long long)q.col0, (long long)len);
            if (len % 8 == 0)
                cr_assert_leq(aligned, ia_slice_staged_elems(&q, len / 8));
        }
        free(cum);
    }
}

Test(index_add_staged, span_limit_fills_the_buffer)
{
    ia_slice wide = make_slice(8, 8, 8, 0), seven = make_slice(64, 7, 4, 0), narrow = make_slice(8, 1023, 4, 0);
    ia_slice none = make_slice(8, 9, 0, 3);
    /* every element copied: 8184 source elements + 8 of alignment = 8192 */
    cr_assert_eq(wide.stage.span_max, 1023);
    cr_assert_leq(ia_slice_staged_elems(&wide, wide.stage.span_max), IA_STAGED_SHARED_ELEMS);
    cr_assert_gt(ia_slice_staged_elems(&wide, wide.stage.span_max + 1), IA_STAGED_SHARED_ELEMS);
    /* 4 of 7: 1790 chunks = 2045 rows + 5 elements, 8180 + 4 copied; 1791 would hold 8188 */
    cr_assert_eq(seven.stage.span_max, 1790);
    cr_assert_eq(ia_slice_staged_elems(&seven, 1790), IA_STAGED_SHARED_ELEMS);
    cr_assert(seven.stage.step_rows == 292 && seven.stage.step_cols == 4, "2048 = 292 * 7 + 4");
    /* 4 of 1023 copied, or none: the per-thread chunk limit binds first */
    cr_assert_eq(narrow.stage.span_max, IA_STAGED_MAX_CHUNKS * IA_STAGED_THREADS);
    cr_assert(narrow.stage.step_rows == 2 && narrow.stage.step_cols == 2);
    cr_assert_eq(none.stage.span_max, IA_STAGED_MAX_CHUNKS * IA_STAGED_THREADS, "nothing copied, nothing staged");
    ia_slice scalar = make_slice(3, 5, 2, 0);
    scalar.vec = 1;
    ia_slice_stage_make(&scalar);
    cr_assert_eq(scalar.stage.span_max, 0, "no staged plan without 16-byte accesses");
    ia_slice empty = make_slice(0, 1023, 512, 0);
    ia_slice_split l;
    ia_slice_stage_split(&empty, 132, &l);
    cr_assert(l.spans == 0 && l.grid == 1, "no rows: one block with nothing to do");
}

/* One shape under the splits for several resident counts, and under spans all of span_max chunks
 * (the buffer's worst case): spans checked, then the emulated kernel against the oracle's emulation,
 * every element written, nothing past the end. */
static void check_shape(ia_slice q, float scale, float fill)
{
    int64_t n = q.rows * q.row_out, n_src = q.rows * q.row_src, *cum = copied_before(&q, n);
    uint16_t *x = random_source(n_src, (uint64_t)(n * 31 + q.col0)), *out = malloc(sizeof *out * (size_t)(n + 8));
    uint16_t *want = malloc(sizeof *want * (size_t)n);
    ia_scope s = {.fill = fill};
    ia_plan p = {.oracle = IA_ORACLE_SLICE, .slice = q, .oracle_scale = scale, .oracle_fill = fill};
    ia_inputs in = {.x = x, .source = x};
    cr_assert_eq(ia_emulate_oracle(&s, &p, &in, want), 0);
    const int64_t residents[] = {1, 3, 132 * 5, 0};
    for (size_t r = 0; r < sizeof residents / sizeof residents[0]; r++) {
        ia_slice_split l = {q.stage.span_max, (n / 8 + q.stage.span_max - 1) / q.stage.span_max, 2};
        if (residents[r]) {
            ia_slice_stage_split(&q, residents[r], &l);
            check_split(&q, residents[r], &l);
        }
        check_spans(&q, &l, cum);
        for (int64_t e = 0; e < n + 8; e++)
            out[e] = IA_POISON;
        emulate_staged(&q, &l, x, out, scale, fill);
        int64_t wrong = 0, first = -1;
        for (int64_t e = 0; e < n; e++)
            if (out[e] != want[e] && wrong++ == 0)
                first = e;
        cr_assert_eq(wrong, 0, "rows of %lld (%lld copied from %lld), %lld rows, %lld resident: %lld differ, "
                     "first at %lld (0x%04x, want 0x%04x)", (long long)q.row_out, (long long)q.row_src,
                     (long long)q.col0, (long long)q.rows, (long long)residents[r], (long long)wrong,
                     (long long)first, first < 0 ? 0 : out[first], first < 0 ? 0 : want[first]);
        for (int e = 0; e < 8; e++)
            cr_assert_eq(out[n + e], IA_POISON, "nothing written past the output");
    }
    free(cum), free(x), free(out), free(want);
}

Test(index_add_staged, xlnet_rows_match_the_oracle)
{
    check_shape(make_slice(40, 1023, 512, 0), 1.0f, 0.0f);   /* XLNet's rows, unscaled */
    check_shape(make_slice(200, 1023, 512, 0), 0.125f, 0.0f); /* 13 spans at the buffer's limit */
    check_shape(make_slice(16, 511, 256, 0), 0.3f, 0.5f);
}

Test(index_add_staged, short_rows_and_inner_columns_match_the_oracle)
{
    check_shape(make_slice(64, 7, 4, 0), 0.3f, -1.5f); /* several rows per chunk */
    check_shape(make_slice(8, 15, 4, 5), 2.0f, 0.25f); /* copied columns inside the row */
    check_shape(make_slice(8, 5, 2, 2), 1.0f, 3.0f);
    check_shape(make_slice(24, 3, 2, 1), -0.5f, 0.0f);
    check_shape(make_slice(10, 1020, 512, 508), 1.0f, 0.0f); /* copied columns at the row end */
    check_shape(make_slice(4096, 8, 8, 0), 1.0f, 0.0f);      /* every element copied: 1023-chunk spans */
}

Test(index_add_staged, wide_division_path_matches)
{
    ia_slice q = make_slice(40, 1023, 512, 0);
    q.div_row.d = 0; /* as for rows of 2^31 elements or more: 64-bit division */
    check_shape(q, 0.125f, 0.0f);
}

/* Through the scope's own plan and inputs: the fp64 reference and the oracle's emulation. */
static void check_scope(cJSON *pt)
{
    ia_scope s;
    ia_plan p;
    ia_inputs in;
    ea_error err;
    double *ref;
    iap_parse_plan(pt, &s, &p);
    cr_assert(p.oracle == IA_ORACLE_SLICE && p.slice.vec == 8 && p.slice.stage.span_max > 0);
    cr_assert_eq(ia_inputs_make(&s, 0, &in, &err), 0, "%s", err.msg);
    cr_assert_eq(ia_reference(&s, &p, &in, in.index, &ref, &err), 0, "%s", err.msg);
    int64_t n = ea_tensor_numel(&s.out);
    uint16_t *out = malloc(sizeof *out * (size_t)n), *want = malloc(sizeof *want * (size_t)n);
    cr_assert_eq(ia_emulate_oracle(&s, &p, &in, want), 0);
    for (int64_t e = 0; e < n; e++)
        out[e] = IA_POISON;
    ia_slice_split l;
    ia_slice_stage_split(&p.slice, 132 * 5, &l);
    emulate_staged(&p.slice, &l, ia_oracle_input(&p, &in), out, (float)p.oracle_scale, (float)p.oracle_fill);
    ea_check c, o;
    ia_compare(out, ref, want, n, &c);
    ia_compare(want, ref, NULL, n, &o);
    cr_assert(c.unwritten == 0 && c.mismatched == 0, "%lld unwritten, %lld differ from the oracle",
              (long long)c.unwritten, (long long)c.mismatched);
    cr_assert_leq(c.rel_l2, 1e-2);
    cr_assert_eq(c.rel_l2, o.rel_l2, "the oracle's error, bit for bit");
    free(ref), free(out), free(want);
    ia_inputs_free(&in);
    cJSON_Delete(pt);
}

Test(index_add_staged, xlnet_scopes_match_reference_and_oracle)
{
    check_scope(iap_xlnet(1, 1, 40, 512, 0.125, 1)); /* materialized mul: reads the source */
    check_scope(iap_xlnet(2, 3, 8, 16, 0.125, 0));  /* folded: x * 0.125 in fp32 */
    check_scope(iap_xlnet(1, 3, 8, 4, 0.3, 0));     /* rows of 7 */
    /* copied columns from 3 to the row end: a chunk across a row end holds two runs of copied elements */
    check_scope(iap_slice(1, 2, 8, 13, 10, 3, 0.3, 0));
    check_scope(iap_slice(1, 4, 40, 21, 10, 5, 0.125, 0)); /* copied columns inside the row */
    check_scope(iap_slice(1, 2, 8, 5, 2, 1, 0.3, 0));      /* rows of 5: a chunk over three rows */
    check_scope(iap_slice(1, 2, 8, 13, 13, 0, 0.3, 0));    /* rows copied whole */
    /* self a constant other than zero: fill chunks, and the rest of every edge chunk, take it */
    check_scope(iap_filled(iap_slice(1, 2, 8, 13, 10, 3, 0.3, 0), -1.25));
    check_scope(iap_filled(iap_xlnet(2, 3, 8, 16, 0.125, 0), 3.0));
}
