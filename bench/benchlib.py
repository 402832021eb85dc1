"""bench/benchlib.py - the timing protocol every engine runner follows
(tfs_bench.c does the same in C): warm up for at least 20 runs and 0.3 s,
then take samples of k back-to-back runs (k chosen so a sample lasts about
20 ms) for `seconds`, at least 7 samples; with T threads a sample is the
wall time of T threads doing k runs each, divided by T*k.  One JSON line
goes to stdout."""
import json
import math
import resource
import threading
import time


def _sample(run_once, threads, k):
    if threads == 1:
        t0 = time.perf_counter()
        for _ in range(k):
            run_once()
        return (time.perf_counter() - t0) * 1e6 / k
    start = threading.Barrier(threads + 1)

    def work():
        start.wait()
        for _ in range(k):
            run_once()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return (time.perf_counter() - t0) * 1e6 / (k * threads)


def measure(run_once, threads, seconds):
    t0, warm = time.perf_counter(), 0
    while warm < 20 or time.perf_counter() - t0 < 0.3:
        run_once()
        warm += 1
    per_run = (time.perf_counter() - t0) / warm
    k = max(1, int(math.ceil(0.02 / per_run / threads)))
    samples, end = [], time.perf_counter() + seconds
    while len(samples) < 400 and (len(samples) < 7 or
                                  time.perf_counter() < end):
        samples.append(_sample(run_once, threads, k))
    return samples, k


def emit(engine, samples, k, checksum, **extra):
    rec = dict(engine=engine, us=samples, runs_per_sample=k,
               rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               checksum=checksum)
    rec.update(extra)
    print(json.dumps(rec), flush=True)
