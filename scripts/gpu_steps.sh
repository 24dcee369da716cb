# Sourced by the one-call device scripts (gpu-issue33.sh, gpu-issue33b.sh,
# gpu-issue33c.sh): the step banner, the per-step timeout inside a budget,
# one cuda-bench run to a JSON, the 2^20 MSM check, the test runner's verdicts and the default
# tests' gate.  Expects T0 (start, epoch s), BUDGET (s), KEEP (s kept for
# the table), G (gapscope), T (test/all) and OUT (the output folder), or
# call_init to set them.
# call_init BIN_DIR OUT_DEFAULT BUDGET_DEFAULT: the call's settings (OUT and
# BUDGET from the environment when set), the log ($OUT/log.txt) started.
call_init() {
    set -u
    G=$1/gapscope
    T=$1/test/all
    OUT=${OUT:-$2}
    BUDGET=${BUDGET:-$3}
    KEEP=10
    mkdir -p "$OUT"
    exec > >(tee "$OUT/log.txt") 2>&1
    T0=$(date +%s)
}
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
check20() { # TIMEOUT SETS: the 2^20 G1 MSM of every knob set checked against the CPU
    if [ "$1" -le 1 ]; then
        echo "(no time left: the 2^20 check skipped)"
        return 1
    fi
    timeout "$1" "$G" cuda-bench --msm 20 --check --reps 1 --sets "$2" 2>&1 | grep -E "msm_g1|error"
}
gtest() { # TIMEOUT ARGS...: the test runner, its verdict lines; the runner's status
    local t=$1
    shift
    GS_REQUIRE_GPU=1 GS_BIN=$G timeout "$t" "$T" "$@" 2>&1 | grep -E "FAIL|passed"
    return "${PIPESTATUS[0]}"
}
# The card and the binary (exits when the binary does not run).
env_step() {
    step env
    nvidia-smi -L
    nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
    "$G" version || exit 1
}
# TIMEOUT ARGS...: the default CUDA tests (ARGS: the levers' --skip);
# exits the call when they fail, goes on (unchecked) when cut short.
default_tests() {
    local t=$1 rc
    shift
    step "1a cuda tests, defaults"
    gtest "$t" --only cuda --skip cuda_attach_kernels "$@"
    rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "(the tests were cut short at their timeout: measuring anyway, the table is unchecked)"
    elif [ "$rc" -ne 0 ]; then
        step "the default CUDA tests failed: no measurements (fix first)"
        exit 1
    fi
}
