"""What `controller-replay sql` may run: statements that read the warehouse's tables and
change nothing. Spark's own parser decides what a statement is; nothing here reads its text.

    plan = read_only_plan(spark, "SELECT rule, count(*) FROM violations GROUP BY rule")
    read_only_plan(spark, "DELETE FROM violations")   # raises Refused("... DeleteFromTable ...")

A statement is accepted when every node of the plan the parser makes of it (its children,
its CTEs and the plans of its subqueries) is a relational operator of a query, or it is one
of a few commands that only show what is there (SHOW TABLES, DESCRIBE, EXPLAIN of an
accepted statement). Everything else is refused whatever it is: DML and DDL, a multi-table
INSERT (a Union of inserts), SET and RESET, CACHE, REFRESH, ADD JAR, Delta's VACUUM and
RESTORE, EXECUTE IMMEDIATE, SQL scripts, TRANSFORM ... USING (a shell command), and any
statement a later Spark adds. The plan checked is the plan run (`query`): the text is not
parsed again.

The session does the rest (`lock_down` and READ_ONLY_CONF): no table by file path
(`text.`/etc/hostname``, `delta.`/warehouse/violations``), no function that calls into the
JVM (reflect) and no table function but those that only unfold their arguments."""
from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

# The sql command's session: `format.`path`` (any format, delta too) is no table.
READ_ONLY_CONF = {"spark.sql.runSQLOnFiles": "false"}

_LOGICAL = "org.apache.spark.sql.catalyst.plans.logical."
_ANALYSIS = "org.apache.spark.sql.catalyst.analysis."
_COMMAND = "org.apache.spark.sql.execution.command."

# The parser's relational operators of a query (SELECT, WITH, VALUES, TABLE, set operations,
# joins, LATERAL VIEW, PIVOT, TABLESAMPLE, window definitions, hints, pipe operators) and the
# names they read from.
QUERY_NODES = frozenset(
    [_LOGICAL + n for n in (
        "Aggregate", "Distinct", "Except", "Filter", "Generate", "GlobalLimit", "Intersect", "Join", "LateralJoin",
        "LocalLimit", "LocalRelation", "Offset", "OneRowRelation", "Pivot", "Project", "RepartitionByExpression",
        "Sample", "Sort", "SubqueryAlias", "Union", "Unpivot", "UnresolvedHint", "UnresolvedWith",
        "WithWindowDefinition")]
    + [_ANALYSIS + n for n in (
        "RelationTimeTravel", "UnresolvedHaving", "UnresolvedInlineTable", "UnresolvedRelation",
        "UnresolvedSubqueryColumnAliases", "UnresolvedTVFAliases", "UnresolvedTableValuedFunction")]
    + ["org.apache.spark.sql.catalyst.expressions.PipeOperator"])   # a plan node, for all its package

# Commands that only show what the session holds, and the names they take.
SHOWING_NODES = frozenset(
    [_LOGICAL + n for n in ("DescribeColumn", "DescribeRelation", "ShowColumns", "ShowTables", "ShowViews")]
    + [_ANALYSIS + n for n in ("CurrentNamespace$", "UnresolvedNamespace", "UnresolvedTableOrView")])

# Commands around a statement they do not run (EXPLAIN, DESCRIBE QUERY): accepted when it is.
WRAPPING_NODES = {_COMMAND + "ExplainCommand": "logicalPlan", _COMMAND + "DescribeQueryCommand": "plan"}

ACCEPTED = "queries (SELECT, WITH, VALUES, TABLE), SHOW TABLES, SHOW VIEWS, SHOW COLUMNS, DESCRIBE and EXPLAIN"

# Functions that reach outside the tables: reflect and its aliases call any static JVM method.
JVM_FUNCTIONS = ("reflect", "java_method", "try_reflect")
# Table functions that only unfold their arguments (Delta's table_changes_by_path reads a table
# by path; others may come with a later Spark or Delta: only these are kept).
TABLE_FUNCTIONS = frozenset({
    "range", "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "json_tuple",
    "stack", "variant_explode", "variant_explode_outer", "collations", "sql_keywords"})


class Refused(ValueError):
    """A statement `controller-replay sql` does not run; the message says what it is."""


def read_only_plan(spark: SparkSession, statement: str):
    """The plan (a JVM LogicalPlan, unresolved) Spark's parser makes of `statement`, if it only
    reads. Raises Refused naming the first operator that is not a query's, and Spark's
    ParseException if the statement does not parse."""
    plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(statement)
    found = _first_refused(plan)
    if found is not None:
        raise Refused(f"refused: the statement holds a {found.removesuffix('$')}, which is not a query; "
                      f"`controller-replay sql` only reads the tables: it runs {ACCEPTED}")
    return plan


def query(spark: SparkSession, statement: str) -> DataFrame:
    """`statement` as a DataFrame (spark.sql's), if read_only_plan accepts it: the plan checked
    is the one run. A SHOW or DESCRIBE runs now, as in spark.sql."""
    plan = read_only_plan(spark, statement)
    return DataFrame(spark._jvm.org.apache.spark.sql.classic.Dataset.ofRows(spark._jsparkSession, plan), spark)


def lock_down(spark: SparkSession) -> None:
    """Remove from `spark`'s own function registries (a session's copy of the built-in ones)
    the functions that reach outside the tables: JVM_FUNCTIONS and every table function not in
    TABLE_FUNCTIONS. A call of one is then an unresolved routine, however it is spelled."""
    state = spark._jsparkSession.sessionState()
    identifier = spark._jvm.org.apache.spark.sql.catalyst.FunctionIdentifier
    for name in JVM_FUNCTIONS:
        state.functionRegistry().dropFunction(identifier(name))
    tables = state.tableFunctionRegistry()
    for function in list(_seq(tables.listFunction())):
        if function.funcName().lower() not in TABLE_FUNCTIONS:
            tables.dropFunction(function)


def _first_refused(plan) -> str | None:
    """The class name of the first node under `plan` (itself included) that is neither a
    query's operator nor a showing command, else None."""
    name = plan.getClass().getName()
    if name in WRAPPING_NODES:
        return _first_refused(getattr(plan, WRAPPING_NODES[name])())
    if name not in QUERY_NODES and name not in SHOWING_NODES:
        return name.rsplit(".", 1)[-1]
    for child in _plans_under(plan):
        found = _first_refused(child)
        if found is not None:
            return found
    return None


def _plans_under(plan) -> list:
    """The plans right under `plan`: its children, its inner plans (a WITH's CTEs) and the plans
    of its expressions' subqueries (by default a node's inner children)."""
    inner = [p for p in _seq(plan.innerChildren()) if _is_plan(p)]
    subqueries = [s for s in _seq(plan.subqueries()) if not any(s.equals(p) for p in inner)]
    return [*_seq(plan.children()), *inner, *subqueries]


def _is_plan(node) -> bool:
    logical_plan = node.getClass().getClassLoader().loadClass(_LOGICAL + "LogicalPlan")
    return logical_plan.isInstance(node)


def _seq(seq) -> list:
    it = seq.iterator()
    out = []
    while it.hasNext():
        out.append(it.next())
    return out
