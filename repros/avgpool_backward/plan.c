/* plan.c: a golden point read into an ap_scope, its plan as JSON, and the fp64 reference (avgpool_backward.h). */
#include "avgpool_backward.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "target/target_layout.h"

/* A bf16 contiguous 4-d tensor at offset 0, from the occurrence document's tensor object at v. */
static int tensor4(ej_val v, ea_tensor *t, ea_error *err)
{
    ej_val sizes, strides;
    const char *dt;
    int n, ns;
    memset(t, 0, sizeof *t);
    if (ej_get_string(v, "dtype", &dt, err) || ej_field(v, "sizes", 1, &sizes, err) || ej_array(sizes, &n, err) ||
        ej_field(v, "strides", 1, &strides, err) || ej_array(strides, &ns, err) || ej_get_int(v, "offset", &t->offset, err))
        return -1;
    if (strcmp(dt, "bf16") || n != 4 || ns != 4)
        return ea_fail(err, "%s %s: expected a 4-d bf16 tensor (the corpus's AlexNet and VGG16 pools), got %s with %d sizes",
                       v.file, v.path, dt, n);
    t->dtype = EA_BF16;
    t->ndim = 4;
    for (int d = 0; d < 4; d++)
        if (ej_as_int(ej_index(sizes, d), &t->sizes[d], err) || ej_as_int(ej_index(strides, d), &t->strides[d], err))
            return -1;
    if (!ea_tensor_is_contiguous(t) || t->offset != 0 || ea_tensor_numel(t) < 1 || ea_tensor_numel(t) > INT32_MAX)
        return ea_fail(err, "%s %s: expected a contiguous tensor at offset 0 of 1 to 2^31 - 1 elements (ATen's "
                       "contiguous path)", v.file, v.path);
    return 0;
}

int ap_scope_parse(const cJSON *point, const char *file, int index, ap_scope *s, ea_error *err)
{
    ej_val p = ej_point(file, point, index), sig, args, out, scopes;
    int nargs;
    memset(s, 0, sizeof *s);
    if (ej_get_string(p, "point", &s->point, err) || ej_get_int(p, "count", &s->occurrences, err) ||
        ej_field(p, "signature", 1, &sig, err) || ej_field(sig, "args", 1, &args, err) || ej_array(args, &nargs, err) ||
        ej_field(sig, "output", 1, &out, err) || ej_field(p, "scopes", 1, &scopes, err) ||
        ej_array(scopes, &s->ngroups, err))
        return -1;
    if (nargs != 2)
        return ea_fail(err, "%s %s: expected _adaptive_avg_pool2d_backward(grad_output, self), got %d args", args.file,
                       args.path, nargs);
    if (s->ngroups > AP_MAX_GROUPS)
        return ea_fail(err, "%s %s: expected at most %d scope groups, got %d", scopes.file, scopes.path, AP_MAX_GROUPS,
                       s->ngroups);
    for (int g = 0; g < s->ngroups; g++)
        if (ej_get_string(ej_index(scopes, g), "scope_id", &s->scope_ids[g], err))
            return -1;
    if (tensor4(ej_index(args, 0), &s->grad, err) || tensor4(ej_index(args, 1), &s->self, err) ||
        tensor4(out, &s->out, err))
        return -1;
    if (!ea_tensor_equal(&s->out, &s->self) || s->grad.sizes[0] != s->self.sizes[0] ||
        s->grad.sizes[1] != s->self.sizes[1])
        return ea_fail(err, "%s %s: expected the output shaped as self and the grad of its batch and channels",
                       sig.file, sig.path);
    if (s->grad.sizes[2] != s->self.sizes[2] || s->grad.sizes[3] != s->self.sizes[3])
        return ea_fail(err, "%s %s: expected an identity pool (the grad's H x W equal to self's), got %" PRId64 "x%" PRId64
                       " from %" PRId64 "x%" PRId64 ": this repro's oracle is a copy", sig.file, sig.path,
                       s->grad.sizes[2], s->grad.sizes[3], s->self.sizes[2], s->self.sizes[3]);
    s->channels = s->self.sizes[1];
    s->planes = s->self.sizes[0] * s->channels;
    s->in_h = s->self.sizes[2], s->in_w = s->self.sizes[3];
    s->out_h = s->grad.sizes[2], s->out_w = s->grad.sizes[3];
    return 0;
}

static cJSON *ints3(const int v[3])
{
    int64_t w[3] = {v[0], v[1], v[2]};
    return ej_int_array(w, 3);
}

cJSON *ap_config_json(const ap_scope *s)
{
    cJSON *c = cJSON_CreateObject(), *cur, *orc, *notes;
    int grid[3], block[3];
    int64_t bytes = ea_tensor_numel(&s->out) * 2;
    ap_aten_launch(s->planes, s->channels, grid, block);
    cJSON_AddItemToObject(c, "shape", ej_int_array(s->self.sizes, 4));
    cJSON_AddStringToObject(c, "dtype", "bf16");
    cJSON_AddItemToObject(c, "grad_output_size", ej_int_array(&s->grad.sizes[2], 2));
    cJSON_AddBoolToObject(c, "identity", 1);
    cJSON_AddStringToObject(c, "current_source", "aten");
    cur = cJSON_AddObjectToObject(c, "current");
    cJSON_AddStringToObject(cur, "fill", "avgpool_fill_memset"); /* ids: prose.c */
    cJSON_AddStringToObject(cur, "kernel", "atomic_adaptive_average_gradinput<c10::BFloat16>");
    cJSON_AddItemToObject(cur, "grid", ints3(grid));
    cJSON_AddItemToObject(cur, "block", ints3(block));
    orc = cJSON_AddObjectToObject(c, "oracle");
    cJSON_AddStringToObject(orc, "kind", "copy");
    cJSON_AddStringToObject(orc, "launch", "avgpool_oracle_memcpy");
    cJSON_AddNumberToObject(c, "floor_bytes", (double)(2 * bytes)); /* the grad read, the gradient written */
    cJSON_AddNumberToObject(c, "floor_written_bytes", (double)bytes);
    notes = cJSON_AddArrayToObject(c, "notes");
    cJSON_AddItemToArray(notes, cJSON_CreateString("avgpool_identity_copy"));
    cJSON_AddItemToArray(notes, cJSON_CreateString("avgpool_aten_atomic"));
    cJSON_AddItemToArray(notes, cJSON_CreateString("avgpool_memset_fill"));
    return c;
}

void ap_reference(const double *grad, int64_t planes, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                  double *out)
{
    memset(out, 0, sizeof *out * (size_t)(planes * in_h * in_w));
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oh = 0; oh < out_h; oh++) {
            int64_t h0 = oh * in_h / out_h, h1 = ((oh + 1) * in_h + out_h - 1) / out_h; /* START_IND, END_IND */
            for (int64_t ow = 0; ow < out_w; ow++) {
                int64_t w0 = ow * in_w / out_w, w1 = ((ow + 1) * in_w + out_w - 1) / out_w;
                double g = grad[(p * out_h + oh) * out_w + ow] / (double)((h1 - h0) * (w1 - w0));
                for (int64_t h = h0; h < h1; h++)
                    for (int64_t w = w0; w < w1; w++)
                        out[(p * in_h + h) * in_w + w] += g;
            }
        }
}
