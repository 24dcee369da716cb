/*
 * Numbers with units, as gapscope's INI files and command lines write
 * them (scenario files, the gate's thresholds, sweep axes):
 *
 *   duration  <number><unit>, unit ns | us | ms | s | min   ("50ms", "1.5s")
 *   size      <number>[unit], unit B | KiB | MiB | GiB | TiB (binary; no unit = bytes)
 *
 * Numbers are finite decimals ("1.5", "2e3"; no hex, inf or nan), blanks
 * allowed around them and before the unit.  A duration needs its unit:
 * "50" alone is an error, not a guess.  Pure functions; return 1 on
 * success and leave *out alone on failure.
 */
#ifndef GS_UNITS_H
#define GS_UNITS_H

#include <stdint.h>

/* A finite decimal number after optional blanks; *rest points past it and
 * the blanks that follow (at the unit, or at the end). */
int gs_parse_number(double *out, const char *text, const char **rest);
/* The longest duration accepted: 2^62 - 1 ns (about 146 years), the
 * longest time a timeline holds (GS_TL_TIME_LIMIT_NS of timeline/limits.h,
 * which checks the two agree), so a duration read here can be added to a
 * time and written into a capture that reads back. */
#define GS_DURATION_MAX_NS INT64_C(0x3fffffffffffffff)

/* A duration 0..GS_DURATION_MAX_NS in nanoseconds (rounded to the nearest). */
int gs_parse_duration_ns(int64_t *out, const char *text);
/* A size >= 0 in whole bytes. */
int gs_parse_size_bytes(uint64_t *out, const char *text);

#endif
