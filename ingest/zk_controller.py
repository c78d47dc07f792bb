"""ZooKeeper-mode controller.log (logger `kafka.controller`) and the server.log lines that
matter to the replay (spec kafka-log-formats §2.7, §3), 0.8.0 through 3.9.

controller.log holds the controller's *inputs*: failover, broker startup/failure, controlled
shutdown, topic and partition creation, reassignment, preferred/unclean election requests,
topic deletion, unclean-election config. server.log holds the leaders' own ISR changes
(`kafka.cluster.Partition`), the pre-0.11 controller election (ZookeeperLeaderElector), the
release banner and the broker id. One `MessagePattern` per wording per range of releases;
lines the replay does not need are rows too (builder `_none`), so they count as understood.

Bodies arrive with the logIdent removed (`[Controller N]: `, `[Controller id=N] `, listener
and state-machine prefixes, `[Partition t-0 broker=N] `, `Partition [t,0] on broker N: `,
`[KafkaServer id=N] `). Prefixes that `ingest.prefix` does not know (`[AddPartitionsListener
on N]: `, `[DeleteTopicsListener on N]: `, `[Topic Deletion Manager N] `, `[Kafka Server N], `,
`[RequestSendThread controllerId=N] `) are matched inside the body, so their keyword starts
with `[`.

`last=None`: written until the end of ZooKeeper mode (3.9.x; 4.0 removed it). Rows whose body
begins with the broker id (`1 successfully elected as ...`) use the keyword "%d", the first
word of their format string: the catalogue must send digit-only first words there."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern
from ingest.values import parse_int_list, parse_partition

UNCLEAN = "unclean.leader.election.enable"

# Partition tokens: TopicAndPartition `[t,0]` (controller <=1.0, broker <=0.10.1) and
# TopicPartition `t-0` (the topic may contain '-': parse_partition splits on the last one).
_TP = r"(?P<tp>\[[\w.-]+,\d+\]|[\w.-]+-\d+)"
_INTS = r"[\d,]*"
_IDS = r"\d[\d,]*"  # a list Kafka never prints empty
# One `partition -> replicas` entry of a printed Scala Map: `[t,0] -> List(1, 2)` (<=1.0),
# `t-0 -> List(1, 2)` (1.1-2.3, whatever Seq the JSON decoder built), `t-0 ->
# ReplicaAssignment(replicas=1,2, addingReplicas=, removingReplicas=)` (2.4+). The value never
# nests parentheses.
_ENTRY = re.compile(r"(?<=[(\s])(?P<tp>\[[\w.-]+,\d+\]|[\w.-]+-\d+) -> (?P<v>[A-Za-z]*\([^()]*\))")
_ASSIGNMENT = re.compile(r"ReplicaAssignment\(replicas=(?P<r>[\d,]*), addingReplicas=(?P<a>[\d,]*), "
                         r"removingReplicas=(?P<rm>[\d,]*)\)$")
# 2.8+ prints the topic id next to each new topic's assignment.
_TOPIC_ID = re.compile(r"TopicIdReplicaAssignment\((?P<t>[\w.-]+),Some\((?P<id>[\w-]+)\),")
_OLD_TP = re.compile(r"\[[\w.-]+,\d+\]")


# --- builder helpers ------------------------------------------------------------------

def _event(event_type: str, **fields) -> dict:
    """A canonical event with only the fields the line gives (the caller fills the rest)."""
    event = {"event_type": event_type}
    for k, v in fields.items():
        if v is not None:
            event[k] = v
    return event


def _ints(text: str) -> list[int]:
    """A comma-joined id list the regex already checked (`1,2,3` or empty): no collection parsing."""
    return [int(x) for x in text.split(",")] if text else []


def _controller(ctx: LineContext, broker: int | None = None) -> dict:
    """The controller that logged the line, from its prefix (`[Controller id=1] `, `[Controller 1]: `,
    `[TopicChangeListener on Controller 1]: `) or from the id the body's own prefix names."""
    p = ctx.prefix
    if broker is None and p.kind in ("controller", "listener"):
        broker = p.broker
    if broker is None:
        return {}
    return {"recording_broker": broker, "controller_id": broker}


def _partition_list(text: str) -> list[tuple[str, int]]:
    """`[t,0],[t,1]` (<=1.0) or `t-0,t-1` (1.1+), as `partitions.mkString(",")` prints them."""
    if not text:
        return []
    if text.startswith("["):
        return [parse_partition(tok) for tok in _OLD_TP.findall(text)]
    return [parse_partition(tok) for tok in text.split(",")]


def _replicas(value: str) -> list[int]:
    m = _ASSIGNMENT.match(value)
    return _ints(m["r"]) if m is not None else parse_int_list(value)


def _none(m: re.Match, ctx: LineContext) -> list:
    return []


# --- builders: controller election and failover ---------------------------------------

def _failover(m: re.Match, ctx: LineContext) -> list:
    b = m.groupdict().get("b")
    broker = int(b) if b is not None else ctx.prefix.broker
    return [_event("ControllerFailover", controller_id=broker, controller_epoch=int(m["e"]), recording_broker=broker)]


def _elected(m: re.Match, ctx: LineContext) -> list:
    e = m.groupdict().get("e")
    return [{"fact": "controller_elected", "controller_id": int(m["b"]), "controller_epoch": int(e) if e else None}]


def _epoch_incremented(m: re.Match, ctx: LineContext) -> list:
    """0.8-1.0 name the new epoch before the failover's first decisions ("Controller 1 incremented
    epoch to 5"; 1.0 "[Controller id=1] Incremented epoch to 5"): as 2.1+'s election line does."""
    b = m.groupdict().get("b")
    return [{"fact": "controller_elected", "controller_id": int(b) if b is not None else ctx.prefix.broker,
             "controller_epoch": int(m["e"])}]


# --- builders: broker membership ----------------------------------------------------------

def _brokers(event_type: str):
    def build(m: re.Match, ctx: LineContext) -> list:
        return [_event(event_type, brokers=_ints(m["b"]), **_controller(ctx))]
    return build


# --- builders: topics and partitions ----------------------------------------------------

def _creation(event_type: str):
    """One event per `partition -> replicas` entry of the printed assignment map."""
    def build(m: re.Match, ctx: LineContext) -> list:
        gd = m.groupdict()
        ids = _controller(ctx, int(gd["b"]) if gd.get("b") else None)
        text = m["a"]
        out: list = [{"fact": "topic_name", "topic_id": t["id"], "topic": t["t"]} for t in _TOPIC_ID.finditer(text)]
        for e in _ENTRY.finditer(text):
            topic, partition = parse_partition(e["tp"])
            out.append(_event(event_type, topic=topic, partition=partition, replicas=_replicas(e["v"]), **ids))
        return out
    return build


def _deletion(m: re.Match, ctx: LineContext) -> list:
    gd = m.groupdict()
    ids = _controller(ctx, int(gd["b"]) if gd.get("b") else None)
    return [_event("TopicDeletion", topic=t, **ids) for t in m["ts"].split(",") if t]


# --- builders: reassignment and elections ---------------------------------------------------

def _reassignment_old(m: re.Match, ctx: LineContext) -> list:
    topic, partition = parse_partition(m["tp"])
    return [_event("ReassignmentStart", topic=topic, partition=partition, replicas=_ints(m["r"]),
                   **_controller(ctx))]


def _reassignment_kip455(m: re.Match, ctx: LineContext) -> list:
    """The U1 write of onPartitionReassignment: RS = TRS + ORS with adding/removing replicas.
    With none of either, the line is the B6 write at completion, or a reassignment that only
    reorders the replicas (it completes at once): the target is the AR it prints either way,
    and the replay takes a target equal to the current AR as nothing to do."""
    removing = _ints(m["rm"])
    topic, partition = parse_partition(m["tp"])
    target = [r for r in _ints(m["r"]) if r not in removing]
    return [_event("ReassignmentStart", topic=topic, partition=partition, replicas=target, **_controller(ctx))]


def _reassignment_caught_up(m: re.Match, ctx: LineContext) -> list:
    """onPartitionReassignment re-entered with every target replica in the ISR: the completion
    starts here, before the election or epoch bump it writes and before (at INFO) the leader's
    own line that shows the ISR grown. 2.4+ print the target (a Scala Seq, `ArrayBuffer(3, 2)`);
    0.8-2.3 only the count (`2/2 replicas`), the replay knows which."""
    topic, partition = parse_partition(m["tp"])
    target = parse_int_list(m["r"]) if m.groupdict().get("r") is not None else None
    return [_event("ReassignmentCaughtUp", topic=topic, partition=partition, replicas=target, **_controller(ctx))]


def _election(m: re.Match, ctx: LineContext) -> list:
    election_type = m.groupdict().get("type") or "PREFERRED"
    ids = _controller(ctx)
    return [_event("ReplicaLeaderElection", topic=t, partition=p, election_type=election_type, **ids)
            for t, p in _partition_list(m["ps"])]


def _unclean_logged(m: re.Match, ctx: LineContext) -> list:
    topic, partition = parse_partition(m["tp"])
    return [_event("UncleanElectionLogged", topic=topic, partition=partition, leader=int(m["l"]), **_controller(ctx))]


def _unclean_enabled(m: re.Match, ctx: LineContext) -> list:
    topic = m.groupdict().get("t")  # None: the broker-wide default
    return [_event("ConfigChange", topic=topic, config_name=UNCLEAN, config_value="true", **_controller(ctx))]


# --- builders: server.log -------------------------------------------------------------------

def _isr_change(m: re.Match, ctx: LineContext) -> list:
    """The leader's committed ISR write (`ISR updated to ...`, with its zkVersion); the leader is
    the broker of the `[Partition t-0 broker=N] ` prefix. INFO from 2.4, TRACE before."""
    return _leader_isr_event("IsrChange", m, ctx, int(m["v"]))


def _isr_proposal(m: re.Match, ctx: LineContext) -> list:
    """The leader's proposal (`Shrinking ISR from A to B`, `Expanding ...`), logged before its
    write: the only INFO record of the write before 2.4, and the write may fail (IsrUpdateFailed).
    The replay reads it by era (PartitionReplay.on_isr_change_proposed)."""
    return _leader_isr_event("IsrChangeProposed", m, ctx, None)


def _partition_prefix(ctx: LineContext, what: str, unknown: str):
    """The `[Partition t-0 broker=N] ` prefix Kafka always writes on a leader's ISR lines: which
    broker (and, for most of them, which partition) the line is about."""
    p = ctx.prefix
    if p.kind != "partition" or p.broker is None:
        raise ValueError(f"{what} without its [Partition t-0 broker=N] prefix: {unknown} is unknown")
    return p


def _leader_isr_event(event_type: str, m: re.Match, ctx: LineContext, zk_version: int | None) -> list:
    p = _partition_prefix(ctx, "ISR change", "the leader")
    gd = m.groupdict()
    topic, partition = parse_partition(gd["tp"]) if gd.get("tp") else (p.topic, p.partition)
    return [_event(event_type, topic=topic, partition=partition, leader=p.broker, isr=_ints(m["new"]),
                   zk_version=zk_version, recording_broker=p.broker)]


