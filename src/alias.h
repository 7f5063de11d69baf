/* alias.h: a family's short names for its golden points ("xlnet" for index_add-a8e741bae3fe).
 * ea_alias_of returns the alias of a point, or NULL (repro.c; the reverse is repro_impl.h's, test-only). */
#ifndef EA_ALIAS_H
#define EA_ALIAS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *alias, *point;
} ea_alias;

const char *ea_alias_of(const ea_alias *table, int n, const char *point);

#ifdef __cplusplus
}
#endif

#endif
