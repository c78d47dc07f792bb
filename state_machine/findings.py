"""A violation's facts, and the one place its detail sentence is written from them.

A check returns what it found as data: a dict of str to str, the values as the sentence
shows them (an id, a list of ids `[1, 2]`, a state's name). `case` names which of its
rule's findings it is; the other keys are Kafka's words for what the check compared (the
leader, the ISR before, the selector's choice, the era behaviour applied). `render` turns
the facts into the `detail` text, as Elle's explainer renders an anomaly kept as data."""
from __future__ import annotations

from typing import Callable, Iterable

Facts = dict[str, str]


def ids(replicas: Iterable[int]) -> str:
    """A list of broker ids as a fact, in its recorded order: `[1, 2]`."""
    return str(list(replicas))


def sorted_ids(brokers: Iterable[int]) -> str:
    """A set of broker ids as a fact, in ascending order: `[1, 2]`."""
    return str(sorted(brokers))


# Said of a KRaft unclean election, by the era behaviour the facts name.
_ADMIN_ONLY_NOTE = ("; this release's controller does not read unclean.leader.election.enable (KRaft before 3.9): "
                    "only an admin UNCLEAN election elects outside the ISR")

_LAST_KNOWN_LEADER_NOTE = ("; elected as the last known leader (KIP-966 lastKnownElr): with the ISR and the ELR empty, "
                           "the controller elects it whatever unclean.leader.election.enable says, and marks the "
                           "partition RECOVERING")

# KRaft 3.7.0-4.0.2 (era last_known_leader "even_if_dead"); 4.1.0+ would not elect it.
_DEAD_LAST_KNOWN_LEADER_NOTE = ("; it was not alive (fenced or shutting down): 3.7.0-4.0.2 elect the last known leader "
                                "anyway (canElectLastKnownLeader only logs it), and the partition waits for it")


def _kraft_unclean(f: Facts) -> str:
    note = (_LAST_KNOWN_LEADER_NOTE if f.get("last_known_leader") == "true" else
            _ADMIN_ONLY_NOTE if f.get("unclean_gate") == "admin_only" else "")
    if f.get("last_known_leader_dead") == "true":
        note += _DEAD_LAST_KNOWN_LEADER_NOTE
    return (f"leader {f['leader']} was not in the previous ISR {f['isr_before']} (previous leader {f['leader_before']})"
            f"{note}")


def _rejected(f: Facts) -> str:
    """A transition the controller attempted and refused; `handling` names the input whose own
    step it was, when it was one."""
    replica = f"replica {f['replica']} " if "replica" in f else ""
    what = f"the controller rejected {replica}{f['from_state']} -> {f['to_state']}"
    if "handling" not in f:
        return f"{what}: {f['exception']}"
    return (f"{what}, a step this era's controller takes itself (handling {f['handling']}) and its own state "
            f"machine refuses: {f['exception']}")


def _stale(f: Facts) -> str:
    by = f" (controller {f['seen_controller']})" if "seen_controller" in f else ""   # none: a carried epoch
    return (f"decision by controller {f['controller']} at controller epoch {f['controller_epoch']}, but epoch "
            f"{f['seen_controller_epoch']}{by} was already seen")


def _not_live(f: Facts) -> str:
    known = f"live {f['live']}" if "live" in f else f"known dead: {f['known_dead']}"
    return f"broker {f['leader']} was elected leader but is not live ({known})"


# (rule, case) -> the sentence: a template of the facts' names, or a function of the facts
# where a fact may be absent.
_DETAIL: dict[tuple[str, str], str | Callable[[Facts], str]] = {
    ("STALE_CONTROLLER_EPOCH", "older_epoch"): _stale,
    ("DUPLICATE_CONTROLLER_EPOCH", "two_controllers"):
        "controllers {controller_before} and {controller} both acted at controller epoch {controller_epoch}",
    ("UNCLEAN_LEADER_ELECTION", "outside_isr"):
        "leader {leader} elected at leader epoch {leader_epoch} was not in the previous ISR {isr_before} "
        "(previous leader {leader_before})",
    ("UNCLEAN_LEADER_ELECTION", "kraft_outside_isr"): _kraft_unclean,
    ("UNCLEAN_LEADER_ELECTION", "logged_not_replayed"):
        "the controller logged an unclean election of leader {leader} that the replayed history does not show",
    ("UNEXPECTED_LEADER", "selector_chooses_another"):
        "{election} election chose {leader}; the {era} selector chooses {expected_leader} "
        "(AR {replicas}, ISR {isr}, live {live})",
    ("UNEXPECTED_LEADER", "selector_elects_no_one"):
        "{election} election chose {leader}; the {era} selector elects no one: {selector_failure}",
    ("UNEXPECTED_LEADER", "leader_not_live"): _not_live,
    ("UNEXPECTED_LEADER", "leader_shutting_down"): "broker {leader} was elected leader while shutting down",
    ("UNEXPECTED_LEADER", "kraft_leader_not_acceptable"):
        "KRaft elected {leader}, which was not alive (acceptable {acceptable}); "
        "PartitionChangeBuilder elects only an acceptable leader",
    ("UNEXPECTED_LEADER", "kraft_chooses_another"):
        "KRaft election chose {leader}; PartitionChangeBuilder chooses {expected_leader} "
        "(replicas {replicas}, ISR {isr}, acceptable {acceptable})",
    ("ISR_NOT_SUBSET_OF_REPLICAS", "outside_replicas"): "ISR {isr} has {outside} outside the assigned replicas {replicas}",
    ("LEADER_NOT_IN_REPLICAS", "not_assigned"): "leader {leader} is not an assigned replica {replicas}",
    ("LEADER_NOT_IN_ISR", "not_in_isr"): "leader {leader} is not in its ISR {isr}",
    ("LEADER_EPOCH_REGRESSION", "lower_epoch"):
        "leader {leader} at leader epoch {leader_epoch} after leader {recorded_leader} "
        "at leader epoch {recorded_leader_epoch} was recorded",
    ("LEADER_EPOCH_REGRESSION", "isr_change_by_former_leader"):
        "ISR change by broker {isr_writer}, but the leader is {leader} at epoch {leader_epoch}",
    ("ILLEGAL_PARTITION_TRANSITION", "invalid_previous_state"):
        "{from_state} -> {to_state} is not a valid transition in era {era} (valid previous states: {valid_previous_states})",
    ("ILLEGAL_REPLICA_TRANSITION", "invalid_previous_state"):
        "replica {replica}: {from_state} -> {to_state} is not a valid transition in era {era} "
        "(valid previous states: {valid_previous_states})",
    ("ILLEGAL_PARTITION_TRANSITION", "rejected"): _rejected,
    ("ILLEGAL_REPLICA_TRANSITION", "rejected"): _rejected,
}


def render(rule: str, facts: Facts) -> str:
    """The `detail` sentence of a violation of `rule` with these facts."""
    detail = _DETAIL[(rule, facts["case"])]
    return detail.format_map(facts) if isinstance(detail, str) else detail(facts)
