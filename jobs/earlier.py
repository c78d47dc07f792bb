"""What the earlier audits of a warehouse left, read by the next: where their rows left each
partition before this run's window (the state the replay goes on from: `carried_state`), and
what they recorded in audit_runs (`recorded_runs`)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import reduce

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.runs import read_settled
from jobs.session import local_frame
from jobs.writes import KEY, load_table, table_path
from schemas.events import EVENT_FIELDS, event_struct
from schemas.types import spark_type, utc_ms, utc_text
from state_machine import events as E
from state_machine.carried import CARRIED_SEQ, carried_configs, carried_controller, carried_liveness


def _utc(ms: int | None) -> str:
    return "(no time)" if ms is None else utc_text(ms)


def _ms(utc: str | None) -> int | None:
    """_utc's inverse (None for no time)."""
    return None if utc is None else utc_ms(utc)


def audited_before(spark: SparkSession, warehouse: str, clusters: list[str],
                   windows: dict[str, tuple[int | None, int | None]],
                   settled: dict[str, int | None] | None = None) -> dict[str, int | None]:
    """Which of `clusters` the warehouse's partition_timeline holds rows of already: cluster ->
    the highest controller epoch of its rows before this run's window (`windows`: cluster -> first
    and last event time; None when no row is before it, or the run has no event time). One
    query: carried_state needs both, and each is otherwise a Spark job of its own. The tables are
    read as readers see them (jobs.runs.read_settled; `settled`: their settled versions)."""
    table = read_settled(spark, warehouse, "partition_timeline", settled) if clusters else None
    if table is None:
        return {}
    starts = F.create_map(*[v for c in clusters for v in (F.lit(c), F.lit(windows.get(c, (None, None))[0]).cast("long"))])
    held = (table.where(F.col("cluster").isin(clusters))
            .groupBy("cluster").agg(F.max(F.when(F.unix_millis("valid_from") < starts[F.col("cluster")],
                                                 F.col("controller_epoch"))).alias("epoch")))
    return {r["cluster"]: r["epoch"] for r in sorted(held.collect())}


def carried_state(spark: SparkSession, warehouse: str, windows: dict[str, tuple[int | None, int | None]],
                  before: dict[str, int | None], recorded: RecordedRuns,
                  settled: dict[str, int | None] | None = None) -> DataFrame | None:
    """Where the audits the warehouse holds left each partition of the clusters audited `before`
    (audited_before: cluster -> the highest controller epoch of its rows before the window) before
    this run's window (`windows`: cluster -> first and last event time), as events the replay starts from,
    ahead of the partition's own: the partition's last partition_timeline row before the window's
    start (PartitionStateCarried), each replica's last replica_timeline row before it
    (ReplicaStateCarried), the highest controller epoch of the cluster's rows and of the
    controller changes earlier audits recorded before it (ControllerEpochCarried), and which
    brokers the liveness changes they recorded left alive and dead (LivenessCarried), and the
    unclean-election settings they recorded last (ConfigObserved). So the
    nightly audit of a night's logs goes on from the night before.
    (state_machine.carried.carried_cluster builds the same from the core's rows.) None when
    nothing is carried (no earlier rows, or an input without event times). The tables are read as
    readers see them (jobs.runs.read_settled; `settled`: their settled versions)."""
    from pyspark.sql.window import Window

    starts = [(c, windows[c][0]) for c in before if c in windows and windows[c][0] is not None]
    if not starts:
        return None
    bounds = F.broadcast(local_frame(spark, starts, "cluster string, _start long"))
    carried = []
    for name, event_type, by, state in (("partition_timeline", E.PARTITION_STATE_CARRIED, (), "partition_state"),
                                        ("replica_timeline", E.REPLICA_STATE_CARRIED, ("replica",), "replica_state")):
        table = read_settled(spark, warehouse, name, settled)
        if table is None:
            continue
        earlier = (table.join(bounds, "cluster")
                   .where(F.unix_millis("valid_from") < F.col("_start")))
        latest_first = Window.partitionBy(*KEY, *by).orderBy(F.col("ordinal").desc())
        last = earlier.withColumn("_n", F.row_number().over(latest_first)).where(F.col("_n") == 1)
        detail = (carried_inference(table.columns) if name == "partition_timeline"
                  else F.when(F.col("inferred"), F.lit("inferred")))
        carried.append(_as_events(last, {"event_time_ms": F.unix_millis("valid_from"), "event_type": F.lit(event_type),
                                         "source_file": F.col("source"), "to_state": F.col(state), "detail": detail}))
    changes = recorded.changes
    cluster_wide = [tuple(e) for cluster, start in starts for e in (
        carried_controller(cluster, [before[cluster]], changes["controller_changes"].get(cluster, ()), start)
        + carried_liveness(cluster, changes["broker_changes"].get(cluster, ()), start)
        + carried_configs(cluster, changes["config_changes"].get(cluster, ()), start))]
    if cluster_wide:
        carried.append(local_frame(spark, cluster_wide, event_struct()))
    return reduce(DataFrame.unionByName, carried) if carried else None


