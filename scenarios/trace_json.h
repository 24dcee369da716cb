/* A flat JSON object reader for trace lines (internal to scenarios/). */
#ifndef GS_TRACE_JSON_H
#define GS_TRACE_JSON_H

#define GS_JSON_MAX_FIELDS 16

typedef struct gs_json_field {
    char key[32];
    int is_str;          /* 1: str holds the value; 0: num (true = 1, false/null = 0) */
    char str[256];
    double num;
} gs_json_field;

/* Parses the object in [p, end) into f (at most GS_JSON_MAX_FIELDS fields,
 * duplicate keys refused).  Returns the field count, or -1 with *why set to
 * a static description of the first problem. */
int gs_json_flat_object(gs_json_field *f, const char *p, const char *end, const char **why);

/* Skips blanks (space, tab, CR) in [p, end). */
const char *gs_json_skip_ws(const char *p, const char *end);

#endif
