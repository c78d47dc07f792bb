"""Benchmark: the core alone, outside Spark, on one core.

Generates a cluster history with the generator (not timed), then replays it with
state_machine.cluster.replay_cluster (routing + per-partition replay, timed) and prints
events per second. Target (issue 2): >= 1,000,000 events/s on one core of the 2-core
machine, on >= 5,000,000 events.

It also times the floor under any replay of these events in CPython: one pass that only
finds each partition-level event's partition and calls a handler that does nothing
(broker- and cluster-level events, and their fan-out to many partitions, are left out, so
the floor is lower than the real loop's). Events per second can never exceed the floor's.

    .venv/bin/python bench/core_replay.py --events 5000000
"""
from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from operator import attrgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from state_machine.cluster import replay_cluster  # noqa: E402
from state_machine.eras import resolve_era  # noqa: E402
from state_machine.generator import SimConfig, Simulator  # noqa: E402


def _do_nothing(partition: list, event) -> None:
    pass


def dispatch_floor(events: list) -> float:
    """Seconds for the floor loop (module docstring): its partition lookup and handler call
    are those replay_cluster makes for nearly every event, with no work behind them."""
    fields = attrgetter("event_type", "topic", "partition")
    handlers = dict.fromkeys({e.event_type for e in events}, _do_nothing)
    partitions: dict = {}
    last_topic = last_partition = target = None
    t0 = time.perf_counter()
    for e, (event_type, topic, partition) in zip(events, map(fields, events)):
        if partition is None:
            continue
        if partition != last_partition or topic != last_topic:   # as replay_cluster: a run of one partition's events
            target = partitions.get((topic, partition))
            if target is None:
                target = partitions[(topic, partition)] = []
            last_topic, last_partition = topic, partition
        handlers[event_type](target, e)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--era", default="2.4")
    ap.add_argument("--brokers", type=int, default=12)
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--partitions", type=int, default=20)
    ap.add_argument("--log-level", default="trace")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()

    cfg = SimConfig(cluster="bench", era=args.era, brokers=args.brokers, topics=args.topics,
                    partitions=args.partitions, steps=10**12, seed=args.seed, log_level=args.log_level)
    t0 = time.perf_counter()
    events = []
    for e in Simulator(cfg).run():
        events.append(e)
        if len(events) >= args.events:
            break
    gen_s = time.perf_counter() - t0
    partitions = len({(e.topic, e.partition) for e in events if e.partition is not None})
    print(f"generated {len(events):,} events ({partitions:,} partitions, era {args.era}, level {args.log_level}) "
          f"in {gen_s:.1f}s")
    era = resolve_era(args.era)
    best = floor = None
    for _ in range(args.repeat):
        gc.collect()
        gc.disable()  # the replay allocates no cycles; the collector only adds pauses
        t0 = time.perf_counter()
        results = replay_cluster("bench", events, era)
        elapsed = time.perf_counter() - t0
        floor_s = dispatch_floor(events)
        gc.enable()
        best = elapsed if best is None else min(best, elapsed)
        floor = floor_s if floor is None else min(floor, floor_s)
    rows = sum(len(r.timeline) for r in results.values())
    violations = sum(len(r.violations) for r in results.values())
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"replayed {len(events):,} events in {best:.2f}s: {len(events) / best:,.0f} events/s on one core "
          f"({rows:,} timeline rows, {violations} violations, peak RSS {rss_mb:,.0f} MiB)")
    print(f"floor (find the partition, call a no-op handler) {floor:.2f}s: {len(events) / floor:,.0f} events/s; "
          f"replay / floor = {best / floor:.1f}x")
    print(f"target 1,000,000 events/s: {'met' if len(events) / best >= 1_000_000 else 'not met'}")


if __name__ == "__main__":
    main()
