"""Settlement: the log's returns, collections and summary applied; at the end the pots built from the
contributions, each won by its best hand (or split by an accepted parole), and what the log paid judged against
them: winners, amounts, odd chips, uncalled bets, rake, the summary's total, chips conserved, a redeal."""

from __future__ import annotations

from audit.engine.parole import end_parole_answers
from audit.engine.result import HandResult, PotResult
from audit.engine.rounds import close_round, settle_uncalled
from audit.engine.showdown import check_points, check_show_order, check_site_known_cards, pot_winners
from audit.engine.state import HandState, add, record
from audit.engine.table import site_dead_small_blind
from audit.model import Collect, SummaryTotal, Uncalled
from audit.pots import build_pots, odd_chip_order, split
from audit.rules import Rule


def on_uncalled(st: HandState, u: Uncalled) -> None:
    """An uncalled bet returned (perhaps printed before the round is closed by the next marker)."""
    rnd = st.round
    if rnd is not None and not rnd.pending:
        settle_uncalled(st, rnd)
    st.returned_log[u.player] = st.returned_log.get(u.player, 0) + u.amount
    if u.player in st.stack:
        st.stack[u.player] += u.amount
    st.uncalled_lines.append(u)
    if st.steps is not None:
        record(st, u.line, u)


def on_collect(st: HandState, c: Collect) -> None:
    """A player collects from a pot (judged at the end, against the pots built)."""
    if st.parole_open:
        end_parole_answers(st, c.line)
    if st.round is not None:
        close_round(st, c.line)
    st.collected.append(c)
    if c.player in st.stack:
        st.stack[c.player] += c.amount
    if st.steps is not None:
        record(st, c.line, c)


def on_summary(st: HandState, s: SummaryTotal) -> None:
    """The summary's total pot and rake."""
    if st.round is not None:
        close_round(st, s.line)
    st.summary = s


def finish(st: HandState) -> HandResult:
    """The end of the hand: the pots built, won and judged against what the log paid."""
    if st.parole_open:
        end_parole_answers(st, st.last_line)
    if st.round is not None:
        close_round(st, st.last_line)
    hand = st.hand
    prof = st.profile
    redeal = bool(st.redeal_line)
    check_redeal(st, redeal)
    contrib = st.contrib
    total_in = st.dead
    for amount in contrib.values():
        total_in += amount
    due = dict(st.returned_due)
    if due or st.returned_log:
        check_uncalled(st, due)
    # dead blinds are pot, not a bet: they belong to no player's contribution level (main pot)
    dead_posts: dict[str, int] = {}
    dead_total = 0
    for p, xs in st.posted.items():
        for x in xs:
            dead = x.amount if x.kind == "dead" else site_dead_small_blind(st, x) if x.kind == "both" else 0
            if dead:
                dead_posts[p] = dead_posts.get(p, 0) + dead
                dead_total += dead
    contributions_after: dict[str, int] = {}
    for p, amount in contrib.items():
        contributions_after[p] = amount - due.get(p, 0) - dead_posts.get(p, 0)
    folded = st.folded
    live = [p for p in st.order if p not in folded]
    pots_built = build_pots(contributions_after, live, st.order, st.dead + dead_total) if not redeal else []
    results: list[PotResult] = []
    should: dict[str, int] = dict(due)
    parole = st.parole_state == "accepted"
    if pots_built:
        odd_order = odd_chip_order(st.order, st.button_index)
        mucked = st.mucked
        showdown_players = [p for p in live if p not in mucked]
        for pot in pots_built:
            winners = pot_winners(st, pot, showdown_players, parole)
            awards = split(pot.amount, winners, odd_order) if winners else {}
            results.append(PotResult(name=pot.name, amount=pot.amount, eligible=list(pot.eligible),
                                     winners=winners, awards=awards, collected={}))
    check_awards(st, results, parole)
    for r in results:
        awarded: dict[str, int] = r["awards"]
        for w, amt in awarded.items():
            should[w] = should.get(w, 0) + amt
    received: dict[str, int] = {}
    collected_total = 0
    for c in st.collected:
        received[c.player] = received.get(c.player, 0) + c.amount
        collected_total += c.amount
    returned_total = 0
    for p, amt in st.returned_log.items():
        received[p] = received.get(p, 0) + amt
        returned_total += amt
    summary = st.summary
    rake = summary.rake if summary is not None else 0
    if not redeal:
        check_conservation(st, total_in, collected_total, returned_total, rake)
    if not prof.rake_allowed and rake:
        add(st, Rule.RAKE, summary.line if summary else hand.end_line,
            f"A rake of {rake} was taken, but this game has no rake.", expected=0, actual=rake,
            street="summary")
    pot_total = total_in
    for amount in due.values():
        pot_total -= amount
    if summary is not None and not redeal:
        check_summary(st, summary, pot_total, collected_total, rake)
    check_show_order(st, live)
    if not hand.shows_all_cards:
        check_site_known_cards(st)
    if st.points_mode:
        check_points(st, live)
    end = {p: st.start[p] - contrib.get(p, 0) for p in st.start}
    for c in st.collected:
        if c.player in end:
            end[c.player] += c.amount
    for p, amt in st.returned_log.items():
        if p in end:
            end[p] += amt
    if redeal:
        for p in end:
            end[p] = st.start[p] - contrib.get(p, 0)
    return HandResult(
        hand=hand, profile=prof.name, session=st.session, findings=st.findings, pots=results,
        should_receive=should, received=received, contributions=contrib,
        start_stacks=st.start, end_stacks=end, dealt_in=st.order, redeal=redeal,
        pot_total=pot_total, rake=rake, steps=st.steps, points=st.scores)


