"""A violation carries its facts as data, each finding's keys declared once (state_machine/findings.py),
and its detail is rendered from them, in one place."""
from __future__ import annotations

from string import Formatter

import pytest

from state_machine.checks import RULES, Severity, inferred_value_severity
from state_machine.findings import (COMMON, FACT_KEYS, FINDINGS, INFERABLE, REPLAY_VALUES, ids, render, sorted_ids,
                                    undeclared)


def test_every_rule_has_its_findings_and_every_finding_is_of_a_known_rule():
    assert {f.rule for f in FINDINGS} == set(RULES)
    assert len({(f.rule, f.case) for f in FINDINGS}) == len(FINDINGS)


def test_every_key_a_finding_declares_means_one_thing_and_every_key_is_declared():
    declared = {k for f in FINDINGS for k in (*COMMON, *f.facts, *f.optional)}
    assert declared == set(FACT_KEYS)
    for f in FINDINGS:
        assert not set(f.facts) & set(f.optional) and not set(COMMON) & {*f.facts, *f.optional}, f


def test_every_finding_names_the_replay_values_it_reads():
    for f in FINDINGS:
        assert f.reads and set(f.reads) <= set(REPLAY_VALUES), f
    assert set(INFERABLE) <= set(REPLAY_VALUES)


def test_a_verdict_on_an_inferred_value_says_so_and_is_at_most_a_warning():
    facts = {"case": "not_in_isr", "era": "2.4", "leader": "3", "isr": ids((1, 2)), "inferred": "leader"}
    assert render("LEADER_NOT_IN_ISR", facts) == ("leader 3 is not in its ISR [1, 2]; no record showed the leader: "
                                                  "the replay inferred it")
    assert render("LEADER_NOT_IN_ISR", {**facts, "inferred": "leader, isr"}).endswith(
        "no record showed the leader and the ISR: the replay inferred them")
    assert [inferred_value_severity(s) for s in Severity] == [Severity.warning, Severity.warning, Severity.info]


@pytest.mark.parametrize("f", [f for f in FINDINGS if isinstance(f.detail, str)], ids=lambda f: f"{f.rule}-{f.case}")
def test_a_template_reads_only_the_facts_its_finding_always_carries(f):
    read = {name for _, name, _, _ in Formatter().parse(f.detail) if name}
    assert read <= {*COMMON, *f.facts}


@pytest.mark.parametrize("f", FINDINGS, ids=lambda f: f"{f.rule}-{f.case}")
def test_a_finding_renders_with_its_facts_with_or_without_those_carried_when_known(f):
    always = {k: f"<{k}>" for k in (*COMMON, *f.facts)} | {"case": f.case}
    for facts in (always, always | {k: f"<{k}>" for k in f.when_known}
                  | ({"inferred": ", ".join(f.inferable)} if f.inferable else {})):
        assert render(f.rule, facts)
        assert undeclared(f.rule, facts) == ([], [])


def test_a_template_reads_the_facts_by_name():
    facts = {"case": "not_in_isr", "era": "2.4", "leader": "3", "isr": ids((1, 2))}
    assert render("LEADER_NOT_IN_ISR", facts) == "leader 3 is not in its ISR [1, 2]"


def test_a_fact_that_may_be_absent():
    facts = {"case": "older_epoch", "controller": "1", "controller_epoch": "4", "seen_controller_epoch": "5"}
    assert render("STALE_CONTROLLER_EPOCH", facts) == \
        "decision by controller 1 at controller epoch 4, but epoch 5 was already seen"
    assert render("STALE_CONTROLLER_EPOCH", {**facts, "seen_controller": "2"}) == \
        "decision by controller 1 at controller epoch 4, but epoch 5 (controller 2) was already seen"


def test_facts_missing_or_not_declared_are_named():
    facts = {"case": "not_in_isr", "era": "2.4", "leader": "3", "isr_before": "[1]"}
    assert undeclared("LEADER_NOT_IN_ISR", facts) == (["isr"], ["isr_before"])


def test_the_era_behaviour_applied_is_a_fact():
    facts = {"case": "kraft_outside_isr", "leader": "2", "isr_before": ids(()), "leader_before": "-1",
             "last_known_leader_elected": "true", "unclean_gate": "topic_config", "last_known_leader_dead": "true"}
    detail = render("UNCLEAN_LEADER_ELECTION", facts)
    assert detail.startswith("leader 2 was not in the previous ISR [] (previous leader -1); elected as the last known leader")
    assert "3.7.0-4.0.2 elect the last known leader anyway" in detail
    assert "only an admin UNCLEAN election" in render("UNCLEAN_LEADER_ELECTION", {
        **facts, "last_known_leader_elected": "false", "last_known_leader_dead": "false", "unclean_gate": "admin_only"})
    assert sorted_ids({3, 1}) == "[1, 3]"
