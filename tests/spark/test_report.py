"""The report's availability query on a small timeline; and the HTML report as a person sees it:
headless Chromium (Debian's, driven by its chromedriver through selenium) opens the report of the
samples' audit, real captures included, and the zk-2.4-trace capture's unclean election must be on
its partition's chart, in the DOM and in red in a screenshot of the page. The screenshots are kept
(SCREENSHOTS, printed) for a person to look at.

Chromium comes from the system's packages (scripts/setup.sh installs it when BROWSER_TESTS=1, as
.ci/run sets): without it the browser tests are skipped, and fail when BROWSER_TESTS=1 says they
must run."""
from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from jobs.report import ReportConfig, availability, run
from jobs.report_page import DOWN_GREY, FILE_BLUE, GAP_ORANGE, UNCLEAN_RED

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]
CAPTURE = "zk-2.4-trace"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
SCREENSHOTS = Path(os.environ.get("REPORT_SCREENSHOTS", ROOT / "build" / "report-test"))


TIMELINE = ("cluster string, topic string, partition int, valid_from timestamp, valid_to timestamp, "
            "partition_state string, leader int, isr array<int>, replicas array<int>, election string")


def test_availability_sums_each_partitions_time_within_the_window(spark):
    t0 = datetime(2026, 11, 26, 1, 0, tzinfo=timezone.utc)

    def at(s):
        return None if s is None else t0 + timedelta(seconds=s)

    rows = [("t", 0, 0, 5, "NewPartition", -1, [], [1, 3], None),
            ("t", 0, 5, 40, "OnlinePartition", 1, [1, 3], [1, 3], "initial"),
            ("t", 0, 40, 45, "OfflinePartition", 1, [1], [1, 3], None),     # its leader's broker gone
            ("t", 0, 45, 60, "OfflinePartition", -1, [1], [1, 3], None),
            ("t", 0, 60, None, "OnlinePartition", 3, [3], [1, 3], "unclean"),
            ("gone", 0, 0, 30, "OnlinePartition", 2, [2], [2], "initial"),
            ("gone", 0, 30, None, "NonExistentPartition", -1, [], [2], None)]
    timeline = spark.createDataFrame([("c", topic, p, at(a), at(b), *rest) for topic, p, a, b, *rest in rows], TIMELINE)
    violations = spark.createDataFrame([("c", "t", 0, "error")], "cluster string, topic string, partition int, severity string")
    micros = int(t0.timestamp() * 1e6)
    # The window starts at 10 s (the initial election before it is not counted) and ends at 100 s.
    bounds = spark.createDataFrame([("c", micros + 10_000_000, micros + 100_000_000)], "cluster string, t0 long, t1 long")
    got = {(r.topic, r.partition): r.asDict() for r in availability(timeline, violations, bounds).collect()}
    t = got[("t", 0)]
    assert (t["offline_s"], t["under_replicated_s"], t["isr_of_one_s"]) == (20.0, 60.0, 60.0)
    assert (t["initial_elections"], t["unclean_elections"], t["offline_elections"], t["violations"], t["errors"]) == (0, 1, 0, 1, 1)
    gone = got[("gone", 0)]   # an ISR of one for 20 s of the window, then deleted: not offline
    assert (gone["offline_s"], gone["isr_of_one_s"], gone["violations"]) == (0.0, 20.0, 0)


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        why = f"no {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver (docs/report.md)"
        if os.environ.get("BROWSER_TESTS") == "1":
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--force-device-scale-factor=1", "--window-size=1280,1000"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def report(spark, samples_audit, tmp_path_factory):
    """The report of every cluster the samples' audit wrote, as `controller-replay report` writes it."""
    _, warehouse = samples_audit
    out = tmp_path_factory.mktemp("report") / "report.html"
    return run(spark, ReportConfig(warehouse=str(warehouse), out=str(out))), warehouse


def unclean_partition(spark, warehouse) -> str:
    """The chart name of the capture's one unclean election's partition, from its manifest, as
    the violations table holds it."""
    expected = json.loads((ROOT / "data/samples/real" / CAPTURE / "manifest.json").read_text())["expected"]["unclean"]
    rows = (spark.read.format("delta").load(str(Path(warehouse) / "violations"))
            .where((F.col("cluster") == CAPTURE) & (F.col("rule") == "UNCLEAN_LEADER_ELECTION"))
            .select("topic", "partition").collect())
    assert [(r.topic, r.partition) for r in rows] == [(expected["topic"], expected["partition"])]
    return f"{CAPTURE}/{expected['topic']}-{expected['partition']}"


