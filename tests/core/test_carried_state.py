"""Carried state (PartitionStateCarried, ReplicaStateCarried): a night's replay goes on from
where the night before left the partition. Each scenario is one history cut in two: the
first night replayed alone, its last timeline row and replica states carried into the second
night's replay, which must find what the whole history's replay finds in the second night,
and write the same rows for it."""
from __future__ import annotations

import pytest

from state_machine.carried import carried_events
from state_machine.eras import ERAS, resolve_era
from state_machine.events import Event, provenance
from state_machine.replay import PartitionReplay

from test_replay_checks import BASE, C1, C2, UNCLEAN, build, e


def replay(era: str, events: list[Event]):
    rp = PartitionReplay("c", "t", 0, resolve_era(era))
    for event in events:
        rp.feed(event)
    return rp.finish()


def nights(era: str, specs, cut: int):
    """(whole, second night without carried state, second night with it): each the replay's
    (rows, replica rows, violations), the whole one's of the second night only."""
    events = build(specs)
    first, second = events[:cut], events[cut:]
    rows, replica_rows, violations = replay(era, events)
    starts = second[0].seq
    whole = ([r for r in rows if r.seq >= starts], [r for r in replica_rows if r.seq >= starts],
             [v for v in violations if v.seq >= starts])
    night1 = replay(era, first)
    return whole, replay(era, second), replay(era, carried_events("c", "t", 0, night1[0], night1[1]) + second)


def rules(violations) -> list[tuple]:
    return [(v.rule, v.severity, v.seq) for v in violations]


UNCLEAN_ACROSS_NIGHTS = [
    *BASE, e("IsrChange", leader=1, leader_epoch=0, isr=[1]),
    # night 2: broker 1 fails; the controller records leader 2, out of the ISR [1]
    e("BrokerFailure", brokers=[1]),
    e("PartitionStateChange", from_state="OnlinePartition", to_state="OfflinePartition", **C1),
    e("PartitionStateChange", from_state="OfflinePartition", to_state="OnlinePartition", leader=2, leader_epoch=1,
      isr=[2], **C1),
]


def test_an_unclean_election_after_midnight_is_found_only_with_the_state_carried():
    whole, alone, with_carried = nights("2.4", UNCLEAN_ACROSS_NIGHTS, cut=4)
    assert [v.rule for v in whole[2]] == ["UNCLEAN_LEADER_ELECTION"]
    # The second night alone knows no ISR before the election (and takes broker 2 for dead:
    # the failure of broker 1 is all it knows of the brokers).
    assert "UNCLEAN_LEADER_ELECTION" not in [v.rule for v in alone[2]]
    # The evidence names the carried row's source: the line that shrank the ISR to [1].
    assert with_carried[2] == whole[2]
    assert with_carried[2][0].evidence == ("state-change.log:107", "controller.log:104")
    assert with_carried[0] == whole[0]


def test_a_leader_epoch_going_back_after_midnight():
    specs = [*BASE, e("LeaderAndIsr", leader=2, leader_epoch=5, isr=[1, 2, 3], **C1),
             e("LeaderAndIsr", leader=1, leader_epoch=3, isr=[1, 2, 3], **C1)]
    whole, alone, with_carried = nights("2.4", specs, cut=4)
    assert [v.rule for v in whole[2]] == ["LEADER_EPOCH_REGRESSION"]
    assert alone[2] == []
    assert with_carried[2] == whole[2]


def test_a_zombie_controller_after_midnight():
    specs = [*BASE, e("ControllerFailover", brokers=[1, 2, 3], **C2),
             e("LeaderAndIsr", leader=2, leader_epoch=1, isr=[2, 3], **C2),
             e("LeaderAndIsr", leader=3, leader_epoch=2, isr=[3], **C1)]
    whole, _, with_carried = nights("2.4", specs, cut=5)
    assert "STALE_CONTROLLER_EPOCH" in [v.rule for v in whole[2]]
    assert rules(with_carried[2]) == rules(whole[2])
    assert [v.evidence for v in with_carried[2]] == [v.evidence for v in whole[2]]
    # The timeline does not say which controller held epoch 2: the detail leaves it out.
    assert "but epoch 2 was already seen" in with_carried[2][0].detail


def test_a_resent_value_writes_no_second_row_of_the_carried_state():
    specs = [*BASE, e("IsrChange", leader=1, leader_epoch=0, isr=[1, 2]),
             # night 2: a new controller resends what it found, then the ISR grows back
             e("ControllerFailover", brokers=[1, 2, 3], **C2),
             e("LeaderAndIsr", leader=1, leader_epoch=0, isr=[1, 2], **C2),
             e("IsrChange", leader=1, leader_epoch=0, isr=[1, 2, 3])]
    whole, alone, with_carried = nights("2.4", specs, cut=4)
    assert with_carried[0] == whole[0]
    assert [(r.leader, r.isr) for r in with_carried[0]] == [(1, (1, 2, 3))]
    assert with_carried[2] == whole[2] == []
    # Without it the resent value opens a row of its own.
    assert [(r.leader, r.isr) for r in alone[0]] == [(1, (1, 2)), (1, (1, 2, 3))]


