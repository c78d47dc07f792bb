"""jobs.worker_daemon: Spark's own archives are not read again for each task, every other
archive is; and the session's Python workers run from it."""
import importlib
import zipfile
import zipimport

import pytest

from jobs import worker_daemon


def _archive(path, modules: dict[str, str]):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for name, text in modules.items():
            z.writestr(f"{name}.py", text)
    return path


@pytest.fixture
def kept(monkeypatch):
    # The patch is process-wide: undone after the test.
    monkeypatch.setattr(zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches)
    worker_daemon.keep_spark_archives()


def test_spark_archives_are_read_once_and_others_again(tmp_path, kept):
    spark = _archive(tmp_path / "spark" / "python" / "lib" / "pyspark.zip", {"a": "x = 1"})
    jar = _archive(tmp_path / "spark" / "jars" / "spark-core_2.13-4.1.4.jar", {"a": "x = 1"})
    other = _archive(tmp_path / "deps" / "user.zip", {"a": "x = 1"})
    importers = {p: zipimport.zipimporter(str(p)) for p in (spark, jar, other)}
    for path in importers:   # each archive changes after its importer read it
        _archive(path, {"a": "x = 1", "b": "x = 2"})
    importlib.invalidate_caches()
    for path, importer in importers.items():
        importer.invalidate_caches()
    seen = {path: importer.find_spec("b") is not None for path, importer in importers.items()}
    assert seen == {spark: False, jar: False, other: True}


def test_keeping_twice_wraps_once(kept):
    patched = zipimport.zipimporter.invalidate_caches
    worker_daemon.keep_spark_archives()
    assert zipimport.zipimporter.invalidate_caches is patched


def test_the_archives_spark_puts_on_a_workers_path():
    names = {
        "/opt/spark/python/lib/pyspark.zip": True,
        "/v/site-packages/pyspark/python/lib/py4j-0.10.9.9-src.zip": True,
        "/v/site-packages/pyspark/jars/spark-core_2.13-4.1.4.jar": True,
        "/v/site-packages/pyspark/jars/delta-spark_2.13-4.4.0.jar": False,
        "/work/userFiles-1/deps.zip": False,
        "/work/python/lib/pyspark.zip.bak": False,
    }
    assert {n: bool(worker_daemon.SPARK_ARCHIVES.search(n)) for n in names} == names


@pytest.mark.spark
def test_the_sessions_workers_start_from_the_daemon(spark):
    """A worker of the suite's session (jobs.session.build_session) was forked from
    jobs.worker_daemon: the patch is in place, the audit's modules are loaded before its first
    task imports anything, and what the daemon loaded is out of the collector's way."""
    preloaded = worker_daemon.PRELOADED

    def report(batches):
        import gc
        import sys

        import pandas as pd
        for _ in batches:
            yield pd.DataFrame({
                "argv0": [sys.argv[0]],
                "kept": [getattr(sys.modules["zipimport"].zipimporter.invalidate_caches, "keeps_spark_archives", False)],
                "preloaded": [all(m in sys.modules for m in preloaded)],
                "frozen": [gc.get_freeze_count()],
            })

    row = spark.range(1).coalesce(1).mapInPandas(report, "argv0 string, kept boolean, preloaded boolean, frozen long").first()
    assert row.argv0 == worker_daemon.__file__
    assert row.kept and row.preloaded
    assert row.frozen > 0
