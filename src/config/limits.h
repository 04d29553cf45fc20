/* src/config/limits.h
 *
 * Limits on what a scenario may expand to (docs/outputs.md "Limits"): a
 * small file can name a huge workload (alltoall over 100k hosts, YAML
 * aliases repeating a list of flows), which would otherwise fill memory or
 * run for hours before failing. Checked at the end of every load; the error
 * names the limit and the key.
 */
#ifndef FABSIM_CONFIG_LIMITS_H
#define FABSIM_CONFIG_LIMITS_H

#include "workload/workload.h"

#include <stdint.h>

struct scenario;
struct wl_entry;
struct diag;

/* List items read in one load, all lists together, aliases expanded:
 * SC_MAX_LIST_ITEMS in config/schema.h (the schema engine counts them). */
/* Flows (connections; QPs for collectives) of all workload entries together. */
#define SC_MAX_FLOWS WL_MAX_FLOWS
/* Ranks of one collective entry, times its jobs. */
#define SC_MAX_RANKS 1000000ull
/* Scenario events. */
#define SC_MAX_EVENTS 1000000ull

/* Flows entry `w` expands to (QPs for collectives: two per rank and
 * channel), saturating at UINT64_MAX. */
uint64_t scenario_entry_flows(const struct scenario *sc, const struct wl_entry *w);
/* 0, or FS_EINVAL with `d` naming the entry and the limit. */
int scenario_check_limits(const struct scenario *sc, struct diag *d);

#endif /* FABSIM_CONFIG_LIMITS_H */
