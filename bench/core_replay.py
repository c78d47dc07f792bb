"""Benchmark: the core alone, outside Spark, on one core.

Generates a cluster history (not timed), then replays it with
state_machine.cluster.replay_cluster (routing + per-partition replay, timed) and prints
events per second and the peak memory. Target (issue 70): >= 500,000 events/s on one core,
on >= 5,000,000 events of the realistic mix.

The realistic mix (`--mix realistic`, the default) is what the ingest makes of a 2.4.1
cluster's TRACE logs (bench/cluster_logs.py writes them): for each leader/ISR decision the
controller's line, its LeaderAndIsr request to each live replica, each replica's received
copy and the new leader's start line, and every live broker's copy of the UpdateMetadata
request; leaders' ISR shrinks and expands, some that fail to commit; the failed elections of
partitions whose ISR has no live broker left, and administrators' preferred elections that
fail. `--mix generator` replays the generator's history alone (the controller's lines).

It also times the floor under any replay of these events in CPython: one pass that only
finds each partition-level event's partition and calls a handler that does nothing
(broker- and cluster-level events, and their fan-out to many partitions, are left out, so
the floor is lower than the real loop's). Events per second can never exceed the floor's.

    .venv/bin/python bench/core_replay.py --events 5000000
"""
from __future__ import annotations

import argparse
import random
import gc
import resource
import sys
import time
from collections import Counter
from operator import attrgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cluster_logs import _failed_preferred, _failures_after, _Stepping  # noqa: E402
from state_machine import events as E  # noqa: E402
from state_machine.cluster import replay_cluster  # noqa: E402
from state_machine.eras import resolve_era  # noqa: E402
from state_machine.events import Event  # noqa: E402
from state_machine.generator import SimConfig, Simulator  # noqa: E402


class DecisionCopies:
    """The canonical events the ingest reads from the lines bench/cluster_logs.py's
    ClusterLogWriter adds to a 2.4.1 TRACE history (its `_requests` and `failed_election`),
    kept with the millisecond each is logged at."""

    def __init__(self, sim: Simulator, rng: random.Random):
        self.sim, self.rng = sim, rng
        self.live: set[int] = set()
        self.controller = (1, 1)
        self.started: dict[tuple[str, int], int] = {}   # the leader epoch each partition's leader last started
        self.out: list[tuple[int, int, Event]] = []      # (ms, order, event)

    def _add(self, ms: int, e: Event) -> None:
        self.out.append((ms, len(self.out), e))

    def feed(self, e: Event) -> None:
        t = e.event_type
        if t == E.CONTROLLER_FAILOVER:
            self.controller = (e.controller_id, e.controller_epoch)
            if e.brokers is not None:
                self.live = set(e.brokers)
        elif t == E.BROKER_STARTUP:
            self.live |= set(e.brokers)
        elif t == E.BROKER_FAILURE:
            self.live -= set(e.brokers)
        self._add(e.event_time_ms, e)
        if t in (E.PARTITION_STATE_CHANGE, E.LEADER_AND_ISR) and e.to_state in (None, "OnlinePartition") \
                and e.leader is not None and e.leader >= 0 \
                and not (e.controller_epoch is not None and e.controller_epoch < self.controller[1]):
            self._requests(e)

    def _requests(self, e: Event) -> None:
        key = (e.topic, e.partition)
        model = self.sim.models.get(key)
        replicas = list(e.replicas or (model.replicas if model is not None else ()))
        cid, epoch = self.controller
        t, leader = e.event_time_ms, e.leader
        to = [r for r in replicas if r in self.live]
        decision = dict(cluster=e.cluster, topic=e.topic, partition=e.partition, leader=leader,
                        leader_epoch=e.leader_epoch, isr=e.isr, zk_version=e.zk_version, controller_id=cid,
                        controller_epoch=epoch, source_file=e.source_file, source_line=e.source_line)
        for r in to:   # the controller's "Sending become-leader/-follower LeaderAndIsr request ... to broker r"
            self._add(t, Event(seq=0, event_time_ms=t, event_type=E.LEADER_AND_ISR, recording_broker=cid, **decision))
        for r in to:   # each replica's "Received LeaderAndIsr request"
            self._add(t + 1, Event(seq=0, event_time_ms=t + 1, event_type=E.LEADER_AND_ISR_RECEIVED, recording_broker=r,
                                   replicas=replicas, **decision))
        if leader in self.live and e.leader_epoch is not None and e.leader_epoch > self.started.get(key, -1):
            self.started[key] = e.leader_epoch   # the new leader's "[Partition t-0 broker=L] t-0 starts at leader epoch E"
            self._add(t + 2, Event(cluster=e.cluster, seq=0, event_time_ms=t + 2, event_type=E.LEADER_AND_ISR_RECEIVED,
                                   topic=e.topic, partition=e.partition, recording_broker=leader, leader=leader,
                                   leader_epoch=e.leader_epoch, log_end_offset=0, high_watermark=0))
        for r in sorted(self.live):   # every live broker's "Cached leader info ... UpdateMetadata request"
            self._add(t + 3, Event(seq=0, event_time_ms=t + 3, event_type=E.LEADER_AND_ISR_RECEIVED, recording_broker=r,
                                   replicas=replicas, **decision))

    def failed_election(self, ms: int, topic: str, partition: int, from_state: str, strategy: str, admin: bool) -> None:
        """The controller's "failed to change state for partition t-0 from S to OnlinePartition"."""
        cid, epoch = self.controller
        self._add(ms, Event(cluster=self.sim.cfg.cluster, seq=0, event_time_ms=ms, event_type=E.STATE_CHANGE_FAILED,
                            topic=topic, partition=partition, from_state=from_state, to_state="OnlinePartition",
                            controller_id=cid, controller_epoch=epoch, recording_broker=cid,
                            detail=f"kafka.common.StateChangeFailedException: Failed to elect leader for partition "
                                   f"{topic}-{partition} under strategy {strategy}"))

    def admin_preferred_election(self, ms: int, topic: str, partition: int) -> None:
        self._add(ms, Event(cluster=self.sim.cfg.cluster, seq=0, event_time_ms=ms, event_type=E.REPLICA_LEADER_ELECTION,
                            topic=topic, partition=partition, election_type="PREFERRED"))
        self.failed_election(ms, topic, partition, "OnlinePartition", "PreferredReplicaPartitionLeaderElectionStrategy", True)

    def events(self) -> list[Event]:
        """In recorded order (by the millisecond logged, then as written), numbered again."""
        self.out.sort(key=lambda item: item[:2])
        return [e._replace(seq=i) for i, (_, _, e) in enumerate(self.out, 1)]


