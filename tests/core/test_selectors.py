"""Every branch of every leader selector, with small literal inputs (seeds-spec.md s3, s9 #4-8
and the KRaft notes of s9)."""
from __future__ import annotations

import pytest

from state_machine.eras import ERAS, resolve_era
from state_machine.selectors import (
    Election,
    ElectionFailure,
    ElectionKind as K,
    FailureReason as F,
    SelectorInput,
    controlled_shutdown_election,
    initial_election,
    is_valid_new_leader,
    kraft_election,
    kraft_preferred_election,
    noop_election,
    offline_election,
    preferred_election,
    reassign_election,
    select,
)
from state_machine.states import NO_LEADER


def failed(outcome, kind, reason):
    """A failure is compared on kind and reason; its detail is free text."""
    assert isinstance(outcome, ElectionFailure), outcome
    assert (outcome.kind, outcome.reason) == (kind, reason)
    assert outcome.detail


# ------------------------------------------------------------------ initial (s3.1)

def test_initial_all_live():
    assert initial_election([1, 2, 3], {1, 2, 3}) == Election(K.initial, 1, (1, 2, 3), (1, 2, 3))


def test_initial_first_live_in_ar_order_and_isr_in_ar_order():
    assert initial_election([3, 1, 2], {2, 1}) == Election(K.initial, 1, (1, 2), (1, 2))


def test_initial_none_live():
    failed(initial_election([1, 2], set()), K.initial, F.NO_REPLICA_ONLINE)


def test_initial_empty_assignment():
    failed(initial_election([], {1, 2}), K.initial, F.NO_REPLICA_ONLINE)


# ------------------------------------------------------------------ offline (s3.2, s9 #4-5)

@pytest.mark.parametrize("order, leader", [("isr", 3), ("assignment", 1)])
def test_offline_spec_example_isr_vs_assignment_order(order, leader):
    # s3.2: AR [1,2,3], ISR [3,1], all live: 0.8.0-0.8.1 pick 3, 0.8.2+ pick 1.
    out = offline_election([1, 2, 3], [3, 1], {1, 2, 3}, unclean_allowed=False, order=order)
    assert out == Election(K.offline, leader, (3, 1), (1, 2, 3))


@pytest.mark.parametrize("order, leader", [("isr", 2), ("assignment", 1)])
def test_offline_new_isr_is_live_isr_in_isr_order_receivers_live_ar(order, leader):
    out = offline_election([1, 2, 3, 4], [3, 2, 4, 1], {1, 2, 4}, unclean_allowed=False, order=order)
    assert out == Election(K.offline, leader, (2, 4, 1), (1, 2, 4))


@pytest.mark.parametrize("order", ["isr", "assignment"])
def test_offline_unclean_allowed(order):
    out = offline_election([1, 2, 3], [1], {3, 2}, unclean_allowed=True, order=order)
    assert out == Election(K.unclean, 2, (2,), (2, 3), unclean=True)
    assert out.unclean is True


@pytest.mark.parametrize("order", ["isr", "assignment"])
def test_offline_unclean_disallowed(order):
    failed(offline_election([1, 2, 3], [1], {2, 3}, unclean_allowed=False, order=order),
           K.offline, F.NO_ISR_REPLICA_ONLINE)


@pytest.mark.parametrize("order", ["isr", "assignment"])
@pytest.mark.parametrize("unclean_allowed", [True, False])
def test_offline_nothing_live(order, unclean_allowed):
    failed(offline_election([1, 2, 3], [1, 2], {7}, unclean_allowed=unclean_allowed, order=order),
           K.offline, F.NO_REPLICA_ONLINE)


@pytest.mark.parametrize("order", ["isr", "assignment"])
def test_offline_empty_assignment(order):
    failed(offline_election([], [1], {1}, unclean_allowed=True, order=order), K.offline, F.NO_REPLICAS_ASSIGNED)


