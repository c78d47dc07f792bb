# Thin aliases; the scripts are the source of truth (CI runs .ci/run).
.PHONY: setup test clean

setup:
	bash scripts/setup.sh

# make test ARGS="-m spark -x"
test:
	bash .ci/run $(ARGS)

# Keeps .cache/jars (re-fetching needs the network); rm -rf .cache for that.
clean:
	rm -rf .venv build dist spark-warehouse metastore_db derby.log .hypothesis .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name "*.egg-info" -type d -prune -exec rm -rf {} +