def carried_inference(columns: list[str]) -> Column:
    """PartitionStateCarried's `detail` of a partition_timeline row (of a table with `columns`):
    state_machine.carried.inference_detail of its `inferred` and `inferred_values`, the text the
    core's carried state holds. A row written before inferred_values (null, or a table without
    the column) carries its flag alone, `inferred`, which the replay reads as every inferable value."""
    flag_alone = F.when(F.col("inferred"), F.lit("inferred"))
    if "inferred_values" not in columns:
        return flag_alone
    values = F.col("inferred_values")
    kind = F.when(F.col("inferred"), F.lit("inferred:")).otherwise(F.lit("recorded:"))
    return (F.when(values.isNull(), flag_alone)
            .when(F.col("inferred") | (F.size(values) > 0), F.concat(kind, F.array_join(values, ","))))


# audit_runs columns of the changes a run's input shows (state_machine.carried's controller_changes
# and broker_changes): each [time, ...] in recorded order, per cluster. The next audit carries them.
RECORDED_CHANGES = ("controller_changes", "broker_changes", "config_changes")


def changes_of(profile: dict[tuple, dict], name: str) -> dict[str, list[tuple]]:
    """cluster -> its `name` changes (RECORDED_CHANGES) in this run's input, in recorded order,
    as state_machine.carried gives them: (event time, ...), from the ingest's profile."""
    by_cluster: dict[str, list] = {}
    for (cluster, _), p in profile.items():
        by_cluster.setdefault(cluster, []).extend(p.get(name) or ())
    return {cluster: [tuple(c[1:]) for c in sorted(changes, key=lambda c: c[0])]
            for cluster, changes in by_cluster.items() if changes}


@dataclass(frozen=True)
class RecordedRuns:
    """What the earlier audits of some clusters recorded in audit_runs, from one read of it.
    `changes`: RECORDED_CHANGES column -> cluster -> every run's changes, each run's in its
    recorded order (which the clocks of several brokers' files need not follow), the runs in the
    order of their first change's time. `windows`: cluster -> each run's time window (first and
    last event time, epoch ms)."""
    changes: dict[str, dict[str, list[tuple]]]
    windows: dict[str, list[tuple[int | None, int | None]]]


def recorded_runs(spark: SparkSession, warehouse: str, clusters: list[str]) -> RecordedRuns:
    """RecordedRuns of `clusters`: empty where the warehouse has no audit_runs yet."""
    runs_of: dict[str, dict[str, list[list[tuple]]]] = {name: {} for name in RECORDED_CHANGES}
    windows: dict[str, list[tuple[int | None, int | None]]] = {}
    path = table_path(warehouse, "audit_runs")
    runs = load_table(spark, path) if clusters else None
    if runs is not None:
        # a table of an earlier version lacks the columns added since
        held = [name for name in (*RECORDED_CHANGES, "time_windows") if name in runs.columns]
        for r in runs.select(*held).collect() if held else ():
            for name in held:
                for cluster, recorded in json.loads(r[name] or "{}").items():
                    if cluster not in clusters:
                        continue
                    if name == "time_windows":
                        windows.setdefault(cluster, []).append((_ms(recorded[0]), _ms(recorded[1])))
                    elif recorded:
                        runs_of[name].setdefault(cluster, []).append([(_ms(at), *rest) for at, *rest in recorded])

    def first_time(run: list[tuple]) -> tuple:
        times = [c[0] for c in run if c[0] is not None]
        return (not times, min(times, default=0))

    return RecordedRuns({name: {c: [change for run in sorted(runs, key=first_time) for change in run]
                                for c, runs in by_cluster.items()} for name, by_cluster in runs_of.items()},
                        windows)


def _as_events(df: DataFrame, given: dict[str, Column]) -> DataFrame:
    """`df`'s rows as carried events: the `given` fields, then `df`'s columns named as event fields, else null."""
    given = {"seq": F.lit(CARRIED_SEQ), **given}
    return df.select([given[f.name].cast(spark_type(f.type)).alias(f.name) if f.name in given
                      else F.col(f.name).cast(spark_type(f.type)) if f.name in df.columns
                      else F.lit(None).cast(spark_type(f.type)).alias(f.name) for f in EVENT_FIELDS])
