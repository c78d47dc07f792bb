"""The golden corpus: the core's outputs on a fixed set of inputs, kept in tests/golden/, so that a
change to the engine can show it replays everything exactly as before (docs/golden.md).

    .venv/bin/python scripts/golden.py                      # compare every case, exit 1 naming each difference
    .venv/bin/python scripts/golden.py --subset ci          # only the cases CI compares
    .venv/bin/python scripts/golden.py --only 'generated/2.4/info/17'   # one case (or a glob), shown in full
    .venv/bin/python scripts/golden.py --update             # write tests/golden/ again from the current core

The cases, each replayed as the project's own tools replay it:

    sample/NAME      each bundled sample (data/samples/*.jsonl): `controller-replay replay`'s reading
                     and replay (jobs.local_runner), each cluster in its manifest's release
    capture/NAME     each real capture (data/samples/real/NAME/): the local ingest of its logs
                     (ingest.local), replayed by replay_cluster in its manifest's release, as
                     tests/ingest/test_real_replays.py does
    generated/ERA/LEVEL/SEED
                     a history state_machine.generator simulates from a SimConfig drawn from SEED
                     (`sim_config`), replayed by replay_cluster as tests/core/test_properties.py
                     does: SEEDS per era at TRACE, and at INFO in ZooKeeper mode (a KRaft history
                     is metadata records, the same at either level); half inject faults

What a case keeps: the partition_timeline, replica_timeline and violations rows of each
partition in the order the replay gives them (the partitions sorted), every field of the core's
row types, and how many events were replayed with a digest of them, which tells a difference in
the replay from one in its input (the generator's or the ingest's events). A capture's paths are
kept relative to the repository. Stored as one xz-compressed JSON Lines file per era and per kind of
input: a header line (the field names of each table), then one line per case."""
from __future__ import annotations

import argparse
import fnmatch
import functools
import hashlib
import json
import lzma
import random
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterable, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:   # run as a script: the repository's packages
    sys.path.insert(0, str(ROOT))

from ingest.local import ingest_files, log_files  # noqa: E402
from ingest.detect import cluster_eras  # noqa: E402
from jobs.local_runner import input_files, read_events, replay_local  # noqa: E402
from state_machine.checks import Violation  # noqa: E402
from state_machine.cluster import replay_cluster  # noqa: E402
from state_machine.eras import ERAS, resolve_era  # noqa: E402
from state_machine.events import Event, event_to_mapping  # noqa: E402
from state_machine.generator import FAULTS, SimConfig, simulate  # noqa: E402
from state_machine.partition import ReplicaRow, TimelineRow  # noqa: E402
from state_machine.replay import ReplayResult  # noqa: E402

CORPUS = ROOT / "tests" / "golden"
SAMPLES = ROOT / "data" / "samples"
REAL = SAMPLES / "real"
COMMAND = ".venv/bin/python scripts/golden.py"

SEEDS = range(1000)   # generated histories per era and level
CI_EVERY = 10         # CI compares the seeds divisible by it (and every sample and capture)
TABLES = {"partition_timeline": TimelineRow._fields, "replica_timeline": ReplicaRow._fields,
          "violations": Violation._fields}
KEY = ("topic", "partition")   # each stored row: its partition, then the table's fields
MISSING = "<no such field>"


class Case(NamedTuple):
    id: str                       # sample/NAME, capture/NAME or generated/ERA/LEVEL/SEED
    corpus: str                   # the file under tests/golden/ (without .jsonl.xz)
    replay: Callable[[], "Replayed"]


class Replayed(NamedTuple):
    tables: dict[str, list[list]]   # table -> rows: topic, partition, then the table's fields
    events: int
    events_digest: str
    config: dict | None = None      # a generated history's SimConfig


# ---------------------------------------------------------------- the cases


