"""ZooKeeper-mode state-change.log (logger `state.change.logger`), 0.8.0 through 3.9: the
controller's partition and replica state machines, what it sends to brokers, and what
the brokers record receiving (spec kafka-log-formats §2.3-§2.6).

One `MessagePattern` per wording per range of releases. Bodies arrive with the logIdent
removed: `Controller 1 epoch 2 ` (0.8-0.11, so those bodies begin lower-case: `changed
partition ...`), `[Controller id=1 epoch=2] `, `Broker 1 ` (0.8-0.11) or `[Broker id=1] `.
The controller's id and epoch, or the broker's id, come from that prefix. Lines the replay
does not need are still rows (builder `_none`) so that they count as understood."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern
from ingest.detect import LAST_ZK  # any 3.9.x: the last ZooKeeper-mode line (4.0 removed ZooKeeper)
from ingest.values import (
    CONTROLLER_EPOCH_WRAPPER_BY_RELEASE,
    CONTROLLER_EPOCH_WRAPPER_TEXT,
    LEADER_AND_ISR_BY_RELEASE,
    LEADER_AND_ISR_PARTITION_STATE_BY_RELEASE,
    PARTITION_STATE_INFO_TEXT,
    PARTITION_STATE_TEXT,
    UPDATE_METADATA_PARTITION_STATE_TEXT,
    parse_int_list,
    parse_leader_and_isr,
    parse_partition,
)
from state_machine.eras import parse_version
from state_machine.states import PartitionState, ReplicaState


# Partition tokens: TopicAndPartition `[t,0]` (controller <=1.0, broker <=0.10.1),
# TopicPartition `t-0` (the topic may contain '-': parse_partition splits on the last one).
_TP_OLD = r"(?P<tp>\[[\w.-]+,\d+\])"
_TP_NEW = r"(?P<tp>[\w.-]+-\d+)"
_TP_ANY = r"(?P<tp>\[[\w.-]+,\d+\]|[\w.-]+-\d+)"
# The state names are the core's (state_machine.states), which are Kafka's.
PARTITION_STATE = "|".join(s.value for s in PartitionState)
_FROM = rf"(?P<from>{PARTITION_STATE})"
_TO = rf"(?P<to>{PARTITION_STATE})"
REPLICA_STATE = "|".join(s.value for s in ReplicaState)
_RFROM = rf"(?P<from>{REPLICA_STATE})"
_RTO = rf"(?P<to>{REPLICA_STATE})"
_INTS = r"[\d,]*"
_BECOME = r"(?:become-leader|become-follower)"
# Values printed inside messages, exactly as values.parse_leader_and_isr reads them.
_WRAPPER = rf"(?P<value>{CONTROLLER_EPOCH_WRAPPER_TEXT})"               # LeaderIsrAndControllerEpoch
_STATE_INFO = rf"(?P<value>{PARTITION_STATE_INFO_TEXT})"                # 0.8-0.9 PartitionStateInfo
_PARTITION_STATE_VALUE = rf"(?P<value>{PARTITION_STATE_TEXT})"          # 0.10-2.3 hand-written
_UPDATE_METADATA_STATE = rf"(?P<value>{UPDATE_METADATA_PARTITION_STATE_TEXT})"
_BROKER_SET = r"[A-Za-z]*\([^()]*\)"                                    # Set(1, 2), HashSet()

# 0.8.0 hard-codes short state names in some lines.
_SHORT_STATES = {"NotExists": "NonExistentPartition", "New": "NewPartition",
                 "Online": "OnlinePartition", "Offline": "OfflinePartition"}


# --- builder helpers ------------------------------------------------------------------

def _partition(tp: str) -> dict:
    topic, partition = parse_partition(tp)
    return {"topic": topic, "partition": partition}


def _controller(ctx: LineContext) -> dict:
    """The deciding controller, from its prefix. StateChangeLogger's id is the local broker's,
    so a controller line is recorded by the controller itself."""
    p = ctx.prefix
    if p.kind != "controller" or p.broker is None:
        return {}
    out = {"recording_broker": p.broker, "controller_id": p.broker}
    if p.controller_epoch is not None:
        out["controller_epoch"] = p.controller_epoch
    return out


def _recording_broker(ctx: LineContext) -> dict:
    p = ctx.prefix
    return {"recording_broker": p.broker} if p.kind == "broker" and p.broker is not None else {}


def _detail(m: re.Match, ctx: LineContext) -> str:
    # The exception (IllegalStateException, StateChangeFailedException ...) is on the glued lines.
    return f"{m.string}\n{ctx.continuation}" if ctx.continuation else m.string


def _state(name: str | None) -> str | None:
    return _SHORT_STATES.get(name, name) if name is not None else None


_DECISION_FIELDS = ("leader", "leader_epoch", "isr", "zk_version", "leader_recovery_state")


def _decision(value: dict) -> dict:
    """The leader/ISR fields of a parsed value (not its replicas or controller epoch)."""
    return {k: value[k] for k in _DECISION_FIELDS if k in value}


_REPLICA_ASSIGNMENT = re.compile(r"ReplicaAssignment\(replicas=(?P<replicas>[\d,]*), ")


def _assignment(text: str) -> list[int]:
    # 2.4+ prints ReplicaAssignment(replicas=1,2,3, addingReplicas=.., removingReplicas=..):
    # `replicas` is the full assignment sent, as the older `new assigned replica list` was.
    m = _REPLICA_ASSIGNMENT.match(text)
    return parse_int_list(m["replicas"] if m is not None else text)


# --- builders -------------------------------------------------------------------------

def _none(m: re.Match, ctx: LineContext) -> list:
    return []


def _partition_change(m: re.Match, ctx: LineContext) -> list:
    g = m.groupdict()
    event = {"event_type": "PartitionStateChange", **_partition(g["tp"]),
             "from_state": _state(g.get("from")), "to_state": _state(g["to"])}
    if g.get("replicas") is not None:
        event["replicas"] = parse_int_list(g["replicas"])
    if g.get("leader") is not None:
        event["leader"] = int(g["leader"])
    if g.get("value") is not None:
        event.update(_decision(parse_leader_and_isr(g["value"])))
    return [{**event, **_controller(ctx)}]


def _fixed_partition_change(from_state: str, to_state: str):
    """0.8.0 lines whose states are hard-coded in the sentence."""
    def build(m: re.Match, ctx: LineContext) -> list:
        event = {"event_type": "PartitionStateChange", **_partition(m["tp"]),
                 "from_state": from_state, "to_state": to_state}
        if m.re.groupindex.get("replicas"):
            event["replicas"] = parse_int_list(m["replicas"])
        return [{**event, **_controller(ctx)}]
    return build


def _replica_change(m: re.Match, ctx: LineContext) -> list:
    g = m.groupdict()
    return [{"event_type": "ReplicaStateChange", **_partition(g["tp"]), "replica": int(g["replica"]),
             "from_state": g.get("from"), "to_state": g["to"], **_controller(ctx)}]


def _failed(m: re.Match, ctx: LineContext) -> list:
    g = m.groupdict()
    event = {"event_type": "StateChangeFailed", **_partition(g["tp"]),
             "from_state": g.get("from"), "to_state": g["to"]}
    if g.get("replica") is not None:
        event["replica"] = int(g["replica"])
    return [{**event, "detail": _detail(m, ctx), **_controller(ctx)}]


def _failed_to_online(from_state: str | None):
    """A failMsg line (0.8-0.11) of a failed move to OnlinePartition. Understood, no event:
    the `initiated state change ... failed` line that always follows it records the same
    failure (one StateChangeFailed per failure, or the replay would consume a later step)."""
    def build(m: re.Match, ctx: LineContext) -> list:
        return []
    return build


def _leader_and_isr_sent(m: re.Match, ctx: LineContext) -> list:
    """The controller sending a leader/ISR decision to one broker (one line per recipient)."""
    v = parse_leader_and_isr(m["value"])
    # The reassignment's "with new replica assignment ..." is not passed on as `replicas`: at
    # completion Kafka sends the target AR while the ISR still holds the replicas being removed
    # (they leave it a step later), so that value is no statement about ISR membership; the
    # replay follows the AR through the reassignment's own steps.
    event = {"event_type": "LeaderAndIsr", **_partition(m["tp"]), **_decision(v)}
    controller = _controller(ctx)
    if "controller_epoch" not in controller and "controller_epoch" in v:
        controller["controller_epoch"] = v["controller_epoch"]
    return [{**event, **controller}]



def _isr_removal(m: re.Match, ctx: LineContext) -> list:
    """removeReplicasFromIsr's write: the new leader/ISR, and the replica it removed."""
    v = parse_leader_and_isr(m["value"])
    controller = _controller(ctx)
    if "controller_epoch" not in controller and "controller_epoch" in v:
        controller["controller_epoch"] = v["controller_epoch"]
    return [{"event_type": "LeaderAndIsr", **_partition(m["tp"]), **_decision(v), "replica": int(m["replica"]),
             **controller}]


