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


def load(out, columns):
    """{file: medians} of the columns' files and ntt.json under out."""
    files = {c[1]: medians(os.path.join(out, c[1])) for c in columns}
    files["ntt.json"] = medians(os.path.join(out, "ntt.json"))
    return files


def set_table(title, columns, files, first="default"):
    """One row per knob set of the columns' files (`first` on top), one
    column per (header, file, pattern[, base file]): the median and its
    change against the default row of the base file (its own by default)."""
    tags = []
    for c in columns:
        for t in sets_of(files[c[1]]):
            if t not in tags:
                tags.append(t)
    for t in ("default", first):
        if t in tags:
            tags.remove(t)
            tags.insert(0, t)
    print(title)
    widths = [max(26, max((len(t) for t in tags), default=0))] + [max(15, len(c[0])) for c in columns]
    print("  ".join(h.ljust(w) for h, w in zip(["set"] + [c[0] for c in columns], widths)))
    for t in tags:
        row = [t]
        for c in columns:
            bf = c[3] if len(c) > 3 else c[1]
            base = find(files[bf], c[2], "default")
            v = find(files[c[1]], c[2], t)
            row.append(cell(v, base if (t != "default" or bf != c[1]) else None))
        print("  ".join(x.ljust(w) for x, w in zip(row, widths)))


def stage_table(recs, k, name, bl=""):
    """The prove stages per set of one prove file (k: its log size)."""
    if not recs:
        return
    print("\nTable 2: prove 2^%s%s stages, %s (median ms, stream spans)" % (k, bl, name))
    print("  ".join(s.ljust(10) for s in ["set".ljust(26)] + STAGES))
    for t in sets_of(recs):
        row = [t.ljust(26)]
        for s in STAGES:
            v = find(recs, r"cuda/prove/%s%s/direct/%s{set}$" % (k, bl, s), t)
            row.append("-" if v is None else "%.1f" % v)
        print("  ".join(c.ljust(10) for c in row))


def ntt_line(files):
    ntt = files["ntt.json"]
    if ntt:
        print("\nNTT (median ms): " + ", ".join("2^%s %.3f" % (n.rsplit("/", 1)[1], v)
                                               for n, v in sorted(ntt.items())))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    files = load(sys.argv[1], COLUMNS)
    set_table("Table 1: median ms per knob set (change against default)", COLUMNS, files)
    for k, f in (("24", "prove24.json"), ("26", "prove26.json"), ("27", "p27.json")):
        stage_table(files[f], k, f, "/bool90" if k == "27" else "")
    ntt_line(files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
