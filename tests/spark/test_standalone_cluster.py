"""A real Spark standalone cluster (master + 2 workers on 127.0.0.1) runs a submitted
Arrow grouped-map job that writes Delta; the test's local session reads it back."""

import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from chispa import assert_df_equality

from frames import comparable
from spark_cluster import standalone_cluster

# A hang guard, not a speed target: the cluster's master, 2 workers and driver share the 2 cores with
# the suite's session (the whole audit comparison took over 300 s late in the full suite).
pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
N_ROWS = 10_000
N_KEYS = 10

# Submitted as the driver's __main__: `summarize` is a module-level function of
# __main__, which cloudpickle ships by value, so executors need not import it.
# Inside it, `import state_machine` proves the executors' interpreter sees the
# editable project install. No `from __future__ import annotations` here: the
# type hints select applyInArrow's iterator form (see docs/spark-notes.md).
JOB = textwrap.dedent(
    '''
    import os
    import sys
    import time
    from typing import Iterator

    import pyarrow as pa
    import pyarrow.compute as pc

    from jobs.session import build_session

    OUT_SCHEMA = pa.schema([
        ("k", pa.int64()), ("rows", pa.int64()), ("total", pa.int64()),
        ("worker_cwd", pa.string()), ("pkg_file", pa.string()),
    ])


    def summarize(key: tuple, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import state_machine

        rows = total = 0
        for batch in batches:
            rows += batch.num_rows
            total += pc.sum(batch.column("x")).as_py() or 0
        yield pa.RecordBatch.from_pydict(
            {"k": [key[0].as_py()], "rows": [rows], "total": [total],
             "worker_cwd": [os.getcwd()], "pkg_file": [state_machine.__file__]},
            schema=OUT_SCHEMA,
        )


    def main(out: str, n_rows: int, n_keys: int, want_executors: int) -> None:
        spark = build_session(app_name="standalone-cluster-test")
        sc = spark.sparkContext
        tracker = sc._jsc.sc().statusTracker()
        # Executors register asynchronously; wait (bounded) for all of them.
        deadline = time.monotonic() + 60
        while len(tracker.getExecutorInfos()) < want_executors and time.monotonic() < deadline:
            time.sleep(0.5)

        df = spark.range(0, n_rows, 1, numPartitions=2).selectExpr(
            f"id % {n_keys} AS k", "id AS x"
        )
        result = df.groupBy("k").applyInArrow(
            summarize, "k long, rows long, total long, worker_cwd string, pkg_file string"
        )
        result.write.format("delta").mode("overwrite").save(out)
        n = spark.read.format("delta").load(out).count()

        print(f"MASTER={sc.master}")
        print(f"EXECUTORS={len(tracker.getExecutorInfos())}")
        print(f"COUNT={n}")
        sys.stdout.flush()
        spark.stop()


    if __name__ == "__main__":
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    '''
)


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


def _warm_up_delta(spark, path) -> None:
    spark.range(3).write.format("delta").save(str(path))
    assert spark.read.format("delta").load(str(path)).count() == 3


def _values(stdout: str) -> dict:
    return dict(
        line.split("=", 1) for line in stdout.splitlines()
        if line.split("=", 1)[0] in ("MASTER", "EXECUTORS", "COUNT")
    )


def test_submit_arrow_grouped_map_to_delta(cluster, spark, tmp_path):
    script = tmp_path / "job.py"
    script.write_text(JOB)
    out = tmp_path / "summary_delta"

    with ThreadPoolExecutor(1) as pool:
        submitted = pool.submit(
            cluster.submit,
            script,
            [str(out), str(N_ROWS), str(N_KEYS), "3"],
            # build_session only tunes these for local masters. Delta's default of
            # 50 snapshot partitions is 50 tiny tasks on two one-core workers. Two shuffle
            # partitions, not coalesced by AQE: one per executor.
            conf={"spark.sql.shuffle.partitions": "2",
                  "spark.sql.adaptive.coalescePartitions.enabled": "false",
                  "spark.databricks.delta.snapshotPartitions": "2",
                  # C1-only JIT: faster start-up for a job this small on 2 cores.
                  "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
                  "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1"},
            timeout=150,
        )
        # The first Delta read in a fresh JVM is slow (class loading, codegen,
        # JIT); pay it while the cluster works.
        _warm_up_delta(spark, tmp_path / "warmup_delta")
        proc = submitted.result()
    assert proc.returncode == 0, cluster.describe_failure(proc)

    vals = _values(proc.stdout)
    assert vals.get("MASTER") == cluster.master_url, cluster.describe_failure(proc)
    # The driver plus one executor per worker.
    assert int(vals["EXECUTORS"]) >= 3, cluster.describe_failure(proc)
    assert int(vals["COUNT"]) == N_KEYS
    # Each worker launched an executor for the app (<worker>/<app-id>/<exec-id>).
    assert {d.parts[-3] for d in cluster.executor_dirs()} == {"worker-1", "worker-2"}

    # Every Delta query costs seconds in the shared local session on 2 busy
    # cores: collect the 10 rows once, check them in Python, then one chispa scan.
    table = spark.read.format("delta").load(str(out))
    rows = table.collect()
    assert len(rows) == N_KEYS
    assert sum(r.rows for r in rows) == N_ROWS
    assert sum(r.total for r in rows) == N_ROWS * (N_ROWS - 1) // 2
    # The Python workers ran inside the cluster's executor dirs, with the
    # venv's editable install of the project.
    cwds = {r.worker_cwd for r in rows}
    assert all(c.startswith(str(cluster.work_dir) + "/") for c in cwds), cwds
    assert {r.pkg_file for r in rows} == {str(REPO / "state_machine" / "__init__.py")}

    per_key = N_ROWS // N_KEYS
    expected = spark.createDataFrame(
        [
            # sum of k, k+10, ..., k+10*(per_key-1)
            (k, per_key, N_KEYS * per_key * (per_key - 1) // 2 + k * per_key)
            for k in range(N_KEYS)
        ],
        "k long, rows long, total long",
    )
    assert_df_equality(
        table.select("k", "rows", "total"), expected,
        ignore_row_order=True, ignore_nullable=True,
    )


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
                                "spark.driver.memory": "4g", "spark.driver.extraJavaOptions": "",
                                "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1"},
                          timeout=600)
    assert proc.returncode == 0, cluster.describe_failure(proc)
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
