"""The ZooKeeper-to-KRaft migration (KIP-866, 3.4-3.9) as the KRaft controller logs it, as
catalogue rows: its KRaftMigrationDriver ("[KRaftMigrationDriver id=N] ",
org.apache.kafka.metadata.migration), the ZooKeeper client it writes /controller and the metadata
with (kafka.zk.KafkaZkClient, kafka.zk.migration.Zk*MigrationClient; 3.4-3.5 ZkMigrationClient),
and the QuorumController's writing of the migrated records.

Read in the kafka-metadata and kafka_2.13 sources jars of 3.4.1, 3.5.0, 3.5.2, 3.6.0, 3.6.2, 3.7.0,
3.7.2, 3.8.1, 3.9.0-3.9.2 (kafka_2.13 to 3.9.0), and checked on a real 3.9.2 cluster's migration
(every line of its KRaft controller understood). The migrated metadata is the dump's (the
migration's PARTITION_RECORDs, in a metadata transaction from 3.6): each line is understood and
carries no event, save the KRaft controller's registration in ZooKeeper (KRaftControllerRegistered).
A form met in x.y.2 but not in x.y.0 starts at x.y.1, one met in x.y.0 but not in x.y.2 ends at
x.y.1 (the release between was not read)."""
from __future__ import annotations

import re

from ingest.catalog import LineContext, MessagePattern, event, no_events, row
from ingest.kraft_controller import zk_migration_state
from ingest.kraft_records import TOPIC_RESOURCE, partition_record_fields
from state_machine.partition import UNCLEAN_CONFIG

_MD = "KRaftMigrationDriver.java"
_KZ = "KafkaZkClient.scala tryRegisterKRaftControllerAsActiveController"
_ZMC = "ZkMigrationClient.scala @3.4.1, kafka/zk/migration"
_QC = "QuorumController.java"
_FEATURES = "FeatureControlManager.java"
_MIGRATION_STATE = r"ZkMigrationLeadershipState\{.*?\}"
# 3.4's trace of each change of its ZkMigrationLeadershipState, by the operation's name.
_OPERATIONS_34 = {"Recovery": "Recovery", "KRaftLeaderEvent": r"KRaftLeaderEvent is (?:not )?active",
                  "BecomeZkLeaderEvent": "BecomeZkLeaderEvent", "Migrate": "Migrate metadata from Zk",
                  "Create": r"Create topic \S+",
                  "Updating": r"Updating (?:topic \S+|config resource .+?|client quota .+?|next producer ID)"}
# 3.5-3.9's applyMigrationOperation names (3.9 words them in the past tense and adds the time taken).
_OPERATIONS_35 = {"Became": r"Became (?:in)?active migration driver", "Claiming": "Claiming ZK controller leadership",
                  "Finished": "Finished initial migration of ZK metadata to KRaft",
                  "Recovering": "Recovering migration state from ZK", "Updating": r"Updating ZK migration state after \w+",
                  "Re-reading": "Re-reading migration state"}
_OPERATIONS_39 = {"Became": _OPERATIONS_35["Became"], "Claimed": "Claimed ZK controller leadership",
                  "Finished": _OPERATIONS_35["Finished"], "Recovered": "Recovered migration state from ZK",
                  "Updated": r"Updated (?:ZK migration state after \w+|migration state)"}
_MIGRATION_RESULT = (rf"(?:Transitioned migration state from {_MIGRATION_STATE} to {_MIGRATION_STATE}"
                     rf"|Kept migration state as {_MIGRATION_STATE})$")
_REGISTRATION_FAILED = r" while trying to register KRaft controller \d+ with ZK epoch \d+\. KRaft controller was not registered\.$"


def _migration_rows(rows) -> tuple[MessagePattern, ...]:
    """Rows (name, source, first, last, keyword, regex[, build]): no event unless a build is given."""
    return tuple(row(f"kraft.controller.migration.{name}", source, first, last, keyword, regex, build[0] if build else no_events)
                 for name, source, first, last, keyword, regex, *build in rows)


def _kraft_controller_registered(m: re.Match, ctx: LineContext) -> list:
    # The ZooKeeper brokers' controller from now on, at the ZooKeeper epoch it took (no prefix: KafkaZkClient).
    return [{"event_type": "KRaftControllerRegistered", "controller_id": int(m["c"]), "controller_epoch": int(m["e"]),
             "recording_broker": int(m["c"])}]


