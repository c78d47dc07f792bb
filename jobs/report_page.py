"""The HTML report's page and charts, from plain rows (no Spark): jobs/report.py queries the
tables and hands its rows here. Each chart is SVG written here, inline in one page that
jinja2 renders from jobs/templates/report.html.j2; the page loads nothing else, so it opens
offline. An unclean election's marker carries the class `unclean` and the colour UNCLEAN_RED,
which the browser test finds in the DOM and in the screenshot."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Iterable, NamedTuple

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from state_machine import events as E
from state_machine.findings import records_lost_text
from state_machine.selectors import ElectionKind
from state_machine.states import ABSENT_PARTITION_STATES, is_offline

UNCLEAN_RED = "#e00000"
OFFLINE_GREY = "#3a3a3a"
ABSENT_FILL = "#f0f0f0"
# Election markers by kind; red is the unclean election's alone.
KIND_COLOURS = {
    ElectionKind.initial.value: "#7f7f7f",
    ElectionKind.offline.value: "#ff8c00",
    ElectionKind.unclean.value: UNCLEAN_RED,
    ElectionKind.reassign.value: "#1f77b4",
    ElectionKind.preferred.value: "#2ca02c",
    ElectionKind.controlled_shutdown.value: "#9467bd",
    ElectionKind.noop.value: "#bcbd22",
}
# Leader bands: one pale colour per broker id, so a change of leader reads as a change of colour.
LEADER_COLOURS = ("#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")
UP_GREEN, DOWN_GREY = "#5cb85c", "#b0b0b0"

WIDTH, LEFT, RIGHT = 960, 90, 10
PLOT = WIDTH - LEFT - RIGHT


class TimelineRow(NamedTuple):
    """One partition_timeline row, the columns a chart draws."""
    valid_from: datetime
    valid_to: datetime | None
    partition_state: str
    leader: int
    isr: list[int]
    replicas: list[int]
    election: str | None
    source: str


class Interval(NamedTuple):
    """A broker's state from `start` to `end`: up or down."""
    start: datetime
    end: datetime
    state: str


class Scale(NamedTuple):
    """Time to x: the window [t0, t1] onto the plot's width."""
    t0: datetime
    t1: datetime

    def x(self, t: datetime) -> float:
        span = (self.t1 - self.t0).total_seconds() or 1.0
        frac = min(max((t - self.t0).total_seconds() / span, 0.0), 1.0)
        return round(LEFT + frac * PLOT, 1)


def _fmt(t: datetime | None) -> str:
    return "" if t is None else t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _axis(scale: Scale, y: int) -> list[str]:
    """The time axis at `y`: the window's first and last time, and its middle."""
    mid = scale.t0 + (scale.t1 - scale.t0) / 2
    out = [f'<line x1="{LEFT}" y1="{y}" x2="{WIDTH - RIGHT}" y2="{y}" stroke="#999"/>']
    for t, anchor in ((scale.t0, "start"), (mid, "middle"), (scale.t1, "end")):
        out.append(f'<text x="{scale.x(t)}" y="{y + 12}" font-size="10" text-anchor="{anchor}" '
                   f'fill="#555">{_fmt(t)[11:]}</text>')
    return out


def _svg(height: int, body: list[str], label: str, **data: str) -> Markup:
    attrs = "".join(f' data-{k}="{escape(v)}"' for k, v in data.items())
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
                  f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(label)}"{attrs}>'
                  + "".join(body) + "</svg>")