def _leader_and_isr_received(keep_replicas: bool):
    """A broker's copy of what a controller sent (LeaderAndIsr request or UpdateMetadata).
    `keep_replicas` is False where Kafka printed the replicas from a Set (0.8-0.11): not
    in assignment order."""
    def build(m: re.Match, ctx: LineContext) -> list:
        v = parse_leader_and_isr(m["value"])
        tp = m["tp"] if m.re.groupindex.get("tp") else None
        where = _partition(tp) if tp is not None else {"topic": v["topic"], "partition": v["partition"]}
        event = {"event_type": "LeaderAndIsrReceived", **where, **_decision(v)}
        if keep_replicas and "replicas" in v:
            event["replicas"] = v["replicas"]
        return [{**event, "controller_id": int(m["controller"]), "controller_epoch": int(m["epoch"]),
                 **_recording_broker(ctx)}]
    return build


def _leader_starts(m: re.Match, ctx: LineContext) -> list:
    """`Leader t-0 starts at leader epoch E ...` (2.6+): the writing broker became leader."""
    broker = _recording_broker(ctx)
    if not broker:
        return []  # the leader is the broker of the prefix; without it the line names no leader
    event = {"event_type": "LeaderAndIsrReceived", **_partition(m["tp"]), "leader": broker["recording_broker"],
             "leader_epoch": int(m["leader_epoch"]), "isr": parse_int_list(m["isr"]), **_offsets(m)}
    if m.re.groupindex.get("zk_version"):
        event["zk_version"] = int(m["zk_version"])
    return [{**event, **broker}]


def _offsets(m: re.Match) -> dict:
    """The writing broker's log end offset and high watermark, as a leader or follower line prints
    them (`from offset O with high watermark H`): read for an unclean election's records at risk."""
    return {"log_end_offset": int(m["log_end_offset"]), "high_watermark": int(m["high_watermark"])}


def _follower_starts(m: re.Match, ctx: LineContext) -> list:
    """3.3+ `Follower ... Current leader is L`. From 3.6 its `Previous leader` is printed after
    the fields were overwritten (until KAFKA-19776), so only the current leader is taken."""
    return [{"event_type": "LeaderAndIsrReceived", **_partition(m["tp"]), "leader": int(m["leader"]),
             "leader_epoch": int(m["leader_epoch"]), "zk_version": int(m["zk_version"]), **_offsets(m),
             **_recording_broker(ctx)}]


def _follower_log(m: re.Match, ctx: LineContext) -> list:
    """2.6-3.2 `Follower t-0 starts at leader epoch E from offset O with high watermark H`: no
    leader named, but the follower's log end as it starts fetching (an old leader's, after an
    unclean election, before it truncates)."""
    broker = _recording_broker(ctx)
    if not broker:
        return []
    return [{"event_type": "LogEndOffsetObserved", **_partition(m["tp"]), **_offsets(m), **broker}]


# --- the catalogue ----------------------------------------------------------------------

def _p(name: str, source: str, first: str, last: str | None, keyword: str, regex: str, build) -> MessagePattern:
    return MessagePattern(name, source, first, last, keyword, re.compile(regex), build)


