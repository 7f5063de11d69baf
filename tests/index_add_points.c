#include "index_add_points.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "corpus/values.h"
#include "corpus/values_impl.h"

static cJSON *ints(int n, const int64_t *v)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

static cJSON *tensor(const char *dtype, int nd, const int64_t *sizes)
{
    int64_t strides[EA_MAX_DIMS], st = 1;
    for (int d = nd - 1; d >= 0; st *= sizes[d], d--)
        strides[d] = st;
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "dtype", dtype);
    cJSON_AddItemToObject(t, "sizes", ints(nd, sizes));
    cJSON_AddItemToObject(t, "strides", ints(nd, strides));
    cJSON_AddNumberToObject(t, "offset", 0);
    cJSON_AddStringToObject(t, "device", "cuda:0");
    cJSON_AddBoolToObject(t, "contiguous", 1);
    cJSON_AddBoolToObject(t, "channels_last", 0);
    return t;
}

static cJSON *iota(int64_t len, int64_t start)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "length", (double)len);
    cJSON_AddNumberToObject(o, "start", (double)start);
    cJSON_AddNumberToObject(o, "step", 1);
    return o;
}

static cJSON *node(const char *role, const char *op, const char *ann)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "role", role);
    cJSON_AddStringToObject(n, "op", op);
    cJSON_AddStringToObject(n, "ann", ann);
    return n;
}

static cJSON *ref(int k)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "ref", k);
    return r;
}

/* The point around a signature: one scope group with the given nodes, one occurrence. */
static cJSON *point(cJSON *out, cJSON *self, int dim, cJSON *index, cJSON *source, cJSON *derived, cJSON *nodes)
{
    cJSON *p = cJSON_CreateObject(), *sig, *args, *vps, *vp, *g, *scopes, *occ, *o;
    cJSON_AddStringToObject(p, "point", "index_add-synthetic00");
    cJSON_AddNumberToObject(p, "count", 1);
    sig = cJSON_AddObjectToObject(p, "signature");
    cJSON_AddStringToObject(sig, "op", "aten.index_add.default");
    cJSON_AddItemToObject(sig, "output", out);
    args = cJSON_AddArrayToObject(sig, "args");
    cJSON_AddItemToArray(args, self);
    cJSON_AddItemToArray(args, cJSON_CreateNumber(dim));
    cJSON_AddItemToArray(args, index);
    cJSON_AddItemToArray(args, source);
    cJSON_AddObjectToObject(sig, "kwargs");
    vps = cJSON_AddArrayToObject(sig, "value_properties");
    vp = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(vp, "derived");
    cJSON_AddStringToObject(c, "kind", "constant");
    cJSON_AddNumberToObject(c, "value", 0);
    cJSON_AddNumberToObject(vp, "arg", 0);
    cJSON_AddItemToArray(vps, vp);
    vp = cJSON_CreateObject();
    cJSON_AddItemToObject(vp, "derived", derived);
    cJSON_AddNumberToObject(vp, "arg", 2);
    cJSON_AddItemToArray(vps, vp);
    scopes = cJSON_AddArrayToObject(p, "scopes");
    g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "scope_id", "index_add-synthetic00-000000000000");
    cJSON_AddNumberToObject(g, "count", 1);
    cJSON_AddItemToObject(cJSON_AddObjectToObject(g, "scope"), "nodes", nodes);
    occ = cJSON_AddArrayToObject(g, "occurrences");
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", "hf/train/Synthetic/full_graph_000:index_add");
    cJSON_AddItemToArray(occ, o);
    cJSON_AddItemToArray(scopes, g);
    return p;
}

cJSON *iap_windows_point(int64_t n_out, int nd, const int64_t *size, const int64_t *stride)
{
    int64_t numel = 1, len = 1;
    for (int d = 0; d < nd; d++) {
        numel *= size[d];
        len += (size[d] - 1) * stride[d];
    }
    ea_index_stats st;
    ea_error err;
    cr_assert_eq(ea_as_strided_iota_stats(len, 0, 1, nd, size, stride, 0, "test", &st, &err), 0, "%s", err.msg);
    cJSON *d = cJSON_CreateObject(), *cov, *hist;
    cJSON_AddStringToObject(d, "kind", "as_strided_iota");
    cJSON_AddItemToObject(d, "iota", iota(len, 0));
    cJSON_AddItemToObject(d, "size", ints(nd, size));
    cJSON_AddItemToObject(d, "stride", ints(nd, stride));
    cJSON_AddNumberToObject(d, "offset", 0);
    cJSON_AddNumberToObject(d, "numel", (double)numel);
    cJSON_AddNumberToObject(d, "min", (double)st.min);
    cJSON_AddNumberToObject(d, "max", (double)st.max);
    cJSON_AddNumberToObject(d, "distinct", (double)st.distinct);
    cov = cJSON_AddObjectToObject(d, "coverage");
    cJSON_AddNumberToObject(cov, "covered", (double)(len - st.hist[0]));
    cJSON_AddNumberToObject(cov, "of", (double)len);
    hist = cJSON_AddObjectToObject(d, "multiplicity_histogram");
    for (int m = 0; m < EA_MULT_BUCKETS; m++)
        if (st.hist[m]) {
            char key[8];
            snprintf(key, sizeof key, m == EA_MULT_BUCKETS - 1 ? "%d+" : "%d", m);
            cJSON_AddNumberToObject(hist, key, (double)st.hist[m]);
        }
    cJSON_AddNumberToObject(d, "max_multiplicity", st.max_multiplicity);
    cJSON_AddBoolToObject(d, "sorted", st.sorted);
    cJSON *nodes = cJSON_CreateArray();
    cJSON_AddItemToArray(nodes, node("op", "aten.index_add.default", "bf16"));
    return point(tensor("bf16", 1, &n_out), tensor("bf16", 1, &n_out), 0, tensor("i64", 1, &numel),
                 tensor("bf16", 1, &numel), d, nodes);
}

