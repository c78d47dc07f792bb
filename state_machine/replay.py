"""The replay of one partition's recorded history, the way the Kafka controller processed it.

Events arrive in recorded order: the partition's own events plus the broker- and
cluster-level events that concern its replicas. Two kinds matter:

* Controller inputs (topic creation, broker failure, reassignment, ...) are turned into
  the steps the era's controller takes (`steps.ControllerOperations`: the operations of
  KafkaController.scala as lists of steps). The steps wait in `pending`.
* Recorded decisions (state changes and leader/ISR values a controller logged) are
  matched against the pending steps: the matched step is computed with the era's
  selector and compared with what was recorded (UNEXPECTED_LEADER); steps that come
  before it and were not logged are applied as inferred (a log written at INFO lacks
  them, which is no violation). A decision with no pending step is checked on its own.

Pending steps that no decision claims are applied as inferred when the next input
arrives and at the end. The recorded values always win: the model follows the log, and
every check compares a recorded decision with the state before it.

KRaft has no partition or replica state machines: its metadata records are complete, so
they are applied directly and checked against PartitionChangeBuilder's election.

Output: partition timeline rows, replica timeline rows and violations, drained
incrementally so that a long history replays in bounded memory.

The pieces, each its own module: `partition` (the model and its rows), `steps` (the
controller's steps and how records claim them), `decisions` (a recorded decision's
checks), `zk` and `kraft` (each mode's handlers). This module puts them together as
`PartitionReplay`, with the handlers shared by both modes, and dispatches events."""
from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple

from state_machine import events as E
from state_machine.carried import inference_of
from state_machine.checks import Violation
from state_machine.decisions import RecordedDecisions
from state_machine.eras import Era, resolve_era
from state_machine.events import Event, provenance
from state_machine.kraft import KraftHandlers
from state_machine.partition import (UNCLEAN_CONFIG, PartitionModel, ReplicaRow, TimelineRow, _unclean_value, mark_alive,
                                     mark_dead)
from state_machine.selectors import ElectionKind
from state_machine.states import NO_LEADER, PartitionState, ReplicaState, partition_state, replica_state
from state_machine.steps import OP_PARTITION, ControllerOperations, PendingSteps, Step
from state_machine.zk import ZkHandlers

P = PartitionState
R = ReplicaState
_DELETION_STATES = frozenset({R.ReplicaDeletionStarted, R.ReplicaDeletionSuccessful, R.ReplicaDeletionIneligible})


