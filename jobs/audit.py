"""The audit job: recorded cluster events in, Delta tables out.

    spark-submit --jars "$JARS" jobs/audit.py \\
        --input events/ --warehouse /data/audit [--kafka-version [CLUSTER=]ERA ...]

(the project installed into the executors' Python: a --py-files zip cannot carry the ingest's
compiled matcher)

`run(spark, config)` is the whole pipeline; `main()` (and `controller-replay audit`)
only parse arguments and call `run_from_args`. Steps:

1-2. Read every input file split by split and turn its lines into canonical events (JSON
   event lines as they are; broker logs and KRaft dumps through ingest/), or quarantine
   rows with file, line, reason and the raw text: jobs/ingest_spark.py.
3. Gate the events with Great Expectations, and check each cluster's era can replay its
   event types (a ZooKeeper-mode history pinned to a KRaft release stops here, not in a task).
4. Route: a partition gets its own events, its topic's, its cluster's, and the broker
   events of every broker that is ever one of its replicas (joins, nothing collected).
5. Replay each (cluster, topic, partition) with the core inside a grouped map
   (`applyInArrow`, iterator form: the group streams through in seq order, in bounded memory).
6. Gate the outputs, then write the replayed tables by time window: a run's rows replace its
   clusters' rows inside its input's time window and keep the rest (a re-run of the same
   input writes the same rows again, adding none; one cluster's inputs of other times are all
   kept). MERGE the quarantine, and last append the run's row to `audit_runs` (one row per
   run, re-runs included). A table's write that a concurrent audit's commit conflicts with is
   written again (`committed`).

A run is whole or absent (jobs.runs): readers see a table's commits only once the run that made
them has its `audit_runs` row, and a run that died while writing is rolled back by the next.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import reduce
from itertools import repeat
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ingest.compressed import UnreadableInput
from ingest.counts import BROKERS_NAMED
from ingest.coverage import gap_facts, gap_segments, gaps_of, input_coverage
from ingest.detect import EraEvidence, detected_eras, era_choices
from ingest.lines import SIDE_FILES, cluster_folder, is_input
from jobs.audit_args import AuditConfig, AuditError, add_audit_arguments, config_from_args  # noqa: F401  (re-exported)
from jobs.earlier import (RECORDED_CHANGES, RecordedRuns, _utc, audited_before, carried_state, changes_of,
                          recorded_runs)
from jobs.ingest_spark import (IngestedFrames, arrow_type, ingest, loose_arrays, profile_aggregates, unreadable_inputs,
                               unreadable_message)
from jobs.delta_log import commits_since
from jobs.runs import commit_of, readers_view, repair, run_tag, settle
from jobs.session import local_frame, materialize_profiled
from jobs.writes import (COMMIT_ATTEMPTS, ROWLESS_OPERATIONS, committed, ensure_table, merge_into,
                         replaced_rows, table_path, write_derived, write_replayed)
from schemas.events import EVENT_FIELD_NAMES, FEW_VALUED_FIELDS
from schemas.tables import DERIVED_TIMES, TABLES, VIEW_SOURCES, VIEWS, table_struct
from schemas.types import spark_type
from state_machine import events as E
from state_machine.cluster import SCOPE_BY_TYPE
from state_machine.eras import resolve_era
from state_machine.replay import era_mismatches

KEY = ["cluster", "topic", "partition"]
OUTPUT_TABLES = ("partition_timeline", "replica_timeline", "violations")


@dataclass
class AuditSummary:
    run_id: str
    records_read: int
    events_replayed: int
    records_quarantined: int
    partitions: int
    violations_by_rule: dict[str, int]
    tables: dict[str, str]
    duration_s: float
    quality_gates: dict
    phases_s: dict = field(default_factory=dict)
    lines_recognized: int = 0
    files: dict = field(default_factory=dict)
    eras: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)   # cluster -> (first, last) event ms, when earlier rows met them
    carried: dict = field(default_factory=dict)   # cluster -> partitions whose replay went on from earlier rows
    transactions: dict = field(default_factory=dict)   # cluster -> metadata transactions (Ingested.transactions)
    rolled_back: dict = field(default_factory=dict)    # run -> tables: runs that died while writing, undone first
    seq_repeats: dict = field(default_factory=dict)    # cluster -> events whose seq another of its events holds
    coverage: dict = field(default_factory=dict)       # audit_runs.input_coverage (ingest.coverage.input_coverage)

    def lines(self) -> list[str]:
        out = [f"run {self.run_id}: lines read {self.records_read:,} (recognized {self.lines_recognized:,}, "
               f"quarantined {self.records_quarantined:,}); events replayed {self.events_replayed:,} ({self.duration_s:.1f}s)",
               f"partitions {self.partitions:,}; seconds per phase {self.phases_s}"]
        for file, info in sorted(self.files.items()):
            if info.get("copy_of"):
                out.append(f"  {file}: a copy of {info['copy_of']}: its {info['lines']:,} lines are quarantined, "
                           "its records read once, from that file")
            elif info.get("events", 0) != info.get("lines") or info.get("quarantined"):
                out.append(f"  {file}: {info['lines']:,} lines, {info['recognized']:,} recognized, "
                           f"{info['quarantined']:,} unrecognized, {info['events']:,} events")
        out += [f"  era of {cluster}: {how}" for cluster, how in sorted(self.eras.items())]
        out += [f"  {cluster} was audited before: this run's rows replace its rows from {_utc(lo)} to {_utc(hi)}, "
                "its rows of other times are kept" for cluster, (lo, hi) in sorted(self.windows.items())]
        out += [f"  {cluster}: the replay of {n:,} partitions went on from the state its rows before "
                f"{_utc(self.windows[cluster][0])} left them in"
                for cluster, n in sorted(self.carried.items()) if n and cluster in self.windows]
        out += [f"  {cluster}: " + _transaction_line(*span)
                for cluster, spans in sorted(self.transactions.items()) for span in spans]
        out += [f"  {cluster}: {n:,} events repeat a seq another event of the cluster holds; the order among "
                "events of one seq is not defined" for cluster, n in sorted(self.seq_repeats.items())]
        out += [f"  {g.cluster}: " + gap_facts([g])["input_gap"] + " (violations of that time say so in their facts)"
                for g in sorted(gaps_of(self.coverage), key=lambda g: (g.cluster, g.broker, g.lo))]
        out += [f"  run {run} had died while writing {', '.join(tables)}: rolled back before this run read the "
                "tables (rerun its input)" for run, tables in sorted(self.rolled_back.items())]
        if not self.events_replayed:
            out.append("  no events replayed: the input holds no record of a controller's decision, so no partition's "
                       "rows changed; its lines are accounted for above and in audit_runs")
        out += [f"  {rule}: {n}" for rule, n in sorted(self.violations_by_rule.items())] or ["  no violations"]
        out += [f"table {name}: {path}" for name, path in self.tables.items()]
        return out


def _transaction_line(file: str | None, after: int, before: int | None, n: int) -> str:
    """One summary line of a metadata transaction (Ingested.transactions)."""
    at = "offset" if file is None else "line"
    events = f"{n:,} event{'' if n == 1 else 's'} of its records"
    of = "" if file is None else f" of {file}"
    if before is None:
        return (f"the metadata transaction begun at {at} {after}{of} is still open at the input's end: {events} "
                "replayed (the active controller applied them); an abort in a later input will not undo their rows")
    begun = "begun before the input" if after < 0 else f"begun at {at} {after}"
    return f"the metadata transaction {begun} was aborted at {at} {before}{of}: {events} undone, not replayed"


def _transaction_columns(transactions: dict) -> dict[str, dict]:
    """audit_runs.aborted_transactions and .open_transactions, cluster -> list, from
    Ingested.transactions (an open one has no `before`: its row is [file, after, events])."""
    columns: dict[str, dict] = {"aborted_transactions": {}, "open_transactions": {}}
    for cluster, spans in transactions.items():
        for file, after, before, n in spans:
            if before is None:
                columns["open_transactions"].setdefault(cluster, []).append([file, after, n])
            else:
                columns["aborted_transactions"].setdefault(cluster, []).append([file, after, before, n])
    return columns


# ---------------------------------------------------------------- reading

def check_warehouse(spark: SparkSession, warehouse: str, run_id: str) -> None:
    """The warehouse is a folder this run can write in, or can be made one: found before any input
    is read, not after the whole run. A folder made to find out is removed again (a run that
    stops before it writes leaves nothing)."""
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(table_path(warehouse, ""))
    try:
        fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        if fs.exists(path) and not fs.getFileStatus(path).isDirectory():
            raise AuditError(f"--warehouse {warehouse}: a file, not a folder")
        made = None if fs.exists(path) else path   # the highest folder this check makes
        while made is not None and made.getParent() is not None and not fs.exists(made.getParent()):
            made = made.getParent()
        probe = jvm.org.apache.hadoop.fs.Path(path, f"_probe-{run_id}")
        fs.mkdirs(path)
        fs.create(probe, True).close()
        fs.delete(probe, False)
        if made is not None:
            fs.delete(made, True)
    except Exception as exc:
        if isinstance(exc, AuditError):
            raise
        reason = str(getattr(exc, "java_exception", exc)).strip().splitlines()[0]
        raise AuditError(f"--warehouse {warehouse}: cannot be written ({reason})") from None


def seq_repeats(events: DataFrame) -> dict[str, int]:
    """cluster -> how many of its events hold a seq an earlier event of it holds (canonical events
    give their own seq; the replay orders a partition's events by it)."""
    repeated = (events.groupBy("cluster", "seq").count().where(F.col("count") > 1)
                .groupBy("cluster").agg(F.sum(F.col("count") - 1).alias("n")))
    return {r["cluster"]: r["n"] for r in repeated.collect()}


def list_input_files(spark: SparkSession, inputs: list[str]) -> list[tuple[str, str]]:
    """(file, the input it was found under) for every file under the inputs, through
    Hadoop's FileSystem (local, HDFS, S3, ...)."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    files: list[tuple[str, str]] = []
    for item in inputs:
        path = jvm.org.apache.hadoop.fs.Path(item)
        fs = path.getFileSystem(conf)
        if not fs.exists(path):
            raise AuditError(f"input {item} does not exist")
        root = fs.makeQualified(path).toString()
        it = fs.listFiles(path, True)
        found = len(files)
        while it.hasNext():
            file = it.next().getPath().toString()
            if not is_input(file[len(root):].lstrip("/") if file.startswith(root + "/") else file.rsplit("/", 1)[-1]):
                continue
            files.append((file, root))
        if len(files) == found:   # a wrong path would otherwise audit to a clean, empty run
            raise AuditError(f"input {item} holds no file to read (skipped: files whose names start with . or _ and "
                             f"folders whose names start with ., *.truth.jsonl, {', '.join(SIDE_FILES)})")
    return sorted(files)


def file_clusters(found: list[tuple[str, str]], cluster: str | None) -> dict[str, str]:
    """The cluster of each file's log lines: --cluster; else the cluster named by the
    nearest manifest.json between the file and its input, or in the cluster folder above a broker's
    folder given alone; else the cluster folder's name (ingest.lines.cluster_folder: the input
    directory, a single-file input's directory, or the folder above the broker's that wrote the
    file). Canonical events name their own."""
    out: dict[str, str] = {}
    manifests: dict[str, str | None] = {}
    for file, root in found:
        if cluster:
            out[file] = cluster
            continue
        name = None
        folder = (root if file != root else file.rsplit("/", 1)[0]).rstrip("/")
        top = cluster_folder(folder, file[len(folder) + 1:].split("/")[:-1])
        if file.startswith("file:") and root.startswith("file:"):
            inside = root[len("file:"):].rstrip("/")
            folders = ([d for d in Path(file[len("file:"):]).parents if str(d).startswith(inside) and len(str(d)) >= len(inside)]
                       if file != root else [])
            for d in folders + ([Path(top[len("file:"):])] if top != folder else []):
                if str(d) not in manifests:
                    manifests[str(d)] = _manifest_cluster(d / "manifest.json")
                name = manifests[str(d)]
                if name is not None:
                    break
        out[file] = name if name is not None else top.rsplit("/", 1)[-1]
    return out


def _manifest_cluster(path: Path) -> str | None:
    try:
        clusters = json.loads(path.read_text()).get("clusters", {})
    except (OSError, ValueError, AttributeError):
        return None
    return next(iter(clusters)) if len(clusters) == 1 else None


# ---------------------------------------------------------------- routing

def _in_scope(name: str) -> Column:
    """Is an event's scope `name` by its type (state_machine.cluster.SCOPE_BY_TYPE)?"""
    def held(types: frozenset[str], without_topic: bool) -> Column:
        of_type = F.col("event_type").isin(*sorted(types))
        return of_type & F.col("topic").isNull() if without_topic else of_type

    return reduce(Column.__or__, (held(types, without_topic) for scope_name, types, without_topic in SCOPE_BY_TYPE
                                  if scope_name == name))


