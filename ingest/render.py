"""Canonical events -> the log files a Kafka 2.4 ZooKeeper cluster writes (stock log4j
layout, TRACE state-change logging), for benchmarks and round-trip tests: a simulated
history with injected faults, written the way real brokers would, must audit to exactly
the injected faults. The parsers never call this; it follows the format strings of Kafka
2.4.1 (spec kafka-log-formats §2.3-§2.7, §3) independently of their regexes.

Files go where Kafka writes them: the controller's decisions and the inputs it reacted to
in its own state-change.log and controller.log, a leader's ISR changes in its server.log."""
from __future__ import annotations

import io
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from state_machine import events as E
from state_machine.events import Event

KAFKA_VERSION = "2.4.1"
STATE_CHANGE = "state.change.logger"
CONTROLLER = "kafka.controller.KafkaController"
PARTITION = "kafka.cluster.Partition"


def _ts(ms: int) -> str:
    d = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"


def _ints(xs) -> str:
    return ",".join(str(x) for x in xs)


def _list(xs) -> str:
    return ", ".join(str(x) for x in xs)


class Renderer:
    """Feed events in seq order; `files()` gives {relative path: text}."""

    def __init__(self) -> None:
        self.out: dict[str, io.StringIO] = defaultdict(io.StringIO)
        self.assignment: dict[tuple[str, int], list[int]] = {}
        self.controller: tuple[int, int] = (1, 1)   # (id, epoch)
        self.zk_version: dict[tuple[str, int], int] = defaultdict(int)
        self.skipped: dict[str, int] = defaultdict(int)

    def _write(self, broker: int, file: str, ms: int, level: str, message: str, logger: str, extra: str = "") -> None:
        self.out[f"broker-{broker}/{file}"].write(f"[{_ts(ms)}] {level} {message} ({logger})\n{extra}")

    def _sc(self, e: Event, message: str, level: str = "TRACE", extra: str = "") -> None:
        cid = e.controller_id if e.controller_id is not None else self.controller[0]
        epoch = e.controller_epoch if e.controller_epoch is not None else self.controller[1]
        self._write(cid, "state-change.log", e.event_time_ms, level, f"[Controller id={cid} epoch={epoch}] {message}", STATE_CHANGE, extra)

    def _ctl(self, e: Event, message: str) -> None:
        cid = self.controller[0]
        self._write(cid, "controller.log", e.event_time_ms, "INFO", f"[Controller id={cid}] {message}", CONTROLLER)

    def feed(self, e: Event) -> None:
        tp = f"{e.topic}-{e.partition}" if e.partition is not None else None
        key = (e.topic, e.partition)
        t = e.event_type
        if t == E.CONTROLLER_FAILOVER:
            self.controller = (e.controller_id, e.controller_epoch)
            self._ctl(e, f"{e.controller_id} successfully elected as the controller. Epoch incremented to "
                         f"{e.controller_epoch} and epoch zk version is now {e.controller_epoch}")
            if e.brokers is not None:
                self._ctl(e, f"Currently active brokers in the cluster: Set({_list(e.brokers)})")
            self._ctl(e, f"Ready to serve as the new controller with epoch {e.controller_epoch}")
        elif t == E.BROKER_STARTUP:
            self._ctl(e, f"New broker startup callback for {_ints(e.brokers)}")
        elif t == E.BROKER_FAILURE:
            self._ctl(e, f"Broker failure callback for {_ints(e.brokers)}")
        elif t == E.CONTROLLED_SHUTDOWN:
            for b in e.brokers:
                self._ctl(e, f"Shutting down broker {b}")
        elif t in (E.TOPIC_CREATION, E.PARTITION_CREATION):
            self.assignment[key] = list(e.replicas)
            self._ctl(e, f"New topics: [Set({e.topic})], deleted topics: [Set()], new partition replica assignment "
                         f"[Map({tp} -> ReplicaAssignment(replicas={_ints(e.replicas)}, addingReplicas=, removingReplicas=))]")
        elif t == E.TOPIC_DELETION:
            self._ctl(e, f"Starting topic deletion for topics {e.topic}")   # KafkaController.processTopicDeletion
        elif t == E.REASSIGNMENT_START:
            # KIP-455 (2.4): the controller first writes AR = RAR + OAR with the adding/removing sets.
            old = self.assignment.get(key, [])
            target = list(e.replicas)
            adding = [r for r in target if r not in old]
            removing = [r for r in old if r not in target]
            self.assignment[key] = target + removing
            self._ctl(e, f"Successfully updated assignment of partition {tp} to ReplicaAssignment(replicas="
                         f"{_ints(target + removing)}, addingReplicas={_ints(adding)}, removingReplicas={_ints(removing)})")
        elif t == E.CONFIG_CHANGE and e.config_name == "unclean.leader.election.enable" and \
                (e.config_value or "").lower() == "true":
            self._ctl(e, f"Unclean leader election has been enabled for topic {e.topic}" if e.topic
                      else "Unclean leader election has been enabled by default")
        elif t == E.REPLICA_LEADER_ELECTION:
            self._ctl(e, f"Starting replica leader election ({e.election_type or 'PREFERRED'}) for partitions {tp} "
                         f"triggered by AdminClientTriggered")
        elif t == E.PARTITION_STATE_CHANGE:
            if e.to_state == "NewPartition":
                self.assignment[key] = list(e.replicas or self.assignment.get(key, []))
                self._sc(e, f"Changed partition {tp} state from {e.from_state} to NewPartition with assigned replicas "
                            f"{_ints(self.assignment[key])}")
            elif e.to_state == "OnlinePartition" and e.leader is not None:
                zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
                self.zk_version[key] = zk + 1
                self._sc(e, f"Changed partition {tp} from {e.from_state} to OnlinePartition with state "
                            f"LeaderAndIsr(leader={e.leader}, leaderEpoch={e.leader_epoch}, isr=List({_list(e.isr)}), zkVersion={zk})")
            else:
                self._sc(e, f"Changed partition {tp} state from {e.from_state} to {e.to_state}")
        elif t == E.REPLICA_STATE_CHANGE:
            self._sc(e, f"Changed state of replica {e.replica} for partition {tp} from {e.from_state} to {e.to_state}")
        elif t == E.LEADER_AND_ISR:
            zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
            self.zk_version[key] = zk + 1
            epoch = e.controller_epoch if e.controller_epoch is not None else self.controller[1]
            replicas = e.replicas or self.assignment.get(key, [])
            value = (f"LeaderAndIsrPartitionState(topicName='{e.topic}', partitionIndex={e.partition}, controllerEpoch={epoch}, "
                     f"leader={e.leader}, leaderEpoch={e.leader_epoch}, isr=[{_list(e.isr)}], zkVersion={zk}, "
                     f"replicas=[{_list(replicas)}], addingReplicas=[], removingReplicas=[], isNew=false)")
            # Sent to every live replica; the leader's copy says become-leader (one line is enough here).
            to, role = (e.leader, "become-leader") if e.leader >= 0 else ((list(e.isr) + list(replicas) + [0])[0], "become-follower")
            self._sc(e, f"Sending {role} LeaderAndIsr request {value} to broker {to} for partition {tp}")
        elif t == E.ISR_CHANGE:
            zk = e.zk_version if e.zk_version is not None else self.zk_version[key]
            self.zk_version[key] = zk + 1
            self._write(e.leader, "server.log", e.event_time_ms, "INFO", f"[Partition {tp} broker={e.leader}] "
                        f"ISR updated to [{_ints(e.isr)}] and zkVersion updated to [{zk}]", PARTITION)
        elif t == E.STATE_CHANGE_FAILED:
            cid, epoch = self.controller
            if e.replica is not None:
                msg = (f"Controller {cid} epoch {epoch} initiated state change of replica {e.replica} for partition {tp} "
                       f"from {e.from_state} to {e.to_state} failed")
            else:
                msg = f"Controller {cid} epoch {epoch} failed to change state for partition {tp} from {e.from_state} to {e.to_state}"
            self._sc(e, msg, "ERROR", (e.detail + "\n") if e.detail else "")
        else:
            self.skipped[t] += 1   # no 2.4 line says it (e.g. a ConfigChange to false)

    def files(self) -> dict[str, str]:
        return {k: v.getvalue() for k, v in self.out.items()}


def render(events: Iterable[Event], out_dir: str | Path) -> dict[str, int]:
    r = Renderer()
    for e in events:
        r.feed(e)
    out_dir = Path(out_dir)
    for name, text in r.files().items():
        p = out_dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return dict(r.skipped)
