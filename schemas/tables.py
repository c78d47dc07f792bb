"""The Delta tables the audit writes, one pure-Python definition each (Spark StructType
via `table_struct(name)`), with the table properties they are created with."""
from __future__ import annotations

from schemas.types import Field, struct_type

KEY = (
    Field("cluster", "string", False, "Cluster name."),
    Field("topic", "string", False, "Topic."),
    Field("partition", "int", False, "Partition."),
)

PARTITION_TIMELINE = KEY + (
    Field("ordinal", "int", False, "Position of the row in the partition's timeline (0-based)."),
    Field("seq", "long", False, "seq of the event that caused the change."),
    Field("valid_from", "timestamp", True, "When the state began (time of the causing event)."),
    Field("valid_to", "timestamp", True, "When the next state began; null on the current row."),
    Field("partition_state", "string", False, "NewPartition, OnlinePartition, OfflinePartition or NonExistentPartition."),
    Field("leader", "int", False, "Leader broker id, -1 = none."),
    Field("leader_epoch", "int", False, "Leader epoch (-1 before the first election)."),
    Field("isr", "array<int>", False, "In-sync replicas in recorded order."),
    Field("replicas", "array<int>", False, "Assigned replicas (AR) in order; OAR + RAR during a reassignment."),
    Field("controller_epoch", "int", True, "Epoch of the controller that wrote the leader/ISR (KRaft: the Raft epoch "
                                           "of the record, null only before the first epoch is known)."),
    Field("election", "string", True, "initial, offline, unclean, reassign, preferred, controlled_shutdown, noop, or null."),
    Field("source", "string", False, "Provenance of the causing event: file:line, file@offset or seq:N."),
    Field("inferred", "boolean", False, "True when the replay inferred this change and no record has shown its "
                                        "values since (a record of the same leader, leader epoch and ISR makes it "
                                        "false; valid_from and source stay the inferred change's)."),
    Field("elr", "array<int>", True, "KRaft: eligible leader replicas (KIP-966; empty where the cluster does not "
                                     "enable them); null in ZooKeeper mode and on rows written before this column."),
    Field("last_known_elr", "array<int>", True, "KRaft: the last known leader KIP-966 keeps while the partition has "
                                                "none; null as for elr."),
    Field("leader_recovery_state", "string", True, "KRaft: RECOVERED, or RECOVERING after an unclean election until "
                                                   "the leader reports recovery; null as for elr."),
    Field("target_replicas", "array<int>", True, "The target replicas of a reassignment in flight (ZooKeeper mode: "
                                                 "RAR; KRaft: replicas less removingReplicas while a replica is added "
                                                 "or removed); null when none and on rows written before this column."),
    Field("inferred_values", "array<string>", True, "Which of the row's values no record has shown since the replay "
                                                    "inferred them (leader, leader_epoch, isr, replicas, in that "
                                                    "order), on a recorded row too; a later audit carries them, so its "
                                                    "checks judge those values inferred. Null on rows written before "
                                                    "this column: a later audit then takes every value of an inferred "
                                                    "row for inferred, and none of a recorded row's."),
)

REPLICA_TIMELINE = KEY + (
    Field("ordinal", "int", False, "Position of the row among the partition's replica rows (0-based)."),
    Field("seq", "long", False, "seq of the event that caused the change."),
    Field("valid_from", "timestamp", True, "When the replica entered the state."),
    Field("replica", "int", False, "Replica (broker id)."),
    Field("replica_state", "string", False, "One of the seven replica states."),
    Field("source", "string", False, "Provenance of the causing event."),
    Field("inferred", "boolean", False, "True when the replay inferred the change."),
)

VIOLATIONS = KEY + (
    Field("ordinal", "int", False, "Position among the partition's violations (0-based)."),
    Field("seq", "long", False, "seq of the event that shows the violation."),
    Field("rule", "string", False, "Rule code (state_machine.checks.RULES)."),
    Field("severity", "string", False, "error, warning or info."),
    Field("event_time", "timestamp", True, "Time of the event that shows it."),
    Field("detail", "string", False, "What is wrong, with the values: a sentence rendered from `facts`."),
    Field("evidence", "array<string>", False, "Provenance of the records that prove it, the offending one first."),
    Field("facts", "map<string,string>", True, "The values the check judged, by name (`facts['expected_leader']`): "
                                               "`case` (which finding of the rule), `era`, and the keys docs/rules.md "
                                               "lists for its case. Null on rows written before this column."),
)

