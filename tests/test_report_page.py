"""The report's charts and page from plain rows (jobs/report_page.py; no Spark)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from jobs import report_page as page
from jobs.report_page import Interval, Scale, TimelineRow
from state_machine.states import is_offline

T0 = datetime(2026, 11, 26, 1, 0, 0)


def at(s: float) -> datetime:
    return T0 + timedelta(seconds=s)


SCALE = Scale(at(0), at(100))
# A partition led by 1, offline from 40 s to 60 s, then led by 3 after an unclean election.
ROWS = [
    TimelineRow(at(0), at(5), "NewPartition", -1, [], [1, 3], None, "state-change.log:5"),
    TimelineRow(at(5), at(40), "OnlinePartition", 1, [1, 3], [1, 3], "initial", "state-change.log:10"),
    TimelineRow(at(40), at(45), "OfflinePartition", 1, [1], [1, 3], None, "state-change.log:15"),
    TimelineRow(at(45), at(60), "OfflinePartition", -1, [1], [1, 3], None, "state-change.log:20"),
    TimelineRow(at(60), None, "OnlinePartition", 3, [3], [1, 3], "unclean", "state-change.log:30"),
]


def elements(svg: str, cls: str) -> list[str]:
    """The elements of `svg` whose class list holds `cls`."""
    return [e for e in re.findall(r'<[a-z]+ class="[^"]*"[^>]*>', svg) if cls in attr(e, "class").split()]


def attr(element: str, name: str) -> str:
    return re.search(rf'\b{name}="([^"]*)"', element).group(1)


def test_scale_maps_the_window_onto_the_plot_and_clamps_outside_it():
    assert SCALE.x(at(0)) == page.LEFT
    assert SCALE.x(at(100)) == page.WIDTH - page.RIGHT
    assert SCALE.x(at(50)) == page.LEFT + page.PLOT / 2
    assert SCALE.x(at(-10)) == page.LEFT and SCALE.x(at(500)) == page.WIDTH - page.RIGHT


def test_unclean_election_is_one_red_marker_where_it_happened():
    svg = page.partition_chart("c/unclean-0", ROWS, SCALE)
    unclean = elements(svg, "unclean")
    assert len(unclean) == 1
    assert attr(unclean[0], "fill") == page.UNCLEAN_RED and attr(unclean[0], "data-kind") == "unclean"
    tip = re.search(r"unclean election at [^<]*", svg).group(0)
    assert "leader 3" in tip and "state-change.log:30" in tip
    # The marker's apex is at the election's time: 60 % across the plot.
    apex_x = float(attr(unclean[0], "d").split("L")[2].split(",")[0])
    assert apex_x == SCALE.x(at(60))
    # The initial election is marked too, in its own colour; red is the unclean one's alone.
    initial = elements(svg, "election-initial")
    assert len(initial) == 1 and attr(initial[0], "fill") != page.UNCLEAN_RED
    assert 'data-partition="c/unclean-0"' in svg


def test_offline_while_its_leader_is_gone_or_none_not_before_its_election_or_once_deleted():
    assert [is_offline(r.partition_state, r.leader) for r in ROWS] == [False, False, True, True, False]
    assert not is_offline("NonExistentPartition", -1)
    svg = page.partition_chart("c/unclean-0", ROWS, SCALE)
    offline = elements(svg, "offline")
    assert [float(attr(e, "x")) for e in offline] == [SCALE.x(at(40)), SCALE.x(at(45))]
    assert sum(float(attr(e, "width")) for e in offline) == SCALE.x(at(60)) - SCALE.x(at(40))
    assert [attr(e, "data-leader") for e in elements(svg, "leader")] == ["1", "3"]
    (absent,) = elements(svg, "absent")
    assert float(attr(absent, "width")) == SCALE.x(at(5)) - SCALE.x(at(0))


def test_isr_size_steps_down_against_the_replicas():
    svg = page.partition_chart("c/unclean-0", ROWS, SCALE)
    isr = attr(elements(svg, "isr")[0], "d")
    ys = [float(p.split(",")[1]) for p in re.findall(r"[ML][\d.]+,[\d.]+", isr)]
    # ISR sizes 0, 2, 1, 1, 1 of 2 replicas: at the bottom, the top, then half way down.
    assert ys[2] == ys[3] < ys[4] == ys[5] == ys[6] == ys[7] == ys[8] == ys[9] < ys[0] == ys[1]
    replicas = attr(elements(svg, "replicas")[0], "d")
    assert len({p.split(",")[1] for p in re.findall(r"[ML][\d.]+,[\d.]+", replicas)}) == 1


def test_broker_intervals_read_liveness_as_the_replay_does():
    changes = [
        (at(0), "ControllerFailover", [1, 2, 3]),
        (at(30), "BrokerFailure", [1]),
        (at(50), "ControlledShutdown", [2]),   # still alive while it shuts down
        (at(70), "BrokerStartup", [1]),
        (at(80), "ControllerFailover", [1, 3]),  # 2 is not in the controller's list: down
    ]
    got = page.broker_intervals(changes, at(100))
    assert got == {
        1: [Interval(at(0), at(30), "up"), Interval(at(30), at(70), "down"), Interval(at(70), at(100), "up")],
        2: [Interval(at(0), at(80), "up"), Interval(at(80), at(100), "down")],
        3: [Interval(at(0), at(100), "up")],
    }
    svg = page.broker_chart("c", got, SCALE)
    assert len(elements(svg, "broker-down")) == 2 and len(elements(svg, "broker-up")) == 4
    # A window that opens at 75 s: the intervals that ended before it are not drawn, the one it
    # opens in starts at its left edge.
    late = page.broker_chart("c", got, Scale(at(75), at(100)))
    assert len(elements(late, "broker-up")) == 3 and len(elements(late, "broker-down")) == 1
    assert {float(attr(e, "x")) for e in elements(late, "broker-up")} == {page.LEFT}


def test_controller_chart_marks_each_failover_with_its_controller():
    svg = page.controller_chart("c", [(at(0), 1, 1), (at(30), 2, 3), (at(90), 3, 2)], SCALE)
    marks = elements(svg, "failover")
    assert [float(attr(m, "cx")) for m in marks] == [SCALE.x(at(0)), SCALE.x(at(30)), SCALE.x(at(90))]
    # Higher epochs are higher on the chart.
    assert [float(attr(m, "cy")) for m in marks] == sorted((float(attr(m, "cy")) for m in marks), reverse=True)
    assert ">c3<" in svg and ">c2<" in svg
    # One epoch alone is drawn at the top of the chart, not on its axis.
    (alone,) = elements(page.controller_chart("c", [(at(0), 2, 2)], SCALE), "failover")
    assert float(attr(alone, "cy")) < float(attr(marks[0], "cy"))


def test_durations_read_as_an_operator_reads_them():
    assert [page.duration(s) for s in (0, 0.25, 12.44, 200, 7500)] == ["0", "250 ms", "12.4 s", "3 min 20 s", "2 h 05 min"]


def test_page_is_self_contained_and_escapes_what_the_logs_wrote():
    svg = page.partition_chart("c/unclean-0", ROWS, SCALE)
    avail = {"cluster": "c", "topic": "<t>", "partition": 0, "violations": 1, "errors": 1, "offline_s": 20.0,
             "under_replicated_s": 60.0, "isr_of_one_s": 60.0, "replicas": 2,
             "elections": {k: int(k == "unclean") for k in page.KIND_COLOURS}}
    ctx = {"title": "t", "generated": "now", "warehouse": "wh", "start": None, "end": None,
           "kinds": list(page.KIND_COLOURS), "colours": page.KIND_COLOURS, "matter": 3, "not_charted": 2,
           "max_charts": 1, "violations_total": 1, "violations_listed": 1, "has_facts": True,
           "availability": [avail],
           "clusters": [{"name": "c", "t0": at(0), "t1": at(100), "runs": [], "controller_chart": None,
                         "failovers": 0, "broker_chart": None, "by_rule": [],
                         "charts": [{**avail, "name": "c/unclean-0", "svg": svg}],
                         "violations": []}]}
    html = page.render(ctx)
    assert svg in html                      # the chart inline, not escaped
    assert "&lt;t&gt;" in html and "<t>" not in html   # a topic name is text
    assert re.search(r"2 are left out", html)
    # Nothing is fetched: no script or style from a file or the network.
    assert not re.search(r"""<script[^>]+src=|<link[^>]+href=["'](?!data:)|@import|url\(""", html)
    assert html.count("<script>") == 1


