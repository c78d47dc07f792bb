"""Which Kafka release wrote a cluster's logs, from the lines themselves.

Every catalogue row names the releases whose source writes it (`first`..`last`); the
releases that fit a cluster are the intersection over the rows its lines matched. The
server.log banner (`Kafka version: X`) names the release outright, and kafka-dump-log
output means KRaft. When the intersection spans releases whose controller behaves
differently (state_machine.eras.BEHAVIOURS), the latest is used and the choice is said in
the summary: `--kafka-version` pins it."""
from __future__ import annotations

import re
from typing import Iterable, NamedTuple

from state_machine.eras import parse_version, resolve_era

LAST_ZK = "3.9.99"

# A Confluent Platform build's banner names the CP release (`Kafka version: 7.3.5-ccs`, `5.3.2-ce`);
# each CP minor line ships one Apache Kafka minor line (Confluent's "Supported Versions and
# Interoperability" table).
_CONFLUENT_BANNER = re.compile(r"(\d+)\.(\d+)\.\d+-(?:ccs|ce)$")
CONFLUENT_TO_APACHE = {
    (2, 0): "0.9.0", (3, 0): "0.10.0", (3, 1): "0.10.1", (3, 2): "0.10.2", (3, 3): "0.11.0", (4, 0): "1.0", (4, 1): "1.1",
    (5, 0): "2.0", (5, 1): "2.1", (5, 2): "2.2", (5, 3): "2.3", (5, 4): "2.4", (5, 5): "2.5", (6, 0): "2.6", (6, 1): "2.7",
    (6, 2): "2.8", (7, 0): "3.0", (7, 1): "3.1", (7, 2): "3.2", (7, 3): "3.3", (7, 4): "3.4", (7, 5): "3.5", (7, 6): "3.6",
    (7, 7): "3.7", (7, 8): "3.8", (7, 9): "3.9", (8, 0): "4.0",
}


def apache_release(banner: str) -> str | None:
    """The Apache Kafka release a server.log banner names: the banner itself, or for a
    Confluent Platform build the Kafka line its CP minor ships (None: a CP line not in the
    table, which tells nothing)."""
    m = _CONFLUENT_BANNER.match(banner)
    if m is None:
        return banner
    return CONFLUENT_TO_APACHE.get((int(m[1]), int(m[2])))


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
    releases = {v: apache_release(v) for v in set(versions)}
    banners = sorted((v for v, r in releases.items() if r is not None), key=lambda v: parse_version(releases[v]))
    if banners:
        named = [v if releases[v] == v else f"{v} (Confluent Platform: Apache Kafka {releases[v]})" for v in banners]
        return EraChoice(releases[banners[-1]], "server.log banner 'Kafka version: " + ", ".join(named) + "'",
                         False, len({releases[v] for v in banners}) > 1)
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
