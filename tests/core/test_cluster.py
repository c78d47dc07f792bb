"""replay_cluster against the routing it implements, and long generated histories.

replay_cluster stops delivering broker events to partitions that are deleted and have
no event of their own (or of their topic) left; the reference here delivers every event
exactly as `deliveries` says. The two must agree on everything they return."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from histories import events_delivered
from state_machine import cluster
from state_machine.cluster import replay_cluster
from state_machine.eras import ERAS
from state_machine.generator import FAULTS, SimConfig, Simulator, simulate
from state_machine.replay import PartitionReplay, ReplayResult

DELETION_ERAS = [name for name, era in ERAS.items() if era.topic_deletion]


def replay_every_delivery(events, era) -> dict:
    return {key: ReplayResult(*PartitionReplay("c", key[0], key[1], era).feed_all(delivered).finish())
            for key, delivered in events_delivered(events).items()}


@pytest.fixture
def retirements(monkeypatch):
    """Counts the partitions replay_cluster stops visiting (so that a test can require some)."""
    retired = []
    original = cluster._Retirement.retire

    def retire(self, i, by_broker):
        original(self, i, by_broker)
        retired.append(len(self.retired))
    monkeypatch.setattr(cluster._Retirement, "retire", retire)
    return retired


@pytest.mark.parametrize("era", DELETION_ERAS)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(100, 800), log_level=st.sampled_from(["trace", "info", "inputs"]),
       faults=st.dictionaries(st.sampled_from(sorted(FAULTS)), st.integers(0, 2)), skip=st.integers(0, 3))
def test_replay_cluster_equals_delivering_every_event(retirements, era, seed, steps, log_level, faults, skip):
    events, _ = simulate(SimConfig(era=era, brokers=4, topics=2, partitions=2, steps=steps, seed=seed,
                                   log_level=log_level, faults=faults))
    events = events[len(events) * skip // 8:]  # some logs start mid-history
    assert replay_cluster("c", events, ERAS[era]) == replay_every_delivery(events, ERAS[era])


def test_deleted_partitions_stop_receiving_broker_events(retirements):
    events, _ = simulate(SimConfig(era="2.4", brokers=4, topics=2, partitions=2, steps=1500, seed=3))
    assert replay_cluster("c", events, ERAS["2.4"]) == replay_every_delivery(events, ERAS["2.4"])
    assert retirements and retirements[-1] > 0, "no deleted partition was retired: the test shows nothing"


def test_long_history_keeps_creating_topics_and_forgets_deleted_ones():
    # Topic creation is capped by the topics that exist, not by all ever created: a long
    # history goes on creating topics as others are deleted, rather than deleting down to one
    # topic and churning brokers alone.
    cfg = SimConfig(era="2.4", brokers=4, topics=2, partitions=2, steps=6000, seed=5)
    sim = Simulator(cfg)
    events = list(sim.run())
    created = [e.topic for e in events if e.event_type == "TopicCreation"]
    assert len(set(created)) > 4 * cfg.topics
    assert len(sim.topics) <= 2 * cfg.topics
    assert len(sim.models) == cfg.partitions * len(sim.topics)  # deleted topics' partitions are dropped
