"""Inputs -> canonical events inside Spark: canonical-event JSON lines, and the logs real
clusters write (ingest/), in one pass over the text.

1. The text source reads every file in splits; each row carries its file and split offset.
2. `mapInArrow` runs `ingest.splits.SplitParser` over each split in file order (the driver
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

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import reduce

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.window import Window

from ingest.compressed import UnreadableInput, checked_suffix
from ingest.counts import BROKERS_NAMED, RECORDED_CHANGES, merged_profile, merged_tally, nullable_max
from ingest.coverage import BROKER_FIELDS, DEFAULT_GAP_MS, merged_files
from ingest.detect import EraEvidence
from ingest.envelope import LEADING_REASON
from ingest.ingested import Ingested
from ingest.lines import CROSS_FILE_ORDER, URI_SCHEME_AND_AUTHORITY
from ingest.parse_rows import EXTRA, pieces_apart
from ingest.splits import PIECES_PER_TASK_BITS, SplitParser, listed_paths, valid_utf8
from ingest.transactions import MetadataTransaction, metadata_transactions, transactions_read
from jobs.session import LINEAGE_CUT_MAX_ROWS, keep_few, local_frame, materialize, materialize_profiled, release
from schemas.events import EVENT_FIELD_NAMES, EVENT_FIELDS, FEW_VALUED_FIELDS
from schemas.types import JSON_TYPES
from schemas.types import arrow_type as schema_arrow_type
from schemas.types import spark_type

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
    """The parse rows' columns (ingest.parse_rows) as Spark types."""
    fields = [T.StructField(f.name, loose_arrays(spark_type(f.type)), True) for f in EVENT_FIELDS]
    fields += [T.StructField(n, spark_type(t), True) for n, t in EXTRA]
    return T.StructType(fields)


