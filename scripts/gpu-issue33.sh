#!/usr/bin/env bash
# Issue 33's levers checked and measured in ONE device call (<= 9 minutes on
# the H200; on a card under ~120 GiB the 2^27 partition is left out),
# prepared in a session without a device:
#
#   OUT=dir scripts/gpu-issue33.sh BIN_DIR
#
# BIN_DIR: a build folder's gapscope and test/all, built on the workstation
# with  make BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1 HAVE_GMP=0
# HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all  and carried (the
# device has no GMP, SQLite or libbenchmark; the attach library is not
# carried, so cuda_attach_kernels is skipped).
#
# Every lever is a knob (prover/cuda/knobs.h), default off, so one binary
# A/Bs them all; cuda-bench --sets runs each measurement once per knob set
# on the same inputs (a prove's key is built and made resident once):
#   msm_glv=1    G1 MSMs without copies split scalars by the endomorphism
#   msm_ba=1     level 1 by batch-affine pairs (chunks msm_s1, auto 1024;
#                msm_minb 2 or 3 picks the register budget)
#   h_first=1    a diagnostic: the witness MSMs after the H chain
#   msm_c=C      the window of plans without copies (the automatic one was
#                measured before the flat level 1 existed)
#
#  1. the CUDA tests with the defaults (a failure stops the call), then per
#     lever, in its own process, its tests (test_cuda_levers.c: every
#     setting inside) and the MSM and prove tests again with the lever
#     forced by its environment variable (--quick): a lever whose tests fail
#     is left out of the measurements;
#  2. G1 MSM, no precomputed copies: 2^20 checked against the CPU under
#     every set, 2^24 and 2^26 medians of 5; 2^24 with 16 copies (the
#     prove's path);
#  3. whole proves, SRS resident, G2 on the device, direct staging, medians
#     of 5 with the per-stage table: 2^24, 2^26, then the NTT, then the 2^27
#     partition with a 90% 0/1 witness;
#  4. the table (scripts/gpu_issue33_table.py), last.
# Out ($OUT, 8 files): log.txt (everything, the table at its end), msm24,
# msm26, msmcp, ntt, prove24, prove26, p27 .json (cuda-bench's Google
# Benchmark JSON; bench/compare A.json B.json compares two calls).  Each step
# has its own timeout inside a budget of $BUDGET seconds (default 520), so a
# call cut short keeps what was done (the log has every finished line).
set -u
B=${1:?usage: gpu-issue33.sh BIN_DIR}
OUT=${OUT:-/tmp/issue33-out}
BUDGET=${BUDGET:-520}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
KEEP=25
G=$B/gapscope
T=$B/test/all
# step, tmo (a step's timeout inside $BUDGET, KEEP s kept for the table), bench
. "$(cd "$(dirname "$0")" && pwd)/gpu_steps.sh"

step env
nvidia-smi -L
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nproc
"$G" version || exit 1
MEM=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1 | tr -dc 0-9)
MEM=${MEM:-0}

step "1a cuda tests, defaults"
GS_REQUIRE_GPU=1 GS_BIN=$G timeout "$(tmo 200)" "$T" --only cuda --skip cuda_attach_kernels --skip _ba_ \
    --skip _glv_ --skip h_first --skip combo 2>&1 | grep -E "FAIL|passed"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 124 ]; then
    echo "(the tests were cut short at their timeout: measuring anyway, the table is unchecked)"
elif [ "$rc" -ne 0 ]; then
    step "the default CUDA tests failed: no measurements (fix first)"
    exit 1
