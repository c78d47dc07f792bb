"""Leader selectors as pure functions of plain values.

Each takes the assignment (AR, ordered: its head is the preferred replica), the
current ISR (ordered), the live brokers and whatever else its Kafka counterpart
reads, and returns either an `Election` (new leader, new ISR, the replicas that
receive LeaderAndIsr) or an `ElectionFailure` naming why Kafka would elect no one.
The version-dependent variants are parameters; `select` binds them from an Era.

Kafka names: PartitionLeaderSelector.scala (<= 1.0), PartitionLeaderElectionAlgorithms
(1.1+), Election.scala (2.4+), PartitionChangeBuilder.java (KRaft)."""
from __future__ import annotations

from enum import Enum
from typing import Collection, NamedTuple, Sequence

from state_machine.states import NO_LEADER


class ElectionKind(str, Enum):
    initial = "initial"                        # NewPartition -> OnlinePartition
    offline = "offline"                        # OfflinePartitionLeaderSelector
    unclean = "unclean"                        # an offline election that left the ISR
    reassign = "reassign"                      # ReassignedPartitionLeaderSelector
    preferred = "preferred"                    # PreferredReplicaPartitionLeaderSelector
    controlled_shutdown = "controlled_shutdown"  # ControlledShutdownLeaderSelector
    noop = "noop"                              # NoOpLeaderSelector (<= 1.0)


class FailureReason(str, Enum):
    NO_REPLICAS_ASSIGNED = "NO_REPLICAS_ASSIGNED"
    NO_REPLICA_ONLINE = "NO_REPLICA_ONLINE"              # NoReplicaOnlineException
    NO_ISR_REPLICA_ONLINE = "NO_ISR_REPLICA_ONLINE"      # unclean election disabled
    ELECTION_NOT_NEEDED = "ELECTION_NOT_NEEDED"          # LeaderElectionNotNeededException
    PREFERRED_REPLICA_NOT_ELIGIBLE = "PREFERRED_REPLICA_NOT_ELIGIBLE"
    NO_TARGET_REPLICA_ELIGIBLE = "NO_TARGET_REPLICA_ELIGIBLE"
    NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN = "NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN"


class Election(NamedTuple):
    kind: ElectionKind
    leader: int
    isr: tuple[int, ...]
    receivers: tuple[int, ...]
    unclean: bool = False


class ElectionFailure(NamedTuple):
    kind: ElectionKind
    reason: FailureReason
    detail: str


Outcome = Election | ElectionFailure
Ids = Sequence[int]


# (tuple([... for ...]) rather than tuple(... for ...) below: a list comprehension is the
# faster way to build a tuple, and selectors run for most recorded elections.


def initial_election(assignment: Ids, live: Collection[int]) -> Outcome:
    """New -> Online (initializeLeaderAndIsrForPartition): first live AR member leads,
    ISR = live AR in AR order."""
    live_assigned = tuple([r for r in assignment if r in live])
    if not live_assigned:
        return ElectionFailure(ElectionKind.initial, FailureReason.NO_REPLICA_ONLINE,
                               f"no assigned replica of {list(assignment)} is alive")
    return Election(ElectionKind.initial, live_assigned[0], live_assigned, live_assigned)


def offline_election(assignment: Ids, isr: Ids, live: Collection[int], *,
                     unclean_allowed: bool, order: str) -> Outcome:
    """OfflinePartitionLeaderSelector / offlinePartitionLeaderElection.

    order="isr" (0.8.0-0.8.1): head of the live ISR; order="assignment" (0.8.2+): first
    AR member in the live ISR. New ISR = live ISR (ISR order kept). No live ISR member:
    unclean (first live AR member, ISR = [leader]) if allowed, else a failure."""
    if not assignment:
        return ElectionFailure(ElectionKind.offline, FailureReason.NO_REPLICAS_ASSIGNED, "no replicas assigned")
    live_assigned = tuple([r for r in assignment if r in live])
    live_isr = tuple([r for r in isr if r in live])
    if live_isr:
        if order == "isr":
            leader = live_isr[0]
        else:
            leader = next((r for r in live_assigned if r in live_isr), NO_LEADER)
        if leader != NO_LEADER:
            return Election(ElectionKind.offline, leader, live_isr, live_assigned)
    if not live_assigned:
        return ElectionFailure(ElectionKind.offline, FailureReason.NO_REPLICA_ONLINE,
                               f"no replica of {list(assignment)} is alive")
    if not unclean_allowed:
        return ElectionFailure(ElectionKind.offline, FailureReason.NO_ISR_REPLICA_ONLINE,
                               f"no broker in ISR {list(isr)} is alive and unclean election is disabled")
    leader = live_assigned[0]
    return Election(ElectionKind.unclean, leader, (leader,), live_assigned, unclean=True)