def parse_function(clusters: dict[str, str], default_cluster: str | None, zone: str, fmt: str, use_fast: bool = True,
                   gap_ms: int = DEFAULT_GAP_MS):
    """The mapInArrow function: split rows (read_pieces) -> parse rows (parsed_schema), by
    ingest.splits.SplitParser, each task's pieces keyed above its partition's bits."""
    def parse(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        task = TaskContext.get()   # outside Spark (tests), one task
        first_key = (task.partitionId() if task is not None else 0) << PIECES_PER_TASK_BITS
        yield from SplitParser(clusters, default_cluster, zone, fmt, use_fast, gap_ms).rows(batches, first_key)

    return parse


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
    # A line that ends naming the state-change logger is audited whatever the head regex finds
    # (its logger group, up to the last `)`, can only be that one): nearly all of a TRACE log,
    # told without running the regex.
    logger = F.regexp_extract(F.when(raw.endswith(" (state.change.logger)"), F.lit("")).otherwise(raw), head, 1)

    def starts(prefixes) -> Column:
        return reduce(lambda a, b: a | b, (logger.startswith(p) for p in prefixes))

    audited = ((starts(AUDITED_LOGGERS) & ~starts(NOT_AUDITED_LOGGERS)) | logger.isin(*AUDITED_SHORT_LOGGERS)
               | logger.endswith(".StateChangeLogger"))
    return (logger != "") & ~audited & ~raw.contains("Controller ") & ~raw.rlike(body)


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


def packed(parse):
    """`parse` (a parse_function) for the kept parse output (kept_schema): its piece rows as they
    are, each batch of its other rows as one row of kind PACKED holding them (PACKED_ROWS)."""
    schema = pa.schema([pa.field(f.name, arrow_type(f.dataType)) for f in kept_schema().fields])
    i_kind, i_rows = schema.get_field_index("kind"), schema.get_field_index(PACKED_ROWS)
    packed_columns = packed_column_names()

    def pack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        options = pa.ipc.IpcWriteOptions(compression=PACKED_COMPRESSION)   # (made here: it does not pickle)
        for batch in parse(batches):
            pieces, batch = pieces_apart(batch)
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


@dataclass
class IngestedFrames(Ingested):
    """Ingested as DataFrames, with what the Spark ingest keeps of them."""
    # (cluster, event_type) -> profile_aggregates() of those rows of `events`, counted as they were kept.
    profile: dict[tuple, dict] = field(default_factory=dict)
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
           zone: str = "UTC", fmt: str = "auto", gap_ms: int = DEFAULT_GAP_MS) -> IngestedFrames:
    parse = packed(parse_function(clusters, default_cluster, zone, fmt, gap_ms=gap_ms))
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
    # Each file's and broker's line times, from its pieces' (ingest.coverage): no pass over the lines.
    activity = merged_files(((f, c.get("activity", [])) for (f, _), c in counts.items()), gap_ms)
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
    # KRaft dumps, KRaft controller lines and the Raft client's: without them those steps (two
    # passes, a window) are skipped.
    kraft = from_logs and any(ev.kraft_lines for ev in evidence.values())
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
        raft = sorted(c for c, ev in evidence.items() if ev.kraft_mode)   # whose Raft epochs are controller changes
        log_order = "sort" if bases is None else "pieces"
        facts = rows_of(("fact",), packed_column_names()) if kraft else None
        logged_events, dup_counts, transactions = _log_events(spark, events, facts, cached, kraft, raft,
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
    return IngestedFrames(all_events, quarantine, files, evidence, transactions, dup_counts, activity=activity,
                          profile=profile, cached=cached, log_order=log_order, canonical=some_canonical)


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
    changes, the broker ids its events name as leaders, ISR members or replicas (input_coverage's
    missing brokers are among them), how many rows hold each field (a field held by none is not
    sent to the replay) and the values of the few-valued fields (sent as codes). ingest.counts
    counts the same of the parse's rows, when the events are those rows."""
    def change(types, field, value, kept):
        held = F.col(field).isNotNull() if value is None else F.col(field) == value
        return F.collect_list(F.when(F.col("event_type").isin(*types) & held, F.struct("seq", *kept)))

    # The broker ids each event names (a null list names none), its lists collected as a set.
    field_types = {f.name: f.type for f in EVENT_FIELDS}
    ids = F.concat(*(F.coalesce(F.col(n), F.array().cast("array<int>")) if field_types[n] == "array<int>" else F.array(F.col(n))
                     for n in BROKER_FIELDS))
    return {"first_time": F.min("event_time_ms"), "last_time": F.max("event_time_ms"),
            BROKERS_NAMED: F.array_sort(F.array_distinct(F.flatten(F.collect_set(F.filter(ids, lambda b: b >= 0))))),
            # Each led by its seq (jobs.earlier.recorded_runs): (time, epoch, controller) of each
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
                raft: list[str], bases: dict[int, int] | None = None) -> tuple[DataFrame, int, dict]:
    """The events parsed from logs, in recorded order with their seq, how many duplicate
    metadata records were dropped, and the metadata transactions aborted or left open (Ingested.transactions).
    `raft`: the clusters whose Raft epochs are controller changes (EraEvidence.kraft_mode). `bases`: in_recorded_order's, by the
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
        logged, dup_counts, spans = _kraft_events(logged, facts, raft)
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


def _kraft_events(logged: DataFrame, facts: DataFrame, raft: list[str]) -> tuple[DataFrame, int, list]:
    """KRaft's part of the logged events: topics named, one row per UNCLEAN election and per
    metadata record, those of metadata transactions tagged (`_tag_transactions`), the Raft
    epochs' ControllerFailovers of the `raft` clusters (EraEvidence.kraft_mode: beside a dump,
    or a KRaft-mode cluster's lines alone, not a ZooKeeper-to-KRaft migration's; ingest.local
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
    failovers = _raft_failovers(facts.where(F.col("cluster").isin(raft)))
    return logged.unionByName(failovers, allowMissingColumns=True), int(dup_counts), spans


def _tag_transactions(logged: DataFrame, facts: DataFrame) -> tuple[DataFrame, list[MetadataTransaction]]:
    """The logged events, each of an aborted or still open metadata transaction's records tagged
    with that transaction's index in the returned transactions (ingest.transactions.metadata_transactions;
    the markers are few, read on the driver). `_log_events` counts the tagged rows and drops the
    aborted ones once they are kept (one evaluation of the join, not two)."""
    kind = F.get_json_object("fact", "$.fact")
    offset = F.get_json_object("fact", "$.source_offset").cast("long")
    spans = metadata_transactions(
        (r["cluster"], r["file"], r["line"], r["offset"], r["marker"]) for r in (
            facts.where(kind == "metadata_transaction")
            .select("cluster", "file", "line", offset.alias("offset"),
                    F.get_json_object("fact", "$.marker").alias("marker")).collect()))
    if not spans:
        return logged, []
    table = F.broadcast(local_frame(
        logged.sparkSession, [(i, *span) for i, span in enumerate(spans)],
        f"{TRANSACTION_SPAN} int, a_cluster string, a_file string, a_lo long, a_hi long"))
    # MetadataTransaction.holds as a join condition; a log's spans are disjoint, so a row meets at most one.
    at = F.coalesce(F.col("source_offset"), F.col("line"))
    in_span = (F.col("cluster").eqNullSafe(F.col("a_cluster")) & (at > F.col("a_lo"))
               & (F.col("a_hi").isNull() | (at < F.col("a_hi")))
               & F.when(F.col("a_file").isNull(), F.col("source_offset").isNotNull())
               .otherwise(F.col("source_offset").isNull() & (F.col("file") == F.col("a_file"))))
    return logged.join(table, in_span, "left").drop("a_cluster", "a_file", "a_lo", "a_hi"), spans


def _without_aborted(logged: DataFrame, spans: list[MetadataTransaction]) -> tuple[DataFrame, dict]:
    """The kept, tagged rows (`_tag_transactions`) less the aborted transactions' ones (an open
    one's stay), and what was read of each transaction (ingest.transactions.transactions_read)."""
    counts = {r[TRANSACTION_SPAN]: r["n"] for r in logged.where(F.col(TRANSACTION_SPAN).isNotNull())
              .groupBy(TRANSACTION_SPAN).agg(F.count("*").alias("n")).collect()}
    undone = [i for i, t in enumerate(spans) if t.undone]
    kept = F.col(TRANSACTION_SPAN).isNull() | ~F.col(TRANSACTION_SPAN).isin(undone)
    return logged.where(kept).drop(TRANSACTION_SPAN), transactions_read(spans, counts)


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
    """One ControllerFailover per (cluster, Raft epoch) of a KRaft metadata log (batch headers
    carry the epoch as partitionLeaderEpoch) or of the lines that name one (the Raft client's
    election states, the controller's `In the new epoch`), placed at the first batch of that
    epoch, else at the first such line. The controller is the leader the log's LeaderChange
    record (at its batch's offset) or those lines name (ingest.local alike)."""
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
    """A tally row with its catalogue row's first and last release (v_first, v_last; None for no row)."""
    from ingest.catalog import pattern_named
    pattern = tallied["pattern"] and pattern_named(tallied["pattern"])
    tallied["v_first"], tallied["v_last"] = (pattern.first, pattern.last) if pattern else (None, None)
    return tallied


def _era_evidence(tally: list) -> dict[str, EraEvidence]:
    """cluster -> what its lines tell of its release, from the tally's rows that matched a
    catalogue row (small)."""
    out: dict[str, EraEvidence] = {}
    for r in tally:
        if r["v_first"] is None:   # no catalogue row: a canonical event or a quarantined line
            continue
        ev = out.setdefault(r["cluster"], EraEvidence())
        ev.matched(r["v_first"], r["v_last"], r["pattern"], r["matched"])
        if r["version"]:
            ev.versions.append(r["version"])
        if r["level"] is not None:
            ev.levels.append(r["level"])
        if r["dump"]:
            ev.kraft = True
    return out
