"""ingest.zk_controller, zk_controller_machinery and zk_server: ZooKeeper-mode controller.log and
server.log lines -> controller inputs. Every fixture is a line the named Kafka release writes (its
format string, filled in); lines marked "real" are copied from published logs of that release."""
from __future__ import annotations

import pytest

from ingest import zk_controller, zk_controller_machinery, zk_server
from ingest.catalog import LineContext, index, match_message
from ingest.lines import parse_file_lines
from ingest.prefix import strip_prefix
from schemas.events import EVENT_FIELD_NAMES
from schemas.validate import invalid_reason
from state_machine.eras import parse_version

PATTERNS = zk_controller.PATTERNS + zk_controller_machinery.PATTERNS + zk_server.PATTERNS
TABLE = index(PATTERNS)


def run(message: str, level: str = "INFO", file_kind: str = "controller", release: str | None = None):
    """strip_prefix + match_message over this module's rows (bodies that begin with the broker
    id, `1 successfully elected as ...`, are dispatched under "%d": catalog.keyword_of). With
    `release` (`2.4.1`, `3.9.2 real`): the row that matches spans it, as era detection assumes."""
    prefix, body = strip_prefix(message)
    found = match_message(body, LineContext(level, None, prefix, "", file_kind), TABLE)
    if found is not None and release is not None:
        version = parse_version(release.split()[0])
        assert parse_version(found[0].first) <= version, (found[0].name, found[0].first)
        assert found[0].last is None or version <= parse_version(found[0].last), (found[0].name, found[0].last)
    return found


def ctl(event_type: str, broker: int, **fields) -> dict:
    return {"event_type": event_type, **fields, "recording_broker": broker, "controller_id": broker}