def when(text: str | None) -> str:
    """A time of audit_runs' JSON as the page writes it (UTC, to the millisecond)."""
    return "" if text is None else datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def colour_columns(png: Path, box: dict, colour: str = UNCLEAN_RED) -> list[int]:
    """The x (page pixels) of every column of `box` in the screenshot that holds `colour`."""
    from PIL import Image

    want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    img = Image.open(png).convert("RGB")
    left, top = int(box["x"]), int(box["y"])
    crop = img.crop((left, top, left + int(box["width"]), top + int(box["height"])))
    w, h = crop.size
    px = crop.load()
    return sorted({left + x for x in range(w) for y in range(h)
                   if all(abs(px[x, y][i] - want[i]) <= 12 for i in range(3))})


@pytest.mark.browser
def test_report_shows_the_unclean_election_on_its_partitions_chart(spark, browser, report):
    from selenium.webdriver.common.by import By

    done, warehouse = report
    assert CAPTURE in done.clusters and done.violations > 0
    name = unclean_partition(spark, warehouse)
    browser.get(Path(done.out).as_uri())
    # The samples have more partitions with elections than the page charts: it says so.
    assert done.not_charted > 0
    note = browser.find_element(By.ID, "charts-left-out").text
    assert f"{done.not_charted} are left out" in note
    assert len(browser.find_elements(By.CSS_SELECTOR, "div.chart")) == done.charted

    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    # The log is read: an error the page makes now is seen (so the empty list above says something).
    browser.execute_script("console.error('report-test probe')")
    assert any("report-test probe" in e["message"] for e in browser.get_log("browser"))

    section = browser.find_element(By.CSS_SELECTOR, f'section[data-cluster="{CAPTURE}"]')
    # The run that audited it, its counts and gates; the violation with its facts and evidence;
    # the controller's and the brokers' charts.
    run_rows = section.find_elements(By.CSS_SELECTOR, "table.runs tbody tr")
    assert len(run_rows) == 1 and "input_events: pass" in run_rows[0].text and "output_tables: pass" in run_rows[0].text
    (violation,) = section.find_elements(By.CSS_SELECTOR, "table.violations tr.violation")
    assert violation.get_attribute("data-rule") == "UNCLEAN_LEADER_ELECTION"
    assert "state-change.log:" in violation.text and "isr_before=[1]" in violation.text
    # The records it put at risk: the 500 records produced with acks=1 to the old leader alone
    # (the capture's unclean_produce_lagging step), with the lines that printed each offset.
    lost = violation.find_element(By.CSS_SELECTOR, "td.records-lost")
    assert lost.find_element(By.TAG_NAME, "b").text == "500"
    assert "log end offset 700" in lost.text and "start offset 200" in lost.text and "server.log:" in lost.text
    assert section.find_elements(By.CSS_SELECTOR, "svg .failover") and section.find_elements(By.CSS_SELECTOR, "svg .broker-down")
    # The broker failures with the controller's reaction, as broker_failures holds them.
    failed = (spark.read.format("delta").load(str(Path(warehouse) / "broker_failures"))
              .where(F.col("cluster") == CAPTURE).orderBy("failed_at", "broker").collect())
    shown = section.find_elements(By.CSS_SELECTOR, "table.failures tbody tr")
    assert failed and len(shown) == len(failed)
    assert [r.text.split()[0] for r in shown] == [str(f.broker) for f in failed]

    # How complete its input was, as the newest run's audit_runs.input_coverage holds it: each
    # broker's files with their first and last line, its outages (brokers killed and stopped), no
    # broker missing and no gap.
    (newest,) = (spark.read.format("delta").load(str(Path(warehouse) / "audit_runs"))
                 .orderBy(F.col("started_at").desc()).limit(1).collect())
    covered = json.loads(newest["input_coverage"])[CAPTURE]
    shown = section.find_element(By.CSS_SELECTOR, "div.coverage")
    assert shown.is_displayed() and shown.get_attribute("data-run") == newest["run_id"]
    files = [(b, f) for b, held in sorted(covered["brokers"].items()) for f in held["files"]]
    rows = shown.find_elements(By.CSS_SELECTOR, "table.coverage-files tbody tr")
    assert sorted(r.text for r in rows) == sorted(
        f"{b} {f['file']} {f['kind']} {when(f['first'])} {when(f['last'])}" for b, f in files)
    assert {r.get_attribute("data-broker") for r in rows} == {"1", "2", "3"}
    assert "Every broker the input names has files." in shown.text and "No gap." in shown.text
    outages = [(b, lo, hi) for b, spans in covered["outages"].items() for lo, hi in spans]
    assert outages and covered["missing"] == [] and covered["gaps"] == []
    assert sorted(r.text for r in shown.find_elements(By.CSS_SELECTOR, "table.coverage-outages tbody tr")) == sorted(
        f"{b} {when(lo) or 'before the input'} {when(hi) or 'after the input'}" for b, lo, hi in outages)
    lanes = shown.find_elements(By.CSS_SELECTOR, "svg .coverage-file")
    assert len(lanes) == len(files) and len(shown.find_elements(By.CSS_SELECTOR, "svg .coverage-outage")) == len(outages)
    coverage_chart = shown.find_element(By.TAG_NAME, "svg")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", coverage_chart)
    box = browser.execute_script("var r = arguments[0].getBoundingClientRect();"
                                 "return {x: r.left, y: r.top, width: r.width, height: r.height};", coverage_chart)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "report-coverage.png"
    assert browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    # The files' spans in blue and the outages in grey are on screen; no gap or missing broker in orange.
    assert colour_columns(shot, box, FILE_BLUE) and colour_columns(shot, box, DOWN_GREY)
    assert colour_columns(shot, box, GAP_ORANGE) == []
    # A generated history is canonical events: no log file, so no coverage.
    canonical = browser.find_element(By.CSS_SELECTOR, 'section[data-cluster="c-2.4"]')
    assert not canonical.find_elements(By.CSS_SELECTOR, "div.coverage")
    assert "Not recorded: its runs read no log file of it (canonical events)" in canonical.text

    chart = browser.find_element(By.CSS_SELECTOR, f'div.chart[data-partition="{name}"]')
    markers = chart.find_elements(By.CSS_SELECTOR, "svg .election.unclean")
    assert len(markers) == 1 and markers[0].get_attribute("data-kind") == "unclean"
    assert "unclean election" in markers[0].find_element(By.TAG_NAME, "title").get_attribute("textContent")
    others = browser.find_elements(By.CSS_SELECTOR, f'section[data-cluster="{CAPTURE}"] svg .election.unclean')
    assert len(others) == 1   # the capture's only unclean election

    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
    box = browser.execute_script("var r = arguments[0].getBoundingClientRect();"
                                 "return {x: r.left, y: r.top, width: r.width, height: r.height};", chart)
    marker = browser.execute_script("var r = arguments[0].getBoundingClientRect();"
                                    "return {x: r.left, y: r.top, width: r.width, height: r.height};", markers[0])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "report-unclean.png"
    assert browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")

    # What the screenshot shows: red in the chart, at the marker's place, and in no other column.
    red = colour_columns(shot, box)
    assert red, f"no {UNCLEAN_RED} pixel in the chart of {name} ({shot})"
    assert marker["x"] - 2 <= min(red) and max(red) <= marker["x"] + marker["width"] + 2, (red, marker)

    # A chart without an unclean election shows no red.
    plain = [c for c in browser.find_elements(By.CSS_SELECTOR, "div.chart")
             if not c.find_elements(By.CSS_SELECTOR, ".unclean")]
    assert plain, "the samples chart partitions with other elections too"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", plain[0])
    box = browser.execute_script("var r = arguments[0].getBoundingClientRect();"
                                 "return {x: r.left, y: r.top, width: r.width, height: r.height};", plain[0])
    shot = SCREENSHOTS / "report-plain.png"
    browser.save_screenshot(str(shot))
    assert colour_columns(shot, box) == []


@pytest.mark.browser
def test_availability_table_sorts_by_time_offline(browser, report):
    from selenium.webdriver.common.by import By

    done, _ = report
    browser.get(Path(done.out).as_uri())
    table = browser.find_element(By.ID, "availability")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == done.partitions
    heading = table.find_elements(By.CSS_SELECTOR, "thead th")[4]
    assert heading.text == "offline"
    heading.click()   # ascending
    heading.click()   # descending
    offline = browser.execute_script(
        "return Array.from(arguments[0].tBodies[0].rows, r => parseFloat(r.cells[4].dataset.v));", table)
    assert offline == sorted(offline, reverse=True) and offline[0] > 0
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