def route(events: DataFrame) -> DataFrame:
    """Deliver every event to the partitions it concerns (state_machine.cluster.scope):
    adds r_topic / r_partition, the partition that receives the event."""
    is_broker, is_cluster = (_in_scope(name) for name in ("broker", "cluster"))
    own = events.where(F.col("partition").isNotNull() & F.col("topic").isNotNull())
    keys = own.select("cluster", "topic", "partition").distinct()
    # Brokers a partition ever names as (possible) replicas (state_machine.cluster.brokers_named).
    named = F.concat(F.coalesce("replicas", F.array().cast("array<int>")), F.coalesce("isr", F.array().cast("array<int>")),
                     F.array(F.coalesce("replica", F.lit(-1))), F.array(F.coalesce("leader", F.lit(-1))))
    hosted = (own.select("cluster", "topic", "partition", F.explode(named).alias("broker"))
              .where(F.col("broker") >= 0).groupBy("cluster", "topic", "partition")
              .agg(F.collect_set("broker").alias("hosted")))
    # One row per (partition, broker of it), each with all the partition's brokers.
    hosts = hosted.select(F.col("cluster"), F.col("topic").alias("r_topic"), F.col("partition").alias("r_partition"),
                          F.explode("hosted").alias("broker"), F.col("hosted"))
    rest = events.where(~(F.col("partition").isNotNull() & F.col("topic").isNotNull()))
    # An event naming several brokers of one partition meets it once per broker in the join;
    # only the first of its brokers the partition names is kept (no shuffle to deduplicate).
    broker_events = (rest.where(is_broker).withColumn("broker", F.explode("brokers"))
                     .join(hosts, ["cluster", "broker"])
                     .where(F.col("broker") == F.element_at(F.array_intersect("brokers", "hosted"), 1))
                     .drop("broker", "hosted"))
    cluster_events = rest.where(is_cluster & ~is_broker).join(
        keys.withColumnRenamed("topic", "r_topic").withColumnRenamed("partition", "r_partition"), ["cluster"])
    topic_events = rest.where(~is_cluster & ~is_broker & F.col("topic").isNotNull()).join(
        keys.withColumn("r_topic", F.col("topic")).withColumnRenamed("partition", "r_partition"),
        ["cluster", "topic"])
    partition_events = own.withColumn("r_topic", F.col("topic")).withColumn("r_partition", F.col("partition"))
    cols = list(EVENT_FIELD_NAMES) + ["r_topic", "r_partition"]
    return (partition_events.select(cols).unionByName(broker_events.select(cols))
            .unionByName(cluster_events.select(cols)).unionByName(topic_events.select(cols)))


