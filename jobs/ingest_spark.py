"""Inputs -> canonical events inside Spark: canonical-event JSON lines, and the logs real
clusters write (ingest/), in one pass over the text.

1. The text source reads every file in splits; each row carries its file and split offset.
2. `mapInArrow` runs `ingest.lines.FileParser` over each split in file order (the driver
   reads no file): events, facts, understood / ignored / quarantined records, and one
   `piece` row per split with its line count, last clock value and controller epoch, and what
   ingest.counts counted of its rows (the accounting, the era evidence, the events' profile).
   What is kept of it: the piece rows, and each batch of the other rows packed into one value
   (`packed`), which each later step unpacks in the workers for the kinds and columns it reads.
3. The piece rows (one per split, a few per file) give line numbers and carry each split's
   ordering state into the next; facts name KRaft topics and mark Raft epochs.
4. Log events get `seq` from one global sort on (cluster, clock, controller epoch, file kind,
   broker, file, line), numbered 0, 1, 2, ... within each cluster whatever the sort's
   partitioning: see ingest/lines.py and docs/log-formats.md for how ties are broken. Input with no
   log line (canonical events only) skips this step and the facts: it has none.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import reduce
from urllib.parse import unquote

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.window import Window

from ingest.compressed import UnreadableInput, checked_suffix
from ingest.counts import RECORDED_CHANGES, merged_profile, merged_tally, nullable_max
from ingest.envelope import LEADING_REASON
from ingest.kraft import CONTROLLER_ROW_PREFIX, metadata_log_position, transaction_spans
from ingest.lines import CROSS_FILE_ORDER, URI_SCHEME_AND_AUTHORITY
from jobs.session import LINEAGE_CUT_MAX_ROWS, keep_few, local_frame, materialize, materialize_profiled, release
from schemas.events import EVENT_FIELD_NAMES, EVENT_FIELDS, FEW_VALUED_FIELDS
from schemas.types import JSON_TYPES
from schemas.types import arrow_type as schema_arrow_type
from schemas.types import spark_type

EXTRA = (  # columns of the parse output beyond the event's own
    ("kind", T.StringType()), ("file", T.StringType()), ("block", T.LongType()), ("local_line", T.LongType()),
    ("n_lines", T.LongType()), ("tag", T.StringType()), ("order_ts", T.LongType()), ("order_epoch", T.IntegerType()),
    ("file_rank", T.IntegerType()), ("sub", T.IntegerType()), ("pattern", T.StringType()),
    ("topic_id", T.StringType()), ("fact", T.StringType()), ("q_reason", T.StringType()),
    ("q_raw", T.StringType()), ("canonical", T.BooleanType()), ("digest", T.StringType()),
    # A log event's index among its piece's log events; on a piece row, how many it has, or null
    # when they may not be in recorded order within it (see `in_recorded_order`).
    ("piece_event", T.LongType()),
    # On a piece row, what ingest.counts counted of the piece's rows (JSON): the tally, the events' profile.
    ("counts", T.StringType()),
    # The piece's key, on every row (`counted`). Only its piece row names the file: the ingest joins
    # the file back by this, where the path in every row would cost the cache and the join (a
    # string's statistics in the cache compare it whole).
    ("piece", T.LongType()),
)
PIECES_PER_TASK_BITS = 32   # a piece key (`piece`): the task's partition in the bits above these
COUNTED_ROWS = 100_000   # parse rows a worker holds to count at once (ingest.counts): ten batches
# The kept parse output (`packed`): its piece rows as they are, and each batch of its other rows
# as one row of kind PACKED, the batch in PACKED_ROWS (Arrow IPC, LZ4). Spark's columnar cache
# of the wide parse rows would gather statistics of every value, a large share of the JVM's
# work in the ingest; a packed batch is one value, and each read of the rows unpacks only the
# kinds and columns it needs (`_unpacked`).
PACKED, PACKED_ROWS = "packed", "packed_rows"
PACKED_COMPRESSION = "lz4"   # a fraction of the rows' size, and cheap for the workers to pack and unpack
# Not packed: what only a piece row holds (the file; the piece's key names it), and what the
# parse has counted (ingest.counts) and no later step reads.
NOT_PACKED = ("file", "block", "n_lines", "tag", "pattern", "digest", "counts")
# The columns of an event row that the events' steps read: the event's own, and of EXTRA those
# that place it in recorded order (not the piece's, the quarantine's or the counts' own).
EVENT_ROW_EXTRA = ("kind", "local_line", "order_ts", "order_epoch", "file_rank", "sub", "topic_id", "canonical",
                   "piece_event", "piece")
RECOGNISED_KINDS = ("event", "fact", "understood", "ignored", "leading")
# The columns the cross-file order (ingest.lines.CROSS_FILE_ORDER) needs beyond the event's own.
ORDER_COLUMNS = tuple(c for c in CROSS_FILE_ORDER if c not in EVENT_FIELD_NAMES)
TRANSACTION_SPAN = "_transaction_span"   # a logged row's metadata transaction, by index (`_tag_transactions`)


def loose_arrays(dt: T.DataType) -> T.DataType:
    return T.ArrayType(dt.elementType, containsNull=True) if isinstance(dt, T.ArrayType) else dt


def parsed_schema() -> T.StructType:
    fields = [T.StructField(f.name, loose_arrays(spark_type(f.type)), True) for f in EVENT_FIELDS]
    fields += [T.StructField(n, t, True) for n, t in EXTRA]
    return T.StructType(fields)


def packed_column_names() -> list[str]:
    """The columns of a packed batch of parse rows (`packed`)."""
    return [n for n in parsed_schema().fieldNames() if n not in NOT_PACKED]


def kept_schema() -> T.StructType:
    """The kept parse output's (`packed`): the parse rows' columns and PACKED_ROWS."""
    return T.StructType([*parsed_schema().fields, T.StructField(PACKED_ROWS, T.BinaryType(), True)])


# Spark type -> Arrow type, from the one table in schemas.types (arrays of any element too).
_ARROW_OF_SPARK = {spark_type(n): schema_arrow_type(n) for n in JSON_TYPES}


def arrow_type(dt: T.DataType) -> pa.DataType:
    if isinstance(dt, T.ArrayType):
        return pa.list_(arrow_type(dt.elementType))
    if isinstance(dt, T.BinaryType):   # PACKED_ROWS
        return pa.binary()
    found = _ARROW_OF_SPARK.get(dt)
    if found is None:
        raise TypeError(dt)
    return found


# The text source globs every path it is given: a listed file under `kafka logs [eu-1]/` failed the
# audit as a bad pattern (and `{a,b}/` would match other files). A backslash makes a glob character
# literal (Hadoop's GlobPattern).
GLOB_CHARACTER = re.compile(r"([\\{}\[\]*?])")
# Read through the raw local file system: the checksummed one opens `.<name>.crc` beside each file, a
# path Hadoop cannot make for a name holding ':' (`state-change.log.2024-05-01T02:14`). Kafka's log
# files have no checksum files, so nothing is lost.
RAW_LOCAL_FILES = {"fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem", "fs.file.impl.disable.cache": "true"}


def literal_path(path: str) -> str:
    """`path` as a glob that matches only itself."""
    return GLOB_CHARACTER.sub(r"\\\1", path)


def read_pieces(spark: SparkSession, files: list[str], other_loggers: bool = False) -> DataFrame:
    """(raw, file, block) in file order within each split; blocks are split offsets. With
    `other_loggers`, also `other`: is the line a head of a logger the audit does not read
    (other_logger_heads)."""
    extra = [other_logger_heads(F.col("value")).alias("other")] if other_loggers else []
    if not files:
        return local_frame(spark, [], "raw string, file string, block long" + (", other boolean" if extra else ""))
    # The text source hands bytes on unchecked, not always UTF-8 (a latin-1 JVM's message, a UTF-16
    # file): the workers make them valid (`valid_utf8`).
    return (spark.read.format("text").options(**RAW_LOCAL_FILES).load([literal_path(f) for f in files])
            .select(F.col("value").alias("raw"), F.col("_metadata.file_path").alias("file"),
                    F.col("_metadata.file_block_start").alias("block"), *extra))


def other_logger_heads(raw: Column) -> Column:
    """Is each line a whole record of a logger the audit does not read, which the parse ignores
    (counts, recognised): most of a broker's server.log. Told in the JVM, by the regexes of
    ingest.lines.other_logger_regexes and the loggers of ingest.lines.audited, so that the
    workers take a run of them at once, not a line at a time."""
    from ingest.lines import AUDITED_LOGGERS, AUDITED_SHORT_LOGGERS, NOT_AUDITED_LOGGERS, other_logger_regexes
    head, body = other_logger_regexes()
    logger = F.regexp_extract(raw, head, 1)

    def starts(prefixes) -> Column:
        return reduce(lambda a, b: a | b, (logger.startswith(p) for p in prefixes))

    audited = ((starts(AUDITED_LOGGERS) & ~starts(NOT_AUDITED_LOGGERS)) | logger.isin(*AUDITED_SHORT_LOGGERS)
               | logger.endswith(".StateChangeLogger"))
    return (logger != "") & ~audited & ~raw.contains("Controller ") & ~raw.rlike(body)


def valid_utf8(raw: pa.Array) -> pa.Array:
    """A batch of `read_pieces` lines with each byte sequence that is not UTF-8 as U+FFFD, as the
    local reader's errors="replace" reads it. Arrow checks a whole batch at once, in the workers,
    far cheaper than Spark's make_valid_utf8 in the JVM; nearly every batch is valid, and only the
    others are decoded line by line."""
    try:
        raw.validate(full=True)
        return raw
    except pa.ArrowInvalid:
        return pa.array([None if b is None else b.decode("utf-8", "replace") for b in raw.view(pa.binary()).to_pylist()],
                        pa.string())


def _glob_cannot_make(file: str) -> bool:
    """A path with a glob character is globbed, the glob makes a Path of each of its folder and
    file names, and one holding ':' parses as a URI scheme (`Relative path in absolute URI`)."""
    return bool(GLOB_CHARACTER.search(file)) and ":" in URI_SCHEME_AND_AUTHORITY.sub("", file)


def unreadable_inputs(spark: SparkSession, files: list[str]) -> dict[str, str]:
    """The listed files the text source cannot read as they are, each with why, found before
    anything is read: skipping one would lose its records, and the text source fails the whole job
    half-way on a cut compressed rotation (`Unexpected end of input stream`). The compressed ones and
    the archives are checked inside Spark (ingest.compressed.unreadable_reason), a file a row of the
    binary source: memory is its compressed size."""
    why = {f: (f"{f}: Hadoop cannot read this path: it holds one of [ ] {{ }} * ? \\ (read as a pattern) and a "
               "name with ':' (read as a URI scheme); rename the folder or file so that it holds only one of the two")
           for f in files if _glob_cannot_make(f)}
    checked = [literal_path(f) for f in files if f not in why and checked_suffix(f)]
    if not checked:
        return why

    def check(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from ingest.compressed import unreadable_reason
        for batch in batches:   # each file read in place from the batch: no Python copy of its bytes
            reasons = [(file, unreadable_reason(file, pa.BufferReader(content.as_buffer()))) for file, content in
                       zip(listed_paths(batch.column("file")), batch.column("content"))]
            found = [(f, r) for f, r in reasons if r is not None]
            yield pa.RecordBatch.from_pydict({"file": [f for f, _ in found], "reason": [r for _, r in found]},
                                             schema=pa.schema([("file", pa.string()), ("reason", pa.string())]))

    rows = (spark.read.format("binaryFile").options(**RAW_LOCAL_FILES).load(checked)
            .select(F.col("_metadata.file_path").alias("file"), "content")
            .mapInArrow(check, "file string, reason string").collect())
    return why | {r["file"]: r["reason"] for r in rows}


def unreadable_message(refused: dict[str, str]) -> str:
    """What the audit says of the input files it cannot read (unreadable_inputs, or those the
    parse finds misnamed): how many, and why for the first few."""
    return (f"{len(refused)} input file(s) cannot be read as they are: "
            + "; ".join(refused[f] for f in sorted(refused)[:5]) + ("; ..." if len(refused) > 5 else ""))


def listed_paths(file_paths: pa.Array) -> list[str]:
    """Each row's file as the listing names it (`file:/logs/kafka logs/...`): `_metadata.file_path`
    is the file's URI, where a space is %20 and a % is %25, and the clusters by file, the per-file
    accounting and every row's provenance use the listing's form. A batch holds a few files."""
    names = {uri: unquote(uri) for uri in pc.unique(file_paths).to_pylist()}
    if len(names) == 1:
        return [*names.values()] * len(file_paths)
    return [names[uri] for uri in file_paths.to_pylist()]


def parse_function(clusters: dict[str, str], default_cluster: str | None, zone: str, fmt: str, use_fast: bool = True):
    """The mapInArrow function: split rows -> parse rows (see parsed_schema). `use_fast`: let
    ingest.fast and ingest.fast_events read the lines they can (the output is the same;
    tests compare the two)."""
    from ingest.compressed import checked_suffix, misnamed_reason
    from ingest.envelope import Clock
    from ingest.fast import FastParser
    from ingest.fast_events import all_json_objects, read_events, replayable
    from ingest.lines import FILE_KIND_RANK, FileParser
    from schemas.validate import event_reason, load_json

    schema = parsed_schema()
    arrow_schema = pa.schema([pa.field(f.name, arrow_type(f.dataType)) for f in schema.fields])
    names = arrow_schema.names
    event_names = list(EVENT_FIELD_NAMES)
    fallback = default_cluster or "default"

    def parse(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows: list[list] = []
        width = len(names)
        n_event = len(event_names)
        i_cluster, i_file, i_line = (event_names.index(n) for n in ("cluster", "source_file", "source_line"))
        # A valid canonical event's EXTRA columns: kind event, one line, canonical; file, block
        # and local line are set per row.
        canonical_tail = [None] * (width - n_event)
        for name, value in (("kind", "event"), ("n_lines", 1), ("canonical", True)):
            canonical_tail[names.index(name) - n_event] = value
        i_file_x, i_block, i_local = names.index("file"), names.index("block"), names.index("local_line")
        i_broker = event_names.index("recording_broker")

        def emit(values: dict) -> None:   # the rare rows (pieces, quarantined JSON lines)
            rows.append([values.get(n) for n in names])

        state = {"key": None, "parser": None, "local": 0, "nonblank": 0, "misnamed": None, "events": 0, "first": None,
                 "last": None, "broker": None, "in_order": True}
        digests: dict[tuple, object] = {}   # (file, block) -> its lines' digest so far (copied_files)
        fast_parser = FastParser(Clock(zone)) if use_fast and fmt != "events" else None
        fast_rows, ignored_rows = _RunRows("event", arrow_schema), _RunRows("ignored", arrow_schema)
        fast_numbers: list[np.ndarray] = []   # a batch's ingest.fast lines' times, epochs and controllers
        fast_events = use_fast and fmt != "logs"
        event_columns = [(i, f.type) for i, f in enumerate(arrow_schema) if f.name in EVENT_FIELD_NAMES]

        def log_rows(outs, file, block, cluster, rank):
            # The hot path: one row per parser output, built positionally (event fields, then EXTRA).
            sub = 0
            for o in outs:
                data = o.data
                if data is not None and o.kind == "event":
                    row = [data.get(n) for n in event_names]
                    # A log event's source_file and source_line are its file and line, set once
                    # the lines are numbered (_log_events): not a copy of the path in every row.
                    row[i_cluster], row[i_file], row[i_line] = cluster, None, None
                    topic_id, fact = data.get("topic_id"), None
                    index = state["events"]
                    state["events"] = index + 1
                    if state["in_order"]:
                        state["in_order"] = follows(o.line, sub, row[i_broker], o.order_ts, o.order_epoch)
                else:
                    row = [None] * n_event
                    row[i_cluster] = cluster
                    topic_id, fact, index = None, (json.dumps(data) if data is not None else None), None
                row += (o.kind, file, block, o.line, o.n_lines, o.tag, o.order_ts, o.order_epoch, rank, sub, o.pattern,
                        topic_id, fact, o.reason, o.raw, False, None, index, None, None)   # (piece: `counted`)
                rows.append(row)
                sub += 1

        def follows(line: int, sub: int, broker, order_ts, order_epoch) -> bool:
            """Does a log event at (line, sub), recorded by `broker`, come after the piece's
            previous one in recorded order, whatever clock and epoch the pieces before carry?
            The running clock and epoch never fall within a piece, so it does when the line and
            sub rise and the recording broker is the piece's one (the sort keys between them).
            Keeps the piece's first and last event's (clock, epoch, line, sub)."""
            last = state["last"]
            state["last"] = [order_ts, order_epoch, line, sub]
            if last is None:
                state["broker"], state["first"] = broker, state["last"]
                return True
            return (line, sub) > (last[2], last[3]) and broker == state["broker"]

        def close_piece():
            key, parser = state["key"], state["parser"]
            if key is None:
                return
            file, block = key
            cluster = clusters.get(file, fallback)
            if parser is not None:
                rank = FILE_KIND_RANK[parser.kind]
                log_rows(parser.close(), file, block, cluster, rank)
                order_ts, order_epoch = parser.order_ts, parser.order_epoch
            else:
                order_ts = order_epoch = rank = None
            # piece_event, file_rank, recording_broker and fact (the first and last log event's
            # clock, epoch, line and sub): for jobs.ingest_spark.in_recorded_order.
            in_order = state["in_order"] and state["events"]
            emit({"kind": "piece", "file": file, "block": block, "local_line": state["local"],
                  "n_lines": state["nonblank"], "order_ts": order_ts, "order_epoch": order_epoch, "cluster": cluster,
                  "q_reason": state["misnamed"], "digest": digests.pop(key).hexdigest(),
                  "piece_event": state["events"] if state["in_order"] else None,
                  "file_rank": rank if in_order else None, "recording_broker": state["broker"] if in_order else None,
                  "fact": json.dumps([state["first"], state["last"]]) if in_order else None})

        def digest(files: list[str], blocks: list[int], raw: pa.Array) -> None:
            """Add a batch's lines to their pieces' digests, each piece's run at once (a batch
            holds a few pieces, each contiguous)."""
            i, n = 0, len(raw)
            while i < n:
                j = n if (files[-1], blocks[-1]) == (files[i], blocks[i]) else i + 1
                while j < n and files[j] == files[i] and blocks[j] == blocks[i]:
                    j += 1
                digests.setdefault((files[i], blocks[i]), LinesDigest()).update(raw.slice(i, j - i))
                i = j

        def canonical(raw: str, file: str, block: int, local: int) -> bool:
            """A JSON-object line: a canonical event (or a broken one), unless it is a
            Docker json-file log line; True if handled here."""
            try:
                record = load_json(raw)
            except ValueError as exc:
                if fmt == "logs":
                    return False
                reason, record = f"malformed JSON: {exc}", None
            else:
                if isinstance(record, dict) and "event_type" not in record and isinstance(record.get("log"), str):
                    return False
                reason = None if isinstance(record, dict) else "not a JSON object"
            if record is not None and reason is None:
                reason = event_reason(record, default_cluster)
            if reason is None:   # the usual case, built positionally: event fields, then EXTRA
                row = [record.get(n) for n in event_names]
                row += canonical_tail
                row[i_local] = local
                row[i_block] = block
                row[i_file_x] = file
                rows.append(row)
                return True
            cluster = record.get("cluster") if isinstance(record, dict) else None
            emit({"kind": "quarantine", "q_reason": reason, "q_raw": raw,
                  "cluster": cluster if isinstance(cluster, str) else clusters.get(file, fallback),
                  "file": file, "block": block, "local_line": local, "n_lines": 1})
            return True

        def enter(file, block):
            if (file, block) != state["key"]:
                close_piece()
                state.update(key=(file, block), parser=None, local=0, nonblank=0, misnamed=None, events=0, first=None,
                             last=None, broker=None, in_order=True)

        def log_parser(file):
            parser = state["parser"]
            if parser is None:
                parser = state["parser"] = FileParser(file, zone, cluster=clusters.get(file, fallback))
            return parser

        def one_line(file, block, raw):
            enter(file, block)
            state["local"] += 1
            if state["local"] == 1 and block == 0 and raw and checked_suffix(file) is None:   # binary data never takes a fast path
                state["misnamed"] = misnamed_reason(file, raw)
            if raw is None or not raw.strip():
                return
            state["nonblank"] += 1
            local = state["local"]
            if fmt != "logs" and raw[0] == "{" and canonical(raw, file, block, local):
                return
            if fmt == "events":
                emit({"kind": "quarantine", "q_reason": "not a JSON object (--format events)", "q_raw": raw,
                      "file": file, "block": block, "local_line": local, "n_lines": 1,
                      "cluster": clusters.get(file, fallback)})
                return
            parser = log_parser(file)
            log_rows(parser.feed(local, raw), file, block, clusters.get(file, fallback), FILE_KIND_RANK[parser.kind])

        def lines_one_by_one(files: list[str], blocks: list[int], raw: pa.Array, start: int, end: int) -> None:
            # Python strings made only of the lines read one by one: a batch the fast path takes
            # whole needs none.
            for k, line in enumerate(raw.slice(start, end - start).to_pylist(), start):
                one_line(files[k], blocks[k], line)

        def lines_between(files: list[str], blocks: list[int], raw: pa.Array, start: int, end: int, runs) -> None:
            """Lines start..end-1 of the batch, the runs of other loggers' heads and of plain
            continuation lines (`runs`: _LineRuns) each at once, the others one by one."""
            if runs is None:
                lines_one_by_one(files, blocks, raw, start, end)
                return
            for a, b, kind in runs.between(start, end):
                if kind == _LineRuns.OTHER and b - a > 1 and ignored_run(files, blocks, runs, a, b - 1):
                    lines_one_by_one(files, blocks, raw, b - 1, b)   # its continuation lines may follow: read as ever
                elif not (kind == _LineRuns.GLUED and glued_run(files, blocks, raw, a, b)):
                    lines_one_by_one(files, blocks, raw, a, b)

        def ignored_run(files: list[str], blocks: list[int], runs, a: int, b: int) -> bool:
            """Lines a..b-1, heads of loggers the audit does not read with no line between them
            (other_logger_heads): each a record the parse ignores, as FileParser would; False
            (nothing done) where it cannot take them so (begin_fast_run)."""
            file, block = files[a], blocks[a]
            enter(file, block)
            parser = log_parser(file)
            before = parser.begin_fast_run()
            if before is None:
                return False
            cluster, rank = clusters.get(file, fallback), FILE_KIND_RANK[parser.kind]
            log_rows(before, file, block, cluster, rank)
            ignored_rows.add(parser, runs.stamps_ms[a:b], None, file, block, cluster, rank, state["local"])
            state["local"] += b - a
            state["nonblank"] += b - a
            return True

        def glued_run(files: list[str], blocks: list[int], raw: pa.Array, a: int, b: int) -> bool:
            """Lines a..b-1, plain continuation lines (ingest.envelope.plain_continuations), glued
            to the record they continue at once; False (nothing done) with no such record open."""
            enter(files[a], blocks[a])
            parser = state["parser"]
            if parser is None or not parser.assembler.glue(raw.slice(a, b - a).to_pylist()):
                return False
            state["local"] += b - a
            state["nonblank"] += b - a
            return True

        def fast_run(file, block, fast: pa.Table, at: int, k: int) -> bool:
            """Rows at..at+k-1 of `fast`, complete one-line records read by ingest.fast, in the
            file's order; False if the file's parser cannot hand over to them here (then they go
            line by line)."""
            enter(file, block)
            parser = log_parser(file)
            before = parser.begin_fast_run()
            if before is None:
                return False
            cluster, rank = clusters.get(file, fallback), FILE_KIND_RANK[parser.kind]
            log_rows(before, file, block, cluster, rank)
            times, epochs, controllers = (c[at:at + k] for c in fast_numbers)
            fast_rows.add(parser, times, epochs, file, block, cluster, rank, state["local"], state["events"],
                          np.arange(at, at + k))
            if state["in_order"]:   # one event per line, sub 0, recorded by the deciding controller
                clock, epoch = fast_rows.clock[-1], fast_rows.epoch[-1]
                low, high = int(controllers.min()), int(controllers.max())
                state["in_order"] = low == high and follows(state["local"] + 1, 0, low, int(clock[0]), int(epoch[0]))
                state["last"] = [int(clock[-1]), int(epoch[-1]), state["local"] + k, 0]
            state["events"] += k
            state["local"] += k
            state["nonblank"] += k
            return True

        def events_run(file, block, lines: list[str]) -> pa.RecordBatch | None:
            """A piece's run of JSON-object lines (no blank one) read by ingest.fast_events;
            the rows it cannot vouch for go through `canonical` one by one."""
            enter(file, block)
            table = read_events(lines)
            if table is None:
                for raw in lines:
                    one_line(file, block, raw)
                return None
            table, ok = replayable(table, default_cluster)
            first = state["local"] + 1
            state["local"] += len(lines)
            state["nonblank"] += len(lines)
            for k in pc.indices_nonzero(pc.invert(ok)).to_pylist():
                # Arrow read it, so it is a JSON object with no field but the event's: never a
                # Docker line, which `canonical` alone would hand back.
                if not canonical(lines[k], file, block, first + k):
                    raise AssertionError(f"{file}: line {first + k} read by Arrow but not by json.loads")
            table = table.filter(ok)
            k = len(table)
            given = {"kind": pa.repeat(pa.scalar("event"), k), "file": pa.repeat(pa.scalar(file), k),
                     "block": pa.repeat(pa.scalar(block, pa.int64()), k),
                     "local_line": pc.add(pc.indices_nonzero(ok), first).cast(pa.int64()),
                     "n_lines": pa.repeat(pa.scalar(1, pa.int64()), k), "canonical": pa.repeat(pa.scalar(True), k)}
            columns = [given[f.name].cast(f.type) if f.name in given else pa.nulls(k, f.type) for f in arrow_schema]
            for i, dtype in event_columns:
                columns[i] = table.column(arrow_schema.names[i]).combine_chunks().cast(dtype)
            return pa.RecordBatch.from_arrays(columns, schema=arrow_schema)

        for batch in batches:
            i_raw = batch.schema.get_field_index("raw")
            batch = batch.set_column(i_raw, batch.schema.field(i_raw), valid_utf8(batch.column(i_raw)))
            files = listed_paths(batch.column("file"))
            blocks = batch.column("block").to_pylist()
            digest(files, blocks, batch.column("raw"))
            if fast_events and all_json_objects(batch.column("raw")):
                # Canonical events: each piece's run of lines at once.
                raws = batch.column("raw").to_pylist()
                out, i, n = [], 0, len(raws)
                while i < n:
                    j = i + 1
                    while j < n and files[j] == files[i] and blocks[j] == blocks[i]:
                        j += 1
                    run = events_run(files[i], blocks[i], raws[i:j])
                    if run is not None:
                        out.append(run)
                    i = j
                yield _batch(rows, width, arrow_schema)
                rows.clear()
                yield from out
                continue
            fast, starts = fast_parser.scan(batch.column("raw")) if fast_parser else (None, None)
            runs = _LineRuns(batch, fast_parser.clock) if fast_parser else None
            if fast is None:
                lines_between(files, blocks, batch.column("raw"), 0, len(batch), runs)
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
                fast_numbers[:] = [fast.column(c).to_numpy().astype(np.float64)
                                   for c in ("event_time_ms", "controller_epoch", "controller_id")]
                for start, end in zip(edges[0::2], edges[1::2]):   # each run of fast lines
                    lines_between(files, blocks, raw, done, start, runs)
                    if not fast_run(files[start], blocks[start], fast, int(rank[start]), end - start):
                        lines_between(files, blocks, raw, start, end, runs)
                    done = end
                lines_between(files, blocks, raw, done, n, runs)
            # One batch for the input batch: each batch out costs a pack and a count.
            yield _concatenated([*fast_rows.build(fast), *ignored_rows.build(), _batch(rows, width, arrow_schema)])
            rows.clear()
        close_piece()
        yield _batch(rows, width, arrow_schema)

    def counted(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """`parse`, its rows counted (ingest.counts): each piece's row held back to the end, when
        all of the piece's rows are counted (a piece's row can come before some of its rows)."""
        from pyspark import TaskContext

        from ingest.counts import count_rows, piece_json
        counts: dict[tuple, dict] = {}
        pieces = []
        i_counts, i_file, i_block, i_piece = (names.index(n) for n in ("counts", "file", "block", "piece"))
        # A piece's key: its task's partition, then its place among the task's pieces as they are
        # read (one task reads each piece). Outside Spark (tests), one task.
        task = TaskContext.get()
        first_key = (task.partitionId() if task is not None else 0) << PIECES_PER_TASK_BITS
        keys: dict[tuple, int] = {}

        def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                for uri, block in _pieces_of(batch.column("file"), batch.column("block")):
                    keys.setdefault((unquote(uri), block), first_key + len(keys))
                yield batch

        def keyed(batch: pa.RecordBatch, file: pa.Array) -> pa.RecordBatch:
            files, blocks = batch.column(i_file), batch.column(i_block)
            one = _one_piece(files, blocks)
            if one is not None:   # a run of fast lines (most batches): one key
                column = pa.repeat(pa.scalar(keys[one], pa.int64()), batch.num_rows)
            else:
                column = pa.array([keys[p] for p in zip(files.to_pylist(), blocks.to_pylist())], pa.int64())
            batch = batch.set_column(i_piece, arrow_schema.field(i_piece), column)
            return batch.set_column(i_file, arrow_schema.field(i_file), file)

        uncounted: list[pa.RecordBatch] = []   # counted together: a count's fixed cost is most of a batch's
        held_rows = 0
        for batch in parse(read(batches)):
            some, batch = _pieces_apart(batch)
            if some is not None:
                pieces.append(some)
            if batch.num_rows:
                uncounted.append(batch)
                held_rows += batch.num_rows
                if held_rows >= COUNTED_ROWS:
                    count_rows(uncounted, counts)
                    uncounted.clear()
                    held_rows = 0
                yield keyed(batch, pa.nulls(batch.num_rows, pa.string()))
        count_rows(uncounted, counts)
        if pieces:
            held = pa.Table.from_batches(pieces)
            found = [piece_json(counts.get(key)) for key in zip(held.column("file").to_pylist(), held.column("block").to_pylist())]
            held = held.set_column(i_counts, arrow_schema.field(i_counts), pa.array(found, pa.string()))
            yield from (keyed(b, b.column(i_file)) for b in held.to_batches())

    return counted


def _pieces_apart(batch: pa.RecordBatch) -> tuple[pa.RecordBatch | None, pa.RecordBatch]:
    """A batch of parse rows as (its piece rows, None if it has none; its other rows)."""
    piece = pc.equal(batch.column("kind"), "piece")
    if not pc.any(piece).as_py():
        return None, batch
    return batch.filter(piece), batch.filter(pc.invert(piece))


def packed(parse):
    """`parse` (a parse_function) for the kept parse output (kept_schema): its piece rows as they
    are, each batch of its other rows as one row of kind PACKED holding them (PACKED_ROWS)."""
    schema = pa.schema([pa.field(f.name, arrow_type(f.dataType)) for f in kept_schema().fields])
    i_kind, i_rows = schema.get_field_index("kind"), schema.get_field_index(PACKED_ROWS)
    packed_columns = packed_column_names()

    def pack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        options = pa.ipc.IpcWriteOptions(compression=PACKED_COMPRESSION)   # (made here: it does not pickle)
        for batch in parse(batches):
            pieces, batch = _pieces_apart(batch)
            if pieces is not None:
                yield pieces.append_column(schema.field(i_rows), pa.nulls(pieces.num_rows, pa.binary()))
            if not batch.num_rows:
                continue
            # Only the columns that hold a value (a TRACE log's fast rows leave 24 of the 44 null): a
            # buffer each to pack and unpack, where the unpacking makes their nulls (`unpack_function`).
            batch = batch.select([n for n in packed_columns if batch.column(n).null_count < batch.num_rows])
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, batch.schema, options=options) as writer:
                writer.write_batch(batch)
            columns = [pa.nulls(1, f.type) for f in schema]
            rows = sink.getvalue()   # one value, not copied again
            columns[i_kind] = pa.array([PACKED])
            columns[i_rows] = pa.Array.from_buffers(pa.binary(), 1, [None, pa.py_buffer(np.array([0, rows.size], np.int32)), rows])
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    return pack


def unpack_function(kinds: tuple[str, ...], columns: list[str]):
    """The mapInArrow function: PACKED_ROWS of packed batches (`packed`) -> the parse rows of
    `kinds`, their `columns` (of packed_column_names), in the order they were packed; a column
    a packed batch left out (null in each of its rows) is made of nulls."""
    wanted = pa.array(kinds, pa.string())
    types = [arrow_type(parsed_schema()[c].dataType) for c in columns]

    def unpack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for blob in batch.column(PACKED_ROWS):
                with pa.ipc.open_stream(blob.as_buffer()) as reader:
                    for rows in reader:
                        taken = pc.is_in(rows.column("kind"), wanted)
                        if not pc.all(taken).as_py():
                            rows = rows.filter(taken)
                        if rows.num_rows:
                            held = set(rows.schema.names)
                            yield pa.RecordBatch.from_arrays(
                                [rows.column(c) if c in held else pa.nulls(rows.num_rows, t) for c, t in zip(columns, types)],
                                names=columns)

    return unpack


def _unpacked(kept: DataFrame, kinds: tuple[str, ...], columns: list[str]) -> DataFrame:
    """The parse rows of `kinds`, their `columns`, read from the kept parse output's packed
    batches (`packed`)."""
    parsed = parsed_schema()
    return (kept.where(F.col("kind") == PACKED).select(PACKED_ROWS)
            .mapInArrow(unpack_function(kinds, columns), T.StructType([parsed[c] for c in columns])))


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


class _RunRows:
    """The parse rows of runs of one-line records that a batch's lines give at once (ingest.fast's
    lines: events; heads of loggers the audit does not read: ignored), as the line-by-line path
    writes them (FileParser._record, then log_rows): gathered run by run, built at the batch's
    end in one pass (building costs about as much for a batch as for a run)."""

    def __init__(self, kind: str, arrow_schema: pa.Schema):
        self.kind, self.schema = kind, arrow_schema
        self.runs: list[tuple] = []     # (k, file, block, cluster, rank, local before, events before)
        self.clock: list[np.ndarray] = []   # each run's running clock and epoch: float, NaN for none
        self.epoch: list[np.ndarray] = []
        self.taken: list[np.ndarray] = []   # each run's rows of the lines read (ingest.fast's table)

    def add(self, parser, times: np.ndarray, epochs: np.ndarray | None, file: str, block: int, cluster: str,
            rank: int, local_before: int, events_before: int | None = None, taken: np.ndarray | None = None) -> None:
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
        self.runs.append((len(times), file, block, cluster, rank, local_before, events_before))
        self.clock.append(clock)
        self.epoch.append(epoch)
        if taken is not None:
            self.taken.append(taken)

    def build(self, lines: pa.Table | None = None) -> list[pa.RecordBatch]:
        """The runs' rows (none, or one batch), `lines` the table `taken` indexes; then empty."""
        if not self.runs:
            return []
        k, file, block, cluster, rank, local, events = (np.array(c, dtype=object) for c in zip(*self.runs))
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

        given = {"cluster": each(cluster, pa.string()), "kind": pa.repeat(pa.scalar(self.kind), n),
                 "file": each(file, pa.string()), "block": each(block, pa.int64()),
                 "local_line": pa.array(np.repeat(local.astype(np.int64), k) + within + 1),
                 "n_lines": pa.repeat(pa.scalar(1, pa.int64()), n), "file_rank": each(rank, pa.int32()),
                 "sub": pa.repeat(pa.scalar(0, pa.int32()), n), "canonical": pa.repeat(pa.scalar(False), n),
                 "order_ts": nullable(self.clock, pa.int64()), "order_epoch": nullable(self.epoch, pa.int32())}
        if self.kind == "event":
            given["piece_event"] = pa.array(np.repeat(events.astype(np.int64), k) + within)
        taken = lines.take(pa.array(np.concatenate(self.taken))) if self.taken else None
        self.__init__(self.kind, self.schema)
        return [_assembled(self.schema, n, given, taken)]