def test_replica_states_carried_make_a_replica_line_legal():
    specs = [*BASE] + [e("ReplicaStateChange", replica=r, from_state="NewReplica", to_state="OnlineReplica", **C1)
                       for r in (1, 2, 3)]
    # night 2 logs the target state only (the INFO form names no previous state)
    specs.append(e("ReplicaStateChange", replica=3, to_state="OfflineReplica", **C1))
    whole, alone, with_carried = nights("2.4", specs, cut=6)
    assert whole[2] == with_carried[2] == []
    assert [(r.replica, r.replica_state) for r in with_carried[1]] == [(3, "OfflineReplica")]
    assert [v.rule for v in alone[2]] == ["ILLEGAL_REPLICA_TRANSITION"]


def test_kraft_an_unclean_change_after_midnight():
    specs = [e("ControllerFailover", controller_id=3000, controller_epoch=4),
             e("PartitionRecord", replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=0, zk_version=0),
             e("PartitionChangeRecord", isr=[1]),
             # night 2: leader 3, out of the ISR [1]
             e("PartitionChangeRecord", leader=3, isr=[3], leader_recovery_state="RECOVERING")]
    whole, alone, with_carried = nights("kraft", specs, cut=3)
    assert [v.rule for v in whole[2]] == ["UNCLEAN_LEADER_ELECTION"]
    assert with_carried[2] == whole[2]
    assert with_carried[0] == whole[0]


def test_kraft_an_election_from_the_elr_after_midnight_is_clean_with_the_elr_carried():
    """KIP-966: the ISR empties into the eligible leader replicas in the evening; after
    midnight broker 2, in the ELR, is elected. Clean, as the whole history's replay says, only
    if the night carries the ELR (the ISR before the election is empty)."""
    specs = [e("ControllerFailover", controller_id=3000, controller_epoch=4),
             e("PartitionRecord", replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=0, zk_version=0),
             e("PartitionChangeRecord", isr=[1, 2], elr=[3]),
             e("PartitionChangeRecord", isr=[1], elr=[2, 3]),
             e("PartitionChangeRecord", isr=[], leader=-1, elr=[1, 2, 3]),
             # night 2: an ELR member returns and is elected
             e("PartitionChangeRecord", isr=[2], leader=2, elr=[1, 3])]
    whole, _, with_carried = nights("kraft", specs, cut=5)
    assert whole[2] == with_carried[2] == []
    assert with_carried[0] == whole[0]
    assert [(r.leader, r.isr, r.elr, r.last_known_elr, r.leader_recovery_state) for r in whole[0]] == [
        (2, (2,), (1, 3), (), "RECOVERED")]
    # A row written before the ELR was a column (null there): the ISR [] alone makes it unclean.
    events = build(specs)
    night1 = replay("kraft", events[:5])
    carried = [c._replace(elr=None, last_known_elr=None, leader_recovery_state=None)
               for c in carried_events("c", "t", 0, night1[0], night1[1])]
    assert [v.rule for v in replay("kraft", carried + events[5:])[2]] == ["UNCLEAN_LEADER_ELECTION"]


def test_kraft_a_change_of_the_elr_alone_is_a_timeline_row():
    """The ELR is part of the partition's state: a change of it alone (a ClearElrRecord, an
    ELR member's unclean shutdown) is a row, so the row before midnight carries it."""
    rows, _, violations = replay("kraft", build([
        e("ControllerFailover", controller_id=3000, controller_epoch=4),
        e("PartitionRecord", replicas=[1, 2, 3], isr=[1, 2], leader=1, leader_epoch=0, zk_version=0, elr=[3]),
        e("PartitionChangeRecord", elr=[]),
        e("PartitionChangeRecord", elr=[3]),
        e("ClearElrRecord")]))
    assert violations == []
    assert [(r.isr, r.elr) for r in rows] == [((1, 2), (3,)), ((1, 2), ()), ((1, 2), (3,)), ((1, 2), ())]


KRAFT_FAILOVER = e("ControllerFailover", controller_id=3000, controller_epoch=4)


@pytest.mark.parametrize("records, targets", [
    # [1, 2, 3] -> [2, 3, 4]: replicas are the target and the removing ones; broker 4 catches up,
    # and the change that completes it elects 2 from the target (1 leaves).
    ([e("PartitionChangeRecord", replicas=[2, 3, 4, 1], adding_replicas=[4], removing_replicas=[1]),
      e("PartitionChangeRecord", isr=[1, 2, 3, 4]),
      e("PartitionChangeRecord", replicas=[2, 3, 4], isr=[2, 3, 4], leader=2, adding_replicas=[], removing_replicas=[])],
     [(2, 3, 4), (2, 3, 4), None]),
    # [1, 2, 3] -> [1, 2, 3, 4]: nothing removed, so the record that starts it writes no removingReplicas
    # and the one that completes it none either (each is written only when it changes).
    ([e("PartitionChangeRecord", replicas=[1, 2, 3, 4], adding_replicas=[4]),
      e("PartitionChangeRecord", isr=[1, 2]),
      e("PartitionChangeRecord", isr=[1, 2, 3, 4], adding_replicas=[])],
     [(1, 2, 3, 4), (1, 2, 3, 4), None]),
    # [1, 2, 3] -> [1, 2] while broker 2 is out of the ISR: nothing added; replicas unchanged until done.
    ([e("PartitionChangeRecord", isr=[1, 3]),
      e("PartitionChangeRecord", removing_replicas=[3]),
      e("PartitionChangeRecord", replicas=[1, 2], isr=[1, 2], removing_replicas=[])],
     [None, (1, 2), None]),
])
@pytest.mark.parametrize("cut", [3, 4])
def test_kraft_a_reassignment_in_flight_is_the_rows_target_across_midnight(records, targets, cut):
    """KRaft's reassignment in flight is in its records' addingReplicas / removingReplicas: the
    target (replicas less the removing ones) is the timeline's, and a night cut while it is in
    flight goes on from the carried row to the same completion."""
    specs = [KRAFT_FAILOVER, e("PartitionRecord", replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=0,
                               zk_version=0, adding_replicas=[], removing_replicas=[]), *records]
    rows, _, violations = replay("kraft", build(specs))
    assert violations == []
    assert [r.target_replicas for r in rows] == [None, *targets]
    whole, _, with_carried = nights("kraft", specs, cut=cut)
    assert with_carried[0] == whole[0] and with_carried[2] == whole[2] == []