# ---------------------------------------------------------------- replay

def output_schema() -> T.StructType:
    """One schema for the grouped map's output: a `kind` column and the union of the
    three tables' columns (null where a table has no such column)."""
    fields: dict[str, T.StructField] = {"kind": T.StructField("kind", T.StringType(), False)}
    for name in OUTPUT_TABLES:
        for f in TABLES[name]:
            if f.name not in fields:
                dt = loose_arrays(spark_type(f.type)) if f.type != "timestamp" else T.LongType()  # epoch ms until split
                fields[f.name] = T.StructField(f.name, dt, True)
    return T.StructType(list(fields.values()))


# Per output table: its grouped-map columns and the attribute of the core's row
# (state_machine.replay) each is read from. Every other column of the table's rows is null.
ROW_COLUMNS = {
    "partition_timeline": {n: n for n in ("seq", "valid_from", "valid_to", "partition_state", "leader", "leader_epoch",
                                          "isr", "replicas", "controller_epoch", "election", "source", "inferred",
                                          "elr", "last_known_elr", "leader_recovery_state", "target_replicas",
                                          "inferred_values")},
    "replica_timeline": {n: n for n in ("seq", "valid_from", "replica", "replica_state", "source", "inferred")},
    "violations": {"seq": "seq", "rule": "rule", "severity": "severity", "event_time": "event_time_ms",
                   "detail": "detail", "evidence": "evidence", "facts": "facts"},
}