def test_offline_assignment_order_live_isr_outside_ar_falls_to_unclean():
    # 0.8.2+: leader = first live AR member in the live ISR; none -> the unclean path.
    assert offline_election([1, 2], [3], {1, 2, 3}, unclean_allowed=True, order="assignment") == \
        Election(K.unclean, 1, (1,), (1, 2), unclean=True)
    failed(offline_election([1, 2], [3], {1, 2, 3}, unclean_allowed=False, order="assignment"),
           K.offline, F.NO_ISR_REPLICA_ONLINE)


# ------------------------------------------------------------------ reassign (s3.3, s9 #7)

def test_reassign_first_target_live_and_in_isr():
    out = reassign_election([4, 5, 6], [1, 2, 3, 4, 5, 6], {1, 2, 3, 4, 5, 6}, requires_isr=True)
    assert out == Election(K.reassign, 4, (1, 2, 3, 4, 5, 6), (4, 5, 6))


@pytest.mark.parametrize("requires_isr, leader", [(True, 5), (False, 4)])
def test_reassign_requires_isr(requires_isr, leader):
    # 4 is live but not in the ISR: 0.8.0 takes it, 0.8.1+ skips it.
    out = reassign_election([4, 5, 6], [1, 5, 6], {1, 4, 5, 6}, requires_isr=requires_isr)
    assert out == Election(K.reassign, leader, (1, 5, 6), (4, 5, 6))


@pytest.mark.parametrize("requires_isr", [True, False])
def test_reassign_skips_dead_target_receivers_unfiltered(requires_isr):
    out = reassign_election([4, 5, 6], [4, 5, 6], {5, 6}, requires_isr=requires_isr)
    assert out == Election(K.reassign, 5, (4, 5, 6), (4, 5, 6))


def test_reassign_none_in_isr():
    failed(reassign_election([4, 5], [1, 2], {1, 2, 4, 5}, requires_isr=True), K.reassign, F.NO_TARGET_REPLICA_ELIGIBLE)


@pytest.mark.parametrize("requires_isr", [True, False])
def test_reassign_none_live(requires_isr):
    failed(reassign_election([4, 5], [4, 5], {1}, requires_isr=requires_isr), K.reassign, F.NO_TARGET_REPLICA_ELIGIBLE)


def test_reassign_empty_target():
    failed(reassign_election([], [1], {1}, requires_isr=False), K.reassign, F.NO_TARGET_REPLICA_ELIGIBLE)


# ------------------------------------------------------------------ preferred (s3.4, s9 #8)

@pytest.mark.parametrize("already_leader", ["not_needed", "reelect"])
def test_preferred_elects_ar_head_isr_unchanged_receivers_ar(already_leader):
    out = preferred_election([1, 2, 3], [2, 1, 3], {1, 2}, 2, already_leader=already_leader)
    assert out == Election(K.preferred, 1, (2, 1, 3), (1, 2, 3))  # receivers = full AR, 3 is dead


def test_preferred_head_already_leader_not_needed():
    failed(preferred_election([1, 2, 3], [1, 2, 3], {1, 2, 3}, 1, already_leader="not_needed"),
           K.preferred, F.ELECTION_NOT_NEEDED)


def test_preferred_head_already_leader_reelect():
    out = preferred_election([1, 2, 3], [1, 2, 3], {1, 2, 3}, 1, already_leader="reelect")
    assert out == Election(K.preferred, 1, (1, 2, 3), (1, 2, 3))


@pytest.mark.parametrize("already_leader", ["not_needed", "reelect"])
def test_preferred_head_not_live(already_leader):
    failed(preferred_election([1, 2, 3], [1, 2, 3], {2, 3}, 2, already_leader=already_leader),
           K.preferred, F.PREFERRED_REPLICA_NOT_ELIGIBLE)


@pytest.mark.parametrize("already_leader", ["not_needed", "reelect"])
def test_preferred_head_not_in_isr(already_leader):
    failed(preferred_election([1, 2, 3], [2, 3], {1, 2, 3}, 2, already_leader=already_leader),
           K.preferred, F.PREFERRED_REPLICA_NOT_ELIGIBLE)


