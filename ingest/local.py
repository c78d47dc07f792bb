"""The ingest without Spark, for local tools and tests: whole files through
`FileParser`, then the same naming, de-duplication and ordering the Spark job applies
(jobs/ingest_spark.py does it with joins and one global sort; this does it in memory)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from ingest.compressed import UnreadableInput, checked_suffix, misnamed_reason, read_bytes
from ingest.coverage import DEFAULT_GAP_MS, activity_of, add_activity
from ingest.detect import EraEvidence
from ingest.envelope import LEADING_REASON
from ingest.ingested import Ingested
from ingest.lines import (COPY_REASON, CROSS_FILE_ORDER, FILE_KIND_RANK, copy_fingerprint, file_kind, is_input,
                          parse_file_lines)
from ingest.transactions import MetadataTransaction, metadata_log_position, metadata_transactions, transactions_read
from state_machine import events as E
from state_machine.events import Event


_NULL_FIRST = -(1 << 62)   # below any clock, epoch or broker id


def read_text_lines(path: str) -> list[str]:
    with open(path, "rb") as f:   # a compressed rotation decoded by its suffix, as Hadoop's reader does
        data = read_bytes(path, f)
    # utf-8-sig: a byte-order mark (a file saved by a Windows editor) is no part of the first
    # line; Hadoop's line reader, which the Spark ingest reads through, drops it too.
    text = data.decode("utf-8-sig", errors="replace")
    # Lines end at \n, \r or \r\n, as Hadoop's line reader ends them: str.splitlines would also end
    # one at a form feed, \x1c-\x1e, \x85 or U+2028/9, which a message may hold, and number every
    # later line differently from the Spark ingest.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":   # the last line's end, or an empty file
        lines.pop()
    misnamed = misnamed_reason(path, lines[0]) if lines and checked_suffix(path) is None else None
    if misnamed is not None:
        raise UnreadableInput(misnamed)
    return lines


def _nulls_first(row: dict, columns: Iterable[str]) -> tuple:
    return tuple(_NULL_FIRST if row.get(c) is None else row[c] for c in columns)   # absent: unknown (a file naming no broker)


def _first_of_epoch(row: dict) -> tuple:
    """Which line of a Raft epoch places its ControllerFailover: the epoch's first batch in
    the metadata log (exactly where its records start), else a KRaft controller.log line that
    names it; then the clock, file and line (the Spark job's min over the same struct)."""
    offset = row["source_offset"]
    return (offset is None, offset or 0, *_nulls_first(row, ("order_ts", "file", "line", "order_epoch", "file_rank")))


def order_key(row: dict) -> tuple:
    """CROSS_FILE_ORDER as a sort key (a null sorts first)."""
    return _nulls_first(row, CROSS_FILE_ORDER)


def ingest_files(paths: Iterable[str], cluster: str, zone: str = "UTC", gap_ms: int = DEFAULT_GAP_MS) -> Ingested:
    """The files' lines as one cluster's events (a list, in recorded order), its quarantined
    lines ((file, line, reason, raw) tuples) and the rest of Ingested; `gap_ms` the shortest hole
    between two lines the files' activity keeps (ingest.coverage)."""
    rows: list[dict] = []
    quarantine, files, evidence = [], {}, EraEvidence()
    names: dict[str, str] = {}
    epochs: dict[int, dict] = {}            # Raft epoch -> its ControllerFailover, at its first batch or line
    batch_epochs: dict[int, int] = {}       # a metadata batch's base offset -> its epoch
    leader_changes: list[tuple[int, int]] = []
    markers: list[tuple] = []               # metadata transaction markers (ingest.transactions.metadata_transactions)
    named: dict[int, set[int]] = {}         # Raft epoch -> the leaders named for it
    first: dict[tuple, str] = {}            # copy fingerprint -> the file read (ingest.lines.copied_files' rule)
    kraft = False
    activity: dict[str, dict] = {}
    for path in sorted(paths):
        lines = read_text_lines(path)
        nonblank = sum(1 for l in lines if l.strip())
        info = files[path] = {"lines": nonblank, "recognized": 0, "quarantined": 0, "events": 0}
        fingerprint = copy_fingerprint(path, cluster, hashlib.blake2b("\n".join(lines).encode()).digest(), nonblank)
        if fingerprint is not None and first.setdefault(fingerprint, path) != path:
            reason = COPY_REASON.format(file=first[fingerprint])
            info.update(quarantined=nonblank, copy_of=first[fingerprint])
            quarantine.extend((path, n, reason, raw) for n, raw in enumerate(lines, 1) if raw.strip())
            continue
        outs = parse_file_lines(path, enumerate(lines, 1), zone, cluster)
        rank = FILE_KIND_RANK[file_kind(path)]
        sub = 0
        times: dict[str | None, tuple[list, list]] = {}   # stream -> its lines' and log events' times
        for o in outs:
            if o.order_ts is not None:
                lines_at, events_at = times.setdefault(o.tag, ([], []))
                lines_at.append(o.order_ts)
                if o.kind == "event":
                    events_at.append(o.order_ts)
            if o.kind in ("quarantine", "leading"):   # whole files: a leading line continues nothing
                info["quarantined"] += o.n_lines
                quarantine.append((path, o.line, o.reason or LEADING_REASON, o.raw))
                continue
            info["recognized"] += o.n_lines
            if o.pattern is not None:
                evidence.matched(o.first, o.last, o.pattern)
            if o.kind == "fact":
                fact = o.data
                if fact.get("fact") == "topic_name":
                    names[fact["topic_id"]] = fact["topic"]
                elif fact.get("fact") == "kafka_version":
                    evidence.versions.append(fact["version"])
                elif fact.get("fact") == "metadata_version":
                    evidence.levels.append(fact["level"])
                elif fact.get("fact") == "metadata_transaction":
                    markers.append((cluster, path, o.line, fact.get("source_offset"), fact["marker"]))
                elif fact.get("fact") == "raft_epoch" and fact.get("epoch") is None:
                    # A LeaderChange record: its batch (the line before) has the epoch, at the same offset.
                    leader_changes.append((fact["offset"], fact["leader"]))
                elif fact.get("fact") == "raft_epoch":
                    epoch, offset = fact["epoch"], fact.get("base_offset")   # no offset: a controller.log line
                    if offset is not None:
                        kraft = True
                        batch_epochs[offset] = epoch
                    if fact.get("leader") is not None:
                        named.setdefault(epoch, set()).add(fact["leader"])
                    row = {"event_type": E.CONTROLLER_FAILOVER, "controller_epoch": epoch, "source_file": path,
                           "source_line": o.line, "source_offset": offset, "order_ts": o.order_ts,
                           "order_epoch": o.order_epoch, "file_rank": rank, "recording_broker": None, "file": path,
                           "line": o.line, "sub": -1}
                    if epoch not in epochs or _first_of_epoch(row) < _first_of_epoch(epochs[epoch]):
                        epochs[epoch] = row
            elif o.kind == "event":
                info["events"] += 1
                row = dict(o.data)
                row.update(order_ts=o.order_ts, order_epoch=o.order_epoch, file_rank=rank, file=path, line=o.line,
                           sub=sub, source_file=path)
                sub += 1
                rows.append(row)
                kraft = kraft or row.get("source_offset") is not None
        for tag, (lines_at, events_at) in times.items():
            add_activity(activity, path, tag, activity_of(lines_at, gap_ms), activity_of(events_at, gap_ms), gap_ms)
    for offset, leader in leader_changes:
        if offset in batch_epochs:
            named.setdefault(batch_epochs[offset], set()).add(leader)
    for epoch, row in epochs.items():
        row["controller_id"] = max(named[epoch]) if epoch in named else None
    # Each Raft epoch once, from the dump or the lines alone; none in a ZooKeeper-to-KRaft
    # migration's (EraEvidence.kraft_mode, jobs.ingest_spark alike).
    evidence.kraft = kraft
    failovers = list(epochs.values()) if evidence.kraft_mode else []
    seen, unique, copies = set(), [], 0
    # One sort: the events in recorded order; of several copies of one, the first is kept.
    for row in sorted(rows + failovers, key=order_key):
        topic_id = row.pop("topic_id", None)
        if row.get("topic") is None and topic_id is not None:
            row["topic"] = names.get(topic_id, topic_id)
        if row["event_type"] == E.UNCLEAN_ELECTION_LOGGED and row.get("detail") is not None:
            key = (row.get("topic"), row.get("partition"), row.get("leader"), row["detail"])  # every quorum member logs it
            if key in seen:
                continue
            seen.add(key)
        if row.get("source_offset") is not None:
            key = (row["source_offset"], row["event_type"])
            if key in seen:
                copies += 1
                continue
            seen.add(key)
        unique.append(row)
    unique, transactions = _without_aborted(unique, metadata_transactions(markers))
    fields = set(Event._fields) - {"cluster", "seq"}   # parsed events carry neither: given here
    events = [Event(**{k: v for k, v in row.items() if k in fields}, cluster=cluster, seq=i)
              for i, row in enumerate(unique)]
    return Ingested(events, quarantine, files, {cluster: evidence}, transactions, copies, activity=activity)


def _without_aborted(rows: list[dict], transactions: list[MetadataTransaction]) -> tuple[list[dict], dict]:
    """The rows less the events of aborted metadata transactions' records (an open one's rows
    are kept), and what was read of each transaction (ingest.transactions.transactions_read). A Raft
    epoch's ControllerFailover is no record of one: it stays, uncounted."""
    if not transactions:
        return rows, {}
    read = dict.fromkeys(range(len(transactions)), 0)
    by_log: dict[str | None, list] = {}
    for i, t in enumerate(transactions):
        by_log.setdefault(t.file, []).append(i)

    def transaction_of(row: dict) -> int | None:
        log, at = metadata_log_position(row["file"], row["line"], row.get("source_offset"))
        return next((i for i in by_log.get(log, ()) if transactions[i].holds(log, at)), None)

    kept = []
    for row in rows:
        i = None if row["event_type"] == E.CONTROLLER_FAILOVER else transaction_of(row)
        if i is None:
            kept.append(row)
            continue
        read[i] += 1
        if not transactions[i].undone:  # still open at the input's end: the controller applied its records
            kept.append(row)
    return kept, transactions_read(transactions, read)


def log_files(root: str | Path) -> list[str]:
    root = Path(root)
    if root.is_file():
        return [str(root)]
    return sorted(str(p) for p in root.rglob("*") if p.is_file() and is_input(p.relative_to(root).as_posix()))
