from pathlib import Path

import pytest

# The suite's JVM (one per pytest process: .ci/run's two xdist workers have one each) runs
# hundreds of audits. It keeps no more query history than a failure report needs, and a larger
# heap than a single run: late in the suite, with the standalone cluster on the same cores, a 4g
# driver spun for minutes on "TaskMemoryManager: Failed to allocate a page" (an exhausted heap,
# not a slow query).
SUITE_CONF = {
    "spark.driver.memory": "6g",
    "spark.sql.ui.retainedExecutions": "20",
    "spark.ui.retainedJobs": "50",
    "spark.ui.retainedStages": "50",
}


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    # One JVM for the whole run (of this worker): starting Spark costs seconds, tests share it.
    # Imported lazily so tests that don't use Spark never import pyspark.
    from jobs.session import build_session

    session = build_session(
        master="local[2]", warehouse_dir=tmp_path_factory.mktemp("warehouse"), extra_conf=SUITE_CONF
    )
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _release_cached_tables(request):
    """A test's cached DataFrames do not outlive it (they hold heap the next tests need)."""
    yield
    if "spark" in request.fixturenames:
        request.getfixturevalue("spark").catalog.clearCache()


@pytest.fixture(scope="session")
def samples_audit(spark, tmp_path_factory):
    """One local audit of the bundled samples (data/samples, the real captures with them), as the
    README's first command runs it: (summary, warehouse). Shared: the tests of the real captures
    read their clusters' rows, the standalone-cluster test compares its run with it."""
    from jobs.audit import AuditConfig, run

    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    warehouse = tmp_path_factory.mktemp("samples") / "wh"
    return run(spark, AuditConfig(inputs=[str(samples)], warehouse=str(warehouse))), warehouse
