"""The spec's reassignment example (seeds-spec.md s4.4: OAR {1,2,3} -> RAR {4,5,6}),
replayed from its controller inputs alone, step by step.

Expected states, the 000 (code comment) column of the spec's table:

| Step    | AR (ZK)        | leader/ISR       |
| initial | {1,2,3}        | 1/{1,2,3}        |
| 2       | {1,2,3,4,5,6}  | 1/{1,2,3}        |   leader epoch + 1
| 4       | {1,2,3,4,5,6}  | 1/{1,2,3,4,5,6}  |   leader-driven, epoch unchanged
| 7       | {1,2,3,4,5,6}  | 4/{1,2,3,4,5,6}  |   reassign election, epoch + 1
| 8       | {1,2,3,4,5,6}  | 4/{4,5,6}        |   one ISR removal per old replica, epoch + 1 each
| 10      | {4,5,6}        | 4/{4,5,6}        |

Before 2.4 the in-flight AR is `(RAR ++ AR).toSet`, whose order is not defined beyond 4
members: compared as a set. From 2.4 it is target first: [4,5,6,1,2,3].

Pending steps are applied when the next input arrives (or at finish()), so the state
after an input is observed after feeding the next one."""
from __future__ import annotations

import pytest

from state_machine.eras import ERAS
from state_machine.events import Event
from state_machine.replay import PartitionReplay
from state_machine.states import PartitionState as P
from state_machine.states import ReplicaState as R

OAR, RAR = (1, 2, 3), (4, 5, 6)
ALL = frozenset(OAR + RAR)


class History:
    """Feeds events one by one and collects everything drained."""

    def __init__(self, era_name: str):
        self.rp = PartitionReplay("c", "t", 0, ERAS[era_name])
        self.seq = 0
        self.rows, self.replica_rows, self.violations = [], [], []

    def feed(self, event_type: str, **fields) -> Event:
        self.seq += 1
        fields.setdefault("topic", "t" if event_type not in ("ControllerFailover",) else None)
        fields.setdefault("partition", 0 if fields["topic"] is not None else None)
        event = Event(cluster="c", seq=self.seq, event_time_ms=1_000 * self.seq, event_type=event_type,
                      source_file="inputs.log", source_line=self.seq, **fields)
        self.rp.feed(event)
        self._collect(self.rp.drain())
        return event

    def finish(self):
        self._collect(self.rp.finish())

    def _collect(self, out):
        rows, replica_rows, violations = out
        self.rows += rows
        self.replica_rows += replica_rows
        self.violations += violations


def replay_example(era_name: str, snapshots: dict) -> History:
    h = History(era_name)
    rp = h.rp

    def snap(name):
        snapshots[name] = (rp.state, rp.replicas, rp.leader, rp.isr, rp.leader_epoch, dict(rp.replica_states),
                           rp.assignment_order_known)

    h.feed("ControllerFailover", controller_id=1, controller_epoch=1, brokers=[1, 2, 3, 4, 5, 6])
    h.feed("TopicCreation", replicas=list(OAR))
    h.feed("ReassignmentStart", replicas=list(RAR))
    snap("initial")          # creation applied, reassignment steps 1-3 pending
    # The leader writes at the leader epoch of step 2's bump (0 -> 1).
    h.feed("IsrChange", leader=1, leader_epoch=1, isr=[1, 2, 3, 4])
    snap("isr4")             # steps 1-3 applied, then this ISR expansion
    h.feed("IsrChange", leader=1, leader_epoch=1, isr=[1, 2, 3, 4, 5])
    snap("isr5")
    h.feed("IsrChange", leader=1, leader_epoch=1, isr=[1, 2, 3, 4, 5, 6])
    snap("isr6")             # all of RAR in the ISR: steps 5-12 queued, not yet applied
    h.finish()
    snap("final")
    return h


ERA_CASES = ["0.8.2", "2.4"]


