"""ingest.counts alone: its grouping skips what does not vary and gives pyarrow's group_by
all the same, and the pieces' tallies add up as the ingest reads them. (That the profile it
counts is Spark's of the events: tests/spark/test_ingest_order.py.)"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.counts import TALLY_KEY, _grouped, merged_tally

AGGREGATES = [("x", "count"), ("x", "min"), ("x", "max"), ("x", "sum"), ("s", "distinct", pc.CountOptions(mode="only_valid"))]


def _column(values, nulls: str, kind):
    """`values` as they are, every one null, or none null."""
    if nulls == "all":
        values = [None] * len(values)
    elif nulls == "none":
        values = [v if v is not None else kind[1] for v in values]
    return pa.array(values, kind[0])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n),
    st.lists(st.sampled_from([1, 2, None]), min_size=n, max_size=n),
    st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=n, max_size=n),
    st.lists(st.sampled_from(["p", "q", None]), min_size=n, max_size=n))),
    st.lists(st.sampled_from(["all", "none", "some"]), min_size=4, max_size=4))
def test_grouping_only_what_varies_is_a_plain_group_by(columns, nulls):
    k1, k2, x, s = columns
    table = pa.table({"k1": _column(k1, nulls[0], (pa.string(), "c")), "k2": _column(k2, nulls[1], (pa.int64(), 3)),
                      "x": _column(x, nulls[2], (pa.int64(), 0)), "s": _column(s, nulls[3], (pa.string(), "r"))})
    want = table.group_by(["k1", "k2"]).aggregate([([], "count_all"), *AGGREGATES]).to_pylist()
    got = _grouped(table, ["k1", "k2"], AGGREGATES)

    def key(r):
        return repr((r["k1"], r["k2"]))

    def same(rows):
        return sorted(({**r, "s_distinct": sorted(r["s_distinct"])} for r in rows), key=key)

    assert same(got) == same(want)


def test_a_files_first_piece_quarantines_its_leading_lines_and_the_tallies_add_up():
    """Continuation lines at the start of a later split belong to the record before them; at a
    file's start they continue nothing, and are quarantined rows of no log."""
    def row(kind, logged, lines, rows, matched):
        return [kind, logged, "c", None, None, None, None, lines, rows, matched]

    first = {"tally": [row("leading", True, 2, 2, 0), row("event", True, 5, 5, 5)]}
    later = {"tally": [row("leading", True, 1, 1, 0), row("event", True, 3, 3, 3), row("quarantine", False, 1, 1, 0)]}
    got = {tuple(r[k] for k in ("file", *TALLY_KEY)): (r["lines"], r["rows"], r["matched"])
           for r in merged_tally([("f", first, True), ("f", later, False)])}
    assert got == {("f", "quarantine", False, "c", None, None, None, None): (3, 3, 0),
                   ("f", "leading", True, "c", None, None, None, None): (1, 1, 0),
                   ("f", "event", True, "c", None, None, None, None): (8, 8, 8)}


def test_a_pieces_counts_are_the_same_however_many_rows_are_counted_at_once(monkeypatch):
    """The parse counts its rows a few batches at a time (COUNTED_ROWS): counted one batch at a
    time, or all at the end, each piece's row carries the same counts."""
    import ingest.splits as splits
    from tests.ingest.test_fast import GENERATED, REAL_LINES

    lines = GENERATED + REAL_LINES
    file = "file:/logs/broker-1/state-change.log"
    batches = [pa.RecordBatch.from_pydict({"raw": lines[i:i + 50], "file": [file] * len(lines[i:i + 50]),
                                           "block": pa.array([(i // 300) * 1000] * len(lines[i:i + 50]), pa.int64())})
               for i in range(0, len(lines), 50)]

    def counts(at_once: int) -> dict:
        monkeypatch.setattr(splits, "COUNTED_ROWS", at_once)
        rows = [r for b in splits.SplitParser({}, "c", "UTC", "auto").rows(iter(batches)) for r in b.to_pylist()]
        return {(r["file"], r["block"]): r["counts"] for r in rows if r["kind"] == "piece"}

    every = counts(10**9)
    assert len(every) > 3 and counts(1) == every and counts(120) == every
