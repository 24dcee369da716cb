#!/usr/bin/env bash
# One device session on the H200 machine (issue 14): binaries, GPU tests,
# and the A/B benchmarks, every log and JSON under $OUT.
#
#   bench/gpu-session.sh STEP...      STEP: bgsetup tests ab msm copies prove prove26 pipe
#                                           circuit ncu
#
# Binaries: carried ones in carry-bin/{new,base}/ (built here with
# ARCH="-march=x86-64-v3 -madx" HAVE_GMP=0) when they run on the machine,
# else built there (GS_NO_DEPS=1 make -j12 CUDA=1); base = the tree in
# ../base (the commit before the GPU work, with cuda-bench --json), built
# in the background while the tests run.  The last lines printed are a
# short summary (bench/compare of base vs new).
set -u
OUT=${OUT:-/tmp/gs-session}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
S=$OUT/session.log
log() { echo "== $(date +%T) $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,memory.used --format=csv >"$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt" >>"$S"

runs() { "$1" cuda-bench --reps 1 --ntt 10:10 >/dev/null 2>&1; }
NEW=carry-bin/new/gapscope
NEWT=carry-bin/new/all
if ! runs "$NEW"; then
    log "carried new binary does not run: building"
    GS_NO_DEPS=1 make -j12 CUDA=1 HAVE_GMP=0 BUILD=bn bn/gapscope bn/test/all >"$OUT/build-new.log" 2>&1 || { log "build failed"; tail -30 "$OUT/build-new.log"; exit 1; }
    NEW=bn/gapscope
    NEWT=bn/test/all
fi
BASE=carry-bin/base/gapscope
base_pid=
if ! runs "$BASE"; then
    if [ -d ../base ]; then
        log "building base in the background"
        (cd ../base && GS_NO_DEPS=1 make -j10 CUDA=1 HAVE_GMP=0 BUILD=bb bb/gapscope >"$OUT/build-base.log" 2>&1) &
        base_pid=$!
        BASE=../base/bb/gapscope
    else
        BASE=
    fi
fi

for step in "$@"; do
case $step in
bgsetup)
    log "porep_sha 2^20 setup in the background (CPU)"
    ("$NEW" setup --circuit porep_sha --log 20 --out /tmp/ps20 >"$OUT/setup20.log" 2>&1; echo "rc=$?" >>"$OUT/setup20.log") &
    setup_pid=$!
    ;;
circuit)
    [ -n "${setup_pid:-}" ] && wait "$setup_pid"
    tail -3 "$OUT/setup20.log" | tee -a "$S"
    log "porep_sha 2^20 proof on the GPU (G2 on the device), verified"
    for i in 1 2; do
        /usr/bin/time -f "prove wall %e s" "$NEW" prove --backend cuda --g2-device --trusted-key \
            /tmp/ps20/circuit.zkey /tmp/ps20/witness.wtns /tmp/ps20/proof.json /tmp/ps20/public.json 2>&1 | tail -3 | tee -a "$S"
    done
    "$NEW" verify /tmp/ps20/verification_key.json /tmp/ps20/public.json /tmp/ps20/proof.json 2>&1 | tee -a "$S"
    ;;
tests)
    log "GPU tests (new)"
    GS_REQUIRE_GPU=1 GS_BIN=$NEW "$NEWT" --only cuda --only engine_prep -v >"$OUT/tests.log" 2>&1
    log "tests rc=$? $(grep -E 'passed|failed' "$OUT/tests.log" | tail -1)"
    grep -E "FAIL|fail" "$OUT/tests.log" | head -20 | tee -a "$S"
    ;;