def _assembled(arrow_schema: pa.Schema, k: int, given: dict, lines: pa.Table | None = None) -> pa.RecordBatch:
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


class _LineRuns:
    """What the parse takes of a batch's lines a run at once besides ingest.fast's lines: runs
    of heads of loggers the audit does not read (OTHER: the `other` column, other_logger_heads),
    and of plain continuation lines (GLUED: ingest.envelope.plain_continuations); each run
    within one piece."""

    ONE, OTHER, GLUED = 0, 1, 2

    def __init__(self, batch: pa.RecordBatch, clock):
        from ingest.envelope import plain_continuations
        raw = batch.column("raw")
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


def _concatenated(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """Batches of one schema as one."""
    batches = [b for b in batches if b.num_rows] or batches[:1]
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def _one_piece(files: pa.Array, blocks: pa.Array) -> tuple | None:
    """The (file, block) of every row of a batch, if they share one; else None."""
    if len(files) and not files.null_count and pc.all(pc.equal(files, files[0])).as_py() \
            and pc.all(pc.equal(blocks, blocks[0])).as_py():
        return files[0].as_py(), blocks[0].as_py()
    return None


def _pieces_of(files: pa.Array, blocks: pa.Array) -> list[tuple]:
    """The (file, block) pairs of a batch's rows, in the order they first occur."""
    one = _one_piece(files, blocks)
    if one is not None:
        return [one]
    return list(dict.fromkeys(zip(files.to_pylist(), blocks.to_pylist())))


def _batch(rows: list[list], width: int, arrow_schema) -> pa.RecordBatch:
    columns = list(zip(*rows)) if rows else [()] * width
    return pa.RecordBatch.from_arrays([pa.array(c, type=arrow_schema.field(i).type) for i, c in enumerate(columns)],
                                      schema=arrow_schema)


@dataclass
class Ingested:
    events: DataFrame            # canonical events (EVENT_FIELDS), seq set
    # (cluster, event_type) -> profile_aggregates() of those rows of `events`, counted as they were kept.
    profile: dict[tuple, dict]
    quarantine: DataFrame        # cluster, source_file, source_line, reason, raw
    records_read: int
    lines_recognized: int
    records_quarantined: int
    events_deduplicated: int
    files: dict[str, dict] = field(default_factory=dict)
    # cluster -> (file, after, before, events read from its records) per KRaft metadata transaction
    # aborted (its events undone) or, before None, open at the input's end (replayed); file None:
    # offsets of the metadata log, else lines of a dump printed without offsets
    transactions: dict[str, list] = field(default_factory=dict)
    evidence: dict[str, dict] = field(default_factory=dict)   # cluster -> era evidence
    cached: list[DataFrame] = field(default_factory=list)
    # How the log events were put in recorded order: "pieces" (in_recorded_order found each
    # cluster's pieces following one another), "sort" (the global sort), None (no log event).
    log_order: str | None = None
    # Does `events` hold canonical events (their seq given by the input, not numbered here)?
    canonical: bool = False

    @property
    def events_by_type(self) -> dict[tuple, int]:
        """(cluster, event_type) -> rows of `events`."""
        return {k: v["rows"] for k, v in self.profile.items()}

    @property
    def events_kept(self) -> bool:
        """Are the events kept (cached or cut), or read from the kept parse output, its event
        rows unpacked again, on every read?"""
        return any(df is self.events for df in self.cached)

    @property
    def events_count(self) -> int:
        return sum(v["rows"] for v in self.profile.values())

    def release(self) -> None:
        for df in self.cached:
            release(df)


def ingest(spark: SparkSession, files: list[str], clusters: dict[str, str], default_cluster: str | None,
           zone: str = "UTC", fmt: str = "auto") -> Ingested:
    parse = packed(parse_function(clusters, default_cluster, zone, fmt))
    parsed = keep_few(read_pieces(spark, files, other_loggers=fmt != "events").mapInArrow(parse, kept_schema()))
    # The pieces of every file, in order: line numbers and the ordering state carried across splits.
    piece_rows = (parsed.where(F.col("kind") == "piece")
                  .select("file", "block", "local_line", "n_lines", "order_ts", "order_epoch", "q_reason", "digest",
                          "cluster", "piece_event", "file_rank", "recording_broker", "fact", "counts", "piece").collect())
    pieces = sorted((r["file"], r["block"], r["local_line"], r["n_lines"], r["order_ts"], r["order_epoch"], r["q_reason"],
                     r["digest"]) for r in piece_rows)
    misnamed = {p[0]: p[6] for p in pieces if p[6] is not None}
    if misnamed:   # compressed data or an archive its name does not tell of: nothing is written
        release(parsed)
        raise UnreadableInput(unreadable_message(misnamed))
    carried, before = [], {}
    for file, block, lines, _, ts, epoch, _, _ in pieces:
        lines_before, ts_before, epoch_before = before.get(file, (0, None, None))
        carried.append((file, block, lines_before, ts_before, epoch_before))
        before[file] = (lines_before + lines, nullable_max(ts_before, ts), nullable_max(epoch_before, epoch))
    key_of = {(r["file"], r["block"]): r["piece"] for r in piece_rows}
    carry = local_frame(spark, [(key_of[(c[0], c[1])], *c) for c in carried],
                        "piece long, file string, block long, lines_before long, ts_before long, epoch_before int")
    copies = _copies(pieces, clusters, default_cluster)
    of_copies = [k for (file, _), k in key_of.items() if file in copies]

    def rows_of(kinds: tuple[str, ...], columns: list[str], known: dict | None = None) -> DataFrame:
        """The parse rows of `kinds` (their `columns`; the piece's key names the file: carry),
        numbered and carrying the ordering state of the pieces before theirs. `known`: columns
        whose value is known (null in every row, say) as that value, not read from the packed rows:
        each column read back from the workers costs the JVM a check and a copy in every row."""
        known = known or {}
        read = _unpacked(parsed, kinds, [c for c in columns if c != "file" and c not in known])
        if known:
            types = {f.name: f.dataType for f in parsed_schema().fields}
            read = read.select("*", *(F.lit(v).cast(types[c]).alias(c) for c, v in known.items()))
        if copies:   # their lines are quarantined, each as a copy (_copy_lines)
            read = read.where(~F.col("piece").isin(of_copies))
        rows = (read.join(F.broadcast(carry.drop("block")), "piece")
                .withColumn("line", F.col("lines_before") + F.col("local_line"))
                .withColumn("order_ts", F.greatest("order_ts", "ts_before"))
                .withColumn("order_epoch", F.greatest("order_epoch", "epoch_before")))
        if "leading" not in kinds:
            return rows
        # Continuation lines at the start of a later split belong to the record that ends the
        # split before: recognised with it. At a file's start they continue nothing.
        return (rows.withColumn("kind", F.when((F.col("kind") == "leading") & (F.col("lines_before") == 0), "quarantine")
                                .otherwise(F.col("kind")))
                .withColumn("q_reason", F.when((F.col("kind") == "quarantine") & F.col("q_reason").isNull(),
                                               LEADING_REASON).otherwise(F.col("q_reason"))))

    # Per-file accounting (small: files x kinds).
    files: dict[str, dict] = {}
    for file, _, _, nonblank, _, _, _, _ in pieces:
        files.setdefault(file, {"lines": 0, "recognized": 0, "quarantined": 0, "events": 0})["lines"] += nonblank
    for file, kept in copies.items():
        files[file].update(quarantined=files[file]["lines"], copy_of=kept)
    # Also counted: rows from logs (anything but a canonical event or a quarantined line) and
    # rows that matched a log pattern. Canonical-only input has neither, and skips the log steps.
    # The accounting and the era evidence: the pieces' tallies (ingest.counts), grouped by both's
    # keys. Grouped by the catalogue row: its releases (era evidence) are read from the catalogue
    # here, not carried in every parse row.
    first = {(file, block) for file, block, lines_before, _, _ in carried if lines_before == 0}
    counts = {(r["file"], r["block"]): json.loads(r["counts"]) for r in piece_rows if r["file"] not in copies}
    tally = [_with_releases(r) for r in merged_tally((f, c, (f, b) in first) for (f, b), c in counts.items())]
    from_logs = 0
    for r in tally:
        from_logs += r["matched"] + (r["rows"] if r["logged"] else 0)
        info = files.setdefault(r["file"], {"lines": 0, "recognized": 0, "quarantined": 0, "events": 0})
        if r["kind"] == "quarantine":
            info["quarantined"] += r["lines"]
        else:
            info["recognized"] += r["lines"]
        if r["kind"] == "event":
            info["events"] += r["rows"]
    evidence = _era_evidence(tally) if from_logs else {}
    for file, info in files.items():
        info["cluster"] = clusters.get(file, default_cluster)

    quarantine = rows_of(("quarantine", "leading"), ["cluster", "kind", "local_line", "order_ts", "order_epoch", "q_reason",
                                                     "q_raw", "piece"]).where(F.col("kind") == "quarantine").select(
        F.col("cluster"), F.col("file").alias("source_file"), F.col("line").alias("source_line"),
        F.col("q_reason").alias("reason"), F.col("q_raw").alias("raw"))
    if copies:
        quarantine = quarantine.unionByName(_copy_lines(spark, copies, carry, clusters, default_cluster))

    # Which the events need of the parse rows: every field some event holds (the pieces' profiles
    # count them), a log event's order only when the pieces are sorted, and the split between
    # canonical and logged events only when both are there. A TRACE log's fast lines leave 12 of
    # the 31 event fields null.
    some_canonical = any(r["kind"] == "event" and not r["logged"] for r in tally)
    held = {n for c in counts.values() for *_, aggs in c["profile"] for n in EVENT_FIELD_NAMES if aggs[f"held_{n}"]}
    # Topic ids, Raft epochs, copies of one record and the quorum's UNCLEAN lines come only from
    # KRaft dumps and KRaft controller lines: without them those steps (two passes, a window) are skipped.
    kraft = from_logs and any(ev["kraft"] or ev["kraft_ranges"] for ev in evidence.values())
    bases = None if kraft or not from_logs else in_recorded_order([r for r in piece_rows if r["file"] not in copies], carried)
    known = {n: None for n in EVENT_FIELD_NAMES if n not in held}
    if bases is not None:
        known.update({n: None for n in ORDER_COLUMNS if n in EVENT_ROW_EXTRA})
    if not kraft:   # a topic id names a KRaft record's topic (_kraft_events)
        known["topic_id"] = None
    if not some_canonical:
        known["canonical"] = False
    events = rows_of(("event",), [*EVENT_FIELD_NAMES, *(c for c in EVENT_ROW_EXTRA if c != "kind")], known)
    canonical = events.where(F.col("canonical")).withColumn(
        "source_line", F.coalesce("source_line", "line")).withColumn("source_file", F.coalesce("source_file", "file"))
    cast = [F.col(f.name).cast(spark_type(f.type)).alias(f.name) for f in EVENT_FIELDS]
    cached = [parsed]
    dup_counts, transactions, log_order = 0, {}, None
    # Canonical events read, or nothing else to read (an empty frame): else that part of the union
    # would be one more scan of the parse output for no row.
    parts = [canonical.select(cast)] if some_canonical or not from_logs else []
    if from_logs:
        logs = sorted(c for c, ev in evidence.items() if ev["kraft"])   # the clusters whose metadata log is read
        log_order = "sort" if bases is None else "pieces"
        facts = rows_of(("fact",), packed_column_names()) if kraft else None
        logged_events, dup_counts, transactions = _log_events(spark, events, facts, cached, kraft, logs,
                                                              None if bases is None else {key_of[p]: n for p, n in bases.items()})
        parts.append(logged_events.select(cast))
    # Kept: the count, the input gate and every branch of the routing read the events again,
    # and would otherwise each re-derive them from the wide parse output. Unless they are read
    # from the kept parse output alone (its packed event rows unpacked, broadcast joins, the seq
    # added: pieces in recorded order, or canonical events alone): then each read unpacks them
    # again, and the parse counted their profile (ingest.counts): a pass that kept the events a
    # second time would cost about what it saves the later reads. Small frames are still cut
    # (materialize).
    all_events = reduce(DataFrame.unionByName, parts)
    if log_order == "sort":   # the events' seq and (KRaft) the events themselves come after the parse
        all_events, profile = materialize_profiled(all_events, ("cluster", "event_type"), profile_aggregates())
        cached.append(all_events)
    else:   # a logged event's seq is its piece's first plus its index there
        profile = merged_profile((c, (bases or {}).get(piece)) for piece, c in counts.items())
        if sum(i["events"] for i in files.values()) <= LINEAGE_CUT_MAX_ROWS:
            all_events, _ = materialize(all_events)
            cached.append(all_events)
    counted = {k: sum(i[k] for i in files.values()) for k in ("lines", "recognized", "quarantined")}
    return Ingested(all_events, profile, quarantine, counted["lines"], counted["recognized"],
                    counted["quarantined"], dup_counts, files, transactions, evidence, cached, log_order,
                    some_canonical)


def _copies(pieces: list[tuple], clusters: dict[str, str], default_cluster: str | None) -> dict[str, str]:
    """ingest.lines.copied_files of the parsed pieces: a file's digest is its pieces', in order
    (two files with the same lines are split alike; a compressed copy of a file the read splits is
    not found: one larger than the split size, at most 128 MB)."""
    from ingest.lines import copied_files, copy_fingerprint
    by_file: dict[str, list] = {}
    for file, block, _, nonblank, _, _, _, digest in pieces:
        by_file.setdefault(file, []).append((block, nonblank, digest))
    return copied_files({file: copy_fingerprint(file, clusters.get(file, default_cluster or "default"), tuple(found),
                                                sum(n for _, n, _ in found))
                         for file, found in by_file.items()})


def _copy_lines(spark: SparkSession, copies: dict[str, str], carry: DataFrame, clusters: dict[str, str],
                default_cluster: str | None) -> DataFrame:
    """Quarantine rows of every record line of the files that are copies (_copies): read again,
    those files alone, for their lines, numbered as the parse numbered them (`carry`)."""
    from ingest.lines import COPY_REASON

    def number(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        key, local = None, 0
        for batch in batches:
            found = {"file": [], "block": [], "local_line": [], "raw": []}
            for file, block, raw in zip(listed_paths(batch.column("file")), batch.column("block").to_pylist(),
                                        valid_utf8(batch.column("raw")).to_pylist()):
                if (file, block) != key:
                    key, local = (file, block), 0
                local += 1
                if raw and raw.strip():
                    for name, value in zip(found, (file, block, local, raw)):
                        found[name].append(value)
            yield pa.RecordBatch.from_pydict(found, schema=pa.schema(
                [("file", pa.string()), ("block", pa.int64()), ("local_line", pa.int64()), ("raw", pa.string())]))

    fallback = default_cluster or "default"
    why = local_frame(spark, [(f, clusters.get(f, fallback), COPY_REASON.format(file=kept)) for f, kept in copies.items()],
                      "file string, cluster string, reason string")
    return (read_pieces(spark, list(copies)).mapInArrow(number, "file string, block long, local_line long, raw string")
            .join(F.broadcast(carry), ["file", "block"]).join(F.broadcast(why), "file")
            .select("cluster", F.col("file").alias("source_file"), (F.col("lines_before") + F.col("local_line")).alias("source_line"),
                    "reason", "raw"))


def profile_aggregates() -> dict:
    """What the pass that keeps the events also learns of each (cluster, event_type): its first
    and last event time (the run's time window), its controller, liveness and unclean-setting
    changes, how many rows hold each field (a field held by none is not sent to the replay)
    and the values of the few-valued fields (sent as codes). ingest.counts counts the same of
    the parse's rows, when the events are those rows."""
    def change(types, field, value, kept):
        held = F.col(field).isNotNull() if value is None else F.col(field) == value
        return F.collect_list(F.when(F.col("event_type").isin(*types) & held, F.struct("seq", *kept)))

    return {"first_time": F.min("event_time_ms"), "last_time": F.max("event_time_ms"),
            # Each led by its seq (jobs.audit.recorded_changes): (time, epoch, controller) of each
            # controller change, (time, event type, brokers) of each liveness change, (time,
            # topic, value) of each unclean-election setting.
            **{name: change(types, field, value, kept) for name, (types, (field, value), kept) in RECORDED_CHANGES.items()},
            **{f"held_{n}": F.count(n) for n in EVENT_FIELD_NAMES},
            **{f"values_{n}": F.collect_set(n) for n in FEW_VALUED_FIELDS if n != "event_type"}}


def in_recorded_order(pieces: list, carried: list[tuple]) -> dict[tuple, int] | None:
    """(file, block) -> the seq of the piece's first log event, if every piece's log events are
    in recorded order within it (piece_event) and each cluster's pieces, ordered by their first
    event, end before the next begins: then the recorded order is the pieces' runs one after
    another, and no sort is needed (one broker's state-change.log and its rotations). None if
    two pieces of a cluster interleave (several brokers' files): the global sort orders them.
    `pieces`: the piece rows; `carried`: (file, block, lines, clock and epoch before it)."""
    before = {(file, block): rest for file, block, *rest in carried}
    by_cluster: dict[str, list] = {}
    for p in pieces:
        if p["piece_event"] is None:
            return None
        if not p["piece_event"]:
            continue
        lines_before, ts_before, epoch_before = before[(p["file"], p["block"])]
        # Each end's CROSS_FILE_ORDER key as the rows get it (the carried clock and epoch, the
        # file's line), each value as the sort compares it: nulls first.
        ends = [(nullable_max(ts, ts_before), nullable_max(epoch, epoch_before), p["file_rank"], p["recording_broker"], p["file"],
                 lines_before + line, sub) for ts, epoch, line, sub in json.loads(p["fact"])]
        first, last = (tuple((v is not None, v) for v in key) for key in ends)
        by_cluster.setdefault(p["cluster"], []).append((first, last, (p["file"], p["block"]), p["piece_event"]))
    bases = {}
    for runs in by_cluster.values():
        runs.sort()
        seq = 0
        for i, (_, last, piece, n) in enumerate(runs):
            if i + 1 < len(runs) and not last < runs[i + 1][0]:
                return None
            bases[piece] = seq
            seq += n
    return bases


def _log_events(spark: SparkSession, events: DataFrame, facts: DataFrame | None, cached: list[DataFrame], kraft: bool,
                logs: list[str], bases: dict[int, int] | None = None) -> tuple[DataFrame, int, dict]:
    """The events parsed from logs, in recorded order with their seq, how many duplicate
    metadata records were dropped, and the metadata transactions aborted or left open (Ingested.transactions).
    `logs`: the clusters whose metadata log the input holds. `bases`: in_recorded_order's, by the
    pieces' keys (`piece`), when it found the pieces in order (no KRaft dump). Appends what it caches to `cached`."""
    logged = events.where(~F.col("canonical")).withColumn("source_file", F.col("file")).withColumn("source_line", F.col("line"))
    if bases is not None:
        # The pieces' runs follow one another: seq is the piece's first plus the index within it.
        base = local_frame(spark, list(bases.items()), "piece long, _base long")
        numbered = (logged.join(F.broadcast(base), "piece")
                    .withColumn("seq", F.col("_base") + F.col("piece_event")))
        return numbered.select(*EVENT_FIELD_NAMES, *ORDER_COLUMNS), 0, {}
    dup_counts, spans = 0, []
    if kraft:
        logged, dup_counts, spans = _kraft_events(logged, facts, logs)
    # Only what the events and their order need goes through the sort (not the parse's other columns).
    kept = logged.select(*(n for n in EVENT_FIELD_NAMES if n != "seq"), *ORDER_COLUMNS,
                         *([TRANSACTION_SPAN] if spans else []))
    # The sort reads its input three or four times (range sampling, then the shuffle). KRaft's rows
    # come through joins and a window, worth keeping; a ZooKeeper log's are a filter of the cached
    # parse, cheaper to read again than to cache.
    if kraft:
        kept = kept.persist()
        cached.append(kept)
    logged, transactions = _without_aborted(kept, spans) if spans else (kept, {})
    ordered = logged.orderBy(F.asc_nulls_first("cluster"), *(F.asc_nulls_first(c) for c in CROSS_FILE_ORDER))
    numbered = _number_within_cluster(spark, ordered, cached)
    if kraft:
        kept.unpersist()   # the numbered, sorted rows are kept now
    return numbered, dup_counts, transactions


def _kraft_events(logged: DataFrame, facts: DataFrame, logs: list[str]) -> tuple[DataFrame, int, list]:
    """KRaft's part of the logged events: topics named, one row per UNCLEAN election and per
    metadata record, those of metadata transactions tagged (`_tag_transactions`), the Raft
    epochs' ControllerFailovers of the clusters whose metadata log is read (`logs`; the others
    are replayed in a ZooKeeper era, where a Raft epoch is no controller epoch: ingest.local
    alike); how many copies were dropped, and the transactions' spans."""
    # KRaft: topics are named by id; the TopicRecord (a fact) names them.
    names = (facts.where(F.get_json_object("fact", "$.fact") == "topic_name")
             .select("cluster", F.get_json_object("fact", "$.topic_id").alias("topic_id"),
                     F.get_json_object("fact", "$.topic").alias("named")).dropDuplicates(["cluster", "topic_id"]))
    logged = (logged.join(F.broadcast(names), ["cluster", "topic_id"], "left")
              .withColumn("topic", F.coalesce("topic", "named", "topic_id")).drop("named"))
    # KRaft: every controller of the quorum logs "UNCLEAN partition change for t-0 ...: <diff>" as it
    # replays the record; the diff (with its leader epoch) names the one election they all saw.
    unclean = (F.col("event_type") == "UncleanElectionLogged") & F.col("detail").isNotNull()
    logged = logged.where(~unclean).unionByName(
        _first_in_order(logged.where(unclean), ["cluster", "topic", "partition", "leader", "detail"]))
    # The same metadata record in several nodes' dumps: replayed once.
    from_log = logged.where(F.col("source_offset").isNotNull())
    deduped = _first_in_order(from_log, ["cluster", "source_offset", "event_type"])
    logged = logged.where(F.col("source_offset").isNull()).unionByName(deduped)
    dup_counts = from_log.agg(F.count("*").alias("n")).first()["n"] - deduped.count()
    logged, spans = _tag_transactions(logged, facts)
    # A Raft epoch's ControllerFailover is no record of a transaction: untagged, it stays.
    failovers = _raft_failovers(facts.where(F.col("cluster").isin(logs)))
    return logged.unionByName(failovers, allowMissingColumns=True), int(dup_counts), spans


def _tag_transactions(logged: DataFrame, facts: DataFrame) -> tuple[DataFrame, list]:
    """The logged events, each of an aborted or still open metadata transaction's records tagged
    with that transaction's index in the returned (cluster, file, after, before) spans
    (ingest.kraft.transaction_spans; the markers are few, read on the driver). `_log_events`
    counts the tagged rows and drops the aborted ones once they are kept (one evaluation of the
    join, not two)."""
    kind = F.get_json_object("fact", "$.fact")
    offset = F.get_json_object("fact", "$.source_offset").cast("long")
    markers: dict[tuple, list] = {}
    for r in (facts.where(kind == "metadata_transaction")
              .select("cluster", "file", "line", offset.alias("offset"),
                      F.get_json_object("fact", "$.marker").alias("marker")).collect()):
        log, at = metadata_log_position(r["file"], r["line"], r["offset"])
        markers.setdefault((r["cluster"], log), []).append((at, r["marker"]))
    spans = [(cluster, file, lo, hi) for (cluster, file), found in markers.items() for lo, hi in transaction_spans(found)]
    if not spans:
        return logged, []
    table = F.broadcast(local_frame(
        logged.sparkSession, [(i, *span) for i, span in enumerate(spans)],
        f"{TRANSACTION_SPAN} int, a_cluster string, a_file string, a_lo long, a_hi long"))
    # metadata_log_position as a join condition; a log's spans are disjoint, so a row meets at most one.
    at = F.coalesce(F.col("source_offset"), F.col("line"))
    in_span = (F.col("cluster").eqNullSafe(F.col("a_cluster")) & (at > F.col("a_lo"))
               & (F.col("a_hi").isNull() | (at < F.col("a_hi")))
               & F.when(F.col("a_file").isNull(), F.col("source_offset").isNotNull())
               .otherwise(F.col("source_offset").isNull() & (F.col("file") == F.col("a_file"))))
    return logged.join(table, in_span, "left").drop("a_cluster", "a_file", "a_lo", "a_hi"), spans


def _without_aborted(logged: DataFrame, spans: list) -> tuple[DataFrame, dict]:
    """The kept, tagged rows (`_tag_transactions`) less the aborted transactions' ones (an open
    one's stay), and cluster -> (file, after, before, events read from its records) per
    transaction (Ingested.transactions)."""
    counts = {r[TRANSACTION_SPAN]: r["n"] for r in logged.where(F.col(TRANSACTION_SPAN).isNotNull())
              .groupBy(TRANSACTION_SPAN).agg(F.count("*").alias("n")).collect()}
    transactions: dict[str, list] = {}
    for i, (cluster, file, lo, hi) in enumerate(spans):
        transactions.setdefault(cluster, []).append((file, lo, hi, counts.get(i, 0)))
    undone = [i for i, (*_, hi) in enumerate(spans) if hi is not None]
    kept = F.col(TRANSACTION_SPAN).isNull() | ~F.col(TRANSACTION_SPAN).isin(undone)
    return logged.where(kept).drop(TRANSACTION_SPAN), transactions


def _first_in_order(df: DataFrame, keys: list[str]) -> DataFrame:
    """One row per key, the first in recorded order (CROSS_FILE_ORDER): which node's copy of a
    record is kept, and so its provenance, is pinned, and is the one ingest.local keeps."""
    first = Window.partitionBy(*keys).orderBy(*(F.asc_nulls_first(c) for c in CROSS_FILE_ORDER))
    return df.withColumn("_rank", F.row_number().over(first)).where(F.col("_rank") == 1).drop("_rank")


def _number_within_cluster(spark: SparkSession, ordered: DataFrame, cached: list[DataFrame]) -> DataFrame:
    """`seq` = the row's position within its cluster in `ordered` (0, 1, 2, ...), as the local
    ingest numbers it. `monotonically_increasing_id` keeps the order but carries the physical
    partition in its high bits, so on its own it would differ with Spark's partitioning; here
    each (partition, cluster) run of the sorted rows is shifted by the rows of that cluster
    in the partitions before it (one small aggregate: partitions x clusters rows)."""
    numbered = ordered.select("*", F.spark_partition_id().alias("_part"),
                              F.monotonically_increasing_id().alias("_id")).persist()
    cached.append(numbered)
    runs = numbered.groupBy("_part", "cluster").agg(F.min("_id").alias("first"), F.count("*").alias("n")).collect()
    shifts, before = [], {}
    for r in sorted(runs, key=lambda r: (r["_part"], r["cluster"] is not None, r["cluster"] or "")):
        shifts.append((r["_part"], r["cluster"], before.get(r["cluster"], 0) - r["first"]))
        before[r["cluster"]] = before.get(r["cluster"], 0) + r["n"]
    shift = local_frame(spark, shifts, "_part int, cluster string, _shift long")
    on = (numbered["_part"] == shift["_part"]) & numbered["cluster"].eqNullSafe(shift["cluster"])
    return (numbered.join(F.broadcast(shift), on, "left")
            .select(numbered["*"], (F.col("_id") + F.col("_shift")).alias("seq")).drop("_part", "_id"))


def _raft_failovers(facts: DataFrame) -> DataFrame:
    """One ControllerFailover per Raft epoch of a KRaft metadata log (batch headers carry
    the epoch as partitionLeaderEpoch), placed at the first batch of that epoch, else at a
    KRaft controller.log line that names it. The controller is the leader the log's
    LeaderChange record (at its batch's offset) or that line names (ingest.local alike)."""
    raft = facts.where(F.get_json_object("fact", "$.fact") == "raft_epoch")
    epoch = F.get_json_object("fact", "$.epoch").cast("int")
    leader_changes = raft.where(epoch.isNull()).select(
        "cluster", F.get_json_object("fact", "$.offset").cast("long").alias("source_offset"),
        F.get_json_object("fact", "$.leader").cast("int").alias("named")).dropDuplicates()
    epochs = raft.where(epoch.isNotNull()).select(
        "cluster", "file", "line", "order_ts", "order_epoch", "file_rank", "recording_broker",
        epoch.alias("controller_epoch"),
        F.get_json_object("fact", "$.leader").cast("int").alias("controller_id"),
        F.get_json_object("fact", "$.base_offset").cast("long").alias("source_offset"))
    first = epochs.join(leader_changes, ["cluster", "source_offset"], "left").groupBy("cluster", "controller_epoch").agg(
        F.min(F.struct(F.col("source_offset").isNull().alias("from_log"), "source_offset", "order_ts", "file", "line",
                       "order_epoch", "file_rank")).alias("m"),
        F.max(F.greatest("controller_id", "named")).alias("controller_id"))
    return first.select(
        "cluster", "controller_epoch", "controller_id", F.lit("ControllerFailover").alias("event_type"),
        F.col("m.file").alias("source_file"), F.col("m.file").alias("file"), F.col("m.line").alias("line"),
        F.col("m.line").alias("source_line"), F.col("m.source_offset").alias("source_offset"),
        F.col("m.order_ts").alias("order_ts"), F.col("m.order_epoch").alias("order_epoch"),
        F.col("m.file_rank").alias("file_rank"), F.lit(-1).alias("sub"), F.lit(None).cast("int").alias("recording_broker"))


def _with_releases(tallied: dict) -> dict:
    """A tally row with its catalogue row's first and last release (v_first, v_last; None for no
    row) and whether it is a KRaft controller's line."""
    from ingest.catalog import pattern_named
    pattern = tallied["pattern"] and pattern_named(tallied["pattern"])
    tallied["v_first"], tallied["v_last"] = (pattern.first, pattern.last) if pattern else (None, None)
    tallied["kraft_controller"] = bool(pattern) and pattern.name.startswith(CONTROLLER_ROW_PREFIX)
    return tallied


def _era_evidence(tally: list) -> dict[str, dict]:
    """cluster -> {"ranges": [(first, last, n)], "versions": [...], "kraft": bool,
    "kraft_ranges": [(first, last, n)] (the KRaft controller's own lines), "levels": [metadata.version
    levels]}, from the tally's rows that matched a catalogue row (small)."""
    out: dict[str, dict] = {}
    for r in tally:
        if r["v_first"] is None:   # no catalogue row: a canonical event or a quarantined line
            continue
        ev = out.setdefault(r["cluster"], {"ranges": [], "versions": [], "kraft": False, "kraft_ranges": [], "levels": []})
        ev["ranges"].append((r["v_first"], r["v_last"], r["matched"]))
        if r["kraft_controller"]:
            ev["kraft_ranges"].append((r["v_first"], r["v_last"], r["matched"]))
        if r["version"]:
            ev["versions"].append(r["version"])
        if r["level"] is not None:
            ev["levels"].append(r["level"])
        if r["dump"]:
            ev["kraft"] = True
    return out
