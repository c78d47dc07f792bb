"""A run is whole or absent, and a night with nothing to replay is an ordinary night: real local
Spark, real Delta tables, real processes killed with SIGKILL."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import jobs.audit as audit
import jobs.runs as runs
import jobs.writes as writes
from jobs.audit import AuditConfig, AuditError, run
from jobs.runs import RUN_TABLES, read_settled, settled_versions

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Path:
    """One cluster's night: a generated 2.6.3 history and a line that is quarantined, so the run
    commits to all four of its tables before its audit_runs row."""
    d = tmp_path_factory.mktemp("night")
    shutil.copy(SAMPLES / "era-2.6.3-info.jsonl", d / "events.jsonl")
    (d / "broken.jsonl").write_text('{"cluster": "c-2.6.3", "seq": \n')
    return d


@pytest.fixture(scope="module")
def audited(spark, night, tmp_path_factory) -> Path:
    """A warehouse that holds one complete run of the night ("first"), to copy."""
    warehouse = tmp_path_factory.mktemp("audited") / "wh"
    first = run(spark, AuditConfig(inputs=[str(night)], warehouse=str(warehouse), run_id="first"))
    assert first.records_quarantined == 1 and first.events_replayed > 0
    return warehouse


@pytest.fixture(scope="module")
def clean(spark, audited) -> dict[str, list]:
    """What readers see of `audited` (and of each copy of it)."""
    return readers_see(spark, audited)


def copy_of(warehouse: Path, tmp_path: Path) -> Path:
    shutil.copytree(warehouse, tmp_path / "wh")
    return tmp_path / "wh"


def readers_see(spark, warehouse) -> dict[str, list]:
    """What a reader sees of every table (jobs.runs.read_settled): its rows, less the run id that
    quarantined them; and the runs audit_runs holds."""
    settled = settled_versions(spark, str(warehouse))
    seen = {}
    for name in RUN_TABLES:
        df = read_settled(spark, str(warehouse), name, settled)
        seen[name] = None if df is None else sorted(map(repr, df.drop("run_id").collect()))
    df = read_settled(spark, str(warehouse), "audit_runs")
    seen["audit_runs"] = None if df is None else sorted(r["run_id"] for r in df.collect())
    return seen


def latest_rows(spark, warehouse) -> dict[str, list]:
    """Every run table's rows as its latest version holds them (settled or not), less the run id."""
    return {name: sorted(map(repr, spark.read.format("delta").load(writes.table_path(str(warehouse), name))
                             .drop("run_id").collect())) for name in RUN_TABLES}


def dead_pid() -> int:
    ended = subprocess.Popen(["true"])
    ended.wait()
    return ended.pid


class Killed(BaseException):
    """The simulated death of the audit's process (as SIGKILL: nothing of the run's own code runs after it)."""


def test_a_run_killed_after_any_of_its_commits_leaves_readers_the_runs_before_it(spark, night, audited, clean,
                                                                                  tmp_path, monkeypatch):
    warehouse = copy_of(audited, tmp_path)
    assert clean["audit_runs"] == ["first"] and all(clean[n] for n in RUN_TABLES)

    # The process dies: its tag names a process that is gone, and its own rollback never runs.
    pid = dead_pid()
    monkeypatch.setattr(audit, "run_tag", lambda run_id, clusters: runs.run_tag(run_id, clusters, pid=pid))
    monkeypatch.setattr(audit, "repair", lambda *a, **k: {})   # a killed process rolls nothing back
    # Each run first rolls back the one killed before it (jobs.runs.settle); its own commits are
    # counted from then on.
    real_settle, count = audit.settle, {"n": None}

    def settle_then_count(*args):
        settled = real_settle(*args)
        count["n"] = 0
        return settled

    monkeypatch.setattr(audit, "settle", settle_then_count)
    # The run commits to the quarantine and the three replayed tables at once, to the two derived
    # from partition_timeline after it, then writes its row: killed after its first commit and after
    # its last but that row (the SIGKILL test below kills it after its second;
    # bench/kill_at_commits.py after each in turn).
    last = len(RUN_TABLES)
    for k in (1, last):
        count["n"] = None

        def die_after_commit(k=k):
            if count["n"] is not None:
                count["n"] += 1
                if count["n"] == k:
                    raise Killed

        monkeypatch.setattr(writes, "_after_commit", die_after_commit)
        with pytest.raises(Killed):
            run(spark, AuditConfig(inputs=[str(night)], warehouse=str(warehouse), run_id=f"killed-{k}"))
        on_disk = {name: runs.table_history(spark, writes.table_path(str(warehouse), name)) for name in RUN_TABLES}
        assert sum(c.run == f"killed-{k}" for cs in on_disk.values() for c in cs) >= k
        assert readers_see(spark, warehouse) == clean, f"killed after commit {k}"
    monkeypatch.undo()

    again = run(spark, AuditConfig(inputs=[str(night)], warehouse=str(warehouse), run_id="again"))
    # Each killed run was rolled back by the next: the last by this one.
    assert list(again.rolled_back) == [f"killed-{last}"]   # killed-1 was rolled back by the last
    assert any(f"killed-{last} had died while writing" in line for line in again.lines())
    after = readers_see(spark, warehouse)
    assert after["audit_runs"] == ["again", "first"]
    assert {n: after[n] for n in RUN_TABLES} == {n: clean[n] for n in RUN_TABLES}
    # And what readers see is the tables as they are: nothing left unsettled.
    assert latest_rows(spark, warehouse) == {n: clean[n] for n in RUN_TABLES}
    rolled = json.loads(read_settled(spark, str(warehouse), "audit_runs").where("run_id = 'again'")
                        .first()["rolled_back_runs"])
    assert set(rolled) == {f"killed-{last}"} and "partition_timeline" in rolled[f"killed-{last}"]


