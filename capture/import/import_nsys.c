/*
 * Nsight Systems SQLite importer (`nsys export --type sqlite`).
 *
 * Schema (NVIDIA, "SQLite Export Schema Reference" of the Nsight Systems
 * documentation; columns are looked up by name with PRAGMA table_info, so
 * versions that add columns work, and a missing optional column is
 * tolerated):
 *   StringIds(id, value)                          names by id
 *   ThreadNames(nameId, globalTid)                thread names
 *   TARGET_INFO_GPU(id, name), TARGET_INFO_CUDA_DEVICE(gpuId, cudaId)
 *   CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, streamId, correlationId,
 *       globalPid, demangledName | shortName | mangledName -> StringIds)
 *   CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, streamId, correlationId,
 *       globalPid, bytes, copyKind, srcKind, dstKind)
 *   CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, streamId, correlationId,
 *       globalPid, bytes)
 *   CUPTI_ACTIVITY_KIND_RUNTIME / _DRIVER(start, end, globalTid,
 *       correlationId, nameId -> StringIds, e.g. "cudaLaunchKernel_v7000")
 *   NVTX_EVENTS(start, end, eventType, text, textId, globalTid):
 *       eventType 59 push/pop range, 60 start/end range
 *   OSRT_API(start, end, globalTid, nameId)       OS runtime calls
 * Timestamps are nanoseconds.  globalTid = pid * 0x1000000 + tid (plus
 * high bits), so pid = globalTid / 0x1000000 % 0x1000000 and tid =
 * globalTid % 0x1000000 (the documented "serialized process and thread
 * identifiers"); globalPid encodes the pid the same way.  copyKind is
 * CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA, 6 AtoD,
 * 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP); srcKind/dstKind are
 * CUpti_ActivityMemoryKind (1 pageable, 2 pinned, 3 device, ...).
 *
 * Mapping (timeline/SPANS.md): kernels, copies and memsets on gpu<dev>/
 * stream<s> with corr and launch_lane (the thread of the runtime/driver
 * call with the same correlation id in the same process); runtime/driver
 * calls as cuda:<api> / cuda_sync:<api>; NVTX ranges as nvtx:<text>; OS
 * runtime calls: mutex locks -> LOCK_WAIT "mutex:?" (no address known),
 * condition/semaphore/futex waits -> state:futex, sleeps -> state:sleep,
 * file/socket/poll calls -> state:io, malloc_trim -> malloc_trim, anything
 * else -> osrt:<name>.
 *
 * gs_import_file hands SQLite the file itself (read-only: it reads the
 * pages it needs, so memory is bounded by the span table); bytes in memory
 * (gs_import_bytes, the fuzz target) are read with sqlite3_deserialize.  A table that cannot
 * be read (corrupt pages) is skipped with its SQLite message; rows with a
 * missing or inverted time range are counted and skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "imp_internal.h"

#if GS_HAVE_SQLITE
#include <sqlite3.h>

typedef struct nsys {
    sqlite3 *db;
    gs_timeline *tl;
    gs_import_report *rep;
    const char *name;
    imp_lanes lanes;
    gs_imap str_idx;        /* StringIds id -> index into strs */
    char **strs;
    size_t n_strs, cap_strs;
    gs_imap thread_name;    /* globalTid -> StringIds id */
    gs_imap corr_lane;      /* key(pid, correlationId) -> lane id */
    int oom;
    gs_err *err;
    int failed;              /* a value outside timeline/limits.h: err is set */
    long row;                /* 1-based row of the table each_row reads */
} nsys;

/* A value outside timeline/limits.h in row n->row of table t: the import
 * fails (exit 2) naming "file table T row N". */
static int in_limits(nsys *n, const char *t, gs_tl_value v, int64_t x)
{
    if (gs_tl_in_range(v, x))
        return 1;
    if (!n->failed) {
        char where[700];
        snprintf(where, sizeof where, "%s table %s row %ld", n->name, t, n->row);
        gs_tl_check(n->err, "import nsys", where, v, x);
        n->failed = 1;
    }
    return 0;
}

static void skip(nsys *n, const char *reason, const char *table)
{
    char where[600];
    snprintf(where, sizeof where, "%s table %s", n->name, table);
    gs_import_skip(n->rep, reason, where);
}

static int has_table(nsys *n, const char *t)
{
    sqlite3_stmt *q;
    int yes = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') "
                                  "AND name = ?1", -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
    yes = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    return yes;
}

