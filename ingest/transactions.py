"""KRaft's metadata transactions (KIP-868) as both ingests read them: each aborted, or still open
at the input's end, with the records it holds, from the markers the parse finds
(ingest.kraft.transaction_spans, one metadata log at a time)."""
from __future__ import annotations

from typing import Iterable, NamedTuple

from ingest.kraft import metadata_log_position, transaction_spans


class MetadataTransaction(NamedTuple):
    """A metadata transaction aborted, or still open at the input's end (transaction_spans), in
    one cluster's metadata log: `file` None, positions are offsets of the log every node's dump
    holds; else lines of that dump, printed without offsets (metadata_log_position)."""
    cluster: str | None
    file: str | None
    after: int
    before: int | None   # None: open at the input's end, its records replayed

    def holds(self, file: str | None, at: int) -> bool:
        """Is the record at `at` of log `file` one of the transaction's?"""
        return file == self.file and self.after < at and (self.before is None or at < self.before)

    @property
    def undone(self) -> bool:
        return self.before is not None


def metadata_transactions(markers: Iterable[tuple]) -> list[MetadataTransaction]:
    """The transactions of (cluster, file, line, source offset, marker) markers, each a
    metadata_transaction fact, in the order their logs' first markers come."""
    by_log: dict[tuple, list] = {}
    for cluster, file, line, offset, marker in markers:
        log, at = metadata_log_position(file, line, offset)
        by_log.setdefault((cluster, log), []).append((at, marker))
    return [MetadataTransaction(cluster, log, after, before)
            for (cluster, log), found in by_log.items() for after, before in transaction_spans(found)]


def transactions_read(transactions: list[MetadataTransaction], read: dict[int, int]) -> dict[str | None, list[tuple]]:
    """cluster -> (file, after, before, events read from its records) per transaction, `read`
    counting them by the transaction's index (Ingested.transactions)."""
    out: dict[str | None, list[tuple]] = {}
    for i, t in enumerate(transactions):
        out.setdefault(t.cluster, []).append((t.file, t.after, t.before, read.get(i, 0)))
    return out
