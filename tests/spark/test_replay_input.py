"""What the audit's grouped map receives (jobs.audit.ReplayInput): only the event fields the
run holds, the few-valued ones as codes. The replay must not tell the difference."""
from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest
from chispa import assert_df_equality

from frames import comparable
from histories import events_delivered
from jobs.audit import (ALWAYS_SENT, EVENT, OUTPUT_TABLES, ROW_COLUMNS, AuditConfig, ReplayInput, _replay_groups,
                        cluster_eras, file_clusters, list_input_files, output_schema, replay_all, route, time_windows)
from jobs.ingest_spark import arrow_type, ingest
from schemas.events import EVENT_FIELD_NAMES, FEW_VALUED_FIELDS, event_struct
from state_machine.eras import resolve_era
from state_machine.generator import SimConfig, simulate
from state_machine.replay import PartitionReplay

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def _profile(held: set[str], values: dict[str, list[str]], first=None, last=None) -> dict:
    return {"rows": 1, "first_time": first, "last_time": last, **{f"held_{n}": int(n in held) for n in EVENT_FIELD_NAMES},
            **{f"values_{n}": values.get(n, []) for n in FEW_VALUED_FIELDS if n != "event_type"}}


def test_a_field_no_event_holds_is_not_sent_and_few_valued_fields_are_coded_by_their_sorted_values():
    profile = {("c", "PartitionStateChange"): _profile({"cluster", "seq", "event_type", "topic", "from_state", "to_state"},
                                                       {"from_state": ["OnlinePartition", "NewPartition"],
                                                        "to_state": ["OnlinePartition"]}),
               ("c", "BrokerFailure"): _profile({"cluster", "seq", "event_type", "brokers"}, {}),
               ("d", "ControllerFailover"): _profile({"cluster", "seq", "event_type", "controller_epoch"}, {})}
    wire = ReplayInput.of(profile)
    assert wire.sent == ("cluster", "seq", "event_type", "topic", "controller_epoch", "brokers", "from_state", "to_state")
    assert dict(wire.coded) == {"event_type": ("BrokerFailure", "ControllerFailover", "PartitionStateChange"),
                                "from_state": ("NewPartition", "OnlinePartition"), "to_state": ("OnlinePartition",)}
    # The key fields go whatever the profile says (an empty run has none held).
    assert set(ReplayInput.of({}).sent) == ALWAYS_SENT


def test_a_field_with_more_values_than_a_byte_codes_goes_as_it_is():
    many = [f"S{i:03d}" for i in range(ReplayInput.MAX_CODES + 1)]
    wire = ReplayInput.of({("c", "ReplicaStateChange"): _profile({"cluster", "seq", "event_type", "to_state", "from_state"},
                                                                 {"to_state": many, "from_state": many[:3]})})
    assert "to_state" in wire.sent and "to_state" not in dict(wire.coded)
    assert dict(wire.coded)["from_state"] == tuple(many[:3])


def test_time_windows_span_every_event_type_of_a_cluster_and_skip_types_without_a_time():
    profile = {("c", "A"): _profile(set(), {}, 50, 90), ("c", "B"): _profile(set(), {}, 10, 60),
               ("c", "C"): _profile(set(), {}), ("d", "A"): _profile(set(), {})}
    assert time_windows(profile) == {"c": (10, 90), "d": (None, None)}


@contextmanager
def _ingested(spark, inputs: list[str]):
    """The samples named, ingested, with the eras the audit would replay their clusters in."""
    paths = [str(SAMPLES / i) for i in inputs]
    found = list_input_files(spark, paths)
    ing = ingest(spark, [f for f, _ in found], file_clusters(found, None), None)
    try:
        default_era, eras, _ = cluster_eras(AuditConfig(inputs=paths, warehouse="unused"), ing.evidence)
        yield ing, default_era, eras
    finally:
        ing.release()


