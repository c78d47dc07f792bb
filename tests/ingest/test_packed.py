"""The kept parse output (jobs.ingest_spark.packed): piece rows as they are, every other batch of
parse rows packed into one row; unpacked (unpack_function), a kind's rows are the parse's own,
in order, with the columns asked for, whatever the batches."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from jobs.ingest_spark import (NOT_PACKED, PACKED, PACKED_ROWS, RECOGNISED_KINDS, kept_schema, packed,
                               packed_column_names, parse_function, unpack_function)
from tests.ingest.test_fast import GENERATED, REAL_LINES

FILE = "file:/logs/broker-1/state-change.log"
EVENT = {"cluster": "c", "seq": 0, "event_type": "BrokerStarted", "brokers": [1], "event_time_ms": 1}
LINES = [*GENERATED[:300], "not a record", json.dumps(EVENT), "{broken json", *REAL_LINES[:200], *GENERATED[300:400]]


def _batches(batch: int) -> list[pa.RecordBatch]:
    """LINES as two pieces of one file, cut into batches of `batch` lines."""
    block = [0 if i < len(LINES) // 2 else 10_000 for i in range(len(LINES))]
    return [pa.RecordBatch.from_pydict({"raw": LINES[i:i + batch], "file": [FILE] * len(LINES[i:i + batch]),
                                        "block": pa.array(block[i:i + batch], pa.int64())})
            for i in range(0, len(LINES), batch)]


def _parse():
    return parse_function({}, "c", "UTC", "auto")


@pytest.mark.parametrize("batch", [7, 64, 1000])
def test_unpacked_rows_are_the_parse_rows_of_their_kinds(batch):
    parsed = pa.Table.from_batches(list(_parse()(iter(_batches(batch)))))
    kept = [b for b in packed(_parse())(iter(_batches(batch))) if b.num_rows]
    assert all(b.schema.names == kept_schema().fieldNames() for b in kept)
    kept = pa.Table.from_batches(kept)
    is_packed = pc.equal(kept.column("kind"), PACKED)
    # Piece rows as the parse gives them, unpacked; every other row is in a packed batch.
    pieces = kept.filter(pc.invert(is_packed))
    assert pieces.column(PACKED_ROWS).null_count == len(pieces)
    assert pieces.drop_columns([PACKED_ROWS]).to_pylist() == parsed.filter(pc.equal(parsed.column("kind"), "piece")).to_pylist()
    blobs = pa.RecordBatch.from_arrays([kept.filter(is_packed).column(PACKED_ROWS).combine_chunks()], names=[PACKED_ROWS])

    kinds = set(parsed.column("kind").to_pylist()) - {"piece"}
    assert {"event", "quarantine"} <= kinds
    columns = packed_column_names()
    assert not set(NOT_PACKED) & set(columns)
    # Some packed batch leaves out a column that others hold (unpack_function makes its nulls).
    held = [set(b.schema.names) for blob in blobs.column(0) for b in pa.ipc.open_stream(blob.as_buffer())]
    assert len(held) == 1 or set.union(*held) - set.intersection(*held)
    for wanted in [("event",), ("quarantine", "leading"), (*RECOGNISED_KINDS, "quarantine")]:
        for cols in (columns, ["kind", "local_line", "event_type", "piece"]):
            unpacked = list(unpack_function(wanted, cols)(iter([blobs])))
            want = parsed.filter(pc.is_in(parsed.column("kind"), pa.array(wanted))).select(cols)
            assert [r for b in unpacked for r in b.to_pylist()] == want.to_pylist()
            # The parse's own types, a column a packed batch left out (all null there) too: Spark
            # reads the batches as the schema mapInArrow declares.
            assert all(b.schema == want.schema for b in unpacked)
    # every non-piece row, once
    everything = [r for b in unpack_function(tuple(kinds), columns)(iter([blobs])) for r in b.to_pylist()]
    assert len(everything) == len(parsed) - len(pieces)
