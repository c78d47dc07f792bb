"""ingest.zk_state_change: every ZooKeeper-mode state-change.log message, 0.8.0 through 3.9.

Each fixture is a message (logIdent included, envelope removed) written from the format
string of the labelled Kafka release (spec kafka-log-formats §2.3-§2.6; lines labelled
3.4.1 are copied from a published docker-compose log of a 3.4-era broker). The test
strips the prefix, matches against this module's rows alone, and compares whole events."""
from __future__ import annotations

from typing import NamedTuple

import pytest

import ingest.zk_state_change as sc
from ingest.catalog import LineContext, index, match_message
from ingest.prefix import strip_prefix
from schemas.events import EVENT_FIELD_NAMES, EVENT_TYPE_NAMES
from state_machine.eras import parse_version

TABLE = index(sc.PATTERNS)


class Fixture(NamedTuple):
    version: str
    pattern: str
    message: str
    events: list
    level: str = "TRACE"
    continuation: str = ""


def ctl(controller: int, epoch: int) -> dict:
    """What a controller prefix (`Controller 1 epoch 2 ` / `[Controller id=1 epoch=2] `) adds."""
    return {"recording_broker": controller, "controller_id": controller, "controller_epoch": epoch}


def psc(topic, partition, from_state, to_state, **fields) -> dict:
    return {"event_type": "PartitionStateChange", "topic": topic, "partition": partition,
            "from_state": from_state, "to_state": to_state, **fields}


def rsc(topic, partition, replica, from_state, to_state, **fields) -> dict:
    return {"event_type": "ReplicaStateChange", "topic": topic, "partition": partition, "replica": replica,
            "from_state": from_state, "to_state": to_state, **fields}


def failed(topic, partition, from_state, to_state, detail, **fields) -> dict:
    return {"event_type": "StateChangeFailed", "topic": topic, "partition": partition,
            "from_state": from_state, "to_state": to_state, **fields, "detail": detail}


def lai(topic, partition, **fields) -> dict:
    return {"event_type": "LeaderAndIsr", "topic": topic, "partition": partition, **fields}


def received(topic, partition, **fields) -> dict:
    return {"event_type": "LeaderAndIsrReceived", "topic": topic, "partition": partition, **fields}


ILLEGAL_PARTITION_1_1 = (
    "java.lang.IllegalStateException: Partition orders-0 should be in one of NewPartition,OnlinePartition,"
    "OfflinePartition states before moving to OnlinePartition state. Instead it is in NonExistentPartition state\n"
    "\tat kafka.controller.ZkPartitionStateMachine.logInvalidTransition(PartitionStateMachine.scala:475)")
ILLEGAL_PARTITION_0_8 = (
    "java.lang.IllegalStateException: Partition [orders,0] should be in the NewPartition,OnlinePartition,"
    "OfflinePartition states before moving to OnlinePartition state. Instead it is in NonExistentPartition state")
ILLEGAL_REPLICA_0_8 = (
    "java.lang.AssertionError: assertion failed: Replica [Topic=orders,Partition=0,Replica=2] should be in the "
    "NewReplica,OnlineReplica,OfflineReplica,ReplicaDeletionIneligible states before moving to OfflineReplica "
    "state. Instead it is in NonExistentReplica state")
ILLEGAL_REPLICA_1_1 = (
    "java.lang.IllegalStateException: Replica [Topic=orders,Partition=0,Replica=2] should be in the NewReplica,"
    "OnlineReplica,OfflineReplica,ReplicaDeletionIneligible states before moving to OfflineReplica state. "
    "Instead it is in NonExistentReplica state")
NO_REPLICA_ONLINE_0_8 = (
    "kafka.common.NoReplicaOnlineException: No replica for partition [orders,0] is alive. Live brokers are: "
    "[Set()], Assigned replicas are: [List(1)]\n"
    "\tat kafka.controller.OfflinePartitionLeaderSelector.selectLeader(PartitionLeaderSelector.scala:75)")
ELECTION_FAILED_2_4 = ("kafka.common.StateChangeFailedException: Failed to elect leader for partition orders-0 "
                       "under strategy OfflinePartitionLeaderElectionStrategy(false)")

LAI_0_8 = "(Leader:1,ISR:1,2,LeaderEpoch:3,ControllerEpoch:2)"
STATE_INFO_0_8 = ("(LeaderAndIsrInfo:(Leader:1,ISR:1,2,LeaderEpoch:3,ControllerEpoch:2),ReplicationFactor:2),"
                  "AllReplicas:1,2)")
CKPT_LAI_STATE = ("LeaderAndIsrPartitionState(topicName='kafka-ckpt', partitionIndex=0, controllerEpoch=1, "
                  "leader=1001, leaderEpoch=0, isr=[1001], partitionEpoch=0, replicas=[1001], addingReplicas=[], "
                  "removingReplicas=[], isNew=true, leaderRecoveryState=0)")
CKPT_UM_STATE = ("UpdateMetadataPartitionState(topicName='kafka-ckpt', partitionIndex=0, controllerEpoch=1, "
                 "leader=1001, leaderEpoch=0, isr=[1001], zkVersion=0, replicas=[1001], offlineReplicas=[])")
TOPIC_ID = "Some(IXlBGhIoTUaimuoYjPyNRQ)"

