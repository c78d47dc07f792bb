"""`controller-replay sql` reads the warehouse and changes nothing: which statements it runs
(jobs.sql_guard, decided by Spark's parser), what its session cannot reach (files by path, the
JVM), and the command as an operator runs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from delta.tables import DeltaTable

from jobs.cli import spark_error
from schemas import tables as schema_tables
from jobs.sql_guard import READ_ONLY_CONF, Refused, lock_down, query, read_only_plan
from terminal import Terminal

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).with_name("controller-replay")
SAMPLE = ROOT / "data" / "samples" / "era-2.6.3-info.jsonl"
TABLES = tuple(schema_tables.TABLES)
VIEWS = tuple(schema_tables.VIEWS)

READING = (
    "SELECT rule, count(*) AS n FROM violations GROUP BY rule HAVING count(*) > 0 ORDER BY n DESC LIMIT 3 OFFSET 0",
    "WITH v AS (SELECT * FROM violations) SELECT * FROM v JOIN partition_timeline USING (cluster, topic, partition)",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
    "SELECT 1 UNION SELECT 2 INTERSECT SELECT 2 EXCEPT SELECT 3",
    "VALUES (1, 'a'), (2, 'b')",
    "TABLE violations",
    "FROM violations SELECT rule",
    "SELECT * FROM violations |> WHERE severity = 'error' |> AGGREGATE count(*) GROUP BY rule",
    "TABLE violations |> SELECT cluster, rule, seq |> EXTEND seq + 1 AS next |> SET next = 0 |> DROP next |> AS v "
    "|> JOIN quarantine USING (cluster) |> ORDER BY seq |> LIMIT 3 |> SELECT rule |> UNION ALL (SELECT 'r')",
    "SELECT (SELECT max(seq) FROM violations), * FROM partition_timeline "
    "WHERE topic IN (SELECT topic FROM violations) AND EXISTS (SELECT 1 FROM quarantine)",
    "SELECT * FROM partition_timeline LATERAL VIEW OUTER posexplode(isr) t AS i, broker",
    "SELECT * FROM partition_timeline, LATERAL (SELECT partition_timeline.leader AS l)",
    "SELECT * FROM partition_timeline TABLESAMPLE (10 PERCENT)",
    "SELECT * FROM violations PIVOT (count(*) FOR severity IN ('error', 'warning'))",
    "SELECT /*+ BROADCAST(v) */ sum(seq) OVER w FROM violations v WINDOW w AS (PARTITION BY rule ORDER BY seq)",
    "SELECT * FROM violations DISTRIBUTE BY rule SORT BY seq",
    "SELECT * FROM range(3) AS r(x)",
    "SELECT * FROM explode(array(1, 2))",
    "SHOW TABLES",
    "SHOW VIEWS",
    "SHOW COLUMNS IN violations",
    "DESCRIBE violations",
    "DESCRIBE TABLE EXTENDED violations rule",
    "DESCRIBE QUERY SELECT * FROM violations",
    "EXPLAIN FORMATTED SELECT * FROM violations",
)

# Each statement that is not a query, and the operator the refusal names.
CHANGING = (
    ("DELETE FROM violations WHERE true", "DeleteFromTable"),
    ("UPDATE violations SET rule = 'x'", "UpdateTable"),
    ("MERGE INTO violations v USING quarantine q ON false WHEN NOT MATCHED THEN INSERT *", "MergeIntoTable"),
    ("INSERT INTO violations SELECT * FROM violations", "InsertIntoStatement"),
    ("INSERT OVERWRITE violations SELECT * FROM violations", "InsertIntoStatement"),
    ("FROM violations INSERT INTO quarantine SELECT * INSERT INTO audit_runs SELECT *", "InsertIntoStatement"),
    ("TRUNCATE TABLE violations", "TruncateTable"),
    ("CREATE TABLE elsewhere USING delta LOCATION '/tmp/elsewhere' AS SELECT * FROM violations", "CreateTableAsSelect"),
    ("CREATE OR REPLACE TEMP VIEW violations AS SELECT 1", "CreateViewCommand"),
    ("DROP VIEW violations", "DropView"),
    ("DROP TABLE IDENTIFIER('violations')", "DropTable"),
    ("SELECT * FROM IDENTIFIER('violations')", "PlanWithUnresolvedIdentifier"),
    ("ALTER TABLE violations ADD COLUMNS (x INT)", "AddColumns"),
    ("SET spark.sql.runSQLOnFiles = true", "SetCommand"),
    ("RESET", "ResetCommand"),
    ("CACHE TABLE violations", "CacheTable"),
    ("CLEAR CACHE", "ClearCacheCommand"),
    ("REFRESH TABLE violations", "RefreshTable"),
    ("ADD JAR /tmp/x.jar", "AddJarsCommand"),
    ("LOAD DATA LOCAL INPATH '/etc/hostname' INTO TABLE violations", "LoadData"),
    ("ANALYZE TABLE violations COMPUTE STATISTICS", "AnalyzeTable"),
    ("VACUUM violations", "VacuumTableCommand"),
    ("OPTIMIZE violations", "OptimizeTableCommand"),
    ("RESTORE TABLE violations TO VERSION AS OF 0", "RestoreTableStatement"),
    ("DESCRIBE HISTORY violations", "DescribeDeltaHistory"),
    ("CREATE FUNCTION f AS 'x.Y'", "CreateFunction"),
    ("DECLARE x INT", "CreateVariable"),
    ("USE default", "SetCatalogAndNamespace"),
    ("EXECUTE IMMEDIATE 'DELETE FROM violations'", "UnresolvedExecuteImmediate"),
    ("BEGIN DELETE FROM violations; END", "CompoundBody"),
    ("SELECT TRANSFORM(rule) USING 'cat' AS (r) FROM violations", "ScriptTransformation"),
    ("EXPLAIN DELETE FROM violations", "DeleteFromTable"),
    ("DESCRIBE QUERY SELECT TRANSFORM(rule) USING 'cat' FROM violations", "ScriptTransformation"),
)


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory):
    """A small audited warehouse: one bundled sample."""
    from jobs.audit import AuditConfig, run

    wh = tmp_path_factory.mktemp("sql") / "wh"
    run(spark, AuditConfig(inputs=[str(SAMPLE)], warehouse=str(wh)))
    return wh


@pytest.fixture(scope="module")
def locked(spark, warehouse):
    """A session set up as the sql command's, the warehouse's tables registered in it, beside
    the suite's session (which keeps its functions and has no such views)."""
    from jobs.audit import register_tables

    session = spark.newSession()
    for key, value in READ_ONLY_CONF.items():
        session.conf.set(key, value)
    lock_down(session)
    assert set(register_tables(session, str(warehouse))) == set(TABLES) | set(VIEWS)
    return session


