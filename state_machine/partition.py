"""One partition as the controller knows it, and what its replay writes: the model
(`PartitionModel`: its state, leader, ISR, assignment, the cluster context it sees) and
the rows, as named types (`TimelineRow`, `ReplicaRow`). The controller's steps, the checks
and the handlers that move it live in `steps`, `decisions`, `zk` and `kraft`;
`replay.PartitionReplay` puts them together."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Iterable, NamedTuple

from state_machine.checks import RULES, Severity, Violation, inferred_value_severity
from state_machine.eras import Era
from state_machine.events import Event, provenance
from state_machine.findings import INFERABLE, Facts, ids, render
from state_machine.records_at_risk import AtRisk, ReplicaLogs
from state_machine.selectors import ElectionKind, SelectorInput
from state_machine.states import NO_LEADER, PartitionState, ReplicaState

if TYPE_CHECKING:
    from state_machine.steps import Step

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
    # Which of its values no record showed (PartitionModel.inferred_values, in findings.INFERABLE's
    # order), as the row stands: a later audit carries them (PartitionStateCarried), so its checks
    # judge the same values inferred as one replay of both nights would.
    inferred_values: tuple[str, ...] = ()


class ReplicaRow(NamedTuple):
    seq: int
    valid_from: int | None
    replica: int
    replica_state: str
    source: str
    inferred: bool


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


_ROW_VALUES: dict[frozenset, tuple[str, ...]] = {}


def row_values(values: frozenset[str]) -> tuple[str, ...]:
    """A set of inferred values as a row holds it: in INFERABLE's order, one tuple per set."""
    held = _ROW_VALUES.get(values)
    if held is None:
        held = _ROW_VALUES[values] = tuple(v for v in INFERABLE if v in values)
    return held


# The values a computed write leaves inferred, by (it changes the leader, it changes the ISR).
_WRITTEN = {(leader, isr): frozenset(("leader_epoch",) + (("leader",) if leader else ()) + (("isr",) if isr else ()))
            for leader in (False, True) for isr in (False, True)}

_IMMUTABLE = (tuple, frozenset, int, str, float, type(None), Era)


