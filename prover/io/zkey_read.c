/*
 * Streaming .zkey reader (SNARKJS-FORMATS.md section 6): one sequential
 * pass over the file with read(2), so that
 *
 *   - the SHA-256 of the file, the key's identity for key records
 *     (keyrec.c), is computed over exactly the bytes that are decoded: a
 *     file that changes while it is read cannot be decoded as one content
 *     and recorded as another;
 *   - memory stays at the decoded key plus one ZK_BUF buffer: the file's
 *     pages are never mapped into the process, so a GiB key costs its
 *     decoded size once, not twice;
 *   - decoding is parallel: each buffer of points or coefficients is cut
 *     into slices decoded on the pool (coordinate ranges and the curve
 *     equation checked) while one participant hashes the buffer.
 *
 * Sections are taken in file order, whatever it is.  Counts that depend on
 * the header (section 2) are checked when the section arrives if the header
 * came first (snarkjs's order), otherwise once both are known; coefficient
 * ranges are checked after the pass.  Messages and offsets are those of the
 * mapped reader (binfile.c): the container checks are shared, and cursors
 * run over views of the buffer.  Subgroup checks are not made here: zkey.c
 * decides whether they run.  Coefficients are stored as v*R^2 and become
 * our Montgomery v*R by one Montgomery multiplication by plain 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/bigmem.h"
#include "io_internal.h"

enum {
    ZK_BUF = 2 << 20,       /* bytes read per piece (memory: one piece) */
    ZK_SMALL_MAX = 1 << 16, /* sections 1 and 2 are read whole; longer is an error */
    ZK_SLICE = 1024,        /* elements per decode task */
};

typedef struct {
    int fd;
    const char *path;
    int curve;               /* check the curve equation while decoding */
    uint64_t size, pos;
    gs_sha256 *sha;
    uint8_t *buf;            /* ZK_BUF bytes (or the file size, if smaller) */
    size_t buf_len;
    int no_arena;            /* a point array was allocated alone, or the arena failed */
    gs_err *err;
} zk_in;

/* Reads n bytes at the current position into dst. */
static gs_status zk_read_into(zk_in *in, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(in->fd, dst + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return gs_binfile_fail(in->path, "zkey", in->err, in->pos + got, GS_ERR_IO,
                                   "read failed: %s", strerror(errno));
        if (r == 0)
            return gs_binfile_fail(in->path, "zkey", in->err, in->pos + got, GS_ERR_IO,
                                   "the file ended while it was read (it was %llu bytes when "
                                   "opened): changed while being read?",
                                   (unsigned long long)in->size);
        got += (size_t)r;
    }
    in->pos += n;
    return GS_OK;
}

/* Reads n <= in->buf_len bytes at the current position into in->buf. */
static gs_status zk_read(zk_in *in, size_t n)
{
    return zk_read_into(in, in->buf, n);
}

/* A view of data[0 .. n) as the file's bytes ending at in->pos. */
static gs_binfile zk_view(const zk_in *in, const uint8_t *data, size_t n)
{
    return (gs_binfile){.path = in->path, .kind = "zkey", .data = data, .size = n,
                        .base = in->pos - n};
}

/* One piece of a section's elements, decoded in slices while item 0 hashes
 * it and item 1 reads the next piece into the other half of the buffer. */
typedef struct {
    gs_binfile view;
    uint32_t type;
    size_t unit;             /* 96 (G1), 192 (G2) or 44 (coefficient) */
    size_t first, n;         /* the piece holds elements first .. first + n - 1 */
    void *out;
    const char *what;
    gs_sha256 *sha;
    int curve;               /* check points' curve equation here */
    _Atomic size_t bad;      /* lowest failing element of the piece, or n */
    zk_in *in;               /* item 1: reads ahead_n bytes into ahead (0: none) */
    uint8_t *ahead;
    size_t ahead_n;
    gs_status ahead_st;
} zk_piece;

static gs_status read_coef(gs_bincur *c, struct gs_coef *k)
{
    static const gs_fr r_inv = {{1, 0, 0, 0}}; /* plain 1 = Montgomery form of R^-1 */
    gs_scalar raw;
    gs_status s;
    if ((s = gs_bincur_u32(c, &k->matrix, "matrix")) != GS_OK ||
        (s = gs_bincur_u32(c, &k->row, "constraint")) != GS_OK ||
        (s = gs_bincur_u32(c, &k->wire, "signal")) != GS_OK ||
        (s = gs_io_read_scalar(c, &raw, "coefficient")) != GS_OK)
        return s;
    memcpy(k->value.l, raw.l, sizeof raw.l);
    gs_fr_mul(&k->value, &k->value, &r_inv);   /* v R^2 * R^-1 = v R */
    return GS_OK;
}

