"""Checks that a canonical event record can be replayed; the reason is what goes to
quarantine when it cannot. Pure Python, shared by the local runner and the Spark job."""
from __future__ import annotations

from typing import Any, Mapping

from schemas.events import EVENT_FIELDS, EVENT_TYPE_BY_NAME

_TYPES = {f.name: f.type for f in EVENT_FIELDS}
_REQUIRED = tuple(f.name for f in EVENT_FIELDS if not f.nullable)


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name in ("int", "long"):
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "array<int>":
        return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return True


def invalid_reason(record: Mapping[str, Any]) -> str | None:
    """None if the record is a replayable canonical event, else why not."""
    unknown = sorted(set(record) - set(_TYPES))
    if unknown:
        return f"unknown field(s) {unknown}"
    for name in _REQUIRED:
        if record.get(name) is None:
            return f"missing required field {name!r}"
    for name, value in record.items():
        if value is not None and not _type_ok(value, _TYPES[name]):
            return f"field {name!r} should be {_TYPES[name]}, got {type(value).__name__}"
    doc = EVENT_TYPE_BY_NAME.get(record["event_type"])
    if doc is None:
        return f"unknown event type {record['event_type']!r}"
    missing = [f for f in doc.fields if record.get(f) is None]
    if missing:
        return f"{doc.name} needs field(s) {missing}"
    if doc.scope == "partition" and (record.get("topic") is None or record.get("partition") is None):
        return f"{doc.name} needs topic and partition"
    if doc.scope == "topic" and record.get("topic") is None and doc.name != "ConfigChange":
        return f"{doc.name} needs a topic"
    return None
