# Thin aliases; the scripts are the source of truth (CI runs .ci/run).
.PHONY: setup test test-all clean

setup:
	bash scripts/setup.sh

# make test ARGS="-m spark -x"
test:
	bash .ci/run $(ARGS)

# CI records the newest Kafka release of each mode on live clusters; this records every release's
# (KAFKA_SCENARIOS=all), the property tests that take their number of examples from the
# Hypothesis profile draw all of them (HYPOTHESIS_PROFILE=all), and the golden corpus is compared
# whole, every generated history, where CI compares every tenth (GOLDEN_HISTORIES=all,
# docs/golden.md). Run `make test-all` before a change to tests/kafka_cluster/, to the ingest's
# catalogue or to the replay engine.
test-all:
	KAFKA_SCENARIOS=all HYPOTHESIS_PROFILE=all GOLDEN_HISTORIES=all bash .ci/run $(ARGS)

# Keeps .cache/jars (re-fetching needs the network); rm -rf .cache for that.
clean:
	rm -rf .venv build dist spark-warehouse metastore_db derby.log .hypothesis .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name "*.egg-info" -type d -prune -exec rm -rf {} +
