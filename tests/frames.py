"""DataFrames as chispa can compare them regardless of row order."""
from __future__ import annotations


def comparable(df):
    """`df` with each map column (violations.facts) as its entries in key order: Spark neither
    sorts nor hashes a map, and chispa's ignore_row_order does both."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    maps = [f.name for f in df.schema.fields if isinstance(f.dataType, MapType)]
    return df.withColumns({name: F.array_sort(F.map_entries(name)) for name in maps}) if maps else df
