/*
 * The Slurm commands a driver runs (sbatch, squeue, sacct) as child
 * processes, and the parsers of what they print.  Called by
 * slurm_array.c; the parsers are tested on their own (test_slurm.c) with
 * the lines real Slurm prints, including the awkward ones: pending array
 * tasks not yet split off ("1234_[5-9%2]"), sacct's "CANCELLED by 0",
 * "1234;cluster" from sbatch on a federation.  Every unexpected line is an
 * error that names the command and the line number.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm.h"

const char *const gs_task_phase_names[GS_TASK_PHASE_COUNT] = {"unsubmitted", "pending", "running", "done", "failed"};

gs_task_phase gs_slurm_phase(const char *state)
{
    static const char *const pending[] = {"PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD",
                                          "SPECIAL_EXIT", NULL};
    static const char *const running[] = {"RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "STOPPED",
                                          "RESIZING", "SIGNALING", "STAGE_OUT", "POWER_UP_NODE", NULL};
    for (int i = 0; pending[i]; i++)
        if (!strcmp(state, pending[i]))
            return GS_TASK_PENDING;
    for (int i = 0; running[i]; i++)
        if (!strcmp(state, running[i]))
            return GS_TASK_RUNNING;
    return !strcmp(state, "COMPLETED") ? GS_TASK_DONE : GS_TASK_FAILED;
}

static gs_status push(gs_slurm_state **out, size_t *n, const gs_slurm_state *s, gs_err *err)
{
    if ((*n & (*n - 1)) == 0) { /* grow at powers of two */
        gs_slurm_state *p = realloc(*out, (*n ? 2 * *n : 16) * sizeof *p);
        if (!p)
            return GS_ERR(err, GS_ERR_NOMEM, "slurm", "out of memory");
        *out = p;
    }
    (*out)[(*n)++] = *s;
    return GS_OK;
}

static int parse_int(const char *p, const char **end, long *v)
{
    if (!isdigit((unsigned char)*p))
        return 0;
    char *e;
    errno = 0;
    *v = strtol(p, &e, 10);
    *end = e;
    return errno == 0 && *v >= 0 && *v <= 10000000;
}

/* "1234_5" or "1234_[0-3,7%2]": the job id into s->job, each task through
 * push.  Returns 0 on a malformed id. */
