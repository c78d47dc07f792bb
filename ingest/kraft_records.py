"""KRaft metadata records (`__cluster_metadata`, spec kafka-log-formats §4.1-4.2): what the replay
gets from each record the dump decodes (`ingest.kraft_dump`). A decoded record is `{"type":
<MetadataRecordType>, "version": n, "data": <the record's generated JSON>}`; `RECORDS` maps each
record type to what the replay gets from its `data`. Tagged fields are written only when they
differ from their default (generated *JsonConverter.write), so an absent `leader` in a
PARTITION_CHANGE_RECORD is -2 (no change).

Sources read (apache/kafka): metadata/src/main/resources/common/metadata/*.json and the
generated PartitionChangeRecordJsonConverter; ReplicationControlManager, PartitionRegistration,
PartitionChangeBuilder, ClusterControlManager, QuorumController/OffsetControlManager (2.8-era to
trunk copies)."""
from __future__ import annotations

from ingest.catalog import event
from ingest.transactions import TRANSACTION_ABORT, TRANSACTION_BEGIN, TRANSACTION_END
from state_machine.partition import UNCLEAN_CONFIG
from state_machine.states import NO_LEADER_CHANGE


# LeaderRecoveryState.java: the byte values of PartitionRecord / PartitionChangeRecord.
LEADER_RECOVERY_STATES = {0: "RECOVERED", 1: "RECOVERING"}
NO_RECOVERY_CHANGE = -1          # PartitionChangeRecord.leaderRecoveryState default
# ConfigResource.Type ids in ConfigRecord.resourceType.
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
# BrokerRegistrationChangeRecord: fenced -1 = unfenced, 1 = fenced; inControlledShutdown 1.
UNFENCE, FENCE, IN_CONTROLLED_SHUTDOWN = -1, 1, 1


def _brokers(event_type: str, broker: int) -> dict:
    return {"event_type": event_type, "brokers": [broker]}


def _topic_record(d: dict) -> list:
    # TopicRecord.json: the only record that names a topic; partitions carry the id.
    return [{"fact": "topic_name", "topic_id": d["topicId"], "topic": d["name"]}]


def _partition_record(d: dict) -> list:
    # PartitionRecord.json; leaderRecoveryState (3.2+) is tagged, default 0 = RECOVERED.
    return [event("PartitionRecord", topic_id=d["topicId"], partition=d["partitionId"],
                  replicas=d["replicas"], isr=d["isr"], leader=d["leader"], leader_epoch=d["leaderEpoch"],
                  zk_version=d["partitionEpoch"],
                  leader_recovery_state=LEADER_RECOVERY_STATES.get(d.get("leaderRecoveryState", 0)),
                  elr=d.get("eligibleLeaderReplicas"), last_known_elr=d.get("lastKnownElr"),
                  adding_replicas=d.get("addingReplicas"), removing_replicas=d.get("removingReplicas"))]


def _partition_change_record(d: dict) -> list:
    # PartitionChangeRecord.json: every field but the ids is tagged, absent = unchanged.
    # leader -1 stays (no leader now); leader and epochs are carried by the replay.
    leader = d.get("leader", NO_LEADER_CHANGE)
    recovery = d.get("leaderRecoveryState", NO_RECOVERY_CHANGE)
    return [event("PartitionChangeRecord", topic_id=d["topicId"], partition=d["partitionId"],
                  isr=d.get("isr"), leader=None if leader == NO_LEADER_CHANGE else leader,
                  replicas=d.get("replicas"),
                  leader_recovery_state=LEADER_RECOVERY_STATES.get(recovery),
                  elr=d.get("eligibleLeaderReplicas"), last_known_elr=d.get("lastKnownElr"),
                  adding_replicas=d.get("addingReplicas"), removing_replicas=d.get("removingReplicas"))]


def _remove_topic_record(d: dict) -> list:
    return [{"event_type": "RemoveTopicRecord", "topic_id": d["topicId"]}]


def _register_broker_record(d: dict) -> list:
    # `fenced` (default true; absent in 2.8) : a new incarnation is not live until unfenced. A
    # snapshot writes every registration as it stands (BrokerRegistration.toRecord), 3.3+ with
    # `inControlledShutdown`: a live broker already shutting down.
    broker = d["brokerId"]
    if d.get("fenced", True):
        return [_brokers("BrokerFailure", broker)]
    if d.get("inControlledShutdown", False):
        return [_brokers("BrokerStartup", broker), _brokers("ControlledShutdown", broker)]
    return [_brokers("BrokerStartup", broker)]