def realistic_history(cfg: SimConfig, n_events: int) -> list[Event]:
    """At least `n_events` events of the realistic mix (module docstring), whole steps."""
    sim = _Stepping(cfg)
    copies = DecisionCopies(sim, random.Random(cfg.seed + 1))
    offline: set = set()
    step: list[Event] = []
    for e in sim.run():
        if e is not None:
            step.append(e)
            copies.feed(e)
            continue
        if step:
            _failures_after(sim, step, copies, offline, 0.25)
            if copies.rng.random() < 0.004:
                _failed_preferred(sim, step[-1].event_time_ms + 1, copies)
        step = []
        if len(copies.out) >= n_events:
            break
    return copies.events()[:n_events]


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
    ap.add_argument("--profile-types", action="store_true", help="print the share of each event type")
    ap.add_argument("--mix", choices=("realistic", "generator"), default="realistic")
    ap.add_argument("--failed-isr-writes", type=float, default=0.1, help="the realistic mix's leaders' ISR writes that fail")
    args = ap.parse_args()

    realistic = args.mix == "realistic"
    cfg = SimConfig(cluster="bench", era=args.era, brokers=args.brokers, topics=args.topics,
                    partitions=args.partitions, steps=10**12, seed=args.seed, log_level=args.log_level,
                    failed_isr_writes=args.failed_isr_writes if realistic else 0.0)
    t0 = time.perf_counter()
    if realistic:
        events = realistic_history(cfg, args.events)
    else:
        events = []
        for e in Simulator(cfg).run():
            events.append(e)
            if len(events) >= args.events:
                break
    gen_s = time.perf_counter() - t0
    partitions = len({(e.topic, e.partition) for e in events if e.partition is not None})
    print(f"generated {len(events):,} events ({partitions:,} partitions, era {args.era}, level {args.log_level}, "
          f"{args.mix} mix) in {gen_s:.1f}s")
    if args.profile_types:
        counts = Counter(e.event_type for e in events)
        print("  " + ", ".join(f"{t} {n / len(events):.1%}" for t, n in counts.most_common()))
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
    print(f"target 500,000 events/s: {'met' if len(events) / best >= 500_000 else 'not met'}")


if __name__ == "__main__":
    main()
