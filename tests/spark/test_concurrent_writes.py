"""Audits running at the same time into one warehouse (the nightly audit of several clusters, one
job per cluster): Delta fails a commit that a concurrent one may have invalidated, and the audit
writes again (jobs.writes.committed). Real Delta tables, real conflicts: two threads of the suite's
session start their writes together at a barrier, so that their commits conflict."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
from chispa import assert_df_equality
from pyspark.sql import types as T

import jobs.writes as writes
from histories import write_history
from jobs.audit import AuditConfig, AuditError, run
from jobs.writes import committed, ensure_table, merge_into, table_path, write_replayed
from schemas.tables import table_struct

T0 = datetime(2026, 11, 27, 2, 0, tzinfo=timezone.utc)


def rows_of(spark, name: str, values: list[dict]):
    """Rows of table `name`: each value dict over defaults by column type."""
    schema = table_struct(name)
    default = {T.StringType: "x", T.LongType: 0, T.IntegerType: 0, T.BooleanType: False, T.DoubleType: 0.0,
               T.TimestampType: T0, T.ArrayType: []}
    return spark.createDataFrame([{**{f.name: default[type(f.dataType)] for f in schema}, **v} for v in values], schema)


def timeline(spark, cluster: str, n: int = 3):
    """n partition_timeline rows of one partition of `cluster`, a minute apart, the last one open."""
    return rows_of(spark, "partition_timeline", [
        {"cluster": cluster, "topic": "payments", "partition": 3, "ordinal": i, "seq": i, "leader": 1 + i % 3,
         "valid_from": T0 + timedelta(minutes=i), "valid_to": T0 + timedelta(minutes=i + 1) if i < n - 1 else None,
         "partition_state": "OnlinePartition", "source": f"{cluster}:{i}"} for i in range(n)])


def at_once(*writes) -> list[BaseException | None]:
    """Run the writes in threads that start together; what each raised (None: it returned)."""
    start = threading.Barrier(len(writes))
    raised: list[BaseException | None] = [None] * len(writes)

    def go(i):
        start.wait()
        try:
            writes[i]()
        except BaseException as exc:   # reported to the test, not lost in the thread
            raised[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(writes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return raised


def assert_holds(spark, warehouse, name, expected):
    held = spark.read.format("delta").load(table_path(str(warehouse), name))
    assert_df_equality(held, spark.createDataFrame(expected.collect(), held.schema), ignore_row_order=True)


def test_runs_recorded_at_the_same_time_are_all_kept(spark, tmp_path):
    ensure_table(spark, str(tmp_path), "audit_runs")
    runs = []
    for rnd in range(3):
        pair = [rows_of(spark, "audit_runs", [{"run_id": f"r{rnd}-{i}"}]).cache() for i in range(2)]
        runs += pair
        raised = at_once(*(lambda df=df: committed("audit_runs", lambda: merge_into(spark, str(tmp_path), "audit_runs", df))
                           for df in pair))
        assert raised == [None, None]
    expected = runs[0]
    for df in runs[1:]:
        expected = expected.unionByName(df)
    assert_holds(spark, tmp_path, "audit_runs", expected)


@pytest.mark.parametrize("layout", ["by cluster", "unpartitioned, as earlier versions made it"])
def test_replayed_rows_of_two_clusters_written_at_the_same_time_both_land(spark, tmp_path, monkeypatch, layout):
    if layout != "by cluster":
        monkeypatch.setattr(writes, "PARTITION_COLUMNS", {})
    wh = str(tmp_path)
    held = timeline(spark, "held")
    write_replayed(spark, wh, "partition_timeline", held, ["held"], {})   # creates the table
    parts = spark.read.format("delta").load(table_path(wh, "partition_timeline"))
    assert (parts.inputFiles() and "cluster=held" in parts.inputFiles()[0]) == (layout == "by cluster")
    new = {c: timeline(spark, c).cache() for c in ("a", "b")}
    window = {c: (int(T0.timestamp() * 1000), int((T0 + timedelta(minutes=2)).timestamp() * 1000)) for c in new}
    raised = at_once(*(lambda c=c: committed("partition_timeline", lambda: write_replayed(
        spark, wh, "partition_timeline", new[c], [c], {c: window[c]})) for c in new))
    assert raised == [None, None]
    assert_holds(spark, wh, "partition_timeline", held.unionByName(new["a"]).unionByName(new["b"]))


def _nights(spark, cluster: str) -> tuple[dict, dict]:
    """Two nights of one partition of `cluster`, two rows each, and each night's time window."""
    ms = lambda t: int(t.timestamp() * 1000)   # noqa: E731
    nights = {}
    for night in (0, 1):
        start = T0 + timedelta(days=night)
        nights[night] = rows_of(spark, "partition_timeline", [
            {"cluster": cluster, "topic": "payments", "partition": 3, "ordinal": i, "seq": i,
             "valid_from": start + timedelta(minutes=i), "valid_to": start + timedelta(minutes=i + 1) if i < 1 else None,
             "partition_state": "OnlinePartition", "source": f"night{night}:{i}"} for i in range(2)]).cache()
    return nights, {k: (ms(T0 + timedelta(days=k)), ms(T0 + timedelta(days=k, minutes=1))) for k in nights}


