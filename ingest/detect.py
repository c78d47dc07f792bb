"""Which Kafka release wrote a cluster's logs, from the lines themselves.

Every catalogue row names the releases whose source writes it (`first`..`last`); the
releases that fit a cluster are the intersection over the rows its lines matched. The
server.log banner (`Kafka version: X`) names the release outright, and kafka-dump-log
output means KRaft. When the intersection spans releases whose controller behaves
differently (state_machine.eras.BEHAVIOURS), the latest is used and the choice is said in
the summary: `--kafka-version` pins it."""
from __future__ import annotations

from typing import Iterable, NamedTuple

from state_machine.eras import parse_version, resolve_era

LAST_ZK = "3.9.99"


class EraChoice(NamedTuple):
    era: str                 # what the replay uses (an era name or a release)
    fits: str                # the evidence, e.g. "2.4.0..2.5.1" or "Kafka version: 2.8.1" or "kraft"
    ambiguous: bool          # the fitting releases differ in controller behaviour
    conflicting: bool        # no release fits every line (mixed versions, or a rolling upgrade)
    low: str | None = None   # the line shapes' range of releases (None: a banner or KRaft decided)
    high: str | None = None

    def explain(self) -> str:
        note = ""
        if self.conflicting:
            note = " (lines of different releases: a rolling upgrade? pin with --kafka-version)"
        elif self.ambiguous:
            note = " (releases in this range differ in controller behaviour; the latest is used, pin with --kafka-version)"
        return f"{self.era} from {self.fits}{note}"


def choose_era(ranges: Iterable[tuple[str | None, str | None, int]], versions: Iterable[str] = (),
               kraft: bool = False) -> EraChoice | None:
    """ranges: (first, last, lines) per catalogue row matched; versions: banners seen."""
    if kraft:
        return EraChoice("kraft", "kafka-dump-log --cluster-metadata-decoder output", False, False)
    versions = sorted(set(versions), key=parse_version)
    if versions:
        return EraChoice(versions[-1], "server.log banner 'Kafka version: " + ", ".join(versions) + "'",
                         False, len(versions) > 1)
    lo, hi = None, None
    for first, last, _ in ranges:
        if first is None:
            continue
        f = parse_version(first)
        t = parse_version(last or LAST_ZK)
        lo = f if lo is None or f > lo else lo
        hi = t if hi is None or t < hi else hi
    if lo is None:
        return None
    text = lambda v: ".".join(map(str, v))  # noqa: E731
    if lo > hi:
        return EraChoice(text(lo), f"{text(hi)}..{text(lo)} (no single release fits)", True, True, text(lo), text(hi))
    low, high = resolve_era(text(lo)), resolve_era(text(hi))
    ambiguous = dict(low.behaviour) != dict(high.behaviour)
    return EraChoice(text(hi), f"line shapes of {text(lo)}..{text(hi)}", ambiguous, False, text(lo), text(hi))
