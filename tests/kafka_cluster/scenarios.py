"""The scripted history every capture runs, on a started ZkCluster or KRaftCluster, driven by Kafka's
own command-line tools from the same jars (TopicCommand, ProducerPerformance,
LeaderElectionCommand, ReassignPartitionsCommand; MetadataQuorumCommand, or in ZooKeeper mode a
read of the /controller znode, to find the controller). One capture runs all steps in sequence:

  create_topics, produce, kill9_controller, restart_killed, controlled_shutdown,
  restart_shut_down, preferred_election, reassignment, delete_topic,
  unclean_create_topic, unclean_stop_follower, unclean_produce_lagging, unclean_stop_isr,
  unclean_restart_out_of_sync, restart_isr_member

(capture.py adds start_cluster before them and kill_cluster after). The scenarios named `*-ops` run
a second history instead, run_ops: partitions added, a topic deleted with a replica down, and a
partition whose whole ISR goes down with unclean elections disabled. `kraft-elr` runs a third,
run_elr: a leader elected from KIP-966's eligible leader replicas. `zk-3.9-migration` runs a fourth,
run_migration: a ZooKeeper cluster moved onto a KRaft controller. `kraft-failover` runs a fifth,
run_failover: the active controller of a KRaft quorum killed (-9) while topics are being created.
Each step is recorded with its name, start `time` and `end` (UTC, ISO 8601) and what it acted on
(broker, signal, targets).

The kill -9 hits the controller (ZK: /controller; KRaft: the quorum leader), the SIGTERM another
broker. The reassignment gives each RF-2 `moves` partition a new replica set that keeps the
controller (see reassignment_targets: why).

After every step a `kafka-topics --describe` snapshot is saved as describe/_NN-<step>.txt (the
leading `_` keeps the audit, which skips `_`/`.` files as Hadoop does, from reading it as a log).

The unclean election: topic `unclean` (1 partition, replicas [a, b] on the two brokers that are not
the controller, unclean.leader.election.enable=true). b is killed (-9) and drops out of the ISR;
records are produced to a alone; a is killed, so the partition has no live ISR member; b is
restarted and, being the only live replica, is elected leader by the controller although it was not
in the ISR (ZK: PartitionStateMachine OfflinePartitionLeaderElectionStrategy reading the topic
config; KRaft: ReplicationControlManager with Election.UNCLEAN). KRaft before 3.9 does not read the
config, so there the step asks for the election itself (LeaderElectionCommand --election-type
UNCLEAN), the one way those releases elect outside the ISR. In KRaft, stopping a and b leaves
one of three voters, so the quorum is lost until b returns: that is what three combined nodes do,
and why the topic has two replicas (with three, no voter majority could elect anyone).

Every wait is bounded (harness.wait_for); a step that times out raises with the last describe."""
from __future__ import annotations

import json
import signal
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .harness import Cluster, ZkCluster, has, wait_for

TOPICS = {
    # name: TopicCommand arguments (RF 3 on 3 brokers, except `moves`, whose replicas a reassignment moves)
    "events": ["--partitions", "3", "--replication-factor", "3"],
    "moves": ["--replica-assignment", "1:2,2:3"],
    "doomed": ["--partitions", "1", "--replication-factor", "3"],
}
UNCLEAN_TOPIC = "unclean"
RECORDS = {"events": 3000, "moves": 500, "doomed": 100}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Recorder:
    """Step names and wall-clock times, and the describe snapshot after each step."""
    cluster: Cluster
    out_dir: Path
    steps: list[dict] = field(default_factory=list)
    last_describe: str = ""

    @contextmanager
    def step(self, name: str, **detail):
        entry = {"name": name, "time": now_iso(), **detail}
        yield entry                                   # the step may add details (brokers, epochs)
        entry["end"] = now_iso()
        text = self.cluster.describe()
        path = self.out_dir / "describe" / f"_{len(self.steps) + 1:02d}-{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        entry["describe"] = str(path.relative_to(self.out_dir))
        self.last_describe = text
        self.steps.append(entry)


# ---------------------------------------------------------------- tools

def create_topic(c: Cluster, name: str, *args: str) -> None:
    c.admin("topics", "--create", "--topic", name, *args)


