/*
 * The first CPU's fields in /proc/cpuinfo ("model name", "cpu MHz"): what a
 * capture, a fingerprint and the CPU backend's description say of the host.
 */
#ifndef GS_CPUINFO_H
#define GS_CPUINFO_H

#include <stddef.h>

/* The value of the first line "KEY<blanks>: VALUE" of /proc/cpuinfo, into
 * out (n bytes, truncated); 1 when found, else 0 with out untouched. */
int gs_cpuinfo_field(char *out, size_t n, const char *key);

#endif
