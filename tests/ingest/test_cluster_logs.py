"""bench/cluster_logs.py: a small corpus of each release it writes reads with nothing
quarantined, and its replay reports exactly the unclean elections its ground truth holds,
with the request, fetcher, failed-election and server.log lines it adds around them."""
from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

_spec = importlib.util.spec_from_file_location("cluster_logs", Path(__file__).resolve().parents[2] / "bench" / "cluster_logs.py")
cluster_logs = sys.modules["cluster_logs"] = importlib.util.module_from_spec(_spec)   # a dataclass needs its module
_spec.loader.exec_module(cluster_logs)


@pytest.mark.parametrize("version", sorted(cluster_logs.RELEASES))
def test_a_corpus_audits_to_its_ground_truth(tmp_path, version):
    out = tmp_path / "c"
    stats = cluster_logs.generate(cluster_logs.CorpusConfig(out=str(out), version=version, mb=3, brokers=5, topics=10,
                                                            partitions=4, seed=3, failed_preferred=0.05,
                                                            failed_election_share=1.0))
    assert stats["bytes"] >= 3_000_000 and stats["injected"] > 0 and stats["failed_elections"] > 0
    ingested = ingest_files(log_files(out), "c")
    assert ingested.quarantine == []
    results = replay_cluster("c", ingested.events, resolve_era(cluster_logs.RELEASES[version][0]))
    reported = Counter((v.rule, topic, partition) for (topic, partition), r in results.items() for v in r.violations)
    truth = Counter((t["rule"], t["topic"], t["partition"])
                    for t in map(json.loads, (out / "injected.truth.jsonl").read_text().splitlines()))
    assert reported == truth
    server = (out / "broker-1" / "server.log").read_text()
    assert "Rolled new log segment" in server and "Added fetcher to broker" in server
    assert "\tat kafka.controller.ZkPartitionStateMachine" in "".join(p.read_text() for p in out.glob("*/state-change.log"))
