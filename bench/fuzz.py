"""Long mutation fuzz run of the reader, the parser, the replay engine and (``--ingest``) the store, in process.

    .venv/bin/python bench/fuzz.py [N] [--jobs J] [--seed S] [--out DIR] [--minutes M] [--ingest | --every-option]
    .venv/bin/python bench/fuzz.py --repro DIR/crash-….bin      (runs a kept input again, with its traceback)

Takes the hands of the shared cases (``../shared/cases``) and the real site hands (``../shared/real-hands``),
mutates them as text (lines deleted, duplicated, swapped, spliced from other hands, truncated; numbers made
absurd; names swapped or made huge; cards, keywords and characters changed; preamble lines added) or as bytes
(flipped, truncated, re-encoded). The inputs depend only on the seed, so ``--ingest`` with a seed gets the
same inputs as the check run with that seed.

**Check (the default).** Each input is read and parsed once (``read → parse``), then audited (``replay →
session checks``) five times:

1. as it is, under a default profile drawn at random (what ``audit check FILE --profile P`` does: the input's
   own ``Profile:`` and ``Option:`` lines rule where it has them);
2. to 5. forced under each shipped profile (home-open, qdan, site, stripped32) with one to three options: the
   default profile is that profile with the options, every ``Profile:`` line of the input names it instead,
   and the options are applied again after each preamble's own ``Option:`` lines, so that they hold for every
   hand (a site-format hand keeps the site profile, as in the CLI).

The options come from every option's every value (``audit.profile.option_domains``; a whole number is 0, 1,
2, 30 or 999999999, a player range 0-1, 2-6, 1-10 or 2-1000): 102 values. Each profile has its own shuffled
cycle of them and each forced run takes the next one to three (of different options). So every input meets
every profile, and over the run every profile meets every option value (a value comes round every ~58 inputs;
the summary prints the fewest times any profile met any value) and a wide spread of pairs and triples of them.
``--every-option`` audits each input under each profile with each value alone instead (409 audits an input,
17 times the cost of the rotation: see docs/explanation/performance.md); every combination of values is beyond counting.

**Ingest (``--ingest``).** Each input goes once through the CLI's ingest path: ``audit.store.ingest.audit_file_rows``
(read, parse, replay, session checks and the Arrow rows built for DuckDB) under a profile and one to three
options taken from the same cycles (the profiles in turn), then ``Store.write_file`` into a real DuckDB
database with one DuckDB thread (as ``audit ingest --workers N`` sets it): one database per worker in
``/dev/shm`` (the temp folder where there is none), deleted and created afresh every 1,000 inputs (or when it
passes 64 MB), so that it stays small. A transaction per input makes this about 11 times slower than a check.

Every input must end as findings or as an ``AuditError`` (a clear "cannot run" message); anything else is a
**crash**. A replay that raised is also counted, apart, as an **engine stop**: the pipeline turns the
exception into a ``PARSE_ERROR`` asking the user to report the hand (so that the other hands are still
audited), which is a bug all the same. Under ``--ingest``, a crash building the rows of an input that holds a
number too wide for its column (2^31 or more for a seat, 2^63 or more for an amount) is counted apart as well.
Crashing and stopping inputs go to ``DIR`` (default ``$TMPDIR/audit-fuzz-crashes``) as
``crash-<key>-<sha>.bin`` / ``stop-<key>-<sha>.bin`` with a note beside them (traceback, profile, options,
and the ``--repro`` command), one input per distinct site; inputs taking over a second (read, parse and the
slowest of its audits) are kept as ``slow-…``.

N defaults to 1,000,000. ``--minutes`` stops early after that many minutes (the count run is printed).
Prints the rate and the counts as it goes, and at the end one summary line with what the docs quote
(docs/explanation/performance.md):
inputs, seconds, inputs/s, CPU seconds and inputs per CPU second, audits run, crashes, engine stops (and under
``--ingest`` the numbers too wide for the store), slow inputs and the peak memory of a worker; then the fewest
times a profile met an option value, and each crash site with its count. Exit status 1 when anything crashed,
stopped or overflowed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
sys.path.insert(0, str(ROOT))

from audit.errors import AuditError  # noqa: E402
from audit.model import Block, OptionLine, Preamble, ProfileLine  # noqa: E402
from audit.dialects.dispatch import parse_block  # noqa: E402
from audit.pipeline import FileContext, audit_parsed  # noqa: E402
from audit.profile import Profile, load_profile, option_domains, profile_names  # noqa: E402
from audit.read import RawBlock, iter_lines, read_text_blocks, split_blocks  # noqa: E402
from audit import replay  # noqa: E402

OWN_PROFILES = ("home-open", "qdan", "stripped32")  # the default of run 1 (site hands find their own)
PROFILES = tuple(profile_names())
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



# ---------------------------------------------------------------------------------------------- options
INT_VALUES = ("0", "1", "2", "30", "999999999")
RANGE_VALUES = ("0-1", "2-6", "1-10", "2-1000")
Options = tuple[tuple[str, str], ...]


def option_values() -> list[tuple[str, str]]:
    """Every value of every option, a whole number and a player range stood for by a few examples."""
    out: list[tuple[str, str]] = []
    for name, domain in option_domains().items():
        for value in domain:
            examples = INT_VALUES if value == "int" else RANGE_VALUES if value == "range" else (value,)
            out.extend((name, v) for v in examples if (name, v) not in out)
    return out


class OptionCycles:
    """Per profile, a shuffled cycle of every option value: each draw takes the next one to three (of
    different options), so that every profile meets every value once per turn of its cycle."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.values = option_values()
        self.queues: dict[str, list[tuple[str, str]]] = {p: [] for p in PROFILES}
        self.met: dict[tuple[str, str, str], int] = {(p, n, v): 0 for p in PROFILES for n, v in self.values}

    def draw(self, profile: str) -> Options:
        queue = self.queues[profile]
        chosen: dict[str, str] = {}
        for _ in range(self.rnd.choice((1, 1, 2, 3))):
            if not queue:
                queue.extend(self.rnd.sample(self.values, len(self.values)))
            name, value = queue.pop()
            if name in chosen:  # one value per option: the other goes back for the next draw
                queue.append((name, value))
                break
            chosen[name] = value
            self.met[(profile, name, value)] += 1
        return tuple(chosen.items())


