"""How complete a cluster's input is: which brokers' files it holds and the time each covers,
and the gaps, spans in which one broker's files hold no line while the others' record the
controller at work. No Spark: the parse counts each piece's `Activity` (ingest.counts, in the
Spark workers), the local ingest each file's (ingest.local), and both build audit_runs'
`input_coverage` and the violations' gap facts with the functions here.

A broker's lines are every line of its log4j files (controller.log, state-change.log,
server.log, rotations; a record's continuation lines with it), whatever their logger: a broker
that is up writes them. The others' activity is their log events, the records the replay reads:
a quiet cluster is not a gap, only one in which the controller decided something or a broker
changed state (a LeaderAndIsr it sends reaches every replica's log). A KRaft metadata-log dump
is the quorum's log, the same on every node: its time range is shown, and it takes no part in
the gaps. A broker that is down logs nothing: a span between its BrokerFailure or
ControlledShutdown and its next BrokerStartup (or a controller's list of live brokers that omits
it, up to one that names it) is an outage, not a gap, and is left out of its gaps."""
from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from ingest.lines import broker_from_text, file_kind
from schemas.types import utc_ms, utc_text
from state_machine import events as E

# Spans shorter than this are not gaps. Minutes, not seconds: a broker between two requests can
# stay silent for minutes while another logs (controller.log's periodic preferred-replica check,
# leader.imbalance.check.interval.seconds=300, and the LeaderAndIsr it may send to others).
DEFAULT_GAP_MINUTES = 10.0
DEFAULT_GAP_MS = round(DEFAULT_GAP_MINUTES * 60_000)
DUMP = "kraft-dump"
_INF = float("inf")
# The event fields that name a partition's brokers: a broker its events name there is one of the
# cluster's, whether or not its controller ever names it live or failed.
BROKER_FIELDS = ("leader", "isr", "replicas", "replica")


def brokers_named(events: Iterable) -> dict[str, set[int]]:
    """cluster -> the broker ids `events` (canonical Events) name as a leader, an ISR member, a
    replica (BROKER_FIELDS); -1 and -2 (no leader, KRaft's unchanged) are none."""
    out: dict[str, set[int]] = {}
    for e in events:
        ids = [*(e.isr or ()), *(e.replicas or ()), e.leader, e.replica]
        named = {b for b in ids if b is not None and b >= 0}
        if named:
            out.setdefault(e.cluster, set()).update(named)
    return out


class Activity(NamedTuple):
    """Times (epoch ms) of some lines: the first, the last, and each `hole` at least the gap long
    between two consecutive ones (lo, hi: the lines either side), in order. The times are the
    parse's running clock of the file (a record without a time of its own takes the one before)."""
    first: int
    last: int
    holes: tuple[tuple[int, int], ...] = ()

    def silent(self) -> list[tuple[float, float]]:
        """The spans with no line: before the first, the holes, after the last."""
        return [(-_INF, self.first), *self.holes, (self.last, _INF)]

    def has_line_in(self, lo: float, hi: float) -> bool:
        """Is one of the lines strictly between lo and hi? Exact when hi - lo is at least the
        gap its holes were found with: a shorter silent span is no hole, and cannot hold it."""
        return not any(a <= lo and hi <= b for a, b in self.silent())

    def as_json(self) -> list:
        return [self.first, self.last, [list(h) for h in self.holes]]


def activity_json(found: list | None) -> Activity | None:
    return None if found is None else Activity(found[0], found[1], tuple(tuple(h) for h in found[2]))


def activity_of(times: Iterable[int] | np.ndarray, gap_ms: int) -> Activity | None:
    """The Activity of lines at `times` (any order); None for none."""
    t = np.sort(np.asarray(times if isinstance(times, np.ndarray) else list(times), dtype=np.int64))
    if not len(t):
        return None
    at = np.flatnonzero(np.diff(t) >= gap_ms).tolist()
    return Activity(int(t[0]), int(t[-1]), tuple((int(t[k]), int(t[k + 1])) for k in at))


