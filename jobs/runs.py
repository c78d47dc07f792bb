"""A run is whole or absent: which commits of the warehouse's tables readers see, and the
repair of a run that died while writing.

Delta commits one table at a time, and an audit writes four (partition_timeline,
replica_timeline, violations, quarantine) before its `audit_runs` row. So every such commit
is tagged with the run (Delta's `userMetadata`: run id, its clusters, host and process), and
the `audit_runs` row, written last, is the mark that the run is complete. A reader reads each
table at its *settled* version: the latest one with no commit of an incomplete run in it.
A run that died after some of its commits is rolled back by the next audit (`repair`): its
clusters' rows are written back as they were before its first commit, in a commit tagged as
the repair of it, after which the table is settled again.

The walk over a table's commits is plain Python (`settled_version`, `rollback_plan`); the rest
reads the tables' commit logs (jobs.delta_log) and writes through Spark.
"""
from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# The key of this project's part of a commit's userMetadata (a user's own metadata is left alone).
TAG = "controller_replay"

# The tables whose commits are tagged; `audit_runs` is the completion mark itself, read whole.
RUN_TABLES = ("partition_timeline", "replica_timeline", "violations", "quarantine", "partition_availability",
              "broker_failures")

# A run on another host is taken for dead when its first commit is older than this: its process
# cannot be asked. On this host the process itself is asked.
STALE_AFTER_MS = 6 * 3600 * 1000


@dataclass(frozen=True)
class Commit:
    """One commit of a table, as its tag says: an audit's write (`run`), or a repair (`repair_of`)."""
    version: int
    at_ms: int
    run: str | None = None
    clusters: tuple[str, ...] = ()
    host: str | None = None
    pid: int | None = None
    repair_of: tuple[str, ...] = ()


def run_tag(run_id: str, clusters: Iterable[str], host: str | None = None, pid: int | None = None) -> str:
    """The userMetadata of a run's commits (by default, of this process)."""
    return json.dumps({TAG: {"run_id": run_id, "clusters": sorted(clusters), "host": host or socket.gethostname(),
                             "pid": pid or os.getpid()}}, sort_keys=True)


def repair_tag(runs: Iterable[str], by: str) -> str:
    """The userMetadata of the commit that rolls `runs` back (written by run `by`)."""
    return json.dumps({TAG: {"repair_of": sorted(runs), "by": by}}, sort_keys=True)


def commit_of(version: int, at_ms: int, user_metadata: str | None) -> Commit:
    """A history row as a Commit; a commit without this project's tag (the table's creation, a
    column added, a user's OPTIMIZE) belongs to no run."""
    try:
        tag = json.loads(user_metadata or "")[TAG]
    except (ValueError, TypeError, KeyError):
        return Commit(version, at_ms)
    return Commit(version, at_ms, tag.get("run_id"), tuple(tag.get("clusters", ())), tag.get("host"), tag.get("pid"),
                  tuple(tag.get("repair_of", ())))


def settled_version(commits: list[Commit], complete: set[str]) -> int | None:
    """The latest version of a table that shows no commit of an incomplete run: from the first
    commit of a run not in `complete` on, the table is unsettled until a repair of that run.
    None: no version is (the table was made by a run still incomplete)."""
    settled, open_runs = None, set()
    for c in sorted(commits, key=lambda c: c.version):
        if c.run is not None and c.run not in complete:
            open_runs.add(c.run)
        open_runs.difference_update(c.repair_of)
        if not open_runs:
            settled = c.version
    return settled


def incomplete_runs(commits: Iterable[Commit], complete: set[str]) -> dict[str, Commit]:
    """run -> its first commit, of every run with commits not yet complete nor repaired."""
    commits = sorted(commits, key=lambda c: c.version)
    repaired = {r for c in commits for r in c.repair_of}
    first: dict[str, Commit] = {}
    for c in commits:
        if c.run is not None and c.run not in complete and c.run not in repaired:
            first.setdefault(c.run, c)
    return first


