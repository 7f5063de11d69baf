/* meta_impl.h: test-only entry point of meta.c.
 * ea_meta_bucket_name: "fusible_in_partition", ...; NULL outside the enum. */
#ifndef EA_META_IMPL_H
#define EA_META_IMPL_H


const char *ea_meta_bucket_name(int bucket);

#endif
