"""The columnar fast path: the line shapes that make up nearly all of a TRACE
state-change.log (1.1-3.9, stock log4j layout), the controller's and the brokers', and a
2.4-2.5 leader's line in server.log, read a whole Arrow batch at a time by a small matcher
in C (ingest/_line_scan.c) instead of line by line in Python. A row reproduces either an
event or a line understood that records none.

It is an accelerator, never a second parser: every `FastRow` names the catalogue row
(ingest/zk_state_change.py, ingest/zk_server.py) whose output it reproduces, field for
field, and its regex is deliberately narrower than that row's (ASCII ids of at most 9
digits, canonical list spacing, one logger, TRACE/DEBUG/INFO). A line it does not match
takes the ordinary path (ingest/lines.py). tests/ingest/test_fast.py holds the two paths
equal on fixtures of every row and on mutated lines.

The rows are declared once, as the regexes above. `compile_row` turns each into the
matcher's ops (literal text and a few kinds of hole: ids, lists of ids, names, a choice of
words) and refuses a regex it cannot run exactly: each hole must be followed by text that
cannot continue it, so one greedy pass over a line decides what RE2 decides, with no
backtracking. tests/ingest/test_fast.py holds the matcher equal to RE2 (the same lines, the
same captures) on varied and mutated lines. The matcher writes each field of the matched
lines into Arrow-shaped buffers; a batch costs one call.

Only a complete one-line record may take this path: a head is glued to the lines that
follow it (stack traces), so the caller (ingest/splits.py) also needs the next line to
begin a new record: `FastParser.scan` says of every line whether it starts one."""
from __future__ import annotations

import ctypes
import importlib.machinery
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.catalog import pattern_named
from ingest.envelope import Clock
from ingest.values import _unnamed
from ingest.zk_state_change import PARTITION_STATE, REPLICA_STATE
from schemas.events import EVENT_FIELDS
from schemas.types import arrow_type


class FastRow(NamedTuple):
    pattern: str      # the catalogue row this reproduces (its name, first and last release are read from it)
    event_type: str | None   # None: a line understood that records no event (the row's builder returns none)
    body: str         # RE2, after the logIdent; groups are named after event fields
    head: str = "controller"   # whose logIdent the message begins with (HEADS)
    logger: str = "state.change.logger"

    def regex(self) -> str:
        """The whole line's regex: the envelope, the logIdent, this row's message, the logger."""
        return HEADS[self.head] + self.body + rf" \({re.escape(self.logger)}\)$"


_ID = r"\d{1,9}"                       # int32-safe: longer ids take the ordinary path
_SIGNED = r"-?\d{1,9}"
_NAME = r"[\w.-]+"
_TP = rf"(?P<topic>{_NAME})-(?P<partition>{_ID})"   # TopicPartition `t-0`: the partition follows the last '-'
_UNNAMED_TP = rf"{_NAME}-{_ID}"                     # a TopicPartition not read
_COMMA_IDS = rf"(?:{_ID}(?:,{_ID})*)?"          # Utils.join / mkString(",")
_SPACED_IDS = rf"(?:{_ID}(?:, {_ID})*)?"        # Scala List / Java list toString
_BECOME = r"(?:become-leader|become-follower)"
# UpdateMetadataPartitionState.toString (2.4-2.5), its decision read (a broker's cached copy) or,
# unnamed, only matched (the controller's request, which records no event).
_UPDATE_METADATA_STATE = (rf"UpdateMetadataPartitionState\(topicName='{_NAME}', partitionIndex={_ID}, "
                          rf"controllerEpoch={_SIGNED}, leader=(?P<leader>{_SIGNED}), leaderEpoch=(?P<leader_epoch>{_SIGNED}), "
                          rf"isr=\[(?P<isr>{_SPACED_IDS})\], zkVersion=(?P<zk_version>{_SIGNED}), "
                          rf"replicas=\[(?P<replicas>{_SPACED_IDS})\], offlineReplicas=\[{_SPACED_IDS}\]\)")