def is_dead(first: Commit, now_ms: int, host: str | None = None) -> bool:
    """Has the process that wrote `first` ended (this host), or is its run too old to be alive?"""
    if first.host is not None and first.host == (host or socket.gethostname()) and first.pid is not None:
        try:
            os.kill(first.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:   # held by a process of another user: taken for alive
            pass
    return now_ms - first.at_ms > STALE_AFTER_MS


@dataclass(frozen=True)
class Rollback:
    """What a repair writes back: on each table, the rows of `clusters` as at `base` (None: before
    the table held any; -1: the table's rows of those clusters are none)."""
    runs: frozenset[str]
    clusters: frozenset[str]
    base: dict[str, int]


def rollback_plan(history: dict[str, list[Commit]], dead: set[str]) -> Rollback | None:
    """The runs to roll back and where to: the dead runs, and every run that committed to one of
    their clusters after their first commit (its rows were computed over the dead run's half, so
    they go back with it); on each table, the version before the first commit of any of them."""
    runs, clusters = set(dead), {cl for cs in history.values() for c in cs if c.run in dead for cl in c.clusters}
    if not runs:
        return None
    grown = True
    while grown:
        grown = False
        for commits in history.values():
            first = min((c.version for c in commits if c.run in runs), default=None)
            for c in commits:
                if first is not None and c.version > first and c.run and c.run not in runs and clusters & set(c.clusters):
                    runs.add(c.run)
                    clusters |= set(c.clusters)
                    grown = True
    base = {name: min(c.version for c in commits if c.run in runs) - 1
            for name, commits in history.items() if any(c.run in runs for c in commits)}
    return Rollback(frozenset(runs), frozenset(clusters), base)


def dead_runs(history: dict[str, list[Commit]], complete: set[str], now_ms: int,
              dead: Callable[[Commit, int], bool] = is_dead) -> set[str]:
    """The incomplete runs, over every table, whose process has ended."""
    firsts: dict[str, Commit] = {}
    for commits in history.values():
        for run, c in incomplete_runs(commits, complete).items():
            if run not in firsts or c.at_ms < firsts[run].at_ms:
                firsts[run] = c
    return {run for run, c in firsts.items() if dead(c, now_ms)}


# ---------------------------------------------------------------- Spark and Delta

def table_history(spark, path: str) -> list[Commit]:
    """The table's commits, oldest first (its log: jobs.delta_log)."""
    from jobs.delta_log import commits_since

    return [commit_of(c.version, c.at, c.user_metadata) for c in commits_since(spark, path)]


def complete_runs(spark, warehouse: str) -> set[str]:
    """The run ids `audit_runs` holds: every run whose row was written (its tables before it)."""
    from jobs.writes import load_table, table_path

    runs = load_table(spark, table_path(warehouse, "audit_runs"))
    return set() if runs is None else {r[0] for r in runs.select("run_id").collect()}


def histories(spark, warehouse: str) -> dict[str, list[Commit]]:
    """name -> commits, of every run table present (one with a commit)."""
    from jobs.writes import table_path

    return {name: commits for name in RUN_TABLES if (commits := table_history(spark, table_path(warehouse, name)))}


def settled_versions(spark, warehouse: str) -> dict[str, int | None]:
    """name -> the version readers see (settled_version), of every run table present."""
    complete = complete_runs(spark, warehouse)
    return {name: settled_version(commits, complete) for name, commits in histories(spark, warehouse).items()}


def read_settled(spark, warehouse: str, name: str, settled: dict[str, int | None] | None = None):
    """Table `name` as readers see it, at its settled version (from `settled`, settled_versions'
    answer, else found here): None when the table is absent; with no row when no version of it is
    settled. `audit_runs` is read whole: its rows are the runs complete."""
    from jobs.writes import load_table, table_path

    path = table_path(warehouse, name)
    if name not in RUN_TABLES:
        return load_table(spark, path)
    if settled is None:
        settled = settled_versions(spark, warehouse)
    if name not in settled:
        return None
    table = spark.read.format("delta")
    if settled[name] is None:
        return table.load(path).limit(0)
    return table.option("versionAsOf", settled[name]).load(path)


def settle(spark, warehouse: str, by: str, now_ms: int) -> tuple[dict[str, list[str]], dict[str, int | None]]:
    """Before a run (`by`) reads the warehouse: the runs that died while writing rolled back
    (repair), and the tables' settled versions after it: (run -> its tables, name -> version)."""
    history, complete = histories(spark, warehouse), complete_runs(spark, warehouse)
    dead = dead_runs(history, complete, now_ms)
    if not dead:
        return {}, {name: settled_version(commits, complete) for name, commits in history.items()}
    rolled_back = repair(spark, warehouse, by, dead, history)
    return rolled_back, settled_versions(spark, warehouse)


def readers_view(spark, warehouse: str) -> dict:
    """name -> every table present, as readers see it (read_settled)."""
    from schemas.tables import TABLES

    settled = settled_versions(spark, warehouse)
    return {name: df for name in TABLES if (df := read_settled(spark, warehouse, name, settled)) is not None}


def repair(spark, warehouse: str, by: str, runs: set[str],
           history: dict[str, list[Commit]] | None = None) -> dict[str, list[str]]:
    """Roll back `runs` (and the runs rollback_plan adds to them) as run `by`: run -> the tables its
    rows were taken from. Each table is written back once, in one commit tagged as the repair."""
    from pyspark.sql import functions as F

    from jobs.writes import clusters_predicate, committed, table_path

    history = histories(spark, warehouse) if history is None else history
    plan = rollback_plan(history, runs)
    if plan is None or not plan.base:   # no commit of theirs to undo
        return {}
    tag, clusters = repair_tag(plan.runs, by), sorted(plan.clusters)
    for name, base in sorted(plan.base.items()):
        path = table_path(warehouse, name)

        def write(name=name, base=base, path=path) -> str:
            current = spark.read.format("delta").load(path)
            before = (spark.read.format("delta").option("versionAsOf", base).load(path) if base >= 0
                      else spark.createDataFrame([], current.schema))
            if name == "quarantine":
                # MERGEd by record, not by cluster (a record may name none): the rows the runs
                # wrote go back to what the same records held before, or away.
                theirs = F.col("run_id").isin(sorted(plan.runs))
                keys = ["source_file", "source_line", "raw"]
                restored = before.join(current.where(theirs).select(keys), keys, "left_semi")
                rows = current.where(~theirs).unionByName(restored.select(current.columns))
                rows.write.format("delta").mode("overwrite").option("userMetadata", tag).save(path)
            else:
                where = F.col("cluster").isin(clusters)
                predicate = clusters_predicate(clusters)
                if clusters:
                    (before.where(where).select(current.columns).write.format("delta").mode("overwrite")
                     .option("replaceWhere", predicate).option("userMetadata", tag).save(path))
                else:   # the runs wrote no cluster's rows here: the tag alone settles the table
                    current.limit(0).write.format("delta").mode("append").option("userMetadata", tag).save(path)
            return path

        committed(name, write)
    return {run: sorted(name for name, commits in history.items() if any(c.run == run for c in commits))
            for run in sorted(plan.runs)}
