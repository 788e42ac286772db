"""``audit explain``: a hand replayed step by step for a dispute, and what to do about it.

For each hand: every step with the stacks and the pot after it, what the rules allowed at that point (betting:
to call, min raise-to, max raise-to, whether raising was open; the draw: the cards the player may throw and the
draw limit), the findings at the step where they happened, the pots as built, what each player should have
received and what the log says they received, and the correction in plain words ("Beto owes Ana 3 chips").
For a session, the net corrections over all its hands.

The library part (``explain_file``, ``explain_result``, ``settle``) builds plain data; ``render_text``,
``render_json_lines`` and ``render_html`` turn it into a terminal listing, JSON Lines, or one self-contained
HTML page (inline CSS, Unicode suits, no network) in English or Spanish.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.errors import InputError
from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, Discard, Hand, Item, Muck, Preamble, ProfileLine, SessionLine, Show, StandPat, OptionLine,
)
from audit.parse import parse_block
from audit.pipeline import Audited, audit_blocks
from audit.profile import Profile, load_profile
from audit.read import RawBlock, read_blocks
from audit.replay import HandResult
from audit.textout import json_line, printable

POT = "the pot"
"""The party that stands for the pot in corrections (chips the log paid to nobody, or out of nothing).
Player names are one word, so this name (with a space) is never a player's."""

HOUSE = "the house"
"""The party that stands for the house in corrections (a rake the game does not allow)."""

PARTIES = (POT, HOUSE)

LANGS = ("en", "es")


# ---------------------------------------------------------------------------------------------------- settling
@dataclass(frozen=True)
class Transfer:
    """``payer`` owes ``payee`` ``chips`` (either may be ``POT`` or ``HOUSE``)."""

    payer: str
    payee: str
    chips: int

    def as_dict(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "chips": self.chips}


def settle(balances: Mapping[str, int]) -> list[Transfer]:
    """Pairwise transfers that settle ``balances`` (party → chips owed to it; negative: chips it owes).

    Greedy: the largest debtor pays the largest creditor as much as both allow, again and again; ties go to
    the party named first in ``balances``. The balances must sum to zero (``ValueError`` otherwise).
    """
    if sum(balances.values()) != 0:
        raise ValueError(f"balances do not sum to zero: {dict(balances)}")
    index = {name: i for i, name in enumerate(balances)}
    creditors = {p: a for p, a in balances.items() if a > 0}
    debtors = {p: -a for p, a in balances.items() if a < 0}
    out: list[Transfer] = []
    while creditors and debtors:
        payer = min(debtors, key=lambda p: (-debtors[p], index[p]))
        payee = min(creditors, key=lambda p: (-creditors[p], index[p]))
        chips = min(debtors[payer], creditors[payee])
        out.append(Transfer(payer, payee, chips))
        debtors[payer] -= chips
        creditors[payee] -= chips
        if not debtors[payer]:
            del debtors[payer]
        if not creditors[payee]:
            del creditors[payee]
    return out


@dataclass
class Settlement:
    """What each player should have received against what the log says, and how to put it right.

    ``difference``: player → should_receive − received (+: the player is owed; −: the player got too much).
    ``remainder``: the sum of the differences: chips the log paid to nobody (> 0) or created (< 0); it is put
    against ``party`` (``POT``, or ``HOUSE`` for a rake the game does not allow) so the transfers balance.
    ``rake_kept``: a rake the game allows, taken off the winners' due before comparing.
    """

    should_receive: dict[str, int]
    received: dict[str, int]
    difference: dict[str, int]
    remainder: int
    party: str
    rake_kept: int
    balances: dict[str, int]  # difference (non-zero only) plus the party's share of the remainder
    transfers: list[Transfer]
    unjudged: list[str] = field(default_factory=list)  # pots whose winner the log cannot show (taken as paid)

    def as_dict(self) -> dict[str, Any]:
        return {"difference": dict(self.difference), "corrections": [t.as_dict() for t in self.transfers],
                "remainder": {"chips": self.remainder, "party": self.party} if self.remainder else None,
                "rake_kept": self.rake_kept, "unjudged_pots": list(self.unjudged)}


def settle_result(result: HandResult) -> Settlement:
    """The settlement of one replayed hand.

    ``should_receive`` is the engine's, with two adjustments: a pot whose winner cannot be known (a site log
    where nobody's cards were shown) is taken as the log paid it; and where the game allows a rake, the house
    keeps exactly the rake the summary states: taken off the winners' due if the engine's awards did not net
    it, and what a pot paid short beyond it is owed to that pot's winners.
    """
    players = list(dict.fromkeys([*result.dealt_in, *result.should_receive, *result.received]))
    due = {p: result.should_receive.get(p, 0) for p in players}
    unjudged: list[str] = []
    for pot in result.pots:
        if not pot["winners"] and pot["eligible"]:
            unjudged.append(str(pot["name"]))
            for p, n in pot.get("collected", {}).items():
                due[p] = due.get(p, 0) + int(n)
    players = list(dict.fromkeys([*players, *due]))
    received = {p: result.received.get(p, 0) for p in players}
    due = {p: due.get(p, 0) for p in players}
    rake = result.rake
    rake_disallowed = any(f.rule == "RAKE" for f in result.findings)
    rake_kept = 0
    if rake > 0 and not rake_disallowed and not result.redeal:
        rake_kept = rake
        kept_by_engine = sum(result.contributions.values()) + result.hand.carried - sum(due.values())
        if rake > kept_by_engine:
            # the awards are gross: the rake comes off the winners' due, first off those the log paid short
            left = rake - max(0, kept_by_engine)
            for p in sorted(players, key=lambda q: -(due[q] - received[q])):
                take = min(left, max(0, due[p] - received[p]))
                due[p] -= take
                left -= take
            for p in sorted(players, key=lambda q: -due[q]):
                take = min(left, due[p])
                due[p] -= take
                left -= take
            rake_kept = rake - left
        elif kept_by_engine > rake:
            # the engine took every chip a pot paid short as rake; beyond the stated rake they are the winners'
            left = kept_by_engine - rake
            for pot in result.pots:
                short = min(left, int(pot.get("rake", 0)))
                if short <= 0 or not pot["winners"]:
                    continue
                winners = list(pot["winners"])
                share, odd = divmod(short, len(winners))
                for i, w in enumerate(winners):
                    due[w] = due.get(w, 0) + share + (1 if i < odd else 0)
                left -= short
    difference = {p: due[p] - received[p] for p in players}
    remainder = sum(difference.values())
    party = HOUSE if rake > 0 and rake_disallowed and remainder > 0 else POT
    balances = {p: d for p, d in difference.items() if d}
    if remainder:
        balances[party] = -remainder
    return Settlement(due, received, difference, remainder, party, rake_kept, balances, settle(balances),
                      unjudged)


# ---------------------------------------------------------------------------------------------------- the data
@dataclass
class HandExplanation:
    """One hand explained, as plain data (``as_dict`` is its JSON object)."""

    hand: str | None
    file: str
    session: str | None
    profile: str | None
    table: str = ""
    started_at: str = ""
    button: int = 0
    carried: int = 0
    seats: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    pots: list[dict[str, Any]] = field(default_factory=list)
    contributions: dict[str, int] = field(default_factory=dict)
    start_stacks: dict[str, int] = field(default_factory=dict)
    end_stacks: dict[str, int] = field(default_factory=dict)
    rake: int = 0
    redeal: bool = False
    settlement: Settlement | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # the hand could not be read or replayed

    def as_dict(self) -> dict[str, Any]:
        s = self.settlement
        out: dict[str, Any] = {
            "kind": "hand", "hand": self.hand, "file": self.file, "session": self.session, "profile": self.profile,
            "table": self.table, "started_at": self.started_at, "button": self.button, "carried": self.carried,
            "seats": self.seats, "steps": self.steps, "pots": self.pots,
            "should_receive": dict(s.should_receive) if s else {}, "received": dict(s.received) if s else {},
            "contributions": self.contributions, "start_stacks": self.start_stacks, "end_stacks": self.end_stacks,
            "rake": self.rake, "redeal": self.redeal, "findings": self.findings, "error": self.error,
        }
        if s is not None:
            out.update(s.as_dict())
        else:
            out.update({"difference": {}, "corrections": [], "remainder": None, "rake_kept": 0,
                        "unjudged_pots": []})
        return out


