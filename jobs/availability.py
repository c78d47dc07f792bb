"""Availability, derived from partition_timeline: how long each partition was offline,
under-replicated and down to an ISR of one, with its elections by kind (`partition_availability`,
per partition and window; `topic_availability`, the view per topic), and how long the
controller took to elect new leaders for the partitions a failed broker led (`broker_failures`).

The audit writes both tables beside partition_timeline, again whole for the clusters it audited
(jobs.audit.derived_writes): they are functions of the rows partition_timeline holds for them
once the run's replace their window, and of the runs' recorded broker changes, so a re-run
writes the same rows. The report sums the same seconds
over its own window (`state_seconds`).

A timeline row lasts until the next row's valid_from; the open last row until the last event
time any audit of its cluster read (`audit_runs.time_windows`). Time between two runs' inputs
counts in the state the timeline holds through it."""
from __future__ import annotations

from collections.abc import Iterable
from functools import reduce

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.earlier import RecordedRuns
from schemas.tables import ELECTION_KINDS
from state_machine import events as E
from state_machine.states import ABSENT_PARTITION_STATES, PartitionState

KEY = ("cluster", "topic", "partition")
WINDOW_MICROS = {"day": 86_400_000_000, "hour": 3_600_000_000}
_OFFLINE = PartitionState.OfflinePartition.value


def lasting(timeline: DataFrame, observed_to: Column) -> DataFrame:
    """The timeline's rows with a time, with `_from` and `_to` (unix micros): a row lasts until
    its valid_to, the open last row until `observed_to` (a column of the rows)."""
    return (timeline.where(F.col("valid_from").isNotNull())
            .withColumn("_from", F.unix_micros("valid_from"))
            .withColumn("_to", F.least(F.coalesce(F.unix_micros("valid_to"), observed_to), observed_to)))


def _exists() -> Column:
    return ~F.col("partition_state").isin(*ABSENT_PARTITION_STATES)


def _offline() -> Column:
    """state_machine.states.is_offline, as a column."""
    return _exists() & ((F.col("partition_state") == _OFFLINE) | (F.col("leader") < 0))


def state_seconds(rows: DataFrame, *extra: Column) -> DataFrame:
    """Per partition and window: seconds it existed, was offline, under-replicated (ISR smaller
    than its replicas) and had an ISR of one, and its elections by kind (`{kind}_elections`), from
    `rows`: timeline rows (lasting) each with the window it is summed in (window_start,
    window_end: unix micros, the end exclusive). `extra`: more aggregates of the same rows."""
    start, end = F.col("window_start"), F.col("window_end")
    micros = F.greatest(F.least(F.col("_to"), end) - F.greatest(F.col("_from"), start), F.lit(0))
    inside = (F.col("_from") >= start) & (F.col("_from") < end)

    def seconds_when(cond: Column) -> Column:   # summed in whole micros: exact
        return F.sum(F.when(cond, micros).otherwise(0)) / 1e6

    exists = _exists()
    return rows.groupBy(*KEY, "window_start", "window_end").agg(
        seconds_when(exists).alias("exists_s"),
        seconds_when(_offline()).alias("offline_s"),
        seconds_when(exists & (F.size("isr") < F.size("replicas"))).alias("under_replicated_s"),
        seconds_when(exists & (F.size("isr") == 1)).alias("isr_of_one_s"),
        *[F.count_if(inside & (F.col("election") == k)).cast("int").alias(f"{k}_elections") for k in ELECTION_KINDS],
        *extra)


def partition_availability(timeline: DataFrame, observed_to: DataFrame, unit: str) -> DataFrame:
    """partition_availability's rows: each partition's time in every `unit` window (UTC) its
    rows reach, while it exists or with an election. `observed_to`: cluster, observed_to (unix
    micros), the end of the clusters' recorded time."""
    step = WINDOW_MICROS[unit]
    rows = lasting(timeline.join(F.broadcast(observed_to), "cluster"), F.col("observed_to"))
    first = F.floor(F.col("_from") / step) * step
    last = F.floor(F.greatest(F.col("_to") - 1, F.col("_from")) / step) * step
    rows = (rows.withColumn("window_start", F.explode(F.sequence(first, last, F.lit(step))))
            .withColumn("window_end", F.col("window_start") + step))
    kept = state_seconds(rows).where(
        reduce(Column.__or__, [F.col("exists_s") > 0, *(F.col(f"{k}_elections") > 0 for k in ELECTION_KINDS)]))
    return kept.withColumn("window_start", F.timestamp_micros("window_start")).withColumn(
        "window_end", F.timestamp_micros("window_end"))


def failures_of(changes: Iterable[tuple]) -> list[tuple[int, int, int | None]]:
    """Each broker failure among `changes` (audit_runs.broker_changes of one cluster: (time ms,
    event type, brokers), in recorded order, repeats dropped): (broker, failed_at, back_at), where
    back_at is when a later change marks it alive again (a startup or controlled shutdown that
    names it, a controller's failover that lists it), as state_machine.carried.carried_liveness
    reads them; None when none does."""
    timed = [c for c in changes if c[0] is not None]
    out = []
    for i, (at, event_type, brokers) in enumerate(timed):
        if event_type != E.BROKER_FAILURE:
            continue
        for broker in brokers:
            back = next((later for later, kind, named in timed[i + 1:]
                         if broker in named and kind != E.BROKER_FAILURE), None)
            out.append((broker, at, back))
    return sorted(set(out))


