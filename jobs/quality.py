"""Data-quality gates (Great Expectations 1.x on Spark) for the audit's input and output.

Two suites:

- ``input_events`` (`validate_input`): the canonical events after bad records were
  quarantined: schema (every EVENT_FIELDS column with its Spark type, element types of
  the array columns included), required fields, known event types, sane broker ids,
  epochs and broker-id arrays.
- ``output_tables`` (`validate_output`): invariants of the tables the audit writes:
  an online partition's leader is in its ISR (except rows the audit itself reported
  as LEADER_NOT_IN_ISR: recording those is its job), ``valid_from <= valid_to``,
  known partition/replica states, violations with a rule, a known severity and facts
  that name a finding of the rule, quarantined records with a reason.

GE API used (1.24): one ephemeral context per process (`gx.get_context(mode="ephemeral")`)
with one Spark data source (`context.data_sources.add_spark`, ``persist=False``); per
validated DataFrame one dataframe asset, one whole-dataframe batch definition and one
`ExpectationSuite` of `gx.expectations.Expect...` objects, all built on first use and
then shared. A validation is ``batch_definition.get_batch(batch_parameters={"dataframe":
df})`` then ``batch.validate(suite, result_format=...)`` (a ValidationDefinition would
also store every result in the context's in-memory store; nothing here reads it back).

Checks GE has no expectation for are real GE expectations on *derived* columns added
to the same DataFrame, so that each DataFrame is validated once:
``<col>__min`` = ``array_min(<col>)`` for "every element of a broker-id array is >= 0",
``<col>__element`` (first element; only its *type* is checked) for the element type of
an array column, and boolean columns for row-level invariants (null where the rule
does not apply: column-value expectations skip nulls).

Cost: GE on Spark turns the column-value expectations into one aggregate query per
column domain and round of its metrics (a handful of Spark jobs per DataFrame, whatever
the number of expectations): the output tables are validated as one frame, side by side
(`_output_frame`), not one validation each. Example values are only fetched
for the expectations that failed (`_Gate.run`), with ``limit(PARTIAL_UNEXPECTED)``
queries: no table is ever collected to the driver.

Results are plain dicts in `GateResult`; `require` raises `QualityGateFailed`.
"""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from schemas.events import EVENT_FIELDS, EVENT_TYPE_NAMES
from schemas.types import Field
from state_machine.checks import Severity
from state_machine.findings import FINDINGS
from state_machine.states import PartitionState, ReplicaState

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

INPUT_SUITE = "input_events"
OUTPUT_SUITE = "output_tables"

# Example values / row keys kept per failed expectation.
PARTIAL_UNEXPECTED = 5

PARTITION_STATES = tuple(s.value for s in PartitionState)
REPLICA_STATES = tuple(s.value for s in ReplicaState)
SEVERITIES = tuple(s.value for s in Severity)
# A violation's rule and the case its facts name, as `_violations_frame` joins them.
FINDING_NAMES = tuple(f"{f.rule}:{f.case}" for f in FINDINGS)
LEADER_NOT_IN_ISR = "LEADER_NOT_IN_ISR"

# Columns that identify a row, reported with the failing rows of each table.
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "input_events": ("cluster", "seq", "source_file", "source_line"),
    "partition_timeline": ("cluster", "topic", "partition", "seq", "source"),
    "replica_timeline": ("cluster", "topic", "partition", "seq", "replica"),
    "violations": ("cluster", "topic", "partition", "seq", "rule"),
    "quarantine": ("source_file", "source_line"),
}
VIOLATION_KEY = ("cluster", "topic", "partition", "seq")

# pyspark DataType class names (what ExpectColumnTypeToBe compares against on Spark).
SPARK_TYPE_CLASS = {
    "string": "StringType",
    "int": "IntegerType",
    "long": "LongType",
    "double": "DoubleType",
    "boolean": "BooleanType",
    "timestamp": "TimestampType",
    "array<int>": "ArrayType",
    "array<string>": "ArrayType",
    "map<string,string>": "MapType",
}
ARRAY_ELEMENT_CLASS = {"array<int>": "IntegerType", "array<string>": "StringType"}

