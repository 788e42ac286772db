"""The draw: discards and new cards in turn from the button's left, the draw limit, the stub (in deck order when
it is known), the reshuffle, and every survivor drawn or standing pat before the second round."""

from __future__ import annotations

from audit.engine.clock import check_draw_time
from audit.engine.deal import any_used, note_card_list, same_cards
from audit.engine.rounds import close_round
from audit.engine.state import (
    HandState, Player, draw_limit, finding, gather, give_cards, holder_of, left_of_button, next_to_draw, note, note_all,
    record, remaining_stub_set, stub_size,
)
from audit.findings import Finding
from audit.model import Dealt, Discard, Reshuffle, StandPat
from audit.rules import Rule

def _is_prefix(cards: tuple[str, ...], stub: list[str]) -> bool:
    """``cards`` are the first cards of ``stub``, in order."""
    n = len(cards)
    if n > len(stub):
        return False
    for i in range(n):
        if cards[i] != stub[i]:
            return False
    return True


def end_draw_phase(st: HandState, line: int) -> None:
    """The draw is over (the second round begins at ``line``): judged complete, nothing left pending."""
    if st.stub.draw_closed:
        return
    st.stub.draw_closed = True
    if st.won_by_fold is not None or st.street not in ("draw",):
        if st.street in ("first",):
            close_round(st, line)
        return
    note_all(st, check_draw_complete(st, line))
    st.stub.waiting.clear()


def check_draw_complete(st: HandState, line: int) -> list[Finding] | None:
    """``DRAW_COUNT``: every discard got its new cards; ``DRAW_ORDER``: every survivor drew or stood pat (when
    the log shows every hand)."""
    out: list[Finding] | None = None
    for p, d in st.stub.waiting.items():
        if d.cards is None:
            continue  # a site log shows only the hero's new cards
        out = gather(out, finding(st, Rule.DRAW_COUNT, d.line, "no_cards", (("player", p),), player=p, street="draw"))
    if st.known_cards:
        for p in left_of_button(st):
            pl = st.players[p]
            if not pl.folded and not pl.drew:
                out = gather(out, finding(st, Rule.DRAW_ORDER, line, "skipped", (("player", p),), player=p,
                                   street="draw"))
    return out


def begin_draw_item(st: HandState, pl: Player, line: int) -> None:
    """A discard or a stand pat: the draw begins if the first round just ended; judged for its turn; the
    player has drawn."""
    if st.street in ("first", "deal", "pre"):
        close_round(st, line)
        st.street = "draw"
    note(st, check_draw_turn(st, pl.name, line))
    pl.drew = True


def check_draw_turn(st: HandState, p: str, line: int) -> Finding | None:
    """``DRAW_ORDER``: a draw in the draw, by a player still in who has not drawn, in turn (``may_draw``)."""
    variant = ""
    turn: str | None = None
    if st.street != "draw":
        variant = "outside"
    elif st.won_by_fold is not None:
        variant = "after_won"
    elif st.players[p].folded:
        variant = "after_fold"
    elif st.players[p].drew:
        variant = "twice"
    else:
        turn = next_to_draw(st)
        if turn is None or turn == p:
            return None
        variant = "out_of_turn"
    return finding(st, Rule.DRAW_ORDER, line, variant, (("player", p), ("turn", turn or "")), player=p,
                   expected=turn, actual=p if turn else None, street="draw" if variant == "outside" else None)


def on_stand_pat(st: HandState, s: StandPat, pl: Player) -> None:
    """``pl`` keeps his five cards."""
    begin_draw_item(st, pl, s.line)
    note(st, check_draw_time(st, s.player, s.line, s.took, s.timed_out))
    if st.steps is not None:
        record(st, s.line, s)


def on_discard(st: HandState, d: Discard, pl: Player) -> None:
    """``pl`` throws cards (listed, or only counted in a site's log); his new cards follow."""
    p = d.player
    begin_draw_item(st, pl, d.line)
    note(st, check_draw_time(st, p, d.line, d.took, False))
    count = len(d.cards) if d.cards is not None else d.count
    if d.cards is not None:
        found = check_discard(st, d)
        if found:
            note_all(st, found)
    note(st, check_draw_limit(st, p, d, count))
    st.stub.waiting[p] = d
    if st.steps is not None:
        record(st, d.line, d)


