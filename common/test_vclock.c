/*
 * The virtual clock: processor sharing against hand-computed finish times,
 * pool helpers oldest first, wrapped mutex and condition hand-offs at
 * exact virtual times, stall detection, and pass-through when off.
 * Every expected time follows from the model's rule (clock.h), worked
 * out in the comment of each case.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "clock.h"

#define S 1000000000LL

typedef struct task {
    int64_t demand, delay;
    int threads, pool;
    int64_t done_at;
    int measure;        /* gs_vt_cpu_runnable: the runnable threads over its run */
    double runnable;
} task;

static void *cpu_main(void *arg)
{
    task *t = arg;
    gs_vt_enter();
    if (t->delay)
        gs_vt_sleep(t->delay);
    if (t->measure)
        gs_vt_cpu_runnable(t->demand, t->threads, t->pool, -1, &t->runnable);
    else
        gs_vt_cpu(t->demand, t->threads, t->pool);
    t->done_at = gs_now_ns();
    gs_vt_exit();
    return NULL;
}

/* Runs tasks as participant threads; the caller waits `horizon` of virtual time. */
static void run_tasks(task *t, int n, const gs_vt_cfg *cfg, int64_t t0, int64_t horizon)
{
    pthread_t th[8];
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_vt_start(cfg, t0, &err) == GS_OK);
    for (int i = 0; i < n; i++) {
        gs_vt_spawn();
        GS_REQUIRE(pthread_create(&th[i], NULL, cpu_main, &t[i]) == 0);
    }
    gs_vt_sleep(horizon);
    GS_CHECK_EQ_INT(gs_now_ns(), t0 + horizon);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    gs_vt_end();
}

GS_TEST(vclock_processor_sharing)
{
    /* Two 1 s tasks on one core: each runs at 1/2, both end at 2 s. */
    gs_vt_cfg one = {.cores = 1};
    task a[2] = {{.demand = S, .threads = 1, .pool = -1}, {.demand = S, .threads = 1, .pool = -1}};
    run_tasks(a, 2, &one, 1000, 10 * S);
    GS_CHECK_EQ_INT(a[0].done_at, 1000 + 2 * S);
    GS_CHECK_EQ_INT(a[1].done_at, 1000 + 2 * S);
    /* Three 1 s tasks on two cores: 2/3 each, all end at 1.5 s. */
    gs_vt_cfg two = {.cores = 2};
    task b[3];
    for (int i = 0; i < 3; i++)
        b[i] = (task){.demand = S, .threads = 1, .pool = -1};
    run_tasks(b, 3, &two, 0, 5 * S);
    for (int i = 0; i < 3; i++)
        GS_CHECK_EQ_INT(b[i].done_at, 3 * S / 2);
    /* A 1 s task and a 3 s task on one core: 2 s for the first (half
     * speed), then the second alone: 1 s done, 2 s left -> ends at 4 s. */
    task c[2] = {{.demand = S, .threads = 1, .pool = -1}, {.demand = 3 * S, .threads = 1, .pool = -1}};
    run_tasks(c, 2, &one, 0, 10 * S);
    GS_CHECK_EQ_INT(c[0].done_at, 2 * S);
    GS_CHECK_EQ_INT(c[1].done_at, 4 * S);
    /* Under capacity nothing slows: a 4-thread task of 4 core-s on 8 cores ends at 1 s. */
    gs_vt_cfg eight = {.cores = 8};
    task d[1] = {{.demand = 4 * S, .threads = 4, .pool = -1}};
    run_tasks(d, 1, &eight, 0, 3 * S);
    GS_CHECK_EQ_INT(d[0].done_at, S);
}

