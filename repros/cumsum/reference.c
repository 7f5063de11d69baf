/* reference.c: inputs, padded batches and the exact CPU reference of the position-id scopes. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/gen.h"

int cs_inputs_make(const cs_scope *s, const ea_capture *c, int64_t **ids, ea_error *err)
{
    *ids = NULL;
    if (s->kind != CS_MASK)
        return 0;
    int64_t bytes = ea_storage_bytes(&c->inputs[0].t);
    char where[512];
    snprintf(where, sizeof where, "%s $.inputs[0].values", c->file);
    if (!(*ids = malloc((size_t)bytes)))
        return ea_fail(err, "%s: out of memory for %lld bytes", where, (long long)bytes);
    if (ea_gen_fill(c->inputs[0].values.json, &c->inputs[0].t, *ids, where, err)) {
        free(*ids);
        *ids = NULL;
        return -1;
    }
    return 0;
}

void cs_pad_tails(const cs_scope *s, uint64_t seed, int64_t *ids, int64_t *lengths)
{
    for (int64_t r = 0; r < s->rows; r++) {
        int64_t len = r == 0 ? s->cols : 1 + (int64_t)(ea_gen_hash(seed, (uint64_t)r) % (uint64_t)s->cols);
        int64_t *row = ids + r * s->cols;
        for (int64_t j = 0; j < s->cols; j++)
            row[j] = j >= len ? s->pad : row[j] == s->pad ? s->pad + 1 : row[j];
        if (lengths)
            lengths[r] = len;
    }
}

int64_t cs_output_bytes(const cs_scope *s, int i)
{
    return ea_tensor_numel(&s->outputs[i]) * ea_dtype_size(s->outputs[i].dtype);
}

/* The graph's i32 steps wrap as two's complement: computed in uint32_t, read back as int32_t. */
static int32_t i32(uint32_t v)
{
    return (int32_t)v;
}

static void mask_reference(const cs_scope *s, const int64_t *ids, void *const out[])
{
    uint8_t *mask = s->mask_out ? out[0] : NULL;
    int64_t *pos = out[s->mask_out];
    for (int64_t r = 0; r < s->rows; r++) {
        int64_t c = 0; /* cumsum of an i32 tensor accumulates in i64 */
        for (int64_t j = 0; j < s->cols; j++) {
            int64_t i = r * s->cols + j;
            uint32_t m = ids[i] != s->pad;
            c += m;
            int32_t v = i32(((uint32_t)c + (uint32_t)s->past) * m);
            pos[i] = (int64_t)v + s->offset;
            if (mask)
                mask[i] = (uint8_t)m;
        }
    }
}

static void packed_reference(const cs_scope *s, void *const out[])
{
    int64_t *p = out[0], *cum = out[1], prev = s->first_full ? s->first_value : s->start - s->first_value;
    int64_t c = 0;
    for (int64_t j = 0; j < s->cols; j++) {
        p[j] = s->start + j;
        c += (p[j] - prev) != s->step;
        prev = p[j];
        for (int64_t r = 0; r < s->rows; r++) /* every row holds the same positions (expand) */
            cum[r * s->cols + j] = c;
    }
}

static void const_reference(const cs_scope *s, void *const out[])
{
    int64_t *o = out[0];
    for (int64_t r = 0; r < s->rows; r++) {
        float acc = 0;
        for (int64_t j = 0; j < s->cols; j++) {
            acc += (float)s->fill;
            o[r * s->cols + j] = (int64_t)(acc - (float)s->sub) + s->add;
        }
    }
}

void cs_reference(const cs_scope *s, const int64_t *ids, void *const out[])
{
    if (s->kind == CS_MASK)
        mask_reference(s, ids, out);
    else if (s->kind == CS_PACKED)
        packed_reference(s, out);
    else
        const_reference(s, out);
}

void cs_compare(const cs_scope *s, int i, const void *got, const void *want, ea_check *c)
{
    int64_t n = ea_tensor_numel(&s->outputs[i]);
    int bytes = ea_dtype_size(s->outputs[i].dtype);
    double diff2 = 0, ref2 = 0;
    memset(c, 0, sizeof *c);
    c->n = n;
    for (int64_t k = 0; k < n; k++) {
        int64_t g, w;
        if (bytes == 1) {
            g = ((const uint8_t *)got)[k];
            w = ((const uint8_t *)want)[k];
        } else {
            g = ((const int64_t *)got)[k];
            w = ((const int64_t *)want)[k];
        }
        int poison = bytes == 1 ? g == 0xFF : g == -1; /* the 0xFF bytes: no output here holds them */
        if (poison && g != w) {
            c->unwritten++;
            continue;
        }
        double d = (double)g - (double)w;
        c->mismatched += g != w;
        diff2 += d * d;
        ref2 += (double)w * (double)w;
        if (fabs(d) > c->max_abs)
            c->max_abs = fabs(d);
    }
    c->rel_l2 = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}