@dataclass
class SessionExplanation:
    """The net corrections over all the hands of one session (``as_dict``: its JSON object)."""

    name: str
    file: str
    hands: list[str]
    balances: dict[str, int]  # party → net chips owed to it over the session (sums to zero)
    transfers: list[Transfer]
    findings: list[dict[str, Any]] = field(default_factory=list)  # session-end findings (standings)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "session", "hand": None, "session": self.name, "file": self.file, "hands": self.hands,
                "difference": dict(self.balances), "corrections": [t.as_dict() for t in self.transfers],
                "findings": self.findings}


Explained = HandExplanation | SessionExplanation


def session_totals(name: str, file: str, hands: Sequence[HandExplanation],
                   findings: Sequence[Finding] = ()) -> SessionExplanation:
    """Net the corrections of ``hands`` (one session): per party, the sum of its balances, then settle."""
    net: dict[str, int] = {}
    for h in hands:
        if h.settlement is None:
            continue
        for p, d in h.settlement.balances.items():
            net[p] = net.get(p, 0) + d
    net = {p: d for p, d in net.items() if d}
    ids = [h.hand or "?" for h in hands]
    return SessionExplanation(name, file, ids, net, settle(net), [f.as_dict() for f in findings])


# ---------------------------------------------------------------------------------------------------- building
def explain_result(result: HandResult, profile: Profile | None = None) -> HandExplanation:
    """Explain one replayed hand (``result`` from ``replay(..., steps=True)``); ``profile`` gives the draw limit."""
    hand = result.hand
    steps = _build_steps(result, profile)
    _place_findings(steps, result.findings)
    pots = [{"name": p["name"], "amount": p["amount"], "eligible": list(p["eligible"]),
             "winners": list(p["winners"]), "awards": dict(p["awards"]), "collected": dict(p.get("collected", {})),
             "rake": int(p.get("rake", 0))}
            for p in result.pots]
    return HandExplanation(
        hand=hand.hand_id, file=hand.file, session=result.session, profile=result.profile, table=hand.table,
        started_at=hand.started_at, button=hand.button, carried=hand.carried, seats=_seats(result),
        steps=steps, pots=pots, contributions=dict(result.contributions), start_stacks=dict(result.start_stacks),
        end_stacks=dict(result.end_stacks), rake=result.rake, redeal=result.redeal,
        settlement=settle_result(result), findings=[f.as_dict() for f in result.findings])


def explain_file(path: str, profile: Profile | None = None, hand_id: str | None = None,
                 notices: list[str] | None = None) -> Iterator[Explained]:
    """Explain every hand of ``path`` in file order, each session's net corrections after its last hand.

    ``hand_id``: only that hand (and no session totals); ``InputError`` when the file has no such hand.
    ``notices``: collects what to tell the user on stderr (a command-line option the file overrode).
    """
    tracker = _ProfileTracker(profile or load_profile("home-open"))
    session_hands: list[HandExplanation] = []
    session_name: str | None = None
    session_file = ""
    found = False
    seen: list[str] = []

    def close(findings: Sequence[Finding] = ()) -> Iterator[Explained]:
        nonlocal session_hands, session_name
        if session_name is not None and session_hands and hand_id is None:
            yield session_totals(session_name, session_file, session_hands, findings)
        session_hands, session_name = [], None

    for audited in audit_blocks(tracker.watch(read_blocks(path)), profile, steps=True, notices=notices):
        if audited.result is None and audited.failure is None and not any(f.hand for f in audited.findings):
            if audited.findings and audited.session is not None and audited.session == session_name:
                yield from close(audited.findings)  # the session end block and its standings
            continue
        explained = _explain_audited(audited, tracker)
        seen.append(explained.hand or "?")
        if audited.session != session_name:
            yield from close()
        if audited.session is not None:
            session_name, session_file = audited.session, explained.file
            session_hands.append(explained)
        if hand_id is None or explained.hand == hand_id:
            found = True
            yield explained
    yield from close()
    if hand_id is not None and not found:
        listed = ", ".join(seen[:20]) + (" …" if len(seen) > 20 else "")
        raise InputError(f"{path}: no hand {hand_id!r} (the file has: {listed or 'no hands'})")


def _explain_audited(audited: Audited, tracker: _ProfileTracker) -> HandExplanation:
    if audited.result is not None:
        prof = tracker.profile if tracker.profile.name == audited.profile else _load_or_none(audited.profile)
        return explain_result(audited.result, prof)
    first = audited.findings[0] if audited.findings else None
    return HandExplanation(
        hand=first.hand if first else (audited.failure.hand_id if audited.failure else None),
        file=first.file if first else "", session=audited.session, profile=audited.profile,
        findings=[f.as_dict() for f in audited.findings], error=first.message if first else "unreadable")


def _load_or_none(name: str | None) -> Profile | None:
    try:
        return load_profile(name) if name else None
    except Exception:
        return None


class _ProfileTracker:
    """Follows the preamble blocks as the pipeline reads them, to know the profile (with its options) in force.

    The pipeline reports only the profile's name; the draw limit may come from an ``Option:`` line.
    """

    def __init__(self, default: Profile) -> None:
        self.default = default
        self.profile = default

    def watch(self, blocks: Iterable[RawBlock]) -> Iterator[RawBlock]:
        for block in blocks:
            if block.kind == "preamble":
                try:
                    self._apply(parse_block(block))
                except Exception:  # the pipeline reports a bad preamble itself
                    pass
            yield block

    def _apply(self, parsed: object) -> None:
        if type(parsed) is not Preamble:
            return
        profile = self.profile
        for item in parsed.items:
            if type(item) is SessionLine:
                profile = self.default
            elif type(item) is ProfileLine:
                profile = load_profile(item.name)
            elif type(item) is OptionLine:
                profile = profile.with_options([(item.name, item.value)])
        self.profile = profile


def _seats(result: HandResult) -> list[dict[str, Any]]:
    hand = result.hand
    cards = _final_cards(hand)
    folded = {i.player for i in hand.body if type(i) is Action and i.kind == "fold"}
    mucked = {i.player for i in hand.body if type(i) is Muck}
    out: list[dict[str, Any]] = []
    for s in sorted(hand.seats, key=lambda x: x.seat):
        out.append({"seat": s.seat, "player": s.player, "chips": s.chips, "sitting_out": s.sitting_out,
                    "dealt_in": s.player in result.dealt_in, "button": s.seat == hand.button,
                    "cards": list(cards.get(s.player, ())), "folded": s.player in folded,
                    "mucked": s.player in mucked, "end": result.end_stacks.get(s.player, s.chips)})
    return out


def _final_cards(hand: Hand) -> dict[str, tuple[str, ...]]:
    holding: dict[str, tuple[str, ...]] = {}
    for item in hand.body:
        _follow_cards(holding, {}, item)
    return holding


def _follow_cards(holding: dict[str, tuple[str, ...]], pending: dict[str, Discard], item: Item) -> None:
    """Keep ``holding`` (each player's cards) up to date through one item of the hand."""
    t = type(item)
    if t is Dealt:
        assert isinstance(item, Dealt)
        groups = [c for g in item.groups for c in g]
        disc = pending.pop(item.player, None)
        if item.player not in holding or disc is None:
            if item.player not in holding:
                holding[item.player] = tuple(groups)
            elif len(item.groups) == 2 or len(groups) == 5:
                holding[item.player] = tuple(groups)
            return
        if len(item.groups) >= 2 or len(groups) == 5:
            holding[item.player] = tuple(groups)
        else:
            thrown = set(disc.cards or ())
            holding[item.player] = tuple(c for c in holding[item.player] if c not in thrown) + tuple(groups)
    elif t is Discard:
        assert isinstance(item, Discard)
        pending[item.player] = item
    elif t is Show:
        assert isinstance(item, Show)
        holding[item.player] = tuple(item.cards)