GS_TEST(vclock_pool_helps_the_oldest)
{
    /* Pool of width 4 on 4 cores; P1 (4 core-s, up to 4 threads) starts at
     * 0, P2 (same) at 1 ns.  P1 gets its caller + 3 helpers, P2 its caller
     * only: 5 threads on 4 cores, 0.8 each: P1 at 3.2, P2 at 0.8.  P1 ends
     * at 1 ns + (4 - 3.2e-9) / 3.2 ~ 1.25 s; P2 then has 4 - 0.8 * 1.25 =
     * 3 core-s left at 4 threads -> 0.75 s more: 2.0 s, the work-conserving
     * total (8 core-s on 4 cores). */
    gs_vt_cfg cfg = {.cores = 4, .n_pools = 1, .pool_width = {4}};
    task p[2] = {{.demand = 4 * S, .threads = 4, .pool = 0},
                 {.demand = 4 * S, .threads = 4, .pool = 0, .delay = 1}};
    run_tasks(p, 2, &cfg, 0, 5 * S);
    GS_CHECK_MSG(llabs(p[0].done_at - 1250000000LL) <= 2, "P1 ended at %lld", (long long)p[0].done_at);
    GS_CHECK_MSG(llabs(p[1].done_at - 2 * S) <= 2, "P2 ended at %lld", (long long)p[1].done_at);
}

typedef struct lockers {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int flag;
    int64_t a_unlock, b_locked, w_woke;
    int b_waited;
} lockers;

static void lockers_init(lockers *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
}

static void lockers_destroy(lockers *l)
{
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
}

/* A thread of the lock tests: name(void *) enters the virtual clock, runs
 * the body on the lockers it is given, and exits. */
#define LOCKER_THREAD(name)                                             \
    static void name##_body(lockers *l);                                \
    static void *name(void *arg)                                        \
    {                                                                   \
        gs_vt_enter();                                                  \
        name##_body(arg);                                               \
        gs_vt_exit();                                                   \
        return NULL;                                                    \
    }                                                                   \
    static void name##_body(lockers *l)

LOCKER_THREAD(holder_main)
{
    gs_vt_mutex_lock(&l->mu);
    gs_vt_sleep(S); /* holds the mutex across a modelled second */
    l->a_unlock = gs_now_ns();
    gs_vt_mutex_unlock(&l->mu);
}

LOCKER_THREAD(waiter_main)
{
    gs_vt_sleep(1000); /* after the holder took it */
    l->b_waited = gs_vt_mutex_lock(&l->mu);
    l->b_locked = gs_now_ns();
    gs_vt_mutex_unlock(&l->mu);
}

LOCKER_THREAD(cond_waiter)
{
    pthread_mutex_lock(&l->mu);
    while (!l->flag)
        gs_vt_cond_wait(&l->cv, &l->mu);
    l->w_woke = gs_now_ns();
    pthread_mutex_unlock(&l->mu);
}

LOCKER_THREAD(cond_signaller)
{
    gs_vt_sleep(S / 2);
    pthread_mutex_lock(&l->mu);
    l->flag = 1;
    gs_vt_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

/* Starts fns[0] and fns[1] as counted threads on l, lets three modelled
 * seconds pass, joins them; 0 when a thread could not start. */
static int run_pair(void *(*const *fns)(void *), lockers *l)
{
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        gs_vt_spawn();
        if (pthread_create(&th[i], NULL, fns[i], l) != 0)
            return 0;
    }
    gs_vt_sleep(3 * S);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return 1;
}

GS_TEST(vclock_wrapped_waits_hand_off_in_virtual_time)
{
    gs_vt_cfg cfg = {.cores = 2};
    gs_err err;
    gs_err_clear(&err);
    lockers l;
    lockers_init(&l);
    GS_REQUIRE(gs_vt_start(&cfg, 0, &err) == GS_OK);
    void *(*fns[4])(void *) = {holder_main, waiter_main, cond_waiter, cond_signaller};
    /* The cond pair uses its own mutex: reuse l.mu only after the lock pair is done. */
    GS_REQUIRE(run_pair(fns, &l));
    /* The waiter got the mutex the instant the holder let go, a modelled
     * second after it took it. */
    GS_CHECK_EQ_INT(l.a_unlock, S);
    GS_CHECK(l.b_waited == 1);
    GS_CHECK_EQ_INT(l.b_locked, S);
    GS_REQUIRE(run_pair(fns + 2, &l));
    /* The condition's waiter ran at the signal's virtual time. */
    GS_CHECK_EQ_INT(l.w_woke, 3 * S + S / 2);
    GS_CHECK(!gs_vt_stalled());
    gs_vt_end();
    lockers_destroy(&l);
}

