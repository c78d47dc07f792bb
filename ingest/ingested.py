"""What an ingest read, as either ingest returns it: the in-memory one (ingest.local) with lists,
the Spark one (jobs.ingest_spark, which adds its frames' bookkeeping) with DataFrames."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ingest.detect import EraEvidence


@dataclass
class Ingested:
    # The canonical events, in recorded order, seq set: a list of state_machine.events.Event, or a
    # DataFrame of schemas.events.EVENT_FIELDS.
    events: Any
    # The quarantined lines: (file, line, reason, raw) tuples, or a DataFrame of cluster,
    # source_file, source_line, reason, raw.
    quarantine: Any
    # Per file: lines, recognized, quarantined, events; copy_of for a copy of another input file.
    files: dict[str, dict] = field(default_factory=dict)
    evidence: dict[str, EraEvidence] = field(default_factory=dict)   # cluster -> what tells its release
    # cluster -> (file, after, before, events read from its records) per KRaft metadata transaction
    # aborted (its events undone) or, before None, open at the input's end (replayed); file None:
    # offsets of the metadata log, else lines of a dump printed without offsets
    # (ingest.transactions.transactions_read).
    transactions: dict[str, list] = field(default_factory=dict)
    events_deduplicated: int = 0   # copies of one metadata record in several nodes' dumps, dropped
    # file -> broker (None: no path or stream names one) -> [its lines' Activity, its log events'],
    # a copy of another file left out (ingest.coverage.merged_files): what input_coverage is made of.
    activity: dict[str, dict] = field(default_factory=dict)

    @property
    def records_read(self) -> int:
        return sum(i["lines"] for i in self.files.values())

    @property
    def lines_recognized(self) -> int:
        return sum(i["recognized"] for i in self.files.values())

    @property
    def records_quarantined(self) -> int:
        return sum(i["quarantined"] for i in self.files.values())
