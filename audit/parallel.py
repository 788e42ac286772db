"""``audit check --jobs N``: files, and long files in parts of whole sessions, audited by worker processes.

The main process plans the work and prints; the workers read, parse, replay and judge. A plan is a sequence of
tasks, each a few parts: a small file whole (several in one task, so that a folder of small logs costs what one
large log does), or a part of a long file. A long file is cut only where the audit carries nothing from what came
before: at a ``Session:`` line after a blank line (a session's rules carry state from hand to hand, never from
one session to the next, and a ``Session:`` line starts from the ``--profile`` again); at a ``Profile:`` line
after a blank line when no ``Session:`` came before (it sets the whole profile, and there is no session to carry);
at the first line of a hand when no ``Session:``, ``Profile:``, ``Option:`` or ``Cards:`` came before. Each part is
read from its first byte by the worker itself (the main process only looks for the cuts), as the whole file reads
there: its line numbers, its errors. Standard input, pipes and devices are read by the main process when their turn
comes.

The results come back in plan order and go through the same printing as ``--jobs 1``: the output is the same,
byte for byte. A problem that stops the check (a file that cannot be read, a bad ``Profile:`` line, an internal
error) stops it at the same place, after the same output. A worker that dies (the out-of-memory killer,
``kill -9``) is one line and exit 2; Ctrl-C stops the workers with the main process (they ignore it themselves).
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from collections.abc import Iterator
from functools import lru_cache
from types import TracebackType
from typing import Any, NamedTuple

from audit.dialects.registry import hand_openers
from audit.errors import NotAHandHistory
from audit.findings import Finding
from audit.pipeline import Audited, audit_blocks, audit_file
from audit.profile import Profile
from audit.read import read_part_blocks
from audit.workers import WorkerPool, answer_tasks, cores, may_fork

CHUNK_BYTES = 256 * 1024
"""A task's size: a long file is cut about every this many bytes, small files are grouped up to it."""
MAX_FILES_PER_TASK = 256
MAX_JOBS = 64
HEAD_BYTES = 4096
"""The first bytes of a file, read whole by its first part (as the reader sniffs the encoding from them)."""
_SCAN_BYTES = 1 << 20
# bytes kept from one read to the next: a cut's pattern (a line end and an opener) may straddle them
_KEEP = max([32] + [len(prefix.encode("utf-8")) + 2 for prefix, _ in hand_openers()])


@lru_cache(maxsize=None)
def _cut_patterns() -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """A line that opens a block of any dialect (the registry's openers: a long file may be cut there), and a
    preamble's word; compiled when a file is first looked through for cuts (a check of small files needs neither)."""
    opener_line = re.compile(rb"(?:\r\n|\n|\r)(" + b"|".join(re.escape(prefix.encode("utf-8"))
                                                           for prefix, _ in hand_openers()) + rb")")
    return opener_line, re.compile(rb"Session:|Profile:|Option:|Cards:")

Checked = tuple[int, list[Finding]]
"""What ``audit check`` needs of an audited block: the hands it counts (0 or 1; a run of clean hands from a
worker comes as one count) and its findings."""


def default_jobs() -> int:
    """One job per core this process may use."""
    return max(1, min(cores(), MAX_JOBS))


def checked(audited: Iterator[Audited]) -> Iterator[Checked]:
    """The pipeline's output as ``audit check`` counts it."""
    for a in audited:
        yield (1 if a.hand is not None or a.failure is not None else 0), a.findings


# ---------------------------------------------------------------------------------------------- the plan
class Part(NamedTuple):
    """One file, or the bytes ``start`` to ``end`` of one (``None``: to its end), whose first line is
    ``first_line``. ``here``: read by the main process (standard input, a pipe, a device). (A named tuple, not a
    dataclass: its class is made in a tenth of the time at every start, and it travels to a worker in fewer
    bytes.)"""

    file_index: int  # the file's place among the files checked
    path: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    last: bool = True  # the file's last part
    here: bool = False


Task = tuple[Part, ...]


