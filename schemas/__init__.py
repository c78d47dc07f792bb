"""Event and table schemas: one pure-Python definition each, from which the Spark
StructType and the JSON form are derived (see schemas.events and schemas.tables)."""