GS_TEST(vclock_detects_a_stall_and_passes_through_when_off)
{
    gs_vt_cfg cfg = {.cores = 1};
    gs_err err;
    gs_err_clear(&err);
    lockers l;
    lockers_init(&l);
    pthread_t th;
    GS_REQUIRE(gs_vt_start(&cfg, 0, &err) == GS_OK);
    GS_CHECK(gs_vt_start(&cfg, 0, &err) == GS_ERR_STATE); /* one clock at a time */
    gs_vt_spawn();
    GS_REQUIRE(pthread_create(&th, NULL, cond_waiter, &l) == 0);
    /* Nobody will signal: only the poll is left, so the run has stalled. */
    for (int i = 0; i < 100 && !gs_vt_stalled(); i++)
        gs_vt_sleep_idle(S / 100);
    GS_CHECK(gs_vt_stalled());
    gs_vt_stop();
    pthread_mutex_lock(&l.mu);
    l.flag = 1;
    pthread_cond_signal(&l.cv);
    pthread_mutex_unlock(&l.mu);
    pthread_join(th, NULL);
    gs_vt_end();
    /* Off: real time, real sleeps. */
    GS_CHECK(!gs_vt_virtual() && !gs_vt_participant());
    int64_t t0 = gs_now_ns();
    gs_sleep_ns(2000000);
    GS_CHECK(gs_now_ns() - t0 >= 2000000);
    lockers_destroy(&l);
}

/* Contention (gs_vt_cfg.speed): class 0 runs at half speed once two
 * threads want the cores.  Two 1 s tasks of class 0 on two cores: each
 * has a core but progresses at 0.5, so both end at 2 s and each consumed
 * 2 s of CPU; a class -1 task beside one of them is not slowed (1 s). */
static double half_when_two(void *ctx, int cls, double runnable)
{
    (void)ctx;
    return cls == 0 && runnable >= 2 ? 0.5 : 1.0;
}

typedef struct ctask {
    int64_t demand;
    int cls;
    int64_t done_at, cpu;
} ctask;

static void *cls_main(void *arg)
{
    ctask *t = arg;
    gs_vt_enter();
    gs_vt_cpu_class(t->demand, 1, -1, t->cls);
    t->done_at = gs_now_ns();
    t->cpu = gs_vt_thread_cpu_ns();
    gs_vt_exit();
    return NULL;
}

GS_TEST(vclock_speed_classes_slow_with_contention)
{
    gs_vt_cfg two = {.cores = 2, .speed = half_when_two};
    for (int round = 0; round < 2; round++) {
        ctask t[2] = {{.demand = S, .cls = 0}, {.demand = S, .cls = round == 0 ? 0 : -1}};
        pthread_t th[2];
        gs_err err;
        gs_err_clear(&err);
        GS_REQUIRE(gs_vt_start(&two, 0, &err) == GS_OK);
        for (int i = 0; i < 2; i++) {
            gs_vt_spawn();
            GS_REQUIRE(pthread_create(&th[i], NULL, cls_main, &t[i]) == 0);
        }
        gs_vt_sleep(10 * S);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        gs_vt_end();
        if (round == 0) {
            GS_CHECK_EQ_INT(t[0].done_at, 2 * S);
            GS_CHECK_EQ_INT(t[1].done_at, 2 * S);
            GS_CHECK_MSG(llabs(t[0].cpu - 2 * S) <= 2, "class 0 consumed %lld ns of CPU", (long long)t[0].cpu);
        } else {
            /* Class 0 at half speed until the other ends at 1 s (0.5 s of
             * work done), then alone at full speed: 1.5 s. */
            GS_CHECK_EQ_INT(t[1].done_at, S);
            GS_CHECK_EQ_INT(t[0].done_at, 3 * S / 2);
        }
    }
}