def check_summary(st: HandState, summary: SummaryTotal, pot_total: int, collected_total: int, rake: int) -> None:
    """``SUMMARY_TOTAL``: the summary's pot is the pot; its pot less its rake is what was collected."""
    if summary.total != pot_total:
        add(st, Rule.SUMMARY_TOTAL, summary.line,
            f"The summary says the pot was {summary.total}, but it was {pot_total}.",
            expected=pot_total, actual=summary.total, street="summary")
    elif summary.total != collected_total + rake and not _has_finding(st, Rule.POT_AMOUNT):
        add(st, Rule.SUMMARY_TOTAL, summary.line,
            f"The summary's pot {summary.total} and rake {rake} do not add up to the "
            f"{collected_total} collected.", expected=summary.total - rake,
            actual=collected_total, street="summary")


def _has_finding(st: HandState, rule: Rule) -> bool:
    return any(f.rule == rule.value for f in st.findings)


def check_redeal(st: HandState, redeal: bool) -> None:
    """``all-check = redeal`` (with ``second-round-starts = opener``) and ``openers = jacks``: a first round in
    which nobody bet ends in a redeal; any other hand must not."""
    prof = st.profile
    first = st.rounds.get("first")
    everyone_checked = first is not None and not first.any_bet and not st.folded
    required = everyone_checked and (prof.all_check_redeal or prof.openers_jacks) and not st.points_mode
    line = first.end_line if first is not None and first.end_line else st.hand.end_line
    if redeal and not required:
        add(st, Rule.REDEAL, st.redeal_line, "The hand was redealt although the rules did not call for it.",
            expected="play on", actual="redeal", street="first")
    elif required and not redeal:
        why = "Nobody opened" if prof.openers_jacks else "Everyone checked the first round"
        add(st, Rule.REDEAL, line, f"{why}: the hand should have been redealt with the pot kept.",
            expected="redeal", actual="play went on", street="first")


def check_uncalled(st: HandState, due: dict[str, int]) -> None:
    """``UNCALLED_BET``: what came back to each player against the uncalled part of his bet."""
    line = st.uncalled_lines[0].line if st.uncalled_lines else st.hand.end_line
    players = set(due) | set(st.returned_log)
    for p in sorted(players, key=lambda q: st.order.index(q) if q in st.order else 99):
        want, got = due.get(p, 0), st.returned_log.get(p, 0)
        if want != got:
            if want and not got:
                msg = f"{p}'s uncalled bet of {want} should have been returned to {p}, but stayed in the pot."
            elif got and not want:
                msg = f"{got} was returned to {p}, but {p} had no uncalled bet."
            else:
                msg = f"{got} was returned to {p}; the uncalled part of the bet was {want}."
            add(st, Rule.UNCALLED_BET, line, msg, player=p, expected=want, actual=got, street="summary")


