"""The generated blocks of the reference pages are what the code generates
(scripts/gen_docs.py), and every relative link of the README and the pages leads somewhere."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
gen_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_docs)


@pytest.mark.parametrize("page", sorted(gen_docs.PAGES))
def test_page_is_what_its_source_generates(page):
    assert (ROOT / page).read_text(encoding="utf-8") == gen_docs.render(page), \
        f"{page} differs from what its source generates: run {gen_docs.COMMAND}"


def test_the_check_fails_on_a_page_its_changed_source_no_longer_generates(tmp_path):
    from schemas.tables import TABLES
    from schemas.types import Field

    (tmp_path / "docs").mkdir()
    for page in gen_docs.PAGES:
        (tmp_path / page).write_text((ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    assert gen_docs.differing(tmp_path) == []
    changed = dict(TABLES, audit_runs=TABLES["audit_runs"] + (Field("new_column", "string", True, "A new column."),))
    (tmp_path / "docs/tables.md").write_text(gen_docs.render("docs/tables.md", gen_docs.tables_blocks(tables=changed),
                                                             root=tmp_path), encoding="utf-8")
    assert "| `new_column` | string | A new column. |" in (tmp_path / "docs/tables.md").read_text(encoding="utf-8")
    assert gen_docs.differing(tmp_path) == ["docs/tables.md"]


def test_a_page_without_one_of_its_blocks_is_refused():
    text = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match=r"blocks \['rules', 'replay-values', 'findings', 'fact-keys'\] missing"):
        gen_docs.fill(gen_docs.BLOCK.sub("", text), gen_docs.rules_blocks(), "docs/rules.md")


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but `-` and `_` dropped,
    spaces as `-`."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", markdown, flags=re.S), re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken_links(doc: Path) -> list[str]:
    """The relative links of `doc` that lead to no file, or to no heading of the page they name."""
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):   # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = doc.parent / path if path else doc
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text(encoding="utf-8")):
            broken.append(target)
    return broken


@pytest.mark.parametrize("doc", ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
def test_every_relative_link_leads_to_a_file_and_heading(doc):
    assert not broken_links(ROOT / doc), f"{doc}: links to nothing"


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# The tables\n\n### `nightly_cut.py`\n\n[ok](b.md#what-a-night-carries)\n"
                                   "[ok](#nightly_cutpy) [ok](https://x.org/y) [gone](c.md) [no heading](b.md#elsewhere)\n")
    (tmp_path / "b.md").write_text("## What a night carries\n")
    assert broken_links(tmp_path / "a.md") == ["c.md", "b.md#elsewhere"]