QUARANTINE = (
    Field("cluster", "string", True, "Cluster, if the record named one."),
    Field("source_file", "string", False, "File the record came from."),
    Field("source_line", "long", False, "1-based line."),
    Field("reason", "string", False, "Why the record could not be used."),
    Field("raw", "string", False, "The record, verbatim."),
    Field("run_id", "string", False, "The audit run that quarantined it."),
)

AUDIT_RUNS = (
    Field("run_id", "string", False, "Unique id of the run."),
    Field("started_at", "timestamp", False, "Start of the run (UTC)."),
    Field("duration_s", "double", False, "Wall time of the run."),
    Field("inputs", "array<string>", False, "Input paths."),
    Field("kafka_versions", "string", False, "Era per cluster, as JSON, with `default` (the era of a cluster no option, "
                                             "manifest or line chose one for) and `chosen_by` (per cluster, what chose "
                                             "its era: --kafka-version, a capture's manifest.json, or the releases its "
                                             "lines fit)."),
    Field("records_read", "long", False, "Input lines read (blank lines aside): canonical-event lines and log lines, counted apart from the parsing."),
    Field("lines_recognized", "long", False, "Input lines understood: an event line, a log record (with its glued continuation lines) "
                                             "the catalogue understood, or a line of a logger the audit does not read."),
    Field("records_quarantined", "long", False, "Input lines quarantined (each with file, line and reason in `quarantine`)."),
    Field("counts_reconcile", "boolean", False, "records_read = lines_recognized + records_quarantined."),
    Field("events_replayed", "long", False, "Canonical events replayed: read as such, or parsed from logs."),
    Field("events_deduplicated", "long", False, "KRaft metadata records seen in more than one node's dump, replayed once."),
    Field("input_files", "string", False, "Per input file, as JSON: cluster, lines, recognized, quarantined, events, "
                                          "and copy_of: the input file it is a copy of, whose lines are read in its "
                                          "place. Each log file's broker, kind and time range are in input_coverage."),
    Field("partitions", "long", False, "Partitions replayed."),
    Field("violations_by_rule", "string", False, "Counts per rule, as JSON."),
    Field("quality_gates", "string", False, "Great Expectations results per suite, as JSON."),
    Field("versions", "string", False, "controller-replay, pyspark, delta-spark, great-expectations versions, as JSON."),
    Field("time_windows", "string", True, "Per cluster, the first and last event time of the run's input (UTC, ISO 8601), "
                                          "as JSON: the run's rows replaced the replayed tables' rows of the cluster between "
                                          "them. Null on runs recorded before this column."),
    Field("controller_changes", "string", True, "Per cluster, the controller changes of the run's input (ControllerFailover "
                                                "with its epoch, KRaftControllerRegistered), in recorded order, as JSON: "
                                                "[time (UTC, ISO 8601), controller epoch, controller]. A later audit of the "
                                                "cluster carries the highest epoch changed to before its window "
                                                "(ControllerEpochCarried), though no row shows it. Null on runs recorded "
                                                "before this column."),
    Field("broker_changes", "string", True, "Per cluster, the liveness changes of the run's input (BrokerStartup, "
                                            "BrokerFailure, ControlledShutdown, ControllerFailover with its list of live "
                                            "brokers), in recorded order, as JSON: [time (UTC, ISO 8601), event type, "
                                            "brokers]. A later audit of the cluster carries which brokers they left alive "
                                            "and dead before its window (LivenessCarried). Null on runs recorded before "
                                            "this column."),
    Field("config_changes", "string", True, "Per cluster, the unclean.leader.election.enable settings of the run's input "
                                            "(ConfigChange, ConfigObserved), in recorded order, as JSON: [time (UTC, ISO "
                                            "8601), topic (null: the cluster's default), value (null: the override "
                                            "removed)]. A later audit of the cluster carries the last of each before its "
                                            "window (ConfigObserved). Null on runs recorded before this column."),
    Field("aborted_transactions", "string", True, "Per cluster, each KRaft metadata transaction (KIP-868) the input shows "
                                                  "aborted, as JSON: [file (null: positions are offsets of the metadata log; "
                                                  "else lines of that dump, printed without offsets), position of the marker "
                                                  "before the AbortTransactionRecord (its BeginTransactionRecord; -1: the "
                                                  "input's start), position of the AbortTransactionRecord, events read from "
                                                  "the records between them (undone, not replayed)]. Null on runs recorded "
                                                  "before this column."),
    Field("open_transactions", "string", True, "Per cluster, each KRaft metadata transaction (KIP-868) still open at the "
                                               "input's end, as JSON: [file (null: positions are offsets of the metadata "
                                               "log; else lines of that dump), position of its BeginTransactionRecord, "
                                               "events read from its records (replayed: the active controller applied "
                                               "them; an abort in a later input does not undo their rows)]. Null on runs "
                                               "recorded before this column."),
    Field("rolled_back_runs", "string", True, "Runs that had died while writing their tables, rolled back by this run "
                                              "before it read them, as JSON: run id -> the tables their rows were "
                                              "taken from. Null on runs recorded before this column."),
    Field("seq_repeats", "string", True, "Per cluster, how many canonical events hold a seq another event of the "
                                         "cluster holds, as JSON (the order among events of one seq is not "
                                         "defined). Null on runs recorded before this column."),
    Field("input_coverage", "string", True, "Per cluster, how complete its log files are, as JSON (ingest/coverage.py): "
                                            "`brokers`, each broker's files (file, kind, first and last line time, "
                                            "UTC) and its first and last; `without_broker`, files no path or stream "
                                            "names a broker of; `missing`, brokers with no file that the controller "
                                            "names (liveness and controller changes) or the events name as a "
                                            "leader, an ISR member or a replica; `outages`, each broker's spans down "
                                            "(BrokerFailure or ControlledShutdown, or a controller's list of live "
                                            "brokers without it, to BrokerStartup or a list with it); `gaps`, each "
                                            "span of at least `gap_minutes` (--input-gap-minutes, default 10) in "
                                            "which a broker's log files hold no line, it is not down, and other "
                                            "brokers' (`others`) record events, and each missing broker's span "
                                            "(`no_files`). A violation inside a gap says so in its facts "
                                            "(`input_gap`, `input_gap_brokers`). Null on runs recorded before this "
                                            "column."),
)