def broker_failures(timeline: DataFrame, failures: DataFrame) -> DataFrame:
    """broker_failures' rows, from `failures` (cluster, broker, failed_at, back_at: unix micros,
    failures_of): the partitions each failed broker led at failed_at, and for each the first row,
    before the broker is back, whose leader is another broker (moved), else one without a leader
    (offline), else none (unmoved). One pass over the rows that reach each failure's span."""
    rows = lasting(timeline, F.lit(None).cast("long"))
    span = (rows.join(F.broadcast(failures), "cluster")
            .where((F.col("_to").isNull() | (F.col("_to") > F.col("failed_at")))
                   & (F.col("back_at").isNull() | (F.col("_from") < F.col("back_at")))))
    after = F.col("_from") >= F.col("failed_at")
    moved = after & (F.col("leader") >= 0) & (F.col("leader") != F.col("broker"))
    led = (F.col("_from") <= F.col("failed_at")) & (F.col("leader") == F.col("broker")) & _exists()
    outcome = (span.groupBy(*KEY, "broker", "failed_at")
               .agg(F.max(led.cast("int")).alias("led"), F.min(F.when(moved, F.col("_from"))).alias("moved_at"),
                    F.max((after & _offline()).cast("int")).alias("went_offline"))
               .where(F.col("led") == 1))
    per = outcome.groupBy("cluster", "broker", "failed_at").agg(
        F.count(F.lit(1)).cast("int").alias("partitions_led"),
        F.count("moved_at").cast("int").alias("partitions_moved"),
        F.count_if(F.col("moved_at").isNull() & (F.col("went_offline") == 1)).cast("int").alias("partitions_offline"),
        F.min("moved_at").alias("_first"), F.max("moved_at").alias("_last"))
    zero = F.lit(0)
    return (F.broadcast(failures).join(per, ["cluster", "broker", "failed_at"], "left")
            .select("cluster", "broker", F.timestamp_micros("failed_at").alias("failed_at"),
                    F.coalesce("partitions_led", zero).alias("partitions_led"),
                    F.coalesce("partitions_moved", zero).alias("partitions_moved"),
                    F.coalesce("partitions_offline", zero).alias("partitions_offline"),
                    (F.coalesce("partitions_led", zero) - F.coalesce("partitions_moved", zero)
                     - F.coalesce("partitions_offline", zero)).alias("partitions_unmoved"),
                    F.timestamp_micros("_first").alias("first_moved_at"),
                    F.timestamp_micros("_last").alias("last_moved_at"),
                    ((F.col("_last") - F.col("failed_at")) / 1e6).alias("reaction_s")))


def derived_tables(spark: SparkSession, timeline: DataFrame, clusters: list[str],
                   windows: dict[str, tuple[int | None, int | None]], changes_now: dict[str, list[tuple]],
                   unit: str, recorded: RecordedRuns) -> dict[str, DataFrame]:
    """partition_availability and broker_failures of `clusters`, whole: from `timeline` (their
    partition_timeline rows as the warehouse holds them after this run's write), this run's time
    windows and broker changes (`windows`, `changes_now`: cluster -> (lo, hi) and [(time ms, event
    type, brokers)]) and the earlier runs' (`recorded`: jobs.earlier.recorded_runs). An earlier run's changes
    inside this run's window are left out: this run's input replaced that window's rows."""
    from jobs.session import local_frame

    spans, changes = recorded.windows, recorded.changes["broker_changes"]
    ends, failures = [], []
    for c in clusters:
        lo, hi = windows.get(c, (None, None))
        his = [h for _, h in spans.get(c, ()) if h is not None] + ([hi] if hi is not None else [])
        if his:
            ends.append((c, max(his) * 1000))
        outside = [(at, kind, tuple(brokers)) for at, kind, brokers in changes.get(c, ())
                   if lo is None or hi is None or at is None or not lo <= at <= hi]
        now = [(at, kind, tuple(brokers)) for at, kind, brokers in changes_now.get(c, ())]
        ordered = sorted(dict.fromkeys(outside + now), key=lambda ch: (ch[0] is None, ch[0] or 0))
        failures += [(c, broker, at * 1000, None if back is None else back * 1000)
                     for broker, at, back in failures_of(ordered)]
    observed_to = local_frame(spark, ends, "cluster string, observed_to long")
    failed = local_frame(spark, failures, "cluster string, broker int, failed_at long, back_at long")
    return {"partition_availability": partition_availability(timeline, observed_to, unit),
            # no failure, no row: the clusters' rows go without a query of the timeline
            "broker_failures": broker_failures(timeline, failed) if failures else broker_failures(timeline.limit(0), failed)}
