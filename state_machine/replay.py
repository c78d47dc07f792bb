"""The replay of one partition's recorded history, the way the Kafka controller processed it.

Events arrive in recorded order: the partition's own events plus the broker- and
cluster-level events that concern its replicas. Two kinds matter:

* Controller inputs (topic creation, broker failure, reassignment, ...) are turned into
  the steps the era's controller takes (`ControllerOperations` below: the operations of
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
incrementally so that a long history replays in bounded memory."""
from __future__ import annotations

import copy
from typing import Iterable, Iterator, NamedTuple

from state_machine import events as E
from state_machine.checks import RULES, Severity, Violation
from state_machine.eras import Era, resolve_era
from state_machine.events import Event, provenance
from state_machine.selectors import (Election, ElectionFailure, ElectionKind, FailureReason, SelectorInput,
                                     is_valid_new_leader, last_known_leader, select)
from state_machine.states import (NO_LEADER, NO_LEADER_CHANGE, REPLICA_STATES_BY_NAME, PartitionState, ReplicaState,
                                  partition_state, replica_state)

P = PartitionState
R = ReplicaState
UNCLEAN_CONFIG = "unclean.leader.election.enable"

# Performance notes (the replay runs once per event and partition, millions of times):
# state names are parsed with prebuilt dicts (states.*_BY_NAME), an enum member's string
# is read as `member._value_` (a plain attribute, where `.value` is a property call), rows are
# built with `_new_tuple(RowType, values)` (the same NamedTuple, without its Python-level
# __new__), and matching a decision to a pending step scans the list without a predicate closure.
_new_tuple = tuple.__new__
_NOT_KRAFT = (None, None, None)   # a ZooKeeper-mode timeline row's elr, last_known_elr, leader_recovery_state
# The partition states an Online step elects from; in any other state a conditional Online
# step (triggerOnlinePartitionStateChange) is a no-op.
_ELECTABLE = (P.NewPartition, P.OfflinePartition)


class TimelineRow(NamedTuple):
    seq: int
    valid_from: int | None
    valid_to: int | None
    partition_state: str
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    replicas: tuple[int, ...]
    controller_epoch: int | None
    election: str | None
    source: str
    inferred: bool
    # KRaft only (None in ZooKeeper mode): KIP-966's eligible leader replicas and last known
    # ELR, and the leader recovery state. A later audit carries them (PartitionStateCarried).
    elr: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None
    leader_recovery_state: str | None = None
    # The target replicas (ZooKeeper mode: RAR) of a reassignment in flight; None when none.
    target_replicas: tuple[int, ...] | None = None


def closed(row: TimelineRow, valid_to: int | None) -> TimelineRow:
    """`row._replace(valid_to=valid_to)`, without its Python-level call: valid_to is the third
    field. Every timeline row the replay writes is closed so."""
    return _new_tuple(TimelineRow, row[:2] + (valid_to,) + row[3:])


class ReplicaRow(NamedTuple):
    seq: int
    valid_from: int | None
    replica: int
    replica_state: str
    source: str
    inferred: bool


class Step(NamedTuple):
    """One action the controller takes for this partition in reaction to an input."""
    op: str                       # see the OP_* names
    target: object = None         # PartitionState / ReplicaState / tuple of replicas
    replica: int = -1
    kind: ElectionKind | None = None
    conditional: bool = False     # Online steps: only if the partition is New/Offline by then
    cause: Event | None = None
    assignment: tuple[int, ...] = ()  # NewPartition steps: the AR loaded from ZooKeeper


def mark_alive(live: set[int], dead: set[int], brokers) -> None:
    """The liveness rule of a startup (or controlled shutdown): `brokers` alive, no longer dead."""
    live.update(brokers)
    dead.difference_update(brokers)


def mark_dead(live: set[int], dead: set[int], brokers) -> None:
    """The liveness rule of a failure: `brokers` dead, no longer alive."""
    live.difference_update(brokers)
    dead.update(brokers)


def _unclean_value(event: Event) -> bool | None:
    """The unclean.leader.election.enable setting a config event carries (None: no override)."""
    return None if event.config_value is None else event.config_value.strip().lower() == "true"


class DeferredSelection(NamedTuple):
    """The selector's outcome for a recorded election, computed only if a check needs it
    (`_check_selector`: the leader changed; most recorded elections need none). The
    selector is pure and reads only the assignment, ISR, leader, liveness, reassignment
    target and unclean setting, none of which change between the decision's arrival and
    that check, so running it there gives the outcome it would have given on arrival."""
    kind: ElectionKind
    unclean_allowed: bool | None = None   # passed to _selector_input


def _shared_step(cause: Event, op: str, target: object, replica: int = -1, kind: ElectionKind | None = None,
                 conditional: bool = False) -> "Step":
    """Step(op, target, replica, kind, conditional, cause): one per event and value,
    shared by every partition the event is delivered to. A broker- or cluster-level
    input fans out to hundreds of partitions, each of which would otherwise build the
    same steps; a Step is an immutable value, so sharing it changes nothing."""
    global _shared_steps
    event, steps = _shared_steps
    if event is not cause:
        steps = {}
        _shared_steps = (cause, steps)
    key = (op, target, replica, kind, conditional)
    step = steps.get(key)
    if step is None:
        step = steps[key] = Step(op, target, replica, kind, conditional, cause)
    return step


_shared_steps: tuple = (None, {})   # (the last event that made shared steps, its steps)


def _retry_election(cause: Event) -> "Step":
    """The conditional offline election that ends onBrokerStartup, onBrokerFailure and
    onControllerFailover (triggerOnlinePartitionStateChange): _shared_step's, for the step
    every partition of such an input gets, without building a key."""
    global _last_retry
    event, step = _last_retry
    if event is not cause:
        step = Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.offline, conditional=True, cause=cause)
        _last_retry = (cause, step)
    return step


_last_retry: tuple = (None, None)

# Said of an unclean election by a controller that never elects so on its own (unclean_gate admin_only).
_ADMIN_ONLY_NOTE = ("; this release's controller does not read unclean.leader.election.enable (KRaft before 3.9): "
                    "only an admin UNCLEAN election elects outside the ISR")

_LAST_KNOWN_LEADER_NOTE = ("; elected as the last known leader (KIP-966 lastKnownElr): with the ISR and the ELR empty, "
                           "the controller elects it whatever unclean.leader.election.enable says, and marks the "
                           "partition RECOVERING")

# KRaft 3.7.0-4.0.2 (era last_known_leader "even_if_dead"); 4.1.0+ would not elect it.
_DEAD_LAST_KNOWN_LEADER_NOTE = ("; it was not alive (fenced or shutting down): 3.7.0-4.0.2 elect the last known leader "
                                "anyway (canElectLastKnownLeader only logs it), and the partition waits for it")

OP_PARTITION = "partition"
OP_REPLICA = "replica"
OP_EPOCH_BUMP = "epoch_bump"          # updateLeaderEpoch: same leader and ISR, epoch + 1
OP_ASSIGNMENT = "assignment"          # AR written to ZK
OP_DELETION_DONE = "deletion_done"    # TopicDeletionManager.completeDeleteTopic
OP_REASSIGN_DONE = "reassign_done"    # AR = RAR written, removePartitionFromReassignedPartitions


_IMMUTABLE = (tuple, int, str, float, type(None), Era)


def copy_state(value, memo: dict):
    """A deep copy of replay state (`copy.deepcopy`'s contract, `memo` included: what two copied
    objects share, their copies share) that shares what is never changed in place: tuples (rows,
    events, replica lists), numbers, strings, enums. deepcopy walks every tuple to the last int; the
    generator copies its whole state before each step, and that walk was most of its time."""
    if isinstance(value, _IMMUTABLE):
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    kind = type(value)
    if kind is set:   # of hashable, immutable elements
        done = memo[id(value)] = set(value)
    elif kind is list:   # in the memo before its elements: a list that holds itself is copied once
        done = memo[id(value)] = []
        done.extend(copy_state(x, memo) for x in value)
    elif kind is dict:
        done = memo[id(value)] = {}
        done.update((k, copy_state(v, memo)) for k, v in value.items())
    else:
        return copy.deepcopy(value, memo)
    return done