def partition_chart(name: str, rows: list[TimelineRow], scale: Scale) -> Markup:
    """A partition's timeline: its leader (a band per leader, dark while offline, pale before its
    first election and once deleted), its ISR
    size against its replicas (a step line), and its elections marked by kind, unclean in red.
    `rows` in timeline order; the last row without valid_to lasts to the window's end."""
    leader_y, leader_h, isr_top, isr_h = 6, 24, 40, 40
    top = max((len(r.replicas) for r in rows), default=1) or 1
    body = [f'<text x="4" y="{leader_y + 16}" font-size="11">leader</text>',
            f'<text x="4" y="{isr_top + 14}" font-size="11">ISR size</text>',
            f'<text x="{LEFT - 4}" y="{isr_top + 8}" font-size="9" text-anchor="end">{top}</text>',
            f'<text x="{LEFT - 4}" y="{isr_top + isr_h}" font-size="9" text-anchor="end">0</text>']

    def isr_y(n: int) -> float:
        return round(isr_top + isr_h - isr_h * n / top, 1)

    isr_path, replicas_path = [], []
    for r in rows:
        x0, x1 = scale.x(r.valid_from), scale.x(r.valid_to or scale.t1)
        w = max(x1 - x0, 0.5)
        what = f"{_fmt(r.valid_from)} to {_fmt(r.valid_to) or 'end'}: "
        if r.partition_state in ABSENT_PARTITION_STATES:
            body.append(f'<rect class="absent" x="{x0}" y="{leader_y}" width="{w}" height="{leader_h}" '
                        f'fill="{ABSENT_FILL}"><title>{escape(what + r.partition_state)}</title></rect>')
        elif is_offline(r.partition_state, r.leader):
            body.append(f'<rect class="offline" x="{x0}" y="{leader_y}" width="{w}" height="{leader_h}" '
                        f'fill="{OFFLINE_GREY}"><title>{escape(what)}offline (leader {r.leader}, '
                        f'{r.partition_state})</title></rect>')
        else:
            body.append(f'<rect class="leader" data-leader="{r.leader}" x="{x0}" y="{leader_y}" width="{w}" '
                        f'height="{leader_h}" fill="{LEADER_COLOURS[r.leader % len(LEADER_COLOURS)]}">'
                        f'<title>{escape(what)}leader {r.leader}, ISR {r.isr}</title></rect>')
            if w >= 22:
                body.append(f'<text x="{round(x0 + 3, 1)}" y="{leader_y + 16}" font-size="10">{r.leader}</text>')
        isr_path.append(f"{'M' if not isr_path else 'L'}{x0},{isr_y(len(r.isr))} L{x1},{isr_y(len(r.isr))}")
        replicas_path.append(f"{'M' if not replicas_path else 'L'}{x0},{isr_y(len(r.replicas))} "
                             f"L{x1},{isr_y(len(r.replicas))}")
    if rows:
        body.append(f'<path class="replicas" d="{" ".join(replicas_path)}" fill="none" stroke="#bbb" '
                    f'stroke-dasharray="4 3"/>')
        body.append(f'<path class="isr" d="{" ".join(isr_path)}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
    for r in rows:   # markers last: drawn over the bands
        if r.election is None:
            continue
        x, unclean = scale.x(r.valid_from), r.election == ElectionKind.unclean.value
        colour = KIND_COLOURS.get(r.election, "#000")
        tip = escape(f"{r.election} election at {_fmt(r.valid_from)}: leader {r.leader}, ISR {r.isr} ({r.source})")
        cls = f"election election-{r.election}" + (" unclean" if unclean else "")
        if unclean:   # a line across the chart as well: the one finding that must not be missed
            body.append(f'<line class="unclean-line" x1="{x}" y1="{leader_y}" x2="{x}" y2="{isr_top + isr_h}" '
                        f'stroke="{UNCLEAN_RED}" stroke-width="2"/>')
        size = 7 if unclean else 5
        body.append(f'<path class="{cls}" data-kind="{r.election}" d="M{x - size},{leader_y - 1} '
                    f'L{x + size},{leader_y - 1} L{x},{leader_y - 1 + 2 * size} Z" fill="{colour}" '
                    f'stroke="#000" stroke-width="0.5"><title>{tip}</title></path>')
    body += _axis(scale, isr_top + isr_h + 6)
    return _svg(isr_top + isr_h + 22, body, f"timeline of {name}", partition=name)


def controller_chart(cluster: str, changes: list[tuple[datetime, int | None, int | None]], scale: Scale) -> Markup:
    """The controller epoch over time (a step line) with each change marked by its controller:
    `changes` are audit_runs.controller_changes' [time, epoch, controller], in time order; the
    first may be before the window (the controller it opens with, marked at its start)."""
    top, h = 8, 50
    epochs = [e for _, e, _ in changes if e is not None]
    hi = max(epochs, default=1)
    lo = min(min(epochs, default=0), hi - 1)   # one epoch alone sits at the top, not on the axis
    span = max(hi - lo, 1)

    def y(epoch: int) -> float:
        return round(top + h - h * (epoch - lo) / span, 1)

    body = [f'<text x="4" y="{top + 14}" font-size="11">epoch</text>',
            f'<text x="{LEFT - 4}" y="{top + 8}" font-size="9" text-anchor="end">{hi}</text>',
            f'<text x="{LEFT - 4}" y="{top + h}" font-size="9" text-anchor="end">{lo}</text>']
    timed = [(t, e, c) for t, e, c in changes if t is not None and e is not None]
    path = []
    for i, (t, e, c) in enumerate(timed):
        x0 = scale.x(t)
        x1 = scale.x(timed[i + 1][0]) if i + 1 < len(timed) else scale.x(scale.t1)
        path.append(f"{'M' if not path else 'L'}{x0},{y(e)} L{x1},{y(e)}")
        body.append(f'<circle class="failover" cx="{x0}" cy="{y(e)}" r="4" fill="#ff8c00">'
                    f'<title>{escape(f"{_fmt(t)}: controller {c}, epoch {e}")}</title></circle>')
        body.append(f'<text x="{x0 + 5}" y="{y(e) - 4 if y(e) > top + 10 else y(e) + 12}" font-size="9">'
                    f'c{"?" if c is None else c}</text>')
    if path:
        body.insert(3, f'<path class="epoch" d="{" ".join(path)}" fill="none" stroke="#555"/>')
    body += _axis(scale, top + h + 6)
    return _svg(top + h + 22, body, f"controller epochs of {cluster}", cluster=cluster)


def broker_intervals(changes: Iterable[tuple[datetime | None, str, list[int]]], end: datetime) -> dict[int, list[Interval]]:
    """Each broker's up and down intervals from audit_runs.broker_changes ([time, event type,
    brokers], in recorded order) until `end`, read as the replay reads liveness
    (state_machine.carried.carried_liveness): a controller's failover lists every live broker,
    a failure marks its brokers down, any other change (a startup, a controlled shutdown) up.
    A broker's time before its first change is not known and has no interval."""
    state: dict[int, tuple[datetime, str]] = {}
    out: dict[int, list[Interval]] = {}

    def move(broker: int, at: datetime, to: str) -> None:
        held = state.get(broker)
        if held is not None and held[1] == to:
            return
        if held is not None and at > held[0]:
            out.setdefault(broker, []).append(Interval(held[0], at, held[1]))
        state[broker] = (at, to)

    for at, event_type, brokers in changes:
        if at is None:
            continue
        if event_type == E.CONTROLLER_FAILOVER:
            for b in set(state) | set(brokers):
                move(b, at, "up" if b in brokers else "down")
        else:
            for b in brokers:
                move(b, at, "down" if event_type == E.BROKER_FAILURE else "up")
    for broker, (at, to) in state.items():
        if end > at:
            out.setdefault(broker, []).append(Interval(at, end, to))
    return {b: sorted(v) for b, v in sorted(out.items())}


def broker_chart(cluster: str, intervals: dict[int, list[Interval]], scale: Scale) -> Markup:
    """A lane per broker: green while up, grey while down, blank where not known; `intervals` may
    begin before the window (the state it opens with)."""
    lane = 16
    body = []
    for i, (broker, spans) in enumerate(intervals.items()):
        y = 4 + i * lane
        body.append(f'<text x="4" y="{y + 11}" font-size="11">broker {broker}</text>')
        for s in spans:
            if s.end <= scale.t0 or s.start >= scale.t1:   # outside the window: nothing to draw
                continue
            x0, x1 = scale.x(s.start), scale.x(s.end)
            body.append(f'<rect class="broker-{s.state}" x="{x0}" y="{y}" width="{max(x1 - x0, 0.5)}" '
                        f'height="{lane - 4}" fill="{UP_GREEN if s.state == "up" else DOWN_GREY}">'
                        f'<title>{escape(f"broker {broker} {s.state} {_fmt(s.start)} to {_fmt(s.end)}")}</title></rect>')
    y = 4 + len(intervals) * lane
    body += _axis(scale, y + 2)
    return _svg(y + 18, body, f"broker liveness of {cluster}", cluster=cluster)


GAP_ORANGE, FILE_BLUE = "#ff8c00", "#1f77b4"


class CoverageFile(NamedTuple):
    """A log file of the input: its broker (None: no path or stream names one), kind and the
    times of its first and last line."""
    broker: int | None
    file: str
    kind: str
    first: datetime | None
    last: datetime | None


class CoverageGap(NamedTuple):
    """A span in which a broker's files hold no line while others' (`others`) record events, or,
    `no_files`, the input's whole span for a broker with no file."""
    broker: int
    start: datetime | None
    end: datetime | None
    minutes: float
    others: list[int]
    no_files: bool


class Coverage(NamedTuple):
    """A cluster's audit_runs.input_coverage (ingest/coverage.py's JSON) as the page shows it,
    and the run that recorded it."""
    run_id: str
    gap_minutes: float
    files: list[CoverageFile]
    missing: list[int]
    outages: list[tuple[int, datetime | None, datetime | None]]   # broker, down from, up at (None: beyond the input)
    gaps: list[CoverageGap]

    def brokers(self) -> list[int]:
        """Every broker the coverage names: with files, missing, down or in a gap."""
        named = {f.broker for f in self.files if f.broker is not None} | set(self.missing)
        return sorted(named | {b for b, _, _ in self.outages} | {g.broker for g in self.gaps})


def _naive(text: str | None) -> datetime | None:
    """A time of the tables' JSON (UTC, ISO 8601, `Z`) as the page's naive UTC datetime."""
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=None)


