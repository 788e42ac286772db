"""The replay's shortcuts give what the plain computations give: pots built in one pass, parsed descriptions
kept, one setup per profile, and blocks audited after parsing (what ``bench/replay.py`` times)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from audit import cards
from audit.cards import ranking_for
from audit.model import Hand
from audit.dialects.dispatch import parse_block
from audit.engine.deal import clean_deal
from audit.engine.draw import _all_held
from audit.engine.state import same_hand
from audit.engine.streets import start
from audit.pipeline import FileContext, audit_file, audit_parsed, audit_text
from audit.pots import Pot, build_pots, uncalled, uncalled_bet
from audit.profile import load_profile
from audit.read import read_blocks, read_text_blocks
from audit import replay
from audit.simulate import iter_simulated
from conftest import FIXTURES


def reference_pots(contributions: Mapping[str, int], live: Iterable[str], seat_order: Sequence[str],
                   dead: int = 0) -> list[Pot]:
    """Side pots as first written (level by level, merged, renamed at the end)."""
    live_set = set(live)
    levels = sorted({contributions.get(p, 0) for p in live_set if contributions.get(p, 0) > 0})
    if not levels:
        total = sum(contributions.values()) + dead
        eligible = tuple(p for p in seat_order if p in live_set)
        return [Pot("pot", total, eligible)] if total or eligible else []
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(a, level) - previous for a in contributions.values() if a > previous)
        eligible = tuple(p for p in seat_order if p in live_set and contributions.get(p, 0) >= level)
        if pots and eligible == pots[-1].eligible:
            pots[-1] = pots[-1]._replace(amount=pots[-1].amount + amount)
        else:
            pots.append(Pot("", amount, eligible))
        previous = level
    above = sum(max(0, a - previous) for a in contributions.values())
    if above:
        pots[-1] = pots[-1]._replace(amount=pots[-1].amount + above)
    if dead:
        pots[0] = pots[0]._replace(amount=pots[0].amount + dead)
    if len(pots) == 1:
        return [pots[0]._replace(name="pot")]
    return [p._replace(name="main" if i == 0 else f"side-{i}") for i, p in enumerate(pots)]


def test_pots_match_the_level_by_level_construction() -> None:
    rng = random.Random(7)
    names = ["A", "B", "C", "D", "E", "F"]
    for _ in range(3000):
        players = names[:rng.randint(1, 6)]
        contributions = {p: rng.choice([0, 0, 1, 2, 5, 10, 10, 25, 40, -3]) for p in players}
        live = [p for p in players if rng.random() < 0.7]
        dead = rng.choice([0, 0, 3])
        assert build_pots(contributions, live, players, dead) == reference_pots(contributions, live, players, dead)


def test_side_pots_by_level() -> None:
    # D folded after putting in 25: his chips stay in both levels he reached
    pots = build_pots({"A": 10, "B": 40, "C": 40, "D": 25}, ["A", "B", "C"], ["A", "B", "C", "D"], dead=2)
    assert pots == [Pot("main", 42, ("A", "B", "C")), Pot("side-1", 75, ("B", "C"))]


def test_descriptions_are_parsed_once_and_the_same_way() -> None:
    ranking = ranking_for("standard")
    hand = ("Jc", "Jd", "2h", "3s", "4c")
    for _ in range(2):
        assert ranking.description_matches("a pair of Jacks", hand)
        assert not ranking.description_matches("a pair of Queens", hand)
        assert not ranking.description_matches("nonsense", hand)
    assert cards._parse_description("a pair of Jacks") == cards._parse_description_uncached("a pair of Jacks")
    for i in range(5000):  # the cache empties itself instead of growing without end
        cards._parse_description(f"high card Ace {i}")
    assert len(cards._PARSED) <= 4096
    assert cards._parse_description("Two Pair, Aces and Kings") == ("two pair", (14, 13))


def test_a_duplicate_card_is_refused_by_the_fast_path() -> None:
    ranking = ranking_for("standard")
    for hand in [("As", "As", "2c", "3d", "4h"), ("2c", "3d", "4h", "5s", "2c")]:
        try:
            ranking.strength(hand)
        except ValueError:
            continue
        raise AssertionError(f"{hand} was ranked")


def test_an_option_changes_the_rules_the_replay_reads(tmp_path: Path) -> None:
    """Setups are cached per profile object: a profile with options is judged by its own parameters."""
    path = tmp_path / "s.txt"
    path.write_text(next(iter_simulated("home-open", 3)).text, encoding="utf-8")
    hands = [h for h in (parse_block(b) for b in read_blocks(str(path))) if type(h) is Hand]
    base = load_profile("home-open")
    heads_up_only = base.with_options([("players", "2-2")])
    assert hands
    for hand in hands[:5]:
        assert not any(f.rule == "SEAT_COUNT" for f in replay(hand, base).findings)
        flagged = any(f.rule == "SEAT_COUNT" for f in replay(hand, heads_up_only).findings)
        assert flagged == (len(hand.seats) > 2)
        assert not any(f.rule == "SEAT_COUNT" for f in replay(hand, base).findings)


def test_audit_parsed_gives_what_audit_file_gives() -> None:
    files = sorted((FIXTURES / "profiles" / "session").glob("*.txt"))[:6] + sorted((FIXTURES / "rules").glob("*.txt"))[:6]
    assert len(files) == 12
    profile = load_profile("home-open")
    for path in files:
        whole = [(a.findings, a.session) for a in audit_file(str(path), profile)]
        ctx = FileContext(profile, profile)
        stepwise = []
        for block in read_blocks(str(path)):
            audited = audit_parsed(parse_block(block), block, ctx)
            if audited is not None:
                stepwise.append((audited.findings, audited.session))
        assert stepwise == whole, path


def reference_tables(ranking: cards.Ranking) -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]],
                                                      dict[int, str], dict[int, str]]:
    """The ranking's tables as first built: every multiset of five ranks from ``combinations_with_replacement``,
    its shape from ``_layout``, each strength spread from a list."""
    from itertools import combinations_with_replacement
    values = sorted({cards.RANK_VALUE[card[0]] for card in ranking.deck if card != cards.JOKER})
    straights: dict[tuple[int, ...], int] = {}
    for low in range(len(values) - 4):
        window = values[low:low + 5]
        if window[-1] - window[0] == 4:
            straights[tuple(window)] = window[-1]
    straights[tuple(values[:4] + [values[-1]])] = values[3]
    index = {category: i for i, category in enumerate(ranking.categories)}
    most = 5 if ranking.joker else 4
    plain_t: dict[int, tuple[int, ...]] = {}
    flush_t: dict[int, tuple[int, ...]] = {}
    plain_d: dict[int, str] = {}
    flush_d: dict[int, str] = {}
    for combo in combinations_with_replacement(values, 5):
        places, shape = cards._layout(combo)
        if shape[0] > most:
            continue
        ordered = [combo[i] for i in places]
        code = sum(1 << (3 * (v - 2)) for v in combo)
        desc = combo[::-1]
        decider = 0
        straight = straights.get(combo, 0) if len(places) == 5 else 0
        if shape == (5,):
            plain: tuple[int, ...] = (index[cards.FIVE_OF_A_KIND], ordered[0])
        elif shape == (4, 1):
            plain = (index[cards.FOUR_OF_A_KIND], *ordered)
        elif shape == (3, 2):
            plain = (index[cards.FULL_HOUSE], *ordered)
        elif shape == (3, 1, 1):
            plain = (index[cards.THREE_OF_A_KIND], *ordered)
        elif shape == (2, 2, 1):
            plain = (index[cards.TWO_PAIR], *ordered)
            decider = ordered[2]
        elif shape == (2, 1, 1, 1):
            plain = (index[cards.PAIR], *ordered)
            decider = ordered[1]
        elif straight:
            plain = (index[cards.STRAIGHT], straight)
            decider = straight
        else:
            plain = (index[cards.HIGH_CARD], *desc)
            decider = desc[0]
        if straight:
            flush: tuple[int, ...] = (index[cards.STRAIGHT_FLUSH], straight)
            flush_decider = straight
        else:
            flush = (index[cards.FLUSH], *desc)
            flush_decider = desc[0]
            if plain > flush:
                flush, flush_decider = plain, decider
        plain_t[code] = plain
        flush_t[code] = flush
        plain_d[code] = cards.RANKS[decider - 2] if decider else ""
        flush_d[code] = cards.RANKS[flush_decider - 2] if flush_decider else ""
    return plain_t, flush_t, plain_d, flush_d


def test_the_ranking_tables_are_those_of_the_plain_construction() -> None:
    for kind in ("standard", "stripped"):
        for suit_tiebreak in (False, True):
            for joker in (False, True):
                ranking = cards.Ranking(kind, suit_tiebreak, joker)
                plain_t, flush_t, plain_d, flush_d = reference_tables(ranking)
                assert ranking._plain == plain_t and list(ranking._plain) == list(plain_t)
                assert ranking._flush == flush_t and list(ranking._flush) == list(flush_t)
                if suit_tiebreak:  # the deciding ranks are read only to break ties by suit
                    assert ranking._plain_decider == plain_d and ranking._flush_decider == flush_d


def test_a_hand_held_as_a_tuple_ranks_as_any_sequence_does() -> None:
    rng = random.Random(11)
    for ranking in (ranking_for("standard"), ranking_for("stripped"), ranking_for("standard", joker=True)):
        deck = list(ranking.deck) + ["Xx", "2c"]
        for _ in range(3000):
            hand = [rng.choice(deck) for _ in range(rng.choice([5, 5, 5, 4, 6]))]
            assert ranking.rank_hand(tuple(hand)) == ranking.rank_hand(hand)


def _fresh(card: str) -> str:
    """The card as a new string object (as every line's cards are), not the literal's shared one."""
    return "".join(list(card))


def test_hands_and_held_cards_compare_as_the_tuples_do() -> None:
    rng = random.Random(13)
    deck = list(ranking_for("standard").deck) + ["Jk", "Xx", "10s"]
    for _ in range(5000):
        a = tuple(rng.choice(deck) for _ in range(rng.choice([0, 1, 4, 5, 5, 6])))
        b = tuple(_fresh(c) for c in a) if rng.random() < 0.5 else tuple(rng.sample(deck, rng.choice([4, 5, 5])))
        if rng.random() < 0.3 and b:
            b = b[:-1] + (rng.choice(deck),)
        assert same_hand(a, b) == (a == b)
        assert same_hand(a, a) and same_hand(b, b)
        assert _all_held(b, a) == all(c in a for c in b)


def test_a_deal_is_judged_and_applied_as_its_cards_say() -> None:
    rng = random.Random(17)
    text = next(iter(iter_simulated("home-open", 1, 1))).text
    parsed = next(b for b in (parse_block(x) for x in read_text_blocks(text, "<t>")) if isinstance(b, Hand))
    deck = list(ranking_for("standard").deck)
    for _ in range(2000):
        st = start(parsed, load_profile("home-open"))
        used = set(rng.sample(deck, rng.choice([0, 0, 5, 20])))
        before = set(used)
        dealt = tuple(_fresh(rng.choice(deck + ["Xx"])) for _ in range(rng.choice([4, 5, 5, 5, 6])))
        plain = len(dealt) == 5 and set(dealt) <= set(deck) and len(set(dealt)) == 5 and not set(dealt) & used
        assert clean_deal(st, st.dealt[0], dealt, used) == plain
        assert used == (before | set(dealt) if plain else before)


def test_the_uncalled_bet_of_a_dict_is_that_of_any_mapping() -> None:
    rng = random.Random(19)
    for _ in range(2000):
        bets = {p: rng.choice([0, 2, 5, 5, 10, 40]) for p in ["A", "B", "C", "D"][:rng.randint(0, 4)]}
        assert uncalled_bet(bets) == uncalled(MappingProxyType(bets)) == uncalled(bets)


def test_a_pot_keeps_its_keys_in_their_order() -> None:
    text = (FIXTURES / "rules" / "ODD_CHIP-hit.txt").read_text(encoding="utf-8")
    results = [a.result for a in audit_text(text) if a.result is not None]
    assert results and all(list(p)[:6] == ["name", "amount", "eligible", "winners", "awards", "collected"]
                           for r in results for p in r.pots)


def test_a_stated_name_fits_a_hand_as_the_named_tuples_compare() -> None:
    rng = random.Random(23)
    for ranking in (ranking_for("standard"), ranking_for("stripped"), ranking_for("standard", joker=True)):
        deck = list(ranking.deck)
        strengths = []
        for _ in range(400):
            s = ranking.rank_hand(tuple(rng.sample(deck, 5)))
            if s is not None:
                strengths.append(s)
        texts = [ranking.describe_strength(s) for s in strengths] + ["a straight, Ace to Five", "garbage",
                                                                     "two pair, Aces and Kings", "royal flush"]
        for _ in range(3000):
            text, strength = rng.choice(texts), rng.choice(strengths)
            stated = cards._parse_description(text)
            plain = stated is not None and stated == ranking._named(strength)
            assert ranking.fits_description(text, strength) == plain, (text, strength)
        for s in strengths:
            assert ranking.fits_description(ranking.describe_strength(s), s)