def test_an_unclean_elections_records_lost_are_shown_with_how_each_bound_was_obtained():
    facts = {"case": "outside_isr", "records_lost_lower": "500", "records_lost_upper": "500",
             "records_lost_lower_from": "old leader 1's log end offset 700 (b1/state-change.log:71) less new leader 3's "
                                        "start offset 200 at leader epoch 2 (b3/state-change.log:108)",
             "records_lost_upper_from": "the same"}
    assert page.records_lost(facts).text == "500"
    assert page.records_lost({**facts, "records_lost_upper": "unknown"}).text == "at least 500"
    assert page.records_lost({**facts, "records_lost_lower": "0", "records_lost_upper": "500"}).text == "0 to 500"
    assert page.records_lost({"case": "not_in_isr"}) is None
    violation = {"cluster": "c", "topic": "unclean", "partition": 0, "rule": "UNCLEAN_LEADER_ELECTION",
                 "severity": "info", "event_time": at(10), "detail": "d; records lost: 500", "evidence": ["x:1"],
                 "facts": facts}
    ctx = {"title": "t", "generated": "now", "warehouse": "wh", "start": None, "end": None,
           "kinds": list(page.KIND_COLOURS), "colours": page.KIND_COLOURS, "matter": 0, "not_charted": 0,
           "max_charts": 1, "violations_total": 1, "violations_listed": 1, "has_facts": True, "availability": [],
           "clusters": [{"name": "c", "t0": at(0), "t1": at(100), "runs": [], "controller_chart": None,
                         "failovers": 0, "broker_chart": None, "charts": [],
                         "by_rule": [{"cluster": "c", "rule": "UNCLEAN_LEADER_ELECTION", "severity": "info", "count": 1}],
                         "violations": [violation]}]}
    html = page.render(ctx)
    cell = re.search(r'<td class="records-lost">(.*?)</td>', html, re.S).group(1)
    assert "<b>500</b>" in cell and "lower: old leader 1&#39;s log end offset 700" in cell