def check_discard(st: HandState, d: Discard) -> list[Finding] | None:
    """``DRAW_COUNT``: the cards listed are as many as said, and in the player's hand (``None``: they are)."""
    p = d.player
    thrown = d.cards or ()
    hand = st.players[p].cards
    if len(thrown) == d.count and (hand is None or _all_held(thrown, hand)):
        return None
    out: list[Finding] | None = None
    if len(thrown) != d.count:
        out = gather(out, finding(st, Rule.DRAW_COUNT, d.line, "says_lists", (("player", p), ("n", d.count),
                                                                         ("listed", len(thrown))),
                           player=p, expected=d.count, actual=len(thrown)))
    if hand is not None:
        missing = [c for c in thrown if c not in hand]
        if missing:
            out = gather(out, finding(st, Rule.DRAW_COUNT, d.line, "not_in_hand",
                               (("player", p), ("cards", " ".join(missing)), ("n", len(missing))),
                               player=p, expected=" ".join(hand), actual=" ".join(thrown)))
    return out


def _all_held(cards: tuple[str, ...], hand: tuple[str, ...]) -> bool:
    """Every one of ``cards`` is in ``hand`` (``all(c in hand for c in cards)``, without a generator). The strings
    are compared in a loop: ``c in hand`` went through the tuple's generic protocol, card by card (the cards
    listed and the cards held are distinct strings), several times the cost."""
    n = len(hand)
    for c in cards:
        held = False
        for i in range(n):
            if hand[i] == c:
                held = True
                break
        if not held:
            return False
    return True


def check_draw_limit(st: HandState, p: str, d: Discard, count: int) -> Finding | None:
    """``DRAW_LIMIT``: at most N cards; under ``3+ace`` one more when the kept cards hold an ace or the joker."""
    prof = st.profile
    limit = draw_limit(st, p, d.cards)
    if count <= limit:
        return None
    variant = "plain"
    if prof.draw_limit_ace:
        variant = "ace_kept" if limit > prof.draw_limit else "no_ace"
    return finding(st, Rule.DRAW_LIMIT, d.line, variant,
                   (("player", p), ("n", count), ("limit", limit), ("with_ace", prof.draw_limit + 1)),
                   player=p, expected=f"at most {limit}", actual=count)


def received_without_discard(st: HandState, d: Dealt) -> Finding:
    """``DRAW_ORDER``: new cards to a player who threw none (or cards dealt twice)."""
    return finding(st, Rule.DRAW_ORDER, d.line, "no_discard", (("player", d.player),), player=d.player)


def on_reshuffle(st: HandState, r: Reshuffle) -> None:
    """The dealer makes a new stub for the next player to draw (``reshuffle`` in the profile says from what):
    judged, then the stub."""
    p = next_to_draw(st)
    if st.street in ("first",):
        close_round(st, r.line)
        st.street = "draw"
    note_card_list(st, r.cards, r.line, "stub")
    policy = st.profile.reshuffle
    if policy == "not-audited":
        return
    remaining = remaining_stub_set(st)
    note_all(st, check_reshuffle(st, r, p, remaining))
    if policy == "stub-first":
        if st.stub.cards is not None:
            old = st.stub.cards
        else:  # the old stub's cards are known, their order is not
            old = sorted(remaining)
            st.stub.unordered = len(old)
        st.stub.cards = list(old) + [c for c in r.cards if c not in old]
    else:
        st.stub.cards = list(r.cards)
    st.stub.known_order = True
    if st.stub.back is None:
        st.stub.back = set()
        st.stub.drawn_again = set()
    st.stub.back |= set(r.cards) & st.stub.used
    if st.steps is not None:
        record(st, r.line, r)


