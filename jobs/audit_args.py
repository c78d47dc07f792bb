"""The audit's configuration and command-line arguments (no Spark import: the CLI's other
commands stay fast)."""
from __future__ import annotations

import argparse
import uuid
from dataclasses import dataclass, field

from ingest.coverage import DEFAULT_GAP_MINUTES


class AuditError(RuntimeError):
    """The run cannot proceed (bad arguments, failed quality gate): nothing was written, unless the
    message says otherwise (a write that kept losing to concurrent writers)."""


@dataclass
class AuditConfig:
    inputs: list[str]
    warehouse: str
    kafka_versions: list[str] = field(default_factory=list)   # ERA or CLUSTER=ERA
    cluster: str | None = None                                 # for records that name none
    input_format: str = "auto"                                 # auto | events | logs
    timezone: str = "UTC"                                      # zone of zoneless log timestamps
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    shuffle_partitions: int | None = None
    max_records_per_batch: int = 10_000
    availability_window: str = "day"                           # day | hour: partition_availability's windows
    input_gap_minutes: float = DEFAULT_GAP_MINUTES             # the shortest gap input_coverage reports


def add_audit_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--input", nargs="+", required=True,
                    help="files or directories: canonical events (JSON lines), broker logs (state-change.log, controller.log, "
                         "server.log, rotated, and compressed: .gz .bz2 .zst .deflate), kafka-dump-log output")
    ap.add_argument("--warehouse", required=True, help="directory (or URI) holding the Delta tables")
    ap.add_argument("--format", default="auto", choices=["auto", "events", "logs"],
                    help="auto: JSON-object lines are canonical events, other lines are Kafka logs (default); "
                         "events or logs: only that")
    ap.add_argument("--timezone", default="UTC", help="zone of the zoneless log4j timestamps (IANA name, default UTC)")
    ap.add_argument("--kafka-version", action="append", default=[], metavar="[CLUSTER=]ERA",
                    help="Kafka version for all clusters or one (default: a manifest.json in an input dir, else detected from "
                         "the log lines, else 2.4)")
    ap.add_argument("--cluster", help="cluster name for records that carry none (logs: default is the name of the "
                                      "input directory, or of the directory holding a manifest.json; a canonical "
                                      "event that names none is quarantined without --cluster)")
    ap.add_argument("--shuffle-partitions", type=int, help="partitions of the replay stage")
    ap.add_argument("--availability-window", default="day", choices=["day", "hour"],
                    help="the windows partition_availability sums each partition's time in (UTC; default day)")
    ap.add_argument("--input-gap-minutes", type=float, default=DEFAULT_GAP_MINUTES,
                    help="the shortest span in which a broker's files hold no line while other brokers' record "
                         f"events that audit_runs.input_coverage reports as a gap (default {DEFAULT_GAP_MINUTES:g})")


def config_from_args(args: argparse.Namespace) -> AuditConfig:
    return AuditConfig(inputs=args.input, warehouse=args.warehouse, kafka_versions=args.kafka_version,
                       cluster=args.cluster, input_format=args.format, timezone=args.timezone,
                       shuffle_partitions=args.shuffle_partitions, availability_window=args.availability_window,
                       input_gap_minutes=args.input_gap_minutes)