def on_disk(spark, warehouse) -> dict[str, tuple[int, int]]:
    """Each table's (rows, Delta versions) as the files hold them."""
    out = {}
    for name in TABLES:
        path = str(warehouse / name)
        out[name] = (spark.read.format("delta").load(path).count(), DeltaTable.forPath(spark, path).history().count())
    return out


@pytest.mark.parametrize("statement", READING)
def test_queries_and_the_showing_commands_are_accepted(spark, statement):
    read_only_plan(spark, statement)


@pytest.mark.parametrize("statement, operator", CHANGING)
def test_statements_that_are_no_query_are_refused_naming_what_they_are(spark, statement, operator):
    with pytest.raises(Refused, match=rf"the statement holds a {operator}, which is not a query"):
        read_only_plan(spark, statement)


def test_the_accepted_statements_run_in_the_sql_commands_session(locked):
    """Each one analysed and run as the command runs it: the plan checked is the plan run."""
    for statement in READING:
        query(locked, statement).collect()


def test_a_refused_statement_changes_nothing_on_disk(spark, warehouse, locked):
    before = on_disk(spark, warehouse)
    for statement, _ in CHANGING:
        with pytest.raises(Refused):
            query(locked, statement)
    assert on_disk(spark, warehouse) == before
    assert before["violations"][0] > 0
    assert query(locked, "SELECT count(*) FROM violations").collect()[0][0] == before["violations"][0]


def test_the_session_reads_no_file_by_path_and_calls_no_jvm_method(spark, warehouse, locked):
    """runSQLOnFiles covers every format, delta too: the suite's session reads the table by its
    path, the locked one finds no such table. Delta's table_changes_by_path and reflect are gone
    from the locked session only."""
    path = warehouse / "violations"
    by_path = f"SELECT count(*) FROM delta.`{path}`"
    assert spark.sql(by_path).collect()[0][0] > 0
    for statement, condition in ((by_path, "TABLE_OR_VIEW_NOT_FOUND"),
                                 (f"SELECT * FROM text.`{SAMPLE}`", "TABLE_OR_VIEW_NOT_FOUND"),
                                 (f"SELECT * FROM table_changes_by_path('{path}', 0)", "UNRESOLVABLE_TABLE_VALUED_FUNCTION"),
                                 ("SELECT reflect('java.lang.System', 'getProperty', 'user.dir')", "UNRESOLVED_ROUTINE"),
                                 ("SELECT java_method('java.lang.System', 'getProperty', 'user.dir')", "UNRESOLVED_ROUTINE")):
        with pytest.raises(Exception) as failed:
            query(locked, statement).collect()
        assert failed.value.getCondition() == condition, statement
    assert spark.sql("SELECT reflect('java.lang.Integer', 'toString', 7)").collect()[0][0] == "7"
    assert query(locked, "SELECT * FROM range(2)").count() == 2