# ---------------------------------------------------------------- the migrated records, at TRACE
# The driver prints each record it copies from ZooKeeper in its toString form (3.6.0..: one TRACE
# line per record, RecordRedactor.toLoggableString; 3.4-3.5: the whole batch on the INFO line's
# TRACE twin, recordBatchToString). They are the migration's view of the partitions: what ZooKeeper
# held when the KRaft controller took over. The cluster is replayed in ZooKeeper mode, as its
# brokers saw it, so a partition's record is read as a copy of the partition's LeaderAndIsr (a
# LeaderAndIsrReceived: applied only when newer than what the replay knows, and naming the replicas
# of a partition no line created), a topic's config as a ConfigObserved, a TopicRecord as the
# topic's name. With the metadata-log dump in the input (a KRaft era) the dump's records are the
# events and these copies change nothing.
_UUID = r"[\w-]+"
_IDS = r"\[[\d, ]*\]"
_TOPIC_RECORD = rf"TopicRecord\(name='(?P<topic>[^']*)', topicId=(?P<tid>{_UUID})\)"
# PartitionRecord.json v0 (3.4-3.6); 3.7 adds `directories` and KIP-966's tagged ELR fields, whose
# camelCase name is `lastKnownELR` to 3.8 and `lastKnownElr` from 3.9.
_PARTITION_RECORD = (rf"PartitionRecord\(partitionId=(?P<p>\d+), topicId=(?P<tid>{_UUID}), replicas=(?P<replicas>{_IDS}), "
                     rf"isr=(?P<isr>{_IDS}), removingReplicas={_IDS}, addingReplicas={_IDS}, leader=(?P<leader>-?\d+), "
                     r"leaderRecoveryState=(?P<recovery>-?\d+), leaderEpoch=(?P<epoch>-?\d+), partitionEpoch=(?P<pepoch>-?\d+)")
_ELR_FIELDS = (r", directories=\[[^\]]*\], eligibleLeaderReplicas=(?P<elr>null|" + _IDS + r"), lastKnown{}=(?P<lkelr>null|"
               + _IDS + r")")
_CONFIG_RECORD = (r"ConfigRecord\(resourceType=(?P<rt>\d+), resourceName=(?:'(?P<rn>[^']*)'|null), name='(?P<name>[^']*)', "
                  r"value=(?:'(?P<value>.*)'|null)\)")
# The other records a migration copies (ZkMigrationClient, Zk*MigrationClient): nothing the replay reads.
_OTHER_RECORDS = ("ClientQuotaRecord", "UserScramCredentialRecord", "ProducerIdsRecord", "AccessControlEntryRecord",
                  "DelegationTokenRecord")


def _migrated_topic(m: re.Match, ctx: LineContext) -> list:
    return [{"fact": "topic_name", "topic_id": m["tid"], "topic": m["topic"]}]


def _migrated_partition(m: re.Match, ctx: LineContext) -> list:
    d = partition_record_fields(m)
    return [event("LeaderAndIsrReceived", topic_id=d["topicId"], partition=d["partitionId"], leader=d["leader"],
                  leader_epoch=d["leaderEpoch"], isr=d["isr"], replicas=d["replicas"], zk_version=d["partitionEpoch"])]


def _migrated_config(m: re.Match, ctx: LineContext) -> list:
    # Only the unclean-election switch matters; a broker resource ("" or an id) is broker-wide.
    if m["name"] != UNCLEAN_CONFIG or m["value"] is None:
        return []
    return [event("ConfigObserved", topic=m["rn"] if int(m["rt"]) == TOPIC_RESOURCE else None, config_name=m["name"],
                  config_value=m["value"])]


# 3.4-3.5: `[ApiMessageAndVersion(<record> at version N),ApiMessageAndVersion(...)]`; a ConfigRecord is
# printed without its value there (`ConfigRecord(resourceType=2, resourceName=t, name=k)`): no event.
_BATCH_ITEM = re.compile(r"ApiMessageAndVersion\((?P<record>\w+\(.*?\)) at version \d+\)(?=,ApiMessageAndVersion\(|\]$)")
_BATCH_RECORDS = ((re.compile(_TOPIC_RECORD + "$"), _migrated_topic), (re.compile(_PARTITION_RECORD + r"\)$"), _migrated_partition))


