"""controller-replay: the command line.

  controller-replay audit    --input data/samples/ --warehouse warehouse/   (Spark + Delta, embedded local session)
  controller-replay sql      --warehouse warehouse/ "SELECT ..." ["SELECT ..." ...]
  controller-replay sql      --warehouse warehouse/ [< queries.sql]      (a prompt; from a pipe, its statements)
  controller-replay report   --warehouse warehouse/ [--cluster C] [--from T] [--to T] --out report.html
  controller-replay simulate --out data/samples/demo.jsonl [--era 2.4] [--fault unclean_election=2 ...]
  controller-replay replay   data/samples/ [--kafka-version 2.4] [--out DIR]   (the core alone, no Spark)

`replay` runs the core locally on canonical events (no Spark): it prints what was read,
replayed and quarantined, the partitions, and the violations by rule."""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from ingest.detect import cluster_eras
from jobs.local_runner import first_events, input_files, read_events, replay_local, truth_lines, write_jsonl
from state_machine.eras import ERAS, resolve_era
from state_machine.generator import FAULTS, SimConfig, Simulator
from state_machine.replay import era_mismatches


def _faults(specs: list[str]) -> dict[str, int]:
    faults = {}
    for spec in specs:
        name, _, count = spec.partition("=")
        if name not in FAULTS:
            raise SystemExit(f"unknown fault {name!r}; known: {', '.join(sorted(FAULTS))}")
        faults[name] = int(count or 1)
    return faults


def cmd_simulate(args: argparse.Namespace) -> int:
    cfg = SimConfig(cluster=args.cluster, era=args.era, brokers=args.brokers, topics=args.topics,
                    partitions=args.partitions, replication_factor=args.replication_factor, steps=args.steps,
                    seed=args.seed, log_level=args.log_level, faults=_faults(args.fault), fault_rate=args.fault_rate,
                    failed_isr_writes=args.failed_isr_writes)
    sim = Simulator(cfg)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    t0 = time.perf_counter()
    with open(out, "w", encoding="utf-8") as fh:
        for e in sim.run():
            fh.write(json.dumps({k: v for k, v in e._asdict().items() if v is not None}, separators=(",", ":")) + "\n")
            n += 1
            if args.max_events and n >= args.max_events:
                break
    truth = out.with_name(out.name.removesuffix(".jsonl") + ".truth.jsonl")
    write_jsonl(truth, truth_lines(sim.truth))
    print(f"wrote {n:,} events to {out} and {len(sim.truth)} injected faults to {truth} "
          f"({time.perf_counter() - t0:.1f}s)")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    default, per_cluster = cluster_eras(args.input, args.kafka_version)
    try:
        files = input_files(args.input)
    except FileNotFoundError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 2
    run = read_events(files)
    try:
        mismatched = era_mismatches(first_events(run), lambda cluster: per_cluster.get(cluster, default))
    except ValueError as exc:   # an era that resolves to no release
        print(f"replay: --kafka-version: {exc}", file=sys.stderr)
        return 2
    if mismatched:   # a wrong era: nothing is replayed
        print("replay: " + "\n".join(mismatched), file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    out = replay_local(run, lambda cluster: resolve_era(per_cluster.get(cluster, default)))
    elapsed = time.perf_counter() - t0
    c = out["counts"]
    eras = ", ".join(f"{cl}: {per_cluster.get(cl, default)}" for cl in sorted(run.events))
    print(f"events read {c['read']:,}, replayed {c['replayed']:,}, quarantined {c['quarantined']:,} ({elapsed:.2f}s)")
    print(f"clusters {len(run.events)} ({eras})")
    print(f"partitions {c['partitions']:,}")
    for rule, count in sorted(c["violations_by_rule"].items()):
        print(f"  {rule}: {count}")
    for q in out["quarantine"][:5]:
        print(f"  quarantined {q['source_file']}:{q['source_line']}: {q['reason']}")
    if args.out:
        target = Path(args.out)
        for table in ("partition_timeline", "replica_timeline", "violations", "quarantine"):
            write_jsonl(target / f"{table}.jsonl", out[table])
        print(f"tables written to {target}/")
    assert c["read"] == c["replayed"] + c["quarantined"], "every record is replayed or quarantined"
    return 0


EXAMPLE_QUERIES = (
    ("Who led each partition of a topic at a given time",
     "SELECT topic, partition, leader, isr FROM partition_timeline "
     "WHERE topic = 't1' AND valid_from <= TIMESTAMP '2023-11-14 22:14:00' "
     "AND (valid_to IS NULL OR valid_to > TIMESTAMP '2023-11-14 22:14:00') ORDER BY partition"),
    ("Violations by rule and severity",
     "SELECT rule, severity, count(*) AS n FROM violations GROUP BY rule, severity ORDER BY n DESC"),
    ("Unclean elections with their evidence",
     "SELECT cluster, topic, partition, event_time, detail, evidence FROM violations "
     "WHERE rule = 'UNCLEAN_LEADER_ELECTION' ORDER BY event_time"),
)


def cmd_audit(args: argparse.Namespace) -> int:
    from jobs.audit import run_from_args

    rc = run_from_args(args, terminal=True)
    if rc == 0 and args.examples:
        print("\nExample queries (controller-replay sql --warehouse %s \"...\"):" % args.warehouse)
        for title, q in EXAMPLE_QUERIES:
            print(f"  -- {title}\n  {q}")
    return rc


def cmd_sql(args: argparse.Namespace) -> int:
    from jobs.audit import register_tables
    from jobs.session import build_session
    from jobs.sql_guard import READ_ONLY_CONF, lock_down
    from jobs import sql_prompt

    at_terminal = not args.query and sys.stdin.isatty()
    if at_terminal:   # the session takes a while to start: say what the wait is
        print("starting Spark and reading the tables' logs ...", file=sys.stderr, flush=True)
    spark = build_session("controller-replay-sql", warehouse_dir=args.warehouse, extra_conf=READ_ONLY_CONF,
                          terminal=True)
    try:
        # A failed task logs its executor's stack trace at ERROR; the statement's error is printed below.
        spark.sparkContext.setLogLevel("FATAL")
        lock_down(spark)
        tables = register_tables(spark, args.warehouse)
        if not tables:
            print(f"no tables under {args.warehouse}; run controller-replay audit first", file=sys.stderr)
            return 2
        # PySpark logs a failed query with its JVM stack trace, as JSON, before raising it; the
        # message printed below is what an operator needs.
        from pyspark.logger import PySparkLogger
        PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True

        def run(statement: str) -> bool:
            return run_statement(spark, statement, args.limit, args.full)

        if at_terminal:
            # PySpark's SIGINT handler calls the JVM, on the connection of the call Ctrl-C broke
            # into: the prompt cancels the statement's jobs from another thread instead.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            print(f"tables: {', '.join(sorted(tables))}\n"
                  "a statement ends at ';'; Ctrl-C drops the one being typed; exit, quit or Ctrl-D leave")
            return sql_prompt.prompt(run, spark.sparkContext.cancelAllJobs, sql_prompt.history_path())
        if not args.query:
            return sql_prompt.piped(run, sys.stdin)
        failed = 0
        for statement in args.query:   # one session for all: a JVM and its Delta logs are loaded once
            if len(args.query) > 1:
                print(sql_prompt.heading(statement), flush=True)
            failed += not run(statement)
        return 2 if failed else 0
    finally:
        spark.stop()


