"""Fault injection: an audit killed with SIGKILL after each of its commits, over the bundled samples.

    .venv/bin/python bench/kill_at_commits.py [--input data/samples] [--work /tmp/kill-at-commits]

1. Audits the input once, whole (`controller-replay audit` in a process of its own): the tables
   as readers see them then are the reference.
2. For k = 1, 2, ...: audits the same input again into that warehouse, in a process that kills
   itself right after its k-th commit (CONTROLLER_REPLAY_KILL_AFTER_COMMIT), and checks that
   readers still see the reference: no half run. Each killed run is rolled back by the next audit.
   The loop ends at the first k the run outlives (it made fewer commits than k).
3. Audits the input once more: it rolls the last killed run back, and readers and the tables
   themselves hold the reference again.

Prints one line per step and exits 1 if any check fails."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobs.writes import KILL_AFTER_COMMIT, table_path  # noqa: E402
from jobs.runs import RUN_TABLES, readers_view, table_history  # noqa: E402
from jobs.session import build_session  # noqa: E402


def audit(inputs: str, warehouse: Path, kill_after: int | None = None) -> tuple[int, float]:
    env = dict(os.environ)
    env.pop(KILL_AFTER_COMMIT, None)
    if kill_after is not None:
        env[KILL_AFTER_COMMIT] = str(kill_after)
    t0 = time.time()
    done = subprocess.run([sys.executable, "-m", "jobs.cli", "audit", "--input", inputs, "--warehouse", str(warehouse)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode not in (0, -signal.SIGKILL):
        sys.exit(f"audit failed (rc {done.returncode}):\n{done.stderr[-3000:]}")
    return done.returncode, time.time() - t0


def seen(spark, warehouse: Path) -> dict[str, list[str]]:
    """The rows readers see of each table (the quarantine's run id aside), and the runs complete."""
    views = readers_view(spark, str(warehouse))
    out = {name: sorted(map(repr, df.drop("run_id").collect())) for name, df in views.items() if name in RUN_TABLES}
    out["runs complete"] = sorted(r["run_id"] for r in views["audit_runs"].collect()) if "audit_runs" in views else []
    return out


def commits(spark, warehouse: Path) -> list:
    """Every tagged commit of the run tables, as (table, jobs.runs.Commit)."""
    return [(name, c) for name in RUN_TABLES if Path(table_path(str(warehouse), name)).exists()
            for c in table_history(spark, table_path(str(warehouse), name))]


def on_disk(spark, warehouse: Path) -> dict[str, list[str]]:
    """The rows the tables' latest versions hold, as `seen` lists them."""
    return {name: sorted(map(repr, spark.read.format("delta").load(table_path(str(warehouse), name))
                             .drop("run_id").collect())) for name in RUN_TABLES}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", default=str(ROOT / "data" / "samples"))
    ap.add_argument("--work", default="/tmp/kill-at-commits")
    args = ap.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    warehouse = work / "warehouse"
    spark = build_session("kill-at-commits", master="local[2]", warehouse_dir=work / "spark")
    spark.sparkContext.setLogLevel("ERROR")
    failed = 0

    rc, took = audit(args.input, warehouse)
    reference = seen(spark, warehouse)
    rows = {n: len(v) for n, v in reference.items() if n in RUN_TABLES}
    print(f"reference run: rc {rc}, {took:.0f}s; readers see {rows}", flush=True)
    k = 0
    while True:
        k += 1
        before = commits(spark, warehouse)
        rc, took = audit(args.input, warehouse, kill_after=k)
        if rc == 0:
            print(f"kill after commit {k}: the run made fewer commits and completed ({took:.0f}s)", flush=True)
            break
        made = [c for _, c in set(commits(spark, warehouse)) - set(before)]
        repairs, own = sum(bool(c.repair_of) for c in made), sum(c.run is not None for c in made)
        now = seen(spark, warehouse)
        whole = {n: v for n, v in now.items() if n != "runs complete"} == {n: v for n, v in reference.items()
                                                                           if n != "runs complete"}
        failed += not whole
        print(f"kill after commit {k}: rc {rc} (SIGKILL), {took:.0f}s; it made {repairs} commits rolling back the "
              f"run killed before it and {own} of its own; runs complete {len(now['runs complete'])}; readers see "
              f"the reference: {'yes' if whole else 'NO'}", flush=True)
    rc, took = audit(args.input, warehouse)
    final = seen(spark, warehouse)
    same = {n: v for n, v in final.items() if n != "runs complete"} == {n: v for n, v in reference.items()
                                                                        if n != "runs complete"}
    settled = on_disk(spark, warehouse) == {n: v for n, v in reference.items() if n in RUN_TABLES}
    failed += not (same and settled)
    print(f"re-run: rc {rc}, {took:.0f}s; runs complete {len(final['runs complete'])}; readers see the reference: "
          f"{'yes' if same else 'NO'}; the tables' latest versions hold it: {'yes' if settled else 'NO'}")
    print(f"{k - failed} passed, {failed} failed")
    spark.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
