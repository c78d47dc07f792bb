"""Canonical events -> the files a Kafka cluster leaves, for benchmarks and round-trip tests:
a simulated history with injected faults, written the way real brokers would, must audit to
exactly the injected faults. The parsers never call this; it follows Kafka's own format
strings independently of their regexes.

- `render`: a ZooKeeper cluster's logs as 0.8.2.2, 0.10.2.2, 1.0.2, 2.4.1, 2.8.2, 3.2.3, 3.4.1 or 3.9.2 write
  them (stock log4j layout; spec kafka-log-formats §0 families A-G, §2.3-§2.7, §3, §3.5; the 3.9.2 forms
  are those of this project's live captures). Files go where Kafka writes them: the controller's decisions
  and the inputs it reacted to in its own state-change.log and controller.log, a leader's ISR
  changes in its server.log. Which events there are is the generator's log level.
- `render_kraft`: a KRaft cluster's `__cluster_metadata` log as `kafka-dump-log.sh
  --cluster-metadata-decoder` prints it in 4.x (§4.1-4.2), the same log on every node."""
from __future__ import annotations

import base64
import hashlib
import json
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from state_machine import events as E
from state_machine.events import Event

# The releases written, each with its format family (spec §0): A (0.8.1-0.11), B (1.0), C (1.1-2.5),
# D (2.6-3.1), E (3.2), F (3.3-3.4), G (3.5-3.9).
FAMILY = {"0.8.2.2": "A", "0.10.2.2": "A", "1.0.2": "B", "2.4.1": "C", "2.8.2": "D", "3.2.3": "E", "3.4.1": "F",
          "3.9.2": "G"}
VERSIONS = tuple(FAMILY)

# The values whose form a family changes, as Kafka's toString / format strings print them (spec
# §2.2, §2.6, §2.7); `Renderer._fields` fills them. A family not named has no such line.
_STATE_HEAD = ("LeaderAndIsrPartitionState(topicName='{topic}', partitionIndex={partition}, controllerEpoch={controller_epoch}, "
               "leader={leader}, leaderEpoch={leader_epoch}, isr=[{isr_list}], ")
_STATE_TAIL = "={zk}, replicas=[{replicas_list}], addingReplicas=[], removingReplicas=[], isNew=false"
_LEADER_AND_ISR_1_1 = "LeaderAndIsr(leader={leader}, leaderEpoch={leader_epoch}, isr=List({isr_list}), zkVersion={zk})"
_LEADER_STARTS_2_6 = ("Leader {tp} starts at leader epoch {leader_epoch} from offset 0 with high watermark 0 ISR [{isr}] "
                      "addingReplicas [] removingReplicas []. Previous leader epoch was {previous_epoch}.")
_FOLLOWER_STARTS_2_6 = ("Follower {tp} starts at leader epoch {leader_epoch} from offset 0 with high watermark 0. "
                        "Previous leader epoch was {previous_epoch}.")
