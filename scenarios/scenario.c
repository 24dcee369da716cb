/*
 * Scenario objects: creation at defaults, loading a file, --set overrides,
 * and the cross-field checks that need every setting in place.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scn_internal.h"

static const char *const replay_names[] = {"timed", "afap", "scaled"};
static const char *const backend_names[] = {"cpu", "cuda", "model", "auto"};
_Static_assert(sizeof replay_names / sizeof replay_names[0] == GS_REPLAY_COUNT, "replay names");
_Static_assert(sizeof backend_names / sizeof backend_names[0] == GS_BACKEND_SEL_COUNT, "backend names");

const char *gs_replay_mode_name(gs_replay_mode m) { return (unsigned)m < GS_REPLAY_COUNT ? replay_names[m] : "?"; }
const char *gs_backend_sel_name(gs_backend_sel b) { return (unsigned)b < GS_BACKEND_SEL_COUNT ? backend_names[b] : "?"; }

/* The last step of new and load: finalize s when st is GS_OK, then hand it
 * out, or destroy it and return the first failure. */
static gs_status finish(gs_scenario **out, gs_scenario *s, gs_status st, gs_err *err)
{
    if (st == GS_OK)
        st = gs_scn_finalize(s, err);
    if (st != GS_OK) {
        gs_scenario_destroy(s);
        return st;
    }
    *out = s;
    return GS_OK;
}

gs_status gs_scenario_new(gs_scenario **out, gs_err *err)
{
    *out = NULL;
    gs_scenario *s = calloc(1, sizeof *s);
    if (!s)
        return GS_ERR(err, GS_ERR_NOMEM, "scenario", "out of memory");
    gs_status st = gs_scn_settings_init(s, err);
    if (st == GS_OK)
        st = gs_scn_apply_defaults(s, err);
    return finish(out, s, st, err);
}

gs_status gs_scenario_load(gs_scenario **out, const char *path, gs_err *err)
{
    *out = NULL;
    gs_scenario *s;
    gs_status st = gs_scenario_new(&s, err);
    if (st != GS_OK)
        return st;
    snprintf(s->path, sizeof s->path, "%s", path);
    return finish(out, s, gs_scn_ini_parse_file(s, path, err), err);
}

/* One assignment applied, the cross-field checks (gs_scn_finalize) not yet
 * run: a batch of them is finalized once, so their order does not matter
 * (enabled = yes before the dist it needs). */
static gs_status set_raw(gs_scenario *s, const char *assignment, const char *where, gs_err *err)
{
    char buf[1024];
    if (strlen(assignment) >= sizeof buf)
        return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "assignment too long");
    strcpy(buf, assignment);
    char *eq = strchr(buf, '=');
    if (!eq)
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                          "expected section.key=value, got '%s'", assignment);
    *eq = '\0';
    char *dot = strrchr(buf, '.');
    if (!dot || dot == buf || !dot[1])
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                          "expected section.key=value (e.g. engine.trim=after_unlock), got '%s'", assignment);
    *dot = '\0';
    return gs_scn_apply(s, buf, dot + 1, eq + 1, where, NULL, err);
}

gs_status gs_scenario_set(gs_scenario *s, const char *assignment, const char *where, gs_err *err)
{
    gs_status st = set_raw(s, assignment, where, err);
    if (st == GS_OK)
        st = gs_scn_finalize(s, err);
    return st;
}

gs_status gs_scenario_set_all(gs_scenario *s, const char *const *sets, int nsets, const char *where,
                              gs_err *err)
{
    gs_status st = GS_OK;
    for (int k = 0; st == GS_OK && k < nsets; k++)
        st = set_raw(s, sets[k], where, err);
    if (st == GS_OK)
        st = gs_scn_finalize(s, err);
    return st;
}

gs_status gs_scenario_apply_cli(gs_scenario *s, const char *seed, const char *const *sets, int nsets,
                                gs_err *err)
{
    gs_status st = GS_OK;
    if (seed) {
        char buf[1100]; /* longer than gs_scenario_set accepts: too long is its error */
        snprintf(buf, sizeof buf, "engine.seed=%s", seed);
        st = gs_scenario_set(s, buf, "--seed", err);
    }
    if (st == GS_OK)
        st = gs_scenario_set_all(s, sets, nsets, "--set", err);
    if (st == GS_OK)
        st = gs_scenario_validate(s, err);
    return st;
}

/* Where a cross-field error points: the file:line (or --set) of the first
 * of the two settings that was set explicitly, else the scenario file. */
static const char *where_of(const gs_scenario *s, const char *key, const char *other)
{
    for (int i = 0; i < s->n_settings; i++)
        if (!strcmp(s->settings[i].key, key) && strcmp(s->settings[i].origin, "default"))
            return s->settings[i].origin;
    if (other)
        return where_of(s, other, NULL);
    return s->path[0] ? s->path : "--set";
}

gs_status gs_scenario_validate(gs_scenario *s, gs_err *err)
{
    gs_status st = gs_scn_finalize(s, err);
    if (st == GS_OK)
        st = gs_scn_check_trim_mode(s, err);
    if (st != GS_OK)
        return st;
    if (s->trace[0] && access(s->trace, R_OK) != 0)
        return gs_err_set(err, GS_ERR_IO, "scenario", where_of(s, "jobs.trace", NULL),
                          "[jobs] trace '%s' cannot be read", s->trace);
    if (s->backend == GS_BACKEND_MODEL && !s->model_timeline[0])
        return gs_err_set(err, GS_ERR_ARG, "scenario", where_of(s, "engine.backend", NULL),
                          "backend = model needs [engine] model_timeline = <spans.csv from a GPU run>");
    if (s->model_timeline[0] && access(s->model_timeline, R_OK) != 0)
        return gs_err_set(err, GS_ERR_IO, "scenario", where_of(s, "engine.model_timeline", NULL),
                          "[engine] model_timeline '%s' cannot be read", s->model_timeline);
    if (s->engine.g2_on_device && s->backend == GS_BACKEND_CPU)
        return gs_err_set(err, GS_ERR_ARG, "scenario", where_of(s, "engine.g2", "engine.backend"),
                          "[engine] g2 = device needs backend = cuda (or auto on a GPU machine), "
                          "or model with a capture that ran it on the device");
    if (s->backend == GS_BACKEND_CPU && s->devices != 1)
        return gs_err_set(err, GS_ERR_ARG, "scenario", where_of(s, "engine.devices", "engine.backend"),
                          "backend = cpu drives one device (devices = 1)");
    for (int k = 0; k < GS_KIND_COUNT; k++) {
        int log = (int)s->size_map[k] + s->size_shift;
        if (log < 9 || log > 28)
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where_of(s, "jobs.size_shift", "jobs.size_map"),
                              "size_map %s = %u with size_shift %d gives 2^%d constraints (the circuits allow 2^9..2^28)",
                              gs_scn_kind_name((gs_job_kind)k), s->size_map[k], s->size_shift, log);
    }
    return GS_OK;
}

void gs_scenario_destroy(gs_scenario *s)
{
    if (!s)
        return;
    for (int p = 0; p < GS_INJ_COUNT; p++)
        free(s->engine.inj[p].dist.samples);
    free(s->mix.interarrival.samples);
    free(s->cancel_after.samples);
    free(s->settings);
    free(s);
}