def copy_state(value, memo: dict):
    """A deep copy of replay state (`copy.deepcopy`'s contract, `memo` included: what two copied
    objects share, their copies share) that shares what is never changed in place: tuples (rows,
    events, replica lists), frozen sets, numbers, strings, enums. deepcopy walks every tuple to the last int; the
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


class PartitionModel:
    """The state of one (cluster, topic, partition) as the controller knows it, and the rows
    and violations its replay has written so far."""

    # The replay reads and writes these for every event. Slots are the fastest attributes
    # (39 of them are more than an instance dict shares keys for); `__dict__` keeps the
    # object open to attributes set from outside (the generator's partition_key).
    __slots__ = (
        "cluster", "topic", "partition", "era", "kraft", "state", "replicas", "leader", "leader_epoch", "isr",
        "inferred_values",
        "zk_version", "write_controller_epoch", "leader_recovery_state", "elr", "last_known_elr", "elected_from_elr",
        "elected_into_isr", "replica_states", "carried_unrecorded", "carried_inferred_epoch",
        "reassignment_target", "adding_replicas", "uncached_epochs",
        "assignment_order_known", "replicas_partial", "_completion_queued", "deleting", "live", "dead", "liveness_known", "liveness_complete",
        "shutting_down",
        "controller_epoch", "controller_of_epoch", "unclean_topic", "unclean_cluster", "unclean_changes", "recorded_epoch",
        "recorded_epoch_leader", "last_decision", "unclean_logged", "last_unclean_violation", "last_unclean_leader",
        "isr_removed_by_write", "isr_unrecorded", "controller_isr", "failover", "isr_proposal", "pending",
        "_rows", "_open_row", "_carried_row", "_replica_rows", "_violations", "replica_logs", "last_leader",
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
        # Which of leader, leader_epoch and isr (findings.INFERABLE) no record showed: the replay
        # inferred them (a selector's or a step's values). A check that reads one reports at most a
        # warning, naming it (_violate). KRaft's metadata records are complete: none is inferred.
        self.inferred_values: frozenset[str] = frozenset()
        self.zk_version = -1
        self.write_controller_epoch: int | None = None
        self.leader_recovery_state = "RECOVERED"
        self.elr: tuple[int, ...] = ()   # KRaft eligible leader replicas (KIP-966): electing one is clean
        self.last_known_elr: tuple[int, ...] = ()   # KIP-966: the last leader, elected when ISR and ELR are empty
        self.elected_from_elr = False
        # KRaft: the leader joined the ISR in the change that elected it, as a reassignment completed (clean).
        self.elected_into_isr = False
        self.replica_states: dict[int, ReplicaState] = {}
        # Replicas whose state an earlier audit carried as inferred (its step applied without a line,
        # as the steps still pending at the end of an input are): the first line of the same
        # transition in this input is that step's line, not a second transition.
        self.carried_unrecorded: set[int] = set()
        # The leader epoch of a carried row that no record showed: an earlier audit reached it by
        # applying, at the end of its input, steps whose lines this input holds. A decision at or
        # below it is the line of one of them, and the carried state is from after it (None: none).
        self.carried_inferred_epoch: int | None = None
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
        # The offsets the brokers printed of their replicas, and the unclean elections whose records at
        # risk are still being collected (their violations are held until then): None until a line
        # carries an offset.
        self.replica_logs: ReplicaLogs | None = None
        # The last broker that led the partition (-1: none yet): an unclean election's old leader when the
        # partition had none just before it and its ISR no longer names it (0.8-0.10 empty it).
        self.last_leader = NO_LEADER
        self.events_replayed = 0
        # Called with (previous_state, row) for each new timeline row and (previous, row)
        # for each replica row; the generator uses it to record what the controller did.
        self.observer = None

    # The generator copies its partitions before each step (to undo an election the era would not
    # allow): see copy_state. The lists of finished rows and logged elections only grow, by tuples.
    _APPENDED_ONLY = frozenset(("_rows", "_replica_rows", "_violations", "unclean_logged"))

    def __deepcopy__(self, memo) -> "PartitionModel":
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        for name in PartitionModel.__slots__:   # (a subclass's own __slots__ is empty)
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

    def drain(self) -> tuple[list[TimelineRow], list[ReplicaRow], list[Violation]]:
        """The rows and violations finished so far (the open timeline row stays). An unclean
        election whose records at risk are still being collected is held until they are."""
        held = self.replica_logs.open if self.replica_logs is not None else ()
        if held:
            keep = {risk.index for risk in held}
            out_violations = [v for i, v in enumerate(self._violations) if i not in keep]
            kept = sorted(keep)
            moved = {old: new for new, old in enumerate(kept)}
            self._violations = [self._violations[i] for i in kept]
            for risk in held:
                risk.index = moved[risk.index]
            self.last_unclean_violation = moved.get(self.last_unclean_violation)
            out = (self._rows, self._replica_rows, out_violations)
            self._rows, self._replica_rows = [], []
            return out
        out = (self._rows, self._replica_rows, self._violations)
        self._rows, self._replica_rows, self._violations = [], [], []
        self.last_unclean_violation = None  # already handed out; a later log line only corroborates it
        return out

    # ---------------------------------------------------------------- records at risk

    def observe_replica_log(self, event: Event) -> None:
        """A broker's line that printed its replica's offsets (log end, high watermark, truncation):
        learnt for the records an unclean election put at risk; the partition's state is unchanged."""
        logs = self.replica_logs
        if logs is None:
            logs = self.replica_logs = ReplicaLogs()
        for risk in logs.observe(event):
            self._close_at_risk(risk)

    def _open_at_risk(self, leader: int, leader_epoch: int, leader_before: int, isr_before, last_known_elr=()) -> None:
        """The unclean election just reported (the last violation): collect its records at risk. The
        old leader is the leader before it, else the one member left in the ISR (or KRaft's last known
        ELR): a partition whose leader died keeps it there."""
        old, why = leader_before, ""
        if old < 0:
            alone = tuple(isr_before) or tuple(last_known_elr)
            old = alone[0] if len(alone) == 1 else self.last_leader if self.last_leader >= 0 else None
            if old is None:
                why = (f"the old leader is unknown: the partition had no leader, its ISR before was "
                       f"{ids(isr_before)} and no earlier leader was recorded")
        if self.replica_logs is None:
            self.replica_logs = ReplicaLogs()
        self.replica_logs.open_election(len(self._violations) - 1, leader, old, leader_epoch, why)

    def _close_at_risk(self, risk: AtRisk) -> None:
        """Its records at risk are settled (or the history ends): into its violation's facts and detail."""
        v = self._violations[risk.index]
        facts = {**v.facts, **self.replica_logs.facts(risk, self.era)}
        self._violations[risk.index] = v._replace(facts=facts, detail=render(v.rule, facts))

    def close_records_at_risk(self) -> None:
        """At the end of the history: what the input did not show stays unknown, with the reason."""
        logs = self.replica_logs
        if logs is None or not logs.open:
            return
        for risk in logs.open:
            self._close_at_risk(risk)
        logs.open = []

    # ---------------------------------------------------------------- output

    def _emit(self, cause: Event | None, election: ElectionKind | str | None, inferred: bool) -> None:
        if cause is not None:
            seq, ts = cause.seq, cause.event_time_ms
        else:
            seq, ts = -1, None
        state = self.state._value_
        row = self._open_row
        self.isr_unrecorded = False
        if self.leader >= 0:
            self.last_leader = self.leader
        if row is not None:
            # The open row's fields in one unpacking, which costs less than reading them one by one.
            (_, opened, _, was_state, was_leader, was_epoch, was_isr, was_replicas, _, _, _, _,
             was_elr, was_last_known_elr, was_recovery, was_target, was_inferred) = row
            if ts is not None and opened is not None and ts < opened:
                # An inferred step applied after a later record: it happened no earlier than that record.
                ts = opened
            if (was_state == state and was_leader == self.leader and was_epoch == self.leader_epoch
                    and was_isr == self.isr and was_replicas == self.replicas
                    and (not self.kraft or (was_elr == self.elr and was_last_known_elr == self.last_known_elr
                                            and was_recovery == self.leader_recovery_state))
                    and was_target == self.reassignment_target):
                if was_inferred is not row_values(self.inferred_values):
                    self._replace_open_row(row._replace(inferred_values=row_values(self.inferred_values)))
                return  # nothing changed: the open row goes on
            if row is not self._carried_row:
                # row._replace(valid_to=ts), without its Python-level call: valid_to is the third field.
                self._rows.append(_new_tuple(TimelineRow, row[:2] + (ts,) + row[3:]))
        # Only a row that is kept needs its provenance (its usual case, file:line, inlined) and election name.
        if cause is None:
            source = ""
        else:
            source_file, source_line = cause.source_file, cause.source_line
            source = f"{source_file}:{source_line}" if source_file is not None and source_line is not None else provenance(cause)
        election_name = election._value_ if isinstance(election, ElectionKind) else election
        self._open_row = self._row_now(seq, ts, state, election_name, source, inferred)
        if self.observer is not None:
            self.observer.partition_row(self, was_state if row is not None else None, self._open_row)

    def _row_now(self, seq: int, valid_from: int | None, state: str, election: str | None,
                 source: str, inferred: bool) -> TimelineRow:
        """The open timeline row (valid_to still None) of the partition as it is now."""
        return _new_tuple(TimelineRow, (
            seq, valid_from, None, state, self.leader, self.leader_epoch, self.isr,
            self.replicas, self.write_controller_epoch, election, source, inferred,
            *((self.elr, self.last_known_elr, self.leader_recovery_state) if self.kraft else _NOT_KRAFT),
            self.reassignment_target, row_values(self.inferred_values)))

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
        if self.carried_unrecorded:
            self.carried_unrecorded.discard(replica)
        self._replica_rows.append(row)
        if self.observer is not None:
            self.observer.replica_row(self, previous, row)

    def _violate(self, rule: str, event: Event, severity: Severity | None, facts: Facts,
                 related: Iterable[Event | None], inferred: tuple[str, ...] = ()) -> None:
        """A violation of `rule` shown by `event`, with what the check found (`facts`, to which the
        era that judged it is added), its detail rendered from those facts, and the evidence of `related`.
        `inferred`: the values the check read that no record showed (see `_inferred`)."""
        facts["era"] = self.era.name
        severity = severity or RULES[rule].severity
        if inferred:
            facts["inferred"] = ", ".join(inferred)
            severity = inferred_value_severity(severity)
        evidence = (provenance(event),) + tuple(provenance(r) for r in related if r is not None and r is not event)
        self._violations.append(Violation(rule, severity.value, event.seq,
                                          event.event_time_ms, render(rule, facts), evidence, facts))

    # ---------------------------------------------------------------- context

    def _inferred(self, *values: str) -> tuple[str, ...]:
        """Which of `values` (of leader, leader_epoch, isr), read by a check, no record showed."""
        inferred = self.inferred_values
        return tuple([v for v in values if v in inferred]) if inferred else ()

    def _mark_recorded(self, *values: str) -> None:
        if self.inferred_values:
            self.inferred_values = self.inferred_values.difference(values)
            self._note_inferred_values()

    def _mark_inferred(self, *values: str) -> None:
        self.inferred_values = self.inferred_values.union(values)
        self._note_inferred_values()

    def _note_inferred_values(self) -> None:
        """The open row says which values are inferred as the model does (no new row: no value changed)."""
        row = self._open_row
        if row is not None and row[-1] is not row_values(self.inferred_values):
            self._replace_open_row(row._replace(inferred_values=row_values(self.inferred_values)))

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
        return self.unclean_setting()

    def unclean_setting(self) -> bool | None:
        """unclean.leader.election.enable as the history showed it: the topic's, else the
        cluster's; None when no event showed it."""
        return self.unclean_topic if self.unclean_topic is not None else self.unclean_cluster

    def unclean_facts(self, admin_unclean: bool | None = None) -> Facts:
        """The facts an unclean election is judged on: the era's gate, the setting when known,
        and (`admin_unclean`, when the check knows it) whether an admin UNCLEAN election made it."""
        facts = {"unclean_gate": self.era.unclean_gate}
        setting = self.unclean_setting()
        if setting is not None:
            facts["unclean_leader_election_enable"] = "true" if setting else "false"
        if admin_unclean is not None:
            facts["admin_unclean_election"] = "true" if admin_unclean else "false"
        return facts

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

    # ---------------------------------------------------------------- changes every mode makes

    def _write(self, leader: int, isr: tuple[int, ...], cause: Event | None, kind, inferred: bool) -> None:
        """A leader/ISR the replay computed (a selector's, an ISR removal's, an epoch bump's): what
        it changes, no record shows."""
        isr = tuple(isr)
        changed = _WRITTEN[(leader != self.leader, isr != self.isr)]
        if not changed <= self.inferred_values:
            self.inferred_values |= changed
        self.leader = leader
        self.isr = self.controller_isr = isr
        self.leader_epoch += 1
        self.zk_version += 1
        self.write_controller_epoch = self.controller_epoch
        self.carried_inferred_epoch = None   # this input's own step: past the carried state

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
        self.inferred_values = frozenset()
        self.elr, self.last_known_elr, self.elected_from_elr, self.elected_into_isr = (), (), False, False
        self.zk_version = -1
        self.recorded_epoch, self.recorded_epoch_leader = -1, NO_LEADER
        self.reassignment_target, self.adding_replicas = None, ()
        self.uncached_epochs.clear()

    def _note_writer(self, record: Event) -> None:
        # The controller epoch that wrote a recorded leader/ISR: the record's own, else the one in
        # effect (a KRaft dump's records carry none; each Raft epoch's ControllerFailover sits
        # at its first batch).
        self.write_controller_epoch = record.controller_epoch if record.controller_epoch is not None else self.controller_epoch

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
