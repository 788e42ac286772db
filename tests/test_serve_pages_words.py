"""The service's pages around a dispute (issue 27, point 4), against a real ``audit serve`` process: a hand's page
links back to its upload, switches language and signs out; an unreadable hand or another game is said as such;
upload messages are in the page's language; a duplicate says when it was uploaded; the uploads list shows the
profile the hands were judged by. And no English function words in any Spanish sentence: every template of the
Spanish catalogue, every finding of every fixture said in Spanish, every Spanish page of the service visited here
(upload errors included)."""

from __future__ import annotations

import html
import json
import re
import string
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.check import finding_text
from audit.explain import explain_file, render_html
from audit.words import catalogue
from conftest import at_least, AUDIT, FIXTURES, SHARED
from servehelp import LiveServer, multipart

ODD_CHIP = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
STARS = SHARED / "real-hands" / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt"
BADUGI = SHARED / "real-hands" / "other-games" / "Badugi-USD-0.25-0.50-201009.txt"
UNREADABLE = """Profile: home-open

Hand #X1 - 2026/11/28 21:05:00
Table 'Casa' Seat #1 is the button
Seat 1: Ana (100 in chips)
Seat 2: Beto (100 in chips)
Garbage line here
"""
ENGLISH = (" the ", " and ", " of ", " was ", " is ", " not ", " to ", " by ", " could ", " with ", " this ")
"""English function words: none may appear in a Spanish sentence (padded with spaces: whole words only)."""


def english_in(text: str) -> list[str]:
    padded = " " + re.sub(r"\s+", " ", text.lower()) + " "
    return [w.strip() for w in ENGLISH if w in padded]


