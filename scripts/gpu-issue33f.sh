#!/usr/bin/env bash
# Issue 33, round 3 session 16: the batch-affine tree (msm_bat) in ONE
# device call (~6 minutes):
#
#   OUT=dir scripts/gpu-issue33f.sh BIN_DIR
#
# BIN_DIR as for gpu-issue33e.sh (gapscope and test/all built with CUDA=1
# on the workstation, stripped, carried).
#  1. correctness against the CPU backend: cuda_msm_bat_vs_cpu (every
#     scalar kind, 8/16/32 items per thread, copies, skips, forced windows,
#     GLV) and cuda_prove_bat_vs_cpu (proofs equal to the CPU's, verified);
#     the session-15 G2 loop (cuda_msm_prepared) too;
#  2. G1 MSM 2^20..2^24 without copies, default against msm_bat=1, ABAB in
#     one process, medians of 5; then 16 and 64 items per thread, Fermat's
#     inversion (msm_bat=2) and GLV;
#  3. if msm_bat passed: the 2^24 prove (G2 on the device) ABAB, and the
#     2^26 MSM pair.
set -u
B=${1:?usage: gpu-issue33f.sh BIN_DIR}
OUT=${OUT:-/tmp/issue33f-out}
mkdir -p "$OUT"
G=$B/gapscope
T=$B/test/all
{ nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version,power.limit --format=csv
  "$G" version; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt" | head -3
OK=0
GS_REQUIRE_GPU=1 GS_BIN=$G timeout 200 "$T" --only cuda_msm_bat_vs_cpu --only cuda_prove_bat_vs_cpu \
    --only cuda_msm_prepared > "$OUT/tests.txt" 2>&1 && OK=1
grep -E "passed|failed|FAIL|differs" "$OUT/tests.txt" | head -12
timeout 150 "$G" cuda-bench --msm 20:24 --reps 5 \
    --sets "default;msm_bat=1;default;msm_bat=1;msm_bat=1,msm_bat_s=16;msm_bat=1,msm_bat_s=64;msm_bat=2;msm_glv=1;msm_glv=1,msm_bat=1" \
    > "$OUT/msm.txt" 2>&1
grep -E "2\^2[24]|msm.*24" "$OUT/msm.txt" | head -40
if [ $OK = 1 ]; then
    timeout 120 "$G" cuda-bench --prove 24:24 --g2-device --staging pinned --reps 5 \
        --sets "default;msm_bat=1;default;msm_bat=1" > "$OUT/prove24.txt" 2>&1
    grep -E "plan after|total|@" "$OUT/prove24.txt" | head -30
    timeout 100 "$G" cuda-bench --msm 26:26 --reps 3 --sets "default;msm_bat=1" > "$OUT/msm26.txt" 2>&1
    tail -6 "$OUT/msm26.txt"
fi
