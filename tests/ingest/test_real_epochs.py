"""Every real capture (data/samples/real/), replayed locally: a partition that still exists ends at
the highest leader epoch its logs name. Each leader epoch is a write of the partition's znode or
metadata record, and a broker or the controller names the last one ("starts at leader epoch 7",
"Cached leader info ... leaderEpoch=7", a PartitionChangeRecord): a replay that ends higher invented
a write (a reassignment completed twice), one that ends lower missed one. A deleted topic is left
out: its last writes remove replicas from the ISR after the replay has forgotten the partition."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
CAPTURES = sorted(p.name for p in REAL.iterdir() if (p / "manifest.json").exists())


@pytest.mark.parametrize("capture", CAPTURES)
def test_a_partition_ends_at_the_last_leader_epoch_its_logs_name(capture):
    manifest = json.loads((REAL / capture / "manifest.json").read_text())
    ingested = ingest_files(log_files(REAL / capture), capture)
    result = replay_cluster(capture, ingested.events, resolve_era(manifest["clusters"][capture]["kafka_version"]))
    named: dict[tuple[str, int], int] = {}
    for e in ingested.events:
        if e.leader_epoch is not None and e.partition is not None:
            key = (e.topic, e.partition)
            named[key] = max(named.get(key, -1), e.leader_epoch)
    ended = {key: r.timeline[-1].leader_epoch for key, r in result.items()
             if r.timeline and r.timeline[-1].partition_state != "NonExistentPartition"}
    assert ended and ended == {key: named[key] for key in ended}
