"""The rule catalogue matches RULES.md, and every member says what it checks."""

from __future__ import annotations

import re

from audit.rules import Rule
from conftest import SHARED, needs_shared


@needs_shared
def test_catalogue_matches_the_spec() -> None:
    spec = (SHARED / "spec" / "RULES.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (\w+) \|", spec, re.M))
    assert {r.value: r.severity for r in Rule} == rows


def test_every_rule_has_a_docstring() -> None:
    for rule in Rule:
        assert rule.__doc__ and len(rule.__doc__) > 20 and rule.__doc__ != Rule.__doc__, rule


@needs_shared
def test_every_rule_has_a_fixture_that_triggers_it() -> None:
    """Each rule id is named in a ``must_include`` of some fixture (ours or the shared cases)."""
    import json

    from conftest import FIXTURES

    triggered: set[str] = set()
    for path in list(FIXTURES.rglob("*.expect.json")) + list((SHARED / "cases").rglob("*.expect.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            triggered.update(w["rule"] for w in data.get("must_include", []))
    missing = sorted(r.value for r in Rule if r.value not in triggered)
    assert missing == []
