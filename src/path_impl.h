/* path_impl.h: test-only entry points of path.c.
 * ea_path_recorder: CUPTI around one checked call (path.c starts and stops it); ea_path_record_json
 * writes what it saw, or why there is nothing, through ea_path_kernels_json, and frees it.
 * ea_path_inject_delay(label, us): from now on ea_path_measure appends a delay kernel of us
 * microseconds (delay.h) to every call of the path whose steps' label is label ("index_add xlnet
 * current"), checked and timed alike; NULL stops it. The gate's GPU test uses it to make one path
 * slower by a known amount. */
#ifndef EA_PATH_IMPL_H
#define EA_PATH_IMPL_H

#include "path.h"

void ea_path_inject_delay(const char *label, double us);

typedef struct {
    int recording;
    ea_kernel_list kernels;
    ea_error why; /* when not recording */
} ea_path_recorder;
void ea_path_record_json(cJSON *path, ea_path_recorder *r);

#endif