def _event(item: Item | None) -> dict[str, Any] | None:
    """The log line behind a step as data: ``type`` (the model's class, lower case) and its fields."""
    if item is None:
        return None
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in item._asdict().items() if k != "line"}
    if type(item) is Dealt:
        data["groups"] = [list(g) for g in item.groups]
    return {"type": type(item).__name__.lower(), **data}


def _build_steps(result: HandResult, profile: Profile | None) -> list[dict[str, Any]]:
    """The engine's steps, with the log line as data, the pot still in the middle (less what was collected),
    and, in the draw, what the player could throw and the draw limit."""
    hand = result.hand
    by_line: dict[int, Item] = {}
    for item in hand.body:
        by_line.setdefault(item.line, item)
    seats_step: dict[str, Any] = {
        "line": hand.line, "street": "seats", "text": "Seats", "event": {"type": "seats"},
        "stacks": dict(result.start_stacks), "pot": hand.carried, "legal": None, "draw": None, "findings": []}
    steps = [seats_step]
    holding: dict[str, tuple[str, ...]] = {}
    pending: dict[str, Discard] = {}
    collected = 0
    body = iter(hand.body)
    done_lines: set[int] = set()

    def advance_to(line: int) -> dict[str, Any] | None:
        """Follow the body up to ``line``; the draw allowance of the item on that line (before it)."""
        nonlocal collected
        draw: dict[str, Any] | None = None
        for item in body:
            if item.line == line and isinstance(item, (Discard, StandPat)):
                draw = _draw_allowance(profile, holding.get(item.player))
            if isinstance(item, Collect):
                collected += item.amount
            _follow_cards(holding, pending, item)
            if item.line >= line:
                break
        return draw

    draw_at: dict[int, dict[str, Any] | None] = {}
    previous: dict[str, int] = dict(result.start_stacks)
    for s in result.steps or []:
        line = s["line"]
        if line not in done_lines:
            draw_at[line] = advance_to(line)
            done_lines.add(line)
        step = dict(s)
        event = _event(by_line.get(line))
        step["event"] = event
        player = event.get("player") if event else None
        if s.get("legal") and player in previous:
            # the stack before the action: raising is possible only with more chips than the call
            step["legal"] = {**s["legal"], "stack_before": previous[player]}
        previous = dict(s["stacks"])
        step["pot"] = s["pot"] - collected
        step["draw"] = draw_at.get(line)
        step["findings"] = list(s["findings"])
        steps.append(step)
    return steps


def _draw_allowance(profile: Profile | None, hand: tuple[str, ...] | None) -> dict[str, Any]:
    limit = profile.draw_limit if profile is not None else None
    with_ace = limit + 1 if profile is not None and profile.draw_limit_ace and limit is not None else None
    return {"may_discard": list(hand) if hand is not None else None, "limit": limit, "limit_keeping_ace": with_ace}


def _finding_key(f: Mapping[str, Any]) -> tuple[Any, ...]:
    return (f.get("line"), f.get("rule"), f.get("player"), f.get("message"))


def _place_findings(steps: list[dict[str, Any]], findings: Sequence[Finding]) -> None:
    """Findings the engine did not attach to a step (the settlement's, the session's) go to the step of their
    line, else to the last step before it (the seats step for a seat line)."""
    placed: dict[tuple[Any, ...], int] = {}
    for s in steps:
        for f in s["findings"]:
            k = _finding_key(f)
            placed[k] = placed.get(k, 0) + 1
    for finding in findings:
        d = finding.as_dict()
        k = _finding_key(d)
        if placed.get(k):
            placed[k] -= 1
            continue
        target = steps[0]
        for s in steps:
            if s["line"] <= finding.line:
                target = s
            if s["line"] == finding.line:
                break
        target["findings"].append(d)


# ---------------------------------------------------------------------------------------------------- words
LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Hand explanation", "hand": "Hand", "hands": "Hands", "table": "Table", "button": "button",
        "profile": "Profile", "file": "File", "player": "Player", "pot_col": "Pot", "session": "Session", "seats": "Seats", "steps": "Step by step",
        "line": "line", "pot": "pot", "stacks": "stacks after", "allowed": "allowed",
        "to_call": "to call {n}", "min_raise": "min raise-to {n}", "max_raise": "max raise-to {n}",
        "raise_open": "raising open", "raise_closed": "raising closed (the betting was not reopened)",
        "raise_no_chips": "no raise possible: calling takes every chip",
        "raise_all_in": "a raise only all-in, to {n} (short of a full raise)",
        "draw_may": "may discard up to {n} of", "draw_may_ace": "may discard up to {n} ({m} keeping an ace) of",
        "draw_limit": "may discard up to {n}", "draw_limit_ace": "may discard up to {n} ({m} keeping an ace)",
        "pots": "Pots", "amount": "Amount", "eligible": "Eligible", "winners": "Winners", "awards": "Awards",
        "collected": "Collected (log)", "players": "Players", "start": "Start", "put_in": "Put in",
        "should": "Should receive", "received": "Received (log)", "difference": "Difference",
        "end": "End (log)", "diff_legend": "+ the player is owed chips, − the player received too many",
        "corrections": "Corrections", "owes": "{a} owes {b} {chips}.",
        "pot_owes": "The pot owes {b} {chips}: the log paid them to nobody.",
        "owes_pot": "{a} owes the pot {chips}: the log paid out chips that were never in it.",
        "house_owes": "The house owes {b} {chips}: it kept a rake this game does not allow.",
        "owes_house": "{a} owes the house {chips}.",
        "nothing": "Nothing to correct: everyone received what the rules give them.",
        "lost": "The log paid out {chips} less than the pot held.",
        "created": "The log paid out {chips} more than the pot held: chips were created.",
        "rake_kept": "The house kept a rake of {chips}, as this game allows.",
        "unjudged": "{pot}: nobody's cards were shown, so its winner cannot be checked; taken as the log paid it.",
        "findings": "Findings", "no_findings": "No rule was broken.", "expected": "expected",
        "actual": "log", "folded": "folded", "mucked": "mucked", "sitting_out": "sitting out",
        "session_net": "Session {name}: net corrections over {n} hands",
        "session_sum": "Net per player (sums to zero)", "unreadable": "This hand could not be explained.",
        "no_pots": "No pot was built (the hand was redealt, or not played for chips).",
        "carried": "pot carried over {n}", "due": "due {a} · got {b}", "nobody": "nobody",
        "violation": "violation", "warning": "warning", "error": "error", "total": "Total",
        "n_findings": "{n} findings", "one_finding": "1 finding", "chip": "chip", "chips": "chips",
        "jump": "Hands in this file", "lang": "en", "the_pot": "the pot", "the_house": "the house",
    },
    "es": {
        "title": "Explicación de la mano", "hand": "Mano", "hands": "Manos", "table": "Mesa", "button": "botón",
        "profile": "Perfil", "file": "Archivo", "player": "Jugador", "pot_col": "Bote", "session": "Sesión", "seats": "Asientos", "steps": "Paso a paso",
        "line": "línea", "pot": "bote", "stacks": "fichas después", "allowed": "permitido",
        "to_call": "para igualar {n}", "min_raise": "subida mínima hasta {n}", "max_raise": "subida máxima hasta {n}",
        "raise_open": "se puede subir", "raise_closed": "no se puede subir (la apuesta no se reabrió)",
        "raise_no_chips": "no puede subir: igualar le cuesta todas sus fichas",
        "raise_all_in": "solo puede subir all-in, hasta {n} (menos que una subida completa)",
        "draw_may": "puede descartar hasta {n} de", "draw_may_ace": "puede descartar hasta {n} ({m} si guarda un as) de",
        "draw_limit": "puede descartar hasta {n}", "draw_limit_ace": "puede descartar hasta {n} ({m} si guarda un as)",
        "pots": "Botes", "amount": "Cantidad", "eligible": "Pueden ganarlo", "winners": "Ganadores",
        "awards": "Reparto", "collected": "Cobrado (registro)", "players": "Jugadores", "start": "Al empezar",
        "put_in": "Puso", "should": "Debe recibir", "received": "Recibió (registro)", "difference": "Diferencia",
        "end": "Al terminar (registro)", "diff_legend": "+ se le deben fichas, − recibió de más",
        "corrections": "Correcciones", "owes": "{a} debe {chips} a {b}.",
        "pot_owes": "El bote debe {chips} a {b}: el registro no se las pagó a nadie.",
        "owes_pot": "{a} debe devolver {chips} al bote: el registro pagó fichas que nunca estuvieron en él.",
        "house_owes": "La casa debe {chips} a {b}: se quedó una comisión que esta partida no permite.",
        "owes_house": "{a} debe {chips} a la casa.",
        "nothing": "Nada que corregir: cada jugador recibió lo que le corresponde.",
        "lost": "El registro pagó {chips} menos de lo que había en el bote.",
        "created": "El registro pagó {chips} más de lo que había en el bote: se crearon fichas.",
        "rake_kept": "La casa se quedó {chips} de comisión, como permite esta partida.",
        "unjudged": "{pot}: no se enseñaron las cartas, así que no se puede comprobar quién lo ganó; se toma como lo pagó el registro.",
        "findings": "Incidencias", "no_findings": "No se incumplió ninguna regla.", "expected": "esperado",
        "actual": "registro", "folded": "se retiró", "mucked": "no enseñó", "sitting_out": "no juega",
        "session_net": "Sesión {name}: correcciones netas de {n} manos",
        "session_sum": "Neto por jugador (suma cero)", "unreadable": "Esta mano no se pudo explicar.",
        "no_pots": "No se formó bote (la mano se repartió de nuevo, o no se jugaba con fichas).",
        "carried": "bote arrastrado {n}", "due": "le toca {a} · recibió {b}", "nobody": "nadie",
        "violation": "infracción", "warning": "aviso", "error": "error", "total": "Total",
        "n_findings": "{n} incidencias", "one_finding": "1 incidencia", "chip": "ficha", "chips": "fichas",
        "jump": "Manos de este archivo", "lang": "es", "the_pot": "el bote", "the_house": "la casa",
    },
}