static gs_status decode_one(const zk_piece *p, size_t i, gs_err *err)
{
    uint64_t at = p->view.base + i * p->unit;
    gs_bincur c = {&p->view, at, at + p->unit, p->type, err};
    size_t k = p->first + i;
    if (p->unit == 96)
        return gs_io_read_g1_as(&c, &((gs_g1_affine *)p->out)[k], p->what, p->curve);
    if (p->unit == 192)
        return gs_io_read_g2_as(&c, &((gs_g2_affine *)p->out)[k], p->what, p->curve);
    return read_coef(&c, &((struct gs_coef *)p->out)[k]);
}

static void piece_items(void *ctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    zk_piece *p = ctx;
    for (size_t it = begin; it < end; it++) {
        if (it == 0) {
            gs_sha256_update(p->sha, p->view.data, p->view.size);
            continue;
        }
        if (it == 1) {
            if (p->ahead_n)
                p->ahead_st = zk_read_into(p->in, p->ahead, p->ahead_n);
            continue;
        }
        size_t lo = (it - 2) * ZK_SLICE, hi = lo + ZK_SLICE < p->n ? lo + ZK_SLICE : p->n;
        for (size_t i = lo; i < hi; i++)
            if (decode_one(p, i, NULL) != GS_OK) {
                gs_atomic_min_size(&p->bad, i);
                break;
            }
    }
}

/* Bytes per piece: half the buffer (the other half takes the next piece
 * meanwhile), or GS_ZKEY_PIECE_BYTES if smaller (a test knob, so that small
 * keys are read in many pieces and every boundary case runs). */
static size_t piece_bytes(const zk_in *in)
{
    const char *e = getenv("GS_ZKEY_PIECE_BYTES");
    size_t half = in->buf_len / 2;
    size_t b = e && *e ? (size_t)strtoull(e, NULL, 10) : half;
    return b && b < half ? b : half;
}

/*
 * Streams `len` bytes of whole elements of `unit` bytes into out[0 ..).
 * While a piece is hashed and decoded, the next one is read into the other
 * half of the buffer (the read was ~0.3 ms per 2 MiB with both threads
 * waiting); the bytes are hashed in file order, one piece per round.  A
 * decode error comes before a read error: its offset is the earlier one.
 */
static gs_status zk_elements(zk_in *in, gs_pool *pool, uint32_t type, uint64_t len, size_t unit,
                             void *out, const char *what)
{
    size_t per = piece_bytes(in) / unit * unit, first = 0;
    if (per == 0)
        per = unit;
    if (len == 0)
        return GS_OK;
    uint8_t *cur = in->buf, *nxt = in->buf + in->buf_len / 2;
    size_t take = len < per ? (size_t)len : per;
    gs_status s = zk_read_into(in, cur, take);
    if (s != GS_OK)
        return s;
    for (;;) {
        len -= take;
        size_t next = len < per ? (size_t)len : per;
        zk_piece p = {.view = zk_view(in, cur, take), .type = type, .unit = unit,
                      .first = first, .n = take / unit, .out = out, .what = what,
                      .sha = in->sha, .curve = in->curve, .in = in, .ahead = nxt,
                      .ahead_n = next, .ahead_st = GS_OK};
        atomic_init(&p.bad, p.n);
        gs_pool_for(pool, 2 + (p.n + ZK_SLICE - 1) / ZK_SLICE, 1, piece_items, &p);
        if (atomic_load(&p.bad) < p.n)
            return decode_one(&p, atomic_load(&p.bad), in->err);
        if (p.ahead_st != GS_OK)
            return p.ahead_st;
        first += p.n;
        if (!next)
            return GS_OK;
        uint8_t *t = cur;
        cur = nxt;
        nxt = t;
        take = next;
    }
}

/* Hashes and skips `len` bytes (sections the prover does not use). */
static gs_status zk_skip(zk_in *in, uint64_t len)
{
    while (len) {
        size_t take = len < in->buf_len ? (size_t)len : in->buf_len;
        gs_status s = zk_read(in, take);
        if (s != GS_OK)
            return s;
        gs_sha256_update(in->sha, in->buf, take);
        len -= take;
    }
    return GS_OK;
}

