"""The audit's printed summary (jobs.audit.AuditSummary.lines), without a Spark session."""
from __future__ import annotations

from jobs.audit import AuditSummary


def test_each_aborted_metadata_transaction_is_named_with_the_events_it_undid():
    summary = AuditSummary("r1", 40, 30, 0, 2, {}, {}, 1.0, {}, transactions={
        "k": [(None, 8, 12, 1), (None, -1, 5, 3)],
        "s": [("file:/logs/s/00000000000000000000.log.txt", 16, 23, 2)]})
    lines = summary.lines()
    assert [line for line in lines if "aborted" in line] == [
        "  k: the metadata transaction begun at offset 8 was aborted at offset 12: 1 event of its records undone, "
        "not replayed",
        "  k: the metadata transaction begun before the input was aborted at offset 5: 3 events of its records "
        "undone, not replayed",
        "  s: the metadata transaction begun at line 16 was aborted at line 23 of "
        "file:/logs/s/00000000000000000000.log.txt: 2 events of its records undone, not replayed"]
    assert lines.index("  no violations") > max(i for i, line in enumerate(lines) if "aborted" in line)


def test_a_metadata_transaction_open_at_the_inputs_end_is_a_warning_with_the_events_replayed():
    summary = AuditSummary("r1", 40, 30, 0, 2, {}, {}, 1.0, {}, transactions={
        "k": [(None, 8, 12, 1), (None, 13, None, 2)],
        "s": [("file:/logs/s/00000000000000000000.log.txt", 16, None, 1)]})
    assert [line for line in summary.lines() if "still open" in line] == [
        "  k: the metadata transaction begun at offset 13 is still open at the input's end: 2 events of its records "
        "replayed (the active controller applied them); an abort in a later input will not undo their rows",
        "  s: the metadata transaction begun at line 16 of file:/logs/s/00000000000000000000.log.txt is still open "
        "at the input's end: 1 event of its records replayed (the active controller applied them); an abort in a "
        "later input will not undo their rows"]
