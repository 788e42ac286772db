"""Issue 41, money said right everywhere: the reports and views that sum chips owed give what the verdict of
``audit explain`` gives, netting each hand the table corrected itself, over every fixture and over simulated
sessions with wrong payments put into them (the table corrects those in the middle of a session: the next hand's
stacks are the right ones; nobody corrects a session's last hand)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.errors import InputError
from audit.explain import HandExplanation, SessionExplanation, explain_file
from audit.simulate import iter_simulated
from conftest import SHARED, needs_shared

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEMO = FIXTURES / "demo"
PARTIES = ("the pot", "the house")
_COLLECT = re.compile(r"^(\S+) collected (\d+) from pot$")
_SEAT = re.compile(r"^Seat \d+: (\S+) \(")


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def rows(db: Path, *args: str) -> list[dict[str, Any]]:
    result = run(*args, "--db", str(db), "-f", "json")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


def unit_of(h: HandExplanation | SessionExplanation) -> str:
    return f"{h.unit} cents" if h.unit else "chips"


class Verdict:
    """What ``audit explain`` says of some logs: per player and unit what is left to pay, per hand whether the
    table corrected it, per session the net balances."""

    def __init__(self, paths: list[Path]) -> None:
        self.owed: Counter[tuple[str, str]] = Counter()  # (player, unit) → chips owed to the player, net
        self.corrected: dict[tuple[str, str], str | None] = {}  # (file, hand) → the hand it was corrected before
        self.corrected_for: dict[tuple[str, str], set[str]] = {}  # (player, unit) → "387708 before 387709"
        self.sessions: dict[tuple[str, str], dict[str, int]] = {}  # (file, session) → player → net balance
        for path in paths:
            try:
                explained = list(explain_file(str(path)))
            except InputError:  # a log of a site audit does not read: no hand of it is judged, none owes
                continue
            for x in explained:
                if isinstance(x, SessionExplanation):
                    self.sessions[(x.file, x.name)] = {p: d for p, d in x.balances.items() if p not in PARTIES}
                    continue
                if x.settlement is None:
                    continue
                self.corrected[(x.file, x.hand or "?")] = x.corrected_before
                for p, d in x.settlement.difference.items():
                    if not d:
                        continue
                    if x.corrected_before is None:
                        self.owed[(p, unit_of(x))] += d
                    else:
                        self.corrected_for.setdefault((p, unit_of(x)), set()).add(
                            f"{x.hand} before {x.corrected_before}")


def hold_to_the_verdict(db: Path, verdict: Verdict) -> None:
    """Every report and view that sums chips owed against ``verdict``."""
    report = rows(db, "report", "chips-misallocated")
    assert {(r["player"], r["unit"]): -r["net"] for r in report if r["net"]} == {
        k: d for k, d in verdict.owed.items() if d}
    assert {(r["player"], r["unit"]): set(r["corrected_at_table"] or []) for r in report
            if r["corrected_at_table"]} == verdict.corrected_for
    for r in report:
        assert r["net"] == r["received_too_much"] - r["received_too_little"]
    pots = rows(db, "report", "misawarded-pots")
    for r in pots:
        assert r["corrected_before"] == verdict.corrected[(r["file"], r["hand_id"])], r
    hands = rows(db, "sql", "SELECT file, hand_id, corrected_before FROM hand_details WHERE audited")
    assert {(r["file"], r["hand_id"]): r["corrected_before"] for r in hands
            if (r["file"], r["hand_id"]) in verdict.corrected} == verdict.corrected
    left = rows(db, "sql", "SELECT h.file, h.session, s.player, sum(s.owed) AS owed FROM seats AS s "
                           "JOIN hand_details AS h USING (hand_key) WHERE h.session IS NOT NULL "
                           "AND h.corrected_before IS NULL GROUP BY ALL HAVING sum(s.owed) <> 0")
    by_session: dict[tuple[str, str], dict[str, int]] = {}
    for r in left:
        by_session.setdefault((r["file"], r["session"]), {})[r["player"]] = r["owed"]
    assert by_session == {k: v for k, v in verdict.sessions.items() if v}


@pytest.fixture(scope="module")
def every_fixture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    paths = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".txt", ".xml"))
    db = tmp_path_factory.mktemp("verdict") / "fixtures.duckdb"
    result = run("ingest", *map(str, paths), "--db", str(db), "-q")
    assert result.exit_code in (0, 1), result.output
    return db, paths


def test_the_corrected_odd_chip_is_not_owed_twice(tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    assert run("ingest", str(DEMO), "--db", str(db), "-q").exit_code == 0
    masha = [r for r in rows(db, "report", "chips-misallocated") if r["player"] == "Маша"]
    # two hands paid her the odd chip; the table gave it back before hand #387709 of one of them
    assert [(r["hands"], r["net"], r["corrected_at_table"]) for r in masha] == [(1, 1, ["387708 before 387709"])]
    pots = {r["file"].rsplit("/", 1)[-1]: r["corrected_before"] for r in rows(db, "report", "misawarded-pots")}
    assert pots == {"home-session-odd-chip-dispute.txt": "387709", "home-session-odd-chip-uncorrected.txt": None}


def test_every_fixture_reports_what_the_verdict_says(every_fixture: tuple[Path, list[Path]]) -> None:
    db, paths = every_fixture
    verdict = Verdict(paths)
    assert verdict.owed and verdict.corrected_for  # something owed, and something the table corrected
    hold_to_the_verdict(db, verdict)


@needs_shared
def test_the_shared_cases_and_real_site_logs_report_what_the_verdict_says(tmp_path: Path) -> None:
    """Site logs for money, with the rake the game allows: the report no longer counts it as received short."""
    paths = sorted(p for folder in (SHARED / "cases", SHARED / "real-hands") for p in folder.rglob("*")
                   if p.suffix in (".txt", ".xml"))
    db = tmp_path / "shared.duckdb"
    assert run("ingest", *map(str, paths), "--db", str(db), "-q").exit_code in (0, 1)
    verdict = Verdict(paths)
    [raked] = rows(db, "sql", "SELECT count(*) AS n FROM hands WHERE rake > 0 AND unit <> 'chips'")
    assert raked["n"] > 10 and verdict.owed  # hands for money with a rake, and chips owed elsewhere
    hold_to_the_verdict(db, verdict)


def paid_wrong(text: str, last: bool) -> tuple[str, bool]:
    """``text`` (a simulated session) with one pot paid one chip short to its winner and that chip to another
    player of the hand: in the session's last hand (``last``: nobody corrects it), else in the first hand with a
    later one, whose stacks, left as they are, are the table's correction. Whether a hand could be changed."""
    blocks = text.split("\n\n")
    hands = [i for i, b in enumerate(blocks) if b.startswith("Hand #")]
    for i in (hands[-1:] if last else hands[:-1]):
        lines = blocks[i].split("\n")
        collects = [j for j, line in enumerate(lines) if _COLLECT.match(line)]
        if len(collects) != 1:
            continue
        m = _COLLECT.match(lines[collects[0]])
        assert m is not None
        winner, amount = m.group(1), int(m.group(2))
        others = [s.group(1) for s in map(_SEAT.match, lines) if s and s.group(1) != winner]
        if amount < 2 or not others:
            continue
        lines[collects[0]:collects[0] + 1] = [f"{winner} collected {amount - 1} from pot",
                                              f"{others[0]} collected 1 from pot"]
        blocks[i] = "\n".join(lines)
        return "\n\n".join(blocks), True
    return text, False


def test_simulated_sessions_with_corrections_report_what_the_verdict_says(tmp_path: Path) -> None:
    paths: list[Path] = []
    for n, session in enumerate(iter_simulated("home-open", seed=41, sessions=12)):
        text, changed = paid_wrong(session.text, last=n % 3 == 2)
        if changed:
            path = tmp_path / f"s{n:02d}.txt"
            path.write_text(text, encoding="utf-8")
            paths.append(path)
    db = tmp_path / "sim.duckdb"
    assert run("ingest", *map(str, paths), "--db", str(db), "-q").exit_code == 0
    verdict = Verdict(paths)
    corrected = [h for h, before in verdict.corrected.items() if before is not None]
    assert len(paths) >= 10 and len(corrected) >= 5 and verdict.owed  # both kinds are there
    hold_to_the_verdict(db, verdict)
