"""The show down: shown hands against the cards each player holds, their stated names, who shows first, the best
hand of each pot, points in a game without bets, and (site logs) the hero's known cards against the hands shown."""

from __future__ import annotations

from audit.engine.deal import note_card_list
from audit.engine.parole import check_play_after_split, end_parole_answers
from audit.engine.rounds import close_round

from audit.engine.state import (
    HandState, Player, cards_of, finding, gather, give_cards, hand_strength, note, record, same_hand,
)
from audit.findings import Finding
from audit.model import Action, Dealt, Discard, Muck, Score, Show, StandPat
from audit.pots import Pot
from audit.rules import Rule


def on_show(st: HandState, s: Show, pl: Player) -> None:
    """A hand shown: judged against the cards the player holds and its stated name, then his cards."""
    p = s.player
    if st.parole.open:
        end_parole_answers(st, s.line)
    note(st, check_play_after_split(st, p, s.line, "show"))
    if st.street in ("second", "first", "draw"):
        close_round(st, s.line)
        st.street = "showdown"
    cards = s.cards
    final = pl.cards
    if pl.folded:
        note(st, finding(st, Rule.SHOWN_CARDS, s.line, "after_fold", (("player", p),), player=p))
    note_card_list(st, cards, s.line, "shown", p)
    note(st, check_shown(st, s, final))
    if final is None or not st.known_cards:
        give_cards(st, pl, cards)
        if not st.stub.loose_cards:
            for c in cards:
                if c not in st.stub.used:
                    st.stub.loose_cards = True
                    break
        if not st.known_cards:
            shown_all = st.shown_cards_all
            if shown_all is None:
                shown_all = st.shown_cards_all = set()
            for c in cards:
                if c in shown_all:
                    note(st, finding(st, Rule.CARD_DUPLICATE, s.line, "shown_twice", (("card", c),), player=p,
                                     actual=c))
                shown_all.add(c)
    if s.description is not None:
        note(st, check_description(st, s))
    first = p not in st.shown
    if first:
        st.show_order.append(p)
    st.shown[p] = s
    if first:  # judged as the one who should have shown first shows, not when the hand ends
        note(st, check_show_order(st, [q.name for q in st.dealt if not q.folded], p))
    if st.steps is not None:
        record(st, s.line, s)


def check_shown(st: HandState, s: Show, final: tuple[str, ...] | None) -> Finding | None:
    """``SHOWN_CARDS``: the cards shown are the player's hand after the draw (when the log shows every hand), or
    hold the cards the log showed him (a site's hero)."""
    p = s.player
    cards = s.cards
    if final is None:
        return None
    if st.known_cards:
        if same_hand(final, cards) or sorted(final) == sorted(cards):
            return None
        return finding(st, Rule.SHOWN_CARDS, s.line, "differ",
                       (("player", p), ("cards", " ".join(cards)), ("held", " ".join(final))),
                       player=p, expected=" ".join(final), actual=" ".join(cards))
    if set(final) <= set(cards):
        return None
    return finding(st, Rule.SHOWN_CARDS, s.line, "not_dealt",
                   (("player", p), ("cards", " ".join(cards)), ("held", " ".join(final))), player=p)


def check_description(st: HandState, s: Show) -> Finding | None:
    """``HAND_DESCRIPTION``: the hand's stated name is what its five cards make (not judged for cards the deck
    cannot rank: the card itself is the finding)."""
    assert s.description is not None
    strength = hand_strength(st, s.player, s.cards)
    if strength is None or st.ranking.fits_description(s.description, strength):
        return None
    named = st.ranking.describe_strength(strength)
    return finding(st, Rule.HAND_DESCRIPTION, s.line, "wrong",
                   (("player", s.player), ("cards", " ".join(s.cards)), ("is_hand", named),
                    ("stated_hand", s.description)),
                   player=s.player, expected=named, actual=s.description)


def on_muck(st: HandState, m: Muck) -> None:
    """A hand thrown away unshown at the show down."""
    if st.parole.open:
        end_parole_answers(st, m.line)
    if st.street in ("second", "first", "draw"):
        close_round(st, m.line)
        st.street = "showdown"
    st.mucked.add(m.player)
    if st.steps is not None:
        record(st, m.line, m)


def on_score(st: HandState, s: Score) -> None:
    """A point scored (a game without bets)."""
    st.scores[s.player] = st.scores.get(s.player, 0) + s.points
    if st.steps is not None:
        record(st, s.line, s)


def best_hands(st: HandState, players: list[str]) -> list[str]:
    """Of ``players``, those holding the best five cards (ties all); a hand the deck does not allow (a card
    outside it, a card twice, not five cards) is left out: it wins and scores nothing, and the card is reported
    where it was dealt."""
    best: tuple[int, ...] | None = None
    winners: list[str] = []
    for p in players:
        s = hand_strength(st, p, cards_of(st, p))
        if s is None:
            continue
        if best is None or s > best:
            best, winners = s, [p]
        elif s == best:
            winners.append(p)
    return winners


