"""Recorded decisions: each leader/ISR a controller wrote is checked against the state
before it (and the selector's choice, when a pending step says which election ran), then
applied: the recorded values always win, the model follows the log."""
from __future__ import annotations

from typing import NamedTuple

from state_machine.checks import (Severity, duplicate_epoch_severity, rejected_transition_severity,
                                  unclean_election_severity)
from state_machine.events import Event
from state_machine.findings import Facts, ids, sorted_ids
from state_machine.selectors import Election, ElectionKind, FailureReason, select
from state_machine.states import PartitionState
from state_machine.steps import Step

P = PartitionState

# The values a recorded election sets, and those it leaves inferred, by (its record names the ISR,
# names the leader epoch).
_ELECTED = ("leader", "leader_epoch", "isr")
_UNRECORDED = {(True, True): frozenset(), (True, False): frozenset(("leader_epoch",)),
               (False, True): frozenset(("isr",)), (False, False): frozenset(("isr", "leader_epoch"))}


class DeferredSelection(NamedTuple):
    """The selector's outcome for a recorded election, computed only if a check needs it
    (`_check_selector`: the leader changed; most recorded elections need none). The
    selector is pure and reads only the assignment, ISR, leader, liveness, reassignment
    target and unclean setting, none of which change between the decision's arrival and
    that check, so running it there gives the outcome it would have given on arrival."""
    kind: ElectionKind
    unclean_allowed: bool | None = None   # passed to _selector_input


