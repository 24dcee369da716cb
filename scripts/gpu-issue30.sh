#!/usr/bin/env bash
# Issue 30 on a GPU machine, in ONE call (<= 8 minutes): the outside-shaped
# programs of test/foreign/gpu (README.md there), each run bare (its own
# ground truth) and under `gapscope attach`, then one table of the program's
# truth against attach's top cause family, idle share and holder activity.
#
#   OUT=/some/dir scripts/gpu-issue30.sh         (from the repository root)
#
# Inputs (carry them from the workstation; each is rebuilt here when it does
# not run, if it can be):
#   build/gapscope, build/lib/libgsattach.so   ($GS_BUILD, default build):
#       else `make CUDA=1 BUILD=build` here (several minutes of the budget)
#   build-foreign/{futex_trim,trim_dlsym,pageable_copy,tokio_daemon}
#       ($GS_FOREIGN, default build-foreign; made by
#       test/foreign/gpu/build.sh): the CUDA programs are rebuilt here with
#       nvcc when they do not run; tokio_daemon needs cargo, so without a
#       runnable carried one that row is skipped
# Python programs (gil_wait.py, trim_ctypes.py) need torch: the first python3
# on PATH that imports it, else /opt/*/bin/python3 ($PY overrides).
#
# Out ($OUT, default /tmp/issue30-out): log.txt (everything), per program
# NAME.bare.txt / NAME.attach.txt (its stdout + stderr), NAME/ (attach's run
# directory: spans.csv, summary.json, report.md, attach-raw/), table.txt and
# table.json, overhead.txt (plain vs attach prove medians), and all of it
# in i30.tgz (the device tool returns few files).  What to look for: README.md in test/foreign/gpu, "Reading the
# table".
set -u
OUT=${OUT:-/tmp/issue30-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "=== $(date +%T) $*"; }
T0=$(date +%s)
left() { echo $((480 - ($(date +%s) - T0))); }

step env
nvidia-smi -L 2>&1 | head -4; nproc; uname -r; nvcc --version 2>&1 | tail -1
# CPU_ONLY=1: a rehearsal without a GPU (this script's flow, the programs'
# --cpu-only paths, attach's conversion; no device work, so no analysis):
# every program gets --cpu-only, a tenth of the iterations and 16 MiB heaps.
if [ "${CPU_ONLY:-0}" = 1 ]; then
    C=(--cpu-only); MIB=16; n() { echo $(( $1 / 10 )); }
else
    C=(); MIB=256; n() { echo "$1"; }
fi
PY=${PY:-}
[ "${CPU_ONLY:-0}" = 1 ] && [ -z "$PY" ] && PY=python3
if [ -z "$PY" ]; then
    for p in python3 /opt/*/bin/python3 /opt/*/*/bin/python3; do
        if "$p" -c 'import torch' 2>/dev/null; then PY=$p; break; fi
    done
fi
[ -n "$PY" ] && "$PY" -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.is_available())'
[ -z "$PY" ] && echo "no python3 with torch: the Python rows are skipped"

B=${GS_BUILD:-build}
if ! "$B/gapscope" version >/dev/null 2>&1 || [ ! -f "$B/lib/libgsattach.so" ]; then
    step "no runnable $B/gapscope + lib/libgsattach.so: building (CUDA=1)"
    GS_NO_DEPS=1 make -j"$(nproc)" CUDA=1 BUILD="$B" "$B/gapscope" "$B/lib/libgsattach.so" \
        HAVE_GMP=0 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
G=$PWD/$B/gapscope
export GS_ATTACH_LIB=$PWD/$B/lib/libgsattach.so
"$G" version

F=${GS_FOREIGN:-build-foreign}
if ! "$F/futex_trim" --cpu-only --iters 1 --frag-mib 1 >/dev/null 2>&1 ||
   ! "$F/pageable_copy" --cpu-only --iters 1 --copy-mib 1 >/dev/null 2>&1; then
    step "carried CUDA programs do not run here: building them with nvcc"
    NO_CARGO=1 test/foreign/gpu/build.sh "$OUT/foreign-bin" > "$OUT/foreign-build.log" 2>&1 ||
        { tail -20 "$OUT/foreign-build.log"; exit 1; }
    [ -x "$F/tokio_daemon" ] && cp "$F/tokio_daemon" "$OUT/foreign-bin/"
    F=$OUT/foreign-bin
fi
TOKIO=$F/tokio_daemon
if ! "$TOKIO" --cpu-only --iters 1 --frag-mib 1 >/dev/null 2>&1; then
    echo "no runnable $TOKIO (build it with test/foreign/gpu/build.sh where cargo is, carry build-foreign): row skipped"
    TOKIO=
fi
S=test/foreign/gpu

