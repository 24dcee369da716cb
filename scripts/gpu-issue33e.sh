#!/usr/bin/env bash
# Issue 33, round 3 session 15, in ONE device call (~5 minutes):
#
#   OUT=dir scripts/gpu-issue33e.sh BIN_DIR
#
# BIN_DIR: gapscope and test/all built on the workstation with
#   make BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1 HAVE_GMP=0 \
#        HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all
# and carried (stripped).
#  1. correctness against the CPU backend: the proves (every proof checked
#     by the verifier and against the CPU prover), the prepared MSMs (G1
#     plans c = 22 t = 6 / 12; G2 with copies, new) and the G2 MSM, under
#     the planned windows, then every plan forced to c = 22 and to c = 20;
#  2. the 2^24 prove with G2 on the device, B2 with its precomputed copies
#     (the default) against b2_copies = 1 (none), ABAB, medians of 5;
#  3. the NTT sweep of session 14's default (two stages per trip but 2^22)
#     against one stage, ABAB in one process;
#  4. on an H200 with time left, the 2^26 prove pair of step 2.
set -u
B=${1:?usage: gpu-issue33e.sh BIN_DIR}
OUT=${OUT:-/tmp/issue33e-out}
mkdir -p "$OUT"
G=$B/gapscope
T=$B/test/all
{ nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version,power.limit --format=csv
  lscpu | head -20; "$G" version; } > "$OUT/env.txt" 2>&1
for c in auto 22 20; do
    echo "== GS_CU_MSM_C=$c $(date +%T)"
    GS_CU_MSM_C=$c GS_REQUIRE_GPU=1 GS_BIN=$G "$T" --only cuda_prove --only cli_prove_cuda \
        --only cuda_msm_prepared --only cuda_msm_g2
done > "$OUT/tests.txt" 2>&1
grep -E "passed|failed|FAIL" "$OUT/tests.txt" | tail -6
for k in "" 1 "" 1; do
    echo "== b2_copies=${k:-default} $(date +%T)"
    env ${k:+GS_CU_B2_COPIES=$k} "$G" cuda-bench --prove 24:24 --g2-device --staging pinned --reps 5
done > "$OUT/prove24.txt" 2>&1
grep -E "==|plan after|total" "$OUT/prove24.txt"
"$G" cuda-bench --ntt 20:27 --reps 9 --sets "default;ntt_r4=0;default;ntt_r4=0" > "$OUT/ntt.txt" 2>&1
tail -4 "$OUT/ntt.txt"
# 4. with time left, on an H200 only (a 2^26 key with its copies fills most
#    of an H100), one 2^26 pair, medians of 3.
if [ "$SECONDS" -lt 300 ] && nvidia-smi -L | grep -q H200; then
    for k in "" 1; do
        echo "== b2_copies=${k:-default} $(date +%T)"
        env ${k:+GS_CU_B2_COPIES=$k} "$G" cuda-bench --prove 26:26 --g2-device --staging pinned --reps 3
    done > "$OUT/prove26.txt" 2>&1
    grep -E "==|plan after|total" "$OUT/prove26.txt"
fi
