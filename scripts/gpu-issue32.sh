#!/usr/bin/env bash
# Issue 32 on a GPU machine, in ONE call (<= 3 minutes): two processes
# sharing one GPU, each under `gapscope attach`, started together; both are
# stopped for 500 ms at the same moment (SIGSTOP/SIGCONT: a shared host
# stall, as a cgroup freeze or a host-wide pause gives); then
# `gapscope merge` of the two captures, and the checks of issue 32:
#
#   1. the clocks: both captures carry a clock anchor with one boot id, so
#      merge puts them on one CLOCK_MONOTONIC (offset 0, bound 0);
#   2. each device's util in the merge is within +-1 point of its own
#      capture's analysis (summary.json of each);
#   3. the fleet view finds the planted stall: a shared stretch of at least
#      400 ms starting within 50 ms of the SIGSTOP (converted to the merged
#      clock through capture a's anchor);
#   4. `gapscope export --sqlite` of the merge: every span is in it.
#
#   OUT=/some/dir scripts/gpu-issue32.sh          (from the repository root)
#
# Inputs (carry them from the workstation; rebuilt here when they do not run):
#   build/gapscope, build/lib/libgsattach.so   ($GS_BUILD, default build)
#   build-foreign/pageable_copy                ($GS_FOREIGN, default build-foreign;
#                                               test/foreign/gpu/build.sh, nvcc only)
# CPU_ONLY=1 rehearses the flow without a GPU (no device spans: checks 2-3
# are skipped).  Out ($OUT, default /tmp/issue32-out): log.txt, a/ and b/
# (attach's run directories), m/ (the merge, its report.md has the "Fleet"
# section), m.db, checks.txt (PASS/FAIL lines).
set -u
OUT=${OUT:-/tmp/issue32-out}
rm -rf "$OUT"
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo "=== $(date +%T) $*"; }
step env
nvidia-smi -L 2>&1 | head -2; nproc; uname -r

B=${GS_BUILD:-build}
if ! "$B/gapscope" version >/dev/null 2>&1 || [ ! -f "$B/lib/libgsattach.so" ]; then
    step "no runnable $B/gapscope + lib/libgsattach.so: building (CUDA=1)"
    GS_NO_DEPS=1 make -j"$(nproc)" CUDA=1 BUILD="$B" "$B/gapscope" "$B/lib/libgsattach.so" \
        HAVE_GMP=0 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
G=$(abs "$B")/gapscope
FD=$(abs "${GS_FOREIGN:-build-foreign}")
P=$FD/pageable_copy
C=()
[ "${CPU_ONLY:-0}" = 1 ] && C=(--cpu-only)
if ! "$P" "${C[@]}" --iters 1 --kernel-ms 1 --pinned --copies 1 --copy-mib 1 >/dev/null 2>&1; then
    step "building $P"
    mkdir -p "$FD"
    nvcc -O2 -arch="${NVCC_ARCH:-sm_90}" -o "$P" test/foreign/gpu/pageable_copy.cu || exit 1
fi

step "two attach captures sharing the GPU, started together"
ARGS=("${C[@]}" --pinned --copies 1 --copy-mib 8 --kernel-ms 10 --iters "${ITERS:-500}")
"$G" attach --out "$OUT/a" --quiet -- "$P" "${ARGS[@]}" > "$OUT/a.txt" 2>&1 &
A=$!
"$G" attach --out "$OUT/b" --quiet -- "$P" "${ARGS[@]}" > "$OUT/b.txt" 2>&1 &
BP=$!
sleep "${STALL_AFTER_S:-3}"
PA=$(pgrep -P "$A" | head -1)
PB=$(pgrep -P "$BP" | head -1)
echo "programs: $PA $PB"
STOP_NS=$(date +%s%N)
kill -STOP "$PA" "$PB"
sleep 0.5
kill -CONT "$PA" "$PB"
echo "stopped both at realtime $STOP_NS ns for 500 ms"
wait "$A"; echo "attach a: exit $?"
wait "$BP"; echo "attach b: exit $?"

step "merge"
"$G" merge "$OUT/a" "$OUT/b" --out "$OUT/m" --no-charts 2>&1 | tee "$OUT/merge.txt"
step "export"
"$G" export --sqlite "$OUT/m" "$OUT/m.db"

step "checks"
python3 - "$OUT" "$STOP_NS" "${CPU_ONLY:-0}" <<'EOF' | tee "$OUT/checks.txt"
import json, sqlite3, sys
out, stop_real, cpu_only = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def load(d): return json.load(open(f"{out}/{d}/summary.json"))
def meta(path):
    m = {}
    for line in open(path):
        if not line.startswith("#"): break
        if line.startswith("# meta "):
            k, _, v = line[7:].rstrip("\n").partition("=")
            m[k] = v
    return m
def first_start(path):
    for line in open(path):
        if not line.startswith("#") and not line.startswith("start_ns"):
            return int(line.split(",")[0])
ok = True
def check(name, cond, detail):
    global ok
    ok &= bool(cond)
    print(f"{'PASS' if cond else 'FAIL'} {name}: {detail}")
ma, mm = meta(f"{out}/a/spans.csv"), meta(f"{out}/m/spans.csv")
check("anchors", "clock.anchor.realtime_ns" in ma and ma.get("clock.boot_id"),
      f"boot {ma.get('clock.boot_id')}, maxerror {ma.get('clock.anchor.maxerror_us')} us")
check("one clock", mm.get("merge.clock_error_bound_ns") == "0",
      f"bound {mm.get('merge.clock_error_bound_ns')} ns; {mm.get('process.1.clock')}")
if not cpu_only:
    sa, sb, sm = load("a"), load("b"), load("m")
    for k, s in enumerate((sa, sb)):
        u, um = s["devices"][0]["util"], sm["devices"][k]["util"]
        check(f"util device {k}", abs(u - um) <= 0.01, f"alone {100*u:.2f}%, merged {100*um:.2f}%")
    fl = sm.get("fleet") or {}
    st = (fl.get("stretches") or [{}])[0]
    # The SIGSTOP on the merged clock: a's anchor maps realtime to a's monotonic.
    stop_mono = stop_real - int(ma["clock.anchor.realtime_ns"]) + int(ma["clock.anchor.monotonic_ns"])
    t0 = first_start(f"{out}/m/spans.csv")
    stop_s = (stop_mono - t0) / 1e9
    check("shared stall", st.get("len_ms", 0) >= 400 and abs(st.get("start_s", -1) - stop_s) < 0.05,
          f"longest shared {st.get('len_ms', 0):.1f} ms at {st.get('start_s', -1):.3f} s, "
          f"SIGSTOP at {stop_s:.3f} s; causes {st.get('causes')}; chance max {fl.get('chance_max_ms')} ms")
    print("fleet:", fl.get("verdict"))
db = sqlite3.connect(f"{out}/m.db")
n_db = db.execute("SELECT count(*) FROM spans").fetchone()[0]
n_csv = sum(1 for l in open(f"{out}/m/spans.csv") if l[:1].isdigit() or l[:1] == "-")
check("export", n_db == n_csv, f"{n_db} spans in m.db, {n_csv} rows in spans.csv")
print("ALL PASS" if ok else "SOME FAILED")
EOF
step done
