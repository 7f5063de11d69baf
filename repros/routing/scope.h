/* scope.h: the gpt-oss routing scope of a golden point (issue 5), read from the point and its capture.
 * Contract:
 * - rt_scope_parse reads the point of golden/occurrences/histc.json (derived kind "sorted_topk_ids") or
 *   cumsum.json (kind "histogram" of "sorted_topk_ids"): tokens, k, experts, and from every scope group's
 *   nodes the sort (ascending), histc(bins, min, max) and cumsum(dtype=int32). What the repro needs is
 *   checked: bins = experts, min = 0, max = experts - 1 (offsets are the experts' cumulative counts), ids
 *   in range, RT_SORT_MIN..RT_SORT_LARGE_MAX ids (ATen's WarpMergeSort up to 128, MediumRadixSort up to
 *   4096, its CUB sort above: the replicas), the same arguments in every group.
 *   Bad input fails with "<file> <JSON path>: expected ..., got ...".
 * - rt_scope_capture finds the capture of the point among the run's captures (ea_capture_of_point:
 *   one named by a scope id of the point, else one covering its occurrences), checks its "default" run is
 *   [aten sort, Triton convert, aten histc, Triton cumsum] on the scope's shapes, the Triton steps'
 *   arguments inside their buffers (ea_replay_check_args), and fills the two Triton steps; messages
 *   name capture.json and the JSON path. Returns 1 when no capture covers the point (a shape not
 *   captured yet: the plan still describes it, the run reports it unsupported), -1 on a broken one.
 *   Host only.
 * - rt_capture_tuned checks the same capture's "coordinate_descent" run the same way (and its buffers the
 *   default run's, which the replay shares) into tuned: Inductor with coordinate-descent tuning on, the
 *   current_tuned path. -1 (err) when it does not hold.
 * - rt_claims: 1 when a point's scope has an aten.histc or aten.sort node (the routing scope). */
#ifndef RT_SCOPE_H
#define RT_SCOPE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "target/capture.h"
#include "base/error.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RT_MAX_GROUPS 8

typedef enum { RT_WHOLE, RT_NARROW } rt_form;     /* ids -> everything; sorted ids -> offsets */
typedef enum { RT_UNIFORM, RT_SKEWED } rt_dist;   /* topk_ids (as captured), topk_ids_skewed */
#define RT_SEED 0                                 /* both distributions, as the capture's input */

typedef struct {
    char file[512], path[64];       /* where the point was read, for messages */
    char point[64], alias[32], op[32];
    int64_t occurrences;
    int ngroups;
    char scope_ids[RT_MAX_GROUPS][96];
    int64_t tokens, k, experts, n;  /* n = tokens * k ids */
    int64_t bins, hmin, hmax;       /* histc's arguments */
} rt_scope;

/* The capture's run and the two Triton steps the current path replays. */
typedef struct {
    const ea_capture *cap; /* one of the run context's captures */
    const ea_capture_run *run;
    const ea_capture_step *convert, *scan;
    int run_index, convert_index, scan_index;  /* for messages and the plan */
} rt_capture;

int rt_scope_parse(const cJSON *point, const char *file, int index, rt_scope *s, ea_error *err);
int rt_scope_capture(const rt_scope *s, const cJSON *point, const ea_captures *caps, rt_capture *c, ea_error *err);
int rt_capture_tuned(const rt_scope *s, const rt_capture *c, rt_capture *tuned, ea_error *err);
int rt_claims(const cJSON *point);

#ifdef __cplusplus
}
#endif

#endif
