#!/usr/bin/env python3
"""WinningPoSt under a full PoRep backlog (priority latency).

Four PoRep C2 jobs (40 partitions) arrive at once and fill the GPU queue;
WinningPoSt proofs (priority 0, ~20 s deadline on mainnet) then arrive every
--every-ms.  Priorities act only between partitions, so each WinningPoSt
should wait at most about one partition prove plus its own prove; the report's
per-kind latency shows whether it does.

usage: winning_under_backlog.py [OUT] [--seed N] [--wins N] [--every-ms MS]
"""
import argparse
import random

from common import arrival, write

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("out", nargs="?", default="traces/winning-under-backlog.jsonl")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--wins", type=int, default=4)
p.add_argument("--every-ms", type=float, default=1500.0)
args = p.parse_args()
rng = random.Random(args.seed)
arr = [arrival(i * 10.0, "porep_c2") for i in range(4)]
for i in range(args.wins):
    arr.append(arrival(1000.0 + i * args.every_ms + rng.uniform(0, 200), "winning_post"))
write(args.out, arr,
      "WinningPoSt under a full PoRep backlog: 4 PoRep C2 at once, then %d WinningPoSt" % args.wins,
      "traces/gen/winning_under_backlog.py --seed %d --wins %d --every-ms %g"
      % (args.seed, args.wins, args.every_ms), args.seed)
