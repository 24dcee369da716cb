"""Shared by the Python programs of test/foreign/gpu (gil_wait.py,
trim_ctypes.py): the GPU work, the device's own account of its idle time,
a fragmented malloc heap through ctypes, and the ground-truth line.  Like
the C programs beside it, nothing here knows gapscope.

GpuWork(kernel_ms, cpu_only)
    One matrix product per call of run(), sized at start so that it takes
    about kernel_ms on this GPU (float32, torch.mm into a preallocated
    output: one cuBLAS kernel).  Each run() is bracketed by CUDA events, so
    the GPU's clock says how long the products took and how long the GPU
    sat between them.  With cpu_only, torch is never imported: run() sleeps
    kernel_ms in sync() instead (time.sleep releases the GIL as a CUDA
    synchronize does).
FragHeap(mib)
    8 KiB blocks from libc's malloc, every other one freed; dirty() takes the
    holes again, writes one byte per page and frees them, so the next
    malloc_trim(0) has resident free pages to return.
ground_truth(program, **fields)
    prints GROUND_TRUTH {"program": ..., ...} (one JSON line).
arg_parser(iters, kernel_ms)
    the options every program takes: --cpu-only, --iters, --kernel-ms.
"""
import argparse
import ctypes
import json
import math
import time


class GpuWork:
    def __init__(self, kernel_ms, cpu_only):
        self.cpu_only = cpu_only
        self.kernel_ms = kernel_ms
        self.events = []          # (start, end) per run()
        self.deadline = 0.0
        if cpu_only:
            return
        import torch
        self.torch = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        n = 2048
        for _ in range(4):        # n^3 scales the time: a few rounds settle it
            t = self._time_mm(n)
            n = int(min(16384, max(256, n * (kernel_ms / max(t, 1e-3)) ** (1 / 3))) // 256 * 256)
        self.n = n
        self.a = torch.randn(n, n, device="cuda")
        self.b = torch.randn(n, n, device="cuda")
        self.c = torch.empty(n, n, device="cuda")
        self.mm_ms = self._time_mm(n)

    def _time_mm(self, n):
        torch = self.torch
        a = torch.randn(n, n, device="cuda")
        c = torch.empty(n, n, device="cuda")
        torch.mm(a, a, out=c)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(3):
            torch.mm(a, a, out=c)
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / 3

    def run(self):
        """Launches one product (asynchronous)."""
        if self.cpu_only:
            self.deadline = time.perf_counter() + self.kernel_ms * 1e-3
            return
        torch = self.torch
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.mm(self.a, self.b, out=self.c)
        e.record()
        self.events.append((s, e))

    def sync(self):
        """Waits for the GPU (the GIL is released meanwhile)."""
        if self.cpu_only:
            time.sleep(max(0.0, self.deadline - time.perf_counter()))
            return
        self.torch.cuda.synchronize()

    def account(self, first, last):
        """The GPU's own account of runs first..last (inclusive): (span_s
        from the first start event to the last end event, [each run's time
        from its start to its end event]).  A run's time is its product's
        plus whatever kept the launch after the start event (a GIL wait)."""
        if self.cpu_only or last < first:
            return 0.0, []
        ev = self.events
        span = ev[first][0].elapsed_time(ev[last][1]) * 1e-3
        return span, [s.elapsed_time(e) * 1e-3 for s, e in ev[first:last + 1]]


class FragHeap:
    BLOCK = 8192

    def __init__(self, mib):
        self.libc = ctypes.CDLL(None)
        self.libc.malloc.restype = ctypes.c_void_p
        self.libc.malloc.argtypes = [ctypes.c_size_t]
        self.libc.free.argtypes = [ctypes.c_void_p]
        n = int(mib * 1024 // 8)
        self.blocks = [self.libc.malloc(self.BLOCK) for _ in range(n)]
        for i in range(0, n, 2):
            self.libc.free(self.blocks[i])
            self.blocks[i] = None

    def dirty(self):
        libc, holes = self.libc, range(0, len(self.blocks), 2)
        for i in holes:
            p = libc.malloc(self.BLOCK)
            ctypes.memset(p, 1, self.BLOCK) if p else None
            self.blocks[i] = p
        for i in holes:
            libc.free(self.blocks[i])
            self.blocks[i] = None


def ground_truth(program, **fields):
    out = {"program": program}
    for k, v in fields.items():
        out[k] = round(v, 6) if isinstance(v, float) and math.isfinite(v) else v
    print("GROUND_TRUTH " + json.dumps(out, separators=(",", ":")), flush=True)


def arg_parser(iters, kernel_ms):
    """An ArgumentParser with the options every program takes (their
    defaults given); the program adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--iters", type=int, default=iters)
    ap.add_argument("--kernel-ms", type=float, default=kernel_ms)
    return ap
