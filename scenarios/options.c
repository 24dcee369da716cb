/*
 * The option table: the one list of scenario keys.  Parsing (gs_scn_apply),
 * validation (types, ranges, choices), `gapscope run --help` and the dump
 * of the settings in effect all read GS_SCN_OPTIONS; adding a key is adding
 * a row here and a case in apply_one.  The [engine] keys that configure
 * the engine itself are the engine's rows (prover/engine/settings.h: their
 * defaults, ranges and help written once, there), placed here with
 * GS_ENGINE_ROW and stored by gs_engine_config_set; adding one is a row
 * there, its case in gs_engine_config_set, and its place here.
 *
 * Keys of scope "inject" live in every [inject.<point>] section and may
 * also be given in [global], where they are defaults for every injection
 * section that does not set them (fio's [global] inheritance).
 *
 * The [gpu] keys are the rows of the CUDA backend's knob table
 * (GS_CU_KNOBS, prover/cuda/knobs.h), appended to this table as options
 * of scope gpu: their defaults, ranges and help are written there once.
 * A knob's environment variable overrides the scenario (gs_scn_finalize).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ini.h"
#include "../common/paths.h"
#include "scn_internal.h"


/* X(id, scope, key, type, default, lo, hi, choices, help) for the
 * scenario's own keys; E(ID, key, type, default, lo, hi, choices, help) for
 * the engine's settings (prover/engine/settings.h, placed here by
 * GS_ENGINE_ROW: their defaults, ranges and help are the engine's). */
