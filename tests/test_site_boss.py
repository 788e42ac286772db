"""Boss Media's XML logs (shared/real-hands/boss): the fifth dialect, through every command that reads logs.

The real hands audit clean and their pots reconcile (``test_dialects.py`` checks the pots of every site's real
hands); copies edited by hand (a wrong winner, an under-raise, a duplicated card, a bet over the pot) are caught
with the rule they break; ``ingest``, ``explain`` and the service take them; ``check --jobs 2`` cuts a long file.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.dialects.boss import card_of
from audit.parallel import plan
from conftest import at_least, AUDIT, ROOT, SHARED
from servehelp import LiveServer

BOSS = SHARED / "real-hands" / "boss"
XML = BOSS / "5CD-FL-EUR-2-4.Opoker.sample.xml"  # 14 fixed-limit hands, the name the site gave the file
PL = BOSS / "5CD-PL-EUR-0.50-1.00-201307.txt"  # one pot-limit hand with a show down (CRLF)


def check(*paths: Path | str, jobs: int = 1) -> tuple[int, list[dict[str, object]], str]:
    done = subprocess.run([AUDIT, "check", *map(str, paths), "--format", "json", "--jobs", str(jobs)],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_the_cards_are_numbered_by_suit_then_rank() -> None:
    assert [card_of(n) for n in ("0", "9", "12", "13", "25", "26", "45", "51")] == [
        "Ad", "Td", "Kd", "Ac", "Kc", "Ah", "7s", "Ks"]
    assert card_of("b") is None and card_of("52") is None and card_of("-1") is None


def test_the_real_hands_audit_clean_and_the_folder_takes_the_xml_file() -> None:
    code, found, err = check(BOSS)
    assert (code, found) == (0, []), err
    done = subprocess.run([AUDIT, "check", str(BOSS)], capture_output=True, text=True, timeout=120)
    assert "15 hands checked in 2 files: 0 violations, 0 warnings, 0 errors" in done.stdout
    listed = subprocess.run([AUDIT, "check", str(BOSS), "--format", "json", "--fail-on", "never", "-q"],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr


def _edited(tmp_path: Path, edits: list[tuple[str, str]], name: str = "edited.txt") -> Path:
    text = PL.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# Each edit is the whole of a change as a dishonest or broken site would write it: amounts that follow it are
# changed with it, so that the rule named is the one broken (the others stay quiet).
EDITS = {
    "a wrong winner": ("POT_WINNER", [
        ('<RESULT PLAYER="Player0" WIN="0.00"', '<RESULT PLAYER="Player0" WIN="7.60"'),
        ('<RESULT PLAYER="Hero" WIN="7.60"', '<RESULT PLAYER="Hero" WIN="0.00"')]),
    "an under-raise": ("RAISE_BELOW_MIN", [
        ('ACTION_RAISE" PLAYER="Hero" VALUE="2.00"', 'ACTION_RAISE" PLAYER="Hero" VALUE="1.50"'),
        ('ACTION_CALL" PLAYER="Player0" VALUE="2.00"></ACTION>\n<ACTION TYPE="HAND_BOARD"',
         'ACTION_CALL" PLAYER="Player0" VALUE="1.50"></ACTION>\n<ACTION TYPE="HAND_BOARD"'),
        ('POT="7.60" RAKE="0.40" MAINPOT="7.60"', 'POT="6.60" RAKE="0.40" MAINPOT="6.60"'),
        ('<RESULT PLAYER="Hero" WIN="7.60"', '<RESULT PLAYER="Hero" WIN="6.60"')]),
    "a duplicated card": ("CARD_DUPLICATE", [
        ('<CARD LINK="26"></CARD>\n<CARD LINK="45"></CARD>', '<CARD LINK="26"></CARD>\n<CARD LINK="12"></CARD>'),
        ('<CARD LINK="50"></CARD>\n<CARD LINK="45"></CARD></RESULT>',
         '<CARD LINK="50"></CARD>\n<CARD LINK="12"></CARD></RESULT>')]),
    "a bet over the pot": ("BET_OVER_POT", [
        ('ACTION_BET" PLAYER="Hero" VALUE="2.00"', 'ACTION_BET" PLAYER="Hero" VALUE="6.00"'),
        ('ACTION_CALL" PLAYER="Player0" VALUE="2.00"></ACTION>\n<SHOWDOWN',
         'ACTION_CALL" PLAYER="Player0" VALUE="6.00"></ACTION>\n<SHOWDOWN'),
        ('POT="7.60" RAKE="0.40" MAINPOT="7.60"', 'POT="15.60" RAKE="0.40" MAINPOT="15.60"'),
        ('<RESULT PLAYER="Hero" WIN="7.60"', '<RESULT PLAYER="Hero" WIN="15.60"')]),
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_hand_edited_copies_are_caught(what: str, tmp_path: Path) -> None:
    rule, edits = EDITS[what]
    code, found, err = check(_edited(tmp_path, edits))
    assert code == 1, err
    assert {f["rule"] for f in found if f["severity"] == "violation"} == {rule}, found


def test_a_long_file_is_cut_for_jobs_and_gives_what_one_job_gives(tmp_path: Path) -> None:
    """Hands repeated with ids of their own, in an XML file with its prologue: cut at <HISTORY> lines."""
    text = XML.read_text(encoding="utf-8")
    head, _, rest = text.partition("<HISTORY ")
    hands = ("<HISTORY " + rest).replace("</ROOT>", "").rstrip("\n").split("\n<HISTORY ")
    hands = [h if h.startswith("<HISTORY ") else "<HISTORY " + h for h in hands]
    copies = []
    for n in range(40):
        for h in hands:
            copies.append(h.replace('<HISTORY ID="', f'<HISTORY ID="{n:02d}', 1))
    long = tmp_path / "long.xml"
    long.write_text(head + "\n".join(copies) + "</ROOT>\n", encoding="utf-8")
    wrong = re.sub(r'WIN="(?!0\.00)[\d.]+" HAND', 'WIN="0.01" HAND', copies[-5], count=1)  # the winner paid less
    assert wrong != copies[-5]
    long.write_text(head + "\n".join(copies[:-5] + [wrong] + copies[-4:]) + "</ROOT>\n", encoding="utf-8")
    assert long.stat().st_size > 2 * 256 * 1024
    parts = [p for task in plan([str(long)]) for p in task]
    assert len(parts) >= 3
    for part in parts[1:]:
        with open(long, "rb") as f:
            f.seek(part.start)
            assert f.read(9) == b"<HISTORY ", part
    one = check(long, jobs=1)
    two = check(long, jobs=2)
    assert one == two and one[0] == 1
    assert one[1] and {f["hand"] for f in one[1]} == {wrong.split('"', 2)[1]}


def test_ingest_stores_them_as_boss_hands_in_euros(tmp_path: Path) -> None:
    db = tmp_path / "boss.duckdb"
    done = subprocess.run([AUDIT, "ingest", str(BOSS), "--db", str(db)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    query = ("SELECT dialect, profile, count(*) AS n, sum(pot_total) AS pots FROM hands GROUP BY ALL")
    rows = subprocess.run([AUDIT, "sql", query, "--db", str(db), "--format", "jsonl"], capture_output=True,
                          text=True, timeout=120)
    assert rows.returncode == 0, rows.stderr
    (row,) = [json.loads(line) for line in rows.stdout.splitlines()]
    assert (row["dialect"], row["profile"], row["n"]) == ("boss", "site", 15)
    findings = subprocess.run([AUDIT, "sql", "SELECT count(*) AS n FROM findings", "--db", str(db), "--format",
                               "jsonl"], capture_output=True, text=True, timeout=120)
    assert json.loads(findings.stdout) == {"n": 0}


@pytest.mark.parametrize("fmt", ["text", "json", "html"])
def test_explain_renders_a_show_down(fmt: str) -> None:
    done = subprocess.run([AUDIT, "explain", str(PL), "--hand", "3042344309", "--format", fmt],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "3042344309" in done.stdout
    if fmt == "json":
        record = json.loads(done.stdout.splitlines()[0])
        shown = {s["player"]: s["cards"] for s in record["seats"] if s["cards"]}
        assert set(shown) == {"Hero"}  # Player0 mucked: his cards stay hidden


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("boss") / "serve.duckdb")
    try:
        yield live
    finally:
        live.stop()


def test_the_service_takes_the_xml_file(server: LiveServer) -> None:
    (upload,) = server.upload([(XML.name, XML.read_bytes())])
    assert upload["hands"] == 14, upload
    findings = server.json("GET", f"/api/v1/uploads/{upload['sha256']}/findings")
    assert findings == []
    status, headers, page = server.request("GET", f"/api/v1/uploads/{upload['sha256']}/hands/2692984519/explain"
                                                  "?format=html")
    assert status == 200 and headers["content-type"].startswith("text/html") and b"2692984519" in page


def test_the_fixtures_name_the_real_hands_they_were_built_from() -> None:
    for case in at_least(2, sorted((ROOT / "fixtures" / "boss").glob("*.xml"))):
        head = " ".join(line[2:] for line in case.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
        named = re.findall(r"shared/(real-hands/boss/\S+?), hand (\d+)", head)
        assert named, case.name
        for source, hand in named:
            assert f'<HISTORY ID="{hand}"' in (SHARED / source).read_text(encoding="utf-8"), (case.name, hand)


# A number with a character that str.isdigit() takes and int() refuses ("²", found by the fuzz run) in each field
# read as a number: the block is unreadable (a finding with its line), never an internal error.
ODD_DIGITS = {
    "a card": ('LINK="20"', 'LINK="2²"'),
    "a seat": ('SEAT="3"', 'SEAT="³"'),
    "the date": ('DATE="1374605236"', 'DATE="137460523²"'),
    "a draw's count": ('COUNT="3"', 'COUNT="³"'),
    "a stack": ('AMOUNT="14.18"', 'AMOUNT="1².18"'),
    "the stakes": ('STAKES="0.50/1.00"', 'STAKES="0.50/1.0²"'),
}


@pytest.mark.parametrize("what", sorted(ODD_DIGITS))
def test_a_digit_int_refuses_is_an_unreadable_block_not_a_crash(what: str, tmp_path: Path) -> None:
    edited = _edited(tmp_path, [ODD_DIGITS[what]])
    code, found, err = check(edited, XML)
    assert code == 1 and "internal error" not in err, err  # 1: findings, as any unreadable hand
    assert [f["rule"] for f in found] == ["PARSE_ERROR"], found
    assert found[0]["file"] == str(edited)
    done = subprocess.run([AUDIT, "check", str(edited), str(XML)], capture_output=True, text=True, timeout=120)
    assert "15 hands checked in 2 files: 0 violations, 0 warnings, 1 error" in done.stdout, done.stdout
