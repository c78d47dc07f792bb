"""Benchmark: the Spark audit job against its floor and against hand-written SQL.

One generated history (default 5,000,000 events over 20,000 partitions, canonical JSON
Lines, cached under bench/data/), three timings in one Spark session:

  audit      jobs.audit.run: read, validate, gate, route, replay, gate, MERGE into Delta
  floor      read + parse + repartition by partition + sortWithinPartitions by seq
             (what any partition-by-partition replay pays), written to the noop sink
  sql        a hand-written window query for leaders outside the previous ISR
             (what a user would write instead), written to the noop sink

It prints events/s for each and the ratios. Targets (issue 3): audit >= 500,000
events/s on this 2-core machine and <= 3x the floor.

    .venv/bin/python bench/spark_audit.py [--events 5000000 --topics 200 --partitions 100]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(args) -> Path:
    d = ROOT / "bench" / "data" / f"history-{args.events}-{args.topics}x{args.partitions}-{args.era}"
    stamp = d / ".done"
    if not stamp.exists():
        d.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        exe = Path(sys.executable).with_name("controller-replay")
        subprocess.run([str(exe), "simulate", "--out", str(d / "events.jsonl"), "--cluster", "bench",
                        "--era", args.era, "--brokers", "12", "--topics", str(args.topics),
                        "--partitions", str(args.partitions), "--steps", str(10**12),
                        "--max-events", str(args.events), "--seed", "1"], check=True)
        stamp.write_text(json.dumps({"seconds": time.perf_counter() - t0}))
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--partitions", type=int, default=100)
    ap.add_argument("--era", default="2.4")
    ap.add_argument("--shuffle-partitions", type=int, default=16)
    args = ap.parse_args()
    data = generate(args)

    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from jobs.audit import AuditConfig, run
    from jobs.session import build_session
    from schemas.events import event_struct

    spark = build_session("bench-audit", master="local[2]",
                          extra_conf={"spark.sql.shuffle.partitions": str(args.shuffle_partitions)})
    spark.sparkContext.setLogLevel("ERROR")
    files = [str(data / "events.jsonl")]
    n = args.events

    def timed(label, fn):
        t0 = time.perf_counter()
        fn()
        s = time.perf_counter() - t0
        print(f"{label:<6} {s:8.1f}s  {n / s:>12,.0f} events/s", flush=True)
        return s

    def floor():
        events = spark.read.schema(event_struct()).json(files)
        (events.repartition(args.shuffle_partitions, "cluster", "topic", "partition")
         .sortWithinPartitions("cluster", "topic", "partition", "seq")
         .write.format("noop").mode("overwrite").save())

    def sql():
        events = spark.read.schema(event_struct()).json(files)
        decisions = events.where(F.col("leader").isNotNull() & (F.col("leader") >= 0) & F.col("isr").isNotNull())
        w = Window.partitionBy("cluster", "topic", "partition").orderBy("seq")
        (decisions.withColumn("prev_isr", F.lag("isr").over(w)).withColumn("prev_leader", F.lag("leader").over(w))
         .where(F.col("prev_isr").isNotNull() & (F.col("leader") != F.col("prev_leader"))
                & ~F.array_contains(F.col("prev_isr"), F.col("leader")))
         .write.format("noop").mode("overwrite").save())

    warehouse = Path(tempfile.mkdtemp(prefix="bench-wh-"))
    try:
        print(f"{n:,} events, {args.topics * args.partitions:,} partitions at the start (the history creates more), "
              f"era {args.era}, local[2]")
        t_floor = timed("floor", floor)
        t_sql = timed("sql", sql)
        summary = None

        def audit():
            nonlocal summary
            summary = run(spark, AuditConfig(inputs=files, warehouse=str(warehouse),
                                             shuffle_partitions=args.shuffle_partitions))
        t_audit = timed("audit", audit)
        print(f"audit phases (s): {summary.phases_s}; partitions {summary.partitions:,}; "
              f"violations {sum(summary.violations_by_rule.values())}")
        print(f"audit / floor = {t_audit / t_floor:.2f}x   audit / sql = {t_audit / t_sql:.2f}x")
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
