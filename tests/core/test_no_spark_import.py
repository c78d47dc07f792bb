"""The core is pure Python: importing it pulls in no Spark, JVM bridge, Delta, pandas,
Arrow or Great Expectations, and no module under state_machine/ imports them. No module under
ingest/ imports Spark, its JVM bridge, Delta or Great Expectations either (it may use Arrow)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pyspark", "py4j", "delta", "pandas", "pyarrow", "great_expectations")
FORBIDDEN_IN_SOURCE = ("pyspark", "py4j", "delta", "great_expectations")

PROBE = (
    "import state_machine, state_machine.replay, state_machine.generator, state_machine.cluster, schemas.events; "
    "import sys; bad=[m for m in sys.modules if m.split('.')[0] in "
    f"{HEAVY!r}]; assert not bad, bad"
)


def test_importing_the_core_loads_no_heavy_module():
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def _source_files(package: str):
    files = sorted((REPO / package).rglob("*.py"))
    assert files, f"no .py under {package}/"
    return files


def _imported_roots(tree: ast.AST):
    for node in ast.walk(tree):   # walks into functions too: a lazy import counts
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))
              and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.lineno, node.args[0].value.split(".")[0]


@pytest.mark.parametrize("path", _source_files("state_machine") + _source_files("ingest"),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_core_and_ingest_source_import_no_spark(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = [(line, root) for line, root in _imported_roots(tree) if root in FORBIDDEN_IN_SOURCE]
    assert not bad, f"{path.relative_to(REPO)} imports {bad}"


def test_the_scan_detects_a_forbidden_import():
    tree = ast.parse("import os\nfrom pyspark.sql import functions\n\ndef f():\n    import delta.tables\n")
    assert [root for _, root in _imported_roots(tree) if root in FORBIDDEN_IN_SOURCE] == ["pyspark", "delta"]
