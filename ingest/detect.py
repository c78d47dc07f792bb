"""Which Kafka release wrote a cluster's logs, from the lines themselves.

Every catalogue row names the releases whose source writes it (`first`..`last`); the
releases that fit a cluster are the intersection over the rows its lines matched. The
server.log banner (`Kafka version: X`) names the release outright, and kafka-dump-log
output means KRaft, as do a KRaft quorum's own lines (its controller's, its Raft client's) where
no ZooKeeper-mode controller's line is read (`EraEvidence.kraft_mode`). When the intersection spans releases whose controller behaves
differently (state_machine.eras.BEHAVIOURS), the latest is used and the choice is said in
the summary: `--kafka-version` pins it.

A KRaft cluster's release comes from what its controllers wrote (the dump tool's own line
shapes say which kafka-dump-log printed them, not which release the cluster runs): a banner,
the KRaft controller.log rows' ranges, and the metadata.version feature level in the log,
which no release older than the one that introduced it can write."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, NamedTuple

from ingest.kraft_controller import CONTROLLER_ROW_PREFIX
from ingest.lines import cluster_folder
from state_machine.eras import KRAFT_FIRST, parse_version, resolve_era

LAST_ZK = "3.9.99"

# metadata.version feature level -> the release that introduced it: (first level, release), from
# server-common MetadataVersion.java (sources jars 3.9.1, 4.3.1). 3.0-IV1 is level 1.
METADATA_VERSION_LEVELS = (
    (1, "3.0"), (2, "3.1"), (3, "3.2"), (4, "3.3"), (8, "3.4"), (9, "3.5"), (12, "3.6"), (15, "3.7"), (20, "3.8"),
    (21, "3.9"), (22, "4.0"), (26, "4.1"), (28, "4.2"), (30, "4.3"), (31, "4.4"),
)


def metadata_version_release(level: int) -> str | None:
    """The release that introduced a metadata.version level (None below level 1); a level
    beyond the table is at least the last release it names."""
    found = None
    for first, release in METADATA_VERSION_LEVELS:
        if level >= first:
            found = release
    return found

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


def _text(v) -> str:
    return ".".join(map(str, v))


def _banner_choice(versions: Iterable[str], prefix: str = "", since: tuple | None = None) -> EraChoice | None:
    """The era a server.log banner names; banners of releases before `since` are not evidence."""
    releases = {v: apache_release(v) for v in set(versions)}
    banners = sorted((v for v, r in releases.items() if r is not None and (since is None or parse_version(r) >= since)),
                     key=lambda v: parse_version(releases[v]))
    if not banners:
        return None
    named = [v if releases[v] == v else f"{v} (Confluent Platform: Apache Kafka {releases[v]})" for v in banners]
    return EraChoice(prefix + releases[banners[-1]], "server.log banner 'Kafka version: " + ", ".join(named) + "'",
                     False, len({releases[v] for v in banners}) > 1)


def _intersect(ranges: Iterable[tuple[str | None, str | None, int]], open_end: str | None):
    """(lo, hi) of the releases every row's first..last holds; hi None: open (open_end None)."""
    lo, hi = None, None
    for first, last, _ in ranges:
        if first is None:
            continue
        f = parse_version(first)
        lo = f if lo is None or f > lo else lo
        if last is not None or open_end is not None:
            t = parse_version(last or open_end)
            hi = t if hi is None or t < hi else hi
    return lo, hi