def sim_config(era: str, level: str, seed: int) -> SimConfig:
    """The history of `seed`: a cluster shape and length as tests/histories.py's `shapes` draws
    them, on half the seeds (2 and 3 of every 4: CI's every tenth seed holds both halves) a fault
    mix as test_properties', and in ZooKeeper mode on every third seed leaders' ISR writes that do
    not commit; drawn by random.Random(seed), not hypothesis."""
    rng = random.Random(seed)
    shape = dict(brokers=rng.randint(3, 6), topics=rng.randint(1, 3), partitions=rng.randint(1, 3),
                 replication_factor=rng.randint(2, 3), steps=rng.randint(5, 60))
    faults = {}
    if seed % 4 >= 2:
        faults = {f: rng.randint(1, 3) for f in sorted(FAULTS) if rng.random() < 0.5} or {rng.choice(sorted(FAULTS)): 1}
    failed_isr_writes = 0.2 if seed % 3 == 0 and ERAS[era].mode == "zk" else 0.0
    return SimConfig(era=era, seed=seed, log_level=level, faults=faults, fault_rate=0.3,
                     failed_isr_writes=failed_isr_writes, **shape)


def levels(era: str) -> tuple[str, ...]:
    return ("trace", "info") if ERAS[era].mode == "zk" else ("trace",)


def generated_cases(seeds: Iterable[int] = SEEDS) -> list[Case]:
    seeds = list(seeds)
    return [Case(f"generated/{era}/{level}/{seed}", f"generated-{era}", _generated(era, level, seed))
            for era in ERAS for level in levels(era) for seed in seeds]


def _generated(era: str, level: str, seed: int) -> Callable[[], Replayed]:
    def replay() -> Replayed:
        cfg = sim_config(era, level, seed)
        events, _ = simulate(cfg)
        return Replayed(result_tables(replay_cluster(cfg.cluster, events, ERAS[era])), len(events),
                        events_digest(events), asdict(cfg))
    return replay


def sample_cases() -> list[Case]:
    """Each cluster of the bundled samples, as `controller-replay replay data/samples` reads and
    replays them all."""
    return [Case(f"sample/{cluster}", "samples", lambda cluster=cluster: _samples_replayed()[cluster])
            for cluster in _sample_clusters()]


def _sample_clusters() -> list[str]:
    clusters = json.loads((SAMPLES / "manifest.json").read_text())["clusters"]
    return sorted(clusters)


@functools.cache
def _samples_replayed() -> dict[str, Replayed]:
    default, per_cluster = cluster_eras([str(SAMPLES)], [])
    run = read_events(input_files([str(SAMPLES)]))
    out = replay_local(run, lambda cluster: resolve_era(per_cluster.get(cluster, default)))
    replayed = {}
    for cluster, events in run.events.items():
        tables = {table: [[row["topic"], row["partition"], *(row.get(f, MISSING) for f in fields)]
                          for row in out[table] if row["cluster"] == cluster] for table, fields in TABLES.items()}
        replayed[cluster] = Replayed({table: _sorted(rows) for table, rows in _plain(tables).items()},
                                     len(events), events_digest(events))
    return replayed


def capture_cases() -> list[Case]:
    """Each real capture, ingested from its logs and replayed in its manifest's release."""
    cases = []
    for folder in sorted(p for p in REAL.iterdir() if (p / "manifest.json").exists()):
        def replay(folder=folder) -> Replayed:
            default, per_cluster = cluster_eras([str(folder)], [])
            ingested = ingest_files(log_files(folder), folder.name)
            results = replay_cluster(folder.name, ingested.events, resolve_era(per_cluster.get(folder.name, default)))
            return Replayed({table: _relative(rows) for table, rows in result_tables(results).items()},
                            len(ingested.events), events_digest(ingested.events))
        cases.append(Case(f"capture/{folder.name}", "captures", replay))
    return cases


def cases(subset: str = "all") -> list[Case]:
    """Every case (`all`), or CI's: every sample and capture, and every CI_EVERY-th seed."""
    seeds = SEEDS if subset == "all" else [s for s in SEEDS if s % CI_EVERY == 0]
    return sample_cases() + capture_cases() + generated_cases(seeds)


# ---------------------------------------------------------------- rows


def result_tables(results: dict[tuple[str, int], ReplayResult]) -> dict[str, list[list]]:
    tables = {table: [] for table in TABLES}
    for key in sorted(results):
        result = results[key]
        for table, rows in zip(TABLES, (result.timeline, result.replica_timeline, result.violations)):
            tables[table] += [[*key, *(getattr(row, f, MISSING) for f in TABLES[table])] for row in rows]
    return _plain(tables)


