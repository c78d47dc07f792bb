"""A real capture as its brokers would have logged it at INFO (most production clusters run so):
the same history with every TRACE and DEBUG record dropped, continuation lines and all."""
from __future__ import annotations

import re
from pathlib import Path

_HEAD = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (\w+) ")


def at_info(capture: Path, out: Path) -> Path:
    """Write the INFO view of `capture`'s logs under `out` (same layout, no manifest) and return it."""
    for log in capture.glob("*/*.log"):
        kept, keep = [], True
        for line in log.read_text().splitlines(keepends=True):
            m = _HEAD.match(line)
            if m:
                keep = m[1] not in ("TRACE", "DEBUG")
            if keep:
                kept.append(line)
        target = out / log.relative_to(capture)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(kept))
    return out