def test_a_syntax_error_is_printed_with_its_position_and_the_statement(spark):
    from pyspark.errors.exceptions.captured import ParseException

    with pytest.raises(ParseException) as failed:
        read_only_plan(spark, "SELECT * FORM violations")
    assert spark_error(failed.value) == (
        "[PARSE_SYNTAX_ERROR] Syntax error at or near 'violations': extra input 'violations'. SQLSTATE: 42601 "
        "(line 1, pos 14)\n\n== SQL ==\nSELECT * FORM violations\n--------------^^^")


def test_cli_sql_runs_queries_and_refuses_the_rest(spark, warehouse, tmp_path):
    """The command as an operator runs it: several statements in one session; the query's answer
    on stdout; each refusal and error on stderr, whole, and the exit status 2; nothing changed
    on disk, no table written elsewhere, no file read."""
    before = on_disk(spark, warehouse)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for sql\n")
    elsewhere = tmp_path / "elsewhere"
    statements = [
        "SELECT count(*) AS n FROM violations",
        "DELETE FROM violations WHERE true",
        f"CREATE TABLE elsewhere USING delta LOCATION '{elsewhere}' AS SELECT * FROM violations",
        f"SELECT * FROM text.`{secret}`",
        f"SELECT count(*) FROM delta.`{warehouse / 'violations'}`",
        "SELECT * FORM violations",
        "SHOW TABLES",
    ]
    proc = subprocess.run([str(CONSOLE_SCRIPT), "sql", "--warehouse", str(warehouse), *statements],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert f"|{before['violations'][0]}|" in proc.stdout.replace(" ", ""), proc.stdout
    assert "|violations|" in proc.stdout.replace(" ", "") and "not for sql" not in proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("sql: ")]
    assert len(errors) == 5, proc.stderr
    assert "sql: refused: the statement holds a DeleteFromTable, which is not a query" in proc.stderr
    assert "sql: refused: the statement holds a CreateTableAsSelect, which is not a query" in proc.stderr
    assert proc.stderr.count("[TABLE_OR_VIEW_NOT_FOUND]") == 2
    assert f"== SQL (line 1, position 15) ==\nSELECT * FROM text.`{secret}`\n              ^^^" in proc.stderr
    assert ("sql: [PARSE_SYNTAX_ERROR] Syntax error at or near 'violations': extra input 'violations'. SQLSTATE: "
            "42601 (line 1, pos 14)\n\n== SQL ==\nSELECT * FORM violations\n--------------^^^\n") in proc.stderr
    assert "Traceback" not in proc.stderr and "'UnresolvedRelation" not in proc.stderr, proc.stderr[-3000:]
    assert on_disk(spark, warehouse) == before
    assert not elsewhere.exists()