static int has_col(nsys *n, const char *t, const char *col)
{
    char sql[200];
    sqlite3_stmt *q;
    int yes = 0;
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", t);
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK)
        return 0;
    while (!yes && sqlite3_step(q) == SQLITE_ROW) {
        const unsigned char *c = sqlite3_column_text(q, 1);
        yes = c && !strcmp((const char *)c, col);
    }
    sqlite3_finalize(q);
    return yes;
}

/* "col" when the table has it, else "def" (a constant standing in). */
static const char *col_or(nsys *n, const char *t, const char *col, const char *def)
{
    return has_col(n, t, col) ? col : def;
}

static const char *str_of(const nsys *n, sqlite3_int64 id)
{
    int64_t i;
    return gs_imap_get(&n->str_idx, id, &i) ? n->strs[i] : NULL;
}

static void load_strings(nsys *n)
{
    sqlite3_stmt *q;
    if (!has_table(n, "StringIds") ||
        sqlite3_prepare_v2(n->db, "SELECT id, value FROM StringIds", -1, &q, NULL) != SQLITE_OK)
        return;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && !n->oom) {
        const unsigned char *v = sqlite3_column_text(q, 1);
        if (!v)
            continue;
        if (!gs_grow(&n->strs, &n->cap_strs, n->n_strs, sizeof *n->strs, 256)) {
            n->oom = 1;
            break;
        }
        char *c = strdup((const char *)v);
        if (!c || !gs_imap_put(&n->str_idx, sqlite3_column_int64(q, 0), (int64_t)n->n_strs)) {
            free(c);
            n->oom = 1;
            break;
        }
        n->strs[n->n_strs++] = c;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        skip(n, "table unreadable (strings missing from names)", "StringIds");
    sqlite3_finalize(q);
}

static void load_threads_and_gpus(nsys *n)
{
    sqlite3_stmt *q;
    if (has_table(n, "ThreadNames") &&
        sqlite3_prepare_v2(n->db, "SELECT globalTid, nameId FROM ThreadNames", -1, &q, NULL) ==
            SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW)
            if (!gs_imap_put(&n->thread_name, sqlite3_column_int64(q, 0),
                              sqlite3_column_int64(q, 1)))
                n->oom = 1;
        sqlite3_finalize(q);
    }
    if (!has_table(n, "TARGET_INFO_GPU") || !has_col(n, "TARGET_INFO_GPU", "name"))
        return;
    const char *sql = has_table(n, "TARGET_INFO_CUDA_DEVICE")
                          ? "SELECT d.cudaId, g.name FROM TARGET_INFO_CUDA_DEVICE d "
                            "JOIN TARGET_INFO_GPU g ON g.id = d.gpuId"
                          : "SELECT id, name FROM TARGET_INFO_GPU";
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const unsigned char *nm = sqlite3_column_text(q, 1);
        char key[64];
        snprintf(key, sizeof key, "device.%lld.name", (long long)sqlite3_column_int64(q, 0));
        if (nm && *nm)
            gs_timeline_meta_set(n->tl, key, (const char *)nm);
    }
    sqlite3_finalize(q);
}

static int64_t pid_of(sqlite3_int64 g) { return (int64_t)(g / 0x1000000 % 0x1000000); }
static int64_t tid_of(sqlite3_int64 g) { return (int64_t)(g % 0x1000000); }
static int64_t corr_key(int64_t pid, int64_t corr) { return pid * 4294967296LL + (corr & 0xffffffffLL); }

static gs_tl_lane *thread_lane(nsys *n, sqlite3_int64 gtid)
{
    char nm[300];
    int64_t sid;
    const char *tn = gs_imap_get(&n->thread_name, gtid, &sid) ? str_of(n, sid) : NULL;
    if (tn && *tn)
        snprintf(nm, sizeof nm, "thread/%lld %s", (long long)tid_of(gtid), tn);
    else
        snprintf(nm, sizeof nm, "thread/%lld", (long long)tid_of(gtid));
    gs_tl_lane *l = imp_lane(&n->lanes, nm, GS_ROLE_THREAD, -1, -1);
    if (!l)
        n->oom = 1;
    return l;
}

