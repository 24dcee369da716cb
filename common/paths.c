/* Paths (paths.h). */
#define _POSIX_C_SOURCE 200809L
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void gs_path_stem(char *out, size_t cap, const char *path, int first_dot)
{
    const char *base = strrchr(path, '/');
    snprintf(out, cap, "%s", base ? base + 1 : path);
    char *dot = first_dot ? strchr(out, '.') : strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

int gs_path_resolve(char *buf, size_t n, const char *base_dir, const char *path)
{
    int k = !path[0] || path[0] == '/' || !base_dir || !base_dir[0]
                ? snprintf(buf, n, "%s", path)
                : snprintf(buf, n, "%s/%s", base_dir, path);
    return k >= 0 && (size_t)k < n;
}

/* Appends the components of p to out (absolute, normalised, len bytes
 * used), folding "." and "..".  0, or -1 when it does not fit. */
static int push_components(char *out, size_t cap, size_t *len, const char *p)
{
    while (*p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (*len > 1 && out[*len - 1] != '/')
                (*len)--;
            if (*len > 1)
                (*len)--;
            out[*len] = '\0';
        } else {
            size_t sep = *len > 1 ? 1 : 0;
            if (*len + sep + n + 1 > cap)
                return -1;
            if (sep)
                out[(*len)++] = '/';
            memcpy(out + *len, p, n);
            *len += n;
            out[*len] = '\0';
        }
        p += n;
    }
    return 0;
}

int gs_path_abs(char *out, size_t cap, const char *path)
{
    if (cap < 2)
        return -1;
    size_t len = 1;
    out[0] = '/';
    out[1] = '\0';
    if (path[0] != '/') {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd) || push_components(out, cap, &len, cwd) != 0) {
            out[0] = '\0';
            return -1;
        }
    }
    if (push_components(out, cap, &len, path) != 0) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

int gs_path_rel(char *out, size_t cap, const char *path, const char *base)
{
    char p[4096], b[4096];
    if (!path[0]) {
        if (cap)
            out[0] = '\0';
        return 0;
    }
    if (gs_path_abs(p, sizeof p, path) != 0 || gs_path_abs(b, sizeof b, base) != 0)
        goto fail;
    /* The longest common prefix that ends at a component boundary. */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        int pe = p[i] == '\0' || p[i] == '/', be = b[i] == '\0' || b[i] == '/';
        if (pe && be)
            common = i;
        if (p[i] != b[i] || !p[i])
            break;
    }
    size_t len = 0;
    out[0] = '\0';
    /* One ".." per component of base below the common prefix. */
    for (const char *q = b + common; *q;) {
        while (*q == '/')
            q++;
        if (!*q)
            break;
        q += strcspn(q, "/");
        int n = snprintf(out + len, cap - len, "%s..", len ? "/" : "");
        if (n < 0 || (size_t)n >= cap - len)
            goto fail;
        len += (size_t)n;
    }
    const char *rest = p + common;
    while (*rest == '/')
        rest++;
    int n = snprintf(out + len, cap - len, "%s%s", len && *rest ? "/" : "", *rest || len ? rest : ".");
    if (n < 0 || (size_t)n >= cap - len)
        goto fail;
    return 0;
fail:
    if (cap)
        snprintf(out, cap, "%s", path);
    return -1;
}
