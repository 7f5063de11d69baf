/* candidate.h: a staged candidate-lowering target (ci/golden-stage --lowering NAME: a target folder
 * whose target.json names the lowering) priced against the target it was staged from.
 * Contract:
 * - The candidate's effect is read where it was measured: each capture of the stage made under the
 *   lowering holds the partition compiled with it ("default") and without it ("without_lowering"),
 *   both timed by torch.compile in one process on one GPU; saving = without - with. The scope's
 *   price after the lowering is the base target's faithful current path minus that saving, beside
 *   the base's fabricated current path, its fastest faithful oracle that passed and its floor (one
 *   baselines file). recovered = saving / (current - oracle), the share of the oracle's headroom;
 *   under EA_CANDIDATE_PROFITABLE it is labelled "measured, not profitable", with its numbers. The
 *   price's uncertainty: each of its three medians' notch half-width (EA_DRIFT_NOTCH_K x IQR / sqrt(n), from
 *   the capture runs' and the base path's quartiles and sample counts), summed: candidate_us +- candidate_pm_us.
 * - Every oracle must be no slower than every candidate of its scope: a candidate price under the
 *   oracle's time is a failure naming the scope, the candidate and both times.
 * - The stage's replay.json (optional) adds the C replay of the captured partition as a witness
 *   (its verdict, time and ratio to torch's).
 * - A scope the stage cannot price (no run without the lowering, untimed runs, a candidate run with
 *   as many ATen calls as today's, i.e. a lowering that did not apply, no base result) is
 *   listed with the reason; it hides no other scope. Malformed files fail naming file and JSON path.
 * - ea_candidates_staged prices every target of golden/targets with a lowering and base's GPU model and
 *   torch (none: an empty array). */
#ifndef EA_CANDIDATE_H
#define EA_CANDIDATE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "target/target.h"

#define EA_CANDIDATE_PROFITABLE 0.25 /* share of the oracle's headroom a candidate must recover */

/* {"target", "lowering", "stands_for", "base", "scopes": [...], "failures": [...]} (docs/reference/schema.md) */
int ea_candidate_price(const char *stage_dir, const ea_target *base, const cJSON *base_baselines, cJSON **out,
                       ea_error *err);
/* An array of ea_candidate_price documents; a candidate that cannot be priced (its captures no longer read: a base
 * recaptured since) is {"target", "lowering", "base", "scopes": [], "failures": [], "unreadable": "<why>"} and hides
 * no other; ea_candidates_check counts it as a failure. */
int ea_candidates_staged(const char *golden, const ea_target *base, const cJSON *base_baselines, cJSON **out,
                         ea_error *err);
/* run's check on a fresh measurement (results: a baselines document): every committed candidate of base's
 * GPU model and torch priced against it; each oracle slower than a candidate is printed to log. Returns the
 * number of such failures, -1 on bad input. A candidate target itself (base->lowering) has none to check, nor has a
 * document measured on another GPU model than base's (run --any-gpu): the candidates' prices are base's GPU's. */
int ea_candidates_check(const char *golden, const ea_target *base, const cJSON *results, FILE *log, ea_error *err);
/* The best candidate price of a scope over the documents (NaN when none priced it); *name gets its lowering. */
double ea_candidates_best(const cJSON *staged, const char *scope, const char **name);

#endif
