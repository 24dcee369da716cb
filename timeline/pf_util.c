/*
 * Device utilisation counters of the Perfetto writer (tl_perfetto.h): the
 * share of each window during which a device ran anything, the union of
 * its streams' operations.  Operations arrive in start order, so the
 * union is one open interval per device, closed when an operation starts
 * after it; a closed interval adds its busy time to the windows it covers,
 * and a window is final (its value written, when it changed) once an
 * interval starts in a later one.  Each device writes on its own sequence
 * with absolute times, in time order, so its values never wait for the
 * main sequence.  Memory: one record per device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_perfetto.h"

void pw_util_init(pw_util *u, int64_t t_first, int64_t t_last)
{
    memset(u, 0, sizeof *u);
    u->t0 = t_first;
    u->width = (t_last - t_first) / GS_PW_UTIL_BINS;
    if (u->width < 1000)
        u->width = 1000;
}

void pw_util_free(pw_util *u)
{
    free(u->d);
    memset(u, 0, sizeof *u);
}

static uint32_t seq_of(const pw_util *u, const pw_util_dev *D)
{
    return PW_SEQ_UTIL + (uint32_t)(D - u->d);
}

static void put(pw *w, const pw_util *u, pw_util_dev *D, int64_t bin, double v)
{
    if (v == D->last)
        return;
    pw_counter_event(w, seq_of(u, D), D->uuid, u->t0 + bin * u->width, v);
    D->last = v;
}

/* Busy time [a, b) into the bins, writing the bins it leaves behind. */
static void add_busy(pw *w, const pw_util *u, pw_util_dev *D, int64_t a, int64_t b)
{
    while (a < b) {
        int64_t k = (a - u->t0) / u->width;
        if (k > D->bin) {
            put(w, u, D, D->bin, 100.0 * (double)D->acc / (double)u->width);
            if (k > D->bin + 1)
                put(w, u, D, D->bin + 1, 0);   /* idle windows between */
            D->bin = k;
            D->acc = 0;
        }
        int64_t e = u->t0 + (k + 1) * u->width;
        if (e > b)
            e = b;
        D->acc += e - a;
        a = e;
    }
}

int pw_util_op(pw *w, pw_util *u, int32_t dev, uint64_t parent, int64_t s, int64_t e)
{
    size_t i = 0;
    while (i < u->n && u->d[i].dev != dev)
        i++;
    if (i == u->n) {
        pw_util_dev *nd = realloc(u->d, (i + 1) * sizeof *nd);
        if (!nd)
            return 0;
        u->d = nd;
        char name[64];
        snprintf(name, sizeof name, "gpu%d util %%", (int)dev);
        nd[i] = (pw_util_dev){dev, pw_named_track(w, parent, name, 1), 0, 0, 0,
                              (s - u->t0) / u->width, 0, -1};
        u->n++;
    }
    pw_util_dev *D = &u->d[i];
    if (D->open && s <= D->ce) {
        if (e > D->ce)
            D->ce = e;
        return 1;
    }
    if (D->open)
        add_busy(w, u, D, D->cs, D->ce);
    D->open = 1;
    D->cs = s;
    D->ce = e;
    return 1;
}

void pw_util_finish(pw *w, pw_util *u)
{
    for (size_t i = 0; i < u->n; i++) {
        pw_util_dev *D = &u->d[i];
        if (D->open)
            add_busy(w, u, D, D->cs, D->ce);
        put(w, u, D, D->bin, 100.0 * (double)D->acc / (double)u->width);
        put(w, u, D, D->bin + 1, 0);
    }
}
