/* Paths (paths.h). */
#define _POSIX_C_SOURCE 200809L
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p into buf (PATH_MAX bytes): on failure buf holds the directory
 * that could not be made. */
static int mkdir_p(char *buf, const char *dir, unsigned mode)
{
    int k = snprintf(buf, PATH_MAX, "%s", dir);
    if (k < 0 || k >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST ? -1 : 0;
}

int gs_mkdir_p_mode(const char *dir, unsigned mode)
{
    char buf[PATH_MAX];
    return mkdir_p(buf, dir, mode);
}

gs_status gs_mkdir_p(const char *dir, gs_err *err)
{
    char buf[PATH_MAX];
    if (mkdir_p(buf, dir, 0777) == 0)
        return GS_OK;
    return gs_err_set(err, GS_ERR_IO, "run", buf, "mkdir: %s", strerror(errno));
}

int gs_path_join(char *buf, size_t n, const char *dir, const char *name)
{
    int k = snprintf(buf, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
                     name);
    return k >= 0 && (size_t)k < n;
}

int gs_path_resolve(char *buf, size_t n, const char *base_dir, const char *path)
{
    int k = !path[0] || path[0] == '/' || !base_dir || !base_dir[0]
                ? snprintf(buf, n, "%s", path)
                : snprintf(buf, n, "%s/%s", base_dir, path);
    return k >= 0 && (size_t)k < n;
}