/* Section 1 (whole, in the buffer): Groth16 only. */
static gs_status parse_protocol(const gs_binfile *v, const gs_binsec *sec, gs_err *err)
{
    gs_bincur c = {v, sec->offset, sec->offset + sec->length, 1, err};
    uint32_t protocol;
    gs_status s = gs_bincur_u32(&c, &protocol, "protocol");
    if (s == GS_OK && protocol != 1)
        s = gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT,
                           "protocol %u is not Groth16 (1); PLONK/FFLONK keys are not supported",
                           protocol);
    return s;
}

/* Section 2 (whole, in the buffer): primes, sizes and the six header points. */
static gs_status parse_header(gs_pk *out, gs_zkey_layout *lay, const gs_binfile *v,
                              const gs_binsec *sec, gs_err *err)
{
    gs_bincur c = {v, sec->offset, sec->offset + sec->length, 2, err};
    uint32_t n8q, n8r;
    gs_status s;
    if ((s = gs_bincur_u32(&c, &n8q, "n8q")) != GS_OK)
        return s;
    if (n8q != 48 && n8q != 32)
        return gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT, "n8q = %u, expected 48", n8q);
    if ((s = gs_io_check_prime(&c, n8q, 0)) != GS_OK ||
        (s = gs_bincur_u32(&c, &n8r, "n8r")) != GS_OK)
        return s;
    if (n8r != 32)
        return gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT, "n8r = %u, expected 32", n8r);
    if ((s = gs_io_check_prime(&c, n8r, 1)) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_vars, "nVars")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->n_public, "nPublic")) != GS_OK ||
        (s = gs_bincur_u32(&c, &out->domain_size, "domainSize")) != GS_OK)
        return s;
    if (out->domain_size == 0 || (out->domain_size & (out->domain_size - 1)) ||
        out->domain_size > (1u << 28))
        return gs_bincur_fail(&c, c.pos - 4, GS_ERR_FORMAT,
                              "domainSize %u is not a power of two <= 2^28", out->domain_size);
    if (out->n_public + 1 > out->n_vars)
        return gs_bincur_fail(&c, c.pos - 8, GS_ERR_FORMAT, "nPublic %u >= nVars %u",
                              out->n_public, out->n_vars);
    out->log_domain = (uint32_t)__builtin_ctz(out->domain_size);
    gs_g1_affine *g1[3] = {&out->alpha1, &out->beta1, &out->delta1};
    gs_g2_affine *g2[3] = {&out->beta2, &out->gamma2, &out->delta2};
    static const char *const names[6] = {"alpha_1", "beta_1", "beta_2",
                                         "gamma_2", "delta_1", "delta_2"};
    /* File order: alpha_1, beta_1, beta_2, gamma_2, delta_1, delta_2. */
    static const int is_g2[6] = {0, 0, 1, 1, 0, 1}, idx[6] = {0, 1, 0, 1, 2, 2};
    for (int i = 0; i < 6; i++) {
        lay->hdr_off[i] = c.pos;
        s = is_g2[i] ? gs_io_read_g2(&c, g2[idx[i]], names[i])
                     : gs_io_read_g1(&c, g1[idx[i]], names[i]);
        if (s != GS_OK)
            return s;
    }
    return gs_bincur_end(&c);
}

/* Elements a point or coefficient section must hold, from the header. */
static uint64_t expected_count(const gs_pk *pk, uint32_t type)
{
    switch (type) {
    case 3: return (uint64_t)pk->n_public + 1;
    case 5: case 6: case 7: return pk->n_vars;
    case 8: return (uint64_t)pk->n_vars - pk->n_public - 1;
    default: return pk->domain_size;    /* 9: H */
    }
}

const uint32_t gs_io_zkey_point_types[6] = {3, 5, 6, 7, 8, 9};

/* The member of pk that holds point section `type` (3, 5-9). */
static void **point_slot(gs_pk *pk, uint32_t type)
{
    switch (type) {
    case 3: return (void **)&pk->ic;
    case 5: return (void **)&pk->a;
    case 6: return (void **)&pk->b1;
    case 7: return (void **)&pk->b2;
    case 8: return (void **)&pk->c;
    default: return (void **)&pk->h;    /* 9 */
    }
}

size_t gs_io_zkey_points(const gs_pk *pk, uint32_t type, const void **pts)
{
    *pts = *point_slot((gs_pk *)pk, type);   /* read only */
    return (size_t)expected_count(pk, type);
}

const char *gs_io_zkey_section_name(uint32_t type)
{
    static const char *const names[10] = {NULL, NULL, NULL, "IC", NULL, "A", "B1", "B2", "C", "H"};
    return names[type];
}