FIXTURES = [
    # ---------------- partition state machine, 0.8.0 ----------------
    Fixture("0.8.0", "sc.partition.new.0_8_0",
            "Controller 1 epoch 2 changed partition [orders,0] state from NotExists to New with assigned replicas 1,2",
            [psc("orders", 0, "NonExistentPartition", "NewPartition", replicas=[1, 2], **ctl(1, 2))]),
    Fixture("0.8.0", "sc.partition.offline.0_8_0",
            "Controller 1 epoch 2 changed partition [orders,0] state from Online to Offline",
            [psc("orders", 0, "OnlinePartition", "OfflinePartition", **ctl(1, 2))]),
    Fixture("0.8.0", "sc.partition.nonexistent.0_8_0",
            "Controller 1 epoch 2 changed partition [orders,0] state from Offline to NotExists",
            [psc("orders", 0, "OfflinePartition", "NonExistentPartition", **ctl(1, 2))]),
    # 0.8.0 prints the state after setting it: always `from OnlinePartition`.
    Fixture("0.8.0", "sc.partition.online.leader.0_8",
            "Controller 1 epoch 2 changed partition [orders,0] from OnlinePartition to OnlinePartition with leader 2",
            [psc("orders", 0, "OnlinePartition", "OnlinePartition", leader=2, **ctl(1, 2))]),
    Fixture("0.10.2.2", "sc.partition.online.leader.0_8",
            "Controller 1 epoch 5 changed partition [my-topic.v2,3] from OfflinePartition to OnlinePartition with "
            "leader 2",
            [psc("my-topic.v2", 3, "OfflinePartition", "OnlinePartition", leader=2, **ctl(1, 5))]),
    # ---------------- partition state machine, 0.8.1 - 0.11 ----------------
    Fixture("0.8.2.2", "sc.partition.new.0_8_1",
            "Controller 1 epoch 2 changed partition [orders,0] state from NonExistentPartition to NewPartition with "
            "assigned replicas 1,2,3",
            [psc("orders", 0, "NonExistentPartition", "NewPartition", replicas=[1, 2, 3], **ctl(1, 2))]),
    Fixture("0.9.0.1", "sc.partition.state.0_8_1",
            "Controller 1 epoch 2 changed partition [orders,0] state from OnlinePartition to OfflinePartition",
            [psc("orders", 0, "OnlinePartition", "OfflinePartition", **ctl(1, 2))]),
    Fixture("0.11.0.3", "sc.partition.state.0_8_1",
            "Controller 1 epoch 2 changed partition [orders,0] state from OfflinePartition to NonExistentPartition",
            [psc("orders", 0, "OfflinePartition", "NonExistentPartition", **ctl(1, 2))]),
    Fixture("0.8.2.2", "sc.partition.election_started.0_8",
            "Controller 1 epoch 2 started leader election for partition [orders,0]", []),
    Fixture("0.8.2.2", "sc.partition.elected_offline.0_8",
            "Controller 1 epoch 2 elected leader 2 for Offline partition [orders,0]", []),
    Fixture("0.8.2.2", "sc.partition.failed.0_8",
            "Controller 1 epoch 2 initiated state change for partition [orders,0] from OfflinePartition to "
            "OnlinePartition failed",
            [failed("orders", 0, "OfflinePartition", "OnlinePartition",
                    "initiated state change for partition [orders,0] from OfflinePartition to OnlinePartition failed\n"
                    + NO_REPLICA_ONLINE_0_8, **ctl(1, 2))],
            level="ERROR", continuation=NO_REPLICA_ONLINE_0_8),
    Fixture("0.8.0", "sc.partition.failed.0_8",
            "Controller 1 epoch 2 initiated state change for partition [orders,0] from NonExistentPartition to "
            "OnlinePartition failed",
            [failed("orders", 0, "NonExistentPartition", "OnlinePartition",
                    "initiated state change for partition [orders,0] from NonExistentPartition to OnlinePartition "
                    "failed\n" + ILLEGAL_PARTITION_0_8, **ctl(1, 2))],
            level="ERROR", continuation=ILLEGAL_PARTITION_0_8),
    Fixture("0.10.2.2", "sc.partition.no_replica_alive.0_8",
            "Controller 1 epoch 2 encountered error during state change of partition [orders,0] from New to Online, "
            "assigned replicas are [1,2], live brokers are [Set(3)]. No assigned replica is alive.",
            [],
            level="ERROR"),
    Fixture("0.8.0", "sc.partition.path_exists.0_8",
            "Controller 1 epoch 2 encountered error while changing partition [orders,0]'s state from New to Online "
            'since LeaderAndIsr path already exists with value { "ISR":"1,2", "leader":"1", "leaderEpoch":"0" } and '
            "controller epoch 1",
            [],
            level="ERROR"),
    Fixture("0.8.2.2", "sc.partition.election_error.0_8",
            "Controller 1 epoch 2 encountered error while electing leader for partition [orders,0] due to: No other "
            "replicas in ISR 1 for [orders,0] besides shutting down brokers 1.",
            [],
            level="ERROR"),
    Fixture("0.8.2.2", "sc.partition.election_aborted.0_8",
            "Controller 1 epoch 2 aborted leader election for partition [orders,0] since the LeaderAndIsr path was "
            "already written by another controller. This probably means that the current controller 1 went through "
            "a soft failure and another controller was elected with epoch 3.", [], level="ERROR"),
    # ---------------- partition state machine, 1.0 ----------------
    # 1.0.0 made TopicAndPartition print as t-0 (TopicAndPartition.scala @1.0.0, @1.0.2); the lines
    # below are from a real 1.0.2 capture (tests/kafka_cluster, TRACE).
    Fixture("1.0.2", "sc.partition.new",
            "[Controller id=1 epoch=1] Changed partition events-2 state from NonExistentPartition to NewPartition "
            "with assigned replicas 2,1,3",
            [psc("events", 2, "NonExistentPartition", "NewPartition", replicas=[2, 1, 3], **ctl(1, 1))]),
    Fixture("1.0.2", "sc.partition.online.leader.1_0",
            "[Controller id=3 epoch=2] Changed partition moves-0 from OnlinePartition to OnlinePartition with leader 2",
            [psc("moves", 0, "OnlinePartition", "OnlinePartition", leader=2, **ctl(3, 2))]),
    Fixture("1.0.2", "sc.partition.state",
            "[Controller id=3 epoch=2] Changed partition doomed-0 state from OnlinePartition to OfflinePartition",
            [psc("doomed", 0, "OnlinePartition", "OfflinePartition", **ctl(3, 2))]),
    Fixture("1.0.2", "sc.partition.election_started.1_0",
            "[Controller id=3 epoch=2] Started leader election for partition events-1", []),
    Fixture("1.0.2", "sc.partition.elected_offline.1_0",
            "[Controller id=3 epoch=2] Elected leader 2 for Offline partition events-1", []),
    Fixture("1.0.2", "sc.partition.failed.1_0",
            "[Controller id=3 epoch=2] Initiated state change for partition unclean-0 from OfflinePartition to "
            "OnlinePartition failed",
            [failed("unclean", 0, "OfflinePartition", "OnlinePartition",
                    "Initiated state change for partition unclean-0 from OfflinePartition to OnlinePartition failed",
                    **ctl(3, 2))],
            level="ERROR"),
    # ---------------- partition state machine, 1.1 - 3.9 ----------------
    Fixture("2.4.1", "sc.partition.new",
            "[Controller id=1 epoch=2] Changed partition orders-0 state from NonExistentPartition to NewPartition with "
            "assigned replicas 1,2,3",
            [psc("orders", 0, "NonExistentPartition", "NewPartition", replicas=[1, 2, 3], **ctl(1, 2))]),
    Fixture("3.4.1", "sc.partition.new",
            "[Controller id=1001 epoch=1] Changed partition kafka-metrics-0 state from NonExistentPartition to "
            "NewPartition with assigned replicas 1001",
            [psc("kafka-metrics", 0, "NonExistentPartition", "NewPartition", replicas=[1001], **ctl(1001, 1))],
            level="INFO"),
    Fixture("1.1.1", "sc.partition.online.leaderandisr",
            "[Controller id=1 epoch=2] Changed partition orders-0 from OfflinePartition to OnlinePartition with state "
            "LeaderAndIsr(leader=2, leaderEpoch=5, isr=List(2), zkVersion=7)",
            [psc("orders", 0, "OfflinePartition", "OnlinePartition", leader=2, leader_epoch=5, isr=[2], zk_version=7,
                 **ctl(1, 2))]),
    Fixture("3.2.3", "sc.partition.online.leaderandisr.3_2",
            "[Controller id=1 epoch=2] Changed partition my-topic-v2-3 from OfflinePartition to OnlinePartition with "
            "state LeaderAndIsr(leader=2, leaderEpoch=5, isr=List(2), leaderRecoveryState=RECOVERING, zkVersion=7)",
            [psc("my-topic-v2", 3, "OfflinePartition", "OnlinePartition", leader=2, leader_epoch=5, isr=[2],
                 zk_version=7, leader_recovery_state="RECOVERING", **ctl(1, 2))],
            level="INFO"),
    Fixture("3.4.1", "sc.partition.online.leaderandisr.3_3",
            "[Controller id=1001 epoch=1] Changed partition kafka-ckpt-0 from NewPartition to OnlinePartition with "
            "state LeaderAndIsr(leader=1001, leaderEpoch=0, isr=List(1001), leaderRecoveryState=RECOVERED, "
            "partitionEpoch=0)",
            [psc("kafka-ckpt", 0, "NewPartition", "OnlinePartition", leader=1001, leader_epoch=0, isr=[1001],
                 zk_version=0, leader_recovery_state="RECOVERED", **ctl(1001, 1))],
            level="INFO"),
    Fixture("3.9.0", "sc.partition.online.leaderandisr.3_5",
            "[Controller id=1 epoch=4] Changed partition orders-0 from OnlinePartition to OnlinePartition with state "
            "LeaderAndIsr(leader=1, leaderEpoch=3, isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), "
            "BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=7)",
            [psc("orders", 0, "OnlinePartition", "OnlinePartition", leader=1, leader_epoch=3, isr=[1, 2],
                 zk_version=7, leader_recovery_state="RECOVERED", **ctl(1, 4))],
            level="INFO"),
    Fixture("2.5.1", "sc.partition.state",
            "[Controller id=1 epoch=2] Changed partition orders-0 state from OnlinePartition to OfflinePartition",
            [psc("orders", 0, "OnlinePartition", "OfflinePartition", **ctl(1, 2))]),
    Fixture("3.9.0", "sc.partition.state",
            "[Controller id=1 epoch=2] Changed partition orders-0 state from OfflinePartition to NonExistentPartition",
            [psc("orders", 0, "OfflinePartition", "NonExistentPartition", **ctl(1, 2))]),
    Fixture("2.4.1", "sc.partition.failed",
            "[Controller id=1002 epoch=520] Controller 1002 epoch 520 failed to change state for partition orders-0 "
            "from NonExistentPartition to OnlinePartition",
            [failed("orders", 0, "NonExistentPartition", "OnlinePartition",
                    "failed to change state for partition orders-0 from NonExistentPartition to OnlinePartition\n"
                    + ILLEGAL_PARTITION_1_1, **ctl(1002, 520))],
            level="ERROR", continuation=ILLEGAL_PARTITION_1_1),
    Fixture("3.9.0", "sc.partition.failed",
            "[Controller id=1 epoch=2] Controller 1 epoch 2 failed to change state for partition orders-0 from "
            "OfflinePartition to OnlinePartition",
            [failed("orders", 0, "OfflinePartition", "OnlinePartition",
                    "failed to change state for partition orders-0 from OfflinePartition to OnlinePartition\n"
                    + ELECTION_FAILED_2_4, **ctl(1, 2))],
            level="ERROR", continuation=ELECTION_FAILED_2_4),
    # ---------------- replica state machine ----------------
    Fixture("0.8.0", "sc.replica.change.0_8_0",
            "Controller 1 epoch 2 changed state of replica 2 for partition [orders,0] to OfflineReplica",
            [rsc("orders", 0, 2, None, "OfflineReplica", **ctl(1, 2))]),
    Fixture("0.8.2.2", "sc.replica.change.0_8_1",
            "Controller 1 epoch 2 changed state of replica 2 for partition [orders,0] from OnlineReplica to "
            "OfflineReplica",
            [rsc("orders", 0, 2, "OnlineReplica", "OfflineReplica", **ctl(1, 2))]),
    Fixture("1.0.2", "sc.replica.change",   # real
            "[Controller id=1 epoch=1] Changed state of replica 3 for partition events-0 from NonExistentReplica to "
            "NewReplica",
            [rsc("events", 0, 3, "NonExistentReplica", "NewReplica", **ctl(1, 1))]),
    Fixture("3.4.1", "sc.replica.change",
            "[Controller id=1001 epoch=1] Changed state of replica 1001 for partition kafka-ckpt-0 from "
            "NonExistentReplica to NewReplica",
            [rsc("kafka-ckpt", 0, 1001, "NonExistentReplica", "NewReplica", **ctl(1001, 1))]),
    Fixture("0.8.0", "sc.replica.failed.0_8_0",
            "Controller 1 epoch 2 initiated state change of replica 2 for partition [orders,0] to OnlineReplica failed",
            [failed("orders", 0, None, "OnlineReplica",
                    "initiated state change of replica 2 for partition [orders,0] to OnlineReplica failed",
                    replica=2, **ctl(1, 2))],
            level="ERROR"),
    Fixture("0.8.2.2", "sc.replica.failed.0_8_1",
            "Controller 1 epoch 2 initiated state change of replica 2 for partition [orders,0] from NonExistentReplica "
            "to OfflineReplica failed",
            [failed("orders", 0, "NonExistentReplica", "OfflineReplica",
                    "initiated state change of replica 2 for partition [orders,0] from NonExistentReplica to "
                    "OfflineReplica failed\n" + ILLEGAL_REPLICA_0_8, replica=2, **ctl(1, 2))],
            level="ERROR", continuation=ILLEGAL_REPLICA_0_8),
    Fixture("1.0.2", "sc.replica.failed.1_0",
            "[Controller id=1 epoch=2] Initiated state change of replica 2 for partition orders-0 from "
            "NonExistentReplica to OfflineReplica failed",
            [failed("orders", 0, "NonExistentReplica", "OfflineReplica",
                    "Initiated state change of replica 2 for partition orders-0 from NonExistentReplica to "
                    "OfflineReplica failed", replica=2, **ctl(1, 2))],
            level="ERROR"),
    Fixture("2.4.1", "sc.replica.failed",
            "[Controller id=1 epoch=2] Controller 1 epoch 2 initiated state change of replica 2 for partition orders-0 "
            "from NonExistentReplica to OfflineReplica failed",
            [failed("orders", 0, "NonExistentReplica", "OfflineReplica",
                    "initiated state change of replica 2 for partition orders-0 from NonExistentReplica to "
                    "OfflineReplica failed\n" + ILLEGAL_REPLICA_1_1, replica=2, **ctl(1, 2))],
            level="ERROR", continuation=ILLEGAL_REPLICA_1_1),
    # ---------------- controller -> broker requests ----------------
    # The sending controller's epoch (prefix) wins over the epoch stored with the value.
    Fixture("0.8.2.2", "sc.send.leaderandisr.0_8",
            "Controller 1 epoch 3 sending become-leader LeaderAndIsr request " + LAI_0_8 + " with correlationId 7 "
            "to broker 1 for partition [orders,0]",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], **ctl(1, 3))]),
    Fixture("0.10.2.2", "sc.send.leaderandisr.0_9",
            "Controller 1 epoch 2 sending become-follower LeaderAndIsr request " + LAI_0_8 + " to broker 2 for "
            "partition [orders,0]",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], **ctl(1, 2))]),
    Fixture("1.0.2", "sc.send.leaderandisr.1_0",
            "[Controller id=1 epoch=2] Sending become-leader LeaderAndIsr request PartitionState(controllerEpoch=2, "
            "leader=1, leaderEpoch=3, isr=1,2, zkVersion=4, replicas=1,2, isNew=false) to broker 1 for partition "
            "orders-0",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, **ctl(1, 2))]),
    Fixture("2.3.1", "sc.send.leaderandisr.1_0",
            "[Controller id=1 epoch=2] Sending become-follower LeaderAndIsr request PartitionState(controllerEpoch=2, "
            "leader=1, leaderEpoch=3, isr=1,2, zkVersion=4, replicas=1,2,3, addingReplicas=3, removingReplicas=, "
            "isNew=false) to broker 3 for partition orders-0",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, **ctl(1, 2))]),
    Fixture("2.4.1", "sc.send.leaderandisr",
            "[Controller id=1 epoch=2] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState("
            "topicName='orders', partitionIndex=0, controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], "
            "zkVersion=4, replicas=[1, 2], addingReplicas=[], removingReplicas=[], isNew=false) to broker 1 for "
            "partition orders-0",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, **ctl(1, 2))]),
    Fixture("3.2.3", "sc.send.leaderandisr.3_2",
            "[Controller id=1 epoch=2] Sending become-leader LeaderAndIsr request LeaderAndIsrPartitionState("
            "topicName='orders', partitionIndex=0, controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], "
            "zkVersion=4, replicas=[1, 2], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=1) "
            "to broker 1 for partition orders-0",
            [lai("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, leader_recovery_state="RECOVERING",
                 **ctl(1, 2))]),
    Fixture("3.4.1", "sc.send.leaderandisr.3_3",
            "[Controller id=1001 epoch=1] Sending become-leader LeaderAndIsr request " + CKPT_LAI_STATE
            + " to broker 1001 for partition kafka-ckpt-0",
            [lai("kafka-ckpt", 0, leader=1001, leader_epoch=0, isr=[1001], zk_version=0,
                 leader_recovery_state="RECOVERED", **ctl(1001, 1))]),
    Fixture("3.4.1", "sc.send.leaderandisr.summary",
            "[Controller id=1001 epoch=1] Sending LeaderAndIsr request to broker 1001 with 1 become-leader and 0 "
            "become-follower partitions", [], level="INFO"),
    Fixture("0.8.2.2", "sc.send.updatemetadata.0_8",
            "Controller 1 epoch 2 sending UpdateMetadata request " + LAI_0_8 + " with correlationId 8 to broker 3 for "
            "partition [orders,0]", []),
    Fixture("0.9.0.1", "sc.send.updatemetadata.0_9",
            "Controller 1 epoch 2 sending UpdateMetadata request " + LAI_0_8 + " to broker 3 for partition [orders,0]",
            []),
    Fixture("0.11.0.3", "sc.send.updatemetadata.0_9",
            "Controller 1 epoch 2 sending UpdateMetadata request " + LAI_0_8 + " to brokers Set(1, 2, 3) for "
            "partition [orders,0]", []),
    Fixture("1.1.1", "sc.send.updatemetadata.1_0",
            "[Controller id=1 epoch=2] Sending UpdateMetadata request PartitionState(controllerEpoch=2, leader=1, "
            "leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], offlineReplicas=[]) to brokers Set(1, 2) for "
            "partition orders-0", []),
    Fixture("2.5.1", "sc.send.updatemetadata.1_0",
            "[Controller id=1 epoch=2] Sending UpdateMetadata request UpdateMetadataPartitionState(topicName='orders', "
            "partitionIndex=0, controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], "
            "offlineReplicas=[]) to brokers HashSet(1, 2) for partition orders-0", []),
    Fixture("3.4.1", "sc.send.updatemetadata.summary",
            "[Controller id=1001 epoch=1] Sending UpdateMetadata request to brokers HashSet(1001) for 1 partitions",
            [], level="INFO"),
    Fixture("2.6.3", "sc.send.stopreplica",
            "[Controller id=1 epoch=2] Sending StopReplica request StopReplicaPartitionState(partitionIndex=0, "
            "leaderEpoch=5, deletePartition=false) to broker 2 for partition orders-0", []),
    Fixture("2.6.3", "sc.send.stopreplica.summary",
            "[Controller id=1 epoch=2] Sending StopReplica request for 1 replicas to broker 2", [], level="INFO"),
    Fixture("2.6.3", "sc.send.stopreplica.summary",
            "[Controller id=1 epoch=2] Sending StopReplica request (delete = true) for 3 replicas to broker 2", [],
            level="INFO"),
    # The response is a case-class toString; the broker is Broker.toString (`id:2,host:h2,port:9092`).
    Fixture("0.8.2.2", "sc.response.0_8",
            "Controller 1 epoch 2 received response LeaderAndIsrResponse(7,Map((orders,0) -> 0),0) for a request sent "
            "to broker id:2,host:h2,port:9092", []),
    Fixture("1.0.2", "sc.response.1_0",   # real
            "[Controller id=3 epoch=2] Received response {error_code=0,partitions=[{topic=moves,partition=1,"
            "error_code=11}]} for a request sent to broker 127.0.0.1:52427 (id: 3 rack: null)", []),
    Fixture("3.4.1", "sc.response",
            "[Controller id=1001 epoch=1] Received response UpdateMetadataResponseData(errorCode=0) for request "
            "UPDATE_METADATA with correlation id 2 sent to broker kafka:29092 (id: 1001 rack: null)", []),
    Fixture("2.4.1", "sc.response",
            "[Controller id=1 epoch=2] Received response {error_code=0,_tagged_fields={}} for request UPDATE_METADATA "
            "with correlation id 5 sent to broker kafka1:9092 (id: 1 rack: null)", []),
    Fixture("1.1.1", "sc.response.error",
            "[Controller id=1 epoch=2] Received error KAFKA_STORAGE_ERROR in LeaderAndIsr response "
            "LeaderAndIsrResponse(responses={orders-0=KAFKA_STORAGE_ERROR}, error=NONE) from broker 2", [],
            level="ERROR"),
    Fixture("2.5.1", "sc.response.error.update_metadata",   # KafkaController.processUpdateMetadataResponseReceived
            "[Controller id=1 epoch=2] Received error STALE_BROKER_EPOCH in UpdateMetadata response "
            "UpdateMetadataResponseData(errorCode=77) from broker 2", [], level="ERROR"),
    Fixture("0.10.2.2", "sc.reassign.sent.0_8",
            "Controller 1 epoch 2 sent LeaderAndIsr request (Leader:1,ISR:1,2,3,LeaderEpoch:4,ControllerEpoch:2) with "
            "new assigned replica list 1,2,3 to leader 1 for partition being reassigned [orders,0]",
            [lai("orders", 0, leader=1, leader_epoch=4, isr=[1, 2, 3], **ctl(1, 2))]),
    Fixture("2.3.1", "sc.reassign.sent.1_0",
            "[Controller id=1 epoch=2] Sent LeaderAndIsr request (Leader:1,ISR:1,2,3,LeaderEpoch:4,ControllerEpoch:2) "
            "with new assigned replica list 1,2,3 to leader 1 for partition being reassigned orders-0",
            [lai("orders", 0, leader=1, leader_epoch=4, isr=[1, 2, 3], **ctl(1, 2))]),
    Fixture("2.6.3", "sc.reassign.sent",
            "[Controller id=1 epoch=2] Sent LeaderAndIsr request (Leader:1,ISR:1,2,LeaderEpoch:4,ControllerEpoch:2) "
            "with new replica assignment ReplicaAssignment(replicas=1,2,3, addingReplicas=3, removingReplicas=) to "
            "leader 1 for partition being reassigned orders-0",
            [lai("orders", 0, leader=1, leader_epoch=4, isr=[1, 2], **ctl(1, 2))], level="INFO"),
    Fixture("3.2.3", "sc.reassign.sent.3_2",
            "[Controller id=1 epoch=2] Sent LeaderAndIsr request (Leader:1,ISR:1,2,LeaderRecoveryState:RECOVERED,"
            "LeaderEpoch:4,ZkVersion:9,ControllerEpoch:2) with new replica assignment ReplicaAssignment(replicas=1,2, "
            "addingReplicas=, removingReplicas=) to leader 1 for partition being reassigned orders-0",
            [lai("orders", 0, leader=1, leader_epoch=4, isr=[1, 2], zk_version=9, leader_recovery_state="RECOVERED",
                 **ctl(1, 2))], level="INFO"),
    Fixture("0.10.2.2", "sc.reassign.send_failed.0_8",
            "Controller 1 epoch 2 failed to send LeaderAndIsr request with new assigned replica list 1,2,3 to leader "
            "for partition being reassigned [orders,0]", [], level="ERROR"),
    Fixture("2.6.3", "sc.reassign.send_failed",
            "[Controller id=1 epoch=2] Failed to send LeaderAndIsr request with new replica assignment "
            "ReplicaAssignment(replicas=1,2,3, addingReplicas=3, removingReplicas=) to leader for partition being "
            "reassigned orders-0", [], level="ERROR"),
    Fixture("2.4.1", "sc.mark_offline",
            "[Controller id=1 epoch=2] Mark replicas orders-0,orders-1 on broker 2 as offline", [], level="INFO"),
    # The KRaft controller's requests to ZooKeeper brokers in a migration (kafka_2.13 sources jar of the release named)
    Fixture("3.6.2", "sc.migration.stop_replica_error",
            "[Controller id=3000] Received error NOT_CONTROLLER in StopReplica response StopReplicaResponseData(errorCode=41, "
            "partitionErrors=[]) from broker 2", [], level="ERROR"),
    Fixture("3.9.0", "sc.migration.stop_replica_error",
            "[Controller id=3000] Received error KAFKA_STORAGE_ERROR in StopReplica request for partition orders-0 from "
            "broker 2", [], level="ERROR"),
    Fixture("3.4.1", "sc.migration.offline",
            "[Controller id=3000] Found orders-0,orders-1 on broker 2 as offline", [], level="ERROR"),
    # 3.9.2, a real migration (tests/kafka_cluster/harness.py's ZkCluster and a KRaft controller, zookeeper.metadata.migration.enable)
    Fixture("3.9.2", "sc.migration.brokers",
            "Adding brokers Set(), removing brokers Set(2 : (EndPoint(127.0.0.1,52313,ListenerName(PLAINTEXT),PLAINTEXT)) : "
            "null : Features{(kraft.version -> SupportedVersionRange[min_version:0, max_version:1]), (metadata.version -> "
            "SupportedVersionRange[min_version:21, max_version:21])}).", [], level="INFO"),
    Fixture("3.9.2", "sc.broker.stray_partitions",
            "[Broker id=1] While handling full LeaderAndIsr request from KRaft controller 3000 with correlation id 1, found "
            "0 stray partition(s).", [], level="INFO"),
    # ---------------- broker side ----------------
    # 0.8-0.11 print the replicas from a Set: not in assignment order, so not kept.
    Fixture("0.8.2.2", "sc.broker.received.0_8",
            "Broker 2 received LeaderAndIsr request " + STATE_INFO_0_8 + " correlation id 7 from controller 1 epoch 2 "
            "for partition [orders,0]",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], controller_id=1, controller_epoch=2,
                      recording_broker=2)]),
    Fixture("0.10.0.1", "sc.broker.received.0_10",
            "Broker 2 received LeaderAndIsr request PartitionState(controllerEpoch=2, leader=1, leaderEpoch=3, "
            "isr=[1, 2], zkVersion=4, replicas=[1, 2]) correlation id 7 from controller 1 epoch 2 for partition "
            "[orders,0]",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, controller_id=1,
                      controller_epoch=2, recording_broker=2)]),
    Fixture("1.0.2", "sc.broker.received.1_0",
            "[Broker id=2] Received LeaderAndIsr request PartitionState(controllerEpoch=2, leader=1, leaderEpoch=3, "
            "isr=1,2, zkVersion=4, replicas=1,2, isNew=false) correlation id 7 from controller 1 epoch 2 for partition "
            "orders-0",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, replicas=[1, 2],
                      controller_id=1, controller_epoch=2, recording_broker=2)]),
    Fixture("3.2.3", "sc.broker.received.3_2",
            "[Broker id=2] Received LeaderAndIsr request LeaderAndIsrPartitionState(topicName='orders', "
            "partitionIndex=0, controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], "
            "addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) correlation id 7 from "
            "controller 1 epoch 2",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, replicas=[1, 2],
                      leader_recovery_state="RECOVERED", controller_id=1, controller_epoch=2, recording_broker=2)]),
    Fixture("3.4.1", "sc.broker.received.3_3",
            "[Broker id=1001] Received LeaderAndIsr request " + CKPT_LAI_STATE + " correlation id 1 from controller "
            "1001 epoch 1",
            [received("kafka-ckpt", 0, leader=1001, leader_epoch=0, isr=[1001], zk_version=0,
                      leader_recovery_state="RECOVERED", replicas=[1001], controller_id=1001, controller_epoch=1,
                      recording_broker=1001)]),
    Fixture("2.4.1", "sc.broker.received",
            "[Broker id=2] Received LeaderAndIsr request LeaderAndIsrPartitionState(topicName='orders', "
            "partitionIndex=0, controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], "
            "addingReplicas=[], removingReplicas=[], isNew=false) correlation id 7 from controller 1 epoch 2",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, replicas=[1, 2],
                      controller_id=1, controller_epoch=2, recording_broker=2)]),
    Fixture("0.9.0.1", "sc.broker.cached.0_8",
            "Broker 2 cached leader info " + STATE_INFO_0_8 + " for partition [orders,0] in response to UpdateMetadata "
            "request sent by controller 1 epoch 2 with correlation id 8",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], controller_id=1, controller_epoch=2,
                      recording_broker=2)]),
    Fixture("0.11.0.3", "sc.broker.cached.0_10",   # real
            "Broker 1 cached leader info (LeaderAndIsrInfo:(Leader:3,ISR:3,1,2,LeaderEpoch:0,ControllerEpoch:1),"
            "ReplicationFactor:3),AllReplicas:3,1,2) for partition events-0 in response to UpdateMetadata request sent "
            "by controller 1 epoch 1 with correlation id 4",
            [received("events", 0, leader=3, leader_epoch=0, isr=[3, 1, 2], controller_id=1,
                      controller_epoch=1, recording_broker=1)]),
    Fixture("0.11.0.3", "sc.broker.stopped_fetchers.follower.0_8",   # real
            "Broker 1 stopped fetchers as part of become-follower request from controller 1 epoch 1 with correlation "
            "id 3 for partition events-0", []),
    Fixture("0.11.0.3", "sc.broker.skipped_fetcher.0_8",   # real
            "Broker 3 skipped the adding-fetcher step of the become-follower state change with correlation id 7 from "
            "controller 2 epoch 2 for partition events-0 since it is shutting down", []),
    Fixture("1.1.1", "sc.broker.cached.1_0",
            "[Broker id=2] Cached leader info PartitionState(controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], "
            "zkVersion=4, replicas=[1, 2], offlineReplicas=[]) for partition orders-0 in response to UpdateMetadata "
            "request sent by controller 1 epoch 2 with correlation id 8",
            [received("orders", 0, leader=1, leader_epoch=3, isr=[1, 2], zk_version=4, replicas=[1, 2],
                      controller_id=1, controller_epoch=2, recording_broker=2)]),
    Fixture("3.4.1", "sc.broker.cached",
            "[Broker id=1001] Cached leader info " + CKPT_UM_STATE + " for partition kafka-ckpt-0 in response to "
            "UpdateMetadata request sent by controller 1001 epoch 1 with correlation id 2",
            [received("kafka-ckpt", 0, leader=1001, leader_epoch=0, isr=[1001], zk_version=0, replicas=[1001],
                      controller_id=1001, controller_epoch=1, recording_broker=1001)]),
    Fixture("2.6.3", "sc.broker.leader_starts.2_6",
            "[Broker id=2] Leader orders-0 starts at leader epoch 5 from offset 120 with high watermark 118 ISR [2,3] "
            "addingReplicas [] removingReplicas []. Previous leader epoch was 4.",
            [received("orders", 0, leader=2, leader_epoch=5, isr=[2, 3], log_end_offset=120, high_watermark=118,
                      recording_broker=2)], level="INFO"),
    # Without the [Broker id=N] prefix the line does not say who the leader is.
    Fixture("2.8.2", "sc.broker.leader_starts.2_6",
            "Leader orders-0 starts at leader epoch 5 from offset 120 with high watermark 118 ISR [2,3] addingReplicas "
            "[] removingReplicas []. Previous leader epoch was 4.", [], level="INFO"),
    Fixture("3.4.1", "sc.broker.leader_starts.3_3",
            "[Broker id=1001] Leader kafka-ckpt-0 with topic id Some(JEBHuSVSTC-4b0wSYaiylg) starts at leader epoch 0 "
            "from offset 0 with partition epoch 0, high watermark 0, ISR [1001], adding replicas [] and removing "
            "replicas []. Previous leader epoch was -1.",
            [received("kafka-ckpt", 0, leader=1001, leader_epoch=0, isr=[1001], zk_version=0, log_end_offset=0,
                      high_watermark=0, recording_broker=1001)],
            level="INFO"),
    Fixture("3.5.2", "sc.broker.leader_starts.3_5",
            f"[Broker id=2] Leader orders-0 with topic id {TOPIC_ID} starts at leader epoch 5 from offset 120 with "
            "partition epoch 9, high watermark 118, ISR [2,3], adding replicas [] and removing replicas [] . Previous "
            "leader epoch was 4.",
            [received("orders", 0, leader=2, leader_epoch=5, isr=[2, 3], zk_version=9, log_end_offset=120,
                      high_watermark=118, recording_broker=2)],
            level="INFO"),
    Fixture("3.5.2", "sc.broker.leader_starts.3_5",
            f"[Broker id=2] Leader orders-0 with topic id {TOPIC_ID} starts at leader epoch 5 from offset 120 with "
            "partition epoch 9, high watermark 118, ISR [2], adding replicas [] and removing replicas [] "
            "(under-min-isr). Previous leader epoch was 4.",
            [received("orders", 0, leader=2, leader_epoch=5, isr=[2], zk_version=9, log_end_offset=120,
                      high_watermark=118, recording_broker=2)],
            level="INFO"),
    Fixture("3.9.0", "sc.broker.leader_starts",
            f"[Broker id=2] Leader orders-0 with topic id {TOPIC_ID} starts at leader epoch 5 from offset 120 with "
            "partition epoch 9, high watermark 118, ISR [2,3], adding replicas [] and removing replicas [] . Previous "
            "leader None and previous leader epoch was -1.",
            [received("orders", 0, leader=2, leader_epoch=5, isr=[2, 3], zk_version=9, log_end_offset=120,
                      high_watermark=118, recording_broker=2)],
            level="INFO"),
    Fixture("3.6.2", "sc.broker.leader_starts",
            f"[Broker id=2] Leader orders-0 with topic id {TOPIC_ID} starts at leader epoch 6 from offset 130 with "
            "partition epoch 11, high watermark 130, ISR [2], adding replicas [] and removing replicas [] "
            "(under-min-isr). Previous leader Some(3) and previous leader epoch was 5.",
            [received("orders", 0, leader=2, leader_epoch=6, isr=[2], zk_version=11, log_end_offset=130,
                      high_watermark=130, recording_broker=2)],
            level="INFO"),
    Fixture("2.6.3", "sc.broker.follower_starts.2_6",
            "[Broker id=3] Follower orders-0 starts at leader epoch 5 from offset 118 with high watermark 118. "
            "Previous leader epoch was 4.",
            [{"event_type": "LogEndOffsetObserved", "topic": "orders", "partition": 0, "log_end_offset": 118,
              "high_watermark": 118, "recording_broker": 3}], level="INFO"),
    # 3.6+: `Previous leader Some(2) ... was 5` repeats the new values (the known bug): ignored.
    Fixture("3.4.1", "sc.broker.follower_starts.3_3",   # Partition.scala makeFollower @3.4.1 (sources jar)
            "[Broker id=3] Follower orders-0 starts at leader epoch 5 from offset 118 with partition epoch 9 and high "
            "watermark 118. Current leader is 2. Previous leader epoch was 4.",
            [received("orders", 0, leader=2, leader_epoch=5, zk_version=9, log_end_offset=118, high_watermark=118,
                      recording_broker=3)], level="INFO"),
    Fixture("3.9.0", "sc.broker.follower_starts",
            "[Broker id=3] Follower orders-0 starts at leader epoch 5 from offset 118 with partition epoch 9 and high "
            "watermark 118. Current leader is 2. Previous leader Some(2) and previous leader epoch was 5.",
            [received("orders", 0, leader=2, leader_epoch=5, zk_version=9, log_end_offset=118, high_watermark=118,
                      recording_broker=3)], level="INFO"),
    Fixture("0.8.2.2", "sc.broker.skipped.0_8",
            "Broker 2 skipped the become-leader state change after marking its partition as leader with correlation "
            "id 7 from controller 1 epoch 2 for partition [orders,0] since it is already the leader for the "
            "partition.", [], level="INFO"),
    Fixture("2.4.1", "sc.broker.skipped",
            "[Broker id=2] Skipped the become-leader state change after marking its partition as leader with "
            "correlation id 7 from controller 1 epoch 2 for partition orders-0 (last update controller epoch 2) since "
            "it is already the leader for the partition.", [], level="INFO"),
    Fixture("1.0.2", "sc.broker.skipped_fetcher",   # ReplicaManager.makeFollowers @1.0.2: no leader yet
            "[Broker id=3] Skipped the adding-fetcher step of the become-follower state change with correlation id 13 "
            "from controller 2 epoch 2 for partition doomed-0 since it is shutting down", []),
    Fixture("3.9.2", "sc.broker.skipped_fetcher",  # real (TRACE capture)
            "[Broker id=3] Skipped the adding-fetcher step of the become-follower state change with correlation id 13 "
            "from controller 2 epoch 2 for partition doomed-0 with leader 1 since it is shutting down", []),
    Fixture("0.8.0", "sc.broker.discarded.0_8_0",
            "Broker 2 discarded the become-leader request with correlation id 7 from controller 1 epoch 2 for "
            "partition [orders,0] since current leader epoch 3 is >= the request's leader epoch 3", []),
    Fixture("0.8.2.2", "sc.broker.handling.0_8",
            "Broker 2 handling LeaderAndIsr request correlationId 7 from controller 1 epoch 2 starting the "
            "become-leader transition for partition [orders,0]", []),
    Fixture("3.4.1", "sc.broker.handling",
            "[Broker id=1001] Handling LeaderAndIsr request correlationId 1 from controller 1001 epoch 1 starting the "
            "become-leader transition for partition kafka-ckpt-0", []),
    Fixture("0.8.2.2", "sc.broker.completed.0_8",
            "Broker 2 completed LeaderAndIsr request correlationId 7 from controller 1 epoch 2 for the become-follower "
            "transition for partition [orders,0]", []),
    Fixture("3.4.1", "sc.broker.completed",
            "[Broker id=1001] Completed LeaderAndIsr request correlationId 1 from controller 1001 epoch 1 for the "
            "become-leader transition for partition kafka-ckpt-0", []),
    Fixture("3.9.2", "sc.broker.completed",  # real (TRACE capture): become-follower names the leader
            "[Broker id=1] Completed LeaderAndIsr request correlationId 3 from controller 1 epoch 1 for the "
            "become-follower transition for partition events-2 with leader 2", []),
    Fixture("0.8.2.2", "sc.broker.stopped_fetchers.0_8",
            "Broker 2 stopped fetchers as part of become-leader request from controller 1 epoch 2 with correlation id "
            "7 for partition [orders,0]", []),
    Fixture("2.4.1", "sc.broker.stopped_fetchers.1_0",   # ReplicaManager.makeLeaders @1.0.2..@2.5.1
            "[Broker id=2] Stopped fetchers as part of become-leader request from controller 1 epoch 2 with "
            "correlation id 7 for partition orders-0 (last update controller epoch 2)", []),
    Fixture("1.1.1", "sc.broker.stopped_fetchers.follower.1_0",   # ReplicaManager.makeFollowers @1.1.1
            "[Broker id=3] Stopped fetchers as part of become-follower request from controller 1 epoch 2 with "
            "correlation id 7 for partition orders-0", []),
    Fixture("2.5.1", "sc.broker.stopped_fetchers.follower.1_0",   # 2.0 adds the leader
            "[Broker id=3] Stopped fetchers as part of become-follower request from controller 1 epoch 2 with "
            "correlation id 7 for partition orders-0 with leader 2", []),
    Fixture("1.0.2", "sc.broker.truncated.1_0",
            "[Broker id=3] Truncated logs and checkpointed recovery boundaries for partition orders-0 as part of "
            "become-follower request with correlation id 7 from controller 1 epoch 2", []),
    Fixture("2.0.1", "sc.broker.truncated.1_0",
            "[Broker id=3] Truncated logs and checkpointed recovery boundaries for partition orders-0 as part of "
            "become-follower request with correlation id 7 from controller 1 epoch 2 with leader 2", []),
    Fixture("0.8.2.2", "sc.broker.truncated.0_8",
            "Broker 3 truncated logs and checkpointed recovery boundaries for partition [orders,0] as part of "
            "become-follower request with correlation id 7 from controller 1 epoch 2", []),
    Fixture("0.8.2.2", "sc.broker.started_fetcher.0_8",
            "Broker 3 started fetcher to new leader as part of become-follower request from controller 1 epoch 2 with "
            "correlation id 7 for partition [orders,0]", []),
    Fixture("1.1.1", "sc.broker.started_fetcher",
            "[Broker id=3] Started fetcher to new leader as part of become-follower request from controller 1 epoch 2 "
            "with correlation id 7 for partition orders-0", []),
    Fixture("2.0.1", "sc.broker.started_fetcher",   # 2.0 adds the leader
            "[Broker id=3] Started fetcher to new leader as part of become-follower request from controller 1 epoch 2 "
            "with correlation id 7 for partition orders-0 with leader 2", []),
    Fixture("0.8.2.2", "sc.broker.ignoring.0_8",
            "Broker 2 ignoring LeaderAndIsr request from controller 1 with correlation id 7 since its controller epoch "
            "1 is old. Latest known controller epoch is 2", [], level="WARN"),
    Fixture("2.4.1", "sc.broker.ignoring",
            "[Broker id=2] Ignoring LeaderAndIsr request from controller 1 with correlation id 7 since its controller "
            "epoch 1 is old. Latest known controller epoch is 2", [], level="WARN"),
    Fixture("0.8.2.2", "sc.broker.cannot_follow.0_8",
            "Broker 2 received LeaderAndIsrRequest with correlation id 7 from controller 1 epoch 2 for partition "
            "[orders,0] but cannot become follower since the new leader 3 is unavailable.", [], level="ERROR"),
    Fixture("1.0.2", "sc.broker.cannot_follow",   # ReplicaManager.makeFollowers @1.0.2
            "[Broker id=2] Received LeaderAndIsrRequest with correlation id 3 from controller 2 epoch 2 for partition "
            "doomed-0 (last update controller epoch 2) but cannot become follower since the new leader -1 is "
            "unavailable.", [], level="ERROR"),
    Fixture("3.9.2", "sc.broker.cannot_follow",  # real (TRACE and INFO captures)
            "[Broker id=2] Received LeaderAndIsrRequest with correlation id 3 from controller 2 epoch 2 for partition "
            "doomed-0 (last update controller epoch 2) but cannot become follower since the new leader -1 is "
            "unavailable.", [], level="ERROR"),
    Fixture("0.8.2.2", "sc.broker.stop_replica.0_8",
            "Broker 2 handling stop replica (delete=false) for partition [orders,0]", []),
    Fixture("0.8.2.2", "sc.broker.stop_replica_done.0_8",
            "Broker 2 finished handling stop replica (delete=false) for partition [orders,0]", []),
    Fixture("2.4.1", "sc.broker.stop_replica.1_0",
            "[Broker id=2] Handling stop replica (delete=true) for partition orders-0", []),
    Fixture("2.4.1", "sc.broker.stop_replica_done.1_0",
            "[Broker id=2] Finished handling stop replica (delete=true) for partition orders-0", []),
    Fixture("0.8.2.2", "sc.broker.deleted.0_8",
            "Broker 2 deleted partition [orders,0] from metadata cache in response to UpdateMetadata request sent by "
            "controller 1 epoch 2 with correlation id 8", []),
    Fixture("2.4.1", "sc.broker.deleted",
            "[Broker id=2] Deleted partition orders-0 from metadata cache in response to UpdateMetadata request sent "
            "by controller 1 epoch 2 with correlation id 8", []),
    Fixture("3.4.1", "sc.broker.handling.summary",
            "[Broker id=1001] Handling LeaderAndIsr request correlationId 1 from controller 1001 for 1 partitions", [],
            level="INFO"),
    Fixture("3.4.1", "sc.broker.stopped_fetchers.leader.summary",
            "[Broker id=1001] Stopped fetchers as part of LeaderAndIsr request correlationId 1 from controller 1001 "
            "epoch 1 as part of the become-leader transition for 1 partitions", [], level="INFO"),
    Fixture("2.6.3", "sc.broker.stopped_fetchers.follower.summary",
            "[Broker id=3] Stopped fetchers as part of become-follower request from controller 1 epoch 2 with "
            "correlation id 7 for 1 partitions", [], level="INFO"),
    Fixture("3.4.1", "sc.broker.finished.summary",
            "[Broker id=1001] Finished LeaderAndIsr request in 142ms correlationId 1 from controller 1001 for 1 "
            "partitions", [], level="INFO"),
    Fixture("2.6.3", "sc.broker.stop_replica.summary",
            "[Broker id=2] Handling StopReplica request correlationId 9 from controller 1 for 3 partitions", [],
            level="INFO"),
    Fixture("3.4.1", "sc.broker.cache.summary",
            "[Broker id=1001] Add 1 partitions and deleted 0 partitions from metadata cache in response to "
            "UpdateMetadata request sent by controller 1001 epoch 1 with correlation id 2", [], level="INFO"),
    Fixture("3.9.2", "sc.broker.stop_replica.received",  # real (TRACE capture)
            "[Broker id=1] Received StopReplica request StopReplicaPartitionState(partitionIndex=0, leaderEpoch=5, "
            "deletePartition=false) correlation id 31 from controller 2 epoch 2 for partition moves-0", []),
    Fixture("3.9.2", "sc.broker.stop_replica.received",  # real: a partition being deleted (leader epoch -2)
            "[Broker id=1] Received StopReplica request StopReplicaPartitionState(partitionIndex=0, leaderEpoch=-2, "
            "deletePartition=false) correlation id 41 from controller 2 epoch 2 for partition doomed-0", []),
    Fixture("2.8.2", "sc.broker.stop_replica.ignored.same_epoch",  # real (INFO capture): controlled shutdown
            "[Broker id=2] Ignoring StopReplica request (delete=false) from controller 3 with correlation id 14 epoch 2 "
            "for partition events-0 since its associated leader epoch 1 matches the current leader epoch", [],
            level="INFO"),
    Fixture("3.9.2", "sc.broker.stop_replica.ignored",   # ReplicaManager.stopReplicas @3.9.1
            "[Broker id=2] Ignoring StopReplica request (delete=true) from controller 3 with correlation id 14 epoch 2 "
            "for partition events-0 since its associated leader epoch 1 is smaller than the current leader epoch 2", [],
            level="WARN"),
    Fixture("2.6.3", "sc.broker.stop_replica.ignored",
            "[Broker id=2] Ignoring StopReplica request (delete=false) from controller 3 with correlation id 14 epoch 2 "
            "for partition events-0 as the local replica for the partition is in an offline log directory", [],
            level="WARN"),
    Fixture("2.8.2", "sc.broker.stop_replica.ignored",
            "[Broker id=2] Ignoring StopReplica request (delete=true) from controller 3 with correlation id 14 epoch 2 "
            "for partition events-0 due to an unexpected java.io.IOException exception: disk gone", [],
            level="ERROR"),
    Fixture("3.9.2", "sc.broker.stop_replica.ignored.stale",
            "[Broker id=2] Ignoring StopReplica request from controller 1 with correlation id 7 since its controller "
            "epoch 1 is old. Latest known controller epoch is 2", [], level="WARN"),
    Fixture("3.9.2", "sc.replica.isr_removal.3_2",  # real (INFO capture)
            "[Controller id=2 epoch=2] Partition events-2 state changed to (Leader:2,ISR:2,3,LeaderRecoveryState:"
            "RECOVERED,LeaderEpoch:1,ZkVersion:1,ControllerEpoch:2) after removing replica 1 from the ISR as part of "
            "transition to OfflineReplica",
            [lai("events", 2, leader=2, leader_epoch=1, isr=[2, 3], zk_version=1, leader_recovery_state="RECOVERED",
                 replica=1, **ctl(2, 2))], level="INFO"),
    Fixture("2.6.3", "sc.replica.isr_removal",  # ReplicaStateMachine.scala @2.6.3 (2.6 added it): the leader went offline
            "[Controller id=1 epoch=3] Partition orders-0 state changed to (Leader:-1,ISR:2,LeaderEpoch:4,"
            "ControllerEpoch:3) after removing replica 1 from the ISR as part of transition to OfflineReplica",
            [lai("orders", 0, leader=-1, leader_epoch=4, isr=[2], replica=1, **ctl(1, 3))], level="INFO"),
    Fixture("2.7.2", "sc.broker.zk_exception",  # Partition.scala makeLeader @2.7.2 (a space ends it before 3.3)
            "[Broker id=1] A ZooKeeper client exception has occurred and makeLeader will be skipping the state change "
            "for the partition orders-0 with leader epoch: 5 ", [], level="ERROR"),
    Fixture("3.9.0", "sc.broker.zk_exception",  # Partition.scala makeFollower @3.9.0
            "[Broker id=1] A ZooKeeper client exception has occurred. makeFollower will be skipping the state change for "
            "the partition orders-0 with leader epoch: 5.", [], level="ERROR"),
    Fixture("3.9.2", "sc.broker.recovered",  # real (ZK captures)
            "[Broker id=3] The topic partition unclean-0 was marked as RECOVERING. Marking the topic partition as "
            "RECOVERED.", [], level="INFO"),
    Fixture("4.3.1", "sc.broker.recovered",  # real (KRaft capture)
            "[Broker id=3] The topic partition unclean-0 was marked as RECOVERING. Marking the topic partition as "
            "RECOVERED.", [], level="INFO"),
]


