/* alias.h: a family's short names for its golden points ("xlnet" for index_add-a8e741bae3fe).
 * ea_alias_of / ea_point_of return the other column of the row holding key, or NULL (repro.c). */
#ifndef EA_ALIAS_H
#define EA_ALIAS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *alias, *point;
} ea_alias;

const char *ea_alias_of(const ea_alias *table, int n, const char *point);
const char *ea_point_of(const ea_alias *table, int n, const char *alias);

#ifdef __cplusplus
}
#endif

#endif
