"""The columnar path for canonical-event lines (ingest/fast_events.py) is an accelerator,
not a second validator: the Spark parse function gives the same rows with it as without
it, on generated events and on events broken in every way `invalid_reason` names (and in
ways only a JSON parser sees), cut into batches and file pieces at random."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.fast_events import all_json_objects, read_events, replayable
from schemas.validate import load_json
from schemas.events import EVENT_FIELDS
from state_machine.generator import SimConfig, simulate

from .test_fast import rows


def _canonical(event) -> str:
    return json.dumps({k: v for k, v in event._asdict().items() if v is not None}, separators=(",", ":"))


def _generated() -> list[str]:
    events, _ = simulate(SimConfig(cluster="g", era="2.4", brokers=5, topics=3, partitions=3, steps=300, seed=7,
                                   faults={"unclean_election": 1, "zombie_controller": 1}))
    return [_canonical(e) for e in events]


GENERATED = _generated()
GOOD = json.loads(GENERATED[0])

# Lines the fast path must hand to the line-by-line path, each for its own reason.
BROKEN = (
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1,null]}',     # null element
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1,"2"]}',
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[2147483648]}',
    '{"cluster":"g","seq":"1","event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":"g","seq":1.0,"event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":"g","seq":9223372036854775808,"event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":"g","seq":true,"event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":5,"seq":1,"event_type":"BrokerStartup","brokers":[1]}',
    '{"seq":1,"event_type":"BrokerStartup","brokers":[1]}',                           # no cluster
    '{"cluster":"g","event_type":"BrokerStartup","brokers":[1]}',                     # no seq
    '{"cluster":"g","seq":1,"brokers":[1]}',                                          # no event type
    '{"cluster":"g","seq":1,"event_type":"BrokerExploded","brokers":[1]}',
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup"}',                           # needs brokers
    '{"cluster":"g","seq":1,"event_type":"IsrChange","topic":"t","leader":1,"isr":[1]}',   # no partition
    '{"cluster":"g","seq":1,"event_type":"TopicDeletion"}',                           # needs a topic
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1],"colour":"red"}',
    '{"cluster":"g","seq":1,"seq":2,"event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1]}{"cluster":"g"}',
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1]} trailing',
    '{"cluster":"g","seq":NaN,"event_type":"BrokerStartup","brokers":[1]}',
    '{"cluster":"g\tx","seq":1,"event_type":"BrokerStartup","brokers":[1]}',          # a raw tab in a string
    '{"cluster":"\\ud800","seq":1,"event_type":"BrokerStartup","brokers":[1]}',        # a lone surrogate
    '{"cluster":"g","seq":1,"event_type":"BrokerStartup","brokers":[1]',              # truncated
    '{"log":"[2024-01-01 00:00:00,000] INFO x (y)\\n","stream":"stdout","time":"2024-01-01T00:00:00Z"}',  # Docker
    '{"log":"\\udc00 [2024-01-01 00:00:00,000] INFO x (y)\\n","stream":"stdout"}',  # Docker, a lone surrogate
    '{ }',
    '{',
    '{"cluster":null,"seq":1,"event_type":"BrokerStartup","brokers":[1]}',           # a null cluster
)


def same_either_way(pieces: list[list[str]], batch: int, cluster: str | None = "c", fmt: str = "auto") -> list[dict]:
    slow = rows(pieces, False, batch, cluster=cluster, fmt=fmt)
    assert rows(pieces, True, batch, cluster=cluster, fmt=fmt) == slow
    return slow


def test_generated_events_take_the_fast_path_whole():
    table = read_events(GENERATED)
    assert table is not None and len(table) == len(GENERATED) > 500
    _, ok = replayable(table, None)
    assert pa.compute.all(ok).as_py()
    assert all_json_objects(pa.array(GENERATED))


@pytest.mark.parametrize("broken", BROKEN)
@pytest.mark.parametrize("cluster", ["c", None])
def test_each_broken_line_among_good_ones_gives_the_same_rows(broken, cluster):
    lines = GENERATED[:20] + [broken] + GENERATED[20:40]
    out = same_either_way([lines[:30], lines[30:]], batch=16, cluster=cluster)
    assert sum(r["kind"] == "event" for r in out) >= 40


@pytest.mark.parametrize("fmt", ["events", "auto"])
def test_every_broken_line_is_quarantined_or_read_as_the_slow_path_reads_it(fmt):
    out = same_either_way([list(BROKEN) + GENERATED[:50]], batch=len(BROKEN) + 50, fmt=fmt)
    kept = {BROKEN[r["local_line"] - 1]: r["kind"] for r in out if r["kind"] not in ("quarantine", "piece")
            and r["local_line"] <= len(BROKEN)}
    # Read by both paths: a missing or null cluster takes the one --cluster gives, a repeated key
    # its last value (json.loads); with --format auto a Docker line is a log line (of a logger not read).
    expected = {BROKEN[8]: "event", BROKEN[16]: "event", BROKEN[27]: "event"}
    if fmt == "auto":
        expected[BROKEN[23]] = "ignored"
    assert kept == expected


def test_a_lone_surrogate_is_malformed_json_and_a_pair_is_a_character():
    """Python decodes "\\ud800" alone; no UTF-8 table can hold it, so it must not reach one."""
    assert load_json('{"topic":"\\ud83d\\ude00","x":"\\\\ud800"}') == {"topic": "\U0001F600", "x": "\\ud800"}
    with pytest.raises(json.JSONDecodeError, match="lone UTF-16 surrogate"):
        load_json('{"topic":"t\\udc00"}')


def test_no_line_of_a_run_is_read_twice_or_lost():
    """A blank line makes a batch take the line-by-line path; line numbers stay those of the file."""
    out = same_either_way([GENERATED[:10] + [""] + GENERATED[10:30], GENERATED[30:60]], batch=8)
    lines = sorted((r["block"], r["local_line"]) for r in out if r["kind"] == "event")
    assert len(lines) == len(set(lines)) == 60


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**64, 2**64), st.floats(allow_nan=False),
                    st.text(max_size=5), st.lists(st.one_of(st.integers(-3, 2**32), st.none()), max_size=3))


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_records_cut_anywhere_give_the_same_rows(data):
    """Generated events with fields dropped, set to values of any JSON type, or added."""
    start = data.draw(st.integers(0, len(GENERATED) - 1))
    lines = []
    for line in GENERATED[start:start + data.draw(st.integers(1, 30))]:
        record = json.loads(line)
        how = data.draw(st.sampled_from(("same", "same", "same", "drop", "set", "add")))
        if how == "drop":
            record.pop(data.draw(st.sampled_from(sorted(record))))
        elif how == "set":
            record[data.draw(st.sampled_from([f.name for f in EVENT_FIELDS]))] = data.draw(_VALUES)
        elif how == "add":
            record[data.draw(st.sampled_from(("extra", "log", "Seq")))] = data.draw(_VALUES)
        lines.append(json.dumps(record))
    cut = data.draw(st.integers(0, len(lines)))
    same_either_way([lines[:cut], lines[cut:]], batch=data.draw(st.integers(1, 12)),
                    cluster=data.draw(st.sampled_from(("c", None))))