def coverage(run_id: str, found: dict) -> Coverage:
    """A cluster's input_coverage (`found`, the JSON's value for the cluster) as the page shows it."""
    files = [CoverageFile(int(b), f["file"], f["kind"], _naive(f["first"]), _naive(f["last"]))
             for b, held in found.get("brokers", {}).items() for f in held["files"]]
    files += [CoverageFile(None, f["file"], f["kind"], _naive(f["first"]), _naive(f["last"]))
              for f in found.get("without_broker", ())]
    files.sort(key=lambda f: (f.broker is None, f.broker or 0, f.file))
    outages = sorted(((int(b), _naive(lo), _naive(hi)) for b, spans in found.get("outages", {}).items() for lo, hi in spans),
                     key=lambda o: (o[0], o[1] or datetime.min))
    gaps = [CoverageGap(g["broker"], _naive(g["from"]), _naive(g["to"]), g["minutes"], g["others"], g.get("no_files", False))
            for g in found.get("gaps", ())]
    return Coverage(run_id, found.get("gap_minutes"), files, list(found.get("missing", ())), outages, gaps)


def coverage_chart(cluster: str, cov: Coverage, scale: Scale) -> Markup:
    """A lane per broker: each of its files from its first line to its last (blue), its outages
    (grey) and its gaps (orange) over them; a broker with no file is an orange lane that says so."""
    lane = 16
    body = []
    for i, broker in enumerate(cov.brokers()):
        y = 4 + i * lane

        def span(cls: str, start, end, fill: str, tip: str) -> None:
            x0, x1 = scale.x(start or scale.t0), scale.x(end or scale.t1)
            body.append(f'<rect class="{cls}" data-broker="{broker}" x="{x0}" y="{y}" width="{max(x1 - x0, 0.5)}" '
                        f'height="{lane - 4}" fill="{fill}"><title>{escape(tip)}</title></rect>')

        body.append(f'<text x="4" y="{y + 11}" font-size="11">broker {broker}</text>')
        for f in cov.files:
            if f.broker == broker and f.first is not None:
                span("coverage-file", f.first, f.last, FILE_BLUE, f"{f.file} ({f.kind}): {_fmt(f.first)} to {_fmt(f.last)}")
        for b, lo, hi in cov.outages:
            if b == broker:
                span("coverage-outage", lo, hi, DOWN_GREY, f"broker {b} down {_fmt(lo) or 'before the input'} to "
                                                           f"{_fmt(hi) or 'after the input'}")
        if broker in cov.missing and not any(g.no_files and g.broker == broker for g in cov.gaps):
            span("coverage-missing", None, None, GAP_ORANGE, f"broker {broker}: no file in the input")
        for g in cov.gaps:
            if g.broker == broker:
                tip = (f"broker {broker}: no file in the input" if g.no_files else
                       f"broker {broker} logged no line {_fmt(g.start)} to {_fmt(g.end)} while broker(s) "
                       f"{', '.join(map(str, g.others))} recorded events")
                span("coverage-missing" if g.no_files else "coverage-gap", g.start, g.end, GAP_ORANGE, tip)
    y = 4 + len(cov.brokers()) * lane
    body += _axis(scale, y + 2)
    return _svg(y + 18, body, f"input coverage of {cluster}", cluster=cluster)


def duration(seconds: float | None) -> str:
    """A duration as an operator reads it: 0, 850 ms, 12.4 s, 3 min 20 s, 2 h 05 min."""
    if not seconds:
        return "0"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


class RecordsLost(NamedTuple):
    """An unclean election's records at risk as a violation row shows them: the bounds in a few
    words, and how each was obtained (or why it is unknown)."""
    text: str
    lower_from: str
    upper_from: str


def records_lost(facts: dict | None) -> RecordsLost | None:
    """The records lost of a violation's facts (state_machine.records_at_risk); None where it has none."""
    text = records_lost_text(facts or {})
    if text is None:
        return None
    return RecordsLost(text, facts.get("records_lost_lower_from", ""), facts.get("records_lost_upper_from", ""))


def render(context: dict) -> str:
    """The page: jobs/templates/report.html.j2 with `context` (jobs.report.build_context's)."""
    env = Environment(loader=FileSystemLoader(Path(__file__).resolve().parent / "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["duration"] = duration
    env.filters["when"] = _fmt
    env.filters["records_lost"] = records_lost
    return env.get_template("report.html.j2").render(**context)