# Lower bounds of the event's broker ids and epochs (checked where not null).
INPUT_MIN_VALUES: dict[str, tuple[int, str]] = {
    "partition": (0, "partition numbers start at 0"),
    "leader": (-2, "leader is a broker id, -1 (no leader) or -2 (unchanged, KRaft)"),
    "replica": (0, "replica is a broker id"),
    "recording_broker": (0, "recording_broker is a broker id"),
    "controller_id": (0, "controller_id is a broker id"),
    "controller_epoch": (0, "controller epochs start at 0"),
    "leader_epoch": (-1, "leader_epoch is >= 0, or -1 before the first election"),
}
# Broker-id arrays of the event: every element >= 0.
INPUT_BROKER_ARRAYS = ("brokers", "isr", "replicas")


# --------------------------------------------------------------------------- results


@dataclass
class GateResult:
    """Outcome of one suite. `results` has one JSON-ready dict per expectation:

    ``table``, ``expectation_type``, ``column`` (None for table-level expectations),
    ``kwargs`` (the other arguments), ``description`` (the rule in words), ``success``;
    for column-value expectations ``unexpected_count`` (0 when it passed) and, when it
    failed, ``element_count``, ``unexpected_values`` and ``unexpected_rows`` (the row
    keys, ROW_KEYS, of up to PARTIAL_UNEXPECTED failing rows); for failed schema
    expectations ``observed_value`` (and ``details``); ``exception`` when GE could not
    evaluate it (e.g. a missing column)."""

    suite: str
    success: bool
    results: list[dict] = field(default_factory=list)

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.results if not r["success"]]

    def to_json(self) -> str:
        return json.dumps(asdict(self), default=str, sort_keys=True)

    def summary(self) -> str:
        """A header line, then one line per failed expectation."""
        if self.success:
            return f"quality gate {self.suite}: passed ({len(self.results)} expectations)"
        failed = self.failed
        lines = [f"quality gate {self.suite}: FAILED {len(failed)} of {len(self.results)} expectations"]
        lines += [f"  - {describe_failure(r)}" for r in failed]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


class QualityGateFailed(Exception):
    """A quality gate failed; `result` is the GateResult, str() its summary."""

    def __init__(self, result: GateResult):
        super().__init__(result.summary())
        self.result = result


def require(result: GateResult) -> GateResult:
    """Return `result` if it passed, else raise QualityGateFailed carrying it."""
    if not result.success:
        raise QualityGateFailed(result)
    return result


def _js(value: Any) -> str:
    return json.dumps(value, default=str)


def describe_failure(r: dict) -> str:
    """One line for a failed expectation: where, what, how many, examples, the rule."""
    where = f"{r['table']}.{r['column']}" if r.get("column") else r["table"]
    rule = f" (expected: {r['description']})" if r.get("description") else ""
    head = f"{where}: {r['expectation_type']}"
    if r.get("exception"):
        return f"{head} could not be evaluated: {r['exception']}{rule}"
    if r.get("unexpected_count") is not None:
        text = f"{head} failed for {r['unexpected_count']} of {r.get('element_count')} rows"
        if r.get("unexpected_values"):
            text += f", values {_js(r['unexpected_values'])}"
        if r.get("unexpected_rows"):
            text += f" at {_js(r['unexpected_rows'])}"
        return text + rule
    mismatched = (r.get("details") or {}).get("mismatched")
    if mismatched:
        return f"{head} failed: {_js(mismatched)}{rule}"
    return f"{head} failed: observed {_js(r.get('observed_value'))}{rule}"


# --------------------------------------------------------------------------- GE plumbing