/* Runs sql over table t, calling fn per row with a valid time range. */
typedef void (*row_fn)(nsys *n, sqlite3_stmt *q, int64_t start, int64_t end);
static void each_row(nsys *n, const char *t, const char *sql, row_fn fn)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK) {
        char r[96];
        snprintf(r, sizeof r, "table unreadable: %.70s", sqlite3_errmsg(n->db));
        skip(n, r, t);
        return;
    }
    int rc;
    n->row = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && !n->oom && !n->failed) {
        n->row++;
        if (sqlite3_column_type(q, 0) == SQLITE_NULL || sqlite3_column_type(q, 1) == SQLITE_NULL) {
            skip(n, "row without start or end", t);
            continue;
        }
        int64_t s = sqlite3_column_int64(q, 0), e = sqlite3_column_int64(q, 1);
        if (!in_limits(n, t, GS_TLV_TIME, s) || !in_limits(n, t, GS_TLV_TIME, e))
            break;
        if (e < s) {
            skip(n, "row whose end precedes its start", t);
            continue;
        }
        fn(n, q, s, e);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        char r[96];
        snprintf(r, sizeof r, "table read stopped early: %.60s", sqlite3_errmsg(n->db));
        skip(n, r, t);
    }
    sqlite3_finalize(q);
}

/* Runtime and driver calls: start, end, globalTid, correlationId, nameId. */
static void api_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    sqlite3_int64 g = sqlite3_column_int64(q, 2);
    int64_t corr = sqlite3_column_int64(q, 3);
    const char *api = str_of(n, sqlite3_column_int64(q, 4));
    char a[128], sname[160], args[48];
    imp_api_name(a, sizeof a, api ? api : "unknown");
    snprintf(sname, sizeof sname, "%s%s", imp_api_is_sync(a) ? "cuda_sync:" : "cuda:", a);
    gs_tl_lane *l = thread_lane(n, g);
    if (!l)
        return;
    snprintf(args, sizeof args, "corr=%lld", (long long)corr);
    gs_tl_span(l, GS_SPAN_STEP, sname, -1, -1, s, e, 0, args);
    if (!gs_imap_put(&n->corr_lane, corr_key(pid_of(g), corr), gs_tl_lane_id(l)))
        n->oom = 1;
    n->rep->used++;
}

/* Device rows: start, end, deviceId, streamId, correlationId, globalPid, then per kind. */
static gs_tl_lane *device_lane(nsys *n, sqlite3_stmt *q, const char *t, char *launch, size_t ln,
                               int64_t *corr_out)
{
    int64_t dev = sqlite3_column_int64(q, 2), stream = sqlite3_column_int64(q, 3);
    int64_t corr = sqlite3_column_int64(q, 4), pid = pid_of(sqlite3_column_int64(q, 5)), lane;
    if (!in_limits(n, t, GS_TLV_DEVICE, dev) || !in_limits(n, t, GS_TLV_STREAM, stream))
        return NULL;
    if (dev < 0) {   /* -1 (no device) is for host lanes only */
        char where[700];
        snprintf(where, sizeof where, "%s table %s row %ld", n->name, t, n->row);
        gs_err_set(n->err, GS_ERR_FORMAT, "import nsys", where, "device -1 on a device row");
        n->failed = 1;
        return NULL;
    }
    char nm[64];
    snprintf(nm, sizeof nm, "gpu%lld/stream%lld", (long long)dev, (long long)stream);
    gs_tl_lane *l = imp_lane(&n->lanes, nm, GS_ROLE_DEVICE, (int32_t)dev, (int32_t)stream);
    if (!l) {
        n->oom = 1;
        return NULL;
    }
    *corr_out = corr;
    if (gs_imap_get(&n->corr_lane, corr_key(pid, corr), &lane))
        snprintf(launch, ln, ";launch_lane=%lld", (long long)lane);
    else
        launch[0] = '\0';
    return l;
}

static void kernel_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    char launch[48], nm[128], args[96];
    int64_t corr;
    gs_tl_lane *l = device_lane(n, q, "CUPTI_ACTIVITY_KIND_KERNEL", launch, sizeof launch, &corr);
    if (!l)
        return;
    const char *full = str_of(n, sqlite3_column_int64(q, 6));
    imp_kernel_name(nm, sizeof nm, full ? full : "kernel");
    snprintf(args, sizeof args, "corr=%lld%s", (long long)corr, launch);
    gs_tl_span(l, GS_SPAN_KERNEL, nm, -1, -1, s, e, 0, args);
    n->rep->used++;
}

