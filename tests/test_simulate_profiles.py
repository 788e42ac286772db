"""Property tests of the simulator's qdan and stripped32 play against the audit.

Each profile and option combination: 2,000+ simulated hands audit with no violation and no error (the simulator
is an independent implementation of RULES.md; a finding is a disagreement a person must settle). And a defect of
each rule id the two profiles brought is injected into several simulated hands and must be reported with that
rule id on that hand.
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import pytest

from audit.cards import make_deck, ranking_for
from audit.findings import Finding
from audit.pipeline import audit_blocks
from audit.profile import load_profile
from audit.read import read_text_blocks
from audit.simulate import Simulator
from houselines import ACTION, DEALT, DISCARD

BAD = ("violation", "error")
HANDS = 2000

Options = tuple[tuple[str, str], ...]

CONFIGS: dict[str, tuple[str, Options]] = {
    "qdan": ("qdan", ()),
    "qdan openers=jacks": ("qdan", (("openers", "jacks"),)),
    "qdan joker=wild": ("qdan", (("joker", "wild"),)),
    "qdan draw-limit=3": ("qdan", (("draw-limit", "3"),)),
    "qdan draw-limit=5": ("qdan", (("draw-limit", "5"),)),
    "qdan second-round-starts=left-of-button": ("qdan", (("second-round-starts", "left-of-button"),)),
    "qdan time-limit=30": ("qdan", (("time-limit", "30"),)),
    "qdan time-limit=60": ("qdan", (("time-limit", "60"),)),
    "qdan mode=points": ("qdan", (("mode", "points"),)),
    "qdan starting-chips=any": ("qdan", (("starting-chips", "any"),)),
    "stripped32": ("stripped32", ()),
    "stripped32 betting=pot-limit": ("stripped32", (("betting", "pot-limit"),)),
    "stripped32 betting=fixed-limit": ("stripped32", (("betting", "fixed-limit"),)),
}

# what each corpus must show it played (statistic: at least)
WANTED: dict[str, dict[str, int]] = {
    "qdan": {"redeal": 100, "all_in": 100, "side_pots": 30, "tied_pot_2way": 30, "draw_4": 100, "uncalled": 100},
    "qdan openers=jacks": {"redeal": 300, "showdown": 500},
    "qdan joker=wild": {"redeal": 100, "draw_4": 100},
    "qdan draw-limit=3": {"draw_3": 500},
    "qdan draw-limit=5": {"draw_5": 100, "reshuffle": 5},
    "qdan second-round-starts=left-of-button": {"showdown": 500},
    "qdan time-limit=30": {"timed_out": 50, "timed_out_draw": 20, "redeal": 100},
    "qdan time-limit=60": {"timed_out": 50},
    "qdan mode=points": {"points_showdown": 2000, "points_tie_2way": 30},
    "qdan starting-chips=any": {"short_ante": 100, "side_pots": 100},
    "stripped32": {"blinds_3": 200, "parole_accepted": 50, "parole_declined": 50, "reshuffle": 20,
                   "all_in": 100, "side_pots": 30, "parole_answer_after_accept": 40, "short_big_blind": 20,
                   "short_over_blind": 20, "completed_short_blind": 2, "call_matching_all_ins": 1},
    "stripped32 betting=pot-limit": {"parole_accepted": 50, "all_in": 100, "min_raise": 200,
                                     "parole_answer_after_accept": 40, "short_big_blind": 20},
    "stripped32 betting=fixed-limit": {"capped": 100, "half_bet_all_in": 5, "parole_accepted": 50,
                                       "parole_answer_after_accept": 100, "short_over_blind": 20},
}


def audit_text(text: str, profile: str) -> list[Finding]:
    return [f for a in audit_blocks(read_text_blocks(text), load_profile(profile)) for f in a.findings]


def show(findings: list[Finding], limit: int = 8) -> str:
    return "\n".join(f"  {f.hand} line {f.line} {f.rule} ({f.severity}): {f.message}" for f in findings[:limit])


@lru_cache(maxsize=None)
def corpus(config: str) -> tuple[tuple[str, ...], int, Counter[str]]:
    """Whole sessions of ``config`` until 2,000 hands (redeals not counted): (texts, hands, statistics)."""
    profile, options = CONFIGS[config]
    sim = Simulator(profile, 2026, list(options))
    texts: list[str] = []
    stats: Counter[str] = Counter()
    hands = 0
    index = 0
    while hands < HANDS:
        s = sim.session(index)
        index += 1
        texts.append(s.text)
        stats += s.stats
        hands += s.hands
    return tuple(texts), hands, stats


@pytest.mark.parametrize("config", list(CONFIGS))
def test_two_thousand_hands_audit_clean(config: str) -> None:
    profile, options = CONFIGS[config]
    texts, hands, stats = corpus(config)
    assert hands >= HANDS
    text = "\n".join(texts)
    assert all(f"Option: {k} = {v}" in text for k, v in options)
    findings = audit_text(text, profile)
    bad = [f for f in findings if f.severity in BAD]
    assert not bad, f"{len(bad)} findings on legal simulated {config} play:\n{show(bad)}"
    thin = {k: (stats[k], v) for k, v in WANTED[config].items() if stats[k] < v}
    assert not thin, f"too few of (got, wanted): {thin}"


# ---------------------------------------------------------------------------------------------- defects

POST = re.compile(r"^(?P<p>[\w\-.']+): posts (?P<kind>small|big|over) blind (?P<n>\d+)(?P<allin> and is all-in)?$")
SCORE = re.compile(r"^(?P<p>[\w\-.']+) scores 1 point$")
PAROLE_LINE = re.compile(r"^(?P<p>[\w\-.']+): (?P<kind>offers|accepts|declines) parole(?P<rest>.*)$")
PAROLE_COLLECT = re.compile(r"^(?P<p>[\w\-.']+) collected (?P<n>\d+) from pot \(parole\)$")

Blocks = list[list[str]]
Site = tuple[int, Blocks]  # the mutated block's index and the mutated blocks
Mutator = Callable[[Blocks, random.Random], "Site | None"]


def session_blocks(text: str) -> Blocks:
    return [b.split("\n") for b in text.rstrip("\n").split("\n\n")]


def hand_id(block: list[str]) -> str:
    found = re.match(r"Hand #(\S+)", block[0])
    assert found is not None
    return found.group(1)


def hands_of(blocks: Blocks) -> range:
    return range(1, len(blocks) - 1)


def pick_line(blocks: Blocks, rng: random.Random, pred: Callable[[list[str], int, str], bool],
              change: Callable[[list[str], int, str], str | None]) -> Site | None:
    """Change one line among those ``pred`` accepts (``change`` may refuse with None)."""
    found = [(b, i) for b in hands_of(blocks) for i, line in enumerate(blocks[b]) if pred(blocks[b], i, line)]
    rng.shuffle(found)
    for b, i in found:
        new = change(blocks[b], i, blocks[b][i])
        if new is not None and new != blocks[b][i]:
            out = [list(x) for x in blocks]
            out[b][i] = new
            return b, out
    return None


def unseen_cards(block: list[str], deck: int = 52) -> list[str]:
    seen = {c for line in block for group in re.findall(r"\[([^\]]*)\]", line) for c in group.split()}
    return [c for c in make_deck(deck) if c not in seen]


def m_bet_unit(blocks: Blocks, rng: random.Random) -> Site | None:
    """qdan: an opening bet that is not a multiple of the bet unit (20)."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = ACTION.match(line)
        assert m is not None
        return f"{m['p']}: bets {int(m['a']) + 10}{m['rest']}"
    return pick_line(blocks, rng, lambda b, i, line: bool((m := ACTION.match(line)) and m["kind"] == "bets"
                                                           and not m["allin"]), change)


