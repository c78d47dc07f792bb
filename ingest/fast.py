"""The columnar fast path: the few line shapes that make up nearly all of a TRACE
state-change.log (1.1-3.9, stock log4j layout), read a whole Arrow batch at a time with
RE2 (pyarrow.compute) instead of line by line in Python.

It is an accelerator, never a second parser: every `FastRow` names the catalogue row
(ingest/zk_state_change.py) whose output it reproduces, field for field, and its regex is
deliberately narrower than that row's (ASCII ids of at most 9 digits, canonical list
spacing, the `state.change.logger` logger, TRACE/DEBUG/INFO). A line it does not match
takes the ordinary path (ingest/lines.py). tests/ingest/test_fast.py holds the two paths
equal on fixtures of every row and on mutated lines.

A line a row's regex matched (RE2's DFA, no captures) has its fields read from its tokens
where their places are fixed, and by a few short regexes after that (`reading`): a capturing
match of a long line costs several times the match.

Only a complete one-line record may take this path: a head is glued to the lines that
follow it (stack traces), so the caller (jobs/ingest_spark.py) also needs the next line to
begin a new record; see `next_starts_record`."""
from __future__ import annotations

import re
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from ingest.catalog import pattern_named
from ingest.envelope import Clock
from ingest.zk_state_change import PARTITION_STATE, REPLICA_STATE
from schemas.events import EVENT_FIELDS
from schemas.types import arrow_type


class FastRow(NamedTuple):
    pattern: str      # the catalogue row this reproduces (its name, first and last release are read from it)
    event_type: str
    body: str         # RE2, after the `[Controller id=N epoch=E] ` prefix; groups are named after event fields
    # RE2 searched in a line `body` matched, for the groups after its tokens (tokens_of): each
    # anchored by text that occurs once in such a line, so it captures what `body` does.
    rest: tuple[str, ...] = ()


_ID = r"\d{1,9}"                       # int32-safe: longer ids take the ordinary path
_SIGNED = r"-?\d{1,9}"
_TP = rf"(?P<topic>[\w.-]+)-(?P<partition>{_ID})"   # TopicPartition `t-0`: the partition follows the last '-'
_COMMA_IDS = rf"(?:{_ID}(?:,{_ID})*)?"          # Utils.join / mkString(",")
_SPACED_IDS = rf"(?:{_ID}(?:, {_ID})*)?"        # Scala List / Java list toString

# The record envelope and logIdent every fast line shares (stock layout `[%d] %p %m (%c)`): the
# time (fixed width: the line's characters TS_SLICE), then the tokens HEAD_TOKENS.
TIME = r"^\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{3})\] "
TS_SLICE = (1, 24)
HEAD_TOKENS = rf"(?:TRACE|DEBUG|INFO) \[Controller id=(?P<controller_id>{_ID}) epoch=(?P<controller_epoch>{_ID})\] "
HEAD = TIME + HEAD_TOKENS
TAIL = r" \(state\.change\.logger\)$"

FAST_ROWS: tuple[FastRow, ...] = (
    FastRow("sc.replica.change", "ReplicaStateChange",
            rf"Changed state of replica (?P<replica>{_ID}) for partition {_TP} "
            rf"from (?P<from_state>{REPLICA_STATE}) to (?P<to_state>{REPLICA_STATE})"),
    FastRow("sc.partition.new", "PartitionStateChange",
            rf"Changed partition {_TP} state from (?P<from_state>{PARTITION_STATE}) to (?P<to_state>{PARTITION_STATE}) "
            rf"with assigned replicas (?P<replicas>{_COMMA_IDS})"),
    FastRow("sc.partition.state", "PartitionStateChange",
            rf"Changed partition {_TP} state from (?P<from_state>{PARTITION_STATE}) to (?P<to_state>{PARTITION_STATE})"),
    # LeaderAndIsr.toString 1.1-3.1; the later forms (each its own row: era evidence) take the
    # ordinary path.
    FastRow("sc.partition.online.leaderandisr", "PartitionStateChange",
            rf"Changed partition {_TP} from (?P<from_state>{PARTITION_STATE}) to (?P<to_state>{PARTITION_STATE}) "
            rf"with state LeaderAndIsr\(leader=(?P<leader>{_SIGNED}), leaderEpoch=(?P<leader_epoch>{_SIGNED}), "
            rf"isr=List\((?P<isr>{_SPACED_IDS})\), zkVersion=(?P<zk_version>{_SIGNED})\)",
            (r"isr=List\((?P<isr>[\d, ]*)\), zkVersion=(?P<zk_version>-?\d+)\) \(state\.change\.logger\)$",)),
    # The generated LeaderAndIsrPartitionState of 2.4-3.1 (3.2+ adds leaderRecoveryState: ordinary path).
    FastRow("sc.send.leaderandisr", "LeaderAndIsr",
            r"Sending (?:become-leader|become-follower) LeaderAndIsr request LeaderAndIsrPartitionState\("
            rf"topicName='[\w.-]+', partitionIndex={_ID}, controllerEpoch={_SIGNED}, leader=(?P<leader>{_SIGNED}), "
            rf"leaderEpoch=(?P<leader_epoch>{_SIGNED}), isr=\[(?P<isr>{_SPACED_IDS})\], "
            rf"zkVersion=(?P<zk_version>{_SIGNED}), replicas=\[{_SPACED_IDS}\], "
            rf"addingReplicas=\[{_SPACED_IDS}\], removingReplicas=\[{_SPACED_IDS}\], isNew=(?:true|false)\) "
            rf"to broker {_ID} for partition {_TP}",
            (r", isr=\[(?P<isr>[\d, ]*)\], zkVersion=(?P<zk_version>-?\d+), ",
             r" for partition (?P<topic>[\w.-]+)-(?P<partition>\d+) \(state\.change\.logger\)$")),
)


