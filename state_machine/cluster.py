"""Routing a cluster's events to the partitions they concern, and replaying a whole
cluster locally (the Spark job does the same routing with joins).

A partition receives its own events; topic-level events of its topic; cluster-level
events (controller failover, broker-wide config); and the broker-level events
(startup, failure, controlled shutdown) of every broker that is ever one of its
replicas, whenever they happen, so that its replay knows which replicas are live at
every point, including at its creation."""
from __future__ import annotations

from collections import defaultdict
from operator import attrgetter
from typing import Iterable, Iterator, NamedTuple

from state_machine import events as E
from state_machine.eras import Era
from state_machine.events import Event
from state_machine.replay import PartitionReplay, ReplayResult
from state_machine.states import PartitionState as P

PartitionKey = tuple[str, int]


def brokers_named(event: Event) -> set[int]:
    """The broker ids a partition-level event shows as (possible) replicas."""
    found: set[int] = set()
    for ids in (event.replicas, event.isr):
        if ids:
            found.update(ids)
    if event.replica is not None:
        found.add(event.replica)
    if event.leader is not None and event.leader >= 0:
        found.add(event.leader)
    return found


# The events whose recipients follow from their type, as rows that both routings read (`scope`
# here; jobs.audit.route, as joins, in Spark): (scope, event types, only when the event names no
# topic), the first row that holds an event deciding. Any other event reaches its topic's
# partitions, or its own partition when it names one.
SCOPE_BY_TYPE: tuple[tuple[str, frozenset[str], bool], ...] = (
    ("broker", E.BROKER_LEVEL, False),
    ("cluster", E.CLUSTER_LEVEL, False),
    ("cluster", E.CLUSTER_WIDE_WITHOUT_TOPIC, True),
)


def scope(event: Event) -> str:
    """'partition', 'topic', 'broker' or 'cluster': who an event is delivered to."""
    t = event.event_type
    for name, types, without_topic in SCOPE_BY_TYPE:
        if t in types and not (without_topic and event.topic is not None):
            return name
    if event.partition is None:
        return "topic"
    return "partition"


class Routing(NamedTuple):
    partitions: dict[PartitionKey, set[int]]   # partition -> brokers ever its replicas
    by_topic: dict[str, list[PartitionKey]]
    by_broker: dict[int, list[PartitionKey]]
    # partition -> index in the history of the last event of it or of its topic
    last_own_event: dict[PartitionKey, int] = {}


_NAMING_FIELDS = attrgetter("topic", "partition", "replicas", "isr", "replica", "leader")


def plan_routing(events: Iterable[Event]) -> Routing:
    partitions: dict[PartitionKey, set[int]] = {}
    # brokers_named(e) for every partition-level event, inlined: this is a pass over the
    # whole history. The fields are read in one C call per event, and consecutive events
    # of one partition (half of them in a controller's log) reuse its set.
    last_topic = last_partition = found = key = None
    run_end: dict[PartitionKey, int] = {}     # where each partition's latest run of events ended
    topic_event: dict[str, int] = {}         # each topic's last topic-level event
    i = -1
    for i, (topic, partition, replicas, isr, replica, leader) in enumerate(map(_NAMING_FIELDS, events)):
        if partition is None or topic is None:
            if topic is not None:
                topic_event[topic] = i
            continue
        if partition != last_partition or topic != last_topic:
            if key is not None:
                run_end[key] = last_i
            key = (topic, partition)
            found = partitions.get(key)
            if found is None:
                found = partitions[key] = set()
            last_topic, last_partition = topic, partition
        last_i = i
        if replicas:
            found.update(replicas)
        if isr:
            found.update(isr)
        if replica is not None:
            found.add(replica)
        if leader is not None and leader >= 0:
            found.add(leader)
    if key is not None:
        run_end[key] = last_i
    by_topic: dict[str, list[PartitionKey]] = defaultdict(list)
    by_broker: dict[int, list[PartitionKey]] = defaultdict(list)
    for key, brokers in partitions.items():
        by_topic[key[0]].append(key)
        for b in brokers:
            by_broker[b].append(key)
    last_own_event = {key: max(end, topic_event.get(key[0], -1)) for key, end in run_end.items()}
    return Routing(partitions, dict(by_topic), dict(by_broker), last_own_event)


