"""The audit on the logs real Kafka clusters wrote (data/samples/real/, captured by
tests/kafka_cluster): Kafka 0.8.2.2, 0.9.0.1, 0.10.2.2, 0.11.0.3, 1.0.2 and 2.4.1 in ZooKeeper mode at TRACE, Kafka 2.8.2 and 3.9.2 in
ZooKeeper mode, each at TRACE and at the stock INFO level, and Kafka 3.8.1 and 4.3.1 in KRaft mode. Each capture
of the main history holds exactly one unclean election; the audit must report it and nothing else, and
end every partition where `kafka-topics --describe` last saw it. The operations history (`*-ops`:
2.4.1 TRACE, 3.9.2 INFO, 4.3.1 KRaft) holds none in ZooKeeper mode, and in KRaft the one Kafka
itself marks unclean (the last known leader, KIP-966). The ELR history (`kraft-elr`, 4.3.1) holds
none: its one election outside the ISR is from the eligible leader replicas. `kraft-4.0-ops` and
`kraft-4.0-elr` are the same two histories on KRaft 4.0.2 formatted with ELR on. `zk-3.9-migration`
(3.9.2 TRACE) moves a ZooKeeper cluster onto a KRaft controller and runs it in dual write: none.
`kraft-failover` (4.3.1) kills the active controller while topics are being created: none."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import Window
from pyspark.sql import functions as F

from reconcile import assert_every_line_understood
from tests.ingest.test_coverage import node_ids
from state_machine.eras import resolve_era

pytestmark = pytest.mark.spark
REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
CAPTURES = sorted(p.name for p in REAL.iterdir() if (p / "manifest.json").exists())


def table(spark, warehouse, name):
    return spark.read.format("delta").load(str(Path(warehouse) / name))


@pytest.fixture(scope="module")
def audited(samples_audit):
    """The captures are audited together with the other samples, as the README's first command
    reads them (tests/conftest.py): each capture is its own cluster (named by its manifest, with
    its release). One run instead of one per capture keeps the suite's time flat as captures are
    added; each test below reads its own cluster's rows."""
    return samples_audit


def test_every_capture_is_its_own_cluster_with_its_manifests_release(audited):
    summary, _ = audited
    assert summary.records_read == summary.lines_recognized + summary.records_quarantined
    for capture in CAPTURES:
        manifest = json.loads((REAL / capture / "manifest.json").read_text())
        assert list(manifest["clusters"]) == [capture]
        assert summary.eras[capture] == str(REAL / capture / "manifest.json")


@pytest.mark.parametrize("capture", CAPTURES)
def test_real_capture_audits_to_its_expected_violations(spark, audited, capture):
    summary, warehouse = audited
    manifest = json.loads((REAL / capture / "manifest.json").read_text())
    files = {f: info for f, info in summary.files.items() if f"/real/{capture}/" in f}
    assert_every_line_understood(capture, files, table(spark, warehouse, "quarantine").where(F.col("cluster") == capture))
    unclean = manifest["expected"]["unclean"]
    v = table(spark, warehouse, "violations").where(F.col("cluster") == capture)
    got = v.select("cluster", "topic", "partition", "rule")
    assert_df_equality(got, spark.createDataFrame(
        [] if unclean is None else [(capture, unclean["topic"], unclean["partition"], "UNCLEAN_LEADER_ELECTION")],
        got.schema))
    timeline = table(spark, warehouse, "partition_timeline").where(F.col("cluster") == capture)
    if unclean is not None:
        (row,) = v.collect()
        assert f"leader {unclean['leader']} " in row.detail
        # The topic was created with unclean.leader.election.enable=true; or (ops, KRaft) Kafka's own
        # last-known-leader recovery elected it, with the config false. KRaft before 3.9 reads no
        # config: the capture asked for the election (admin UNCLEAN), which its logs do not record.
        if resolve_era(manifest["clusters"][capture]["kafka_version"]).unclean_gate == "admin_only":
            assert (row.severity, "only an admin UNCLEAN election" in row.detail) == ("error", True), row.detail
        else:
            assert row.severity == "info"
        assert ("last known leader" in row.detail) is ("why" in unclean)
        at = timeline.where((F.col("seq") == row.seq) & (F.col("topic") == unclean["topic"])).collect()
        assert [(r.leader, r.leader_epoch) for r in at] == [(unclean["leader"], unclean["leader_epoch"])]
    last = (timeline.withColumn("n", F.row_number().over(Window.partitionBy("topic", "partition").orderBy(F.desc("ordinal"))))
            .where("n = 1").select(F.concat_ws("-", "topic", F.col("partition").cast("string")).alias("tp"),
                                   "leader", F.array_sort("isr").alias("isr"), "replicas"))
    want = spark.createDataFrame([(tp, d["leader"] if d["leader"] is not None else -1, sorted(d["isr"]), d["replicas"])
                                  for tp, d in manifest["final_describe"].items()], last.schema)
    assert_df_equality(last.where(F.col("tp").isin(list(manifest["final_describe"]))), want, ignore_row_order=True)


def test_every_capture_holds_each_brokers_files_with_no_gap(spark, audited):
    """audit_runs.input_coverage of the complete captures: every broker of the manifest has its
    files, each with its time range, none is missing, and at the default threshold (10 minutes)
    no broker is silent while the others record events."""
    summary, warehouse = audited
    (row,) = table(spark, warehouse, "audit_runs").where(F.col("run_id") == summary.run_id).collect()
    coverage = json.loads(row["input_coverage"])
    for capture in CAPTURES:
        got = coverage[capture]
        assert (got["gap_minutes"], got["missing"], got["gaps"], got["without_broker"]) == (10.0, [], [], [])
        assert sorted(got["brokers"], key=int) == node_ids(capture)
        for broker in got["brokers"].values():
            assert {f["kind"] for f in broker["files"]} & {"controller", "state-change", "server"}
            assert all(broker["first"] <= f["first"] <= f["last"] <= broker["last"] for f in broker["files"])
    assert not table(spark, warehouse, "violations").where(F.col("facts").getItem("input_gap").isNotNull()).count()
