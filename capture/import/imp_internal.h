/*
 * Helpers shared by the importers (internal to capture/import).
 *
 * imp_lanes: lanes by name, opened on first use (a timeline has no lookup
 * by name).  imp_imap: int64 -> int64 map (correlation ids, thread ids).
 * Both grow as needed; imp_*_free releases them.
 */
#ifndef GS_IMP_INTERNAL_H
#define GS_IMP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"

typedef struct imp_lanes {
    gs_timeline *tl;
    char **name;
    gs_tl_lane **lane;
    size_t cap, n;
    int oom;                 /* an allocation failed (lookups then return NULL) */
} imp_lanes;

void imp_lanes_init(imp_lanes *m, gs_timeline *tl);
void imp_lanes_free(imp_lanes *m);
/* The lane called name (opened with role/device/stream when new), NULL on OOM. */
gs_tl_lane *imp_lane(imp_lanes *m, const char *name, gs_role role, int32_t device,
                     int32_t stream);

typedef struct imp_imap {
    int64_t *key, *val;
    unsigned char *used;
    size_t cap, n;
} imp_imap;

int imp_imap_init(imp_imap *m);   /* 0 on OOM */
void imp_imap_free(imp_imap *m);
int imp_imap_put(imp_imap *m, int64_t k, int64_t v);   /* overwrites; 0 on OOM */
int imp_imap_get(const imp_imap *m, int64_t k, int64_t *v);

/* Times an importer accepts: timeline/limits.h (GS_TLV_TIME); offsets and
 * sums of times go through gs_tl_time_add, differences through gs_tl_sub. */
#include "../../timeline/limits.h"

/* "where" strings for messages and skip reasons. */
void imp_where_line(char *buf, size_t n, const char *name, long line);
void imp_where_off(char *buf, size_t n, const char *name, uint64_t off);

/* A decimal number of microseconds ("12.345", "-3", "1.5e3") as integer
 * nanoseconds, exactly when it has at most 3 fractional digits and no
 * exponent.  Returns 1, 0 when not a number, -1 when the nanoseconds do
 * not fit an int64 (the caller names the input as out of range). */
int imp_us_to_ns(const char *text, int64_t *out);

/* A kernel name shortened for a span name: leading return type, template
 * arguments and parameter list dropped, at most 96 bytes, never empty. */
void imp_kernel_name(char *out, size_t n, const char *full);

/* Sets `source` and appends name to `source.file` (';'-separated). */
void imp_set_source(gs_timeline *tl, const char *source, const char *name);

/* The CUDA API name without a "_vNNNN" version suffix (nsys StringIds). */
void imp_api_name(char *out, size_t n, const char *api);
/* 1 when a runtime/driver API call blocks the host until device work is
 * done (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
 * blocking cudaMemcpy*, cuCtxSynchronize, cuMemcpyHtoD, ...). */
int imp_api_is_sync(const char *api);

#endif
