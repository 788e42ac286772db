"""The draw: discards and new cards in turn from the button's left, the draw limit, the stub (in deck order when
it is known), the reshuffle, and every survivor drawn or standing pat before the second round."""

from __future__ import annotations

from typing import Final

from audit.engine.deal import check_card_list, same_cards
from audit.engine.rounds import close_round
from audit.engine.state import (
    HandState, add, draw_limit, left_of_button, next_to_draw, record, remaining_stub_set, stub_size,
)
from audit.model import Dealt, Discard, Reshuffle, StandPat
from audit.rules import Rule

_NO_CARDS: Final[frozenset[str]] = frozenset()


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
    """Every survivor must have drawn (or stood pat) before the second round."""
    if st.draw_closed:
        return
    st.draw_closed = True
    if st.won_by_fold is not None or st.street not in ("draw",):
        if st.street in ("first",):
            close_round(st, line)
        return
    for p, d in st.draw_pending.items():
        if d.cards is None:
            continue  # a site log shows only the hero's new cards
        add(st, Rule.DRAW_COUNT, d.line, f"{p} discarded but received no cards.", player=p, street="draw")
    st.draw_pending.clear()
    if st.known_cards:
        missed = [p for p in left_of_button(st) if p not in st.folded and p not in st.drew]
        for p in missed:
            add(st, Rule.DRAW_ORDER, line, f"{p} was skipped in the draw (neither drew nor stood pat).",
                player=p, street="draw")


def begin_draw_item(st: HandState, p: str, line: int) -> None:
    """A discard or a stand pat: the draw begins if the first round just ended; judged for its turn."""
    if st.street in ("first", "deal", "pre"):
        close_round(st, line)
        st.street = "draw"
    if st.street != "draw":
        add(st, Rule.DRAW_ORDER, line, f"{p} drew outside the draw.", player=p, street="draw")
        return
    if st.won_by_fold is not None:
        add(st, Rule.DRAW_ORDER, line, f"{p} drew after the hand was already won.", player=p)
        return
    if p in st.folded:
        add(st, Rule.DRAW_ORDER, line, f"{p} drew after folding.", player=p)
        return
    if p in st.drew:
        add(st, Rule.DRAW_ORDER, line, f"{p} drew twice.", player=p)
        return
    turn = next_to_draw(st)
    if turn is not None and turn != p:
        add(st, Rule.DRAW_ORDER, line, f"{p} drew out of turn: it was {turn}'s turn.", player=p,
            expected=turn, actual=p)


def on_stand_pat(st: HandState, s: StandPat) -> None:
    """A player keeps his five cards."""
    begin_draw_item(st, s.player, s.line)
    st.drew.add(s.player)
    limit = st.profile.time_limit
    if s.took is not None and limit is not None and s.took > limit and not s.timed_out:
        add(st, Rule.TIME_LIMIT, s.line, f"{s.player} took {s.took:g}s to draw; the limit is "
            f"{limit}s.", player=s.player)
    if st.steps is not None:
        record(st, s.line, s)


def on_discard(st: HandState, d: Discard) -> None:
    """A player throws cards (listed, or only counted in a site's log); his new cards follow."""
    p = d.player
    begin_draw_item(st, p, d.line)
    st.drew.add(p)
    limit = st.profile.time_limit
    if d.took is not None and limit is not None and d.took > limit:
        add(st, Rule.TIME_LIMIT, d.line, f"{p} took {d.took:g}s to draw; the limit is {limit}s.", player=p)
    hand = st.cards.get(p)
    if d.cards is not None:
        if len(d.cards) != d.count:
            add(st, Rule.DRAW_COUNT, d.line, f"{p} says {d.count} cards but lists {len(d.cards)}.",
                player=p, expected=d.count, actual=len(d.cards))
        if hand is not None:
            missing = [c for c in d.cards if c not in hand]
            if missing:
                add(st, Rule.DRAW_COUNT, d.line,
                    f"{p} discarded {' '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
                    "not in his hand.", player=p, expected=" ".join(hand), actual=" ".join(d.cards))
    count = len(d.cards) if d.cards is not None else d.count
    check_draw_limit(st, p, d, count)
    st.draw_pending[p] = d
    if st.steps is not None:
        record(st, d.line, d)


