"""The columnar fast path (ingest/fast.py) is an accelerator, not a second parser: the
split parser (ingest.splits) gives the same rows with it as without it, on real-format lines of
every era, on generated TRACE logs, and on those lines mutated (continuations glued to a
fast line, wrapped and tagged streams, blank lines, truncation, overlong ids, impossible
dates) and cut into batches and file pieces at random."""
from __future__ import annotations

from pathlib import Path

import random
import re
import tempfile

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.envelope import Clock
from ingest.fast import FAST_ROWS, FastParser, _column, compile_row
from ingest.lines import other_logger_head
from ingest.render import Renderer
from ingest.splits import LinesDigest, SplitParser
from state_machine.generator import SimConfig, simulate

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
REAL_LINES = sorted({line for base in (FIXTURES, ROOT / "data" / "samples" / "real") for p in base.rglob("*")
                     if p.is_file() and p.suffix not in (".md", ".json", ".gz") for line in p.read_text().splitlines()
                     if line.strip()})


def _generated() -> list[str]:
    events, _ = simulate(SimConfig(cluster="g", era="2.4", brokers=5, topics=3, partitions=3, steps=300, seed=5,
                                   faults={"unclean_election": 1, "illegal_transition": 1}))
    r = Renderer()
    for e in events:
        r.feed(e)
    return r.files()["broker-1/state-change.log"].splitlines()


GENERATED = _generated()
FILE = "file:/logs/broker-1/state-change.log"


def rows(pieces: list[list[str]], fast: bool, batch: int, zone: str = "UTC", cluster: str | None = "c",
         fmt: str = "auto") -> list[dict]:
    """Every parse row of the pieces (one file, consecutive splits), in a stable order."""
    raw, file, block = [], [], []
    for b, lines in enumerate(pieces):
        raw += lines
        file += [FILE] * len(lines)
        block += [b * 1000] * len(lines)
    # With the fast paths, the heads of loggers the audit does not read are marked as the JVM marks
    # them (jobs.ingest_spark.other_logger_heads), to be taken a run at once.
    other = [other_logger_head(line) for line in raw] if fast else None
    batches = [pa.RecordBatch.from_pydict({"raw": raw[i:i + batch], "file": file[i:i + batch],
                                           "block": pa.array(block[i:i + batch], pa.int64()),
                                           **({"other": other[i:i + batch]} if fast else {})})
               for i in range(0, len(raw), batch)]
    out = [r for b in SplitParser({}, cluster, zone, fmt, use_fast=fast).rows(iter(batches)) for r in b.to_pylist()]
    return sorted(out, key=lambda r: (r["block"], r["kind"] == "piece", r["local_line"], r["sub"] or 0))


def same_either_way(pieces: list[list[str]], batch: int = 7, zone: str = "UTC") -> list[dict]:
    slow = rows(pieces, False, batch, zone)
    assert rows(pieces, True, batch, zone) == slow
    return slow


def test_every_fast_row_reads_lines_of_its_catalogue_row():
    taken = FastParser(Clock("UTC")).parse(pa.array(GENERATED + REAL_LINES))
    assert set(taken.column("pattern").to_pylist()) == {r.pattern for r in FAST_ROWS}
    # and most of a generated TRACE log takes it: the point of the path
    generated = FastParser(Clock("UTC")).parse(pa.array(GENERATED))
    assert len(generated) > 0.9 * len(GENERATED)


def test_generated_trace_log_gives_the_same_rows():
    half = len(GENERATED) // 2
    out = same_either_way([GENERATED[:half], GENERATED[half:]], batch=64)
    assert sum(r["kind"] == "event" for r in out) == len(GENERATED) > 500


def test_real_format_lines_of_every_era_give_the_same_rows():
    same_either_way([REAL_LINES], batch=50)


