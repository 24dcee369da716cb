/*
 * gapscope's table-driven test runner (one runner for every layer).
 *
 *   GS_TEST(field_fp_mul_vs_gmp) { ... GS_CHECK(cond); ... }
 *
 * Tests register themselves (a constructor appends to the table), so a test
 * file only needs to be linked in.  Each test gets a seeded gs_rng through
 * gs_test_rng(); the runner prints the seed, and `--seed N` reproduces a run.
 *
 * Runner options: --seed N, --only SUBSTR (repeatable), --skip SUBSTR
 * (repeatable), --list, --quick
 * (tests read gs_test_quick() to shrink iteration counts), -v.
 * The runner ends with the line "N passed, N failed, N skipped".
 */
#ifndef GS_TEST_H
#define GS_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "../common/rng.h"

typedef void (*gs_test_fn)(void);

void gs_test_register(const char *name, const char *file, gs_test_fn fn);
/* Records a failure of the running test (the test goes on). */
void gs_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Marks the running test skipped, with a reason printed as "skipped: reason". */
void gs_test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The running test's generator, seeded from the run seed and the test name. */
gs_rng *gs_test_rng(void);
uint64_t gs_test_seed(void);
int gs_test_quick(void);
int gs_test_verbose(void);
/* Number of failures recorded so far in the running test. */
int gs_test_failures(void);
/* Runs a shell command, captures up to len-1 bytes of its standard output
 * into out (NUL-terminated), returns its exit code (-1 if it did not exit). */
int gs_test_run(const char *cmd, char *out, size_t len);
/* A scratch directory for the running test (created on first use, under
 * $TMPDIR or /tmp; removed when the test passes). */
const char *gs_test_tmpdir(void);
/* The gapscope binary under test ($GS_BIN, which make test sets), or NULL
 * when it is unset or not executable. */
const char *gs_test_bin(void);
/* Like gs_test_run with standard error merged into out ("cmd 2>&1"). */
int gs_test_sh(char *out, size_t len, const char *cmd);
/* Writes text to path (created or truncated); 1 on success, else 0. */
int gs_test_write_text(const char *path, const char *text);
/* Copies the text file src to dst with the first occurrence of
 * find replaced by repl; 1 on success, 0 when find is not in it or a file
 * fails. */
int gs_test_copy_edit(const char *src, const char *dst, const char *find, const char *repl);
/* snarkjs's command line ($GS_ROOT, else the current directory, then
 * node_modules/.bin/snarkjs), or NULL when it is not installed there. */
const char *gs_test_snarkjs(void);
/* 1 when dir/name exists. */
int gs_test_exists(const char *dir, const char *name);

/* Skips the running test, and returns from it, when there is no gapscope
 * binary to run (gs_test_bin() is NULL). */
#define GS_TEST_NEED_BIN()                                              \
    do {                                                                \
        if (!gs_test_bin()) {                                           \
            gs_test_skip("GS_BIN not set (run through make test)");     \
            return;                                                     \
        }                                                               \
    } while (0)

#define GS_TEST(name)                                                   \
    static void gs_test_fn_##name(void);                                \
    __attribute__((constructor)) static void gs_test_reg_##name(void)   \
    {                                                                   \
        gs_test_register(#name, __FILE__, gs_test_fn_##name);           \
    }                                                                   \
    static void gs_test_fn_##name(void)

#define GS_CHECK(cond)                                                  \
    do {                                                                \
        if (!(cond))                                                    \
            gs_test_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
    } while (0)

/* Like GS_CHECK but returns from the test on failure. */
#define GS_REQUIRE(cond)                                                \
    do {                                                                \
        if (!(cond)) {                                                  \
            gs_test_fail(__FILE__, __LINE__, "required: %s", #cond);    \
            return;                                                     \
        }                                                               \
    } while (0)

#define GS_CHECK_MSG(cond, ...)                                         \
    do {                                                                \
        if (!(cond))                                                    \
            gs_test_fail(__FILE__, __LINE__, __VA_ARGS__);              \
    } while (0)

#define GS_CHECK_EQ_INT(a, b)                                           \
    do {                                                                \
        long long gs_a_ = (long long)(a), gs_b_ = (long long)(b);       \
        if (gs_a_ != gs_b_)                                             \
            gs_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld",  \
                         #a, #b, gs_a_, gs_b_);                         \
    } while (0)

/* Check a gs_status is GS_OK; prints the status name. */
#define GS_CHECK_OK(expr)                                               \
    do {                                                                \
        int gs_s_ = (int)(expr);                                        \
        if (gs_s_ != 0)                                                 \
            gs_test_fail(__FILE__, __LINE__, "%s returned status %d",   \
                         #expr, gs_s_);                                 \
    } while (0)

#endif
