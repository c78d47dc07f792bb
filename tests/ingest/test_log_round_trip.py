"""Property: a simulated history written as a Kafka cluster's files audits, through the
parsers and the local ingest, the same as its canonical events do.

ZooKeeper mode: the logs of a cluster of 0.8.2.2, 0.10.2.2, 1.0.2, 2.4.1, 2.8.2, 3.2.3, 3.4.1 or 3.9.2
(ingest.render.render), replayed in the era each belongs to.

For TRACE (every decision logged), INFO (the 2.6+ default) and inputs only (where the replay
infers what is missing), with and without injected faults: nothing is quarantined, the
violations are exactly the injected faults, and every partition's leader/ISR and replica
timelines are the canonical replay's, change for change. What the logs lose must be recovered
by inference, never reported. The era detection's range of releases holds the one that wrote
the logs, and a replay in the era it picks (what `audit --format auto` does) agrees too.

KRaft: the `kafka-dump-log.sh --cluster-metadata-decoder` output of the metadata log, the same
on three nodes (ingest.render.render_kraft); the same checks. A zombie controller's record
is not among the faults: a Raft log's batch epochs never decrease, so no dump can show one."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from histories import shapes
from scenarios import MIGRATION_DUMP, SCENARIOS, migration_night
from ingest.detect import choose_era
from ingest.local import ingest_files, log_files
from ingest.render import _ts as log4j_time
from ingest.render import render, render_kraft, without_record_metadata
from state_machine.cluster import replay_cluster
from state_machine.eras import parse_version, resolve_era
from state_machine.generator import FAULTS, SimConfig, simulate

# What render writes, and its era: one release of each format family it knows (A twice: 0.8.2's
# requests carry correlation ids).
ZK_RELEASES = st.sampled_from([("0.8.2.2", "0.8.2"), ("0.10.2.2", "0.10"), ("1.0.2", "0.11"), ("2.4.1", "2.4"),
                               ("2.8.2", "2.4"), ("3.2.3", "3.x"), ("3.4.1", "3.x"), ("3.9.2", "3.x")])
KRAFT = resolve_era("kraft")
NOT_WRITTEN = {"IsrChangeProposed", "IsrUpdateFailed"}

faults = st.sampled_from([{}, {f: 1 for f in FAULTS}])
kraft_faults = st.sampled_from([{}, {f: 1 for f in FAULTS if f != "zombie_controller"}])


def timelines(results) -> dict:
    """Each partition's timelines, without what names the input (seq, source, inferred)."""
    return {key: ([(t.valid_from, t.partition_state, t.leader, t.leader_epoch, sorted(t.isr), t.replicas,
                    t.controller_epoch, t.election) for t in r.timeline],
                  [(t.valid_from, t.replica, t.replica_state) for t in r.replica_timeline])
            for key, r in results.items()}


PROFILE = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow])


def assert_round_trip(cfg: SimConfig, write, era, release: str | None = None) -> None:
    events, truth = simulate(cfg)
    with tempfile.TemporaryDirectory() as d:
        write(events, d)
        ingested = ingest_files(log_files(d), cfg.cluster)
    assert ingested.quarantine == []
    eras = [era]
    if release is not None:   # era detection: the release that wrote the logs fits every line's shape
        evidence = ingested.evidence[cfg.cluster]
        choice = choose_era(evidence.ranges, evidence.versions, evidence.kraft)
        assert choice is not None and not choice.conflicting, choice
        assert parse_version(choice.low) <= parse_version(release) <= parse_version(choice.high), choice
        eras.append(resolve_era(choice.era))   # what `audit --format auto` replays them in
    # What happened: the writes that did not commit left no trace (test_isr_writes_that_did_not_commit_leave_no_trace).
    expected = timelines(replay_cluster(cfg.cluster, [e for e in events if e.event_type not in NOT_WRITTEN], era))
    for replay_era in eras:
        from_files = replay_cluster(cfg.cluster, ingested.events, replay_era)
        reported = sorted((v.rule, key[0], key[1]) for key, r in from_files.items() for v in r.violations)
        assert reported == sorted((t.rule, t.topic, t.partition) for t in truth), replay_era.name
        assert timelines(from_files) == expected, replay_era.name