def _match(message: str, level: str = "TRACE", continuation: str = ""):
    prefix, body = strip_prefix(message)
    ctx = LineContext(level, "state.change.logger", prefix, continuation, "state-change")
    return match_message(body, ctx, TABLE)


@pytest.mark.parametrize("f", FIXTURES, ids=[f"{f.version}-{f.pattern}" for f in FIXTURES])
def test_fixture(f: Fixture):
    result = _match(f.message, f.level, f.continuation)
    assert result is not None, f.message
    pattern, events = result
    assert pattern.name == f.pattern
    assert events == f.events
    # the release the fixture follows writes this row's shape (era detection rests on it)
    assert parse_version(pattern.first) <= parse_version(f.version), pattern.first
    assert pattern.last is None or parse_version(f.version) <= parse_version(pattern.last), pattern.last
    for event in events:
        assert event["event_type"] in EVENT_TYPE_NAMES
        assert set(event) <= set(EVENT_FIELD_NAMES)


def _first_match(body: str):
    """Every row of the body's keyword that matches, in catalogue order."""
    return [p.name for p in TABLE.get(body.split(" ", 1)[0].lower(), ()) if p.regex.match(body)]


@pytest.mark.parametrize("pattern", sc.PATTERNS, ids=[p.name for p in sc.PATTERNS])
def test_every_row_has_a_fixture_it_matches_first(pattern):
    mine = [f for f in FIXTURES if f.pattern == pattern.name]
    assert mine, f"no fixture for {pattern.name}"
    for f in mine:
        matches = _first_match(strip_prefix(f.message)[1])
        assert matches[:1] == [pattern.name], matches