static gs_status count_mismatch(const zk_in *in, const gs_pk *pk, const gs_binsec *sec,
                                size_t unit)
{
    uint64_t n = expected_count(pk, sec->type);
    return gs_binfile_fail(in->path, "zkey", in->err, sec->offset, GS_ERR_FORMAT,
                           "section %u: %s section is %llu bytes, expected %llu points x %zu = "
                           "%llu", sec->type, gs_io_zkey_section_name(sec->type),
                           (unsigned long long)sec->length, (unsigned long long)n, unit,
                           (unsigned long long)n * unit);
}

static size_t arena_part(const gs_pk *pk, uint32_t type)
{
    size_t elem = type == 7 ? sizeof(gs_g2_affine) : sizeof(gs_g1_affine);
    size_t bytes = (size_t)expected_count(pk, type) * elem;
    return (bytes + 64) & ~(size_t)63;   /* at least one byte, cache-line aligned */
}

/*
 * Where section `type`'s points go when the header came first: one block
 * for all six point arrays (gs_pk.arena), allocated and prefaulted at the
 * first point section.  A 2^14 key's arrays are below one huge page each,
 * so apart they took ~1,700 faults of 4 KiB pages; together they fill a few
 * huge pages.  NULL (allocate the array alone) when a point section came
 * before the header, or the header's counts need more bytes than the file
 * holds (a lying header is caught by the section's length check instead).
 */
static void *arena_slot(zk_in *in, gs_pk *out, uint32_t type, gs_pool *pool)
{
    if (in->no_arena)
        return NULL;
    if (!out->arena) {
        uint64_t file_bytes = 0;
        size_t bytes = 0;
        for (int i = 0; i < 6; i++) {
            uint32_t t = gs_io_zkey_point_types[i];
            file_bytes += expected_count(out, t) * (t == 7 ? 192u : 96u);
            bytes += arena_part(out, t);
        }
        if (file_bytes > in->size || !(out->arena = gs_big_alloc(bytes))) {
            in->no_arena = 1;
            return NULL;
        }
        gs_big_prefault(out->arena, bytes, pool);
    }
    size_t off = 0;
    for (int i = 0; gs_io_zkey_point_types[i] != type; i++)
        off += arena_part(out, gs_io_zkey_point_types[i]);
    return (unsigned char *)out->arena + off;
}

/* A point section: its array is allocated from its length, checked against
 * the header now if the header came first, else later (parse_finish). */
static gs_status read_points(zk_in *in, gs_pk *out, int have_header, const gs_binsec *sec,
                             gs_pool *pool)
{
    size_t unit = sec->type == 7 ? 192 : 96;
    const char *name = gs_io_zkey_section_name(sec->type);
    if (have_header && sec->length != expected_count(out, sec->type) * unit)
        return count_mismatch(in, out, sec, unit);
    if (sec->length % unit)
        return gs_binfile_fail(in->path, "zkey", in->err, sec->offset, GS_ERR_FORMAT,
                               "section %u: %s section is %llu bytes, not a whole number of "
                               "%zu-byte points", sec->type, name,
                               (unsigned long long)sec->length, unit);
    size_t n = (size_t)(sec->length / unit), elem = unit == 96 ? sizeof(gs_g1_affine)
                                                               : sizeof(gs_g2_affine);
    void *arr = have_header ? arena_slot(in, out, sec->type, pool) : NULL;
    if (!arr) {
        in->no_arena = 1;    /* the arena would not hold this array: none from now on */
        if (!(arr = gs_big_alloc((n ? n : 1) * elem)))
            return gs_err_set(in->err, GS_ERR_NOMEM, "zkey", in->path, "%zu %s points", n,
                              name);
        gs_big_prefault(arr, n * elem, pool);
    }
    *point_slot(out, sec->type) = arr;
    return zk_elements(in, pool, sec->type, sec->length, unit, arr, name);
}

