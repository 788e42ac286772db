"""Regular expressions for house-format lines, for the tests that mutate simulated logs."""

from __future__ import annotations

import re

ACTION = re.compile(
    r"^(?P<p>[\w\-.']+): (?P<kind>folds|checks|calls|bets|raises)(?: (?P<a>\d+))?(?: to (?P<to>\d+))?"
    r"(?P<allin> and is all-in)?(?P<rest>.*)$")
DEALT = re.compile(r"^Dealt to (?P<p>[\w\-.']+) \[(?P<a>[^\]]*)\](?: \[(?P<b>[^\]]*)\])?$")
DISCARD = re.compile(r"^(?P<p>[\w\-.']+): discards (?P<k>\d+) cards? \[(?P<cards>[^\]]*)\](?P<rest>.*)$")