def test_preferred_empty_assignment():
    failed(preferred_election([], [1], {1}, 1, already_leader="not_needed"), K.preferred, F.NO_REPLICAS_ASSIGNED)


# ------------------------------------------------------------------ controlled shutdown (s3.5, s9 #6)
# `live` is what the replay passes: live brokers not shutting down.

def test_controlled_shutdown_0_8_0_drops_old_leader_too():
    # Broker 2 shuts down while 1 leads: new ISR = [1,2,3] - {2} - old leader 1 = [3].
    out = controlled_shutdown_election([1, 2, 3], [1, 2, 3], {1, 3}, {2}, 1,
                                       variant="isr_head_without_old_leader", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 3, (3,), (1, 2, 3))


def test_controlled_shutdown_0_8_0_leader_shutting_down():
    out = controlled_shutdown_election([1, 2, 3], [1, 3, 2], {2, 3}, {1}, 1,
                                       variant="isr_head_without_old_leader", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 3, (3, 2), (1, 2, 3))


def test_controlled_shutdown_0_8_0_only_old_leader_left_fails():
    failed(controlled_shutdown_election([1, 2], [2, 1], {1}, {2}, 1,
                                        variant="isr_head_without_old_leader", receivers_include_shutting_down=True),
           K.controlled_shutdown, F.NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN)


def test_controlled_shutdown_isr_head_no_liveness_check():
    # 0.8.1-0.9: head of ISR minus shutting-down, even if that broker is dead (2 here).
    out = controlled_shutdown_election([1, 2, 3], [1, 2, 3], {3}, {1}, 1,
                                       variant="isr_head", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 2, (2, 3), (1, 3))


def test_controlled_shutdown_isr_head_uses_isr_order():
    out = controlled_shutdown_election([1, 2, 3], [1, 3, 2], {2, 3}, {1}, 1,
                                       variant="isr_head", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 3, (3, 2), (1, 2, 3))


def test_controlled_shutdown_assignment_first_ar_member_live_and_in_new_isr():
    # 0.10+: AR order, and the dead 2 is skipped although it heads the new ISR.
    out = controlled_shutdown_election([1, 2, 3], [1, 2, 3], {3}, {1}, 1,
                                       variant="assignment", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 3, (2, 3), (1, 3))
    out = controlled_shutdown_election([1, 2, 3], [1, 3, 2], {2, 3}, {1}, 1,
                                       variant="assignment", receivers_include_shutting_down=True)
    assert out == Election(K.controlled_shutdown, 2, (3, 2), (1, 2, 3))


def test_controlled_shutdown_assignment_fails_when_new_isr_has_no_live_member():
    failed(controlled_shutdown_election([1, 2], [1, 2], set(), {1}, 1,
                                        variant="assignment", receivers_include_shutting_down=True),
           K.controlled_shutdown, F.NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN)
    # The same input under 'isr_head' elects the dead 2 (no liveness check).
    assert controlled_shutdown_election([1, 2], [1, 2], set(), {1}, 1, variant="isr_head",
                                        receivers_include_shutting_down=True).leader == 2


@pytest.mark.parametrize("variant", ["isr_head_without_old_leader", "isr_head", "assignment"])
def test_controlled_shutdown_only_shutting_down_in_isr_fails(variant):
    failed(controlled_shutdown_election([1, 2, 3], [1], {2, 3}, {1}, 1,
                                        variant=variant, receivers_include_shutting_down=True),
           K.controlled_shutdown, F.NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN)


@pytest.mark.parametrize("include, receivers", [(True, (1, 2, 3)), (False, (2, 3))])
def test_controlled_shutdown_receivers(include, receivers):
    out = controlled_shutdown_election([1, 2, 3, 4], [1, 2, 3], {2, 3}, {1}, 1,
                                       variant="assignment", receivers_include_shutting_down=include)
    assert out == Election(K.controlled_shutdown, 2, (2, 3), receivers)  # dead 4 never receives