class Token(NamedTuple):
    """Where a matched line holds fields: the token at `index` (the line split at its spaces),
    less `strip` characters before and after, is the field `names[0]`; or, for a TopicPartition,
    split at its last '-' into `names`."""
    index: int
    strip: tuple[int, int]
    names: tuple[str, ...]


_GROUP = re.compile(r"\(\?P<(\w+)>")
_LITERAL = re.compile(r"(?:[^\\()\[\]{}.*+?|^$]|\\[^\w\s])*")   # regex text that only matches itself


def _depth(text: str) -> int:
    """Groups opened and not closed in a piece of regex text (escaped parentheses are literal)."""
    return (text.count("(") - text.count("\\(")) - (text.count(")") - text.count("\\)"))


def tokens_of(regex: str, first: int) -> tuple[Token, ...]:
    """The groups of `regex` (the line from token `first` on) that are tokens of a line it
    matches, up to the first space a group or its repetition may hold (after it, the tokens'
    places vary): each a whole token, a TopicPartition, or one with a literal prefix and suffix
    (`id=(?P<controller_id>..)`). Read there, a matched line's fields are what RE2's captures
    give, for a fraction of their cost (a capturing match of a long line costs several times
    the match)."""
    out = []
    for i, piece in enumerate(regex.split(" ")):
        if _depth(piece) != 0:
            break   # part of a group that holds a space
        names = _GROUP.findall(piece)
        if not names:
            continue
        if piece == _TP:
            out.append(Token(first + i, (0, 0), ("topic", "partition")))
            continue
        start, end = piece.find("(?P<"), piece.rfind(")")
        prefix, group, suffix = piece[:start], piece[start:end + 1], piece[end + 1:]
        if len(names) > 1 or _depth(group) != 0 or not _LITERAL.fullmatch(prefix) or not _LITERAL.fullmatch(suffix):
            break
        unescaped = (re.sub(r"\\(.)", r"\1", text) for text in (prefix, suffix))
        out.append(Token(first + i, tuple(len(t) for t in unescaped), tuple(names)))
    return tuple(out)


_TYPES = {f.name: f.type for f in EVENT_FIELDS}
# Columns of a fast row's output beyond the event's own fields.
FAST_COLUMNS = ("idx", "pattern")
NEXT_RECORD = r"^\[\d{4}-\d\d-\d\d"   # a head or a partial head: either ends the record before it


def next_starts_record(raw: pa.Array) -> pa.BooleanArray:
    """Per line: does it certainly end the (one-line) record before it? A line like this is
    a log4j head or the start of a hand-wrapped one, never a continuation."""
    return pc.fill_null(pc.match_substring_regex(raw, NEXT_RECORD), False)


def _ids(text: pa.Array) -> pa.Array:
    """`8,1,2` / `8, 1, 2` / `` -> list<int32> (the regexes above admit nothing else)."""
    empty = pc.equal(text, "")
    parts = pc.split_pattern(pc.replace_substring(pc.if_else(empty, "0", text), " ", ""), ",")
    return pc.if_else(empty, pa.scalar([], pa.list_(pa.int32())), pc.cast(parts, pa.list_(pa.int32())))


def _column(name: str, text: pa.Array) -> pa.Array:
    kind = _TYPES[name]
    if kind == "array<int>":
        return _ids(text)
    if kind == "string":   # an optional group that did not take part reads as ""
        return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
    return pc.cast(text, arrow_type(kind))


def reading(row: FastRow) -> tuple[tuple[Token, ...], tuple[str, ...]] | None:
    """How `read_fields` reads a line `row` matched: its tokens and its `rest` regexes, if they
    hold every group of the row once; else None (the row's own captures)."""
    tokens = tokens_of(HEAD_TOKENS + row.body + TAIL, 2)
    names = [n for t in tokens for n in t.names] + [n for r in row.rest for n in _GROUP.findall(r)]
    wanted = _GROUP.findall(HEAD + row.body)
    return (tokens, row.rest) if sorted(names) == sorted(wanted[1:]) and wanted[0] == "ts" else None


def _groups(lines: pa.Array, regex: str) -> dict[str, pa.Array]:
    groups = pc.extract_regex(lines, regex)
    return {groups.type.field(i).name: groups.field(i) for i in range(groups.type.num_fields)}