# The record envelope every fast line shares (stock layout `[%d] %p %m (%c)`): the time, the
# level, then a logIdent.
_STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{3}"
TIME = rf"^\[(?P<ts>{_STAMP})\] "
_LEVEL = r"(?:TRACE|DEBUG|INFO) "
# The controller's logIdent (KafkaController, ControllerChannelManager, the state machines) carries
# its epoch, which orders the file's records (ingest.lines CROSS_FILE_ORDER); a broker's
# (ReplicaManager, MetadataCache) names the broker that recorded the line, and a partition's
# (Partition) the broker whose replica it is.
HEADS = {
    "controller": TIME + _LEVEL + rf"\[Controller id=(?P<controller_id>{_ID}) epoch=(?P<controller_epoch>{_ID})\] ",
    "broker": TIME + _LEVEL + rf"\[Broker id=(?P<recording_broker>{_ID})\] ",
    "partition": TIME + _LEVEL + rf"\[Partition {_UNNAMED_TP} broker=(?P<leader>{_ID})\] ",
}
# The field of each logIdent that names the line's recorder: the deciding controller
# (zk_state_change._controller), the broker, the partition's broker (zk_server._leader_starts_old:
# the rows of this logIdent are a leader's lines).
RECORDER = {"controller": "controller_id", "broker": "recording_broker", "partition": "leader"}

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
            rf"isr=List\((?P<isr>{_SPACED_IDS})\), zkVersion=(?P<zk_version>{_SIGNED})\)"),
    # The generated LeaderAndIsrPartitionState of 2.4-3.1 (3.2+ adds leaderRecoveryState: ordinary path).
    FastRow("sc.send.leaderandisr", "LeaderAndIsr",
            r"Sending (?:become-leader|become-follower) LeaderAndIsr request LeaderAndIsrPartitionState\("
            rf"topicName='[\w.-]+', partitionIndex={_ID}, controllerEpoch={_SIGNED}, leader=(?P<leader>{_SIGNED}), "
            rf"leaderEpoch=(?P<leader_epoch>{_SIGNED}), isr=\[(?P<isr>{_SPACED_IDS})\], "
            rf"zkVersion=(?P<zk_version>{_SIGNED}), replicas=\[{_SPACED_IDS}\], "
            rf"addingReplicas=\[{_SPACED_IDS}\], removingReplicas=\[{_SPACED_IDS}\], isNew=(?:true|false)\) "
            rf"to broker {_ID} for partition {_TP}"),
    FastRow("sc.send.updatemetadata.1_0", None,
            rf"Sending UpdateMetadata request {_unnamed(_UPDATE_METADATA_STATE)} to brokers (?:Set|HashSet)\({_SPACED_IDS}\) "
            rf"for partition {_TP}"),
    # The broker side of each decision (ReplicaManager and MetadataCache at TRACE, 2.4-2.5): the
    # copies it received and cached, then its become-leader or -follower steps.
    FastRow("sc.broker.received", "LeaderAndIsrReceived",
            r"Received LeaderAndIsr request LeaderAndIsrPartitionState\("
            rf"topicName='(?P<topic>{_NAME})', partitionIndex=(?P<partition>{_ID}), controllerEpoch={_SIGNED}, "
            rf"leader=(?P<leader>{_SIGNED}), leaderEpoch=(?P<leader_epoch>{_SIGNED}), isr=\[(?P<isr>{_SPACED_IDS})\], "
            rf"zkVersion=(?P<zk_version>{_SIGNED}), replicas=\[(?P<replicas>{_SPACED_IDS})\], "
            rf"addingReplicas=\[{_SPACED_IDS}\], removingReplicas=\[{_SPACED_IDS}\], isNew=(?:true|false)\) "
            rf"correlation id {_ID} from controller (?P<controller_id>{_ID}) epoch (?P<controller_epoch>{_ID})", "broker"),
    FastRow("sc.broker.cached", "LeaderAndIsrReceived",
            rf"Cached leader info {_UPDATE_METADATA_STATE} for partition {_TP} "
            rf"in response to UpdateMetadata request sent by controller (?P<controller_id>{_ID}) "
            rf"epoch (?P<controller_epoch>{_ID}) with correlation id {_ID}", "broker"),
    # A become-follower step names the new leader (2.0+); the become-leader one does not.
    *(FastRow(pattern, None, body + leader, "broker") for pattern, body in (
        ("sc.broker.handling", rf"Handling LeaderAndIsr request correlationId {_ID} from controller {_ID} epoch {_ID} "
                               rf"starting the {_BECOME} transition for partition {_TP}"),
        ("sc.broker.completed", rf"Completed LeaderAndIsr request correlationId {_ID} from controller {_ID} epoch {_ID} "
                                rf"for the {_BECOME} transition for partition {_TP}"),
    ) for leader in ("", rf" with leader {_SIGNED}")),
    FastRow("sc.broker.stopped_fetchers.1_0", None,
            rf"Stopped fetchers as part of become-leader request from controller {_ID} epoch {_ID} with correlation id "
            rf"{_ID} for partition {_TP} \(last update controller epoch {_ID}\)", "broker"),
    FastRow("sc.broker.stopped_fetchers.follower.1_0", None,
            rf"Stopped fetchers as part of become-follower request from controller {_ID} epoch {_ID} with correlation "
            rf"id {_ID} for partition {_TP} with leader {_SIGNED}", "broker"),
    FastRow("sc.broker.truncated.1_0", None,
            rf"Truncated logs and checkpointed recovery boundaries for partition {_TP} as part of become-follower "
            rf"request with correlation id {_ID} from controller {_ID} epoch {_ID} with leader {_SIGNED}", "broker"),
    FastRow("sc.broker.started_fetcher", None,
            rf"Started fetcher to new leader as part of become-follower request from controller {_ID} epoch {_ID} with "
            rf"correlation id {_ID} for partition {_TP} with leader BrokerEndPoint\(id={_ID}, host={_NAME}:{_ID}\)",
            "broker"),
    # A new leader's own line (server.log, 2.4-2.5; 2.6 moved it to the state-change logger).
    FastRow("srv.leader_starts.2_4", "LeaderAndIsrReceived",
            rf"{_TP} starts at leader epoch (?P<leader_epoch>{_ID}) from offset (?P<log_end_offset>{_SIGNED}) "
            rf"with high watermark (?P<high_watermark>{_SIGNED})\. Previous leader epoch was {_SIGNED}\.",
            "partition", "kafka.cluster.Partition"),
)