class _Gate:
    """One validated DataFrame: its dataframe asset, batch definition and suite, built once."""

    def __init__(self, context, datasource, name: str, expectations: list, row_keys: tuple[str, ...]):
        import great_expectations as gx

        self.name = name
        self.row_keys = row_keys
        asset = datasource.add_dataframe_asset(name=name)
        self.batch_definition = asset.add_batch_definition_whole_dataframe(f"{name}-whole-dataframe")
        self.suite = context.suites.add(gx.ExpectationSuite(name=name, expectations=expectations))
        self.by_id = {e.id: e for e in self.suite.expectations}

    def run(self, df: "DataFrame", persist: bool = False, details: bool = True) -> list[dict]:
        """Validate `df` against the suite: one GE validation, plus one of just the
        failed expectations when there are any (`details`; without it a failed
        expectation's result says only that it failed).

        The first asks GE for success only (BOOLEAN_ONLY): GE then computes the
        column-value expectations as one Spark aggregate per column domain and plans
        no query for example values (at any other level it plans one per expectation,
        failed or not, and runs it as one Spark job or more). If expectations failed
        (the gate fails and the job is about to stop), only those are run again, on
        the same frame, with counts, a few unexpected values and the keys of the rows
        that hold them. `persist`: cache the frame for the two (for frames that are
        costly to recompute: GE runs a few queries on it)."""
        with _RUN_LOCK:   # the gates share one GE execution engine (one active batch)
            return self._run(df, persist, details)

    def _run(self, df: "DataFrame", persist: bool, details: bool) -> list[dict]:
        import great_expectations as gx
        from great_expectations.expectations.expectation import ColumnMapExpectation

        if persist:
            df = df.persist()
        try:
            batch = self.batch_definition.get_batch(batch_parameters={"dataframe": df})
            res = batch.validate(self.suite, result_format={"result_format": "BOOLEAN_ONLY"})
            outcome = {r.expectation_config.id: r for r in res.results}
            failed = [eid for eid in self.by_id if eid not in outcome or not outcome[eid].success]
            if failed and details:
                keys = [k for k in self.row_keys if k in df.columns]
                fmt: dict[str, Any] = {"result_format": "SUMMARY" if keys else "BASIC",
                                       "partial_unexpected_count": PARTIAL_UNEXPECTED,
                                       "return_unexpected_index_query": False}
                if keys:
                    fmt["unexpected_index_column_names"] = keys
                # Configurations, not the suite's Expectation objects (those belong to it);
                # the ids are kept, to match the results back.
                again = gx.ExpectationSuite(name=f"{self.name}-failed",
                                            expectations=[self.by_id[eid].configuration for eid in failed])
                outcome.update({r.expectation_config.id: r
                                for r in batch.validate(again, result_format=fmt).results})
            else:
                keys = []
        finally:
            if persist:
                df.unpersist()
        results = []
        for eid, expectation in self.by_id.items():
            evr = outcome.get(eid)
            if evr is None:   # not expected: GE returns one result per expectation
                table, column = _table_column(self.name, expectation.configuration)
                results.append({"table": table, "expectation_type": expectation.expectation_type,
                                "column": column, "success": False,
                                "exception": "no result from Great Expectations"})
                continue
            r = _result_dict(self.name, evr, keys)
            if r["success"] and isinstance(expectation, ColumnMapExpectation):
                r["unexpected_count"] = 0   # mostly = 1: it passed, so no row was unexpected
            results.append(r)
        return [json.loads(_js(r)) for r in results]


def _table_column(gate: str, cfg) -> tuple[str, str | None]:
    """The table and column an expectation is about: the gate's frame and the expectation's
    column, or, for the combined output gate, what its ``meta`` names (`_output_expectations`)."""
    meta = cfg.meta or {}
    return meta.get("table", gate), meta.get("column", cfg.kwargs.get("column"))


def _result_dict(gate: str, evr, keys: list[str]) -> dict:
    cfg = evr.expectation_config
    table, column = _table_column(gate, cfg)
    out: dict[str, Any] = {
        "table": table,
        "expectation_type": cfg.type,
        "column": column,
        "kwargs": {k: v for k, v in cfg.kwargs.items() if k not in ("batch_id", "column")},
        "description": cfg.description,
        "success": bool(evr.success),
    }
    result = evr.result or {}
    if "unexpected_count" in result:
        out["element_count"] = result.get("element_count")
        out["unexpected_count"] = result.get("unexpected_count")
        if not evr.success:
            out["unexpected_values"] = list(result.get("partial_unexpected_list") or [])
            index = result.get("partial_unexpected_index_list") or []
            out["unexpected_rows"] = [{k: row.get(k) for k in keys} for row in index]
    elif "observed_value" in result:
        out["observed_value"] = result["observed_value"]
        mismatched = dict((result.get("details") or {}).get("mismatched") or {})
        if cfg.kwargs.get("exact_match") is False:
            mismatched.pop("unexpected", None)   # extra columns are allowed (and we add some)
        if mismatched:
            out["details"] = {"mismatched": mismatched}
    message = _exception_message(evr.exception_info)
    if message:
        out["exception"] = message
    return out