# (release, message, expected output) --------------------------------------------------------
CASES = [
    # Controller election (server.log before 0.11, controller.log after)
    ("0.8.2.2", "1 successfully elected as leader",
     [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": None}]),
    ("0.11.0.3", "[Controller 1]: 1 successfully elected as the controller",
     [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": None}]),
    ("2.5.1", "[Controller id=1] 1 successfully elected as the controller. Epoch incremented to 7 and epoch zk version is now 6",
     [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": 7}]),
    # Failover
    ("0.10.2.1", "[Controller 1]: Broker 1 is ready to serve as the new controller with epoch 5",
     [{"event_type": "ControllerFailover", "controller_id": 1, "controller_epoch": 5, "recording_broker": 1}]),
    ("3.3.2 real", "[Controller id=1001] Ready to serve as the new controller with epoch 1",
     [{"event_type": "ControllerFailover", "controller_id": 1001, "controller_epoch": 1, "recording_broker": 1001}]),
    # The new epoch, named before the failover's first decisions (see test_a_failover_is_...).
    ("0.11.0.3", "[Controller 1]: Controller 1 incremented epoch to 5",
     [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": 5}]),
    ("1.0.2", "[Controller id=1] Incremented epoch to 5", [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": 5}]),
    ("2.0.1", "[Controller id=1] Epoch incremented to 5", [{"fact": "controller_elected", "controller_id": 1, "controller_epoch": 5}]),
    # Broker membership, controlled shutdown
    ("2.8.1", "[Controller id=2] New broker startup callback for 1,3", [ctl("BrokerStartup", 2, brokers=[1, 3])]),
    ("0.9.0.1", "[Controller 0]: Broker failure callback for 2", [ctl("BrokerFailure", 0, brokers=[2])]),
    ("0.8.2.2", "[Controller 1]: Shutting down broker 3", [ctl("ControlledShutdown", 1, brokers=[3])]),
    ("2.4.1", "[Controller id=1] Shutting down broker 3", [ctl("ControlledShutdown", 1, brokers=[3])]),
    # Topic creation: one event per partition of the printed assignment
    ("0.8.2.2", "[TopicChangeListener on Controller 1]: New topics: [Set(t)], deleted topics: [Set()], "
                "new partition replica assignment [Map([t,1] -> List(2, 1), [t,0] -> List(1, 2))]",
     [ctl("TopicCreation", 1, topic="t", partition=1, replicas=[2, 1]),
      ctl("TopicCreation", 1, topic="t", partition=0, replicas=[1, 2])]),
    ("2.3.1", "[Controller id=1] New topics: [Set(orders.v2)], deleted topics: [Set()], "
              "new partition replica assignment [Map(orders.v2-0 -> List(1, 2, 3))]",
     [ctl("TopicCreation", 1, topic="orders.v2", partition=0, replicas=[1, 2, 3])]),
    ("2.4.1", "[Controller id=1] New topics: [Set(my-topic)], deleted topics: [Set()], new partition replica assignment "
              "[Map(my-topic-0 -> ReplicaAssignment(replicas=1,2,3, addingReplicas=, removingReplicas=), "
              "my-topic-1 -> ReplicaAssignment(replicas=2,3,1, addingReplicas=, removingReplicas=))]",
     [ctl("TopicCreation", 1, topic="my-topic", partition=0, replicas=[1, 2, 3]),
      ctl("TopicCreation", 1, topic="my-topic", partition=1, replicas=[2, 3, 1])]),
    ("3.3.2 real", "[Controller id=1001] New topics: [Set(kafka-ckpt)], deleted topics: [HashSet()], new partition replica "
                   "assignment [Set(TopicIdReplicaAssignment(kafka-ckpt,Some(JEBHuSVSTC-4b0wSYaiylg),Map(kafka-ckpt-0 -> "
                   "ReplicaAssignment(replicas=1001, addingReplicas=, removingReplicas=))))]",
     [{"fact": "topic_name", "topic_id": "JEBHuSVSTC-4b0wSYaiylg", "topic": "kafka-ckpt"},
      ctl("TopicCreation", 1001, topic="kafka-ckpt", partition=0, replicas=[1001])]),
    ("2.4.1 deletion finished", "[Controller id=1] New topics: [Set()], deleted topics: [Set(old)], "
                                "new partition replica assignment [Map()]", []),
    # Partition additions
    ("0.8.0", "[AddPartitionsListener on 1]: New partitions to be added [Map([t,2] -> List(1, 2))]",
     [ctl("PartitionCreation", 1, topic="t", partition=2, replicas=[1, 2])]),
    ("0.10.1.1", "[AddPartitionsListener on 2]: New partitions to be added Map([t,3] -> List(2, 3))",
     [ctl("PartitionCreation", 2, topic="t", partition=3, replicas=[2, 3])]),
    ("2.6.3", "[Controller id=1] New partitions to be added Map(orders-3 -> ReplicaAssignment(replicas=3,1, addingReplicas=, "
              "removingReplicas=))",
     [ctl("PartitionCreation", 1, topic="orders", partition=3, replicas=[3, 1])]),
    # Reassignment start
    ("0.8.2.2", "[Controller 1]: Handling reassignment of partition [t,0] to new replicas 2,3",
     [ctl("ReassignmentStart", 1, topic="t", partition=0, replicas=[2, 3])]),
    ("2.3.0", "[Controller id=1] Handling reassignment of partition orders-0 to new replicas 4,5,6",
     [ctl("ReassignmentStart", 1, topic="orders", partition=0, replicas=[4, 5, 6])]),
    ("2.4.1", "[Controller id=1] Successfully updated assignment of partition orders-0 to ReplicaAssignment("
              "replicas=4,5,6,1,2,3, addingReplicas=4,5,6, removingReplicas=1,2,3)",
     [ctl("ReassignmentStart", 1, topic="orders", partition=0, replicas=[4, 5, 6])]),
    ("3.6.1 shrink", "[Controller id=1] Successfully updated assignment of partition orders-0 to ReplicaAssignment("
                     "replicas=1,2,3, addingReplicas=, removingReplicas=3)",
     [ctl("ReassignmentStart", 1, topic="orders", partition=0, replicas=[1, 2])]),
    # Completion (or a reorder-only reassignment): the AR it prints; the replay ignores a target equal to its AR.
    ("2.4.1 completion", "[Controller id=1] Successfully updated assignment of partition orders-0 to ReplicaAssignment("
                         "replicas=4,5,6, addingReplicas=, removingReplicas=)",
     [ctl("ReassignmentStart", 1, topic="orders", partition=0, replicas=[4, 5, 6])]),
    # Every target replica in the ISR: the completion starts (0.8-2.3 print the count only, and only when it is all).
    ("0.8.2.2 real", "[ReassignedPartitionsIsrChangeListener on controller 3]: 2/2 replicas have caught up with the leader "
                     "for partition [moves,0] being reassigned.Resuming partition reassignment",
     [{"event_type": "ReassignmentCaughtUp", "topic": "moves", "partition": 0, "recording_broker": 3, "controller_id": 3}]),
    ("2.3.1", "[Controller id=1] 3/3 replicas have caught up with the leader for partition t-0 being reassigned. "
              "Resuming partition reassignment",
     [ctl("ReassignmentCaughtUp", 1, topic="t", partition=0)]),
    ("2.4.1", "[Controller id=1] Target replicas List(4, 5, 6) have all caught up with the leader for reassigning partition "
              "orders-0",
     [ctl("ReassignmentCaughtUp", 1, topic="orders", partition=0, replicas=[4, 5, 6])]),
    ("3.9.2 real", "[Controller id=2] Target replicas ArrayBuffer(3, 2) have all caught up with the leader for reassigning "
                   "partition moves-0",
     [ctl("ReassignmentCaughtUp", 2, topic="moves", partition=0, replicas=[3, 2])]),
    # Preferred / unclean election requests
    ("0.8.2.2", "[Controller 1]: Starting preferred replica leader election for partitions [t,0],[t,1]",
     [ctl("ReplicaLeaderElection", 1, topic="t", partition=0, election_type="PREFERRED"),
      ctl("ReplicaLeaderElection", 1, topic="t", partition=1, election_type="PREFERRED")]),
    ("2.2.0 real", "[Controller id=1] Starting preferred replica leader election for partitions T-TEST-SNP-2,T-TEST-0",
     [ctl("ReplicaLeaderElection", 1, topic="T-TEST-SNP", partition=2, election_type="PREFERRED"),
      ctl("ReplicaLeaderElection", 1, topic="T-TEST", partition=0, election_type="PREFERRED")]),
    ("2.0.1 failover, none pending", "[Controller id=1] Starting preferred replica leader election for partitions ", []),
    ("2.4.1", "[Controller id=1] Starting replica leader election (UNCLEAN) for partitions orders-0 triggered by AdminClientTriggered",
     [ctl("ReplicaLeaderElection", 1, topic="orders", partition=0, election_type="UNCLEAN")]),
    ("2.8.1", "[Controller id=3] Starting replica leader election (PREFERRED) for partitions a-1,b-0 triggered by AutoTriggered",
     [ctl("ReplicaLeaderElection", 3, topic="a", partition=1, election_type="PREFERRED"),
      ctl("ReplicaLeaderElection", 3, topic="b", partition=0, election_type="PREFERRED")]),
    ("3.3.2 real", "[Controller id=1001] Starting replica leader election (PREFERRED) for partitions  triggered by ZkTriggered", []),
    # Topic deletion
    ("0.9.0.1", "[DeleteTopicsListener on 1]: Starting topic deletion for topics t1,t2",
     [ctl("TopicDeletion", 1, topic="t1"), ctl("TopicDeletion", 1, topic="t2")]),
    ("2.8.1", "[Controller id=1] Starting topic deletion for topics orders",
     [ctl("TopicDeletion", 1, topic="orders")]),
    # 0.10.2's listeners log through ControllerZkListener: `[<name> on Controller N]: ` (sources jar @0.10.2.2).
    ("0.10.2.2", "[DeleteTopicsListener on Controller 1]: Starting topic deletion for topics t1",
     [ctl("TopicDeletion", 1, topic="t1")]),
    # Unclean elections and their config
    ("0.10.2.1", "[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [t,0]. Elect leader 2 from live brokers 2,3. "
                 "There's potential data loss.",
     [{"event_type": "UncleanElectionLogged", "topic": "t", "partition": 0, "leader": 2}]),
    ("2.4.1", "[Controller id=1] Unclean leader election has been enabled for topic orders",
     [ctl("ConfigChange", 1, topic="orders", config_name="unclean.leader.election.enable", config_value="true")]),
    ("2.3.0", "[Controller id=1] Unclean leader election has been enabled by default",
     [ctl("ConfigChange", 1, config_name="unclean.leader.election.enable", config_value="true")]),
]

ISR, PROPOSED = "IsrChange", "IsrChangeProposed"
OBSERVED, UNCLEAN = "ConfigObserved", "unclean.leader.election.enable"
SERVER_CASES = [
    ("0.10.1.1", "Partition [t,0] on broker 1: Shrinking ISR for partition [t,0] from 1,2,3 to 1,2",
     [{"event_type": PROPOSED, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2], "recording_broker": 1}]),
    ("0.8.2.2", "Partition [t,0] on broker 2: Expanding ISR for partition [t,0] from 2 to 2,1",
     [{"event_type": PROPOSED, "topic": "t", "partition": 0, "leader": 2, "isr": [2, 1], "recording_broker": 2}]),
    ("0.10.2.1", "Partition [t,0] on broker 1: Expanding ISR for partition t-0 from 1,2 to 1,2,3",
     [{"event_type": PROPOSED, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2, 3], "recording_broker": 1}]),
    # The leader's own line when it starts a leader epoch (Partition.makeLeader in the sources jars;
    # 0.11's prefix; 2.4 rewrote the sentence).
    ("2.3.1", "[Partition t-0 broker=1] t-0 starts at Leader Epoch 5 from offset 120. Previous Leader Epoch was: 4",
     [{"event_type": "LeaderAndIsrReceived", "topic": "t", "partition": 0, "leader": 1, "leader_epoch": 5,
       "log_end_offset": 120, "recording_broker": 1}]),
    ("2.4.1", "[Partition t-0 broker=1] t-0 starts at leader epoch 5 from offset 120 with high watermark 118. Previous "
              "leader epoch was 4.",
     [{"event_type": "LeaderAndIsrReceived", "topic": "t", "partition": 0, "leader": 1, "leader_epoch": 5,
       "log_end_offset": 120, "high_watermark": 118, "recording_broker": 1}]),
    ("0.11.0.3", "Partition [my.t-1,0] on broker 2: my.t-1-0 starts at Leader Epoch 0 from offset 0. Previous Leader Epoch "
                 "was: -1",
     [{"event_type": "LeaderAndIsrReceived", "topic": "my.t-1", "partition": 0, "leader": 2, "leader_epoch": 0,
       "log_end_offset": 0, "recording_broker": 2}]),
    ("1.1.1", "[Partition t-0 broker=1] Shrinking ISR from 1,2,3 to 1,2",
     [{"event_type": PROPOSED, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2], "recording_broker": 1}]),
    ("2.2.0 real", "[Partition __consumer_offsets-43 broker=3] Shrinking ISR from 3,1,4 to 3. Leader: (highWatermark: 115, "
                   "endOffset: 120). Out of sync replicas: (brokerId: 1, endOffset: 115) (brokerId: 4, endOffset: 116).",
     [{"event_type": PROPOSED, "topic": "__consumer_offsets", "partition": 43, "leader": 3, "isr": [3], "recording_broker": 3,
       "high_watermark": 115, "log_end_offset": 120}]),
    ("2.2.0 real", "[Partition __consumer_offsets-43 broker=3] Expanding ISR from 3 to 3,4",
     [{"event_type": PROPOSED, "topic": "__consumer_offsets", "partition": 43, "leader": 3, "isr": [3, 4], "recording_broker": 3}]),
    ("2.5.1", "[Partition t-0 broker=1] ISR updated to [1,2] and zkVersion updated to [7]",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2], "zk_version": 7, "recording_broker": 1}]),
    ("0.10.2.1 TRACE", "Partition [t,0] on broker 1: ISR updated to [1,2] and zkVersion updated to [7]",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2], "zk_version": 7, "recording_broker": 1}]),
    ("2.7.2", "[Partition t-0 broker=1] ISR updated from AlterIsr to 1,2,3 and version updated to [8]",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2, 3], "zk_version": 8, "recording_broker": 1}]),
    ("2.8.1", "[Partition t-0 broker=1] ISR updated to 1,2,3 and version updated to [8]",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2, 3], "zk_version": 8, "recording_broker": 1}]),
    ("3.6.1", "[Partition t-0 broker=1] ISR updated to 1,2  and version updated to 9",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1, 2], "zk_version": 9, "recording_broker": 1}]),
    ("3.6.1 under-min-isr", "[Partition t-0 broker=1] ISR updated to 1 (under-min-isr) and version updated to 9",
     [{"event_type": ISR, "topic": "t", "partition": 0, "leader": 1, "isr": [1], "zk_version": 9, "recording_broker": 1}]),
    # The leader's write that did not commit: its proposal just before changed nothing.
    *[(release, message, [{"event_type": "IsrUpdateFailed", "topic": topic, "partition": 0, "leader": 1,
                           "detail": message[message.index(body):], "recording_broker": 1}])
      for release, message, topic, body in (
        ("0.10.2.1", "Partition [t,0] on broker 1: Cached zkVersion [5] not equal to that in zookeeper, skip updating ISR",
         "t", "Cached"),
        ("1.1.1", "[Partition orders-0 broker=1] Cached zkVersion [0] not equal to that in zookeeper, skip "
                  "updating ISR", "orders", "Cached"),
        ("2.4.1", "[Partition t-0 broker=1] Cached zkVersion 5 not equal to that in zookeeper, skip updating ISR", "t",
         "Cached"),
        ("3.6.1", "[Partition t-0 broker=1] Failed to update ISR to PendingShrinkIsr(outOfSyncReplicaIds=Set(3)) due to "
                  "unexpected NETWORK_EXCEPTION. Retrying.", "t", "Failed"),
        ("2.7.2", "[Partition t-0 broker=1] Controller failed to update ISR to PendingShrinkIsr(isr=Set(1, 2), "
                  "outOfSyncReplicaIds=Set(3)) due to unexpected NETWORK_EXCEPTION. Retrying.", "t", "Controller"),
        ("2.7.2", "[Partition t-0 broker=1] Controller failed to update ISR to PendingShrinkIsr(isr=Set(1, 2), "
                  "outOfSyncReplicaIds=Set(3)) due to invalid zk version. Giving up.", "t", "Controller"),
        ("3.3.2", "[Partition t-0 broker=1] Failed to alter partition to PendingShrinkIsr(isr=Set(1, 2), "
                  "outOfSyncReplicaIds=Set(3)) since the controller rejected the request with FENCED_LEADER_EPOCH. "
                  "Partition state has been reset to the latest committed state CommittedPartitionState(isr=Set(1, 2, "
                  "3), leaderRecoveryState=RECOVERED).", "t", "Failed"))],
    # A replica's log (kafka.log.Log, UnifiedLog): its truncations and its log end as it loads, for an
    # unclean election's records at risk. Real lines of the captures (data/samples/real), each release's form.
    ("0.8.2.2 real", "Truncating log unclean-0 to offset 200.",
     [{"event_type": "LogTruncation", "topic": "unclean", "partition": 0, "truncation_offset": 200}]),
    ("0.11.0.3 real", "Truncating unclean-0 to 0 has no effect as the largest offset in the log is -1.",
     [{"event_type": "LogTruncation", "topic": "unclean", "partition": 0, "truncation_offset": 0, "log_end_offset": 0}]),
    ("1.0.2 real", "[Log partition=unclean-0, dir=/tmp/s18/capwork10/zk-1.0-trace/broker-1/data] Truncating to offset 200",
     [{"event_type": "LogTruncation", "topic": "unclean", "partition": 0, "truncation_offset": 200}]),
    ("2.8.2 real", "[Log partition=events-1, dir=/tmp/kafka-zk-2.8-trace-lxoludfb/broker-2/data] Truncating to 3000 has "
                   "no effect as the largest offset in the log is 2999",
     [{"event_type": "LogTruncation", "topic": "events", "partition": 1, "truncation_offset": 3000,
       "log_end_offset": 3000}]),
    ("3.9.2 real", "[UnifiedLog partition=unclean-0, dir=/tmp/kafka-zk-3.9-info-hrvl4my7/broker-1/data] Truncating to "
                   "offset 200",
     [{"event_type": "LogTruncation", "topic": "unclean", "partition": 0, "truncation_offset": 200}]),
    ("3.6.1", "[UnifiedLog partition=my-t-2, dir=/data] Truncating to offset 17",   # a topic with a '-'
     [{"event_type": "LogTruncation", "topic": "my-t", "partition": 2, "truncation_offset": 17}]),
    ("0.8.2.2 real", "Completed load of log unclean-0 with log end offset 700",
     [{"event_type": "LogEndOffsetObserved", "topic": "unclean", "partition": 0, "log_end_offset": 700}]),
    ("0.10.2.2 real", "Completed load of log unclean-0 with 1 log segments and log end offset 700 in 48 ms",
     [{"event_type": "LogEndOffsetObserved", "topic": "unclean", "partition": 0, "log_end_offset": 700}]),
    ("0.11.0.3 real", "Completed load of log unclean-0 with 1 log segments, log start offset 0 and log end offset 700 "
                      "in 52 ms",
     [{"event_type": "LogEndOffsetObserved", "topic": "unclean", "partition": 0, "log_end_offset": 700}]),
    ("2.4.1 real", "[Log partition=unclean-0, dir=/tmp/s18/capwork24/zk-2.4-trace/broker-1/data] Completed load of log "
                   "with 1 segments, log start offset 0 and log end offset 700 in 58 ms",
     [{"event_type": "LogEndOffsetObserved", "topic": "unclean", "partition": 0, "log_end_offset": 700}]),
    ("0.10.2.1", "[Kafka Server 1], started", [{"fact": "broker_id", "broker": 1}]),
    ("2.8.1", "[KafkaServer id=1] started", [{"fact": "broker_id", "broker": 1}]),
    ("0.10.2.1", "Kafka version : 0.10.2.1", [{"fact": "kafka_version", "version": "0.10.2.1"}]),
    ("2.1.1 real", "Kafka version : 2.1.1-cp3", [{"fact": "kafka_version", "version": "2.1.1-cp3"}]),
    ("3.3.2 real", "Kafka version: 7.3.5-ccs", [{"fact": "kafka_version", "version": "7.3.5-ccs"}]),
    # Config in effect: a new log's properties (all of them to 2.8.0, the topic's overrides from 2.8.1), the
    # broker's startup config (one record; its continuation lines arrive tab-joined).
    ("0.11.0.3", "Created log for partition [fizz,0] in /tmp/kafka-logs with properties {compression.type -> producer, "
                 "unclean.leader.election.enable -> false, min.insync.replicas -> 1}.",
     [{"event_type": OBSERVED, "topic": "fizz", "partition": 0, "config_name": UNCLEAN, "config_value": "false"}]),
    ("0.10.2.2", "Created log for partition [unclean,0] in /tmp/s19/capwork010/zk-0.11-trace/broker-1/data with "
                      "properties {compression.type -> producer, message.format.version -> 0.10.2-IV0, "
                      "unclean.leader.election.enable -> true, min.insync.replicas -> 1}.",
     [{"event_type": OBSERVED, "topic": "unclean", "partition": 0, "config_name": UNCLEAN, "config_value": "true"}]),
    ("0.8.2.2", "Created log for partition [t,0] in /tmp/kafka-logs with properties {segment.index.bytes -> 10485760, "
                "unclean.leader.election.enable -> false, retention.ms -> 604800000}.",
     [{"event_type": OBSERVED, "topic": "t", "partition": 0, "config_name": UNCLEAN, "config_value": "false"}]),
    ("2.4.1", "Created log for partition t.a-3 in /var/lib/kafka/data/t.a-3 with properties {cleanup.policy -> [delete, "
              "compact], unclean.leader.election.enable -> true, retention.ms -> 604800000}.",
     [{"event_type": OBSERVED, "topic": "t.a", "partition": 3, "config_name": UNCLEAN, "config_value": "true"}]),
    ("3.9.2 real", "Created log for partition unclean-0 in /tmp/kafka-zk-3.9-info-hrvl4my7/broker-1/data/unclean-0 with "
                   "properties {unclean.leader.election.enable=true}",
     [{"event_type": OBSERVED, "topic": "unclean", "partition": 0, "config_name": UNCLEAN, "config_value": "true"}]),
    ("3.9.2 real", "Created log for partition events-1 in /tmp/kafka-zk-3.9-info-hrvl4my7/broker-1/data/events-1 with "
                   "properties {}",
     [{"event_type": OBSERVED, "topic": "events", "partition": 1, "config_name": UNCLEAN}]),
    ("2.8.2 real", "Created log for partition unclean-0 in /tmp/s18/capwork/zk-2.8-info/broker-1/data/unclean-0 with "
                   "properties {unclean.leader.election.enable=true}",
     [{"event_type": OBSERVED, "topic": "unclean", "partition": 0, "config_name": UNCLEAN, "config_value": "true"}]),
    ("3.6.1", "Created log for partition t-0 in /data/t-0 with properties {min.insync.replicas=2, retention.ms=1000}",
     [{"event_type": OBSERVED, "topic": "t", "partition": 0, "config_name": UNCLEAN}]),
    ("3.9.2 real", "KafkaConfig values: \tadvertised.listeners = PLAINTEXT://127.0.0.1:58385\ttransactional.id.expiration.ms = "
                   "604800000\tunclean.leader.election.enable = false\tunclean.leader.election.interval.ms = 300000",
     [{"event_type": OBSERVED, "config_name": UNCLEAN, "config_value": "false"}]),
    ("2.4.1", "KafkaConfig values: \tunclean.leader.election.enable = true\tzookeeper.connect = zk:2181",
     [{"event_type": OBSERVED, "config_name": UNCLEAN, "config_value": "true"}]),
    # 0.8: KafkaConfig reads server.properties through VerifiableProperties, which logs each key set.
    ("0.8.2.2", "Property unclean.leader.election.enable is overridden to false",
     [{"event_type": OBSERVED, "config_name": UNCLEAN, "config_value": "false"}]),
]