# Event fields the grouped map always needs: its key's cluster, the order, what to dispatch on.
ALWAYS_SENT = frozenset({"cluster", "seq", "event_type"})

# The grouped map's one column of event fields (ReplayInput.event).
EVENT = "event"


@dataclass(frozen=True)
class ReplayInput:
    """The event columns the grouped map receives, and how. Spark writes each row into the
    Arrow stream value by value, and string values cost most. So a field no event of the run
    holds stays in the JVM (the replay reads None), and a few-valued field
    (schemas.events.FEW_VALUED_FIELDS) goes as its index into the values the run holds, which
    Arrow's `take` turns back into the strings. The fields go as one struct column (EVENT),
    beside the group's key: PySpark's grouped map rebuilds each group's batch from its columns
    one lookup at a time, and each lookup wraps every column of the batch, a cost quadratic in
    the column count."""
    sent: tuple[str, ...] = EVENT_FIELD_NAMES
    coded: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (field, its values): sent as an index

    # A code is a byte; a field with more values than that goes as it is.
    MAX_CODES = 127

    @classmethod
    def of(cls, profile: dict[tuple, dict]) -> "ReplayInput":
        """From the ingest's profile ((cluster, event_type) -> jobs.ingest_spark.profile_aggregates)."""
        held = {n for n in EVENT_FIELD_NAMES for p in profile.values() if p[f"held_{n}"]}
        values = {n: set() for n in FEW_VALUED_FIELDS}
        for (_, event_type), p in profile.items():
            values["event_type"].add(event_type)
            for n in FEW_VALUED_FIELDS:
                if n != "event_type":   # the profile's key
                    values[n].update(p[f"values_{n}"])
        coded = tuple((n, tuple(sorted(v))) for n, v in values.items() if n in held and len(v) <= cls.MAX_CODES)
        return cls(tuple(n for n in EVENT_FIELD_NAMES if n in held or n in ALWAYS_SENT), coded)

    def columns(self) -> list[Column]:
        """The columns the replay's shuffle carries: the sent fields, then the group's key."""
        codes = dict(self.coded)
        out = []
        for n in self.sent:
            if n in codes:   # array_position is 1-based; a value missing from the list would be -1 and fail in take
                position = F.array_position(F.array(*(F.lit(v) for v in codes[n])), F.col(n))
                out.append((position - 1).cast("tinyint").alias(n))
            else:
                out.append(F.col(n))
        return out + [F.col("r_topic"), F.col("r_partition")]

    def event(self) -> Column:
        """The sent fields of a row of `columns()`, as the one struct column the grouped map reads."""
        return F.struct(*self.sent).alias(EVENT)