_PROFILE_CACHE: dict[tuple[str, Options], Profile] = {}


def profile_with(name: str, options: Options) -> Profile:
    """A shipped profile with options (cached: the replay keeps a setup per profile object)."""
    key = (name, options)
    prof = _PROFILE_CACHE.get(key)
    if prof is None:
        if len(_PROFILE_CACHE) > 4096:
            _PROFILE_CACHE.clear()
        prof = _PROFILE_CACHE[key] = load_profile(name).with_options(list(options))
    return prof


# ---------------------------------------------------------------------------------------------- check
# The pipeline turns an exception inside the replay into a PARSE_ERROR finding asking the user to report the
# hand, so that the other hands are still audited. For the fuzzer that is a bug all the same: an engine stop.
_ENGINE_STOPPED = "the replay stopped at an unexpected situation"


class EngineStopped(Exception):
    """The replay raised on a hand and the pipeline caught it; ``__cause__`` is the replay's own exception when
    it recurs on a second replay of the hand."""


Parsed = list[tuple[Block, RawBlock]]


def parse_input(payload: bytes | str) -> tuple[Parsed, AuditError | None]:
    """Read and parse an input once: its blocks, and the ``AuditError`` that ended the reading, if one did."""
    if isinstance(payload, bytes):
        blocks: Iterator[RawBlock] = split_blocks(iter_lines(io.BytesIO(payload), "<fuzz>"), "<fuzz>")
    else:
        blocks = read_text_blocks(payload, "<fuzz>")
    parsed: Parsed = []
    try:
        for raw in blocks:
            parsed.append((parse_block(raw), raw))
    except AuditError as exc:
        return parsed, exc
    return parsed, None


def forced(block: Block, profile: str, options: Options) -> Block:
    """A preamble with every ``Profile:`` line naming ``profile`` and ``options`` applied after its own lines."""
    if type(block) is not Preamble:
        return block
    pre: Preamble = block  # type: ignore[assignment]
    items = [ProfileLine(i.line, profile) if type(i) is ProfileLine else i for i in pre.items]
    items.extend(OptionLine(pre.line, name, value) for name, value in options)
    return Preamble(pre.line, tuple(items))


