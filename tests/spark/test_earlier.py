"""What the next audit reads back from partition_timeline: small frames, no audit."""
from __future__ import annotations

import pytest

from jobs.earlier import carried_inference
from state_machine.carried import inference_detail, inference_of
from state_machine.findings import INFERABLE

pytestmark = pytest.mark.spark

ROWS = [(False, []), (False, ["isr"]), (True, []), (True, ["leader_epoch", "isr"]), (True, list(INFERABLE)),
        (False, None), (True, None)]


def test_a_row_carries_the_detail_the_cores_carried_state_holds(spark):
    frame = spark.createDataFrame(ROWS, "inferred boolean, inferred_values array<string>")
    details = [r[0] for r in frame.select(carried_inference(frame.columns)).collect()]
    # A row of this version: the core's text. A row written before the column: its flag alone.
    assert details == [inference_detail(flag, tuple(values)) if values is not None else "inferred" if flag else None
                       for flag, values in ROWS]
    assert [inference_of(d) for d in details] == [
        (False, frozenset()), (False, {"isr"}), (True, frozenset()), (True, {"leader_epoch", "isr"}),
        (True, set(INFERABLE)), (False, frozenset()), (True, set(INFERABLE))]


def test_a_table_without_the_column_carries_the_flag_alone(spark):
    frame = spark.createDataFrame([(False,), (True,)], "inferred boolean")
    assert [r[0] for r in frame.select(carried_inference(frame.columns)).collect()] == [None, "inferred"]