def check_reshuffle(st: HandState, r: Reshuffle, p: str | None, remaining: set[str]) -> list[Finding] | None:
    """``RESHUFFLE``: only when the stub cannot serve the next draw; the new stub holds what the profile's
    ``reshuffle`` lets back (others' discards and folded hands; with ``merge-stub`` the old stub too) and
    nothing else. ``p``: the next player to draw; ``remaining``: the old stub's cards."""
    out: list[Finding] | None = None
    policy = st.profile.reshuffle
    need = _next_discard_count(st, r) or 0
    left = stub_size(st)
    if need and left >= need:
        out = gather(out, finding(st, Rule.RESHUFFLE, r.line, "not_needed", (("n", left), ("need", need)),
                           expected="no reshuffle", actual="reshuffle"))
    others = set()
    for q, cs in st.stub.discarded.items():
        if q != p:
            others.update(cs)
    for pl in st.players.values():
        if pl.folded and pl.cards is not None:
            others.update(pl.cards)
    if st.stub.drawn_again is not None:
        others -= st.stub.drawn_again
    listed = set(r.cards)
    if policy == "merge-stub":
        allowed = remaining | others
        must = remaining
    else:
        allowed = others - remaining  # the old stub is dealt first and is not listed
        must = set()
    bad = sorted(listed - allowed)
    lacking = sorted(must - listed)
    if bad or lacking or (st.known_cards and listed != allowed):
        parts: list[str] = []
        stub_left = sorted(set(bad) & remaining) if policy == "stub-first" else []
        if stub_left:
            parts.append("finding.RESHUFFLE.part_stub_left")
        barred = sorted(set(bad) - set(stub_left))
        if barred:
            parts.append("finding.RESHUFFLE.part_barred")
        if lacking:
            parts.append("finding.RESHUFFLE.part_lacking")
        missing_discards = sorted(allowed - listed - set(lacking))
        if missing_discards and st.known_cards and not bad:
            parts.append("finding.RESHUFFLE.part_left_out")
        out = gather(out, finding(st, Rule.RESHUFFLE, r.line, "wrong",
                           (("problem_parts", "\n".join(parts)), ("stub_left", " ".join(stub_left)),
                            ("barred", " ".join(barred)), ("lacking", " ".join(lacking)),
                            ("left_out", " ".join(missing_discards))),
                           player=p, expected=" ".join(sorted(allowed)), actual=" ".join(r.cards)))
    return out


def _next_discard_count(st: HandState, r: Reshuffle) -> int | None:
    after = False
    for item in st.hand.body:
        if item is r:
            after = True
            continue
        if after and type(item) is Discard:
            return len(item.cards) if item.cards is not None else item.count
    return None


def draw_received(st: HandState, d: Dealt, pl: Player) -> None:
    """A player's new cards after his discard: judged (as many as he threw, his kept cards unchanged, five in
    all, off the stub), then his."""
    p = d.player
    pending = st.stub.waiting
    disc = pending[p]
    del pending[p]
    hand = pl.cards if pl.cards is not None else ()
    if len(d.groups) == 1:
        kept: tuple[str, ...] = ()
        new = d.groups[0]
        if disc.cards is not None and len(disc.cards) != 5 and hand:
            # one bracket: the whole new hand as some sites print it
            kept = tuple(c for c in hand if c not in disc.cards)
            new = tuple(c for c in d.groups[0] if c not in kept)
    else:
        kept, new = d.groups[0], d.groups[1]
    found = check_received(st, d, disc, hand, kept, new)
    if found:
        note_all(st, found)
    note_card_list(st, new, d.line, "new_cards", p)
    if st.stub.loose_cards or any_used(st, new):
        note_all(st, check_stub_cards(st, p, new, d.line))
    if st.stub.cards is not None:
        note(st, check_stub_order(st, p, new, d.line))
    take_from_stub(st, new)
    discarded = disc.cards
    if discarded is not None:
        gone = st.stub.discarded.get(p)
        if gone is None:
            st.stub.discarded[p] = list(discarded)
        else:
            gone.extend(discarded)
    if not st.stub.loose_cards:
        used = st.stub.used
        for c in kept:
            if c not in used:
                st.stub.loose_cards = True
                break
    give_cards(st, pl, kept + new)


def check_received(st: HandState, d: Dealt, disc: Discard, hand: tuple[str, ...], kept: tuple[str, ...],
                   new: tuple[str, ...]) -> list[Finding] | None:
    """``DRAW_COUNT``: as many new cards as thrown, the kept cards those not thrown, five cards after the draw."""
    p = d.player
    out: list[Finding] | None = None
    ndisc = len(disc.cards) if disc.cards is not None else disc.count
    if len(new) != ndisc:
        out = [finding(st, Rule.DRAW_COUNT, d.line, "received", (("player", p), ("thrown", ndisc), ("n", len(new))),
                       player=p, expected=ndisc, actual=len(new))]
    discarded = disc.cards
    if hand and discarded is not None and len(d.groups) > 1 and not _kept_in_order(hand, discarded, kept):
        kept_in_order = [c for c in hand if c not in discarded]
        if not same_cards(kept_in_order, kept):
            expected_kept = sorted(kept_in_order)
            if sorted(kept) != expected_kept:
                want, shown = " ".join(expected_kept), " ".join(kept)
                found = finding(st, Rule.DRAW_COUNT, d.line, "kept", (("player", p), ("want", want), ("kept", shown)),
                                player=p, expected=want, actual=shown)
                out = [found] if out is None else out + [found]
    n = len(kept) + len(new)
    if n != 5:
        found = finding(st, Rule.DRAW_COUNT, d.line, "ends_with", (("player", p), ("n", n)), player=p, expected=5,
                        actual=n)
        out = [found] if out is None else out + [found]
    return out


