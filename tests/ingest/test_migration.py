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

from info_view import at_info
from ingest.detect import choose_era
from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

CAPTURE = Path(__file__).resolve().parents[2] / "data" / "samples" / "real" / "zk-3.9-migration"


def test_a_migrating_clusters_logs_replay_in_zookeeper_mode_to_where_kafka_left_them():
    manifest = json.loads((CAPTURE / "manifest.json").read_text())
    ingested = ingest_files(log_files(CAPTURE), "mig")
    assert ingested.quarantine == []
    evidence = ingested.evidence["mig"]
    choice = choose_era(evidence.ranges, [], evidence.kraft, evidence.kraft_ranges, evidence.levels)
    assert not evidence.kraft and choice.era == "3.9.2", choice   # the lines alone: ZooKeeper mode, 3.9.0-3.9.2
    registered = re.search(r"Successfully registered KRaft controller 3000 with ZK epoch (\d+)",
                           (CAPTURE / "controller-3000" / "server.log").read_text())
    assert registered, "the capture holds the KRaft controller's registration"
    assert {e.controller_epoch for e in ingested.events if e.controller_id == 3000} == {int(registered[1])}
    assert not [e for e in ingested.events if e.event_type == "ControllerFailover" and e.controller_id == 3000]
    # The registration itself is one event: the brokers' controller epoch from then on (no failover).
    assert [(e.event_type, e.controller_epoch) for e in ingested.events if e.source_line is not None
            and e.source_file.endswith("controller-3000/server.log")] == [("KRaftControllerRegistered", int(registered[1]))]

    results = replay_cluster("mig", ingested.events, resolve_era(manifest["clusters"][CAPTURE.name]["kafka_version"]))
    assert [v for r in results.values() for v in r.violations] == []
    final = {f"{topic}-{partition}": (r.timeline[-1].leader, sorted(r.timeline[-1].isr), list(r.timeline[-1].replicas))
             for (topic, partition), r in results.items()}
    assert final == {tp: (d["leader"], sorted(d["isr"]), d["replicas"]) for tp, d in manifest["final_describe"].items()}
    # The topic the KRaft controller created has its replicas from its first row on.
    assert {row.replicas for row in results[("after", 0)].timeline} == {(2, 3, 1)}


def test_at_info_the_migration_replays_clean_under_the_kraft_controllers_epoch(tmp_path):
    """At INFO a topic the KRaft controller created is known first from its followers' lines,
    which name the leader but no ISR; the leader's line names the ISR [2,3,1], so the broker
    elected from it when its leader was killed is no unclean leader. The registration line alone
    says that the brokers' controller epoch is the KRaft controller's from then on (its requests'
    lines that carry it are TRACE)."""
    manifest = json.loads((CAPTURE / "manifest.json").read_text())
    info = at_info(CAPTURE, tmp_path / "info")
    ingested = ingest_files(log_files(info), "mig")
    assert ingested.quarantine == [] and len(ingested.events) < 200   # (about 1,500 at TRACE)
    registered = next(e for e in ingested.events if e.event_type == "KRaftControllerRegistered")
    results = replay_cluster("mig", ingested.events, resolve_era("3.9.2"))
    assert [v for r in results.values() for v in r.violations] == []
    # Every partition ends as kafka-topics described it. `after`'s replicas are named first by the
    # KRaft controller's own record of the topic it created ("Replayed PartitionRecord for new
    # partition after-0 ... PartitionRegistration(replicas=[2, 3, 1], ...)"): every row has them.
    final = {f"{topic}-{partition}": (r.timeline[-1].leader, sorted(r.timeline[-1].isr), list(r.timeline[-1].replicas))
             for (topic, partition), r in results.items()}
    assert final == {tp: (d["leader"], sorted(d["isr"]), d["replicas"]) for tp, d in manifest["final_describe"].items()}
    after = results[("after", 0)].timeline
    assert {row.replicas for row in after} == {(2, 3, 1)}
    assert "controller-3000/controller.log:" in after[0].source and not after[0].inferred
    # Each leader epoch begun after the registration was the KRaft controller's decision, under its
    # epoch (a leader's own ISR write keeps the controller epoch of the decision it follows).
    decided = [row for r in results.values() for before, row in zip([None, *r.timeline], r.timeline)
               if row.valid_from > registered.event_time_ms and (before is None or row.leader_epoch > before.leader_epoch)]
    assert len(decided) == 4 and {row.controller_epoch for row in decided} == {registered.controller_epoch}


def _controller_outputs(lines: list[str]) -> list:
    from ingest.lines import parse_file_lines

    stamped = [f"[2026-11-30 21:33:{10 + i:02d},000] INFO [QuorumController id=3000] {text} "
               f"(org.apache.kafka.controller.ReplicationControlManager)" for i, text in enumerate(lines)]
    return [o for o in parse_file_lines("/logs/controller-3000/controller.log", enumerate(stamped, 1)) if o.kind == "event"]


_CREATED = "CreateTopics result(s): CreatableTopic(name='after', numPartitions=1, replicationFactor=3, assignments=[], configs=[]): SUCCESS"
_RECORD = ("Replayed PartitionRecord for new partition after-0 with topic ID hZRix8jdTJ-ALFzlWtJw0A and PartitionRegistration("
           "replicas=[2, 3, 1], directories=[j7m7tBNUa_kJDSg7z2jwyw, RHHbQZLKvscOQljwnivutw, _xnyQ7M1K9LVCh11qABe_w], "
           "isr=[2, 3, 1], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=2, "
           "leaderRecoveryState=RECOVERED, leaderEpoch=0, partitionEpoch=0).")
_MIGRATING = "Replayed a ZkMigrationStateRecord changing the migration state from PRE_MIGRATION to MIGRATION."


def test_the_record_of_a_topic_the_kraft_controller_creates_in_a_migration_names_its_replicas():
    (out,) = _controller_outputs([_MIGRATING, _CREATED, _RECORD])
    assert (out.data["event_type"], out.data["topic"], out.data["partition"], out.data["leader"], out.data["leader_epoch"],
            out.data["isr"], out.data["replicas"], out.data["recording_broker"], out.line) == \
        ("LeaderAndIsrReceived", "after", 0, 2, 0, [2, 3, 1], [2, 3, 1], 3000, 3)


def test_no_event_from_a_partition_record_outside_a_migrations_dual_write_or_of_a_log_the_controller_loads():
    assert _controller_outputs([_CREATED, _RECORD]) == []                  # a KRaft cluster: the dump has the record
    assert _controller_outputs([_MIGRATING, _RECORD]) == []                # no request created it: a log being loaded
    restarted = "Creating new QuorumController with clusterId abc. ZK migration mode is enabled."
    assert _controller_outputs([_MIGRATING, _CREATED, restarted, _MIGRATING, _RECORD]) == []
    done = "Replayed a ZkMigrationStateRecord changing the migration state from MIGRATION to POST_MIGRATION."
    assert _controller_outputs([_MIGRATING, done, _CREATED, _RECORD]) == []