def _ids(cases):
    return [f"{release}: {message[:60]}" for release, message, _ in cases]


@pytest.mark.parametrize("release,message,expected", CASES, ids=_ids(CASES))
def test_controller_log(release, message, expected):
    found = run(message, release=release)
    assert found is not None, f"{release}: not understood"
    assert found[1] == expected


@pytest.mark.parametrize("release,message,expected", SERVER_CASES, ids=_ids(SERVER_CASES))
def test_server_log(release, message, expected):
    found = run(message, file_kind="server", release=release)
    assert found is not None, f"{release}: not understood"
    assert found[1] == expected


# Real lines of these files that carry no controller input: understood, no event -------------
QUIET = [
    ("0.11.0.3", "[Controller 1]: Broker 1 starting become controller state transition"),
    ("0.11.0.3", "[Controller 1]: Initialized controller epoch to 4 and zk version 3"),
    ("1.0.2", "[Controller id=1] Starting become controller state transition"),
    ("2.0.1", "[Controller id=1] Initialized controller epoch to 4 and zk version 3"),
    ("0.10.2.2", "[AddPartitionsListener on Controller 1]: Partition modification triggered "
                 "{\"version\":1,\"partitions\":{\"0\":[1,2]}} for path /brokers/topics/t"),
    ("0.8.2.2", "[Controller 1]: All leaders = [t,0] -> (Leader:1,ISR:1,2,LeaderEpoch:0,ControllerEpoch:1)"),
    ("0.8.2.2", "[Controller 1]: Updating leader epoch for partition [t,0]."),
    ("1.1.1", "[Controller id=1] Skipping reassignment of t-0 since the topic is currently being deleted"),
    ("2.3.1", "[Controller id=2] Delete topic callback invoked on StopReplica response received from broker 1: request "
              "error = NONE, partition errors = Map(doomed-0 -> NONE)"),
    ("0.8.0", "[Controller 1]: Cannot remove replica 3 from ISR of [t,0]. Leader = 1 ; ISR = List(1, 2)"),
    ("1.0.2", "[Controller id=1] Cannot remove replica 3 from ISR of partition [t,0] since it is not in the ISR. "
              "Leader = 1 ; ISR = List(1, 2)"),
    ("0.10.2.2", "[Controller 1]: Controller starting up"),
    ("0.10.2.2", "[Controller 1]: Controller startup complete"),
    ("0.10.2.2", "[Controller 1]: Skipping preferred replica election for partitions Set([t,0]) since the respective "
                 "topics are being deleted"),
    ("2.2.2", "[Controller id=1] Skipping preferred replica election for partitions Set(t-0) since the respective "
              "topics are being deleted"),
    ("0.11.0.3", "[Controller 1]: Error while electing or becoming controller on broker 1"),
    ("3.9.1", "[Controller id=1] Error while electing or becoming controller on broker 1. Trigger controller movement "
              "immediately"),
    ("0.8.0", "Leader not assigned yet for partition [t,0]. Skip sending udpate metadata request"),
    ("2.4.1", "Leader not yet assigned for partition t-0. Skip sending UpdateMetadataRequest."),
    ("0.11.0.3", "[Controller 1]: Broker 1 resigned as the controller"),
    ("0.11.0.3", "[Controller 1]: starting the controller scheduler"),
    ("0.11.0.3", "[Controller 1]: New topic creation callback for [t,0],[t,1]"),
    ("0.11.0.3", "[Controller 1]: Removed ArrayBuffer() from list of shutting down brokers."),
    ("0.11.0.3", "[Controller 1]: New replicas 2,3 for partition [t,0] being reassigned not yet caught up with the leader"),
    ("0.11.0.3", "[Controller 1]: Updated assigned replicas for partition [t,0] being reassigned to 2,3 "),
    ("0.11.0.3", "[Controller 1]: Removed partition [t,0] from the list of reassigned partitions in zookeeper"),
    ("0.11.0.3", "[Controller 1]: Leader 1 for partition [t,0] being reassigned, is not in the new list of replicas 2,3. "
                 "Re-electing leader"),
    ("0.11.0.3", "[Controller 1]: Partition [t,0] completed preferred replica leader election. New leader is 1"),
    ("0.11.0.3", "[Controller 1]: Partition [t,0] failed to complete preferred replica leader election. Leader is 2"),
    ("0.8.2.2", "[BrokerChangeListener on Controller 1]: Broker change listener fired for path /brokers/ids with children 1,2"),
    ("0.8.2.2", "[BrokerChangeListener on Controller 1]: Newly added brokers: 3, deleted brokers: , all live brokers: 1,2,3"),
    ("0.8.0", "[AddPartitionsListener on 1]: Add Partition triggered {\"version\":1,\"partitions\":{\"0\":[1,2]}} "
              "for path /brokers/topics/t"),
    # The 0.8-0.10 ZooKeeper listeners saying they fired, and the 0.8-0.10 deletion thread: the
    # "real" ones verbatim from a 0.10.2.2 capture (the other 0.10.2.2 ones cut short), the rest from
    # the sources of the release named.
    ("0.10.2.2 real", "[TopicChangeListener on Controller 1]: Topic change listener fired for path /brokers/topics with "
                      "children doomed,events,moves"),
    ("0.10.2.2 real", "[ReassignedPartitionsIsrChangeListener on Controller 2]: Reassigned partitions isr change listener "
                      "fired for path /brokers/topics/moves/partitions/0/state with children {\"controller_epoch\":2,"
                      "\"leader\":1,\"version\":1,\"leader_epoch\":3,\"isr\":[2,1,3]}"),
    ("0.8.0", "[ReassignedPartitionsIsrChangeListener on controller 1]: Reassigned partitions isr change listener fired "
              "for path /brokers/topics/t/partitions/0/state with children {\"controller_epoch\":1,\"leader\":1,"
              "\"leader_epoch\":0,\"isr\":[1,2]}"),
    ("0.10.2.2", "[PartitionsReassignedListener on Controller 2]: Partitions reassigned listener fired for path "
                      "/admin/reassign_partitions. Record partitions to be reassigned {\"version\":1,\"partitions\":"
                      "[{\"topic\":\"moves\",\"partition\":0,\"replicas\":[3,2]}]}"),
    ("0.8.0", "[PartitionsReassignedListener on 1]: Partitions reassigned listener fired for path "
              "/admin/reassign_partitions. Record partitions to be reassigned {\"partitions\":[{\"topic\":\"t\","
              "\"partition\":0,\"replicas\":[2,3]}]}"),
    ("0.10.2.2", "[PreferredReplicaElectionListener on Controller 2]: Preferred replica election listener fired for "
                      "path /admin/preferred_replica_election. Record partitions to undergo preferred replica election "
                      "{\"version\":1,\"partitions\":[{\"topic\":\"events\",\"partition\":1}]}"),
    ("0.9.0.1", "[PreferredReplicaElectionListener on 1]: Preferred replica election listener fired for path "
                "/admin/preferred_replica_election. Record partitions to undergo preferred replica election "
                "{\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}"),
    ("0.10.2.2 real", "[IsrChangeNotificationListener on Controller 2]: ISR change notification listener fired"),
    ("0.9.0.1 real", "[IsrChangeNotificationListener] Fired!!!"),
    ("0.10.2.2 real", "[delete-topics-thread-1], Starting "),
    ("0.10.2.2 real", "[delete-topics-thread-2], Handling deletion for topics doomed"),
    ("0.10.2.2 real", "[delete-topics-thread-2], Deletion of topic doomed (re)started"),
    ("0.10.2.2 real", "[delete-topics-thread-2], Deletion for replicas 2,1 for partition [doomed,0] of topic doomed in progress"),
    ("0.8.2.2", "[delete-topics-thread-12], Deletion of topic t successfully completed"),
    ("0.8.1.1", "[Partition state machine on Controller 1]: Invoking state change to OnlinePartition for partitions [t,0]"),
    ("0.9.0.1", "[Topic Deletion Manager 1], Handling deletion for topics t"),
    ("0.10.2.1", "[OfflinePartitionLeaderSelector]: Selected new leader and ISR {\"leader\":2,\"leader_epoch\":5,\"isr\":[2]} "
                 "for offline partition [t,0]"),
    ("0.10.2.1", "[PreferredReplicaPartitionLeaderSelector]: Current leader 2 for partition [t,0] is not the preferred replica. "
                 "Triggering preferred replica leader election"),
    ("0.8.2.2", "[PreferredReplicaPartitionLeaderSelector]: Current leader 2 for partition [t,0] is not the preferred replica. "
                "Trigerring preferred replica leader election"),
    ("2.2.0 real", "[Controller id=1] Leader imbalance ratio for broker 2 is 0.1282051282051282"),
    # checkAndTriggerAutoLeaderRebalance's DEBUG dumps (real: one-off captures with auto.leader.rebalance.enable on)
    ("2.4.1 real", "[Controller id=1] Preferred replicas by broker HashMap(1 -> HashMap(moves-0 -> List(1, 2), events-1 -> "
                   "List(1, 2, 3)), 2 -> HashMap(events-2 -> List(2, 3, 1), moves-1 -> ArrayBuffer(2, 3)))"),
    ("2.4.1 real", "[Controller id=3] Topics not in preferred replica for broker 1 HashMap(moves-0 -> List(1, 2), events-1 -> "
                   "List(1, 2, 3))"),
    ("3.9.2 real", "[Controller id=1] Topics not in preferred replica for broker 2 HashMap()"),
    ("0.8.2.2", "[Controller 1]: preferred replicas by broker Map(1 -> Map([t,0] -> List(1, 2)), 2 -> Map([t,1] -> List(2, 1)))"),
    ("0.8.2.2", "[Controller 1]: topics not in preferred replica Map([t,0] -> List(1, 2))"),
    ("0.9.0.1 real", "[Controller 1]: starting the partition rebalance scheduler"),
    ("0.9.0.1 real", "[Controller 3]: checking need to trigger partition rebalance"),
    ("1.0.2", "[Controller id=1] Topics not in preferred replica Map()"),
    ("2.2.0 real", "[Controller id=1] Partition T-TEST-0 failed to complete preferred replica leader election to 2. "
                   "Leader is still 0"),
    ("2.2.0", "[Controller id=1] Newly added brokers: , deleted brokers: , bounced brokers: 2, all live brokers: 1,2,3"),
    ("2.2.0", "[Controller id=1] Updated broker epochs cache: Map(1 -> 25, 2 -> 40)"),
    ("2.4.1", "[Controller id=1] Updating assignment of partition orders-0 from ReplicaAssignment(replicas=1,2,3, addingReplicas=, "
              "removingReplicas=) to ReplicaAssignment(replicas=4,5,6,1,2,3, addingReplicas=4,5,6, removingReplicas=1,2,3)"),
    ("2.4.1", "[Controller id=1] No more partitions need to be reassigned. Deleting zk path /admin/reassign_partitions"),
    ("3.3.2 real", "[Controller id=1001] Deleting log dir event notifications"),
    ("3.3.2 real", "[Controller id=1001] Initializing controller context"),
    ("3.3.2 real", "[Controller id=1001] Initialized broker epochs cache: HashMap(1001 -> 28)"),
    ("3.3.2 real", "[Controller id=1001] Register BrokerModifications handler for Set(1001)"),
    ("3.3.2 real", "[Controller id=1001] Currently shutting brokers in the cluster: HashSet()"),
    ("3.3.2 real", "[Controller id=1001] Current list of topics in the cluster: HashSet()"),
    ("3.3.2 real", "[Controller id=1001] Fetching topic deletions in progress"),
    ("3.3.2 real", "[Controller id=1001] List of topics to be deleted: "),
    ("3.3.2 real", "[Controller id=1001] List of topics ineligible for deletion: "),
    ("3.3.2 real", "[Controller id=1001] Initializing topic deletion manager"),
    ("3.3.2 real", "[Topic Deletion Manager 1001] Initializing manager with initial deletions: Set(), initial ineligible "
                   "deletions: HashSet()"),
    ("3.3.2 real", "[Controller id=1001] Sending update metadata request"),
    ("3.3.2 real", "[RequestSendThread controllerId=1001] Starting"),
    ("3.3.2 real", "[RequestSendThread controllerId=1001] Controller 1001 connected to kafka:29092 (id: 1001 rack: null) for "
                   "sending state change requests"),
    ("3.3.2 real", "[Channel manager on controller 1001]: Controller 1001 trying to connect to broker 1001"),
    ("3.3.2 real", "[ReplicaStateMachine controllerId=1001] Initializing replica state"),
    ("3.3.2 real", "[ReplicaStateMachine controllerId=1001] Triggering offline replica state changes"),
    ("3.3.2 real", "[PartitionStateMachine controllerId=1001] Started partition state machine with initial state -> HashMap()"),
    ("3.3.2 real", "[Controller id=1001] Partitions undergoing preferred replica election: "),
    ("3.3.2 real", "[Controller id=1001] Partitions that completed preferred replica election: "),
    ("3.3.2 real", "[Controller id=1001] Skipping preferred replica election for partitions due to topic deletion: "),
    ("3.3.2 real", "[Controller id=1001] Resuming preferred replica election for partitions: "),
    ("3.3.2 real", "[Controller id=1001] Starting the controller scheduler"),
    ("3.3.2 real", "[Controller id=1001] Processing automatic preferred replica leader election"),
    ("3.3.2 real", "[Controller id=1001] Checking need to trigger auto leader balancing"),
    ("3.3.2 real", "[Controller id=1001] New partition creation callback for kafka-ckpt-0"),
    ("2.8.1", "[Controller id=1] Resigned"),
    ("2.8.1", "[Controller id=1] Broker info update callback for 2"),
    # 3.9.2 real (tests/kafka_cluster captures, TRACE and INFO)
    ("3.9.2 real", "[Controller id=2] Updating ISRs for partitions: Set(events-1, events-2)."),
    ("3.9.2 real", "[Controller id=2] ISR for partition doomed-0 updated to LeaderAndIsr(leader=3, leaderEpoch=2, "
                   "isrWithBrokerEpoch=List(BrokerState(brokerId=3, brokerEpoch=-1), BrokerState(brokerId=2, brokerEpoch=-1), "
                   "BrokerState(brokerId=1, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=3)."),
    # 2.7-3.2 wrote the ISR and zkVersion alone (KafkaController.processAlterIsr @2.7.0, @3.2.3 sources jars);
    # 3.3.0 prints the whole LeaderAndIsr (above).
    ("2.8.2 real", "[Controller id=3] ISR for partition events-0 updated to [3,2,1] and zkVersion updated to [2]"),
    ("3.2.3", "[Controller id=1] ISR for partition orders-0 updated to [1,2] and zkVersion updated to [5]"),
    ("3.9.2 real", "[Controller id=2] Updating leader epoch for partition moves-1"),
    ("3.9.2 real", "[Controller id=2] Updated leader epoch for partition moves-1 to 2, zkVersion=3"),
    # KAFKA-13233 added the zkVersion in 2.7.2, 2.8.1 and 3.1.0 (KafkaController.updateLeaderEpoch, sources jars).
    ("2.7.2", "[Controller id=2] Updated leader epoch for partition moves-1 to 2, zkVersion=3"),
    ("3.0.2", "[Controller id=2] Updated leader epoch for partition moves-1 to 2"),
    ("2.8.0", "[Controller id=2] Updated leader epoch for partition moves-1 to 2"),
    ("3.9.2 real", "[Controller id=2] Waiting for any successful result for election type (PREFERRED) by AdminClientTriggered "
                   "for partitions: HashMap(events-2 -> Left(ApiError(error=ELECTION_NOT_NEEDED, message=Leader election not "
                   "needed for topic partition.)), moves-0 -> Right(1))"),
    ("3.9.2 real", "[Controller id=2] Delete topic callback invoked on StopReplica response received from broker 1: request "
                   "error = NONE, partition errors = Map(doomed-0 -> NONE)"),
    ("3.9.2 real", "[Controller id=1] Creating FeatureZNode at path: /feature with contents: FeatureZNode(2,Enabled,Map())"),
    ("3.9.2 real", "[Controller id=1] There is no producerId block yet (Zk path version 0), creating the first block"),
    ("3.9.2 real", "[Controller id=1] Read current producerId block ProducerIdsBlock(assignedBrokerId=3, firstProducerId=0, "
                   "size=1000), Zk path version 1"),
    ("3.9.2 real", "[Controller id=1] Acquired new producerId block ProducerIdsBlock(assignedBrokerId=3, firstProducerId=0, "
                   "size=1000) by writing to Zk with path version 1"),
    ("3.9.2 real", "[Controller id=2] All leaders = moves-1 -> (Leader:2,ISR:2,LeaderRecoveryState:RECOVERED,LeaderEpoch:1,"
                   "ZkVersion:1,ControllerEpoch:2),moves-0 -> (Leader:2,ISR:2,1,LeaderRecoveryState:RECOVERED,LeaderEpoch:2,"
                   "ZkVersion:3,ControllerEpoch:2)"),
    ("3.9.2 real", "[RequestSendThread controllerId=1] Controller 1's connection to broker 127.0.0.1:46429 (id: 1 rack: null) "
                   "was unsuccessful"),
    ("3.9.2 real", "[RequestSendThread controllerId=2] Controller 2 epoch 2 fails to send request (type=StopReplicaRequest, "
                   "controllerId=2, controllerEpoch=2, brokerEpoch=61, deletePartitions=false, topicStates=StopReplicaTopicState("
                   "topicName='moves', partitionStates=[StopReplicaPartitionState(partitionIndex=1, leaderEpoch=0, "
                   "deletePartition=false)])) to broker 127.0.0.1:52079 (id: 3 rack: null). Reconnecting to broker."),
    ("3.9.2 real", "[RequestSendThread controllerId=2] shutdownInitiated latch count reached zero. Shutdown called."),
    ("2.8.2 real", "[RequestSendThread controllerId=2] shutdownInitiated latch count reached zero. Shutdown called."),
    ("0.11.0.3 real", "[Controller 3]: Controller resigning, broker id 3"),
    ("2.4.1 real", "The stop replica request (delete = false) sent to broker 3 is StopReplicaRequestInfo([Topic=events,"
                   "Partition=1,Replica=3],false),StopReplicaRequestInfo([Topic=doomed,Partition=0,Replica=3],false)"),
    ("0.8.2.2", "The stop replica request (delete = true) sent to broker 3 is StopReplicaRequestInfo([Topic=orders,"
                "Partition=0,Replica=3],true,<function1>)"),
    ("2.4.1 real", "[Controller id=2] Sending MetadataRequest to Brokers: List(2, 3, 1) for TopicPartitions: "
                   "ArrayBuffer(doomed-0, moves-0, events-1)"),
    ("0.10.2.2", "[IsrChangeNotificationListener on Controller 1]: Sending MetadataRequest to Brokers:ArrayBuffer(1, 2) "
                 "for TopicAndPartitions:Set([t,0])"),
    ("1.0.2", "[Controller id=1] Sending MetadataRequest to Brokers:ArrayBuffer(1, 2) for TopicAndPartitions:Set(t-0)"),
    ("3.9.2 real", "[RequestSendThread controllerId=2] Controller 2 fails to send a request to broker 127.0.0.1:41453 "
                   "(id: 3 rack: null)"),
    # 0.8-1.0: the request thread's log ident is its name (ShutdownableThread, ControllerChannelManager)
    ("0.8.2.2", "[Controller-1-to-broker-2-send-thread], Starting "),
    ("0.8.2.2", "[Controller-1-to-broker-2-send-thread], Controller 1 connected to id:2,host:broker-2,port:9092 for "
                "sending state change requests"),
    ("0.10.2.2", "[Controller-1-to-broker-2-send-thread], Controller 1 epoch 3 fails to send request {controller_id=1,"
                 "controller_epoch=3,partition_states=[]} to broker broker-2:9092 (id: 2 rack: null). Reconnecting to broker."),
    ("0.11.0.3", "[Controller-1-to-broker-2-send-thread]: Controller 1's connection to broker broker-2:9092 (id: 2 rack: null) "
                 "was unsuccessful"),
    ("1.0.2", "[Controller-1-to-broker-2-send-thread]: Shutting down"),
    ("1.0.2", "[Controller-1-to-broker-2-send-thread]: Shutdown completed"),
    ("1.0.2", "[Controller-1-to-broker-2-send-thread]: Stopped"),
]
QUIET_SERVER = [
    ("0.8.2.2", "New leader is 2"),
    ("0.10.2.2", "Partition [t,0] on broker 1: No checkpointed highwatermark is found for partition t-0"),
    ("0.9.0.1 real", "Partition [events,0] on broker 1: No checkpointed highwatermark is found for partition [events,0]"),
    ("0.8.2.2", "Partition [t,0] on broker 1: No checkpointed highwatermark is found for partition [t,0]"),
    ("0.10.2.2", "Error while electing or becoming leader on broker 1"),
    ("2.8.1", "Creating /controller (is it secure? false)"),
    # What the controller could not do, and requests it turned away: each format filled in from the
    # sources jars of the releases named (a sweep of the ZooKeeper-mode controller's log calls).
    ("0.8.2.2", "[Partition state machine on Controller 1]: Error while moving some partitions to the online state"),
    ("3.9.0", "[PartitionStateMachine controllerId=1] Error while moving some partitions to OnlinePartition state"),
    ("0.8.2.2", "[Replica state machine on controller 1]: Error while moving some replicas to OfflineReplica state"),
    ("3.9.0", "[ReplicaStateMachine controllerId=1] Error while moving some replicas to OfflineReplica state"),
    ("2.7.2", "[PartitionStateMachine controllerId=1] Controller failed to elect leader for partition orders-0. Attempted "
              "to write state (Leader:2,ISR:2,LeaderEpoch:4,ControllerEpoch:3), but failed with bad ZK version. This "
              "will be retried."),
    ("3.9.0", "[ReplicaStateMachine controllerId=1] Controller failed to remove replica 3 from ISR of partition orders-0. "
              "Attempted to write state LeaderAndIsr(leader=1, leaderEpoch=5, isrWithBrokerEpoch=List(BrokerState("
              "brokerId=1, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=7), but failed with bad ZK "
              "version. This will be retried."),
    ("0.8.2.2", "[Channel manager on controller 1]: Error while removing broker by the controller"),
    ("0.9.0.1", "Haven't been able to send leader and isr requests, current state of the map is Map(2 -> Map([orders,0] "
                "-> PartitionStateInfo(...)))"),
    ("0.10.1.1", "Haven't been able to send metadata update requests, current state of the map is Map(). Exception "
                 "message: java.lang.IllegalStateException: Controller to broker state change requests batch is not empty"),
    ("3.9.0", "[Controller id=1] Haven't been able to send metadata update requests to brokers Set(2), current state of "
              "the partition info is HashMap(). Exception message: java.lang.IllegalStateException"),
    ("3.9.0", "[Controller id=1] Haven't been able to send stop replica requests, current state of the map is HashMap(). "
              "Exception message: java.lang.IllegalStateException"),
    ("0.11.0.3", "[controller-event-thread]: Error processing event TopicChange"),
    ("1.0.2", "[controller-event-thread]: Error while invoking listener for processed event TopicDeletion"),
    ("2.2.2", "[ControllerEventThread controllerId=1] Error while invoking listener for processed event TopicChange"),
    ("1.1.1", "[ControllerEventThread controllerId=1] Error processing event BrokerChange"),
    ("2.2.2", "[ControllerEventThread controllerId=1] Controller moved to another broker when processing TopicChange."),
    ("3.9.0", "[ControllerEventThread controllerId=1] Uncaught error processing event ControllerChange"),
    ("2.3.1", "[Controller id=1] Error processing event ControllerChange"),
    ("2.1.0", "[Controller id=1] Controller has already moved when trying to trigger controller movement"),
    ("2.4.1", "[Controller id=1] Failed completing reassignment of partition orders-0 because controller has moved to "
              "another broker"),
    ("2.5.1", "[ReplicaStateMachine controllerId=1] Adding replica (3) that is not part of the assignment Vector(1, 2)"),
    ("2.7.2", "[Controller id=1] Ignoring AlterIsr due to unknown broker 4"),
    ("2.8.2", "[Controller id=1] Ignoring AlterIsr due to stale broker epoch 25 for broker 2"),
    ("3.1.2", "[Controller id=1] Ignoring AlterIsr due to stale broker epoch 25 and local broker epoch 40 for broker 2"),
    ("3.2.3", "[Controller id=1] Ignoring AlterPartition due to unknown broker 4"),
    ("3.9.0", "[Controller id=1] Ignoring AlterPartition due to stale broker epoch 25 and local broker epoch 40 for broker 2"),
    ("3.2.3", "[Controller id=1] Rejecting AlterPartition from node 2 for orders-0 because leader is recovering and ISR "
              "is greater than 1: LeaderAndIsr(leader=2, leaderEpoch=3, isr=List(2, 3), leaderRecoveryState=RECOVERING, "
              "partitionEpoch=5)"),
    ("3.9.0", "[Controller id=1] Rejecting AlterPartition request from node 2 for orders-0 because it specified "
              "ineligible replicas Set(3) in the new ISR LeaderAndIsr(leader=2, leaderEpoch=3, isrWithBrokerEpoch=List(), "
              "leaderRecoveryState=RECOVERED, partitionEpoch=5)."),
    ("2.7.2", "[Controller id=1] Failed to update ISR for partition orders-0"),
    ("3.0.2", "[Controller id=1] Failed to update ISR for partition orders-0, bad ZK version"),
    ("3.9.0", "[Controller id=1] Failed to update ISR to LeaderAndIsr(leader=2, leaderEpoch=3, isrWithBrokerEpoch=List("
              "BrokerState(brokerId=2, brokerEpoch=30)), leaderRecoveryState=RECOVERED, partitionEpoch=5) for partition "
              "orders-0, bad ZK version."),
    ("1.1.1", "[Controller id=1] starting the token expiry check scheduler"),
    ("2.7.2", "[Controller id=1] Updating FeatureZNode at path: /feature with contents: FeatureZNode(Enabled,Features{})"),
    ("2.7.2", "[Controller id=1] FeatureZNode at path: /feature with disabled status contains non-empty features: "
              "Features{}"),
    ("3.9.0", "[Controller id=1] Ignoring registration of new brokers due to incompatibilities with finalized features: "
              "Set(3)"),
    ("2.7.2", "[Controller id=1] Processing of feature updates: UpdateFeaturesRequestData(timeoutMs=60000) failed due "
              "to error: ApiError(error=INVALID_REQUEST, message=null)"),
    ("3.0.2", "[Controller id=1] Ignoring AllocateProducerIds due to stale broker epoch 25 for broker 2"),
    ("1.1.1", "[Controller id=1] Reading controller epoch from ZooKeeper"),
    ("2.0.1", "[Controller id=1] Incrementing controller epoch in ZooKeeper"),
    ("0.8.2.2", "[Controller 1]: Error while incrementing controller epoch"),
    ("2.0.1", "[Controller id=1] Error while incrementing controller epoch"),
    ("1.1.1", "[Controller id=1] Updated broker: Broker(1,ArrayBuffer(EndPoint(broker1,9092,ListenerName(PLAINTEXT),"
              "PLAINTEXT)),Some(rack-a))"),
    ("0.10.2.2", "[Controller 1]: Error handling reassignment of partition [orders,0] to replicas 4,5,6 as it was never "
                 "created"),
    ("2.3.1", "[Controller id=1] Error handling reassignment of partition orders-0 to replicas 4,5,6 as it was never "
              "created"),
    ("1.1.1", "[Controller id=1] Ignoring request to reassign partition orders-0 that doesn't exist."),
    ("2.7.2", "[Controller id=1] Error when processing AlterIsr for partitions: ArrayBuffer(orders-0)"),
    ("3.2.3", "[Controller id=1] Error when processing AlterPartition for partitions: ArrayBuffer(orders-0)"),
    ("3.9.0", "[Controller id=1] Error when processing AlterPartition: AlterPartitionRequestData(brokerId=2, "
              "brokerEpoch=40, topics=[])"),
    ("2.2.0", "[Controller id=1] Received controlled shutdown request from an old broker epoch 25 for broker 2. Current "
              "broker epoch is 40."),
    ("2.4.1", "[Controller id=1] Received a ShutdownEventThread event. This type of event is supposed to be handle by "
              "ControllerEventThread"),
    # KafkaZkClient.checkedEphemeralCreate @1.1.1..@2.1.0 (the 2.2.0..3.9 sources have no such line)
    ("2.1.0", "Result of znode creation at /controller is: OK"),
    ("1.1.1", "Result of znode creation at /brokers/ids/1 is: OK"),
    ("2.0.1", "Registered broker 1 at path /brokers/ids/1 with addresses: ArrayBuffer(EndPoint(broker1,9092,"
              "ListenerName(PLAINTEXT),PLAINTEXT))"),
    ("3.9.0", "Updated broker 1 at path /brokers/ids/1 with addresses: ArrayBuffer(EndPoint(broker1,9092,"
              "ListenerName(PLAINTEXT),PLAINTEXT), EndPoint(broker1,9093,ListenerName(SSL),SSL))"),
    # A ZooKeeper session expired and re-established (KafkaZkClient CheckedEphemeral, sources jars)
    ("2.2.0", "Was not possible to create the ephemeral at /brokers/ids/1, node already exists and owner "
              "'72057618441846784' does not match current session '72057618441846785', trying to delete and re-create "
              "it with the newest Zookeeper session"),
    ("3.9.0", "Was not possible to create the ephemeral at /controller, node already exists and owner "
              "'0x1000008a3c40000' does not match current session '0x1000008a3c40001', trying to delete and re-create "
              "it with the newest Zookeeper session"),
    ("1.1.1", "The ephemeral node at /brokers/ids/1 went away while reading it, attempting create() again"),
    ("1.1.1", "Error while creating ephemeral at /brokers/ids/1, node already exists and owner '72057618441846784' "
              "does not match current session '72057618441846785'"),
    ("3.9.0", "Error while creating ephemeral at /brokers/ids/1 with return code: NODEEXISTS"),
    ("2.4.1", "Error while creating ephemeral at /brokers/ids/1 as it already exists and error getting the node data "
              "due to NONODE"),
    ("2.2.0", "Error while deleting ephemeral node at /brokers/ids/1 with return code: NONODE"),
    ("2.0.1", "Ignoring partition reassignment due to invalid json: Unexpected character ('}' (code 125))"),
    ("0.10.2.1", "[Kafka Server 1], starting"),
    ("2.8.1", "[KafkaServer id=1] shutting down"),
    ("3.3.2 real", "Kafka commitId: 96c5e882465d4b7e114ca6eae99d053ee5473929"),
    ("3.3.2 real", "Kafka startTimeMs: 1696171283090"),
    ("3.3.2 real", "Creating topic kafka-ckpt with configuration {} and initial partition assignment HashMap(0 -> ArrayBuffer(1001))"),
    # 3.9.2 real (server.log of the tests/kafka_cluster captures)
    ("3.9.2 real", "Creating /brokers/ids/1 (is it secure? false)"),
    ("3.9.2 real", "Stat of the created znode at /brokers/ids/1 is: 25,25,1795254441220,1795254441220,1,0,0,72058461132095488,"
                   "204,0,25"),
    ("3.9.2 real", "Registered broker 1 at path /brokers/ids/1 with addresses: PLAINTEXT://127.0.0.1:46429, czxid (broker "
                   "epoch): 25"),
    ("3.9.2 real", "Successfully created /controller_epoch with initial epoch 0"),
    ("3.9.2 real", "[Partition events-1 broker=1] No checkpointed highwatermark is found for partition events-1"),
    ("3.9.2 real", "[Partition events-1 broker=1] Log loaded for partition events-1 with initial high watermark 0"),
    ("4.3.1 real", "[Partition events-0 broker=1] Log loaded for partition events-0 with initial high watermark 0"),
    ("3.7.2", "[Partition orders-0 broker=1] Skipping creation of log because there are potentially offline log "
              "directories and log may already exist there. directoryId=AAAAAAAAAAAAAAAAAAAAAA, topicId=x5ZvGxZCQ9mNl3rB0AU_Ww, "
              "targetLogDirectoryId=AAAAAAAAAAAAAAAAAAAAAQ"),
    ("2.4.1", "[Partition orders-0 broker=1] Current log directory /data/a is same as requested log dir /data/a. Skipping "
              "future replica creation."),
    ("1.0.2", "[Partition orders-0 broker=1] Unexpected offset in append to orders-0. First offset 120 is less than log "
              "start offset 150. Since this is the first record to be appended to the follower's log, will start the log "
              "from offset 120."),
    ("4.3.1", "[Partition orders-0 broker=1] Unexpected offset in append to orders-0. First offset 120 is less than log "
              "start offset 150. Since this is the first record to be appended to the future replica's log, will start the "
              "log from offset 120."),
    ("3.7.2", "[Partition orders-0 broker=1] The replica state of replica ID:[3] doesn't exist in the leader node. It might "
              "because the topic is already deleted."),
    # 2.8 and before print every property; without the key (a hand-trimmed line) nothing is learnt.
    ("2.4.1", "Created log for partition t-0 in /data/t-0 with properties {compression.type -> producer, segment.ms -> 1000}."),
    ("2.4.1", "KafkaConfig values: \tadvertised.listeners = PLAINTEXT://127.0.0.1:9092\tzookeeper.connect = zk:2181"),
    ("0.8.2.2", "Verifying properties"),
    ("0.8.2.2", "Property zookeeper.connect is overridden to zk1:2181,zk2:2181/kafka"),
]


