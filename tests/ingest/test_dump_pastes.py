"""`kafka-dump-log.sh --cluster-metadata-decoder` output as people paste it: its batch headers and
record lines wrapped by a terminal (at a column, mid-token), a ticket or a code review (at white
space, the space kept or lost), its control records among them. Each wrapped line is joined again
(ingest.envelope.dump_joins) and read as the line it was: the same events, every line accounted for."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ingest.envelope import dump_joins
from ingest.lines import UNWRAPPED_REASON
from ingest.local import ingest_files, log_files

HERE = Path(__file__).parent
DUMP_37 = HERE / "fixtures" / "kraft" / "3.7.0" / "00000000000000000000.log.txt"
# A real 4.3.1 dump (LEADER_CHANGE decoded, KAFKA-19069) and its first 40 lines.
DUMP_431 = HERE.parent.parent / "data" / "samples" / "real" / "kraft-4.x" / "broker-1" / "__cluster_metadata-0" / \
    "00000000000000000000.log.txt"


def _at_column(width):
    return lambda line: [line[i:i + width] for i in range(0, len(line), width)] or [""]


def _at_space_lost(width):
    return lambda line: textwrap.wrap(line, width, break_long_words=True, break_on_hyphens=False) or [""]


def _at_space_kept(width):
    # `fold -s`: the break after a space, which stays at the end of the line.
    return lambda line: textwrap.wrap(line, width, drop_whitespace=False, break_on_hyphens=False) or [""]


WRAPS = {"column 80": _at_column(80), "column 120": _at_column(120), "space lost 100": _at_space_lost(100),
         "space kept 90": _at_space_kept(90)}


def _read(tmp_path: Path, name: str, lines: list[str]):
    path = tmp_path / name / "broker-1" / "__cluster_metadata-0" / "00000000000000000000.log.txt"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    return ingest_files(log_files(tmp_path / name), "prod")


def _events(ingested) -> list[tuple]:
    """The events as the replay reads them, less where they sit in the file."""
    return [tuple(v for k, v in e._asdict().items() if k not in ("source_line", "source_file")) for e in ingested.events]


@pytest.mark.parametrize("dump", [DUMP_37, DUMP_431], ids=["3.7.0", "4.3.1 (real)"])
@pytest.mark.parametrize("wrap", WRAPS, ids=list(WRAPS))
def test_a_wrapped_dump_reads_as_the_dump(tmp_path, dump, wrap):
    lines = dump.read_text().splitlines()[:60]
    plain = _read(tmp_path, "plain", lines)
    wrapped_lines = [part for line in lines for part in WRAPS[wrap](line)]
    assert len(wrapped_lines) > len(lines)
    wrapped = _read(tmp_path, "wrapped", wrapped_lines)
    assert not plain.quarantine and not wrapped.quarantine, wrapped.quarantine[:3]
    assert _events(wrapped) == _events(plain)
    (info,) = wrapped.files.values()
    assert info["lines"] == len(wrapped_lines) == info["recognized"] + info["quarantined"]


def test_a_wrapped_leader_change_names_the_epoch_s_leader(tmp_path):
    """4.1+ decode LEADER_CHANGE: its leader, at its batch's epoch, is the epoch's controller."""
    lines = DUMP_431.read_text().splitlines()[:4]
    ingested = _read(tmp_path, "lc", [part for line in lines for part in _at_column(70)(line)])
    failovers = [(e.controller_epoch, e.controller_id) for e in ingested.events if e.event_type == "ControllerFailover"]
    assert failovers == [(1, 2)] and not ingested.quarantine


BATCH_38 = ("baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
            "partitionLeaderEpoch: 1 isTransactional: false isControl: true deleteHorizonMs: OptionalLong.empty position: 0 "
            "CreateTime: 1718000000000 size: 180 magic: 2 compresscodec: none crc: 2938714410 isvalid: true")
RECORD = "| offset: {} CreateTime: 1718000000000 keySize: 4 valueSize: 5 sequence: -1 headerKeys: [] "
# DumpLogSegments.scala 3.8.0..: the KIP-853 control records, and LEADER_CHANGE undecoded until 4.1.
CONTROL_38 = [BATCH_38,
              RECORD.format(0) + "controlType: LEADER_CHANGE(2)",
              RECORD.format(1) + 'KRaftVersion {"version":0,"kRaftVersion":1}',
              RECORD.format(2) + 'KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"vqyVDaFJR0O9C2Ug1h1FHw",'
              '"endpoints":[{"name":"CONTROLLER","host":"localhost","port":9093}],"kRaftVersionFeature":{"minSupportedVersion"'
              ':0,"maxSupportedVersion":1}}]}']


@pytest.mark.parametrize("wrap", WRAPS, ids=list(WRAPS))
def test_wrapped_control_records_are_read_as_what_they_are(tmp_path, wrap):
    plain = _read(tmp_path, "plain", CONTROL_38)
    wrapped = _read(tmp_path, "wrapped", [part for line in CONTROL_38 for part in WRAPS[wrap](line)])
    assert not plain.quarantine and not wrapped.quarantine
    assert _events(wrapped) == _events(plain)
    assert [(e.event_type, e.controller_epoch) for e in wrapped.events] == [("ControllerFailover", 1)]


def test_a_record_line_wrapped_before_its_payload(tmp_path):
    """The break just before ` payload: {`: the remainder begins as a --skip-record-metadata line
    would, but follows a record line that has no payload yet, so it is that record's."""
    line = ('| offset: 7 CreateTime: 1718000000000 keySize: -1 valueSize: 31 sequence: -1 headerKeys: [] payload: '
            '{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"K16VvIw3TLmaYnQ6XjK4PQ"}}')
    head, _, payload = line.partition(" payload: ")
    ingested = _read(tmp_path, "p", [BATCH_38.replace("isControl: true", "isControl: false"), head, "payload: " + payload])
    assert not ingested.quarantine and ingested.files[next(iter(ingested.files))]["recognized"] == 3


def test_a_line_that_joins_into_nothing_is_quarantined_alone(tmp_path):
    lines = [BATCH_38, "this is not the rest of a dump line", RECORD.format(0) + "controlType: LEADER_CHANGE(2)"]
    ingested = _read(tmp_path, "g", lines)
    assert [(n, reason) for _, n, reason, _ in ingested.quarantine] == [(2, UNWRAPPED_REASON)]
    (info,) = ingested.files.values()
    assert (info["recognized"], info["quarantined"]) == (2, 1)


def test_dump_joins_puts_back_a_lost_space_only_where_one_may_have_been():
    assert list(dump_joins(["crc: 12", "34 isvalid: true"])) == ["crc: 1234 isvalid: true", "crc: 12 34 isvalid: true"]
    assert list(dump_joins(["crc: 1234 ", "isvalid: true"])) == ["crc: 1234 isvalid: true"]