ab)
    [ -n "$base_pid" ] && { wait "$base_pid"; log "base build rc=$?"; }
    log "A/B: MSM 2^20..2^26, NTT 2^24, 2^27 (base, then new)"
    for v in base new; do
        b=$BASE; [ $v = new ] && b=$NEW
        [ -x "$b" ] || { log "no $v binary"; continue; }
        "$b" cuda-bench --msm 20:26 --ntt 24:24 --reps 5 --json "$OUT/msm-$v.json" >"$OUT/msm-$v.txt" 2>&1
        "$b" cuda-bench --ntt 27:27 --reps 5 --json "$OUT/ntt27-$v.json" >>"$OUT/msm-$v.txt" 2>&1
        "$b" cuda-bench --prove 24:24 --g2-device --reps 3 --json "$OUT/prove-$v.json" >"$OUT/prove-$v.txt" 2>&1
        grep -E "prove  2|stages" "$OUT/prove-$v.txt" | head -4 | tee -a "$S"
        log "$v done"
    done
    ;;
msm)
    log "MSM accumulation variants (new, 2^24 and 2^26)"
    for var in ${GS_VARIANTS:-0 2}; do
        GS_CU_MSM_VARIANT=$var "$NEW" cuda-bench --msm 24:24 --reps 5 --json "$OUT/var$var.json" 2>&1 | grep msm_ | tee -a "$S"
    done
    ;;
copies)
    log "precomputed copies: window sweep at 2^24 (t = all windows) and 2^26"
    for c in ${GS_COPY_WINDOWS:-20 22 24}; do
        "$NEW" cuda-bench --msm 24:24 --copies 16 --window $c --reps 5 --json "$OUT/cp24-$c.json" 2>&1 | grep msm_ | tee -a "$S"
    done
    for t in ${GS_COPIES26:-4}; do
        "$NEW" cuda-bench --msm 26:26 --copies $t --window 22 --reps 3 --json "$OUT/cp26-$t.json" 2>&1 | grep msm_ | tee -a "$S"
    done
    ;;
prove)
    log "prove 2^24: 92% 0/1 witness (new)"
    "$NEW" cuda-bench --prove 24:24 --g2-device --reps 2 --bool 92 --json "$OUT/prove-bool90.json" >"$OUT/prove-bool90.txt" 2>&1
    grep -E "prove|stages" "$OUT/prove-bool90.txt" | tee -a "$S"
    ;;
prove26)
    log "prove 2^25, 2^26 (new)"
    "$NEW" cuda-bench --prove 25:26 --g2-device --reps 2 --json "$OUT/prove26.json" >"$OUT/prove26.txt" 2>&1
    grep -E "prove|stages" "$OUT/prove26.txt" | tee -a "$S"
    ;;
pipe)
    log "pipeline: backlog incident, g2 on device, prep ahead"
    rm -rf /tmp/pipe
    /usr/bin/time -v "$NEW" run scenarios/backlog-incident-gpu.ini --set engine.g2=device \
        --set engine.prep=ahead --out /tmp/pipe --no-report >"$OUT/pipe.log" 2>&1
    log "pipe rc=$?"
    tail -5 "$OUT/pipe.log" | tee -a "$S"
    mkdir -p "$OUT/pipe"
    cp /tmp/pipe/spans.csv /tmp/pipe/jobs.csv /tmp/pipe/scenario.ini "$OUT/pipe/" 2>/dev/null
    ;;
ncu)
    log "ncu: kernel times of one 2^24 MSM (new)"
    ncu --clock-control none --metrics gpu__time_duration.sum --csv "$NEW" cuda-bench --msm 24:24 --reps 1 \
        >"$OUT/ncu.csv" 2>&1
    ;;
esac
done

log "summary"
for k in msm ntt27 prove; do
    [ -f "$OUT/$k-base.json" ] && [ -f "$OUT/$k-new.json" ] && python3 bench/compare "$OUT/$k-base.json" "$OUT/$k-new.json" | tee -a "$S"
done
grep -h "msm_g1\|ntt \|prove  2" "$OUT"/msm-new.txt "$OUT"/prove-new.txt 2>/dev/null | tail -20
exit 0