def _replay_groups(eras: dict[str, str], default_era: str, drain_every: int,
                   wire: ReplayInput):
    from state_machine.events import Event
    from state_machine.replay import PartitionReplay

    schema = output_schema()
    arrow_schema = pa.schema([pa.field(f.name, arrow_type(f.dataType)) for f in schema.fields])
    event_names = list(EVENT_FIELD_NAMES)

    def to_batches(cluster, topic, partition, ordinals, *outputs) -> Iterator[pa.RecordBatch]:
        """The core's rows, one Arrow batch per table, built a column at a time."""
        given = {"cluster": pa.scalar(cluster, pa.string()), "topic": pa.scalar(topic, pa.string()),
                 "partition": pa.scalar(partition, pa.int32())}
        for i, (kind, rows) in enumerate(zip(OUTPUT_TABLES, outputs)):
            n = len(rows)
            if not n:
                continue
            attrs = ROW_COLUMNS[kind]
            arrays = []
            for f in arrow_schema:
                if f.name == "kind":
                    arrays.append(pa.repeat(pa.scalar(kind), n))
                elif f.name in given:
                    arrays.append(pa.repeat(given[f.name], n))
                elif f.name == "ordinal":
                    arrays.append(pa.array(range(ordinals[i], ordinals[i] + n), f.type))
                elif f.name in attrs:
                    attr = attrs[f.name]
                    arrays.append(pa.array([getattr(r, attr) for r in rows], f.type))
                else:
                    arrays.append(pa.nulls(n, f.type))
            ordinals[i] += n
            yield pa.RecordBatch.from_arrays(arrays, schema=arrow_schema)

    dictionaries = {n: pa.array(values, pa.string()) for n, values in wire.coded}
    sent = set(wire.sent)

    def event_columns(batch: pa.RecordBatch) -> list:
        """One Python list (or a run of None) per event field, in the Event's order."""
        fields = batch.column(EVENT)
        columns = []
        for n in event_names:
            if n not in sent:
                columns.append(repeat(None))
            elif n in dictionaries:
                columns.append(pc.take(dictionaries[n], fields.field(n)).to_pylist())
            else:
                columns.append(fields.field(n).to_pylist())
        return columns

    def replay(key: tuple, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        cluster, topic, partition = (k.as_py() for k in key)
        rp = PartitionReplay(cluster, topic, partition, resolve_era(eras.get(cluster, default_era)))
        ordinals = [0, 0, 0]
        last_seq = None
        fed = 0
        for batch in batches:
            columns = event_columns(batch)
            for values in zip(*columns):
                event = Event._make(values)
                if last_seq is not None and event.seq < last_seq:
                    raise RuntimeError(f"{cluster}/{topic}-{partition}: events out of recorded order "
                                       f"(seq {event.seq} after {last_seq})")
                last_seq = event.seq
                rp.feed(event)
                fed += 1
                if fed >= drain_every:
                    fed = 0
                    yield from to_batches(cluster, topic, partition, ordinals, *rp.drain())
        yield from to_batches(cluster, topic, partition, ordinals, *rp.finish())
        if not any(ordinals):   # a group with no rows still answers with one batch, empty
            yield pa.RecordBatch.from_pylist([], schema=arrow_schema)

    return replay


def replay_all(routed: DataFrame, eras: dict[str, str], default_era: str, partitions: int,
               drain_every: int = 10_000, wire: ReplayInput = ReplayInput()) -> DataFrame:
    """Replay every partition in a grouped map. The repartition + sort puts each group's
    events in seq order, and the grouping reuses that layout (no second shuffle). Groups
    are keyed by the receiving partition (r_topic, r_partition); each event keeps its own
    topic and partition, as in the local replay (a broker-wide default stays broker-wide).
    `wire` says which columns go to the grouped map and how (the default: all, as they are)."""
    key = ("cluster", "r_topic", "r_partition")
    ordered = routed.select(wire.columns()).repartition(partitions, *key).sortWithinPartitions(*key, "seq")
    # The struct is built after the sort (the shuffle carries flat columns); the projection
    # keeps the key's layout, so the grouping adds no exchange or sort.
    grouped = ordered.select(*key, wire.event()).groupBy(*key)
    return grouped.applyInArrow(_replay_groups(eras, default_era, drain_every, wire), output_schema())


def split_outputs(out: DataFrame) -> dict[str, DataFrame]:
    tables = {}
    for name in OUTPUT_TABLES:
        cols = []
        for f in TABLES[name]:
            c = F.col(f.name)
            if f.type == "timestamp":
                c = F.timestamp_millis(c)
            cols.append(c.cast(spark_type(f.type)).alias(f.name))
        tables[name] = out.where(F.col("kind") == name).select(cols)
    return tables


def profile_brokers(profile: dict[tuple, dict]) -> dict[str, set[int]]:
    """cluster -> the broker ids its events name as leaders, ISR members or replicas, from the
    ingest's profile ((cluster, event_type) -> ingest.counts.BROKERS_NAMED)."""
    out: dict[str, set[int]] = {}
    for (cluster, _), p in profile.items():
        out.setdefault(cluster, set()).update(p[BROKERS_NAMED])
    return out


def gap_ms(cfg: AuditConfig) -> int:
    return round(cfg.input_gap_minutes * 60_000)


def with_gap_facts(violations: DataFrame, segments: dict[str, list]) -> DataFrame:
    """The violations, each whose event time lies in an input gap of its cluster with the gap's
    facts added (ingest.coverage.gap_segments: a few spans, each its facts): one expression, no join."""
    added = None
    for cluster, pieces in sorted(segments.items()):
        for lo, hi, facts in pieces:
            inside = (F.col("cluster") == cluster) & F.col("event_time").between(F.timestamp_millis(F.lit(lo)),
                                                                                 F.timestamp_millis(F.lit(hi)))
            values = F.create_map(*(F.lit(x) for kv in sorted(facts.items()) for x in kv))
            added = F.when(inside, values) if added is None else added.when(inside, values)
    if added is None:
        return violations
    had = F.coalesce(F.col("facts"), F.create_map().cast("map<string,string>"))
    return violations.withColumn("facts", F.when(added.isNull(), F.col("facts")).otherwise(F.map_concat(had, added)))


# ---------------------------------------------------------------- writing

def time_windows(profile: dict[tuple, dict]) -> dict[str, tuple[int | None, int | None]]:
    """cluster -> the first and last event time (epoch ms) of its events in this run, from the
    ingest's profile ((cluster, event_type) -> first_time, last_time)."""
    by_cluster: dict[str, list[dict]] = {}
    for (cluster, _), p in profile.items():
        by_cluster.setdefault(cluster, []).append(p)
    return {cluster: (min((p["first_time"] for p in ps if p["first_time"] is not None), default=None),
                      max((p["last_time"] for p in ps if p["last_time"] is not None), default=None))
            for cluster, ps in by_cluster.items()}



def derived_writes(spark: SparkSession, cfg: AuditConfig, timeline: DataFrame, clusters: list[str],
                   windows: dict[str, tuple[int | None, int | None]], profile: dict[tuple, dict],
                   recorded: RecordedRuns, tag: str) -> dict[str, Callable[[], str]]:
    """The writes of the tables derived from partition_timeline (jobs.availability), from
    `timeline`: the rows it holds for `clusters` once this run's replace their window
    (replaced_rows). So they are written beside it, not after it."""
    from jobs import availability

    frames = availability.derived_tables(spark, timeline, clusters, windows, changes_of(profile, "broker_changes"),
                                         cfg.availability_window, recorded)
    return {name: lambda name=name: write_derived(spark, cfg.warehouse, name, frames[name], clusters, tag)
            for name in DERIVED_TIMES}


def register_tables(spark: SparkSession, warehouse: str) -> list[str]:
    """Temp views over every table present in the warehouse (for `controller-replay sql`), each as
    readers see it: the rows of complete runs only (jobs.runs.read_settled); and the views
    (schemas.tables.VIEWS) whose tables are present."""
    tables = readers_view(spark, warehouse)
    for name, table in tables.items():
        table.createOrReplaceTempView(name)
    views = [name for name, sql in VIEWS.items() if all(t in tables for t in VIEW_SOURCES[name])]
    for name in views:
        spark.sql(f"CREATE OR REPLACE TEMP VIEW {name} AS {VIEWS[name]}")
    return list(tables) + views


# ---------------------------------------------------------------- the run

def cluster_eras(cfg: AuditConfig, detected: dict[str, EraEvidence] | None = None) -> tuple[str, dict[str, str], dict[str, str]]:
    """(default era, era per cluster, how each was chosen): ingest.detect.era_choices over
    the eras the log lines show, each checked to resolve."""
    default, per_cluster, why = era_choices(cfg.inputs, cfg.kafka_versions, detected_eras(detected or {}))
    for era in [default, *per_cluster.values()]:
        try:
            resolve_era(era)
        except ValueError as exc:
            raise AuditError(f"--kafka-version: {exc}") from None
    return default, per_cluster, why


def first_events(events: DataFrame) -> dict[str, list]:
    """cluster -> the first event (seq, type and provenance) of each of its event types, for
    state_machine.replay.era_mismatches (one small aggregate: clusters x event types)."""
    where = ("seq", "event_type", "source_file", "source_line", "source_offset")
    firsts: dict[str, list] = {}
    for r in events.groupBy("cluster", "event_type").agg(F.min_by(F.struct(*where), "seq").alias("first")).collect():
        firsts.setdefault(r["cluster"], []).append(E.Event(cluster=r["cluster"], **r["first"].asDict()))
    return firsts


def era_check(ing: IngestedFrames, asked_of) -> list[str]:
    """era_mismatches of every cluster. The event types each cluster holds (counted by the
    ingest) decide; only on a mismatch does one more pass find where each type first appears,
    for the message (a pass over every event, paid only when the check fails)."""
    held: dict[str, list] = {}
    for cluster, event_type in ing.events_by_type:
        held.setdefault(cluster, []).append(E.Event(cluster=cluster, event_type=event_type))
    if not era_mismatches(held, asked_of):
        return []
    return era_mismatches(first_events(ing.events), asked_of)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("controller-replay", "pyspark", "delta-spark", "great-expectations", "pyarrow"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "unknown"
    return out


def run(spark: SparkSession, cfg: AuditConfig, on_phase: Callable[[str], None] | None = None) -> AuditSummary:
    """The audit of cfg's inputs into its warehouse; `on_phase(name)` is called as each phase
    of jobs.progress.PHASES begins."""
    from jobs import quality

    on_phase = on_phase or (lambda phase: None)

    if cfg.input_format not in ("auto", "events", "logs"):
        raise AuditError(f"--format {cfg.input_format}: one of auto, events, logs")
    try:
        from zoneinfo import ZoneInfo
        ZoneInfo(cfg.timezone)
    except Exception:
        raise AuditError(f"--timezone {cfg.timezone}: not a time zone name (e.g. UTC, Europe/Berlin)") from None
    t0 = time.time()
    started = datetime.now(timezone.utc)
    on_phase("read")
    cluster_eras(cfg)  # fail fast on a bad --kafka-version
    check_warehouse(spark, cfg.warehouse, cfg.run_id)   # before anything is read
    # Runs that died while writing are rolled back before this one reads what earlier runs left.
    rolled_back, settled = settle(spark, cfg.warehouse, cfg.run_id, int(t0 * 1000))
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(cfg.max_records_per_batch))
    partitions = cfg.shuffle_partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))

    found = list_input_files(spark, cfg.inputs)
    refused = unreadable_inputs(spark, [f for f, _ in found])
    if refused:   # before anything is read or written: nothing is lost, nothing is half-written
        raise AuditError(unreadable_message(refused))
    try:
        ing = ingest(spark, [f for f, _ in found], file_clusters(found, cfg.cluster), cfg.cluster, cfg.timezone,
                     cfg.input_format, gap_ms=gap_ms(cfg))
    except UnreadableInput as exc:   # found by the parse (ingest.compressed.misnamed_reason): nothing written
        raise AuditError(str(exc)) from None
    default_era, eras, era_why = cluster_eras(cfg, ing.evidence)
    events = ing.events
    if not ing.events_kept:
        # The input gate's queries and the replay read them: kept once (as the first query reads
        # them), not unpacked from the parse output for each (jobs.ingest_spark.packed).
        events = events.persist()
        ing.cached.append(events)
    quarantine = ing.quarantine.withColumn("run_id", F.lit(cfg.run_id))
    read, quarantined = ing.records_read, ing.records_quarantined
    replayed = ing.events_count
    phases = {"read": time.time() - t0}
    gates = {}
    on_phase("input_gate")
    mark = time.time()
    gates["input_events"] = quality.validate_input(events)
    if not gates["input_events"].success:
        ing.release()
        raise quality.QualityGateFailed(gates["input_events"])
    mismatched = era_check(ing, lambda cluster: eras.get(cluster, default_era))
    phases["input_gate"] = time.time() - mark
    if mismatched:   # a wrong era, not bad input: nothing is written
        ing.release()
        raise AuditError("\n".join(mismatched))

    clusters = sorted({cluster for cluster, _ in ing.events_by_type})
    windows = time_windows(ing.profile)
    repeats = seq_repeats(events) if ing.canonical else {}
    on_phase("replay")
    mark = time.time()   # the replay phase includes finding what earlier audits left (audited_before)
    before = audited_before(spark, cfg.warehouse, clusters, windows, settled)
    recorded = recorded_runs(spark, cfg.warehouse, clusters)
    carried, profile = carried_state(spark, cfg.warehouse, windows, before, recorded, settled), ing.profile
    if carried is not None:
        carried, carried_profile = materialize_profiled(carried, ("cluster", "event_type"), profile_aggregates())
        ing.cached.append(carried)
        events, profile = events.unionByName(carried), {**profile, **carried_profile}
    n_carried = {c: p["rows"] for (c, t), p in profile.items() if t == E.PARTITION_STATE_CARRIED}
    # Persisted: its lineage starts at the ingest's kept events (jobs.session.materialize), so the
    # queries on it plan quickly, and each table's read only its own columns of the columnar cache.
    out = replay_all(route(events), eras, default_era, partitions, wire=ReplayInput.of(profile)).persist()
    out.count()
    phases["replay"] = time.time() - mark
    coverage = input_coverage(ing.activity, {f: i["cluster"] for f, i in ing.files.items()},
                              changes_of(ing.profile, "broker_changes"), changes_of(ing.profile, "controller_changes"),
                              profile_brokers(ing.profile), gap_ms(cfg))
    tables = split_outputs(out)
    tables["violations"] = with_gap_facts(tables["violations"], gap_segments(gaps_of(coverage)))
    on_phase("output_gate")
    mark = time.time()
    gates["output_tables"] = quality.validate_output(tables["partition_timeline"], tables["replica_timeline"],
                                                      tables["violations"], quarantine)
    if not gates["output_tables"].success:
        out.unpersist(), ing.release()
        raise quality.QualityGateFailed(gates["output_tables"])

    phases["output_gate"] = time.time() - mark
    on_phase("write")
    mark = time.time()
    # Each commit is tagged with the run (jobs.runs): readers see none of them until the
    # audit_runs row, written last, says the run is complete.
    tag = run_tag(cfg.run_id, clusters)
    reread = threading.Event()   # set when partition_timeline's rows were read again to be written
    # A run without events has no cluster's rows to replace: it writes its quarantine and its row.
    writes = {name: lambda name=name, df=df: write_replayed(spark, cfg.warehouse, name, df, clusters, windows, tag)
              for name, df in tables.items() if clusters and name != "partition_timeline"}
    if clusters:
        # partition_timeline's rows once this run's replace their window: its write's first
        # attempt and the derived tables read them, kept, from one read of the table.
        held = replaced_rows(spark, table_path(cfg.warehouse, "partition_timeline"), "partition_timeline",
                             tables["partition_timeline"], clusters, windows)
        if held.rows is not tables["partition_timeline"]:
            ing.cached.append(held.rows.persist())
        first = [held]
        writes["partition_timeline"] = lambda: write_replayed(
            spark, cfg.warehouse, "partition_timeline", tables["partition_timeline"], clusters, windows, tag,
            rows=first.pop() if first else None, reread=reread.set)
        writes.update(derived_writes(spark, cfg, held.rows, clusters, windows, ing.profile, recorded, tag))
    # records_quarantined counts quarantined lines, and every quarantine row holds at least one: none
    # counted, no row, and no commit (the table is made if absent).
    if quarantined:
        writes["quarantine"] = lambda: merge_into(spark, cfg.warehouse, "quarantine", quarantine, tag=tag)
    else:
        ensure_table(spark, cfg.warehouse, "quarantine")
    try:
        paths, stats = _write_tables(writes, out)
        if clusters:
            derive_again(spark, cfg, tables["partition_timeline"].columns, clusters,
                         lambda rows: derived_writes(spark, cfg, rows, clusters, windows, ing.profile, recorded, tag),
                         held.version, reread.is_set())
        paths.setdefault("quarantine", table_path(cfg.warehouse, "quarantine"))
        by_rule = {r["rule"]: r["n"] for r in stats if r["kind"] == "violations"}
        n_partitions = sum(r["partitions"] for r in stats if r["kind"] == "partition_timeline")
        phases["write"] = time.time() - mark
        duration = time.time() - t0
        row = {
            "run_id": cfg.run_id, "started_at": started, "duration_s": float(duration), "inputs": list(cfg.inputs),
            "kafka_versions": json.dumps({"default": default_era, **eras, "chosen_by": era_why}, sort_keys=True),
            "records_read": read, "lines_recognized": ing.lines_recognized, "records_quarantined": quarantined,
            "counts_reconcile": read == ing.lines_recognized + quarantined, "events_replayed": ing.events_count,
            "events_deduplicated": ing.events_deduplicated, "input_files": json.dumps(ing.files, sort_keys=True),
            **{name: json.dumps(by_cluster, sort_keys=True)
               for name, by_cluster in _transaction_columns(ing.transactions).items()},
            "partitions": n_partitions,
            "violations_by_rule": json.dumps(by_rule, sort_keys=True),
            "quality_gates": json.dumps({k: json.loads(g.to_json()) for k, g in gates.items()}),
            "versions": json.dumps(versions(), sort_keys=True),
            "time_windows": json.dumps({c: [None if t is None else _utc(t) for t in span] for c, span in windows.items()},
                                       sort_keys=True),
            **{name: json.dumps({c: [[None if at is None else _utc(at), *rest] for at, *rest in changes]
                                 for c, changes in changes_of(ing.profile, name).items()}, sort_keys=True)
               for name in RECORDED_CHANGES},
            "rolled_back_runs": json.dumps(rolled_back, sort_keys=True),
            "seq_repeats": json.dumps(repeats, sort_keys=True),
            "input_coverage": json.dumps(coverage, sort_keys=True),
        }
        run_df = local_frame(spark, [row], table_struct("audit_runs"))
        paths["audit_runs"] = committed("audit_runs", lambda: merge_into(spark, cfg.warehouse, "audit_runs", run_df))
    except BaseException as exc:
        # Whatever this run committed goes: a run is whole or absent.
        out.unpersist(), ing.release()
        try:
            repair(spark, cfg.warehouse, cfg.run_id, {cfg.run_id})
        except Exception as undone:   # the next audit rolls it back (jobs.runs.settle); readers see none of it
            exc.add_note(f"rolling back this run's commits failed too ({type(undone).__name__}); the next audit "
                         "of the warehouse rolls them back, and until then no reader sees them")
        raise
    out.unpersist()
    ing.release()
    return AuditSummary(cfg.run_id, read, replayed, quarantined, n_partitions, by_rule, paths, duration,
                        {k: g.success for k, g in gates.items()}, {k: round(v, 1) for k, v in phases.items()},
                        lines_recognized=ing.lines_recognized, files=ing.files, eras=era_why,
                        windows={c: windows[c] for c in before}, carried=n_carried, transactions=ing.transactions,
                        rolled_back=rolled_back, seq_repeats=repeats, coverage=coverage)