def produce(c: Cluster, topic: str, records: int, acks: str = "all") -> str:
    """ProducerPerformance: `records` 100-byte records as fast as possible; returns its summary line."""
    props = [f"bootstrap.servers={c.bootstrap}", f"acks={acks}", "linger.ms=5"]
    if not has(c.release, "tools_producer_perf"):   # topic, records, size, records/s, then properties
        args = [topic, str(records), "100", "1000000", *props]
    else:
        args = ["--topic", topic, "--num-records", str(records), "--record-size", "100", "--throughput", "-1",
                "--producer-props", *props, "request.timeout.ms=10000", "delivery.timeout.ms=60000"]
    out = c.tool("producer_perf", *args, timeout=180).stdout
    return out.strip().splitlines()[-1] if out.strip() else ""


def not_on(broker: int):
    """Predicate: no partition led by `broker`, and `broker` in no ISR."""
    return lambda parts: bool(parts) and all(p["leader"] != broker and broker not in p["isr"] for p in parts.values())


def partition_is(key: str, **want):
    return lambda parts: key in parts and all(parts[key][k] == v for k, v in want.items())


def rejoined_but_offline(broker: int, key: str):
    """Predicate: `broker` is back in every other partition's ISR, so the controller has handled its
    startup, and `key` is still offline: `broker` was not in its ISR."""
    return lambda parts: all((p["leader"] == -1) if k == key else (broker in p["isr"]) for k, p in parts.items())


# ---------------------------------------------------------------- the history

def run_all(c: Cluster, rec: Recorder) -> dict:
    """Run every step; returns {"unclean": {topic, partition, leader, leader_epoch, ...}}."""
    ids = list(c.broker_ids)

    with rec.step("create_topics", topics=sorted(TOPICS)):
        for name, args in TOPICS.items():
            create_topic(c, name, *args)
        c.wait_fully_replicated()

    with rec.step("produce", records=RECORDS) as s:
        s["producer"] = {t: produce(c, t, n) for t, n in RECORDS.items()}

    controller = c.controller_id()
    with rec.step("kill9_controller", broker=controller, signal="SIGKILL"):
        c.stop_node(controller, signal.SIGKILL)
        c.wait_partitions(f"leaders and ISRs to leave killed broker {controller}", not_on(controller))

    with rec.step("restart_killed", broker=controller):
        c.start_node(controller)
        c.wait_fully_replicated()

    controller = c.controller_id()
    target = next(i for i in reversed(ids) if i != controller)
    with rec.step("controlled_shutdown", broker=target, signal="SIGTERM", controller=controller):
        c.stop_node(target, signal.SIGTERM, timeout=90)
        c.wait_partitions(f"leaders and ISRs to leave shut-down broker {target}", not_on(target))

    with rec.step("restart_shut_down", broker=target):
        c.start_node(target)
        c.wait_fully_replicated()

    with rec.step("preferred_election") as s:
        out = c.admin("leader_election", "--election-type", "PREFERRED", "--all-topic-partitions").stdout
        s["tool_output"] = out.strip().splitlines()
        c.wait_partitions("every partition led by its preferred replica",
                          lambda parts: all(p["leader"] == p["replicas"][0] for p in parts.values()))

    controller = c.controller_id()
    targets = reassignment_targets(c.partitions(), controller, ids)
    with rec.step("reassignment", target=targets, controller=controller) as s:
        plan = {"version": 1, "partitions": [
            {"topic": k.rsplit("-", 1)[0], "partition": int(k.rsplit("-", 1)[1]), "replicas": v}
            for k, v in targets.items()]}
        plan_file = c.tools_dir / "reassignment.json"
        plan_file.write_text(json.dumps(plan))
        c.admin("reassign", "--execute", "--reassignment-json-file", str(plan_file))
        c.wait_partitions("the reassignment to complete", lambda parts: all(
            k in parts and parts[k]["replicas"] == v and not parts[k]["adding"] and not parts[k]["removing"]
            for k, v in targets.items()))
        c.wait_fully_replicated()
        verify = c.admin("reassign", "--verify", "--reassignment-json-file", str(plan_file)).stdout
        s["verify"] = [ln for ln in verify.splitlines() if ln.startswith("Reassignment of partition")]

    with rec.step("delete_topic", topic="doomed"):
        c.admin("topics", "--delete", "--topic", "doomed")
        c.wait_partitions("topic doomed to disappear", lambda parts: parts and not any(
            p["topic"] == "doomed" for p in parts.values()))

    return unclean_election(c, rec)