@pytest.mark.parametrize("release,message", QUIET + QUIET_SERVER, ids=[f"{r}: {m[:60]}" for r, m in QUIET + QUIET_SERVER])
def test_understood_without_event(release, message):
    found = run(message, release=release)
    assert found is not None, f"{release}: not understood"
    assert found[1] == []


# Near-miss garbage: truncated lines and wrong tokens are not understood ------------------------
GARBAGE = [
    "[Controller-1-to-broker-2-send-thread]: Controller 1 connected to",
    "[Controller-x-to-broker-2-send-thread]: Starting",
    "[Controller id=1] Ready to serve as the new controller with epoch",
    "[Controller id=1] Ready to serve as the new controller with epoch x",
    "[Controller 1]: Broker one is ready to serve as the new controller with epoch 5",
    "[Controller id=1] New broker startup callback for a,b",
    "[Controller id=1] New broker startup callback for ",
    "[Controller id=1] Broker failure callback for",
    "[Controller id=1] Shutting down broker",
    "[Controller id=1] Shutting down broker 3 now",
    "[Controller id=1] New topics: [Set(t)], deleted topics: [Set()]",
    "[Controller id=1] Handling reassignment of partition orders-0 to new replicas",
    "[Controller id=1] Handling reassignment of partition orders to new replicas 1,2",
    "[Controller id=1] Successfully updated assignment of partition orders-0 to ReplicaAssignment(replicas=4,5,6, addingReplicas=4",
    "[Controller id=1] Starting replica leader election (CLEAN) for partitions t-0 triggered by AutoTriggered",
    "[Controller id=1] Starting replica leader election (PREFERRED) for partitions t-0",
    "[Controller id=1] Starting topic deletion for topics",
    "[Controller id=1] Unclean leader election has been enabled for topic",
    "[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [t,0]. Elect leader x from live brokers 2. There's potential data loss.",
    "[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [t,0]. Elect leader 2 from live brokers 2,3.",
    "[Partition t-0 broker=1] Shrinking ISR from 1,2 to",
    "[Partition t-0 broker=1] Shrinking ISR from 1,2 to 1. Leader: (highWatermark: 5",
    "[Partition t-0 broker=1] Expanding ISR from 1 to one",
    "[Partition t-0 broker=1] ISR updated to [1,2] and zkVersion updated to [",
    "[Partition t-0 broker=1] ISR updated to  and version updated to 5",
    "Kafka version : ",
    "[Log partition=t-0, dir=/data] Truncating to offset",
    "[Log partition=t-0, dir=/data] Truncating to offset x",
    "Truncating log t-0 to offset 5",
    "Completed load of log t-0 with log end offset",
    "[Kafka Server x], started",
    "1 successfully elected as the controller. Epoch incremented to",
    "1 successfully elected as a leader",
    "[Controller id=2] ISR for partition doomed-0 updated to LeaderAndIsr(leader=3, leaderEpoch=2",
    "[Controller id=2] Updated leader epoch for partition moves-1 to 2, zkVersion=",
    "[Partition events-1 broker=1] Log loaded for partition events with initial high watermark 0",
    "Created log for partition t-0 in /data/t-0 with properties {unclean.leader.election.enable=true",
    "Created log for partition t in /data/t-0 with properties {}",
    "",
    "[",
]