fi
# One lever's tests, each in its own process (a lever that faults the device
# takes only its own verdict): its tests (every setting inside), then, with
# its environment variable given, the MSM and prove tests again (--quick).
lever_tests() { # NAME FILTER [VAR=VALUE]: 0 when they pass (or ran out of time)
    local name=$1 filter=$2 rc
    shift 2
    GS_REQUIRE_GPU=1 GS_BIN=$G timeout "$(tmo 90)" "$T" --only "$filter" 2>&1 | grep -E "FAIL|passed"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then
        echo "lever $name: its tests FAILED, left out of the measurements"
        return 1
    fi
    if [ $# -gt 0 ]; then
        env "$@" GS_REQUIRE_GPU=1 GS_BIN=$G timeout "$(tmo 60)" "$T" --quick --only cuda_msm_vs_cpu \
            --only cuda_msm_prepared --only cuda_prove_vs_cpu 2>&1 | grep -E "FAIL|passed"
        rc=${PIPESTATUS[0]}
        if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then
            echo "lever $name: the MSM / prove tests with $* FAILED, left out of the measurements"
            return 1
        fi
    fi
    echo "lever $name: tests passed"
}
OK_HF=0 OK_BA=0 OK_GLV=0 OK_BG=0
step "1b lever h_first"
lever_tests h_first h_first_vs && OK_HF=1
step "1c lever msm_ba"
lever_tests msm_ba _ba_vs GS_CU_MSM_BA=1 && OK_BA=1
step "1d lever msm_glv"
lever_tests msm_glv _glv_vs GS_CU_MSM_GLV=1 && OK_GLV=1
if [ $OK_BA = 1 ] && [ $OK_GLV = 1 ]; then
    step "1e msm_ba with msm_glv"
    lever_tests msm_ba+msm_glv combo_vs && OK_BG=1
fi

# Knob sets for the MSMs (a failed lever's sets dropped).
MSETS="default;msm_c=18;msm_c=20;msm_c=22"
[ $OK_GLV = 1 ] && MSETS="$MSETS;msm_glv=1;msm_glv=1,msm_c=22"
[ $OK_BA = 1 ] && MSETS="$MSETS;msm_ba=1;msm_ba=1,msm_minb=2;msm_ba=1,msm_s1=2048;msm_ba=1,msm_c=20"
[ $OK_BG = 1 ] && MSETS="$MSETS;msm_ba=1,msm_glv=1"
CSETS="default"
[ $OK_BA = 1 ] && CSETS="$CSETS;msm_ba=1;msm_ba=1,msm_minb=2"
PSETS="default"
[ $OK_HF = 1 ] && PSETS="$PSETS;h_first=1"
[ $OK_BA = 1 ] && PSETS="$PSETS;msm_ba=1;msm_ba=1,msm_minb=2"
# (GLV is left out at 2^27: its window is planned for all 2^27 scalars, c = 22,
# while 90% of them are 0/1 and skip the buckets: a plan for 10x fewer.)
QSETS="default"
[ $OK_BA = 1 ] && QSETS="$QSETS;msm_ba=1;msm_ba=1,msm_minb=2"

step "2a G1 MSM 2^20 against the CPU under every set"
check20 "$(tmo 60)" "$MSETS"
step "2b G1 MSM 2^24, no copies"
bench "$(tmo 50)" msm24 --msm 24 --reps 5 --sets "$MSETS"
step "2c G1 MSM 2^26, no copies"
bench "$(tmo 90)" msm26 --msm 26 --reps 5 --sets "$MSETS"
step "2d G1 MSM 2^24, 16 precomputed copies (the prove's plan)"
bench "$(tmo 45)" msmcp --msm 24 --copies 16 --reps 5 --sets "$CSETS"

step "3a prove 2^24, SRS resident, G2 on the device, direct staging"
bench "$(tmo 90)" prove24 --prove 24 --staging direct --g2-device --reps 5 --sets "$PSETS"
step "3b prove 2^26"
bench "$(tmo 150)" prove26 --prove 26 --staging direct --g2-device --reps 5 --sets "$PSETS"
step "3c NTT 2^24 .. 2^27 (defaults)"
bench "$(tmo 30)" ntt --ntt 24:27 --reps 7
if [ "$MEM" -ge 120000 ]; then
    step "3d the 2^27 partition, 90% 0/1 witness"
    bench "$(tmo 170)" p27 --prove 27 --bool 90 --staging direct --g2-device --reps 5 --sets "$QSETS"
else
    step "3d the 2^27 partition left out: ${MEM} MiB on this card (needs ~120 GiB)"
fi

step "4 table (medians, ms)"
D=$(cd "$(dirname "$0")" && pwd)
python3 "$D/gpu_issue33_table.py" "$OUT" || grep -hE "median|device .* ms" "$OUT/log.txt" | tail -40
step done