def visible(page: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    body = re.sub(r"\s(title|data-s|data-step-of)=\"[^\"]*\"", " ", body)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    db = tmp_path_factory.mktemp("words") / "pages.duckdb"
    made = subprocess.run([AUDIT, "token", "add", "north", "--db", str(db)], capture_output=True, text=True,
                          timeout=120)
    assert made.returncode == 0, made.stderr
    token = re.findall(r"audit_\S+", made.stdout)[0]
    live = LiveServer(db)
    try:
        yield live, token
    finally:
        live.stop()


class Browser:
    """Plain requests as a signed-in browser of club north."""

    def __init__(self, live: LiveServer, token: str) -> None:
        self.live, self.cookie = live, f"audit_token={token}"

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        status, headers, body = self.live.request("GET", path, headers={"Cookie": self.cookie})
        return status, headers, body.decode()

    def post_form(self, files: list[tuple[str, bytes]], fields: dict[str, str]) -> tuple[int, dict[str, str], str]:
        body, ctype = multipart(files, fields)
        status, headers, out = self.live.request("POST", f"/?lang={fields.get('lang', 'en')}", body, {
            "Content-Type": ctype, "Origin": self.live.origin, "Cookie": self.cookie})
        return status, headers, out.decode()

    def upload(self, name: str, data: bytes, lang: str = "en") -> str:
        status, headers, _ = self.post_form([(name, data)], {"profile": "home-open", "lang": lang})
        assert status == 303, status
        return headers["location"].split("/")[2].split("?")[0]


@pytest.fixture(scope="module")
def browser_of_north(server: tuple[LiveServer, str]) -> Browser:
    return Browser(*server)


def keep_spanish(page: str) -> str:
    """A Spanish page of the service: no English function word in what it shows."""
    text = visible(page)
    assert not english_in(text), (english_in(text), text[:400])
    return page


def test_a_hand_page_links_back_switches_language_and_signs_out(browser_of_north: Browser) -> None:
    b = browser_of_north
    sha = b.upload("odd.txt", ODD_CHIP.read_bytes())
    status, headers, page = b.get(f"/uploads/{sha}/hands/387708?lang=es")
    assert status == 200 and "form-action 'none'" in headers["content-security-policy"]
    keep_spanish(page)
    assert f'href="/uploads/{sha}?lang=es">← Volver al archivo subido</a>' in page
    assert '<a href="?lang=en">English</a>' in page and "<b>Español</b>" in page
    assert '<a class="signout" href="/signout?lang=es">Salir</a>' in page
    status, _, english = b.get(f"/uploads/{sha}/hands/387708?lang=en")
    assert status == 200 and "← Back to the upload" in english and '<a href="?lang=es">Español</a>' in english
    status, headers, signout = b.get("/signout?lang=es")
    assert status == 200 and '<form method="post" action="/signout?lang=es"' in signout
    keep_spanish(signout)
    # not signed in: no sign-out on a page rendered by the command line, and /signout sends you home
    assert "signout" not in render_html(explain_file(str(ODD_CHIP), hand_id="387708"), "en")
    assert b.live.request("GET", "/signout")[0] == 303


def test_an_unreadable_hand_and_another_game_are_said_as_such(browser_of_north: Browser) -> None:
    b = browser_of_north
    for name, data, hand, want in (("bad.txt", UNREADABLE.encode(), "X1", "could not be read"),
                                   ("badugi.txt", BADUGI.read_bytes(), None, "another game")):
        sha = b.upload(name, data)
        for lang in ("en", "es"):
            status, _, result = b.get(f"/uploads/{sha}?lang={lang}")
            assert status == 200
            text = visible(result)
            if lang == "en":
                assert want in text and "rules were broken" not in text and "step by step" not in text, text
                assert "See what could not be read" in text
            else:
                keep_spanish(result)
                assert "no se juzga" in text and "paso a paso" not in text and "se incumplieron" not in text
            link = re.search(r'href="(/uploads/[0-9a-f]+/hands/[^"]+)"', result)
            assert link is not None
            status, _, page = b.get(html.unescape(link.group(1)))
            assert status == 200
            verdict = visible(page.split('class="verdict', 1)[1].split("</div>", 1)[0])
            assert ("not judged" if lang == "en" else "no se juzga") in verdict, verdict
            assert "rules were broken" not in verdict and "se incumplieron" not in verdict
            if lang == "es":
                keep_spanish(page)


def test_upload_messages_are_in_the_pages_language(browser_of_north: Browser) -> None:
    b = browser_of_north
    files = [("junk.bin", b"\x00\x01\x02binary\x00" * 20), ("empty.txt", b""),
             ("wide.txt", "Hand #1 wide text".encode("utf-16-le"))]
    status, _, page = b.post_form(files, {"profile": "home-open", "lang": "es"})
    assert status == 200
    keep_spanish(page)
    text = visible(page)
    assert "junk.bin: no es un archivo de texto (contiene datos binarios)" in text
    assert "empty.txt: el archivo está vacío" in text
    assert "wide.txt: parece texto UTF-16 sin marca de orden de bytes" in text
    assert "not a text file" not in text and "is empty" not in text
    status, _, english = b.post_form(files[:2], {"profile": "home-open", "lang": "en"})
    assert "junk.bin: this is not a text file (it holds binary data)" in visible(english)
    status, _, unknown = b.post_form([("a.txt", b"x")], {"profile": "nope", "lang": "es"})
    assert status == 400 and "Reglas desconocidas" in visible(unknown)
    keep_spanish(unknown)


def test_a_duplicate_says_when_it_was_uploaded(browser_of_north: Browser) -> None:
    b = browser_of_north
    data = ODD_CHIP.read_bytes() + b"\n"
    b.upload("first.txt", data)
    status, headers, _ = b.post_form([("again.txt", data)], {"profile": "home-open", "lang": "es"})
    assert status == 303
    status, _, result = b.get(headers["location"])
    keep_spanish(result)
    assert re.search(r"Ya se subió el \d{4}-\d\d-\d\d \d\d:\d\d: no se añadió nada\.", visible(result))
    status, _, page = b.post_form([("again.txt", data), ("empty.txt", b"")], {"profile": "home-open", "lang": "en"})
    assert re.search(r"again\.txt: already stored · Already uploaded on \d{4}-\d\d-\d\d", visible(page)) or \
        re.search(r"Already uploaded on \d{4}-\d\d-\d\d \d\d:\d\d: nothing was added\.", visible(page))


def test_the_uploads_list_shows_the_profile_the_hands_were_judged_by(browser_of_north: Browser) -> None:
    b = browser_of_north
    b.upload("stars.txt", STARS.read_bytes())
    status, _, page = b.get("/uploads?lang=es")
    keep_spanish(page)
    item = next(li for li in page.split('<li class="upload-item') if "stars.txt" in li)
    assert "· site</small>" in item and "home-open" not in item


# ------------------------------------------------------------------------------------------- no English in Spanish
def test_the_spanish_catalogue_has_no_english_function_words() -> None:
    bad = {}
    for key, entry in catalogue("es").items():
        for text in (entry.values() if isinstance(entry, dict) else [entry]):
            literal = " ".join(piece for piece, _, _, _ in string.Formatter().parse(str(text)))
            if english_in(literal):
                bad[key] = english_in(literal)
    assert not bad, bad
    assert english_in("Маша owes O'Neil 1 chip: this is not a text file") == ["is", "not", "this"]


def test_every_findings_spanish_sentence_has_no_english_function_words() -> None:
    paths = at_least(300, sorted(FIXTURES.rglob("*.txt"))) + at_least(15, sorted((SHARED / "real-hands").rglob("*.txt")))
    bad: dict[str, list[str]] = {}
    seen = 0
    for path in paths:
        try:
            items = list(explain_file(str(path)))
        except Exception:
            continue  # a file the reader refuses (one clear line) has no findings to say
        for f in (f for h in items for f in h.findings):
            seen += 1
            found = english_in(finding_text(f, "es"))
            if found:
                bad[f"{path.name}:{f.line} {f.rule}"] = found
    assert seen > 200 and not bad, bad


def test_the_check_catches_english_in_a_spanish_page(browser_of_north: Browser) -> None:
    page: Any = visible(render_html(explain_file(str(ODD_CHIP), hand_id="387708"), "en"))
    assert english_in(page)


def test_reports_label_cents(tmp_path: Path) -> None:
    """A site hand's amounts in a report are cents: the unit column says so ('USD cents', 1000 is $10.00)."""
    db = tmp_path / "r.duckdb"
    site = FIXTURES / "layout" / "site-six-seats.txt"
    done = subprocess.run([AUDIT, "ingest", str(site), "--db", str(db), "-q"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 1), done.stderr
    out = subprocess.run([AUDIT, "report", "misawarded-pots", "--db", str(db), "-f", "json"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    [row] = json.loads(out.stdout)
    assert row["unit"] == "USD cents" and row["pot_amount"] == 200000
    assert "Quarterdeck7 1000" in row["collected"]
