/* Helpers shared by the prover/io tests (test_io.c, test_keyrec.c): fixture
 * paths, whole-file reads and writes, mutated copies, section offsets. */
#ifndef GS_TEST_IO_UTIL_H
#define GS_TEST_IO_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"

static inline const char *fixture(const char *name)
{
    static char buf[8][512];
    static int k;
    const char *dir = getenv("GS_FIXTURES");
    char *b = buf[k++ % 8];
    snprintf(b, 512, "%s/%s", dir && *dir ? dir : "test/fixtures", name);
    return b;
}

static inline int read_file(const char *path, unsigned char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(*len ? *len : 1);
    size_t got = fread(*data, 1, *len, f);
    fclose(f);
    return got == *len;
}

static inline int write_file(const char *path, const unsigned char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(data, 1, len, f);
    return (fclose(f) == 0) & (put == len);
}

static inline const char *tmp_path(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, 1024, "%s/%s", gs_test_tmpdir(), name);
    return b;
}

/* Writes a copy of a fixture with bytes changed or cut, returns its path. */
static inline const char *mutate(const char *src, const char *name, size_t cut, long flip_at,
                          unsigned char flip)
{
    unsigned char *d;
    size_t len;
    if (!read_file(fixture(src), &d, &len))
        return NULL;
    if (flip_at >= 0 && (size_t)flip_at < len)
        d[flip_at] ^= flip;
    const char *p = tmp_path(name);
    int ok = write_file(p, d, cut && cut < len ? cut : len);
    free(d);
    return ok ? p : NULL;
}

/* Offset of the first point of section `type` in a zkey file (a fixture
 * name, or an absolute path). */
static inline long section_offset(const char *src, unsigned type)
{
    unsigned char *d;
    size_t len;
    if (!read_file(src[0] == '/' ? src : fixture(src), &d, &len))
        return -1;
    size_t pos = 12;
    long found = -1;
    while (pos + 12 <= len) {
        unsigned t = d[pos] | d[pos + 1] << 8 | d[pos + 2] << 16 | (unsigned)d[pos + 3] << 24;
        uint64_t l = 0;
        for (int k = 7; k >= 0; k--)
            l = l << 8 | d[pos + 4 + k];
        if (t == type)
            found = (long)pos + 12;
        pos += 12 + l;
    }
    free(d);
    return found;
}

#endif
