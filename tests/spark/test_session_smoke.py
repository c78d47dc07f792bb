"""Smoke tests: Delta jars load offline, MERGE works, Arrow grouped map works."""

from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from chispa import assert_df_equality

pytestmark = pytest.mark.spark

SCHEMA = "id long, v string"


def test_delta_write_read_merge(spark, tmp_path):
    from delta.tables import DeltaTable

    path = str(tmp_path / "t")
    base = spark.createDataFrame([(1, "a"), (2, "b")], SCHEMA)
    base.write.format("delta").save(path)
    assert_df_equality(
        spark.read.format("delta").load(path), base, ignore_row_order=True
    )

    updates = spark.createDataFrame([(2, "B"), (3, "c")], SCHEMA)
    (
        DeltaTable.forPath(spark, path).alias("t")
        .merge(updates.alias("u"), "t.id = u.id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )

    expected = spark.createDataFrame([(1, "a"), (2, "B"), (3, "c")], SCHEMA)
    assert_df_equality(
        spark.read.format("delta").load(path), expected, ignore_row_order=True
    )
    last = DeltaTable.forPath(spark, path).history(1).collect()[0]
    assert last.operation == "MERGE"


def test_apply_in_arrow_iterator(spark):
    # Defined inside the test so cloudpickle ships it by value: a module-level
    # function in a test module is pickled by reference and workers can't
    # import test modules. The type hints are what make PySpark 4.1 pick the
    # iterator form (SQL_GROUPED_MAP_ARROW_ITER_UDF); see docs/spark-notes.md.
    def summarize(
        key: tuple, batches: Iterator[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        n_batches = rows = total = 0
        for batch in batches:
            n_batches += 1
            rows += batch.num_rows
            total += pc.sum(batch.column("x")).as_py() or 0
        yield pa.RecordBatch.from_pydict(
            {"k": [key[0].as_py()], "rows": [rows], "total": [total], "batches": [n_batches]},
            schema=pa.schema(
                [("k", pa.string()), ("rows", pa.int64()), ("total", pa.int64()), ("batches", pa.int64())]
            ),
        )

    df = spark.createDataFrame(
        [("a", i) for i in range(5)] + [("b", 10)], "k string, x long"
    )
    conf_key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(conf_key)
    # Small batches so group "a" (5 rows) arrives as several RecordBatches,
    # proving the function really streams instead of getting one table.
    spark.conf.set(conf_key, "2")
    try:
        out = df.groupBy("k").applyInArrow(
            summarize, "k string, rows long, total long, batches long"
        )
        expected = spark.createDataFrame(
            [("a", 5, 10, 3), ("b", 1, 10, 1)],
            "k string, rows long, total long, batches long",
        )
        assert_df_equality(out, expected, ignore_row_order=True)
    finally:
        spark.conf.set(conf_key, old)


@pytest.mark.parametrize("max_rows, cut", [(1000, True), (499, False)])
def test_materialize_cuts_a_small_frames_lineage_and_release_frees_the_rows(spark, monkeypatch, max_rows, cut):
    import jobs.session
    from jobs.session import materialize, release

    def kept() -> set[int]:   # ids of the RDDs with blocks kept
        return {i.id() for i in spark.sparkContext._jsc.sc().getRDDStorageInfo() if i.numCachedPartitions()}

    monkeypatch.setattr(jobs.session, "LINEAGE_CUT_MAX_ROWS", max_rows)
    source = spark.range(1000).selectExpr("id", "cast(id % 7 as string) as v").where("id % 2 = 0")   # 500 rows
    before = kept()
    frame, rows = materialize(source)
    assert rows == 500
    plan = frame._jdf.queryExecution().analyzed()
    # Local mode, small: later queries start at the kept rows, not at range + project + filter.
    # Above the limit: persisted, lineage and all.
    assert (plan.getClass().getName() == "org.apache.spark.sql.execution.LogicalRDD") is cut
    assert frame.is_cached is not cut
    assert len(kept() - before) == 1
    assert_df_equality(frame, source, ignore_row_order=True)
    release(frame)
    assert kept() == before


@pytest.mark.parametrize("max_rows", [1000, 499])
def test_materialize_counted_counts_each_group_in_the_pass_that_keeps_the_rows(spark, monkeypatch, max_rows):
    import jobs.session
    from jobs.session import materialize, materialize_counted, release

    monkeypatch.setattr(jobs.session, "LINEAGE_CUT_MAX_ROWS", max_rows)
    source = spark.range(1000).selectExpr("id", "cast(id % 7 as string) as v", "id % 2 = 0 as even").where("id < 500")
    frame, counts = materialize_counted(source, ("v", "even"))
    expected = {(str(v), e): sum(1 for i in range(500) if i % 7 == v and (i % 2 == 0) == e)
                for v in range(7) for e in (True, False)}
    assert counts == expected
    assert_df_equality(frame, source, ignore_row_order=True)
    release(frame)
    empty, none = materialize(source.where("id < 0"))
    assert none == 0
    release(empty)


def test_materialize_profiled_computes_its_aggregates_in_the_pass_that_keeps_the_rows(spark):
    from pyspark.sql import functions as F

    from jobs.session import materialize_profiled, release

    source = spark.range(100).selectExpr("id", "id % 3 as m", "if(id % 2 = 0, null, id) as odd")
    frame, profile = materialize_profiled(source, ("m",), {"lo": F.min("id"), "odd": F.count("odd"),
                                                           "set": F.collect_set(F.col("id") % 2)})
    assert {k: (v["rows"], v["lo"], v["odd"], sorted(v["set"])) for k, v in profile.items()} == {
        (m,): (len(ids), min(ids), sum(i % 2 for i in ids), [0, 1])
        for m in range(3) for ids in [[i for i in range(100) if i % 3 == m]]}
    assert_df_equality(frame, source, ignore_row_order=True)
    release(frame)


def _scans_locally(df) -> bool:
    """Is the frame's plan a local relation (no job, no Python worker reads it)?"""
    return df._jdf.queryExecution().executedPlan().getClass().getSimpleName() == "LocalTableScanExec"


@pytest.mark.parametrize("rows", [
    [(1, "a", [1, None, 3], True), (None, None, None, None), (2, "", [], False)],
    [],
], ids=["values and nulls", "empty"])
def test_local_frame_is_create_data_frame_without_workers(spark, rows):
    from jobs.session import local_frame

    schema = "n long, s string, ids array<int>, b boolean"
    made = local_frame(spark, rows, schema)
    assert_df_equality(made, spark.createDataFrame(rows, schema))
    assert _scans_locally(made)


def test_local_frame_takes_dicts_and_zoned_timestamps(spark):
    from datetime import datetime, timezone

    from jobs.session import local_frame
    from schemas.tables import table_struct

    struct = table_struct("audit_runs")
    # Every field a value of its type, the nullable ones of every other field null.
    by_type = {"string": "x", "long": 7, "double": 1.5, "boolean": True, "array": ["a", "b"]}
    row = {f.name: None if f.nullable and i % 2 else by_type[f.dataType.typeName()]
           for i, f in enumerate(struct.fields) if f.name != "started_at"}
    row["started_at"] = datetime(2026, 12, 4, 18, 46, 15, 123456, tzinfo=timezone.utc)
    made = local_frame(spark, [row], struct)
    assert_df_equality(made, spark.createDataFrame([row], struct))
    assert made.selectExpr("unix_micros(started_at) AS t").first()["t"] == 1796409975123456