cJSON *iap_longformer_a(int64_t batch, int64_t windows, int64_t step, int64_t width)
{
    int64_t rows = (windows - 1) * step + 3 * step;
    int64_t size[4] = {batch, windows, 3 * step, width}, stride[4] = {rows * width, step * width, width, 1};
    return iap_windows_point(batch * rows * width, 4, size, stride);
}

cJSON *iap_longformer_b(int64_t batch, int64_t windows, int64_t step, int64_t width)
{
    int64_t rows = (windows - 1) * step + 2 * step;
    int64_t size[4] = {batch, windows, 2 * step, width}, stride[4] = {width, step * batch * width, batch * width, 1};
    return iap_windows_point(rows * batch * width, 4, size, stride);
}

cJSON *iap_slice(int64_t b, int64_t h, int64_t q, int64_t D, int64_t L, int64_t start, double scale, int escapes)
{
    int64_t out[4] = {b, h, q, D}, src[4] = {b, h, q, L};
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "kind", "iota");
    cJSON_AddItemToObject(d, "iota", iota(L, start));
    cJSON_AddNumberToObject(d, "distinct", (double)L);
    cJSON_AddBoolToObject(d, "sorted", 1);
    char ann[128];
    snprintf(ann, sizeof ann, "bf16[%lld, %lld, %lld, %lld][%lld, %lld, %lld, 1]cuda:0", (long long)b, (long long)h,
             (long long)q, (long long)L, (long long)(h * q * L), (long long)(q * L), (long long)L);
    cJSON *nodes = cJSON_CreateArray(), *mul = node("producer", "aten.mul.Tensor", ann), *op, *margs, *oargs;
    cJSON_AddItemToArray(nodes, node("input", "input", ann));
    margs = cJSON_AddArrayToObject(mul, "args");
    cJSON_AddItemToArray(margs, ref(0));
    cJSON_AddItemToArray(margs, cJSON_CreateNumber(scale));
    if (escapes)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(mul, "escapes"), cJSON_CreateString("aten.reshape.default"));
    cJSON_AddItemToArray(nodes, mul);
    cJSON_AddItemToArray(nodes, node("input", "input", "i64"));
    op = node("op", "aten.index_add.default", "bf16");
    oargs = cJSON_AddArrayToObject(op, "args");
    cJSON_AddItemToArray(oargs, cJSON_CreateNull());
    cJSON_AddItemToArray(oargs, cJSON_CreateNumber(3));
    cJSON_AddItemToArray(oargs, ref(2));
    cJSON_AddItemToArray(oargs, ref(1));
    cJSON_AddItemToArray(nodes, op);
    return point(tensor("bf16", 4, out), tensor("bf16", 4, out), 3, tensor("i64", 1, &L), tensor("bf16", 4, src), d,
                 nodes);
}

cJSON *iap_xlnet(int64_t b, int64_t h, int64_t q, int64_t L, double scale, int escapes)
{
    return iap_slice(b, h, q, 2 * L - 1, L, 0, scale, escapes);
}

cJSON *iap_filled(cJSON *pt, double fill)
{
    cJSON *vp = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "signature"), "value_properties"), 0);
    cJSON *c = cJSON_GetObjectItem(vp, "derived");
    cr_assert(c && cJSON_GetNumberValue(cJSON_GetObjectItem(vp, "arg")) == 0, "the first value property is self's");
    cJSON_SetNumberValue(cJSON_GetObjectItem(c, "value"), fill);
    return pt;
}

cJSON *iap_golden(void)
{
    ej_doc d;
    ea_error err;
    cr_assert_eq(ej_load(IAP_FILE, &d, &err), 0, "%s", err.msg);
    return ej_doc_take_root(&d);
}

void iap_parse_plan(const cJSON *pt, ia_scope *s, ia_plan *p)
{
    ea_error err;
    cr_assert_eq(ia_scope_parse(pt, IAP_FILE, 0, -1, s, &err), 0, "%s", err.msg);
    cr_assert_eq(ia_plan_make(s, 132, p, &err), 0, "%s", err.msg);
}
