"""PySpark's Python worker daemon (`pyspark.daemon`), with Spark's own archives read once.

Spark starts its Python workers with the archives of its installation first on their path
(pyspark.zip, py4j's zip, the spark-core jar), and every task's set-up calls
`importlib.invalidate_caches()` (`pyspark/worker_util.py`, `setup_spark_files`, PySpark 4.1). On
Python 3.11 that makes each importer of a zip read the zip's whole directory again, in pure
Python, and an audit runs hundreds of small Python tasks. Those archives do not change while a
worker lives, so their importers keep what they read; files a job adds (`--py-files`,
`addPyFile`) are still looked at again, as Spark intends.

The daemon also imports the modules its tasks run before it forks the workers, so that a worker
starts with them rather than importing them (and compiling PySpark's from the zip's sources).
docs/spark-notes.md has the measurements.

Spark runs it in place of `pyspark.daemon` (`spark.python.daemon.module`, set by
jobs.session.build_session) as `python -m jobs.worker_daemon <worker module>`."""
from __future__ import annotations

import gc
import importlib
import re
import zipimport

# The archives Spark puts on its workers' path (PythonUtils.sparkPythonPath, Spark 4.1): PySpark's
# and py4j's zips, and the jar that holds PythonUtils (spark-core's, tens of thousands of entries).
SPARK_ARCHIVES = re.compile(r"(^|/)(python/lib/(pyspark\.zip|py4j-[^/]*-src\.zip)|jars/spark-core_[^/]*\.jar)$")


def keep_spark_archives() -> None:
    """Make every importer of Spark's own archives (one per package read from them: pyspark,
    pyspark/sql, ...) skip re-reading its archive; other archives' importers read theirs again."""
    if getattr(zipimport.zipimporter.invalidate_caches, "keeps_spark_archives", False):
        return
    read_again = zipimport.zipimporter.invalidate_caches

    def invalidate_caches(self: zipimport.zipimporter) -> None:
        if not SPARK_ARCHIVES.search(self.archive):
            read_again(self)

    invalidate_caches.keeps_spark_archives = True   # type: ignore[attr-defined]
    zipimport.zipimporter.invalidate_caches = invalidate_caches   # type: ignore[method-assign]


# The modules the audit's Python tasks run: PySpark's Arrow serializers (imported by the first
# Arrow task a worker runs), the parse and the grouped map's replay.
PRELOADED = ("pyspark.sql.pandas.serializers", "jobs.audit", "state_machine.replay")


def preload() -> None:
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except ImportError:   # not this project's interpreter: its tasks say what is missing
            pass
    # What is loaded stays for the daemon's life: the collection each worker runs after each task
    # (pyspark.daemon, worker reuse) skips it, and the forked workers share its pages.
    gc.freeze()


def main() -> None:
    # Imported here: pyspark.daemon reads sys.argv (the worker module) as it is imported.
    from pyspark import daemon

    keep_spark_archives()
    preload()
    daemon.manager()


if __name__ == "__main__":
    main()
