"""Property: on generated histories the replay reports exactly the injected faults.

For every era, hypothesis draws cluster shapes, lengths, log levels (TRACE, the INFO
default of 2.6+, inputs only) and fault mixes; the generator simulates and injects; the
ground truth comes from the injection alone. Precision and recall must both be 1.0.
And with some of a history's decisions missing, no error rests on what the replay inferred."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from histories import shapes
from state_machine.cluster import replay_cluster
from state_machine.eras import ERAS
from state_machine.generator import FAULTS, SimConfig, simulate

# Histories per era: the Hypothesis profile's number (tests/conftest.py), 100 in CI and 1000 under
# `make test-all`.
PROFILE = settings(deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow])

fault_mixes = st.dictionaries(st.sampled_from(sorted(FAULTS)), st.integers(1, 3), min_size=1)


def findings(era: str, cfg: SimConfig):
    events, truth = simulate(cfg)
    results = replay_cluster(cfg.cluster, events, ERAS[era])
    reported = {(v.rule, key[0], key[1], v.seq) for key, r in results.items() for v in r.violations}
    injected = {(t.rule, t.topic, t.partition, t.seq) for t in truth}
    return reported, injected


@pytest.mark.parametrize("era", list(ERAS))
@PROFILE
@given(shape=shapes)
def test_fault_free_histories_report_nothing(era, shape):
    reported, injected = findings(era, SimConfig(era=era, **shape))
    assert injected == set()
    assert reported == set()


@pytest.mark.parametrize("era", list(ERAS))
@PROFILE
@given(shape=shapes, faults=fault_mixes)
# Found in CI: a partition created while all its replicas were dead, brought online by a
# broker startup whose election line claims an illegal previous state.
@example(shape={"seed": 1283143562, "brokers": 6, "topics": 3, "partitions": 3, "replication_factor": 3,
                "steps": 31, "log_level": "info"},
         faults={f: 2 for f in sorted(FAULTS)})
def test_injected_faults_are_reported_exactly(era, shape, faults):
    reported, injected = findings(era, SimConfig(era=era, faults=faults, fault_rate=0.3, **shape))
    assert reported - injected == set(), "false positives (precision < 1)"
    assert injected - reported == set(), "missed faults (recall < 1)"


NOT_WRITTEN = {"IsrChangeProposed", "IsrUpdateFailed"}


@pytest.mark.parametrize("era", [name for name, era in ERAS.items() if era.mode == "zk"])
@settings(max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes, faults=st.sampled_from([{}, {f: 1 for f in FAULTS}]))
def test_isr_writes_that_did_not_commit_leave_no_trace(era, shape, faults):
    """Leaders' proposals whose write failed (each followed by its IsrUpdateFailed) change no row
    and no finding: the replay equals the one of the same history without them, and still reports
    exactly the injected faults."""
    cfg = SimConfig(era=era, faults=faults, fault_rate=0.3, failed_isr_writes=0.3, **shape)
    events, truth = simulate(cfg)
    with_them = replay_cluster(cfg.cluster, events, ERAS[era])
    without = replay_cluster(cfg.cluster, [e for e in events if e.event_type not in NOT_WRITTEN], ERAS[era])
    assert with_them == without
    reported = {(v.rule, key[0], key[1], v.seq) for key, r in with_them.items() for v in r.violations}
    assert reported == {(t.rule, t.topic, t.partition, t.seq) for t in truth}


def test_failed_isr_writes_are_drawn_only_when_asked():
    """The option adds pairs to a history, and 0 leaves the history as it was."""
    shape = dict(seed=7, brokers=4, topics=2, partitions=2, steps=60)
    plain, _ = simulate(SimConfig(era="2.3", **shape))
    assert plain == simulate(SimConfig(era="2.3", failed_isr_writes=0.0, **shape))[0]
    with_pairs, _ = simulate(SimConfig(era="2.3", failed_isr_writes=0.5, **shape))
    kinds = [e.event_type for e in with_pairs if e.event_type in NOT_WRITTEN]
    assert kinds and kinds == ["IsrChangeProposed", "IsrUpdateFailed"] * (len(kinds) // 2)


# The controller's decisions as state-change.log holds them (and its brokers' copies): the lines an
# excerpt, a rotated file or a lost file leaves out, whose values the replay infers from the inputs.
DECISIONS = {"PartitionStateChange", "ReplicaStateChange", "LeaderAndIsr", "LeaderAndIsrReceived"}
# The inputs that create a partition: without them (a log that starts later, a lost controller.log)
# the replay knows its assignment only from the lines that name it.
CREATIONS = {"TopicCreation", "PartitionCreation"}
# Before 1.1 an election's line names the leader alone ("... to OnlinePartition with leader 1"), and
# the LeaderAndIsr request the controller sends next carries the ISR and the leader epoch
# (PartitionStateMachine.scala @0.8.2.2, @1.0.2 handleStateChange); 1.1's rewrite logs them together.
LEADER_ALONE = {name for name, era in ERAS.items() if era.mode == "zk" and era.version < (1, 1)}


def as_logged(events: list, era: str) -> list:
    """The generated history as its era's controller logs it: before 1.1 each election line
    without its ISR and leader epoch, then the LeaderAndIsr request that carries them."""
    if era not in LEADER_ALONE:
        return events
    out = []
    for e in events:
        if e.event_type == "PartitionStateChange" and e.to_state == "OnlinePartition" and e.isr is not None:
            out += [e._replace(isr=None, leader_epoch=None, zk_version=None),
                    e._replace(event_type="LeaderAndIsr", from_state=None, to_state=None, replicas=None)]
        else:
            out.append(e)
    return [e._replace(seq=i, source_line=i) for i, e in enumerate(out, start=1)]


@pytest.mark.parametrize("era", [name for name, era in ERAS.items() if era.mode == "zk"])
@PROFILE
@given(shape=shapes, level=st.sampled_from(["trace", "info"]), rate=st.sampled_from([0.05, 0.2, 0.5]),
       creation_rate=st.sampled_from([0.0, 0.5, 1.0]), drop_seed=st.integers(0, 2**32 - 1))
def test_no_error_rests_on_a_missing_decision(era, shape, level, rate, creation_rate, drop_seed):
    """A fault-free history whose full replay reports nothing, some of its decision lines removed
    at random, and some of its partitions' creations (a log that starts after them): whatever the
    replay reports then rests on values it inferred, so nothing at `error`."""
    cfg = SimConfig(era=era, **{**shape, "log_level": level})
    events = as_logged(simulate(cfg)[0], era)
    full = replay_cluster(cfg.cluster, events, ERAS[era])
    assume(not any(r.violations for r in full.values()))
    rng = random.Random(drop_seed)
    dropped = [e.seq for e in events
               if rng.random() < (creation_rate if e.event_type in CREATIONS else rate if e.event_type in DECISIONS else 0)]
    kept = [e for e in events if e.seq not in set(dropped)]
    errors = [(key, v.rule, v.seq, v.detail) for key, r in replay_cluster(cfg.cluster, kept, ERAS[era]).items()
              for v in r.violations if v.severity == "error"]
    assert errors == [], f"errors with the lines of seq {dropped} removed"