STREETS: dict[str, dict[str, str]] = {
    "en": {"seats": "Seats", "forced bets": "Forced bets", "dealing": "Dealing",
           "first betting round": "First betting round", "draw": "Draw",
           "second betting round": "Second betting round", "show down": "Showdown", "summary": "Summary",
           "redeal": "Redeal"},
    "es": {"seats": "Asientos", "forced bets": "Apuestas obligatorias", "dealing": "Reparto",
           "first betting round": "Primera ronda de apuestas", "draw": "Descarte",
           "second betting round": "Segunda ronda de apuestas", "show down": "Enseñar las cartas",
           "summary": "Resumen", "redeal": "Se reparte de nuevo"},
}

MARKERS = {"deal": "dealing", "first": "first betting round", "draw": "draw", "second": "second betting round",
           "showdown": "show down", "summary": "summary", "redeal": "redeal"}

POSTS = {
    "en": {"ante": "the ante", "small": "small blind", "big": "big blind", "over": "over blind",
           "live": "live blind", "dead": "dead blind", "both": "small and big blind"},
    "es": {"ante": "el ante", "small": "ciega pequeña", "big": "ciega grande", "over": "sobreciega",
           "live": "ciega viva", "dead": "ciega muerta", "both": "ciega pequeña y grande"},
}

SENTENCES: dict[str, dict[str, str]] = {
    "en": {"post": "{p} posts {what} {n}", "waits": "{p} waits for the over blind", "sits-out": "{p} sits out",
           "deck": "Deck", "dealt": "{p} is dealt", "keeps": "{p} keeps", "gets": "and gets", "draws": "{p} gets",
           "fold": "{p} folds", "check": "{p} checks", "call": "{p} calls {n}", "bet": "{p} bets {n}",
           "raise": "{p} raises {n} to {to}", "all_in": " and is all-in", "timed_out": " (timed out)",
           "offer": "{p} offers parole", "accept": "{p} accepts parole", "decline": "{p} declines parole",
           "discard": "{p} discards {n}", "stand": "{p} stands pat", "reshuffle": "The dealer reshuffles",
           "show": "{p} shows", "muck": "{p} mucks", "collect": "{p} collects {n} from the {pot}",
           "uncalled": "Uncalled bet of {n} returned to {p}", "score": "{p} scores {n}",
           "seats": "Seats and stacks", "took": " (took {s}s)"},
    "es": {"post": "{p} pone {what} {n}", "waits": "{p} espera la sobreciega", "sits-out": "{p} no juega esta mano",
           "deck": "Baraja", "dealt": "{p} recibe", "keeps": "{p} se queda", "gets": "y recibe", "draws": "{p} recibe",
           "fold": "{p} se retira", "check": "{p} pasa", "call": "{p} iguala {n}", "bet": "{p} apuesta {n}",
           "raise": "{p} sube {n} hasta {to}", "all_in": " y va all-in", "timed_out": " (se le acabó el tiempo)",
           "offer": "{p} ofrece parole", "accept": "{p} acepta la parole", "decline": "{p} rechaza la parole",
           "discard": "{p} descarta {n}", "stand": "{p} va servido", "reshuffle": "El repartidor vuelve a barajar",
           "show": "{p} enseña", "muck": "{p} tira sus cartas sin enseñarlas",
           "collect": "{p} cobra {n} del {pot}", "uncalled": "Se devuelven a {p} {n} no igualadas",
           "score": "{p} suma {n}", "seats": "Asientos y fichas", "took": " (tardó {s} s)"},
}


def label(lang: str, key: str, **kw: Any) -> str:
    """A fixed label in ``lang`` (``en`` or ``es``), formatted with ``kw``."""
    text = LABELS.get(lang, LABELS["en"]).get(key) or LABELS["en"][key]
    return text.format(**kw) if kw else text


def chips(n: int, lang: str) -> str:
    """``3 chips`` / ``1 ficha``."""
    return f"{n} {label(lang, 'chip' if abs(n) == 1 else 'chips')}"


def pot_name(name: str, lang: str) -> str:
    """``main`` → Main pot / Bote principal; ``side-2`` → Side pot 2 / Bote lateral 2."""
    es = lang == "es"
    if name == "pot":
        return "Bote" if es else "Pot"
    if name == "main":
        return "Bote principal" if es else "Main pot"
    if name.startswith("side-"):
        return f"{'Bote lateral' if es else 'Side pot'} {name[5:]}"
    if name == "side":
        return "Bote lateral" if es else "Side pot"
    if name == "parole":
        return "bote (parole)" if es else "pot (parole)"
    return name


def party_name(name: str, lang: str) -> str:
    if name == POT:
        return label(lang, "the_pot")
    if name == HOUSE:
        return label(lang, "the_house")
    return name


def street_name(street: str, lang: str) -> str:
    return STREETS.get(lang, STREETS["en"]).get(street, street)


def correction_sentence(t: Transfer, lang: str) -> str:
    """One transfer in plain words."""
    c = chips(t.chips, lang)
    if t.payer == POT:
        return label(lang, "pot_owes", b=t.payee, chips=c)
    if t.payer == HOUSE:
        return label(lang, "house_owes", b=t.payee, chips=c)
    if t.payee == POT:
        return label(lang, "owes_pot", a=t.payer, chips=c)
    if t.payee == HOUSE:
        return label(lang, "owes_house", a=t.payer, chips=c)
    return label(lang, "owes", a=t.payer, b=t.payee, chips=c)


