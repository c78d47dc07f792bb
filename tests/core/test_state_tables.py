"""The version-keyed state tables against the spec, written out independently here.

Sources: seeds-spec.md section 1 (partition states), section 2 (replica states) and
section 9 rows 1-3 (what changed in 0.8.1.0 and 2.3.0). Every (previous, target) pair
of every named era is its own test case, valid ones and invalid ones alike."""
from __future__ import annotations

import pytest

from state_machine.eras import BEHAVIOUR_KEYS, BEHAVIOURS, ERAS, KRAFT_BEHAVIOUR, parse_version, resolve_era
from state_machine.states import PartitionState, ReplicaState

# ------------------------------------------------------------------ expected tables
# Spelled with plain strings on purpose: nothing here is derived from state_machine.eras.

# target <- {valid previous states}
PARTITION_0_8_0 = {
    "NewPartition": {"NonExistentPartition"},
    "OnlinePartition": {"NewPartition", "OnlinePartition", "OfflinePartition"},
    "OfflinePartition": {"NewPartition", "OnlinePartition"},
    "NonExistentPartition": {"OfflinePartition"},
}
# s9 #1: OfflinePartition -> OfflinePartition legal from 0.8.1.0 (unchanged to 3.9; KRaft compares).
PARTITION_0_8_1_PLUS = {
    "NewPartition": {"NonExistentPartition"},
    "OnlinePartition": {"NewPartition", "OnlinePartition", "OfflinePartition"},
    "OfflinePartition": {"NewPartition", "OnlinePartition", "OfflinePartition"},
    "NonExistentPartition": {"OfflinePartition"},
}

# 0.8.0: four replica states, Offline -> NonExistent directly (the wiki table).
REPLICA_0_8_0 = {
    "NewReplica": {"NonExistentReplica"},
    "OnlineReplica": {"NewReplica", "OnlineReplica", "OfflineReplica"},
    "OfflineReplica": {"NewReplica", "OnlineReplica"},
    "NonExistentReplica": {"OfflineReplica"},
}
# s9 #2: seven states from 0.8.1.0 through 2.2.x.
REPLICA_0_8_1_TO_2_2 = {
    "NewReplica": {"NonExistentReplica"},
    "OnlineReplica": {"NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"},
    "OfflineReplica": {"NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"},
    "ReplicaDeletionStarted": {"OfflineReplica"},
    "ReplicaDeletionSuccessful": {"ReplicaDeletionStarted"},
    "ReplicaDeletionIneligible": {"ReplicaDeletionStarted"},
    "NonExistentReplica": {"ReplicaDeletionSuccessful"},
}
# s9 #3 (KAFKA-8237): OfflineReplica -> ReplicaDeletionIneligible legal from 2.3.0.
REPLICA_2_3_PLUS = {
    "NewReplica": {"NonExistentReplica"},
    "OnlineReplica": {"NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"},
    "OfflineReplica": {"NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"},
    "ReplicaDeletionStarted": {"OfflineReplica"},
    "ReplicaDeletionSuccessful": {"ReplicaDeletionStarted"},
    "ReplicaDeletionIneligible": {"OfflineReplica", "ReplicaDeletionStarted"},
    "NonExistentReplica": {"ReplicaDeletionSuccessful"},
}

# Which release each named era stands for, as the spec's spans define them. Written out so a
# new era (or a moved boundary) has to be looked at here.
ERA_SPANS = {
    "0.8.0": "0.8.0", "0.8.1": "0.8.1", "0.8.2": "0.8.2", "0.10": "0.10", "0.11": "0.11",
    "1.1": "1.1", "2.1": "2.1", "2.3": "2.3", "2.4": "2.4", "2.7": "2.7", "3.x": "3.9", "kraft-3.0": None, "kraft": None,
}


def _version(era_name: str):
    span = ERA_SPANS[era_name]
    return None if span is None else tuple(int(x) for x in span.split("."))