def _isr_update_failed(m: re.Match, ctx: LineContext) -> list:
    """The leader's ISR write that did not commit: the proposal it logged just before ("Shrinking
    ISR ...") changed nothing. The partition and the leader are the prefix's."""
    p = _partition_prefix(ctx, "failed ISR update", "the partition")
    return [_event("IsrUpdateFailed", topic=p.topic, partition=p.partition, leader=p.broker, detail=m.group(0),
                   recording_broker=p.broker)]


# `unclean.leader.election.enable` inside a printed config: `k -> v, ` (a Scala Map, 2.8 and
# before), `k=v, ` (a Java Map, 3.0+), `\tk = v` (AbstractConfig.logAll, one key per line).
_UNCLEAN_VALUE = re.compile(r"(?:^|[\s,])unclean\.leader\.election\.enable(?: -> |=| = )(?P<v>\w+)")


def _config_observed(topic: str | None, partition: int | None, text: str, absent_means_default: bool) -> list:
    found = _UNCLEAN_VALUE.search(text)
    if found is None and not absent_means_default:
        return []
    return [_event("ConfigObserved", topic=topic, partition=partition, config_name=UNCLEAN,
                   config_value=found["v"] if found else None)]


def _log_created_all(m: re.Match, ctx: LineContext) -> list:
    """2.8 and before print every property of the new log, the broker's defaults included:
    the value in effect for the topic on that broker."""
    topic, partition = parse_partition(m["tp"])
    return _config_observed(topic, partition, m["props"], absent_means_default=False)


def _log_created_overrides(m: re.Match, ctx: LineContext) -> list:
    """3.0+ print the topic's overrides only: no key = no topic override, the broker-wide
    default applies."""
    topic, partition = parse_partition(m["tp"])
    return _config_observed(topic, partition, m["props"], absent_means_default=True)


def _kafka_config(m: re.Match, ctx: LineContext) -> list:
    """The broker's static config at startup: the broker-wide default."""
    return _config_observed(None, None, m["values"], absent_means_default=False)


def _leader_starts_old(m: re.Match, ctx: LineContext) -> list:
    """0.11-2.5 `t-0 starts at Leader Epoch E ...` (2.4: `at leader epoch E ... with high
    watermark H`; server.log): the broker of the partition prefix became the partition's leader
    at epoch E (no ISR printed)."""
    p = ctx.prefix
    if p.kind != "partition" or p.broker is None:
        return []   # without the prefix the line names no leader
    topic, partition = parse_partition(m["tp"])
    return [_event("LeaderAndIsrReceived", topic=topic, partition=partition, leader=p.broker,
                   leader_epoch=int(m["e"]), recording_broker=p.broker)]


def _verified_property(m: re.Match, ctx: LineContext) -> list:
    """0.8's broker config, one line per property set in server.properties: the broker-wide default."""
    if m["k"] != UNCLEAN:
        return []
    return [_event("ConfigObserved", config_name=UNCLEAN, config_value=m["v"])]


def _version(m: re.Match, ctx: LineContext) -> list:
    return [{"fact": "kafka_version", "version": m["v"]}]


def _broker_started(m: re.Match, ctx: LineContext) -> list:
    b = m.groupdict().get("b")
    broker = int(b) if b is not None else (ctx.prefix.broker if ctx.prefix.kind == "server" else None)
    return [{"fact": "broker_id", "broker": broker}] if broker is not None else []


# --- the table --------------------------------------------------------------------------------

def _live_brokers(m: re.Match, ctx: LineContext) -> list:
    """The live brokers a new controller found (logged before `Ready to serve ...`): the
    file's parser gives them to the ControllerFailover that follows."""
    return [{"fact": "live_brokers", "brokers": parse_int_list(m["b"])}]


def _row(name: str, source: str, first: str, last: str | None, keyword: str, regex: str, build=_none) -> MessagePattern:
    return MessagePattern(name, source, first, last, keyword, re.compile(regex), build)


KC = "KafkaController.scala"

