#!/usr/bin/env python3
"""The backlog incident (DESIGN.md): a PoRep C2 burst that leaves about 27
synthesized partitions queued in front of one GPU fed by 6 synthesis threads.

Three PoRep C2 jobs (10 partitions each, 30 in all) arrive 250 ms apart,
then a fourth 20 s later, after the queue has built up.  Replay it with
scenarios/backlog-incident.ini (synth_threads = 6, queue_depth = 27, one GPU).

usage: backlog_incident.py [OUT] [--seed N]
"""
import argparse
import random

from common import arrival, write

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("out", nargs="?", default="traces/backlog-incident.jsonl")
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()
rng = random.Random(args.seed)

arr = [arrival(i * 250.0 + rng.uniform(0, 20), "porep_c2") for i in range(3)]
arr.append(arrival(20000.0 + rng.uniform(0, 500), "porep_c2"))
write(args.out, arr,
      "backlog incident: PoRep C2 burst, 3 x 10 partitions within 0.5 s, a 4th at 20 s",
      "traces/gen/backlog_incident.py --seed %d" % args.seed, args.seed)