def m_raise_unit(blocks: Blocks, rng: random.Random) -> Site | None:
    """qdan: a raise increment that is not a multiple of 20."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = ACTION.match(line)
        assert m is not None
        return f"{m['p']}: raises {int(m['a']) + 10} to {int(m['to']) + 10}{m['rest']}"
    return pick_line(blocks, rng, lambda b, i, line: bool((m := ACTION.match(line)) and m["kind"] == "raises"
                                                           and not m["allin"]), change)


def m_draw_limit(blocks: Blocks, rng: random.Random) -> Site | None:
    """qdan (3+ace): a fourth card thrown and drawn without an ace (or joker) kept."""
    found = []
    for b in hands_of(blocks):
        block = blocks[b]
        if any(line.startswith("Deck: ") for line in block):
            continue
        for i in range(len(block) - 1):
            d, n = DISCARD.match(block[i]), DEALT.match(block[i + 1])
            if d and n and n["b"] is not None and d["k"] == "3":
                kept = n["a"].split()
                if len(kept) == 2 and not any(c[0] == "A" or c == "Jk" for c in kept):
                    found.append((b, i))
    rng.shuffle(found)
    for b, i in found:
        out = [list(x) for x in blocks]
        d, n = DISCARD.match(out[b][i]), DEALT.match(out[b][i + 1])
        assert d and n
        extra = unseen_cards(out[b])
        if not extra:
            continue
        kept = n["a"].split()
        out[b][i] = f"{d['p']}: discards 4 cards [{d['cards']} {kept[0]}]{d['rest']}"
        out[b][i + 1] = f"Dealt to {n['p']} [{kept[1]}] [{n['b']} {rng.choice(extra)}]"
        return b, out
    return None


def m_redeal_carry(blocks: Blocks, rng: random.Random) -> Site | None:
    """qdan: the pot carried from a redeal misstated."""
    return pick_line(blocks, rng, lambda b, i, line: line.startswith("Pot carried over: "),
                     lambda b, i, line: f"Pot carried over: {int(line.split(': ')[1]) + 20}")


def m_redeal_dropped(blocks: Blocks, rng: random.Random) -> Site | None:
    """qdan: everyone checked the first round, but the hand ends without the redeal (its marker replaced by the
    summary marker)."""
    def change(block: list[str], i: int, line: str) -> str | None:
        return "*** SUMMARY ***"
    return pick_line(blocks, rng, lambda b, i, line: line == "*** REDEAL ***", change)


def m_openers(blocks: Blocks, rng: random.Random, ranking=ranking_for("standard", False, False)) -> Site | None:
    """openers = jacks: a player without a pair of jacks or better opens."""
    jacks = ranking.strength(("Jc", "Jd", "2h", "3s", "4c"))

    def pred(block: list[str], i: int, line: str) -> bool:
        if "*** REDEAL ***" not in block or "*** FIRST BETTING ROUND ***" not in block:
            return False
        if block.index("*** FIRST BETTING ROUND ***") != i - 1:
            return False
        m = ACTION.match(line)
        if m is None or m["kind"] != "checks" or "timed out" in line:
            return False
        cards = next(d["a"].split() for x in block if (d := DEALT.match(x)) and d["p"] == m["p"])
        return ranking.strength(cards)[:2] < jacks[:2]
    return pick_line(blocks, rng, pred, lambda b, i, line: f"{line.split(':')[0]}: bets 20")


def m_time_limit(blocks: Blocks, rng: random.Random) -> Site | None:
    """time-limit = 30: an action taken after 45 seconds."""
    return pick_line(blocks, rng, lambda b, i, line: bool(ACTION.match(line)) and "(t" not in line,
                     lambda b, i, line: line + " (took 45s)")


def m_timeout_fold(blocks: Blocks, rng: random.Random) -> Site | None:
    """time-limit = 30: a player timed out with no bet to face is folded instead of checked."""
    return pick_line(blocks, rng, lambda b, i, line: line.endswith(": checks (timed out)"),
                     lambda b, i, line: line.replace(": checks (timed out)", ": folds (timed out)"))


def m_points(blocks: Blocks, rng: random.Random) -> Site | None:
    """mode = points: the point given to a player who did not have the best hand."""
    def change(block: list[str], i: int, line: str) -> str | None:
        scorers = {m["p"] for x in block if (m := SCORE.match(x))}
        shown = [x.split(":")[0] for x in block if ": shows [" in x]
        others = [p for p in shown if p not in scorers]
        return f"{rng.choice(others)} scores 1 point" if others else None
    return pick_line(blocks, rng, lambda b, i, line: bool(SCORE.match(line)), change)


def m_card_not_in_deck(blocks: Blocks, rng: random.Random) -> Site | None:
    """stripped32: a card the 32-card deck does not hold (a 2 to 6) dealt to a player."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = DEALT.match(line)
        assert m is not None
        cards = m["a"].split()
        j = rng.randrange(len(cards))
        cards[j] = rng.choice("23456") + cards[j][1]
        return f"Dealt to {m['p']} [{' '.join(cards)}]" + (f" [{m['b']}]" if m["b"] is not None else "")
    return pick_line(blocks, rng, lambda b, i, line: bool(DEALT.match(line)) and "*** FIRST BETTING ROUND ***" in b
                     and i < b.index("*** FIRST BETTING ROUND ***"), change)


