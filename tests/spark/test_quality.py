"""Quality gates (jobs.quality): Great Expectations suites on small DataFrames built with
the real schemas. GE's context, assets and suites are built once per process
(jobs.quality._gates) and shared by every test here."""
from __future__ import annotations

import json
from datetime import datetime

import pytest

from schemas.events import EVENT_FIELD_NAMES, event_struct
from schemas.tables import TABLES, table_struct

pytestmark = pytest.mark.spark

C, T = "c1", "orders"


def _event(**kw):
    row = dict.fromkeys(EVENT_FIELD_NAMES)
    row.update(kw)
    return tuple(row[n] for n in EVENT_FIELD_NAMES)


GOOD_EVENTS = [
    _event(cluster=C, seq=1, event_type="ControllerFailover", controller_id=1, controller_epoch=1, brokers=[1, 2, 3]),
    _event(cluster=C, seq=2, event_type="TopicCreation", topic=T, partition=0, replicas=[1, 2, 3]),
    _event(cluster=C, seq=3, event_type="LeaderAndIsr", topic=T, partition=0, leader=1, leader_epoch=0,
           isr=[1, 2, 3], controller_epoch=1, recording_broker=1, source_file="state-change.log", source_line=7),
    _event(cluster=C, seq=4, event_type="ReplicaStateChange", topic=T, partition=0, replica=2, to_state="OnlineReplica"),
    _event(cluster=C, seq=5, event_type="BrokerFailure", brokers=[3]),
    _event(cluster=C, seq=6, event_type="PartitionChangeRecord", topic=T, partition=0, leader=-2, leader_epoch=-1),
    _event(cluster=C, seq=7, event_type="PartitionStateChange", topic=T, partition=0, leader=-1, isr=[],
           to_state="OfflinePartition"),
]


def _nullable(schema):
    """Same names and types, every field nullable (to build rows a real reader could
    not produce, such as a null cluster)."""
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(f.name, f.dataType, True) for f in schema.fields])


def _failed(result):
    return {(r["expectation_type"], r["column"]) for r in result.results if not r["success"]}


def _by_column(result, column):
    [r] = [r for r in result.results if r["column"] == column and not r["success"]]
    return r


# ------------------------------------------------------------------ input_events


def test_valid_input_passes(spark):
    from jobs import quality

    result = quality.validate_input(spark.createDataFrame(GOOD_EVENTS, event_struct()))
    assert result.suite == "input_events"
    assert result.success, result.summary()
    assert quality.require(result) is result
    # The schema check covers every canonical column, by Spark type.
    typed = {r["column"] for r in result.results if r["expectation_type"] == "expect_column_type_to_be"}
    assert set(EVENT_FIELD_NAMES) <= typed
    assert {"brokers__element", "isr__element", "replicas__element"} <= typed
    ranges = {r["column"]: r["kwargs"]["min_value"] for r in result.results
              if r["expectation_type"] == "expect_column_values_to_be_between"}
    assert ranges["leader"] == -2 and ranges["leader_epoch"] == -1 and ranges["replica"] == 0
    assert ranges["brokers__min"] == 0
    assert all(r["unexpected_count"] == 0 for r in result.results if "unexpected_count" in r)
    assert json.loads(result.to_json())["success"] is True


def test_bad_input_fails_exactly_the_broken_expectations(spark):
    from jobs import quality

    rows = GOOD_EVENTS + [
        _event(cluster=C, seq=8, event_type="LeaderElected", topic=T, partition=0,
               source_file="controller.log", source_line=80),
        _event(cluster=None, seq=9, event_type="BrokerStartup", brokers=[3]),
        _event(cluster=C, seq=10, event_type="ReplicaStateChange", topic=T, partition=0, replica=-4,
               to_state="OfflineReplica"),
    ]
    result = quality.validate_input(spark.createDataFrame(rows, _nullable(event_struct())))

    assert not result.success
    assert _failed(result) == {
        ("expect_column_values_to_be_in_set", "event_type"),
        ("expect_column_values_to_not_be_null", "cluster"),
        ("expect_column_values_to_be_between", "replica"),
    }
    event_type = _by_column(result, "event_type")
    assert event_type["unexpected_count"] == 1 and event_type["element_count"] == 10
    assert event_type["unexpected_values"] == ["LeaderElected"]
    assert event_type["unexpected_rows"] == [
        {"cluster": C, "seq": 8, "source_file": "controller.log", "source_line": 80}]
    assert _by_column(result, "cluster")["unexpected_rows"] == [
        {"cluster": None, "seq": 9, "source_file": None, "source_line": None}]
    assert _by_column(result, "replica")["unexpected_values"] == [-4]

    summary = result.summary().splitlines()
    assert summary[0].startswith("quality gate input_events: FAILED 3 of ")
    assert len(summary) == 4
    assert any("input_events.event_type" in line and "LeaderElected" in line and "controller.log" in line
               for line in summary[1:])
    with pytest.raises(quality.QualityGateFailed) as exc:
        quality.require(result)
    assert exc.value.result is result
    assert "input_events.replica: expect_column_values_to_be_between" in str(exc.value)
    assert json.loads(result.to_json())["results"] == result.results