FORMS = {
    # LeaderAndIsr.toString, in a controller's `Changed partition t-0 from .. to OnlinePartition with state ..`
    "leader_and_isr": {
        "C": _LEADER_AND_ISR_1_1,
        "D": _LEADER_AND_ISR_1_1,
        "E": "LeaderAndIsr(leader={leader}, leaderEpoch={leader_epoch}, isr=List({isr_list}), "
             "leaderRecoveryState={recovery}, zkVersion={zk})",
        "F": "LeaderAndIsr(leader={leader}, leaderEpoch={leader_epoch}, isr=List({isr_list}), "
             "leaderRecoveryState={recovery}, partitionEpoch={zk})",
        "G": "LeaderAndIsr(leader={leader}, leaderEpoch={leader_epoch}, isrWithBrokerEpoch=List({isr_broker_states}), "
             "leaderRecoveryState={recovery}, partitionEpoch={zk})",
    },
    # The partition's state in the controller's `Sending become-leader LeaderAndIsr request ..`: <= 0.11
    # LeaderIsrAndControllerEpoch, 1.0-2.3 PartitionState, 2.4+ the generated LeaderAndIsrPartitionState
    # (3.2 adds leaderRecoveryState, 3.3 renames zkVersion to partitionEpoch).
    "partition_state": {
        "A": "(Leader:{leader},ISR:{isr},LeaderEpoch:{leader_epoch},ControllerEpoch:{controller_epoch})",
        "B": "PartitionState(controllerEpoch={controller_epoch}, leader={leader}, leaderEpoch={leader_epoch}, "
             "isr={isr}, zkVersion={zk}, replicas={replicas}, isNew=false)",
        "C": _STATE_HEAD + "zkVersion" + _STATE_TAIL + ")",
        "D": _STATE_HEAD + "zkVersion" + _STATE_TAIL + ")",
        "E": _STATE_HEAD + "zkVersion" + _STATE_TAIL + ", leaderRecoveryState={recovery_value})",
        "F": _STATE_HEAD + "partitionEpoch" + _STATE_TAIL + ", leaderRecoveryState={recovery_value})",
        "G": _STATE_HEAD + "partitionEpoch" + _STATE_TAIL + ", leaderRecoveryState={recovery_value})",
    },
    # A leader's committed ISR change (server.log): 2.4 its ZK write, 2.7-2.8 the AlterIsr answer,
    # 3.x the AlterPartition answer (3.5+: "" or "(under-min-isr)" between two spaces).
    "isr_updated": {
        "C": "ISR updated to [{isr}] and zkVersion updated to [{zk}]",
        "D": "ISR updated to {isr} and version updated to [{zk}]",
        "E": "ISR updated to {isr} and version updated to {zk}",
        "F": "ISR updated to {isr} and version updated to {zk}",
        "G": "ISR updated to {isr}  and version updated to {zk}",
    },
    # Partition.makeLeader / makeFollower for a new leader epoch: 0.11-2.3 and 2.4-2.5 forms in the
    # leader's server.log, 2.6-3.2, 3.3-3.4 and 3.6+ forms in state.change.logger (a 3.6+ follower's
    # "Previous leader .." shows the new values, set before printed: KAFKA-19776).
    "leader_starts": {
        "B": "{tp} starts at Leader Epoch {leader_epoch} from offset 0. Previous Leader Epoch was: {previous_epoch}",
        "C": "{tp} starts at leader epoch {leader_epoch} from offset 0 with high watermark 0. Previous leader epoch was "
             "{previous_epoch}.",
        "D": _LEADER_STARTS_2_6,
        "E": _LEADER_STARTS_2_6,
        "F": "Leader {tp} with topic id Some({topic_id}) starts at leader epoch {leader_epoch} from offset 0 with "
             "partition epoch {zk}, high watermark 0, ISR [{isr}], adding replicas [] and removing replicas []. "
             "Previous leader epoch was {previous_epoch}.",
        "G": "Leader {tp} with topic id Some({topic_id}) starts at leader epoch {leader_epoch} from offset 0 with "
             "partition epoch {zk}, high watermark 0, ISR [{isr}], adding replicas [] and removing replicas [] . "
             "Previous leader {previous_leader} and previous leader epoch was {previous_epoch}.",
    },
    "follower_starts": {
        "D": _FOLLOWER_STARTS_2_6,
        "E": _FOLLOWER_STARTS_2_6,
        "F": "Follower {tp} starts at leader epoch {leader_epoch} from offset 0 with partition epoch {zk} and high "
             "watermark 0. Current leader is {leader}. Previous leader epoch was {previous_epoch}.",
        "G": "Follower {tp} starts at leader epoch {leader_epoch} from offset 0 with partition epoch {zk} and high "
             "watermark 0. Current leader is {leader}. Previous leader Some({leader}) and previous leader epoch was "
             "{leader_epoch}.",
    },
}
STATE_CHANGE = "state.change.logger"
CONTROLLER = "kafka.controller.KafkaController"
PARTITION = "kafka.cluster.Partition"
UNCLEAN = "unclean.leader.election.enable"


def _ts(ms: int) -> str:
    d = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"


def _ints(xs) -> str:
    return ",".join(str(x) for x in xs)


def _list(xs) -> str:
    return ", ".join(str(x) for x in xs)


def _uuid(name: str) -> str:
    """A stable Kafka Uuid for `name`, as Uuid.toString prints it: 22 url-safe base64 chars."""
    return base64.urlsafe_b64encode(hashlib.sha1(name.encode()).digest()[:16]).decode().rstrip("=")


def _recovering(e: Event) -> bool:
    return e.leader_recovery_state == "RECOVERING"