# A cluster's audit_runs.input_coverage, as ingest/coverage.py writes it: broker 1's two files,
# broker 2 down for a while and silent for 12 minutes while 1 logged, broker 3 without a file,
# and a file no path names a broker of.
COVERAGE = {
    "gap_minutes": 10.0,
    "brokers": {"1": {"files": [{"file": "b1/state-change.log", "kind": "state-change", "first": "2026-11-26T01:00:00.000Z",
                                 "last": "2026-11-26T01:01:40.000Z"},
                                {"file": "b1/controller.log", "kind": "controller", "first": "2026-11-26T01:00:01.000Z",
                                 "last": "2026-11-26T01:01:39.000Z"}],
                      "first": "2026-11-26T01:00:00.000Z", "last": "2026-11-26T01:01:40.000Z"},
                "2": {"files": [{"file": "b2/server.log", "kind": "server", "first": "2026-11-26T01:00:10.000Z",
                                 "last": "2026-11-26T01:01:30.000Z"}],
                      "first": "2026-11-26T01:00:10.000Z", "last": "2026-11-26T01:01:30.000Z"}},
    "without_broker": [{"file": "<merged>.log", "kind": "server", "first": "2026-11-26T01:00:05.000Z",
                        "last": "2026-11-26T01:00:06.000Z"}],
    "missing": [3],
    "outages": {"2": [["2026-11-26T01:00:40.000Z", "2026-11-26T01:00:50.000Z"], ["2026-11-26T01:01:35.000Z", None]]},
    "gaps": [{"broker": 2, "from": "2026-11-26T01:00:20.000Z", "to": "2026-11-26T01:00:40.000Z", "minutes": 0.333,
              "others": [1]},
             {"broker": 3, "from": "2026-11-26T01:00:00.000Z", "to": "2026-11-26T01:01:40.000Z", "minutes": 1.667,
              "others": [1, 2], "no_files": True}],
}