/* The rule itself (pshare.h), by hand: 4 cores, pool 0 of width 4 (3
 * helpers), one thread of load.  Offers in start order: a pool task asking
 * 3 threads gets 1 + 2 helpers, the next pool task asking 4 gets 1 + the
 * last helper, a plain task asking 2 gets 2.  T = 1 + 3 + 2 + 2 = 8 on 4
 * cores: every thread runs at 1/2 a core, all 4 cores busy. */
GS_TEST(pshare_rule)
{
    gs_pshare ps;
    const int width[1] = {4};
    gs_pshare_init(&ps, 4, width, 1, 1);
    GS_CHECK(gs_pshare_add(&ps, 3, 0) == 3);
    GS_CHECK(gs_pshare_add(&ps, 4, 0) == 2);
    GS_CHECK(gs_pshare_add(&ps, 2, -1) == 2);
    GS_CHECK(gs_pshare_add(&ps, 5, 0) == 1); /* no helper left */
    GS_CHECK(gs_pshare_add(&ps, 1, GS_PSHARE_MAX_POOLS) == 1); /* out of range: no pool */
    GS_CHECK(gs_pshare_rate(&ps) == 4.0 / 10.0);
    GS_CHECK(gs_pshare_busy(&ps) == 4.0);
    /* Under the core count: full speed, busy = threads. */
    gs_pshare_init(&ps, 8, width, 1, 0);
    gs_pshare_add(&ps, 2, -1);
    GS_CHECK(gs_pshare_rate(&ps) == 1.0 && gs_pshare_busy(&ps) == 2.0);
}

/* The contention extension, by hand: 2 cores, three plain one-thread
 * tasks (T = 3, each holds 2/3 of a core).  Class 0 at speed 1/(T - 1)
 * progresses 1/3 core-second per second; class -1 and a NULL speed keep
 * the share. */
static double inv_t_minus_1(void *ctx, int cls, double runnable)
{
    (void)ctx;
    return cls == 0 ? 1.0 / (runnable - 1) : 2.0;
}

GS_TEST(pshare_contention_progress)
{
    gs_pshare ps;
    gs_pshare_init(&ps, 2, NULL, 0, 0);
    for (int i = 0; i < 3; i++)
        GS_CHECK(gs_pshare_add(&ps, 1, -1) == 1);
    GS_CHECK(gs_pshare_runnable(&ps) == 3.0);
    GS_CHECK(fabs(gs_pshare_progress(&ps, 1, inv_t_minus_1, NULL, 0) - 1.0 / 3.0) < 1e-15);
    GS_CHECK(fabs(gs_pshare_progress(&ps, 1, inv_t_minus_1, NULL, -1) - 2.0 / 3.0) < 1e-15);
    GS_CHECK(fabs(gs_pshare_progress(&ps, 1, NULL, NULL, 0) - 2.0 / 3.0) < 1e-15);
    GS_CHECK(fabs(gs_pshare_progress(&ps, 1, inv_t_minus_1, NULL, 1) - 4.0 / 3.0) < 1e-15);
    /* One thread of load (a worker spinning on its device) and two tasks:
     * T = 3, each task holds 2/3 of a core, but the contention is read at
     * the two threads that do work, W = 2: speed 1/(2 - 1), progress 2/3
     * (at T the task would make 1/3: the fit, which never sees the load,
     * and the replay would price the same step apart). */
    gs_pshare_init(&ps, 2, NULL, 0, 1);
    for (int i = 0; i < 2; i++)
        gs_pshare_add(&ps, 1, -1);
    GS_CHECK(gs_pshare_runnable(&ps) == 3.0 && gs_pshare_rate(&ps) == 2.0 / 3.0);
    GS_CHECK(fabs(gs_pshare_progress(&ps, 1, inv_t_minus_1, NULL, 0) - 2.0 / 3.0) < 1e-15);
}

