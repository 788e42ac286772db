"""Rule profiles as data: one TOML file per profile in ``audit/profiles/``, parameters named as in RULES.md.

The engine reads a ``Profile``'s typed fields and never asks which profile it is. ``Option: <name> = <value>``
lines (and ``--option`` on the command line) override one parameter each; an unknown name or a value outside
the parameter's domain is a ``ProfileError`` naming the line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from audit.cards import Ranking, ranking_for
from audit.errors import ProfileError
from audit.resources import data_dir

_DIR = data_dir("profiles")  # not this module's __file__: compiled, it names the wrong folder

# Each parameter's allowed values: a tuple of words, or "int" (a whole number), or a tuple mixing both.
_DOMAINS: dict[str, tuple[str, ...]] = {
    "players": ("range",),
    "deck": ("52", "32"),
    "joker": ("none", "wild"),
    "starting-chips": ("int", "any"),
    "ante": ("int", "log"),
    "blinds": ("none", "two", "three"),
    "betting": ("no-limit", "pot-limit", "fixed-limit", "log"),
    "min-bet": ("int", "2xante", "blinds", "big-blind"),
    "bet-unit": ("int", "2xante"),
    "bet-sizes": ("none", "min-bet", "big-blind"),
    "raise-cap": ("none", "int", "4-not-heads-up"),
    "draw-limit": ("5", "4", "3", "3+ace"),
    "openers": ("any", "jacks"),
    "first-round-starts": ("left-of-button", "left-of-last-blind"),
    "draw-starts": ("left-of-button",),
    "second-round-starts": ("left-of-button", "opener", "left-of-last-blind"),
    "all-check": ("proceed", "redeal"),
    "reshuffle": ("merge-stub", "stub-first", "not-audited"),
    "ranking": ("standard", "stripped"),
    "suit-tiebreak": ("no", "hdcs"),
    "odd-chip": ("left-of-button",),
    "parole": ("no", "yes"),
    "time-limit": ("none", "int"),
    "raise-time-limit": ("none", "int"),
    "missed-blinds": ("none", "seed-004", "not-audited"),
    "session-hands": ("int", "open"),
    "show-first-no-bet": ("left-of-button", "first-to-act"),
    "mode": ("chips", "points"),
    "rake": ("none", "allowed"),
}


def _whole(text: str) -> bool:
    """A whole number written with the digits 0-9 (not '²', not a hundred digits)."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def _check(name: str, value: str) -> str:
    domain = _DOMAINS.get(name)
    if domain is None:
        raise ProfileError(f"unknown option {_cut(name)!r} (known: {', '.join(sorted(_DOMAINS))})")
    if value in domain and value not in ("int", "range"):
        return value
    if "int" in domain and _whole(value):
        return value
    if "range" in domain:
        lo, _, hi = value.partition("-")
        if _whole(lo) and _whole(hi) and int(lo) <= int(hi):
            return value
    allowed = ", ".join("a whole number" if d == "int" else "a range such as 2-6" if d == "range" else d
                        for d in domain)
    raise ProfileError(f"option {name!r} cannot be {_cut(value)!r} (allowed: {allowed})")


def _cut(text: str) -> str:
    """User input quoted in a message, cut to a readable length."""
    return text if len(text) <= 40 else text[:40] + "…"


def _int_or_none(value: str) -> int | None:
    return int(value) if _whole(value) else None


@dataclass(frozen=True, slots=True)
class Profile:
    """A rule profile's parameters, typed for the engine. ``params`` keeps them as written."""

    name: str
    description: str
    params: tuple[tuple[str, str], ...]
    min_players: int
    max_players: int
    deck_size: int
    joker: bool
    starting_chips: int | None
    ante: int | None  # None: take it from the log
    blinds: str
    betting: str  # "no-limit", "pot-limit", "fixed-limit", or "log" (from the hand's header)
    min_bet_rule: str  # "int", "2xante", "blinds", "big-blind"
    min_bet_value: int
    bet_unit: int
    bet_sizes: str
    raise_cap: int | None
    raise_cap_heads_up: bool
    draw_limit: int
    draw_limit_ace: bool  # 3+ace: one more card when an ace (or the joker) is kept
    openers_jacks: bool
    first_round_starts: str
    second_round_starts: str
    all_check_redeal: bool
    reshuffle: str
    ranking: str
    suit_tiebreak: bool
    parole: bool
    time_limit: int | None
    raise_time_limit: int | None
    missed_blinds: str
    session_hands: int | None
    show_first_no_bet: str
    points_mode: bool
    rake_allowed: bool

    def param(self, name: str) -> str:
        """A parameter as written (``"3+ace"``)."""
        return dict(self.params)[name]

    def hand_ranking(self) -> Ranking:
        """The ranking of this profile's hands: its ``ranking`` and ``suit-tiebreak`` over its own ``deck`` and
        ``joker``, so that the ranking knows exactly the cards the profile deals."""
        return ranking_for(self.ranking, self.suit_tiebreak, self.joker, self.deck_size)

    def with_options(self, options: list[tuple[str, str]]) -> Profile:
        """A copy with ``(name, value)`` overrides applied; raises ``ProfileError`` on a bad one."""
        if not options:
            return self
        params = dict(self.params)
        for name, value in options:
            params[name] = _check(name, value)
        return _build(self.name, self.description, params)