class PartitionReplay:
    """Replays one (cluster, topic, partition). Feed events in recorded order."""

    # The replay reads and writes these for every event. Slots are the fastest attributes
    # (39 of them are more than an instance dict shares keys for); `__dict__` keeps the
    # object open to attributes set from outside (the generator's partition_key).
    __slots__ = (
        "cluster", "topic", "partition", "era", "kraft", "state", "replicas", "leader", "leader_epoch", "isr",
        "zk_version", "write_controller_epoch", "leader_recovery_state", "elr", "last_known_elr", "elected_from_elr",
        "elected_into_isr", "replica_states",
        "reassignment_target", "adding_replicas", "uncached_epochs",
        "assignment_order_known", "replicas_partial", "_completion_queued", "deleting", "live", "dead", "liveness_known", "liveness_complete",
        "shutting_down",
        "controller_epoch", "controller_of_epoch", "unclean_topic", "unclean_cluster", "unclean_changes", "recorded_epoch",
        "recorded_epoch_leader", "last_decision", "unclean_logged", "last_unclean_violation", "last_unclean_leader",
        "isr_removed_by_write", "isr_unrecorded", "controller_isr", "failover", "isr_proposal", "pending",
        "_rows", "_open_row", "_carried_row", "_replica_rows", "_violations",
        "events_replayed", "_handlers", "observer", "__dict__",
    )

    def __init__(self, cluster: str, topic: str, partition: int, era: Era):
        self.cluster, self.topic, self.partition, self.era = cluster, topic, partition, era
        self.kraft = era.mode == "kraft"
        # Partition state as the controller knows it.
        self.state = P.NonExistentPartition
        self.replicas: tuple[int, ...] = ()
        self.leader = NO_LEADER
        self.leader_epoch = -1
        self.isr: tuple[int, ...] = ()
        self.zk_version = -1
        self.write_controller_epoch: int | None = None
        self.leader_recovery_state = "RECOVERED"
        self.elr: tuple[int, ...] = ()   # KRaft eligible leader replicas (KIP-966): electing one is clean
        self.last_known_elr: tuple[int, ...] = ()   # KIP-966: the last leader, elected when ISR and ELR are empty
        self.elected_from_elr = False
        # KRaft: the leader joined the ISR in the change that elected it, as a reassignment completed (clean).
        self.elected_into_isr = False
        self.replica_states: dict[int, ReplicaState] = {}
        self.reassignment_target: tuple[int, ...] | None = None
        # KRaft: the addingReplicas of the reassignment in flight; None = not known (a carried state).
        self.adding_replicas: tuple[int, ...] | None = ()
        # (leader, epoch) values the controller's cache still holds after a reassignment's epoch
        # bump that reached ZooKeeper only (era.reassign_bump_cached False, before 2.4).
        self.uncached_epochs: set[tuple[int, int]] = set()
        self.assignment_order_known = True
        # `replicas` lacks the original assignment: a reassignment began before the history
        # showed it (a history that starts mid-way). No membership check reads it until it completes.
        self.replicas_partial = False
        self._completion_queued = False
        self.deleting = False
        # Cluster context, restricted to what this partition sees.
        # Liveness: `live` holds the brokers known alive. Until a complete list of them (a new
        # controller's), a history that starts mid-way knows only the brokers its events name:
        # a replica not known dead (`dead`) is taken for alive (_presumed_live).
        self.live: set[int] = set()
        self.dead: set[int] = set()
        self.liveness_known = False      # some broker event seen: the liveness checks run
        self.liveness_complete = False   # `live` is every live broker
        self.shutting_down: set[int] = set()
        self.controller_epoch: int | None = None       # highest seen
        self.controller_of_epoch: dict[int, int] = {}
        self.failover: tuple[int | None, int] | None = None   # (controller, epoch) of the last ControllerFailover
        self.unclean_topic: bool | None = None
        self.unclean_cluster: bool | None = None
        # (seq of a ConfigChange of the unclean setting, the setting before it): what an input
        # before that change ran with (see unclean_allowed).
        self.unclean_changes: tuple[tuple[int, bool | None], ...] = ()
        # Highest leader epoch seen in a *recorded* decision, and its leader.
        self.recorded_epoch = -1
        self.recorded_epoch_leader = NO_LEADER
        self.last_decision: Event | None = None
        self.unclean_logged: list[Event] = []
        self.last_unclean_violation: int | None = None
        self.last_unclean_leader: int | None = None
        # The replica whose ISR removal a LeaderAndIsr write just claimed: its own
        # OfflineReplica line, if it follows, records the same removal, not a second one.
        self.isr_removed_by_write: int | None = None
        # The open row is an election whose line named the leader alone (ZK <= 1.0): its ISR
        # and leader epoch wait for the LeaderAndIsr request the controller logs next.
        self.isr_unrecorded = False
        # The ISR the controller last wrote or sent, as its cache holds it: a leader's own write
        # reaches that cache late, if at all, before AlterIsr (era.isr_cache_by_notification).
        self.controller_isr: tuple[int, ...] = ()
        # A leader's ISR proposal ("Shrinking ISR from ...", before 2.4), held until the partition's
        # next event: its write may fail (IsrUpdateFailed, the line right after it). See feed.
        self.isr_proposal: Event | None = None
        # Work in progress and output.
        self.pending: list[Step] = []
        self._rows: list[TimelineRow] = []
        # The row of the partition as it is now, its valid_to still None: closed by the next change.
        self._open_row: TimelineRow | None = None
        # The open row as PartitionStateCarried gave it: an earlier audit's row, not written again.
        self._carried_row: TimelineRow | None = None
        self._replica_rows: list[ReplicaRow] = []
        self._violations: list[Violation] = []
        self.events_replayed = 0
        self._handlers = handlers_for(era)
        # Called with (previous_state, row) for each new timeline row and (previous, row)
        # for each replica row; the generator uses it to record what the controller did.
        self.observer = None

    # The generator copies its partitions before each step (to undo an election the era would not
    # allow): see copy_state. The lists of finished rows and logged elections only grow, by tuples.
    _APPENDED_ONLY = frozenset(("_rows", "_replica_rows", "_violations", "unclean_logged"))

    def __deepcopy__(self, memo) -> "PartitionReplay":
        clone = PartitionReplay.__new__(PartitionReplay)
        memo[id(self)] = clone
        for name in self.__slots__:
            if name == "__dict__" or not hasattr(self, name):
                continue
            value = getattr(self, name)
            if value is self._handlers:   # the era's handler table, shared by every replay
                pass
            elif name in self._APPENDED_ONLY:
                value = list(value)
            else:
                value = copy_state(value, memo)
            setattr(clone, name, value)
        clone.__dict__.update(copy_state(self.__dict__, memo))
        return clone

    # ---------------------------------------------------------------- feeding

    def feed(self, event: Event) -> None:
        self.events_replayed += 1
        handler = self._handlers.get(event.event_type)
        if handler is None:
            raise ValueError(f"{provenance(event)}: event type {event.event_type!r} is not replayable in era {self.era.name}")
        if self.isr_proposal is not None and handler is not ON_ISR_UPDATE_FAILED:
            self.commit_isr_proposal()
        handler(self, event)

    def feed_all(self, events: Iterable[Event]) -> "PartitionReplay":
        for e in events:
            self.feed(e)
        return self

    def drain(self) -> tuple[list[TimelineRow], list[ReplicaRow], list[Violation]]:
        """The rows and violations finished so far (the open timeline row stays)."""
        out = (self._rows, self._replica_rows, self._violations)
        self._rows, self._replica_rows, self._violations = [], [], []
        self.last_unclean_violation = None  # already handed out; a later log line only corroborates it
        return out

    def finish(self) -> tuple[list[TimelineRow], list[ReplicaRow], list[Violation]]:
        """Apply what is still pending, report an unmatched logged unclean election, close."""
        if self.isr_proposal is not None:
            self.commit_isr_proposal()
        self._flush(None)
        for logged in self.unclean_logged:
            self._violate("UNCLEAN_LEADER_ELECTION", logged, self._unclean_severity(False),
                          f"the controller logged an unclean election of leader {logged.leader} that the replayed history does not show", ())
        self.unclean_logged = []
        if self._open_row is not None and self._open_row is not self._carried_row:
            self._rows.append(self._open_row)
        self._open_row = None
        return self.drain()

    # ---------------------------------------------------------------- output

    def _emit(self, cause: Event | None, election: ElectionKind | str | None, inferred: bool) -> None:
        if cause is not None:
            seq, ts = cause.seq, cause.event_time_ms
        else:
            seq, ts = -1, None
        state = self.state._value_
        row = self._open_row
        self.isr_unrecorded = False
        if row is not None:
            opened = row.valid_from
            if ts is not None and opened is not None and ts < opened:
                # An inferred step applied after a later record: it happened no earlier than that record.
                ts = opened
            if (row.partition_state == state and row.leader == self.leader and row.leader_epoch == self.leader_epoch
                    and row.isr == self.isr and row.replicas == self.replicas
                    and (not self.kraft or (row.elr == self.elr and row.last_known_elr == self.last_known_elr
                                            and row.leader_recovery_state == self.leader_recovery_state))
                    and row.target_replicas == self.reassignment_target):
                return  # nothing changed: the open row goes on
            if row is not self._carried_row:
                self._rows.append(closed(row, ts))
        # Only a row that is kept needs its provenance (its usual case, file:line, inlined) and election name.
        if cause is None:
            source = ""
        else:
            source_file, source_line = cause.source_file, cause.source_line
            source = f"{source_file}:{source_line}" if source_file is not None and source_line is not None else provenance(cause)
        election_name = election._value_ if isinstance(election, ElectionKind) else election
        self._open_row = self._row_now(seq, ts, state, election_name, source, inferred)
        if self.observer is not None:
            self.observer.partition_row(self, row.partition_state if row is not None else None, self._open_row)

    def _row_now(self, seq: int, valid_from: int | None, state: str, election: str | None,
                 source: str, inferred: bool) -> TimelineRow:
        """The open timeline row (valid_to still None) of the partition as it is now."""
        return _new_tuple(TimelineRow, (
            seq, valid_from, None, state, self.leader, self.leader_epoch, self.isr,
            self.replicas, self.write_controller_epoch, election, source, inferred,
            *((self.elr, self.last_known_elr, self.leader_recovery_state) if self.kraft else _NOT_KRAFT),
            self.reassignment_target))

    def _replace_open_row(self, row: TimelineRow) -> None:
        """The open row, some of its fields recorded otherwise; the carried row stays the carried one."""
        if self._open_row is self._carried_row:
            self._carried_row = row
        self._open_row = row

    def _set_replica(self, replica: int, state: ReplicaState, cause: Event | None, inferred: bool) -> None:
        states = self.replica_states
        previous = states.get(replica)
        if previous is state:
            return
        states[replica] = state
        self._replica_row(replica, previous, state, cause, inferred)

    def _replica_row(self, replica: int, previous: ReplicaState | None, state: ReplicaState,
                     cause: Event | None, inferred: bool) -> None:
        if cause is not None:
            source_file, source_line = cause.source_file, cause.source_line
            # provenance(cause), its usual case (file:line) inlined
            source = f"{source_file}:{source_line}" if source_file is not None and source_line is not None else provenance(cause)
            row = _new_tuple(ReplicaRow, (cause.seq, cause.event_time_ms, replica, state._value_, source, inferred))
        else:
            row = _new_tuple(ReplicaRow, (-1, None, replica, state._value_, "", inferred))
        self._replica_rows.append(row)
        if self.observer is not None:
            self.observer.replica_row(self, previous, row)

    def _violate(self, rule: str, event: Event, severity: Severity | None, detail: str,
                 related: Iterable[Event | None]) -> None:
        evidence = (provenance(event),) + tuple(provenance(r) for r in related if r is not None and r is not event)
        self._violations.append(Violation(rule, (severity or RULES[rule].severity).value, event.seq,
                                          event.event_time_ms, detail, evidence))

    # ---------------------------------------------------------------- context

    @property
    def removing_replicas(self) -> tuple[int, ...]:
        """The replicas the reassignment in flight removes (Kafka's removingReplicas): the ones
        outside its target; none when no reassignment is in flight."""
        target = self.reassignment_target
        return () if target is None else tuple(r for r in self.replicas if r not in target)

    def unclean_allowed(self, since: Event | None = None) -> bool | None:
        """Whether an unclean election is allowed for this topic; None = cannot be told.
        With `since`, as it was when that input ran. An inferred step (no line of its own)
        happened when the controller handled its input, and read the setting then; a
        recorded decision read it when its line was written, so it is judged without `since`."""
        if self.era.unclean_gate == "always":
            return True
        if self.era.unclean_gate == "admin_only":
            return False   # KRaft 2.8-3.8 does not read the config: only an admin UNCLEAN election elects so
        if since is not None and self.unclean_changes and since.seq is not None:
            for seq, before in self.unclean_changes:
                if seq > since.seq:
                    return before
        if self.unclean_topic is not None:
            return self.unclean_topic
        return self.unclean_cluster

    def _unclean_severity(self, forced: bool) -> Severity:
        allowed = True if forced else self.unclean_allowed()
        return Severity.info if allowed else Severity.error if allowed is False else Severity.warning

    def _presumed_live(self) -> set[int]:
        """The brokers taken for alive: `live`, and until it is complete every replica (and
        reassignment target) not known dead."""
        if self.liveness_complete:
            return self.live
        named = set(self.replicas)
        if self.reassignment_target:
            named.update(self.reassignment_target)
        return self.live | (named - self.dead)

    def _alive(self, broker: int) -> bool:
        return broker in self.live or (not self.liveness_complete and broker not in self.dead)

    def _eligible(self) -> set[int]:
        live = self._presumed_live()
        return live - self.shutting_down if self.shutting_down else live

    def _unclean_in_effect(self, since: Event | None = None) -> bool:
        """unclean_allowed, a setting no event showed being the broker's default."""
        allowed = self.unclean_allowed(since)
        return self.era.unclean_default if allowed is None else allowed

    def _selector_input(self, unclean_allowed: bool | None = None, since: Event | None = None) -> SelectorInput:
        allowed = self._unclean_in_effect(since) if unclean_allowed is None else unclean_allowed
        shutting_down = self.shutting_down
        live = self.live if self.liveness_complete else self._presumed_live()
        eligible = live - shutting_down if shutting_down else live  # _eligible(), inlined
        return _new_tuple(SelectorInput, (self.replicas, self.isr, self.leader, eligible, shutting_down,
                                          self.reassignment_target, allowed, self.elr, self.last_known_elr))

    def _is_stale(self, event: Event) -> bool:
        """A decision under an older controller epoch than one seen: a zombie controller."""
        ce = event.controller_epoch
        if ce is None:
            return False
        if ce == self.controller_epoch and self.controller_of_epoch.get(ce) == event.controller_id:
            return False  # the known controller of the current epoch: nothing to check or learn
        if self.controller_epoch is not None and ce < self.controller_epoch:
            known = self.controller_of_epoch.get(self.controller_epoch)
            by = "" if known is None else f" (controller {known})"   # None: a carried epoch
            self._violate("STALE_CONTROLLER_EPOCH", event, None,
                          f"decision by controller {event.controller_id} at controller epoch {ce}, "
                          f"but epoch {self.controller_epoch}{by} was already seen", (self.last_decision,))
            return True
        self._observe_controller(event, event.controller_id, ce)
        return False

    def _observe_controller(self, event: Event, controller_id: int | None, epoch: int) -> None:
        if self.controller_epoch is None or epoch > self.controller_epoch:
            self.controller_epoch = epoch
        if controller_id is None:
            return
        known = self.controller_of_epoch.get(epoch)
        if known is None:
            self.controller_of_epoch[epoch] = controller_id
        elif known != controller_id:
            self._violate("DUPLICATE_CONTROLLER_EPOCH", event,
                          None if self.era.controller_epoch_strict else Severity.warning,
                          f"controllers {known} and {controller_id} both acted at controller epoch {epoch}", ())

    # ---------------------------------------------------------------- pending steps

    def _flush(self, cause: Event | None) -> None:
        if not self.pending:
            return
        pending, self.pending = self.pending, []
        for step in pending:
            if step.conditional and step.op == OP_PARTITION and self.state not in _ELECTABLE:
                continue  # _step_partition's first test, inlined: a no-op (most steps broker events queue)
            STEP_APPLIERS[step.op](self, step, None)  # self._apply_step(step, None)
            # A step may queue follow-up steps (reassignment completion): run them too.
            if self.pending:
                pending_more, self.pending = self.pending, []
                for more in pending_more:
                    self._apply_step(more, None)

    # A recorded decision claims the first pending step it matches; the steps before it
    # are applied as inferred, and the claimed one is returned (removed). None when
    # nothing matches. While scanning, the partition state the steps before would leave
    # is followed: a conditional Online step that would be a no-op when its turn comes
    # (the partition is not New/Offline by then) cannot be claimed. There is one scan per
    # kind of decision (below) rather than one scan with a predicate: this runs for most
    # events, and a closure per call costs more than the scan.

    def _take(self, i: int) -> Step:
        """Remove and return pending step i, applying the steps before it as inferred."""
        pending = self.pending
        step = pending[i]
        before = pending[:i]
        del pending[:i + 1]  # in place: steps queued while applying `before` go after the rest
        self._apply_inferred(before)
        return step

    def _apply_inferred(self, steps: list[Step]) -> None:
        """Apply steps no record claimed (they happened, unlogged)."""
        for s in steps:
            if s.conditional and s.op == OP_PARTITION and self.state not in _ELECTABLE:
                continue  # _step_partition's first test, inlined: a no-op
            STEP_APPLIERS[s.op](self, s, None)  # self._apply_step(s, None)

    def _claim_partition(self, target: PartitionState) -> Step | None:
        """The first pending partition step to `target`."""
        state = self.state
        for i, step in enumerate(self.pending):
            if step.op == OP_PARTITION:
                if step.conditional and state not in _ELECTABLE:
                    continue  # would be a no-op when its turn comes: nothing to claim
                state = step.target
                if state is target:
                    return self._take(i)
        return None

    def _claim_replica(self, replica: int, target: ReplicaState) -> Step | None:
        """The first pending step of `replica` to `target`."""
        pending = self.pending
        if pending:
            step = pending[0]  # the usual case: a TRACE log shows the steps in order
            if step.op == OP_REPLICA and step.replica == replica and step.target is target:
                del pending[0]
                return step
        for i, step in enumerate(pending):
            # Partition steps never match; skipped conditional ones change nothing here.
            if step.op == OP_REPLICA and step.replica == replica and step.target is target:
                # Kafka moves one input's replicas to a state together, in a set's order, not in
                # the order queued here: the steps of that batch just before this one are still
                # to come (a topic created with AR [2,3,1] logs NewReplica for 1 first).
                j, cause = i, step.cause
                while j and pending[j - 1].op == OP_REPLICA and pending[j - 1].target is target \
                        and pending[j - 1].cause is cause:
                    j -= 1
                return self._take(i) if j == i else self._take_keeping(i, pending[:j], pending[j:i])
        return None

    def _claim_isr_removal(self, replica: int) -> Step | None:
        """The pending OfflineReplica step of `replica`, for a write that names it. Earlier
        inputs' steps before it are applied first, and this input's partition steps (Kafka runs
        them before its replicas'); this input's replica steps stay pending. Kafka runs an
        input's replica steps state by state, each state's replicas in a set's order, not
        always the order queued here (a reassignment's, in AR order)."""
        pending = self.pending
        for i, step in enumerate(pending):
            if step.op == OP_REPLICA and step.replica == replica and step.target is R.OfflineReplica:
                cause = step.cause
                peers = [s for s in pending[:i] if s.cause is cause and s.op == OP_REPLICA]
                before = [s for s in pending[:i] if s.cause is not cause or s.op != OP_REPLICA]
                return self._take_keeping(i, before, peers)
        return None

    def _take_keeping(self, i: int, before: list[Step], keep: list[Step]) -> Step:
        """Remove and return pending step i. Of the steps ahead of it, `before` are applied as
        inferred and `keep` (the same input's, still to come) stay pending, first."""
        pending = self.pending
        step = pending[i]
        del pending[:i + 1]
        pending[:0] = keep
        self._apply_inferred(before)
        return step

    def _claim_write(self, leader_required: bool) -> Step | None:
        """The first pending step that writes a leader/ISR: an election (Online step, only
        if `leader_required`), an OfflineReplica of an ISR member (removeReplicaFromIsr),
        or a leader epoch bump. A value with a leader is not the removal of the leader itself,
        which writes no leader (removeReplicaFromIsr): at INFO only the election after it is
        logged (a 2.4 controller failover's leader epoch 0 -> 2, epoch 1 unlogged)."""
        state = self.state
        isr = self.isr
        for i, step in enumerate(self.pending):
            op = step.op
            if op == OP_PARTITION:
                if step.conditional and state not in _ELECTABLE:
                    continue
                state = step.target
                if leader_required and state is P.OnlinePartition:
                    return self._take(i)
            elif op == OP_REPLICA:
                if (step.target is R.OfflineReplica and step.replica in isr
                        and not (leader_required and step.replica == self.leader)):
                    return self._take(i)
            elif op == OP_EPOCH_BUMP:
                return self._take(i)
        return None

    def _apply_step(self, step: Step, record: Event | None) -> None:
        STEP_APPLIERS[step.op](self, step, record)

    # -- partition steps

    def _step_partition(self, step: Step, record: Event | None) -> None:
        target = step.target
        current = self.state
        if record is None:
            if step.conditional and current not in _ELECTABLE:
                return
            if current not in self.era.partition_valid_previous.get(target, ()):
                return  # Kafka logs the invalid transition and leaves the partition alone
        cause = record or step.cause
        if target is P.NewPartition and step.assignment:
            self.replicas, self.replicas_partial = step.assignment, False
        if target is P.OnlinePartition:
            kind = ElectionKind.initial if current is P.NewPartition else (step.kind or ElectionKind.offline)
            outcome = select(kind, self.era, self._selector_input(True if step.kind is ElectionKind.unclean else None,
                                                                  None if record is not None else step.cause))
            if record is not None and record.leader is not None:
                self._recorded_election(record, kind, outcome, transition=True)
                return
            self._apply_outcome(outcome, cause, inferred=record is None, transition_record=record)
            return
        self.state = target
        if target is P.NonExistentPartition:
            self._leave_partition()
        self._emit(cause, None, record is None)

    def _apply_outcome(self, outcome, cause: Event | None, inferred: bool, transition_record: Event | None) -> None:
        if isinstance(outcome, Election):
            self._write(outcome.leader, outcome.isr, cause, outcome.kind, inferred)
            if outcome.unclean and self.era.leader_recovery:
                self.leader_recovery_state = "RECOVERING"
            self.state = P.OnlinePartition
            self._emit(cause, outcome.kind, inferred)
        elif outcome.reason is FailureReason.ELECTION_NOT_NEEDED or transition_record is not None:
            # Not needed (or the log says it went Online without a value): mark Online, no write.
            self.state = P.OnlinePartition
            self._emit(cause, None, inferred)
        # Any other failure: the state change fails and the partition keeps its state.

    def _write(self, leader: int, isr: tuple[int, ...], cause: Event | None, kind, inferred: bool) -> None:
        self.leader = leader
        self.isr = self.controller_isr = tuple(isr)
        self.leader_epoch += 1
        self.zk_version += 1
        self.write_controller_epoch = self.controller_epoch

    def _leave_partition(self) -> None:
        """Offline -> NonExistent. From 2.1 (KAFKA-6753) a deletion takes this step as it starts,
        and the step only marks the state: the znode keeps its leader and ISR, which the deletion's
        OfflineReplica steps still shrink, each at a new leader epoch (real 2.8.2 and 3.9.2
        captures: epochs 4, 5, 6 after the partition went NonExistent). They are forgotten when
        the deletion completes."""
        if not (self.deleting and self.era.deletion_partition_removed_at == "start"):
            self._forget_partition()

    def _forget_partition(self) -> None:
        self.leader, self.isr, self.controller_isr, self.leader_epoch = NO_LEADER, (), (), -1
        self.elr, self.last_known_elr, self.elected_from_elr, self.elected_into_isr = (), (), False, False
        self.zk_version = -1
        self.recorded_epoch, self.recorded_epoch_leader = -1, NO_LEADER
        self.reassignment_target, self.adding_replicas = None, ()
        self.uncached_epochs.clear()

    # -- replica steps

    def _step_replica(self, step: Step, record: Event | None) -> None:
        r, target = step.replica, step.target
        cause = record or step.cause
        if record is None:
            valid_previous = self.era.replica_valid_previous.get(target)
            if valid_previous is None:
                return  # a state this era does not have (0.8.0 deletion states)
            if self.replica_states.get(r, R.NonExistentReplica) not in valid_previous:
                return  # logged by Kafka as an invalid transition; the replica keeps its state
        self._replica_effects(r, target, cause, record is None)

    def _replica_effects(self, r: int, target: ReplicaState, cause: Event | None, inferred: bool) -> None:
        """A replica transition's side effects on the partition (ReplicaStateMachine)."""
        states = self.replica_states
        if target is R.OfflineReplica:
            if (self.leader_epoch < 0 or self.state is P.NewPartition
                    or (self.state is P.NonExistentPartition and not self.deleting)):
                policy = self.era.offline_replica_without_leadership
                if policy != "set_offline":
                    return
            elif r in self.isr:
                self._remove_from_isr(r, cause, inferred)
        elif target is R.OnlineReplica:
            if states.get(r) is R.NewReplica and r not in self.replicas:
                if not self.replicas:   # the rest of the assignment is unknown
                    self.replicas_partial = True
                self.replicas = self.replicas + (r,)
                self._emit(cause, None, inferred)
        elif target is R.NonExistentReplica:
            if r in self.replicas:
                self.replicas = tuple(x for x in self.replicas if x != r)
                self._emit(cause, None, inferred)
            previous = states.pop(r, None)
            self._replica_row(r, previous, target, cause, inferred)
            return
        # _set_replica and _replica_row, inlined: this is the replay's most frequent path.
        previous = states.get(r)
        if previous is target:
            return
        states[r] = target
        if cause is not None:
            source_file, source_line = cause.source_file, cause.source_line
            source = f"{source_file}:{source_line}" if source_file is not None and source_line is not None else provenance(cause)
            row = _new_tuple(ReplicaRow, (cause.seq, cause.event_time_ms, r, target._value_, source, inferred))
        else:
            row = _new_tuple(ReplicaRow, (-1, None, r, target._value_, "", inferred))
        self._replica_rows.append(row)
        if self.observer is not None:
            self.observer.replica_row(self, previous, row)

    def _remove_from_isr(self, r: int, cause: Event | None, inferred: bool) -> None:
        """removeReplicaFromIsr: drop r from the ISR (leader -1 if r led), epoch + 1."""
        if r not in self.isr:
            return
        new_leader = NO_LEADER if r == self.leader else self.leader
        self._write(new_leader, self._isr_without(r, cause if inferred else None), cause, None, inferred)
        self._emit(cause, None, inferred)

    def _isr_without(self, r: int, cause: Event | None) -> tuple[int, ...]:
        """The ISR removeReplicaFromIsr writes: r dropped, unless r is its last member and the
        era keeps that one (see Era.last_isr_member)."""
        new_isr = tuple(x for x in self.isr if x != r)
        if not new_isr:
            policy = self.era.last_isr_member
            if policy == "keep" or (policy == "keep_if_unclean_disabled" and self._unclean_in_effect(cause) is False):
                return self.isr
        return new_isr

    # -- other steps

    def _step_epoch_bump(self, step: Step, record: Event | None) -> None:
        if self.leader_epoch < 0:
            return
        self._note_uncached_bump()
        self._write(self.leader, self.isr, step.cause, None, record is None)
        self._emit(record or step.cause, None, record is None)

    def _step_assignment(self, step: Step, record: Event | None) -> None:
        self.replicas = tuple(step.target)
        self._emit(record or step.cause, None, record is None)

    def _step_deletion_done(self, step: Step, record: Event | None) -> None:
        self.deleting = False
        self.replicas = ()
        self._forget_partition()   # the topic's znodes are deleted
        self._emit(record or step.cause, None, record is None)

    # ---------------------------------------------------------------- recorded decisions

    def _recorded_election(self, record: Event, kind: ElectionKind | None, expected, transition: bool) -> None:
        """A recorded leader/ISR that a controller decided: check it against the state
        before it and against `expected` (the selector's outcome, if known); apply it."""
        leader = record.leader
        isr_recorded = record.isr is not None
        if not isr_recorded and type(expected) is DeferredSelection:   # resolved once: its ISR stands in below
            expected = select(expected.kind, self.era, self._selector_input(expected.unclean_allowed))
        isr = tuple(record.isr) if isr_recorded else self._unrecorded_isr(leader, expected)
        epoch = record.leader_epoch
        prev_isr, prev_leader = self.isr, self.leader
        changed_leader = leader != prev_leader and leader >= 0
        unclean = False
        if changed_leader and leader not in prev_isr and leader in isr and len(isr) > 1 and self.era.mode == "zk":
            # No ZK election adds anyone but an unclean leader to the ISR, and an unclean one
            # leaves the ISR [leader] alone: so the controller's ISR already held this leader,
            # and the replay's is behind (the leader's "ISR updated" line is logged after the
            # controller acted on it, in another broker's file).
            prev_isr = isr
        if changed_leader and kind is not ElectionKind.initial and self.leader_epoch >= 0 and leader not in prev_isr:
            unclean = True
            # An admin UNCLEAN election (2.4+, KIP-460) is allowed whatever the topic says.
            forced = kind is ElectionKind.unclean
            self._violate("UNCLEAN_LEADER_ELECTION", record, self._unclean_severity(forced),
                          f"leader {leader} elected at leader epoch {epoch if epoch is not None else self.leader_epoch + 1} "
                          f"was not in the previous ISR {list(prev_isr)} (previous leader {prev_leader})",
                          [self.last_decision] + self.unclean_logged)
            self.last_unclean_violation = len(self._violations) - 1
            self.last_unclean_leader = leader
            self.unclean_logged = []
        elif isr_recorded and leader >= 0 and leader not in isr:
            self._leader_not_in_isr(record, leader, isr)
        elif changed_leader:
            self._check_selector(record, leader, kind, expected)
        if isr_recorded:
            self._check_membership(record, leader, isr)
        self.leader, self.isr = leader, isr
        self.controller_isr = isr
        self.leader_epoch = epoch if epoch is not None else self.leader_epoch + 1
        self.zk_version = record.zk_version if record.zk_version is not None else self.zk_version + 1
        self._note_writer(record)
        if record.leader_recovery_state:
            self.leader_recovery_state = record.leader_recovery_state
        self._note_recorded(record)
        if leader >= 0 and (transition or self.state in (P.NewPartition, P.OfflinePartition)):
            self.state = P.OnlinePartition
        if unclean:
            election = ElectionKind.unclean
        elif changed_leader:
            election = kind or self._guess_kind(record, prev_leader)
        else:
            election = kind if kind in (ElectionKind.initial,) else None
        self._emit(record, election, False)
        self.isr_unrecorded = not isr_recorded

    def _unrecorded_isr(self, leader: int, expected) -> tuple[int, ...]:
        """The ISR of an election whose line names the leader alone (ZK 0.8-1.0 `... to
        OnlinePartition with leader L`; the LeaderAndIsr request logged next carries the ISR):
        the era's selector's, when it elects that leader; else the ISR as it stands if it holds
        the leader, else the leader alone (as an unclean election leaves it). No check reads it."""
        if isinstance(expected, Election) and expected.leader == leader:
            return tuple(expected.isr)
        return self.isr if leader in self.isr else (leader,)

    def _check_selector(self, record: Event, leader: int, kind: ElectionKind | None, expected) -> None:
        if not self.liveness_known:
            return
        # No assignment known (a history that starts mid-way, before any record names it): the
        # selector cannot be judged, only the leader's liveness.
        if expected is not None and self.assignment_order_known and self.replicas:
            if type(expected) is DeferredSelection:
                expected = select(expected.kind, self.era, self._selector_input(expected.unclean_allowed))
            if isinstance(expected, Election):
                if expected.leader != leader:
                    self._violate("UNEXPECTED_LEADER", record, None,
                                  f"{expected.kind.value} election chose {leader}; the {self.era.name} selector chooses "
                                  f"{expected.leader} (AR {list(self.replicas)}, ISR {list(self.isr)}, live {sorted(self._eligible())})",
                                  (self.last_decision,))
                return
            if expected.reason is not FailureReason.ELECTION_NOT_NEEDED and not (
                    expected.reason is FailureReason.NO_ISR_REPLICA_ONLINE and self.unclean_allowed() is None):
                self._violate("UNEXPECTED_LEADER", record, None,
                              f"{expected.kind.value} election chose {leader}; the {self.era.name} selector elects no one: "
                              f"{expected.detail}", (self.last_decision,))
            return
        no_liveness_check = kind is ElectionKind.controlled_shutdown and self.era.controlled_shutdown_leader != "assignment"
        if not self._alive(leader) and not no_liveness_check:
            known = f"live {sorted(self.live)}" if self.liveness_complete else f"known dead: {sorted(self.dead)}"
            self._violate("UNEXPECTED_LEADER", record, None, f"broker {leader} was elected leader but is not live ({known})",
                          (self.last_decision,))
        elif leader in self.shutting_down:
            self._violate("UNEXPECTED_LEADER", record, None,
                          f"broker {leader} was elected leader while shutting down", (self.last_decision,))

    def _check_membership(self, record: Event, leader: int, isr: tuple[int, ...]) -> None:
        replicas = tuple(record.replicas) if record.replicas is not None else self.replicas
        if not replicas or (record.replicas is None and self.replicas_partial):
            return
        # While a reassignment completes, Kafka sends LeaderAndIsr with the target replicas and
        # an ISR that still holds the replicas being removed (KafkaController step B3; B4 then
        # removes them): outside the record's replicas but inside the controller's AR. In 0.8.0
        # the new replicas join the ISR, and one may be elected, while AR is still the old one.
        # KRaft's replicas hold the whole reassignment in flight (target and removing): no excuse.
        target = None if self.kraft else self.reassignment_target
        in_flight = self.replicas + target if target is not None else ()
        outside = [r for r in isr if r not in replicas and r not in in_flight]
        if outside:
            self._violate("ISR_NOT_SUBSET_OF_REPLICAS", record, None,
                          f"ISR {list(isr)} has {outside} outside the assigned replicas {list(replicas)}", ())
        if leader >= 0 and leader not in replicas and leader in isr and (target is None or leader not in target):
            self._violate("LEADER_NOT_IN_REPLICAS", record, None,
                          f"leader {leader} is not an assigned replica {list(replicas)}", ())

    def _guess_kind(self, record: Event, prev_leader: int) -> ElectionKind | None:
        if record.election_type:
            try:
                return ElectionKind(record.election_type.lower())
            except ValueError:
                pass
        if self.state is P.NewPartition or prev_leader < 0 and self.leader_epoch < 0:
            return ElectionKind.initial
        if self.state is P.OfflinePartition or prev_leader < 0 or (self.liveness_known and not self._alive(prev_leader)):
            return ElectionKind.offline
        return None

    def _note_recorded(self, record: Event) -> None:
        """Remember the highest leader epoch a record showed (inferred epochs do not count:
        a regression is judged between records only)."""
        epoch = record.leader_epoch
        if epoch is not None and epoch >= self.recorded_epoch:
            self.recorded_epoch = epoch
            # The record's own leader: a leader's ISR change names it where the replay knows none
            # yet (a history that starts mid-way); -1 / -2 (none, KRaft's unchanged) leave the replay's.
            leader = record.leader
            self.recorded_epoch_leader = leader if leader is not None and leader >= 0 else self.leader
            row = self._open_row
            if (row is not None and row.inferred and row.leader_epoch == epoch and row.leader == self.recorded_epoch_leader
                    and (record.isr is None or tuple(record.isr) == row.isr)):
                # A record shows the inferred open row's leader, leader epoch (and ISR): its values
                # are recorded now, so a later night carries that epoch as a recorded one (only
                # its start stays inferred).
                self._replace_open_row(row._replace(inferred=False))
        self.last_decision = record

    def _epoch_regressed(self, record: Event) -> bool:
        epoch = record.leader_epoch
        if epoch is None:
            return False
        if epoch < self.recorded_epoch or (epoch == self.recorded_epoch and record.leader is not None
                                           and record.leader != self.recorded_epoch_leader):
            self._violate("LEADER_EPOCH_REGRESSION", record, None,
                          f"leader {record.leader} at leader epoch {epoch} after leader {self.recorded_epoch_leader} "
                          f"at leader epoch {self.recorded_epoch} was recorded", (self.last_decision,))
            return True
        return False

    # ---------------------------------------------------------------- ZK handlers

    def on_input(self, event: Event) -> None:
        if self.pending:
            self._flush(event)
        ControllerOperations.OPERATIONS[event.event_type](self, event)

    def on_reassignment_caught_up(self, event: Event) -> None:
        """The completion an ISR change the replay read first has queued is this input's own
        work, not an earlier input's left to flush."""
        if not self._completion_queued:
            self.on_input(event)

    def on_controller_failover(self, event: Event) -> None:
        """A failover announced twice is one: a controller.log read in splits can give it at its
        live brokers' line and again at its Ready line (ingest.lines, _failover_event). The
        second leaves what is pending alone, for the records still to come."""
        if event.controller_epoch is None or (event.controller_id, event.controller_epoch) != self.failover:
            self.on_input(event)

    def on_state_carried(self, record: Event) -> None:
        """PartitionStateCarried: the partition as an earlier audit left it. The replay goes on
        from it as if it had replayed that history itself; nothing is checked (it is no decision),
        and its row, the open one, is the earlier audit's: closed by the next change, not written."""
        self.state = partition_state(record.to_state)
        self.leader = record.leader if record.leader is not None else NO_LEADER
        self.leader_epoch = record.leader_epoch if record.leader_epoch is not None else -1
        self.isr = tuple(record.isr or ())
        self.replicas, self.replicas_partial = tuple(record.replicas or ()), False
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
        if record.detail != "inferred" and self.leader_epoch >= self.recorded_epoch:
            self.recorded_epoch, self.recorded_epoch_leader = self.leader_epoch, self.leader
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
        """ReplicaStateCarried: a replica's state as an earlier audit left it (no row, no check)."""
        self.replica_states[record.replica] = replica_state(record.to_state)

    def on_partition_state_change(self, record: Event) -> None:
        if self._is_stale(record) or (record.leader is not None and self._epoch_regressed(record)):
            return
        target = partition_state(record.to_state)
        previous = partition_state(record.from_state) if record.from_state else self.state
        if previous not in self.era.partition_valid_previous.get(target, ()):
            self._violate("ILLEGAL_PARTITION_TRANSITION", record, None,
                          f"{previous.value} -> {target.value} is not a valid transition in era {self.era.name} "
                          f"(valid previous states: {sorted(s.value for s in self.era.partition_valid_previous[target])})", ())
        if record.leader_epoch is not None and self._applied_by_broker_copy(record, target):
            self._note_recorded(record)
            return
        step = self._claim_partition(target)
        if step is None:
            if self._applied_by_broker_copy(record, target):
                # The 0.8-1.0 form, which names the leader alone, only once no pending step is
                # its own: the copy claimed the election (a real 0.8.2.2 capture). Taken as a new
                # decision, it ran the reassignment's remaining steps ahead of their own lines.
                self._note_recorded(record)
                return
            self._unprompted_partition_change(record, previous, target)
            return
        if (step.kind is ElectionKind.preferred and record.leader_epoch is None and self.state is P.OnlinePartition
                and record.leader == self.leader and self.replicas[:1] == (self.leader,)
                and self.era.preferred_already_leader == "not_needed"):
            # Up to 1.0 the controller swallows LeaderElectionNotNeeded and still logs "Changed
            # partition t-0 from OnlinePartition to OnlinePartition with leader L" (PartitionStateMachine
            # @1.0.2, a real 1.0.2 capture): nothing was written.
            self._note_recorded(record)
            return
        if target is P.NewPartition and record.replicas is not None:
            self.replicas, self.replicas_partial = tuple(record.replicas), False
        # The election the controller ran follows from its own state (New: the initial
        # election), not from the previous state the line claims (which may be illegal).
        initial = self.state is P.NewPartition
        self.state = previous if target is P.OnlinePartition else self.state
        if target is P.OnlinePartition and record.leader is not None and not initial:
            kind = step.kind or ElectionKind.offline
            expected = DeferredSelection(kind, True if step.kind is ElectionKind.unclean else None)
            self._recorded_election(record, kind, expected, transition=True)
            return
        if target is P.OnlinePartition and record.leader is not None:
            self._recorded_election(record, ElectionKind.initial, DeferredSelection(ElectionKind.initial), transition=True)
            return
        # Applied as recorded, whatever its condition said (a step that has none is passed as it is).
        self._apply_step(step._replace(conditional=False) if step.conditional else step, record)

    def _applied_by_broker_copy(self, record: Event, target: PartitionState) -> bool:
        """The controller's own line of the election a broker's copy of it already applied (the
        copy sorted first: the same millisecond, a lower broker id): nothing new."""
        if (target is not P.OnlinePartition or self.state is not P.OnlinePartition or record.leader != self.leader
                or self.leader_epoch != self.recorded_epoch):
            return False
        if record.leader_epoch is not None:
            return record.leader_epoch == self.leader_epoch
        return record.leader == self.recorded_epoch_leader  # the form naming the leader alone

    def _unprompted_partition_change(self, record: Event, previous: PartitionState, target: PartitionState) -> None:
        if target is P.NewPartition and record.replicas is not None:
            self.replicas, self.replicas_partial = tuple(record.replicas), False
        if target is P.OnlinePartition and record.leader is not None:
            # A decision no pending step explains comes after everything still pending.
            self._flush(record)
            self.state = previous
            kind = ElectionKind.initial if previous is P.NewPartition else None
            if kind is None and record.election_type:
                kind = self._guess_kind(record, self.leader)
            self._recorded_election(record, kind, None, transition=True)
            return
        self.state = target
        if target is P.NonExistentPartition:
            self._leave_partition()
        self._emit(record, None, False)

    def on_replica_state_change(self, record: Event) -> None:
        # The most frequent event. _is_stale's own first test, inlined: a decision of the
        # known controller of the current epoch is neither stale nor news.
        ce = record.controller_epoch
        if (ce is not None and (ce != self.controller_epoch or self.controller_of_epoch.get(ce) != record.controller_id)
                and self._is_stale(record)):
            return
        r = record.replica
        try:
            target = REPLICA_STATES_BY_NAME[record.to_state]  # replica_state(), its fast case inlined
        except (KeyError, TypeError):
            target = replica_state(record.to_state)
        pending = self.pending
        if pending:
            step = pending[0]  # _claim_replica's usual case, inlined: a TRACE log shows the steps in order
            if step.op == OP_REPLICA and step.replica == r and step.target is target:
                del pending[0]
            else:
                self._claim_replica(r, target)
        from_state = record.from_state
        if not from_state:
            previous = self.replica_states.get(r, R.NonExistentReplica)
        else:
            try:
                previous = REPLICA_STATES_BY_NAME[from_state]
            except (KeyError, TypeError):
                previous = replica_state(from_state)
        valid_previous = self.era.replica_valid_previous.get(target)
        if valid_previous is None or previous not in valid_previous:
            valid = sorted(s.value for s in self.era.replica_valid_previous.get(target, ()))
            self._violate("ILLEGAL_REPLICA_TRANSITION", record, None,
                          f"replica {r}: {previous.value} -> {target.value} is not a valid transition in era "
                          f"{self.era.name} (valid previous states: {valid})", ())
        if r == self.isr_removed_by_write:
            self.isr_removed_by_write = None
            if target is R.OfflineReplica and self.replica_states.get(r) is R.OfflineReplica:
                return
        self.replica_states[r] = previous
        self._replica_effects(r, target, record, inferred=False)

    def on_leader_and_isr(self, record: Event) -> None:
        if (self._is_stale(record) or (self.uncached_epochs and self._resent_from_cache(record))
                or self._epoch_regressed(record)):
            return
        leader = record.leader
        isr = tuple(record.isr) if record.isr is not None else self.isr
        epoch = record.leader_epoch
        if self.isr_unrecorded and leader == self.leader and (
                epoch is None or epoch == self.leader_epoch or self.recorded_epoch < self.leader_epoch):
            # The same decision, unless both name their leader epochs and differ (an INFO broker's
            # "starts at leader epoch 0", then 1 after the ISR lost a follower): the next one.
            self._complete_election(record, isr)
            return
        if epoch == self.leader_epoch and leader == self.leader:
            if isr != self.isr and not self._cached_isr(record, isr):
                self._leader_isr_update(record, isr)   # the ISR a leader changed, echoed by the controller
            else:
                self._note_recorded(record)
            if isr == self.isr:
                self.controller_isr = isr
            return
        # A value that names the replica it removed from the ISR (ZK: "after removing replica N
        # from the ISR as part of transition to OfflineReplica") claims that replica's step.
        # Otherwise an election step is claimed only by a value with a leader: a leaderless
        # value is the ISR removal that follows a failed election.
        removed = record.replica
        step = None if removed is None else self._claim_isr_removal(removed)
        if removed is not None and self.deleting and self.state is P.NonExistentPartition and self.leader_epoch < 0:
            # A topic deletion's ISR removal whose partition the replay never knew the leadership
            # of: there is no leader or ISR here to check it against.
            if step is not None:
                self._set_replica(removed, R.OfflineReplica, record, False)
            return
        if step is None:
            step = self._claim_write(leader >= 0)
        if step is None:
            self._flush(record)  # it comes after everything still pending
            kind = self._guess_kind(record, self.leader)
            self._recorded_election(record, kind, None, transition=False)
            return
        if step.op == OP_PARTITION:
            kind = ElectionKind.initial if self.state is P.NewPartition else (step.kind or ElectionKind.offline)
            expected = DeferredSelection(kind, True if step.kind is ElectionKind.unclean else None)
            self._recorded_election(record, kind, expected, transition=True)
        else:
            if step.op == OP_REPLICA:
                self._set_replica(step.replica, R.OfflineReplica, record, False)
                self.isr_removed_by_write = step.replica
                if record.isr is None:  # a broker's INFO line names the leader alone: the removal's ISR
                    isr = self._isr_without(step.replica, None)
            elif step.op == OP_EPOCH_BUMP:
                self._note_uncached_bump()
            expected_leader = NO_LEADER if step.op == OP_REPLICA and step.replica == self.leader else self.leader
            self._recorded_election(record, None, Election(ElectionKind.noop, expected_leader, isr, ()), transition=False)

    def _cached_isr(self, record: Event, isr: tuple[int, ...]) -> bool:
        """A same-epoch request from the controller's cache, which a leader's own ISR write
        reaches late (era.isr_cache_by_notification): an older ISR than that write, resent. Told
        by an older zkVersion, or, in the 0.x forms that print none, by being the ISR the
        controller itself last sent (real 0.8.2.2-2.4.1 captures: a broker's restart resends the
        election's ISR after the leader added a replica) or by lacking replicas the leader added
        while a reassignment is in flight (real 1.0.2 and 0.11.0.3 captures)."""
        if not self.era.isr_cache_by_notification:
            return False
        if record.zk_version is not None:
            return record.zk_version < self.zk_version
        return isr == self.controller_isr or (self.reassignment_target is not None and set(isr) < set(self.isr))

    def _note_uncached_bump(self) -> None:
        if not self.era.reassign_bump_cached and self.leader_epoch >= 0:
            self.uncached_epochs.add((self.leader, self.leader_epoch))

    def _resent_from_cache(self, record: Event) -> bool:
        """Before 2.4 a reassignment's epoch bump reached ZooKeeper, not the controller's cache
        (updateLeaderEpoch @0.8.2.2..@2.3.1): a request built from the cache, as for a replica
        going online, resends the leader's previous epoch (brokers ignore it: "not higher than
        the current leader epoch", a real 1.0.2 capture). Not a decision, so not a regression."""
        if (record.leader != self.leader or (record.leader, record.leader_epoch) not in self.uncached_epochs
                or record.leader_epoch >= self.leader_epoch):
            return False
        # A request carries the cached value whole: the old epoch with an older zkVersion (older
        # still when a leader's own ISR write reached the cache late, by notification), or, in the
        # 0.x forms that print no zkVersion, with the ISR of before the new replicas joined it.
        if record.zk_version is not None:
            return record.zk_version < self.zk_version
        return record.isr is not None and tuple(record.isr) != self.isr

    def on_leader_and_isr_received(self, record: Event) -> None:
        """A broker's copy of a controller decision. Brokers log what they receive later
        than, and in other files from, the controller's own lines, so an older or equal
        leader epoch tells nothing new (Kafka's broker ignores it too); a newer one is a
        decision whose controller-side line is absent (INFO level, missing file). A copy of the
        current decision that names the ISR its first record did not (a follower's INFO line names
        only the leader, the leader's names the ISR) completes it."""
        epoch = record.leader_epoch
        if record.leader is not None and epoch is not None and (
                epoch > max(self.leader_epoch, self.recorded_epoch)
                or (self.isr_unrecorded and record.isr is not None and record.leader == self.leader
                    and epoch == self.leader_epoch)):
            self.on_leader_and_isr(record)
        if not self.replicas and record.replicas and self.leader >= 0 and not self.deleting:
            # A led partition whose creation the input does not hold (before its first line, or a
            # topic a migration's KRaft controller created, real 3.9.2): a broker's copy names its
            # replicas.
            self.replicas = tuple(record.replicas)

    def _complete_election(self, record: Event, isr: tuple[int, ...]) -> None:
        """The LeaderAndIsr request after a leader-only election line (ZK <= 1.0) is the same
        decision: its ISR and leader epoch complete the open row, checked as recorded."""
        self.isr_unrecorded = False
        self._check_recorded_isr(record, isr)
        self.isr = self.controller_isr = isr
        if record.leader_epoch is not None:
            self.leader_epoch = record.leader_epoch
        if record.zk_version is not None:
            self.zk_version = record.zk_version
        self._note_recorded(record)
        self._replace_open_row(self._open_row._replace(leader_epoch=self.leader_epoch, isr=isr))

    def _leader_not_in_isr(self, record: Event, leader: int, isr: tuple[int, ...]) -> None:
        """LEADER_NOT_IN_ISR, the one wording every handler writes."""
        self._violate("LEADER_NOT_IN_ISR", record, None, f"leader {leader} is not in its ISR {list(isr)}", ())

    def _check_recorded_isr(self, record: Event, isr: tuple[int, ...]) -> None:
        """A recorded ISR for the current leader: the leader is in it, it is in the replicas."""
        leader = self.leader
        if leader >= 0 and leader not in isr:
            self._leader_not_in_isr(record, leader, isr)
        self._check_membership(record, leader, isr)

    def _leader_isr_update(self, record: Event, isr: tuple[int, ...]) -> None:
        self._check_recorded_isr(record, isr)
        self.isr = isr
        self.zk_version = record.zk_version if record.zk_version is not None else self.zk_version + 1
        self._note_recorded(record)
        self._emit(record, None, False)

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

    def on_isr_change(self, event: Event) -> None:
        """A leader shrank or expanded the ISR: its own write, same leader epoch."""
        if (self.pending and tuple(event.isr) == self.isr and event.leader in (None, self.leader)
                and event.leader_epoch in (None, self.leader_epoch)):
            # The commit line of the change just replayed ("Expanding ISR ..." then "ISR updated
            # to ...", 2.4-2.7): the same write, so what it set off (a reassignment's completion,
            # real 2.4.1 logs) is still to come, not behind it.
            self._note_recorded(event)
            return
        if self._isr_write_superseded(event):
            # A write older than one already recorded, logged late: its commit line can come after
            # the controller's next write (real 2.4.1: "ISR updated to [2,1,3] and zkVersion updated
            # to [6]" after the reassignment's election at zkVersion 7). It sets nothing off.
            return
        first_write = self._first_znode_write() if self.pending and self._isr_write_before_pending(event) else None
        if first_write is not None:
            # The leader's write went in before the pending steps' first write of the znode: its
            # conditional write expected the zkVersion that step has not written yet (real 3.9.2:
            # the leader's "ISR updated to 2,3,1 and version updated to 2" logged after the
            # controller took its broker's controlled shutdown, whose election wrote version 3).
            # The steps before that one go first, then the write with what it sets off; the rest
            # wait for their records.
            waiting, self.pending = self.pending[first_write:], self.pending[:first_write]
            self._flush(event)
            self._apply_isr_write(event)
            self.pending.extend(waiting)
            return
        self._flush(event)
        if self._epoch_regressed(event):
            return
        if self._isr_write_superseded(event):
            return  # superseded by a write the flush inferred (another file's clock)
        if event.leader is not None and self.leader >= 0 and event.leader != self.leader:
            # A leader that lost leadership cannot write the znode (zkVersion check).
            self._violate("LEADER_EPOCH_REGRESSION", event, None,
                          f"ISR change by broker {event.leader}, but the leader is {self.leader} at epoch {self.leader_epoch}",
                          (self.last_decision,))
            return
        if event.leader_epoch is not None and event.leader_epoch > self.leader_epoch:
            self.leader_epoch = event.leader_epoch
        self._apply_isr_write(event)

    def _apply_isr_write(self, event: Event) -> None:
        """The leader's write takes effect. The same ISR is the same change logged twice
        ("Shrinking ISR from ..." then "ISR updated to ..."): no new timeline row."""
        if tuple(event.isr) == self.isr:
            self._note_recorded(event)
            return
        self._leader_isr_update(event, tuple(event.isr))
        self._check_reassignment(event, self.isr)

    def _isr_write_before_pending(self, event: Event) -> bool:
        """The current leader's ISR write at the zkVersion after the replayed one (the next
        write the znode took), in the leader's current epoch."""
        return (event.zk_version is not None and 0 <= self.zk_version and event.zk_version == self.zk_version + 1
                and event.leader is not None and event.leader == self.leader
                and event.leader_epoch in (None, self.leader_epoch))

    def _first_znode_write(self) -> int | None:
        """The first pending step that writes the partition's leader and ISR (an election that
        happens, a replica taken out of the ISR, an epoch bump): None if no step does."""
        for i, step in enumerate(self.pending):
            if step.op == OP_PARTITION:
                if step.target is P.OnlinePartition and not (step.conditional and self.state not in _ELECTABLE):
                    return i
            elif (step.op == OP_REPLICA and step.target is R.OfflineReplica and step.replica in self.isr) \
                    or step.op == OP_EPOCH_BUMP:
                return i
        return None

    def _isr_write_superseded(self, event: Event) -> bool:
        """The znode has already been written at a later zkVersion than this ISR write's."""
        return event.zk_version is not None and 0 <= self.zk_version and event.zk_version < self.zk_version

    def _check_reassignment(self, cause: Event, isr) -> None:
        """onPartitionReassignment re-entered: once every target replica is in the ISR the
        completion steps are queued at once, so that their log lines can claim them."""
        target = self.reassignment_target
        if target is not None and all(r in isr for r in target) and not self._completion_queued:
            self._completion_queued = True
            self.pending.extend(ControllerOperations.complete_reassignment(self, cause))

    def on_state_change_failed(self, record: Event) -> None:
        """The controller refused a state change: attempted illegal transitions are
        reported; a failed election consumes its pending step (nothing changed)."""
        illegal = record.detail is not None and ("IllegalStateException" in record.detail or "should be in" in record.detail)
        if record.replica is not None:
            target = replica_state(record.to_state)
            step = self._claim_replica(record.replica, target)
            if illegal:
                self._violate("ILLEGAL_REPLICA_TRANSITION", record, *self._rejected(
                    step, f"the controller rejected replica {record.replica} {record.from_state} -> {record.to_state}", record), ())
            return
        target = partition_state(record.to_state)
        # Removed without being applied: the attempt failed and the state is unchanged.
        step = self._claim_partition(target)
        if illegal:
            self._violate("ILLEGAL_PARTITION_TRANSITION", record, *self._rejected(
                step, f"the controller rejected {record.from_state} -> {record.to_state}", record), ())

    @staticmethod
    def _rejected(step: Step | None, what: str, record: Event) -> tuple[Severity, str]:
        """(severity, detail) of a transition the controller attempted and refused. One
        that this era's controller attempts itself, in handling its inputs (a pending step), is
        Kafka's own inconsistency, not the cluster's: 0.8-2.2's TopicDeletionManager moves a dead
        replica from OfflineReplica to ReplicaDeletionIneligible, which their ReplicaStateMachine
        refuses until 2.3 (KAFKA-8237; real 0.8.2.2-1.0.2 captures)."""
        if step is None:
            return Severity.warning, f"{what}: {record.detail}"
        cause = step.cause.event_type if step.cause is not None else "its inputs"
        return (Severity.info, f"{what}, a step this era's controller takes itself (handling {cause}) and its own state "
                f"machine refuses: {record.detail}")

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

    def on_config_observed(self, event: Event) -> None:
        """A value in effect (a broker's config dump, a log's creation properties): learnt,
        nothing else."""
        if event.config_name != UNCLEAN_CONFIG:
            return
        value = _unclean_value(event)
        if event.topic is None:
            self.unclean_cluster = value
        else:
            self.unclean_topic = value

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

    # ---------------------------------------------------------------- KRaft handlers

    def on_broker_copy_kraft(self, event: Event) -> None:
        """A KRaft broker's own line about a partition (state-change.log, server.log): the
        metadata log is the truth; nothing to apply."""

    def on_kraft_broker(self, event: Event) -> None:
        ControllerOperations.update_liveness(self, event)

    def on_kraft_controller(self, event: Event) -> None:
        if event.controller_epoch is not None:
            self._observe_controller(event, event.controller_id, event.controller_epoch)

    def on_partition_record(self, record: Event) -> None:
        if self._is_stale(record) or self._epoch_regressed(record):
            return
        self._note_writer(record)
        self.replicas, self.replicas_partial = tuple(record.replicas or ()), False
        self.leader_recovery_state = record.leader_recovery_state or "RECOVERED"
        isr = tuple(record.isr or ())
        if record.leader is not None and record.leader >= 0 and record.leader not in isr:
            self._leader_not_in_isr(record, record.leader, isr)
        self._check_membership(record, record.leader, isr)
        self.adding_replicas, self.reassignment_target = _kraft_reassignment(
            self.replicas, tuple(record.adding_replicas or ()), tuple(record.removing_replicas or ()))
        first = self.leader_epoch < 0
        self.leader, self.isr = record.leader, isr
        self.elr = tuple(record.elr or ())
        self.last_known_elr = tuple(record.last_known_elr or ())
        self.leader_epoch = record.leader_epoch if record.leader_epoch is not None else max(self.leader_epoch, 0)
        self.zk_version = record.zk_version if record.zk_version is not None else 0
        self.state = P.OnlinePartition if self.leader >= 0 else P.OfflinePartition
        self._note_recorded(record)
        self._emit(record, ElectionKind.initial if first and self.leader >= 0 else None, False)

    def _note_writer(self, record: Event) -> None:
        # The controller epoch that wrote a recorded leader/ISR: the record's own, else the one in
        # effect (a KRaft dump's records carry none; each Raft epoch's ControllerFailover sits
        # at its first batch).
        self.write_controller_epoch = record.controller_epoch if record.controller_epoch is not None else self.controller_epoch

    def on_partition_change_record(self, record: Event) -> None:
        """PARTITION_CHANGE_RECORD: absent fields unchanged; partitionEpoch + 1; leaderEpoch
        + 1 iff the leader field is present (-2 / null = no leader change)."""
        if self._is_stale(record):
            return
        if self.state is P.NonExistentPartition:
            return
        self._note_writer(record)
        replicas = tuple(record.replicas) if record.replicas is not None else self.replicas
        isr = tuple(record.isr) if record.isr is not None else self.isr
        leader_present = record.leader is not None and record.leader != NO_LEADER_CHANGE
        prev_leader, prev_isr, prev_elr, prev_last_known = self.leader, self.isr, self.elr, self.last_known_elr
        if record.elr is not None:
            self.elr = tuple(record.elr)
        if record.last_known_elr is not None:
            self.last_known_elr = tuple(record.last_known_elr)
        leader = record.leader if leader_present else prev_leader
        elected = leader_present and leader >= 0 and leader != prev_leader
        # PartitionChangeBuilder marks RECOVERING only the election it made uncleanly. A member of
        # the old ELR elected so was dropped from it in this change as an unclean shutdown (KRaft
        # 4.0.2, a real capture: registerBroker's change elects the returning broker as the last
        # known leader), so the ELR Kafka elected from is the record's, emptied.
        recovering = elected and record.leader_recovery_state == "RECOVERING"
        elr_then = () if recovering else prev_elr
        if elected:
            # KIP-966: a replica that left the ISR only because it fell below min.insync.replicas
            # is as safe as the ISR; PartitionChangeBuilder elects it cleanly (and into the ISR).
            # The target ISR it elected from is not in the record: a leader from outside the
            # previous ISR was a valid new leader only if that target ISR was empty.
            self.elected_from_elr = leader not in prev_isr and is_valid_new_leader(leader, (), elr_then)
            # KAFKA-19212: a reassignment's completion can add the new preferred leader to the ISR in
            # the change that elects it; an unclean election leaves the leader alone in the ISR.
            self.elected_into_isr = (leader not in prev_isr and not self.elected_from_elr and record.isr is not None
                                     and leader in isr and len(isr) > 1)
            if self.elected_from_elr or self.elected_into_isr:
                self.unclean_logged = [x for x in self.unclean_logged if x.leader != leader]
        elif leader_present:
            self.elected_from_elr = self.elected_into_isr = False
        if elected and not self.elected_from_elr:
            last_known = last_known_leader(prev_isr, elr_then, prev_last_known) == leader
            self._check_kraft_election(record, leader, replicas, isr, prev_isr, prev_leader, last_known,
                                       elr_then, prev_last_known)
        elif leader >= 0 and leader not in isr:
            self._leader_not_in_isr(record, leader, isr)
        if leader_present:
            self.leader = leader
            self.leader_epoch += 1
        self._check_membership(record._replace(replicas=replicas), self.leader, isr)
        if (record.adding_replicas is not None or record.removing_replicas is not None
                or record.replicas is not None and self.reassignment_target is not None):
            self._change_reassignment(record, replicas)
        self.replicas, self.isr = replicas, isr
        self.zk_version += 1
        if record.leader_recovery_state:
            self.leader_recovery_state = record.leader_recovery_state
        self.state = P.OnlinePartition if self.leader >= 0 else P.OfflinePartition
        self._note_recorded(record)
        # The metadata log is complete, so the carried leader epoch is a recorded one.
        self.recorded_epoch, self.recorded_epoch_leader = self.leader_epoch, self.leader
        election = None
        if elected:
            unclean = leader not in prev_isr and not self.elected_from_elr and not self.elected_into_isr
            election = ElectionKind.unclean if unclean else self._kraft_election_kind(record, prev_leader, leader)
        self._emit(record, election, False)

    def _change_reassignment(self, record: Event, replicas: tuple[int, ...]) -> None:
        """A PartitionChangeRecord's addingReplicas / removingReplicas (each written only when it
        changed: PartitionChangeBuilder) against the ones in effect, which the replicas and target
        give for removing; adding after a carried state is taken as non-empty iff nothing is removed
        (a reassignment in flight adds or removes some)."""
        removing = self.removing_replicas
        adding = self.adding_replicas
        if adding is None:
            adding = () if removing or self.reassignment_target is None else self.reassignment_target
        if record.removing_replicas is not None:
            removing = tuple(record.removing_replicas)
        if record.adding_replicas is not None:
            adding = tuple(record.adding_replicas)
        self.adding_replicas, self.reassignment_target = _kraft_reassignment(replicas, adding, removing)

    def _kraft_election_kind(self, record: Event, prev_leader: int, leader: int) -> ElectionKind:
        """What moved a leader not known dead, for the timeline (a record names no cause): a change
        of the assignment is a reassignment's completion; a leader in controlled shutdown loses it
        to that; a move to the preferred replica (AR head) that keeps the old leader in the ISR is a
        preferred election (admin, or the auto leader rebalance). Else offline: a fenced leader's
        change comes before its BrokerRegistrationChangeRecord (handleBrokerFenced)."""
        kind = self._guess_kind(record, prev_leader)
        if kind is not None:
            return kind
        if record.replicas is not None:
            return ElectionKind.reassign
        if prev_leader in self.shutting_down:
            return ElectionKind.controlled_shutdown
        if self.replicas and leader == self.replicas[0] and prev_leader in self.isr:
            return ElectionKind.preferred
        return ElectionKind.offline

    def _check_kraft_election(self, record: Event, leader: int, replicas, isr, prev_isr, prev_leader,
                              last_known: bool = False, elr=(), last_known_elr=()) -> None:
        acceptable = self._eligible()
        if leader not in prev_isr and prev_isr is not None and self.leader_epoch >= 0:
            if not self.elected_into_isr:
                note = (_LAST_KNOWN_LEADER_NOTE if last_known else
                        _ADMIN_ONLY_NOTE if self.era.unclean_gate == "admin_only" else "")
                dead = self.liveness_known and leader not in acceptable
                if dead and last_known and self.era.last_known_leader == "even_if_dead":
                    note += _DEAD_LAST_KNOWN_LEADER_NOTE
                elif dead:
                    self._violate("UNEXPECTED_LEADER", record, None,
                                  f"KRaft elected {leader}, which was not alive (acceptable {sorted(acceptable)}); "
                                  f"PartitionChangeBuilder elects only an acceptable leader", (self.last_decision,))
                # Kafka marks it unclean (RECOVERING) either way; the last known leader is its design's choice.
                self._violate("UNCLEAN_LEADER_ELECTION", record,
                              self._unclean_severity(record.election_type == "UNCLEAN" or last_known),
                              f"leader {leader} was not in the previous ISR {list(prev_isr)} (previous leader {prev_leader})"
                              f"{note}", [self.last_decision] + self.unclean_logged)
                self.unclean_logged = []
                # A controller's "UNCLEAN partition change" line logged after the record corroborates this one.
                self.last_unclean_violation, self.last_unclean_leader = len(self._violations) - 1, leader
                return
        if leader not in isr:
            self._leader_not_in_isr(record, leader, isr)
            return
        forced = prev_leader < 0 or prev_leader not in acceptable or prev_leader not in isr
        if self.liveness_known and forced:
            s = SelectorInput(replicas, isr, prev_leader, acceptable, self.shutting_down, replicas, False,
                              elr, last_known_elr)
            expected = select(ElectionKind.offline, self.era, s)
            if isinstance(expected, Election) and expected.leader != leader:
                self._violate("UNEXPECTED_LEADER", record, None,
                              f"KRaft election chose {leader}; PartitionChangeBuilder chooses {expected.leader} "
                              f"(replicas {list(replicas)}, ISR {list(isr)}, acceptable {sorted(acceptable)})",
                              (self.last_decision,))

    def on_clear_elr(self, record: Event) -> None:
        """ReplicationControlManager.removeTopicElrs (4.0+): a partition with an ELR or a last known
        ELR loses both (a merge: the partition epoch moves; leader, leader epoch and ISR do not).
        A member of the old ELR elected later is no longer a clean choice, nor the old last known
        leader Kafka's own."""
        if self.elr or self.last_known_elr:
            self.elr, self.last_known_elr = (), ()
            self.zk_version += 1
            self._emit(record, None, False)

    def on_remove_topic(self, record: Event) -> None:
        self.state = P.NonExistentPartition
        self._forget_partition()
        self.replicas = ()
        self._emit(record, None, False)
        for r in list(self.replica_states):
            self.replica_states.pop(r)


