#!/usr/bin/env bash
# Issue 33, third device call: level 1's multiplications by Karatsuba (the
# knob msm_kmul) against the defaults, in ONE call of <= 5 minutes (budget
# 280 s of steps), prepared in a session without a device:
#
#   OUT=dir scripts/gpu-issue33c.sh BIN_DIR
#
# BIN_DIR: a build folder's gapscope and test/all, built on the workstation
# with  make -j2 BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1
# HAVE_GMP=0 HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all  and
# carried (as for gpu-issue33b.sh; cuda_attach_kernels is skipped).
#
# The lever (bench/RESULTS.md, "Issue 33: the accumulation pass, prepared"):
#   msm_kmul=1  the G1 level-1 madd's eight multiplications by one level of
#               Karatsuba on six-word halves and a separate Montgomery
#               reduction (cu_field_kara.cuh): 252 IMAD.WIDE products per
#               multiplication instead of 288, the same values; built for
#               msm_minb 2 and 3.  Level N, the reduction, G2 and GLV plans
#               keep their kernels.
#
#  1. the CUDA tests with the defaults (a failure stops the call), then
#     the lever's: the Fp field test with the knob on (the lazy
#     multiplication against the CPU, inputs lifted to [p, 2p)), the MSM and
#     prove tests of test_cuda_levers.c (_kmul_vs), and the MSM / prove
#     tests with GS_CU_MSM_KMUL=1 (--quick): a failure leaves it out;
#  2. G1 MSM: 2^20 checked against the CPU under every set, 2^24 and 2^26
#     without copies, 2^24 with 16 copies, medians of 5;
#  3. prove 2^24 (SRS resident, G2 on the device, direct staging), medians
#     of 5; the field chains (rates of the lazy multiplication);
#  4. the table (scripts/gpu_issue33c_table.py).
# Out ($OUT): log.txt (the table at its end) and msm24, msm26, msmcp,
# prove24 .json.
# call_init, step, tmo, bench, gtest, env_step, default_tests
. "$(cd "$(dirname "$0")" && pwd)/gpu_steps.sh"
call_init "${1:?usage: gpu-issue33c.sh BIN_DIR}" /tmp/issue33c-out 280
failed() { [ "$1" -ne 124 ] && [ "$1" -ne 0 ]; }

env_step
default_tests "$(tmo 100)" --skip _ba_ --skip _glv_ --skip h_first --skip combo --skip _seg_ --skip _kmul_
step "1b lever msm_kmul: field (the lazy multiplication), MSM and prove tests"
OK=1
GS_CU_MSM_KMUL=1 gtest "$(tmo 20)" --only cuda_field_fp_ops || OK=0
if [ $OK = 1 ]; then
    gtest "$(tmo 60)" --only _kmul_vs
    rc=$?
    failed "$rc" && OK=0
fi
if [ $OK = 1 ]; then
    GS_CU_MSM_KMUL=1 gtest "$(tmo 40)" --quick --only cuda_msm_vs_cpu --only cuda_msm_prepared \
        --only cuda_prove_vs_cpu
    rc=$?
    failed "$rc" && OK=0
fi
[ $OK = 1 ] && echo "lever msm_kmul: tests passed" || echo "lever msm_kmul: tests FAILED, left out"

SETS="default"
[ $OK = 1 ] && SETS="$SETS;msm_kmul=1;msm_kmul=1,msm_minb=2"
S2="default"
[ $OK = 1 ] && S2="$S2;msm_kmul=1"

step "2a G1 MSM 2^20 against the CPU under every set"
check20 "$(tmo 30)" "$SETS;msm_c=20,msm_kmul=1"
step "2b G1 MSM 2^24, no copies"
bench "$(tmo 30)" msm24 --msm 24 --reps 5 --sets "$SETS"
step "2c G1 MSM 2^26, no copies"
bench "$(tmo 45)" msm26 --msm 26 --reps 5 --sets "$S2"
step "2d G1 MSM 2^24, 16 precomputed copies (the prove's plan, c = 20)"
bench "$(tmo 25)" msmcp --msm 24 --copies 16 --reps 5 --sets "$SETS"
step "3a prove 2^24, SRS resident, G2 on the device, direct staging"
bench "$(tmo 45)" prove24 --prove 24 --staging direct --g2-device --reps 5 --sets "$S2"

step "3b field chains (G/s; fp_mul_lazy_kara: the lever's multiplication alone)"
t=$(tmo 20)
[ "$t" -gt 1 ] && timeout "$t" "$G" cuda-bench --field --reps 3 2>&1 | grep -E "^field|error"

step "4 table (medians, ms)"
D=$(cd "$(dirname "$0")" && pwd)
python3 "$D/gpu_issue33c_table.py" "$OUT" || grep -hE "median|device .* ms" "$OUT/log.txt" | tail -40
step done