#define GS_SCN_OPTIONS(X, E)                                                                \
    X(O_DESCRIPTION, GLOBAL, "description", T_STR, "", 0, 0, NULL, "one line saying what the scenario reproduces") \
    GS_ENGINE_ROW(SYNTH_THREADS, E) \
    GS_ENGINE_ROW(GPU_WORKERS, E) \
    GS_ENGINE_ROW(FINALIZER_THREADS, E) \
    GS_ENGINE_ROW(QUEUE_DEPTH, E) \
    GS_ENGINE_ROW(PROVE_THREADS, E) \
    GS_ENGINE_ROW(TRIM, E) \
    GS_ENGINE_ROW(VERIFY, E) \
    GS_ENGINE_ROW(STAGING, E) \
    GS_ENGINE_ROW(PIN_POOL, E) \
    GS_ENGINE_ROW(G2, E) \
    GS_ENGINE_ROW(FINISH, E) \
    GS_ENGINE_ROW(PREP, E) \
    GS_ENGINE_ROW(H_CONVENTION, E) \
    X(O_BACKEND, ENGINE, "backend", T_ENUM, "cpu", 0, 0, "cpu|cuda|model|auto", "prover backend (auto: cuda when a GPU is visible)") \
    X(O_DEVICES, ENGINE, "devices", T_INT, "1", 1, 16, NULL, "devices (one backend each)") \
    GS_ENGINE_ROW(SEED, E) \
    X(O_MODEL_TL, ENGINE, "model_timeline", T_PATH, "", 0, 0, NULL, "model backend: spans.csv captured on a GPU") \
    X(O_MODEL_SHIFT, ENGINE, "model_size_shift", T_INT, "0", -16, 24, NULL, "model backend: modelled log2 size = real log2 size + shift") \
    X(O_DRAIN, ENGINE, "drain_timeout", T_DUR, "10min", 0, 0, NULL, "give up waiting for the jobs after this long") \
    X(O_TRACE, JOBS, "trace", T_PATH, "", 0, 0, NULL, "job-mix trace (JSON Lines, traces/README.md); empty = generator below") \
    X(O_KINDS, JOBS, "kinds", T_KINDS_REAL, "circuit:1", 0, 1e9, NULL, "generator: kind weights, kind:w,...") \
    X(O_COUNT, JOBS, "count", T_INT, "8", 1, 1000000, NULL, "generator: number of arrivals") \
    X(O_PARTS, JOBS, "partitions", T_KINDS_INT, "", 1, 64, NULL, "partitions per kind, kind:n,... (overrides the trace's; default DOMAIN.md's)") \
    X(O_INTERARRIVAL, JOBS, "interarrival", T_DIST, "fixed:100ms", 0, 0, NULL, "generator: time between arrivals") \
    X(O_SIZE_MAP, JOBS, "size_map", T_KINDS_INT, "winning_post:9,window_post:10,snap_deals:10,porep_c2:10,circuit:9", 9, 28, NULL, "log2 constraints per partition, kind:log,...") \
    X(O_SIZE_SHIFT, JOBS, "size_shift", T_INT, "0", -20, 20, NULL, "scale factor: added to every size_map log size") \
    X(O_LIMIT, JOBS, "limit", T_INT, "0", 0, 100000000, NULL, "replay at most this many arrivals (0 = all)") \
    X(O_REPLAY, JOBS, "replay", T_ENUM, "timed", 0, 0, "timed|afap|scaled", "arrival timing: recorded, as fast as possible, or scaled") \
    X(O_TIME_SCALE, JOBS, "time_scale", T_REAL, "1", 1e-9, 1e9, NULL, "scaled replay: replay time = trace time * time_scale") \
    X(O_CANCEL_P, JOBS, "cancel_probability", T_REAL, "0", 0, 1, NULL, "fault: chance that the driver cancels a submitted job (seeded per job id)") \
    X(O_CANCEL_AFTER, JOBS, "cancel_after", T_DIST, "fixed:0ms", 0, 0, NULL, "fault: delay from a job's submission to its cancellation") \
    X(O_ENABLED, INJECT, "enabled", T_ENUM, "auto", 0, 0, "auto|yes|no|true|false|1|0", "auto: on when the section is present") \
    X(O_DIST, INJECT, "dist", T_DIST, "", 0, 0, NULL, "injected delay distribution") \
    X(O_PROB, INJECT, "probability", T_REAL, "1", 0, 1, NULL, "chance per occurrence") \
    X(O_ISEED, INJECT, "seed", T_STR, "auto", 0, 0, NULL, "draw seed (auto: from the scenario seed and the point)") \
    X(O_MODE, INJECT, "mode", T_ENUM, "synthetic", 0, 0, "real|synthetic", "malloc_trim: real = malloc_trim(0) on a fragmented heap") \
    X(O_FRAG, INJECT, "frag", T_SIZE, "0", 0, 0, NULL, "malloc_trim real mode: heap to fragment") \
    X(O_FAIL, INJECT, "fail", T_ENUM, "no", 0, 0, "no|yes", "when it fires, fail the delayed step (and its job) with GS_ERR_INJECTED") \
    X(O_WORK, INJECT, "work_per_constraint", T_SIZE, "0", 0, 0, NULL, "malloc_trim real mode: bytes per constraint each partition mallocs at synthesis and frees before its trim (its working set)")


/* The engine's rows in the scenario's shape. */
#define GS_SCN_E(X, id, k, t, d, lo, hi, ch, h) X(O_##id, ENGINE, k, T_##t, d, lo, hi, ch, h)

enum {
#define GS_X(id, sc, k, t, d, lo, hi, ch, h) id,
#define GS_E(id, k, t, d, lo, hi, ch, h) GS_SCN_E(GS_X, id, k, t, d, lo, hi, ch, h)
    GS_SCN_OPTIONS(GS_X, GS_E)
#undef GS_E
#undef GS_X
    O_GPU_FIRST_, /* then one option per knob: O_GPU_FIRST_ + gs_cu_knob */
    O_COUNT_ = O_GPU_FIRST_ + GS_CU_KNOB_COUNT
};
const gs_scn_opt_def gs_scn_opts[] = {
#define GS_X(id, sc, k, t, d, lo, hi, ch, h) {GS_SCOPE_##sc, k, t, d, lo, hi, ch, h},
#define GS_E(id, k, t, d, lo, hi, ch, h) GS_SCN_E(GS_X, id, k, t, d, lo, hi, ch, h)
    GS_SCN_OPTIONS(GS_X, GS_E)
#undef GS_E
#undef GS_X
#define GS_GPU_X(id, k, env, fl, lo, hi, d, ch, h) {GS_SCOPE_GPU, k, T_KNOB, d, lo, hi, ch, h},
    GS_CU_KNOBS(GS_GPU_X)
#undef GS_GPU_X
};
_Static_assert(sizeof gs_scn_opts / sizeof gs_scn_opts[0] == O_COUNT_, "option table out of step");
/* The engine setting of each option (+ 1; 0: a scenario key). */
static const int engine_setting[O_COUNT_] = {
#define GS_X(id, sc, k, t, d, lo, hi, ch, h)
#define GS_E(id, k, t, d, lo, hi, ch, h) [O_##id] = GS_ESET_##id + 1,
    GS_SCN_OPTIONS(GS_X, GS_E)
#undef GS_E
#undef GS_X
};
const int gs_scn_n_opts = O_COUNT_;
const char *const gs_scn_scope_names[] = {"global", "engine", "jobs", "inject", "gpu"};
#define opts gs_scn_opts
#define scope_names gs_scn_scope_names

