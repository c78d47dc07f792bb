"""Hypothesis strategies for generated cluster histories, shared by the property tests of the
core (tests/core) and of the log round trip (tests/ingest), what a history delivers to each
partition, and a history written as an audit's input. tests/ is on sys.path (its conftest)."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import strategies as st

from state_machine.cluster import deliveries, plan_routing
from state_machine.generator import SimConfig, simulate

# SimConfig fields: cluster shape, length and what the brokers logged (TRACE, the INFO default of
# 2.6+, inputs only).
shapes = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "brokers": st.integers(3, 6),
    "topics": st.integers(1, 3),
    "partitions": st.integers(1, 3),
    "replication_factor": st.integers(2, 3),
    "steps": st.integers(5, 60),
    "log_level": st.sampled_from(["trace", "info", "inputs"]),
})


def events_delivered(events) -> dict:
    """Each partition's events, in order, as `deliveries` routes them: what the Spark job's grouped
    map receives for the partition, without replay_cluster's retirement of deleted partitions."""
    routing = plan_routing(events)
    delivered: dict[tuple, list] = {key: [] for key in routing.partitions}
    for e in events:
        for key in deliveries(e, routing):
            delivered[key].append(e)
    return delivered


def write_history(path: Path, **cfg) -> list[dict]:
    """The history SimConfig(**cfg) generates, written to `path` as canonical events (JSON lines);
    its ground truth, the violations injected."""
    events, truth = simulate(SimConfig(**cfg))
    with open(path, "w") as fh:
        for e in events:
            fh.write(json.dumps({k: v for k, v in e._asdict().items() if v is not None}) + "\n")
    return [t._asdict() for t in truth]
