"""Forced bets: antes, blinds (three positional blinds, or a site's), live and dead entry posts.

``apply_post`` puts a post's chips in (never refused); ``put_in`` is the one way chips move from a stack to the
pot, judging the stack (``BET_OVER_STACK``) and the all-in mark (``ALL_IN_FLAG``). ``check_forced_bets`` judges
the posts once the cards are dealt.
"""

from __future__ import annotations

from typing import Final

from audit.engine.state import HandState, add, record
from audit.engine.table import (
    hand_blind_levels, hand_blind_seats, site_big_blind, site_dead_small_blind,
)
from audit.model import Post
from audit.rules import Rule

_BLIND_NAMES: Final = {"small": "small blind", "big": "big blind", "over": "over blind"}


def put_in(st: HandState, player: str, amount: int, line: int, all_in_flag: bool, what: str,
           forced: bool = False) -> None:
    """Move chips from a stack to the pot (never refused); judge the stack and the all-in flag. ``what``:
    "a call", "a bet", "a raise", or a forced bet's kind (``forced``)."""
    stack = st.stack
    if player not in stack:
        return
    before = stack[player]
    if amount > before:
        said = f"the {what}" if forced else what
        add(st, Rule.BET_OVER_STACK, line,
            f"{player} put in {amount} ({said}) but had only {before} chips left; there are no loans.",
            player=player, expected=f"at most {before}", actual=amount)
    left = before - amount
    stack[player] = left
    contrib = st.contrib
    contrib[player] = contrib.get(player, 0) + amount
    if all_in_flag and left > 0:
        add(st, Rule.ALL_IN_FLAG, line, f"{player} is marked all-in but still has {left} chips.",
            player=player, expected="not all-in", actual="and is all-in")
    elif not all_in_flag and left == 0 and amount > 0:
        add(st, Rule.ALL_IN_FLAG, line, f"{player} has no chips left but the line does not say all-in.",
            player=player, expected="and is all-in", actual="no all-in mark")
    if left <= 0 or all_in_flag:
        st.all_in.add(player)


def on_post(st: HandState, post: Post) -> None:
    """A post: judged against the game (no forced bets without betting; a player dealt in; before the deal),
    its chips put in, a blind's live part counted as a first-round bet."""
    p = post.player
    if st.points_mode:
        rule = Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG
        add(st, rule, post.line, f"{p} posted {post.amount}, but a game without bets has no forced bets.",
            player=p, expected="no forced bet", actual=post.amount)
        if st.steps is not None:
            record(st, post.line, post)
        return
    if p in st.sitting_out or p not in st.in_hand:
        rule = Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG
        add(st, rule, post.line, f"{p} posted but is not dealt in this hand.", player=p)
    if st.street not in ("pre",):
        add(st, Rule.ACTION_NOT_ALLOWED, post.line, f"{p} posted after the cards were dealt.", player=p)
    mine = st.posted.get(p)
    if mine is None:
        st.posted[p] = [post]
    else:
        mine.append(post)
    put_in(st, p, post.amount, post.line, post.all_in, post.kind, True)
    if post.kind in ("small", "big", "over", "live"):  # live: a bet of the first round
        st.pre_bets[p] = st.pre_bets.get(p, 0) + post.amount
        if post.all_in:
            st.blind_all_in = True
    elif post.kind == "both":
        st.pre_bets[p] = st.pre_bets.get(p, 0) + post.amount - site_dead_small_blind(st, post)
        if post.all_in:
            st.blind_all_in = True
    if st.steps is not None:
        record(st, post.line, post)


def check_forced_bets(st: HandState, line: int) -> None:
    """At the deal: antes and blinds as the profile requires."""
    prof = st.profile
    if st.points_mode:
        return
    ante = prof.ante
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
                if not count:
                    msg = f"{p} did not post the ante of {ante}."
                else:
                    msg = f"{p} posted an ante of {total}; the ante is {ante}."
                add(st, Rule.ANTE_WRONG, first_line if count else line, msg, player=p, expected=ante,
                    actual=total, street="pre")
    elif ante == 0:
        for p, posts in st.posted.items():
            for x in posts:
                if x.kind == "ante":
                    add(st, Rule.ANTE_WRONG, x.line, f"{p} posted an ante but this game has none.",
                        player=p, expected=0, actual=x.amount, street="pre")
    if prof.blinds == "none":
        for p, posts in st.posted.items():
            for x in posts:
                if x.kind != "ante":
                    add(st, Rule.BLIND_WRONG, x.line, f"{p} posted a blind but this game has no blinds.",
                        player=p, expected="no blind", actual=x.amount, street="pre")
    elif prof.blinds == "three":
        check_blinds(st, line)
        if prof.missed_blinds == "seed-004":
            check_entry_posts(st)
    if not st.hand.shows_all_cards:  # a site's log (RULES.md, "Site logs")
        check_site_big_blind(st)


