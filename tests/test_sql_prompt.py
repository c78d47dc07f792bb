"""The sql prompt's reading of statements and its history, without Spark (the prompt as an
operator types at it: tests/spark/test_cli_sql.py)."""
from __future__ import annotations

import pytest

from jobs.sql_prompt import History, StatementReader, heading, history_path, is_exit


def read(*lines: str) -> tuple[list[str], str | None]:
    reader = StatementReader()
    done = [s for line in lines for s in reader.feed(line)]
    return done, reader.rest()


def test_a_statement_ends_at_a_semicolon_and_may_take_several_lines():
    assert read("SELECT rule", "  FROM violations;") == (["SELECT rule\n  FROM violations"], None)
    assert read("SELECT 1; SELECT 2;SELECT", "3") == (["SELECT 1", "SELECT 2"], "SELECT\n3")
    assert read(";", "  ;;", "") == ([], None)


@pytest.mark.parametrize("lines, statements", [
    (["SELECT 'a;b', \"c;d\", `e;f` FROM t;"], ["SELECT 'a;b', \"c;d\", `e;f` FROM t"]),
    (["SELECT 'it\\'s;' AS s;"], ["SELECT 'it\\'s;' AS s"]),
    (["SELECT `a\\`;", "b`;"], ["SELECT `a\\`"]),   # a name has no escapes: b` opens another
    (["SELECT 'a", "b;", "c';"], ["SELECT 'a\nb;\nc'"]),
    (["SELECT 1 -- one; two", ";"], ["SELECT 1 -- one; two"]),
    (["SELECT /* a; /* nested; */ still; */ 1;"], ["SELECT /* a; /* nested; */ still; */ 1"]),
    (["SELECT 1 - -1;"], ["SELECT 1 - -1"]),
])
def test_a_semicolon_in_a_string_a_name_or_a_comment_ends_nothing(lines, statements):
    done, _ = read(*lines)
    assert done[:len(statements)] == statements


def test_comments_alone_are_no_statement_but_begin_one():
    reader = StatementReader()
    assert reader.feed("-- the counts") == [] and reader.started and reader.rest() is None
    assert reader.feed(";") == [] and not reader.started
    assert reader.feed("/* a */ SELECT 1;") == ["/* a */ SELECT 1"]


def test_clear_drops_the_statement_begun():
    reader = StatementReader()
    reader.feed("SELECT 'unclosed")
    reader.clear()
    assert not reader.started and reader.feed("SELECT 1;") == ["SELECT 1"]


def test_exit_words_and_headings():
    assert is_exit("exit") and is_exit("  QUIT ; ") and not is_exit("exit now") and not is_exit("SELECT exit")
    assert heading("SELECT 1\nFROM t") == "-- SELECT 1\n-- FROM t"


def test_history_lives_in_the_xdg_state_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert history_path() == tmp_path / "state" / "controller-replay" / "sql_history"
    for unset in ("", "relative/dir"):
        monkeypatch.setenv("XDG_STATE_HOME", unset)
        assert history_path() == tmp_path / "home" / ".local" / "state" / "controller-replay" / "sql_history"


def test_a_statement_of_several_lines_is_one_history_entry_across_sessions(tmp_path):
    readline = pytest.importorskip("readline")
    path = tmp_path / "state" / "sql_history"
    readline.clear_history()
    history = History(readline, path)
    history.add("SELECT rule\n  FROM violations;")
    history.add("SELECT rule\n  FROM violations;")   # typed again: kept once
    history.add("SHOW TABLES;")
    history.save()
    readline.clear_history()
    History(readline, path)
    entries = [readline.get_history_item(i) for i in range(1, readline.get_current_history_length() + 1)]
    readline.clear_history()
    assert entries == ["SELECT rule\n  FROM violations;", "SHOW TABLES;"]
