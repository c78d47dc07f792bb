"""The rows a split's parse writes (ingest.splits): their columns, and the Arrow batches they
are built into. Pure Arrow; jobs/ingest_spark.py reads the same columns as Spark types.

A parse row is a canonical event's fields, then EXTRA: what kind of row it is (`event`,
`fact`, `understood`, `ignored`, `leading`, `quarantine`, and one `piece` row per split), where it
was read, and what places it in recorded order."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from schemas.events import EVENT_FIELDS
from schemas.types import arrow_type

EXTRA = (  # columns of the parse output beyond the event's own (schemas.types names)
    ("kind", "string"), ("file", "string"), ("block", "long"), ("local_line", "long"),
    ("n_lines", "long"), ("tag", "string"), ("order_ts", "long"), ("order_epoch", "int"),
    ("file_rank", "int"), ("sub", "int"), ("pattern", "string"),
    ("topic_id", "string"), ("fact", "string"), ("q_reason", "string"),
    ("q_raw", "string"), ("canonical", "boolean"), ("digest", "string"),
    # A log event's index among its piece's log events; on a piece row, how many it has, or null
    # when they may not be in recorded order within it (see jobs.ingest_spark.in_recorded_order).
    ("piece_event", "long"),
    # On a piece row, what ingest.counts counted of the piece's rows (JSON): the tally, the events' profile.
    ("counts", "string"),
    # The piece's key, on every row (ingest.splits.SplitParser.rows). Only its piece row names the
    # file: the ingest joins the file back by this, where the path in every row would cost the
    # cache and the join (a string's statistics in the cache compare it whole).
    ("piece", "long"),
)


def parse_row_schema() -> pa.Schema:
    """Every column of a parse row, nullable: the event's fields, then EXTRA."""
    return pa.schema([pa.field(f.name, arrow_type(f.type)) for f in EVENT_FIELDS]
                     + [pa.field(name, arrow_type(type_name)) for name, type_name in EXTRA])


class RunRows:
    """The parse rows of runs of one-line records that a batch's lines give at once (ingest.fast's
    lines: events and lines understood; heads of loggers the audit does not read: ignored), as
    the line-by-line path writes them (FileParser._record, then SplitParser._log_rows): gathered
    run by run, built at the batch's end in one pass (building costs about as much for a batch
    as for a run)."""

    def __init__(self, kind: str | None, arrow_schema: pa.Schema):
        """`kind`: every row's (None: each row's own, the `kind` column of the lines read)."""
        self.kind, self.schema = kind, arrow_schema
        self.runs: list[tuple] = []     # (k, file, block, cluster, rank, local before)
        self.clock: list[np.ndarray] = []   # each run's running clock and epoch: float, NaN for none
        self.epoch: list[np.ndarray] = []
        self.piece_event: list[np.ndarray] = []   # each run's events' places among their piece's (NaN: no event)
        self.taken: list[np.ndarray] = []   # each run's rows of the lines read (ingest.fast's table)

    def add(self, parser, times: np.ndarray, epochs: np.ndarray | None, file: str, block: int, cluster: str,
            rank: int, local_before: int, piece_event: np.ndarray | None = None, taken: np.ndarray | None = None) -> None:
        """A run of records with these times and controller epochs (float, NaN where a record has
        none; epochs None: none has one), the file's parser's clock and epoch moved past them."""
        clock = np.fmax.accumulate(times)
        if parser.order_ts is not None:
            clock = np.fmax(clock, float(parser.order_ts))
        if epochs is None:
            epoch = np.full(len(times), np.nan if parser.order_epoch is None else float(parser.order_epoch))
        else:
            epoch = np.fmax.accumulate(epochs)
            if parser.order_epoch is not None:
                epoch = np.fmax(epoch, float(parser.order_epoch))
        parser.advance_order(None if np.isnan(clock[-1]) else int(clock[-1]), None if np.isnan(epoch[-1]) else int(epoch[-1]))
        self.runs.append((len(times), file, block, cluster, rank, local_before))
        self.clock.append(clock)
        self.epoch.append(epoch)
        if piece_event is not None:
            self.piece_event.append(piece_event)
        if taken is not None:
            self.taken.append(taken)

    def build(self, lines: pa.Table | None = None) -> list[pa.RecordBatch]:
        """The runs' rows (none, or one batch), `lines` the table `taken` indexes; then empty."""
        if not self.runs:
            return []
        k, file, block, cluster, rank, local = (np.array(c, dtype=object) for c in zip(*self.runs))
        k = k.astype(np.int64)
        n = int(k.sum())
        run = pa.array(np.repeat(np.arange(len(k)), k))
        within = np.arange(n) - np.repeat(np.cumsum(k) - k, k)

        def each(values, dtype) -> pa.Array:
            return pa.array(list(values), dtype).take(run)

        def nullable(parts: list[np.ndarray], dtype) -> pa.Array:
            values = np.concatenate(parts)
            unread = np.isnan(values)
            return pa.array(np.where(unread, 0, values).astype(np.int64), mask=unread).cast(dtype)

        given = {"cluster": each(cluster, pa.string()),
                 "file": each(file, pa.string()), "block": each(block, pa.int64()),
                 "local_line": pa.array(np.repeat(local.astype(np.int64), k) + within + 1),
                 "n_lines": pa.repeat(pa.scalar(1, pa.int64()), n), "file_rank": each(rank, pa.int32()),
                 "sub": pa.repeat(pa.scalar(0, pa.int32()), n), "canonical": pa.repeat(pa.scalar(False), n),
                 "order_ts": nullable(self.clock, pa.int64()), "order_epoch": nullable(self.epoch, pa.int32())}
        if self.kind is not None:
            given["kind"] = pa.repeat(pa.scalar(self.kind), n)
        if self.piece_event:
            given["piece_event"] = nullable(self.piece_event, pa.int64())
        taken = lines.take(pa.array(np.concatenate(self.taken))) if self.taken else None
        self.__init__(self.kind, self.schema)
        return [assembled(self.schema, n, given, taken)]


