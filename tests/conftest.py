import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    # One JVM for the whole run: starting Spark costs seconds, tests share it.
    # Imported lazily so tests that don't use Spark never import pyspark.
    from jobs.session import build_session

    session = build_session(
        master="local[2]", warehouse_dir=tmp_path_factory.mktemp("warehouse")
    )
    yield session
    session.stop()