def test_input_schema_and_broker_arrays_are_checked(spark):
    """A column of the wrong type and a negative broker id inside an array."""
    from pyspark.sql import functions as F

    from jobs import quality

    rows = GOOD_EVENTS + [_event(cluster=C, seq=8, event_type="BrokerStartup", brokers=[4, -1])]
    df = spark.createDataFrame(rows, event_struct()).withColumn("partition", F.col("partition").cast("long"))
    result = quality.validate_input(df)

    assert _failed(result) == {
        ("expect_column_type_to_be", "partition"),
        ("expect_column_values_to_be_between", "brokers__min"),
    }
    assert _by_column(result, "partition")["observed_value"] == "LongType"
    assert [r["seq"] for r in _by_column(result, "brokers__min")["unexpected_rows"]] == [8]


# ------------------------------------------------------------------ output_tables


def _row(table, **kw):
    names = [f.name for f in TABLES[table]]
    missing = set(names) - set(kw)
    assert not missing, missing
    return tuple(kw[n] for n in names)


def _t(minute):
    return datetime(2024, 5, 1, 12, minute)


def _timeline(ordinal, seq, state, leader, isr, valid_from, valid_to, **kw):
    base = dict(cluster=C, topic=T, partition=0, ordinal=ordinal, seq=seq, valid_from=valid_from,
                valid_to=valid_to, partition_state=state, leader=leader, leader_epoch=max(ordinal - 1, -1),
                isr=isr, replicas=[1, 2, 3], controller_epoch=1, election=None, source=f"seq:{seq}",
                inferred=False, elr=None, last_known_elr=None, leader_recovery_state=None,
                target_replicas=None, inferred_values=None)
    base.update(kw)
    return _row("partition_timeline", **base)


# A case of each rule the tests use (state_machine.findings.FINDINGS).
CASES = {"UNCLEAN_LEADER_ELECTION": "outside_isr", "LEADER_NOT_IN_ISR": "not_in_isr",
         "UNEXPECTED_LEADER": "selector_chooses_another"}


def _violation(ordinal, seq, rule, severity="error", case=None):
    return _row("violations", cluster=C, topic=T, partition=0, ordinal=ordinal, seq=seq, rule=rule,
                severity=severity, event_time=_t(seq), detail="...", evidence=[f"seq:{seq}"],
                facts={"case": case or CASES[rule], "era": "2.4"})


def _quarantined(line, reason):
    return _row("quarantine", cluster=C, source_file="events.jsonl", source_line=line, reason=reason,
                raw="{not json", run_id="run-1")


# Row 3 breaks leader-in-ISR, but the audit reported it (GOOD_VIOLATIONS): that is its job.
GOOD_TIMELINE = [
    _timeline(0, 2, "NewPartition", -1, [], _t(2), _t(3)),
    _timeline(1, 3, "OnlinePartition", 1, [1, 2, 3], _t(3), _t(5), election="initial"),
    _timeline(2, 5, "OnlinePartition", 1, [1, 2], _t(5), _t(6)),
    _timeline(3, 6, "OnlinePartition", 3, [1, 2], _t(6), _t(7)),
    _timeline(4, 7, "OfflinePartition", -1, [], _t(7), None, election="offline"),
]
GOOD_REPLICAS = [
    _row("replica_timeline", cluster=C, topic=T, partition=0, ordinal=0, seq=2, valid_from=_t(2), replica=1,
         replica_state="NewReplica", source="seq:2", inferred=True),
    _row("replica_timeline", cluster=C, topic=T, partition=0, ordinal=1, seq=4, valid_from=_t(4), replica=2,
         replica_state="OnlineReplica", source="seq:4", inferred=False),
]
REPORTED = _violation(1, 6, "LEADER_NOT_IN_ISR")
GOOD_VIOLATIONS = [_violation(0, 5, "UNCLEAN_LEADER_ELECTION", "info"), REPORTED]
GOOD_QUARANTINE = [_quarantined(3, "malformed JSON: Expecting value at column 1")]


def _frame(spark, table, rows):
    return spark.createDataFrame(list(rows), table_struct(table))


def _output(spark, timeline=(), violations=GOOD_VIOLATIONS, quarantine=(), violations_frame=None):
    from jobs import quality

    return quality.validate_output(
        _frame(spark, "partition_timeline", GOOD_TIMELINE + list(timeline)),
        _frame(spark, "replica_timeline", GOOD_REPLICAS),
        violations_frame if violations_frame is not None else _frame(spark, "violations", violations),
        _frame(spark, "quarantine", GOOD_QUARANTINE + list(quarantine)),
    )


