"""The message catalogue: every log message the ingest understands, as data.

A `MessagePattern` names one format string of one range of Kafka releases (the source it
follows), the regex that matches the message body (envelope and logIdent prefix already
removed), and a builder that turns the match into canonical events. The parser modules
(ZooKeeper mode: `zk_state_change`, `zk_controller`, `zk_controller_machinery`, `zk_server`;
KRaft: `kraft_dump`, `kraft_controller`, `kraft_migration`, `kraft_broker`, `kraft_raft`) each export
`PATTERNS`; `match_message` reads them all. A new Kafka version is a new row, not a new
branch.

The builder returns a list of event dicts with keys from schemas.events.EVENT_FIELD_NAMES.
It leaves out `cluster`, `seq`, `source_file`, `source_line`, `event_time_ms` and, unless
the line itself names it, `recording_broker`: the caller fills those in. An empty list
means "understood, carries no event" (e.g. `Started leader election for partition t-0`,
which is followed by the line that records the election)."""
from __future__ import annotations

import re
from typing import Callable, NamedTuple


class Prefix(NamedTuple):
    """The logIdent a message began with (`[Controller id=1 epoch=7] `, `Broker 2 `, ...)."""
    kind: str                # "controller" | "broker" | "partition" | "listener" | "kraft" | "none"
    broker: int | None       # the id the prefix names (controller id or broker id)
    controller_epoch: int | None
    topic: str | None = None       # `[Partition t-0 broker=1] ` prefixes name the partition
    partition: int | None = None


class LineContext(NamedTuple):
    """What the envelope knows about the line, handed to builders."""
    level: str | None          # TRACE / DEBUG / INFO / WARN / ERROR / FATAL
    logger: str | None         # `(%c)` of the stock layout, or the short logger of embedded layouts
    prefix: Prefix             # the logIdent prefix (kind "none" when the body has none)
    continuation: str          # glued continuation lines (stack trace), "" when none
    file_kind: str             # "state-change" | "controller" | "server" | "kraft-dump" | "unknown"


Builder = Callable[[re.Match, LineContext], list]


class MessagePattern(NamedTuple):
    name: str            # stable id, e.g. "sc.partition.online.leaderandisr"
    source: str          # Kafka file and tags the format follows, e.g. "PartitionStateMachine.scala @1.1.1..@3.9"
    first: str           # first Kafka release that writes it, e.g. "1.1.0"
    last: str | None     # last release that writes it (None: still written)
    keyword: str         # the message body's first word, for dispatch (e.g. "Changed")
    regex: re.Pattern
    build: Builder


def no_events(m: re.Match, ctx: LineContext) -> list:
    """The builder of a row whose line the replay needs nothing from: understood, no event."""
    return []


def row(name: str, source: str, first: str, last: str | None, keyword: str, regex: str,
        build: Builder = no_events) -> MessagePattern:
    """A catalogue row, its regex given as text."""
    return MessagePattern(name, source, first, last, keyword, re.compile(regex), build)


def event(event_type: str, **fields) -> dict:
    """A canonical event with only the fields the line gives, None being not given (the caller
    fills the rest)."""
    out = {"event_type": event_type}
    for k, v in fields.items():
        if v is not None:
            out[k] = v
    return out


Index = dict[str, list[MessagePattern]]
_CATALOGUE: Index | None = None


def index(patterns) -> Index:
    """keyword -> patterns, in the order given."""
    table: Index = {}
    for p in patterns:
        table.setdefault(p.keyword.lower(), []).append(p)
    return table


def catalogue() -> Index:
    """keyword -> patterns, from every parser module (loaded once)."""
    global _CATALOGUE
    if _CATALOGUE is None:
        from ingest import (kraft_broker, kraft_controller, kraft_dump, kraft_migration, kraft_raft, zk_controller,
                            zk_controller_machinery, zk_server, zk_state_change)

        modules = (zk_state_change, zk_controller, zk_controller_machinery, zk_server,
                   kraft_dump, kraft_controller, kraft_migration, kraft_broker, kraft_raft)
        _CATALOGUE = index([p for module in modules for p in module.PATTERNS])
    return _CATALOGUE


def all_patterns() -> list[MessagePattern]:
    return [p for ps in catalogue().values() for p in ps]


_BY_NAME: dict[str, MessagePattern] = {}


def pattern_named(name: str) -> MessagePattern | None:
    """The catalogue row of that name (a parse row names the row it matched)."""
    if not _BY_NAME:
        _BY_NAME.update((p.name, p) for p in all_patterns())
    return _BY_NAME.get(name)


