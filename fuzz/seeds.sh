#!/usr/bin/env bash
# (Re)creates the seed part of the fuzz corpora, fuzz/corpus/<target>/seed-*,
# from the project's committed fixtures and files (fuzz/README.md):
#   zkey      test/fixtures/*.zkey, each with flag prefix 0x00 (full point
#             checks) and 0x01 (--trusted-key); plus a 600-byte truncation
#   wtns      test/fixtures/*.wtns         r1cs   test/fixtures/*.r1cs
#   json      test/fixtures/*.json
#   scenario  scenarios/*.ini
#   trace     traces/*.jsonl (provider-day cut to its first 40 lines),
#             fuzz/seeds/*.jsonl
#   spans     traces/model-sample.spans.csv, the first 60 lines of the
#             H200 capture, fuzz/seeds/*.spans.csv (a 2-job CPU run)
#   jobs      traces/h200-backlog/jobs.csv, fuzz/seeds/*.jobs.csv
#   import    test/fixtures/import/* (the Kineto JSON, the nsys SQLite, a
#             daemon log cut to its first 80 lines), each behind a format
#             byte: 0 auto, 1 chrome, 2 nsys, 3 daemon-log; gapscope's own
#             timeline.json of the 2-job CPU run (fuzz/seeds)
#   attach    test/fixtures/attach/basic and traces/attach-h200/tiny: a
#             process image's records, "#sampler", the sampler's records
#   gate      ci/thresholds.ini
# Hand-written inputs live beside them as fuzz/corpus/<target>/hand-*, and
# regression inputs (each one a bug that was fixed) in fuzz/regress/<target>/.
set -eu
cd "$(dirname "$0")/.."
C=fuzz/corpus
for t in zkey wtns r1cs json scenario trace spans jobs import attach gate; do
  mkdir -p "$C/$t"
  rm -f "$C/$t"/seed-*
done
for f in test/fixtures/*.zkey; do
  b=$(basename "$f" .zkey)
  { printf '\000'; cat "$f"; } >"$C/zkey/seed-$b-full"
  { printf '\001'; cat "$f"; } >"$C/zkey/seed-$b-trusted"
done
{ printf '\001'; head -c 600 test/fixtures/chain.zkey; } >"$C/zkey/seed-chain-truncated"
for f in test/fixtures/*.wtns; do cp "$f" "$C/wtns/seed-$(basename "$f")"; done
for f in test/fixtures/*.r1cs; do cp "$f" "$C/r1cs/seed-$(basename "$f")"; done
for f in test/fixtures/*.json; do cp "$f" "$C/json/seed-$(basename "$f")"; done
for f in scenarios/*.ini; do cp "$f" "$C/scenario/seed-$(basename "$f")"; done
for f in traces/*.jsonl fuzz/seeds/*.jsonl; do
  head -n 40 "$f" >"$C/trace/seed-$(basename "$f")"
done
cp traces/model-sample.spans.csv "$C/spans/seed-model-sample.spans.csv"
head -n 60 traces/h200-backlog.spans.csv >"$C/spans/seed-h200-backlog-head.spans.csv"
for f in fuzz/seeds/*.spans.csv; do cp "$f" "$C/spans/seed-$(basename "$f")"; done
cp traces/h200-backlog/jobs.csv "$C/jobs/seed-h200-backlog.jobs.csv"
for f in fuzz/seeds/*.jobs.csv; do cp "$f" "$C/jobs/seed-$(basename "$f")"; done
F=test/fixtures/import
{ printf '\000'; cat $F/kineto-small.json; } >"$C/import/seed-kineto-auto"
{ printf '\001'; cat $F/kineto-small.json; } >"$C/import/seed-kineto-chrome"
{ printf '\002'; cat $F/nsys-small.sqlite; } >"$C/import/seed-nsys"
{ printf '\003'; head -n 80 $F/demo-trim.daemon.log; } >"$C/import/seed-daemon-demo"
{ printf '\000'; head -n 80 $F/h200-backlog-g2dev.daemon.log; } >"$C/import/seed-daemon-ansi-auto"
{ printf '\001'; cat fuzz/seeds/cpu-run.timeline.json; } >"$C/import/seed-own-timeline"
A=test/fixtures/attach/basic
{ cat $A/p100-1.rec; echo '#sampler'; cat $A/sampler.rec; } >"$C/attach/seed-basic"
T=traces/attach-h200/tiny/attach-raw
{ cat $T/p*.rec; echo '#sampler'; cat $T/sampler.rec; } >"$C/attach/seed-h200-tiny"
cp ci/thresholds.ini "$C/gate/seed-thresholds.ini"
