"""The README documents every event type, every field, every rule and every era."""
from pathlib import Path

from schemas.events import EVENT_FIELDS, EVENT_TYPES
from state_machine.checks import RULES
from state_machine.eras import ERAS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def test_every_event_type_field_rule_and_era_is_documented():
    missing = [f"`{n}`" for n in [t.name for t in EVENT_TYPES] + [f.name for f in EVENT_FIELDS] + list(RULES) + list(ERAS)
               if f"`{n}`" not in README]
    assert not missing
