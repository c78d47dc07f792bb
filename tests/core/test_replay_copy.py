"""A copy of a PartitionReplay (`copy.deepcopy`, as the generator takes before each step to undo an
election the era would not allow) is independent of the replay it was taken from: feeding either one
leaves the other as it was, whatever the copy shares to be cheap."""
from __future__ import annotations

import copy

import pytest

from histories import events_delivered
from state_machine.eras import resolve_era
from state_machine.generator import FAULTS, SimConfig, simulate
from state_machine.replay import PartitionReplay


def _busiest_partition(era: str, seed: int):
    """The events delivered to the partition with the most of them, in a history with every fault."""
    events, _ = simulate(SimConfig(era=era, topics=3, partitions=3, steps=120, seed=seed, faults={f: 1 for f in FAULTS}))
    delivered = events_delivered(events)
    key = max(delivered, key=lambda k: len(delivered[k]))
    return key, delivered[key]


def _replay(era, key, events) -> PartitionReplay:
    return PartitionReplay("sim", key[0], key[1], era).feed_all(events)


@pytest.mark.parametrize("era_name", ["0.8.1", "2.4", "kraft"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_copy_and_its_original_go_on_independently(era_name, seed):
    era = resolve_era(era_name)
    key, events = _busiest_partition(era_name, seed)
    half = len(events) // 2
    original = _replay(era, key, events[:half])
    clone = copy.deepcopy(original)
    clone.feed_all(events[half:])
    finished = clone.finish()
    assert finished == _replay(era, key, events).finish()
    assert original.finish() == _replay(era, key, events[:half]).finish()
    assert finished[0], "the history gave the partition no timeline row: the test shows nothing"


def test_a_set_two_partitions_share_stays_shared_in_their_copy():
    era = resolve_era("2.4")
    a, b = PartitionReplay("c", "t", 0, era), PartitionReplay("c", "t", 1, era)
    a.live = b.live = {1, 2}
    a_copy, b_copy = copy.deepcopy((a, b))
    assert a_copy.live is b_copy.live and a_copy.live is not a.live
    a_copy.live.add(3)
    assert a.live == {1, 2}


def test_copy_state_shares_tuples_and_copies_containers_once():
    from state_machine.partition import copy_state

    row, shared = (1, (2, 3)), {4}
    state = {"rows": [row], "a": shared, "b": shared}
    state["self"] = state
    got = copy_state(state, {})
    assert got == {"rows": [row], "a": {4}, "b": {4}, "self": got}
    assert got["rows"][0] is row and got["a"] is got["b"] and got["a"] is not shared and got["self"] is got
