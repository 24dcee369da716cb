#!/usr/bin/env python3
"""Write the production daemon's log (shared/DOMAIN.md, "What a production
daemon's log holds") for a gapscope engine capture, so the truth behind the
log is known: `gapscope import` of the log can be checked against the native
analysis of the same spans.csv (CI: capture/import/test_import_daemon.c).

  python3 traces/gen/spans_to_daemon_log.py SPANS.csv [-o LOG] [--ansi]
      [--noise] [--base 2026-01-05T10:00:00Z]

What each line is made of (engine spans of timeline/SPANS.md; t0 = the first span
of the capture, the engine's start):
  TIMELINE,<ms>,SYNTH_START,<job>,partition=<p>          synth start
  TIMELINE,<ms>,SYNTH_END,<job>,partition=<p>,synth_ms=  synth end
  TIMELINE,<ms>,GPU_QUEUE,<job>,partition=<p>            pushed to the GPU queue
                                                         (synth end, or the end of a
                                                         queue_full_wait right after)
  TIMELINE,<ms>,GPU_PICKUP,<job>,worker=<w>,partition=<p>  status_check start
  <utc> INFO cuzk_core::engine: GPU_TIMING hot_path pre-prove overhead worker_id=
      partition=Some(p) status_ms= fail_check_ms= mark_busy_ms= total_overhead_ms=
                                                         at mark_busy end
  TIMELINE,<ms>,GPU_START,<job>,worker=<w>,partition=<p> the next worker step after
                                                         mark_busy (host_prep)
  CUZK_TIMING: pre_lock_cpu_ms= mutex_wait_ms=           at the device mutex
                                                         acquisition (pre_lock = GPU_START
                                                         to the wait)
  CUZK_TIMING: gpu_tid=<w> ntt_msm_h_ms=                 at msm_h's end
  CUZK_TIMING: gpu_tid=<w> tail_msm_ms= gpu_total_ms=    at the last device op of the
                                                         partition (gpu_total from the
                                                         acquisition)
  CUZK_TIMING: mutex_held_ms= total_start_fn_ms=         at prove_start's end
  CUZK_TIMING: b_g2_msm_ms= num_circuits=1               worker prove_finish (CPU G2 MSM
                                                         in the worker loop), at its end
  TIMELINE,<ms>,GPU_END,<job>,worker=<w>,partition=<p>,gpu_ms=
                                                         prove_start end (or that
                                                         prove_finish's end)
  <utc> INFO ... FIN_TIMING malloc_trim (success path) job_id= partition= malloc_trim_ms=
                                                         at a finalizer's malloc_trim end
  <utc> INFO ... FIN_TIMING finalizer partition finish_ms= drop_res_ms= lock_wait_ms=
      process_ms= total_ms=                              at the end of the finalizer's
                                                         process_result hold
A prep thread's lane (gpu_worker/<d>.<w>/prep, engine.prep = ahead) counts as
its worker's: pickup and hot_path come from its checks, GPU_START from its
host_prep, pre_lock_cpu_ms is its CPU steps and mutex_wait_ms the rest up to
the acquisition (as one prove_start doing its CPU prep, then waiting for the
GPU, prints them).  Zero-length steps (modelled captures) follow the step
they end, not nest in it.
TIMELINE offsets are floored to the millisecond, tracing timestamps to the
microsecond, as the daemon prints them.  Lines are written in time order
(CUZK lines at their emission time, as their place in the stream).
--ansi colours the tracing lines as a terminal would; --noise adds unrelated
log lines.  Deterministic: same input, same output.
"""
import argparse
import csv
import datetime as dt
import io
import sys

MS = 1_000_000


def read_spans(path):
    lanes, rows = {}, []
    with open(path, newline="") as f:
        text = f.read()
    body = []
    for line in text.splitlines(keepends=True):
        if line.startswith("# lane "):
            lid, role, dev, stream, name = line[7:].rstrip("\n").split(",", 4)
            lanes[int(lid)] = dict(role=role, device=int(dev), name=name)
        elif not line.startswith("#"):
            body.append(line)
    for r in csv.DictReader(io.StringIO("".join(body))):
        rows.append(dict(start=int(r["start_ns"]), end=int(r["end_ns"]), lane=int(r["lane"]),
                         kind=r["kind"], name=r["name"], job=int(r["job"]), part=int(r["part"]),
                         holder=int(r["holder"]), args=r["args"]))
    rows.sort(key=lambda s: (s["start"], s["end"], s["lane"]))
    return lanes, rows


