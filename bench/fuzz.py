"""Long mutation fuzz run of the reader, the parser and the replay engine, in process.

    .venv/bin/python bench/fuzz.py [N] [--jobs J] [--seed S] [--out DIR] [--minutes M]

Takes the hands of the shared cases (``../shared/cases``) and the real site hands (``../shared/real-hands``),
mutates them as text (lines deleted, duplicated, swapped, spliced from other hands, truncated; numbers made
absurd; names swapped or made huge; cards, keywords and characters changed; preamble lines added) or as bytes
(flipped, truncated, re-encoded), and runs each input through ``read → parse → replay → session checks``.
Every input must end as findings or as an ``AuditError`` (a clear "cannot run" message); anything else is a
crash. Crashing inputs go to ``DIR`` (default ``$TMPDIR/audit-fuzz-crashes``) as ``crash-<key>-<sha>.bin`` with
the traceback beside them, one input per distinct crash site; inputs taking over a second are kept as ``slow-…``.

N defaults to 1,000,000. ``--minutes`` stops early after that many minutes (the count run is printed).
Prints the rate and the crash count as it goes and a summary at the end; exit status 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import multiprocessing as mp
import os
import random
import re
import resource
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
sys.path.insert(0, str(ROOT))

from audit.errors import AuditError  # noqa: E402
from audit.pipeline import Audited, audit_blocks  # noqa: E402
from audit import replay  # noqa: E402
from audit.profile import load_profile  # noqa: E402
from audit.read import iter_lines, read_text_blocks, split_blocks  # noqa: E402

PROFILES = ("home-open", "qdan", "stripped32")
BIG_NUMBERS = ("0", "1", "2", "7", "99", "2147483648", "9223372036854775808", "18446744073709551616",
               "1" + "0" * 30, "9" * 100, "1" + "0" * 100, "00", "007", "-1", "1.5", "٣", "²")
NAMES = ("Ana", "Beto", "Carla", "Tere", "Hero", "Player1", "José", "Mari-Carmen", "O'Neil", "a.b", "_", "-",
         "Dealer", "Seat", "Hand", "Total", "Uncalled", "***", "東京", "x" * 300)
CARDS = ("As", "Ad", "Kh", "Jk", "10s", "Tc", "2c", "Xx", "A", "", "AsAd", "1s", "jk", "[", "]")
KEYWORDS = ("folds", "checks", "calls", "bets", "raises", "posts the ante", "posts small blind",
            "posts big blind", "posts over blind", "posts live blind", "posts dead blind", "stands pat",
            "discards", "shows", "mucks hand", "collected", "is disconnected", "offers parole", "accepts parole",
            "declines parole", "and is all-in", "(timed out)", "(took 3s)", "scores", "said,", "sits out",
            "waits for the over blind", "from main pot", "from side pot-1", "from pot (parole)", "is sitting out")
LINES = ("*** DEALING HANDS ***", "*** FIRST BETTING ROUND ***", "*** DRAW ***", "*** SECOND BETTING ROUND ***",
         "*** SHOW DOWN ***", "*** SUMMARY ***", "*** REDEAL ***", "*** SESSION END ***", "Pot carried over: 5",
         "Deck: [As Ad Ac Ah Ks Kd Kc Kh Qs Qd]", "Dealer: reshuffles [2c 3c 4c]", "Total pot 10 | Rake 0",
         "Session: fuzz", "Profile: qdan", "Profile: stripped32", "Profile: home-open", "Profile: site",
         "Option: draw-limit = 3+ace", "Option: openers = jacks", "Option: all-check = redeal",
         "Option: mode = points", "Option: betting = fixed-limit", "Option: blinds = three", "Option: joker = wild",
         "Option: raise-cap = 0", "Option: min-bet = 0", "Option: bet-unit = 0", "Option: ante = 0",
         "Option: session-hands = 0", "Option: players = 1-10", "Option: players = 2-1000",
         "Option: starting-chips = any", "Option: parole = yes", "Option: reshuffle = stub-first",
         "1: Ana (100)", "# a comment", "", "Ana said, \"hi\"", "Uncalled bet (3) returned to Ana",
         "Hand #1 - 2026/01/01 00:00:00", "Table 'T' Seat #1 is the button", "Seat 1: Ana (100 in chips)",
         "PokerStars Game #1: 5 Card Draw No Limit ($0.25/$0.50 USD) - 2009/11/26 14:43:31 ET")
CHARS = ("x", " ", "  ", "[", "]", "(", ")", ":", "#", "'", '"', "\t", "\r", "\x00", "\ufeff", "\u2028", "\x85",
         "\x0c", "é", "😀", "\\", "*", "$", "-", ".", "0", "9", "\n", "\n\n")
_NUM = re.compile(r"\d+")
_WORD = re.compile(r"[^\s\[\]():]+")
_CARD = re.compile(r"(?<=[\[ ])(?:10|[2-9TJQKA])[cdhs]|Jk")


def load_seeds() -> list[list[list[str]]]:
    """Each seed file as a list of chunks (the lines between blank lines), decoded by the project's reader."""
    files = sorted(SHARED.glob("cases/**/*.txt")) + sorted(SHARED.glob("real-hands/**/*.txt"))
    seeds: list[list[list[str]]] = []
    for f in files:
        try:
            with open(f, "rb") as handle:
                lines = list(iter_lines(handle, str(f)))
        except AuditError:
            continue
        chunks: list[list[str]] = []
        cur: list[str] = []
        for line in lines:
            if line.strip():
                cur.append(line)
            elif cur:
                chunks.append(cur)
                cur = []
        if cur:
            chunks.append(cur)
        if chunks:
            seeds.append(chunks)
    if not seeds:
        raise SystemExit(f"no seed files under {SHARED}")
    return seeds


