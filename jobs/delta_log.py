"""A Delta table's commits, read on the driver from its log (`_delta_log/<version>.json`).

Delta's own history (`DeltaTable.history`) answers the same from the same files, but through a
Spark job each time. The audit asks after every commit it makes (jobs.writes) and before it
reads a warehouse (jobs.runs), for a few small files: reading them through the table's Hadoop
file system on the driver takes milliseconds, where each job takes a tenth of a second or more.
Each commit file starts with its `commitInfo` action (the Delta protocol's provenance
information), which carries what the history shows of it."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

_COMMIT_FILE = re.compile(r"^(\d{20})\.json$")


@dataclass(frozen=True)
class LogCommit:
    """One commit's provenance (commitInfo): its version, time (epoch ms), operation, the version
    its transaction read (None for a transaction that read none), whether it was a blind append,
    and its userMetadata."""
    version: int
    at: int
    operation: str | None
    read_version: int | None
    blind_append: bool
    user_metadata: str | None


def _log_dir(spark, path: str):
    jvm = spark.sparkContext._jvm
    log = jvm.org.apache.hadoop.fs.Path(path.rstrip("/") + "/_delta_log")
    return log, log.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())


def _versions(fs, log) -> list[int]:
    """The versions whose commit files the log holds (Delta removes the oldest only after a
    checkpoint has them), ascending; none when the table has no log."""
    if not fs.exists(log):
        return []
    names = (status.getPath().getName() for status in fs.listStatus(log))
    return sorted(int(m.group(1)) for name in names if (m := _COMMIT_FILE.match(name)))


def latest_version(spark, path: str) -> int | None:
    """The table's latest committed version, None when it has none."""
    log, fs = _log_dir(spark, path)
    versions = _versions(fs, log)
    return versions[-1] if versions else None


def _commit_info(spark, fs, log, version: int) -> LogCommit:
    """Read line by line up to the commitInfo action, which Delta writes first: the file's add
    actions (one per data file, with its statistics) stay in the JVM."""
    jvm = spark.sparkContext._jvm
    stream = fs.open(jvm.org.apache.hadoop.fs.Path(log, f"{version:020d}.json"))
    try:
        lines = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(stream, "UTF-8"))
        while (line := lines.readLine()) is not None:
            action = json.loads(line) if line.strip() else {}
            if "commitInfo" in action:
                info = action["commitInfo"]
                return LogCommit(version, int(info.get("timestamp", 0)), info.get("operation"),
                                 info.get("readVersion"), bool(info.get("isBlindAppend", False)),
                                 info.get("userMetadata"))
    finally:
        stream.close()
    # A writer may leave out commitInfo (the protocol makes it optional): nothing known but the version.
    return LogCommit(version, 0, None, None, False, None)


def commits_since(spark, path: str, version: int = -1) -> list[LogCommit]:
    """The table's commits after `version` (all of them by default), oldest first."""
    log, fs = _log_dir(spark, path)
    return [_commit_info(spark, fs, log, v) for v in _versions(fs, log) if v > version]
