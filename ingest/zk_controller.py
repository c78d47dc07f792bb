"""ZooKeeper-mode controller.log (logger `kafka.controller`), 0.8.0 through 3.9: the controller's
*inputs* (spec kafka-log-formats §3) as catalogue rows: failover, broker startup/failure, controlled
shutdown, topic and partition creation, reassignment, preferred/unclean election requests, topic
deletion, unclean-election config, and the pre-0.11 controller election (ZookeeperLeaderElector,
in server.log). One `MessagePattern` per wording per range of releases; lines of these steps the
replay does not need are rows too (builder `no_events`), so they count as understood. The lines on
the controller's own workings are `ingest.zk_controller_machinery`'s rows, the other server.log
lines that matter `ingest.zk_server`'s.

Bodies arrive with the logIdent removed (`[Controller N]: `, `[Controller id=N] `, listener
and state-machine prefixes). Prefixes that `ingest.prefix` does not know (`[AddPartitionsListener
on N]: `, `[DeleteTopicsListener on N]: `, `[Topic Deletion Manager N] `) are matched inside the
body, so their keyword starts with `[`.

`last=None`: written until the end of ZooKeeper mode (3.9.x; 4.0 removed it). Rows whose body
begins with the broker id (`1 successfully elected as ...`) use the keyword "%d", the first
word of their format string: the catalogue must send digit-only first words there."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern, event, row
from ingest.values import (JOINED_IDS, JOINED_IDS_NONEMPTY, PARTITION_TOKEN, parse_int_list, parse_joined_ids,
                           parse_partition)
from state_machine.partition import UNCLEAN_CONFIG

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
    return parse_joined_ids(m["r"]) if m is not None else parse_int_list(value)


# --- builders: controller election and failover ---------------------------------------

def _failover(m: re.Match, ctx: LineContext) -> list:
    b = m.groupdict().get("b")
    broker = int(b) if b is not None else ctx.prefix.broker
    return [event("ControllerFailover", controller_id=broker, controller_epoch=int(m["e"]), recording_broker=broker)]


def _elected(m: re.Match, ctx: LineContext) -> list:
    e = m.groupdict().get("e")
    return [{"fact": "controller_elected", "controller_id": int(m["b"]), "controller_epoch": int(e) if e else None}]


def _epoch_incremented(m: re.Match, ctx: LineContext) -> list:
    """0.8-2.0 name the new epoch before the failover's first decisions ("Controller 1 incremented
    epoch to 5"; 1.0 "[Controller id=1] Incremented epoch to 5"; 1.1-2.0 "Epoch incremented to 5"):
    as 2.1+'s election line does."""
    b = m.groupdict().get("b")
    return [{"fact": "controller_elected", "controller_id": int(b) if b is not None else ctx.prefix.broker,
             "controller_epoch": int(m["e"])}]


def _live_brokers(m: re.Match, ctx: LineContext) -> list:
    """The live brokers a new controller found (logged before `Ready to serve ...`): the
    file's parser gives them to the ControllerFailover that follows."""
    return [{"fact": "live_brokers", "brokers": parse_int_list(m["b"])}]


# --- builders: broker membership ----------------------------------------------------------

def _brokers(event_type: str):
    def build(m: re.Match, ctx: LineContext) -> list:
        return [event(event_type, brokers=parse_joined_ids(m["b"]), **_controller(ctx))]
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
            out.append(event(event_type, topic=topic, partition=partition, replicas=_replicas(e["v"]), **ids))
        return out
    return build


def _deletion(m: re.Match, ctx: LineContext) -> list:
    gd = m.groupdict()
    ids = _controller(ctx, int(gd["b"]) if gd.get("b") else None)
    return [event("TopicDeletion", topic=t, **ids) for t in m["ts"].split(",") if t]


# --- builders: reassignment and elections ---------------------------------------------------

def _reassignment_old(m: re.Match, ctx: LineContext) -> list:
    topic, partition = parse_partition(m["tp"])
    return [event("ReassignmentStart", topic=topic, partition=partition, replicas=parse_joined_ids(m["r"]),
                  **_controller(ctx))]


def _reassignment_kip455(m: re.Match, ctx: LineContext) -> list:
    """The U1 write of onPartitionReassignment: RS = TRS + ORS with adding/removing replicas.
    With none of either, the line is the B6 write at completion, or a reassignment that only
    reorders the replicas (it completes at once): the target is the AR it prints either way,
    and the replay takes a target equal to the current AR as nothing to do."""
    removing = parse_joined_ids(m["rm"])
    topic, partition = parse_partition(m["tp"])
    target = [r for r in parse_joined_ids(m["r"]) if r not in removing]
    return [event("ReassignmentStart", topic=topic, partition=partition, replicas=target, **_controller(ctx))]


def _reassignment_caught_up(m: re.Match, ctx: LineContext) -> list:
    """onPartitionReassignment re-entered with every target replica in the ISR: the completion
    starts here, before the election or epoch bump it writes and before (at INFO) the leader's
    own line that shows the ISR grown. 2.4+ print the target (a Scala Seq, `ArrayBuffer(3, 2)`);
    0.8-2.3 only the count (`2/2 replicas`), the replay knows which."""
    topic, partition = parse_partition(m["tp"])
    target = parse_int_list(m["r"]) if m.groupdict().get("r") is not None else None
    return [event("ReassignmentCaughtUp", topic=topic, partition=partition, replicas=target, **_controller(ctx))]


def _election(m: re.Match, ctx: LineContext) -> list:
    election_type = m.groupdict().get("type") or "PREFERRED"
    ids = _controller(ctx)
    return [event("ReplicaLeaderElection", topic=t, partition=p, election_type=election_type, **ids)
            for t, p in _partition_list(m["ps"])]