def check_awards(st: HandState, results: list[PotResult], parole: bool) -> None:
    """Compare what each pot paid in the log with what it should have paid."""
    if parole and results:
        check_parole_split(st, results)
        return
    split_line: Collect | None = None
    for c in st.collected:
        if c.pot == "parole":
            split_line = c
            break
    if split_line is not None and st.parole_state != "not-allowed":  # (no parole in the game: flagged once)
        c = split_line
        add(st, Rule.PAROLE, c.line, f"The pot was paid as a parole split ({c.player} collected {c.amount}), "
            "but no parole was accepted.", player=c.player, expected="from pot",
            actual="from pot (parole)", street="summary")
    if not results:
        for c in st.collected:
            add(st, Rule.POT_AMOUNT, c.line, f"{c.player} collected {c.amount}, but there was no pot to win.",
                player=c.player, expected=0, actual=c.amount, street="summary")
        return
    if not st.collected and sum(r["amount"] for r in results) > 0:
        first = results[0]
        add(st, Rule.POT_AMOUNT, st.hand.end_line,
            f"Nobody collected the {sum(r['amount'] for r in results)} chips in the pot: the hand ends "
            "before it was settled (is the log cut off?).",
            player=(first["winners"] or [None])[0], expected=sum(r["amount"] for r in results),
            actual=0, street="summary")
        return
    by_name = {r["name"]: r for r in results}
    for c in st.collected:
        name = c.pot
        if name == "parole":
            name = "pot"
        if name == "side" and "side-1" in by_name and len(results) == 2:
            name = "side-1"
        if name == "pot" and "pot" not in by_name and "main" in by_name:
            name = "main"
        if name == "main" and "main" not in by_name and "pot" in by_name:
            name = "pot"
        target = by_name.get(name) if name else None
        if target is None:
            add(st, Rule.POT_AMOUNT, c.line, f"{c.player} collected {c.amount} from a {c.pot.replace('-', ' ')}"
                " that does not exist.", player=c.player, actual=c.amount, street="summary")
            continue
        target["collected"][c.player] = target["collected"].get(c.player, 0) + c.amount
        lines = target.get("lines")
        if lines is None:
            lines = target["lines"] = {}
        lines[c.player] = c.line
    if st.profile.rake_allowed:
        take_rake(st, results)
    for r in results:
        judge_pot(st, r)


def check_parole_split(st: HandState, results: list[PotResult]) -> None:
    """After an accepted parole every pot is split among its eligible players (odd chips from the button's
    left): each player's collected total must match his shares."""
    want: dict[str, int] = {}
    for r in results:
        for q, amt in r["awards"].items():
            want[q] = want.get(q, 0) + amt
    got: dict[str, int] = {}
    lines: dict[str, int] = {}
    for c in st.collected:
        got[c.player] = got.get(c.player, 0) + c.amount
        lines.setdefault(c.player, c.line)
    line = min(lines.values()) if lines else st.hand.end_line
    attribute_parole_collects(results, got)
    shares = "; ".join(f"{r['amount']} among {', '.join(r['eligible'])}" for r in results)
    for q in [x for x in st.order if x in want or x in got]:
        if got.get(q, 0) != want.get(q, 0):
            add(st, Rule.PAROLE, lines.get(q, line),
                f"After the parole {q} should have received {want.get(q, 0)}, not {got.get(q, 0)} (every "
                f"pot is split among its players, odd chips from the button's left: {shares}).",
                player=q, expected=want.get(q, 0), actual=got.get(q, 0), street="summary")


def attribute_parole_collects(results: list[PotResult], got: dict[str, int]) -> None:
    """The log says only what each player took from the split: put it against the pots he shares, up to his
    share of each (any excess against the first), so each pot shows what was collected from it."""
    left = dict(got)
    for r in results:
        awards: dict[str, int] = r["awards"]
        for q in r["eligible"]:
            take = min(left.get(q, 0), awards.get(q, 0))
            if take > 0:
                r["collected"][q] = take
                left[q] -= take
    for q, extra in left.items():
        if extra > 0:
            home = next((r for r in results if q in r["eligible"]), results[0])
            home["collected"][q] = home["collected"].get(q, 0) + extra


def take_rake(st: HandState, results: list[PotResult]) -> None:
    """Where the house may rake, what a pot paid short of its amount is its rake: the winners share the
    rest. Whether the rakes add up to the summary's rake is the conservation check's business."""
    order = odd_chip_order(st.order, st.button_index)
    for r in results:
        taken = r["amount"] - sum(r["collected"].values())
        if 0 < taken <= r["amount"]:
            r["rake"] = taken
            if r["winners"]:
                r["awards"] = split(r["amount"] - taken, r["winners"], order)


