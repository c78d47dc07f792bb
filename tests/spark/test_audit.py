"""The audit job end to end: real local Spark, real Delta tables, chispa comparisons."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality
from delta.tables import DeltaTable

from pyspark.sql import functions as F

from frames import comparable
from histories import write_history
from jobs.audit import AuditConfig, AuditError, register_tables, run
from jobs.quality import QualityGateFailed
from schemas.tables import DERIVED_TIMES, REPLAY_TIMES
from state_machine.carried import broker_changes, carried_cluster, config_changes, controller_changes
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era
from state_machine.events import Event, event_from_mapping
from state_machine.generator import FAULTS
from terminal import Terminal

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"


def table(spark, warehouse, name):
    return spark.read.format("delta").load(str(Path(warehouse) / name))


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    d = tmp_path_factory.mktemp("faulty")
    truth = write_history(d / "history.jsonl", cluster="e2e", era="2.4", seed=7, steps=120, brokers=5, topics=2,
                          partitions=3, faults={f: 2 for f in FAULTS}, fault_rate=0.4)
    return d, truth


@pytest.fixture(scope="module")
def faulty_audited(faulty, tmp_path_factory):
    """`controller-replay audit` of the faulty history as a person runs it from a shell (its own
    embedded session, in a subprocess), stderr the terminal and stdout a file: (warehouse,
    terminal, what stdout got). The rerun test goes on from a copy of its warehouse."""
    inputs, _ = faulty
    d = tmp_path_factory.mktemp("faulty_audited")
    warehouse, summary = d / "wh", d / "summary.txt"
    exe = Path(sys.executable).with_name("controller-replay")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    term = Terminal([str(exe), "audit", "--input", str(inputs), "--warehouse", str(warehouse),
                     "--kafka-version", "2.4"], env, stdout=summary)
    try:
        assert term.wait(900) == 0, term.seen[-3000:]
    finally:
        term.close()
    return warehouse, term, summary.read_text()


def test_cli_audit_reports_exactly_the_injected_faults(spark, faulty, faulty_audited):
    """On the terminal, a line as each phase begins, in order, and Spark's stage progress bar;
    the summary in the file, alone. (Piped or in CI it prints no progress: tests/test_progress.py.)"""
    _, truth = faulty
    warehouse, term, printed = faulty_audited
    exe = Path(sys.executable).with_name("controller-replay")
    phases = [line.split(" (")[0] for line in term.seen.splitlines() if line.startswith("audit: ")]
    assert phases == ["audit: 1/5 reading the input", "audit: 2/5 checking the events",
                      "audit: 3/5 replaying the partitions", "audit: 4/5 checking the tables",
                      "audit: 5/5 writing the tables"], term.seen
    assert "[Stage " in term.printed, term.printed   # the bar, redrawn in place and cleared at each job's end
    assert printed.startswith("run ") and "quarantined 0" in printed
    assert "audit: " not in printed and "[Stage " not in printed

    violations = table(spark, warehouse, "violations")
    got = violations.select("rule", "cluster", "topic", "partition", "seq")
    want = spark.createDataFrame([(t["rule"], t["cluster"], t["topic"], t["partition"], t["seq"]) for t in truth],
                                 got.schema)
    assert truth
    assert_df_equality(got, want, ignore_row_order=True, ignore_nullable=True)
    runs = table(spark, warehouse, "audit_runs").collect()
    assert len(runs) == 1 and runs[0]["counts_reconcile"] and runs[0]["records_quarantined"] == 0

    # `controller-replay sql` over the same warehouse, its queries in one session: each one's answer,
    # or one line saying what is wrong with it (and the next still runs; the exit status says one failed).
    good = "SELECT rule, count(*) AS n FROM violations GROUP BY rule ORDER BY rule"
    sql = subprocess.run([str(exe), "sql", "--warehouse", str(warehouse), "--full", "SELECT file FROM quarantine", good],
                         capture_output=True, text=True, timeout=600)
    assert sql.returncode == 2, sql.stderr[-3000:]
    assert sql.stdout.startswith("-- SELECT file FROM quarantine\n-- " + good + "\n+"), sql.stdout
    cells = sql.stdout.replace(" ", "")
    for rule in {t["rule"] for t in truth}:
        assert f"|{rule}|{sum(t['rule'] == rule for t in truth)}|" in cells, sql.stdout
    assert "sql: [UNRESOLVED_COLUMN" in sql.stderr and "source_file" in sql.stderr
    assert "Traceback" not in sql.stderr and "SQLQueryContextLogger" not in sql.stderr, sql.stderr[-3000:]


def test_rerun_adds_no_duplicates_and_other_inputs_are_kept(spark, faulty, faulty_audited, tmp_path):
    inputs, _ = faulty
    warehouse = str(tmp_path / "wh")
    shutil.copytree(faulty_audited[0], warehouse)   # the first run: the command's
    first = {n: table(spark, warehouse, n).cache() for n in ("partition_timeline", "replica_timeline", "violations")}
    counts = {n: df.count() for n, df in first.items()}
    run(spark, AuditConfig(inputs=[str(inputs)], warehouse=warehouse, kafka_versions=["2.4"]))
    for name, before in first.items():
        assert_df_equality(comparable(table(spark, warehouse, name)), comparable(before), ignore_row_order=True)
    other = tmp_path / "other"
    other.mkdir()
    write_history(other / "h.jsonl", cluster="other", era="2.4", seed=3, steps=30)
    run(spark, AuditConfig(inputs=[str(other)], warehouse=warehouse, kafka_versions=["2.4"]))
    timeline = table(spark, warehouse, "partition_timeline")
    assert timeline.where("cluster = 'e2e'").count() == counts["partition_timeline"]
    assert timeline.where("cluster = 'other'").count() > 0
    assert table(spark, warehouse, "audit_runs").count() == 3
    # Nothing was quarantined: the table is there (made by the first run), empty, with no commit after.
    assert table(spark, warehouse, "quarantine").count() == 0
    assert DeltaTable.forPath(spark, str(Path(warehouse) / "quarantine")).history().count() == 1
    assert set(register_tables(spark, warehouse)) >= {"partition_timeline", "quarantine", "violations", "audit_runs"}
    leader = spark.sql("SELECT leader FROM partition_timeline WHERE cluster = 'e2e' AND valid_to IS NULL")
    assert leader.count() > 0


def test_a_table_that_cannot_be_written_stops_the_audit_and_the_others_are_rolled_back(spark, tmp_path, monkeypatch):
    """The tables are written at the same time, each its own commit: one that fails (here the
    first in order) stops the audit naming it; the others had committed the run's rows, and the
    run takes them back (a run is whole or absent): no row of it, no audit_runs row."""
    import jobs.audit as audit

    inputs = tmp_path / "in"
    inputs.mkdir()
    truth = write_history(inputs / "h.jsonl", cluster="lost", era="2.4", seed=7, steps=40, brokers=4,
                          faults={f: 1 for f in FAULTS}, fault_rate=0.4)
    assert truth
    real = audit.write_replayed

    def write_replayed(spark, warehouse, name, *args, **kwargs):
        if name == "partition_timeline":
            raise AuditError("table partition_timeline: the write lost to concurrent writers 6 times")
        return real(spark, warehouse, name, *args, **kwargs)

    monkeypatch.setattr(audit, "write_replayed", write_replayed)
    warehouse = tmp_path / "wh"
    with pytest.raises(AuditError, match="table partition_timeline"):
        run(spark, AuditConfig(inputs=[str(inputs)], warehouse=str(warehouse), run_id="lost-run"))
    assert not (warehouse / "audit_runs").exists()
    for name in ("replica_timeline", "violations"):
        operations = [(r["operation"], r["userMetadata"] or "") for r in
                      DeltaTable.forPath(spark, str(warehouse / name)).history().orderBy("version").collect()]
        # Made, written by the run, then written back by its rollback.
        assert [op for op, _ in operations][1:] == ["WRITE", "WRITE"]
        assert '"run_id": "lost-run"' in operations[1][1] and '"repair_of": ["lost-run"]' in operations[2][1]
        assert table(spark, warehouse, name).where("cluster = 'lost'").count() == 0


REPLAYED = ("partition_timeline", "replica_timeline", "violations")


def _input(tmp_path, name: str, lines: list[str]) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "events.jsonl").write_text("\n".join(lines) + "\n")
    return d


def _event_line(cluster: str, source_file: str, t: int, **fields) -> str:
    """One canonical event as a JSON line: the t-th of its file, t seconds into the history."""
    return json.dumps({"cluster": cluster, "seq": t, "event_time_ms": 1_700_000_000_000 + t * 1000,
                       "source_file": source_file, "source_line": t, **fields})


def _held(spark, warehouse) -> dict[str, list[dict]]:
    return {name: [r.asDict() for r in table(spark, warehouse, name).collect()] for name in REPLAYED}


def _one_after_another(*audits: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """What the replayed tables hold after `audits` (each one input of one cluster audited alone,
    in time order): each partition's rows of the first, then of the next, numbered again, and a
    timeline row's valid_to the next row's valid_from (built here row by row, not by the job)."""
    out = {}
    for name in REPLAYED:
        by_partition: dict[tuple, list] = {}
        for held in audits:
            for r in sorted(held[name], key=lambda r: r["ordinal"]):
                by_partition.setdefault((r["cluster"], r["topic"], r["partition"]), []).append(dict(r))
        out[name] = []
        for rows in by_partition.values():
            for i, r in enumerate(rows):
                r["ordinal"] = i
                if "valid_to" in r:
                    r["valid_to"] = rows[i + 1]["valid_from"] if i + 1 < len(rows) else None
            out[name] += rows
    return out


def _assert_holds(spark, warehouse, expected: dict[str, list[dict]]) -> None:
    for name in REPLAYED:
        held = table(spark, warehouse, name)
        want = spark.createDataFrame(expected[name], held.schema)
        assert_df_equality(comparable(held), comparable(want), ignore_row_order=True, ignore_nullable=True)


def _replayed_by_the_core(events: list[Event], cluster: str, era: str, start_ms: int) -> dict[str, list[tuple]]:
    """The core's replay of `events` (one cluster's, in seq order): its rows from `start_ms` on
    (and those with no time), as the columns of _TUESDAY_COLUMNS, per replayed table."""
    out = {name: [] for name in REPLAYED}
    for (topic, partition), r in replay_cluster(cluster, events, resolve_era(era)).items():
        key = (cluster, topic, partition)
        out["partition_timeline"] += [key + (x.seq, x.partition_state, x.leader, x.leader_epoch, list(x.isr),
                                                list(x.replicas), x.controller_epoch, x.election, x.source, x.inferred)
                                      for x in r.timeline if x.valid_from is None or x.valid_from >= start_ms]
        out["replica_timeline"] += [key + (x.seq, x.replica, x.replica_state, x.source, x.inferred)
                                    for x in r.replica_timeline if x.valid_from is None or x.valid_from >= start_ms]
        out["violations"] += [key + (v.seq, v.rule, v.severity, v.detail, list(v.evidence))
                              for v in r.violations if v.event_time_ms is None or v.event_time_ms >= start_ms]
    return out


_TUESDAY_COLUMNS = {
    "partition_timeline": ("seq", "partition_state", "leader", "leader_epoch", "isr", "replicas", "controller_epoch",
                           "election", "source", "inferred"),
    "replica_timeline": ("seq", "replica", "replica_state", "source", "inferred"),
    "violations": ("seq", "rule", "severity", "detail", "evidence"),
}


def _assert_from(spark, warehouse, start_ms: int, expected: dict[str, list[tuple]]) -> None:
    """The replayed tables' rows from `start_ms` on are `expected` (_replayed_by_the_core)."""
    for name, columns in _TUESDAY_COLUMNS.items():
        at = F.unix_millis(F.col(REPLAY_TIMES[name]))
        held = table(spark, warehouse, name).where(at.isNull() | (at >= start_ms)).select("cluster", "topic", "partition", *columns)
        want = spark.createDataFrame(expected[name], held.schema)
        assert_df_equality(held, want, ignore_row_order=True, ignore_nullable=True)