/* ---- settings layout: non-inject options once, inject options per point + [global] ---- */
int gs_scn_setting_index(int opt, int inst)
{
    int idx = 0;
    for (int o = 0; o < O_COUNT_; o++) {
        int n = opts[o].scope == GS_SCOPE_INJECT ? GS_INJ_COUNT + 1 : 1;
        if (o == opt)
            return idx + (opts[o].scope == GS_SCOPE_INJECT ? inst : 0);
        idx += n;
    }
    return -1;
}

gs_status gs_scn_settings_init(gs_scenario *s, gs_err *err)
{
    int n = gs_scn_setting_index(O_COUNT_ - 1, GS_INJ_COUNT) + 1;
    s->settings = calloc((size_t)n, sizeof *s->settings);
    if (!s->settings)
        return GS_ERR(err, GS_ERR_NOMEM, "scenario", "out of memory");
    s->n_settings = n;
    for (int o = 0; o < O_COUNT_; o++) {
        int ninst = opts[o].scope == GS_SCOPE_INJECT ? GS_INJ_COUNT + 1 : 1;
        for (int i = 0; i < ninst; i++) {
            int inst = opts[o].scope == GS_SCOPE_INJECT ? i : -1;
            gs_scn_setting *st = &s->settings[gs_scn_setting_index(o, i)];
            st->opt = o;
            st->inst = inst;
            if (inst < 0)
                snprintf(st->key, sizeof st->key, "%s.%s", scope_names[opts[o].scope], opts[o].key);
            else if (inst == GS_INJ_COUNT)
                snprintf(st->key, sizeof st->key, "global.%s", opts[o].key);
            else
                snprintf(st->key, sizeof st->key, "inject.%s.%s", gs_scn_inj_name(inst), opts[o].key);
            snprintf(st->value, sizeof st->value, "%s", opts[o].def);
            snprintf(st->origin, sizeof st->origin, "default");
        }
    }
    return GS_OK;
}

/* Parses kind:value,kind:value into vals[] (unlisted kinds keep theirs). */
static gs_status parse_kinds(double *vals, const char *text, const gs_scn_opt_def *od,
                             const char *where, gs_err *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        char *colon = strchr(tok, ':');
        if (!colon)
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "%s: expected kind:value, got '%s'", od->key, tok);
        *colon = '\0';
        char *name = tok, *e = colon;
        while (e > name && isspace((unsigned char)e[-1]))
            *--e = '\0';
        gs_job_kind k;
        if (!gs_job_kind_from_name(&k, name))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "%s: unknown proof kind '%s' (winning_post, window_post, snap_deals, porep_c2, circuit)",
                              od->key, name);
        char *end;
        errno = 0;
        double v = strtod(colon + 1, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (end == colon + 1 || *end || errno || v < od->lo || v > od->hi ||
            (od->type == T_KINDS_INT && v != (double)(long)v))
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: %s:%s must be %s in [%g, %g]",
                              od->key, name, colon + 1, od->type == T_KINDS_INT ? "an integer" : "a number",
                              od->lo, od->hi);
        vals[k] = v;
    }
    return GS_OK;
}