def check_site_big_blind(st: HandState) -> None:
    """Site logs (``BLIND_WRONG``): every big blind posted equals the header's stake unless its poster is
    all-in for less; a small and big blind posted together hold at least the big blind. The small blind's
    size and the blinds' seats are not audited (dead-button rules vary between sites)."""
    stake = site_big_blind(st)
    game = st.hand.game
    if stake is None or game is None:
        return
    for p, posts in st.posted.items():
        all_in = st.stack.get(p, 0) <= 0
        for x in posts:
            short_all_in = (x.all_in or all_in) and x.amount < stake
            if x.kind == "big" and x.amount != stake and not short_all_in:
                which = "the small bet, " if game.betting == "fixed-limit" else ""
                add(st, Rule.BLIND_WRONG, x.line, f"{p} posted a big blind of {x.amount}; at stakes of "
                    f"{game.small}/{game.big} ({game.betting.replace('-', ' ')}) the big blind is "
                    f"{which}{stake}.",
                    player=p, expected=stake, actual=x.amount, street="pre")
            elif x.kind == "both" and x.amount < stake and not short_all_in:
                add(st, Rule.BLIND_WRONG, x.line, f"{p} posted {x.amount} for the small and big blinds "
                    f"together, less than the big blind of {stake} alone.", player=p,
                    expected=f"at least {stake}", actual=x.amount, street="pre")


def check_blinds(st: HandState, line: int) -> None:
    """``BLIND_WRONG``: each blind posted by the right player, in the right amount; no over blind with fewer
    than 4 players."""
    seats = hand_blind_seats(st)
    levels = hand_blind_levels(st)
    n = len(st.order)
    posted_kinds = {x.kind for p in st.order for x in st.posted.get(p, [])}
    for kind, who in seats.items():
        if kind in posted_kinds:
            continue  # posted, perhaps by the wrong player: judged below
        where = "the button posts it heads-up" if n == 2 and kind == "small" else (
            "it falls left of the button" if kind == "small" else
            f"it falls next after the {'small' if kind == 'big' else 'big'} blind")
        add(st, Rule.BLIND_WRONG, line, f"{who} did not post the {_BLIND_NAMES[kind]} of "
            f"{levels[kind]}; {where}.", player=who, expected=levels[kind], actual=0, street="pre")
    for p in st.order:
        for x in st.posted.get(p, []):
            if x.kind not in levels:
                continue
            name = _BLIND_NAMES[x.kind]
            if x.kind == "over" and n < 4:
                add(st, Rule.BLIND_WRONG, x.line, f"{p} posted an over blind with only {n} players; the over "
                    "blind is posted only with 4 or 5.", player=p, expected="no over blind",
                    actual=x.amount, street="pre")
                continue
            if seats.get(x.kind) != p:
                add(st, Rule.BLIND_WRONG, x.line, f"{p} posted the {name}, but it was "
                    f"{seats.get(x.kind)}'s to post.", player=p, expected=seats.get(x.kind), actual=p,
                    street="pre")
                continue
            want = levels[x.kind]
            if x.amount != want and not (x.all_in and x.amount < want):
                rel = {"small": "", "big": " (2 × the small blind)", "over": " (2 × the big blind)"}[x.kind]
                article = "an" if x.kind == "over" else "a"
                add(st, Rule.BLIND_WRONG, x.line, f"{p} posted {article} {name} of {x.amount}; it is {want}{rel}.",
                    player=p, expected=want, actual=x.amount, street="pre")


def check_entry_posts(st: HandState) -> None:
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
        add(st, Rule.MISSED_BLINDS, posts[0].line,
            f"{p} posted live {live} and dead {dead}; the missed-blind policy allows: {options}.",
            player=p, expected=options, actual=f"live {live} + dead {dead}", street="pre")
