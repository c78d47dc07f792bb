"""KRaft: the `kafka-dump-log.sh --cluster-metadata-decoder` output of a `__cluster_metadata`
segment or snapshot (spec kafka-log-formats §4.1-4.2), as catalogue rows.

Dump lines have no log4j envelope: the caller hands each line as the whole body
(`ctx.file_kind == "kraft-dump"`, no prefix). The dump prints one line per batch
(`baseOffset: ...`) and, with --deep-iteration / --print-data-log / a decoder, one per record
(`| offset: ...`). Decoded records carry `payload: {"type": <MetadataRecordType>, "version": n,
"data": ...}`: `ingest.kraft_records.RECORDS` says what the replay gets from each.

Sources read (apache/kafka): core/src/main/scala/kafka/tools/DumpLogSegments.scala (a 3.3-3.7
copy and the 3.8+ copy with KRaftVersion/KRaftVoters), the 2026 Java port in tools/ (two
revisions), PR #11101 (2.8 record line) and #19729 (LEADER_CHANGE decoded, 2025), the 2.8
config/kraft/README.md dump."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern, no_events, row
from ingest.kraft_records import RECORDS
from schemas.validate import load_json


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


PATTERNS: tuple[MessagePattern, ...] = (
    # Record lines first: they are most of a dump.
    row("kraft.dump.record.payload", f"{_DUMP_SOURCE} @3.0.0.. (--cluster-metadata-decoder)", "3.0.0", None,
        "|", _RECORD_30 + " " + _PAYLOAD, _payload),
    row("kraft.dump.record.no_payload", f"{_DUMP_SOURCE} @3.0.0.. (--deep-iteration without --print-data-log)",
        "3.0.0", None, "|", _RECORD_30 + "$", no_events),
    row("kraft.dump.record.control_type", f"{_DUMP_SOURCE} @3.0.0.. (LEADER_CHANGE undecoded until 4.0.x)",
        "3.0.0", None, "|", _RECORD_30 + _CONTROL_TYPE, no_events),
    row("kraft.dump.record.snapshot_header", f"{_DUMP_SOURCE} @3.3.0..", "3.3.0", None,
        "|", _RECORD_30 + r" SnapshotHeader \{.*\}$", no_events),
    row("kraft.dump.record.snapshot_footer", f"{_DUMP_SOURCE} @3.3.0..", "3.3.0", None,
        "|", _RECORD_30 + r" SnapshotFooter \{.*\}$", no_events),
    row("kraft.dump.record.kraft_version", f"{_DUMP_SOURCE} @3.8.0..", "3.8.0", None,
        "|", _RECORD_30 + r" KRaftVersion \{.*\}$", no_events),
    row("kraft.dump.record.kraft_voters", f"{_DUMP_SOURCE} @3.8.0..", "3.8.0", None,
        "|", _RECORD_30 + r" KRaftVoters \{.*\}$", no_events),
    row("kraft.dump.record.leader_change", f"{_DUMP_SOURCE} @4.1.0.. (KAFKA-19069, PR #19729)", "4.1.0", None,
        "|", _RECORD_30 + r" LeaderChange: (?P<json>\{.*\})$", _leader_change),
    row("kraft.dump.record28.payload", f"{_DUMP_SOURCE} @2.8.0..@2.8.2 (record line repeats the batch)", "2.8.0", "2.8.2",
        "|", _RECORD_28 + " " + _PAYLOAD, _payload),
    row("kraft.dump.record28.no_payload", f"{_DUMP_SOURCE} @2.8.0..@2.8.2", "2.8.0", "2.8.2",
        "|", _RECORD_28 + "$", no_events),
    row("kraft.dump.record28.control_type", f"{_DUMP_SOURCE} @2.8.0..@2.8.2", "2.8.0", "2.8.2",
        "|", _RECORD_28 + _CONTROL_TYPE, no_events),
    # --skip-record-metadata: the Scala tool prints " payload: ..." (a leading space; the
    # keyword is then ""), the 2026 Java port "| payload: ...". "payload:" is the same
    # line with its leading space lost (pastes, stripping callers).
    row("kraft.dump.skip_metadata.payload", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata)", "2.8.0", None,
        "", " " + _PAYLOAD, _payload),
    row("kraft.dump.skip_metadata.payload_stripped", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata, leading space lost)",
        "2.8.0", None, "payload:", _PAYLOAD, _payload),
    row("kraft.dump.skip_metadata.payload_java", "tools/.../DumpLogSegments.java trunk 2026 (after KAFKA-14579)", "4.3.0", None,
        "|", r"\| " + _PAYLOAD, _payload),
    # A control record under --skip-record-metadata prints an empty line.
    row("kraft.dump.skip_metadata.control", f"{_DUMP_SOURCE} @2.8.0.. (--skip-record-metadata)", "2.8.0", None,
        "", r"$", no_events),
    row("kraft.dump.batch", f"{_DUMP_SOURCE} printBatchLevel @2.8.0..@3.1.2", "2.8.0", "3.1.2", "baseOffset:",
        r"baseOffset: (?P<base>\d+) lastOffset: \d+ count: \d+ baseSequence: -?\d+ lastSequence: -?\d+"
        r" producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: (?P<epoch>-?\d+) isTransactional: (?:true|false)"
        r" isControl: (?:true|false) position: \d+ " + _TS + r" size: \d+ magic: \d+ compresscodec: \w+ crc: \d+"
        r" isvalid: (?:true|false)$", _batch),
    row("kraft.dump.batch.delete_horizon", f"{_DUMP_SOURCE} printBatchLevel @3.2.0..", "3.2.0", None, "baseOffset:",
        r"baseOffset: (?P<base>\d+) lastOffset: \d+ count: \d+ baseSequence: -?\d+ lastSequence: -?\d+"
        r" producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: (?P<epoch>-?\d+) isTransactional: (?:true|false)"
        r" isControl: (?:true|false) deleteHorizonMs: \S+ position: \d+ " + _TS + r" size: \d+ magic: \d+"
        r" compresscodec: \w+ crc: \d+ isvalid: (?:true|false)$", _batch),
    row("kraft.dump.file", f"{_DUMP_SOURCE} main", "2.8.0", None, "Dumping", r"Dumping \S.*$", no_events),
    row("kraft.dump.starting_offset", f"{_DUMP_SOURCE} dumpLog @2.8.0..@3.2.3", "2.8.0", "3.2.3", "Starting",
        r"Starting offset: \d+$", no_events),
    row("kraft.dump.log_starting_offset", f"{_DUMP_SOURCE} dumpLog @3.3.0..", "3.3.0", None, "Log",
        r"Log starting offset: \d+$", no_events),
    row("kraft.dump.snapshot", f"{_DUMP_SOURCE} dumpLog @3.3.0.. (KAFKA-13845)", "3.3.0", None, "Snapshot",
        r"Snapshot end offset: \d+, epoch: \d+$", no_events),
    row("kraft.dump.bootstrap_snapshot", f"{_DUMP_SOURCE} dumpLog @3.3.0.. (bootstrap.checkpoint)", "3.3.0", None,
        "KRaft", r"KRaft bootstrap snapshot$", no_events),
    row("kraft.dump.trailing_bytes", f"{_DUMP_SOURCE} dumpLog", "2.8.0", None, "Found",
        r"Found \d+ invalid bytes at the end of \S.*$", no_events),
)
