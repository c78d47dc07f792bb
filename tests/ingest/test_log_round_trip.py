"""Property: a simulated history written as a Kafka 2.4 cluster's log files audits, through the
log parsers and the local ingest, the same as its canonical events do.

For TRACE (every decision logged), INFO (the 2.6+ default) and inputs only (where the replay
infers what is missing), with and without injected faults: nothing is quarantined, the
violations are exactly the injected faults, and every partition's leader/ISR and replica
timelines are the canonical replay's, change for change. What the logs lose must be recovered by inference, never reported."""
from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from histories import shapes
from ingest.local import ingest_files, log_files
from ingest.render import render
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era
from state_machine.generator import FAULTS, SimConfig, simulate

ERA = resolve_era("2.4")   # the era ingest/render.py writes

faults = st.sampled_from([{}, {f: 1 for f in FAULTS}])


def timelines(results) -> dict:
    """Each partition's timelines, without what names the input (seq, source, inferred)."""
    return {key: ([(t.valid_from, t.partition_state, t.leader, t.leader_epoch, sorted(t.isr), t.replicas,
                    t.controller_epoch, t.election) for t in r.timeline],
                  [(t.valid_from, t.replica, t.replica_state) for t in r.replica_timeline])
            for key, r in results.items()}


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes, faults=faults)
def test_rendered_logs_audit_like_their_canonical_events(shape, faults):
    cfg = SimConfig(cluster="gen", era="2.4", faults=faults, fault_rate=0.3 if faults else 0.15, **shape)
    events, truth = simulate(cfg)
    with tempfile.TemporaryDirectory() as d:
        render(events, d)
        ingested = ingest_files(log_files(d), "gen")
    assert ingested.quarantine == []
    from_logs = replay_cluster("gen", ingested.events, ERA)
    reported = sorted((v.rule, key[0], key[1]) for key, r in from_logs.items() for v in r.violations)
    assert reported == sorted((t.rule, t.topic, t.partition) for t in truth)
    assert timelines(from_logs) == timelines(replay_cluster("gen", events, ERA))
