"""ZooKeeper-mode server.log lines that matter to the replay (spec kafka-log-formats §2.7), 0.8.0
through 3.9, as catalogue rows: the leaders' own ISR changes (`kafka.cluster.Partition`), the
config in effect (whether unclean elections were allowed), the release banner and the broker id,
and the ZooKeeper client's registration lines (`kafka.zk.KafkaZkClient`). The pre-0.11 controller
election, also in server.log, is `ingest.zk_controller`'s.

Bodies arrive with the logIdent removed (`[Partition t-0 broker=N] `, `Partition [t,0] on broker
N: `, `[KafkaServer id=N] `); `[Kafka Server N], `, which `ingest.prefix` does not know, is
matched inside the body, so its keyword starts with `[`. `last=None`: written until the end of
ZooKeeper mode (3.9.x), or, for the lines KRaft brokers write too, still written."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern, event, row
from ingest.values import JOINED_IDS, JOINED_IDS_NONEMPTY, PARTITION_TOKEN, parse_joined_ids, parse_partition
from state_machine.partition import UNCLEAN_CONFIG


# --- builders -------------------------------------------------------------------------------

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
    return [event(event_type, topic=topic, partition=partition, leader=p.broker, isr=parse_joined_ids(m["new"]),
                  zk_version=zk_version, recording_broker=p.broker)]


def _isr_update_failed(m: re.Match, ctx: LineContext) -> list:
    """The leader's ISR write that did not commit: the proposal it logged just before ("Shrinking
    ISR ...") changed nothing. The partition and the leader are the prefix's."""
    p = _partition_prefix(ctx, "failed ISR update", "the partition")
    return [event("IsrUpdateFailed", topic=p.topic, partition=p.partition, leader=p.broker, detail=m.group(0),
                  recording_broker=p.broker)]


# `unclean.leader.election.enable` inside a printed config: `k -> v, ` (a Scala Map, 2.8 and
# before), `k=v, ` (a Java Map, 3.0+), `\tk = v` (AbstractConfig.logAll, one key per line).
_UNCLEAN_VALUE = re.compile(r"(?:^|[\s,])unclean\.leader\.election\.enable(?: -> |=| = )(?P<v>\w+)")