_TYPES = {f.name: f.type for f in EVENT_FIELDS}
# Columns of a fast row's output beyond the event's own fields: its line's position in the batch,
# its catalogue row, its parse row's kind (event or understood), and what orders the file's
# records by it whether it records an event or not (its time, the controller epoch of its
# logIdent, and its recorder).
FAST_COLUMNS = ("idx", "pattern", "kind", "line_ms", "line_epoch", "line_broker")


def _column(name: str, text: pa.Array) -> pa.Array:
    """An event field of RE2's captured text, as the ordinary path makes it (the tests' yardstick)."""
    kind = _TYPES[name]
    if kind == "array<int>":   # `8,1,2` / `8, 1, 2` / ``
        empty = pc.equal(text, "")
        parts = pc.split_pattern(pc.replace_substring(pc.if_else(empty, "0", text), " ", ""), ",")
        return pc.if_else(empty, pa.scalar([], pa.list_(pa.int32())), pc.cast(parts, pa.list_(pa.int32())))
    if kind == "string":   # an optional group that did not take part reads as ""
        return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
    return pc.cast(text, arrow_type(kind))


# --- the rows' regexes as the matcher's ops (ingest/_line_scan.c) ---------------------------

OP_LIT, OP_TIME, OP_UINT, OP_SINT, OP_IDS, OP_WORD, OP_TP, OP_CHOICE, OP_END = range(1, 10)
# The holes a fast row's regex may hold, by their regex text: (op, a).
HOLES = {
    _STAMP: (OP_TIME, 0),
    _ID: (OP_UINT, 0),
    _SIGNED: (OP_SINT, 0),
    _COMMA_IDS: (OP_IDS, 0),
    _SPACED_IDS: (OP_IDS, 1),
    _NAME: (OP_WORD, 0),
}
# What may continue the text a hole matched (the time has a fixed width).
_DIGITS = frozenset("0123456789")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
CONTINUES = {OP_UINT: _DIGITS, OP_SINT: _DIGITS, OP_IDS: _DIGITS | {","}, OP_WORD: _NAME_CHARS, OP_TP: _NAME_CHARS}
_ALTERNATIVES = re.compile(r"(?:[\w-]+\|)+[\w-]+")   # a choice of plain words: `TRACE|DEBUG|INFO`


