#!/usr/bin/env bash
# Issue 33, round 3 session 16, second call: msm_bat after the R^3 fix
# (~4 minutes):
#
#   OUT=dir scripts/gpu-issue33g.sh BIN_DIR
#
#  1. cuda_msm_bat_vs_cpu and cuda_prove_bat_vs_cpu against the CPU backend;
#  (steps 2 and 3 run in the order 3, 2: the timings first)
#  2. Nsight Compute on the first two rounds of the split tree (msm_bat=3:
#     forward, inversions, backward) and on
#     the flat XYZZ level 1, one 2^22 MSM each (speed of light, occupancy,
#     memory, warp stalls) into ncu-bat.txt / ncu-flat.txt;
#  3. G1 MSM 2^22..2^24, default against msm_bat=1 (slabs of groups), ABAB,
#     medians of 5, the split round (msm_bat=3), one group a launch
#     (msm_bat_g=1) and Fermat's inversion; 2^26 default, 1 and 3.
set -u
B=${1:?usage: gpu-issue33g.sh BIN_DIR}
OUT=${OUT:-/tmp/issue33g-out}
mkdir -p "$OUT"
G=$B/gapscope
T=$B/test/all
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi -L
GS_REQUIRE_GPU=1 GS_BIN=$G timeout 100 "$T" --only cuda_msm_bat_vs_cpu --only cuda_prove_bat_vs_cpu \
    > "$OUT/tests.txt" 2>&1
grep -E "passed|failed|FAIL|differs" "$OUT/tests.txt" | head -8
timeout 80 "$G" cuda-bench --msm 22:24 --reps 5 --sets "default;msm_bat=1;msm_bat=3;default;msm_bat=1;msm_bat=3" \
    > "$OUT/msm.txt" 2>&1
grep -E "msm_g1" "$OUT/msm.txt" | head -30
SECS="--section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats"
timeout 80 "$NCU" --kernel-name regex:k_bat --launch-count 6 $SECS \
    "$G" cuda-bench --msm 22:22 --reps 1 --msm-bat 3 > "$OUT/ncu-bat.txt" 2>&1
timeout 45 "$NCU" --kernel-name regex:k_accum_flat --launch-count 1 $SECS \
    "$G" cuda-bench --msm 22:22 --reps 1 > "$OUT/ncu-flat.txt" 2>&1
grep -E "k_bat_|k_accum_flat|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per" \
    "$OUT/ncu-bat.txt" "$OUT/ncu-flat.txt" | head -40
timeout 60 "$G" cuda-bench --msm 26:26 --reps 3 --sets "default;msm_bat=1;msm_bat=3" > "$OUT/msm26.txt" 2>&1
grep -E "msm_g1" "$OUT/msm26.txt"
