"""The canonical event: what every input (generated history, parsed ZooKeeper-mode logs,
KRaft metadata dumps) is turned into before the replay.

One record per event. `EVENT_FIELDS` is the single definition; the Spark StructType
(`event_struct()`), the JSON Schema (`event_json_schema()`) and the core's `Event` tuple
(state_machine.events) are all derived from it. `EVENT_TYPES` documents every event
type: whether it is a *controller input* (something the controller reacted to), a
*recorded decision* (something a controller logged that it decided), or a *KRaft
record*, which partition(s) it concerns, and which fields it uses."""
from __future__ import annotations

from typing import NamedTuple

from schemas.types import Field, json_schema, struct_type

EVENT_FIELDS: tuple[Field, ...] = (
    Field("cluster", "string", False, "Cluster name (or KRaft cluster id)."),
    Field("seq", "long", False, "Recorded order of the event within its cluster; the replay applies events in seq order."),
    Field("event_time_ms", "long", True, "When it was recorded, epoch milliseconds UTC (log timestamps are zoneless; the ingest decides the zone)."),
    Field("event_type", "string", False, "One of EVENT_TYPES."),
    Field("topic", "string", True, "Topic; null for broker- and cluster-level events."),
    Field("partition", "int", True, "Partition; null for broker-, cluster- and topic-level events."),
    Field("source_file", "string", True, "Provenance: the file the record came from."),
    Field("source_line", "long", True, "Provenance: 1-based line in source_file."),
    Field("source_offset", "long", True, "Provenance: metadata-log offset (KRaft)."),
    Field("recording_broker", "int", True, "The broker whose log holds the record."),
    Field("controller_id", "int", True, "The controller that made the decision (or that failed over)."),
    Field("controller_epoch", "int", True, "Controller epoch of the decision, where known (KRaft: the Raft leader epoch)."),
    Field("brokers", "array<int>", True, "Broker ids of a broker-level event (started, failed, shutting down, live at failover)."),
    Field("replica", "int", True, "The replica (broker id) of a replica state change."),
    Field("from_state", "string", True, "Previous partition/replica state as recorded (null where the log omits it)."),
    Field("to_state", "string", True, "Target partition/replica state."),
    Field("leader", "int", True, "Leader broker id; -1 = no leader; -2 = unchanged (KRaft PartitionChangeRecord)."),
    Field("leader_epoch", "int", True, "Leader epoch."),
    Field("isr", "array<int>", True, "In-sync replicas, in recorded order."),
    Field("replicas", "array<int>", True, "Assigned replicas (AR) in order; for a reassignment, the target replicas."),
    Field("zk_version", "int", True, "zkVersion of the leader/ISR znode (partitionEpoch from 3.3 and in KRaft)."),
    Field("leader_recovery_state", "string", True, "RECOVERED or RECOVERING (3.2+ and KRaft)."),
    Field("election_type", "string", True, "PREFERRED or UNCLEAN for an election request; a hint of the election kind on a decision."),
    Field("config_name", "string", True, "Config key of a ConfigChange or ConfigObserved (e.g. unclean.leader.election.enable)."),
    Field("config_value", "string", True, "Config value of a ConfigChange or ConfigObserved; null = no topic override (removed, or none in effect)."),
    Field("detail", "string", True, "Free text kept from the record (e.g. the exception of a rejected state change)."),
    Field("elr", "array<int>", True, "KRaft eligible leader replicas (KIP-966, where the cluster enables them); null = not "
          "carried (on a PartitionChangeRecord: unchanged)."),
    Field("last_known_elr", "array<int>", True, "KRaft lastKnownElr (KIP-966): the last leader, kept while the partition has "
          "none, whom the controller elects once the ISR and the ELR are both empty (from 4.1 only if it is alive); null = "
          "not carried (on a PartitionChangeRecord: unchanged)."),
    Field("target_replicas", "array<int>", True, "The target replicas (RAR) of a reassignment in flight, as "
          "PartitionStateCarried carries it; null = none."),
    Field("adding_replicas", "array<int>", True, "KRaft addingReplicas of a PartitionRecord / PartitionChangeRecord: the "
          "replicas a reassignment in flight adds; null = not carried (on a PartitionChangeRecord: unchanged)."),
    Field("removing_replicas", "array<int>", True, "KRaft removingReplicas of a PartitionRecord / PartitionChangeRecord: "
          "the replicas a reassignment in flight removes (the target is replicas less these); null = not carried (on a "
          "PartitionChangeRecord: unchanged)."),
    Field("log_end_offset", "long", True, "The recording broker's log end offset of the partition, as its line printed it: "
          "a new leader's `starts at leader epoch E from offset O` (its log end as it became leader), a follower's (2.6+ "
          "`Follower t-0 starts at ... from offset O`), a loaded log's `log end offset N`, a leader's ISR shrink "
          "(`endOffset: N`), or a truncation with no effect (`the largest offset in the log is M`: M + 1)."),
    Field("high_watermark", "long", True, "The high watermark the recording broker printed with it (2.2+ ISR shrinks, "
          "2.4+ leaders and loaded logs, 2.6+ followers)."),
    Field("truncation_offset", "long", True, "The offset the recording broker truncated its log of the partition to "
          "(LogTruncation): its records from there on are gone."),
)

