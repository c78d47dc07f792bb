"""Routing a cluster's events to the partitions they concern, and replaying a whole
cluster locally (the Spark job does the same routing with joins).

A partition receives its own events; topic-level events of its topic; cluster-level
events (controller failover, broker-wide config); and the broker-level events
(startup, failure, controlled shutdown) of every broker that is ever one of its
replicas, whenever they happen, so that its replay knows which replicas are live at
every point, including at its creation."""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Iterator, NamedTuple

from state_machine import events as E
from state_machine.eras import Era
from state_machine.events import Event
from state_machine.replay import PartitionReplay, ReplayResult

PartitionKey = tuple[str, int]

TOPIC_LEVEL = frozenset({E.TOPIC_DELETION, E.REMOVE_TOPIC_RECORD, E.CONFIG_CHANGE})


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


def scope(event: Event) -> str:
    """'partition', 'topic', 'broker' or 'cluster': who an event is delivered to."""
    t = event.event_type
    if t in E.BROKER_LEVEL:
        return "broker"
    if t in E.CLUSTER_LEVEL or (t == E.CONFIG_CHANGE and event.topic is None):
        return "cluster"
    if event.partition is None:
        return "topic"
    return "partition"


class Routing(NamedTuple):
    partitions: dict[PartitionKey, set[int]]   # partition -> brokers ever its replicas
    by_topic: dict[str, list[PartitionKey]]
    by_broker: dict[int, list[PartitionKey]]


def plan_routing(events: Iterable[Event]) -> Routing:
    partitions: dict[PartitionKey, set[int]] = defaultdict(set)
    for e in events:
        if e.partition is not None and e.topic is not None:
            partitions[(e.topic, e.partition)].update(brokers_named(e))
    by_topic: dict[str, list[PartitionKey]] = defaultdict(list)
    by_broker: dict[int, list[PartitionKey]] = defaultdict(list)
    for key, brokers in partitions.items():
        by_topic[key[0]].append(key)
        for b in brokers:
            by_broker[b].append(key)
    return Routing(dict(partitions), dict(by_topic), dict(by_broker))


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


def replay_cluster(cluster: str, events: list[Event], era: Era) -> dict[PartitionKey, ReplayResult]:
    """Replay every partition of one cluster; `events` in recorded (seq) order."""
    routing = plan_routing(events)
    replays = {key: PartitionReplay(cluster, key[0], key[1], era) for key in routing.partitions}
    for e in events:
        for key in deliveries(e, routing):
            replays[key].feed(e)
    return {key: ReplayResult(*rp.finish()) for key, rp in replays.items()}
