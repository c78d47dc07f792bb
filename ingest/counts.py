"""What the ingest counts of each piece's parse rows, counted by the parse itself (pyarrow, in
the Spark workers) and carried to the driver on the piece's row: each a pass over the parse's
whole output fewer (jobs/ingest_spark.py).

- The tally: lines, rows and rows that matched a catalogue row, per kind, catalogue row and
  era fact (the per-file accounting and the era evidence).
- The activity of the piece's lines: per stream (`tag`), the first and last time of its lines and
  of its log events, and the holes between them at least the gap long (ingest.coverage.Activity).
- The profile of the piece's events: per (cluster, event type), what
  jobs.ingest_spark.profile_aggregates computes of the events (rows, first and last time, how many
  rows hold each field, the few-valued fields' values, the recorded changes, the brokers its
  events name). A logged event's seq is the piece's first plus its index in the piece, known
  once the driver has ordered the pieces (jobs.ingest_spark.in_recorded_order): `merged_profile` adds it. When the pieces are sorted
  instead, or KRaft's records change the events, Spark computes the profile of the events as
  they come out (the driver cannot).

No Spark here: plain values in, plain values out, so that the parse and the tests call the same
code."""
from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.coverage import BROKER_FIELDS, DEFAULT_GAP_MS, activity_of, merged
from schemas.events import EVENT_FIELD_NAMES, FEW_VALUED_FIELDS
from state_machine import events as E
from state_machine.carried import CONFIG_EVENTS, LIVENESS_CHANGES, UNCLEAN_CONFIG

# The changes an audit records and the next one carries (jobs.earlier.RECORDED_CHANGES): name ->
# (the event types, the field each must hold and the value it must have, None for any, the
# fields kept after seq). Read by jobs.ingest_spark.profile_aggregates and `_count_profile`.
RECORDED_CHANGES: dict[str, tuple[tuple[str, ...], tuple[str, str | None], tuple[str, ...]]] = {
    "controller_changes": (tuple(sorted(E.CONTROLLER_CHANGES)), ("controller_epoch", None),
                           ("event_time_ms", "controller_epoch", "controller_id")),
    "broker_changes": (tuple(LIVENESS_CHANGES), ("brokers", None), ("event_time_ms", "event_type", "brokers")),
    "config_changes": (tuple(CONFIG_EVENTS), ("config_name", UNCLEAN_CONFIG), ("event_time_ms", "topic", "config_value")),
}
# The profile's broker ids its events name as leaders, ISR members or replicas (coverage.BROKER_FIELDS),
# sorted: input_coverage's missing brokers are among them.
BROKERS_NAMED = "brokers_named"
# The tally's key, after (file, block): as jobs.ingest_spark.ingest groups the rows. `logged`: a
# row from a log (neither a canonical event nor a quarantined line); `dump`: from a KRaft
# metadata dump; `version` and `level`: a kafka_version fact's and a metadata_version fact's.
TALLY_KEY = ("kind", "logged", "cluster", "pattern", "dump", "version", "level")
VALUED = tuple(n for n in FEW_VALUED_FIELDS if n != "event_type")   # event_type is the profile's key
# A row's fields the ingest sets after the parse, on every event (seq on a logged one).
SET_AFTER = ("source_file", "source_line")
_PIECE = ("file", "block")


def count_rows(batches: list[pa.RecordBatch], into: dict[tuple, dict],
               gap_ms: int = DEFAULT_GAP_MS) -> None:
    """Add batches of parse rows (ingest.parse_rows, no piece row) to the counts of
    their pieces: (file, block) -> {"tally": {key: [lines, rows, matched]}, "activity": {tag:
    [lines, events]}, "profile": {(cluster, event type, canonical): aggregates}}. Several batches
    at once cost little more than one."""
    batches = [b for b in batches if b.num_rows]
    if not batches:
        return
    table = pa.Table.from_batches(batches)
    _count_tally(table, into)
    _count_activity(table, into, gap_ms)
    kind = table.column("kind")
    events = table if pc.all(pc.equal(kind, "event")).as_py() else table.filter(pc.equal(kind, "event"))
    if events.num_rows:
        _count_profile(events, into)


