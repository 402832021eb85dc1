#!/usr/bin/env python3
"""bench/trace_diff.py - where a run on N threads loses against one:
reads `tfsess bench --trace` files of the same graph taken at one intra-op
thread (A) and at N (B), takes each node's median time over the files of
each side, and prints the totals, the time per op type on each side, and
the nodes that lose most against a perfect split (time on B minus time on
A / N), each with its kernel and shapes.

  tfsess bench MODEL.pb ... --intra 1 --runs 20 --trace a1.json  (x3)
  tfsess bench MODEL.pb ... --intra 2 --runs 20 --trace b1.json  (x3)
  python3 bench/trace_diff.py --threads 2 a1.json,a2.json,a3.json \\
      b1.json,b2.json,b3.json

Any two sets of traces compare the same way (--threads 1: two builds, two
configurations).  Standard library only."""
import argparse
import collections
import json
import statistics


def load(paths):
    """node name -> (median duration in us, op, kernel, input shapes)"""
    durs = collections.defaultdict(list)
    info = {}
    for path in paths:
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        for e in events:
            if e.get("ph") != "X":
                continue
            args = e.get("args", {})
            durs[e["name"]].append(float(e["dur"]))
            info[e["name"]] = (args.get("op", "?"), args.get("kernel", "?"),
                               args.get("input_shapes"))
    return {k: (statistics.median(v),) + info[k] for k, v in durs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="comma-separated traces of side A (one thread)")
    ap.add_argument("b", help="comma-separated traces of side B")
    ap.add_argument("--threads", type=float, default=2.0,
                    help="B's intra-op threads: the perfect split of A")
    ap.add_argument("--top", type=int, default=20, help="nodes to list")
    opt = ap.parse_args()
    a, b = load(opt.a.split(",")), load(opt.b.split(","))
    # nodes fused into another report 0 us on both sides: left out
    common = [k for k in a if k in b and (a[k][0] > 0 or b[k][0] > 0)]
    ta = sum(a[k][0] for k in common)
    tb = sum(b[k][0] for k in common)
    print("nodes %d: A %.0f us, B %.0f us, A / B %.2fx"
          % (len(common), ta, tb, ta / tb if tb else float("nan")))
    per_op = collections.defaultdict(lambda: [0.0, 0.0])
    for k in common:
        per_op[a[k][1]][0] += a[k][0]
        per_op[a[k][1]][1] += b[k][0]
    for op, (x, y) in sorted(per_op.items(), key=lambda z: -z[1][0])[:10]:
        print("  %-24s A %9.0f  B %9.0f  %5.2fx"
              % (op, x, y, x / y if y else float("nan")))
    loss = sorted(common, key=lambda k: a[k][0] / opt.threads - b[k][0])
    print("largest losses (B - A / %g, us):" % opt.threads)
    for k in loss[:opt.top]:
        lost = b[k][0] - a[k][0] / opt.threads
        print("  %7.0f  A %7.0f  B %7.0f  %s %s %s"
              % (lost, a[k][0], b[k][0], a[k][2], k, a[k][3]))


if __name__ == "__main__":
    main()
