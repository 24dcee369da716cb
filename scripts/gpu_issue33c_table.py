#!/usr/bin/env python3
"""The table of scripts/gpu-issue33c.sh: level 1's Karatsuba multiplication
(the knob msm_kmul) against the defaults, from the call's `gapscope
cuda-bench --json` files.

  python3 scripts/gpu_issue33c_table.py OUT_DIR

Reads OUT_DIR/{msm24,msm26,msmcp,prove24}.json (a missing or cut-short file
is a '-', never an error).  Reuses gpu_issue33_table.py's readers.
"""
import sys

from gpu_issue33_table import load, set_table, stage_table

COLUMNS = [
    ("msm 2^24", "msm24.json", r"cuda/msm_g1/24{set}$"),
    ("msm 2^26", "msm26.json", r"cuda/msm_g1/26{set}$"),
    ("msm 2^24 cp", "msmcp.json", r"cuda/msm_g1_c20t\d+/24{set}$"),
    ("prove 2^24", "prove24.json", r"cuda/prove/24/direct{set}$"),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    files = load(sys.argv[1], COLUMNS)
    set_table("Table 1: median ms per knob set (change against the default)", COLUMNS, files)
    stage_table(files["prove24.json"], "24", "default and msm_kmul=1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
