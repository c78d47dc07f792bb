"""How Kafka prints the values inside its messages (spec kafka-log-formats §2.2): partition
tokens, broker lists in their Scala/Java collection forms, and (parse_leader_and_isr) the
LeaderAndIsr forms of every era."""
from __future__ import annotations

import re

from schemas.validate import load_json

_PARTITION_OLD = re.compile(r"\[([^,\]]+),(\d+)\]$")     # TopicAndPartition "[t,0]" (controller <=1.0, broker <=0.10.1)
_COLLECTION = re.compile(r"^(?:[A-Za-z]+)?[\(\[\{]?(.*?)[\)\]\}]?$", re.S)


def parse_partition(token: str) -> tuple[str, int]:
    """`[t,0]` or `t-0` (topic names may contain '-': the partition follows the last one)."""
    token = token.strip()
    m = _PARTITION_OLD.match(token)
    if m is not None:
        return m[1], int(m[2])
    topic, sep, part = token.rpartition("-")
    if not sep or not topic or not part.isdigit():
        raise ValueError(f"not a partition: {token!r}")
    return topic, int(part)


def parse_int_list(text: str) -> list[int]:
    """Broker ids in any printed form: `1,2,3`, `List(1, 2)`, `Set(0, 1)`, `HashSet()`,
    `ArrayBuffer(1)`, `Vector(1, 2)`, `[1,2]`, `[1, 2]`, `` (empty)."""
    text = text.strip()
    if not text:
        return []
    m = _COLLECTION.match(text)
    inner = m[1] if m is not None else text
    return [int(x) for x in inner.replace(" ", "").split(",") if x != ""]


# Regex text of the values the ZooKeeper-mode controller.log and server.log rows embed
# (ingest.zk_controller, ingest.zk_server): a partition token, TopicAndPartition `[t,0]`
# (controller <=1.0, broker <=0.10.1) or TopicPartition `t-0` (the topic may contain '-':
# parse_partition splits on the last one), as group `tp`; an id list as `mkString(",")` prints it.
PARTITION_TOKEN = r"(?P<tp>\[[\w.-]+,\d+\]|[\w.-]+-\d+)"
JOINED_IDS = r"[\d,]*"
JOINED_IDS_NONEMPTY = r"\d[\d,]*"  # a list Kafka never prints empty


def parse_joined_ids(text: str) -> list[int]:
    """An id list the row's regex already checked (`1,2,3` or empty): no collection parsing."""
    return [int(x) for x in text.split(",")] if text else []


# --- LeaderAndIsr in every printed form (spec §2.2) -----------------------------------
# Each form is written once with named groups (for parsing); the parser modules embed the
# same text without the names (`*_TEXT`) so that a line matches only if its value parses.