class PartitionReplay(ZkHandlers, KraftHandlers, RecordedDecisions, PendingSteps, PartitionModel):
    """Replays one (cluster, topic, partition). Feed events in recorded order."""

    __slots__ = ()

    def __init__(self, cluster: str, topic: str, partition: int, era: Era):
        super().__init__(cluster, topic, partition, era)
        self._handlers = handlers_for(era)

    # ---------------------------------------------------------------- feeding

    def feed(self, event: Event) -> None:
        self.events_replayed += 1
        handler = self._handlers.get(event.event_type)
        if handler is None:
            raise ValueError(f"{provenance(event)}: event type {event.event_type!r} is not replayable in era {self.era.name}")
        if self.isr_proposal is not None and handler not in KEEP_ISR_PROPOSAL:
            self.commit_isr_proposal()
        handler(self, event)

    def feed_all(self, events: Iterable[Event]) -> "PartitionReplay":
        for e in events:
            self.feed(e)
        return self

    def finish(self) -> tuple[list[TimelineRow], list[ReplicaRow], list[Violation]]:
        """Apply what is still pending, report an unmatched logged unclean election, close."""
        if self.isr_proposal is not None:
            self.commit_isr_proposal()
        self._flush(None)
        self.close_records_at_risk()
        for logged in self.unclean_logged:
            self._violate("UNCLEAN_LEADER_ELECTION", logged, self._unclean_severity(False),
                          {"case": "logged_not_replayed", "leader": str(logged.leader), **self.unclean_facts()}, (),
                          self._inferred("leader", "isr"))
        self.unclean_logged = []
        if self._open_row is not None and self._open_row is not self._carried_row:
            self._rows.append(self._open_row)
        self._open_row = None
        return self.drain()

    # ---------------------------------------------------------------- handlers of both modes

    def on_state_carried(self, record: Event) -> None:
        """PartitionStateCarried: the partition as an earlier audit left it. The replay goes on
        from it as if it had replayed that history itself; nothing is checked (it is no decision),
        and its row, the open one, is the earlier audit's: closed by the next change, not written."""
        self.state = partition_state(record.to_state)
        self.leader = record.leader if record.leader is not None else NO_LEADER
        if self.leader >= 0:
            self.last_leader = self.leader
        self.leader_epoch = record.leader_epoch if record.leader_epoch is not None else -1
        self.isr = tuple(record.isr or ())
        # Which of its values no record showed, as the earlier audit's row keeps them.
        row_inferred, self.inferred_values = inference_of(record.detail)
        self.replicas, self.replicas_partial = tuple(record.replicas or ()), False
        # A partition an earlier audit left NonExistent was deleted, and its deletion's lines may
        # still come: an audit applies the steps still pending at the end of its input (a deletion
        # requested just before midnight), and the next input holds their lines. They are the
        # deletion's, not a new partition's.
        self.deleting = self.state is P.NonExistentPartition and not self.kraft and self.era.topic_deletion
        self.write_controller_epoch = record.controller_epoch
        # A reassignment in flight goes on: its completion is queued once the ISR holds the target.
        self.reassignment_target = tuple(record.target_replicas) if record.target_replicas is not None else None
        self._completion_queued = False
        if self.kraft:   # KIP-966 and recovery state, where the earlier row has them (null: a table before them)
            self.adding_replicas = None   # the row has the target only
            self.elr, self.last_known_elr = tuple(record.elr or ()), tuple(record.last_known_elr or ())
            self.leader_recovery_state = record.leader_recovery_state or "RECOVERED"
        if record.controller_epoch is not None:
            self._observe_controller(record, None, record.controller_epoch)
        # As a recorded decision (a later one under a lower leader epoch regressed), unless the
        # earlier audit inferred it: the steps it applied at the end of its input may be the
        # ones the next input records, differently.
        if not row_inferred and "leader_epoch" not in self.inferred_values and self.leader_epoch >= self.recorded_epoch:
            self.recorded_epoch, self.recorded_epoch_leader = self.leader_epoch, self.leader
            self.carried_inferred_epoch = None
        else:
            self.carried_inferred_epoch = self.leader_epoch if self.leader_epoch >= 0 else None
        self.last_decision = record
        self._open_row = self._carried_row = self._row_now(
            record.seq, record.event_time_ms, self.state._value_, None, provenance(record), False)

    def on_controller_epoch(self, record: Event) -> None:
        """ControllerEpochCarried (the highest controller epoch an earlier audit saw) and
        KRaftControllerRegistered: the epoch, and its controller if named, from now on."""
        if record.controller_epoch is not None:
            self._observe_controller(record, record.controller_id, record.controller_epoch)

    def on_liveness_carried(self, record: Event) -> None:
        """LivenessCarried: brokers alive or dead as an earlier audit's broker changes left them (no step, no check)."""
        brokers = set(record.brokers or ())
        self.liveness_known = True
        if record.to_state == "dead":
            mark_dead(self.live, self.dead, brokers)
        else:
            mark_alive(self.live, self.dead, brokers)
            if record.detail == "complete":
                self.liveness_complete = True

    def on_replica_state_carried(self, record: Event) -> None:
        """ReplicaStateCarried: a replica's state as an earlier audit left it (no row, no check),
        and whether that audit inferred it (see carried_unrecorded).
        A replica still in a deletion state means the topic's deletion is under way: a replay's
        inferred steps take a reassignment's removed replicas on to NonExistentReplica, so only a
        deletion waiting for a dead broker ends an input there. The next input's broker events
        go on with the deletion (TopicDeletionManager resumes it), not with the partition.
        Except ReplicaDeletionIneligible where a controller failover leaves every dead replica so
        (era.failover_dead_replica "ineligible", 0.8.1-2.2 initializeReplicaState), deletion or not:
        there a deletion shows in its replicas' other deletion states, or (2.1+) the partition's."""
        state = self.replica_states[record.replica] = replica_state(record.to_state)
        if (state in _DELETION_STATES and not self.kraft and self.era.topic_deletion
                and (state is not R.ReplicaDeletionIneligible or self.era.failover_dead_replica != "ineligible")):
            self.deleting = True
        if record.detail == "inferred":
            self.carried_unrecorded.add(record.replica)

    def on_isr_change_proposed(self, event: Event) -> None:
        """The leader's "Shrinking/Expanding ISR from A to B", logged before its write. Before 2.4
        it is the only INFO record of the write, which may still fail: held until the partition's
        next event, which commits it unless it says that the write failed (see feed). From 2.4
        the committed write logs its own line (an IsrChange): the proposal changes nothing."""
        if not self.era.isr_write_logged:
            self.isr_proposal = event

    def commit_isr_proposal(self) -> None:
        """The held proposal's write went through: no failure line came before the next event."""
        event, self.isr_proposal = self.isr_proposal, None
        self.on_isr_change(event)

    def on_isr_update_failed(self, event: Event) -> None:
        """The leader's write did not commit ("Cached zkVersion [N] not equal to that in zookeeper,
        skip updating ISR"; 2.7+ the controller refused its AlterIsr): its held proposal changed
        nothing. Often the controller moved the partition on first (a new leader or ISR, a higher
        zkVersion) and the leader's cache is behind: Kafka's conditional write fenced it off, so
        it is no violation (KAFKA-2729 logs such pairs for hours)."""
        held = self.isr_proposal
        if held is not None and (event.leader is None or held.leader in (None, event.leader)):
            self.isr_proposal = None

    def on_unclean_logged(self, record: Event) -> None:
        """The controller's own unclean-election line: evidence for the election the replay
        reports (attached if still held), never a second report of it."""
        if self.last_unclean_leader == record.leader:
            i = self.last_unclean_violation
            if i is not None:
                v = self._violations[i]
                self._violations[i] = v._replace(evidence=v.evidence + (provenance(record),))
            self.last_unclean_violation = None
            self.last_unclean_leader = None
            return
        if self.kraft and (self.leader_recovery_state == "RECOVERING" or record.leader in self.elr
                           or (record.leader == self.leader and (self.elected_from_elr or self.elected_into_isr))):
            # KRaft 4.1+ logs it for every change of a RECOVERING partition; 3.0-4.0, whose rule reads
            # only the previous ISR, for an election from the ELR (clean by design) or into the ISR as
            # a reassignment completes (KAFKA-19212): the records show whether one was unclean.
            return
        self.unclean_logged.append(record)

    def on_broker_copy(self, record: Event) -> None:
        """A broker's LeaderAndIsrReceived: the offsets it prints first (a new leader's start offset,
        which its own unclean election, at INFO, reads), then the decision as each mode takes it."""
        if record.log_end_offset is not None or record.high_watermark is not None:
            self.observe_replica_log(record)
        self._broker_copy[self.kraft](self, record)

    def on_isr_change_proposed_offsets(self, event: Event) -> None:
        """A leader's ISR shrink (2.2+ prints its high watermark and log end offset), then the proposal."""
        if event.log_end_offset is not None or event.high_watermark is not None:
            self.observe_replica_log(event)
        self.on_isr_change_proposed(event)

    def on_config_change(self, event: Event) -> None:
        if event.config_name != UNCLEAN_CONFIG:
            return
        reelects = self.era.unclean_enable_reelects
        rerun = _unclean_value(event) is True and (reelects == "cluster_and_topic"
                                                   or (reelects == "cluster" and event.topic is None))
        if rerun:
            self._flush(event)   # the earlier inputs' elections ran with the value before this change
        if self.pending and event.seq is not None:
            # Steps still pending were queued by inputs before this change: inferred, they run with the value before it.
            self.unclean_changes += ((event.seq, self.unclean_allowed()),)
        self.on_config_observed(event)
        if rerun:
            # 2.0+ (the cluster default) and 2.1+ (a topic's) re-run the offline elections when unclean
            # election is enabled.
            if self.state in (P.NewPartition, P.OfflinePartition):
                self.pending.append(Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.offline, conditional=True, cause=event))


