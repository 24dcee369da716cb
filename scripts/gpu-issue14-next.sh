#!/usr/bin/env bash
# Issue 14's next measurements in one device call (H200), prepared in a
# session that had no device (2026-12-05):
#
#   OUT=dir scripts/gpu-issue14-next.sh BIN_DIR
#
# BIN_DIR: a build folder's gapscope and test/all, built on the workstation
# with  make BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1 HAVE_GMP=0
# HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all  (the device has nvcc
# and gcc but no GMP, SQLite or libbenchmark).
#
#  1. the CUDA tests (the GPU layers against the CPU ones);
#  2. the NTT knobs re-swept at 2^24 and 2^27: the NTT kernels' registers
#     changed with the product-scanning multiply after the last sweep, and
#     2^24 is 4.627 ms against the issue's 4.5 (median of 7 each);
#  3. whole proves at 2^24 and 2^26 with the SRS resident, G2 on the host
#     (the CPU G2 MSM got the lazy-reduction Fp2 product since the last
#     H200 figures) and on the device; per-stage times, so msm_l / msm_a /
#     msm_b2 can be compared (msm_l was 502 ms against msm_a's 375 at 2^26);
#  4. G1 MSM 2^24..2^26 (the issue's table).
# Every step writes cuda-bench's Google Benchmark JSON under $OUT (compare two
# runs with bench/compare A.json B.json) and its table into $OUT/log.txt;
# each step has its own timeout, so a call cut short keeps what was done.
set -u
B=${1:?usage: gpu-issue14-next.sh BIN_DIR}
OUT=${OUT:-/tmp/issue14-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "=== $(date +%T) $*"; }
G=$B/gapscope
step env; nvidia-smi -L; nproc; "$G" version || exit 1

step "1 cuda tests"
GS_REQUIRE_GPU=1 GS_BIN=$G timeout 150 "$B/test/all" --only cuda 2>&1 |
    grep -E 'FAIL|passed' | tail -20

step "2 NTT knobs (default first), 2^24 | 2^27 medians in ms"
ntt() {   # env assignments -> one line
    local a b
    a=$(env "$@" timeout 30 "$G" cuda-bench --ntt 24:24 --reps 7 2>&1 |
        grep -oE "median +[0-9.]+" | grep -oE "[0-9.]+$")
    b=$(env "$@" timeout 60 "$G" cuda-bench --ntt 27:27 --reps 7 2>&1 |
        grep -oE "median +[0-9.]+" | grep -oE "[0-9.]+$")
    echo "${*:-default} | ${a:-?} | ${b:-?}"
}
ntt
for tile in 10 11 12; do for cols in 2 3 4; do for thr in 128 256; do
    ntt GS_CU_NTT_TILE=$tile GS_CU_NTT_COLS=$cols GS_CU_NTT_THREADS=$thr
done; done; done
for r4 in 0 1; do ntt GS_CU_NTT_R4=$r4; done

step "3 proves, SRS resident: G2 on the host, then on the device"
timeout 150 "$G" cuda-bench --prove 24:26 --staging pinned --reps 5 \
    --json "$OUT/prove-g2host.json" 2>&1 | tail -40
timeout 150 "$G" cuda-bench --prove 24:26 --staging pinned --reps 5 --g2-device \
    --json "$OUT/prove-g2dev.json" 2>&1 | tail -40

step "4 G1 MSM 2^24..2^26"
timeout 120 "$G" cuda-bench --msm 24:26 --reps 5 --json "$OUT/msm.json" 2>&1 | tail -12
step done