def _one_after_another(spark, nights: dict):
    """The nights' rows as one partition's timeline: renumbered, each night's last row ending at the next's first."""
    rows = [r.asDict() for k in sorted(nights) for r in nights[k].collect()]
    for i, r in enumerate(rows):
        r["ordinal"] = i
        r["valid_to"] = rows[i + 1]["valid_from"] if i + 1 < len(rows) else None
    return spark.createDataFrame(rows, nights[0].schema)


def test_two_nights_of_one_cluster_written_at_the_same_time_are_both_kept(spark, tmp_path):
    # Each overwrite replaces the cluster's files; the one that commits second fails in Delta and
    # is written again from the table the first left, so both nights stay, as one after another.
    wh = str(tmp_path)
    write_replayed(spark, wh, "partition_timeline", timeline(spark, "held"), ["held"], {})
    nights, window = _nights(spark, "a")
    raised = at_once(*(lambda n=n: committed("partition_timeline", lambda: write_replayed(
        spark, wh, "partition_timeline", nights[n], ["a"], {"a": window[n]})) for n in nights))
    assert raised == [None, None]
    expected = timeline(spark, "held").unionByName(_one_after_another(spark, nights))
    assert_holds(spark, wh, "partition_timeline", expected)


def test_first_audits_of_one_cluster_into_a_new_warehouse_at_the_same_time_are_both_kept(spark, tmp_path):
    # Both find no table and make it: one create makes version 0, the other finds the table made;
    # the maker appends its rows, the other replaces its window's rows, and the later commit of
    # the two is written again from what the first left.
    wh = str(tmp_path)
    nights, window = _nights(spark, "a")
    raised = at_once(*(lambda n=n: committed("partition_timeline", lambda: write_replayed(
        spark, wh, "partition_timeline", nights[n], ["a"], {"a": window[n]})) for n in nights))
    assert raised == [None, None]
    assert_holds(spark, wh, "partition_timeline", _one_after_another(spark, nights))


def test_a_commit_between_a_tables_making_and_its_first_rows_is_kept(spark, tmp_path, monkeypatch):
    # The maker's first rows are an append (writes.first_rows); another audit's night of the same
    # cluster that commits after the table is made and before that append is not doubled by it.
    wh = str(tmp_path)
    nights, window = _nights(spark, "a")
    real = writes.first_rows

    def another_audit_first(spark, path, rows, tag, replace):
        assert write_replayed(spark, wh, "partition_timeline", nights[1], ["a"], {"a": window[1]}) == path
        real(spark, path, rows, tag, replace)

    monkeypatch.setattr(writes, "first_rows", another_audit_first)
    write_replayed(spark, wh, "partition_timeline", nights[0], ["a"], {"a": window[0]})
    assert_holds(spark, wh, "partition_timeline", _one_after_another(spark, nights))


def test_a_write_that_keeps_losing_stops_the_audit_naming_the_table(spark, tmp_path):
    ensure_table(spark, str(tmp_path), "audit_runs")
    lost = []
    for rnd in range(5):   # until two MERGEs started together conflict (each round so far)
        pair = [rows_of(spark, "audit_runs", [{"run_id": f"r{rnd}-{i}"}]).cache() for i in range(2)]
        raised = at_once(*(lambda df=df: committed("audit_runs", lambda: merge_into(spark, str(tmp_path), "audit_runs", df),
                                                   attempts=1) for df in pair))
        assert None in raised   # one of the two commits first
        lost += [e for e in raised if e is not None]
        if lost:
            break
    assert lost, "no two MERGEs started together conflicted in 5 rounds"
    assert isinstance(lost[0], AuditError)
    assert "table audit_runs: the write lost to concurrent writers 1 times" in str(lost[0])
    assert "run the audit again" in str(lost[0])