def check_draw_limit(st: HandState, p: str, d: Discard, count: int) -> None:
    """``DRAW_LIMIT``: at most N cards; under ``3+ace`` one more when the kept cards hold an ace or the joker."""
    prof = st.profile
    limit = draw_limit(st, p, d.cards)
    if count <= limit:
        return
    why = ""
    if prof.draw_limit_ace:
        why = (" (an ace or the joker is kept)" if limit > prof.draw_limit
               else f" without an ace or the joker kept ({prof.draw_limit + 1} only when keeping one)")
    add(st, Rule.DRAW_LIMIT, d.line, f"{p} drew {count} cards; the limit is {limit}{why}.", player=p,
        expected=f"at most {limit}", actual=count)


def received_without_discard(st: HandState, d: Dealt) -> None:
    """``DRAW_ORDER``: new cards to a player who threw none (or cards dealt twice)."""
    add(st, Rule.DRAW_ORDER, d.line, f"{d.player} received cards without discarding first.", player=d.player)


def on_reshuffle(st: HandState, r: Reshuffle) -> None:
    """The dealer makes a new stub for the next player to draw (``reshuffle`` in the profile says from what)."""
    p = next_to_draw(st)
    if st.street in ("first",):
        close_round(st, r.line)
        st.street = "draw"
    check_card_list(st, r.cards, r.line, "the reshuffled stub")
    need = 0
    nxt = _next_discard_count(st, r)
    if nxt is not None:
        need = nxt
    policy = st.profile.reshuffle
    if policy == "not-audited":
        return
    remaining = remaining_stub_set(st)
    if need and stub_size(st) >= need:
        add(st, Rule.RESHUFFLE, r.line,
            f"The dealer reshuffled although {stub_size(st)} cards were left for a draw of {need}.",
            expected="no reshuffle", actual="reshuffle")
    others = set()
    for q, cs in st.discarded.items():
        if q != p:
            others.update(cs)
    for q in st.folded:
        others.update(st.cards.get(q, ()))
    others -= st.back_in_stub_drawn
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
        parts = []
        stub_left = sorted(set(bad) & remaining) if policy == "stub-first" else []
        if stub_left:
            parts.append(f"it holds the stub's last {' '.join(stub_left)}, which are dealt first, not shuffled")
        if sorted(set(bad) - set(stub_left)):
            parts.append(f"it holds {' '.join(sorted(set(bad) - set(stub_left)))}, which may not go back in")
        if lacking:
            parts.append(f"it lacks the stub's {' '.join(lacking)}")
        missing_discards = sorted(allowed - listed - set(lacking))
        if missing_discards and st.known_cards and not bad:
            parts.append(f"it leaves out {' '.join(missing_discards)}")
        add(st, Rule.RESHUFFLE, r.line, "The reshuffled stub is wrong: " + "; ".join(parts) + ".",
            player=p, expected=" ".join(sorted(allowed)), actual=" ".join(r.cards))
    if policy == "stub-first":
        if st.stub is not None:
            old = st.stub
        else:  # the old stub's cards are known, their order is not
            old = sorted(remaining)
            st.stub_unordered = len(old)
        st.stub = list(old) + [c for c in r.cards if c not in old]
    else:
        st.stub = list(r.cards)
    st.stub_is_known_order = True
    st.back_in_stub |= listed & st.used
    if st.steps is not None:
        record(st, r.line, "Dealer reshuffles")


def _next_discard_count(st: HandState, r: Reshuffle) -> int | None:
    after = False
    for item in st.hand.body:
        if item is r:
            after = True
            continue
        if after and type(item) is Discard:
            return len(item.cards) if item.cards is not None else item.count
    return None


