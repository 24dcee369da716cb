#!/usr/bin/env python3
"""trim_ctypes: a PyTorch job that calls malloc_trim(0) between CUDA ops
through ctypes.CDLL("libc.so.6"), as Python services do to give memory back.
A handle to libc.so.6 makes dlsym search libc itself, so an LD_PRELOAD
interposer never sees the call.  Issue 30's third row: attach said
host_compute 100%, malloc_trim never seen; the truth is malloc_trim on the
launching thread.

  trim_ctypes.py [--cpu-only] [--iters N] [--kernel-ms K] [--frag-mib M]

An iteration: one matrix product of about K ms (torch.mm, CUDA events
around it); while it runs, the fragmented heap's holes are dirtied again
(ctypes malloc/memset/free); torch.cuda.synchronize(); then
libc.malloc_trim(0) (timed): the GPU idles through the trim.

Ground truth (last line of stdout): GROUND_TRUTH {"program":"trim_ctypes",
"trim_s": the launcher's total time in malloc_trim, "gpu_idle_s": the GPU's
idle time between the products (events), "dirty_over_kernel_s": dirtying
that outlasted its product (GPU idle that is not the trim),
"expect_family":"malloc_trim"}.  --cpu-only: no torch; each product is a
sleep of K ms.
"""
import ctypes
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from foreign_common import FragHeap, GpuWork, arg_parser, ground_truth  # noqa: E402

ap = arg_parser(iters=60, kernel_ms=80.0)
ap.add_argument("--frag-mib", type=float, default=128.0)
args = ap.parse_args()

threading.current_thread().name = "launcher"
libc = ctypes.CDLL("libc.so.6")
libc.malloc_trim.argtypes = [ctypes.c_size_t]
gpu = GpuWork(args.kernel_ms, args.cpu_only)
heap = FragHeap(args.frag_mib)

trim_s = over_s = 0.0
t0 = time.perf_counter()
for i in range(args.iters):
    a = time.perf_counter()
    gpu.run()
    heap.dirty()
    d = time.perf_counter() - a
    if d > args.kernel_ms * 1e-3:
        over_s += d - args.kernel_ms * 1e-3
    gpu.sync()
    a = time.perf_counter()
    libc.malloc_trim(0)
    trim_s += time.perf_counter() - a
gpu.sync()
t1 = time.perf_counter()
span, runs = gpu.account(0, args.iters - 1)
idle = span - sum(runs)   # one thread, no GIL contention: runs are the products
print(f"trim_ctypes: {args.iters} iterations in {t1 - t0:.2f} s: malloc_trim {trim_s:.3f} s, "
      f"GPU idle between products {idle:.3f} s")
ground_truth("trim_ctypes", cpu_only=int(args.cpu_only), iters=args.iters, trim_s=trim_s,
             gpu_idle_s=idle, dirty_over_kernel_s=over_s, wall_s=t1 - t0,
             launcher_tid=threading.get_native_id(), expect_family="malloc_trim")