# ------------------------------------------------------------------ no-op (s3.6)

def test_noop_keeps_leader_and_isr_receivers_ar():
    assert noop_election([1, 2, 3], [2, 1], 2) == Election(K.noop, 2, (2, 1), (1, 2, 3))


# ------------------------------------------------------------------ KRaft electAnyLeader (s9 KRaft)

def test_kraft_keeps_valid_current_leader():
    assert kraft_election([1, 2, 3], [2, 1, 3], 2, {1, 2, 3}, unclean_allowed=False) == \
        Election(K.offline, 2, (2, 1, 3), (1, 2, 3))


def test_kraft_current_leader_not_acceptable_first_ar_member_in_isr():
    assert kraft_election([1, 2, 3], [3, 2, 1], 2, {1, 3}, unclean_allowed=False) == \
        Election(K.offline, 1, (3, 2, 1), (1, 2, 3))


def test_kraft_current_leader_not_in_target_isr():
    assert kraft_election([1, 2, 3], [3, 1], 2, {1, 2, 3}, unclean_allowed=False) == \
        Election(K.offline, 1, (3, 1), (1, 2, 3))


def test_kraft_no_leader_first_acceptable_ar_member_in_isr():
    assert kraft_election([1, 2, 3], [3, 2], NO_LEADER, {2, 3}, unclean_allowed=False) == \
        Election(K.offline, 2, (3, 2), (1, 2, 3))


def test_is_valid_new_leader_reads_the_elr_only_when_the_isr_is_empty():
    assert is_valid_new_leader(2, [2, 3], [1], {1, 2, 3})
    assert not is_valid_new_leader(1, [2, 3], [1], {1, 2, 3})   # an ELR member, while the ISR has members
    assert is_valid_new_leader(1, [], [1], {1, 2})
    assert not is_valid_new_leader(1, [], [1], {2})              # not acceptable
    assert is_valid_new_leader(1, [], [1])                       # acceptability not judged


def test_kraft_elects_from_elr_when_isr_empty():
    assert kraft_election([1, 2, 3], [], NO_LEADER, {2, 3}, unclean_allowed=False, elr=[3, 2]) == \
        Election(K.offline, 2, (2,), (1, 2, 3))


@pytest.mark.parametrize("unclean_allowed", [True, False])
def test_kraft_last_known_leader_is_unclean(unclean_allowed):
    # ISR and ELR empty, lastKnownElr of size 1 and acceptable: that replica, unclean, whatever the config.
    assert kraft_election([1, 2, 3], [], NO_LEADER, {1, 2}, unclean_allowed=unclean_allowed, last_known_elr=[2]) == \
        Election(K.unclean, 2, (2,), (1, 2, 3), unclean=True)


@pytest.mark.parametrize("release, variant", [("kraft-3.6.2", "none"), ("kraft-3.7.0", "even_if_dead"),
                                              ("kraft-4.0.2", "even_if_dead"), ("kraft-4.1.0", "if_alive"),
                                              ("kraft-4.3.1", "if_alive"), ("3.9.0", "none")])
def test_last_known_leader_variant_by_release(release, variant):
    assert resolve_era(release).last_known_leader == variant


def test_kraft_last_known_leader_variants_of_a_dead_last_known_leader():
    # 3.7.0-4.0.2: canElectLastKnownLeader only logs that the last known leader is not alive, and elects it.
    assert kraft_election([1, 2, 3], [], NO_LEADER, {1}, unclean_allowed=False, last_known_elr=[2],
                          last_known="even_if_dead") == Election(K.unclean, 2, (2,), (1, 2, 3), unclean=True)
    assert kraft_preferred_election([1, 2, 3], [], NO_LEADER, set(), last_known_elr=[2], last_known="even_if_dead") == \
        Election(K.preferred, 2, (2,), (1, 2, 3), unclean=True)
    # Before 3.7 there is no such election.
    failed(kraft_election([1, 2, 3], [], NO_LEADER, {1, 2}, unclean_allowed=False, last_known_elr=[2], last_known="none"),
           K.offline, F.NO_ISR_REPLICA_ONLINE)