def test_cli_sql_prompt_at_a_terminal(spark, warehouse, tmp_path):
    """`controller-replay sql --warehouse W` at a terminal, as a person types at it: a query over
    two lines, a refused statement and a syntax error (each printed as the one-shot command
    prints it, and the prompt goes on), a statement dropped with Ctrl-C, a query cancelled with
    Ctrl-C, two statements on one line, and `exit`, status 0. One session answers them all;
    nothing changed on disk; each statement is one history entry in $XDG_STATE_HOME."""
    before = on_disk(spark, warehouse)
    env = {**os.environ, "TERM": "xterm", "XDG_STATE_HOME": str(tmp_path / "state")}
    term = Terminal([str(CONSOLE_SCRIPT), "sql", "--warehouse", str(warehouse)], env)
    try:
        banner = term.expect("sql> ", timeout=600)
        assert "tables: " + ", ".join(sorted(TABLES + VIEWS)) in banner
        # The wait is said, and nothing of the JVM's start but the one notice the JVM itself prints
        # for the incubating module Spark adds (no log4j line: jobs/conf/log4j2-terminal.properties).
        before_tables = banner[:banner.index("tables: ")].split("\n")
        assert [line for line in before_tables if line.strip()] in (
            ["starting Spark and reading the tables' logs ..."],
            ["starting Spark and reading the tables' logs ...", "WARNING: Using incubator modules: jdk.incubator.vector"]
        ), banner
        term.send("SELECT count(*) AS n\r")
        term.expect("  -> ")
        term.send("  FROM violations;\r")
        assert f"|{before['violations'][0]}|" in term.expect("sql> ").replace(" ", ""), term.seen
        term.send("DELETE FROM violations WHERE true;\r")
        assert ("sql: refused: the statement holds a DeleteFromTable, which is not a query"
                in term.expect("sql> ")), term.seen
        term.send("SELECT * FORM violations;\r")
        assert ("sql: [PARSE_SYNTAX_ERROR] Syntax error at or near 'violations': extra input 'violations'. "
                "SQLSTATE: 42601 (line 1, pos 14)\n\n== SQL ==\nSELECT * FORM violations\n--------------^^^\n"
                in term.expect("sql> ")), term.seen
        term.send("SELECT * FROM nowhere\r")
        term.expect("  -> ")
        term.send("\x03")
        term.expect("sql> ")
        term.send("SELECT count(*) FROM range(10000000000000);\r")   # hours: only a cancel ends it
        term.expect("range(10000000000000);\n")
        time.sleep(2)   # it runs a while, then one Ctrl-C: the prompt cancels until the job has ended
        term.send("\x03")
        cancelled = term.expect("sql> ", timeout=120)
        assert "sql: [SPARK_JOB_CANCELLED] Job " in cancelled and "\tat org.apache" not in cancelled, term.seen
        t0 = time.monotonic()
        term.send("SHOW TABLES; SELECT 'a;b' AS s;\r")
        answers = term.expect("sql> ").replace(" ", "")
        answered_in = time.monotonic() - t0
        assert "|violations|" in answers and "|a;b|" in answers and "sql:" not in answers, term.seen
        term.send("exit\r")
        assert term.wait(120) == 0, term.seen
    finally:
        term.close()
    assert "Traceback" not in term.seen and "TABLE_OR_VIEW_NOT_FOUND" not in term.seen, term.seen
    print(f"two statements answered in {answered_in:.1f} s\n{term.seen}")
    assert on_disk(spark, warehouse) == before
    history = (tmp_path / "state" / "controller-replay" / "sql_history").read_text().splitlines()
    assert [json.loads(line) for line in history] == [
        "SELECT count(*) AS n\n  FROM violations;", "DELETE FROM violations WHERE true;", "SELECT * FORM violations;",
        "SELECT count(*) FROM range(10000000000000);", "SHOW TABLES; SELECT 'a;b' AS s;"]


def test_cli_sql_reads_the_statements_piped_to_it(spark, warehouse):
    """`controller-replay sql --warehouse W < queries.sql`: no prompt; each statement (the last
    one without its `;`) printed as a `-- ` heading above its answer, or its refusal on stderr;
    the status 2 as one refused."""
    script = ("SELECT count(*) AS n -- all rules; one row\n"
              "  FROM violations;\n"
              "DROP TABLE violations;\n"
              "SELECT 'a;b' AS s; SELECT 1 AS one\n")
    proc = subprocess.run([str(CONSOLE_SCRIPT), "sql", "--warehouse", str(warehouse)], input=script,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "sql>" not in proc.stdout + proc.stderr and "->" not in proc.stdout
    headings = [line for line in proc.stdout.splitlines() if line.startswith("-- ")]
    assert headings == ["-- SELECT count(*) AS n -- all rules; one row", "--   FROM violations",
                        "-- DROP TABLE violations", "-- SELECT 'a;b' AS s", "-- SELECT 1 AS one"], proc.stdout
    count = on_disk(spark, warehouse)["violations"][0]
    assert f"|{count}|" in proc.stdout.replace(" ", "") and "|a;b|" in proc.stdout and "|  1|" in proc.stdout
    assert [line for line in proc.stderr.splitlines() if line.startswith("sql: ")] == [
        "sql: refused: the statement holds a DropTable, which is not a query; `controller-replay sql` only reads "
        "the tables: it runs queries (SELECT, WITH, VALUES, TABLE), SHOW TABLES, SHOW VIEWS, SHOW COLUMNS, "
        "DESCRIBE and EXPLAIN"], proc.stderr