def test_kraft_a_snapshot_of_a_partition_being_reassigned():
    rows, _, _ = replay("kraft", build([KRAFT_FAILOVER, e(
        "PartitionRecord", replicas=[2, 3, 4, 1], isr=[1, 2, 3], leader=1, leader_epoch=3, zk_version=5,
        adding_replicas=[4], removing_replicas=[1])]))
    assert [r.target_replicas for r in rows] == [(2, 3, 4)]


def test_kraft_an_isr_or_leader_outside_the_replicas_is_reported_while_a_reassignment_is_in_flight():
    """KRaft's replicas hold the removing ones until the reassignment is done, so no ISR member or
    leader is excused as one being removed (as in ZooKeeper mode, where AR is the target first):
    here the completion drops broker 1, the leader, from the replicas but not from the ISR."""
    rows, _, violations = replay("kraft", build([
        KRAFT_FAILOVER,
        e("PartitionRecord", replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=0, zk_version=0),
        e("PartitionChangeRecord", replicas=[2, 3, 4, 1], adding_replicas=[4], removing_replicas=[1]),
        e("PartitionChangeRecord", replicas=[2, 3, 4], isr=[1, 2, 3, 4], adding_replicas=[], removing_replicas=[])]))
    assert [v.rule for v in violations] == ["ISR_NOT_SUBSET_OF_REPLICAS", "LEADER_NOT_IN_REPLICAS"]


def test_zookeeper_rows_have_no_kraft_state():
    rows, _, _ = replay("2.4", build(UNCLEAN_ACROSS_NIGHTS))
    assert rows and {(r.elr, r.last_known_elr, r.leader_recovery_state) for r in rows} == {(None, None, None)}


@pytest.mark.parametrize("era", ["0.8.1", "2.4", "3.9", "kraft"])
def test_a_carried_state_alone_writes_nothing(era):
    state = Event(cluster="c", seq=0, event_time_ms=5, event_type="PartitionStateCarried", topic="t", partition=0,
                  to_state="OnlinePartition", leader=1, leader_epoch=7, isr=[1, 2], replicas=[1, 2], controller_epoch=3)
    assert replay(era, [state]) == ([], [], [])


@pytest.mark.parametrize("detail, regressed", [(None, True), ("inferred", False)])
def test_an_inferred_carried_epoch_is_no_recorded_one(detail, regressed):
    # The earlier audit inferred epoch 5 from steps still pending at the end of its input; the
    # next input records how they really went (epoch 4): no regression of a recorded epoch.
    state = Event(cluster="c", seq=0, event_time_ms=5, event_type="PartitionStateCarried", topic="t", partition=0,
                  to_state="OnlinePartition", leader=1, leader_epoch=5, isr=[1, 2], replicas=[1, 2], controller_epoch=1,
                  detail=detail, source_file="state-change.log:9")
    record = Event(cluster="c", seq=1, event_time_ms=6, event_type="LeaderAndIsr", topic="t", partition=0, leader=1,
                   leader_epoch=4, isr=[1, 2], controller_id=1, controller_epoch=1, source_file="state-change.log",
                   source_line=3)
    _, _, violations = replay("2.4", [state, record])
    assert ["LEADER_EPOCH_REGRESSION" for v in violations if v.rule == "LEADER_EPOCH_REGRESSION"] == \
        (["LEADER_EPOCH_REGRESSION"] if regressed else [])


def test_an_inferred_row_a_record_confirms_carries_its_epoch_as_a_recorded_one():
    # Broker 1 fails: the controller's election (leader 2, epoch 1) is not logged (INFO) and is
    # inferred when the next input arrives; then the controller's LeaderAndIsr request shows the
    # same values. After midnight, a request at epoch 0 goes back on a recorded epoch.
    specs = [*BASE, e("BrokerFailure", brokers=[1]), e("BrokerStartup", brokers=[1]),
             e("LeaderAndIsr", leader=2, leader_epoch=1, isr=[2, 3], **C1),
             e("LeaderAndIsr", leader=2, leader_epoch=0, isr=[2, 3], **C1)]
    events = build(specs)
    night1 = replay("2.4", events[:6])
    (last,) = [r for r in night1[0] if r.valid_to is None]
    assert (last.leader, last.leader_epoch, last.inferred, last.source) == (2, 1, False, provenance(events[3]))
    whole, _, with_carried = nights("2.4", specs, cut=6)
    assert [v.rule for v in whole[2]] == ["LEADER_EPOCH_REGRESSION"]
    assert rules(with_carried[2]) == rules(whole[2])