def reassign_election(target: Ids, isr: Ids, live: Collection[int], *, requires_isr: bool) -> Outcome:
    """ReassignedPartitionLeaderSelector: first target replica that is live (and, from
    0.8.1, in the ISR). ISR unchanged; receivers = the target replicas."""
    for r in target:
        if r in live and (not requires_isr or r in isr):
            return Election(ElectionKind.reassign, r, tuple(isr), tuple(target))
    return ElectionFailure(ElectionKind.reassign, FailureReason.NO_TARGET_REPLICA_ELIGIBLE,
                           f"none of the target replicas {list(target)} is live" + (" and in ISR" if requires_isr else ""))


def preferred_election(assignment: Ids, isr: Ids, live: Collection[int], leader: int, *,
                       already_leader: str) -> Outcome:
    """PreferredReplicaPartitionLeaderSelector: AR head, if live and in ISR. ISR
    unchanged, receivers = AR. When the AR head already leads: 'not_needed' (0.8-1.0,
    2.2+) or 'reelect' (1.1-2.1: same leader, new leader epoch)."""
    if not assignment:
        return ElectionFailure(ElectionKind.preferred, FailureReason.NO_REPLICAS_ASSIGNED, "no replicas assigned")
    preferred = assignment[0]
    if preferred == leader and already_leader == "not_needed":
        return ElectionFailure(ElectionKind.preferred, FailureReason.ELECTION_NOT_NEEDED,
                               f"preferred replica {preferred} is already the leader")
    if preferred in live and preferred in isr:
        return Election(ElectionKind.preferred, preferred, tuple(isr), tuple(assignment))
    return ElectionFailure(ElectionKind.preferred, FailureReason.PREFERRED_REPLICA_NOT_ELIGIBLE,
                           f"preferred replica {preferred} is not live and in ISR {list(isr)}")


def controlled_shutdown_election(assignment: Ids, isr: Ids, live: Collection[int],
                                 shutting_down: Collection[int], leader: int, *,
                                 variant: str, receivers_include_shutting_down: bool) -> Outcome:
    """ControlledShutdownLeaderSelector. New ISR = ISR minus shutting-down brokers
    (0.8.0 also drops the old leader). Leader: its head, with no liveness check
    (variants 'isr_head_without_old_leader' 0.8.0, 'isr_head' 0.8.1-0.9), or the
    first AR member that is live and in the new ISR ('assignment', 0.10+)."""
    new_isr = tuple([r for r in isr if r not in shutting_down])
    if variant == "isr_head_without_old_leader":
        new_isr = tuple([r for r in new_isr if r != leader])
    if variant == "assignment":
        new_leader = next((r for r in assignment if r in new_isr and (r in live or r in shutting_down)), NO_LEADER)
    else:
        new_leader = new_isr[0] if new_isr else NO_LEADER
    if new_leader == NO_LEADER:
        return ElectionFailure(ElectionKind.controlled_shutdown, FailureReason.NO_ELIGIBLE_REPLICA_OUTSIDE_SHUTTING_DOWN,
                               f"no other replicas in ISR {list(isr)} besides shutting down brokers {sorted(shutting_down)}")
    receivers = tuple([r for r in assignment if r in live or (receivers_include_shutting_down and r in shutting_down)])
    return Election(ElectionKind.controlled_shutdown, new_leader, new_isr, receivers)


