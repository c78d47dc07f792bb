"""The README documents every event type, every field, every rule and every era."""
from pathlib import Path

from schemas.events import EVENT_FIELDS, EVENT_TYPES
from state_machine.checks import RULES
from state_machine.eras import ERAS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def test_every_event_type_field_rule_and_era_is_documented():
    missing = [f"`{n}`" for n in [t.name for t in EVENT_TYPES] + [f.name for f in EVENT_FIELDS] + list(RULES) + list(ERAS)
               if f"`{n}`" not in README]
    assert not missing


def test_every_table_column_is_documented_as_the_schema_declares_it():
    """The README's column tables are the schema's, row for row (they once fell behind it)."""
    import re

    from schemas.tables import PARTITION_COLUMNS, TABLE_PROPERTIES, TABLES

    for name, fields in TABLES.items():
        section = re.search(r"\*\*`%s`\*\*[^\n]*\n\n\| column \| type \| meaning \|\n\|---\|---\|---\|\n((?:\|[^\n]*\n)+)"
                            % name, README)
        assert section, f"no column table for {name} in the README"
        assert section.group(1).splitlines() == [
            f"| `{f.name}` | {f.type}{'' if f.nullable else ' not null'} | {f.doc} |" for f in fields], name
    assert "Table properties: " + ", ".join(f"`{k}={v}`" for k, v in TABLE_PROPERTIES.items()) + "." in README
    partitioned = sorted(n for n, cols in PARTITION_COLUMNS.items() if cols == ("cluster",))
    assert partitioned == sorted(PARTITION_COLUMNS)
    assert "Partition column: `cluster`, for " + ", ".join(f"`{n}`" for n in partitioned[:-1]) + \
        f" and `{partitioned[-1]}`" in README.replace("\n", " ")
