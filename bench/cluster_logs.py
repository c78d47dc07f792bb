"""A Kafka cluster's broker logs as its brokers write them, for benchmarks: every broker's
state-change.log, controller.log and server.log, with the lines of each decision that the
audit does not need besides those it does, and unclean leader elections injected with their
ground truth.

A simulated history (state_machine/generator.py, only the `unclean_election` fault, and
leaders' ISR writes that do not commit) is written by `ingest.render.Renderer` in the forms of
Kafka 2.4.1 at TRACE or 3.9.2 at INFO, and `ClusterLogWriter` adds what the renderer leaves
out, as those releases write it:

- each leader/ISR decision's requests: the controller's LeaderAndIsr request to every live
  replica and its UpdateMetadata request to every live broker (2.4.1 TRACE one line a
  partition, ControllerChannelManager.scala; 3.9.2 INFO one line a request), and each
  broker's side of them (ReplicaManager.scala, MetadataCache.scala: the request received,
  the become-leader or become-follower transition, the fetchers stopped and started, the
  metadata cached; ReplicaFetcherManager's `Removed fetcher` / `Added fetcher` in server.log);
- the failed elections with the stack trace the controller prints with them
  (PartitionStateMachine.scala logFailedStateChange): a partition whose leader fails with no
  other live broker in its ISR, and preferred elections
  an administrator asks for whose preferred replica is out of the ISR
  (KafkaController.scala onReplicaElection);
- in server.log the lines of a broker's own work, most of a real server.log: log segments
  rolled and deleted (2.4.1 Log.scala, 3.9.2 LocalLog.scala and UnifiedLog.scala), producer
  snapshots, the group coordinator's rebalances and offset expiry, replica fetchers' session
  errors, and produce requests closed on an error (KafkaApis.scala: a message of two lines,
  the logger's name at the end of the second).

Files are written as the history streams, a few milliseconds behind it, so memory stays
small whatever the size. Beside the brokers' folders, `injected.truth.jsonl` (which the
audit does not read) holds one row per injected fault: rule, topic, partition, the time of
the controller's decision line (`event_time_ms`, `event_time`), the leader it elected and its
leader epoch. `.corpus.json` (hidden from the audit too) records the parameters and counts.

    .venv/bin/python bench/cluster_logs.py --out bench/data/cluster-2.4.1-600mb --mb 600
    .venv/bin/python bench/cluster_logs.py --out DIR --version 3.9.2 --mb 50 --brokers 6 --topics 200 --partitions 10
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import json
import random
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.render import _list, _ts, _uuid, CONTROLLER, STATE_CHANGE, Renderer  # noqa: E402
from state_machine import events as E  # noqa: E402
from state_machine.events import Event  # noqa: E402
from state_machine.generator import SimConfig, Simulator  # noqa: E402

# The releases written, each with the era it replays in and the log level its brokers run at.
RELEASES = {"2.4.1": ("2.4", "trace"), "3.9.2": ("3.x", "info")}
DATA_DIR = "/var/lib/kafka/data"
FETCHER_MANAGER = "kafka.server.ReplicaFetcherManager"
# At INFO the simulator's history is fewer events a simulated second, as fewer lines are written.
NOISE_PER_S = {"2.4.1": 8.0, "3.9.2": 40.0}


@dataclass
class CorpusConfig:
    out: str
    version: str = "2.4.1"
    mb: float = 600.0
    seed: int = 1
    # Chance per simulated step of an unclean election (the generator's fault_rate).
    unclean_rate: float = 1.0
    # Chance per step of a leader's ISR write that does not commit.
    failed_isr_writes: float = 0.1
    # Chance per step of a preferred election an administrator asks for that fails.
    failed_preferred: float = 0.004
    # A broker's own server.log records per simulated second (None: the release's default,
    # NOISE_PER_S, which makes them most of server.log's lines).
    noise_per_s: float | None = None
    # The share of failed elections written: the simulator takes partitions offline far more
    # often than a real cluster, and every trace is some 25 lines.
    failed_election_share: float = 0.25
    # The cluster: its brokers, and the topics it starts with (the history creates more).
    brokers: int = 6
    topics: int = 200
    partitions: int = 10


# --- the stack traces -----------------------------------------------------------------
# As the real captures show them (data/samples/real/zk-2.4-trace, zk-3.9-info broker-2
# state-change.log) for a broker's failure; an administrator's election enters through
# onReplicaElection instead (KafkaController.scala @2.4.1: 761, 1807, 1866; @3.9: 925, 2248,
# 2606).
_SCALA_FOREACH = {"2.4.1": ("553", "551", "921"), "3.9.2": ("619", "617", "935")}
_STATE_MACHINE = {   # doElectLeaderForPartitions$7, doElectLeaderForPartitions, electLeaderForPartitions,
    # doHandleStateChanges, handleStateChanges
    "2.4.1": ("427", "424", "335", "236", "157"), "3.9.2": ("433", "430", "336", "242", "162")}
_BROKER_FAILURE = {
    "2.4.1": ("\tat kafka.controller.PartitionStateMachine.triggerOnlineStateChangeForPartitions(PartitionStateMachine.scala:73)\n"
              "\tat kafka.controller.PartitionStateMachine.triggerOnlinePartitionStateChange(PartitionStateMachine.scala:58)\n"
              "\tat kafka.controller.KafkaController.onReplicasBecomeOffline(KafkaController.scala:510)\n"
              "\tat kafka.controller.KafkaController.onBrokerFailure(KafkaController.scala:478)\n"
              "\tat kafka.controller.KafkaController.processBrokerChange(KafkaController.scala:1453)\n"
              "\tat kafka.controller.KafkaController.process(KafkaController.scala:1878)\n"),
    "3.9.2": ("\tat kafka.controller.PartitionStateMachine.triggerOnlineStateChangeForPartitions(PartitionStateMachine.scala:76)\n"
              "\tat kafka.controller.PartitionStateMachine.triggerOnlinePartitionStateChange(PartitionStateMachine.scala:61)\n"
              "\tat kafka.controller.KafkaController.onReplicasBecomeOffline(KafkaController.scala:673)\n"
              "\tat kafka.controller.KafkaController.onBrokerFailure(KafkaController.scala:643)\n"
              "\tat kafka.controller.KafkaController.processBrokerChange(KafkaController.scala:1660)\n"
              "\tat kafka.controller.KafkaController.process(KafkaController.scala:2620)\n"),
}
_ADMIN_ELECTION = {
    "2.4.1": ("\tat kafka.controller.KafkaController.onReplicaElection(KafkaController.scala:761)\n"
              "\tat kafka.controller.KafkaController.processReplicaLeaderElection(KafkaController.scala:1807)\n"
              "\tat kafka.controller.KafkaController.process(KafkaController.scala:1866)\n"),
    "3.9.2": ("\tat kafka.controller.KafkaController.onReplicaElection(KafkaController.scala:925)\n"
              "\tat kafka.controller.KafkaController.processReplicaLeaderElection(KafkaController.scala:2248)\n"
              "\tat kafka.controller.KafkaController.process(KafkaController.scala:2606)\n"),
}
_EVENT_THREAD = {
    "2.4.1": ("\tat kafka.controller.QueuedEvent.process(ControllerEventManager.scala:53)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.$anonfun$doWork$1(ControllerEventManager.scala:137)\n"
              "\tat scala.runtime.java8.JFunction0$mcV$sp.apply(JFunction0$mcV$sp.scala:18)\n"
              "\tat kafka.metrics.KafkaTimer.time(KafkaTimer.scala:31)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.doWork(ControllerEventManager.scala:137)\n"
              "\tat kafka.utils.ShutdownableThread.run(ShutdownableThread.scala:96)\n"),
    "3.9.2": ("\tat kafka.controller.QueuedEvent.process(ControllerEventManager.scala:54)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.process$1(ControllerEventManager.scala:138)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.$anonfun$doWork$1(ControllerEventManager.scala:141)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.$anonfun$doWork$1$adapted(ControllerEventManager.scala:141)\n"
              "\tat com.yammer.metrics.core.Timer.time(Timer.java:91)\n"
              "\tat kafka.controller.ControllerEventManager$ControllerEventThread.doWork(ControllerEventManager.scala:141)\n"
              "\tat org.apache.kafka.server.util.ShutdownableThread.run(ShutdownableThread.java:136)\n"),
}


def election_failure_trace(version: str, tp: str, strategy: str, admin: bool) -> str:
    """The StateChangeFailedException a failed election logs, as `version` prints it."""
    a, b, c = _SCALA_FOREACH[version]
    s7, s_do, s_elect, s_handle, s_handles = _STATE_MACHINE[version]
    return (f"kafka.common.StateChangeFailedException: Failed to elect leader for partition {tp} under strategy {strategy}\n"
            f"\tat kafka.controller.ZkPartitionStateMachine.$anonfun$doElectLeaderForPartitions$7(PartitionStateMachine.scala:{s7})\n"
            f"\tat scala.collection.IterableOnceOps.foreach(IterableOnce.scala:{a})\n"
            f"\tat scala.collection.IterableOnceOps.foreach$(IterableOnce.scala:{b})\n"
            f"\tat scala.collection.AbstractIterable.foreach(Iterable.scala:{c})\n"
            f"\tat kafka.controller.ZkPartitionStateMachine.doElectLeaderForPartitions(PartitionStateMachine.scala:{s_do})\n"
            f"\tat kafka.controller.ZkPartitionStateMachine.electLeaderForPartitions(PartitionStateMachine.scala:{s_elect})\n"
            f"\tat kafka.controller.ZkPartitionStateMachine.doHandleStateChanges(PartitionStateMachine.scala:{s_handle})\n"
            f"\tat kafka.controller.ZkPartitionStateMachine.handleStateChanges(PartitionStateMachine.scala:{s_handles})\n"
            + (_ADMIN_ELECTION if admin else _BROKER_FAILURE)[version] + _EVENT_THREAD[version])


class ClusterLogWriter(Renderer):
    """A Renderer that streams its files to `out` (each file's records in time order, written
    once the history has moved past them) and writes the lines of each decision, the failed
    elections and the brokers' own server.log lines that the Renderer leaves out."""

    def __init__(self, cfg: CorpusConfig, rng: random.Random) -> None:
        super().__init__(cfg.version)
        self.version, self.rng, self.root = cfg.version, rng, Path(cfg.out)
        self.trace = RELEASES[cfg.version][1] == "trace"
        self.heaps: dict[str, list] = defaultdict(list)
        self.handles: dict[str, object] = {}
        self.order = itertools.count()
        self.bytes = self.lines = 0
        self.request_id: dict[int, int] = defaultdict(int)   # each controller's correlation ids
        self.noise_per_ms = (cfg.noise_per_s if cfg.noise_per_s is not None else NOISE_PER_S[cfg.version]) / 1000
        self.noise_until = None
        self.offsets: dict[str, int] = defaultdict(int)
        self.counts: dict[str, int] = defaultdict(int)
        self.brokers = list(range(1, cfg.brokers + 1))
        self._keys: list = []

    # --- streaming ---------------------------------------------------------------------

    def _write(self, broker: int, file: str, ms: int, level: str, message: str, logger: str, extra: str = "") -> None:
        heapq.heappush(self.heaps[f"broker-{broker}/{file}"],
                       (ms, next(self.order), f"[{_ts(ms)}] {level} {message} ({logger})\n{extra}"))

    def flush(self, before_ms: float) -> None:
        """Write every record older than `before_ms` (nothing later can come before it)."""
        for name, heap in self.heaps.items():
            if not heap or heap[0][0] >= before_ms:
                continue
            out = self.handles.get(name)
            if out is None:
                path = self.root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                out = self.handles[name] = open(path, "w", buffering=1 << 20)
            chunk = []
            while heap and heap[0][0] < before_ms:
                chunk.append(heapq.heappop(heap)[2])
            text = "".join(chunk)
            out.write(text)
            self.bytes += len(text)
            self.lines += text.count("\n")

    def close(self) -> None:
        self.flush(float("inf"))
        for out in self.handles.values():
            out.close()

    def feed(self, e: Event) -> None:
        self.flush(e.event_time_ms)
        self._server_noise(e.event_time_ms)
        super().feed(e)
        if e.event_type in (E.PARTITION_STATE_CHANGE, E.LEADER_AND_ISR) and e.to_state in (None, "OnlinePartition") \
                and e.leader is not None and e.leader >= 0 and not self._stale(e):
            self._requests(e)

    def _stale(self, e: Event) -> bool:
        return e.controller_epoch is not None and e.controller_epoch < self.controller[1]

    # --- a decision's requests ---------------------------------------------------------

    def _send_leader_and_isr(self, e: Event, tp: str, zk: int) -> None:
        """The requests of a LeaderAndIsr decision are written by _requests, one per live replica."""

    def _requests(self, e: Event) -> None:
        key = (e.topic, e.partition)
        tp = f"{e.topic}-{e.partition}"
        zk = self.zk_version[key] - 1
        cid, epoch = self.controller
        replicas = list(e.replicas or self.assignment.get(key, []))
        live = sorted(self.live)
        to = [r for r in replicas if r in self.live]
        t = e.event_time_ms
        leader = e.leader
        self.request_id[cid] += 1
        lai_id = self.request_id[cid]
        self.request_id[cid] += 1
        um_id = self.request_id[cid]
        fields = self._fields(e, zk)
        offline = [r for r in replicas if r not in self.live]
        um_state = (f"UpdateMetadataPartitionState(topicName='{e.topic}', partitionIndex={e.partition}, "
                    f"controllerEpoch={fields['controller_epoch']}, leader={leader}, leaderEpoch={e.leader_epoch}, "
                    f"isr=[{fields['isr_list']}], zkVersion={zk}, replicas=[{fields['replicas_list']}], "
                    f"offlineReplicas=[{_list(offline)}])")
        offset = self.offsets[tp] = self.offsets[tp] + self.rng.randint(0, 5000)
        endpoint = f"BrokerEndPoint(id={leader}, host=10.0.0.{leader}:9092)"
        if self.trace:   # 2.4.1: ControllerChannelManager.scala, ReplicaManager.scala, MetadataCache.scala at TRACE
            state = self.forms["partition_state"].format(**fields)
            for r in to:
                role = "become-leader" if r == leader else "become-follower"
                self._sc(e, f"Sending {role} LeaderAndIsr request {state} to broker {r} for partition {tp}")
            self._sc(e, f"Sending UpdateMetadata request {um_state} to brokers HashSet({_list(live)}) for partition {tp}")
            request = f"from controller {cid} epoch {epoch} with correlation id {lai_id}"
            for r in to:
                b = f"[Broker id={r}] "
                self._write(r, "state-change.log", t + 1, "TRACE", f"{b}Received LeaderAndIsr request {state} correlation id "
                            f"{lai_id} from controller {cid} epoch {epoch}", STATE_CHANGE)
                if r == leader:
                    for message in (f"Handling LeaderAndIsr request correlationId {lai_id} from controller {cid} epoch {epoch} "
                                    f"starting the become-leader transition for partition {tp}",
                                    f"Stopped fetchers as part of become-leader request {request} for partition {tp} "
                                    f"(last update controller epoch {epoch})",
                                    f"Completed LeaderAndIsr request correlationId {lai_id} from controller {cid} epoch {epoch} "
                                    f"for the become-leader transition for partition {tp}"):
                        self._write(r, "state-change.log", t + 1, "TRACE", b + message, STATE_CHANGE)
                else:
                    for message in (f"Handling LeaderAndIsr request correlationId {lai_id} from controller {cid} epoch {epoch} "
                                    f"starting the become-follower transition for partition {tp} with leader {leader}",
                                    f"Stopped fetchers as part of become-follower request {request} for partition {tp} "
                                    f"with leader {leader}",
                                    f"Truncated logs and checkpointed recovery boundaries for partition {tp} as part of "
                                    f"become-follower request with correlation id {lai_id} from controller {cid} epoch {epoch} "
                                    f"with leader {leader}",
                                    f"Started fetcher to new leader as part of become-follower request {request} for "
                                    f"partition {tp} with leader {endpoint}",
                                    f"Completed LeaderAndIsr request correlationId {lai_id} from controller {cid} epoch {epoch} "
                                    f"for the become-follower transition for partition {tp} with leader {leader}"):
                        self._write(r, "state-change.log", t + 2, "TRACE", b + message, STATE_CHANGE)
            for r in live:
                self._write(r, "state-change.log", t + 3, "TRACE", f"[Broker id={r}] Cached leader info {um_state} for partition "
                            f"{tp} in response to UpdateMetadata request sent by controller {cid} epoch {epoch} with "
                            f"correlation id {um_id}", STATE_CHANGE)
            added = f"{endpoint} for partitions Map({tp} -> (offset={offset}, leaderEpoch={e.leader_epoch}))"
        else:   # 3.9.2: the same requests at INFO, one line a request
            for r in to:
                leading = int(r == leader)
                self._sc(e, f"Sending LeaderAndIsr request to broker {r} with {leading} become-leader and {1 - leading} "
                            f"become-follower partitions", "INFO")
            self._sc(e, f"Sending UpdateMetadata request to brokers HashSet({_list(live)}) for 1 partitions", "INFO")
            for r in to:
                b = f"[Broker id={r}] "
                self._write(r, "state-change.log", t + 1, "INFO", f"{b}Handling LeaderAndIsr request correlationId {lai_id} "
                            f"from controller {cid} for 1 partitions", STATE_CHANGE)
                self._write(r, "state-change.log", t + 1, "INFO", b + (
                    f"Stopped fetchers as part of LeaderAndIsr request correlationId {lai_id} from controller {cid} epoch "
                    f"{epoch} as part of the become-leader transition for 1 partitions" if r == leader else
                    f"Stopped fetchers as part of become-follower request from controller {cid} epoch {epoch} with "
                    f"correlation id {lai_id} for 1 partitions"), STATE_CHANGE)
                self._write(r, "state-change.log", t + 4, "INFO", f"{b}Finished LeaderAndIsr request in "
                            f"{self.rng.randint(1, 40)}ms correlationId {lai_id} from controller {cid} for 1 partitions",
                            STATE_CHANGE)
            for r in live:
                self._write(r, "state-change.log", t + 5, "INFO", f"[Broker id={r}] Add 1 partitions and deleted 0 partitions "
                            f"from metadata cache in response to UpdateMetadata request sent by controller {cid} epoch {epoch} "
                            f"with correlation id {um_id}", STATE_CHANGE)
            added = (f"{leader} for partitions Map({tp} -> InitialFetchState(Some({_uuid(e.topic)}),{endpoint},"
                     f"{e.leader_epoch},{offset}))")
        for r in to:   # ReplicaFetcherManager (AbstractFetcherManager.scala)
            self._write(r, "server.log", t + 2, "INFO", f"[ReplicaFetcherManager on broker {r}] Removed fetcher for partitions "
                        f"Set({tp})", FETCHER_MANAGER)
            if r != leader:
                self._write(r, "server.log", t + 2, "INFO", f"[ReplicaFetcherManager on broker {r}] Added fetcher to broker "
                            f"{added}", FETCHER_MANAGER)
        self.counts["decisions"] += 1

    # --- failed elections --------------------------------------------------------------

    def failed_election(self, ms: int, topic: str, partition: int, from_state: str, strategy: str, admin: bool) -> None:
        """The controller's ERROR line of an election that found no leader, with its trace."""
        cid, epoch = self.controller
        tp = f"{topic}-{partition}"
        e = Event(cluster="", seq=0, event_time_ms=ms, event_type=E.STATE_CHANGE_FAILED, topic=topic, partition=partition)
        self._sc(e, f"Controller {cid} epoch {epoch} failed to change state for partition {tp} from {from_state} to "
                    f"OnlinePartition", "ERROR", election_failure_trace(self.version, tp, strategy, admin))
        self.counts["failed_elections"] += 1

    def admin_preferred_election(self, ms: int, topic: str, partition: int) -> None:
        """An administrator's preferred election (kafka-leader-election.sh) its preferred replica cannot win."""
        cid = self.controller[0]
        self._write(cid, "controller.log", ms, "INFO", f"[Controller id={cid}] Starting replica leader election (PREFERRED) for "
                    f"partitions {topic}-{partition} triggered by AdminClientTriggered", CONTROLLER)
        self.failed_election(ms, topic, partition, "OnlinePartition", "PreferredReplicaPartitionLeaderElectionStrategy", True)
        self.counts["failed_preferred"] += 1

    # --- a broker's own work -----------------------------------------------------------

    def _server_noise(self, now: int) -> None:
        """Each live broker's unrelated server.log lines between the last event and `now`."""
        start = self.noise_until if self.noise_until is not None else now
        self.noise_until = now
        span = now - start
        if span <= 0 or not self.assignment:
            return
        rng = self.rng
        for b in sorted(self.live):
            n = span * self.noise_per_ms
            k = int(n) + (rng.random() < n - int(n))
            for _ in range(k):
                self._noise_line(b, start + rng.randint(1, span))

    def _noise_line(self, b: int, ms: int) -> None:
        rng = self.rng
        topic, partition = self._any_partition()
        tp = f"{topic}-{partition}"
        kind = rng.random()
        v2 = self.version == "2.4.1"
        offset = self.offsets[tp] = self.offsets[tp] + rng.randint(1000, 200_000)
        log_ident = f"[Log partition={tp}, dir={DATA_DIR}] " if v2 else f"[LocalLog partition={tp}, dir={DATA_DIR}] "
        if kind < 0.30:   # a segment rolled and its producer snapshot (Log.roll / LocalLog.roll)
            self._write(b, "server.log", ms, "INFO", f"{log_ident}Rolled new log segment at offset {offset} in {rng.randint(0, 9)} ms.",
                        "kafka.log.Log" if v2 else "kafka.log.LocalLog")
            if v2:
                self._write(b, "server.log", ms, "INFO", f"[ProducerStateManager partition={tp}] Writing producer snapshot at offset "
                            f"{offset}", "kafka.log.ProducerStateManager")
            else:
                self._write(b, "server.log", ms, "INFO", f"[ProducerStateManager partition={tp}] Wrote producer snapshot at offset "
                            f"{offset} with 0 producer ids in {rng.randint(1, 9)} ms.",
                            "org.apache.kafka.storage.internals.log.ProducerStateManager")
        elif kind < 0.55:   # retention: the oldest segment deleted (Log.deleteOldSegments / UnifiedLog)
            base = max(offset - rng.randint(1_000_000, 5_000_000), 0)
            modified = ms - 604_800_000 - rng.randint(1, 3_600_000)
            if v2:
                segment = f"LogSegment(baseOffset={base}, size=1073741824, lastModifiedTime={modified}, largestTime={modified})"
                for message in (f"Found deletable segments with base offsets [{base}] due to retention time 604800000ms breach",
                                f"Scheduling segments for deletion List({segment})",
                                f"Incrementing log start offset to {base + rng.randint(100_000, 900_000)}",
                                f"Deleting segments List({segment})"):
                    self._write(b, "server.log", ms, "INFO", log_ident + message, "kafka.log.Log")
            else:
                segment = (f"LogSegment(baseOffset={base}, size=1073741824, lastModifiedTime={modified}, "
                           f"largestRecordTimestamp={modified})")
                unified = f"[UnifiedLog partition={tp}, dir={DATA_DIR}] "
                self._write(b, "server.log", ms, "INFO", f"{unified}Deleting segment {segment} due to log retention time 604800000ms "
                            f"breach based on the largest record timestamp in the segment", "kafka.log.UnifiedLog")
                self._write(b, "server.log", ms, "INFO", f"{unified}Incremented log start offset to "
                            f"{base + rng.randint(100_000, 900_000)} due to segment deletion", "kafka.log.UnifiedLog")
                self._write(b, "server.log", ms, "INFO", f"{log_ident}Deleting segment files {segment}", "kafka.log.LocalLog$")
                self._write(b, "server.log", ms, "INFO", f"Deleted producer state snapshot {DATA_DIR}/{tp}/{base:020d}.snapshot.deleted",
                            "org.apache.kafka.storage.internals.log.SnapshotFile")
        elif kind < 0.80:   # a consumer group's rebalance (GroupCoordinator.scala)
            group = f"consumer-group-{rng.randint(1, 300)}"
            generation = rng.randint(1, 5000)
            offsets_partition = hash(group) % 50
            member = f"consumer-{group}-{rng.randint(1, 9)}-{_uuid(str(ms))[:8]}"
            where = f"(__consumer_offsets-{offsets_partition})"
            g = f"[GroupCoordinator {b}]: "
            coordinator = "kafka.coordinator.group.GroupCoordinator"
            self._write(b, "server.log", ms, "INFO", f"{g}Preparing to rebalance group {group} in state PreparingRebalance with old "
                        f"generation {generation} {where} (reason: Adding new member {member} with group instance id None"
                        + (")" if v2 else "; client reason: rebalance failed due to MemberIdRequiredException)"), coordinator)
            members = rng.randint(1, 12)
            self._write(b, "server.log", ms + 3, "INFO", f"{g}Stabilized group {group} generation {generation + 1} {where}"
                        + ("" if v2 else f" with {members} members"), coordinator)
            self._write(b, "server.log", ms + 5, "INFO", (
                f"{g}Assignment received from leader for group {group} for generation {generation + 1}" if v2 else
                f"{g}Assignment received from leader {member} for group {group} for generation {generation + 1}. The group "
                f"has {members} members, 0 of which are static."), coordinator)
        elif kind < 0.88:   # offset expiry (GroupMetadataManager.cleanupGroupMetadata)
            self._write(b, "server.log", ms, "INFO", f"[GroupMetadataManager brokerId={b}] Removed 0 expired offsets in "
                        f"{rng.randint(0, 4)} milliseconds.", "kafka.coordinator.group.GroupMetadataManager")
        elif kind < 0.95:   # a replica fetcher's session lost (FetchSessionHandler)
            leader = rng.choice([x for x in self.brokers if x != b] or [b])
            self._write(b, "server.log", ms, "INFO", f"[ReplicaFetcher replicaId={b}, leaderId={leader}, fetcherId=0] Error sending "
                        f"fetch request (sessionId={rng.randint(1, 2**31)}, epoch={rng.randint(1, 9000)}) to node {leader}: "
                        f"java.io.IOException: Connection to {leader} was disconnected before the response was read.",
                        "org.apache.kafka.clients.FetchSessionHandler")
        else:   # a produce request with acks=0 that failed (KafkaApis.handleProduceRequest), a continuation line
            error = ("org.apache.kafka.common.errors.NotLeaderForPartitionException" if v2 else
                     "org.apache.kafka.common.errors.NotLeaderOrFollowerException")
            self._write(b, "server.log", ms, "INFO", f"[KafkaApi-{b}] Closing connection due to error during produce request with "
                        f"correlation id {rng.randint(1, 10**7)} from client id producer-{rng.randint(1, 40)} with ack=0\n"
                        f"Topic and partition to exceptions: {tp} -> {error}", "kafka.server.KafkaApis")
        self.counts["noise_records"] += 1

    def _any_partition(self):
        keys = self._keys
        if len(keys) != len(self.assignment):
            keys = self._keys = list(self.assignment)
        return keys[self.rng.randrange(len(keys))]


