#!/usr/bin/env python3
"""Synthetic large inputs for timing `gapscope import` (bench/RESULTS.md):

  python3 bench/gen_import_inputs.py DIR [ITERATIONS]
    DIR/kineto-300k.json   a Kineto-shaped trace: 100000 iterations of cpu_op +
                           cudaLaunchKernel + kernel (300001 events, ~64 MB);
                           ITERATIONS changes the count and the name
                           (500000: kineto-1500k.json, 1.5M events, ~323 MB)
    DIR/daemon-12k.log     a daemon log of 1200 jobs x 10 partitions on 2 workers
                           (TIMELINE, GPU_TIMING, FIN_TIMING, CUZK_TIMING lines, ~10.6 MB)
  python3 bench/gen_import_inputs.py --kineto-mb N DIR
    DIR/kineto-<N>mb.json  the same three-event iterations as kineto-300k.json,
                           written as it goes (one-space indent, as json.dump
                           with indent=1 writes it) until the file holds N MB
                           (issue 32: 1000 for the streaming import benchmark)
Deterministic: same output every time.
"""
import datetime as dt
import json
import os
import sys


def kineto(path, iterations=100000):
    ev = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": 11,
           "args": {"name": "thread 11 (python)"}}]
    t = 0.0
    for i in range(iterations):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 11,
                   "ts": round(t, 3), "dur": 8.0, "args": {"External id": i}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 11, "ts": round(t + 2, 3), "dur": 3.0,
                   "args": {"cbid": 211, "correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "void add_kernel<float>(float*)", "pid": 0,
                   "tid": 7, "ts": round(t + 6, 3), "dur": 5.5,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1, 1, 1]}})
        t += 12.5
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,
                   "traceEvents": ev}, f, indent=1)


def daemon(path):
    base = dt.datetime(2026, 1, 5, 10, 0, 0)

    def utc(ms):
        return (base + dt.timedelta(microseconds=int(ms * 1000))).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    lines, t = [], 0.0
    for j in range(1200):
        for p in range(10):
            w = (j * 10 + p) % 2
            lines += [
                (t, f"TIMELINE,{int(t)},SYNTH_START,{j},partition={p}"),
                (t + 30, f"TIMELINE,{int(t + 30)},SYNTH_END,{j},partition={p},synth_ms=30"),
                (t + 30, f"TIMELINE,{int(t + 30)},GPU_QUEUE,{j},partition={p}"),
                (t + 31, f"TIMELINE,{int(t + 31)},GPU_PICKUP,{j},worker={w},partition={p}"),
                (t + 33, f"{utc(t + 33)}  INFO e: GPU_TIMING hot_path pre-prove overhead worker_id={w} "
                         f"partition=Some({p}) status_ms=0.5 fail_check_ms=1 mark_busy_ms=0.5 "
                         f"total_overhead_ms=2"),
                (t + 33, f"TIMELINE,{int(t + 33)},GPU_START,{j},worker={w},partition={p}"),
                (t + 35, "CUZK_TIMING: pre_lock_cpu_ms=1.5 mutex_wait_ms=0.5"),
                (t + 45, "CUZK_TIMING: gpu_tid=0 tail_msm_ms=3 gpu_total_ms=10"),
                (t + 46, "CUZK_TIMING: mutex_held_ms=11 total_start_fn_ms=13"),
                (t + 46, f"TIMELINE,{int(t + 46)},GPU_END,{j},worker={w},partition={p},gpu_ms=13"),
                (t + 50, f"{utc(t + 49)}  INFO f: FIN_TIMING malloc_trim (success path) job_id={j} "
                         f"partition=Some({p}) malloc_trim_ms=2"),
                (t + 50, f"{utc(t + 50)}  INFO f: FIN_TIMING finalizer partition finish_ms=1 "
                         f"drop_res_ms=1 lock_wait_ms=0.1 process_ms=3 total_ms=5"),
            ]
            t += 15
    lines.sort(key=lambda x: x[0])
    with open(path, "w") as f:
        f.write("".join(l + "\n" for _, l in lines))


def kineto_big(path, mb):
    """Streams iterations in json.dump(indent=1)'s layout until mb * 10^6 bytes."""
    limit = mb * 1000 * 1000
    head = ('{\n "schemaVersion": 1,\n "baseTimeNanoseconds": 1700000000000000000,\n'
            ' "traceEvents": [\n  {\n   "name": "thread_name",\n   "ph": "M",\n   "pid": 1,\n'
            '   "tid": 11,\n   "args": {\n    "name": "thread 11 (python)"\n   }\n  }')
    it = (',\n  {{\n   "ph": "X",\n   "cat": "cpu_op",\n   "name": "aten::add",\n   "pid": 1,\n'
          '   "tid": 11,\n   "ts": {t0},\n   "dur": 8.0,\n   "args": {{\n    "External id": {i}\n'
          '   }}\n  }},\n  {{\n   "ph": "X",\n   "cat": "cuda_runtime",\n   "name": "cudaLaunchKernel",\n'
          '   "pid": 1,\n   "tid": 11,\n   "ts": {t1},\n   "dur": 3.0,\n   "args": {{\n    "cbid": 211,\n'
          '    "correlation": {c}\n   }}\n  }},\n  {{\n   "ph": "X",\n   "cat": "kernel",\n'
          '   "name": "void add_kernel<float>(float*)",\n   "pid": 0,\n   "tid": 7,\n   "ts": {t2},\n'
          '   "dur": 5.5,\n   "args": {{\n    "device": 0,\n    "stream": 7,\n    "correlation": {c},\n'
          '    "grid": [\n     1,\n     1,\n     1\n    ]\n   }}\n  }}')
    with open(path, "w") as f:
        f.write(head)
        n, i, buf = len(head), 0, []
        while n < limit:
            t = i * 12.5
            chunk = it.format(t0=repr(round(t, 3)), t1=repr(round(t + 2, 3)),
                              t2=repr(round(t + 6, 3)), i=i, c=i + 1)
            buf.append(chunk)
            n += len(chunk)
            i += 1
            if len(buf) == 10000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))
        f.write("\n ]\n}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--kineto-mb":
        os.makedirs(sys.argv[3], exist_ok=True)
        mb = int(sys.argv[2])
        kineto_big(os.path.join(sys.argv[3], "kineto-%dmb.json" % mb), mb)
        sys.exit(0)
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    os.makedirs(d, exist_ok=True)
    kineto(os.path.join(d, f"kineto-{3 * n // 1000}k.json"), n)
    daemon(os.path.join(d, "daemon-12k.log"))
