"""The dialects (audit/dialects/): the registry, Full Tilt Poker and OnGame read from real logs and fixtures, the
boundaries of the package, and parsing from several threads at once."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

import pytest

from audit import _native
from audit.dialects import registry
from audit.dialects.dispatch import hand_parser, parse_block
from audit.model import (
    Action, Collect, Dealt, Discard, Hand, NothingHere, ParseFailure, Post, Show, SummaryTotal, Uncalled,
)
from audit.read import block_kind, read_blocks, read_text_blocks
from audit.resources import data_dir
from conftest import chips_put_in, AUDIT, FIXTURES, ROOT, SHARED, needs_shared
from modeldump import dump_block

REAL = SHARED / "real-hands"


def module_name(d: registry.Dialect) -> str:
    """A dialect's module's own name (``pokerstars``): also the folder of its real logs in shared/real-hands."""
    return d.module.rsplit(".", 1)[1]


# dialect → folder of its real logs (every dialect but the house format's has one)
SITES = {d.name: module_name(d) for d in registry.DIALECTS if (REAL / module_name(d)).is_dir()}
# the dialects whose fixtures are hands beside the model they parse to (the house format's are tested in
# test_parse.py, PokerStars's are rule cases judged in test_site_audit.py)
MODEL_FIXTURES = [d.name for d in registry.DIALECTS if d.name not in ("house", "site")]
DIALECT_FIXTURES = sorted(p for name in MODEL_FIXTURES for p in (FIXTURES / name).iterdir()
                          if p.suffix in (".txt", ".xml") and p.with_suffix(".expect.json").is_file())
GRAMMARS = [d for d in registry.DIALECTS if d.grammar is not None]


def dialect_patterns(name: str) -> tuple[str, ...]:
    """The file names dialect ``name`` takes (``*.txt``, ``*.xml``)."""
    d = registry.dialect(name)
    assert d is not None
    return d.file_patterns


def dialect_files(folder: Path, name: str) -> list[Path]:
    """The files in ``folder`` (not below) that dialect ``name`` takes, in name order."""
    return sorted({p for pattern in dialect_patterns(name) for p in folder.glob(pattern)})


def real_hands(folder: str) -> list[Hand]:
    """The hands of the real logs in shared/real-hands/<folder> (a file's XML prologue is nothing)."""
    (name,) = [n for n, f in SITES.items() if f == folder]
    hands: list[Hand] = []
    for path in dialect_files(REAL / folder, name):
        for block in read_blocks(path):
            parsed = parse_block(block)
            if type(parsed) is NothingHere:
                continue
            assert isinstance(parsed, Hand), getattr(parsed, "message", parsed)
            hands.append(parsed)
    return hands


def recorded_hands(folder: str) -> int:
    """How many hands shared/real-hands/SOURCES.tsv says the files of ``folder`` hold."""
    rows = [line.split("\t") for line in (REAL / "SOURCES.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    return sum(int(r[-1]) for r in rows if r[0].startswith(folder + "/"))


# ---- the registry ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", registry.DIALECTS, ids=lambda d: d.name)
def test_every_dialect_is_a_module_a_grammar_or_spec_and_a_registry_line(d: registry.Dialect) -> None:
    assert callable(hand_parser(d.name))
    assert (ROOT / (d.module.replace(".", "/") + ".py")).is_file()
    if d.grammar is not None:
        assert (data_dir("grammar") / f"{d.grammar}.lark").is_file()
    assert (FIXTURES / d.name).is_dir() and dialect_files(FIXTURES / d.name, d.name)
    for opener in d.openers:
        assert block_kind(opener + "1: …") == d.name
    assert d.file_patterns and all(p.startswith("*.") for p in d.file_patterns)
    assert registry.default_profile(d.name) == d.profile
    assert (d.module.removeprefix("audit.") in _native.COMPILED) == d.compiled


def test_the_registry_is_what_names_the_dialects() -> None:
    assert len({d.name for d in registry.DIALECTS}) == len(registry.DIALECTS)
    assert registry.default_profile("house") is None and registry.dialect("house") is registry.DIALECTS[0]
    assert hand_parser("no-such-dialect") is None and registry.dialect("no-such-dialect") is None
    assert registry.file_patterns() == ("*.txt", "*.xml")


@pytest.mark.parametrize("d", [d for d in GRAMMARS if d.name != "house"], ids=lambda d: d.name)
def test_site_grammars_build_in_strict_mode(d: registry.Dialect) -> None:
    module = __import__(d.module, fromlist=["_"])
    build = getattr(module, f"{module_name(d)}_grammar")
    assert build(strict=True) is not build()


@needs_shared
def test_the_reader_knows_each_sites_first_line() -> None:
    for dialect, folder in SITES.items():
        kinds = {b.kind for p in dialect_files(REAL / folder, dialect) for b in read_blocks(p)}
        assert kinds == {dialect}, folder


@needs_shared
def test_no_dialect_module_imports_click_duckdb_or_polars() -> None:
    """In a fresh interpreter: import every dialect and parse a real hand of each; none of these is loaded."""
    probe = (
        "import sys, glob\n"
        "from audit.read import read_blocks\n"
        "from audit.dialects import registry, dispatch, common\n"
        "for d in registry.DIALECTS: __import__(d.module)\n"
        f"for folder in {sorted(SITES.values())!r}:\n"
        f"    for path in glob.glob({str(REAL)!r} + '/' + folder + '/*.*'):\n"
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


@pytest.mark.parametrize("group", MODEL_FIXTURES)
def test_unreadable_lines_are_parse_errors_with_a_caret(group: str) -> None:
    (path,) = [p for p in dialect_files(FIXTURES / group, group) if p.stem == "unreadable-lines"]
    failures = [parse_block(b) for b in read_blocks(path)]
    failures = [f for f in failures if type(f).__name__ != "NothingHere"]  # an XML file's prologue
    assert len(failures) >= 4 and all(isinstance(f, ParseFailure) for f in failures)
    for f in failures:
        assert isinstance(f, ParseFailure)
        where, line, caret = f.message.splitlines()
        assert where.startswith(f"line {f.line}, column {f.column}: ")
        assert caret == "    " + " " * (f.column - 1) + "^" and line.startswith("    ")


# ---- the real logs ------------------------------------------------------------------------------------------

@needs_shared
@pytest.mark.parametrize("name, folder", sorted(SITES.items()))
def test_real_hands_parse_and_pots_reconcile(name: str, folder: str) -> None:
    """chips put in − uncalled = total pot = collected + rake, in integer cents, for every hand."""
    hands = real_hands(folder)
    assert len(hands) == recorded_hands(folder) == len({h.hand_id for h in hands}) > 0
    for hand in hands:
        assert hand.dialect == name and not hand.shows_all_cards
        assert hand.game is not None and hand.game.name == "5 Card Draw"
        assert hand.game.currency == ("EUR" if name == "boss" else "USD") or hand.game.currency == ""
        (total,) = [i for i in hand.body if type(i) is SummaryTotal]
        collected = sum(i.amount for i in hand.body if type(i) is Collect)
        assert chips_put_in(hand) == total.total == collected + total.rake, hand.hand_id


@needs_shared
@pytest.mark.parametrize("folder", [f for n, f in SITES.items() if n != "site"])
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


# ---- which line an error names: a broken amount in a file's third hand ---------------------------------------

_AMOUNT_IN_BET: Final = re.compile(r'(?:\bbets |TYPE="ACTION_BET"[^\n]* VALUE=")(?P<sign>[$€£]?)(?P<amount>[\d.,]+)')


def _hand_with_a_bet(name: str) -> str:
    """The text of a hand of dialect ``name`` from its fixtures (``fixtures/<name>/``) that has a bet in it."""
    for path in dialect_files(FIXTURES / name, name):
        for block in read_blocks(path):
            if block.kind == name and isinstance(parse_block(block), Hand) and _AMOUNT_IN_BET.search(block.text()):
                return block.text()
    raise AssertionError(f"fixtures/{name}/ holds no hand with a bet")


@pytest.mark.parametrize("name", [d.name for d in registry.DIALECTS])
def test_a_broken_amount_in_a_files_third_hand_names_its_own_line(name: str, tmp_path: Path) -> None:
    hand = _hand_with_a_bet(name)
    m = _AMOUNT_IN_BET.search(hand)
    assert m is not None
    broken = hand[:m.start("amount")] + "0.1230.20" + hand[m.end("amount"):]
    text = hand + "\n" + hand + "\n" + broken
    lines = text.splitlines()
    line_no = text.count("\n", 0, len(hand) * 2 + 2 + m.start("amount")) + 1
    assert "0.1230.20" in lines[line_no - 1]
    path = tmp_path / f"three{dialect_patterns(name)[0][1:]}"
    path.write_text(text, encoding="utf-8")
    failures = [p for p in (parse_block(b) for b in read_blocks(path)) if isinstance(p, ParseFailure)]
    assert len(failures) == 1
    (failure,) = failures
    where, shown, caret = failure.message.splitlines()
    assert failure.line == line_no and where.startswith(f"line {line_no}, column {failure.column}: ")
    assert shown == "    " + lines[line_no - 1]
    assert shown[4 + failure.column - 1:].startswith(m.group("sign") + "0.1230.20") or \
        shown[4 + failure.column - 1:].startswith("0.1230.20"), caret


# ---- one spec per dialect ----------------------------------------------------------------------------------

def test_the_docs_dialect_tables_are_the_registrys() -> None:
    table = registry.docs_table()
    for doc in ("docs/reference/dialects.md", "ARCHITECTURE.md"):
        assert table in (ROOT / doc).read_text(encoding="utf-8"), f"{doc}: paste registry.docs_table() again"


@pytest.mark.parametrize("d", [d for d in registry.DIALECTS if d.name != "house"], ids=lambda d: d.name)
def test_no_module_but_its_own_and_the_registry_names_a_dialect(d: registry.Dialect) -> None:
    """A dialect's name (as a string) and its module are named in code only by its module and its registry line
    (the house format, which also owns the preamble and the session's end, is the dispatch's default)."""
    own = ROOT / (d.module.replace(".", "/") + ".py")
    name = re.compile(r"""["']%s["']|dialects[.:]%s\b|dialects import[^\n]*\b%s\b""" % (
        re.escape(d.name), re.escape(module_name(d)), re.escape(module_name(d))))
    named = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "audit").rglob("*.py"))
             if p not in (own, ROOT / "audit" / "dialects" / "registry.py")
             and name.search("\n".join(line for line in p.read_text(encoding="utf-8").splitlines()
                                       if not line.lstrip().startswith(("#", '"""', "``"))))]
    assert named == []


_TOY_MODULE = '''"""A toy dialect for the test: PokerStars's lines behind a first line of its own."""
from audit.dialects import pokerstars
from audit.read import RawBlock


def parse_hand(block: RawBlock):
    lines = [block.lines[0].removeprefix("TOY ")] + block.lines[1:]
    return pokerstars.parse_hand(RawBlock(block.file, block.kind, lines, block.numbers, block.too_long))
'''

_TOY_RUN = '''import sys
sys.path.insert(0, {here!r})
from audit.dialects.registry import Dialect, register
register(Dialect("toy", "a toy site", ("TOY ",), "toy_dialect:parse_hand", "site", False, file_patterns=("*.toy",)))
import json
from audit.parallel import plan
from audit.read import expand_paths
print(json.dumps({{"listed": expand_paths([{folder!r}]),
                  "parts": [[p.start, p.first_line] for t in plan([{long!r}]) for p in t]}}))
from audit.cli.main import main
main(["check", {folder!r}, "--format", "json", "--jobs", sys.argv[1], "--fail-on", "never"])
'''


def test_a_sixth_dialect_is_its_module_and_a_registry_line(tmp_path: Path) -> None:
    """A toy dialect registered at run time (its own module, its registry line, nothing else): a folder argument
    lists its files, `check --jobs 2` cuts its long file at its hands' first lines, and its hands are audited
    under its profile, as with one job."""
    (tmp_path / "toy_dialect.py").write_text(_TOY_MODULE, encoding="utf-8")
    hand = (REAL / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt").read_text(encoding="utf-8-sig")
    hand = hand.strip().split("\n\n\n")[0].strip()
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.toy").write_text("TOY " + hand + "\n", encoding="utf-8")
    (folder / "notes.md").write_text("not a log\n", encoding="utf-8")
    copies = ["TOY " + hand.replace("Game #", f"Game #{n:03d}", 1) for n in range(600)]
    copies[450] = copies[450].replace("collected $0.95", "collected $0.15", 1)  # paid short
    long = folder / "long.toy"
    long.write_text("\n\n".join(copies) + "\n", encoding="utf-8")
    assert long.stat().st_size > 2 * 256 * 1024
    script = _TOY_RUN.format(here=str(tmp_path), folder=str(folder), long=str(long))
    runs = [subprocess.run([sys.executable, "-c", script, jobs], capture_output=True, text=True, cwd=ROOT,
                           timeout=300) for jobs in ("1", "2")]
    for done in runs:
        assert done.returncode == 0, done.stderr
    first, *findings = runs[1].stdout.splitlines()
    seen = json.loads(first)
    assert seen["listed"] == [str(folder / "a.toy"), str(long)]
    parts = seen["parts"]
    assert len(parts) >= 3 and parts[0] == [0, 1]
    data = long.read_bytes()
    for start, line in parts[1:]:
        assert data[start:start + 4] == b"TOY " and data[:start].count(b"\n") + 1 == line
    assert runs[0].stdout == runs[1].stdout
    rules = {json.loads(f)["rule"] for f in findings}
    assert rules and all(json.loads(f)["hand"].startswith("450") for f in findings), findings


# ---- the compiled build stays current ----------------------------------------------------------------------

def _state(package_parent: Path) -> tuple[str, str]:
    probe = "from audit import _native; print(_native.compiled_state())"
    env = {k: v for k, v in os.environ.items() if k != "AUDIT_PURE_PYTHON"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=package_parent,
                          env={**env, "PYTHONPATH": str(package_parent)}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), done.stderr


def test_adding_a_dialect_leaves_the_build_current_and_compiling_it_does_not(tmp_path: Path) -> None:
    """A build's stamp over a copy of the package: a new dialect (its module, its registry line) keeps it
    current; putting the dialect in the compiled group, or editing a compiled module, makes it stale, and a
    start says so."""
    copy = tmp_path / "audit"
    shutil.copytree(ROOT / "audit", copy, ignore=shutil.ignore_patterns("__pycache__", "*.so", "_native_stamp.json"))
    probe = "from audit import _native; open(_native.HERE / _native.STAMP, 'w').write(_native.stamp_text())"
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=tmp_path, env={**os.environ,
                                                                                 "PYTHONPATH": str(tmp_path)})
    assert _state(tmp_path) == ("compiled", "")
    (copy / "dialects" / "toy.py").write_text("def parse_hand(block): ...\n", encoding="utf-8")
    registry_py = copy / "dialects" / "registry.py"
    line = '\nDIALECTS = DIALECTS + (Dialect("toy", "a toy", ("TOY ",), "audit.dialects.toy:parse_hand", "site", False),)\n'
    registry_py.write_text(registry_py.read_text(encoding="utf-8") + line, encoding="utf-8")
    assert _state(tmp_path) == ("compiled", "")
    registry_py.write_text(registry_py.read_text(encoding="utf-8").replace('"site", False),)', '"site", False, '
                                                                           'compiled=True),)'), encoding="utf-8")
    state, said = _state(tmp_path)
    assert state == "stale" and "older than their source" in said
    registry_py.write_text(registry_py.read_text(encoding="utf-8").replace(", compiled=True),)", "),)"),
                           encoding="utf-8")
    assert _state(tmp_path) == ("compiled", "")
    with open(copy / "dialects" / "common.py", "a", encoding="utf-8") as f:
        f.write("\nEDITED = True\n")
    assert _state(tmp_path)[0] == "stale"


def test_make_rebuilds_from_every_module_and_whenever_the_stamp_says_stale() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "NATIVE_SOURCES := $(shell find audit -name '*.py') hatch_build.py" in makefile
    assert "_native.compiled_state())' 2>/dev/null),stale)\n$(NATIVE): FORCE" in makefile
