/*
 * `gapscope attach`: a capture source for programs gapscope did not build.
 *
 * Pieces (this layer depends on timeline and common only):
 *   inject/      (the top-level folder, outside every layer: it runs
 *                inside the program, not in gapscope) libgsattach.so,
 *                loaded into the program: CUPTI activity
 *                records (CUDA_INJECTION64_PATH), interposed
 *                pthread_mutex_lock/unlock and malloc_trim, waits and
 *                wakes (futex through syscall(), condvars, rwlocks,
 *                semaphores; LD_PRELOAD), NVTX ranges
 *                (NVTX_INJECTION64_PATH); libgsaudit.so (LD_AUDIT) catches
 *                malloc_trim bound through dlsym; both write raw records.
 *   sched*.c     scheduler tracepoints (sched_switch, sched_waking through
 *                perf_event_open) where the machine allows: sched.rec.
 *   sampler.c    a thread in gapscope that reads /proc/PID/task/TID/{stat,
 *                schedstat,syscall,wchan} of the program's threads at
 *                ~1 kHz and writes their state runs as raw records.
 *   launch.c     fork/exec of the program with that environment, signal
 *                forwarding, the sampler's life.
 *   convert.c    raw records -> a gs_timeline in the foreign-timeline
 *                vocabulary of timeline/SPANS.md ("Foreign timelines").
 *
 * Raw records.  A run directory holds attach-raw/: one file per process
 * image, p<pid>-<t0>.rec (written by the library), and sampler.rec (written
 * by gapscope).  Text, one record per line, fields separated by one space,
 * times in CLOCK_MONOTONIC ns; a name is always the last field and runs to
 * the end of the line (control characters replaced by spaces):
 *   H gsattach 1 PID PPID T0 EXE     header, first line of a library file
 *                                    (EXE: the executable's file name)
 *   I TEXT                           information (cupti=on/none/..., kept in meta)
 *   O OFFSET_NS                      CUPTI clock -> CLOCK_MONOTONIC offset (added
 *                                    to the K M S Y R D times that follow)
 *   K START END DEV CTX STREAM CORR NAME            kernel (NAME mangled)
 *   M START END DEV CTX STREAM CORR RTCORR COPYKIND SRCKIND DSTKIND BYTES
 *                                    memcpy (CUPTI copy/memory kind numbers)
 *   S START END DEV CTX STREAM CORR BYTES MEMKIND   memset
 *   Y START END CTX STREAM CORR TYPE                synchronization (CUPTI type)
 *   R START END TID CORR CBID NAME                  runtime API call
 *   D START END TID CORR CBID NAME                  driver API call
 *   V DEV NAME                       device name
 *   W START END TID MUTEX OWNER_TID  contended pthread_mutex_lock (owner 0: unknown)
 *   L START END TID MUTEX            hold of a mutex after a contended wait
 *   T START END TID RESULT           malloc_trim
 *   N START END TID NAME             NVTX range
 *   X T DROPPED                      CUPTI dropped records
 *   F T GENERATION                   a flush request was answered
 *   E T REASON                       the process image ended (exit, signal N)
 *   B START END TID KIND ADDR RESULT STACK
 *                                    an interposed wait that blocked: KIND
 *                                    futex | cond | gil | rwlock | sem; ADDR
 *                                    the futex word / object (0x hex); RESULT 0
 *                                    woken (or acquired), else the errno
 *                                    (110 timed out, 4 interrupted); STACK the
 *                                    waiter's stack id (0: none; waits of at
 *                                    least GS_ATTACH_STACK_MIN_US get one)
 *   U T TID KIND ADDR WOKEN WORD STACK
 *                                    a wake on ADDR by TID: WOKEN the threads
 *                                    woken (futex), -1 signal/post/unlock with
 *                                    waiters, -2 broadcast; WORD the futex word
 *                                    read right after the wake (-1 not read);
 *                                    STACK rate-limited (one per thread per 10 ms)
 *   Q ID FRAMES                      a stack: frames root first, ;-separated,
 *                                    each a dladdr symbol or /path/of/object+0xOFFSET
 *                                    (from its load base: the converter names it
 *                                    from the file's .symtab, else keeps
 *                                    object+0xOFFSET); ids are per file; a Q line
 *                                    may follow its first use
 *   A T TID STACK                    the stack of TID's malloc_trim (T record)
 *                                    that ended at T
 * libgsaudit.so's file is p<pid>-<t0>-audit.rec (T and A records only).
 *   sampler.rec:
 *   G T0 HZ                          sampler header
 *   P START END PID TID STATE DETAIL one state run of a thread (DETAIL: syscall
 *                                    name, wchan symbol, or "-")
 *   C PID TID COMM                   a thread's name
 *   J START END PID TID RSS_DROP_KB SYS_SAMPLES
 *                                    memory released by TID: a stretch in which
 *                                    it ran mostly in the kernel while its
 *                                    process's resident set fell RSS_DROP_KB,
 *                                    or was seen blocked in madvise/munmap
 *                                    SYS_SAMPLES times (a running thread's
 *                                    /proc/TID/syscall reads "running")
 *   P runs of a thread blocked in a futex wait carry DETAIL futex@0xADDR.
 *   sched.rec (always written by gapscope attach; format in sched.c):
 *   Z gsched 1 MECH                  sched_tracepoints | interposition
 *   i TEXT                           why that mechanism
 *   s T CPU PREV PREV_STATE NEXT     a context switch
 *   w T WAKER WAKEE IRQ              a wake-up issued (IRQ 1: interrupt context)
 *   l LOST                           scheduler events lost
 * A file whose last line lacks its newline was cut by a crash: that line is
 * skipped and the timeline says so (meta attach.truncated).  Device and API
 * records (K M S R D) with zero, all-ones or reversed timestamps, or
 * lasting 2^50 ns or more (work still in flight at a forced CUPTI flush),
 * are dropped and counted (meta attach.untimed).  A number beyond the field
 * it goes to (timeline/limits.h for times after the offset, devices and
 * streams; 32 bits for ids) is an error naming file:line, as is any other
 * malformed line.
 */