static void memcpy_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    static const char *const kinds[] = {"copy", "h2d", "d2h", "h2d", "d2h", "d2d",
                                        "d2d",  "d2d", "d2d", "h2h", "p2p"};
    char launch[48], args[160];
    int64_t corr;
    gs_tl_lane *l = device_lane(n, q, "CUPTI_ACTIVITY_KIND_MEMCPY", launch, sizeof launch, &corr);
    if (!l)
        return;
    int64_t bytes = sqlite3_column_int64(q, 6), ck = sqlite3_column_int64(q, 7);
    int pageable = sqlite3_column_int64(q, 8) == 1 || sqlite3_column_int64(q, 9) == 1;
    const char *name = ck >= 0 && ck <= 10 ? kinds[ck] : "copy";
    snprintf(args, sizeof args, "bytes=%lld;pageable=%d;corr=%lld%s", (long long)bytes, pageable,
             (long long)corr, launch);
    gs_tl_span(l, GS_SPAN_COPY, name, -1, -1, s, e, 0, args);
    n->rep->used++;
}

static void memset_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    char launch[48], args[160];
    int64_t corr;
    gs_tl_lane *l = device_lane(n, q, "CUPTI_ACTIVITY_KIND_MEMSET", launch, sizeof launch, &corr);
    if (!l)
        return;
    snprintf(args, sizeof args, "bytes=%lld;pageable=0;corr=%lld%s",
             (long long)sqlite3_column_int64(q, 6), (long long)corr, launch);
    gs_tl_span(l, GS_SPAN_COPY, "memset", -1, -1, s, e, 0, args);
    n->rep->used++;
}

/* NVTX: start, end, eventType, text, textId, globalTid. */
static void nvtx_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    int64_t type = sqlite3_column_int64(q, 2);
    if ((type != 59 && type != 60) || e <= s) {
        n->rep->ignored++;   /* marks, domains, categories */
        return;
    }
    const unsigned char *txt = sqlite3_column_text(q, 3);
    const char *t = txt ? (const char *)txt : NULL;
    if (!t && sqlite3_column_type(q, 4) != SQLITE_NULL)
        t = str_of(n, sqlite3_column_int64(q, 4));
    char nm[220];
    size_t k = (size_t)snprintf(nm, sizeof nm, "nvtx:");
    for (const char *p = t ? t : "range"; *p && k + 1 < sizeof nm; p++)
        nm[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
    nm[k] = '\0';
    gs_tl_lane *l = thread_lane(n, sqlite3_column_int64(q, 5));
    if (!l)
        return;
    gs_tl_span(l, GS_SPAN_STEP, nm, -1, -1, s, e, 0, NULL);
    n->rep->used++;
}

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* OS runtime calls: start, end, globalTid, nameId. */
static void osrt_row(nsys *n, sqlite3_stmt *q, int64_t s, int64_t e)
{
    static const char *const locks[] = {
        "pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_rwlock_rdlock",
        "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
        "pthread_spin_lock", "mtx_lock", "mtx_timedlock", NULL};
    static const char *const waits[] = {
        "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "sem_wait",
        "sem_timedwait", "sem_clockwait", "futex", "pthread_join", "cnd_wait", "cnd_timedwait",
        NULL};
    static const char *const sleeps[] = {"nanosleep", "clock_nanosleep", "usleep", "sleep",
                                         NULL};
    static const char *const ios[] = {
        "read", "write", "pread", "pread64", "pwrite", "pwrite64", "readv", "writev",
        "preadv", "pwritev", "open", "open64", "openat", "openat64", "fopen", "fopen64",
        "fread", "fwrite", "fsync", "fdatasync", "fflush", "fclose", "close", "recv",
        "recvfrom", "recvmsg", "send", "sendto", "sendmsg", "accept", "accept4", "connect",
        "poll", "ppoll", "select", "pselect", "pselect6", "epoll_wait", "epoll_pwait",
        "getline", "getc", "fgets", NULL};
    const char *nm = str_of(n, sqlite3_column_int64(q, 3));
    if (!nm) {
        skip(n, "OS runtime call with an unknown name id", "OSRT_API");
        return;
    }
    gs_tl_lane *l = thread_lane(n, sqlite3_column_int64(q, 2));
    if (!l)
        return;
    char sname[160];
    if (in_list(nm, locks)) {
        gs_tl_lock_wait(l, "mutex:?", -1, -1, -1, s, e);
        n->rep->used++;
        return;
    }
    if (in_list(nm, waits))
        snprintf(sname, sizeof sname, "state:futex");
    else if (in_list(nm, sleeps))
        snprintf(sname, sizeof sname, "state:sleep");
    else if (in_list(nm, ios))
        snprintf(sname, sizeof sname, "state:io");
    else if (gs_vocab_is(nm, GS_V_MALLOC_TRIM))
        snprintf(sname, sizeof sname, "%s", gs_vocab_name(GS_V_MALLOC_TRIM));
    else
        snprintf(sname, sizeof sname, "osrt:%.150s", nm);
    char args[180];
    snprintf(args, sizeof args, "call=%.150s", nm);
    gs_tl_span(l, GS_SPAN_STEP, sname, -1, -1, s, e, 0, args);
    n->rep->used++;
}

