"""The columnar fast path: the few line shapes that make up nearly all of a TRACE
state-change.log (1.1-3.9, stock log4j layout), read a whole Arrow batch at a time with
RE2 (pyarrow.compute) instead of line by line in Python.

It is an accelerator, never a second parser: every `FastRow` names the catalogue row
(ingest/zk_state_change.py) whose output it reproduces, field for field, and its regex is
deliberately narrower than that row's (ASCII ids of at most 9 digits, canonical list
spacing, the `state.change.logger` logger, TRACE/DEBUG/INFO). A line it does not match
takes the ordinary path (ingest/lines.py). tests/ingest/test_fast.py holds the two paths
equal on fixtures of every row and on mutated lines.

A batch is matched once, by the rows' alternation (RE2's DFA, no captures). Each matched
line's row is read from the fixed tokens that tell the rows apart (`telling_tokens`: the
rows' languages are disjoint), and its fields from its tokens where their places are fixed,
found in the Arrow buffers with numpy (`Tokens`), and by a few short regexes after that
(`reading`): a capturing match of a long line costs several times the match. Each field is
made once over the batch's lines, in their order (`Fields`).

Only a complete one-line record may take this path: a head is glued to the lines that
follow it (stack traces), so the caller (jobs/ingest_spark.py) also needs the next line to
begin a new record; see `next_starts_record`."""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
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


