/* The iden3 binary container; see binfile.h. */
#define _GNU_SOURCE
#include "../../common/grow.h"
#include "binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

gs_status gs_binfile_fail(const char *path, const char *kind, gs_err *err, uint64_t off,
                          gs_status s, const char *fmt, ...)
{
    char where[700], detail[400];
    snprintf(where, sizeof where, "%s@%llu", path, (unsigned long long)off);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return gs_err_set(err, s, kind, where, "%s", detail);
}

#define file_fail(bf, err, off, s, ...) gs_binfile_fail((bf)->path, (bf)->kind, err, off, s, __VA_ARGS__)

gs_status gs_binfile_check_header(const char *path, const char *magic, uint32_t max_version,
                                  const uint8_t *hdr, uint64_t file_size, uint32_t *version,
                                  uint32_t *n_sections, gs_err *err)
{
    if (file_size < 12)
        return gs_binfile_fail(path, magic, err, 0, GS_ERR_FORMAT,
                               "file is %llu bytes, too short for the %s header (12 bytes)",
                               (unsigned long long)file_size, magic);
    if (memcmp(hdr, magic, 4) != 0)
        return gs_binfile_fail(path, magic, err, 0, GS_ERR_FORMAT,
                               "expected magic '%s', found '%.4s'", magic, (const char *)hdr);
    *version = rd32(hdr + 4);
    if (*version == 0 || *version > max_version)
        return gs_binfile_fail(path, magic, err, 4, GS_ERR_FORMAT,
                               "unsupported %s version %u (expected <= %u)", magic, *version,
                               max_version);
    *n_sections = rd32(hdr + 8);
    if (*n_sections > 1024)
        return gs_binfile_fail(path, magic, err, 8, GS_ERR_FORMAT, "implausible section count %u",
                               *n_sections);
    return GS_OK;
}

gs_status gs_binfile_check_section(const char *path, const char *kind, const uint8_t *sh,
                                   uint64_t pos, uint64_t file_size, uint32_t i, uint32_t n,
                                   gs_binsec *out, gs_err *err)
{
    if (sh == NULL || file_size - pos < 12)
        return gs_binfile_fail(path, kind, err, pos, GS_ERR_FORMAT,
                               "truncated: section %u of %u header needs 12 bytes, %llu left",
                               i + 1, n, (unsigned long long)(file_size - pos));
    out->type = rd32(sh);
    out->length = rd64(sh + 4);
    out->offset = pos + 12;
    if (out->length > file_size - out->offset)
        return gs_binfile_fail(path, kind, err, pos + 4, GS_ERR_FORMAT,
                               "truncated: section type %u declares %llu bytes, %llu left",
                               out->type, (unsigned long long)out->length,
                               (unsigned long long)(file_size - out->offset));
    return GS_OK;
}

gs_status gs_binfile_open(gs_binfile *bf, const char *path, const char *magic,
                          uint32_t max_version, gs_err *err)
{
    memset(bf, 0, sizeof *bf);
    bf->path = path;
    bf->kind = magic;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gs_err_set(err, GS_ERR_IO, magic, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gs_err_set(err, GS_ERR_IO, magic, path, "not a regular file");
    }
    bf->size = (size_t)st.st_size;
    if (bf->size < 12) {
        close(fd);
        uint32_t v, n;
        return gs_binfile_check_header(path, magic, max_version, NULL, bf->size, &v, &n, err);
    }
    void *m = mmap(NULL, bf->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return gs_err_set(err, GS_ERR_IO, magic, path, "mmap: %s", strerror(errno));
    bf->data = m;
    uint32_t n;
    gs_status s = gs_binfile_check_header(path, magic, max_version, bf->data, bf->size,
                                          &bf->version, &n, err);
    if (s != GS_OK) {
        gs_binfile_close(bf);
        return s;
    }
    bf->sections = calloc(n ? n : 1, sizeof *bf->sections);
    if (!bf->sections) {
        gs_binfile_close(bf);
        return gs_err_set(err, GS_ERR_NOMEM, magic, path, "section table");
    }
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        gs_binsec *sec = &bf->sections[i];
        s = gs_binfile_check_section(path, magic, bf->size - pos < 12 ? NULL : bf->data + pos,
                                     pos, bf->size, i, n, sec, err);
        if (s != GS_OK) {
            gs_binfile_close(bf);
            return s;
        }
        pos = sec->offset + sec->length;
        bf->n_sections++;
    }
    if (pos != bf->size) {
        s = file_fail(bf, err, pos, GS_ERR_FORMAT, "%llu trailing bytes after the last section",
                      (unsigned long long)(bf->size - pos));
        gs_binfile_close(bf);
        return s;
    }
    return GS_OK;
}