ZK_HANDLERS = {name: PartitionReplay.on_input for name in ControllerOperations.OPERATIONS}
ZK_HANDLERS[E.CONTROLLER_FAILOVER] = PartitionReplay.on_controller_failover
ZK_HANDLERS[E.REASSIGNMENT_CAUGHT_UP] = PartitionReplay.on_reassignment_caught_up
# Carried state is no controller input: it flushes nothing and runs no operation.
# A broker's log offsets change nothing the controller decides: learnt for the records at risk.
LOG_HANDLERS = {
    E.LOG_TRUNCATION: PartitionReplay.observe_replica_log,
    E.LOG_END_OFFSET_OBSERVED: PartitionReplay.observe_replica_log,
}
CARRIED_HANDLERS = {
    E.PARTITION_STATE_CARRIED: PartitionReplay.on_state_carried,
    E.REPLICA_STATE_CARRIED: PartitionReplay.on_replica_state_carried,
    E.CONTROLLER_EPOCH_CARRIED: PartitionReplay.on_controller_epoch,
    E.LIVENESS_CARRIED: PartitionReplay.on_liveness_carried,
}
ZK_HANDLERS.update(CARRIED_HANDLERS)
ZK_HANDLERS.update(LOG_HANDLERS)
# Nor is a migration's KRaft controller taking /controller: no ZooKeeper failover runs.
ZK_HANDLERS[E.KRAFT_CONTROLLER_REGISTERED] = PartitionReplay.on_controller_epoch
ON_ISR_UPDATE_FAILED = PartitionReplay.on_isr_update_failed
# The handlers that do not first commit a held ISR proposal (PartitionReplay.feed): its failure
# line, and a broker's log offsets (another broker's line can come between the two).
KEEP_ISR_PROPOSAL = frozenset({ON_ISR_UPDATE_FAILED, *LOG_HANDLERS.values()})
ZK_HANDLERS.update({
    E.ISR_CHANGE: PartitionReplay.on_isr_change,
    E.ISR_CHANGE_PROPOSED: PartitionReplay.on_isr_change_proposed_offsets,
    E.ISR_UPDATE_FAILED: ON_ISR_UPDATE_FAILED,
    E.CONFIG_CHANGE: PartitionReplay.on_config_change,
    E.CONFIG_OBSERVED: PartitionReplay.on_config_observed,
    E.PARTITION_STATE_CHANGE: PartitionReplay.on_partition_state_change,
    E.REPLICA_STATE_CHANGE: PartitionReplay.on_replica_state_change,
    E.LEADER_AND_ISR: PartitionReplay.on_leader_and_isr,
    E.LEADER_AND_ISR_RECEIVED: PartitionReplay.on_broker_copy,
    E.STATE_CHANGE_FAILED: PartitionReplay.on_state_change_failed,
    E.UNCLEAN_ELECTION_LOGGED: PartitionReplay.on_unclean_logged,
})