@pytest.mark.parametrize("message", GARBAGE)
def test_near_miss_is_not_understood(message):
    assert run(message) is None


@pytest.mark.parametrize("message", ["Shrinking ISR from 1,2,3 to 1,2",
                                     "Cached zkVersion [5] not equal to that in zookeeper, skip updating ISR"])
def test_isr_change_without_partition_prefix_is_quarantined(message):
    # Kafka always writes the Partition logIdent; without it the leader (and for a failed write
    # the partition) is unknown. The builder raises, which ingest.lines turns into a quarantined record.
    with pytest.raises(ValueError):
        run(message, file_kind="server")


# The table itself ----------------------------------------------------------------------------

def test_rows_are_anchored_and_named_once():
    names = [p.name for p in PATTERNS]
    assert len(names) == len(set(names))
    for p in PATTERNS:
        assert p.regex.pattern.endswith("$"), p.name
        assert p.keyword == p.keyword.lower(), p.name
        assert p.last is None or parse_version(p.first) <= parse_version(p.last), p.name


def _events(cases):
    return [(release, e) for release, _, expected in cases for e in expected if "event_type" in e]


@pytest.mark.parametrize("release,event", _events(CASES) + _events(SERVER_CASES),
                         ids=[f"{r}: {e['event_type']}" for r, e in _events(CASES) + _events(SERVER_CASES)])