def choose_kraft_era(controller_ranges: Iterable[tuple[str | None, str | None, int]] = (), versions: Iterable[str] = (),
                     metadata_levels: Iterable[int] = (), dump: bool = True) -> EraChoice:
    """A KRaft cluster's era (see the module's doc): "kraft-<release>" when the evidence bounds
    the release, else "kraft" (the newest KRaft behaviour), said to be ambiguous when the
    releases the evidence leaves differ in behaviour. `dump`: a metadata log's dump was read
    (else the KRaft quorum's lines alone told KRaft mode)."""
    # A banner older than KRaft is another cluster's server.log under the same name: not evidence.
    banner = _banner_choice(versions, "kraft-", KRAFT_FIRST)
    if banner is not None:
        return banner
    lo, hi = _intersect(controller_ranges, None)
    evidence = ["kafka-dump-log --cluster-metadata-decoder output" if dump else "KRaft quorum lines"]
    if lo is not None:
        evidence.append(f"KRaft controller lines of {_text(lo)}..{_text(hi) if hi else ''}")
    level = max(metadata_levels, default=None)
    introduced = metadata_version_release(level) if level is not None else None
    if introduced is not None:
        evidence.append(f"metadata.version level {level} ({introduced}+)")
        lo = max(lo or KRAFT_FIRST, parse_version(introduced))
    lo = lo or KRAFT_FIRST
    fits = "; ".join(evidence)
    if hi is not None and lo > hi:
        return EraChoice(f"kraft-{_text(lo)}", f"{fits} (no single release fits)", True, True, _text(lo), _text(hi))
    era = f"kraft-{_text(hi)}" if hi is not None else "kraft"
    ambiguous = dict(resolve_era(f"kraft-{_text(lo)}").behaviour) != dict(resolve_era(era).behaviour)
    return EraChoice(era, fits, ambiguous, False, _text(lo), _text(hi) if hi else None)


def choose_era(ranges: Iterable[tuple[str | None, str | None, int]], versions: Iterable[str] = (),
               kraft: bool = False, kraft_ranges: Iterable[tuple[str | None, str | None, int]] = (),
               metadata_levels: Iterable[int] = (), dump: bool = True) -> EraChoice | None:
    """ranges: (first, last, lines) per catalogue row matched; versions: banners seen; kraft:
    a KRaft-mode cluster (EraEvidence.kraft_mode), `dump` whether by its metadata log's dump;
    kraft_ranges: the same for the KRaft controller's own lines; metadata_levels: the
    metadata.version feature levels a KRaft metadata log set."""
    if kraft:
        return choose_kraft_era(kraft_ranges, versions, metadata_levels, dump)
    banner = _banner_choice(versions)
    if banner is not None:
        return banner
    lo, hi = _intersect(ranges, LAST_ZK)
    if lo is None:
        return None
    if lo > hi:
        return EraChoice(_text(lo), f"{_text(hi)}..{_text(lo)} (no single release fits)", True, True, _text(lo), _text(hi))
    low, high = resolve_era(_text(lo)), resolve_era(_text(hi))
    ambiguous = dict(low.behaviour) != dict(high.behaviour)
    return EraChoice(_text(hi), f"line shapes of {_text(lo)}..{_text(hi)}", ambiguous, False, _text(lo), _text(hi))


# The catalogue rows only a ZooKeeper-mode controller writes, or a ZooKeeper-to-KRaft migration:
# the ZooKeeper controller's controller.log (`ctl.`), its state-change.log decisions and requests
# (every `sc.` row but a broker's own, `sc.broker.`), the ZooKeeper client's server.log lines
# (`srv.zk.`) and KRaftMigrationDriver's. A KRaft-mode cluster writes none of them.
ZOOKEEPER_ROW_PREFIXES = ("ctl.", "sc.partition.", "sc.replica.", "sc.send.", "sc.response.", "sc.reassign.",
                          "sc.mark_offline.", "sc.migration.", "srv.zk.", "kraft.controller.migration.")
# The Raft client's election-state rows (ingest.kraft_raft).
RAFT_ROW_PREFIX = "kraft.raft."


