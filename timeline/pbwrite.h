/*
 * A protobuf wire-format writer (the encoding of
 * protobuf.dev/programming-guides/encoding: varints, zigzag, fixed64,
 * length-delimited fields), just what timeline.perfetto-trace needs.
 *
 * One message is built at a time in a growable byte buffer; nested
 * messages are opened with gs_pb_begin and closed with gs_pb_end, which
 * writes their length in front of them (minimal varint, the bytes moved
 * when the length needs more than one byte).  Nesting is limited to
 * GS_PB_DEPTH levels.  The caller then writes buf[0..len) out and resets.
 *
 * Errors: an allocation failure sets `oom` and makes every later call a
 * no-op (the writer checks it once per message).  No other failure.
 * Ownership: gs_pb_init/gs_pb_deinit on caller storage.  Not thread safe.
 */
#ifndef GS_PBWRITE_H
#define GS_PBWRITE_H

#include <stddef.h>
#include <stdint.h>

#define GS_PB_DEPTH 8

/* Wire types. */
#define GS_PB_VARINT 0
#define GS_PB_I64    1
#define GS_PB_LEN    2

typedef struct gs_pb {
    uint8_t *buf;
    size_t len, cap;
    size_t open[GS_PB_DEPTH];   /* offsets of the open messages' payloads */
    int depth;
    int oom;
} gs_pb;

void gs_pb_init(gs_pb *pb);
void gs_pb_deinit(gs_pb *pb);
/* Empties the buffer (keeps its memory); the depth must be 0. */
void gs_pb_reset(gs_pb *pb);

/* The slow path of the inline writers below (grows the buffer). */
void gs_pb_varint_slow(gs_pb *pb, uint64_t v);

static inline void gs_pb_varint(gs_pb *pb, uint64_t v)
{
    if (pb->cap - pb->len < 10) {
        gs_pb_varint_slow(pb, v);
        return;
    }
    uint8_t *p = pb->buf + pb->len;
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    pb->len = (size_t)(p - pb->buf);
}

/* Field key: (field << 3) | wire type. */
static inline void gs_pb_tag(gs_pb *pb, uint32_t field, int wire)
{
    gs_pb_varint(pb, ((uint64_t)field << 3) | (uint64_t)wire);
}

/* Fields: uint64/uint32/enum/bool (varint), int64/int32 (varint of the
 * two's complement, as protobuf's int64), fixed64, double, string/bytes. */
static inline void gs_pb_u64(gs_pb *pb, uint32_t field, uint64_t v)
{
    gs_pb_tag(pb, field, GS_PB_VARINT);
    gs_pb_varint(pb, v);
}

static inline void gs_pb_i64(gs_pb *pb, uint32_t field, int64_t v)
{
    gs_pb_u64(pb, field, (uint64_t)v);
}

void gs_pb_fixed64(gs_pb *pb, uint32_t field, uint64_t v);
void gs_pb_double(gs_pb *pb, uint32_t field, double v);
void gs_pb_bytes(gs_pb *pb, uint32_t field, const void *data, size_t n);
void gs_pb_str(gs_pb *pb, uint32_t field, const char *s);
/* Opens a nested message in `field`; gs_pb_end closes the innermost one. */
void gs_pb_begin(gs_pb *pb, uint32_t field);
void gs_pb_end(gs_pb *pb);

/* Bytes a varint of v takes (1..10). */
size_t gs_pb_varint_size(uint64_t v);

#endif
