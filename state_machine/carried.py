"""Carried state: where a replay left each partition, as the events a later replay starts from
(PartitionStateCarried, ReplicaStateCarried; state_machine.replay.on_state_carried).

The audit builds the same events from the Delta tables (jobs.earlier.carried_state); this builds
them from the core's own output, for local tools, tests and measurements."""
from __future__ import annotations

from typing import Iterable

from state_machine import events as E
from state_machine.events import Event
from state_machine.findings import INFERABLE
from state_machine.partition import UNCLEAN_CONFIG, mark_alive, mark_dead  # the one setting the replay reads; its liveness rules

# Ahead of every event of the partition (an events file may hold negative seqs).
CARRIED_SEQ = -(2 ** 63)


def _before(at: int | None, start_ms: int | None) -> bool:
    """Whether a row or change at time `at` comes before the carried state's start (every one
    when there is no start; one with no time only then)."""
    return start_ms is None or (at is not None and at < start_ms)


def _listed(ids: tuple[int, ...] | None) -> list[int] | None:
    """A row's broker-id tuple as an event's list; None (not in the row's mode, or none) stays None."""
    return None if ids is None else list(ids)


def inference_detail(row_inferred: bool, values: tuple[str, ...]) -> str | None:
    """PartitionStateCarried's `detail`: whether its row was inferred, and which of its values no
    record showed: `inferred:isr,leader_epoch`, `recorded:isr`; None for a recorded row with none.
    (A table that keeps the row's flag alone carries `inferred`: see inference_of.)"""
    if not row_inferred and not values:
        return None
    return ("inferred:" if row_inferred else "recorded:") + ",".join(values)


def inference_of(detail: str | None) -> tuple[bool, frozenset[str]]:
    """(the row was inferred, the values no record showed) of a PartitionStateCarried's `detail`
    (inference_detail's). `inferred` alone, an earlier version's or a table's that keeps the flag
    alone, says nothing of which: every value that may be inferred (findings.INFERABLE) is taken so."""
    if detail is None:
        return False, frozenset()
    flag, colon, values = detail.partition(":")
    if not colon:
        return flag == "inferred", frozenset(INFERABLE) if flag == "inferred" else frozenset()
    return flag == "inferred", frozenset(v for v in values.split(",") if v)


def carried_events(cluster: str, topic: str, partition: int, rows: Iterable, replica_rows: Iterable,
                   start_ms: int | None = None) -> list[Event]:
    """The carried state of one partition whose replay wrote `rows` (TimelineRow) and
    `replica_rows` (ReplicaRow), in order: its last timeline row before `start_ms` and each
    replica's last row before it (every row when None)."""
    out = []
    last = None
    for r in rows:
        if _before(r.valid_from, start_ms):
            last = r
    if last is not None:
        out.append(Event(cluster=cluster, seq=CARRIED_SEQ, event_time_ms=last.valid_from,
                         event_type=E.PARTITION_STATE_CARRIED, topic=topic, partition=partition, source_file=last.source,
                         detail=inference_detail(last.inferred, last.inferred_values), to_state=last.partition_state,
                         leader=last.leader, leader_epoch=last.leader_epoch, isr=list(last.isr),
                         replicas=list(last.replicas), controller_epoch=last.controller_epoch,
                         elr=_listed(last.elr), last_known_elr=_listed(last.last_known_elr),
                         leader_recovery_state=last.leader_recovery_state,
                         target_replicas=_listed(last.target_replicas)))
    states = {r.replica: r for r in replica_rows if _before(r.valid_from, start_ms)}
    out += [Event(cluster=cluster, seq=CARRIED_SEQ, event_time_ms=r.valid_from, event_type=E.REPLICA_STATE_CARRIED,
                  topic=topic, partition=partition, source_file=r.source, detail="inferred" if r.inferred else None,
                  replica=r.replica, to_state=r.replica_state)
            for _, r in sorted(states.items())]
    return out


def controller_changes(events: Iterable[Event]) -> list[tuple[int | None, int, int | None]]:
    """The controller changes among `events`, in their order: (event time, controller epoch,
    controller) of each ControllerFailover that names its epoch and each KRaftControllerRegistered.
    A change raises the epoch every partition has seen before the new controller writes any
    row, so the audit keeps them (audit_runs.controller_changes) for the next night to carry."""
    return [(e.event_time_ms, e.controller_epoch, e.controller_id) for e in events
            if e.event_type in E.CONTROLLER_CHANGES and e.controller_epoch is not None]