/* Validates `value` for option o and stores it into the scenario. */
static gs_status apply_one(gs_scenario *s, int o, int inst, const char *value,
                           const char *where, const char *base_dir, gs_err *err)
{
    const gs_scn_opt_def *od = &opts[o];
    long long iv = 0;
    double dv = 0;
    int64_t ns = 0;
    uint64_t u = 0;
    int ci = -1, knob = 0;
    char *end;
    switch (od->type) {
    case T_INT:
        if (!gs_ini_int(&iv, value, od->lo, od->hi))
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: expected an integer in [%g, %g], got '%s'",
                              od->key, od->lo, od->hi, value);
        break;
    case T_U64:
        if (!gs_ini_u64(&u, value))
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: expected an unsigned integer, got '%s'",
                              od->key, value);
        break;
    case T_REAL:
        errno = 0;
        dv = strtod(value, &end);
        if (!*value || *end || errno || !(dv >= od->lo && dv <= od->hi))
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: expected a number in [%g, %g], got '%s'",
                              od->key, od->lo, od->hi, value);
        break;
    case T_DUR:
        if (!gs_parse_duration_ns(&ns, value))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "%s: expected a duration with a unit (ns, us, ms, s, min), got '%s'", od->key, value);
        break;
    case T_SIZE:
        if (!gs_parse_size_bytes(&u, value))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                              "%s: expected a size (B, KiB, MiB, GiB, TiB), got '%s'", od->key, value);
        break;
    case T_ENUM:
        if (!gs_ini_choice(&ci, od->choices, value))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "%s: expected one of %s, got '%s'",
                              od->key, od->choices, value);
        break;
    case T_KNOB:
        if (!gs_cu_knob_parse((gs_cu_knob_id)(o - O_GPU_FIRST_), value, &knob)) {
            char want[96];
            gs_cu_knob_expects((gs_cu_knob_id)(o - O_GPU_FIRST_), want, sizeof want);
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: expected %s, got '%s'", od->key,
                              want, value);
        }
        break;
    default:
        break;
    }
    if (engine_setting[o]) { /* validated above by the engine's own row */
        if (!gs_engine_config_set(&s->engine, (gs_engine_setting)(engine_setting[o] - 1), value))
            return gs_err_set(err, GS_ERR_INTERNAL, "scenario", where, "%s: the engine refused '%s'",
                              od->key, value);
        return GS_OK;
    }
    gs_injection *inj = inst >= 0 && inst < GS_INJ_COUNT ? &s->engine.inj[inst] : NULL;
    switch (o) {
    case O_DESCRIPTION: snprintf(s->description, sizeof s->description, "%s", value); break;
    case O_BACKEND: s->backend = (gs_backend_sel)ci; break;
    case O_DEVICES: s->devices = (int)iv; break;
    case O_MODEL_SHIFT: s->model_size_shift = (int)iv; break;
    case O_DRAIN: s->drain_timeout_ns = ns; break;
    case O_MODEL_TL:
    case O_TRACE: {
        char *dst = o == O_TRACE ? s->trace : s->model_timeline;
        char joined[2 * GS_SCN_PATH_MAX], *abs;
        gs_path_resolve(joined, sizeof joined, base_dir, value); /* too long: refused below */
        /* Absolute when the file exists, so a dumped scenario.ini reloads anywhere. */
        if (joined[0] && (abs = realpath(joined, NULL)) != NULL) {
            snprintf(joined, sizeof joined, "%s", abs);
            free(abs);
        }
        if (strlen(joined) >= GS_SCN_PATH_MAX)
            return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "%s: path too long", od->key);
        memcpy(dst, joined, strlen(joined) + 1);
        break;
    }
    case O_KINDS:
    case O_PARTS:
    case O_SIZE_MAP: {
        double vals[GS_KIND_COUNT];
        for (int k = 0; k < GS_KIND_COUNT; k++)
            vals[k] = o == O_KINDS ? (value[0] ? 0 : s->mix.weight[k])
                      : o == O_PARTS ? s->mix.partitions[k] : s->size_map[k];
        if (o == O_PARTS && value[0])
            for (int k = 0; k < GS_KIND_COUNT; k++)
                vals[k] = 0;
        gs_status st = parse_kinds(vals, value, od, where, err);
        if (st != GS_OK)
            return st;
        for (int k = 0; k < GS_KIND_COUNT; k++) {
            if (o == O_KINDS)
                s->mix.weight[k] = vals[k];
            else if (o == O_PARTS)
                s->mix.partitions[k] = (uint32_t)vals[k];
            else
                s->size_map[k] = (uint32_t)vals[k];
        }
        if (o == O_KINDS) {
            double sum = 0;
            for (int k = 0; k < GS_KIND_COUNT; k++)
                sum += s->mix.weight[k];
            if (sum <= 0)
                return gs_err_set(err, GS_ERR_RANGE, "scenario", where, "kinds: weights sum to 0");
        }
        break;
    }
    case O_COUNT: s->mix.count = (uint32_t)iv; break;
    case O_INTERARRIVAL: {
        gs_dist d;
        gs_status st = gs_parse_dist(&d, value, base_dir, where, err);
        if (st != GS_OK)
            return st;
        free(s->mix.interarrival.samples);
        s->mix.interarrival = d;
        break;
    }
    case O_SIZE_SHIFT: s->size_shift = (int)iv; break;
    case O_CANCEL_P: s->cancel_probability = dv; break;
    case O_CANCEL_AFTER: {
        gs_dist d;
        gs_status st = gs_parse_dist(&d, value, base_dir, where, err);
        if (st != GS_OK)
            return st;
        free(s->cancel_after.samples);
        s->cancel_after = d;
        break;
    }
    case O_LIMIT: s->limit = (uint32_t)iv; break;
    case O_REPLAY: s->replay = (gs_replay_mode)ci; break;
    case O_TIME_SCALE: s->time_scale = dv; break;
    case O_ENABLED:
        if (inj && ci > 0)
            inj->enabled = (ci == 1 || ci == 3 || ci == 5);
        break;
    case O_DIST:
        if (inj) {
            free(inj->dist.samples);
            memset(&inj->dist, 0, sizeof inj->dist);
            if (value[0]) {
                gs_status st = gs_parse_dist(&inj->dist, value, base_dir, where, err);
                if (st != GS_OK)
                    return st;
            }
        } else if (value[0]) { /* [global] default: validate now, apply at finalize */
            gs_dist d;
            gs_status st = gs_parse_dist(&d, value, base_dir, where, err);
            free(d.samples);
            if (st != GS_OK)
                return st;
        }
        break;
    case O_PROB: if (inj) inj->probability = dv; break;
    case O_ISEED:
        if (strcmp(value, "auto")) {
            if (!gs_ini_u64(&u, value))
                return gs_err_set(err, GS_ERR_RANGE, "scenario", where,
                                  "seed: expected 'auto' or an unsigned integer, got '%s'", value);
            if (inj)
                inj->seed = u;
        }
        break;
    case O_MODE: if (inj) inj->real = ci == 0; break;
    case O_FRAG: if (inj) inj->frag_bytes = u; break;
    case O_WORK: if (inj) inj->work_per_constraint = u; break;
    case O_FAIL: if (inj) inj->fail = ci == 1; break;
    default:
        if (od->scope == GS_SCOPE_GPU) {
            s->gpu[o - O_GPU_FIRST_] = knob;
            break;
        }
        return GS_ERR(err, GS_ERR_INTERNAL, "scenario", "option %d has no apply case", o);
    }
    return GS_OK;
}