def ms3(ns):
    return f"{ns / 1e6:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spans")
    ap.add_argument("-o", "--out")
    ap.add_argument("--ansi", action="store_true")
    ap.add_argument("--noise", action="store_true")
    ap.add_argument("--base", default="2026-01-05T10:00:00Z")
    a = ap.parse_args()
    lanes, rows = read_spans(a.spans)
    t0 = min(s["start"] for s in rows if s["kind"] not in ("counter", "mark"))
    base = dt.datetime.fromisoformat(a.base.replace("Z", "+00:00"))
    out = []  # (t_ns, seq, text)

    def emit(t, text):
        out.append((t, len(out), text))

    def timeline(t, event, job, detail):
        emit(t, f"TIMELINE,{(t - t0) // MS},{event},{job},{detail}")

    def tracing(t, target, msg, fields):
        us = (t - t0) // 1000
        ts = (base + dt.timedelta(microseconds=us)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        kv = " ".join(f"{k}={v}" for k, v in fields)
        if a.ansi:
            kv = " ".join(f"\x1b[3m{k}\x1b[0m\x1b[2m=\x1b[0m{v}" for k, v in fields)
            emit(t, f"\x1b[2m{ts}\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2m{target}\x1b[0m\x1b[2m:\x1b[0m {msg} {kv}")
        else:
            emit(t, f"{ts}  INFO {target}: {msg} {kv}")

    by_lane = {}
    for s in rows:
        by_lane.setdefault(s["lane"], []).append(s)

    # Synthesis.
    for lid, L in lanes.items():
        if L["role"] != "synth":
            continue
        spans = by_lane.get(lid, [])
        for i, s in enumerate(spans):
            if s["name"] != "synth" or s["kind"] != "step" or s["job"] < 0:
                continue
            p = f"partition={s['part']}"
            timeline(s["start"], "SYNTH_START", s["job"], p)
            timeline(s["end"], "SYNTH_END", s["job"], f"{p},synth_ms={(s['end'] - s['start']) // MS}")
            q = s["end"]
            for n in spans[i + 1:i + 3]:
                if n["name"] == "queue_full_wait" and n["start"] - s["end"] < MS:
                    q = n["end"]
                    break
            timeline(q, "GPU_QUEUE", s["job"], p)

    # Device operations per (job, part).
    dev_ops = {}
    for s in rows:
        L = lanes[s["lane"]]
        if L["role"] == "device" and s["kind"] in ("kernel", "copy") and s["job"] >= 0:
            dev_ops.setdefault((s["job"], s["part"]), []).append(s)

    # GPU workers.  With engine.prep = ahead a worker's prep thread has its
    # own lane, gpu_worker/<d>.<w>/prep, running status_check .. host_prep of
    # the next partition: its steps count as the worker's (the daemon logs
    # pickup and hot_path from whichever thread takes the tracker lock).
    def outer_steps(lid):
        spans = [s for s in by_lane.get(lid, []) if s["kind"] in ("step", "lock_wait", "lock_hold")]
        outer = []  # outer steps of the loop (not nested in prove_start)
        for s in spans:
            if s["kind"] != "step":
                continue
            # Nested: inside the last outer step (a zero-length step at its
            # end, as modelled captures have, follows it instead).
            if (outer and s["end"] <= outer[-1]["end"] and s["start"] >= outer[-1]["start"]
                    and s["start"] < outer[-1]["end"]):
                continue
            outer.append(s)
        return spans, outer

    by_name = {L["name"]: lid for lid, L in lanes.items()}
    for lid, L in lanes.items():
        if L["role"] != "gpu_worker" or L["name"].endswith("/prep"):
            continue
        w = int(L["name"].rsplit(".", 1)[1]) if "." in L["name"] else 0
        spans, outer = outer_steps(lid)
        prep_lid = by_name.get(L["name"] + "/prep")
        prep = outer_steps(prep_lid)[1] if prep_lid is not None else []
        for i, s in enumerate(outer):
            if s["name"] != "prove_start" or s["job"] < 0:
                continue
            job, part = s["job"], s["part"]
            mine = [o for o in outer[:i] if o["job"] == job and o["part"] == part]
            if prep:
                mine = sorted(mine + [o for o in prep if o["job"] == job and o["part"] == part
                                      and o["start"] < s["start"]],
                              key=lambda o: (o["start"], o["end"]))
            st = next((o for o in mine if o["name"] == "status_check"), None)
            fc = next((o for o in mine if o["name"] == "fail_check"), None)
            mb = next((o for o in mine if o["name"] == "mark_busy"), None)
            after_mb = [o for o in mine if mb and o["start"] >= mb["end"]]
            gpu_start = after_mb[0]["start"] if after_mb else s["start"]
            pd = f"partition={part}"
            if st:
                timeline(st["start"], "GPU_PICKUP", job, f"worker={w},{pd}")
            if st and fc and mb:
                tracing(mb["end"], "cuzk_core::engine", "GPU_TIMING hot_path pre-prove overhead",
                        [("worker_id", w), ("partition", f"Some({part})"),
                         ("status_ms", ms3(st["end"] - st["start"])),
                         ("fail_check_ms", ms3(fc["end"] - fc["start"])),
                         ("mark_busy_ms", ms3(mb["end"] - mb["start"])),
                         ("total_overhead_ms", ms3(mb["end"] - st["start"]))])
            timeline(gpu_start, "GPU_START", job, f"worker={w},{pd}")
            inner = [x for x in spans if x["start"] >= s["start"] and x["end"] <= s["end"]]
            dm = next((x for x in inner if x["kind"] == "lock_wait" and x["name"] == "device_mutex"),
                      None)
            acq = dm["end"] if dm else s["start"]
            if dm:
                # Prep ahead: the CPU part is the prep thread's steps; the
                # rest up to the acquisition (the prepared partition waiting
                # for the worker) is the wait, as one prove_start doing its
                # CPU prep and then waiting for the GPU would print it.
                cpu_end = max((o["end"] for o in after_mb if o in prep), default=dm["start"])
                cpu_end = min(cpu_end, dm["start"])
                emit(dm["end"], f"CUZK_TIMING: pre_lock_cpu_ms={ms3(cpu_end - gpu_start)} "
                                f"mutex_wait_ms={ms3(dm['end'] - cpu_end)}")
            ops = dev_ops.get((job, part), [])
            if ops:
                last = max(o["end"] for o in ops)
                h = [o for o in ops if o["name"] == "msm_h"]
                nh = (h[0]["end"] - acq) if h else 0
                if h:
                    emit(h[0]["end"], f"CUZK_TIMING: gpu_tid={w} ntt_msm_h_ms={ms3(nh)}")
                emit(last, f"CUZK_TIMING: gpu_tid={w} tail_msm_ms={ms3(last - acq - nh)} "
                           f"gpu_total_ms={ms3(last - acq)}")
            emit(s["end"], f"CUZK_TIMING: mutex_held_ms={ms3(s['end'] - acq)} "
                           f"total_start_fn_ms={ms3(s['end'] - gpu_start)}")
            end = s["end"]
            nxt = outer[i + 1] if i + 1 < len(outer) else None
            if nxt and nxt["name"] == "prove_finish" and nxt["job"] == job and nxt["part"] == part:
                emit(nxt["end"], f"CUZK_TIMING: b_g2_msm_ms={ms3(nxt['end'] - nxt['start'])} "
                                 f"num_circuits=1")
                end = nxt["end"]
            tracing(end, "cuzk_core::engine", "GPU_TIMING prove_start returned",
                    [("total_pre_prove_ms", ms3(gpu_start - (st["start"] if st else gpu_start))),
                     ("spawn_blocking_wall_ms", ms3(end - gpu_start))])
            timeline(end, "GPU_END", job, f"worker={w},{pd},gpu_ms={(end - gpu_start) // MS}")

    # Finalizers.
    for lid, L in lanes.items():
        if L["role"] != "finalizer":
            continue
        spans = by_lane.get(lid, [])
        for s in spans:
            if s["kind"] == "step" and s["name"] == "malloc_trim":
                tracing(s["end"], "cuzk_core::finalizer", "FIN_TIMING malloc_trim (success path)",
                        [("job_id", s["job"]), ("partition", f"Some({s['part']})"),
                         ("malloc_trim_ms", ms3(s["end"] - s["start"]))])
        for h in spans:
            if h["kind"] != "lock_hold" or h["name"] != "tracker" or "what=process_result" not in h["args"]:
                continue
            key = (h["job"], h["part"])
            mine = [x for x in spans if (x["job"], x["part"]) == key and x["end"] <= h["start"]]
            pf = [x for x in mine if x["kind"] == "step" and x["name"] == "prove_finish"]
            br = [x for x in mine if x["kind"] == "step" and x["name"] == "buffer_release"]
            lw = [x for x in mine if x["kind"] == "lock_wait" and x["name"] == "tracker"]
            first = min([x["start"] for x in pf + br + lw] + [h["start"]])
            tracing(h["end"], "cuzk_core::finalizer", "FIN_TIMING finalizer partition",
                    [("finish_ms", ms3(sum(x["end"] - x["start"] for x in pf[-1:]))),
                     ("drop_res_ms", ms3(sum(x["end"] - x["start"] for x in br[-1:]))),
                     ("lock_wait_ms", ms3(sum(x["end"] - x["start"] for x in lw[-1:]))),
                     ("process_ms", ms3(h["end"] - h["start"])),
                     ("total_ms", ms3(h["end"] - first))])

    if a.noise:
        for k, (t, _, _) in enumerate(sorted(out)[::7]):
            emit(t, f"[cuzk] heartbeat {k}: queue ok")
        emit(t0, "cuzk daemon starting, config /etc/cuzk.toml")

    out.sort()
    text = "".join(line + "\n" for _, _, line in out)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