def _build(name: str, description: str, p: dict[str, str]) -> Profile:
    for key, value in p.items():
        _check(key, value)
    missing = sorted(set(_DOMAINS) - set(p))
    if missing:
        raise ProfileError(f"profile {name!r} lacks parameters: {', '.join(missing)}")
    lo, _, hi = p["players"].partition("-")
    ante = _int_or_none(p["ante"])
    min_bet = p["min-bet"]
    unit = p["bet-unit"]
    cap = p["raise-cap"]
    return Profile(
        name=name, description=description, params=tuple(sorted(p.items())),
        min_players=int(lo), max_players=int(hi), deck_size=int(p["deck"]), joker=p["joker"] == "wild",
        starting_chips=_int_or_none(p["starting-chips"]), ante=ante, blinds=p["blinds"], betting=p["betting"],
        min_bet_rule="int" if _whole(min_bet) else min_bet,
        min_bet_value=int(min_bet) if _whole(min_bet) else 2 * (ante or 0),
        bet_unit=int(unit) if _whole(unit) else 2 * (ante or 0),
        bet_sizes=p["bet-sizes"],
        raise_cap=4 if cap == "4-not-heads-up" else _int_or_none(cap),
        raise_cap_heads_up=cap != "4-not-heads-up",
        draw_limit=3 if p["draw-limit"] == "3+ace" else int(p["draw-limit"]),
        draw_limit_ace=p["draw-limit"] == "3+ace",
        openers_jacks=p["openers"] == "jacks",
        first_round_starts=p["first-round-starts"], second_round_starts=p["second-round-starts"],
        all_check_redeal=p["all-check"] == "redeal" and p["second-round-starts"] == "opener",
        reshuffle=p["reshuffle"], ranking=p["ranking"], suit_tiebreak=p["suit-tiebreak"] == "hdcs",
        parole=p["parole"] == "yes", time_limit=_int_or_none(p["time-limit"]),
        raise_time_limit=_int_or_none(p["raise-time-limit"]), missed_blinds=p["missed-blinds"],
        session_hands=_int_or_none(p["session-hands"]), show_first_no_bet=p["show-first-no-bet"],
        points_mode=p["mode"] == "points", rake_allowed=p["rake"] == "allowed",
    )


def rebuild_profile(name: str, description: str, params: tuple[tuple[str, str], ...]) -> Profile:
    """A profile from its ``name``, ``description`` and ``params`` (how one crosses to another process)."""
    return _build(name, description, dict(params))


def option_pairs(options: Iterable[str]) -> list[tuple[str, str]]:
    """``--option NAME=VALUE`` arguments as ``(name, value)`` pairs; a ``ProfileError`` for one without ``=``."""
    pairs = []
    for option in options:
        key, sep, value = option.partition("=")
        if not sep:
            raise ProfileError(f"--option {option!r}: write it as NAME=VALUE")
        pairs.append((key.strip(), value.strip()))
    return pairs


def option_domains() -> dict[str, tuple[str, ...]]:
    """Every option and its allowed values as RULES.md writes them; ``"int"`` stands for a whole number and
    ``"range"`` for ``LOW-HIGH``."""
    return dict(_DOMAINS)


def profile_names() -> list[str]:
    """The profiles that ship with audit."""
    return sorted(f.stem for f in _DIR.glob("*.toml"))


@lru_cache(maxsize=None)
def load_profile(name: str) -> Profile:
    """A shipped profile by name; ``ProfileError`` for an unknown one."""
    known = profile_names()
    if name not in known:  # never a path: a log must not make the audit open other files
        raise ProfileError(f"unknown profile {_cut(name)!r} (known: {', '.join(known)})")
    path = _DIR / f"{name}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    description = str(data.pop("description", ""))
    return _build(name, description, {k: str(v) for k, v in data.items()})
