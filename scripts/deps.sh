#!/usr/bin/env bash
# The one idempotent deps step.  Installs what is missing and nothing else:
#   Debian packages: apt-get as root, otherwise prints the exact command;
#   npm packages (snarkjs, circom2 for interop tests): into ./node_modules
#   from package.json / package-lock.json.
#
#   scripts/deps.sh demo   what `make demo` runs on (make deps-demo): the C
#                          compiler, make, gnuplot for the report's charts
#   scripts/deps.sh [all]  everything (`make deps`; `make test`, bench, fuzz,
#                          check-valgrind run it): the demo's, plus GMP (test
#                          oracles), hyperfine, valgrind, Google Benchmark,
#                          SQLite (the nsys importer), protoc (decodes the
#                          Perfetto trace in tests), clang + libFuzzer,
#                          cargo + librust-tokio-dev (the tokio daemon's
#                          CPU-only build), node/npm and the npm packages
#   scripts/deps.sh slurm  everything, plus Slurm for `make test-slurm` (make
#                          deps-slurm): slurm-wlm (slurmctld, slurmd, the
#                          client commands) and munge
#
# Set GS_NO_DEPS=1 to skip it (e.g. on a GPU box without network).
set -u
cd "$(dirname "$0")/.."
[ "${GS_NO_DEPS:-0}" = 1 ] && exit 0
mode=${1:-all}
case "$mode" in
  demo|all|slurm) ;;
  *) echo "deps: unknown mode '$mode' (demo | all | slurm)" >&2; exit 2 ;;
esac

missing=()
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' || missing+=("$1"); }
for p in build-essential make gnuplot-nox; do
  need_pkg "$p"
done
if [ "$mode" = slurm ]; then
  for p in slurm-wlm munge; do
    need_pkg "$p"
  done
fi
if [ "$mode" != demo ]; then
  # protobuf-compiler: protoc decodes timeline.perfetto-trace against
  # timeline/perfetto_trace.proto in the timeline tests.
  for p in libgmp-dev hyperfine valgrind libbenchmark-dev libsqlite3-dev protobuf-compiler; do
    need_pkg "$p"
  done
  # The fuzz targets (fuzz/README.md; `make test` replays their corpora): clang
  # and libFuzzer's runtime (libclang-rt-dev pulls the one matching the
  # default clang: libclang-rt-14-dev on Debian 12).
  for p in clang libclang-rt-dev; do
    need_pkg "$p"
  done
  # The tokio daemon of test/foreign/gpu, built CPU-only for the wake-up
  # chain test (Makefile, TOKIO_CPU): cargo and Debian's tokio crates, read
  # offline from /usr/share/cargo/registry.
  for p in cargo librust-tokio-dev; do
    need_pkg "$p"
  done
  # Node.js may come from another packaging (with npm inside): ask for the commands.
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || echo "deps: apt-get update failed (offline?)" >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || { echo "deps: apt-get install ${missing[*]} failed" >&2; exit 1; }
  else
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

[ "$mode" = demo ] && exit 0

# A node_modules that is a symlink is shared with another checkout (git
# worktrees): `npm ci` would empty the shared tree through the link, so it is
# left alone here (a fresh package-lock.json mtime is not a reason to reinstall).
if [ -L node_modules ]; then
  [ -x node_modules/.bin/snarkjs ] || echo "deps: node_modules is a shared link without snarkjs: run npm ci where it points" >&2
elif [ -f package.json ] && command -v npm >/dev/null; then
  if [ ! -x node_modules/.bin/snarkjs ] || [ package-lock.json -nt node_modules/.stamp ]; then
    echo "deps: npm ci (snarkjs, circom2 into ./node_modules)"
    if [ -f package-lock.json ]; then
      npm ci --no-audit --no-fund --loglevel=error >/dev/null || { echo "deps: npm ci failed" >&2; exit 1; }
    else
      npm install --no-audit --no-fund --loglevel=error >/dev/null || { echo "deps: npm install failed" >&2; exit 1; }
    fi
    touch node_modules/.stamp
  fi
fi
exit 0