def _per_form(name: str, source: str, first: str, forms, keyword: str, regex: str, build) -> list[MessagePattern]:
    """A message that embeds a value (`{value}` in `regex`) as one row per printed form of the
    value (values.*_BY_RELEASE), each spanning the releases that print both: which form a line
    shows is era evidence. The first form's row keeps `name`, the others add the release
    their form starts at."""
    return [_p(name + ("" if i == 0 else "." + "_".join(form_first.split(".")[:2])), source,
               max(first, form_first, key=parse_version), form_last or LAST_ZK, keyword,
               regex.replace("{value}", f"(?P<value>{text})"), build)
            for i, (form_first, form_last, text) in enumerate(forms)]


_PSM = "PartitionStateMachine.scala"
_RSM = "ReplicaStateMachine.scala"
_CCM = "ControllerChannelManager.scala"
_KC = "KafkaController.scala"
_RM = "ReplicaManager.scala"
_MC = "MetadataCache.scala"
_PART = "Partition.scala"

PATTERNS: tuple[MessagePattern, ...] = (
    # ---- partition state machine, 0.8.0 (short state names, hard-coded) ----
    _p("sc.partition.new.0_8_0", f"{_PSM} @0.8.0", "0.8.0", "0.8.0", "changed",
       rf"changed partition {_TP_OLD} state from NotExists to New with assigned replicas (?P<replicas>{_INTS})$",
       _fixed_partition_change("NonExistentPartition", "NewPartition")),
    _p("sc.partition.offline.0_8_0", f"{_PSM} @0.8.0", "0.8.0", "0.8.0", "changed",
       rf"changed partition {_TP_OLD} state from Online to Offline$",
       _fixed_partition_change("OnlinePartition", "OfflinePartition")),
    _p("sc.partition.nonexistent.0_8_0", f"{_PSM} @0.8.0", "0.8.0", "0.8.0", "changed",
       rf"changed partition {_TP_OLD} state from Offline to NotExists$",
       _fixed_partition_change("OfflinePartition", "NonExistentPartition")),
    # 0.8.0 writes `from %s to OnlinePartition` (the state read after it was set, so always
    # OnlinePartition); 0.8.1-0.11 `from %s to %s`: the same text.
    _p("sc.partition.online.leader.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "changed",
       rf"changed partition {_TP_OLD} from {_FROM} to {_TO} with leader (?P<leader>-?\d+)$", _partition_change),
    # ---- partition state machine, 0.8.1-0.11 ----
    _p("sc.partition.new.0_8_1", f"{_PSM} @0.8.2.2", "0.8.1", "0.11.0.3", "changed",
       rf"changed partition {_TP_OLD} state from {_FROM} to {_TO} with assigned replicas (?P<replicas>{_INTS})$",
       _partition_change),
    _p("sc.partition.state.0_8_1", f"{_PSM} @0.8.2.2", "0.8.1", "0.11.0.3", "changed",
       rf"changed partition {_TP_OLD} state from {_FROM} to {_TO}$", _partition_change),
    _p("sc.partition.election_started.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "started",
       rf"started leader election for partition {_TP_OLD}$", _none),
    _p("sc.partition.elected_offline.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "elected",
       rf"elected leader -?\d+ for Offline partition {_TP_OLD}$", _none),
    _p("sc.partition.failed.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "initiated",
       rf"initiated state change for partition {_TP_OLD} from {_FROM} to {_TO} failed$", _failed),
    # failMsg lines (0.8-0.11 log them, then the `initiated ... failed` line follows).
    _p("sc.partition.no_replica_alive.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "encountered",
       rf"encountered error during state change of partition {_TP_OLD} from New to Online, assigned replicas "
       rf"are \[{_INTS}\], live brokers are \[[^\]]*\]\. No assigned replica is alive\.$",
       _failed_to_online("NewPartition")),
    _p("sc.partition.path_exists.0_8", f"{_PSM} @0.8.0", "0.8.0", "0.11.0.3", "encountered",
       rf"encountered error while changing partition {_TP_OLD}'s state from New to Online since LeaderAndIsr "
       r"path already exists with value ", _failed_to_online("NewPartition")),
    _p("sc.partition.election_error.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "encountered",
       rf"encountered error while electing leader for partition {_TP_OLD} due to: ", _failed_to_online(None)),
    _p("sc.partition.election_aborted.0_8", f"{_PSM} @0.8.0..@0.11.0.3", "0.8.0", "0.11.0.3", "aborted",
       rf"aborted leader election for partition {_TP_OLD} since the LeaderAndIsr path was already written "
       r"by another controller\.", _none),
    # ---- partition state machine, 1.0 ([Controller id=N epoch=E] prefix; 1.0.0 made TopicAndPartition
    # print as t-0, so the lines 1.1 kept are the rows below, from 1.0.0) ----
    _p("sc.partition.online.leader.1_0", f"{_PSM} @1.0.0, @1.0.2", "1.0.0", "1.0.2", "Changed",
       rf"Changed partition {_TP_NEW} from {_FROM} to {_TO} with leader (?P<leader>-?\d+)$", _partition_change),
    _p("sc.partition.election_started.1_0", f"{_PSM} @1.0.2", "1.0.0", "1.0.2", "Started",
       rf"Started leader election for partition {_TP_NEW}$", _none),
    _p("sc.partition.elected_offline.1_0", f"{_PSM} @1.0.2", "1.0.0", "1.0.2", "Elected",
       rf"Elected leader -?\d+ for Offline partition {_TP_NEW}$", _none),
    _p("sc.partition.failed.1_0", f"{_PSM} @1.0.2", "1.0.0", "1.0.2", "Initiated",
       rf"Initiated state change for partition {_TP_NEW} from {_FROM} to {_TO} failed$", _failed),
    # ---- partition state machine, 1.0-3.9 (t-0) ----
    _p("sc.partition.new", f"{_PSM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Changed",
       rf"Changed partition {_TP_NEW} state from {_FROM} to {_TO} with assigned replicas (?P<replicas>{_INTS})$",
       _partition_change),
    *_per_form("sc.partition.online.leaderandisr", f"{_PSM} @1.1.1..@3.9", "1.1.0", LEADER_AND_ISR_BY_RELEASE, "Changed",
               rf"Changed partition {_TP_NEW} from {_FROM} to {_TO} with state {{value}}$", _partition_change),
    _p("sc.partition.state", f"{_PSM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Changed",
       rf"Changed partition {_TP_NEW} state from {_FROM} to {_TO}$", _partition_change),
    # `[Controller id=N epoch=E] Controller N epoch E failed ...`: strip_prefix removes both.
    _p("sc.partition.failed", f"{_PSM} @1.1.1..@3.9", "1.1.0", LAST_ZK, "failed",
       rf"failed to change state for partition {_TP_NEW} from {_FROM} to {_TO}$", _failed),

    # ---- replica state machine ----
    _p("sc.replica.change.0_8_0", f"{_RSM} @0.8.0", "0.8.0", "0.8.0", "changed",
       rf"changed state of replica (?P<replica>\d+) for partition {_TP_OLD} to {_RTO}$", _replica_change),
    _p("sc.replica.change.0_8_1", f"{_RSM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "changed",
       rf"changed state of replica (?P<replica>\d+) for partition {_TP_OLD} from {_RFROM} to {_RTO}$",
       _replica_change),
    _p("sc.replica.change", f"{_RSM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Changed",
       rf"Changed state of replica (?P<replica>\d+) for partition {_TP_NEW} from {_RFROM} to {_RTO}$",
       _replica_change),
    _p("sc.replica.failed.0_8_0", f"{_RSM} @0.8.0", "0.8.0", "0.8.0", "initiated",
       rf"initiated state change of replica (?P<replica>\d+) for partition {_TP_OLD} to {_RTO} failed$", _failed),
    _p("sc.replica.failed.0_8_1", f"{_RSM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "initiated",
       rf"initiated state change of replica (?P<replica>\d+) for partition {_TP_OLD} from {_RFROM} to {_RTO} failed$",
       _failed),
    _p("sc.replica.failed.1_0", f"{_RSM} @1.0.2", "1.0.0", "1.0.2", "Initiated",
       rf"Initiated state change of replica (?P<replica>\d+) for partition {_TP_NEW} from {_RFROM} to {_RTO} failed$",
       _failed),
    # `[Controller id=N epoch=E] Controller N epoch E initiated ...`: both prefixes removed.
    _p("sc.replica.failed", f"{_RSM} @1.1.1..@3.9", "1.1.0", LAST_ZK, "initiated",
       rf"initiated state change of replica (?P<replica>\d+) for partition {_TP_NEW} from {_RFROM} to {_RTO} failed$",
       _failed),
    # The controller's ISR removal when a replica goes offline (ZkReplicaStateMachine,
    # removeReplicasFromIsr): the one INFO line that records it. The event names the replica,
    # so the replay ties it to that replica's OfflineReplica step (a topic deletion removes
    # several replicas in turn, not in AR order).
    *_per_form("sc.replica.isr_removal", f"{_RSM} @2.6.0..@3.9", "2.6.0", CONTROLLER_EPOCH_WRAPPER_BY_RELEASE,
               "Partition", rf"Partition {_TP_NEW} state changed to {{value}} after removing replica (?P<replica>\d+) "
               r"from the ISR as part of transition to OfflineReplica$", _isr_removal),

    # ---- controller -> broker requests ----
    _p("sc.send.leaderandisr.0_8", f"{_CCM} @0.8.2.2 (0.8.0 prints no value)", "0.8.1", "0.8.2.2", "sending",
       rf"sending {_BECOME} LeaderAndIsr request {_WRAPPER} with correlationId \d+ to broker \d+ "
       rf"for partition {_TP_OLD}$", _leader_and_isr_sent),
    _p("sc.send.leaderandisr.0_9", f"{_CCM} @0.9.0.1..@0.11.0.3", "0.9.0.0", "0.11.0.3", "sending",
       rf"sending {_BECOME} LeaderAndIsr request {_WRAPPER} to broker \d+ for partition {_TP_OLD}$",
       _leader_and_isr_sent),
    _p("sc.send.leaderandisr.1_0", f"{_CCM} @1.0.2..@2.3.1", "1.0.0", "2.3.1", "Sending",
       rf"Sending {_BECOME} LeaderAndIsr request {_PARTITION_STATE_VALUE} to broker \d+ for partition {_TP_ANY}$",
       _leader_and_isr_sent),
    *_per_form("sc.send.leaderandisr", f"{_CCM} @2.4.1..@3.9", "2.4.0", LEADER_AND_ISR_PARTITION_STATE_BY_RELEASE,
               "Sending", rf"Sending {_BECOME} LeaderAndIsr request {{value}} to broker \d+ for partition {_TP_NEW}$",
               _leader_and_isr_sent),
    _p("sc.send.leaderandisr.summary", f"{_CCM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Sending",
       r"Sending LeaderAndIsr request to broker \d+ with \d+ become-leader and \d+ become-follower partitions$",
       _none),
    _p("sc.send.updatemetadata.0_8", f"{_CCM} @0.8.2.2 (0.8.0 prints no value)", "0.8.1", "0.8.2.2", "sending",
       rf"sending UpdateMetadata request {_WRAPPER} with correlationId \d+ to broker \d+ for partition {_TP_OLD}$",
       _none),
    _p("sc.send.updatemetadata.0_9", f"{_CCM} @0.9.0.1..@0.11.0.3", "0.9.0.0", "0.11.0.3", "sending",
       rf"sending UpdateMetadata request {_WRAPPER} to (?:broker \d+|brokers {_BROKER_SET}) for partition {_TP_ANY}$",
       _none),
    _p("sc.send.updatemetadata.1_0", f"{_CCM} @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Sending",
       rf"Sending UpdateMetadata request (?:{PARTITION_STATE_TEXT}|{UPDATE_METADATA_PARTITION_STATE_TEXT}) "
       rf"to brokers {_BROKER_SET} for partition {_TP_ANY}$", _none),
    _p("sc.send.updatemetadata.summary", f"{_CCM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Sending",
       rf"Sending UpdateMetadata request to brokers {_BROKER_SET} for \d+ partitions$", _none),
    _p("sc.send.stopreplica", f"{_CCM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Sending",
       rf"Sending StopReplica request StopReplicaPartitionState\([^()]*\) to broker \d+ for partition {_TP_NEW}$",
       _none),
    _p("sc.send.stopreplica.summary", f"{_CCM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Sending",
       r"Sending StopReplica request (?:\(delete = (?:true|false)\) )?for \d+ replicas to broker \d+$", _none),
    _p("sc.response.0_8", f"{_CCM} @0.8.2.2..@0.11.0.3", "0.8.0", "0.11.0.3", "received",
       r"received response .* for a request sent to broker ", _none),
    _p("sc.response.1_0", f"{_CCM} @1.0.2 (seen in a real 1.0.2 capture)", "1.0.0", "1.0.2", "Received",
       r"Received response .* for a request sent to broker ", _none),
    _p("sc.response", f"{_CCM} @1.1.1..@3.9", "1.1.0", LAST_ZK, "Received",
       r"Received response .* for request [A-Z_]+ with correlation id \d+ sent to broker ", _none),
    _p("sc.response.error", f"{_KC} @1.1.1..@3.9", "1.0.0", LAST_ZK, "Received",
       r"Received error \w+ in LeaderAndIsr response .* from broker \d+$", _none),
    _p("sc.response.error.update_metadata", f"{_KC} @2.5.1..@3.9 (ERROR)", "2.5.0", LAST_ZK, "Received",
       r"Received error \w+ in UpdateMetadata response .* from broker \d+$", _none),
    # Reassignment: the LeaderAndIsr sent to the leader with the new assignment.
    _p("sc.reassign.sent.0_8", f"{_KC} @0.8.1..@0.11.0.3", "0.8.0", "0.11.0.3", "sent",
       rf"sent LeaderAndIsr request {_WRAPPER} with new assigned replica list (?P<replicas>{_INTS}) "
       rf"to leader -?\d+ for partition being reassigned {_TP_OLD}$", _leader_and_isr_sent),
    _p("sc.reassign.sent.1_0", f"{_KC} @1.1.1..@2.3.1", "1.0.0", "2.3.1", "Sent",
       rf"Sent LeaderAndIsr request {_WRAPPER} with new assigned replica list (?P<replicas>{_INTS}) "
       rf"to leader -?\d+ for partition being reassigned {_TP_ANY}$", _leader_and_isr_sent),
    *_per_form("sc.reassign.sent", f"{_KC} @2.4.1..@3.9", "2.4.0", CONTROLLER_EPOCH_WRAPPER_BY_RELEASE, "Sent",
               r"Sent LeaderAndIsr request {value} with new replica assignment "
               rf"(?P<replicas>ReplicaAssignment\([^()]*\)|{_INTS}) to leader -?\d+ for partition being reassigned "
               rf"{_TP_NEW}$", _leader_and_isr_sent),
    _p("sc.reassign.send_failed.0_8", f"{_KC} @0.8.1..@0.11.0.3", "0.8.0", "0.11.0.3", "failed",
       r"failed to send LeaderAndIsr request with new assigned replica list ", _none),
    _p("sc.reassign.send_failed", f"{_KC} @1.1.1..@3.9", "1.0.0", LAST_ZK, "Failed",
       r"Failed to send LeaderAndIsr request with new (?:assigned replica list|replica assignment) ", _none),
    _p("sc.mark_offline", f"{_KC} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Mark",
       r"Mark replicas [\w.,\-\[\] ]* on broker \d+ as offline$", _none),
    # The KRaft controller's requests to the ZooKeeper brokers during a ZooKeeper migration (its
    # state-change.log): the responses' errors only MigrationPropagatorBatch logs.
    _p("sc.migration.stop_replica_error", "MigrationPropagatorBatch.scala @3.4.1..@3.9 (ERROR)", "3.4.0", LAST_ZK, "Received",
       r"Received error \w+ in StopReplica (?:response .* from broker \d+|request for partition \S+-\d+ from broker \d+)$",
       _none),
    _p("sc.migration.offline", "MigrationPropagatorBatch.scala @3.4.1..@3.9 (ERROR; a LeaderAndIsr response's "
       "KAFKA_STORAGE_ERROR partitions)", "3.4.0", LAST_ZK, "Found", r"Found [\w.,\-]+ on broker \d+ as offline$", _none),
    _p("sc.migration.brokers", "MigrationPropagator.scala publishMetadata @3.5.2..@3.9 (the logger without its ident)",
       "3.5.0", LAST_ZK, "Adding", r"Adding brokers Set\(.*\), removing brokers Set\(.*\)\.$", _none),

    # ---- broker side: what a broker records receiving ----
    _p("sc.broker.received.0_8", f"{_RM} @0.8.2.2..@0.9.0.1", "0.8.1", "0.9.0.1", "received",
       rf"received LeaderAndIsr request {_STATE_INFO} correlation id \d+ from controller (?P<controller>\d+) "
       rf"epoch (?P<epoch>\d+) for partition {_TP_OLD}$", _leader_and_isr_received(keep_replicas=False)),
    _p("sc.broker.received.0_10", f"{_RM} @0.10.2.2..@0.11.0.3", "0.10.0.0", "0.11.0.3", "received",
       rf"received LeaderAndIsr request {_PARTITION_STATE_VALUE} correlation id \d+ from controller "
       rf"(?P<controller>\d+) epoch (?P<epoch>\d+) for partition {_TP_OLD}$",
       _leader_and_isr_received(keep_replicas=False)),
    _p("sc.broker.received.1_0", f"{_RM} @1.0.2..@2.3.1", "1.0.0", "2.3.1", "Received",
       rf"Received LeaderAndIsr request {_PARTITION_STATE_VALUE} correlation id \d+ from controller "
       rf"(?P<controller>\d+) epoch (?P<epoch>\d+) for partition {_TP_NEW}$",
       _leader_and_isr_received(keep_replicas=True)),
    *_per_form("sc.broker.received", f"{_RM} @2.4.1..@3.9", "2.4.0", LEADER_AND_ISR_PARTITION_STATE_BY_RELEASE,
               "Received", r"Received LeaderAndIsr request {value} correlation id \d+ from controller "
               r"(?P<controller>\d+) epoch (?P<epoch>\d+)$", _leader_and_isr_received(keep_replicas=True)),
    _p("sc.broker.cached.0_8", f"{_MC} @0.8.2.2..@0.9.0.1", "0.8.0", "0.9.0.1", "cached",
       rf"cached leader info {_STATE_INFO} for partition {_TP_OLD} in response to UpdateMetadata request sent "
       r"by controller (?P<controller>\d+) epoch (?P<epoch>\d+) with correlation id \d+$",
       _leader_and_isr_received(keep_replicas=False)),
    # 0.10-0.11 print the PartitionStateInfo they convert the request's state to (MetadataCache
    # partitionStateToPartitionStateInfo @0.10.0.1..@0.11.0.3; a real 0.11.0.3 capture), named t-0.
    _p("sc.broker.cached.0_10", f"{_MC} @0.10.0.1..@0.11.0.3", "0.10.0.0", "0.11.0.3", "cached",
       rf"cached leader info {_STATE_INFO} for partition {_TP_ANY} in response to UpdateMetadata "
       r"request sent by controller (?P<controller>\d+) epoch (?P<epoch>\d+) with correlation id \d+$",
       _leader_and_isr_received(keep_replicas=False)),
    _p("sc.broker.cached.1_0", f"{_MC} @1.0.2..@2.3.1", "1.0.0", "2.3.1", "Cached",
       rf"Cached leader info {_PARTITION_STATE_VALUE} for partition {_TP_NEW} in response to UpdateMetadata "
       r"request sent by controller (?P<controller>\d+) epoch (?P<epoch>\d+) with correlation id \d+$",
       _leader_and_isr_received(keep_replicas=True)),
    _p("sc.broker.cached", f"{_MC} @2.4.1..@3.9", "2.4.0", LAST_ZK, "Cached",
       rf"Cached leader info {_UPDATE_METADATA_STATE} for partition {_TP_NEW} in response to UpdateMetadata "
       r"request sent by controller (?P<controller>\d+) epoch (?P<epoch>\d+) with correlation id \d+$",
       _leader_and_isr_received(keep_replicas=True)),
    # Partition.makeLeader/makeFollower (state.change.logger from 2.6): the only per-partition
    # leadership line at the default INFO level.
    _p("sc.broker.leader_starts.2_6", f"{_PART} @2.6.3..@3.2.3", "2.6.0", "3.2.3", "Leader",
       rf"Leader {_TP_NEW} starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) with high watermark (?P<high_watermark>-?\d+) "
       r"ISR (?P<isr>\[[\d,]*\]) addingReplicas \[[\d,]*\] removingReplicas \[[\d,]*\]\. "
       r"Previous leader epoch was -?\d+\.$", _leader_starts),
    _p("sc.broker.leader_starts.3_3", f"{_PART} @3.3.2..@3.4.1", "3.3.0", "3.4.1", "Leader",
       rf"Leader {_TP_NEW} with topic id \S+ starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) "
       r"with partition epoch (?P<zk_version>\d+), high watermark (?P<high_watermark>-?\d+), ISR (?P<isr>\[[\d,]*\]), "
       r"adding replicas \[[\d,]*\] and removing replicas \[[\d,]*\]\. Previous leader epoch was -?\d+\.$",
       _leader_starts),
    _p("sc.broker.leader_starts.3_5", f"{_PART} @3.5.2", "3.5.0", "3.5.2", "Leader",
       rf"Leader {_TP_NEW} with topic id \S+ starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) "
       r"with partition epoch (?P<zk_version>\d+), high watermark (?P<high_watermark>-?\d+), ISR (?P<isr>\[[\d,]*\]), "
       r"adding replicas \[[\d,]*\] and removing replicas \[[\d,]*\] (?:\(under-min-isr\))?\. "
       r"Previous leader epoch was -?\d+\.$", _leader_starts),
    _p("sc.broker.leader_starts", f"{_PART} @3.6.2..@3.9", "3.6.0", None, "Leader",
       rf"Leader {_TP_NEW} with topic id \S+ starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) "
       r"with partition epoch (?P<zk_version>\d+), high watermark (?P<high_watermark>-?\d+), ISR (?P<isr>\[[\d,]*\]), "
       r"adding replicas \[[\d,]*\] and removing replicas \[[\d,]*\] (?:\(under-min-isr\))?\. "
       r"Previous leader (?:None|Some\(-?\d+\)) and previous leader epoch was -?\d+\.$", _leader_starts),
    _p("sc.broker.follower_starts.2_6", f"{_PART} @2.6.3..@3.2.3", "2.6.0", "3.2.3", "Follower",
       rf"Follower {_TP_NEW} starts at leader epoch \d+ from offset (?P<log_end_offset>-?\d+) with high watermark (?P<high_watermark>-?\d+)\. "
       r"Previous leader epoch was -?\d+\.$", _follower_log),
    _p("sc.broker.follower_starts.3_3", f"{_PART} @3.3.2..@3.5.2", "3.3.0", "3.5.2", "Follower",
       rf"Follower {_TP_NEW} starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) with partition epoch "
       r"(?P<zk_version>\d+) and high watermark (?P<high_watermark>-?\d+)\. Current leader is (?P<leader>-?\d+)\. "
       r"Previous leader epoch was -?\d+\.$", _follower_starts),
    _p("sc.broker.follower_starts", f"{_PART} @3.6.2..@3.9", "3.6.0", None, "Follower",
       rf"Follower {_TP_NEW} starts at leader epoch (?P<leader_epoch>\d+) from offset (?P<log_end_offset>-?\d+) with partition epoch "
       r"(?P<zk_version>\d+) and high watermark (?P<high_watermark>-?\d+)\. Current leader is (?P<leader>-?\d+)\. "
       r"Previous leader (?:None|Some\(-?\d+\)) and previous leader epoch was -?\d+\.$", _follower_starts),
    _p("sc.broker.skipped.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.0", "0.11.0.3", "skipped",
       rf"skipped the {_BECOME} state change after marking its partition as (?:leader|follower) with correlation "
       r"id \d+ from controller \d+ epoch \d+ for partition ", _none),
    _p("sc.broker.skipped", f"{_RM} @1.0.2..@3.9, {_PART} @3.x", "1.0.0", None, "Skipped",
       rf"Skipped the {_BECOME} state change ", _none),
    # The broker could not write to ZooKeeper and did not take the role: the controller's decision
    # (its own lines) stands in the replay, as for the skipped one above.
    _p("sc.broker.zk_exception", f"{_PART} makeLeader / makeFollower @2.7.2..@3.9 (ERROR; makeLeader's ends ` ` "
       "before 3.3, `.` after)", "2.7.0", LAST_ZK, "A",
       r"A ZooKeeper client exception has occurred(?: and makeLeader|\. makeFollower) will be skipping the state change "
       rf"for the partition {_TP_NEW} with leader epoch: -?\d+[ .]?$", _none),
    # makeFollowers while the broker shuts down (TRACE); the controller's own lines record the decision.
    _p("sc.broker.skipped_fetcher", f"{_RM} makeFollowers @1.0.2..@3.9 (2.0 adds the leader)", "1.0.0", LAST_ZK, "Skipped",
       r"Skipped the adding-fetcher step of the become-follower state change with correlation id \d+ from controller "
       rf"\d+ epoch \d+ for partition {_TP_NEW}(?: with leader -?\d+)? since it is shutting down$", _none),
    _p("sc.broker.discarded.0_8_0", f"{_PART} @0.8.0", "0.8.0", "0.8.0", "discarded",
       rf"discarded the become-leader request with correlation id \d+ from controller \d+ epoch \d+ for partition "
       rf"{_TP_OLD} since current leader epoch -?\d+ is >= the request's leader epoch -?\d+$", _none),
    # per-partition handling lines (TRACE)
    _p("sc.broker.handling.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "handling",
       rf"handling LeaderAndIsr request correlationId \d+ from controller \d+ epoch \d+ starting the {_BECOME} "
       rf"transition for partition {_TP_ANY}$", _none),
    _p("sc.broker.handling", f"{_RM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Handling",
       rf"Handling LeaderAndIsr request correlationId \d+ from controller \d+ epoch \d+ starting the {_BECOME} "
       rf"transition for partition {_TP_ANY}(?: with leader -?\d+)?$", _none),  # become-follower adds the leader (1.1+)
    _p("sc.broker.completed.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "completed",
       rf"completed LeaderAndIsr request correlationId \d+ from controller \d+ epoch \d+ for the {_BECOME} "
       rf"transition for partition {_TP_ANY}$", _none),
    _p("sc.broker.completed", f"{_RM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Completed",
       rf"Completed LeaderAndIsr request correlationId \d+ from controller \d+ epoch \d+ for the {_BECOME} "
       rf"transition for partition {_TP_ANY}(?: with leader -?\d+)?$", _none),  # become-follower adds the leader (1.1+)
    _p("sc.broker.stopped_fetchers.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.0", "0.11.0.3", "stopped",
       rf"stopped fetchers as part of become-leader request from controller \d+ epoch \d+ with correlation id \d+ "
       rf"for partition {_TP_ANY}$", _none),
    _p("sc.broker.stopped_fetchers.follower.0_8", f"{_RM} makeFollowers @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3",
       "stopped", r"stopped fetchers as part of become-follower request from controller \d+ epoch \d+ with correlation "
       rf"id \d+ for partition {_TP_ANY}$", _none),
    _p("sc.broker.skipped_fetcher.0_8", f"{_RM} makeFollowers @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "skipped",
       r"skipped the adding-fetcher step of the become-follower state change with correlation id \d+ from controller "
       rf"\d+ epoch \d+ for partition {_TP_ANY} since it is shutting down$", _none),
    _p("sc.broker.stopped_fetchers.1_0", f"{_RM} @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Stopped",
       rf"Stopped fetchers as part of become-leader request from controller \d+ epoch \d+ with correlation id \d+ "
       rf"for partition {_TP_ANY} \(last update controller epoch \d+\)$", _none),
    # A new follower's steps (TRACE); 2.0 adds the leader.
    _p("sc.broker.stopped_fetchers.follower.1_0", f"{_RM} makeFollowers @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Stopped",
       rf"Stopped fetchers as part of become-follower request from controller \d+ epoch \d+ with correlation id \d+ "
       rf"for partition {_TP_NEW}(?: with leader -?\d+)?$", _none),
    _p("sc.broker.truncated.1_0", f"{_RM} makeFollowers @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Truncated",
       rf"Truncated logs and checkpointed recovery boundaries for partition {_TP_NEW} as part of become-follower "
       r"request with correlation id \d+ from controller \d+ epoch \d+(?: with leader -?\d+)?$", _none),
    _p("sc.broker.truncated.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "truncated",
       rf"truncated logs and checkpointed recovery boundaries for partition {_TP_ANY} as part of become-follower "
       r"request with correlation id \d+ from controller \d+ epoch \d+$", _none),
    _p("sc.broker.started_fetcher.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "started",
       r"started fetcher to new leader as part of become-follower request from controller \d+ epoch \d+ with "
       rf"correlation id \d+ for partition {_TP_ANY}$", _none),
    _p("sc.broker.started_fetcher", f"{_RM} @1.0.2..@2.5.1 (2.0 adds the leader)", "1.0.0", "2.5.1", "Started",
       r"Started fetcher to new leader as part of become-follower request from controller \d+ epoch \d+ with "
       rf"correlation id \d+ for partition {_TP_ANY}(?:$| with leader )", _none),
    _p("sc.broker.ignoring.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.0", "0.11.0.3", "ignoring",
       r"ignoring LeaderAndIsr request from controller \d+ ", _none),
    _p("sc.broker.ignoring", f"{_RM} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Ignoring",
       r"Ignoring LeaderAndIsr request from controller \d+ ", _none),
    _p("sc.broker.cannot_follow.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.0", "0.11.0.3", "received",
       r"received LeaderAndIsrRequest with correlation id \d+ from controller \d+ epoch \d+ for partition "
       rf"{_TP_ANY} but cannot become follower since the new leader -?\d+ is unavailable\.$", _none),
    # The broker's complaint about a leaderless LeaderAndIsr it received (ERROR): the decision
    # itself (leader -1) is the controller's line, and the broker's copy carries no leader.
    _p("sc.broker.cannot_follow", f"{_RM} makeFollowers @1.0.2..@3.9", "1.0.0", LAST_ZK, "Received",
       r"Received LeaderAndIsrRequest with correlation id \d+ from controller \d+ epoch \d+ for partition "
       rf"{_TP_NEW} \(last update controller epoch \d+\) but cannot become follower since the new leader -?\d+ "
       r"is unavailable\.$", _none),
    _p("sc.broker.stop_replica.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "handling",
       rf"handling stop replica \(delete=(?:true|false)\) for partition {_TP_ANY}$", _none),
    _p("sc.broker.stop_replica_done.0_8", f"{_RM} @0.8.2.2..@0.11.0.3", "0.8.1", "0.11.0.3", "finished",
       rf"finished handling stop replica \(delete=(?:true|false)\) for partition {_TP_ANY}$", _none),
    _p("sc.broker.stop_replica.1_0", f"{_RM} @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Handling",
       rf"Handling stop replica \(delete=(?:true|false)\) for partition {_TP_ANY}$", _none),
    _p("sc.broker.stop_replica_done.1_0", f"{_RM} @1.0.2..@2.5.1", "1.0.0", "2.5.1", "Finished",
       rf"Finished handling stop replica \(delete=(?:true|false)\) for partition {_TP_ANY}$", _none),
    _p("sc.broker.deleted.0_8", f"{_MC} @0.8.2.2..@0.11.0.3", "0.8.2.0", "0.11.0.3", "deleted",
       rf"deleted partition {_TP_ANY} from metadata cache in response to UpdateMetadata request sent by "
       r"controller \d+ epoch \d+ with correlation id \d+$", _none),
    _p("sc.broker.deleted", f"{_MC} @1.0.2..@3.9", "1.0.0", LAST_ZK, "Deleted",
       rf"Deleted partition {_TP_ANY} from metadata cache in response to UpdateMetadata request sent by "
       r"controller \d+ epoch \d+ with correlation id \d+$", _none),
    # 2.6+ INFO summaries (KAFKA-8470)
    # A ZooKeeper broker in a migration, told the whole metadata by the KRaft controller (KIP-866): its
    # logs of partitions that metadata no longer has are moved aside.
    _p("sc.broker.stray_partitions", f"{_RM} becomeLeaderOrFollower @3.6.2..@3.9", "3.6.0", LAST_ZK, "While",
       r"While handling full LeaderAndIsr request from KRaft controller \d+ with correlation id \d+, found \d+ stray "
       r"partition\(s\)\.$", _none),
    _p("sc.broker.handling.summary", f"{_RM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Handling",
       r"Handling LeaderAndIsr request correlationId \d+ from controller \d+ for \d+ partitions$", _none),
    _p("sc.broker.stopped_fetchers.leader.summary", f"{_RM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Stopped",
       r"Stopped fetchers as part of LeaderAndIsr request correlationId \d+ from controller \d+ epoch \d+ as part "
       r"of the become-leader transition for \d+ partitions$", _none),
    _p("sc.broker.stopped_fetchers.follower.summary", f"{_RM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Stopped",
       r"Stopped fetchers as part of become-follower request from controller \d+ epoch \d+ with correlation id \d+ "
       r"for \d+ partitions$", _none),
    _p("sc.broker.finished.summary", f"{_RM} @3.x..@3.9", "2.6.0", LAST_ZK, "Finished",
       r"Finished LeaderAndIsr request in \d+ms correlationId \d+ from controller \d+ for \d+ partitions$", _none),
    _p("sc.broker.stop_replica.summary", f"{_RM} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Handling",
       r"Handling StopReplica request correlationId \d+ from controller \d+ for \d+ partitions$", _none),
    _p("sc.broker.cache.summary", f"{_MC} @2.6.3..@3.9", "2.6.0", LAST_ZK, "Add",
       r"Add \d+ partitions and deleted \d+ partitions from metadata cache in response to UpdateMetadata request "
       r"sent by controller \d+ epoch \d+ with correlation id \d+$", _none),
    # StopReplica v3 (KIP-570) per-partition TRACE: the controller's ReplicaStateChange lines
    # (OfflineReplica, ReplicaDeletionStarted) are the decisions it copies.
    _p("sc.broker.stop_replica.received", f"{_RM} stopReplicas @2.6.3..@3.9", "2.6.0", LAST_ZK, "Received",
       r"Received StopReplica request StopReplicaPartitionState\([^()]*\) correlation id \d+ from controller \d+ "
       rf"epoch \d+ for partition {_TP_NEW}$", _none),
    # KIP-570 (2.6): the broker refuses a StopReplica. The controller's replica state change is
    # the decision; the refusal changes nothing the controller holds. Until 3.8.0 (which stops
    # the replica at an equal leader epoch) an equal epoch was refused too, at INFO: a real 2.8.2
    # capture writes it for the controlled shutdown's StopReplica(delete=false).
    _p("sc.broker.stop_replica.ignored.stale", f"{_RM} stopReplicas @2.6.0..@3.9", "2.6.0", LAST_ZK, "Ignoring",
       r"Ignoring StopReplica request from controller \d+ with correlation id \d+ since its controller epoch \d+ "
       r"is old\. Latest known controller epoch is \d+$", _none),
    _p("sc.broker.stop_replica.ignored", f"{_RM} stopReplicas @2.6.0..@3.9", "2.6.0", LAST_ZK, "Ignoring",
       rf"Ignoring StopReplica request \(delete=(?:true|false)\) from controller \d+ with correlation id \d+ epoch \d+ "
       rf"for partition {_TP_NEW} (?:as the local replica for the partition is in an offline log directory|since "
       r"its associated leader epoch -?\d+ is smaller than the current leader epoch -?\d+|due to an unexpected "
       r"\S+ exception: .*)$", _none),
    _p("sc.broker.stop_replica.ignored.same_epoch", f"{_RM} stopReplicas @2.6.0..@3.7.2 (3.8.0: `>=` stops it)",
       "2.6.0", "3.7.2", "Ignoring",
       rf"Ignoring StopReplica request \(delete=(?:true|false)\) from controller \d+ with correlation id \d+ epoch \d+ "
       rf"for partition {_TP_NEW} since its associated leader epoch -?\d+ matches the current leader epoch$", _none),
    # Partition.makeLeader (ZK and KRaft) clearing a RECOVERING leader (KIP-704): the state the
    # replay tracks comes from the leader's AlterPartition commit (ISR updated / the record).
    _p("sc.broker.recovered", f"{_PART} makeLeader @3.2..@4.x", "3.2.0", None, "The",
       rf"The topic partition {_TP_NEW} was marked as RECOVERING\. Marking the topic partition as RECOVERED\.$",
       _none),
)