def _exception_message(info: Any) -> str | None:
    """First line of the exception GE caught, if any. `exception_info` is either one
    ExceptionInfo/dict, or (for metric failures) a dict of them keyed by metric id."""
    if not info:
        return None
    if hasattr(info, "to_json_dict"):
        info = info.to_json_dict()
    if not isinstance(info, dict):
        return str(info).strip().splitlines()[0] if str(info).strip() else None
    infos = [info] if ("raised_exception" in info or "exception_message" in info) else list(info.values())
    for item in infos:
        if hasattr(item, "to_json_dict"):
            item = item.to_json_dict()
        if isinstance(item, dict) and (item.get("raised_exception") or item.get("exception_message")):
            text = (item.get("exception_message") or "exception").strip()
            return text.splitlines()[0] if text else "exception"
    return None


_LOCK = threading.Lock()
_RUN_LOCK = threading.RLock()
_GATES: dict[str, _Gate] | None = None


def _gates() -> dict[str, _Gate]:
    """The ephemeral context with every gate, built on first use, then shared."""
    global _GATES
    with _LOCK:
        if _GATES is None:
            logging.getLogger("great_expectations").setLevel(logging.ERROR)
            import great_expectations as gx
            from great_expectations.data_context.types.base import ProgressBarsConfig

            context = gx.get_context(mode="ephemeral")
            # The default shows a tqdm bar per validation ("Calculating Metrics").
            context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
            # persist=False: GE would persist() every batch and never release it; `_Gate.run`
            # caches the frame for the duration of its validation instead.
            datasource = context.data_sources.add_spark(name="controller_replay", persist=False)
            _GATES = {name: _Gate(context, datasource, name, build(), ROW_KEYS[name])
                      for name, build in _SUITES.items()}
            _GATES[OUTPUT_SUITE] = _Gate(context, datasource, OUTPUT_SUITE, _output_expectations(), ())
        return _GATES


# --------------------------------------------------------------------------- suites


def _schema_expectations(fields: tuple[Field, ...]) -> list:
    import great_expectations as gx

    ex: list = [gx.expectations.ExpectTableColumnsToMatchSet(
        column_set=[f.name for f in fields], exact_match=False,
        description="every canonical column is present")]
    for f in fields:
        ex.append(gx.expectations.ExpectColumnTypeToBe(
            column=f.name, type_=SPARK_TYPE_CLASS[f.type], description=f"{f.name} is {f.type}"))
        if f.type in ARRAY_ELEMENT_CLASS:
            ex.append(gx.expectations.ExpectColumnTypeToBe(
                column=f"{f.name}__element", type_=ARRAY_ELEMENT_CLASS[f.type],
                description=f"{f.name} is {f.type} (element type)"))
    return ex


def _input_expectations() -> list:
    import great_expectations as gx

    E = gx.expectations
    ex = _schema_expectations(EVENT_FIELDS)
    for col in ("cluster", "seq", "event_type"):
        ex.append(E.ExpectColumnValuesToNotBeNull(column=col, description=f"{col} is set"))
    ex.append(E.ExpectColumnValuesToBeInSet(
        column="event_type", value_set=sorted(EVENT_TYPE_NAMES), description="a known event type"))
    for col, (lo, why) in INPUT_MIN_VALUES.items():
        ex.append(E.ExpectColumnValuesToBeBetween(column=col, min_value=lo, description=f">= {lo}: {why}"))
    for col in INPUT_BROKER_ARRAYS:
        ex.append(E.ExpectColumnValuesToBeBetween(
            column=f"{col}__min", min_value=0,
            description=f"every element of {col} is a broker id >= 0 (column = array_min({col}))"))
    return ex


def _partition_timeline_expectations() -> list:
    import great_expectations as gx

    E = gx.expectations
    return [
        E.ExpectColumnValuesToBeInSet(column="partition_state", value_set=list(PARTITION_STATES),
                                      description="one of the four partition states"),
        E.ExpectColumnValuesToNotBeNull(column="partition_state", description="partition_state is set"),
        E.ExpectColumnValuesToBeInSet(
            column="leader_in_isr", value_set=[True],
            description="an OnlinePartition row with leader >= 0 has its leader in its ISR, unless the "
                        "row is the subject of a LEADER_NOT_IN_ISR violation"),
        E.ExpectColumnValuesToBeInSet(
            column="valid_from_le_valid_to", value_set=[True],
            description="valid_from <= valid_to where both are set"),
    ]


