"""The core replays the golden corpus (tests/golden/, scripts/golden.py, docs/golden.md) exactly as it
was written: every bundled sample, every real capture and the generated histories of every era,
each table's rows field for field.

CI compares every sample and capture and every tenth seed of the generated histories; `make
test-all` (GOLDEN_HISTORIES=all) compares every seed. A difference is a bug fixed on purpose only
when it is named in ACCEPTED with its reason; otherwise the engine has changed what it replays."""
from __future__ import annotations

import fnmatch
import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("golden", ROOT / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

# (case id glob, table) -> why the case's rows in that table differ from the corpus on purpose: the
# bug the difference fixes. Tables: partition_timeline, replica_timeline, violations, or events (the
# replay's input). An entry whose cases all match the corpus again is refused: drop it.
ACCEPTED: dict[tuple[str, str], str] = {}

SUBSET = os.environ.get("GOLDEN_HISTORIES", "ci")
CASES = golden.cases(SUBSET)
SHOWN = 5   # the differing cases a failure shows in full


def accepted(case_id: str, table: str) -> tuple[str, str] | None:
    return next((key for key in ACCEPTED if key[1] == table and fnmatch.fnmatchcase(case_id, key[0])), None)


@pytest.mark.parametrize("corpus", sorted({case.corpus for case in CASES}))
def test_the_core_replays_the_golden_corpus(corpus):
    selected = [case for case in CASES if case.corpus == corpus]
    differing, matched = [], {}
    for d, stored in golden.check(selected):
        key = accepted(d.case, d.table)
        if key is not None:
            matched.setdefault(key, set()).add(d.case)
        else:
            differing.append((d, stored))
    stale = [key for key in ACCEPTED if not matched.get(key)
             and any(fnmatch.fnmatchcase(case.id, key[0]) for case in selected)]
    assert not stale, f"accepted differences that no longer differ in {corpus}: {stale}; drop them from ACCEPTED"
    if differing:
        cases = list(dict.fromkeys(d.case for d, _ in differing))
        report = [f"{len(cases)} of {len(selected)} cases of {corpus} differ from tests/golden/{corpus}.jsonl.xz "
                  f"({golden.COMMAND} compares them all):"]
        shown = set(cases[:SHOWN])
        for d, stored in differing:
            if d.case in shown:
                report.append(f"{d.case} [{d.table}] (reproduce: {golden.reproduce(d.case, stored)})")
                report.append(d.text)
        if len(cases) > SHOWN:
            report.append(f"... and {len(cases) - SHOWN} more: " + ", ".join(cases[SHOWN:SHOWN + 20]))
        pytest.fail("\n".join(report), pytrace=False)


def test_ci_compares_every_sample_and_capture_and_a_tenth_of_the_seeds():
    ci, every = golden.cases("ci"), golden.cases("all")
    assert {c.id for c in ci} <= {c.id for c in every}
    assert {c.id for c in ci if not c.id.startswith("generated/")} == {c.id for c in every if not c.id.startswith("generated/")}
    assert len(every) - len(ci) == sum(len(golden.levels(era)) for era in golden.ERAS) * (
        len(golden.SEEDS) - len(golden.SEEDS) // golden.CI_EVERY)
    seeds = {int(c.id.rsplit("/", 1)[1]) for c in ci if c.id.startswith("generated/")}
    drawn = [golden.sim_config("2.4", "trace", seed) for seed in seeds]
    assert any(cfg.faults for cfg in drawn) and any(not cfg.faults for cfg in drawn)
    assert any(cfg.failed_isr_writes for cfg in drawn)


def test_a_changed_row_is_named_with_its_case_table_and_rows(tmp_path):
    """The comparison can fail: a corpus with one stored row changed reports that case, table and
    partition, the row expected and the row replayed, and how to replay the history again."""
    case = golden.generated_cases([3])[0]
    replayed = case.replay()
    golden.write_corpus(case.corpus, {case.id: replayed}, tmp_path)
    assert list(golden.check([case], tmp_path)) == []
    at = len(golden.KEY) + golden.TABLES["partition_timeline"].index("leader_epoch")
    rows = [list(row) for row in replayed.tables["partition_timeline"]]
    rows[1][at] += 1
    golden.write_corpus(case.corpus, {case.id: replayed._replace(tables={**replayed.tables, "partition_timeline": rows})},
                        tmp_path)
    ((d, stored),) = golden.check([case], tmp_path)
    assert (d.case, d.table) == (case.id, "partition_timeline")
    assert "the first difference at row 1" in d.text and "fields that differ: leader_epoch" in d.text
    assert f"leader_epoch={rows[1][at]}" in d.text
    assert "SimConfig(cluster='sim', era=" in golden.reproduce(d.case, stored)


def test_a_field_added_since_the_corpus_was_written_is_not_compared(tmp_path, monkeypatch):
    """The comparison reads the fields the corpus names: a field the rows gained since is left out,
    and one the corpus names that the rows no longer have differs."""
    case = golden.generated_cases([3])[0]
    replayed = case.replay()
    fields = golden.TABLES["partition_timeline"]
    at = len(golden.KEY) + fields.index("target_replicas")
    earlier = [row[:at] + row[at + 1:] for row in replayed.tables["partition_timeline"]]
    monkeypatch.setitem(golden.TABLES, "partition_timeline", tuple(f for f in fields if f != "target_replicas"))
    golden.write_corpus(case.corpus, {case.id: replayed._replace(tables={**replayed.tables, "partition_timeline": earlier})},
                        tmp_path)
    monkeypatch.undo()
    assert list(golden.check([case], tmp_path)) == []
    monkeypatch.setitem(golden.TABLES, "partition_timeline", (*fields, "no_such_field"))
    golden.write_corpus(case.corpus, {case.id: replayed._replace(tables={
        **replayed.tables, "partition_timeline": [row + [None] for row in replayed.tables["partition_timeline"]]})},
        tmp_path)
    monkeypatch.undo()
    ((d, _),) = golden.check([case], tmp_path)
    assert d.table == "partition_timeline" and "fields that differ: no_such_field" in d.text