def test_kraft_last_known_leader_must_be_acceptable():
    # canElectLastKnownLeader @4.1.0..@4.3.1: "last known leader is not alive" -> no such election;
    # then the config decides, as if there were no last known leader.
    assert kraft_election([1, 2, 3], [], NO_LEADER, {1}, unclean_allowed=True, last_known_elr=[2]) == \
        Election(K.unclean, 1, (1,), (1, 2, 3), unclean=True)
    failed(kraft_election([1, 2, 3], [], NO_LEADER, {1}, unclean_allowed=False, last_known_elr=[2]),
           K.offline, F.NO_ISR_REPLICA_ONLINE)
    failed(kraft_election([1, 2, 3], [], NO_LEADER, set(), unclean_allowed=False, last_known_elr=[2]),
           K.offline, F.NO_REPLICA_ONLINE)


def test_kraft_last_known_elr_of_two_is_not_used():
    assert kraft_election([1, 2, 3], [], NO_LEADER, {1, 3}, unclean_allowed=True, last_known_elr=[2, 3]) == \
        Election(K.unclean, 1, (1,), (1, 2, 3), unclean=True)
    failed(kraft_election([1, 2, 3], [], NO_LEADER, {1, 3}, unclean_allowed=False, last_known_elr=[2, 3]),
           K.offline, F.NO_ISR_REPLICA_ONLINE)


def test_kraft_unclean_allowed_first_acceptable_ar_member():
    assert kraft_election([1, 2, 3], [1], NO_LEADER, {3, 2}, unclean_allowed=True) == \
        Election(K.unclean, 2, (2,), (1, 2, 3), unclean=True)


def test_kraft_unclean_disallowed_fails():
    failed(kraft_election([1, 2, 3], [1], NO_LEADER, {2, 3}, unclean_allowed=False), K.offline, F.NO_ISR_REPLICA_ONLINE)


@pytest.mark.parametrize("unclean_allowed", [True, False])
def test_kraft_nothing_acceptable_fails(unclean_allowed):
    failed(kraft_election([1, 2, 3], [1], NO_LEADER, set(), unclean_allowed=unclean_allowed), K.offline, F.NO_REPLICA_ONLINE)


# ------------------------------------------------------------------ KRaft electPreferredLeader

def test_kraft_preferred_elects_from_elr_when_isr_empty():
    # isValidNewLeader: the ELR stands in for an empty ISR; the leader joins the ISR alone.
    assert kraft_preferred_election([1, 2, 3], [], NO_LEADER, {1, 2, 3}, elr=[2, 1]) == \
        Election(K.preferred, 1, (1,), (1, 2, 3))
    assert kraft_preferred_election([1, 2, 3], [], NO_LEADER, {2, 3}, elr=[3]) == Election(K.preferred, 3, (3,), (1, 2, 3))


def test_kraft_preferred_last_known_leader_when_nothing_valid():
    # electPreferredLeader @4.3.1 ends with canElectLastKnownLeader, as electAnyLeader does.
    assert kraft_preferred_election([1, 2, 3], [], NO_LEADER, {2}, last_known_elr=[2]) == \
        Election(K.preferred, 2, (2,), (1, 2, 3), unclean=True)
    failed(kraft_preferred_election([1, 2, 3], [], NO_LEADER, {1}, last_known_elr=[2]), K.preferred, F.NO_REPLICA_ONLINE)


def test_kraft_preferred_head_valid():
    assert kraft_preferred_election([1, 2, 3], [2, 1], 2, {1, 2, 3}) == Election(K.preferred, 1, (2, 1), (1, 2, 3))


def test_kraft_preferred_head_already_leads():
    failed(kraft_preferred_election([1, 2, 3], [1, 2], 1, {1, 2}), K.preferred, F.ELECTION_NOT_NEEDED)