@pytest.mark.parametrize("era", ["0.8.2", "2.4", "3.9"])
def test_a_reassignment_in_flight_at_midnight_completes_the_next_night(era):
    # Night 1 starts moving the partition to [2, 3, 4]; night 2's leader adds broker 4 to the
    # ISR, and the controller completes the reassignment (leader 2 elected from the target).
    specs = [*BASE, e("BrokerStartup", brokers=[4]), e("ReassignmentStart", replicas=[2, 3, 4]),
             e("IsrChange", leader=1, isr=[1, 2, 3, 4], recording_broker=1),
             e("LeaderAndIsr", leader=2, isr=[1, 2, 3, 4], **C1)]
    events = build(specs)
    rows = replay(era, events[:5])[0]
    assert rows[-1].target_replicas == (2, 3, 4)
    whole, _, with_carried = nights(era, specs, cut=5)
    assert (whole[0][-1].leader, whole[0][-1].replicas, whole[0][-1].target_replicas) == (2, (2, 3, 4), None)
    assert with_carried[0] == whole[0]
    assert rules(with_carried[2]) == rules(whole[2])


def test_a_zombie_controller_just_after_midnight_is_found_by_the_carried_epoch():
    # Controller 2 (epoch 2) wrote the evening before; just after midnight the old controller 1
    # (epoch 1) still decides for this partition, whose own last row controller 1 wrote.
    from state_machine.carried import carried_cluster
    from state_machine.cluster import replay_cluster

    specs = [*BASE, e("ControllerFailover", brokers=[1, 2, 3], **C2),
             e("LeaderAndIsr", topic="u", partition=0, leader=2, leader_epoch=1, isr=[2, 3], **C2),
             e("LeaderAndIsr", leader=3, leader_epoch=1, isr=[3], **C1)]
    events = build(specs)   # u-0's row carries epoch 2; t-0's last row before the cut, epoch 1
    cut = 5
    era = resolve_era("2.4")
    whole = replay_cluster("c", events, era)[("t", 0)].violations
    carried = carried_cluster("c", replay_cluster("c", events[:cut], era), events[cut].event_time_ms)
    assert [c.controller_epoch for c in carried if c.event_type == "ControllerEpochCarried"] == [2]
    night = replay_cluster("c", carried + events[cut:], era)[("t", 0)].violations
    assert [v.rule for v in whole] == [v.rule for v in night] == ["STALE_CONTROLLER_EPOCH"]
    without_epoch = [c for c in carried if c.event_type != "ControllerEpochCarried"]
    assert replay_cluster("c", without_epoch + events[cut:], era)[("t", 0)].violations == []


def test_a_failover_no_row_shows_yet_is_carried_by_the_recorded_controller_changes():
    # Controller 2 took over (epoch 2) just before midnight and wrote nothing yet; just after
    # midnight the old controller 1 still decides. Only the failover shows epoch 2.
    from state_machine.carried import carried_cluster, controller_changes
    from state_machine.cluster import replay_cluster

    events = build([*BASE, e("ControllerFailover", brokers=[1, 2, 3], **C2),
                    e("LeaderAndIsr", leader=3, leader_epoch=1, isr=[3], **C1)])
    cut = 4
    era = resolve_era("2.4")
    whole = replay_cluster("c", events, era)[("t", 0)].violations
    first_night = replay_cluster("c", events[:cut], era)
    assert controller_changes(events[:cut]) == [(events[0].event_time_ms, 1, 1), (events[3].event_time_ms, 2, 2)]
    rows_only = carried_cluster("c", first_night, events[cut].event_time_ms)
    carried = carried_cluster("c", first_night, events[cut].event_time_ms, events[:cut])
    assert [(c.controller_epoch, c.controller_id) for c in rows_only if c.event_type == "ControllerEpochCarried"] == \
        [(1, None)]
    assert [(c.controller_epoch, c.controller_id) for c in carried if c.event_type == "ControllerEpochCarried"] == \
        [(2, 2)]
    night = replay_cluster("c", carried + events[cut:], era)[("t", 0)].violations
    assert [(v.rule, v.detail) for v in night] == [(v.rule, v.detail) for v in whole]
    assert [v.rule for v in whole] == ["STALE_CONTROLLER_EPOCH"] and "(controller 2)" in whole[0].detail
    assert replay_cluster("c", rows_only + events[cut:], era)[("t", 0)].violations == []


@pytest.mark.parametrize("start, expected", [
    (None, [(9, 4)]),       # every row and change (one with no time counts only here)
    (25, [(5, None)]),      # the rows' epoch 5 is above the changes' before 25 (epoch 4 at 20)
    (15, [(5, None)]),
    (5, [(5, None)]),       # no change before 5: the rows' epoch alone
])
def test_the_carried_controller_epoch_is_the_highest_of_rows_and_changes_before_the_start(start, expected):
    from state_machine.carried import carried_controller

    changes = [(10, 3, 1), (20, 4, 2), (30, 7, 3), (None, 9, 4)]
    got = carried_controller("c", [5, None], changes, start)
    assert [(c.controller_epoch, c.controller_id) for c in got] == expected
    assert carried_controller("c", [None], [(30, 7, 3)], 25) == []


