"""Checks that a canonical event record can be replayed; the reason is what goes to
quarantine when it cannot. Pure Python, shared by the local runner and the Spark job."""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from schemas.events import CLUSTER_WIDE_WITHOUT_TOPIC, EVENT_FIELDS, EVENT_TYPE_BY_NAME

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def load_json(text: str) -> Any:
    """json.loads, refusing what no table can store: a string holding a lone UTF-16
    surrogate (`"\\ud800"` unpaired), which Python decodes but UTF-8, Arrow and Spark
    cannot hold. Raises json.JSONDecodeError (a ValueError) for it as for any bad JSON."""
    value = json.loads(text)
    if "\\u" in text:
        found = _SURROGATE_ESCAPE.search(text)
        if found is not None:
            try:
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                raise json.JSONDecodeError("lone UTF-16 surrogate in a string", text, found.start()) from None
    return value


_TYPES = {f.name: f.type for f in EVENT_FIELDS}
_REQUIRED = tuple(f.name for f in EVENT_FIELDS if not f.nullable)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_int32(value: Any) -> bool:
    """Fits Spark's int (and Kafka's int32 ids and epochs)."""
    return _is_int(value) and -2**31 <= value < 2**31


def _is_int64(value: Any) -> bool:
    return _is_int(value) and -2**63 <= value < 2**63


# type name -> check of a non-null value (types without a check accept anything). The
# integer types are Spark's (int is 32 bits): a larger number cannot be stored, so the
# record is quarantined rather than failing the batch it is in.
_CHECKS = {
    "string": lambda value: isinstance(value, str),
    "int": is_int32,
    "long": _is_int64,
    "boolean": lambda value: isinstance(value, bool),
    "array<int>": lambda value: isinstance(value, list) and all(is_int32(v) for v in value),
}
_FIELD_CHECKS = {name: _CHECKS.get(type_name) for name, type_name in _TYPES.items()}
_INT_FIELDS = tuple((name, _CHECKS[t]) for name, t in _TYPES.items() if t in ("int", "long", "array<int>"))


def _wrong_type(name: str, value: Any) -> str:
    kind = _TYPES[name]
    if kind == "array<int>" and isinstance(value, list):   # every array of the event holds broker ids
        i, bad = next((i, v) for i, v in enumerate(value) if not is_int32(v))
        beyond = ", out of the range of int" if _is_int(bad) else ""
        return f"{name}[{i}]: expected an integer broker id, got {_shown(bad)}{beyond}"
    if _is_int(value):
        return f"field {name!r} is out of the range of {kind}: {value}"
    return f"field {name!r} should be {kind}, got {type(value).__name__}"


def _shown(value: Any) -> str:
    """A JSON value as the input wrote it, cut short if long."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def out_of_range(record: Mapping[str, Any]) -> str | None:
    """The first integer field whose value Spark's type cannot hold (parsed log values:
    their types are the catalogue's business, their size is the input's)."""
    for name, check in _INT_FIELDS:
        value = record.get(name)
        if value is not None and not check(value):
            return _wrong_type(name, value)
    return None


def event_reason(record: dict[str, Any], cluster: str | None = None) -> str | None:
    """`invalid_reason` of a record read as a canonical event, which names its own cluster: one
    that names none (the field absent or null) takes `cluster` (the audit's --cluster), set in
    the record; with no `cluster` it lacks a required field. The local runner and the Spark
    ingest both read events through this."""
    if cluster is not None and record.get("cluster") is None:
        record["cluster"] = cluster
    return invalid_reason(record)


def invalid_reason(record: Mapping[str, Any]) -> str | None:
    """None if the record is a replayable canonical event, else why not. Reasons come in
    this order: unknown fields, a missing required field, the first field of a wrong type,
    then what the event type needs. One pass over the record finds the first three (this
    runs for every event line the Spark job reads)."""
    unknown = False
    wrong = None
    checks = _FIELD_CHECKS
    for name, value in record.items():
        if name not in checks:
            unknown = True
        elif wrong is None and value is not None:
            check = checks[name]
            if check is not None and not check(value):
                wrong = name
    if unknown:
        return f"unknown field(s) {sorted(set(record) - set(_TYPES))}"
    for name in _REQUIRED:
        if record.get(name) is None:
            return f"missing required field {name!r}"
    if wrong is not None:
        return _wrong_type(wrong, record[wrong])
    doc = EVENT_TYPE_BY_NAME.get(record["event_type"])
    if doc is None:
        return f"unknown event type {record['event_type']!r}"
    missing = [f for f in doc.fields if record.get(f) is None]
    if missing:
        return f"{doc.name} needs field(s) {missing}"
    if doc.scope == "partition" and (record.get("topic") is None or record.get("partition") is None):
        return f"{doc.name} needs topic and partition"
    if doc.scope == "topic" and record.get("topic") is None and doc.name not in CLUSTER_WIDE_WITHOUT_TOPIC:
        return f"{doc.name} needs a topic"
    return None
