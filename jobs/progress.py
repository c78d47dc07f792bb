"""What a long audit shows while it runs, when stderr is a terminal and not CI's: a line on
stderr as each phase begins, and under it Spark's own stage progress bar (its
ConsoleProgressBar, which draws on the driver's stderr). Piped, redirected or in CI the audit
prints only its summary, which gives each phase's seconds.

    on_phase = phase_lines(sys.stderr) if shown(sys.stderr) else None
    on_phase("read")   # audit: 1/5 reading the input (0 s)"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable, Mapping, TextIO

# The audit's phases in order (jobs.audit.run's phases_s), and what each does.
PHASES = {
    "read": "reading the input",
    "input_gate": "checking the events (the input gate)",
    "replay": "replaying the partitions",
    "output_gate": "checking the tables (the output gate)",
    "write": "writing the tables",
}

# The session's settings for the bar. Spark draws it only when its SparkContext logger is at WARN
# or above as the session starts, which PySpark's launcher sets.
SPARK_CONF = {"spark.ui.showConsoleProgress": "true"}


def shown(stream: TextIO = sys.stderr, env: Mapping[str, str] = os.environ) -> bool:
    """Whether progress goes to `stream`: a terminal, outside CI (which sets CI to true)."""
    return stream.isatty() and env.get("CI", "").lower() in ("", "0", "false")


# Back to the line's start and erase it: the line Spark's bar is drawn on, when a stage runs as a
# phase begins (the bar is cleared only as a job ends).
ERASE_LINE = "\r\x1b[K"


def phase_lines(stream: TextIO) -> Callable[[str], None]:
    """A callback for jobs.audit.run that prints a phase's line at a terminal as it begins, with
    the time since the first."""
    started: list[float] = []

    def on_phase(phase: str) -> None:
        now = time.monotonic()
        started[:] = started or [now]
        n = list(PHASES).index(phase) + 1
        print(f"{ERASE_LINE}audit: {n}/{len(PHASES)} {PHASES[phase]} ({now - started[0]:.0f} s)", file=stream,
              flush=True)

    return on_phase
