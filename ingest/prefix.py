"""The logIdent prefixes Kafka puts in front of a message (spec kafka-log-formats §2.1, §3,
§4.3), stripped before the message catalogue is consulted. Each row: a regex and the kind
of prefix it is; the ids it names are evidence (which broker wrote the line, which
controller epoch it decided in)."""
from __future__ import annotations

import re

from ingest.catalog import Prefix

NO_PREFIX = Prefix("none", None, None)

# (kind, regex). Groups: b = broker/controller id, e = controller epoch, t/p = partition.
PREFIX_ROWS: tuple[tuple[str, str], ...] = (
    ("controller", r"\[Controller id=(?P<b>\d+) epoch=(?P<e>\d+)\] "),          # state-change 1.0+
    ("broker", r"\[Broker id=(?P<b>\d+)\] "),                                   # state-change 1.0+
    ("controller", r"\[Controller id=(?P<b>\d+)\] "),                           # controller.log 1.0+
    ("controller", r"\[Controller (?P<b>\d+)\]:? "),                            # controller.log 0.8-0.11; KRaft 3.0-3.4
    ("kraft", r"\[QuorumController id=(?P<b>\d+)\] "),                          # KRaft 3.5+
    ("kraft", r"\[RaftManager id=(?P<b>\d+)\] "),
    ("kraft", r"\[KRaftMigrationDriver id=(?P<b>\d+)\] "),                      # KRaft 3.4-3.9, ZK migration
    ("partition", r"\[Partition (?P<t>\S+)-(?P<p>\d+) broker=(?P<b>\d+)\] "),    # server.log 1.0+
    ("partition", r"Partition \[(?P<t>[^,\]]+),(?P<p>\d+)\] on broker (?P<b>\d+): "),  # server.log 0.8-0.10
    ("listener", r"\[(?:Partition|Replica)StateMachine controllerId=(?P<b>\d+)\] "),  # 1.1+
    ("listener", r"\[[A-Za-z ]+ on [Cc]ontroller (?P<b>\d+)\]: "),              # 0.8-0.11 listeners, state machines
    ("listener", r"\[[A-Za-z]+(?:Selector|Manager|Listener)\]: "),              # 0.8-1.0 leader selectors, TopicDeletionManager
    # server.log kafka.log.Log 1.0+ (UnifiedLog 3.1+): only before the lines the catalogue reads, so that the
    # Spark ingest still leaves the logger's other lines (retention, segment rolls) out of the parse.
    ("log", r"\[(?:Unified)?Log partition=(?P<t>\S+)-(?P<p>\d+), dir=[^\]]*\] (?=Truncating |Completed load )"),
    ("server", r"\[KafkaServer id=(?P<b>\d+)\] "),
    ("server", r"\[BrokerServer id=(?P<b>\d+)\] "),
    ("server", r"\[ControllerServer id=(?P<b>\d+)\] "),
)
_COMPILED = tuple((kind, re.compile(rx)) for kind, rx in PREFIX_ROWS)
# Pre-1.0 state-change lines (and some 1.1+ ERROR lines inside the new prefix) carry the
# ids in the sentence itself: "Controller 1 epoch 2 changed ...", "Broker 1 received ...".
_OLD_CONTROLLER = re.compile(r"Controller (?P<b>\d+) epoch (?P<e>\d+) ")
_OLD_BROKER = re.compile(r"Broker (?P<b>\d+) (?=[a-z])")


def _int(m: re.Match, name: str) -> int | None:
    v = m.groupdict().get(name)
    return int(v) if v is not None else None


def strip_prefix(message: str) -> tuple[Prefix, str]:
    """(prefix, body): the logIdent removed; NO_PREFIX when the message has none."""
    prefix, body = NO_PREFIX, message
    if message.startswith("["):
        for kind, rx in _COMPILED:
            m = rx.match(message)
            if m is not None:
                prefix = Prefix(kind, _int(m, "b"), _int(m, "e"), m.groupdict().get("t"), _int(m, "p"))
                body = message[m.end():]
                break
    if body.startswith("Controller "):
        m = _OLD_CONTROLLER.match(body)
        if m is not None:
            prefix = Prefix("controller", int(m["b"]), int(m["e"]))
            body = body[m.end():]
    elif body.startswith("Broker ") and prefix.kind == "none":
        m = _OLD_BROKER.match(body)
        if m is not None:
            prefix = Prefix("broker", int(m["b"]), None)
            body = body[m.end():]
    elif prefix.kind == "none" and body.startswith("Partition ["):
        for kind, rx in _COMPILED:
            m = rx.match(body)
            if m is not None and kind == "partition":
                prefix = Prefix(kind, _int(m, "b"), None, m["t"], _int(m, "p"))
                body = body[m.end():]
                break
    return prefix, body