def test_one_clusters_inputs_of_other_times_are_all_kept_and_a_grown_one_replaces_what_it_covers(spark, tmp_path):
    # The nightly audit: Monday's logs, then Tuesday's (or Monday's as a backfill); or the logs so far.
    whole = tmp_path / "history.jsonl"
    write_history(whole, cluster="nightly", era="2.4", seed=11, steps=80, brokers=4, topics=2, partitions=2,
                  faults={f: 1 for f in FAULTS}, fault_rate=0.3)
    lines = whole.read_text().splitlines()
    cut = len(lines) // 2
    while json.loads(lines[cut])["event_time_ms"] == json.loads(lines[cut - 1])["event_time_ms"]:
        cut += 1   # the two halves' time windows do not meet
    monday, tuesday = _input(tmp_path, "monday", lines[:cut]), _input(tmp_path, "tuesday", lines[cut:])
    grown = _input(tmp_path, "grown", lines)
    events = [event_from_mapping(json.loads(line)) for line in lines]
    start = events[cut].event_time_ms

    def audit(d: Path, warehouse: str):
        return run(spark, AuditConfig(inputs=[str(d)], warehouse=str(tmp_path / warehouse)))

    assert audit(monday, "nightly").windows == {}
    audit(tuesday, "backfill")    # Tuesday first: no earlier rows to go on from
    monday_alone, tuesday_alone = _held(spark, tmp_path / "nightly"), _held(spark, tmp_path / "backfill")
    assert monday_alone["partition_timeline"] and monday_alone["replica_timeline"] and tuesday_alone["partition_timeline"]

    summary = audit(tuesday, "nightly")
    times = [e.event_time_ms for e in events[cut:]]
    assert summary.windows == {"nightly": (min(times), max(times))}
    recorded = table(spark, tmp_path / "nightly", "audit_runs").where(f"run_id = '{summary.run_id}'").first()
    iso = [_iso(t) for t in (min(times), max(times))]
    assert json.loads(recorded["time_windows"]) == {"nightly": iso}
    monday_partitions = {(r["topic"], r["partition"]) for r in monday_alone["partition_timeline"]}
    assert summary.carried == {"nightly": len(monday_partitions)}
    assert any(line.startswith("  nightly was audited before: this run's rows replace its rows from 20")
               for line in summary.lines()), summary.lines()
    assert f"  nightly: the replay of {len(monday_partitions)} partitions went on from the state its rows before " \
           f"{iso[0]} left them in" in summary.lines()
    # Monday's rows stay; Tuesday's are the core's replay of Tuesday's events behind what Monday's
    # rows carry (built here from the core's replay of Monday, not from the tables).
    monday_replayed = replay_cluster("nightly", events[:cut], resolve_era("2.4"))
    # Monday's run recorded its failovers, broker changes and unclean settings; Tuesday's carries what they left.
    monday_run = table(spark, tmp_path / "nightly", "audit_runs").where(f"run_id != '{summary.run_id}'").first()
    for name, changes in (("controller_changes", controller_changes(events[:cut])),
                          ("broker_changes", broker_changes(events[:cut])), ("config_changes", config_changes(events[:cut]))):
        assert changes and json.loads(monday_run[name]) == {"nightly": [[_iso(t), *rest] for t, *rest in changes]}
    carried = carried_cluster("nightly", monday_replayed, start, events[:cut])
    assert {(c.topic, c.partition) for c in carried if c.event_type == "PartitionStateCarried"} == monday_partitions
    expected_tuesday = _replayed_by_the_core(carried + events[cut:], "nightly", "2.4", start)
    assert expected_tuesday != _replayed_by_the_core(events[cut:], "nightly", "2.4", start)   # the carry matters here
    _assert_from(spark, tmp_path / "nightly", start, expected_tuesday)
    nightly = _held(spark, tmp_path / "nightly")
    for name, rows in nightly.items():   # Monday's rows, but a partition's last one now ends at Tuesday's first
        kept = [r for r in rows if r[REPLAY_TIMES[name]] is not None and r[REPLAY_TIMES[name]].timestamp() * 1000 < start]
        assert sorted(map(_without_valid_to, kept), key=repr) == sorted(map(_without_valid_to, monday_alone[name]), key=repr)
    timeline = table(spark, tmp_path / "nightly", "partition_timeline")
    assert timeline.where("valid_to IS NULL").count() == timeline.select("topic", "partition").distinct().count()

    # A backfill: Monday after Tuesday keeps Tuesday's replay as it was (from Tuesday alone);
    # Tuesday audited again then goes on from Monday, as in the nightly order: its rows replace
    # its own, and the warehouse holds what the nightly order left.
    audit(monday, "backfill")
    _assert_holds(spark, tmp_path / "backfill", _one_after_another(monday_alone, tuesday_alone))
    audit(tuesday, "backfill")
    _assert_holds(spark, tmp_path / "backfill", nightly)
    # The tables derived from the timeline hold the same in both orders, and again after a re-run.
    derived = _assert_same_derived(spark, tmp_path / "backfill", tmp_path / "nightly")
    assert derived["partition_availability"] and derived["broker_failures"]

    # The logs so far: their window covers both nights' and replaces them, with the core's replay
    # of the whole history, each partition's rows one timeline.
    audit(grown, "nightly")
    first = min(e.event_time_ms for e in events)
    _assert_from(spark, tmp_path / "nightly", first, _replayed_by_the_core(events, "nightly", "2.4", first))
    timeline = table(spark, tmp_path / "nightly", "partition_timeline")
    assert timeline.where("valid_to IS NULL").count() == timeline.select("topic", "partition").distinct().count()