class Renderer:
    """Feed events in seq order; `files()` gives {relative path: text}."""

    def __init__(self, version: str = "2.4.1") -> None:
        if version not in VERSIONS:
            raise ValueError(f"no renderer for Kafka {version}; one of {VERSIONS}")
        family = self.family = FAMILY[version]
        self.forms = {name: forms.get(family) for name, forms in FORMS.items()}
        self.topic_ids = family in ("D", "E", "F", "G")   # 2.8+: a new topic's assignment carries its id
        self.info = family in ("D", "E", "F", "G")   # 2.6+: a partition's New and Online lines at INFO (KAFKA-8470)
        self.old = family in ("A", "B")   # the controller before 1.1's rewrite ([t,0] in its lines before 1.0)
        self.a = family == "A"   # no logIdent on state-change lines, listener prefixes
        self.v0_8 = version == "0.8.2.2"   # requests logged with their correlation id; ISR expansions name [t,0]
        self.correlation = 0
        # Each file's records with their times: a broker logs a request's effect a few milliseconds
        # after the controller's decision, after lines of decisions made meanwhile.
        self.out: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.assignment: dict[tuple[str, int], list[int]] = {}
        self.controller: tuple[int, int] = (1, 1)   # (id, epoch)
        self.zk_version: dict[tuple[str, int], int] = defaultdict(int)
        # The ISR last written (<= 1.0 leaders log "Shrinking ISR from A to B", the offline
        # selector warns of an unclean election) and the live brokers (the warning names them,
        # each logs its config).
        self.isr: dict[tuple[str, int], list[int]] = {}
        self.live: set[int] = set()
        self.started: dict[tuple[str, int], tuple[int | None, int]] = {}   # 3.x: (leader, epoch) the replicas last started
        self.skipped: dict[str, int] = defaultdict(int)

    def _write(self, broker: int, file: str, ms: int, level: str, message: str, logger: str, extra: str = "") -> None:
        self.out[f"broker-{broker}/{file}"].append((ms, f"[{_ts(ms)}] {level} {message} ({logger})\n{extra}"))

    def _sc(self, e: Event, message: str, level: str = "TRACE", extra: str = "") -> None:
        cid = e.controller_id if e.controller_id is not None else self.controller[0]
        epoch = e.controller_epoch if e.controller_epoch is not None else self.controller[1]
        body = (f"Controller {cid} epoch {epoch} {message[0].lower()}{message[1:]}" if self.a
                else f"[Controller id={cid} epoch={epoch}] {message}")
        self._write(cid, "state-change.log", e.event_time_ms, level, body, STATE_CHANGE, extra)

    def _ctl(self, e: Event, message: str, ident: str | None = None) -> None:
        """A controller.log line: `ident` is a listener's logIdent (<= 0.10) in place of the controller's."""
        cid = self.controller[0]
        prefix = ident or (f"[Controller {cid}]: " if self.a else f"[Controller id={cid}] ")
        self._write(cid, "controller.log", e.event_time_ms, "INFO", prefix + message, CONTROLLER)

    def feed(self, e: Event) -> None:
        if self.old:
            self._warn_unclean(e)
        self._feed(e)
        self._track(e)

    def _feed(self, e: Event) -> None:
        tp = f"{e.topic}-{e.partition}" if e.partition is not None else None
        # The old controller names a partition as TopicAndPartition, its requests as TopicPartition;
        # 1.0.0 made TopicAndPartition print as t-0 too (TopicAndPartition.scala @1.0.0).
        ctp = f"[{e.topic},{e.partition}]" if self.a and e.partition is not None else tp
        key = (e.topic, e.partition)
        t = e.event_type
        if t == E.CONTROLLER_FAILOVER:
            self.controller = (e.controller_id, e.controller_epoch)
            if self.a:   # ZookeeperLeaderElector, to server.log: the controller is the elector's "leader"
                self._write(e.controller_id, "server.log", e.event_time_ms, "INFO",
                            f"{e.controller_id} successfully elected as leader", "kafka.server.ZookeeperLeaderElector")
            else:
                self._ctl(e, f"{e.controller_id} successfully elected as the controller" if self.old else
                          f"{e.controller_id} successfully elected as the controller. Epoch incremented to "
                          f"{e.controller_epoch} and epoch zk version is now {e.controller_epoch}")
            if e.brokers is not None:
                self._ctl(e, f"Currently active brokers in the cluster: Set({_list(e.brokers)})")
            self._ctl(e, f"Broker {e.controller_id} is ready to serve as the new controller with epoch {e.controller_epoch}"
                      if self.a else f"Ready to serve as the new controller with epoch {e.controller_epoch}")
        elif t == E.BROKER_STARTUP:
            self._ctl(e, f"New broker startup callback for {_ints(e.brokers)}")
        elif t == E.BROKER_FAILURE:
            self._ctl(e, f"Broker failure callback for {_ints(e.brokers)}")
        elif t == E.CONTROLLED_SHUTDOWN:
            for b in e.brokers:
                self._ctl(e, f"Shutting down broker {b}")
        elif t in (E.TOPIC_CREATION, E.PARTITION_CREATION):
            self.assignment[key] = list(e.replicas)
            assignment = f"{tp} -> ReplicaAssignment(replicas={_ints(e.replicas)}, addingReplicas=, removingReplicas=)"
            if self.old:
                self._ctl(e, f"New topics: [Set({e.topic})], deleted topics: [Set()], new partition replica assignment "
                             f"[Map({ctp} -> List({_list(e.replicas)}))]",
                          f"[TopicChangeListener on Controller {self.controller[0]}]: " if self.a else None)
            elif self.topic_ids:
                self._ctl(e, f"New topics: [Set({e.topic})], deleted topics: [HashSet()], new partition replica "
                             f"assignment [Set(TopicIdReplicaAssignment({e.topic},Some({_uuid(e.topic)}),Map({assignment})))]")
            else:
                self._ctl(e, f"New topics: [Set({e.topic})], deleted topics: [Set()], new partition replica assignment "
                             f"[Map({assignment})]")
        elif t == E.TOPIC_DELETION:
            # KafkaController.processTopicDeletion; before 0.11 the listener's logIdent, which 0.10.2
            # (ControllerZkListener) writes as `on Controller N`.
            listener = f"on {self.controller[0]}" if self.v0_8 else f"on Controller {self.controller[0]}"
            self._ctl(e, f"Starting topic deletion for topics {e.topic}",
                      f"[DeleteTopicsListener {listener}]: " if self.a else None)
        elif t == E.REASSIGNMENT_START and self.old:
            # Before KIP-455 the controller writes AR = RAR + OAR as a set; the target is what it logs.
            self.assignment[key] = list(e.replicas) + [r for r in self.assignment.get(key, []) if r not in e.replicas]
            self._ctl(e, f"Handling reassignment of partition {ctp} to new replicas {_ints(e.replicas)}")
        elif t == E.REASSIGNMENT_START:
            # KIP-455 (2.4): the controller first writes AR = RAR + OAR with the adding/removing sets.
            old = self.assignment.get(key, [])
            target = list(e.replicas)
            adding = [r for r in target if r not in old]
            removing = [r for r in old if r not in target]
            self.assignment[key] = target + removing
            self._ctl(e, f"Successfully updated assignment of partition {tp} to ReplicaAssignment(replicas="
                         f"{_ints(target + removing)}, addingReplicas={_ints(adding)}, removingReplicas={_ints(removing)})")
        elif t == E.CONFIG_CHANGE and e.config_name == UNCLEAN and \
                (e.config_value or "").lower() == "true" and not self.old:   # 2.3+ logs the change
            self._ctl(e, f"Unclean leader election has been enabled for topic {e.topic}" if e.topic
                      else "Unclean leader election has been enabled by default")
        elif t == E.CONFIG_CHANGE and e.config_name == UNCLEAN and e.topic is None:
            # The broker-wide setting as every live broker's static config shows it, logged at its
            # startup (AbstractConfig.logAll 0.9+, VerifiableProperties before): the only line that
            # says it when it is false.
            for b in sorted(self.live):
                if self.v0_8:
                    for key, value in (("broker.id", b), (UNCLEAN, e.config_value), ("zookeeper.connect", "zk:2181")):
                        self._write(b, "server.log", e.event_time_ms, "INFO", f"Property {key} is overridden to {value}",
                                    "kafka.utils.VerifiableProperties")
                else:
                    self._write(b, "server.log", e.event_time_ms, "INFO",
                                f"KafkaConfig values: \n\tbroker.id = {b}\n\t{UNCLEAN} = {e.config_value}\n"
                                f"\tzookeeper.connect = zk:2181\n", "kafka.server.KafkaConfig")
        elif t == E.REPLICA_LEADER_ELECTION and self.old:
            if (e.election_type or "PREFERRED") == "PREFERRED":   # 2.4 brought admin UNCLEAN elections
                self._ctl(e, f"Starting preferred replica leader election for partitions {ctp}")
            else:
                self.skipped[t] += 1
        elif t == E.REPLICA_LEADER_ELECTION:
            self._ctl(e, f"Starting replica leader election ({e.election_type or 'PREFERRED'}) for partitions {tp} "
                         f"triggered by AdminClientTriggered")
        elif t == E.PARTITION_STATE_CHANGE:
            if e.to_state == "NewPartition":
                self.assignment[key] = list(e.replicas or self.assignment.get(key, []))
                self._sc(e, f"Changed partition {ctp} state from {e.from_state} to NewPartition with assigned replicas "
                            f"{_ints(self.assignment[key])}", "INFO" if self.info else "TRACE")
            elif e.to_state == "OnlinePartition" and e.leader is not None and self.old:
                # 1.0 logs the leader alone; the LeaderAndIsr request it then sends carries the rest.
                zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
                self.zk_version[key] = zk + 1
                self._sc(e, f"Changed partition {ctp} from {e.from_state} to OnlinePartition with leader {e.leader}")
                self._send_leader_and_isr(e, tp, zk)
                self._brokers_start(e, tp, zk)
            elif e.to_state == "OnlinePartition" and e.leader is not None:
                zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
                self.zk_version[key] = zk + 1
                self._sc(e, f"Changed partition {tp} from {e.from_state} to OnlinePartition with state "
                            f"{self.forms['leader_and_isr'].format(**self._fields(e, zk))}", "INFO" if self.info else "TRACE")
                self._brokers_start(e, tp, zk)
            else:
                self._sc(e, f"Changed partition {ctp} state from {e.from_state} to {e.to_state}")
        elif t == E.REPLICA_STATE_CHANGE:
            self._sc(e, f"Changed state of replica {e.replica} for partition {ctp} from {e.from_state} to {e.to_state}")
        elif t == E.LEADER_AND_ISR:
            zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
            self.zk_version[key] = zk + 1
            self._send_leader_and_isr(e, tp, zk)
            self._brokers_start(e, tp, zk)
        elif t == E.ISR_CHANGE:
            zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
            self.zk_version[key] = zk + 1
            # <= 1.0: the leader's INFO proposal (its ZK write, "ISR updated to ...", is TRACE before 2.4);
            # 2.4: that ZK write; 3.x: AlterPartition's answer ("" or " (under-min-isr)" between).
            if self.old:
                self._isr_proposal(e, tp, ctp, key)
            else:
                self._write(e.leader, "server.log", e.event_time_ms, "INFO", self._partition_ident(e.leader, tp, ctp)
                            + self.forms["isr_updated"].format(**self._fields(e, zk)), PARTITION)
        elif t == E.ISR_CHANGE_PROPOSED:
            self._isr_proposal(e, tp, ctp, key)
        elif t == E.ISR_UPDATE_FAILED:
            self._isr_update_failed(e, tp, ctp, key)
        elif t == E.STATE_CHANGE_FAILED:
            cid, epoch = self.controller
            change = f"from {e.from_state} to {e.to_state}"
            if self.old:   # _sc's prefix: 1.0's logIdent, or the "Controller %d epoch %d" these began with before
                msg = (f"Initiated state change of replica {e.replica} for partition {ctp} {change} failed" if e.replica is not None
                       else f"Initiated state change for partition {ctp} {change} failed")
            elif e.replica is not None:
                msg = f"Controller {cid} epoch {epoch} initiated state change of replica {e.replica} for partition {tp} {change} failed"
            else:
                msg = f"Controller {cid} epoch {epoch} failed to change state for partition {tp} {change}"
            self._sc(e, msg, "ERROR", (e.detail + "\n") if e.detail else "")
        else:
            self.skipped[t] += 1   # no line of this release says it (e.g. a topic's ConfigChange to false)

    def _partition_ident(self, broker: int, tp: str, ctp: str) -> str:
        """Partition.scala's logIdent: `Partition [t,0] on broker N: ` to 0.10, `[Partition t-0 broker=N] ` after."""
        return f"Partition {ctp} on broker {broker}: " if self.a else f"[Partition {tp} broker={broker}] "

    def _isr_proposal(self, e: Event, tp: str, ctp: str, key) -> None:
        """A leader's `Shrinking/Expanding ISR from A to B`, before its write (maybeShrinkIsr /
        maybeExpandIsr); 2.2+ shrinks add the offsets (KAFKA-7838); 2.8+ log no expansion before
        its commit."""
        old = self.isr.get(key) or e.isr
        expanding = len(e.isr) > len(old)
        verb = "Expanding" if expanding else "Shrinking"
        if self.a:   # 0.10.2 names the partition [t,0] in a shrink, t-0 in an expansion
            message = f"{verb} ISR for partition {tp if expanding and not self.v0_8 else ctp} from {_ints(old)} to {_ints(e.isr)}"
        elif expanding and self.topic_ids:
            self.skipped[e.event_type] += 1
            return
        elif expanding or self.forms["isr_updated"] is None:   # 1.0.2: before KAFKA-7838
            message = f"{verb} ISR from {_ints(old)} to {_ints(e.isr)}"
        else:
            out = [b for b in old if b not in e.isr]
            message = (f"{verb} ISR from {_ints(old)} to {_ints(e.isr)}. Leader: (highWatermark: 100, endOffset: 120). "
                       "Out of sync replicas: " + " ".join(f"(brokerId: {b}, endOffset: 100)" for b in out) + ".")
        self._write(e.leader, "server.log", e.event_time_ms, "INFO", self._partition_ident(e.leader, tp, ctp) + message,
                    PARTITION)

    def _isr_update_failed(self, e: Event, tp: str, ctp: str, key) -> None:
        """The write that did not commit: its zkVersion was stale (to 2.7), or the controller
        refused the AlterIsr (2.8-3.2 WARN) / AlterPartition (3.3+)."""
        zk = max(self.zk_version[key] - 1, 0)
        isr = _list(self.isr.get(key) or [])
        if self.old:
            message = f"Cached zkVersion [{zk}] not equal to that in zookeeper, skip updating ISR"
        elif not self.topic_ids:   # 2.4.1
            message = f"Cached zkVersion {zk} not equal to that in zookeeper, skip updating ISR"
        elif self.family in ("D", "E"):   # 2.8, 3.2
            message = (f"Failed to update ISR to PendingShrinkIsr(isr=Set({isr}), outOfSyncReplicaIds=Set()) due to "
                       "unexpected NETWORK_EXCEPTION. Retrying.")
        else:
            message = (f"Failed to alter partition to PendingShrinkIsr(isr=Set({isr}), outOfSyncReplicaIds=Set()) since "
                       "the controller rejected the request with INVALID_UPDATE_VERSION. Partition state has been reset "
                       f"to the latest committed state CommittedPartitionState(isr=Set({isr}), "
                       "leaderRecoveryState=RECOVERED).")
        self._write(e.leader, "server.log", e.event_time_ms, "INFO", self._partition_ident(e.leader, tp, ctp) + message,
                    PARTITION)

    def _send_leader_and_isr(self, e: Event, tp: str, zk: int) -> None:
        """The controller's LeaderAndIsr request for the partition, as its state-change.log
        records it: <= 0.11 LeaderIsrAndControllerEpoch, 1.0-2.3 PartitionState, 2.4+ the
        generated LeaderAndIsrPartitionState."""
        replicas = e.replicas or self.assignment.get((e.topic, e.partition), [])
        value = self.forms["partition_state"].format(**self._fields(e, zk))
        if self.a:
            tp = f"[{e.topic},{e.partition}]"
        # Sent to every live replica; the leader's copy says become-leader (one line is enough here).
        to, role = (e.leader, "become-leader") if e.leader >= 0 else ((list(e.isr) + list(replicas) + [0])[0], "become-follower")
        if self.v0_8:
            self.correlation += 1
            value += f" with correlationId {self.correlation}"
        self._sc(e, f"Sending {role} LeaderAndIsr request {value} to broker {to} for partition {tp}")

    def _brokers_start(self, e: Event, tp: str, zk: int) -> None:
        """The replicas' own INFO lines for a LeaderAndIsr request that starts a new leader epoch
        (Partition.makeLeader / makeFollower), a few milliseconds after the controller's
        decision: 1.0 and 2.4 the leader's in its server.log, 2.6+ (2.8 and 3.6+ forms) the
        leader's and each live follower's in their state-change.log. A zombie controller's request and an
        epoch not above the last one are refused, and log no such line. Leader epochs start in
        0.11 (KIP-101): family A logs none."""
        key = (e.topic, e.partition)
        stale = e.controller_epoch is not None and e.controller_epoch < self.controller[1]
        previous = self.started.get(key, (None, -1))
        if self.a or stale or e.leader is None or e.leader < 0 or e.leader_epoch is None or e.leader_epoch <= previous[1]:
            return
        self.started[key] = (e.leader, e.leader_epoch)
        leader = e.leader
        fields = self._fields(e, zk, previous)
        leader_line = self.forms["leader_starts"].format(**fields)
        if not self.info:
            if leader in self.live:
                self._write(leader, "server.log", e.event_time_ms + 2, "INFO", f"[Partition {tp} broker={leader}] {leader_line}",
                            PARTITION)
            return
        follower_line = self.forms["follower_starts"].format(**fields)
        if leader in self.live:
            self._write(leader, "state-change.log", e.event_time_ms + 2, "INFO", f"[Broker id={leader}] {leader_line}", STATE_CHANGE)
        for follower in e.replicas or self.assignment.get(key, []):
            if follower != leader and follower in self.live:
                self._write(follower, "state-change.log", e.event_time_ms + 3, "INFO", f"[Broker id={follower}] {follower_line}",
                            STATE_CHANGE)

    def _warn_unclean(self, e: Event) -> None:
        """1.0's offline selector warns when it elects a leader outside the ISR (§3.5): an
        offline election whose leader is not in the ISR last written."""
        key = (e.topic, e.partition)
        if e.event_type == E.PARTITION_STATE_CHANGE and e.to_state == "OnlinePartition" and e.leader is not None \
                and e.from_state == "OfflinePartition" and key in self.isr and e.leader not in self.isr[key]:
            live = [r for r in self.assignment.get(key, []) if r in self.live] or [e.leader]
            self._write(self.controller[0], "controller.log", e.event_time_ms, "WARN",
                        f"[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [{e.topic},{e.partition}]. "
                        f"Elect leader {e.leader} from live brokers {_ints(live)}. There's potential data loss.",
                        "kafka.controller.OfflinePartitionLeaderSelector")

    def _track(self, e: Event) -> None:
        """The live brokers and each partition's ISR as `e` leaves them."""
        t, key = e.event_type, (e.topic, e.partition)
        if t == E.CONTROLLER_FAILOVER and e.brokers is not None:
            self.live = set(e.brokers)
        elif t == E.BROKER_STARTUP:
            self.live |= set(e.brokers)
        elif t == E.BROKER_FAILURE:
            self.live -= set(e.brokers)
        stale = e.controller_epoch is not None and e.controller_epoch < self.controller[1]   # a zombie's write
        if e.isr is not None and e.partition is not None and not stale and \
                t in (E.PARTITION_STATE_CHANGE, E.LEADER_AND_ISR, E.ISR_CHANGE):
            self.isr[key] = list(e.isr)
        elif t in (E.TOPIC_CREATION, E.PARTITION_CREATION, E.TOPIC_DELETION) and e.partition is not None:
            self.isr.pop(key, None)
            self.started.pop(key, None)

    def _fields(self, e: Event, zk: int, previous: tuple[int | None, int] = (None, -1)) -> dict:
        """What FORMS print of `e`: its partition's values, the version `zk` the controller wrote,
        and the (leader, epoch) its replicas last started (Partition.makeLeader's "previous")."""
        replicas = e.replicas or self.assignment.get((e.topic, e.partition), [])
        return dict(
            topic=e.topic, partition=e.partition, tp=f"{e.topic}-{e.partition}", topic_id=_uuid(e.topic),
            leader=e.leader, leader_epoch=e.leader_epoch, zk=zk,
            controller_epoch=e.controller_epoch if e.controller_epoch is not None else self.controller[1],
            isr=_ints(e.isr or []), isr_list=_list(e.isr or []), replicas=_ints(replicas), replicas_list=_list(replicas),
            # ZK mode: the controller's write knows no broker epochs (-1).
            isr_broker_states=", ".join(f"BrokerState(brokerId={b}, brokerEpoch=-1)" for b in e.isr or []),
            recovery="RECOVERING" if _recovering(e) else "RECOVERED", recovery_value=int(_recovering(e)),
            previous_leader="None" if previous[0] is None else f"Some({previous[0]})", previous_epoch=previous[1])

    def files(self) -> dict[str, str]:
        return {k: "".join(text for _, text in sorted(records, key=lambda r: r[0])) for k, records in self.out.items()}