def _kept_in_order(hand: tuple[str, ...], thrown: tuple[str, ...], kept: tuple[str, ...]) -> bool:
    """Whether ``kept`` is ``hand`` without the ``thrown`` cards, in the hand's order (``same_cards`` of the
    kept list, without building it)."""
    n = len(kept)
    j = 0
    for c in hand:
        is_thrown = False
        for t in thrown:
            if t == c:
                is_thrown = True
                break
        if is_thrown:
            continue
        if j >= n or kept[j] != c:
            return False
        j += 1
    return j == n


def check_stub_cards(st: HandState, p: str, new: tuple[str, ...], line: int) -> list[Finding] | None:
    """``STUB_CARD`` / ``CARD_DUPLICATE``: the new cards come off the stub: never a live card (his own or
    another's), never a card dealt or discarded that no reshuffle let back, never a card drawn twice."""
    out: list[Finding] | None = None
    # every live card is in ``used`` unless ``loose_cards``: new cards outside it are not live
    live = {c for pl in st.holders if not pl.folded and pl.cards is not None for c in pl.cards}
    none: frozenset[str] = frozenset()  # (no reshuffle yet: nothing let back, nothing drawn again)
    back = st.stub.back if st.stub.back is not None else none
    again = st.stub.drawn_again if st.stub.drawn_again is not None else none
    for c in new:
        params = (("player", p), ("card", c))
        if c in live and c not in back:
            holder = holder_of(st, c, live_only=True)
            if holder == p:
                out = gather(out, finding(st, Rule.STUB_CARD, line, "own", params, player=p, actual=c, street="draw"))
            else:
                out = gather(out, finding(st, Rule.CARD_DUPLICATE, line, "drawn_live", params + (("holder", str(holder)),),
                                   player=p, actual=c, street="draw"))
        elif c in st.stub.used and c not in back:
            out = gather(out, finding(st, Rule.STUB_CARD, line, "not_in_stub", params, player=p, actual=c, street="draw"))
        elif c in again:
            out = gather(out, finding(st, Rule.STUB_CARD, line, "drawn_again", params, player=p, actual=c, street="draw"))
    return out


def check_stub_order(st: HandState, p: str, new: tuple[str, ...], line: int) -> Finding | None:
    """``DEAL_ORDER``: when the stub's order is known (a deck line, a reshuffle), new cards come off its top
    (after a ``stub-first`` reshuffle, the old stub's cards first, in any order)."""
    stub = st.stub.cards
    if stub is None or (st.stub.unordered == 0 and _is_prefix(new, stub)):
        return None
    top = stub[:len(new)]
    head = stub[:st.stub.unordered]  # stub-first: the old stub's cards, order unknown
    if head and len(new) <= len(head):
        in_order = set(new) <= set(head)
    elif head:
        in_order = set(head) <= set(new) and sorted(set(new) - set(head)) == sorted(top[len(head):])
    else:
        in_order = sorted(top) == sorted(new)
    if in_order or (st.stub.deck_order is None and not st.stub.known_order):
        return None
    if head and len(new) > len(head):
        variant = "stub_head_first"
    elif head:
        variant = "stub_from_head"
    else:
        variant = "stub"
    return finding(st, Rule.DEAL_ORDER, line, variant,
                   (("player", p), ("head", " ".join(head)), ("rest", " ".join(top[len(head):])),
                    ("n", len(new)), ("top", " ".join(top))),
                   player=p, expected=" ".join(top), actual=" ".join(new), street="draw")


def take_from_stub(st: HandState, new: tuple[str, ...]) -> None:
    """The new cards leave the stub (off its top when they match it) and are out of play from now on."""
    stub = st.stub.cards
    if stub is not None and st.stub.unordered == 0 and _is_prefix(new, stub):
        st.stub.cards = stub[len(new):]  # drawn in order off the top (what the slow path below finds too)
    elif stub is not None:
        head = stub[:st.stub.unordered]
        st.stub.unordered = max(0, len(head) - len(set(new) & set(head)))
        remaining = list(stub)
        for c in new:
            if c in remaining:
                remaining.remove(c)
            elif remaining:
                remaining.pop(0)
        st.stub.cards = remaining
    used = st.stub.used
    back = st.stub.back  # None (or empty) unless a reshuffle let cards back
    if not back:
        for c in new:
            used.add(c)
        return
    again = st.stub.drawn_again
    assert again is not None  # made with ``back``
    for c in new:
        used.add(c)
        if c in back:
            again.add(c)
            back.discard(c)
