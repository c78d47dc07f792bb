"""The records an unclean election lost, as the audit reports them on each real capture, against
the producer's own acknowledgements.

Every capture's history (tests/kafka_cluster/scenarios.py, unclean_election) stops the follower of
topic `unclean`, produces with acks=1 to the leader alone (step `unclean_produce_lagging`: its
ProducerPerformance summary, `N records sent`, counts the acknowledged records), stops the leader,
and has the follower elected uncleanly; the old leader comes back as a follower and truncates. The
acknowledged records are exactly the ones lost: the audit's bounds must hold N, and be N from 0.11
on, where the new leader prints its start offset."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ingest.local import ingest_files, log_files
from state_machine.cluster import replay_cluster
from state_machine.eras import parse_version, resolve_era

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "real"


def _acknowledged(manifest: dict) -> int | None:
    for step in manifest["steps"]:
        if step["name"] == "unclean_produce_lagging":
            return int(re.match(r"(\d+) records sent", step["producer"])[1])
    return None


CAPTURES = sorted(p.name for p in REAL.iterdir()
                  if (p / "manifest.json").exists() and _acknowledged(json.loads((p / "manifest.json").read_text())))


@pytest.mark.parametrize("capture", CAPTURES)
def test_the_records_lost_hold_the_producers_acknowledged_count(capture):
    manifest = json.loads((REAL / capture / "manifest.json").read_text())
    acked = _acknowledged(manifest)
    release = manifest["clusters"][capture]["kafka_version"]
    ingested = ingest_files(log_files(REAL / capture), capture)
    result = replay_cluster(capture, ingested.events, resolve_era(release))
    (v,) = [v for v in result[("unclean", 0)].violations if v.rule == "UNCLEAN_LEADER_ELECTION"]
    lower, upper = v.facts["records_lost_lower"], v.facts["records_lost_upper"]
    assert lower == "unknown" or int(lower) <= acked, v.facts
    assert upper == "unknown" or acked <= int(upper), v.facts
    if manifest["mode"] == "kraft" or parse_version(release) >= (0, 11, 0):
        assert (lower, upper) == (str(acked), str(acked)), v.facts
        assert v.facts["old_leader_truncation_offset"] == v.facts["new_leader_start_offset"]
    else:   # 0.8-0.10 print no start offset: the old leader's truncation bounds it from above
        assert (lower, upper) == ("unknown", str(acked)), v.facts