@PROFILE
@given(shape=shapes, faults=faults, release=ZK_RELEASES)
def test_rendered_logs_audit_like_their_canonical_events(shape, faults, release):
    version, era = release
    assert_round_trip(SimConfig(cluster="gen", era=era, faults=faults, fault_rate=0.3 if faults else 0.15, **shape),
                      lambda events, d: render(events, d, version), resolve_era(era), version)


@settings(PROFILE, max_examples=100)
@given(shape=shapes, faults=faults, release=ZK_RELEASES)
def test_isr_writes_that_did_not_commit_audit_as_nothing(shape, faults, release):
    """Leaders' proposals whose write failed, as each release logs them ("Shrinking ISR ..." and
    "Cached zkVersion [N] not equal to that in zookeeper, skip updating ISR", 2.8+ "Failed to
    update ISR to ...", 3.3+ "Failed to alter partition to ..."): the logs audit as the history
    without them."""
    version, era = release
    assert_round_trip(SimConfig(cluster="gen", era=era, faults=faults, fault_rate=0.3 if faults else 0.15,
                                failed_isr_writes=0.3, **shape),
                      lambda events, d: render(events, d, version), resolve_era(era), version)


@PROFILE
@given(shape=shapes, faults=kraft_faults)
def test_rendered_metadata_dumps_audit_like_their_canonical_events(shape, faults):
    assert_round_trip(SimConfig(cluster="gen", era="kraft", faults=faults, fault_rate=0.3 if faults else 0.15, **shape),
                      render_kraft, KRAFT)


