"""The house format's builders: a line matched by its terminal's pattern → its model object, and the blocks
(a hand, the preamble, the session end) from their lines' values. Both parsers build with these: the fast loop
(``audit.dialects.house_parser.LineParser``) directly, Lark's own parser (``audit.dialects.house_lark``) through
its callbacks. They only make model objects and keep file line numbers; all poker judgement is the replay
engine's.
"""

from __future__ import annotations

import re
from typing import Any, Final

from audit.dialects.common import (
    MAX_NUMBER_DIGITS, NumberTooLarge, cards_inside, new_model, read_amount, read_seat, seats_own_strings,
    split_cards,
)
from audit.dialects.house_lines import (
    EVENTS, MARKERS, PAROLE_VERBS, POST_KINDS, POTS, T_ACT, T_CARDS, T_CARRIED, T_COLLECTED, T_DEALT, T_DECK,
    T_DISCARDS, T_EVENT, T_HAND_LINE, T_MARKER, T_MUCKS, T_NOPLAY, T_OPTION, T_PAROLE, T_POST, T_PROFILE,
    T_RESHUFFLES, T_SAID, T_SCORES, T_SEAT_LINE, T_SESSION, T_SESSION_END, T_SHOWS, T_STANDING, T_STANDS_PAT,
    T_TABLE_LINE, T_TOTAL, T_UNCALLED, TERMINALS, VERBS,
)
from audit.model import (
    Action, CardsLine, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, OptionLine, Parole,
    Post, Preamble, ProfileLine, Reshuffle, Score, Seat, SessionEnd, SessionLine, Show, Standing, StandPat,
    SummaryTotal, Uncalled,
)

__all__ = ["RULE_KINDS", "R_HAND", "R_LIST", "R_PREAMBLE", "R_SESSION_END", "build_hand", "reduce_rule", "token_value"]

_INT: Final = re.compile(r"\d+")
# The grammar's terminals decide what a line is; these read the names, numbers and cards inside a line.
_BRACKETS: Final = re.compile(r"\[[^\]]*\]")


# ---- building model objects from a matched line -------------------------------------------------------------
# One function per terminal: ``m`` is the match of the terminal's pattern over the whole line (its newline
# included), ``line`` the line's number in the file. Both ways of parsing call these: the fast loop
# (``LineParser``) directly, Lark's own parser through ``HouseBuilder``'s callbacks. The model tuples are made
# with ``common.new_model``, every field given in order.

def _line_text(m: re.Match[str]) -> str:
    """The matched line without its newline (for the few callbacks that read the line as a whole)."""
    return m.group()[:-1]


def _took(took: str | None) -> float | None:
    if not took:
        return None
    if len(took) > MAX_NUMBER_DIGITS:
        whole, _, fraction = took.partition(".")
        if len(whole) > MAX_NUMBER_DIGITS or len(fraction) > MAX_NUMBER_DIGITS:
            raise NumberTooLarge(whole if len(whole) > MAX_NUMBER_DIGITS else fraction)
    return float(took)


def _b_hand_line(m: re.Match[str], line: int) -> tuple[int, str, str]:
    hand_id: str
    date: str
    hand_id, date = m.groups()
    return line, hand_id, " ".join(date.split())


def _b_table_line(m: re.Match[str], line: int) -> tuple[str, int]:
    table, button = m.groups()
    return table, read_seat(button)


def _b_seat_line(m: re.Match[str], line: int) -> tuple[Seat, bool]:
    seat: str
    name: str
    n: str
    unit: str
    out: str | None
    seat, name, n, unit, out = m.groups()
    return new_model(Seat, (line, read_seat(seat), name, read_amount(n), out is not None)), unit != "in chips"


def _b_carried(m: re.Match[str], line: int) -> tuple[int, int]:
    return line, read_amount(_line_text(m).split(":", 1)[1])


def _b_post(m: re.Match[str], line: int) -> Post:
    name, kind, n, allin = m.groups()
    return new_model(Post, (line, name, POST_KINDS[kind], read_amount(n), allin is not None))


def _b_noplay(m: re.Match[str], line: int) -> NoPlay:
    name, what = m.groups()
    return new_model(NoPlay, (line, name, "waits" if what.startswith("waits") else "sits-out"))


def _b_marker(m: re.Match[str], line: int) -> Marker:
    return new_model(Marker, (line, MARKERS[m.group(1)]))