def _broker_registration_change_record(d: dict) -> list:
    # 3.3+. Controlled shutdown comes before a fence in the same record, so that the
    # replay ends with the broker not live; after an unfence, so that it ends live
    # and shutting down (ControllerOperations.update_liveness).
    broker, fenced = d["brokerId"], d.get("fenced", 0)
    events = []
    if fenced == UNFENCE:
        events.append(_brokers("BrokerStartup", broker))
    if d.get("inControlledShutdown", 0) == IN_CONTROLLED_SHUTDOWN:
        events.append(_brokers("ControlledShutdown", broker))
    if fenced == FENCE:
        events.append(_brokers("BrokerFailure", broker))
    return events


def _config_record(d: dict) -> list:
    # Only the unclean-election switch matters to the replay; resourceName of a broker
    # resource is "" (cluster default) or a broker id, both broker-wide here.
    if d["name"] != UNCLEAN_CONFIG or d["resourceType"] not in (TOPIC_RESOURCE, BROKER_RESOURCE):
        return []
    return [event("ConfigChange", topic=d["resourceName"] if d["resourceType"] == TOPIC_RESOURCE else None,
                  config_name=d["name"], config_value=d.get("value"))]


def _transaction(marker: str):
    # A KIP-868 transaction marker is a fact: which records an abort undoes is known only once
    # the whole log is read (ingest.transactions).
    return lambda d: [{"fact": "metadata_transaction", "marker": marker}]


def _feature_level_record(d: dict) -> list:
    if d.get("name") != "metadata.version" or "featureLevel" not in d:
        return []
    return [{"fact": "metadata_version", "level": d["featureLevel"]}]


# MetadataRecordType name -> what the replay gets from the record's `data`. Every other
# type (NO_OP_RECORD, REGISTER_CONTROLLER_RECORD, ZK_MIGRATION_STATE_RECORD, ACLs, quotas,
# producer ids, ...) is understood and carries no event.
RECORDS = {
    "TOPIC_RECORD": _topic_record,
    "PARTITION_RECORD": _partition_record,
    "PARTITION_CHANGE_RECORD": _partition_change_record,
    "REMOVE_TOPIC_RECORD": _remove_topic_record,
    "REGISTER_BROKER_RECORD": _register_broker_record,
    "UNREGISTER_BROKER_RECORD": lambda d: [_brokers("BrokerFailure", d["brokerId"])],
    "FENCE_BROKER_RECORD": lambda d: [_brokers("BrokerFailure", d["id"])],      # 2.8-3.x
    "UNFENCE_BROKER_RECORD": lambda d: [_brokers("BrokerStartup", d["id"])],    # 2.8-3.x
    "BROKER_REGISTRATION_CHANGE_RECORD": _broker_registration_change_record,
    "CONFIG_RECORD": _config_record,
    "FEATURE_LEVEL_RECORD": _feature_level_record,
    # 4.0+: topicName "" = every topic (ConfigurationControlManager.createClearElrRecordsAsNeeded).
    "CLEAR_ELR_RECORD": lambda d: [event("ClearElrRecord", topic=d["topicName"] or None)],
    "BEGIN_TRANSACTION_RECORD": _transaction(TRANSACTION_BEGIN),
    "END_TRANSACTION_RECORD": _transaction(TRANSACTION_END),
    "ABORT_TRANSACTION_RECORD": _transaction(TRANSACTION_ABORT),
}


# ---------------------------------------------------------------- a record's toString
# The generated message classes' toString (generator MessageDataGenerator.generateFieldToString):
# `PartitionRecord(partitionId=0, topicId=<uuid>, replicas=[1, 2], ...)`: ints bare, strings quoted
# (null bare), arrays `[1, 2]` (MessageUtil.deepToString), a nullable array `null`. Logs print
# records so (KRaftMigrationDriver at TRACE, ingest.kraft_migration); what the replay gets from
# one is what it gets from the same record in the dump, read from these fields.

def ids_of(text: str | None) -> list[int] | None:
    """`[1, 2, 3]` (or its inside) as ints; None for `null`."""
    if text is None or text == "null":
        return None
    text = text.strip("[]")
    return [int(v) for v in text.split(",") if v.strip()]


def partition_record_fields(m) -> dict:
    """A PartitionRecord's toString, matched by a regex with groups p, tid, replicas, isr, leader,
    recovery, epoch, pepoch (and elr, lkelr where the form has them), as the `data` the dump's
    JSON would give."""
    groups = m.groupdict()
    data = {"partitionId": int(groups["p"]), "topicId": groups["tid"], "replicas": ids_of(groups["replicas"]),
            "isr": ids_of(groups["isr"]), "leader": int(groups["leader"]), "leaderEpoch": int(groups["epoch"]),
            "partitionEpoch": int(groups["pepoch"]), "leaderRecoveryState": int(groups["recovery"])}
    for key, group in (("eligibleLeaderReplicas", "elr"), ("lastKnownElr", "lkelr")):
        if ids_of(groups.get(group)) is not None:
            data[key] = ids_of(groups[group])
    return data
