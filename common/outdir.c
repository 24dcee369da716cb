/*
 * Output directories a failed command leaves as they were (outdir.h):
 * create-or-keep at begin, drop the kept copies at commit, remove what was
 * written and put the copies back at abort.
 */
#define _XOPEN_SOURCE 700
#include "outdir.h"
#include "outfile.h"
#include "paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file copy where a hard link cannot be made. */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = -1, ok = 0;
    if (in < 0)
        return 0;
    out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (out >= 0) {
        char buf[65536];
        ssize_t n;
        ok = 1;
        while (ok && (n = read(in, buf, sizeof buf)) != 0)
            ok = n > 0 && write(out, buf, (size_t)n) == n;
        ok = close(out) == 0 && ok;
    }
    close(in);
    return ok;
}

/* Copies the tree at from to to; 1 when complete.  A file at the top
 * (link_ok) is hard-linked: gapscope replaces those by rename
 * (common/outfile.h), so the link keeps the old contents.  Files inside a
 * directory are copied: gnuplot rewrites charts/ in place. */
static int keep_tree(const char *from, const char *to, int link_ok)
{
    struct stat sb;
    if (lstat(from, &sb) != 0)
        return errno == ENOENT;
    if (!S_ISDIR(sb.st_mode))
        return (link_ok && link(from, to) == 0) || copy_file(from, to);
    if (mkdir(to, 0777) != 0)
        return 0;
    DIR *d = opendir(from);
    if (!d)
        return 0;
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char a[4400], b[4400];
        ok = snprintf(a, sizeof a, "%s/%s", from, e->d_name) < (int)sizeof a &&
             snprintf(b, sizeof b, "%s/%s", to, e->d_name) < (int)sizeof b && keep_tree(a, b, 0);
    }
    closedir(d);
    return ok;
}

static int matches(const char *entry, const char *const *names)
{
    if (!strncmp(entry, ".gs-keep.", 9))
        return 0;
    for (; names && *names; names++) {
        size_t n = strlen(*names);
        if (n && (*names)[n - 1] == '*' ? !strncmp(entry, *names, n - 1) : !strcmp(entry, *names))
            return 1;
    }
    return 0;
}

/* Calls fn(d, entry) for every entry of d->path that names matches. */
static int each_entry(gs_outdir *d, int (*fn)(gs_outdir *, const char *))
{
    DIR *dir = opendir(d->path);
    if (!dir)
        return 0;
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && matches(e->d_name, d->names))
            ok = fn(d, e->d_name);
    closedir(dir);
    return ok;
}

static int keep_one(gs_outdir *d, const char *name)
{
    char a[8400], b[8400];
    snprintf(a, sizeof a, "%s/%s", d->path, name);
    snprintf(b, sizeof b, "%s/%s", d->keep, name);
    return keep_tree(a, b, 1);
}

static int remove_one_entry(gs_outdir *d, const char *name)
{
    char a[8400];
    snprintf(a, sizeof a, "%s/%s", d->path, name);
    gs_remove_tree(a);
    return 1;
}

gs_status gs_outdir_begin(gs_outdir *d, const char *path, const char *const *names, gs_err *err)
{
    static unsigned seq;
    memset(d, 0, sizeof *d);
    d->names = names;
    if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path)
        return gs_err_set(err, GS_ERR_ARG, "output", path, "path too long");
    struct stat sb;
    if (stat(path, &sb) != 0) {
        gs_status st = gs_mkdir_p(path, err);
        d->created = st == GS_OK;
        return st;
    }
    if (!S_ISDIR(sb.st_mode))
        return gs_err_set(err, GS_ERR_IO, "output", path, "exists and is not a directory");
    snprintf(d->keep, sizeof d->keep, "%s/.gs-keep.%ld.%u", path, (long)getpid(), seq++);
    if (mkdir(d->keep, 0777) != 0) {
        gs_status st = gs_err_set(err, GS_ERR_IO, "output", d->keep, "mkdir: %s", strerror(errno));
        d->keep[0] = '\0';
        return st;
    }
    if (!each_entry(d, keep_one)) {
        gs_remove_tree(d->keep);
        d->keep[0] = '\0';
        return gs_err_set(err, GS_ERR_IO, "output", path,
                          "cannot keep a copy of the outputs already there (%s)", strerror(errno));
    }
    return GS_OK;
}

void gs_outdir_commit(gs_outdir *d)
{
    if (d->keep[0])
        gs_remove_tree(d->keep);
    d->keep[0] = '\0';
    d->path[0] = '\0';
}

void gs_outdir_abort(gs_outdir *d)
{
    if (!d->path[0])
        return;
    if (d->created) {
        gs_remove_tree(d->path);
    } else if (d->keep[0]) {
        each_entry(d, remove_one_entry);
        DIR *dir = opendir(d->keep);
        struct dirent *e;
        while (dir && (e = readdir(dir)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char a[8400], b[8400];
            snprintf(a, sizeof a, "%s/%s", d->keep, e->d_name);
            snprintf(b, sizeof b, "%s/%s", d->path, e->d_name);
            rename(a, b);
        }
        if (dir)
            closedir(dir);
        gs_remove_tree(d->keep);
    }
    d->keep[0] = '\0';
    d->path[0] = '\0';
}

int gs_outdir_end(gs_outdir *d, int rc)
{
    if (rc == 0)
        gs_outdir_commit(d);
    else
        gs_outdir_abort(d);
    return rc;
}
