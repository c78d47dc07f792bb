"""The audit against real Kafka: clusters started here, the scripted history run, what the brokers
wrote audited by the audit job (`jobs.audit.run`, what `controller-replay audit` runs), and the
Delta tables compared with what Kafka itself reported (the ZooKeeper znode / leader-epoch
checkpoint for the unclean election, `kafka-topics --describe` for the final state).

The kafka-marked tests start clusters (a few minutes each): `pytest -m kafka tests/kafka_cluster`.
They record the newest release of each mode (LIVE); KAFKA_SCENARIOS=all (`make test-all`) records
every scenario, KAFKA_SCENARIOS=zk-2.4-ops,kraft-elr the ones named. The manifest tests are fast and
check every committed capture in data/samples/real/."""
from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import pytest

from jobs.audit import AuditConfig, AuditSummary, run
from reconcile import assert_every_line_understood
from state_machine.eras import parse_version, resolve_era

from .capture import SCENARIOS, capture, live_scenarios
from .harness import parse_describe
from .scenarios import ELR_FEATURE, FRAGILE_TOPIC, GUARDED_TOPIC, parse_final

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "real"
# The scenarios recorded on live clusters in this run. Every release's capture is replayed from
# data/samples/real/ in every run (the manifest tests below, tests/spark/test_real_samples.py,
# tests/ingest/test_real_replays.py); recording every release again, minutes each, is `make test-all`'s.
LIVE = live_scenarios(os.environ.get("KAFKA_SCENARIOS"))


def table(spark, warehouse: Path, name: str):
    return spark.read.format("delta").load(str(warehouse / name))


class LiveRuns:
    """The scenarios this session ran on real clusters, and the one warehouse they are audited into.
    Audited together, as `controller-replay audit` reads many clusters' logs in one run: each capture is
    its own cluster (named by its manifest), and one audit instead of one per scenario saves the
    suite ~30 s of Spark per scenario. The capture tests run every selected scenario first; the first
    audited test then audits every capture not audited yet (all of them, in a full run)."""

    def __init__(self, base: Path):
        self.base, self.warehouse = base, base / "warehouse"
        self.captures: dict[str, Path] = {}
        self.failed: dict[str, str] = {}
        self.summaries: dict[str, AuditSummary] = {}

    def capture(self, scenario: str) -> Path:
        if scenario in self.failed:
            pytest.fail(f"{scenario} was not captured: {self.failed[scenario]}")
        if scenario not in self.captures:
            try:
                self.captures[scenario] = capture(scenario, self.base / "capture", workdir=self.base / "work", fetch=True)
            except Exception as exc:
                self.failed[scenario] = f"{type(exc).__name__}: {exc}"
                raise
        return self.captures[scenario]

    def audit(self, spark, scenario: str) -> AuditSummary:
        self.capture(scenario)
        if scenario not in self.summaries:
            pending = [s for s in self.captures if s not in self.summaries]
            summary = run(spark, AuditConfig(inputs=[str(self.captures[s]) for s in pending],
                                             warehouse=str(self.warehouse)))
            self.summaries.update(dict.fromkeys(pending, summary))
        return self.summaries[scenario]


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> LiveRuns:
    return LiveRuns(tmp_path_factory.mktemp("live"))


@pytest.mark.kafka
@pytest.mark.timeout(2400)
@pytest.mark.parametrize("scenario", LIVE)
def test_the_scripted_history_runs_on_a_real_cluster_and_its_capture_is_complete(live, scenario):
    assert_capture_is_complete(live.capture(scenario), scenario)


@pytest.fixture(scope="module", params=LIVE)
def audited(request, live):
    """One scenario's capture, audited (its rows are the rows of its cluster, the scenario). Spark only
    now: no idle JVM competed with the clusters' brokers for the two cores. The audit runs in the
    suite's session, as `controller-replay audit` runs it (a console script per audit costs a cold
    JVM, ~20 s; tests/spark runs the script itself)."""
    scenario = request.param
    manifest = json.loads((live.capture(scenario) / "manifest.json").read_text())
    spark = request.getfixturevalue("spark")
    summary = live.audit(spark, scenario)
    return Audited(scenario, manifest, live.warehouse, spark, summary, live.captures[scenario])


