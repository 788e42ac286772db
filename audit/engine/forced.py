"""Forced bets: antes, blinds (three positional blinds, or a site's), live and dead entry posts; and the one way
chips move from a stack to the pot.

- what happened: ``move_chips`` (chips from a stack to the pot) and ``apply_post``, which never refuse;
- the judgement: ``check_stack`` (``BET_OVER_STACK``) and ``check_all_in_mark`` (``ALL_IN_FLAG``) for any chips
  put in (``pay`` judges, then moves them); ``check_post`` as a post is made; ``check_forced_bets`` once the
  cards are dealt (``ANTE_WRONG``, ``BLIND_WRONG``, ``MISSED_BLINDS`` within the hand).
"""

from __future__ import annotations

from audit.engine.allowed import post_not_allowed

from audit.engine.state import (
    HandState, Player, dead_part, finding, gather, note, note_all, record, site_big_blind, stack_of,
)
from audit.engine.table import hand_blind_levels, hand_blind_seats
from audit.findings import Finding, Params
from audit.model import Post
from audit.rules import Rule

# ------------------------------------------------------------------ chips into the pot
def move_chips(st: HandState, pl: Player, left: int, amount: int, all_in_flag: bool) -> None:
    """Move ``amount`` chips from ``pl``'s stack (``left`` after it) to the pot, never refused (a stack may go
    below zero, a wrong all-in mark is kept): no chips left, or the log's all-in mark, makes him all-in."""
    pl.stack = left
    if not pl.paid:
        pl.paid = True
        others = st.paid_not_dealt
        if others is None:
            st.paid_not_dealt = [pl]
        else:
            others.append(pl)
    pl.contributed += amount
    if left <= 0 or all_in_flag:
        pl.all_in = True


def check_stack(st: HandState, player: str, had: int, amount: int, line: int, paying: str,
                kind: str = "") -> Finding | None:
    """``BET_OVER_STACK``: no more chips than the player had (``had``; no loans). ``paying``: ``call``, ``bet``,
    ``raise`` or ``forced`` (a post of ``kind``)."""
    if amount <= had:
        return None
    params: Params = (("player", player), ("put_amount", amount), ("had_chips", had))
    if kind:
        params += (("post_word", "post." + kind),)
    return finding(st, Rule.BET_OVER_STACK, line, paying, params, player=player, expected=f"at most {had}",
                   actual=amount)


def check_all_in_mark(st: HandState, player: str, had: int, amount: int, line: int,
                      all_in_flag: bool) -> Finding | None:
    """``ALL_IN_FLAG``: the all-in mark on a player left with no chips (of ``had`` before), and only on him."""
    left = had - amount
    if all_in_flag and left > 0:
        return finding(st, Rule.ALL_IN_FLAG, line, "marked", (("player", player), ("left_chips", left)),
                       player=player, expected="not all-in", actual="and is all-in")
    if not all_in_flag and left == 0 and amount > 0:
        return finding(st, Rule.ALL_IN_FLAG, line, "unmarked", (("player", player),), player=player,
                       expected="and is all-in", actual="no all-in mark")
    return None


def pay(st: HandState, pl: Player, amount: int, line: int, all_in_flag: bool, paying: str, kind: str = "") -> None:
    """Chips put in by ``pl`` (a post, a call, a bet or a raise): judged against his stack and the all-in mark,
    then moved."""
    player = pl.name
    had = pl.stack
    if amount > had:
        note(st, check_stack(st, player, had, amount, line, paying, kind))
    left = had - amount
    if (all_in_flag and left > 0) or (not all_in_flag and left == 0 and amount > 0):
        note(st, check_all_in_mark(st, player, had, amount, line, all_in_flag))
    move_chips(st, pl, left, amount, all_in_flag)


# ------------------------------------------------------------------ a post
def on_post(st: HandState, post: Post, pl: Player) -> None:
    """A post by ``pl``: judged, then applied (in a game without bets it changes nothing)."""
    note(st, check_post(st, post))
    if not st.points_mode:
        note(st, post_not_allowed(st, post))
        pay(st, pl, post.amount, post.line, post.all_in, "forced", post.kind)
        apply_post(st, post)
    if st.steps is not None:
        record(st, post.line, post)


