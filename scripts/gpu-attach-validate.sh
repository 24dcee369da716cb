#!/usr/bin/env bash
# Issue 13, the `gapscope attach` half, on a GPU machine, in ONE call:
#
#   scripts/gpu-attach-validate.sh            (OUT=dir for the packed results)
#
#  1. tiny:      attach on `gapscope cuda-bench --ntt` (kernels captured?)
#  2. scenario:  attach on our own prover run as an outside process
#                (backlog-incident-gpu.ini, its first job = 10 partitions at
#                2^20, CPU G2 MSM as in production: synthesis-starved, native
#                verdict queue_empty): the
#                native timeline (sc-native) and the attach capture
#                (sc-attach) of the SAME run, compared by
#                scripts/attach_compare.py and `gapscope analyze`
#  3. torch:     scripts/torch_stall.py under attach, one stall kind per run
#                (sleep, lock, pmutex, trim), and the sleep mode under
#                torch.profiler (a Chrome trace for `gapscope import`)
#  4. overhead:  cuda-bench --prove 22:22 --g2-device, plain vs attach,
#                interleaved; the scenario run plain (wall and util vs 2.)
#  5. sigterm:   attach on a long cuda-bench, SIGTERM to gapscope after 4 s:
#                the records captured up to then are converted
#
# Binaries: $GS_BUILD (default build-h200, carried from the workstation) when
# they run here, else built here with nvcc + gcc (GS_NO_DEPS=1 make -j16).
# Everything lands under $W and is packed into $OUT/attach-gpu.tgz after each
# step (spans.csv, summary.json, attach-raw/ of every run; no charts), with
# the log in $OUT/log.txt.
set -u
OUT=${OUT:-/tmp/attach-out}
W=${W:-/tmp/gsattach}
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "=== $(date +%T) $*"; }
pack() { tar czf "$OUT/attach-gpu.tgz" -C "$W" --exclude=data --exclude=charts \
           --exclude=timeline.json --exclude='*.html' . 2>/dev/null; }

step env
nvidia-smi -L; nproc; uname -r
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.is_available())'
B=${GS_BUILD:-build-h200}
if ! "$B/gapscope" version >/dev/null 2>&1 || [ ! -f "$B/lib/libgsattach.so" ]; then
    step "carried binaries do not run here: building"
    GS_NO_DEPS=1 make -j16 CUDA=1 BUILD=build-dev build-dev/gapscope build-dev/lib/libgsattach.so \
        build-dev/test/gs-attach-probe build-dev/test/attach HAVE_GMP=0 > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
    B=build-dev
fi
G=$B/gapscope
export GS_ATTACH_LIB=$PWD/$B/lib/libgsattach.so
"$G" version

step "1 tiny: attach on cuda-bench --ntt 16:16"
"$G" attach --out "$W/tiny" --no-report -- "$G" cuda-bench --ntt 16:16 --reps 3
echo "tiny rc=$?"; grep -c ',kernel,' "$W/tiny/spans.csv"; pack
step "1b attach tests (probe interposer/sampler, cuda_attach_kernels)"
[ -x "$B/test/attach" ] && GS_REQUIRE_GPU=1 GS_BIN=$G "$B/test/attach" 2>&1 | tail -12

SCN=(scenarios/backlog-incident-gpu.ini --no-report --set jobs.limit=1)
step "2 scenario under attach"
time "$G" attach --out "$W/sc-attach" --no-report -- \
    "$G" run "${SCN[@]}" --out "$W/sc-native"
echo "scenario rc=$?"
"$G" analyze "$W/sc-native" | tail -12
"$G" analyze "$W/sc-attach" | tail -12
python3 scripts/attach_compare.py "$W/sc-native/spans.csv" "$W/sc-attach/spans.csv" | tee "$W/sc-compare.json"
pack

step "3 torch stalls under attach"
for m in sleep lock pmutex trim; do
    "$G" attach --out "$W/torch-$m" --no-report -- python3 scripts/torch_stall.py "$m"
    echo "torch $m rc=$?"; "$G" analyze "$W/torch-$m" | tail -8; pack
done
step "3b torch sleep under torch.profiler"
python3 scripts/torch_stall.py sleep --profile "$W/torch-sleep-profile.json"; pack

step "4 overhead: cuda-bench --prove 22:22 --g2-device, plain vs attach"
for i in 1 2; do
    "$G" cuda-bench --prove 22:22 --g2-device --reps 5 > "$W/prove-plain-$i.txt" 2>&1
    "$G" attach --out "$W/prove-attach-$i" --no-report --quiet -- \
        "$G" cuda-bench --prove 22:22 --g2-device --reps 5 > "$W/prove-attach-$i.txt" 2>&1
    grep -h total "$W/prove-plain-$i.txt" "$W/prove-attach-$i.txt"
done
pack
step "4b scenario plain (same settings as 2)"
time "$G" run "${SCN[@]}" --out "$W/sc-plain"
"$G" analyze "$W/sc-plain" | tail -12; pack

step "5 SIGTERM mid-run"
"$G" attach --out "$W/sigterm" --no-report -- "$G" cuda-bench --ntt 14:27 --reps 64 &
ap=$!
sleep 4; kill -TERM $ap; wait $ap; echo "sigterm rc=$?"
grep -c ',kernel,' "$W/sigterm/spans.csv"; tail -3 "$W/sigterm/attach-raw/"p*.rec
pack
step done
ls -la "$OUT"
