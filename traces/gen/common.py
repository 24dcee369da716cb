"""Shared helpers of the trace generators: the arrival record and the writer.

Every generator is deterministic (random.Random(seed)) and writes the
gapscope trace format version 1 (traces/README.md): a header line, then one
arrival per line sorted by time.
"""
import json
import sys

# DOMAIN.md: partitions, priority (0 = most urgent) and production size
# (log2 constraints per partition) of each proof kind.
KINDS = {
    "winning_post": {"partitions": 1, "priority": 0, "size_class": 19},
    "window_post": {"partitions": 1, "priority": 1, "size_class": 27},
    "snap_deals": {"partitions": 16, "priority": 2, "size_class": 27},
    "porep_c2": {"partitions": 10, "priority": 2, "size_class": 27},
}


def arrival(t_ms, kind, partitions=None):
    k = KINDS[kind]
    return {"t": round(t_ms, 3), "kind": kind,
            "partitions": partitions or k["partitions"],
            "priority": k["priority"], "size_class": k["size_class"]}


def write(path, arrivals, description, generator, seed):
    arrivals = sorted(arrivals, key=lambda a: a["t"])
    with open(path, "w") as f:
        header = {"format": "gapscope-trace", "version": 1, "time_unit": "ms",
                  "count": len(arrivals), "description": description,
                  "generator": generator, "seed": seed}
        f.write(json.dumps(header, separators=(",", ":")) + "\n")
        for i, a in enumerate(arrivals, 1):
            rec = {"t": a["t"], "id": i, "kind": a["kind"], "partitions": a["partitions"],
                   "priority": a["priority"], "size_class": a["size_class"]}
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stderr.write("%s: %d arrivals\n" % (path, len(arrivals)))