class Audited(NamedTuple):
    scenario: str
    manifest: dict
    warehouse: Path
    spark: object
    summary: AuditSummary
    capture: Path   # the scenario's capture directory (its cluster's input files)


def _listing(violations) -> str:
    return "\n".join(f"  {v['rule']} {v['topic']}-{v['partition']} {v['severity']}: {v['detail']} {list(v['evidence'])}"
                     for v in violations)


@pytest.mark.kafka
@pytest.mark.timeout(2400)
def test_the_one_unclean_election_is_found_with_its_leader_and_epoch(audited):
    scenario, manifest, warehouse, spark, *_ = audited
    want = manifest["expected"]["unclean"]
    violations = table(spark, warehouse, "violations").where(f"cluster = '{scenario}'").collect()
    if want is None:   # the operations history in ZooKeeper mode: nothing unclean, nothing illegal
        assert not violations, "no violation:\n" + _listing(violations)
        return
    assert [v["rule"] for v in violations] == ["UNCLEAN_LEADER_ELECTION"], \
        "exactly one violation, the unclean election:\n" + _listing(violations)
    v = violations[0]
    assert (v["cluster"], v["topic"], v["partition"]) == (scenario, want["topic"], want["partition"])
    # Created with unclean.leader.election.enable=true: server.log's `Created log for partition` line
    # (ZooKeeper mode) or the metadata log's ConfigRecord (KRaft) says so. The operations history's
    # KRaft election is Kafka's own last-known-leader recovery (KIP-966), with the config false.
    # KRaft before 3.9 reads no config: the step asked for the election (admin UNCLEAN), which the
    # metadata log does not record, so the audit reports what only an admin may do as an error.
    if resolve_era(manifest["clusters"][scenario]["kafka_version"]).unclean_gate == "admin_only":
        assert v["severity"] == "error" and "only an admin UNCLEAN election" in v["detail"], dict(v.asDict())
    else:
        assert v["severity"] == "info", f"the election was allowed, yet {v['severity']}: {v['detail']}"
    assert ("last known leader" in v["detail"]) is ("why" in want), v["detail"]
    rows = (table(spark, warehouse, "partition_timeline")
            .where(f"cluster = '{scenario}' AND topic = '{want['topic']}' AND partition = {want['partition']} "
                   f"AND seq = {v['seq']}").orderBy("ordinal").collect())
    assert rows, f"no partition_timeline row for the violation's event (seq {v['seq']})"
    assert (rows[-1]["leader"], rows[-1]["leader_epoch"]) == (want["leader"], want["leader_epoch"])


@pytest.mark.kafka
@pytest.mark.timeout(2400)
def test_every_line_the_brokers_wrote_is_understood(audited):
    """A live run writes lines a committed capture may not hold (timing decides which errors and
    retries a broker logs): each one quarantined is a catalogue row to add, shown here verbatim."""
    scenario, manifest, warehouse, spark, summary, captured = audited
    (audit_run,) = table(spark, warehouse, "audit_runs").where(f"run_id = '{summary.run_id}'").collect()
    assert audit_run["counts_reconcile"]
    assert audit_run["records_read"] == audit_run["lines_recognized"] + audit_run["records_quarantined"]
    files = {f: info for f, info in json.loads(audit_run["input_files"]).items() if f"{captured}/" in f}
    assert_every_line_understood(scenario, files, table(spark, warehouse, "quarantine").where(f"cluster = '{scenario}'"))
    assert sum(info["lines"] for info in files.values()) > 0