class Op(NamedTuple):
    code: int
    a: object = 0        # OP_LIT: the text; OP_CHOICE: the words; OP_IDS: the separator; OP_TP: the partition's name
    name: str | None = None   # the field a hole fills


def _closing(regex: str, at: int) -> int:
    """Where the group opened at `at` closes (escaped parentheses are text)."""
    depth, i = 0, at
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return i
        i += 1
    raise ValueError(f"unbalanced group in {regex!r}")


def compile_row(regex: str) -> tuple[Op, ...]:
    """A fast row's whole-line regex as the matcher's ops, or ValueError where the matcher
    could not decide exactly what RE2 does: a construct other than literal text and the
    HOLES, or a hole (or choice) followed by text that could continue it (one greedy pass
    would then differ from RE2's backtracking)."""
    if not regex.startswith("^"):
        raise ValueError(f"a fast row's regex must be anchored at the line start: {regex!r}")
    ops: list[Op] = []
    text: list[str] = []
    i = 1

    def hole(op: Op) -> None:
        if text:
            ops.append(Op(OP_LIT, "".join(text)))
            text.clear()
        ops.append(op)

    while i < len(regex):
        if regex.startswith(_TP, i):
            hole(Op(OP_TP, "partition", "topic"))
            i += len(_TP)
            continue
        if regex.startswith(_UNNAMED_TP, i):
            hole(Op(OP_TP, None))
            i += len(_UNNAMED_TP)
            continue
        bare = next((h for h in sorted(HOLES, key=len, reverse=True) if h != _STAMP and regex.startswith(h, i)), None)
        if bare is not None:   # an unnamed hole: matched, not read
            hole(Op(*HOLES[bare]))
            i += len(bare)
            continue
        if regex.startswith("(?P<", i) or regex.startswith("(?:", i):
            close = _closing(regex, i)
            name = regex[i + 4:regex.index(">", i)] if regex[i + 2] == "P" else None
            inner = regex[regex.index(">", i) + 1 if name else i + 3:close]
            if inner in HOLES:
                hole(Op(*HOLES[inner], name))
            elif _ALTERNATIVES.fullmatch(inner):
                words = inner.split("|")
                if any(w != v and v.startswith(w) for w in words for v in words):
                    raise ValueError(f"a choice of words one of which begins another: {inner!r}")
                hole(Op(OP_CHOICE, tuple(words), name))
            else:
                raise ValueError(f"the fast rows' matcher cannot run {regex[i:close + 1]!r}")
            i = close + 1
            continue
        if regex[i] == "$" and i == len(regex) - 1:
            hole(Op(OP_END))
            i += 1
        elif regex[i] == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            text.append(regex[i + 1])
            i += 2
        elif regex[i] not in "\\()[]{}.*+?|^$":
            text.append(regex[i])
            i += 1
        else:
            raise ValueError(f"the fast rows' matcher cannot run {regex[i:i + 12]!r} in {regex!r}")
    if text:
        ops.append(Op(OP_LIT, "".join(text)))
    if len(ops) < 2 or ops[0] != Op(OP_LIT, "[") or ops[1].code != OP_TIME:
        raise ValueError(f"a fast row's line must begin with its time, `[{_STAMP}`: {regex!r}")
    for op, after in zip(ops, [*ops[1:], None]):
        more = CONTINUES.get(op.code)
        if more and (after is None or after.code not in (OP_LIT, OP_CHOICE, OP_END)
                     or (after.code == OP_LIT and after.a[0] in more)
                     or (after.code == OP_CHOICE and any(w[0] in more for w in after.a))):
            raise ValueError(f"in {regex!r}, what follows a hole could continue it: {op} then {after}")
    return tuple(ops)