def assembled(arrow_schema: pa.Schema, k: int, given: dict, lines: pa.Table | None = None) -> pa.RecordBatch:
    """k parse rows: the `given` columns, then those of `lines`, the others null."""
    columns = []
    for f in arrow_schema:
        if f.name in given:
            column = given[f.name]
        elif lines is not None and f.name in lines.column_names:
            column = lines.column(f.name)
        else:
            column = pa.nulls(k, f.type)
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        columns.append(column if column.type == f.type else column.cast(f.type))
    return pa.RecordBatch.from_arrays(columns, schema=arrow_schema)


def rows_batch(rows: list[list], width: int, arrow_schema: pa.Schema) -> pa.RecordBatch:
    """Rows built as lists of every column's value, as one batch."""
    columns = list(zip(*rows)) if rows else [()] * width
    return pa.RecordBatch.from_arrays([pa.array(c, type=arrow_schema.field(i).type) for i, c in enumerate(columns)],
                                      schema=arrow_schema)


def concatenated(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """Batches of one schema as one."""
    batches = [b for b in batches if b.num_rows] or batches[:1]
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def pieces_apart(batch: pa.RecordBatch) -> tuple[pa.RecordBatch | None, pa.RecordBatch]:
    """A batch of parse rows as (its piece rows, None if it has none; its other rows)."""
    piece = pc.equal(batch.column("kind"), "piece")
    if not pc.any(piece).as_py():
        return None, batch
    return batch.filter(piece), batch.filter(pc.invert(piece))


def one_piece(files: pa.Array, blocks: pa.Array) -> tuple | None:
    """The (file, block) of every row of a batch, if they share one; else None."""
    if len(files) and not files.null_count and pc.all(pc.equal(files, files[0])).as_py() \
            and pc.all(pc.equal(blocks, blocks[0])).as_py():
        return files[0].as_py(), blocks[0].as_py()
    return None


def pieces_of(files: pa.Array, blocks: pa.Array) -> list[tuple]:
    """The (file, block) pairs of a batch's rows, in the order they first occur."""
    one = one_piece(files, blocks)
    if one is not None:
        return [one]
    return list(dict.fromkeys(zip(files.to_pylist(), blocks.to_pylist())))
