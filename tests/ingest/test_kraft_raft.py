"""The Raft client's election states (ingest.kraft_raft) and the QuorumController lines of an active
controller losing its term (ingest.kraft_controller): each printed form, labelled with the release
whose source prints it (QuorumState.java and the *State.java toString; the kafka-raft jars of
3.8.1-4.3.1; "real" lines are copied from this repository's captures), and through the ingest and
the replay, where they name each Raft epoch's controller."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ingest import kraft_raft
from ingest.catalog import LineContext, match_message
from ingest.local import ingest_files, log_files
from ingest.prefix import strip_prefix
from state_machine import events as E
from state_machine.cluster import replay_cluster
from state_machine.eras import parse_version, resolve_era

FIXTURES = Path(__file__).parent / "fixtures" / "kraft"
RK = "ReplicaKey(id={}, directoryId=Optional[vqyVDaFJR0O9C2Ug1h1FHw])"
EP = "Endpoints(endpoints={ListenerName(CONTROLLER)=localhost/127.0.0.1:9093})"
VOTER = ("VoterNode(voterKey=ReplicaKey(id=%d, directoryId=vqyVDaFJR0O9C2Ug1h1FHw), listeners=" + EP
         + ", supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1])")


def epoch(e: int, leader: int) -> list:
    return [{"fact": "raft_epoch", "epoch": e, "leader": leader}]


# (release, the state's toString, the fact it gives)
STATES = [
    ("3.0.2", "Leader(localId=1, epoch=5, epochStartOffset=120, highWatermark=Optional.empty, voterStates={1=ReplicaState("
     "nodeId=1, endOffset=Optional.empty, lastFetchTimestamp=OptionalLong.empty, hasAcknowledgedLeader=true)})", epoch(5, 1)),
    ("2.8.1", "Leader(localId=1, epoch=5, epochStartOffset=120)", epoch(5, 1)),
    ("3.9.2", f"Leader(localReplicaKey={RK.format(1)}, epoch=5, epochStartOffset=120, highWatermark=Optional.empty, "
     "voterStates={})", epoch(5, 1)),
    ("4.3.1", f"Leader(localVoterNode={VOTER % 1}, epoch=5, epochStartOffset=120, highWatermark=Optional.empty, "
     "voterStates={})", epoch(5, 1)),
    ("3.7.2", "FollowerState(fetchTimeoutMs=2000, epoch=5, leaderId=2, voters=[1, 2, 3], highWatermark=Optional.empty, "
     "fetchingSnapshot=Optional.empty)", epoch(5, 2)),
    ("3.8.1 (real)", "FollowerState(fetchTimeoutMs=2000, epoch=3, leader=127.0.0.1:45235 (id: 2 rack: null) voters=[1, 2, 3], "
     "highWatermark=Optional.empty, fetchingSnapshot=Optional.empty)", epoch(3, 2)),
    ("3.9.2", f"FollowerState(fetchTimeoutMs=2000, epoch=5, leader=2, leaderEndpoints={EP}, voters=[1, 2, 3], "
     "highWatermark=Optional.empty, fetchingSnapshot=Optional.empty)", epoch(5, 2)),
    ("4.3.1 (real)", "FollowerState(fetchTimeoutMs=2000, epoch=1, leader=2, leaderEndpoints=Endpoints(endpoints={ListenerName("
     "CONTROLLER)=127.0.0.1/<unresolved>:51523}), votedKey=Optional[ReplicaKey(id=2, directoryId=DmcllfEE-qQ85_TlOlSjTA)], "
     "voters=[1, 2, 3], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty)", epoch(1, 2)),
    ("3.5.2", "ResignedState(localId=1, epoch=5, voters=[1, 2, 3], electionTimeoutMs=1200, unackedVoters=[2, 3], "
     "preferredSuccessors=[2, 3])", epoch(5, 1)),
    ("4.3.1 (real)", "ResignedState(localId=1, epoch=2, voters=[1, 2, 3], electionTimeoutMs=1311, unackedVoters=[], "
     "preferredSuccessors=[ReplicaKey(id=3, directoryId=<undefined>)])", epoch(2, 1)),
    ("3.5.2", "Unattached(epoch=6, voters=[1, 2, 3], electionTimeoutMs=1500)", []),
    ("3.9.2", "Unattached(epoch=6, votedKey=null, voters=[1, 2, 3], electionTimeoutMs=1500, highWatermark=Optional.empty)", []),
    ("4.3.1 (real)", "UnattachedState(epoch=1, leaderId=OptionalInt.empty, votedKey=Optional.empty, voters=[1, 2, 3], "
     "electionTimeoutMs=141, highWatermark=Optional.empty)", []),
    ("4.0.2", "UnattachedState(epoch=6, leaderId=OptionalInt[2], votedKey=Optional.empty, voters=[1, 2, 3], "
     "electionTimeoutMs=1500, highWatermark=Optional.empty)", epoch(6, 2)),
    ("3.7.2", "Voted(epoch=6, votedId=2, voters=[1, 2, 3], electionTimeoutMs=1500)", []),
    ("3.8.1", f"Voted(epoch=6, votedKey={RK.format(2)}, voters=[1, 2, 3], electionTimeoutMs=1500, "
     "highWatermark=Optional.empty)", []),
    ("2.8.1", "Candidate(localId=1, epoch=6, retries=1, electionTimeoutMs=1500)", []),
    ("3.3.2", "CandidateState(localId=1, epoch=6, retries=1, electionTimeoutMs=1500)", []),
    ("3.6.2", "CandidateState(localId=1, epoch=6, retries=1, voteStates={1=GRANTED, 2=UNRECORDED, 3=UNRECORDED}, "
     "highWatermark=Optional.empty, electionTimeoutMs=1500)", []),
    ("3.9.2", "CandidateState(localId=1, localDirectoryId=vqyVDaFJR0O9C2Ug1h1FHw,epoch=6, retries=1, voteStates={}, "
     "highWatermark=Optional.empty, electionTimeoutMs=1500)", []),
    ("4.0.2", "CandidateState(localId=1, localDirectoryId=vqyVDaFJR0O9C2Ug1h1FHw, epoch=6, retries=1, epochElection="
     "EpochElection(voterStates={}), highWatermark=Optional.empty, electionTimeoutMs=1500)", []),
    ("4.3.1", "CandidateState(localId=1, localDirectoryId=vqyVDaFJR0O9C2Ug1h1FHw, epoch=6, epochElection=EpochElection("
     "voterStates={}), highWatermark=Optional.empty, electionTimeoutMs=1500)", []),
    ("4.0.2", "ProspectiveState(epoch=5, leaderId=OptionalInt[1], retries=1, votedKey=Optional.empty, epochElection="
     "EpochElection(voterStates={}), electionTimeoutMs=1500, highWatermark=Optional.empty)", epoch(5, 1)),
    ("4.3.1", "ProspectiveState(epoch=5, leaderId=OptionalInt.empty, votedKey=Optional.empty, epochElection=EpochElection("
     "voterStates={}), electionTimeoutMs=1500, highWatermark=Optional.empty)", []),
]


def _lines():
    """Each state in each wording its release prints: `Completed transition to X` (2.8-3.5), with
    ` from Y` (3.6..), and `Attempting durable transition to X from Y` (3.9..)."""
    for version, state, facts in STATES:
        release = parse_version(version.split()[0])
        if release < (3, 6):
            yield version, f"Completed transition to {state}", facts
        else:
            yield version, f"Completed transition to {state} from Unattached(epoch=4, voters=[1, 2, 3], electionTimeoutMs=1)", facts
        if release >= (3, 9):
            yield version, f"Attempting durable transition to {state} from null", facts


LINES = list(_lines())


def raft(message: str):
    prefix, body = strip_prefix("[RaftManager id=1] " + message)
    return match_message(body, LineContext("INFO", "org.apache.kafka.raft.QuorumState", prefix, "", "server"))


@pytest.mark.parametrize("version, message, facts", LINES, ids=[f"{v}: {m[:70]}" for v, m, _ in LINES])
def test_each_state_form(version, message, facts):
    matched = raft(message)
    assert matched is not None, message
    row, got = matched
    assert got == facts
    release = parse_version(version.split()[0])
    assert parse_version(row.first) <= release and (row.last is None or release <= parse_version(row.last)), row.name


def test_every_row_has_a_line():
    assert {p.name for p in kraft_raft.PATTERNS} == {raft(m)[0].name for _, m, _ in LINES}


@pytest.mark.parametrize("message", [
    "Completed transition to Leader(localId=one, epoch=5, epochStartOffset=1)",
    "Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=5, leaderId=2)",
    "Completed transition to Observer(epoch=5)",
    "Attempting durable transition to Leader(localId=1, epoch=5, epochStartOffset=120) from null",   # 3.9+ forms only
])
def test_near_misses_are_not_understood(message):
    assert raft(message) is None


# ------------------------------------------------------------------ through the ingest and the replay

def _cluster(tmp_path: Path, server_log: str) -> Path:
    """The 3.7.0 dump fixture (two Raft epochs whose LEADER_CHANGE records 3.7 does not decode)
    as broker-1's, and broker-1's server.log."""
    root = tmp_path / "prod"
    dump = root / "broker-1" / "__cluster_metadata-0" / "00000000000000000000.log.txt"
    dump.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "3.7.0" / "00000000000000000000.log.txt", dump)
    (root / "broker-1" / "server.log").write_text(server_log)
    return root


SERVER_LOG = """\
[2024-03-18 15:00:00,500] INFO [RaftManager id=1] Completed transition to CandidateState(localId=1, epoch=1, retries=1, voteStates={1=GRANTED, 2=UNRECORDED, 3=UNRECORDED}, highWatermark=Optional.empty, electionTimeoutMs=1500) from Unattached(epoch=0, voters=[1, 2, 3], electionTimeoutMs=1200) (org.apache.kafka.raft.QuorumState)
[2024-03-18 15:00:00,600] INFO [RaftManager id=1] Completed transition to Leader(localId=1, epoch=1, epochStartOffset=0, highWatermark=Optional.empty, voterStates={}) from CandidateState(localId=1, epoch=1, retries=1, voteStates={}, highWatermark=Optional.empty, electionTimeoutMs=1500) (org.apache.kafka.raft.QuorumState)
[2024-03-18 15:05:00,000] INFO [QuorumController id=1] writeNoOpRecord: event failed with NotLeaderException (treated as NotControllerException) at epoch 1 in 260 microseconds. Renouncing leadership and reverting to the last committed offset 20. Exception message: Append failed because the replica is not the current leader (org.apache.kafka.controller.QuorumController)
[2024-03-18 15:05:00,100] INFO [RaftManager id=1] Completed transition to Unattached(epoch=2, voters=[1, 2, 3], electionTimeoutMs=1400) from ResignedState(localId=1, epoch=1, voters=[1, 2, 3], electionTimeoutMs=1200, unackedVoters=[], preferredSuccessors=[2, 3]) (org.apache.kafka.raft.QuorumState)
[2024-03-18 15:05:00,200] INFO [RaftManager id=1] Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=2, leaderId=3, voters=[1, 2, 3], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) from Unattached(epoch=2, voters=[1, 2, 3], electionTimeoutMs=1400) (org.apache.kafka.raft.QuorumState)
"""


def test_raft_lines_name_each_epoch_s_controller(tmp_path):
    root = _cluster(tmp_path, SERVER_LOG)
    alone = _cluster(tmp_path / "alone", "")
    ingested = ingest_files(log_files(root), "prod")
    without = ingest_files(log_files(alone), "prod")
    assert not ingested.quarantine
    failovers = [(e.controller_epoch, e.controller_id) for e in ingested.events if e.event_type == E.CONTROLLER_FAILOVER]
    # The dump alone (3.7 prints LEADER_CHANGE undecoded) names no controller; the Raft lines do.
    assert [(e.controller_epoch, e.controller_id) for e in without.events if e.event_type == E.CONTROLLER_FAILOVER] == \
        [(1, None), (2, None)]
    assert failovers == [(1, 1), (2, 3)]
    for info in ingested.files.values():
        assert info["lines"] == info["recognized"] + info["quarantined"]
    # The replay takes them as its controller changes: each epoch's controller is the one named,
    # and what it finds in the partitions' records is the same.
    era = resolve_era("kraft-3.7.0")
    results, alone_results = replay_cluster("prod", ingested.events, era), replay_cluster("prod", without.events, era)
    for key, result in results.items():
        assert [v.rule for v in result.violations] == [v.rule for v in alone_results[key].violations]
        assert [r.controller_epoch for r in result.timeline] == [r.controller_epoch for r in alone_results[key].timeline]
    replay = next(iter(results.values()))
    assert {row.controller_epoch for row in replay.timeline} == {1, 2}


# ------------------------------------------------------------------ the lines alone, with no metadata-log dump

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
KRAFT_CAPTURES = sorted(p.name for p in REAL.glob("kraft-*") if (p / "manifest.json").exists())

# Per release, the Leader and FollowerState toString as its source prints them (<ID>: the node,
# <E>: the epoch, <L>: the leader): LeaderState.java / FollowerState.java of 3.3.0-3.8.0 and
# 3.9.0-rc3, the kafka-raft jars of 3.8.1, 3.9.2, 4.0.2 and 4.3.1.
_HW = "highWatermark=Optional.empty"
FORMS = {
    "3.3.2": ("Leader(localId=<ID>, epoch=<E>, epochStartOffset=0, " + _HW + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leaderId=<L>, voters=[1, 2], " + _HW + ", fetchingSnapshot=Optional.empty)"),
    "3.6.2": ("Leader(localId=<ID>, epoch=<E>, epochStartOffset=0, " + _HW + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leaderId=<L>, voters=[1, 2], " + _HW + ", fetchingSnapshot=Optional.empty)"),
    "3.8.1": ("Leader(localId=<ID>, epoch=<E>, epochStartOffset=0, " + _HW + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leader=127.0.0.1:9093 (id: <L> rack: null) voters=[1, 2], "
              + _HW + ", fetchingSnapshot=Optional.empty)"),
    "3.9.2": ("Leader(localReplicaKey=ReplicaKey(id=<ID>, directoryId=Optional[vqyVDaFJR0O9C2Ug1h1FHw]), epoch=<E>, "
              "epochStartOffset=0, " + _HW + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leader=<L>, leaderEndpoints=" + EP + ", voters=[1, 2], "
              + _HW + ", fetchingSnapshot=Optional.empty)"),
    "4.0.2": ("Leader(localReplicaKey=ReplicaKey(id=<ID>, directoryId=Optional[vqyVDaFJR0O9C2Ug1h1FHw]), epoch=<E>, "
              "epochStartOffset=0, " + _HW + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leader=<L>, leaderEndpoints=" + EP + ", votedKey=Optional.empty, "
              "voters=[1, 2], " + _HW + ", fetchingSnapshot=Optional.empty)"),
    "4.3.1": ("Leader(localVoterNode=" + VOTER.replace("%d", "<ID>") + ", epoch=<E>, epochStartOffset=0, " + _HW
              + ", voterStates={})",
              "FollowerState(fetchTimeoutMs=2000, epoch=<E>, leader=<L>, leaderEndpoints=" + EP + ", votedKey=Optional.empty, "
              "voters=[1, 2], " + _HW + ", fetchingSnapshot=Optional.empty)"),
}


def _transition(release: str, node: int, clock: str, state: str) -> str:
    """A node's server.log line of one transition, in its release's wording (QuorumState.java)."""
    head = f"[2024-03-18 15:{clock}] INFO [RaftManager id={node}] "
    tail = " (org.apache.kafka.raft.QuorumState)\n"
    before = " from Unattached(epoch=0, voters=[1, 2], electionTimeoutMs=1)" if parse_version(release) >= (3, 6) else ""
    durable = head + "Attempting durable transition to " + state + before + tail if parse_version(release) >= (3, 9) else ""
    return durable + head + "Completed transition to " + state + before + tail


def _quorum_logs(root: Path, release: str) -> Path:
    """Two nodes' server.logs: node 1 leads epoch 5 (node 2 follows it), node 2 epoch 6."""
    leader, follower = FORMS[release]
    states = {1: [("00:00,100", leader, 5), ("10:00,200", follower, 6)],
              2: [("00:00,200", follower, 5), ("10:00,100", leader, 6)]}
    for node, steps in states.items():
        log = root / f"broker-{node}" / "server.log"
        log.parent.mkdir(parents=True)
        log.write_text(f"[2024-03-18 14:59:00,000] INFO Kafka version: {release} (org.apache.kafka.common.utils.AppInfoParser)\n"
                       + "".join(_transition(release, node, clock, state.replace("<ID>", str(node)).replace(
                           "<E>", str(e)).replace("<L>", str(1 if e == 5 else 2))) for clock, state, e in steps))
    return root