def test_events_are_replayable(release, event):
    assert set(event) <= set(EVENT_FIELD_NAMES)
    assert invalid_reason({"cluster": "c", "seq": 0, **event}) is None


def test_live_brokers_at_failover_are_a_fact_for_the_failover_that_follows():
    """3.3.2 real: the live set the new controller found, given to its ControllerFailover."""
    found = run("[Controller id=1001] Currently active brokers in the cluster: Set(1001, 1002)")
    assert found is not None and found[1] == [{"fact": "live_brokers", "brokers": [1001, 1002]}]


def _failover_outputs(lines: list[str]) -> list:
    path = "/logs/broker-2/controller.log"
    stamped = [f"[2026-11-26 01:57:35,{600 + i:03d}] INFO [Controller id=2] {text} (kafka.controller.KafkaController)"
               for i, text in enumerate(lines)]
    return [o for o in parse_file_lines(path, enumerate(stamped, 1)) if o.kind != "ignored"]


def test_a_failover_is_the_new_controllers_once_it_has_read_the_live_brokers():
    """Real 2.4.1 at INFO: between "Currently active brokers" and "Ready to serve ..." the new
    controller takes dead replicas offline and elects, and the brokers log what they receive (their
    files sort those lines before "Ready"). Where the election line names the epoch (2.1+) the
    ControllerFailover is the live brokers' line's, and Ready is no second one."""
    outs = _failover_outputs(["2 successfully elected as the controller. Epoch incremented to 2 and epoch zk version is now 2",
                              "Registering handlers",
                              "Currently active brokers in the cluster: Set(2, 3)",
                              "Ready to serve as the new controller with epoch 2"])
    assert [(o.line, o.kind) for o in outs] == [(1, "fact"), (2, "understood"), (3, "event"), (4, "understood")]
    failover = outs[2].data
    assert (failover["event_type"], failover["controller_id"], failover["controller_epoch"], failover["brokers"],
            failover["source_line"], failover["recording_broker"]) == ("ControllerFailover", 2, 2, [2, 3], 3, 2)
    assert failover["event_time_ms"] == outs[2].order_ts < outs[3].order_ts
    assert sum(o.n_lines for o in outs) == 4