def _b_deck(m: re.Match[str], line: int) -> DeckLine:
    return new_model(DeckLine, (line, split_cards(_BRACKETS.search(m.group()).group())))  # type: ignore[union-attr]


def _b_dealt(m: re.Match[str], line: int) -> Dealt:
    name: str
    cards: str
    name, cards, _ = m.groups()
    return _dealt(line, name, cards)


def _dealt(line: int, name: str, cards: str) -> Dealt:
    """``Dealt to <name> <cards>``: ``cards`` is one bracket, or two with spaces between (the pattern allows no
    ']' inside a bracket)."""
    close = cards.find("]")
    first = cards_inside(cards[1:close])
    second = cards.find("[", close)
    groups = (first,) if second < 0 else (first, cards_inside(cards[second + 1:-1]))
    return new_model(Dealt, (line, name, groups))


def _b_act(m: re.Match[str], line: int) -> Action:
    name, plain, verb, n, inc, to, all_in, timed_out, took = m.groups()
    allin = all_in is not None
    timed = timed_out is not None
    secs = _took(took)
    if plain is not None:
        return new_model(Action, (line, name, VERBS[plain], 0, 0, allin, timed, secs))
    if verb is not None:
        amount = read_amount(n)
        return new_model(Action, (line, name, VERBS[verb], amount, amount if verb == "bets" else 0, allin, timed, secs))
    return new_model(Action, (line, name, "raise", read_amount(inc), read_amount(to), allin, timed, secs))


def _b_parole(m: re.Match[str], line: int) -> Parole:
    name, verb, took = m.groups()
    return new_model(Parole, (line, name, PAROLE_VERBS[verb], _took(took)))


def _b_discards(m: re.Match[str], line: int) -> Discard:
    name: str
    n: str
    cards: str | None
    took: str | None
    name, n, cards, took, _ = m.groups()
    return new_model(Discard, (line, name, read_amount(n), split_cards(cards) if cards else None, _took(took)))


def _b_stands_pat(m: re.Match[str], line: int) -> StandPat:
    name, timed_out, took = m.groups()
    return new_model(StandPat, (line, name, timed_out is not None, _took(took)))


def _b_reshuffles(m: re.Match[str], line: int) -> Reshuffle:
    return new_model(Reshuffle, (line, split_cards(_BRACKETS.search(m.group()).group())))  # type: ignore[union-attr]


def _b_shows(m: re.Match[str], line: int) -> Show:
    name: str
    cards: str
    desc: str | None
    name, cards, desc = m.groups()
    return new_model(Show, (line, name, split_cards(cards), desc))


def _b_mucks(m: re.Match[str], line: int) -> Muck:
    return new_model(Muck, (line, m.group(1)))




def _b_collected(m: re.Match[str], line: int) -> Collect:
    name, n, where = m.groups()
    pot = POTS.get(where)
    if pot is None:
        pot = "side-" + where.rsplit("-", 1)[1]
    return new_model(Collect, (line, name, read_amount(n), pot))


def _b_uncalled(m: re.Match[str], line: int) -> Uncalled:
    n, name = m.groups()
    return new_model(Uncalled, (line, name, read_amount(n)))


def _b_event(m: re.Match[str], line: int) -> Event:
    name, what = m.groups()
    return new_model(Event, (line, name, EVENTS[what], ""))


def _b_said(m: re.Match[str], line: int) -> Event:
    name, text = m.groups()
    return new_model(Event, (line, name, "said", text))


def _b_scores(m: re.Match[str], line: int) -> Score:
    name, n = m.groups()
    return new_model(Score, (line, name, read_amount(n)))


def _b_total(m: re.Match[str], line: int) -> SummaryTotal:
    nums = _INT.findall(m.group())
    return new_model(SummaryTotal, (line, read_amount(nums[0]), read_amount(nums[1])))


def _b_session(m: re.Match[str], line: int) -> SessionLine:
    return new_model(SessionLine, (line, _line_text(m).split(":", 1)[1].strip()))


def _b_profile(m: re.Match[str], line: int) -> ProfileLine:
    return new_model(ProfileLine, (line, _line_text(m).split(":", 1)[1].strip()))


def _b_option(m: re.Match[str], line: int) -> OptionLine:
    name, _, value = _line_text(m).split(":", 1)[1].partition("=")
    return new_model(OptionLine, (line, name.strip(), value.strip()))


