#!/usr/bin/env python3
"""The table of scripts/gpu-issue33b.sh: issue 33's new defaults against the
old ones, and the bucket reduction's segment (msm_seg), from the call's
`gapscope cuda-bench --json` files.

  python3 scripts/gpu_issue33b_table.py OUT_DIR

Reads OUT_DIR/{msm24,msm26,msmcp,msmcp22,prove24,prove24c22,prove26,ntt}.json
(a missing or cut-short file is a '-', never an error).  The set
'msm_win=old' is the old defaults (the automatic window of G1 plans without
copies as before 2026-12-06); 'default' is the new.  msmcp22 / prove24c22
are their own processes (a window of 22 for the copies, msm_cmax=22 for the
prove's planner: both read when the copies are made) and are compared with
msmcp's / prove24's default row.  Reuses gpu_issue33_table.py's readers.
"""
import sys

from gpu_issue33_table import load, ntt_line, set_table, stage_table

COLUMNS = [
    ("msm 2^24", "msm24.json", r"cuda/msm_g1/24{set}$"),
    ("msm 2^26", "msm26.json", r"cuda/msm_g1/26{set}$"),
    ("msm 2^24 cp", "msmcp.json", r"cuda/msm_g1_c20t\d+/24{set}$"),
    ("cp c=22", "msmcp22.json", r"cuda/msm_g1_c22t\d+/24{set}$", "msmcp.json"),
    ("prove 2^24", "prove24.json", r"cuda/prove/24/direct{set}$"),
    ("p2^24 cmax22", "prove24c22.json", r"cuda/prove/24/direct{set}$", "prove24.json"),
    ("prove 2^26", "prove26.json", r"cuda/prove/26/direct{set}$"),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    files = load(sys.argv[1], COLUMNS)
    set_table("Table 1: median ms per knob set (change against the new default; "
              "msm_win=old = the old defaults)", COLUMNS, files, first="msm_win=old")
    stage_table(files["prove24.json"], "24", "new plans")
    stage_table(files["prove24c22.json"], "24", "msm_cmax=22")
    stage_table(files["prove26.json"], "26", "new plans")
    ntt_line(files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