def _fact_fields(fact: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """Each row's `version` and `level` (TALLY_KEY) from its fact, as Spark's get_json_object reads
    them: a string as it is, another value as its JSON; level only of a metadata_version fact."""
    n = len(fact)
    versions, levels = [None] * n, [None] * n
    if fact.null_count < n:
        for i in pc.indices_nonzero(pc.is_valid(fact)).to_pylist():
            data = json.loads(fact[i].as_py())
            if not isinstance(data, dict):
                continue
            version = data.get("version")
            versions[i] = version if isinstance(version, str) or version is None else json.dumps(version, separators=(",", ":"))
            if data.get("fact") == "metadata_version" and data.get("level") is not None:
                levels[i] = int(data["level"])
    return pa.array(versions, pa.string()), pa.array(levels, pa.int32())


def _count_tally(table: pa.Table, into: dict) -> None:
    kind = table.column("kind")
    plain = pc.or_(pc.equal(kind, "quarantine"),
                   pc.and_(pc.equal(kind, "event"), pc.fill_null(table.column("canonical"), False)))
    version, level = _fact_fields(table.column("fact"))
    keyed = pa.table({"file": table.column("file"), "block": table.column("block"), "kind": kind,
                      "logged": pc.invert(plain), "cluster": table.column("cluster"),
                      "pattern": table.column("pattern"), "dump": pc.equal(table.column("file_rank"), 3),
                      "version": version, "level": level, "n_lines": table.column("n_lines")})
    for r in _grouped(keyed, [*_PIECE, *TALLY_KEY], [("n_lines", "sum"), ("pattern", "count")]):
        found = into.setdefault((r["file"], r["block"]), _empty())["tally"]
        key = tuple(r[k] for k in TALLY_KEY)
        found[key] = _summed(found.get(key), [r["n_lines_sum"], r["count_all"], r["pattern_count"]])


def _count_activity(table: pa.Table, into: dict, gap_ms: int) -> None:
    """Each piece's and stream's line times and log-event times (canonical events have no clock
    here and take no part), merged into what the piece's rows counted before (coverage.merged)."""
    ts = table.column("order_ts")
    if ts.null_count == table.num_rows:
        return
    timed = table.filter(pc.is_valid(ts)) if ts.null_count else table
    logged = pc.and_(pc.equal(timed.column("kind"), "event"), pc.invert(pc.fill_null(timed.column("canonical"), False)))
    ts = timed.column("order_ts")
    keyed = pa.table({"file": timed.column("file"), "block": timed.column("block"), "tag": timed.column("tag"),
                      "ts": ts, "event_ts": pc.if_else(logged, ts, pa.scalar(None, pa.int64()))})
    for r in _grouped(keyed, list(_PIECE) + ["tag"], [("ts", "list"), ("event_ts", "list")]):
        found = into.setdefault((r["file"], r["block"]), _empty())["activity"]
        had = found.setdefault(r["tag"], [None, None])
        for k, times in enumerate((r["ts_list"], r["event_ts_list"])):
            times = np.array([t for t in times if t is not None], dtype=np.int64)
            had[k] = merged(had[k], activity_of(times, gap_ms), gap_ms)


def _count_profile(events: pa.Table, into: dict) -> None:
    canonical = pc.fill_null(events.column("canonical"), False)
    keyed = events.select([*_PIECE, *EVENT_FIELD_NAMES]).append_column("_canonical", canonical)
    key = [*_PIECE, "cluster", "event_type", "_canonical"]
    aggregates = [("event_time_ms", "min"), ("event_time_ms", "max")]
    aggregates += [(n, "count") for n in EVENT_FIELD_NAMES]
    aggregates += [(n, "distinct", pc.CountOptions(mode="only_valid")) for n in VALUED]
    for r in _grouped(keyed, key, aggregates):
        found = into.setdefault((r["file"], r["block"]), _empty())["profile"]
        group = (r["cluster"], r["event_type"], r["_canonical"])
        _add_profile(found, group, {"rows": r["count_all"], "first_time": r["event_time_ms_min"],
                                    "last_time": r["event_time_ms_max"],
                                    **{f"held_{n}": r[f"{n}_count"] for n in EVENT_FIELD_NAMES},
                                    **{f"values_{n}": r[f"{n}_distinct"] for n in VALUED},
                                    **{name: [] for name in RECORDED_CHANGES}, BROKERS_NAMED: []})
    for r in _brokers_named(keyed, key):
        group = (r["cluster"], r["event_type"], r["_canonical"])
        found = into[(r["file"], r["block"])]["profile"][group]
        found[BROKERS_NAMED] = sorted(set(found[BROKERS_NAMED]) | set(r["_broker_distinct"]))
    for name, (types, (field, value), kept) in RECORDED_CHANGES.items():
        held = pc.is_in(events.column("event_type"), pa.array(types))
        held = pc.and_(held, pc.is_valid(events.column(field)) if value is None else pc.equal(events.column(field), value))
        held = pc.fill_null(held, False)
        if not pc.any(held).as_py():
            continue
        # A change is led by what gives its seq: a canonical event's own, a logged one's index in its piece.
        changes = events.filter(held).append_column("_canonical", canonical.filter(held))
        for r in changes.select([*_PIECE, "cluster", "event_type", "_canonical", "seq", "piece_event", *kept]).to_pylist():
            group = (r["cluster"], r["event_type"], r["_canonical"])
            lead = r["seq"] if r["_canonical"] else r["piece_event"]
            found = into.setdefault((r["file"], r["block"]), _empty())["profile"]
            found[group][name].append([lead, *(r[k] for k in kept)])


def _brokers_named(keyed: pa.Table, key: list[str]) -> list[dict]:
    """Per group of `key`, the distinct broker ids (`_broker_distinct`) its events name in
    coverage.BROKER_FIELDS: each list's members, each id at or above 0."""
    named = []
    for n in BROKER_FIELDS:
        column = keyed.column(n).combine_chunks()
        if column.null_count == len(column):
            continue
        if pa.types.is_list(column.type):
            ids, rows = pc.list_flatten(column), pc.list_parent_indices(column)
        else:
            ids, rows = column, pa.array(np.arange(len(column)))
        held = pc.fill_null(pc.greater_equal(ids, 0), False)
        named.append(keyed.select(key).take(pc.filter(rows, held))
                     .append_column("_broker", pc.filter(ids, held).cast(pa.int64())))
    if not named:
        return []
    return pa.concat_tables(named).group_by(key, use_threads=False).aggregate([("_broker", "distinct")]).to_pylist()


def _grouped(table: pa.Table, keys: list[str], aggregates: list[tuple]) -> list[dict]:
    """table.group_by(keys).aggregate(aggregates), as dicts, with `count_all`, on the grouping
    alone of what varies: a key or aggregated column null in every row (most of a fast batch's)
    adds no work. A parse batch is counted so, in the hot path."""
    n = table.num_rows
    empty = {c for c in {*keys, *(a[0] for a in aggregates)} if table.column(c).null_count == n}
    # One key at least: with none pyarrow aggregates with its scalar functions, which have no `distinct`.
    grouping = [k for k in keys if k not in empty] or keys[:1]
    empty -= set(grouping)
    asked = [a for a in aggregates if a[0] not in empty]
    # A count of a column with no null is its group's rows.
    counted = [a for a in asked if a[1] == "count" and table.column(a[0]).null_count == 0]
    asked = [a for a in asked if a not in counted]
    rows = table.group_by(grouping, use_threads=False).aggregate([([], "count_all"), *asked]).to_pylist()
    nothing = {"count": 0, "sum": None, "min": None, "max": None, "distinct": [], "list": []}
    for r in rows:
        for k in keys:
            if k in empty:
                r[k] = None
        for name, how, *_ in aggregates:
            if name in empty:
                r[f"{name}_{how}"] = nothing[how]
        for name, how, *_ in counted:
            r[f"{name}_{how}"] = r["count_all"]
    return rows


def _empty() -> dict:
    return {"tally": {}, "activity": {}, "profile": {}}


def _summed(a: list | None, b: list) -> list:
    return b if a is None else [x if y is None else y if x is None else x + y for x, y in zip(a, b)]


def nullable_min(a, b):
    """The smaller of `a` and `b`, either of which may be None (unknown), as Spark's min reads nulls."""
    return b if a is None else a if b is None else min(a, b)


def nullable_max(a, b):
    """The larger of `a` and `b`, either of which may be None (unknown), as Spark's greatest reads nulls."""
    return b if a is None else a if b is None else max(a, b)


def _add_profile(found: dict, group: tuple, add: dict) -> None:
    """Merge `add` (a group's aggregates) into found[group]."""
    had = found.get(group)
    if had is None:
        found[group] = add
        return
    had["first_time"] = nullable_min(had["first_time"], add["first_time"])
    had["last_time"] = nullable_max(had["last_time"], add["last_time"])
    for k, v in add.items():
        if k == "rows" or k.startswith("held_") or k in RECORDED_CHANGES:
            had[k] += v
        elif k.startswith("values_") or k == BROKERS_NAMED:   # sets, kept sorted
            had[k] = sorted(set(had[k]) | set(v))


def piece_json(counts: dict | None) -> str:
    """A piece's counts as its piece row carries them: JSON, the same however the rows were batched."""
    counts = counts or _empty()
    profile = []
    for (cluster, event_type, canonical), aggs in sorted(counts["profile"].items(), key=lambda kv: repr(kv[0])):
        aggs = dict(aggs)
        for n in VALUED:
            aggs[f"values_{n}"] = sorted(aggs[f"values_{n}"])
        for name in RECORDED_CHANGES:
            aggs[name] = sorted(aggs[name], key=lambda c: c[0])
        profile.append([cluster, event_type, canonical, aggs])
    tally = sorted(([*key, *counted] for key, counted in counts["tally"].items()), key=repr)
    activity = [[tag, *(None if a is None else a.as_json() for a in found)]
                for tag, found in sorted(counts["activity"].items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))]
    return json.dumps({"tally": tally, "activity": activity, "profile": profile}, sort_keys=True, separators=(",", ":"))