# The kinds of election partition_timeline.election names (state_machine.selectors.ElectionKind;
# tests/core/test_generated_docs.py holds the two to the same list).
ELECTION_KINDS = ("initial", "offline", "unclean", "reassign", "preferred", "controlled_shutdown", "noop")

PARTITION_AVAILABILITY = KEY + (
    Field("window_start", "timestamp", False, "Start of the window (UTC, the start of a day or an hour: the "
                                              "audit's --availability-window)."),
    Field("window_end", "timestamp", False, "End of the window (exclusive)."),
    Field("exists_s", "double", False, "Seconds of the window the partition existed: elected and not deleted "
                                       "(not NewPartition or NonExistentPartition), up to the last event time the "
                                       "cluster's audits read."),
    Field("offline_s", "double", False, "Seconds it was offline: OfflinePartition, or no leader (-1)."),
    Field("under_replicated_s", "double", False, "Seconds its ISR was smaller than its replicas."),
    Field("isr_of_one_s", "double", False, "Seconds its ISR held one replica."),
    *(Field(f"{kind}_elections", "int", False, f"Elections of kind `{kind}` inside the window "
                                               "(partition_timeline.election).") for kind in ELECTION_KINDS),
)

BROKER_FAILURES = (
    Field("cluster", "string", False, "Cluster name."),
    Field("broker", "int", False, "The broker that failed."),
    Field("failed_at", "timestamp", False, "When the controller recorded its failure (BrokerFailure)."),
    Field("partitions_led", "int", False, "Partitions it led then (partition_timeline's row in force at failed_at)."),
    Field("partitions_moved", "int", False, "Of those, the partitions the controller gave another leader: their "
                                            "next change of leader names a broker."),
    Field("partitions_offline", "int", False, "Of those, the partitions the controller left without a leader (-1): "
                                              "no replica it could elect."),
    Field("partitions_unmoved", "int", False, "Of those, the partitions whose leader no later row changes (the broker "
                                              "came back first, or the input ends)."),
    Field("first_moved_at", "timestamp", True, "When the first of the moved partitions got its new leader; null "
                                               "when none moved."),
    Field("last_moved_at", "timestamp", True, "When the last of them did; null when none moved."),
    Field("reaction_s", "double", True, "The controller's reaction time: seconds from failed_at to last_moved_at, "
                                        "how long it took to elect new leaders for the partitions the broker led; "
                                        "null when none moved."),
)