static int expand_id(const char *id, gs_slurm_state *s, gs_slurm_state **out, size_t *n, gs_status *st,
                     gs_err *err)
{
    const char *us = strchr(id, '_'), *p, *e;
    long v, hi;
    if (!us || us == id || (size_t)(us - id) >= sizeof s->job)
        return 0;
    for (p = id; p < us; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    snprintf(s->job, sizeof s->job, "%.*s", (int)(us - id), id);
    p = us + 1;
    if (*p != '[') {
        if (!parse_int(p, &e, &v) || *e)
            return 0;
        s->task = (int)v;
        return (*st = push(out, n, s, err)) == GS_OK;
    }
    for (p++;;) {
        if (!parse_int(p, &e, &v))
            return 0;
        hi = v;
        if (*e == '-' && (!parse_int(e + 1, &e, &hi) || hi < v || hi - v > 1000000))
            return 0;
        for (long t = v; t <= hi; t++) {
            s->task = (int)t;
            if ((*st = push(out, n, s, err)) != GS_OK)
                return 1;
        }
        if (*e == '%' && !parse_int(e + 1, &e, &v)) /* the array's throttle */
            return 0;
        if (*e == ']')
            return e[1] == '\0';
        if (*e != ',')
            return 0;
        p = e + 1;
    }
}

/* Splits line at '|' into at most max fields (in place). */
static int split(char *line, char **f, int max)
{
    int k = 0;
    f[k++] = line;
    for (char *c = line; *c && k < max; c++)
        if (*c == '|') {
            *c = '\0';
            f[k++] = c + 1;
        }
    return k;
}

static int is_state(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isupper((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* The lines of text, each through fn; fn's 0 is a format error naming the line. */
static gs_status each_line(const char *cmd, const char *expect, const char *text, gs_slurm_state **out, size_t *n,
                           int sacct, gs_err *err)
{
    char *copy = strdup(text ? text : ""), *save = NULL;
    if (!copy)
        return GS_ERR(err, GS_ERR_NOMEM, "slurm", "out of memory");
    gs_status st = GS_OK;
    int lineno = 0;
    for (char *line = strtok_r(copy, "\n", &save); line && st == GS_OK; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        line[strcspn(line, "\r")] = '\0';
        if (!line[strspn(line, " \t")])
            continue;
        char orig[200], *f[5];
        snprintf(orig, sizeof orig, "%s", line);
        int nf = split(line, f, 5);
        gs_slurm_state s;
        memset(&s, 0, sizeof s);
        s.exit_code = s.signal = -1;
        int ok = nf == (sacct ? 4 : 3);
        if (ok) {
            char *sp = strchr(f[1], ' '); /* "CANCELLED by 0" */
            if (sp && sacct)
                *sp = '\0';
            snprintf(s.state, sizeof s.state, "%s", f[1]);
            snprintf(s.nodes, sizeof s.nodes, "%s", f[sacct ? 3 : 2]);
            ok = is_state(s.state);
        }
        if (ok && sacct) {
            const char *e;
            long a = -1, b = -1;
            ok = parse_int(f[2], &e, &a) && *e == ':' && parse_int(e + 1, &e, &b) && !*e;
            s.exit_code = (int)a;
            s.signal = (int)b;
            if (!strcmp(s.nodes, "None assigned"))
                s.nodes[0] = '\0';
        }
        if (ok)
            ok = expand_id(f[0], &s, out, n, &st, err);
        if (!ok && st == GS_OK) {
            char where[64];
            snprintf(where, sizeof where, "%s output:%d", cmd, lineno);
            st = gs_err_set(err, GS_ERR_FORMAT, cmd, where, "expected %s, got '%s'", expect, orig);
        }
    }
    free(copy);
    return st;
}

gs_status gs_slurm_parse_squeue(gs_slurm_state **out, size_t *n, const char *text, gs_err *err)
{
    return each_line("squeue", "JOBID_TASK|STATE|NODES", text, out, n, 0, err);
}

gs_status gs_slurm_parse_sacct(gs_slurm_state **out, size_t *n, const char *text, gs_err *err)
{
    return each_line("sacct", "JOBID_TASK|STATE|EXIT:SIGNAL|NODES", text, out, n, 1, err);
}

gs_status gs_slurm_parse_sbatch(char *job, size_t cap, const char *text, gs_err *err)
{
    const char *p = text ? text : "";
    size_t len = strcspn(p, ";\n");
    size_t digits = strspn(p, "0123456789");
    if (!len || digits != len || len >= cap || (p[len] && p[len] != ';' && p[len] != '\n')) {
        char first[120];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(p, "\n"), p);
        return gs_err_set(err, GS_ERR_FORMAT, "sbatch", "sbatch --parsable output:1",
                          "expected JOBID or JOBID;CLUSTER, got '%s'", first);
    }
    snprintf(job, cap, "%.*s", (int)len, p);
    return GS_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

gs_status gs_slurm_exec(char **out, char *errbuf, size_t errcap, int *rc, const char *const *argv,
                        double timeout_s, gs_err *err)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    size_t len = 0, cap = 4096, elen = 0;
    char *buf = malloc(cap);
    *out = NULL;
    *rc = 127;
    if (errcap)
        errbuf[0] = '\0';
    if (!buf)
        return GS_ERR(err, GS_ERR_NOMEM, argv[0], "out of memory");
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        free(buf);
        if (po[0] >= 0)
            close(po[0]), close(po[1]);
        return GS_ERR(err, GS_ERR_IO, argv[0], "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        execvp(argv[0], (char *const *)argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    gs_status st = GS_OK;
    if (pid < 0) {
        st = GS_ERR(err, GS_ERR_IO, argv[0], "fork: %s", strerror(errno));
        goto fail;
    }
    double deadline = now_s() + timeout_s;
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds) {
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0) {
            kill(pid, SIGKILL);
            st = GS_ERR(err, GS_ERR_IO, argv[0], "%s gave no answer in %.0f s", argv[0], timeout_s);
            break;
        }
        int r = poll(fds, 2, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            kill(pid, SIGKILL);
            st = GS_ERR(err, GS_ERR_IO, argv[0], "poll: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[4096];
            ssize_t got = read(fds[k].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                fds[k].fd = -1;
                open_fds--;
                continue;
            }
            if (k == 0) {
                if (len + (size_t)got + 1 > cap) {
                    char *p = realloc(buf, 2 * (len + (size_t)got + 1));
                    if (!p) {
                        kill(pid, SIGKILL);
                        st = GS_ERR(err, GS_ERR_NOMEM, argv[0], "out of memory");
                        open_fds = 0;
                        break;
                    }
                    buf = p;
                    cap = 2 * (len + (size_t)got + 1);
                }
                memcpy(buf + len, chunk, (size_t)got);
                len += (size_t)got;
            } else if (errcap) {
                size_t take = elen + (size_t)got < errcap ? (size_t)got : errcap - 1 - elen;
                memcpy(errbuf + elen, chunk, take);
                elen += take;
                errbuf[elen] = '\0';
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    while (elen && (errbuf[elen - 1] == '\n' || errbuf[elen - 1] == ' '))
        errbuf[--elen] = '\0';
fail:
    close(po[0]);
    close(pe[0]);
    if (st != GS_OK) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *out = buf;
    return GS_OK;
}

int gs_slurm_shell_quote(char *out, size_t cap, const char *s)
{
    size_t k = 0;
#define PUT(c) do { if (k + 1 >= cap) return 0; out[k++] = (c); } while (0)
    PUT('\'');
    for (; *s; s++) {
        if (*s == '\'') {
            PUT('\'');
            PUT('\\');
            PUT('\'');
        }
        PUT(*s);
    }
    PUT('\'');
#undef PUT
    out[k] = '\0';
    return 1;
}
