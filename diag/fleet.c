/*
 * The fleet view (fleet.h): idle that lines up across devices against
 * chance, each device's own idle and its cause, the slowest device.
 * Called by run.c when a loaded run has two devices or more.
 *
 * Aligned idle is the intersection of every device's gaps inside the
 * common window; the chance level is the same intersection with the
 * devices' gaps rotated against each other within the window.  Both are
 * linear merges over sorted, disjoint interval lists.
 */
#define _POSIX_C_SOURCE 200809L
#include "fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a AND b (sorted, disjoint) into out (room for na + nb). */
static size_t intersect(gs_interval *out, const gs_interval *a, size_t na, const gs_interval *b,
                        size_t nb)
{
    size_t i = 0, j = 0, m = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].start_ns > b[j].start_ns ? a[i].start_ns : b[j].start_ns;
        int64_t e = a[i].end_ns < b[j].end_ns ? a[i].end_ns : b[j].end_ns;
        if (e > s)
            out[m++] = (gs_interval){s, e};
        if (a[i].end_ns < b[j].end_ns)
            i++;
        else
            j++;
    }
    return m;
}

/* iv (offsets in [0, len), sorted) moved by s, modulo len, into out (room n + 1). */
static size_t rotate(gs_interval *out, const gs_interval *iv, size_t n, int64_t len, int64_t s)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)   /* the part past the end comes first */
        if (iv[i].end_ns + s > len)
            out[m++] = (gs_interval){iv[i].start_ns + s >= len ? iv[i].start_ns + s - len : 0,
                                     iv[i].end_ns + s - len};
    for (size_t i = 0; i < n; i++)
        if (iv[i].start_ns + s < len)
            out[m++] = (gs_interval){iv[i].start_ns + s,
                                     iv[i].end_ns + s < len ? iv[i].end_ns + s : len};
    return m;
}

/* Every list intersected (lists[0..k), sizes n[]) into *res; tmp and res
 * have room for the first list's size plus all the others'. */
static size_t intersect_all(gs_interval *res, gs_interval *tmp, gs_interval *const *lists,
                            const size_t *n, size_t k)
{
    memcpy(res, lists[0], n[0] * sizeof *res);
    size_t m = n[0];
    for (size_t d = 1; d < k; d++) {
        m = intersect(tmp, res, m, lists[d], n[d]);
        memcpy(res, tmp, m * sizeof *res);
    }
    return m;
}