def plan(files: list[str], chunk_bytes: int = CHUNK_BYTES) -> Iterator[Task]:
    """The tasks for ``files``, in order, streaming (a long file is looked through as its tasks are taken). A
    task of a part ``here`` holds only that part."""
    task: list[Part] = []
    size = 0
    for index, path in enumerate(files):
        length = _regular_size(path)
        if length is None:
            if task:
                yield tuple(task)
                task, size = [], 0
            yield (Part(index, path, here=True),)
            continue
        parts = [Part(index, path)] if length < 2 * chunk_bytes else _file_parts(index, path, chunk_bytes)
        for part in parts:
            task.append(part)
            size += max(1, (part.end if part.end is not None else length) - part.start)
            if size >= chunk_bytes or len(task) >= MAX_FILES_PER_TASK:
                yield tuple(task)
                task, size = [], 0
    if task:
        yield tuple(task)


def _regular_size(path: str) -> int | None:
    """A regular file's size; ``None`` for what the main process reads itself (or what cannot be looked at: it
    then fails at its turn as it would with one job)."""
    if path == "-":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _file_parts(index: int, path: str, chunk_bytes: int) -> Iterator[Part]:
    """A long file's parts, cut where nothing carries over (see the module's docstring)."""
    try:
        handle = open(path, "rb")
    except OSError:
        yield Part(index, path)  # its worker says why it cannot be read
        return
    with handle:
        head = handle.read(HEAD_BYTES)
        if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head:  # UTF-16, or refused at its head
            yield Part(index, path)
            return
        handle.seek(0)
        start, line = 0, 1
        for cut, cut_line in cut_points(handle, chunk_bytes):
            yield Part(index, path, start, cut, line, last=False)
            start, line = cut, cut_line
        yield Part(index, path, start, None, line)


def _breaks(data: bytes | bytearray, start: int, end: int) -> int:
    """Line ends (LF, CRLF, CR) in ``data[start:end]``."""
    lf = data.count(b"\n", start, end)
    if data.find(b"\r", start, end) < 0:  # (a search, unlike a count, runs at memory speed)
        return lf
    return lf + data.count(b"\r", start, end) - data.count(b"\r\n", start, end)


def cut_points(handle: io.BufferedIOBase, chunk_bytes: int = CHUNK_BYTES,
               scan_bytes: int = _SCAN_BYTES) -> Iterator[tuple[int, int]]:
    """``(byte offset, file line)`` of the places a file may be cut, about ``chunk_bytes`` apart (none in its
    first ``HEAD_BYTES``): a ``Session:`` line after a blank line; a ``Profile:`` line after a blank line while no
    ``Session:`` has been seen; the first line of a hand while no ``Session:``, ``Profile:``, ``Option:`` or
    ``Cards:`` has been seen. Reads the file once, ``scan_bytes`` at a time into one buffer (no new memory per
    read: the main process scans while the workers audit)."""
    next_at = max(chunk_bytes, HEAD_BYTES)
    offset = 0  # of the next byte to read
    counted, lines = 0, 1  # line ends are counted up to ``counted`` (a line start), which is file line ``lines``
    preamble_at = session_at = -1  # where the first preamble word, the first "Session:" are (-1: none seen)
    opener_line, preamble_word = _cut_patterns()
    data = bytearray(scan_bytes + _KEEP)  # the last bytes of the previous read, then this read's
    view = memoryview(data)
    kept = 0
    while True:
        got = handle.readinto(view[kept:kept + scan_bytes])
        if not got:
            return
        size = kept + got
        data_at = offset - kept
        offset += got
        if preamble_at < 0:
            seen = preamble_word.search(data, 0, size)
            if seen is not None:
                preamble_at = data_at + seen.start()
        if session_at < 0:
            at = data.find(b"Session:", 0, size)
            if at >= 0:
                session_at = data_at + at
        while True:
            cut = _next_cut(data, size, max(0, next_at - data_at), data_at, preamble_at, session_at, opener_line)
            if cut < 0:
                break
            lines += _breaks(data, counted - data_at, cut)
            counted = data_at + cut
            next_at = counted + chunk_bytes
            yield counted, lines
        safe = size - _KEEP
        if safe > counted - data_at:
            if data[safe - 1:safe] == b"\r" and data[safe:safe + 1] == b"\n":
                safe += 1  # never between the two bytes of a CRLF
            lines += _breaks(data, counted - data_at, safe)
            counted = data_at + safe
        kept = min(size, _KEEP)  # (``counted`` is never before them: the tail is counted from there)
        data[:kept] = data[size - kept:size]