def _assert_same_derived(spark, warehouse, other) -> dict[str, list]:
    """The tables derived from partition_timeline (DERIVED_TIMES) hold the same rows in both
    warehouses: those rows, sorted."""
    held = {}
    for name in DERIVED_TIMES:
        a, b = (sorted(map(repr, table(spark, w, name).collect())) for w in (warehouse, other))
        assert a == b, name
        held[name] = a
    return held


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _without_valid_to(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "valid_to"}


def test_bad_records_are_quarantined_and_counts_reconcile(spark, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    write_history(inputs / "good.jsonl", cluster="q", era="1.1", seed=5, steps=10)
    good_lines = len((inputs / "good.jsonl").read_text().splitlines())
    (inputs / "bad.jsonl").write_text("\n".join([
        '{"cluster": "q", "seq": 100000, "event_type": "BrokerFailure", "brokers": [1]}',
        '{"cluster": "q", "seq": 100001, "event_type": "Broker',
        '{"cluster": "q", "seq": 100002, "event_type": "Nonsense"}',
        '{"cluster": "q", "seq": 100003, "event_type": "TopicCreation", "topic": "t", "partition": 9}',
    ]) + "\n")
    (inputs / "empty.jsonl").write_text("")
    warehouse = str(tmp_path / "wh")
    summary = run(spark, AuditConfig(inputs=[str(inputs)], warehouse=warehouse, kafka_versions=["1.1"]))
    assert (summary.records_read, summary.records_quarantined) == (good_lines + 4, 3)
    assert summary.records_read == summary.events_replayed + summary.records_quarantined  # one event per JSON line
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined
    q = table(spark, warehouse, "quarantine").select("source_line", "reason").orderBy("source_line").collect()
    assert [r["source_line"] for r in q] == [2, 3, 4]
    assert q[0]["reason"].startswith("malformed JSON") and "unknown event type" in q[1]["reason"]
    assert "replicas" in q[2]["reason"]


def test_failed_quality_gate_writes_nothing(spark, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "h.jsonl").write_text(json.dumps(
        {"cluster": "g", "seq": 1, "event_type": "TopicCreation", "topic": "t", "partition": 0, "replicas": [1, -7]}) + "\n")
    warehouse = tmp_path / "wh"
    with pytest.raises(QualityGateFailed) as err:
        run(spark, AuditConfig(inputs=[str(inputs)], warehouse=str(warehouse)))
    assert "replicas" in str(err.value)
    assert not warehouse.exists() or not any(warehouse.iterdir())


def test_an_input_with_no_file_to_read_stops_the_audit(spark, tmp_path):
    """A wrong path is not a clean, empty history: a directory holding only skipped files (a NetApp
    share's `.snapshot/` holds copies, read once they are restored, not as they are)."""
    (tmp_path / "in" / ".snapshot" / "hourly.0").mkdir(parents=True)
    (tmp_path / "in" / "manifest.json").write_text("{}")
    (tmp_path / "in" / ".hidden.log").write_text("x\n")
    (tmp_path / "in" / ".snapshot" / "hourly.0" / "state-change.log").write_text("x\n")
    warehouse = tmp_path / "wh"
    with pytest.raises(AuditError, match=r"^input .*/in holds no file to read \(skipped: files whose names start with "
                                         r"\. or _ and folders whose names start with \."):
        run(spark, AuditConfig(inputs=[str(tmp_path / "in")], warehouse=str(warehouse)))
    assert not warehouse.exists()


def test_an_era_of_the_other_mode_stops_the_audit_before_anything_is_written(spark, tmp_path):
    """A ZooKeeper-mode history pinned to a KRaft release (4.x has no ZooKeeper mode): a clear
    error naming the cluster and where its first ZooKeeper-mode events are, not a failed task."""
    warehouse = tmp_path / "wh"
    with pytest.raises(AuditError) as err:
        run(spark, AuditConfig(inputs=[str(SAMPLES / "era-2.4-trace.jsonl")], warehouse=str(warehouse),
                               kafka_versions=["4.1.0"]))
    message = str(err.value)
    assert message.startswith("cluster c-2.4: 4.1.0 (era kraft) is KRaft, but its input holds ZooKeeper-mode events: ")
    assert "TopicCreation (first at generated/c-2.4.events:4)" in message
    assert "--kafka-version c-2.4=RELEASE" in message
    assert not warehouse.exists() or not any(warehouse.iterdir())


def test_a_broker_wide_default_reaches_each_partition_as_broker_wide(spark, tmp_path):
    """Cluster-wide events are delivered to every partition unchanged: a later broker-wide
    `unclean.leader.election.enable=false` does not override the topic's own `true`, so the
    unclean election is `info`, as in the local replay."""
    from state_machine.cluster import replay_cluster
    from state_machine.eras import resolve_era
    from state_machine.events import event_from_mapping

    c1 = {"controller_id": 1, "controller_epoch": 1}
    unclean = {"config_name": "unclean.leader.election.enable"}
    specs = [
        {"event_type": "ControllerFailover", "brokers": [1, 2, 3], **c1},
        {"event_type": "TopicCreation", "topic": "t", "partition": 0, "replicas": [1, 2, 3]},
        {"event_type": "PartitionStateChange", "topic": "t", "partition": 0, "from_state": "NewPartition",
         "to_state": "OnlinePartition", "leader": 1, "leader_epoch": 0, "isr": [1, 2, 3], **c1},
        {"event_type": "ConfigChange", "topic": "t", **unclean, "config_value": "true"},
        {"event_type": "ConfigChange", **unclean, "config_value": "false"},   # the broker-wide default
        {"event_type": "IsrChange", "topic": "t", "partition": 0, "leader": 1, "leader_epoch": 0, "isr": [1]},
        {"event_type": "BrokerFailure", "brokers": [1]},
        {"event_type": "PartitionStateChange", "topic": "t", "partition": 0, "from_state": "OfflinePartition",
         "to_state": "OnlinePartition", "leader": 2, "leader_epoch": 1, "isr": [2], **c1},
    ]
    events = [{"cluster": "c", "seq": seq, "event_time_ms": 1_000 * seq, **s} for seq, s in enumerate(specs, 1)]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "h.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    warehouse = str(tmp_path / "wh")
    run(spark, AuditConfig(inputs=[str(tmp_path / "in")], warehouse=warehouse, kafka_versions=["2.4"]))
    got = table(spark, warehouse, "violations").select("topic", "partition", "rule", "severity", "seq")
    local = replay_cluster("c", [event_from_mapping(e) for e in events], resolve_era("2.4"))
    want = [("t", 0, v.rule, v.severity, v.seq) for v in local[("t", 0)].violations]
    assert want == [("t", 0, "UNCLEAN_LEADER_ELECTION", "info", 8)]
    assert_df_equality(got, spark.createDataFrame(want, got.schema), ignore_nullable=True)


def _move_nights() -> tuple[list[str], list[str]]:
    """Cluster move (2.4), canonical events: the evening starts moving payments-0 to [2, 3, 4] and
    elects orders-0's leader with no ISR named; after midnight the leader adds broker 4 to the
    ISR and the controller completes the move, and broker 5, outside orders-0's ISR, is elected
    where unclean elections are disabled."""
    def ev(t, **fields):
        return _event_line("move", "controller.log", t, **fields)
    part, c1 = {"topic": "payments", "partition": 0}, {"controller_id": 1, "controller_epoch": 1}
    orders = {"topic": "orders", "partition": 0}
    evening = [ev(1, event_type="ControllerFailover", brokers=[1, 2, 3, 4], **c1),
               ev(2, event_type="TopicCreation", replicas=[1, 2, 3], **part),
               ev(3, event_type="PartitionStateChange", from_state="NewPartition", to_state="OnlinePartition",
                  leader=1, leader_epoch=0, isr=[1, 2, 3], **part, **c1),
               ev(4, event_type="ReassignmentStart", replicas=[2, 3, 4], **part),
               ev(5, event_type="ConfigChange", config_name="unclean.leader.election.enable", config_value="false"),
               ev(6, event_type="TopicCreation", replicas=[1, 2, 5], **orders),
               ev(7, event_type="PartitionStateChange", from_state="NewPartition", to_state="OnlinePartition",
                  leader=1, leader_epoch=0, **orders, **c1)]
    night = [ev(20, event_type="IsrChange", leader=1, isr=[1, 2, 3, 4], recording_broker=1, **part),
             ev(21, event_type="LeaderAndIsr", leader=2, leader_epoch=2, isr=[1, 2, 3, 4], **part, **c1),
             ev(22, event_type="BrokerStartup", brokers=[5]),
             ev(23, event_type="LeaderAndIsr", leader=5, leader_epoch=1, isr=[5], **orders, **c1)]
    return evening, night


def _elr_nights() -> tuple[list[str], list[str]]:
    """Cluster elr (KRaft), canonical events: KIP-966 across midnight. The evening empties
    payments-0's ISR into its eligible leader replicas; after midnight broker 2, of the ELR, is
    elected."""
    def ev(t, **fields):
        return _event_line("elr", "metadata.log", t, **fields)
    part = {"topic": "payments", "partition": 0}
    evening = [ev(1, event_type="ControllerFailover", controller_id=3000, controller_epoch=1),
               ev(2, event_type="BrokerStartup", brokers=[1, 2, 3]),
               ev(3, event_type="PartitionRecord", replicas=[1, 2, 3], isr=[1, 2, 3], leader=1, leader_epoch=0,
                  zk_version=0, **part),
               ev(4, event_type="BrokerFailure", brokers=[3]),
               ev(5, event_type="PartitionChangeRecord", isr=[1, 2], elr=[3], **part),
               ev(6, event_type="BrokerFailure", brokers=[2]),
               ev(7, event_type="PartitionChangeRecord", isr=[1], elr=[2, 3], **part),
               ev(8, event_type="BrokerFailure", brokers=[1]),
               ev(9, event_type="PartitionChangeRecord", isr=[], leader=-1, elr=[1, 2, 3], **part)]
    night = [ev(20, event_type="BrokerStartup", brokers=[2]),
             ev(21, event_type="PartitionChangeRecord", isr=[2], leader=2, elr=[1, 3], **part)]
    return evening, night


@pytest.fixture(scope="module")
def midnight(spark, tmp_path_factory):
    """Two nightly audits into one warehouse, the evening's input then the night's, of the
    clusters move and elr (each its era): (warehouse, the two summaries)."""
    d = tmp_path_factory.mktemp("midnight")
    summaries = [run(spark, AuditConfig(inputs=[str(_input(d, f"night{i}", move + elr))], warehouse=str(d / "wh"),
                                        kafka_versions=["move=2.4", "elr=kraft"]))
                 for i, (move, elr) in enumerate(zip(_move_nights(), _elr_nights()))]
    return d / "wh", summaries


def test_a_reassignment_in_flight_and_an_inferred_isr_go_on_the_next_night(spark, midnight):
    """The evening's last row of payments-0 holds the reassignment's target (target_replicas),
    and the night goes on from it: the two nights' partition_timeline is the core's replay of
    the whole history. The evening's election of orders-0 names no ISR (the replay infers it, on
    a recorded row: inferred_values); the night judges that ISR inferred as the whole history
    does (a warning that says so), not as recorded (an error)."""
    warehouse, summaries = midnight
    evening, night = _move_nights()
    assert [s.records_quarantined for s in summaries] == [0, 0]
    assert [s.violations_by_rule for s in summaries] == [{}, {"UNCLEAN_LEADER_ELECTION": 1}]
    columns = ("topic", "ordinal", "valid_from", "leader", "leader_epoch", "isr", "replicas", "target_replicas",
               "election", "inferred", "inferred_values")
    nightly = table(spark, warehouse, "partition_timeline").where("cluster = 'move'").select(*columns)
    assert [tuple(r) for r in nightly.where("topic = 'payments'").orderBy("ordinal")
            .select("replicas", "target_replicas").collect()][-2:] == [([2, 3, 4, 1], [2, 3, 4]), ([2, 3, 4], None)]
    assert [tuple(r) for r in nightly.where("topic = 'orders'").orderBy("ordinal")
            .select("leader", "isr", "inferred", "inferred_values").collect()][-2:] == \
        [(1, [1, 2], False, ["isr"]), (5, [5], False, [])]
    # The two nights' rows are the core's replay of the whole history in one go.
    whole = replay_cluster("move", [event_from_mapping(json.loads(line)) for line in evening + night],
                           resolve_era("2.4"))
    as_list = lambda values: None if values is None else list(values)   # noqa: E731
    expected = [(topic, i, datetime.fromtimestamp(x.valid_from / 1000, timezone.utc), x.leader, x.leader_epoch,
                 list(x.isr), list(x.replicas), as_list(x.target_replicas), x.election, x.inferred,
                 list(x.inferred_values)) for (topic, _), r in whole.items() for i, x in enumerate(r.timeline)]
    assert_df_equality(nightly, spark.createDataFrame(expected, nightly.schema),
                       ignore_row_order=True, ignore_nullable=True)
    judged = ("topic", "partition", "rule", "severity", "detail", "facts")
    held = [r.asDict() for r in table(spark, warehouse, "violations").where("cluster = 'move'").select(*judged).collect()]
    core = [{"topic": topic, "partition": partition, "rule": v.rule, "severity": v.severity, "detail": v.detail,
             "facts": v.facts} for (topic, partition), r in whole.items() for v in r.violations]
    assert held == core
    assert [(v["severity"], v["facts"]["inferred"]) for v in held] == [("warning", "isr")]


def test_kraft_eligible_leader_replicas_are_carried_across_midnight(spark, midnight):
    """The night's election from the ELR is clean: the evening's last row holds the ELR, and
    the night goes on from it."""
    warehouse, summaries = midnight
    assert summaries[1].carried == {"move": 2, "elr": 1}
    assert table(spark, warehouse, "violations").where("cluster = 'elr'").count() == 0
    rows = table(spark, warehouse, "partition_timeline").where("cluster = 'elr'").orderBy("ordinal").select(
        "leader", "isr", "elr", "last_known_elr", "leader_recovery_state").collect()
    assert [tuple(r) for r in rows] == [
        (1, [1, 2, 3], [], [], "RECOVERED"), (1, [1, 2], [3], [], "RECOVERED"), (1, [1], [2, 3], [], "RECOVERED"),
        (-1, [], [1, 2, 3], [], "RECOVERED"), (2, [2], [1, 3], [], "RECOVERED")]


@pytest.fixture(scope="module")
def earlier_version(spark, tmp_path_factory):
    """A warehouse whose tables a version before some of their columns made (audit_runs' from
    time_windows on, partition_timeline's ELR columns), a run of that version, and a run of this
    one after it: the ELR evening (_elr_nights) and a short history of cluster upgraded, then the
    ELR night and the same history again. (warehouse, then, now, the history's file, the
    audit_runs columns added since)."""
    from jobs.writes import table_path
    from schemas.tables import TABLES

    d = tmp_path_factory.mktemp("earlier")
    events = d / "upgraded" / "events.jsonl"
    events.parent.mkdir()
    write_history(events, cluster="upgraded", era="2.4", seed=5, steps=10, brokers=3, topics=1, partitions=1)
    names = [f.name for f in TABLES["audit_runs"]]
    since = tuple(names[names.index("time_windows"):])   # the columns added since the first version
    elr_columns = ("elr", "last_known_elr", "leader_recovery_state")
    evening, night = (_input(d, name, lines) for name, lines in zip(("evening", "night"), _elr_nights()))
    warehouse, versions = d / "wh", ["elr=kraft", "upgraded=2.4"]
    with pytest.MonkeyPatch.context() as mp:   # the tables as the earlier version made them
        mp.setitem(TABLES, "audit_runs", tuple(f for f in TABLES["audit_runs"] if f.name not in since))
        mp.setitem(TABLES, "partition_timeline",
                   tuple(f for f in TABLES["partition_timeline"] if f.name not in elr_columns))
        then = run(spark, AuditConfig(inputs=[str(evening), str(events.parent)], warehouse=str(warehouse),
                                      kafka_versions=versions))
    made = {name: set(spark.read.format("delta").load(table_path(str(warehouse), name)).columns)
            for name in ("audit_runs", "partition_timeline")}
    assert not set(since) & made["audit_runs"] and not set(elr_columns) & made["partition_timeline"]
    now = run(spark, AuditConfig(inputs=[str(night), str(events.parent)], warehouse=str(warehouse),
                                 kafka_versions=versions))
    return warehouse, then, now, events, since


def test_an_audit_runs_table_of_an_earlier_version_gets_the_columns_added_since(spark, earlier_version):
    from jobs.earlier import _utc
    from schemas.tables import TABLES

    warehouse, then, now, events, since = earlier_version
    held = table(spark, warehouse, "audit_runs")
    assert held.columns == [f.name for f in TABLES["audit_runs"]]
    windows = {r["run_id"]: r["time_windows"] for r in held.collect()}
    assert windows[then.run_id] is None
    assert [r[name] is None for r in held.where(f"run_id = '{then.run_id}'").collect() for name in since[1:]] == \
        [True] * (len(since) - 1)
    times = [json.loads(line)["event_time_ms"] for line in events.read_text().splitlines()]
    assert json.loads(windows[now.run_id])["upgraded"] == [_utc(min(times)), _utc(max(times))]


def test_a_timeline_of_an_earlier_version_gets_the_elr_columns_and_its_rows_carry_none(spark, earlier_version):
    """A partition_timeline of an earlier version (no ELR columns) gets them at the night's
    write; its rows carry no ELR, so the ELR test's election reads as unclean (the ISR before it
    is empty): the columns are what makes it clean."""
    warehouse, _, now, _, _ = earlier_version
    assert now.carried["elr"] == 1
    violations = table(spark, warehouse, "violations").where("cluster = 'elr'")
    assert [r["rule"] for r in violations.collect()] == ["UNCLEAN_LEADER_ELECTION"]
    rows = table(spark, warehouse, "partition_timeline").where("cluster = 'elr'").orderBy("ordinal").select(
        "leader", "isr", "elr", "last_known_elr", "leader_recovery_state").collect()
    assert [tuple(r)[2:] for r in rows] == [(None, None, None)] * 4 + [([1, 3], [], "RECOVERED")]