GS_TEST(vclock_reports_the_runnable_threads_a_task_ran_with)
{
    /* On one core, a 2 s task and a 1 s task: both at 1/2 until the short
     * one ends at 2 s, then the long one alone until 3 s: 2 runnable
     * threads for 2 s, 1 for 1 s, a mean of 5/3.  With a 2-thread task
     * of 2 core-seconds beside a 1 s task instead: 3 threads, each at
     * 1/3, both end at 3 s: 3 runnable threads over its whole run. */
    gs_vt_cfg one = {.cores = 1};
    task a[2] = {{.demand = 2 * S, .threads = 1, .pool = -1, .measure = 1}, {.demand = S, .threads = 1, .pool = -1}};
    run_tasks(a, 2, &one, 0, 10 * S);
    GS_CHECK_MSG(a[0].done_at == 3 * S && fabs(a[0].runnable - 5.0 / 3.0) < 1e-6, "ended %lld, runnable %.6f",
                 (long long)a[0].done_at, a[0].runnable);
    task b[2] = {{.demand = S, .threads = 1, .pool = -1, .measure = 1}, {.demand = 2 * S, .threads = 2, .pool = -1}};
    run_tasks(b, 2, &one, 0, 10 * S);
    GS_CHECK_MSG(b[0].done_at == 3 * S && fabs(b[0].runnable - 3.0) < 1e-6, "ended %lld, runnable %.6f",
                 (long long)b[0].done_at, b[0].runnable);
    /* Off the clock: nothing measured. */
    double r = -1;
    gs_vt_cpu_runnable(S, 1, -1, -1, &r);
    GS_CHECK(r == 0);
}

/* Determinism (clock.h): four threads wake at the same virtual instant and
 * each takes a wrapped mutex, holding it across 1 ms of modelled time.
 * They run one at a time in the order they started their sleep (spawn
 * order), so they queue on the mutex in that order and get it first
 * blocked, first served: 0, 1, 2, 3, at 1 s + 0, 1, 2, 3 ms, every run.
 * With the threads run in parallel the order was the host's. */
typedef struct order_run {
    pthread_mutex_t mu;
    int order[4], n;
    int64_t at[4];
} order_run;

typedef struct order_arg {
    order_run *r;
    int id;
} order_arg;

static void *order_main(void *arg)
{
    order_arg *a = arg;
    gs_vt_enter();
    gs_vt_sleep(S);
    gs_vt_mutex_lock(&a->r->mu);
    a->r->at[a->r->n] = gs_now_ns();
    a->r->order[a->r->n++] = a->id;
    gs_vt_sleep(S / 1000);
    gs_vt_mutex_unlock(&a->r->mu);
    gs_vt_exit();
    return NULL;
}

GS_TEST(vclock_same_instant_wakes_run_in_a_fixed_order)
{
    gs_vt_cfg cfg = {.cores = 2};
    for (int round = 0; round < 5; round++) {
        order_run r = {.n = 0};
        pthread_mutex_init(&r.mu, NULL);
        order_arg a[4];
        pthread_t th[4];
        gs_err err;
        gs_err_clear(&err);
        GS_REQUIRE(gs_vt_start(&cfg, 0, &err) == GS_OK);
        for (int i = 0; i < 4; i++) {
            a[i] = (order_arg){.r = &r, .id = i};
            gs_vt_spawn();
            GS_REQUIRE(pthread_create(&th[i], NULL, order_main, &a[i]) == 0);
        }
        gs_vt_sleep(2 * S);
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        gs_vt_end();
        pthread_mutex_destroy(&r.mu);
        GS_CHECK_EQ_INT(r.n, 4);
        for (int i = 0; i < 4 && i < r.n; i++) {
            GS_CHECK_MSG(r.order[i] == i, "round %d: thread %d took the mutex %s", round, r.order[i],
                         i == 0 ? "first" : "out of spawn order");
            GS_CHECK_EQ_INT(r.at[i], S + i * (S / 1000));
        }
    }
}
