"""The local runner: canonical-event JSON Lines in, the core's replay, JSON Lines out.
No Spark; it shares the core and the validation with the Spark job, so both agree."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ingest.local import log_files
from schemas.validate import event_reason, load_json
from state_machine.cluster import replay_cluster
from state_machine.eras import Era
from state_machine.events import Event, event_to_mapping
from state_machine.generator import Injection


@dataclass
class Quarantined:
    source_file: str
    source_line: int
    reason: str
    raw: str


@dataclass
class LocalRun:
    events: dict[str, list[Event]] = field(default_factory=lambda: defaultdict(list))
    quarantine: list[Quarantined] = field(default_factory=list)
    lines_read: int = 0


def read_events(paths: Iterable[Path]) -> LocalRun:
    """Read canonical events; every line ends up either an event or quarantined."""
    run = LocalRun()
    for path in paths:
        with open(path, "r", encoding="utf-8-sig", errors="replace") as fh:   # a BOM, as Spark's reader, dropped
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                run.lines_read += 1
                try:
                    record = load_json(line)
                except json.JSONDecodeError as exc:
                    run.quarantine.append(Quarantined(str(path), n, f"malformed JSON: {exc.msg} at column {exc.colno}", line.rstrip("\n")))
                    continue
                reason = event_reason(record) if isinstance(record, dict) else "not a JSON object"
                if reason:
                    run.quarantine.append(Quarantined(str(path), n, reason, line.rstrip("\n")))
                    continue
                run.events[record["cluster"]].append(Event(**record))
    return run


def input_files(inputs: Iterable[str]) -> list[Path]:
    """The canonical-event files of the inputs: each file given, and the .jsonl files among a
    folder's inputs (ingest.local.log_files: as the audit lists them)."""
    files: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(Path(f) for f in log_files(p) if f.endswith(".jsonl"))
            if not found:   # a wrong path would otherwise replay to a clean, empty run
                raise FileNotFoundError(f"input {item} holds no .jsonl file (*.truth.jsonl skipped)")
            files += found
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"input {item} does not exist")
    return files


def first_events(run: LocalRun) -> dict[str, list[Event]]:
    """cluster -> the first event of each of its event types, for
    state_machine.replay.era_mismatches (jobs.audit.first_events in Spark)."""
    out = {}
    for cluster, events in run.events.items():
        firsts: dict[str, Event] = {}
        for e in events:
            first = firsts.get(e.event_type)
            if first is None or e.seq < first.seq:
                firsts[e.event_type] = e
        out[cluster] = list(firsts.values())
    return out


def replay_local(run: LocalRun, era_of) -> dict:
    """Replay every cluster (`era_of(cluster)` gives its Era); returns the tables as lists
    of dicts and the counts."""
    timeline, replicas, violations = [], [], []
    for cluster, events in run.events.items():
        era = era_of(cluster)
        events.sort(key=lambda e: e.seq)
        for (topic, partition), result in replay_cluster(cluster, events, era).items():
            key = {"cluster": cluster, "topic": topic, "partition": partition}
            timeline += [{**key, **row._asdict()} for row in result.timeline]
            replicas += [{**key, **row._asdict()} for row in result.replica_timeline]
            violations += [{**key, **v._asdict()} for v in result.violations]
    replayed = sum(len(v) for v in run.events.values())
    return {
        "partition_timeline": timeline,
        "replica_timeline": replicas,
        "violations": violations,
        "quarantine": [q.__dict__ for q in run.quarantine],
        "counts": {"read": run.lines_read, "replayed": replayed, "quarantined": len(run.quarantine),
                   "partitions": len({(r["cluster"], r["topic"], r["partition"]) for r in timeline}),
                   "violations_by_rule": dict(Counter(v["rule"] for v in violations))},
    }


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, separators=(",", ":")) + "\n")


def event_lines(events: Iterable[Event]) -> Iterator[dict]:
    for e in events:
        yield event_to_mapping(e)


def truth_lines(truth: Iterable[Injection]) -> Iterator[dict]:
    for t in truth:
        yield t._asdict()