def noop_election(assignment: Ids, isr: Ids, leader: int) -> Outcome:
    """NoOpLeaderSelector (<= 1.0): the current leader and ISR, unchanged."""
    return Election(ElectionKind.noop, leader, tuple(isr), tuple(assignment))


def last_known_leader(target_isr: Ids, elr: Ids, last_known_elr: Ids) -> int | None:
    """PartitionChangeBuilder.canElectLastKnownLeader (KIP-966, ELR on): with the ISR and the ELR
    both empty, the lone member of lastKnownElr, whatever unclean.leader.election.enable says.
    From 4.1 Kafka also requires it to be an acceptable leader (alive, unfenced): a selector checks
    that (era.last_known_leader); the replay's check judges an election already recorded."""
    return last_known_elr[0] if not target_isr and not elr and len(last_known_elr) == 1 else None


def is_valid_new_leader(replica: int, target_isr: Ids, elr: Ids, acceptable: Collection[int] | None = None) -> bool:
    """PartitionChangeBuilder.isValidNewLeader (Kafka 3.9.0,
    metadata/src/main/java/org/apache/kafka/controller/PartitionChangeBuilder.java), KIP-966's
    rule, the one predicate every KRaft election and the replay's judgement of one read: in the
    target ISR, or in the ELR when the ISR is empty; and acceptable (alive, unfenced).
    `acceptable` None: not judged here (a recorded election's liveness is checked apart)."""
    return ((replica in target_isr or (not target_isr and replica in elr))
            and (acceptable is None or replica in acceptable))


def _kraft_valid_leader(target_isr: Ids, elr: Ids, acceptable: Collection[int]):
    """is_valid_new_leader, bound to one election's target ISR, ELR and acceptable replicas."""
    return lambda r: is_valid_new_leader(r, target_isr, elr, acceptable)


def _kraft_last_known_leader(assignment: Ids, target_isr: Ids, elr: Ids, last_known_elr: Ids,
                             acceptable: Collection[int], kind: ElectionKind, variant: str) -> Election | None:
    """variant (era.last_known_leader): "none" (before 3.7), "even_if_dead" (3.7-4.0: Kafka only
    logs that it is not alive), "if_alive" (4.1+)."""
    r = None if variant == "none" else last_known_leader(target_isr, elr, last_known_elr)
    if r is None or (variant == "if_alive" and r not in acceptable):
        return None
    return Election(kind, r, (r,), tuple(assignment), unclean=True)


def kraft_election(assignment: Ids, target_isr: Ids, leader: int, acceptable: Collection[int], *,
                   unclean_allowed: bool, elr: Ids = (), last_known_elr: Ids = (), last_known: str = "if_alive") -> Outcome:
    """PartitionChangeBuilder.electAnyLeader (ONLINE / UNCLEAN): keep a still-valid
    leader; else the first AR member in the target ISR (or ELR when the ISR is empty)
    that is acceptable; else the last known leader (ELR enabled); else, if unclean is
    allowed, the first acceptable AR member. Unclean sets ISR = [leader]."""
    valid = _kraft_valid_leader(target_isr, elr, acceptable)
    if leader != NO_LEADER and valid(leader):
        return Election(ElectionKind.offline, leader, tuple(target_isr), tuple(assignment))
    for r in assignment:
        if valid(r):
            isr = tuple(target_isr) if target_isr else (r,)
            return Election(ElectionKind.offline, r, isr, tuple(assignment))
    elected = _kraft_last_known_leader(assignment, target_isr, elr, last_known_elr, acceptable, ElectionKind.unclean,
                                       last_known)
    if elected is not None:
        return elected
    if unclean_allowed:
        for r in assignment:
            if r in acceptable:
                return Election(ElectionKind.unclean, r, (r,), tuple(assignment), unclean=True)
    return ElectionFailure(ElectionKind.offline, FailureReason.NO_ISR_REPLICA_ONLINE if any(r in acceptable for r in assignment)
                           else FailureReason.NO_REPLICA_ONLINE, "no acceptable replica in ISR")