def _unnamed(regex: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", regex)


_INT = r"-?\d+"
_INTS = r"(?:-?\d+(?:, ?-?\d+)*)?"          # `1,2` (mkString) or `1, 2` (Scala/Java collections)
_LIST = rf"(?:\[{_INTS}\]|{_INTS})"         # Arrays.toString / generated `[1, 2]`, Utils.join `1,2`
# LeaderAndIsr.toString: 1.1-3.1 `isr=List(..), zkVersion=`, 3.2 adds leaderRecoveryState,
# 3.3-3.4 `partitionEpoch=`, 3.5-3.9 `isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), ..)`.
_LAI_HEAD = rf"LeaderAndIsr\(leader=(?P<leader>{_INT}), leaderEpoch=(?P<leader_epoch>{_INT}), "
_LAI_ISR = rf"isr=(?P<isr>[A-Za-z]*\({_INTS}\))"
_LAI_ISR_STATES = (r"isrWithBrokerEpoch=(?P<isr_states>[A-Za-z]*\("
                   rf"(?:BrokerState\(brokerId={_INT}, brokerEpoch={_INT}\)(?:, )?)*\))")
_LAI_RECOVERY = r", leaderRecoveryState=(?P<leader_recovery_state>RECOVERED|RECOVERING)"
_LAI_ZK = rf", zkVersion=(?P<zk_version>{_INT})\)"
_LAI_PARTITION_EPOCH = rf", partitionEpoch=(?P<zk_version>{_INT})\)"
_LEADER_AND_ISR_NAMED = (_LAI_HEAD + rf"(?:{_LAI_ISR}|{_LAI_ISR_STATES})(?:{_LAI_RECOVERY})?"
                         rf", (?:zkVersion|partitionEpoch)=(?P<zk_version>{_INT})\)")
# LeaderIsrAndControllerEpoch.toString: ZkVersion from 2.7.2/2.8.1/3.1 (KAFKA-13233),
# LeaderRecoveryState from 3.2.
_WRAPPER_HEAD = rf"\(Leader:(?P<leader>{_INT}),ISR:(?P<isr>[\d,]*),"
_WRAPPER_RECOVERY = r"LeaderRecoveryState:(?P<leader_recovery_state>RECOVERED|RECOVERING),"
_WRAPPER_EPOCH = rf"LeaderEpoch:(?P<leader_epoch>{_INT}),"
_WRAPPER_ZK = rf"ZkVersion:(?P<zk_version>{_INT}),"
_WRAPPER_TAIL = rf"ControllerEpoch:(?P<controller_epoch>{_INT})\)"
_CONTROLLER_EPOCH_WRAPPER_NAMED = (_WRAPPER_HEAD + f"(?:{_WRAPPER_RECOVERY})?" + _WRAPPER_EPOCH + f"(?:{_WRAPPER_ZK})?"
                                   + _WRAPPER_TAIL)
# PartitionStateInfo.toString (0.8-0.9 requests and broker cache); the unbalanced `)` is Kafka's.
_PARTITION_STATE_INFO_NAMED = (
    rf"\(LeaderAndIsrInfo:\(Leader:(?P<leader>{_INT}),ISR:(?P<isr>[\d,]*),LeaderEpoch:(?P<leader_epoch>{_INT}),"
    rf"ControllerEpoch:(?P<controller_epoch>{_INT})\),ReplicationFactor:\d+\),AllReplicas:(?P<replicas>[\d,]*)\)")
# Request partition states: the hand-written PartitionState (0.10-2.3) and the generated
# LeaderAndIsrPartitionState / UpdateMetadataPartitionState (2.4+, which begin with the
# topic and partition). All print these fields first and in this order; leaderRecoveryState
# (3.2+, a byte) is the last field of LeaderAndIsrPartitionState.
_STATE_FIELDS = (rf"controllerEpoch=(?P<controller_epoch>{_INT}), leader=(?P<leader>{_INT}), "
                 rf"leaderEpoch=(?P<leader_epoch>{_INT}), isr=(?P<isr>{_LIST}), ")
_STATE_REPLICAS = (rf"=(?P<zk_version>{_INT}), replicas=(?P<replicas>{_LIST})"
                   rf"(?:, (?!leaderRecoveryState=)\w+=(?:{_LIST}|true|false))*")
_STATE_RECOVERY = rf", leaderRecoveryState=(?P<leader_recovery_state>{_INT})"
_REQUEST_STATE_BODY = _STATE_FIELDS + "(?:zkVersion|partitionEpoch)" + _STATE_REPLICAS + rf"(?:{_STATE_RECOVERY})?\)"
_GENERATED_HEAD = r"\(topicName='(?P<topic>[\w.-]+)', partitionIndex=(?P<partition>\d+), "
_PARTITION_STATE_NAMED = r"PartitionState\(" + _REQUEST_STATE_BODY
_LEADER_AND_ISR_PARTITION_STATE_NAMED = "LeaderAndIsrPartitionState" + _GENERATED_HEAD + _REQUEST_STATE_BODY
_UPDATE_METADATA_PARTITION_STATE_NAMED = "UpdateMetadataPartitionState" + _GENERATED_HEAD + _REQUEST_STATE_BODY

# Which releases print each form (first, last; None: to the last ZooKeeper release): the form
# of a line is era evidence (spec §0 "LeaderAndIsr shown as"), so a row that embeds a value
# is written once per form, each with these releases.
def _by_release(*forms: tuple[str, str | None, str]) -> tuple[tuple[str, str | None, str], ...]:
    return tuple((first, last, _unnamed(named)) for first, last, named in forms)


LEADER_AND_ISR_BY_RELEASE = _by_release(
    ("1.1.0", "3.1.2", _LAI_HEAD + _LAI_ISR + _LAI_ZK),
    ("3.2.0", "3.2.3", _LAI_HEAD + _LAI_ISR + _LAI_RECOVERY + _LAI_ZK),
    ("3.3.0", "3.4.1", _LAI_HEAD + _LAI_ISR + _LAI_RECOVERY + _LAI_PARTITION_EPOCH),
    ("3.5.0", None, _LAI_HEAD + _LAI_ISR_STATES + _LAI_RECOVERY + _LAI_PARTITION_EPOCH),
)
# LeaderIsrAndControllerEpoch: with or without ZkVersion up to 3.1 (by patch release, KAFKA-13233),
# then always with LeaderRecoveryState and ZkVersion.
CONTROLLER_EPOCH_WRAPPER_BY_RELEASE = _by_release(
    ("0.8.0", "3.1.2", _WRAPPER_HEAD + _WRAPPER_EPOCH + f"(?:{_WRAPPER_ZK})?" + _WRAPPER_TAIL),
    ("3.2.0", None, _WRAPPER_HEAD + _WRAPPER_RECOVERY + _WRAPPER_EPOCH + _WRAPPER_ZK + _WRAPPER_TAIL),
)
# LeaderAndIsrRequest.json: 3.2 adds LeaderRecoveryState, 3.3 renames ZkVersion to PartitionEpoch.
_LAI_STATE_HEAD = "LeaderAndIsrPartitionState" + _GENERATED_HEAD + _STATE_FIELDS
LEADER_AND_ISR_PARTITION_STATE_BY_RELEASE = _by_release(
    ("2.4.0", "3.1.2", _LAI_STATE_HEAD + "zkVersion" + _STATE_REPLICAS + r"\)"),
    ("3.2.0", "3.2.3", _LAI_STATE_HEAD + "zkVersion" + _STATE_REPLICAS + _STATE_RECOVERY + r"\)"),
    ("3.3.0", None, _LAI_STATE_HEAD + "partitionEpoch" + _STATE_REPLICAS + _STATE_RECOVERY + r"\)"),
)
CONTROLLER_EPOCH_WRAPPER_TEXT = _unnamed(_CONTROLLER_EPOCH_WRAPPER_NAMED)
PARTITION_STATE_INFO_TEXT = _unnamed(_PARTITION_STATE_INFO_NAMED)
PARTITION_STATE_TEXT = _unnamed(_PARTITION_STATE_NAMED)
UPDATE_METADATA_PARTITION_STATE_TEXT = _unnamed(_UPDATE_METADATA_PARTITION_STATE_NAMED)

# (how the text begins, its regex); checked in this order.
_FORMS = tuple((start, re.compile(named + "$")) for start, named in (
    ("LeaderAndIsr(", _LEADER_AND_ISR_NAMED),
    ("(Leader:", _CONTROLLER_EPOCH_WRAPPER_NAMED),
    ("(LeaderAndIsrInfo:", _PARTITION_STATE_INFO_NAMED),
    ("PartitionState(", _PARTITION_STATE_NAMED),
    ("LeaderAndIsrPartitionState(", _LEADER_AND_ISR_PARTITION_STATE_NAMED),
    ("UpdateMetadataPartitionState(", _UPDATE_METADATA_PARTITION_STATE_NAMED),
))
_BROKER_ID = re.compile(r"brokerId=(-?\d+)")
_RECOVERY_STATES = {"0": "RECOVERED", "1": "RECOVERING"}  # LeaderRecoveryState.value()
_LISTS = frozenset(("isr", "replicas"))
_STRINGS = frozenset(("topic",))
# JSON forms: 0.8.0 `{ "ISR":"1,2", "leader":"1", "leaderEpoch":"0" }` (values in quotes),
# 0.8.1-1.0 `{"leader":1,"leader_epoch":1,"isr":[1]}`, and the partition state znode.
_JSON_FIELDS = {
    "leader": "leader", "leaderEpoch": "leader_epoch", "leader_epoch": "leader_epoch", "ISR": "isr",
    "isr": "isr", "controller_epoch": "controller_epoch", "leader_recovery_state": "leader_recovery_state",
}
_JSON_ISR = re.compile(r"[\d,]*")  # 0.8.0 quotes the ISR as "1,2"
_REQUIRED = ("leader", "leader_epoch", "isr")


def _ints(text: str) -> list[int]:
    """The broker ids of a list the regexes above already accepted (`1,2`, `[1, 2]`, `List(1, 2)`)."""
    open_at = text.find("(")
    if open_at >= 0:
        text = text[open_at + 1:-1]
    elif text[:1] == "[":
        text = text[1:-1]
    return [int(x) for x in text.split(",")] if text else []


def _from_groups(m: re.Match) -> dict:
    out = {}
    for key, value in m.groupdict().items():
        if value is None:
            continue
        if key in _LISTS:
            out[key] = _ints(value)
        elif key == "isr_states":
            out["isr"] = [int(b) for b in _BROKER_ID.findall(value)]
        elif key == "leader_recovery_state":
            out[key] = _RECOVERY_STATES.get(value, value)
        elif key in _STRINGS:
            out[key] = value
        else:
            out[key] = int(value)
    return out


def _from_json(text: str) -> dict:
    data = load_json(text)
    out: dict = {}
    for key, value in data.items():
        field = _JSON_FIELDS.get(key)
        if field == "isr" and isinstance(value, str):
            if _JSON_ISR.fullmatch(value) is None:
                raise ValueError(value)
            out[field] = parse_int_list(value)
        elif field == "isr":
            out[field] = [int(x) for x in value]
        elif field == "leader_recovery_state":
            out[field] = _RECOVERY_STATES.get(str(value), str(value))
        elif field is not None:
            out[field] = int(value)
    return out


def parse_leader_and_isr(text: str) -> dict:
    """A leader/ISR value as any Kafka release printed it (spec §2.2), in canonical field
    names: leader, leader_epoch, isr, and where the form carries them zk_version (the
    partition epoch from 3.3), leader_recovery_state, controller_epoch, replicas, and for
    the generated request states (2.4+) topic and partition. ValueError on anything else."""
    text = text.strip()
    out = None
    if text.startswith("{"):
        try:
            out = _from_json(text)
        except (ValueError, TypeError, AttributeError):
            out = None  # not JSON, or not an object of numbers
    else:
        for start, form in _FORMS:
            if text.startswith(start):
                m = form.match(text)
                out = _from_groups(m) if m is not None else None
                break
    if out is None or any(k not in out for k in _REQUIRED):
        raise ValueError(f"not a LeaderAndIsr: {text!r}")
    return out