EVENT_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in EVENT_FIELDS)


class EventTypeDoc(NamedTuple):
    name: str
    kind: str        # "input" | "observation" | "decision" | "carried" | "kraft"
    scope: str       # "partition" | "topic" | "broker" | "cluster"
    fields: tuple[str, ...]
    doc: str


EVENT_TYPES: tuple[EventTypeDoc, ...] = (
    # Controller inputs
    EventTypeDoc("TopicCreation", "input", "partition", ("replicas",),
                 "A topic's partition was created with the given assignment (/brokers/topics znode written); the controller runs onNewPartitionCreation."),
    EventTypeDoc("PartitionCreation", "input", "partition", ("replicas",),
                 "A partition was added to an existing topic; same controller path as TopicCreation."),
    EventTypeDoc("BrokerStartup", "input", "broker", ("brokers",),
                 "Brokers joined /brokers/ids (KRaft: unfenced); the controller runs onBrokerStartup."),
    EventTypeDoc("BrokerFailure", "input", "broker", ("brokers",),
                 "Brokers left /brokers/ids (KRaft: fenced or unregistered); the controller runs onBrokerFailure."),
    EventTypeDoc("ControlledShutdown", "input", "broker", ("brokers",),
                 "A broker asked the controller for a controlled shutdown (KRaft: inControlledShutdown)."),
    EventTypeDoc("ControllerFailover", "input", "cluster", ("controller_id", "controller_epoch"),
                 "A broker became controller with the given epoch (KRaft: a new Raft leader); `brokers`, if set, are the live brokers it found."),
    EventTypeDoc("ReassignmentStart", "input", "partition", ("replicas",),
                 "A reassignment of the partition to the target replicas (RAR) was requested."),
    EventTypeDoc("ReassignmentCaughtUp", "input", "partition", (),
                 "The controller found every target replica of the reassignment in flight in the ISR and completes it "
                 "(2.4+ 'Target replicas [..] have all caught up with the leader for reassigning partition t-0', "
                 "`replicas` the target; 0.8-2.3 'N/N replicas have caught up with the leader for partition t-0 being "
                 "reassigned. Resuming partition reassignment', `replicas` null). At INFO the leader's own line that shows "
                 "the ISR grown can come after the completion's election: this one comes before."),
    EventTypeDoc("ReplicaLeaderElection", "input", "partition", ("election_type",),
                 "A preferred (or, from 2.4, unclean) leader election was requested for the partition (admin or auto-rebalance)."),
    EventTypeDoc("TopicDeletion", "input", "topic", (),
                 "Deletion of the topic was requested (/admin/delete_topics); partition may be null (all partitions of the topic)."),
    EventTypeDoc("IsrChange", "input", "partition", ("leader", "isr"),
                 "The partition leader shrank or expanded the ISR itself, a write that committed; leader epoch unchanged "
                 "(leader_epoch, where the record has it, is checked against the replay's). From logs: server.log 'ISR updated to "
                 "[..] and zkVersion updated to [..]' (2.7+ AlterIsr/AlterPartition '... and version updated to ...'), with "
                 "zk_version; the 'Shrinking/Expanding ISR' line before it is an IsrChangeProposed."),
    EventTypeDoc("IsrChangeProposed", "input", "partition", ("leader", "isr"),
                 "The leader's proposal, logged before its write (server.log 'Shrinking ISR from A to B', 'Expanding ISR from A "
                 "to B'); the write may fail. Before 2.4 (era isr_write_logged false) it is the write's only INFO record: the "
                 "replay holds it until the partition's next event and applies it then as an IsrChange, unless that event is "
                 "the same leader's IsrUpdateFailed. From 2.4 every committed write logs its own line (an IsrChange): the "
                 "proposal changes nothing."),
    EventTypeDoc("ConfigChange", "input", "topic", ("config_name",),
                 "A config change; topic null = broker-wide default. The replay reads unclean.leader.election.enable."),
    # Observations: what a broker reported in effect; nothing changed, the controller did not react
    EventTypeDoc("IsrUpdateFailed", "observation", "partition", ("leader",),
                 "The leader's ISR write just before it did not commit (server.log 'Cached zkVersion [N] not equal to that in "
                 "zookeeper, skip updating ISR' to 2.7; 2.7+ 'Failed to update ISR to ...', the controller rejecting the "
                 "AlterIsr/AlterPartition): `leader` is the broker whose write failed, `detail` the line's reason. Drops the "
                 "IsrChangeProposed the replay holds for that leader."),
    EventTypeDoc("ConfigObserved", "observation", "topic", ("config_name",),
                 "A config value a broker reported in effect: its startup 'KafkaConfig values:' dump (0.8: 'Property k is "
                 "overridden to v') (topic null = broker-wide default), or 'Created log for partition ... with properties {...}' (the topic's config; from 3.0 only its overrides, "
                 "so an absent key is config_value null). The replay learns unclean.leader.election.enable; unlike a ConfigChange it "
                 "starts no election. The audit also puts one ahead of a night's events for each unclean setting earlier "
                 "audits recorded last (`audit_runs.config_changes`; detail 'carried')."),
    EventTypeDoc("LogTruncation", "observation", "partition", ("truncation_offset",),
                 "The recording broker truncated its log of the partition to `truncation_offset`, as a follower does when "
                 "it (re)joins a leader (Log.truncateTo, server.log: 0.8.1-0.11 'Truncating log t-0 to offset N.', 1.0+ "
                 "'[Log partition=t-0, dir=D] Truncating to offset N', 3.1+ '[UnifiedLog ...]'); a truncation with no effect "
                 "('Truncating to N has no effect as the largest offset in the log is M') carries `log_end_offset` M + 1. "
                 "Changes nothing the replay decides: read for the records an unclean election put at risk "
                 "(state_machine.records_at_risk)."),
    EventTypeDoc("LogEndOffsetObserved", "observation", "partition", ("log_end_offset",),
                 "The recording broker's log end offset of the partition (and its high watermark, where printed): a log "
                 "loaded as the broker starts ('Completed load of log ... log end offset N', 0.8-2.7), a follower starting "
                 "('Follower t-0 starts at leader epoch E from offset O with high watermark H', 2.6-3.2; 3.3+ is a "
                 "LeaderAndIsrReceived carrying them). Changes nothing the replay decides: read for the records an unclean "
                 "election put at risk."),
    EventTypeDoc("KRaftControllerRegistered", "observation", "cluster", ("controller_id", "controller_epoch"),
                 "A ZooKeeper-to-KRaft migration's KRaft controller took /controller with the given ZooKeeper controller epoch "
                 "(KafkaZkClient 'Successfully registered KRaft controller N with ZK epoch E', 3.4-3.9): from then on it is the "
                 "ZooKeeper brokers' controller, and a decision under a lower epoch is a zombie's. Raises the epoch the replay has "
                 "seen, and nothing else: the KRaft controller runs no ZooKeeper failover (ZooKeeper eras only)."),
    # Recorded decisions
    EventTypeDoc("PartitionStateChange", "decision", "partition", ("to_state",),
                 "The controller logged a partition state change; leader/leader_epoch/isr set where the line carries the LeaderAndIsr."),
    EventTypeDoc("ReplicaStateChange", "decision", "partition", ("replica", "to_state"),
                 "The controller logged a replica state change."),
    EventTypeDoc("LeaderAndIsr", "decision", "partition", ("leader", "leader_epoch", "isr"),
                 "A leader/ISR value a controller wrote or sent (LeaderAndIsr request, UpdateMetadata, znode), or a broker applied; "
                 "`replica`, when set, is the replica this write removed from the ISR (it claims that replica's OfflineReplica step)."),
    EventTypeDoc("LeaderAndIsrReceived", "decision", "partition", ("leader", "leader_epoch"),
                 "A broker's record of a leader/ISR the controller sent it (broker-side state-change lines: 'Received LeaderAndIsr request', "
                 "'Cached leader info', 'Leader t-0 starts at leader epoch'; 0.11-2.5 server.log 't-0 starts at Leader Epoch', "
                 "from 2.4.1 't-0 starts at leader epoch ... with high watermark'). "
                 "Applied as the controller's decision only when it is newer than "
                 "what the replay knows; an older or equal one is a broker catching up, not a regression."),
    EventTypeDoc("StateChangeFailed", "decision", "partition", ("to_state",),
                 "The controller rejected a state change (replica set => replica change); detail holds the reason, e.g. IllegalStateException."),
    EventTypeDoc("UncleanElectionLogged", "decision", "partition", ("leader",),
                 "The controller logged an unclean election ('There's potential data loss', KRaft 'UNCLEAN partition change')."),
    # Carried state: where an earlier audit of the cluster left a partition (jobs.earlier.carried_state)
    EventTypeDoc("PartitionStateCarried", "carried", "partition", ("to_state", "leader", "leader_epoch", "isr", "replicas"),
                 "The partition's state at the start of this input, as an earlier audit of the cluster left it (its "
                 "partition_timeline row open then: to_state is the partition state, controller_epoch the writer's, detail "
                 "whether that audit inferred the row and which of its values no record showed, 'inferred:isr,leader_epoch' "
                 "or 'recorded:isr' (null: a recorded row with none; 'inferred' alone: every value); a reassignment in flight: target_replicas; KRaft: elr, "
                 "last_known_elr and leader_recovery_state too). The audit "
                 "adds it ahead of the partition's events, so that a night's replay goes on from the night before; an events "
                 "file may hold it too (a known starting state). Not a decision: nothing is checked and no row is written "
                 "for it; later events are checked against it."),
    EventTypeDoc("ControllerEpochCarried", "carried", "cluster", ("controller_epoch",),
                 "The highest controller epoch an earlier audit of the cluster saw before this input (the highest "
                 "controller_epoch of its partition_timeline rows and of the controller changes its runs recorded, "
                 "`audit_runs.controller_changes`), and `controller_id`, the controller of that epoch where a change named it: "
                 "a decision under a lower epoch is a zombie controller's. Raises the epoch the replay has seen, and nothing "
                 "else."),
    EventTypeDoc("LivenessCarried", "carried", "cluster", ("brokers", "to_state"),
                 "Which brokers were alive (to_state 'alive') or dead ('dead') at the start of this input, as the broker "
                 "changes earlier audits of the cluster recorded (`audit_runs.broker_changes`) left them; detail 'complete' "
                 "on the alive ones when a controller's list of every live broker came before (ControllerFailover with "
                 "brokers). Sets the replay's liveness, and nothing else: no election, no check."),
    EventTypeDoc("ReplicaStateCarried", "carried", "partition", ("replica", "to_state"),
                 "A replica's state at the start of this input, as an earlier audit left it (its last replica_timeline row "
                 "then). Like PartitionStateCarried: the replay starts from it, checks nothing and writes no row for it."),
    # KRaft metadata records
    EventTypeDoc("PartitionRecord", "kraft", "partition", ("replicas", "isr", "leader", "leader_epoch"),
                 "KRaft PARTITION_RECORD: the full partition registration (creation, or re-emission)."),
    EventTypeDoc("PartitionChangeRecord", "kraft", "partition", (),
                 "KRaft PARTITION_CHANGE_RECORD: null fields are unchanged; leader -2 (or null) = unchanged, -1 = no leader."),
    EventTypeDoc("RemoveTopicRecord", "kraft", "topic", (),
                 "KRaft REMOVE_TOPIC_RECORD: the topic and its partitions are gone."),
    EventTypeDoc("ClearElrRecord", "kraft", "topic", (),
                 "KRaft CLEAR_ELR_RECORD (4.0+, KIP-966; the controller writes it with a min.insync.replicas ConfigRecord): every "
                 "partition of the topic (topic null: of every topic) with an ELR or a last known ELR loses both."),
)

EVENT_TYPE_NAMES: frozenset[str] = frozenset(t.name for t in EVENT_TYPES)
# Topic-scoped types whose topic may be null: then they concern the whole cluster (a broker-wide default).
CLUSTER_WIDE_WITHOUT_TOPIC: frozenset[str] = frozenset({"ConfigChange", "ConfigObserved", "ClearElrRecord"})
EVENT_TYPE_BY_NAME = {t.name: t for t in EVENT_TYPES}
# String fields that hold one of a few names (event types, state names, enum values): the
# audit's grouped map receives them as codes into the values a run holds (jobs.audit.ReplayInput).
FEW_VALUED_FIELDS: tuple[str, ...] = ("event_type", "from_state", "to_state", "leader_recovery_state", "election_type")


def event_struct():
    """The Spark StructType of the canonical event (imports pyspark)."""
    return struct_type(EVENT_FIELDS)


def event_json_schema() -> dict:
    schema = json_schema("controller-replay canonical event", EVENT_FIELDS)
    schema["properties"]["event_type"]["enum"] = sorted(EVENT_TYPE_NAMES)
    return schema
