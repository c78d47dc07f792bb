"""The reference pages document every event type, every field, every rule, every era and every
table column, as the code declares them; the README names every table and links each page."""
import re
from pathlib import Path

from schemas.events import EVENT_FIELDS, EVENT_TYPES
from state_machine.checks import RULES
from state_machine.eras import ERAS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def page(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def test_every_event_type_field_rule_and_era_is_documented():
    pages = {"events.md": [t.name for t in EVENT_TYPES] + [f.name for f in EVENT_FIELDS],
             "rules.md": list(RULES), "eras.md": list(ERAS)}
    missing = {name: [f"`{n}`" for n in names if f"`{n}`" not in page(name)] for name, names in pages.items()}
    assert not any(missing.values()), missing


def test_every_table_column_is_documented_as_the_schema_declares_it():
    """docs/tables.md's column tables are the schema's, row for row."""
    from schemas.tables import PARTITION_COLUMNS, TABLE_PROPERTIES, TABLES

    tables = page("tables.md")
    for name, fields in TABLES.items():
        section = re.search(r"### `%s`\n\n[^\n]*\n\n\| column \| type \| meaning \|\n\|---\|---\|---\|\n((?:\|[^\n]*\n)+)"
                            % name, tables)
        assert section, f"no column table for {name} in docs/tables.md"
        assert section.group(1).splitlines() == [
            f"| `{f.name}` | {f.type}{'' if f.nullable else ' not null'} | {f.doc} |" for f in fields], name
    assert "Table properties: " + ", ".join(f"`{k}={v}`" for k, v in TABLE_PROPERTIES.items()) + "." in tables
    partitioned = [n for n, cols in PARTITION_COLUMNS.items() if cols == ("cluster",)]
    assert partitioned == list(PARTITION_COLUMNS)
    assert "Partition column: `cluster`, for " + ", ".join(f"`{n}`" for n in partitioned[:-1]) + \
        f" and `{partitioned[-1]}`" in tables.replace("\n", " ")


def test_the_readme_names_every_table_and_links_every_reference_page():
    from schemas.tables import TABLES

    assert not [n for n in TABLES if f"`{n}`" not in README]
    assert not [p.name for p in (ROOT / "docs").glob("*.md") if f"](docs/{p.name})" not in README]
