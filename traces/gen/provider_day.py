#!/usr/bin/env python3
"""A storage provider's day (DOMAIN.md), 24 hours of proving work:

- WindowPoSt: 48 deadlines of 30 minutes; each deadline's challenge comes
  10 minutes before it opens, so its proof arrives at (k * 30 min - 10 min)
  plus a little jitter; 1 partition per <= 2349 sectors (1-2 here).
- WinningPoSt: elections won as a Poisson process (--wins per day), each a
  1-partition, priority-0 proof with a ~20 s deadline.
- PoRep C2: one sealing pipeline's stream, one job every 100-140 s.
- SnapDeals: sector updates as a Poisson process (--snaps per day).

The day is time-compressible: replay with [jobs] replay = scaled and
time_scale = 0.001 to run it in ~86 s (limit = N to cut it short).

usage: provider_day.py [OUT] [--seed N] [--wins N] [--snaps N] [--porep-period-s LO,HI]
"""
import argparse
import random

from common import arrival, write

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("out", nargs="?", default="traces/provider-day.jsonl")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--wins", type=float, default=12.0, help="WinningPoSt wins per day (mean)")
p.add_argument("--snaps", type=float, default=24.0, help="SnapDeals jobs per day (mean)")
p.add_argument("--porep-period-s", default="100,140", help="seconds between PoRep C2 jobs")
args = p.parse_args()
rng = random.Random(args.seed)
DAY_MS = 24 * 3600 * 1000.0
arr = []
for k in range(48):
    t = k * 30 * 60 * 1000.0 - 10 * 60 * 1000.0
    if t < 0:
        t += DAY_MS  # deadline 0's challenge falls at the end of the previous day
    arr.append(arrival(t + rng.uniform(0, 5000), "window_post", partitions=rng.choice([1, 1, 2])))
t = rng.expovariate(args.wins / DAY_MS)
while t < DAY_MS:
    arr.append(arrival(t, "winning_post"))
    t += rng.expovariate(args.wins / DAY_MS)
lo, hi = (float(x) * 1000 for x in args.porep_period_s.split(","))
t = rng.uniform(0, hi)
while t < DAY_MS:
    arr.append(arrival(t, "porep_c2"))
    t += rng.uniform(lo, hi)
t = rng.expovariate(args.snaps / DAY_MS)
while t < DAY_MS:
    arr.append(arrival(t, "snap_deals"))
    t += rng.expovariate(args.snaps / DAY_MS)
write(args.out, arr,
      "storage provider's day: 48 WindowPoSt deadlines, WinningPoSt wins, a PoRep C2 stream, SnapDeals",
      "traces/gen/provider_day.py --seed %d --wins %g --snaps %g --porep-period-s %s"
      % (args.seed, args.wins, args.snaps, args.porep_period_s), args.seed)