# One program: bare, then under attach (timeouts keep the call bounded).
run() {
    local name=$1; shift
    local l; l=$(left)
    if [ "$l" -lt 60 ]; then echo "skipping $name: under a minute of budget left"; return; fi
    local tb=$(( l / 3 < 60 ? l / 3 : 60 )) ta=$(( l / 2 < 100 ? l / 2 : 100 ))
    step "$name bare: $*"
    timeout "$tb" "$@" > "$OUT/$name.bare.txt" 2>&1; echo "rc=$?"; tail -2 "$OUT/$name.bare.txt"
    step "$name under attach"
    rm -rf "${OUT:?}/$name"
    timeout "$ta" "$G" attach --out "$OUT/$name" --quiet -- "$@" > "$OUT/$name.attach.txt" 2>&1
    echo "rc=$?"; grep -E 'GROUND_TRUTH|gapscope attach' "$OUT/$name.attach.txt" | tail -4
    "$G" analyze "$OUT/$name" 2>&1 | tail -14
}

run futex_trim "$F/futex_trim" --iters "$(n 80)" --kernel-ms 40 --frag-mib "$MIB" "${C[@]}"
run trim_dlsym "$F/trim_dlsym" --iters "$(n 80)" --kernel-ms 40 --frag-mib "$MIB" --via libc "${C[@]}"
run pageable_copy "$F/pageable_copy" --iters "$(n 150)" --kernel-ms 10 "${C[@]}"
run pageable_copy_pinned "$F/pageable_copy" --iters "$(n 150)" --kernel-ms 10 --pinned "${C[@]}"
[ -n "$TOKIO" ] && run tokio_daemon "$TOKIO" --iters "$(n 80)" --kernel-ms 40 --frag-mib "$MIB" "${C[@]}"
if [ -n "$PY" ]; then
    run gil_wait "$PY" "$S/gil_wait.py" --iters "$(n 200)" --kernel-ms 30 --helpers 3 "${C[@]}"
    run trim_ctypes "$PY" "$S/trim_ctypes.py" --iters "$(n 60)" --kernel-ms 80 \
        --frag-mib "$(( MIB / 2 ))" "${C[@]}"
fi

step table
python3 scripts/gpu_issue30_table.py "$OUT" --json "$OUT/table.json" | tee "$OUT/table.txt"

# Overhead (issue 30: <= 2%): our own prover, plain and under attach,
# alternated so drift hits both; medians of each run's 5 proves.
if [ "${CPU_ONLY:-0}" != 1 ] && [ "${OVERHEAD:-1}" = 1 ]; then
    step "overhead: cuda-bench --prove 22:22 --g2-device --reps 5, plain vs attach, alternated x${OVERHEAD_REPS:-3}"
    for i in $(seq 1 "${OVERHEAD_REPS:-3}"); do
        [ "$(left)" -lt 40 ] && { echo "overhead: out of budget after $((i - 1)) pairs"; break; }
        timeout 60 "$G" cuda-bench --prove 22:22 --g2-device --reps 5 \
            --json "$OUT/ovh-plain-$i.json" > "$OUT/ovh-plain-$i.txt" 2>&1
        rm -rf "${OUT:?}/ovh-attach-$i"
        timeout 90 "$G" attach --out "$OUT/ovh-attach-$i" --no-report --quiet -- \
            "$G" cuda-bench --prove 22:22 --g2-device --reps 5 --json "$OUT/ovh-attach-$i.json" \
            > "$OUT/ovh-attach-$i.txt" 2>&1
    done
    python3 - "$OUT" <<'PY' | tee "$OUT/overhead.txt"
import glob, json, os, statistics, sys
d = sys.argv[1]
def med(kind):   # Google Benchmark JSON: cuda/prove/22/pinned_median per run
    v = []
    for f in sorted(glob.glob(os.path.join(d, "ovh-%s-*.json" % kind))):
        try:
            j = json.load(open(f))
        except Exception:
            continue
        for r in j.get("benchmarks", []):
            if r.get("name") == "cuda/prove/22/pinned_median":
                v.append(r["real_time"])
    return v
p, a = med("plain"), med("attach")
print("plain  medians (ms):", " ".join("%.1f" % x for x in p))
print("attach medians (ms):", " ".join("%.1f" % x for x in a))
if p and a:
    mp, ma = statistics.median(p), statistics.median(a)
    print("overhead: median %.1f -> %.1f ms = %+.2f%% (bound 2%%)" % (mp, ma, 100 * (ma / mp - 1)))
else:
    print("overhead: no medians read (see ovh-*.txt)")
PY
fi

# The device hands back only a few files: everything else in one archive.
step "packing $OUT/i30.tgz"
( cd "$OUT" && tar czf i30.tgz --exclude=i30.tgz --exclude='*/data' --exclude='*/charts' \
      --exclude='*.html' --exclude='*/timeline.json' --exclude='foreign-bin' * ) &&
    ls -la "$OUT/i30.tgz"
step "done in $(( $(date +%s) - T0 )) s"
