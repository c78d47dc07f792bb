"""Fuzz: random mutations of real-format lines (truncation, lines wrapped mid-token,
garbage bytes, a wrong encoding, interleaved brokers) never crash the parser, and every
line is either parsed as it was before the mutation or quarantined; the line accounting
always reconciles."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.lines import FileParser
from schemas.validate import invalid_reason

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = sorted({line for p in FIXTURES.rglob("*") if p.is_file() and p.suffix != ".md"
                 for line in p.read_text().splitlines() if line.strip()})
assert len(CORPUS) > 50, "the fuzz corpus is the fixtures' real-format lines"


def parse(lines: list[str], path: str = "/logs/broker-1/state-change.log"):
    parser = FileParser(path)
    outs = []
    for n, raw in enumerate(lines, 1):
        outs.extend(parser.feed(n, raw))
    outs.extend(parser.close())
    return outs


def events_by_line(outs) -> dict[int, list[dict]]:
    got: dict[int, list[dict]] = {}
    for o in outs:
        if o.kind == "event":
            got.setdefault(o.line, []).append(o.data)
    return got


def check_accounting(lines: list[str], outs) -> None:
    assert sum(o.n_lines for o in outs) == sum(1 for l in lines if l.strip())
    for o in outs:
        if o.kind == "event":
            probe = {k: v for k, v in o.data.items() if k != "topic_id"}
            probe.setdefault("topic", o.data.get("topic_id"))
            assert invalid_reason({"cluster": "c", "seq": 0, **probe}) is None
        if o.kind == "quarantine":
            assert o.reason and o.raw is not None


def truncate(line: str, data) -> str:
    return line[:data.draw(st.integers(0, max(0, len(line) - 1)))]


def garbage(line: str, data) -> str:
    at = data.draw(st.integers(0, len(line)))
    junk = data.draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8))
    return line[:at] + junk + line[at:]


def mojibake(line: str, data) -> str:
    # UTF-8 bytes read as Latin-1 (a wrong encoding), or undecodable bytes replaced.
    return (line + " Ã©Ã¨").encode("utf-8").decode("latin-1") if data.draw(st.booleans()) else line.replace("a", "\ufffd", 1)


MUTATIONS = {"truncate": truncate, "garbage": garbage, "mojibake": mojibake}


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_lines_never_crash_and_are_parsed_or_quarantined(data):
    lines = data.draw(st.lists(st.sampled_from(CORPUS), min_size=1, max_size=12))
    baseline = events_by_line(parse(lines))
    mutated = list(lines)
    touched = set()
    for i in data.draw(st.sets(st.integers(0, len(lines) - 1), max_size=3)):
        kind = data.draw(st.sampled_from(sorted(MUTATIONS)))
        mutated[i] = MUTATIONS[kind](lines[i], data)
        touched.add(i + 1)
    outs = parse(mutated)
    check_accounting(mutated, outs)
    got = events_by_line(outs)
    # A line no mutation touched, and whose neighbours were not glued into it, parses as before.
    for n, events in got.items():
        if n not in touched and n - 1 not in touched:
            assert events == baseline.get(n), (n, mutated[n - 1])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.data())
def test_lines_wrapped_mid_token_are_rejoined(data):
    line = data.draw(st.sampled_from([l for l in CORPUS if l.startswith("[") and l.endswith(")")]))
    width = data.draw(st.integers(20, 160))
    pieces = [line[i:i + width] for i in range(0, len(line), width)]
    whole, wrapped = parse([line]), parse(pieces)
    check_accounting(pieces, wrapped)
    assert events_by_line(wrapped) == events_by_line(whole)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.data())
def test_interleaved_brokers_keep_each_stream_whole(data):
    """docker compose logs of two brokers: each stream's records are those of its own lines."""
    a = data.draw(st.lists(st.sampled_from(CORPUS), min_size=1, max_size=6))
    b = data.draw(st.lists(st.sampled_from(CORPUS), min_size=1, max_size=6))
    order = data.draw(st.permutations([("broker1", x) for x in a] + [("broker2", x) for x in b]))
    # Keep each stream's own order: a stable merge by the drawn permutation's stream picks.
    streams = {"broker1": iter(a), "broker2": iter(b)}
    merged = [f"{tag:<9}| {next(streams[tag])}" for tag, _ in order]
    outs = parse(merged, "/logs/docker-compose.log")
    check_accounting(merged, outs)
    for tag, lines in (("broker1", a), ("broker2", b)):
        alone = [o.data for o in parse(lines) if o.kind == "event"]
        mixed = [o.data for o in outs if o.kind == "event" and o.tag == tag]
        strip = lambda ds: [{k: v for k, v in d.items() if k not in ("source_line", "recording_broker")} for d in ds]  # noqa: E731
        assert strip(mixed) == strip(alone)
