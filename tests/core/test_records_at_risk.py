"""state_machine.records_at_risk: the bounds on the records an unclean election lost, from the
offsets the brokers print, with known answers; and the same through the replay, where the
offsets arrive as events before and after the election."""
from __future__ import annotations

from state_machine.eras import ERAS, resolve_era
from state_machine.events import Event
from state_machine.records_at_risk import Known, records_lost, start_offset_log
from state_machine.replay import PartitionReplay

from tests.core.test_replay_checks import C1, build, e, replay, unclean_history

START = Known(200, "new leader 3's start offset 200")
END = Known(700, "old leader 1's log end offset 700")
FLOOR = Known(350, "broker 1's log end offset 350")
CUT = Known(200, "old leader 1's truncation offset 200")


def test_exact_when_the_old_leaders_log_end_and_the_new_leaders_start_are_known():
    b = records_lost(START, END, FLOOR, CUT)
    assert (b.lower, b.upper) == (500, 500)
    assert b.lower_from == b.upper_from == "old leader 1's log end offset 700 less new leader 3's start offset 200"


def test_a_floor_gives_a_lower_bound_only():
    b = records_lost(START, "no follower line", FLOOR, "no truncation line")
    assert (b.lower, b.upper) == (150, None)
    assert b.lower_from.startswith("at least broker 1's log end offset 350")
    assert b.upper_from == "no follower line"


def test_without_the_start_offset_the_truncation_bounds_from_above():
    """0.8-0.10 print no start offset: the old leader's truncation removed at most these."""
    b = records_lost("0.8-0.10 print no start offset", END, FLOOR, CUT)
    assert (b.lower, b.upper) == (None, 500)
    assert b.lower_from == "0.8-0.10 print no start offset"
    assert "truncation offset 200" in b.upper_from


def test_nothing_known_is_unknown_with_each_reason():
    b = records_lost("no start line", "no end line", "no floor", "no truncation")
    assert (b.lower, b.upper) == (None, None)
    assert b.facts() == {"records_lost_lower": "unknown", "records_lost_lower_from": "no start line",
                         "records_lost_upper": "unknown", "records_lost_upper_from": "no end line"}


def test_an_old_leader_behind_the_new_one_lost_nothing():
    b = records_lost(Known(500, "start"), Known(300, "end"), FLOOR, CUT)
    assert (b.lower, b.upper) == (0, 0)


def test_which_log_prints_a_new_leaders_start_offset():
    assert start_offset_log(ERAS["0.10"]) is None
    assert start_offset_log(resolve_era("0.11.0.3")) == "server.log"
    assert start_offset_log(resolve_era("2.5.1")) == "server.log"
    assert start_offset_log(resolve_era("2.6.3")) == "state-change.log"
    assert start_offset_log(ERAS["kraft"]) == "state-change.log"


def _facts(result):
    [v] = [v for v in result.violations if v.rule == "UNCLEAN_LEADER_ELECTION"]
    return v


# Broker 1 led and shrank the ISR to [1] (its log end 350 then), died with 700; broker 2 was elected
# uncleanly at leader epoch 1 from offset 200; broker 1 came back, loaded 700 and truncated to 200.
OFFSETS_BEFORE = [e("IsrChangeProposed", leader=1, isr=[1], log_end_offset=350, high_watermark=340, recording_broker=1)]
OFFSETS_AFTER = [
    e("LeaderAndIsrReceived", leader=2, leader_epoch=1, log_end_offset=200, high_watermark=0, recording_broker=2),
    e("LogEndOffsetObserved", log_end_offset=700, recording_broker=1),
    e("LogTruncation", truncation_offset=200, recording_broker=1),
]


def _history(after=OFFSETS_AFTER):
    specs = unclean_history("true")
    at = next(i for i, (t, f) in enumerate(specs) if t == "IsrChange")
    return specs[:at] + OFFSETS_BEFORE + specs[at:] + list(after)


