"""A real Spark standalone cluster (master + 2 workers on 127.0.0.1) runs the submitted audit
(its Arrow grouped map on the workers' executors, in the venv's interpreter, writing Delta); the
test's local session reads its tables back."""

import subprocess
from pathlib import Path

import pytest
from chispa import assert_df_equality

from frames import comparable
from jobs.session import WORKER_DAEMON
from spark_cluster import standalone_cluster

# A hang guard, not a speed target: the cluster's master, 2 workers and driver share the 2 cores with
# the suite's sessions, and the time the comparison takes follows what runs beside it.
pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("standalone")
    gen = standalone_cluster(base)
    c = next(gen)
    yield c
    # Teardown: stop the cluster (the generator also fails on survivors) ...
    for _ in gen:
        pass
    # ... and check independently that no process carries our marker.
    left = subprocess.run(["pgrep", "-af", c.marker], capture_output=True, text=True)
    assert left.returncode == 1, f"processes survived the cluster:\n{left.stdout}"


# The clusters the cluster's audit reads: a ZooKeeper-mode capture at TRACE (every kind of state-change
# line, an unclean election) and a KRaft one (metadata records, ELR). Each is a cluster of its own, so
# its rows are the same whether the audit reads it alone or with the other samples.
CLUSTER_INPUTS = ("zk-2.4-trace", "kraft-4.0-elr")


def test_audit_on_the_cluster_matches_the_local_run(cluster, spark, samples_audit, tmp_path):
    """`spark-submit jobs/audit.py` on master + 2 workers writes the same rows as the embedded local
    run of the same inputs (the suite's audit of the samples, tests/conftest.py, which holds them)."""
    from pyspark.sql import functions as F

    summary, local = samples_audit
    inputs = [REPO / "data" / "samples" / "real" / name for name in CLUSTER_INPUTS]
    remote = tmp_path / "cluster-wh"
    # The driver as the README's nightly command starts it (--driver-memory 4g; in spark-submit's
    # default 1g it spends most of the audit in full collections), compiling with both tiers: it
    # plans the audit's queries for a minute or more, where C2's code pays for its compiles.
    proc = cluster.submit(REPO / "jobs" / "audit.py", ["--input", *map(str, inputs), "--warehouse", str(remote)],
                          conf={"spark.sql.shuffle.partitions": "4", "spark.databricks.delta.snapshotPartitions": "2",
                                "spark.python.daemon.module": WORKER_DAEMON,
                                "spark.driver.memory": "4g", "spark.driver.extraJavaOptions": "",
                                "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1"},
                          timeout=600)
    assert proc.returncode == 0, cluster.describe_failure(proc)
    # Each worker launched an executor for the audit (<worker>/<app-id>/<exec-id>).
    assert {d.parts[-3] for d in cluster.executor_dirs()} == {"worker-1", "worker-2"}
    files = {f: i for f, i in summary.files.items() if any(f"/real/{name}/" in f for name in CLUSTER_INPUTS)}
    assert files and all(i["lines"] > 0 for i in files.values())
    read, quarantined = sum(i["lines"] for i in files.values()), sum(i["quarantined"] for i in files.values())
    assert f"lines read {read:,} (recognized {read - quarantined:,}, quarantined {quarantined:,})" in proc.stdout, \
        proc.stdout
    for name in ("partition_timeline", "replica_timeline", "violations", "quarantine", "partition_availability",
                 "broker_failures"):
        a = spark.read.format("delta").load(str(remote / name))
        b = spark.read.format("delta").load(str(local / name))
        if name == "quarantine":
            a, b = a.drop("run_id"), b.drop("run_id").where(F.col("source_file").rlike("/real/(" + "|".join(CLUSTER_INPUTS) + ")/"))
        else:
            b = b.where(F.col("cluster").isin(*CLUSTER_INPUTS))
        assert_df_equality(comparable(a), comparable(b), ignore_row_order=True, ignore_nullable=True)
        if name == "partition_timeline":
            assert {r[0] for r in a.select("cluster").distinct().collect()} == set(CLUSTER_INPUTS)
