"""`controller-replay report`: one self-contained HTML page from a warehouse's tables.

    from jobs.report import ReportConfig, run
    run(spark, ReportConfig(warehouse="warehouse/", out="report.html", cluster="payments"))

The tables are read as readers see them (jobs.runs.readers_view). Spark computes the
availability of every partition in one query (availability); the page charts the partitions
that matter (a violation, or an election other than a partition's first), at most
`max_charts` of them, and lists every partition in a sortable table. The drawing and the page
are jobs/report_page.py's, from plain rows."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs import report_page as page
from jobs.availability import lasting, state_seconds
from schemas.tables import ELECTION_KINDS
from state_machine.selectors import ElectionKind

KEY = ("cluster", "topic", "partition")
# A partition's first election (on its creation) and a no-op one are not incidents: a partition
# with only those is listed in the table, not charted.
ROUTINE = (ElectionKind.initial.value, ElectionKind.noop.value)


@dataclass(frozen=True)
class ReportConfig:
    warehouse: str
    out: str
    cluster: str | None = None
    start: datetime | None = None   # UTC; rows are clipped to [start, end]
    end: datetime | None = None
    max_charts: int = 60
    max_violations: int = 2000


class ReportSummary(NamedTuple):
    out: str
    clusters: list[str]
    partitions: int
    charted: int
    not_charted: int
    violations: int


def _utc(micros: int | None) -> datetime | None:
    """Spark's unix_micros as a naive UTC datetime: the page's one kind of time (collect() would
    give the driver's local zone)."""
    return None if micros is None else datetime.fromtimestamp(micros / 1e6, timezone.utc).replace(tzinfo=None)


def naive_utc(text: str | None) -> datetime | None:
    """An ISO 8601 time (audit_runs' JSON columns, --from/--to) as a naive UTC datetime, UTC
    unless it names its zone."""
    if text is None:
        return None
    t = datetime.fromisoformat(text)
    return t.astimezone(timezone.utc).replace(tzinfo=None) if t.tzinfo else t


def _micros(t: datetime) -> int:
    return int(t.replace(tzinfo=timezone.utc).timestamp() * 1_000_000)


def windows(timeline: DataFrame, cfg: ReportConfig) -> dict[str, tuple[datetime, datetime]]:
    """cluster -> the time the page shows: its rows' first and last time, within --from/--to."""
    rows = (timeline.where(F.col("valid_from").isNotNull()).groupBy("cluster")
            .agg(F.min(F.unix_micros("valid_from")).alias("t0"),
                 F.max(F.unix_micros(F.greatest("valid_from", F.coalesce("valid_to", "valid_from")))).alias("t1"))
            .collect())
    out = {}
    for r in rows:
        t0, t1 = _utc(r.t0), _utc(r.t1)
        t0, t1 = max(t0, cfg.start or t0), min(t1, cfg.end or t1)
        if t1 > t0:
            out[r.cluster] = (t0, t1)
    return out


def availability(timeline: DataFrame, violations: DataFrame | None, bounds: DataFrame) -> DataFrame:
    """One row per partition: its seconds offline, under-replicated, with an ISR of one while it
    exists, and its elections by kind (jobs.availability.state_seconds), over its cluster's window
    (`bounds`: cluster, t0, t1 in unix micros; the open last row lasts to t1), and its violations."""
    rows = (timeline.join(F.broadcast(bounds), "cluster").transform(lambda t: lasting(t, F.col("t1")))
            .withColumn("window_start", F.col("t0")).withColumn("window_end", F.col("t1") + 1))
    agg = state_seconds(rows, F.max(F.size("replicas")).alias("replicas")).drop("window_start", "window_end")
    if violations is None:
        return agg.withColumn("violations", F.lit(0)).withColumn("errors", F.lit(0))
    v = violations.groupBy(*KEY).agg(F.count(F.lit(1)).alias("violations"),
                                     F.count_if(F.col("severity") == "error").alias("errors"))
    return agg.join(v, list(KEY), "left").fillna(0, ["violations", "errors"])


def _clipped(df: DataFrame, cfg: ReportConfig, time_col: str, end_col: str | None = None) -> DataFrame:
    """`df`'s rows of --cluster, and of the time --from/--to leave (a timeline row that overlaps it)."""
    if cfg.cluster:
        df = df.where(F.col("cluster") == cfg.cluster)
    if cfg.end:
        df = df.where(F.col(time_col) <= F.timestamp_micros(F.lit(_micros(cfg.end))))
    if cfg.start:
        last = F.coalesce(end_col, time_col) if end_col else F.col(time_col)
        df = df.where(last >= F.timestamp_micros(F.lit(_micros(cfg.start))))
    return df


RUN_COLUMNS = ("run_id", "duration_s", "inputs", "kafka_versions", "records_read", "lines_recognized",
               "records_quarantined", "events_replayed", "partitions", "violations_by_rule", "quality_gates",
               "controller_changes", "broker_changes", "input_coverage")


def _runs(tables: dict, clusters: list[str], spans: dict) -> dict[str, list[dict]]:
    """cluster -> its runs (audit_runs rows that audited it, newest first) with their inputs, counts
    and gates, the controller and broker changes they recorded up to the window's end, and how
    complete their input of it was (input_coverage; None on runs recorded before that column)."""
    runs = tables.get("audit_runs")
    out: dict[str, list[dict]] = {c: [] for c in clusters}
    if runs is None:
        return out
    held = [c for c in RUN_COLUMNS if c in runs.columns]   # a table of an earlier version lacks the newer ones
    for r in runs.select(*held, F.unix_micros("started_at").alias("_started")).orderBy(F.col("_started").desc()).collect():
        d = {**r.asDict(), "started_at": _utc(r._started)}
        eras = json.loads(d["kafka_versions"] or "{}")
        gates = json.loads(d["quality_gates"] or "{}")
        for cluster in clusters:
            if cluster not in eras:
                continue
            t0, t1 = spans[cluster]

            def inside(name: str) -> list:   # up to the window's end: the state at its start is theirs
                timed = [(naive_utc(at), *rest) for at, *rest in json.loads(d.get(name) or "{}").get(cluster, ())
                         if at is not None]
                return [change for change in timed if change[0] <= t1]
            out[cluster].append({
                "run_id": d["run_id"], "started_at": d["started_at"], "duration_s": d["duration_s"],
                "inputs": d["inputs"], "era": eras[cluster], "records_read": d["records_read"],
                "lines_recognized": d["lines_recognized"], "records_quarantined": d["records_quarantined"],
                "events_replayed": d["events_replayed"], "partitions": d["partitions"],
                "violations_by_rule": json.loads(d["violations_by_rule"] or "{}"),
                "gates": {suite: _gate(result) for suite, result in gates.items()},
                "controller_changes": inside("controller_changes"), "broker_changes": inside("broker_changes"),
                "input_coverage": json.loads(d.get("input_coverage") or "{}").get(cluster)})
    return out


def _once(changes) -> list[tuple]:
    """`changes` without the repeats that runs of the same input recorded (a re-run is a run)."""
    return list({json.dumps(ch, default=str): ch for ch in changes}.values())


def _gate(result) -> dict:
    """A quality gate's verdict (its `success`) and how many of its expectations passed."""
    if not isinstance(result, dict):
        return {"ok": None, "passed": 0, "total": 0}
    checks = [r for r in result.get("results") or () if isinstance(r, dict)]
    return {"ok": result.get("success"), "passed": sum(bool(r.get("success")) for r in checks), "total": len(checks)}


def build_context(spark: SparkSession, cfg: ReportConfig) -> dict:
    """Everything the page shows, as plain values (report_page.render's context)."""
    from jobs.runs import readers_view

    tables = readers_view(spark, cfg.warehouse)
    if "partition_timeline" not in tables:
        raise FileNotFoundError(f"no partition_timeline under {cfg.warehouse}; run controller-replay audit first")
    timeline = _clipped(tables["partition_timeline"], cfg, "valid_from", "valid_to")
    violations = tables.get("violations")
    violations = _clipped(violations, cfg, "event_time") if violations is not None else None
    spans = windows(timeline, cfg)
    clusters = sorted(spans)
    bounds = spark.createDataFrame([(c, _micros(a), _micros(b)) for c, (a, b) in spans.items()],
                                   "cluster string, t0 long, t1 long")
    avail = [r.asDict() for r in availability(timeline, violations, bounds)
             .orderBy(F.col("errors").desc(), F.col("violations").desc(), F.col("offline_s").desc(), *KEY).collect()]
    for a in avail:
        a["elections"] = {k: a.pop(f"{k}_elections") for k in ELECTION_KINDS}
    matter = [a for a in avail if a["violations"] or any(n for k, n in a["elections"].items() if k not in ROUTINE)]
    matter.sort(key=lambda a: (-a["elections"]["unclean"], -a["errors"], -a["violations"], -a["offline_s"],
                               a["cluster"], a["topic"], a["partition"]))
    charted = matter[:cfg.max_charts]
    charts = _charts(spark, timeline, charted, spans)
    listed, by_rule, n_violations = _violations(violations, cfg.max_violations)
    runs = _runs(tables, clusters, spans)
    failures = _failures(tables.get("broker_failures"), cfg)
    per_cluster = []
    for c in clusters:
        scale = page.Scale(*spans[c])
        changes = sorted(_once(ch for r in runs[c] for ch in r["controller_changes"]), key=lambda ch: ch[0])
        before = [ch for ch in changes if ch[0] < spans[c][0]]
        changes = before[-1:] + changes[len(before):]   # the controller when the window opens, then its changes
        brokers = sorted(_once(ch for r in runs[c] for ch in r["broker_changes"]), key=lambda ch: ch[0])
        # The newest run's: how complete the input that last audited the cluster was.
        covered = next((page.coverage(r["run_id"], r["input_coverage"]) for r in runs[c] if r["input_coverage"]), None)
        per_cluster.append({
            "name": c, "t0": spans[c][0], "t1": spans[c][1], "runs": runs[c],
            "controller_chart": page.controller_chart(c, changes, scale) if changes else None,
            "failovers": len(changes) - len(before[-1:]),
            "broker_chart": page.broker_chart(c, page.broker_intervals(brokers, spans[c][1]), scale) if brokers else None,
            "coverage": covered,
            "coverage_chart": page.coverage_chart(c, covered, scale) if covered and covered.brokers() else None,
            "charts": [ch for ch in charts if ch["cluster"] == c],
            "failures": [f for f in failures if f["cluster"] == c],
            "by_rule": [r for r in by_rule if r["cluster"] == c],
            "violations": [v for v in listed if v["cluster"] == c],
        })
    named = clusters[0] if len(clusters) == 1 else f"{len(clusters)} clusters"
    return {"title": f"controller-replay report: {named}",
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "warehouse": cfg.warehouse, "start": cfg.start, "end": cfg.end, "clusters": per_cluster,
            "availability": avail, "kinds": ELECTION_KINDS, "colours": page.KIND_COLOURS,
            "matter": len(matter), "not_charted": len(matter) - len(charted), "max_charts": cfg.max_charts,
            "violations_total": n_violations, "violations_listed": len(listed),
            "has_facts": violations is not None and "facts" in violations.columns}


def _failures(table: DataFrame | None, cfg: ReportConfig) -> list[dict]:
    """broker_failures' rows inside the window (none from a warehouse written before the table)."""
    if table is None:
        return []
    return [r.asDict() for r in _clipped(table, cfg, "failed_at").orderBy("cluster", "failed_at", "broker").collect()]


def _charts(spark: SparkSession, timeline: DataFrame, charted: list[dict], spans: dict) -> list[dict]:
    """The timeline charts of the `charted` partitions: their rows, in one query."""
    if not charted:
        return []
    keys = spark.createDataFrame([(a["cluster"], a["topic"], a["partition"]) for a in charted],
                                 "cluster string, topic string, partition int")
    rows: dict[tuple, list[page.TimelineRow]] = {}
    for r in (timeline.join(F.broadcast(keys), list(KEY)).where(F.col("valid_from").isNotNull())
              .select(*KEY, "ordinal", F.unix_micros("valid_from").alias("f"), F.unix_micros("valid_to").alias("t"),
                      "partition_state", "leader", "isr", "replicas", "election", "source")
              .orderBy(*KEY, "ordinal").collect()):
        rows.setdefault((r.cluster, r.topic, r.partition), []).append(
            page.TimelineRow(_utc(r.f), _utc(r.t), r.partition_state, r.leader, list(r.isr), list(r.replicas), r.election, r.source))
    out = []
    for a in charted:
        key = (a["cluster"], a["topic"], a["partition"])
        name = f"{a['cluster']}/{a['topic']}-{a['partition']}"
        out.append({**a, "name": name, "svg": page.partition_chart(name, rows.get(key, []), page.Scale(*spans[a["cluster"]]))})
    return out


def _violations(violations: DataFrame | None, limit: int) -> tuple[list[dict], list[dict], int]:
    """(the first `limit` violations by time, counts by cluster, rule and severity, how many in all)."""
    if violations is None:
        return [], [], 0
    by_rule = [r.asDict() for r in violations.groupBy("cluster", "rule", "severity").count()
               .orderBy("cluster", "rule", "severity").collect()]
    cols = ["cluster", "topic", "partition", "rule", "severity", F.unix_micros("event_time").alias("event_time"),
            "detail", "evidence"]
    cols += ["facts"] if "facts" in violations.columns else []
    listed = [{**r.asDict(), "event_time": _utc(r.event_time)} for r in violations
              .orderBy("cluster", "event_time", "topic", "partition", "ordinal").select(*cols).limit(limit).collect()]
    return listed, by_rule, sum(r["count"] for r in by_rule)


def run(spark: SparkSession, cfg: ReportConfig) -> ReportSummary:
    """Write the report of `cfg.warehouse` to `cfg.out`."""
    ctx = build_context(spark, cfg)
    out = Path(cfg.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page.render(ctx), encoding="utf-8")
    return ReportSummary(str(out), [c["name"] for c in ctx["clusters"]], len(ctx["availability"]),
                         ctx["matter"] - ctx["not_charted"], ctx["not_charted"], ctx["violations_total"])
