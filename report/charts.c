/* Running gnuplot on the plots/ templates (charts.h). */
#define _POSIX_C_SOURCE 200809L
#include "charts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../diag/run.h"

static int find_on_path(char *buf, size_t n, const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t len = c ? (size_t)(c - path) : strlen(path);
        int k = snprintf(buf, n, "%.*s/%s", (int)len, path, prog);
        if (k > 0 && (size_t)k < n && access(buf, X_OK) == 0)
            return 1;
        path += len + (c ? 1 : 0);
    }
    return 0;
}

int gs_gnuplot_available(void)
{
    char buf[4096];
    return find_on_path(buf, sizeof buf, "gnuplot");
}

static int has_common(const char *dir)
{
    char p[4200];
    return gs_path_join(p, sizeof p, dir, "common.gp") && access(p, R_OK) == 0;
}

int gs_plots_dir(char *buf, size_t n, const char *plots_dir)
{
    const char *env = getenv("GAPSCOPE_PLOTS");
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *cands[5] = {plots_dir, env, NULL, NULL, "plots"};
    char c2[4200], c3[4200];
    if (k > 0) {
        exe[k] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(c2, sizeof c2, "%s/../plots", exe);
        snprintf(c3, sizeof c3, "%s/../../plots", exe);
        cands[2] = c2;
        cands[3] = c3;
    }
    for (int i = 0; i < 5; i++)
        if (cands[i] && *cands[i] && has_common(cands[i])) {
            int w = snprintf(buf, n, "%s", cands[i]);
            return w > 0 && (size_t)w < n;
        }
    return 0;
}

/* Appends name='value' (gnuplot single-quoted: ' doubled) to a -e string. */
static void gp_var(char *buf, size_t n, const char *name, const char *value)
{
    size_t len = strlen(buf);
    int k = snprintf(buf + len, n - len, "%s='", name);
    if (k < 0 || (size_t)k >= n - len)
        return;
    len += (size_t)k;
    for (const char *p = value; *p && len + 3 < n; p++) {
        if (*p == '\'')
            buf[len++] = '\'';
        buf[len++] = *p;
    }
    if (len + 3 < n) {
        buf[len++] = '\'';
        buf[len++] = ';';
    }
    buf[len] = '\0';
}

static int run_gnuplot(const char *vars, const char *script, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", "-e", vars, script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static gs_status chart(const char *plots, const char *charts, const char *data, const char *tmpl,
                       const char *out, const char *extra, int *n_ok)
{
    char script[4200], outbase[4200], log[4200], vars[16384] = "";
    gs_path_join(script, sizeof script, plots, tmpl);
    gs_path_join(outbase, sizeof outbase, charts, out);
    gs_path_join(log, sizeof log, charts, "gnuplot.log");
    gp_var(vars, sizeof vars, "plotsdir", plots);
    gp_var(vars, sizeof vars, "datadir", data);
    gp_var(vars, sizeof vars, "outbase", outbase);
    if (extra)
        strncat(vars, extra, sizeof vars - strlen(vars) - 1);
    char png[4300];
    snprintf(png, sizeof png, "%s.png", outbase);
    unlink(png);
    if (run_gnuplot(vars, script, log) && access(png, R_OK) == 0)
        (*n_ok)++;
    return GS_OK;
}

static gs_status prepare(const char *run_dir, const char *plots_dir, char *plots, char *charts,
                         gs_err *err)
{
    if (!gs_gnuplot_available())
        return gs_err_set(err, GS_ERR_UNSUPPORTED, "charts", run_dir,
                          "gnuplot not found on PATH: charts skipped "
                          "(install gnuplot, e.g. apt-get install gnuplot-nox)");
    if (!gs_plots_dir(plots, 4096, plots_dir))
        return gs_err_set(err, GS_ERR_UNSUPPORTED, "charts", run_dir,
                          "plots/ templates not found (use --plots DIR or GAPSCOPE_PLOTS)");
    gs_path_join(charts, 4096, run_dir, "charts");
    if (mkdir(charts, 0777) != 0 && errno != EEXIST)
        return gs_err_set(err, GS_ERR_IO, "charts", charts, "cannot create: %s", strerror(errno));
    return GS_OK;
}

gs_status gs_charts_render(const char *run_dir, const char *plots_dir, int *n_ok, gs_err *err)
{
    char plots[4096], charts[4096], data[4200];
    *n_ok = 0;
    gs_status st = prepare(run_dir, plots_dir, plots, charts, err);
    if (st != GS_OK)
        return st;
    gs_path_join(data, sizeof data, run_dir, "data");
    char log[4200];
    gs_path_join(log, sizeof log, charts, "gnuplot.log");
    unlink(log);
    chart(plots, charts, data, "timeline.gp", "timeline", "zoom=0;", n_ok);
    chart(plots, charts, data, "timeline.gp", "timeline_zoom", "zoom=1;", n_ok);
    chart(plots, charts, data, "gap_cdf.gp", "gap_cdf", NULL, n_ok);
    chart(plots, charts, data, "causes.gp", "causes", NULL, n_ok);
    chart(plots, charts, data, "util.gp", "util", NULL, n_ok);
    if (*n_ok < 5)
        return gs_err_set(err, GS_ERR_INTERNAL, "charts", charts,
                          "%d of 5 charts drawn; see gnuplot.log there", *n_ok);
    return GS_OK;
}

gs_status gs_sweep_chart(const char *dir, const char *plots_dir, gs_err *err)
{
    char plots[4096], charts[4096], path[4200], extra[8192] = "";
    gs_path_join(path, sizeof path, dir, "sweep.dat");
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "sweep chart", path, "cannot open: %s", strerror(errno));
    gs_status st = prepare(dir, plots_dir, plots, charts, err);
    if (st != GS_OK) {
        fclose(f);
        return st;
    }
    char line[1024], names[4096] = "";
    while (fgets(line, sizeof line, f)) {
        char name[256];
        if (sscanf(line, "# suspect %255s", name) == 1 &&
            strlen(names) + strlen(name) + 2 < sizeof names) {
            if (names[0])
                strcat(names, " ");
            strcat(names, name);
        }
    }
    fclose(f);
    if (!names[0])
        snprintf(names, sizeof names, "suspect");   /* one unnamed block */
    gp_var(extra, sizeof extra, "suspects", names);
    gp_var(extra, sizeof extra, "sweepfile", path);
    int n_ok = 0;
    chart(plots, charts, dir, "sweep.gp", "sweep", extra, &n_ok);
    gs_path_join(path, sizeof path, dir, "sweep_causes.dat");
    if (access(path, R_OK) == 0) {
        extra[0] = '\0';
        gp_var(extra, sizeof extra, "causesfile", path);
        chart(plots, charts, dir, "causes.gp", "sweep_causes", extra, &n_ok);
    }
    if (n_ok == 0)
        return gs_err_set(err, GS_ERR_INTERNAL, "sweep chart", charts,
                          "gnuplot failed; see gnuplot.log there");
    return GS_OK;
}