def test_the_controller_of_the_carried_epoch_is_the_first_change_that_names_it():
    from state_machine.carried import carried_controller

    got = carried_controller("c", [], [(10, 3, None), (11, 3, 2), (12, 3, 1)], 100)
    assert [(c.controller_epoch, c.controller_id) for c in got] == [(3, 2)]


def test_the_brokers_a_night_ends_with_alive_and_dead_are_carried():
    # Broker 3 failed the evening before (the controller listed 1, 2, 3 at its failover); the
    # first election after midnight of a new topic on 1, 2, 3 must not pick 3. Alone, the night
    # takes every replica for alive.
    from state_machine.carried import broker_changes, carried_cluster, carried_liveness
    from state_machine.cluster import replay_cluster

    events = build([*BASE, e("BrokerFailure", brokers=[3]),
                    e("TopicCreation", topic="u", replicas=[3, 1, 2]),
                    e("PartitionStateChange", topic="u", from_state="NewPartition", to_state="OnlinePartition", leader=3,
                      leader_epoch=0, isr=[3, 1, 2], **C1)])
    cut = 4
    era = resolve_era("2.4")
    changes = broker_changes(events[:cut])
    assert changes == [(events[0].event_time_ms, "ControllerFailover", [1, 2, 3]), (events[3].event_time_ms, "BrokerFailure", [3])]
    assert [(c.to_state, c.brokers, c.detail) for c in carried_liveness("c", changes, events[cut].event_time_ms)] == \
        [("alive", [1, 2], "complete"), ("dead", [3], None)]
    carried = carried_cluster("c", replay_cluster("c", events[:cut], era), events[cut].event_time_ms, events[:cut])
    whole = replay_cluster("c", events, era)[("u", 0)].violations
    night = replay_cluster("c", carried + events[cut:], era)[("u", 0)].violations
    alone = replay_cluster("c", events[cut:], era)[("u", 0)].violations
    assert [v.rule for v in whole] == [v.rule for v in night] == ["UNEXPECTED_LEADER"]
    assert [v.detail for v in whole] == [v.detail for v in night]
    assert alone == []


def test_carried_liveness_follows_the_changes_in_order_and_stops_at_the_start():
    from state_machine.carried import carried_liveness

    changes = [(1, "BrokerFailure", [2]), (2, "BrokerStartup", [2, 4]), (3, "ControlledShutdown", [5]),
               (4, "BrokerFailure", [4]), (9, "ControllerFailover", [1])]
    got = carried_liveness("c", changes, 5)
    assert [(c.event_type, c.to_state, c.brokers, c.detail) for c in got] == \
        [("LivenessCarried", "alive", [2, 5], None), ("LivenessCarried", "dead", [4], None)]
    assert [(c.to_state, c.brokers, c.detail) for c in carried_liveness("c", changes)] == [("alive", [1], "complete")]
    assert carried_liveness("c", changes, 1) == [] and carried_liveness("c", [], None) == []


@pytest.mark.parametrize("era", ["0.8.2", "2.4"])
def test_a_topics_unclean_setting_is_carried_into_the_next_night(era):
    # The topic forbade unclean elections the evening before, and its only ISR member failed.
    # Just after midnight a new controller takes over: the offline partition must stay offline,
    # as in the whole history; the era's default (allowed before 2.0) would elect 2 uncleanly.
    from state_machine.carried import carried_cluster, carried_configs, config_changes
    from state_machine.cluster import replay_cluster

    events = build([*BASE, e("ConfigChange", topic="t", config_name="unclean.leader.election.enable", config_value="false"),
                    e("IsrChange", leader=1, leader_epoch=0, isr=[1]), e("BrokerFailure", brokers=[1]),
                    e("ControllerFailover", brokers=[2, 3], **C2)])
    cut = 6
    resolved = resolve_era(era)
    changes = config_changes(events[:cut])
    assert changes == [(events[3].event_time_ms, "t", "false")]
    assert [(c.event_type, c.topic, c.config_name, c.config_value) for c in carried_configs("c", changes, events[cut].event_time_ms)] \
        == [("ConfigObserved", "t", "unclean.leader.election.enable", "false")]
    carried = carried_cluster("c", replay_cluster("c", events[:cut], resolved), events[cut].event_time_ms, events[:cut])
    whole = replay_cluster("c", events, resolved)[("t", 0)]
    night = replay_cluster("c", carried + events[cut:], resolved)[("t", 0)]
    assert whole.violations == night.violations == []
    assert [r[3:] for r in night.timeline] == [r[3:] for r in whole.timeline if r.seq >= events[cut].seq]
    unset = replay_cluster("c", [c for c in carried if c.event_type != "ConfigObserved"] + events[cut:], resolved)[("t", 0)]
    if era == "0.8.2":   # the default allows it
        assert [(r.leader, r.election) for r in unset.timeline] == [(2, "unclean")]
    else:                # the default forbids it: the setting changes nothing
        assert unset.timeline == night.timeline