def draw_received(st: HandState, d: Dealt) -> None:
    """A player's new cards after his discard: as many as he threw, his kept cards unchanged, five in all."""
    p = d.player
    disc = st.draw_pending.pop(p)
    hand = st.cards.get(p, ())
    if len(d.groups) == 1:
        kept: tuple[str, ...] = ()
        new = d.groups[0]
        if disc.cards is not None and len(disc.cards) != 5 and hand:
            # one bracket: the whole new hand as some sites print it
            kept = tuple(c for c in hand if c not in disc.cards)
            new = tuple(c for c in d.groups[0] if c not in kept)
    else:
        kept, new = d.groups[0], d.groups[1]
    ndisc = len(disc.cards) if disc.cards is not None else disc.count
    if len(new) != ndisc:
        add(st, Rule.DRAW_COUNT, d.line, f"{p} discarded {ndisc} but received {len(new)} cards.", player=p,
            expected=ndisc, actual=len(new))
    discarded = disc.cards
    if hand and discarded is not None and len(d.groups) > 1:
        kept_in_order = [c for c in hand if c not in discarded]
        if not same_cards(kept_in_order, kept):
            expected_kept = sorted(kept_in_order)
            if sorted(kept) != expected_kept:
                add(st, Rule.DRAW_COUNT, d.line,
                    f"{p} should have kept {' '.join(expected_kept)} but the line shows {' '.join(kept)}.",
                    player=p, expected=" ".join(expected_kept), actual=" ".join(kept))
    final = kept + new
    if len(final) != 5:
        add(st, Rule.DRAW_COUNT, d.line, f"{p} ends the draw with {len(final)} cards instead of 5.",
            player=p, expected=5, actual=len(final))
    check_card_list(st, new, d.line, "'s new cards", p)
    take_from_stub(st, p, new, d.line)
    if discarded is not None:
        gone = st.discarded.get(p)
        if gone is None:
            st.discarded[p] = list(discarded)
        else:
            gone.extend(discarded)
    if not st.loose_cards:
        used = st.used
        for c in kept:
            if c not in used:
                st.loose_cards = True
                break
    st.cards[p] = final


def take_from_stub(st: HandState, p: str, new: tuple[str, ...], line: int) -> None:
    """The new cards must come off the stub: never a live card, never a discard without a reshuffle."""
    used = st.used
    check = st.loose_cards  # a live hand may hold a card outside ``used``
    if not check:
        for c in new:
            if c in used:
                check = True
                break
    # every live card is in ``used`` unless ``loose_cards``: new cards outside it are not live
    live = {c for q, cs in st.cards.items() if q not in st.folded for c in cs} if check else _NO_CARDS
    for c in new:
        if c in live and c not in st.back_in_stub:
            holder = next((q for q, cs in st.cards.items() if c in cs and q not in st.folded), None)
            if holder == p:
                add(st, Rule.STUB_CARD, line, f"{p} drew {c}, a card already in his own hand.", player=p,
                    actual=c, street="draw")
            else:
                add(st, Rule.CARD_DUPLICATE, line,
                    f"{p} drew {c}, but {holder} holds that card: it is in two live hands.", player=p,
                    actual=c, street="draw")
        elif c in st.used and c not in st.back_in_stub:
            add(st, Rule.STUB_CARD, line,
                f"{p} drew {c}, which was not in the stub: it was already dealt or discarded and no "
                "reshuffle brought it back.", player=p, actual=c, street="draw")
        elif c in st.drawn_after_reshuffle:
            add(st, Rule.STUB_CARD, line, f"{p} drew {c}, which had already been drawn.", player=p, actual=c,
                street="draw")
    stub = st.stub
    if stub is not None and st.stub_unordered == 0 and _is_prefix(new, stub):
        st.stub = stub[len(new):]  # drawn in order off the top (what the slow path below finds too)
    elif stub is not None:
        top = stub[:len(new)]
        head = stub[:st.stub_unordered]  # stub-first: the old stub's cards, order unknown
        if head and len(new) <= len(head):
            in_order = set(new) <= set(head)
        elif head:
            in_order = set(head) <= set(new) and sorted(set(new) - set(head)) == sorted(top[len(head):])
        else:
            in_order = sorted(top) == sorted(new)
        if not in_order and (st.deck_order is not None or st.stub_is_known_order):
            want = (f"the old stub's {' '.join(head)} first, then {' '.join(top[len(head):])}"
                    if head and len(new) > len(head) else
                    f"{len(new)} of the old stub's {' '.join(head)}" if head else " ".join(top))
            add(st, Rule.DEAL_ORDER, line,
                f"{p} should have drawn {want} from the top of the stub.", player=p,
                expected=" ".join(top), actual=" ".join(new), street="draw")
        st.stub_unordered = max(0, len(head) - len(set(new) & set(head)))
        remaining = list(stub)
        for c in new:
            if c in remaining:
                remaining.remove(c)
            elif remaining:
                remaining.pop(0)
        st.stub = remaining
    for c in new:
        st.used.add(c)
        if c in st.back_in_stub:
            st.drawn_after_reshuffle.add(c)
            st.back_in_stub.discard(c)
            st.back_in_stub_drawn.add(c)
