# Sourced by the one-call device scripts (gpu-issue33.sh, gpu-issue33b.sh):
# the step banner, the per-step timeout inside a budget, and one cuda-bench
# run to a JSON.  Expects T0 (start, epoch s), BUDGET (s), KEEP (s kept for
# the table), G (gapscope) and OUT (the output folder).
step() { echo "=== $(date +%T) +$(($(date +%s) - T0))s $*"; }
# A step's timeout: what it asks for, at most what is left (KEEP s kept for
# the table); 1 when nothing is left (bench skips the step; `timeout 0`
# would mean no limit at all).
tmo() {
    local want=$1 left=$((BUDGET - KEEP - ($(date +%s) - T0)))
    [ "$left" -lt "$want" ] && want=$left
    [ "$want" -lt 10 ] && want=1
    echo "$want"
}
bench() { # TIMEOUT NAME ARGS...: one cuda-bench run, its JSON as $OUT/NAME.json
    local t=$1 name=$2
    shift 2
    if [ "$t" -le 1 ]; then
        echo "(no time left: $name skipped)"
        return 1
    fi
    timeout "$t" "$G" cuda-bench "$@" --json "$OUT/$name.json" 2>&1
    local rc=$?
    [ "$rc" -eq 124 ] && echo "(timed out after $t s: $name cut short)"
    return "$rc"
}