def test_the_last_unclean_setting_of_each_topic_and_of_the_cluster_before_the_start_is_carried():
    from state_machine.carried import carried_configs

    changes = [(1, None, "true"), (2, "a", "false"), (3, "b", "true"), (4, "a", None), (9, "b", "false")]
    got = carried_configs("c", changes, 5)
    assert [(c.topic, c.config_value, c.seq < 0) for c in got] == [(None, "true", True), ("a", None, True), ("b", "true", True)]
    assert [(c.topic, c.config_value) for c in carried_configs("c", changes)] == [(None, "true"), ("a", None), ("b", "false")]


@pytest.mark.parametrize("era", ["0.8.2", "1.1", "2.4", "3.x"])
def test_a_topic_deletion_that_straddles_midnight_completes_the_next_night(era):
    # Broker 3 is down when the topic's deletion starts: its replica is ineligible and the
    # deletion waits. After midnight broker 3 comes back and the controller finishes the
    # deletion: the partition and its replicas are gone, as when the whole history is replayed.
    from state_machine.carried import carried_cluster
    from state_machine.cluster import replay_cluster

    events = build([*BASE, e("BrokerFailure", brokers=[3]), e("TopicDeletion"), e("BrokerStartup", brokers=[3])])
    cut = 5
    resolved = resolve_era(era)
    whole = replay_cluster("c", events, resolved)[("t", 0)]
    first_night = replay_cluster("c", events[:cut], resolved)
    assert first_night[("t", 0)].timeline[-1].replicas == (1, 2, 3)   # the deletion waits for broker 3
    carried = carried_cluster("c", first_night, events[cut].event_time_ms, events[:cut])
    night = replay_cluster("c", carried + events[cut:], resolved)[("t", 0)]
    last = whole.timeline[-1]
    assert (last.partition_state, last.leader, last.leader_epoch, last.replicas) == ("NonExistentPartition", -1, -1, ())
    assert [r[3:] for r in night.timeline] == [r[3:] for r in whole.timeline if r.seq >= events[cut].seq]
    assert night.replica_timeline == [r for r in whole.replica_timeline if r.seq >= events[cut].seq]
    assert night.violations == [v for v in whole.violations if v.seq >= events[cut].seq]


def split_at(era: str, specs, cut: int):
    """(whole, second night): the whole history's replay of ("t", 0), and the second night's behind
    the first night's carried state (carried_cluster, as the audit carries it)."""
    from state_machine.carried import carried_cluster
    from state_machine.cluster import replay_cluster

    events, resolved = build(specs), resolve_era(era)
    first_night = replay_cluster("c", events[:cut], resolved)
    carried = carried_cluster("c", first_night, events[cut].event_time_ms, events[:cut])
    return replay_cluster("c", events, resolved)[("t", 0)], replay_cluster("c", carried + events[cut:], resolved)[("t", 0)]


def state(row) -> tuple:
    return row.partition_state, row.leader, row.leader_epoch, row.isr, row.replicas


REPLICA_DELETION = [e("ReplicaStateChange", replica=r, from_state=before, to_state=after, **C1)
                    for before, after in (("OnlineReplica", "OfflineReplica"), ("OfflineReplica", "ReplicaDeletionStarted"),
                                          ("ReplicaDeletionStarted", "ReplicaDeletionSuccessful"),
                                          ("ReplicaDeletionSuccessful", "NonExistentReplica"))
                    for r in (1, 2, 3)]


def test_a_deletion_requested_before_midnight_and_logged_after_it_leaves_the_partition_deleted():
    # The deletion is requested before midnight; the controller's lines of it fall after. The first
    # night applies its steps at the end of its input; the second night's lines are the deletion's
    # (2.1+: the partition goes NonExistent first, then each ISR removal writes a leader epoch),
    # and the partition ends deleted, not with the last removal's leader epoch and ISR.
    specs = [*BASE, e("IsrChange", leader=1, leader_epoch=0, isr=[1]), e("TopicDeletion"),
             e("PartitionStateChange", from_state="OnlinePartition", to_state="OfflinePartition", **C1),
             e("PartitionStateChange", from_state="OfflinePartition", to_state="NonExistentPartition", **C1),
             e("LeaderAndIsr", leader=-1, leader_epoch=1, isr=[1], **C1), *REPLICA_DELETION]
    whole, night = split_at("2.4", specs, cut=5)
    assert state(whole.timeline[-1]) == state(night.timeline[-1]) == ("NonExistentPartition", -1, -1, (), ())
    assert night.violations == [v for v in whole.violations if v.seq > 5] == []