def kraft_preferred_election(assignment: Ids, target_isr: Ids, leader: int, acceptable: Collection[int], *,
                             elr: Ids = (), last_known_elr: Ids = (), last_known: str = "if_alive") -> Outcome:
    """PartitionChangeBuilder.electPreferredLeader: AR head if valid, else keep the
    current leader if valid, else the first other valid replica, else the last known
    leader (3.7+), the one unclean choice it makes."""
    valid = _kraft_valid_leader(target_isr, elr, acceptable)
    if assignment and valid(assignment[0]):
        if assignment[0] == leader:
            return ElectionFailure(ElectionKind.preferred, FailureReason.ELECTION_NOT_NEEDED, "preferred replica already leads")
        return Election(ElectionKind.preferred, assignment[0], tuple(target_isr) or (assignment[0],), tuple(assignment))
    if leader != NO_LEADER and valid(leader):
        return ElectionFailure(ElectionKind.preferred, FailureReason.PREFERRED_REPLICA_NOT_ELIGIBLE, "preferred replica not valid; leader kept")
    for r in assignment:
        if valid(r):
            return Election(ElectionKind.preferred, r, tuple(target_isr) or (r,), tuple(assignment))
    elected = _kraft_last_known_leader(assignment, target_isr, elr, last_known_elr, acceptable, ElectionKind.preferred,
                                       last_known)
    if elected is not None:
        return elected
    return ElectionFailure(ElectionKind.preferred, FailureReason.NO_REPLICA_ONLINE, "no valid replica")


class SelectorInput(NamedTuple):
    """The plain values a selector may read, gathered by the replay."""
    assignment: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    live: frozenset[int] | set[int]
    shutting_down: frozenset[int] | set[int]
    target: tuple[int, ...] | None
    unclean_allowed: bool
    # KRaft (KIP-966): the eligible leader replicas and the last known ELR the election reads.
    elr: tuple[int, ...] = ()
    last_known_elr: tuple[int, ...] = ()


# Each election kind's selector, with the era's variant bound: the one table the replay,
# the generator and the docs read.
ZK_SELECTORS = {
    ElectionKind.initial: lambda era, s: initial_election(s.assignment, s.live),
    ElectionKind.offline: lambda era, s: offline_election(
        s.assignment, s.isr, s.live, unclean_allowed=s.unclean_allowed, order=era.offline_leader_order),
    ElectionKind.reassign: lambda era, s: reassign_election(
        s.target or (), s.isr, s.live, requires_isr=era.reassign_requires_isr),
    ElectionKind.preferred: lambda era, s: preferred_election(
        s.assignment, s.isr, s.live, s.leader, already_leader=era.preferred_already_leader),
    ElectionKind.controlled_shutdown: lambda era, s: controlled_shutdown_election(
        s.assignment, s.isr, s.live, s.shutting_down, s.leader, variant=era.controlled_shutdown_leader,
        receivers_include_shutting_down=era.controlled_shutdown_receivers_include_shutting_down),
    ElectionKind.noop: lambda era, s: noop_election(s.assignment, s.isr, s.leader),
}
ZK_SELECTORS[ElectionKind.unclean] = ZK_SELECTORS[ElectionKind.offline]

KRAFT_SELECTORS = {kind: (lambda era, s: kraft_election(
    s.target or s.assignment, s.isr, s.leader, s.live, unclean_allowed=s.unclean_allowed, elr=s.elr,
    last_known_elr=s.last_known_elr, last_known=era.last_known_leader))
    for kind in ElectionKind}
KRAFT_SELECTORS[ElectionKind.preferred] = lambda era, s: kraft_preferred_election(
    s.assignment, s.isr, s.leader, s.live, elr=s.elr, last_known_elr=s.last_known_elr, last_known=era.last_known_leader)

SELECTORS = {"zk": ZK_SELECTORS, "kraft": KRAFT_SELECTORS}


def select(kind: ElectionKind, era, s: SelectorInput) -> Outcome:
    """Run the selector for `kind` with the variant `era` prescribes."""
    return SELECTORS[era.mode][kind](era, s)