def judge_pot(st: HandState, r: PotResult) -> None:
    """One pot: paid to its winners (who showed), in full, each his share, the odd chip to the right one."""
    name = "the pot" if r["name"] == "pot" else ("the main pot" if r["name"] == "main"
                                                 else f"side pot {r['name'][5:]}")
    got: dict[str, int] = r["collected"]
    awards: dict[str, int] = r["awards"]
    lines: dict[str, int] = r.get("lines", {})
    line = st.hand.end_line
    first = True
    for at in lines.values():
        if first or at < line:
            line = at
            first = False
    total = 0
    for amount in got.values():
        total += amount
    payable = r["amount"] - r.get("rake", 0)
    paid_wrong = [p for p in got if got[p] > 0 and p not in awards]
    if len(r["eligible"]) >= 2 and st.won_by_fold is None:
        check_winner_showed(st, r, name, lines, line, paid_wrong)
    if not r["winners"] and r["eligible"]:
        return  # cards unknown (site logs): nothing to judge
    for p in paid_wrong:
        winners = " and ".join(r["winners"]) or "nobody"
        add(st, Rule.POT_WINNER, lines.get(p, line),
            f"{p} collected {got[p]} from {name}, but {p} did not win it: {winners} had the best hand"
            f" among {', '.join(r['eligible'])}.", player=p, expected=winners, actual=p,
            street="showdown")
    missing = [w for w in awards if awards[w] > 0 and got.get(w, 0) == 0]
    if paid_wrong:
        return
    for w in missing:
        if total != payable or len(awards) == 1:
            add(st, Rule.POT_WINNER if total == payable else Rule.POT_AMOUNT, line,
                f"{w} won {name} ({awards[w]}) but collected nothing from it.", player=w,
                expected=awards[w], actual=0, street="showdown")
    if total != payable:
        add(st, Rule.POT_AMOUNT, line,
            f"{name[0].upper() + name[1:]} was {r['amount']}, but {total} was collected from it.",
            player=None if len(got) != 1 else next(iter(got)), expected=r["amount"], actual=total,
            street="showdown")
        return
    if missing:
        return
    diffs = {p: got.get(p, 0) - awards.get(p, 0) for p in awards}
    if any(diffs.values()):
        if len(awards) > 1 and all(abs(d) <= 1 for d in diffs.values()):
            wrong = [p for p, d in diffs.items() if d > 0]
            short = [p for p, d in diffs.items() if d < 0]
            add(st, Rule.ODD_CHIP, lines.get(wrong[0], line) if wrong else line,
                f"The odd chip of {name} went to {', '.join(wrong)}; it belonged to {', '.join(short)}, "
                "the first tied winner left of the button.", player=wrong[0] if wrong else None,
                expected=", ".join(short), actual=", ".join(wrong), street="showdown")
        else:
            for p, d in diffs.items():
                if d:
                    add(st, Rule.POT_AMOUNT, lines.get(p, line),
                        f"{p} collected {got.get(p, 0)} from {name}; the share was {awards[p]}.",
                        player=p, expected=awards[p], actual=got.get(p, 0), street="showdown")


def check_winner_showed(st: HandState, r: PotResult, name: str, lines: dict[str, int], line: int,
                        paid_wrong: list[str]) -> None:
    """``POT_WINNER``: when two or more of a pot's players reach the show down, it goes only to a hand that
    was shown (a hand won because everyone else folded needs no show, nor a pot only one player could win)."""
    got: dict[str, int] = r["collected"]
    for p in got:
        if got[p] > 0 and p not in st.shown and p not in st.mucked and p not in paid_wrong:
            add(st, Rule.POT_WINNER, lines.get(p, line),
                f"{p} collected {got[p]} from {name} but never showed a hand; at a show down a pot goes "
                "only to a hand that is shown.", player=p, expected=f"{p} shows", actual="no show",
                street="showdown")


def check_conservation(st: HandState, total_in: int, collected: int, returned: int, rake: int) -> None:
    """``CHIPS_NOT_CONSERVED``: collected + returned + raked = everything put in."""
    if collected + returned + rake != total_in:
        add(st, Rule.CHIPS_NOT_CONSERVED, st.hand.end_line,
            f"{total_in} chips went in, but {collected} were collected, {returned} returned"
            f"{f' and {rake} raked' if rake else ''}: {total_in - collected - returned - rake:+d} "
            "unaccounted.", expected=total_in, actual=collected + returned + rake, street="summary")
