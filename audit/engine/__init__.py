"""The replay engine: one hand replayed under a profile, and the session rules across hands.

Each phase of a hand is a module of functions over one ``HandState`` (``state``), in three layers: what is legal
now (the queries), what happened (applied, never refused) and the judgement (small checks that record findings):

- ``state``: the hand's state and the queries (to call, min / max raise-to, may raise, may draw, whose turn, the
  pots in progress);
- ``table``: seats, button, blinds' seats and sizes, the minimum bet, who starts a round;
- ``allowed`` (``ACTION_NOT_ALLOWED``, every variant), ``clock`` (``TIME_LIMIT``);
- ``forced`` (antes, blinds, entry posts), ``deal``, ``rounds`` (a betting round opened and closed),
  ``betting``, ``draw``, ``parole``, ``showdown``, ``settle`` (pots, awards, uncalled bets, rake, totals);
- ``legal``: what is legal now as one typed answer, ``legal_now(state) -> Legal``, composed from the phases'
  queries (the live table offers it, the dispute page's steps record its betting part, ``betting.bet_legal``);
- ``streets``: the walk over the hand's lines, street by street: ``replay(hand, profile)``;
- ``result`` and ``steps``: what a replay gives (``HandResult``; typed steps for ``explain``, no words);
- ``session``: stacks, button, busts, length, standings and missed blinds across the hands of a session.

Nothing here reads a file, a database or the command line; the engine reads profile parameters and what a
dialect shows (``Hand.shows_all_cards``), never a profile's or a dialect's name.
"""

from audit.engine.result import HandResult, PotResult
from audit.engine.session import SessionTracker
from audit.engine.state import STREET_NAMES
from audit.engine.streets import replay

__all__ = ["STREET_NAMES", "HandResult", "PotResult", "SessionTracker", "replay"]
