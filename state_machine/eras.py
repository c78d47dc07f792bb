"""Everything that changes with the Kafka version, as data.

`BEHAVIOURS` is the spec's section 9 table turned into rows: (behaviour, first version
that behaves so, value, where it was checked). An `Era` is what those rows say for one
version; the replay, the selectors' callers, the checks and docs/eras.md all read it.
Supporting a new Kafka version is a new row here, not a new `if` elsewhere.

Named eras (`ERAS`) are the representative releases the tests and the generator use;
any release string ("2.5.1", "0.10.0.1") resolves too, a KRaft release as "kraft-3.5.1"
(a bare 3.x release is a ZooKeeper-mode cluster; 4.x has only KRaft)."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

from state_machine.states import PartitionState as P
from state_machine.states import ReplicaState as R

Version = tuple[int, ...]


def parse_version(text: str) -> Version:
    parts = []
    for piece in text.strip().split("."):
        digits = ""
        for ch in piece:  # leading digits only: "0-rc1" is 0, not 1
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) < len(piece):
            break  # a suffix ends the version
    if not parts:
        raise ValueError(f"not a Kafka version: {text!r}")
    # "3.9" is 3.9.0: padded so it sorts with the rows that start at "3.9.0" (as a tuple (3, 9) < (3, 9, 0)).
    return tuple(parts) + (0,) * (3 - len(parts))


def _frozen(table: dict) -> Mapping:
    return MappingProxyType({k: frozenset(v) for k, v in table.items()})


# --- Valid previous states (spec sections 1 and 2) ---------------------------------

# 0.8.0 = the wiki page (seed 001): Offline -> Offline is illegal.
PARTITION_VALID_PREVIOUS_0_8_0 = _frozen({
    P.NewPartition: {P.NonExistentPartition},
    P.OnlinePartition: {P.NewPartition, P.OnlinePartition, P.OfflinePartition},
    P.OfflinePartition: {P.NewPartition, P.OnlinePartition},
    P.NonExistentPartition: {P.OfflinePartition},
})
# 0.8.1.0 .. 3.9 (seed 000 code; unchanged in every later ZK release).
PARTITION_VALID_PREVIOUS_0_8_1 = _frozen({
    P.NewPartition: {P.NonExistentPartition},
    P.OnlinePartition: {P.NewPartition, P.OnlinePartition, P.OfflinePartition},
    P.OfflinePartition: {P.NewPartition, P.OnlinePartition, P.OfflinePartition},
    P.NonExistentPartition: {P.OfflinePartition},
})

# 0.8.0: four replica states, Offline -> NonExistent directly (StopReplica delete=true).
REPLICA_VALID_PREVIOUS_0_8_0 = _frozen({
    R.NewReplica: {R.NonExistentReplica},
    R.OnlineReplica: {R.NewReplica, R.OnlineReplica, R.OfflineReplica},
    R.OfflineReplica: {R.NewReplica, R.OnlineReplica},
    R.NonExistentReplica: {R.OfflineReplica},
})
_REPLICA_0_8_1 = {
    R.NewReplica: {R.NonExistentReplica},
    R.OnlineReplica: {R.NewReplica, R.OnlineReplica, R.OfflineReplica, R.ReplicaDeletionIneligible},
    R.OfflineReplica: {R.NewReplica, R.OnlineReplica, R.OfflineReplica, R.ReplicaDeletionIneligible},
    R.ReplicaDeletionStarted: {R.OfflineReplica},
    R.ReplicaDeletionSuccessful: {R.ReplicaDeletionStarted},
    R.ReplicaDeletionIneligible: {R.ReplicaDeletionStarted},
    R.NonExistentReplica: {R.ReplicaDeletionSuccessful},
}
REPLICA_VALID_PREVIOUS_0_8_1 = _frozen(_REPLICA_0_8_1)
# 2.3.0 (KAFKA-8237): OfflineReplica -> ReplicaDeletionIneligible becomes legal.
REPLICA_VALID_PREVIOUS_2_3 = _frozen({
    **_REPLICA_0_8_1,
    R.ReplicaDeletionIneligible: {R.OfflineReplica, R.ReplicaDeletionStarted},
})


class Behaviour(NamedTuple):
    key: str
    since: Version
    value: Any
    source: str


def _row(key: str, since: str, value: Any, source: str) -> Behaviour:
    return Behaviour(key, parse_version(since), value, source)


# Rows per key in ascending `since`. The first row of every key starts at 0.8.0.
BEHAVIOURS: tuple[Behaviour, ...] = (
    _row("partition_valid_previous", "0.8.0", PARTITION_VALID_PREVIOUS_0_8_0, "0.8.0 PartitionStateMachine.scala"),
    _row("partition_valid_previous", "0.8.1", PARTITION_VALID_PREVIOUS_0_8_1, "0.8.1.1 .. 3.9 PartitionStateMachine.scala (s9 #1)"),
    _row("replica_valid_previous", "0.8.0", REPLICA_VALID_PREVIOUS_0_8_0, "0.8.0 ReplicaStateMachine.scala (4 states)"),
    _row("replica_valid_previous", "0.8.1", REPLICA_VALID_PREVIOUS_0_8_1, "0.8.1.1 ReplicaStateMachine.scala (7 states, s9 #2)"),
    _row("replica_valid_previous", "2.3.0", REPLICA_VALID_PREVIOUS_2_3, "2.3.0 ReplicaStateMachine.scala, KAFKA-8237 (s9 #3)"),
    # Offline election: which live ISR member leads (s9 #4).
    _row("offline_leader_order", "0.8.0", "isr", "0.8.1.1 PartitionLeaderSelector.scala: head of live ISR"),
    _row("offline_leader_order", "0.8.2", "assignment", "0.8.2.2 PartitionLeaderSelector.scala, KAFKA-1503: first AR member in live ISR"),
    # Unclean offline election (s9 #5).
    _row("unclean_gate", "0.8.0", "always", "0.8.1.1 PartitionLeaderSelector.scala: no switch"),
    _row("unclean_gate", "0.8.2", "topic_config", "0.8.2.2 PartitionLeaderSelector.scala, KAFKA-1028"),
    _row("unclean_default", "0.8.0", True, "no switch: always allowed"),
    _row("unclean_default", "0.11.0", False, "0.11.0.0 KafkaConfig.scala Defaults.UncleanLeaderElectionEnable"),
    _row("admin_unclean_election", "0.8.0", False, "no electLeaders API"),
    _row("admin_unclean_election", "2.4.0", True, "2.4.1 KafkaController.scala electLeaders(UNCLEAN), KIP-460"),
    # Enabling unclean election re-runs the offline elections (triggerOnlinePartitionStateChange).
    _row("unclean_enable_reelects", "0.8.0", "never", "1.1.1 KafkaController.scala: no such event"),
    _row("unclean_enable_reelects", "2.0.0", "cluster", "2.0.0 DynamicBrokerConfig.scala, KafkaController "
         "UncleanLeaderElectionEnable (the dynamic cluster default)"),
    _row("unclean_enable_reelects", "2.1.0", "cluster_and_topic", "2.1.0 ConfigHandler.scala, KafkaController "
         "TopicUncleanLeaderElectionEnable"),
    # Controlled shutdown election (s9 #6).
    _row("controlled_shutdown_leader", "0.8.0", "isr_head_without_old_leader", "0.8.0 PartitionLeaderSelector.scala"),
    _row("controlled_shutdown_leader", "0.8.1", "isr_head", "0.8.1.1 .. 0.9.0.1 PartitionLeaderSelector.scala (no liveness check)"),
    _row("controlled_shutdown_leader", "0.10.0", "assignment", "0.10.0.1 PartitionLeaderSelector.scala, KAFKA-3670"),
    _row("controlled_shutdown_receivers_include_shutting_down", "0.8.0", True, "0.8.2.2 PartitionLeaderSelector.scala"),
    _row("controlled_shutdown_receivers_include_shutting_down", "1.1.0", False, "1.1.1 PartitionStateMachine.scala"),
    _row("controlled_shutdown_receivers_include_shutting_down", "2.1.0", True, "2.1.0 PartitionStateMachine.scala, KAFKA-7482"),
    # Reassignment election (s9 #7) and AR order during a reassignment (s9 #21).
    _row("reassign_requires_isr", "0.8.0", False, "0.8.0 PartitionLeaderSelector.scala: first live RAR member"),
    _row("reassign_requires_isr", "0.8.1", True, "0.8.1.1 PartitionLeaderSelector.scala"),
    _row("reassign_assignment_order", "0.8.0", "scala_set", "0.8.2.2 KafkaController.scala (RAR ++ AR).toSet"),
    _row("reassign_assignment_order", "2.4.0", "target_first", "2.4.1 KafkaController.scala, KIP-455"),
    # While the new replicas catch up: 0.8.0 only starts them (NewReplica); 0.8.1 also writes AR = RAR + OAR
    # and bumps the leader epoch, and bumps it again at completion when the leader stays.
    _row("reassign_in_flight", "0.8.0", "start_new_replicas", "0.8.0 KafkaController.scala onPartitionReassignment, "
         "startNewReplicasForReassignedPartition, moveReassignedPartitionLeaderIfRequired"),
    _row("reassign_in_flight", "0.8.1", "write_assignment_and_bump_epoch", "0.8.1.1 KafkaController.scala "
         "updateAssignedReplicasForPartition(RAR ++ OAR), updateLeaderEpochAndSendRequest (era audit, binaries)"),
    # The reassignment's epoch bump and the controller's cache: before 2.4 updateLeaderEpoch wrote
    # ZooKeeper only, so requests built from the cache (a replica going online) resend the old epoch.
    _row("reassign_bump_cached", "0.8.0", False, "0.8.2.2 .. 2.3.1 KafkaController.scala updateLeaderEpoch "
         "(no partitionLeadershipInfo.put; seen in a real 1.0.2 capture)"),
    _row("reassign_bump_cached", "2.4.0", True, "2.4.0 KafkaController.scala updateLeaderEpoch"),
    # A leader's own ISR write and the controller's cache: until AlterIsr the leader writes ZooKeeper
    # itself and the controller reads it back later (on an ISR change notification), so a request
    # built from the cache in between (a replica going online) resends the ISR it held before.
    _row("isr_cache_by_notification", "0.8.0", True, "0.8.2.2 .. 2.6.3 Partition.scala updateIsr (ZooKeeper write), "
         "KafkaController.scala IsrChangeNotification (seen in real 0.8.2.2-2.4.1 captures)"),
    _row("isr_cache_by_notification", "2.7.0", False, "2.7.0 KafkaController.scala processAlterIsr (KIP-497) "
         "writes the leader's ISR and updates its cache"),
    # Preferred election when the preferred replica already leads (s9 #8).
    _row("preferred_already_leader", "0.8.0", "not_needed", "0.8.2.2 PartitionLeaderSelector.scala LeaderElectionNotNeededException"),
    _row("preferred_already_leader", "1.1.0", "reelect", "1.1.1 KafkaController.scala PreferredReplicaLeaderElection.process"),
    _row("preferred_already_leader", "2.2.0", "not_needed", "2.2.0 KafkaController.scala alreadyPreferred"),
    # Controller ISR removal of the last ISR member (s9 #9).
    _row("last_isr_member", "0.8.0", "may_empty", "0.8.1.1 KafkaController.scala removeReplicaFromIsr"),
    _row("last_isr_member", "0.8.2", "keep_if_unclean_disabled", "0.8.2.2 KafkaController.scala"),
    _row("last_isr_member", "1.1.0", "keep", "1.1.1 ReplicaStateMachine.scala"),
    # OfflineReplica when the partition has no leader/ISR (s9 #11).
    _row("offline_replica_without_leadership", "0.8.0", "fail", "0.8.2.2 ReplicaStateMachine.scala StateChangeFailedException"),
    _row("offline_replica_without_leadership", "1.1.0", "skip", "1.1.1 ReplicaStateMachine.scala"),
    _row("offline_replica_without_leadership", "2.0.0", "set_offline", "2.0.0 ReplicaStateMachine.scala"),
    # Controller failover: replicas on dead brokers (s9 #12).
    _row("failover_dead_replica", "0.8.0", "offline", "0.8.0 ReplicaStateMachine.scala initializeReplicaState"),
    _row("failover_dead_replica", "0.8.1", "ineligible", "0.8.1.1 ReplicaStateMachine.scala"),
    _row("failover_dead_replica", "2.3.0", "ineligible_then_offline", "2.3.0 ReplicaStateMachine.scala startup"),
    # Topic deletion (s9 #13, #14).
    _row("topic_deletion", "0.8.0", False, "0.8.0 has no TopicDeletionManager"),
    _row("topic_deletion", "0.8.1", True, "0.8.1.1 TopicDeletionManager.scala"),
    _row("deletion_partition_removed_at", "0.8.0", "completion", "2.0.0 TopicDeletionManager.scala"),
    _row("deletion_partition_removed_at", "2.1.0", "start", "2.1.0 TopicDeletionManager.scala, KAFKA-6753"),
    # Controller epoch: one controller per epoch guaranteed (s7 #22, s9 #16).
    _row("controller_epoch_strict", "0.8.0", False, "0.8.2.2 .. 1.0.2 KafkaController.scala: failed increment only logged"),
    _row("controller_epoch_strict", "1.1.0", True, "1.1.1 KafkaController.scala ControllerMovedException"),
    # No-op selector exists up to 1.0 (s3.6).
    _row("noop_selector", "0.8.0", True, "0.8.2.2 PartitionLeaderSelector.scala NoOpLeaderSelector"),
    _row("noop_selector", "1.1.0", False, "2.4.1 PartitionStateMachine.scala: no strategy"),
    # Unclean election marks the leader RECOVERING (ZK 3.2+ with a recent IBP).
    _row("leader_recovery", "0.8.0", False, "no leaderRecoveryState"),
    _row("leader_recovery", "3.2.0", True, "3.2 LeaderAndIsr.scala newRecoveringLeaderAndIsr"),
    # KIP-966's last known leader: a KRaft election only (KRAFT_BEHAVIOURS).
    _row("last_known_leader", "0.8.0", "none", "ZooKeeper mode has no ELR"),
    # A leader's ISR write: its proposal ("Shrinking/Expanding ISR ...", INFO) is logged before the
    # write, which may fail. Before 2.4 the committed write's own line is TRACE (the kafka.cluster
    # logger is at INFO in a stock config): the proposal is the write's only record. From 2.4 every
    # committed write logs "ISR updated to ..." at INFO (ZooKeeper, then AlterIsr/AlterPartition).
    _row("isr_write_logged", "0.8.0", False, "0.8.2.2 .. 2.3.1 Partition.scala updateIsr: trace(\"ISR updated to ...\")"),
    _row("isr_write_logged", "2.4.0", True, "2.4.1 Partition.scala maybeUpdateIsrAndVersion: info(\"ISR updated to ...\"); "
         "2.7+ the AlterIsr/AlterPartition response's info(\"ISR updated to ... and version updated to ...\")"),
    # What a stock config writes to state-change.log (formats s0).
    _row("default_state_change_level", "0.8.0", "TRACE", "config/log4j.properties"),
    _row("default_state_change_level", "2.6.0", "INFO", "KAFKA-8470"),
)

BEHAVIOUR_KEYS: tuple[str, ...] = tuple(dict.fromkeys(b.key for b in BEHAVIOURS))

# KRaft has no partition/replica state machines; its election is PartitionChangeBuilder.
# The values of KRaft's first releases; KRAFT_BEHAVIOURS rows change them from a release on.
KRAFT_BEHAVIOUR: dict[str, Any] = {
    "partition_valid_previous": PARTITION_VALID_PREVIOUS_0_8_1,
    "replica_valid_previous": REPLICA_VALID_PREVIOUS_2_3,
    "offline_leader_order": "assignment",
    # 2.8-3.8: ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic is `return false;
    # // TODO`: the controller never elects uncleanly on its own; an admin UNCLEAN election
    # (electLeaders, which the metadata log does not record as such) is the only way.
    "unclean_gate": "admin_only",
    "unclean_default": False,
    "admin_unclean_election": True,
    "unclean_enable_reelects": "never",   # no election on the config change itself (as replayed so far)
    "controlled_shutdown_leader": "assignment",
    "controlled_shutdown_receivers_include_shutting_down": True,
    "reassign_requires_isr": True,
    "reassign_assignment_order": "target_first",
    "reassign_in_flight": "write_assignment_and_bump_epoch",   # (unused: KRaft records say what changed)
    "reassign_bump_cached": True,                              # (unused, as above)
    "isr_cache_by_notification": False,   # AlterPartition
    "preferred_already_leader": "not_needed",
    "last_isr_member": "keep",
    "offline_replica_without_leadership": "set_offline",
    "failover_dead_replica": "ineligible_then_offline",
    "topic_deletion": True,
    "deletion_partition_removed_at": "start",
    "controller_epoch_strict": True,
    "noop_selector": False,
    "leader_recovery": True,
    "last_known_leader": "none",          # 2.8-3.6: no lastKnownElr
    "isr_write_logged": True,             # a broker's "ISR updated to ... and version updated to ..." (AlterPartition)
    "default_state_change_level": "INFO",
}

KRAFT_FIRST = parse_version("2.8.0")
KRAFT_BEHAVIOURS: tuple[Behaviour, ...] = (
    _row("unclean_gate", "3.9.0", "topic_config", "3.9.0 ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic "
         "reads the topic's config (3.0.2-3.8.1: `return false; // TODO`, sources jars)"),
    # PartitionChangeBuilder.canElectLastKnownLeader (ELR on, ISR and ELR empty, one lastKnownElr member).
    _row("last_known_leader", "3.7.0", "even_if_dead", "3.7.0-4.0.2 canElectLastKnownLeader only logs a last known "
         "leader that is not alive (`if (isAcceptableLeader.test(..))`, no `!`) and elects it (sources jars)"),
    _row("last_known_leader", "4.1.0", "if_alive", "4.1.0-4.3.1 canElectLastKnownLeader returns false for a last known "
         "leader that is not alive (sources jars)"),
)


@dataclass(frozen=True)
class Era:
    name: str
    version: Version                 # the release whose rows it follows (ZooKeeper or KRaft, see mode)
    mode: str                        # "zk" | "kraft"
    behaviour: Mapping[str, Any] = field(repr=False)
    # The hot fields, copied out of `behaviour` for the replay loop.
    partition_valid_previous: Mapping[P, frozenset] = field(repr=False)
    replica_valid_previous: Mapping[R, frozenset] = field(repr=False)

    def __post_init__(self) -> None:
        # Behaviour lookups (era.offline_leader_order) are plain attribute reads: every
        # behaviour value is copied into the instance once. The replay and the selectors
        # read them per event; through __getattr__ alone each read would first fail the
        # ordinary attribute lookup (an AttributeError raised and caught).
        for key, value in self.behaviour.items():
            if not hasattr(type(self), key) and key not in self.__dict__:
                object.__setattr__(self, key, value)

    def __getattr__(self, key: str) -> Any:  # only reached for a key the era does not have
        try:
            return self.behaviour[key]
        except KeyError:
            raise AttributeError(key) from None

    def __deepcopy__(self, memo) -> "Era":  # immutable: share it
        return self

    @property
    def replica_states(self) -> frozenset[R]:
        return frozenset(self.replica_valid_previous)

    def is_valid_partition_transition(self, previous: P, target: P) -> bool:
        return previous in self.partition_valid_previous.get(target, ())

    def is_valid_replica_transition(self, previous: R, target: R) -> bool:
        return previous in self.replica_valid_previous.get(target, ())


def _behaviour_at(version: Version, mode: str) -> dict[str, Any]:
    values: dict[str, Any] = dict(KRAFT_BEHAVIOUR) if mode == "kraft" else {}
    for row in KRAFT_BEHAVIOURS if mode == "kraft" else BEHAVIOURS:
        if row.since <= version:
            values[row.key] = row.value
    return values


def _make_era(name: str, release: str) -> Era:
    """release: "2.4.1" (ZooKeeper mode) or "kraft-3.5.1" (KRaft)."""
    mode = "kraft" if release.startswith("kraft-") else "zk"
    version = parse_version(release.removeprefix("kraft-"))
    behaviour = _behaviour_at(version, mode)
    return Era(
        name=name,
        version=version,
        mode=mode,
        behaviour=MappingProxyType(behaviour),
        partition_valid_previous=behaviour["partition_valid_previous"],
        replica_valid_previous=behaviour["replica_valid_previous"],
    )


# Named eras: one representative release per span of identical behaviour that the
# tests, the generator and `--kafka-version` use. Spans follow section 9's rows.
ERA_RELEASES: dict[str, str] = {
    "0.8.0": "0.8.0",      # wiki tables, 4 replica states
    "0.8.1": "0.8.1.1",    # seed 000 code: ISR-order offline election, unclean always
    "0.8.2": "0.8.2.2",    # 0.8.2-0.9.x: AR-order offline election, per-topic unclean
    "0.10": "0.10.2.2",    # controlled shutdown in AR order
    "0.11": "0.11.0.3",    # 0.11-1.0: unclean disabled by default
    "1.1": "1.1.1",        # rewritten controller (1.1-2.0)
    "2.1": "2.1.1",        # epoch fencing, deletion removes partitions at start (2.1-2.2)
    "2.3": "2.3.1",        # Offline -> DeletionIneligible legal
    "2.4": "2.4.1",        # KIP-455/460 (2.4-2.6; a release names its own: 2.6+ INFO state-change)
    "2.7": "2.7.2",        # AlterIsr (KIP-497): the controller learns the leader's ISR from it (2.7-3.1)
    "3.x": "3.9.0",        # leader recovery state (3.2-3.9, last ZK releases)
    "kraft-3.0": "kraft-3.0.2",   # KRaft 2.8-3.8: unclean.leader.election.enable not read
    "kraft": "kraft-3.9.0",       # KRaft 3.9 and 4.x
}

ERAS: dict[str, Era] = {name: _make_era(name, rel) for name, rel in ERA_RELEASES.items()}


def resolve_era(name_or_version: str) -> Era:
    """An era by name ("0.8.2", "kraft") or by any release string ("2.5.1", "kraft-3.5.1")."""
    key = name_or_version.strip().lower()
    if key in ERAS:
        return ERAS[key]
    if key.startswith("kraft-"):
        if parse_version(key.removeprefix("kraft-")) < KRAFT_FIRST:
            raise ValueError(f"KRaft {name_or_version} predates KRaft (2.8.0)")
        return _make_era(name_or_version.strip(), key)
    version = parse_version(key)
    if version < (0, 8, 0):
        raise ValueError(f"Kafka {name_or_version} predates the controller (0.8.0)")
    if version >= (4,):
        return ERAS["kraft"]  # 4.x has no ZooKeeper mode
    return _make_era(name_or_version, key)