def pot_winners(st: HandState, pot: Pot, showdown_players: list[str], parole: bool) -> list[str]:
    """Who wins ``pot``: its only eligible player, every eligible player after an accepted parole, else the
    best hands among those who reached the show down."""
    return winners_among(st, pot.eligible, showdown_players, parole)


def winners_among(st: HandState, pot_eligible: tuple[str, ...], showdown_players: list[str],
                  parole: bool) -> list[str]:
    """``pot_winners`` for a pot given by its eligible players."""
    if parole:
        return list(pot_eligible)
    eligible = [p for p in pot_eligible if p in showdown_players]
    if len(pot_eligible) == 1:
        return list(pot_eligible)
    if not eligible:
        return []
    return best_hands(st, eligible)


def check_show_order(st: HandState, live: list[str], shower_now: str) -> Finding | None:
    """``SHOW_ORDER``: the last aggressor of the second round shows first (else the first to act, or the first
    player left of the button, as the profile says); judged when he shows (``shower_now``) after another."""
    if not st.show_order or len(live) < 2 or st.parole.state == "accepted":
        return None
    first_shower = first_to_show(st, live)
    if first_shower is None or first_shower not in live or first_shower != shower_now:
        return None
    shower = st.show_order[0]
    if shower == first_shower or first_shower not in st.shown:
        return None
    return finding(st, Rule.SHOW_ORDER, st.shown[shower].line, "first",
                   (("player", shower), ("first", first_shower)), player=shower, expected=first_shower,
                   actual=shower, street="showdown")


def first_to_show(st: HandState, live: list[str]) -> str | None:
    """Who shows first (what is legal now): the last aggressor of the second round, else the first to act in it
    or the first player left of the button, as the profile says (``live``: the players not folded)."""
    second = st.rounds.get("second")
    first_shower: str | None = None
    if second is not None and second.last_aggressor is not None:
        first_shower = second.last_aggressor
    elif st.profile.show_first_no_bet == "first-to-act" and second is not None and second.first_actor:
        first_shower = second.first_actor
    else:
        order = st.order
        n = len(order)
        start = st.button_index + 1
        for i in range(n):
            q = order[(start + i) % n]
            if q in live:
                first_shower = q
                break
    return first_shower


def check_points_mode(st: HandState) -> Finding | None:
    """``POINTS``: a house log's seats count points when the game is played for points, chips otherwise."""
    prof = st.profile
    hand = st.hand
    if prof.points_mode == hand.points_mode or not hand.shows_all_cards:
        return None
    line = hand.seats[0].line if hand.seats else hand.line
    return finding(st, Rule.POINTS, line, "seats_chips" if prof.points_mode else "seats_points",
                   expected="points" if prof.points_mode else "chips",
                   actual="points" if hand.points_mode else "chips", street="pre")


def check_points(st: HandState, live: list[str]) -> list[Finding] | None:
    """``POINTS`` (a game without bets): one point to each best hand, none to anyone else."""
    winners = best_hands(st, live)
    out: list[Finding] | None = None
    end = st.hand.end_line
    for p in winners:
        if st.scores.get(p, 0) != 1:
            out = gather(out, finding(st, Rule.POINTS, end, "best_no_point", (("player", p),), player=p, expected=1,
                               actual=st.scores.get(p, 0), street="showdown"))
    for p, n in st.scores.items():
        if p not in winners:
            out = gather(out, finding(st, Rule.POINTS, end, "not_best", (("player", p), ("points", n)), player=p,
                               expected=0, actual=n, street="showdown"))
    return out


