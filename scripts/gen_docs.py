"""The reference pages' tables, generated from the tables in the code they document.

    .venv/bin/python scripts/gen_docs.py           # rewrite the generated blocks of the four pages
    .venv/bin/python scripts/gen_docs.py --check   # exit 1, naming each page that differs

Four pages hold generated blocks between two markers; the prose around them is written by hand:

    docs/tables.md   schemas/tables.py: TABLES (each column's name, type, nullability, doc),
                     MERGE_KEYS, REPLAY_TIMES, DERIVED_TIMES, VIEWS, PARTITION_COLUMNS, TABLE_PROPERTIES
    docs/events.md   schemas/events.py: EVENT_FIELDS, EVENT_TYPES; state_machine/events.py's routing sets
    docs/eras.md     state_machine/eras.py: ERA_RELEASES, BEHAVIOURS, KRAFT_BEHAVIOUR, KRAFT_BEHAVIOURS
    docs/rules.md    state_machine/checks.py: RULES; state_machine/findings.py: FINDINGS, FACT_KEYS,
                     REPLAY_VALUES, INFERABLE

Each `*_blocks` function takes its sources as arguments (defaulting to the code's), so a test can
render a page from changed data. Only the text between the markers is rewritten."""
from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from schemas import events as schema_events
from schemas import tables as schema_tables
from state_machine import checks, eras, findings
from state_machine import events as core_events

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ".venv/bin/python scripts/gen_docs.py"
BEGIN = "<!-- generated: {name} (scripts/gen_docs.py; edit the code, then run it) -->"
END = "<!-- end of generated: {name} -->"
BLOCK = re.compile(r"<!-- generated: (?P<name>[\w-]+) \(scripts/gen_docs\.py; edit the code, then run it\) -->\n"
                   r"(?P<body>.*?)<!-- end of generated: (?P=name) -->", re.S)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(head: tuple[str, ...], rows: list[tuple]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _names(names) -> str:
    names = [f"`{n}`" for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------- docs/tables.md

def tables_blocks(tables: Mapping = schema_tables.TABLES, merge_keys: Mapping = schema_tables.MERGE_KEYS,
                  replay_times: Mapping = schema_tables.REPLAY_TIMES,
                  partition_columns: Mapping = schema_tables.PARTITION_COLUMNS,
                  properties: Mapping = schema_tables.TABLE_PROPERTIES,
                  derived_times: Mapping = schema_tables.DERIVED_TIMES,
                  views: Mapping = schema_tables.VIEWS) -> dict[str, str]:
    out = []
    for name, fields in tables.items():
        if name in merge_keys:
            how = f"MERGEd on {_names(merge_keys[name])}."
        elif name in replay_times:
            how = (f"Written by time window on `{replay_times[name]}`: a run replaces its clusters' rows inside "
                   "its input's window.")
        elif name in derived_times:
            how = ("Derived from `partition_timeline` (jobs/availability.py): a run writes its clusters' rows "
                   f"again whole, from the timeline rows it writes. Ordered by `{derived_times[name]}`.")
        else:
            how = "Appended."
        parts = partition_columns.get(name)
        how += f" Partitioned by {_names(parts)}." if parts else " Not partitioned."
        out.append(f"### `{name}`\n\n{how}\n\n" + _table(
            ("column", "type", "meaning"),
            [(f"`{f.name}`", f"{f.type}{'' if f.nullable else ' not null'}", f.doc) for f in fields]))
    partitioned = [n for n in tables if partition_columns.get(n)]
    by_column: dict[tuple, list[str]] = {}
    for name in partitioned:
        by_column.setdefault(tuple(partition_columns[name]), []).append(name)
    summary = ["Table properties: " + ", ".join(f"`{k}={v}`" for k, v in properties.items()) + "."]
    summary += [f"Partition column: {_names(cols)}, for {_names(names)}." for cols, names in by_column.items()]
    defined = [f"### `{name}` (view)\n\n```sql\nCREATE VIEW {name} AS\n{sql}\n```\n" for name, sql in views.items()]
    return {"tables": "\n".join(out), "table-properties": "\n".join(summary) + "\n", "views": "\n".join(defined)}


# ---------------------------------------------------------------- docs/events.md

ROUTING_SETS = ("BROKER_LEVEL", "CLUSTER_LEVEL", "CONTROLLER_CHANGES", "CLUSTER_WIDE_WITHOUT_TOPIC")


def events_blocks(fields: tuple = schema_events.EVENT_FIELDS, types: tuple = schema_events.EVENT_TYPES,
                  routing: Mapping | None = None) -> dict[str, str]:
    if routing is None:
        routing = {name: getattr(core_events, name) for name in ROUTING_SETS}
    known = {t.name for t in types}
    for name, members in routing.items():
        unknown = set(members) - known
        if unknown:
            raise ValueError(f"state_machine.events.{name} holds event types EVENT_TYPES does not: {sorted(unknown)}")
    field_rows = [(f"`{f.name}`", f.type, "yes" if f.nullable else "no", f.doc) for f in fields]
    type_rows = [(f"`{t.name}`", t.kind, t.scope, ", ".join(f"`{x}`" for x in t.fields) or "—", t.doc) for t in types]
    sets = "".join(f"- `{name}`: {_names(sorted(members))}\n" for name, members in routing.items())
    return {"event-fields": _table(("field", "type", "null?", "meaning"), field_rows),
            "event-types": _table(("event type", "kind", "delivered to", "needs", "meaning"), type_rows),
            "routing-sets": sets}


# ---------------------------------------------------------------- docs/eras.md

def _state_table_names() -> dict[int, str]:
    """The valid-previous-state tables, by identity, named as eras.py names them."""
    return {id(v): k for k, v in vars(eras).items() if k.isupper() and "VALID_PREVIOUS" in k and isinstance(v, Mapping)}


def _value(value: object, tables: dict[int, str]) -> str:
    if isinstance(value, Mapping):
        return f"`{tables.get(id(value), 'a state table')}`"
    return f"`{value}`"


def _version(v: tuple[int, ...]) -> str:
    return ".".join(map(str, v))


def eras_blocks(releases: Mapping = eras.ERA_RELEASES, behaviours: tuple = eras.BEHAVIOURS,
                kraft_defaults: Mapping = eras.KRAFT_BEHAVIOUR, kraft_rows: tuple = eras.KRAFT_BEHAVIOURS,
                kraft_first: tuple = eras.KRAFT_FIRST) -> dict[str, str]:
    tables = _state_table_names()

    def behaviour_at(release: str) -> dict:
        mode = "kraft" if release.startswith("kraft-") else "zk"
        version = eras.parse_version(release.removeprefix("kraft-"))
        values = dict(kraft_defaults) if mode == "kraft" else {}
        for row in kraft_rows if mode == "kraft" else behaviours:
            if row.since <= version:
                values[row.key] = row.value
        return values

    named = {name: behaviour_at(release) for name, release in releases.items()}
    keys = list(dict.fromkeys(b.key for b in behaviours))
    era_rows, before = [], None
    for name, release in releases.items():
        values = named[name]
        mode = "KRaft" if release.startswith("kraft-") else "ZooKeeper"
        changed = "—" if before is None else ", ".join(f"`{k}`" for k in keys if values.get(k) != before.get(k)) or "—"
        era_rows.append((f"`{name}`", f"`{release}`", mode, changed))
        before = values
    matrix = [(f"`{k}`", *(_value(named[n].get(k), tables) for n in releases)) for k in keys]
    rows = [(f"`{b.key}`", _version(b.since), _value(b.value, tables), b.source) for b in behaviours]
    kraft = [(f"`{k}`", _value(v, tables)) for k, v in kraft_defaults.items()]
    kraft_changes = [(f"`{b.key}`", _version(b.since), _value(b.value, tables), b.source) for b in kraft_rows]
    states, seen = [], set()
    for value in [b.value for b in behaviours] + list(kraft_defaults.values()):
        if isinstance(value, Mapping) and id(value) not in seen:
            seen.add(id(value))
            lines = [f"- `{target.value}` from " + ", ".join(f"`{p.value}`" for p in sorted(prev, key=lambda s: s.value))
                     for target, prev in value.items()]
            states.append(f"{_value(value, tables)}:\n\n" + "\n".join(lines) + "\n")
    return {
        "named-eras": _table(("era", "release it follows", "mode", "differs from the era above in"), era_rows),
        "era-matrix": _table(("behaviour", *(f"`{n}`" for n in releases)), matrix),
        "behaviours": _table(("behaviour", "from", "value", "source"), rows),
        "kraft-behaviours": (f"KRaft releases from {_version(kraft_first)} start from these values:\n\n"
                             + _table(("behaviour", "value"), kraft)
                             + "\nand change them from a release on:\n\n"
                             + _table(("behaviour", "from", "value", "source"), kraft_changes)),
        "valid-previous-states": "\n".join(states),
    }


# ---------------------------------------------------------------- docs/rules.md

def _detail(detail) -> str:
    """A finding's detail template as the page shows it; a function's, by its name."""
    return f"`{detail}`" if isinstance(detail, str) else f"written by `findings.{detail.__name__}`"


def rules_blocks(rules: Mapping = checks.RULES, found: tuple = findings.FINDINGS,
                 fact_keys: Mapping = findings.FACT_KEYS, replay_values: Mapping = findings.REPLAY_VALUES,
                 inferable: tuple = findings.INFERABLE) -> dict[str, str]:
    rows = [(f"`{r.code}`", r.severity.value, r.spec, r.summary) for r in rules.values()]
    cases = [(f"`{f.rule}`", f"`{f.case}`", ", ".join(f"`{k}`" for k in f.reads) or "—",
              ", ".join(f"`{k}`" for k in f.facts) or "—",
              ", ".join(f"`{k}`" for k in f.optional) or "—", _detail(f.detail)) for f in found]
    keys = [(f"`{k}`", meaning) for k, meaning in fact_keys.items()]
    values = [(f"`{v}`", meaning, "yes" if v in inferable else "no") for v, meaning in replay_values.items()]
    return {"rules": _table(("rule", "default severity", "spec", "what it means"), rows),
            "replay-values": _table(("value", "what it is", "may be inferred"), values),
            "findings": _table(("rule", "`case`", "reads", "facts", "facts when known", "`detail`"), cases),
            "fact-keys": _table(("key", "what it holds"), keys)}


PAGES: dict[str, Callable[[], dict[str, str]]] = {
    "docs/tables.md": tables_blocks,
    "docs/events.md": events_blocks,
    "docs/eras.md": eras_blocks,
    "docs/rules.md": rules_blocks,
}


def fill(text: str, blocks: Mapping[str, str], page: str = "page") -> str:
    """`text` with each generated block's body replaced by `blocks[name]`. Every block the page
    holds must be one the generator makes, and every block it makes must be on the page."""
    found = [m.group("name") for m in BLOCK.finditer(text)]
    missing, unknown = [b for b in blocks if b not in found], [b for b in found if b not in blocks]
    if missing or unknown:
        raise ValueError(f"{page}: blocks {missing} missing, {unknown} unknown; a block is written as "
                         f"{BEGIN.format(name='NAME')} ... {END.format(name='NAME')}")
    return BLOCK.sub(lambda m: BEGIN.format(name=m["name"]) + "\n" + blocks[m["name"]] + END.format(name=m["name"]), text)


def render(page: str, blocks: Mapping[str, str] | None = None, root: Path = ROOT) -> str:
    """What `page` (a path under the repository) holds once its blocks are generated."""
    path = root / page
    if blocks is None:
        blocks = PAGES[page]()
    if not path.exists():   # a new page: a title and its blocks, for the prose to be written around them
        text = f"# {path.stem}\n\n" + "\n".join(BEGIN.format(name=b) + "\n" + END.format(name=b) + "\n" for b in blocks)
    else:
        text = path.read_text(encoding="utf-8")
    return fill(text, blocks, page)


def differing(root: Path = ROOT) -> list[str]:
    """The pages whose text is not what their sources generate."""
    return [page for page in PAGES
            if not (root / page).exists() or (root / page).read_text(encoding="utf-8") != render(page, root=root)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page differs")
    args = ap.parse_args(argv)
    if args.check:
        stale = differing()
        for page in stale:
            print(f"{page} differs from what its source generates: run {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    for page in PAGES:
        text = render(page)
        path = ROOT / page
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