/* Cause seconds of device D's pieces inside [s, e), added to out. */
static void pieces_in(double *out, const gs_device_analysis *D, int64_t s, int64_t e)
{
    size_t lo = 0, hi = D->n_pieces;
    while (lo < hi) {   /* first piece ending after s */
        size_t mid = (lo + hi) / 2;
        if (D->pieces[mid].end_ns <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < D->n_pieces && D->pieces[i].start_ns < e; i++) {
        int64_t a = D->pieces[i].start_ns > s ? D->pieces[i].start_ns : s;
        int64_t b = D->pieces[i].end_ns < e ? D->pieces[i].end_ns : e;
        if (b > a)
            out[D->pieces[i].cause] += (double)(b - a) * 1e-9;
    }
}

static gs_cause top_of(const double *c, double *share, double total)
{
    int best = GS_CAUSE_OTHER;
    for (int k = 0; k < GS_CAUSE_COUNT; k++)
        if (c[k] > c[best])
            best = k;
    *share = total > 0 ? c[best] / total : 0.0;
    return (gs_cause)best;
}

/* The shared stretches of the real intersection: causes per device. */
static void shared_stretches(gs_fleet *f, const gs_analysis *a, const size_t *idx,
                             const gs_interval *iv, size_t m, int64_t min_len)
{
    for (size_t i = 0; i < m; i++) {
        int64_t len = iv[i].end_ns - iv[i].start_ns;
        if (len <= min_len)
            continue;
        f->n_shared++;
        f->shared_s += (double)len * 1e-9;
        gs_fleet_stretch st = {iv[i].start_ns, iv[i].end_ns, {0}, NULL};
        int same_cause = 1;
        const char *fam_all = NULL;
        for (size_t d = 0; d < f->n_dev; d++) {
            double c[GS_CAUSE_COUNT] = {0}, sh;
            pieces_in(c, &a->dev[idx[d]], iv[i].start_ns, iv[i].end_ns);
            for (int k = 0; k < GS_CAUSE_COUNT; k++)
                f->dev[d].own_cause_s[k] -= c[k];
            gs_cause top = top_of(c, &sh, 1);
            if (d < 8)
                st.cause[d] = top;
            if (d == 0 || top != st.cause[0])
                same_cause = d == 0;
            const char *fam = gs_cause_family(top);
            fam_all = d == 0 ? fam : fam_all && !strcmp(fam_all, fam) ? fam_all : NULL;
        }
        st.common = same_cause ? gs_cause_name(st.cause[0]) : fam_all;
        /* Keep the GS_FLEET_TOP longest, longest first. */
        size_t at = f->n_top;
        if (at == GS_FLEET_TOP) {
            if (f->top[at - 1].end_ns - f->top[at - 1].start_ns >= len)
                continue;
            at--;
        } else {
            f->n_top++;
        }
        for (; at > 0 && f->top[at - 1].end_ns - f->top[at - 1].start_ns < len; at--)
            f->top[at] = f->top[at - 1];
        f->top[at] = st;
    }
}

gs_status gs_fleet_analyze(gs_fleet **out, const gs_analysis *a, gs_err *err)
{
    *out = NULL;
    size_t k = 0, total = 0;
    size_t *idx = malloc((a->n_dev + 1) * sizeof *idx), *n = NULL;
    gs_interval **lists = NULL, *res = NULL, *tmp = NULL, *rot = NULL;
    gs_fleet *f = NULL;
    for (size_t d = 0; idx && d < a->n_dev; d++)
        if (a->dev[d].n_ops)
            idx[k++] = d;
    if (idx && k < 2) {
        free(idx);
        return GS_OK;
    }
    f = calloc(1, sizeof *f);
    n = calloc(k + 1, sizeof *n);
    lists = calloc(k + 1, sizeof *lists);
    if (!idx || !f || !n || !lists || !(f->dev = calloc(k, sizeof *f->dev)))
        goto nomem;
    f->n_dev = k;
    f->window_start_ns = INT64_MIN;
    f->window_end_ns = INT64_MAX;
    for (size_t d = 0; d < k; d++) {
        const gs_device_analysis *D = &a->dev[idx[d]];
        gs_fleet_device *F = &f->dev[d];
        *F = (gs_fleet_device){D->device, D->process, D->util, D->idle_s, D->idle_s, {0}, 0, 0};
        memcpy(F->own_cause_s, D->cause_s, sizeof F->own_cause_s);
        if (D->util < f->dev[f->slowest].util)
            f->slowest = d;
        if (D->span_start_ns > f->window_start_ns)
            f->window_start_ns = D->span_start_ns;
        if (D->span_end_ns < f->window_end_ns)
            f->window_end_ns = D->span_end_ns;
        total += D->n_gaps;
    }
    int64_t W0 = f->window_start_ns, len = f->window_end_ns - W0;
    if (len > 0) {
        res = malloc((total + k + 1) * sizeof *res);
        tmp = malloc((total + k + 1) * sizeof *tmp);
        rot = malloc((total + k + 1) * sizeof *rot);
        if (!res || !tmp || !rot)
            goto nomem;
        /* Each device's gaps inside the window, as offsets from its start. */
        for (size_t d = 0; d < k; d++) {
            const gs_device_analysis *D = &a->dev[idx[d]];
            if (!(lists[d] = malloc((D->n_gaps + 1) * sizeof **lists)))
                goto nomem;
            for (size_t g = 0; g < D->n_gaps; g++) {
                int64_t s = D->gaps[g].start_ns - W0, e = D->gaps[g].end_ns - W0;
                s = s < 0 ? 0 : s;
                e = e > len ? len : e;
                if (e > s)
                    lists[d][n[d]++] = (gs_interval){s, e};
            }
        }
        /* Chance: device d's gaps rotated by j * d / (SHIFTS + 1) of the window. */
        gs_interval **shifted = calloc(k + 1, sizeof *shifted);
        size_t *nn = calloc(k + 1, sizeof *nn);
        if (!shifted || !nn) {
            free(shifted);
            free(nn);
            goto nomem;
        }
        shifted[0] = lists[0];
        size_t off = 0;
        for (size_t d = 1; d < k; d++) {
            shifted[d] = rot + off;
            off += n[d] + 1;
        }
        double sum = 0;
        for (int j = 1; j <= GS_FLEET_SHIFTS; j++) {
            for (size_t d = 1; d < k; d++) {
                int64_t s = (int64_t)((__int128)len * j * (int64_t)d / (GS_FLEET_SHIFTS + 1) % len);
                nn[d] = rotate(shifted[d], lists[d], n[d], len, s);
            }
            nn[0] = n[0];
            size_t m = intersect_all(res, tmp, shifted, nn, k);
            for (size_t i = 0; i < m; i++) {
                double l = (double)(res[i].end_ns - res[i].start_ns);
                sum += l * 1e-9;
                if (l * 1e-6 > f->chance_max_ms)
                    f->chance_max_ms = l * 1e-6;
            }
        }
        free(shifted);
        free(nn);
        f->chance_s = sum / GS_FLEET_SHIFTS;
        size_t m = intersect_all(res, tmp, lists, n, k);
        for (size_t i = 0; i < m; i++) {
            f->aligned_s += (double)(res[i].end_ns - res[i].start_ns) * 1e-9;
            res[i].start_ns += W0;
            res[i].end_ns += W0;
        }
        int64_t min_len = (int64_t)(f->chance_max_ms * 1e6);
        int64_t micro = (int64_t)(a->cfg.micro_threshold_s * 1e9);
        shared_stretches(f, a, idx, res, m, min_len > micro - 1 ? min_len : micro - 1);
    }
    for (size_t d = 0; d < k; d++) {
        gs_fleet_device *F = &f->dev[d];
        F->own_s = F->idle_s - f->shared_s;
        F->own_top = top_of(F->own_cause_s, &F->own_top_share, F->own_s);
    }
    *out = f;
    f = NULL;
    gs_status st = GS_OK;
    goto done;
nomem:
    st = gs_err_set(err, GS_ERR_NOMEM, "analysis", "fleet", "out of memory");
done:
    for (size_t d = 0; lists && d < k; d++)
        free(lists[d]);
    free(lists);
    free(n);
    free(idx);
    free(res);
    free(tmp);
    free(rot);
    gs_fleet_destroy(f);
    return st;
}

void gs_fleet_destroy(gs_fleet *f)
{
    if (!f)
        return;
    free(f->dev);
    free(f);
}

void gs_fleet_verdict(char *buf, size_t cap, const gs_fleet *f)
{
    const gs_fleet_device *s = &f->dev[f->slowest];
    int w = 0;
    if (f->window_end_ns <= f->window_start_ns)
        w = snprintf(buf, cap, "The devices' spans do not overlap: no idle can line up. ");
    else if (f->n_shared)
        w = snprintf(buf, cap,
                     "Idle lines up across all %zu devices for %.3f s in %zu stretch%s longer than "
                     "chance gives (%.3f ms at most with the devices shifted): a shared host "
                     "cause%s%s. ",
                     f->n_dev, f->shared_s, f->n_shared, f->n_shared == 1 ? "" : "es",
                     f->chance_max_ms,
                     f->top[0].common ? ", every device's cause in the longest: " : "",
                     f->top[0].common ? f->top[0].common : "");
    else
        w = snprintf(buf, cap, "Idle does not line up across devices beyond chance (%.3f s all "
                               "idle at once, %.3f s with the devices shifted). ",
                     f->aligned_s, f->chance_s);
    if (w < 0 || (size_t)w >= cap)
        return;
    snprintf(buf + w, cap - (size_t)w,
             "The slowest device is %d (util %.1f%%): %.3f s of its own idle, top cause %s "
             "(%.0f%%).",
             (int)s->device, 100 * s->util, s->own_s, s->own_s > 0 ? gs_cause_name(s->own_top) : "none",
             100 * s->own_top_share);
}
