"""Canonical events the audit cannot replay are quarantined as the local runner quarantines them
(one function, schemas.validate.event_reason): an event naming no cluster unless --cluster names
one, a bad element of an array field by its index."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobs.audit import AuditConfig, run
from jobs.local_runner import read_events

pytestmark = pytest.mark.spark

GOOD = {"cluster": "q", "seq": 1, "event_type": "TopicCreation", "topic": "t", "partition": 0, "replicas": [1, 2]}
# Each line, and the reason it is quarantined with when no --cluster is given.
LINES = (
    (GOOD, None),
    ({**GOOD, "seq": 2, "partition": 1, "cluster": None}, "missing required field 'cluster'"),
    ({k: v for k, v in GOOD.items() if k != "cluster"} | {"seq": 3, "partition": 2}, "missing required field 'cluster'"),
    ({**GOOD, "seq": 4, "event_type": "IsrChange", "leader": 1, "isr": [2, "x"]},
     'isr[1]: expected an integer broker id, got "x"'),
    ({**GOOD, "seq": 5, "partition": 3, "replicas": [1, 2147483648]},
     "replicas[1]: expected an integer broker id, got 2147483648, out of the range of int"),
    ({"cluster": "q", "seq": 6, "event_type": "BrokerStartup", "brokers": [1, None]},
     "brokers[1]: expected an integer broker id, got null"),
)


@pytest.fixture
def events(tmp_path) -> Path:
    """The lines in a folder whose name a log line would take for its cluster."""
    path = tmp_path / "folder" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(record) + "\n" for record, _ in LINES))
    return path


def quarantined(spark, warehouse) -> list[tuple]:
    rows = spark.read.format("delta").load(str(warehouse / "quarantine"))
    return sorted((r.source_file, r.source_line, r.reason) for r in rows.collect())


def test_a_bad_event_is_quarantined_with_its_file_line_and_reason_as_the_local_runner_does(spark, events, tmp_path):
    summary = run(spark, AuditConfig(inputs=[str(events.parent)], warehouse=str(tmp_path / "wh")))
    want = [(f"file:{events}", n, reason) for n, (_, reason) in enumerate(LINES, 1) if reason]
    assert quarantined(spark, tmp_path / "wh") == want
    local = read_events([events]).quarantine
    assert [(f"file:{q.source_file}", q.source_line, q.reason) for q in local] == want
    assert (summary.records_read, summary.records_quarantined, summary.events_replayed) == (len(LINES), 5, 1)
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined


def test_cluster_names_the_cluster_of_the_events_that_name_none(spark, events, tmp_path):
    summary = run(spark, AuditConfig(inputs=[str(events.parent)], warehouse=str(tmp_path / "wh"), cluster="q"))
    want = [(f"file:{events}", n, reason) for n, (_, reason) in enumerate(LINES, 1)
            if reason and "cluster" not in reason]
    assert quarantined(spark, tmp_path / "wh") == want
    assert (summary.records_read, summary.records_quarantined, summary.events_replayed) == (len(LINES), 3, 3)
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined
    timeline = spark.read.format("delta").load(str(tmp_path / "wh" / "partition_timeline"))
    assert sorted((r.cluster, r.partition) for r in timeline.select("cluster", "partition").distinct().collect()) == [
        ("q", 0), ("q", 1), ("q", 2)]
