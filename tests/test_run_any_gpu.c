/* run --any-gpu on a GPU: measuring a target's captures on a GPU the target may not be for (a machine with no
 * target of its own), what its document and table hold. Its refusals are tested with run's others
 * (test_check_cold.c), its message without a GPU with run's (test_run_cli.c). */
#include <criterion/criterion.h>

#include <string.h>

#include "gpu/device.h"
#include "helpers.h"
#include "base/json.h"

#define POINT "opt-infer" /* one cumsum point: one Triton launch replayed, one oracle kernel */

static void has(const char *text, const char *want)
{
    cr_assert_not_null(strstr(text, want), "expected \"%s\" in:\n%s", want, text);
}

/* On a GPU: the document names this GPU's model. On a GPU no target is for, every result's fidelity says it
 * was measured on another GPU (the captured and torch times are the target GPU's) and a run without --any-gpu
 * is refused; on the target's own GPU --any-gpu changes nothing, so the fidelity is the ordinary one. */
Test(run_any_gpu_gpu, the_document_names_the_gpu_that_measured)
{
    char why[512], model[64];
    ea_device_info dev;
    test_skip_without_gpu();
    cr_assert(ea_device_probe(&dev));
    ea_gpu_model(dev.name, model, sizeof model);
    int other = test_gpu_without_target(why, sizeof why);
    cli_run r = test_cli("run", "--scope", POINT, "--any-gpu", "--target", TEST_TARGET, "--json", "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    cr_assert_not_null(doc, "%s", r.out);
    cr_assert_str_eq(ej_text(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "model"), model);
    const cJSON *s;
    int n = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const char *note = ej_str(cJSON_GetObjectItemCaseSensitive(s, "fidelity"), "note");
        if (other)
            cr_assert(note && !strcmp(note, "fidelity_other_gpu"), "%s: note %s", ej_text(s, "point"), note);
        else
            cr_assert(!note || strcmp(note, "fidelity_other_gpu"), "on the target's own GPU: %s", note);
        n++;
    }
    cr_assert_gt(n, 0, "no result in %s", r.out);
    cJSON_Delete(doc);
    cli_run_free(&r);
    /* the table reads no torch timings of the target's GPU either, and says why there is no fidelity */
    r = test_cli("run", "--scope", POINT, "--any-gpu", "--target", TEST_TARGET, "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    if (other) {
        has(r.out, "measured on another GPU model than the target's (run --any-gpu)");
        cr_assert_str_eq(r.err, "", "nothing on stderr with --quiet: %s", r.err);
    }
    cli_run_free(&r);
    if (other) {
        r = test_cli("run", "--scope", POINT, "--target", TEST_TARGET, "--quiet", NULL);
        cr_assert_eq(r.status, 2, "without --any-gpu a target of another GPU is refused: %s", r.err);
        cli_run_free(&r);
    }
}
