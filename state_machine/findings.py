"""A violation's facts, and the one place its detail sentence is written from them.

A check returns what it found as data: a dict of str to str, the values as the sentence
shows them (an id, a list of ids `[1, 2]`, a state's name). `case` names which of its
rule's findings it is, `era` the era whose rules judged it; the other keys are Kafka's words
for what the check compared (the leader, the ISR before, the selector's choice, the era
behaviour applied). FINDINGS declares each finding's keys and the replay's values its check
reads, FACT_KEYS what each key means, REPLAY_VALUES what each value is: the `violations` table's
`facts` column holds them (docs/rules.md lists them), and `render` turns them into the `detail`
text, as Elle's explainer renders an anomaly kept as data."""
from __future__ import annotations

from typing import Callable, Iterable, NamedTuple

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
    note = (_LAST_KNOWN_LEADER_NOTE if f.get("last_known_leader_elected") == "true" else
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
    """`live` where every live broker is known, else the ones known dead."""
    known = f"live {f['live']}" if "live" in f else f"known dead: {f['known_dead']}"
    return f"broker {f['leader']} was elected leader but is not live ({known})"


# Every violation's facts hold these two.
COMMON = ("case", "era")

# The replay's values a check may read, the partition's or the cluster's as the history left them
# before the offending record (what the record itself carries is no value of the replay's).
REPLAY_VALUES: dict[str, str] = {
    "leader": "The partition's leader.",
    "leader_epoch": "The partition's leader epoch.",
    "isr": "The partition's ISR.",
    "replicas": "The partition's assigned replicas (AR), and the target replicas of a reassignment in flight.",
    "elr": "KRaft: the eligible leader replicas and the last known ELR (KIP-966).",
    "live": "The brokers alive, dead and shutting down, as the broker inputs (and a new controller's list) showed them.",
    "unclean_setting": "The topic's or the cluster's unclean.leader.election.enable, as a config event showed it.",
    "controller_epoch": "The highest controller epoch seen, and its controller.",
    "recorded_epoch": "The highest leader epoch a record showed, and its leader.",
    "partition_state": "The partition's state (the record's own previous state when it names one).",
    "replica_state": "The replica's state (the record's own previous state when it names one).",
    "pending": "The steps the controller's inputs queued that no record has claimed yet.",
}

# The values the replay infers where no record shows them (ZooKeeper mode; KRaft's metadata records
# are complete): an election line that names the leader alone (0.8-1.0) leaves its ISR and leader
# epoch to the selector, a step no line logged (an INFO log, a missing file) writes the leader, the
# ISR and the leader epoch, and a partition whose creation no line shows has the assignment its
# replicas' lines name. A check that reads one of them while it is inferred names it in the fact
# `inferred`, and its severity is at most a warning (checks.inferred_value_severity): no error
# rests on a value no record showed.
INFERABLE = ("leader", "leader_epoch", "isr", "replicas")

# What each key of a violation's facts means; a key means the same in every finding that has it.
FACT_KEYS: dict[str, str] = {
    "case": "Which of its rule's findings the violation is.",
    "era": "The named era whose rules judged it (state_machine/eras.py).",
    "leader": "The leader the offending record elects or names (broker id, -1 = none); for an ISR change by a "
              "former leader, the leader the partition has.",
    "leader_epoch": "The leader epoch of `leader`.",
    "leader_before": "The partition's leader before the record.",
    "leader_epoch_before": "The partition's leader epoch before the record.",
    "isr": "The ISR the check read: the record's, or the one the era's selector was given.",
    "isr_before": "The partition's ISR before the record.",
    "elr_before": "KRaft: the eligible leader replicas (KIP-966) before the record; electing one of them is clean.",
    "last_known_elr_before": "KRaft: the last known ELR (KIP-966) before the record.",
    "replicas": "The assigned replicas the check read (AR, in order).",
    "target_replicas": "ZooKeeper mode: the target replicas (RAR) of the reassignment in flight, which the ISR and "
                       "the leader may also be in.",
    "outside": "The ISR's members outside the assigned replicas.",
    "expected_leader": "The leader the era's selector chooses from the same state.",
    "election": "The election the era's selector ran (selectors.ElectionKind): offline, reassign, preferred, "
                "controlled_shutdown, noop.",
    "selector_failure": "Why the era's selector elects no one.",
    "live": "The brokers alive (for a selector: taken for alive and not shutting down); for a leader not live, "
            "only where every live broker is known.",
    "known_dead": "The brokers known dead.",
    "acceptable": "KRaft: the brokers PartitionChangeBuilder may elect (alive, not in controlled shutdown).",
    "shutting_down": "The brokers in controlled shutdown.",
    "recorded_leader": "The leader of the highest leader epoch a record showed before.",
    "recorded_leader_epoch": "That highest leader epoch.",
    "isr_writer": "The broker whose ISR change it was.",
    "controller": "The controller (broker id) of the decision.",
    "controller_epoch": "The controller epoch of the decision.",
    "controller_before": "The other controller that acted at the same controller epoch.",
    "controller_epoch_strict": "Era behaviour: true where a failed controller epoch increment stops the "
                               "controller (1.1+), false where it was only logged.",
    "seen_controller_epoch": "The highest controller epoch seen before.",
    "seen_controller": "The controller of that epoch, where known (not for a carried epoch).",
    "from_state": "The state the transition left.",
    "to_state": "The state the transition entered.",
    "valid_previous_states": "The era's valid previous states of `to_state`.",
    "replica": "The replica (broker id) whose state changed.",
    "exception": "The controller's message refusing the transition.",
    "handling": "The input in whose handling the era's controller takes the refused step itself.",
    "unclean_gate": "Era behaviour: what allows an unclean election: always (0.8.0-0.8.1), topic_config "
                    "(unclean.leader.election.enable), admin_only (KRaft before 3.9).",
    "unclean_leader_election_enable": "The topic's unclean.leader.election.enable (else the cluster's) the history "
                                      "showed: true or false; absent when no event showed it.",
    "admin_unclean_election": "true when an admin UNCLEAN election (KIP-460) made it.",
    "last_known_leader_elected": "KRaft: true when the leader was elected as the last known leader (KIP-966).",
    "last_known_leader_dead": "KRaft: true when that last known leader was not alive (3.7.0-4.0.2 elect it anyway).",
    "records_lost_lower": "A lower bound on the records the unclean election lost (the old leader held them, the "
                          "new leader did not; with acks=1 their producers had been acknowledged), or `unknown` "
                          "(state_machine/records_at_risk.py).",
    "records_lost_lower_from": "How the lower bound was obtained, with the lines that printed the offsets; or why "
                               "it is unknown.",
    "records_lost_upper": "An upper bound on those records, or `unknown`.",
    "records_lost_upper_from": "How the upper bound was obtained, with the lines; or why it is unknown.",
    "old_leader": "The leader whose records the unclean election put at risk: the leader before it, else the one "
                  "replica left in the ISR (or KRaft's last known ELR); absent when unknown.",
    "new_leader_start_offset": "The new leader's log end offset as it became leader (`starts at leader epoch E "
                               "from offset O`, 0.11+).",
    "new_leader_high_watermark": "The high watermark the new leader printed as it became leader (2.4+).",
    "old_leader_log_end_offset": "The old leader's log end offset after the election, before it truncated (a "
                                 "follower start 2.6+, a log loaded as it restarted, a truncation with no effect).",
    "old_leader_high_watermark": "The old leader's last high watermark printed before it truncated.",
    "old_leader_truncation_offset": "The offset the old leader truncated its log to after the election.",
    "inferred": "The replay's values the check read that no record showed, which the replay inferred (of "
                "`leader`, `leader_epoch`, `isr`, `replicas`; comma-separated): the severity is then at most "
                "warning. Absent when every value it read was recorded.",
}


class Finding(NamedTuple):
    """One finding of a rule: the facts it always carries (besides COMMON), those it carries when
    known, its detail sentence (a template of the facts' names or a function of the facts), and
    the replay's values its check reads (REPLAY_VALUES)."""
    rule: str
    case: str
    facts: tuple[str, ...]
    when_known: tuple[str, ...]
    detail: str | Callable[[Facts], str]
    reads: tuple[str, ...] = ()

    @property
    def inferable(self) -> tuple[str, ...]:
        """The values it reads that the replay may have inferred (INFERABLE)."""
        return tuple(v for v in self.reads if v in INFERABLE)

    @property
    def optional(self) -> tuple[str, ...]:
        """The facts it carries when known: `when_known`, and `inferred` where it reads an inferable value."""
        return (*self.when_known, "inferred") if self.inferable else self.when_known


_UNCLEAN = ("unclean_gate", "admin_unclean_election")
# An unclean election's records at risk (state_machine.records_at_risk): the bounds always, the offsets when printed.
RECORDS_LOST = ("records_lost_lower", "records_lost_lower_from", "records_lost_upper", "records_lost_upper_from")
RECORDS_OFFSETS = ("old_leader", "new_leader_start_offset", "new_leader_high_watermark", "old_leader_log_end_offset",
                   "old_leader_high_watermark", "old_leader_truncation_offset")

FINDINGS: tuple[Finding, ...] = (
    Finding("STALE_CONTROLLER_EPOCH", "older_epoch", ("controller", "controller_epoch", "seen_controller_epoch"),
            ("seen_controller",), _stale, reads=("controller_epoch",)),
    Finding("DUPLICATE_CONTROLLER_EPOCH", "two_controllers",
            ("controller_before", "controller", "controller_epoch", "controller_epoch_strict"), (),
            "controllers {controller_before} and {controller} both acted at controller epoch {controller_epoch}",
            reads=("controller_epoch",)),
    Finding("UNCLEAN_LEADER_ELECTION", "outside_isr",
            ("leader", "leader_epoch", "leader_before", "leader_epoch_before", "isr_before", *_UNCLEAN, *RECORDS_LOST),
            ("unclean_leader_election_enable", *RECORDS_OFFSETS),
            "leader {leader} elected at leader epoch {leader_epoch} was not in the previous ISR {isr_before} "
            "(previous leader {leader_before})", reads=("isr", "unclean_setting")),
    Finding("UNCLEAN_LEADER_ELECTION", "kraft_outside_isr",
            ("leader", "leader_epoch", "leader_before", "leader_epoch_before", "isr_before", "elr_before",
             "last_known_elr_before", *_UNCLEAN, "last_known_leader_elected", *RECORDS_LOST),
            ("unclean_leader_election_enable", "last_known_leader_dead", *RECORDS_OFFSETS), _kraft_unclean,
            reads=("isr", "elr", "unclean_setting")),
    Finding("UNCLEAN_LEADER_ELECTION", "logged_not_replayed", ("leader", "unclean_gate"),
            ("unclean_leader_election_enable",),
            "the controller logged an unclean election of leader {leader} that the replayed history does not show",
            reads=("leader", "isr", "unclean_setting")),
    Finding("UNEXPECTED_LEADER", "selector_chooses_another",
            ("election", "leader", "expected_leader", "replicas", "isr", "live"), (),
            "{election} election chose {leader}; the {era} selector chooses {expected_leader} "
            "(AR {replicas}, ISR {isr}, live {live})", reads=("replicas", "isr", "leader", "live", "unclean_setting")),
    Finding("UNEXPECTED_LEADER", "selector_elects_no_one",
            ("election", "leader", "selector_failure", "replicas", "isr", "live"), (),
            "{election} election chose {leader}; the {era} selector elects no one: {selector_failure}",
            reads=("replicas", "isr", "leader", "live", "unclean_setting")),
    Finding("UNEXPECTED_LEADER", "leader_not_live", ("leader", "known_dead"), ("live",), _not_live, reads=("live",)),
    Finding("UNEXPECTED_LEADER", "leader_shutting_down", ("leader", "shutting_down"), (),
            "broker {leader} was elected leader while shutting down", reads=("live",)),
    Finding("UNEXPECTED_LEADER", "kraft_leader_not_acceptable", ("leader", "acceptable"), (),
            "KRaft elected {leader}, which was not alive (acceptable {acceptable}); "
            "PartitionChangeBuilder elects only an acceptable leader", reads=("live",)),
    Finding("UNEXPECTED_LEADER", "kraft_chooses_another", ("leader", "expected_leader", "replicas", "isr", "acceptable"),
            (), "KRaft election chose {leader}; PartitionChangeBuilder chooses {expected_leader} "
                "(replicas {replicas}, ISR {isr}, acceptable {acceptable})", reads=("replicas", "isr", "elr", "live")),
    Finding("ISR_NOT_SUBSET_OF_REPLICAS", "outside_replicas", ("isr", "outside", "replicas"), ("target_replicas",),
            "ISR {isr} has {outside} outside the assigned replicas {replicas}", reads=("replicas",)),
    Finding("LEADER_NOT_IN_REPLICAS", "not_assigned", ("leader", "isr", "replicas"), ("target_replicas",),
            "leader {leader} is not an assigned replica {replicas}", reads=("replicas", "leader")),
    Finding("LEADER_NOT_IN_ISR", "not_in_isr", ("leader", "isr"), (), "leader {leader} is not in its ISR {isr}",
            reads=("leader",)),
    Finding("LEADER_EPOCH_REGRESSION", "lower_epoch",
            ("leader", "leader_epoch", "recorded_leader", "recorded_leader_epoch"), (),
            "leader {leader} at leader epoch {leader_epoch} after leader {recorded_leader} "
            "at leader epoch {recorded_leader_epoch} was recorded", reads=("recorded_epoch",)),
    Finding("LEADER_EPOCH_REGRESSION", "isr_change_by_former_leader", ("isr_writer", "leader", "leader_epoch"),
            ("isr",), "ISR change by broker {isr_writer}, but the leader is {leader} at epoch {leader_epoch}",
            reads=("leader",)),
    Finding("ILLEGAL_PARTITION_TRANSITION", "invalid_previous_state",
            ("from_state", "to_state", "valid_previous_states"), (),
            "{from_state} -> {to_state} is not a valid transition in era {era} (valid previous states: "
            "{valid_previous_states})", reads=("partition_state",)),
    Finding("ILLEGAL_REPLICA_TRANSITION", "invalid_previous_state",
            ("replica", "from_state", "to_state", "valid_previous_states"), (),
            "replica {replica}: {from_state} -> {to_state} is not a valid transition in era {era} "
            "(valid previous states: {valid_previous_states})", reads=("replica_state",)),
    Finding("ILLEGAL_PARTITION_TRANSITION", "rejected", ("from_state", "to_state", "exception"), ("handling",),
            _rejected, reads=("pending",)),
    Finding("ILLEGAL_REPLICA_TRANSITION", "rejected", ("replica", "from_state", "to_state", "exception"),
            ("handling",), _rejected, reads=("pending",)),
)

_BY_CASE: dict[tuple[str, str], Finding] = {(f.rule, f.case): f for f in FINDINGS}


def finding(rule: str, facts: Facts) -> Finding:
    """The finding of `rule` these facts are (by their `case`)."""
    return _BY_CASE[(rule, facts["case"])]


def undeclared(rule: str, facts: Facts) -> tuple[list[str], list[str]]:
    """(keys its finding always carries that `facts` lacks, keys `facts` holds that its finding
    does not declare)."""
    f = finding(rule, facts)
    required = (*COMMON, *f.facts)
    return ([k for k in required if k not in facts],
            [k for k in facts if k not in required and k not in f.optional])


# A replay value as the detail names it.
_VALUE_WORDS = {"leader": "leader", "leader_epoch": "leader epoch", "isr": "ISR", "replicas": "assigned replicas"}


def _inferred_note(inferred: str) -> str:
    """Said of a verdict that rests on values no record showed (the fact `inferred`)."""
    words = [f"the {_VALUE_WORDS[v]}" for v in inferred.split(", ")]
    named = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"; no record showed {named}: the replay inferred {'it' if len(words) == 1 else 'them'}"


def records_lost_text(facts: Facts) -> str | None:
    """An unclean election's records lost, as the detail and the report say it: `500`, `0 to 500`,
    `at least 200`, `at most 500`, `unknown`; None for a violation that has no such facts."""
    lower, upper = facts.get("records_lost_lower"), facts.get("records_lost_upper")
    if lower is None or upper is None:
        return None
    if lower == upper:
        return lower
    if lower != "unknown" and upper != "unknown":
        return f"{lower} to {upper}"
    if lower != "unknown":
        return f"at least {lower}"
    return f"at most {upper}" if upper != "unknown" else "unknown"


def render(rule: str, facts: Facts) -> str:
    """The `detail` sentence of a violation of `rule` with these facts."""
    detail = finding(rule, facts).detail
    text = detail.format_map(facts) if isinstance(detail, str) else detail(facts)
    lost = records_lost_text(facts)
    if lost is not None:
        text += f"; records lost: {lost}"
    inferred = facts.get("inferred")
    return text if inferred is None else text + _inferred_note(inferred)
