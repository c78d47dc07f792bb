"""The core's view of a canonical event: a plain tuple with one slot per field of
schemas.events.EVENT_FIELDS (null fields are None), and the event-type names."""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Iterable, Mapping

from schemas.events import CLUSTER_WIDE_WITHOUT_TOPIC, EVENT_FIELD_NAMES, EVENT_TYPE_NAMES

Event = namedtuple("Event", EVENT_FIELD_NAMES, defaults=(None,) * len(EVENT_FIELD_NAMES))

# Event type names, as constants the replay dispatches on.
TOPIC_CREATION = "TopicCreation"
PARTITION_CREATION = "PartitionCreation"
BROKER_STARTUP = "BrokerStartup"
BROKER_FAILURE = "BrokerFailure"
CONTROLLED_SHUTDOWN = "ControlledShutdown"
CONTROLLER_FAILOVER = "ControllerFailover"
KRAFT_CONTROLLER_REGISTERED = "KRaftControllerRegistered"
REASSIGNMENT_START = "ReassignmentStart"
REASSIGNMENT_CAUGHT_UP = "ReassignmentCaughtUp"
REPLICA_LEADER_ELECTION = "ReplicaLeaderElection"
TOPIC_DELETION = "TopicDeletion"
ISR_CHANGE = "IsrChange"
ISR_CHANGE_PROPOSED = "IsrChangeProposed"
ISR_UPDATE_FAILED = "IsrUpdateFailed"
CONFIG_CHANGE = "ConfigChange"
CONFIG_OBSERVED = "ConfigObserved"
PARTITION_STATE_CHANGE = "PartitionStateChange"
REPLICA_STATE_CHANGE = "ReplicaStateChange"
LEADER_AND_ISR = "LeaderAndIsr"
LEADER_AND_ISR_RECEIVED = "LeaderAndIsrReceived"
STATE_CHANGE_FAILED = "StateChangeFailed"
UNCLEAN_ELECTION_LOGGED = "UncleanElectionLogged"
PARTITION_STATE_CARRIED = "PartitionStateCarried"
CONTROLLER_EPOCH_CARRIED = "ControllerEpochCarried"
LIVENESS_CARRIED = "LivenessCarried"
REPLICA_STATE_CARRIED = "ReplicaStateCarried"
PARTITION_RECORD = "PartitionRecord"
PARTITION_CHANGE_RECORD = "PartitionChangeRecord"
REMOVE_TOPIC_RECORD = "RemoveTopicRecord"
CLEAR_ELR_RECORD = "ClearElrRecord"
LOG_TRUNCATION = "LogTruncation"
LOG_END_OFFSET_OBSERVED = "LogEndOffsetObserved"

BROKER_LEVEL = frozenset({BROKER_STARTUP, BROKER_FAILURE, CONTROLLED_SHUTDOWN})
CLUSTER_LEVEL = frozenset({CONTROLLER_FAILOVER, KRAFT_CONTROLLER_REGISTERED, CONTROLLER_EPOCH_CARRIED, LIVENESS_CARRIED})
# The events that name a new controller and its epoch (audit_runs.controller_changes).
CONTROLLER_CHANGES = frozenset({CONTROLLER_FAILOVER, KRAFT_CONTROLLER_REGISTERED})
# CLUSTER_WIDE_WITHOUT_TOPIC (imported above): ConfigChange, ConfigObserved, ClearElrRecord; topic null = every partition

_names = {v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str)}
assert _names <= EVENT_TYPE_NAMES, _names - EVENT_TYPE_NAMES


def event_from_mapping(row: Mapping[str, Any]) -> Event:
    """An Event from a dict (JSON line, Arrow row); unknown keys are an error."""
    extra = set(row) - set(EVENT_FIELD_NAMES)
    if extra:
        raise ValueError(f"unknown event fields: {sorted(extra)}")
    return Event(**row)


def event_to_mapping(event: Event) -> dict[str, Any]:
    return {k: v for k, v in zip(EVENT_FIELD_NAMES, event) if v is not None}


def provenance(event: Event) -> str:
    """Where an operator finds the record: file:line, file@offset, or the sequence number."""
    if event.source_file is not None and event.source_line is not None:
        return f"{event.source_file}:{event.source_line}"
    if event.source_offset is not None:
        return f"{event.source_file or '__cluster_metadata'}@{event.source_offset}"
    if event.source_file is not None:
        return event.source_file   # a carried state: the earlier audit's provenance of its row, as it wrote it
    return f"seq:{event.seq}"


def sort_key(event: Event) -> int:
    return event.seq


def in_recorded_order(events: Iterable[Event]) -> list[Event]:
    return sorted(events, key=sort_key)
