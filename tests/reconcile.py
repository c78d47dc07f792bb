"""The check that every line real brokers wrote was understood, shared by the audits of the
committed captures (tests/spark/test_real_samples.py) and of live clusters (tests/kafka_cluster).
tests/ is on sys.path (its conftest)."""
from __future__ import annotations

SHOWN = 20


def assert_every_line_understood(what: str, files: dict[str, dict], quarantine) -> None:
    """`files`: the audit's per-file accounting (`audit_runs.input_files`) of `what`'s inputs;
    `quarantine`: its rows of the quarantine table. Each file's lines reconcile, and none is
    quarantined: a quarantined line is a catalogue row to add, shown here verbatim."""
    assert files, f"no input file of {what} was read"
    unreconciled = {f: i for f, i in files.items() if i["lines"] != i["recognized"] + i["quarantined"]}
    assert not unreconciled, f"lines != recognized + quarantined in {what}: {unreconciled}"
    rows = quarantine.orderBy("source_file", "source_line").limit(SHOWN).collect()
    counted = {f: i["quarantined"] for f, i in files.items() if i["quarantined"]}
    assert not rows and not counted, f"{sum(counted.values())} line(s) of {what} quarantined {counted}:\n" + "\n".join(
        f"  {q['source_file']}:{q['source_line']} {q['reason']}: {q['raw'][:300]}" for q in rows)