def _replica_timeline_expectations() -> list:
    import great_expectations as gx

    E = gx.expectations
    return [
        E.ExpectColumnValuesToBeInSet(column="replica_state", value_set=list(REPLICA_STATES),
                                      description="one of the seven replica states"),
        E.ExpectColumnValuesToNotBeNull(column="replica_state", description="replica_state is set"),
        E.ExpectColumnValuesToBeBetween(column="replica", min_value=0, description="replica is a broker id >= 0"),
    ]


def _violations_expectations() -> list:
    import great_expectations as gx

    E = gx.expectations
    return [
        E.ExpectColumnValuesToNotBeNull(column="rule", description="every violation names its rule"),
        E.ExpectColumnValuesToNotBeNull(column="severity", description="every violation has a severity"),
        E.ExpectColumnValuesToBeInSet(column="severity", value_set=list(SEVERITIES),
                                      description="severity is error, warning or info"),
        E.ExpectColumnValuesToNotBeNull(column="facts", description="every violation carries its facts"),
        E.ExpectColumnValuesToBeInSet(column="finding", value_set=list(FINDING_NAMES),
                                      description="the facts name a finding of the violation's rule (RULE:case)"),
    ]


def _quarantine_expectations() -> list:
    import great_expectations as gx

    E = gx.expectations
    return [
        E.ExpectColumnValuesToNotBeNull(column="reason", description="every quarantined record says why"),
        E.ExpectColumnValuesToMatchRegex(
            column="reason", regex=r"\S", description="the reason is not empty or blank"),
    ]


_SUITES: dict[str, Callable[[], list]] = {
    "input_events": _input_expectations,
    "partition_timeline": _partition_timeline_expectations,
    "replica_timeline": _replica_timeline_expectations,
    "violations": _violations_expectations,
    "quarantine": _quarantine_expectations,
}
OUTPUT_TABLES = ("partition_timeline", "replica_timeline", "violations", "quarantine")


def _output_column(table: str, expectation) -> str:
    """The combined output frame's column for one table's expectation (`_output_frame`)."""
    suffix = "__not_null" if expectation.expectation_type == "expect_column_values_to_not_be_null" else ""
    return f"{table}__{expectation.column}{suffix}"


def _output_expectations() -> list:
    """Every output table's expectations, each on its column of the combined frame, with the
    table and column it is about in its ``meta`` (the results name those)."""
    out = []
    for table in OUTPUT_TABLES:
        for e in _SUITES[table]():
            kwargs = {**e.configuration.kwargs, "column": _output_column(table, e)}
            out.append(type(e)(**kwargs, description=e.description, meta={"table": table, "column": e.column}))
    return out


# --------------------------------------------------------------------------- derived columns