def m_blind_wrong(blocks: Blocks, rng: random.Random) -> Site | None:
    """stripped32: a blind of the wrong amount (not all-in)."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = POST.match(line)
        assert m is not None
        return f"{m['p']}: posts {m['kind']} blind {int(m['n']) + 1}"
    return pick_line(blocks, rng, lambda b, i, line: bool((m := POST.match(line)) and not m["allin"]), change)


def m_fixed_size(blocks: Blocks, rng: random.Random) -> Site | None:
    """betting = fixed-limit: a bet or raise one chip off the round's size (not all-in)."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = ACTION.match(line)
        assert m is not None
        if m["kind"] == "bets":
            return f"{m['p']}: bets {int(m['a']) + 1}{m['rest']}"
        return f"{m['p']}: raises {int(m['a']) + 1} to {int(m['to']) + 1}{m['rest']}"
    return pick_line(blocks, rng, lambda b, i, line: bool((m := ACTION.match(line))
                                                           and m["kind"] in ("bets", "raises") and not m["allin"]),
                     change)


def capped_calls(block: list[str]) -> list[tuple[int, int, int]]:
    """Fixed limit: calls made after the cap of 4 bets was reached: (line, raise size, raise-to one bet more)."""
    posts = [m for line in block if (m := POST.match(line))]
    small = [int(m["n"]) for m in posts if m["kind"] == "small" and not m["allin"]]
    if not small or any(m["allin"] for m in posts):
        return []
    players = sum(1 for line in block if line.startswith("Seat "))
    size = small[0] * (4 if players >= 4 else 2)
    out: list[tuple[int, int, int]] = []
    bets: dict[str, int] = {}
    current = full_to = counted = 0
    round_size = size
    for i, line in enumerate(block):
        if line == "*** FIRST BETTING ROUND ***":
            bets = {m["p"]: int(m["n"]) for m in posts}
            current = full_to = max(bets.values())
            counted, round_size = 1, size
        elif line == "*** SECOND BETTING ROUND ***":
            bets, current, full_to, counted, round_size = {}, 0, 0, 0, 2 * size
        elif (a := ACTION.match(line)) is not None:
            p = a["p"]
            if a["kind"] == "calls":
                if counted >= 4:
                    out.append((i, round_size, full_to + round_size))
                bets[p] = bets.get(p, 0) + int(a["a"])
            elif a["kind"] in ("bets", "raises"):
                to = int(a["a"]) if a["kind"] == "bets" else int(a["to"])
                if 2 * (to - current) >= round_size:
                    counted += 1
                    full_to = to
                bets[p] = to
                current = to
    return out