class Mutator:
    def __init__(self, seeds: list[list[list[str]]], rnd: random.Random) -> None:
        self.seeds = seeds
        self.rnd = rnd
        self.all_lines = [line for s in seeds for c in s for line in c]

    def pick(self) -> list[str]:
        """One to three consecutive chunks of one seed file, sometimes with the file's first chunk (preamble)."""
        rnd = self.rnd
        chunks = rnd.choice(self.seeds)
        i = rnd.randrange(len(chunks))
        n = rnd.choice((1, 1, 1, 2, 3))
        picked = chunks[i:i + n]
        if i and rnd.random() < 0.3:
            picked = [chunks[0]] + picked
        out: list[str] = []
        for c in picked:
            out.extend(c)
            out.append("")
        return out

    def text(self) -> str:
        rnd = self.rnd
        lines = self.pick()
        for _ in range(rnd.choice((1, 1, 2, 3, 5, 8))):
            lines = self.mutate(lines)
        return "\n".join(lines)

    def mutate(self, lines: list[str]) -> list[str]:
        rnd = self.rnd
        if not lines:
            return [rnd.choice(self.all_lines)]
        i = rnd.randrange(len(lines))
        line = lines[i]
        op = rnd.randrange(16)
        if op == 0:
            del lines[i]
        elif op == 1:  # duplicate, sometimes deeply (at most ~2 MB more, so that the rate is not a few monsters')
            times = rnd.choice((1, 1, 2, 10, 100, 2500))
            lines[i:i] = [line] * max(1, min(times, 2_000_000 // (len(line) + 1)))
        elif op == 2:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:  # a line from any other hand
            lines.insert(i, rnd.choice(self.all_lines))
        elif op == 4:  # an absurd number
            nums = list(_NUM.finditer(line))
            if nums:
                m = rnd.choice(nums)
                lines[i] = line[:m.start()] + rnd.choice(BIG_NUMBERS) + line[m.end():]
        elif op == 5:  # every number of the line
            big = rnd.choice(BIG_NUMBERS)
            lines[i] = _NUM.sub(big, line)
        elif op == 6:  # a name (word) replaced
            words = list(_WORD.finditer(line))
            if words:
                m = rnd.choice(words)
                name = rnd.choice(NAMES) if rnd.random() < 0.98 else "N" * 100_000
                lines[i] = line[:m.start()] + name + line[m.end():]
        elif op == 7:  # one player renamed throughout
            words = list(_WORD.finditer(line))
            if words:
                old = rnd.choice(words).group()
                new = rnd.choice(NAMES)
                lines = [x.replace(old, new) for x in lines]
        elif op == 8:
            lines[i] = line[:rnd.randrange(len(line) + 1)]
        elif op == 9:
            k = rnd.randrange(len(line) + 1)
            lines[i] = line[:k] + rnd.choice(CHARS) + line[k:]
        elif op == 10:
            k = rnd.randrange(len(line) + 1)
            lines[i] = line[:k] + line[k + rnd.randint(1, 5):]
        elif op == 11:  # a card
            cards = list(_CARD.finditer(line))
            if cards:
                m = rnd.choice(cards)
                lines[i] = line[:m.start()] + rnd.choice(CARDS) + line[m.end():]
        elif op == 12:  # a keyword for another
            for kw in rnd.sample(KEYWORDS, len(KEYWORDS)):
                if kw in line:
                    lines[i] = line.replace(kw, rnd.choice(KEYWORDS), 1)
                    break
        elif op == 13:
            lines.insert(i, rnd.choice(LINES))
        elif op == 14:  # a run of lines deleted (truncation in the middle)
            del lines[i:i + rnd.randint(1, 30)]
        else:  # many seats, or a very long line of cards
            if rnd.random() < 0.5:
                n = rnd.choice((11, 100, 1000, 10_000))
                seat = rnd.choice(("1", "10", "1" + "0" * 30))
                lines[i:i] = [f"Seat {seat if rnd.random() < 0.5 else k}: P{k} (100 in chips)" for k in range(n)]
            else:
                n = rnd.choice((6, 60, 600, 3000))
                lines[i] = (line + " [" + " ".join(rnd.choice(CARDS) for _ in range(n)) + "]")[:20_000]
        return lines

    def data(self) -> bytes:
        """An input as bytes: text mutations, then byte-level damage or another encoding."""
        rnd = self.rnd
        text = self.text()
        enc = rnd.choice(("utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "latin-1"))
        raw = bytearray(text.encode(enc, errors="replace"))
        for _ in range(rnd.choice((0, 1, 1, 2, 5))):
            if not raw:
                break
            k = rnd.randrange(len(raw))
            op = rnd.randrange(4)
            if op == 0:
                raw[k] = rnd.randrange(256)
            elif op == 1:
                del raw[k:]
            elif op == 2:
                raw[k:k] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
            else:
                raw[k:k] = rnd.choice((b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"\r", b"\r\n", b"\xc3", b"\xed\xa0\x80"))
        return bytes(raw)


# The pipeline turns an exception inside the replay into a PARSE_ERROR finding asking the user to report the
# hand, so that the other hands are still audited. For the fuzzer that is a crash all the same.
_ENGINE_STOPPED = "the replay stopped at an unexpected situation"


class EngineStopped(Exception):
    """The replay raised on a hand; the pipeline caught it (the message holds the original exception)."""


def _no_engine_stop(items: Iterable[Audited], profile_name: str) -> None:
    for audited in items:
        for f in audited.findings:
            if f.rule == "PARSE_ERROR" and _ENGINE_STOPPED in f.message:
                if audited.hand is not None:  # raise the original exception, with its traceback, if it recurs
                    replay(audited.hand, load_profile(profile_name), audited.session)
                raise EngineStopped(f.message)


def run_text(text: str, profile_name: str) -> None:
    _no_engine_stop(audit_blocks(read_text_blocks(text, "<fuzz>"), load_profile(profile_name)), profile_name)


def run_bytes(data: bytes, profile_name: str) -> None:
    blocks = split_blocks(iter_lines(io.BytesIO(data), "<fuzz>"), "<fuzz>")
    _no_engine_stop(audit_blocks(blocks, load_profile(profile_name)), profile_name)


def crash_key(exc: BaseException) -> str:
    """Where an exception came from: its type and the innermost frame in the project's code."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/audit/" in f.filename] or frames
    f = ours[-1]
    return f"{type(exc).__name__}-{Path(f.filename).stem}-{f.lineno}"


def worker(index: int, count: int, seed: int, out: str, deadline: float,
           queue: mp.Queue) -> None:  # type: ignore[type-arg]
    rnd = random.Random(seed * 1_000_003 + index)
    mut = Mutator(load_seeds(), rnd)
    done = crashes = slow = 0
    seen: dict[str, int] = {}
    last = time.monotonic()
    for _ in range(count):
        profile = rnd.choice(PROFILES)
        as_bytes = rnd.random() < 0.25
        payload: bytes | str = mut.data() if as_bytes else mut.text()
        start = time.monotonic()
        try:
            if isinstance(payload, bytes):
                run_bytes(payload, profile)
            else:
                run_text(payload, profile)
        except AuditError:
            pass
        except Exception as exc:  # noqa: BLE001 - a crash is what this script looks for
            crashes += 1
            key = crash_key(exc)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 1:
                save(out, f"crash-{key}", payload, profile, traceback.format_exc())
                queue.put(("crash", key, str(exc)[:200]))
        took = time.monotonic() - start
        if took > 1.0:
            slow += 1
            save(out, f"slow-{took:.1f}s", payload, profile, f"{took:.2f} s\n")
        done += 1
        now = time.monotonic()
        if now - last > 5:
            queue.put(("progress", index, done, crashes, slow))
            last = now
            if now > deadline:
                break
    queue.put(("sites", index, seen))
    queue.put(("done", index, done, crashes, slow))


def save(out: str, stem: str, payload: bytes | str, profile: str, note: str) -> None:
    data = payload if isinstance(payload, bytes) else payload.encode("utf-8", "surrogatepass")
    digest = hashlib.sha1(data).hexdigest()[:10]
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}-{digest}.bin").write_bytes(data)
    kind = "bytes (bench.fuzz.run_bytes)" if isinstance(payload, bytes) else "text (bench.fuzz.run_text)"
    (folder / f"{stem}-{digest}.txt").write_text(f"profile: {profile}\ninput: {kind}\n\n{note}",
                                                 encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="inputs to run (default 1,000,000)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "audit-fuzz-crashes"),
                    help="folder for crashing and slow inputs (default: audit-fuzz-crashes in the temp folder)")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this many minutes")
    args = ap.parse_args()
    jobs = max(1, min(args.jobs, args.n))
    deadline = time.monotonic() + (args.minutes * 60 if args.minutes else 10 ** 9)
    queue: mp.Queue = mp.Queue()  # type: ignore[type-arg]
    per = [args.n // jobs + (1 if i < args.n % jobs else 0) for i in range(jobs)]
    procs = [mp.Process(target=worker, args=(i, per[i], args.seed, args.out, deadline, queue)) for i in range(jobs)]
    start = time.monotonic()
    for p in procs:
        p.start()
    state = {i: (0, 0, 0) for i in range(jobs)}
    sites: dict[str, int] = {}
    finished = 0
    last_print = 0.0
    while finished < jobs:
        msg = queue.get()
        if msg[0] == "crash":
            print(f"CRASH {msg[1]}: {msg[2]}", flush=True)
            continue
        if msg[0] == "sites":
            for key, n in msg[2].items():
                sites[key] = sites.get(key, 0) + n
            continue
        state[msg[1]] = msg[2:]
        if msg[0] == "done":
            finished += 1
        now = time.monotonic()
        if now - last_print > 30 or finished == jobs:
            last_print = now
            done = sum(s[0] for s in state.values())
            print(f"{done:,} inputs in {now - start:,.0f} s: {done / (now - start):,.0f} inputs/s, "
                  f"{sum(s[1] for s in state.values())} crashes, {sum(s[2] for s in state.values())} slow (>1 s)",
                  flush=True)
    for p in procs:
        p.join()
    elapsed = time.monotonic() - start
    done = sum(s[0] for s in state.values())
    crashes = sum(s[1] for s in state.values())
    slow = sum(s[2] for s in state.values())
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"\nfuzz: {done:,} inputs in {elapsed:,.0f} s ({done / elapsed:,.0f} inputs/s, {jobs} jobs, seed "
          f"{args.seed}): {crashes} crashes, {slow} slow inputs (>1 s); peak worker RSS {rss:,.0f} MB"
          + (f"; inputs kept in {args.out}" if crashes or slow else ""))
    for key, n in sorted(sites.items(), key=lambda kv: -kv[1]):
        print(f"  {n:,} crashes at {key}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