def read_fields(lines: pa.Array, regex: str, plan) -> dict[str, pa.Array]:
    """Group name -> its text in each of `lines` (all of which match `regex`): by the row's
    reading plan (`reading`) where it has one, else from RE2's captures."""
    if plan is None:
        return _groups(lines, regex)
    tokens, rest = plan
    # Split as bytes (a zero-copy view): the text kernel checks UTF-8 as it goes, nearly half the
    # split's time. Every field a row reads is ASCII (RE2's \d and \w), so its bytes are its
    # characters; each token is made text again, checked then, once it is short.
    data = lines.cast(pa.binary())
    parts = pc.split_pattern(data, " ", max_splits=tokens[-1].index + 1)
    fields = {"ts": pc.utf8_slice_codeunits(lines, *TS_SLICE)}
    for more in rest:
        fields.update(_groups(lines, more))
    for token in tokens:
        text = pc.list_element(parts, token.index)
        if len(token.names) == 2:   # the partition follows the last '-'
            halves = pc.split_pattern(text, "-", max_splits=1, reverse=True)
            for i, name in enumerate(token.names):
                fields[name] = pc.list_element(halves, i)
            continue
        before, after = token.strip
        if before or after:   # (pyarrow's binary_slice fails with no stop, or one past the end)
            text = pc.utf8_slice_codeunits(text.cast(pa.string()), before, -after if after else None)
        fields[token.names[0]] = text
    return {name: text.cast(pa.string()) if pa.types.is_binary(text.type) else text for name, text in fields.items()}


class FastParser:
    """The fast rows compiled once; `parse` per Arrow batch of raw lines."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.rows = [(r, HEAD + r.body + TAIL, pattern_named(r.pattern), reading(r)) for r in FAST_ROWS]
        self.fields = [f.name for f in EVENT_FIELDS]

    def _hour_base(self, ts: pa.Array) -> pa.Array:
        # Clock does the zone arithmetic once per distinct hour, as the ordinary path does.
        hours = pc.utf8_slice_codeunits(ts, 0, 13)
        distinct = pc.unique(hours)
        bases = pa.array([self.clock.ms(h + ":00:00") for h in distinct.to_pylist()], pa.int64())
        return pc.take(bases, pc.index_in(hours, distinct))

    def parse(self, raw: pa.Array) -> pa.Table | None:
        """The lines of `raw` that a fast row reads, in batch order: `idx` (position in the
        batch), every event field they set, `event_time_ms`, and the catalogue row. None
        when no line is fast."""
        parts = []
        left = pc.indices_nonzero(pc.fill_null(pc.starts_with(raw, "["), False))   # lines no row has taken yet
        for row, regex, pattern, plan in self.rows:
            if len(left) == 0:
                break
            lines = raw if len(left) == len(raw) else pc.take(raw, left)   # the first row: usually every line
            # A match without captures (RE2's DFA) first; the fields only of the lines that match.
            # Matched as bytes (Latin-1 to RE2), a tenth faster than as text: the same lines match,
            # for the rows' regexes hold ASCII alone, with no '.' or negated class to meet a byte of
            # a longer character.
            hit = pc.match_substring_regex(lines.cast(pa.binary()), regex)
            idx = pc.filter(left, hit)
            if len(idx) == 0:
                continue
            left = pc.filter(left, pc.invert(hit))
            fields = read_fields(pc.filter(lines, hit), regex, plan)
            ts = fields.pop("ts")
            base = self._hour_base(ts)
            ms = pc.add(pc.add(pc.multiply(pc.cast(pc.utf8_slice_codeunits(ts, 14, 16), pa.int64()), 60_000),
                               pc.multiply(pc.cast(pc.utf8_slice_codeunits(ts, 17, 19), pa.int64()), 1000)),
                        pc.cast(pc.utf8_slice_codeunits(ts, 20, 23), pa.int64()))
            n = len(idx)
            columns = {"idx": pc.cast(idx, pa.int64()), "event_time_ms": pc.add(base, ms),
                       "event_type": pa.repeat(pa.scalar(row.event_type), n),
                       "pattern": pa.repeat(pa.scalar(pattern.name), n)}
            for name, text in fields.items():
                columns[name] = _column(name, text)
            # The deciding controller recorded the line itself (zk_state_change._controller).
            columns["recording_broker"] = columns["controller_id"]
            for name in self.fields:
                if name not in columns:
                    columns[name] = pa.nulls(n, arrow_type(_TYPES[name]))
            parts.append(pa.table({name: columns[name] for name in (*FAST_COLUMNS, *self.fields)}))
        if not parts:
            return None
        table = pa.concat_tables(parts)
        # Batch order, less the lines whose hour the clock cannot read (they keep the ordinary
        # path: no timestamp there either). Only the columns that hold a value are reordered.
        order = pc.sort_indices(table.column("idx")) if len(parts) > 1 else None
        times = table.column("event_time_ms")
        if times.null_count:
            valid = pc.indices_nonzero(pc.is_valid(times if order is None else times.take(order)))
            order = valid if order is None else order.take(valid)
        if order is None:
            return table
        n = len(order)
        return pa.table([pa.nulls(n, c.type) if c.null_count == len(c) else c.take(order) for c in table.columns],
                        schema=table.schema)
