"""The audit's Delta writes: each table made with its documented columns and properties, a
replayed table's rows replacing its clusters' rows inside the run's time window, the tables
derived from partition_timeline overwritten whole for the run's clusters, MERGEs on a table's
natural key, and each commit written again when a concurrent audit's commit conflicts with it
(`committed`). Every commit carries the run's tag (jobs.runs.run_tag) as its userMetadata."""
from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.audit_args import AuditError
from jobs.delta_log import commits_since, latest_version
from jobs.session import local_frame
from schemas.tables import MERGE_KEYS, PARTITION_COLUMNS, REPLAY_TIMES, TABLE_PROPERTIES, TABLES, table_struct
from schemas.types import spark_type

KEY = ["cluster", "topic", "partition"]


def table_path(warehouse: str, name: str) -> str:
    """Absolute location of a table: a relative local warehouse is resolved here, where
    the command runs (Delta reads a relative location as a table name)."""
    if "://" in warehouse:
        return f"{warehouse.rstrip('/')}/{name}"
    return str(Path(warehouse).resolve() / name)


def load_table(spark: SparkSession, path: str) -> DataFrame | None:
    """The Delta table at `path` as its latest commit has it, None where it has no commit. Not
    DeltaTable.isDeltaTable: that answers from this process's cached view of the path, which can
    be from before another audit's first commit; a read looks at the log afresh."""
    try:
        return spark.read.format("delta").load(path)
    except AnalysisException as exc:
        if exc.getCondition() in ("PATH_NOT_FOUND", "DELTA_TABLE_NOT_FOUND", "DELTA_MISSING_DELTA_TABLE"):
            return None
        raise


CREATE_ATTEMPTS = 5


def ensure_table(spark: SparkSession, warehouse: str, name: str) -> tuple[str, bool]:
    """Create the table with its documented columns and properties if absent, else add the
    documented columns it lacks; returns (path, created). `created` is true for the one audit
    whose create made the table: of audits creating it at once, the others' creates fail (Delta
    lets one commit make version 0) and they find it there."""
    from delta.tables import DeltaTable

    path = table_path(warehouse, name)
    if load_table(spark, path) is None:
        # The columns as one schema, with their docs as comments: one call to the JVM, where a
        # column at a time is several each.
        builder = DeltaTable.create(spark).location(path).addColumns(table_struct(name, comments=True))
        for k, v in TABLE_PROPERTIES.items():
            builder = builder.property(k, v)
        if PARTITION_COLUMNS.get(name):
            builder = builder.partitionedBy(*PARTITION_COLUMNS[name])
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                builder.execute()
                return path, True
            except AnalysisException as exc:
                # Made by another audit since we looked.
                if exc.getCondition() == "TABLE_OR_VIEW_ALREADY_EXISTS":
                    break
                # Being made by another audit: its folder is there, its first commit not yet.
                if exc.getCondition() != "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION" or attempt == CREATE_ATTEMPTS:
                    raise
                time.sleep(0.5 * attempt)
    add_missing_columns(spark, path, name)
    return path, False


def first_rows(spark: SparkSession, path: str, rows: DataFrame, tag: str,
               replace: Callable[[int], None]) -> None:
    """Write the first rows of a table this audit has just made (ensure_table's `created`): an
    append, which needs nothing of the empty table's state (an overwrite would have Spark
    reconstruct it first). When another audit's rows landed between the making and this append,
    the append did not number this run's rows after theirs: `replace(version)` writes them again
    as over a table that holds rows, read at `version`, the table just before the append."""
    _tagged(rows.write.format("delta").mode("append"), tag).save(path)
    unread = rows_landed_unread(spark, path, 0, tag)
    if unread is not None:
        replace(unread)