#ifndef GS_ATTACH_H
#define GS_ATTACH_H

#include <stdint.h>
#include <sys/types.h>

#include "../../common/clock.h"
#include "../../timeline/timeline.h"

/* ---- conversion ------------------------------------------------------------ */

typedef struct gs_attach_convert_opts {
    /* Runtime/driver calls with no device work and not synchronizing are
     * kept as cuda:<api> spans only when at least this long (ns; default 0:
     * all of them). */
    int64_t api_min_ns;
} gs_attach_convert_opts;
void gs_attach_convert_opts_defaults(gs_attach_convert_opts *o);

/* Counts of what a conversion read (also written as meta attach.*). */
typedef struct gs_attach_stats {
    long files, lines, kernels, copies, memsets, api_calls, api_spans, syncs,
        lock_waits, trims, nvtx, state_runs, threads, dropped, truncated, untimed;
    int cupti_on;
    /* Wake-up edges (convert_wake.c). */
    long waits, wakes, waits_paired, sched_events, sched_lost, mem_releases, stacks;
    char wake_mech[32];       /* sched_tracepoints | interposition | "" (no sched.rec) */
} gs_attach_stats;

/* Reads every *.rec file of raw_dir into a new timeline (lanes and spans
 * per timeline/SPANS.md, "Foreign timelines"; meta source=attach,
 * source.file = raw_dir relative to the capture directory holding it,
 * i.e. its last component "attach-raw", never an absolute path).  Malformed
 * input: GS_ERR_FORMAT naming file:line.  stats may be NULL. */
gs_status gs_attach_convert(gs_timeline **out, gs_attach_stats *stats, const char *raw_dir,
                            const gs_attach_convert_opts *o, gs_err *err);

/* Shortens a kernel name: an Itanium-mangled name becomes its qualified
 * function name without parameters or template arguments
 * ("_ZN2at6native18elementwise_kernelILi128ELi4EZ..." ->
 * "at::native::elementwise_kernel"); anything else is copied (cut at
 * '(' ).  Always NUL-terminates. */
void gs_attach_kernel_name(char *out, size_t n, const char *mangled);

/* ---- /proc sampler --------------------------------------------------------- */

/* Thread states the sampler tells apart (the STATE field of P records). */
#define GS_TSTATE_TABLE(X) \
    X(GS_TS_RUNNING, "running") X(GS_TS_RUNNABLE, "runnable") X(GS_TS_FUTEX, "futex") \
    X(GS_TS_IO, "io") X(GS_TS_SLEEP, "sleep") X(GS_TS_STOPPED, "stopped") X(GS_TS_OTHER, "other")
