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


def dispute(page: Any, origin: str) -> None:
    """Upload the log (as ``curl --data-binary`` would), then open the disputed hand's page."""
    import json
    import urllib.request

    request = urllib.request.Request(f"{origin}/api/v1/uploads?name={DISPUTE.name}", data=DISPUTE.read_bytes(),
                                     headers={"Content-Type": "text/plain"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        sha = json.load(answer)["uploads"][0]["sha256"]
    page.goto(f"{origin}/uploads/{sha}/hands/387708")
    page.screenshot(path=str(IMAGES / "dispute.png"))


def live_table(page: Any, origin: str) -> None:
    """Open a table of three and play to the second betting round, where Beto checks out of turn."""
    page.goto(f"{origin}/tables")
    page.fill("#name", "Casa Pepe")
    for i, name in enumerate(("Ana", "Beto", "Carla"), start=1):
        page.fill(f'input[name="player{i}"]', name)
        page.fill(f'input[name="chips{i}"]', "100")
    page.fill("#button", "3")
    page.locator("form.open button[type=submit]").click()
    page.wait_for_load_state()
    for value in ("bet:2", "call", "call", "draw:2", "stand-pat", "draw:1"):
        page.locator(f'form#act button[value="{value}"]').click()
        page.wait_for_load_state()
    page.select_option("#player", "Beto")  # Beto checks before Ana, whose turn it is: the page warns at once
    page.locator('form#act button[value="check"]').click()
    page.wait_for_load_state()
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
