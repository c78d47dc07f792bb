"""Run the scripted history on real clusters and keep what the brokers wrote.

  python -m tests.kafka_cluster.capture --out data/samples/real [--only zk-3.9-info] [--workdir DIR] [--keep]

For each scenario, into <out>/<scenario>/:
  broker-<id>/state-change.log, controller.log, server.log   (verbatim, every node; rolled hourly files too)
  broker-<id>/__cluster_metadata-0/<segment>.log.txt         (KRaft: kafka-dump-log --cluster-metadata-decoder
                                                              --print-data-log of each metadata-log segment)
  describe/_NN-<step>.txt                                     (kafka-topics --describe after each step)
  manifest.json   ({"clusters": {<scenario>: {"kafka_version": era}}, "kafka_version", "mode", "log_level",
                    "history", "steps": [{"name", "time", ...}], "expected": {"unclean": {...} or null},
                    "final_describe": {...}})

The cluster is killed (-9, all JVMs at once) after the last describe, so nothing after it reaches the
logs: the last state the logs show is final_describe."""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from state_machine.eras import parse_version

from .harness import KRAFT3_VERSION, KRAFT40_VERSION, KRAFT_FEATURES, KRAFT_VERSION, ZK08_VERSION, ZK09_VERSION, ZK010_VERSION, ZK011_VERSION, ZK10_VERSION, ZK24_VERSION, ZK2_VERSION, ZK_VERSION, Cluster, KRaftCluster, ZkCluster, parse_describe
from .scenarios import ELR_FEATURE, HISTORIES, Recorder, now_iso, parse_final


@dataclass(frozen=True)
class Scenario:
    mode: str            # "zk" | "kraft"
    version: str         # the Kafka release run
    log_level: str       # state.change.logger level: TRACE (stock before 2.6), or INFO (stock since 2.6)
    history: str = "main"   # scenarios.HISTORIES: the main history (one unclean election), "ops", "elr", "migration" or "failover"
    features: tuple[str, ...] = ()   # KRaft: feature levels formatted with (name=level); none: the release's defaults

    @property
    def era(self) -> str:
        """What the audit's --kafka-version / manifest `clusters` takes: the release run ("kraft-<release>"
        in KRaft mode, whose line shapes do not tell 3.x from 4.x releases)."""
        return f"kraft-{self.version}" if self.mode == "kraft" else self.version


SCENARIOS: dict[str, Scenario] = {
    "zk-0.8-trace": Scenario("zk", ZK08_VERSION, "TRACE"),
    "zk-0.9-trace": Scenario("zk", ZK09_VERSION, "TRACE"),
    "zk-0.10-trace": Scenario("zk", ZK010_VERSION, "TRACE"),
    "zk-0.11-trace": Scenario("zk", ZK011_VERSION, "TRACE"),
    "zk-1.0-trace": Scenario("zk", ZK10_VERSION, "TRACE"),
    "zk-2.4-trace": Scenario("zk", ZK24_VERSION, "TRACE"),
    "zk-2.8-info": Scenario("zk", ZK2_VERSION, "INFO"),
    "zk-2.8-trace": Scenario("zk", ZK2_VERSION, "TRACE"),
    "zk-3.9-trace": Scenario("zk", ZK_VERSION, "TRACE"),
    "zk-3.9-info": Scenario("zk", ZK_VERSION, "INFO"),
    "kraft-4.x": Scenario("kraft", KRAFT_VERSION, "INFO"),
    "kraft-3.x": Scenario("kraft", KRAFT3_VERSION, "INFO"),
    "zk-2.4-ops": Scenario("zk", ZK24_VERSION, "TRACE", "ops"),
    "zk-3.9-ops": Scenario("zk", ZK_VERSION, "INFO", "ops"),
    # A ZooKeeper-to-KRaft migration in dual write: ZooKeeper-mode brokers, and a KRaft controller
    # (controller-3000/) deciding for them; no metadata-log dump, so replayed in ZooKeeper mode. At
    # TRACE: at INFO no ZooKeeper-mode line names the replicas of a topic the KRaft controller created.
    "zk-3.9-migration": Scenario("zk", ZK_VERSION, "TRACE", "migration"),
    "kraft-ops": Scenario("kraft", KRAFT_VERSION, "INFO", "ops"),
    "kraft-elr": Scenario("kraft", KRAFT_VERSION, "INFO", "elr"),
    # 4.0 with ELR turned on (off by default there): the era whose controller elects a last known
    # leader even when it is dead (4.1 does not).
    "kraft-4.0-ops": Scenario("kraft", KRAFT40_VERSION, "INFO", "ops", (f"{ELR_FEATURE}=1",)),
    "kraft-4.0-elr": Scenario("kraft", KRAFT40_VERSION, "INFO", "elr", (f"{ELR_FEATURE}=1",)),
    # The active controller killed while topics are created: recorded with every scenario, not CI's.
    "kraft-failover": Scenario("kraft", KRAFT_VERSION, "INFO", "failover"),
}


def newest_of_each_mode() -> list[str]:
    """The main history on each mode's newest release, at its most detailed level (TRACE over
    INFO): the scenarios a test run records on live clusters unless asked for more."""
    def rank(name: str) -> tuple:
        s = SCENARIOS[name]
        return parse_version(s.version), s.log_level == "TRACE"

    main = [name for name, s in SCENARIOS.items() if s.history == "main"]
    return sorted(max((n for n in main if SCENARIOS[n].mode == mode), key=rank) for mode in ("zk", "kraft"))