@pytest.mark.kafka
@pytest.mark.timeout(2400)
def test_each_partitions_last_timeline_row_is_the_final_describe(audited):
    scenario, manifest, warehouse, spark, *_ = audited
    timeline = table(spark, warehouse, "partition_timeline").where(f"cluster = '{scenario}'").collect()
    last: dict[str, dict] = {}
    for row in sorted(timeline, key=lambda r: r["ordinal"]):
        last[f"{row['topic']}-{row['partition']}"] = row.asDict()
    for key, want in manifest["final_describe"].items():
        assert key in last, f"{key} is in the final describe but not in partition_timeline"
        got = last[key]
        # The ISR is a set to Kafka (the describe prints it in stored order, which leader-driven
        # expansions append to); the replica order is the preferred-leader order and must match.
        assert (got["leader"], sorted(got["isr"]), list(got["replicas"])) == \
               (want["leader"], sorted(want["isr"]), want["replicas"]), f"{key}: timeline {got} != describe {want}"


# ---------------------------------------------------------------- the committed captures (no Kafka)

STEPS = {
    "main": ["start_cluster", "create_topics", "produce", "kill9_controller", "restart_killed", "controlled_shutdown",
             "restart_shut_down", "preferred_election", "reassignment", "delete_topic", "unclean_create_topic",
             "unclean_stop_follower", "unclean_produce_lagging", "unclean_stop_isr", "unclean_restart_out_of_sync",
             "restart_isr_member", "kill_cluster"],
    "ops": ["start_cluster", "create_topics", "add_partitions", "delete_with_replica_down", "restart_for_deletion",
            "fragile_create_topic", "fragile_stop_follower", "fragile_stop_isr", "fragile_restart_out_of_sync",
            "fragile_restart_isr", "kill_cluster"],
    "elr": ["start_cluster", "elr_create_topic", "elr_shutdown_follower", "elr_kill_leader", "elr_restart_follower",
            "elr_restart_leader", "kill_cluster"],
    "migration": ["start_cluster", "create_topics", "start_kraft_controller", "restart_with_migration",
                  "restart_with_migration", "restart_with_migration", "metadata_migrated", "create_topic_dual_write",
                  "kill9_broker", "restart_killed", "kill_cluster"],
    "failover": ["start_cluster", "create_topics", "load_before_failover", "kill9_active_controller", "load_after_failover",
                 "restart_killed", "kill_cluster"],
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_captured_manifest_is_complete_and_consistent(scenario):
    d = SAMPLES / scenario
    assert (d / "manifest.json").is_file(), f"no capture: python -m tests.kafka_cluster.capture --out {SAMPLES.relative_to(ROOT)} --only {scenario}"
    assert_capture_is_complete(d, scenario)


def assert_capture_is_complete(d: Path, scenario: str) -> None:
    """The capture in `d` (committed, or made by this run) is the scenario's, step by step, with every
    log and describe its manifest names, and a final state consistent with itself."""
    m = json.loads((d / "manifest.json").read_text())
    spec = SCENARIOS[scenario]

    assert m["clusters"] == {scenario: {"kafka_version": spec.era}}
    resolve_era(m["clusters"][scenario]["kafka_version"])
    # Captures from before the operations history name none: they ran the main one.
    assert (m["kafka_version"], m["mode"], m["log_level"], m.get("history", "main")) == \
           (spec.version, spec.mode, spec.log_level, spec.history)
    assert m.get("features", []) == list(spec.features)

    assert [s["name"] for s in m["steps"]] == STEPS[spec.history]
    times = [datetime.fromisoformat(s["time"].replace("Z", "+00:00")) for s in m["steps"]]
    assert times == sorted(times), "steps are recorded in the order they ran"

    unclean = m["expected"]["unclean"]
    assert (unclean is None) is (spec.history in ("elr", "migration", "failover")
                                 or (spec.history == "ops" and not eligible_leader_replicas(d)))
    if unclean is not None:
        assert {k: type(unclean[k]) for k in ("topic", "partition", "leader", "leader_epoch")} == \
               {"topic": str, "partition": int, "leader": int, "leader_epoch": int}
        assert unclean["leader"] not in unclean["previous_isr"] and unclean["leader"] in unclean["replicas"]

    final = m["final_describe"]
    assert final and (unclean is None or f"{unclean['topic']}-{unclean['partition']}" in final)
    for key, p in final.items():
        assert set(p) == {"leader", "isr", "replicas"}, key
        assert p["leader"] == -1 or p["leader"] in p["isr"], key
        assert set(p["isr"]) <= set(p["replicas"]), key
    # final_describe is the last describe snapshot, parsed
    last_describe = d / m["steps"][-2]["describe"]
    assert parse_final(parse_describe(last_describe.read_text())) == final
    for s in m["steps"][:-1]:
        assert (d / s["describe"]).is_file(), s["describe"]

    for broker in m["brokers"]:
        b = d / f"broker-{broker}"
        for name in ("state-change.log", "controller.log", "server.log"):
            assert (b / name).is_file(), b / name
        if spec.mode == "kraft":
            dumps = sorted((b / "__cluster_metadata-0").glob("*.log.txt"))
            assert dumps and all(p.read_text().startswith("Dumping ") for p in dumps), b
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file())
    assert size < 5e6, f"{scenario} capture is {size / 1e6:.1f} MB"


