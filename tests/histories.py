"""Hypothesis strategies for generated cluster histories, shared by the property tests of the
core (tests/core) and of the log round trip (tests/ingest), and what a history delivers to each
partition. tests/ is on sys.path (its conftest)."""
from __future__ import annotations

from hypothesis import strategies as st

from state_machine.cluster import deliveries, plan_routing

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