def cmd_report(args: argparse.Namespace) -> int:
    from jobs.report import ReportConfig, run
    from jobs.session import build_session

    cfg = ReportConfig(warehouse=args.warehouse, out=args.out, cluster=args.cluster, start=args.start,
                       end=args.end, max_charts=args.max_charts)
    spark = build_session("controller-replay-report", warehouse_dir=args.warehouse, terminal=True)
    try:
        spark.sparkContext.setLogLevel("ERROR")
        try:
            done = run(spark, cfg)
        except FileNotFoundError as exc:
            print(f"report: {exc}", file=sys.stderr)
            return 2
    finally:
        spark.stop()
    left_out = f", {done.not_charted} left out (in the availability table)" if done.not_charted else ""
    print(f"wrote {done.out}: {len(done.clusters)} clusters, {done.partitions:,} partitions, "
          f"{done.violations:,} violations, {done.charted} charts{left_out}")
    return 0


def _utc_time(text: str):
    """--from/--to: an ISO 8601 time, UTC unless it names its zone (jobs.report.naive_utc)."""
    from jobs.report import naive_utc

    try:
        return naive_utc(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None


def run_statement(spark, statement: str, limit: int, full: bool) -> bool:
    """Run `statement` as the sql command runs each one, if jobs.sql_guard accepts it: its
    answer shown on stdout (`limit` rows, long values cut unless `full`), or `sql: ` and why it
    was refused or failed on stderr, without a stack trace. True if it ran."""
    from jobs.sql_guard import query

    try:
        query(spark, statement).show(limit, truncate=not full)
        return True
    except Exception as exc:   # a refusal or an operator's SQL error: say it and go on
        print(f"sql: {spark_error(exc)}", file=sys.stderr, flush=True)
        return False


def spark_error(exc: Exception) -> str:
    """Spark's message of a failed statement with where in the statement it failed: a parse
    error's own text (its position, then `== SQL ==` and the statement with a caret), else the
    message and each of its query contexts (`== SQL (line 1, position 8) ==`, the statement, a
    caret), without the plan an analysis error appends. An error PySpark leaves as the JVM's
    (a SparkException: a cancelled job) is its message, without the JVM's stack trace."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import ParseException

    if isinstance(exc, Py4JJavaError):
        return str(exc.java_exception.getMessage()).strip()
    contexts = exc.getQueryContext() if hasattr(exc, "getQueryContext") else []
    if isinstance(exc, ParseException) or not contexts or not hasattr(exc, "getMessage"):
        return str(exc).strip()
    return "\n".join([exc.getMessage(), *(c.summary().rstrip("\n") for c in contexts)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="controller-replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    from jobs.audit_args import add_audit_arguments

    aud = sub.add_parser("audit", help="replay recorded events in Spark and write the Delta tables")
    add_audit_arguments(aud)
    aud.add_argument("--examples", action="store_true", help="print example SQL queries after the summary")
    aud.set_defaults(func=cmd_audit)
    sq = sub.add_parser("sql", help="query the warehouse's tables (read only: queries, SHOW TABLES, SHOW VIEWS, "
                                    "SHOW COLUMNS, DESCRIBE, EXPLAIN; any other statement is refused)")
    sq.add_argument("--warehouse", required=True)
    sq.add_argument("--limit", type=int, default=50)
    sq.add_argument("--full", action="store_true", help="do not truncate long values")
    sq.add_argument("query", nargs="*", help="statements, run in order in one session; the exit status is 2 if any "
                                             "failed or was refused. Without one: a prompt at a terminal (a statement "
                                             "ends at ';'; exit, quit or Ctrl-D leave), else the statements on stdin")
    sq.set_defaults(func=cmd_sql)
    rp = sub.add_parser("report", help="write one self-contained HTML page of the warehouse's tables: runs, "
                                       "violations, partition timelines, controllers, brokers, availability")
    rp.add_argument("--warehouse", required=True)
    rp.add_argument("--out", required=True, help="the HTML file to write")
    rp.add_argument("--cluster", help="only this cluster (default: every cluster the warehouse holds)")
    rp.add_argument("--from", dest="start", type=_utc_time, metavar="TIME", help="ISO 8601, UTC unless zoned")
    rp.add_argument("--to", dest="end", type=_utc_time, metavar="TIME", help="ISO 8601, UTC unless zoned")
    rp.add_argument("--max-charts", type=int, default=60,
                    help="partitions charted at most (unclean elections, then errors, first); all are in the table")
    rp.set_defaults(func=cmd_report)
    sim = sub.add_parser("simulate", help="generate a synthetic cluster history (canonical events)")
    sim.add_argument("--out", required=True)
    sim.add_argument("--cluster", default="sim")
    sim.add_argument("--era", default="2.4", help=f"one of {', '.join(ERAS)} or a release like 2.5.1")
    sim.add_argument("--brokers", type=int, default=5)
    sim.add_argument("--topics", type=int, default=3)
    sim.add_argument("--partitions", type=int, default=4)
    sim.add_argument("--replication-factor", type=int, default=3)
    sim.add_argument("--steps", type=int, default=200)
    sim.add_argument("--max-events", type=int, default=0, help="stop after this many events (0 = run all steps)")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--log-level", choices=["trace", "info", "inputs"], default="trace")
    sim.add_argument("--fault", action="append", default=[], metavar="NAME[=COUNT]",
                     help=f"inject faults: {', '.join(sorted(FAULTS))}")
    sim.add_argument("--fault-rate", type=float, default=0.15)
    sim.add_argument("--failed-isr-writes", type=float, default=0.0, metavar="RATE",
                     help="chance per step of a leader's ISR write that does not commit (its proposal and failure "
                          "line; ZooKeeper eras): they change nothing, and the audit must agree")
    sim.set_defaults(func=cmd_simulate)
    rep = sub.add_parser("replay", help="replay canonical events locally with the core (no Spark)")
    rep.add_argument("input", nargs="+", help="files or directories of canonical .jsonl events")
    rep.add_argument("--kafka-version", action="append", default=[], metavar="[CLUSTER=]ERA",
                     help="Kafka version (era name or release) for all clusters, or for one; default 2.4 "
                          "or what a manifest.json in an input directory says")
    rep.add_argument("--out", help="directory for the output tables as JSON Lines")
    rep.set_defaults(func=cmd_replay)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
