"""Benchmark: ingest a generated Kafka 2.4 state-change.log through Spark.

The log is a simulated history written the way a 2.4 controller writes it at TRACE
(ingest/render.py), repeated with fresh topic names until it reaches --mb megabytes
(default 1024), cached under bench/data/. Three timings, one Spark session, in this order:

  events    the ingest: read + envelope + catalogue + line numbers + the recorded order
            (seq): the canonical events and their profile as the ingest hands them to the
            audit, written to the noop sink (the audit then keeps them once for its gate and
            replay: its input gate phase, not timed here). One broker's log needs no sort
            (its pieces follow one another: it prints "order pieces"); files that interleave
            are sorted ("order sort"). The first query of the JVM (the page cache is warmed
            from Python, not by the JVM): it pays for loading and compiling the JVM's code
            (JIT), as an audit does.
  again     the same ingest once more, the JVM warm: the rate the ingest keeps up on a larger
            input, less that one-time cost.
  parse     read + envelope + catalogue + line numbers (every line parsed, the parse rows
            counted): the parse alone, its output read back whole.

and the floors under any ingest of these lines that parses them in Python:

  read      the lines read by Spark alone (the JVM), to the noop sink
  to python the lines handed to Python workers (mapInArrow) and read there, nothing parsed:
            no ingest that parses in Python is faster
  sort      one global sort of the raw lines (by their text, which starts with the time)
  sorted    to python + sort - read: both steps on the same two cores (a sort's map side
            runs in the parse's tasks), reading the file once: the floor of an input whose
            files interleave, which one global sort orders.

It prints MB/s and lines/s for each. Target (issue 4): 50 MB/s on this 2-core machine.

    .venv/bin/python bench/ingest_logs.py [--mb 1024]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(mb: int) -> Path:
    from ingest.render import Renderer
    from state_machine.generator import SimConfig, simulate

    path = ROOT / "bench" / "data" / f"logs-{mb}mb" / "broker-1" / "state-change.log"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    events, _ = simulate(SimConfig(cluster="bench", era="2.4", brokers=8, topics=40, partitions=10, steps=4000, seed=11))
    r = Renderer()
    for e in events:
        r.feed(e)
    block = r.files()["broker-1/state-change.log"]   # broker 1 is the controller throughout
    target = mb * 1024 * 1024
    tmp = path.with_suffix(".tmp")
    written, copy = 0, 0
    with open(tmp, "w") as out:
        while written < target:
            # Each copy is another stretch of the cluster's life: new topic names.
            text = block.replace("partition t", f"partition c{copy}t").replace("topicName='t", f"topicName='c{copy}t")
            out.write(text)
            written += len(text)
            copy += 1
    tmp.rename(path)
    return path


def _lines_read(batches):
    """The `to python` floor: every line of every batch read into Python, nothing done with it."""
    import pyarrow as pa

    for batch in batches:
        yield pa.RecordBatch.from_pydict({"n": [len(batch.column("raw").to_pylist())]})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=1024)
    args = ap.parse_args()
    t0 = time.perf_counter()
    path = generate(args.mb)
    size = path.stat().st_size
    print(f"input {path} {size / 1e6:,.0f} MB (ready in {time.perf_counter() - t0:.0f}s)")

    from pyspark.sql import functions as F

    from jobs.ingest_spark import ingest, parse_function, parsed_schema, read_pieces
    from jobs.session import build_session

    with open(path, "rb") as f:   # the page cache warmed for every timing, and the JVM left cold
        while f.read(1 << 24):
            pass
    spark = build_session("bench-ingest", warehouse_dir=str(ROOT / "bench" / "data" / "wh"))
    files = [f"file:{path}"]
    clusters = {files[0]: "bench"}

    t = time.perf_counter()
    ing = ingest(spark, files, clusters, None)
    ing.events.write.format("noop").mode("overwrite").save()
    events_s = time.perf_counter() - t
    ing.release()
    t = time.perf_counter()
    ing = ingest(spark, files, clusters, None)
    ing.events.write.format("noop").mode("overwrite").save()
    again_s = time.perf_counter() - t

    t = time.perf_counter()
    rows = (read_pieces(spark, files, other_loggers=True).mapInArrow(parse_function(clusters, None, "UTC", "auto"),
                                                                     parsed_schema())
            # The lines: each piece row's count of its lines (a parse row's n_lines counts them again).
            .agg(F.sum(F.when(F.col("kind") == "piece", F.col("n_lines"))).alias("lines"), F.count("*").alias("rows"))
            .first())
    parse_s = time.perf_counter() - t
    lines = rows["lines"]

    t = time.perf_counter()
    spark.read.text(files).write.format("noop").mode("overwrite").save()
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    read_pieces(spark, files).mapInArrow(_lines_read, "n long").agg(F.sum("n")).first()
    to_python_s = time.perf_counter() - t
    t = time.perf_counter()
    (spark.read.text(files).withColumn("at", F.monotonically_increasing_id()).orderBy("value", "at")
     .write.format("noop").mode("overwrite").save())
    sort_s = time.perf_counter() - t
    print(f"cores {os.cpu_count()}; lines {lines:,}; quarantined {ing.records_quarantined:,}; order {ing.log_order}")
    for name, secs in (("events", events_s), ("again", again_s), ("parse", parse_s), ("read", read_s), ("to python", to_python_s),
                       ("sort", sort_s), ("sorted", to_python_s + sort_s - read_s)):
        print(f"{name:9s} {secs:7.1f}s  {size / 1e6 / secs:6.1f} MB/s  {lines / secs:,.0f} lines/s")
    for name, secs in (("events", events_s), ("again", again_s)):
        print(f"target 50 MB/s: {'met' if size / 1e6 / secs >= 50 else 'not met'} ({name})")
    ing.release()
    spark.stop()


if __name__ == "__main__":
    main()
