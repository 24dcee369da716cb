/* Gate limits at the edges of what they hold (found by fuzz_gate, issue 35). */
#include <string.h>

#include "../test/test.h"
#include "gate.h"

GS_TEST(diag_gate_limits_counts_in_range)
{
    gs_gate_limits l;
    gs_gate_limits_init(&l);
    gs_err err;
    /* 9223372036854775807 and 1e308 were converted to long (UBSan: outside
     * the range of representable values). */
    static const char *const bad[] = {"9223372036854775807", "1e308", "2147483648", "-1", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_err_clear(&err);
        GS_CHECK_MSG(gs_gate_limits_set(&l, NULL, "max_failed_jobs", bad[i], "t.ini:3", &err) ==
                         GS_ERR_ARG,
                     "%s accepted", bad[i]);
        GS_CHECK(strstr(err.msg, "t.ini:3") && strstr(err.msg, "0..2147483647"));
    }
    gs_err_clear(&err);
    GS_REQUIRE(gs_gate_limits_set(&l, NULL, "max_failed_jobs", "2147483647", "t.ini:3", &err) ==
               GS_OK);
    GS_CHECK(l.max_failed_jobs == 2147483647L);
}
