"""The dialects (audit/dialects/): the registry, Full Tilt Poker and OnGame read from real logs and fixtures, the
boundaries of the package, and parsing from several threads at once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from audit.dialects import registry
from audit.dialects.dispatch import hand_parser, parse_block
from audit.model import (
    Action, Collect, Dealt, Discard, Hand, ParseFailure, Post, Show, SummaryTotal, Uncalled,
)
from audit.read import block_kind, read_blocks, read_text_blocks
from audit.resources import data_dir
from conftest import chips_put_in, AUDIT, FIXTURES, ROOT, SHARED, needs_shared
from modeldump import dump_block

REAL = SHARED / "real-hands"
SITES = {"site": "pokerstars", "fulltilt": "fulltilt", "ongame": "ongame"}  # dialect → folder of real logs
DIALECT_FIXTURES = sorted(p for group in ("fulltilt", "ongame") for p in (FIXTURES / group).glob("*.txt"))


def real_hands(folder: str) -> list[Hand]:
    hands: list[Hand] = []
    for path in sorted((REAL / folder).glob("*.txt")):
        for block in read_blocks(path):
            parsed = parse_block(block)
            assert isinstance(parsed, Hand), getattr(parsed, "message", parsed)
            hands.append(parsed)
    return hands


# ---- the registry ---------------------------------------------------------------------------------------------

def test_every_dialect_is_a_grammar_a_module_and_a_registry_line() -> None:
    names = [d.name for d in registry.DIALECTS]
    assert names == ["house", "site", "fulltilt", "ongame"]
    for d in registry.DIALECTS:
        assert callable(hand_parser(d.name))
        grammar = "pokerstars" if d.name == "site" else d.name
        assert (data_dir("grammar") / f"{grammar}.lark").is_file()
        for opener in d.openers:
            assert block_kind(opener + "1: …") == d.name
    assert registry.default_profile("house") is None
    assert {registry.default_profile(n) for n in ("site", "fulltilt", "ongame")} == {"site"}
    assert hand_parser("no-such-dialect") is None


@pytest.mark.parametrize("module, grammar", [("pokerstars", "pokerstars_grammar"), ("fulltilt", "fulltilt_grammar"),
                                             ("ongame", "ongame_grammar")])
def test_site_grammars_build_in_strict_mode(module: str, grammar: str) -> None:
    build = getattr(__import__(f"audit.dialects.{module}", fromlist=["_"]), grammar)
    assert build(strict=True) is not build()


@needs_shared
def test_the_reader_knows_each_sites_first_line() -> None:
    for dialect, folder in SITES.items():
        kinds = {b.kind for p in (REAL / folder).glob("*.txt") for b in read_blocks(p)}
        assert kinds == {dialect}, folder


@needs_shared
def test_no_dialect_module_imports_click_duckdb_or_polars() -> None:
    """In a fresh interpreter: import every dialect and parse a real hand of each; none of these is loaded."""
    probe = (
        "import sys, glob\n"
        "from audit.read import read_blocks\n"
        "from audit.dialects import registry, dispatch, common, house, pokerstars, fulltilt, ongame\n"
        f"for folder in {sorted(SITES.values())!r}:\n"
        f"    for path in glob.glob({str(REAL)!r} + '/' + folder + '/*.txt'):\n"
        "        for block in read_blocks(path):\n"
        "            dispatch.parse_block(block)\n"
        "print(sorted(m for m in ('click', 'duckdb', 'polars') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert "audit.dialects.pokerstars" in subprocess.run(
        [sys.executable, "-c", probe.replace("print(sorted(m for m in ('click', 'duckdb', 'polars') if m in "
                                             "sys.modules))", "print(sorted(sys.modules))")],
        capture_output=True, text=True, cwd=ROOT).stdout  # the probe does import what it claims to


# ---- the fixtures: every line of each dialect, and unreadable lines with their caret ------------------------

@pytest.mark.parametrize("case", DIALECT_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_parses_to_expected_model(case: Path) -> None:
    got = [dump_block(parse_block(b)) for b in read_blocks(case)]
    assert got == json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", [p for p in DIALECT_FIXTURES if "unreadable" not in p.name],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_hands_audit_clean(case: Path) -> None:
    done = subprocess.run([AUDIT, "check", str(case), "--format", "json"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr


def test_unreadable_lines_are_parse_errors_with_a_caret() -> None:
    for group in ("fulltilt", "ongame"):
        failures = [parse_block(b) for b in read_blocks(FIXTURES / group / "unreadable-lines.txt")]
        assert len(failures) == 6 and all(isinstance(f, ParseFailure) for f in failures)
        for f in failures:
            assert isinstance(f, ParseFailure)
            where, line, caret = f.message.splitlines()
            assert where.startswith(f"line {f.line}, column {f.column}: ")
            assert caret == "    " + " " * (f.column - 1) + "^" and line.startswith("    ")


# ---- the real logs ------------------------------------------------------------------------------------------

@needs_shared
@pytest.mark.parametrize("folder, count", [("fulltilt", 3), ("ongame", 15)])
def test_real_hands_parse_and_pots_reconcile(folder: str, count: int) -> None:
    """chips put in − uncalled = total pot = collected + rake, in integer cents, for every hand."""
    hands = real_hands(folder)
    assert len(hands) == count == len({h.hand_id for h in hands})
    for hand in hands:
        assert hand.dialect == folder and not hand.shows_all_cards
        assert hand.game is not None and hand.game.name == "5 Card Draw" and hand.game.currency == "USD"
        (total,) = [i for i in hand.body if type(i) is SummaryTotal]
        collected = sum(i.amount for i in hand.body if type(i) is Collect)
        assert chips_put_in(hand) == total.total == collected + total.rake, hand.hand_id


@needs_shared
@pytest.mark.parametrize("folder", ["fulltilt", "ongame"])
def test_only_the_heros_cards_and_shown_hands_are_known(folder: str) -> None:
    for hand in real_hands(folder):
        dealt_to = {i.player for i in hand.body if type(i) is Dealt}
        assert dealt_to == {"Hero"}, hand.hand_id
        hidden = [i for i in hand.body if type(i) is Discard and i.player != "Hero"]
        assert all(d.cards is None for d in hidden)


@needs_shared
def test_full_tilt_lines() -> None:
    (hand,) = [h for h in real_hands("fulltilt") if h.hand_id == "25340539000"]
    assert hand.table == "Axe Handle" and hand.button == 6 and hand.started_at == "2010/11/07 02:58:00"
    assert Action(11, "Player4", "call", 25) in hand.body
    assert Discard(16, "Hero", 3, ("Jh", "Kc", "3s")) in hand.body
    assert Dealt(19, "Hero", (("Qd", "Qh"), ("7c", "Ad", "3c"))) in hand.body
    assert Show(25, "Player4", ("9c", "9s", "9d", "Ac", "2s"), "three of a kind, Nines") in hand.body
    assert Collect(27, "Player4", 105, "pot") in hand.body and SummaryTotal(29, 110, 5) in hand.body
    limit = [h for h in real_hands("fulltilt") if h.hand_id == "25319060000"][0]
    # "raises to $0.20" over the big blind of $0.10: a raise of 10 to 20; after the draw, 20 over a bet of 20
    assert Action(14, "Player1", "raise", 10, 20) in limit.body
    assert Action(29, "Player1", "raise", 20, 40) in limit.body


@needs_shared
def test_ongame_without_street_lines_and_with_a_hidden_winner() -> None:
    (plain,) = real_hands("ongame")[:1]  # the file with no "---" around the draw
    assert plain.hand_id == "R5-192626403-203"
    assert [(p.player, p.kind) for p in plain.body if type(p) is Post] == [("Player0", "small"), ("Player3", "big")]
    assert Uncalled(26, "Player0", 500) in plain.body  # the bet after the draw nobody called
    hidden = [h for h in real_hands("ongame") if h.hand_id == "R5-81962116-235"][0]
    assert not any(type(i) is Show for i in hidden.body)  # the winner's hand is not in the log
    assert {i.player for i in hidden.body if type(i).__name__ == "Muck"} == {"grommek", "Hero"}
    goalwin = [h for h in real_hands("ongame") if h.hand_id == "R5-174428515-250"][0]
    assert Discard(74, "Hero", 1, ("5h",)) in goalwin.body  # no "changed" line: the new hand tells the draw
    assert [i.player for i in goalwin.body if type(i) is Show] == ["Player4", "Hero"]


def _check(*paths: Path) -> list[dict[str, object]]:
    done = subprocess.run([AUDIT, "check", *map(str, paths), "--format", "json", "--fail-on", "never"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@needs_shared
def test_real_full_tilt_and_ongame_hands_audit_clean() -> None:
    assert _check(REAL / "fulltilt", REAL / "ongame") == []
    done = subprocess.run([AUDIT, "check", str(REAL / "fulltilt"), str(REAL / "ongame")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "18 hands checked in 6 files: 0 violations, 0 warnings, 0 errors" in done.stdout


@needs_shared
def test_they_ingest_beside_pokerstars_with_their_own_dialect(tmp_path: Path) -> None:
    db = tmp_path / "real.duckdb"
    done = subprocess.run([AUDIT, "ingest", str(REAL / "pokerstars"), str(REAL / "fulltilt"), str(REAL / "ongame"),
                           "--db", str(db)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    query = ("SELECT dialect, profile, count(*) AS n, sum(pot_total) AS pots FROM hands GROUP BY ALL "
             "ORDER BY dialect")
    rows = subprocess.run([AUDIT, "sql", query, "--db", str(db), "--format", "jsonl"], capture_output=True,
                          text=True, timeout=120)
    assert rows.returncode == 0, rows.stderr
    got = [json.loads(line) for line in rows.stdout.splitlines()]
    assert [(r["dialect"], r["profile"], r["n"]) for r in got] == [
        ("fulltilt", "site", 3), ("ongame", "site", 15), ("site", "site", 37)]
    assert got[0]["pots"] == 200 + 1200 + 110


@needs_shared
@pytest.mark.parametrize("fmt", ["text", "json", "html"])
@pytest.mark.parametrize("path, hand", [
    ("fulltilt/5-Carddraw-NL-USD-0.10-0.20-201011.Saw.Showdown.Not.UTF16.txt", "25340557279"),
    ("ongame/5-Carddraw-USD-0.05-0.10-201009.Sample.txt", "R5-81962116-233"),
])
def test_explain_renders_them(path: str, hand: str, fmt: str) -> None:
    done = subprocess.run([AUDIT, "explain", str(REAL / path), "--hand", hand, "--format", fmt],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert hand in done.stdout
    if fmt == "json":
        record = json.loads(done.stdout.splitlines()[0])
        shown = {s["player"]: s["cards"] for s in record["seats"] if s["cards"]}
        # hidden cards stay hidden: only the hero's hand and the hands shown down are known
        hands = {h.hand_id: h for h in real_hands(path.split("/")[0])}
        showers = {i.player for i in hands[hand].body if type(i) is Show}
        assert set(shown) == {"Hero"} | showers and showers


# ---- several threads at once ------------------------------------------------------------------------------------

def _findings(text: str) -> list[str]:
    from audit.pipeline import audit_blocks
    return [json.dumps(f.as_dict(), sort_keys=True) for a in audit_blocks(read_text_blocks(text)) for f in a.findings]


@needs_shared
def test_eight_threads_give_what_one_thread_gives() -> None:
    """PokerStars, Full Tilt, OnGame and house text audited by 8 threads at once (switching threads as often as
    the interpreter allows) give the findings one thread gives."""
    texts = [p.read_text(encoding="utf-8-sig") for p in sorted((REAL / "pokerstars").glob("*.txt"))]
    texts += [(REAL / "fulltilt" / p.name).read_bytes().decode("utf-16") for p in (REAL / "fulltilt").glob("*.txt")]
    texts += [p.read_text(encoding="utf-8") for p in sorted((REAL / "ongame").glob("*.txt"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "rules").glob("*.txt"))[:40]]
    texts += [(FIXTURES / "site" / "play-money-sidepot.txt").read_text(encoding="utf-8")]
    alone = [_findings(t) for t in texts]
    assert sum(map(len, alone)) > 20  # house rule fixtures: real findings to compare
    results: dict[int, list[list[str]]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(n: int) -> None:
        try:
            start.wait()
            order = texts[n:] + texts[:n]  # each thread starts elsewhere, so different dialects interleave
            got = [_findings(t) for t in order]
            results[n] = got[len(texts) - n:] + got[:len(texts) - n]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    for n in range(8):
        assert results[n] == alone, n


@needs_shared
def test_the_site_parsers_hold_no_state_between_hands() -> None:
    """A play-money hand (chips) parsed between two cash hands (cents) changes nothing in them."""
    cash = (REAL / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt").read_text(encoding="utf-8-sig")
    chips = (FIXTURES / "site" / "play-money-sidepot.txt").read_text(encoding="utf-8")
    first = [parse_block(b) for b in read_text_blocks(cash)]
    [parse_block(b) for b in read_text_blocks(chips)]
    assert [parse_block(b) for b in read_text_blocks(cash)] == first
    hand = first[0]
    assert isinstance(hand, Hand) and Post(9, "Hero", "big", 50) in hand.body  # cents, not the chips before
