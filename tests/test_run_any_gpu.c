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

/* On a GPU: the document names this GPU's model. Where the target is another GPU's (today's case on an H100),
 * every result's fidelity says it was measured on another GPU and its view quotes no captured time (both are the
 * target GPU's), the table says why, and a run without --any-gpu is refused; on the target's own GPU --any-gpu
 * changes nothing, so the fidelity is the ordinary one. */
Test(run_any_gpu_gpu, the_document_names_the_gpu_that_measured)
{
    char model[64];
    ea_device_info dev;
    ea_target t;
    ea_error err;
    test_skip_without_gpu();
    cr_assert(ea_device_probe(&dev));
    ea_gpu_model(dev.name, model, sizeof model);
    cr_assert_eq(ea_target_find("golden", TEST_TARGET, &t, &err), 0, "%s", err.msg);
    const int other = strcmp(model, t.gpu_model) != 0;
    /* no --target: the only target of today's code, which the document's command then names */
    cli_run r = test_cli("run", "--scope", POINT, "--any-gpu", "--json", "--quiet", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *doc = cJSON_Parse(r.out);
    cr_assert_not_null(doc, "%s", r.out);
    cr_assert_str_eq(ej_text(cJSON_GetObjectItemCaseSensitive(doc, "gpu"), "model"), model);
    has(ej_text(doc, "command"), "--any-gpu --json --quiet --target " TEST_TARGET);
    const cJSON *s;
    int n = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "scopes")) {
        const char *note = ej_str(cJSON_GetObjectItemCaseSensitive(s, "fidelity"), "note");
        char *view = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(s, "view"));
        if (other) {
            cr_assert(note && !strcmp(note, "fidelity_other_gpu"), "%s: note %s", ej_text(s, "point"), note);
            cr_assert(!view || !strstr(view, "torch_compiled_us"), "a captured time in the view: %s", view);
        } else {
            cr_assert(!note || strcmp(note, "fidelity_other_gpu"), "on the target's own GPU: %s", note);
        }
        free(view);
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