def _intersection(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The overlaps of two ordered lists of disjoint spans."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def merged(a: Activity | None, b: Activity | None, gap_ms: int) -> Activity | None:
    """The Activity of both's lines: the same whatever order pieces are merged in. A hole of the
    whole is silent in both, so it lies in a hole (or an end) of each: their holes suffice."""
    if a is None or b is None:
        return a if b is None else b
    first, last = min(a.first, b.first), max(a.last, b.last)
    holes = tuple((int(lo), int(hi)) for lo, hi in _intersection(a.silent(), b.silent())
                  if first <= lo and hi <= last and hi - lo >= gap_ms)
    return Activity(first, last, holes)


def line_broker(path: str, tag: str | None) -> int | None:
    """The broker that wrote a line: its stream's (a compose service, a pod) when it names one,
    else its file's (ingest.lines.broker_from_text, as the parse gives recording_broker)."""
    return (broker_from_text(tag) if tag else None) or broker_from_text(path)


def merged_files(pieces: Iterable[tuple[str, list]], gap_ms: int) -> dict[str, dict]:
    """file -> {broker: [lines Activity, events Activity]}, from each piece's counted activity
    (file, [[tag, lines, events] as JSON, ...]) in any order."""
    out: dict[str, dict] = {}
    for file, found in pieces:
        for tag, lines, events in found:
            add_activity(out, file, tag, activity_json(lines), activity_json(events), gap_ms)
    return out


def add_activity(into: dict[str, dict], file: str, tag: str | None, lines: Activity | None,
                 events: Activity | None, gap_ms: int) -> None:
    """Merge one stream's activity of `file` (its lines', its log events') into `into`, file ->
    broker -> [lines Activity, events Activity] (merged_files' form): the local ingest's, and
    each piece's in the Spark one."""
    had = into.setdefault(file, {}).setdefault(line_broker(file, tag), [None, None])
    had[0] = merged(had[0], lines, gap_ms)
    had[1] = merged(had[1], events, gap_ms)


class Gap(NamedTuple):
    cluster: str
    broker: int
    lo: int            # the broker's last line before (or the input's first line)
    hi: int            # its first line after (or the input's last line)
    others: tuple[int, ...]   # the brokers whose events fall inside
    no_files: bool = False    # the input holds no file of the broker


def outages(changes: Iterable[tuple]) -> dict[int, list[tuple[float, float]]]:
    """broker -> the spans it was down, from the liveness changes (state_machine.carried.
    broker_changes, in recorded order): from a BrokerFailure or ControlledShutdown, or a
    controller's list of live brokers that leaves it out, to its next BrokerStartup or a list
    that names it; from the input's start to a BrokerStartup with no failure before it."""
    down: dict[int, float] = {}
    up: set[int] = set()
    out: dict[int, list] = {}

    def start(broker: int, at: float) -> None:
        if broker not in down:
            down[broker] = at
        up.discard(broker)

    def end(broker: int, at: float) -> None:
        if broker in down:
            out.setdefault(broker, []).append((down.pop(broker), at))
        elif broker not in up and event_type == E.BROKER_STARTUP:
            out.setdefault(broker, []).append((-_INF, at))
        up.add(broker)

    for at, event_type, brokers in changes:
        if at is None:
            continue
        if event_type in (E.BROKER_FAILURE, E.CONTROLLED_SHUTDOWN):
            for b in brokers:
                start(b, at)
        elif event_type == E.BROKER_STARTUP:
            for b in brokers:
                end(b, at)
        elif event_type == E.CONTROLLER_FAILOVER:
            for b in set(up) | set(down) | set(out):
                if b not in brokers:
                    start(b, at)
            for b in brokers:
                end(b, at)
    for b, at in down.items():
        out.setdefault(b, []).append((at, _INF))
    return {b: sorted(spans) for b, spans in out.items()}


def _less(span: tuple[float, float], taken: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """`span` less the spans of `taken` (ordered)."""
    pieces, (lo, hi) = [], span
    for a, b in taken:
        if b <= lo or a >= hi:
            continue
        if a > lo:
            pieces.append((lo, a))
        lo = max(lo, b)
    if lo < hi:
        pieces.append((lo, hi))
    return pieces


def cluster_gaps(cluster: str, lines: dict[int, Activity], events: dict[int, Activity], named: Iterable[int],
                 down: dict[int, list], gap_ms: int) -> list[Gap]:
    """The gaps of one cluster's brokers: `lines` and `events` per broker (log4j files only),
    `named` the brokers its controller or its events name, `down` their outages (`outages`). A
    broker with files: each span of at least `gap_ms`, within the input's first and last line, in
    which it has no line, is not down, and another broker's events fall. A named broker with no
    file: the input's whole span, whatever its length, its outages included (a broker logs as it
    shuts down, and its files would show what led to the outage)."""
    if not lines:
        return []
    start, end = min(a.first for a in lines.values()), max(a.last for a in lines.values())
    gaps = []
    for broker, mine in sorted(lines.items()):
        for silent in mine.silent():
            span = (max(silent[0], start), min(silent[1], end))
            for lo, hi in _less(span, down.get(broker, [])):
                if hi - lo < gap_ms:
                    continue
                others = tuple(b for b, a in sorted(events.items()) if b != broker and a.has_line_in(lo, hi))
                if others:
                    gaps.append(Gap(cluster, broker, int(lo), int(hi), others))
    for broker in sorted(set(named) - set(lines)):   # not even the lines of its outages are there
        gaps.append(Gap(cluster, broker, int(start), int(end), tuple(sorted(lines)), no_files=True))
    return gaps


def utc(ms: float | None) -> str | None:
    return None if ms is None or ms in (_INF, -_INF) else utc_text(ms)


def _span_json(a: Activity) -> dict:
    return {"first": utc(a.first), "last": utc(a.last)}


def input_coverage(files: dict[str, dict], clusters: dict[str, str], changes: dict[str, list],
                   controllers: dict[str, list], partition_brokers: dict[str, Iterable[int]],
                   gap_ms: int) -> dict[str, dict]:
    """audit_runs.input_coverage, cluster -> its coverage: `files` as merged_files gives them,
    `clusters` file -> cluster, `changes` cluster -> its liveness changes (broker_changes),
    `controllers` cluster -> its controller changes ((time, epoch, controller), as recorded),
    `partition_brokers` cluster -> the brokers its events name as leaders, ISR members or
    replicas (brokers_named). A broker any of these names with no file is missing."""
    by_cluster: dict[str, dict] = {}
    for file in sorted(files):
        cluster = clusters.get(file)
        if cluster is None:
            continue
        kind = file_kind(file)
        c = by_cluster.setdefault(cluster, {"brokers": {}, "without_broker": [], "lines": {}, "events": {}})
        for broker, (lines, events) in files[file].items():
            if lines is None:
                continue
            entry = {"file": file, "kind": kind, **_span_json(lines)}
            if broker is None:
                c["without_broker"].append(entry)
                continue
            b = c["brokers"].setdefault(broker, {"files": []})
            b["files"].append(entry)
            b["first"] = min(b.get("first") or entry["first"], entry["first"])
            b["last"] = max(b.get("last") or entry["last"], entry["last"])
            if kind != DUMP:
                c["lines"][broker] = merged(c["lines"].get(broker), lines, gap_ms)
                c["events"][broker] = merged(c["events"].get(broker), events, gap_ms)
    out = {}
    for cluster, c in sorted(by_cluster.items()):
        named = {b for _, _, brokers in changes.get(cluster, ()) for b in brokers}
        named |= {controller for *_, controller in controllers.get(cluster, ()) if controller is not None}
        named |= set(partition_brokers.get(cluster, ()))
        down = outages(changes.get(cluster, ()))
        events = {b: a for b, a in c["events"].items() if a is not None}
        gaps = cluster_gaps(cluster, c["lines"], events, named, down, gap_ms)
        out[cluster] = {
            "gap_minutes": gap_ms / 60_000,
            "brokers": {str(b): v for b, v in sorted(c["brokers"].items())},
            "without_broker": c["without_broker"],
            "missing": sorted(named - set(c["brokers"])),
            "outages": {str(b): [[utc(lo), utc(hi)] for lo, hi in spans] for b, spans in sorted(down.items())},
            "gaps": [gap_json(g) for g in gaps],
        }
    return out


def gap_json(g: Gap) -> dict:
    return {"broker": g.broker, "from": utc(g.lo), "to": utc(g.hi), "minutes": round((g.hi - g.lo) / 60_000, 3),
            "others": list(g.others), **({"no_files": True} if g.no_files else {})}


def gaps_of(coverage: dict[str, dict]) -> list[Gap]:
    """The gaps input_coverage holds, as Gap values."""
    return [Gap(cluster, g["broker"], utc_ms(g["from"]), utc_ms(g["to"]), tuple(g["others"]), g.get("no_files", False))
            for cluster, c in coverage.items() for g in c["gaps"]]


def gap_facts(gaps: Iterable[Gap]) -> dict[str, str]:
    """The facts a violation inside `gaps` carries: `input_gap`, what is missing, and
    `input_gap_brokers`, whose logs (empty for none)."""
    gaps = sorted(gaps, key=lambda g: (g.broker, g.lo))
    if not gaps:
        return {}
    said = []
    for g in gaps:
        if g.no_files:
            said.append(f"broker {g.broker}'s logs are not in the input (its controller or its partitions name it)")
        else:
            others = ", ".join(map(str, g.others))
            said.append(f"broker {g.broker} logged no line from {utc(g.lo)} to {utc(g.hi)} while broker(s) "
                        f"{others} recorded events")
    return {"input_gap": "; ".join(said), "input_gap_brokers": str(sorted({g.broker for g in gaps}))}


def gap_segments(gaps: Iterable[Gap]) -> dict[str, list[tuple[int, int, dict[str, str]]]]:
    """cluster -> (lo, hi, facts): its time cut where the gaps it lies in change, each piece
    with the gap_facts of its gaps (both ends inside it), in order; a time in none is in no piece."""
    by_cluster: dict[str, list[Gap]] = {}
    for g in gaps:
        by_cluster.setdefault(g.cluster, []).append(g)
    out = {}
    for cluster, held in by_cluster.items():
        cuts = sorted({t for g in held for t in (g.lo, g.hi)})
        pieces = []
        for lo, hi in zip(cuts, cuts[1:]):
            inside = [g for g in held if g.lo <= lo and hi <= g.hi]
            if inside:
                pieces.append((lo, hi, gap_facts(inside)))
        if len(cuts) == 1:   # every gap one instant
            pieces.append((cuts[0], cuts[0], gap_facts(held)))
        out[cluster] = pieces
    return out