KRAFT_HANDLERS = {
    E.BROKER_STARTUP: PartitionReplay.on_kraft_broker,
    E.BROKER_FAILURE: PartitionReplay.on_kraft_broker,
    E.CONTROLLED_SHUTDOWN: PartitionReplay.on_kraft_broker,
    E.CONTROLLER_FAILOVER: PartitionReplay.on_kraft_controller,
    E.CONFIG_CHANGE: PartitionReplay.on_config_change,
    E.CONFIG_OBSERVED: PartitionReplay.on_config_observed,
    E.PARTITION_RECORD: PartitionReplay.on_partition_record,
    E.PARTITION_CHANGE_RECORD: PartitionReplay.on_partition_change_record,
    E.REMOVE_TOPIC_RECORD: PartitionReplay.on_remove_topic,
    E.CLEAR_ELR_RECORD: PartitionReplay.on_clear_elr,
    E.UNCLEAN_ELECTION_LOGGED: PartitionReplay.on_unclean_logged,
    E.TOPIC_DELETION: PartitionReplay.on_remove_topic,
    E.LEADER_AND_ISR_RECEIVED: PartitionReplay.on_broker_copy,
    E.ISR_CHANGE: PartitionReplay.on_broker_copy_kraft,   # a KRaft leader's "ISR updated to": its AlterPartition, in the log already
    # A KRaft leader's proposal and its failure: the metadata log has what committed (isr_write_logged holds nothing).
    E.ISR_CHANGE_PROPOSED: PartitionReplay.on_isr_change_proposed_offsets,
    E.ISR_UPDATE_FAILED: ON_ISR_UPDATE_FAILED,
    **CARRIED_HANDLERS,
    **LOG_HANDLERS,
}


