"""Settlement: the log's returns, collections and summary applied; at the end the pots built from the
contributions, each won by its best hand (or split by an accepted parole), and what the log paid judged against
them: winners, amounts, odd chips, uncalled bets, rake, the summary's total, chips conserved, a redeal."""

from __future__ import annotations

from audit.engine.deal import could_open
from audit.engine.parole import (
    attribute_parole_collects, check_paid_as_split, check_parole_split, end_parole_answers,
)
from audit.engine.result import HandResult, PotResult
from audit.engine.rounds import close_round, settle_uncalled
from audit.engine.showdown import check_points, check_site_known_cards, check_what_shown_proves, winners_among

from audit.engine.state import (
    HandState, chips_put_in, dead_money, finding, gather, gather_all, note, note_all, record,
)
from audit.findings import Finding
from audit.model import Collect, SummaryTotal, Uncalled
from audit.pots import odd_chip_order, pot_levels, split
from audit.rules import Rule


def on_uncalled(st: HandState, u: Uncalled) -> None:
    """An uncalled bet returned (perhaps printed before the round is closed by the next marker)."""
    rnd = st.round
    if rnd is not None and not rnd.pending:
        settle_uncalled(st, rnd)
    st.returned_log[u.player] = st.returned_log.get(u.player, 0) + u.amount
    pl = st.players.get(u.player)
    if pl is not None:
        pl.stack += u.amount
    st.uncalled_lines.append(u)
    if st.steps is not None:
        record(st, u.line, u)


def on_collect(st: HandState, c: Collect) -> None:
    """A player collects from a pot (judged at the end, against the pots built)."""
    if st.parole.open:
        end_parole_answers(st, c.line)
    if st.round is not None:
        close_round(st, c.line)
    st.collected.append(c)
    pl = st.players.get(c.player)
    if pl is not None:
        pl.stack += c.amount
    if st.steps is not None:
        record(st, c.line, c)


def on_summary(st: HandState, s: SummaryTotal) -> None:
    """The summary's total pot and rake."""
    if st.round is not None:
        close_round(st, s.line)
    st.summary = s


def finish(st: HandState) -> HandResult:
    """The end of the hand: the pots built, won and judged against what the log paid."""
    if st.parole.open:
        end_parole_answers(st, st.last_line)
    if st.round is not None:
        close_round(st, st.last_line)
    hand = st.hand
    prof = st.profile
    redeal = bool(st.redeal_line)
    note(st, check_redeal(st, redeal))
    contrib = chips_put_in(st)
    total_in = st.dead
    for amount in contrib.values():
        total_in += amount
    due = dict(st.returned_due)
    if due or st.returned_log:
        note_all(st, check_uncalled(st, due))
    # (``dead_money`` finds nothing unless a dead or a small-and-big post was made)
    dead_posts, dead_total = dead_money(st) if st.dead_posted else ({}, 0)
    if due or dead_posts:
        contributions_after: dict[str, int] = {}
        for p, amount in contrib.items():
            contributions_after[p] = amount - due.get(p, 0) - dead_posts.get(p, 0)
    else:  # nothing due back, no dead blind (most hands): the contributions as they are (``pot_levels`` only
        contributions_after = contrib  # reads them)
    live = [pl.name for pl in st.dealt if not pl.folded]
    pots_built = pot_levels(contributions_after, live, st.order, st.dead + dead_total) if not redeal else []
    results: list[PotResult] = []
    should: dict[str, int] = dict(due)
    parole = st.parole.state == "accepted"
    if pots_built:
        odd_order = odd_chip_order(st.order, st.button_index)
        mucked = st.mucked
        showdown_players = [p for p in live if p not in mucked]
        for name, amount, eligible in pots_built:
            winners = winners_among(st, eligible, showdown_players, parole)
            awards = split(amount, winners, odd_order) if winners else {}
            # filled key by key (the same keys in the same order): a call with keywords built a dict of them
            # first, then copied it
            pot = PotResult()
            pot["name"] = name
            pot["amount"] = amount
            pot["eligible"] = list(eligible)
            pot["winners"] = winners
            pot["awards"] = awards
            pot["collected"] = {}
            results.append(pot)
    if parole and results:
        attribute_parole_collects(results, st.collected)
        note_all(st, check_parole_split(st, results))
    else:
        note_all(st, check_awards(st, results))
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
        note(st, check_conservation(st, total_in, collected_total, returned_total, rake))
    if not prof.rake_allowed and rake:
        note(st, finding(st, Rule.RAKE, summary.line if summary else hand.end_line, "not_allowed",
                         (("rake_amount", rake),), expected=0, actual=rake, street="summary"))
    pot_total = total_in
    for amount in due.values():
        pot_total -= amount
    if summary is not None and not redeal:
        note(st, check_summary(st, summary, pot_total, collected_total, rake))
    unjudged: tuple[str, ...] = ()
    if not hand.shows_all_cards:
        note_all(st, check_site_known_cards(st))
        proved, unjudged = check_what_shown_proves(st)
        note_all(st, proved)
    if st.points_mode:
        note_all(st, check_points(st, live))
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    for pl in st.players.values():
        start[pl.name] = pl.start
        end[pl.name] = pl.start - pl.contributed
    for c in st.collected:
        if c.player in end:
            end[c.player] += c.amount
    for p, amt in st.returned_log.items():
        if p in end:
            end[p] += amt
    if redeal:
        for pl in st.players.values():
            end[pl.name] = pl.start - pl.contributed
    return HandResult(
        hand=hand, profile=prof.name, session=st.session, findings=st.findings, pots=results,
        should_receive=should, received=received, contributions=contrib,
        start_stacks=start, end_stacks=end, dealt_in=st.order, redeal=redeal,
        pot_total=pot_total, rake=rake, steps=st.steps, points=st.scores, unjudged=unjudged)