@pytest.mark.parametrize("release", sorted(FORMS, key=parse_version))
def test_the_lines_alone_name_each_epoch_s_controller(tmp_path, release):
    """No dump: each epoch a Leader or FollowerState line names is one ControllerFailover, its
    controller the leader named, at the first line that names it; the cluster is KRaft."""
    root = _quorum_logs(tmp_path / "prod", release)
    ingested = ingest_files(log_files(root), "prod")
    assert not ingested.quarantine
    failovers = [e for e in ingested.events if e.event_type == E.CONTROLLER_FAILOVER]
    assert [(e.controller_epoch, e.controller_id) for e in failovers] == [(5, 1), (6, 2)]
    assert [(Path(e.source_file).parent.name, e.source_offset) for e in failovers] == [("broker-1", None), ("broker-2", None)]
    assert ingested.evidence["prod"].choice().era == f"kraft-{release}"


def test_a_migration_s_raft_epochs_are_no_controller_changes():
    """The KRaft controller of a ZooKeeper-to-KRaft migration leads Raft epoch 1; its lines of the
    migration say the cluster is replayed in a ZooKeeper era: no Raft epoch is a failover."""
    ingested = ingest_files([str(REAL / "zk-3.9-migration" / "controller-3000" / "server.log")], "m")
    evidence = ingested.evidence["m"]
    assert evidence.raft and evidence.zookeeper and not evidence.kraft_mode
    assert not [e for e in ingested.events if e.event_type == E.CONTROLLER_FAILOVER]
    assert resolve_era(evidence.choice().era).mode == "zk"


