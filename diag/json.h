/*
 * Small JSON output helpers shared by diag's writers (RFC 8259).
 * Strings: invalid UTF-8 bytes become U+FFFD, control characters \u00XX.
 * Numbers: NaN and infinities are written as null.
 */
#ifndef GS_JSON_H
#define GS_JSON_H

#include <stdio.h>

void gs_json_str(FILE *f, const char *s);
void gs_json_num(FILE *f, double v);

#endif
