// simdjson's parse throughput on one Chrome/Kineto trace, beside
// bench/cpu/json_parsers.c (issue 32).  Not part of the build.
//
//   apt-get install libsimdjson-dev
//   g++ -O2 -march=native -o /tmp/json_simdjson bench/cpu/json_simdjson.cc -lsimdjson
//   /tmp/json_simdjson kineto-300k.json
//
// Modes: DOM of the whole document (the whole file padded in memory), and
// On-Demand walking every event's ph/name/ts (lazy, but the document must
// still be in memory whole: simdjson has no streaming of one large
// document, only of many concatenated ones, iterate_many).  CPU seconds of
// the parse only, best of three.
#include <simdjson.h>

#include <cstdio>
#include <ctime>

static double cpu_s()
{
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: json_simdjson TRACE.json\n");
        return 2;
    }
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json))
        return 3;
    for (int m = 0; m < 2; m++) {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            double a = cpu_s();
            size_t n = 0;
            if (m == 0) {
                simdjson::dom::parser p;
                simdjson::dom::element doc;
                if (p.parse(json).get(doc))
                    return 4;
                n = 1;
            } else {
                simdjson::ondemand::parser p;
                auto doc = p.iterate(json);
                for (auto ev : doc["traceEvents"].get_array()) {
                    std::string_view ph;
                    if (!ev["ph"].get_string().get(ph))
                        n++;
                }
            }
            double t = cpu_s() - a;
            if (n && t < best)
                best = t;
        }
        std::printf("%-28s %6.3f s  %6.1f MB/s\n",
                    m == 0 ? "simdjson (DOM, whole file)" : "simdjson (On-Demand, whole)",
                    best, double(json.size()) / 1e6 / best);
    }
    return 0;
}
