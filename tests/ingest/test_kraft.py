"""KRaft metadata-log dumps (`kafka-dump-log.sh --cluster-metadata-decoder`) and KRaft
controller log lines (ingest.kraft_*). Every line is labelled with the Kafka release whose
source (DumpLogSegments, the metadata record schemas, ReplicationControlManager, ...) it
follows; lines marked "real" are copied from published output of that release."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ingest import kraft_broker, kraft_controller, kraft_dump, kraft_migration, transactions
from ingest.catalog import LineContext, index, match_message
from ingest.prefix import NO_PREFIX, strip_prefix
from state_machine.eras import parse_version

KRAFT_PATTERNS = kraft_dump.PATTERNS + kraft_controller.PATTERNS + kraft_migration.PATTERNS + kraft_broker.PATTERNS
TABLE = index(KRAFT_PATTERNS)
DUMP = LineContext(None, None, NO_PREFIX, "", "kraft-dump")
FIXTURES = Path(__file__).parent / "fixtures" / "kraft"
TID = "K16VvIw3TLmaYnQ6XjK4PQ"


def dump(line: str):
    return match_message(line, DUMP, TABLE)


def dump_events(line: str) -> list:
    matched = dump(line)
    assert matched is not None, line
    return matched[1]


# KRaftMigrationDriver's TRACE lines of the records it copies from ZooKeeper (the generated
# toString: MessageDataGenerator.generateFieldToString; RecordRedactor; 3.4-3.5 recordBatchToString).
_PR_V0 = (f"PartitionRecord(partitionId=1, topicId={TID}, replicas=[1, 2, 3], isr=[1, 2], removingReplicas=[], "
          "addingReplicas=[], leader=2, leaderRecoveryState=0, leaderEpoch=4, partitionEpoch=7")
_DIRS = ", directories=[AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA], eligibleLeaderReplicas=null"
MIGRATED_TOPIC = {"fact": "topic_name", "topic_id": TID, "topic": "orders"}
MIGRATED_PARTITION = {"event_type": "LeaderAndIsrReceived", "topic_id": TID, "partition": 1, "leader": 2, "leader_epoch": 4,
                      "isr": [1, 2], "replicas": [1, 2, 3], "zk_version": 7}
MIGRATED_RECORD_LINES = [
    ("3.6.2", f"[KRaftMigrationDriver id=3000] TopicRecord(name='orders', topicId={TID})", [MIGRATED_TOPIC]),
    ("3.6.2", f"[KRaftMigrationDriver id=3000] {_PR_V0})", [MIGRATED_PARTITION]),
    ("3.7.2", f"[KRaftMigrationDriver id=3000] {_PR_V0}{_DIRS}, lastKnownELR=null)", [MIGRATED_PARTITION]),
    ("3.9.2", f"[KRaftMigrationDriver id=3000] {_PR_V0}{_DIRS}, lastKnownElr=null)", [MIGRATED_PARTITION]),
    ("3.9.2", "[KRaftMigrationDriver id=3000] ConfigRecord(resourceType=2, resourceName='orders', "
     "name='unclean.leader.election.enable', value='true')",
     [{"event_type": "ConfigObserved", "topic": "orders", "config_name": "unclean.leader.election.enable",
       "config_value": "true"}]),
    ("3.9.2", "[KRaftMigrationDriver id=3000] ConfigRecord(resourceType=4, resourceName='', "
     "name='unclean.leader.election.enable', value='false')",
     [{"event_type": "ConfigObserved", "config_name": "unclean.leader.election.enable", "config_value": "false"}]),
    ("3.8.1", "[KRaftMigrationDriver id=3000] ConfigRecord(resourceType=4, resourceName='1', name='ssl.keystore.password', "
     "value='(redacted)')", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] ClientQuotaRecord(entity=[EntityData(entityType='user', entityName='alice')], "
     "key='producer_byte_rate', value=1024.0, remove=false)", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] UserScramCredentialRecord(name='alice', mechanism=1, salt=(redacted), "
     "storedKey=(redacted), serverKey=(redacted), iterations=4096)", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] ProducerIdsRecord(brokerId=-1, brokerEpoch=-1, nextProducerId=5000)", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] AccessControlEntryRecord(id=AAAAAAAAAAAAAAAAAAAAAA, resourceType=2, "
     "resourceName='orders', patternType=3, principal='User:alice', host='*', operation=3, permissionType=3)", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] DelegationTokenRecord(owner='User:alice', requester='User:alice', renewers=[], "
     "issueTimestamp=1, maxTimestamp=2, expirationTimestamp=3, tokenId='t1')", []),
    ("3.5.2", "[KRaftMigrationDriver id=3000] Migrating 3 records from ZK: [ApiMessageAndVersion(TopicRecord(name='orders', "
     f"topicId={TID}) at version 0),ApiMessageAndVersion(ConfigRecord(resourceType=2, resourceName=orders, "
     f"name=unclean.leader.election.enable) at version 0),ApiMessageAndVersion({_PR_V0}) at version 0)]",
     [MIGRATED_TOPIC, MIGRATED_PARTITION]),
]


# ZkMigrationLeadershipState.toString (3.4.1..3.9.2)
MIGRATION_STATE = ("ZkMigrationLeadershipState{kraftControllerId=3000, kraftControllerEpoch=7, kraftMetadataOffset=431, "
                   "kraftMetadataEpoch=7, lastUpdatedTimeMs=1718000000000, migrationZkVersion=3, controllerZkEpoch=6, "
                   "controllerZkVersion=6}")


def controller(message: str, level: str = "INFO"):
    prefix, body = strip_prefix(message)
    return match_message(body, LineContext(level, "org.apache.kafka.controller.QuorumController", prefix, "", "controller"), TABLE)


# ------------------------------------------------------------------ expected values

def raft(epoch, base, ts=None):
    fact = {"fact": "raft_epoch", "epoch": epoch, "leader": None, "base_offset": base}
    return fact if ts is None else {**fact, "event_time_ms": ts}


def topic_name(topic="orders", topic_id=TID):
    return {"fact": "topic_name", "topic_id": topic_id, "topic": topic}


def registration(topic="orders", partition=0, replicas=(1, 2, 3), isr=(1, 2, 3), leader=1, leader_epoch=0, new=True,
                 controller=100):
    """A partition record the controller replayed (an event only in a migration's dual write: test_migration)."""
    return {"fact": "partition_registration", "new": new, "topic": topic, "partition": partition, "replicas": list(replicas),
            "isr": list(isr), "leader": leader, "leader_epoch": leader_epoch, "controller_id": controller}


def broker(event_type, broker_id, offset=None, time=None):
    e = {"event_type": event_type, "brokers": [broker_id]}
    return e | where(offset, time)


def where(offset, time):
    return ({} if offset is None else {"source_offset": offset}) | ({} if time is None else {"event_time_ms": time})


def partition_record(p, replicas, offset=None, time=None, topic_id=TID, state="RECOVERED", epoch=0, empty_lists_printed=True):
    """empty_lists_printed: the record's empty addingReplicas / removingReplicas print as [] (3.0+);
    2.8 printed them as null, which the ingest reads as absent."""
    lists = {"adding_replicas": [], "removing_replicas": []} if empty_lists_printed else {}
    return {"event_type": "PartitionRecord", "topic_id": topic_id, "partition": p, "replicas": replicas,
            "isr": replicas, "leader": replicas[0], "leader_epoch": epoch, "zk_version": epoch,
            "leader_recovery_state": state, **lists} | where(offset, time)


def change(p, offset=None, time=None, topic_id=TID, **fields):
    return {"event_type": "PartitionChangeRecord", "topic_id": topic_id, "partition": p, **fields} | where(offset, time)


def unclean_config(topic, value, offset=None, time=None):
    # None (override removed, or a broker-wide default) is left out, as for every event field
    e = {"event_type": "ConfigChange", "config_name": "unclean.leader.election.enable"}
    return e | ({} if value is None else {"config_value": value}) | ({} if topic is None else {"topic": topic}) | where(offset, time)


# ------------------------------------------------------------------ single dump lines

README_28 = "2.8.0 (real: config/kraft/README.md, --skip-record-metadata)"
STRIMZI_37 = "3.7.0 (real: strimzi.io KRaft blog dump)"
PR_19729 = "4.0.x (real: PR #19729 'Before' output)"

DUMP_LINES = [
    # -- file headers
    ("2.8.0", "Dumping /tmp/kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log", []),
    ("2.8.0", "Starting offset: 0", []),
    ("3.3.0", "Log starting offset: 0", []),
    ("3.3.0", "Snapshot end offset: 4023, epoch: 7", []),
    ("3.3.0", "KRaft bootstrap snapshot", []),
    ("2.8.0", "Found 42 invalid bytes at the end of 00000000000000000000.log", []),
    # -- batch lines
    (README_28, "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
     "partitionLeaderEpoch: 1 isTransactional: false isControl: true position: 0 CreateTime: 1614382631640 size: 89 "
     "magic: 2 compresscodec: NONE crc: 1438115474 isvalid: true", [raft(1, 0, 1614382631640)]),
    (README_28, "baseOffset: 7 lastOffset: 8 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
     "partitionLeaderEpoch: 2 isTransactional: false isControl: false position: 701 CreateTime: 1614382712158 size: 159 "
     "magic: 2 compresscodec: NONE crc: 3726758683 isvalid: true", [raft(2, 7, 1614382712158)]),
    (PR_19729, "baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
     "partitionLeaderEpoch: 1 isTransactional: false isControl: true deleteHorizonMs: OptionalLong.empty position: 0 "
     "CreateTime: 1747299887693 size: 174 magic: 2 compresscodec: none crc: 3714449884 isvalid: true", [raft(1, 0, 1747299887693)]),
    # -- --skip-record-metadata (Scala: leading space; a control record prints an empty line)
    (README_28, "", []),
    (README_28, ' payload: {"type":"REGISTER_BROKER_RECORD","version":0,"data":{"brokerId":1,"incarnationId":'
     '"P3UFsWoNR-erL9PK98YLsA","brokerEpoch":0,"endPoints":[{"name":"PLAINTEXT","host":"localhost","port":9092,'
     '"securityProtocol":0}],"features":[],"rack":null}}', [broker("BrokerFailure", 1)]),
    (README_28, ' payload: {"type":"UNFENCE_BROKER_RECORD","version":0,"data":{"id":1,"epoch":0}}', [broker("BrokerStartup", 1)]),
    (README_28, ' payload: {"type":"FENCE_BROKER_RECORD","version":0,"data":{"id":1,"epoch":0}}', [broker("BrokerFailure", 1)]),
    (README_28, ' payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"5zoAlv-xEh9xRANKXt1Lbg"}}',
     [topic_name("foo", "5zoAlv-xEh9xRANKXt1Lbg")]),
    (README_28, ' payload: {"type":"PARTITION_RECORD","version":0,"data":{"partitionId":0,"topicId":"5zoAlv-xEh9xRANKXt1Lbg",'
     '"replicas":[1],"isr":[1],"removingReplicas":null,"addingReplicas":null,"leader":1,"leaderEpoch":0,"partitionEpoch":0}}',
     [partition_record(0, [1], topic_id="5zoAlv-xEh9xRANKXt1Lbg", empty_lists_printed=False)]),
    ("2.8.0 (real: translated README paste, leading space lost)",
     'payload: {"type":"UNFENCE_BROKER_RECORD","version":0,"data":{"id":1,"epoch":0}}', [broker("BrokerStartup", 1)]),
    ("tools DumpLogSegments.java (2026 trunk)", '| payload: {"type":"FENCE_BROKER_RECORD","version":0,"data":{"id":2,"epoch":9}}',
     [broker("BrokerFailure", 2)]),
    # -- 3.0+ record lines
    (STRIMZI_37, '| offset: 53 CreateTime: 1710772983743 keySize: -1 valueSize: 308 sequence: -1 headerKeys: [] payload: '
     '{"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":3,"isMigratingZkBroker":false,"incarnationId":'
     '"5TICkSDlQOGOHY-sn-TtDw","brokerEpoch":53,"endPoints":[{"name":"REPLICATION-9091","host":'
     '"my-cluster-broker-3.my-cluster-kafka-brokers.kafka.svc","port":9091,"securityProtocol":1},{"name":"PLAIN-9092",'
     '"host":"my-cluster-broker-3.my-cluster-kafka-brokers.kafka.svc","port":9092,"securityProtocol":0},{"name":"TLS-9093",'
     '"host":"my-cluster-broker-3.my-cluster-kafka-brokers.kafka.svc","port":9093,"securityProtocol":1}],"features":'
     '[{"name":"metadata.version","minSupportedVersion":1,"maxSupportedVersion":19}],"rack":null,"fenced":true,'
     '"inControlledShutdown":false,"logDirs":["uHY7hO6-42Q7O4k0zLMmtg"]}}',
     [broker("BrokerFailure", 3, 53, 1710772983743)]),
    (STRIMZI_37, '| offset: 3004 CreateTime: 1710774451597 keySize: -1 valueSize: 29 sequence: -1 headerKeys: [] payload: '
     '{"type":"TOPIC_RECORD","version":0,"data":{"name":"my-topic","topicId":"xOxBrcYuSRWgtFuZIBiXIA"}}',
     [topic_name("my-topic", "xOxBrcYuSRWgtFuZIBiXIA")]),
    (STRIMZI_37, '| offset: 3005 CreateTime: 1710774451597 keySize: -1 valueSize: 34 sequence: -1 headerKeys: [] payload: '
     '{"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"my-topic","name":"retention.ms","value":"100000"}}',
     []),
    (STRIMZI_37, '| offset: 3007 CreateTime: 1710774451597 keySize: -1 valueSize: 113 sequence: -1 headerKeys: [] payload: '
     '{"type":"PARTITION_RECORD","version":1,"data":{"partitionId":1,"topicId":"xOxBrcYuSRWgtFuZIBiXIA","replicas":[3,4,5],'
     '"isr":[3,4,5],"removingReplicas":[],"addingReplicas":[],"leader":3,"leaderEpoch":0,"partitionEpoch":0,"directories":'
     '["uHY7hO6-42Q7O4k0zLMmtg","p2UpbSD99eygD2ZToiSMzg","SaZDxfHKu3NMZ7OnFP7YnA"]}}',
     [partition_record(1, [3, 4, 5], 3007, 1710774451597, topic_id="xOxBrcYuSRWgtFuZIBiXIA")]),
    ("3.0.0 (--deep-iteration, no decoder)", "| offset: 12 CreateTime: 1635761007074 keySize: -1 valueSize: 73 sequence: -1 headerKeys: []", []),
    # -- control records
    (PR_19729, "| offset: 0 CreateTime: 1747299887693 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] controlType: LEADER_CHANGE(2)", []),
    (PR_19729, '| offset: 1 CreateTime: 1747299887693 keySize: 4 valueSize: 5 sequence: -1 headerKeys: [] KRaftVersion '
     '{"version":0,"kRaftVersion":1}', []),
    (PR_19729, '| offset: 2 CreateTime: 1747299887693 keySize: 4 valueSize: 55 sequence: -1 headerKeys: [] KRaftVoters '
     '{"version":0,"voters":[{"voterId":1,"voterDirectoryId":"tpx8pd1IQDqJwMfGzXj6GA","endpoints":[{"name":"CONTROLLER",'
     '"host":"localhost","port":9093}],"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}', []),
    ("4.1.0", '| offset: 0 CreateTime: 1747299887693 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] LeaderChange: '
     '{"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}',
     [{"fact": "raft_epoch", "epoch": None, "leader": 1, "offset": 0}]),
    ("3.3.0", '| offset: 0 CreateTime: 1710774000000 keySize: 4 valueSize: 14 sequence: -1 headerKeys: [] SnapshotHeader '
     '{"version":0,"lastContainedLogTimestamp":1710773999000}', []),
    ("3.3.0", '| offset: 4023 CreateTime: 1710774000000 keySize: 4 valueSize: 3 sequence: -1 headerKeys: [] SnapshotFooter {"version":0}', []),
    # -- 2.8 record lines (batch fields repeated on every record)
    ("2.8.1 (--deep-iteration, no decoder)", "| offset: 4 isValid: true crc: null keySize: -1 valueSize: 23 CreateTime: 1619427004148 "
     "baseOffset: 4 lastOffset: 4 baseSequence: -1 lastSequence: -1 producerEpoch: -1 partitionLeaderEpoch: 1 batchSize: 96 magic: 2 "
     "compressType: NONE position: 549 sequence: -1 headerKeys: []", []),
    ("2.8.1", "| offset: 18 keySize: 4 valueSize: 19 CreateTime: 1619427010000 baseOffset: 18 lastOffset: 18 baseSequence: -1 "
     "lastSequence: -1 producerEpoch: -1 partitionLeaderEpoch: 2 batchSize: 96 magic: 2 compressType: NONE position: 1675 "
     "sequence: -1 headerKeys: [] controlType: LEADER_CHANGE(2)", []),
]


@pytest.mark.parametrize("version, line, expected", DUMP_LINES, ids=[f"{v}: {l[:40]}" for v, l, _ in DUMP_LINES])
def test_dump_line(version, line, expected):
    assert dump_events(line) == expected


def record(rtype: str, data: str, offset: int = 40, time: int = 1710774020000, version: int = 0) -> str:
    """A 3.0+ record line around a payload written from the record's JSON schema."""
    return (f"| offset: {offset} CreateTime: {time} keySize: -1 valueSize: 40 sequence: -1 headerKeys: [] "
            f'payload: {{"type":"{rtype}","version":{version},"data":{data}}}')


PAYLOADS = [
    # PartitionChangeRecord.json: absent = unchanged; leader -1 kept (no leader); -2 / -1 defaults dropped.
    ("3.7.0", "PARTITION_CHANGE_RECORD", f'{{"partitionId":2,"topicId":"{TID}","leader":-1}}', [change(2, 40, 1710774020000, leader=-1)]),
    ("3.7.0", "PARTITION_CHANGE_RECORD", f'{{"partitionId":2,"topicId":"{TID}","isr":[2],"leader":-2,"leaderRecoveryState":-1}}',
     [change(2, 40, 1710774020000, isr=[2])]),
    ("3.7.0", "PARTITION_CHANGE_RECORD", f'{{"partitionId":0,"topicId":"{TID}","isr":[3],"leader":3,"leaderRecoveryState":1}}',
     [change(0, 40, 1710774020000, isr=[3], leader=3, leader_recovery_state="RECOVERING")]),
    ("3.7.0 (reassignment)", "PARTITION_CHANGE_RECORD",
     f'{{"partitionId":1,"topicId":"{TID}","replicas":[2,3,1,4],"addingReplicas":[4],"directories":["p2UpbSD99eygD2ZToiSMzg",'
     '"SaZDxfHKu3NMZ7OnFP7YnA","uHY7hO6-42Q7O4k0zLMmtg","AAAAAAAAAAAAAAAAAAAAAA"]}',
     [change(1, 40, 1710774020000, replicas=[2, 3, 1, 4], adding_replicas=[4])]),
    # its completion: every field that changed, the emptied lists too (PartitionChangeBuilder)
    ("3.7.0 (reassignment done)", "PARTITION_CHANGE_RECORD",
     f'{{"partitionId":1,"topicId":"{TID}","replicas":[2,3,4],"isr":[2,3,4],"removingReplicas":[],"addingReplicas":[]}}',
     [change(1, 40, 1710774020000, replicas=[2, 3, 4], isr=[2, 3, 4], adding_replicas=[], removing_replicas=[])]),
    ("3.9.0 (ELR: the ISR may become empty)", "PARTITION_CHANGE_RECORD",
     f'{{"partitionId":0,"topicId":"{TID}","isr":[],"leader":-1,"eligibleLeaderReplicas":[1,2]}}',
     [change(0, 40, 1710774020000, isr=[], leader=-1, elr=[1, 2])]),
    # A real 4.3.1 capture (kraft-ops): the ISR's last member leaves, then returns as the last known leader.
    ("4.3.1 (ELR: last known leader)", "PARTITION_CHANGE_RECORD",
     f'{{"partitionId":0,"topicId":"{TID}","isr":[],"leader":-1,"eligibleLeaderReplicas":[2],"lastKnownElr":[2]}}',
     [change(0, 40, 1710774020000, isr=[], leader=-1, elr=[2], last_known_elr=[2])]),
    ("4.3.1 (ELR: last known leader)", "PARTITION_CHANGE_RECORD",
     f'{{"partitionId":0,"topicId":"{TID}","isr":[2],"leader":2,"leaderRecoveryState":1,"lastKnownElr":[]}}',
     [change(0, 40, 1710774020000, isr=[2], leader=2, leader_recovery_state="RECOVERING", last_known_elr=[])]),
    ("3.2.0", "PARTITION_RECORD", f'{{"partitionId":0,"topicId":"{TID}","replicas":[1,2],"isr":[2],"removingReplicas":[],'
     '"addingReplicas":[],"leader":2,"leaderRecoveryState":1,"leaderEpoch":7,"partitionEpoch":9}',
     [{"event_type": "PartitionRecord", "topic_id": TID, "partition": 0, "replicas": [1, 2], "isr": [2], "leader": 2,
       "leader_epoch": 7, "zk_version": 9, "leader_recovery_state": "RECOVERING", "adding_replicas": [],
       "removing_replicas": [], "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("3.3.0", "BROKER_REGISTRATION_CHANGE_RECORD", '{"brokerId":2,"brokerEpoch":10,"inControlledShutdown":1}',
     [broker("ControlledShutdown", 2, 40, 1710774020000)]),
    ("3.3.0", "BROKER_REGISTRATION_CHANGE_RECORD", '{"brokerId":2,"brokerEpoch":10,"fenced":1,"inControlledShutdown":1}',
     [broker("ControlledShutdown", 2, 40, 1710774020000), broker("BrokerFailure", 2, 40, 1710774020000)]),
    ("3.7.0 (log dirs only)", "BROKER_REGISTRATION_CHANGE_RECORD", '{"brokerId":2,"brokerEpoch":10,"logDirs":["p2UpbSD99eygD2ZToiSMzg"]}', []),
    ("3.7.0", "REGISTER_BROKER_RECORD", '{"brokerId":4,"isMigratingZkBroker":false,"incarnationId":"RXRJu7cnScKRZOnWQGs86g",'
     '"brokerEpoch":40,"endPoints":[],"features":[],"rack":null,"fenced":false,"inControlledShutdown":false}',
     [broker("BrokerStartup", 4, 40, 1710774020000)]),
    # a snapshot's registration of a broker in controlled shutdown (BrokerRegistration.toRecord @3.3.2)
    ("3.3.2 (snapshot)", "REGISTER_BROKER_RECORD", '{"brokerId":4,"isMigratingZkBroker":false,"incarnationId":'
     '"RXRJu7cnScKRZOnWQGs86g","brokerEpoch":40,"endPoints":[],"features":[],"rack":null,"fenced":false,'
     '"inControlledShutdown":true}',
     [broker("BrokerStartup", 4, 40, 1710774020000), broker("ControlledShutdown", 4, 40, 1710774020000)]),
    ("3.3.2 (snapshot, fenced)", "REGISTER_BROKER_RECORD", '{"brokerId":4,"isMigratingZkBroker":false,"incarnationId":'
     '"RXRJu7cnScKRZOnWQGs86g","brokerEpoch":40,"endPoints":[],"features":[],"rack":null,"fenced":true,'
     '"inControlledShutdown":true}', [broker("BrokerFailure", 4, 40, 1710774020000)]),
    ("3.0.0", "UNREGISTER_BROKER_RECORD", '{"brokerId":3,"brokerEpoch":5}', [broker("BrokerFailure", 3, 40, 1710774020000)]),
    ("3.7.0 (broker default)", "CONFIG_RECORD", '{"resourceType":4,"resourceName":"","name":"unclean.leader.election.enable","value":"true"}',
     [unclean_config(None, "true", 40, 1710774020000)]),
    ("3.7.0 (override removed)", "CONFIG_RECORD", '{"resourceType":2,"resourceName":"orders","name":"unclean.leader.election.enable","value":null}',
     [unclean_config("orders", None, 40, 1710774020000)]),
    ("3.7.0", "CONFIG_RECORD", '{"resourceType":2,"resourceName":"orders","name":"min.insync.replicas","value":"2"}', []),
    ("3.7.0", "FEATURE_LEVEL_RECORD", '{"name":"metadata.version","featureLevel":19}', [{"fact": "metadata_version", "level": 19}]),
    ("3.9.0", "FEATURE_LEVEL_RECORD", '{"name":"kraft.version","featureLevel":1}', []),
    ("3.0.0", "REMOVE_TOPIC_RECORD", f'{{"topicId":"{TID}"}}', [{"event_type": "RemoveTopicRecord", "topic_id": TID, "source_offset": 40,
                                                              "event_time_ms": 1710774020000}]),
    ("3.0.0", "NO_OP_RECORD", "{}", []),
    ("4.3.1 (real)", "CLEAR_ELR_RECORD", '{"topicName":"guarded"}',
     [{"event_type": "ClearElrRecord", "topic": "guarded", "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("4.0.0 (a broker or cluster min.insync.replicas)", "CLEAR_ELR_RECORD", '{"topicName":""}',
     [{"event_type": "ClearElrRecord", "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("3.7.0", "REGISTER_CONTROLLER_RECORD", '{"controllerId":100,"incarnationId":"tpx8pd1IQDqJwMfGzXj6GA","zkMigrationReady":false,'
     '"endPoints":[],"features":[]}', []),
    ("3.4.0", "ZK_MIGRATION_STATE_RECORD", '{"zkMigrationState":0}', []),
    # KIP-868 markers (Begin/End/AbortTransactionRecord.json): facts with their offset (transaction_spans).
    ("4.3.1 (real)", "BEGIN_TRANSACTION_RECORD", '{"name":"Bootstrap records"}',
     [{"fact": "metadata_transaction", "marker": "begin", "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("4.3.1 (real)", "END_TRANSACTION_RECORD", "{}",
     [{"fact": "metadata_transaction", "marker": "end", "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("3.6.0", "ABORT_TRANSACTION_RECORD", '{"reason":"Controller failover"}',
     [{"fact": "metadata_transaction", "marker": "abort", "source_offset": 40, "event_time_ms": 1710774020000}]),
    ("3.6.0 (no reason: a tagged field left at its default)", "ABORT_TRANSACTION_RECORD", "{}",
     [{"fact": "metadata_transaction", "marker": "abort", "source_offset": 40, "event_time_ms": 1710774020000}]),
]


@pytest.mark.parametrize("version, rtype, data, expected", PAYLOADS, ids=[f"{v}: {t} {d[:30]}" for v, t, d, _ in PAYLOADS])
def test_record_payload(version, rtype, data, expected):
    assert dump_events(record(rtype, data)) == expected


NEAR_MISSES = [
    # "Error at N, skipping." is printed when the record cannot be decoded: quarantined, not understood.
    ("3.0.0", "| offset: 5 CreateTime: 1635761004148 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] "
     "payload: Error at 5, skipping. Unknown metadata id 10000"),
    ("2.8.0", " payload: Error at 5, skipping. Unknown metadata id 10000"),
    # --print-data-log without the decoder prints the raw bytes.
    ("3.0.0", "| offset: 5 CreateTime: 1635761004148 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: \x00\x00\x0c\x01\x00"),
    # truncated lines
    ("3.7.0", '| offset: 16 CreateTime: 1710774011037 keySize: -1 valueSize: 39 sequence: -1 headerKeys: [] payload: '
     '{"type":"PARTITION_CHANGE_RECORD","version":1,"data":{"partitionId":0,"topicId":"K16VvIw3TLmaYnQ6XjK4PQ","isr":[1,'),
    ("3.7.0", "baseOffset: 16 lastOffset: 19 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
     "partitionLeaderEpoch: 1 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 2013"),
    ("3.7.0", "| offset: 16 CreateTime: 1710774011037 keySize: -1 valueSize: 39 sequence: -1"),
    # wrong tokens
    ("3.7.0", "baseOffset: x lastOffset: 19 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
     "partitionLeaderEpoch: 1 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 2013 "
     "CreateTime: 1710774011037 size: 265 magic: 2 compresscodec: none crc: 2709148621 isvalid: true"),
    ("3.7.0", "| offset: 16 CreateTime: soon keySize: -1 valueSize: 39 sequence: -1 headerKeys: [] payload: "
     '{"type":"NO_OP_RECORD","version":0,"data":{}}'),
    ("3.7.0", '| offset: 16 CreateTime: 1710774011037 keySize: -1 valueSize: 39 sequence: -1 headerKeys: [] payload: '
     '{"kind":"NO_OP_RECORD","version":0,"data":{}}'),
    ("3.0.0", "Starting offset: zero"),
    ("3.3.0", "Snapshot end offset: 4023"),
]


@pytest.mark.parametrize("version, line", NEAR_MISSES, ids=[f"{v}: {l[:50]}" for v, l in NEAR_MISSES])
def test_dump_near_miss_is_not_understood(version, line):
    assert dump(line) is None


# ------------------------------------------------------------------ fixtures, line by line

def fixture_lines(version: str) -> list[str]:
    return (FIXTURES / version / "00000000000000000000.log.txt").read_text().splitlines()


def check_fixture(version: str, batches: dict, records: dict):
    """Every line is understood; batch lines give their Raft epoch, the listed record
    lines their events, every other line nothing."""
    lines = fixture_lines(version)
    for n, line in enumerate(lines, start=1):
        # A batch's timestamp is the dump's clock; -1 (no timestamp) gives none.
        ts = int(re.search(r"(?:CreateTime|LogAppendTime|NoTimestampType): (-?\d+)", line)[1]) if n in batches else -1
        expected = [raft(*batches[n], ts if ts >= 0 else None)] if n in batches else records.get(n, [])
        assert dump_events(line) == expected, f"{version} line {n}: {line}"
    assert max(batches) < len(lines) and max(records) <= len(lines)


# The story of every fixture: brokers 1-3 register (fenced) and are unfenced; topic
# "orders" (unclean election enabled) is created with 3 partitions; broker 3 times out
# (out of every ISR, p2 moves to 1); p0's leader shrinks the ISR to [1]; the quorum moves
# to Raft epoch 2; broker 1 fails (p0 has no leader, p2 moves to 2); p0 is elected
# uncleanly (RECOVERING, then RECOVERED, from 3.2); the topic is removed.

# 2.8.1 and 3.0.1 write the same records at the same offsets (FENCE/UNFENCE_BROKER_RECORD,
# no leaderRecoveryState); only the record line and the header differ.
OLD_BATCHES = {3: (1, 0), 5: (1, 1), 7: (1, 2), 9: (1, 3), 11: (1, 4), 13: (1, 5), 15: (1, 6), 17: (1, 7),
               24: (1, 13), 29: (1, 17), 31: (2, 18), 33: (2, 19), 38: (2, 23), 40: (2, 24)}


def old_records(t: dict, empty_lists_printed: bool) -> dict:
    """t: batch base offset -> its CreateTime; empty_lists_printed: as partition_record's."""
    return {
        6: [broker("BrokerFailure", 1, 1, t[1])], 8: [broker("BrokerFailure", 2, 2, t[2])], 10: [broker("BrokerFailure", 3, 3, t[3])],
        12: [broker("BrokerStartup", 1, 4, t[4])], 14: [broker("BrokerStartup", 2, 5, t[5])], 16: [broker("BrokerStartup", 3, 6, t[6])],
        18: [topic_name()], 19: [unclean_config("orders", "true", 8, t[7])],
        21: [partition_record(0, [1, 2, 3], 10, t[7], empty_lists_printed=empty_lists_printed)],
        22: [partition_record(1, [2, 3, 1], 11, t[7], empty_lists_printed=empty_lists_printed)],
        23: [partition_record(2, [3, 1, 2], 12, t[7], empty_lists_printed=empty_lists_printed)],
        25: [change(0, 13, t[13], isr=[1, 2])], 26: [change(1, 14, t[13], isr=[2, 1])],
        27: [change(2, 15, t[13], isr=[1, 2], leader=1)], 28: [broker("BrokerFailure", 3, 16, t[13])],
        30: [change(0, 17, t[17], isr=[1])],
        34: [change(0, 19, t[19], leader=-1)], 35: [change(1, 20, t[19], isr=[2])],
        36: [change(2, 21, t[19], isr=[2], leader=2)], 37: [broker("BrokerFailure", 1, 22, t[19])],
        39: [change(0, 23, t[23], isr=[2], leader=2)],
        41: [{"event_type": "RemoveTopicRecord", "topic_id": TID, "source_offset": 24, "event_time_ms": t[24]}],
    }


def test_fixture_2_8_1():
    times = {1: 1619427001037, 2: 1619427002074, 3: 1619427003111, 4: 1619427004148, 5: 1619427005000, 6: 1619427006037,
             7: 1619427007074, 13: 1619427008111, 17: 1619427009148, 19: 1619427011037, 23: 1619427012074, 24: 1619427013111}
    check_fixture("2.8.1", OLD_BATCHES, old_records(times, empty_lists_printed=False))


def test_fixture_3_0_1():
    times = {1: 1635761001037, 2: 1635761002074, 3: 1635761003111, 4: 1635761004148, 5: 1635761005000, 6: 1635761006037,
             7: 1635761007074, 13: 1635761008111, 17: 1635761009148, 19: 1635761011037, 23: 1635761012074, 24: 1635761013111}
    check_fixture("3.0.1", OLD_BATCHES, old_records(times, empty_lists_printed=True))


def test_fixture_3_7_0():
    batches = {3: (1, 0), 5: (1, 1), 7: (1, 2), 9: (1, 3), 11: (1, 4), 13: (1, 5), 15: (1, 6), 17: (1, 7), 19: (1, 8),
               21: (1, 9), 23: (1, 10), 30: (1, 16), 35: (1, 20), 37: (2, 21), 39: (2, 22), 41: (2, 23), 46: (2, 27),
               48: (2, 28), 50: (2, 29), 52: (2, 30)}
    records = {
        6: [{"fact": "metadata_version", "level": 19}],
        10: [broker("BrokerFailure", 1, 3, 1710774003111)], 12: [broker("BrokerFailure", 2, 4, 1710774004148)],
        14: [broker("BrokerFailure", 3, 5, 1710774005000)],
        16: [broker("BrokerStartup", 1, 6, 1710774006037)], 18: [broker("BrokerStartup", 2, 7, 1710774007074)],
        20: [broker("BrokerStartup", 3, 8, 1710774008111)],
        24: [topic_name()], 25: [unclean_config("orders", "true", 11, 1710774010000)],
        27: [partition_record(0, [1, 2, 3], 13, 1710774010000)], 28: [partition_record(1, [2, 3, 1], 14, 1710774010000)],
        29: [partition_record(2, [3, 1, 2], 15, 1710774010000)],
        31: [change(0, 16, 1710774011037, isr=[1, 2])], 32: [change(1, 17, 1710774011037, isr=[2, 1])],
        33: [change(2, 18, 1710774011037, isr=[1, 2], leader=1)], 34: [broker("BrokerFailure", 3, 19, 1710774011037)],
        36: [change(0, 20, 1710774012074, isr=[1])],
        42: [change(0, 23, 1710774015000, leader=-1)], 43: [change(1, 24, 1710774015000, isr=[2])],
        44: [change(2, 25, 1710774015000, isr=[2], leader=2)], 45: [broker("BrokerFailure", 1, 26, 1710774015000)],
        47: [change(0, 27, 1710774016037, isr=[2], leader=2, leader_recovery_state="RECOVERING")],
        49: [change(0, 28, 1710774017074, leader_recovery_state="RECOVERED")],
        51: [{"event_type": "RemoveTopicRecord", "topic_id": TID, "source_offset": 29, "event_time_ms": 1710774018111}],
    }
    check_fixture("3.7.0", batches, records)


def test_fixture_line_shapes_follow_their_release():
    # The era rows that match prove the fixtures are written in their release's shape.
    names = {v: {dump(line)[0].name for line in fixture_lines(v)} for v in ("2.8.1", "3.0.1", "3.7.0")}
    assert "kraft.dump.record28.payload" in names["2.8.1"] and "kraft.dump.record.payload" not in names["2.8.1"]
    assert {"kraft.dump.starting_offset", "kraft.dump.batch"} <= names["2.8.1"] & names["3.0.1"]
    assert "kraft.dump.record.payload" in names["3.0.1"] and "kraft.dump.record28.payload" not in names["3.0.1"]
    assert {"kraft.dump.log_starting_offset", "kraft.dump.batch.delete_horizon"} <= names["3.7.0"]


# ------------------------------------------------------------------ KRaft controller log lines

UNCLEAN_DIFF = ("isr: [1] -> [2], leader: -1 -> 2, leaderRecoveryState: RECOVERED -> RECOVERING, "
                "leaderEpoch: 2 -> 3, partitionEpoch: 5 -> 6")

def _event_name(op: str, number: int, snapshot_id: str) -> str:
    """A controller event's name as logged: "handleCommit[baseOffset=%d]" -> "handleCommit[baseOffset=7]"."""
    return op.replace("%d", str(number)).replace("%s", snapshot_id)


CONTROLLER_LINES = [
    ("3.0.1", f"[Controller 100] UNCLEAN partition change for orders-0 with topic ID {TID}: isr: [1] -> [2], leader: -1 -> 2, "
     "leaderEpoch: 2 -> 3, partitionEpoch: 5 -> 6",
     [{"event_type": "UncleanElectionLogged", "topic": "orders", "partition": 0, "leader": 2, "recording_broker": 100,
       "detail": "isr: [1] -> [2], leader: -1 -> 2, leaderEpoch: 2 -> 3, partitionEpoch: 5 -> 6"}]),
    ("3.4.1", f"[Controller 101] UNCLEAN partition change for my-orders-v2-12 with topic ID {TID}: {UNCLEAN_DIFF}",
     [{"event_type": "UncleanElectionLogged", "topic": "my-orders-v2", "partition": 12, "leader": 2, "recording_broker": 101,
       "detail": UNCLEAN_DIFF}]),
    ("3.7.0", f"[QuorumController id=102] UNCLEAN partition change for orders-0 with topic ID {TID}: {UNCLEAN_DIFF}",
     [{"event_type": "UncleanElectionLogged", "topic": "orders", "partition": 0, "leader": 2, "recording_broker": 102,
       "detail": UNCLEAN_DIFF}]),
    # the new leader is not in the previous ISR but did not change: nothing elected
    ("3.7.0", f"[QuorumController id=102] UNCLEAN partition change for orders-0 with topic ID {TID}: isr: [1] -> [1, 2], "
     "partitionEpoch: 6 -> 7", []),
    # 4.1+ log it for every change that leaves the partition RECOVERING (PartitionRegistration @4.1.0,
    # sources jar): the leader going away, or the recovery ending, elects nobody
    ("4.1.0", f"[QuorumController id=102] UNCLEAN partition change for orders-0 with topic ID {TID}: leader: 2 -> -1, "
     "leaderEpoch: 3 -> 4, partitionEpoch: 6 -> 7", []),
    ("4.1.0", f"[QuorumController id=102] UNCLEAN partition change for orders-0 with topic ID {TID}: "
     "leaderRecoveryState: RECOVERING -> RECOVERED, partitionEpoch: 7 -> 8", []),
    # same election, logged by PartitionChangeBuilder while building the record: not counted twice
    ("3.6.0", f"[QuorumController id=101] Setting new leader for topicId {TID}, partition 0 to 2 using an unclean election", []),
    ("4.x (trunk copy)", f"[QuorumController id=101] Setting new leader for topicId {TID}, partition 0 to 2 using an unclean "
     "election. Previous partition: PartitionRegistration(replicas=[1, 2, 3], directories=[], isr=[1], removingReplicas=[], "
     "addingReplicas=[], elr=[], lastKnownElr=[], leader=-1, leaderRecoveryState=RECOVERED, leaderEpoch=2, partitionEpoch=5), "
     f"change record: PartitionChangeRecord(partitionId=0, topicId={TID}, isr=[2], leader=2, replicas=null, "
     "removingReplicas=null, addingReplicas=null, leaderRecoveryState=1, directories=null, eligibleLeaderReplicas=null, "
     "lastKnownElr=null)", []),
    ("3.6.0", f"[QuorumController id=101] Setting new leader for topicId {TID}, partition 2 to 1 using a clean election", []),
    ("3.7.0", f"[QuorumController id=101] Setting new leader for topicId {TID}, partition 2 to 1 using ELR", []),
    ("3.7.0", f"[QuorumController id=101] partition change for orders-1 with topic ID {TID}: isr: [2, 3, 1] -> [2, 1], "
     "partitionEpoch: 0 -> 1", []),
    ("3.4.1", f"[Controller 100] Created topic orders with topic ID {TID}.", [topic_name()]),
    ("3.6.x (real)", "[QuorumController id=0] Replayed TopicRecord for topic trader-updates with topic ID _HoeUqpHRzmN1o05kPIksg.",
     [topic_name("trader-updates", "_HoeUqpHRzmN1o05kPIksg")]),
    ("3.0.2", f"[Controller 100] Created partition orders-0 with topic ID {TID} and PartitionControlInfo(replicas=[1, 2, 3], "
     "isr=[1, 2, 3], removingReplicas=null, addingReplicas=null, leader=1, leaderEpoch=0, partitionEpoch=0).", [registration()]),
    ("3.4.1", f"[Controller 100] Created partition orders-0 with topic ID {TID} and PartitionRegistration(replicas=[1, 2, 3], "
     "isr=[1, 2, 3], removingReplicas=[], addingReplicas=[], leader=1, leaderRecoveryState=RECOVERED, leaderEpoch=0, "
     "partitionEpoch=0).", [registration()]),
    ("3.6.x (real)", "[QuorumController id=0] Replayed PartitionRecord for new partition trader-updates-0 with topic ID "
     "_HoeUqpHRzmN1o05kPIksg and PartitionRegistration(replicas=[0], isr=[0], removingReplicas=[], addingReplicas=[], "
     "leader=0, leaderRecoveryState=RECOVERED, leaderEpoch=0, partitionEpoch=0).",
     [registration("trader-updates", 0, [0], [0], 0, controller=0)]),
    ("3.9.2 (real)", "[QuorumController id=3000] Replayed PartitionRecord for existing partition after-0 with topic ID "
     "hZRix8jdTJ-ALFzlWtJw0A and PartitionRegistration(replicas=[2, 3, 1], directories=[j7m7tBNUa_kJDSg7z2jwyw, "
     "RHHbQZLKvscOQljwnivutw, _xnyQ7M1K9LVCh11qABe_w], isr=[2, 3, 1], removingReplicas=[], addingReplicas=[], elr=[], "
     "lastKnownElr=[], leader=2, leaderRecoveryState=RECOVERED, leaderEpoch=0, partitionEpoch=0).",
     [registration("after", 0, [2, 3, 1], [2, 3, 1], 2, new=False, controller=3000)]),
    ("3.4.1", f"[Controller 100] Removed topic orders with ID {TID}.", []),
    ("3.7.0", f"[QuorumController id=101] Replayed RemoveTopicRecord for topic orders with ID {TID}.", []),
    ("3.4.1", "[Controller 100] Fencing broker 3 because its session has timed out.", []),
    ("3.4.1", "[Controller 100] handleBrokerFenced: changing 3 partition(s)", []),
    ("3.4.1", "[Controller 100] handleBrokerUnfenced: changing 1 partition(s)", []),
    # Lines of other releases, each from the sources jar of the release named (ReplicationControlManager,
    # ConfigurationControlManager, BrokerHeartbeatManager, QuorumController).
    ("3.4.1", "[Controller 100] handleBrokerUnregistered: changing 2 partition(s)", []),
    ("3.7.2", "[QuorumController id=101] offline-dir-assignment: changing 2 partition(s)", []),
    ("3.9.1", "[QuorumController id=101] handleBrokerUncleanShutdown: changing 2 partition(s)", []),
    ("4.0.0", "[QuorumController id=101] handleBrokerShutdown: changing 2 partition(s)", []),
    ("2.8.2", f"[Controller 100] Created topic orders with ID {TID}.", [topic_name()]),
    ("2.8.2", f"[Controller 100] Created partition {TID}:0 with PartitionControlInfo(replicas=[1, 2, 3], isr=[1, 2, 3], "
     "removingReplicas=null, addingReplicas=null, leader=1, leaderEpoch=0, partitionEpoch=0).", []),
    ("2.8.2", f"[Controller 100] Modified partition {TID}:0: isr: [1, 2, 3] -> [1, 2], partitionEpoch: 0 -> 1.", []),
    ("3.5.2", "[QuorumController id=101] ConfigResource(type=TOPIC, name='orders'): set configuration "
     "unclean.leader.election.enable to true", []),
    ("2.8.2", "[Controller 100] ConfigResource(type=BROKER, name=''): set configuration min.insync.replicas to 2", []),
    ("3.0.2", "[Controller 100] createTopics result(s): CreatableTopic(name='orders', numPartitions=1, "
     "replicationFactor=3, assignments=[], configs=[]): SUCCESS", [{"fact": "topics_created", "topics": ["orders"]}]),
    # ReplicationControlManager.createTopics @3.4.1..: each topic's result, ", " between them.
    ("3.9.2", "[QuorumController id=3000] CreateTopics result(s): CreatableTopic(name='a', numPartitions=1, "
     "replicationFactor=1, assignments=[CreatableReplicaAssignment(partitionIndex=0, brokerIds=[1])], configs=[]): SUCCESS, "
     "CreatableTopic(name='b', numPartitions=1, replicationFactor=1, assignments=[], configs=[]): TOPIC_ALREADY_EXISTS "
     "(Topic 'b' already exists.), CreatableTopic(name='c', numPartitions=2, replicationFactor=1, assignments=[], "
     "configs=[CreatableTopicConfig(name='retention.ms', value='1')]): SUCCESS",
     [{"fact": "topics_created", "topics": ["a", "c"]}]),
    ("2.8.2", "[Controller 100] The request from broker 2 to unfence has been granted because it has caught up with the "
     "last committed metadata offset 42.", []),
    ("3.3.2", "[Controller 100] The request from broker 2 to unfence has been granted because it has caught up with the "
     "offset of it's register broker record 42.", []),
    ("3.4.1", "[Controller 100] Creating new QuorumController with clusterId abc, authorizer Optional.empty.", []),
    ("3.9.1", "[QuorumController id=101] Creating new QuorumController with clusterId abc. ZK migration mode is enabled.",
     [{"fact": "zk_migration", "state": "enabled"}]),
    ("4.1.0", "[QuorumController id=101] AlterPartition request from node 2 for orders-0 completed the ongoing partition "
     "reassignment and triggered a leadership change. Returning NEW_LEADER_ELECTED.", []),
    ("3.2.3", "[Controller 100] AlterPartition request from node 2 for orders-0 completed the ongoing partition "
     "reassignment.", []),
    ("3.1.2", "[Controller 100] AlterIsr request from node 2 for orders-0 completed the ongoing partition reassignment.", []),
    ("3.0.2", "[Controller 100] AlterIsr request from node 2 for orders-0 completed the ongoing partition reassignment and "
     "triggered a leadership change. Reutrning FENCED_LEADER_EPOCH.", []),
    ("3.5.2", "[QuorumController id=101] Unregistered broker: UnregisterBrokerRecord(brokerId=3, brokerEpoch=31)", []),
    ("3.6.2", "[QuorumController id=101] Replayed UnregisterBrokerRecord(brokerId=3, brokerEpoch=31)", []),
    ("3.9.1", "[QuorumController id=101] Replayed RegisterControllerRecord contaning ControllerRegistration(id=101, "
     "incarnationId=jmP66AyxTxe21pJmXAao9g, zkMigrationReady=false, listeners=[], supportedFeatures={}).", []),
    ("3.9.2", "[QuorumController id=101] Fencing broker 3 because its session has timed out.", []),
    # Controller activation and event failures (QuorumController, ActivationRecordsGenerator,
    # EventHandlerExceptionInfo of the release named)
    ("3.5.2", "[QuorumController id=101] The metadata log appears to be empty. Appending 5 bootstrap record(s) at "
     "metadata.version 3.5-IV2 from the binary bootstrap metadata file: /var/lib/kafka/bootstrap.checkpoint.", []),
    ("3.6.2", "[QuorumController id=101] Performing controller activation. The metadata log appears to be empty. Appending 6 "
     "bootstrap record(s) in metadata transaction at metadata.version 3.6-IV1 from bootstrap source 'the binary bootstrap "
     "metadata file: /tmp/b.checkpoint'. Setting the ZK migration state to NONE since this is a de-novo KRaft cluster.", []),
    ("3.9.1", "[QuorumController id=101] Performing controller activation. Aborting in-progress metadata transaction at offset "
     "42. Loaded ZK migration state of NONE. This is expected because this is a de-novo KRaft cluster.", []),
    ("3.0.2", "[Controller 100] unable to start processing createTopics because of NotControllerException.", []),
    ("3.0.2", "[Controller 100] alterIsr: failed with unknown server exception NullPointerException at epoch 2 in 80 us.  "
     "Reverting to last committed offset 17.", [{"fact": "raft_epoch", "epoch": 2, "leader": 100}]),
    ("3.3.2", "[Controller 100] createTopics: failed with TopicExistsException in 312 us", []),
    ("3.3.2", "[Controller 100] writeNoOpRecord: failed with unknown server exception RuntimeException at epoch 4 in 1234 "
     "us.  Renouncing leadership and reverting to the last committed offset 99.", [{"fact": "raft_epoch", "epoch": 4, "leader": 100}]),
    ("3.4.1", "[Controller 100] alterPartition: unable to start processing because of NotControllerException.", []),
    ("3.5.2", "[QuorumController id=101] createTopics: failed with TopicExistsException in 312 us. Reason: Topic 'orders' "
     "already exists.", []),
    ("3.5.2", "[QuorumController id=101] registerBroker: failed with unknown server exception RuntimeException in 55 us.  "
     "The controller is already in standby mode.", []),
    ("3.6.2", "[QuorumController id=101] electLeaders: event unable to start processing because of NotControllerException.",
     []),
    ("3.6.2", "[QuorumController id=101] alterPartition: event failed with RuntimeException at epoch 5 in 77 microseconds. "
     "Renouncing leadership and reverting to the last committed offset 301.", [{"fact": "raft_epoch", "epoch": 5, "leader": 101}]),
    ("3.3.2", "[Controller 100] Registered new broker: RegisterBrokerRecord(brokerId=1, isMigratingZkBroker=false, "
     "incarnationId=P3UFsWoNR-erL9PK98YLsA, brokerEpoch=3, endPoints=[BrokerEndpoint(name='PLAINTEXT', host='broker-1', "
     "port=9092, securityProtocol=0)], features=[], rack=null, fenced=true, inControlledShutdown=false)", []),
    ("3.3.2", "[Controller 100] Re-registered broker id 3: RegisterBrokerRecord(brokerId=3, isMigratingZkBroker=false, "
     "incarnationId=5TICkSDlQOGOHY-sn-TtDw, brokerEpoch=31, endPoints=[], features=[], rack=null, fenced=true, "
     "inControlledShutdown=false)", []),
    ("3.6.x (real)", "[QuorumController id=0] Replayed initial RegisterBrokerRecord for broker 0: RegisterBrokerRecord(brokerId=0, "
     "isMigratingZkBroker=false, incarnationId=JOqxeLTDSICuZZE_ZffLxQ, brokerEpoch=5, endPoints=[BrokerEndpoint(name='EXTERNAL', "
     "host='localhost', port=38043, securityProtocol=0)], features=[BrokerFeature(name='metadata.version', minSupportedVersion=1, "
     "maxSupportedVersion=14)], rack=null, fenced=true, inControlledShutdown=false)", []),
    ("3.0.1", "[Controller 100] Unfenced broker: UnfenceBrokerRecord(id=1, epoch=3)", []),
    ("3.4.1", "[Controller 100] Unfenced broker 2 has requested and been granted a controlled shutdown.", []),
    ("3.4.1", "[Controller 101] In the new epoch 7, the leader is 100.", [{"fact": "raft_epoch", "epoch": 7, "leader": 100}]),
    ("3.7.0", "[QuorumController id=101] In the new epoch 8, the leader is (none).", [{"fact": "raft_epoch", "epoch": 8, "leader": None}]),
    ("3.6.x (real)", "[QuorumController id=0] Becoming the active controller at epoch 1, next write offset 1.",
     [{"fact": "raft_epoch", "epoch": 1, "leader": 0}]),
    ("3.0.1", "[Controller 101] Becoming the active controller at epoch 2, committed offset 17, committed epoch 1",
     [{"fact": "raft_epoch", "epoch": 2, "leader": 101}]),
    ("2.8.1", "[Controller 100] Becoming active at controller epoch 1.", [{"fact": "raft_epoch", "epoch": 1, "leader": 100}]),
    ("3.4.1", "[Controller 100] Renouncing the leadership due to a metadata log event. We were the leader at epoch 1, but in "
     "the new epoch 2, the leader is 101. Reverting to last committed offset 20.",
     [{"fact": "raft_epoch", "epoch": 1, "leader": 100}, {"fact": "raft_epoch", "epoch": 2, "leader": 101}]),
    ("3.6.2", "[QuorumController id=101] Renouncing the leadership due to a metadata log event. We were the leader at epoch 5, "
     "but in the new epoch 6, the leader is (none). Reverting to last stable offset 301.",
     [{"fact": "raft_epoch", "epoch": 5, "leader": 101}]),
    ("2.8.1", "[Controller 100] Renouncing the leadership at oldEpoch 1 due to a metadata log event. Reverting to last "
     "committed offset 20.", [{"fact": "raft_epoch", "epoch": 1, "leader": 100}]),
    # 2.8-3.1 name the controller object (`this`) where later releases name the operation.
    ("3.0.1", "[Controller 100] org.apache.kafka.controller.QuorumController@5e1f3a8c: failed with unknown server exception "
     "NotLeaderException at epoch 3 in 120 us.  Reverting to last committed offset 42.",
     [{"fact": "raft_epoch", "epoch": 3, "leader": 100}]),
    ("3.9.0", "[QuorumController id=101] maybeElectUncleanLeaders: generated 1 records in 212 microseconds.", []),
    ("3.9.0", "[QuorumController id=101] maybeElectUncleanLeaders: generated 1 records in 212 microseconds. Rescheduling "
              "immediately.", []),
    ("3.9.0", "[QuorumController id=101] maybeBalancePartitionLeaders: generated 2 records in 230 microseconds.", []),
    # 4.3.1 real (a one-off capture with auto.leader.rebalance.enable on, checked every 5 s)
    ("4.3.1 (real)", "[QuorumController id=1] Periodic task electPreferred generated 2 records in 230 microseconds.", []),
    ("4.0.0", "[QuorumController id=1] Periodic task electUnclean generated 0 records in 41 microseconds.", []),
    ("3.9.0", "[QuorumController id=101] Triggering unclean leader election for offline partition orders-0.", []),
    ("3.9.0", "[QuorumController id=101] Cannot trigger unclean leader election for offline partition orders-0: the controller "
     "is not active.", []),
    # Lines of the releases named, each from its kafka-metadata sources jar.
    ("4.3.1", "[QuorumController id=1] Triggering unclean leader election for offline partition orders-0. (isr: [2], "
     "replicaSet: [1, 2, 3], partitionEpoch: 7, leaderEpoch: 4)", []),
    ("4.3.1", "[QuorumController id=1] Cannot trigger unclean leader election for offline partition orders-0: "
     "ELIGIBLE_LEADERS_NOT_AVAILABLE. (isr: [], replicaSet: [1, 2], partitionEpoch: 9, leaderEpoch: 5)", []),
    ("4.2.0", "[QuorumController id=1] Cannot trigger unclean leader election for offline partition orders-0 because unclean "
     "leader election is disabled for this topic.", []),
    ("4.3.1", "[QuorumController id=1] Cannot trigger unclean leader election for offline partition orders-0 because unclean "
     "leader election is disabled for this topic. (isr: [], replicaSet: [1, 2], partitionEpoch: 9, leaderEpoch: 5)", []),
    ("3.3.2", "[Controller 101] We were the leader in epoch 4, and are still the leader in the new epoch 6.",
     [{"fact": "raft_epoch", "epoch": 6, "leader": 101}]),
    ("4.3.1", "[QuorumController id=2] We were the leader in epoch 4, and are still the leader in the new epoch 5.",
     [{"fact": "raft_epoch", "epoch": 5, "leader": 2}]),
    ("2.8.2", "[Controller 100] Fenced broker 3 has requested and been granted an immediate shutdown.", []),
    ("4.0.0", "[QuorumController id=1] Unregistering periodic task electUnclean", []),
    ("3.0.2", "[Controller 100] Starting to replay snapshot (OffsetAndEpoch(offset=1200, epoch=3)), from last commit offset "
     "(-1) and epoch (-1)", []),
    ("3.5.2", "[QuorumController id=1] Starting to replay snapshot 00000000000000001200-0000000003, from last commit offset "
     "-1 and epoch -1", []),
    ("3.5.2", "[QuorumController id=1] Finished replaying snapshot 00000000000000001200-0000000003", []),
    ("3.6.2", "[QuorumController id=1] Starting to load snapshot 00000000000000001200-0000000003. Previous lastCommittedOffset "
     "was -1. Previous transactionStartOffset was -1.", []),
    ("4.3.1", "[QuorumController id=1] Successfully loaded snapshot 00000000000000001200-0000000003.", []),
    ("3.0.2", "[Controller 100] Generating a snapshot that includes (epoch=3, offset=41233) after 104857612 committed bytes "
     "since the last snapshot.", []),
    ("3.3.2", "[Controller 100] Skipping generation of snapshot for committed offset 41233 and epoch 3 since it already exists",
     []),
    ("3.3.2", "[Controller 100] Finished generating snapshot 41233.", []),
    ("3.0.2", "[Controller 100] Cancelling snapshot 41233", []),
    ("3.3.2", "[Controller 100] Error while generating snapshot 41233", []),
    ("3.0.2", "[Controller 100] Generating records for the replication section of snapshot OffsetAndEpoch(offset=41233, "
     "epoch=3).", []),
    ("3.3.2", "[Controller 100] Generated 1204 record(s) for the replication section of snapshot OffsetAndEpoch(offset=41233, "
     "epoch=3).", []),
    ("3.1.2", "[Controller 100] Validate-only CreateTopics result(s): CreatableTopic(name='orders', numPartitions=3, "
     "replicationFactor=3, assignments=[], configs=[]): SUCCESS", []),
    ("3.2.3", "[Controller 100] Validate-only CreatePartitions result(s): CreatePartitionsTopic(name='orders', count=6, "
     "assignments=null): SUCCESS", []),
    ("3.0.2", "[Controller 100] Unable to alter partition reassignment for orders:0 because of an InvalidReplicaAssignmentException "
     "error: The manual partition assignment includes broker 9, but no such broker is registered.", []),
    # 4.3.1 real (tests/kafka_cluster capture): copies of records the dump holds, and housekeeping
    ("4.3.1 (real)", "[QuorumController id=1] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 1: "
     "BrokerRegistrationChangeRecord(brokerId=1, brokerEpoch=11, fenced=-1, inControlledShutdown=0, logDirs=[], "
     "cordonedLogDirs=null)", []),
    ("3.6.x (real)", "[QuorumController id=0] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 0: "
     "BrokerRegistrationChangeRecord(brokerId=0, brokerEpoch=5, fenced=-1, inControlledShutdown=0)", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed RegisterControllerRecord containing ControllerRegistration(id=1, "
     "incarnationId=jmP66AyxTxe21pJmXAao9g, zkMigrationReady=false, listeners=[Endpoint(listenerName='CONTROLLER', "
     "securityProtocol=PLAINTEXT, host='127.0.0.1', port=44051)], supportedFeatures={eligible.leader.replicas.version: 0-1, "
     "group.version: 0-1, kraft.version: 0-1, metadata.version: 7-30}).", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed RegisterControllerRecord containing ControllerRegistration(id=2, "
     "incarnationId=47-b9PKjT-uxgsCX_3ThSQ, zkMigrationReady=false, listeners=[], supportedFeatures={kraft.version: 0-1}). "
     "Previous incarnation was udi7bNa8RumIDDghximgmA", []),
    ("4.3.1 (real)", "[QuorumController id=1] Ignoring no-op registration change for BrokerRegistration(id=3, epoch=16, "
     "incarnationId=U4Dx4uLUQMCVftPYcyxhaw, listeners=[], supportedFeatures={}, rack=Optional.empty, fenced=false, "
     "inControlledShutdown=false, isMigratingZkBroker=false, directories=[])", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed ConfigRecord for ConfigResource(type=BROKER, name='') which set "
     "configuration min.insync.replicas to 1", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed ConfigRecord for ConfigResource(type=BROKER, name='1') which set "
     "configuration leader.replication.throttled.rate to [hidden]", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed ConfigRecord for ConfigResource(type=TOPIC, name='unclean') which set "
     "configuration unclean.leader.election.enable to true", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed a FeatureLevelRecord setting metadata.version to 4.3-IV0", []),
    ("4.3.1 (real)", "[QuorumController id=1] Removed ELRs from 0 partitions of topic guarded.", []),
    ("4.0.0", "[QuorumController id=1] Removed ELRs from 3 partitions in all topics.", []),
    ("3.6.x (real)", "[QuorumController id=0] Replayed a FeatureLevelRecord setting metadata version to 3.6-IV2", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed a FeatureLevelRecord setting feature group.version to 1", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed BeginTransactionRecord(name='Bootstrap records') at offset 1.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replayed EndTransactionRecord() at offset 9.", []),
    # OffsetControlManager.replay(AbortTransactionRecord): the offset it reverted to follows.
    ("3.6.0", "[QuorumController id=1] Replayed AbortTransactionRecord(reason='Controller failover') at offset 42. "
     "Reverted to offset 30.", []),
    ("3.6.0", "[QuorumController id=1] Replayed AbortTransactionRecord(reason=null) at offset 42. Reverted to offset 30.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Replaying ProducerIdsRecord ProducerIdsRecord(brokerId=2, brokerEpoch=10, "
     "nextProducerId=1000)", []),
    ("4.3.1 (real)", f"[QuorumController id=1] Replayed partition assignment change PartitionChangeRecord(partitionId=0, "
     f"topicId={TID}, isr=null, leader=-2, replicas=[3, 1, 2], removingReplicas=[2], addingReplicas=[3], "
     "leaderRecoveryState=-1, directories=[], eligibleLeaderReplicas=null, lastKnownElr=null) for topic moves. (isr: [1, 2] -> "
     "[1, 2], replicaSet: [1, 2] -> [3, 1, 2], partitionEpoch: 3, leaderEpoch: 0)", []),
    ("4.3.1 (real)", "[QuorumController id=1] AlterPartition request from node 2 for moves-1 completed the ongoing partition "
     "reassignment and triggered a leadership change isr: [2, 3] -> [1, 3], replicaSet: [1, 3, 2] -> [1, 3], partitionEpoch: "
     "5 -> 6, leaderEpoch: 2 -> 3. Returning NEW_LEADER_ELECTED.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Successfully altered 2 out of 2 partition reassignment(s).", []),
    ("4.3.1 (real)", "[QuorumController id=2] CreateTopics result(s): CreatableTopic(name='events', numPartitions=3, "
     "replicationFactor=3, assignments=[], configs=[]): SUCCESS", [{"fact": "topics_created", "topics": ["events"]}]),
    ("4.3.1 (real)", f"[QuorumController id=1] DeleteTopics result(s): {{id: {TID}, name: doomed, result: SUCCESS}}", []),
    ("4.3.1 (real)", "[QuorumController id=1] Fencing broker 2 at epoch 10 because its session has timed out.", []),
    ("4.1.1 (real)", "[QuorumController id=1] Removing heartbeat tracker entry for broker 3 at previous epoch 11. "
     "Current epoch is 98", []),
    ("4.3.1", "[QuorumController id=1] Removing heartbeat tracker entry for unknown broker 3 at epoch 11.", []),
    ("4.x (real)", "[QuorumController id=2] processExpiredBrokerHeartbeat: controller event queue overloaded. Timed out "
     "heartbeat from broker 3.", []),
    ("3.5.0", "[QuorumController id=1] processExpiredBrokerHeartbeat: controller event queue overloaded. Timed out "
     "heartbeat from broker 12.", []),
    ("4.3.1 (real)", "[QuorumController id=1] enterControlledShutdown[3]: changing 5 partition(s)", []),
    ("4.3.1 (real)", "[QuorumController id=1] The request from broker 2 to unfence has been granted because it has caught up "
     "with the offset of its register broker record 114.", []),
    ("4.3.1 (real)", "[QuorumController id=1] The request from broker 3 to shut down has been granted since the lowest active "
     "offset 140 is now greater than the broker's controlled shutdown offset 139.", []),
    ("4.3.1 (real)", "[QuorumController id=2] No previous registration found for broker 1. New incarnation ID is "
     "7Q7N-zvmSHWATC4n4JCSSA.  Generated 0 record(s) to clean up previous incarnations. New broker epoch is 11.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Registering a new incarnation of broker 2. Previous incarnation ID was "
     "PSUKijawRI2ZKDxcS2zzwA; new incarnation ID is DHrVIpm-RiCgYQDMMlzOuA. Generated 0 record(s) to clean up previous "
     "incarnations. Broker epoch will become 114.", []),
    ("4.3.1 (real)", "[QuorumController id=3] Amending registration of broker 1, incarnation ID ak1kGiQKSNOEgmYSw5JZ5g. "
     "Broker epoch remains 11.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Creating new QuorumController with clusterId JDQl23BNSii3B6vZDHFUzA", []),
    ("4.3.1 (real)", "[QuorumController id=1] Performing controller activation.", []),
    ("4.3.1 (real)", "[QuorumController id=2] Performing controller activation. The metadata log appears to be empty. Appending "
     "6 bootstrap record(s) in metadata transaction at metadata.version 4.3-IV0 from bootstrap source 'the binary bootstrap "
     "metadata file: /tmp/kafka/broker-2/data/bootstrap.checkpoint'.", []),
    ("4.3.1 (real)", "[QuorumController id=1] Registering periodic task writeNoOpRecord to run every 500 ms", []),
    ("4.3.1 (real)", "[QuorumController id=1] Activated periodic tasks: electUnclean, expireDelegationTokens, "
     "generatePeriodicPerformanceMessage, maybeFenceStaleBroker, writeNoOpRecord", []),
    ("4.3.1 (real)", "[QuorumController id=1] Deactivated periodic tasks: electUnclean, expireDelegationTokens, "
     "generatePeriodicPerformanceMessage, maybeFenceStaleBroker, writeNoOpRecord", []),
    ("4.3.1 (real)", "[QuorumController id=1] Exceptionally slow controller event writeNoOpRecord took 3505 ms.", []),
    ("4.3.1 (real)", "[QuorumController id=1] In the last 60000 ms period, 877 controller events were completed, which took an "
     "average of 8.50 ms each. The slowest event was writeNoOpRecord(544850159), which took 195.53 ms.", []),
    ("4.3.1 (real)", "[QuorumController id=1] writeNoOpRecord: event failed with NotLeaderException (treated as "
     "NotControllerException) at epoch 2 in 260 microseconds. Renouncing leadership and reverting to the last committed "
     "offset 291. Exception message: Append failed because the replica is not the current leader",
     [{"fact": "raft_epoch", "epoch": 2, "leader": 1}]),
    ("3.7.2 (real)", "[QuorumController id=2] completeActivation[1]: event failed with NotLeaderException (treated as "
     "NotControllerException) at epoch 1 in 6903 microseconds. Renouncing leadership and reverting to the last committed "
     "offset -1. Exception message: Append failed because the replication is not the current leader",
     [{"fact": "raft_epoch", "epoch": 1, "leader": 2}]),
    ("3.8.1 (real)", "[QuorumController id=3] Broker 1 registered with feature metadata.version that is unknown to the "
     "controller", []),
    ("3.8.1 (real)", "[QuorumController id=3] Rejecting AlterPartition request from node 3 for events-0 because the current "
     "partition epoch is 7, not 6.", []),
    ("3.3.2 (real)", "[Controller 2] Setting metadata.version to 7", []),
    ("3.5.2 (real)", "[QuorumController id=1] Setting metadata version to 3.5-IV2", []),
    ("3.5.2 (real)", "[QuorumController id=1] Transitioning ZK migration state from NONE to NONE",
     [{"fact": "zk_migration", "state": "NONE"}]),
    ("3.5.2 (real)", "[QuorumController id=3] Loaded ZK migration state of NONE", []),
    # FeatureControlManager's and 3.5's QuorumController's other lines, from the kafka-metadata sources jar of the release named
    ("3.3.2", "[Controller 1] Setting feature kraft.version to 1", []),
    ("3.4.1", "[Controller 1] Removing feature test.feature", []),
    ("3.4.1", "[Controller 1] Upgrading metadata.version from 3.3-IV3 to 3.4-IV0.", []),
    ("3.9.2", "[QuorumController id=1] Downgrading metadata.version from 3.9-IV0 to 3.8-IV0.", []),
    ("4.0.2", "[QuorumController id=1] Verified that 3 broker(s) and 3 controller(s) supported changing "
     "eligible.leader.replicas.version to feature level 1.", []),
    ("3.7.2", "[QuorumController id=1] Verified that 3 broker(s) and 0 controller(s) supported changing metadata.version to "
     "feature level 19. Note: unable to verify controller support in the current MetadataVersion.", []),
    ("3.5.2", "[QuorumController id=1] Cannot run write operation createTopics in pre-migration mode. Returning "
     "NOT_CONTROLLER.", []),
    ("3.5.2", "[QuorumController id=1] Starting ZK Migration", []),
    ("3.5.2", "[QuorumController id=1] Completing ZK Migration", []),
    ("3.5.2", "[QuorumController id=1] Putting the controller into pre-migration mode. No metadata updates will be allowed "
     "until the ZK metadata has been migrated", []),
    ("3.5.2", "[QuorumController id=1] Setting the ZK migration state to NONE since this is a de-novo KRaft cluster.", []),
    ("3.5.2", "[QuorumController id=1] Activating pre-migration controller without empty log. There may be a partial "
     "migration", []),
    ("3.5.2", "[QuorumController id=1] Completing the ZK migration since this controller was configured with "
     "'zookeeper.metadata.migration.enable' set to 'false'.", []),
    ("3.5.2", "[QuorumController id=1] Staying in the ZK migration since 'zookeeper.metadata.migration.enable' is still "
     "'true'.", []),
    ("3.5.2", "[QuorumController id=1] Ignoring 'zookeeper.metadata.migration.enable' value of 'true' since the ZK "
     "migrationhas been completed.", []),
    # ReplicationControlManager's other rejections, from the kafka-metadata sources jar of the release named
    ("2.8.2", "[QuorumController id=1] Rejecting alterIsr request for unknown topic ID 4Jq0bZyWTUWcUVDiX9ZtHA.", []),
    ("2.8.2", "[QuorumController id=1] Rejecting alterIsr request for unknown partition orders-7.", []),
    ("2.8.2", "[QuorumController id=1] Rejecting alterIsr request from node 2 for orders-0 because the current leader is 3.", []),
    ("3.0.2", "[QuorumController id=1] Rejecting alterIsr request from node 2 for orders-0 because it specified an invalid "
     "ISR [2, 7].", []),
    ("3.0.2", "[QuorumController id=1] Rejecting alterIsr request from node 2 for orders-0 because it specified an invalid "
     "ISR [3] that doesn't include itself.", []),
    ("3.2.3", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because the ISR [2, 3] had "
     "more than one replica while the leader was still recovering from an unlcean leader election RECOVERING.", []),
    ("3.3.2", "[QuorumController id=1] Rejecting AlterPartition request for unknown topic ID AAAAAAAAAAAAAAAAAAAAAA or name "
     "orders.", []),
    ("3.3.2", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because the current "
     "partition epoch is 9, which is greater than the local value 8.", []),
    ("3.6.2", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because the leader recovery "
     "state cannot change from RECOVERED to RECOVERING.", []),
    ("3.9.2", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because it specified "
     "ineligible replicas [3 (fenced)] in the new ISR [BrokerState(brokerId=2, brokerEpoch=5), BrokerState(brokerId=3, "
     "brokerEpoch=-1)].", []),
    ("4.3.1", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because the current leader "
     "epoch is 4, which is lower than the request value 5. "
     "Proposed ISR was [BrokerState(brokerId=2, brokerEpoch=5)] and current ISR is [2, 3]. Current replica set is [2, 3]. Current partitionEpoch is 8. Current leaderEpoch is 4.", []),
    ("4.3.1", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because it specified an "
     "invalid ISR. "
     "Proposed ISR was [BrokerState(brokerId=2, brokerEpoch=5)] and current ISR is [2, 3]. Current replica set is [2, 3]. Current partitionEpoch is 8. Current leaderEpoch is 4.", []),
    ("4.3.1", "[QuorumController id=1] Rejecting AlterPartition request from node 2 for orders-0 because the ISR had more than "
     "one replica while the leader was still recovering from an unclean leader election RECOVERING. "
     "Proposed ISR was [BrokerState(brokerId=2, brokerEpoch=5)] and current ISR is [2, 3]. Current replica set is [2, 3]. Current partitionEpoch is 8. Current leaderEpoch is 4.", []),
] + [
    # every operation row (kraft_controller.EVENT_FAILED_PATTERNS), in the 4.3.1 wording of a standby's failure
    ("4.3.1 (real)", f"[QuorumController id=2] {_event_name(op, 7, 'OffsetAndEpoch[offset=200, epoch=3]')}: event failed "
     "with NotControllerException in 371 microseconds. Exception message: The active controller appears to be node 1.", [])
    for op in sorted(set(kraft_controller._FAILED_OPERATIONS + kraft_controller._OPERATIONS_28))
] + [
    # every 2.8-3.5 operation row, in the 3.5.2 wording of a request a standby controller refused
    ("3.5.2", f"[QuorumController id=2] {_event_name(op, 4, 'OffsetAndEpoch(offset=200, epoch=3)')}: failed with "
     "NotControllerException in 37 us. Reason: The active controller appears to be node 1", [])
    for op in kraft_controller._OPERATIONS_28 + kraft_controller._RAFT_EVENTS_28
] + [
    # Raft events a controller shutting down rejected (KafkaEventQueue: "The event queue is shutting
    # down"); the snapshot id is kafka-raft's OffsetAndEpoch class up to 4.0, a record from 4.1.
    ("3.6.2", "[QuorumController id=101] handleCommit[baseOffset=1234]: event unable to start processing because of "
     "RejectedExecutionException (treated as TimeoutException). Exception message: The event queue is shutting down", []),
    ("3.9.2", "[QuorumController id=101] handleLoadSnapshot[snapshotId=OffsetAndEpoch(offset=200, epoch=3)]: event unable "
     "to start processing because of RejectedExecutionException (treated as TimeoutException). Exception message: The "
     "event queue is shutting down", []),
    ("4.3.1", "[QuorumController id=1] handleLoadSnapshot[snapshotId=OffsetAndEpoch[offset=200, epoch=3]]: event unable "
     "to start processing because of RejectedExecutionException (treated as TimeoutException). Exception message: The "
     "event queue is shutting down", []),
    ("3.3.2", "[Controller 100] handleCommit[baseOffset=1234]: unable to start processing because of "
     "RejectedExecutionException.", []),
    ("3.4.1", "[Controller 100] handleSnapshot[snapshotId=OffsetAndEpoch(offset=200, epoch=3)]: unable to start processing "
     "because of RejectedExecutionException.", []),
    ("2.8.2", "[Controller 100] handleCommits[17]: unable to start processing because of RejectedExecutionException.", []),
] + [
    ("3.4.1 (real)", "[Controller 2] completeActivation[1]: failed with NotControllerException in 51549 us", []),
] + [
    # KRaft brokers' state-change.log (ReplicaManager.applyDelta)
    ("4.3.1 (real)", "[Broker id=1] Transitioning 1 partition(s) to local leaders.", []),
    ("4.3.1 (real)", "[Broker id=1] Transitioning 2 partition(s) to local followers.", []),
    ("4.3.1 (real)", "[Broker id=1] Creating new partition events-0 with topic id WwbgmwTwTy-4ha8A25zg8Q.", []),
    ("4.3.1 (real)", "[Broker id=1] Expected partition moves-1 with topic id Ib1XXwk8RXy2n8p9tbbUMA to exist, but it was "
     "missing. Creating...", []),
    ("4.3.1 (real)", "[Broker id=1] Deleting 1 partition(s).", []),
    ("4.3.1 (real)", "[Broker id=1] Stopped fetchers as part of become-follower for 2 partitions", []),
    ("4.3.1 (real)", "[Broker id=1] Started fetchers as part of become-follower for 2 partitions", []),
    # the other ReplicaManager.applyDelta lines, from the kafka_2.13 sources jar of the release named
    ("3.3.2", "[Broker id=1] Stopped fetchers as part of controlled shutdown for 3 partitions", []),
    ("3.3.1", f"[Broker id=1] Unable to start fetching orders-0 with topic ID {TID} because the replica manager is shutting "
     "down.", []),
    ("3.0.2", f"[Broker id=1] Unable to start fetching orders-0 with topic ID {TID} from leader 2 because it is not alive.",
     []),
    ("3.9.1", f"[Broker id=1] Unable to start fetching orders-0 with topic ID {TID} from leader Some(2) because it is not "
     "alive.", []),
    ("3.9.1", f"[Broker id=1] Unable to start fetching orders-0 with topic ID {TID} due to a storage error Disk error", []),
    ("3.0.2", f"[Broker id=1] Unable to start fetching orders-0 with topic ID {TID} due to NullPointerException", []),
    ("3.6.2", "[Broker id=1] Unable to delete stray replica orders-0 because the local replica for the partition is in an "
     "offline log directory: Disk error.", []),
    ("4.3.1", "[Broker id=1] Unable to delete replica orders-0 because we got an unexpected java.io.IOException exception: "
     "No space left on device", []),
    # The ZooKeeper-to-KRaft migration, as the KRaft controller logs it (kafka-metadata and kafka_2.13
    # sources jars of the release named: KRaftMigrationDriver, KafkaZkClient, the ZooKeeper migration clients)
    ("3.9.2", "[KRaftMigrationDriver id=3000] 3000 transitioning from WAIT_FOR_CONTROLLER_QUORUM to WAIT_FOR_BROKERS state",
     []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Migration driver trying to transition from an unknown state DUAL_WRITE", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Error transition in migration driver from ZK_MIGRATION to INACTIVE", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Had an exception in MigrateMetadataEvent", []),
    ("3.7.0", "[KRaftMigrationDriver id=3000] Encountered ZooKeeper error during event MigrateMetadataEvent. Will retry.",
     []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Not processing PollEvent because the event queue is closed.", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Shutting down KRaftMigrationDriver", []),
    ("3.9.0", "[KRaftMigrationDriver id=3000] Current leader epoch is LeaderAndEpoch(leaderId=OptionalInt[3001], epoch=8), "
     "but event was created with epoch LeaderAndEpoch(leaderId=OptionalInt[3000], epoch=7). Not running this event "
     "SyncKRaftMetadataEvent.", []),
    ("3.5.2", "[KRaftMigrationDriver id=3000] Expected driver state BECOME_CONTROLLER but found INACTIVE. Not running this "
     "event BecomeZkControllerEvent.", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Recovering migration state", []),
    ("3.4.1", f"[KRaftMigrationDriver id=3000] Recovered migration state {MIGRATION_STATE}. ZK migration is PRE_MIGRATION.",
     []),
    *(("3.4.1", f"[KRaftMigrationDriver id=3000] {name} transitioned from {MIGRATION_STATE} to {MIGRATION_STATE}", [])
      for name in ("Recovery", "KRaftLeaderEvent is not active", "BecomeZkLeaderEvent", "Migrate metadata from Zk",
                   "Create topic orders", "Updating config resource ConfigResource(type=TOPIC, name='orders')")),
    *(("3.7.2", f"[KRaftMigrationDriver id=3000] {name}. Transitioned migration state from {MIGRATION_STATE} to "
       f"{MIGRATION_STATE}", []) for name in ("Became active migration driver", "Claiming ZK controller leadership",
                                              "Finished initial migration of ZK metadata to KRaft",
                                              "Recovering migration state from ZK", "Re-reading migration state")),
    ("3.5.0", f"[KRaftMigrationDriver id=3000] Updating ZK migration state after delta. Kept migration state as "
     f"{MIGRATION_STATE}", []),
    *(("3.9.2", f"[KRaftMigrationDriver id=3000] {name} in 1403825 ns. Transitioned migration state from {MIGRATION_STATE} "
       f"to {MIGRATION_STATE}", []) for name in ("Became inactive migration driver", "Claimed ZK controller leadership",
                                                 "Finished initial migration of ZK metadata to KRaft",
                                                 "Recovered migration state from ZK", "Updated migration state")),
    ("3.9.0", f"[KRaftMigrationDriver id=3000] Updated ZK migration state after snapshot in 98121 ns. Kept migration state "
     f"as {MIGRATION_STATE}", []),
    ("3.6.0", "[KRaftMigrationDriver id=3000] Initial migration of ZK metadata is not done.", []),
    ("3.9.2 real", "[KRaftMigrationDriver id=3000] Waiting for the metadata layer to begin the migration transaction", []),
    ("3.9.2 real", "[KRaftMigrationDriver id=3000] Finished waiting for the metadata layer to commit 3 migration records",
     []),
    ("3.5.0", "[KRaftMigrationDriver id=3000] Timed out while waiting for the metadata layer to commit migration record "
     "batch", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Received a fatal error while waiting for the metadata layer to complete the "
     "migration", []),
    ("3.9.2 real", "[QuorumController id=3000] Starting migration of ZooKeeper metadata to KRaft.", []),
    ("3.9.2 real", "[QuorumController id=3000] Cannot run write operation maybeFenceReplicas in pre-migration mode. "
     "Returning NOT_CONTROLLER.", []),
    ("3.6.0", "[QuorumController id=3000] Starting ZK Migration without metadata transactions enabled. This is not safe "
     "since a controller failover or processing error may lead to partially migrated metadata.", []),
    ("3.9.2 real", "[QuorumController id=3000] Completing migration of ZooKeeper metadata to KRaft.", []),
    ("3.9.2 real", "[QuorumController id=3000] Replayed a ZkMigrationStateRecord changing the migration state from "
     "PRE_MIGRATION to MIGRATION.", [{"fact": "zk_migration", "state": "MIGRATION"}]),
    ("3.5.0", "[KRaftMigrationDriver id=3000] Still waiting for all controller nodes ready to begin the migration. due "
     "to:Missing apiVersion from nodes: [3002]", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] Still waiting for all controller nodes ready to begin the migration. Not "
     "ready due to:The following controllers do not have a registration: [3001]", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Controller Quorum is ready for Zk to KRaft migration", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Controller Quorum is ready for Zk to KRaft migration. Now waiting for ZK "
     "brokers.", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Waiting for initial metadata publish before checking if Zk brokers are "
     "registered.", []),
    ("3.5.2", "[KRaftMigrationDriver id=3000] Waiting until we have received metadata before proceeding with migration", []),
    ("3.5.0", "[KRaftMigrationDriver id=3000] No brokers are known to KRaft, waiting for brokers to register.", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Still waiting for ZK brokers [1, 2] to register with KRaft.", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] Still waiting for ZK brokers [3] found in metadata to register with KRaft.",
     []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Zk brokers are registered and ready for migration", []),
    ("3.8.1", "[KRaftMigrationDriver id=3000] The controller's ZkMigrationState is NONE which means this cluster should not "
     "be migrated from ZooKeeper. This controller should not be configured with 'zookeeper.metadata.migration.enable' set "
     "to true. Will not proceed with a migration.", []),
    ("3.5.0", "[KRaftMigrationDriver id=3000] KRaft controller indicates a completed migration, but the migration driver is "
     "somehow active.", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Migration is in already progress, not waiting on ZK brokers.", []),
    ("3.9.0", "[KRaftMigrationDriver id=3000] Unable to claim leadership, will retry until we learn of a different KRaft "
     "leader", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Starting ZK migration", []),
    ("3.6.0", "[KRaftMigrationDriver id=3000] Migrating 12 records from ZK", []),
    # The migrated records at TRACE (MIGRATED_RECORD_LINES below).
    *((v, m, e) for v, m, e in MIGRATED_RECORD_LINES),
    ("3.5.2", "[KRaftMigrationDriver id=3000] Completed migration of metadata from Zookeeper to KRaft. A total of 12 "
     "metadata records were generated. The current metadata offset is now 431 with an epoch of 7. Saw 3 brokers in the "
     "migrated metadata [1, 2, 3].", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] Completed migration of metadata from ZooKeeper to KRaft. 12 records were "
     "generated in 54 ms across 1 batches. The average time spent waiting on a batch was 9.50 ms. The record types were "
     "{TOPIC_RECORD=2, PARTITION_RECORD=6, CONFIG_RECORD=4}. The current metadata offset is now 431 with an epoch of 7. "
     "Saw 3 brokers in the migrated metadata [1, 2, 3].", []),
    ("3.6.0", "[KRaftMigrationDriver id=3000] Could not start the migration", []),
    ("3.7.2", "[KRaftMigrationDriver id=3000] Aborting the metadata migration from ZooKeeper to KRaft. 4 records were "
     "generated in 12 ms across 1 batches. The average time spent waiting on a batch was 3.00 ms. The record types were "
     "{TOPIC_RECORD=1, PARTITION_RECORD=3}.", []),
    ("3.5.0", "[KRaftMigrationDriver id=3000] Performing a full metadata sync from KRaft to ZK.", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Ignoring image MetadataProvenance(lastContainedOffset=412, "
     "lastContainedEpoch=7, lastContainedLogTimeMs=1718000000000) which does not contain a superset of the metadata in "
     "ZK. Staying in SYNC_KRAFT_TO_ZK until a newer image is loaded", []),
    ("3.8.1", "[KRaftMigrationDriver id=3000] Made the following ZK writes when reconciling with KRaft state: "
     "{CreateTopic=1, UpdatePartitions=3}", []),
    ("3.5.2", "[KRaftMigrationDriver id=3000] Did not make any ZK writes when handling KRaft delta", []),
    ("3.9.1", "[KRaftMigrationDriver id=3000] Did not make any ZK writes when reconciling with KRaft state.", []),
    ("3.7.0", "[KRaftMigrationDriver id=3000] Sending RPCs to broker before moving to dual-write mode using at offset and "
     "epoch OffsetAndEpoch(offset=431, epoch=7)", []),
    ("3.6.0", "[KRaftMigrationDriver id=3000] Not sending metadata RPCs with current metadata image since does not contain "
     "the offset that was last written to ZK during the migration. Image offset OffsetAndEpoch(offset=400, epoch=7) is less "
     "than migration leadership state offset OffsetAndEpoch(offset=431, epoch=7)", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Ignoring using metadata image since migration leadership state is at a "
     "greater offset and epoch OffsetAndEpoch(offset=431, epoch=7)", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Sending RPCs to brokers for metadata delta.", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Sending incremental metadata RPCs to brokers for delta.", []),
    ("3.5.0", "[KRaftMigrationDriver id=3000] Not sending RPCs to brokers for metadata snapshot since no relevant metadata "
     "has changed", []),
    ("3.8.1", "[KRaftMigrationDriver id=3000] Received metadata delta, but the controller is not in dual-write mode. "
     "Ignoring the change to be replicated to Zookeeper", []),
    ("3.9.2", "[KRaftMigrationDriver id=3000] Received metadata delta with LeaderAndEpoch(leaderId=OptionalInt[3000], "
     "epoch=7), but the current leader and epoch is LeaderAndEpoch(leaderId=OptionalInt[3001], epoch=8).Ignoring this "
     "metadata update.", []),
    ("3.6.0", "[KRaftMigrationDriver id=3000] Encountered an empty MetadataImage while waiting for the first image to be "
     "published. Ignoring this image since it either does not include bootstrap records or it is a valid image for an "
     "older unsupported metadata version.", []),
    ("3.6.2", "[KRaftMigrationDriver id=3000] Ignoring delta MetadataProvenance(lastContainedOffset=412, "
     "lastContainedEpoch=7, lastContainedLogTimeMs=1718000000000) since the migration has not finished.", []),
    ("3.4.1", "[KRaftMigrationDriver id=3000] Ignoring snapshot MetadataProvenance(offset=400, epoch=7, "
     "lastContainedLogTimeMs=1718000000000) which contains metadata that has already been written to ZK.", []),
    ("3.9.2", "KRaft controller 3000 overwriting /controller to become the active controller with ZK epoch 6. The previous "
     "controller was 1.", []),
    ("3.4.1", "KRaft controller 3000 creating /controller to become the active controller with ZK epoch 1. There was no "
     "active controller.", []),
    ("3.9.2", "Successfully registered KRaft controller 3000 with ZK epoch 6",
     [{"event_type": "KRaftControllerRegistered", "controller_id": 3000, "controller_epoch": 6, "recording_broker": 3000}]),
    ("3.6.2", "The ephemeral node at /controller was created by another controller while trying to register KRaft "
     "controller 3000 with ZK epoch 6. KRaft controller was not registered.", []),
    ("3.5.2", "ZooKeeper had an error while trying to register KRaft controller 3000 with ZK epoch 6. KRaft controller was "
     "not registered.", []),
    ("3.7.2", f"Performing 2 migration update(s) with migrationState={MIGRATION_STATE}", []),
    ("3.4.1", "Could not find partition state in ZK for orders-0. Initializing this partition with ISR={1,2,3} and "
     "leaderEpoch=0.", []),
    ("3.6.2", "Found 1 pending topic deletions. These will be not migrated to KRaft. After the migration, the brokers will "
     "reconcile their logs with these pending topic deletions.", []),
    ("3.6.2", "Not migrating pending deleted topic: old-orders", []),
    ("3.5.2", "Skipping unknown client quota entity ClientQuotaEntity(entries={ip=10.0.0.1, user=alice})", []),
    ("3.5.2", "Recursively creating ZNode /config/topics and attempting to write ConfigResource(type=TOPIC, "
     "name='orders') configs a second time.", []),
    ("3.4.1", "Not updating ZK for ConfigResource(type=BROKER_LOGGER, name='1') since it is not a Broker or Topic entity.",
     []),
    ("3.6.2", "Did not delete ConfigResource(type=TOPIC, name='orders') since the node did not exist.", []),
]


@pytest.mark.parametrize("version, message, expected", CONTROLLER_LINES, ids=[f"{v}: {m[:60]}" for v, m, _ in CONTROLLER_LINES])
def test_controller_line(version, message, expected):
    matched = controller(message)
    assert matched is not None, message
    assert matched[1] == expected


CONTROLLER_NEAR_MISSES = [
    ("3.7.0", f"[QuorumController id=101] UNCLEAN partition change for orders with topic ID {TID}: leader: -1 -> 2"),
    ("3.7.0", "[QuorumController id=101] UNCLEAN partition change for orders-0 with topic ID"),
    ("3.7.0", "[QuorumController id=101] In the new epoch five, the leader is 100."),
    ("3.7.0", "[QuorumController id=101] Becoming the active controller"),
    ("4.3.1", "[QuorumController id=2] We were the leader in epoch 4, and are still the leader in the new epoch."),
    ("4.3.1", "[QuorumController id=1] Triggering unclean leader election for offline partition orders-0. (isr: [2])"),
    ("3.6.2", "[QuorumController id=1] Successfully loaded snapshot 1200-3."),
    ("3.6.0", f"[QuorumController id=101] Setting new leader for topicId {TID}, partition 0 to 2 using an unclean"),
    ("3.4.1", "[Controller 100] Created topic orders with topic ID"),
    ("4.3.1", "[QuorumController id=1] enterControlledShutdown[x]: changing 5 partition(s)"),
    ("4.3.1", "[QuorumController id=1] processExpiredBrokerHeartbeat: controller event queue overloaded. Timed out "
     "heartbeat from broker 3"),
    ("4.3.1", "[QuorumController id=1] someOtherOperation: event failed with NotControllerException in 3 microseconds."),
    ("4.3.1", "[QuorumController id=1] handleCommit[baseOffset=x]: event failed with NotControllerException in 3 microseconds."),
    ("4.3.1", "[QuorumController id=1] handleLoadSnapshot[snapshotId=(offset=1, epoch=2)]: event unable to start processing "
     "because of RejectedExecutionException (treated as TimeoutException)."),
    ("4.3.1", "[QuorumController id=1] Replayed partition assignment change PartitionChangeRecord(partitionId=0"),
    ("3.5.2", "[QuorumController id=101] createTopics: failed with TopicExistsException in"),
    ("3.6.2", "[QuorumController id=101] Performing controller activation. Something else happened."),
    ("3.6.0", "[QuorumController id=1] Replayed AbortTransactionRecord(reason=null) at offset 42."),
]


@pytest.mark.parametrize("version, message", CONTROLLER_NEAR_MISSES, ids=[f"{v}: {m[:60]}" for v, m in CONTROLLER_NEAR_MISSES])
def test_controller_near_miss_is_not_understood(version, message):
    assert controller(message) is None


# ------------------------------------------------------------------ the rows themselves

def _release_span(label: str) -> tuple[tuple, tuple]:
    """A fixture's label ("3.4.1", "3.6.x (real)", "4.x (trunk copy)") as the releases it may be."""
    release = label.split()[0]
    if release.endswith(".x"):
        base = parse_version(release[:-2])
        return base, base + (99,)
    return parse_version(release), parse_version(release)


@pytest.mark.parametrize("version, message", [(v, m) for v, m, _ in CONTROLLER_LINES],
                         ids=[f"{v}: {m[:60]}" for v, m, _ in CONTROLLER_LINES])
def test_controller_fixture_release_lies_in_its_row_range(version, message):
    """Each fixture follows the source of the release it names, so its row's first..last holds
    that release: the ranges decide which KRaft era a controller.log is replayed in."""
    row = controller(message)[0]
    low, high = _release_span(version)
    assert parse_version(row.first) <= high, (row.name, row.first)
    assert row.last is None or low <= parse_version(row.last), (row.name, row.last)


def test_every_controller_row_has_a_line():
    rows = {p.name for p in kraft_controller.PATTERNS + kraft_migration.PATTERNS + kraft_broker.PATTERNS}
    matched = {controller(m)[0].name for _, m, _ in CONTROLLER_LINES}
    assert rows <= matched, sorted(rows - matched)


def test_rows_are_well_formed():
    from schemas.events import EVENT_FIELD_NAMES, EVENT_TYPE_NAMES

    names = [p.name for p in KRAFT_PATTERNS]
    assert len(names) == len(set(names))
    for p in KRAFT_PATTERNS:
        assert p.first and p.source and p.regex.pattern
        assert not p.regex.pattern.startswith("^")     # .match() anchors the start already
    # every event any line above produced is a canonical event (plus topic_id)
    produced = [e for _, l, _ in DUMP_LINES for e in dump_events(l)]
    produced += [e for _, t, d, _ in PAYLOADS for e in dump_events(record(t, d))]
    produced += [e for _, m, _ in CONTROLLER_LINES for e in controller(m)[1]]
    for e in produced:
        if "event_type" in e:
            assert e["event_type"] in EVENT_TYPE_NAMES
            assert set(e) <= set(EVENT_FIELD_NAMES) | {"topic_id"}, e


# ------------------------------------------------------------------ metadata transactions

ABORTED = [
    ("none", [(1, "begin"), (9, "end")], []),
    ("begin, abort", [(1, "begin"), (5, "abort")], [(1, 5)]),
    ("copies from three nodes' dumps count once", [(1, "begin"), (5, "abort")] * 3, [(1, 5)]),
    ("in any order", [(20, "abort"), (9, "end"), (12, "begin"), (1, "begin")], [(12, 20)]),
    ("an abort with its begin before the input: from the input's start", [(7, "abort"), (9, "begin"), (15, "end")],
     [(-1, 7)]),
    ("an abort whose begin the input lacks: from the marker before", [(1, "begin"), (4, "end"), (9, "abort")], [(4, 9)]),
    ("several", [(1, "begin"), (3, "abort"), (6, "begin"), (8, "end"), (10, "begin"), (14, "abort")], [(1, 3), (10, 14)]),
    ("a transaction still open at the input's end: last, with no end", [(1, "begin"), (5, "abort"), (8, "begin")],
     [(1, 5), (8, None)]),
    ("open after one that ended", [(1, "begin"), (4, "end"), (6, "begin")] * 2, [(6, None)]),
    ("an end or abort last: none open", [(6, "begin"), (1, "begin"), (4, "end"), (9, "end")], []),
]


@pytest.mark.parametrize("case, markers, spans", ABORTED, ids=[c for c, _, _ in ABORTED])
def test_transaction_spans(case, markers, spans):
    assert transactions.transaction_spans(markers) == spans