def test_a_metadata_dump_and_a_controller_log_interleave_by_the_clock(tmp_path):
    """A dump's records have no log4j envelope; their timestamps are the dump's clock, so a
    KRaft controller's log line written between two records is ordered between them. A Raft
    epoch's ControllerFailover sits at the epoch's first batch even when a controller's line
    announced the epoch earlier (another node's clock), so every record of the epoch, and no
    other, replays under it: the timelines carry the epoch the canonical events give."""
    events, _ = simulate(SimConfig(cluster="k", era="kraft", steps=40, seed=5))
    render_kraft(events, tmp_path)
    failovers = [e for e in events if e.event_type == "ControllerFailover"]
    assert [e.controller_epoch for e in failovers] == [1, 2, 3, 4]
    middle = sorted(e.event_time_ms for e in events)[len(events) // 2]
    (tmp_path / "broker-1" / "controller.log").write_text(
        f"[{log4j_time(failovers[1].event_time_ms - 5)}] INFO [QuorumController id=1] In the new epoch 2, the leader is 1. "
        "(org.apache.kafka.controller.QuorumController)\n"
        f"[{log4j_time(middle)}] INFO [QuorumController id=1] UNCLEAN partition change for t1-0 with topic ID "
        "AAAAAAAAAAAAAAAAAAAAAA: isr: [] -> [3], leader: -1 -> 3, leaderRecoveryState: RECOVERED -> RECOVERING "
        "(org.apache.kafka.controller.ReplicationControlManager)\n")
    ingested = ingest_files(log_files(tmp_path), "k")
    times = [e.event_time_ms for e in ingested.events if e.event_time_ms is not None]
    assert times == sorted(times)
    logged = [e.seq for e in ingested.events if e.event_type == "UncleanElectionLogged"]
    assert logged and 0 < logged[0] < len(ingested.events) - 1
    second = next(e for e in ingested.events if e.event_type == "ControllerFailover" and e.controller_epoch == 2)
    assert (second.controller_id, second.source_offset is not None) == (1, True)
    replayed = replay_cluster("k", [e for e in ingested.events if e.event_type != "UncleanElectionLogged"], KRAFT)
    assert timelines(replayed) == timelines(replay_cluster("k", events, KRAFT))
    assert all(row.controller_epoch is not None for r in replayed.values() for row in r.timeline)


def test_of_several_nodes_copies_of_a_record_the_first_in_recorded_order_is_kept(tmp_path):
    """Nodes 9, 10 and 11 hold the same metadata log; their dumps tie on the clock, so the
    recording broker decides: node 9's copy, though broker-10/ sorts first by name."""
    events, _ = simulate(SimConfig(cluster="k", era="kraft", steps=30, seed=6))
    render_kraft(events, tmp_path, nodes=(9, 10, 11))
    ingested = ingest_files(log_files(tmp_path), "k")
    records = [e for e in ingested.events if e.source_offset is not None and e.event_type != "ControllerFailover"]
    assert records and {e.recording_broker for e in records} == {9}
    assert all("/broker-9/" in e.source_file for e in records)


@settings(PROFILE, max_examples=30)
@given(shape=shapes, faults=kraft_faults)
def test_a_dump_printed_without_record_metadata_reads_the_same_records(shape, faults, tmp_path_factory):
    """`kafka-dump-log.sh --skip-record-metadata` prints each record as " payload: ..." (a control
    record as an empty line) under its batch line: nothing is quarantined, and the records read
    are those of the full dump, in the same order, less what only the record line carries (its
    offset and time)."""
    events, _ = simulate(SimConfig(cluster="gen", era="kraft", faults=faults, fault_rate=0.3 if faults else 0.15,
                                   **shape))
    full, bare = tmp_path_factory.mktemp("full"), tmp_path_factory.mktemp("bare")
    render_kraft(events, full, nodes=(1,))
    for dump in full.rglob("*.log.txt"):
        target = bare / dump.relative_to(full)
        target.parent.mkdir(parents=True)
        target.write_text(without_record_metadata(dump.read_text()))
    want, got = ingest_files(log_files(full), "gen"), ingest_files(log_files(bare), "gen")
    assert got.quarantine == []
    record = [e for e in want.events if e.event_type != "ControllerFailover"]
    assert [e._replace(source_offset=None, event_time_ms=None, source_line=None, source_file=None, seq=None)
            for e in got.events if e.event_type != "ControllerFailover"] == [
        e._replace(source_offset=None, event_time_ms=None, source_line=None, source_file=None, seq=None) for e in record]




def test_isr_writes_zookeeper_refused_change_nothing():
    """KAFKA-2729's pattern (fixture README): a leader that lost the leadership without knowing
    it logs "Shrinking ISR from 1,2,3 to 1" and "Cached zkVersion 0 not equal to that in
    zookeeper, skip updating ISR", three times: IsrChangeProposed and IsrUpdateFailed events.
    Replayed as 2.4.1 (detected), a proposal is no write (2.4+ log each committed write); as
    1.1-2.3, where the proposal is the write's only INFO line, each failure drops its proposal.
    Without the failure lines each would be a write by a broker that no longer leads."""
    ingested = ingest_files(log_files(SCENARIOS / "zk-2.4.1-stale-isr"), "stale")
    assert ingested.quarantine == []
    proposed = [e for e in ingested.events if e.event_type == "IsrChangeProposed"]
    failed = [e for e in ingested.events if e.event_type == "IsrUpdateFailed"]
    assert [(e.leader, e.isr, e.source_line) for e in proposed] == [(1, [1], 5), (1, [1], 7), (1, [1], 9)]
    assert [(e.leader, e.source_line) for e in failed] == [(1, 6), (1, 8), (1, 10)]
    assert all(e.source_file.endswith("broker-1/server.log") for e in proposed + failed)
    for era in ("2.4", "2.3", "1.1"):
        (result,) = replay_cluster("stale", ingested.events, resolve_era(era)).values()
        assert result.violations == [], era
        assert [(t.partition_state, t.leader, t.leader_epoch, t.isr) for t in result.timeline] == [
            ("NewPartition", -1, -1, ()), ("OnlinePartition", 1, 0, (1, 2, 3)), ("OfflinePartition", 1, 0, (1, 2, 3)),
            ("OnlinePartition", 2, 1, (2, 3))], era
    without = [e for e in ingested.events if e not in failed]
    for era, rules in (("2.4", []), ("2.3", ["LEADER_EPOCH_REGRESSION"] * 3)):
        (result,) = replay_cluster("stale", without, resolve_era(era)).values()
        assert [v.rule for v in result.violations] == rules, era


def test_a_migration_the_next_controller_aborted_is_not_replayed(tmp_path):
    """A ZooKeeper migration's transaction that the failed-over controller aborted (fixture
    README): its PartitionRecord (leader 1, ISR 1, epoch 4) is read and undone; the partition's
    timeline starts at the migration that committed. The same dump printed with
    --skip-record-metadata (no offsets) is undone by its lines. Kept, the undone record would
    be a row for a state the metadata log reverted."""
    scenario = SCENARIOS / "kraft-3.7.0-aborted-migration"
    dump = scenario / "controller-3001" / "__cluster_metadata-0" / "00000000000000000000.log.txt"
    bare = tmp_path / "controller-3001" / "__cluster_metadata-0" / "00000000000000000000.log.txt"
    bare.parent.mkdir(parents=True)
    bare.write_text(without_record_metadata(dump.read_text()))
    lines = bare.read_text().splitlines()
    begin, abort = (lines.index(f' payload: {{"type":"{t}","version":0,"data":{d}}}') + 1 for t, d in (
        ("BEGIN_TRANSACTION_RECORD", '{"name":"ZK Migration"}'), ("ABORT_TRANSACTION_RECORD", '{"reason":"Controller failover"}')))
    rows = []
    for root, aborted in ((scenario, [(None, 8, 12, 1)]), (tmp_path, [(str(bare), begin, abort, 1)])):
        ingested = ingest_files(log_files(root), "mig")
        assert (ingested.quarantine, ingested.transactions) == ([], {"mig": aborted})
        assert [e.leader for e in ingested.events if e.event_type == "PartitionRecord"] == [2]
        (result,) = replay_cluster("mig", ingested.events, KRAFT).values()
        assert result.violations == []
        rows.append([(t.valid_from, t.leader, t.leader_epoch, t.isr, t.election) for t in result.timeline])
    assert rows[0] == [(1710774010100, 2, 5, (2, 3), "initial"), (1710774015000, 2, 5, (2, 3, 1), None)]
    assert rows[1] == [(None, *row[1:]) for row in rows[0]]   # a bare record line has no time


def test_a_migration_still_open_at_the_inputs_end_is_replayed_and_reported(tmp_path):
    """The same migration's dump cut before the controller failover (a night's input that ends
    while the migration's transaction is open): nothing aborts it here, so its PartitionRecord
    (leader 1) is replayed, as the active controller applied it, and the transaction is
    reported open with the one event read from its records (its TopicRecord is a fact); by
    offset, and by line in the dump printed without offsets."""
    night = migration_night()
    want = []
    for name, text in (("offsets", night), ("bare", without_record_metadata(night))):
        path = tmp_path / name / "controller-3001" / "00000000000000000000.log.txt"
        path.parent.mkdir(parents=True)
        path.write_text(text)
        begin = 8 if name == "offsets" else text.splitlines().index(
            ' payload: {"type":"BEGIN_TRANSACTION_RECORD","version":0,"data":{"name":"ZK Migration"}}') + 1
        ingested = ingest_files(log_files(tmp_path / name), "mig")
        assert ingested.quarantine == []
        assert ingested.transactions == {"mig": [(None if name == "offsets" else str(path), begin, None, 1)]}
        (result,) = replay_cluster("mig", ingested.events, KRAFT).values()
        assert result.violations == []
        want.append([(t.leader, t.leader_epoch, t.isr, t.election) for t in result.timeline])
    assert want[0] == want[1] == [(1, 4, (1,), "initial")]


def test_a_dump_in_a_folder_that_names_no_node_ingests_the_same_events(tmp_path):
    """An operator's dump saved as dumps/00000000000000000000.log.txt (no broker-N or
    controller-N folder: no recording node known) reads the same events as under the node's
    folder, less the node (the local ingest's sort crashed on the absent recording_broker before)."""
    dump = MIGRATION_DUMP
    roots = (tmp_path / "controller-3001", tmp_path / "dumps")
    for root in roots:
        root.mkdir()
        (root / dump.name).write_text(dump.read_text())
    named, bare = (ingest_files(log_files(root), "mig") for root in roots)
    assert bare.quarantine == [] and bare.transactions == named.transactions == {"mig": [(None, 8, 12, 1)]}
    assert comparable(bare, str(roots[1]), ("recording_broker",)) == comparable(named, str(roots[0]), ("recording_broker",))
    assert {e.recording_broker for e in named.events} == {None, 3001}   # a Raft epoch's failover names none
    assert {e.recording_broker for e in bare.events} == {None}


def comparable(ingested, root: str, aside=()) -> list[dict]:
    """The ingested events as dicts, their files relative to `root`, the fields `aside` left out."""
    return [{**{k: v for k, v in e._asdict().items() if k not in aside}, "source_file": e.source_file.removeprefix(root)}
            for e in ingested.events]


# What a controller may write inside a metadata transaction and then abort (KIP-868: a failed-over
# controller aborts the ZK migration or bootstrap its predecessor left open). Records of a
# partition or topic the log does not yet hold are allowed too: the abort undoes them all.
ABORTABLE = ("BrokerStartup", "BrokerFailure", "ControlledShutdown", "PartitionRecord", "ConfigChange")


@settings(PROFILE, max_examples=60)
@given(shape=shapes, faults=kraft_faults, data=st.data())
def test_aborted_metadata_transactions_audit_as_nothing(shape, faults, data):
    """Metadata transactions whose AbortTransactionRecord undid them, written into a metadata
    log at its controller failovers, each opened by the old Raft leader and aborted by the new
    one after its LeaderChange (copies of the history's own records: brokers fenced and unfenced,
    partitions created with other leaders, settings changed): the dumps ingest to the events
    of the log without them, field for field (offsets and lines aside), and each transaction
    is reported with the records it undid."""
    events, _ = simulate(SimConfig(cluster="gen", era="kraft", faults=faults, fault_rate=0.3 if faults else 0.15,
                                   **shape))
    # Each failover after the first: the controller it replaces left a transaction open.
    failovers = [i for i, e in enumerate(events) if e.event_type == "ControllerFailover"][1:]
    assume(failovers)
    pool = [e for e in events if e.event_type in ABORTABLE]
    points = data.draw(st.sets(st.sampled_from(failovers), min_size=1, max_size=3))
    aborted = {i: data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4)) for i in sorted(points)}
    with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as with_aborts:
        render_kraft(events, plain)
        render_kraft(events, with_aborts, aborted=aborted)
        want = ingest_files(log_files(plain), "gen")
        got = ingest_files(log_files(with_aborts), "gen")
        roots = (plain, with_aborts)
    assert got.quarantine == [] and want.transactions == {}
    # Each transaction, by offset, undid at least its records' events (a TopicRecord is a fact).
    assert [(file, n >= len(aborted[i])) for (file, _, _, n), i in zip(got.transactions["gen"], aborted)] == [(None, True)] * len(aborted)
    aside = ("source_offset", "source_line")
    assert comparable(got, roots[1], aside) == comparable(want, roots[0], aside)


