"""The table: seats dealt in, the button, the blinds' seats and sizes, the minimum bet, who starts a round.

Queries over the hand's state (nothing here changes it), and the one judgement made before any line of the body:
the number of players dealt in.
"""

from __future__ import annotations

from typing import Final


from audit.engine.state import HandState, betting, finding, first_able_from, left_of_button
from audit.findings import Finding
from audit.model import Post
from audit.rules import Rule

BLIND_ORDER: Final = {"small": 1, "big": 2, "over": 3}
"""The positional blinds, smallest first."""

_BLIND_RANK: Final = {"small": 1, "both": 2, "big": 2, "over": 3}


def check_seats(st: HandState) -> Finding | None:
    """``SEAT_COUNT``: the players dealt in are within the profile's range."""
    n = len(st.order)
    prof = st.profile
    if prof.min_players <= n <= prof.max_players:
        return None
    return finding(st, Rule.SEAT_COUNT, st.hand.line, "count", (("n", n), ("least", prof.min_players),
                                                                 ("most", prof.max_players)),
                   expected=f"{prof.min_players}-{prof.max_players}", actual=n, street="pre")


def blind_seats(ring: list[str]) -> dict[str, str]:
    """Three blinds' seats from the players dealt in, clockwise from the button's left: small, big, and the over
    blind with 4-5 players; heads-up the button (the ring's last) posts the small blind."""
    if len(ring) == 2:
        return {"small": ring[1], "big": ring[0]}
    kinds = ("small", "big", "over") if len(ring) >= 4 else ("small", "big")
    return {k: ring[i] for i, k in enumerate(kinds) if i < len(ring)}


def ring_from_button(players: list[str], seat_of: dict[str, int], button: int) -> list[str]:
    """``players`` (in seat order) clockwise from the button's left; a dead button counts from the last seat
    before it."""
    if not players:
        return []
    at = max((i for i, p in enumerate(players) if seat_of[p] <= button), default=len(players) - 1)
    return players[at + 1:] + players[:at + 1]


def blind_levels(posts: list[Post]) -> dict[str, int]:
    """Three blinds' sizes from the posts: the small blind sets the scale (big = 2 × small, over = 2 × big);
    without a full small blind, the big or the over blind does."""
    scale = 0
    for kind, factor in (("small", 1), ("big", 2), ("over", 4)):
        full = [x.amount for x in posts if x.kind == kind and not x.all_in and x.amount % factor == 0]
        if full:
            scale = full[0] // factor
            break
    if not scale:
        sizes = [x.amount // f for x in posts for k, f in (("small", 1), ("big", 2), ("over", 4))
                 if x.kind == k and x.amount // f > 0]
        scale = max(sizes, default=1)
    return {"small": scale, "big": 2 * scale, "over": 4 * scale}


def hand_blind_seats(st: HandState) -> dict[str, str]:
    """``blinds = three``: which player owes which blind in this hand."""
    return blind_seats(left_of_button(st))


def hand_blind_levels(st: HandState) -> dict[str, int]:
    """``blinds = three``: the blinds' sizes from this hand's posts."""
    return blind_levels([x for xs in st.posted.values() for x in xs])


def min_bet(st: HandState) -> int:
    """The minimum opening bet: the profile's, the header's big blind, or the largest blind posted."""
    prof = st.profile
    hand = st.hand
    if prof.min_bet_rule in ("int", "2xante"):
        return prof.min_bet_value
    if prof.min_bet_rule == "big-blind" and hand.game is not None:
        return hand.game.big
    if prof.blinds == "three" and any(type(i) is Post and i.kind in ("small", "big", "over") for i in hand.body):
        levels = blind_levels([i for i in hand.body if type(i) is Post])
        return levels["over"] if len(st.order) >= 4 else levels["big"]
    blinds = sorted((i.amount for i in hand.body if type(i) is Post and i.kind in ("big", "over")), reverse=True)
    return blinds[0] if blinds else 1


def full_blind(st: HandState, kind: str) -> int:
    """The full size of a blind (0 when the log does not tell): three blinds from their scale, a site's big blind
    from the header's stake (fixed limit: the small bet)."""
    if st.profile.blinds == "three":
        return hand_blind_levels(st).get(kind, 0)
    game = st.hand.game
    if game is not None and kind == "big":
        return game.small if betting(st) == "fixed-limit" else game.big
    return 0


def short_blind_level(st: HandState) -> int:
    """The full size of the largest blind posted short all-in (0 when none was): the bet the others call."""
    level = 0
    for posts in st.posted.values():
        for x in posts:
            if x.all_in and x.kind in ("small", "big", "over"):
                full = full_blind(st, x.kind)
                if full > x.amount and full > level:
                    level = full
    return level


def round_min_bet(st: HandState, street: str) -> int:
    """The minimum bet of a betting round (fixed limit: the round's bet size)."""
    prof = st.profile
    game = st.hand.game
    if prof.betting == "fixed-limit" or (prof.betting == "log" and game is not None
                                         and game.betting == "fixed-limit"):
        return fixed_bet_size(st, street)
    return st.min_bet


def fixed_bet_size(st: HandState, street: str) -> int:
    """Fixed limit: the small bet in the first round, the big bet in the second."""
    game = st.hand.game
    if game is not None and st.profile.bet_sizes == "big-blind":
        return game.small if street == "first" else game.big
    return st.min_bet if street == "first" else 2 * st.min_bet


def last_blind(st: HandState) -> str | None:
    """The player who posted the largest positional blind (over > big > small); among several posts of that
    kind (a newcomer's entry post), the first clockwise from the button."""
    ring = left_of_button(st)
    best: tuple[int, int] | None = None
    who: str | None = None
    for p in ring:
        rank = max((_BLIND_RANK.get(x.kind, 0) for x in st.posted.get(p, [])), default=0)
        if rank and (best is None or rank > best[0]):
            best, who = (rank, ring.index(p)), p
    return who


def round_start(st: HandState, street: str) -> str | None:
    """Who acts first in the round, per the profile."""
    prof = st.profile
    rule = prof.first_round_starts if street == "first" else prof.second_round_starts
    if rule == "left-of-last-blind":
        last = last_blind(st)
        if last is not None:
            start = st.order.index(last) + 1
        else:
            start = st.button_index + 1
    elif rule == "opener":
        first = st.rounds.get("first")
        opener = first.opener if first is not None else None
        start = st.order.index(opener) if opener in st.order else st.button_index + 1
    else:
        start = st.button_index + 1
    return first_able_from(st, start)