def expected_partition_table(era_name: str) -> dict:
    v = _version(era_name)
    if v is not None and v < (0, 8, 1):
        return PARTITION_0_8_0
    return PARTITION_0_8_1_PLUS


def expected_replica_table(era_name: str) -> dict:
    v = _version(era_name)
    if v is None:                   # KRaft compares with the last ZK rules
        return REPLICA_2_3_PLUS
    if v < (0, 8, 1):
        return REPLICA_0_8_0
    if v < (2, 3):
        return REPLICA_0_8_1_TO_2_2
    return REPLICA_2_3_PLUS


def _pairs(table_for):
    cases = []
    for era_name in ERAS:
        table = table_for(era_name)
        states = list(table)
        for previous in states:
            for target in states:
                valid = previous in table[target]
                cases.append(pytest.param(era_name, previous, target, valid,
                                          id=f"{era_name}-{previous}->{target}"))
    return cases


def test_every_named_era_is_covered_by_the_expected_spans():
    assert set(ERAS) == set(ERA_SPANS)


# ------------------------------------------------------------------ partition pairs

@pytest.mark.parametrize("era_name, previous, target, valid", _pairs(expected_partition_table))
def test_partition_transition(era_name, previous, target, valid):
    era = ERAS[era_name]
    assert era.is_valid_partition_transition(PartitionState(previous), PartitionState(target)) is valid


@pytest.mark.parametrize("era_name", list(ERAS))
def test_partition_states_of_era(era_name):
    assert {s.value for s in ERAS[era_name].partition_valid_previous} == set(expected_partition_table(era_name))


# ------------------------------------------------------------------ replica pairs

@pytest.mark.parametrize("era_name, previous, target, valid", _pairs(expected_replica_table))
def test_replica_transition(era_name, previous, target, valid):
    era = ERAS[era_name]
    assert era.is_valid_replica_transition(ReplicaState(previous), ReplicaState(target)) is valid


@pytest.mark.parametrize("era_name", list(ERAS))
def test_replica_states_of_era(era_name):
    era = ERAS[era_name]
    expected = set(expected_replica_table(era_name))
    assert {s.value for s in era.replica_valid_previous} == expected
    assert {s.value for s in era.replica_states} == expected
    assert len(expected) == (4 if era_name == "0.8.0" else 7)


@pytest.mark.parametrize("state", ["ReplicaDeletionStarted", "ReplicaDeletionSuccessful", "ReplicaDeletionIneligible"])
def test_0_8_0_has_no_deletion_states(state):
    era = ERAS["0.8.0"]
    s = ReplicaState(state)
    for other in ReplicaState:
        assert not era.is_valid_replica_transition(other, s)
        assert not era.is_valid_replica_transition(s, other)


# ------------------------------------------------------------------ resolve_era

def _behaviour(era) -> dict:
    return dict(era.behaviour)


def test_named_era_resolves_to_itself():
    for name, era in ERAS.items():
        assert resolve_era(name) is era
    assert resolve_era(" KRAFT ") is ERAS["kraft"]


def test_release_0_8_2_1_behaves_like_era_0_8_2():
    era = resolve_era("0.8.2.1")
    assert era.mode == "zk"
    assert era.version == (0, 8, 2, 1)
    assert _behaviour(era) == _behaviour(ERAS["0.8.2"])
    assert era.offline_leader_order == "assignment"
    assert era.unclean_gate == "topic_config"


def test_offline_to_deletion_ineligible_changes_at_2_3_0():
    offline, ineligible = ReplicaState.OfflineReplica, ReplicaState.ReplicaDeletionIneligible
    assert resolve_era("2.2.2").is_valid_replica_transition(offline, ineligible) is False
    assert resolve_era("2.3.0").is_valid_replica_transition(offline, ineligible) is True


def test_controlled_shutdown_leader_changes_at_0_10_0():
    assert resolve_era("0.9.0.1").controlled_shutdown_leader == "isr_head"
    assert resolve_era("0.10.0.1").controlled_shutdown_leader == "assignment"


def test_unclean_default_changes_at_0_11_0():
    assert resolve_era("0.10.2.2").unclean_default is True
    assert resolve_era("0.11.0.0").unclean_default is False


