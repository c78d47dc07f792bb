"""The small type vocabulary the schemas are written in.

Each field is declared once as (name, type, nullable, doc); `spark_type` turns a
declaration into a pyspark type and `arrow_type` into the Arrow type Spark exchanges it
as; each imports its library only when called, so the core (state_machine) can read the
schemas without importing Spark."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import NamedTuple


class Field(NamedTuple):
    name: str
    type: str        # "string" | "int" | "long" | "double" | "boolean" | "array<int>" | "array<string>" | "timestamp"
    #                  | "map<string,string>"
    nullable: bool
    doc: str


def utc_text(ms: int | float) -> str:
    """A time (epoch ms) as the tables' JSON columns write it: UTC, ISO 8601, milliseconds, `Z`."""
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def utc_ms(text: str) -> int:
    """utc_text's inverse."""
    return round(datetime.fromisoformat(text).timestamp() * 1000)


JSON_TYPES = {
    "string": "string",
    "int": "integer",
    "long": "integer",
    "boolean": "boolean",
    "array<int>": "array",
    "array<string>": "array",
    "timestamp": "string",
    "double": "number",
    "map<string,string>": "object",
}


def arrow_type(type_name: str):
    """The pyarrow DataType Spark's Arrow transfer uses for a schema type name (imports
    pyarrow lazily: the core does not need it)."""
    import pyarrow as pa

    simple = {
        "string": pa.string(),
        "int": pa.int32(),
        "long": pa.int64(),
        "boolean": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "array<int>": pa.list_(pa.int32()),
        "array<string>": pa.list_(pa.string()),
        "double": pa.float64(),
        "map<string,string>": pa.map_(pa.string(), pa.string()),
    }
    return simple[type_name]


def spark_type(type_name: str):
    """The pyspark DataType for a schema type name (imports pyspark lazily)."""
    from pyspark.sql import types as T

    simple = {
        "string": T.StringType(),
        "int": T.IntegerType(),
        "long": T.LongType(),
        "boolean": T.BooleanType(),
        "timestamp": T.TimestampType(),
        "array<int>": T.ArrayType(T.IntegerType(), containsNull=True),
        "array<string>": T.ArrayType(T.StringType(), containsNull=True),
        "double": T.DoubleType(),
        "map<string,string>": T.MapType(T.StringType(), T.StringType(), valueContainsNull=True),
    }
    return simple[type_name]


def struct_type(fields: tuple[Field, ...], comments: bool = False):
    """The Spark schema of `fields`; with `comments`, each field's doc is its comment (the
    "comment" metadata that DDL's COMMENT and DeltaTableBuilder.addColumn set)."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField(f.name, spark_type(f.type), f.nullable, {"comment": f.doc} if comments else None)
                         for f in fields])


def json_schema(title: str, fields: tuple[Field, ...]) -> dict:
    """A JSON Schema (draft 2020-12) document for one record of `fields`."""
    props = {}
    for f in fields:
        t = JSON_TYPES[f.type]
        p: dict = {"description": f.doc}
        if t == "array":
            p["type"] = ["array", "null"] if f.nullable else "array"
            p["items"] = {"type": "integer" if f.type == "array<int>" else "string"}
        elif t == "object":
            p["type"] = ["object", "null"] if f.nullable else "object"
            p["additionalProperties"] = {"type": "string"}
        else:
            p["type"] = [t, "null"] if f.nullable else t
        props[f.name] = p
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "object",
        "properties": props,
        "required": [f.name for f in fields if not f.nullable],
        "additionalProperties": False,
    }
