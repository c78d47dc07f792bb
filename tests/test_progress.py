"""An audit's progress is shown at a terminal only, never in CI; one line per phase (the audit at
a terminal, with Spark's bar: tests/spark/test_audit.py)."""
from __future__ import annotations

import io
import os

from jobs.progress import PHASES, phase_lines, shown


def test_progress_is_shown_at_a_terminal_outside_ci():
    leader, follower = os.openpty()
    with open(follower, "w") as terminal:
        assert shown(terminal, {}) and shown(terminal, {"CI": "false"})
        assert not shown(terminal, {"CI": "true"}) and not shown(terminal, {"CI": "1"})
    os.close(leader)
    assert not shown(io.StringIO(), {})


def test_one_line_per_phase_in_order():
    out = io.StringIO()
    on_phase = phase_lines(out)
    for phase in PHASES:
        on_phase(phase)
    lines = out.getvalue().split("\n")[:-1]
    assert all(line.startswith("\r\x1b[K") for line in lines)   # the bar's line, erased first
    lines = [line.removeprefix("\r\x1b[K") for line in lines]
    assert [line.split(" (")[0] for line in lines] == [
        "audit: 1/5 reading the input", "audit: 2/5 checking the events", "audit: 3/5 replaying the partitions",
        "audit: 4/5 checking the tables", "audit: 5/5 writing the tables"]
    assert lines[0].endswith("(0 s)")