def _config_observed(topic: str | None, partition: int | None, text: str, absent_means_default: bool) -> list:
    found = _UNCLEAN_VALUE.search(text)
    if found is None and not absent_means_default:
        return []
    return [event("ConfigObserved", topic=topic, partition=partition, config_name=UNCLEAN_CONFIG,
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
    """0.11-2.5 `t-0 starts at Leader Epoch E from offset O ...` (2.4: `at leader epoch E ... with high
    watermark H`; server.log): the broker of the partition prefix became the partition's leader
    at epoch E (no ISR printed), its log ending at O (read for an unclean election's records at risk)."""
    p = ctx.prefix
    if p.kind != "partition" or p.broker is None:
        return []   # without the prefix the line names no leader
    topic, partition = parse_partition(m["tp"])
    hw = m.groupdict().get("hw")
    return [event("LeaderAndIsrReceived", topic=topic, partition=partition, leader=p.broker,
                  leader_epoch=int(m["e"]), log_end_offset=int(m["o"]), high_watermark=int(hw) if hw else None,
                  recording_broker=p.broker)]


def _isr_shrink_offsets(m: re.Match, ctx: LineContext) -> list:
    """2.2+ `Shrinking ISR ... Leader: (highWatermark: H, endOffset: E)`: the proposal, with the
    leader's high watermark and log end offset then."""
    return [{**e, "high_watermark": int(m["hw"]), "log_end_offset": int(m["end"])} for e in _isr_proposal(m, ctx)]


def _log_partition(m: re.Match, ctx: LineContext) -> tuple[str, int]:
    """The partition of a kafka.log.Log line: its `[Log partition=t-0, dir=D] ` prefix (1.0+), else
    the log's name in the sentence (0.8-0.11)."""
    if ctx.prefix.kind == "log":
        return ctx.prefix.topic, ctx.prefix.partition
    return parse_partition(m["tp"])


def _log_truncated(m: re.Match, ctx: LineContext) -> list:
    """The broker truncated its replica's log to N, as a follower does when it (re)joins a leader."""
    topic, partition = _log_partition(m, ctx)
    return [event("LogTruncation", topic=topic, partition=partition, truncation_offset=int(m["o"]))]


def _log_truncation_no_effect(m: re.Match, ctx: LineContext) -> list:
    """A truncation to N that removed nothing: the log's largest offset M was below N (its log end M + 1)."""
    topic, partition = _log_partition(m, ctx)
    return [event("LogTruncation", topic=topic, partition=partition, truncation_offset=int(m["o"]),
                  log_end_offset=int(m["largest"]) + 1)]


def _log_loaded(m: re.Match, ctx: LineContext) -> list:
    """A replica's log loaded as the broker starts: its log end offset then (an old leader's, back
    after an unclean election, before it truncates)."""
    topic, partition = _log_partition(m, ctx)
    return [event("LogEndOffsetObserved", topic=topic, partition=partition, log_end_offset=int(m["end"]))]


def _verified_property(m: re.Match, ctx: LineContext) -> list:
    """0.8's broker config, one line per property set in server.properties: the broker-wide default."""
    if m["k"] != UNCLEAN_CONFIG:
        return []
    return [event("ConfigObserved", config_name=UNCLEAN_CONFIG, config_value=m["v"])]


def _version(m: re.Match, ctx: LineContext) -> list:
    return [{"fact": "kafka_version", "version": m["v"]}]


def _broker_started(m: re.Match, ctx: LineContext) -> list:
    b = m.groupdict().get("b")
    broker = int(b) if b is not None else (ctx.prefix.broker if ctx.prefix.kind == "server" else None)
    return [{"fact": "broker_id", "broker": broker}] if broker is not None else []


# --- the table --------------------------------------------------------------------------------

PATTERNS: tuple[MessagePattern, ...] = (
    # The broker's own registration in ZooKeeper (server.log, kafka.zk.KafkaZkClient): the
    # controller's "New broker startup callback" is the input the replay takes.
    row("srv.zk.broker_znode", "ZkUtils.scala ZKCheckedEphemeral @0.9.0.1..@2.1.1, KafkaZkClient.scala registerBroker "
        "@2.2..@3.9 (server.log; seen in a real 1.0.2 capture)", "0.9.0", None, "creating",
        r"Creating /brokers/ids/\d+ \(is it secure\? (?:true|false)\)$"),
    # ZooKeeper's Stat.toString ends in a newline: the `(kafka.zk.KafkaZkClient)` of this record
    # is on the next line, so the envelope sees no logger and the record must be a row.
    row("srv.zk.broker_znode_stat", "KafkaZkClient.scala registerBroker @2.2..@3.9 (server.log)", "2.2.0", None, "stat",
        r"Stat of the created znode at /brokers/ids/\d+ is: [\d,]+$"),
    row("srv.zk.broker_registered", "KafkaZkClient.scala registerBroker @2.2..@3.9 (server.log; czxid = broker epoch, KIP-380)",
        "2.2.0", None, "registered",
        r"Registered broker \d+ at path /brokers/ids/\d+ with addresses: .*, czxid \(broker epoch\): -?\d+$"),
    row("srv.zk.controller_epoch", "KafkaZkClient.scala maybeCreateControllerEpochZNode @2.x..@3.9 (server.log)", "2.1.0",
        None, "successfully", r"Successfully created /controller_epoch with initial epoch \d+$"),
    row("srv.zk.broker_registered.0_9", "ZkUtils.scala registerBrokerInZk @0.9.0.1..@1.0.2 (kafka.utils.ZkUtils; real "
        "0.9-1.0 captures), KafkaZkClient.scala @1.1.1..@2.1.0 (server.log)", "0.9.0",
        "2.1.1", "registered", r"Registered broker \d+ at path /brokers/ids/\d+ with addresses: "
        r"(?!.*, czxid \(broker epoch\): -?\d+$).*$"),
    row("srv.zk.broker_updated", "KafkaZkClient.scala updateBrokerInfo @1.1.1..@3.9 (server.log; a listener changed)",
        "1.1.0", None, "updated", r"Updated broker \d+ at path /brokers/ids/\d+ with addresses: .*$"),
    # A ZooKeeper session that expired and came back (server.log): the broker's (or the controller's)
    # ephemeral znode is re-created. The membership change is the controller's broker callbacks.
    row("srv.zk.ephemeral_owner", "KafkaZkClient.scala CheckedEphemeral @2.2.0..@3.9 (owner and session in decimal, "
        "`0x` hex from 3.5)", "2.2.0", None, "was",
        r"Was not possible to create the ephemeral at \S+, node already exists and owner '(?:0x[0-9a-f]+|-?\d+)' does "
        r"not match current session '(?:0x[0-9a-f]+|-?\d+)', trying to delete and re-create it with the newest "
        r"Zookeeper session$"),
    row("srv.zk.ephemeral_gone", "KafkaZkClient.scala CheckedEphemeral @1.1.1..@3.9", "1.1.0", None, "the",
        r"The ephemeral node at \S+ went away while reading it, attempting create\(\) again$"),
    row("srv.zk.ephemeral_error", "KafkaZkClient.scala CheckedEphemeral @1.1.1..@3.9 (ERROR; the owner mismatch's ids "
        "in decimal @1.1.1..@3.3.2, `0x` hex from 3.5)", "1.1.0", None, "error",
        r"Error while creating ephemeral at \S+(?: with return code: \w+|, node already exists and owner "
        r"'(?:0x[0-9a-f]+|-?\d+)' does not match current session '(?:0x[0-9a-f]+|-?\d+)'"
        r"| as it already exists and error getting the node data due to \w+)$"),
    row("srv.zk.ephemeral_delete_error", "KafkaZkClient.scala CheckedEphemeral @2.2.0..@3.9 (ERROR)", "2.2.0", None,
        "error", r"Error while deleting ephemeral node at \S+ with return code: \w+$"),
    row("srv.zk.reassignment_invalid", "KafkaZkClient.scala getPartitionReassignment @2.0.1..@3.9 (WARN)", "2.0.0", None,
        "ignoring", r"Ignoring partition reassignment due to invalid json: .*$"),

    # §2.7 ISR changes by partition leaders (server.log, kafka.cluster.Partition) -----------------
    row("srv.isr.shrink.old", "Partition.scala maybeShrinkIsr @0.8.0..@0.10.2 (prefix `Partition [t,0] on broker N: `)",
        "0.8.0", "0.10.2.2", "shrinking",
        rf"Shrinking ISR for partition {PARTITION_TOKEN} from (?P<old>{JOINED_IDS}) to (?P<new>{JOINED_IDS_NONEMPTY})$",
        _isr_proposal),
    row("srv.isr.expand.old", "Partition.scala maybeExpandIsr @0.8.0..@0.10.2 (`[t,0]`, `t-0` in 0.10.2)",
        "0.8.0", "0.10.2.2", "expanding",
        rf"Expanding ISR for partition {PARTITION_TOKEN} from (?P<old>{JOINED_IDS}) to (?P<new>{JOINED_IDS_NONEMPTY})$",
        _isr_proposal),
    row("srv.isr.shrink", "Partition.scala maybeShrinkIsr @0.11..@2.1", "0.11.0.0", "2.1.1", "shrinking",
        rf"Shrinking ISR from (?P<old>{JOINED_IDS}) to (?P<new>{JOINED_IDS_NONEMPTY})$", _isr_proposal),
    # 2.7+ with AlterIsr this is the leader's proposal; its commit is the "version updated" row.
    row("srv.leader_starts.old", "Partition.scala makeLeader @0.11.0.3..@2.4.0 (prefix `Partition [t,0] on broker N: ` "
        "in 0.11, `[Partition t-0 broker=N] ` from 1.0)",
        "0.11.0.0", "2.4.0", "%tp",
        r"(?P<tp>[\w.-]+-\d+) starts at Leader Epoch (?P<e>\d+) from offset (?P<o>-?\d+)\. Previous Leader Epoch was: -?\d+$",
        _leader_starts_old),
    row("srv.leader_starts.2_4", "Partition.scala makeLeader @2.4.1..@2.5.1 (2.6 moved it to state.change.logger: "
        "sc.broker.leader_starts.2_6)", "2.4.1", "2.5.1", "%tp",
        r"(?P<tp>[\w.-]+-\d+) starts at leader epoch (?P<e>\d+) from offset (?P<o>-?\d+) with high watermark (?P<hw>-?\d+)\. "
        r"Previous leader epoch was -?\d+\.$", _leader_starts_old),
    row("srv.isr.shrink.hw", "Partition.scala maybeShrinkIsr @2.2..@3.9 (KAFKA-7838)", "2.2.0", None, "shrinking",
        rf"Shrinking ISR from (?P<old>{JOINED_IDS}) to (?P<new>{JOINED_IDS_NONEMPTY})\. "
        r"Leader: \(highWatermark: (?P<hw>-?\d+), endOffset: (?P<end>-?\d+)\)\. "
        r"Out of sync replicas: .*$", _isr_shrink_offsets),
    row("srv.isr.expand", "Partition.scala maybeExpandIsr @0.11..@2.6, expandIsrWithZk @2.7", "0.11.0.0", "2.7.2",
        "expanding", rf"Expanding ISR from (?P<old>{JOINED_IDS}) to (?P<new>{JOINED_IDS_NONEMPTY})$", _isr_proposal),
    row("srv.isr.updated.zk", "Partition.scala updateIsr @0.8.0..@2.3 (TRACE), maybeUpdateIsrAndVersion @2.4..@2.7 (INFO)",
        "0.8.0", "2.7.2", "isr", rf"ISR updated to \[(?P<new>{JOINED_IDS_NONEMPTY})\] and zkVersion updated to \[(?P<v>\d+)\]$",
        _isr_change),
    row("srv.isr.updated.2_7", "Partition.scala handleAlterIsrResponse @2.7.0..@2.7.2", "2.7.0", "2.7.2", "isr",
        rf"ISR updated from AlterIsr to (?P<new>{JOINED_IDS_NONEMPTY}) and version updated to \[(?P<v>\d+)\]$", _isr_change),
    row("srv.isr.updated", "Partition.scala handleAlterIsrResponse @2.8 (`[V]`), handleAlterPartitionResponse @3.0..@3.9 "
        "(`V`; 3.5+ `(under-min-isr)` or nothing between two spaces)", "2.8.0", None, "isr",
        rf"ISR updated to (?P<new>{JOINED_IDS_NONEMPTY}) +(?:\(under-min-isr\) )?and version updated to \[?(?P<v>\d+)\]?$",
        _isr_change),
    # The leader's ZK write failed (another writer bumped the zkVersion, e.g. the controller after
    # a leader change) or the controller rejected the proposal: the ISR did not change. The
    # "Shrinking/Expanding ISR" event just before it was a proposal that did not commit
    # (IsrUpdateFailed: before 2.4 the replay holds a proposal until the partition's next event).
    row("srv.isr.stale", "Partition.scala updateIsr @0.8.0..@2.3 (`[%d]`), maybeUpdateIsrAndVersion @2.4..@2.7", "0.8.0",
        "2.7.2", "cached", r"Cached zkVersion \[?\d+\]? not equal to that in zookeeper, skip updating ISR$",
        _isr_update_failed),
    row("srv.isr.failed.2_7", "Partition.scala handleAlterIsrResponse @2.7.0..@2.7.2 (WARN; the Giving-up ones DEBUG)",
        "2.7.0", "2.7.2", "controller", r"Controller failed to update ISR to .*\. (?:Retrying|Giving up)\.$",
        _isr_update_failed),
    row("srv.isr.failed", "Partition.scala handleAlterIsrResponse @2.8, handleAlterPartitionResponse @3.0..@3.9 (WARN)",
        "2.8.0", None, "failed", r"Failed to update ISR to (?!.* for partition \S+, bad ZK version\.$).*$",
        _isr_update_failed),   # (the controller's own failed write is ctl.isr.alter.failed)
    row("srv.isr.rejected", "Partition.scala handleAlterPartitionError @3.3.2..@3.9 (the ISR is reset, not changed)",
        "3.3.0", None, "failed", r"Failed to alter partition to .* since the controller rejected the request with \w+\. "
        r"Partition state has been reset to the latest committed state .*$", _isr_update_failed),
    # Partition.createLog (ZK and KRaft brokers): a replica's log opened, no leadership or ISR.
    row("srv.log.no_checkpoint", "Partition.scala @0.10.2.0..@4.x (0.8.2-0.10.1 print [t,0])", "0.10.2.0", None, "no",
        r"No checkpointed highwatermark is found for partition \S+-\d+$"),
    row("srv.log.no_checkpoint.0_8", "Partition.scala getOrCreateReplica @0.8.2.2..@0.10.1.1 (WARN in 0.8.2, INFO after; "
        "none in 0.8.0; a real 0.9.0.1 capture)", "0.8.2.0", "0.10.1.1", "no",
        r"No checkpointed highwatermark is found for partition \[[\w.-]+,\d+\]$"),
    row("srv.log.loaded", "Partition.scala createLog @2.4..@4.x (Replica.scala, another logger, before)", "2.4.0", None,
        "log", r"Log loaded for partition \S+-\d+ with initial high watermark -?\d+$"),
    row("srv.log.offline_dirs", "Partition.scala createLogInAssignedDirectoryId @3.7.2..@4.3.1 (WARN, JBOD)", "3.7.0",
        None, "skipping", r"Skipping creation of log because there are potentially offline log directories and log may "
        r"already exist there\. directoryId=\S+, topicId=\S+, targetLogDirectoryId=\S+$"),
    row("srv.log.future_same_dir", "Partition.scala maybeCreateFutureReplica @2.4.1..@4.3.1 (alter log dirs)", "2.4.0",
        None, "current", r"Current log directory \S+ is same as requested log dir \S+\. Skipping future replica creation\.$"),
    # A follower (or future replica) whose fetched records start below its log start: its log is
    # restarted there. Replication, not leadership: no event.
    row("srv.log.restarted", "Partition.scala appendRecordsToFollower @1.0.2 (`follower's`), "
        "appendRecordsToFollowerOrFutureReplica @1.1.1..@4.3.1 (`follower's` or `future replica's`)", "1.0.0", None,
        "unexpected",
        r"Unexpected offset in append to \S+-\d+\. First offset -?\d+ is less than log start offset -?\d+\. Since this "
        r"is the first record to be appended to the (?:follower|future replica)'s log, will start the log from offset "
        r"-?\d+\.$"),
    row("srv.replica.unknown", "Partition.scala updateFollowerFetchState @3.7.2..@4.3.1 (WARN)", "3.7.0", None, "the",
        r"The replica state of replica ID:\[-?\d+\] doesn't exist in the leader node\. It might because the topic is "
        r"already deleted\.$"),

    # A replica's log (server.log, kafka.log.Log; UnifiedLog from 3.1, org.apache.kafka.storage.internals.log
    # from 4.0): its log end as it loads and its truncations, read for an unclean election's records at risk.
    # 1.0+ name the partition in the `[Log partition=t-0, dir=D] ` prefix. No leadership, no ISR.
    row("srv.log.truncating.0_8", "Log.scala truncateTo @0.8.1..@0.11.0.2 (0.8.1-0.10 print it before the no-effect "
        "check, 0.11 only when it cuts)", "0.8.1", "0.11.0.3", "truncating",
        r"Truncating log (?P<tp>[\w.-]+-\d+) to offset (?P<o>\d+)\.$", _log_truncated),
    row("srv.log.truncating_no_effect.0_8", "Log.scala truncateTo @0.8.1..@0.11.0.2", "0.8.1", "0.11.0.3",
        "truncating", r"Truncating (?P<tp>[\w.-]+-\d+) to (?P<o>\d+) has no effect as the largest offset in the log "
        r"is (?P<largest>-?\d+)\.$", _log_truncation_no_effect),
    row("srv.log.truncating", "Log.scala truncateTo @1.0.2..@3.0.0, UnifiedLog.scala @3.1.0..@3.9, UnifiedLog.java "
        "@4.0.. (prefix `[Log partition=t-0, dir=D] `, `[UnifiedLog ...` from 3.1)", "1.0.0", None, "truncating",
        r"Truncating to offset (?P<o>\d+)$", _log_truncated),
    row("srv.log.truncating_no_effect", "Log.scala truncateTo @1.0.2..@3.0.0, UnifiedLog @3.1.0..", "1.0.0", None,
        "truncating", r"Truncating to (?P<o>\d+) has no effect as the largest offset in the log is (?P<largest>-?\d+)$",
        _log_truncation_no_effect),
    row("srv.log.completed_load.0_8", "Log.scala loadSegments @0.8.0..@0.9.0.1", "0.8.0", "0.9.0.1", "completed",
        r"Completed load of log (?P<tp>[\w.-]+-\d+) with log end offset (?P<end>\d+)$", _log_loaded),
    row("srv.log.completed_load.0_10", "Log.scala loadSegments @0.10.0.1..@0.10.2.2", "0.10.0.0", "0.10.2.2",
        "completed", r"Completed load of log (?P<tp>[\w.-]+-\d+) with \d+ log segments and log end offset "
        r"(?P<end>\d+) in \d+ ms$", _log_loaded),
    row("srv.log.completed_load.0_11", "Log.scala loadSegments @0.11.0.2", "0.11.0.0", "0.11.0.3", "completed",
        r"Completed load of log (?P<tp>[\w.-]+-\d+) with \d+ log segments, log start offset \d+ and log end offset "
        r"(?P<end>\d+) in \d+ ms$", _log_loaded),
    row("srv.log.completed_load", "Log.scala @1.0.2..@2.5.1 (prefix `[Log partition=t-0, dir=D] `; 2.6 moved the "
        "load to a multi-line `Completed load of Log(...)`)", "1.0.0", "2.5.1", "completed",
        r"Completed load of log with \d+ segments, log start offset \d+ and log end offset (?P<end>\d+) in \d+ ms$",
        _log_loaded),

    # Config in effect (server.log, kafka.log.LogManager / kafka.server.KafkaConfig): whether unclean
    # elections were allowed, which decides how serious one is. The log's properties are printed when
    # a replica's log is created; the broker's config when it starts.
    row("srv.log.created.all", "LogManager.scala createLog/getOrCreateLog @0.8.2.2..@2.8.0 (every property, `{k -> v, ...}.`; "
        "0.8.0 prints none; a real 0.10.2.2 capture)", "0.8.2.0", "2.8.0", "created",
        rf"Created log for partition {PARTITION_TOKEN} in .+ with properties \{{(?P<props>.* -> .*)\}}\.$", _log_created_all),
    row("srv.log.created", "LogManager.scala getOrCreateLog @2.8.1..@4.x (overrides only, `{k=v, ...}`: apache/kafka#10828, "
        "in 2.8.1 and 3.0.0; the 2.8.1 and 2.8.2 sources jars and a real 2.8.2 capture)", "2.8.1", None, "created", rf"Created log for partition {PARTITION_TOKEN} in .+ with properties \{{(?P<props>[^{{}}]*)\}}$",
        _log_created_overrides),
    row("srv.kafka_config", "AbstractConfig.java logAll @0.9..@4.x (one record: `KafkaConfig values: ` and a `\tk = v` "
        "continuation line per key; first release not pinned)", "0.9.0.0", None, "kafkaconfig",
        r"KafkaConfig values: ?(?P<values>[\s\S]*)$", _kafka_config),
    row("srv.verifiable_property", "VerifiableProperties.scala verify @0.8.0..@0.8.2.2 (KafkaConfig read server.properties "
        "through it until 0.9's AbstractConfig; clients kept it later, brokers did not)", "0.8.0", "0.8.2.2", "property",
        r"Property (?P<k>\S+) is overridden to (?P<v>\S*)$", _verified_property),
    row("srv.verifiable_property.verifying", "VerifiableProperties.scala verify @0.8.0..@0.8.2.2", "0.8.0", "0.8.2.2",
        "verifying", r"Verifying properties$"),

    # server.log: release banner, broker id ------------------------------------------------------
    row("srv.version.old", "AppInfoParser.java AppInfo @0.8.2..@2.1", "0.8.2.0", "2.1.1", "kafka",
        r"Kafka version : (?P<v>\S+)$", _version),
    row("srv.version", "AppInfoParser.java AppInfo @2.2..@3.9", "2.2.0", None, "kafka", r"Kafka version: (?P<v>\S+)$", _version),
    row("srv.version.more", "AppInfoParser.java AppInfo @0.8.2..@3.9", "0.8.2.0", None, "kafka",
        r"Kafka (?:commitId ?: \S+|startTimeMs: \d+)$"),
    row("srv.started.old", "KafkaServer.scala startup @0.8.0..@0.11 (logIdent `[Kafka Server N], `)", "0.8.0", "0.11.0.3",
        "[kafka", r"\[Kafka Server (?P<b>\d+)\], started$", _broker_started),
    row("srv.lifecycle.old", "KafkaServer.scala @0.8.0..@0.11", "0.8.0", "0.11.0.3", "[kafka",
        r"\[Kafka Server -?\d+\], (?:starting|shutting down|shut down completed)$"),
    row("srv.started", "KafkaServer.scala startup @1.0..@3.9 (logIdent `[KafkaServer id=N] `)", "1.0.0", None, "started",
        r"started$", _broker_started),
    row("srv.lifecycle", "KafkaServer.scala @1.0..@3.9", "1.0.0", None, "shutting", r"shutting down$"),
    row("srv.lifecycle.done", "KafkaServer.scala @1.0..@3.9", "1.0.0", None, "shut", r"shut down completed$"),
    row("srv.topic.creating", "AdminZkClient.scala createTopicWithAssignment @1.1..@3.9 (the request; the controller's "
        "\"New topics\" line is the input)", "1.1.0", None, "creating",
        r"Creating topic \S+ with configuration .* and initial partition assignment .*$"),
)