def test_a_failover_no_line_before_ready_names_the_epoch_of_is_the_ready_lines():
    # An excerpt that lacks the line naming the new epoch: "Ready" is the first to print it.
    outs = _failover_outputs(["2 successfully elected as the controller", "Currently active brokers in the cluster: Set(2, 3)",
                              "Ready to serve as the new controller with epoch 2"])
    assert [(o.line, o.kind) for o in outs] == [(1, "fact"), (2, "fact"), (3, "event")]
    assert (outs[2].data["controller_epoch"], outs[2].data["brokers"]) == (2, [2, 3])


def test_from_1_1_to_2_0_the_epoch_increment_names_the_failovers_epoch():
    # KafkaController.onControllerFailover @1.1.0..@2.0.1: the election line names no epoch, but
    # incrementControllerEpoch logs "Epoch incremented to N" before the handlers are registered and
    # the context (the live brokers) is read; the new controller's decisions follow that, before "Ready".
    outs = _failover_outputs(["2 successfully elected as the controller", "Reading controller epoch from ZooKeeper",
                              "Initialized controller epoch to 1 and zk version 0", "Incrementing controller epoch in ZooKeeper",
                              "Epoch incremented to 2", "Registering handlers", "Deleting log dir event notifications",
                              "Deleting isr change notifications", "Initializing controller context",
                              "Currently active brokers in the cluster: Set(2, 3)",
                              "Currently shutting brokers in the cluster: Set()",
                              "Current list of topics in the cluster: Set(t)",
                              "Fetching topic deletions in progress", "List of topics to be deleted: ",
                              "List of topics ineligible for deletion: ", "Initializing topic deletion manager",
                              "Sending update metadata request",
                              "Ready to serve as the new controller with epoch 2"])
    assert [o.kind for o in outs] == ["fact"] + ["understood"] * 3 + ["fact"] + ["understood"] * 4 + ["event"] + \
        ["understood"] * 8
    failover = outs[9].data
    assert (failover["event_type"], failover["controller_id"], failover["controller_epoch"], failover["brokers"],
            failover["source_line"]) == ("ControllerFailover", 2, 2, [2, 3], 10)
    assert sum(o.n_lines for o in outs) == 18


def test_up_to_1_0_the_epoch_increment_names_the_failovers_epoch():
    # 1.0.2: "2 successfully elected as the controller", then "Incremented epoch to 2" before the live brokers.
    outs = _failover_outputs(["2 successfully elected as the controller", "Starting become controller state transition",
                              "Incremented epoch to 2", "Currently active brokers in the cluster: Set(2, 3)",
                              "Ready to serve as the new controller with epoch 2"])
    assert [(o.line, o.kind) for o in outs] == [(1, "fact"), (2, "understood"), (3, "fact"), (4, "event"), (5, "understood")]
    assert (outs[3].data["controller_id"], outs[3].data["controller_epoch"], outs[3].data["brokers"]) == (2, 2, [2, 3])
