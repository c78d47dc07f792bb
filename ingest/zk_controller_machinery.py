"""ZooKeeper-mode controller.log (logger `kafka.controller`), 0.8.0 through 3.9: the controller's
lines on its own workings, as catalogue rows that carry no event. Its request-send and event
threads, its state machines, the requests it batches, the AlterPartition requests and StopReplica
responses it handles, feature versioning and producer-id blocks, and what it could not do or
turned away: the decisions these lead to are in state-change.log (ingest.zk_state_change), the
controller's inputs are `ingest.zk_controller`'s rows. Prefixes that `ingest.prefix` does not know
(`[RequestSendThread controllerId=N] `, the 0.8-1.0 threads' names) are matched inside the body,
so their keyword starts with `[`."""
from __future__ import annotations

from ingest.catalog import MessagePattern, row
from ingest.zk_controller import KC

PATTERNS: tuple[MessagePattern, ...] = (
    # Controller threads and state machines in controller.log (their decisions are in state-change.log)
    row("ctl.thread.request", "ControllerChannelManager.scala RequestSendThread @1.1..@3.9 (logIdent unknown to prefix.py)",
        "1.1.0", None, "[requestsendthread",
        r"\[RequestSendThread controllerId=\d+\] (?:Starting|Stopped|Shutting down|Shutdown completed"
        r"|Controller \d+ connected to .* for sending state change requests)$"),
    # 0.8-1.0: the thread's log ident is its name ("[%s], " to 0.10, "[%s]: " from 0.11; 1.0 may
    # put a thread-name prefix before it).
    row("ctl.thread.request.0_8", "ControllerChannelManager.scala RequestSendThread, ShutdownableThread logIdent "
        "@0.8.0..@1.0.2", "0.8.0", "1.0.2", "[send-thread]",
        r"\[(?:\S+:)?Controller-\d+-to-broker-\d+-send-thread\][:,] (?:Starting|Stopped|Shutting down|Shutdown completed"
        r"|Controller \d+ connected to .* for sending state change requests|Controller \d+'s connection to broker .* was "
        r"unsuccessful|Controller \d+ epoch \d+ fails to send request .* to broker .*\. Reconnecting to broker\."
        r"|Controller \d+ fails to send a request to broker .*) ?$"),
    row("ctl.thread.events", "ControllerEventManager.scala ControllerEventThread @1.1..@3.9", "1.1.0", None,
        "[controllereventthread",
        r"\[ControllerEventThread controllerId=\d+\] (?:Starting|Stopped|Shutting down|Shutdown completed)$"),
    row("ctl.thread.request.unreachable", "ControllerChannelManager.scala RequestSendThread.brokerReady @1.1..@3.9 (WARN)",
        "1.1.0", None, "[requestsendthread",
        r"\[RequestSendThread controllerId=\d+\] Controller \d+'s connection to broker \S+ \(id: \d+ rack: \S+\) "
        r"was unsuccessful$"),
    # The request is retried; what it carried is in state-change.log (the controller's lines).
    row("ctl.thread.request.send_failed", "ControllerChannelManager.scala RequestSendThread.doWork @1.1..@3.9 (WARN, stack trace glued)",
        "1.1.0", None, "[requestsendthread",
        r"\[RequestSendThread controllerId=\d+\] Controller \d+ epoch \d+ fails to send request .* to broker \S+ "
        r"\(id: \d+ rack: \S+\)\. Reconnecting to broker(?: \d+)?\.$"),
    # Any failure of one send (the thread interrupted as its broker goes, a bad response): the
    # connection is closed and the request retried; seen in a 3.9.2 capture (InterruptedException).
    row("ctl.thread.request.error", "ControllerChannelManager.scala RequestSendThread.doWork @1.1..@3.9 (ERROR, stack trace glued)",
        "1.1.0", None, "[requestsendthread",
        r"\[RequestSendThread controllerId=\d+\] Controller \d+ fails to send a request to broker \S+ "
        r"\(id: \d+ rack: \S+\)$"),
    row("ctl.thread.request.shutdown", "ShutdownableThread awaitShutdown (kafka.utils @1.1.1..@3.4.1, server-common "
        "after), RequestSendThread's logIdent @1.1..@3.9 (TRACE; seen in a real 2.8.2 capture)", "1.1.0", None,
        "[requestsendthread",
        r"\[RequestSendThread controllerId=\d+\] shutdownInitiated latch count reached zero\. Shutdown called\.$"),
    # The pre-1.1 controller's DEBUG lines (kafka.controller logs at TRACE in the stock config, so
    # every 0.8-1.0 controller.log has them; a real 1.0.2 capture showed them unread). What they
    # say, the state-change.log lines of the same decisions say too.
    row("ctl.old.leader_cache", "PartitionStateMachine.scala electLeaderForPartition @0.8.0..@1.0.2 (DEBUG; `for t-0` "
        "from 0.11.0)", "0.8.0", "1.0.2", "after", r"After leader election, leader cache (?:for \S+ )?is updated to .*$"),
    row("ctl.old.initializing", "PartitionStateMachine.scala initializeLeaderAndIsrForPartition @0.8.0..@1.0.2 (DEBUG)",
        "0.8.0", "1.0.2", "initializing", r"Initializing leader and isr for partition \S+ to .*$"),
    row("ctl.old.live_assigned", "PartitionStateMachine.scala initializeLeaderAndIsrForPartition @0.8.0..@1.0.2 (DEBUG)",
        "0.8.0", "1.0.2", "live", r"Live assigned replicas for partition \S+ are: \[.*\]$"),
    row("ctl.old.removing_from_isr", f"{KC} removeReplicaFromIsr @0.8.0..@1.0.2 (DEBUG)", "0.8.0", "1.0.2", "removing",
        r"Removing replica \d+ from ISR [\d,]* for partition \S+\.$"),
    row("ctl.old.all_deleted", "ReplicaStateMachine.scala areAllReplicasForTopicDeleted @0.8.1..@1.0.2 (DEBUG)", "0.8.1",
        "1.0.2", "are", r"Are all replicas for topic \S+ deleted .*$"),
    row("ctl.old.assignment_path", f"{KC} updateAssignedReplicasForPartition, AdminUtils @0.8.0..@1.0.2 (DEBUG)", "0.8.0",
        "1.0.2", "updated", r"Updated path \S+ with .* for replica assignment$"),
    row("ctl.old.delete_callback", f"{KC} deleteTopicStopReplicaCallback @0.8.1..@2.2.2 (DEBUG)", "0.8.1", "2.2.2",
        "delete", r"Delete topic callback invoked for .*$"),
    row("ctl.old.registering", f"{KC} @0.9.0.1..@1.0.2 (DEBUG; the log-dir listener from 1.0)", "0.9.0", "1.0.2",
        "registering", r"Registering (?:IsrChangeNotificationListener|logDirEventNotificationListener)$"),
    row("ctl.old.deregistering", f"{KC} @0.9.0.1..@1.0.2 (DEBUG; the log-dir listener from 1.0)", "0.9.0", "1.0.2",
        "de-registering", r"De-registering (?:IsrChangeNotificationListener|logDirEventNotificationListener)$"),
    row("ctl.old.reassign_waiting", f"{KC} ReassignedPartitionsIsrChangeListener @0.8.0..@2.3.1 (`.Replica(s)` until "
        "1.0.2, `. Replica(s)` after)", "0.8.0", "2.3.1", "%d/%d",
        r"\d+/\d+ replicas have caught up with the leader for partition \S+ being reassigned\. ?Replica\(s\) [\d,]* "
        r"still need to catch up$"),
    row("ctl.thread.events.0_11", "ControllerEventManager.scala ControllerEventThread, ShutdownableThread logIdent "
        "@0.11.0.3..@1.0.2", "0.11.0", "1.0.2", "[controller-event-thread]:",
        r"\[controller-event-thread\]: (?:Starting|Stopped|Shutting down|Shutdown completed)$"),
    row("ctl.channel.offline", "ControllerChannelManager.scala sendRequest @0.8.0..@3.9 (WARN)", "0.8.0", None, "not",
        r"Not sending request .* to broker \d+, since it is offline\.$"),
    # Requests the controller batches (DEBUG): the state changes that made them are the decisions.
    # A real 2.4.1 capture writes both; the ISR-change one only while brokers notify through
    # ZooKeeper (inter.broker.protocol.version below 2.7, before AlterIsr).
    row("ctl.channel.stop_replica", "ControllerChannelManager.scala ControllerBrokerRequestBatch sendRequestsToBrokers "
        "@0.8.0..@2.5.1 (DEBUG; KIP-570 in 2.6.0 dropped it)", "0.8.0", "2.5.1", "the",
        r"The stop replica request \(delete = (?:true|false)\) sent to broker \d+ is .*$"),
    row("ctl.isr_notification.metadata.0_9", f"{KC} processUpdateNotifications @0.9.0.1..@1.0.2 (DEBUG)", "0.9.0", "1.0.2",
        "sending", r"Sending MetadataRequest to Brokers:.* for TopicAndPartitions:.*$"),
    row("ctl.isr_notification.metadata", f"{KC} processIsrChangeNotification @1.1.1..@3.9 (DEBUG)", "1.1.0", None,
        "sending", r"Sending MetadataRequest to Brokers: .* for TopicPartitions: .*$"),
    row("ctl.channel.connect", "ControllerChannelManager.scala addNewBroker @0.8.0..@3.9 (DEBUG)", "0.8.0", None, "controller",
        r"Controller \d+ trying to connect to broker \d+$"),
    row("ctl.sm.invoking", "PartitionStateMachine.scala / ReplicaStateMachine.scala handleStateChanges @0.8.0..@0.11",
        "0.8.0", "1.0.2", "invoking", r"Invoking state change to \w+ for (?:partitions|replicas) .*$"),
    row("ctl.sm.started", "PartitionStateMachine.scala / ReplicaStateMachine.scala startup @0.8.0..@3.9", "0.8.0", None,
        "started", r"Started (?:partition|replica) state machine with initial state -> .*$"),
    row("ctl.sm.stopped", "PartitionStateMachine.scala / ReplicaStateMachine.scala shutdown @0.8.0..@3.9", "0.8.0", None,
        "stopped", r"Stopped (?:partition|replica) state machine$"),
    row("ctl.sm.initializing", "ZkPartitionStateMachine / ZkReplicaStateMachine startup @1.1..@3.9", "1.1.0", None,
        "initializing", r"Initializing (?:partition|replica) state$"),
    row("ctl.sm.triggering", "ZkPartitionStateMachine / ZkReplicaStateMachine startup @1.1..@3.9", "1.1.0", None,
        "triggering", r"Triggering (?:online|offline) (?:partition|replica) state changes$"),
    row("ctl.sm.retrying", "PartitionStateMachine.scala doElectLeaderForPartitions @2.4..@3.9", "2.4.0", None, "retrying",
        r"Retrying leader election with strategy .* for partitions .*$"),

    # AlterPartition (KIP-497) handled by the controller (DEBUG). No event: the leader logs the
    # same commit at INFO ("ISR updated to ... and version updated to", srv.isr.updated, an
    # IsrChange); and controller.log sorts before state-change.log at the same millisecond, so an
    # event here could be replayed ahead of decisions this controller made before it.
    row("ctl.isr.alter.updating", f"{KC} processAlterIsr @2.7..@3.1, tryProcessAlterPartition @3.2..@3.9 (DEBUG)", "2.7.0",
        None, "updating", r"Updating ISRs for partitions: .*\.$"),
    row("ctl.isr.alter.updated.2_7", f"{KC} processAlterIsr @2.7.0..@3.1.2, tryProcessAlterPartition @3.2.3 (DEBUG; "
        "seen in a real 2.8.2 capture)", "2.7.0", "3.2.3", "isr",
        r"ISR for partition \S+ updated to \[[\d,]*\] and zkVersion updated to \[\d+\]$"),
    row("ctl.isr.alter.updated", f"{KC} tryProcessAlterPartition @3.3.0..@3.9 (DEBUG)", "3.3.0",
        None, "isr", r"ISR for partition \S+ updated to LeaderAndIsr\(.*\)\.$"),
    # Topic deletion progress; the TopicDeletion input and the replica state changes are the events.
    row("ctl.deletion.stop_replica_response", f"{KC} processTopicDeletionStopReplicaResponseReceived @2.3.1..@3.9 (DEBUG)",
        "2.3.0", None, "delete",
        r"Delete topic callback invoked on StopReplica response received from broker \d+: request error = \w+, "
        r"partition errors = .*$"),
    # Feature versioning (KIP-584) and producer-id blocks (KIP-730, ZkProducerIdManager with the
    # controller's logIdent): nothing about partitions.
    row("ctl.feature.znode", f"{KC} createFeatureZNode @2.7..@3.9", "2.7.0", None, "creating",
        r"Creating FeatureZNode at path: /feature with contents: FeatureZNode\(.*\)$"),
    row("ctl.feature.znode.update", f"{KC} updateFeatureZNode @2.7.2..@3.9", "2.7.0", None, "updating",
        r"Updating FeatureZNode at path: /feature with contents: FeatureZNode\(.*\)$"),
    row("ctl.feature.znode.disabled", f"{KC} enableFeatureVersioning @2.7.2..@3.9 (WARN)", "2.7.0", None, "featureznode",
        r"FeatureZNode at path: /feature with disabled status contains non-empty features: .*$"),
    row("ctl.feature.incompatible", f"{KC} processBrokerChange @2.7.2..@3.9 (WARN)", "2.7.0", None, "ignoring",
        r"Ignoring registration of (?:new|bounced) brokers due to incompatibilities with finalized features: .*$"),
    row("ctl.feature.update_failed", f"{KC} processFeatureUpdates @2.7.2..@3.9 (WARN)", "2.7.0", None, "processing",
        r"Processing of feature updates: .* failed due to error: .*$"),
    row("ctl.producer_ids.first", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9 (DEBUG)", "3.0.0", None,
        "there", r"There is no producerId block yet \(Zk path version \d+\), creating the first block$"),
    row("ctl.producer_ids.read", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9 (DEBUG)", "3.0.0", None,
        "read", r"Read current producerId block ProducerIdsBlock\(.*\), Zk path version \d+$"),
    row("ctl.producer_ids.acquired", "ZkProducerIdManager.scala getNewProducerIdBlock @3.0..@3.9", "3.0.0", None,
        "acquired", r"Acquired new producerId block ProducerIdsBlock\(.*\) by writing to Zk with path version \d+$"),
    row("ctl.producer_ids.ignored", f"{KC} processAllocateProducerIds @3.0.2..@3.9 (WARN)", "3.0.0", None, "ignoring",
        r"Ignoring AllocateProducerIds due to (?:unknown broker \d+|stale broker epoch \d+ for broker \d+)$"),

    # What the controller could not do, and requests it turned away (no decision: each is followed
    # by a retry, a resignation or nothing). Found by a sweep of the ZooKeeper-mode controller's
    # log calls (0.8.0 .. 3.9.0 sources); without these rows the lines would be quarantined, and the
    # controller's "Failed to update ISR to ..." would go to the leader's row srv.isr.failed.
    row("ctl.sm.error", "PartitionStateMachine.scala / ReplicaStateMachine.scala handleStateChanges @0.8.0..@3.9 (ERROR; "
        "`the online state` from triggerOnlinePartitionStateChange @0.8.0..@1.0.2)", "0.8.0", None, "error",
        r"Error while moving some (?:partitions|replicas) to (?:the online|\w+) state$"),
    row("ctl.sm.write_retry", "ZkPartitionStateMachine doElectLeaderForPartitions, ZkReplicaStateMachine "
        "doRemoveReplicasFromIsr @2.7.2, @2.8.2, @3.1.2..@3.9 (DEBUG; not in @2.6.3 nor @3.0.2)", "2.7.0", None, "controller",
        r"Controller failed to (?:elect leader for partition \S+|remove replica \d+ from ISR of partition \S+)\. "
        r"Attempted to write state .*, but failed with bad ZK version\. This will be retried\.$"),
    row("ctl.channel.remove_failed", "ControllerChannelManager.scala removeBroker @0.8.0..@3.9 (ERROR)", "0.8.0", None,
        "error", r"Error while removing broker by the controller$"),
    row("ctl.channel.batch_failed", "ControllerChannelManager.scala ControllerBrokerRequestBatch sendRequestsToBrokers "
        "@0.9.0.1 (no exception message), @0.10.0..@0.10.1 (`metadata update requests, current state of the map`), "
        "@0.10.2..@3.9 (ERROR)", "0.9.0", None, "haven't",
        r"Haven't been able to send (?:leader and isr requests, current state of the map is .*"
        r"|metadata update requests(?: to brokers .*, current state of the partition info is|, current state of the map is) .*"
        r"|stop replica requests, current state of the map is .*)$"),
    # An event that threw: KafkaController's own logIdent from 2.3, the event thread's before
    # (which, 2.1-2.2, also logged the ctl.moved line).
    row("ctl.event.error", f"{KC} process @2.3.1..@3.9 (ERROR)", "2.3.0", None, "error", r"Error processing event .*$"),
    row("ctl.event.thread", "ControllerEventManager.scala ControllerEventThread: Error processing and Error while "
        "invoking @1.1.1..@2.2.2, Controller moved @2.1.0..@2.2.2, Uncaught @2.3.1..@3.9 (ERROR; the moved one INFO)",
        "1.1.0", None, "[controllereventthread",
        r"\[ControllerEventThread controllerId=\d+\] (?:Error processing event|Error while invoking listener for processed "
        r"event|Uncaught error processing event|Controller moved to another broker when processing) .*$"),
    row("ctl.event.thread.0_11", "ControllerEventManager.scala ControllerEventThread @0.11.0.3..@1.0.2 (ERROR)", "0.11.0",
        "1.0.2", "[controller-event-thread]:",
        r"\[controller-event-thread\]: (?:Error processing event|Error while invoking listener for processed event) .*$"),
    row("ctl.moved.already", f"{KC} triggerControllerMove @2.1.0..@3.9 (WARN)", "2.1.0", None, "controller",
        r"Controller has already moved when trying to trigger controller movement$"),
    row("ctl.event.shutdown_misrouted", f"{KC} process @2.4.1..@3.9 (ERROR)", "2.4.0", None, "received",
        r"Received a ShutdownEventThread event\. This type of event is supposed to be handle by ControllerEventThread$"),
    row("ctl.reassign.moved", f"{KC} onPartitionReassignment @2.4.1..@3.9", "2.4.0", None, "failed",
        r"Failed completing reassignment of partition \S+ because controller has moved to another broker$"),
    row("ctl.replica.unassigned", "ZkReplicaStateMachine doHandleStateChanges @2.5.1..@3.9 (ERROR)", "2.5.0", None,
        "adding", r"Adding replica \(\d+\) that is not part of the assignment .*$"),
    # AlterIsr (2.7) was renamed AlterPartition by 3.2 (@3.1.2 / @3.2.3): requests the controller
    # turned away. The leader logs their answer (srv.isr.failed, srv.isr.rejected).
    row("ctl.isr.alter.ignored.2_7", f"{KC} processAlterIsr @2.7.2..@3.1.2 (the local broker epoch from 3.0)", "2.7.0",
        "3.1.2", "ignoring",
        r"Ignoring AlterIsr due to (?:unknown broker \d+|stale broker epoch \d+(?: and local broker epoch \d+)? "
        r"for broker \d+)$"),
    row("ctl.isr.alter.ignored", f"{KC} processAlterPartition @3.2.3..@3.9", "3.2.0", None, "ignoring",
        r"Ignoring AlterPartition due to (?:unknown broker \d+|stale broker epoch \d+ and local broker epoch \d+ "
        r"for broker \d+)$"),
    row("ctl.isr.alter.rejected", f"{KC} tryProcessAlterPartition @3.2.3..@3.9 (recovery state; ineligible replicas "
        "@3.3.2..)", "3.2.0", None, "rejecting",
        r"Rejecting AlterPartition (?:from node \d+ for \S+ because (?:leader is recovering and ISR is greater than 1"
        r"|the leader recovery state cannot change from RECOVERED to RECOVERING): .*"
        # (KRaft's controller writes the same words with Java lists: kraft.controller.alter_partition_rejected)
        r"|request from node \d+ for \S+ because it specified ineligible replicas .* in the new ISR "
        r"LeaderAndIsr\(.*\)\.)$"),
    row("ctl.isr.alter.failed", f"{KC} processAlterIsr / tryProcessAlterPartition @2.7.2..@3.9 (ERROR; WARN and the "
        "bad-ZK-version one DEBUG without the ISR @3.0.2; INFO with it otherwise)", "2.7.0", None, "failed",
        r"Failed to update ISR (?:to .* )?for partition \S+?(?:, bad ZK version\.?)?$"),
    row("ctl.isr.alter.error", f"{KC} processAlterIsr @2.7.2..@3.1.2 (`AlterIsr for partitions`), "
        "tryProcessAlterPartition @3.2.3 (`AlterPartition for partitions`), @3.3.2..@3.9 (the request) (ERROR)", "2.7.0",
        None, "error", r"Error when processing Alter(?:Isr|Partition)(?: for partitions)?: .*$"),
)
