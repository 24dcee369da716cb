#!/usr/bin/env bash
# Issue 33, second device call: the new defaults against the old ones, and
# the bucket reduction's segment (msm_seg), in ONE call of <= 6 minutes
# (budget 330 s of steps), prepared in a session without a device:
#
#   OUT=dir scripts/gpu-issue33b.sh BIN_DIR
#
# BIN_DIR: a build folder's gapscope and test/all, built on the workstation
# with  make -j2 BUILD=build-h200 ARCH="-march=x86-64-v3 -madx" CUDA=1
# HAVE_GMP=0 HAVE_SQLITE=0 build-h200/gapscope build-h200/test/all  and
# carried (as for gpu-issue33.sh: no GMP, SQLite or libbenchmark there; the
# attach library is not carried, so cuda_attach_kernels is skipped).
#
# What changed since the first call (traces/h100-r3s3-issue33, bench/RESULTS.md
# "Issue 33 levers measured on an H100"):
#   default  G1 plans without copies take c = 20 from 2^24 points (was 16
#            up to 2^25, 18 from 2^26); the knob msm_win=old restores the old
#            table, so the set 'msm_win=old' is the old defaults.  The
#            prove's sets without copies (H at 2^26 on an 80 GB card) take
#            their window per proof, so the sets switch them in one process.
#   lever    msm_seg=N: the bucket reduction's running sums over N buckets
#            per thread (default 32): one jL double-and-add per N buckets.
#   (existing knobs, measured again) msm_glv=1 with c = 20 and with the
#            segment; c = 22 with 16 copies and msm_cmax=22 for the prove,
#            each in its own process (read when the copies are made).
#
#  1. the CUDA tests with the defaults (a failure stops the call), then
#     msm_seg's tests (test_cuda_levers.c) and the MSM / prove tests with
#     GS_CU_MSM_SEG=128 (--quick): a failure leaves msm_seg out;
#  2. G1 MSM: 2^20 checked against the CPU under every set, 2^24 and 2^26
#     without copies, 2^24 with 16 copies (c = 20, and c = 22 in its own
#     process), medians of 5;
#  3. proves (SRS resident, G2 on the device, direct staging), medians of 5:
#     2^24 (and 2^24 with msm_cmax=22, own process), 2^26 (msm_win=old last:
#     its c = 18 needs more sort scratch than the plan made at load_pk), NTT;
#  4. the table (scripts/gpu_issue33b_table.py).
# Out ($OUT): log.txt (the table at its end) and msm24, msm26, msmcp,
# msmcp22, prove24, prove24c22, prove26, ntt .json.  Each step has its own
# timeout inside $BUDGET seconds (default 330), so a call cut short keeps
# what was done.
# call_init, step, tmo (a step's timeout inside $BUDGET, KEEP s kept for the
# table), bench, gtest, env_step, default_tests
. "$(cd "$(dirname "$0")" && pwd)/gpu_steps.sh"
call_init "${1:?usage: gpu-issue33b.sh BIN_DIR}" /tmp/issue33b-out 330

env_step
default_tests "$(tmo 120)" --skip _ba_ --skip _glv_ --skip h_first --skip combo --skip _seg_ --skip _kmul_
step "1b lever msm_seg (and msm_win=old, msm_c=20 in whole proofs)"
OK_SEG=1
gtest "$(tmo 75)" --only _seg_vs
rc=$?
if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then OK_SEG=0; fi
if [ $OK_SEG = 1 ]; then
    GS_CU_MSM_SEG=128 gtest "$(tmo 45)" --quick --only cuda_msm_vs_cpu --only cuda_msm_prepared \
        --only cuda_prove_vs_cpu
    rc=$?
    if [ "$rc" -ne 124 ] && [ "$rc" -ne 0 ]; then OK_SEG=0; fi
fi
[ $OK_SEG = 1 ] && echo "lever msm_seg: tests passed" || echo "lever msm_seg: tests FAILED, left out"

# Knob sets ('msm_win=old' = the old defaults; a failed lever's sets dropped).
SEG=""
[ $OK_SEG = 1 ] && SEG=";msm_seg=64;msm_seg=128;msm_seg=256"
MSETS="msm_win=old;default$SEG;msm_glv=1,msm_c=20"
M26SETS="$MSETS"
[ $OK_SEG = 1 ] && M26SETS="$M26SETS;msm_c=22,msm_seg=128;msm_glv=1,msm_seg=128"
CSETS="default"
[ $OK_SEG = 1 ] && CSETS="$CSETS;msm_seg=16;msm_seg=64"
PSETS="default"
[ $OK_SEG = 1 ] && PSETS="$PSETS;msm_seg=16;msm_seg=64"
P26SETS="default"
[ $OK_SEG = 1 ] && P26SETS="$P26SETS;msm_seg=64;msm_seg=128"
P26SETS="$P26SETS;msm_win=old"

step "2a G1 MSM 2^20 against the CPU under every set (and c = 20, 22 with the segments)"
CHK="$M26SETS;msm_c=20"
[ $OK_SEG = 1 ] && CHK="$CHK;msm_c=20,msm_seg=128;msm_c=22,msm_seg=1024;msm_seg=16"
check20 "$(tmo 40)" "$CHK"
step "2b G1 MSM 2^24, no copies"
bench "$(tmo 30)" msm24 --msm 24 --reps 5 --sets "$MSETS"
step "2c G1 MSM 2^26, no copies"
bench "$(tmo 60)" msm26 --msm 26 --reps 5 --sets "$M26SETS"
step "2d G1 MSM 2^24, 16 precomputed copies (the prove's plan, c = 20)"
bench "$(tmo 25)" msmcp --msm 24 --copies 16 --reps 5 --sets "$CSETS"
step "2e G1 MSM 2^24, 16 copies, c = 22 (own process: the copies are made for c)"
bench "$(tmo 25)" msmcp22 --msm 24 --copies 16 --window 22 --reps 5 --sets "$CSETS"

step "3a prove 2^24, SRS resident, G2 on the device, direct staging"
bench "$(tmo 45)" prove24 --prove 24 --staging direct --g2-device --reps 5 --sets "$PSETS"
step "3b prove 2^24 with msm_cmax=22 (own process: the planner runs at load_pk)"
GS_CU_MSM_CMAX=22 bench "$(tmo 35)" prove24c22 --prove 24 --staging direct --g2-device --reps 5 --sets "$PSETS"
step "3c prove 2^26 (msm_win=old last)"
bench "$(tmo 80)" prove26 --prove 26 --staging direct --g2-device --reps 5 --sets "$P26SETS"
step "3d NTT 2^24 .. 2^27"
bench "$(tmo 20)" ntt --ntt 24:27 --reps 7

step "4 table (medians, ms)"
D=$(cd "$(dirname "$0")" && pwd)
python3 "$D/gpu_issue33b_table.py" "$OUT" || grep -hE "median|device .* ms" "$OUT/log.txt" | tail -40
step done