def test_a_process_killed_by_sigkill_mid_write_is_rolled_back_by_the_next_audit(spark, night, audited, clean,
                                                                                 tmp_path):
    warehouse = copy_of(audited, tmp_path)
    env = {**os.environ, writes.KILL_AFTER_COMMIT: "2"}
    cli = [sys.executable, "-m", "jobs.cli", "audit", "--input", str(night), "--warehouse", str(warehouse)]
    killed = subprocess.run(cli, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert readers_see(spark, warehouse) == clean
    # What the next audit does first (jobs.runs.settle; the test above runs that audit whole): the
    # killed run is rolled back, and the tables as they are hold the rows they held before it.
    rolled_back, _ = runs.settle(spark, str(warehouse), "next", int(time.time() * 1000))
    assert len(rolled_back) == 1
    assert readers_see(spark, warehouse) == clean
    assert latest_rows(spark, warehouse) == {n: clean[n] for n in RUN_TABLES}


QUIET = ROOT / "data" / "samples" / "real" / "zk-0.10-trace"


def quiet_night(d: Path) -> Path:
    """One broker's controller.log of a quiet capture, with the capture's manifest."""
    (d / "broker-3").mkdir(parents=True)
    shutil.copy(QUIET / "manifest.json", d)
    shutil.copy(QUIET / "broker-3" / "controller.log", d / "broker-3")
    return d


def binary_file(d: Path) -> Path:
    d.mkdir()
    (d / "core.bin").write_bytes(bytes(range(256)) * 64 + b"\x00\x01\x02" * 1000)
    return d


def one_long_line(d: Path) -> Path:
    d.mkdir()
    with open(d / "server.log", "w") as fh:
        fh.write("x" * (50 * 1024 * 1024) + "\n")
    return d


@pytest.mark.parametrize("make", [quiet_night, binary_file, one_long_line])
def test_an_input_with_no_event_is_an_ordinary_night(spark, tmp_path, make):
    inputs = make(tmp_path / "in")
    warehouse = tmp_path / "wh"
    summary = run(spark, AuditConfig(inputs=[str(inputs)], warehouse=str(warehouse)))
    assert summary.events_replayed == 0 and summary.partitions == 0
    assert summary.records_read > 0
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined
    assert any(line.startswith("  no events replayed") for line in summary.lines())
    row = read_settled(spark, str(warehouse), "audit_runs").first()
    assert (row["run_id"], row["events_replayed"], row["counts_reconcile"]) == (summary.run_id, 0, True)
    quarantined = read_settled(spark, str(warehouse), "quarantine")
    assert (quarantined.count() if quarantined is not None else 0) == summary.records_quarantined


def test_the_cli_audits_a_quiet_night_with_exit_0(tmp_path):
    inputs = quiet_night(tmp_path / "in")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    done = subprocess.run([sys.executable, "-m", "jobs.cli", "audit", "--input", str(inputs), "--warehouse",
                           str(tmp_path / "wh")], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "events replayed 0" in done.stdout and "  no events replayed" in done.stdout
    assert "Traceback" not in done.stderr
    # Piped, and outside CI as a person's `| tee` is: no phase lines, no progress bar.
    assert "audit: 1/5" not in done.stderr and "[Stage " not in done.stderr, done.stderr[-2000:]


def test_a_warehouse_that_is_a_file_stops_the_audit_before_anything_is_read(spark, tmp_path, monkeypatch):
    warehouse = tmp_path / "wh"
    warehouse.write_text("not a folder")
    monkeypatch.setattr(audit, "list_input_files", lambda *a: pytest.fail("the inputs were read"))
    with pytest.raises(AuditError, match=r"--warehouse .*: a file, not a folder"):
        run(spark, AuditConfig(inputs=[str(SAMPLES)], warehouse=str(warehouse)))


def test_events_that_repeat_a_seq_are_said_in_the_summary_and_in_audit_runs(spark, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    lines = (SAMPLES / "era-2.6.3-info.jsonl").read_text().splitlines()
    # Three events given the seq of the event before them.
    repeated = []
    for i, line in enumerate(lines):
        event = json.loads(line)
        if i in (10, 20, 30):
            event["seq"] = json.loads(lines[i - 1])["seq"]
        repeated.append(json.dumps(event))
    (d / "events.jsonl").write_text("\n".join(repeated) + "\n")
    warehouse = tmp_path / "wh"
    summary = run(spark, AuditConfig(inputs=[str(d)], warehouse=str(warehouse)))
    assert summary.seq_repeats == {"c-2.6.3": 3}
    assert any("c-2.6.3: 3 events repeat a seq" in line for line in summary.lines())
    row = read_settled(spark, str(warehouse), "audit_runs").first()
    assert json.loads(row["seq_repeats"]) == {"c-2.6.3": 3}


def test_the_overwrite_predicate_names_exactly_the_clusters_whatever_their_names(spark):
    """Cluster names are the operator's: a quote or a backslash in one must not widen, break or
    narrow the replaceWhere that the writes and the roll-back share (jobs.writes.clusters_predicate)."""
    names = ["plain", "it's", "back\\slash", "both\\'", "x' OR '1'='1"]
    frame = spark.createDataFrame([(n,) for n in [*names, "other"]], "cluster string")
    for chosen in ([names[1]], names[2:4], [names[4]], names):
        assert sorted(r[0] for r in frame.where(writes.clusters_predicate(chosen)).collect()) == sorted(chosen)
