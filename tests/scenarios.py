"""The recorded-cluster scenarios (tests/ingest/fixtures/scenarios, each labelled with the Kafka
version whose format strings it follows), shared by the ingest and Spark tests. tests/ is on
sys.path (its conftest)."""
from __future__ import annotations

from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent / "ingest" / "fixtures" / "scenarios"

# The ZooKeeper migration whose metadata transaction the controller failover aborts (KIP-868).
MIGRATION_DUMP = (SCENARIOS / "kraft-3.7.0-aborted-migration" / "controller-3001" / "__cluster_metadata-0"
                  / "00000000000000000000.log.txt")


def migration_night() -> str:
    """MIGRATION_DUMP cut just before the controller failover's batch: a night's input that ends
    while the migration's transaction is still open."""
    lines = MIGRATION_DUMP.read_text().splitlines()
    # The failover's LEADER_CHANGE control record (not the first epoch's, near the top); its
    # batch line is the one before it.
    cut = next(i for i, line in enumerate(lines) if "controlType: LEADER_CHANGE" in line and i > 5) - 1
    return "\n".join(lines[:cut]) + "\n"
