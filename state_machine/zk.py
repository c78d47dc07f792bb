"""The ZooKeeper-mode handlers: a controller input queues its steps (`steps`), a
recorded state change or leader/ISR claims one and is checked (`decisions`), and a
leader's own ISR write is applied in its place among them."""
from __future__ import annotations

from state_machine.decisions import DeferredSelection
from state_machine.events import Event
from state_machine.findings import ids
from state_machine.selectors import Election, ElectionKind
from state_machine.states import (NO_LEADER, REPLICA_STATES_BY_NAME, PartitionState, ReplicaState, partition_state,
                                  replica_state)
from state_machine.steps import OP_EPOCH_BUMP, OP_PARTITION, OP_REPLICA, ControllerOperations, _ELECTABLE

P = PartitionState
R = ReplicaState


class ZkHandlers:
    """What a ZooKeeper-mode controller's inputs and records do to the partition."""

    __slots__ = ()

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

    def on_partition_state_change(self, record: Event) -> None:
        if self._is_stale(record) or (record.leader is not None and self._epoch_regressed(record)):
            return
        target = partition_state(record.to_state)
        previous = partition_state(record.from_state) if record.from_state else self.state
        if previous not in self.era.partition_valid_previous.get(target, ()):
            self._violate("ILLEGAL_PARTITION_TRANSITION", record, None,
                          {"case": "invalid_previous_state", "from_state": previous.value, "to_state": target.value,
                           "valid_previous_states": str(sorted(s.value for s in self.era.partition_valid_previous[target]))},
                          ())
        if record.leader_epoch is not None and self._recorded_before_carried(record):
            return
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
        self._note_unseen_transition(previous)
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
            self._mark_recorded("replicas")
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

    def _note_unseen_transition(self, previous: PartitionState) -> None:
        """A record's previous state that is not the replay's, once the steps before it are applied:
        a transition no record showed came first (an election, a leader's loss), so the replay's
        leader, ISR and leader epoch are not the ones a record showed."""
        if previous is not self.state:
            self._mark_inferred("leader", "isr", "leader_epoch")

    def _unprompted_partition_change(self, record: Event, previous: PartitionState, target: PartitionState) -> None:
        if target is P.NewPartition and record.replicas is not None:
            self.replicas, self.replicas_partial = tuple(record.replicas), False
            self._mark_recorded("replicas")
        if target is P.OnlinePartition and record.leader is not None:
            # A decision no pending step explains comes after everything still pending.
            self._flush(record)
            self._note_unseen_transition(previous)
            self.state = previous
            kind = ElectionKind.initial if previous is P.NewPartition else None
            if kind is None and record.election_type:
                kind = self._guess_kind(record, self.leader)
            self._recorded_election(record, kind, None, transition=True)
            return
        self._note_unseen_transition(previous)
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
                          {"case": "invalid_previous_state", "replica": str(r), "from_state": previous.value,
                           "to_state": target.value, "valid_previous_states": str(valid)}, ())
        if r == self.isr_removed_by_write:
            self.isr_removed_by_write = None
            if target is R.OfflineReplica and self.replica_states.get(r) is R.OfflineReplica:
                return
        if self.carried_unrecorded and r in self.carried_unrecorded:
            self.carried_unrecorded.discard(r)
            if self.replica_states.get(r) is target:
                # The line of the transition an earlier audit applied without it, at the end of its
                # input (its ISR removal already written): not a second one.
                return
        self.replica_states[r] = previous
        self._replica_effects(r, target, record, inferred=False)

    def on_leader_and_isr(self, record: Event) -> None:
        if (self._is_stale(record) or (self.uncached_epochs and self._resent_from_cache(record))
                or self._epoch_regressed(record) or self._recorded_before_carried(record)):
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
        if (self.deleting and self.state is P.NonExistentPartition and self.leader_epoch < 0
                and (removed is not None or leader < 0)):
            # A topic deletion's ISR removal (it names the replica, or no leader: the removed replica
            # led, ReplicaStateMachine.scala @2.4.1 doRemoveReplicasFromLeaderAndIsr) whose partition
            # the replay never knew the leadership of, or an earlier audit forgot at the end of its
            # input: there is no leader or ISR here to check it against.
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
        newer = record.leader is not None and epoch is not None and (
            epoch > max(self.leader_epoch, self.recorded_epoch)
            or (self.isr_unrecorded and record.isr is not None and record.leader == self.leader
                and epoch == self.leader_epoch))
        if not self.replicas and record.replicas and not self.deleting and (
                self.leader >= 0 or (newer and record.leader >= 0)):
            # A led partition whose creation the input does not hold (before its first line, or a
            # topic a migration's KRaft controller created, real 3.9.2): the copy names its
            # replicas, which the row of the decision it brings shows.
            self.replicas = tuple(record.replicas)
            self._mark_recorded("replicas")
        if newer:
            self.on_leader_and_isr(record)

    def _complete_election(self, record: Event, isr: tuple[int, ...]) -> None:
        """The LeaderAndIsr request after a leader-only election line (ZK <= 1.0) is the same
        decision: its ISR and leader epoch complete the open row, checked as recorded."""
        self.isr_unrecorded = False
        self._check_recorded_isr(record, isr)
        self.isr = self.controller_isr = isr
        self._mark_recorded("isr")
        if record.leader_epoch is not None:
            self.leader_epoch = record.leader_epoch
            self._mark_recorded("leader_epoch")
        if record.zk_version is not None:
            self.zk_version = record.zk_version
        self._note_recorded(record)
        self._replace_open_row(self._open_row._replace(leader_epoch=self.leader_epoch, isr=isr))

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
        if event.leader_epoch is not None and event.leader_epoch > self.leader_epoch:
            # A write at a leader epoch the replay has not reached: elections no record showed
            # came first, and the replay's leader and ISR are not the ones a record showed (each
            # election writes both).
            self._mark_inferred("leader", "isr")
        if event.leader is not None and self.leader >= 0 and event.leader != self.leader:
            # A leader that lost leadership cannot write the znode (zkVersion check).
            facts = {"case": "isr_change_by_former_leader", "isr_writer": str(event.leader), "leader": str(self.leader),
                     "leader_epoch": str(self.leader_epoch)}
            if event.isr is not None:
                facts["isr"] = ids(event.isr)
            self._violate("LEADER_EPOCH_REGRESSION", event, None, facts, (self.last_decision,), self._inferred("leader"))
            return
        if event.leader_epoch is not None and event.leader_epoch > self.leader_epoch:
            self.leader_epoch = event.leader_epoch
            self._mark_recorded("leader_epoch")
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
            if "isr" in self.inferred_values:
                # No record showed the ISR that completes it: nor the assignment the completion writes.
                self._mark_inferred("replicas")
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
                self._violate("ILLEGAL_REPLICA_TRANSITION", record, *self._rejected(step, record), ())
            return
        target = partition_state(record.to_state)
        # Removed without being applied: the attempt failed and the state is unchanged.
        step = self._claim_partition(target)
        if illegal:
            self._violate("ILLEGAL_PARTITION_TRANSITION", record, *self._rejected(step, record), ())
