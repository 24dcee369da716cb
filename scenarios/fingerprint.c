/*
 * The build and host fingerprint written into every run's metadata
 * (diag/SPANS.md keys gapscope.version, build.git_rev, build.binary_sha256,
 * host.cpu, host.threads), so a report says exactly which binary on which
 * machine produced it.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

#define GS_VERSION_STRING "0.1.0"

static void git_rev(char *out, size_t cap)
{
#ifdef GS_GIT_REV
    snprintf(out, cap, "%s", GS_GIT_REV);
    if (strcmp(out, "unknown"))
        return;
#endif
    snprintf(out, cap, "unknown");
    /* The binary lives in <repo>/build/, so ask git about its directory. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd,
             "cd '%s' 2>/dev/null && git rev-parse --short=12 HEAD 2>/dev/null && "
             "(git diff --quiet HEAD -- 2>/dev/null || echo dirty)", dirname(exe));
    if (strchr(exe, '\''))
        return;
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[64], rev[64] = "";
    int dirty = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "dirty"))
            dirty = 1;
        else if (!rev[0])
            snprintf(rev, sizeof rev, "%s", line);
    }
    pclose(p);
    if (rev[0])
        snprintf(out, cap, "%.40s%s", rev, dirty ? "-dirty" : "");
}

void gs_fingerprint_get(gs_fingerprint *fp)
{
    memset(fp, 0, sizeof *fp);
    snprintf(fp->version, sizeof fp->version, "%s", GS_VERSION_STRING);
    git_rev(fp->git_rev, sizeof fp->git_rev);
    gs_err err;
    gs_err_clear(&err);
    if (gs_sha256_file(fp->binary_sha256, "/proc/self/exe", &err) != GS_OK)
        snprintf(fp->binary_sha256, sizeof fp->binary_sha256, "unknown");
    snprintf(fp->cpu, sizeof fp->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    c[strcspn(c, "\n")] = '\0';
                    snprintf(fp->cpu, sizeof fp->cpu, "%s", c);
                }
                break;
            }
        fclose(f);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    fp->threads = n > 0 ? (int)n : 1;
}
