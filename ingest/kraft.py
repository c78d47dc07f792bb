"""KRaft: the `kafka-dump-log.sh --cluster-metadata-decoder` output of a `__cluster_metadata`
segment or snapshot (spec kafka-log-formats §4.1-4.2), the KRaft controller's own log
lines (§4.3-4.4) and the KRaft brokers' state-change.log lines (ReplicaManager.applyDelta).
Controller lines that copy a record the dump holds are understood without an event.

Dump lines have no log4j envelope: the caller hands each line as the whole body
(`ctx.file_kind == "kraft-dump"`, no prefix). The dump prints one line per batch
(`baseOffset: ...`) and, with --deep-iteration / --print-data-log / a decoder, one per record
(`| offset: ...`). Decoded records carry `payload: {"type": <MetadataRecordType>, "version": n,
"data": <the record's generated JSON>}`; `RECORDS` maps each record type to what the replay
gets from it. Tagged fields are written only when they differ from their default (generated
*JsonConverter.write), so an absent `leader` in a PARTITION_CHANGE_RECORD is -2 (no change).

Sources read (apache/kafka): core/src/main/scala/kafka/tools/DumpLogSegments.scala (a 3.3-3.7
copy and the 3.8+ copy with KRaftVersion/KRaftVoters), the 2026 Java port in tools/ (two
revisions), PR #11101 (2.8 record line) and #19729 (LEADER_CHANGE decoded, 2025), the 2.8
config/kraft/README.md dump; metadata/src/main/resources/common/metadata/*.json and the
generated PartitionChangeRecordJsonConverter; ReplicationControlManager, PartitionRegistration,
PartitionChangeBuilder, ClusterControlManager, QuorumController/OffsetControlManager (2.8-era to
trunk copies)."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern
from schemas.validate import load_json
from state_machine.partition import UNCLEAN_CONFIG
from state_machine.states import NO_LEADER_CHANGE

# LeaderRecoveryState.java: the byte values of PartitionRecord / PartitionChangeRecord.
LEADER_RECOVERY_STATES = {0: "RECOVERED", 1: "RECOVERING"}
NO_RECOVERY_CHANGE = -1          # PartitionChangeRecord.leaderRecoveryState default
# ConfigResource.Type ids in ConfigRecord.resourceType.
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
# BrokerRegistrationChangeRecord: fenced -1 = unfenced, 1 = fenced; inControlledShutdown 1.
UNFENCE, FENCE, IN_CONTROLLED_SHUTDOWN = -1, 1, 1


def _present(**fields) -> dict:
    """An event dict without the fields the record leaves out (None)."""
    return {k: v for k, v in fields.items() if v is not None}


def _brokers(event_type: str, broker: int) -> dict:
    return {"event_type": event_type, "brokers": [broker]}


# ---------------------------------------------------------------- metadata records

def _topic_record(d: dict) -> list:
    # TopicRecord.json: the only record that names a topic; partitions carry the id.
    return [{"fact": "topic_name", "topic_id": d["topicId"], "topic": d["name"]}]


def _partition_record(d: dict) -> list:
    # PartitionRecord.json; leaderRecoveryState (3.2+) is tagged, default 0 = RECOVERED.
    return [_present(event_type="PartitionRecord", topic_id=d["topicId"], partition=d["partitionId"],
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
    return [_present(event_type="PartitionChangeRecord", topic_id=d["topicId"], partition=d["partitionId"],
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
    return [_present(event_type="ConfigChange", topic=d["resourceName"] if d["resourceType"] == TOPIC_RESOURCE else None,
                     config_name=d["name"], config_value=d.get("value"))]


# KIP-868 metadata transactions (3.6+: bootstrap records, ZK migration). The records between a
# BeginTransactionRecord and its AbortTransactionRecord are undone (OffsetControlManager reverts
# to the offset before the Begin; brokers never publish them); a failed-over controller aborts the
# transaction its predecessor left open. The markers are facts: which records an abort undoes is
# known only once the whole log is read (`transaction_spans`).
TRANSACTION_BEGIN, TRANSACTION_END, TRANSACTION_ABORT = "begin", "end", "abort"


def _transaction(marker: str):
    return lambda d: [{"fact": "metadata_transaction", "marker": marker}]


def metadata_log_position(file: str, line: int, offset: int | None) -> tuple[str | None, int]:
    """(log, position) of a record for `transaction_spans`: (None, its offset) in the cluster's
    metadata log, shared by every node's dump; in a dump printed without offsets, (its file,
    its line)."""
    return (None, offset) if offset is not None else (file, line)


def transaction_spans(markers) -> list[tuple[int, int | None]]:
    """(after, before) of each aborted transaction of one metadata log: the records at positions
    strictly between are undone. `markers` are (position, marker) pairs, the position an offset
    (or, in a dump printed without record metadata, a line of one file); copies from several
    nodes' dumps count once. An abort undoes back to the marker before it (its Begin; where the
    input lacks the Begin, the End or Abort before that, or the start of the input: -1).
    Last, (its Begin, None) for a transaction still open at the input's end: its records are
    replayed (the active controller applies them at once), though a later input may abort it."""
    spans, previous = [], (-1, None)
    for position, marker in sorted(set(markers)):
        if marker == TRANSACTION_ABORT:
            spans.append((previous[0], position))
        previous = position, marker
    if previous[1] == TRANSACTION_BEGIN:
        spans.append((previous[0], None))
    return spans


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
    "CLEAR_ELR_RECORD": lambda d: [_present(event_type="ClearElrRecord", topic=d["topicName"] or None)],
    "BEGIN_TRANSACTION_RECORD": _transaction(TRANSACTION_BEGIN),
    "END_TRANSACTION_RECORD": _transaction(TRANSACTION_END),
    "ABORT_TRANSACTION_RECORD": _transaction(TRANSACTION_ABORT),
}


def _provenance(m: re.Match) -> dict:
    """source_offset and event_time_ms from the record line (absent with --skip-record-metadata)."""
    groups = m.groupdict()
    out = {}
    if groups.get("offset") is not None:
        out["source_offset"] = int(groups["offset"])
    if groups.get("ts") is not None and int(groups["ts"]) >= 0:   # -1 = RecordBatch.NO_TIMESTAMP
        out["event_time_ms"] = int(groups["ts"])
    return out


def _payload(m: re.Match, ctx: LineContext) -> list:
    build = RECORDS.get(m["rtype"])
    if build is None:
        return []                      # parsed only when the replay needs the record
    try:
        events = build(load_json(m["payload"])["data"])
    except (ValueError, KeyError, TypeError):
        return []                      # the regex guarantees the shape; a broken body carries nothing usable
    where = _provenance(m)
    # Events carry their record's offset; a transaction marker needs it to bound what it undoes.
    return [{**e, **where} if "event_type" in e or e.get("fact") == "metadata_transaction" else e for e in events]


def _batch(m: re.Match, ctx: LineContext) -> list:
    # partitionLeaderEpoch of a metadata batch is the Raft epoch of the quorum leader
    # that wrote it; the dump cannot say who that leader was (LEADER_CHANGE is opaque
    # until 4.1). Its timestamp is the dump's clock (FileParser orders by it).
    fact = {"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": None, "base_offset": int(m["base"])}
    if int(m["ts"]) >= 0:   # -1 = RecordBatch.NO_TIMESTAMP
        fact["event_time_ms"] = int(m["ts"])
    return [fact]


def _leader_change(m: re.Match, ctx: LineContext) -> list:
    # LeaderChangeMessage.json. Its epoch is the partitionLeaderEpoch of the batch line
    # just before it.
    try:
        leader = load_json(m["json"])["leaderId"]
    except (ValueError, KeyError, TypeError):
        return []
    return [{"fact": "raft_epoch", "epoch": None, "leader": leader, "offset": int(m["offset"])}]


def _nothing(m: re.Match, ctx: LineContext) -> list:
    return []


# ---------------------------------------------------------------- KRaft controller log lines

_DIFF_LEADER = re.compile(r"(?:^|, )leader: -?\d+ -> (-?\d+)(?:,|$)")


def _recorded_by(ctx: LineContext) -> dict:
    return {} if ctx.prefix.broker is None else {"recording_broker": ctx.prefix.broker}


def _unclean_partition_change(m: re.Match, ctx: LineContext) -> list:
    # PartitionRegistration.maybeLogPartitionChange: the new leader is not in the previous
    # ISR. This line, not PartitionChangeBuilder's "Setting new leader ... using an unclean
    # election" (3.6+), is the event: every KRaft release writes it, when the
    # PARTITION_CHANGE_RECORD is replayed (the moment it takes effect), and it names the
    # topic. tryElection logs its line on the active controller while building that same
    # record, whose ISR it forces to [leader]; replaying it then always logs UNCLEAN too, so
    # reporting both would count one election twice. (Standby controllers replay and log
    # UNCLEAN as well, each in its own file, with its own id as recording_broker.)
    # Which changes log it (PartitionRegistration, sources jars): 3.0-3.9 a new leader outside
    # the previous ISR; 4.0 the same, but a leader from the ELR is clean; 4.1+ every change
    # that leaves the partition RECOVERING (a later change of a RECOVERING partition logs it
    # again: the replay recognises those). 2.8 has no such line.
    new_leader = _DIFF_LEADER.search(m["diff"])
    if new_leader is None or int(new_leader[1]) < 0:
        return []          # leader unchanged or gone: not an election
    if "leaderRecoveryState: " in m["diff"] and "-> RECOVERING" not in m["diff"]:
        return []          # the change ends the recovery an earlier unclean election began
    topic, _, partition = m["tp"].rpartition("-")
    return [{"event_type": "UncleanElectionLogged", "topic": topic, "partition": int(partition),
             "leader": int(new_leader[1]), "detail": m["diff"], **_recorded_by(ctx)}]


def _topic_name(m: re.Match, ctx: LineContext) -> list:
    return [{"fact": "topic_name", "topic_id": m["tid"], "topic": m["topic"]}]


def _new_epoch(m: re.Match, ctx: LineContext) -> list:
    leader = m["leader"]        # QuorumController.leaderName: "(none)" when no leader
    return [{"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": None if leader == "(none)" else int(leader)}]


def _active_controller(m: re.Match, ctx: LineContext) -> list:
    # The line is written by the controller that just won the epoch: the prefix names it.
    return [{"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": ctx.prefix.broker}]


# ---------------------------------------------------------------- the catalogue rows

_TS = r"(?:CreateTime|LogAppendTime|NoTimestampType): (?P<ts>-?\d+)"
_HEADERS = r"sequence: -?\d+ headerKeys: \[[^\]]*\]"
# Record metadata: 3.0+ (PR #11101 restored the 2.7 shape) and 2.8.x, which repeated the
# batch fields on every record (isValid/crc printed by some 2.x builds only).
_RECORD_30 = r"\| offset: (?P<offset>\d+) " + _TS + r" keySize: -?\d+ valueSize: -?\d+ " + _HEADERS
_RECORD_28 = (r"\| offset: (?P<offset>\d+)(?: isValid: \w+ crc: \w+)? keySize: -?\d+ valueSize: -?\d+ " + _TS +
              r" baseOffset: \d+ lastOffset: \d+ baseSequence: -?\d+ lastSequence: -?\d+ producerEpoch: -?\d+"
              r" partitionLeaderEpoch: -?\d+ batchSize: \d+ magic: \d+ compressType: \w+ position: \d+ " + _HEADERS)
# The decoder's JSON: ObjectNode keeps insertion order (type, version, data). A line cut
# short does not end in "}}" and is left unmatched. "payload: Error at N, skipping. ..."
# (undecodable record) is not JSON and is left unmatched too, so it is quarantined.
_PAYLOAD = r"payload: (?P<payload>\{\"type\":\"(?P<rtype>[A-Z_]+)\",\"version\":\d+,\"data\":\{.*\}\})$"
_CONTROL_TYPE = r" controlType: [A-Z_]+\(-?\d+\)$"
_DUMP_SOURCE = "DumpLogSegments.scala"


def _row(name, source, first, last, keyword, regex, build) -> MessagePattern:
    return MessagePattern(name, source, first, last, keyword, re.compile(regex), build)


DUMP_PATTERNS: tuple[MessagePattern, ...] = (
    # Record lines first: they are most of a dump.
    _row("kraft.dump.record.payload", f"{_DUMP_SOURCE} @3.0.0.. (--cluster-metadata-decoder)", "3.0.0", None,
         "|", _RECORD_30 + " " + _PAYLOAD, _payload),
    _row("kraft.dump.record.no_payload", f"{_DUMP_SOURCE} @3.0.0.. (--deep-iteration without --print-data-log)",
         "3.0.0", None, "|", _RECORD_30 + "$", _nothing),
    _row("kraft.dump.record.control_type", f"{_DUMP_SOURCE} @3.0.0.. (LEADER_CHANGE undecoded until 4.0.x)",
         "3.0.0", None, "|", _RECORD_30 + _CONTROL_TYPE, _nothing),
    _row("kraft.dump.record.snapshot_header", f"{_DUMP_SOURCE} @3.3.0..", "3.3.0", None,
         "|", _RECORD_30 + r" SnapshotHeader \{.*\}$", _nothing),
    _row("kraft.dump.record.snapshot_footer", f"{_DUMP_SOURCE} @3.3.0..", "3.3.0", None,
         "|", _RECORD_30 + r" SnapshotFooter \{.*\}$", _nothing),
    _row("kraft.dump.record.kraft_version", f"{_DUMP_SOURCE} @3.8.0..", "3.8.0", None,
         "|", _RECORD_30 + r" KRaftVersion \{.*\}$", _nothing),
    _row("kraft.dump.record.kraft_voters", f"{_DUMP_SOURCE} @3.8.0..", "3.8.0", None,
         "|", _RECORD_30 + r" KRaftVoters \{.*\}$", _nothing),
    _row("kraft.dump.record.leader_change", f"{_DUMP_SOURCE} @4.1.0.. (KAFKA-19069, PR #19729)", "4.1.0", None,
         "|", _RECORD_30 + r" LeaderChange: (?P<json>\{.*\})$", _leader_change),
    _row("kraft.dump.record28.payload", f"{_DUMP_SOURCE} @2.8.0..@2.8.2 (record line repeats the batch)", "2.8.0", "2.8.2",
         "|", _RECORD_28 + " " + _PAYLOAD, _payload),
    _row("kraft.dump.record28.no_payload", f"{_DUMP_SOURCE} @2.8.0..@2.8.2", "2.8.0", "2.8.2",
         "|", _RECORD_28 + "$", _nothing),
    _row("kraft.dump.record28.control_type", f"{_DUMP_SOURCE} @2.8.0..@2.8.2", "2.8.0", "2.8.2",
         "|", _RECORD_28 + _CONTROL_TYPE, _nothing),
    # --skip-record-metadata: the Scala tool prints " payload: ..." (a leading space; the
    # keyword is then ""), the 2026 Java port "| payload: ...". "payload:" is the same
    # line with its leading space lost (pastes, stripping callers).
    _row("kraft.dump.skip_metadata.payload", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata)", "2.8.0", None,
         "", " " + _PAYLOAD, _payload),
    _row("kraft.dump.skip_metadata.payload_stripped", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata, leading space lost)",
         "2.8.0", None, "payload:", _PAYLOAD, _payload),
    _row("kraft.dump.skip_metadata.payload_java", "tools/.../DumpLogSegments.java trunk 2026 (after KAFKA-14579)", "4.3.0", None,
         "|", r"\| " + _PAYLOAD, _payload),
    # A control record under --skip-record-metadata prints an empty line.
    _row("kraft.dump.skip_metadata.control", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata)", "2.8.0", None,
         "", r"$", _nothing),
    _row("kraft.dump.batch", f"{_DUMP_SOURCE} printBatchLevel @2.8.0..@3.1.2", "2.8.0", "3.1.2", "baseOffset:",
         r"baseOffset: (?P<base>\d+) lastOffset: \d+ count: \d+ baseSequence: -?\d+ lastSequence: -?\d+"
         r" producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: (?P<epoch>-?\d+) isTransactional: (?:true|false)"
         r" isControl: (?:true|false) position: \d+ " + _TS + r" size: \d+ magic: \d+ compresscodec: \w+ crc: \d+"
         r" isvalid: (?:true|false)$", _batch),
    _row("kraft.dump.batch.delete_horizon", f"{_DUMP_SOURCE} printBatchLevel @3.2.0..", "3.2.0", None, "baseOffset:",
         r"baseOffset: (?P<base>\d+) lastOffset: \d+ count: \d+ baseSequence: -?\d+ lastSequence: -?\d+"
         r" producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: (?P<epoch>-?\d+) isTransactional: (?:true|false)"
         r" isControl: (?:true|false) deleteHorizonMs: \S+ position: \d+ " + _TS + r" size: \d+ magic: \d+"
         r" compresscodec: \w+ crc: \d+ isvalid: (?:true|false)$", _batch),
    _row("kraft.dump.file", f"{_DUMP_SOURCE} main", "2.8.0", None, "Dumping", r"Dumping \S.*$", _nothing),
    _row("kraft.dump.starting_offset", f"{_DUMP_SOURCE} dumpLog @2.8.0..@3.2.3", "2.8.0", "3.2.3", "Starting",
         r"Starting offset: \d+$", _nothing),
    _row("kraft.dump.log_starting_offset", f"{_DUMP_SOURCE} dumpLog @3.3.0..", "3.3.0", None, "Log",
         r"Log starting offset: \d+$", _nothing),
    _row("kraft.dump.snapshot", f"{_DUMP_SOURCE} dumpLog @3.3.0.. (KAFKA-13845)", "3.3.0", None, "Snapshot",
         r"Snapshot end offset: \d+, epoch: \d+$", _nothing),
    _row("kraft.dump.bootstrap_snapshot", f"{_DUMP_SOURCE} dumpLog @3.3.0.. (bootstrap.checkpoint)", "3.3.0", None,
         "KRaft", r"KRaft bootstrap snapshot$", _nothing),
    _row("kraft.dump.trailing_bytes", f"{_DUMP_SOURCE} dumpLog", "2.8.0", None, "Found",
         r"Found \d+ invalid bytes at the end of \S.*$", _nothing),
)

# The KRaft controller's own lines: their ranges are the cluster's release (ingest.detect).
CONTROLLER_ROW_PREFIX = "kraft.controller."

_RCM = "ReplicationControlManager.java"
_QC = "QuorumController.java"
_CCM = "ClusterControlManager.java"
# "t-0 with topic ID <id>": ReplicationControlManager's partition description.
_TP = r"(?P<tp>\S+-\d+) with topic ID (?P<tid>\S+)"
# A snapshot id: kafka-raft's OffsetAndEpoch class up to 4.0, server-common's record from 4.1.
_SNAPSHOT_ID = r"OffsetAndEpoch[(\[]offset=\d+, epoch=\d+[)\]]"
# Its file name (Snapshots.filenameFromSnapshotId: offset and epoch, zero-padded).
_SNAPSHOT_FILE = r"\d{20}-\d{10}"
# ReplicationControlManager.logPartitionInfo (4.3.0..), appended to the periodic unclean election's lines.
_PARTITION_INFO = r"\(isr: \[[\d, ]*\], replicaSet: \[[\d, ]*\], partitionEpoch: \d+, leaderEpoch: -?\d+\)"

CONTROLLER_PATTERNS: tuple[MessagePattern, ...] = (
    _row("kraft.controller.unclean_partition_change", "PartitionRegistration.maybeLogPartitionChange INFO @3.0.2..",
         "3.0.0", None, "UNCLEAN", r"UNCLEAN partition change for " + _TP + r": (?P<diff>.+)$", _unclean_partition_change),
    _row("kraft.controller.partition_change", "PartitionRegistration.maybeLogPartitionChange DEBUG @3.0.2..",
         "3.0.0", None, "partition", r"partition change for " + _TP + r": .+$", _nothing),
    _row("kraft.controller.unclean_election", "PartitionChangeBuilder.tryElection INFO @3.6.0.. "
         "(later releases append '. Previous partition: {}, change record: {}')", "3.6.0", None, "Setting",
         r"Setting new leader for topicId \S+, partition \d+ to -?\d+ using an unclean election(?:$|\. Previous partition: )",
         _nothing),
    _row("kraft.controller.clean_election", "PartitionChangeBuilder.tryElection TRACE (ELR: @3.7.0.., INFO later)", "3.6.0", None,
         "Setting", r"Setting new leader for topicId \S+, partition \d+ to -?\d+ using (?:a clean election$|ELR(?:$|\. Previous partition: ))",
         _nothing),
    _row("kraft.controller.created_topic_28", f"{_RCM} replay(TopicRecord) @2.8.2", "2.8.0", "2.8.2", "Created",
         r"Created topic (?P<topic>\S+) with ID (?P<tid>\S+)\.$", _topic_name),
    _row("kraft.controller.created_partition_28", f"{_RCM} replay(PartitionRecord, PartitionChangeRecord) @2.8.2",
         "2.8.0", "2.8.2", "Created", r"Created partition \S+:\d+ with PartitionControlInfo\(.*\)\.$", _nothing),
    _row("kraft.controller.modified_partition_28", f"{_RCM} replay(PartitionChangeRecord) @2.8.2", "2.8.0", "2.8.2",
         "Modified", r"Modified partition \S+:\d+: .*\.$", _nothing),
    _row("kraft.controller.created_topic", f"{_RCM} replay(TopicRecord) @3.0.2..@3.5.2", "3.0.0", "3.5.2", "Created",
         r"Created topic (?P<topic>\S+) with topic ID (?P<tid>\S+)\.$", _topic_name),
    _row("kraft.controller.replayed_topic", f"{_RCM} replay(TopicRecord) @3.6.0..", "3.6.0", None, "Replayed",
         r"Replayed TopicRecord for topic (?P<topic>\S+) with topic ID (?P<tid>\S+)\.$", _topic_name),
    _row("kraft.controller.created_partition", f"{_RCM} replay(PartitionRecord) @3.0.2..@3.5.2", "3.0.0", "3.5.2", "Created",
         r"Created partition " + _TP + r" and Partition(?:ControlInfo|Registration)\(.*\)\.$", _nothing),
    _row("kraft.controller.replayed_partition", f"{_RCM} replay(PartitionRecord) @3.6.0..", "3.6.0", None, "Replayed",
         r"Replayed PartitionRecord for (?:new|existing) partition " + _TP + r" and PartitionRegistration\(.*\)\.$", _nothing),
    _row("kraft.controller.removed_topic", f"{_RCM} replay(RemoveTopicRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2", "Removed",
         r"Removed topic \S+ with ID \S+\.$", _nothing),
    _row("kraft.controller.replayed_remove_topic", f"{_RCM} replay(RemoveTopicRecord) @3.6.0..", "3.6.0", None, "Replayed",
         r"Replayed RemoveTopicRecord for topic \S+ with ID \S+\.$", _nothing),
    _row("kraft.controller.fencing_broker", f"{_RCM} maybeFenceStaleBroker(s) @2.8.2..@3.9.2", "2.8.0", "3.9.2", "Fencing",
         r"Fencing broker \d+ because its session has timed out\.$", _nothing),
    _row("kraft.controller.handle_broker_fenced", f"{_RCM} generateLeaderAndIsrUpdates @3.0.0..", "3.0.0", None,
         "handleBrokerFenced:", r"handleBrokerFenced: changing \d+ partition\(s\)$", _nothing),
    _row("kraft.controller.handle_broker_unfenced", f"{_RCM} generateLeaderAndIsrUpdates @3.0.0..", "3.0.0", None,
         "handleBrokerUnfenced:", r"handleBrokerUnfenced: changing \d+ partition\(s\)$", _nothing),
    # The same sentence from the other callers of generateLeaderAndIsrUpdates (sources jars).
    *(_row(f"kraft.controller.{name}", f"{_RCM} generateLeaderAndIsrUpdates @{first}..", first, None, f"{context}:",
           rf"{context}: changing \d+ partition\(s\)$", _nothing)
      for name, context, first in (("handle_broker_unregistered", "handleBrokerUnregistered", "3.0.0"),
                                   ("offline_dir_assignment", "offline-dir-assignment", "3.7.0"),
                                   ("handle_broker_unclean_shutdown", "handleBrokerUncleanShutdown", "3.9.0"),
                                   ("handle_broker_shutdown", "handleBrokerShutdown", "4.0.0"))),
    _row("kraft.controller.registered_broker", f"{_CCM} replay(RegisterBrokerRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2",
         "Registered", r"Registered new broker: RegisterBrokerRecord\(.*\)$", _nothing),
    _row("kraft.controller.re_registered_broker", f"{_CCM} replay(RegisterBrokerRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2",
         "Re-registered", r"Re-registered broker (?:incarnation|id \d+): RegisterBrokerRecord\(.*\)$", _nothing),
    _row("kraft.controller.replayed_register_broker", f"{_CCM} replay(RegisterBrokerRecord) @3.6.0..", "3.6.0", None,
         "Replayed", r"Replayed (?:initial RegisterBrokerRecord for broker \d+|RegisterBrokerRecord modifying the registration"
         r" for broker \d+|RegisterBrokerRecord establishing a new incarnation of broker \d+): RegisterBrokerRecord\(.*\)$",
         _nothing),
    _row("kraft.controller.unfenced_broker", f"{_CCM} replay(UnfenceBrokerRecord) @2.8.2..@3.3.1", "2.8.0", "3.3.1",
         "Unfenced", r"Unfenced broker: \S.*$", _nothing),
    _row("kraft.controller.unfenced_broker_shutdown", "BrokerHeartbeatManager.calculateNextBrokerState @2.8.2..", "2.8.0", None,
         "Unfenced", r"Unfenced broker \d+ has requested and been granted .+$", _nothing),
    # A fenced broker shutting down: the controller lets it go at once (it leads nothing).
    _row("kraft.controller.fenced_broker_shutdown", "BrokerHeartbeatManager.calculateNextBrokerState @2.8.2..", "2.8.0", None,
         "Fenced", r"Fenced broker \d+ has requested and been granted an immediate shutdown\.$", _nothing),
    _row("kraft.controller.unknown_feature", f"{_CCM} replay(RegisterBrokerRecord) WARN @3.3.2..@3.8.1 (not @3.9.2)",
         "3.3.0", "3.8.1", "Broker", r"Broker \d+ registered with feature \S+ that is unknown to the controller$", _nothing),
    # A leader's ISR change the controller refused changes nothing (the ISR changes it accepts are
    # the dump's PARTITION_CHANGE_RECORDs). Every form of 2.8.2-4.3.1, DEBUG to ERROR: alterIsr until
    # 3.1, AlterPartition from 3.2 (3.2's "unlcean" typo); 3.3 adds "or name"; 4.3 drops the ISRs
    # and appends the partition's state.
    _row("kraft.controller.alter_partition_rejected", f"{_RCM} alterPartition / validateAlterPartitionData @2.8.2..",
         "2.8.0", None, "Rejecting",
         r"Rejecting (?:alterIsr|AlterPartition) request (?:for unknown topic ID \S+(?: or name \S+)?"
         r"|for unknown partition \S+-\d+|from node \d+ for \S+-\d+ because (?:the current (?:leader|partition) epoch is "
         r"-?\d+, (?:not -?\d+|which is (?:greater than the local|lower than the request) value -?\d+)"
         r"|the current leader is -?\d+|it specified an invalid ISR(?: \[.*?\])?(?: that doesn't include itself)?"
         r"|the ISR (?:\[.*?\] )?had more than one replica while the leader was still recovering from an un(?:cl|lc)ean "
         r"leader election \S+|the leader recovery state cannot change from RECOVERED to RECOVERING"
         r"|it specified ineligible replicas \[.*?\] in the new ISR(?: \[.*?\])?))\.(?: .*)?$", _nothing),
    _row("kraft.controller.new_epoch", f"{_QC} / OffsetControlManager handleLeaderChange @3.3.0..", "3.3.0", None, "In",
         r"In the new epoch (?P<epoch>\d+), the leader is (?P<leader>\d+|\(none\))\.$", _new_epoch),
    # A Raft election the active controller won again: its claim moves to the new epoch.
    _row("kraft.controller.still_leader", f"{_QC} handleLeaderChange WARN @3.3.0..", "3.3.0", None, "We",
         r"We were the leader in epoch \d+, and are still the leader in the new epoch (?P<epoch>\d+)\.$", _active_controller),
    _row("kraft.controller.becoming_active", f"{_QC} / OffsetControlManager handleLeaderChange @3.0.0.. (tail varies)",
         "3.0.0", None, "Becoming", r"Becoming the active controller at epoch (?P<epoch>\d+)[,.]", _active_controller),
    _row("kraft.controller.becoming_active_28", f"{_QC} handleClaim @2.8.0..@2.8.2", "2.8.0", "2.8.2", "Becoming",
         r"Becoming active at controller epoch (?P<epoch>\d+)\.$", _active_controller),
    _row("kraft.controller.renouncing", f"{_QC} handleRenounce / handleLeaderChange @2.8.0..", "2.8.0", None, "Renouncing",
         r"Renouncing the leadership (?:at oldEpoch \d+ due to a metadata log event|due to a metadata log event\."
         r" We were the leader at epoch \d+, but in the new epoch \d+, the leader is (?:\d+|\(none\)))\."
         r" Reverting to last (?:committed|stable) offset -?\d+\.$", _nothing),
    # 3.9's two periodic elections (4.0 logs them as periodic tasks); their records are in the dump.
    *(_row(f"kraft.controller.{name}_generated", f"{_QC} {task} @3.9.0..@3.9.2", "3.9.0", "3.9.2", f"{task}:",
           rf"{task}: generated \d+ records in \d+ microseconds\.(?: Rescheduling immediately\.)?$", _nothing)
      for name, task in (("unclean_leaders", "maybeElectUncleanLeaders"),
                         ("balance_leaders", "maybeBalancePartitionLeaders"))),   # the auto leader rebalance
    _row("kraft.controller.triggering_unclean", f"{_RCM} ERROR @3.9.0..@3.9.2, INFO @4.0.0.. (4.3.0 appends the partition)",
         "3.9.0", None, "Triggering",
         r"Triggering unclean leader election for offline partition \S+-\d+\.(?: " + _PARTITION_INFO + ")?$", _nothing),
    _row("kraft.controller.cannot_trigger_unclean", f"{_RCM} WARN @3.9.0..", "3.9.0", None, "Cannot",
         r"Cannot trigger unclean leader election for offline partition \S+-\d+: .+$", _nothing),
    _row("kraft.controller.unclean_disabled", f"{_RCM} DEBUG @3.9.0..", "3.9.0", None, "Cannot",
         r"Cannot trigger unclean leader election for offline partition \S+-\d+ because unclean leader election is "
         r"disabled for this topic\.(?: " + _PARTITION_INFO + ")?$", _nothing),
)

# Lines of the KRaft controller that copy, or only announce, what the metadata log holds: the
# dump carries the records themselves (BROKER_REGISTRATION_CHANGE_RECORD, CONFIG_RECORD,
# PARTITION_CHANGE_RECORD, ...), so each is understood and carries no event; an event here would
# replay the same record twice (once per quorum member that logs it, too).
_CONFIG = "ConfigurationControlManager.java"
_FEATURES = "FeatureControlManager.java"
_PERIODIC = "PeriodicTaskControlManager.java"
_HEARTBEAT = "BrokerHeartbeatManager.java"
_PERF = "EventPerformanceMonitor.java"

# ActivationRecordsGenerator (3.6.0..) builds its one line from these sentences, as they apply.
_ACTIVATION_SENTENCES = (
    r"Aborting partial bootstrap records transaction at offset \d+\. Re-appending \d+ bootstrap record\(s\) in new "
    r"metadata transaction at metadata\.version \S+ from bootstrap source '.*?'\.",
    r"The metadata log appears to be empty\. Appending \d+ bootstrap record\(s\) (?:in metadata transaction )?at "
    r"metadata\.version \S+ from bootstrap source '.*?'\.",
    r"Aborting in-progress metadata transaction at offset \d+\.",
    r"No metadata\.version feature level record was found in the log\. Treating the log as version \S+\.",
    r"Loaded ZK migration state of \w+\.",
    r"This is expected because this is a de-novo KRaft cluster\.",
    r"Putting the controller into pre-migration mode\. No metadata updates will be allowed until the ZK metadata has "
    r"been migrated\.",
    r"Setting the ZK migration state to NONE since this is a de-novo KRaft cluster\.",
    r"Activating pre-migration controller without empty log\. There may be a partial migration\.",
    r"Completing the ZK migration since this controller was configured with 'zookeeper\.metadata\.migration\.enable' "
    r"set to 'false'\.",
    r"Staying in ZK migration mode since 'zookeeper\.metadata\.migration\.enable' is still 'true'\.",
    r"Ignoring 'zookeeper\.metadata\.migration\.enable' value of 'true' since the ZK migration has been completed\.",
)

REPLAY_COPY_PATTERNS: tuple[MessagePattern, ...] = (
    _row("kraft.controller.replayed_registration_change", f"{_CCM} replayRegistrationChange @3.6.0.. (4.3.1 real)", "3.6.0",
         None, "Replayed", r"Replayed (?:BrokerRegistrationChangeRecord|FenceBrokerRecord|UnfenceBrokerRecord) modifying the "
         r"registration for broker \d+: \w+\(.*\)$", _nothing),
    _row("kraft.controller.replayed_register_controller", f"{_CCM} replay(RegisterControllerRecord) @3.7.0.. (KIP-919; "
         "3.7.0-3.9.2 spell it `contaning`)", "3.7.0", None, "Replayed",
         r"Replayed RegisterControllerRecord conta(?:i)?ning ControllerRegistration\(.*\)\."
         r"(?: Previous incarnation was \S+)?$", _nothing),
    _row("kraft.controller.unregistered_broker", f"{_CCM} replay(UnregisterBrokerRecord) @2.8.2..@3.5.2", "2.8.0", "3.5.2",
         "Unregistered", r"Unregistered broker: UnregisterBrokerRecord\(.*\)$", _nothing),
    _row("kraft.controller.replayed_unregister_broker", f"{_CCM} replay(UnregisterBrokerRecord) @3.6.0..", "3.6.0", None,
         "Replayed", r"Replayed UnregisterBrokerRecord\(.*\)$", _nothing),
    _row("kraft.controller.no_op_registration", f"{_CCM} replayRegistrationChange @3.3.0..", "3.3.0", None, "Ignoring",
         r"Ignoring no-op registration change for BrokerRegistration\(.*\)$", _nothing),
    _row("kraft.controller.replayed_config", f"{_CONFIG} replay(ConfigRecord) @3.6.0.. "
         "(sensitive values print [hidden])", "3.6.0", None, "Replayed",
         r"Replayed ConfigRecord for ConfigResource\(type=\w+, name='[^']*'\) which (?:set configuration \S+ to .*"
         r"|removed configuration \S+)$", _nothing),
    # 2.8-3.5: `ConfigResource(type=TOPIC, name='t'): set configuration k to v` (null: removed).
    *(_row(f"kraft.controller.set_configuration.{kind.lower()}", f"{_CONFIG} replay(ConfigRecord) @2.8.2..@3.5.2", "2.8.0",
           "3.5.2", f"ConfigResource(type={kind},", rf"ConfigResource\(type={kind}, name='[^']*'\): set configuration \S+ to .*$",
           _nothing)
      for kind in ("TOPIC", "BROKER")),
    # 3.6-3.x print "metadata version", later releases "metadata.version".
    _row("kraft.controller.replayed_feature_level", f"{_FEATURES} replay(FeatureLevelRecord) @3.6.0..", "3.6.0", None, "Replayed",
         r"Replayed a FeatureLevelRecord (?:setting metadata[. ]version to \S+|setting feature \S+ to \d+"
         r"|removing feature \S+)$", _nothing),
    # 3.3-3.5 word the same replay otherwise (3.5: "metadata version"); 3.5 adds its ZK migration state.
    _row("kraft.controller.setting_feature_33", f"{_FEATURES} replay(FeatureLevelRecord) @3.3.2..@3.5.2", "3.3.0", "3.5.2",
         "Setting", r"Setting (?:metadata[. ]version to \S+|feature \S+ to \d+)$", _nothing),
    _row("kraft.controller.removing_feature_33", f"{_FEATURES} replay(FeatureLevelRecord) @3.3.2..@3.5.2", "3.3.0", "3.5.2",
         "Removing", r"Removing feature \S+$", _nothing),
    _row("kraft.controller.zk_migration_state_35", f"{_FEATURES} replay(ZkMigrationStateRecord) @3.5.2", "3.5.0", "3.5.2",
         "Transitioning", r"Transitioning ZK migration state from \w+ to \w+$", _nothing),
    # An admin's feature update (kafka-features), checked before its FeatureLevelRecord is written.
    _row("kraft.controller.metadata_version_upgrade", f"{_FEATURES} updateMetadataVersion @3.3.2.. (WARN from 3.9.0)",
         "3.3.0", None, "Upgrading", r"Upgrading metadata\.version from \S+ to \S+\.$", _nothing),
    _row("kraft.controller.metadata_version_downgrade", f"{_FEATURES} updateMetadataVersion @3.3.2.. (WARN from 3.9.0)",
         "3.3.0", None, "Downgrading", r"Downgrading metadata\.version from \S+ to \S+\.$", _nothing),
    _row("kraft.controller.verified_feature_support", f"{_FEATURES} updateFeature @3.7.0..", "3.7.0", None, "Verified",
         r"Verified that \d+ broker\(s\) and \d+ controller\(s\) supported changing \S+ to feature level \d+\..*$",
         _nothing),
    # 3.5's QuorumController on the ZK migration, each line its own (3.6 folds them into the
    # activation line, _ACTIVATION_SENTENCES); a KRaft-born cluster writes the first at activation.
    *(_row(f"kraft.controller.zk_migration_35.{word.lower()}", f"{_QC} @3.5.2", "3.5.0", "3.5.2", word, regex, _nothing)
      for word, regex in (
          ("Loaded", r"Loaded ZK migration state of \w+$"),
          ("Starting", r"Starting ZK Migration$"),
          ("Completing", r"Completing ZK Migration$|Completing the ZK migration since this controller was configured with "
                         r"'zookeeper\.metadata\.migration\.enable' set to 'false'\.$"),
          ("Putting", r"Putting the controller into pre-migration mode\. No metadata updates will be allowed until the ZK "
                      r"metadata has been migrated$"),
          ("Setting", r"Setting the ZK migration state to NONE since this is a de-novo KRaft cluster\.$"),
          ("Activating", r"Activating pre-migration controller without empty log\. There may be a partial migration$"),
          ("Staying", r"Staying in the ZK migration since 'zookeeper\.metadata\.migration\.enable' is still 'true'\.$"),
          # sic: "migrationhas"
          ("Ignoring", r"Ignoring 'zookeeper\.metadata\.migration\.enable' value of 'true' since the ZK migrationhas been "
                       r"completed\.$"))),
    _row("kraft.controller.replayed_transaction", "OffsetControlManager.java replay(Begin/End/AbortTransactionRecord) @3.6.0.. "
         "(KIP-868)", "3.6.0", None, "Replayed",
         r"Replayed (?:(?:BeginTransactionRecord\(.*\)|EndTransactionRecord\(\)) at offset \d+\."
         r"|AbortTransactionRecord\(.*\) at offset \d+\. Reverted to offset -?\d+\.)$",
         _nothing),
    _row("kraft.controller.removed_elrs", f"{_RCM} replay(ClearElrRecord) @4.0.0..", "4.0.0", None, "Removed",
         r"Removed ELRs from \d+ partitions (?:of topic \S+|in all topics)\.$", _nothing),
    _row("kraft.controller.replaying_producer_ids", "ProducerIdControlManager.java replay(ProducerIdsRecord) @3.6.0..", "3.6.0",
         None, "Replaying", r"Replaying ProducerIdsRecord ProducerIdsRecord\(.*\)$", _nothing),
    # The reassignment's PARTITION_CHANGE_RECORD is in the dump (its addingReplicas/removingReplicas
    # are the reassignment in flight).
    _row("kraft.controller.replayed_assignment_change", f"{_RCM} replay(PartitionChangeRecord) @3.0.2.. (4.3.1 appends "
         "'. (<isr/replicaSet/epoch diff>)')", "3.0.0", None, "Replayed",
         r"Replayed partition assignment change PartitionChangeRecord\(.*\) for topic \S+?(?:\. \(.*\))?$", _nothing),
    _row("kraft.controller.reassignment_completed", f"{_RCM} alterPartition @3.2.3.. (a PARTITION_CHANGE_RECORD follows)",
         "3.2.0", None, "AlterPartition",
         r"AlterPartition request from node \d+ for \S+-\d+ completed the ongoing partition reassignment(?:\.(?: .*)?$| and "
         r"triggered a leadership change(?: .*)?\. Returning \w+\.$)", _nothing),
    _row("kraft.controller.reassignment_completed_alter_isr", f"{_RCM} alterIsr @3.0.2..@3.1.2 (the source spells "
         "`Reutrning`)", "3.0.0", "3.1.2", "AlterIsr",
         r"AlterIsr request from node \d+ for \S+-\d+ completed the ongoing partition reassignment(?:\.| and triggered a "
         r"leadership change\. Reutrning FENCED_LEADER_EPOCH\.)$", _nothing),
    _row("kraft.controller.altered_reassignments", f"{_RCM} alterPartitionReassignments @3.x..", "3.0.0", None, "Successfully",
         r"Successfully altered \d+ out of \d+ partition reassignment\(s\)\.$", _nothing),
    # Requests and their results: the TOPIC_RECORD / PARTITION_RECORD / REMOVE_TOPIC_RECORD
    # they produced are the events.
    _row("kraft.controller.create_topics_result", f"{_RCM} createTopics @2.8.2.. (`createTopics` to 3.0)", "2.8.0", None,
         "CreateTopics", r"[Cc]reateTopics result\(s\): .*$", _nothing),
    _row("kraft.controller.validate_only_create_topics", f"{_RCM} createTopics @3.1.2..", "3.1.0", None, "Validate-only",
         r"Validate-only CreateTopics result\(s\): .*$", _nothing),
    _row("kraft.controller.validate_only_create_partitions", f"{_QC} createPartitions DEBUG @3.2.3..", "3.2.0", None,
         "Validate-only", r"Validate-only CreatePartitions result\(s\): .*$", _nothing),
    # A reassignment the request asked for and the controller refused: nothing changes.
    _row("kraft.controller.reassignment_refused", f"{_RCM} alterPartitionReassignments @3.0.2..", "3.0.0", None, "Unable",
         r"Unable to alter partition reassignment for \S+:\d+ because of an \w+ error: .*$", _nothing),
    _row("kraft.controller.delete_topics_result", f"{_RCM} deleteTopics @4.0.0..", "4.0.0", None, "DeleteTopics",
         r"DeleteTopics result\(s\): .*$", _nothing),
    # Broker liveness decisions whose records (BROKER_REGISTRATION_CHANGE_RECORD fenced/unfenced,
    # inControlledShutdown) are in the dump.
    _row("kraft.controller.fencing_broker_epoch", f"{_RCM} maybeFenceOneStaleBroker @4.0.0.. (the broker epoch added)",
         "4.0.0", None, "Fencing",
         r"Fencing broker \d+ at epoch \d+ because its session has timed out\.$", _nothing),
    # The same check finding a tracker entry of a broker's earlier incarnation (it re-registered
    # before its session expired) or of an unregistered broker: nothing is fenced, no record.
    _row("kraft.controller.stale_heartbeat_tracker", f"{_RCM} maybeFenceOneStaleBroker @4.0.0..@4.3.1", "4.0.0", None,
         "Removing", r"Removing heartbeat tracker entry for (?:unknown broker \d+ at epoch \d+\."
         r"|broker \d+ at previous epoch \d+\. Current epoch is \d+)$", _nothing),
    # A heartbeat that waited too long in the controller's queue: the broker's session is kept
    # alive and nothing else changes, so no record is written (logged at ERROR).
    _row("kraft.controller.expired_heartbeat", f"{_RCM} processExpiredBrokerHeartbeat ERROR @3.5.0..", "3.5.0", None,
         "processExpiredBrokerHeartbeat:", r"processExpiredBrokerHeartbeat: controller event queue overloaded\. Timed out "
         r"heartbeat from broker \d+\.$", _nothing),
    _row("kraft.controller.enter_controlled_shutdown", f"{_RCM} enterControlledShutdown @3.x.. (keyword keyed `[%d]`)",
         "3.0.0", None, "enterControlledShutdown[%d]:",
         r"enterControlledShutdown\[\d+\]: changing \d+ partition\(s\)$", _nothing),
    _row("kraft.controller.unfence_granted", f"{_HEARTBEAT} calculateNextBrokerState @2.8.2.. (2.8-3.2: the last "
         "committed offset; 3.3-3.4 spell it `it's`)", "2.8.0", None, "The",
         r"The request from broker \d+ to unfence has been granted because it has caught up with the (?:offset of it'?s "
         r"register broker record|last committed metadata offset) \d+\.$", _nothing),
    _row("kraft.controller.shutdown_granted", f"{_HEARTBEAT} calculateNextBrokerState @3.0.0..", "3.0.0", None, "The",
         r"The request from broker \d+ to shut down has been granted since the lowest active offset \d+ is now greater "
         r"than the broker's controlled shutdown offset \d+\.$", _nothing),
    _row("kraft.controller.new_incarnation", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "No",
         r"No previous registration found for broker \d+\. New incarnation ID is \S+\.  Generated \d+ record\(s\) to "
         r"clean up previous incarnations\. New broker epoch is \d+\.$", _nothing),
    _row("kraft.controller.re_incarnation", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "Registering",
         r"Registering a new incarnation of broker \d+\. Previous incarnation ID was \S+; new incarnation ID is \S+\. "
         r"Generated \d+ record\(s\) to clean up previous incarnations\. Broker epoch will become \d+\.$", _nothing),
    # The same process registering again (its first request timed out, say): timing decides
    # whether a live run writes it.
    _row("kraft.controller.amended_registration", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "Amending",
         r"Amending registration of broker \d+, incarnation ID \S+\. Broker epoch remains \d+\.$", _nothing),
    # Controller lifecycle and housekeeping.
    _row("kraft.controller.created", f"{_QC} constructor @3.3.0..", "3.3.0", None, "Creating",
         r"Creating new QuorumController with clusterId \S+?(?:, authorizer .*?)?\.?(?: ZK migration mode is enabled\.)?"
         r"(?: Eligible leader replicas enabled\.)?$", _nothing),
    _row("kraft.controller.activation", "ActivationRecordsGenerator.java @3.6.0.. (WARN; the sentences it appends)", "3.6.0",
         None, "Performing", r"Performing controller activation\.(?: (?:" + "|".join(_ACTIVATION_SENTENCES) + r"))*$", _nothing),
    _row("kraft.controller.bootstrap_33", f"{_QC} generateActivationRecords @3.3.0..@3.5.2", "3.3.0", "3.5.2", "The",
         r"The metadata log appears to be empty\. Appending \d+ bootstrap record\(s\) at metadata\.version \S+ from .+\.$",
         _nothing),
    _row("kraft.controller.periodic_registering", f"{_PERIODIC} registerTask @4.0.0..", "4.0.0", None, "Registering",
         r"Registering periodic task \w+ to run every \d+ ms$", _nothing),
    _row("kraft.controller.periodic_activated", f"{_PERIODIC} activate @4.0.0..", "4.0.0", None, "Activated",
         r"Activated periodic tasks: .*$", _nothing),
    _row("kraft.controller.periodic_unregistering", f"{_PERIODIC} unregisterTask @4.0.0..", "4.0.0", None, "Unregistering",
         r"Unregistering periodic task \w+$", _nothing),
    _row("kraft.controller.periodic_deactivated", f"{_PERIODIC} deactivate @4.0.0..", "4.0.0", None, "Deactivated",
         r"Deactivated periodic tasks: .*$", _nothing),
    # INFO for the VERBOSE tasks (electPreferred, the auto leader rebalance; electUnclean; ...), DEBUG for the others.
    _row("kraft.controller.periodic_generated", f"{_PERIODIC} @4.0.0..", "4.0.0", None, "Periodic",
         r"Periodic task \w+ generated \d+ records in \d+ microseconds\.$", _nothing),
    # A controller loading a snapshot of the metadata log (a restart, or a standby fallen behind):
    # its records are in the snapshot's dump.
    _row("kraft.controller.snapshot_replay_30", f"{_QC} handleSnapshot @3.0.2..@3.4.1", "3.0.0", "3.4.1", "Starting",
         r"Starting to replay snapshot \(" + _SNAPSHOT_ID + r"\), from last commit offset \(-?\d+\) and epoch \(-?\d+\)$",
         _nothing),
    _row("kraft.controller.snapshot_replay_35", f"{_QC} handleLoadSnapshot @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Starting",
         r"Starting to replay snapshot " + _SNAPSHOT_FILE + r", from last commit offset -?\d+ and epoch -?\d+$", _nothing),
    _row("kraft.controller.snapshot_replayed_35", f"{_QC} handleLoadSnapshot @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Finished",
         r"Finished replaying snapshot " + _SNAPSHOT_FILE + "$", _nothing),
    _row("kraft.controller.snapshot_load", "OffsetControlManager.java beginLoadSnapshot @3.6.0..", "3.6.0", None, "Starting",
         r"Starting to load snapshot " + _SNAPSHOT_FILE + r"\. Previous lastCommittedOffset was -?\d+\. Previous "
         r"transactionStartOffset was -?\d+\.$", _nothing),
    _row("kraft.controller.snapshot_loaded", "OffsetControlManager.java endLoadSnapshot @3.6.0..", "3.6.0", None,
         "Successfully", r"Successfully loaded snapshot " + _SNAPSHOT_FILE + r"\.$", _nothing),
    # 3.0-3.3's controller writing a snapshot itself (every metadata.log.max.record.bytes.between.snapshots);
    # from 3.4 the metadata loader's SnapshotGenerator does, under org.apache.kafka.image.
    _row("kraft.controller.snapshot_generating", f"{_QC} maybeGenerateSnapshot @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Generating",
         r"Generating a snapshot that includes \(epoch=-?\d+, offset=-?\d+\) after \d+ committed bytes since the last "
         r"snapshot\.$", _nothing),
    _row("kraft.controller.snapshot_skipped", f"{_QC} SnapshotGeneratorManager @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Skipping",
         r"Skipping generation of snapshot for committed offset -?\d+ and epoch -?\d+ since it already exists$", _nothing),
    _row("kraft.controller.snapshot_generated", f"{_QC} SnapshotGeneratorManager @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Finished",
         r"Finished generating snapshot -?\d+\.$", _nothing),
    _row("kraft.controller.snapshot_cancelled", f"{_QC} SnapshotGeneratorManager ERROR @3.0.2..@3.3.2", "3.0.0", "3.3.2",
         "Cancelling", r"Cancelling snapshot -?\d+$", _nothing),
    _row("kraft.controller.snapshot_failed", f"{_QC} SnapshotGeneratorManager ERROR @3.0.2..@3.3.2 (a stack trace follows)",
         "3.0.0", "3.3.2", "Error", r"Error while generating snapshot -?\d+$", _nothing),
    _row("kraft.controller.snapshot_section", "SnapshotGenerator.java generateBatch @3.0.2..@3.3.2", "3.0.0", "3.3.2",
         "Generating", r"Generating records for the \w+ section of snapshot " + _SNAPSHOT_ID + r"\.$", _nothing),
    _row("kraft.controller.snapshot_section_done", "SnapshotGenerator.java generateBatch @3.0.2..@3.3.2", "3.0.0", "3.3.2",
         "Generated", r"Generated \d+ record\(s\) for the \w+ section of snapshot " + _SNAPSHOT_ID + r"\.$", _nothing),
    _row("kraft.controller.slow_event", f"{_PERF} @4.0.0.. (ERROR)", "4.0.0", None, "Exceptionally",
         r"Exceptionally slow controller event \S+ took \d+ ms\.$", _nothing),
    _row("kraft.controller.performance", f"{_PERF} @4.0.0..", "4.0.0", None, "In",
         r"In the last \d+ ms period, \d+ controller events were completed, which took an average of [\d.]+ ms each\. "
         r"The slowest event was \S+, which took [\d.]+ ms\.$", _nothing),
)

# EventHandlerExceptionInfo.failureMessage (3.6.0..): "<operation>: event failed with ...". The
# first word is the operation, so each operation is a row of its own (a failed operation
# changes nothing: its records, if any, were never committed). The events QuorumController
# names in 3.6.2-4.3.1 (sources jars): its periodic tasks, the requests it handles, and its
# activation ("completeActivation[<epoch>]", met failing on a real 3.7.2 controller that lost
# its election before anything was committed: "reverting to the last committed offset -1") and
# leader changes, whose names carry an epoch ("[%d]": catalog.keyword_of, _operation_regex), and
# the raft events named with their argument ("[baseOffset=%d]", "[snapshotId=%s]"): a controller
# shutting down with them queued rejects them ("event unable to start processing because of
# RejectedExecutionException"). Another operation's line is quarantined until it is added here.
_FAILED_OPERATIONS = ("writeNoOpRecord", "maybeFenceStaleBroker", "electUnclean", "electPreferred", "expireDelegationTokens",
                      "generatePeriodicPerformanceMessage", "processBrokerHeartbeat", "registerBroker", "alterPartition",
                      "assignReplicasToDirs", "completeActivation[%d]", "handleLeaderChange[%d]", "createDelegationToken",
                      "expireDelegationToken", "registerController", "renewDelegationToken", "setNewNextWriteOffset",
                      "waitForReadyBrokers", "handleCommit[baseOffset=%d]", "handleLoadSnapshot[snapshotId=%s]")
# QuorumController 2.8.2-3.5.2: the write and read events' names (appendWriteEvent / appendReadEvent)
# and its periodic ones.
_OPERATIONS_28 = ("allocateProducerIds", "alterClientQuotas", "alterPartition", "alterPartitionReassignments",
                  "alterUserScramCredentials", "createAcls", "createPartitions", "createTopics", "deleteAcls", "deleteTopics",
                  "describeConfigs", "electLeaders", "findAllTopicIds", "findTopicIds", "findTopicNames",
                  "getFinalizedFeatures", "incrementalAlterConfigs", "legacyAlterConfigs", "listPartitionReassignments",
                  "processBrokerHeartbeat", "registerBroker", "unregisterBroker", "updateFeatures", "maybeFenceReplicas",
                  "maybeBalancePartitionLeaders", "writeNoOpRecord", "generateSnapshot", "alterIsr",
                  # raft events named with an epoch: 3.0+ handleLeaderChange, 3.3+ completeActivation
                  # (met failing on a real 3.4.1 controller); with their argument, 3.0+
                  "handleLeaderChange[%d]", "completeActivation[%d]", "handleCommit[baseOffset=%d]",
                  "handleSnapshot[snapshotId=%s]")
# 2.8 only: handleClaim, handleCommits; 2.8-3.2: handleRenounce.
_RAFT_EVENTS_28 = ("handleClaim[%d]", "handleRenounce[%d]", "handleCommits[%d]")


def _operation_regex(op: str) -> str:
    """An operation's name as a regex: its "%d" (an epoch, an offset) matches any number, its
    "%s" a snapshot id."""
    return re.escape(op).replace("%d", r"\d+").replace("%s", _SNAPSHOT_ID)


def _operation_keyword(op: str) -> str:
    """The keyword its lines are dispatched under (catalog.keyword_of): the first word and its
    colon, or up to the "=" of an argument ("handleCommit[baseOffset=")."""
    return op[:op.index("=") + 1] if "=" in op else f"{op}:"


EVENT_FAILED_PATTERNS: tuple[MessagePattern, ...] = tuple(
    _row(f"kraft.controller.event_failed.{op}", "EventHandlerExceptionInfo.java failureMessage @3.6.0..", "3.6.0", None,
         _operation_keyword(op), _operation_regex(op)
         + r": event (?:failed with|unable to start processing because of) \w+(?: \(treated as \w+\))?"
         r"(?: at epoch \d+)?(?: in \d+ microseconds)?(?:\. Renouncing leadership and reverting to the last committed offset "
         r"-?\d+|\. The controller is already in standby mode)?\.(?: Exception message: .*)?$", _nothing)
    for op in sorted(set(_FAILED_OPERATIONS + _OPERATIONS_28))) + tuple(
    # 2.8-3.5 QuorumController.handleEventException, each form one alternative (the row's range is
    # their hull): INFO "failed with E in N us" (3.5 adds ". Reason: m"); ERROR 3.2-3.5 "unable to
    # start processing because of E." (3.5 adds the reason); WARN "failed with unknown server
    # exception E ..." (2.8-3.2 "Reverting to last committed offset N", 3.3-3.5 "Renouncing
    # leadership ..." or "... already in standby mode"; a stack trace follows on the next lines).
    _row(f"kraft.controller.event_exception_28.{op}", f"{_QC} handleEventException @2.8.2..@3.5.2", "2.8.0", "3.5.2",
         _operation_keyword(op), _operation_regex(op) + r": (?:failed with \w+ in \d+ us(?:\. Reason: .*)?"
         r"|unable to start processing because of \w+\.(?: Reason: .*)?"
         r"|failed with unknown server exception \w+ (?:at epoch \d+ in \d+ us\.  (?:Renouncing leadership "
         r"and reverting to the last committed offset|Reverting to last committed offset) -?\d+|in \d+ us\.  The controller "
         r"is already in standby mode)\.)$", _nothing)
    for op in _OPERATIONS_28 + _RAFT_EVENTS_28) + (
    _row("kraft.controller.unable_to_start_28", f"{_QC} handleEventException @2.8.2..@3.1.2 (INFO)", "2.8.0", "3.1.2",
         "unable", r"unable to start processing \w+ because of \w+\.$", _nothing),)

# The ZooKeeper-to-KRaft migration (KIP-866, 3.4-3.9), as the KRaft controller logs it: its
# KRaftMigrationDriver ("[KRaftMigrationDriver id=N] ", org.apache.kafka.metadata.migration), the
# ZooKeeper client it writes /controller and the metadata with (kafka.zk.KafkaZkClient,
# kafka.zk.migration.Zk*MigrationClient; 3.4-3.5 ZkMigrationClient), read in the kafka-metadata and
# kafka_2.13 sources jars of 3.4.1, 3.5.0, 3.5.2, 3.6.0, 3.6.2, 3.7.0, 3.7.2, 3.8.1, 3.9.0-3.9.2 (kafka_2.13
# to 3.9.0), and checked on a real 3.9.2 cluster's migration (every line of its KRaft controller understood).
# The migrated metadata is the dump's (the migration's PARTITION_RECORDs, in a metadata transaction
# from 3.6): each line is understood and carries no event. A form met in x.y.2 but not in x.y.0
# starts at x.y.1, one met in x.y.0 but not in x.y.2 ends at x.y.1 (the release between was not read).
_MD = "KRaftMigrationDriver.java"
_KZ = "KafkaZkClient.scala tryRegisterKRaftControllerAsActiveController"
_ZMC = "ZkMigrationClient.scala @3.4.1, kafka/zk/migration"
_MIGRATION_STATE = r"ZkMigrationLeadershipState\{.*?\}"
# 3.4's trace of each change of its ZkMigrationLeadershipState, by the operation's name.
_OPERATIONS_34 = {"Recovery": "Recovery", "KRaftLeaderEvent": r"KRaftLeaderEvent is (?:not )?active",
                  "BecomeZkLeaderEvent": "BecomeZkLeaderEvent", "Migrate": "Migrate metadata from Zk",
                  "Create": r"Create topic \S+",
                  "Updating": r"Updating (?:topic \S+|config resource .+?|client quota .+?|next producer ID)"}
# 3.5-3.9's applyMigrationOperation names (3.9 words them in the past tense and adds the time taken).
_OPERATIONS_35 = {"Became": r"Became (?:in)?active migration driver", "Claiming": "Claiming ZK controller leadership",
                  "Finished": "Finished initial migration of ZK metadata to KRaft",
                  "Recovering": "Recovering migration state from ZK", "Updating": r"Updating ZK migration state after \w+",
                  "Re-reading": "Re-reading migration state"}
_OPERATIONS_39 = {"Became": _OPERATIONS_35["Became"], "Claimed": "Claimed ZK controller leadership",
                  "Finished": _OPERATIONS_35["Finished"], "Recovered": "Recovered migration state from ZK",
                  "Updated": r"Updated (?:ZK migration state after \w+|migration state)"}
_MIGRATION_RESULT = (rf"(?:Transitioned migration state from {_MIGRATION_STATE} to {_MIGRATION_STATE}"
                     rf"|Kept migration state as {_MIGRATION_STATE})$")
_REGISTRATION_FAILED = r" while trying to register KRaft controller \d+ with ZK epoch \d+\. KRaft controller was not registered\.$"


def _migration_rows(rows) -> tuple[MessagePattern, ...]:
    """Rows (name, source, first, last, keyword, regex[, build]): no event unless a build is given."""
    return tuple(_row(f"kraft.controller.migration.{name}", source, first, last, keyword, regex, build[0] if build else _nothing)
                 for name, source, first, last, keyword, regex, *build in rows)


def _kraft_controller_registered(m: re.Match, ctx: LineContext) -> list:
    # The ZooKeeper brokers' controller from now on, at the ZooKeeper epoch it took (no prefix: KafkaZkClient).
    return [{"event_type": "KRaftControllerRegistered", "controller_id": int(m["c"]), "controller_epoch": int(m["e"]),
             "recording_broker": int(m["c"])}]


MIGRATION_PATTERNS: tuple[MessagePattern, ...] = _migration_rows((
    # The driver's state machine (MigrationDriverState) and its own life.
    ("transitioning", f"{_MD} transitionTo @3.4.1.. (TRACE; INFO @3.6.2.. when the state changes)", "3.4.0", "3.9.2", "%d",
     r"\d+ transitioning from [A-Z_]+ to [A-Z_]+ state$"),
    ("unknown_state", f"{_MD} isValidStateChange ERROR @3.4.1..", "3.4.0", "3.9.2", "Migration",
     r"Migration driver trying to transition from an unknown state [A-Z_]+$"),
    ("transition_error_34", f"{_MD} transitionTo ERROR @3.4.1", "3.4.0", "3.4.1", "Error",
     r"Error transition in migration driver from [A-Z_]+ to [A-Z_]+$"),
    ("exception_34", f"{_MD} handleException ERROR @3.4.1", "3.4.0", "3.4.1", "Had", r"Had an exception in \S.*$"),
    ("zk_error", f"{_MD} handleException @3.5.0..", "3.5.0", "3.9.2", "Encountered",
     r"Encountered ZooKeeper error during event .+\. Will retry\.$"),
    ("queue_closed", f"{_MD} handleException DEBUG @3.5.0..", "3.5.0", "3.9.2", "Not",
     r"Not processing .+ because the event queue is closed\.$"),
    ("shutting_down", f"{_MD} close DEBUG @3.4.1..", "3.4.0", "3.9.2", "Shutting", r"Shutting down KRaftMigrationDriver$"),
    ("stale_event", f"{_MD} checkDriverState @3.9.0..", "3.9.0", "3.9.2", "Current",
     r"Current leader epoch is .+, but event was created with epoch .+\. Not running this event .+\.$"),
    ("unexpected_state", f"{_MD} checkDriverState @3.5.2..", "3.5.1", "3.9.2", "Expected",
     r"Expected driver state [A-Z_]+ but found [A-Z_]+\. Not running this event .+\.$"),
    # Its ZkMigrationLeadershipState (the migration's place in the metadata log, the ZK controller epoch it holds).
    ("recovering_34", f"{_MD} recoverMigrationStateFromZK @3.4.1", "3.4.0", "3.4.1", "Recovering",
     r"Recovering migration state$"),
    ("recovered_34", f"{_MD} recoverMigrationStateFromZK @3.4.1", "3.4.0", "3.4.1", "Recovered",
     rf"Recovered migration state {_MIGRATION_STATE}\. ZK migration is \w+\.$"),
    *((f"operation_34.{keyword.lower()}", f"{_MD} apply TRACE @3.4.1", "3.4.0", "3.4.1", keyword,
       rf"{name} transitioned from {_MIGRATION_STATE} to {_MIGRATION_STATE}$") for keyword, name in _OPERATIONS_34.items()),
    *((f"operation_35.{keyword.lower()}", f"{_MD} applyMigrationOperation @3.5.0..@3.8.1 (Re-reading: @3.6.2..)", "3.5.0",
       "3.8.1", keyword, rf"{name}\. {_MIGRATION_RESULT}") for keyword, name in _OPERATIONS_35.items()),
    *((f"operation_39.{keyword.lower()}", f"{_MD} applyMigrationOperation @3.9.0..", "3.9.0", "3.9.2", keyword,
       rf"{name} in \d+ ns\. {_MIGRATION_RESULT}") for keyword, name in _OPERATIONS_39.items()),
    ("initial_migration", f"{_MD} RecoverMigrationStateFromZKEvent @3.5.0..", "3.5.0", "3.9.2", "Initial",
     r"Initial migration of ZK metadata is (?:not )?done\.$"),
    # FutureUtils.waitWithLogging (server-common @3.5.0, @3.6.0) around the driver's writes: 3.5.0-3.6.0
    # commit a "migration record batch", 3.6.2.. "N migration records"; the transaction from 3.6.0.
    *((f"waiting.{keyword.lower()}", f"FutureUtils.java waitWithLogging for {_MD} @3.5.0.. ({level})", "3.5.0", "3.9.2",
       keyword, rf"{words}the metadata layer to (?:begin the migration transaction|commit (?:migration record batch"
       rf"|\d+ migration records)|complete the migration)$")
      for keyword, level, words in (("Waiting", "INFO", "Waiting for "), ("Finished", "INFO", "Finished waiting for "),
                                    ("Timed", "ERROR", "Timed out while waiting for "),
                                    ("Received", "ERROR", "Received a fatal error while waiting for "))),
    # Waiting for the controllers and the ZooKeeper brokers.
    ("controllers_not_ready_35", f"{_MD} isControllerQuorumReadyForMigration @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Still",
     r"Still waiting for all controller nodes ready to begin the migration\. due to:.*$"),
    ("controllers_not_ready", f"{_MD} isControllerQuorumReadyForMigration WARN @3.6.0..", "3.6.0", "3.9.2", "Still",
     r"Still waiting for all controller nodes ready to begin the migration\. Not ready due to:.*$"),
    ("quorum_ready_34", f"{_MD} WaitForControllerQuorumEvent DEBUG @3.4.1", "3.4.0", "3.4.1", "Controller",
     r"Controller Quorum is ready for Zk to KRaft migration$"),
    ("quorum_ready", f"{_MD} WaitForControllerQuorumEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Controller",
     r"Controller Quorum is ready for Zk to KRaft migration\. Now waiting for ZK brokers\.$"),
    ("waiting_initial_publish", f"{_MD} areZkBrokersReadyForMigration @3.4.1..", "3.4.0", "3.9.2", "Waiting",
     r"Waiting for initial metadata publish before checking if Zk brokers are registered\.$"),
    ("waiting_metadata", f"{_MD} WaitForControllerQuorumEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Waiting",
     r"Waiting until we have received metadata before proceeding with migration$"),
    ("no_brokers", f"{_MD} areZkBrokersReadyForMigration @3.5.0..", "3.5.0", "3.9.2", "No",
     r"No brokers are (?:known to KRaft|registered in ZK), waiting for brokers to register\.$"),
    ("waiting_brokers", f"{_MD} areZkBrokersReadyForMigration @3.4.1..", "3.4.0", "3.9.2", "Still",
     r"Still waiting for ZK brokers \[[\d, ]*\] to register with KRaft\.$"),
    ("waiting_assigned_brokers", f"{_MD} areZkBrokersReadyForMigration @3.5.0..", "3.5.0", "3.9.2", "Still",
     r"Still waiting for ZK brokers \[[\d, ]*\] found in metadata to register with KRaft\.$"),
    ("brokers_ready", f"{_MD} WaitForZkBrokersEvent @3.4.1.. (DEBUG to 3.5.2)", "3.4.0", "3.9.2", "Zk",
     r"Zk brokers are registered and ready for migration$"),
    ("migration_state_none", f"{_MD} WaitForControllerQuorumEvent ERROR @3.5.0..", "3.5.0", "3.9.2", "The",
     r"The controller's ZkMigrationState is NONE which means this cluster should not be migrated from ZooKeeper\. This "
     r"controller should not be configured with 'zookeeper\.metadata\.migration\.enable' set to true\. Will not proceed "
     r"with a migration\.$"),
    ("state_mismatch", f"{_MD} WaitForControllerQuorumEvent ERROR @3.5.0..", "3.5.0", "3.9.2", "KRaft",
     r"KRaft controller indicates (?:an active migration, but the ZK state does not|a completed migration, but the "
     r"migration driver is somehow active)\.$"),
    ("in_progress", f"{_MD} WaitForControllerQuorumEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Migration",
     r"Migration is in already progress, not waiting on ZK brokers\.$"),
    ("claim_retry", f"{_MD} BecomeZkControllerEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Unable",
     r"Unable to claim leadership, will retry until we learn of a different KRaft leader$"),
    # Copying ZooKeeper's metadata into the metadata log.
    ("starting", f"{_MD} MigrateMetadataEvent @3.4.1..", "3.4.0", "3.9.2", "Starting", r"Starting ZK migration$"),
    ("migrating_batch", f"{_MD} MigrateMetadataEvent @3.4.1..@3.6.0 (INFO; TRACE with the records to 3.5.2)", "3.4.0",
     "3.6.1", "Migrating", r"Migrating \d+ records from ZK(?:: .*)?$"),
    ("completed_34", f"{_MD} MigrateMetadataEvent @3.4.1..@3.5.2", "3.4.0", "3.5.2", "Completed",
     r"Completed migration of metadata from Zookeeper to KRaft\. A total of \d+ metadata records were generated\. The "
     r"current metadata offset is now -?\d+ with an epoch of -?\d+\. Saw \d+ brokers in the migrated metadata \[[\d, ]*\]\.$"),
    ("completed", f"{_MD} MigrateMetadataEvent @3.6.0.. (a MigrationManifest)", "3.6.0", "3.9.2", "Completed",
     r"Completed migration of metadata from ZooKeeper to KRaft\. \d+ records were generated in \d+ ms across \d+ batches\. "
     r"The average time spent waiting on a batch was [\d.]+ ms\. The record types were \{.*\}\. The current metadata "
     r"offset is now -?\d+ with an epoch of -?\d+\. Saw \d+ brokers in the migrated metadata \[[\d, ]*\]\.$"),
    ("start_failed", f"{_MD} MigrateMetadataEvent ERROR @3.6.0..", "3.6.0", "3.9.2", "Could",
     r"Could not start the migration$"),
    ("aborting", f"{_MD} MigrateMetadataEvent ERROR @3.6.0.. (the fatal fault handler ends the controller)", "3.6.0",
     "3.9.2", "Aborting", r"Aborting the metadata migration from ZooKeeper to KRaft\. .*\.$"),
    # Dual write: KRaft's metadata written back to ZooKeeper and sent to the ZooKeeper brokers.
    ("full_sync", f"{_MD} SyncKRaftMetadataEvent @3.5.0..", "3.5.0", "3.9.2", "Performing",
     r"Performing a full metadata sync from KRaft to ZK\.$"),
    ("no_image_superset", f"{_MD} SyncKRaftMetadataEvent @3.6.2..", "3.6.1", "3.9.2", "Ignoring",
     r"Ignoring image .+ which does not contain a superset of the metadata in ZK\. Staying in SYNC_KRAFT_TO_ZK until a "
     r"newer image is loaded$"),
    ("zk_writes", f"{_MD} @3.5.0.. (DEBUG when handling a delta or snapshot)", "3.5.0", "3.9.2", "Made",
     r"Made the following ZK writes when (?:reconciling with KRaft state|handling KRaft (?:snapshot|delta)): \{.*\}$"),
    ("no_zk_writes", f"{_MD} MetadataChangeEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Did",
     r"Did not make any ZK writes when handling KRaft (?:snapshot|delta)$"),
    ("no_zk_writes_sync", f"{_MD} SyncKRaftMetadataEvent @3.9.0..", "3.9.0", "3.9.2", "Did",
     r"Did not make any ZK writes when reconciling with KRaft state\.$"),
    ("rpcs_before_dual_write", f"{_MD} SendRPCsToBrokersEvent @3.4.1.. (TRACE to 3.5.2)", "3.4.0", "3.9.2", "Sending",
     r"Sending RPCs to broker before moving to dual-write mode using at offset and epoch .+$"),
    ("rpcs_not_sent", f"{_MD} SendRPCsToBrokersEvent @3.6.0..", "3.6.0", "3.9.2", "Not",
     r"Not sending metadata RPCs with current metadata image since does not contain the offset that was last written to "
     r"ZK during the migration\. Image offset .+ is less than migration leadership state offset .+$"),
    ("old_image_34", f"{_MD} SendRPCsToBrokersEvent TRACE @3.4.1..@3.5.2", "3.4.0", "3.5.2", "Ignoring",
     r"Ignoring using metadata image since migration leadership state is at a greater offset and epoch .+$"),
    ("rpcs_for_metadata", f"{_MD} MetadataChangeEvent TRACE @3.4.1..@3.6.0", "3.4.0", "3.6.1", "Sending",
     r"Sending RPCs to brokers for metadata .+\.$"),
    ("rpcs_full_or_delta", f"{_MD} MetadataChangeEvent @3.6.2.. (DEBUG, TRACE)", "3.6.1", "3.9.2", "Sending",
     r"Sending (?:full metadata RPCs to brokers for snapshot|incremental metadata RPCs to brokers for delta)\.$"),
    ("rpcs_unchanged", f"{_MD} MetadataChangeEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Not",
     r"Not sending RPCs to brokers for metadata .+ since no relevant metadata has changed$"),
    ("not_dual_write", f"{_MD} MetadataChangeEvent TRACE @3.4.1..@3.8.1", "3.4.0", "3.8.1", "Received",
     r"Received metadata .+, but the controller is not in dual-write mode\. Ignoring the change to be replicated to "
     r"Zookeeper$"),
    ("metadata_ignored_39", f"{_MD} MetadataChangeEvent TRACE @3.9.0..", "3.9.0", "3.9.2", "Received",
     r"Received metadata .+?(?:, but the controller is not in dual-write mode\.| with .+, but the current leader and epoch "
     r"is .+\.)Ignoring this metadata update\.$"),
    ("empty_image", f"{_MD} MetadataChangeEvent DEBUG @3.6.0..", "3.6.0", "3.9.2", "Encountered",
     r"Encountered an empty MetadataImage while waiting for the first image to be published\. Ignoring this image since "
     r"it either does not include bootstrap records or it is a valid image for an older unsupported metadata version\.$"),
    ("unfinished", f"{_MD} MetadataChangeEvent @3.6.2..", "3.6.1", "3.9.2", "Ignoring",
     r"Ignoring \w+ .+ since the migration has not finished\.$"),
    ("already_written", f"{_MD} MetadataChangeEvent @3.4.1..", "3.4.0", "3.9.2", "Ignoring",
     r"Ignoring \w+ .+ which contains metadata that has already been written to ZK\.$"),
    # The controller writing the migrated records (QuorumController's MigrationRecordConsumer; its
    # ZkMigrationStateRecord's replay), 3.6-3.9 (3.5: kraft.controller.zk_migration_35 rows).
    ("pre_migration_write", f"{_QC} ControllerWriteEvent @3.5.0..@3.9.0 (a real 3.9.2 capture)", "3.5.0", "3.9.2",
     "Cannot", r"Cannot run write operation \S+ in pre-migration mode\. Returning NOT_CONTROLLER\.$"),
    ("transaction_begin", f"{_QC} beginMigration @3.6.0..", "3.6.0", "3.9.2", "Starting",
     r"Starting migration of ZooKeeper metadata to KRaft\.$"),
    ("no_transaction", f"{_QC} beginMigration WARN @3.6.0.. (metadata.version below 3.6-IV1)", "3.6.0", "3.9.2", "Starting",
     r"Starting ZK Migration without metadata transactions enabled\. This is not safe since a controller failover or "
     r"processing error may lead to partially migrated metadata\.$"),
    ("transaction_complete", f"{_QC} completeMigration @3.6.0..", "3.6.0", "3.9.2", "Completing",
     r"Completing migration of ZooKeeper metadata to KRaft\.$"),
    ("state_replayed", f"{_FEATURES} replay(ZkMigrationStateRecord) @3.6.0.. (DEBUG when unchanged)", "3.6.0", "3.9.2",
     "Replayed", r"Replayed a ZkMigrationStateRecord (?:changing the migration state from \w+ to \w+|which did not "
     r"alter the state from \w+)\.$"),
    # The KRaft controller taking /controller in ZooKeeper (the ZooKeeper brokers' controller epoch
    # moves to the "ZK epoch" named; the LeaderAndIsr requests it then sends carry it).
    ("zk.registering", f"{_KZ} @3.4.1..", "3.4.0", "3.9.2", "KRaft",
     r"KRaft controller \d+ (?:overwriting /controller to become the active controller with ZK epoch \d+\. The previous "
     r"controller was -?\d+|creating /controller to become the active controller with ZK epoch \d+\. There was no active "
     r"controller)\.$"),
    ("zk.registered", f"{_KZ} @3.4.1..", "3.4.0", "3.9.2", "Successfully",
     r"Successfully registered KRaft controller (?P<c>\d+) with ZK epoch (?P<e>\d+)$", _kraft_controller_registered),
    ("zk.not_registered", f"{_KZ} @3.4.1.. (a ZooKeeper controller, or another KRaft one, came first)", "3.4.0", "3.9.2",
     "The", r"(?:The ZK controller epoch changed|The ephemeral node at /controller (?:went away|was created by another "
     r"controller))" + _REGISTRATION_FAILED),
    ("zk.error", f"{_KZ} ERROR @3.4.1..", "3.4.0", "3.9.2", "ZooKeeper", r"ZooKeeper had an error" + _REGISTRATION_FAILED),
    ("zk.updates", "KafkaZkClient.scala retryMigrationRequestsUntilConnected TRACE @3.4.1..", "3.4.0", "3.9.2", "Performing",
     rf"Performing \d+ migration update\(s\) with migrationState={_MIGRATION_STATE}$"),
    ("zk.no_partition_state", f"{_ZMC}/ZkTopicMigrationClient.scala @3.6.2.. (WARN)", "3.4.0", "3.9.2", "Could",
     r"Could not find partition state in ZK for \S+-\d+\. Initializing this partition with ISR=\{[\d,]*\} and "
     r"leaderEpoch=0\.$"),
    ("zk.pending_deletions", "kafka/zk/migration/ZkTopicMigrationClient.scala @3.6.2.. (WARN)", "3.6.0", "3.9.2", "Found",
     r"Found \d+ pending topic deletions\. These will be not migrated to KRaft\. After the migration, the brokers will "
     r"reconcile their logs with these pending topic deletions\.$"),
    ("zk.pending_deleted_topic", "kafka/zk/migration/ZkTopicMigrationClient.scala @3.6.2..", "3.6.0", "3.9.2", "Not",
     r"Not migrating pending deleted topic: \S+$"),
    ("zk.unknown_quota_entity", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (ERROR)", "3.4.0", "3.9.2", "Skipping",
     r"Skipping unknown client quota entity .+$"),
    ("zk.recursive_create", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (DEBUG)", "3.4.0", "3.9.2", "Recursively",
     r"Recursively creating ZNode \S+ and attempting to write .+ (?:configs|quotas) a second time\.$"),
    ("zk.config_not_updated", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (DEBUG @3.4.1, ERROR later)", "3.4.0",
     "3.9.2", "Not", r"Not updating ZK for .+ since it is not a Broker or Topic entity\.$"),
    ("zk.not_deleted", "kafka/zk/migration/ZkConfigMigrationClient.scala @3.5.2.., ZkDelegationTokenMigrationClient.scala "
     "@3.6.2.. (ERROR)", "3.5.0", "3.9.2", "Did", r"Did not delete .+ since the node did not exist\.$"),
))

# KRaft brokers' state-change.log: ReplicaManager.applyDelta (3.0.0..) applying a metadata
# image to the local replicas. The decisions are the PARTITION_RECORD / PARTITION_CHANGE_RECORD
# of the dump; these lines say the broker followed them.
_RM_DELTA = "ReplicaManager.scala applyDelta @3.0.0.."
BROKER_PATTERNS: tuple[MessagePattern, ...] = (
    _row("kraft.broker.transitioning", _RM_DELTA, "3.0.0", None, "Transitioning",
         r"Transitioning \d+ partition\(s\) to local (?:leaders|followers)\.$", _nothing),
    _row("kraft.broker.creating_partition", _RM_DELTA, "3.0.0", None, "Creating",
         r"Creating new partition \S+-\d+ with topic id \S+\.$", _nothing),
    _row("kraft.broker.missing_partition", _RM_DELTA + " (ERROR)", "3.0.0", None, "Expected",
         r"Expected partition \S+-\d+ with topic id \S+ to exist, but it was missing\. Creating\.\.\.$", _nothing),
    _row("kraft.broker.deleting", _RM_DELTA, "3.0.0", None, "Deleting",
         r"Deleting \d+ partition\(s\)\.$", _nothing),
    _row("kraft.broker.stopped_fetchers", _RM_DELTA, "3.0.0", None, "Stopped",
         r"Stopped fetchers as part of become-follower for \d+ partitions$", _nothing),
    _row("kraft.broker.started_fetchers", _RM_DELTA, "3.0.0", None, "Started",
         r"Started fetchers as part of become-follower for \d+ partitions$", _nothing),
    # The other applyDelta lines (kafka_2.13 sources jars 3.0.0-4.3.1): the record they follow is in the dump.
    # Its "Skipped the become-leader/-follower state change ..." lines are ZooKeeper's row sc.broker.skipped.
    _row("kraft.broker.stopped_fetchers_shutdown", "ReplicaManager.scala applyDelta @3.3.0..", "3.3.0", None, "Stopped",
         r"Stopped fetchers as part of controlled shutdown for \d+ partitions$", _nothing),
    _row("kraft.broker.fetch_shutting_down", "ReplicaManager.scala applyLocalFollowersDelta TRACE @3.0.0..@3.3.1", "3.0.0",
         "3.3.1", "Unable", r"Unable to start fetching \S+-\d+ with topic ID \S+ because the replica manager is shutting "
         r"down\.$", _nothing),
    _row("kraft.broker.fetch_leader_dead", "ReplicaManager.scala applyLocalFollowersDelta TRACE @3.0.0.. (3.3+: the "
         "leader as an Option)", "3.0.0", None, "Unable", r"Unable to start fetching \S+-\d+ with topic ID \S+ from leader "
         r"(?:-?\d+|Some\(\d+\)|None) because it is not alive\.$", _nothing),
    _row("kraft.broker.fetch_error", "ReplicaManager.scala applyLocalFollowersDelta ERROR @3.0.0..", "3.0.0", None, "Unable",
         r"Unable to start fetching \S+-\d+ with topic ID \S+ due to (?:a storage error .*|\w+)$", _nothing),
    _row("kraft.broker.delete_error", "ReplicaManager.scala applyDelta ERROR @3.0.0.. (stray: @3.0.0..@3.6.2)", "3.0.0", None,
         "Unable", r"Unable to delete (?:stray )?replica \S+-\d+ because (?:the local replica for the partition is in an "
         r"offline log directory.*|we got an unexpected \S+ exception: .*)$", _nothing),
)

PATTERNS: tuple[MessagePattern, ...] = (DUMP_PATTERNS + CONTROLLER_PATTERNS + REPLAY_COPY_PATTERNS + EVENT_FAILED_PATTERNS
                                        + MIGRATION_PATTERNS + BROKER_PATTERNS)