def _migrated_batch(m: re.Match, ctx: LineContext) -> list:
    out = []
    for item in _BATCH_ITEM.finditer(m["batch"]):
        for regex, build in _BATCH_RECORDS:
            found = regex.match(item["record"])
            if found is not None:
                out.extend(build(found, ctx))
    return out


_TRACE = f"{_MD} MigrateMetadataEvent TRACE (RecordRedactor.toLoggableString)"
TRACE_RECORD_ROWS = (
    ("trace.topic_record", f"{_TRACE} @3.6.0..", "3.6.0", "3.9.2", "TopicRecord(", _TOPIC_RECORD + "$", _migrated_topic),
    ("trace.partition_record", f"{_TRACE} @3.6.0..@3.6.2 (PartitionRecord v0)", "3.6.0", "3.6.2", "PartitionRecord(",
     _PARTITION_RECORD + r"\)$", _migrated_partition),
    ("trace.partition_record_elr_37", f"{_TRACE} @3.7.0..@3.8.1 (directories, lastKnownELR)", "3.7.0", "3.8.1",
     "PartitionRecord(", _PARTITION_RECORD + _ELR_FIELDS.format("ELR") + r"\)$", _migrated_partition),
    ("trace.partition_record_elr", f"{_TRACE} @3.9.0.. (lastKnownElr)", "3.9.0", "3.9.2", "PartitionRecord(",
     _PARTITION_RECORD + _ELR_FIELDS.format("Elr") + r"\)$", _migrated_partition),
    ("trace.config_record", f"{_TRACE} @3.6.0.. (a sensitive value '(redacted)')", "3.6.0", "3.9.2", "ConfigRecord(",
     _CONFIG_RECORD + "$", _migrated_config),
    *((f"trace.{name[0].lower() + name[1:]}", f"{_TRACE} @3.6.0..", "3.6.0", "3.9.2", f"{name}(", rf"{name}\(.*\)$")
      for name in _OTHER_RECORDS),
    ("migrating_batch_records", f"{_MD} MigrateMetadataEvent TRACE @3.4.1..@3.5.2 (recordBatchToString)", "3.4.0", "3.5.2",
     "Migrating", r"Migrating \d+ records from ZK: (?P<batch>\[.*\])$", _migrated_batch),
)