static gs_status read_coefs(zk_in *in, gs_pk *out, const gs_binsec *sec, gs_pool *pool)
{
    size_t head = sec->length < 4 ? (size_t)sec->length : 4;
    gs_status s = zk_read(in, head);
    if (s != GS_OK)
        return s;
    gs_sha256_update(in->sha, in->buf, head);
    gs_binfile v = zk_view(in, in->buf, head);
    gs_bincur c = {&v, sec->offset, sec->offset + sec->length, 4, in->err};
    uint32_t ncoefs;
    if ((s = gs_bincur_u32(&c, &ncoefs, "nCoefs")) != GS_OK)
        return s;
    if (c.end - c.pos != (uint64_t)ncoefs * 44)
        return gs_bincur_fail(&c, c.pos, GS_ERR_FORMAT,
                              "coefficients section holds %llu bytes, expected nCoefs %u x 44",
                              (unsigned long long)(c.end - c.pos), ncoefs);
    out->n_coefs = ncoefs;
    out->coefs = gs_big_alloc((ncoefs ? ncoefs : 1) * sizeof *out->coefs);
    if (!out->coefs)
        return gs_err_set(in->err, GS_ERR_NOMEM, "zkey", in->path, "%u coefficients", ncoefs);
    gs_big_prefault(out->coefs, (size_t)ncoefs * sizeof *out->coefs, pool);
    return zk_elements(in, pool, 4, (uint64_t)ncoefs * 44, 44, out->coefs, "coefficient");
}

/* After the pass: every section present, counts and coefficient ranges. */
static gs_status parse_finish(const zk_in *in, const gs_pk *out, const gs_zkey_layout *lay,
                              const gs_binsec *secs)
{
    static const uint32_t needed[9] = {1, 2, 3, 5, 6, 7, 8, 9, 4};
    for (int i = 0; i < 9; i++)
        if (!lay->sec_off[needed[i]])
            return gs_binfile_fail(in->path, "zkey", in->err, 12, GS_ERR_FORMAT,
                                   "missing section type %u", needed[i]);
    for (uint32_t t = 3; t <= 9; t++) {
        size_t unit = t == 7 ? 192 : 96;
        if (t != 4 && secs[t].length != expected_count(out, t) * unit)
            return count_mismatch(in, out, &secs[t], unit);
    }
    for (size_t i = 0; i < out->n_coefs; i++) {
        const struct gs_coef *k = &out->coefs[i];
        if (k->matrix > 1 || k->row >= out->domain_size || k->wire >= out->n_vars)
            return gs_binfile_fail(in->path, "zkey", in->err, lay->sec_off[4] + 4 + 44 * i,
                                   GS_ERR_RANGE,
                                   "section 4: coefficient %zu: matrix %u row %u wire %u out of "
                                   "range (matrix 0/1, rows < %u, wires < %u)",
                                   i, k->matrix, k->row, k->wire, out->domain_size, out->n_vars);
    }
    return GS_OK;
}

