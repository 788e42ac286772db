"""Logs that arrive by themselves: follow the folders a poker client writes its hand histories into
(``audit watch``), and send logs to a club's service (``audit upload``).

**Following.** A client appends each hand to a file as the hand ends, and sometimes rewrites a file from the start
or renames it (rotation) and begins another. Each look at a folder reads every file in it (and in the folders
inside it) whose name a dialect takes (``*.txt``, ``*.xml``: ``audit.read.log_file_name``, as a folder argument)
and cuts the text at the lines that open a hand. A hand is **complete** once another hand starts after it, or,
for the last hand of a file, once the session ends after it (``*** SESSION END ***``) or the file ends with a
whole line and has not changed for ``settle`` seconds (``--once``: a whole last line is enough at once); a hand
still being written waits, and the file is named once in ``Follower.waits``. A client's last hand need not end
with a blank line: PokerStars ends a file with the last line's CRLF, the house format may end without one. Each
complete hand is known by the SHA-256 of its text: one already sent is never sent again, from any file (a
rewritten or renamed file adds only its new hands).

**What is sent.** Hands outside a session (a site's hand histories, FORMAT.md: each audited on its own) are sent
as they complete, the new hands of a file together as one log (with the file's ``Profile:`` lines before them).
A session (from its ``Session:`` line) is sent whole once it ends: ``*** SESSION END ***``, another ``Session:``
line, ``session_idle`` seconds without a change, or ``--once``; its rules (stacks carried from hand to hand, the
standings) need every hand of it. Meanwhile its complete hands are audited as they come, to say their findings.
What was sent is kept in a state file written after each log is stored (through a temporary file renamed into
place), so a restart sends nothing twice.

**Events.** With the ``watchfiles`` package (``pip install 'audit[watch]'``) the folders are looked at when the
operating system says a file changed (and every ``settle`` seconds, for the last hands); without it, every
``poll`` seconds.

**Uploading.** ``Uploader`` posts one log to ``POST /api/v1/uploads`` with the club's token, and retries with
back-off (doubling from half a second, or the server's ``Retry-After``) on 429, 503 and connection failures.
"""

from __future__ import annotations

import codecs
import hashlib
import http.client
import json
import os
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.dialects.registry import header_openers
from audit.errors import AuditError
from audit.read import block_kind, log_file_name

STATE_VERSION = 1
NOT_HANDS = ("preamble", "session_end", "unknown")
RETRY_STATUSES = (429, 502, 503, 504)
_HEADERS = header_openers()


@dataclass
class Batch:
    """New complete hands of one file, as one log: ``data`` (preamble + hands), and each hand's digest."""

    path: Path
    name: str
    data: bytes
    digests: list[str]
    send: bool = True
    """False: a session still going on, given only to say its hands' findings (it is sent once it ends)."""


@dataclass
class Seen:
    """What was last seen of a file (in memory): its size and modification time, and since when."""

    size: int
    mtime_ns: int
    since: float


def hand_digest(text: str) -> str:
    return hashlib.sha256(text.rstrip().encode("utf-8")).hexdigest()


def decode(data: bytes) -> str | None:
    """The text of a log up to its last whole line (None when it is not text the audit reads)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="ignore")
    else:
        cut = data.rfind(b"\n")
        try:
            text = data[:cut + 1].decode("utf-8-sig")
        except UnicodeDecodeError:
            return None
    cut = text.rfind("\n")
    return text[:cut + 1].replace("\r\n", "\n").replace("\r", "\n")


def cut_hands(text: str) -> tuple[str, list[str]]:
    """The preamble (the lines before the first hand, a file header such as Merge's ``<description>`` among them)
    and each hand's text, in file order."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines)
              if line[:1] and block_kind(line) not in NOT_HANDS and not line.startswith(_HEADERS)]
    if not starts:
        return text, []
    hands = ["\n".join(lines[a:b]).rstrip("\n") + "\n" for a, b in zip(starts, starts[1:] + [len(lines)])]
    return "\n".join(lines[:starts[0]]).strip("\n"), hands