typedef enum { GS_TSTATE_TABLE(GS_XT_ID) GS_TS_COUNT } gs_tstate;
const char *gs_tstate_name(gs_tstate s);

/* Classifies one sample.  st: the state letter of /proc/.../stat; sysno:
 * the syscall number from /proc/.../syscall (-1 unknown: "running" or
 * unreadable), arg0 its first argument; wchan: the wchan symbol or NULL;
 * ran_ns/waited_ns: schedstat run and run-queue wait deltas since the last
 * sample (-1 unknown).  detail receives the syscall or wchan name. */
gs_tstate gs_tstate_classify(char st, long sysno, uint64_t arg0, const char *wchan,
                             int64_t ran_ns, int64_t waited_ns, char *detail, size_t n);

typedef struct gs_sampler gs_sampler;
/* Starts a thread sampling the tasks of pid (and of every process that
 * writes a p<pid>-*.rec into raw_dir) hz times a second, until
 * gs_sampler_stop, which writes raw_dir/sampler.rec and frees it. */
gs_status gs_sampler_start(gs_sampler **out, pid_t pid, const char *raw_dir, double hz,
                           gs_err *err);
/* Stops sampling, writes sampler.rec; samples_out (may be NULL) gets the
 * number of sampling rounds and cost_ns_out the CPU time the sampler used. */
gs_status gs_sampler_stop(gs_sampler *s, long *rounds_out, int64_t *cost_ns_out, gs_err *err);

/* ---- scheduler tracepoints (sched.c, sched_collect.c) ---------------------- */

/* 1 when sched_switch/sched_waking can be recorded here (tracefs ids, a
 * system-wide perf_event_open permitted); why gets the answer in words
 * either way (named in the run's metadata as attach.wake.probe). */
int gs_sched_probe(char *why, size_t n);
typedef struct gs_sched gs_sched;
/* Starts recording scheduler events of pid (and of the processes that
 * write p<pid>-*.rec files into raw_dir) into raw_dir/sched.rec. */
gs_status gs_sched_start(gs_sched **out, pid_t pid, const char *raw_dir, gs_err *err);
/* Stops, finishes sched.rec; events/lost (may be NULL) get the counts. */
gs_status gs_sched_stop(gs_sched *s, long *events, long *lost, gs_err *err);
/* Writes a sched.rec that names the interposition fallback and why. */
gs_status gs_sched_write_none(const char *raw_dir, const char *why, gs_err *err);

/* ---- launching ----------------------------------------------------------------- */

typedef struct gs_attach_opts {
    const char *out_dir;       /* run directory (created) */
    const char *lib;           /* libgsattach.so (NULL: found next to the binary) */
    double sample_hz;          /* /proc sampling rate, 0 = off (default 1000) */
    unsigned flush_ms;         /* periodic CUPTI flush (default 500) */
    int no_cupti, no_preload, no_nvtx;
    int no_audit;              /* no LD_AUDIT (malloc_trim bound by dlsym unseen) */
    int no_stacks;             /* no user stacks at waits, trims and wakes */
    unsigned stack_min_us;     /* waits at least this long get a stack (default 1000) */
    const char *wake;          /* "auto" (default), "sched", "interpose" */
    int quiet;
} gs_attach_opts;
void gs_attach_opts_defaults(gs_attach_opts *o);

typedef struct gs_attach_result {
    int exit_code;             /* the program's exit code, or 128 + signal */
    int signaled;
    int64_t start_ns, end_ns;  /* fork to reap */
    gs_clock_anchor anchor;    /* read just before the fork (timeline/merge.h) */
    long sampler_rounds;
    int64_t sampler_cpu_ns;
    char wake[32];             /* the wake-edge mechanism used */
    char wake_why[256];        /* the probe's answer */
    long sched_events, sched_lost;
} gs_attach_result;

/* Runs argv[0..] with the capture on, waits for it (forwarding SIGINT,
 * SIGTERM and SIGHUP after asking the library to flush), and leaves the
 * raw records in out_dir/attach-raw.  GS_ERR_IO when the program could
 * not be started; GS_ERR_ARG when wake = "sched" and the probe says no. */
gs_status gs_attach_exec(gs_attach_result *res, char *const argv[], const gs_attach_opts *o,
                         gs_err *err);

/* Finds libgsattach.so: GS_ATTACH_LIB, then <dir of the running binary>/lib/,
 * then <dir>/../lib/.  0 when none exists. */
int gs_attach_find_lib(char *buf, size_t n);

#endif
