"""The rule catalogue: every finding names one of these ids (shared/spec/RULES.md).

The ids are stable strings used in findings, the database, reports and docs. Each member carries its severity
(``violation``: the rules were broken; ``warning``: the log disagrees with itself but the play may have been
right; ``error``: the hand could not be read or audited) and its docstring, what is checked.
"""

from __future__ import annotations

from enum import Enum


class Rule(str, Enum):
    """A rule id. ``Rule.POT_WINNER.severity`` is its severity, ``Rule.POT_WINNER.__doc__`` what it checks."""

    severity: str

    def __new__(cls, value: str, severity: str, doc: str) -> Rule:
        member = str.__new__(cls, value)
        member._value_ = value
        member.severity = severity
        member.__doc__ = doc
        return member

    def __str__(self) -> str:
        return str(self.value)

    PARSE_ERROR = ("PARSE_ERROR", "error",
           "The hand could not be read (with line, column, and the line with a caret).")
    UNKNOWN_PLAYER = ("UNKNOWN_PLAYER", "error",
           "A line names a player without a seat.")
    UNSUPPORTED_GAME = ("UNSUPPORTED_GAME", "error",
           "A hand of a game the audit does not cover (2-7 lowball, badugi, hold'em …), named in the message.")
    SEAT_COUNT = ("SEAT_COUNT", "violation",
           "Players dealt in outside the profile's range.")
    BUTTON_MOVE = ("BUTTON_MOVE", "violation",
           "The button did not move to the next player on the left (stays on a redeal).")
    STACK_CONTINUITY = ("STACK_CONTINUITY", "violation",
           "A starting stack differs from the previous hand's end stack (first hand: starting-chips).")
    BUSTED_PLAYER = ("BUSTED_PLAYER", "violation",
           "A player who could not ante / had no chips was dealt in (no rebuys).")
    SESSION_LENGTH = ("SESSION_LENGTH", "violation",
           "More hands than the session allows, or play went on when only one could ante.")
    STANDINGS = ("STANDINGS", "violation",
           "The announced standings do not match the final balances.")
    ANTE_WRONG = ("ANTE_WRONG", "violation",
           "Ante missing, wrong amount, or posted by someone not dealt in.")
    BLIND_WRONG = ("BLIND_WRONG", "violation",
           "A blind missing, wrong amount, wrong seat, or an over blind with fewer than 4 players.")
    MISSED_BLINDS = ("MISSED_BLINDS", "violation",
           "A returning or new player did not post what the missed-blinds decision requires, or live/dead split wrong.")
    REDEAL = ("REDEAL", "violation",
           "A redeal that was not required, a required redeal that did not happen, or a wrong carried pot.")
    CARD_DUPLICATE = ("CARD_DUPLICATE", "violation",
           "The same card in two live hands, or twice in one hand or one card list.")
    CARD_NOT_IN_DECK = ("CARD_NOT_IN_DECK", "violation",
           "A card that the profile's deck does not hold (a 5 in the 32-card deck, a joker without the option).")
    DEAL_COUNT = ("DEAL_COUNT", "violation",
           "A player dealt other than 5 cards, or dealt in while sitting out.")
    DEAL_ORDER = ("DEAL_ORDER", "violation",
           "With a Deck: line: cards not dealt or drawn in deck order.")
    ACTION_OUT_OF_TURN = ("ACTION_OUT_OF_TURN", "violation",
           "A player acted when it was another's turn.")
    ACTION_NOT_ALLOWED = ("ACTION_NOT_ALLOWED", "violation",
           "A check facing a bet, a bet when a bet stands, acting after folding or all-in, acting after the round closed.")
    CALL_AMOUNT = ("CALL_AMOUNT", "violation",
           "A call of other than the amount owed (or the whole stack when all-in).")
    BET_BELOW_MIN = ("BET_BELOW_MIN", "violation",
           "An opening bet below the min bet, not all-in.")
    RAISE_BELOW_MIN = ("RAISE_BELOW_MIN", "violation",
           "A raise below the last full increment, not all-in.")
    RAISE_NOT_REOPENED = ("RAISE_NOT_REOPENED", "violation",
           "A raise by a player for whom the betting was not re-opened.")
    BET_OVER_POT = ("BET_OVER_POT", "violation",
           "A pot-limit bet or raise above the pot.")
    BET_FIXED_SIZE = ("BET_FIXED_SIZE", "violation",
           "A fixed-limit bet or raise of the wrong size, not all-in.")
    RAISE_CAP = ("RAISE_CAP", "violation",
           "A fixed-limit bet past the cap.")
    BET_UNIT = ("BET_UNIT", "violation",
           "A bet or raise increment that is not a multiple of the bet unit, not all-in.")
    BET_OVER_STACK = ("BET_OVER_STACK", "violation",
           "More chips put in than the player had (no loans).")
    ALL_IN_FLAG = ("ALL_IN_FLAG", "warning",
           "And is all-in on a player with chips left, or missing on a player with none.")
    AMOUNT_NOTATION = ("AMOUNT_NOTATION", "warning",
           "Raises X to Y where X is not Y minus the bet faced.")
    ROUND_INCOMPLETE = ("ROUND_INCOMPLETE", "violation",
           "A round ended before every active player had answered the last bet.")
    OPENERS = ("OPENERS", "violation",
           "The pot was opened without the openers the profile requires.")
    TIME_LIMIT = ("TIME_LIMIT", "violation",
           "An action after the time limit, a raise after the raise time limit, or a wrong timed-out action.")
    DRAW_LIMIT = ("DRAW_LIMIT", "violation",
           "More cards drawn than the profile allows (4 without an ace kept under 3+ace).")
    DRAW_COUNT = ("DRAW_COUNT", "violation",
           "Discarded cards not in the hand, received not equal to discarded, a hand not of 5 after the draw.")
    DRAW_ORDER = ("DRAW_ORDER", "violation",
           "A draw out of turn, twice, by a folded player, a survivor skipped, or a draw after the hand was won.")
    RESHUFFLE = ("RESHUFFLE", "violation",
           "A reshuffle when the stub sufficed, or a new stub with cards it may not hold or without those it must.")
    STUB_CARD = ("STUB_CARD", "violation",
           "A drawn card that was not in the stub: already dealt, or someone's discard with no reshuffle that let it back.")
    SHOW_ORDER = ("SHOW_ORDER", "warning",
           "The wrong player showed first.")
    SHOWN_CARDS = ("SHOWN_CARDS", "violation",
           "Shown cards differ from the player's final hand.")
    HAND_DESCRIPTION = ("HAND_DESCRIPTION", "warning",
           "A stated hand description does not match the cards.")
    POT_WINNER = ("POT_WINNER", "violation",
           "A pot went to someone not holding the best hand among its eligible players, or not eligible, or (two "
           "or more at the show down) to a player who never showed, or a tied best hand did not receive its "
           "share.")
    POT_AMOUNT = ("POT_AMOUNT", "violation",
           "Amounts collected differ from the pots built from the contributions.")
    ODD_CHIP = ("ODD_CHIP", "violation",
           "A split pot's odd chip went to the wrong winner.")
    UNCALLED_BET = ("UNCALLED_BET", "violation",
           "An uncalled bet not returned, or the wrong amount returned.")
    CHIPS_NOT_CONSERVED = ("CHIPS_NOT_CONSERVED", "violation",
           "Collected + returned + rake differs from all chips put in (carried pot included).")
    RAKE = ("RAKE", "violation",
           "Rake taken where the profile allows none.")
    PAROLE = ("PAROLE", "violation",
           "Parole offered by the wrong player or in the wrong round, answered out of turn, twice, late or not at "
           "all, or its split wrong.")
    POINTS = ("POINTS", "violation",
           "No-bet mode points given to other than the best hand(s), or a best hand not given its point.")
    SUMMARY_TOTAL = ("SUMMARY_TOTAL", "warning",
           "The summary's total pot or rake disagrees with the hand.")


SEVERITY_RANK = {"warning": 1, "violation": 2, "error": 3}
