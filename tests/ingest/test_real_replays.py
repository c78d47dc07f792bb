"""Every real capture (data/samples/real/), replayed locally, against what its logs name.

The leader epochs. Each leader epoch is a write of the partition's znode or metadata record, and a broker or the
controller names many of them ("starts at leader epoch 7", "Cached leader info ... leaderEpoch=7",
"state changed to (Leader:-1,ISR:3,...,LeaderEpoch:5,...) after removing replica 2", a
PartitionChangeRecord): the replay's timeline must hold each such leader and epoch, with the ISR
where the line names one (a row it missed), and a partition that still exists must end at the
highest one (a replay that ends higher invented a write: a reassignment completed twice).

The replica states. A TRACE log names every replica transition the controller makes: each must be a
step the replay queued and the record claimed, not one it applied unlogged and then met again (a row
that repeats the replica's state: Kafka moves one input's replicas in a set's order, and a topic's
deletion takes them state by state)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
CAPTURES = sorted(p.name for p in REAL.iterdir() if (p / "manifest.json").exists())


@pytest.fixture(scope="module", params=CAPTURES)
def replayed(request):
    capture = request.param
    manifest = json.loads((REAL / capture / "manifest.json").read_text())
    ingested = ingest_files(log_files(REAL / capture), capture)
    result = replay_cluster(capture, ingested.events, resolve_era(manifest["clusters"][capture]["kafka_version"]))
    named: dict[tuple[str, int], set[tuple]] = {}
    for e in ingested.events:
        if e.leader_epoch is not None and e.leader is not None and e.partition is not None:
            # with the ISR (as a set) where the line names one
            named.setdefault((e.topic, e.partition), set()).add(
                (e.leader, e.leader_epoch) + ((frozenset(e.isr),) if e.isr is not None else ()))
    return named, result


def test_every_leader_epoch_and_isr_the_logs_name_is_in_the_timeline(replayed):
    named, result = replayed
    missed = {}
    for key, values in named.items():
        rows = result[key].timeline
        have = {(row.leader, row.leader_epoch) for row in rows} | {
            (row.leader, row.leader_epoch, frozenset(row.isr)) for row in rows}
        missed[key] = values - have
    assert {key: m for key, m in missed.items() if m} == {}


def test_a_partition_ends_at_the_last_leader_epoch_its_logs_name(replayed):
    # (a deleted topic's partition ends forgotten, at epoch -1)
    named, result = replayed
    ended = {key: r.timeline[-1].leader_epoch for key, r in result.items()
             if r.timeline and r.timeline[-1].partition_state != "NonExistentPartition"}
    assert ended and ended == {key: max(value[1] for value in named[key]) for key in ended}


def test_every_replica_transition_a_trace_log_names_is_claimed_once(replayed):
    named, result = replayed
    repeated = []
    for key, r in result.items():
        last: dict[int, str] = {}
        for row in r.replica_timeline:
            if last.get(row.replica) == row.replica_state:
                repeated.append((key, row.replica, row.replica_state, row.source))
            last[row.replica] = row.replica_state
    assert repeated == []


FAILOVERS = [c for c in CAPTURES if json.loads((REAL / c / "manifest.json").read_text()).get("history") == "failover"]
RAFT_LEADER = re.compile(r"\[RaftManager id=(\d+)\] Completed transition to Leader\(.*?, epoch=(\d+), epochStartOffset=(\d+),")


@pytest.mark.parametrize("capture", FAILOVERS)
def test_an_active_controller_failover_under_load_is_replayed_as_its_logs_show_it(capture):
    """The capture's own record of the failover: the Raft client's transition to Leader of each
    epoch (the new leader, the epoch, the metadata-log offset it starts at). The ingest places one
    ControllerFailover per epoch, at that offset, naming that leader; the replay writes every record
    from there on with the new epoch; every topic created, before the kill, across it or under the
    new controller, is in the timeline and ends where the last describe saw it; and nothing is reported."""
    d = REAL / capture
    manifest = json.loads((d / "manifest.json").read_text())
    kill = next(s for s in manifest["steps"] if s["name"] == "kill9_active_controller")
    elected = {(int(m[1]), int(m[2]), int(m[3]))
               for p in d.glob("broker-*/server.log") for m in RAFT_LEADER.finditer(p.read_text())}
    assert {(leader, epoch) for leader, epoch, _ in elected} >= {(kill["new_leader"], kill["leader_epoch"])}
    assert kill["broker"] != kill["new_leader"] and kill["leader_epoch"] > kill["leader_epoch_before"]

    ingested = ingest_files(log_files(d), capture)
    failovers = [e for e in ingested.events if e.event_type == "ControllerFailover"]
    assert sorted((e.controller_id, e.controller_epoch, e.source_offset) for e in failovers) == sorted(elected)
    start = next(offset for leader, epoch, offset in elected if epoch == kill["leader_epoch"])

    result = replay_cluster(capture, ingested.events, resolve_era(manifest["clusters"][capture]["kafka_version"]))
    assert [v for r in result.values() for v in r.violations] == []
    offsets = {e.seq: e.source_offset for e in ingested.events if e.source_offset is not None}
    epochs = {(row.controller_epoch, offsets[row.seq] >= start)
              for r in result.values() for row in r.timeline if row.seq in offsets}
    assert epochs == {(kill["leader_epoch_before"], False), (kill["leader_epoch"], True)}

    attempts = next(s for s in manifest["steps"] if s["name"] == "load_after_failover")["attempts"]
    created = {a["topic"] for a in attempts if a["created"]}
    topics = {t for t, _ in result}
    assert created | {"events"} <= topics == {k.rsplit("-", 1)[0] for k in manifest["final_describe"]}
    last = {f"{t}-{p}": r.timeline[-1] for (t, p), r in result.items()}
    assert {k: (row.leader, sorted(row.isr), list(row.replicas)) for k, row in last.items()} == \
           {k: (want["leader"], sorted(want["isr"]), want["replicas"]) for k, want in manifest["final_describe"].items()}
    assert any(a["time"] < kill["time"] < a["end"] or kill["time"] < a["time"] < kill["end"] for a in attempts)
