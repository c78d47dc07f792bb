"""The controller's steps, and how recorded decisions claim them.

A controller input (topic creation, broker failure, reassignment, ...) becomes the steps
the era's controller takes for the partition (`ControllerOperations`: the operations of
KafkaController.scala, as lists of `Step`s). They wait in the partition's `pending` list.
A recorded decision claims the first pending step it matches (`PendingSteps._claim_*`);
the steps before it, which no line showed (a log written at INFO lacks them), are applied
as inferred, as is every step still pending when the next input arrives, and at the end.
Kafka's model: PartitionStateMachine.scala and ReplicaStateMachine.scala (the steps'
valid previous states are the era's tables)."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from state_machine import events as E
from state_machine.events import Event
from state_machine.partition import mark_alive, mark_dead
from state_machine.selectors import Election, ElectionKind, FailureReason, select
from state_machine.states import NO_LEADER, PartitionState, ReplicaState

if TYPE_CHECKING:
    from state_machine.replay import PartitionReplay

P = PartitionState
R = ReplicaState
# The partition states an Online step elects from; in any other state a conditional Online
# step (triggerOnlinePartitionStateChange) is a no-op.
_ELECTABLE = (P.NewPartition, P.OfflinePartition)


class Step(NamedTuple):
    """One action the controller takes for this partition in reaction to an input."""
    op: str                       # see the OP_* names
    target: object = None         # PartitionState / ReplicaState / tuple of replicas
    replica: int = -1
    kind: ElectionKind | None = None
    conditional: bool = False     # Online steps: only if the partition is New/Offline by then
    cause: Event | None = None
    assignment: tuple[int, ...] = ()  # NewPartition steps: the AR loaded from ZooKeeper


OP_PARTITION = "partition"
OP_REPLICA = "replica"
OP_EPOCH_BUMP = "epoch_bump"          # updateLeaderEpoch: same leader and ISR, epoch + 1
OP_ASSIGNMENT = "assignment"          # AR written to ZK
OP_DELETION_DONE = "deletion_done"    # TopicDeletionManager.completeDeleteTopic
OP_REASSIGN_DONE = "reassign_done"    # AR = RAR written, removePartitionFromReassignedPartitions


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


class PendingSteps:
    """The queue of pending steps: how records claim them, and how each is applied."""

    __slots__ = ()

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
            self._mark_recorded("replicas")
        if target is P.OnlinePartition:
            kind = ElectionKind.initial if current is P.NewPartition else (step.kind or ElectionKind.offline)
            outcome = select(kind, self.era, self._selector_input(True if step.kind is ElectionKind.unclean else None,
                                                                  None if record is not None else step.cause))
            if record is not None and record.leader is not None:
                self._recorded_election(record, kind, outcome, transition=True)
                return
            guessed = record is None and self._inferred("replicas", "isr", "leader")
            self._apply_outcome(outcome, cause, inferred=record is None, transition_record=record)
            if guessed:
                # An election no record showed, run on values no record showed: whatever it chose,
                # a leader it kept included, is the replay's guess.
                self._mark_inferred("leader", "isr", "leader_epoch")
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

    # -- replica steps

    def _step_replica(self, step: Step, record: Event | None) -> None:
        r, target = step.replica, step.target
        cause = record or step.cause
        if record is None:
            valid_previous = self.era.replica_valid_previous.get(target)
            if valid_previous is None:
                return  # a state this era does not have (0.8.0 deletion states)
            if self.replica_states.get(r, R.NonExistentReplica) not in valid_previous:
                if target is R.OfflineReplica and r in self.isr and r not in self.replica_states:
                    # A replica whose state no record showed (its creation is not in the history): the
                    # controller took it out of the ISR if it was online, and the replay cannot tell.
                    self._mark_inferred("isr")
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
                if self.replicas_partial:   # an assignment the replay builds from its replicas' lines
                    self._mark_inferred("replicas")
                self._emit(cause, None, inferred)
        elif target is R.NonExistentReplica:
            if r in self.replicas:
                self.replicas = tuple(x for x in self.replicas if x != r)
                self._emit(cause, None, inferred)
            previous = states.pop(r, None)
            self._replica_row(r, previous, target, cause, inferred)
            return
        self._set_replica(r, target, cause, inferred)

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


STEP_APPLIERS = {
    OP_PARTITION: PendingSteps._step_partition,
    OP_REPLICA: PendingSteps._step_replica,
    OP_EPOCH_BUMP: PendingSteps._step_epoch_bump,
    OP_ASSIGNMENT: PendingSteps._step_assignment,
    OP_DELETION_DONE: PendingSteps._step_deletion_done,
    OP_REASSIGN_DONE: _reassign_done,
}


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
    def unassigned_isr_members(rp: PartitionReplay, brokers: list[int], event: Event) -> None:
        """A broker going down that is in the ISR but not in the assignment the replay knows (no
        record named the whole of it): a replica all the same (the ISR is within AR), which the
        controller takes offline, its ISR removal writing a leader epoch (and no leader, if it led;
        removeReplicaFromIsr). The replay has no step for it: those values are inferred from here."""
        if (rp.replicas and not rp.replicas_partial) or rp.state is P.NonExistentPartition:
            return   # (a partition the replay holds nonexistent takes no step of a broker's: state_machine.cluster retires it)
        for b in brokers:
            if b in rp.isr and b not in rp.replicas:
                rp._mark_inferred("leader_epoch", *(("leader",) if b == rp.leader else ()),
                                  *(("isr",) if rp._isr_without(b, event) != rp.isr else ()))

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
        ControllerOperations.unassigned_isr_members(rp, dead, event)
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
        ControllerOperations.unassigned_isr_members(rp, brokers, event)
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
        if not target or target == rp.replicas:
            return
        if rp.state is not P.OnlinePartition:
            # Kafka's onPartitionReassignment reads no partition state: it writes AR = RAR + OAR
            # whatever it is (KafkaController.scala @0.8.2.2-@2.3.1). The replay follows a
            # reassignment of an online partition only, so from here the assignment is its guess.
            rp._mark_inferred("replicas")
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
            rp._mark_inferred("isr")
            rp.zk_version += 1
            rp._emit(event, None, True)
        rp._completion_queued = True
        rp.pending.extend(ControllerOperations.complete_reassignment(rp, event))

    @staticmethod
    def complete_reassignment(rp: PartitionReplay, cause: Event | None) -> list[Step]:
        """Steps 5-12 of onPartitionReassignment, once every target replica is in the ISR."""
        target = rp.reassignment_target or ()
        removed = rp.removing_replicas
        if rp.replicas_partial:
            # The original assignment is not known: an ISR member outside the target is one of its
            # replicas (ISR within AR), which the completion takes offline as well (OAR - RAR).
            removed += tuple(r for r in rp.isr if r not in target and r not in removed)
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
