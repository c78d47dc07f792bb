"""The rules the replay checks, each with a stable code and a default severity, and the
violation record that carries its facts and its evidence (the recorded events that prove it).

Severity: `error` = Kafka's rules were broken (or the topic forbade what happened);
`warning` = suspicious or cannot be told (e.g. an unclean election whose config is
unknown); `info` = normal under this configuration (an unclean election the topic
allowed), reported apart from real failures."""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class Severity(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


class Rule(NamedTuple):
    code: str
    severity: Severity
    spec: str          # where the spec states the invariant
    summary: str


RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("ILLEGAL_PARTITION_TRANSITION", Severity.error, "s1, s7 #1-2",
         "A partition state change whose previous state is not a valid previous state of its target in this era (recorded, "
         "or attempted and rejected by the controller). A rejected attempt is a warning; info when it is a step the era's "
         "controller takes itself in handling its inputs, which its own state machine refuses."),
    Rule("ILLEGAL_REPLICA_TRANSITION", Severity.error, "s2, s7 #1, #3",
         "A replica state change whose previous state is not a valid previous state of its target in this era (recorded, "
         "or attempted and rejected by the controller). A rejected attempt is a warning; info when it is a step the era's "
         "controller takes itself in handling its inputs, which its own state machine refuses (0.8.2-2.2: a topic deleted "
         "while a replica's broker is down, whose replica TopicDeletionManager moves from OfflineReplica to "
         "ReplicaDeletionIneligible, legal only from 2.3, KAFKA-8237)."),
    Rule("UNCLEAN_LEADER_ELECTION", Severity.warning, "s3.7, s7 #12",
         "The new leader was not in the previous ISR. error: the topic's config forbade it, or the controller never elects "
         "so on its own (`kraft-3.0`: only an admin UNCLEAN election could have); info: allowed (config, era, an admin "
         "UNCLEAN election, or KRaft's election of the last known leader once the ISR and the ELR are empty, KIP-966); "
         "warning: config unknown."),
    Rule("LEADER_NOT_IN_ISR", Severity.error, "s7 #6",
         "A recorded leader/ISR whose leader is not a member of its own ISR."),
    Rule("ISR_NOT_SUBSET_OF_REPLICAS", Severity.error, "s7 #7",
         "A recorded ISR with a member outside the assigned replicas (OAR + RAR during a reassignment)."),
    Rule("LEADER_NOT_IN_REPLICAS", Severity.error, "s7 #8",
         "A recorded leader that is not an assigned replica."),
    Rule("LEADER_EPOCH_REGRESSION", Severity.error, "s7 #9, #24",
         "A recorded leader/ISR whose leader epoch is lower than one already recorded, or equal with another leader (brokers reject it)."),
    Rule("STALE_CONTROLLER_EPOCH", Severity.error, "s5.4, s7 #23, #25",
         "A decision recorded under a controller epoch older than one already seen: a zombie controller. Not applied."),
    Rule("UNEXPECTED_LEADER", Severity.error, "s3, s7 #11, #13-16, #28-29",
         "The recorded leader is not the one the era's selector chooses from the known state (including a dead or shutting-down broker elected, or a leader where the selector elects none)."),
    Rule("DUPLICATE_CONTROLLER_EPOCH", Severity.error, "s7 #22",
         "Two controllers claimed the same controller epoch (a warning before 1.1, where a failed epoch increment was only logged)."),
)}


# Where a rule's severity departs from its default: the replay's checks ask these.

def unclean_election_severity(allowed: bool | None) -> Severity:
    """UNCLEAN_LEADER_ELECTION: `info` where it was allowed (the topic's or cluster's config, the
    era, an admin UNCLEAN election, KIP-966's last known leader), `error` where it was forbidden,
    `warning` where the config cannot be told (None)."""
    return Severity.info if allowed else Severity.error if allowed is False else Severity.warning


def rejected_transition_severity(own_step: bool) -> Severity:
    """ILLEGAL_PARTITION_TRANSITION / ILLEGAL_REPLICA_TRANSITION attempted and refused by the
    controller: `info` when it is a step the era's controller takes itself in handling its inputs
    (Kafka's own inconsistency, not the cluster's), else `warning`."""
    return Severity.info if own_step else Severity.warning


def duplicate_epoch_severity(controller_epoch_strict: bool) -> Severity | None:
    """DUPLICATE_CONTROLLER_EPOCH: the rule's default, but a `warning` in the eras whose failed
    controller epoch increment was only logged (era.controller_epoch_strict False, before 1.1)."""
    return None if controller_epoch_strict else Severity.warning


def inferred_value_severity(severity: Severity) -> Severity:
    """Any rule whose check read a value no record showed (the fact `inferred`, findings.INFERABLE):
    at most `warning`. The replay infers what a missing or INFO-level line leaves out, and an
    inference is no proof that Kafka's rules were broken."""
    return Severity.warning if severity is Severity.error else severity


class Violation(NamedTuple):
    rule: str
    severity: str
    seq: int                 # the recorded event that shows it
    event_time_ms: int | None
    detail: str                 # rendered from `facts` (findings.render)
    evidence: tuple[str, ...]   # provenance of the events that prove it, the offending one first
    facts: dict[str, str]       # what the check found, by Kafka's names (findings.FINDINGS, FACT_KEYS)
