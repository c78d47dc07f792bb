"""KRaft brokers' state-change.log, as catalogue rows: ReplicaManager.applyDelta (3.0.0..)
applying a metadata image to the local replicas. The decisions are the PARTITION_RECORD /
PARTITION_CHANGE_RECORD of the dump; these lines say the broker followed them, and carry no event."""
from __future__ import annotations

from ingest.catalog import MessagePattern, no_events, row

_RM_DELTA = "ReplicaManager.scala applyDelta @3.0.0.."

PATTERNS: tuple[MessagePattern, ...] = (
    row("kraft.broker.transitioning", _RM_DELTA, "3.0.0", None, "Transitioning",
        r"Transitioning \d+ partition\(s\) to local (?:leaders|followers)\.$", no_events),
    row("kraft.broker.creating_partition", _RM_DELTA, "3.0.0", None, "Creating",
        r"Creating new partition \S+-\d+ with topic id \S+\.$", no_events),
    row("kraft.broker.missing_partition", _RM_DELTA + " (ERROR)", "3.0.0", None, "Expected",
        r"Expected partition \S+-\d+ with topic id \S+ to exist, but it was missing\. Creating\.\.\.$", no_events),
    row("kraft.broker.deleting", _RM_DELTA, "3.0.0", None, "Deleting",
        r"Deleting \d+ partition\(s\)\.$", no_events),
    row("kraft.broker.stopped_fetchers", _RM_DELTA, "3.0.0", None, "Stopped",
        r"Stopped fetchers as part of become-follower for \d+ partitions$", no_events),
    row("kraft.broker.started_fetchers", _RM_DELTA, "3.0.0", None, "Started",
        r"Started fetchers as part of become-follower for \d+ partitions$", no_events),
    # The other applyDelta lines (kafka_2.13 sources jars 3.0.0-4.3.1): the record they follow is in the dump.
    # Its "Skipped the become-leader/-follower state change ..." lines are ZooKeeper's row sc.broker.skipped.
    row("kraft.broker.stopped_fetchers_shutdown", "ReplicaManager.scala applyDelta @3.3.0..", "3.3.0", None, "Stopped",
        r"Stopped fetchers as part of controlled shutdown for \d+ partitions$", no_events),
    row("kraft.broker.fetch_shutting_down", "ReplicaManager.scala applyLocalFollowersDelta TRACE @3.0.0..@3.3.1", "3.0.0",
        "3.3.1", "Unable", r"Unable to start fetching \S+-\d+ with topic ID \S+ because the replica manager is shutting "
        r"down\.$", no_events),
    row("kraft.broker.fetch_leader_dead", "ReplicaManager.scala applyLocalFollowersDelta TRACE @3.0.0.. (3.3+: the "
        "leader as an Option)", "3.0.0", None, "Unable", r"Unable to start fetching \S+-\d+ with topic ID \S+ from leader "
        r"(?:-?\d+|Some\(\d+\)|None) because it is not alive\.$", no_events),
    row("kraft.broker.fetch_error", "ReplicaManager.scala applyLocalFollowersDelta ERROR @3.0.0..", "3.0.0", None, "Unable",
        r"Unable to start fetching \S+-\d+ with topic ID \S+ due to (?:a storage error .*|\w+)$", no_events),
    row("kraft.broker.delete_error", "ReplicaManager.scala applyDelta ERROR @3.0.0.. (stray: @3.0.0..@3.6.2)", "3.0.0", None,
        "Unable", r"Unable to delete (?:stray )?replica \S+-\d+ because (?:the local replica for the partition is in an "
        r"offline log directory.*|we got an unexpected \S+ exception: .*)$", no_events),
)