def reassignment_targets(parts: dict[str, dict], controller: int, brokers: list[int]) -> dict[str, list[int]]:
    """New replicas for each `moves` partition (RF 2): one replica replaced, the controller kept or
    added. Keeping every partition on the controller means the unclean step, which stops the two
    other brokers, takes no other partition's whole replica set down: in KRaft 4.x such a partition
    would get a second election that Kafka itself logs as unclean (KIP-966 last-known-leader
    recovery, PartitionChangeBuilder.canElectLastKnownLeader), even with unclean elections disabled."""
    targets = {}
    for key, p in sorted(parts.items()):
        if p["topic"] != "moves":
            continue
        r = p["replicas"]
        if controller not in r:
            targets[key] = [controller, r[1]]             # the preferred leader goes: a reassign election
        else:
            other = next(i for i in brokers if i not in r)
            targets[key] = [other, controller]            # the follower goes; a new preferred replica
    return targets


def create_pair_topic(c: Cluster, rec: Recorder, step: str, topic: str, a: int, b: int, unclean: str, **detail) -> None:
    """Topic `topic`: one partition on [a, b], led by a, with unclean.leader.election.enable=`unclean`."""
    key = f"{topic}-0"
    with rec.step(step, topic=topic, replicas=[a, b], **detail) as s:
        create_topic(c, topic, "--replica-assignment", f"{a}:{b}", "--config", f"unclean.leader.election.enable={unclean}")
        c.wait_partitions(f"{key} led by {a} with ISR [{a}, {b}]", partition_is(key, leader=a, isr=[a, b]))
        s["producer"] = produce(c, topic, 200)


def stop_follower(c: Cluster, rec: Recorder, step: str, topic: str, a: int, b: int) -> None:
    key = f"{topic}-0"
    with rec.step(step, broker=b, signal="SIGKILL"):
        c.stop_node(b, signal.SIGKILL)
        c.wait_partitions(f"{key} ISR to shrink to [{a}]", partition_is(key, leader=a, isr=[a]))


def stop_last_isr(c: Cluster, rec: Recorder, step: str, topic: str, a: int) -> None:
    key = f"{topic}-0"
    with rec.step(step, broker=a, signal="SIGKILL") as s:
        c.stop_node(a, signal.SIGKILL)
        if isinstance(c, ZkCluster):
            # The controller keeps the last ISR member and writes leader -1 (ReplicaStateMachine @3.9).
            c.wait_partitions(f"{key} to go offline", partition_is(key, leader=-1))
            s["zk_state"] = c.partition_state(topic, 0)
        else:
            s["note"] = "one voter of three left: the KRaft quorum is lost until the next step"


def unclean_election(c: Cluster, rec: Recorder) -> dict:
    key = f"{UNCLEAN_TOPIC}-0"
    controller = c.controller_id()
    a, b = [i for i in c.broker_ids if i != controller][:2]   # a: stays in the ISR; b: falls out of it
    stranded = [k for k, p in c.partitions().items() if set(p["replicas"]) <= {a, b}]
    if stranded:
        raise RuntimeError(f"partitions {stranded} have all replicas on brokers {a} and {b}, which the unclean "
                           f"step stops: they would get elections of their own (controller is {controller})")

    create_pair_topic(c, rec, "unclean_create_topic", UNCLEAN_TOPIC, a, b, "true", controller=controller)
    stop_follower(c, rec, "unclean_stop_follower", UNCLEAN_TOPIC, a, b)

    with rec.step("unclean_produce_lagging", topic=UNCLEAN_TOPIC, records=500) as s:
        s["producer"] = produce(c, UNCLEAN_TOPIC, 500, acks="1")

    epoch_before = c.leader_epoch_checkpoint(b, UNCLEAN_TOPIC, 0)
    stop_last_isr(c, rec, "unclean_stop_isr", UNCLEAN_TOPIC, a)

    with rec.step("unclean_restart_out_of_sync", broker=b) as s:
        c.start_node(b)
        if c.mode == "kraft" and not has(c.release, "kraft_unclean_config"):
            # The controller will not elect b on its own: ask, as an operator would, until b leads. Asked
            # before a is fenced, the controller still sees a leader and answers "election not needed";
            # before b is unfenced, "eligible leaders not available".
            s["admin_election"] = "UNCLEAN"

            def elected() -> bool:
                s["admin_election_output"] = c.admin(
                    "leader_election", "--election-type", "UNCLEAN", "--topic", UNCLEAN_TOPIC, "--partition", "0",
                    timeout=60, check=False).stdout.strip()
                return partition_is(key, leader=b)(c.partitions())

            wait_for(f"an admin UNCLEAN election to elect {b} for {key}", elected, timeout=120, interval=1.0)
        c.wait_partitions(f"{b} to lead {key} (unclean election)", partition_is(key, leader=b), timeout=120)
        epoch = None
        if has(c.release, "leader_epoch_checkpoint"):
            if not has(c.release, "epoch_checkpointed_on_election"):
                s["producer"] = produce(c, UNCLEAN_TOPIC, 10, acks="1")   # its first append records the epoch
            # The broker's own record of the epoch it leads at (written when it becomes leader).
            epoch = s["leader_epoch_checkpoint"] = new_leader_epoch(c, b, UNCLEAN_TOPIC, epoch_before)
        if isinstance(c, ZkCluster):
            state = c.partition_state(UNCLEAN_TOPIC, 0)
            s["zk_state"] = state
            if epoch is None:   # no checkpoint to hold it to: the znode is the only record
                epoch = state["leader_epoch"]
            if state["leader"] != b or state["leader_epoch"] != epoch:
                raise AssertionError(f"ZooKeeper says {state}, broker {b}'s checkpoint says epoch {epoch}")

    with rec.step("restart_isr_member", broker=a):
        c.start_node(a)
        c.wait_fully_replicated()

    return {"unclean": {"topic": UNCLEAN_TOPIC, "partition": 0, "leader": b, "leader_epoch": epoch,
                        "previous_isr": [a], "replicas": [a, b]}}


