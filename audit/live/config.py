"""A live table's configuration: what the host said when opening it (its name, the rules and their options, the
seats with their chips, the button, the small blind), checked once, stored as JSON with the table."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from audit.dialects.house_lines import is_player_name
from audit.errors import ProfileError
from audit.live.errors import TableError
from audit.profile import Profile, load_profile
from audit.read import block_kind

NAME: Final = re.compile(r"^[\w\-.']+$")
MAX_CHIPS: Final = 10 ** 9


def reads_as_a_name(player: str) -> bool:
    """Whether every line the table writes led by ``player`` (``player: folds``, ``player collected 2 from pot``,
    ``player scores 1 point``) reads back as that player's line: not a preamble keyword (``Session:``,
    ``Profile:``, ``Option:``, ``Cards:``), not a hand's or a site's first word (``Hand``, ``Table``, ``Seat``,
    ``Total``, ``Uncalled``, ``PokerStars`` ...), not a standings line's place (any word of digits)."""
    return (is_player_name(player) and block_kind(f"{player}: folds") == "unknown"
            and block_kind(f"{player} collected 1 from pot") == "unknown")


@dataclass(frozen=True)
class TableConfig:
    """What the host said when opening the table."""

    name: str
    profile: str
    options: tuple[tuple[str, str], ...]
    seats: tuple[tuple[int, str, int], ...]  # (seat, player, chips), in seat order
    button: int
    session: str
    opened_at: str  # "YYYY/MM/DD HH:MM:SS"
    small_blind: int = 1  # three blinds: the small one (big = 2 ×, over = 4 ×)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "profile": self.profile, "options": dict(self.options),
                "seats": [{"seat": s, "player": p, "chips": c} for s, p, c in self.seats],
                "button": self.button, "session": self.session, "opened_at": self.opened_at,
                "small_blind": self.small_blind}

    @classmethod
    def from_request(cls, body: object, session: str, opened_at: str) -> TableConfig:
        """The table a request asks for (``{"name", "profile", "options", "seats", "button"}``, and
        ``small_blind`` for three blinds); ``TableError`` saying what is wrong."""
        if not isinstance(body, dict):
            raise TableError("refusal.table_object")
        name = body.get("name", "")
        if not isinstance(name, str) or not name.strip() or len(name) > 60 or not name.isprintable():
            raise TableError("refusal.name")
        profile_name = body.get("profile", "home-open")
        if not isinstance(profile_name, str):
            raise TableError("refusal.profile_name")
        options = body.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, (str, int))
                                                    for k, v in options.items()):
            raise TableError("refusal.options")
        opts = tuple((k, str(v)) for k, v in options.items())
        seats_in = body.get("seats")
        if not isinstance(seats_in, list) or not 2 <= len(seats_in) <= 10:
            raise TableError("refusal.seats")
        seats: list[tuple[int, str, int]] = []
        for s in seats_in:
            if not isinstance(s, dict):
                raise TableError("refusal.seat_object")
            seat, player, chips = s.get("seat"), s.get("player"), s.get("chips")
            if type(seat) is not int or not 1 <= seat <= 10:
                raise TableError("refusal.seat")
            if not isinstance(player, str) or not NAME.match(player) or len(player) > 40:
                raise TableError("refusal.player_name")
            if not reads_as_a_name(player):
                raise TableError("refusal.player_reads_as_line", player=repr(player))
            if type(chips) is not int or not 0 <= chips < MAX_CHIPS:
                raise TableError("refusal.chips_or_points")
            seats.append((seat, player, chips))
        seats.sort()
        if len({s[0] for s in seats}) != len(seats) or len({s[1] for s in seats}) != len(seats):
            raise TableError("refusal.seats_once")
        button = body.get("button", seats[-1][0])
        if type(button) is not int or not 1 <= button <= 10:
            raise TableError("refusal.button")
        small = body.get("small_blind", 1)
        if type(small) is not int or not 0 < small < MAX_CHIPS:
            raise TableError("refusal.small_blind")
        config = cls(name.strip(), profile_name, opts, tuple(seats), button, session, opened_at, small)
        if not config.load_profile().points_mode and any(chips == 0 for _, _, chips in seats):
            raise TableError("refusal.chips")
        return config

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableConfig:
        return cls(data["name"], data["profile"], tuple((k, v) for k, v in data["options"].items()),
                   tuple((s["seat"], s["player"], s["chips"]) for s in data["seats"]), data["button"],
                   data["session"], data["opened_at"], data.get("small_blind", 1))

    def load_profile(self) -> Profile:
        try:
            prof = load_profile(self.profile).with_options(list(self.options))
        except ProfileError as exc:
            raise TableError("refusal.rules", reason=str(exc)) from None
        return prof

    def seat_of(self, player: str) -> int:
        """The seat ``player`` was given."""
        return next(s for s, p, _ in self.seats if p == player)