# Operations that change no row: a commit of one of them between a write's read and its
# transaction loses nothing (Delta's history names each commit's operation).
ROWLESS_OPERATIONS = frozenset({"CREATE TABLE", "ADD COLUMNS", "CHANGE COLUMN", "SET TBLPROPERTIES",
                                "UNSET TBLPROPERTIES", "OPTIMIZE", "VACUUM START", "VACUUM END", "UPGRADE PROTOCOL"})


def rows_landed_unread(spark: SparkSession, path: str, read_at: int, tag: str) -> int | None:
    """After this writer's latest commit to `path` (userMetadata `tag`), made of rows read at
    version `read_at`: the version just before that commit, when another writer's rows landed
    after `read_at` unseen by it; else None. Delta checks a commit against those made after its
    transaction's read (`readVersion`) only, which comes later than `read_at`; a blind append
    is checked against none."""
    commits = commits_since(spark, path, read_at)
    mine = max((c for c in commits if c.user_metadata == tag), key=lambda c: c.version, default=None)
    if mine is None:   # Delta commits no append of no rows
        return None
    seen_to = mine.version - 1 if mine.blind_append or mine.read_version is None else mine.read_version
    unseen = [c for c in commits if c.version <= seen_to and c.user_metadata != tag
              and c.operation not in ROWLESS_OPERATIONS]
    return mine.version - 1 if unseen else None


def add_missing_columns(spark: SparkSession, path: str, name: str) -> None:
    """A table made by an earlier version gets the columns documented since (nullable ones: its
    rows have no value for them), so this version's rows can be written to it."""
    have = _columns(spark, path)
    missing = [f for f in TABLES[name] if f.name not in have]
    if not missing:
        return
    required = [f.name for f in missing if not f.nullable]
    if required:
        raise AuditError(f"table {name} at {path} lacks the columns {required}, which cannot be added to its "
                         "rows (not nullable): write this run to another warehouse")
    columns = ", ".join(f"`{f.name}` {spark_type(f.type).simpleString()} COMMENT {_sql_string(f.doc)}" for f in missing)
    try:
        spark.sql(f"ALTER TABLE delta.`{path}` ADD COLUMNS ({columns})")
    except AnalysisException:
        # Another audit added them since we looked (the ALTER then finds them there already).
        if any(f.name not in _columns(spark, path) for f in missing):
            raise


def _columns(spark: SparkSession, path: str) -> set[str]:
    """The columns of the Delta table at `path`, as its latest version has them."""
    from delta.tables import DeltaTable

    return set(DeltaTable.forPath(spark, path).toDF().columns)


COMMIT_ATTEMPTS = 6


def _conflicts() -> tuple[type[Exception], ...]:
    """What Delta raises when a concurrent writer committed first (optimistic concurrency)."""
    import delta.exceptions as X

    return (X.ConcurrentAppendException, X.ConcurrentDeleteReadException, X.ConcurrentDeleteDeleteException,
            X.ConcurrentTransactionException, X.ConcurrentWriteException, X.MetadataChangedException,
            X.ProtocolChangedException, X.DeltaConcurrentModificationException)


# A test hook: the process kills itself (SIGKILL, as the OOM killer or a lost node would) right
# after its Nth commit, so that the tests can show a run is whole or absent at every commit.
KILL_AFTER_COMMIT = "CONTROLLER_REPLAY_KILL_AFTER_COMMIT"
_commits = {"n": 0}
_commits_lock = threading.Lock()


def _after_commit() -> None:
    at = os.environ.get(KILL_AFTER_COMMIT)
    if not at:
        return
    with _commits_lock:
        _commits["n"] += 1
        if _commits["n"] == int(at):
            os.kill(os.getpid(), signal.SIGKILL)


