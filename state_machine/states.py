"""Partition and replica states, with the byte codes Kafka gives them
(PartitionStateMachine.scala / ReplicaStateMachine.scala). Which transitions are
legal is not here: it depends on the Kafka version, see state_machine.eras."""
from __future__ import annotations

from enum import Enum


class PartitionState(str, Enum):
    NewPartition = "NewPartition"
    OnlinePartition = "OnlinePartition"
    OfflinePartition = "OfflinePartition"
    NonExistentPartition = "NonExistentPartition"

    @property
    def code(self) -> int:
        return PARTITION_STATE_CODES[self]


class ReplicaState(str, Enum):
    NewReplica = "NewReplica"
    OnlineReplica = "OnlineReplica"
    OfflineReplica = "OfflineReplica"
    ReplicaDeletionStarted = "ReplicaDeletionStarted"
    ReplicaDeletionSuccessful = "ReplicaDeletionSuccessful"
    ReplicaDeletionIneligible = "ReplicaDeletionIneligible"
    NonExistentReplica = "NonExistentReplica"

    @property
    def code(self) -> int:
        return REPLICA_STATE_CODES[self]


PARTITION_STATE_CODES = {
    PartitionState.NewPartition: 0,
    PartitionState.OnlinePartition: 1,
    PartitionState.OfflinePartition: 2,
    PartitionState.NonExistentPartition: 3,
}
REPLICA_STATE_CODES = {
    ReplicaState.NewReplica: 1,
    ReplicaState.OnlineReplica: 2,
    ReplicaState.OfflineReplica: 3,
    ReplicaState.ReplicaDeletionStarted: 4,
    ReplicaState.ReplicaDeletionSuccessful: 5,
    ReplicaState.ReplicaDeletionIneligible: 6,
    ReplicaState.NonExistentReplica: 7,
}

# A partition not yet elected, or deleted, is not there to serve: not offline, not available.
ABSENT_PARTITION_STATES = (PartitionState.NewPartition.value, PartitionState.NonExistentPartition.value)


def is_offline(partition_state: str, leader: int) -> bool:
    """Offline: in OfflinePartition (its leader's broker is gone), or with no leader, while it
    exists. jobs.availability sums the same predicate in Spark."""
    return partition_state not in ABSENT_PARTITION_STATES and (
        partition_state == PartitionState.OfflinePartition.value or leader < 0)


# 0.8.0 logs short partition-state names (PartitionStateMachine.scala @0.8.0).
PARTITION_STATE_ALIASES = {
    "New": PartitionState.NewPartition,
    "Online": PartitionState.OnlinePartition,
    "Offline": PartitionState.OfflinePartition,
    "NotExists": PartitionState.NonExistentPartition,
    "NonExistent": PartitionState.NonExistentPartition,
}


# Name -> state, prebuilt: the replay parses a state name per recorded decision, and a dict
# lookup is much cheaper than calling the Enum (PartitionState(name)).
PARTITION_STATES_BY_NAME = {**{s.value: s for s in PartitionState}, **PARTITION_STATE_ALIASES}
REPLICA_STATES_BY_NAME = {s.value: s for s in ReplicaState}


def partition_state(name: str) -> PartitionState:
    try:
        return PARTITION_STATES_BY_NAME[name]
    except (KeyError, TypeError):
        pass  # not a known name: the Enum decides (and raises)
    try:
        return PartitionState(name)
    except ValueError:
        if name in PARTITION_STATE_ALIASES:
            return PARTITION_STATE_ALIASES[name]
        raise ValueError(f"unknown partition state {name!r}") from None


def replica_state(name: str) -> ReplicaState:
    try:
        return REPLICA_STATES_BY_NAME[name]
    except (KeyError, TypeError):
        pass
    try:
        return ReplicaState(name)
    except ValueError:
        raise ValueError(f"unknown replica state {name!r}") from None


NO_LEADER = -1            # LeaderAndIsr.NoLeader
LEADER_DURING_DELETE = -2  # LeaderAndIsr.LeaderDuringDelete (UpdateMetadata, 0.9+)
NO_LEADER_CHANGE = -2      # KRaft PartitionChangeRecord default
