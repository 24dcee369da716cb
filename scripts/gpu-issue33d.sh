#!/usr/bin/env bash
# Issue 33, fourth device call: level 1's lazy multiplications on the FP64
# pipe (the knob msm_fmul) against the defaults, in ONE call of <= 5 minutes
# (budget 280 s of steps), prepared in a session without a device:
#
#   OUT=dir scripts/gpu-issue33d.sh BIN_DIR
#
# BIN_DIR: a build folder's gapscope and test/all, built on the workstation
# with  make -j2 BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1
# HAVE_GMP=0 HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all  and
# carried (no GMP, no SQLite needed on the device; cuda_attach_kernels is
# skipped).
#
# The lever (bench/RESULTS.md, "Issue 33: msm_fmul, the FP64-pipe
# multiplication, prepared"):
#   msm_fmul=1  the G1 level-1 madd's eight lazy multiplications on the
#               FP64 pipe (cu_field_f64.h: 8 limbs of 48 bits in doubles,
#               products split exactly by two FMAs, product-scanning
#               Montgomery reduction; the same output words as fe_mul_lz);
#   msm_fmul=2  of each of the madd's four independent pairs of lazy
#               multiplications, one on the integer pipe and one on the
#               FP64 pipe, in one out-of-line body;
#   both built for msm_minb 2 and 3.  The squarings, level N, the reduction,
#   G2 and GLV plans keep their kernels.
#
#  1. the CUDA tests with the defaults (a failure stops the call), then
#     the lever's: the Fp field test with the knob on (the FP64 lazy
#     multiplication against the CPU, inputs lifted to [p, 2p)), the MSM
#     and prove tests of test_cuda_levers.c (_fmul_vs), and the MSM / prove
#     tests with GS_CU_MSM_FMUL=1 and =2 (--quick): a failure leaves the
#     lever out;
#  2. G1 MSM: 2^20 checked against the CPU under every set, 2^24 and 2^26
#     without copies, 2^24 with 16 copies, medians of 5;
#  3. prove 2^24 (SRS resident, G2 on the device, direct staging), medians
#     of 5; the field chains (rates of the lazy multiplications);
#  4. the table (scripts/gpu_issue33d_table.py).
# Out ($OUT): log.txt (the table at its end) and msm24, msm26, msmcp,
# prove24, field .json.
# call_init, step, tmo, bench, gtest, env_step, default_tests
. "$(cd "$(dirname "$0")" && pwd)/gpu_steps.sh"
call_init "${1:?usage: gpu-issue33d.sh BIN_DIR}" /tmp/issue33d-out 280
failed() { [ "$1" -ne 124 ] && [ "$1" -ne 0 ]; }

env_step
default_tests "$(tmo 90)" --skip _ba_ --skip _glv_ --skip h_first --skip combo --skip _seg_ --skip _kmul_ \
    --skip _fmul_
step "1b lever msm_fmul: field (the FP64 lazy multiplication), MSM and prove tests"
OK=1
GS_CU_MSM_FMUL=1 gtest "$(tmo 20)" --only cuda_field_fp_ops || OK=0
if [ $OK = 1 ]; then
    gtest "$(tmo 80)" --only _fmul_vs
    rc=$?
    failed "$rc" && OK=0
fi
for f in 1 2; do
    [ $OK = 1 ] || break
    GS_CU_MSM_FMUL=$f gtest "$(tmo 30)" --quick --only cuda_msm_vs_cpu --only cuda_msm_prepared \
        --only cuda_prove_vs_cpu
    rc=$?
    failed "$rc" && OK=0
done
[ $OK = 1 ] && echo "lever msm_fmul: tests passed" || echo "lever msm_fmul: tests FAILED, left out"

SETS="default"
[ $OK = 1 ] && SETS="$SETS;msm_fmul=1;msm_fmul=1,msm_minb=2;msm_fmul=2;msm_fmul=2,msm_minb=2"

step "2a G1 MSM 2^20 against the CPU under every set"
check20 "$(tmo 30)" "$SETS"
step "2b G1 MSM 2^24, no copies"
bench "$(tmo 35)" msm24 --msm 24 --reps 5 --sets "$SETS"
step "2c G1 MSM 2^26, no copies"
bench "$(tmo 60)" msm26 --msm 26 --reps 5 --sets "$SETS"
step "2d G1 MSM 2^24, 16 precomputed copies (the prove's plan, c = 20)"
bench "$(tmo 30)" msmcp --msm 24 --copies 16 --reps 5 --sets "$SETS"
step "3a prove 2^24, SRS resident, G2 on the device, direct staging"
bench "$(tmo 60)" prove24 --prove 24 --staging direct --g2-device --reps 5 --sets "$SETS"

step "3b field chains (G/s; fp_mul_lazy_f64: msm_fmul=1's multiplication alone; fp_mul_lazy_mix: an integer and an FP64 chain side by side)"
bench "$(tmo 20)" field --field --reps 3 | grep -E "^field|error"

step "4 table (medians, ms)"
D=$(cd "$(dirname "$0")" && pwd)
python3 "$D/gpu_issue33d_table.py" "$OUT" || grep -hE "median|device .* ms" "$OUT/log.txt" | tail -40
step done
