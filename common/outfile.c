/* Atomic output files and whole-file reads (see outfile.h). */
#define _XOPEN_SOURCE 700
#include "grow.h"
#include "outfile.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

gs_status gs_out_open(gs_outfile *o, const char *path, gs_err *err)
{
    memset(o, 0, sizeof *o);
    if (strlen(path) + 32 >= sizeof o->tmp)
        return gs_err_set(err, GS_ERR_ARG, "output", path, "path too long");
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f)
        return gs_err_set(err, GS_ERR_IO, "output", path, "cannot create %s: %s",
                          o->tmp, strerror(errno));
    return GS_OK;
}

gs_status gs_out_close(gs_outfile *o, int ok, gs_err *err)
{
    if (!o->f)
        return ok ? gs_err_set(err, GS_ERR_STATE, "output", o->path, "not open") : GS_OK;
    int bad = ferror(o->f);
    int saved = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    o->f = NULL;
    if (!ok || bad) {
        unlink(o->tmp);
        if (bad && ok)
            return gs_err_set(err, GS_ERR_IO, "output", o->path, "write failed: %s",
                              strerror(saved));
        return GS_OK;
    }
    if (rename(o->tmp, o->path) != 0) {
        saved = errno;
        unlink(o->tmp);
        return gs_err_set(err, GS_ERR_IO, "output", o->path, "rename failed: %s",
                          strerror(saved));
    }
    return GS_OK;
}

gs_status gs_read_file(char **out, size_t *len, const char *path, gs_err *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "input", path, "cannot open: %s", strerror(errno));
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        if (!gs_grow(&buf, &cap, n + 1, 1, 1 << 16))   /* room for the NUL */
            goto nomem;
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return gs_err_set(err, GS_ERR_IO, "input", path, "read failed");
    }
    fclose(f);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return GS_OK;
nomem:
    free(buf);
    fclose(f);
    return gs_err_set(err, GS_ERR_NOMEM, "input", path, "out of memory reading file");
}

static int remove_one(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    remove(p);
    return 0;
}

void gs_remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
