"""Bounded memory: one partition with millions of events through the Spark replay.

Writes a history of ONE partition (creation, then leader-driven ISR shrinks and expands,
each of which is a timeline row), replays it with jobs.audit.replay_all (applyInArrow,
iterator form: Arrow batches of spark.sql.execution.arrow.maxRecordsPerBatch rows in,
output drained every 10,000 events), and samples the resident memory of the Python
workers from /proc while it runs. Run it at two sizes: a bounded design shows the same
peak for both.

    .venv/bin/python bench/spark_single_partition.py --events 500000
    .venv/bin/python bench/spark_single_partition.py --events 5000000
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def write_history(path: Path, n: int) -> None:
    if path.exists():
        return
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as fh:
        base = {"cluster": "one", "topic": "hot", "partition": 0}
        fh.write(json.dumps({"cluster": "one", "seq": 1, "event_type": "BrokerStartup", "brokers": [1, 2, 3]}) + "\n")
        fh.write(json.dumps({**base, "seq": 2, "event_type": "TopicCreation", "replicas": [1, 2, 3]}) + "\n")
        for i in range(3, n + 1):
            isr = [1, 2, 3] if i % 2 else [1, 2]
            fh.write(json.dumps({**base, "seq": i, "event_type": "IsrChange", "leader": 1, "leader_epoch": 0,
                                 "isr": isr}) + "\n")
    tmp.rename(path)


def python_worker_rss_mib() -> float:
    """Sum of resident memory of the pyspark Python worker processes (MiB)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"pyspark.daemon" not in cmd and b"pyspark.worker" not in cmd:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5_000_000)
    args = ap.parse_args()
    data = ROOT / "bench" / "data" / f"single-partition-{args.events}.jsonl"
    data.parent.mkdir(parents=True, exist_ok=True)
    write_history(data, args.events)

    from jobs.audit import replay_all, route
    from jobs.session import build_session
    from schemas.events import event_struct

    spark = build_session("bench-single-partition", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")
    events = spark.read.schema(event_struct()).json(str(data))
    out = replay_all(route(events), {}, "2.4", partitions=2)

    peak, stop = [0.0], threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], python_worker_rss_mib())
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    rows = out.groupBy("kind").count().collect()
    elapsed = time.perf_counter() - t0
    stop.set()
    sampler.join()
    print(f"{args.events:,} events of one partition replayed in {elapsed:.1f}s "
          f"({args.events / elapsed:,.0f} events/s); output rows {dict((r['kind'], r['count']) for r in rows)}; "
          f"peak resident memory of the Python workers {peak[0]:,.0f} MiB")
    spark.stop()


if __name__ == "__main__":
    main()