def test_kraft_preferred_head_invalid_leader_kept():
    failed(kraft_preferred_election([1, 2, 3], [2, 3], 3, {1, 2, 3}), K.preferred, F.PREFERRED_REPLICA_NOT_ELIGIBLE)


def test_kraft_preferred_head_and_leader_invalid_first_other_valid():
    assert kraft_preferred_election([1, 2, 3], [3, 2], 3, {1, 2}) == Election(K.preferred, 2, (3, 2), (1, 2, 3))
    assert kraft_preferred_election([1, 2, 3], [3, 2], NO_LEADER, {2, 3}) == Election(K.preferred, 2, (3, 2), (1, 2, 3))


def test_kraft_preferred_never_unclean():
    failed(kraft_preferred_election([1, 2, 3], [3], NO_LEADER, {1, 2}), K.preferred, F.NO_REPLICA_ONLINE)


def test_kraft_preferred_empty_assignment():
    failed(kraft_preferred_election([], [1], NO_LEADER, {1}), K.preferred, F.NO_REPLICA_ONLINE)


# ------------------------------------------------------------------ select(): the era binds the variant

def inp(assignment, isr, leader, live, shutting_down=(), target=None, unclean_allowed=False):
    return SelectorInput(tuple(assignment), tuple(isr), leader, frozenset(live), frozenset(shutting_down),
                         None if target is None else tuple(target), unclean_allowed)


@pytest.mark.parametrize("era, leader", [("0.8.0", 3), ("0.8.1", 3), ("0.8.2", 1), ("0.10", 1), ("2.4", 1), ("3.x", 1)])
def test_select_offline_order_by_era(era, leader):
    out = select(K.offline, ERAS[era], inp([1, 2, 3], [3, 1], NO_LEADER, {1, 2, 3}))
    assert out == Election(K.offline, leader, (3, 1), (1, 2, 3))


def test_select_kraft_reads_the_elr_and_last_known_elr_of_its_input():
    era = resolve_era("kraft-3.9.0")
    s = inp([1, 2, 3], [], NO_LEADER, {2, 3})._replace(elr=(3, 2))
    assert select(K.offline, era, s) == Election(K.offline, 2, (2,), (1, 2, 3))
    s = inp([1, 2, 3], [], NO_LEADER, {1, 2})._replace(last_known_elr=(2,))
    assert select(K.offline, era, s) == Election(K.unclean, 2, (2,), (1, 2, 3), unclean=True)
    assert select(K.preferred, era, s) == Election(K.preferred, 2, (2,), (1, 2, 3), unclean=True)


def test_select_offline_resolved_releases():
    s = inp([1, 2, 3], [3, 1], NO_LEADER, {1, 2, 3})
    assert select(K.offline, resolve_era("0.8.1.1"), s).leader == 3
    assert select(K.offline, resolve_era("0.8.2.0"), s).leader == 1


def test_select_unclean_kind_runs_the_offline_selector():
    s = inp([1, 2, 3], [1], NO_LEADER, {2, 3}, unclean_allowed=True)
    assert select(K.unclean, ERAS["2.4"], s) == Election(K.unclean, 2, (2,), (2, 3), unclean=True)
    failed(select(K.unclean, ERAS["2.4"], s._replace(unclean_allowed=False)), K.offline, F.NO_ISR_REPLICA_ONLINE)


# Broker 1 (leader) shuts down, 2 is dead, 3 is live: ISR [1,2,3].
CS_INPUT = inp([1, 2, 3], [1, 2, 3], 1, {3}, shutting_down={1})