def m_raise_cap(blocks: Blocks, rng: random.Random) -> Site | None:
    """betting = fixed-limit: a fifth bet in a round (a call after the cap turned into a raise)."""
    found = [(b, i, size, to) for b in hands_of(blocks) for i, size, to in capped_calls(blocks[b])]
    if not found:
        return None
    b, i, size, to = rng.choice(found)
    out = [list(x) for x in blocks]
    out[b][i] = f"{out[b][i].split(':')[0]}: raises {size} to {to}"
    return b, out


def m_over_pot(blocks: Blocks, rng: random.Random) -> Site | None:
    """betting = pot-limit: a bet or raise far above the pot."""
    def change(block: list[str], i: int, line: str) -> str | None:
        m = ACTION.match(line)
        assert m is not None
        if m["kind"] == "bets":
            return f"{m['p']}: bets {int(m['a']) + 1000}{m['rest']}"
        return f"{m['p']}: raises {int(m['a']) + 1000} to {int(m['to']) + 1000}{m['rest']}"
    return pick_line(blocks, rng, lambda b, i, line: bool((m := ACTION.match(line))
                                                           and m["kind"] in ("bets", "raises") and not m["allin"]),
                     change)


def m_parole_offerer(blocks: Blocks, rng: random.Random) -> Site | None:
    """parole: offered by the player who should have answered first (not the round's first actor)."""
    found = [(b, i) for b in hands_of(blocks) for i in range(len(blocks[b]) - 1)
             if (m := PAROLE_LINE.match(blocks[b][i])) and m["kind"] == "offers"]
    if not found:
        return None
    b, i = rng.choice(found)
    out = [list(x) for x in blocks]
    x, y = PAROLE_LINE.match(out[b][i]), PAROLE_LINE.match(out[b][i + 1])
    assert x and y
    out[b][i] = f"{y['p']}: offers parole"
    out[b][i + 1] = f"{x['p']}: {y['kind']} parole"
    return b, out


