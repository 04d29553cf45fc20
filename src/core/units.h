/* src/core/units.h
 *
 * Parses the quantities of scenario files (SPEC.md): sizes, times, rates and
 * lengths, each into the integer unit the model uses. Values are checked for
 * overflow and sign. Returns 0 or FS_EINVAL / FS_ERANGE and, on error, a short
 * reason in `why` (e.g. "unknown unit 'Mbit'; allowed: B KiB MiB GiB KB MB GB").
 */
#ifndef FABSIM_CORE_UNITS_H
#define FABSIM_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Sizes: B KiB MiB GiB TiB KB MB GB TB; a bare integer is bytes. */
int units_parse_size(const char *s, uint64_t *bytes, char *why, size_t why_len);
/* Times: ps ns us ms s; a bare 0 is allowed. Result in picoseconds. */
int units_parse_time(const char *s, uint64_t *ps, char *why, size_t why_len);
/* Rates: bps Kbps Mbps Gbps Tbps, and GBps (bytes). Result in bit/s. */
int units_parse_rate(const char *s, uint64_t *bps, char *why, size_t why_len);
/* Lengths: mm cm m km. Result in millimetres. */
int units_parse_length(const char *s, uint64_t *mm, char *why, size_t why_len);

/* The unit names of each kind, NULL-terminated, in the order above (for
 * `fabsim schema`, which turns them into a pattern). */
enum units_kind { UNITS_SIZE, UNITS_TIME, UNITS_RATE, UNITS_LENGTH };
size_t units_names(enum units_kind kind, const char **out, size_t max);

/* Human-readable forms for summaries and --explain (buf >= 32 bytes). */
void units_fmt_size(uint64_t bytes, char *buf, size_t len);
void units_fmt_time(uint64_t ps, char *buf, size_t len);
void units_fmt_rate(uint64_t bps, char *buf, size_t len);

#endif /* FABSIM_CORE_UNITS_H */
