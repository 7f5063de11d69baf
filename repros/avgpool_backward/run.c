/* run.c: an avgpool_backward point measured on the current GPU (ap_measure, avgpool_backward.h). */
#include "gpu/device.h"
#include "avgpool_backward.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "target/gen.h"
#include "measure/path.h"

enum { P_CURRENT, P_ORACLE };

typedef struct {
    const ap_scope *s;
    int path;
    uint16_t *grad, *out; /* device */
    const uint16_t *grad_host;
    const double *ref;
    uint16_t *host;
    int64_t n;
} dev;

/* One call, capturable: ATen's zeros_like and its kernel, or the oracle's copy. */
static int enqueue(void *ctx, void *stream, ea_error *err)
{
    dev *d = ctx;
    const ap_scope *s = d->s;
    size_t bytes = (size_t)d->n * 2;
    int rc = d->path == P_ORACLE
                 ? (int)cudaMemcpyAsync(d->out, d->grad, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream)
                 : (int)cudaMemsetAsync(d->out, 0, bytes, (cudaStream_t)stream);
    if (!rc && d->path == P_CURRENT)
        rc = ap_aten_gradinput_bf16(d->out, d->grad, s->planes, s->channels, s->in_h, s->in_w, s->out_h, s->out_w,
                                    stream);
    return rc ? ea_cuda_fail(err, "avgpool_backward", NULL, "launch", rc) : 0;
}

static int poison(void *ctx, ea_error *err)
{
    dev *d = ctx;
    int rc = (int)cudaMemset(d->out, 0xFF, (size_t)d->n * 2);
    return rc ? ea_cuda_fail(err, "avgpool_backward", NULL, "poison the output", rc) : 0;
}

static double bf16_value(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Against the fp64 reference, and bit for bit against the grad (an identity pool's backward). */
static int check(void *ctx, int after_timing, ea_check *c, ea_error *err)
{
    dev *d = ctx;
    int rc = (int)cudaMemcpy(d->host, d->out, (size_t)d->n * 2, cudaMemcpyDeviceToHost);
    if (rc)
        return ea_cuda_fail(err, "avgpool_backward", NULL, "copy the output back", rc);
    double num = 0, den = 0;
    memset(c, 0, sizeof *c);
    c->n = d->n;
    for (int64_t i = 0; i < d->n; i++) {
        double x = bf16_value(d->host[i]);
        if (d->host[i] == 0xFFFF) {
            c->unwritten++;
            continue;
        }
        if (!isfinite(x)) {
            c->nonfinite++;
            continue;
        }
        c->mismatched += d->host[i] != d->grad_host[i];
        num += (x - d->ref[i]) * (x - d->ref[i]);
        den += d->ref[i] * d->ref[i];
        c->max_abs = fmax(c->max_abs, fabs(x - d->ref[i]));
    }
    c->rel_l2 = den > 0 ? sqrt(num / den) : sqrt(num);
    return 0;
}

static int run_path(dev *d, int path, const ea_kit_state *st, double current_rel, cJSON *paths, int *ok,
                    double *rel, ea_error *err)
{
    const ea_run_opts *o = st->opts;
    const char *name = path == P_ORACLE ? "oracle" : "current";
    ea_path_outcome out;
    d->path = path;
    if (ea_kit_path(st, &(ea_path_steps){.ctx = d, .poison = poison, .enqueue = enqueue, .check = check}, name,
                    "faithful", &out, err))
        return -1;
    if (o->log)
        fprintf(o->log, "avgpool_backward %s: %s: %.2f us per call, %" PRId64 " elements differ from the grad\n",
                d->s->alias, name, out.median_us, out.check.mismatched);
    ea_path_judge_outcome(&out, current_rel, 1, 1);
    *ok &= out.passed;
    *rel = out.check.rel_l2;
    cJSON_AddItemToArray(paths, out.json);
    return 0;
}

cJSON *ap_measure(const ap_scope *s, const ea_kit_state *st, ea_error *err)
{
    static const char grad_gen[] = "{\"generator\": \"uniform\", \"seed\": 0}";
    dev d = {.s = s, .n = ea_tensor_numel(&s->out)};
    uint16_t *grad = malloc((size_t)d.n * 2), *host = malloc((size_t)d.n * 2);
    double *g = malloc(sizeof *g * (size_t)d.n), *ref = malloc(sizeof *ref * (size_t)d.n);
    cJSON *gen = cJSON_Parse(grad_gen), *res = NULL;
    int rc = 0, ok = 1, broke = -1;
    if (!grad || !host || !g || !ref || !gen) {
        ea_fail(err, "avgpool_backward %s: out of memory for %" PRId64 " elements", s->alias, d.n);
        goto done;
    }
    if (ea_gen_fill(gen, &s->grad, grad, "avgpool_backward grad_output", err))
        goto done;
    for (int64_t i = 0; i < d.n; i++)
        g[i] = bf16_value(grad[i]);
    ap_reference(g, s->planes, s->in_h, s->in_w, s->out_h, s->out_w, ref);
    d.grad_host = grad, d.ref = ref, d.host = host;
    if ((rc = (int)cudaMalloc((void **)&d.grad, (size_t)d.n * 2)) || (rc = (int)cudaMalloc((void **)&d.out, (size_t)d.n * 2)) ||
        (rc = (int)cudaMemcpy(d.grad, grad, (size_t)d.n * 2, cudaMemcpyHostToDevice))) {
        ea_cuda_fail(err, "avgpool_backward", NULL, "allocate and upload the grad", rc);
        goto done;
    }
    res = cJSON_CreateObject();
    cJSON *paths = cJSON_AddArrayToObject(res, "paths");
    double cur, rel;
    broke = run_path(&d, P_CURRENT, st, -1, paths, &ok, &cur, err) || run_path(&d, P_ORACLE, st, cur, paths, &ok, &rel, err);
    cJSON_AddBoolToObject(res, "passed", ok);
done:
    cudaFree(d.grad);
    cudaFree(d.out);
    free(grad), free(host), free(g), free(ref);
    cJSON_Delete(gen);
    if (broke) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}
