"""The violations table carries each violation's facts as data (`facts`, a map of string to
string): written from the core's rows, added to a table an earlier version made, and queried
as docs/tables.md shows."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from chispa import assert_df_equality

from pyspark.sql import functions as F

from frames import comparable
from jobs import writes
from jobs.audit import AuditConfig, register_tables, run
from schemas.tables import TABLES, table_struct
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era
from state_machine.events import event_from_mapping

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
QUERY = "unclean-elections-from-a-one-member-isr"
C1 = {"controller_id": 1, "controller_epoch": 1}


def doc_query(name: str, page: Path = ROOT / "docs" / "tables.md") -> str:
    """The SQL block that follows `<!-- query: NAME -->` on the page, as the reader copies it."""
    found = re.search(rf"<!-- query: {re.escape(name)} -->\n```sql\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert found, f"no query {name} in {page}"
    return found.group(1)


def _events(cluster: str) -> list[dict]:
    """Two partitions of one topic, AR [1, 2, 3] each: t-0's ISR shrinks to [1], t-1's to [1, 2];
    brokers 1 and 2 die and the controller elects 3 in each, an unclean election the topic forbids."""
    def part(p):
        return {"topic": "t", "partition": p}

    specs = [{"event_type": "ControllerFailover", "brokers": [1, 2, 3], **C1},
             {"event_type": "ConfigChange", "topic": "t", "config_name": "unclean.leader.election.enable",
              "config_value": "false"}]
    for p, isr in ((0, [1]), (1, [1, 2])):
        specs += [{"event_type": "TopicCreation", "replicas": [1, 2, 3], **part(p)},
                  {"event_type": "PartitionStateChange", "from_state": "NewPartition", "to_state": "OnlinePartition",
                   "leader": 1, "leader_epoch": 0, "isr": [1, 2, 3], **part(p), **C1},
                  {"event_type": "IsrChange", "leader": 1, "leader_epoch": 0, "isr": isr, **part(p)}]
    specs.append({"event_type": "BrokerFailure", "brokers": [1, 2]})
    for p in (0, 1):
        specs.append({"event_type": "PartitionStateChange", "from_state": "OfflinePartition",
                      "to_state": "OnlinePartition", "leader": 3, "leader_epoch": 1, "isr": [3], **part(p), **C1})
    return [{"cluster": cluster, "seq": t, "event_time_ms": 1_700_000_000_000 + t * 1000,
             "source_file": "controller.log", "source_line": t, **fields} for t, fields in enumerate(specs, 1)]


def _write(path: Path, events: list[dict]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _core_violations(cluster: str, events: list[dict]) -> list:
    """The core's violations of `events`, each with its partition: (topic, partition, Violation)."""
    replayed = replay_cluster(cluster, [event_from_mapping(e) for e in events], resolve_era("2.4"))
    return [(topic, partition, v) for (topic, partition), r in sorted(replayed.items()) for v in r.violations]


def test_the_docs_query_finds_every_unclean_election_whose_previous_isr_had_one_member(spark, tmp_path):
    events = _events("payments")
    warehouse = str(tmp_path / "wh")
    summary = run(spark, AuditConfig(inputs=[str(_write(tmp_path / "in", events))], warehouse=warehouse,
                                     kafka_versions=["2.4"]))
    assert summary.violations_by_rule == {"UNCLEAN_LEADER_ELECTION": 2}
    register_tables(spark, warehouse)
    got = spark.sql(doc_query(QUERY))
    # The core's unclean elections, those from an ISR of one member picked here in Python.
    want = [("payments", topic, partition, v.event_time_ms, v.severity, v.facts["leader"], v.facts["leader_before"],
             v.facts["isr_before"])
            for topic, partition, v in _core_violations("payments", events)
            if v.rule == "UNCLEAN_LEADER_ELECTION" and len(json.loads(v.facts["isr_before"])) == 1]
    assert [(w[1], w[2], w[7]) for w in want] == [("t", 0, "[1]")]   # t-1's election, from [1, 2], is left out
    want_df = (spark.createDataFrame(want, "cluster string, topic string, partition int, at long, severity string, "
                                           "leader string, leader_before string, isr_before string")
               .select("cluster", "topic", "partition", F.timestamp_millis("at").alias("event_time"), "severity",
                       "leader", "leader_before", "isr_before"))
    assert_df_equality(got, want_df, ignore_nullable=True, ignore_metadata=True)
    assert [tuple(r) for r in got.select("severity", "leader", "leader_before", "isr_before").collect()] == \
        [("error", "3", "1", "[1]")]


def test_a_violations_table_of_an_earlier_version_gets_facts_added_by_the_next_audit(spark, tmp_path, monkeypatch):
    wh = str(tmp_path / "warehouse")
    earlier = tuple(f for f in TABLES["violations"] if f.name != "facts")
    monkeypatch.setitem(TABLES, "violations", earlier)   # violations as the version before `facts` made it
    path, created = writes.ensure_table(spark, wh, "violations")
    assert created
    old_row = ("before", "t", 0, 0, 5, "LEADER_NOT_IN_ISR", "error", None, "leader 3 is not in its ISR [1, 2]",
               ["controller.log:5"])
    spark.createDataFrame([old_row], table_struct("violations")).write.format("delta").mode("append").save(path)
    monkeypatch.undo()
    assert "facts" not in spark.read.format("delta").load(path).columns

    events = _events("upgraded")
    run(spark, AuditConfig(inputs=[str(_write(tmp_path / "in", events))], warehouse=wh, kafka_versions=["2.4"]))
    held = spark.read.format("delta").load(path)
    assert held.columns == [f.name for f in TABLES["violations"]]
    # The earlier row stays, with no facts; this run's rows hold the core's facts, and their detail.
    assert [tuple(r) for r in held.where("cluster = 'before'").select("seq", "facts").collect()] == [(5, None)]
    got = held.where("cluster = 'upgraded'").select("topic", "partition", "seq", "rule", "detail", "facts")
    want = spark.createDataFrame([(topic, partition, v.seq, v.rule, v.detail, v.facts)
                                  for topic, partition, v in _core_violations("upgraded", events)], got.schema)
    assert want.count() == 2
    assert_df_equality(comparable(got), comparable(want), ignore_row_order=True, ignore_nullable=True)