def check_summary(st: HandState, summary: SummaryTotal, pot_total: int, collected_total: int,
                  rake: int) -> Finding | None:
    """``SUMMARY_TOTAL``: the summary's pot is the pot; its pot less its rake is what was collected."""
    if summary.total != pot_total:
        return finding(st, Rule.SUMMARY_TOTAL, summary.line, "pot",
                       (("total_amount", summary.total), ("pot_amount", pot_total)), expected=pot_total,
                       actual=summary.total, street="summary")
    if summary.total != collected_total + rake and not any(f.rule == "POT_AMOUNT" for f in st.findings):
        return finding(st, Rule.SUMMARY_TOTAL, summary.line, "collected",
                       (("total_amount", summary.total), ("rake_amount", rake), ("collected_amount", collected_total)),
                       expected=summary.total - rake, actual=collected_total, street="summary")
    return None


def check_redeal(st: HandState, redeal: bool) -> Finding | None:
    """``REDEAL``: under ``openers = jacks`` a hand in which no player dealt in holds openers is redealt, whatever
    ``second-round-starts`` says; a first round everyone checked is redealt under ``all-check = redeal`` (which
    holds with ``second-round-starts = opener`` only); any other hand must not be. A round everyone checked
    while no known hand held openers and some dealt hand is unknown is not judged: nobody may have been able to
    open. A hand opened without openers is that opening's fault (``OPENERS``), not a missed redeal as well."""
    first = st.rounds.get("first")
    required, nobody, everyone_checked, held = redeal_state(st)
    if held is None and everyone_checked and not required:
        return None  # nobody may have been able to open
    if redeal and not required:
        holder = st.openers_holder
        if holder is not None and everyone_checked:
            return finding(st, Rule.REDEAL, st.redeal_line, "opener_checked", (("player", holder),),
                           expected="play on to the draw", actual="redeal", street="first")
        return finding(st, Rule.REDEAL, st.redeal_line, "not_required", expected="play on", actual="redeal",
                       street="first")
    if required and not redeal and not (nobody and any(f.rule == "OPENERS" for f in st.findings)):
        line = first.end_line if first is not None and first.end_line else st.hand.end_line
        return finding(st, Rule.REDEAL, line, "nobody_opened" if nobody else "everyone_checked", expected="redeal",
                       actual="play went on", street="first")
    return None


def redeal_state(st: HandState) -> tuple[bool, bool, bool, bool | None]:
    """What decides a redeal: whether the hand must end in one, whether that is because nobody dealt in held
    openers (``openers = jacks``), whether everyone checked the first round (no bet, no fold), and whether anyone
    held openers (``None``: some dealt hand is unknown). A first round nobody could act in (the forced bets left
    at most one player able to bet) is not one everyone checked: nobody did, and the hand plays on."""
    prof = st.profile
    first = st.rounds.get("first")
    everyone_checked = first is not None and not first.any_bet and not first.any_fold and not first.nobody_to_act
    held = could_open(st) if prof.openers_jacks else True
    nobody = held is False and not st.points_mode
    required = nobody or (everyone_checked and prof.all_check_redeal and not st.points_mode)
    return required, nobody, everyone_checked, held


def redeal_due(st: HandState) -> bool:
    """Whether the hand must end in a redeal (what is legal now; the query ``check_redeal`` judges by)."""
    return redeal_state(st)[0]