def test_a_cluster_s_server_logs_and_stack_traces_give_the_same_rows():
    """bench/cluster_logs.py's broker logs: nearly all of state-change.log read by the fast rows,
    most of server.log other loggers' lines, each taken a run at once, and the stack traces of
    failed elections, glued a run at once."""
    from bench.cluster_logs import CorpusConfig, election_failure_trace, generate

    with tempfile.TemporaryDirectory() as folder:
        generate(CorpusConfig(out=folder, version="2.4.1", mb=0.5, brokers=2))
        logs = {p.relative_to(folder).as_posix(): p.read_text().splitlines() for p in sorted(Path(folder).rglob("*.log"))}
    server = logs["broker-2/server.log"]
    assert sum(map(other_logger_head, server)) > 0.8 * len(server)
    # Nearly every line of a TRACE state-change.log is read by the fast rows: the controller's
    # decisions and requests, and each broker's copies of them and its steps.
    state_change = logs["broker-1/state-change.log"]
    taken = FastParser(Clock("UTC")).parse(pa.array(state_change))
    assert len(taken) > 0.95 * len(state_change)
    assert set(taken.column("kind").to_pylist()) == {"event", "understood"}
    # A small history has no failed election: every 50th decision's line is followed by one's trace.
    failed = ("[2023-11-14 22:25:21,551] ERROR [Controller id=1 epoch=1] Controller 1 epoch 1 failed to change state "
              "for partition t1-6 from OfflinePartition to OnlinePartition (state.change.logger)")
    trace = [m for i, line in enumerate(logs["broker-1/state-change.log"]) for m in
             ([line, failed, *election_failure_trace("2.4.1", "t1-6", "OfflinePartition", False).splitlines()]
              if i % 50 == 49 else [line])]
    assert sum(line.startswith("\tat ") for line in trace) > 1000
    for lines in (server, trace):
        third = len(lines) // 3
        same_either_way([lines[:third], lines[third:]], batch=200)


def test_a_zone_other_than_utc_gives_the_same_clock():
    same_either_way([GENERATED[:300]], batch=40, zone="America/New_York")


CONTINUATIONS = ("java.lang.IllegalStateException: boom", "\tat kafka.controller.X.y(X.scala:1)",
                 "Caused by: java.io.IOException", "    indented dump line", "... 3 more")


def _mutate(line: str, data) -> list[str]:
    how = data.draw(st.sampled_from(("same", "same", "same", "continued", "blank", "tagged", "truncated",
                                     "big id", "big epoch", "bad date", "bad minute", "crlf", "partial head", "garbage",
                                     "non-ascii")))
    if how == "continued":
        return [line, data.draw(st.sampled_from(CONTINUATIONS))]
    if how == "blank":
        return ["", line]
    if how == "tagged":
        return [f"kafka-{data.draw(st.integers(1, 3))}  | {line}"]
    if how == "truncated":
        return [line[:data.draw(st.integers(0, max(0, len(line) - 1)))]]
    if how == "big id":
        return [line.replace("replica ", "replica 1234567890", 1).replace("id=", "id=98765432101", 1)]
    if how == "big epoch":
        return [line.replace("epoch=", "epoch=98765432101", 1)]
    if how == "bad date":
        return ["[2023-02-30" + line[11:] if line.startswith("[20") else line]
    if how == "bad minute":
        return [line[:15] + "75" + line[17:] if line.startswith("[20") else line]
    if how == "crlf":
        return [line + "\r"]
    if how == "partial head":
        return [line, "[2023-11-14 22:13"]
    if how == "garbage":
        return [line, "[1] not a record"]
    if how == "non-ascii":   # a letter of two bytes, and one of three, where the fast rows read bytes
        at = data.draw(st.integers(0, len(line)))
        return [line.replace(" t", " tö", 1)[:at] + data.draw(st.sampled_from(("é", "€", "\ufffd"))) + line[at:]]
    return [line]


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_lines_cut_anywhere_give_the_same_rows(data):
    source = data.draw(st.sampled_from((GENERATED, REAL_LINES, GENERATED + REAL_LINES)))
    start = data.draw(st.integers(0, len(source) - 1))
    lines = [m for line in source[start:start + data.draw(st.integers(1, 40))] for m in _mutate(line, data)]
    cut = data.draw(st.integers(0, len(lines)))
    same_either_way([lines[:cut], lines[cut:]], batch=data.draw(st.integers(1, 16)))