gs_status gs_scn_section_check(const gs_scenario *s, const char *section, int *point,
                               const char *where, gs_err *err)
{
    (void)s;
    *point = -1;
    if (!strcmp(section, "global") || !strcmp(section, "engine") || !strcmp(section, "jobs") ||
        !strcmp(section, "gpu"))
        return GS_OK;
    if (!strncmp(section, "inject.", 7)) {
        const char *name = section + 7;
        if (gs_scn_inj_from_name(point, name, strlen(name)))
            return GS_OK;
        char list[256] = "";
        for (int p = 0; p < GS_INJ_COUNT; p++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", p ? ", " : "", gs_scn_inj_name(p));
        return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                          "unknown injection point '%s' (known: %s)", name, list);
    }
    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where,
                      "unknown section [%s] (known: global, engine, jobs, gpu, inject.<point>)", section);
}

void gs_scn_inject_present(gs_scenario *s, int point, const char *where)
{
    if (!s->inj_present[point])
        snprintf(s->inj_where[point], sizeof s->inj_where[point], "%s", where);
    s->inj_present[point] = 1;
}

gs_status gs_scn_apply(gs_scenario *s, const char *section, const char *key,
                       const char *value, const char *where, const char *base_dir,
                       gs_err *err)
{
    int point;
    gs_status st = gs_scn_section_check(s, section, &point, where, err);
    if (st != GS_OK)
        return st;
    int scope = point >= 0 ? GS_SCOPE_INJECT : !strcmp(section, "global") ? GS_SCOPE_GLOBAL
                : !strcmp(section, "engine") ? GS_SCOPE_ENGINE : !strcmp(section, "gpu") ? GS_SCOPE_GPU
                : GS_SCOPE_JOBS;
    for (int o = 0; o < O_COUNT_; o++) {
        if (strcmp(opts[o].key, key))
            continue;
        int inst;
        if (opts[o].scope == scope)
            inst = scope == GS_SCOPE_INJECT ? point : -1;
        else if (scope == GS_SCOPE_GLOBAL && opts[o].scope == GS_SCOPE_INJECT)
            inst = GS_INJ_COUNT;
        else
            continue;
        st = apply_one(s, o, inst, value, where, base_dir, err);
        if (st != GS_OK)
            return st;
        if (point >= 0)
            gs_scn_inject_present(s, point, where);
        gs_scn_setting *set = &s->settings[gs_scn_setting_index(o, inst < 0 ? 0 : inst)];
        snprintf(set->value, sizeof set->value, "%s", value);
        snprintf(set->origin, sizeof set->origin, "%s", where);
        /* Paths are kept as resolved, so the dump stands on its own. */
        if (opts[o].type == T_PATH)
            snprintf(set->value, sizeof set->value, "%s", o == O_TRACE ? s->trace : s->model_timeline);
        return GS_OK;
    }
    char list[512] = "";
    for (int o = 0; o < O_COUNT_; o++)
        if (opts[o].scope == scope || (scope == GS_SCOPE_GLOBAL && opts[o].scope == GS_SCOPE_INJECT))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", opts[o].key);
    return gs_err_set(err, GS_ERR_FORMAT, "scenario", where, "unknown key '%s' in [%s] (known: %s)",
                      key, section, list);
}