def deliveries(event: Event, routing: Routing) -> Iterator[PartitionKey]:
    s = scope(event)
    if s == "partition":
        yield (event.topic, event.partition)
    elif s == "topic":
        yield from routing.by_topic.get(event.topic, ())
    elif s == "cluster":
        yield from routing.partitions
    else:
        seen: set[PartitionKey] = set()
        for b in event.brokers or ():
            for key in routing.by_broker.get(b, ()):
                if key not in seen:
                    seen.add(key)
                    yield key


# Event types whose recipients do not follow from topic and partition (see `scope`).
_ROUTED_BY_TYPE = frozenset().union(*(types for _, types, _ in SCOPE_BY_TYPE))
_ROUTING_FIELDS = attrgetter("event_type", "topic", "partition")


class _Retirement:
    """Stops broker-level events from visiting partitions they can no longer change.

    A partition past the last event of it and of its topic, deleted (NonExistentPartition,
    no replica state left, nothing pending), does nothing with a broker's startup, failure
    or controlled shutdown: each would only queue steps that are invalid from where it
    is. Over a long history with topic churn such partitions outnumber the live ones, and
    every broker event visited them all. (Controller failovers still reach every
    partition: they record which controller held which epoch.)"""

    def __init__(self, routing: Routing, replays: dict[PartitionKey, PartitionReplay]):
        self.replays = replays
        self.order = sorted(routing.last_own_event.items(), key=lambda item: item[1])
        self.next = 0            # order[next:] still have events of their own to come
        self.watched: list[PartitionReplay] = []  # past their last event, deletion maybe unfinished
        self.retired: set[int] = set()

    def due(self, i: int) -> bool:
        return bool(self.watched) or (self.next < len(self.order) and self.order[self.next][1] < i)

    def retire(self, i: int, by_broker: dict[int, list[PartitionReplay]]) -> None:
        order, replays = self.order, self.replays
        while self.next < len(order) and order[self.next][1] < i:
            self.watched.append(replays[order[self.next][0]])
            self.next += 1
        gone, watched = [], []
        for rp in self.watched:
            if rp.state is P.NonExistentPartition and not rp.deleting and not rp.pending and not rp.replica_states:
                gone.append(rp)
            elif rp.deleting or (rp.pending and rp.state is P.NonExistentPartition):
                watched.append(rp)  # a deletion still under way (a replica's broker is down)
            # else: it exists (or keeps replica states), and only events of its own or of its
            # topic could change that
        self.watched = watched
        if gone:
            self.retired.update(map(id, gone))
            retired = self.retired
            for b, targets in by_broker.items():
                by_broker[b] = [rp for rp in targets if id(rp) not in retired]


def replay_cluster(cluster: str, events: list[Event], era: Era) -> dict[PartitionKey, ReplayResult]:
    """Replay every partition of one cluster; `events` in recorded (seq) order.

    Delivers each event as `deliveries` says, with the recipients resolved to their
    replays once: the partition's own events (nearly all of them) go straight to it, and
    a broker-level event to the prebuilt list of the replays of the partitions that
    broker is ever a replica of."""
    routing = plan_routing(events)
    replays = {key: PartitionReplay(cluster, key[0], key[1], era) for key in routing.partitions}
    everyone = list(replays.values())
    by_topic = {topic: [replays[k] for k in keys] for topic, keys in routing.by_topic.items()}
    by_broker = {b: [replays[k] for k in keys] for b, keys in routing.by_broker.items()}
    retiring = _Retirement(routing, replays)
    last_topic = last_partition = None
    for i, (e, (t, topic, partition)) in enumerate(zip(events, map(_ROUTING_FIELDS, events))):
        if partition is not None and t not in _ROUTED_BY_TYPE:  # scope(e) == "partition"
            if partition != last_partition or topic != last_topic:  # else: the same partition again
                rp = replays[(topic, partition)]
                last_topic, last_partition = topic, partition
            rp.feed(e)
            continue
        s = scope(e)
        if s == "broker":
            if retiring.due(i):
                retiring.retire(i, by_broker)
            brokers = e.brokers or ()
            if len(brokers) == 1:
                targets = by_broker.get(brokers[0], ())
            else:  # each partition once, however many of its brokers the event names
                targets = list({id(r): r for b in brokers for r in by_broker.get(b, ())}.values())
        elif s == "cluster":
            targets = everyone
        elif s == "topic":
            targets = by_topic.get(e.topic, ())
        else:
            targets = (replays[(e.topic, e.partition)],)
        for target in targets:
            target.feed(e)
    return {key: ReplayResult(*rp.finish()) for key, rp in replays.items()}