# ---------------------------------------------------------------- the operations history

OPS_TOPICS = {
    # RF 3 on 3 brokers: no partition of these has all its replicas on the two brokers the steps stop.
    "grow": ["--partitions", "2", "--replication-factor", "3"],
    "stuck": ["--partitions", "2", "--replication-factor", "3"],
}
FRAGILE_TOPIC = "fragile"
ELR_FEATURE = "eligible.leader.replicas.version"
GROWN_PARTITIONS = 4


def run_ops(c: Cluster, rec: Recorder) -> dict:
    """What operators do besides the main history, none of it unclean: partitions added to a topic, a
    topic deleted while one of its replicas' brokers is down (ZooKeeper mode: the deletion waits for
    it, TopicDeletionManager), and a partition whose whole ISR went down, with unclean elections
    disabled: a live replica out of the ISR is not elected (the controller logs the failed election),
    and the partition comes back only with its ISR member. Returns {"unclean": None}, except in KRaft
    with eligible leader replicas on: there, the election Kafka itself marks unclean (the last step)."""
    controller = c.controller_id()
    a, b = [i for i in c.broker_ids if i != controller][:2]
    fragile = f"{FRAGILE_TOPIC}-0"
    with rec.step("create_topics", topics=sorted(OPS_TOPICS), controller=controller) as s:
        for name, args in OPS_TOPICS.items():
            create_topic(c, name, *args)
        c.wait_fully_replicated()
        s["producer"] = {t: produce(c, t, 200) for t in OPS_TOPICS}

    with rec.step("add_partitions", topic="grow", partitions=GROWN_PARTITIONS):
        c.admin("topics", "--alter", "--topic", "grow", "--partitions", str(GROWN_PARTITIONS))
        c.wait_partitions(f"grow to have {GROWN_PARTITIONS} partitions",
                          lambda parts: sum(p["topic"] == "grow" for p in parts.values()) == GROWN_PARTITIONS)
        c.wait_fully_replicated()

    with rec.step("delete_with_replica_down", topic="stuck", broker=a, signal="SIGKILL"):
        c.stop_node(a, signal.SIGKILL)
        c.wait_partitions(f"leaders and ISRs to leave killed broker {a}", not_on(a))
        c.admin("topics", "--delete", "--topic", "stuck")
        # Under way: the live replicas are deleted (StopReplica with delete, or in KRaft the
        # metadata delta), their directories removed or renamed *-delete. In ZooKeeper mode
        # the deletion cannot finish while a is down (TopicDeletionManager).
        stuck = [f"stuck-{p}" for p in range(int(OPS_TOPICS["stuck"][1]))]   # --partitions
        wait_for("the live brokers to delete their replicas of topic stuck", lambda: not any(
            (c.nodes[i].data_dir / d).is_dir() for i in c.live_ids() for d in stuck), timeout=60)

    with rec.step("restart_for_deletion", broker=a):
        c.start_node(a)
        c.wait_partitions("topic stuck to disappear", lambda parts: parts and not any(
            p["topic"] == "stuck" for p in parts.values()))
        c.wait_fully_replicated()

    # Unclean elections explicitly off: the default was true before 0.11 (KIP-106).
    create_pair_topic(c, rec, "fragile_create_topic", FRAGILE_TOPIC, a, b, "false")
    stop_follower(c, rec, "fragile_stop_follower", FRAGILE_TOPIC, a, b)
    stop_last_isr(c, rec, "fragile_stop_isr", FRAGILE_TOPIC, a)

    with rec.step("fragile_restart_out_of_sync", broker=b) as s:
        c.start_node(b)
        c.wait_partitions(f"{b} back in the ISRs, {fragile} still offline", rejoined_but_offline(b, fragile), timeout=120)
        if isinstance(c, ZkCluster):
            s["zk_state"] = c.partition_state(FRAGILE_TOPIC, 0)

    # KIP-966 (KRaft with eligible leader replicas on, the default for new 4.x clusters): a registers
    # after an unclean shutdown, so it leaves the ELR; with the ISR and the ELR empty the controller
    # elects it as the last known leader, which Kafka itself marks unclean (RECOVERING), whatever the
    # topic's config. Without ELR (ZooKeeper mode, KRaft 3.x) a stayed in the ISR: a clean election.
    elr = not isinstance(c, ZkCluster) and eligible_leader_replicas(c)
    epoch_before = c.leader_epoch_checkpoint(a, FRAGILE_TOPIC, 0)
    with rec.step("fragile_restart_isr", broker=a) as s:
        c.start_node(a)
        c.wait_partitions(f"{a} to lead {fragile} again", partition_is(fragile, leader=a), timeout=120)
        if elr:
            s["leader_epoch_checkpoint"] = new_leader_epoch(c, a, FRAGILE_TOPIC, epoch_before)
        c.wait_fully_replicated()

    if not elr:
        return {"unclean": None}
    return {"unclean": {"topic": FRAGILE_TOPIC, "partition": 0, "leader": a, "leader_epoch": s["leader_epoch_checkpoint"],
                        "previous_isr": [], "replicas": [a, b], "why": "last known leader (KIP-966)"}}