def cut_sessions(text: str) -> list[tuple[str, bool]]:
    """The text cut where a ``Session:`` line starts a session: each part, and whether it is a session (hands
    before any ``Session:`` line are not)."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("Session:")]
    if not starts:
        return [(text, False)]
    bounds = ([(0, starts[0])] if starts[0] > 0 else []) + list(zip(starts, starts[1:] + [len(lines)]))
    return [("\n".join(lines[a:b]) + ("\n" if b < len(lines) else ""), a in starts) for a, b in bounds]


def last_hand_done(text: str, last: str, final: bool, quiet: bool) -> bool:
    """Whether the last hand of a file is whole: the session ended after it, or the file ends with a whole line
    and has been quiet for the settle time (``quiet``); with ``final``, any whole last line."""
    if "\n*** SESSION END ***" in last:
        return True
    return text.endswith("\n") and (final or quiet)


class Follower:
    """The folders followed and the hands already sent (``state``: a JSON file)."""

    def __init__(self, folders: list[str], state: str, settle: float, session_idle: float = 600.0) -> None:
        self.folders = [Path(f) for f in folders]
        for folder in self.folders:
            if not folder.is_dir():
                raise AuditError(f"{folder}: no such folder")
        self.state_path = Path(state)
        self.settle = settle
        self.session_idle = session_idle
        self.previewed: dict[tuple[Path, int], int] = {}
        self.sent: set[str] = set()
        self.seen: dict[Path, Seen] = {}
        self.skipped: dict[Path, str] = {}
        self.waits: list[Path] = []  # files whose last hand began to wait, since the caller last cleared it
        self._named: set[Path] = set()  # the files named in ``waits`` in this run: each once, not once a hand
        if self.state_path.exists():
            try:
                saved = json.loads(self.state_path.read_text(encoding="utf-8"))
                self.sent = set(saved["sent"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise AuditError(f"{self.state_path}: cannot read the watch state ({exc}); move it away to "
                                 "start again (every hand would then be sent again)") from None

    def files(self) -> list[Path]:
        found: list[Path] = []
        for folder in self.folders:
            found += sorted(p for p in folder.rglob("*") if log_file_name(p.name) and p.is_file()
                            and not any(part.startswith(".") for part in p.relative_to(folder).parts))
        return found

    def scan(self, final: bool = False) -> Iterator[Batch]:
        """The new complete hands of each file (``final``: the last hand of a file counts as soon as its last
        line is whole, and a session as soon as its hands are, as ``--once`` wants)."""
        now = time.monotonic()
        for path in self.files():
            try:
                st = path.stat()
                seen = self.seen.get(path)
                if seen is None or (seen.size, seen.mtime_ns) != (st.st_size, st.st_mtime_ns):
                    seen = self.seen[path] = Seen(st.st_size, st.st_mtime_ns, now)
                data = path.read_bytes()
            except OSError as exc:
                self.skipped[path] = f"{path}: cannot read it ({exc.strerror or exc})"
                continue
            text = decode(data)
            if text is None:
                self.skipped[path] = f"{path}: not UTF-8 or UTF-16 text; skipped"
                continue
            yield from self._batches(path, text, final, now - seen.since)

    def _batches(self, path: Path, text: str, final: bool, quiet_for: float) -> Iterator[Batch]:
        parts = cut_sessions(text)
        for i, (raw, is_session) in enumerate(parts):
            last_part = i == len(parts) - 1
            preamble, hands = cut_hands(raw)
            if not hands:
                continue
            pending = last_part and not last_hand_done(text, hands[-1], final, quiet_for >= self.settle)
            if last_part:
                self._note_wait(path, hand_digest(hands[-1]) if pending else None)
            done = hands[:-1] if pending else hands
            new = [(h, d) for h in done if (d := hand_digest(h)) not in self.sent]
            if not new:
                continue
            head = preamble + "\n\n" if preamble.strip() else ""
            body = "\n".join(h for h, _ in new)
            digests = [d for _, d in new]
            if not is_session:  # hands outside a session are audited each on its own (FORMAT.md)
                yield Batch(path, path.name, (head + body).encode("utf-8"), digests)
                continue
            ended = (not last_part or "\n*** SESSION END ***" in hands[-1] or final
                     or quiet_for >= self.session_idle)
            if ended and not pending:  # the whole session, as one log: its rules see every hand
                whole = raw if len(new) == len(hands) else head + body
                yield Batch(path, path.name, whole.encode("utf-8"), digests)
            elif self.previewed.get((path, i)) != len(done):
                self.previewed[(path, i)] = len(done)
                yield Batch(path, path.name, (head + "\n".join(done)).encode("utf-8"), [], send=False)

    def _note_wait(self, path: Path, digest: str | None) -> None:
        """Name ``path`` in ``waits`` the first time its last hand (``digest``: that hand's, ``None`` when it is
        complete) waits and was not sent before."""
        if digest is not None and digest not in self.sent and path not in self._named:
            self._named.add(path)
            self.waits.append(path)

    def mark_sent(self, batch: Batch) -> None:
        """Remember ``batch``'s hands (the state file is written at once, whole)."""
        self.sent.update(batch.digests)
        self.save()

    def save(self) -> None:
        temp = self.state_path.with_name(f".{self.state_path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps({"version": STATE_VERSION, "sent": sorted(self.sent)}), encoding="utf-8")
        os.replace(temp, self.state_path)


def changes(folders: list[str], wait: float, use_events: bool = True) -> Iterator[None]:
    """Yield whenever a file under ``folders`` may have changed: at the operating system's file events (with
    ``watchfiles``), and at least every ``wait`` seconds."""
    if use_events:
        try:
            import watchfiles
        except ImportError:
            pass
        else:
            for _ in watchfiles.watch(*folders, rust_timeout=max(1, int(wait * 1000)), yield_on_timeout=True,
                                      debounce=100, step=50, raise_interrupt=True):
                yield None
            return
    while True:
        time.sleep(wait)
        yield None


def have_events() -> bool:
    import importlib.util

    return importlib.util.find_spec("watchfiles") is not None


# ------------------------------------------------------------------------------------------------ uploading
@dataclass
class Uploader:
    """``POST /api/v1/uploads`` of one log at a time, retried with back-off on 429, 503 and lost connections."""

    url: str
    token: str | None
    profile: str | None = None
    tries: int = 6
    timeout: float = 300.0
    sleep: Callable[[float], None] = time.sleep
    retried: int = field(default=0, init=False)
    on_retry: Callable[[str, float], None] | None = None

    def __post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AuditError(f"--to {self.url!r}: give the service's address, e.g. http://127.0.0.1:8000")
        self._parts = parts

    def _connection(self) -> http.client.HTTPConnection:
        p = self._parts
        if p.scheme == "https":
            return http.client.HTTPSConnection(p.hostname or "", p.port, timeout=self.timeout)
        return http.client.HTTPConnection(p.hostname or "", p.port, timeout=self.timeout)

    def send(self, name: str, data: bytes) -> dict[str, Any]:
        """The service's answer for the log (``status``: stored, duplicate or unreadable, with ``message``).
        ``AuditError`` when the service refuses the token or cannot be reached after the retries."""
        query = {"name": name, **({"profile": self.profile} if self.profile else {})}
        path = self._parts.path.rstrip("/") + "/api/v1/uploads?" + urllib.parse.urlencode(query)
        headers = {"Content-Type": "text/plain; charset=utf-8"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        delay = 0.5
        for attempt in range(1, self.tries + 1):
            wait: float | None = None
            try:
                con = self._connection()
                try:
                    con.request("POST", path, body=data, headers=headers)
                    response = con.getresponse()
                    body = response.read()
                    retry_after = response.getheader("Retry-After")
                finally:
                    con.close()
            except (OSError, http.client.HTTPException) as exc:
                why = f"cannot reach {self.url} ({getattr(exc, 'strerror', None) or exc})"
                wait = delay
            else:
                if response.status == 200:
                    answer: dict[str, Any] = json.loads(body)["uploads"][0]
                    return answer
                if response.status in (401, 403):
                    raise AuditError(f"{self.url}: the service refused the token ({response.status}); ask the "
                                     "club's operator for one (audit token add CLUB)")
                if response.status not in RETRY_STATUSES:
                    return {"name": name, "status": "unreadable",
                            "message": f"{name}: the service answered {response.status}: {_detail(body)}"}
                why = f"the service is busy ({response.status})"
                wait = _seconds(retry_after, delay)
            if attempt == self.tries:
                raise AuditError(f"{why}; gave up after {attempt} tries")
            self.retried += 1
            if self.on_retry is not None:
                self.on_retry(why, wait)
            self.sleep(wait)
            delay = min(delay * 2, 30.0)
        raise AssertionError("unreachable")


def _seconds(retry_after: str | None, default: float) -> float:
    try:
        return min(max(float(retry_after), 0.0), 60.0) if retry_after else default
    except ValueError:
        return default


def _detail(body: bytes) -> str:
    try:
        detail = json.loads(body).get("detail")
        return str(detail)[:300]
    except (ValueError, AttributeError):
        return body[:300].decode("utf-8", "replace")