def derive_again(spark: SparkSession, cfg: AuditConfig, columns: list[str], clusters: list[str],
                 writes_of: Callable[[DataFrame], dict[str, Callable[[], str]]], read_at: int, reread: bool) -> None:
    """The derived tables were written from partition_timeline as this run read it (at version
    `read_at`, with its rows). When another writer's rows of its clusters landed there since
    (another audit of them at the same time: before this run's commit, `reread`, or after it),
    they are written again (`writes_of(rows)`) from the timeline as it now is, until no other
    commit came after the one they were written from. So of two audits of a cluster at the same
    time, the later derived commit is made from a timeline that holds both."""
    path = table_path(cfg.warehouse, "partition_timeline")
    basis = None   # the version the derived tables were last written from (None: this run's read)
    for _ in range(COMMIT_ATTEMPTS):
        commits = [(c.operation, commit_of(c.version, c.at, c.user_metadata)) for c in commits_since(spark, path, read_at)]
        # After this run's commit there (before it, a commit of its clusters made it read again).
        since = basis if basis is not None else max((c.version for _, c in commits if c.run == cfg.run_id),
                                                    default=read_at)
        landed = any(c.version > since and c.run != cfg.run_id and op not in ROWLESS_OPERATIONS
                     and (not c.clusters or set(c.clusters) & set(clusters)) for op, c in commits)
        if not landed and not (basis is None and reread):
            return
        basis = max((c.version for _, c in commits), default=read_at)
        rows = (spark.read.format("delta").option("versionAsOf", basis).load(path)
                .where(F.col("cluster").isin(clusters)).select(*columns))
        _write_tables(writes_of(rows), None)
    raise AuditError(f"partition_timeline: other writers' rows of {', '.join(clusters)} kept landing while this run "
                     f"wrote the tables derived from it ({COMMIT_ATTEMPTS} times); run the audit again.")


