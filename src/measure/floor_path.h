/* floor_path.h: a configuration's measured floor (issue 25, item 3), the path EA_PATH_FLOOR (path.h) every run adds
 * beside the family's paths: one kernel reading the configuration's read bytes (config.floor_bytes less
 * config.floor_written_bytes) and writing its written bytes, coalesced (gpu/floor_copy.h), timed by the same timer
 * and cold policy as the scope's paths. So its cold time holds what the cold flush charges any call that moves
 * those bytes (docs/evidence/cold-flush), and fractions.h's measured fraction compares like with like.
 * Contract: ea_floor_path_open takes the configuration's read and written bytes as 16-byte words, each rounded up
 * (-1 naming the key when floor_bytes or floor_written_bytes is missing or not a byte count, or written is 0 or
 * above floor_bytes), and allocates and fills the source (no zero word, no all-ones word) and the destination on
 * the current device; ea_floor_path_steps are the path's steps (poison, enqueue, check: every written word against
 * what the kernel writes from the source, exact); ea_floor_path_close frees what open took (also after a failed
 * open). Its host steps: floor_path_impl.h. */
#ifndef EA_FLOOR_PATH_H
#define EA_FLOOR_PATH_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/error.h"
#include "measure/path.h"

typedef struct {
    size_t read, written;  /* 16-byte words */
    uint32_t *src_host;    /* read words of 4 lanes */
    uint32_t *dst_host;    /* written words, the check's copy */
    void *src, *dst;       /* device */
    const char *label;     /* open's, for messages: the caller keeps it */
} ea_floor_path;

int ea_floor_path_open(const cJSON *config, const char *label, ea_floor_path *f, ea_error *err);
ea_path_steps ea_floor_path_steps(ea_floor_path *f);
void ea_floor_path_close(ea_floor_path *f);

#endif
