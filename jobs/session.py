"""SparkSession factory with Delta Lake, wired for offline use.

Delta's jars come from a local cache filled once by ``scripts/setup.sh``
(``jars/pom.xml``) instead of ``spark.jars.packages``: that would make every
session start resolve Maven coordinates over the network through Ivy.

Running under spark-submit (cluster or local)::

    JARS=$(.venv/bin/python -c 'import jobs.session as s; print(",".join(s.jar_paths()))')
    zip -qr dist/controller_replay.zip jobs state_machine schemas ingest   # our own code
    spark-submit --master yarn --jars "$JARS" \\
        --py-files dist/controller_replay.zip  your_entry.py ...

``--jars`` takes a comma-separated list and ships the jars to the driver and
executors; ``--py-files`` puts the zip on every Python worker's ``sys.path``.
Third-party Python deps (pyarrow, pandas, ...) must already be installed in the
workers' interpreter (``PYSPARK_PYTHON``); under spark-submit, build_session
leaves master, spark.jars and driver memory to the spark-submit command line.
A zip carries no compiled code: the ingest's C matcher (ingest/_line_scan.c) loads
only from an installed package, so to audit logs install the project in the workers'
interpreter (``pip install .``) instead of shipping a zip.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

REPO_ROOT = Path(__file__).resolve().parents[1]
TERMINAL_LOG_CONFIG = Path(__file__).resolve().parent / "conf" / "log4j2-terminal.properties"


class DeltaJarsMissing(RuntimeError):
    pass


def jars_dir() -> Path:
    return Path(os.environ.get("CONTROLLER_REPLAY_JARS") or REPO_ROOT / ".cache" / "jars")


def jar_paths() -> list[str]:
    """Absolute paths of the cached Delta jars (for spark.jars / spark-submit --jars)."""
    d = jars_dir()
    jars = sorted(str(p) for p in d.glob("*.jar"))
    if not any(Path(j).name.startswith("delta-spark_") for j in jars):
        raise DeltaJarsMissing(
            f"Delta Lake jars not found in {d}. Run `bash scripts/setup.sh` from the "
            "repository root (fetches them once from Maven Central), or point "
            "CONTROLLER_REPLAY_JARS at a directory holding them."
        )
    return jars


# PySpark's worker daemon, with Spark's own archives read once and the tasks' modules loaded
# before it forks (jobs/worker_daemon.py).
WORKER_DAEMON = "jobs.worker_daemon"


def build_session(
    app_name: str = "controller-replay",
    master: str | None = None,
    extra_conf: dict | None = None,
    warehouse_dir: str | os.PathLike | None = None,
    terminal: bool = False,
) -> SparkSession:
    # Python workers must run the interpreter that has pyarrow/pandas/our code,
    # not whatever `python3` is first on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    # Set by spark-submit / the pyspark shell: a JVM already exists, and its
    # master, --jars and driver memory are fixed by that command line.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ

    conf: dict[str, str] = {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": str(Path(warehouse_dir or "spark-warehouse").resolve()),
    }
    if not submitted:
        if master is None:
            master = "local[*]"
        conf["spark.jars"] = ",".join(jar_paths())
        # Driver = executor in local mode; 4g leaves most of a 24 GiB box to
        # the Python workers (Arrow batches live there).
        conf["spark.driver.memory"] = "4g"
        # The Python workers come from jobs.worker_daemon, which this interpreter imports. Under
        # spark-submit the executors' Python may be another (or hold the project as --py-files,
        # which the daemon starts before): the command line passes it there.
        conf["spark.python.daemon.module"] = WORKER_DAEMON
        if terminal:
            # A person reads the output: the start-up warnings are left out from the JVM's start
            # (a level set once the session is up comes after them). Spark adds its own options.
            conf["spark.driver.defaultJavaOptions"] = f"-Dlog4j2.configurationFile={TERMINAL_LOG_CONFIG}"
    if master and master.startswith("local"):
        # Default 200 shuffle partitions / 50 Delta snapshot partitions mean
        # hundreds of tiny tasks per query on a 2-core machine.
        conf["spark.sql.shuffle.partitions"] = "8"
        conf["spark.databricks.delta.snapshotPartitions"] = "2"
        # Cached frames kept uncompressed: on two cores the encoding is CPU the job lacks, and the
        # cache spills to disk (MEMORY_AND_DISK) where memory runs short.
        conf["spark.sql.inMemoryColumnarStorage.compressed"] = "false"
        # Keep driver, block manager and workers on loopback instead of
        # whatever eth0 address the hostname lookup picks.
        if not submitted:
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf.update({k: str(v) for k, v in (extra_conf or {}).items()})

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for k, v in conf.items():
        builder = builder.config(k, v)
    return builder.getOrCreate()


def local_frame(spark: SparkSession, rows, schema) -> DataFrame:
    """The driver's own few rows (tuples, or dicts by field name) as a DataFrame of `schema` (a
    StructType or a DDL string): a local relation, made through Arrow (timestamps given with
    their zone, as datetime.now(timezone.utc) is).

    `spark.createDataFrame` of a Python list pickles the rows and has Python workers, of a
    daemon started for them, read the pickles again each time a query reads the frame. The
    ingest's line-number carry and seq bases, broadcast into the events' queries, would cost a
    cold session a second Python daemon and a worker pass per query. An Arrow table becomes a
    LocalTableScan: no job, no worker (below spark.sql.execution.arrow.localRelationThreshold,
    48 MB)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType, _parse_datatype_string

    struct = schema if isinstance(schema, StructType) else _parse_datatype_string(schema)
    arrow = to_arrow_schema(struct)
    rows = list(rows)
    if rows and isinstance(rows[0], dict):
        columns = [[r.get(n) for r in rows] for n in struct.names]
    else:
        columns = list(zip(*rows)) if rows else [()] * len(struct.fields)
    table = pa.Table.from_arrays([pa.array(c, f.type) for c, f in zip(columns, arrow)], schema=arrow)
    return spark.createDataFrame(table, struct)