@pytest.mark.spark
@pytest.mark.parametrize("inputs", [["era-2.4-trace.jsonl"], ["."]], ids=["zk-events", "all-samples"])
def test_the_replay_of_what_the_grouped_map_receives_equals_the_replay_of_every_column(spark, inputs):
    with _ingested(spark, inputs) as (ing, default_era, eras):
        wire = ReplayInput.of(ing.profile)
        assert dict(wire.coded).keys() >= {"event_type", "to_state"}
        if inputs == ["era-2.4-trace.jsonl"]:   # a ZooKeeper-mode history: no KRaft fields
            assert not {"elr", "last_known_elr", "source_offset"} & set(wire.sent)
        routed = route(ing.events)
        every_column = replay_all(routed, eras, default_era, 4)
        received = replay_all(routed, eras, default_era, 4, wire=wire)
        assert every_column.count() > 1000
        assert_df_equality(comparable(received), comparable(every_column), ignore_row_order=True)


@pytest.mark.spark
def test_the_grouped_map_reuses_the_replays_one_shuffle_and_sort(spark):
    """The event fields become one struct column after the sort; the grouping must still find
    the key's layout there (a second exchange or sort would cost a pass over every event)."""
    with _ingested(spark, ["era-2.4-trace.jsonl"]) as (ing, default_era, eras):
        out = replay_all(route(ing.events), eras, default_era, 4, wire=ReplayInput.of(ing.profile))
        plan = out._jdf.queryExecution().executedPlan().toString()
        grouped = plan[plan.index("FlatMapGroupsInArrow"):]
        by_key = r"\(cluster#\d+, r_topic#\d+, r_partition#\d+"
        assert len(re.findall(r"Exchange hashpartitioning" + by_key, grouped)) == 1, plan
        assert len(re.findall(r"Sort \[cluster#\d+ ASC NULLS FIRST, r_topic#\d+", grouped)) == 1, plan
        assert "struct(cluster" in grouped, plan


def _as_arrow_gives(value):
    """The core's tuples come back as lists; its dicts (a violation's facts) as an Arrow map's
    (key, value) pairs, in the dict's order."""
    if isinstance(value, dict):
        return list(value.items())
    return list(value) if isinstance(value, tuple) else value


def test_the_grouped_map_answers_every_tables_rows_as_the_core_made_them():
    """The grouped map's function, outside Spark: a partition's events in, its rows of the three
    tables out in the core's order, `kind` telling them apart, each table's columns from the
    core's rows, the other columns null, and ordinals counting on across drains."""
    events, _ = simulate(SimConfig(cluster="c", era="2.4", brokers=4, topics=2, partitions=3, steps=400, seed=7,
                                   faults={"unclean_election": 2, "illegal_transition": 2}))
    groups = events_delivered(events)
    drain_every = 50
    assert max(map(len, groups.values())) > 2 * drain_every   # some partition drains on the way
    replay = _replay_groups({}, "2.4", drain_every, ReplayInput())
    struct = pa.struct([pa.field(f.name, arrow_type(f.dataType)) for f in event_struct().fields])
    columns = [f.name for f in output_schema().fields]
    kinds_seen = set()
    for (topic, partition), group in groups.items():
        batch = pa.RecordBatch.from_arrays([pa.array([e._asdict() for e in group], struct)], [EVENT])
        key = (pa.scalar("c"), pa.scalar(topic), pa.scalar(partition, pa.int32()))
        got = [row for out in replay(key, iter([batch])) for row in out.to_pylist()]

        core = PartitionReplay("c", topic, partition, resolve_era("2.4"))
        outputs = []
        for n, e in enumerate(group, 1):
            core.feed(e)
            if n % drain_every == 0:
                outputs.append(core.drain())
        outputs.append(core.finish())
        want, ordinals = [], dict.fromkeys(OUTPUT_TABLES, 0)
        for drained in outputs:
            for kind, rows in zip(OUTPUT_TABLES, drained):
                for r in rows:
                    row = dict.fromkeys(columns)
                    row.update(kind=kind, cluster="c", topic=topic, partition=partition, ordinal=ordinals[kind])
                    row.update({column: _as_arrow_gives(getattr(r, attr)) for column, attr in ROW_COLUMNS[kind].items()})
                    want.append(row)
                    ordinals[kind] += 1
        assert len(got) == len(want), (topic, partition)
        for g, w in zip(got, want):
            assert g == w, {k: (g[k], w[k]) for k in w if g[k] != w[k]}
        kinds_seen |= {row["kind"] for row in got}
    assert kinds_seen == set(OUTPUT_TABLES)