class ControllerOperations:
    """KafkaController's reactions to its inputs, as the steps it takes for one
    partition (onNewPartitionCreation, onBrokerStartup, onBrokerFailure, shutdownBroker,
    onControllerFailover, onPartitionReassignment, onPreferredReplicaElection,
    TopicDeletionManager). Version differences come from the era."""

    @staticmethod
    def update_liveness(rp: PartitionReplay, event: Event) -> list[int]:
        brokers = list(event.brokers or ())
        rp.liveness_known = True
        t = event.event_type
        if t == E.BROKER_STARTUP:
            mark_alive(rp.live, rp.dead, brokers)
            rp.shutting_down.difference_update(brokers)
        elif t == E.BROKER_FAILURE:
            mark_dead(rp.live, rp.dead, brokers)
            rp.shutting_down.difference_update(brokers)
        elif t == E.CONTROLLED_SHUTDOWN:
            mark_alive(rp.live, rp.dead, brokers)
            rp.shutting_down.update(brokers)
        return brokers

    @staticmethod
    def creation(rp: PartitionReplay, event: Event) -> None:
        replicas = tuple(event.replicas or ())
        if rp.state is not P.NonExistentPartition:
            return  # TopicExistsException: the znode was already there
        steps = [Step(OP_PARTITION, P.NewPartition, cause=event, assignment=replicas)]
        steps += [Step(OP_REPLICA, R.NewReplica, r, cause=event) for r in replicas]
        steps.append(Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.initial, cause=event))
        steps += [Step(OP_REPLICA, R.OnlineReplica, r, cause=event) for r in replicas]
        rp.deleting = False
        rp.pending.extend(steps)

    # The broker- and cluster-level inputs below run for every partition the event is
    # delivered to (hundreds each): their steps are shared (_shared_step) and appended
    # in the order Kafka takes them.

    @staticmethod
    def broker_startup(rp: PartitionReplay, event: Event) -> None:
        brokers = ControllerOperations.update_liveness(rp, event)
        replicas = rp.replicas
        pending = rp.pending
        if not rp.deleting:
            for r in replicas:
                if r in brokers:
                    pending.append(_shared_step(event, OP_REPLICA, R.OnlineReplica, r))
            pending.append(_retry_election(event))
        elif any(b in replicas for b in brokers):
            pending.extend(ControllerOperations.deletion_steps(rp, event, [r for r in replicas if r in brokers]))
        if rp.reassignment_target is not None and any(b in rp.reassignment_target for b in brokers):
            rp._check_reassignment(event, rp.isr)

    @staticmethod
    def broker_failure(rp: PartitionReplay, event: Event) -> None:
        dead = ControllerOperations.update_liveness(rp, event)
        pending = rp.pending
        if rp.deleting:
            pending.extend(_shared_step(event, OP_REPLICA, R.ReplicaDeletionIneligible, r) for r in rp.replicas if r in dead)
            return
        if rp.state is not P.NonExistentPartition:
            if rp.leader in dead:
                pending.append(_shared_step(event, OP_PARTITION, P.OfflinePartition))
            pending.append(_retry_election(event))
        for r in rp.replicas:
            if r in dead:
                pending.append(_shared_step(event, OP_REPLICA, R.OfflineReplica, r))

    @staticmethod
    def controlled_shutdown(rp: PartitionReplay, event: Event) -> None:
        brokers = ControllerOperations.update_liveness(rp, event)
        if rp.deleting or len(rp.replicas) <= 1 or rp.leader_epoch < 0 or rp.state is not P.OnlinePartition:
            return
        for b in brokers:
            if rp.leader == b:
                rp.pending.append(_shared_step(event, OP_PARTITION, P.OnlinePartition, kind=ElectionKind.controlled_shutdown))
            elif b in rp.replicas:
                rp.pending.append(_shared_step(event, OP_REPLICA, R.OfflineReplica, b))

    @staticmethod
    def controller_failover(rp: PartitionReplay, event: Event) -> None:
        if event.controller_epoch is not None:
            rp.failover = (event.controller_id, event.controller_epoch)
            rp._observe_controller(event, event.controller_id, event.controller_epoch)
        live = rp.live
        if event.brokers is not None:
            live.clear()  # in place: a simulator shares these sets across partitions
            live.update(event.brokers)
            rp.shutting_down.clear()
            rp.dead.clear()
            rp.liveness_known = rp.liveness_complete = True
        if not rp.liveness_known or rp.state is P.NonExistentPartition:
            return
        live = rp._presumed_live()
        # initializeReplicaState / initializePartitionState: the new controller's memory.
        dead_policy = rp.era.failover_dead_replica
        states = rp.replica_states
        steps = []
        for r in rp.replicas:
            if r in live:
                if states.get(r) is not R.OnlineReplica:  # (_set_replica would do nothing)
                    rp._set_replica(r, R.OnlineReplica, event, True)
            elif dead_policy == "offline":
                rp._set_replica(r, R.OfflineReplica, event, True)
            else:
                rp._set_replica(r, R.ReplicaDeletionIneligible, event, True)
                if dead_policy == "ineligible_then_offline" and not rp.deleting:
                    steps.append(_shared_step(event, OP_REPLICA, R.OfflineReplica, r))
        if rp.state is P.OnlinePartition and rp.leader not in live:
            rp.state = P.OfflinePartition
            rp._emit(event, None, True)
        if not rp.deleting:
            steps.append(_retry_election(event))
        rp.pending.extend(steps)
        if rp.reassignment_target is not None:
            rp._check_reassignment(event, [r for r in rp.isr if r in live])

    @staticmethod
    def reassignment_start(rp: PartitionReplay, event: Event) -> None:
        target = tuple(event.replicas or ())
        if not target or target == rp.replicas or rp.state is not P.OnlinePartition:
            return
        rp.reassignment_target = target
        rp._completion_queued = False
        original = rp.replicas
        if all(r in rp.isr for r in target):
            rp._check_reassignment(event, rp.isr)
            return
        if rp.era.reassign_in_flight == "start_new_replicas":
            # 0.8.0: AR stays as it was until completion; the new replicas are only started.
            rp.pending.extend(Step(OP_REPLICA, R.NewReplica, r, cause=event) for r in target if r not in original)
            return
        if not original:   # the assignment before it is unknown: so is the one in flight
            rp.replicas_partial, rp.assignment_order_known = True, False
        if rp.era.reassign_assignment_order == "target_first":
            in_flight = target + tuple(r for r in original if r not in target)
        else:
            # (RAR ++ AR).toSet: insertion order only while the Scala Set has <= 4 members.
            in_flight = tuple(dict.fromkeys(target + original))
            rp.assignment_order_known = rp.assignment_order_known and len(in_flight) <= 4
        rp.pending.append(Step(OP_ASSIGNMENT, in_flight, cause=event))
        rp.pending.append(Step(OP_EPOCH_BUMP, cause=event))
        rp.pending.extend(Step(OP_REPLICA, R.NewReplica, r, cause=event) for r in target if r not in original)

    @staticmethod
    def reassignment_caught_up(rp: PartitionReplay, event: Event) -> None:
        """The controller's word that the ISR holds the whole target: the completion's steps are
        queued now, for the election or epoch bump it writes next (which a leader's INFO line of
        the grown ISR may follow)."""
        target = rp.reassignment_target
        if target is None or rp.state is not P.OnlinePartition:
            return
        if event.replicas is not None and set(event.replicas) != set(target):
            return   # another reassignment than the one the replay follows: its own lines decide
        missing = tuple(r for r in target if r not in rp.isr)
        if missing:
            # The ISR the controller read holds them: the leader's write went in before this line,
            # its own line of it (INFO) may come after the election (real 3.9.2 capture).
            rp.isr += missing
            rp.zk_version += 1
            rp._emit(event, None, True)
        rp._completion_queued = True
        rp.pending.extend(ControllerOperations.complete_reassignment(rp, event))

    @staticmethod
    def complete_reassignment(rp: PartitionReplay, cause: Event | None) -> list[Step]:
        """Steps 5-12 of onPartitionReassignment, once every target replica is in the ISR."""
        target = rp.reassignment_target or ()
        removed = rp.removing_replicas
        steps = [Step(OP_REPLICA, R.OnlineReplica, r, cause=cause) for r in target]
        if rp.leader not in target or not rp._alive(rp.leader):
            steps.append(Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.reassign, cause=cause))
        elif rp.era.reassign_in_flight != "start_new_replicas":   # 0.8.0 leaves a kept leader's epoch alone
            steps.append(Step(OP_EPOCH_BUMP, cause=cause))
        for r in removed:
            steps.append(Step(OP_REPLICA, R.OfflineReplica, r, cause=cause))
        deletion_chain = (R.ReplicaDeletionStarted, R.ReplicaDeletionSuccessful, R.NonExistentReplica)
        if rp.era.replica_valid_previous.get(R.ReplicaDeletionStarted) is None:
            deletion_chain = (R.NonExistentReplica,)  # 0.8.0: Offline -> NonExistent directly
        for r in removed:
            steps += [Step(OP_REPLICA, s, r, cause=cause) for s in deletion_chain]
        steps.append(Step(OP_REASSIGN_DONE, tuple(target), cause=cause))   # AR = the target: done
        return steps

    @staticmethod
    def replica_leader_election(rp: PartitionReplay, event: Event) -> None:
        if rp.deleting:
            return
        if (event.election_type or "PREFERRED").upper() == "UNCLEAN":
            if rp.era.admin_unclean_election and (rp.leader < 0 or not rp._alive(rp.leader)):
                rp.pending.append(Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.unclean, cause=event))
            return
        if rp.state is P.OnlinePartition:
            rp.pending.append(Step(OP_PARTITION, P.OnlinePartition, kind=ElectionKind.preferred, cause=event))

    @staticmethod
    def deletion_steps(rp: PartitionReplay, event: Event, replicas: list[int]) -> list[Step]:
        """TopicDeletionManager: dead replicas Ineligible, then the live ones Offline ->
        Started -> Successful (their StopReplica succeeds), state by state as Kafka moves them
        (onPartitionDeletion); once all are deleted, the replicas go NonExistent and (before
        2.1) the partition Offline -> NonExistent. Each state's replicas in ascending id order,
        not AR order: every real capture's deletion, 0.8.2.2 to 3.9.2, takes them offline so
        (AR [2,3,1] and [3,1,2] alike: 1, 2, 3), and an INFO log before 1.1, with no line of
        their ISR removals, cannot show it."""
        retry = sorted(r for r in replicas if rp.replica_states.get(r) is not R.ReplicaDeletionSuccessful)
        steps = [Step(OP_REPLICA, R.ReplicaDeletionIneligible, r, cause=event) for r in retry if not rp._alive(r)]
        live = [r for r in retry if rp._alive(r)]
        for s in (R.OfflineReplica, R.ReplicaDeletionStarted, R.ReplicaDeletionSuccessful):
            steps += [Step(OP_REPLICA, s, r, cause=event) for r in live]
        if all(rp._alive(r) or rp.replica_states.get(r) is R.ReplicaDeletionSuccessful for r in rp.replicas):
            steps += [Step(OP_REPLICA, R.NonExistentReplica, r, cause=event) for r in sorted(rp.replicas)]
            if rp.era.deletion_partition_removed_at == "completion":
                steps += [Step(OP_PARTITION, P.OfflinePartition, cause=event),
                          Step(OP_PARTITION, P.NonExistentPartition, cause=event)]
            steps.append(Step(OP_DELETION_DONE, cause=event))
        return steps

    @staticmethod
    def topic_deletion(rp: PartitionReplay, event: Event) -> None:
        if not rp.era.topic_deletion or rp.state is P.NonExistentPartition or rp.deleting:
            return
        rp.deleting = True
        rp.reassignment_target = None
        steps = []
        if rp.era.deletion_partition_removed_at == "start":
            steps += [Step(OP_PARTITION, P.OfflinePartition, cause=event), Step(OP_PARTITION, P.NonExistentPartition, cause=event)]
        steps += ControllerOperations.deletion_steps(rp, event, list(rp.replicas))
        rp.pending.extend(steps)

    OPERATIONS = {}


