"""``audit check --jobs N``: the same output, byte for byte, as ``--jobs 1``, in the same order; bad input stops
at the same place with the same message; a dead worker is one line and exit 2; Ctrl-C is exit 130.

Folders of fixtures are checked with parts as small as the cuts allow (``chunk_bytes=1``: a long file is cut at
every place it may be), by ``check_paths`` in a fresh interpreter that forks its workers as the command does
(tests/checkjobs.py); a generated corpus of large and small files, with findings, and the broken inputs go through
the real command with its own part size.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from audit.dialects.registry import file_patterns
from audit.parallel import CheckedFiles, Part, Task, cut_points, plan, start_pool
from audit.profile import load_profile
from audit.read import InputError, iter_lines, read_blocks, read_part_blocks
from audit.simulate import iter_simulated
from checkjobs import FORMATS, JOBS, run_check
from conftest import at_least, AUDIT, FIXTURES, ROOT, SHARED, WORKER_KILLED, children, needs_shared

SHARED_FOLDERS = sorted([p for p in (SHARED / "cases").iterdir() if p.is_dir()] + [SHARED / "real-hands"]
                        if (SHARED / "cases").is_dir() else [SHARED / "cases"])
FOLDERS = ([pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in sorted(FIXTURES.iterdir()) if p.is_dir()]
           + [pytest.param(p, id=f"{p.parent.name}/{p.name}", marks=needs_shared) for p in SHARED_FOLDERS])


def joined(folder: Path, into: Path) -> Path:
    """Every log of ``folder`` in one file, as ``cat`` would join them."""
    path = into / f"{folder.name}-joined.txt"
    logs = sorted({p for pattern in file_patterns() for p in folder.rglob(pattern)})  # as a folder argument lists
    path.write_bytes(b"\n\n".join(p.read_bytes() for p in logs))
    return path


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_fixture_folder_and_its_logs_joined_give_the_same_output(folder: Path, tmp_path: Path) -> None:
    paths = [str(folder), str(joined(folder, tmp_path))]
    run = subprocess.run([sys.executable, str(ROOT / "tests" / "checkjobs.py"), *paths], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    outputs = {key: tuple(value) for key, value in json.loads(run.stdout).items()}
    assert sorted(outputs) == sorted(f"{fmt} {lang} {jobs}" for fmt, lang in FORMATS for jobs in JOBS)
    for fmt, lang in FORMATS:
        want = outputs[f"{fmt} {lang} 1"]
        for jobs in (2, 3):
            assert outputs[f"{fmt} {lang} {jobs}"] == want, (fmt, lang, jobs)


# ---- a generated corpus through the real command ------------------------------------------------------------

def simulated(profile: str, seed: int, size: int) -> str:
    """Whole simulated sessions of ``profile`` until ``size`` characters."""
    parts, total = [], 0
    for s in iter_simulated(profile, seed):
        parts.append(s.text)
        total += len(s.text)
        if total >= size:
            break
    return "\n".join(parts)


def broken(text: str, seed: int, every: int = 40) -> str:
    """``text`` with a line changed or dropped here and there, so that the audit has findings to print."""
    rng = random.Random(seed)
    lines = text.split("\n")
    for i in range(0, len(lines), every):
        j = min(len(lines) - 1, i + rng.randrange(every))
        line = lines[j]
        if line.startswith(("Session:", "Profile:", "Option:")):
            continue
        if rng.random() < 0.3:
            lines[j] = ""
        else:
            lines[j] = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randrange(1, 3)), line, count=1)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "a-home.txt").write_text(broken(simulated("home-open", 7, 700_000), 1), encoding="utf-8")
    (folder / "b-qdan.txt").write_text(broken(simulated("qdan", 8, 600_000), 2), encoding="utf-8")
    stars = at_least(8, sorted((SHARED / "real-hands" / "pokerstars").glob("*.txt")))
    sessionless = "\n\n".join(p.read_text(encoding="utf-8-sig") for p in stars)
    (folder / "c-site.txt").write_text("\n\n".join([sessionless] * (600_000 // len(sessionless) + 1)),
                                       encoding="utf-8")
    small = folder / "small"
    small.mkdir()
    for i in range(60):
        (small / f"s{i:03}.txt").write_text(broken(simulated("stripped32", 100 + i, 3_000), i, 15),
                                            encoding="utf-8")
    return folder


def command(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    proc = subprocess.run([AUDIT, "check", *args], input=stdin, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@needs_shared
def test_the_corpus_is_cut_into_parts(corpus: Path) -> None:
    tasks = list(plan([str(p) for p in sorted(corpus.rglob("*.txt"))]))
    big = [t for t in tasks if any(p.path.endswith(("a-home.txt", "b-qdan.txt", "c-site.txt")) for p in t)]
    assert len(big) >= 6, "each large file is cut into parts"
    assert any(len(t) > 10 for t in tasks), "small files go several to a task"


@needs_shared
@pytest.mark.parametrize("fmt,lang", FORMATS)
def test_generated_corpus_through_the_command(corpus: Path, fmt: str, lang: str) -> None:
    want = command(str(corpus), "--format", fmt, "--lang", lang, "--jobs", "1")
    assert want[0] == 1 and want[1].count("\n") > 100, want[2]
    for jobs in ("2", "3"):
        assert command(str(corpus), "--format", fmt, "--lang", lang, "--jobs", jobs) == want


# ---- bad input stops at the same place --------------------------------------------------------------------

@pytest.fixture(scope="module")
def long_log() -> str:
    return broken(simulated("home-open", 11, 900_000), 3)


def in_a_late_session(text: str, what: str) -> str:
    """``what`` put at the start of a line about two thirds into ``text`` (in a part a worker reads)."""
    at = text.index("\nHand #", len(text) * 2 // 3) + 1
    return text[:at] + what + text[at:]


BAD = {
    "invalid-utf8": lambda t: in_a_late_session(t, "Ana: says \udcff\n").encode("utf-8", "surrogateescape"),
    "nul": lambda t: in_a_late_session(t, "Ana: \x00\n").encode(),
    "line-too-long": lambda t: in_a_late_session(t, "Ana: " + "x" * 10_001 + "\n").encode(),
    "bad-option": lambda t: _bad_option(t).encode(),
}


def _bad_option(text: str) -> str:
    at = text.index("\nSession:", len(text) * 2 // 3) + 1
    end = text.index("\n", at)
    return text[:end + 1] + "Option: draw-limit = 9\n" + text[end + 1:]


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_in_a_late_part_stops_as_with_one_job(long_log: str, tmp_path: Path, kind: str) -> None:
    good = tmp_path / "a.txt"
    good.write_text(long_log, encoding="utf-8")
    bad = tmp_path / "b.txt"
    bad.write_bytes(BAD[kind](long_log))
    later = tmp_path / "c.txt"
    later.write_text(long_log, encoding="utf-8")
    assert len(list(plan([str(bad)]))) >= 3
    want = command(str(tmp_path), "--jobs", "1")
    assert want[0] == 2 and str(bad) in want[2] and "Traceback" not in want[2], want[2]
    for jobs in ("2", "3"):
        assert command(str(tmp_path), "--jobs", jobs) == want, (kind, jobs)


@needs_shared
def test_standard_input_a_pipe_and_files(long_log: str, tmp_path: Path, corpus: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    small = sorted((corpus / "small").glob("*.txt"))[:3]

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(small[0].read_text(encoding="utf-8"))

    outputs = []
    for jobs in ("1", "2"):
        writer = threading.Thread(target=feed)
        writer.start()
        outputs.append(command(str(corpus / "a-home.txt"), "-", str(fifo), str(small[1]), str(corpus / "b-qdan.txt"),
                               "--jobs", jobs, stdin=small[2].read_text(encoding="utf-8")))
        writer.join()
    assert outputs[0][0] == 1 and outputs[1] == outputs[0]


# ---- the workers -------------------------------------------------------------------------------------------

@needs_shared
def test_one_small_file_starts_no_pool_and_a_long_one_does(corpus: Path) -> None:
    profile = load_profile("home-open")
    small = str(next((corpus / "small").glob("*.txt")))
    with CheckedFiles([small], profile, jobs=2) as checked:
        for _file, blocks in checked:
            list(blocks)
        assert checked.pool is None
    with CheckedFiles([str(corpus / "a-home.txt")], profile, jobs=2) as checked:
        for _file, blocks in checked:
            assert checked.pool is not None and len(checked.pool.procs) == 2
            list(blocks)


def test_each_task_goes_out_before_the_plan_is_read_further() -> None:
    """Planning a task may mean reading a long file further: a worker with nothing to do gets the task already
    planned first (the first tasks were planned before the workers started; they used to wait for the next six)."""
    logs = sorted(str(p) for p in (FIXTURES / "decisions").glob("*.txt"))[:8]
    assert len(logs) == 8
    events: list[tuple[str, int]] = []

    def tasks() -> Iterator[Task]:
        for index, path in enumerate(logs):
            events.append(("planned", index))
            yield (Part(index, path),)

    pool = start_pool(2, load_profile("home-open"))
    try:
        for conn in pool.conns:
            def send(task: Task, send: Callable[[object], None] = conn.send) -> None:
                events.append(("sent", task[0].file_index))
                send(task)
            conn.send = send  # type: ignore[method-assign]
        done = [task[0].file_index for task, _results in pool.run(tasks(), ahead=8)]
    finally:
        pool.close()
    assert done == list(range(8))
    assert sorted(i for kind, i in events if kind == "sent") == list(range(8))
    assert events.index(("sent", 0)) < events.index(("planned", 1)), events
    assert events.index(("sent", 1)) < events.index(("planned", 2)), events


@needs_shared
def test_spawned_workers_when_threads_run(corpus: Path) -> None:
    """With a thread running, the workers are spawned (a fork would copy its locks): the same output."""
    paths = [str(corpus / "b-qdan.txt")]
    want = run_check(paths, "json", "en", 1, 200_000)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert run_check(paths, "json", "en", 2, 200_000) == want
    finally:
        stop.set()
        thread.join()


def wait_reading_stdin(proc: subprocess.Popen[str]) -> None:
    """Wait until the command reads its standard input (a read on file 0, seen in /proc) and its workers run."""
    deadline = time.monotonic() + 60
    while not (Path(f"/proc/{proc.pid}/syscall").read_text().startswith("0 0x0 ") and len(children(proc.pid)) >= 2):
        assert time.monotonic() < deadline, "the command never read its input"
        time.sleep(0.05)


@needs_shared
def test_a_killed_worker_is_one_line_and_exit_2(corpus: Path) -> None:
    proc = subprocess.Popen([AUDIT, "check", "-", str(corpus / "a-home.txt"), "--jobs", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_reading_stdin(proc)
        for pid in children(proc.pid):
            os.kill(pid, signal.SIGKILL)
        out, err = proc.communicate("", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    died = re.fullmatch(WORKER_KILLED.replace(r"(\S+)", r"(\S+a-home\.txt(?: \(from line \d+\))?)")
                        + r"\. Run the check again \(with fewer --jobs if memory is short\)\n", err)
    assert died, err


@pytest.mark.slow
@needs_shared
def test_ctrl_c_exits_130_and_stops_the_workers(corpus: Path) -> None:
    proc = subprocess.Popen([AUDIT, "check", "-", str(corpus / "a-home.txt"), "--jobs", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_reading_stdin(proc)
        workers = children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process of the command
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err == "audit: interrupted\n"
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


# ---- cutting and reading parts -----------------------------------------------------------------------------

def messy_log(seed: int) -> bytes:
    """Sessions, sessionless hands, preambles, comments and every kind of line end, mixed."""
    rng = random.Random(seed)
    text = simulated("home-open", seed, 60_000)
    blocks = text.split("\n\n")
    out = []
    for i, block in enumerate(blocks):
        if rng.random() < 0.1:
            block = "# a comment\n" + block
        if rng.random() < 0.05:
            block = "Profile: qdan\n\n" + block
        out.append(block)
    newline = rng.choice(["\n", "\r\n", "\r"])
    return ("\n\n".join(out)).replace("\n", newline).encode()


@pytest.mark.parametrize("seed", range(6))
def test_parts_read_as_the_whole_file_reads(tmp_path: Path, seed: int) -> None:
    data = messy_log(seed)
    if seed % 2:  # a file without sessions: cut at its hands
        data = re.sub(rb"(Session|Profile|Option):[^\r\n]*", b"# -", data)
    path = tmp_path / "messy.txt"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        cuts = list(cut_points(handle, 500))
    assert len(cuts) > 3
    text_lines = re.split(rb"\r\n|\n|\r", data)
    for cut, line in cuts:
        assert len(re.split(rb"\r\n|\n|\r", data[:cut])) == line
        assert text_lines[line - 1] == re.split(rb"\r\n|\n|\r", data[cut:], maxsplit=1)[0]
    starts = [(0, 1)] + cuts
    parts = []
    for (start, line), (end, _) in zip(starts, starts[1:] + [(None, 0)]):
        parts.extend(read_part_blocks(str(path), "m", start, end, line))
    whole = list(read_blocks(str(path), "m"))
    assert [(b.kind, b.lines, b.numbers) for b in parts] == [(b.kind, b.lines, b.numbers) for b in whole]


@pytest.mark.parametrize("seed", range(4))
def test_cuts_are_the_same_wherever_the_scans_reads_end(seed: int) -> None:
    """The scan reads into one buffer, a piece at a time; where the pieces end (inside a CRLF, inside
    "Session:", inside a blank line) changes no cut and no line number."""
    data = messy_log(seed)
    if seed % 2:
        data = re.sub(rb"(Session|Profile|Option):[^\r\n]*", b"# -", data)
    whole = list(cut_points(io.BytesIO(data), 500, scan_bytes=len(data) + 1))
    assert len(whole) > 3
    for scan in (1, 2, 3, 31, 33, 64, 97, 500, 4096):
        assert list(cut_points(io.BytesIO(data), 500, scan_bytes=scan)) == whole, scan


class ShortReads(io.RawIOBase):
    """A stream that gives at most ``step`` bytes a read (the reader's chunks then end anywhere)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.at, self.step = data, 0, step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        n = self.step if size < 0 else min(size, self.step)
        out = self.data[self.at:self.at + n]
        self.at += len(out)
        return out


@pytest.mark.parametrize("bad", [b"\xff", b"\x00", b"x" * 10_001, b"\xe2\x82"])
def test_the_reader_stops_at_the_same_line_wherever_its_chunks_end(bad: bytes) -> None:
    data = b"Session: s\r\n\r\nHand #1\nAna: folds\r" * 300 + b"Ana: " + bad + b"\nBeto: folds\n"
    seen = set()
    for step in (1, 7, 4096, 5000, 65536, 1 << 20):
        lines: list[str] = []
        with pytest.raises(InputError) as exc:
            lines.extend(iter_lines(ShortReads(data, step), "f"))  # type: ignore[arg-type]
        seen.add((tuple(lines), str(exc.value)))
    assert len(seen) == 1
    (lines, message), = seen
    assert len(lines) == 1200 and message.startswith("f:1201: ")


@pytest.mark.parametrize("where", [0, 150, 299])
def test_a_file_that_is_no_hand_history_among_many_small_logs(tmp_path: Path, where: int) -> None:
    """A folder of 300 small logs, more than one task: a file that is no hand history is one line and the check
    goes on, with two jobs as with one, wherever the file falls (the first file, in the middle of the first
    group of files, in the second group)."""
    source = (FIXTURES / "demo" / "reopen-dispute.txt").read_text(encoding="utf-8")  # one finding
    assert "Hand #" in source
    for i in range(300):
        name = f"game-{i:03}.txt"
        if i == where:
            (tmp_path / f"game-{i:03}-notes.txt").write_text("hello, not a log\n", encoding="utf-8")
        (tmp_path / name).write_text(re.sub(r"Hand #(\S+)", rf"Hand #\g<1>x{i}", source, count=1),
                                     encoding="utf-8")
    one = command(str(tmp_path), "--format", "json", "--jobs", "1")
    two = command(str(tmp_path), "--format", "json", "--jobs", "2")
    assert "internal error" not in two[2]
    assert two == one
    assert one[2].count("notes.txt") == 1
    assert len(one[1].splitlines()) == 300  # every log's finding said
