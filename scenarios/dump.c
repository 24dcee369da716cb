/*
 * The settings in effect: access by index or key, the INI dump written as
 * scenario.ini into every run directory (reloadable: each value is followed
 * by its origin as a comment; paths relative to the run directory, never
 * absolute), and the option reference of `--help`, all read from the one
 * option table (options.c; its [gpu] rows from the knob table,
 * prover/cuda/knobs.h).
 */
#include <stdio.h>
#include <string.h>

#include "../common/paths.h"
#include "scn_internal.h"

#define opts gs_scn_opts
#define scope_names gs_scn_scope_names

int gs_scenario_setting_count(const gs_scenario *s) { return s->n_settings; }
void gs_scenario_setting_at(const gs_scenario *s, int i, const char **key, const char **value)
{
    *key = s->settings[i].key;
    *value = s->settings[i].value;
}

static const char *value_in(const gs_scn_opt_def *od, const gs_scn_setting *st, const char *dir, char *buf,
                            size_t cap)
{
    static const char emp[] = "empirical:";
    const size_t el = sizeof emp - 1;
    if (!dir || !st->value[0])
        return st->value;
    if (od->type == T_PATH) {
        gs_path_rel(buf, cap, st->value, dir);
        return buf;
    }
    /* A relative empirical:FILE is kept as written (relative to its scenario). */
    if (od->type == T_DIST && !strncmp(st->value, emp, el) && st->value[el] == '/' && cap > el) {
        memcpy(buf, emp, el);
        gs_path_rel(buf + el, cap - el, st->value + el, dir);
        return buf;
    }
    return st->value;
}

const char *gs_scenario_setting_value_in(const gs_scenario *s, int i, const char *dir, char *buf, size_t cap)
{
    return value_in(&opts[s->settings[i].opt], &s->settings[i], dir, buf, cap);
}

/* "file:line" (or "--set", "default", ...) with an absolute file made
 * relative to the working directory when dir is set. */
static const char *origin_in(const char *origin, const char *dir, char *buf, size_t cap)
{
    const char *colon = strrchr(origin, ':');
    if (!dir || origin[0] != '/' || !colon)
        return origin;
    char file[GS_SCN_PATH_MAX + 16], rel[GS_SCN_PATH_MAX + 16];
    snprintf(file, sizeof file, "%.*s", (int)(colon - origin), origin);
    gs_path_rel(rel, sizeof rel, file, ".");
    snprintf(buf, cap, "%s%s", rel, colon);
    return buf;
}

static void dump_line(FILE *f, const gs_scn_opt_def *od, const gs_scn_setting *st, const char *dir)
{
    char vb[GS_SCN_PATH_MAX], ob[2 * GS_SCN_PATH_MAX + 32];
    const char *v = value_in(od, st, dir, vb, sizeof vb);
    /* A value that starts with ';' or '#' is written right after the '='
     * (after a blank it would read back as a comment). */
    const char *eq = v[0] == ';' || v[0] == '#' ? " =" : " = ";
    fprintf(f, "%-18s%s%-32s ; %s\n", od->key, eq, v, origin_in(st->origin, dir, ob, sizeof ob));
}

int gs_scn_setting_in_effect(const gs_scenario *s, int i)
{
    const gs_scn_setting *st = &s->settings[i];
    if (st->inst == GS_INJ_COUNT)
        return strcmp(st->origin, "default") != 0;
    if (st->inst >= 0)
        return s->inj_present[st->inst] || s->engine.inj[st->inst].enabled;
    return 1;
}

const char *gs_scenario_setting_value(const gs_scenario *s, const char *key)
{
    for (int i = 0; i < s->n_settings; i++)
        if (!strcmp(s->settings[i].key, key))
            return s->settings[i].value;
    return NULL;
}

const char *gs_scenario_setting_origin(const gs_scenario *s, const char *key)
{
    for (int i = 0; i < s->n_settings; i++)
        if (!strcmp(s->settings[i].key, key))
            return s->settings[i].origin;
    return NULL;
}

int gs_scenario_note_defaults(const gs_scenario *s, FILE *f, const char *prefix)
{
    static const char *const keys[] = {"engine.trim", "engine.verify"};
    int n = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *o = gs_scenario_setting_origin(s, keys[i]);
        if (!o || strcmp(o, "default"))
            continue;
        fprintf(f, "%snote: %s = %s by default, the production daemon's behaviour (DOMAIN.md: "
                   "malloc_trim(0) and the self-verify run under the tracker lock in the finalizer); "
                   "set it in [engine] to choose\n",
                prefix ? prefix : "", keys[i], gs_scenario_setting_value(s, keys[i]));
        n++;
    }
    return n;
}

