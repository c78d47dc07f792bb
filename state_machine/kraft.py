"""The KRaft handlers. KRaft has no partition or replica state machines: its metadata
records are complete, so they are applied directly and each election is checked against
PartitionChangeBuilder's (KIP-966's rule is the selectors', `is_valid_new_leader`)."""
from __future__ import annotations

from state_machine.events import Event
from state_machine.findings import ids, sorted_ids
from state_machine.selectors import (Election, ElectionKind, SelectorInput, is_valid_new_leader, last_known_leader,
                                     select)
from state_machine.states import NO_LEADER_CHANGE, PartitionState
from state_machine.steps import ControllerOperations

P = PartitionState


def _kraft_reassignment(replicas: tuple[int, ...], adding: tuple[int, ...],
                        removing: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """(addingReplicas, target): a KRaft partition is reassigning while it adds or removes a replica
    (PartitionRegistration.isReassigning); its replicas are then the target and the removing ones."""
    if not adding and not removing:
        return (), None
    return adding, tuple(r for r in replicas if r not in removing)


class KraftHandlers:
    """What a KRaft controller's metadata records, and its brokers' lines, do to the partition."""

    __slots__ = ()

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
        self.inferred_values = frozenset()
        self.elr = tuple(record.elr or ())
        self.last_known_elr = tuple(record.last_known_elr or ())
        self.leader_epoch = record.leader_epoch if record.leader_epoch is not None else max(self.leader_epoch, 0)
        self.zk_version = record.zk_version if record.zk_version is not None else 0
        self.state = P.OnlinePartition if self.leader >= 0 else P.OfflinePartition
        self._note_recorded(record)
        self._emit(record, ElectionKind.initial if first and self.leader >= 0 else None, False)

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
                facts = {"case": "kraft_outside_isr", "leader": str(leader), "leader_epoch": str(self.leader_epoch + 1),
                         "isr_before": ids(prev_isr), "leader_before": str(prev_leader),
                         "leader_epoch_before": str(self.leader_epoch), "elr_before": ids(elr),
                         "last_known_elr_before": ids(last_known_elr),
                         "last_known_leader_elected": "true" if last_known else "false",
                         **self.unclean_facts(record.election_type == "UNCLEAN")}
                dead = self.liveness_known and leader not in acceptable
                if dead and last_known and self.era.last_known_leader == "even_if_dead":
                    facts["last_known_leader_dead"] = "true"
                elif dead:
                    self._violate("UNEXPECTED_LEADER", record, None,
                                  {"case": "kraft_leader_not_acceptable", "leader": str(leader),
                                   "acceptable": sorted_ids(acceptable)}, (self.last_decision,))
                # Kafka marks it unclean (RECOVERING) either way; the last known leader is its design's choice.
                self._violate("UNCLEAN_LEADER_ELECTION", record,
                              self._unclean_severity(record.election_type == "UNCLEAN" or last_known),
                              facts, [self.last_decision] + self.unclean_logged)
                self.unclean_logged = []
                # A controller's "UNCLEAN partition change" line logged after the record corroborates this one.
                self.last_unclean_violation, self.last_unclean_leader = len(self._violations) - 1, leader
                self._open_at_risk(leader, self.leader_epoch + 1, prev_leader, prev_isr, last_known_elr)
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
                              {"case": "kraft_chooses_another", "leader": str(leader), "expected_leader": str(expected.leader),
                               "replicas": ids(replicas), "isr": ids(isr), "acceptable": sorted_ids(acceptable)},
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