def settlement_notes(s: Settlement, lang: str) -> list[str]:
    """The plain statements that go with the transfers: rake kept, chips lost or created by the log."""
    notes: list[str] = []
    for name in s.unjudged:
        notes.append(label(lang, "unjudged", pot=pot_name(name, lang)))
    if s.rake_kept:
        notes.append(label(lang, "rake_kept", chips=chips(s.rake_kept, lang)))
    if s.remainder > 0:
        notes.append(label(lang, "lost", chips=chips(s.remainder, lang)))
    elif s.remainder < 0:
        notes.append(label(lang, "created", chips=chips(-s.remainder, lang)))
    return notes


Segment = str | list[str]
"""A piece of a step's description: words, or a list of cards."""


def describe(step: Mapping[str, Any], lang: str) -> list[Segment]:
    """A step in words (``lang``) with its cards as card lists; falls back to the engine's English text."""
    ev = step.get("event") or {}
    w = SENTENCES.get(lang, SENTENCES["en"])
    kind = ev.get("type")
    p = ev.get("player", "")
    took = w["took"].format(s=format(ev["took"], "g")) if ev.get("took") is not None else ""
    if kind == "seats":
        return [w["seats"]]
    if kind == "post":
        what = POSTS.get(lang, POSTS["en"]).get(ev["kind"], ev["kind"])
        return [w["post"].format(p=p, what=what, n=ev["amount"]) + (w["all_in"] if ev.get("all_in") else "")]
    if kind == "noplay":
        return [w.get(ev["kind"], "{p}").format(p=p)]
    if kind == "marker":
        return [street_name(MARKERS.get(ev["street"], ev["street"]), lang)]
    if kind == "deckline":
        return [w["deck"], list(ev["cards"])]
    if kind == "dealt":
        groups = [list(g) for g in ev["groups"]]
        if step.get("street") in ("dealing", "forced bets"):
            return [w["dealt"].format(p=p), [c for g in groups for c in g]]
        if len(groups) >= 2:
            return [w["keeps"].format(p=p), groups[0], w["gets"], groups[1]]
        return [w["draws"].format(p=p), groups[0] if groups else []]
    if kind == "action":
        k = ev["kind"]
        text = w.get(k, "{p} " + k).format(p=p, n=ev["amount"], to=ev.get("to", 0))
        if ev.get("all_in"):
            text += w["all_in"]
        if ev.get("timed_out"):
            text += w["timed_out"]
        return [text + took]
    if kind == "parole":
        return [w.get(ev["kind"], "{p}").format(p=p) + took]
    if kind == "discard":
        out: list[Segment] = [w["discard"].format(p=p, n=ev["count"]) + took]
        if ev.get("cards"):
            out.append(list(ev["cards"]))
        return out
    if kind == "standpat":
        return [w["stand"].format(p=p) + (w["timed_out"] if ev.get("timed_out") else "") + took]
    if kind == "reshuffle":
        return [w["reshuffle"], list(ev["cards"])]
    if kind == "show":
        out = [w["show"].format(p=p), list(ev["cards"])]
        if ev.get("description"):
            out.append(f"({ev['description']})")
        return out
    if kind == "muck":
        return [w["muck"].format(p=p)]
    if kind == "collect":
        return [w["collect"].format(p=p, n=ev["amount"], pot=pot_name(ev["pot"], lang).lower())]
    if kind == "uncalled":
        return [w["uncalled"].format(p=p, n=chips(ev["amount"], lang) if lang == "es" else ev["amount"])]
    if kind == "score":
        return [w["score"].format(p=p, n=ev["points"])]
    return [str(step.get("text", ""))]


def legal_words(step: Mapping[str, Any], lang: str) -> str:
    """What the rules allowed before this step, in words ('' when there is nothing to say)."""
    legal = step.get("legal")
    parts: list[str] = []
    if legal:
        to_call = int(legal.get("to_call", 0))
        parts.append(label(lang, "to_call", n=to_call))
        stack_before = legal.get("stack_before")
        no_chips = stack_before is not None and int(stack_before) <= to_call
        if no_chips:
            parts.append(label(lang, "raise_no_chips"))
        else:
            lo, hi = legal.get("min_raise_to"), legal.get("max_raise_to")
            if lo is not None and hi is not None and int(hi) < int(lo) and legal.get("may_raise"):
                parts.append(label(lang, "raise_all_in", n=hi))
            else:
                parts.append(label(lang, "min_raise", n=lo))
                parts.append(label(lang, "max_raise", n=hi))
                parts.append(label(lang, "raise_open" if legal.get("may_raise") else "raise_closed"))
    draw = step.get("draw")
    if draw and draw.get("limit") is not None:
        n, m = draw["limit"], draw.get("limit_keeping_ace")
        cards = draw.get("may_discard")
        key = ("draw_may" if cards else "draw_limit") + ("_ace" if m else "")
        parts.append(label(lang, key, n=n, m=m) + (" " + " ".join(cards) if cards else ""))
    return " · ".join(parts)


# ---------------------------------------------------------------------------------------------------- text
def render_text(items: Iterable[Explained], lang: str = "en") -> Iterator[str]:
    """A readable listing for a terminal, one chunk per hand or session."""
    for item in items:
        if isinstance(item, SessionExplanation):
            yield printable(_session_text(item, lang), newlines=True)
        else:
            yield printable(_hand_text(item, lang), newlines=True)


def _segments_text(segs: Sequence[Segment]) -> str:
    return " ".join(f"[{' '.join(s)}]" if isinstance(s, list) else s for s in segs)


def _hand_text(h: HandExplanation, lang: str) -> str:
    out: list[str] = []
    head = f"{label(lang, 'hand')} #{h.hand or '?'}"
    if h.table:
        head += f" · {label(lang, 'table')} '{h.table}'"
    if h.started_at:
        head += f" · {h.started_at}"
    out.append(head)
    out.append(f"  {label(lang, 'file')}: {h.file}" + (f" · {label(lang, 'session')}: {h.session}" if h.session else "")
               + (f" · {label(lang, 'profile')}: {h.profile}" if h.profile else ""))
    if h.error is not None:
        out.append(f"  {label(lang, 'unreadable')}")
        for f in h.findings:
            out.append(f"  !! {label(lang, 'line')} {f['line']} {f['rule']}: {f['message']}")
        return "\n".join(out) + "\n"
    seat_words = []
    for seat in h.seats:
        extra = f" ({label(lang, 'button')})" if seat["button"] else ""
        extra += f" ({label(lang, 'sitting_out')})" if not seat["dealt_in"] else ""
        seat_words.append(f"{seat['seat']}: {seat['player']} {seat['chips']}{extra}")
    out.append(f"  {label(lang, 'seats')}: " + " · ".join(seat_words)
               + (f" · {label(lang, 'carried', n=h.carried)}" if h.carried else ""))
    out.append("")
    out.append(f"{label(lang, 'steps')}")
    street = None
    for step in h.steps:
        if step["street"] != street:
            street = step["street"]
            out.append(f"  -- {street_name(street, lang)} --")
        out.append(f"  {step['line']:>5}  {_segments_text(describe(step, lang))}")
        stacks = ", ".join(f"{p} {n}" for p, n in step["stacks"].items())
        out.append(f"         {label(lang, 'pot')} {step['pot']} · {label(lang, 'stacks')}: {stacks}")
        legal = legal_words(step, lang)
        if legal:
            out.append(f"         {label(lang, 'allowed')}: {legal}")
        for f in step["findings"]:
            out.append(f"         !! {f['rule']} ({label(lang, f['severity'])}): {f['message']}")
    out.append("")
    out.append(label(lang, "pots"))
    if not h.pots:
        out.append(f"  {label(lang, 'no_pots')}")
    for pot in h.pots:
        awards = ", ".join(f"{q} {n}" for q, n in pot["awards"].items()) or label(lang, "nobody")
        got = ", ".join(f"{q} {n}" for q, n in pot["collected"].items()) or "-"
        out.append(f"  {pot_name(pot['name'], lang)} {pot['amount']}: {label(lang, 'eligible').lower()} "
                   f"{', '.join(pot['eligible'])}; {label(lang, 'winners').lower()} "
                   f"{', '.join(pot['winners']) or label(lang, 'nobody')}; {label(lang, 'awards').lower()} "
                   f"{awards}; {label(lang, 'collected').lower()} {got}")
    s = h.settlement
    if s is not None:
        out.append("")
        cols = [label(lang, k) for k in ("player", "start", "put_in", "should", "received", "difference")]
        width = max(len(p) for p in [*s.should_receive, cols[0]])
        out.append(f"  {cols[0]:<{width}}  " + "  ".join(f"{c:>{len(c)}}" for c in cols[1:]))
        for p in s.should_receive:
            vals = [h.start_stacks.get(p, 0), h.contributions.get(p, 0), s.should_receive[p], s.received[p]]
            d = s.difference[p]
            cells = [f"{v:>{len(c)}}" for v, c in zip(vals, cols[1:])]
            cells.append(f"{(f'{d:+d}' if d else '0'):>{len(cols[5])}}")
            out.append(f"  {p:<{width}}  " + "  ".join(cells))
        out.append("")
        out.append(label(lang, "corrections"))
        for note in settlement_notes(s, lang):
            out.append(f"  {note}")
        if not s.transfers:
            out.append(f"  {label(lang, 'nothing')}")
        for t in s.transfers:
            out.append(f"  {correction_sentence(t, lang)}")
    out.append("")
    out.append(label(lang, "findings"))
    if not h.findings:
        out.append(f"  {label(lang, 'no_findings')}")
    for f in h.findings:
        sev = label(lang, f["severity"])
        out.append(f"  {label(lang, 'line')} {f['line']:>4}  {f['rule']} ({sev}): {f['message']}")
    return "\n".join(out) + "\n"


