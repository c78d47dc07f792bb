"""Each real ZooKeeper-mode TRACE capture audited again as its brokers would have logged it at
INFO (tests/info_view.py): the controller's TRACE state-change lines (every partition and replica
transition, every LeaderAndIsr it sent) are gone, and what is left is the controller's INFO lines
and the brokers' own ("starts at leader epoch 2", "ISR updated to ..."), which name the leader and
its epoch but no ISR. The replay must rebuild the same history from that and find the same
violations: the capture's one unclean election (none in zk-2.4-ops), and nothing else."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from info_view import at_info
from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import resolve_era

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"
# (zk-3.9-migration: tests/ingest/test_migration.py.)
CAPTURES = ["zk-0.8-trace", "zk-0.9-trace", "zk-0.10-trace", "zk-0.11-trace", "zk-1.0-trace", "zk-2.4-trace", "zk-2.4-ops",
            "zk-2.8-trace", "zk-3.9-trace"]


def _audit(folder: Path, version: str) -> dict:
    ingested = ingest_files(log_files(folder), "c")
    assert ingested.quarantine == []
    return replay_cluster("c", ingested.events, resolve_era(version))


def _history(result) -> list[tuple]:
    """The partition's leader, leader epoch and ISR (as a set) as they changed, while it existed."""
    out: list[tuple] = []
    for row in result.timeline:
        if row.partition_state == "NonExistentPartition" or row.leader_epoch < 0:
            continue
        state = (row.leader, row.leader_epoch, frozenset(row.isr))
        if not out or out[-1] != state:
            out.append(state)
    return out


@pytest.mark.parametrize("capture", CAPTURES)
def test_a_trace_capture_logged_at_info_audits_to_the_same_history(capture, tmp_path):
    version = json.loads((REAL / capture / "manifest.json").read_text())["kafka_version"]
    trace = _audit(REAL / capture, version)
    info = _audit(at_info(REAL / capture, tmp_path), version)
    assert set(info) == set(trace)
    rules = {key: sorted(v.rule for v in r.violations) for key, r in trace.items()}
    assert {key: sorted(v.rule for v in r.violations) for key, r in info.items()} == rules
    assert sum(rules.values(), []) == ([] if capture.endswith("-ops") else ["UNCLEAN_LEADER_ELECTION"])
    assert {key: _history(r) for key, r in info.items()} == {key: _history(r) for key, r in trace.items()}
