"""The Spark routing (jobs.audit.route) delivers each event to the partitions the core's
routing (state_machine.cluster.deliveries) does: each of them once."""
from __future__ import annotations

from pathlib import Path

import pytest
from chispa import assert_df_equality

from jobs.audit import route
from jobs.local_runner import input_files, read_events
from schemas.events import event_struct
from state_machine.cluster import deliveries, plan_routing
from state_machine.events import Event

pytestmark = pytest.mark.spark

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
DELIVERY = "cluster string, seq long, r_topic string, r_partition int"


def _routed(spark, events: list[Event]):
    got = route(spark.createDataFrame([tuple(e) for e in events], event_struct()))
    return got.select("cluster", "seq", "r_topic", "r_partition")


def _core(spark, events: list[Event]):
    by_cluster: dict[str, list[Event]] = {}
    for e in events:
        by_cluster.setdefault(e.cluster, []).append(e)
    want = []
    for c, evs in by_cluster.items():
        routing = plan_routing(evs)
        want += [(c, e.seq, topic, partition) for e in evs for topic, partition in deliveries(e, routing)]
    return spark.createDataFrame(want, DELIVERY)


def test_bundled_samples_are_routed_as_the_core_routes_them(spark):
    run = read_events(input_files([str(SAMPLES)]))
    events = [e for evs in run.events.values() for e in evs]
    assert len(events) > 3000
    assert any(e.brokers and len(e.brokers) > 1 and e.partition is None for e in events)   # fanned-out events
    got = _routed(spark, events)
    assert_df_equality(got, _core(spark, events), ignore_row_order=True, ignore_nullable=True)


def event(seq, event_type, **fields):
    return Event(**{**dict.fromkeys(Event._fields), "cluster": "c", "seq": seq, "event_type": event_type,
                    "event_time_ms": 1_700_000_000_000 + seq, **fields})


def test_an_event_naming_several_brokers_of_a_partition_reaches_it_once(spark):
    events = [event(1, "TopicCreation", topic="t", partition=0, replicas=[1, 2, 3]),
              event(2, "TopicCreation", topic="t", partition=1, replicas=[3, 4]),
              event(3, "TopicCreation", topic="u", partition=0, replicas=[4, 5]),
              event(4, "BrokerFailure", brokers=[2, 1, 4]),      # t-0 through 2 and 1, t-1 and u-0 through 4
              event(5, "BrokerStartup", brokers=[5]),
              event(6, "BrokerFailure", brokers=[9])]            # names no replica: reaches nobody
    got = _routed(spark, events)
    want = [("c", 1, "t", 0), ("c", 2, "t", 1), ("c", 3, "u", 0),
            ("c", 4, "t", 0), ("c", 4, "t", 1), ("c", 4, "u", 0), ("c", 5, "u", 0)]
    assert_df_equality(got, spark.createDataFrame(want, DELIVERY), ignore_row_order=True, ignore_nullable=True)
    assert_df_equality(got, _core(spark, events), ignore_row_order=True, ignore_nullable=True)


def test_a_clear_elr_record_reaches_its_topic_or_without_one_every_partition(spark):
    # KRaft 4.0+: ClearElrRecord names a topic, or (a broker-level min.insync.replicas) none.
    events = [event(1, "PartitionRecord", topic="t", partition=0, replicas=[1, 2], isr=[1, 2], leader=1, leader_epoch=0),
              event(2, "PartitionRecord", topic="t", partition=1, replicas=[2, 3], isr=[2, 3], leader=2, leader_epoch=0),
              event(3, "PartitionRecord", topic="u", partition=0, replicas=[3, 1], isr=[3, 1], leader=3, leader_epoch=0),
              event(4, "ClearElrRecord", topic="t"),
              event(5, "ClearElrRecord")]
    got = _routed(spark, events)
    want = [("c", 1, "t", 0), ("c", 2, "t", 1), ("c", 3, "u", 0),
            ("c", 4, "t", 0), ("c", 4, "t", 1), ("c", 5, "t", 0), ("c", 5, "t", 1), ("c", 5, "u", 0)]
    assert_df_equality(got, spark.createDataFrame(want, DELIVERY), ignore_row_order=True, ignore_nullable=True)
    assert_df_equality(got, _core(spark, events), ignore_row_order=True, ignore_nullable=True)