def apply_post(st: HandState, post: Post) -> None:
    """The post is kept for the checks at the deal; a blind's live part is a bet of the first round."""
    p = post.player
    mine = st.posted.get(p)
    if mine is None:
        st.posted[p] = [post]
    else:
        mine.append(post)
    if post.kind == "dead" or post.kind == "both":
        st.dead_posted = True
    if post.kind in ("small", "big", "over", "live"):  # live: a bet of the first round
        st.pre_bets[p] = st.pre_bets.get(p, 0) + post.amount
        if post.all_in:
            st.blind_all_in = True
    elif post.kind == "both":
        st.pre_bets[p] = st.pre_bets.get(p, 0) + post.amount - dead_part(st, post)
        if post.all_in:
            st.blind_all_in = True


def check_post(st: HandState, post: Post) -> Finding | None:
    """``ANTE_WRONG`` / ``BLIND_WRONG`` as a post is made: no forced bets in a game without bets; only by a
    player dealt in. (A post after the deal is ``ACTION_NOT_ALLOWED``: ``audit.engine.allowed``.)"""
    p = post.player
    if st.points_mode:
        return finding(st, Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG, post.line, "no_betting",
                       (("player", p), ("amount", post.amount)), player=p, expected="no forced bet",
                       actual=post.amount)
    pl = st.players.get(p)
    if pl is None or pl.sitting_out or not pl.dealt_in:
        return finding(st, Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG, post.line, "not_dealt_in",
                       (("player", p),), player=p)
    return None


# ------------------------------------------------------------------ at the deal
def check_forced_bets(st: HandState, line: int) -> None:
    """At the deal (``line``): antes and blinds as the profile requires."""
    if st.points_mode:
        return
    prof = st.profile
    note_all(st, check_antes(st, line))
    if prof.blinds == "none":
        note_all(st, check_no_blinds(st))
    elif prof.blinds == "three":
        note_all(st, check_blinds(st, line))
        if prof.missed_blinds == "seed-004":
            note_all(st, check_entry_posts(st))
    if not st.hand.shows_all_cards:  # a site's log (RULES.md, "Site logs")
        note_all(st, check_site_big_blind(st))


def check_antes(st: HandState, line: int) -> list[Finding] | None:
    """``ANTE_WRONG``: each player dealt in posts the ante (less only when all-in); no ante in a game without
    one."""
    ante = st.profile.ante
    out: list[Finding] | None = None
    if ante:
        posted = st.posted
        for p in st.order:
            total = 0
            count = 0
            first_line = 0
            last_all_in = False
            mine = posted.get(p)
            if mine is not None:
                for x in mine:
                    if x.kind == "ante":
                        if not count:
                            first_line = x.line
                        count += 1
                        total += x.amount
                        last_all_in = x.all_in
            short_all_in = count > 0 and last_all_in and total < ante
            if total != ante and not short_all_in:
                out = gather(out, finding(st, Rule.ANTE_WRONG, first_line if count else line,
                                   "wrong" if count else "missing",
                                   (("player", p), ("posted_amount", total), ("ante_amount", ante)),
                                   player=p, expected=ante, actual=total, street="pre"))
    elif ante == 0:
        for p, posts in st.posted.items():
            for x in posts:
                if x.kind == "ante":
                    out = gather(out, finding(st, Rule.ANTE_WRONG, x.line, "none", (("player", p),), player=p,
                                       expected=0, actual=x.amount, street="pre"))
    return out


def check_no_blinds(st: HandState) -> list[Finding] | None:
    """``BLIND_WRONG``: no blind in a game without blinds."""
    out: list[Finding] | None = None
    for p, posts in st.posted.items():
        for x in posts:
            if x.kind != "ante":
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line, "none", (("player", p),), player=p,
                                          expected="no blind", actual=x.amount, street="pre"))
    return out


