"""Envelopes (spec kafka-log-formats §1): every layout and wrapper users have, gluing of
continuation lines, hand-wrapped heads, and zoneless timestamps."""
from __future__ import annotations

import gzip
from collections import Counter

import pytest

from ingest.envelope import Clock, Record, Unparsed, assemble, parse_head, unwrap
from ingest.lines import broker_from_text, file_kind

MSG = "[Controller id=1 epoch=7] Changed partition t-0 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=5, isr=List(2), zkVersion=7)"

LAYOUT_CASES = [
    # (id, line, layout, ts, level, logger)
    ("stock 0.8.0-3.9 log4j.properties", f"[2024-05-01 13:00:00,123] TRACE {MSG} (state.change.logger)",
     "stock", "2024-05-01 13:00:00,123", "TRACE", "state.change.logger"),
    ("stock, inner class logger", "[2016-08-02 05:38:11,001] INFO [BrokerChangeListener on Controller 0]: Broker change listener fired (kafka.controller.ReplicaStateMachine$BrokerChangeListener)",
     "stock", "2016-08-02 05:38:11,001", "INFO", "kafka.controller.ReplicaStateMachine$BrokerChangeListener"),
    ("Kafka test layout (%c:%L)", "[2023-01-01 00:00:00,000] INFO x (org.apache.kafka.metadata.migration.KRaftMigrationDriver:615)",
     "stock", "2023-01-01 00:00:00,000", "INFO", "org.apache.kafka.metadata.migration.KRaftMigrationDriver"),
    ("strimzi %d{ISO8601} %p %m (%c) [%t]", f"2020-03-23 21:38:24,484 TRACE {MSG} (state.change.logger) [controller-event-thread]",
     "strimzi", "2020-03-23 21:38:24,484", "TRACE", "state.change.logger"),
    ("embedded in an application's log4j", "2016-08-02 05:38:11 INFO  PartitionStateMachine:68 - [Partition state machine on Controller 0]: Started partition state machine",
     "embedded", "2016-08-02 05:38:11", "INFO", "PartitionStateMachine"),
]