def _captures(lines: pa.Array, regex: str) -> dict[str, list]:
    groups = pc.extract_regex(lines, regex)
    return {groups.type.field(i).name: groups.field(i).to_pylist() for i in range(groups.type.num_fields)}


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(r"[A-Za-z0-9._-]{1,12}", fullmatch=True), st.integers(0, 2**32), st.data())
def test_the_matcher_reads_what_re2_captures(topic, seed, data):
    """On lines of every row, with topic names holding '-', '.' and digits, ids of up to 9
    digits and more, other levels, a '.' before the millis, lists of any length, and mutated
    (truncated, non-ASCII, a character dropped or doubled): the matcher (ingest/_line_scan.c)
    takes a line for a row exactly when the row's regex matches it in RE2, and reads its
    fields as RE2's captures, text for text."""
    rng = random.Random(seed)

    def number() -> str:
        return str(rng.choice((0, 7, 42, 123456789, 1234567890, rng.randrange(1_000_000_000))))

    def ids() -> str:
        return rng.choice((", ", ",", ",  ")).join(number() for _ in range(rng.randrange(5)))

    def vary(line: str) -> str:
        line = re.sub(r"partition \S+-(\d+) ", lambda m: f"partition {topic}-{number()} ", line)
        line = re.sub(r"topicName='[^']*'", f"topicName='{topic}'", line)
        line = re.sub(r"isr=List\([^)]*\)", lambda m: f"isr=List({ids()})", line)
        line = re.sub(r"isr=\[[^\]]*\]", lambda m: f"isr=[{ids()}]", line)
        line = re.sub(r"replicas ([\d,]+) ", lambda m: f"replicas {ids().replace(' ', '')} ", line)
        line = re.sub(r"(leader|leaderEpoch|zkVersion)=-?\d+", lambda m: f"{m[1]}={rng.choice(['-1', '-2', '0', '--1', number()])}",
                      line)
        line = re.sub(r"(id|epoch)=\d+", lambda m: f"{m[1]}={number()}", line, count=2)
        if rng.random() < 0.3:
            line = line.replace("] TRACE ", "] DEBUG ", 1).replace(",", ".", 1)
        if rng.random() < 0.2:
            at = rng.randrange(len(line) + 1)
            line = rng.choice((line[:at], line[:at] + line[at + 1:], line[:at] + line[at:at + 1] * 2 + line[at + 1:],
                               line[:at] + "é" + line[at:]))
        return line

    lines = pa.array([vary(line) for line in GENERATED[:400] + REAL_LINES])
    parser = FastParser(Clock("UTC"))
    scanned = parser.scanner.scan(lines.cast(pa.binary()))
    rows_of = dict(zip(scanned.idx.tolist(), scanned.row.tolist()))
    for r, (row, regex, _) in enumerate(parser.rows):
        matched = pc.match_substring_regex(lines.cast(pa.binary()), regex)
        at = pc.indices_nonzero(matched).to_pylist()
        assert at == [i for i, found in rows_of.items() if found == r], row.pattern
        assert len(at) > 0, row.pattern
        mine = [j for j, i in enumerate(scanned.idx.tolist()) if rows_of[i] == r]
        captured = _captures(lines.take(pa.array(at)), regex)
        captured.pop("ts")
        got = {name: [values[j] for j in mine] for name, values in ((n, a.to_pylist()) for n, a in scanned.fields.items())
               if name in captured}
        assert got == {name: _column(name, pa.array(text, pa.string())).to_pylist() for name, text in captured.items()}, \
            row.pattern
        # and the fields no capture names are null in the row's lines
        assert all(scanned.fields[name].take(pa.array(mine, pa.int64())).null_count == len(mine)
                   for name in scanned.fields if name not in captured), row.pattern
    # the time, as written
    stamps = pc.utf8_slice_codeunits(lines.take(pa.array(scanned.idx)).cast(pa.string()), 1, 24).to_pylist()
    assert [f"{h // 1_000_000:04d}-{h // 10_000 % 100:02d}-{h // 100 % 100:02d} {h % 100:02d}:{m // 60000:02d}:"
            f"{m // 1000 % 60:02d}{s[19]}{m % 1000:03d}" for h, m, s in zip(scanned.hour.tolist(), scanned.ms.tolist(), stamps)] \
        == stamps


