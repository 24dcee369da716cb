/* The host-speed probe (hostprobe.h). */
#include <math.h>

#include "../test/test.h"
#include "clock.h"
#include "hostprobe.h"

/* Positive and finite for one thread and for more threads than the host
 * has cores, out-of-range counts clamped (0 runs as 1), and one probe
 * takes well under a second (it runs twice per capture). */
GS_TEST(host_probe_measures)
{
    int64_t t0 = gs_now_ns();
    double one = gs_host_probe(1);
    double ms = (double)(gs_now_ns() - t0) * 1e-6;
    GS_CHECK_MSG(one > 0 && isfinite(one), "probe(1) = %g", one);
    GS_CHECK_MSG(ms < 2000, "probe(1) took %.0f ms", ms);
    double zero = gs_host_probe(0);
    GS_CHECK_MSG(zero > 0 && isfinite(zero), "probe(0) = %g", zero);
    double four = gs_host_probe(4);
    GS_CHECK_MSG(four > 0 && isfinite(four), "probe(4) = %g", four);
}