def committed(name: str, write: Callable[[], str], attempts: int = COMMIT_ATTEMPTS) -> str:
    """Run one table's write (`write()`, which reads the table afresh each time); when another
    audit's commit to the table conflicts with it, wait a little and run it again. So audits of
    different clusters into one warehouse all land (Delta fails a commit that a concurrent one
    may have invalidated, and leaves the retry to the writer)."""
    conflicts, attempt = _conflicts(), 1
    while True:
        try:
            path = write()
            _after_commit()
            return path
        except conflicts as exc:
            if attempt == attempts:
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise AuditError(f"table {name}: the write lost to concurrent writers {attempts} times "
                                 f"(last: {first}). Nothing of this run is kept: the tables it had written "
                                 "are rolled back; run the audit again.") from exc
            attempt += 1
            print(f"[audit] table {name}: a concurrent write committed first ({type(exc).__name__}); "
                  f"writing again ({attempt} of {attempts})", file=sys.stderr, flush=True)
            time.sleep(random.uniform(0.2, 1.0) * attempt)   # apart, so the writers do not meet again


# Delta takes a MERGE's userMetadata from the session's conf only (a write takes it as an
# option): the audits of one process set it one MERGE at a time.
USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata"
_merge_lock = threading.Lock()


def merge_into(spark: SparkSession, warehouse: str, name: str, df: DataFrame, tag: str | None = None) -> str:
    """MERGE on the table's natural key: rows of a re-run update in place, new rows insert.
    `tag`: the commit's userMetadata (jobs.runs.run_tag)."""
    from delta.tables import DeltaTable

    path, created = ensure_table(spark, warehouse, name)
    if created:  # nothing to match against: a plain append is the same, and cheaper
        _tagged(df.write.format("delta").mode("append"), tag).save(path)
        return path
    cond = " AND ".join(f"t.`{k}` <=> s.`{k}`" for k in MERGE_KEYS[name])
    merge = (DeltaTable.forPath(spark, path).alias("t").merge(df.alias("s"), cond)
             .whenMatchedUpdateAll().whenNotMatchedInsertAll())
    if tag is None:
        merge.execute()
        return path
    with _merge_lock:
        spark.conf.set(USER_METADATA_CONF, tag)
        try:
            merge.execute()
        finally:
            spark.conf.unset(USER_METADATA_CONF)
    return path


def own_tag(tag: str | None) -> str:
    """`tag`, or one of this write's own: rows_landed_unread tells a writer's commits by their tag."""
    return tag or json.dumps({"write": uuid.uuid4().hex})


def _tagged(writer, tag: str | None):
    return writer if tag is None else writer.option("userMetadata", tag)



def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def clusters_predicate(clusters: list[str]) -> str:
    """The SQL predicate of a replaceWhere overwrite of `clusters`' rows."""
    return f"cluster IN ({', '.join(_sql_string(c) for c in clusters)})"


@dataclass
class Replaced:
    """replaced_rows' answer: the rows, read at the table's `version` (-1: it had no commit)."""
    rows: DataFrame
    version: int


def write_replayed(spark: SparkSession, warehouse: str, name: str, df: DataFrame, clusters: list[str],
                   windows: dict[str, tuple[int | None, int | None]], tag: str | None = None,
                   rows: Replaced | None = None, reread: Callable[[], None] | None = None) -> str:
    """Write a replayed table (`df`: this run's rows of `clusters`). For each cluster the run's
    rows replace the rows the table holds inside the run's time window (`windows`: cluster ->
    its input's first and last event time; rows with no time count as inside) and the rows
    outside it stay. So one cluster's disjoint inputs (each night's logs) are all kept, an input
    that grew (the logs so far) replaces what it covers, and a re-run writes the same rows.
    The cluster's partitions are then numbered again (its rows before the window, this run's,
    its rows after), and a timeline row's valid_to is the next row's valid_from. One Delta
    commit: an overwrite of the run's clusters (replaceWhere; an append to a table the run made:
    first_rows), its userMetadata `tag`; a second one when another writer's rows landed
    between the read and the write (rows_landed_unread), written again from the table as it
    was before the first. `rows`: replaced_rows of the table, read already; `reread()` is
    called when the rows written are not those (read again after a conflict, or for rows
    landed unread)."""
    path, created = ensure_table(spark, warehouse, name)
    theirs = clusters_predicate(clusters)
    tag = own_tag(tag)

    def replace(read: Replaced | None, at: int | None = None) -> None:
        for _ in range(COMMIT_ATTEMPTS):
            if read is None:
                read = replaced_rows(spark, path, name, df, clusters, windows, at)
                if reread:
                    reread()
            _tagged(read.rows.write.format("delta").mode("overwrite").option("replaceWhere", theirs), tag).save(path)
            at = rows_landed_unread(spark, path, read.version, tag)
            if at is None:
                return
            read = None
        raise AuditError(f"table {name}: other writers' rows of {', '.join(clusters)} landed between this run's "
                         f"reads of the table and its writes {COMMIT_ATTEMPTS} times; run the audit again.")

    if created:   # nothing to keep: this run's rows are all
        first_rows(spark, path, df, tag, lambda at: replace(None, at))
    else:
        replace(rows)
    return path


