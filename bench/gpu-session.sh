#!/usr/bin/env bash
# One device session on the H200 machine (issue 14): binaries, GPU tests,
# benchmarks, pipeline captures; everything under $OUT.
#
#   bench/gpu-session.sh STEP...
#
# STEP: tests flat ab msm copies sweep24 sweep26 baseprove prove24 prove26
#       wide p27 pipe bgsetup circuit ncu   (see the cases below)
#
# Binaries: carried ones in carry-bin/{new,base}/ (built here with
# ARCH="-march=x86-64-v3 -madx" HAVE_GMP=0) when they run on the machine,
# else built there (GS_NO_DEPS=1 make -j12 CUDA=1); base = the commit
# before the GPU work with cuda-bench --json (../base when not carried).
# At most 8 files come back from the machine, so everything but the
# session log goes into $OUT/bundle.tgz, refreshed after every step.
set -u
OUT=${OUT:-/tmp/gs-session}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
S=$OUT/session.log
B=/tmp/gs-bundle
mkdir -p "$B"
log() { echo "== $(date +%T) $*" | tee -a "$S"; }
bundle() { cp "$S" "$B/" 2>/dev/null; tar -czf "$OUT/bundle.tgz" -C "$B" . 2>/dev/null; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,memory.used --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt" >>"$S"

runs() { "$1" cuda-bench --reps 1 --ntt 10:10 >/dev/null 2>&1; }
NEW=carry-bin/new/gapscope
NEWT=carry-bin/new/all
if ! runs "$NEW"; then
    log "carried new binary does not run: building"
    GS_NO_DEPS=1 make -j12 CUDA=1 HAVE_GMP=0 BUILD=bn bn/gapscope bn/test/all >"$B/build-new.log" 2>&1 || { log "build failed"; tail -30 "$B/build-new.log"; bundle; exit 1; }
    NEW=bn/gapscope
    NEWT=bn/test/all
fi
BASE=carry-bin/base/gapscope
base_pid=
if ! runs "$BASE"; then
    if [ -d ../base ]; then
        log "building base in the background"
        (cd ../base && GS_NO_DEPS=1 make -j10 CUDA=1 HAVE_GMP=0 BUILD=bb bb/gapscope >"$B/build-base.log" 2>&1) &
        base_pid=$!
        BASE=../base/bb/gapscope
    else
        BASE=
    fi
fi
wait_base() { [ -n "$base_pid" ] && { wait "$base_pid"; log "base build rc=$?"; base_pid=; }; }

for step in "$@"; do
case $step in
bgsetup)
    log "porep_sha 2^20 setup in the background (CPU)"
    ("$NEW" setup --circuit porep_sha --log 20 --out /tmp/ps20 >"$B/setup20.log" 2>&1; echo "rc=$?" >>"$B/setup20.log") &
    setup_pid=$!
    ;;
circuit)
    [ -n "${setup_pid:-}" ] && wait "$setup_pid"
    tail -3 "$B/setup20.log" | tee -a "$S"
    log "porep_sha 2^20 proof on the GPU (G2 on the device), verified"
    for i in 1 2; do
        /usr/bin/time -f "prove wall %e s" "$NEW" prove --backend cuda --g2-device --trusted-key \
            /tmp/ps20/circuit.zkey /tmp/ps20/witness.wtns /tmp/ps20/proof.json /tmp/ps20/public.json 2>&1 | tail -3 | tee -a "$S"
    done
    "$NEW" verify /tmp/ps20/verification_key.json /tmp/ps20/public.json /tmp/ps20/proof.json 2>&1 | tee -a "$S"
    ;;
tests)
    log "GPU tests (new)"
    GS_REQUIRE_GPU=1 GS_BIN=$NEW "$NEWT" --only cuda --only engine_prep -v >"$B/tests.log" 2>&1
    log "tests rc=$? $(grep -E 'passed|failed' "$B/tests.log" | tail -1)"
    grep -E "FAIL" "$B/tests.log" | head -20 | tee -a "$S"
    GS_CU_MSM_FLAT=0 GS_REQUIRE_GPU=1 GS_BIN=$NEW "$NEWT" --only cuda_msm -v >"$B/tests-perbucket.log" 2>&1
    log "MSM tests, per-bucket level 1 (GS_CU_MSM_FLAT=0) rc=$? $(tail -1 "$B/tests-perbucket.log")"
    ;;
flat)
    log "MSM 2^20..2^26 without copies: flat level 1 (default); per bucket at 2^24"
    "$NEW" cuda-bench --msm 20:26 --reps 5 --json "$B/msm-flat.json" 2>&1 | grep msm_ | tee -a "$S"
    GS_CU_MSM_FLAT=0 "$NEW" cuda-bench --msm 24:24 --reps 5 --json "$B/msm-perbucket.json" 2>&1 | grep msm_ | tee -a "$S"
    ;;
ab)
    wait_base
    log "A/B: MSM 2^20..2^26, NTT 2^24, 2^27 (base, then new)"
    for v in base new; do
        b=$BASE; [ $v = new ] && b=$NEW
        [ -x "$b" ] || { log "no $v binary"; continue; }
        "$b" cuda-bench --msm 20:26 --ntt 24:24 --reps 5 --json "$B/msm-$v.json" >"$B/msm-$v.txt" 2>&1
        "$b" cuda-bench --ntt 27:27 --reps 5 --json "$B/ntt27-$v.json" >>"$B/msm-$v.txt" 2>&1
        log "$v done"
    done
    ;;