static void device_table(nsys *n, const char *t, const char *extra, row_fn fn)
{
    if (!has_table(n, t))
        return;
    char sql[600];
    snprintf(sql, sizeof sql,
             "SELECT start, \"end\", %s, %s, %s, %s%s FROM %s",
             col_or(n, t, "deviceId", "0"), col_or(n, t, "streamId", "0"),
             col_or(n, t, "correlationId", "0"), col_or(n, t, "globalPid", "0"), extra, t);
    each_row(n, t, sql, fn);
}

/* From bytes (data, len), or from the file at path when path is set. */
static gs_status nsys_import(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                             size_t len, const char *path, const char *name, gs_err *err)
{
    char where[600];
    imp_where_off(where, sizeof where, name, 0);
    if (!path && (len < 100 || memcmp(data, "SQLite format 3", 16)))
        return gs_err_set(err, GS_ERR_FORMAT, "import nsys", where,
                          "not an SQLite database (expected the header \"SQLite format 3\" of "
                          "`nsys export --type sqlite`)");
    nsys n;
    memset(&n, 0, sizeof n);
    n.tl = tl;
    n.rep = rep;
    n.name = name;
    n.err = err;
    imp_lanes_init(&n.lanes, tl);
    gs_status st = GS_OK;
    unsigned char *copy = path ? NULL : sqlite3_malloc64(len);
    if ((!path && !copy) || !gs_imap_init(&n.str_idx, 0) || !gs_imap_init(&n.thread_name, 0) ||
        !gs_imap_init(&n.corr_lane, 0)) {
        sqlite3_free(copy);
        st = gs_err_set(err, GS_ERR_NOMEM, "import nsys", name, "out of memory");
        goto done;
    }
    if (path) {   /* SQLite reads the pages it needs: memory does not grow with the file */
        if (sqlite3_open_v2(path, &n.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
            st = gs_err_set(err, GS_ERR_FORMAT, "import nsys", where, "SQLite cannot open it: %s",
                            n.db ? sqlite3_errmsg(n.db) : "out of memory");
            goto done;
        }
    } else if (sqlite3_open(":memory:", &n.db) != SQLITE_OK) {
        sqlite3_free(copy);
        st = gs_err_set(err, GS_ERR_NOMEM, "import nsys", name, "out of memory");
        goto done;
    } else if (memcpy(copy, data, len),
               sqlite3_deserialize(n.db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                                   SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
                   SQLITE_OK) {
        st = gs_err_set(err, GS_ERR_FORMAT, "import nsys", where, "SQLite cannot open it: %s",
                        sqlite3_errmsg(n.db));
        goto done;
    }
    sqlite3_stmt *probe = NULL;
    if (sqlite3_prepare_v2(n.db, "SELECT count(*) FROM sqlite_master", -1, &probe, NULL) !=
            SQLITE_OK ||
        sqlite3_step(probe) != SQLITE_ROW) {
        if (probe)
            sqlite3_finalize(probe);
        st = gs_err_set(err, GS_ERR_FORMAT, "import nsys", where, "unreadable SQLite database: %s",
                        sqlite3_errmsg(n.db));
        goto done;
    }
    sqlite3_finalize(probe);
    if (!has_table(&n, "CUPTI_ACTIVITY_KIND_KERNEL") && !has_table(&n, "CUPTI_ACTIVITY_KIND_MEMCPY") &&
        !has_table(&n, "CUPTI_ACTIVITY_KIND_MEMSET")) {
        st = gs_err_set(err, GS_ERR_FORMAT, "import nsys", where,
                        "no CUPTI_ACTIVITY_KIND_KERNEL/MEMCPY/MEMSET table: not an Nsight Systems "
                        "export with CUDA trace (nsys profile --trace=cuda)");
        goto done;
    }
    load_strings(&n);
    load_threads_and_gpus(&n);
    static const char *const api_tables[] = {"CUPTI_ACTIVITY_KIND_RUNTIME",
                                             "CUPTI_ACTIVITY_KIND_DRIVER"};
    for (int i = 0; i < 2 && !n.oom; i++) {
        const char *t = api_tables[i];
        if (!has_table(&n, t))
            continue;
        char sql[400];
        snprintf(sql, sizeof sql, "SELECT start, \"end\", %s, %s, %s FROM %s",
                 col_or(&n, t, "globalTid", "0"), col_or(&n, t, "correlationId", "0"),
                 col_or(&n, t, "nameId", "-1"), t);
        each_row(&n, t, sql, api_row);
    }
    const char *kt = "CUPTI_ACTIVITY_KIND_KERNEL";
    char kname[80];
    snprintf(kname, sizeof kname, ", %s",
             has_col(&n, kt, "demangledName") ? "demangledName"
             : has_col(&n, kt, "shortName")   ? "shortName"
             : has_col(&n, kt, "mangledName") ? "mangledName"
             : has_col(&n, kt, "name")        ? "name"
                                              : "-1");
    if (!n.oom)
        device_table(&n, kt, kname, kernel_row);
    const char *mt = "CUPTI_ACTIVITY_KIND_MEMCPY";
    char mcols[200];
    snprintf(mcols, sizeof mcols, ", %s, %s, %s, %s", col_or(&n, mt, "bytes", "0"),
             col_or(&n, mt, "copyKind", "0"), col_or(&n, mt, "srcKind", "0"),
             col_or(&n, mt, "dstKind", "0"));
    if (!n.oom)
        device_table(&n, mt, mcols, memcpy_row);
    const char *st_ = "CUPTI_ACTIVITY_KIND_MEMSET";
    char scols[80];
    snprintf(scols, sizeof scols, ", %s", col_or(&n, st_, "bytes", "0"));
    if (!n.oom)
        device_table(&n, st_, scols, memset_row);
    if (!n.oom && has_table(&n, "NVTX_EVENTS")) {
        const char *t = "NVTX_EVENTS";
        char sql[400];
        snprintf(sql, sizeof sql,
                 "SELECT start, COALESCE(\"end\", start), %s, %s, %s, %s FROM NVTX_EVENTS",
                 col_or(&n, t, "eventType", "59"), col_or(&n, t, "text", "NULL"),
                 col_or(&n, t, "textId", "NULL"), col_or(&n, t, "globalTid", "0"));
        each_row(&n, t, sql, nvtx_row);
    }
    if (!n.oom && has_table(&n, "OSRT_API"))
        each_row(&n, "OSRT_API",
                 "SELECT start, \"end\", globalTid, nameId FROM OSRT_API", osrt_row);
    if (n.oom || n.lanes.oom) {
        st = gs_err_set(err, GS_ERR_NOMEM, "import nsys", name, "out of memory");
        goto done;
    }
    if (n.failed) {
        st = err && err->status ? err->status : GS_ERR_FORMAT;
        goto done;
    }
    imp_set_source(tl, "import:nsys", name);
done:
    if (n.db)
        sqlite3_close(n.db);
    imp_lanes_free(&n.lanes);
    for (size_t i = 0; i < n.n_strs; i++)
        free(n.strs[i]);
    free(n.strs);
    gs_imap_free(&n.str_idx);
    gs_imap_free(&n.thread_name);
    gs_imap_free(&n.corr_lane);
    return st;
}

gs_status gs_import_nsys(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                         size_t len, const char *name, gs_err *err)
{
    return nsys_import(tl, rep, data, len, NULL, name, err);
}

gs_status gs_import_nsys_path(gs_timeline *tl, gs_import_report *rep, const char *path,
                              gs_err *err)
{
    return nsys_import(tl, rep, NULL, 0, path, path, err);
}

#else /* !GS_HAVE_SQLITE */

gs_status gs_import_nsys_path(gs_timeline *tl, gs_import_report *rep, const char *path,
                              gs_err *err)
{
    return gs_import_nsys(tl, rep, NULL, 0, path, err);
}

gs_status gs_import_nsys(gs_timeline *tl, gs_import_report *rep, const uint8_t *data,
                         size_t len, const char *name, gs_err *err)
{
    (void)tl;
    (void)rep;
    (void)data;
    (void)len;
    return gs_err_set(err, GS_ERR_UNSUPPORTED, "import nsys", name,
                      "this gapscope was built without libsqlite3 (install libsqlite3-dev and "
                      "rebuild to read Nsight Systems exports)");
}

#endif
