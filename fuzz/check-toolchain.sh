#!/usr/bin/env bash
# Fails loudly unless $1 (default clang) compiles and links a libFuzzer
# target with ASan and UBSan (Debian: packages clang and libclang-rt-dev,
# which `make deps` installs).  Never skips silently.
set -u
cc=${1:-clang}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gs_fuzz_cc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "fuzz: '$cc' not found: the fuzz targets need clang with libFuzzer." >&2
  echo "fuzz: run 'make deps' (as root it installs clang and libclang-rt-dev)," >&2
  echo "fuzz: or: sudo apt-get install -y clang libclang-rt-dev" >&2
  exit 1
fi
if ! "$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >"$tmp/log" 2>&1; then
  echo "fuzz: '$cc' cannot link -fsanitize=fuzzer,address,undefined:" >&2
  sed 's/^/fuzz:   /' "$tmp/log" | head -5 >&2
  echo "fuzz: install libFuzzer's runtime: sudo apt-get install -y libclang-rt-dev" >&2
  exit 1
fi
exit 0
