"""The rule catalogue matches RULES.md, and every member says what it checks."""

from __future__ import annotations

import re

from audit.rules import Rule
from conftest import SHARED


def test_catalogue_matches_the_spec() -> None:
    spec = (SHARED / "spec" / "RULES.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (\w+) \|", spec, re.M))
    assert {r.value: r.severity for r in Rule} == rows


def test_every_rule_has_a_docstring() -> None:
    for rule in Rule:
        assert rule.__doc__ and len(rule.__doc__) > 20 and rule.__doc__ != Rule.__doc__, rule