def test_the_replay_puts_the_bounds_in_the_unclean_elections_facts():
    v = _facts(replay("2.4", *_history()))
    assert {k: v.facts[k] for k in ("old_leader", "new_leader_start_offset", "new_leader_high_watermark",
                                    "old_leader_log_end_offset", "old_leader_truncation_offset",
                                    "records_lost_lower", "records_lost_upper")} == {
        "old_leader": "1", "new_leader_start_offset": "200", "new_leader_high_watermark": "0",
        "old_leader_log_end_offset": "700", "old_leader_truncation_offset": "200",
        "records_lost_lower": "500", "records_lost_upper": "500"}
    assert "state-change.log:" in v.facts["records_lost_lower_from"]   # the lines that printed them
    assert v.detail.endswith("; records lost: 500")


def test_without_the_old_leaders_return_only_the_floor_bounds_it():
    v = _facts(replay("2.4", *_history(OFFSETS_AFTER[:1])))
    assert (v.facts["records_lost_lower"], v.facts["records_lost_upper"]) == ("150", "unknown")
    assert v.facts["records_lost_upper_from"].startswith("no log end offset of the old leader 1 after the election")
    assert v.detail.endswith("; records lost: at least 150")


def test_without_any_offset_the_facts_say_unknown_and_why():
    v = _facts(replay("2.4", *unclean_history("true")))
    assert v.facts["records_lost_lower"] == v.facts["records_lost_upper"] == "unknown"
    assert v.facts["records_lost_lower_from"] == (
        "no start-offset line of the new leader: server.log of broker 2 not in the input")
    assert v.facts["records_lost_upper_from"] == (
        "no log end offset of the old leader: server.log of broker 1 not in the input")
    before_0_11 = _facts(replay("0.10", *unclean_history("true")))
    assert before_0_11.facts["records_lost_lower_from"].startswith("0.8-0.10 print no start offset")


def test_a_new_leaders_start_line_before_the_controllers_is_taken_too():
    specs = unclean_history("true")
    election = specs.pop()
    specs += [OFFSETS_AFTER[0], election, *OFFSETS_AFTER[1:]]
    assert _facts(replay("2.4", *specs)).facts["records_lost_lower"] == "500"


def test_an_open_election_is_held_across_drains_until_the_old_leader_truncates():
    events = build(_history())
    rp = PartitionReplay("c", "t", 0, ERAS["2.4"])
    out = []
    for event in events:
        rp.feed(event)
        out += [v for v in rp.drain()[2] if v.rule == "UNCLEAN_LEADER_ELECTION"]
        if event.event_type == "LeaderAndIsrReceived":
            assert out == []   # still waiting for the old leader
    assert [v.facts["records_lost_lower"] for v in out] == ["500"]   # closed at the truncation, before finish
    assert rp.finish()[2] == []


def test_an_offset_line_between_a_proposal_and_its_failure_does_not_commit_it():
    """Before 2.4 a held ISR proposal commits at the partition's next event unless it is the failure:
    a broker's log line in between changes nothing."""
    specs = unclean_history("true")[:3] + [
        e("IsrChangeProposed", leader=1, isr=[1], recording_broker=1),
        e("LogTruncation", truncation_offset=0, recording_broker=2),
        e("IsrUpdateFailed", leader=1, recording_broker=1),
    ]
    r = replay("2.3", *specs)
    assert r.rp.isr != (1,)


def test_before_0_11_the_lowest_truncation_after_the_election_is_the_cut():
    """0.9.0.1 (real capture zk-0.9-trace, broker 1): `Truncating log unclean-0 to offset 700.` to its
    high watermark, then `... to offset 200.` once its fetch from the new leader was out of range."""
    after = [e("LogEndOffsetObserved", log_end_offset=700, recording_broker=1),
             e("LogTruncation", truncation_offset=700, recording_broker=1),
             e("LogTruncation", truncation_offset=200, recording_broker=1)]
    v = _facts(replay("0.9", *unclean_history("true"), *after))
    assert (v.facts["records_lost_lower"], v.facts["records_lost_upper"]) == ("unknown", "500")
    assert v.facts["old_leader_truncation_offset"] == "200"
    assert v.detail.endswith("; records lost: at most 500")


def test_a_truncation_with_no_effect_is_the_old_leaders_log_end():
    after = [OFFSETS_AFTER[0], e("LogTruncation", truncation_offset=900, log_end_offset=700, recording_broker=1),
             e("LogTruncation", truncation_offset=200, recording_broker=1)]
    v = _facts(replay("2.4", *_history(after)))
    assert (v.facts["old_leader_log_end_offset"], v.facts["records_lost_lower"]) == ("700", "500")