def live_scenarios(selection: str | None) -> list[str]:
    """The scenarios to record, by KAFKA_SCENARIOS: unset or empty, the newest of each mode (CI);
    "all", every one (`make test-all`); or names, comma-separated."""
    if not selection:
        return newest_of_each_mode()
    if selection == "all":
        return sorted(SCENARIOS)
    names = [n.strip() for n in selection.split(",") if n.strip()]
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown:
        raise ValueError(f"KAFKA_SCENARIOS: no scenario {', '.join(unknown)} (all, or some of {', '.join(sorted(SCENARIOS))})")
    return sorted(set(names))


LOG_FILES = ("state-change.log", "controller.log", "server.log")


def make_cluster(scenario: Scenario, workdir: Path, fetch: bool = False) -> Cluster:
    if scenario.mode == "zk":
        return ZkCluster(workdir, scenario.version, state_change_level=scenario.log_level, fetch=fetch)
    return KRaftCluster(workdir, scenario.version, features=scenario.features or KRAFT_FEATURES,
                        state_change_level=scenario.log_level, fetch=fetch)


def copy_logs(cluster: Cluster, out: Path) -> None:
    migration = getattr(cluster, "migration_controller", None)   # ZkCluster.start_migration_controller
    for node in [*cluster.nodes.values(), *([migration] if migration else [])]:
        target = out / node.dir.name          # broker-<id>, controller-<id>
        target.mkdir(parents=True, exist_ok=True)
        for name in LOG_FILES:
            for path in sorted(node.logs_dir.glob(f"{name}*")):   # + hourly rolled files, name.yyyy-MM-dd-HH
                shutil.copy2(path, target / path.name)


def dump_metadata(cluster: KRaftCluster, out: Path) -> None:
    for node_id in cluster.nodes:
        for segment in cluster.metadata_segments(node_id):
            target = out / f"broker-{node_id}" / "__cluster_metadata-0" / f"{segment.name}.txt"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(cluster.dump_metadata(node_id, segment))


def java_version() -> str:
    proc = subprocess.run(["java", "-version"], capture_output=True, text=True)
    m = re.search(r'version "([^"]+)"', proc.stderr)
    return m[1] if m else "unknown"


def capture(name: str, out_root: Path, workdir: Path | None = None, keep: bool = False, fetch: bool = False) -> Path:
    """Run scenario `name` from scratch; returns <out_root>/<name> (replaced if it existed)."""
    scenario = SCENARIOS[name]
    final_out = Path(out_root) / name
    # Written aside and renamed at the end: a failed run never replaces a good capture.
    out = final_out.with_name(f".{name}.partial")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    work = Path(workdir) / name if workdir else Path(tempfile.mkdtemp(prefix=f"kafka-{name}-"))
    if work.exists() and any(work.iterdir()):
        shutil.rmtree(work)
    t0 = time.monotonic()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        with make_cluster(scenario, work, fetch=fetch) as cluster:
            rec = Recorder(cluster, out)
            with rec.step("start_cluster", brokers=cluster.broker_ids) as s:
                cluster.start()
                if isinstance(cluster, KRaftCluster):
                    s["cluster_id"] = cluster.cluster_id
            expected = HISTORIES[scenario.history](cluster, rec)
            final = parse_final(parse_describe(rec.last_describe))
            # No describe after this one: there is no cluster left to ask.
            rec.steps.append({"name": "kill_cluster", "time": now_iso(), "signal": "SIGKILL",
                              "note": "every JVM killed at once after the last describe"})
            cluster.kill_all()
            copy_logs(cluster, out)
            if isinstance(cluster, KRaftCluster):
                dump_metadata(cluster, out)
        manifest = {
            "description": f"Real Kafka {scenario.version} ({scenario.mode}) cluster on 127.0.0.1, scripted by "
                           "tests/kafka_cluster (capture.py); describe/_*.txt are kafka-topics --describe snapshots.",
            "clusters": {name: {"kafka_version": scenario.era}},
            "kafka_version": scenario.version,
            "mode": scenario.mode,
            "log_level": scenario.log_level,
            "history": scenario.history,
            **({"features": list(cluster.features)} if isinstance(cluster, KRaftCluster) and cluster.features else {}),
            "brokers": list(cluster.broker_ids),
            "log_timezone": "UTC",
            "java": java_version(),
            "captured_at": started,
            "duration_s": round(time.monotonic() - t0, 1),
            "steps": rec.steps,
            "expected": expected,
            "final_describe": final,
        }
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        if final_out.exists():
            shutil.rmtree(final_out)
        out.rename(final_out)
        return final_out
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        if not keep and workdir is None:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.kafka_cluster.capture", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory that receives one sub-directory per scenario")
    ap.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="run only this scenario (repeatable)")
    ap.add_argument("--workdir", help="where the clusters keep their data (default: a temp dir, removed after)")
    ap.add_argument("--keep", action="store_true", help="keep the temp working directory")
    ap.add_argument("--fetch", action="store_true", help="run fetch.sh first (idempotent)")
    args = ap.parse_args(argv)
    for name in args.only or list(SCENARIOS):
        t0 = time.monotonic()
        out = capture(name, Path(args.out), Path(args.workdir) if args.workdir else None, args.keep, args.fetch)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(f"{name}: {out} ({size / 1e6:.1f} MB, {time.monotonic() - t0:.0f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
