#!/usr/bin/env python3
"""The table of scripts/gpu-issue33d.sh: level 1's lazy multiplications on
the FP64 pipe (the knob msm_fmul) against the defaults, from the call's
`gapscope cuda-bench --json` files.

  python3 scripts/gpu_issue33d_table.py OUT_DIR

Reads OUT_DIR/{msm24,msm26,msmcp,prove24,field}.json (a missing or cut-short
file is a '-', never an error).  Reuses gpu_issue33_table.py's readers and
gpu_issue33c_table.py's columns.
Table 3: the field chains' rates (G mul/s = 1 / the median ns per
operation of the chip) of the lazy multiplications.
"""
import os
import sys

from gpu_issue33_table import load, medians, set_table, stage_table
from gpu_issue33c_table import COLUMNS  # the same four medians as the kmul call
CHAINS = [
    ("fp_mul_lazy", "integer, product scanning (the default)"),
    ("fp_mul_lazy_f64", "FP64 pipe (msm_fmul=1)"),
    ("fp_mul_lazy_mix", "integer + FP64 chains side by side (msm_fmul=2)"),
    ("fp_mul_lazy_kara", "Karatsuba (msm_kmul=1)"),
    ("fp_sqr_lazy", "lazy squaring (integer)"),
]


def field_table(path):
    recs = medians(path)
    if not recs:
        return
    print("\nTable 3: field chains, G mul/s (median)")
    base = recs.get("cuda/field/fp_mul_lazy")
    for name, what in CHAINS:
        ns = recs.get("cuda/field/" + name)
        if not ns:
            print("  %-18s %-50s -" % (name, what))
            continue
        g = 1.0 / ns
        rel = "" if not base or name == "fp_mul_lazy" else " (%+.1f%%)" % (100.0 * (base / ns - 1.0))
        print("  %-18s %-50s %.2f%s" % (name, what, g, rel))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    files = load(sys.argv[1], COLUMNS)
    set_table("Table 1: median ms per knob set (change against the default)", COLUMNS, files)
    stage_table(files["prove24.json"], "24", "default and the msm_fmul sets")
    field_table(os.path.join(sys.argv[1], "field.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
