#!/usr/bin/env bash
# The first call of a session that gets an H200 (~9 minutes, one call): what
# issues 31 and 33 still need from that card, most needed first, each step
# skipped when the time left cannot hold it.
#
#   OUT=dir scripts/gpu-h200-first.sh BIN_DIR
#
# BIN_DIR: gapscope, test/all and lib/libgsattach.so built on the
# workstation (scripts/gpu-issue31.sh says how) and carried.
#  1. issue 31: three seed-matched rounds of every repeated change, 5 bases,
#     the calibration (scripts/gpu-issue31.sh, ~320 s on an H100) into
#     $OUT/i31/ (base.tar.gz, changes.tar.gz, log.txt); a second call can
#     go on with ROUND0=4 ROUNDS=6;
#  2. issue 33: the 2^24 prove with B2's copies against b2_copies = 1, ABAB,
#     medians of 5 (~60 s), and the NTT sweep 2^20..2^27 ABAB (~30 s), into
#     $OUT/i33/;
#  3. with 130 s left, one 2^26 prove pair (B2 copies or not), medians of 3.
# At most 7 files come back (the device returns 8). On any other card it
# stops at once: the H100 tables of these are in
# bench/RESULTS.md (round 3 sessions 14 and 15).
set -u
B=${1:?usage: gpu-h200-first.sh BIN_DIR}
OUT=${OUT:-/tmp/h200-first-out}
LIMIT=${LIMIT:-570}
mkdir -p "$OUT/i31" "$OUT/i33"
G=$B/gapscope
nvidia-smi -L
if ! nvidia-smi -L | grep -q H200; then
    echo "not an H200: nothing to do here"
    exit 0
fi
SEED=211 CHANGES=all ROUNDS=3 TORCH=0 HOT=0 SPIN=0 REPEAT="synth4 gpuw2 prep-inline direct qd4 trim-after" \
    OUT=$OUT/i31 timeout $((LIMIT - 160)) bash scripts/gpu-issue31.sh "$B" > /dev/null 2>&1
tail -3 "$OUT/i31/log.txt"
{ nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version,power.limit --format=csv
  lscpu | head -20; "$G" version; } > "$OUT/i33/env.txt" 2>&1
if [ $((LIMIT - SECONDS)) -ge 100 ]; then
    for k in "" 1 "" 1; do
        echo "== b2_copies=${k:-default} $(date +%T)"
        env ${k:+GS_CU_B2_COPIES=$k} timeout 40 "$G" cuda-bench --prove 24:24 --g2-device --staging pinned --reps 5
    done > "$OUT/i33/prove24.txt" 2>&1
    grep -E "==|plan after|total" "$OUT/i33/prove24.txt"
    timeout 45 "$G" cuda-bench --ntt 20:27 --reps 9 --sets "default;ntt_r4=0;default;ntt_r4=0" > "$OUT/i33/ntt.txt" 2>&1
    tail -4 "$OUT/i33/ntt.txt"
fi
if [ $((LIMIT - SECONDS)) -ge 130 ]; then
    for k in "" 1; do
        echo "== b2_copies=${k:-default} $(date +%T)"
        env ${k:+GS_CU_B2_COPIES=$k} timeout 60 "$G" cuda-bench --prove 26:26 --g2-device --staging pinned --reps 3
    done > "$OUT/i33/prove26.txt" 2>&1
    grep -E "==|plan|total" "$OUT/i33/prove26.txt"
fi
echo "done at ${SECONDS} s"
