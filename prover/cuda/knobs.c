/*
 * The CUDA backend's tuning knobs (contract in knobs.h): the table built
 * from GS_CU_KNOBS, parsing and formatting of values, the store of
 * configured values and the value in effect that the kernels read.
 * Called by the .cu files where each knob acts, by the scenario driver
 * ([gpu]) and by `gapscope cuda-bench`.  Plain C: built with or without
 * CUDA.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "knobs.h"

static const gs_cu_knob_def table[] = {
#define GS_CU_KNOB_ROW(id, key, env, fl, lo, hi, def, ch, help) {key, env, fl, lo, hi, def, ch, help},
    GS_CU_KNOBS(GS_CU_KNOB_ROW)
#undef GS_CU_KNOB_ROW
};
_Static_assert(sizeof table / sizeof table[0] == GS_CU_KNOB_COUNT, "knob table out of step");

/* Defaults parsed once from the table's text; the configured values. */
static int defaults[GS_CU_KNOB_COUNT];
static _Atomic int configured[GS_CU_KNOB_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_defaults(void)
{
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        /* test_cuda.c checks that every default parses. */
        if (!gs_cu_knob_parse((gs_cu_knob_id)k, table[k].def, &defaults[k]))
            defaults[k] = table[k].lo;
        atomic_store(&configured[k], defaults[k]);
    }
}

const gs_cu_knob_def *gs_cu_knob_def_of(gs_cu_knob_id k) { return &table[k]; }

int gs_cu_knob_find(const char *key)
{
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const char *a = table[k].key, *b = key;
        while (*a && (*a == *b || (*a == '_' && *b == '-'))) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return k;
    }
    return -1;
}

/* Index of `text` among the |-separated choices, -1 if absent. */
static int choice_index(const char *choices, const char *text)
{
    size_t n = strlen(text);
    int i = 0;
    for (const char *p = choices;; i++) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, text, n))
            return i;
        if (!p[len])
            return -1;
        p += len + 1;
    }
}

/* The i-th choice into out. */
static void choice_name(const char *choices, int i, char *out, size_t len)
{
    const char *p = choices;
    for (; i > 0; i--) {
        p += strcspn(p, "|");
        if (*p)
            p++;
    }
    snprintf(out, len, "%.*s", (int)strcspn(p, "|"), p);
}

int gs_cu_knob_parse(gs_cu_knob_id k, const char *text, int *out)
{
    const gs_cu_knob_def *d = &table[k];
    if (!text || !*text)
        return 0;
    if (d->choices) {
        int i = choice_index(d->choices, text);
        if (i < 0)
            return 0;
        *out = i;
        return 1;
    }
    if ((d->flags & GS_CU_KF_AUTO) && !strcmp(text, "auto")) {
        *out = GS_CU_AUTO;
        return 1;
    }
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (!(text[hex ? 2 : 0] >= '0' && text[hex ? 2 : 0] <= '9'))
        return 0;
    char *end;
    errno = 0;
    long v = strtol(text, &end, hex ? 16 : 10);
    if (*end || errno || v < d->lo || v > d->hi)
        return 0;
    if ((d->flags & GS_CU_KF_POW2) && (v & (v - 1)) != 0)
        return 0;
    *out = (int)v;
    return 1;
}

void gs_cu_knob_expects(gs_cu_knob_id k, char *out, size_t len)
{
    const gs_cu_knob_def *d = &table[k];
    if (d->choices)
        snprintf(out, len, "one of %s", d->choices);
    else
        snprintf(out, len, "%s%s in [%d, %d]", d->flags & GS_CU_KF_AUTO ? "auto or " : "",
                 d->flags & GS_CU_KF_POW2 ? "a power of two" : "an integer", d->lo, d->hi);
}

void gs_cu_knob_format(gs_cu_knob_id k, int v, char *out, size_t len)
{
    const gs_cu_knob_def *d = &table[k];
    if (d->choices)
        choice_name(d->choices, v, out, len);
    else if (v == GS_CU_AUTO && (d->flags & GS_CU_KF_AUTO))
        snprintf(out, len, "auto");
    else
        snprintf(out, len, "%d", v);
}

int gs_cu_knob_default(gs_cu_knob_id k)
{
    pthread_once(&once, init_defaults);
    return defaults[k];
}

int gs_cu_knob_env(gs_cu_knob_id k, int *v)
{
    int x;
    if (!gs_cu_knob_parse(k, getenv(table[k].env), &x))
        return 0;
    if (v)
        *v = x;
    return 1;
}

int gs_cu_knob(gs_cu_knob_id k)
{
    int v;
    if (gs_cu_knob_env(k, &v))
        return v;
    pthread_once(&once, init_defaults);
    return atomic_load_explicit(&configured[k], memory_order_relaxed);
}

int gs_cu_knob_is(gs_cu_knob_id k, const char *name)
{
    const char *ch = table[k].choices;
    return ch && gs_cu_knob(k) == choice_index(ch, name);
}

void gs_cu_knob_set(gs_cu_knob_id k, int v)
{
    pthread_once(&once, init_defaults);
    atomic_store(&configured[k], v);
}

void gs_cu_knobs_reset(void)
{
    pthread_once(&once, init_defaults);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++)
        atomic_store(&configured[k], defaults[k]);
}

gs_status gs_cu_knobs_env_check(gs_err *err)
{
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const char *v = getenv(table[k].env);
        if (!v || !*v || gs_cu_knob_env((gs_cu_knob_id)k, NULL))
            continue;
        char want[96];
        gs_cu_knob_expects((gs_cu_knob_id)k, want, sizeof want);
        return gs_err_set(err, GS_ERR_FORMAT, "gpu knob", "environment", "%s=%s: expected %s (knob %s)",
                          table[k].env, v, want, table[k].key);
    }
    return GS_OK;
}

void gs_cu_knobs_help(FILE *f, const char *indent, int flag)
{
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const gs_cu_knob_def *d = &table[k];
        char name[48], range[48];
        if (flag) {
            snprintf(name, sizeof name, "--%s %s", d->key, d->choices ? "NAME" : "N");
            for (char *c = name + 2; *c; c++)
                *c = *c == '_' ? '-' : *c;
        } else {
            snprintf(name, sizeof name, "%s", d->key);
        }
        if (d->choices)
            snprintf(range, sizeof range, "%s", d->choices);
        else
            snprintf(range, sizeof range, "%s%d..%d%s", d->flags & GS_CU_KF_AUTO ? "auto|" : "", d->lo,
                     d->hi, d->flags & GS_CU_KF_POW2 ? " (2^k)" : "");
        fprintf(f, "%s%-18s %s, default %s, environment %s\n%s%-18s %s\n", indent, name, range, d->def,
                d->env, indent, "", d->help);
    }
}
