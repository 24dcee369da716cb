/*
 * Key records: "the .zkey with this SHA-256 passed the subgroup checks"
 * (contract in io.h).  A record is a short text file DIR/<sha256>.rec:
 *
 *   gapscope key record 1
 *   sha256 <64 hex digits>          bound: file name and content must agree
 *   size <bytes>                    bound
 *   method subgroup-g1g2 sgb64-v1   bound: a new checker invalidates old records
 *   checked <UTC time>              informational
 *   key <path at the time>          informational
 *   mac <HMAC-SHA256 of the first four lines under DIR/.secret>
 *
 * Lookup never trusts a file's size or mtime: the loader hashes every byte
 * it decodes (SHA-NI, ~1.5 GB/s, overlapped with decoding), so a changed key
 * always has another digest and finds no record.  (mtime can be set to any
 * value with utimensat(2), writes through a shared mapping may update it
 * late, and size+mtime+inode survive an in-place rewrite of equal length;
 * none of them identifies content.)  The MAC makes an edited record (say,
 * its digest line changed to a bad key's) invalid unless the editor can
 * read DIR/.secret, which is created 0600; a secret or directory that other
 * users could write or read makes every record invalid.  This protects
 * against accidents and against other users, not against code running as
 * the same user, which could as well replace the binary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/paths.h"
#include "../../common/rng.h"
#include "io.h"
#include "io_internal.h"

#define REC_MAGIC "gapscope key record 1"

void gs_keyrec_default_dir(char *out, size_t len)
{
    const char *e = getenv("GAPSCOPE_KEY_RECORDS");
    out[0] = '\0';
    if (e) {
        if (e[0] && strcmp(e, "off"))
            snprintf(out, len, "%s", e);
        return;
    }
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    if (x && x[0] == '/')
        snprintf(out, len, "%s/gapscope/keys", x);
    else if (h && h[0] == '/')
        snprintf(out, len, "%s/.cache/gapscope/keys", h);
}

/* HMAC-SHA256 (RFC 2104) with a 32-byte key. */
static void hmac(uint8_t out[32], const uint8_t key[32], const char *msg)
{
    uint8_t pad[64], inner[32];
    gs_sha256 c;
    memset(pad, 0x36, sizeof pad);
    for (int i = 0; i < 32; i++)
        pad[i] ^= key[i];
    gs_sha256_init(&c);
    gs_sha256_update(&c, pad, sizeof pad);
    gs_sha256_update(&c, msg, strlen(msg));
    gs_sha256_final(inner, &c);
    memset(pad, 0x5c, sizeof pad);
    for (int i = 0; i < 32; i++)
        pad[i] ^= key[i];
    gs_sha256_init(&c);
    gs_sha256_update(&c, pad, sizeof pad);
    gs_sha256_update(&c, inner, sizeof inner);
    gs_sha256_final(out, &c);
}

/* The bound lines, in the order the MAC covers them. */
static void bound_text(char *out, size_t len, const char *hex, uint64_t size)
{
    snprintf(out, len, REC_MAGIC "\nsha256 %s\nsize %llu\nmethod " GS_KEYREC_METHOD "\n", hex,
             (unsigned long long)size);
}

/* 0 when st is ours and nobody else may write it (nor read it, if secret). */
static int private_enough(const struct stat *st, int secret)
{
    if (st->st_uid != geteuid())
        return 0;
    return !(st->st_mode & (secret ? 077 : 022));
}

/* Reads DIR/.secret; with create, makes it first if it is missing.
 * Returns 0 on success, else -1 and a note. */
static int read_secret(uint8_t key[32], const char *dir, int create, char *note, size_t nlen)
{
    char p[2300];
    struct stat st;
    snprintf(p, sizeof p, "%s/.secret", dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !private_enough(&st, 0)) {
        snprintf(note, nlen, "%s: not a directory of this user's that only it can write", dir);
        return -1;
    }
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT && create) {
        uint8_t fresh[32];
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            int ok = gs_os_random(fresh, sizeof fresh) == 0 &&
                     write(fd, fresh, sizeof fresh) == (ssize_t)sizeof fresh && fsync(fd) == 0;
            close(fd);
            if (!ok) {
                unlink(p);
                snprintf(note, nlen, "%s: cannot write: %s", p, strerror(errno));
                return -1;
            }
        }
        fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);   /* ours, or a racing writer's */
    }
    if (fd < 0) {
        snprintf(note, nlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 32 &&
             private_enough(&st, 1) && read(fd, key, 32) == 32;
    close(fd);
    if (!ok) {
        snprintf(note, nlen, "%s: not a 32-byte file that only this user can read", p);
        return -1;
    }
    return 0;
}

int gs_keyrec_lookup(const char *dir, const uint8_t digest[32], uint64_t size, char *path,
                     size_t path_len, char *note, size_t note_len)
{
    char hex[65], text[8192], want[400], line[200];
    uint8_t key[32], mac[32];
    note[0] = '\0';
    gs_sha256_hex(hex, digest);
    snprintf(path, path_len, "%s/%s.rec", dir, hex);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;                                   /* no record: the common first use */
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (read_secret(key, dir, 0, note, note_len) != 0)
        return 0;
    /* The bound lines must be the first four, exactly; the MAC line must match. */
    bound_text(want, sizeof want, hex, size);
    if (strncmp(text, want, strlen(want)) != 0) {
        snprintf(note, note_len, "%s does not describe this key (%s, %llu bytes) under method "
                 GS_KEYREC_METHOD ": ignored", path, hex, (unsigned long long)size);
        return 0;
    }
    hmac(mac, key, want);
    gs_sha256_hex(hex, mac);
    snprintf(line, sizeof line, "\nmac %s\n", hex);
    if (!strstr(text, line)) {
        snprintf(note, note_len, "%s fails its authentication (edited, or made under another "
                 "secret): ignored", path);
        return 0;
    }
    return 1;
}

gs_status gs_keyrec_store(const char *dir, const uint8_t digest[32], uint64_t size,
                          const char *key_path, char *path, size_t path_len, gs_err *err)
{
    char hex[65], bound[400], text[8192], when[64], note[600], abs[4096];
    uint8_t key[32], mac[32];
    gs_sha256_hex(hex, digest);
    snprintf(path, path_len, "%s/%s.rec", dir, hex);
    if (gs_mkdir_p_mode(dir, 0700) != 0)
        return gs_err_set(err, GS_ERR_IO, "key record", dir, "cannot create: %s",
                          strerror(errno));
    if (read_secret(key, dir, 1, note, sizeof note) != 0)
        return gs_err_set(err, GS_ERR_IO, "key record", dir, "%s", note);
    bound_text(bound, sizeof bound, hex, size);
    hmac(mac, key, bound);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!realpath(key_path, abs))
        snprintf(abs, sizeof abs, "%s", key_path);
    for (char *c = abs; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = '?';                 /* one line, whatever the name */
    char mhex[65];
    gs_sha256_hex(mhex, mac);
    int n = snprintf(text, sizeof text, "%schecked %s\nkey %s\nmac %s\n", bound, when, abs, mhex);
    if (n < 0 || (size_t)n >= sizeof text)
        return gs_err_set(err, GS_ERR_ARG, "key record", path, "key path too long");
    return gs_file_write_atomic(path, text, (size_t)n, "key record", err);
}
