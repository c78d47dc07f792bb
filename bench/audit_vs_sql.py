"""Benchmark: the audit on broker logs as clusters write them, against the Spark SQL a user
would write instead to find unclean leader elections.

The corpus is bench/cluster_logs.py's (generated once into --corpus if it is not there):
N brokers' state-change.log, controller.log and server.log of Kafka 2.4.1 at TRACE or 3.9.2
at INFO, with unclean elections injected and their ground truth in injected.truth.jsonl.
In one Spark session (jobs.session.build_session, as `controller-replay audit` builds it):

  sql     the hand-written check: spark.read.text over the corpus, a regex that picks the
          controller's election lines (`Changed partition t-0 from X to OnlinePartition with
          state LeaderAndIsr(leader=.., leaderEpoch=.., isr=List(..)` in both releases'
          forms), and a lag window per partition, in time order, that flags an elected leader
          not in the ISR of the election before. First, so it pays for the JVM's warm-up.
  audit   jobs.audit.run, the `controller-replay audit` code path, into a fresh warehouse:
          its phases as it reports them (AuditSummary.phases_s, also in audit_runs).

Both are checked against the ground truth: recall (the injected elections found, matched
by partition and the decision line's time), what else each flagged, and whether the
audit's count of UNCLEAN_LEADER_ELECTION is exactly the injected one.

Before the session, the small-input cost, each in a process of its own (cold start):
`controller-replay audit` of one real capture (--small, default
data/samples/real/zk-3.9-trace) into a fresh warehouse, against a bare local SparkSession's
start and one trivial query. Targets (issue 71): audit <= 3x sql with the exact unclean
count, read >= 40 MB/s, replay >= 300,000 events/s; small audit <= 2x the bare session.

    .venv/bin/python bench/audit_vs_sql.py --corpus bench/data/cluster-2.4.1-600mb [--version 2.4.1 --mb 600]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The controller's election line, in 2.4.1 (`isr=List(1, 2), zkVersion=`) and 3.9.2
# (`isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), ...), leaderRecoveryState=`) forms.
ELECTION = (r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] \w+ \[Controller id=\d+ epoch=\d+\] Changed partition (\S+) "
            r"from \w+ to OnlinePartition with state LeaderAndIsr\(leader=(\d+), leaderEpoch=(\d+), "
            r"isr(?:WithBrokerEpoch)?=List\((.*?)\), (?:zkVersion|leaderRecoveryState|partitionEpoch)")
BARE_SESSION = ("import time; t = time.perf_counter(); from pyspark.sql import SparkSession; "
                "s = SparkSession.builder.master('local[*]').appName('bare').getOrCreate(); "
                "s.sql('SELECT 1').collect(); s.stop()")


def corpus(args) -> Path:
    path = Path(args.corpus)
    if not (path / ".corpus.json").exists():
        sys.path.insert(0, str(ROOT / "bench"))
        from cluster_logs import CorpusConfig, generate

        shutil.rmtree(path, ignore_errors=True)
        stats = generate(CorpusConfig(out=str(path), version=args.version, mb=args.mb))
        print(f"generated {path} in {stats['seconds']}s")
    return path


def small_input(capture: str) -> tuple[float, float, str]:
    """(audit seconds, bare session seconds, the audit's phases line), each a fresh process."""
    exe = Path(sys.executable)
    t = time.perf_counter()
    subprocess.run([str(exe), "-c", BARE_SESSION], check=True, capture_output=True)
    bare = time.perf_counter() - t
    with tempfile.TemporaryDirectory(prefix="bench-small-") as wh:
        t = time.perf_counter()
        done = subprocess.run([str(exe.with_name("controller-replay")), "audit", "--input", capture, "--warehouse", wh],
                              check=True, capture_output=True, text=True)
        audit = time.perf_counter() - t
    phases = next((line for line in done.stdout.splitlines() if "seconds per phase" in line), "")
    return audit, bare, phases


def hand_written_sql(spark, path: Path):
    """The user's unclean-election check: (partition, time) of each flagged election."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    lines = spark.read.option("recursiveFileLookup", "true").text(str(path))
    elections = (lines.where(F.col("value").contains("to OnlinePartition with state"))
                 .select(F.regexp_extract("value", ELECTION, 1).alias("at"), F.regexp_extract("value", ELECTION, 2).alias("tp"),
                         F.regexp_extract("value", ELECTION, 3).cast("int").alias("leader"),
                         F.regexp_extract("value", ELECTION, 4).cast("int").alias("leader_epoch"),
                         F.regexp_extract("value", ELECTION, 5).alias("isr_text"))
                 .where(F.col("tp") != "")
                 .withColumn("isr", F.expr(r"transform(regexp_extract_all(regexp_replace(isr_text, 'brokerEpoch=-?\\d+', ''), "
                                           r"'(\\d+)', 1), x -> cast(x as int))"))
                 .withColumn("ts", F.to_timestamp("at", "yyyy-MM-dd HH:mm:ss,SSS")))
    w = Window.partitionBy("tp").orderBy("ts", "leader_epoch")
    flagged = (elections.withColumn("prev_isr", F.lag("isr").over(w))
               .where(F.col("prev_isr").isNotNull() & ~F.array_contains("prev_isr", F.col("leader")))
               .select("tp", "at"))
    return {(r["tp"], r["at"]) for r in flagged.collect()}


def audit(spark, path: Path, warehouse: str, shuffle_partitions: int | None):
    from pyspark.sql import functions as F

    from jobs.audit import run
    from jobs.audit_args import add_audit_arguments, config_from_args

    ap = argparse.ArgumentParser()
    add_audit_arguments(ap)
    argv = ["--input", str(path), "--warehouse", warehouse]
    if shuffle_partitions:
        argv += ["--shuffle-partitions", str(shuffle_partitions)]
    summary = run(spark, config_from_args(ap.parse_args(argv)))
    unclean = (spark.read.format("delta").load(summary.tables["violations"])
               .where(F.col("rule") == "UNCLEAN_LEADER_ELECTION")
               .select(F.concat_ws("-", "topic", F.col("partition").cast("string")).alias("tp"),
                       F.date_format("event_time", "yyyy-MM-dd HH:mm:ss,SSS").alias("at")).collect())
    return summary, [(r["tp"], r["at"]) for r in unclean]


def recall(found, truth: set) -> str:
    hits = len(truth & set(found))
    return f"recall {hits:,}/{len(truth):,} = {hits / max(len(truth), 1):.1%}; flagged {len(found):,} ({len(set(found) - truth):,} not injected)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="the corpus folder (generated there if absent)")
    ap.add_argument("--version", default="2.4.1", help="the corpus's release, when generated")
    ap.add_argument("--mb", type=float, default=600.0, help="the corpus's size, when generated")
    ap.add_argument("--small", default=str(ROOT / "data" / "samples" / "real" / "zk-3.9-trace"))
    ap.add_argument("--shuffle-partitions", type=int, default=None)
    args = ap.parse_args()
    path = corpus(args)
    stats = json.loads((path / ".corpus.json").read_text())
    truth_rows = [json.loads(line) for line in (path / "injected.truth.jsonl").read_text().splitlines()]
    truth = {(f"{r['topic']}-{r['partition']}", r["event_time"]) for r in truth_rows if r["rule"] == "UNCLEAN_LEADER_ELECTION"}
    mb = stats["bytes"] / 1e6
    print(f"corpus {path}: Kafka {stats['config']['version']}, {stats['config']['brokers']} brokers, {stats['files']} files, "
          f"{mb:,.0f} MB, {stats['lines']:,} lines, {stats['events']:,} simulated events, {len(truth):,} unclean elections "
          f"injected; {os.cpu_count()} cores", flush=True)

    small_audit, bare, small_phases = small_input(args.small)
    print(f"small input {args.small}: audit {small_audit:.1f}s, bare SparkSession + one query {bare:.1f}s, "
          f"ratio {small_audit / bare:.2f}x (target <= 2x)\n  {small_phases.strip()}", flush=True)

    from jobs.session import build_session

    for log in sorted(path.rglob("*.log")):   # the page cache warmed: neither timing reads the disk
        with open(log, "rb") as f:
            while f.read(1 << 24):
                pass
    warehouse = tempfile.mkdtemp(prefix="bench-wh-")
    spark = build_session("bench-audit-vs-sql", warehouse_dir=warehouse)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        t = time.perf_counter()
        sql_found = hand_written_sql(spark, path)
        sql_s = time.perf_counter() - t
        print(f"sql    {sql_s:7.1f}s  {mb / sql_s:6.1f} MB/s  {recall(sql_found, truth)}", flush=True)
        t = time.perf_counter()
        summary, audit_found = audit(spark, path, warehouse, args.shuffle_partitions)
        audit_s = time.perf_counter() - t
        exact = "exact" if len(audit_found) == len(truth) else f"not exact: {len(audit_found):,} against {len(truth):,}"
        print(f"audit  {audit_s:7.1f}s  {mb / audit_s:6.1f} MB/s  {recall(audit_found, truth)}; unclean count {exact}")
        phases = summary.phases_s
        print(f"audit / sql = {audit_s / sql_s:.2f}x (target <= 3x)")
        print(f"audit phases (s): {phases}; lines read {summary.records_read:,}, quarantined {summary.records_quarantined:,}, "
              f"events replayed {summary.events_replayed:,}, partitions {summary.partitions:,}")
        if phases.get("read"):
            print(f"  read {mb / phases['read']:.1f} MB/s (target >= 40)")
        if phases.get("replay"):
            print(f"  replay {summary.events_replayed / phases['replay']:,.0f} events/s (target >= 300,000)")
        print(f"  violations by rule: {summary.violations_by_rule}")
    finally:
        spark.stop()
        shutil.rmtree(warehouse, ignore_errors=True)


if __name__ == "__main__":
    main()