def _session_text(s: SessionExplanation, lang: str) -> str:
    out = [label(lang, "session_net", name=s.name, n=len(s.hands))]
    if s.balances:
        out.append("  " + label(lang, "session_sum") + ": "
                   + ", ".join(f"{party_name(p, lang)} {d:+d}" for p, d in s.balances.items()))
    if not s.transfers:
        out.append(f"  {label(lang, 'nothing')}")
    for t in s.transfers:
        out.append(f"  {correction_sentence(t, lang)}")
    for f in s.findings:
        out.append(f"  !! {label(lang, 'line')} {f['line']} {f['rule']}: {f['message']}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------------- JSON
def render_json_lines(items: Iterable[Explained]) -> Iterator[str]:
    """One JSON object per hand (``kind: hand``) and per session's net corrections (``kind: session``)."""
    for item in items:
        yield json_line(item.as_dict()) + "\n"


# ---------------------------------------------------------------------------------------------------- HTML
SUITS = {"s": ("♠", "black", "spades", "picas"), "h": ("♥", "red", "hearts", "corazones"),
         "d": ("♦", "red", "diamonds", "diamantes"), "c": ("♣", "black", "clubs", "tréboles")}


def card_html(card: str, lang: str = "en") -> str:
    """A card as a small inline box: rank and suit symbol, hearts and diamonds red, clubs and spades black."""
    if card == "Jk":
        return '<span class="card joker" title="Joker">★</span>'
    rank, suit = card[:-1], card[-1:]
    info = SUITS.get(suit)
    if info is None or rank not in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "A"):
        return f'<span class="card bad">{_e(card)}</span>'
    shown = "10" if rank == "T" else rank
    name = info[2] if lang != "es" else info[3]
    # U+FE0E asks for the text (not emoji) form of the suit, so the colour is ours.
    return (f'<span class="card {info[1]}" title="{_e(shown)} {name}">{_e(shown)}'
            f'<span class="suit">{info[0]}\ufe0e</span></span>')


def cards_html(cards: Sequence[str], lang: str = "en") -> str:
    return '<span class="cards">' + "".join(card_html(c, lang) for c in cards) + "</span>"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _segments_html(segs: Sequence[Segment], lang: str) -> str:
    return " ".join(cards_html(s, lang) if isinstance(s, list) else _e(s) for s in segs)


CSS = """
:root{--felt:#1f6b43;--felt-edge:#5a3a1e;--ink:#1b1b1b;--muted:#5f6368;--bad:#b3261e;--bad-bg:#fdecea;
--ok:#1e7b34;--card:#fff;--line:#e3e3e3;--accent:#0b57d0}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);
background:#f4f5f7}
main{max-width:920px;margin:0 auto;padding:12px}
h1{font-size:1.25rem;margin:.3rem 0 .2rem}
h2{font-size:1.15rem;margin:0 0 .2rem}
h3{font-size:1rem;margin:1.1rem 0 .4rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
.meta{color:var(--muted);font-size:.85rem;margin:0 0 .5rem;overflow-wrap:anywhere}
section.hand,section.session,nav.hands{background:#fff;border-radius:12px;padding:12px;margin:12px 0;
box-shadow:0 1px 3px rgba(0,0,0,.12)}
nav.hands ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px}
nav.hands a{display:inline-block;padding:4px 10px;border-radius:14px;background:#eef2f7;color:var(--accent);
text-decoration:none;font-size:.85rem}
nav.hands a.has-findings{background:var(--bad-bg);color:var(--bad)}
.verdict{border-radius:10px;padding:10px 12px;margin:.5rem 0;background:#eaf5ec;border:1px solid #b7dcc0}
.verdict.bad{background:var(--bad-bg);border-color:#f2b8b5}
.verdict ul{margin:.2rem 0;padding-left:1.1rem}
.verdict p{margin:.2rem 0}
.verdict .note{margin:.2rem 0;font-weight:600}
.correction{font-weight:600}
.badge{display:inline-block;font-size:.75rem;padding:1px 7px;border-radius:10px;background:#e8eaed;color:#333;
vertical-align:middle}
.badge.bad{background:var(--bad);color:#fff}
.table-wrap{position:relative;width:100%;max-width:640px;margin:10px auto 4px;aspect-ratio:1/1.02}
@media (min-width:600px){.table-wrap{aspect-ratio:16/10}}
.felt{position:absolute;left:11%;right:11%;top:15%;bottom:15%;border-radius:50%/50%;
background:radial-gradient(ellipse at center,#2c8a58 0%,var(--felt) 70%);border:7px solid var(--felt-edge);
box-shadow:inset 0 0 18px rgba(0,0,0,.45)}
.pot-label{position:absolute;left:50%;top:41%;transform:translate(-50%,-50%);width:32%;color:#fff;
text-align:center;line-height:1.2}
.pot-label .pot-total{font-size:1.2rem;font-weight:700}
.pot-label .pot-line{font-size:.72rem;opacity:.92;overflow-wrap:anywhere}
.seat{position:absolute;transform:translate(-50%,-50%);min-width:27%;max-width:48%;white-space:nowrap;background:#fff;
border:1px solid #c9ccd1;border-radius:10px;padding:4px 5px;text-align:center;font-size:.78rem;line-height:1.25;
box-shadow:0 1px 2px rgba(0,0,0,.2)}
.seat .name{font-weight:700;overflow-wrap:anywhere}
.seat .stack{color:var(--muted)}
.seat.out{opacity:.55}
.seat.folded .cards{opacity:.45}
.seat.owed{border:2px solid var(--bad)}
.seat .diff{font-weight:700;color:var(--bad)}
.seat .dealer{display:inline-block;width:1.3em;height:1.3em;line-height:1.3em;border-radius:50%;background:#ffd54f;
color:#000;font-size:.7rem;font-weight:700;margin-left:3px}
.cards{display:inline-flex;flex-wrap:wrap;gap:2px;vertical-align:middle;justify-content:center}
.card{display:inline-block;min-width:1.75em;padding:1px 2px;border:1px solid #9aa0a6;border-radius:4px;
background:var(--card);font-weight:700;font-size:.85rem;line-height:1.2;text-align:center;white-space:nowrap;
font-family:"DejaVu Sans",system-ui,sans-serif}
.seat .cards{flex-wrap:nowrap;gap:1px}
.seat .card{min-width:0;font-size:.66rem;padding:0 1px;border-radius:3px}
.card.red{color:#c62828}
.card.black{color:#111}
.card.joker{color:#6a1b9a}
.card.bad{color:var(--muted);border-style:dashed}
.card .suit{margin-left:1px}
ol.steps{list-style:none;margin:0;padding:0}
ol.steps li{padding:6px 8px;border-bottom:1px solid var(--line)}
ol.steps li.street{background:#eef2f7;font-weight:700;font-size:.85rem;border-radius:6px;margin-top:8px;
border-bottom:none;text-transform:uppercase;letter-spacing:.02em;color:#33415c}
ol.steps li.flagged{background:var(--bad-bg);border-left:4px solid var(--bad)}
.step-head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.ln{color:var(--muted);font-size:.75rem;min-width:2.6em;font-variant-numeric:tabular-nums}
.what{flex:1 1 12em}
.pot-after{font-size:.8rem;color:#33415c;background:#eef2f7;border-radius:8px;padding:0 6px;white-space:nowrap}
.stacks,.legal{font-size:.78rem;color:var(--muted);margin-left:3.2em;overflow-wrap:anywhere}
.legal{color:#33415c}
.legal b{font-weight:600}
.stacks .moved{color:var(--ink);font-weight:600}
.finding{margin:5px 0 2px 3.2em;padding:6px 8px;border-radius:6px;background:#fff;border:1px solid #f2b8b5;
font-size:.85rem}
section.session .finding,section.hand>.finding{margin-left:0}
.finding .rule{font-weight:700;color:var(--bad)}
.finding .ea{display:block;color:var(--muted);font-size:.78rem}
.scroll{overflow-x:auto}
table.data{border-collapse:collapse;width:100%;font-size:.85rem}
table.data th,table.data td{padding:5px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.data th{background:#f1f3f4;font-weight:600}
table.data td.num{text-align:right;font-variant-numeric:tabular-nums}
td.pos{color:var(--bad);font-weight:700}
td.neg{color:var(--bad);font-weight:700}
td.mismatch{background:var(--bad-bg)}
@media (max-width:600px){
 table.stack thead{display:none}
 table.stack tr{display:block;border:1px solid var(--line);border-radius:8px;margin:0 0 8px;padding:4px 6px}
 table.stack td{display:flex;justify-content:space-between;gap:10px;border:none;padding:3px 0;text-align:right}
 table.stack td::before{content:attr(data-label);font-weight:600;color:var(--muted);text-align:left}
 table.compact{font-size:.78rem}
 table.compact th{font-size:.7rem;padding:4px 3px}
 table.compact td{padding:4px 3px}
}
.legend{font-size:.78rem;color:var(--muted)}
footer{color:var(--muted);font-size:.75rem;text-align:center;margin:18px 0}
"""


