// Adapter from the C registration API in gsbench.h to Google Benchmark.
#include "gsbench.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

struct gs_bench_state {
    benchmark::State *st;
};

struct gs_bench_reg {
    std::vector<int64_t> args;
    struct Range { int64_t lo, hi; int mult; };
    std::vector<Range> ranges;
    benchmark::TimeUnit unit = benchmark::kNanosecond;
    bool real_time = false;
    int64_t iterations = 0;
    double min_time = 0;
};

namespace {
struct Entry {
    std::string name;
    gs_bench_fn fn;
    gs_bench_setup_fn setup;
};
std::vector<Entry> &registry()
{
    static std::vector<Entry> r;
    return r;
}
}  // namespace

extern "C" {

int gs_bench_keep_running(gs_bench_state *s) { return s->st->KeepRunning() ? 1 : 0; }
int64_t gs_bench_arg(gs_bench_state *s, int i) { return s->st->range(i); }
int64_t gs_bench_iterations(gs_bench_state *s) { return (int64_t)s->st->iterations(); }
void gs_bench_pause_timing(gs_bench_state *s) { s->st->PauseTiming(); }
void gs_bench_resume_timing(gs_bench_state *s) { s->st->ResumeTiming(); }
void gs_bench_set_items_processed(gs_bench_state *s, int64_t n) { s->st->SetItemsProcessed(n); }
void gs_bench_set_bytes_processed(gs_bench_state *s, int64_t n) { s->st->SetBytesProcessed(n); }
void gs_bench_counter(gs_bench_state *s, const char *name, double v, int is_rate)
{
    s->st->counters[name] = benchmark::Counter(v, is_rate ? benchmark::Counter::kIsRate
                                                          : benchmark::Counter::kDefaults);
}
void gs_bench_set_label(gs_bench_state *s, const char *label) { s->st->SetLabel(label); }
void gs_bench_skip_with_error(gs_bench_state *s, const char *msg) { s->st->SkipWithError(msg); }

void gs_bench_arg_add(gs_bench_reg *r, int64_t a) { r->args.push_back(a); }
void gs_bench_range(gs_bench_reg *r, int64_t lo, int64_t hi, int mult)
{
    r->ranges.push_back({lo, hi, mult < 2 ? 2 : mult});
}
void gs_bench_unit(gs_bench_reg *r, gs_bench_time_unit u)
{
    static const benchmark::TimeUnit map[] = {benchmark::kNanosecond, benchmark::kMicrosecond,
                                              benchmark::kMillisecond, benchmark::kSecond};
    r->unit = map[u];
}
void gs_bench_use_real_time(gs_bench_reg *r) { r->real_time = true; }
void gs_bench_iterations_fixed(gs_bench_reg *r, int64_t n) { r->iterations = n; }
void gs_bench_min_time(gs_bench_reg *r, double s) { r->min_time = s; }

void gs_bench_register(const char *name, gs_bench_fn fn, gs_bench_setup_fn setup)
{
    registry().push_back({name, fn, setup});
}

}  // extern "C"

int main(int argc, char **argv)
{
    for (const Entry &e : registry()) {
        gs_bench_reg reg;
        if (e.setup)
            e.setup(&reg);
        gs_bench_fn fn = e.fn;
        auto *b = benchmark::RegisterBenchmark(e.name.c_str(), [fn](benchmark::State &st) {
            gs_bench_state s{&st};
            fn(&s);
        });
        for (int64_t a : reg.args)
            b->Arg(a);
        for (const auto &rg : reg.ranges) {
            b->RangeMultiplier(rg.mult);
            b->Range(rg.lo, rg.hi);
        }
        b->Unit(reg.unit);
        if (reg.real_time)
            b->UseRealTime();
        if (reg.iterations > 0)
            b->Iterations(reg.iterations);
        if (reg.min_time > 0)
            b->MinTime(reg.min_time);
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