@pytest.fixture(params=ERA_CASES)
def example(request):
    snapshots: dict = {}
    h = replay_example(request.param, snapshots)
    return request.param, h, snapshots


def test_no_violations(example):
    _, h, _ = example
    assert h.violations == []


def test_state_between_inputs(example):
    era, h, snaps = example
    online = {r: R.OnlineReplica for r in OAR}

    state, replicas, leader, isr, epoch, replica_states, _ = snaps["initial"]
    assert (state, replicas, leader, isr, epoch) == (P.OnlinePartition, OAR, 1, OAR, 0)
    assert replica_states == online

    state, replicas, leader, isr, epoch, replica_states, order_known = snaps["isr4"]
    assert state is P.OnlinePartition
    assert set(replicas) == ALL and len(replicas) == 6
    if era == "2.4":
        assert replicas == (4, 5, 6, 1, 2, 3)   # KIP-455: target first
        assert order_known
    else:
        assert not order_known                  # Scala Set of 6: order not defined
    assert (leader, isr, epoch) == (1, (1, 2, 3, 4), 1)
    assert replica_states == {**online, 4: R.NewReplica, 5: R.NewReplica, 6: R.NewReplica}

    assert snaps["isr5"][2:5] == (1, (1, 2, 3, 4, 5), 1)
    assert snaps["isr6"][2:5] == (1, (1, 2, 3, 4, 5, 6), 1)   # completion still pending
    assert set(snaps["isr6"][1]) == ALL

    state, replicas, leader, isr, epoch, replica_states, order_known = snaps["final"]
    assert (state, replicas, leader, isr, epoch) == (P.OnlinePartition, RAR, 4, RAR, 5)
    assert replica_states == {4: R.OnlineReplica, 5: R.OnlineReplica, 6: R.OnlineReplica}
    assert order_known
    assert h.rp.reassignment_target is None
    assert h.rp.pending == []


def _milestones(rows):
    return [(r.partition_state, r.leader, r.leader_epoch, frozenset(r.isr), frozenset(r.replicas)) for r in rows]


def test_timeline_goes_through_the_spec_table(example):
    era, h, _ = example
    rows = [r for r in h.rows if r.partition_state == "OnlinePartition"]
    m = _milestones(rows)
    on = "OnlinePartition"
    spec_rows = [
        (on, 1, 0, frozenset(OAR), frozenset(OAR)),              # initial
        (on, 1, 1, frozenset(OAR), ALL),                         # step 2 (after step 1)
        (on, 1, 1, frozenset({1, 2, 3, 4}), ALL),                # step 4: the ISR grows
        (on, 1, 1, frozenset({1, 2, 3, 4, 5}), ALL),
        (on, 1, 1, ALL, ALL),
        (on, 4, 2, ALL, ALL),                                    # step 7
        (on, 4, 5, frozenset(RAR), ALL),                         # step 8 done
        (on, 4, 5, frozenset(RAR), frozenset(RAR)),              # step 10
    ]
    positions = []
    for expected in spec_rows:
        assert expected in m, f"{expected} missing from {m}"
        positions.append(m.index(expected))
    assert positions == sorted(positions), "spec rows out of order"
    assert m[-1] == spec_rows[-1]

    # Step 2 is one epoch bump over the initial row; the ISR expansions keep the epoch.
    step2 = rows[positions[1]]
    assert step2.inferred and step2.election is None
    for i in (2, 3, 4):
        assert rows[positions[i]].inferred is False   # the IsrChange records themselves

    # Step 7: a reassign election from RAR.
    step7 = rows[positions[5]]
    assert step7.election == "reassign" and step7.leader in RAR

    # Step 8: exactly one removal per old replica, each its own leader-epoch bump.
    between = rows[positions[5]:positions[6] + 1]
    isr_sets = [frozenset(r.isr) for r in between]
    epochs = [r.leader_epoch for r in between]
    distinct = [(e, s) for i, (e, s) in enumerate(zip(epochs, isr_sets)) if i == 0 or (e, s) != (epochs[i - 1], isr_sets[i - 1])]
    assert [e for e, _ in distinct] == [2, 3, 4, 5]
    for (_, before), (_, after) in zip(distinct, distinct[1:]):
        removed = before - after
        assert len(removed) == 1 and removed <= set(OAR) and after < before
    assert all(r.leader == 4 for r in between)

    # Leader epochs never go down.
    all_epochs = [r.leader_epoch for r in h.rows]
    assert all_epochs == sorted(all_epochs)
    # The controller epoch of the failover stamps every write.
    assert {r.controller_epoch for r in rows} == {1}


