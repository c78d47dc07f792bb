"""jobs.runs without Spark: which version of a table readers see, which runs are dead, and what a
repair writes back."""
from __future__ import annotations

import subprocess

from hypothesis import given
from hypothesis import strategies as st

from jobs.runs import (STALE_AFTER_MS, Commit, commit_of, dead_runs, incomplete_runs, is_dead, repair_tag,
                       rollback_plan, run_tag, settled_version)


def w(version: int, run: str | None = None, *clusters: str, at: int = 0, repair_of: tuple = ()) -> Commit:
    return Commit(version, at or version, run, clusters, "h", 1, repair_of)


def test_tags_round_trip_through_the_commits_user_metadata():
    c = commit_of(3, 7, run_tag("r1", ["b", "a"], host="h", pid=42))
    assert (c.run, c.clusters, c.host, c.pid, c.repair_of) == ("r1", ("a", "b"), "h", 42, ())
    assert commit_of(4, 8, repair_tag({"r1"}, by="r2")).repair_of == ("r1",)
    # The table's creation, a user's OPTIMIZE, a user's own metadata: no run's commit.
    assert commit_of(0, 0, None).run is None and commit_of(1, 0, '{"team": "ops"}').run is None
    assert commit_of(1, 0, "not json").run is None


def test_readers_stop_before_the_first_commit_of_an_incomplete_run():
    commits = [w(0), w(1, "done", "c"), w(2, "half", "c"), w(3, "later", "d")]
    assert settled_version(commits, {"done", "later"}) == 1
    assert settled_version(commits, {"done", "half", "later"}) == 3
    # Made by a run still writing: no version to read.
    assert settled_version([w(0, "half", "c")], set()) is None


def test_a_repair_settles_the_table_again_from_its_own_commit_on():
    commits = [w(0), w(1, "done", "c"), w(2, "half", "c"), w(3, "other", "d"), w(4, None, repair_of=("half",))]
    assert settled_version(commits, {"done", "other"}) == 4
    assert incomplete_runs(commits, {"done", "other"}) == {}
    assert settled_version(commits[:4], {"done", "other"}) == 1


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.booleans()), max_size=12), st.sets(st.sampled_from("abcd")))
def test_the_settled_version_never_shows_a_commit_of_an_incomplete_unrepaired_run(writes, complete):
    commits = [w(0)] + [Commit(i + 1, i + 1, None if repair else run, (), None, None, (run,) if repair else ())
                        for i, (run, repair) in enumerate(writes)]
    v = settled_version(commits, complete)
    shown = [c for c in commits if v is not None and c.version <= v]
    for c in shown:
        if c.run is not None and c.run not in complete:   # some repair of it is shown too, after it
            assert any(r.version > c.version and c.run in r.repair_of for r in shown)
    # And it is the latest such version: the next one would show an open run.
    later = [c for c in commits if v is None or c.version > v]
    if later:
        nxt = settled_version(commits[:commits.index(later[0]) + 1], complete)
        assert nxt == v


def test_a_run_of_this_host_is_dead_when_its_process_is_gone():
    ended = subprocess.Popen(["true"])
    ended.wait()
    gone = Commit(1, 1000, "r", ("c",), "here", ended.pid)
    assert is_dead(gone, 2000, host="here")
    import os
    assert not is_dead(Commit(1, 1000, "r", ("c",), "here", os.getpid()), 2000, host="here")
    # Another host's run cannot be asked: dead once it is older than STALE_AFTER_MS.
    elsewhere = Commit(1, 1000, "r", ("c",), "there", 1)
    assert not is_dead(elsewhere, 2000, host="here")
    assert is_dead(elsewhere, 1001 + STALE_AFTER_MS, host="here")


def test_dead_runs_are_the_incomplete_ones_whose_process_ended():
    history = {"partition_timeline": [w(0), w(1, "done", "c"), w(2, "half", "c")],
               "violations": [w(0), w(1, "live", "d")]}
    assert dead_runs(history, {"done"}, 10, dead=lambda c, now: c.run == "half") == {"half"}


def test_a_rollback_goes_back_to_before_the_runs_first_commit_on_each_table():
    history = {"partition_timeline": [w(0), w(1, "done", "c"), w(2, "half", "c"), w(3, "other", "d")],
               "replica_timeline": [w(0), w(1, "done", "c")],
               "quarantine": [w(0), w(5, "half", "c")]}
    plan = rollback_plan(history, {"half"})
    assert plan.runs == {"half"} and plan.clusters == {"c"}
    assert plan.base == {"partition_timeline": 1, "quarantine": 4}


def test_a_run_that_wrote_the_same_clusters_after_the_dead_one_goes_back_with_it():
    # "next" replaced rows of c over half's: its rows rest on the dead run's, and so do e's (its other cluster).
    history = {"partition_timeline": [w(0), w(1, "half", "c"), w(2, "next", "c", "e"), w(3, "other", "d")],
               "violations": [w(0), w(1, "next", "c", "e")]}
    plan = rollback_plan(history, {"half"})
    assert plan.runs == {"half", "next"} and plan.clusters == {"c", "e"}
    assert plan.base == {"partition_timeline": 0, "violations": 0}
    assert rollback_plan(history, set()) is None