def check_uncalled(st: HandState, due: dict[str, int]) -> list[Finding] | None:
    """``UNCALLED_BET``: what came back to each player against the uncalled part of his bet."""
    line = st.uncalled_lines[0].line if st.uncalled_lines else st.hand.end_line
    players = set(due) | set(st.returned_log)
    out: list[Finding] | None = None
    for p in sorted(players, key=lambda q: st.order.index(q) if q in st.order else 99):
        want, got = due.get(p, 0), st.returned_log.get(p, 0)
        if want != got:
            variant = "not_returned" if want and not got else "none_due" if got and not want else "wrong"
            out = gather(out, finding(st, Rule.UNCALLED_BET, line, variant,
                               (("player", p), ("due_amount", want), ("returned_amount", got)), player=p,
                               expected=want, actual=got, street="summary"))
    return out


def check_awards(st: HandState, results: list[PotResult]) -> list[Finding] | None:
    """Compare what each pot paid in the log with what it should have paid (``POT_AMOUNT``, ``POT_WINNER``,
    ``ODD_CHIP``); the log's collections are put against the pots they name."""
    out: list[Finding] | None = None
    found = check_paid_as_split(st)
    if found is not None:
        out = gather(out, found)
    if not results:
        for c in st.collected:
            out = gather(out, finding(st, Rule.POT_AMOUNT, c.line, "no_pot", (("player", c.player), ("amount", c.amount)),
                               player=c.player, expected=0, actual=c.amount, street="summary"))
        return out
    if not st.collected:
        in_pots = sum(r["amount"] for r in results)
        if in_pots > 0:
            first = results[0]
            out = gather(out, finding(st, Rule.POT_AMOUNT, st.hand.end_line, "nobody_collected",
                               (("total_chips", in_pots),), player=(first["winners"] or [None])[0],
                               expected=in_pots, actual=0, street="summary"))
            return out
    by_name = {r["name"]: r for r in results}
    for c in st.collected:
        target = _pot_collected_from(c, by_name, len(results))
        if target is None:
            out = gather(out, finding(st, Rule.POT_AMOUNT, c.line, "no_such_pot",
                               (("player", c.player), ("amount", c.amount), ("named_pot", c.pot)),
                               player=c.player, actual=c.amount, street="summary"))
            continue
        # (the pot's dicts read once each, typed: a ``PotResult``'s values are ``Any``, looked up by name)
        collected: dict[str, int] = target["collected"]
        collected[c.player] = collected.get(c.player, 0) + c.amount
        lines: dict[str, int] | None = target.get("lines")
        if lines is None:
            lines = target["lines"] = {}
        lines[c.player] = c.line
    if st.profile.rake_allowed:
        take_rake(st, results)
    for r in results:
        out = gather_all(out, judge_pot(st, r))
    return out


def _pot_collected_from(c: Collect, by_name: dict[str, PotResult], pots: int) -> PotResult | None:
    """The pot a collection names (``pot`` and ``main`` stand for each other; ``side`` for the one side pot)."""
    name = c.pot
    if name == "parole":
        name = "pot"
    if name == "side" and "side-1" in by_name and pots == 2:
        name = "side-1"
    if name == "pot" and "pot" not in by_name and "main" in by_name:
        name = "main"
    if name == "main" and "main" not in by_name and "pot" in by_name:
        name = "pot"
    return by_name.get(name) if name else None


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


def judge_pot(st: HandState, r: PotResult) -> list[Finding] | None:
    """One pot: paid to its winners (who showed), in full, each his share, the odd chip to the right one."""
    pot = r["name"]
    got: dict[str, int] = r["collected"]
    awards: dict[str, int] = r["awards"]
    lines: dict[str, int] = r.get("lines", {})
    out: list[Finding] | None = None
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
    if total == payable and got == awards:  # paid as it should be: only who showed is left to judge
        if len(r["eligible"]) >= 2 and st.won_by_fold is None:
            out = gather_all(out, check_winner_showed(st, r, lines, line, []))
        return out
    paid_wrong = [p for p in got if got[p] > 0 and p not in awards]
    if len(r["eligible"]) >= 2 and st.won_by_fold is None:
        out = gather_all(out, check_winner_showed(st, r, lines, line, paid_wrong))
    if not r["winners"] and r["eligible"]:
        return out  # cards unknown (site logs): nothing to judge
    for p in paid_wrong:
        winners = "\n".join(r["winners"])
        out = gather(out, finding(st, Rule.POT_WINNER, lines.get(p, line), "not_winner" if winners else "not_winner_nobody",
                           (("player", p), ("got_amount", got[p]), ("the_pot", pot), ("winners_and", winners),
                            ("eligible", ", ".join(r["eligible"]))),
                           player=p, expected=" and ".join(r["winners"]) or "nobody", actual=p, street="showdown"))
    missing = [w for w in awards if awards[w] > 0 and got.get(w, 0) == 0]
    if paid_wrong:
        return out
    for w in missing:
        if total != payable or len(awards) == 1:
            out = gather(out, finding(st, Rule.POT_WINNER if total == payable else Rule.POT_AMOUNT, line, "won_nothing",
                               (("player", w), ("the_pot", pot), ("won_amount", awards[w])), player=w,
                               expected=awards[w], actual=0, street="showdown"))
    if total != payable:
        out = gather(out, finding(st, Rule.POT_AMOUNT, line, "total",
                           (("the_pot", pot), ("pot_amount", r["amount"]), ("collected_amount", total)),
                           player=None if len(got) != 1 else next(iter(got)), expected=r["amount"], actual=total,
                           street="showdown"))
        return out
    if len(awards) > 1:
        return gather_all(out, check_tied_shares(st, r, lines, line))
    return out