def test_rows_are_well_formed():
    assert len({p.name for p in sc.PATTERNS}) == len(sc.PATTERNS)
    for p in sc.PATTERNS:
        assert p.name.startswith("sc.")
        assert p.last is None or parse_version(p.first) <= parse_version(p.last), p.name
    for f in FIXTURES:
        # the row's keyword is the body's first word, as Kafka capitalises it
        row = next(p for p in sc.PATTERNS if p.name == f.pattern)
        assert strip_prefix(f.message)[1].split(" ", 1)[0] == row.keyword, f.pattern


@pytest.mark.parametrize("message", [
    # truncated lines
    "[Controller id=1 epoch=2] Changed partition orders-0 from OfflinePartition to OnlinePartition with state "
    "LeaderAndIsr(leader=2, leaderEp",
    "[Controller id=1 epoch=2] Changed partition orders-0 state from OnlinePartition to Offline",
    "Controller 1 epoch 2 changed partition [orders,0] state from NonExistentPartition to NewPartition with assigned",
    "[Broker id=2] Received LeaderAndIsr request LeaderAndIsrPartitionState(topicName='orders', partitionIndex=0, "
    "controllerEpoch=2, leader=1, leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], addingReplicas=[], "
    "removingReplicas=[], isNew=false) correlation id 7 from controller 1 epo",
    "[Broker id=2] Leader orders-0 starts at leader epoch 5 from offset 120 with high watermark 118 ISR [2,3] "
    "addingReplicas [] removingReplicas []. Previous leader epoch",
    # wrong tokens
    "[Controller id=1 epoch=2] Changed partition orders-0 state from OnlinePartition to OfflinePartitions",
    "[Controller id=1 epoch=2] Changed partition orders-0 state from OnlineReplica to OfflineReplica",
    "[Controller id=1 epoch=2] Changed partition orders state from OnlinePartition to OfflinePartition",
    "[Controller id=1 epoch=2] Changed partition orders-0 from OfflinePartition to OnlinePartition with state "
    "LeaderAndIsr(leader=two, leaderEpoch=5, isr=List(2), zkVersion=7)",
    "[Controller id=1 epoch=2] Changed state of replica x for partition orders-0 from OnlineReplica to OfflineReplica",
    "Controller 1 epoch 2 sending become-leader LeaderAndIsr request (Leader:1,ISR:1,2,LeaderEpoch:3) with "
    "correlationId 7 to broker 1 for partition [orders,0]",
    "[Broker id=2] Cached leader info PartitionState(garbage) for partition orders-0 in response to UpdateMetadata "
    "request sent by controller 1 epoch 2 with correlation id 8",
    # the ISR removal names the state it moves to: no other state is written there
    "[Controller id=2 epoch=2] Partition events-2 state changed to (Leader:2,ISR:2,3,LeaderEpoch:1,"
    "ControllerEpoch:2) after removing replica 1 from the ISR as part of transition to OnlineReplica",
    # formats no Kafka release writes (spec §5: AI-generated "examples")
    "Changed state of partition orders-0 from OnlinePartition to OfflinePartition",
    "Partition orders-0 marked offline because no live replica is in the ISR",
    "",
    "   ",
])
def test_near_misses_are_not_understood(message):
    assert _match(message) is None
