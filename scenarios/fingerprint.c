/*
 * The build and host fingerprint written into every run's metadata
 * (timeline/SPANS.md keys gapscope.version, build.git_rev, build.binary_sha256,
 * host.cpu, host.threads) and printed by `gapscope version`, so a report
 * says exactly which binary on which machine produced it.  A build made in
 * a git checkout carries its commit (the Makefile's GS_GIT_REV), so a binary
 * carried to a GPU box reports its build, not the checkout it runs in; a
 * build made without git asks the tree around the binary at run time, and
 * never borrows a repository that tree merely sits in (see git_rev).  The
 * binary's SHA-256 identifies the build in every case.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/cpuinfo.h"
#include "run.h"

#define GS_VERSION_STRING "0.1.0"

/* 1 when dir holds a gapscope source tree (the Makefile and this file). */
static int is_source_tree(const char *dir)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/Makefile", dir);
    if (access(p, R_OK) != 0)
        return 0;
    snprintf(p, sizeof p, "%s/scenarios/fingerprint.c", dir);
    return access(p, R_OK) == 0;
}

/* The revision of the tree the binary was built in: the nearest ancestor
 * of the binary's directory that is a gapscope source tree, asked with
 * git only when that tree has its own .git (a directory, or the file of a
 * worktree) and git agrees that it is the top level.  A tree without its
 * own .git (an export unpacked inside another checkout) or a binary
 * outside any source tree is "unknown": git would otherwise report the
 * enclosing repository's commit, which says nothing about this build. */
static void git_rev(char *out, size_t cap)
{
#ifdef GS_GIT_REV
    snprintf(out, cap, "%s", GS_GIT_REV);
    if (strcmp(out, "unknown"))
        return;
#endif
    snprintf(out, cap, "unknown");
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", exe);
    int found = 0;
    for (char *slash = strrchr(root, '/'); slash && slash > root; slash = strrchr(root, '/')) {
        *slash = '\0';
        if (is_source_tree(root)) {
            found = 1;
            break;
        }
    }
    if (!found || strchr(root, '\''))
        return;
    char dotgit[PATH_MAX + 8];
    snprintf(dotgit, sizeof dotgit, "%s/.git", root);
    if (access(dotgit, F_OK) != 0)
        return;
    char cmd[2 * PATH_MAX + 200];
    snprintf(cmd, sizeof cmd,
             "cd '%s' 2>/dev/null && git rev-parse --show-toplevel 2>/dev/null && "
             "git rev-parse --short=12 HEAD 2>/dev/null && "
             "(git diff --quiet HEAD -- 2>/dev/null || echo dirty)", root);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[PATH_MAX], top[PATH_MAX] = "", rev[64] = "";
    int dirty = 0, k = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (k == 0)
            snprintf(top, sizeof top, "%s", line);
        else if (!strcmp(line, "dirty"))
            dirty = 1;
        else if (!rev[0])
            snprintf(rev, sizeof rev, "%.60s", line);
        k++;
    }
    pclose(p);
    char rroot[PATH_MAX], rtop[PATH_MAX];
    if (!rev[0] || !realpath(root, rroot) || !realpath(top, rtop) || strcmp(rroot, rtop))
        return;
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
    if (!gs_cpuinfo_field(fp->cpu, sizeof fp->cpu, "model name"))
        snprintf(fp->cpu, sizeof fp->cpu, "unknown");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    fp->threads = n > 0 ? (int)n : 1;
}