# ---------------------------------------------------------------- the ELR history (KRaft only)

GUARDED_TOPIC = "guarded"


def run_elr(c: Cluster, rec: Recorder) -> dict:
    """KIP-966's eligible leader replicas on a real KRaft cluster, none of it unclean. Topic guarded:
    [a, b], min.insync.replicas=2 (its ConfigRecord comes with a ClearElrRecord), unclean elections
    off. b shuts down cleanly, so the ISR falls below min.insync.replicas and b enters the ELR; a is
    killed; when b returns, the controller elects it from the ELR: a clean election. Without ELR
    (KRaft 3.x) b stays out and the partition waits for a, as in ZooKeeper mode. Returns
    {"unclean": None}: nothing here is unclean."""
    controller = c.controller_id()
    a, b = [i for i in c.broker_ids if i != controller][:2]
    key = f"{GUARDED_TOPIC}-0"
    elr = eligible_leader_replicas(c)
    with rec.step("elr_create_topic", topic=GUARDED_TOPIC, replicas=[a, b], controller=controller,
                  eligible_leader_replicas=elr) as s:
        create_topic(c, GUARDED_TOPIC, "--replica-assignment", f"{a}:{b}", "--config", "min.insync.replicas=2",
                     "--config", "unclean.leader.election.enable=false")
        c.wait_partitions(f"{key} led by {a} with ISR [{a}, {b}]", partition_is(key, leader=a, isr=[a, b]))
        s["producer"] = produce(c, GUARDED_TOPIC, 200)

    with rec.step("elr_shutdown_follower", broker=b, signal="SIGTERM"):
        c.stop_node(b, signal.SIGTERM, timeout=90)
        c.wait_partitions(f"{key} ISR to shrink to [{a}]", partition_is(key, leader=a, isr=[a]))

    with rec.step("elr_kill_leader", broker=a, signal="SIGKILL") as s:
        c.stop_node(a, signal.SIGKILL)
        s["note"] = "one voter of three left: the KRaft quorum is lost until the next step"

    with rec.step("elr_restart_follower", broker=b):
        c.start_node(b)
        if elr:
            c.wait_partitions(f"{b} to lead {key} (elected from the ELR)", partition_is(key, leader=b), timeout=120)
        else:
            c.wait_partitions(f"{b} back in the ISRs, {key} still offline", rejoined_but_offline(b, key), timeout=120)

    with rec.step("elr_restart_leader", broker=a):
        c.start_node(a)
        c.wait_fully_replicated()
    return {"unclean": None}


