#!/usr/bin/env python3
"""Compare a native gapscope timeline with an attach capture of the same run.

    scripts/attach_compare.py NATIVE/spans.csv ATTACH/spans.csv

Both files are spans.csv (timeline/README.md).  Prints JSON: per timeline the
device util (|kernels U copies| / [first op start, last op end], the
definition of diag/analysis.h) and op counts; per native stage name (ntt,
msm_h, h2d, ...) the number of native stage spans and of attach device
operations whose midpoint falls inside one of them (kernels for KERNEL
stages, copies for COPY stages), and the min/max per stage execution.
`gapscope analyze` remains the authority for util and causes; this script
only lines the two captures up stage by stage (they share CLOCK_MONOTONIC).
"""
import bisect
import csv
import json
import sys


def load(path):
    lanes, spans = {}, []
    with open(path, newline="") as f:
        rows = []
        for line in f:
            if line.startswith("# lane "):
                lid, role, dev, stream, name = line[7:].rstrip("\n").split(",", 4)
                lanes[int(lid)] = (role, int(dev), name)
            elif not line.startswith("#"):
                rows.append(line)
    for r in csv.DictReader(rows):
        spans.append((int(r["start_ns"]), int(r["end_ns"]), int(r["lane"]), r["kind"], r["name"]))
    return lanes, spans


def device_ops(lanes, spans):
    return [s for s in spans if lanes[s[2]][0] == "device" and s[3] in ("kernel", "copy")]


def util(ops):
    if not ops:
        return 0.0, 0
    iv = sorted((s[0], s[1]) for s in ops)
    busy, cs, ce = 0, iv[0][0], iv[0][1]
    for a, b in iv[1:]:
        if a > ce:
            busy += ce - cs
            cs, ce = a, b
        else:
            ce = max(ce, b)
    busy += ce - cs
    span = max(s[1] for s in ops) - min(s[0] for s in ops)
    return busy / span if span > 0 else 0.0, span


def main():
    nl, ns = load(sys.argv[1])
    al, asp = load(sys.argv[2])
    nops, aops = device_ops(nl, ns), device_ops(al, asp)
    nu, nspan = util(nops)
    au, aspan = util(aops)
    # attach util inside the native device span (the native timeline records
    # only the prove stages: load_pk's uploads during setup are outside it)
    n0, n1 = min(s[0] for s in nops), max(s[1] for s in nops)
    inside = [(max(s[0], n0), min(s[1], n1)) + s[2:] for s in aops if s[1] > n0 and s[0] < n1]
    wu, _ = util(inside + [(n0, n0, 0, "kernel", ""), (n1, n1, 0, "kernel", "")])
    # attach ops sorted by midpoint
    amid = sorted(((s[0] + s[1]) // 2, s[3]) for s in aops)
    keys = [m for m, _ in amid]
    stages = {}
    for s in sorted(nops):
        lo, hi = bisect.bisect_left(keys, s[0]), bisect.bisect_right(keys, s[1])
        k = sum(1 for _, kind in amid[lo:hi] if kind == s[3])
        st = stages.setdefault(s[4], {"kind": s[3], "native_spans": 0, "attach_ops": 0,
                                      "per_span_min": None, "per_span_max": 0, "spans_without_ops": 0})
        st["native_spans"] += 1
        st["attach_ops"] += k
        st["per_span_min"] = k if st["per_span_min"] is None else min(st["per_span_min"], k)
        st["per_span_max"] = max(st["per_span_max"], k)
        st["spans_without_ops"] += k == 0
    print(json.dumps({"native": {"util": round(nu, 5), "span_s": nspan / 1e9, "ops": len(nops)},
                      "attach": {"util": round(au, 5), "span_s": aspan / 1e9, "ops": len(aops),
                                 "kernels": sum(1 for s in aops if s[3] == "kernel")},
                      "attach_in_native_span": {"util": round(wu, 5), "ops": len(inside)},
                      "util_diff_points": round(100 * (au - nu), 3),
                      "util_diff_points_in_native_span": round(100 * (wu - nu), 3),
                      "stages": stages}, indent=1))


if __name__ == "__main__":
    main()
