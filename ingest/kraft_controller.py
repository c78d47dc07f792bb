"""The KRaft controller's own log lines (QuorumController and its managers, and the leader
changes of its Raft client; spec kafka-log-formats §4.3-4.4), as catalogue rows. Lines that
copy, or only announce, a record the dump holds are understood without an event: the record in
the dump is the event (ingest.kraft_dump)."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern, no_events, row


_DIFF_LEADER = re.compile(r"(?:^|, )leader: -?\d+ -> (-?\d+)(?:,|$)")


def _recorded_by(ctx: LineContext) -> dict:
    return {} if ctx.prefix.broker is None else {"recording_broker": ctx.prefix.broker}


def _unclean_partition_change(m: re.Match, ctx: LineContext) -> list:
    # PartitionRegistration.maybeLogPartitionChange: the new leader is not in the previous
    # ISR. This line, not PartitionChangeBuilder's "Setting new leader ... using an unclean
    # election" (3.6+), is the event: every KRaft release writes it, when the
    # PARTITION_CHANGE_RECORD is replayed (the moment it takes effect), and it names the
    # topic. tryElection logs its line on the active controller while building that same
    # record, whose ISR it forces to [leader]; replaying it then always logs UNCLEAN too, so
    # reporting both would count one election twice. (Standby controllers replay and log
    # UNCLEAN as well, each in its own file, with its own id as recording_broker.)
    # Which changes log it (PartitionRegistration, sources jars): 3.0-3.9 a new leader outside
    # the previous ISR; 4.0 the same, but a leader from the ELR is clean; 4.1+ every change
    # that leaves the partition RECOVERING (a later change of a RECOVERING partition logs it
    # again: the replay recognises those). 2.8 has no such line.
    new_leader = _DIFF_LEADER.search(m["diff"])
    if new_leader is None or int(new_leader[1]) < 0:
        return []          # leader unchanged or gone: not an election
    if "leaderRecoveryState: " in m["diff"] and "-> RECOVERING" not in m["diff"]:
        return []          # the change ends the recovery an earlier unclean election began
    topic, _, partition = m["tp"].rpartition("-")
    return [{"event_type": "UncleanElectionLogged", "topic": topic, "partition": int(partition),
             "leader": int(new_leader[1]), "detail": m["diff"], **_recorded_by(ctx)}]


def _topic_name(m: re.Match, ctx: LineContext) -> list:
    return [{"fact": "topic_name", "topic_id": m["tid"], "topic": m["topic"]}]


def _new_epoch(m: re.Match, ctx: LineContext) -> list:
    leader = m["leader"]        # QuorumController.leaderName: "(none)" when no leader
    return [{"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": None if leader == "(none)" else int(leader)}]


def _active_controller(m: re.Match, ctx: LineContext) -> list:
    # The line is written by the controller that just won the epoch: the prefix names it.
    return [{"fact": "raft_epoch", "epoch": int(m["epoch"]), "leader": ctx.prefix.broker}]


def _renounced(m: re.Match, ctx: LineContext) -> list:
    """The active controller losing its term (an operation failed with NotLeaderException, or the
    Raft client moved to a new epoch): the epoch it led was its own (the prefix names it, else
    the line's `QuorumController@hash` tells nothing of it), and where the line names the new
    epoch's leader, that epoch is that leader's. A standby's failure (`already in standby mode`)
    names no epoch: nothing."""
    groups = m.groupdict()
    out = []
    old = groups.get("old") or groups.get("old2")
    if old is not None and int(old) >= 0 and ctx.prefix.broker is not None:   # -1: it held no epoch
        out.append({"fact": "raft_epoch", "epoch": int(old), "leader": ctx.prefix.broker})
    leader = groups.get("leader")
    if groups.get("epoch") is not None and leader is not None and leader != "(none)":
        out.append({"fact": "raft_epoch", "epoch": int(groups["epoch"]), "leader": int(leader)})
    return out


# --- a ZooKeeper migration's dual write (KIP-866): the records of a topic the KRaft controller creates.
# The ZooKeeper brokers' replay has no metadata log: where the controller's own lines name a topic's
# replicas, they are its first record of them. Facts here; ingest.lines.FileParser._dual_write
# turns them into the event, and only in a migration, for a topic a request created (not the
# records a controller replays as it loads its log).

def zk_migration_state(m: re.Match, ctx: LineContext) -> list:
    """The controller runs a ZooKeeper migration ("ZK migration mode is enabled"), or its migration
    state changed (ZkMigrationStateRecord): MIGRATION is the dual write."""
    state = m.groupdict().get("to") or ("enabled" if m.groupdict().get("zk") else None)
    return [] if state is None else [{"fact": "zk_migration", "state": state}]


_CREATABLE_TOPIC = "CreatableTopic(name='"


def _topics_created(m: re.Match, ctx: LineContext) -> list:
    """CreateTopics result(s): each `CreatableTopic(name='t', ...): SUCCESS` (or an error and its
    message), joined by ", " (ReplicationControlManager.createTopics @3.4.1..): the topics created."""
    created = [part.split("'", 1)[0] for part in m["results"].split(_CREATABLE_TOPIC)[1:]
               if part.rstrip(", ").endswith(": SUCCESS")]
    return [{"fact": "topics_created", "topics": created}] if created else []


_REGISTRATION_FIELDS = {name: re.compile(rf"(?:\(|, ){name}=(\[[\d, ]*\]|-?\d+)")
                        for name in ("replicas", "isr", "leader", "leaderEpoch")}


def _partition_registration(m: re.Match, ctx: LineContext) -> list:
    """A PartitionRecord the controller replayed, as PartitionRegistration.toString prints it
    (3.4: replicas, isr, ..., leader, leaderRecoveryState, leaderEpoch, partitionEpoch; 3.7+ adds
    directories and the ELR fields): a new partition's replicas, ISR, leader and leader epoch."""
    values = {}
    for name, field in _REGISTRATION_FIELDS.items():
        found = field.search(m["registration"])
        if found is None:
            return []
        values[name] = found[1]
    topic, _, partition = m["tp"].rpartition("-")
    return [{"fact": "partition_registration", "new": m.groupdict().get("existing") != "existing", "topic": topic,
             "partition": int(partition), "replicas": [int(v) for v in values["replicas"].strip("[]").split(",") if v.strip()],
             "isr": [int(v) for v in values["isr"].strip("[]").split(",") if v.strip()], "leader": int(values["leader"]),
             "leader_epoch": int(values["leaderEpoch"]), "controller_id": ctx.prefix.broker}]


# The KRaft controller's own lines: their ranges are the cluster's release (ingest.detect).
CONTROLLER_ROW_PREFIX = "kraft.controller."

_RCM = "ReplicationControlManager.java"
_QC = "QuorumController.java"
_CCM = "ClusterControlManager.java"
# "t-0 with topic ID <id>": ReplicationControlManager's partition description.
_TP = r"(?P<tp>\S+-\d+) with topic ID (?P<tid>\S+)"
# A snapshot id: kafka-raft's OffsetAndEpoch class up to 4.0, server-common's record from 4.1.
_SNAPSHOT_ID = r"OffsetAndEpoch[(\[]offset=\d+, epoch=\d+[)\]]"
# Its file name (Snapshots.filenameFromSnapshotId: offset and epoch, zero-padded).
_SNAPSHOT_FILE = r"\d{20}-\d{10}"
# ReplicationControlManager.logPartitionInfo (4.3.0..), appended to the periodic unclean election's lines.
_PARTITION_INFO = r"\(isr: \[[\d, ]*\], replicaSet: \[[\d, ]*\], partitionEpoch: \d+, leaderEpoch: -?\d+\)"

CONTROLLER_PATTERNS: tuple[MessagePattern, ...] = (
    row("kraft.controller.unclean_partition_change", "PartitionRegistration.maybeLogPartitionChange INFO @3.0.2..",
        "3.0.0", None, "UNCLEAN", r"UNCLEAN partition change for " + _TP + r": (?P<diff>.+)$", _unclean_partition_change),
    row("kraft.controller.partition_change", "PartitionRegistration.maybeLogPartitionChange DEBUG @3.0.2..",
        "3.0.0", None, "partition", r"partition change for " + _TP + r": .+$", no_events),
    row("kraft.controller.unclean_election", "PartitionChangeBuilder.tryElection INFO @3.6.0.. "
        "(later releases append '. Previous partition: {}, change record: {}')", "3.6.0", None, "Setting",
        r"Setting new leader for topicId \S+, partition \d+ to -?\d+ using an unclean election(?:$|\. Previous partition: )",
        no_events),
    row("kraft.controller.clean_election", "PartitionChangeBuilder.tryElection TRACE (ELR: @3.7.0.., INFO later)", "3.6.0", None,
        "Setting", r"Setting new leader for topicId \S+, partition \d+ to -?\d+ using (?:a clean election$|ELR(?:$|\. Previous partition: ))",
        no_events),
    row("kraft.controller.created_topic_28", f"{_RCM} replay(TopicRecord) @2.8.2", "2.8.0", "2.8.2", "Created",
        r"Created topic (?P<topic>\S+) with ID (?P<tid>\S+)\.$", _topic_name),
    row("kraft.controller.created_partition_28", f"{_RCM} replay(PartitionRecord, PartitionChangeRecord) @2.8.2",
        "2.8.0", "2.8.2", "Created", r"Created partition \S+:\d+ with PartitionControlInfo\(.*\)\.$", no_events),
    row("kraft.controller.modified_partition_28", f"{_RCM} replay(PartitionChangeRecord) @2.8.2", "2.8.0", "2.8.2",
        "Modified", r"Modified partition \S+:\d+: .*\.$", no_events),
    row("kraft.controller.created_topic", f"{_RCM} replay(TopicRecord) @3.0.2..@3.5.2", "3.0.0", "3.5.2", "Created",
        r"Created topic (?P<topic>\S+) with topic ID (?P<tid>\S+)\.$", _topic_name),
    row("kraft.controller.replayed_topic", f"{_RCM} replay(TopicRecord) @3.6.0..", "3.6.0", None, "Replayed",
        r"Replayed TopicRecord for topic (?P<topic>\S+) with topic ID (?P<tid>\S+)\.$", _topic_name),
    row("kraft.controller.created_partition", f"{_RCM} replay(PartitionRecord) @3.0.2..@3.5.2", "3.0.0", "3.5.2", "Created",
        r"Created partition " + _TP + r" and Partition(?:ControlInfo|Registration)(?P<registration>\(.*\))\.$",
        _partition_registration),
    row("kraft.controller.replayed_partition", f"{_RCM} replay(PartitionRecord) @3.6.0..", "3.6.0", None, "Replayed",
        r"Replayed PartitionRecord for (?:new|(?P<existing>existing)) partition " + _TP
        + r" and PartitionRegistration(?P<registration>\(.*\))\.$", _partition_registration),
    row("kraft.controller.removed_topic", f"{_RCM} replay(RemoveTopicRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2", "Removed",
        r"Removed topic \S+ with ID \S+\.$", no_events),
    row("kraft.controller.replayed_remove_topic", f"{_RCM} replay(RemoveTopicRecord) @3.6.0..", "3.6.0", None, "Replayed",
        r"Replayed RemoveTopicRecord for topic \S+ with ID \S+\.$", no_events),
    row("kraft.controller.fencing_broker", f"{_RCM} maybeFenceStaleBroker(s) @2.8.2..@3.9.2", "2.8.0", "3.9.2", "Fencing",
        r"Fencing broker \d+ because its session has timed out\.$", no_events),
    row("kraft.controller.handle_broker_fenced", f"{_RCM} generateLeaderAndIsrUpdates @3.0.0..", "3.0.0", None,
        "handleBrokerFenced:", r"handleBrokerFenced: changing \d+ partition\(s\)$", no_events),
    row("kraft.controller.handle_broker_unfenced", f"{_RCM} generateLeaderAndIsrUpdates @3.0.0..", "3.0.0", None,
        "handleBrokerUnfenced:", r"handleBrokerUnfenced: changing \d+ partition\(s\)$", no_events),
    # The same sentence from the other callers of generateLeaderAndIsrUpdates (sources jars).
    *(row(f"kraft.controller.{name}", f"{_RCM} generateLeaderAndIsrUpdates @{first}..", first, None, f"{context}:",
          rf"{context}: changing \d+ partition\(s\)$", no_events)
      for name, context, first in (("handle_broker_unregistered", "handleBrokerUnregistered", "3.0.0"),
                                   ("offline_dir_assignment", "offline-dir-assignment", "3.7.0"),
                                   ("handle_broker_unclean_shutdown", "handleBrokerUncleanShutdown", "3.9.0"),
                                   ("handle_broker_shutdown", "handleBrokerShutdown", "4.0.0"))),
    row("kraft.controller.registered_broker", f"{_CCM} replay(RegisterBrokerRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2",
        "Registered", r"Registered new broker: RegisterBrokerRecord\(.*\)$", no_events),
    row("kraft.controller.re_registered_broker", f"{_CCM} replay(RegisterBrokerRecord) @2.8.0..@3.5.2", "2.8.0", "3.5.2",
        "Re-registered", r"Re-registered broker (?:incarnation|id \d+): RegisterBrokerRecord\(.*\)$", no_events),
    row("kraft.controller.replayed_register_broker", f"{_CCM} replay(RegisterBrokerRecord) @3.6.0..", "3.6.0", None,
        "Replayed", r"Replayed (?:initial RegisterBrokerRecord for broker \d+|RegisterBrokerRecord modifying the registration"
        r" for broker \d+|RegisterBrokerRecord establishing a new incarnation of broker \d+): RegisterBrokerRecord\(.*\)$",
        no_events),
    row("kraft.controller.unfenced_broker", f"{_CCM} replay(UnfenceBrokerRecord) @2.8.2..@3.3.1", "2.8.0", "3.3.1",
        "Unfenced", r"Unfenced broker: \S.*$", no_events),
    row("kraft.controller.unfenced_broker_shutdown", "BrokerHeartbeatManager.calculateNextBrokerState @2.8.2..", "2.8.0", None,
        "Unfenced", r"Unfenced broker \d+ has requested and been granted .+$", no_events),
    # A fenced broker shutting down: the controller lets it go at once (it leads nothing).
    row("kraft.controller.fenced_broker_shutdown", "BrokerHeartbeatManager.calculateNextBrokerState @2.8.2..", "2.8.0", None,
        "Fenced", r"Fenced broker \d+ has requested and been granted an immediate shutdown\.$", no_events),
    row("kraft.controller.unknown_feature", f"{_CCM} replay(RegisterBrokerRecord) WARN @3.3.2..@3.8.1 (not @3.9.2)",
        "3.3.0", "3.8.1", "Broker", r"Broker \d+ registered with feature \S+ that is unknown to the controller$", no_events),
    # A leader's ISR change the controller refused changes nothing (the ISR changes it accepts are
    # the dump's PARTITION_CHANGE_RECORDs). Every form of 2.8.2-4.3.1, DEBUG to ERROR: alterIsr until
    # 3.1, AlterPartition from 3.2 (3.2's "unlcean" typo); 3.3 adds "or name"; 4.3 drops the ISRs
    # and appends the partition's state.
    row("kraft.controller.alter_partition_rejected", f"{_RCM} alterPartition / validateAlterPartitionData @2.8.2..",
        "2.8.0", None, "Rejecting",
        r"Rejecting (?:alterIsr|AlterPartition) request (?:for unknown topic ID \S+(?: or name \S+)?"
        r"|for unknown partition \S+-\d+|from node \d+ for \S+-\d+ because (?:the current (?:leader|partition) epoch is "
        r"-?\d+, (?:not -?\d+|which is (?:greater than the local|lower than the request) value -?\d+)"
        r"|the current leader is -?\d+|it specified an invalid ISR(?: \[.*?\])?(?: that doesn't include itself)?"
        r"|the ISR (?:\[.*?\] )?had more than one replica while the leader was still recovering from an un(?:cl|lc)ean "
        r"leader election \S+|the leader recovery state cannot change from RECOVERED to RECOVERING"
        r"|it specified ineligible replicas \[.*?\] in the new ISR(?: \[.*?\])?))\.(?: .*)?$", no_events),
    row("kraft.controller.new_epoch", f"{_QC} / OffsetControlManager handleLeaderChange @3.3.0..", "3.3.0", None, "In",
        r"In the new epoch (?P<epoch>\d+), the leader is (?P<leader>\d+|\(none\))\.$", _new_epoch),
    # A Raft election the active controller won again: its claim moves to the new epoch.
    row("kraft.controller.still_leader", f"{_QC} handleLeaderChange WARN @3.3.0..", "3.3.0", None, "We",
        r"We were the leader in epoch \d+, and are still the leader in the new epoch (?P<epoch>\d+)\.$", _active_controller),
    row("kraft.controller.becoming_active", f"{_QC} / OffsetControlManager handleLeaderChange @3.0.0.. (tail varies)",
        "3.0.0", None, "Becoming", r"Becoming the active controller at epoch (?P<epoch>\d+)[,.]", _active_controller),
    row("kraft.controller.becoming_active_28", f"{_QC} handleClaim @2.8.0..@2.8.2", "2.8.0", "2.8.2", "Becoming",
        r"Becoming active at controller epoch (?P<epoch>\d+)\.$", _active_controller),
    row("kraft.controller.renouncing", f"{_QC} handleRenounce / handleLeaderChange @2.8.0..", "2.8.0", None, "Renouncing",
        r"Renouncing the leadership (?:at oldEpoch (?P<old>\d+) due to a metadata log event|due to a metadata log event\."
        r" We were the leader at epoch (?P<old2>\d+), but in the new epoch (?P<epoch>\d+), the leader is "
        r"(?P<leader>\d+|\(none\)))\. Reverting to last (?:committed|stable) offset -?\d+\.$", _renounced),
    # 3.9's two periodic elections (4.0 logs them as periodic tasks); their records are in the dump.
    *(row(f"kraft.controller.{name}_generated", f"{_QC} {task} @3.9.0..@3.9.2", "3.9.0", "3.9.2", f"{task}:",
          rf"{task}: generated \d+ records in \d+ microseconds\.(?: Rescheduling immediately\.)?$", no_events)
      for name, task in (("unclean_leaders", "maybeElectUncleanLeaders"),
                         ("balance_leaders", "maybeBalancePartitionLeaders"))),   # the auto leader rebalance
    row("kraft.controller.triggering_unclean", f"{_RCM} ERROR @3.9.0..@3.9.2, INFO @4.0.0.. (4.3.0 appends the partition)",
        "3.9.0", None, "Triggering",
        r"Triggering unclean leader election for offline partition \S+-\d+\.(?: " + _PARTITION_INFO + ")?$", no_events),
    row("kraft.controller.cannot_trigger_unclean", f"{_RCM} WARN @3.9.0..", "3.9.0", None, "Cannot",
        r"Cannot trigger unclean leader election for offline partition \S+-\d+: .+$", no_events),
    row("kraft.controller.unclean_disabled", f"{_RCM} DEBUG @3.9.0..", "3.9.0", None, "Cannot",
        r"Cannot trigger unclean leader election for offline partition \S+-\d+ because unclean leader election is "
        r"disabled for this topic\.(?: " + _PARTITION_INFO + ")?$", no_events),
)

# Lines of the KRaft controller that copy, or only announce, what the metadata log holds: the
# dump carries the records themselves (BROKER_REGISTRATION_CHANGE_RECORD, CONFIG_RECORD,
# PARTITION_CHANGE_RECORD, ...), so each is understood and carries no event; an event here would
# replay the same record twice (once per quorum member that logs it, too).
_CONFIG = "ConfigurationControlManager.java"
_FEATURES = "FeatureControlManager.java"
_PERIODIC = "PeriodicTaskControlManager.java"
_HEARTBEAT = "BrokerHeartbeatManager.java"
_PERF = "EventPerformanceMonitor.java"

# ActivationRecordsGenerator (3.6.0..) builds its one line from these sentences, as they apply.
_ACTIVATION_SENTENCES = (
    r"Aborting partial bootstrap records transaction at offset \d+\. Re-appending \d+ bootstrap record\(s\) in new "
    r"metadata transaction at metadata\.version \S+ from bootstrap source '.*?'\.",
    r"The metadata log appears to be empty\. Appending \d+ bootstrap record\(s\) (?:in metadata transaction )?at "
    r"metadata\.version \S+ from bootstrap source '.*?'\.",
    r"Aborting in-progress metadata transaction at offset \d+\.",
    r"No metadata\.version feature level record was found in the log\. Treating the log as version \S+\.",
    r"Loaded ZK migration state of \w+\.",
    r"This is expected because this is a de-novo KRaft cluster\.",
    r"Putting the controller into pre-migration mode\. No metadata updates will be allowed until the ZK metadata has "
    r"been migrated\.",
    r"Setting the ZK migration state to NONE since this is a de-novo KRaft cluster\.",
    r"Activating pre-migration controller without empty log\. There may be a partial migration\.",
    r"Completing the ZK migration since this controller was configured with 'zookeeper\.metadata\.migration\.enable' "
    r"set to 'false'\.",
    r"Staying in ZK migration mode since 'zookeeper\.metadata\.migration\.enable' is still 'true'\.",
    r"Ignoring 'zookeeper\.metadata\.migration\.enable' value of 'true' since the ZK migration has been completed\.",
)

REPLAY_COPY_PATTERNS: tuple[MessagePattern, ...] = (
    row("kraft.controller.replayed_registration_change", f"{_CCM} replayRegistrationChange @3.6.0.. (4.3.1 real)", "3.6.0",
        None, "Replayed", r"Replayed (?:BrokerRegistrationChangeRecord|FenceBrokerRecord|UnfenceBrokerRecord) modifying the "
        r"registration for broker \d+: \w+\(.*\)$", no_events),
    row("kraft.controller.replayed_register_controller", f"{_CCM} replay(RegisterControllerRecord) @3.7.0.. (KIP-919; "
        "3.7.0-3.9.2 spell it `contaning`)", "3.7.0", None, "Replayed",
        r"Replayed RegisterControllerRecord conta(?:i)?ning ControllerRegistration\(.*\)\."
        r"(?: Previous incarnation was \S+)?$", no_events),
    row("kraft.controller.unregistered_broker", f"{_CCM} replay(UnregisterBrokerRecord) @2.8.2..@3.5.2", "2.8.0", "3.5.2",
        "Unregistered", r"Unregistered broker: UnregisterBrokerRecord\(.*\)$", no_events),
    row("kraft.controller.replayed_unregister_broker", f"{_CCM} replay(UnregisterBrokerRecord) @3.6.0..", "3.6.0", None,
        "Replayed", r"Replayed UnregisterBrokerRecord\(.*\)$", no_events),
    row("kraft.controller.no_op_registration", f"{_CCM} replayRegistrationChange @3.3.0..", "3.3.0", None, "Ignoring",
        r"Ignoring no-op registration change for BrokerRegistration\(.*\)$", no_events),
    row("kraft.controller.replayed_config", f"{_CONFIG} replay(ConfigRecord) @3.6.0.. "
        "(sensitive values print [hidden])", "3.6.0", None, "Replayed",
        r"Replayed ConfigRecord for ConfigResource\(type=\w+, name='[^']*'\) which (?:set configuration \S+ to .*"
        r"|removed configuration \S+)$", no_events),
    # 2.8-3.5: `ConfigResource(type=TOPIC, name='t'): set configuration k to v` (null: removed).
    *(row(f"kraft.controller.set_configuration.{kind.lower()}", f"{_CONFIG} replay(ConfigRecord) @2.8.2..@3.5.2", "2.8.0",
          "3.5.2", f"ConfigResource(type={kind},", rf"ConfigResource\(type={kind}, name='[^']*'\): set configuration \S+ to .*$",
          no_events)
      for kind in ("TOPIC", "BROKER")),
    # 3.6-3.x print "metadata version", later releases "metadata.version".
    row("kraft.controller.replayed_feature_level", f"{_FEATURES} replay(FeatureLevelRecord) @3.6.0..", "3.6.0", None, "Replayed",
        r"Replayed a FeatureLevelRecord (?:setting metadata[. ]version to \S+|setting feature \S+ to \d+"
        r"|removing feature \S+)$", no_events),
    # 3.3-3.5 word the same replay otherwise (3.5: "metadata version"); 3.5 adds its ZK migration state.
    row("kraft.controller.setting_feature_33", f"{_FEATURES} replay(FeatureLevelRecord) @3.3.2..@3.5.2", "3.3.0", "3.5.2",
        "Setting", r"Setting (?:metadata[. ]version to \S+|feature \S+ to \d+)$", no_events),
    row("kraft.controller.removing_feature_33", f"{_FEATURES} replay(FeatureLevelRecord) @3.3.2..@3.5.2", "3.3.0", "3.5.2",
        "Removing", r"Removing feature \S+$", no_events),
    row("kraft.controller.zk_migration_state_35", f"{_FEATURES} replay(ZkMigrationStateRecord) @3.5.2", "3.5.0", "3.5.2",
        "Transitioning", r"Transitioning ZK migration state from \w+ to (?P<to>\w+)$", zk_migration_state),
    # An admin's feature update (kafka-features), checked before its FeatureLevelRecord is written.
    row("kraft.controller.metadata_version_upgrade", f"{_FEATURES} updateMetadataVersion @3.3.2.. (WARN from 3.9.0)",
        "3.3.0", None, "Upgrading", r"Upgrading metadata\.version from \S+ to \S+\.$", no_events),
    row("kraft.controller.metadata_version_downgrade", f"{_FEATURES} updateMetadataVersion @3.3.2.. (WARN from 3.9.0)",
        "3.3.0", None, "Downgrading", r"Downgrading metadata\.version from \S+ to \S+\.$", no_events),
    row("kraft.controller.verified_feature_support", f"{_FEATURES} updateFeature @3.7.0..", "3.7.0", None, "Verified",
        r"Verified that \d+ broker\(s\) and \d+ controller\(s\) supported changing \S+ to feature level \d+\..*$",
        no_events),
    # 3.5's QuorumController on the ZK migration, each line its own (3.6 folds them into the
    # activation line, _ACTIVATION_SENTENCES); a KRaft-born cluster writes the first at activation.
    *(row(f"kraft.controller.zk_migration_35.{word.lower()}", f"{_QC} @3.5.2", "3.5.0", "3.5.2", word, regex, no_events)
      for word, regex in (
          ("Loaded", r"Loaded ZK migration state of \w+$"),
          ("Starting", r"Starting ZK Migration$"),
          ("Completing", r"Completing ZK Migration$|Completing the ZK migration since this controller was configured with "
                         r"'zookeeper\.metadata\.migration\.enable' set to 'false'\.$"),
          ("Putting", r"Putting the controller into pre-migration mode\. No metadata updates will be allowed until the ZK "
                      r"metadata has been migrated$"),
          ("Setting", r"Setting the ZK migration state to NONE since this is a de-novo KRaft cluster\.$"),
          ("Activating", r"Activating pre-migration controller without empty log\. There may be a partial migration$"),
          ("Staying", r"Staying in the ZK migration since 'zookeeper\.metadata\.migration\.enable' is still 'true'\.$"),
          # sic: "migrationhas"
          ("Ignoring", r"Ignoring 'zookeeper\.metadata\.migration\.enable' value of 'true' since the ZK migrationhas been "
                       r"completed\.$"))),
    row("kraft.controller.replayed_transaction", "OffsetControlManager.java replay(Begin/End/AbortTransactionRecord) @3.6.0.. "
        "(KIP-868)", "3.6.0", None, "Replayed",
        r"Replayed (?:(?:BeginTransactionRecord\(.*\)|EndTransactionRecord\(\)) at offset \d+\."
        r"|AbortTransactionRecord\(.*\) at offset \d+\. Reverted to offset -?\d+\.)$",
        no_events),
    row("kraft.controller.removed_elrs", f"{_RCM} replay(ClearElrRecord) @4.0.0..", "4.0.0", None, "Removed",
        r"Removed ELRs from \d+ partitions (?:of topic \S+|in all topics)\.$", no_events),
    row("kraft.controller.replaying_producer_ids", "ProducerIdControlManager.java replay(ProducerIdsRecord) @3.6.0..", "3.6.0",
        None, "Replaying", r"Replaying ProducerIdsRecord ProducerIdsRecord\(.*\)$", no_events),
    # The reassignment's PARTITION_CHANGE_RECORD is in the dump (its addingReplicas/removingReplicas
    # are the reassignment in flight).
    row("kraft.controller.replayed_assignment_change", f"{_RCM} replay(PartitionChangeRecord) @3.0.2.. (4.3.1 appends "
        "'. (<isr/replicaSet/epoch diff>)')", "3.0.0", None, "Replayed",
        r"Replayed partition assignment change PartitionChangeRecord\(.*\) for topic \S+?(?:\. \(.*\))?$", no_events),
    row("kraft.controller.reassignment_completed", f"{_RCM} alterPartition @3.2.3.. (a PARTITION_CHANGE_RECORD follows)",
        "3.2.0", None, "AlterPartition",
        r"AlterPartition request from node \d+ for \S+-\d+ completed the ongoing partition reassignment(?:\.(?: .*)?$| and "
        r"triggered a leadership change(?: .*)?\. Returning \w+\.$)", no_events),
    row("kraft.controller.reassignment_completed_alter_isr", f"{_RCM} alterIsr @3.0.2..@3.1.2 (the source spells "
        "`Reutrning`)", "3.0.0", "3.1.2", "AlterIsr",
        r"AlterIsr request from node \d+ for \S+-\d+ completed the ongoing partition reassignment(?:\.| and triggered a "
        r"leadership change\. Reutrning FENCED_LEADER_EPOCH\.)$", no_events),
    row("kraft.controller.altered_reassignments", f"{_RCM} alterPartitionReassignments @3.x..", "3.0.0", None, "Successfully",
        r"Successfully altered \d+ out of \d+ partition reassignment\(s\)\.$", no_events),
    # Requests and their results: the TOPIC_RECORD / PARTITION_RECORD / REMOVE_TOPIC_RECORD
    # they produced are the events.
    row("kraft.controller.create_topics_result", f"{_RCM} createTopics @2.8.2.. (`createTopics` to 3.0)", "2.8.0", None,
        "CreateTopics", r"[Cc]reateTopics result\(s\): (?P<results>.*)$", _topics_created),
    row("kraft.controller.validate_only_create_topics", f"{_RCM} createTopics @3.1.2..", "3.1.0", None, "Validate-only",
        r"Validate-only CreateTopics result\(s\): .*$", no_events),
    row("kraft.controller.validate_only_create_partitions", f"{_QC} createPartitions DEBUG @3.2.3..", "3.2.0", None,
        "Validate-only", r"Validate-only CreatePartitions result\(s\): .*$", no_events),
    # A reassignment the request asked for and the controller refused: nothing changes.
    row("kraft.controller.reassignment_refused", f"{_RCM} alterPartitionReassignments @3.0.2..", "3.0.0", None, "Unable",
        r"Unable to alter partition reassignment for \S+:\d+ because of an \w+ error: .*$", no_events),
    row("kraft.controller.delete_topics_result", f"{_RCM} deleteTopics @4.0.0..", "4.0.0", None, "DeleteTopics",
        r"DeleteTopics result\(s\): .*$", no_events),
    # Broker liveness decisions whose records (BROKER_REGISTRATION_CHANGE_RECORD fenced/unfenced,
    # inControlledShutdown) are in the dump.
    row("kraft.controller.fencing_broker_epoch", f"{_RCM} maybeFenceOneStaleBroker @4.0.0.. (the broker epoch added)",
        "4.0.0", None, "Fencing",
        r"Fencing broker \d+ at epoch \d+ because its session has timed out\.$", no_events),
    # The same check finding a tracker entry of a broker's earlier incarnation (it re-registered
    # before its session expired) or of an unregistered broker: nothing is fenced, no record.
    row("kraft.controller.stale_heartbeat_tracker", f"{_RCM} maybeFenceOneStaleBroker @4.0.0..@4.3.1", "4.0.0", None,
        "Removing", r"Removing heartbeat tracker entry for (?:unknown broker \d+ at epoch \d+\."
        r"|broker \d+ at previous epoch \d+\. Current epoch is \d+)$", no_events),
    # A heartbeat that waited too long in the controller's queue: the broker's session is kept
    # alive and nothing else changes, so no record is written (logged at ERROR).
    row("kraft.controller.expired_heartbeat", f"{_RCM} processExpiredBrokerHeartbeat ERROR @3.5.0..", "3.5.0", None,
        "processExpiredBrokerHeartbeat:", r"processExpiredBrokerHeartbeat: controller event queue overloaded\. Timed out "
        r"heartbeat from broker \d+\.$", no_events),
    row("kraft.controller.enter_controlled_shutdown", f"{_RCM} enterControlledShutdown @3.x.. (keyword keyed `[%d]`)",
        "3.0.0", None, "enterControlledShutdown[%d]:",
        r"enterControlledShutdown\[\d+\]: changing \d+ partition\(s\)$", no_events),
    row("kraft.controller.unfence_granted", f"{_HEARTBEAT} calculateNextBrokerState @2.8.2.. (2.8-3.2: the last "
        "committed offset; 3.3-3.4 spell it `it's`)", "2.8.0", None, "The",
        r"The request from broker \d+ to unfence has been granted because it has caught up with the (?:offset of it'?s "
        r"register broker record|last committed metadata offset) \d+\.$", no_events),
    row("kraft.controller.shutdown_granted", f"{_HEARTBEAT} calculateNextBrokerState @3.0.0..", "3.0.0", None, "The",
        r"The request from broker \d+ to shut down has been granted since the lowest active offset \d+ is now greater "
        r"than the broker's controlled shutdown offset \d+\.$", no_events),
    row("kraft.controller.new_incarnation", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "No",
        r"No previous registration found for broker \d+\. New incarnation ID is \S+\.  Generated \d+ record\(s\) to "
        r"clean up previous incarnations\. New broker epoch is \d+\.$", no_events),
    row("kraft.controller.re_incarnation", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "Registering",
        r"Registering a new incarnation of broker \d+\. Previous incarnation ID was \S+; new incarnation ID is \S+\. "
        r"Generated \d+ record\(s\) to clean up previous incarnations\. Broker epoch will become \d+\.$", no_events),
    # The same process registering again (its first request timed out, say): timing decides
    # whether a live run writes it.
    row("kraft.controller.amended_registration", f"{_CCM} registerBroker @3.9.0.. (4.3.1 real)", "3.9.0", None, "Amending",
        r"Amending registration of broker \d+, incarnation ID \S+\. Broker epoch remains \d+\.$", no_events),
    # Controller lifecycle and housekeeping.
    row("kraft.controller.created", f"{_QC} constructor @3.3.0..", "3.3.0", None, "Creating",
        r"Creating new QuorumController with clusterId \S+?(?:, authorizer .*?)?\.?(?P<zk> ZK migration mode is enabled\.)?"
        r"(?: Eligible leader replicas enabled\.)?$", zk_migration_state),
    row("kraft.controller.activation", "ActivationRecordsGenerator.java @3.6.0.. (WARN; the sentences it appends)", "3.6.0",
        None, "Performing", r"Performing controller activation\.(?: (?:" + "|".join(_ACTIVATION_SENTENCES) + r"))*$", no_events),
    row("kraft.controller.bootstrap_33", f"{_QC} generateActivationRecords @3.3.0..@3.5.2", "3.3.0", "3.5.2", "The",
        r"The metadata log appears to be empty\. Appending \d+ bootstrap record\(s\) at metadata\.version \S+ from .+\.$",
        no_events),
    row("kraft.controller.periodic_registering", f"{_PERIODIC} registerTask @4.0.0..", "4.0.0", None, "Registering",
        r"Registering periodic task \w+ to run every \d+ ms$", no_events),
    row("kraft.controller.periodic_activated", f"{_PERIODIC} activate @4.0.0..", "4.0.0", None, "Activated",
        r"Activated periodic tasks: .*$", no_events),
    row("kraft.controller.periodic_unregistering", f"{_PERIODIC} unregisterTask @4.0.0..", "4.0.0", None, "Unregistering",
        r"Unregistering periodic task \w+$", no_events),
    row("kraft.controller.periodic_deactivated", f"{_PERIODIC} deactivate @4.0.0..", "4.0.0", None, "Deactivated",
        r"Deactivated periodic tasks: .*$", no_events),
    # INFO for the VERBOSE tasks (electPreferred, the auto leader rebalance; electUnclean; ...), DEBUG for the others.
    row("kraft.controller.periodic_generated", f"{_PERIODIC} @4.0.0..", "4.0.0", None, "Periodic",
        r"Periodic task \w+ generated \d+ records in \d+ microseconds\.$", no_events),
    # A controller loading a snapshot of the metadata log (a restart, or a standby fallen behind):
    # its records are in the snapshot's dump.
    row("kraft.controller.snapshot_replay_30", f"{_QC} handleSnapshot @3.0.2..@3.4.1", "3.0.0", "3.4.1", "Starting",
        r"Starting to replay snapshot \(" + _SNAPSHOT_ID + r"\), from last commit offset \(-?\d+\) and epoch \(-?\d+\)$",
        no_events),
    row("kraft.controller.snapshot_replay_35", f"{_QC} handleLoadSnapshot @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Starting",
        r"Starting to replay snapshot " + _SNAPSHOT_FILE + r", from last commit offset -?\d+ and epoch -?\d+$", no_events),
    row("kraft.controller.snapshot_replayed_35", f"{_QC} handleLoadSnapshot @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Finished",
        r"Finished replaying snapshot " + _SNAPSHOT_FILE + "$", no_events),
    row("kraft.controller.snapshot_load", "OffsetControlManager.java beginLoadSnapshot @3.6.0..", "3.6.0", None, "Starting",
        r"Starting to load snapshot " + _SNAPSHOT_FILE + r"\. Previous lastCommittedOffset was -?\d+\. Previous "
        r"transactionStartOffset was -?\d+\.$", no_events),
    row("kraft.controller.snapshot_loaded", "OffsetControlManager.java endLoadSnapshot @3.6.0..", "3.6.0", None,
        "Successfully", r"Successfully loaded snapshot " + _SNAPSHOT_FILE + r"\.$", no_events),
    # 3.0-3.3's controller writing a snapshot itself (every metadata.log.max.record.bytes.between.snapshots);
    # from 3.4 the metadata loader's SnapshotGenerator does, under org.apache.kafka.image.
    row("kraft.controller.snapshot_generating", f"{_QC} maybeGenerateSnapshot @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Generating",
        r"Generating a snapshot that includes \(epoch=-?\d+, offset=-?\d+\) after \d+ committed bytes since the last "
        r"snapshot\.$", no_events),
    row("kraft.controller.snapshot_skipped", f"{_QC} SnapshotGeneratorManager @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Skipping",
        r"Skipping generation of snapshot for committed offset -?\d+ and epoch -?\d+ since it already exists$", no_events),
    row("kraft.controller.snapshot_generated", f"{_QC} SnapshotGeneratorManager @3.0.2..@3.3.2", "3.0.0", "3.3.2", "Finished",
        r"Finished generating snapshot -?\d+\.$", no_events),
    row("kraft.controller.snapshot_cancelled", f"{_QC} SnapshotGeneratorManager ERROR @3.0.2..@3.3.2", "3.0.0", "3.3.2",
        "Cancelling", r"Cancelling snapshot -?\d+$", no_events),
    row("kraft.controller.snapshot_failed", f"{_QC} SnapshotGeneratorManager ERROR @3.0.2..@3.3.2 (a stack trace follows)",
        "3.0.0", "3.3.2", "Error", r"Error while generating snapshot -?\d+$", no_events),
    row("kraft.controller.snapshot_section", "SnapshotGenerator.java generateBatch @3.0.2..@3.3.2", "3.0.0", "3.3.2",
        "Generating", r"Generating records for the \w+ section of snapshot " + _SNAPSHOT_ID + r"\.$", no_events),
    row("kraft.controller.snapshot_section_done", "SnapshotGenerator.java generateBatch @3.0.2..@3.3.2", "3.0.0", "3.3.2",
        "Generated", r"Generated \d+ record\(s\) for the \w+ section of snapshot " + _SNAPSHOT_ID + r"\.$", no_events),
    row("kraft.controller.slow_event", f"{_PERF} @4.0.0.. (ERROR)", "4.0.0", None, "Exceptionally",
        r"Exceptionally slow controller event \S+ took \d+ ms\.$", no_events),
    row("kraft.controller.performance", f"{_PERF} @4.0.0..", "4.0.0", None, "In",
        r"In the last \d+ ms period, \d+ controller events were completed, which took an average of [\d.]+ ms each\. "
        r"The slowest event was \S+, which took [\d.]+ ms\.$", no_events),
)

# EventHandlerExceptionInfo.failureMessage (3.6.0..): "<operation>: event failed with ...". The
# first word is the operation, so each operation is a row of its own (a failed operation
# changes nothing: its records, if any, were never committed). The events QuorumController
# names in 3.6.2-4.3.1 (sources jars): its periodic tasks, the requests it handles, and its
# activation ("completeActivation[<epoch>]", met failing on a real 3.7.2 controller that lost
# its election before anything was committed: "reverting to the last committed offset -1") and
# leader changes, whose names carry an epoch ("[%d]": catalog.keyword_of, _operation_regex), and
# the raft events named with their argument ("[baseOffset=%d]", "[snapshotId=%s]"): a controller
# shutting down with them queued rejects them ("event unable to start processing because of
# RejectedExecutionException"). Another operation's line is quarantined until it is added here.
_FAILED_OPERATIONS = ("writeNoOpRecord", "maybeFenceStaleBroker", "electUnclean", "electPreferred", "expireDelegationTokens",
                      "generatePeriodicPerformanceMessage", "processBrokerHeartbeat", "registerBroker", "alterPartition",
                      "assignReplicasToDirs", "completeActivation[%d]", "handleLeaderChange[%d]", "createDelegationToken",
                      "expireDelegationToken", "registerController", "renewDelegationToken", "setNewNextWriteOffset",
                      "waitForReadyBrokers", "handleCommit[baseOffset=%d]", "handleLoadSnapshot[snapshotId=%s]")
# QuorumController 2.8.2-3.5.2: the write and read events' names (appendWriteEvent / appendReadEvent)
# and its periodic ones.
_OPERATIONS_28 = ("allocateProducerIds", "alterClientQuotas", "alterPartition", "alterPartitionReassignments",
                  "alterUserScramCredentials", "createAcls", "createPartitions", "createTopics", "deleteAcls", "deleteTopics",
                  "describeConfigs", "electLeaders", "findAllTopicIds", "findTopicIds", "findTopicNames",
                  "getFinalizedFeatures", "incrementalAlterConfigs", "legacyAlterConfigs", "listPartitionReassignments",
                  "processBrokerHeartbeat", "registerBroker", "unregisterBroker", "updateFeatures", "maybeFenceReplicas",
                  "maybeBalancePartitionLeaders", "writeNoOpRecord", "generateSnapshot", "alterIsr",
                  # raft events named with an epoch: 3.0+ handleLeaderChange, 3.3+ completeActivation
                  # (met failing on a real 3.4.1 controller); with their argument, 3.0+
                  "handleLeaderChange[%d]", "completeActivation[%d]", "handleCommit[baseOffset=%d]",
                  "handleSnapshot[snapshotId=%s]")
# 2.8 only: handleClaim, handleCommits; 2.8-3.2: handleRenounce.
_RAFT_EVENTS_28 = ("handleClaim[%d]", "handleRenounce[%d]", "handleCommits[%d]")


def _failed_renouncing(m: re.Match, ctx: LineContext) -> list:
    """An operation that failed on the active controller (NotLeaderException: the Raft client lost
    the epoch; or any unexpected error) makes it renounce: the epoch it names was the prefix's
    controller's, and is over. A failure that renounces nothing changes nothing."""
    if m["renouncing"] is None or m["at"] is None or int(m["at"]) < 0 or ctx.prefix.broker is None:
        return []
    return [{"fact": "raft_epoch", "epoch": int(m["at"]), "leader": ctx.prefix.broker}]


def _operation_regex(op: str) -> str:
    """An operation's name as a regex: its "%d" (an epoch, an offset) matches any number, its
    "%s" a snapshot id."""
    return re.escape(op).replace("%d", r"\d+").replace("%s", _SNAPSHOT_ID)


def _operation_keyword(op: str) -> str:
    """The keyword its lines are dispatched under (catalog.keyword_of): the first word and its
    colon, or up to the "=" of an argument ("handleCommit[baseOffset=")."""
    return op[:op.index("=") + 1] if "=" in op else f"{op}:"


EVENT_FAILED_PATTERNS: tuple[MessagePattern, ...] = tuple(
    row(f"kraft.controller.event_failed.{op}", "EventHandlerExceptionInfo.java failureMessage @3.6.0..", "3.6.0", None,
        _operation_keyword(op), _operation_regex(op)
        + r": event (?:failed with|unable to start processing because of) \w+(?: \(treated as \w+\))?"
        r"(?: at epoch (?P<at>\d+))?(?: in \d+ microseconds)?(?:(?P<renouncing>\. Renouncing leadership and reverting to the "
        r"last committed offset -?\d+)|\. The controller is already in standby mode)?\.(?: Exception message: .*)?$",
        _failed_renouncing)
    for op in sorted(set(_FAILED_OPERATIONS + _OPERATIONS_28))) + tuple(
    # 2.8-3.5 QuorumController.handleEventException, each form one alternative (the row's range is
    # their hull): INFO "failed with E in N us" (3.5 adds ". Reason: m"); ERROR 3.2-3.5 "unable to
    # start processing because of E." (3.5 adds the reason); WARN "failed with unknown server
    # exception E ..." (2.8-3.2 "Reverting to last committed offset N", 3.3-3.5 "Renouncing
    # leadership ..." or "... already in standby mode"; a stack trace follows on the next lines).
    row(f"kraft.controller.event_exception_28.{op}", f"{_QC} handleEventException @2.8.2..@3.5.2", "2.8.0", "3.5.2",
        _operation_keyword(op), _operation_regex(op) + r": (?:failed with \w+ in \d+ us(?:\. Reason: .*)?"
        r"|unable to start processing because of \w+\.(?: Reason: .*)?"
        r"|failed with unknown server exception \w+ (?:at epoch (?P<at>-?\d+) in \d+ us\.  (?P<renouncing>Renouncing leadership "
        r"and reverting to the last committed offset|Reverting to last committed offset) -?\d+|in \d+ us\.  The controller "
        r"is already in standby mode)\.)$", _failed_renouncing)
    for op in _OPERATIONS_28 + _RAFT_EVENTS_28) + (
    row("kraft.controller.unable_to_start_28", f"{_QC} handleEventException @2.8.2..@3.1.2 (INFO)", "2.8.0", "3.1.2",
        "unable", r"unable to start processing \w+ because of \w+\.$", no_events),
    # 2.8.0-3.1.2 name the controller object, not the operation (`this`, Object.toString): the
    # line names no operation, and its epoch is the one the controller resigns (raftClient.resign).
    row("kraft.controller.event_exception_object", f"{_QC} handleEventException WARN @2.8.0..@3.1.2 (`this` for the name)",
        "2.8.0", "3.1.2", "org.apache.kafka.controller.QuorumController@%x:",
        r"org\.apache\.kafka\.controller\.QuorumController@[0-9a-f]+: failed with unknown server exception \w+ at epoch "
        r"(?P<at>-?\d+) in \d+ us\.  (?P<renouncing>Reverting) to last committed offset -?\d+\.$", _failed_renouncing),)


PATTERNS: tuple[MessagePattern, ...] = CONTROLLER_PATTERNS + REPLAY_COPY_PATTERNS + EVENT_FAILED_PATTERNS
