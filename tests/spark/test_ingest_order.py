"""The Spark ingest and the in-memory one (ingest.local) read the same logs into the same
events in the same recorded order, with the same `seq`, however Spark partitions the sort."""
from __future__ import annotations

import gzip
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from ingest.local import ingest_files, log_files
from ingest.render import render, render_kraft, without_record_metadata
from jobs.audit import file_clusters, list_input_files
from ingest.counts import RECORDED_CHANGES
from jobs.ingest_spark import ingest, profile_aggregates, read_pieces
from jobs.session import profiled
from schemas.events import EVENT_FIELD_NAMES
from state_machine.generator import SimConfig, simulate

pytestmark = pytest.mark.spark


CLUSTERS = ("gen-a", "gen-b", "gen-c", "gen-k", "gen-m", "gen-s", "real-k")
SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
MIGRATION = Path(__file__).resolve().parents[1] / "ingest" / "fixtures" / "scenarios" / "kraft-3.7.0-aborted-migration"


def render_kraft_with_aborts(events, out_dir):
    """Nodes 9-11's dumps, where the controllers that the second and third failovers replaced
    each left a metadata transaction open (copies of the last three PartitionRecords, of the
    first two BrokerFailures), which their successors aborted."""
    failovers = [i for i, e in enumerate(events) if e.event_type == "ControllerFailover"]
    render_kraft(events, out_dir, nodes=(9, 10, 11), aborted={
        failovers[1]: [e for e in events if e.event_type == "PartitionRecord"][-3:],
        failovers[2]: [e for e in events if e.event_type == "BrokerFailure"][:2]})


@contextmanager
def session_conf(spark, conf: dict[str, str]):
    """The session's settings `conf` for the block, the earlier values after it."""
    before = {k: spark.conf.get(k) for k in conf}
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            spark.conf.set(k, v)


@pytest.fixture(scope="module")
def clusters(tmp_path_factory):
    """Two ZooKeeper clusters' 2.4.1 logs, a third's 3.9.2 logs at INFO (every file starting with
    a byte-order mark, one a gzip rotation), and a KRaft cluster's
    metadata-log dumps (nodes 9, 10 and 11, one log: every record is in three files and replayed
    once, node 9's copy, though broker-10/ sorts first by name), with a controller.log line that
    announces Raft epoch 2 before its first batch (a ControllerFailover placed at the batch), and
    two aborted metadata transactions in its log; a 3.7.0 migration whose first transaction was
    aborted (the fixture scenario), and its dump printed without record metadata (aborted by
    lines); and the real KRaft capture kraft-3.x's logs without its dumps, whose Raft and
    QuorumController lines alone name each epoch's controller."""
    root = tmp_path_factory.mktemp("logs")
    for name, seed, era, level, write in (("gen-a", 5, "2.4", "trace", render), ("gen-b", 6, "2.4", "trace", render),
                                          ("gen-c", 8, "3.x", "info", lambda ev, d: render(ev, d, "3.9.2")),
                                          ("gen-k", 9, "kraft", "trace", render_kraft_with_aborts)):
        events, _ = simulate(SimConfig(cluster=name, era=era, steps=120, brokers=4, topics=2, partitions=3, seed=seed,
                                       log_level=level))
        write(events, root / name)
    # gen-c's files saved with a UTF-8 byte-order mark (a Windows editor), broker-2's controller.log
    # as a gzip rotation: Hadoop's line reader and the local ingest both drop the mark.
    for log in sorted((root / "gen-c").rglob("*.log")):
        text = log.read_text()
        if log.parent.name == "broker-2" and log.name == "controller.log":
            log.unlink()
            with gzip.open(log.with_name("controller.log.2023-11-14-22.gz"), "wt", encoding="utf-8-sig") as f:
                f.write(text)
        else:
            log.write_text(text, encoding="utf-8-sig")
    (root / "gen-k" / "broker-10" / "controller.log").write_text(
        "[2023-11-14 22:13:23,000] INFO [QuorumController id=10] In the new epoch 2, the leader is 1. "
        "(org.apache.kafka.controller.QuorumController)\n")
    shutil.copytree(MIGRATION, root / "gen-m")
    for dump in MIGRATION.rglob("*.log.txt"):
        target = root / "gen-s" / dump.relative_to(MIGRATION)
        target.parent.mkdir(parents=True)
        target.write_text(without_record_metadata(dump.read_text()))
    shutil.copytree(SAMPLES / "real" / "kraft-3.x", root / "real-k",
                    ignore=shutil.ignore_patterns("__cluster_metadata-*", "manifest.json", "describe"))
    return root