def test_two_audits_adding_the_same_new_column_at_the_same_time_both_go_on(spark, tmp_path, monkeypatch):
    """An audit of this version meeting a table of an earlier one adds the columns documented
    since (jobs.writes.add_missing_columns); two such audits at once both add the same column."""
    from schemas.tables import TABLES

    current = TABLES["audit_runs"]
    since = [f.name for f in current].index("time_windows")   # the columns added since the first version
    earlier = current[:since]
    for round_ in range(4):
        warehouse = str(tmp_path / f"w{round_}")
        monkeypatch.setitem(TABLES, "audit_runs", earlier)
        ensure_table(spark, warehouse, "audit_runs")
        monkeypatch.setitem(TABLES, "audit_runs", current)
        add = lambda: committed("audit_runs", lambda: ensure_table(spark, warehouse, "audit_runs")[0])  # noqa: E731
        assert at_once(add, add) == [None, None]
        held = spark.read.format("delta").load(table_path(warehouse, "audit_runs"))
        assert held.columns == [f.name for f in current]


def test_rows_landed_between_a_read_and_its_write_are_kept(spark, tmp_path, monkeypatch):
    # Delta checks a commit against the commits after its transaction's read, which comes after
    # the read of the rows it keeps: a night landing in between is found in the history, and the
    # rows are written again from the table as it was before this write.
    wh = str(tmp_path)
    write_replayed(spark, wh, "partition_timeline", timeline(spark, "held"), ["held"], {})
    nights, window = _nights(spark, "a")
    real, landed = writes.replaced_rows, []

    def read_then_another_lands(*args, **kwargs):
        read = real(*args, **kwargs)
        if not landed:
            landed.append(True)
            write_replayed(spark, wh, "partition_timeline", nights[0], ["a"], {"a": window[0]})
        return read

    monkeypatch.setattr(writes, "replaced_rows", read_then_another_lands)
    write_replayed(spark, wh, "partition_timeline", nights[1], ["a"], {"a": window[1]})
    assert_holds(spark, wh, "partition_timeline", timeline(spark, "held").unionByName(_one_after_another(spark, nights)))


@pytest.mark.parametrize("lands", ["between the read and the write", "after the write"])
def test_an_audit_derives_its_tables_from_the_timeline_with_the_rows_another_wrote(spark, tmp_path, monkeypatch,
                                                                                    lands):
    # The audit reads partition_timeline once for its write and its derived tables. Rows another
    # audit writes between that read and the write are kept by the write (read again); rows
    # written after it are kept by the other's write. Either way the derived tables, written from
    # the first read, are written again from the timeline that holds them.
    import jobs.audit as audit

    inputs = tmp_path / "in"
    inputs.mkdir()
    write_history(inputs / "h.jsonl", cluster="c", era="2.4", seed=5, steps=30)
    wh = str(tmp_path / "wh")
    long_ago = datetime(2020, 1, 1, tzinfo=timezone.utc)
    landed = rows_of(spark, "partition_timeline", [{"cluster": "c", "topic": "landed", "partition": 0, "leader": 1,
                                                    "valid_from": long_ago, "valid_to": None,
                                                    "partition_state": "OnlinePartition", "source": "another audit"}])

    def another_audit_writes():
        ms = int(long_ago.timestamp() * 1000)
        write_replayed(spark, wh, "partition_timeline", landed, ["c"], {"c": (ms, ms)})

    if lands == "after the write":
        real = audit.write_replayed

        def then_another(spark, warehouse, name, *args, **kwargs):
            path = real(spark, warehouse, name, *args, **kwargs)
            if name == "partition_timeline":
                another_audit_writes()
            return path

        monkeypatch.setattr(audit, "write_replayed", then_another)
    else:
        real = audit.replaced_rows

        def read_then_another(*args, **kwargs):
            read = real(*args, **kwargs)
            another_audit_writes()
            return read

        monkeypatch.setattr(audit, "replaced_rows", read_then_another)
    run(spark, AuditConfig(inputs=[str(inputs)], warehouse=wh, run_id="read-again"))
    for name in ("partition_timeline", "partition_availability"):
        held = spark.read.format("delta").load(table_path(wh, name)).where("cluster = 'c'")
        assert held.where("topic = 'landed'").count() >= 1, name
        assert held.where("topic <> 'landed'").count() >= 1, name