gs_status gs_scn_apply_defaults(gs_scenario *s, gs_err *err)
{
    for (int i = 0; i < s->n_settings; i++) {
        gs_scn_setting *st = &s->settings[i];
        gs_status r = apply_one(s, st->opt, st->inst, st->value, "default", NULL, err);
        if (r != GS_OK)
            return r;
    }
    return GS_OK;
}

gs_status gs_scn_finalize(gs_scenario *s, gs_err *err)
{
    for (int p = 0; p < GS_INJ_COUNT; p++) {
        gs_injection *inj = &s->engine.inj[p];
        /* Inherit [global] defaults for keys the section did not set. */
        for (int o = 0; o < O_COUNT_; o++) {
            if (opts[o].scope != GS_SCOPE_INJECT)
                continue;
            gs_scn_setting *mine = &s->settings[gs_scn_setting_index(o, p)];
            const gs_scn_setting *glob = &s->settings[gs_scn_setting_index(o, GS_INJ_COUNT)];
            if (s->inj_present[p] && !strcmp(mine->origin, "default") && strcmp(glob->origin, "default")) {
                gs_status r = apply_one(s, o, p, glob->value, glob->origin, NULL, err);
                if (r != GS_OK)
                    return r;
                memcpy(mine->value, glob->value, sizeof mine->value);
                memcpy(mine->origin, glob->origin, sizeof mine->origin);
            }
        }
        const gs_scn_setting *en = &s->settings[gs_scn_setting_index(O_ENABLED, p)];
        const gs_scn_setting *seed = &s->settings[gs_scn_setting_index(O_ISEED, p)];
        if (!strcmp(en->value, "auto"))
            inj->enabled = s->inj_present[p];
        if (inj->enabled && s->settings[gs_scn_setting_index(O_DIST, p)].value[0] == '\0' &&
            !(p == GS_INJ_MALLOC_TRIM && inj->real))
            return gs_err_set(err, GS_ERR_FORMAT, "scenario", s->inj_where[p][0] ? s->inj_where[p] : "--set",
                              "[inject.%s] needs dist = ... (or enabled = no)", gs_scn_inj_name(p));
        if (!strcmp(seed->value, "auto"))
            inj->seed = gs_injection_seed_auto(s->engine.seed, (gs_inj_point)p);
        if (inj->real && p != GS_INJ_MALLOC_TRIM)
            return gs_err_set(err, GS_ERR_ARG, "scenario", s->inj_where[p][0] ? s->inj_where[p] : "--set",
                              "mode = real exists only for [inject.malloc_trim]");
    }
    /* [gpu]: a knob's environment variable overrides the scenario's value. */
    for (int o = O_GPU_FIRST_; o < O_COUNT_; o++) {
        const char *env = gs_cu_knob_def_of((gs_cu_knob_id)(o - O_GPU_FIRST_))->env, *v = getenv(env);
        char where[64];
        if (!v || !*v)
            continue;
        snprintf(where, sizeof where, "environment %s", env);
        gs_status r = apply_one(s, o, -1, v, where, NULL, err);
        if (r != GS_OK)
            return r;
        gs_scn_setting *set = &s->settings[gs_scn_setting_index(o, 0)];
        snprintf(set->value, sizeof set->value, "%s", v);
        snprintf(set->origin, sizeof set->origin, "%s", where);
    }
    return GS_OK;
}


