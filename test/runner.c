/* The test runner behind test/test.h; see there for options. */
#define _GNU_SOURCE
#include "test.h"
#include "../common/hash.h"
#include "../common/outfile.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TESTS 4096
#define MAX_ONLY 64

typedef struct {
    const char *name, *file;
    gs_test_fn fn;
} test_entry;

static test_entry tests[MAX_TESTS];
static int n_tests;
static uint64_t run_seed;
static int quick, verbose;
static int cur_failures, cur_skipped;
static const char *cur_name;
static gs_rng cur_rng;
static char cur_tmp[512];

void gs_test_register(const char *name, const char *file, gs_test_fn fn)
{
    if (n_tests >= MAX_TESTS) {
        fprintf(stderr, "too many tests\n");
        exit(2);
    }
    tests[n_tests++] = (test_entry){name, file, fn};
}

void gs_test_fail(const char *file, int line, const char *fmt, ...)
{
    if (cur_failures < 20) {
        va_list ap;
        fprintf(stdout, "  FAIL %s:%d: ", file, line);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
    } else if (cur_failures == 20) {
        fprintf(stdout, "  (further failures of %s not shown)\n", cur_name);
    }
    cur_failures++;
}

void gs_test_skip(const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "  skipped: ");
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    cur_skipped = 1;
}

gs_rng *gs_test_rng(void) { return &cur_rng; }
uint64_t gs_test_seed(void) { return run_seed; }
int gs_test_quick(void) { return quick; }
int gs_test_verbose(void) { return verbose; }
int gs_test_failures(void) { return cur_failures; }

int gs_test_run(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *gs_test_bin(void)
{
    const char *b = getenv("GS_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

int gs_test_sh(char *out, size_t len, const char *cmd)
{
    size_t n = strlen(cmd) + sizeof " 2>&1";
    char *full = malloc(n);
    if (!full)
        return -1;
    snprintf(full, n, "%s 2>&1", cmd);
    int rc = gs_test_run(full, out, len);
    free(full);
    return rc;
}

int gs_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

int gs_test_copy_edit(const char *src, const char *dst, const char *find, const char *repl)
{
    char *buf = NULL;
    size_t len;
    gs_err err;
    if (gs_read_file(&buf, &len, src, &err) != GS_OK)
        return 0;
    char *k = strstr(buf, find);
    FILE *out = k ? fopen(dst, "w") : NULL;
    int ok = out && fwrite(buf, 1, (size_t)(k - buf), out) == (size_t)(k - buf) && fputs(repl, out) >= 0 &&
             fputs(k + strlen(find), out) >= 0;
    if (out && fclose(out) != 0)
        ok = 0;
    free(buf);
    return ok;
}

const char *gs_test_snarkjs(void)
{
    static char path[1024];
    const char *root = getenv("GS_ROOT");
    snprintf(path, sizeof path, "%s/node_modules/.bin/snarkjs", root && *root ? root : ".");
    return access(path, X_OK) == 0 ? path : NULL;
}

int gs_test_exists(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

const char *gs_test_tmpdir(void)
{
    if (!cur_tmp[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(cur_tmp, sizeof cur_tmp, "%s/gs_test_%s_XXXXXX",
                 base && *base ? base : "/tmp", cur_name);
        if (!mkdtemp(cur_tmp)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return cur_tmp;
}

static int cmp_entry(const void *a, const void *b)
{
    const test_entry *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    const char *only[MAX_ONLY], *skip[MAX_ONLY];
    int n_only = 0, n_skip = 0, list = 0, have_seed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            run_seed = strtoull(argv[++i], NULL, 0);
            have_seed = 1;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc && n_only < MAX_ONLY) {
            only[n_only++] = argv[++i];
        } else if (!strcmp(argv[i], "--skip") && i + 1 < argc && n_skip < MAX_ONLY) {
            skip[n_skip++] = argv[++i];
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "-v")) {
            verbose = 1;
        } else if (argv[i][0] != '-' && n_only < MAX_ONLY) {
            only[n_only++] = argv[i];
        } else {
            fprintf(stderr,
                    "usage: %s [--seed N] [--only SUBSTR]... [--skip SUBSTR]... [--list] [--quick] [-v] [SUBSTR]...\n",
                    argv[0]);
            return 2;
        }
    }
    if (!have_seed) {
        const char *env = getenv("GS_TEST_SEED");
        run_seed = env ? strtoull(env, NULL, 0)
                       : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    }
    if (getenv("GS_TEST_QUICK"))
        quick = 1;
    qsort(tests, (size_t)n_tests, sizeof tests[0], cmp_entry);
    if (!list)
        printf("gapscope tests: seed %llu (rerun with --seed %llu)\n",
               (unsigned long long)run_seed, (unsigned long long)run_seed);
    int passed = 0, failed = 0, skipped = 0;
    for (int t = 0; t < n_tests; t++) {
        if (n_only) {
            int hit = 0;
            for (int k = 0; k < n_only; k++)
                hit |= strstr(tests[t].name, only[k]) != NULL;
            if (!hit)
                continue;
        }
        int skipped_by_name = 0;
        for (int k = 0; k < n_skip; k++)
            skipped_by_name |= strstr(tests[t].name, skip[k]) != NULL;
        if (skipped_by_name)
            continue;
        if (list) {
            printf("%s\t%s\n", tests[t].name, tests[t].file);
            continue;
        }
        cur_name = tests[t].name;
        cur_failures = cur_skipped = 0;
        cur_tmp[0] = '\0';
        gs_rng_seed(&cur_rng, run_seed ^ gs_fnv1a(cur_name));
        printf("[ RUN  ] %s\n", cur_name);
        fflush(stdout);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tests[t].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (cur_failures) {
            printf("[ FAIL ] %s (%.0f ms, %d failures)\n", cur_name, ms, cur_failures);
            failed++;
        } else if (cur_skipped) {
            printf("[ SKIP ] %s\n", cur_name);
            skipped++;
        } else {
            printf("[  OK  ] %s (%.0f ms)\n", cur_name, ms);
            passed++;
            if (cur_tmp[0]) {
                char cmd[600];
                snprintf(cmd, sizeof cmd, "rm -rf '%s'", cur_tmp);
                if (system(cmd) != 0)
                    fprintf(stderr, "could not remove %s\n", cur_tmp);
            }
        }
        fflush(stdout);
    }
    if (list)
        return 0;
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