class Tokens:
    """Where the tokens of a batch of lines are (the lines split at each space), read from the
    Arrow buffers with numpy: no token is copied until a field is made of it. Lines of a fast
    row's regex hold ASCII alone where the rows read them, so a byte is a character there."""

    def __init__(self, lines: pa.Array):
        n = len(lines)
        offsets = np.frombuffer(lines.buffers()[1], np.int32, n + 1, lines.offset * 4).astype(np.int64)
        self.data = np.frombuffer(lines.buffers()[2], np.uint8)
        self.begin, self.end = offsets[:-1], offsets[1:]
        self.spaces = np.flatnonzero(self.data[offsets[0]:offsets[-1]] == ord(" ")) + offsets[0]
        self.first = np.searchsorted(self.spaces, self.begin)   # each line's first space
        self.after = np.append(self.first[1:], len(self.spaces))   # ... and the next line's

    def span(self, sel: np.ndarray, index: int) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) of token `index` of the lines `sel`, which all hold it."""
        first = self.first[sel]
        start = self.begin[sel] if index == 0 else self.spaces[first + index - 1] + 1
        at = first + index
        end = np.where(at < self.after[sel], self.spaces[np.minimum(at, len(self.spaces) - 1)], self.end[sel])
        return start, end

    def text(self, start: np.ndarray, end: np.ndarray, held: np.ndarray | None = None) -> pa.Array:
        """The bytes start:end of each line as text (ASCII: the rows' regexes admit nothing else
        there); null where not `held`."""
        if held is not None:
            start, end = np.where(held, start, 0), np.where(held, end, 0)
        lengths = end - start
        offsets = np.zeros(len(start) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        at = np.arange(offsets[-1]) + np.repeat(start - offsets[:-1], lengths)
        valid = None if held is None or held.all() else pa.py_buffer(np.packbits(held, bitorder="little"))
        return pa.Array.from_buffers(pa.string(), len(start), [valid, pa.py_buffer(offsets.astype(np.int32)),
                                                              pa.py_buffer(self.data[at])])

    def integer(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The decimal integers start:end (an optional '-', then at most 9 digits: the rows' `_SIGNED`)."""
        negative = self.data[start] == ord("-")
        start = start + negative
        lengths = end - start
        value = np.zeros(len(start), np.int64)
        for j in range(int(lengths.max(initial=0))):
            more = j < lengths
            digit = self.data[np.where(more, start + j, 0)].astype(np.int64) - ord("0")
            value = np.where(more, value * 10 + digit, value)
        return np.where(negative, -value, value)

    def last_dash(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Where the last '-' of a TopicPartition start:end is: before at most 9 digits (`_TP`)."""
        dash = np.full(len(start), -1, np.int64)
        for back in range(2, 11):
            at = np.maximum(end - back, start)
            dash = np.where((dash < 0) & (self.data[at] == ord("-")), at, dash)
        return dash


class Fields:
    """The fields of a batch's fast lines, gathered row by row (where each row's lines hold them)
    and each made once, over every line, in batch order: what `_column` makes of the rows'
    captures, null in the lines of a row without it."""

    def __init__(self, tokens: Tokens):
        self.tokens, self.n = tokens, len(tokens.begin)
        self.spans: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}   # name -> start, end, held
        self.captured: dict[str, list[tuple[np.ndarray, pa.Array]]] = {}   # name -> (lines, text) read by a regex

    def read(self, sel: np.ndarray, plan, lines: pa.Array | None) -> None:
        """The fields of the lines `sel` (`lines`: their text, if a regex reads them), by their
        row's reading plan (`reading`)."""
        tokens, rest = plan
        for regex in rest:
            for name, text in _groups(lines, regex).items():
                self.captured.setdefault(name, []).append((sel, text))
        for token in tokens:
            start, end = self.tokens.span(sel, token.index)
            before, after = token.strip
            start, end = start + before, end - after
            if len(token.names) == 2:   # the partition follows the last '-'
                dash = self.tokens.last_dash(start, end)
                self._span(token.names[0], sel, start, dash)
                self._span(token.names[1], sel, dash + 1, end)
            else:
                self._span(token.names[0], sel, start, end)

    def _span(self, name: str, sel: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        if name not in self.spans:
            self.spans[name] = (np.zeros(self.n, np.int64), np.zeros(self.n, np.int64), np.zeros(self.n, bool))
        starts, ends, held = self.spans[name]
        starts[sel], ends[sel], held[sel] = start, end, True

    def names(self) -> list[str]:
        return [*self.spans, *(n for n in self.captured if n not in self.spans)]

    def made(self, name: str) -> pa.Array:
        kind = _TYPES[name]
        starts, ends, held = self.spans.get(name) or (np.zeros(self.n, np.int64), np.zeros(self.n, np.int64),
                                                      np.zeros(self.n, bool))
        if kind in ("int", "long"):
            value = np.zeros(self.n, np.int64)
            value[held] = self.tokens.integer(starts[held], ends[held])
            held = held.copy()
            for sel, text in self.captured.get(name, ()):
                found = pc.cast(text, pa.int64())
                value[sel] = found.fill_null(0).to_numpy()
                held[sel] = found.is_valid().to_numpy(zero_copy_only=False)
            return pa.array(value, arrow_type(kind), mask=~held)
        text = self.tokens.text(starts, ends, held)
        for sel, captured in self.captured.get(name, ()):
            mask = np.zeros(self.n, bool)
            mask[sel] = True
            text = pc.replace_with_mask(text, pa.array(mask), captured)
        return _column(name, text)


def read_fields(lines: pa.Array, plan) -> dict[str, pa.Array]:
    """Field name -> its value in each of `lines`, all of which one fast row's regex matched, by
    that row's reading plan (`reading`)."""
    fields = Fields(Tokens(lines.cast(pa.binary())))
    fields.read(np.arange(len(lines)), plan, lines)
    return {name: fields.made(name) for name in fields.names()}


def literal_tokens(regex: str, first: int) -> tuple[dict[int, str], int]:
    """The tokens of a line `regex` (the line from token `first` on) matches that are fixed
    text, by index, up to where tokens_of stops (the first space a group may hold); and how
    many tokens such a line holds at least."""
    out, pieces = {}, regex.split(" ")
    for i, piece in enumerate(pieces):
        if _depth(piece) != 0:
            return out, first + i + 1
        text = piece[:-1] if piece.endswith("$") else piece
        if _LITERAL.fullmatch(text):
            out[first + i] = re.sub(r"\\(.)", r"\1", text)
    return out, first + len(pieces)


def telling_tokens(rows: tuple[FastRow, ...]) -> list[dict[int, str]]:
    """Per row, the fixed tokens that tell its lines from every other row's: for each pair of
    rows, the first index where both hold fixed text and it differs. A line the rows'
    alternation matched is the one row's whose telling tokens it holds (the rows' languages
    are disjoint); rows no fixed token tells apart cannot share the alternation, and every
    row's lines must hold every telling token's place."""
    fixed, held = zip(*(literal_tokens(HEAD_TOKENS + r.body + TAIL, 2) for r in rows))
    telling: list[dict[int, str]] = [{} for _ in rows]
    for a in range(len(rows)):
        for b in range(a + 1, len(rows)):
            at = next((i for i in sorted(fixed[a].keys() & fixed[b].keys()) if fixed[a][i] != fixed[b][i]), None)
            if at is None:
                raise ValueError(f"no fixed token tells {rows[a].pattern} from {rows[b].pattern}")
            telling[a][at], telling[b][at] = fixed[a][at], fixed[b][at]
    deepest = max(i for t in telling for i in t)
    for row, n in zip(rows, held):
        if n <= deepest:
            raise ValueError(f"a {row.pattern} line may hold no token {deepest}")
    return telling


def _unnamed(regex: str) -> str:
    return _GROUP.sub("(?:", regex)   # the rows' alternation: a group name may occur in one branch only


class FastParser:
    """The fast rows compiled once; `parse` per Arrow batch of raw lines."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.head = tokens_of(HEAD_TOKENS, 2)   # the fields every row reads at the same tokens, read once
        shared = {t.index for t in self.head}
        # (row, its regex, its catalogue row, its reading less the head's tokens)
        self.rows = [(r, HEAD + r.body + TAIL, pattern_named(r.pattern),
                      plan if plan is None else (tuple(t for t in plan[0] if t.index not in shared), plan[1]))
                     for r, plan in ((r, reading(r)) for r in FAST_ROWS)]
        self.fields = [f.name for f in EVENT_FIELDS]
        self.any_row = _unnamed(HEAD + "(?:" + "|".join(r.body for r in FAST_ROWS) + ")" + TAIL)
        self.telling = telling_tokens(FAST_ROWS)
        self.event_types = pa.array([r.event_type for r in FAST_ROWS], pa.string())
        self.patterns = pa.array([pattern.name for _, _, pattern, _ in self.rows], pa.string())

    def _time_ms(self, tokens: Tokens) -> pa.Array:
        """Each line's time (TIME: fixed places) in ms: Clock does the zone arithmetic once per
        distinct hour, as the ordinary path does; null where it cannot read the hour."""
        begin, data = tokens.begin, tokens.data

        def number(first: int, last: int) -> np.ndarray:   # the digits at the line's characters first..last
            value = np.zeros(len(begin), np.int64)
            for at in range(first, last + 1):
                value = value * 10 + data[begin + at] - ord("0")
            return value

        ts_first = TS_SLICE[0]
        hour = number(ts_first, ts_first + 3) * 1_000_000 + number(ts_first + 5, ts_first + 6) * 10_000 \
            + number(ts_first + 8, ts_first + 9) * 100 + number(ts_first + 11, ts_first + 12)
        _, first, which = np.unique(hour, return_index=True, return_inverse=True)
        bases = pa.array([self.clock.ms(bytes(data[b + ts_first:b + ts_first + 13]).decode() + ":00:00")
                          for b in begin[first]], pa.int64())
        ms = (number(ts_first + 14, ts_first + 15) * 60 + number(ts_first + 17, ts_first + 18)) * 1000 \
            + number(ts_first + 20, ts_first + 22)
        return pc.add(bases.take(pa.array(which)), pa.array(ms))

    def parse(self, raw: pa.Array) -> pa.Table | None:
        """The lines of `raw` that a fast row reads, in batch order: `idx` (position in the
        batch), every event field they set, `event_time_ms`, and the catalogue row. None
        when no line is fast."""
        # One match of the rows' alternation (RE2's DFA, no captures), as bytes (Latin-1 to
        # RE2, a tenth faster than as text: the same lines match, for the rows' regexes hold
        # ASCII alone, with no '.' or negated class to meet a byte of a longer character).
        data = raw.cast(pa.binary())
        hit = pc.fill_null(pc.match_substring_regex(data, self.any_row), False)
        idx = pc.indices_nonzero(hit)
        if len(idx) == 0:
            return None
        tokens = Tokens(pc.filter(data, hit))
        n = len(idx)
        every = np.arange(n)
        fields = Fields(tokens)
        fields.read(every, (self.head, ()), None)
        # Each row's lines: those holding its telling tokens. Then its own fields, of its lines alone.
        told = {i: tokens.text(*tokens.span(every, i)) for i in sorted({i for t in self.telling for i in t})}
        holds: dict[tuple[int, str], np.ndarray] = {}   # (index, text) -> which lines hold it there
        row_of = np.full(n, -1, np.int64)
        for r, ((row, regex, pattern, plan), telling) in enumerate(zip(self.rows, self.telling)):
            mine = np.ones(n, bool)
            for i, fixed in telling.items():
                if (i, fixed) not in holds:
                    holds[i, fixed] = pc.equal(told[i], fixed).to_numpy(zero_copy_only=False)
                mine &= holds[i, fixed]
            sel = np.flatnonzero(mine)
            if len(sel) == 0:
                continue
            row_of[sel] = r
            own = plan if plan is not None else ((), (regex,))
            fields.read(sel, own, pc.take(raw, pc.take(idx, pa.array(sel))) if own[1] else None)
        which = pa.array(row_of)   # every line is one row's (the rows' languages are disjoint): no -1
        columns = {"idx": pc.cast(idx, pa.int64()), "event_time_ms": self._time_ms(tokens),
                   "event_type": self.event_types.take(which), "pattern": self.patterns.take(which)}
        for name in fields.names():
            if name != "ts":
                columns[name] = fields.made(name)
        columns["recording_broker"] = columns["controller_id"]   # the deciding controller recorded the line (zk_state_change._controller)
        table = pa.table({name: columns[name] if name in columns else pa.nulls(n, arrow_type(_TYPES[name]))
                          for name in (*FAST_COLUMNS, *self.fields)})
        # Less the lines whose hour the clock cannot read (they keep the ordinary path: no
        # timestamp there either).
        times = table.column("event_time_ms")
        return table.filter(pc.is_valid(times)) if times.null_count else table