def _kraft_reassignment(replicas: tuple[int, ...], adding: tuple[int, ...],
                        removing: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """(addingReplicas, target): a KRaft partition is reassigning while it adds or removes a replica
    (PartitionRegistration.isReassigning); its replicas are then the target and the removing ones."""
    if not adding and not removing:
        return (), None
    return adding, tuple(r for r in replicas if r not in removing)


def _reassign_done(rp: PartitionReplay, step: Step, record: Event | None) -> None:
    """AR written as the target, the partition no longer being reassigned: the row that shows
    the new AR shows no reassignment in flight."""
    rp.reassignment_target = None
    rp.assignment_order_known = True
    rp.replicas_partial = False   # AR is the target now
    rp._completion_queued = False
    row = rp._open_row
    if rp.replicas == step.target and row is not None and row is not rp._carried_row:
        # AR is the target already (each removed replica's NonExistentReplica step dropped it
        # from the controller's context, or none was removed): the open row, which this
        # completion's election or epoch bump wrote, is the done one.
        rp._replace_open_row(row._replace(target_replicas=None))
        return
    rp._step_assignment(step, record)


ControllerOperations.OPERATIONS = {
    E.TOPIC_CREATION: ControllerOperations.creation,
    E.PARTITION_CREATION: ControllerOperations.creation,
    E.BROKER_STARTUP: ControllerOperations.broker_startup,
    E.BROKER_FAILURE: ControllerOperations.broker_failure,
    E.CONTROLLED_SHUTDOWN: ControllerOperations.controlled_shutdown,
    E.CONTROLLER_FAILOVER: ControllerOperations.controller_failover,
    E.REASSIGNMENT_START: ControllerOperations.reassignment_start,
    E.REASSIGNMENT_CAUGHT_UP: ControllerOperations.reassignment_caught_up,
    E.REPLICA_LEADER_ELECTION: ControllerOperations.replica_leader_election,
    E.TOPIC_DELETION: ControllerOperations.topic_deletion,
}

STEP_APPLIERS = {
    OP_PARTITION: PartitionReplay._step_partition,
    OP_REPLICA: PartitionReplay._step_replica,
    OP_EPOCH_BUMP: PartitionReplay._step_epoch_bump,
    OP_ASSIGNMENT: PartitionReplay._step_assignment,
    OP_DELETION_DONE: PartitionReplay._step_deletion_done,
    OP_REASSIGN_DONE: _reassign_done,
}

ZK_HANDLERS = {name: PartitionReplay.on_input for name in ControllerOperations.OPERATIONS}
ZK_HANDLERS[E.CONTROLLER_FAILOVER] = PartitionReplay.on_controller_failover
ZK_HANDLERS[E.REASSIGNMENT_CAUGHT_UP] = PartitionReplay.on_reassignment_caught_up
# Carried state is no controller input: it flushes nothing and runs no operation.
CARRIED_HANDLERS = {
    E.PARTITION_STATE_CARRIED: PartitionReplay.on_state_carried,
    E.REPLICA_STATE_CARRIED: PartitionReplay.on_replica_state_carried,
    E.CONTROLLER_EPOCH_CARRIED: PartitionReplay.on_controller_epoch,
    E.LIVENESS_CARRIED: PartitionReplay.on_liveness_carried,
}
ZK_HANDLERS.update(CARRIED_HANDLERS)
# Nor is a migration's KRaft controller taking /controller: no ZooKeeper failover runs.
ZK_HANDLERS[E.KRAFT_CONTROLLER_REGISTERED] = PartitionReplay.on_controller_epoch
# The one handler that does not first commit a held ISR proposal (PartitionReplay.feed).
ON_ISR_UPDATE_FAILED = PartitionReplay.on_isr_update_failed
ZK_HANDLERS.update({
    E.ISR_CHANGE: PartitionReplay.on_isr_change,
    E.ISR_CHANGE_PROPOSED: PartitionReplay.on_isr_change_proposed,
    E.ISR_UPDATE_FAILED: ON_ISR_UPDATE_FAILED,
    E.CONFIG_CHANGE: PartitionReplay.on_config_change,
    E.CONFIG_OBSERVED: PartitionReplay.on_config_observed,
    E.PARTITION_STATE_CHANGE: PartitionReplay.on_partition_state_change,
    E.REPLICA_STATE_CHANGE: PartitionReplay.on_replica_state_change,
    E.LEADER_AND_ISR: PartitionReplay.on_leader_and_isr,
    E.LEADER_AND_ISR_RECEIVED: PartitionReplay.on_leader_and_isr_received,
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
    E.LEADER_AND_ISR_RECEIVED: PartitionReplay.on_broker_copy_kraft,
    E.ISR_CHANGE: PartitionReplay.on_broker_copy_kraft,   # a KRaft leader's "ISR updated to": its AlterPartition, in the log already
    # A KRaft leader's proposal and its failure: the metadata log has what committed (isr_write_logged holds nothing).
    E.ISR_CHANGE_PROPOSED: PartitionReplay.on_isr_change_proposed,
    E.ISR_UPDATE_FAILED: ON_ISR_UPDATE_FAILED,
    **CARRIED_HANDLERS,
}


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
