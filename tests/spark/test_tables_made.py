"""A table the audit makes holds its documented columns (schemas.tables): each with its type,
nullability and doc as its comment, the table's partition columns and properties, as its first
commit records them."""
import json
from pathlib import Path

import pytest
from pyspark.sql import types as T

from jobs.writes import ensure_table
from schemas.tables import PARTITION_COLUMNS, TABLE_PROPERTIES, TABLES
from schemas.types import spark_type

pytestmark = pytest.mark.spark


def test_each_table_is_made_with_its_documented_columns_comments_and_properties(spark, tmp_path):
    for name in TABLES:
        path, created = ensure_table(spark, str(tmp_path), name)
        assert created
        actions = [json.loads(line) for line in (Path(path) / "_delta_log" / f"{0:020d}.json").read_text().splitlines()]
        metadata = next(a["metaData"] for a in actions if "metaData" in a)
        schema = T.StructType.fromJson(json.loads(metadata["schemaString"]))
        made = [(f.name, f.dataType.simpleString(), f.nullable, f.metadata.get("comment")) for f in schema]
        documented = [(f.name, spark_type(f.type).simpleString(), f.nullable, f.doc) for f in TABLES[name]]
        assert made == documented, name
        assert metadata["partitionColumns"] == list(PARTITION_COLUMNS.get(name, ())), name
        assert {k: metadata["configuration"].get(k) for k in TABLE_PROPERTIES} == dict(TABLE_PROPERTIES), name
