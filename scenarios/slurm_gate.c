/*
 * `gapscope gate --slurm`: the base and head runs of a paired gate as one
 * Slurm job array, interleaved (even tasks base, odd tasks head, task 2k and
 * 2k+1 being repetition k of each side), so that the two sides run on the
 * same partition at the same hours instead of one after the other: drifts
 * of the fleet (a busier filesystem, a warmer room) fall on both.  The
 * gate itself (diag/gate.c, the Mann-Whitney comparison) reads the run
 * directories as it reads any others (cli/cmd_gate.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm.h"

/* The two sides' scenarios, loaded and validated with the sets. */
static gs_status check_side(const char *path, const gs_slurm_gate_spec *g, gs_err *err)
{
    gs_scenario *s = NULL;
    gs_status st = gs_scenario_load(&s, path, err);
    if (st == GS_OK)
        st = gs_scenario_set_all(s, (const char *const *)g->sets, g->n_sets, "--set", err);
    if (st == GS_OK)
        st = gs_scenario_validate(s, err);
    gs_scenario_destroy(s);
    return st;
}

/* "  N) dir=...; BIN run SCN --out "$dir" --quiet --no-report --set ...;;" */
static int side(char *body, size_t cap, int parity, const char *bin, const char *scn, const char *tag,
                const gs_slurm_gate_spec *g)
{
    char q[4200], qo[4200];
    size_t k = strlen(body);
    if (!gs_slurm_shell_quote(q, sizeof q, scn) || !gs_slurm_shell_quote(qo, sizeof qo, g->out))
        return 0;
    k += (size_t)snprintf(body + k, k < cap ? cap - k : 0,
                          "  %d) dir=$(printf '%%s/%s-%%03d' %s $((i / 2)))\n     %s run %s --out \"$dir\" "
                          "--quiet --no-report",
                          parity, tag, qo, bin, q);
    for (int s = 0; s < g->n_sets && k < cap; s++) {
        if (!gs_slurm_shell_quote(q, sizeof q, g->sets[s]))
            return 0;
        k += (size_t)snprintf(body + k, k < cap ? cap - k : 0, " --set %s", q);
    }
    k += (size_t)snprintf(body + k, k < cap ? cap - k : 0, ";;\n");
    return k < cap;
}

/* Task i's run directory with its timeline. */
static int have_run(const gs_slurm_array *a, int i)
{
    char p[GS_SCN_PATH_MAX + 64];
    snprintf(p, sizeof p, "%.480s/%s-%03d/spans.csv", a->out, i % 2 ? "head" : "base", i / 2);
    return access(p, R_OK) == 0;
}

gs_status gs_slurm_gate_runs(const gs_slurm_gate_spec *g, const gs_slurm_opts *o, char (*dirs)[GS_SCN_PATH_MAX],
                             unsigned char *done, gs_err *err)
{
    gs_slurm_array a;
    memset(&a, 0, sizeof a);
    char body[32768], base_bin[4200] = "\"$gs\"";
    int total = 2 * g->reps;
    gs_status st;
    if (g->reps < 1)
        return GS_ERR(err, GS_ERR_ARG, "gate", "--reps must be at least 1");
    if ((st = check_side(g->base, g, err)) != GS_OK || (st = check_side(g->head, g, err)) != GS_OK)
        return st;
    if (g->base_bin && !gs_slurm_shell_quote(base_bin, sizeof base_bin, g->base_bin))
        return GS_ERR(err, GS_ERR_RANGE, "gate", "--base-bin: path too long");
    snprintf(body, sizeof body, "case $((i %% 2)) in\n");
    if (!side(body, sizeof body, 0, base_bin, g->base, "base", g) ||
        !side(body, sizeof body, 1, "\"$gs\"", g->head, "head", g) ||
        strlen(body) + 8 >= sizeof body)
        return GS_ERR(err, GS_ERR_RANGE, "gate", "the task's command line is too long");
    strcat(body, "esac\n");
    if ((st = gs_slurm_array_open(&a, g->out, "gate", total, body, o, err)) != GS_OK)
        goto done;
    a.have_output = have_run;
    if ((st = gs_slurm_array_run(&a, body, o, err)) != GS_OK || o->dry_run)
        goto done;
    int c[GS_TASK_PHASE_COUNT];
    gs_slurm_array_counts(&a, c);
    for (int i = 0; i < total; i++) {
        snprintf(dirs[i], GS_SCN_PATH_MAX, "%.480s/%s-%03d", g->out, i % 2 ? "head" : "base", i / 2);
        done[i] = a.t[i].phase == GS_TASK_DONE;
    }
    if (c[GS_TASK_DONE] < total)
        gs_slurm_array_report(&a, "gate", stderr);
    unsigned char *beside = calloc((size_t)total, 1);
    int nb = beside ? gs_slurm_array_beside(&a, done, beside) : 0;
    if (nb) { /* paired base and head beside each other share the load alike; still, say so */
        char note[512];
        gs_slurm_beside_note(note, sizeof note, nb, c[GS_TASK_DONE]);
        fprintf(stderr, "gapscope gate: %s\n", note);
    }
    free(beside);
done:
    gs_slurm_array_close(&a);
    return st;
}