void gs_binfile_close(gs_binfile *bf)
{
    if (bf->data)
        munmap((void *)bf->data, bf->size);
    free(bf->sections);
    bf->data = NULL;
    bf->sections = NULL;
}

gs_status gs_binfile_section(const gs_binfile *bf, uint32_t type, gs_bincur *cur, gs_err *err)
{
    const gs_binsec *found = NULL;
    for (size_t i = 0; i < bf->n_sections; i++) {
        if (bf->sections[i].type != type)
            continue;
        if (found)
            return file_fail(bf, err, bf->sections[i].offset - 12, GS_ERR_FORMAT,
                             "section type %u occurs twice", type);
        found = &bf->sections[i];
    }
    if (!found)
        return file_fail(bf, err, 12, GS_ERR_FORMAT, "missing section type %u", type);
    *cur = (gs_bincur){bf, found->offset, found->offset + found->length, type, err};
    return GS_OK;
}

gs_status gs_bincur_fail(const gs_bincur *c, uint64_t offset, gs_status s, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return gs_binfile_fail(c->bf->path, c->bf->kind, c->err, offset, s, "section %u: %s",
                           c->section, detail);
}

gs_status gs_bincur_bytes(gs_bincur *c, const uint8_t **out, uint64_t n, const char *what)
{
    if (c->end - c->pos < n)
        return gs_bincur_fail(c, c->pos, GS_ERR_FORMAT,
                              "truncated: %s needs %llu bytes, section has %llu left", what,
                              (unsigned long long)n, (unsigned long long)(c->end - c->pos));
    *out = c->bf->data + (c->pos - c->bf->base);
    c->pos += n;
    return GS_OK;
}

gs_status gs_bincur_u32(gs_bincur *c, uint32_t *out, const char *what)
{
    const uint8_t *p = NULL;
    gs_status s = gs_bincur_bytes(c, &p, 4, what);
    if (s == GS_OK)
        *out = rd32(p);
    return s;
}

gs_status gs_bincur_u64(gs_bincur *c, uint64_t *out, const char *what)
{
    const uint8_t *p = NULL;
    gs_status s = gs_bincur_bytes(c, &p, 8, what);
    if (s == GS_OK)
        *out = rd64(p);
    return s;
}

gs_status gs_bincur_end(gs_bincur *c)
{
    if (c->pos != c->end)
        return gs_bincur_fail(c, c->pos, GS_ERR_FORMAT, "%llu unexpected bytes at the end of the section",
                              (unsigned long long)(c->end - c->pos));
    return GS_OK;
}

void gs_binbuf_put(gs_binbuf *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (!gs_grow_to(&b->data, &b->cap, b->len + n, 1, 4096)) {
        b->oom = 1;
        return;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void gs_binbuf_u32(gs_binbuf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    gs_binbuf_put(b, x, 4);
}

void gs_binbuf_u64(gs_binbuf *b, uint64_t v)
{
    gs_binbuf_u32(b, (uint32_t)v);
    gs_binbuf_u32(b, (uint32_t)(v >> 32));
}

size_t gs_binbuf_section_begin(gs_binbuf *b, uint32_t type)
{
    gs_binbuf_u32(b, type);
    size_t at = b->len;
    gs_binbuf_u64(b, 0);
    return at;
}

void gs_binbuf_section_end(gs_binbuf *b, size_t begin)
{
    if (b->oom)
        return;
    uint64_t len = b->len - begin - 8;
    for (int i = 0; i < 8; i++)
        b->data[begin + (size_t)i] = (uint8_t)(len >> (8 * i));
}

void gs_binbuf_free(gs_binbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

gs_status gs_file_write_atomic(const char *path, const void *data, size_t len,
                               const char *kind, gs_err *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, kind, path, "cannot create %s: %s", tmp, strerror(errno));
    size_t put = len ? fwrite(data, 1, len, f) : 0;
    int bad = put != len;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0 && errno != EINVAL;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return gs_err_set(err, GS_ERR_IO, kind, path, "write failed: %s", strerror(e));
    }
    return GS_OK;
}