def merged_tally(pieces: Iterable[tuple[str, dict, bool]]) -> list[dict]:
    """The tally of the pieces ((file, their counts (piece_json, loaded), whether the piece is
    a file's first)) as jobs.ingest_spark.ingest reads it: a dict per (file, TALLY_KEY) with
    lines, rows and matched. Leading continuation lines of a file's first piece continue
    nothing: quarantined (the parse could not tell, not knowing where its split is)."""
    merged: dict[tuple, list] = {}
    for file, counts, first in pieces:
        for *key, lines, rows, matched in counts["tally"]:
            if first and key[0] == "leading":
                key[0], key[1] = "quarantine", False
            k = (file, *key)
            merged[k] = _summed(merged.get(k), [lines, rows, matched])
    return [dict(zip(("file", *TALLY_KEY, "lines", "rows", "matched"), (*k, *v))) for k, v in merged.items()]


def merged_profile(pieces: Iterable[tuple[dict, int | None]]) -> dict[tuple, dict]:
    """(cluster, event type) -> profile_aggregates of the events of the pieces ((their counts,
    loaded, and the seq of their first logged event: in_recorded_order's, None with none)), with
    what the ingest sets after the parse: every event's source file and line, a logged one's seq."""
    out: dict[tuple, dict] = {}
    for counts, base in pieces:
        for cluster, event_type, canonical, aggs in counts["profile"]:
            aggs = dict(aggs)
            for n in SET_AFTER:
                aggs[f"held_{n}"] = aggs["rows"]
            if not canonical:
                aggs["held_seq"] = aggs["rows"]
            for name in RECORDED_CHANGES:
                aggs[name] = [tuple(c) if canonical else (base + c[0], *c[1:]) for c in aggs[name]]
            _add_profile(out, (cluster, event_type), aggs)
    return out
