"""How complete the input is (ingest/coverage.py): each broker's line times, the gaps in them
while other brokers record events, outages apart, and the facts of a violation inside a gap;
on small values, and on real captures with a broker's lines cut out or its files left out."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.coverage import (Activity, Gap, activity_of, brokers_named, cluster_gaps, gap_facts, gap_segments,
                             gaps_of, input_coverage, merged, outages, utc)
from ingest.counts import BROKERS_NAMED, merged_profile
from ingest.local import ingest_files, log_files
from ingest.splits import SplitParser
from state_machine import events as E
from state_machine.carried import broker_changes
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era
from state_machine.events import Event

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
CAPTURES = sorted(p.name for p in REAL.iterdir() if (p / "manifest.json").exists())
STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")
INF = float("inf")


def cut_capture(capture: str, to: Path, broker: int, lo: str | None = None, hi: str | None = None) -> Path:
    """A copy of a real capture in `to`, less broker `broker`'s log lines stamped from lo to hi
    (with their continuation lines), or less its folder when lo is None."""
    dst = to / capture
    shutil.copytree(REAL / capture, dst)
    if lo is None:
        shutil.rmtree(dst / f"broker-{broker}")
        return dst
    for log in (dst / f"broker-{broker}").glob("*.log"):
        kept, dropping = [], False
        for line in log.read_text().splitlines(keepends=True):
            m = STAMP.match(line)
            if m:
                dropping = lo <= m[1] <= hi
            if not dropping:
                kept.append(line)
        log.write_text("".join(kept))
    return dst


def local_coverage(folder: Path, cluster: str, gap_ms: int):
    """(the local ingest, its input_coverage): as jobs.audit builds it from the Spark ingest."""
    ingested = ingest_files(log_files(folder), cluster, gap_ms=gap_ms)
    controllers = [(e.event_time_ms, e.controller_epoch, e.controller_id) for e in ingested.events
                   if e.event_type in E.CONTROLLER_CHANGES and e.controller_epoch is not None]
    return ingested, input_coverage(ingested.activity, dict.fromkeys(ingested.activity, cluster),
                                    {cluster: broker_changes(ingested.events)}, {cluster: controllers},
                                    brokers_named(ingested.events), gap_ms)


def facts_at(segments: dict[str, list], cluster: str, at_ms: int | None) -> dict[str, str]:
    """The gap facts of a time of `cluster` (gap_segments): the first piece holding it, as
    jobs.audit.with_gap_facts's expression picks it."""
    if at_ms is None:
        return {}
    return next((facts for lo, hi, facts in segments.get(cluster, ()) if lo <= at_ms <= hi), {})


def with_gap_facts(violations, cluster: str, segments: dict[str, list]) -> list:
    """The core's violations of `cluster`, each inside a gap with the gap's facts added: what the
    audit's violations table holds (jobs.audit.with_gap_facts)."""
    out = []
    for v in violations:
        added = facts_at(segments, cluster, v.event_time_ms)
        out.append(v._replace(facts={**(v.facts or {}), **added}) if added else v)
    return out


def test_an_activity_keeps_the_holes_at_least_the_gap_long():
    assert activity_of([50, 0, 10, 100, 130], 30) == Activity(0, 130, ((10, 50), (50, 100), (100, 130)))
    assert activity_of([], 30) is None
    a = Activity(0, 100, ((10, 90),))
    assert a.has_line_in(0, 10.5) and not a.has_line_in(10, 90) and a.has_line_in(50, 200)
    assert not a.has_line_in(100, 200) and not a.has_line_in(-50, 0)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=60), st.integers(1, 2_000), st.data())