@dataclass
class EraEvidence:
    """What a cluster's lines tell of its release (`choose_era`'s arguments), as either ingest
    gathers it: the local one line by line, the Spark one from the pieces' tallies."""
    ranges: list = field(default_factory=list)        # (first, last, lines) per catalogue row matched
    versions: list[str] = field(default_factory=list)   # banners seen
    kraft: bool = False                               # a KRaft metadata log's dump was read
    kraft_ranges: list = field(default_factory=list)  # `ranges` of the KRaft controller's own lines
    levels: list[int] = field(default_factory=list)     # metadata.version levels the metadata log set
    raft: bool = False                                # a Raft client's election-state line was read
    zookeeper: bool = False                           # a ZooKeeper-mode controller's or a migration's line was read

    def matched(self, first: str | None, last: str | None, pattern: str, lines: int = 1) -> None:
        """`lines` lines matched the catalogue row named `pattern`, of releases first..last."""
        self.ranges.append((first, last, lines))
        if pattern.startswith(CONTROLLER_ROW_PREFIX):
            self.kraft_ranges.append((first, last, lines))
        self.raft = self.raft or pattern.startswith(RAFT_ROW_PREFIX)
        self.zookeeper = self.zookeeper or pattern.startswith(ZOOKEEPER_ROW_PREFIXES)

    @property
    def kraft_lines(self) -> bool:
        """Do the lines hold a KRaft quorum's (its controller's, its Raft client's, or a dump's)?"""
        return self.kraft or bool(self.kraft_ranges) or self.raft

    @property
    def kraft_mode(self) -> bool:
        """Is the cluster a KRaft-mode one, replayed in a KRaft era, each Raft epoch its lines
        name one of its controller changes (a ControllerFailover: ingest.local, jobs.ingest_spark)?
        Beside a metadata log's dump, always; from the lines alone (the Raft client's `Leader`
        and `FollowerState`, the controller's `In the new epoch E, the leader is L`), when no
        ZooKeeper-mode controller's or migration's line is read: a ZooKeeper-to-KRaft migration
        is replayed in a ZooKeeper era, where the KRaft controller is the controller of the
        ZooKeeper epoch it took `/controller` with, and a Raft epoch is no controller epoch."""
        return self.kraft or (self.kraft_lines and not self.zookeeper)

    def choice(self) -> EraChoice | None:
        return choose_era(self.ranges, self.versions, self.kraft_mode, self.kraft_ranges, self.levels, dump=self.kraft)


def detected_eras(evidence: dict[str | None, EraEvidence]) -> dict[str, tuple[str, str]]:
    """cluster -> (era, how it was detected) of each cluster whose lines tell its release."""
    out = {}
    for cluster, ev in evidence.items():
        choice = ev.choice()
        if choice is not None and cluster is not None:
            out[cluster] = (choice.era, choice.explain())
    return out


def era_choices(inputs: Iterable[str], specs: Iterable[str],
                detected: dict[str, tuple[str, str]] | None = None) -> tuple[str, dict[str, str], dict[str, str]]:
    """(default era, era per cluster, how each was chosen), for the local runner and the
    Spark job alike. Precedence: `--kafka-version` values (ERA or CLUSTER=ERA), then
    `manifest.json` files ({"clusters": {"name": {"kafka_version": ...}}}) under local input
    directories, then `detected` (cluster -> (era, explanation), `detected_eras`), then 2.4.
    A bare ERA also replaces what was only detected."""
    default, per_cluster, why = "2.4", {}, {}
    for cluster, (era, how) in (detected or {}).items():
        per_cluster[cluster], why[cluster] = era, "detected: " + how
    for item in inputs:
        if "://" in item or not Path(item).exists():
            continue
        path = Path(item)
        found = sorted(path.rglob("manifest.json")) if path.is_dir() else []
        # A broker's folder (or file) given alone: the cluster folder above it, as in the audit's file_clusters.
        folder = path if path.is_dir() else path.parent
        top = Path(cluster_folder(str(folder)))
        if top != folder and (top / "manifest.json").is_file():
            found.append(top / "manifest.json")
        for manifest in found:
            try:
                clusters = json.loads(manifest.read_text()).get("clusters", {})
            except (OSError, ValueError):
                continue
            for name, info in clusters.items():
                per_cluster[name], why[name] = info["kafka_version"], str(manifest)
    for spec in specs:
        cluster, sep, era = spec.rpartition("=")
        if sep:
            per_cluster[cluster], why[cluster] = era, "--kafka-version"
        else:
            default = era
            for name in list(per_cluster):
                if why.get(name, "").startswith("detected"):
                    per_cluster[name], why[name] = era, "--kafka-version"
    return default, per_cluster, why


def cluster_eras(inputs: Iterable[str], specs: Iterable[str]) -> tuple[str, dict[str, str]]:
    """The default era and per-cluster eras of `era_choices`, nothing detected."""
    default, per_cluster, _ = era_choices(inputs, specs)
    return default, per_cluster
