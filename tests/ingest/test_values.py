"""ingest.values: partition tokens, broker lists, and every printed LeaderAndIsr form
(spec kafka-log-formats §2.2). Each value is labelled with the Kafka release whose source
prints it that way."""
import pytest

from ingest.values import parse_int_list, parse_leader_and_isr, parse_partition


@pytest.mark.parametrize("token, expected", [
    ("[orders,0]", ("orders", 0)),                   # TopicAndPartition
    ("orders-0", ("orders", 0)),                     # TopicPartition
    ("my-topic-v2-13", ("my-topic-v2", 13)),         # split on the last '-'
])
def test_parse_partition(token, expected):
    assert parse_partition(token) == expected


@pytest.mark.parametrize("text, expected", [
    ("1,2,3", [1, 2, 3]), ("List(1, 2)", [1, 2]), ("Set(0, 1)", [0, 1]), ("HashSet()", []),
    ("ArrayBuffer(1)", [1]), ("[1,2]", [1, 2]), ("[1, 2]", [1, 2]), ("", []),
])
def test_parse_int_list(text, expected):
    assert parse_int_list(text) == expected


LEADER_AND_ISR_FORMS = [
    # (version, text, expected)
    ("0.8.0", '{ "ISR":"1,2", "leader":"1", "leaderEpoch":"0" }',   # Utils.mapToJson, sorted keys, quoted values
     {"leader": 1, "leader_epoch": 0, "isr": [1, 2]}),
    ("0.10.2.2", '{"leader":1,"leader_epoch":1,"isr":[1]}',
     {"leader": 1, "leader_epoch": 1, "isr": [1]}),
    ("3.2.3", '{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":7,"isr":[2],"leader_recovery_state":1}',
     {"controller_epoch": 3, "leader": 2, "leader_epoch": 7, "isr": [2], "leader_recovery_state": "RECOVERING"}),
    ("1.1.1", "LeaderAndIsr(leader=0, leaderEpoch=0, isr=List(0, 1), zkVersion=0)",
     {"leader": 0, "leader_epoch": 0, "isr": [0, 1], "zk_version": 0}),
    ("2.4.1", "LeaderAndIsr(leader=-1, leaderEpoch=6, isr=List(), zkVersion=9)",
     {"leader": -1, "leader_epoch": 6, "isr": [], "zk_version": 9}),
    ("3.2.3", "LeaderAndIsr(leader=2, leaderEpoch=5, isr=List(2), leaderRecoveryState=RECOVERING, zkVersion=7)",
     {"leader": 2, "leader_epoch": 5, "isr": [2], "leader_recovery_state": "RECOVERING", "zk_version": 7}),
    ("3.4.1", "LeaderAndIsr(leader=1001, leaderEpoch=0, isr=List(1001), leaderRecoveryState=RECOVERED, partitionEpoch=0)",
     {"leader": 1001, "leader_epoch": 0, "isr": [1001], "leader_recovery_state": "RECOVERED", "zk_version": 0}),
    ("3.9.0", "LeaderAndIsr(leader=1, leaderEpoch=3, isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), "
              "BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=7)",
     {"leader": 1, "leader_epoch": 3, "isr": [1, 2], "leader_recovery_state": "RECOVERED", "zk_version": 7}),
    ("0.8.2.2", "(Leader:1,ISR:1,2,LeaderEpoch:3,ControllerEpoch:2)",
     {"leader": 1, "leader_epoch": 3, "isr": [1, 2], "controller_epoch": 2}),
    ("2.8.1", "(Leader:1,ISR:1,2,LeaderEpoch:3,ZkVersion:5,ControllerEpoch:2)",
     {"leader": 1, "leader_epoch": 3, "isr": [1, 2], "zk_version": 5, "controller_epoch": 2}),
    ("3.2.3", "(Leader:1,ISR:1,2,LeaderRecoveryState:RECOVERED,LeaderEpoch:3,ZkVersion:5,ControllerEpoch:2)",
     {"leader": 1, "leader_epoch": 3, "isr": [1, 2], "leader_recovery_state": "RECOVERED", "zk_version": 5,
      "controller_epoch": 2}),
    ("0.8.2.2", "(LeaderAndIsrInfo:(Leader:3,ISR:3,LeaderEpoch:4,ControllerEpoch:12),ReplicationFactor:2),AllReplicas:6,3)",
     {"leader": 3, "leader_epoch": 4, "isr": [3], "controller_epoch": 12, "replicas": [6, 3]}),
    ("0.10.0.1", "PartitionState(controllerEpoch=1, leader=0, leaderEpoch=2, isr=[0, 1], zkVersion=3, replicas=[0, 1])",
     {"controller_epoch": 1, "leader": 0, "leader_epoch": 2, "isr": [0, 1], "zk_version": 3, "replicas": [0, 1]}),
    ("1.0.2", "PartitionState(controllerEpoch=1, leader=0, leaderEpoch=2, isr=0,1, zkVersion=3, replicas=0,1, isNew=false)",
     {"controller_epoch": 1, "leader": 0, "leader_epoch": 2, "isr": [0, 1], "zk_version": 3, "replicas": [0, 1]}),
    ("2.3.1", "PartitionState(controllerEpoch=1, leader=0, leaderEpoch=2, isr=, zkVersion=3, replicas=0,1, "
              "addingReplicas=, removingReplicas=, isNew=true)",
     {"controller_epoch": 1, "leader": 0, "leader_epoch": 2, "isr": [], "zk_version": 3, "replicas": [0, 1]}),
    ("1.1.1", "PartitionState(controllerEpoch=1, leader=0, leaderEpoch=2, isr=[0, 1], zkVersion=3, replicas=[0, 1], "
              "offlineReplicas=[])",
     {"controller_epoch": 1, "leader": 0, "leader_epoch": 2, "isr": [0, 1], "zk_version": 3, "replicas": [0, 1]}),
    ("2.4.1", "LeaderAndIsrPartitionState(topicName='orders', partitionIndex=0, controllerEpoch=2, leader=1, "
              "leaderEpoch=3, isr=[1, 2], zkVersion=4, replicas=[1, 2], addingReplicas=[], removingReplicas=[], isNew=false)",
     {"topic": "orders", "partition": 0, "controller_epoch": 2, "leader": 1, "leader_epoch": 3, "isr": [1, 2],
      "zk_version": 4, "replicas": [1, 2]}),
    ("3.4.1", "LeaderAndIsrPartitionState(topicName='kafka-ckpt', partitionIndex=0, controllerEpoch=1, leader=1001, "
              "leaderEpoch=0, isr=[1001], partitionEpoch=0, replicas=[1001], addingReplicas=[], removingReplicas=[], "
              "isNew=true, leaderRecoveryState=0)",
     {"topic": "kafka-ckpt", "partition": 0, "controller_epoch": 1, "leader": 1001, "leader_epoch": 0, "isr": [1001],
      "zk_version": 0, "replicas": [1001], "leader_recovery_state": "RECOVERED"}),
    ("3.4.1", "UpdateMetadataPartitionState(topicName='kafka-ckpt', partitionIndex=0, controllerEpoch=1, leader=1001, "
              "leaderEpoch=0, isr=[1001], zkVersion=0, replicas=[1001], offlineReplicas=[])",
     {"topic": "kafka-ckpt", "partition": 0, "controller_epoch": 1, "leader": 1001, "leader_epoch": 0, "isr": [1001],
      "zk_version": 0, "replicas": [1001]}),
]