# Frames up to this many rows are kept as a local checkpoint (local mode), larger ones persisted.
# A checkpoint saves the driver's planning, seconds per query whatever the size, which is most of
# a small input's time; it keeps whole rows where persist keeps a columnar cache (uncompressed in
# local mode) whose queries read only their columns, which is worth more on a large input
# (bench/spark_audit.py's 5M events run slower checkpointed).
LINEAGE_CUT_MAX_ROWS = 500_000


def materialize(df: DataFrame) -> tuple[DataFrame, int]:
    """`df` computed now and kept for the queries that follow, and its row count (the count
    that fills the cache: callers use it instead of counting again).

    A persisted frame keeps its whole lineage in every query built on it: each one is analysed,
    optimised and matched against the cache again. For the audit's ingest (its parse UDFs, joins
    and unions) that driver work takes longer than the Spark jobs of a small input (a KRaft
    capture's output gate, say). So a small frame (LINEAGE_CUT_MAX_ROWS) is returned as a local
    checkpoint, which cuts the lineage; in local mode only, where it costs no fault tolerance
    (the driver is the only executor; on a cluster a lost executor's blocks could not be
    recomputed)."""
    frame, counts = materialize_counted(df, ())
    return frame, counts[()]


def keep_few(df: DataFrame) -> DataFrame:
    """`df`, a frame of few rows whatever the input's size (the ingest's packed parse output: a
    row a batch of parse rows), computed now and kept. In local mode a local checkpoint, made in
    one job: `materialize` would fill a columnar cache, count it in a second job and copy it into
    the checkpoint in a third, for a count the caller does not need. Elsewhere `materialize`'s
    persisted frame (a local checkpoint's blocks cannot be recomputed if an executor is lost)."""
    if df.sparkSession.sparkContext.master.startswith("local"):
        return df.localCheckpoint(eager=True)
    return materialize(df)[0]


def materialize_counted(df: DataFrame, by: tuple[str, ...]) -> tuple[DataFrame, dict[tuple, int]]:
    """`materialize`, with the rows counted per value of the columns `by`, keyed by tuples of
    those values: the count that fills the cache, grouped."""
    frame, profile = materialize_profiled(df, by, {})
    return frame, {k: v["rows"] for k, v in profile.items()}


def materialize_profiled(df: DataFrame, by: tuple[str, ...],
                         aggregates: dict[str, Column]) -> tuple[DataFrame, dict[tuple, dict]]:
    """`materialize_counted` with more aggregates in the same pass: per value of `by`, a dict
    of `rows` (the count) and each of `aggregates` by its name."""
    df = df.persist()
    profile = profiled(df, by, aggregates)
    rows = sum(v["rows"] for v in profile.values())
    if rows > LINEAGE_CUT_MAX_ROWS or not df.sparkSession.sparkContext.master.startswith("local"):
        return df, profile
    cut = df.localCheckpoint(eager=True)   # read from the cache just filled
    df.unpersist()
    return cut, profile


def profiled(df: DataFrame, by: tuple[str, ...], aggregates: dict[str, Column]) -> dict[tuple, dict]:
    """`materialize_profiled`'s profile of `df`, which is not kept: per value of `by`, `rows`
    and each of `aggregates`."""
    named = [F.count(F.lit(1)).alias("rows")] + [c.alias(n) for n, c in aggregates.items()]
    return {tuple(r[c] for c in by): {n: r[n] for n in ["rows", *aggregates]}
            for r in df.groupBy(*by).agg(*named).collect()}


def release(df: DataFrame) -> None:
    """Free what `materialize` (or `persist`) keeps of `df`. A local checkpoint's blocks
    belong to the RDD under its plan (a LogicalRDD), which `DataFrame.unpersist` does not
    touch: without this they would stay until the JVM collects the RDD."""
    plan = df._jdf.queryExecution().analyzed()
    # Blocking: a session stopped right after has no removal in flight.
    if plan.getClass().getName() == "org.apache.spark.sql.execution.LogicalRDD":
        plan.rdd().unpersist(True)
    else:
        df.unpersist(blocking=True)
