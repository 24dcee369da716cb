# gapscope with the CUDA backend.
#
#   docker build -t gapscope .
#   docker run --rm --gpus all -v "$PWD/out:/src/runs" gapscope                 # the demo
#   docker run --rm --gpus all -v "$PWD/traces:/src/traces:ro" -v "$PWD/out:/src/runs" \
#       gapscope build/gapscope run scenarios/backlog.ini --set engine.backend=cuda
#
# Run directories (timeline, summary, report) land in /src/runs; mount it to keep them.
FROM nvidia/cuda:13.0.0-devel-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends \
        build-essential make python3 git \
        libgmp-dev libbenchmark-dev libsqlite3-dev gnuplot-nox hyperfine valgrind \
        clang libclang-rt-dev \
        nodejs npm ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY . .
RUN make -j"$(nproc)" CUDA=1 ARCH=-march=x86-64-v3 && GS_NO_DEPS=1 make test TEST_ARGS=--quick

CMD ["make", "demo"]