def carried_controller(cluster: str, row_epochs: Iterable[int | None], changes: Iterable[tuple],
                       start_ms: int | None = None) -> list[Event]:
    """ControllerEpochCarried: the highest controller epoch seen before `start_ms` (every row or
    change when None): of the cluster's timeline rows before it (`row_epochs`, their
    controller_epoch) and of its controller changes before it (`changes`, as controller_changes
    gives them), with the controller the first change of that epoch names. None seen: nothing."""
    epoch, controller_of = max((e for e in row_epochs if e is not None), default=None), {}
    for at, changed_to, controller in changes:
        if _before(at, start_ms):
            epoch = changed_to if epoch is None else max(epoch, changed_to)
            if controller is not None:
                controller_of.setdefault(changed_to, controller)
    if epoch is None:
        return []
    return [Event(cluster=cluster, seq=CARRIED_SEQ, event_type=E.CONTROLLER_EPOCH_CARRIED, controller_epoch=epoch,
                  controller_id=controller_of.get(epoch))]


# The events that change which brokers are alive (ControllerFailover: with its complete list).
LIVENESS_CHANGES = (E.BROKER_STARTUP, E.BROKER_FAILURE, E.CONTROLLED_SHUTDOWN, E.CONTROLLER_FAILOVER)


def broker_changes(events: Iterable[Event]) -> list[tuple[int | None, str, list[int]]]:
    """The liveness changes among `events`, in their order: (event time, event type, brokers)
    of each BrokerStartup, BrokerFailure, ControlledShutdown, and ControllerFailover that lists
    the live brokers. The audit keeps them (audit_runs.broker_changes) for the next night."""
    return [(e.event_time_ms, e.event_type, list(e.brokers)) for e in events
            if e.event_type in LIVENESS_CHANGES and e.brokers is not None]


def carried_liveness(cluster: str, changes: Iterable[tuple], start_ms: int | None = None) -> list[Event]:
    """LivenessCarried: which brokers `changes` (broker_changes, in order) before `start_ms`
    left alive and dead, as the replay's own liveness rules would (a controller's list is every
    live broker; a failure marks dead, a startup or controlled shutdown alive)."""
    live: set[int] = set()
    dead: set[int] = set()
    complete = False
    for at, event_type, brokers in changes:
        if not _before(at, start_ms):
            continue
        if event_type == E.CONTROLLER_FAILOVER:
            live, dead, complete = set(brokers), set(), True
        elif event_type == E.BROKER_FAILURE:
            mark_dead(live, dead, brokers)
        else:
            mark_alive(live, dead, brokers)
    out = []
    if live or complete:
        out.append(Event(cluster=cluster, seq=CARRIED_SEQ, event_type=E.LIVENESS_CARRIED, to_state="alive",
                         brokers=sorted(live), detail="complete" if complete else None))
    if dead:
        out.append(Event(cluster=cluster, seq=CARRIED_SEQ, event_type=E.LIVENESS_CARRIED, to_state="dead",
                         brokers=sorted(dead)))
    return out


CONFIG_EVENTS = (E.CONFIG_CHANGE, E.CONFIG_OBSERVED)


def config_changes(events: Iterable[Event]) -> list[tuple[int | None, str | None, str | None]]:
    """The unclean-election settings among `events`, in their order: (event time, topic (None:
    the cluster's default), value (None: the override removed)) of each ConfigChange or
    ConfigObserved of unclean.leader.election.enable. The audit keeps them
    (audit_runs.config_changes) for the next night."""
    return [(e.event_time_ms, e.topic, e.config_value) for e in events
            if e.event_type in CONFIG_EVENTS and e.config_name == UNCLEAN_CONFIG]


def carried_configs(cluster: str, changes: Iterable[tuple], start_ms: int | None = None) -> list[Event]:
    """ConfigObserved: the last unclean-election setting of the cluster and of each topic that
    `changes` (config_changes, in order) set before `start_ms`. A value in effect, learnt:
    no election runs for it (a ConfigChange's re-election ran the night it was made)."""
    last: dict[str | None, str | None] = {}
    for at, topic, value in changes:
        if _before(at, start_ms):
            last[topic] = value
    return [Event(cluster=cluster, seq=CARRIED_SEQ, event_type=E.CONFIG_OBSERVED, topic=topic,
                  config_name=UNCLEAN_CONFIG, config_value=value, detail="carried")
            for topic, value in sorted(last.items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))]


def carried_cluster(cluster: str, results: dict, start_ms: int | None = None, earlier: Iterable[Event] = ()) -> list[Event]:
    """carried_events of every partition of state_machine.cluster.replay_cluster's `results`,
    after carried_controller of their timeline rows and the controller changes of `earlier`
    (the events replayed), carried_liveness of `earlier`'s broker changes and carried_configs
    of its unclean-election settings, before `start_ms`."""
    earlier = list(earlier)
    epochs = [r.controller_epoch for res in results.values() for r in res.timeline if _before(r.valid_from, start_ms)]
    return (carried_controller(cluster, epochs, controller_changes(earlier), start_ms)
            + carried_liveness(cluster, broker_changes(earlier), start_ms)
            + carried_configs(cluster, config_changes(earlier), start_ms)
            + [e for (topic, partition), r in sorted(results.items())
               for e in carried_events(cluster, topic, partition, r.timeline, r.replica_timeline, start_ms)])
