import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "kafka: starts real Kafka clusters (minutes; jars from tests/kafka_cluster/fetch.sh)")


def pytest_collection_modifyitems(config, items):
    # Real clusters take minutes and need the Kafka jars (Maven Central): they run when asked for,
    # `pytest -m kafka` (or KAFKA_TESTS=1), not in every `pytest` run.
    import os

    if "kafka" in (config.getoption("markexpr") or "") or os.environ.get("KAFKA_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="starts real Kafka clusters: run with -m kafka (or KAFKA_TESTS=1)")
    for item in items:
        if "kafka" in item.keywords:
            item.add_marker(skip)
