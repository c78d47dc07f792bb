"""The columnar fast path for canonical-event JSON lines: a run of lines read at once by
Arrow's JSON reader with the event schema, instead of `json.loads` and
`schemas.validate.invalid_reason` line by line in Python.

It is an accelerator, never a second validator. Arrow's reader, given the event schema,
is as strict as `invalid_reason` on what it checks: an unknown or repeated field, a string
where an int belongs, a number out of int32 or int64, a float for an int, and any JSON
Python would reject all fail the read. The other rules (required fields, known event types
and the fields each needs, null array elements) are computed here from the same tables
(schemas.events). A run Arrow cannot read goes line by line, and so does each row that
breaks a rule, so every quarantine reason still comes from `invalid_reason`.
tests/ingest/test_fast_events.py holds the two paths equal."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from schemas.events import CLUSTER_WIDE_WITHOUT_TOPIC, EVENT_FIELDS, EVENT_TYPE_BY_NAME
from schemas.types import arrow_type

EVENT_SCHEMA = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in EVENT_FIELDS])
_REQUIRED = tuple(f.name for f in EVENT_FIELDS if not f.nullable)
_INT_ARRAYS = tuple(f.name for f in EVENT_FIELDS if f.type == "array<int>")
_EVENT_TYPES = pa.array(sorted(EVENT_TYPE_BY_NAME))
_PARSE = pj.ParseOptions(explicit_schema=EVENT_SCHEMA, unexpected_field_behavior="error")


def all_json_objects(raw: pa.Array) -> bool:
    """Every line of the batch begins a JSON object (the line-by-line path's test, `raw[0] == "{"`)."""
    return len(raw) > 0 and raw.null_count == 0 and pc.all(pc.starts_with(raw, "{")).as_py()


def read_events(lines: list[str]) -> pa.Table | None:
    """The lines as a table of the event fields, one row per line in order; None if Arrow
    rejects any line (then the caller reads them line by line)."""
    try:
        data = "\n".join(lines).encode()
        table = pj.read_json(pa.py_buffer(data), parse_options=_PARSE,
                             read_options=pj.ReadOptions(use_threads=False, block_size=len(data) + 1))
    except (pa.ArrowInvalid, UnicodeEncodeError):
        return None
    # Two objects on one line read as two rows (Python: "Extra data"); the count tells.
    return table if table.num_rows == len(lines) else None


def replayable(table: pa.Table, cluster: str | None) -> tuple[pa.Table, pa.Array]:
    """(the table with a missing cluster set to `cluster`, as the line-by-line path sets it;
    which rows `invalid_reason` accepts). Arrow already checked the fields and their types."""
    if cluster is not None:
        i = table.schema.get_field_index("cluster")
        table = table.set_column(i, "cluster", pc.fill_null(table.column(i), pa.scalar(cluster)))
    ok = pc.is_in(table.column("event_type"), value_set=_EVENT_TYPES)
    for name in _REQUIRED:
        ok = pc.and_kleene(ok, pc.is_valid(table.column(name)))
    for name in _INT_ARRAYS:   # Arrow reads [1, null]; invalid_reason calls that the wrong type
        column = table.column(name)
        flat = pc.list_flatten(column)
        if flat.null_count:
            bad = pc.list_parent_indices(column).filter(pc.is_null(flat))
            ok = pc.and_kleene(ok, pc.invert(pc.is_in(pa.array(range(len(table)), pa.int64()), value_set=bad)))
    event_type = table.column("event_type")
    for doc in EVENT_TYPE_BY_NAME.values():
        needs = list(doc.fields)
        if doc.scope == "partition":
            needs += ["topic", "partition"]
        elif doc.scope == "topic" and doc.name not in CLUSTER_WIDE_WITHOUT_TOPIC:
            needs.append("topic")
        if not needs:
            continue
        has = pc.is_valid(table.column(needs[0]))
        for name in needs[1:]:
            has = pc.and_kleene(has, pc.is_valid(table.column(name)))
        ok = pc.and_kleene(ok, pc.or_kleene(pc.not_equal(event_type, doc.name), has))
    return table, pc.fill_null(ok, False)
