"""The parse of a text source's splits: batches of (raw, file, block[, other]) lines, each split
(a piece: file and block) in file order, in; parse rows (ingest.parse_rows) out: events, facts,
understood / ignored / quarantined records, and one `piece` row per split with its line count,
last clock value and controller epoch, the digest of its lines, and what ingest.counts counted
of its rows. No Spark: jobs/ingest_spark.py runs `SplitParser.rows` in mapInArrow.

Lines go through ingest.lines.FileParser one at a time where they must. Runs of lines go at
once: those ingest.fast reads (complete one-line records), heads of loggers the audit does not
read (the `other` column: jobs.ingest_spark.other_logger_heads), plain continuation lines
(ingest.envelope.plain_continuations), and canonical-event JSON lines (ingest.fast_events);
each gives the rows that line by line would."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from urllib.parse import unquote

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.compressed import checked_suffix, misnamed_reason
from ingest.counts import count_rows, piece_json
from ingest.coverage import DEFAULT_GAP_MS
from ingest.envelope import Clock, plain_continuations
from ingest.fast import FastParser
from ingest.fast_events import all_json_objects, read_events, replayable
from ingest.lines import FILE_KIND_RANK, FileParser
from ingest.parse_rows import (RunRows, concatenated, one_piece, parse_row_schema, pieces_apart, pieces_of,
                               rows_batch)
from schemas.events import EVENT_FIELD_NAMES
from schemas.validate import event_reason, load_json

PIECES_PER_TASK_BITS = 32   # a piece key (`piece`): the task's partition in the bits above these
COUNTED_ROWS = 100_000   # parse rows a worker holds to count at once (ingest.counts): ten batches


def valid_utf8(raw: pa.Array) -> pa.Array:
    """A batch of lines with each byte sequence that is not UTF-8 as U+FFFD, as the local
    reader's errors="replace" reads it. Arrow checks a whole batch at once, in the workers,
    far cheaper than Spark's make_valid_utf8 in the JVM; nearly every batch is valid, and only the
    others are decoded line by line."""
    try:
        raw.validate(full=True)
        return raw
    except pa.ArrowInvalid:
        return pa.array([None if b is None else b.decode("utf-8", "replace") for b in raw.view(pa.binary()).to_pylist()],
                        pa.string())


def listed_paths(file_paths: pa.Array) -> list[str]:
    """Each row's file as the listing names it (`file:/logs/kafka logs/...`): the text source's
    file path is the file's URI, where a space is %20 and a % is %25, and the clusters by file, the
    per-file accounting and every row's provenance use the listing's form. A batch holds a few files."""
    names = {uri: unquote(uri) for uri in pc.unique(file_paths).to_pylist()}
    if len(names) == 1:
        return [*names.values()] * len(file_paths)
    return [names[uri] for uri in file_paths.to_pylist()]


class LinesDigest:
    """The digest of a piece's lines (ingest.lines.copied_files), fed Arrow slices of them: the
    hash of their bytes and the hash of their lengths (where each line ends), read from the
    array's buffers (no Python string of a line); the same however the lines are cut into batches.
    SHA-256: OpenSSL runs it on the CPU's SHA instructions, which makes it faster than blake2b
    (the digest is compared only within one run, never stored)."""

    def __init__(self):
        self.text, self.lengths = hashlib.sha256(), hashlib.sha256()

    def update(self, lines: pa.Array) -> None:
        if not pa.types.is_string(lines.type):
            lines = lines.cast(pa.string())
        if not len(lines):
            return
        offsets = np.frombuffer(lines.buffers()[1], dtype="<i4", count=len(lines) + 1, offset=4 * lines.offset)
        if offsets[-1] > offsets[0]:
            self.text.update(memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]])
        self.lengths.update(np.diff(offsets).astype("<i8").tobytes())

    def hexdigest(self) -> str:
        return hashlib.sha256(self.text.digest() + self.lengths.digest()).hexdigest()


class _LineRuns:
    """What the parse takes of a batch's lines a run at once besides ingest.fast's lines: runs
    of heads of loggers the audit does not read (OTHER: the `other` column), and of plain
    continuation lines (GLUED: ingest.envelope.plain_continuations); each run within one piece."""

    ONE, OTHER, GLUED = 0, 1, 2

    def __init__(self, batch: pa.RecordBatch, clock, starts: np.ndarray):
        raw = batch.column("raw")
        self.starts = starts   # does each line certainly begin a new record (FastParser.scan)
        n = len(raw)
        self.kind = np.where(plain_continuations(raw), self.GLUED, self.ONE).astype(np.int8)
        self.stamps_ms = None
        if "other" in batch.schema.names:
            other = np.asarray(pc.fill_null(batch.column("other"), False).to_numpy(zero_copy_only=False), bool)
            if other.any():
                self.kind[other] = self.OTHER
                at = np.flatnonzero(other)
                self.stamps_ms = np.full(n, np.nan)
                self.stamps_ms[at] = clock.stamps_ms(pc.utf8_slice_codeunits(raw.take(pa.array(at)), 1, 24))
        uris, offsets = batch.column("file"), batch.column("block")
        self.new_piece = np.ones(n, bool)
        if n > 1:
            self.new_piece[1:] = ~np.asarray(pc.and_(pc.equal(uris.slice(1), uris.slice(0, n - 1)),
                                                     pc.equal(offsets.slice(1), offsets.slice(0, n - 1)))
                                             .to_numpy(zero_copy_only=False), bool)

    def between(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """(a, b, kind) of each run in lines start..end-1."""
        if start >= end:
            return []
        kind = self.kind[start:end]
        cut = np.flatnonzero((kind[1:] != kind[:-1]) | self.new_piece[start + 1:end]) + start + 1
        bounds = [start, *cut.tolist(), end]
        return [(a, b, int(self.kind[a])) for a, b in zip(bounds, bounds[1:])]


def _number(value: float) -> int | None:
    """A running clock's or epoch's value as the line-by-line path keeps it (NaN: none yet)."""
    return None if np.isnan(value) else int(value)


class _Piece:
    """What the parse knows of the piece it is reading: its lines so far, its events, and
    whether they are in recorded order within it (SplitParser._follows)."""

    __slots__ = ("key", "parser", "local", "nonblank", "misnamed", "events", "first", "last", "broker", "in_order")

    def __init__(self, key: tuple):
        self.key, self.parser = key, None
        self.local = self.nonblank = self.events = 0
        self.misnamed = self.first = self.last = self.broker = None
        self.in_order = True


class SplitParser:
    """One task's parse: `rows` takes its split batches, in each piece's file order, once.

    `clusters`: file -> cluster of its log lines (canonical events name their own), else
    `default_cluster`, else "default". `fmt`: auto, events or logs. `use_fast`: let ingest.fast
    and ingest.fast_events read the lines they can (the output is the same; tests compare the two).
    `gap_ms`: the shortest hole between two lines the pieces' activity keeps (ingest.coverage)."""

    def __init__(self, clusters: dict[str, str], default_cluster: str | None, zone: str, fmt: str,
                 use_fast: bool = True, gap_ms: int = DEFAULT_GAP_MS):
        self.clusters, self.default_cluster, self.zone, self.fmt = clusters, default_cluster, zone, fmt
        self.gap_ms = gap_ms
        self.fallback = default_cluster or "default"
        self.schema = parse_row_schema()
        self.names = self.schema.names
        self.event_names = list(EVENT_FIELD_NAMES)
        self.built: list[list] = []   # the rows built one at a time, until the batch's end
        self.width, self.n_event = len(self.names), len(self.event_names)
        self.i_cluster, self.i_file, self.i_line = (self.event_names.index(n) for n in ("cluster", "source_file", "source_line"))
        self.i_broker = self.event_names.index("recording_broker")
        # A valid canonical event's EXTRA columns: kind event, one line, canonical; file, block
        # and local line are set per row.
        self.canonical_tail = [None] * (self.width - self.n_event)
        for name, value in (("kind", "event"), ("n_lines", 1), ("canonical", True)):
            self.canonical_tail[self.names.index(name) - self.n_event] = value
        self.i_file_x, self.i_block, self.i_local = (self.names.index(n) for n in ("file", "block", "local_line"))
        self.piece: _Piece | None = None
        self.digests: dict[tuple, LinesDigest] = {}   # (file, block) -> its lines' digest so far (copied_files)
        self.fast_parser = FastParser(Clock(zone)) if use_fast and fmt != "events" else None
        self.fast_rows, self.ignored_rows = RunRows(None, self.schema), RunRows("ignored", self.schema)
        # A batch's ingest.fast lines' times, controller epochs (NaN: a broker's line) and recorders,
        # and which record an event.
        self.fast_numbers: list[np.ndarray] = []
        self.fast_events = use_fast and fmt != "logs"
        self.event_columns = [(i, f.type) for i, f in enumerate(self.schema) if f.name in EVENT_FIELD_NAMES]

    def rows(self, batches: Iterator[pa.RecordBatch], first_key: int = 0) -> Iterator[pa.RecordBatch]:
        """The parse rows of `batches`, counted (ingest.counts) and keyed: each row's `piece` is
        its piece's key, `first_key` plus the piece's place among those read here, and each piece's
        row comes last, when all of the piece's rows are counted (a piece's row can come before
        some of its rows), with its file and its counts."""
        i_counts, i_file, i_block, i_piece = (self.names.index(n) for n in ("counts", "file", "block", "piece"))
        schema = self.schema
        counts: dict[tuple, dict] = {}
        pieces = []
        keys: dict[tuple, int] = {}

        def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                for uri, block in pieces_of(batch.column("file"), batch.column("block")):
                    keys.setdefault((unquote(uri), block), first_key + len(keys))
                yield batch

        def keyed(batch: pa.RecordBatch, file: pa.Array) -> pa.RecordBatch:
            files, blocks = batch.column(i_file), batch.column(i_block)
            one = one_piece(files, blocks)
            if one is not None:   # a run of fast lines (most batches): one key
                column = pa.repeat(pa.scalar(keys[one], pa.int64()), batch.num_rows)
            else:
                column = pa.array([keys[p] for p in zip(files.to_pylist(), blocks.to_pylist())], pa.int64())
            batch = batch.set_column(i_piece, schema.field(i_piece), column)
            return batch.set_column(i_file, schema.field(i_file), file)

        uncounted: list[pa.RecordBatch] = []   # counted together: a count's fixed cost is most of a batch's
        held_rows = 0
        for batch in self.parse(read(batches)):
            some, batch = pieces_apart(batch)
            if some is not None:
                pieces.append(some)
            if batch.num_rows:
                uncounted.append(batch)
                held_rows += batch.num_rows
                if held_rows >= COUNTED_ROWS:
                    count_rows(uncounted, counts, self.gap_ms)
                    uncounted.clear()
                    held_rows = 0
                yield keyed(batch, pa.nulls(batch.num_rows, pa.string()))
        count_rows(uncounted, counts, self.gap_ms)
        if pieces:
            held = pa.Table.from_batches(pieces)
            found = [piece_json(counts.get(key)) for key in zip(held.column("file").to_pylist(), held.column("block").to_pylist())]
            held = held.set_column(i_counts, schema.field(i_counts), pa.array(found, pa.string()))
            yield from (keyed(b, b.column(i_file)) for b in held.to_batches())

    def parse(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """The parse rows of `batches`, uncounted and unkeyed: a batch out per batch in."""
        rows, schema = self.built, self.schema
        for batch in batches:
            i_raw = batch.schema.get_field_index("raw")
            batch = batch.set_column(i_raw, batch.schema.field(i_raw), valid_utf8(batch.column(i_raw)))
            files = listed_paths(batch.column("file"))
            blocks = batch.column("block").to_pylist()
            self._digest(files, blocks, batch.column("raw"))
            if self.fast_events and all_json_objects(batch.column("raw")):
                # Canonical events: each piece's run of lines at once.
                raws = batch.column("raw").to_pylist()
                out, i, n = [], 0, len(raws)
                while i < n:
                    j = i + 1
                    while j < n and files[j] == files[i] and blocks[j] == blocks[i]:
                        j += 1
                    run = self._events_run(files[i], blocks[i], raws[i:j])
                    if run is not None:
                        out.append(run)
                    i = j
                yield rows_batch(rows, self.width, schema)
                rows.clear()
                yield from out
                continue
            fast_parser = self.fast_parser
            fast, starts = fast_parser.scan(batch.column("raw")) if fast_parser else (None, None)
            runs = _LineRuns(batch, fast_parser.clock, starts) if fast_parser else None
            if fast is None:
                self._lines_between(files, blocks, batch.column("raw"), 0, len(batch), runs)
            else:
                # A fast line keeps that path only if the line after it, in the same piece,
                # begins a new record (nothing can be glued to it); the last line's next is in
                # the next batch. Whole arrays at once: these are every line of a TRACE log.
                n, raw = len(batch), batch.column("raw")
                at = fast.column("idx").to_numpy()
                rank = np.full(n, -1, np.int64)
                rank[at] = np.arange(len(at))
                keep = rank >= 0
                uris, offsets = batch.column("file"), batch.column("block")
                same_piece = pc.and_(pc.equal(uris.slice(1), uris.slice(0, n - 1)),
                                     pc.equal(offsets.slice(1), offsets.slice(0, n - 1)))
                keep[:-1] &= starts[1:] & same_piece.to_numpy(zero_copy_only=False)
                keep[-1] = False
                edges = np.flatnonzero(np.diff(np.concatenate(([0], keep.astype(np.int8), [0])))).tolist()
                done = 0
                self.fast_numbers[:] = [fast.column(c).to_numpy().astype(np.float64)
                                        for c in ("line_ms", "line_epoch", "line_broker")]
                self.fast_numbers.append(pc.equal(fast.column("kind"), "event").to_numpy())
                for start, end in zip(edges[0::2], edges[1::2]):   # each run of fast lines
                    self._lines_between(files, blocks, raw, done, start, runs)
                    if not self._fast_run(files[start], blocks[start], fast, int(rank[start]), end - start):
                        self._lines_between(files, blocks, raw, start, end, runs)
                    done = end
                self._lines_between(files, blocks, raw, done, n, runs)
            # One batch for the input batch: each batch out costs a pack and a count.
            yield concatenated([*self.fast_rows.build(fast), *self.ignored_rows.build(), rows_batch(rows, self.width, schema)])
            rows.clear()
        self._close_piece()
        yield rows_batch(rows, self.width, schema)

    def _emit(self, values: dict) -> None:   # the rare rows (pieces, quarantined JSON lines)
        self.built.append([values.get(n) for n in self.names])

    def _log_rows(self, outs, file: str, block: int, cluster: str, rank: int) -> None:
        # The hot path: one row per parser output, built positionally (event fields, then EXTRA).
        event_names, n_event, piece, built = self.event_names, self.n_event, self.piece, self.built
        i_cluster, i_file, i_line = self.i_cluster, self.i_file, self.i_line
        sub = 0
        for o in outs:
            data = o.data
            if data is not None and o.kind == "event":
                row = [data.get(n) for n in event_names]
                # A log event's source_file and source_line are its file and line, set once
                # the lines are numbered (jobs.ingest_spark._log_events): not a copy of the path in every row.
                row[i_cluster], row[i_file], row[i_line] = cluster, None, None
                topic_id, fact = data.get("topic_id"), None
                index = piece.events
                piece.events = index + 1
                if piece.in_order:
                    piece.in_order = self._follows(o.line, sub, row[self.i_broker], o.order_ts, o.order_epoch)
            else:
                row = [None] * n_event
                row[i_cluster] = cluster
                topic_id, fact, index = None, (json.dumps(data) if data is not None else None), None
            row += (o.kind, file, block, o.line, o.n_lines, o.tag, o.order_ts, o.order_epoch, rank, sub, o.pattern,
                    topic_id, fact, o.reason, o.raw, False, None, index, None, None)   # (piece: `rows`)
            built.append(row)
            sub += 1

    def _follows(self, line: int, sub: int, broker, order_ts, order_epoch) -> bool:
        """Does a log event at (line, sub), recorded by `broker`, come after the piece's
        previous one in recorded order, whatever clock and epoch the pieces before carry?
        The running clock and epoch never fall within a piece, so it does when the line and
        sub rise and the recording broker is the piece's one (the sort keys between them).
        Keeps the piece's first and last event's (clock, epoch, line, sub)."""
        piece = self.piece
        last = piece.last
        piece.last = [order_ts, order_epoch, line, sub]
        if last is None:
            piece.broker, piece.first = broker, piece.last
            return True
        return (line, sub) > (last[2], last[3]) and broker == piece.broker

    def _close_piece(self) -> None:
        piece = self.piece
        if piece is None:
            return
        file, block = piece.key
        cluster = self.clusters.get(file, self.fallback)
        parser = piece.parser
        if parser is not None:
            rank = FILE_KIND_RANK[parser.kind]
            self._log_rows(parser.close(), file, block, cluster, rank)
            order_ts, order_epoch = parser.order_ts, parser.order_epoch
        else:
            order_ts = order_epoch = rank = None
        # piece_event, file_rank, recording_broker and fact (the first and last log event's
        # clock, epoch, line and sub): for jobs.ingest_spark.in_recorded_order.
        in_order = piece.in_order and piece.events
        self._emit({"kind": "piece", "file": file, "block": block, "local_line": piece.local,
                    "n_lines": piece.nonblank, "order_ts": order_ts, "order_epoch": order_epoch, "cluster": cluster,
                    "q_reason": piece.misnamed, "digest": self.digests.pop(piece.key).hexdigest(),
                    "piece_event": piece.events if piece.in_order else None,
                    "file_rank": rank if in_order else None, "recording_broker": piece.broker if in_order else None,
                    "fact": json.dumps([piece.first, piece.last]) if in_order else None})

    def _digest(self, files: list[str], blocks: list[int], raw: pa.Array) -> None:
        """Add a batch's lines to their pieces' digests, each piece's run at once (a batch
        holds a few pieces, each contiguous)."""
        i, n = 0, len(raw)
        while i < n:
            j = n if (files[-1], blocks[-1]) == (files[i], blocks[i]) else i + 1
            while j < n and files[j] == files[i] and blocks[j] == blocks[i]:
                j += 1
            self.digests.setdefault((files[i], blocks[i]), LinesDigest()).update(raw.slice(i, j - i))
            i = j

    def _canonical(self, raw: str, file: str, block: int, local: int) -> bool:
        """A JSON-object line: a canonical event (or a broken one), unless it is a
        Docker json-file log line; True if handled here."""
        try:
            record = load_json(raw)
        except ValueError as exc:
            if self.fmt == "logs":
                return False
            reason, record = f"malformed JSON: {exc}", None
        else:
            if isinstance(record, dict) and "event_type" not in record and isinstance(record.get("log"), str):
                return False
            reason = None if isinstance(record, dict) else "not a JSON object"
        if record is not None and reason is None:
            reason = event_reason(record, self.default_cluster)
        if reason is None:   # the usual case, built positionally: event fields, then EXTRA
            row = [record.get(n) for n in self.event_names]
            row += self.canonical_tail
            row[self.i_local] = local
            row[self.i_block] = block
            row[self.i_file_x] = file
            self.built.append(row)
            return True
        cluster = record.get("cluster") if isinstance(record, dict) else None
        self._emit({"kind": "quarantine", "q_reason": reason, "q_raw": raw,
                    "cluster": cluster if isinstance(cluster, str) else self.clusters.get(file, self.fallback),
                    "file": file, "block": block, "local_line": local, "n_lines": 1})
        return True

    def _enter(self, file: str, block: int) -> _Piece:
        piece = self.piece
        if piece is None or (file, block) != piece.key:
            self._close_piece()
            piece = self.piece = _Piece((file, block))
        return piece

    def _log_parser(self, file: str) -> FileParser:
        piece = self.piece
        if piece.parser is None:
            piece.parser = FileParser(file, self.zone, cluster=self.clusters.get(file, self.fallback))
        return piece.parser

    def _one_line(self, file: str, block: int, raw: str | None) -> None:
        piece = self._enter(file, block)
        piece.local += 1
        if piece.local == 1 and block == 0 and raw and checked_suffix(file) is None:   # binary data never takes a fast path
            piece.misnamed = misnamed_reason(file, raw)
        if raw is None or not raw.strip():
            return
        piece.nonblank += 1
        local = piece.local
        fmt = self.fmt
        if fmt != "logs" and raw[0] == "{" and self._canonical(raw, file, block, local):
            return
        if fmt == "events":
            self._emit({"kind": "quarantine", "q_reason": "not a JSON object (--format events)", "q_raw": raw,
                        "file": file, "block": block, "local_line": local, "n_lines": 1,
                        "cluster": self.clusters.get(file, self.fallback)})
            return
        parser = self._log_parser(file)
        self._log_rows(parser.feed(local, raw), file, block, self.clusters.get(file, self.fallback),
                       FILE_KIND_RANK[parser.kind])

    def _lines_one_by_one(self, files: list[str], blocks: list[int], raw: pa.Array, start: int, end: int) -> None:
        # Python strings made only of the lines read one by one: a batch the fast path takes
        # whole needs none.
        one_line = self._one_line
        for k, line in enumerate(raw.slice(start, end - start).to_pylist(), start):
            one_line(files[k], blocks[k], line)

    def _lines_between(self, files: list[str], blocks: list[int], raw: pa.Array, start: int, end: int,
                       runs: _LineRuns | None) -> None:
        """Lines start..end-1 of the batch, the runs of other loggers' heads and of plain
        continuation lines (`runs`) each at once, the others one by one."""
        if runs is None:
            self._lines_one_by_one(files, blocks, raw, start, end)
            return
        for a, b, kind in runs.between(start, end):
            if kind == _LineRuns.OTHER:
                # The run's last record may go on in the lines after it (a stack trace): it is read
                # as ever, one line, unless the next line of its piece begins a record.
                ended = b < len(runs.starts) and runs.starts[b] and not runs.new_piece[b]
                taken = b if ended else b - 1
                if taken > a and self._ignored_run(files, blocks, runs, a, taken):
                    if not ended:
                        self._lines_one_by_one(files, blocks, raw, b - 1, b)
                    continue
            if not (kind == _LineRuns.GLUED and self._glued_run(files, blocks, raw, a, b)):
                self._lines_one_by_one(files, blocks, raw, a, b)

    def _ignored_run(self, files: list[str], blocks: list[int], runs: _LineRuns, a: int, b: int) -> bool:
        """Lines a..b-1, heads of loggers the audit does not read with no line between them
        (the `other` column): each a record the parse ignores, as FileParser would; False
        (nothing done) where it cannot take them so (begin_fast_run)."""
        file, block = files[a], blocks[a]
        begun = self._begin_fast_run(file, block)
        if begun is None:
            return False
        piece, parser, cluster, rank = begun
        self.ignored_rows.add(parser, runs.stamps_ms[a:b], None, file, block, cluster, rank, piece.local)
        piece.local += b - a
        piece.nonblank += b - a
        return True

    def _begin_fast_run(self, file: str, block: int) -> tuple[_Piece, FileParser, str, int] | None:
        """The piece of (file, block) and its parser, handed over to a run of lines taken at once,
        the rows of what the parser held before logged: (piece, parser, cluster, rank); None
        where the parser cannot hand over here (FileParser.begin_fast_run)."""
        piece = self._enter(file, block)
        parser = self._log_parser(file)
        before = parser.begin_fast_run()
        if before is None:
            return None
        cluster, rank = self.clusters.get(file, self.fallback), FILE_KIND_RANK[parser.kind]
        self._log_rows(before, file, block, cluster, rank)
        return piece, parser, cluster, rank

    def _glued_run(self, files: list[str], blocks: list[int], raw: pa.Array, a: int, b: int) -> bool:
        """Lines a..b-1, plain continuation lines (ingest.envelope.plain_continuations), glued
        to the record they continue at once; False (nothing done) with no such record open."""
        piece = self._enter(files[a], blocks[a])
        parser = piece.parser
        if parser is None or not parser.assembler.glue(raw.slice(a, b - a).to_pylist()):
            return False
        piece.local += b - a
        piece.nonblank += b - a
        return True

    def _fast_run(self, file: str, block: int, fast: pa.Table, at: int, k: int) -> bool:
        """Rows at..at+k-1 of `fast`, complete one-line records read by ingest.fast, in the
        file's order; False if the file's parser cannot hand over to them here (then they go
        line by line)."""
        begun = self._begin_fast_run(file, block)
        if begun is None:
            return False
        piece, parser, cluster, rank = begun
        times, epochs, recorders, recorded = (c[at:at + k] for c in self.fast_numbers)
        events = np.flatnonzero(recorded)
        piece_event = np.full(k, np.nan)
        piece_event[events] = np.arange(piece.events, piece.events + len(events))
        fast_rows = self.fast_rows
        fast_rows.add(parser, times, epochs, file, block, cluster, rank, piece.local, piece_event, np.arange(at, at + k))
        if piece.in_order and len(events):   # one event per line, sub 0
            clock, epoch = fast_rows.clock[-1], fast_rows.epoch[-1]
            first, last = int(events[0]), int(events[-1])
            by = recorders[events]
            piece.in_order = by.min() == by.max() and self._follows(
                piece.local + 1 + first, 0, int(by[0]), _number(clock[first]), _number(epoch[first]))
            piece.last = [_number(clock[last]), _number(epoch[last]), piece.local + 1 + last, 0]
        piece.events += len(events)
        piece.local += k
        piece.nonblank += k
        return True

    def _events_run(self, file: str, block: int, lines: list[str]) -> pa.RecordBatch | None:
        """A piece's run of JSON-object lines (no blank one) read by ingest.fast_events;
        the rows it cannot vouch for go through `_canonical` one by one."""
        piece = self._enter(file, block)
        table = read_events(lines)
        if table is None:
            for raw in lines:
                self._one_line(file, block, raw)
            return None
        table, ok = replayable(table, self.default_cluster)
        first = piece.local + 1
        piece.local += len(lines)
        piece.nonblank += len(lines)
        for k in pc.indices_nonzero(pc.invert(ok)).to_pylist():
            # Arrow read it, so it is a JSON object with no field but the event's: never a
            # Docker line, which `_canonical` alone would hand back.
            if not self._canonical(lines[k], file, block, first + k):
                raise AssertionError(f"{file}: line {first + k} read by Arrow but not by json.loads")
        table = table.filter(ok)
        k = len(table)
        schema = self.schema
        given = {"kind": pa.repeat(pa.scalar("event"), k), "file": pa.repeat(pa.scalar(file), k),
                 "block": pa.repeat(pa.scalar(block, pa.int64()), k),
                 "local_line": pc.add(pc.indices_nonzero(ok), first).cast(pa.int64()),
                 "n_lines": pa.repeat(pa.scalar(1, pa.int64()), k), "canonical": pa.repeat(pa.scalar(True), k)}
        columns = [given[f.name].cast(f.type) if f.name in given else pa.nulls(k, f.type) for f in schema]
        for i, dtype in self.event_columns:
            columns[i] = table.column(schema.names[i]).combine_chunks().cast(dtype)
        return pa.RecordBatch.from_arrays(columns, schema=schema)
