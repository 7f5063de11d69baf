/* run_ctx.c: the run context the repro families read (contract in repro.h): what a run loads once. */
#include <stdio.h>
#include <string.h>

#include "corpus/occurrences.h"
#include "measure/repro.h"
#include "target/target.h"

int ea_run_ctx_open(ea_run_ctx *c, const char *golden, const char *target_dir, ea_error *err)
{
    char dir[4110];
    memset(c, 0, sizeof *c);
    snprintf(c->golden, sizeof c->golden, "%s", golden);
    snprintf(c->target_dir, sizeof c->target_dir, "%s", target_dir ? target_dir : "");
    snprintf(dir, sizeof dir, "%s/occurrences", golden);
    for (int i = 0; i < EA_AUDIT_OPS; i++)
        snprintf(c->files[i], sizeof c->files[i], "%s/%.60s.json", dir, ea_audit_ops[i].short_name);
    if (ea_occurrences_load(dir, c->docs, err))
        return -1;
    return target_dir ? ea_target_captures_load(target_dir, &c->caps, err) : 0;
}

void ea_run_ctx_close(ea_run_ctx *c)
{
    for (int i = 0; i < EA_AUDIT_OPS; i++) /* NULL when loading failed */
        cJSON_Delete(c->docs[i]);
    for (int i = 0; i < EA_REPRO_MAX_FAMILIES; i++)
        cJSON_Delete(c->memo[i].value);
    ea_captures_free(&c->caps);
    memset(c, 0, sizeof *c);
}

const cJSON *ea_run_ctx_memo(ea_run_ctx *c, const ea_repro_family *f,
                             cJSON *(*make)(const cJSON *doc, const char *file, ea_error *err), ea_error *err)
{
    int i = 0, d = ea_repro_doc(f);
    while (i < EA_REPRO_MAX_FAMILIES && c->memo[i].family && c->memo[i].family != f)
        i++;
    if (i == EA_REPRO_MAX_FAMILIES)
        return ea_fail(err, "run context: more than %d families keep a memo", EA_REPRO_MAX_FAMILIES), NULL;
    if (c->memo[i].family)
        return c->memo[i].value;
    if (d < 0 || !c->docs[d])
        return ea_fail(err, "run context: family %s's document (%s) is not loaded", f->name, f->op), NULL;
    if (!(c->memo[i].value = make(c->docs[d], c->files[d], err)))
        return NULL;
    c->memo[i].family = f;
    return c->memo[i].value;
}