def _next_cut(data: bytearray, size: int, pos: int, data_at: int, preamble_at: int, session_at: int,
              opener_line: re.Pattern[bytes]) -> int:
    """The first place at or after ``pos`` in ``data[:size]`` (which starts at file offset ``data_at``) where the
    file may be cut, or -1. ``preamble_at`` and ``session_at``: the file offsets of the first preamble word and
    of the first "Session:" (-1: none so far); ``opener_line``: a line that opens a block."""
    found = _after_blank(data, size, b"Session:", pos)
    session = session_at - data_at if session_at >= 0 else size
    if session >= pos:
        profile = _after_blank(data, size, b"Profile:", pos)
        if 0 <= profile <= session and (found < 0 or profile < found):
            found = profile
    preamble = preamble_at - data_at if preamble_at >= 0 else size
    if preamble >= pos:
        m = opener_line.search(data, pos, size)
        if m is not None and m.start(1) <= preamble and (found < 0 or m.start(1) < found):
            found = m.start(1)
    return found


def _after_blank(data: bytearray, size: int, word: bytes, pos: int) -> int:
    """Where the first line in ``data[pos:size]`` that starts with ``word`` and follows a blank line starts, or
    -1."""
    i = data.find(word, pos, size)
    while i >= 0:
        j = i - 2 if i >= 2 and data[i - 2:i] == b"\r\n" else i - 1 if i >= 1 and data[i - 1] in (10, 13) else -1
        if j >= 1 and data[j - 1] in (10, 13):
            return i
        i = data.find(word, i + 1, size)
    return -1


# ---------------------------------------------------------------------------------------------- the workers
class _Unpicklable(NamedTuple):
    """An exception that could not be sent as it is: its class name and message."""

    kind: str
    text: str


class PartResult(NamedTuple):
    """One part audited: ``entries`` (hands counted since the previous entry, the findings of the block that
    ends it, the notes said before it), then the hands and notes after the last entry, and the exception that
    stopped the part, if one did."""

    entries: list[tuple[int, list[Finding], list[str]]]
    hands: int
    notices: list[str]
    error: BaseException | _Unpicklable | None


def audit_part(part: Part, profile: Profile) -> PartResult:
    """Audit one part (in a worker); never raises: what stopped it is in the result."""
    entries: list[tuple[int, list[Finding], list[str]]] = []
    hands = 0
    notices: list[str] = []
    error: BaseException | None = None
    try:
        blocks = read_part_blocks(part.path, part.path, part.start, part.end, part.first_line)
        for counted, findings in checked(audit_blocks(blocks, profile, notices=notices)):
            hands += counted
            if findings or notices:
                entries.append((hands, findings, list(notices)))
                hands = 0
                notices.clear()
    except Exception as exc:
        error = exc
    return PartResult(entries, hands, notices, error)


def audit_task(task: Task, profile: Profile) -> list[PartResult]:
    """Audit a task's parts in order, up to the first that stops the check (a file that is no hand history does
    not: ``audit check`` says so in a line and goes on with the next file, which may be in this task)."""
    out: list[PartResult] = []
    for part in task:
        result = audit_part(part, profile)
        out.append(result)
        if result.error is not None and not isinstance(result.error, NotAHandHistory):
            break
    return out


def _payload(results: list[PartResult]) -> bytes:
    import pickle

    try:
        return pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
    except Exception:
        fixed = [r._replace(error=_Unpicklable(type(r.error).__name__, str(r.error))) if r.error is not None else r
                 for r in results]
        return pickle.dumps(fixed, pickle.HIGHEST_PROTOCOL)