def render_html(items: Iterable[Explained], lang: str = "en", source: str = "") -> str:
    """One self-contained page (no network, no external files) for ``items``, readable on a phone."""
    lang = lang if lang in LANGS else "en"
    all_items = list(items)
    hands = [i for i in all_items if isinstance(i, HandExplanation)]
    parts: list[str] = []
    title = label(lang, "title") + (f" · {source}" if source else "")
    parts.append(f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
                 '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                 f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n")
    parts.append(f"<h1>{_e(label(lang, 'title'))}</h1>\n")
    if source:
        parts.append(f'<p class="meta">{_e(label(lang, "file"))}: {_e(source)}</p>\n')
    for item in all_items:  # a session's net corrections first: that is what the table settles
        if isinstance(item, SessionExplanation):
            parts.append(_session_html(item, lang))
    if len(hands) > 1:
        parts.append(f'<nav class="hands" aria-label="{_e(label(lang, "jump"))}"><ul>')
        for i, h in enumerate(hands):
            cls = ' class="has-findings"' if h.findings else ""
            parts.append(f'<li><a{cls} href="#{_anchor(h, i)}">#{_e(h.hand or "?")}'
                         f"{' · ' + str(len(h.findings)) if h.findings else ''}</a></li>")
        parts.append("</ul></nav>\n")
    for n, hand in enumerate(hands):
        parts.append(_hand_html(hand, lang, _anchor(hand, n)))
    parts.append('<footer>audit explain</footer>\n</main>\n</body>\n</html>\n')
    return "".join(parts)


def _anchor(h: HandExplanation, i: int) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in (h.hand or ""))
    return f"hand-{i}-{safe}"


def _corrections_html(transfers: Sequence[Transfer], notes: Sequence[str], lang: str) -> str:
    out = [f'<div class="verdict{" bad" if transfers else ""}">']
    for note in notes:
        out.append(f'<p class="note">{_e(note)}</p>')
    if transfers:
        out.append("<ul>")
        for t in transfers:
            out.append(f'<li class="correction">{_e(correction_sentence(t, lang))}</li>')
        out.append("</ul>")
    else:
        out.append(f"<p>{_e(label(lang, 'nothing'))}</p>")
    out.append("</div>")
    return "".join(out)


def _session_html(s: SessionExplanation, lang: str) -> str:
    out = [f'<section class="session"><h2>{_e(label(lang, "session_net", name=s.name, n=len(s.hands)))}</h2>']
    out.append(_corrections_html(s.transfers, [], lang))
    if s.balances:
        out.append(f'<div class="scroll"><table class="data compact"><thead><tr><th>{_e(label(lang, "player"))}</th>'
                   f'<th>{_e(label(lang, "difference"))}</th></tr></thead><tbody>')
        for p, d in s.balances.items():
            out.append(f'<tr><td data-label="{_e(label(lang, "player"))}">{_e(party_name(p, lang))}</td>'
                       f'<td class="num" data-label="{_e(label(lang, "difference"))}">{d:+d}</td></tr>')
        out.append(f'</tbody></table></div><p class="legend">{_e(label(lang, "diff_legend"))}</p>')
    if s.findings:
        out.append(f"<h3>{_e(label(lang, 'findings'))}</h3>")
    for f in s.findings:
        out.append(_finding_html(f, lang))
    out.append("</section>\n")
    return "".join(out)


def _finding_html(f: Mapping[str, Any], lang: str) -> str:
    ea = ""
    if f.get("expected") is not None or f.get("actual") is not None:
        ea = (f'<span class="ea">{_e(label(lang, "expected"))}: {_e(f.get("expected") if f.get("expected") is not None else "—")}'
              f' · {_e(label(lang, "actual"))}: {_e(f.get("actual") if f.get("actual") is not None else "—")}</span>')
    sev = label(lang, str(f.get("severity", "violation")))
    return (f'<div class="finding" role="note"><span class="rule">{_e(f.get("rule"))}</span> '
            f'<span class="badge bad">{_e(sev)}</span> {_e(f.get("message"))}{ea}</div>')