def _unclean_logged(m: re.Match, ctx: LineContext) -> list:
    topic, partition = parse_partition(m["tp"])
    return [event("UncleanElectionLogged", topic=topic, partition=partition, leader=int(m["l"]), **_controller(ctx))]


def _unclean_enabled(m: re.Match, ctx: LineContext) -> list:
    topic = m.groupdict().get("t")  # None: the broker-wide default
    return [event("ConfigChange", topic=topic, config_name=UNCLEAN_CONFIG, config_value="true", **_controller(ctx))]


# --- the table --------------------------------------------------------------------------------

KC = "KafkaController.scala"

PATTERNS: tuple[MessagePattern, ...] = (
    # §3.1 Controller election, failover, resignation ------------------------------------
    row("ctl.elected.leader", "ZookeeperLeaderElector.scala elect @0.8.0..@0.10.2 (server.log, no logIdent)",
        "0.8.0", "0.10.2.2", "%d", r"(?P<b>\d+) successfully elected as leader$", _elected),
    row("ctl.elected", f"{KC} elect @0.11.0..@2.0", "0.11.0.0", "2.0.1", "%d",
        r"(?P<b>\d+) successfully elected as the controller$", _elected),
    row("ctl.elected.epoch", f"{KC} elect @2.1..@3.9", "2.1.0", None, "%d",
        r"(?P<b>\d+) successfully elected as the controller\. Epoch incremented to (?P<e>\d+) "
        r"and epoch zk version is now -?\d+$", _elected),
    row("ctl.failover.ready.old", f"{KC} onControllerFailover @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "broker",
        r"Broker (?P<b>\d+) is ready to serve as the new controller with epoch (?P<e>\d+)$", _failover),
    row("ctl.failover.ready", f"{KC} onControllerFailover @1.0..@3.9", "1.0.0", None, "ready",
        r"Ready to serve as the new controller with epoch (?P<e>\d+)$", _failover),
    # The rest of failover and resignation: progress, no controller input of its own.
    row("ctl.failover.begin.old", f"{KC} onControllerFailover @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "broker",
        r"Broker \d+ (?:starting become controller state transition|resigned as the controller)$"),
    row("ctl.failover.begin.1_0", f"{KC} onControllerFailover @1.0.2", "1.0.0", "1.0.2", "starting",
        r"Starting become controller state transition$"),
    row("ctl.failover.epoch.old", f"{KC} incrementControllerEpoch @0.8.0..@0.11.0", "0.8.0", "0.11.0.3", "controller",
        r"Controller (?P<b>\d+) incremented epoch to (?P<e>\d+)$", _epoch_incremented),
    row("ctl.failover.epoch.1_0", f"{KC} incrementControllerEpoch @1.0.2", "1.0.0", "1.0.2", "incremented",
        r"Incremented epoch to (?P<e>\d+)$", _epoch_incremented),
    row("ctl.failover.epoch.read.old", f"{KC} readControllerEpochFromZookeeper @0.8.0..@2.0.1", "0.8.0", "2.0.1",
        "initialized", r"Initialized controller epoch to \d+ and zk version \d+$"),
    row("ctl.failover.registering", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "registering",
        r"Registering handlers$"),
    row("ctl.failover.deleting", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "deleting",
        r"Deleting (?:log dir event|isr change) notifications$"),
    row("ctl.failover.initializing", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "initializing",
        r"Initializing (?:controller context|topic deletion manager)$"),
    row("ctl.failover.token_expiry", f"{KC} onControllerFailover @1.1.1..@3.9 (delegation tokens enabled)", "1.1.0", None,
        "starting", r"starting the token expiry check scheduler$"),
    # 1.1-2.0 announce the epoch read and write (2.1 folds them into one ZooKeeper call).
    row("ctl.failover.epoch.reading", f"{KC} onControllerFailover @1.1.1..@2.0.1", "1.1.0", "2.0.1", "reading",
        r"Reading controller epoch from ZooKeeper$"),
    row("ctl.failover.epoch.incrementing", f"{KC} onControllerFailover @1.1.1..@2.0.1", "1.1.0", "2.0.1", "incrementing",
        r"Incrementing controller epoch in ZooKeeper$"),
    # The new epoch, before the context is read and the new controller decides (as 2.1+'s election line).
    row("ctl.failover.epoch.incremented", f"{KC} incrementControllerEpoch @1.1.0..@2.0.1", "1.1.0", "2.0.1", "epoch",
        r"Epoch incremented to (?P<e>\d+)$", _epoch_incremented),
    row("ctl.failover.epoch.error", f"{KC} incrementControllerEpoch @0.8.0..@2.0.1 (ERROR)", "0.8.0", "2.0.1", "error",
        r"Error while incrementing controller epoch$"),
    row("ctl.failover.epochs", f"{KC} initializeControllerContext @2.2..@3.9", "2.2.0", None, "initialized",
        r"Initialized broker epochs cache: .*$"),
    row("ctl.failover.live", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "currently",
        r"Currently active brokers in the cluster: (?P<b>.*)$", _live_brokers),
    row("ctl.failover.context", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "currently",
        r"Currently shutting brokers in the cluster: .*$"),
    row("ctl.failover.topics", f"{KC} initializeControllerContext @0.8.0..@3.9", "0.8.0", None, "current",
        r"Current list of topics in the cluster: .*$"),
    row("ctl.failover.fetching", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "fetching",
        r"Fetching topic deletions in progress$"),
    # At failover the new controller resumes deletions already requested; their start was logged
    # ("Starting topic deletion for topics ...") by the controller that received the request.
    row("ctl.failover.deletions", f"{KC} fetchTopicDeletionsInProgress @0.11..@3.9", "0.8.1", None, "list",
        r"List of topics (?:to be deleted|ineligible for deletion): .*$"),
    row("ctl.failover.metadata", f"{KC} onControllerFailover @1.1..@3.9", "1.1.0", None, "sending",
        r"Sending update metadata request$"),
    row("ctl.failover.scheduler", f"{KC} onControllerFailover @0.11.0..@3.9 (not @0.10.2.2)", "0.11.0", None, "starting",
        r"[Ss]tarting the controller scheduler$"),
    row("ctl.failover.pending", f"{KC} fetchPendingPreferredReplicaElections, initializePartitionReassignment @0.8.0..@3.9",
        "0.8.0", None, "partitions",
        r"Partitions (?:undergoing preferred replica election|that completed preferred replica election|being reassigned"
        r"|already reassigned): .*$"),
    row("ctl.failover.resuming", f"{KC} fetchPendingPreferredReplicaElections @0.8.0..@3.9", "0.8.0", None, "resuming",
        r"Resuming (?:preferred replica election for partitions|reassignment of partitions): .*$"),
    row("ctl.failover.skipping", f"{KC} fetchPendingPreferredReplicaElections @0.8.0..@3.9", "0.8.0", None, "skipping",
        r"Skipping preferred replica election for partitions due to topic deletion: .*$"),
    # 0.8.2-1.0 (ERROR) and 2.2-2.3 (WARN); 2.4+ writes ctl.election.skipping's sentence.
    row("ctl.preferred.skipping_deleted", f"{KC} onPreferredReplicaElection @0.8.2.2..@1.0.2, @2.2.2..@2.3.1", "0.8.2",
        "2.3.1", "skipping", r"Skipping preferred replica election for partitions .* since the respective topics are "
        r"being deleted$"),
    row("ctl.startup.old", f"{KC} startup @0.8.0..@0.10.2.2", "0.8.0", "0.10.2.2", "controller",
        r"Controller (?:starting up|startup complete)$"),
    row("ctl.elect.error.old", "ZookeeperLeaderElector.scala elect @0.8.0..@0.10.2.2 (ERROR, stack trace glued)",
        "0.8.0", "0.10.2.2", "error", r"Error while electing or becoming leader on broker \d+$"),
    row("ctl.elect.error", f"{KC} elect @0.11.0.3..@3.9 (ERROR, stack trace glued; 2.1+ adds the sentence)", "0.11.0.0",
        None, "error", r"Error while electing or becoming controller on broker \d+(?:\. Trigger controller movement "
        r"immediately)?$"),
    # UpdateMetadata for a partition with no leader yet (a new topic before its election).
    row("ctl.update_metadata.no_leader.0_8_0", "ControllerChannelManager.scala @0.8.0", "0.8.0", "0.8.1", "leader",
        r"Leader not assigned yet for partition \S+\. Skip sending udpate metadata request$"),
    row("ctl.update_metadata.no_leader", "ControllerChannelManager.scala ControllerBrokerRequestBatch @0.8.2.2..@3.9",
        "0.8.1", None, "leader", r"Leader not yet assigned for partition \S+\. Skip sending UpdateMetadataRequest\.$"),
    row("ctl.resigned", f"{KC} onControllerResignation @1.1..@3.9", "1.0.0", None, "resigned", r"Resigned$"),
    row("ctl.resigning.0_9", f"{KC} onControllerResignation @0.9.0.1..@0.11.0.3 (DEBUG)", "0.9.0", "0.11.0.3",
        "controller", r"Controller resigning, broker id \d+$"),
    row("ctl.resigning", f"{KC} onControllerResignation @1.1..@3.9 (DEBUG)", "1.0.0", None, "resigning", r"Resigning$"),
    row("ctl.moved", f"{KC} process @1.1..@3.9", "1.0.0", None, "controller",
        r"Controller moved to another broker when processing .*$"),
    row("ctl.elect.race", f"{KC} elect @0.11..@3.9; ZookeeperLeaderElector @0.8.0..@0.10.2", "0.8.0", None, "a",
        r"A (?:controller|leader) has been elected but just resigned, this will result in another round of election$"),
    row("ctl.elect.other", f"{KC} elect @0.11..@3.9; ZookeeperLeaderElector @0.8.0..@0.10.2 (DEBUG)", "0.8.0", None, "broker",
        r"Broker \d+ (?:has been elected as (?:the controller|leader), so stopping the election process\."
        r"|was elected as (?:controller|leader) instead of broker \d+)$"),
    row("ctl.resign.forced", f"{KC} handleIllegalState @0.11..@3.9", "0.8.0", None, "forcing",
        r"Forcing the controller to resign$"),
    row("ctl.elector.new_leader", "ZookeeperLeaderElector.scala LeaderChangeListener @0.8.0..@0.10.2 (server.log)",
        "0.8.0", "0.10.2.2", "new", r"New leader is \d+$"),
    row("ctl.znode.create", "ZkUtils.scala ZKCheckedEphemeral @0.9.0.1..@1.1.1, KafkaZkClient.scala "
        "registerControllerAndIncrementControllerEpoch @1.1..@3.9 (server.log; seen in a real 1.0.2 capture)", "0.9.0", None, "creating", r"Creating /controller \(is it secure\? (?:true|false)\)$"),
    row("ctl.znode.result", "KafkaZkClient.scala checkedEphemeralCreate @1.1.1..@2.1.0 (server.log; the controller's "
        "znode and the broker's registration; 2.2 logs the Stat instead)", "1.1.0", "2.1.1", "result",
        r"Result of znode creation at /(?:controller|brokers/ids/\d+) is: \w+$"),

    # §3.2 Broker membership -------------------------------------------------------------------
    row("ctl.broker.startup", f"{KC} onBrokerStartup @0.8.0..@3.9", "0.8.0", None, "new",
        rf"New broker startup callback for (?P<b>{JOINED_IDS_NONEMPTY})$", _brokers("BrokerStartup")),
    row("ctl.broker.failure", f"{KC} onBrokerFailure @0.8.0..@3.9", "0.8.0", None, "broker",
        rf"Broker failure callback for (?P<b>{JOINED_IDS_NONEMPTY})$", _brokers("BrokerFailure")),
    # The listener's view of /brokers/ids; the callbacks above are the controller's inputs.
    row("ctl.broker.listener", "ReplicaStateMachine.scala BrokerChangeListener @0.8.0..@0.10.2", "0.8.0", "0.10.2.2",
        "broker", r"Broker change listener fired for path /brokers/ids with children .*$"),
    # The other ZooKeeper listeners of 0.8-0.10 say they fired (DEBUG), with the znode's data; what
    # they set off, the controller's own lines say. Seen unread in a real 0.10.2.2 capture. 0.8.0-0.10.1
    # name two of them `[PartitionsReassignedListener on N]: ` and `[PreferredReplicaElectionListener
    # on N]: ` (a logIdent prefix.py does not know); 0.10.2's ControllerZkListener says `on Controller N`.
    row("ctl.listener.topic_change", "PartitionStateMachine.scala TopicChangeListener @0.8.0..@0.10.2.2 (DEBUG)", "0.8.0",
        "0.10.2.2", "topic", r"Topic change listener fired for path /brokers/topics with children .*$"),
    row("ctl.listener.reassigned_isr", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@0.10.2.2 (DEBUG)", "0.8.0",
        "0.10.2.2", "reassigned", r"Reassigned partitions isr change listener fired for path \S+ with children .*$"),
    row("ctl.listener.reassigned.0_8", f"{KC} PartitionsReassignedListener @0.8.0..@0.10.1.1 (DEBUG)", "0.8.0", "0.10.1.1",
        "[partitionsreassignedlistener", r"\[PartitionsReassignedListener on \d+\]: Partitions reassigned listener fired "
        r"for path \S+\. Record partitions to be reassigned .*$"),
    row("ctl.listener.reassigned", f"{KC} PartitionsReassignedListener @0.10.2.0..@0.10.2.2 (DEBUG)", "0.10.2.0",
        "0.10.2.2", "partitions",
        r"Partitions reassigned listener fired for path \S+\. Record partitions to be reassigned .*$"),
    row("ctl.listener.preferred.0_8", f"{KC} PreferredReplicaElectionListener @0.8.0..@0.10.1.1 (DEBUG)", "0.8.0",
        "0.10.1.1", "[preferredreplicaelectionlistener", r"\[PreferredReplicaElectionListener on \d+\]: Preferred replica "
        r"election listener fired for path \S+\. Record partitions to undergo preferred replica election .*$"),
    row("ctl.listener.preferred", f"{KC} PreferredReplicaElectionListener @0.10.2.0..@0.10.2.2 (DEBUG)", "0.10.2.0",
        "0.10.2.2", "preferred",
        r"Preferred replica election listener fired for path \S+\. Record partitions to undergo preferred replica "
        r"election .*$"),
    row("ctl.listener.isr_notification", f"{KC} IsrChangeNotificationListener @0.10.2.0..@0.10.2.2 (DEBUG; no line "
        "before)", "0.10.2.0", "0.10.2.2", "isr", r"ISR change notification listener fired$"),
    row("ctl.listener.isr_notification.0_9", f"{KC} IsrChangeNotificationListener @0.9.0.1..@0.10.1.1 (DEBUG; its name "
        "written into the message; a real 0.9.0.1 capture)", "0.9.0", "0.10.1.1", "[isrchangenotificationlistener]",
        r"\[IsrChangeNotificationListener\] Fired!!!$"),
    row("ctl.broker.change", f"{KC} BrokerChange @0.8.0..@2.1; processBrokerChange @2.2..@3.9", "0.8.0", None, "newly",
        r"Newly added brokers: [\d,]*, deleted brokers: [\d,]*, (?:bounced brokers: [\d,]*, )?all live brokers: [\d,]*$"),
    row("ctl.broker.epochs", f"{KC} processBrokerChange @2.2..@3.9", "2.2.0", None, "updated",
        r"Updated broker epochs cache: .*$"),
    row("ctl.broker.update", f"{KC} onBrokerUpdate @1.1..@3.9", "1.1.0", None, "broker",
        r"Broker info update callback for \d+$"),
    row("ctl.broker.metadata", f"{KC} processBrokerModification @2.3..@3.9", "2.3.0", None, "updated",
        r"Updated broker metadata: .* -> .*$"),
    row("ctl.broker.metadata.1_1", f"{KC} BrokerModifications @1.1.1..@2.2.2 (2.3 prints both sides)", "1.1.0",
        "2.2.2", "updated", r"Updated broker: Broker\(.*\)$"),
    row("ctl.broker.shutting_removed", f"{KC} onBrokerFailure @0.8.0..@3.9", "0.8.0", None, "removed",
        r"Removed .* from list of shutting down brokers\.$"),
    row("ctl.broker.handlers", f"{KC} registerBrokerModificationsHandler @1.1..@3.9 (DEBUG)", "1.1.0", None,
        "register", r"Register BrokerModifications handler for .*$"),
    row("ctl.broker.handlers.off", f"{KC} unregisterBrokerModificationsHandler @1.1..@3.9 (DEBUG)", "1.1.0", None,
        "unregister", r"Unregister BrokerModifications handler for .*$"),
    row("ctl.broker.logdir", f"{KC} onBrokerLogDirFailure @1.0..@3.9", "1.0.0", None, "handling",
        r"Handling log directory failure for brokers [\d,]*$"),

    # §3.4 Controlled shutdown -----------------------------------------------------------------
    row("ctl.shutdown", f"{KC} shutdownBroker @0.8.0..@0.10.2; doControlledShutdown @0.11..@3.9", "0.8.0", None,
        "shutting", r"Shutting down broker (?P<b>\d+)$", _brokers("ControlledShutdown")),
    row("ctl.shutdown.debug", f"{KC} doControlledShutdown @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "all",
        r"All shutting down brokers: [\d,]*$"),
    row("ctl.shutdown.live", f"{KC} doControlledShutdown @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "live",
        r"Live brokers: [\d,]*$"),
    row("ctl.shutdown.leaders", f"{KC} doControlledShutdown @0.8.0..@3.9 (TRACE; the whole leadership cache)", "0.8.0", None,
        "all", r"All leaders = .*$"),
    # A request from a broker incarnation the controller has seen restart (KIP-380): refused, nothing moves.
    row("ctl.shutdown.stale_epoch", f"{KC} doControlledShutdown @2.2.0..@3.9", "2.2.0", None, "received",
        r"Received controlled shutdown request from an old broker epoch \d+ for broker \d+\. Current broker epoch is "
        r"\d+\.$"),

    # Topic creation, partition addition ---------------------------------------------------------
    # TopicCreation from the TopicChange line (it carries the assignment); the callback lines
    # that follow repeat the partitions without replicas.
    row("ctl.topic.new", "PartitionStateMachine.scala TopicChangeListener @0.8.0..@0.10.2; "
        f"{KC} TopicChange @0.11..@3.9", "0.8.0", None, "new",
        r"New topics: \[[^\]]*\], deleted topics: \[[^\]]*\], new partition replica assignment \[(?P<a>.*)\]$",
        _creation("TopicCreation")),
    row("ctl.topic.callback", f"{KC} onNewTopicCreation, onNewPartitionCreation @0.8.0..@3.9", "0.8.0", None, "new",
        r"New (?:topic|partition) creation callback for .*$"),
    row("ctl.partition.new.listener", "PartitionStateMachine.scala AddPartitionsListener / PartitionModificationsListener "
        "@0.8.0..@0.10.1 (logIdent `[AddPartitionsListener on N]: `; 0.8.0-0.8.1 bracket the map)", "0.8.0", "0.10.1.1",
        "[addpartitionslistener", r"\[AddPartitionsListener on (?P<b>\d+)\]: New partitions to be added (?P<a>.*)$",
        _creation("PartitionCreation")),
    row("ctl.partition.listener.quiet", "PartitionStateMachine.scala AddPartitionsListener @0.8.0..@0.10.1",
        "0.8.0", "0.10.1.1", "[addpartitionslistener",
        r"\[AddPartitionsListener on \d+\]: (?:Add Partition triggered |Partition modification triggered "
        r"|Skipping adding partitions ).*$"),
    # 0.10.2's listeners print `[AddPartitionsListener on Controller N]: ` (ControllerZkListener), a
    # logIdent prefix.py strips; the sentences are the later ones.
    row("ctl.partition.modification", "PartitionStateMachine.scala AddPartitionsListener @0.10.2.0..@0.10.2.2",
        "0.10.2.0", "0.10.2.2", "partition", r"Partition modification triggered .* for path \S+$"),
    row("ctl.partition.new", f"{KC} PartitionModifications @0.11..@3.9, AddPartitionsListener @0.10.2", "0.10.2.0", None,
        "new",
        r"New partitions to be added (?P<a>.*)$", _creation("PartitionCreation")),
    row("ctl.partition.skipping", f"{KC} processPartitionModifications @0.11..@3.9, AddPartitionsListener @0.10.2",
        "0.10.2.0", None, "skipping",
        r"Skipping adding partitions [\d,]* for topic \S+ since it is currently being deleted$"),
    row("ctl.partition.restoring", f"{KC} processPartitionModifications @2.4..@3.9", "1.1.0", None, "restoring",
        r"Restoring the partition replica assignment for topic \S+$"),
    row("ctl.partition.ignoring", f"{KC} processPartitionModifications @2.4..@3.9", "1.1.0", None, "ignoring",
        r"Ignoring partition change during topic deletion as no new partitions are added$"),

    # §3.3 Reassignment --------------------------------------------------------------------------
    row("ctl.reassign.handling", f"{KC} initiateReassignReplicasForTopicPartition @0.8.0..@2.3", "0.8.0", "2.3.1",
        "handling", rf"Handling reassignment of partition {PARTITION_TOKEN} to new replicas (?P<r>{JOINED_IDS_NONEMPTY})$",
        _reassignment_old),
    # KIP-455: the start is the U1 write (INFO); its DEBUG twin "Updating assignment of
    # partition ... from ... to ..." repeats it.
    row("ctl.reassign.updated", f"{KC} updateReplicaAssignmentForPartition @2.4..@3.9", "2.4.0", None, "successfully",
        rf"Successfully updated assignment of partition {PARTITION_TOKEN} to "
        rf"ReplicaAssignment\(replicas=(?P<r>{JOINED_IDS_NONEMPTY}), "
        rf"addingReplicas=(?P<a>{JOINED_IDS}), removingReplicas=(?P<rm>{JOINED_IDS})\)$", _reassignment_kip455),
    row("ctl.reassign.updating", f"{KC} updateCurrentReassignment @2.4..@3.9 (DEBUG)", "2.4.0", None, "updating",
        rf"Updating assignment of partition {PARTITION_TOKEN} from ReplicaAssignment\(.*\) to ReplicaAssignment\(.*\)$"),
    row("ctl.reassign.waiting", f"{KC} onPartitionReassignment @0.8.0..@2.3", "0.8.0", "2.3.1", "new",
        r"New replicas [\d,]* for partition \S+ being reassigned not yet caught up with the leader$"),
    row("ctl.reassign.waiting2", f"{KC} onPartitionReassignment @0.8.0..@2.3", "0.8.0", "2.3.1", "waiting",
        r"Waiting for new replicas [\d,]* for partition \S+ being reassigned to catch up with the leader$"),
    row("ctl.reassign.assigned", f"{KC} updateAssignedReplicasForPartition @0.8.0..@2.3", "0.8.0", "2.3.1", "updated",
        r"Updated assigned replicas for partition \S+ being reassigned to [\d,]* ?$"),
    # KAFKA-13233 added the zkVersion in 2.7.2, 2.8.1 and 3.1.0, not 2.8.0 or 3.0.x: each row spans the
    # releases around those that print the other form (detection may not exclude a release that prints it).
    row("ctl.reassign.epoch", f"{KC} updateLeaderEpoch @0.8.2.2..@2.7.1, @2.8.0, @3.0.2", "0.8.1", "3.0.2", "updated",
        r"Updated leader epoch for partition \S+ to \d+$"),
    # The same write, 3.x wording. No event: it names neither leader nor ISR (a LeaderAndIsr event
    # needs both); the "Sent LeaderAndIsr request ... for partition being reassigned" line (TRACE)
    # and the new leader's "Leader t-0 ... starts at leader epoch" line (INFO) carry the value.
    row("ctl.reassign.epoch.zk_version", f"{KC} updateLeaderEpoch @2.7.2, @2.8.1..@2.8.2, @3.1.0..@3.9 (3.3+ prints "
        "leaderAndIsr.partitionEpoch)", "2.7.2", None, "updated",
        r"Updated leader epoch for partition \S+ to \d+, zkVersion=\d+$"),
    row("ctl.reassign.epoch.updating", f"{KC} updateLeaderEpoch @0.8.2.2..@3.9 (DEBUG)", "0.8.2", None, "updating",
        r"Updating leader epoch for partition \S+$"),
    row("ctl.reassign.removed", f"{KC} onPartitionReassignment @0.8.0..@2.2", "0.8.0", "2.2.2", "removed",
        r"Removed partition \S+ from the list of reassigned partitions in zookeeper$"),
    row("ctl.reassign.removing", f"{KC} removePartitionsFromReassignedPartitions @2.3, maybeRemoveFromZkReassignment @2.4..@3.9",
        "2.0.0", None, "removing", r"Removing partitions .* from the list of reassigned partitions in zookeeper$"),
    row("ctl.reassign.done", f"ZkUtils.scala updatePartitionReassignmentData @0.8.0..@1.0.2 (seen in a real 1.0.2 "
        f"capture), {KC} @1.1.1..@3.9", "0.8.0", None, "no",
        r"No more partitions need to be reassigned\. Deleting zk path /admin/reassign_partitions$"),
    row("ctl.reassign.never_created", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0, "
        "processPartitionReassignmentIsrChange @2.3.1 (ERROR)", "0.8.0",
        "2.3.1", "error", r"Error handling reassignment of partition \S+ to replicas .* as it was never created$"),
    row("ctl.reassign.unknown_partition", f"{KC} maybeTriggerPartitionReassignment @1.1.1..@2.3.1 (ERROR)", "1.1.0", "2.3.1",
        "ignoring", r"Ignoring request to reassign partition \S+ that doesn't exist\.$"),
    row("ctl.reassign.leader", f"{KC} moveReassignedPartitionLeaderIfRequired @0.8.0..@3.9", "0.8.0", None, "leader",
        r"Leader -?\d+ for partition \S+ being reassigned, is (?:not in the new list of replicas [\d,]*\. Re-electing leader"
        r"|already in the new list of replicas [\d,]* (?:and is alive|but is dead))$"),
    row("ctl.reassign.caught_up", f"{KC} processPartitionReassignmentIsrChange @2.4..@3.9", "2.4.0", None, "target",
        rf"Target replicas (?P<r>\w*\([\d, ]*\)) have all caught up with the leader for reassigning partition {PARTITION_TOKEN}$",
        _reassignment_caught_up),
    row("ctl.reassign.failed", f"{KC} processZkPartitionReassignment @2.4..@3.9", "2.4.0", None, "failed",
        r"Failed reassignment through zk with the following errors: .*$"),
    # The ISR listener of a partition being reassigned (0.8-2.3): the reassignment goes on.
    row("ctl.reassign.resuming.old", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@1.0.2", "0.8.0", "1.0.2",
        "%d/%d", rf"\d+/\d+ replicas have caught up with the leader for partition {PARTITION_TOKEN} being reassigned\.Resuming "
        r"partition reassignment$", _reassignment_caught_up),
    row("ctl.reassign.resuming", f"{KC} PartitionReassignmentIsrChange @1.1.1..@2.3.1", "1.1.0", "2.3.1", "%d/%d",
        rf"\d+/\d+ replicas have caught up with the leader for partition {PARTITION_TOKEN} being reassigned\. Resuming partition "
        r"reassignment$", _reassignment_caught_up),
    # The controller's ISR removal of a replica already out of the ISR: nothing written.
    row("ctl.isr.cannot_remove.0_8_0", f"{KC} removeReplicaFromIsr @0.8.0 (WARN)", "0.8.0", "0.8.1", "cannot",
        r"Cannot remove replica \d+ from ISR of \S+\. Leader = -?\d+ ; ISR = .*$"),
    row("ctl.isr.cannot_remove", f"{KC} removeReplicaFromIsr @0.8.2.2..@1.0.2 (WARN)", "0.8.2", "1.0.2", "cannot",
        r"Cannot remove replica \d+ from ISR of partition \S+ since it is not in the ISR\. Leader = -?\d+ ; ISR = .*$"),
    row("ctl.reassign.skipping", f"{KC} maybeTriggerPartitionReassignment @1.1.1..@3.9", "1.1.0", None, "skipping",
        r"Skipping reassignment of \S+ since the topic is currently being deleted$"),
    row("ctl.reassign.already", f"{KC} maybeTriggerPartitionReassignment @2.3 (an exception message before)",
        "1.1.0", "2.3.1", "partition",
        r"Partition \S+ to be reassigned is already assigned to replicas [\d,]*\. "
        r"Ignoring request for partition reassignment\.?$"),
    row("ctl.reassign.error", f"{KC} @0.8.0..@3.9", "0.8.0", None, "error",
        r"Error completing reassignment of partition \S+.*$"),

    # §3.4 Preferred / unclean election requests ------------------------------------------------
    row("ctl.election.preferred", f"{KC} onPreferredReplicaElection @0.8.0..@2.3", "0.8.0", "2.3.1", "starting",
        r"Starting preferred replica leader election for partitions ?(?P<ps>\S*)$", _election),
    row("ctl.election.start", f"{KC} onReplicaElection @2.4..@3.9", "2.4.0", None, "starting",
        r"Starting replica leader election \((?P<type>PREFERRED|UNCLEAN)\) for partitions (?P<ps>\S*) triggered by \w+$",
        _election),
    row("ctl.election.auto", f"{KC} processAutoPreferredReplicaLeaderElection @2.3..@3.9", "1.1.0", None, "processing",
        r"Processing automatic preferred replica leader election$"),
    row("ctl.election.check", f"{KC} checkAndTriggerAutoLeaderRebalance @0.11.0.3..@3.9 (TRACE)", "0.11.0", None, "checking",
        r"Checking need to trigger auto leader balancing$"),
    row("ctl.election.check_08", f"{KC} checkAndTriggerPartitionRebalance @0.8.2.2..@0.10.2.2 (TRACE)", "0.8.1", "0.10.2.2",
        "checking", r"checking need to trigger partition rebalance$"),
    row("ctl.election.scheduler_08", f"{KC} onControllerFailover @0.8.1 (seed)..@0.10.2.2, when auto.leader.rebalance.enable",
        "0.8.1", "0.10.2.2", "starting", r"starting the partition rebalance scheduler$"),
    row("ctl.election.ratio", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.0..@3.9 (TRACE)", "0.8.0", None, "leader",
        r"[Ll]eader imbalance ratio for broker \d+ is [\d.E-]+$"),
    # The same check's DEBUG lines (kafka.controller logs at TRACE to controller.log by the stock
    # log4j.properties): every leader.imbalance.check.interval.seconds wherever auto.leader.rebalance.enable
    # is on, its default from 0.8.2. Scala Map dumps; the elections they lead to are logged apart.
    row("ctl.election.by_broker", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.2.2..@2.4.1 (DEBUG; gone in 2.5.1)",
        "0.8.1", "2.4.1", "preferred", r"[Pp]referred replicas by broker (?:Hash)?Map\(.*\)$"),
    row("ctl.election.not_preferred_10", f"{KC} checkAndTriggerAutoLeaderRebalance @0.8.2.2..@1.0.2 (DEBUG)",
        "0.8.1", "1.0.2", "topics", r"[Tt]opics not in preferred replica (?:Hash)?Map\(.*\)$"),
    row("ctl.election.not_preferred", f"{KC} checkAndTriggerAutoLeaderRebalance @1.1.1..@3.9.1 (DEBUG)", "1.1.0", None,
        "topics", r"Topics not in preferred replica for broker \d+ (?:Hash)?Map\(.*\)$"),
    row("ctl.election.completed", f"{KC} removePartitionsFromPreferredReplicaElection @0.8.0..@3.9", "0.8.0", None,
        "partition", r"Partition \S+ (?:completed preferred replica leader election\. New leader is \d+"
        r"|failed to complete preferred replica leader election(?: to \d+\. Leader is still|\. Leader is) -?\d+)$"),
    row("ctl.election.error", f"{KC} onPreferredReplicaElection @0.11..@2.3, onReplicaElection @2.4..@3.9", "0.8.0", None,
        "error", r"Error completing (?:preferred )?replica leader election .*$"),
    row("ctl.election.skipping", f"{KC} processReplicaLeaderElection @2.4..@3.9", "2.4.0", None, "skipping",
        r"Skipping replica leader election \((?:PREFERRED|UNCLEAN)\) for partitions? .*$"),
    row("ctl.election.waiting", f"{KC} processReplicaLeaderElection @2.4..@3.9 (DEBUG; the admin call's results)", "2.4.0",
        None, "waiting", r"Waiting for any successful result for election type \((?:PREFERRED|UNCLEAN)\) by \w+ for partitions: .*$"),
    row("ctl.election.selector", "PartitionLeaderSelector.scala PreferredReplicaPartitionLeaderSelector @0.8.0..@1.0",
        "0.8.0", "1.0.2", "current",
        r"Current leader \d+ for partition \S+ is not the preferred replica\. "
        r"(?:Trigerring|Triggering) preferred replica leader election$"),

    # Topic deletion ----------------------------------------------------------------------------
    row("ctl.deletion.start.listener", "PartitionStateMachine.scala DeleteTopicsListener @0.8.1..@0.10.1", "0.8.1", "0.10.1.1",
        "[deletetopicslistener", r"\[DeleteTopicsListener on (?P<b>\d+)\]: Starting topic deletion for topics (?P<ts>\S+)$",
        _deletion),
    row("ctl.deletion.listener.quiet", "PartitionStateMachine.scala DeleteTopicsListener @0.8.1..@0.10.1", "0.8.1", "0.10.1.1",
        "[deletetopicslistener",
        r"\[DeleteTopicsListener on \d+\]: (?:Delete topics listener fired for topics "
        r"|Ignoring request to delete non-existing topics "
        r"|Removing .* since delete topic is disabled).*$"),
    # Logged again, for every topic still queued, each time /admin/delete_topics changes: the
    # replay treats a repeat for a topic already being deleted as nothing new.
    row("ctl.deletion.start", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None, "starting",
        r"Starting topic deletion for topics (?P<ts>\S+)$", _deletion),
    row("ctl.deletion.fired", f"{KC} TopicDeletion @0.11..@3.9 (DEBUG), DeleteTopicsListener @0.10.2", "0.10.2.0", None,
        "delete",
        r"Delete topics listener fired for topics .* to be deleted$"),
    row("ctl.deletion.ignoring", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None,
        "ignoring",
        r"Ignoring request to delete non-existing topics .*$"),
    row("ctl.deletion.disabled", f"{KC} TopicDeletion @0.11..@3.9, DeleteTopicsListener @0.10.2", "0.10.2.0", None,
        "removing",
        r"Removing .* since delete topic is disabled$"),
    row("ctl.deletion.resume", f"{KC} onBrokerStartup @0.8.1..@3.9", "0.8.1", None, "some",
        r"Some replicas .* for topics scheduled for deletion .* are on the newly restarted brokers .*\. "
        r"Signaling restart of topic deletion for these topics$"),
    # TopicDeletionManager: progress of deletions already started (logIdent unknown to prefix.py).
    row("ctl.deletion.manager", "TopicDeletionManager.scala @0.8.1..@3.9 (logIdent `[Topic Deletion Manager N], ` <=2.0, "
        "`[Topic Deletion Manager N] ` after)", "0.8.1", None, "[topic", r"\[Topic Deletion Manager \d+\],? \S.*$"),
    # Its DeleteTopicsThread (0.8.1-0.10.2) logs under its thread name instead (ShutdownableThread's
    # logIdent `[delete-topics-thread-N], `): the deletion's progress, as the manager's lines.
    row("ctl.deletion.thread", "TopicDeletionManager.scala DeleteTopicsThread @0.8.2.2..@0.10.2.2 (0.11 dropped the "
        "thread; 0.8.1, which brought topic deletion, not seen)", "0.8.1", "0.10.2.2", "[delete-topics-thread]",
        r"\[delete-topics-thread-\d+\], \S.*$"),

    # §3.5 Unclean leader election --------------------------------------------------------------
    row("ctl.unclean.logged", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0", "0.8.0", "1.0.2",
        "no", rf"No broker in ISR is alive for {PARTITION_TOKEN}\. Elect leader (?P<l>\d+) from live brokers [\d,]*\. "
        r"There's potential data loss\.$", _unclean_logged),
    row("ctl.unclean.selected", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0", "0.8.0", "1.0.2",
        "selected", r"Selected new leader and ISR .* for offline partition \S+$"),
    row("ctl.unclean.clean", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0 (DEBUG)",
        "0.8.0", "1.0.2", "some", r"Some broker in ISR is alive for \S+\. Select \d+ from ISR [\d,]* to be the leader\.$"),
    row("ctl.unclean.picking", "PartitionLeaderSelector.scala OfflinePartitionLeaderSelector @0.8.0..@1.0.2 (DEBUG, "
        "before the WARN above or the failure)", "0.8.0", "1.0.2", "no",
        r"No broker in ISR is alive for \S+\. Pick the leader from the alive assigned replicas: [\d,]*$"),
    row("ctl.shutdown.selector", "PartitionLeaderSelector.scala ControlledShutdownLeaderSelector @0.8.0..@1.0.2 (DEBUG)",
        "0.8.0", "1.0.2", "partition", r"Partition \S+ : current leader = -?\d+, new leader = -?\d+$"),
    row("ctl.unclean.retaining", f"{KC} removeReplicaFromIsr @0.11", "0.8.0", None, "retaining",
        r"Retaining last ISR \d+ of partition \S+ since unclean leader election is disabled$"),
    row("ctl.isr.removed", f"{KC} removeReplicaFromIsr @0.11 (the decision is in state-change.log)", "0.8.0", "1.0.2", "new",
        r"New leader and ISR for partition \S+ is .*$"),
    row("ctl.unclean.default", f"{KC} processUncleanLeaderElectionEnable @2.3..@3.9", "1.1.0", None, "unclean",
        r"Unclean leader election has been enabled by default$", _unclean_enabled),
    row("ctl.unclean.topic", f"{KC} processTopicUncleanLeaderElectionEnable @2.3..@3.9", "1.1.0", None, "unclean",
        r"Unclean leader election has been enabled for topic (?P<t>\S+)$", _unclean_enabled),
)
