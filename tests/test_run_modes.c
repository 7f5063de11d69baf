/* run --mode against the modes each family declares (ea_repro_modes), host-only: a family runs only the
 * modes it declares, and a point whose family has none of the asked ones is an unsupported result with
 * the reason, never a result recorded in another mode (cumsum used to record "faithful" when asked for
 * fabricated). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "measure/repro.h"

#define has(s, needle) cr_assert(strstr((s), (needle)), "expected '%s' in:\n%s", (needle), (s))

static const ea_repro_family *family(const char *name)
{
    const ea_repro_family *f = ea_repro_family_named(name);
    cr_assert_not_null(f, "no family %s", name);
    return f;
}

Test(run_modes, every_family_declares_its_modes)
{
    for (const ea_repro_family *const *f = ea_repro_families; *f; f++) {
        cr_assert((*f)->modes & EA_MODE_FAITHFUL, "%s: every family runs the graphs' own values", (*f)->name);
        cr_assert_eq(((*f)->modes & EA_MODE_FABRICATED) != 0, !strcmp((*f)->name, "index_add"),
                     "%s: only index_add has a fabricated input (randint(0, 100) indices)", (*f)->name);
    }
}

Test(run_modes, the_asked_modes_a_family_declares)
{
    char why[256];
    ea_run_opts fo, fab = {.fabricated = 1, .sm_count = 7}, both = {.faithful = 1, .fabricated = 1};
    cr_assert_eq(ea_repro_modes(family("cumsum"), &fab, &fo, why, sizeof why), 0);
    cr_assert(!fo.faithful && !fo.fabricated, "nothing to run, not the faithful mode instead");
    cr_assert_str_eq(why, "family cumsum has no fabricated mode (it declares: faithful): not run");
    cr_assert_eq(fo.sm_count, 7, "the other options pass through");

    cr_assert_eq(ea_repro_modes(family("cat"), &both, &fo, why, sizeof why), EA_MODE_FAITHFUL);
    cr_assert(fo.faithful && !fo.fabricated);
    cr_assert_str_eq(why, "family cat has no fabricated mode (it declares: faithful)");

    cr_assert_eq(ea_repro_modes(family("index_add"), &both, &fo, why, sizeof why), EA_MODE_FAITHFUL | EA_MODE_FABRICATED);
    cr_assert(fo.faithful && fo.fabricated && why[0] == '\0');
    cr_assert_eq(ea_repro_modes(family("index_add"), &fab, &fo, why, sizeof why), EA_MODE_FABRICATED);
    cr_assert(!fo.faithful && fo.fabricated && why[0] == '\0');

    const ea_repro_family none = {.name = "none"};
    cr_assert_eq(ea_repro_modes(&none, &both, &fo, why, sizeof why), 0);
    cr_assert_str_eq(why, "family none has no faithful or fabricated mode (it declares: none): not run");
}

/* The plan is where the selection shows without a GPU: a measured run goes through the same each_point. */
Test(run_modes, fabricated_only_is_reported_unsupported_per_point)
{
    cli_run r = test_cli("run", "--scope", "cumsum", "--plan", "--mode", "fabricated", "--json", NULL);
    cr_assert_eq(r.status, 1, "unsupported points: exit 1\n%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *o;
    cr_assert_not_null(j, "the plan is printed:\n%s", r.out);
    int n = 0;
    cJSON_ArrayForEach(o, j) {
        n++;
        cr_assert_str_eq(cJSON_GetObjectItem(o, "family")->valuestring, "cumsum");
        cr_assert_str_eq(cJSON_GetObjectItem(o, "unsupported")->valuestring,
                         "family cumsum has no fabricated mode (it declares: faithful): not run");
        cr_assert_null(cJSON_GetObjectItem(o, "config"), "no plan in another mode");
    }
    cr_assert_eq(n, 11, "each of cumsum's points (the gpt-oss one is routing's)");
    has(r.err, "unsupported: family cumsum has no fabricated mode");
    cJSON_Delete(j);
    cli_run_free(&r);

    /* the table says it too, and a family with the mode is planned beside the refused ones */
    r = test_cli("run", "--scope", "all", "--plan", "--mode", "fabricated", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    has(r.out, "UNSUPPORTED: family cat has no fabricated mode (it declares: faithful): not run");
    has(r.out, "UNSUPPORTED: family routing_histc has no fabricated mode");
    has(r.out, "xlnet");
    cli_run_free(&r);
}

Test(run_modes, both_runs_the_declared_mode_and_says_so)
{
    cli_run r = test_cli("run", "--scope", "cumsum", "--plan", "--mode", "both", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *o;
    cr_assert_not_null(j);
    cJSON_ArrayForEach(o, j) {
        cr_assert_null(cJSON_GetObjectItem(o, "unsupported"));
        cr_assert_not_null(cJSON_GetObjectItem(o, "config"));
    }
    has(r.err, "run: 11 of 11 points ran in only some of the asked modes, as their families declare (expected, not an error");
    has(r.err, "family cumsum has no fabricated mode (it declares: faithful)");
    cJSON_Delete(j);
    cli_run_free(&r);

    r = test_cli("run", "--scope", "index_add", "--plan", "--mode", "fabricated", NULL);
    cr_assert_eq(r.status, 0, "index_add declares the fabricated mode\n%s", r.err);
    cr_assert_null(strstr(r.err, "part of the asked modes"), "%s", r.err);
    cli_run_free(&r);
}
