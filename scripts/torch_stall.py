#!/usr/bin/env python3
"""A PyTorch job whose CUDA work is interrupted by a host-side stall we control.

Nothing in it knows gapscope: it is the "program nobody here wrote" that
`gapscope attach` diagnoses (scripts/gpu-attach-validate.sh runs it).  Each
iteration launches --matmuls bf16 matrix products on the GPU, waits for them
(torch.cuda.synchronize, so the GPU goes idle), then stalls on the host for
about --stall-ms in one of these ways (one mode per run):

  sleep   time.sleep in the launching thread
  lock    the launching thread blocks on a threading.Lock that a helper
          thread holds while it sleeps (a futex wait: no pthread mutex)
  pmutex  the same with a glibc pthread mutex through ctypes (seen by the
          LD_PRELOAD interposer, holder known)
  trim    malloc_trim(0) through ctypes on a heap fragmented at start
          (--frag-mib of 8 KiB blocks, every other one freed)
  none    no stall

--profile OUT.json runs the whole job (from the first tensor) under
torch.profiler (CPU + CUDA activities) and exports a Chrome trace for
`gapscope import`.  Each iteration is an NVTX
range "iter" (torch.cuda.nvtx).  Prints one JSON line of what it did.
"""
import argparse
import ctypes
import json
import threading
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("mode", choices=["none", "sleep", "lock", "pmutex", "trim"])
ap.add_argument("--iters", type=int, default=30)
ap.add_argument("--matmuls", type=int, default=8)
ap.add_argument("--n", type=int, default=8192)
ap.add_argument("--stall-ms", type=float, default=20.0)
ap.add_argument("--frag-mib", type=int, default=400)
ap.add_argument("--profile", default=None)
args = ap.parse_args()

# The global namespace (dlopen(NULL)), where a C caller's pthread_mutex_lock
# and malloc_trim resolve too.  (A handle to libc.so.6 itself would skip any
# LD_PRELOAD interposer: dlsym on a library handle searches that library.)
libc = ctypes.CDLL(None, use_errno=True)
# The trim mode's fragmented heap is made before the first CUDA call: making
# it takes ~0.3 s of Python, which inside the device span would be one long
# host_compute gap beside the stalls under test.
blocks = []
if args.mode == "trim":
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    n_blk = args.frag_mib * 1024 // 8
    blocks = [libc.malloc(8192) for _ in range(n_blk)]
    for i in range(0, n_blk, 2):
        libc.free(blocks[i])
    blocks = blocks[1::2]

# Under --profile the profiler covers every CUDA operation of the run (the
# same work attach sees), from the first tensor to the last iteration.
prof = None
if args.profile:
    from torch.profiler import ProfilerActivity, profile
    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    prof.__enter__()
dev = torch.device("cuda")
a = torch.randn(args.n, args.n, device=dev, dtype=torch.bfloat16)
b = torch.randn(args.n, args.n, device=dev, dtype=torch.bfloat16)

# --- the stalls --------------------------------------------------------------
stall_s = args.stall_ms / 1000.0
go, held, done = threading.Event(), threading.Event(), threading.Event()
py_lock = threading.Lock()
mutex = ctypes.create_string_buffer(64)   # >= sizeof(pthread_mutex_t)
libc.pthread_mutex_init(mutex, None)


def holder():
    while True:
        go.wait()
        go.clear()
        if done.is_set():
            return
        if args.mode == "lock":
            with py_lock:
                held.set()
                time.sleep(stall_s)
        else:
            libc.pthread_mutex_lock(mutex)   # ctypes releases the GIL
            held.set()
            time.sleep(stall_s)
            libc.pthread_mutex_unlock(mutex)


th = None
if args.mode in ("lock", "pmutex"):
    th = threading.Thread(target=holder, name="holder", daemon=True)
    th.start()

stall_times = []


def stall():
    t0 = time.perf_counter()
    if args.mode == "sleep":
        time.sleep(stall_s)
    elif args.mode == "lock":
        held.clear()
        go.set()
        held.wait()
        with py_lock:
            pass
    elif args.mode == "pmutex":
        held.clear()
        go.set()
        held.wait()
        libc.pthread_mutex_lock(mutex)
        libc.pthread_mutex_unlock(mutex)
    elif args.mode == "trim":
        libc.malloc_trim(0)
    stall_times.append(time.perf_counter() - t0)


def work():
    for _ in range(args.matmuls):
        c = a @ b
        torch.relu_(c)
    torch.cuda.synchronize()


work()   # warm-up (cuBLAS handles, kernels loaded)
torch.cuda.synchronize()


def loop():
    for _ in range(args.iters):
        torch.cuda.nvtx.range_push("iter")
        work()
        stall()
        torch.cuda.nvtx.range_pop()


t0 = time.perf_counter()
loop()
wall = time.perf_counter() - t0
if prof is not None:
    prof.__exit__(None, None, None)
    prof.export_chrome_trace(args.profile)
done.set()
go.set()
for p in blocks:
    libc.free(p)
st = sorted(stall_times)
print(json.dumps({"mode": args.mode, "iters": args.iters, "matmuls": args.matmuls, "n": args.n,
                  "wall_s": round(wall, 4), "stall_ms_median": round(1000 * st[len(st) // 2], 3) if st else 0,
                  "stall_ms_total": round(1000 * sum(st), 3), "torch": torch.__version__,
                  "profile": args.profile}))