def _controller_changes(ingested) -> list[tuple]:
    return sorted((e.controller_epoch, e.controller_id) for e in ingested.events if e.event_type == E.CONTROLLER_FAILOVER)


@pytest.mark.parametrize("capture", KRAFT_CAPTURES)
def test_a_capture_s_lines_alone_give_the_controller_changes_its_dump_gives(tmp_path, capture):
    """A real KRaft capture less its metadata-log dumps: the same controller changes (epoch and
    controller) as with them, each epoch once either way, and the same KRaft era."""
    lines_only = tmp_path / capture
    shutil.copytree(REAL / capture, lines_only, ignore=shutil.ignore_patterns("__cluster_metadata-*"))
    assert not list(lines_only.rglob("*.log.txt"))
    with_dump, alone = ingest_files(log_files(REAL / capture), capture), ingest_files(log_files(lines_only), capture)
    assert with_dump.evidence[capture].kraft and not alone.evidence[capture].kraft
    changes = _controller_changes(with_dump)
    assert changes and _controller_changes(alone) == changes
    assert len({epoch for epoch, _ in changes}) == len(changes)   # no epoch doubled by its dump and its lines
    assert any(leader is not None for _, leader in changes)
    assert alone.evidence[capture].choice().era == with_dump.evidence[capture].choice().era