def run_migration(c: Cluster, rec: Recorder) -> dict:
    """A ZooKeeper cluster moved onto a KRaft controller (3.4-3.9, KIP-866) and left in dual write,
    none of it unclean: topic `orders` written, the KRaft controller started (ZkCluster.
    start_migration_controller), every broker restarted with migration on (a rolling restart, each a
    controlled shutdown under the ZooKeeper controller), the metadata migrated and /controller taken
    by the KRaft controller; then, with it deciding, a topic created and a broker killed (-9) and
    restarted. Returns {"unclean": None}."""
    if not isinstance(c, ZkCluster):
        raise ValueError("a migration starts from a ZooKeeper cluster")
    with rec.step("create_topics", topics=["orders"], controller=c.controller_id()) as s:
        create_topic(c, "orders", "--partitions", "2", "--replication-factor", "3")
        c.wait_fully_replicated()
        s["producer"] = {"orders": produce(c, "orders", 500)}
    with rec.step("start_kraft_controller", node=3000):
        c.start_migration_controller(3000)
    for broker in c.broker_ids:
        with rec.step("restart_with_migration", broker=broker, signal="SIGTERM"):
            c.enable_migration(broker)
    with rec.step("metadata_migrated") as s:
        c.wait_migration("the metadata migration to complete", "Completed migration of metadata from ZooKeeper to KRaft")
        c.wait_migration("dual write", "transitioning from KRAFT_CONTROLLER_TO_BROKER_COMM to DUAL_WRITE state")
        c.wait_fully_replicated()
        s["controller"] = c.controller_id()   # /controller: the KRaft controller now
    with rec.step("create_topic_dual_write", topics=["after"]):
        create_topic(c, "after", "--partitions", "1", "--replication-factor", "3")
        c.wait_fully_replicated()
    victim = c.broker_ids[1]
    with rec.step("kill9_broker", broker=victim, signal="SIGKILL"):
        c.stop_node(victim, signal.SIGKILL)
        c.wait_partitions(f"leaders and ISRs to leave killed broker {victim}", not_on(victim))
    with rec.step("restart_killed", broker=victim):
        c.start_node(victim)
        c.wait_fully_replicated()
    return {"unclean": None}


# ---------------------------------------------------------------- the failover history (KRaft only)

LOAD_TOPIC_ARGS = ["--partitions", "2", "--replication-factor", "2"]   # RF 2: creatable while a node is down
LOAD_BATCH = 3   # topics the loop creates before the kill, and again under the new active controller


class TopicLoop:
    """`kafka-topics --create` in a background thread, one topic after another (load-000, load-001,
    ...) until stopped: each attempt kept with its start, end and what the tool said. A name is never
    tried twice, so an attempt the failover fails (its request may still have been committed) is
    followed by a new topic, not a retry."""

    def __init__(self, c: Cluster):
        self.c, self.attempts = c, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="topic-loop", daemon=True)
        self._lock = threading.Lock()

    def _run(self) -> None:
        while not self._stop.is_set():
            topic = f"load-{len(self.attempts):03d}"
            entry = {"topic": topic, "time": now_iso()}
            try:
                proc = self.c.admin("topics", "--create", "--topic", topic, *LOAD_TOPIC_ARGS, timeout=90, check=False)
                said = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
                entry.update(end=now_iso(), created=proc.returncode == 0, said=said[-1][:300] if said else "")
            except subprocess.TimeoutExpired:
                entry.update(end=now_iso(), created=False, said="no answer in 90 s")
            with self._lock:
                self.attempts.append(entry)

    def start(self) -> "TopicLoop":
        self._thread.start()
        return self

    def created_since(self, since: str) -> int:
        with self._lock:
            return sum(1 for a in self.attempts if a["created"] and a["time"] >= since)

    def stop(self) -> list[dict]:
        self._stop.set()
        self._thread.join(timeout=120)
        with self._lock:
            return list(self.attempts)