PATTERNS: tuple[MessagePattern, ...] = _migration_rows(TRACE_RECORD_ROWS) + _migration_rows((
    # The driver's state machine (MigrationDriverState) and its own life.
    ("transitioning", f"{_MD} transitionTo @3.4.1.. (TRACE; INFO @3.6.2.. when the state changes)", "3.4.0", "3.9.2", "%d",
     r"\d+ transitioning from [A-Z_]+ to [A-Z_]+ state$"),
    ("unknown_state", f"{_MD} isValidStateChange ERROR @3.4.1..", "3.4.0", "3.9.2", "Migration",
     r"Migration driver trying to transition from an unknown state [A-Z_]+$"),
    ("transition_error_34", f"{_MD} transitionTo ERROR @3.4.1", "3.4.0", "3.4.1", "Error",
     r"Error transition in migration driver from [A-Z_]+ to [A-Z_]+$"),
    ("exception_34", f"{_MD} handleException ERROR @3.4.1", "3.4.0", "3.4.1", "Had", r"Had an exception in \S.*$"),
    ("zk_error", f"{_MD} handleException @3.5.0..", "3.5.0", "3.9.2", "Encountered",
     r"Encountered ZooKeeper error during event .+\. Will retry\.$"),
    ("queue_closed", f"{_MD} handleException DEBUG @3.5.0..", "3.5.0", "3.9.2", "Not",
     r"Not processing .+ because the event queue is closed\.$"),
    ("shutting_down", f"{_MD} close DEBUG @3.4.1..", "3.4.0", "3.9.2", "Shutting", r"Shutting down KRaftMigrationDriver$"),
    ("stale_event", f"{_MD} checkDriverState @3.9.0..", "3.9.0", "3.9.2", "Current",
     r"Current leader epoch is .+, but event was created with epoch .+\. Not running this event .+\.$"),
    ("unexpected_state", f"{_MD} checkDriverState @3.5.2..", "3.5.1", "3.9.2", "Expected",
     r"Expected driver state [A-Z_]+ but found [A-Z_]+\. Not running this event .+\.$"),
    # Its ZkMigrationLeadershipState (the migration's place in the metadata log, the ZK controller epoch it holds).
    ("recovering_34", f"{_MD} recoverMigrationStateFromZK @3.4.1", "3.4.0", "3.4.1", "Recovering",
     r"Recovering migration state$"),
    ("recovered_34", f"{_MD} recoverMigrationStateFromZK @3.4.1", "3.4.0", "3.4.1", "Recovered",
     rf"Recovered migration state {_MIGRATION_STATE}\. ZK migration is \w+\.$"),
    *((f"operation_34.{keyword.lower()}", f"{_MD} apply TRACE @3.4.1", "3.4.0", "3.4.1", keyword,
       rf"{name} transitioned from {_MIGRATION_STATE} to {_MIGRATION_STATE}$") for keyword, name in _OPERATIONS_34.items()),
    *((f"operation_35.{keyword.lower()}", f"{_MD} applyMigrationOperation @3.5.0..@3.8.1 (Re-reading: @3.6.2..)", "3.5.0",
       "3.8.1", keyword, rf"{name}\. {_MIGRATION_RESULT}") for keyword, name in _OPERATIONS_35.items()),
    *((f"operation_39.{keyword.lower()}", f"{_MD} applyMigrationOperation @3.9.0..", "3.9.0", "3.9.2", keyword,
       rf"{name} in \d+ ns\. {_MIGRATION_RESULT}") for keyword, name in _OPERATIONS_39.items()),
    ("initial_migration", f"{_MD} RecoverMigrationStateFromZKEvent @3.5.0..", "3.5.0", "3.9.2", "Initial",
     r"Initial migration of ZK metadata is (?:not )?done\.$"),
    # FutureUtils.waitWithLogging (server-common @3.5.0, @3.6.0) around the driver's writes: 3.5.0-3.6.0
    # commit a "migration record batch", 3.6.2.. "N migration records"; the transaction from 3.6.0.
    *((f"waiting.{keyword.lower()}", f"FutureUtils.java waitWithLogging for {_MD} @3.5.0.. ({level})", "3.5.0", "3.9.2",
       keyword, rf"{words}the metadata layer to (?:begin the migration transaction|commit (?:migration record batch"
       rf"|\d+ migration records)|complete the migration)$")
      for keyword, level, words in (("Waiting", "INFO", "Waiting for "), ("Finished", "INFO", "Finished waiting for "),
                                    ("Timed", "ERROR", "Timed out while waiting for "),
                                    ("Received", "ERROR", "Received a fatal error while waiting for "))),
    # Waiting for the controllers and the ZooKeeper brokers.
    ("controllers_not_ready_35", f"{_MD} isControllerQuorumReadyForMigration @3.5.0..@3.5.2", "3.5.0", "3.5.2", "Still",
     r"Still waiting for all controller nodes ready to begin the migration\. due to:.*$"),
    ("controllers_not_ready", f"{_MD} isControllerQuorumReadyForMigration WARN @3.6.0..", "3.6.0", "3.9.2", "Still",
     r"Still waiting for all controller nodes ready to begin the migration\. Not ready due to:.*$"),
    ("quorum_ready_34", f"{_MD} WaitForControllerQuorumEvent DEBUG @3.4.1", "3.4.0", "3.4.1", "Controller",
     r"Controller Quorum is ready for Zk to KRaft migration$"),
    ("quorum_ready", f"{_MD} WaitForControllerQuorumEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Controller",
     r"Controller Quorum is ready for Zk to KRaft migration\. Now waiting for ZK brokers\.$"),
    ("waiting_initial_publish", f"{_MD} areZkBrokersReadyForMigration @3.4.1..", "3.4.0", "3.9.2", "Waiting",
     r"Waiting for initial metadata publish before checking if Zk brokers are registered\.$"),
    ("waiting_metadata", f"{_MD} WaitForControllerQuorumEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Waiting",
     r"Waiting until we have received metadata before proceeding with migration$"),
    ("no_brokers", f"{_MD} areZkBrokersReadyForMigration @3.5.0..", "3.5.0", "3.9.2", "No",
     r"No brokers are (?:known to KRaft|registered in ZK), waiting for brokers to register\.$"),
    ("waiting_brokers", f"{_MD} areZkBrokersReadyForMigration @3.4.1..", "3.4.0", "3.9.2", "Still",
     r"Still waiting for ZK brokers \[[\d, ]*\] to register with KRaft\.$"),
    ("waiting_assigned_brokers", f"{_MD} areZkBrokersReadyForMigration @3.5.0..", "3.5.0", "3.9.2", "Still",
     r"Still waiting for ZK brokers \[[\d, ]*\] found in metadata to register with KRaft\.$"),
    ("brokers_ready", f"{_MD} WaitForZkBrokersEvent @3.4.1.. (DEBUG to 3.5.2)", "3.4.0", "3.9.2", "Zk",
     r"Zk brokers are registered and ready for migration$"),
    ("migration_state_none", f"{_MD} WaitForControllerQuorumEvent ERROR @3.5.0..", "3.5.0", "3.9.2", "The",
     r"The controller's ZkMigrationState is NONE which means this cluster should not be migrated from ZooKeeper\. This "
     r"controller should not be configured with 'zookeeper\.metadata\.migration\.enable' set to true\. Will not proceed "
     r"with a migration\.$"),
    ("state_mismatch", f"{_MD} WaitForControllerQuorumEvent ERROR @3.5.0..", "3.5.0", "3.9.2", "KRaft",
     r"KRaft controller indicates (?:an active migration, but the ZK state does not|a completed migration, but the "
     r"migration driver is somehow active)\.$"),
    ("in_progress", f"{_MD} WaitForControllerQuorumEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Migration",
     r"Migration is in already progress, not waiting on ZK brokers\.$"),
    ("claim_retry", f"{_MD} BecomeZkControllerEvent @3.5.0.. (DEBUG to 3.5.2)", "3.5.0", "3.9.2", "Unable",
     r"Unable to claim leadership, will retry until we learn of a different KRaft leader$"),
    # Copying ZooKeeper's metadata into the metadata log.
    ("starting", f"{_MD} MigrateMetadataEvent @3.4.1..", "3.4.0", "3.9.2", "Starting", r"Starting ZK migration$"),
    ("migrating_batch", f"{_MD} MigrateMetadataEvent INFO @3.4.1..@3.6.0 (at TRACE to 3.5.2: migrating_batch_records)",
     "3.4.0", "3.6.1", "Migrating", r"Migrating \d+ records from ZK$"),
    ("completed_34", f"{_MD} MigrateMetadataEvent @3.4.1..@3.5.2", "3.4.0", "3.5.2", "Completed",
     r"Completed migration of metadata from Zookeeper to KRaft\. A total of \d+ metadata records were generated\. The "
     r"current metadata offset is now -?\d+ with an epoch of -?\d+\. Saw \d+ brokers in the migrated metadata \[[\d, ]*\]\.$"),
    ("completed", f"{_MD} MigrateMetadataEvent @3.6.0.. (a MigrationManifest)", "3.6.0", "3.9.2", "Completed",
     r"Completed migration of metadata from ZooKeeper to KRaft\. \d+ records were generated in \d+ ms across \d+ batches\. "
     r"The average time spent waiting on a batch was [\d.]+ ms\. The record types were \{.*\}\. The current metadata "
     r"offset is now -?\d+ with an epoch of -?\d+\. Saw \d+ brokers in the migrated metadata \[[\d, ]*\]\.$"),
    ("start_failed", f"{_MD} MigrateMetadataEvent ERROR @3.6.0..", "3.6.0", "3.9.2", "Could",
     r"Could not start the migration$"),
    ("aborting", f"{_MD} MigrateMetadataEvent ERROR @3.6.0.. (the fatal fault handler ends the controller)", "3.6.0",
     "3.9.2", "Aborting", r"Aborting the metadata migration from ZooKeeper to KRaft\. .*\.$"),
    # Dual write: KRaft's metadata written back to ZooKeeper and sent to the ZooKeeper brokers.
    ("full_sync", f"{_MD} SyncKRaftMetadataEvent @3.5.0..", "3.5.0", "3.9.2", "Performing",
     r"Performing a full metadata sync from KRaft to ZK\.$"),
    ("no_image_superset", f"{_MD} SyncKRaftMetadataEvent @3.6.2..", "3.6.1", "3.9.2", "Ignoring",
     r"Ignoring image .+ which does not contain a superset of the metadata in ZK\. Staying in SYNC_KRAFT_TO_ZK until a "
     r"newer image is loaded$"),
    ("zk_writes", f"{_MD} @3.5.0.. (DEBUG when handling a delta or snapshot)", "3.5.0", "3.9.2", "Made",
     r"Made the following ZK writes when (?:reconciling with KRaft state|handling KRaft (?:snapshot|delta)): \{.*\}$"),
    ("no_zk_writes", f"{_MD} MetadataChangeEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Did",
     r"Did not make any ZK writes when handling KRaft (?:snapshot|delta)$"),
    ("no_zk_writes_sync", f"{_MD} SyncKRaftMetadataEvent @3.9.0..", "3.9.0", "3.9.2", "Did",
     r"Did not make any ZK writes when reconciling with KRaft state\.$"),
    ("rpcs_before_dual_write", f"{_MD} SendRPCsToBrokersEvent @3.4.1.. (TRACE to 3.5.2)", "3.4.0", "3.9.2", "Sending",
     r"Sending RPCs to broker before moving to dual-write mode using at offset and epoch .+$"),
    ("rpcs_not_sent", f"{_MD} SendRPCsToBrokersEvent @3.6.0..", "3.6.0", "3.9.2", "Not",
     r"Not sending metadata RPCs with current metadata image since does not contain the offset that was last written to "
     r"ZK during the migration\. Image offset .+ is less than migration leadership state offset .+$"),
    ("old_image_34", f"{_MD} SendRPCsToBrokersEvent TRACE @3.4.1..@3.5.2", "3.4.0", "3.5.2", "Ignoring",
     r"Ignoring using metadata image since migration leadership state is at a greater offset and epoch .+$"),
    ("rpcs_for_metadata", f"{_MD} MetadataChangeEvent TRACE @3.4.1..@3.6.0", "3.4.0", "3.6.1", "Sending",
     r"Sending RPCs to brokers for metadata .+\.$"),
    ("rpcs_full_or_delta", f"{_MD} MetadataChangeEvent @3.6.2.. (DEBUG, TRACE)", "3.6.1", "3.9.2", "Sending",
     r"Sending (?:full metadata RPCs to brokers for snapshot|incremental metadata RPCs to brokers for delta)\.$"),
    ("rpcs_unchanged", f"{_MD} MetadataChangeEvent TRACE @3.5.0..", "3.5.0", "3.9.2", "Not",
     r"Not sending RPCs to brokers for metadata .+ since no relevant metadata has changed$"),
    ("not_dual_write", f"{_MD} MetadataChangeEvent TRACE @3.4.1..@3.8.1", "3.4.0", "3.8.1", "Received",
     r"Received metadata .+, but the controller is not in dual-write mode\. Ignoring the change to be replicated to "
     r"Zookeeper$"),
    ("metadata_ignored_39", f"{_MD} MetadataChangeEvent TRACE @3.9.0..", "3.9.0", "3.9.2", "Received",
     r"Received metadata .+?(?:, but the controller is not in dual-write mode\.| with .+, but the current leader and epoch "
     r"is .+\.)Ignoring this metadata update\.$"),
    ("empty_image", f"{_MD} MetadataChangeEvent DEBUG @3.6.0..", "3.6.0", "3.9.2", "Encountered",
     r"Encountered an empty MetadataImage while waiting for the first image to be published\. Ignoring this image since "
     r"it either does not include bootstrap records or it is a valid image for an older unsupported metadata version\.$"),
    ("unfinished", f"{_MD} MetadataChangeEvent @3.6.2..", "3.6.1", "3.9.2", "Ignoring",
     r"Ignoring \w+ .+ since the migration has not finished\.$"),
    ("already_written", f"{_MD} MetadataChangeEvent @3.4.1..", "3.4.0", "3.9.2", "Ignoring",
     r"Ignoring \w+ .+ which contains metadata that has already been written to ZK\.$"),
    # The controller writing the migrated records (QuorumController's MigrationRecordConsumer; its
    # ZkMigrationStateRecord's replay), 3.6-3.9 (3.5: kraft.controller.zk_migration_35 rows).
    ("pre_migration_write", f"{_QC} ControllerWriteEvent @3.5.0..@3.9.0 (a real 3.9.2 capture)", "3.5.0", "3.9.2",
     "Cannot", r"Cannot run write operation \S+ in pre-migration mode\. Returning NOT_CONTROLLER\.$"),
    ("transaction_begin", f"{_QC} beginMigration @3.6.0..", "3.6.0", "3.9.2", "Starting",
     r"Starting migration of ZooKeeper metadata to KRaft\.$"),
    ("no_transaction", f"{_QC} beginMigration WARN @3.6.0.. (metadata.version below 3.6-IV1)", "3.6.0", "3.9.2", "Starting",
     r"Starting ZK Migration without metadata transactions enabled\. This is not safe since a controller failover or "
     r"processing error may lead to partially migrated metadata\.$"),
    ("transaction_complete", f"{_QC} completeMigration @3.6.0..", "3.6.0", "3.9.2", "Completing",
     r"Completing migration of ZooKeeper metadata to KRaft\.$"),
    ("state_replayed", f"{_FEATURES} replay(ZkMigrationStateRecord) @3.6.0.. (DEBUG when unchanged)", "3.6.0", "3.9.2",
     "Replayed", r"Replayed a ZkMigrationStateRecord (?:changing the migration state from \w+ to (?P<to>\w+)|which did not "
     r"alter the state from \w+)\.$", zk_migration_state),
    # The KRaft controller taking /controller in ZooKeeper (the ZooKeeper brokers' controller epoch
    # moves to the "ZK epoch" named; the LeaderAndIsr requests it then sends carry it).
    ("zk.registering", f"{_KZ} @3.4.1..", "3.4.0", "3.9.2", "KRaft",
     r"KRaft controller \d+ (?:overwriting /controller to become the active controller with ZK epoch \d+\. The previous "
     r"controller was -?\d+|creating /controller to become the active controller with ZK epoch \d+\. There was no active "
     r"controller)\.$"),
    ("zk.registered", f"{_KZ} @3.4.1..", "3.4.0", "3.9.2", "Successfully",
     r"Successfully registered KRaft controller (?P<c>\d+) with ZK epoch (?P<e>\d+)$", _kraft_controller_registered),
    ("zk.not_registered", f"{_KZ} @3.4.1.. (a ZooKeeper controller, or another KRaft one, came first)", "3.4.0", "3.9.2",
     "The", r"(?:The ZK controller epoch changed|The ephemeral node at /controller (?:went away|was created by another "
     r"controller))" + _REGISTRATION_FAILED),
    ("zk.error", f"{_KZ} ERROR @3.4.1..", "3.4.0", "3.9.2", "ZooKeeper", r"ZooKeeper had an error" + _REGISTRATION_FAILED),
    ("zk.updates", "KafkaZkClient.scala retryMigrationRequestsUntilConnected TRACE @3.4.1..", "3.4.0", "3.9.2", "Performing",
     rf"Performing \d+ migration update\(s\) with migrationState={_MIGRATION_STATE}$"),
    ("zk.no_partition_state", f"{_ZMC}/ZkTopicMigrationClient.scala @3.6.2.. (WARN)", "3.4.0", "3.9.2", "Could",
     r"Could not find partition state in ZK for \S+-\d+\. Initializing this partition with ISR=\{[\d,]*\} and "
     r"leaderEpoch=0\.$"),
    ("zk.pending_deletions", "kafka/zk/migration/ZkTopicMigrationClient.scala @3.6.2.. (WARN)", "3.6.0", "3.9.2", "Found",
     r"Found \d+ pending topic deletions\. These will be not migrated to KRaft\. After the migration, the brokers will "
     r"reconcile their logs with these pending topic deletions\.$"),
    ("zk.pending_deleted_topic", "kafka/zk/migration/ZkTopicMigrationClient.scala @3.6.2..", "3.6.0", "3.9.2", "Not",
     r"Not migrating pending deleted topic: \S+$"),
    ("zk.unknown_quota_entity", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (ERROR)", "3.4.0", "3.9.2", "Skipping",
     r"Skipping unknown client quota entity .+$"),
    ("zk.recursive_create", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (DEBUG)", "3.4.0", "3.9.2", "Recursively",
     r"Recursively creating ZNode \S+ and attempting to write .+ (?:configs|quotas) a second time\.$"),
    ("zk.config_not_updated", f"{_ZMC}/ZkConfigMigrationClient.scala @3.5.2.. (DEBUG @3.4.1, ERROR later)", "3.4.0",
     "3.9.2", "Not", r"Not updating ZK for .+ since it is not a Broker or Topic entity\.$"),
    ("zk.not_deleted", "kafka/zk/migration/ZkConfigMigrationClient.scala @3.5.2.., ZkDelegationTokenMigrationClient.scala "
     "@3.6.2.. (ERROR)", "3.5.0", "3.9.2", "Did", r"Did not delete .+ since the node did not exist\.$"),
))