@pytest.mark.parametrize("version, text, expected", LEADER_AND_ISR_FORMS,
                         ids=[f"{v}-{t.split('(')[0].split(':')[0] or t[:2]}" for v, t, _ in LEADER_AND_ISR_FORMS])
def test_parse_leader_and_isr(version, text, expected):
    assert parse_leader_and_isr(text) == expected


@pytest.mark.parametrize("text", [
    "",
    "LeaderAndIsr(leader=2, leaderEpoch=5, isr=List(2), zkVer",             # truncated
    "LeaderAndIsr(leader=2, garbage)",
    "(Leader:1,ISR:1,2,LeaderEpoch:3)",                                    # no ControllerEpoch
    "(LeaderAndIsrInfo:(Leader:3,ISR:3,LeaderEpoch:4,ControllerEpoch:12),AllReplicas:6,3)",
    "PartitionState(garbage)",
    "PartitionState(controllerEpoch=1, leader=0, leaderEpoch=0, isr=0,1, zkVersion=abc)",
    "StopReplicaPartitionState(partitionIndex=0, leaderEpoch=5, deletePartition=false)",
    '{"leader": null, "leader_epoch": 1, "isr": [1]}',
    '{"leader": 1, "leader_epoch": 1, "isr": "x"}',
    '{"leader": 1, "isr": [1]}',                                           # no leader epoch
    "[1,2]",
    "Changed state of partition orders-0",
])
def test_parse_leader_and_isr_rejects(text):
    with pytest.raises(ValueError):
        parse_leader_and_isr(text)