gs_status gs_io_zkey_parse(gs_pk *out, gs_zkey_layout *lay, uint8_t digest[32],
                           const char *path, int curve, gs_pool *pool, gs_err *err)
{
    memset(out, 0, sizeof *out);   /* h_conv = GS_H_SNARKJS: what every .zkey holds */
    memset(lay, 0, sizeof *lay);
    gs_sha256 sha;
    gs_sha256_init(&sha);
    zk_in in = {.fd = -1, .path = path, .curve = curve, .sha = &sha, .err = err};
    gs_binsec secs[11];
    memset(secs, 0, sizeof secs);
    gs_status s = GS_OK;
    struct stat st;
    in.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (in.fd < 0)
        return gs_err_set(err, GS_ERR_IO, "zkey", path, "cannot open: %s", strerror(errno));
    if (fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        s = gs_err_set(err, GS_ERR_IO, "zkey", path, "not a regular file");
        goto done;
    }
    in.size = lay->size = (uint64_t)st.st_size;
    in.buf_len = in.size < ZK_BUF ? (in.size > ZK_SMALL_MAX ? (size_t)in.size : ZK_SMALL_MAX)
                                  : ZK_BUF;
    in.buf = gs_big_alloc(in.buf_len);
    if (!in.buf) {
        s = gs_err_set(err, GS_ERR_NOMEM, "zkey", path, "read buffer");
        goto done;
    }
    uint32_t version, n_sec;
    if (in.size < 12) {
        s = gs_binfile_check_header(path, "zkey", 1, NULL, in.size, &version, &n_sec, err);
        goto done;
    }
    if ((s = zk_read(&in, 12)) != GS_OK)
        goto done;
    gs_sha256_update(&sha, in.buf, 12);
    if ((s = gs_binfile_check_header(path, "zkey", 1, in.buf, in.size, &version, &n_sec, err)) !=
        GS_OK)
        goto done;
    int have_header = 0;
    for (uint32_t i = 0; i < n_sec; i++) {
        uint64_t at = in.pos;
        gs_binsec sec;
        if (in.size - at >= 12) {
            if ((s = zk_read(&in, 12)) != GS_OK)
                goto done;
            gs_sha256_update(&sha, in.buf, 12);
        }
        if ((s = gs_binfile_check_section(path, "zkey", in.size - at < 12 ? NULL : in.buf, at,
                                          in.size, i, n_sec, &sec, err)) != GS_OK)
            goto done;
        uint32_t t = sec.type;
        if (t >= 1 && t <= 10) {
            if (lay->sec_off[t]) {
                s = gs_binfile_fail(path, "zkey", err, at, GS_ERR_FORMAT,
                                    "section type %u occurs twice", t);
                goto done;
            }
            lay->sec_off[t] = sec.offset;
            secs[t] = sec;
        }
        if (t == 1 || t == 2) {
            if (sec.length > ZK_SMALL_MAX) {
                s = gs_binfile_fail(path, "zkey", err, sec.offset, GS_ERR_FORMAT,
                                    "section %u: %llu bytes, more than a %s section can hold", t,
                                    (unsigned long long)sec.length, t == 1 ? "protocol" : "header");
                goto done;
            }
            if ((s = zk_read(&in, (size_t)sec.length)) != GS_OK)
                goto done;
            gs_sha256_update(&sha, in.buf, (size_t)sec.length);
            gs_binfile v = zk_view(&in, in.buf, (size_t)sec.length);
            s = t == 1 ? parse_protocol(&v, &sec, err) : parse_header(out, lay, &v, &sec, err);
            if (s != GS_OK)
                goto done;
            have_header |= t == 2;
        } else if (t == 3 || (t >= 5 && t <= 9)) {
            if ((s = read_points(&in, out, have_header, &sec, pool)) != GS_OK)
                goto done;
        } else if (t == 4) {
            if ((s = read_coefs(&in, out, &sec, pool)) != GS_OK)
                goto done;
        } else if ((s = zk_skip(&in, sec.length)) != GS_OK) {
            goto done;
        }
    }
    if (in.pos != in.size) {
        s = gs_binfile_fail(path, "zkey", err, in.pos, GS_ERR_FORMAT,
                            "%llu trailing bytes after the last section",
                            (unsigned long long)(in.size - in.pos));
        goto done;
    }
    if ((s = parse_finish(&in, out, lay, secs)) != GS_OK)
        goto done;
    gs_sha256_final(digest, &sha);
done:
    if (in.fd >= 0)
        close(in.fd);
    free(in.buf);
    if (s != GS_OK)
        gs_pk_free(out);
    return s;
}

/* gs_io_zkey_check_curve: one array's points in slices on the pool. */
typedef struct {
    const void *pts;
    size_t n;
    int g2;
    _Atomic size_t bad;      /* lowest point off the curve, or n */
} curve_job;

static void curve_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    curve_job *j = vctx;
    for (size_t i = begin; i < end; i++) {
        int ok;
        if (j->g2) {
            const gs_g2_affine *p = &((const gs_g2_affine *)j->pts)[i];
            ok = p->inf || gs_g2_affine_is_on_curve(p);
        } else {
            const gs_g1_affine *p = &((const gs_g1_affine *)j->pts)[i];
            ok = p->inf || gs_g1_affine_is_on_curve(p);
        }
        if (!ok) {
            gs_atomic_min_size(&j->bad, i);
            return;
        }
    }
}

gs_status gs_io_zkey_check_curve(const gs_pk *pk, const gs_zkey_layout *lay, const char *path,
                                 gs_pool *pool, gs_err *err)
{
    uint32_t order[6];
    memcpy(order, gs_io_zkey_point_types, sizeof order);
    /* File order: the first point off the curve in the file is named. */
    for (int i = 1; i < 6; i++)
        for (int k = i; k > 0 && lay->sec_off[order[k]] < lay->sec_off[order[k - 1]]; k--) {
            uint32_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (int i = 0; i < 6; i++) {
        uint32_t t = order[i];
        curve_job j = {.g2 = t == 7};
        j.n = gs_io_zkey_points(pk, t, &j.pts);
        atomic_init(&j.bad, j.n);
        gs_pool_for(pool, j.n, ZK_SLICE, curve_chunk, &j);
        size_t bad = atomic_load(&j.bad);
        if (bad < j.n)
            return gs_io_curve_fail(path, "zkey", err,
                                    lay->sec_off[t] + (uint64_t)bad * (j.g2 ? 192 : 96), t,
                                    gs_io_zkey_section_name(t), j.g2);
    }
    return GS_OK;
}