def _plain(value):
    """As JSON reads it back: tuples as lists, a str enum as its value."""
    return json.loads(json.dumps(value))


def _sorted(rows: list[list]) -> list[list]:
    """Rows by partition, each partition's in the replay's order."""
    return sorted(rows, key=lambda row: (row[0], row[1]))


def _relative(rows: list[list]) -> list[list]:
    """Paths under the repository (a capture's evidence) without the repository's folder."""
    prefix = json.dumps(str(ROOT) + "/")[1:-1]
    return json.loads(json.dumps(rows).replace(prefix, ""))


def events_digest(events: list[Event]) -> str:
    """Of the events as `_relative` keeps rows: a clone in another folder has the same digest."""
    text = json.dumps(_relative([event_to_mapping(e) for e in events]), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- the corpus files


def corpus_path(name: str, root: Path = CORPUS) -> Path:
    return root / f"{name}.jsonl.xz"


def write_corpus(name: str, replayed: dict[str, Replayed], root: Path = CORPUS) -> None:
    lines = [json.dumps({"fields": {table: [*KEY, *fields] for table, fields in TABLES.items()}})]
    for case_id, r in replayed.items():
        lines.append(json.dumps({"id": case_id, **({"config": r.config} if r.config is not None else {}),
                                 "events": r.events, "events_digest": r.events_digest, "tables": r.tables},
                                separators=(",", ":")))
    root.mkdir(parents=True, exist_ok=True)
    # xz holds the corpus in about 60% of gzip's size; the same corpus writes the same bytes
    corpus_path(name, root).write_bytes(lzma.compress(("\n".join(lines) + "\n").encode(), preset=9))


def read_corpus(name: str, wanted: set[str] | None = None, root: Path = CORPUS) -> tuple[dict, dict[str, dict]]:
    """(the header, case id -> its stored line), only the `wanted` cases' lines parsed."""
    header, stored = None, {}
    with lzma.open(corpus_path(name, root), "rt", encoding="utf-8") as fh:
        for line in fh:
            if header is None:
                header = json.loads(line)
                continue
            case_id = line[len('{"id":"'):line.index('"', len('{"id":"'))]
            if wanted is None or case_id in wanted:
                stored[case_id] = json.loads(line)
    return header, stored


# ---------------------------------------------------------------- comparison


class Difference(NamedTuple):
    case: str
    table: str        # a table, or "events" (the input differs), or "case" (a case added or gone)
    text: str


def compare(case_id: str, header: dict, stored: dict | None, got: Replayed) -> list[Difference]:
    """What differs between the stored case and its replay now: per table, each partition whose rows
    differ, from its first differing row on."""
    if stored is None:
        return [Difference(case_id, "case", "not in the corpus (a new case: --update adds it)")]
    out = []
    if (stored["events"], stored["events_digest"]) != (got.events, got.events_digest):
        out.append(Difference(case_id, "events", f"the replay's input differs ({stored['events']} events, digest "
                                                 f"{stored['events_digest']}; now {got.events}, {got.events_digest}): "
                                                 "the generator's or the ingest's output changed"))
    if stored.get("config") is not None and stored["config"] != got.config:
        out.append(Difference(case_id, "events", f"sim_config draws another SimConfig: stored {stored['config']}, "
                                                 f"now {got.config}"))
    for table, names in header["fields"].items():
        expected, now = stored["tables"][table], got.tables.get(table)
        if now is None:
            out.append(Difference(case_id, table, "no such table any more"))
            continue
        now = _as_stored(now, [*KEY, *TABLES[table]], names)
        if expected != now:
            out.append(Difference(case_id, table, _row_difference(names, expected, now)))
    return out


def _as_stored(rows: list[list], fields: list[str], stored: list[str]) -> list[list]:
    """The rows (of `fields`) as the corpus stored them (of `stored`): a field added since is not
    compared, a field gone is MISSING."""
    if fields == stored:
        return rows
    at = [fields.index(n) if n in fields else None for n in stored]
    return [[MISSING if i is None else row[i] for i in at] for row in rows]


def _row_difference(names: list[str], expected: list[list], got: list[list]) -> str:
    k = len(KEY)
    by_partition: dict[tuple, dict[str, list]] = {}
    for label, rows in (("expected", expected), ("got", got)):
        for row in rows:
            by_partition.setdefault(tuple(row[:k]), {"expected": [], "got": []})[label].append(row)
    lines = []
    for partition, rows in sorted(by_partition.items()):
        a, b = rows["expected"], rows["got"]
        if a == b:
            continue
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        lines.append(f"  partition {partition[0]}-{partition[1]}: {len(a)} rows expected, {len(b)} got; "
                     f"the first difference at row {i}")
        for label, side in (("expected", a), ("got", b)):
            for row in side[i:i + 3]:
                lines.append(f"    {label:8} " + ", ".join(f"{n}={v!r}" for n, v in zip(names[k:], row[k:])))
            if not side[i:]:
                lines.append(f"    {label:8} (no row)")
        if i < min(len(a), len(b)):
            lines.append("    fields that differ: " + ", ".join(n for n, x, y in zip(names[k:], a[i][k:], b[i][k:]) if x != y))
    return "\n".join(lines)


def reproduce(case_id: str, stored: dict | None) -> str:
    how = f"{COMMAND} --only '{case_id}'"
    if stored is not None and stored.get("config") is not None:
        cfg = ", ".join(f"{k}={v!r}" for k, v in stored["config"].items())
        how += f"; the history: state_machine.generator.simulate(SimConfig({cfg}))"
    return how


def check(selected: list[Case], root: Path = CORPUS) -> Iterable[tuple[Difference, dict | None]]:
    """Each difference of the selected cases from the corpus, with the case's stored line."""
    by_corpus: dict[str, list[Case]] = {}
    for case in selected:
        by_corpus.setdefault(case.corpus, []).append(case)
    for name, group in by_corpus.items():
        if not corpus_path(name, root).exists():
            yield Difference(name, "case", f"{corpus_path(name, root)} does not exist (--update writes it)"), None
            continue
        header, stored = read_corpus(name, {c.id for c in group}, root)
        for case in group:
            for d in compare(case.id, header, stored.get(case.id), case.replay()):
                yield d, stored.get(case.id)


def update(root: Path = CORPUS) -> dict[str, int]:
    """Write every corpus file from the current core; returns the cases per file."""
    by_corpus: dict[str, dict[str, Replayed]] = {}
    for case in cases("all"):
        by_corpus.setdefault(case.corpus, {})[case.id] = case.replay()
    expected = {corpus_path(name, root).name for name in by_corpus}
    for stale in root.glob("*.jsonl.*"):
        if stale.name not in expected:
            stale.unlink()
    for name, replayed in by_corpus.items():
        write_corpus(name, replayed, root)
    return {name: len(replayed) for name, replayed in by_corpus.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="write tests/golden/ again from the current core")
    ap.add_argument("--check", action="store_true", help="compare with tests/golden/ (the default)")
    ap.add_argument("--subset", choices=("all", "ci"), default="all", help="every case, or those CI compares")
    ap.add_argument("--only", metavar="GLOB", help="the cases whose id matches GLOB")
    args = ap.parse_args(argv)
    if args.update:
        if args.only or args.subset != "all":
            ap.error("--update writes the whole corpus: no --only or --subset")
        for name, n in sorted(update().items()):
            print(f"{corpus_path(name).relative_to(ROOT)}: {n} cases, {corpus_path(name).stat().st_size:,} bytes")
        return 0
    selected = [c for c in cases(args.subset) if args.only is None or fnmatch.fnmatchcase(c.id, args.only)]
    if not selected:
        print(f"golden: no case matches {args.only}", file=sys.stderr)
        return 2
    failed = set()
    for d, stored in check(selected):
        if d.case not in failed:
            print(f"{d.case}: {reproduce(d.case, stored)}")
            failed.add(d.case)
        print(f"  {d.table}:\n{d.text}" if "\n" in d.text or d.text.startswith("  ") else f"  {d.table}: {d.text}")
    print(f"golden: {len(selected)} cases compared, {len(failed)} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
