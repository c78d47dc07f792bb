"""Log envelopes (spec kafka-log-formats §1): what wraps a Kafka message in the files users
really have, and how lines become records.

Outer wrappers are peeled first (docker / docker-compose / kubectl prefixes, a test
harness's STDOUT echo, Docker's json-file lines); then one of the `LAYOUTS` gives
(timestamp, level, message, logger). Lines that no layout matches are continuations of the
record before them (stack traces, `KafkaConfig values:` dumps, hand-wrapped pastes) when
they look like one, else garbage. `RecordAssembler` does that gluing, per stream: one file
can interleave several brokers (docker-compose), so each wrapper tag has its own record.

Timestamps carry no zone in any Kafka layout; `Clock` turns them into epoch milliseconds
in the zone the operator names (default UTC)."""
from __future__ import annotations

import calendar
import re
from datetime import datetime
from typing import Iterable, Iterator, NamedTuple
from zoneinfo import ZoneInfo

from schemas.validate import load_json

LEVELS = "TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL"


class Layout(NamedTuple):
    name: str
    regex: re.Pattern   # groups: ts, level, msg, and logger where the layout has one


# log4j ISO8601 `%d`: `yyyy-MM-dd HH:mm:ss,SSS` (no zone). Order matters: first match wins.
LAYOUTS: tuple[Layout, ...] = (
    # Stock `[%d] %p %m (%c)%n` (config/log4j.properties 0.8.0-3.9, log4j2.yaml 4.x); `(%c:%L)` of Kafka's tests.
    Layout("stock", re.compile(rf"\[(?P<ts>\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{{3}})\] (?P<level>{LEVELS}) "
                               r"(?P<msg>.*) \((?P<logger>[\w$.\-]+)(?::\d+)?\)$", re.S)),
    # Strimzi `%d{ISO8601} %p %m (%c) [%t]%n`.
    Layout("strimzi", re.compile(rf"(?P<ts>\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d{{3}}) (?P<level>{LEVELS}) "
                                 r"(?P<msg>.*) \((?P<logger>[\w$.\-]+)\) \[[^\]]*\]$", re.S)),
    # A broker embedded in another application's log4j: `2016-08-02 05:38:11 INFO  PartitionStateMachine:68 - ...`.
    Layout("embedded", re.compile(rf"(?P<ts>\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d(?:[,.]\d{{3}})?) +(?P<level>{LEVELS}) +"
                                  r"(?P<logger>[\w$.]+):\d+ - (?P<msg>.*)$", re.S)),
)
# A head whose `(logger)` suffix has not arrived yet: a hand-wrapped paste, glued until complete.
# A line that begins like a head (a date) but does not parse yet: wrapped, maybe mid-token.
_PARTIAL_HEAD = re.compile(r"\[?\d{4}-\d\d-\d\d")