def audit_run(parsed: Parsed, default: Profile, force: tuple[str, Options] | None = None) -> None:
    """Audit parsed blocks as the pipeline does (``force``: a profile and options imposed on the preambles);
    raises ``EngineStopped`` on a hand the replay could not finish, ``AuditError`` for a clear stop."""
    ctx = FileContext(default, default)
    for block, raw in parsed:
        if force is not None:
            block = forced(block, *force)
        audited = audit_parsed(block, raw, ctx)
        if audited is None:
            continue
        for f in audited.findings:
            if f.rule == "PARSE_ERROR" and _ENGINE_STOPPED in f.message:
                hand = audited.hand
                if hand is not None:  # raise the replay's own exception, with its traceback, if it recurs
                    prof = load_profile("site") if hand.dialect == "site" else ctx.profile
                    try:
                        replay(hand, prof, audited.session)
                    except Exception as exc:
                        raise EngineStopped(f.message) from exc
                raise EngineStopped(f.message)


def check_input(payload: bytes | str, runs: list[tuple[str, Options, bool]]) -> float:
    """Every run of one input (``(profile, options, forced)``); returns the slowest run's seconds (the
    parse included). Raises what a run raised."""
    start = time.monotonic()
    parsed, ended = parse_input(payload)
    parse_took = time.monotonic() - start
    slowest = 0.0
    for profile, options, force in runs:
        t0 = time.monotonic()
        try:
            audit_run(parsed, profile_with(profile, options), (profile, options) if force else None)
        except AuditError:
            pass
        slowest = max(slowest, time.monotonic() - t0)
    del ended  # the reader's own clear stop: an allowed end, as for the CLI
    return parse_took + slowest


# ---------------------------------------------------------------------------------------------- ingest
BIG = re.compile(rb"\d{10,}|(?:\d\x00){10,}|(?:\x00\d){10,}")


def too_big_for_the_store(exc: BaseException, data: bytes) -> bool:
    """Did the rows fail on a number wider than its column -- 2^31 or more in an INTEGER column (a seat), 2^63
    or more in a BIGINT one (an amount) -- that the input holds (in UTF-8 or UTF-16)?"""
    if not isinstance(exc, OverflowError) and "too large to fit" not in str(exc):
        return False
    return any(int(m.group().replace(b"\x00", b"")) >= 2 ** 31 for m in BIG.finditer(data))


class IngestSink:
    """A worker's DuckDB database for ``--ingest``, deleted and created afresh every ``reset`` inputs."""

    RESET_INPUTS = 1000
    RESET_BYTES = 64 << 20

    def __init__(self) -> None:
        # in memory-backed /dev/shm where there is one: each file's commit syncs the log, which on a disk costs
        # more than the audit itself
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.folder = tempfile.mkdtemp(prefix="audit-fuzz-db-", dir=shm)
        self.path = os.path.join(self.folder, "fuzz.duckdb")
        self.store = self.open()
        self.since = 0
        self.resets = 0

    def open(self) -> Any:
        """The database, with one DuckDB thread as ``audit ingest --workers N`` has it (the workers have the cores)."""
        from audit.store import Store

        return Store.open(self.path, threads=1)

    def put(self, data: bytes, profile: str, options: Options) -> None:
        """One input through the ingest path: its rows built, checked for engine stops, and written."""
        from audit.store.ingest import IngestJob, audit_file_rows

        if self.since >= self.RESET_INPUTS or os.path.getsize(self.path) > self.RESET_BYTES:
            self.reset()
        self.since += 1
        rows = audit_file_rows(IngestJob("<fuzz>", profile, options, data))
        findings = rows.tables.get("findings")
        if findings is not None and findings.num_rows:
            for message in findings.column("message").to_pylist():
                if message and _ENGINE_STOPPED in message:
                    raise EngineStopped(message)
        self.store.write_file(rows)

    def reset(self) -> None:
        self.store.close()
        for name in os.listdir(self.folder):
            os.remove(os.path.join(self.folder, name))
        self.store = self.open()
        self.since = 0
        self.resets += 1

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def as_bytes(payload: bytes | str) -> bytes:
    return payload if isinstance(payload, bytes) else payload.encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------- workers