def test_a_broker_failure_before_midnight_logged_after_it_removes_the_replica_from_the_isr_once():
    # Broker 1, the leader and the ISR's last member, fails before midnight; its lines fall after.
    # The first night applies the removal (leader -1, the ISR keeps [1], leader epoch 1) without its
    # lines; the second night's OfflineReplica line of replica 1 is that removal's, not a second one
    # at leader epoch 2.
    specs = [*BASE, e("IsrChange", leader=1, leader_epoch=0, isr=[1]), e("BrokerFailure", brokers=[1]),
             e("PartitionStateChange", from_state="OnlinePartition", to_state="OfflinePartition", **C1),
             e("LeaderAndIsr", leader=-1, leader_epoch=1, isr=[1], **C1),
             e("ReplicaStateChange", replica=1, from_state="OnlineReplica", to_state="OfflineReplica", **C1),
             e("ControllerFailover", brokers=[2, 3], **C2),
             e("LeaderAndIsr", leader=-1, leader_epoch=2, isr=[1], **C2)]
    whole, night = split_at("2.4", specs, cut=5)
    assert state(whole.timeline[-1]) == state(night.timeline[-1]) == ("OfflinePartition", -1, 2, (1,), (1, 2, 3))
    assert [r.leader_epoch for r in night.timeline] == [2]   # the failover's, the first night's removal carried
    assert night.violations == [v for v in whole.violations if v.seq > 5] == []


# 0.8.0 aside: a reassignment whose target holds no new replica writes no row there (AR stays as it
# is until the completion), so a night may end with no row that shows it in flight.
@pytest.mark.parametrize("era", [name for name in ERAS if name != "0.8.0"])
def test_a_night_cut_from_a_generated_history_ends_each_partition_as_the_whole_replay(era):
    """Generated histories (faults injected) cut at their middle, as bench/nightly_cut.py cuts them:
    the second night, behind the first's carried state, leaves every partition it writes a row of in
    the state the whole history's replay leaves it (topic deletions and broker failures whose lines
    fall after midnight among them: seeds 23, 24 and 26 at TRACE), and finds the violations it finds
    after midnight."""
    from state_machine.carried import carried_cluster
    from state_machine.cluster import replay_cluster
    from state_machine.generator import FAULTS, SimConfig, simulate

    resolved, differ = resolve_era(era), []
    for seed in range(30):
        for level in ("trace", "info"):
            events, _ = simulate(SimConfig(cluster="c", era=era, seed=seed, steps=80, brokers=4, topics=2, partitions=2,
                                           faults={f: 1 for f in FAULTS}, fault_rate=0.3, log_level=level))
            cut = len(events) // 2
            while cut < len(events) and events[cut].event_time_ms == events[cut - 1].event_time_ms:
                cut += 1
            first_night = replay_cluster("c", events[:cut], resolved)
            carried = carried_cluster("c", first_night, events[cut].event_time_ms, events[:cut])
            night = replay_cluster("c", carried + events[cut:], resolved)
            for key, whole in replay_cluster("c", events, resolved).items():
                written = night[key].timeline if key in night else []
                if written and state(written[-1]) != state(whole.timeline[-1]):
                    differ.append((seed, level, key, state(whole.timeline[-1]), state(written[-1])))
                if cut < len(events):
                    found = {(v.rule, v.seq) for v in night[key].violations} if key in night else set()
                    if found != {(v.rule, v.seq) for v in whole.violations if v.seq >= events[cut].seq}:
                        differ.append((seed, level, key, "violations"))
    assert differ == []


def test_the_values_an_inferred_row_inferred_are_carried_not_every_value():
    # A reassignment's epoch bump no line showed (inferred: its leader epoch) ends the first night;
    # the ISR [1] before it was recorded. The unclean election after midnight rests on that ISR: an
    # error, as in the whole replay, not a warning on an ISR taken for inferred.
    specs = [e("ConfigChange", topic="t", config_name=UNCLEAN, config_value="false"), *BASE,
             e("IsrChange", leader=1, leader_epoch=0, isr=[1]), e("ReassignmentStart", replicas=[1, 2, 3, 4]),
             e("BrokerFailure", brokers=[1]),
             e("PartitionStateChange", from_state="OnlinePartition", to_state="OfflinePartition", **C1),
             e("PartitionStateChange", from_state="OfflinePartition", to_state="OnlinePartition", leader=2, leader_epoch=2,
               isr=[2], **C1)]
    whole, night = split_at("2.4", specs, cut=6)
    assert rules(whole.violations) == rules(night.violations) == [("UNCLEAN_LEADER_ELECTION", "error", 9)]
    from state_machine.carried import inference_detail, inference_of
    assert inference_detail(True, ("leader_epoch",)) == "inferred:leader_epoch"
    assert inference_of("inferred:leader_epoch") == (True, frozenset({"leader_epoch"}))
    # A table that keeps the row's flag alone: every value taken for inferred.
    assert inference_of("inferred") == (True, frozenset({"leader", "leader_epoch", "isr", "replicas"}))
    assert inference_of(None) == (False, frozenset())