@pytest.mark.parametrize("release", ["4.0", "4.0.0", "4.1.1"])
def test_4_x_resolves_to_kraft(release):
    era = resolve_era(release)
    assert era is ERAS["kraft"]
    assert era.mode == "kraft"


def test_kraft_reads_the_unclean_config_from_3_9_0():
    """KRaft 2.8-3.8 ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic: `return
    false; // TODO` (sources jars 3.0.2, 3.3.2, 3.6.2, 3.8.1); 3.9.0 reads the topic config."""
    assert ERAS["kraft-3.0"].unclean_gate == "admin_only"
    assert resolve_era("kraft-3.8.1").unclean_gate == "admin_only"
    assert resolve_era("kraft-3.9.0").unclean_gate == "topic_config"
    assert ERAS["kraft"].unclean_gate == "topic_config"
    assert resolve_era("kraft-3.5.1").mode == resolve_era("KRaft-4.1").mode == "kraft"
    assert resolve_era("kraft-3.5.1").version == (3, 5, 1)
    assert resolve_era("3.5.1").mode == "zk"    # a bare 3.x release is a ZooKeeper-mode cluster
    # ... and KIP-966's last known leader (3.7+), which needs ELR (off by default before 4.0).
    differ = {"unclean_gate", "last_known_leader"}
    others = {k: v for k, v in ERAS["kraft-3.0"].behaviour.items() if k not in differ}
    assert others == {k: v for k, v in ERAS["kraft"].behaviour.items() if k not in differ}


@pytest.mark.parametrize("release", ["kraft-2.7.0", "kraft-0.10"])
def test_kraft_before_2_8_raises(release):
    with pytest.raises(ValueError):
        resolve_era(release)


@pytest.mark.parametrize("release", ["0.7", "0.7.2", "not-a-version", ""])
def test_unsupported_release_raises(release):
    with pytest.raises(ValueError):
        resolve_era(release)


def test_parse_version():
    assert parse_version("0.10.2.2") == (0, 10, 2, 2)
    assert parse_version("3.9") == (3, 9, 0)
    assert parse_version(" 2.4.1 ") == (2, 4, 1)
    assert parse_version("0.8.2-beta") == (0, 8, 2)


def test_parse_version_ignores_a_pre_release_suffix():
    assert parse_version("2.8.0-rc1") == (2, 8, 0)


# ------------------------------------------------------------------ BEHAVIOURS rows

def _rows_by_key():
    rows: dict[str, list] = {}
    for row in BEHAVIOURS:
        rows.setdefault(row.key, []).append(row)
    return rows


@pytest.mark.parametrize("key", list(BEHAVIOUR_KEYS))
def test_behaviour_key_starts_at_0_8_0(key):
    assert _rows_by_key()[key][0].since == (0, 8, 0)


@pytest.mark.parametrize("key", list(BEHAVIOUR_KEYS))
def test_behaviour_rows_ascend(key):
    sinces = [row.since for row in _rows_by_key()[key]]
    assert all(a < b for a, b in zip(sinces, sinces[1:])), sinces


def test_kraft_and_every_named_era_define_every_behaviour():
    assert set(KRAFT_BEHAVIOUR) == set(BEHAVIOUR_KEYS)
    for era in ERAS.values():
        assert set(era.behaviour) == set(BEHAVIOUR_KEYS)


def test_a_two_part_release_is_its_x_0_release():
    """`--kafka-version 3.2` and a Confluent banner's Kafka line ("7.2.x-ccs" ships 3.2) are 3.2.0:
    the rows that start at 3.2.0 apply (as tuples (3, 2) sorted before (3, 2, 0))."""
    assert parse_version("3.2") == parse_version("3.2.0") == (3, 2, 0)
    assert resolve_era("3.2").leader_recovery is True
    assert resolve_era("2.0").unclean_enable_reelects == "cluster"
    assert resolve_era("kraft-3.9").unclean_gate == "topic_config"
