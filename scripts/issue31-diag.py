#!/usr/bin/env python3
"""Two diagnostics of issue 31's model over every committed capture set
(traces/*-issue31/**/captures.tgz), CPU only (bench/r3s19-issue31/README.md):

  scripts/issue31-diag.py curves [--gs BIN] [--variants raw,fits,flats,fit,flat]
      Each set's thread-count changes (synth12, synth4, g2cpu, g2cpu-s12)
      and base-1's reproduction, predicted from base-1 with its machine
      profile rewritten per variant, against the captured util (the mean of
      the change's runs):
        raw    the profile as calibrate wrote it (what predict uses);
        fit    every class's ladder (synth, host_prep, msm_b2) replaced by
               one fitted curve, cpu(T) = a (1 + beta (min(T, C) - 1) / C),
               the form the fit uses on a capture (MODEL.md 4), least
               squares over the ladder's CPU per unit;
        fits   the same for synthesis only;
        flat   every class at speed 1 (ideal sharing);
        flats  synthesis only at speed 1.
  scripts/issue31-diag.py synthcpu
      Each set's synthesis CPU per partition in the engine (the median of
      its synth steps' cpu_ns) at 4, 6 and 12 threads (synth4, base-1,
      synth12, g2cpu-s12), against calibrate's ladder (the profile's CPU
      per unit at the same T): the ratio of 12 to 6 threads in each.
  scripts/issue31-diag.py level [--gs BIN]
      Each set's profile level (predict's prediction.profile_level: the
      capture's synthesis CPU per partition over the profile's at the same
      runnable threads, less 1), the profile's drift (its vCPU passes), and
      the errors of its thread-count changes predicted from base-1 (as
      `curves` with the raw profile).
  scripts/issue31-diag.py verdicts [--gs BIN]
      Each set through scripts/eval-issue31.sh with today's binary: its
      profile level, and the evaluation's verdict (each change within 5
      points with the captured top cause, and inside the interval, judged
      with repeats where the set has them), grouped by the level (to the
      percent, as the evaluation prints it).
  scripts/issue31-diag.py b2pool [--gs BIN]
      Each g2cpu and g2cpu-s12 capture predicted as it ran (its own
      model): util, and the sum of its CPU G2 MSMs' wall times (msm_b2
      spans) against the capture's.  Environment variables pass through
      to gapscope (the experiments' knobs, bench/r3s19-issue31/*.patch).

Predictions use --reps 6, as scripts/eval-issue31.sh does.  Two at a time.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor

CASES = [("repro", []), ("synth12", ["engine.synth_threads=12"]), ("synth4", ["engine.synth_threads=4"]),
         ("g2cpu", ["engine.g2=cpu"]), ("g2cpu-s12", ["engine.g2=cpu", "engine.synth_threads=12"])]


def unpack_sets(tmp):
    """Every committed set's captures, unpacked under tmp/<card-session-set>."""
    out = []
    for tgz in sorted(glob.glob("traces/*-issue31/**/captures.tgz", recursive=True)):
        rel = os.path.dirname(tgz)[len("traces/"):].replace("-issue31", "").replace("/", "-")
        d = os.path.join(tmp, rel)
        os.makedirs(d)
        with tarfile.open(tgz) as t:
            t.extractall(d, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(d)
        if os.path.exists(os.path.join(d, "base/base-1/spans.csv")):
            out.append(d)
    return out


def util(d):
    s = json.load(open(os.path.join(d, "summary.json")))
    return 100 * float(s.get("meta", {}).get("prediction.util", s["util"]))


def runs(root, name):
    """A change's run and its repeats (NAME-r2 ...)."""
    out = []
    for grp in ("base", "changes"):
        for k in [""] + ["-r%d" % i for i in range(2, 10)]:
            f = os.path.join(root, grp, name + k)
            if os.path.exists(os.path.join(f, "summary.json")):
                out.append(f)
    return out


def predict(gs, capture, out, sets=(), profile=None):
    cmd = [gs, "predict", capture, "--reps", "6", "--no-report", "--quiet", "--out", out]
    if profile:
        cmd += ["--profile", profile]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode == 0


def fit_beta(ts, cs, cores):
    """beta of cpu(T) = a (1 + beta (min(T, C) - 1) / C), least squares in log over a grid."""
    best = None
    for i in range(401):
        b = 0.01 * i
        y = [math.log(c) - math.log1p(b * (min(t, cores) - 1) / cores) for t, c in zip(ts, cs)]
        a = sum(y) / len(y)
        ss = sum((v - a) ** 2 for v in y)
        if best is None or ss < best[0]:
            best = (ss, b)
    return best[1]


def variant(p, v):
    p = json.loads(json.dumps(p))
    cores = p["host"]["cores"]
    for k in (["synth"] if v.endswith("s") else ["synth", "msm_b2", "host_prep"]):
        cl = p["classes"].get(k)
        if not cl or v == "raw":
            continue
        if v.startswith("fit"):
            b = fit_beta(cl["threads"], cl["cpu_s"], cores)
            cl["speed"] = [1 / (1 + b * (min(t, cores) - 1) / cores) for t in cl["threads"]]
        elif v.startswith("flat"):
            cl["speed"] = [1.0 for _ in cl["threads"]]
    return p


def curves(a, sets, tmp):
    vs = a.variants.split(",")
    jobs = []
    for root in sets:
        pf = os.path.join(root, "base/base-1/machine-profile.json")
        if not os.path.exists(pf):
            continue
        p = json.load(open(pf))
        for v in vs:
            json.dump(variant(p, v), open(os.path.join(root, "prof-%s.json" % v), "w"))
            for name, s in CASES:
                if name == "repro" or runs(root, name):
                    jobs.append((root, v, name, s))

    def one(j):
        root, v, name, s = j
        out = os.path.join(tmp, "out", "%s-%s-%s" % (os.path.basename(root), v, name))
        ok = predict(a.gs, os.path.join(root, "base/base-1"), out, s, os.path.join(root, "prof-%s.json" % v))
        return j, util(out) if ok else None

    with ThreadPoolExecutor(2) as ex:
        got = {(j[0], j[2], j[1]): u for j, u in ex.map(one, jobs)}
    errs = {v: [] for v in vs}
    print("| set | case | captured | " + " | ".join(vs) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in vs) + " |")
    for root in sets:
        for name, _ in CASES:
            cap = runs(root, "base-1" if name == "repro" else name)
            if not cap or (root, name, vs[0]) not in got:
                continue
            cu = statistics.mean(util(c) for c in cap)
            cells = []
            for v in vs:
                u = got[(root, name, v)]
                if u is None:
                    cells.append("failed")
                    continue
                cells.append("%.1f (%+.1f)" % (u, u - cu))
                errs[v].append((name, u - cu))
            print("| %s | %s | %.1f%s | %s |" % (os.path.basename(root), name, cu,
                                                 " (mean of %d)" % len(cap) if len(cap) > 1 else "", " | ".join(cells)))
    print()
    print("| variant | case | n | mean abs error | mean error | within 5 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for v in vs:
        for nm in [c for c, _ in CASES] + ["all changes"]:
            x = [d for n, d in errs[v] if (n == nm if nm != "all changes" else n != "repro")]
            if x:
                print("| %s | %s | %d | %.2f | %+.2f | %d |" % (v, nm, len(x), statistics.mean(abs(d) for d in x),
                                                             statistics.mean(x), sum(abs(d) <= 5 for d in x)))


def b2_wall(d):
    s = 0
    for line in open(os.path.join(d, "spans.csv")):
        if line.startswith("#") or line.startswith("start_ns"):
            continue
        f = line.split(",")
        if f[3] == "step" and f[4] == "msm_b2":
            s += int(f[1]) - int(f[0])
    return s * 1e-9


def b2pool(a, sets, tmp):
    jobs = [(root, c) for root in sets for c in ("g2cpu", "g2cpu-s12")
            if os.path.exists(os.path.join(root, "changes", c, "spans.csv"))]

    def one(j):
        root, c = j
        out = os.path.join(tmp, "own", "%s-%s" % (os.path.basename(root), c))
        ok = predict(a.gs, os.path.join(root, "changes", c), out,
                     profile=os.path.join(root, "base/base-1/machine-profile.json"))
        return j, out if ok else None

    print("| capture | util captured | own model | error | msm_b2 walls captured (s) | own model | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    ratios, errs = [], []
    with ThreadPoolExecutor(2) as ex:
        for (root, c), out in ex.map(one, jobs):
            cap = os.path.join(root, "changes", c)
            if not out:
                print("| %s %s | predict failed | | | | | |" % (os.path.basename(root), c))
                continue
            r = b2_wall(out) / b2_wall(cap)
            ratios.append(r)
            errs.append(util(out) - util(cap))
            print("| %s %s | %.1f | %.1f | %+.1f | %.1f | %.1f | %.3f |" % (
                os.path.basename(root), c, util(cap), util(out), util(out) - util(cap), b2_wall(cap), b2_wall(out), r))
    if ratios:
        print("\n%d captures: wall ratio %.3f..%.3f (mean %.3f); util error mean %+.2f, mean abs %.2f" % (
            len(ratios), min(ratios), max(ratios), statistics.mean(ratios), statistics.mean(errs),
            statistics.mean(abs(e) for e in errs)))


def synth_cpu(d):
    v = []
    for line in open(os.path.join(d, "spans.csv")):
        if line.startswith("#") or line.startswith("start_ns"):
            continue
        f = line.rstrip("\n").split(",")
        if f[3] == "step" and f[4] == "synth" and f[11]:
            v.append(int(f[11]) * 1e-9)
    return statistics.median(v) if v else float("nan")


def synthcpu(a, sets, tmp):
    print("| set | profile 1 / 4 / 6 / 12 threads (s CPU per unit) | engine synth4 / base-1 / synth12 / g2cpu-s12 "
          "(s CPU per partition) | 12 / 6: profile | engine (synth12) |")
    print("| --- | --- | --- | --- | --- |")
    for root in sets:
        pf = os.path.join(root, "base/base-1/machine-profile.json")
        if not os.path.exists(pf):
            continue
        cl = json.load(open(pf))["classes"]["synth"]
        cs = dict(zip(cl["threads"], cl["cpu_s"]))
        eng = {}
        for name in ("synth4", "base-1", "synth12", "g2cpu-s12"):
            r = runs(root, name)
            eng[name] = synth_cpu(r[0]) if r else float("nan")
        fmt = lambda x: "-" if x != x else "%.3f" % x
        print("| %s | %s | %s | %s | %s |" % (
            os.path.basename(root), " / ".join(fmt(cs.get(t, float("nan"))) for t in (1, 4, 6, 12)),
            " / ".join(fmt(eng[k]) for k in ("synth4", "base-1", "synth12", "g2cpu-s12")),
            fmt(cs[12] / cs[6]) if 12 in cs and 6 in cs else "-", fmt(eng["synth12"] / eng["base-1"])))


def meta(spans, key):
    for line in open(spans):
        if not line.startswith("#"):
            break
        if line.startswith("# meta " + key + "="):
            return line.split("=", 1)[1].strip()
    return None


def level(a, sets, tmp):
    jobs = []
    for root in sets:
        if not os.path.exists(os.path.join(root, "base/base-1/machine-profile.json")):
            continue
        for name, s in CASES:
            if name == "repro" or runs(root, name):
                jobs.append((root, name, s))

    def one(j):
        root, name, s = j
        out = os.path.join(tmp, "lv", "%s-%s" % (os.path.basename(root), name))
        return j, out if predict(a.gs, os.path.join(root, "base/base-1"), out, s) else None

    with ThreadPoolExecutor(2) as ex:
        got = {(j[0], j[1]): o for j, o in ex.map(one, jobs)}
    print("| set | profile level | profile drift | thread-count changes: error (points) | largest |")
    print("| --- | --- | --- | --- | --- |")
    rows = []
    for root in sets:
        rep = got.get((root, "repro"))
        if not rep:
            continue
        lv = meta(os.path.join(rep, "spans.csv"), "prediction.profile_level")
        prof = json.load(open(os.path.join(root, "base/base-1/machine-profile.json")))
        dr = prof.get("cpus", {}).get("drift")
        errs = []
        for name, _ in CASES[1:]:
            o = got.get((root, name))
            cap = runs(root, name)
            if o and cap:
                errs.append((name, util(o) - statistics.mean(util(c) for c in cap)))
        big = max((abs(e) for _, e in errs), default=0)
        rows.append((float(lv) if lv else float("nan"), big))
        print("| %s | %s | %s | %s | %.1f |" % (os.path.basename(root), "%+.0f%%" % (100 * float(lv)) if lv else "-",
                                               "%.0f%%" % (100 * dr) if dr is not None else "-",
                                               ", ".join("%s %+.1f" % e for e in errs) or "-", big))
    within = [b for l, b in rows if abs(l) <= 0.10]
    beyond = [b for l, b in rows if abs(l) > 0.10]
    print("\nlevel within 10%%: %d sets, largest error %.1f, %d with one beyond 5 points; beyond 10%%: %d sets, "
          "%d with one beyond 5 points" % (len(within), max(within, default=0), sum(b > 5 for b in within),
                                            len(beyond), sum(b > 5 for b in beyond)))


def verdicts(a, sets, tmp):
    import re

    def one(root):
        env = dict(os.environ, GS=a.gs)
        r = subprocess.run(["bash", "scripts/eval-issue31.sh", root], capture_output=True, text=True, env=env)
        lv = re.search(r"synthesis CPU per partition ([+-]?\d+)%", r.stdout)
        vd = re.search(r"^verdict: (\d+) of (\d+) within.*?, (\d+) of \d+ inside the interval(?:; not: (.*))?$",
                       r.stdout, re.M)
        return root, (int(lv.group(1)) if lv else None), vd

    with ThreadPoolExecutor(2) as ex:
        got = list(ex.map(one, sets))
    print("| set | profile level | within 5 points with the captured cause | inside the interval | not |")
    print("| --- | --- | --- | --- | --- |")
    groups = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}
    for root, lv, vd in got:
        if not vd:
            print("| %s | - | (evaluation failed) | | |" % os.path.basename(root))
            continue
        ok, n, ins = int(vd.group(1)), int(vd.group(2)), int(vd.group(3))
        print("| %s | %s | %d of %d | %d of %d | %s |" % (os.path.basename(root), "%+d%%" % lv if lv is not None
                                                     else "-", ok, n, ins, n, vd.group(4) or "-"))
        g = groups[lv is not None and abs(lv) <= 10]
        g[0] += 1
        g[1] += ok
        g[2] += ins
        g[3] += n
    for k, name in ((True, "level within 10%"), (False, "beyond 10% (or no profile)")):
        g = groups[k]
        print("\n%s: %d sets, %d of %d changes within 5 points with the captured cause, %d of %d inside the interval"
              % (name, g[0], g[1], g[3], g[2], g[3]), end="")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["curves", "b2pool", "synthcpu", "level", "verdicts"])
    ap.add_argument("--gs", default=os.environ.get("GS", "build-cpu/gapscope"))
    ap.add_argument("--variants", default="raw,fits,flats,fit,flat")
    a = ap.parse_args()
    if not os.path.isdir("traces"):
        sys.exit("issue31-diag: run from the repository root")
    a.gs = os.path.abspath(a.gs)
    with tempfile.TemporaryDirectory(prefix="i31diag-") as tmp:
        sets = unpack_sets(tmp)
        {"curves": curves, "b2pool": b2pool, "synthcpu": synthcpu, "level": level,
         "verdicts": verdicts}[a.what](a, sets, tmp)


if __name__ == "__main__":
    main()