gs_status gs_scn_check_trim_mode(const gs_scenario *s, gs_err *err)
{
    const int p = GS_INJ_MALLOC_TRIM;
    const gs_injection *inj = &s->engine.inj[p];
    const gs_scn_setting *dist = &s->settings[gs_scn_setting_index(O_DIST, p)];
    const gs_scn_setting *mode = &s->settings[gs_scn_setting_index(O_MODE, p)];
    const gs_scn_setting *frag = &s->settings[gs_scn_setting_index(O_FRAG, p)];
    const gs_scn_setting *work = &s->settings[gs_scn_setting_index(O_WORK, p)];
    if (!inj->enabled)
        return GS_OK;
    if (inj->real) {
        /* The real trim's own run time is the delay: a drawn one would be
         * silently ignored.  fixed:0 (no delay) says the same and is kept
         * for scenarios written before this check. */
        if (dist->value[0] && !(inj->dist.kind == GS_DIST_FIXED && inj->dist.a == 0.0))
            return gs_err_set(err, GS_ERR_ARG, "scenario", dist->origin,
                              "[inject.malloc_trim] dist = %s has no effect with mode = real (the real "
                              "malloc_trim(0) takes as long as it takes): remove it, or use mode = synthetic",
                              dist->value);
        if (inj->frag_bytes == 0 && inj->work_per_constraint == 0)
            return gs_err_set(err, GS_ERR_ARG, "scenario", mode->origin,
                              "[inject.malloc_trim] mode = real needs frag = SIZE (a heap to fragment) "
                              "and/or work_per_constraint = SIZE (a working set per partition): with "
                              "neither, malloc_trim(0) has next to nothing to return");
    } else {
        const gs_scn_setting *bad = inj->frag_bytes ? frag : inj->work_per_constraint ? work : NULL;
        if (bad)
            return gs_err_set(err, GS_ERR_ARG, "scenario", bad->origin,
                              "[inject.malloc_trim] %s acts only with mode = real (mode is synthetic: "
                              "a drawn delay instead of a real trim)", opts[bad->opt].key);
    }
    return GS_OK;
}
