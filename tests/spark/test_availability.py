"""Availability (jobs/availability.py): partition_availability and broker_failures summed from
timelines whose answer is known, written by the audit of the samples, reconciled with the
timeline they come from, and queried as docs/tables.md shows."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import functions as F

from jobs.audit import register_tables
from jobs.availability import broker_failures, failures_of, partition_availability
from jobs.session import local_frame
from schemas.tables import ELECTION_KINDS, TABLES, table_struct
from state_machine import events as E
from state_machine.selectors import ElectionKind
from test_violation_facts import doc_query

pytestmark = pytest.mark.spark
DAY2 = datetime(2026, 3, 2, tzinfo=timezone.utc)


def at(hours: float) -> datetime:
    """`hours` after DAY2's midnight (negative: the day before)."""
    return datetime.fromtimestamp(DAY2.timestamp() + hours * 3600, timezone.utc)


def micros(hours: float) -> int:
    return round(at(hours).timestamp() * 1_000_000)


def timeline(spark, rows: list[tuple]):
    """partition_timeline rows of cluster c, topic t, AR [1, 2, 3]: (partition, valid_from hours,
    valid_to hours or None, state, leader, isr, election)."""
    full = [{"cluster": "c", "topic": "t", "partition": p, "ordinal": i, "seq": i, "valid_from": at(a),
             "valid_to": None if b is None else at(b), "partition_state": state, "leader": leader,
             "leader_epoch": i, "isr": isr, "replicas": [1, 2, 3], "controller_epoch": 1, "election": election,
             "source": f"controller.log:{i}", "inferred": False}
            for i, (p, a, b, state, leader, isr, election) in enumerate(rows)]
    return spark.createDataFrame(full, table_struct("partition_timeline"))


def test_the_kinds_of_election_the_tables_count_are_the_cores():
    assert ELECTION_KINDS == tuple(k.value for k in ElectionKind)


def test_a_partitions_time_is_summed_per_day_across_midnight_to_the_end_of_the_recorded_time(spark):
    t = timeline(spark, [
        (0, -2, -1, "NewPartition", -1, [], None),                    # not there yet: no time
        (0, -1, 1, "OnlinePartition", 1, [1, 2, 3], "initial"),       # 23:00 -> 01:00, across midnight
        (0, 1, 1.5, "OfflinePartition", -1, [], None),                # offline half an hour
        (0, 1.5, None, "OnlinePartition", 3, [3], "unclean"),         # open: to the end, 02:00
        (1, -1.5, -0.5, "OnlinePartition", 2, [2, 3], "initial"),     # under-replicated an hour
        (1, -0.5, None, "NonExistentPartition", -1, [], None),        # deleted: no row on day 2
    ])
    ends = local_frame(spark, [("c", micros(2))], "cluster string, observed_to long")
    got = partition_availability(t, ends, "day")

    def row(p, day, exists, offline, under, one, **elections):
        start = at(-24 if day == 1 else 0)
        return ("c", "t", p, start, at(0 if day == 1 else 24), float(exists), float(offline), float(under), float(one),
                *(elections.get(k, 0) for k in ELECTION_KINDS))

    want = spark.createDataFrame([
        row(0, 1, 3600, 0, 0, 0, initial=1),
        row(0, 2, 7200, 1800, 1800 + 1800, 1800, unclean=1),   # offline [] and then [3]: both under-replicated
        row(1, 1, 3600, 0, 3600, 0, initial=1),
    ], ", ".join(f"{f.name} {f.type}" for f in TABLES["partition_availability"]))
    assert_df_equality(got.select(want.columns), want, ignore_row_order=True, ignore_nullable=True)

    hourly = partition_availability(t, ends, "hour").where("partition = 0")
    assert hourly.count() == 3   # 23:00, 00:00, 01:00
    assert hourly.agg(F.sum("exists_s"), F.sum("offline_s")).first() == (10800.0, 1800.0)


