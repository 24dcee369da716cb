#!/usr/bin/env bash
# One device call that checks the merged tree on a GPU machine (H200):
#
#   OUT=dir scripts/gpu-final-check.sh BIN_DIR
#
#  1. make test-gpu's tests (the CUDA backend against the CPU layers, attach's
#     kernel capture) from binaries carried in BIN_DIR (a build folder's
#     gapscope, test/all, lib/libgsattach.so, test/gs-attach-probe), built with
#     ARCH="-march=x86-64-v3 -madx" HAVE_GMP=0 HAVE_SQLITE=0;
#  2. the pipeline target of issue 14: backlog-incident-gpu.ini (prep ahead)
#     with engine.g2 = device and 12 synthesis threads (6 no longer feed the
#     faster device work);
#  3. attach (issue 13): the PyTorch stall script in the two ctypes modes
#     (pthread mutex, malloc_trim) and the sleep mode under attach and under
#     torch.profiler over the whole job; our own prover under attach beside
#     its native timeline.
# Each step packs what it produced into $OUT/final.tgz (spans.csv,
# summary.json, jobs.csv, scenario.ini, attach-raw; no charts), so a call
# cut short still returns what was done; the log is $OUT/log.txt.
set -u
B=${1:?usage: gpu-final-check.sh BIN_DIR}
OUT=${OUT:-/tmp/final-out}
W=/tmp/gsfinal
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "=== $(date +%T) $*"; }
pack() { tar czf "$OUT/final.tgz" -C "$W" --exclude=data --exclude=charts \
           --exclude=timeline.json --exclude='*.html' --exclude='*.md' . 2>/dev/null; }
G=$B/gapscope
export GS_ATTACH_LIB=$PWD/$B/lib/libgsattach.so
step env; nvidia-smi -L; nproc; "$G" version || exit 1

step "2 pipeline: backlog, g2 device, prep ahead, 12 synth threads"
timeout 60 "$G" run scenarios/backlog-incident-gpu.ini --set engine.g2=device \
    --set engine.synth_threads=12 --no-report --out "$W/pipe-s12" 2>&1 | tail -3
"$G" analyze "$W/pipe-s12" 2>&1 | tail -6; pack

step "1 test-gpu"
GS_REQUIRE_GPU=1 GS_BIN=$G timeout 120 "$B/test/all" --only cuda 2>&1 | grep -E 'FAIL|passed|OK' | tail -30

step "3 torch under attach"
for m in pmutex trim sleep; do
    timeout 60 "$G" attach --out "$W/torch-$m" --no-report -- python3 scripts/torch_stall.py "$m" 2>&1 | tail -2
    "$G" analyze "$W/torch-$m" 2>&1 | tail -4; pack
done
step "3b torch sleep under torch.profiler (whole job)"
timeout 60 python3 scripts/torch_stall.py sleep --profile "$W/torch-sleep-profile.json" | tail -1; pack

step "4 our prover under attach beside its native timeline"
timeout 70 "$G" attach --out "$W/sc-attach" --no-report -- \
    "$G" run scenarios/backlog-incident-gpu.ini --set jobs.limit=1 --no-report --out "$W/sc-native" 2>&1 | tail -2
"$G" analyze "$W/sc-native" 2>&1 | tail -4
"$G" analyze "$W/sc-attach" 2>&1 | tail -4
python3 scripts/attach_compare.py "$W/sc-native/spans.csv" "$W/sc-attach/spans.csv" > "$W/sc-compare.json"
head -c 1500 "$W/sc-compare.json"; echo; pack
step done