# Outer wrappers, peeled before the layout: (name, regex with `rest` and optional `tag`).
WRAPPERS: tuple[tuple[str, re.Pattern], ...] = (
    # `docker compose logs [-t]`: `broker1   | [2020-...] ...`, `kafka_1   | ...`
    ("compose", re.compile(r"(?P<tag>[A-Za-z0-9][\w.\-]*) +\| ?(?P<rest>.*)$", re.S)),
    # `kubectl logs --prefix`: `[pod/kafka-0/kafka] ...`
    ("kubectl", re.compile(r"\[pod/(?P<tag>[^\]\s]+)\] (?P<rest>.*)$", re.S)),
    # `docker logs -t` / compose -t: an RFC 3339 UTC stamp before the line.
    ("docker-t", re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z (?P<rest>.*)$", re.S)),
    # A test harness echoing the broker's stdout: `07:08:49,859  INFO || - [Support] ... - STDOUT: [2022-...] ...`
    ("harness", re.compile(r"\d\d:\d\d:\d\d,\d{3} +\w+ +\|\| .*? STDOUT: (?P<rest>.*)$", re.S)),
)

# Lines that continue the record before them: stack frames, `Caused by:`, `... 22 more`,
# an exception's class line, and anything indented (config dumps, tab-converted frames).
_CONTINUATION = re.compile(r"(?:\s|at |Caused by|Suppressed: |\.\.\. \d+ more|[\w$.]+(?:Exception|Error|Throwable)\b)")

# kafka-dump-log output has no envelope; its lines are recognised by their first token.
# " payload: {": a record under --skip-record-metadata (DumpLogSegments.scala), its leading space
# kept or lost; it would otherwise read as a continuation line.
DUMP_STARTS = ("Dumping ", "baseOffset: ", "| offset: ", "offset: ", "Log starting offset", "Snapshot end offset",
               "KRaft bootstrap snapshot", "| ", " payload: {", "payload: {")


class Clock:
    """Zoneless log4j timestamps -> epoch ms in `zone`; the offset is cached per hour."""

    def __init__(self, zone: str = "UTC"):
        self.zone = ZoneInfo(zone)
        self.utc = zone.upper() in ("UTC", "Z", "ETC/UTC", "GMT")
        self._hours: dict[str, int] = {}

    def ms(self, ts: str) -> int | None:
        hour = ts[:13]
        base = self._hours.get(hour)
        if base is None:
            try:
                naive = datetime(int(ts[0:4]), int(ts[5:7]), int(ts[8:10]), int(ts[11:13]))
            except ValueError:
                return None
            if self.utc:
                base = calendar.timegm(naive.timetuple()) * 1000
            else:
                base = int(naive.replace(tzinfo=self.zone).timestamp() * 1000)
            self._hours[hour] = base
        try:
            ms = int(ts[14:16]) * 60_000 + int(ts[17:19]) * 1000
            if len(ts) >= 23:
                ms += int(ts[20:23])
        except ValueError:
            return None
        return base + ms

    def stamps_ms(self, stamps) -> "np.ndarray":
        """`ms` of a pyarrow array of stock-layout stamps (`2024-05-01 02:14:00,123`: ASCII digits
        where `ms` reads them), as float64 with NaN where `ms` gives None: the zone arithmetic
        once per distinct hour, the rest vectorised."""
        import numpy as np
        import pyarrow.compute as pc

        hours = pc.utf8_slice_codeunits(stamps, 0, 13).dictionary_encode()
        bases = np.array([np.nan if b is None else b for b in
                          (self.ms(h + ":00:00") for h in hours.dictionary.to_pylist())], np.float64)
        within = [pc.cast(pc.utf8_slice_codeunits(stamps, a, b), "int64").to_numpy(zero_copy_only=False) * unit
                  for a, b, unit in ((14, 16, 60_000), (17, 19, 1000), (20, 23, 1))]
        return bases[hours.indices.to_numpy(zero_copy_only=False)] + sum(within)


class Head(NamedTuple):
    layout: str
    ts: str
    level: str
    logger: str | None
    message: str


# Terminal colour (ANSI SGR: `ESC [ 36 m`): `docker compose logs` colours its service prefix on a
# terminal (and with --ansi always), log4j's %highlight colours the level; a capture of either
# keeps the codes. They are no part of the record: dropped (inside a json-file line too) before
# the wrappers are peeled.
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def unwrap(line: str) -> tuple[str | None, str]:
    """(tag, line without outer wrappers or colour codes). The tag names the stream (a compose
    service, a pod) the line came from; None when there is no wrapper."""
    tag = None
    if line.startswith("{"):
        try:
            obj = load_json(line)
        except ValueError:
            return None, line
        if isinstance(obj, dict) and isinstance(obj.get("log"), str):  # Docker json-file driver
            line = obj["log"].rstrip("\n")
    if "\x1b" in line:
        line = _COLOUR.sub("", line)
    for _ in range(3):   # compose -t stacks two wrappers: `svc | 2020-...Z [2020-...] ...`
        c = line[:1]
        if c == "[" and not line.startswith("[pod/"):
            return tag, line
        for name, rx in WRAPPERS:
            m = rx.match(line)
            if m is not None:
                if name in ("compose", "kubectl"):
                    tag = m["tag"]
                line = m["rest"]
                break
        else:
            return tag, line
    return tag, line


def parse_head(text: str) -> Head | None:
    c = text[:1]
    if c == "[" or c.isdigit():
        for layout in LAYOUTS:
            m = layout.regex.match(text)
            if m is not None:
                level = m["level"]
                return Head(layout.name, m["ts"], "WARN" if level == "WARNING" else level,
                            m.groupdict().get("logger"), m["msg"])
    return None


def is_partial_head(text: str) -> bool:
    return _PARTIAL_HEAD.match(text) is not None


def is_continuation(text: str) -> bool:
    return _CONTINUATION.match(text) is not None


class Record(NamedTuple):
    """One log record: its head line, the continuation lines glued to it, and where it came from."""
    line: int               # first line (as numbered by the caller)
    lines: int              # how many input lines it spans (head + continuations)
    tag: str | None
    head: Head | None       # None: a kafka-dump-log line (no envelope)
    message: str            # the head's message, or the dump line
    continuation: str       # glued stack trace / dump, "\n"-joined; "" when none
    raw: str                # the input lines verbatim, "\n"-joined (for quarantine)


class Unparsed(NamedTuple):
    line: int
    lines: int
    tag: str | None
    raw: str
    reason: str


class _Open:
    __slots__ = ("first", "head", "text", "cont", "raws", "dump")

    def __init__(self, first: int, head: Head | None, text: str, raw: str, dump: bool = False):
        self.first, self.head, self.text, self.cont, self.raws, self.dump = first, head, text, [], [raw], dump


# A kafka-dump-log line pasted through a terminal, a ticket or a code review comes wrapped: its
# remainder is on the next lines, split at a column (mid-token) or at white space (kept, or lost).
# The lines after a dump line that begin no record are its remainder; `dump_joins` gives the ways
# to join them again, and the parser reads the first a catalogue row understands.
_MAX_JOINS = 4096


def dump_joins(parts: list[str]) -> Iterator[str]:
    """The texts a wrapped dump line may have been: its parts joined as they are, then, at the
    breaks with no white space on either side, with a space put back (a wrap that dropped it): at
    one break, then at two, ... (a word wrap breaks a token longer than the width mid-token too).
    Past _MAX_JOINS ways, only none or all of them."""
    ambiguous = [i for i in range(1, len(parts)) if parts[i - 1][-1:] not in (" ", "\t") and parts[i][:1] not in (" ", "\t")]

    def joined(spaced: set[int]) -> str:
        return parts[0] + "".join((" " if i in spaced else "") + p for i, p in enumerate(parts[1:], 1))

    if 2 ** len(ambiguous) > _MAX_JOINS:
        yield joined(set())
        yield joined(set(ambiguous))
        return
    for mask in sorted(range(2 ** len(ambiguous)), key=lambda m: (bin(m).count("1"), m)):
        yield joined({i for bit, i in enumerate(ambiguous) if mask >> bit & 1})


# A continuation line (a stack trace's, say) at a file's start: the record it belongs to is not in the input.
LEADING_REASON = "continuation line with no record before it"
# Log text has no NUL character; UTF-16 text read as UTF-8 has one in every other byte (Windows
# PowerShell 5 writes `>` redirects, e.g. of kafka-dump-log, as UTF-16).
NUL_BYTES = ("NUL bytes in the line: UTF-16 text (as a Windows PowerShell redirect writes it) or binary data, "
             "not UTF-8 log text; convert the file to UTF-8")
# A host that crashed (power loss, kernel panic) can leave the end of a log file as a run of NUL
# bytes: the file's length was written, its last blocks were not. The restarted broker appends
# after them, so the first line it writes is glued to the run (and the line the crash cut short,
# if any, precedes it). UTF-16 text has single NULs, never two in a row.
_CRASH_PADDING = re.compile("\x00{2,}")
CRASH_PADDING = ("NUL padding: the end of the file a host crash left unwritten (and the text before it, a line "
                 "the crash cut short); the record after it on the same line is read")


def _continues_record_line(o: _Open, text: str) -> bool:
    """A line wrapped just before its ` payload: {...}` begins as a --skip-record-metadata line
    would; after a record line that has no payload yet (that option prints no record line), it is
    that record's payload."""
    return (text.startswith("payload: {") and o.text.startswith("| offset: ")
            and not any("payload: " in part for part in (o.text, *o.cont)))


class RecordAssembler:
    """Lines in file order -> Records and Unparsed lines, per stream tag.

    A record is emitted once the next head of its stream arrives (or at `close`), so
    that its continuation lines are glued. A hand-wrapped head (no `(logger)` yet) takes
    the following lines verbatim until it parses. Continuation lines before any head
    (a split that starts inside a stack trace) are kept in `leading` for the caller."""

    def __init__(self) -> None:
        self._open: dict[str | None, _Open] = {}
        self.leading: list[tuple[int, str | None, str]] = []

    def feed(self, line_no: int, raw: str) -> Iterator[Record | Unparsed]:
        raw = raw.rstrip("\r\n")
        if "\x00\x00" in raw:
            *_, padding = _CRASH_PADDING.finditer(raw)
            after = raw[padding.end():]
            # The record after the padding accounts for the line; alone, the padding does.
            yield Unparsed(line_no, 0 if after.strip() else 1, None, raw[:padding.end()], CRASH_PADDING)
            raw = after
        tag, text = unwrap(raw)
        if not text.strip():
            return
        cur = self._open.get(tag)
        head = parse_head(text)
        if cur is not None and cur.dump:
            if head is None and not is_partial_head(text) and (
                    not text.startswith(DUMP_STARTS) or _continues_record_line(cur, text)):
                cur.cont.append(text)      # the rest of a wrapped dump line
                cur.raws.append(raw)
                return
            yield self._finish(tag)
            cur = None
        if cur is not None and cur.head is None:
            if head is None and not is_partial_head(text):   # the rest of a hand-wrapped head
                cur.raws.append(raw)
                cur.text += text
                cur.head = parse_head(cur.text)
                return
            yield self._finish(tag)       # a new record begins: the open one was truncated
            cur = None
        if head is not None:
            if cur is not None:
                yield self._finish(tag)
            self._open[tag] = _Open(line_no, head, text, raw)
            return
        if text.startswith(DUMP_STARTS):
            if cur is not None:
                yield self._finish(tag)
            self._open[tag] = _Open(line_no, None, text, raw, dump=True)   # until the next record begins
            return
        if is_partial_head(text):
            if cur is not None:
                yield self._finish(tag)
            self._open[tag] = _Open(line_no, None, text, raw)
            return
        if cur is not None and (is_continuation(text) or (cur.head.level in ("ERROR", "WARN", "FATAL") and not cur.cont)):
            # Stack frames and indented dumps; and right after an ERROR head, the
            # exception's own message line, whatever it looks like.
            cur.cont.append(text)
            cur.raws.append(raw)
            return
        if cur is None and is_continuation(text):
            self.leading.append((line_no, tag, raw))
            return
        yield Unparsed(line_no, 1, tag, raw, NUL_BYTES if "\x00" in raw else
                       "no log4j envelope: not a record head, a continuation or a kafka-dump-log line")

    def _finish(self, tag: str | None) -> Record | Unparsed:
        o = self._open.pop(tag)
        if o.dump:
            # A dump line: `continuation` holds its wrapped remainder's lines, "" when none.
            return Record(o.first, len(o.raws), tag, None, o.text, "\n".join(o.cont), "\n".join(o.raws))
        if o.head is None:
            return Unparsed(o.first, len(o.raws), tag, "\n".join(o.raws),
                            "truncated record: its lines never complete a log4j line")
        return Record(o.first, len(o.raws), tag, o.head, o.head.message, "\n".join(o.cont), "\n".join(o.raws))

    def glue(self, lines: list[str]) -> bool:
        """Lines `feed` would glue to the untagged stream's open record whatever that record is
        (`plain_continuations`' lines), glued at once; False, and nothing glued, if that stream has
        no open record with a head."""
        cur = self._open.get(None)
        if cur is None or cur.head is None:
            return False
        cur.cont.extend(lines)
        cur.raws.extend(lines)
        return True

    def finish(self, tag: str | None) -> Iterator[Record | Unparsed]:
        """What a new head of stream `tag` does first: end that stream's open record."""
        if tag in self._open:
            yield self._finish(tag)

    def others_open(self, tag: str | None) -> bool:
        return any(t != tag for t in self._open)

    def close(self) -> Iterator[Record | Unparsed]:
        for tag in list(self._open):
            yield self._finish(tag)


# `plain_continuations`, in RE2 (pyarrow): lines `feed` reads as a continuation of the untagged
# stream's open record whatever it is: printable ASCII or tabs (no NUL, colour code or line end),
# not blank, beginning as _CONTINUATION does but for its other white space, and none of what
# `feed` tries first: no wrapper (a compose tag, `[pod/`, a date), no head or hand-wrapped head
# (`[`, a digit), no dump line (a leading space of " payload: {").
_PLAIN_CONTINUATION = (r"^(?:[\t ]|at |Caused by|Suppressed: |\.\.\. \d+ more|[\w$.]+(?:Exception|Error|Throwable)\b)"
                       r"[\t\x20-\x7e]*$")
_NOT_PLAIN = (r"^(?:[\[0-9{]|[A-Za-z0-9][\w.\-]* +\|)|^[\t ]*$")


def plain_continuations(raw) -> "np.ndarray":
    """Which lines of a pyarrow string array RecordAssembler.feed would glue to an open record of
    the untagged stream, whatever that record and the lines around them are (a stack trace's
    frames): the caller glues a run of them at once (RecordAssembler.glue). Others: False."""
    import numpy as np
    import pyarrow.compute as pc

    plain = pc.and_(pc.match_substring_regex(raw, _PLAIN_CONTINUATION),
                    pc.invert(pc.match_substring_regex(raw, _NOT_PLAIN)))
    for start in DUMP_STARTS:
        plain = pc.and_(plain, pc.invert(pc.starts_with(raw, start)))
    return np.asarray(pc.fill_null(plain, False).to_numpy(zero_copy_only=False), bool)


def assemble(lines: Iterable[tuple[int, str]]) -> Iterator[Record | Unparsed]:
    a = RecordAssembler()
    for n, raw in lines:
        yield from a.feed(n, raw)
    yield from a.close()
    for n, tag, raw in a.leading:
        yield Unparsed(n, 1, tag, raw, LEADING_REASON)