PATTERNS: tuple[MessagePattern, ...] = (
    # §3.1 Controller election, failover, resignation ------------------------------------
    _row("ctl.elected.leader", "ZookeeperLeaderElector.scala elect @0.8.0..@0.10.2 (server.log, no logIdent)",
         "0.8.0", "0.10.2.2", "%d", r"(?P<b>\d+) successfully elected as leader$", _elected),
    _row("ctl.elected", f"{KC} elect @0.11.0..@2.0", "0.11.0.0", "2.0.1", "%d",
         r"(?P<b>\d+) successfully elected as the controller$", _elected),
    _row("ctl.elected.epoch", f"{KC} elect @2.1..@3.9", "2.1.0", None, "%d",
         r"(?P<b>\d+) successfully elected as the controller\. Epoch incremented to (?P<e>\d+) "
         r"and epoch zk version is now -?\d+$", _elected),
    _row("ctl.failover.ready.old", f"{KC} onControllerFailover @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "broker",
         r"Broker (?P<b>\d+) is ready to serve as the new controller with epoch (?P<e>\d+)$", _failover),
    _row("ctl.failover.ready", f"{KC} onControllerFailover @1.0..@3.9", "1.0.0", None, "ready",
         r"Ready to serve as the new controller with epoch (?P<e>\d+)$", _failover),
    # The rest of failover and resignation: progress, no controller input of its own.
    _row("ctl.failover.begin.old", f"{KC} onControllerFailover @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "broker",
         r"Broker \d+ (?:starting become controller state transition|resigned as the controller)$"),
    _row("ctl.failover.begin.1_0", f"{KC} onControllerFailover @1.0.2", "1.0.0", "1.0.2", "starting",
         r"Starting become controller state transition$"),
    _row("ctl.failover.epoch.old", f"{KC} incrementControllerEpoch @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "controller",
         r"Controller (?P<b>\d+) incremented epoch to (?P<e>\d+)$", _epoch_incremented),
    _row("ctl.failover.epoch.1_0", f"{KC} incrementControllerEpoch @1.0.2", "1.0.0", "1.0.2", "incremented",
         r"Incremented epoch to (?P<e>\d+)$", _epoch_incremented),
    _row("ctl.failover.epoch.read.old", f"{KC} readControllerEpochFromZookeeper @0.8.0..@2.0.1", "0.8.0", "2.0.1",
         "initialized", r"Initialized controller epoch to \d+ and zk version \d+$"),
    _row("ctl.failover.registering", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "registering",
         r"Registering handlers$"),
    _row("ctl.failover.deleting", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "deleting",
         r"Deleting (?:log dir event|isr change) notifications$"),
    _row("ctl.failover.initializing", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "initializing",
         r"Initializing (?:controller context|topic deletion manager)$"),
    _row("ctl.failover.token_expiry", f"{KC} onControllerFailover @1.1.1..@3.9 (delegation tokens enabled)", "1.1.0", None,
         "starting", r"starting the token expiry check scheduler$"),
    # 1.1-2.0 announce the epoch read and write (2.1 folds them into one ZooKeeper call).
    _row("ctl.failover.epoch.reading", f"{KC} onControllerFailover @1.1.1..@2.0.1", "1.1.0", "2.0.1", "reading",
         r"Reading controller epoch from ZooKeeper$"),
    _row("ctl.failover.epoch.incrementing", f"{KC} onControllerFailover @1.1.1..@2.0.1", "1.1.0", "2.0.1", "incrementing",
         r"Incrementing controller epoch in ZooKeeper$"),
    _row("ctl.failover.epoch.error", f"{KC} incrementControllerEpoch @0.8.0..@2.0.1 (ERROR)", "0.8.0", "2.0.1", "error",
         r"Error while incrementing controller epoch$"),
    _row("ctl.failover.epochs", f"{KC} initializeControllerContext @2.2..@3.9", "2.2.0", None, "initialized",
         r"Initialized broker epochs cache: .*$"),
    _row("ctl.failover.live", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "currently",
         r"Currently active brokers in the cluster: (?P<b>.*)$", _live_brokers),
    _row("ctl.failover.context", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "currently",
         r"Currently shutting brokers in the cluster: .*$"),
    _row("ctl.failover.topics", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "current",
         r"Current list of topics in the cluster: .*$"),
    _row("ctl.failover.fetching", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "fetching",
         r"Fetching topic deletions in progress$"),
    # At failover the new controller resumes deletions already requested; their start was logged
    # ("Starting topic deletion for topics ...") by the controller that received the request.
    _row("ctl.failover.deletions", f"{KC} fetchTopicDeletionsInProgress @0.11..@3.9", "0.8.1", None, "list",
         r"List of topics (?:to be deleted|ineligible for deletion): .*$"),
    _row("ctl.failover.metadata", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "sending",
         r"Sending update metadata request$"),
    _row("ctl.failover.scheduler", f"{KC} onControllerFailover @0.11.0..@3.9 (not @0.10.2.2)", "0.11.0", None, "starting",
         r"[Ss]tarting the controller scheduler$"),
    _row("ctl.failover.pending", f"{KC} fetchPendingPreferredReplicaElections, initializePartitionReassignment @0.8.0..@3.9",
         "0.8.0", None, "partitions",
         r"Partitions (?:undergoing preferred replica election|that completed preferred replica election|being reassigned"
         r"|already reassigned): .*$"),
    _row("ctl.failover.resuming", f"{KC} fetchPendingPreferredReplicaElections @0.8.0..@3.9", "0.8.0", None, "resuming",
         r"Resuming (?:preferred replica election for partitions|reassignment of partitions): .*$"),
    _row("ctl.failover.skipping", f"{KC} fetchPendingPreferredReplicaElections @0.8.0..@3.9", "0.8.0", None, "skipping",
         r"Skipping preferred replica election for partitions due to topic deletion: .*$"),
    # 0.8.2-1.0 (ERROR) and 2.2-2.3 (WARN); 2.4+ writes ctl.election.skipping's sentence.
    _row("ctl.preferred.skipping_deleted", f"{KC} onPreferredReplicaElection @0.8.2.2..@1.0.2, @2.2.2..@2.3.1", "0.8.2",
         "2.3.1", "skipping", r"Skipping preferred replica election for partitions .* since the respective topics are "
         r"being deleted$"),
    _row("ctl.startup.old", f"{KC} startup @0.8.0..@0.10.2.2", "0.8.0", "0.10.2.2", "controller",
         r"Controller (?:starting up|startup complete)$"),
    _row("ctl.elect.error.old", "ZookeeperLeaderElector.scala elect @0.8.0..@0.10.2.2 (ERROR, stack trace glued)",
         "0.8.0", "0.10.2.2", "error", r"Error while electing or becoming leader on broker \d+$"),
    _row("ctl.elect.error", f"{KC} elect @0.11.0.3..@3.9 (ERROR, stack trace glued; 2.1+ adds the sentence)", "0.11.0.0",
         None, "error", r"Error while electing or becoming controller on broker \d+(?:\. Trigger controller movement "
         r"immediately)?$"),
    # UpdateMetadata for a partition with no leader yet (a new topic before its election).
    _row("ctl.update_metadata.no_leader.0_8_0", "ControllerChannelManager.scala @0.8.0", "0.8.0", "0.8.1", "leader",
         r"Leader not assigned yet for partition \S+\. Skip sending udpate metadata request$"),
    _row("ctl.update_metadata.no_leader", "ControllerChannelManager.scala ControllerBrokerRequestBatch @0.8.2.2..@3.9",
         "0.8.1", None, "leader", r"Leader not yet assigned for partition \S+\. Skip sending UpdateMetadataRequest\.$"),
    _row("ctl.resigned", f"{KC} onControllerResignation @1.1..@3.9", "1.0.0", None, "resigned", r"Resigned$"),
    _row("ctl.resigning.0_9", f"{KC} onControllerResignation @0.9.0.1..@0.11.0.3 (DEBUG)", "0.9.0", "0.11.0.3",
         "controller", r"Controller resigning, broker id \d+$"),
    _row("ctl.resigning", f"{KC} onControllerResignation @1.1..@3.9 (DEBUG)", "1.0.0", None, "resigning", r"Resigning$"),
    _row("ctl.moved", f"{KC} process @1.1..@3.9", "1.0.0", None, "controller",
         r"Controller moved to another broker when processing .*$"),
    _row("ctl.elect.race", f"{KC} elect @0.11..@3.9; ZookeeperLeaderElector @0.8.0..@0.10.2", "0.8.0", None, "a",
         r"A (?:controller|leader) has been elected but just resigned, this will result in another round of election$"),
    _row("ctl.elect.other", f"{KC} elect @0.11..@3.9; ZookeeperLeaderElector @0.8.0..@0.10.2 (DEBUG)", "0.8.0", None, "broker",
         r"Broker \d+ (?:has been elected as (?:the controller|leader), so stopping the election process\."
         r"|was elected as (?:controller|leader) instead of broker \d+)$"),
    _row("ctl.resign.forced", f"{KC} handleIllegalState @0.11..@3.9", "0.8.0", None, "forcing",
         r"Forcing the controller to resign$"),
    _row("ctl.elector.new_leader", "ZookeeperLeaderElector.scala LeaderChangeListener @0.8.0..@0.10.2 (server.log)",
         "0.8.0", "0.10.2.2", "new", r"New leader is \d+$"),
    _row("ctl.znode.create", "ZkUtils.scala ZKCheckedEphemeral @0.9.0.1..@1.1.1, KafkaZkClient.scala "
         "registerControllerAndIncrementControllerEpoch @1.1..@3.9 (server.log; seen in a real 1.0.2 capture)", "0.9.0", None, "creating", r"Creating /controller \(is it secure\? (?:true|false)\)$"),
    _row("ctl.znode.result", "KafkaZkClient.scala checkedEphemeralCreate @1.1.1..@2.1.0 (server.log; the controller's "
         "znode and the broker's registration; 2.2 logs the Stat instead)", "1.1.0", "2.1.1", "result",
         r"Result of znode creation at /(?:controller|brokers/ids/\d+) is: \w+$"),
    # The broker's own registration in ZooKeeper (server.log, kafka.zk.KafkaZkClient): the
    # controller's "New broker startup callback" is the input the replay takes.
    _row("srv.zk.broker_znode", "ZkUtils.scala ZKCheckedEphemeral @0.9.0.1..@2.1.1, KafkaZkClient.scala registerBroker "
         "@2.2..@3.9 (server.log; seen in a real 1.0.2 capture)", "0.9.0", None, "creating",
         r"Creating /brokers/ids/\d+ \(is it secure\? (?:true|false)\)$"),
    # ZooKeeper's Stat.toString ends in a newline: the `(kafka.zk.KafkaZkClient)` of this record
    # is on the next line, so the envelope sees no logger and the record must be a row.
    _row("srv.zk.broker_znode_stat", "KafkaZkClient.scala registerBroker @2.2..@3.9 (server.log)", "2.2.0", None, "stat",
         r"Stat of the created znode at /brokers/ids/\d+ is: [\d,]+$"),
    _row("srv.zk.broker_registered", "KafkaZkClient.scala registerBroker @2.2..@3.9 (server.log; czxid = broker epoch, KIP-380)",
         "2.2.0", None, "registered",
         r"Registered broker \d+ at path /brokers/ids/\d+ with addresses: .*, czxid \(broker epoch\): -?\d+$"),
    _row("srv.zk.controller_epoch", "KafkaZkClient.scala maybeCreateControllerEpochZNode @2.x..@3.9 (server.log)", "2.1.0",
         None, "successfully", r"Successfully created /controller_epoch with initial epoch \d+$"),
    _row("srv.zk.broker_registered.0_9", "ZkUtils.scala registerBrokerInZk @0.9.0.1..@1.0.2 (kafka.utils.ZkUtils; real "
         "0.9-1.0 captures), KafkaZkClient.scala @1.1.1..@2.1.0 (server.log)", "0.9.0",
         "2.1.1", "registered", r"Registered broker \d+ at path /brokers/ids/\d+ with addresses: "
         r"(?!.*, czxid \(broker epoch\): -?\d+$).*$"),
    _row("srv.zk.broker_updated", "KafkaZkClient.scala updateBrokerInfo @1.1.1..@3.9 (server.log; a listener changed)",
         "1.1.0", None, "updated", r"Updated broker \d+ at path /brokers/ids/\d+ with addresses: .*$"),
    # A ZooKeeper session that expired and came back (server.log): the broker's (or the controller's)
    # ephemeral znode is re-created. The membership change is the controller's broker callbacks.
    _row("srv.zk.ephemeral_owner", "KafkaZkClient.scala CheckedEphemeral @2.2.0..@3.9 (owner and session in decimal, "
         "`0x` hex from 3.5)", "2.2.0", None, "was",
         r"Was not possible to create the ephemeral at \S+, node already exists and owner '(?:0x[0-9a-f]+|-?\d+)' does "
         r"not match current session '(?:0x[0-9a-f]+|-?\d+)', trying to delete and re-create it with the newest "
         r"Zookeeper session$"),
    _row("srv.zk.ephemeral_gone", "KafkaZkClient.scala CheckedEphemeral @1.1.1..@3.9", "1.1.0", None, "the",
         r"The ephemeral node at \S+ went away while reading it, attempting create\(\) again$"),
    _row("srv.zk.ephemeral_error", "KafkaZkClient.scala CheckedEphemeral @1.1.1..@3.9 (ERROR; the owner mismatch's ids "
         "in decimal @1.1.1..@3.3.2, `0x` hex from 3.5)", "1.1.0", None, "error",
         r"Error while creating ephemeral at \S+(?: with return code: \w+|, node already exists and owner "
         r"'(?:0x[0-9a-f]+|-?\d+)' does not match current session '(?:0x[0-9a-f]+|-?\d+)'"
         r"| as it already exists and error getting the node data due to \w+)$"),
    _row("srv.zk.ephemeral_delete_error", "KafkaZkClient.scala CheckedEphemeral @2.2.0..@3.9 (ERROR)", "2.2.0", None,
         "error", r"Error while deleting ephemeral node at \S+ with return code: \w+$"),
    _row("srv.zk.reassignment_invalid", "KafkaZkClient.scala getPartitionReassignment @2.0.1..@3.9 (WARN)", "2.0.0", None,
         "ignoring", r"Ignoring partition reassignment due to invalid json: .*$"),

    # §3.2 Broker membership -------------------------------------------------------------------
    _row("ctl.broker.startup", f"{KC} onBrokerStartup @0.8.0..@3.9", "0.8.0", None, "new",
         rf"New broker startup callback for (?P<b>{_IDS})$", _brokers("BrokerStartup")),
    _row("ctl.broker.failure", f"{KC} onBrokerFailure @0.8.0..@3.9", "0.8.0", None, "broker",
         rf"Broker failure callback for (?P<b>{_IDS})$", _brokers("BrokerFailure")),
    # The listener's view of /brokers/ids; the callbacks above are the controller's inputs.
    _row("ctl.broker.listener", "ReplicaStateMachine.scala BrokerChangeListener @0.8.0..@0.10.2", "0.8.0", "0.10.2.2",
         "broker", r"Broker change listener fired for path /brokers/ids with children .*$"),
    # The other ZooKeeper listeners of 0.8-0.10 say they fired (DEBUG), with the znode's data; what
    # they set off, the controller's own lines say. Seen unread in a real 0.10.2.2 capture. 0.8.0-0.10.1
    # name two of them `[PartitionsReassignedListener on N]: ` and `[PreferredReplicaElectionListener
    # on N]: ` (a logIdent prefix.py does not know); 0.10.2's ControllerZkListener says `on Controller N`.
    _row("ctl.listener.topic_change", "PartitionStateMachine.scala TopicChangeListener @0.8.0..@0.10.2.2 (DEBUG)", "0.8.0",
         "0.10.2.2", "topic", r"Topic change listener fired for path /brokers/topics with children .*$"),
    _row("ctl.listener.reassigned_isr", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@0.10.2.2 (DEBUG)", "0.8.0",
         "0.10.2.2", "reassigned", r"Reassigned partitions isr change listener fired for path \S+ with children .*$"),
    _row("ctl.listener.reassigned.0_8", f"{KC} PartitionsReassignedListener @0.8.0..@0.10.1.1 (DEBUG)", "0.8.0", "0.10.1.1",
         "[partitionsreassignedlistener", r"\[PartitionsReassignedListener on \d+\]: Partitions reassigned listener fired "
         r"for path \S+\. Record partitions to be reassigned .*$"),
    _row("ctl.listener.reassigned", f"{KC} PartitionsReassignedListener @0.10.2.0..@0.10.2.2 (DEBUG)", "0.10.2.0",
         "0.10.2.2", "partitions",
         r"Partitions reassigned listener fired for path \S+\. Record partitions to be reassigned .*$"),
    _row("ctl.listener.preferred.0_8", f"{KC} PreferredReplicaElectionListener @0.8.0..@0.10.1.1 (DEBUG)", "0.8.0",
         "0.10.1.1", "[preferredreplicaelectionlistener", r"\[PreferredReplicaElectionListener on \d+\]: Preferred replica "
         r"election listener fired for path \S+\. Record partitions to undergo preferred replica election .*$"),
    _row("ctl.listener.preferred", f"{KC} PreferredReplicaElectionListener @0.10.2.0..@0.10.2.2 (DEBUG)", "0.10.2.0",
         "0.10.2.2", "preferred",
         r"Preferred replica election listener fired for path \S+\. Record partitions to undergo preferred replica "
         r"election .*$"),
    _row("ctl.listener.isr_notification", f"{KC} IsrChangeNotificationListener @0.10.2.0..@0.10.2.2 (DEBUG; no line "
         "before)", "0.10.2.0", "0.10.2.2", "isr", r"ISR change notification listener fired$"),
    _row("ctl.listener.isr_notification.0_9", f"{KC} IsrChangeNotificationListener @0.9.0.1..@0.10.1.1 (DEBUG; its name "
         "written into the message; a real 0.9.0.1 capture)", "0.9.0", "0.10.1.1", "[isrchangenotificationlistener]",
         r"\[IsrChangeNotificationListener\] Fired!!!$"),
    _row("ctl.broker.change", f"{KC} BrokerChange @0.8.0..@2.1; processBrokerChange @2.2..@3.9", "0.8.0", None, "newly",
         r"Newly added brokers: [\d,]*, deleted brokers: [\d,]*, (?:bounced brokers: [\d,]*, )?all live brokers: [\d,]*$"),
    _row("ctl.broker.epochs", f"{KC} processBrokerChange @2.2..@3.9", "2.2.0", None, "updated",
         r"Updated broker epochs cache: .*$"),
    _row("ctl.broker.update", f"{KC} onBrokerUpdate @1.1..@3.9", "1.1.0", None, "broker",
         r"Broker info update callback for \d+$"),
    _row("ctl.broker.metadata", f"{KC} processBrokerModification @2.3..@3.9", "2.3.0", None, "updated",
         r"Updated broker metadata: .* -> .*$"),
    _row("ctl.broker.metadata.1_1", f"{KC} BrokerModifications @1.1.1..@2.2.2 (2.3 prints both sides)", "1.1.0",
         "2.2.2", "updated", r"Updated broker: Broker\(.*\)$"),
    _row("ctl.broker.shutting_removed", f"{KC} onBrokerFailure @0.8.0..@3.9", "0.8.0", None, "removed",
         r"Removed .* from list of shutting down brokers\.$"),
    _row("ctl.broker.handlers", f"{KC} registerBrokerModificationsHandler @1.1..@3.9 (DEBUG)", "1.1.0", None,
         "register", r"Register BrokerModifications handler for .*$"),
    _row("ctl.broker.handlers.off", f"{KC} unregisterBrokerModificationsHandler @1.1..@3.9 (DEBUG)", "1.1.0", None,
         "unregister", r"Unregister BrokerModifications handler for .*$"),
    _row("ctl.broker.logdir", f"{KC} onBrokerLogDirFailure @1.0..@3.9", "1.0.0", None, "handling",
         r"Handling log directory failure for brokers [\d,]*$"),

    # §3.4 Controlled shutdown -----------------------------------------------------------------
    _row("ctl.shutdown", f"{KC} shutdownBroker @0.8.0..@0.10.2; doControlledShutdown @0.11..@3.9", "0.8.0", None,
         "shutting", r"Shutting down broker (?P<b>\d+)$", _brokers("ControlledShutdown")),
    _row("ctl.shutdown.debug", f"{KC} doControlledShutdown @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "all",
         r"All shutting down brokers: [\d,]*$"),
    _row("ctl.shutdown.live", f"{KC} doControlledShutdown @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "live",
         r"Live brokers: [\d,]*$"),
    _row("ctl.shutdown.leaders", f"{KC} doControlledShutdown @0.8.0..@3.9 (TRACE; the whole leadership cache)", "0.8.0", None,
         "all", r"All leaders = .*$"),
    # A request from a broker incarnation the controller has seen restart (KIP-380): refused, nothing moves.
    _row("ctl.shutdown.stale_epoch", f"{KC} doControlledShutdown @2.2.0..@3.9", "2.2.0", None, "received",
         r"Received controlled shutdown request from an old broker epoch \d+ for broker \d+\. Current broker epoch is "
         r"\d+\.$"),

    # Topic creation, partition addition ---------------------------------------------------------
    # TopicCreation from the TopicChange line (it carries the assignment); the callback lines
    # that follow repeat the partitions without replicas.
    _row("ctl.topic.new", "PartitionStateMachine.scala TopicChangeListener @0.8.0..@0.10.2; "
         f"{KC} TopicChange @0.11..@3.9", "0.8.0", None, "new",
         r"New topics: \[[^\]]*\], deleted topics: \[[^\]]*\], new partition replica assignment \[(?P<a>.*)\]$",
         _creation("TopicCreation")),
    _row("ctl.topic.callback", f"{KC} onNewTopicCreation, onNewPartitionCreation @0.8.0..@3.9", "0.8.0", None, "new",
         r"New (?:topic|partition) creation callback for .*$"),
    _row("ctl.partition.new.listener", "PartitionStateMachine.scala AddPartitionsListener / PartitionModificationsListener "
         "@0.8.0..@0.10.1 (logIdent `[AddPartitionsListener on N]: `; 0.8.0-0.8.1 bracket the map)", "0.8.0", "0.10.1.1",
         "[addpartitionslistener", r"\[AddPartitionsListener on (?P<b>\d+)\]: New partitions to be added (?P<a>.*)$",
         _creation("PartitionCreation")),
    _row("ctl.partition.listener.quiet", "PartitionStateMachine.scala AddPartitionsListener @0.8.0..@0.10.1",
         "0.8.0", "0.10.1.1", "[addpartitionslistener",
         r"\[AddPartitionsListener on \d+\]: (?:Add Partition triggered |Partition modification triggered "
         r"|Skipping adding partitions ).*$"),
    # 0.10.2's listeners print `[AddPartitionsListener on Controller N]: ` (ControllerZkListener), a
    # logIdent prefix.py strips; the sentences are the later ones.
    _row("ctl.partition.modification", "PartitionStateMachine.scala AddPartitionsListener @0.10.2.0..@0.10.2.2",
         "0.10.2.0", "0.10.2.2", "partition", r"Partition modification triggered .* for path \S+$"),
    _row("ctl.partition.new", f"{KC} PartitionModifications @0.11..@3.9, AddPartitionsListener @0.10.2", "0.10.2.0", None,
         "new",
         r"New partitions to be added (?P<a>.*)$", _creation("PartitionCreation")),
    _row("ctl.partition.skipping", f"{KC} processPartitionModifications @0.11..@3.9, AddPartitionsListener @0.10.2",
         "0.10.2.0", None, "skipping",
         r"Skipping adding partitions [\d,]* for topic \S+ since it is currently being deleted$"),
    _row("ctl.partition.restoring", f"{KC} processPartitionModifications @2.4..@3.9", "1.1.0", None, "restoring",
         r"Restoring the partition replica assignment for topic \S+$"),
    _row("ctl.partition.ignoring", f"{KC} processPartitionModifications @2.4..@3.9", "1.1.0", None, "ignoring",
         r"Ignoring partition change during topic deletion as no new partitions are added$"),

    # §3.3 Reassignment --------------------------------------------------------------------------
    _row("ctl.reassign.handling", f"{KC} initiateReassignReplicasForTopicPartition @0.8.0..@2.3", "0.8.0", "2.3.1",
         "handling", rf"Handling reassignment of partition {_TP} to new replicas (?P<r>{_IDS})$", _reassignment_old),
    # KIP-455: the start is the U1 write (INFO); its DEBUG twin "Updating assignment of
    # partition ... from ... to ..." repeats it.
    _row("ctl.reassign.updated", f"{KC} updateReplicaAssignmentForPartition @2.4..@3.9", "2.4.0", None, "successfully",
         rf"Successfully updated assignment of partition {_TP} to ReplicaAssignment\(replicas=(?P<r>{_IDS}), "
         rf"addingReplicas=(?P<a>{_INTS}), removingReplicas=(?P<rm>{_INTS})\)$", _reassignment_kip455),
    _row("ctl.reassign.updating", f"{KC} updateCurrentReassignment @2.4..@3.9 (DEBUG)", "2.4.0", None, "updating",
         rf"Updating assignment of partition {_TP} from ReplicaAssignment\(.*\) to ReplicaAssignment\(.*\)$"),
    _row("ctl.reassign.waiting", f"{KC} onPartitionReassignment @0.8.0..@2.3", "0.8.0", "2.3.1", "new",
         r"New replicas [\d,]* for partition \S+ being reassigned not yet caught up with the leader$"),
    _row("ctl.reassign.waiting2", f"{KC} onPartitionReassignment @0.8.0..@2.3", "0.8.0", "2.3.1", "waiting",
         r"Waiting for new replicas [\d,]* for partition \S+ being reassigned to catch up with the leader$"),
    _row("ctl.reassign.assigned", f"{KC} updateAssignedReplicasForPartition @0.8.0..@2.3", "0.8.0", "2.3.1", "updated",
         r"Updated assigned replicas for partition \S+ being reassigned to [\d,]* ?$"),
    # KAFKA-13233 added the zkVersion in 2.7.2, 2.8.1 and 3.1.0, not 2.8.0 or 3.0.x: each row spans the
    # releases around those that print the other form (detection may not exclude a release that prints it).
    _row("ctl.reassign.epoch", f"{KC} updateLeaderEpoch @0.8.2.2..@2.7.1, @2.8.0, @3.0.2", "0.8.1", "3.0.2", "updated",
         r"Updated leader epoch for partition \S+ to \d+$"),
    # The same write, 3.x wording. No event: it names neither leader nor ISR (a LeaderAndIsr event
    # needs both); the "Sent LeaderAndIsr request ... for partition being reassigned" line (TRACE)
    # and the new leader's "Leader t-0 ... starts at leader epoch" line (INFO) carry the value.
    _row("ctl.reassign.epoch.zk_version", f"{KC} updateLeaderEpoch @2.7.2, @2.8.1..@2.8.2, @3.1.0..@3.9 (3.3+ prints "
         "leaderAndIsr.partitionEpoch)", "2.7.2", None, "updated",
         r"Updated leader epoch for partition \S+ to \d+, zkVersion=\d+$"),
    _row("ctl.reassign.epoch.updating", f"{KC} updateLeaderEpoch @0.8.2.2..@3.9 (DEBUG)", "0.8.2", None, "updating",
         r"Updating leader epoch for partition \S+$"),
    _row("ctl.reassign.removed", f"{KC} onPartitionReassignment @0.8.0..@2.2", "0.8.0", "2.2.2", "removed",
         r"Removed partition \S+ from the list of reassigned partitions in zookeeper$"),
    _row("ctl.reassign.removing", f"{KC} removePartitionsFromReassignedPartitions @2.3, maybeRemoveFromZkReassignment @2.4..@3.9",
         "2.0.0", None, "removing", r"Removing partitions .* from the list of reassigned partitions in zookeeper$"),
    _row("ctl.reassign.done", f"ZkUtils.scala updatePartitionReassignmentData @0.8.0..@1.0.2 (seen in a real 1.0.2 "
         f"capture), {KC} @1.1.1..@3.9", "0.8.0", None, "no",
         r"No more partitions need to be reassigned\. Deleting zk path /admin/reassign_partitions$"),
    _row("ctl.reassign.never_created", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0, "
         "processPartitionReassignmentIsrChange @2.3.1 (ERROR)", "0.8.0",
         "2.3.1", "error", r"Error handling reassignment of partition \S+ to replicas .* as it was never created$"),
    _row("ctl.reassign.unknown_partition", f"{KC} maybeTriggerPartitionReassignment @1.1.1..@2.3.1 (ERROR)", "1.1.0", "2.3.1",
         "ignoring", r"Ignoring request to reassign partition \S+ that doesn't exist\.$"),
    _row("ctl.reassign.leader", f"{KC} moveReassignedPartitionLeaderIfRequired @0.8.0..@3.9", "0.8.0", None, "leader",
         r"Leader -?\d+ for partition \S+ being reassigned, is (?:not in the new list of replicas [\d,]*\. Re-electing leader"
         r"|already in the new list of replicas [\d,]* (?:and is alive|but is dead))$"),
    _row("ctl.reassign.caught_up", f"{KC} processPartitionReassignmentIsrChange @2.4..@3.9", "2.4.0", None, "target",
         rf"Target replicas (?P<r>\w*\([\d, ]*\)) have all caught up with the leader for reassigning partition {_TP}$",
         _reassignment_caught_up),
    _row("ctl.reassign.failed", f"{KC} processZkPartitionReassignment @2.4..@3.9", "2.4.0", None, "failed",
         r"Failed reassignment through zk with the following errors: .*$"),
    # The ISR listener of a partition being reassigned (0.8-2.3): the reassignment goes on.
    _row("ctl.reassign.resuming.old", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@1.0.2", "0.8.0", "1.0.2",
         "%d/%d", rf"\d+/\d+ replicas have caught up with the leader for partition {_TP} being reassigned\.Resuming "
         r"partition reassignment$", _reassignment_caught_up),
    _row("ctl.reassign.resuming", f"{KC} PartitionReassignmentIsrChange @1.1.1..@2.3.1", "1.1.0", "2.3.1", "%d/%d",
         rf"\d+/\d+ replicas have caught up with the leader for partition {_TP} being reassigned\. Resuming partition "
         r"reassignment$", _reassignment_caught_up),
    # The controller's ISR removal of a replica already out of the ISR: nothing written.
    _row("ctl.isr.cannot_remove.0_8_0", f"{KC} removeReplicaFromIsr @0.8.0 (WARN)", "0.8.0", "0.8.1", "cannot",
         r"Cannot remove replica \d+ from ISR of \S+\. Leader = -?\d+ ; ISR = .*$"),
    _row("ctl.isr.cannot_remove", f"{KC} removeReplicaFromIsr @0.8.2.2..@1.0.2 (WARN)", "0.8.2", "1.0.2", "cannot",
         r"Cannot remove replica \d+ from ISR of partition \S+ since it is not in the ISR\. Leader = -?\d+ ; ISR = .*$"),
    _row("ctl.reassign.skipping", f"{KC} maybeTriggerPartitionReassignment @1.1.1..@3.9", "1.1.0", None, "skipping",
         r"Skipping reassignment of \S+ since the topic is currently being deleted$"),
    _row("ctl.reassign.already", f"{KC} maybeTriggerPartitionReassignment @2.3 (an exception message before)",
         "1.1.0", "2.3.1", "partition",
         r"Partition \S+ to be reassigned is already assigned to replicas [\d,]*\. "
         r"Ignoring request for partition reassignment\.?$"),
    _row("ctl.reassign.error", f"{KC} @0.8.0..@3.9", "0.8.0", None, "error",
         r"Error completing reassignment of partition \S+.*$"),

    # §3.4 Preferred / unclean election requests ------------------------------------------------
    _row("ctl.election.preferred", f"{KC} onPreferredReplicaElection @0.8.0..@2.3", "0.8.0", "2.3.1", "starting",
         r"Starting preferred replica leader election for partitions ?(?P<ps>\S*)$", _election),
    _row("ctl.election.start", f"{KC} onReplicaElection @2.4..@3.9", "2.4.0", None, "starting",
         r"Starting replica leader election \((?P<type>PREFERRED|UNCLEAN)\) for partitions (?P<ps>\S*) triggered by \w+$",
         _election),
    _row("ctl.election.auto", f"{KC} processAutoPreferredReplicaLeaderElection @2.3..@3.9", "1.1.0", None, "processing",
         r"Processing automatic preferred replica leader election$"),
    _row("ctl.election.check", f"{KC} checkAndTriggerAutoLeaderRebalance @0.11.0.3..@3.9 (TRACE)", "0.11.0", None, "checking",
         r"Checking need to trigger auto leader balancing$"),
    _row("ctl.election.check_08", f"{KC} checkAndTriggerPartitionRebalance @0.8.2.2..@0.10.2.2 (TRACE)", "0.8.1", "0.10.2.2",
         "checking", r"checking need to trigger partition rebalance$"),
    _row("ctl.election.scheduler_08", f"{KC} onControllerFailover @0.8.1 (seed)..@0.10.2.2, when auto.leader.rebalance.enable",
         "0.8.1", "0.10.2.2", "starting", r"starting the partition rebalance scheduler$"),
    _row("ctl.election.ratio", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.0..@3.9 (TRACE)", "0.8.0", None, "leader",
         r"[Ll]eader imbalance ratio for broker \d+ is [\d.E-]+$"),
    # The same check's DEBUG lines (kafka.controller logs at TRACE to controller.log by the stock
    # log4j.properties): every leader.imbalance.check.interval.seconds wherever auto.leader.rebalance.enable
    # is on, its default from 0.8.2. Scala Map dumps; the elections they lead to are logged apart.
    _row("ctl.election.by_broker", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.2.2..@2.4.1 (DEBUG; gone in 2.5.1)",
         "0.8.1", "2.4.1", "preferred", r"[Pp]referred replicas by broker (?:Hash)?Map\(.*\)$"),
    _row("ctl.election.not_preferred_10", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.2.2..@1.0.2 (DEBUG)",
         "0.8.1", "1.0.2", "topics", r"[Tt]opics not in preferred replica (?:Hash)?Map\(.*\)$"),
    _row("ctl.election.not_preferred", f"{KC} checkAndTriggerAutoLeaderRebalance @1.1.1..@3.9.1 (DEBUG)", "1.1.0", None,
         "topics", r"Topics not in preferred replica for broker \d+ (?:Hash)?Map\(.*\)$"),
    _row("ctl.election.completed", f"{KC} removePartitionsFromPreferredReplicaElection @0.8.0..@3.9", "0.8.0", None,
         "partition", r"Partition \S+ (?:completed preferred replica leader election\. New leader is \d+"
         r"|failed to complete preferred replica leader election(?: to \d+\. Leader is still|\. Leader is) -?\d+)$"),
    _row("ctl.election.error", f"{KC} onPreferredReplicaElection @0.11..@2.3, onReplicaElection @2.4..@3.9", "0.8.0", None,
         "error", r"Error completing (?:preferred )?replica leader election .*$"),
    _row("ctl.election.skipping", f"{KC} processReplicaLeaderElection @2.4..@3.9", "2.4.0", None, "skipping",
         r"Skipping replica leader election \((?:PREFERRED|UNCLEAN)\) for partitions? .*$"),
    _row("ctl.election.waiting", f"{KC} processReplicaLeaderElection @2.4..@3.9 (DEBUG; the admin call's results)", "2.4.0",
         None, "waiting", r"Waiting for any successful result for election type \((?:PREFERRED|UNCLEAN)\) by \w+ for partitions: .*$"),
    _row("ctl.election.selector", "PartitionLeaderSelector.scala PreferredReplicaPartitionLeaderSelector @0.8.0..@1.0",
         "0.8.0", "1.0.2", "current",
         r"Current leader \d+ for partition \S+ is not the preferred replica\. "
         r"(?:Trigerring|Triggering) preferred replica leader election$"),

    # Topic deletion ----------------------------------------------------------------------------
    _row("ctl.deletion.start.listener", "PartitionStateMachine.scala DeleteTopicsListener @0.8.1..@0.10.1", "0.8.1", "0.10.1.1",
         "[deletetopicslistener", r"\[DeleteTopicsListener on (?P<b>\d+)\]: Starting topic deletion for topics (?P<ts>\S+)$",
         _deletion),
    _row("ctl.deletion.listener.quiet", "PartitionStateMachine.scala DeleteTopicsListener @0.8.1..@0.10.1", "0.8.1", "0.10.1.1",
         "[deletetopicslistener",
         r"\[DeleteTopicsListener on \d+\]: (?:Delete topics listener fired for topics "
         r"|Ignoring request to delete non-existing topics "
         r"|Removing .* since delete topic is disabled).*$"),
    # Logged again, for every topic still queued, each time /admin/delete_topics changes: the
    # replay treats a repeat for a topic already being deleted as nothing new.
    _row("ctl.deletion.start", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None, "starting",
         r"Starting topic deletion for topics (?P<ts>\S+)$", _deletion),
    _row("ctl.deletion.fired", f"{KC} TopicDeletion @0.11..@3.9 (DEBUG), DeleteTopicsListener @0.10.2", "0.10.2.0", None,
         "delete",
         r"Delete topics listener fired for topics .* to be deleted$"),
    _row("ctl.deletion.ignoring", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None,
         "ignoring",
         r"Ignoring request to delete non-existing topics .*$"),
    _row("ctl.deletion.disabled", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None,
         "removing",
         r"Removing .* since delete topic is disabled$"),
    _row("ctl.deletion.resume", f"{KC} onBrokerStartup @0.8.1..@3.9", "0.8.1", None, "some",
         r"Some replicas .* for topics scheduled for deletion .* are on the newly restarted brokers .*\. "
         r"Signaling restart of topic deletion for these topics$"),
    # TopicDeletionManager: progress of deletions already started (logIdent unknown to prefix.py).
    _row("ctl.deletion.manager", "TopicDeletionManager.scala @0.8.1..@3.9 (logIdent `[Topic Deletion Manager N], ` <=2.0, "
         "`[Topic Deletion Manager N] ` after)", "0.8.1", None, "[topic", r"\[Topic Deletion Manager \d+\],? \S.*$"),
    # Its DeleteTopicsThread (0.8.1-0.10.2) logs under its thread name instead (ShutdownableThread's
    # logIdent `[delete-topics-thread-N], `): the deletion's progress, as the manager's lines.
    _row("ctl.deletion.thread", "TopicDeletionManager.scala DeleteTopicsThread @0.8.2.2..@0.10.2.2 (0.11 dropped the "
         "thread; 0.8.1, which brought topic deletion, not seen)", "0.8.1", "0.10.2.2", "[delete-topics-thread]",
         r"\[delete-topics-thread-\d+\], \S.*$"),

    # §3.5 Unclean leader election --------------------------------------------------------------
    _row("ctl.unclean.logged", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0", "0.8.0", "1.0.2",
         "no", rf"No broker in ISR is alive for {_TP}\. Elect leader (?P<l>\d+) from live brokers [\d,]*\. "
         r"There's potential data loss\.$", _unclean_logged),
    _row("ctl.unclean.selected", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0", "0.8.0", "1.0.2",
         "selected", r"Selected new leader and ISR .* for offline partition \S+$"),
    _row("ctl.unclean.clean", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0 (DEBUG)",
         "0.8.0", "1.0.2", "some", r"Some broker in ISR is alive for \S+\. Select \d+ from ISR [\d,]* to be the leader\.$"),
    _row("ctl.unclean.picking", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0.2 (DEBUG, "
         "before the WARN above or the failure)", "0.8.0", "1.0.2", "no",
         r"No broker in ISR is alive for \S+\. Pick the leader from the alive assigned replicas: [\d,]*$"),
    _row("ctl.shutdown.selector", "PartitionLeaderSelector.scala ControlledShutdownLeaderSelector @0.8.0..@1.0.2 (DEBUG)",
         "0.8.0", "1.0.2", "partition", r"Partition \S+ : current leader = -?\d+, new leader = -?\d+$"),
    _row("ctl.unclean.retaining", f"{KC} removeReplicaFromIsr @0.11", "0.8.0", None, "retaining",
         r"Retaining last ISR \d+ of partition \S+ since unclean leader election is disabled$"),
    _row("ctl.isr.removed", f"{KC} removeReplicaFromIsr @0.11 (the decision is in state-change.log)", "0.8.0", "1.0.2", "new",
         r"New leader and ISR for partition \S+ is .*$"),
    _row("ctl.unclean.default", f"{KC} processUncleanLeaderElectionEnable @2.3..@3.9", "1.1.0", None, "unclean",
         r"Unclean leader election has been enabled by default$", _unclean_enabled),
    _row("ctl.unclean.topic", f"{KC} processTopicUncleanLeaderElectionEnable @2.3..@3.9", "1.1.0", None, "unclean",
         r"Unclean leader election has been enabled for topic (?P<t>\S+)$", _unclean_enabled),

    # Controller threads and state machines in controller.log (their decisions are in state-change.log)
    _row("ctl.thread.request", "ControllerChannelManager.scala RequestSendThread @1.1..@3.9 (logIdent unknown to prefix.py)",
         "1.1.0", None, "[requestsendthread",
         r"\[RequestSendThread controllerId=\d+\] (?:Starting|Stopped|Shutting down|Shutdown completed"
         r"|Controller \d+ connected to .* for sending state change requests)$"),
    # 0.8-1.0: the thread's log ident is its name ("[%s], " to 0.10, "[%s]: " from 0.11; 1.0 may
    # put a thread-name prefix before it).
    _row("ctl.thread.request.0_8", "ControllerChannelManager.scala RequestSendThread, ShutdownableThread logIdent "
         "@0.8.0..@1.0.2", "0.8.0", "1.0.2", "[send-thread]",
         r"\[(?:\S+:)?Controller-\d+-to-broker-\d+-send-thread\][:,] (?:Starting|Stopped|Shutting down|Shutdown completed"
         r"|Controller \d+ connected to .* for sending state change requests|Controller \d+'s connection to broker .* was "
         r"unsuccessful|Controller \d+ epoch \d+ fails to send request .* to broker .*\. Reconnecting to broker\."
         r"|Controller \d+ fails to send a request to broker .*) ?$"),
    _row("ctl.thread.events", "ControllerEventManager.scala ControllerEventThread @1.1..@3.9", "1.1.0", None,
         "[controllereventthread",
         r"\[ControllerEventThread controllerId=\d+\] (?:Starting|Stopped|Shutting down|Shutdown completed)$"),
    _row("ctl.thread.request.unreachable", "ControllerChannelManager.scala RequestSendThread.brokerReady @1.1..@3.9 (WARN)",
         "1.1.0", None, "[requestsendthread",
         r"\[RequestSendThread controllerId=\d+\] Controller \d+'s connection to broker \S+ \(id: \d+ rack: \S+\) "
         r"was unsuccessful$"),
    # The request is retried; what it carried is in state-change.log (the controller's lines).
    _row("ctl.thread.request.send_failed", "ControllerChannelManager.scala RequestSendThread.doWork @1.1..@3.9 (WARN, stack trace glued)",
         "1.1.0", None, "[requestsendthread",
         r"\[RequestSendThread controllerId=\d+\] Controller \d+ epoch \d+ fails to send request .* to broker \S+ "
         r"\(id: \d+ rack: \S+\)\. Reconnecting to broker(?: \d+)?\.$"),
    # Any failure of one send (the thread interrupted as its broker goes, a bad response): the
    # connection is closed and the request retried; seen in a 3.9.2 capture (InterruptedException).
    _row("ctl.thread.request.error", "ControllerChannelManager.scala RequestSendThread.doWork @1.1..@3.9 (ERROR, stack trace glued)",
         "1.1.0", None, "[requestsendthread",
         r"\[RequestSendThread controllerId=\d+\] Controller \d+ fails to send a request to broker \S+ "
         r"\(id: \d+ rack: \S+\)$"),
    _row("ctl.thread.request.shutdown", "ShutdownableThread awaitShutdown (kafka.utils @1.1.1..@3.4.1, server-common "
         "after), RequestSendThread's logIdent @1.1..@3.9 (TRACE; seen in a real 2.8.2 capture)", "1.1.0", None,
         "[requestsendthread",
         r"\[RequestSendThread controllerId=\d+\] shutdownInitiated latch count reached zero\. Shutdown called\.$"),
    # The pre-1.1 controller's DEBUG lines (kafka.controller logs at TRACE in the stock config, so
    # every 0.8-1.0 controller.log has them; a real 1.0.2 capture showed them unread). What they
    # say, the state-change.log lines of the same decisions say too.
    _row("ctl.old.leader_cache", "PartitionStateMachine.scala electLeaderForPartition @0.8.0..@1.0.2 (DEBUG; `for t-0` "
         "from 0.11.0)", "0.8.0", "1.0.2", "after", r"After leader election, leader cache (?:for \S+ )?is updated to .*$"),
    _row("ctl.old.initializing", "PartitionStateMachine.scala initializeLeaderAndIsrForPartition @0.8.0..@1.0.2 (DEBUG)",
         "0.8.0", "1.0.2", "initializing", r"Initializing leader and isr for partition \S+ to .*$"),
    _row("ctl.old.live_assigned", "PartitionStateMachine.scala initializeLeaderAndIsrForPartition @0.8.0..@1.0.2 (DEBUG)",
         "0.8.0", "1.0.2", "live", r"Live assigned replicas for partition \S+ are: \[.*\]$"),
    _row("ctl.old.removing_from_isr", f"{KC} removeReplicaFromIsr @0.8.0..@1.0.2 (DEBUG)", "0.8.0", "1.0.2", "removing",
         r"Removing replica \d+ from ISR [\d,]* for partition \S+\.$"),
    _row("ctl.old.all_deleted", "ReplicaStateMachine.scala areAllReplicasForTopicDeleted @0.8.1..@1.0.2 (DEBUG)", "0.8.1",
         "1.0.2", "are", r"Are all replicas for topic \S+ deleted .*$"),
    _row("ctl.old.assignment_path", f"{KC} updateAssignedReplicasForPartition, AdminUtils @0.8.0..@1.0.2 (DEBUG)", "0.8.0",
         "1.0.2", "updated", r"Updated path \S+ with .* for replica assignment$"),
    _row("ctl.old.delete_callback", f"{KC} deleteTopicStopReplicaCallback @0.8.1..@2.2.2 (DEBUG)", "0.8.1", "2.2.2",
         "delete", r"Delete topic callback invoked for .*$"),
    _row("ctl.old.registering", f"{KC} @0.9.0.1..@1.0.2 (DEBUG; the log-dir listener from 1.0)", "0.9.0", "1.0.2",
         "registering", r"Registering (?:IsrChangeNotificationListener|logDirEventNotificationListener)$"),
    _row("ctl.old.deregistering", f"{KC} @0.9.0.1..@1.0.2 (DEBUG; the log-dir listener from 1.0)", "0.9.0", "1.0.2",
         "de-registering", r"De-registering (?:IsrChangeNotificationListener|logDirEventNotificationListener)$"),
    _row("ctl.old.reassign_waiting", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@2.3.1 (`.Replica(s)` until "
         "1.0.2, `. Replica(s)` after)", "0.8.0", "2.3.1", "%d/%d",
         r"\d+/\d+ replicas have caught up with the leader for partition \S+ being reassigned\. ?Replica\(s\) [\d,]* "
         r"still need to catch up$"),
    _row("ctl.thread.events.0_11", "ControllerEventManager.scala ControllerEventThread, ShutdownableThread logIdent "
         "@0.11.0.3..@1.0.2", "0.11.0", "1.0.2", "[controller-event-thread]:",
         r"\[controller-event-thread\]: (?:Starting|Stopped|Shutting down|Shutdown completed)$"),
    _row("ctl.channel.offline", "ControllerChannelManager.scala sendRequest @0.8.0..@3.9 (WARN)", "0.8.0", None, "not",
         r"Not sending request .* to broker \d+, since it is offline\.$"),
    # Requests the controller batches (DEBUG): the state changes that made them are the decisions.
    # A real 2.4.1 capture writes both; the ISR-change one only while brokers notify through
    # ZooKeeper (inter.broker.protocol.version below 2.7, before AlterIsr).
    _row("ctl.channel.stop_replica", "ControllerChannelManager.scala ControllerBrokerRequestBatch sendRequestsToBrokers "
         "@0.8.0..@2.5.1 (DEBUG; KIP-570 in 2.6.0 dropped it)", "0.8.0", "2.5.1", "the",
         r"The stop replica request \(delete = (?:true|false)\) sent to broker \d+ is .*$"),
    _row("ctl.isr_notification.metadata.0_9", f"{KC} processUpdateNotifications @0.9.0.1..@1.0.2 (DEBUG)", "0.9.0", "1.0.2",
         "sending", r"Sending MetadataRequest to Brokers:.* for TopicAndPartitions:.*$"),
    _row("ctl.isr_notification.metadata", f"{KC} processIsrChangeNotification @1.1.1..@3.9 (DEBUG)", "1.1.0", None,
         "sending", r"Sending MetadataRequest to Brokers: .* for TopicPartitions: .*$"),
    _row("ctl.channel.connect", "ControllerChannelManager.scala addNewBroker @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "controller",
         r"Controller \d+ trying to connect to broker \d+$"),
    _row("ctl.sm.invoking", "PartitionStateMachine.scala / ReplicaStateMachine.scala handleStateChanges @0.8.0..@0.11",
         "0.8.0", "1.0.2", "invoking", r"Invoking state change to \w+ for (?:partitions|replicas) .*$"),
    _row("ctl.sm.started", "PartitionStateMachine.scala / ReplicaStateMachine.scala startup @0.8.0..@3.9", "0.8.0", None,
         "started", r"Started (?:partition|replica) state machine with initial state -> .*$"),
    _row("ctl.sm.stopped", "PartitionStateMachine.scala / ReplicaStateMachine.scala shutdown @0.8.0..@3.9", "0.8.0", None,
         "stopped", r"Stopped (?:partition|replica) state machine$"),
    _row("ctl.sm.initializing", "ZkPartitionStateMachine / ZkReplicaStateMachine startup @1.1..@3.9", "1.1.0", None,
         "initializing", r"Initializing (?:partition|replica) state$"),
    _row("ctl.sm.triggering", "ZkPartitionStateMachine / ZkReplicaStateMachine startup @1.1..@3.9", "1.1.0", None,
         "triggering", r"Triggering (?:online|offline) (?:partition|replica) state changes$"),
    _row("ctl.sm.retrying", "PartitionStateMachine.scala doElectLeaderForPartitions @2.4..@3.9", "2.4.0", None, "retrying",
         r"Retrying leader election with strategy .* for partitions .*$"),

    # AlterPartition (KIP-497) handled by the controller (DEBUG). No event: the leader logs the
    # same commit at INFO ("ISR updated to ... and version updated to", srv.isr.updated, an
    # IsrChange); and controller.log sorts before state-change.log at the same millisecond, so an
    # event here could be replayed ahead of decisions this controller made before it.
    _row("ctl.isr.alter.updating", f"{KC} processAlterIsr @2.7..@3.1, tryProcessAlterPartition @3.2..@3.9 (DEBUG)", "2.7.0",
         None, "updating", r"Updating ISRs for partitions: .*\.$"),
    _row("ctl.isr.alter.updated.2_7", f"{KC} processAlterIsr @2.7.0..@3.1.2, tryProcessAlterPartition @3.2.3 (DEBUG; "
         "seen in a real 2.8.2 capture)", "2.7.0", "3.2.3", "isr",
         r"ISR for partition \S+ updated to \[[\d,]*\] and zkVersion updated to \[\d+\]$"),
    _row("ctl.isr.alter.updated", f"{KC} tryProcessAlterPartition @3.3.0..@3.9 (DEBUG)", "3.3.0",
         None, "isr", r"ISR for partition \S+ updated to LeaderAndIsr\(.*\)\.$"),
    # Topic deletion progress; the TopicDeletion input and the replica state changes are the events.
    _row("ctl.deletion.stop_replica_response", f"{KC} processTopicDeletionStopReplicaResponseReceived @2.3.1..@3.9 (DEBUG)",
         "2.3.0", None, "delete",
         r"Delete topic callback invoked on StopReplica response received from broker \d+: request error = \w+, "
         r"partition errors = .*$"),
    # Feature versioning (KIP-584) and producer-id blocks (KIP-730, ZkProducerIdManager with the
    # controller's logIdent): nothing about partitions.
    _row("ctl.feature.znode", f"{KC} createFeatureZNode @2.7..@3.9", "2.7.0", None, "creating",
         r"Creating FeatureZNode at path: /feature with contents: FeatureZNode\(.*\)$"),
    _row("ctl.feature.znode.update", f"{KC} updateFeatureZNode @2.7.2..@3.9", "2.7.0", None, "updating",
         r"Updating FeatureZNode at path: /feature with contents: FeatureZNode\(.*\)$"),
    _row("ctl.feature.znode.disabled", f"{KC} enableFeatureVersioning @2.7.2..@3.9 (WARN)", "2.7.0", None, "featureznode",
         r"FeatureZNode at path: /feature with disabled status contains non-empty features: .*$"),
    _row("ctl.feature.incompatible", f"{KC} processBrokerChange @2.7.2..@3.9 (WARN)", "2.7.0", None, "ignoring",
         r"Ignoring registration of (?:new|bounced) brokers due to incompatibilities with finalized features: .*$"),
    _row("ctl.feature.update_failed", f"{KC} processFeatureUpdates @2.7.2..@3.9 (WARN)", "2.7.0", None, "processing",
         r"Processing of feature updates: .* failed due to error: .*$"),
    _row("ctl.producer_ids.first", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9 (DEBUG)", "3.0.0", None,
         "there", r"There is no producerId block yet \(Zk path version \d+\), creating the first block$"),
    _row("ctl.producer_ids.read", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9 (DEBUG)", "3.0.0", None,
         "read", r"Read current producerId block ProducerIdsBlock\(.*\), Zk path version \d+$"),
    _row("ctl.producer_ids.acquired", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9", "3.0.0", None,
         "acquired", r"Acquired new producerId block ProducerIdsBlock\(.*\) by writing to Zk with path version \d+$"),
    _row("ctl.producer_ids.ignored", f"{KC} processAllocateProducerIds @3.0.2..@3.9 (WARN)", "3.0.0", None, "ignoring",
         r"Ignoring AllocateProducerIds due to (?:unknown broker \d+|stale broker epoch \d+ for broker \d+)$"),

    # What the controller could not do, and requests it turned away (no decision: each is followed
    # by a retry, a resignation or nothing). Found by a sweep of the ZooKeeper-mode controller's
    # log calls (0.8.0 .. 3.9.0 sources); without these rows the lines would be quarantined, and the
    # controller's "Failed to update ISR to ..." would go to the leader's row srv.isr.failed.
    _row("ctl.sm.error", "PartitionStateMachine.scala / ReplicaStateMachine.scala handleStateChanges @0.8.0..@3.9 (ERROR; "
         "`the online state` from triggerOnlinePartitionStateChange @0.8.0..@1.0.2)", "0.8.0", None, "error",
         r"Error while moving some (?:partitions|replicas) to (?:the online|\w+) state$"),
    _row("ctl.sm.write_retry", "ZkPartitionStateMachine doElectLeaderForPartitions, ZkReplicaStateMachine "
         "doRemoveReplicasFromIsr @2.7.2, @2.8.2, @3.1.2..@3.9 (DEBUG; not in @2.6.3 nor @3.0.2)", "2.7.0", None, "controller",
         r"Controller failed to (?:elect leader for partition \S+|remove replica \d+ from ISR of partition \S+)\. "
         r"Attempted to write state .*, but failed with bad ZK version\. This will be retried\.$"),
    _row("ctl.channel.remove_failed", "ControllerChannelManager.scala removeBroker @0.8.0..@3.9 (ERROR)", "0.8.0", None,
         "error", r"Error while removing broker by the controller$"),
    _row("ctl.channel.batch_failed", "ControllerChannelManager.scala ControllerBrokerRequestBatch sendRequestsToBrokers "
         "@0.9.0.1 (no exception message), @0.10.0..@0.10.1 (`metadata update requests, current state of the map`), "
         "@0.10.2..@3.9 (ERROR)", "0.9.0", None, "haven't",
         r"Haven't been able to send (?:leader and isr requests, current state of the map is .*"
         r"|metadata update requests(?: to brokers .*, current state of the partition info is|, current state of the map is) .*"
         r"|stop replica requests, current state of the map is .*)$"),
    # An event that threw: KafkaController's own logIdent from 2.3, the event thread's before
    # (which, 2.1-2.2, also logged the ctl.moved line).
    _row("ctl.event.error", f"{KC} process @2.3.1..@3.9 (ERROR)", "2.3.0", None, "error", r"Error processing event .*$"),
    _row("ctl.event.thread", "ControllerEventManager.scala ControllerEventThread: Error processing and Error while "
         "invoking @1.1.1..@2.2.2, Controller moved @2.1.0..@2.2.2, Uncaught @2.3.1..@3.9 (ERROR; the moved one INFO)",
         "1.1.0", None, "[controllereventthread",
         r"\[ControllerEventThread controllerId=\d+\] (?:Error processing event|Error while invoking listener for processed "
         r"event|Uncaught error processing event|Controller moved to another broker when processing) .*$"),
    _row("ctl.event.thread.0_11", "ControllerEventManager.scala ControllerEventThread @0.11.0.3..@1.0.2 (ERROR)", "0.11.0",
         "1.0.2", "[controller-event-thread]:",
         r"\[controller-event-thread\]: (?:Error processing event|Error while invoking listener for processed event) .*$"),
    _row("ctl.moved.already", f"{KC} triggerControllerMove @2.1.0..@3.9 (WARN)", "2.1.0", None, "controller",
         r"Controller has already moved when trying to trigger controller movement$"),
    _row("ctl.event.shutdown_misrouted", f"{KC} process @2.4.1..@3.9 (ERROR)", "2.4.0", None, "received",
         r"Received a ShutdownEventThread event\. This type of event is supposed to be handle by ControllerEventThread$"),
    _row("ctl.reassign.moved", f"{KC} onPartitionReassignment @2.4.1..@3.9", "2.4.0", None, "failed",
         r"Failed completing reassignment of partition \S+ because controller has moved to another broker$"),
    _row("ctl.replica.unassigned", "ZkReplicaStateMachine doHandleStateChanges @2.5.1..@3.9 (ERROR)", "2.5.0", None,
         "adding", r"Adding replica \(\d+\) that is not part of the assignment .*$"),
    # AlterIsr (2.7) was renamed AlterPartition by 3.2 (@3.1.2 / @3.2.3): requests the controller
    # turned away. The leader logs their answer (srv.isr.failed, srv.isr.rejected).
    _row("ctl.isr.alter.ignored.2_7", f"{KC} processAlterIsr @2.7.2..@3.1.2 (the local broker epoch from 3.0)", "2.7.0",
         "3.1.2", "ignoring",
         r"Ignoring AlterIsr due to (?:unknown broker \d+|stale broker epoch \d+(?: and local broker epoch \d+)? "
         r"for broker \d+)$"),
    _row("ctl.isr.alter.ignored", f"{KC} processAlterPartition @3.2.3..@3.9", "3.2.0", None, "ignoring",
         r"Ignoring AlterPartition due to (?:unknown broker \d+|stale broker epoch \d+ and local broker epoch \d+ "
         r"for broker \d+)$"),
    _row("ctl.isr.alter.rejected", f"{KC} tryProcessAlterPartition @3.2.3..@3.9 (recovery state; ineligible replicas "
         "@3.3.2..)", "3.2.0", None, "rejecting",
         r"Rejecting AlterPartition (?:from node \d+ for \S+ because (?:leader is recovering and ISR is greater than 1"
         r"|the leader recovery state cannot change from RECOVERED to RECOVERING): .*"
         # (KRaft's controller writes the same words with Java lists: kraft.controller.alter_partition_rejected)
         r"|request from node \d+ for \S+ because it specified ineligible replicas .* in the new ISR "
         r"LeaderAndIsr\(.*\)\.)$"),
    _row("ctl.isr.alter.failed", f"{KC} processAlterIsr / tryProcessAlterPartition @2.7.2..@3.9 (ERROR; WARN and the "
         "bad-ZK-version one DEBUG without the ISR @3.0.2; INFO with it otherwise)", "2.7.0", None, "failed",
         r"Failed to update ISR (?:to .* )?for partition \S+?(?:, bad ZK version\.?)?$"),

    # §2.7 ISR changes by partition leaders (server.log, kafka.cluster.Partition) -----------------
    _row("ctl.isr.alter.error", f"{KC} processAlterIsr @2.7.2..@3.1.2 (`AlterIsr for partitions`), "
         "tryProcessAlterPartition @3.2.3 (`AlterPartition for partitions`), @3.3.2..@3.9 (the request) (ERROR)", "2.7.0",
         None, "error", r"Error when processing Alter(?:Isr|Partition)(?: for partitions)?: .*$"),
    _row("srv.isr.shrink.old", "Partition.scala maybeShrinkIsr @0.8.0..@0.10.2 (prefix `Partition [t,0] on broker N: `)",
         "0.8.0", "0.10.2.2", "shrinking",
         rf"Shrinking ISR for partition {_TP} from (?P<old>{_INTS}) to (?P<new>{_IDS})$", _isr_proposal),
    _row("srv.isr.expand.old", "Partition.scala maybeExpandIsr @0.8.0..@0.10.2 (`[t,0]`, `t-0` in 0.10.2)",
         "0.8.0", "0.10.2.2", "expanding",
         rf"Expanding ISR for partition {_TP} from (?P<old>{_INTS}) to (?P<new>{_IDS})$", _isr_proposal),
    _row("srv.isr.shrink", "Partition.scala maybeShrinkIsr @0.11..@2.1", "0.11.0.0", "2.1.1", "shrinking",
         rf"Shrinking ISR from (?P<old>{_INTS}) to (?P<new>{_IDS})$", _isr_proposal),
    # 2.7+ with AlterIsr this is the leader's proposal; its commit is the "version updated" row.
    _row("srv.leader_starts.old", "Partition.scala makeLeader @0.11.0.3..@2.4.0 (prefix `Partition [t,0] on broker N: ` "
         "in 0.11, `[Partition t-0 broker=N] ` from 1.0)",
         "0.11.0.0", "2.4.0", "%tp",
         r"(?P<tp>[\w.-]+-\d+) starts at Leader Epoch (?P<e>\d+) from offset -?\d+\. Previous Leader Epoch was: -?\d+$",
         _leader_starts_old),
    _row("srv.leader_starts.2_4", "Partition.scala makeLeader @2.4.1..@2.5.1 (2.6 moved it to state.change.logger: "
         "sc.broker.leader_starts.2_6)", "2.4.1", "2.5.1", "%tp",
         r"(?P<tp>[\w.-]+-\d+) starts at leader epoch (?P<e>\d+) from offset -?\d+ with high watermark -?\d+\. "
         r"Previous leader epoch was -?\d+\.$", _leader_starts_old),
    _row("srv.isr.shrink.hw", "Partition.scala maybeShrinkIsr @2.2..@3.9 (KAFKA-7838)", "2.2.0", None, "shrinking",
         rf"Shrinking ISR from (?P<old>{_INTS}) to (?P<new>{_IDS})\. Leader: \(highWatermark: -?\d+, endOffset: -?\d+\)\. "
         r"Out of sync replicas: .*$", _isr_proposal),
    _row("srv.isr.expand", "Partition.scala maybeExpandIsr @0.11..@2.6, expandIsrWithZk @2.7", "0.11.0.0", "2.7.2",
         "expanding", rf"Expanding ISR from (?P<old>{_INTS}) to (?P<new>{_IDS})$", _isr_proposal),
    _row("srv.isr.updated.zk", "Partition.scala updateIsr @0.8.0..@2.3 (TRACE), maybeUpdateIsrAndVersion @2.4..@2.7 (INFO)",
         "0.8.0", "2.7.2", "isr", rf"ISR updated to \[(?P<new>{_IDS})\] and zkVersion updated to \[(?P<v>\d+)\]$", _isr_change),
    _row("srv.isr.updated.2_7", "Partition.scala handleAlterIsrResponse @2.7.0..@2.7.2", "2.7.0", "2.7.2", "isr",
         rf"ISR updated from AlterIsr to (?P<new>{_IDS}) and version updated to \[(?P<v>\d+)\]$", _isr_change),
    _row("srv.isr.updated", "Partition.scala handleAlterIsrResponse @2.8 (`[V]`), handleAlterPartitionResponse @3.0..@3.9 "
         "(`V`; 3.5+ `(under-min-isr)` or nothing between two spaces)", "2.8.0", None, "isr",
         rf"ISR updated to (?P<new>{_IDS}) +(?:\(under-min-isr\) )?and version updated to \[?(?P<v>\d+)\]?$", _isr_change),
    # The leader's ZK write failed (another writer bumped the zkVersion, e.g. the controller after
    # a leader change) or the controller rejected the proposal: the ISR did not change. The
    # "Shrinking/Expanding ISR" event just before it was a proposal that did not commit
    # (IsrUpdateFailed: before 2.4 the replay holds a proposal until the partition's next event).
    _row("srv.isr.stale", "Partition.scala updateIsr @0.8.0..@2.3 (`[%d]`), maybeUpdateIsrAndVersion @2.4..@2.7", "0.8.0",
         "2.7.2", "cached", r"Cached zkVersion \[?\d+\]? not equal to that in zookeeper, skip updating ISR$",
         _isr_update_failed),
    _row("srv.isr.failed.2_7", "Partition.scala handleAlterIsrResponse @2.7.0..@2.7.2 (WARN; the Giving-up ones DEBUG)",
         "2.7.0", "2.7.2", "controller", r"Controller failed to update ISR to .*\. (?:Retrying|Giving up)\.$",
         _isr_update_failed),
    _row("srv.isr.failed", "Partition.scala handleAlterIsrResponse @2.8, handleAlterPartitionResponse @3.0..@3.9 (WARN)",
         "2.8.0", None, "failed", r"Failed to update ISR to (?!.* for partition \S+, bad ZK version\.$).*$",
         _isr_update_failed),   # (the controller's own failed write is ctl.isr.alter.failed)
    _row("srv.isr.rejected", "Partition.scala handleAlterPartitionError @3.3.2..@3.9 (the ISR is reset, not changed)",
         "3.3.0", None, "failed", r"Failed to alter partition to .* since the controller rejected the request with \w+\. "
         r"Partition state has been reset to the latest committed state .*$", _isr_update_failed),
    # Partition.createLog (ZK and KRaft brokers): a replica's log opened, no leadership or ISR.
    _row("srv.log.no_checkpoint", "Partition.scala @0.10.2.0..@4.x (0.8.2-0.10.1 print [t,0])", "0.10.2.0", None, "no",
         r"No checkpointed highwatermark is found for partition \S+-\d+$"),
    _row("srv.log.no_checkpoint.0_8", "Partition.scala getOrCreateReplica @0.8.2.2..@0.10.1.1 (WARN in 0.8.2, INFO after; "
         "none in 0.8.0; a real 0.9.0.1 capture)", "0.8.2.0", "0.10.1.1", "no",
         r"No checkpointed highwatermark is found for partition \[[\w.-]+,\d+\]$"),
    _row("srv.log.loaded", "Partition.scala createLog @2.4..@4.x (Replica.scala, another logger, before)", "2.4.0", None,
         "log", r"Log loaded for partition \S+-\d+ with initial high watermark -?\d+$"),
    _row("srv.log.offline_dirs", "Partition.scala createLogInAssignedDirectoryId @3.7.2..@4.3.1 (WARN, JBOD)", "3.7.0",
         None, "skipping", r"Skipping creation of log because there are potentially offline log directories and log may "
         r"already exist there\. directoryId=\S+, topicId=\S+, targetLogDirectoryId=\S+$"),
    _row("srv.log.future_same_dir", "Partition.scala maybeCreateFutureReplica @2.4.1..@4.3.1 (alter log dirs)", "2.4.0",
         None, "current", r"Current log directory \S+ is same as requested log dir \S+\. Skipping future replica creation\.$"),
    # A follower (or future replica) whose fetched records start below its log start: its log is
    # restarted there. Replication, not leadership: no event.
    _row("srv.log.restarted", "Partition.scala appendRecordsToFollower @1.0.2 (`follower's`), "
         "appendRecordsToFollowerOrFutureReplica @1.1.1..@4.3.1 (`follower's` or `future replica's`)", "1.0.0", None,
         "unexpected",
         r"Unexpected offset in append to \S+-\d+\. First offset -?\d+ is less than log start offset -?\d+\. Since this "
         r"is the first record to be appended to the (?:follower|future replica)'s log, will start the log from offset "
         r"-?\d+\.$"),
    _row("srv.replica.unknown", "Partition.scala updateFollowerFetchState @3.7.2..@4.3.1 (WARN)", "3.7.0", None, "the",
         r"The replica state of replica ID:\[-?\d+\] doesn't exist in the leader node\. It might because the topic is "
         r"already deleted\.$"),

    # Config in effect (server.log, kafka.log.LogManager / kafka.server.KafkaConfig): whether unclean
    # elections were allowed, which decides how serious one is. The log's properties are printed when
    # a replica's log is created; the broker's config when it starts.
    _row("srv.log.created.all", "LogManager.scala createLog/getOrCreateLog @0.8.2.2..@2.8.0 (every property, `{k -> v, ...}.`; "
         "0.8.0 prints none; a real 0.10.2.2 capture)", "0.8.2.0", "2.8.0", "created",
         rf"Created log for partition {_TP} in .+ with properties \{{(?P<props>.* -> .*)\}}\.$", _log_created_all),
    _row("srv.log.created", "LogManager.scala getOrCreateLog @2.8.1..@4.x (overrides only, `{k=v, ...}`: apache/kafka#10828, "
         "in 2.8.1 and 3.0.0; the 2.8.1 and 2.8.2 sources jars and a real 2.8.2 capture)", "2.8.1", None, "created", rf"Created log for partition {_TP} in .+ with properties \{{(?P<props>[^{{}}]*)\}}$",
         _log_created_overrides),
    _row("srv.kafka_config", "AbstractConfig.java logAll @0.9..@4.x (one record: `KafkaConfig values: ` and a `\tk = v` "
         "continuation line per key; first release not pinned)", "0.9.0.0", None, "kafkaconfig",
         r"KafkaConfig values: ?(?P<values>[\s\S]*)$", _kafka_config),
    _row("srv.verifiable_property", "VerifiableProperties.scala verify @0.8.0..@0.8.2.2 (KafkaConfig read server.properties "
         "through it until 0.9's AbstractConfig; clients kept it later, brokers did not)", "0.8.0", "0.8.2.2", "property",
         r"Property (?P<k>\S+) is overridden to (?P<v>\S*)$", _verified_property),
    _row("srv.verifiable_property.verifying", "VerifiableProperties.scala verify @0.8.0..@0.8.2.2", "0.8.0", "0.8.2.2",
         "verifying", r"Verifying properties$"),

    # server.log: release banner, broker id ------------------------------------------------------
    _row("srv.version.old", "AppInfoParser.java AppInfo @0.8.2..@2.1", "0.8.2.0", "2.1.1", "kafka",
         r"Kafka version : (?P<v>\S+)$", _version),
    _row("srv.version", "AppInfoParser.java AppInfo @2.2..@3.9", "2.2.0", None, "kafka", r"Kafka version: (?P<v>\S+)$", _version),
    _row("srv.version.more", "AppInfoParser.java AppInfo @0.8.2..@3.9", "0.8.2.0", None, "kafka",
         r"Kafka (?:commitId ?: \S+|startTimeMs: \d+)$"),
    _row("srv.started.old", "KafkaServer.scala startup @0.8.0..@0.11 (logIdent `[Kafka Server N], `)", "0.8.0", "0.11.0.3",
         "[kafka", r"\[Kafka Server (?P<b>\d+)\], started$", _broker_started),
    _row("srv.lifecycle.old", "KafkaServer.scala @0.8.0..@0.11", "0.8.0", "0.11.0.3", "[kafka",
         r"\[Kafka Server -?\d+\], (?:starting|shutting down|shut down completed)$"),
    _row("srv.started", "KafkaServer.scala startup @1.0..@3.9 (logIdent `[KafkaServer id=N] `)", "1.0.0", None, "started",
         r"started$", _broker_started),
    _row("srv.lifecycle", "KafkaServer.scala @1.0..@3.9", "1.0.0", None, "shutting", r"shutting down$"),
    _row("srv.lifecycle.done", "KafkaServer.scala @1.0..@3.9", "1.0.0", None, "shut", r"shut down completed$"),
    _row("srv.topic.creating", "AdminZkClient.scala createTopicWithAssignment @1.1..@3.9 (the request; the controller's "
         "\"New topics\" line is the input)", "1.1.0", None, "creating",
         r"Creating topic \S+ with configuration .* and initial partition assignment .*$"),
)
