"""A violation's detail is rendered from its facts, in one place (state_machine/findings.py)."""
from __future__ import annotations

from state_machine.checks import RULES
from state_machine.findings import _DETAIL, ids, render, sorted_ids


def test_every_finding_is_of_a_known_rule():
    assert {rule for rule, _ in _DETAIL} <= set(RULES)


def test_a_template_reads_the_facts_by_name():
    facts = {"case": "not_in_isr", "leader": "3", "isr": ids((1, 2))}
    assert render("LEADER_NOT_IN_ISR", facts) == "leader 3 is not in its ISR [1, 2]"


def test_a_fact_that_may_be_absent():
    facts = {"case": "older_epoch", "controller": "1", "controller_epoch": "4", "seen_controller_epoch": "5"}
    assert render("STALE_CONTROLLER_EPOCH", facts) == \
        "decision by controller 1 at controller epoch 4, but epoch 5 was already seen"
    assert render("STALE_CONTROLLER_EPOCH", {**facts, "seen_controller": "2"}) == \
        "decision by controller 1 at controller epoch 4, but epoch 5 (controller 2) was already seen"


def test_the_era_behaviour_applied_is_a_fact():
    facts = {"case": "kraft_outside_isr", "leader": "2", "isr_before": ids(()), "leader_before": "-1",
             "last_known_leader": "true", "unclean_gate": "config", "last_known_leader_dead": "true"}
    detail = render("UNCLEAN_LEADER_ELECTION", facts)
    assert detail.startswith("leader 2 was not in the previous ISR [] (previous leader -1); elected as the last known leader")
    assert "3.7.0-4.0.2 elect the last known leader anyway" in detail
    assert sorted_ids({3, 1}) == "[1, 3]"