def test_input_coverage_lists_each_brokers_files_its_outages_and_gaps_and_the_missing_ones():
    cov = page.coverage("run-1", COVERAGE)
    assert [(f.broker, f.file) for f in cov.files] == [(1, "b1/controller.log"), (1, "b1/state-change.log"),
                                                      (2, "b2/server.log"), (None, "<merged>.log")]
    assert cov.files[1].first == at(0) and cov.files[1].last == at(100)
    assert cov.outages == [(2, at(40), at(50)), (2, at(95), None)] and cov.missing == [3] and cov.brokers() == [1, 2, 3]
    svg = page.coverage_chart("c", cov, SCALE)
    assert [attr(e, "data-broker") for e in elements(svg, "coverage-file")] == ["1", "1", "2"]
    # Broker 2's second outage lasts past the input: to the window's end.
    assert [(float(attr(e, "x")), float(attr(e, "width"))) for e in elements(svg, "coverage-outage")][1] == \
        (SCALE.x(at(95)), round(SCALE.x(at(100)) - SCALE.x(at(95)), 1))
    (gap,) = elements(svg, "coverage-gap")
    assert attr(gap, "data-broker") == "2" and float(attr(gap, "x")) == SCALE.x(at(20))
    (missing,) = elements(svg, "coverage-missing")
    assert attr(missing, "data-broker") == "3" and attr(missing, "fill") == page.GAP_ORANGE

    ctx = {"title": "t", "generated": "now", "warehouse": "wh", "start": None, "end": None,
           "kinds": list(page.KIND_COLOURS), "colours": page.KIND_COLOURS, "matter": 0, "not_charted": 0,
           "max_charts": 1, "violations_total": 0, "violations_listed": 0, "has_facts": True, "availability": [],
           "clusters": [{"name": "c", "t0": at(0), "t1": at(100), "runs": [], "controller_chart": None,
                         "failovers": 0, "broker_chart": None, "charts": [], "by_rule": [], "violations": [],
                         "coverage": cov, "coverage_chart": svg}]}
    html = page.render(ctx)
    assert svg in html and 'data-run="run-1"' in html
    assert "Brokers with no file in the input: 3</span>" in html
    rows = re.findall(r'<table class="coverage-files">.*?</table>', html, re.S)[0]
    assert "<td>2026-11-26 01:00:00.000</td><td>2026-11-26 01:01:40.000</td>" in rows   # broker 1's state-change.log
    assert "&lt;merged&gt;.log" in rows and "none named" in rows
    outages = re.findall(r'<table class="coverage-outages">.*?</table>', html, re.S)[0]
    assert "<td>2026-11-26 01:01:35.000</td><td>after the input</td>" in outages
    gaps = re.findall(r'<table class="coverage-gaps">.*?</table>', html, re.S)[0]
    assert "brokers 1</td>" in gaps and "no file of the broker in the input" in gaps
    # A cluster of canonical events, or whose runs predate the column, says so.
    ctx["clusters"][0].update(coverage=None, coverage_chart=None)
    assert "read no log file of it (canonical events), or are older than audit_runs.input_coverage" in page.render(ctx)