def quorum_leader(c: Cluster) -> tuple[int, int] | None:
    """(LeaderId, LeaderEpoch) of `kafka-metadata-quorum describe --status`; None while there is none."""
    status = c.quorum_status()
    leader, epoch = int(status.get("LeaderId", "-1")), int(status.get("LeaderEpoch", "-1"))
    return (leader, epoch) if leader >= 0 else None


def run_failover(c: Cluster, rec: Recorder) -> dict:
    """A KRaft active-controller failover under load, none of it unclean: topic `events` (RF 3) led
    across the three combined nodes; a loop creating topics (TopicLoop) started; once it has created
    a few, the quorum leader, the active controller, killed (-9) while the loop runs; a new leader
    elected by the two voters left (the Raft client's transition to Leader at a higher epoch), the
    killed node fenced and dropped from every ISR; the loop goes on under the new active controller
    until it has created a few more, then stops; the killed node restarted and every partition fully
    replicated. Returns {"unclean": None}."""
    if c.mode != "kraft":
        raise ValueError("an active-controller failover is a KRaft quorum's")
    with rec.step("create_topics", topics=["events"]):
        create_topic(c, "events", "--partitions", "3", "--replication-factor", "3")
        c.wait_fully_replicated()

    loop = TopicLoop(c)
    with rec.step("load_before_failover", loop="kafka-topics --create " + " ".join(LOAD_TOPIC_ARGS)) as s:
        since = s["time"]
        loop.start()
        wait_for(f"the loop to create {LOAD_BATCH} topics", lambda: loop.created_since(since) >= LOAD_BATCH, 180)

    killed, epoch_before = wait_for("a KRaft quorum leader", lambda: quorum_leader(c), 60)
    with rec.step("kill9_active_controller", broker=killed, signal="SIGKILL", leader_epoch_before=epoch_before) as s:
        c.stop_node(killed, signal.SIGKILL)
        leader, epoch = wait_for(f"a new quorum leader after {killed} at an epoch above {epoch_before}", lambda: (
            (q := quorum_leader(c)) and q[0] != killed and q[1] > epoch_before and q), 90)
        s.update(new_leader=leader, leader_epoch=epoch)
        c.wait_partitions(f"leaders and ISRs to leave killed node {killed}", not_on(killed))

    with rec.step("load_after_failover", controller=leader) as s:
        since = s["time"]
        try:
            wait_for(f"the loop to create {LOAD_BATCH} topics under controller {leader}",
                     lambda: loop.created_since(since) >= LOAD_BATCH, 180)
        finally:
            s["attempts"] = loop.stop()

    with rec.step("restart_killed", broker=killed) as s:
        c.start_node(killed)
        c.wait_fully_replicated()
        s["quorum_leader"] = dict(zip(("leader", "leader_epoch"), quorum_leader(c)))
    return {"unclean": None}


HISTORIES = {"main": run_all, "ops": run_ops, "elr": run_elr, "migration": run_migration, "failover": run_failover}


def eligible_leader_replicas(c: Cluster) -> bool:
    """KRaft: is KIP-966's eligible.leader.replicas.version finalized at 1 or more? Releases before
    4.0 have no such feature: ELR off."""
    return int(c.finalized_features().get(ELR_FEATURE, "0")) >= 1


def new_leader_epoch(c: Cluster, broker: int, topic: str, before: int | None) -> int:
    """Wait for partition 0 of `topic`'s leader-epoch-checkpoint on `broker` to move past `before`."""
    return wait_for(f"{topic}-0's leader-epoch-checkpoint on broker {broker} to move past {before}",
                    lambda: _newer(c.leader_epoch_checkpoint(broker, topic, 0), before), 60)


def _newer(epoch: int | None, before: int | None) -> int | None:
    if epoch is None or (before is not None and epoch <= before):
        return None
    return epoch if epoch > 0 else None


def parse_final(partitions: dict[str, dict]) -> dict[str, dict]:
    """final_describe of the manifest: {"t-p": {"leader" (-1 = none), "isr", "replicas"}}."""
    return {k: {"leader": p["leader"], "isr": p["isr"], "replicas": p["replicas"]}
            for k, p in sorted(partitions.items())}
