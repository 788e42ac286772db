"""``TIME_LIMIT``: the time a player took to act or to draw, the raise clock (betting and raising only within
its seconds), and what a player who timed out is made to do (fold facing a bet, else check)."""

from __future__ import annotations


from audit.engine.state import HandState, finding, gather, to_call
from audit.findings import Finding
from audit.model import Action
from audit.rules import Rule


def check_action_time(st: HandState, a: Action) -> list[Finding] | None:
    """A betting action against the time limit, the raise clock and the timed-out default (``None``: in time)."""
    if a.took is None and not a.timed_out:
        return None
    prof = st.profile
    p = a.player
    out: list[Finding] | None = None
    took = format(a.took, "g") if a.took is not None else ""
    limit = prof.time_limit
    if limit is not None and a.took is not None and a.took > limit and not a.timed_out:
        out = gather(out, finding(st, Rule.TIME_LIMIT, a.line, "took", (("player", p), ("seconds", took), ("limit", limit)),
                           player=p, expected=f"at most {limit}s", actual=f"{took}s"))
    clock = prof.raise_time_limit
    if clock is not None and a.kind in ("bet", "raise") and a.took is not None and a.took > clock:
        out = gather(out, finding(st, Rule.TIME_LIMIT, a.line, "raise_clock_" + a.kind,
                           (("player", p), ("seconds", took), ("limit", clock)),
                           player=p, expected=f"at most {clock}s", actual=f"{took}s"))
    if a.timed_out:
        right = "fold" if to_call(st, p) > 0 else "check"
        if a.kind != right:
            out = gather(out, finding(st, Rule.TIME_LIMIT, a.line, "timed_out_" + right,
                               (("player", p), ("kind_word", "action." + a.kind)),
                               player=p, expected=right, actual=a.kind))
    return out


def check_draw_time(st: HandState, player: str, line: int, took: float | None, timed_out: bool) -> Finding | None:
    """A discard or a stand pat against the time limit (a player timed out has no time to judge)."""
    limit = st.profile.time_limit
    if took is None or limit is None or took <= limit or timed_out:
        return None
    return finding(st, Rule.TIME_LIMIT, line, "draw", (("player", player), ("seconds", format(took, "g")),
                                                      ("limit", limit)), player=player)