NO_OP = ' payload: {"type":"NO_OP_RECORD","version":0,"data":{}}'


@settings(PROFILE, max_examples=30)
@given(shape=shapes, faults=kraft_faults, data=st.data())
def test_a_metadata_transaction_open_at_the_inputs_end_is_replayed_and_counted(shape, faults, data):
    """Each node's dump cut just before a controller failover whose predecessor left a metadata
    transaction open (the input ends before the abort): the transaction's records are replayed,
    exactly as when its BeginTransactionRecord is a NO_OP_RECORD (same offsets, same lines), and
    it is reported open at its Begin's offset with every event read from the records after it."""
    events, _ = simulate(SimConfig(cluster="gen", era="kraft", faults=faults, fault_rate=0.3 if faults else 0.15,
                                   **shape))
    failovers = [i for i, e in enumerate(events) if e.event_type == "ControllerFailover"][1:]
    assume(failovers)
    pool = [e for e in events if e.event_type in ABORTABLE]
    at = data.draw(st.sampled_from(failovers))
    copies = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
    with tempfile.TemporaryDirectory() as cut, tempfile.TemporaryDirectory() as no_op:
        render_kraft(events, cut, aborted={at: copies})
        for dump in Path(cut).rglob("*.log.txt"):
            lines = dump.read_text().splitlines()
            begin = next(i for i, line in enumerate(lines) if '"type":"BEGIN_TRANSACTION_RECORD"' in line)
            end = next(i for i in range(begin, len(lines)) if lines[i].startswith("baseOffset:"))   # the LeaderChange
            begin_offset = int(lines[begin].split("offset: ")[1].split()[0])
            dump.write_text("\n".join(lines[:end]) + "\n")
            plain = Path(no_op) / dump.relative_to(cut)
            plain.parent.mkdir(parents=True)
            plain.write_text("\n".join([*lines[:begin], lines[begin].split(" payload: ")[0] + NO_OP, *lines[begin + 1:end]])
                             + "\n")
        got = ingest_files(log_files(cut), "gen")
        want = ingest_files(log_files(no_op), "gen")
        roots = (cut, no_op)
    assert got.quarantine == want.quarantine == [] and want.transactions == {}
    after = sum(1 for e in want.events if e.source_offset is not None and e.source_offset > begin_offset)
    assert got.transactions == {"gen": [(None, begin_offset, None, after)]} and after >= len(copies)
    assert comparable(got, roots[0]) == comparable(want, roots[1])