class _Stepping(Simulator):
    """The simulator, with None after each step's events: the step is done, its partitions as it left them."""

    def _drain_out(self):
        yield from super()._drain_out()
        yield None


def _failures_after(sim: Simulator, step: list[Event], writer: ClusterLogWriter, offline: set, share: float) -> None:
    """A partition whose ISR has no live broker when its leader goes: the controller's
    election fails (onReplicasBecomeOffline -> triggerOnlinePartitionStateChange), written
    after the step's own lines. The controller retries every offline partition at each later
    broker change and failover, failing again; those retries are left out, or the traces of a
    few partitions offline for long would fill the controller's log, and of the first failures
    only `share` are written (the others the audit infers). `offline` holds the
    partitions offline before the step, and is updated."""
    now = {key for key, rp in sim.models.items() if rp.state.value == "OfflinePartition" and not rp.deleting}
    if any(e.event_type in (E.BROKER_FAILURE, E.CONTROLLER_FAILOVER) for e in step):
        ms = step[-1].event_time_ms
        for topic, partition in sorted(now - offline):
            if writer.rng.random() < share:
                writer.failed_election(ms, topic, partition, "OfflinePartition", "OfflinePartitionLeaderElectionStrategy(false)", False)
    offline.clear()
    offline.update(now)


