/* landing.h: how a set of files lands in a golden folder: whole, one writer at a time, following no link.
 * Contract: a writer locks what it replaces (ea_landing_lock: an exclusive flock on <parent>/.<name>.lock, never
 * followed if a link, removed when the writer lets go; a second writer is refused at once, naming it),
 * builds the new set in a work folder beside the destination (ea_landing_work: <parent>/.<name>.<verb>-<pid>,
 * after removing the work folders that killed writers left there), and swaps it in with one rename
 * (ea_landing_swap: an exchange when the destination exists, whose old folder is removed only after the swap
 * succeeded). Until the swap the destination is untouched; after it, it is the new set whole.
 * ea_remove_tree removes a folder and everything under it, links removed and never followed.
 * ea_stale_pid_name tells a name of the form <prefix><pid> (a work folder, a temporary file) whose process no
 * longer runs: what the next run may remove. */
#ifndef EA_LANDING_H
#define EA_LANDING_H

#include <stddef.h>

#include "base/error.h"

typedef struct {
    int fd; /* -1: not held */
    char path[4400];
} ea_lock;

/* The lock of <parent>/<name>, held until ea_landing_unlock (which removes the file). parent must exist. */
int ea_landing_lock(const char *parent, const char *name, ea_lock *lock, ea_error *err);
void ea_landing_unlock(ea_lock *lock);
/* out (n bytes): the new, empty work folder <parent>/.<name>.<verb>-<pid>. Call with the lock held. */
int ea_landing_work(const char *parent, const char *name, const char *verb, char *out, size_t n, ea_error *err);
/* work (a full set) becomes dest; the old dest, if any, is removed. On failure work is removed and dest kept. */
int ea_landing_swap(const char *work, const char *dest, ea_error *err);
void ea_remove_tree(const char *path);
/* 1 when name is prefix followed by the decimal pid of a process that no longer runs (and is not ours). */
int ea_stale_pid_name(const char *name, const char *prefix);

#endif
