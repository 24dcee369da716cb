#!/usr/bin/env python3
"""gil_wait: a PyTorch job whose launching thread waits for the GIL, held by
busy helper threads running pure-Python loops.  Issue 30's second row:
attach said blocked_futex 96%; the truth is a GIL wait (the launcher is in
CPython's take_gil, woken when a helper drops the GIL).

  gil_wait.py [--cpu-only] [--iters N] [--kernel-ms K] [--helpers H]
              [--warmup W] [--switch-ms S]

The launcher (main thread) runs W iterations alone, then starts H helper
threads (each a Python loop adding integers, forever) and runs N more.  An
iteration: one matrix product of about K ms (torch.mm, CUDA events around
it), then torch.cuda.synchronize().  Every call that drops the GIL (the
synchronize, the event records, the product's launch) must take it back
from a helper, which keeps it for up to the switch interval (S ms,
sys.setswitchinterval; CPython's default is 5 ms): meanwhile the GPU idles.

Ground truth, from the GPU's clock (CUDA events; the last line of stdout):
GROUND_TRUTH {"program":"gil_wait", "gpu_idle_s": the GPU's idle time over
the N contended iterations (first start event to last end event, less N
times the product's own time, the median of the uncontended runs),
"baseline_idle_s": the same for N uncontended iterations at the warm-up's
rate (launch overhead, not the GIL),
"gil_wait_s": gpu_idle_s - baseline_idle_s, "expect_family":"gil_wait"}.
With --cpu-only, torch is not imported: each iteration sleeps K ms (the
sleep drops the GIL like a synchronize) and gil_wait_s is the time the
sleeps overran (the GIL taken back late).
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from foreign_common import GpuWork, arg_parser, ground_truth  # noqa: E402

ap = arg_parser(iters=200, kernel_ms=30.0)
ap.add_argument("--helpers", type=int, default=3)
ap.add_argument("--warmup", type=int, default=20)
ap.add_argument("--switch-ms", type=float, default=5.0)
args = ap.parse_args()

sys.setswitchinterval(args.switch_ms * 1e-3)
threading.current_thread().name = "launcher"
gpu = GpuWork(args.kernel_ms, args.cpu_only)
stop = False


def helper():
    x = 0
    while not stop:
        for i in range(20000):
            x += i


def iteration():
    a = time.perf_counter()
    gpu.run()
    gpu.sync()
    return time.perf_counter() - a


t0 = time.perf_counter()
warm = [iteration() for _ in range(args.warmup)]
helpers = [threading.Thread(target=helper, name=f"helper-{k}", daemon=True)
           for k in range(args.helpers)]
for h in helpers:
    h.start()
time.sleep(0.05)
hot = [iteration() for _ in range(args.iters)]
stop = True
for h in helpers:
    h.join()
t1 = time.perf_counter()

W, N = args.warmup, args.iters
if args.cpu_only:
    # The sleeps' overrun: how late the launcher got the GIL back.
    base = sum(warm) / max(W, 1) - args.kernel_ms * 1e-3
    gpu_idle = sum(hot) - N * args.kernel_ms * 1e-3
    baseline = N * max(base, 0.0)
else:
    # The product's own time: the median uncontended run (start to end
    # event; alone, nothing delays its launch).  A contended run's events
    # can hold a GIL wait between the start event and the launch, so the
    # contended idle is the span less N products, not less the runs' times.
    span_w, runs_w = gpu.account(0, W - 1)
    span_h, _ = gpu.account(W, W + N - 1)
    mm_s = sorted(runs_w)[len(runs_w) // 2]
    gpu_idle = span_h - N * mm_s
    baseline = (span_w - W * mm_s) * N / max(W - 1, 1)   # W runs have W - 1 gaps
print(f"gil_wait: {N} contended iterations in {t1 - t0:.2f} s with {args.helpers} helpers, "
      f"switch interval {args.switch_ms} ms: GPU idle {gpu_idle:.3f} s "
      f"(uncontended rate {baseline:.3f} s)")
ground_truth("gil_wait", cpu_only=int(args.cpu_only), iters=N, warmup=W, helpers=args.helpers,
             switch_ms=args.switch_ms,
             kernel_ms=args.kernel_ms if args.cpu_only else round(mm_s * 1e3, 3),
             gpu_idle_s=gpu_idle, baseline_idle_s=baseline, gil_wait_s=gpu_idle - baseline,
             wall_s=t1 - t0, launcher_tid=threading.get_native_id(), expect_family="gil_wait")
