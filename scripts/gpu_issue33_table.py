#!/usr/bin/env python3
"""The table of scripts/gpu-issue33.sh: issue 33's levers against the
defaults, from the call's `gapscope cuda-bench --json` files.

  python3 scripts/gpu_issue33_table.py OUT_DIR

Reads OUT_DIR/{msm24,msm26,msmcp,ntt,prove24,prove26,p27}.json (a missing
or cut-short file is a '-' in the table, never an error).  Records are named
by cuda-bench: cuda/msm_g1/24@SET, cuda/msm_g1_c20t13/24@SET,
cuda/ntt/24, cuda/prove/24/direct@SET, cuda/prove/24/direct/msm_l@SET,
cuda/prove/27/bool90/direct@SET; the value is each record's median (ms).

Table 1: one row per knob set (the --sets of the call), one column per
measurement: median ms and the change against the 'default' row.
Table 2: the prove stages per set (msm_l, msm_a, msm_b1, msm_h, msm_b2, ntt:
the spans on their streams; msm_l includes the NTT work that runs beside
it unless h_first).  Then the NTT medians.
"""
import json
import os
import re
import sys

COLUMNS = [
    # (header, file, record pattern: {set} is '@SET' or '' for default)
    ("msm 2^24", "msm24.json", r"cuda/msm_g1/24{set}$"),
    ("msm 2^26", "msm26.json", r"cuda/msm_g1/26{set}$"),
    ("msm 2^24 cp", "msmcp.json", r"cuda/msm_g1_c\d+t\d+/24{set}$"),
    ("prove 2^24", "prove24.json", r"cuda/prove/24/direct{set}$"),
    ("prove 2^26", "prove26.json", r"cuda/prove/26/direct{set}$"),
    ("p27 90%bool", "p27.json", r"cuda/prove/27/bool90/direct{set}$"),
]
STAGES = ["msm_l", "msm_a", "msm_b1", "msm_h", "msm_b2", "ntt", "h2d_w", "prep_w"]


def medians(path):
    """{run_name: median} of one cuda-bench JSON, {} when unreadable."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
            out[b.get("run_name", b["name"])] = b["real_time"]
    return out


def sets_of(recs):
    """The set tags in order of first appearance ('default' for untagged)."""
    seen = []
    for name in recs:
        tag = name.split("@", 1)[1] if "@" in name else "default"
        if tag not in seen:
            seen.append(tag)
    return seen


def find(recs, pattern, tag):
    at = "" if tag == "default" and not any("@" in n for n in recs) else "@" + re.escape(tag)
    rx = re.compile(pattern.format(set=at))
    for name, v in recs.items():
        if rx.search(name):
            return v
    return None


def cell(v, base):
    if v is None:
        return "-"
    if base is None or base == 0 or v is base:
        return "%.1f" % v
    return "%.1f %+.1f%%" % (v, 100.0 * (v - base) / base)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    files = {f: medians(os.path.join(out, f)) for _, f, _ in COLUMNS}
    files["ntt.json"] = medians(os.path.join(out, "ntt.json"))
    tags = []
    for _, f, _ in COLUMNS:
        for t in sets_of(files[f]):
            if t not in tags:
                tags.append(t)
    if "default" in tags:
        tags.remove("default")
        tags.insert(0, "default")
    print("Table 1: median ms per knob set (change against default)")
    widths = [max(26, max((len(t) for t in tags), default=0))] + [max(15, len(h)) for h, _, _ in COLUMNS]
    print("  ".join(h.ljust(w) for h, w in zip(["set"] + [h for h, _, _ in COLUMNS], widths)))
    for t in tags:
        row = [t]
        for h, f, pat in COLUMNS:
            base = find(files[f], pat, "default")
            row.append(cell(find(files[f], pat, t), base if t != "default" else None))
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    for k, f in (("24", "prove24.json"), ("26", "prove26.json"), ("27", "p27.json")):
        recs = files[f]
        if not recs:
            continue
        bl = "/bool90" if k == "27" else ""
        print("\nTable 2: prove 2^%s%s stages (median ms, stream spans)" % (k, bl))
        print("  ".join(s.ljust(10) for s in ["set".ljust(26)] + STAGES))
        for t in sets_of(recs):
            row = [t.ljust(26)]
            for s in STAGES:
                v = find(recs, r"cuda/prove/%s%s/direct/%s{set}$" % (k, bl, s), t)
                row.append("-" if v is None else "%.1f" % v)
            print("  ".join(c.ljust(10) for c in row))
    ntt = files["ntt.json"]
    if ntt:
        print("\nNTT (median ms): " + ", ".join("2^%s %.3f" % (n.rsplit("/", 1)[1], v)
                                               for n, v in sorted(ntt.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
