"""KRaft's metadata transactions (KIP-868) as both ingests read them: each aborted, or still open
at the input's end, with the records it holds, from the markers the parse finds
(`transaction_spans`, one metadata log at a time)."""
from __future__ import annotations

from typing import Iterable, NamedTuple


# KIP-868 metadata transactions (3.6+: bootstrap records, ZK migration). The records between a
# BeginTransactionRecord and its AbortTransactionRecord are undone (OffsetControlManager reverts
# to the offset before the Begin; brokers never publish them); a failed-over controller aborts the
# transaction its predecessor left open. The markers are facts: which records an abort undoes is
# known only once the whole log is read (`transaction_spans`).
TRANSACTION_BEGIN, TRANSACTION_END, TRANSACTION_ABORT = "begin", "end", "abort"


def metadata_log_position(file: str, line: int, offset: int | None) -> tuple[str | None, int]:
    """(log, position) of a record for `transaction_spans`: (None, its offset) in the cluster's
    metadata log, shared by every node's dump; in a dump printed without offsets, (its file,
    its line)."""
    return (None, offset) if offset is not None else (file, line)


def transaction_spans(markers) -> list[tuple[int, int | None]]:
    """(after, before) of each aborted transaction of one metadata log: the records at positions
    strictly between are undone. `markers` are (position, marker) pairs, the position an offset
    (or, in a dump printed without record metadata, a line of one file); copies from several
    nodes' dumps count once. An abort undoes back to the marker before it (its Begin; where the
    input lacks the Begin, the End or Abort before that, or the start of the input: -1).
    Last, (its Begin, None) for a transaction still open at the input's end: its records are
    replayed (the active controller applies them at once), though a later input may abort it."""
    spans, previous = [], (-1, None)
    for position, marker in sorted(set(markers)):
        if marker == TRANSACTION_ABORT:
            spans.append((previous[0], position))
        previous = position, marker
    if previous[1] == TRANSACTION_BEGIN:
        spans.append((previous[0], None))
    return spans


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