def test_every_line_is_told_whether_it_starts_a_record():
    lines = ["[2024-05-01 13:00:00,000] x", "[2024-05-01", "[2024-05-0", "\tat x", "", "[2024-5-01 13", "[20240-05-01"]
    _, starts = FastParser(Clock("UTC")).scan(pa.array(lines + [None]))
    assert starts.tolist() == [True, True, False, False, False, False, False, False]


def test_the_matcher_refuses_a_regex_it_cannot_decide_as_re2_does():
    import pytest

    stamp = r"^\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{3})\] "
    assert [op.code for op in compile_row(stamp + r"x (?P<replica>\d{1,9}) (?:a|b)$")] == [1, 2, 1, 3, 1, 8, 9]
    # A TopicPartition named (its topic and partition read) or not (a logIdent's, matched only).
    tp = [op for op in compile_row(stamp + r"[\w.-]+-\d{1,9} (?P<topic>[\w.-]+)-(?P<partition>\d{1,9})$") if op.code == 7]
    assert [(op.a, op.name) for op in tp] == [(None, None), ("partition", "topic")]
    for regex, why in ((stamp + r"(?P<replica>\d{1,9})1$", "could continue it"),     # the digits could run on
                       (stamp + r"(?P<topic>[\w.-]+)-x$", "could continue it"),
                       (stamp + r"(?P<isr>(?:\d{1,9}(?:, \d{1,9})*)?), x$", "could continue it"),
                       (stamp + r"(?P<to_state>Online|OnlineReplica) x$", "begins another"),
                       (stamp + r"(?P<topic>\w+) x$", "cannot run"),
                       (stamp + r"x.*$", "cannot run"),
                       (r"\[(?P<ts>\d{4}) x$", "anchored"),
                       (r"^x (?P<replica>\d{1,9})$", "begin with its time")):
        with pytest.raises(ValueError, match=why):
            compile_row(regex)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.text(max_size=12), max_size=30), st.data())
def test_a_pieces_digest_is_of_its_lines_however_the_batches_cut_them(lines, data):
    """LinesDigest reads the Arrow buffers of slices at any offset: the lines cut into batches
    anywhere give one digest, and moving a character across a line end changes it."""

    def digest(cuts: list[int]) -> str:
        whole, found, at = pa.array(["pad", *lines, "pad"]), LinesDigest(), 1
        for cut in [*sorted(cuts), len(lines)]:
            found.update(whole.slice(at, cut + 1 - at))
            at = cut + 1
        return found.hexdigest()

    once = digest([])
    assert digest(data.draw(st.lists(st.integers(0, len(lines)), max_size=5))) == once
    joined = "".join(lines)
    if len(lines) >= 2 and len(lines[0]) > 0:
        moved = [lines[0][:-1], lines[0][-1] + lines[1], *lines[2:]]
        found = LinesDigest()
        found.update(pa.array(moved))
        assert found.hexdigest() != once and "".join(moved) == joined


def test_the_rows_alternation_tells_each_line_its_row():
    """One match of every row's regex at once; then the row of each matched line is read from
    the fixed tokens that tell the rows apart. On every line, that row is the one whose own
    regex matches it."""
    parser = FastParser(Clock("UTC"))
    lines = pa.array(GENERATED + REAL_LINES)
    taken = parser.parse(lines)
    own = {}
    for row, regex, pattern in parser.rows:
        for i in pc.indices_nonzero(pc.match_substring_regex(lines, regex)).to_pylist():
            assert own.setdefault(i, pattern.name) == pattern.name   # the rows' languages are disjoint
    assert dict(zip(taken.column("idx").to_pylist(), taken.column("pattern").to_pylist())) == own