def _table_html(h: HandExplanation, lang: str) -> str:
    """The seats around an oval table: name, stack before → after, final cards, the dealer button, and what
    each should have received when the log paid wrong."""
    seats = h.seats
    n = len(seats)
    s = h.settlement
    out = ['<div class="table-wrap">']
    total = sum(p["amount"] for p in h.pots)
    out.append('<div class="felt"></div><div class="pot-label">')
    out.append(f'<div class="pot-total">{_e(label(lang, "pot").capitalize())} {total}</div>')
    if len(h.pots) == 1:
        winners = ", ".join(h.pots[0]["winners"]) or label(lang, "nobody")
        out.append(f'<div class="pot-line">→ {_e(winners)}</div>')
    elif h.pots:
        out.append(f'<div class="pot-line">{" · ".join(str(p["amount"]) for p in h.pots)}</div>')
    if h.carried:
        out.append(f'<div class="pot-line">{_e(label(lang, "carried", n=h.carried))}</div>')
    out.append("</div>")
    for i, seat in enumerate(seats):
        # seat 1 at the bottom, then clockwise; with 4 or 8 seats, half a step round so that no seat sits
        # at the middle of a side, where the pot is written
        step = 2 * math.pi / max(n, 1)
        angle = math.pi / 2 + step * (i + (0.5 if n % 4 == 0 else 0))
        x = 50 + 38 * math.cos(angle)
        top = min(91.0, max(9.0, 50 + 40 * math.sin(angle)))
        # seats near the sides hang from the table's edge, so a wide row of cards never leaves the page
        if x < 27:
            where = f"left:0;top:{top:.1f}%;transform:translate(0,-50%)"
        elif x > 73:
            where = f"right:0;top:{top:.1f}%;transform:translate(0,-50%)"
        else:
            where = f"left:{x:.1f}%;top:{top:.1f}%"
        classes = ["seat"]
        if not seat["dealt_in"]:
            classes.append("out")
        if seat["folded"]:
            classes.append("folded")
        diff = s.difference.get(seat["player"], 0) if s is not None else 0
        if diff:
            classes.append("owed")
        dealer = '<span class="dealer" title="dealer">D</span>' if seat["button"] else ""
        status = ""
        if not seat["dealt_in"]:
            status = label(lang, "sitting_out")
        elif seat["folded"]:
            status = label(lang, "folded")
        elif seat["mucked"]:
            status = label(lang, "mucked")
        out.append(f'<div class="{" ".join(classes)}" style="{where}">')
        out.append(f'<div class="name">{_e(seat["player"])}{dealer}</div>')
        out.append(f'<div class="stack">{seat["chips"]} → {seat["end"]}</div>')
        if seat["cards"]:
            out.append(f"<div>{cards_html(seat['cards'], lang)}</div>")
        if status:
            out.append(f'<div class="stack">{_e(status)}</div>')
        if diff and s is not None:
            p = seat["player"]
            out.append(f'<div class="diff">{_e(label(lang, "due", a=s.should_receive.get(p, 0), b=s.received.get(p, 0)))}'
                       "</div>")
        out.append("</div>")
    out.append("</div>")
    return "".join(out)


def _hand_html(h: HandExplanation, lang: str, anchor: str) -> str:
    out = [f'<section class="hand" id="{_e(anchor)}">']
    out.append(f"<h2>{_e(label(lang, 'hand'))} #{_e(h.hand or '?')} "
               + (f'<span class="badge bad">{_e(_count(len(h.findings), lang))}</span>' if h.findings else "")
               + "</h2>")
    meta = []
    if h.table:
        meta.append(f"{label(lang, 'table')} '{h.table}'")
    if h.started_at:
        meta.append(h.started_at)
    if h.session:
        meta.append(f"{label(lang, 'session')}: {h.session}")
    if h.profile:
        meta.append(f"{label(lang, 'profile')}: {h.profile}")
    meta.append(f"{label(lang, 'file')}: {h.file}")
    out.append(f'<p class="meta">{" · ".join(_e(m) for m in meta)}</p>')
    if h.error is not None:
        out.append(f"<p>{_e(label(lang, 'unreadable'))}</p>")
        for f in h.findings:
            out.append(_finding_html(f, lang))
        out.append("</section>\n")
        return "".join(out)
    s = h.settlement
    out.append(f"<h3>{_e(label(lang, 'corrections'))}</h3>")
    if s is not None:
        out.append(_corrections_html(s.transfers, settlement_notes(s, lang), lang))
    out.append(_table_html(h, lang))
    out.append(_pots_html(h, lang))
    if s is not None:
        out.append(_players_html(h, s, lang))
    out.append(f"<h3>{_e(label(lang, 'steps'))}</h3>")
    out.append(_steps_html(h, lang))
    out.append("</section>\n")
    return "".join(out)


def _count(n: int, lang: str) -> str:
    return label(lang, "one_finding") if n == 1 else label(lang, "n_findings", n=n)


def _pots_html(h: HandExplanation, lang: str) -> str:
    out = [f"<h3>{_e(label(lang, 'pots'))}</h3>"]
    if not h.pots:
        out.append(f"<p>{_e(label(lang, 'no_pots'))}</p>")
        return "".join(out)
    heads = [label(lang, k) for k in ("pot_col", "amount", "eligible", "winners", "awards", "collected")]
    out.append('<div class="scroll"><table class="data stack pots"><thead><tr>'
               + "".join(f"<th>{_e(x)}</th>" for x in heads) + "</tr></thead><tbody>")
    for p in h.pots:
        awards = ", ".join(f"{q} {n}" for q, n in p["awards"].items()) or label(lang, "nobody")
        got = ", ".join(f"{q} {n}" for q, n in p["collected"].items()) or "—"
        mismatch = " mismatch" if dict(p["awards"]) != {q: n for q, n in p["collected"].items() if n} else ""
        cells = [pot_name(p["name"], lang), str(p["amount"]), ", ".join(p["eligible"]),
                 ", ".join(p["winners"]) or label(lang, "nobody"), awards, got]
        klass = ["", "num", "", "", "", mismatch.strip()]
        out.append("<tr>" + "".join(f'<td class="{k}" data-label="{_e(hd)}">{_e(c)}</td>'
                                    for c, k, hd in zip(cells, klass, heads)) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _players_html(h: HandExplanation, s: Settlement, lang: str) -> str:
    heads = [label(lang, k) for k in ("player", "start", "put_in", "should", "received", "difference", "end")]
    out = [f"<h3>{_e(label(lang, 'players'))}</h3>",
           '<div class="scroll"><table class="data compact players"><thead><tr>'
           + "".join(f"<th>{_e(x)}</th>" for x in heads) + "</tr></thead><tbody>"]
    for p in s.should_receive:
        d = s.difference[p]
        vals = [str(h.start_stacks.get(p, 0)), str(h.contributions.get(p, 0)), str(s.should_receive[p]),
                str(s.received[p]), f"{d:+d}" if d else "0", str(h.end_stacks.get(p, 0))]
        cells = [f'<td data-label="{_e(heads[0])}">{_e(p)}</td>']
        for i, v in enumerate(vals, start=1):
            cls = "num" + (" pos" if i == 5 and d > 0 else " neg" if i == 5 and d < 0 else "")
            cells.append(f'<td class="{cls}" data-label="{_e(heads[i])}">{_e(v)}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append(f'</tbody></table></div><p class="legend">{_e(label(lang, "diff_legend"))}</p>')
    return "".join(out)


def _steps_html(h: HandExplanation, lang: str) -> str:
    out = ['<ol class="steps">']
    street = None
    previous: dict[str, int] = {}
    for step in h.steps:
        if step["street"] != street:
            street = step["street"]
            out.append(f'<li class="street">{_e(street_name(str(street), lang))}</li>')
        event = step.get("event") or {}
        if event.get("type") == "marker" and not step["findings"]:
            continue  # the street heading says it
        flagged = " flagged" if step["findings"] else ""
        out.append(f'<li class="step{flagged}" data-line="{step["line"]}">')
        out.append(f'<div class="step-head"><span class="ln">{_e(label(lang, "line"))} {step["line"]}</span>'
                   f'<span class="what">{_segments_html(describe(step, lang), lang)}</span>'
                   f'<span class="pot-after">{_e(label(lang, "pot"))} {step["pot"]}</span></div>')
        legal = legal_words(step, lang)
        if legal:
            out.append(f'<div class="legal"><b>{_e(label(lang, "allowed"))}:</b> {_e(legal)}</div>')
        stacks = []
        for p, v in step["stacks"].items():
            moved = previous and previous.get(p) != v
            stacks.append(f'<span class="moved">{_e(p)} {v}</span>' if moved else f"{_e(p)} {v}")
        out.append(f'<div class="stacks">{_e(label(lang, "stacks"))}: {" · ".join(stacks)}</div>')
        previous = dict(step["stacks"])
        for f in step["findings"]:
            out.append(_finding_html(f, lang))
        out.append("</li>")
    out.append("</ol>")
    return "".join(out)