class RecordedDecisions:
    """The checks of a recorded decision, and its application."""

    __slots__ = ()

    def _is_stale(self, event: Event) -> bool:
        """A decision under an older controller epoch than one seen: a zombie controller."""
        ce = event.controller_epoch
        if ce is None:
            return False
        if ce == self.controller_epoch and self.controller_of_epoch.get(ce) == event.controller_id:
            return False  # the known controller of the current epoch: nothing to check or learn
        if self.controller_epoch is not None and ce < self.controller_epoch:
            facts = {"case": "older_epoch", "controller": str(event.controller_id), "controller_epoch": str(ce),
                     "seen_controller_epoch": str(self.controller_epoch)}
            known = self.controller_of_epoch.get(self.controller_epoch)
            if known is not None:   # None: a carried epoch
                facts["seen_controller"] = str(known)
            self._violate("STALE_CONTROLLER_EPOCH", event, None, facts, (self.last_decision,))
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
                          duplicate_epoch_severity(self.era.controller_epoch_strict),
                          {"case": "two_controllers", "controller_before": str(known), "controller": str(controller_id),
                           "controller_epoch": str(epoch),
                           "controller_epoch_strict": "true" if self.era.controller_epoch_strict else "false"}, ())

    def _unclean_severity(self, forced: bool) -> Severity:
        return unclean_election_severity(True if forced else self.unclean_allowed())

    def _recorded_election(self, record: Event, kind: ElectionKind | None, expected, transition: bool) -> None:
        """A recorded leader/ISR that a controller decided: check it against the state
        before it and against `expected` (the selector's outcome, if known); apply it."""
        leader = record.leader
        isr_recorded = record.isr is not None
        if not self.kraft:
            self._note_unseen_writes(record)
        if not isr_recorded and type(expected) is DeferredSelection:   # resolved once: its ISR stands in below
            expected = select(expected.kind, self.era, self._selector_input(expected.unclean_allowed))
        isr = tuple(record.isr) if isr_recorded else self._unrecorded_isr(leader, kind, expected)
        epoch = record.leader_epoch
        prev_isr, prev_leader = self.isr, self.leader
        # The line of the step an earlier audit applied without it to reach the carried leader epoch
        # (a lower one's is _recorded_before_carried's): its values are what happened, but the state
        # before it is not the carried one, so neither the leader's change nor the ISR is checked.
        checked = not self._recorded_behind_carried(epoch)
        changed_leader = checked and leader != prev_leader and leader >= 0
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
                          {"case": "outside_isr", "leader": str(leader),
                           "leader_epoch": str(epoch if epoch is not None else self.leader_epoch + 1),
                           "isr_before": ids(prev_isr), "leader_before": str(prev_leader),
                           "leader_epoch_before": str(self.leader_epoch), **self.unclean_facts(forced)},
                          [self.last_decision] + self.unclean_logged, self._inferred("isr"))
            self.last_unclean_violation = len(self._violations) - 1
            self.last_unclean_leader = leader
            self.unclean_logged = []
            self._open_at_risk(leader, epoch if epoch is not None else self.leader_epoch + 1, prev_leader, prev_isr)
        elif isr_recorded and leader >= 0 and leader not in isr:
            self._leader_not_in_isr(record, leader, isr)
        elif changed_leader:
            self._check_selector(record, leader, kind, expected)
        if isr_recorded and checked:
            self._check_membership(record, leader, isr)
        self.leader, self.isr = leader, isr
        self.controller_isr = isr
        self.leader_epoch = epoch if epoch is not None else self.leader_epoch + 1
        self.inferred_values = self.inferred_values.difference(_ELECTED).union(_UNRECORDED[(isr_recorded, epoch is not None)])
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

    def _recorded_before_carried(self, record: Event) -> bool:
        """A decision at a leader epoch below the carried row's inferred one (carried_inferred_epoch)
        is the line of one of the steps an earlier audit applied without it, and the carried state is
        from after them all, the steps no line of this input shows included: noted, nothing applied,
        and checked only in itself (its leader in its ISR)."""
        behind, epoch = self.carried_inferred_epoch, record.leader_epoch
        if behind is None or epoch is None or epoch >= behind:
            return False
        leader = record.leader
        if record.isr is not None and leader is not None and leader >= 0 and leader not in record.isr:
            self._leader_not_in_isr(record, leader, tuple(record.isr))
        self._note_recorded(record)
        return True

    def _recorded_behind_carried(self, epoch: int | None) -> bool:
        """Whether a decision at leader epoch `epoch` records one of the steps that took the carried
        state to its inferred leader epoch (carried_inferred_epoch): none does once a record or a
        write of this input has gone past it."""
        behind = self.carried_inferred_epoch
        return behind is not None and epoch is not None and epoch <= behind

    def _note_unseen_writes(self, record: Event) -> None:
        """A decision that shows the znode's history was not the replay's: a zkVersion past the
        next one (writes no record showed came between, such as a leader's ISR change whose line is
        missing), or, after steps the replay inferred, a leader epoch other than the next one (those
        steps were not the ones the controller took). The ISR and leader before it are then not
        recorded ones."""
        zk_version, epoch = record.zk_version, record.leader_epoch
        if ((zk_version is not None and 0 <= self.zk_version < zk_version - 1)
                or (epoch is not None and "leader_epoch" in self.inferred_values and epoch != self.leader_epoch + 1)):
            self._mark_inferred("isr", "leader")

    def _unrecorded_isr(self, leader: int, kind: ElectionKind | None, expected) -> tuple[int, ...]:
        """The ISR of an election whose line names the leader alone (ZK 0.8-1.0 `... to
        OnlinePartition with leader L`; the LeaderAndIsr request logged next carries the ISR):
        the era's selector's, when it elects that leader (an initial election no input explains, its
        controller.log line missing, is the initial selector's: the live assigned replicas,
        initializeLeaderAndIsrForPartition @0.8.2.2-1.0.2 PartitionStateMachine.scala); else the ISR
        as it stands if it holds the leader, else the leader alone (as an unclean election leaves
        it). Inferred: a check that reads it reports at most a warning."""
        if expected is None and kind is ElectionKind.initial:
            expected = select(kind, self.era, self._selector_input())
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
                                  {"case": "selector_chooses_another", "election": expected.kind.value,
                                   "leader": str(leader), "expected_leader": str(expected.leader),
                                   "replicas": ids(self.replicas), "isr": ids(self.isr),
                                   "live": sorted_ids(self._eligible())}, (self.last_decision,),
                                  self._inferred("isr", "leader", "replicas"))
                return
            if expected.reason is not FailureReason.ELECTION_NOT_NEEDED and not (
                    expected.reason is FailureReason.NO_ISR_REPLICA_ONLINE and self.unclean_allowed() is None):
                self._violate("UNEXPECTED_LEADER", record, None,
                              {"case": "selector_elects_no_one", "election": expected.kind.value, "leader": str(leader),
                               "selector_failure": expected.detail, "replicas": ids(self.replicas), "isr": ids(self.isr),
                               "live": sorted_ids(self._eligible())}, (self.last_decision,),
                              self._inferred("isr", "leader", "replicas"))
            return
        no_liveness_check = kind is ElectionKind.controlled_shutdown and self.era.controlled_shutdown_leader != "assignment"
        if not self._alive(leader) and not no_liveness_check:
            facts = {"case": "leader_not_live", "leader": str(leader), "known_dead": sorted_ids(self.dead)}
            if self.liveness_complete:
                facts["live"] = sorted_ids(self.live)
            self._violate("UNEXPECTED_LEADER", record, None, facts, (self.last_decision,))
        elif leader in self.shutting_down:
            self._violate("UNEXPECTED_LEADER", record, None,
                          {"case": "leader_shutting_down", "leader": str(leader),
                           "shutting_down": sorted_ids(self.shutting_down)}, (self.last_decision,))

    def _check_membership(self, record: Event, leader: int, isr: tuple[int, ...],
                          leader_inferred: tuple[str, ...] = ()) -> None:
        """The record's ISR and `leader` (the record's, or the partition's: `leader_inferred` then
        says whether a record showed it) within the assigned replicas."""
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
        in_flight_facts = {} if target is None else {"target_replicas": ids(target)}
        replicas_inferred = self._inferred("replicas") if record.replicas is None else ()
        if outside:
            self._violate("ISR_NOT_SUBSET_OF_REPLICAS", record, None,
                          {"case": "outside_replicas", "isr": ids(isr), "outside": ids(outside), "replicas": ids(replicas),
                           **in_flight_facts}, (), replicas_inferred)
        if leader >= 0 and leader not in replicas and leader in isr and (target is None or leader not in target):
            self._violate("LEADER_NOT_IN_REPLICAS", record, None,
                          {"case": "not_assigned", "leader": str(leader), "isr": ids(isr), "replicas": ids(replicas),
                           **in_flight_facts}, (), leader_inferred + replicas_inferred)

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
        a regression is judged between records only), and which inferred values it shows."""
        epoch = record.leader_epoch
        if self.inferred_values and epoch in (None, self.leader_epoch):
            shown = ("isr",) if record.isr is not None and tuple(record.isr) == self.isr else ()
            if epoch is not None:
                shown += ("leader_epoch", "leader") if record.leader == self.leader else ("leader_epoch",)
            if record.replicas is not None and tuple(record.replicas) == self.replicas:
                shown += ("replicas",)
            self._mark_recorded(*shown)
        if epoch is not None and self.carried_inferred_epoch is not None and epoch > self.carried_inferred_epoch:
            self.carried_inferred_epoch = None   # past the carried state: the next decisions are this input's own
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
                          {"case": "lower_epoch", "leader": str(record.leader), "leader_epoch": str(epoch),
                           "recorded_leader": str(self.recorded_epoch_leader),
                           "recorded_leader_epoch": str(self.recorded_epoch)}, (self.last_decision,))
            return True
        return False

    def _leader_not_in_isr(self, record: Event, leader: int, isr: tuple[int, ...],
                           inferred: tuple[str, ...] = ()) -> None:
        """LEADER_NOT_IN_ISR, the one wording every handler writes; `inferred`: the partition's
        leader was read, and no record showed it."""
        self._violate("LEADER_NOT_IN_ISR", record, None, {"case": "not_in_isr", "leader": str(leader), "isr": ids(isr)},
                      (), inferred)

    def _check_recorded_isr(self, record: Event, isr: tuple[int, ...]) -> None:
        """A recorded ISR for the current leader: the leader is in it, it is in the replicas."""
        leader = self.leader
        inferred = self._inferred("leader")
        if leader >= 0 and leader not in isr:
            self._leader_not_in_isr(record, leader, isr, inferred)
        self._check_membership(record, leader, isr, inferred)

    def _leader_isr_update(self, record: Event, isr: tuple[int, ...]) -> None:
        self._check_recorded_isr(record, isr)
        self.isr = isr
        self._mark_recorded("isr")
        self.zk_version = record.zk_version if record.zk_version is not None else self.zk_version + 1
        self._note_recorded(record)
        self._emit(record, None, False)

    @staticmethod
    def _rejected(step: Step | None, record: Event) -> tuple[Severity, Facts]:
        """(severity, facts) of a transition the controller attempted and refused. One
        that this era's controller attempts itself, in handling its inputs (a pending step), is
        Kafka's own inconsistency, not the cluster's: 0.8-2.2's TopicDeletionManager moves a dead
        replica from OfflineReplica to ReplicaDeletionIneligible, which their ReplicaStateMachine
        refuses until 2.3 (KAFKA-8237; real 0.8.2.2-1.0.2 captures)."""
        facts = {"case": "rejected", "from_state": str(record.from_state), "to_state": str(record.to_state),
                 "exception": str(record.detail)}
        if record.replica is not None:
            facts["replica"] = str(record.replica)
        if step is not None:
            facts["handling"] = step.cause.event_type if step.cause is not None else "its inputs"
        return rejected_transition_severity(step is not None), facts