def _b_cards(m: re.Match[str], line: int) -> CardsLine:
    return new_model(CardsLine, (line, m.group(1) == "shown"))


def _b_standing(m: re.Match[str], line: int) -> Standing:
    place, name, n = m.groups()
    return new_model(Standing, (line, read_amount(place), name, read_amount(n)))


def build_hand(c: list[Any], file: str) -> Hand:
    """``hand: HAND_LINE TABLE_LINE seats CARRIED? body?`` from its children's values."""
    (hand_line, hand_id, started), (table, button) = c[0], c[1]
    seat_rows: list[tuple[Seat, bool]] = c[2]
    seats = tuple([row[0] for row in seat_rows])
    points = False
    for row in seat_rows:
        if row[1]:
            points = True
    carried, carried_line = 0, 0
    i = 3
    if i < len(c) and type(c[i]) is tuple:
        carried_line, carried = c[i]
        i += 1
    # (the hands read line by line through the tables: their players' strings made the seats' own here, once)
    body = seats_own_strings(seats, c[i]) if i < len(c) else ()
    end = body[-1].line if body else (carried_line or (seats[-1].line if seats else hand_line))
    return new_model(Hand, (file, hand_line, end, hand_id, started, table, button, seats, body, carried, carried_line,
                       points, "house", None, True))


def token_value(kind: int, m: re.Match[str], line: int) -> object:
    """The value a shifted line leaves on the stack: its model object (most frequent lines first)."""
    if kind == T_DEALT:
        return _b_dealt(m, line)
    if kind == T_MARKER:
        return _b_marker(m, line)
    if kind == T_ACT:
        return _b_act(m, line)
    if kind == T_POST:
        return _b_post(m, line)
    if kind == T_SEAT_LINE:
        return _b_seat_line(m, line)
    if kind == T_DISCARDS:
        return _b_discards(m, line)
    if kind == T_SHOWS:
        return _b_shows(m, line)
    if kind == T_COLLECTED:
        return _b_collected(m, line)
    if kind == T_TOTAL:
        return _b_total(m, line)
    if kind == T_HAND_LINE:
        return _b_hand_line(m, line)
    if kind == T_TABLE_LINE:
        return _b_table_line(m, line)
    if kind == T_UNCALLED:
        return _b_uncalled(m, line)
    if kind == T_STANDS_PAT:
        return _b_stands_pat(m, line)
    if kind == T_MUCKS:
        return _b_mucks(m, line)
    if kind == T_CARRIED:
        return _b_carried(m, line)
    if kind == T_DECK:
        return _b_deck(m, line)
    if kind == T_RESHUFFLES:
        return _b_reshuffles(m, line)
    if kind == T_NOPLAY:
        return _b_noplay(m, line)
    if kind == T_PAROLE:
        return _b_parole(m, line)
    if kind == T_EVENT:
        return _b_event(m, line)
    if kind == T_SAID:
        return _b_said(m, line)
    if kind == T_SCORES:
        return _b_scores(m, line)
    if kind == T_SESSION:
        return _b_session(m, line)
    if kind == T_PROFILE:
        return _b_profile(m, line)
    if kind == T_OPTION:
        return _b_option(m, line)
    if kind == T_STANDING:
        return _b_standing(m, line)
    if kind == T_CARDS:
        return _b_cards(m, line)
    if kind == T_SESSION_END:
        return line  # its line, for session_end
    raise ValueError(f"no builder for the line kind {TERMINALS[kind]}: add its branch here")


# What a reduction builds: a left-recursive list (one Python list grows), or one of the blocks.
R_LIST: Final = 0
R_HAND: Final = 1
R_PREAMBLE: Final = 2
R_SESSION_END: Final = 3
RULE_KINDS: Final = {"seats": R_LIST, "body": R_LIST, "items": R_LIST, "standings": R_LIST, "hand": R_HAND,
                      "preamble": R_PREAMBLE, "session_end": R_SESSION_END}


def reduce_rule(kind: int, c: list[Any], file: str) -> object:
    """A block rule's value from its children's (``R_LIST`` is done in place by the loop)."""
    if kind == R_HAND:
        return build_hand(c, file)
    if kind == R_PREAMBLE:
        items: list[Any] = c[0]
        return new_model(Preamble, (items[0].line, tuple(items)))
    return new_model(SessionEnd, (c[0], tuple(c[1]) if len(c) > 1 else ()))