def render(events: Iterable[Event], out_dir: str | Path, version: str = "2.4.1") -> dict[str, int]:
    r = Renderer(version)
    for e in events:
        r.feed(e)
    out_dir = Path(out_dir)
    for name, text in r.files().items():
        p = out_dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return dict(r.skipped)


class MetadataDumpRenderer:
    """Feed KRaft-era events in seq order; `text(path)` is the dump of the metadata log
    segment that holds them: one batch per event, its partitionLeaderEpoch the Raft epoch
    of the controller that wrote it (a zombie's old epoch included), its CreateTime the
    event's time. Record JSON follows the generated *JsonConverter: tagged fields only when
    set."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.offset = self.position = 0
        self.epoch, self.leader = 0, None
        self.topic_ids: dict[str, str] = {}
        self.created: dict[str, int] = defaultdict(int)   # topic -> incarnations (a new id each)
        self.skipped: dict[str, int] = defaultdict(int)

    def _batch(self, ms: int, epoch: int, bodies: list[str], control: bool = False) -> None:
        size = 61 + sum(len(b) for b in bodies)   # the v2 batch header, then the records
        crc = int.from_bytes(hashlib.md5("".join(bodies).encode()).digest()[:4], "big")
        self.lines.append(
            f"baseOffset: {self.offset} lastOffset: {self.offset + len(bodies) - 1} count: {len(bodies)} baseSequence: -1 "
            f"lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: {epoch} isTransactional: false "
            f"isControl: {str(control).lower()} deleteHorizonMs: OptionalLong.empty position: {self.position} "
            f"CreateTime: {ms} size: {size} magic: 2 compresscodec: none crc: {crc} isvalid: true")
        for body in bodies:
            self.lines.append(f"| offset: {self.offset} CreateTime: {ms} keySize: {4 if control else -1} "
                              f"valueSize: {len(body) // 3} sequence: -1 headerKeys: [] {body}")
            self.offset += 1
        self.position += size

    @staticmethod
    def _record(rtype: str, version: int, data: dict) -> str:
        return "payload: " + json.dumps({"type": rtype, "version": version, "data": data}, separators=(",", ":"))

    def _broker_change(self, broker: int, **change) -> str:
        return self._record("BROKER_REGISTRATION_CHANGE_RECORD", 0, {"brokerId": broker, "brokerEpoch": 10 + broker, **change})

    def feed(self, e: Event) -> None:
        if e.event_type == E.CONTROLLER_FAILOVER:
            self.epoch, self.leader = e.controller_epoch, e.controller_id
            voters = [{"voterId": self.leader}]
            body = json.dumps({"version": 0, "leaderId": self.leader, "voters": voters, "grantingVoters": voters},
                              separators=(",", ":"))
            self._batch(e.event_time_ms, self.epoch, [f"LeaderChange: {body}"], control=True)
            return
        records = self._records(e)
        if records is None:
            self.skipped[e.event_type] += 1
            return
        self._batch(e.event_time_ms, e.controller_epoch if e.controller_epoch is not None else self.epoch, records)

    def feed_failover_aborting(self, failover: Event, events: list[Event]) -> None:
        """A ControllerFailover whose predecessor left a metadata transaction (KIP-868) of these
        events' records open: one batch from its BeginTransactionRecord through its records at
        the old epoch, the failover's LeaderChange, then the AbortTransactionRecord the new
        leader writes on taking over (ActivationRecordsGenerator: "Controller failover"). Like
        OffsetControlManager, what the records did (a new topic's id) is undone after."""
        saved = dict(self.topic_ids), self.created.copy()
        # The name KRaftMigrationDriver gives the migration's transaction (3.6+).
        records = [self._record("BEGIN_TRANSACTION_RECORD", 0, {"name": "ZK Migration"})]
        for e in events:
            records += self._records(e) or []
        self._batch(failover.event_time_ms, self.epoch, records)
        self.feed(failover)
        self._batch(failover.event_time_ms, self.epoch,
                    [self._record("ABORT_TRANSACTION_RECORD", 0, {"reason": "Controller failover"})])
        self.topic_ids, self.created = saved

    def _records(self, e: Event) -> list[str] | None:
        """The metadata records of one KRaft-era event (None: the dump holds no record of it)."""
        t = e.event_type
        records: list[str] = []
        if t == E.BROKER_STARTUP:
            records = [self._broker_change(b, fenced=-1) for b in e.brokers]
        elif t == E.BROKER_FAILURE:
            records = [self._broker_change(b, fenced=1) for b in e.brokers]
        elif t == E.CONTROLLED_SHUTDOWN:
            records = [self._broker_change(b, inControlledShutdown=1) for b in e.brokers]
        elif t == E.PARTITION_RECORD:
            if e.topic not in self.topic_ids:
                self.created[e.topic] += 1
                self.topic_ids[e.topic] = _uuid(f"{e.topic}/{self.created[e.topic]}")   # each incarnation its own
                records.append(self._record("TOPIC_RECORD", 0, {"name": e.topic, "topicId": self.topic_ids[e.topic]}))
            data = {"partitionId": e.partition, "topicId": self.topic_ids[e.topic], "replicas": list(e.replicas),
                    "isr": list(e.isr), "removingReplicas": list(e.removing_replicas or ()),
                    "addingReplicas": list(e.adding_replicas or ()), "leader": e.leader,
                    "leaderEpoch": e.leader_epoch, "partitionEpoch": e.zk_version or 0}
            if _recovering(e):
                data["leaderRecoveryState"] = 1
            records.append(self._record("PARTITION_RECORD", 2, data))
        elif t == E.PARTITION_CHANGE_RECORD:
            data = {"partitionId": e.partition, "topicId": self.topic_ids[e.topic]}
            for name, value in (("isr", e.isr), ("leader", e.leader), ("replicas", e.replicas),
                                ("removingReplicas", e.removing_replicas), ("addingReplicas", e.adding_replicas)):
                if value is not None:
                    data[name] = list(value) if isinstance(value, (list, tuple)) else value
            if e.leader_recovery_state is not None:
                data["leaderRecoveryState"] = int(_recovering(e))
            records.append(self._record("PARTITION_CHANGE_RECORD", 2, data))
        elif t == E.REMOVE_TOPIC_RECORD:
            records.append(self._record("REMOVE_TOPIC_RECORD", 0, {"topicId": self.topic_ids.pop(e.topic)}))
        elif t == E.CONFIG_CHANGE:
            records.append(self._record("CONFIG_RECORD", 0, {"resourceType": 2 if e.topic else 4,
                                                            "resourceName": e.topic or "", "name": e.config_name,
                                                            "value": e.config_value}))
        else:
            return None
        return records

    def text(self, segment: str) -> str:
        return "\n".join([f"Dumping {segment}", "Log starting offset: 0", *self.lines]) + "\n"


def without_record_metadata(dump: str) -> str:
    """The same dump as `kafka-dump-log.sh --skip-record-metadata` prints it (DumpLogSegments.scala
    @2.8.0..): batch lines as they are, each record only as " payload: ...", a control record as
    an empty line."""
    def record(line: str) -> str:
        if not line.startswith("| offset: "):
            return line
        at = line.find(" payload: ")
        return line[at:] if at >= 0 else ""
    return "\n".join(record(line) for line in dump.split("\n"))


def render_kraft(events: Iterable[Event], out_dir: str | Path, nodes: Iterable[int] = (1, 2, 3),
                 aborted: dict[int, list[Event]] | None = None) -> dict[str, int]:
    """The dump of the same metadata log on every node (a quorum replicates one log), each
    under broker-N/__cluster_metadata-0/ as an operator collects them. `aborted`: the i-th
    event is a ControllerFailover, and the controller it replaces left a metadata transaction
    of these events' records open, which the new one aborts (feed_failover_aborting)."""
    r = MetadataDumpRenderer()
    aborted = aborted or {}
    for i, e in enumerate(events):
        if i not in aborted:
            r.feed(e)
        elif e.event_type == E.CONTROLLER_FAILOVER:
            r.feed_failover_aborting(e, aborted[i])
        else:
            raise ValueError(f"render_kraft: event {i} is a {e.event_type}; only a controller failover aborts "
                             f"the metadata transaction its predecessor left open")
    for node in nodes:
        d = Path(out_dir) / f"broker-{node}" / "__cluster_metadata-0"
        d.mkdir(parents=True, exist_ok=True)
        segment = f"/var/lib/kafka/broker-{node}/data/__cluster_metadata-0/00000000000000000000.log"
        (d / "00000000000000000000.log.txt").write_text(r.text(segment))
    return dict(r.skipped)