PartitionReplay._broker_copy = {False: PartitionReplay.on_leader_and_isr_received, True: PartitionReplay.on_broker_copy_kraft}


def handlers_for(era: Era) -> dict:
    """Event type -> PartitionReplay method handling it, in `era` (what `feed` dispatches on)."""
    return KRAFT_HANDLERS if era.mode == "kraft" else ZK_HANDLERS


def era_mismatch(cluster: str, asked: str, era: Era, firsts: Iterable[Event]) -> str | None:
    """Why `era` (resolved from `asked`, a --kafka-version or manifest value) cannot replay
    `cluster`'s events, given the first event of each of its event types; None when it can.
    A ZooKeeper-mode history and a KRaft one are different events: a mismatch is a wrong era,
    said once per cluster before anything is replayed (`feed` would stop at the first such
    event, in the middle of a run)."""
    handled = handlers_for(era)
    foreign = sorted((e for e in firsts if e.event_type not in handled), key=lambda e: e.event_type)
    if not foreign:
        return None
    mode, other = ("KRaft", "ZooKeeper-mode") if era.mode == "kraft" else ("ZooKeeper-mode", "KRaft")
    resolved = "" if asked.strip().lower() == era.name else f" (era {era.name})"
    found = ", ".join(f"{e.event_type} (first at {provenance(e)})" for e in foreign)
    return (f"cluster {cluster}: {asked}{resolved} is {mode}, but its input holds {other} events: {found}. "
            f"Give the cluster's release: --kafka-version {cluster}=RELEASE, ZooKeeper mode up to 3.9 "
            f"(e.g. 2.4.1), KRaft as kraft-RELEASE (e.g. kraft-3.9.0).")


def era_mismatches(firsts: dict[str, Iterable[Event]], asked_of) -> list[str]:
    """`era_mismatch` of every cluster that has one, in cluster order. `firsts`: cluster -> the
    first event of each of its event types; `asked_of(cluster)`: its era as given (raises
    ValueError, as resolve_era does, for one that names no release)."""
    out = []
    for cluster in sorted(firsts, key=lambda c: c or ""):
        asked = asked_of(cluster)
        why = era_mismatch(cluster, asked, resolve_era(asked), firsts[cluster])
        if why:
            out.append(why)
    return out


class ReplayResult(NamedTuple):
    timeline: list[TimelineRow]
    replica_timeline: list[ReplicaRow]
    violations: list[Violation]


def replay_partition(cluster: str, topic: str, partition: int, events: Iterable[Event], era: Era) -> ReplayResult:
    """Replay one partition's events (already in recorded order) and return everything."""
    rp = PartitionReplay(cluster, topic, partition, era)
    rows, replica_rows, violations = [], [], []
    for e in events:
        rp.feed(e)
    a, b, c = rp.finish()
    rows += a
    replica_rows += b
    violations += c
    return ReplayResult(rows, replica_rows, violations)


def replay_stream(cluster: str, topic: str, partition: int, events: Iterable[Event], era: Era,
                  drain_every: int = 10_000) -> Iterator[ReplayResult]:
    """Replay lazily, yielding finished output every `drain_every` events: memory stays
    bounded however long the partition's history is."""
    rp = PartitionReplay(cluster, topic, partition, era)
    n = 0
    for e in events:
        rp.feed(e)
        n += 1
        if n >= drain_every:
            n = 0
            yield ReplayResult(*rp.drain())
    yield ReplayResult(*rp.finish())
