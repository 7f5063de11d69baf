/* path_impl.h: test-only entry points of path.c.
 * ea_path_inject_delay(label, us): from now on ea_path_measure appends a delay kernel of us
 * microseconds (delay.h) to every call of the path whose steps' label is label ("index_add xlnet
 * current"), checked and timed alike; NULL stops it. The gate's GPU test uses it to make one path
 * slower by a known amount. */
#ifndef EA_PATH_IMPL_H
#define EA_PATH_IMPL_H

void ea_path_inject_delay(const char *label, double us);

#endif
