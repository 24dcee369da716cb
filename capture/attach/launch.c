/*
 * Launching a program under attach: fork, set the injection environment,
 * exec; sample its threads while it runs; reap it.
 *
 * Environment given to the program (each library variable only when its
 * part is on): LD_PRELOAD (the library first, the program's own entries
 * kept after it), CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH (both the
 * same library), GS_ATTACH_DIR (absolute raw directory), GS_ATTACH_FLUSH_MS.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP reaching gapscope are forwarded to
 * the program after a flush request (the generation word in
 * attach-raw/ctl, which the library's flusher thread polls every 20 ms)
 * and a wait of at most 300 ms for the flushes to land; a second signal is
 * forwarded at once.  A terminal's Ctrl-C reaches both processes directly
 * (same process group); the program then flushes through its own exit
 * path if it exits normally (Python's KeyboardInterrupt does).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/paths.h"
#include "attach.h"

void gs_attach_opts_defaults(gs_attach_opts *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "runs/attach";
    o->sample_hz = 1000;
    o->flush_ms = 500;
}

static int exists(const char *p)
{
    return access(p, R_OK) == 0;
}

int gs_attach_find_lib(char *buf, size_t n)
{
    const char *env = getenv("GS_ATTACH_LIB");
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return exists(buf);
    }
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return 0;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    static const char *const rel[] = {"lib/libgsattach.so", "../lib/libgsattach.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(buf, n, "%s/%s", exe, rel[i]);
        if (exists(buf))
            return 1;
    }
    return 0;
}

/* Empties a raw directory of an earlier capture (only our own files). */
static void clear_raw(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if ((l > 4 && !strcmp(e->d_name + l - 4, ".rec")) || !strcmp(e->d_name, "ctl")) {
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
}

static volatile sig_atomic_t g_sig, g_nsig;

static void on_signal(int sig)
{
    g_sig = sig;
    g_nsig++;
}

gs_status gs_attach_exec(gs_attach_result *res, char *const argv[], const gs_attach_opts *o,
                         gs_err *err)
{
    memset(res, 0, sizeof *res);
    if (!argv || !argv[0])
        return GS_ERR(err, GS_ERR_ARG, "attach", "no program to run");
    char lib[PATH_MAX], abs_lib[PATH_MAX], raw[PATH_MAX], abs_raw[PATH_MAX], ctl[PATH_MAX + 8];
    if (o->lib) {
        snprintf(lib, sizeof lib, "%s", o->lib);
        if (!exists(lib))
            return gs_err_set(err, GS_ERR_IO, "attach", lib, "cannot read the library");
    } else if (!gs_attach_find_lib(lib, sizeof lib)) {
        return GS_ERR(err, GS_ERR_IO, "attach",
                      "libgsattach.so not found next to the binary (lib/) or in GS_ATTACH_LIB; "
                      "build it with make");
    }
    if (!realpath(lib, abs_lib))
        return gs_err_set(err, GS_ERR_IO, "attach", lib, "%s", strerror(errno));
    snprintf(raw, sizeof raw, "%s/attach-raw", o->out_dir);
    if (gs_mkdir_p_mode(raw, 0755) != 0 || !realpath(raw, abs_raw))
        return gs_err_set(err, GS_ERR_IO, "attach", raw, "cannot create: %s", strerror(errno));
    clear_raw(abs_raw);
    snprintf(ctl, sizeof ctl, "%s/ctl", abs_raw);
    int cfd = open(ctl, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    volatile uint64_t *gen = NULL;
    if (cfd >= 0) {
        if (ftruncate(cfd, 4096) == 0) {
            void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
            if (p != MAP_FAILED)
                gen = p;
        }
        close(cfd);
    }

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return GS_ERR(err, GS_ERR_IO, "attach", "pipe: %s", strerror(errno));
    fflush(NULL);
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    g_sig = 0;
    g_nsig = 0;
    gs_clock_anchor_read(&res->anchor);
    res->start_ns = gs_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return GS_ERR(err, GS_ERR_IO, "attach", "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(pfd[0]);
        char num[32];
        setenv("GS_ATTACH_DIR", abs_raw, 1);
        snprintf(num, sizeof num, "%u", o->flush_ms);
        setenv("GS_ATTACH_FLUSH_MS", num, 1);
        if (!o->no_cupti)
            setenv("CUDA_INJECTION64_PATH", abs_lib, 1);
        if (!o->no_nvtx)
            setenv("NVTX_INJECTION64_PATH", abs_lib, 1);
        if (!o->no_preload) {
            const char *pre = getenv("LD_PRELOAD");
            char *v = malloc(strlen(abs_lib) + (pre ? strlen(pre) : 0) + 2);
            if (v) {
                sprintf(v, pre && *pre ? "%s:%s" : "%s", abs_lib, pre);
                setenv("LD_PRELOAD", v, 1);
            }
        }
        execvp(argv[0], argv);
        int e = errno;
        if (write(pfd[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(pfd[1]);
    int child_errno = 0;
    ssize_t got;
    while ((got = read(pfd[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    if (got == (ssize_t)sizeof child_errno) {
        waitpid(pid, NULL, 0);
        if (gen)
            munmap((void *)gen, 4096);
        return GS_ERR(err, GS_ERR_IO, "attach", "cannot run %s: %s", argv[0], strerror(child_errno));
    }
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);

    gs_sampler *smp = NULL;
    gs_err serr;
    gs_err_clear(&serr);
    if (o->sample_hz > 0 && gs_sampler_start(&smp, pid, abs_raw, o->sample_hz, &serr) != GS_OK &&
        !o->quiet)
        fprintf(stderr, "gapscope attach: sampler off: %s\n", serr.msg);

    int status = 0, forwarded = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (g_nsig > forwarded) {
            int sig = g_sig;
            if (!forwarded && gen) {
                /* Ask the library to flush, give it up to 300 ms. */
                __atomic_add_fetch(gen, 1, __ATOMIC_SEQ_CST);
                for (int k = 0; k < 30; k++) {
                    struct timespec ts = {0, 10000000};
                    nanosleep(&ts, NULL);
                    if (waitpid(pid, &status, WNOHANG) == pid)
                        goto reaped;
                }
            }
            kill(pid, sig);
            forwarded = (int)g_nsig;
        }
    }
reaped:
    res->end_ns = gs_now_ns();
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    if (WIFSIGNALED(status)) {
        res->signaled = WTERMSIG(status);
        res->exit_code = 128 + WTERMSIG(status);
    } else {
        res->exit_code = WEXITSTATUS(status);
    }
    gs_status st = GS_OK;
    if (smp)
        st = gs_sampler_stop(smp, &res->sampler_rounds, &res->sampler_cpu_ns, err);
    if (gen)
        munmap((void *)gen, 4096);
    return st;
}