def test_in_flight_assignment_order(example):
    era, h, _ = example
    in_flight = [r.replicas for r in h.rows if set(r.replicas) == ALL]
    assert in_flight
    if era == "2.4":
        assert set(in_flight) == {(4, 5, 6, 1, 2, 3)}
    else:
        assert all(len(r) == 6 for r in in_flight)


def test_replica_states(example):
    _, h, _ = example
    by_replica: dict[int, list[str]] = {}
    for row in h.replica_rows:
        by_replica.setdefault(row.replica, []).append(row.replica_state)
    for r in OAR:
        assert by_replica[r] == ["NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionStarted",
                                 "ReplicaDeletionSuccessful", "NonExistentReplica"]
    for r in RAR:
        assert by_replica[r] == ["NewReplica", "OnlineReplica"]
    assert all(row.inferred for row in h.replica_rows)
    assert set(h.rp.replica_states) == set(RAR)   # 1, 2, 3 NonExistent: removed


def test_0_8_0_starts_the_new_replicas_without_writing_the_assignment_or_bumping_the_epoch():
    """0.8.0 KafkaController.onPartitionReassignment (sources jar): while RAR catches up it only
    moves the new replicas to NewReplica (startNewReplicasForReassignedPartition); AR stays OAR and
    the leader epoch is not bumped, so the leader's ISR holds replicas outside AR. At completion it
    elects from RAR, removes the old replicas from the ISR, and only then writes AR = RAR."""
    h = History("0.8.0")
    h.feed("ControllerFailover", controller_id=1, controller_epoch=1, brokers=[1, 2, 3, 4, 5, 6])
    h.feed("TopicCreation", replicas=list(OAR))
    h.feed("ReassignmentStart", replicas=list(RAR))
    for isr in ([1, 2, 3, 4], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]):
        h.feed("IsrChange", leader=1, leader_epoch=0, isr=isr)   # written at the creation's epoch
        assert h.rp.replicas == OAR
    h.finish()
    assert h.violations == []
    assert (h.rp.state, h.rp.replicas, h.rp.leader, h.rp.isr) == (P.OnlinePartition, RAR, 4, RAR)
    assert h.rp.leader_epoch == 4          # the reassign election, then one ISR removal per old replica
    assert {r.replica: r.replica_state for r in h.replica_rows if r.replica in OAR} == \
        {r: "NonExistentReplica" for r in OAR}   # Offline -> NonExistent directly
    # No bump before completion: the reassign election is the first epoch after the creation's.
    assert [(r.leader, r.leader_epoch) for r in h.rows if r.election == "reassign"] == [(4, 1)]


def test_an_isr_member_outside_both_assignments_is_reported_in_0_8_0():
    h = History("0.8.0")
    h.feed("ControllerFailover", controller_id=1, controller_epoch=1, brokers=[1, 2, 3, 4, 5, 6, 7])
    h.feed("TopicCreation", replicas=list(OAR))
    h.feed("ReassignmentStart", replicas=list(RAR))
    h.feed("IsrChange", leader=1, leader_epoch=0, isr=[1, 2, 3, 4, 7])
    h.finish()
    assert [v.rule for v in h.violations] == ["ISR_NOT_SUBSET_OF_REPLICAS"]