TABLES: dict[str, tuple[Field, ...]] = {
    "partition_timeline": PARTITION_TIMELINE,
    "replica_timeline": REPLICA_TIMELINE,
    "violations": VIOLATIONS,
    "quarantine": QUARANTINE,
    "audit_runs": AUDIT_RUNS,
    "partition_availability": PARTITION_AVAILABILITY,
    "broker_failures": BROKER_FAILURES,
}

# Natural keys of the tables MERGEd on them: a re-run of the same input writes onto the same
# rows. (The replayed tables, keyed by cluster, topic, partition and ordinal, are written by
# time window: REPLAY_TIMES.)
MERGE_KEYS: dict[str, tuple[str, ...]] = {
    "quarantine": ("source_file", "source_line", "raw"),
    "audit_runs": ("run_id",),
}

# The time that places each replayed table's row in its cluster's history: a run's rows
# replace the rows of its clusters inside the run's time window (jobs.writes.write_replayed).
REPLAY_TIMES: dict[str, str] = {
    "partition_timeline": "valid_from",
    "replica_timeline": "valid_from",
    "violations": "event_time",
}

# The tables derived from partition_timeline (jobs.availability), and the time that orders their
# rows. Each run writes them again whole for its clusters, from the timeline rows it writes.
DERIVED_TIMES: dict[str, str] = {
    "partition_availability": "window_start",
    "broker_failures": "failed_at",
}

# Views over the tables, as SQL any engine runs: `controller-replay sql` registers them.
VIEWS: dict[str, str] = {
    # Rounded to the microsecond the partitions' seconds are exact to: a sum of doubles is not.
    "topic_availability": (
        "SELECT cluster, topic, window_start, window_end, COUNT(*) AS partitions,\n"
        + ",\n".join(f"       ROUND({agg}({col}), 6) AS {name}" for agg, col, name in (
            ("SUM", "exists_s", "exists_s"), ("SUM", "offline_s", "offline_s"), ("MAX", "offline_s", "max_offline_s"),
            ("SUM", "under_replicated_s", "under_replicated_s"), ("SUM", "isr_of_one_s", "isr_of_one_s")))
        + ",\n" + ",\n".join(f"       SUM({k}_elections) AS {k}_elections" for k in ELECTION_KINDS)
        + "\nFROM partition_availability\nGROUP BY cluster, topic, window_start, window_end"),
}
VIEW_SOURCES: dict[str, tuple[str, ...]] = {"topic_availability": ("partition_availability",)}

# Partition columns of the tables this project creates (a table made by an earlier version keeps
# its layout). By cluster, the replayed tables' writes (an overwrite of the run's clusters) touch
# only their clusters' files, so audits of different clusters into one warehouse do not conflict.
PARTITION_COLUMNS: dict[str, tuple[str, ...]] = {name: ("cluster",) for name in (*REPLAY_TIMES, *DERIVED_TIMES)}

TABLE_PROPERTIES: dict[str, str] = {
    "delta.appendOnly": "false",
    "delta.checkpointInterval": "10",
    "controller_replay.schema_version": "1",
}


def table_struct(name: str, comments: bool = False):
    return struct_type(TABLES[name], comments)