def crash_key(exc: BaseException) -> str:
    """Where an exception came from: its type and the innermost frame in the project's code."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/audit/" in f.filename] or frames
    if not ours:
        return type(exc).__name__
    f = ours[-1]
    return f"{type(exc).__name__}-{Path(f.filename).stem}-{f.lineno}"


def worker(index: int, count: int, seed: int, out: str, deadline: float, ingest: bool, every: bool,
           queue: mp.Queue) -> None:  # type: ignore[type-arg]
    rnd = random.Random(seed * 1_000_003 + index)  # the inputs: the same in both modes
    pick = random.Random(seed * 1_000_003 + index + 500_000)  # the profiles and options
    mut = Mutator(load_seeds(), rnd)
    cycles = OptionCycles(pick)
    sink = IngestSink() if ingest else None
    values = option_values()
    tally = {"done": 0, "audits": 0, "crashes": 0, "stops": 0, "big": 0, "slow": 0}
    sites: dict[str, int] = {}
    last = time.monotonic()
    try:
        for n in range(count):
            as_raw = rnd.random() < 0.25
            payload: bytes | str = mut.data() if as_raw else mut.text()
            if sink is not None:
                profile = PROFILES[n % len(PROFILES)]
                runs = [(profile, cycles.draw(profile), False)]
            elif every:
                runs = [(pick.choice(OWN_PROFILES), (), False)] + [(p, (o,), True) for p in PROFILES for o in values]
            else:
                runs = [(pick.choice(OWN_PROFILES), (), False)] + [(p, cycles.draw(p), True) for p in PROFILES]
            start = time.monotonic()
            try:
                if sink is not None:
                    try:
                        sink.put(as_bytes(payload), runs[0][0], runs[0][1])
                    except AuditError:
                        pass
                    took = time.monotonic() - start
                else:
                    took = check_input(payload, runs)
            except Exception as exc:  # noqa: BLE001 - a crash is what this script looks for
                cause = exc.__cause__ if isinstance(exc, EngineStopped) and exc.__cause__ else exc
                if isinstance(exc, EngineStopped):
                    kind = "stop"
                elif sink is not None and too_big_for_the_store(exc, as_bytes(payload)):
                    kind = "big"
                else:
                    kind = "crash"
                tally[{"stop": "stops", "big": "big", "crash": "crashes"}[kind]] += 1
                key = f"{kind}-{crash_key(cause)}"
                sites[key] = sites.get(key, 0) + 1
                if sites[key] == 1:
                    save(out, key, payload, runs, ingest, "".join(traceback.format_exception(exc)))
                    queue.put(("found", key, str(exc)[:200]))
                took = time.monotonic() - start
            if took > 1.0:
                tally["slow"] += 1
                save(out, f"slow-{round(took * 1000)}ms", payload, runs, ingest, f"{took:.2f} s\n")
            tally["done"] += 1
            tally["audits"] += len(runs)
            now = time.monotonic()
            if now - last > 5:
                queue.put(("progress", index, dict(tally)))
                last = now
                if now > deadline:
                    break
    finally:
        if sink is not None:
            sink.close()
    met = min(cycles.met.values()) if tally["done"] else 0
    queue.put(("sites", index, sites, met))
    queue.put(("done", index, dict(tally)))


def save(out: str, stem: str, payload: bytes | str, runs: list[tuple[str, Options, bool]], ingest: bool,
         note: str) -> None:
    """Keep an input (``.bin``) with a note (``.txt``) and the settings ``--repro`` needs (``.json``)."""
    data = as_bytes(payload)
    digest = hashlib.sha1(data).hexdigest()[:10]
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    base = str(folder / f"{stem}-{digest}")
    Path(base + ".bin").write_bytes(data)
    settings = {"text": isinstance(payload, str), "ingest": ingest,
                "runs": [{"profile": p, "options": [list(o) for o in opts], "forced": f} for p, opts, f in runs]}
    Path(base + ".json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    described = "; ".join(f"{p}{' forced' if f else ''}" + (f" with {', '.join(f'{k}={v}' for k, v in o)}" if o
                                                             else "") for p, o, f in runs)
    Path(base + ".txt").write_text(
        f"runs: {described}\ninput: {'text' if isinstance(payload, str) else 'bytes'}"
        f"{' through the ingest path' if ingest else ''}\nagain: .venv/bin/python bench/fuzz.py --repro "
        f"{base}.bin\n\n{note}", encoding="utf-8")


def repro(path: str) -> int:
    """Run a kept input again under the settings saved beside it, raising what it raises."""
    base = path.rsplit(".", 1)[0] if path.endswith((".bin", ".txt", ".json")) else path
    settings = json.loads(Path(base + ".json").read_text(encoding="utf-8"))
    data = Path(base + ".bin").read_bytes()
    payload: bytes | str = data.decode("utf-8", "surrogatepass") if settings["text"] else data
    runs = [(r["profile"], tuple((k, v) for k, v in r["options"]), r["forced"]) for r in settings["runs"]]
    start = time.monotonic()
    if settings["ingest"]:
        sink = IngestSink()
        try:
            sink.put(data, runs[0][0], runs[0][1])
        finally:
            sink.close()
    else:
        check_input(payload, runs)
    print(f"no crash ({time.monotonic() - start:.2f} s)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="inputs to run (default 1,000,000)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "audit-fuzz-crashes"),
                    help="folder for crashing and slow inputs (default: audit-fuzz-crashes in the temp folder)")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this many minutes")
    ap.add_argument("--ingest", action="store_true",
                    help="each input through the ingest path into a DuckDB database instead of the check runs")
    ap.add_argument("--every-option", action="store_true",
                    help="check each input under every profile with every single option value (~400 audits an "
                         "input: to measure what that would cost)")
    ap.add_argument("--repro", metavar="FILE", help="run one kept input again (its .bin) and show what it raises")
    args = ap.parse_args()
    if args.repro:
        return repro(args.repro)
    jobs = max(1, min(args.jobs, args.n))
    deadline = time.monotonic() + (args.minutes * 60 if args.minutes else 10 ** 9)
    queue: mp.Queue = mp.Queue()  # type: ignore[type-arg]
    per = [args.n // jobs + (1 if i < args.n % jobs else 0) for i in range(jobs)]
    procs = [mp.Process(target=worker, args=(i, per[i], args.seed, args.out, deadline, args.ingest,
                                             args.every_option, queue))
             for i in range(jobs)]
    start = time.monotonic()
    for p in procs:
        p.start()
    state: dict[int, dict[str, int]] = {i: {} for i in range(jobs)}
    sites: dict[str, int] = {}
    met: list[int] = []
    finished = 0
    last_print = 0.0

    def total(key: str) -> int:
        return sum(s.get(key, 0) for s in state.values())

    while finished < jobs:
        try:
            msg = queue.get(timeout=5)
        except Empty:
            dead = [p for p in procs if p.exitcode not in (None, 0)]
            if dead:  # a worker that died without reporting (a bug of the harness itself): stop, never hang
                print(f"fuzz: a worker died (exit status {dead[0].exitcode}); see its traceback above",
                      file=sys.stderr)
                for p in procs:
                    p.kill()
                return 2
            continue
        if msg[0] == "found":
            print(f"{msg[1].upper()}: {msg[2]}", flush=True)
            continue
        if msg[0] == "sites":
            for key, n in msg[2].items():
                sites[key] = sites.get(key, 0) + n
            met.append(msg[3])
            continue
        state[msg[1]] = msg[2]
        if msg[0] == "done":
            finished += 1
        now = time.monotonic()
        if now - last_print > 30 or finished == jobs:
            last_print = now
            done = total("done")
            print(f"{done:,} inputs in {now - start:,.0f} s: {done / (now - start):,.0f} inputs/s, "
                  f"{total('crashes')} crashes, {total('stops')} engine stops, "
                  + (f"{total('big')} numbers too wide for the store, " if args.ingest else "")
                  + f"{total('slow')} slow (>1 s)",
                  flush=True)
    for p in procs:
        p.join()
    elapsed = time.monotonic() - start
    done, crashes, stops, big = total("done"), total("crashes"), total("stops"), total("big")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    mode = ("ingest (rows + DuckDB)" if args.ingest else "check, every profile with every option value"
            if args.every_option else "check (own profile + every profile forced)")
    print(f"\nfuzz {mode}: {done:,} inputs in {elapsed:,.0f} s ({done / elapsed:,.0f} inputs/s; "
          f"{cpu:,.0f} CPU s, {done / max(cpu, 1e-9):,.0f} inputs per CPU second; {total('audits'):,} audits, "
          f"{jobs} jobs, seed {args.seed}): {crashes} crashes, {stops} engine stops"
          + (f", {big} crashes on numbers too wide for the store's columns" if args.ingest else "")
          + f", {total('slow')} slow inputs (>1 s); peak worker RSS {rss:,.0f} MB"
          + (f"; inputs kept in {args.out}" if crashes or stops or big or total("slow") else ""))
    if args.every_option:
        print(f"each input met every profile with each of the {len(option_values())} option values")
    elif not args.ingest or done >= len(PROFILES):
        print(f"every profile met every one of the {len(option_values())} option values at least "
              f"{min(met or [0]):,} times (in each worker)")
    for key, n in sorted(sites.items(), key=lambda kv: -kv[1]):
        print(f"  {n:,} at {key}")
    return 1 if crashes or stops or big else 0


if __name__ == "__main__":
    sys.exit(main())
