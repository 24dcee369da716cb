#!/usr/bin/env bash
# Builds the outside-shaped GPU test programs (README.md) into OUT_DIR
# (default build-foreign, ignored by git; cargo's own files go to
# OUT_DIR.cargo), so they can be carried to a GPU machine that has nvcc but no
# cargo (OUT_DIR holds only the binaries and the shim, a few MiB):
#
#   test/foreign/gpu/build.sh [OUT_DIR]          from the repository root
#
#   OUT_DIR/futex_trim, trim_dlsym, pageable_copy   nvcc -arch=sm_90, cudart static
#   OUT_DIR/tokio_daemon                            cargo (offline, Debian's tokio:
#                                                   apt-get install librust-tokio-dev)
#                                                   + the nvcc-built GPU shim
# The Python programs (gil_wait.py, trim_ctypes.py) run from the source tree.
# Each binary needs only libc, libstdc++ and (unless --cpu-only) libcuda.so.1
# at run time; the script prints their glibc floor.  Environment: NVCC
# (default nvcc), NVCC_ARCH (default sm_90), CUDA_LIB_DIR (default: lib64 next
# to nvcc's bin), CARGO (default cargo, else ~/.cargo/bin/cargo).  With
# NO_CARGO=1, or without cargo, the tokio daemon is skipped (said so).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build-foreign}
mkdir -p "$out"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${NVCC_ARCH:-sm_90}
command -v "$NVCC" >/dev/null || { echo "build.sh: no $NVCC on PATH" >&2; exit 1; }
CUDA_LIB_DIR=${CUDA_LIB_DIR:-$(cd "$(dirname "$(command -v "$NVCC")")/../lib64" && pwd)}

for p in futex_trim trim_dlsym pageable_copy; do
    "$NVCC" -O2 -g -arch="$ARCH" -o "$out/$p" "$here/$p.cu" &
done
mkdir -p "$out/shim"
"$NVCC" -O2 -g -arch="$ARCH" -Xcompiler -fPIC -c "$here/tokio_daemon/gpu_shim.cu" \
    -o "$out/shim/gpu_shim.o" &
wait
rm -f "$out/shim/libgpushim.a"
ar rcs "$out/shim/libgpushim.a" "$out/shim/gpu_shim.o"

CARGO=${CARGO:-$(command -v cargo || echo "$HOME/.cargo/bin/cargo")}
if [ "${NO_CARGO:-0}" = 1 ] || [ ! -x "$CARGO" ]; then
    echo "build.sh: no cargo: tokio_daemon not built (build it where cargo is and carry it)"
else
    # The directory source in tokio_daemon/.cargo/config.toml applies when
    # cargo runs inside that folder.
    (cd "$here/tokio_daemon" &&
        GPUSHIM_DIR="$out/shim" CUDA_LIB_DIR="$CUDA_LIB_DIR" CARGO_TARGET_DIR="$out.cargo" \
            "$CARGO" build --release --offline --locked)
    cp "$out.cargo/release/tokio_daemon" "$out/tokio_daemon"
fi

for b in "$out"/futex_trim "$out"/trim_dlsym "$out"/pageable_copy "$out"/tokio_daemon; do
    [ -x "$b" ] || continue
    floor=$(objdump -T "$b" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
    echo "built $b (needs $floor; $(ldd "$b" | grep -c '=>') shared libraries)"
done