def check_site_known_cards(st: HandState) -> list[Finding] | None:
    """Site logs: the hero's known cards against every other player's shown hand (RULES.md, "Site logs").

    A card the hero still held after the draw is live: shown by another player it is ``CARD_DUPLICATE`` (when
    the hero showed too, the shown hands' own comparison reports it). A player who stood pat shows the hand he
    was dealt, so a card the hero was dealt is ``CARD_DUPLICATE`` there too. When the cards dealt in the hand,
    draws included, number 52 or fewer, no reshuffle can have happened: a card the hero threw away (a discard,
    or his hand folded before the draw) that another player shows is ``STUB_CARD``."""
    out: list[Finding] | None = None
    if not st.shown:
        return out
    dealt: dict[str, set[str]] = {}  # the hero's (a player whose cards the log shows) first hand
    held: dict[str, set[str]] = {}  # every card he held
    thrown: dict[str, set[str]] = {}  # his discards
    stood_pat: set[str] = set()
    cards_dealt = 5 * len(st.order)
    for item in st.hand.body:
        if type(item) is Dealt:
            cards = {c for group in item.groups for c in group}
            if item.player not in dealt:
                dealt[item.player] = cards
                held[item.player] = set(cards)
            else:
                held[item.player] |= cards
        elif type(item) is Discard:
            cards_dealt += len(item.cards) if item.cards is not None else item.count
            if item.cards is not None:
                thrown.setdefault(item.player, set()).update(item.cards)
        elif type(item) is StandPat:
            stood_pat.add(item.player)
    no_reshuffle = cards_dealt <= len(st.deck_cards)
    for hero, first in dealt.items():
        record_of = st.players.get(hero)
        folded_before_draw = record_of is not None and record_of.folded and not record_of.drew
        discards = thrown.get(hero, set())
        live = set() if folded_before_draw else held[hero] - discards
        gone = held[hero] if folded_before_draw else discards
        hero_shown = set(st.shown[hero].cards) if hero in st.shown else set()
        for q in st.show_order:
            if q == hero or q in dealt:
                continue
            show = st.shown[q]
            for c in show.cards:
                if c in hero_shown:
                    continue  # two shown hands: reported when the second was shown
                params = (("player", q), ("card", c), ("hero", hero), ("n", cards_dealt))
                if c in live:
                    out = gather(out, finding(st, Rule.CARD_DUPLICATE, show.line, "site_live", params, player=q,
                                       actual=c, street="showdown"))
                elif c in first and q in stood_pat:
                    out = gather(out, finding(st, Rule.CARD_DUPLICATE, show.line, "site_stood_pat", params, player=q,
                                       actual=c, street="showdown"))
                elif c in gone and no_reshuffle:
                    out = gather(out, finding(st, Rule.STUB_CARD, show.line,
                                       "site_folded" if folded_before_draw else "site_discarded", params,
                                       player=q, actual=c, street="showdown"))
    return out


def check_what_shown_proves(st: HandState) -> tuple[list[Finding] | None, tuple[str, ...]]:
    """A log that shows only some cards (``Cards: shown``): what the shown hands prove about the draw and the
    opening (FORMAT.md, "What the shown cards prove"), and the checks they could not make.

    A player who drew N cards kept the other 5 - N of the hand he shows: under ``draw-limit = 3+ace`` a draw of
    four by a player whose dealt hand the log does not give, and whose shown hand holds no ace (nor the joker),
    kept no ace and is ``DRAW_LIMIT``; an ace shown (it may have been drawn) or a hand never shown leaves it
    unjudged (``draw_limit``). A player who stood pat shows the hand he was dealt: under ``openers = jacks`` an
    opener whose dealt hand the log does not give, who stood pat and shows no pair of Jacks or better, is
    ``OPENERS``; one who drew or never showed leaves it unjudged (``openers``)."""
    prof = st.profile
    if st.hand.shows_all_cards or not (prof.draw_limit_ace or prof.openers_jacks):
        return None, ()
    dealt: set[str] = set()  # players whose dealt hand the log gives
    draws: dict[str, Discard | StandPat] = {}
    bets: dict[str, Action] = {}  # each player's first bet
    for item in st.hand.body:
        if isinstance(item, Dealt):
            if item.player not in draws:
                dealt.add(item.player)
        elif isinstance(item, (Discard, StandPat)):
            if item.player not in draws:
                draws[item.player] = item
        elif isinstance(item, Action) and item.kind == "bet" and item.player not in bets:
            bets[item.player] = item
    out: list[Finding] | None = None
    unjudged: list[str] = []
    if prof.draw_limit_ace:
        for p, d in draws.items():
            if type(d) is not Discard or p in dealt:
                continue
            n = len(d.cards) if d.cards is not None else d.count
            if n != prof.draw_limit + 1:
                continue
            show = st.shown.get(p)
            if show is None or any(c[0] == "A" or c == "Jk" for c in show.cards):
                if "draw_limit" not in unjudged:
                    unjudged.append("draw_limit")
                continue
            out = gather(out, finding(st, Rule.DRAW_LIMIT, d.line, "shown_no_ace",
                                      (("player", p), ("n", n), ("cards", " ".join(show.cards)),
                                       ("limit", prof.draw_limit)),
                                      player=p, expected=f"at most {prof.draw_limit}", actual=n, street="draw"))
    first = st.rounds.get("first")
    opener = first.opener if first is not None else None
    if prof.openers_jacks and opener is not None and opener not in dealt and opener in bets:
        show = st.shown.get(opener)
        strength = hand_strength(st, opener, show.cards) if show is not None else None
        if type(draws.get(opener)) is not StandPat or strength is None:
            unjudged.append("openers")
        elif not st.ranking.jacks_or_better(strength):
            assert show is not None
            named = st.ranking.describe_strength(strength)
            out = gather(out, finding(st, Rule.OPENERS, bets[opener].line, "shown_pat",
                                      (("player", opener), ("cards", " ".join(show.cards)), ("is_hand", named)),
                                      player=opener, expected="a pair of Jacks or better", actual=named,
                                      street="first"))
    return out, tuple(unjudged)
