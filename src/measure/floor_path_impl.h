/* floor_path_impl.h: the host steps of floor_path.c, for tests: the configuration's words (ea_floor_path_words: -1
 * naming the key as ea_floor_path_open says) and the check (ea_floor_path_expect: dst, the written words, against
 * what the kernel writes from src, the read words of gpu/pattern.h: mismatched, unwritten, the poison's all-ones
 * words, and n into c). */
#ifndef EA_FLOOR_PATH_IMPL_H
#define EA_FLOOR_PATH_IMPL_H

#include "measure/floor_path.h"

int ea_floor_path_words(const cJSON *config, const char *label, size_t *read, size_t *written, ea_error *err);
void ea_floor_path_expect(const uint32_t *dst, const uint32_t *src, size_t read, size_t written, ea_check *c);

#endif
