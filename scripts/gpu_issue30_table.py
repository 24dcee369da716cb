#!/usr/bin/env python3
"""The table of scripts/gpu-issue30.sh: for each outside-shaped program of
test/foreign/gpu, its own ground truth against what `gapscope attach` said.

  python3 scripts/gpu_issue30_table.py OUT_DIR [--json FILE]

Reads, per program NAME (the list below), OUT_DIR/NAME.bare.txt and
OUT_DIR/NAME.attach.txt (the program's stdout without and with attach: the
GROUND_TRUTH line) and OUT_DIR/NAME/summary.json (attach's analysis).  A
missing file is a '-' in the table, never an error.

Per program:
  truth       the program's measured wait in the attached run (the same run
              attach captured) and in the bare run
  top cause   attach's verdict: cause, family, share of the idle time (for
              pageable_copy the kernel-level view's, whose question it is)
  family idle attach's idle seconds in the expected family, and its ratio
              to the truth (issue 30 asks for 0.90..1.10)
  holder      what the waker/holder did: the verdict's wake-up chain when
              summary.json has one, else the activity the cause names
  ok          top family as expected, ratio within 10%, holder as expected
"""
import json
import os
import sys

# name, truth key, expected family, expected holder activity ("" none), view
PROGRAMS = [
    ("futex_trim", "wait_s", "tracker_lock", "malloc_trim", "gpu"),
    ("gil_wait", "gil_wait_s", "gil_wait", "", "gpu"),
    ("trim_ctypes", "trim_s", "malloc_trim", "", "gpu"),
    ("trim_dlsym", "trim_s", "malloc_trim", "", "gpu"),
    ("pageable_copy", "kernel_idle_s", "h2d_pageable", "", "kernels"),
    ("pageable_copy_pinned", "kernel_idle_s", "", "", "kernels"),
    ("tokio_daemon", "wait_s", "tracker_lock", "malloc_trim", "gpu"),
]


def truth(path):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("GROUND_TRUTH "):
                    return json.loads(line[len("GROUND_TRUTH "):])
    except (OSError, ValueError):
        pass
    return None


def summary(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def family_idle(view, family):
    for fam in view.get("families") or []:
        if fam.get("family") == family:
            return fam.get("idle_s") or 0.0
    return 0.0


def holder_of(verdict):
    chain = verdict.get("chain")
    if chain:
        return chain
    cause = verdict.get("cause") or ""
    return cause.split("/", 1)[1] if "/" in cause else "-"


def row(out, name, key, family, holder, view_name):
    r = {"program": name, "truth_key": key, "expect_family": family or "-",
         "expect_holder": holder or "-", "view": view_name}
    ta, tb = truth(os.path.join(out, name + ".attach.txt")), truth(os.path.join(out, name + ".bare.txt"))
    r["truth_attached"] = ta.get(key) if ta else None
    r["truth_bare"] = tb.get(key) if tb else None
    r["wall_attached"] = ta.get("wall_s") if ta else None
    r["wall_bare"] = tb.get("wall_s") if tb else None
    s = summary(os.path.join(out, name, "summary.json"))
    if not s:
        r["ok"] = None
        return r
    view = s.get("kernel_view") if view_name == "kernels" else s
    if view is None:   # a build without the kernel-level view
        view, r["view"] = s, "gpu (no kernel_view in summary.json)"
    v = view.get("verdict") or {}
    r["util"], r["util_kernels_only"] = s.get("util"), s.get("util_kernels_only")
    r["idle_s"] = view.get("idle_s")
    r["top_cause"], r["top_family"], r["share"] = v.get("cause"), v.get("family"), v.get("share")
    r["holder"] = holder_of(v)
    r["family_idle_s"] = family_idle(view, family) if family else None
    t = r["truth_attached"]
    r["ratio"] = r["family_idle_s"] / t if family and t else None
    checks = []
    if family:
        checks.append(r["top_family"] == family)
        checks.append(r["ratio"] is not None and 0.9 <= r["ratio"] <= 1.1)
    if holder:
        checks.append(holder in (r["holder"] or ""))
    r["ok"] = all(checks) if checks else None
    return r


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    out = sys.argv[1]
    rows = [row(out, *p) for p in PROGRAMS]
    head = ("program", "truth (attached / bare)", "view", "top cause [family] share",
            "expected family: attach idle (ratio)", "util / kernels", "holder", "ok")
    lines = [head]
    for r in rows:
        lines.append((
            r["program"],
            f"{r['truth_key']}={fmt(r['truth_attached'], '.3f')} / {fmt(r['truth_bare'], '.3f')}",
            r["view"].split(" ")[0],
            f"{r.get('top_cause') or '-'} [{r.get('top_family') or '-'}] {fmt(r.get('share'), '.0%')}",
            f"{r['expect_family']}: {fmt(r.get('family_idle_s'), '.3f')} ({fmt(r.get('ratio'), '.2f')})",
            f"{fmt(r.get('util'), '.1%')} / {fmt(r.get('util_kernels_only'), '.1%')}",
            (r.get("holder") or "-")[:90],
            {True: "yes", False: "NO", None: "-"}[r["ok"]],
        ))
    width = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    for k, l in enumerate(lines):
        print(" | ".join(str(c).ljust(width[i]) for i, c in enumerate(l)).rstrip())
        if k == 0:
            print("-+-".join("-" * w for w in width))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