def _failed_preferred(sim: Simulator, ms: int, writer: ClusterLogWriter) -> None:
    """An administrator's preferred election of a partition whose preferred replica is out of its ISR."""
    cands = [key for key, rp in sim.models.items() if rp.state.value == "OnlinePartition" and not rp.deleting and rp.replicas
             and rp.leader != rp.replicas[0] and rp.replicas[0] not in rp.isr]
    if cands:
        topic, partition = cands[sim.rng.randrange(len(cands))] if len(cands) > 1 else cands[0]
        writer.admin_preferred_election(ms, topic, partition)


def generate(cfg: CorpusConfig) -> dict:
    """Write the corpus; return its counts (also in `.corpus.json`)."""
    era, level = RELEASES[cfg.version]
    root = Path(cfg.out)
    root.mkdir(parents=True, exist_ok=True)
    sim = _Stepping(SimConfig(cluster=root.name, era=era, brokers=cfg.brokers, topics=cfg.topics, partitions=cfg.partitions,
                              steps=10**12, seed=cfg.seed, log_level=level, faults={"unclean_election": 10**9},
                              fault_rate=cfg.unclean_rate, failed_isr_writes=cfg.failed_isr_writes))
    rng = random.Random(cfg.seed + 1)
    writer = ClusterLogWriter(cfg, rng)
    target = cfg.mb * 1_000_000
    injected = 0
    offline: set = set()
    t0 = time.perf_counter()
    events = 0
    with open(root / "injected.truth.jsonl", "w") as truth:
        step: list[Event] = []
        for e in sim.run():
            if e is not None:
                step.append(e)
                writer.feed(e)
                continue
            # The step's end: the simulator's partitions are as the step left them.
            for i in sim.truth[injected:]:
                ev = next(x for x in step if x.seq == i.seq)
                truth.write(json.dumps({"rule": i.rule, "fault": i.fault, "cluster": i.cluster, "topic": i.topic,
                                        "partition": i.partition, "event_time_ms": ev.event_time_ms,
                                        "event_time": _ts(ev.event_time_ms), "leader": ev.leader,
                                        "leader_epoch": ev.leader_epoch}) + "\n")
            injected = len(sim.truth)
            events += len(step)
            if step:
                _failures_after(sim, step, writer, offline, cfg.failed_election_share)
                if rng.random() < cfg.failed_preferred:
                    _failed_preferred(sim, step[-1].event_time_ms + 1, writer)
            step = []
            if writer.bytes >= target:
                break
    writer.close()
    stats = {"config": asdict(cfg), "events": events, "injected": injected, "bytes": writer.bytes, "lines": writer.lines,
             "files": len(writer.handles), "seconds": round(time.perf_counter() - t0, 1), **writer.counts}
    (root / ".corpus.json").write_text(json.dumps(stats, indent=1) + "\n")
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", choices=sorted(RELEASES), default="2.4.1")
    ap.add_argument("--mb", type=float, default=600.0, help="stop once this many megabytes (10^6 bytes) are written")
    for name in ("seed", "brokers", "topics", "partitions"):
        ap.add_argument(f"--{name}", type=int, default=getattr(CorpusConfig, name))
    for name in ("unclean_rate", "failed_isr_writes", "failed_preferred", "noise_per_s", "failed_election_share"):
        ap.add_argument(f"--{name.replace('_', '-')}", type=float, default=getattr(CorpusConfig, name))
    args = ap.parse_args()
    stats = generate(CorpusConfig(**vars(args)))
    print(json.dumps({k: v for k, v in stats.items() if k != "config"}))


if __name__ == "__main__":
    main()