@pytest.mark.parametrize("case", LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def test_layouts(case):
    _, line, layout, ts, level, logger = case
    head = parse_head(line)
    assert head is not None and (head.layout, head.ts, head.level, head.logger) == (layout, ts, level, logger)


WRAPPED = f"[2024-05-01 13:00:00,123] TRACE {MSG} (state.change.logger)"
WRAPPER_CASES = [
    ("docker compose logs", f"broker1   | {WRAPPED}", "broker1"),
    ("docker compose logs -t", f"broker1   | 2020-09-22T06:34:31.523787776Z {WRAPPED}", "broker1"),
    ("docker logs -t", f"2020-09-22T06:34:31.523787776Z {WRAPPED}", None),
    ("kubectl logs --prefix", f"[pod/kafka-0/kafka] {WRAPPED}", "kafka-0/kafka"),
    ("test harness STDOUT echo", f"07:08:49,859  INFO || - [DockerizedKafkaTestSupport] container - STDOUT: {WRAPPED}", None),
    # A terminal's capture: compose colours its prefix, log4j's %highlight the level.
    ("docker compose logs, coloured", f"\x1b[36mbroker1   | \x1b[0m{WRAPPED}", "broker1"),
    ("log4j %highlight level", WRAPPED.replace("TRACE", "\x1b[37mTRACE\x1b[m"), None),
    ("docker json-file driver, coloured", '{"log":"' + WRAPPED.replace('"', '\\"').replace("TRACE", "\\u001b[37mTRACE\\u001b[0m")
     + '\\n","stream":"stdout","time":"2024-05-01T13:00:00.1Z"}', None),
    ("docker json-file driver", '{"log":"' + WRAPPED.replace('"', '\\"') + '\\n","stream":"stdout","time":"2024-05-01T13:00:00.1Z"}', None),
]


@pytest.mark.parametrize("case", WRAPPER_CASES, ids=[c[0] for c in WRAPPER_CASES])
def test_wrappers_are_peeled(case):
    _, line, tag = case
    got_tag, text = unwrap(line)
    assert (got_tag, text) == (tag, WRAPPED)
    assert parse_head(text).message == MSG


def test_stack_trace_is_glued_to_its_error_record():
    lines = [
        "[2024-05-01 13:00:00,124] ERROR [Controller id=1 epoch=7] Controller 1 epoch 7 failed to change state for partition t-0 from NonExistentPartition to OnlinePartition (state.change.logger)",
        "java.lang.IllegalStateException: Partition t-0 should be in one of NewPartition,OnlinePartition,OfflinePartition states before moving to OnlinePartition state. Instead it is in NonExistentPartition state",
        "\tat kafka.controller.ZkPartitionStateMachine.logInvalidTransition(PartitionStateMachine.scala:427)",
        "Caused by: java.lang.RuntimeException: x",
        "\t... 22 more",
        "[2024-05-01 13:00:00,125] INFO next (kafka.controller.KafkaController)",
    ]
    out = list(assemble(enumerate(lines, 1)))
    assert [type(r) for r in out] == [Record, Record]
    assert out[0].lines == 5 and out[0].continuation.startswith("java.lang.IllegalStateException: Partition t-0 should be")
    assert out[0].raw == "\n".join(lines[:5])
    assert (out[1].line, out[1].lines) == (6, 1)


def test_hand_wrapped_head_is_rejoined_even_inside_a_token():
    lines = ["[2024-05-01 13:00:01,000] INFO [Controller id=1] Broker failure callback for 3 (state.change.l", "ogger)"]
    out = list(assemble(enumerate(lines, 1)))
    assert len(out) == 1 and out[0].message == "[Controller id=1] Broker failure callback for 3" and out[0].lines == 2


def test_a_head_that_never_completes_is_unparsed_with_its_lines():
    lines = ["[2024-05-01 13:00:01,000] INFO [Controller id=1] Broker failure callback for 3 (state.chan"]
    out = list(assemble(enumerate(lines, 1)))
    assert len(out) == 1 and isinstance(out[0], Unparsed) and "truncated" in out[0].reason


def test_interleaved_streams_keep_their_own_records():
    lines = [
        "broker1 | [2024-05-01 13:00:00,001] ERROR [Controller id=1 epoch=1] boom (state.change.logger)",
        "broker2 | [2024-05-01 13:00:00,002] INFO [Broker id=2] hello (state.change.logger)",
        "broker1 | java.lang.IllegalStateException: bad",
        "broker2 | \tat x.y(Z.scala:1)",
    ]
    out = {r.tag: r for r in assemble(enumerate(lines, 1))}
    assert out["broker1"].continuation == "java.lang.IllegalStateException: bad" and out["broker1"].lines == 2
    assert out["broker2"].continuation == "\tat x.y(Z.scala:1)"


def test_garbage_and_orphan_continuations_are_unparsed():
    out = list(assemble(enumerate(["\tat orphan.frame(X.java:1)", "complete garbage", ""], 1)))
    assert sorted((r.line, r.reason.split(":")[0]) for r in out) == [
        (1, "continuation line with no record before it"), (2, "no log4j envelope")]


def test_kafka_dump_log_lines_are_records_without_envelope():
    line = "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1"
    (r,) = assemble([(1, line)])
    assert r.head is None and r.message == line


def test_clock_is_zoneless_until_told():
    assert Clock().ms("2024-05-01 13:00:00,123") == 1714568400123
    # Berlin is UTC+2 in May: the same wall clock is two hours earlier in UTC.
    assert Clock("Europe/Berlin").ms("2024-05-01 13:00:00,123") == 1714568400123 - 2 * 3600 * 1000
    assert Clock().ms("2016-08-02 05:38:11") == 1470116291000   # embedded layout: no millis
    assert Clock().ms("2024-13-45 99:00:00,000") is None


@pytest.mark.parametrize("path,kind", [
    ("/logs/broker-1/state-change.log", "state-change"), ("/l/state-change.log.2024-05-01-13", "state-change"),
    ("/l/state-change.log.2024-05-01-13.gz", "state-change"), ("/l/controller.log.2020-03-26-11", "controller"),
    ("/l/server.log", "server"), ("/l/00000000000000000000.log.txt", "kraft-dump"),
    ("/l/cluster_metadata_dump.txt", "kraft-dump"), ("/l/app.log", "unknown")])
def test_file_kind_from_name(path, kind):
    assert file_kind(path) == kind


@pytest.mark.parametrize("text,broker", [
    ("/logs/broker-1/state-change.log", 1), ("/x/kafka_2/controller.log", 2), ("/x/node3/server.log", 3),
    ("file:/data/kafka-2.4.1/broker-12/server.log", 12), ("broker1", 1), ("/x/logs/server.log", None)])
def test_broker_from_path(text, broker):
    assert broker_from_text(text) == broker


def test_gzip_rotation_is_text_to_spark(tmp_path):
    # Spark's text source decompresses by the .gz suffix; the name still says the kind.
    p = tmp_path / "state-change.log.2024-05-01-13.gz"
    with gzip.open(p, "wt") as f:
        f.write(WRAPPED + "\n")
    assert file_kind(str(p)) == "state-change"


def test_utf16_text_read_as_utf8_is_unparsed_as_such():
    """UTF-16 bytes decoded as UTF-8 (a PowerShell redirect's file): a NUL in every other
    character, each line unparsed with the reason that says so, not "no log4j envelope"."""
    from ingest.envelope import NUL_BYTES

    text = "[2024-05-01 13:00:00,001] INFO [Controller id=1] hello (state.change.logger)\r\n\tat x.y(Z.scala:1)\r\n"
    lines = text.encode("utf-16").decode("utf-8", "replace").splitlines()
    out = list(assemble(enumerate(lines, 1)))
    assert out and all(isinstance(r, Unparsed) and r.reason == NUL_BYTES for r in out)
    assert [r.line for r in out] == [i for i, line in enumerate(lines, 1) if line.strip()]


def test_a_byte_order_mark_is_no_part_of_a_files_first_line(tmp_path):
    """The 2.4.1 unclean-election scenario with every file saved with a UTF-8 byte-order mark
    (a Windows editor), one of them as a gzip rotation: the same events as without (Hadoop's
    line reader drops the mark for the Spark ingest; the first records were quarantined as
    'no log4j envelope' before)."""
    from pathlib import Path

    from ingest.local import ingest_files, log_files

    scenario = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "zk-2.4.1-unclean"
    for log in scenario.rglob("*.log"):
        target = tmp_path / log.relative_to(scenario)
        target.parent.mkdir(parents=True, exist_ok=True)
        if log.name == "controller.log":
            target = target.with_name("controller.log.2024-05-01-13.gz")
            with gzip.open(target, "wt", encoding="utf-8-sig") as f:
                f.write(log.read_text())
        else:
            target.write_text(log.read_text(), encoding="utf-8-sig")
    plain, marked = (ingest_files(log_files(root), "c") for root in (scenario, tmp_path))
    assert marked.quarantine == [] and len(marked.events) == len(plain.events) > 20
    assert [e._replace(source_file=None) for e in marked.events] == [e._replace(source_file=None) for e in plain.events]


def test_lines_end_only_where_hadoops_line_reader_ends_them(tmp_path):
    """A message holding a form feed, U+0085 or U+2028 (an embedding application's payload) is one
    line, as the Spark ingest reads it: str.splitlines cut it in two before, and every later line
    of the file was numbered one more than Spark numbers it. \\r and \\r\\n end lines, as in Hadoop."""
    from pathlib import Path

    from ingest.local import ingest_files, log_files, read_text_lines

    scenario = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "zk-2.4.1-unclean"
    separators = "\x0c\x1c\x85\u2028\u2029"
    runs = {}
    for name, inside in (("spaces", " " * len(separators)), ("separators", separators)):
        root = tmp_path / name
        for log in scenario.rglob("*.log"):
            lines = log.read_text().splitlines()
            if log.name == "controller.log":
                lines.insert(2, f"[2024-05-01 09:59:58,015] INFO payload {{\"note\":\"a{inside}b\"}} (com.example.App)")
            (root / log.relative_to(scenario)).parent.mkdir(parents=True, exist_ok=True)
            (root / log.relative_to(scenario)).write_text("\n".join(lines) + "\n")
        runs[name] = ingest_files(log_files(root), "c")
        assert len(read_text_lines(str(root / "broker-3" / "controller.log"))) == 15
    spaced, separated = runs["spaces"], runs["separators"]
    assert len(separated.events) == len(spaced.events) > 20
    assert [(e.source_file.split("/separators/")[1], e.source_line) for e in separated.events] == [
        (e.source_file.split("/spaces/")[1], e.source_line) for e in spaced.events]
    assert [(q.line, q.reason) for q in separated.quarantine] == [(q.line, q.reason) for q in spaced.quarantine]
    (tmp_path / "endings.log").write_bytes(b"a\r\nb\rc\n\nd")
    assert read_text_lines(str(tmp_path / "endings.log")) == ["a", "b", "c", "", "d"]


def test_a_coloured_capture_ingests_as_the_plain_log_and_quarantines_verbatim(tmp_path):
    """A terminal's capture of a 2.4.1 broker's controller.log (the bundled real one), its
    level coloured by %highlight, gives the plain log's events; a coloured line that is no
    record is quarantined with its codes, as it was written."""
    import re
    from pathlib import Path

    from ingest.local import ingest_files

    plain = Path(__file__).resolve().parents[2] / "data/samples/real/zk-2.4-trace/broker-1/controller.log"
    lines = plain.read_text().splitlines(keepends=True)
    coloured = tmp_path / "broker-1" / "controller.log"
    coloured.parent.mkdir()
    junk = "\x1b[31mnot a record\x1b[0m\n"
    coloured.write_text(junk + "".join(re.sub(r"^(\[[^\]]+\]) ([A-Z]+) ", "\\1 \x1b[32m\\2\x1b[0m ", line)
                                       for line in lines))
    assert sum("\x1b" in line for line in coloured.read_text().splitlines()) == len(lines) + 1

    def facts(ing):
        return [e._replace(source_file=None, source_line=None) for e in ing.events]

    want, got = ingest_files([str(plain)], "c"), ingest_files([str(coloured)], "c")
    assert want.events and facts(got) == facts(want)
    assert [(line, raw) for _, line, _, raw in got.quarantine] == [(1, junk.rstrip("\n"))]


def test_a_crashs_nul_padding_is_quarantined_and_the_record_after_it_is_read(tmp_path):
    """A host crash can leave the end of a log file as a run of NUL bytes (its length written, its
    last blocks not); the restarted broker appends after them, its first line glued to the run. The
    bundled 2.4 capture with three crashes written into its busiest state-change.log: after a
    complete line, after a line cut short, and one it never came back from (the file ends in NULs).
    Each run is quarantined as crash padding with the cut text before it, and every record is read:
    the same events as the intact capture (the glued records were quarantined whole before)."""
    import shutil
    from pathlib import Path

    from ingest.envelope import CRASH_PADDING
    from ingest.local import ingest_files, log_files

    sample = Path(__file__).resolve().parents[2] / "data" / "samples" / "real" / "zk-2.4-trace"
    padded = tmp_path / "zk-2.4-trace"
    shutil.copytree(sample, padded)
    plain = ingest_files(log_files(sample), "c")
    by_file = Counter(e.source_file for e in plain.events if e.source_file.endswith("state-change.log"))
    busiest = by_file.most_common(1)[0][0]
    i, j = sorted({e.source_line for e in plain.events if e.source_file == busiest})[3:11:7]
    target = padded / Path(busiest).relative_to(sample)
    lines = target.read_text().splitlines()
    lines[i - 1] = "\x00" * 4096 + lines[i - 1]
    lines[j - 1] = lines[j - 1][:40] + "\x00" * 100 + lines[j - 1]
    target.write_text("\n".join(lines) + "\n" + "\x00" * 512)

    crashed = ingest_files(log_files(padded), "c")
    assert [e._replace(source_file=e.source_file.replace(str(padded), str(sample))) for e in crashed.events] == plain.events
    assert [(Path(f).name, line, reason, raw) for f, line, reason, raw in crashed.quarantine] == [
        ("state-change.log", i, CRASH_PADDING, "\x00" * 4096),
        ("state-change.log", j, CRASH_PADDING, lines[j - 1][:40] + "\x00" * 100),
        ("state-change.log", len(lines) + 1, CRASH_PADDING, "\x00" * 512)]
    info = crashed.files[str(target)]
    assert info["lines"] == len(lines) + 1 == info["recognized"] + info["quarantined"] and info["quarantined"] == 1


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_column_of_stamps_reads_as_each_stamp_does(zone):
    """Clock.stamps_ms, the parse's reading of a run of heads at once, is Clock.ms of each stamp:
    across a DST change, with a minute past 59 and a day no month has (NaN: ms reads None)."""
    import pyarrow as pa

    stamps = ["2024-03-10 01:59:59,999", "2024-03-10 02:30:00,000", "2024-03-10 03:00:00.001", "2024-11-03 01:30:00,500",
              "2024-05-01 13:75:00,000", "2023-02-30 10:00:00,000", "2024-05-01 13:00:00,123"]
    clock = Clock(zone)
    got = clock.stamps_ms(pa.array(stamps)).tolist()
    assert [None if v != v else int(v) for v in got] == [clock.ms(s) for s in stamps]


def test_the_lines_glued_a_run_at_once_are_those_feed_glues_whatever_the_record():
    """plain_continuations marks a line only where RecordAssembler.feed glues it to an open record
    of any level (a continuation, not blank, no wrapper, head or dump line); a run of them glued
    at once (RecordAssembler.glue) gives the records feeding them one by one gives."""
    import pyarrow as pa

    from ingest.envelope import RecordAssembler, is_continuation, plain_continuations

    lines = ["\tat kafka.controller.X.y(X.scala:1)", "Caused by: java.io.IOException: boom", "    indented dump line",
             "... 3 more", "java.lang.IllegalStateException: x", "Suppressed: a", "\t", "   ", "", "at | compose",
             "kafka-1  | \tat x", " payload: {\"x\": 1}", "| offset: 3", "[2024-05-01 13:00:00,000] INFO x (y)",
             "2024-05-01 x", "{\"log\": \"\\tat x\"}", "\tat é", "\tat \x1b[1mx", "plain words", "1Exception: x",
             "at x\r", "Exception"]
    marked = plain_continuations(pa.array(lines)).tolist()
    assert marked[:6] == [True] * 6 and not any(marked[6:])
    for line, glued in zip(lines, marked):
        if glued:
            assert is_continuation(line) and unwrap(line) == (None, line) and parse_head(line) is None
    head = "[2024-05-01 13:00:00,000] INFO x (kafka.log.Log)"
    one, runs = RecordAssembler(), RecordAssembler()
    by_line = [r for n, line in enumerate([head, *lines[:6]], 1) for r in one.feed(n, line)] + list(one.close())
    list(runs.feed(1, head))
    assert runs.glue(lines[:6])
    assert by_line == list(runs.close())
    assert not RecordAssembler().glue(lines[:1])   # no record open: nothing glued