def m_parole_split(blocks: Blocks, rng: random.Random) -> Site | None:
    """parole: a chip of the split moved from one player to another."""
    found = []
    for b in hands_of(blocks):
        lines = [i for i, line in enumerate(blocks[b]) if PAROLE_COLLECT.match(line)]
        if len(lines) >= 2:
            found.append((b, lines))
    if not found:
        return None
    b, lines = rng.choice(found)
    give, take = rng.sample(lines, 2)
    out = [list(x) for x in blocks]
    for i, delta in ((give, 1), (take, -1)):
        out[b][i] = re.sub(r"collected (\d+)", lambda m: f"collected {int(m[1]) + delta}", out[b][i])
    return b, out


def m_parole_answer_dropped(blocks: Blocks, rng: random.Random) -> Site | None:
    """parole: an answer after the acceptance left out (everyone still in answers, even after an acceptance)."""
    found = []
    for b in hands_of(blocks):
        block = blocks[b]
        accepted = False
        for i, line in enumerate(block):
            m = PAROLE_LINE.match(line)
            if m and m["kind"] != "offers" and accepted:
                found.append((b, i))
            accepted = accepted or bool(m and m["kind"] == "accepts")
    if not found:
        return None
    b, i = rng.choice(found)
    out = [list(x) for x in blocks]
    del out[b][i]
    return b, out


def m_winner_not_shown(blocks: Blocks, rng: random.Random) -> Site | None:
    """A show down of two or more hands where the pot's winner never shows (his show line left out)."""
    found = []
    for b in hands_of(blocks):
        block = blocks[b]
        shows = {line.split(":")[0]: i for i, line in enumerate(block) if ": shows [" in line}
        winners = [line.split(" collected ")[0] for line in block if " collected " in line
                   and line.endswith(" from pot")]
        if len(shows) >= 2 and len(winners) == 1 and winners[0] in shows:
            found.append((b, shows[winners[0]]))
    if not found:
        return None
    b, i = rng.choice(found)
    out = [list(x) for x in blocks]
    del out[b][i]
    return b, out


def m_short_blind_call(blocks: Blocks, rng: random.Random) -> Site | None:
    """Short forced bets: the first call of the full blind lowered to the short all-in blind's amount."""
    found = []
    for b in hands_of(blocks):
        block = blocks[b]
        posts = [m for line in block if (m := POST.match(line))]
        small = [int(m["n"]) for m in posts if m["kind"] == "small" and not m["allin"]]
        if not small or "*** FIRST BETTING ROUND ***" not in block:
            continue
        full = max(small[0] * {"small": 1, "big": 2, "over": 4}[m["kind"]] for m in posts)
        posted = max(int(m["n"]) for m in posts)
        if posted >= full:
            continue  # no blind posted short: the bet is what was posted
        first = block.index("*** FIRST BETTING ROUND ***") + 1
        a = ACTION.match(block[first]) if first < len(block) else None
        if a and a["kind"] == "calls" and not a["allin"] and int(a["a"]) == full:
            found.append((b, first, f"{a['p']}: calls {posted}{a['rest']}"))
    if not found:
        return None
    b, i, line = rng.choice(found)
    out = [list(x) for x in blocks]
    out[b][i] = line
    return b, out


def m_slow_bet(blocks: Blocks, rng: random.Random) -> Site | None:
    """stripped32 (raise time limit 10 s): an opening bet after 12 seconds."""
    return pick_line(blocks, rng, lambda b, i, line: bool((m := ACTION.match(line)) and m["kind"] == "bets")
                     and "(t" not in line, lambda b, i, line: line + " (took 12s)")