msm)
    log "G1 level-1 variants (new, 2^24 with 16 copies, c = 20; GS_CU_FV/MINB pairs, same process)"
    "$NEW" cuda-bench --msm 24:24 --copies 16 --window 20 --reps 5 \
        --variants "${GS_FV_VARIANTS:-127/2,127/3,127/4}" --json "$B/variants.json" 2>&1 | grep msm_ | tee -a "$S"
    ;;
copies|sweep24)
    log "copies at 2^24: window sweep, all copies"
    for c in ${GS_COPY_WINDOWS:-18 20 22}; do
        "$NEW" cuda-bench --msm 24:24 --copies 16 --window $c --reps 5 --json "$B/cp24-$c.json" 2>&1 | grep msm_ | tee -a "$S"
    done
    ;;
sweep26)
    log "copies at 2^26 (4 copies)"
    for c in ${GS_COPY26_WINDOWS:-20}; do
        "$NEW" cuda-bench --msm 26:26 --copies 4 --window $c --reps 3 --json "$B/cp26-$c.json" 2>&1 | grep msm_ | tee -a "$S"
    done
    ;;
baseprove)
    wait_base
    log "prove 2^24 (base)"
    "$BASE" cuda-bench --prove 24:24 --g2-device --reps 3 --json "$B/prove-base.json" >"$B/prove-base.txt" 2>&1
    grep -E "prove  2|stages" "$B/prove-base.txt" | head -4 | tee -a "$S"
    ;;
prove|prove24)
    log "prove 2^24: random witness, and 90% 0/1 (new, default plan)"
    "$NEW" cuda-bench --prove 24:24 --g2-device --reps 3 --json "$B/prove-new.json" >"$B/prove-new.txt" 2>&1
    grep -E "prove  2|stages" "$B/prove-new.txt" | tee -a "$S"
    "$NEW" cuda-bench --prove 24:24 --g2-device --reps 3 --bool 90 --staging pinned \
        --json "$B/prove-bool90.json" >"$B/prove-bool90.txt" 2>&1
    grep -E "prove  2|stages" "$B/prove-bool90.txt" | tee -a "$S"
    ;;
prove26)
    log "prove 2^26 random witness (new, pinned)"
    "$NEW" cuda-bench --prove 26:26 --g2-device --reps 2 --staging pinned --json "$B/prove26.json" >"$B/prove26.txt" 2>&1
    grep -E "prove  2|stages" "$B/prove26.txt" | tee -a "$S"
    ;;
wide)
    # Open since 2026-12-04 (fifth session): the prove with FV 127 and the
    # 128-entry level-1 chunks, and with the planner allowed the windows
    # above 20 that the standalone 2^26 MSM measured faster (it passes
    # wide = 0 to gs_cu_msm_pick; GS_CU_MSM_CMAX lifts the cap).
    log "prove 2^26 / 2^27 (90% 0/1): default plan vs GS_CU_MSM_CMAX=24 (direct)"
    for cm in 20 24; do
        GS_CU_MSM_CMAX=$cm "$NEW" cuda-bench --prove 26:26 --g2-device --reps 2 --staging direct \
            --json "$B/prove26-cmax$cm.json" >"$B/prove26-cmax$cm.txt" 2>&1
        grep -E "prove  2|stages" "$B/prove26-cmax$cm.txt" | tee -a "$S"
        GS_CU_MSM_CMAX=$cm "$NEW" cuda-bench --prove 27:27 --g2-device --reps 2 --bool 90 --staging direct \
            --json "$B/prove27-cmax$cm.json" >"$B/prove27-cmax$cm.txt" 2>&1
        grep -E "prove  2|stages" "$B/prove27-cmax$cm.txt" | tee -a "$S"
    done
    ;;
p27)
    log "2^27 partition: 90% 0/1 witness (porep_sha's share at 2^20), synthetic key, pinned"
    /usr/bin/time -v "$NEW" cuda-bench --prove 27:27 --g2-device --reps 2 --bool 90 --staging pinned \
        --json "$B/prove27.json" >"$B/prove27.txt" 2>&1
    log "p27 rc=$?"
    grep -E "prove  2|stages|Maximum resident|Elapsed|rror" "$B/prove27.txt" | tee -a "$S"
    ;;
pipe)
    for prep in ahead inline; do
        log "pipeline: backlog incident, g2 on device, prep $prep"
        rm -rf /tmp/pipe-$prep
        "$NEW" run scenarios/backlog-incident-gpu.ini --set engine.g2=device \
            --set engine.prep=$prep --out /tmp/pipe-$prep --no-report >"$B/pipe-$prep.log" 2>&1
        log "pipe rc=$?"
        tail -4 "$B/pipe-$prep.log" | tee -a "$S"
        mkdir -p "$B/pipe-$prep"
        cp -r /tmp/pipe-$prep/. "$B/pipe-$prep/" 2>/dev/null
        "$NEW" analyze /tmp/pipe-$prep >"$B/pipe-$prep/analyze.txt" 2>&1 || true
        head -8 "$B/pipe-$prep/analyze.txt" | tee -a "$S"
    done
    ;;
ncu)
    log "ncu: kernel times of one 2^24 MSM with copies (c = 20)"
    ncu --clock-control none --metrics gpu__time_duration.sum --csv \
        "$NEW" cuda-bench --msm 24:24 --copies 16 --window 20 --reps 1 >"$B/ncu.csv" 2>&1
    ;;
esac
bundle
done

log "summary"
for k in msm ntt27 prove; do
    [ -f "$B/$k-base.json" ] && [ -f "$B/$k-new.json" ] && python3 bench/compare "$B/$k-base.json" "$B/$k-new.json" | tee -a "$S"
done
bundle
exit 0