def test_merging_the_pieces_of_some_lines_gives_the_activity_of_them_all(times, gap, data):
    """However the lines are cut into pieces (splits, batches, streams, files), the merged
    activities are the activity of all the lines: the parse can count a piece at a time."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(times)), max_size=5)))
    order = data.draw(st.permutations(range(len(cuts) + 1)))
    pieces = [times[a:b] for a, b in zip([0, *cuts], [*cuts, len(times)])]
    got = None
    for k in order:
        got = merged(got, activity_of(pieces[k], gap), gap)
    assert got == activity_of(times, gap)


def test_an_outage_runs_from_a_failure_or_shutdown_to_the_next_startup():
    changes = [(100, E.CONTROLLER_FAILOVER, [1, 2]), (200, E.BROKER_FAILURE, [2]), (300, E.BROKER_STARTUP, [2]),
               (400, E.CONTROLLED_SHUTDOWN, [1]), (500, E.BROKER_STARTUP, [3]), (600, E.CONTROLLER_FAILOVER, [2, 3])]
    assert outages(changes) == {1: [(400, INF)], 2: [(200, 300)], 3: [(-INF, 500)]}


def test_a_gap_is_a_silence_while_others_record_events_and_not_an_outage():
    lines = {1: Activity(0, 1000, ()), 2: Activity(0, 1000, ((100, 900),)), 3: Activity(0, 1000, ())}
    events = {1: Activity(0, 50, ()), 3: Activity(0, 1000, ((10, 990),))}
    gap = 300
    # Broker 3's events fall in broker 2's silence only at its ends: no event inside, no gap.
    assert cluster_gaps("c", lines, events, [], {}, gap) == []
    events[1] = Activity(0, 500, ((0, 500),))
    assert cluster_gaps("c", lines, events, [1, 2, 3], {}, gap) == [Gap("c", 2, 100, 900, (1,))]
    # Down from 600 to 800: left, 100-600 (broker 1's event at 500 inside) and 800-900 (short).
    assert cluster_gaps("c", lines, events, [], {2: [(600, 800)]}, gap) == [Gap("c", 2, 100, 600, (1,))]
    # Down from 300 to 800: 100-300 is short, and no event falls in it.
    assert cluster_gaps("c", lines, events, [], {2: [(300, 800)]}, gap) == []
    # A broker the controller names with no file: the input's whole span, its outages included.
    assert cluster_gaps("c", lines, events, [4], {4: [(-INF, 200)]}, gap)[-1] == Gap("c", 4, 0, 1000, (1, 2, 3), True)


def test_a_violation_inside_a_gap_carries_it_in_its_facts():
    gaps = [Gap("c", 2, 1_000, 5_000, (1, 3)), Gap("c", 4, 3_000, 9_000, (1,)), Gap("d", 1, 0, 10, (2,))]
    segments = gap_segments(gaps)
    assert facts_at(segments, "c", 500) == {} and facts_at(segments, "c", None) == {}
    assert facts_at(segments, "c", 2_000) == gap_facts(gaps[:1])
    assert facts_at(segments, "c", 4_000)["input_gap_brokers"] == "[2, 4]"
    assert facts_at(segments, "c", 4_000)["input_gap"] == (
        "broker 2 logged no line from 1970-01-01T00:00:01.000Z to 1970-01-01T00:00:05.000Z while broker(s) 1, 3 "
        "recorded events; broker 4 logged no line from 1970-01-01T00:00:03.000Z to 1970-01-01T00:00:09.000Z while "
        "broker(s) 1 recorded events")
    assert facts_at(segments, "d", 5) == gap_facts(gaps[2:]) and facts_at(segments, "e", 5) == {}


@pytest.mark.parametrize("capture", CAPTURES)
def test_a_complete_capture_has_every_brokers_files_and_no_gap(capture):
    _, coverage = local_coverage(REAL / capture, capture, 600_000)
    got = coverage[capture]
    assert (got["missing"], got["gaps"], got["without_broker"]) == ([], [], [])
    assert sorted(got["brokers"], key=int) == node_ids(capture)


def node_ids(capture: str) -> list[str]:
    """The ids of a capture's nodes, by their folders (broker-1, controller-3000)."""
    return sorted((p.name.split("-")[1] for p in (REAL / capture).iterdir() if re.fullmatch(r"(broker|controller)-\d+", p.name)),
                  key=int)


def test_a_capture_with_a_brokers_lines_cut_out_shows_the_gap_and_its_violation_says_so(tmp_path):
    """zk-3.9-trace less broker 3's lines from 09:48:10 to 09:48:44: broker 3 was down (stopped
    for the unclean election) from 09:48:27.5 to 09:48:39.5, so its silence is two gaps either
    side of that outage; the unclean election at 09:48:39.490 lies in the second."""
    folder = cut_capture("zk-3.9-trace", tmp_path, 3, "2026-11-21 09:48:10", "2026-11-21 09:48:44")
    ingested, coverage = local_coverage(folder, "zk-3.9-trace", 4_000)
    got = coverage["zk-3.9-trace"]
    assert got["brokers"]["3"]["first"] == "2026-11-21T09:47:22.509Z"
    assert got["outages"]["3"][-1] == ["2026-11-21T09:48:27.545Z", "2026-11-21T09:48:39.482Z"]
    mine = [g for g in got["gaps"] if g["broker"] == 3 and g["from"] >= "2026-11-21T09:48:09"]
    assert [(g["from"], g["to"], g["others"]) for g in mine] == [
        ("2026-11-21T09:48:09.194Z", "2026-11-21T09:48:27.545Z", [1, 2]),
        ("2026-11-21T09:48:39.482Z", "2026-11-21T09:48:45.097Z", [1, 2])]
    violations = [v for r in replay_cluster("zk-3.9-trace", ingested.events, resolve_era("3.9.2")).values()
                  for v in r.violations]
    (v,) = with_gap_facts(violations, "zk-3.9-trace", gap_segments(gaps_of(coverage)))
    assert v.rule == "UNCLEAN_LEADER_ELECTION" and 3 in json.loads(v.facts["input_gap_brokers"])
    assert ("broker 3 logged no line from 2026-11-21T09:48:39.482Z to 2026-11-21T09:48:45.097Z while broker(s) 1, 2 "
            "recorded events") in v.facts["input_gap"]
    assert v.facts["case"] == violations[0].facts["case"]


