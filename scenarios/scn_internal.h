/* Internal to the scenarios layer: shared by options.c, ini.c, scenario.c. */
#ifndef GS_SCN_INTERNAL_H
#define GS_SCN_INTERNAL_H

#include "scenario.h"

/* One setting in effect: "engine.trim" = "after_unlock" (origin "demo.ini:12"). */
typedef struct gs_scn_setting {
    char key[64];
    char value[GS_SCN_PATH_MAX];
    char origin[GS_SCN_PATH_MAX + 16];
    int opt;            /* index in the option table */
    int inst;           /* injection point, -1 otherwise; GS_INJ_COUNT = [global] default */
} gs_scn_setting;

/* Option scopes.  [gpu]: the CUDA backend's tuning knobs (prover/cuda/knobs.h). */
enum { GS_SCOPE_GLOBAL, GS_SCOPE_ENGINE, GS_SCOPE_JOBS, GS_SCOPE_INJECT, GS_SCOPE_GPU };

/* ---- the option table (options.c), read by dump.c ---- */
enum { T_INT, T_U64, T_BOOL, T_DUR, T_SIZE, T_REAL, T_ENUM, T_STR, T_PATH, T_DIST, T_KINDS_REAL, T_KINDS_INT,
       T_KNOB };
typedef struct gs_scn_opt_def {
    int scope;                 /* GS_SCOPE_* */
    const char *key;
    int type;                  /* T_* */
    const char *def;           /* default, as text */
    double lo, hi;             /* ranges of numbers */
    const char *choices, *help;
} gs_scn_opt_def;
extern const gs_scn_opt_def gs_scn_opts[];
extern const int gs_scn_n_opts;
extern const char *const gs_scn_scope_names[];
/* Index in s->settings of option opt, instance inst (injection point,
 * GS_INJ_COUNT = the [global] default; ignored for other scopes). */
int gs_scn_setting_index(int opt, int inst);

/* Allocates the settings array with every option at its default text
 * (not yet applied). */
gs_status gs_scn_settings_init(gs_scenario *s, gs_err *err);
/* Applies `key = value` of `section` (a section name as written: "engine",
 * "inject.tracker_hold"). base_dir resolves relative paths. */
gs_status gs_scn_apply(gs_scenario *s, const char *section, const char *key,
                       const char *value, const char *where, const char *base_dir,
                       gs_err *err);
/* Checks a section name; sets *point for inject sections (-1 otherwise). */
gs_status gs_scn_section_check(const gs_scenario *s, const char *section, int *point,
                               const char *where, gs_err *err);
/* Marks an [inject.<point>] section as present (it enables the point). */
void gs_scn_inject_present(gs_scenario *s, int point, const char *where);
/* Applies every default text, then finalizes inherited/derived values. */
gs_status gs_scn_apply_defaults(gs_scenario *s, gs_err *err);
gs_status gs_scn_finalize(gs_scenario *s, gs_err *err);
/* Cross-key checks of [inject.malloc_trim] (validation, once every key is
 * in place): mode = real rejects a delay distribution (other than fixed:0)
 * and needs frag or work_per_constraint; frag and work_per_constraint need
 * mode = real.  Errors name the file:line of the offending key. */
gs_status gs_scn_check_trim_mode(const gs_scenario *s, gs_err *err);

/* 0 for settings that do not act: keys of injection points that are off,
 * [global] injection defaults never set. */
int gs_scn_setting_in_effect(const gs_scenario *s, int i);

/* Reads an INI file (with includes) into s (ini.c). */
gs_status gs_scn_ini_parse_file(gs_scenario *s, const char *path, gs_err *err);

/* The engine's kind and injection point names (engine.h) as the scenario
 * layer prints them ("?" out of range); gs_scn_inj_from_name looks up the
 * len bytes at name. */
const char *gs_scn_kind_name(gs_job_kind k);
int gs_scn_inj_from_name(int *out, const char *name, size_t len);
const char *gs_scn_inj_name(int p);

#endif
