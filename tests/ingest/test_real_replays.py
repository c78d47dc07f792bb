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
