//! tokio_daemon: the production proving daemon's shape (shared/DOMAIN.md),
//! written as its authors would, knowing nothing of gapscope.  Issue 30:
//! attached as it is, its incident was reported as "the queue was empty".
//!
//!   tokio_daemon [--cpu-only] [--iters N] [--kernel-ms K] [--frag-mib M]
//!
//! A multi-threaded tokio runtime (2 worker threads, named tokio-rt).  The
//! GPU worker is a task; per partition it awaits the job tracker, a
//! `tokio::sync::Mutex` (status check, mark busy: no thread blocks on the
//! lock, the task is parked and a runtime thread sleeps), then hands the
//! prove to `spawn_blocking`: a blocking-pool thread launches a K ms kernel
//! through the C/CUDA shim (gpu_shim.cu), writes the partition's host
//! buffers (M/2 MiB of 8 KiB blocks filling the holes of a heap fragmented
//! at start) while it runs, and waits for it.  The worker then spawns a
//! finalizer task for the partition, which takes the tracker lock, keeps it
//! while the next partition's kernel runs (a slow finalizer; it checks every
//! 200 us whether the worker asks for the lock), and once the worker waits,
//! drops the buffers and calls `malloc_trim(0)` holding it, blocking its
//! runtime thread, as the daemon's finalizers did.  So from the second
//! partition on, every wait of the worker is one trim: the finalizer
//! releases the lock, the tokio mutex wakes the worker task on a runtime
//! thread, whose `spawn_blocking` wakes a blocking-pool thread that
//! launches the kernel: three threads, none of which waited on the lock
//! itself a futex call would name.
//!
//! Ground truth (last line of stdout): GROUND_TRUTH {"program":
//! "tokio_daemon", "wait_s": the worker task's total time in
//! `lock().await`, "trim_s": the finalizers' malloc_trim time while the
//! worker waited, "gpu_idle_host_s": from each kernel's synchronize to the
//! next launch (host clock), "expect_family":"tracker_lock",
//! "expect_holder":"malloc_trim"}.  glibc's malloc uses one arena
//! (mallopt(M_ARENA_MAX, 1), as daemons set MALLOC_ARENA_MAX), so the
//! buffers written on the blocking thread fill the main heap's holes.
//! --cpu-only: no CUDA call; each kernel is a sleep until its end, and a
//! line "kernel LAUNCH_NS END_NS TID" per partition says where it would
//! have run and which thread launched it (CLOCK_MONOTONIC).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;

extern "C" {
    fn malloc_trim(pad: usize) -> i32;
    fn mallopt(param: i32, value: i32) -> i32;
    fn gettid() -> i32;
    fn shim_init(cpu_only: i32);
    fn shim_launch(ms: f64, cpu_only: i32) -> i64;
    fn shim_sync(cpu_only: i32) -> i64;
    fn shim_now_ns() -> i64;
}

const M_ARENA_MAX: i32 = -8;
const BLOCK: usize = 8192;

#[derive(Clone, Copy)]
struct Config {
    cpu_only: bool,
    iters: usize,
    kernel_ms: f64,
    frag_mib: f64,
}

/// What the tracker lock protects (the daemon's job tracker).
#[derive(Default)]
struct Tracker {
    running: u64,
    finished: u64,
}

#[derive(Default)]
struct Stats {
    wait_ns: AtomicU64,
    trim_ns: AtomicU64,
    trims: AtomicU64,
    late_trim_ns: AtomicU64,
    holder_tid: AtomicU64,
}

struct Shared {
    cfg: Config,
    tracker: Mutex<Tracker>,
    stats: Stats,
    worker_waiting: AtomicBool,
    stop: AtomicBool,
}

fn now() -> i64 {
    unsafe { shim_now_ns() }
}

fn parse_args() -> Config {
    let mut c = Config { cpu_only: false, iters: 80, kernel_ms: 40.0, frag_mib: 256.0 };
    let argv: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i < argv.len() {
        let num = |k: usize| -> f64 {
            argv.get(k).and_then(|v| v.parse::<f64>().ok()).filter(|v| *v >= 0.0).unwrap_or_else(|| {
                eprintln!("tokio_daemon: {} wants a number >= 0", argv[k - 1]);
                std::process::exit(2)
            })
        };
        match argv[i].as_str() {
            "--cpu-only" => c.cpu_only = true,
            "--iters" => { c.iters = num(i + 1) as usize; i += 1; }
            "--kernel-ms" => { c.kernel_ms = num(i + 1); i += 1; }
            "--frag-mib" => { c.frag_mib = num(i + 1); i += 1; }
            other => {
                eprintln!("tokio_daemon: unknown option {} (--cpu-only --iters N --kernel-ms K --frag-mib M)", other);
                std::process::exit(2);
            }
        }
        i += 1;
    }
    c
}

/// 8 KiB blocks over `mib` MiB, every other one kept for the whole run: the
/// heap has a hole between any two live blocks.
fn fragment(mib: f64) -> Vec<Box<[u8]>> {
    let n = (mib * 1024.0 / 8.0) as usize;
    let mut all: Vec<Option<Box<[u8]>>> = (0..n).map(|_| Some(vec![1u8; BLOCK].into_boxed_slice())).collect();
    let mut keep = Vec::with_capacity(n / 2 + 1);
    for (k, b) in all.iter_mut().enumerate() {
        let b = b.take().unwrap();
        if k % 2 == 1 {
            keep.push(b);
        }
    }
    keep
}