def _write_tables(writes: dict[str, Callable[[], str]], out: DataFrame | None) -> tuple[dict[str, str], list]:
    """Run the tables' writes (each `committed`) and count the replay's output (`out`) by kind and rule.
    The tables are independent Delta commits: written at once, one table's planning and commit
    (driver work) overlaps another's tasks."""
    with ThreadPoolExecutor(len(writes) + 1) as pool:
        writing = {name: pool.submit(committed, name, write) for name, write in writes.items()}
        counted = pool.submit(lambda: [] if out is None else out.groupBy("kind", "rule").agg(
            F.count("*").alias("n"), F.countDistinct(*KEY).alias("partitions")).collect())
        paths = {name: w.result() for name, w in writing.items()}
        return paths, counted.result()


def run_from_args(args: argparse.Namespace, terminal: bool = False) -> int:
    """Build the session, run, print the summary (or why nothing was written); the exit
    status. Shared by `spark-submit jobs/audit.py` and `controller-replay audit` (`terminal`:
    a person reads the output, and the JVM logs errors only; a submitted job's JVM logs as its
    spark-submit says)."""
    from jobs import progress
    from jobs.quality import QualityGateFailed
    from jobs.session import build_session

    shown = progress.shown(sys.stderr)
    spark = build_session("controller-replay-audit", warehouse_dir=args.warehouse,
                          extra_conf=progress.SPARK_CONF if shown else None, terminal=terminal)
    if terminal:
        spark.sparkContext.setLogLevel("ERROR")
    try:
        summary = run(spark, config_from_args(args), progress.phase_lines(sys.stderr) if shown else None)
    except QualityGateFailed as exc:
        print(f"audit failed its quality gate; nothing was written.\n{exc}", file=sys.stderr)
        return 2
    except AuditError as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    for line in summary.lines():
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="audit", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_audit_arguments(ap)
    return run_from_args(ap.parse_args(argv))


if __name__ == "__main__":
    # Run the installed module, not this file as __main__: executors then import the
    # replay functions by name instead of receiving pickled copies of this script.
    from jobs.audit import main as _main

    sys.exit(_main())
