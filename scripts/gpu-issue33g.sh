#!/usr/bin/env bash
# Issue 33: the batch-affine tree (msm_bat) checked and timed on the device
# (~3 minutes; round 3 sessions 16 and 17):
#
#   OUT=dir scripts/gpu-issue33g.sh BIN_DIR
#
#  1. cuda_msm_bat_vs_cpu, cuda_prove_bat_vs_cpu and cuda_msm_ba_vs_cpu against the CPU backend,
#     cuda_knobs_* (the knob table);
#  2. G1 MSM 2^22..2^24, ABAB in one process, medians of 5, over SETS
#     (default: XYZZ, the round in one kernel and in three, the three with
#     the earlier binary-Euclid inversion, msm_bat_inv=1, and msm_ba);
#  3. Nsight Compute (PROFILE; default: the split round's first two rounds,
#     forward, inversions, backward; the one-kernel round's first two; the
#     flat XYZZ level 1), one 2^22 MSM each, into ncu-NAME.txt;
#  4. 2^26, medians of 3, default against msm_bat=1 and 3.
set -u
B=${1:?usage: gpu-issue33g.sh BIN_DIR}
OUT=${OUT:-/tmp/issue33g-out}
SETS=${SETS:-"default;msm_bat=1;msm_bat=3;msm_bat=3,msm_bat_inv=1;msm_ba=1"}
mkdir -p "$OUT"
# cuda-bench takes 12 sets at most, and they run twice (ABAB).
if [ "$(tr ';' '\n' <<< "$SETS" | wc -l)" -gt 6 ]; then
    echo "gpu-issue33g.sh: SETS has more than 6 sets (cuda-bench --sets takes 12, and they run twice)" >&2
    exit 2
fi
G=$B/gapscope
T=$B/test/all
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi -L
GS_REQUIRE_GPU=1 GS_BIN=$G timeout 150 "$T" --only cuda_msm_bat_vs_cpu --only cuda_prove_bat_vs_cpu --only cuda_msm_ba_vs_cpu \
    --only cuda_knobs_table_defaults > "$OUT/tests.txt" 2>&1
grep -E "passed|failed|FAIL|differs" "$OUT/tests.txt" | head -8
timeout 170 "$G" cuda-bench --msm 22:24 --reps 5 --sets "$SETS;$SETS" > "$OUT/msm.txt" 2>&1
grep -E "msm_g1" "$OUT/msm.txt" | head -40
SECS="--section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats"
# PROFILE: NAME:KERNEL_REGEX:LAUNCHES:KNOB_SETTING entries separated by ';'
# (the knob as a cuda-bench flag: --msm-bat 3), one 2^22 MSM each.
PROFILE=${PROFILE:-"bat:k_bat:6:--msm-bat 3;bat1:k_bat:2:--msm-bat 1;flat:k_accum_flat:1:"}
IFS=';' read -ra PROF <<< "$PROFILE"
for e in "${PROF[@]}"; do
    IFS=':' read -r name re cnt knob <<< "$e"
    timeout 80 "$NCU" --kernel-name "regex:$re" --launch-count "$cnt" $SECS \
        "$G" cuda-bench --msm 22:22 --reps 1 $knob > "$OUT/ncu-$name.txt" 2>&1
    grep -E "^  [a-z].*k_|Duration|Avg. Active Threads|Compute \(SM\) Throughput|DRAM Throughput|Achieved Occupancy|Registers Per" \
        "$OUT/ncu-$name.txt" | head -30
done
timeout 80 "$G" cuda-bench --msm 26:26 --reps 3 --sets "default;msm_bat=1;msm_bat=3" > "$OUT/msm26.txt" 2>&1
grep -E "msm_g1" "$OUT/msm26.txt"