def test_a_capture_without_a_brokers_files_names_it_missing(tmp_path):
    folder = cut_capture("zk-2.8-trace", tmp_path, 3)
    ingested, coverage = local_coverage(folder, "zk-2.8-trace", 600_000)
    got = coverage["zk-2.8-trace"]
    assert got["missing"] == [3] and sorted(got["brokers"]) == ["1", "2"]
    assert [g for g in got["gaps"] if g.get("no_files")] == [
        {"broker": 3, "from": "2026-11-26T01:48:47.401Z", "to": "2026-11-26T01:49:49.636Z", "minutes": 1.037,
         "others": [1, 2], "no_files": True}]
    violations = [v for r in replay_cluster("zk-2.8-trace", ingested.events, resolve_era("2.8.2")).values()
                  for v in r.violations]
    assert violations and all(v.facts["input_gap"] == "broker 3's logs are not in the input (its controller or its partitions name it)"
                              for v in with_gap_facts(violations, "zk-2.8-trace", gap_segments(gaps_of(coverage))))


def test_the_brokers_events_name_are_their_leaders_isr_members_and_replicas():
    def ev(cluster, **fields):
        return Event(cluster=cluster, seq=0, event_type=E.LEADER_AND_ISR, **fields)
    events = [ev("c", leader=-1, isr=[], replicas=[1, 2]), ev("c", leader=-2, isr=[4]), ev("c", leader=5),
              ev("c", replica=6), ev("d", leader=1, isr=None, replicas=None), ev("e", brokers=[9])]
    assert brokers_named(events) == {"c": {1, 2, 4, 5, 6}, "d": {1}}


def test_a_broker_only_its_partitions_name_is_missing_without_files():
    """Brokers 1 and 2 have files; broker 3 is named by no controller change, only as a replica:
    missing, its gap the input's whole span."""
    files = {"b1/state-change.log": {1: [Activity(0, 1000), Activity(0, 1000)]},
             "b2/state-change.log": {2: [Activity(0, 900), Activity(100, 900)]}}
    clusters = dict.fromkeys(files, "c")
    got = input_coverage(files, clusters, {}, {}, {"c": {1, 2, 3}}, 600)["c"]
    assert got["missing"] == [3]
    assert got["gaps"] == [{"broker": 3, "from": utc(0), "to": utc(1000), "minutes": round(1000 / 60_000, 3),
                            "others": [1, 2], "no_files": True}]
    assert input_coverage(files, clusters, {}, {}, {"c": {1, 2}}, 600)["c"]["missing"] == []


def test_a_capture_of_state_change_logs_without_a_brokers_files_names_it_missing(tmp_path):
    """zk-2.8-trace less broker 3's files and every controller.log: no liveness or controller
    change names broker 3, its partitions' lines do."""
    folder = cut_capture("zk-2.8-trace", tmp_path, 3)
    for log in folder.glob("broker-*/controller.log"):
        log.unlink()
    ingested, coverage = local_coverage(folder, "zk-2.8-trace", 600_000)
    assert not broker_changes(ingested.events) and not any(e.event_type in E.CONTROLLER_CHANGES for e in ingested.events)
    got = coverage["zk-2.8-trace"]
    assert got["missing"] == [3] and sorted(got["brokers"]) == ["1", "2"]
    assert [(g["broker"], g["others"]) for g in got["gaps"] if g.get("no_files")] == [(3, [1, 2])]


def test_the_parse_counts_the_brokers_its_events_name():
    """The profile the parse counts (ingest.counts, the Spark ingest's when it does not sort)
    names the brokers coverage.brokers_named finds in the local ingest's events."""
    folder = REAL / "zk-2.8-trace"
    paths = sorted(folder.glob("broker-*/*.log"))
    batches = [pa.RecordBatch.from_pydict({"raw": lines, "file": [f"file:{path}"] * len(lines),
                                           "block": pa.array([0] * len(lines), pa.int64())})
               for path in paths for lines in [path.read_text().splitlines()]]
    rows = [r for b in SplitParser({}, "c", "UTC", "auto").rows(iter(batches)) for r in b.to_pylist()]
    profile = merged_profile((json.loads(r["counts"]), 0) for r in rows if r["kind"] == "piece")
    counted = {b for p in profile.values() for b in p[BROKERS_NAMED]}
    ingested = ingest_files(log_files(folder), "c")
    assert counted == brokers_named(ingested.events)["c"] == {1, 2, 3}