def _worker_main(conn: Any, profile: Profile | tuple[str, str, tuple[tuple[str, str], ...]]) -> None:
    """A worker: audit the tasks the main process sends, one at a time, until the pipe closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdout = open(os.devnull, "w")  # nothing of the main process's output may be written twice
    if isinstance(profile, tuple):  # spawned: the profile came as its parameters
        from audit.profile import rebuild_profile
        profile = rebuild_profile(*profile)
    checked_profile = profile
    answer_tasks(conn, lambda task: _payload(audit_task(task, checked_profile)))


def _task_name(task: Task) -> str:
    """A task as the sentence of a worker that died names it: its first part."""
    part = task[0]
    return f"{part.path} (from line {part.first_line})" if part.first_line > 1 else part.path


Pool = WorkerPool[Task, list[PartResult]]


def start_pool(workers: int, profile: Profile) -> Pool:
    """``workers`` processes that audit tasks. Forked, they start at once with everything imported and the
    grammar's tables loaded (check holds no database or thread pool a fork would copy half-locked); spawned when
    threads run or fork is missing (``may_fork``), the profile sent as its parameters."""
    fork = may_fork()
    arg: Any = profile
    if fork:
        from audit.dialects.house import house_line_parser

        house_line_parser()
    else:
        arg = (profile.name, profile.description, profile.params)
    return WorkerPool(workers, _worker_main, arg, fork=fork, name_of=_task_name,
                      then=". Run the check again (with fewer --jobs if memory is short)")


_READ_HERE: list[PartResult] = []
"""The answer of a task the main process reads itself (``Part.here``) when its turn comes: never a worker's,
whose answer holds a result per part."""


def _read_here(task: Task) -> list[PartResult] | None:
    return _READ_HERE if task[0].here else None


# ---------------------------------------------------------------------------------------------- in order
class CheckedFiles:
    """The blocks of ``files`` as ``audit check`` prints them, file by file, in order, with ``jobs`` worker
    processes (``jobs`` 1, or work for one task only: all in this process, with no pool). Notes for the user are
    added to ``notices`` before the block they come before. Use as a context manager: leaving it stops the
    workers."""

    def __init__(self, files: list[str], profile: Profile, jobs: int = 1, notices: list[str] | None = None,
                 chunk_bytes: int = CHUNK_BYTES) -> None:
        self.files = files
        self.profile = profile
        self.jobs = max(1, min(jobs, MAX_JOBS))
        self.notices = notices if notices is not None else []
        self.chunk_bytes = chunk_bytes
        self.pool: Pool | None = None

    def __enter__(self) -> CheckedFiles:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def __iter__(self) -> Iterator[tuple[str, Iterator[Checked]]]:
        if self.jobs > 1:
            tasks = plan(self.files, self.chunk_bytes)
            first: list[Task] = []
            for task in tasks:
                first.append(task)
                if sum(1 for t in first if not t[0].here) > 1:
                    break
            workers = min(self.jobs, sum(1 for t in first if not t[0].here))
            if workers > 1:
                self.pool = start_pool(workers, self.profile)
                stream = self._parts(self.pool.run(_chain(first, tasks), ahead=4 * self.jobs, local=_read_here))
                for index, file in enumerate(self.files):
                    yield file, _file_items(index, stream)
                return
        for file in self.files:
            yield file, checked(audit_file(file, self.profile, notices=self.notices))

    def _parts(self, results: Iterator[tuple[Task, list[PartResult]]]) -> Iterator[tuple[Part, Iterator[Checked]]]:
        for task, got in results:
            if got is _READ_HERE:
                part = task[0]
                yield part, checked(audit_file(part.path, self.profile, notices=self.notices))
                continue
            for part, result in zip(task, got):
                yield part, self._replayed(result)

    def _replayed(self, result: PartResult) -> Iterator[Checked]:
        for hands, findings, notes in result.entries:
            self.notices.extend(notes)
            yield hands, findings
        self.notices.extend(result.notices)
        if result.hands:
            yield result.hands, []
        if result.error is not None:
            raise _raised(result.error)


def _chain(first: list[Task], rest: Iterator[Task]) -> Iterator[Task]:
    yield from first
    yield from rest


def _file_items(index: int, stream: Iterator[tuple[Part, Iterator[Checked]]]) -> Iterator[Checked]:
    """The blocks of file ``index``: its parts, taken from ``stream`` up to its last one."""
    for part, items in stream:
        assert part.file_index == index, "parts come in file order"
        try:
            yield from items
        except NotAHandHistory:
            if not part.last:  # the file's other parts are not read: the next file starts after them
                for rest, _ in stream:
                    if rest.last:
                        break
            raise
        if part.last:
            return


def _raised(error: BaseException | _Unpicklable) -> BaseException:
    """The exception a part ended with, as the main process raises it (the same class and message)."""
    if isinstance(error, _Unpicklable):
        kind: type[Exception] = type(error.kind, (Exception,), {})
        return kind(error.text)
    return error
