"""The README's and the docs' pictures: the dispute page and the live table on a phone, as headless Chromium shows
them from a real ``audit serve``.

    .venv/bin/python scripts/screenshots.py        # writes docs/images/dispute.png and docs/images/live-table.png

The service runs on a new database in a temporary folder, on a free loopback port; the dispute is the demo's
odd chip (``fixtures/demo/home-session-odd-chip-uncorrected.txt``, hand 387708), the live table a hand of three
played to the second betting round, where a check out of turn is warned. Chromium is Debian's (``/usr/bin/chromium``),
driven by Playwright, as the tests drive it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
AUDIT = str(Path(sys.executable).with_name("audit"))
CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}
DISPUTE = ROOT / "fixtures" / "demo" / "home-session-odd-chip-uncorrected.txt"


def start_service(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``audit serve --port 0`` on a new database; the process and its origin once it listens."""
    out = folder / "serve.out"
    with open(out, "w") as stdout:
        proc = subprocess.Popen([AUDIT, "serve", "--db", str(folder / "club.duckdb"), "--port", "0"], stdout=stdout,
                                stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = out.read_text()
        if "http://127.0.0.1:" in text:
            port = text.split("http://127.0.0.1:")[1].split("/")[0]
            return proc, f"http://127.0.0.1:{port}"
        if proc.poll() is not None:
            raise SystemExit(f"audit serve exited {proc.returncode}")
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("audit serve did not start within 60 s")


def post(origin: str, path: str, body: bytes, content_type: str) -> Any:
    """A POST to the service (this machine's club: no token is defined), its JSON answer."""
    import json
    import urllib.request

    request = urllib.request.Request(origin + path, data=body, headers={"Content-Type": content_type},
                                     method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def dispute(page: Any, origin: str) -> None:
    """Upload the log (as ``curl --data-binary`` would), then open the disputed hand's page."""
    answer = post(origin, f"/api/v1/uploads?name={DISPUTE.name}", DISPUTE.read_bytes(), "text/plain")
    page.goto(f"{origin}/uploads/{answer['uploads'][0]['sha256']}/hands/387708")
    page.screenshot(path=str(IMAGES / "dispute.png"))


def live_table(page: Any, origin: str) -> None:
    """A table of three played, through the API the page uses, to the second betting round, where Beto checks
    before Ana, whose turn it is; then the table's page, which warns of it."""
    import json

    seats = [{"seat": i, "player": name, "chips": 100} for i, name in enumerate(("Ana", "Beto", "Carla"), start=1)]
    table = post(origin, "/api/v1/tables", json.dumps({"name": "Casa Pepe", "profile": "home-open", "button": 3,
                                                        "seats": seats}).encode(), "application/json")
    entries = [("Ana", "bet", {"to": 2}), ("Beto", "call", {}), ("Carla", "call", {}), ("Ana", "draw", {"count": 2}),
               ("Beto", "stand-pat", {}), ("Carla", "draw", {"count": 1}), ("Beto", "check", {})]
    for player, action, more in entries:
        post(origin, f"/api/v1/tables/{table['id']}/events",
             json.dumps({"player": player, "action": action, **more}).encode(), "application/json")
    page.goto(f"{origin}/tables/{table['id']}")
    page.screenshot(path=str(IMAGES / "live-table.png"))


def main() -> None:
    from playwright.sync_api import sync_playwright

    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        proc, origin = start_service(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox"])
                try:
                    for shoot in (dispute, live_table):
                        context = browser.new_context(viewport=PHONE, device_scale_factor=1)
                        try:
                            shoot(context.new_page(), origin)
                        finally:
                            context.close()
                finally:
                    browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    for name in ("dispute.png", "live-table.png"):
        print(f"wrote {(IMAGES / name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