@pytest.mark.parametrize("shuffle_partitions", [1, 7])
def test_log_events_get_the_local_ingests_seq_whatever_the_partitioning(spark, clusters, shuffle_partitions):
    """`seq` is the recorded order within the cluster, 0, 1, 2, ...: the same values the
    local ingest gives, with the sort's output in one partition or spread over seven."""
    inputs = [str(clusters / name) for name in CLUSTERS]
    found = list_input_files(spark, inputs)
    conf = {"spark.sql.shuffle.partitions": str(shuffle_partitions),
            # Pinned: the sort stays in that many partitions whatever AQE makes of so small an input.
            "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_conf(spark, conf):
        ing = ingest(spark, [f for f, _ in found], file_clusters(found, None), None)
        rows = [r.asDict() for r in ing.events.collect()]
        # Every event here comes from a log, so the partitions that hold rows are the sort's.
        sorted_into = ing.events.select(F.spark_partition_id()).distinct().count()
        ing.release()
    assert sorted_into == 1 if shuffle_partitions == 1 else sorted_into > 2   # > 2: seq across partitions
    for name in CLUSTERS:
        local = ingest_files(log_files(clusters / name), name)
        want = [e._asdict() for e in local.events]
        got = sorted((r for r in rows if r["cluster"] == name), key=lambda r: r["seq"])
        for r in got:
            r["source_file"] = r["source_file"].removeprefix("file:")
        assert len(got) == len(want) > (5 if name in ("gen-m", "gen-s") else 100)
        assert [r["seq"] for r in got] == list(range(len(want)))
        assert [{k: r[k] for k in EVENT_FIELD_NAMES} for r in got] == want
        # The same transactions undone, each with the same events.
        spans = [(f if f is None else f.removeprefix("file:"), *rest) for f, *rest in ing.transactions.get(name, [])]
        local_spans = local.transactions.get(name, [])
        assert sorted(spans, key=str) == sorted(local_spans, key=str)
        assert len(local_spans) == {"gen-k": 2, "gen-m": 1, "gen-s": 1}.get(name, 0)
        assert all(n > 0 and before is not None for _, _, before, n in local_spans)
    # Without a dump, the lines name the epochs' controllers (as kraft-3.x's dump does), once each.
    assert [(r["controller_epoch"], r["controller_id"]) for r in sorted(rows, key=lambda r: r["seq"])
            if r["cluster"] == "real-k" and r["event_type"] == "ControllerFailover"] == [(1, 3), (2, None), (3, 2)]


def test_the_listing_reads_the_files_the_local_ingest_reads(spark, tmp_path):
    """Hidden folders below the input (a NetApp `.snapshot/`, `.git/`) are skipped by Hadoop's
    listing as by the local one; an input under a hidden folder is read."""
    from test_clusters import LISTING

    root = tmp_path / ".cache" / "logs"
    for relative in LISTING:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("x\n")
    assert [f for f, _ in list_input_files(spark, [str(root)])] == [f"file:{f}" for f in log_files(root)]
    assert len(log_files(root)) == sum(LISTING.values())


def _ingest_with(spark, inputs, conf, check=None):
    """The ingest of `inputs` under the settings `conf`, its events by seq and how many pieces
    the input has; `check(ingested)` is called while its frames are kept."""
    found = list_input_files(spark, [str(p) for p in inputs])
    with session_conf(spark, conf):
        ing = ingest(spark, [f for f, _ in found], file_clusters(found, None), None)
        try:
            if check is not None:
                check(ing)
            rows = [r.asDict() for r in ing.events.collect()]
        finally:
            ing.release()
        pieces = read_pieces(spark, [f for f, _ in found]).select("file", "block").distinct().count()
    for r in rows:
        r["source_file"] = r["source_file"].removeprefix("file:")
    return ing, sorted(rows, key=lambda r: r["seq"]), pieces


def _rotations(tmp_path):
    """gen-a's four brokers' logs, and under gen-r the longest-serving controller's
    state-change.log cut into three hourly rotations; that log and its lines."""
    events, _ = simulate(SimConfig(cluster="gen-r", era="2.4", steps=600, brokers=4, topics=2, partitions=3, seed=12))
    render(events, tmp_path / "gen-a")
    longest = max((tmp_path / "gen-a").glob("*/state-change.log"), key=lambda p: p.stat().st_size)   # the longest controller
    lines = longest.read_text().splitlines(keepends=True)
    one = tmp_path / "gen-r" / longest.parent.name
    one.mkdir(parents=True)
    third = len(lines) // 3
    for name, part in (("state-change.log.2023-11-14-21", lines[:third]),
                       ("state-change.log.2023-11-14-22", lines[third:2 * third]), ("state-change.log", lines[2 * third:])):
        (one / name).write_text("".join(part))
    return longest, lines


def test_events_numbered_by_pieces_are_read_from_the_kept_parse_not_kept_again(spark, tmp_path, monkeypatch):
    """Past the size that a small frame is cut at (here 0 rows), the events numbered by their
    pieces are a projection of the kept parse output: not kept a second time, with the same
    rows, seq and profile as when they are kept."""
    import jobs.ingest_spark

    def projection(ing):
        assert ing.log_order == "pieces" and len(ing.cached) == 1 and not ing.events.storageLevel.useMemory

    _rotations(tmp_path)
    kept, want, _ = _ingest_with(spark, [tmp_path / "gen-r"], {})
    monkeypatch.setattr(jobs.ingest_spark, "LINEAGE_CUT_MAX_ROWS", 0)
    ing, got, _ = _ingest_with(spark, [tmp_path / "gen-r"], {}, projection)
    assert got == want and len(got) > 400
    assert ing.profile == kept.profile


def _comparable(profile: dict) -> dict:
    """A profile with its sets as sets and its changes in seq order (Spark's collect_set and
    collect_list keep no order)."""
    return {key: {n: (set(v) if n.startswith("values_") else sorted(map(tuple, v)) if n in RECORDED_CHANGES else v)
                  for n, v in p.items()} for key, p in profile.items()}


@pytest.mark.parametrize("split_bytes", ["128m", "16k"])
def test_the_profile_the_parse_counts_is_sparks_of_the_events(spark, tmp_path, split_bytes):
    """Where the events are the parse's rows (their pieces in recorded order, or canonical events
    alone), the profile is counted by the parse (ingest.counts): the same as Spark's
    profile_aggregates of the events. Inputs: hourly rotations of one controller's
    state-change.log, its controller.log alone (controller and broker changes, logged), and
    canonical events (every kind of change) alone and beside the rotations."""
    longest, _ = _rotations(tmp_path)
    (tmp_path / "ctl" / "broker-1").mkdir(parents=True)
    shutil.copy(longest.with_name("controller.log"), tmp_path / "ctl" / "broker-1" / "controller.log")
    (tmp_path / "events").mkdir()
    shutil.copy(SAMPLES / "era-2.4-trace.jsonl", tmp_path / "events")
    def sparks(ing):
        assert ing.log_order in ("pieces", None)
        assert _comparable(ing.profile) == _comparable(profiled(ing.events, ("cluster", "event_type"), profile_aggregates()))

    changes = set()
    for inputs in ([tmp_path / "gen-r"], [tmp_path / "ctl"], [tmp_path / "events"], [tmp_path / "gen-r", tmp_path / "events"]):
        ing, _, _ = _ingest_with(spark, inputs, {"spark.sql.files.maxPartitionBytes": split_bytes}, sparks)
        changes |= {n for p in ing.profile.values() for n in RECORDED_CHANGES if p[n]}
    assert changes == set(RECORDED_CHANGES)


@pytest.mark.parametrize("split_bytes", ["128m", "16k"])
def test_one_brokers_rotations_are_numbered_by_their_pieces_without_a_sort(spark, tmp_path, split_bytes):
    """One broker's state-change.log (the longest-serving controller's) cut into hourly
    rotations, read whole or in 16 KB splits:
    every piece's events follow the previous piece's, so `seq` comes from the pieces (no global
    sort), and is the local ingest's. All four brokers' files interleave, and so do two brokers'
    lines merged into one file: the sort orders them."""
    longest, lines = _rotations(tmp_path)
    # Two brokers' state-change.logs merged by time into one file: its lines have two recording
    # brokers, which the sort, not the file, puts in order where their clocks tie.
    two = sorted((p for p in (tmp_path / "gen-a").glob("*/state-change.log") if p != longest),
                 key=lambda p: p.stat().st_size)[-1]
    merged = sorted(lines + two.read_text().splitlines(keepends=True), key=lambda line: line[:25])
    (tmp_path / "gen-x" / "broker-1").mkdir(parents=True)
    (tmp_path / "gen-x" / "broker-1" / "state-change.log").write_text("".join(merged))
    conf = {"spark.sql.files.maxPartitionBytes": split_bytes}
    for root, order in ((tmp_path / "gen-r", "pieces"), (tmp_path / "gen-a", "sort"), (tmp_path / "gen-x", "sort")):
        ing, got, pieces = _ingest_with(spark, [root], conf)
        assert ing.log_order == order
        assert pieces > (6 if split_bytes == "16k" else 0)
        want = [e._asdict() for e in ingest_files(log_files(root), root.name).events]
        assert len(got) == len(want) > 400
        assert [r["seq"] for r in got] == list(range(len(want)))
        assert [{k: r[k] for k in EVENT_FIELD_NAMES} for r in got] == want


def test_the_jvm_marks_the_lines_the_parse_would_ignore_as_python_reads_them(spark, tmp_path):
    """other_logger_heads (Java's regexes) and ingest.lines.other_logger_head (Python's) mark the
    same lines, on every sample and fixture log line and on those lines changed where the two
    could part: a logger the audit reads, a catalogue keyword after a logIdent, non-ASCII, a
    control character, a line separator Java's `$` would step over, another logger's line
    ending as the state-change logger's do."""
    lines = sorted({line for base in (SAMPLES, MIGRATION.parent) for p in base.rglob("*.log")
                    for line in p.read_text(errors="replace").splitlines()})
    changed = [line.replace(") (kafka.log.Log)", ") (kafka.controller.KafkaController)") for line in lines[::7]]
    changed += [line.replace("] Rolled", "] Removed").replace("INFO ", "INFO [Broker id=1] Shrinking ") for line in lines[::5]]
    changed += [line.replace(" (kafka.", "é (kafka.").replace("] INFO ", "] INFO \x1b[1m") for line in lines[::11]]
    changed += [line + "\u2028" for line in lines[::13]]
    changed += [line + " (state.change.logger)" for line in lines[::17]]   # the one logger told by the line's end
    path = tmp_path / "server.log"
    path.write_text("\n".join(lines + changed) + "\n")
    marked = read_pieces(spark, [path.as_uri()], other_loggers=True).select("raw", "other").collect()
    from ingest.lines import other_logger_head
    assert sum(r["other"] for r in marked) > 100
    assert [r["raw"] for r in marked if r["other"] != other_logger_head(r["raw"])] == []