def test_a_failed_brokers_partitions_are_moved_left_offline_or_unmoved_and_the_reaction_is_the_last_move(spark):
    t = timeline(spark, [
        (0, 0, 1.0005, "OnlinePartition", 1, [1, 2], "initial"),
        (0, 1.0005, None, "OnlinePartition", 2, [2], "offline"),      # moved 1.8 s after the failure
        (1, 0, 1.0001, "OnlinePartition", 1, [1], "initial"),
        (1, 1.0001, 2, "OfflinePartition", -1, [], None),              # no replica to elect
        (1, 2, None, "OnlinePartition", 1, [1], "offline"),            # broker 1 back at 1:30: not a move
        (2, 0, None, "OnlinePartition", 1, [1, 3], "initial"),         # nothing changes it
        (3, 0, None, "OnlinePartition", 3, [3], "initial"),            # led by another broker
    ])
    failures = local_frame(spark, [("c", 1, micros(1), micros(1.5)), ("c", 3, micros(3), None)],
                           "cluster string, broker int, failed_at long, back_at long")
    got = {r["broker"]: r.asDict() for r in broker_failures(t, failures).collect()}
    assert got[1]["partitions_led"] == 3
    assert (got[1]["partitions_moved"], got[1]["partitions_offline"], got[1]["partitions_unmoved"]) == (1, 1, 1)
    assert got[1]["first_moved_at"] == got[1]["last_moved_at"] == at(1.0005).replace(tzinfo=None)
    assert got[1]["reaction_s"] == pytest.approx(1.8)
    # Broker 3 fails later, leading partition 3, which nothing moves: no reaction.
    assert (got[3]["partitions_led"], got[3]["partitions_unmoved"], got[3]["reaction_s"]) == (1, 1, None)


def test_a_failure_ends_when_a_later_change_names_the_broker_alive():
    changes = [(1000, E.BROKER_FAILURE, (1, 2)), (2000, E.BROKER_STARTUP, (2,)), (2500, E.BROKER_FAILURE, (2,)),
               (3000, E.CONTROLLER_FAILOVER, (1, 3)), (None, E.BROKER_FAILURE, (4,))]
    assert failures_of(changes) == [(1, 1000, 3000), (2, 1000, 2000), (2, 2500, None)]


# ---------------------------------------------------------------- the samples' audit

def table(spark, warehouse, name):
    return spark.read.format("delta").load(str(Path(warehouse) / name))


def test_the_samples_audit_sums_every_partitions_time_and_elections_from_its_timeline(spark, samples_audit):
    """Per partition, the windows' elections are the timeline's, and their seconds add up to the
    timeline rows' own durations (to the end of each cluster's recorded time)."""
    summary, warehouse = samples_audit
    avail = table(spark, warehouse, "partition_availability")
    assert avail.count() > 0 and avail.where("offline_s > exists_s OR isr_of_one_s > exists_s").count() == 0
    key = ["cluster", "topic", "partition"]
    timeline = table(spark, warehouse, "partition_timeline").where("valid_from IS NOT NULL")
    elections = (timeline.groupBy(*key).pivot("election", list(ELECTION_KINDS)).count().fillna(0))
    summed = avail.groupBy(*key).agg(*[F.sum(f"{k}_elections").alias(k) for k in ELECTION_KINDS])
    assert_df_equality(summed.select(*key, *ELECTION_KINDS),
                       elections.where(" + ".join(ELECTION_KINDS) + " > 0").select(*key, *ELECTION_KINDS),
                       ignore_row_order=True, ignore_nullable=True, ignore_metadata=True)
    ends = {c: max(hi for _, hi in spans) for c, spans in _windows(spark, warehouse).items()}
    rows = timeline.where(~F.col("partition_state").isin("NewPartition", "NonExistentPartition")).collect()
    want: dict[tuple, float] = {}
    for r in rows:
        end = r["valid_to"] or ends[r["cluster"]]
        want[(r["cluster"], r["topic"], r["partition"])] = want.get((r["cluster"], r["topic"], r["partition"]), 0.0) \
            + max((end - r["valid_from"]).total_seconds(), 0.0)
    got = {(r["cluster"], r["topic"], r["partition"]): r["s"]
           for r in avail.groupBy(*key).agg(F.sum("exists_s").alias("s")).collect()}
    assert {k: round(v, 3) for k, v in got.items() if v} == {k: round(v, 3) for k, v in want.items() if v}


def _windows(spark, warehouse) -> dict[str, list[tuple]]:
    import json

    out: dict[str, list[tuple]] = {}
    for r in table(spark, warehouse, "audit_runs").select("time_windows").collect():
        for cluster, (lo, hi) in json.loads(r["time_windows"]).items():
            out.setdefault(cluster, []).append(
                (lo, datetime.fromisoformat(hi).astimezone(timezone.utc).replace(tzinfo=None)))
    return out


def test_the_docs_availability_queries_answer_on_the_samples(spark, samples_audit):
    _, warehouse = samples_audit
    assert {"partition_availability", "broker_failures", "topic_availability"} <= set(
        register_tables(spark, str(warehouse)))
    worst = spark.sql(doc_query("worst-topic-windows")).collect()
    assert worst and all(r["offline_s"] > 0 and r["max_offline_s"] <= r["offline_s"] for r in worst)
    reactions = spark.sql(doc_query("slowest-controller-reactions")).collect()
    assert reactions and all(r["partitions_led"] >= r["partitions_moved"] + r["partitions_offline"] for r in reactions)
    moved = [r for r in reactions if r["reaction_s"] is not None]
    assert moved and all(r["reaction_s"] >= 0 for r in moved)