gs_status gs_scenario_dump(const gs_scenario *s, FILE *f)
{
    return gs_scenario_dump_in(s, f, NULL);
}

gs_status gs_scenario_dump_in(const gs_scenario *s, FILE *f, const char *dir)
{
    fprintf(f, "; Settings in effect (gapscope); the origin of each value follows ';'.\n");
    if (s->path[0]) {
        char rel[GS_SCN_PATH_MAX];
        if (dir && s->path[0] == '/')
            gs_path_rel(rel, sizeof rel, s->path, ".");
        fprintf(f, "; scenario: %s\n", dir && s->path[0] == '/' ? rel : s->path);
    }
    for (int scope = GS_SCOPE_GLOBAL; scope <= GS_SCOPE_GPU; scope++) {
        if (scope == GS_SCOPE_INJECT)
            continue;
        fprintf(f, "\n[%s]\n", scope_names[scope]);
        for (int o = 0; o < gs_scn_n_opts; o++) {
            if (opts[o].scope == scope)
                dump_line(f, &opts[o], &s->settings[gs_scn_setting_index(o, 0)], dir);
            else if (scope == GS_SCOPE_GLOBAL && opts[o].scope == GS_SCOPE_INJECT) {
                const gs_scn_setting *g = &s->settings[gs_scn_setting_index(o, GS_INJ_COUNT)];
                if (strcmp(g->origin, "default"))
                    dump_line(f, &opts[o], g, dir);
            }
        }
    }
    for (int p = 0; p < GS_INJ_COUNT; p++) {
        if (!s->inj_present[p] && !s->engine.inj[p].enabled)
            continue;
        fprintf(f, "\n[inject.%s]\n", gs_scn_inj_name(p));
        for (int o = 0; o < gs_scn_n_opts; o++)
            if (opts[o].scope == GS_SCOPE_INJECT)
                dump_line(f, &opts[o], &s->settings[gs_scn_setting_index(o, p)], dir);
    }
    fprintf(f, "\n; injection points not listed are off\n");
    return ferror(f) ? GS_ERR_IO : GS_OK;
}

void gs_scenario_help(FILE *f)
{
    static const char *const type_names[] = {"int", "uint", "bool", "duration", "size", "number",
                                             "choice", "text", "path", "dist", "kind:weight,...",
                                             "kind:int,..."};
    int last = -1;
    for (int o = 0; o < gs_scn_n_opts; o++) {
        if (opts[o].scope == GS_SCOPE_GPU) {
            /* The knob table's own listing, as `gapscope cuda-bench --help` has it. */
            fprintf(f, "\n[gpu]   (CUDA backend tuning knobs, prover/cuda/knobs.h; a knob's environment "
                       "variable overrides it)\n");
            gs_cu_knobs_help(f, "  ", 0);
            break;
        }
        if (opts[o].scope != last) {
            last = opts[o].scope;
            fprintf(f, "\n[%s]%s\n", last == GS_SCOPE_INJECT ? "inject.<point>" : scope_names[last],
                    last == GS_SCOPE_INJECT ? "   (these keys in [global] are defaults for every point)" : "");
        }
        fprintf(f, "  %-18s %-16s default %-12s %s", opts[o].key,
                opts[o].type == T_ENUM ? "choice" : type_names[opts[o].type],
                opts[o].def[0] ? opts[o].def : "(none)", opts[o].help);
        if (opts[o].choices)
            fprintf(f, " [%s]", opts[o].choices);
        else if (opts[o].type == T_INT || opts[o].type == T_REAL)
            fprintf(f, " [%g..%g]", opts[o].lo, opts[o].hi);
        fputc('\n', f);
    }
    fprintf(f, "\ninjection points:");
    for (int p = 0; p < GS_INJ_COUNT; p++)
        fprintf(f, " %s", gs_scn_inj_name(p));
    fprintf(f, "\ndurations: 50ms, 1.5s, 200us (unit required); sizes: 4GiB, 512MiB\n"
               "dists: fixed:50ms | uniform:10ms,50ms | lognormal:median=80ms,sigma=0.5 | empirical:FILE\n");
}