MUTATIONS: dict[str, tuple[str, str, Mutator]] = {
    "bet not in units of 20": ("qdan", "BET_UNIT", m_bet_unit),
    "raise not in units of 20": ("qdan", "BET_UNIT", m_raise_unit),
    "four drawn without an ace": ("qdan", "DRAW_LIMIT", m_draw_limit),
    "carried pot misstated": ("qdan", "REDEAL", m_redeal_carry),
    "required redeal missing": ("qdan", "REDEAL", m_redeal_dropped),
    "opened without jacks": ("qdan openers=jacks", "OPENERS", m_openers),
    "action after the time limit": ("qdan time-limit=30", "TIME_LIMIT", m_time_limit),
    "timed out into a fold with no bet": ("qdan time-limit=30", "TIME_LIMIT", m_timeout_fold),
    "point to a loser": ("qdan mode=points", "POINTS", m_points),
    "card outside the 32-card deck": ("stripped32", "CARD_NOT_IN_DECK", m_card_not_in_deck),
    "blind of the wrong amount": ("stripped32", "BLIND_WRONG", m_blind_wrong),
    "fixed-limit bet of the wrong size": ("stripped32 betting=fixed-limit", "BET_FIXED_SIZE", m_fixed_size),
    "a fifth bet past the cap": ("stripped32 betting=fixed-limit", "RAISE_CAP", m_raise_cap),
    "pot-limit bet over the pot": ("stripped32 betting=pot-limit", "BET_OVER_POT", m_over_pot),
    "parole offered by the wrong player": ("stripped32", "PAROLE", m_parole_offerer),
    "parole split changed": ("stripped32", "PAROLE", m_parole_split),
    "parole answer after the acceptance left out": ("stripped32", "PAROLE", m_parole_answer_dropped),
    "show down won without a show": ("qdan", "POT_WINNER", m_winner_not_shown),
    "full blind called short": ("stripped32", "CALL_AMOUNT", m_short_blind_call),
    "opening bet after the raise clock": ("stripped32", "TIME_LIMIT", m_slow_bet),
}

HANDS_PER_MUTATION = 8


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_injected_defect_is_reported(name: str) -> None:
    """The defect, injected into 8 simulated sessions (one hand each), is reported with its rule id on that hand."""
    config, rule, mutate = MUTATIONS[name]
    profile = CONFIGS[config][0]
    texts = corpus(config)[0]
    misses: list[str] = []
    done = 0
    for k, text in enumerate(texts):
        rng = random.Random(k * 7919 + zlib.crc32(name.encode()))
        site = mutate(session_blocks(text), rng)
        if site is None:
            continue
        b, blocks = site
        upto = "\n\n".join("\n".join(block) for block in blocks[:b + 1]) + "\n"
        target = hand_id(blocks[b])
        findings = audit_text(upto, profile)
        if not any(f.rule == rule and f.hand == target for f in findings):
            misses.append(f"session {k}, hand {target}: got {sorted({f.rule for f in findings if f.hand == target})}"
                          "\n" + "\n".join(blocks[b]))
        done += 1
        if done == HANDS_PER_MUTATION:
            break
    assert done == HANDS_PER_MUTATION, f"only {done} simulated sessions offered a place for {name!r}"
    assert not misses, f"{rule} not reported for {len(misses)} of {done} mutations ({name}):\n" + \
        "\n\n".join(misses[:2])


# ---------------------------------------------------------------------------------------------- any seed, the CLI

@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("seed", [7, 123456789])
def test_other_seeds_play_clean_and_reproducibly(config: str, seed: int) -> None:
    profile, options = CONFIGS[config]
    text = "\n".join(Simulator(profile, seed, list(options)).session(i).text for i in range(3))
    assert text == "\n".join(Simulator(profile, seed, list(options)).session(i).text for i in range(3))
    bad = [f for f in audit_text(text, profile) if f.severity in BAD]
    assert not bad, f"seed {seed}:\n{show(bad)}"


@pytest.mark.parametrize("args", [
    ["--profile", "qdan", "--option", "openers=jacks", "--option", "time-limit=30"],
    ["--profile", "qdan", "--option", "mode=points"],
    ["--profile", "stripped32", "--option", "betting=fixed-limit"],
    ["--profile", "stripped32", "--option", "betting=pot-limit"],
])
def test_the_cli_plays_both_profiles_and_their_options(args: list[str]) -> None:
    from click.testing import CliRunner

    from audit.cli import main

    result = CliRunner().invoke(main, ["simulate", *args, "--sessions", "2", "--seed", "5"])
    assert result.exit_code == 0, result.output
    profile = args[1]
    assert result.output.startswith(f"Session: {profile}-5-000\nProfile: {profile}\nOption: ")
    assert result.output.count("*** SESSION END ***") == 2
    bad = [f for f in audit_text(result.output, profile) if f.severity in BAD]
    assert not bad, show(bad)