@pytest.mark.parametrize("era, expected", [
    ("0.8.0", Election(K.controlled_shutdown, 2, (2, 3), (1, 3))),   # isr_head_without_old_leader
    ("0.8.2", Election(K.controlled_shutdown, 2, (2, 3), (1, 3))),   # isr_head: the dead 2
    ("0.10", Election(K.controlled_shutdown, 3, (2, 3), (1, 3))),    # assignment: live 3
    ("1.1", Election(K.controlled_shutdown, 3, (2, 3), (3,))),       # receivers exclude the shutting-down 1
    ("2.1", Election(K.controlled_shutdown, 3, (2, 3), (1, 3))),     # included again (KAFKA-7482)
])
def test_select_controlled_shutdown_by_era(era, expected):
    assert select(K.controlled_shutdown, ERAS[era], CS_INPUT) == expected


def test_select_controlled_shutdown_release_strings():
    assert select(K.controlled_shutdown, resolve_era("0.9.0.1"), CS_INPUT).leader == 2
    assert select(K.controlled_shutdown, resolve_era("0.10.0.1"), CS_INPUT).leader == 3


@pytest.mark.parametrize("era, leader", [("0.8.0", 4), ("0.8.1", 5), ("2.4", 5)])
def test_select_reassign_by_era(era, leader):
    s = inp([1, 2, 3, 4, 5, 6], [1, 2, 3, 5, 6], 1, {1, 2, 3, 4, 5, 6}, target=[4, 5, 6])
    assert select(K.reassign, ERAS[era], s) == Election(K.reassign, leader, (1, 2, 3, 5, 6), (4, 5, 6))


@pytest.mark.parametrize("era, reelect", [("0.11", False), ("1.1", True), ("2.1", True), ("2.3", False), ("2.4", False)])
def test_select_preferred_already_leader_by_era(era, reelect):
    out = select(K.preferred, ERAS[era], inp([1, 2, 3], [1, 2, 3], 1, {1, 2, 3}))
    if reelect:
        assert out == Election(K.preferred, 1, (1, 2, 3), (1, 2, 3))
    else:
        failed(out, K.preferred, F.ELECTION_NOT_NEEDED)


def test_select_initial_and_noop():
    assert select(K.initial, ERAS["2.4"], inp([2, 1], [], NO_LEADER, {1, 2})) == Election(K.initial, 2, (2, 1), (2, 1))
    assert select(K.noop, ERAS["0.8.2"], inp([1, 2], [2, 1], 2, {1, 2})) == Election(K.noop, 2, (2, 1), (1, 2))


def test_select_kraft_offline_keeps_valid_leader():
    # ZK 2.4 moves leadership to the AR head on an offline election; KRaft keeps a valid leader.
    s = inp([1, 2, 3], [2, 1, 3], 2, {1, 2, 3})
    assert select(K.offline, ERAS["kraft"], s) == Election(K.offline, 2, (2, 1, 3), (1, 2, 3))
    assert select(K.offline, ERAS["2.4"], s).leader == 1


def test_select_kraft_unclean_and_failure():
    s = inp([1, 2, 3], [1], NO_LEADER, {2, 3}, unclean_allowed=True)
    assert select(K.offline, ERAS["kraft"], s) == Election(K.unclean, 2, (2,), (1, 2, 3), unclean=True)
    failed(select(K.offline, ERAS["kraft"], s._replace(unclean_allowed=False)), K.offline, F.NO_ISR_REPLICA_ONLINE)


def test_select_kraft_preferred():
    assert select(K.preferred, ERAS["kraft"], inp([1, 2, 3], [2, 1], 2, {1, 2})) == \
        Election(K.preferred, 1, (2, 1), (1, 2, 3))
    failed(select(K.preferred, ERAS["kraft"], inp([1, 2, 3], [1, 2], 1, {1, 2})), K.preferred, F.ELECTION_NOT_NEEDED)


def test_select_kraft_reassign_uses_target():
    # The completing change's target ISR no longer holds the removed replicas.
    s = inp([1, 2, 3, 4, 5, 6], [6, 5, 4], 1, {1, 2, 3, 4, 5, 6}, target=[4, 5, 6])
    assert select(K.reassign, ERAS["kraft"], s) == Election(K.offline, 4, (6, 5, 4), (4, 5, 6))
