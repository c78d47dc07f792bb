import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# Every Spark JVM a test starts (the suite's session, a `controller-replay` run's) reads
# tests/spark-conf/spark-defaults.conf, unless SPARK_CONF_DIR names another.
os.environ.setdefault("SPARK_CONF_DIR", str(Path(__file__).resolve().parent / "spark-conf"))

# Hypothesis profiles: CI runs hypothesis' default; `make test-all` loads "all" (HYPOTHESIS_PROFILE=all).
# The property tests that draw the most examples take their number from the profile (they set no
# max_examples of their own): 100 in CI, 1000 under "all".
settings.register_profile("all", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Session fixtures that more than one file reads, and those files. Each pytest-xdist worker builds
# the session fixtures its own tests ask for: .ci/run's scheduler (below) sends the files of one
# of these to one worker, which builds the fixture once (a file left out may build it again).
SHARED_BY = {"samples_audit": ("tests/spark/test_real_samples.py", "tests/spark/test_standalone_cluster.py",
                               "tests/spark/test_availability.py",
                               "tests/spark/test_report.py")}
# The order the work goes out to the workers: the longest first, the short files filling in after
# (a long file that starts last is the run's tail). A file goes out with the first of these that
# one of its tests is marked with or asks for as a fixture; the files with none go last.
FIRST_OUT = ("kafka", "slow", "spark")


def _work_unit(path: str) -> str:
    """What a test file runs on one worker with: the SHARED_BY fixture it reads, or itself alone."""
    return next((name for name, files in SHARED_BY.items() if path in files), path)


def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, a shared fixture's files one unit of work. (--dist loadgroup's xdist_group
    marks would say so, but xdist 3.8 marks a test by rewriting its node id, which pytest 9.2 no
    longer reads: the groups are silently ignored, pytest-dev/pytest-xdist#1386.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFixtureScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _work_unit(super()._split_scope(nodeid))

    return SharedFixtureScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The units of work in FIRST_OUT's order, which .ci/run keeps (--no-loadscope-reorder: xdist
    would order them by their number of tests)."""
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    first_out: dict[str, int] = {}
    for path, tests in files.items():
        names = {m.name for t in tests for m in t.iter_markers()} | {f for t in tests for f in t.fixturenames}
        rank = min((FIRST_OUT.index(n) for n in names & set(FIRST_OUT)), default=len(FIRST_OUT))
        unit = _work_unit(path)
        first_out[unit] = min(first_out.get(unit, rank), rank)
    order = {unit: i for i, unit in enumerate(sorted(first_out, key=first_out.get))}
    items.sort(key=lambda item: order[_work_unit(item.nodeid.split("::", 1)[0])])


# The suite's JVM (one per pytest process: .ci/run's two xdist workers have one each) runs
# hundreds of audits. It keeps no more query history than a failure report needs, and a larger
# heap than a single run: late in the suite, with the standalone cluster on the same cores, a 4g
# driver spun for minutes on "TaskMemoryManager: Failed to allocate a page" (an exhausted heap,
# not a slow query).
#
# Its queries run interpreted, not compiled: the suite's audits read a few thousand lines each, and
# compiling each query's generated Java (Janino) costs more CPU than the compiled code then saves on
# so few rows; the suite is bound by CPU. The runs the tests start as a user does (the console
# script, spark-submit on the standalone cluster) compile, and tests/spark/test_standalone_cluster.py
# compares the rows of one such run with this session's.
SUITE_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
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


# A JVM that dies fails every later test of its worker on py4j's "Connection refused", far from the
# cause. The test it died in says how it ended; the later ones say where to look.
_JVM_DIED_IN: dict[str, str] = {}


def jvm_end(proc) -> str | None:
    """How the session's JVM (PySpark's gateway process) ended, and what that means, or None."""
    if proc is None or proc.poll() is None:
        return None
    rc = proc.returncode
    if rc < 0:
        how = f"was killed by {signal.Signals(-rc).name}"
        if -rc == signal.SIGKILL:
            avail = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                          if line.startswith("MemAvailable:")), "?")
            how += (" (the kernel's out-of-memory killer ends a process so; MemAvailable is now "
                    f"{int(avail) // 1024 if avail.isdigit() else avail} MiB)")
    elif rc == 52:
        how = "exited 52, Spark's exit on a java.lang.OutOfMemoryError (SUITE_CONF's driver heap)"
    elif rc == 50:
        how = ("exited 50, Spark's exit on an uncaught error in one of its threads (the test's "
               "captured stderr names it)")
    else:
        crash_logs = sorted(str(p) for p in Path.cwd().glob(f"hs_err_pid{proc.pid}.log"))
        how = f"exited {rc}" + (f", its crash log: {crash_logs[0]}" if crash_logs else "")
    return f"the suite's JVM (pid {proc.pid}) {how}"


@pytest.fixture(autouse=True)
def _release_cached_tables(request):
    """A test's cached DataFrames do not outlive it (they hold heap the next tests need)."""
    if "spark" not in request.fixturenames:
        yield
        return
    session = request.getfixturevalue("spark")
    if _JVM_DIED_IN:
        pytest.fail(f"{_JVM_DIED_IN['how']} during {_JVM_DIED_IN['test']}", pytrace=False)
    yield
    ended = jvm_end(getattr(type(session.sparkContext)._gateway, "proc", None))
    if ended:
        _JVM_DIED_IN.update(how=ended, test=request.node.nodeid)
        pytest.fail(f"{ended} during this test", pytrace=False)
    session.catalog.clearCache()


@pytest.fixture(scope="session")
def samples_audit(spark, tmp_path_factory):
    """One local audit of the bundled samples (data/samples, the real captures with them), as the
    README's first command runs it: (summary, warehouse). Shared: the tests of the real captures
    read their clusters' rows, the standalone-cluster test compares its run with it."""
    from jobs.audit import AuditConfig, run

    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    warehouse = tmp_path_factory.mktemp("samples") / "wh"
    return run(spark, AuditConfig(inputs=[str(samples)], warehouse=str(warehouse))), warehouse
