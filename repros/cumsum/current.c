/* current.c: a captured partition launched on caller-owned buffers (contract in current.h). */
#include "current.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const ea_capture *c;
    void *const *bufs;
} buffers;

/* The device pointer of a named input or output. */
static void *buffer_of(void *ctx, const char *name)
{
    const buffers *b = ctx;
    for (int i = 0; i < b->c->ninputs; i++)
        if (!strcmp(b->c->inputs[i].name, name))
            return b->bufs[i];
    for (int i = 0; i < b->c->noutputs; i++)
        if (!strcmp(b->c->outputs[i].name, name))
            return b->bufs[b->c->ninputs + i];
    return NULL;
}

int cs_current_check(const ea_capture *c, const ea_capture_run *r, ea_error *err)
{
    if (ea_replay_check(c, r, err))
        return -1;
    if (r->nbuffers)
        return ea_fail(err, "%s: run \"%s\" needs %d intermediate buffers; the scope's launches take only its inputs "
                       "and outputs", c->file, r->config, r->nbuffers);
    return 0;
}

int cs_current_bind(cs_current *cur, const ea_capture *c, const ea_capture_run *r, void *const bufs[], ea_error *err)
{
    memset(cur, 0, sizeof *cur);
    if (cs_current_check(c, r, err))
        return -1;
    cur->steps = calloc((size_t)(r->nsteps ? r->nsteps : 1), sizeof *cur->steps);
    if (!cur->steps)
        return ea_fail(err, "%s: out of memory", c->file);
    buffers b = {c, bufs};
    for (int i = 0; i < r->nsteps; i++, cur->nsteps++)
        if (ea_replay_bind_step(c, &r->steps[i], buffer_of, &b, &cur->steps[i], err))
            return cs_current_free(cur), -1;
    return 0;
}

int cs_current_enqueue(const cs_current *cur, void *stream, ea_error *err)
{
    for (int i = 0; i < cur->nsteps; i++)
        if (ea_replay_launch_enqueue(&cur->steps[i], stream, err))
            return -1;
    return 0;
}

void cs_current_free(cs_current *cur)
{
    for (int i = 0; i < cur->nsteps; i++)
        ea_replay_launch_free(&cur->steps[i]);
    free(cur->steps);
    memset(cur, 0, sizeof *cur);
}