_BRACKETED_ID = re.compile(r"\[\d+\]")
_TOPIC_PARTITION = re.compile(r"[\w.-]+-\d+")
_RATIO = re.compile(r"\d+/\d+")


def keyword_of(body: str) -> str:
    """The dispatch key of a message body: its first word, lower-cased (0.8-0.11 "changed ..."
    and 1.0+ "Changed ..." share a bucket); a number is "%d" ("%d successfully elected as the
    controller": rows are keyed by the format's first word), and so is an id in brackets ending
    the first word ("enterControlledShutdown[%d]: changing ..."); a first word naming an argument
    in brackets is keyed up to its "=" ("handleCommit[baseOffset=12]: ..." is
    "handlecommit[baseoffset="); a TopicPartition is "%tp"
    ("t-0 starts at Leader Epoch ..."); a ratio "%d/%d" ("2/3 replicas have caught up ..."); the
    0.8-1.0 controller's request threads, whose log ident is their name with both ids
    ("[Controller-1-to-broker-2-send-thread], ..."), "[send-thread]"; the 0.8-0.10 topic deletion
    thread's ("[delete-topics-thread-1], ..."), "[delete-topics-thread]"; a metadata record's
    toString, its class and parenthesis ("PartitionRecord(partitionId=0, ..." is "partitionrecord(");
    a Java object's default toString, its class and "@%x:"."""
    keyword = body.split(" ", 1)[0].lower()
    if keyword.isdigit():
        return "%d"
    if "(" in keyword or "@" in keyword:
        found = _value_keyword(keyword)
        if found is not None:
            return found
    if keyword.endswith("]:") and _BRACKETED_ID.search(keyword):
        return _BRACKETED_ID.sub("[%d]", keyword)
    if keyword.endswith(("-send-thread]:", "-send-thread],")):
        return "[send-thread]"
    if keyword.startswith("[delete-topics-thread-"):
        return "[delete-topics-thread]"
    if keyword[-1:].isdigit():   # the digit test first: this runs per line
        if _TOPIC_PARTITION.fullmatch(keyword):
            return "%tp"
        if _RATIO.fullmatch(keyword):
            return "%d/%d"
    if "=" in keyword and "[" in keyword:
        return keyword[:keyword.index("=") + 1]
    return keyword


_OBJECT_HASH = re.compile(r"@[0-9a-f]+:")


def _value_keyword(keyword: str) -> str | None:
    """A first word that is a value's toString: a metadata record naming its first field
    ("PartitionRecord(partitionId=0," is "partitionrecord("), or a Java object's default toString
    ("org.apache.kafka.controller.QuorumController@5e1f3a8c:" is "...quorumcontroller@%x:"). None: neither."""
    head, paren, rest = keyword.partition("(")
    if paren and "=" in rest and head.endswith("record") and head.isidentifier():
        return head + "("
    at = keyword.rfind("@")
    if at > 0 and _OBJECT_HASH.fullmatch(keyword, at):
        return keyword[:at] + "@%x:"
    return None


def match_message(body: str, ctx: LineContext, table: Index | None = None) -> tuple[MessagePattern, list] | None:
    """The first pattern whose regex matches the body, and its events; None: not understood.
    `table` defaults to the whole catalogue (tests of one module pass `index(module.PATTERNS)`)."""
    for p in (catalogue() if table is None else table).get(keyword_of(body), ()):
        m = p.regex.match(body)
        if m is not None:
            return p, p.build(m, ctx)
    return None


class AdaptiveIndex(dict):
    """A parser's own copy of the catalogue whose buckets put the row that matched last
    first: one file is written by one Kafka release, so after its first lines nearly every
    line matches the first row it tries (rows of a bucket do not overlap, so the order
    changes the speed, not the result)."""

    def __init__(self, base: Index | None = None):
        super().__init__({k: list(v) for k, v in (catalogue() if base is None else base).items()})

    def hit(self, keyword: str, i: int) -> None:
        if i:
            rows = self[keyword]
            rows.insert(0, rows.pop(i))


def match_adaptive(body: str, ctx: LineContext, table: AdaptiveIndex) -> tuple[MessagePattern, list] | None:
    """match_message over an AdaptiveIndex, moving the matching row to the front."""
    keyword = keyword_of(body)
    rows = table.get(keyword)
    if rows is None:
        return None
    for i, p in enumerate(rows):
        m = p.regex.match(body)
        if m is not None:
            table.hit(keyword, i)
            return p, p.build(m, ctx)
    return None