def _library() -> ctypes.CDLL:
    here = Path(__file__).parent
    found = [here / f"_line_scan{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
             if (here / f"_line_scan{suffix}").exists()]
    if not found:
        raise ImportError(f"{here}/_line_scan.c is not built: run scripts/setup.sh (pip install -e .)")
    lib = ctypes.CDLL(str(found[0]))
    lib.scan_lines.restype = ctypes.c_int64
    lib.scan_lines.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                               *[ctypes.c_void_p] * 10]
    return lib


class Scanned(NamedTuple):
    starts: np.ndarray    # per line: does it begin a log4j head, or a partial one (`[dddd-dd-dd`)
    idx: np.ndarray       # the matched lines, in batch order
    row: np.ndarray       # ... the row each matched (an index into the rows)
    hour: np.ndarray      # ... its time: yyyymmddhh
    ms: np.ndarray        # ... and the ms within the hour (minute, second, milli as written)
    fields: dict[str, pa.Array]   # ... and each field the rows fill (null in a row without it)


class Scanner:
    """The rows compiled once for the matcher; `scan` per Arrow batch of lines (as binary)."""

    _lib: ctypes.CDLL | None = None

    def __init__(self, regexes: list[str]):
        if Scanner._lib is None:
            Scanner._lib = _library()
        self.programs = [compile_row(r) for r in regexes]
        if len(self.programs) > 127:
            raise ValueError("the matcher tells at most 127 rows apart (int8)")
        pool, alts, ops, first = bytearray(), [], [], [0]
        self.slots: dict[str, tuple[str, int]] = {}   # field -> (its kind: int, str or list; its slot)
        counts = {"int": 0, "str": 0, "list": 0}
        kinds = {OP_UINT: "int", OP_SINT: "int", OP_IDS: "list", OP_WORD: "str", OP_TP: "str", OP_CHOICE: "str"}

        def slot(name: str | None, kind: str) -> int:
            if name is None:
                return -1
            if name not in self.slots:
                wanted = {"int": ("int", "long"), "str": ("string",), "list": ("array<int>",)}[kind]
                if _TYPES[name] not in wanted:
                    raise ValueError(f"field {name} is {_TYPES[name]}, its hole reads {kind}")
                self.slots[name] = (kind, counts[kind])
                counts[kind] += 1
            if self.slots[name][0] != kind:
                raise ValueError(f"field {name} read as {kind} and {self.slots[name][0]}")
            return self.slots[name][1]

        placed: dict[str, tuple[int, int]] = {}

        def text(t: str) -> tuple[int, int]:   # the same text once in the pool: the rows' common ops are equal
            if t not in placed:
                raw = t.encode("ascii")
                pool.extend(raw)
                placed[t] = (len(pool) - len(raw), len(raw))
            return placed[t]

        self.held: dict[str, np.ndarray] = {}   # field -> which rows fill it
        for r, program in enumerate(self.programs):
            for op in program:
                if op.code == OP_LIT:
                    ops.append((op.code, *text(op.a), -1))
                elif op.code == OP_CHOICE:
                    words = [text(w) for w in op.a]
                    at = next((i for i in range(len(alts)) if alts[i:i + len(words)] == words), None)
                    if at is None:
                        at = len(alts)
                        alts.extend(words)
                    ops.append((op.code, at, len(op.a), slot(op.name, "str")))
                elif op.code == OP_TP:
                    ops.append((op.code, slot(op.a, "int"), 0, slot(op.name, "str")))
                elif op.code in kinds:
                    ops.append((op.code, op.a, 0, slot(op.name, kinds[op.code])))
                else:
                    ops.append((op.code, 0, 0, -1))
                for name in (op.name, op.a if op.code == OP_TP else None):
                    if name is not None and op.code != OP_TIME:
                        self.held.setdefault(name, np.zeros(len(self.programs), bool))[r] = True
            first.append(len(ops))
        self.counts = counts
        self.ops = np.array(ops, np.int32).reshape(-1, 4)
        self.first = np.array(first, np.int32)
        # The ops every row begins with (the time, the level, the logIdent): matched once a line.
        rows = [ops[a:b] for a, b in zip(first, first[1:])]
        self.shared = next((k for k in range(min(map(len, rows))) if len({row[k] for row in rows}) > 1), min(map(len, rows)))
        self.pool = np.frombuffer(bytes(pool) or b"\0", np.uint8)
        self.alts = np.array(alts or [(0, 0)], np.int32).reshape(-1, 2)

    def scan(self, lines: pa.Array) -> Scanned:
        """`lines`: binary, no null."""
        n = len(lines)
        offsets = np.frombuffer(lines.buffers()[1], np.int32, n + 1, lines.offset * 4)
        data = lines.buffers()[2]
        n_bytes = int(offsets[-1] - offsets[0]) if n else 0
        base = (data.address if data is not None else 0) + (int(offsets[0]) if n else 0)
        rebased = offsets - offsets[0] if n and offsets[0] else offsets
        starts, idx, row = np.empty(n, np.uint8), np.empty(n, np.int64), np.empty(n, np.int8)
        hour, ms = np.empty(n, np.int64), np.empty(n, np.int64)
        ints = np.empty((self.counts["int"], n), np.int32)   # at most 9 digits each
        str_data = np.empty((self.counts["str"], max(n_bytes, 1)), np.uint8)
        str_offsets = np.empty((self.counts["str"], n + 1), np.int32)
        list_values = np.empty((self.counts["list"], max(n_bytes, 1)), np.int32)
        list_counts = np.empty((self.counts["list"], n), np.int32)
        m = self._lib.scan_lines(
            base, rebased.ctypes.data, n, self.ops.ctypes.data, self.first.ctypes.data, len(self.programs), self.shared,
            self.pool.ctypes.data, self.alts.ctypes.data, self.counts["str"], self.counts["list"], starts.ctypes.data,
            idx.ctypes.data, row.ctypes.data, hour.ctypes.data, ms.ctypes.data, ints.ctypes.data, str_data.ctypes.data,
            str_offsets.ctypes.data, list_values.ctypes.data, list_counts.ctypes.data)
        if m < 0:
            raise ValueError("the fast rows exceed the matcher's limits (ops per row, string or list fields)")
        row = row[:m]
        fields = {}
        for name, (kind, s) in self.slots.items():
            held = self.held[name][row]
            if kind == "int":
                values = pa.Array.from_buffers(pa.int32(), m, [_validity(held), pa.py_buffer(ints[s, :m])])
                fields[name] = values.cast(arrow_type(_TYPES[name]))
            elif kind == "str":
                ends = str_offsets[s, :m + 1]
                held &= ends[1:] > ends[:-1]   # an empty capture reads as null (`_column`)
                fields[name] = pa.Array.from_buffers(pa.string(), m, [_validity(held), pa.py_buffer(ends),
                                                                      pa.py_buffer(str_data[s])])
            else:
                ends = np.zeros(m + 1, np.int32)
                np.cumsum(list_counts[s, :m], out=ends[1:])
                values = pa.array(list_values[s, :ends[-1]], pa.int32())
                fields[name] = pa.Array.from_buffers(pa.list_(pa.int32()), m, [_validity(held), pa.py_buffer(ends)],
                                                     children=[values])
        return Scanned(starts.view(bool), idx[:m], row, hour[:m], ms[:m], fields)


