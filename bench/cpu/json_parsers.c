/*
 * Which JSON parser for a streaming trace import (issue 32): the parse
 * throughput of Debian's C JSON libraries and gapscope's own reader on one
 * Chrome/Kineto trace, and whether each can stream (bounded memory).
 * Not part of the build (it needs libjansson-dev, libcjson-dev and
 * libyajl-dev); simdjson, C++, is bench/cpu/json_simdjson.cc.
 *
 *   apt-get install libjansson-dev libcjson-dev libyajl-dev
 *   make -j2 CUDA=0 BUILD=build-cpu build-cpu/lib/common.a
 *   cc -O2 -march=native -I. -o /tmp/json_parsers bench/cpu/json_parsers.c \
 *      build-cpu/lib/common.a -ljansson -lcjson -lyajl
 *   /tmp/json_parsers kineto-300k.json
 *
 * Modes: jansson and cJSON build a DOM of the whole file (they have no
 * streaming API: memory grows with the file); yajl is a SAX parser fed
 * 8 MiB chunks (it streams: callbacks per token, the caller assembles);
 * gs_json whole-file DOM, and gs_json one event at a time into an arena
 * (the importer's way: the events are cut with a bracket scan first).
 * Each mode reads the file into memory first (not timed); CPU seconds of
 * the parse only, best of three.
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_parse.h>

#include "common/json.h"
#include "bench_time.h"

static long tokens;
static int y_null(void *c) { (void)c; tokens++; return 1; }
static int y_bool(void *c, int b) { (void)c, (void)b; tokens++; return 1; }
static int y_num(void *c, const char *s, size_t n) { (void)c, (void)s, (void)n; tokens++; return 1; }
static int y_str(void *c, const unsigned char *s, size_t n) { (void)c, (void)s, (void)n; tokens++; return 1; }
static int y_map(void *c) { (void)c; tokens++; return 1; }

static const yajl_callbacks ycb = {y_null, y_bool, NULL, NULL, y_num, y_str, y_map, y_str,
                                   y_map, y_map, y_map};

/* Cuts the events of traceEvents with a string-aware bracket scan and
 * parses each into an arena (reset per event). */
static long gs_events(const char *buf, size_t len)
{
    const char *p = strstr(buf, "\"traceEvents\"");
    if (!p || !(p = strchr(p, '[')))
        return -1;
    p++;
    gs_arena a;
    gs_arena_init(&a);
    long n = 0;
    const char *end = buf + len;
    while (p < end) {
        while (p < end && *p != '{' && *p != ']')
            p++;
        if (p >= end || *p == ']')
            break;
        const char *st = p;
        int depth = 0;
        for (; p < end; p++) {
            if (*p == '"') {
                for (p++; p < end && *p != '"'; p++)
                    if (*p == '\\')
                        p++;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if ((*p == '}' || *p == ']') && --depth == 0) {
                p++;
                break;
            }
        }
        gs_json *ev;
        gs_err err;
        gs_arena_reset(&a);
        if (gs_json_parse_in(&a, &ev, st, (size_t)(p - st), "t", &err) == GS_OK)
            n++;
    }
    gs_arena_free(&a);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: json_parsers TRACE.json\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(len + 1);
    if (!buf || fread(buf, 1, len, f) != len)
        return 3;
    buf[len] = '\0';
    fclose(f);
    const char *names[] = {"jansson (DOM, whole file)", "cJSON (DOM, whole file)",
                           "yajl (SAX, 8 MiB chunks)", "gs_json (DOM, whole file)",
                           "gs_json (per event, arena)"};
    for (int m = 0; m < 5; m++) {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double a = cpu_s();
            int ok = 1;
            if (m == 0) {
                json_error_t e;
                json_t *j = json_loadb(buf, len, 0, &e);
                ok = j != NULL;
                json_decref(j);
            } else if (m == 1) {
                cJSON *j = cJSON_ParseWithLength(buf, len);
                ok = j != NULL;
                cJSON_Delete(j);
            } else if (m == 2) {
                yajl_handle h = yajl_alloc(&ycb, NULL, NULL);
                for (size_t o = 0; o < len && ok; o += (size_t)8 << 20) {
                    size_t n = len - o < ((size_t)8 << 20) ? len - o : (size_t)8 << 20;
                    ok = yajl_parse(h, (const unsigned char *)buf + o, n) == yajl_status_ok;
                }
                ok = ok && yajl_complete_parse(h) == yajl_status_ok;
                yajl_free(h);
            } else if (m == 3) {
                gs_json *j;
                gs_err e;
                ok = gs_json_parse(&j, buf, len, "t", &e) == GS_OK;
                if (ok)
                    gs_json_free(j);
            } else {
                ok = gs_events(buf, len) > 0;
            }
            double t = cpu_s() - a;
            if (!ok) {
                printf("%-28s failed\n", names[m]);
                break;
            }
            best = t < best ? t : best;
        }
        printf("%-28s %6.3f s  %6.1f MB/s\n", names[m], best, (double)len / 1e6 / best);
    }
    free(buf);
    return 0;
}
