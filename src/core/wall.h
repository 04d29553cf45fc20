/* src/core/wall.h
 *
 * The only wall-clock reads in the simulator (DESIGN.md rule 1): they feed
 * the wall-time fields of results.json and the progress line, never the model.
 */
#ifndef FABSIM_CORE_WALL_H
#define FABSIM_CORE_WALL_H

double wall_now_s(void);     /* monotonic seconds */
double wall_cpu_s(void);     /* process CPU seconds */
long wall_peak_rss_kb(void); /* peak resident set size */

#endif /* FABSIM_CORE_WALL_H */