def test_valid_output_passes(spark):
    """Including an online row whose leader is not in its ISR, which the audit reported
    as a LEADER_NOT_IN_ISR violation: the expectation skips it."""
    result = _output(spark)
    assert result.suite == "output_tables"
    assert result.success, result.summary()
    tables = {r["table"] for r in result.results}
    assert tables == {"partition_timeline", "replica_timeline", "violations", "quarantine"}
    [isr] = [r for r in result.results if r["column"] == "leader_in_isr"]
    assert isr["expectation_type"] == "expect_column_values_to_be_in_set" and isr["success"]


@pytest.fixture(scope="module")
def broken_output(spark):
    """The valid output with three faults, validated once for the tests below (a failing
    validate_output validates each failing table again): the LEADER_NOT_IN_ISR violation of seq 6 is
    gone, a row ends before it starts, two quarantined records have no reason."""
    # A LEADER_NOT_IN_ISR of another seq and another rule on seq 6 excuse nothing.
    violations = [_violation(0, 5, "UNCLEAN_LEADER_ELECTION", "info"), _violation(1, 2, "LEADER_NOT_IN_ISR"),
                  _violation(2, 6, "UNEXPECTED_LEADER")]
    backwards = _timeline(5, 9, "OfflinePartition", -1, [], _t(10), _t(9))
    return _output(spark, timeline=[backwards], violations=violations,
                   quarantine=[_quarantined(4, ""), _quarantined(5, "   ")])


def test_broken_output_fails_exactly_the_broken_expectations(broken_output):
    assert not broken_output.success
    assert _failed(broken_output) == {
        ("expect_column_values_to_be_in_set", "leader_in_isr"),
        ("expect_column_values_to_be_in_set", "valid_from_le_valid_to"),
        ("expect_column_values_to_match_regex", "reason"),
    }
    summary = broken_output.summary().splitlines()
    assert summary[0].startswith("quality gate output_tables: FAILED 3 of ") and len(summary) == 4


def test_leader_not_in_isr_fails_when_not_reported(broken_output):
    r = _by_column(broken_output, "leader_in_isr")
    assert r["table"] == "partition_timeline" and r["unexpected_count"] == 1
    assert r["unexpected_values"] == [False]
    assert r["unexpected_rows"] == [{"cluster": C, "topic": T, "partition": 0, "seq": 6, "source": "seq:6"}]
    assert "partition_timeline.leader_in_isr: expect_column_values_to_be_in_set" in broken_output.summary()


def test_valid_from_after_valid_to_fails(broken_output):
    r = _by_column(broken_output, "valid_from_le_valid_to")
    assert r["table"] == "partition_timeline" and r["unexpected_count"] == 1
    assert [row["seq"] for row in r["unexpected_rows"]] == [9]


def test_quarantine_row_with_empty_reason_fails(broken_output):
    r = _by_column(broken_output, "reason")
    assert r["table"] == "quarantine" and r["unexpected_count"] == 2
    assert sorted(row["source_line"] for row in r["unexpected_rows"]) == [4, 5]


def test_a_null_in_one_table_fails_that_table_only(spark):
    """The output tables are validated side by side in one frame: a not-null expectation of
    one table sees that table's rows only, and what failed is counted on the table itself."""
    from pyspark.sql import functions as F

    violations = _frame(spark, "violations", GOOD_VIOLATIONS + [_violation(2, 7, "UNEXPECTED_LEADER")])
    # The table's schema holds rule NOT NULL: the null comes from a projection, as a bug would make it.
    result = _output(spark, violations_frame=violations.withColumn("rule", F.when(F.col("seq") != 7, F.col("rule"))))
    assert _failed(result) == {("expect_column_values_to_not_be_null", "rule")}
    r = _by_column(result, "rule")
    assert r["table"] == "violations" and r["unexpected_count"] == 1 and r["element_count"] == 3
    assert r["unexpected_rows"] == [{"cluster": C, "topic": T, "partition": 0, "seq": 7, "rule": None}]
    # The other tables' results are the side-by-side validation's, all passed.
    assert {x["table"] for x in result.results if x["success"]} == {
        "partition_timeline", "replica_timeline", "violations", "quarantine"}


def test_violations_whose_facts_name_no_finding_of_their_rule_fail(spark):
    """Facts of another rule's finding, and none at all: each row is named; a violation without
    facts fails the not-null expectation too."""
    odd = _violation(2, 7, "UNEXPECTED_LEADER", case="not_in_isr")
    bare = _violation(3, 8, "LEADER_NOT_IN_ISR")[:-1] + (None,)
    result = _output(spark, violations=GOOD_VIOLATIONS + [odd, bare])
    assert _failed(result) == {("expect_column_values_to_be_in_set", "finding"),
                               ("expect_column_values_to_not_be_null", "facts")}
    r = _by_column(result, "finding")
    assert r["table"] == "violations" and r["unexpected_count"] == 2
    assert sorted(r["unexpected_values"]) == ["LEADER_NOT_IN_ISR:", "UNEXPECTED_LEADER:not_in_isr"]
    assert sorted(row["seq"] for row in r["unexpected_rows"]) == [7, 8]
    assert [row["seq"] for row in _by_column(result, "facts")["unexpected_rows"]] == [8]