@pytest.mark.parametrize("era", ["0.8.2", "1.1", "2.1", "2.4"])
def test_a_dead_replica_a_failover_left_ineligible_is_no_deletion_the_next_night(era):
    # Broker 3 is down when a new controller takes over before midnight: up to 2.2 its
    # initializeReplicaState leaves the dead replica ReplicaDeletionIneligible, no topic being
    # deleted. After midnight broker 3 comes back and rejoins the ISR, and broker 1 fails: the
    # partition goes on as in the whole replay, not as a deletion resumed.
    specs = [*BASE, e("BrokerFailure", brokers=[3]),
             e("LeaderAndIsr", leader=1, leader_epoch=1, isr=[1, 2], **C1),
             e("ReplicaStateChange", replica=3, from_state="OnlineReplica", to_state="OfflineReplica", **C1),
             e("ControllerFailover", brokers=[1, 2], **C2),
             # night 2
             e("BrokerStartup", brokers=[3]),
             e("ReplicaStateChange", replica=3, from_state="ReplicaDeletionIneligible", to_state="OnlineReplica", **C2),
             e("IsrChange", leader=1, leader_epoch=1, isr=[1, 2, 3]),
             e("BrokerFailure", brokers=[1]),
             e("PartitionStateChange", from_state="OnlinePartition", to_state="OfflinePartition", **C2),
             e("PartitionStateChange", from_state="OfflinePartition", to_state="OnlinePartition", leader=2, leader_epoch=2,
               isr=[2, 3], **C2)]
    whole, night = split_at(era, specs, cut=7)
    assert [state(r) for r in night.timeline] == [state(r) for r in whole.timeline if r.seq > 7]
    assert state(night.timeline[-1]) == ("OnlinePartition", 2, 2, (2, 3), (1, 2, 3))
    assert night.replica_timeline == [r for r in whole.replica_timeline if r.seq > 7]
    assert night.violations == [v for v in whole.violations if v.seq > 7]


@pytest.mark.parametrize("era", ["0.8.2", "1.1", "2.4", "3.x"])
def test_a_reassignments_completion_whose_lines_fall_after_midnight_is_checked_as_the_whole_replay(era):
    # The ISR takes in the whole target just before midnight: the completion is queued, and the
    # first night applies it at the end of its input (leader 2 at leader epoch 3, AR [2, 3, 4]),
    # no line showing it. After midnight come its lines: the reassignment's election at leader
    # epoch 2, whose ISR still holds replica 1, then the removal of 1. They are the lines of the
    # steps the carried state is from after: no ISR outside the AR, as in the whole replay, and the
    # leader's next ISR change goes on from the carried state.
    specs = [*BASE, e("ReassignmentStart", replicas=[2, 3, 4]),
             e("LeaderAndIsr", leader=1, leader_epoch=1, isr=[1, 2, 3], **C1),
             e("ReplicaStateChange", replica=4, from_state="NonExistentReplica", to_state="NewReplica", **C1),
             e("IsrChange", leader=1, leader_epoch=1, isr=[1, 2, 3, 4]),
             # night 2
             e("PartitionStateChange", from_state="OnlinePartition", to_state="OnlinePartition", leader=2, leader_epoch=2,
               isr=[1, 2, 3, 4], **C1),
             e("LeaderAndIsr", leader=2, leader_epoch=3, isr=[2, 3, 4], **C1),
             *[e("ReplicaStateChange", replica=1, from_state=before, to_state=after, **C1) for before, after in (
                 ("OnlineReplica", "OfflineReplica"), ("OfflineReplica", "ReplicaDeletionStarted"),
                 ("ReplicaDeletionStarted", "ReplicaDeletionSuccessful"), ("ReplicaDeletionSuccessful", "NonExistentReplica"))],
             e("IsrChange", leader=2, leader_epoch=3, isr=[2, 3])]
    whole, night = split_at(era, specs, cut=7)
    assert night.violations == [v for v in whole.violations if v.seq > 7] == []
    assert state(night.timeline[-1]) == state(whole.timeline[-1]) == ("OnlinePartition", 2, 3, (2, 3), (2, 3, 4))


@pytest.mark.parametrize("era", ["0.8.1", "0.8.2", "1.1", "2.4"])
def test_a_deletions_isr_removals_logged_after_midnight_are_no_elections(era):
    # The topic's deletion starts before midnight while broker 3 is down: it waits, and before 2.1
    # the partition stays online. The first night applies the removals of replicas 1 and 2 from the
    # ISR at the end of its input (leader -1 at leader epoch 2); after midnight come their lines,
    # leader 2 at leader epoch 1 first. It is the first removal's, not an election of broker 2 out
    # of the carried empty ISR. Broker 3 comes back and the deletion completes, as in the whole replay.
    specs = [e("ControllerFailover", brokers=[1, 2, 3], **C1), e("TopicCreation", replicas=[2, 1, 3]),
             e("PartitionStateChange", from_state="NewPartition", to_state="OnlinePartition", leader=2, leader_epoch=0,
               isr=[2, 1, 3], **C1),
             e("IsrChange", leader=2, leader_epoch=0, isr=[2, 1]), e("BrokerFailure", brokers=[3]),
             e("ReplicaStateChange", replica=3, from_state="OnlineReplica", to_state="OfflineReplica", **C1),
             e("TopicDeletion"),
             # night 2
             e("LeaderAndIsr", leader=2, leader_epoch=1, isr=[2], **C1),
             e("ReplicaStateChange", replica=1, from_state="OnlineReplica", to_state="OfflineReplica", **C1),
             e("LeaderAndIsr", leader=-1, leader_epoch=2, isr=[], **C1),
             e("ReplicaStateChange", replica=2, from_state="OnlineReplica", to_state="OfflineReplica", **C1),
             e("BrokerStartup", brokers=[3])]
    whole, night = split_at(era, specs, cut=7)
    assert night.violations == [v for v in whole.violations if v.seq > 7] == []
    assert state(night.timeline[-1]) == state(whole.timeline[-1]) == ("NonExistentPartition", -1, -1, (), ())