def eligible_leader_replicas(capture: Path) -> bool:
    """KRaft with KIP-966's eligible leader replicas on, by the metadata log's own FeatureLevelRecord
    (the operations history then ends with a last-known-leader election); False in ZooKeeper mode."""
    level = re.compile(r'"type":"FEATURE_LEVEL_RECORD","version":\d+,"data":\{"name":"%s","featureLevel":(\d+)\}'
                       % re.escape(ELR_FEATURE))
    return any(int(n) >= 1 for p in capture.glob("broker-*/__cluster_metadata-0/*.log.txt")
               for n in level.findall(p.read_text()))


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_captured_logs_show_the_expected_unclean_election(scenario):
    """Kafka's own record of the election the manifest expects: the controller's state-change line
    (ZK, in its release's LeaderAndIsr format) or the metadata-log record (KRaft) with that leader."""
    d = SAMPLES / scenario
    m = json.loads((d / "manifest.json").read_text())
    u = m["expected"]["unclean"]
    if m.get("history") == "elr":
        # b, out of the ISR but in the ELR after its clean shutdown, elected cleanly (no RECOVERING);
        # the topic's min.insync.replicas ConfigRecord came with a ClearElrRecord.
        step = next(s for s in m["steps"] if s["name"] == "elr_create_topic")
        a, b = step["replicas"]
        dump = _dump(d)
        changes = _partition_changes(dump, GUARDED_TOPIC)
        assert step["eligible_leader_replicas"] is eligible_leader_replicas(d)
        if step["eligible_leader_replicas"]:
            assert f'"type":"CLEAR_ELR_RECORD","version":0,"data":{{"topicName":"{GUARDED_TOPIC}"}}' in dump
            assert any(f'"isr":[{a}]' in c and f'"eligibleLeaderReplicas":[{b}]' in c for c in changes), changes
            elected = [c for c in changes if f'"leader":{b}' in c]
            assert elected and not any('"leaderRecoveryState":1' in c for c in elected), changes
        return
    if m.get("history") == "migration":
        # Nothing unclean; Kafka's own record of the migration: the KRaft controller copied the metadata
        # and took /controller, and every broker took its whole state from it (a full LeaderAndIsr).
        controller = (d / "controller-3000" / "server.log").read_text()
        assert "Completed migration of metadata from ZooKeeper to KRaft" in controller
        assert re.search(r"Successfully registered KRaft controller 3000 with ZK epoch \d+", controller)
        for broker in m["brokers"]:
            assert "While handling full LeaderAndIsr request from KRaft controller 3000" in \
                (d / f"broker-{broker}" / "state-change.log").read_text(), broker
        return
    if m.get("history") == "failover":
        # Nothing unclean; Kafka's own record of the failover: the quorum's new leader, at the epoch the
        # step saw, begins its epoch with a LeaderChange record naming it; every topic the loop was told
        # it created has its TopicRecord (one it was not told of may have one too: a request the failover
        # cut off may have been committed).
        kill = next(s for s in m["steps"] if s["name"] == "kill9_active_controller")
        dump = _dump(d)
        change = re.search(r'baseOffset: (\d+) .*partitionLeaderEpoch: %d .*\n\| offset: \d+ .*LeaderChange: \{"version":\d+,"leaderId":%d,'
                           % (kill["leader_epoch"], kill["new_leader"]), dump)
        assert change, f"no LeaderChange of node {kill['new_leader']} at epoch {kill['leader_epoch']}"
        attempts = next(s for s in m["steps"] if s["name"] == "load_after_failover")["attempts"]
        for a in attempts:
            assert not a["created"] or f'"type":"TOPIC_RECORD","version":0,"data":{{"name":"{a["topic"]}"' in dump, a
        assert len([a for a in attempts if a["created"] and a["time"] > kill["end"]]) >= 1
        return
    if u is None and m["mode"] == "kraft":
        # The operations history, KRaft without ELR: the ISR member's return is a clean election.
        a = next(s["broker"] for s in m["steps"] if s["name"] == "fragile_restart_isr")
        elected = [c for c in _partition_changes(_dump(d), FRAGILE_TOPIC) if f'"leader":{a},' in c or c.endswith(f'"leader":{a}')]
        assert elected and not any('"leaderRecoveryState":1' in c for c in elected), elected
        return
    if u is None:
        # The operations history, ZooKeeper mode: the elections the controller could not hold while
        # the ISR was down (unclean elections disabled), logged at ERROR, so at INFO level too.
        line = f"failed to change state for partition {FRAGILE_TOPIC}-0 from OfflinePartition to OnlinePartition"
        assert any(line in p.read_text() for p in d.glob("broker-*/state-change.log")), line
        return
    if m["mode"] == "zk":
        # 0.x and 1.0 name the leader alone; 1.1-2.x print the ISR and zkVersion; 3.5+ the broker epochs and
        # the leader recovery (KIP-704, 3.2).
        release = parse_version(m["kafka_version"])
        head = f"Changed partition {u['topic']}-{u['partition']} from OfflinePartition to OnlinePartition with "
        value = f"LeaderAndIsr(leader={u['leader']}, leaderEpoch={u['leader_epoch']}, "
        if release < (1, 0):   # "Controller N epoch E changed partition [t,0] from ..."
            line = (f"changed partition [{u['topic']},{u['partition']}] from OfflinePartition to OnlinePartition with "
                    f"leader {u['leader']} ")
        elif release < (1, 1):
            line = head + f"leader {u['leader']} "
        elif release < (3, 0):
            line = head + "state " + value + f"isr=List({u['leader']}), zkVersion="
        else:
            line = head + "state " + value + (f"isrWithBrokerEpoch=List(BrokerState(brokerId={u['leader']}, brokerEpoch=-1)), "
                                              "leaderRecoveryState=RECOVERING")
        assert any(line in p.read_text() for p in d.glob("broker-*/state-change.log")), line
    else:
        assert any(f'"leader":{u["leader"]},"leaderRecoveryState":1' in c
                   for c in _partition_changes(_dump(d), u["topic"], u["partition"])), f"no unclean PARTITION_CHANGE_RECORD for {u}"


def _dump(capture: Path) -> str:
    """One node's metadata-log dump (every node holds the same records)."""
    return next(capture.glob("broker-*/__cluster_metadata-0/*.log.txt")).read_text()


def _partition_changes(dump: str, topic: str, partition: int = 0) -> list[str]:
    """The data of the topic's PARTITION_CHANGE_RECORDs for one partition, after its partitionId and topicId."""
    topic_id = re.search(r'"type":"TOPIC_RECORD","version":\d+,"data":\{"name":"%s","topicId":"([^"]+)"' % topic, dump)[1]
    return re.findall(r'"type":"PARTITION_CHANGE_RECORD","version":\d+,"data":\{"partitionId":%d,"topicId":"%s",([^}]*)'
                      % (partition, topic_id), dump)
