/*
 * Protobuf wire-format writer (pbwrite.h).  Varints are little-endian base
 * 128 with the high bit as continuation; a nested message is written with
 * a one-byte length placeholder, and gs_pb_end moves the payload when the
 * real length needs more bytes (messages here are short: the move is rare).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "pbwrite.h"

void gs_pb_init(gs_pb *pb)
{
    memset(pb, 0, sizeof *pb);
}

void gs_pb_deinit(gs_pb *pb)
{
    free(pb->buf);
    memset(pb, 0, sizeof *pb);
}

void gs_pb_reset(gs_pb *pb)
{
    pb->len = 0;
    pb->depth = 0;
}

/* Room for n more bytes; 0 (and oom set) when memory ran out. */
static int room(gs_pb *pb, size_t n)
{
    if (pb->oom)
        return 0;
    if (!gs_grow_to(&pb->buf, &pb->cap, pb->len + n, 1, 256)) {
        pb->oom = 1;
        return 0;
    }
    return 1;
}

size_t gs_pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

void gs_pb_varint_slow(gs_pb *pb, uint64_t v)
{
    if (room(pb, 10))
        pb->len += put_varint(pb->buf + pb->len, v);
}

void gs_pb_fixed64(gs_pb *pb, uint32_t field, uint64_t v)
{
    gs_pb_tag(pb, field, GS_PB_I64);
    if (!room(pb, 8))
        return;
    for (int i = 0; i < 8; i++)
        pb->buf[pb->len++] = (uint8_t)(v >> (8 * i));
}

void gs_pb_double(gs_pb *pb, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    gs_pb_fixed64(pb, field, bits);
}

void gs_pb_bytes(gs_pb *pb, uint32_t field, const void *data, size_t n)
{
    gs_pb_tag(pb, field, GS_PB_LEN);
    gs_pb_varint(pb, n);
    if (n && room(pb, n)) {
        memcpy(pb->buf + pb->len, data, n);
        pb->len += n;
    }
}

void gs_pb_str(gs_pb *pb, uint32_t field, const char *s)
{
    gs_pb_bytes(pb, field, s, strlen(s));
}

void gs_pb_begin(gs_pb *pb, uint32_t field)
{
    gs_pb_tag(pb, field, GS_PB_LEN);
    if (pb->depth >= GS_PB_DEPTH) {
        pb->oom = 1;   /* a programming error: treated as a failed write */
        return;
    }
    if (!room(pb, 1))
        return;
    pb->buf[pb->len++] = 0;
    pb->open[pb->depth++] = pb->len;
}

void gs_pb_end(gs_pb *pb)
{
    if (pb->oom || pb->depth <= 0)
        return;
    size_t at = pb->open[--pb->depth];
    size_t n = pb->len - at, need = gs_pb_varint_size(n);
    if (need > 1) {
        if (!room(pb, need - 1))
            return;
        memmove(pb->buf + at + need - 1, pb->buf + at, n);
        pb->len += need - 1;
    }
    put_varint(pb->buf + at - 1, n);
}