def _validity(held: np.ndarray) -> pa.Buffer | None:
    return None if held.all() else pa.py_buffer(np.packbits(held, bitorder="little"))


class FastParser:
    """The fast rows compiled once; `scan` per Arrow batch of raw lines."""

    def __init__(self, clock: Clock):
        self.clock = clock
        # (row, its whole-line regex, its catalogue row)
        self.rows = [(r, r.regex(), pattern_named(r.pattern)) for r in FAST_ROWS]
        self.scanner = Scanner([regex for _, regex, _ in self.rows])
        self.fields = [f.name for f in EVENT_FIELDS]
        self.event_types = pa.array([r.event_type for r in FAST_ROWS], pa.string())
        self.kinds = pa.array(["understood" if r.event_type is None else "event" for r in FAST_ROWS], pa.string())
        self.patterns = pa.array([pattern.name for _, _, pattern in self.rows], pa.string())
        self.recorded = np.array([r.event_type is not None for r in FAST_ROWS])
        self.by_controller = np.array([r.head == "controller" for r in FAST_ROWS])
        # Each line's recorder: a null to begin with, then (field, which rows it is of) per logIdent.
        self.recorders = [pa.nulls(len(FAST_ROWS), pa.int32()),
                          *((field, np.array([RECORDER[r.head] == field for r in FAST_ROWS]))
                            for field in sorted(set(RECORDER.values())))]
        # What the line of a row that records no event fills (its logIdent, its partition): no field of its row.
        self.unrecorded = ["event_time_ms", *(n for n, rows in self.scanner.held.items() if (rows & ~self.recorded).any())]

    def _time_ms(self, scanned: Scanned) -> pa.Array:
        """Each line's time in ms: Clock does the zone arithmetic once per distinct hour, as
        the ordinary path does; null where it cannot read the hour."""
        hours, which = np.unique(scanned.hour, return_inverse=True)
        bases = pa.array([self.clock.ms(f"{h // 1_000_000:04d}-{h // 10_000 % 100:02d}-{h // 100 % 100:02d} "
                                        f"{h % 100:02d}:00:00") for h in hours.tolist()], pa.int64())
        return pc.add(bases.take(pa.array(which.reshape(-1))), pa.array(scanned.ms))

    def scan(self, raw: pa.Array) -> tuple[pa.Table | None, np.ndarray]:
        """The lines of `raw` that a fast row reads, in batch order: FAST_COLUMNS and every
        event field they set (none for a line that records no event); None when no line is
        fast. And whether each line certainly ends the (one-line) record before it: a log4j
        head or the start of a hand-wrapped one, never a continuation."""
        data = raw.cast(pa.binary())
        if data.null_count:
            data = data.fill_null(b"")   # a null line is no record's start, and no fast line
        scanned = self.scanner.scan(data)
        n = len(scanned.idx)
        if n == 0:
            return None, scanned.starts
        row = scanned.row
        which = pa.array(row)
        times = self._time_ms(scanned)
        columns = {"idx": pa.array(scanned.idx), "event_time_ms": times, "event_type": self.event_types.take(which),
                   "pattern": self.patterns.take(which), "kind": self.kinds.take(which), **scanned.fields}
        # The line's recorder, by its logIdent (RECORDER). Only a controller's carries the epoch
        # that orders the file.
        recorder = self.recorders[0].take(which)
        for field, of_rows in self.recorders[1:]:
            recorder = pc.if_else(pa.array(of_rows[row]), columns[field], recorder)
        columns["recording_broker"] = columns["line_broker"] = recorder
        by_controller = pa.array(self.by_controller[row])
        epoch = columns["controller_epoch"]
        columns["line_epoch"] = pc.if_else(by_controller, epoch, pa.scalar(None, epoch.type))
        columns["line_ms"] = times
        recorded = self.recorded[row]
        if not recorded.all():
            recorded = pa.array(recorded)
            for name in self.unrecorded:
                columns[name] = pc.if_else(recorded, columns[name], pa.scalar(None, columns[name].type))
        table = pa.table({name: columns[name] if name in columns else pa.nulls(n, arrow_type(_TYPES[name]))
                          for name in (*FAST_COLUMNS, *self.fields)})
        # Less the lines whose hour the clock cannot read (they keep the ordinary path: no
        # timestamp there either).
        return (table.filter(pc.is_valid(times)) if times.null_count else table), scanned.starts

    def parse(self, raw: pa.Array) -> pa.Table | None:
        """`scan`'s fast lines alone."""
        return self.scan(raw)[0]