def check_site_big_blind(st: HandState) -> list[Finding] | None:
    """Site logs (``BLIND_WRONG``): every big blind posted equals the header's stake unless its poster is
    all-in for less; a small and big blind posted together hold at least the big blind. The small blind's
    size and the blinds' seats are not audited (dead-button rules vary between sites)."""
    stake = site_big_blind(st)
    game = st.hand.game
    out: list[Finding] | None = None
    if stake is None or game is None:
        return out
    for p, posts in st.posted.items():
        all_in = stack_of(st, p) <= 0
        for x in posts:
            short_all_in = (x.all_in or all_in) and x.amount < stake
            if x.kind == "big" and x.amount != stake and not short_all_in:
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line,
                                   "site_big_fixed" if game.betting == "fixed-limit" else "site_big",
                                   (("player", p), ("posted_amount", x.amount), ("stake_amount", stake),
                                    ("small_amount", game.small), ("big_amount", game.big),
                                    ("structure_word", "betting." + game.betting)),
                                   player=p, expected=stake, actual=x.amount, street="pre"))
            elif x.kind == "both" and x.amount < stake and not short_all_in:
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line, "site_both",
                                   (("player", p), ("posted_amount", x.amount), ("stake_amount", stake)),
                                   player=p, expected=f"at least {stake}", actual=x.amount, street="pre"))
    return out


def check_blinds(st: HandState, line: int) -> list[Finding] | None:
    """``BLIND_WRONG``: each blind posted by the right player, in the right amount; no over blind with fewer
    than 4 players."""
    seats = hand_blind_seats(st)
    levels = hand_blind_levels(st)
    n = len(st.order)
    out: list[Finding] | None = None
    posted_kinds = {x.kind for p in st.order for x in st.posted.get(p, [])}
    for kind, who in seats.items():
        if kind in posted_kinds:
            continue  # posted, perhaps by the wrong player: judged below
        variant = "missing_small_heads_up" if n == 2 and kind == "small" else "missing_" + kind
        out = gather(out, finding(st, Rule.BLIND_WRONG, line, variant, (("player", who), ("blind_amount", levels[kind])),
                           player=who, expected=levels[kind], actual=0, street="pre"))
    for p in st.order:
        for x in st.posted.get(p, []):
            if x.kind not in levels:
                continue
            if x.kind == "over" and n < 4:
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line, "over_few", (("player", p), ("n", n)), player=p,
                                   expected="no over blind", actual=x.amount, street="pre"))
                continue
            owner = seats.get(x.kind)
            if owner != p:
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line, "not_his_blind",
                                   (("player", p), ("blind_word", "post." + x.kind), ("owner", str(owner))),
                                   player=p, expected=owner, actual=p, street="pre"))
                continue
            want = levels[x.kind]
            if x.amount != want and not (x.all_in and x.amount < want):
                out = gather(out, finding(st, Rule.BLIND_WRONG, x.line, "wrong_" + x.kind,
                                   (("player", p), ("posted_amount", x.amount), ("want_amount", want)),
                                   player=p, expected=want, actual=x.amount, street="pre"))
    return out


def check_entry_posts(st: HandState) -> list[Finding] | None:
    """``missed-blinds = seed-004``, within the hand: a live or dead post must be one of the policy's
    combinations (new player: a live over blind; missed the small blind: a live big blind; missed small and
    big: a live big blind and a dead small blind; missed all three: a live over blind and a dead small and big
    blind). Dead chips are pot, not a bet. Which blinds a player really missed is a session matter."""
    levels = hand_blind_levels(st)
    sb, bb, ob = levels["small"], levels["big"], levels["over"]
    over_in_play = len(st.order) >= 4
    allowed = {(bb, 0): "a player who missed the small blind",
               (bb, sb): "a player who missed the small and the big blind",
               (ob, sb + bb): "a player who missed all three blinds"}
    if over_in_play:
        allowed[(ob, 0)] = "a new player"
    out: list[Finding] | None = None
    for p in st.order:
        posts = [x for x in st.posted.get(p, []) if x.kind in ("live", "dead")]
        if not posts:
            continue
        live = sum(x.amount for x in posts if x.kind == "live")
        dead = sum(x.amount for x in posts if x.kind == "dead")
        if (live, dead) in allowed or any(x.all_in for x in posts):
            continue
        options = "; ".join(f"{'live ' + str(lv)}{' + dead ' + str(dd) if dd else ''} ({who})"
                            for (lv, dd), who in allowed.items())
        out = gather(out, finding(st, Rule.MISSED_BLINDS, posts[0].line, "entry_over" if over_in_play else "entry",
                           (("player", p), ("live_amount", live), ("dead_amount", dead), ("small_amount", sb),
                            ("big_amount", bb), ("over_amount", ob), ("small_big_amount", sb + bb)),
                           player=p, expected=options, actual=f"live {live} + dead {dead}", street="pre"))
    return out