def check_tied_shares(st: HandState, r: PotResult, lines: dict[str, int], line: int) -> list[Finding] | None:
    """A pot tied between two or more best hands and paid in full to them (RULES.md, "Tied pots are split").
    Each tied winner is owed his share; shares that differ only in who got the odd chips (every winner paid the
    share rounded down or up) are ``ODD_CHIP``; a winner paid less than that, nothing included, is ``POT_WINNER``
    against each winner who took more than his own share, one finding per pair with the chips, so that the
    findings say exactly the transfers that put the pot right."""
    pot = r["name"]
    got: dict[str, int] = r["collected"]
    awards: dict[str, int] = r["awards"]
    payable = 0
    for amount in awards.values():
        payable += amount
    low = payable // len(awards)
    high = low if payable % len(awards) == 0 else low + 1
    out: list[Finding] | None = None
    if all(low <= got.get(p, 0) <= high for p in awards):
        wrong = [p for p in awards if got.get(p, 0) > awards[p]]
        short = [p for p in awards if got.get(p, 0) < awards[p]]
        if wrong or short:
            out = gather(out, finding(st, Rule.ODD_CHIP, lines.get(wrong[0], line) if wrong else line, "wrong",
                               (("the_pot", pot), ("paid", ", ".join(wrong)), ("owner", ", ".join(short))),
                               player=wrong[0] if wrong else None, expected=", ".join(short),
                               actual=", ".join(wrong), street="showdown"))
        return out
    owed = {p: awards[p] - got.get(p, 0) for p in awards if got.get(p, 0) < awards[p]}
    taken = {p: got.get(p, 0) - awards[p] for p in awards if got.get(p, 0) > awards[p]}
    for taker, extra in taken.items():
        for w in list(owed):
            chips = min(extra, owed[w])
            if chips <= 0:
                continue
            out = gather(out, finding(st, Rule.POT_WINNER, lines.get(taker, line), "tie_taken",
                               (("player", taker), ("owed", w), ("taken_chips", chips), ("the_pot", pot),
                                ("share_amount", awards[w]), ("got_amount", got.get(w, 0))),
                               player=taker, expected=f"{w} {awards[w]}", actual=f"{w} {got.get(w, 0)}",
                               street="showdown"))
            extra -= chips
            owed[w] -= chips
            if not owed[w]:
                del owed[w]
    return out


def check_winner_showed(st: HandState, r: PotResult, lines: dict[str, int], line: int,
                        paid_wrong: list[str]) -> list[Finding] | None:
    """``POT_WINNER``: when two or more of a pot's players reach the show down, it goes only to a hand that
    was shown (a hand won because everyone else folded needs no show, nor a pot only one player could win)."""
    got: dict[str, int] = r["collected"]
    out: list[Finding] | None = None
    for p in got:
        if got[p] > 0 and p not in st.shown and p not in st.mucked and p not in paid_wrong:
            out = gather(out, finding(st, Rule.POT_WINNER, lines.get(p, line), "never_showed",
                                      (("player", p), ("got_amount", got[p]), ("the_pot", r["name"])), player=p,
                                      expected=f"{p} shows", actual="no show", street="showdown"))
    return out


def check_conservation(st: HandState, total_in: int, collected: int, returned: int, rake: int) -> Finding | None:
    """``CHIPS_NOT_CONSERVED``: collected + returned + raked = everything put in."""
    if collected + returned + rake == total_in:
        return None
    return finding(st, Rule.CHIPS_NOT_CONSERVED, st.hand.end_line, "raked" if rake else "plain",
                   (("in_chips", total_in), ("collected_amount", collected), ("returned_amount", returned),
                    ("rake_amount", rake), ("missing_delta", total_in - collected - returned - rake)),
                   expected=total_in, actual=collected + returned + rake, street="summary")
