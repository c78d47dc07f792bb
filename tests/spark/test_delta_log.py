"""jobs.delta_log reads a table's commits from its log as Delta's own history shows them."""
import pytest

from jobs.delta_log import commits_since, latest_version

pytestmark = pytest.mark.spark


def test_the_commits_read_from_the_log_are_deltas_history(spark, tmp_path):
    from delta.tables import DeltaTable

    path = str(tmp_path / "t")
    assert latest_version(spark, path) is None and commits_since(spark, path) == []
    spark.range(3).write.format("delta").save(path)
    spark.range(3, 5).write.format("delta").mode("append").option("userMetadata", "appended").save(path)
    spark.range(2).write.format("delta").mode("overwrite").option("replaceWhere", "id < 2") \
        .option("userMetadata", '{"x": 1}').save(path)
    (DeltaTable.forPath(spark, path).alias("t").merge(spark.range(4, 7).alias("s"), "t.id = s.id")
     .whenNotMatchedInsertAll().execute())
    spark.sql(f"ALTER TABLE delta.`{path}` ADD COLUMNS (note STRING)")
    history = {r["version"]: r for r in DeltaTable.forPath(spark, path).history().collect()}
    read = commits_since(spark, path)
    assert [c.version for c in read] == sorted(history) == [0, 1, 2, 3, 4]
    for c in read:
        h = history[c.version]
        assert (c.operation, c.read_version, c.blind_append, c.user_metadata) == \
            (h["operation"], h["readVersion"], h["isBlindAppend"], h["userMetadata"]), c
        # Delta's history gives the commit file's time, the log's commitInfo the writer's: the same moment.
        assert abs(c.at - h["timestamp"].timestamp() * 1000) < 5000
    assert [c.version for c in commits_since(spark, path, 2)] == [3, 4]
    assert latest_version(spark, path) == 4
