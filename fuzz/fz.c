/* Shared helpers of the libFuzzer targets (fz.h). */
#define _GNU_SOURCE
#include "fz.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/outfile.h"

static char dir[512];
static char pathbuf[768];

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\nfuzz invariant violated: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static void remove_dir(void) { gs_remove_tree(dir); }

const char *fz_dir(void)
{
    if (dir[0])
        return dir;
    const char *base = getenv("FUZZ_TMPDIR");
    struct stat sb;
    if (!base || !*base)
        base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0
                   ? "/dev/shm"
                   : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(dir, sizeof dir, "%s/gs_fuzz_XXXXXX", base);
    if (!mkdtemp(dir))
        fz_fail("cannot create a scratch directory under %s", base);
    atexit(remove_dir);
    return dir;
}

const char *fz_path(const char *name)
{
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", fz_dir(), name);
    return pathbuf;
}

const char *fz_write(const char *name, const uint8_t *data, size_t size)
{
    const char *p = fz_path(name);
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fz_fail("cannot write %s", p);
    return p;
}

const char *fz_write_text(const char *name, const char *text)
{
    return fz_write(name, (const uint8_t *)text, strlen(text));
}

void fz_expect_files(const char *const *names)
{
    DIR *d = opendir(fz_dir());
    if (!d)
        fz_fail("cannot list %s", fz_dir());
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int known = 0;
        for (const char *const *n = names; *n && !known; n++)
            known = !strcmp(*n, e->d_name);
        if (!known) {
            closedir(d);
            fz_fail("unexpected file '%s' left in the scratch directory (a partial output?)",
                    e->d_name);
        }
    }
    closedir(d);
}

void fz_expect_no_tmp(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp")) {
            closedir(d);
            fz_fail("partial output '%s' left in %s", e->d_name, path);
        }
    closedir(d);
}

/* 1 when msg holds `path` (or, when path is a directory, a file under it)
 * followed by ":<digit>" or "@<digit>". */
static int names_position(const char *msg, const char *path)
{
    size_t n = strlen(path);
    for (const char *p = strstr(msg, path); p; p = strstr(p + 1, path)) {
        const char *q = p + n;
        while (*q && *q != ':' && *q != '@' && !isspace((unsigned char)*q) && *q != '\'')
            q++;
        if ((*q == ':' || *q == '@') && isdigit((unsigned char)q[1]))
            return 1;
    }
    return 0;
}

void fz_check_error(gs_status st, const gs_err *err, const char *path, int need_pos)
{
    if (st == GS_OK || (unsigned)st >= GS_STATUS_COUNT)
        fz_fail("status %d is not an error status", (int)st);
    if (err->status != st)
        fz_fail("returned %s but the error record holds %s (%s)", gs_status_name(st),
                gs_status_name(err->status), err->msg);
    if (!err->msg[0])
        fz_fail("%s with an empty message", gs_status_name(st));
    if (st == GS_ERR_NOMEM || !path)
        return;
    if (!strstr(err->msg, path))
        fz_fail("the message does not name the file %s: %s", path, err->msg);
    if (need_pos && st != GS_ERR_IO && !names_position(err->msg, path))
        fz_fail("the message names no position (path:line or path@offset) in %s: %s", path,
                err->msg);
}

void fz_same_files(const char *a, const char *b, const char *what)
{
    char *x = NULL, *y = NULL;
    size_t nx, ny;
    gs_err err;
    gs_err_clear(&err);
    if (gs_read_file(&x, &nx, a, &err) != GS_OK || gs_read_file(&y, &ny, b, &err) != GS_OK)
        fz_fail("%s: cannot read back: %s", what, err.msg);
    if (nx != ny || memcmp(x, y, nx))
        fz_fail("%s: write(read(write(read(x)))) differs from write(read(x))", what);
    free(x);
    free(y);
}

