"""A ZooKeeper-to-KRaft migration (KIP-866, 3.4-3.9) as a real 3.9.2 cluster logged it
(data/samples/real/zk-3.9-migration, tests/kafka_cluster's run_migration): ZooKeeper-mode brokers,
and a KRaft controller (controller-3000/) that copied ZooKeeper's metadata, took /controller with the
next ZooKeeper epoch and then decided for the brokers (dual write). Without a dump of its metadata
log the input is replayed in ZooKeeper mode; there the KRaft controller's Raft epochs (its
controller.log's "Becoming the active controller at epoch 1") are no controller epochs: it is known
by the ZooKeeper epoch of its registration, which its requests carry."""
from __future__ import annotations

import json
import re
from pathlib import Path

from ingest.detect import choose_era
from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

CAPTURE = Path(__file__).resolve().parents[2] / "data" / "samples" / "real" / "zk-3.9-migration"


def test_a_migrating_clusters_logs_replay_in_zookeeper_mode_to_where_kafka_left_them():
    manifest = json.loads((CAPTURE / "manifest.json").read_text())
    ingested = ingest_files(log_files(CAPTURE), "mig")
    assert ingested.quarantine == []
    choice = choose_era(ingested.ranges, [], ingested.kraft, ingested.kraft_ranges, ingested.metadata_levels)
    assert not ingested.kraft and choice.era == "3.9.2", choice   # the lines alone: ZooKeeper mode, 3.9.0-3.9.2
    registered = re.search(r"Successfully registered KRaft controller 3000 with ZK epoch (\d+)",
                           (CAPTURE / "controller-3000" / "server.log").read_text())
    assert registered, "the capture holds the KRaft controller's registration"
    assert {e.controller_epoch for e in ingested.events if e.controller_id == 3000} == {int(registered[1])}
    assert not [e for e in ingested.events if e.event_type == "ControllerFailover" and e.controller_id == 3000]

    results = replay_cluster("mig", ingested.events, resolve_era(manifest["clusters"][CAPTURE.name]["kafka_version"]))
    assert [v for r in results.values() for v in r.violations] == []
    final = {f"{topic}-{partition}": (r.timeline[-1].leader, sorted(r.timeline[-1].isr), list(r.timeline[-1].replicas))
             for (topic, partition), r in results.items()}
    assert final == {tp: (d["leader"], sorted(d["isr"]), d["replicas"]) for tp, d in manifest["final_describe"].items()}