/// A partition's host buffers: blocks that fill the heap's holes, written.
fn partition_buffers(mib: f64) -> Vec<Box<[u8]>> {
    let n = (mib * 1024.0 / 16.0) as usize;
    (0..n).map(|_| vec![2u8; BLOCK].into_boxed_slice()).collect()
}

async fn finalizer(sh: Arc<Shared>, buffers: Vec<Box<[u8]>>) {
    let mut t = sh.tracker.lock().await;
    while !sh.worker_waiting.load(Ordering::Acquire) && !sh.stop.load(Ordering::Acquire) {
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    let waited_on = sh.worker_waiting.load(Ordering::Acquire);
    t.finished += 1;
    drop(buffers);
    let a = now();
    unsafe { malloc_trim(0) };
    let d = (now() - a) as u64;
    if waited_on {
        sh.stats.trim_ns.fetch_add(d, Ordering::Relaxed);
        sh.stats.trims.fetch_add(1, Ordering::Relaxed);
        sh.stats.holder_tid.store(unsafe { gettid() } as u64, Ordering::Relaxed);
    } else {
        sh.stats.late_trim_ns.fetch_add(d, Ordering::Relaxed);
    }
    drop(t);
}

/// The GPU worker task; returns (GPU idle on the host clock, launcher tid).
async fn gpu_worker(sh: Arc<Shared>) -> (i64, i32) {
    let cfg = sh.cfg;
    let mut finalizers = Vec::new();
    let (mut last_done, mut idle, mut tid) = (0i64, 0i64, 0i32);
    for _ in 0..cfg.iters {
        sh.worker_waiting.store(true, Ordering::Release);
        let a = now();
        let mut t = sh.tracker.lock().await;
        sh.stats.wait_ns.fetch_add((now() - a) as u64, Ordering::Relaxed);
        sh.worker_waiting.store(false, Ordering::Release);
        t.running += 1;
        drop(t);
        let (launch, done, bufs, who) = tokio::task::spawn_blocking(move || {
            let cpu = cfg.cpu_only as i32;
            let launch = unsafe { shim_launch(cfg.kernel_ms, cpu) };
            let bufs = partition_buffers(cfg.frag_mib);
            let done = unsafe { shim_sync(cpu) };
            (launch, done, bufs, unsafe { gettid() })
        })
        .await
        .expect("the GPU job panicked");
        if last_done != 0 {
            idle += launch - last_done;
        }
        if cfg.cpu_only {
            // Where the kernel would have run and who launched it (the
            // CPU-only rehearsal's device work, planted by a test).
            println!("kernel {} {} {}", launch, launch + (cfg.kernel_ms * 1e6) as i64, who);
        }
        last_done = done;
        tid = who;
        finalizers.push(tokio::spawn(finalizer(sh.clone(), bufs)));
    }
    sh.stop.store(true, Ordering::Release);
    for f in finalizers {
        f.await.expect("a finalizer panicked");
    }
    (idle, tid)
}

fn main() {
    let cfg = parse_args();
    unsafe {
        mallopt(M_ARENA_MAX, 1);
        shim_init(cfg.cpu_only as i32);
    }
    let _keep = fragment(cfg.frag_mib);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("tokio-rt")
        .enable_time()
        .build()
        .expect("tokio runtime");
    let sh = Arc::new(Shared {
        cfg,
        tracker: Mutex::new(Tracker::default()),
        stats: Stats::default(),
        worker_waiting: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    });
    let t0 = now();
    let (idle, launcher) = rt.block_on(async {
        tokio::spawn(gpu_worker(sh.clone())).await.expect("the GPU worker panicked")
    });
    let wall = (now() - t0) as f64 * 1e-9;
    let s = &sh.stats;
    let (wait, trim) = (s.wait_ns.load(Ordering::Relaxed) as f64 * 1e-9, s.trim_ns.load(Ordering::Relaxed) as f64 * 1e-9);
    let t = sh.tracker.try_lock().map(|t| (t.running, t.finished)).unwrap_or((0, 0));
    println!(
        "tokio_daemon: {} partitions ({} finished) in {:.2} s: the GPU worker task waited {:.3} s for the tracker lock, finalizers trimmed {:.3} s meanwhile ({} trims)",
        t.0, t.1, wall, wait, trim, s.trims.load(Ordering::Relaxed)
    );
    println!(
        "GROUND_TRUTH {{\"program\":\"tokio_daemon\",\"cpu_only\":{},\"iters\":{},\"wait_s\":{:.6},\"trim_s\":{:.6},\"trims\":{},\"late_trim_s\":{:.6},\"gpu_idle_host_s\":{:.6},\"wall_s\":{:.6},\"launcher_tid\":{},\"holder_tid\":{},\"expect_family\":\"tracker_lock\",\"expect_holder\":\"malloc_trim\"}}",
        cfg.cpu_only as i32,
        cfg.iters,
        wait,
        trim,
        s.trims.load(Ordering::Relaxed),
        s.late_trim_ns.load(Ordering::Relaxed) as f64 * 1e-9,
        idle as f64 * 1e-9,
        wall,
        launcher,
        s.holder_tid.load(Ordering::Relaxed)
    );
}