def _with_array_columns(df: "DataFrame", fields: tuple[Field, ...], min_of: tuple[str, ...] = ()) -> "DataFrame":
    """Add ``<col>__element`` (type check) and ``<col>__min`` for the array columns present."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType

    types = {f.name: f.dataType for f in df.schema.fields}
    extra = {}
    for f in fields:
        if f.type in ARRAY_ELEMENT_CLASS and isinstance(types.get(f.name), ArrayType):
            # Only the type of this column is checked; try_element_at never fails on [].
            extra[f"{f.name}__element"] = F.try_element_at(F.col(f.name), F.lit(1))
            if f.name in min_of:
                extra[f"{f.name}__min"] = F.array_min(f.name)   # null for null or [] arrays
    return df.withColumns(extra) if extra else df


def _input_frame(df: "DataFrame") -> "DataFrame":
    return _with_array_columns(df, EVENT_FIELDS, INPUT_BROKER_ARRAYS)


def _partition_timeline_frame(pt: "DataFrame", violations: "DataFrame") -> "DataFrame":
    """partition_timeline + the two derived booleans (null where the rule does not apply).

    ``leader_in_isr`` is evaluated only on rows that are not the subject of a
    LEADER_NOT_IN_ISR violation: those (cluster, topic, partition, seq) are taken out
    with a left anti join and put back with the check left null."""
    from pyspark.sql import functions as F

    subjects = violations.where(F.col("rule") == LEADER_NOT_IN_ISR).select(*VIOLATION_KEY)
    checked = pt.join(subjects, list(VIOLATION_KEY), "left_anti").withColumn(
        "leader_in_isr",
        F.when((F.col("partition_state") == PartitionState.OnlinePartition.value) & (F.col("leader") >= 0),
               F.coalesce(F.array_contains("isr", F.col("leader")), F.lit(False))))
    excused = pt.join(subjects, list(VIOLATION_KEY), "left_semi").withColumn(
        "leader_in_isr", F.lit(None).cast("boolean"))
    return checked.unionByName(excused).withColumn(
        "valid_from_le_valid_to",
        F.when(F.col("valid_from").isNotNull() & F.col("valid_to").isNotNull(),
               F.col("valid_from") <= F.col("valid_to")))


def _violations_frame(violations: "DataFrame") -> "DataFrame":
    """violations + ``finding``: its rule and the case its facts name (``RULE:case``; ``RULE:``
    where they name none, null where the rule is null, which its own expectation reports)."""
    from pyspark.sql import functions as F

    return violations.withColumn("finding", F.concat("rule", F.lit(":"), F.coalesce(F.col("facts")["case"], F.lit(""))))


def _output_frame(frames: dict[str, "DataFrame"], expectations: list) -> "DataFrame":
    """The output tables as one frame, a row per table row: for each expectation of table T
    on column C, a column ``T__C`` with C's values on T's rows and null on the others (GE's
    column-value expectations skip nulls), or for a not-null expectation ``T__C__not_null``,
    null exactly on T's rows where C is null."""
    from pyspark.sql import functions as F

    from pyspark.sql.types import StringType

    # A table not given (None: not checked) has no row: its columns are there, all null, and its
    # results are left out (validate_output).
    columns = [(e.meta["table"], e.meta["column"], e.column) for e in expectations]
    types = {(t, c): frames[t].schema[c].dataType if t in frames else StringType() for t, c, _ in columns}
    parts = []
    for table, df in frames.items():
        cols = []
        for t, c, name in columns:
            if name.endswith("__not_null"):
                value = F.when(F.col(c).isNull(), F.lit(None)).otherwise(F.lit(1)) if t == table else F.lit(1)
            else:
                value = F.col(c) if t == table else F.lit(None).cast(types[(t, c)])
            cols.append(value.alias(name))
        parts.append(df.select(*cols))
    combined = parts[0]
    for part in parts[1:]:
        combined = combined.union(part)
    return combined


# --------------------------------------------------------------------------- API


def validate_input(df: "DataFrame") -> GateResult:
    """Suite ``input_events`` on canonical events (bad records already quarantined).

    GE runs a few queries on `df` (more if expectations fail): pass a frame that is
    cached or cheap to recompute (the audit's is a projection of its cached parse)."""
    results = _gates()["input_events"].run(_input_frame(df))
    return GateResult(INPUT_SUITE, all(r["success"] for r in results), results)


def validate_output(
    partition_timeline: "DataFrame",
    replica_timeline: "DataFrame | None",
    violations: "DataFrame",
    quarantine: "DataFrame | None",
) -> GateResult:
    """Suite ``output_tables``: each table's expectations, results in OUTPUT_TABLES' order;
    replica_timeline and quarantine may be None (not checked). As for validate_input,
    the tables should be cached or cheap to recompute.

    One GE validation of one frame, the four tables side by side (`_output_frame`): GE's
    queries per validation are few and the same for any number of expectations, so four
    validations cost four times one. When an expectation fails, its table is validated
    again on its own frame, for the counts, values and row keys of what failed."""
    frames = {"partition_timeline": _partition_timeline_frame(partition_timeline, violations),
              "replica_timeline": replica_timeline, "violations": _violations_frame(violations),
              "quarantine": quarantine}
    frames = {table: df for table, df in frames.items() if df is not None}
    gates = _gates()
    # Joins and a union: cached while GE queries it, not recomputed for each query.
    combined = gates[OUTPUT_SUITE].run(_output_frame(frames, gates[OUTPUT_SUITE].suite.expectations),
                                       persist=True, details=False)
    failed = {r["table"] for r in combined if not r["success"]}
    results = []
    for table, df in frames.items():
        if table in failed:
            results += gates[table].run(df, persist=table == "partition_timeline")
        else:
            results += [r for r in combined if r["table"] == table]
    return GateResult(OUTPUT_SUITE, all(r["success"] for r in results), results)