def replaced_rows(spark: SparkSession, path: str, name: str, df: DataFrame, clusters: list[str],
                  windows: dict[str, tuple[int | None, int | None]], version: int | None = None) -> Replaced:
    """The replayed table's rows of `clusters` once this run's (`df`) replace those inside its
    window (write_replayed): the table's rows before the window, the run's, its rows after, each
    partition's numbered again; `df` alone where the table holds nothing yet. Read at `version`,
    by default the latest."""
    from pyspark.sql.window import Window

    # Pinned to a version: the overwrite reads the rows it keeps from that version's files, which
    # stay on disk (they are only marked removed), and rows_landed_unread looks for commits after it.
    if version is None:
        version = latest_version(spark, path)
        if version is None:   # no commit: the table holds nothing yet
            return Replaced(df, -1)
    bounds = local_frame(spark, [(c, lo, hi) for c, (lo, hi) in windows.items()], "cluster string, _lo long, _hi long")
    held = spark.read.format("delta").option("versionAsOf", version).load(path).where(F.col("cluster").isin(clusters))
    at = F.unix_millis(F.col(REPLAY_TIMES[name]))
    inside = F.coalesce(at.isNull() | at.between(F.col("_lo"), F.col("_hi")), F.lit(False))
    kept = (held.join(F.broadcast(bounds), "cluster", "left").where(~inside)
            .withColumn("_block", F.when(at < F.col("_lo"), 0).otherwise(2)).drop("_lo", "_hi"))
    order = Window.partitionBy(*KEY).orderBy("_block", "ordinal")
    # A table of an earlier version lacks columns added since: its rows have no value for them.
    rows = (kept.unionByName(df.withColumn("_block", F.lit(1)), allowMissingColumns=True)
            .withColumn("ordinal", (F.row_number().over(order) - 1).cast("int")))
    if "valid_to" in df.columns:
        rows = rows.withColumn("valid_to", F.lead("valid_from").over(order))
    return Replaced(rows.select(*df.columns), version)


def write_derived(spark: SparkSession, warehouse: str, name: str, df: DataFrame, clusters: list[str],
                  tag: str | None = None) -> str:
    """Write a table derived from partition_timeline (schemas.tables.DERIVED_TIMES; `df`: all its
    rows of `clusters`): one Delta commit, an overwrite of those clusters' rows (an append to a
    table the run made: first_rows), its userMetadata `tag`."""
    path, created = ensure_table(spark, warehouse, name)
    theirs = clusters_predicate(clusters)
    rows = df.select([F.col(f.name).cast(spark_type(f.type)) for f in TABLES[name]])
    tag = own_tag(tag)

    def replace(_at: int | None = None) -> None:   # the clusters' rows are all the run's: none read
        _tagged(rows.write.format("delta").mode("overwrite").option("replaceWhere", theirs), tag).save(path)

    if created:
        first_rows(spark, path, rows, tag, replace)
    else:
        replace()
    return path
